/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "gstcudaimagingfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FFTBLOOM (gst_cuda_fftbloom_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFftBloom, gst_cuda_fftbloom, GST, CUDA_FFTBLOOM,
    GstCudaImagingFilter)

GST_ELEMENT_REGISTER_DECLARE (cudafftbloom);

G_END_DECLS
