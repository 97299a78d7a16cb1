/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstcudaimagingfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_SGM (gst_cuda_sgm_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSgm, gst_cuda_sgm, GST, CUDA_SGM,
    GstCudaImagingFilter)

GST_ELEMENT_REGISTER_DECLARE (cudasgm);

G_END_DECLS
