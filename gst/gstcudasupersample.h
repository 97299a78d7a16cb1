/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstcudaimagingfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SUPERSAMPLE (gst_cuda_supersample_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSupersample, gst_cuda_supersample, GST,
    CUDA_SUPERSAMPLE, GstCudaImagingFilter)

GST_ELEMENT_REGISTER_DECLARE (cudasupersample);

G_END_DECLS
