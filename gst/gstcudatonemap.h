/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstcudaimagingfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_TONEMAP (gst_cuda_tonemap_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaTonemap, gst_cuda_tonemap, GST, CUDA_TONEMAP,
    GstCudaImagingFilter)

GST_ELEMENT_REGISTER_DECLARE (cudatonemap);

G_END_DECLS
