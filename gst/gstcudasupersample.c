/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudasupersample
 * @title: cudasupersample
 *
 * Area ("super-sampling") downscaling on the GPU: each output pixel is the
 * coverage-weighted mean of the source pixels under its footprint, bit-exact
 * with NVIDIA NPP's nppiResize NPPI_INTER_SUPER on every pixel. Planar and
 * semi-planar formats scale each plane with its own footprint. Only
 * downscaling (or an unchanged axis) is offered in caps; equal caps pass
 * through. Accepts and produces both memory:CUDAMemory and system memory.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 ! video/x-raw,width=3840,height=2160 ! cudasupersample ! video/x-raw,width=1920,height=1080 ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! parsebin ! nvh264dec ! cudasupersample ! "video/x-raw(memory:CUDAMemory),width=640,height=360" ! cudadownload ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasupersample.h"
#include "gstsupersamplecommon.h"
#include "supersample_cuda.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_supersample_debug);
#define GST_CAT_DEFAULT gst_cuda_supersample_debug

struct _GstCudaSupersample
{
  GstCudaImagingFilter parent;
};

G_DEFINE_TYPE (GstCudaSupersample, gst_cuda_supersample,
    GST_TYPE_CUDA_IMAGING_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudasupersample, "cudasupersample", GST_RANK_NONE,
    GST_TYPE_CUDA_SUPERSAMPLE);

static GstCaps *
gst_cuda_supersample_transform_raw_caps (GstCudaImagingFilter * filter,
    GstPadDirection direction, GstCaps * caps)
{
  return gst_supersample_transform_caps (direction, caps, NULL);
}

static int
gst_cuda_supersample_process (GstCudaImagingFilter * filter,
    const GstCudaImagingFrame * in, GstCudaImagingFrame * out,
    ci_stream_t stream)
{
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (in->info); p++) {
    CiSsPlane sp, dp;
    gst_supersample_plane_desc (in->info, p, &sp);
    gst_supersample_plane_desc (out->info, p, &dp);
    sp.stride = in->stride[p];
    dp.stride = out->stride[p];
    int err = ci_cuda_supersample_plane (in->data[p], &sp, out->data[p], &dp,
        stream);
    if (err)
      return err;
  }
  return 0;
}

static void
gst_cuda_supersample_class_init (GstCudaSupersampleClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaImagingFilterClass *filter_class = GST_CUDA_IMAGING_FILTER_CLASS (klass);

  gst_cuda_imaging_filter_class_add_pad_templates (element_class,
      GST_SUPERSAMPLE_CAPS, GST_SUPERSAMPLE_CAPS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA super-sampling downscaler", "Filter/Converter/Video/Scaler/Hardware",
      "Area downscaling on the GPU, bit-exact with NPP NPPI_INTER_SUPER",
      "gst-cuda-imaging developers");

  trans_class->passthrough_on_same_caps = TRUE;
  filter_class->transform_raw_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_supersample_transform_raw_caps);
  gst_supersample_install_vfuncs (trans_class);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_supersample_process);
  /* scaled picture, same colours */
  filter_class->keep_metas = GST_CI_METAS_GEOMETRY_COLORSPACE;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_supersample_debug, "cudasupersample", 0,
      "CUDA super-sampling downscaler");
}

static void
gst_cuda_supersample_init (GstCudaSupersample * self)
{
}
