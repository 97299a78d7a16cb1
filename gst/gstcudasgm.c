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
 * SECTION:element-cudasgm
 * @title: cudasgm
 *
 * Semi-Global Matching stereo on the GPU. The input frame holds both views,
 * side by side (left | right) or top-bottom, as its caps' multiview-mode
 * says or else as the #GstCudaSgm:layout property says; the output is the
 * disparity of the left view, one view in size:
 *
 * - GRAY16_LE: disparity x 16 (1/16 pixel), invalid pixels 65535;
 * - GRAY8: the search range scaled to 0..254, invalid 255;
 * - RGBA/BGRA/RGBx/BGRx: a colour map for people, invalid black.
 *
 * Census transform (9x7 or centre-symmetric 9x7), Hamming cost, path
 * aggregation over 8 or 4 directions, winner-takes-all with a uniqueness
 * ratio, optional left-right check, parabolic subpixel refinement and a 3x3
 * median. Any num-disparities from 1 to 1024. Integer arithmetic throughout:
 * the output equals #cpusgm's bit for bit. Accepts and produces both
 * memory:CUDAMemory and system memory. See docs/sgm.md.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,width=640,height=480,format=GRAY8 ! tee name=t t. ! queue ! comp.sink_0 t. ! queue ! videocrop left=8 ! videobox right=-8 ! comp.sink_1 compositor name=comp sink_1::xpos=640 ! video/x-raw,width=1280,height=480 ! videoconvert ! video/x-raw,format=GRAY8 ! cudasgm num-disparities=32 ! video/x-raw,format=RGBx ! videoconvert ! autovideosink
 * ]|
 * |[
 * gst-launch-1.0 filesrc location=pair-sbs.png ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! cudasgm num-disparities=64 ! video/x-raw,format=GRAY16_LE ! videoconvert ! video/x-raw,format=GRAY16_BE ! pngenc ! filesink location=disparity16.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasgm.h"
#include "gstsgmcommon.h"
#include "../kernels/sgm.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sgm_debug);
#define GST_CAT_DEFAULT gst_cuda_sgm_debug

/* the base class has its own properties (cuda-device-id) below ours */
#define PROP_FIRST 100

struct _GstCudaSgm
{
  GstCudaImagingFilter parent;
  GstSgmSettings settings;
  GstSgmGeometry geom;
  SgmCuda *sgm;
};

G_DEFINE_TYPE (GstCudaSgm, gst_cuda_sgm, GST_TYPE_CUDA_IMAGING_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudasgm, "cudasgm", GST_RANK_NONE,
    GST_TYPE_CUDA_SGM);

static void
gst_cuda_sgm_set_property (GObject * obj, guint id, const GValue * v,
    GParamSpec * pspec)
{
  if (!gst_sgm_set_property (obj, &GST_CUDA_SGM (obj)->settings, PROP_FIRST,
          id, v))
    G_OBJECT_CLASS (gst_cuda_sgm_parent_class)->set_property (obj, id, v,
        pspec);
}

static void
gst_cuda_sgm_get_property (GObject * obj, guint id, GValue * v,
    GParamSpec * pspec)
{
  if (!gst_sgm_get_property (obj, &GST_CUDA_SGM (obj)->settings, PROP_FIRST,
          id, v))
    G_OBJECT_CLASS (gst_cuda_sgm_parent_class)->get_property (obj, id, v,
        pspec);
}

static GstCaps *
gst_cuda_sgm_transform_raw_caps (GstCudaImagingFilter * filter,
    GstPadDirection direction, GstCaps * caps)
{
  return gst_sgm_transform_caps (G_OBJECT (filter),
      &GST_CUDA_SGM (filter)->settings, direction, caps, NULL);
}

static void
gst_cuda_sgm_release (GstCudaImagingFilter * filter)
{
  GstCudaSgm *self = GST_CUDA_SGM (filter);
  sgm_cuda_destroy (self->sgm);
  self->sgm = NULL;
}

static gboolean
gst_cuda_sgm_set_info (GstCudaImagingFilter * filter, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstCudaSgm *self = GST_CUDA_SGM (filter);
  if (!gst_sgm_geometry_from_info (GST_BASE_TRANSFORM (filter),
          &self->settings, incaps, in_info, outcaps, out_info, &self->geom))
    return FALSE;
  int err = sgm_cuda_create (&self->sgm);
  if (!err) {
    /* allocate now for the current settings so the first frame does not */
    SgmParams p;
    gst_sgm_params (G_OBJECT (self), &self->settings, &self->geom, &p);
    err = sgm_cuda_reserve (self->sgm, &p);
    GST_DEBUG_OBJECT (self, "%zu bytes of device scratch",
        sgm_cuda_bytes (self->sgm));
  }
  if (err) {
    /* release() only follows a successful set_info */
    sgm_cuda_destroy (self->sgm);
    self->sgm = NULL;
    return gst_cuda_imaging_filter_post_cuda_error (filter, err,
        "allocating the SGM scratch memory");
  }
  return TRUE;
}

static int
gst_cuda_sgm_process (GstCudaImagingFilter * filter,
    const GstCudaImagingFrame * in, GstCudaImagingFrame * out,
    ci_stream_t stream)
{
  GstCudaSgm *self = GST_CUDA_SGM (filter);
  const GstSgmGeometry *g = &self->geom;
  SgmParams p;
  gst_sgm_params (G_OBJECT (self), &self->settings, g, &p);
  /* the device pitch is the frame's own (staging or upstream pool) */
  const guint8 *left, *right;
  gst_sgm_views (g, in->data[0], in->stride[0], &left, &right);
  return sgm_cuda_compute_output (self->sgm, &p, left, in->stride[0],
      right, in->stride[0], g->luma, out->data[0], out->stride[0], g->out,
      stream);
}

static void
gst_cuda_sgm_class_init (GstCudaSgmClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaImagingFilterClass *filter_class =
      GST_CUDA_IMAGING_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_sgm_set_property;
  gobject_class->get_property = gst_cuda_sgm_get_property;
  gst_sgm_install_properties (gobject_class, PROP_FIRST);

  gst_cuda_imaging_filter_class_add_pad_templates (element_class,
      GST_SGM_SINK_CAPS, GST_SGM_SRC_CAPS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA Semi-Global Matching stereo", "Filter/Analyzer/Video/Hardware",
      "Disparity of the left view of a stereo frame on the GPU",
      "gst-cuda-imaging developers");

  filter_class->transform_raw_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_sgm_transform_raw_caps);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_sgm_set_info);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_sgm_process);
  /* one view of the frame: nothing tagged carries over */
  filter_class->keep_metas = GST_CI_METAS_UNTAGGED;
  /* luma or packed RGB: plane 0 only (I420 / NV12 from system memory: a
   * third less to upload) */
  filter_class->in_planes_read = 1;
  filter_class->release = GST_DEBUG_FUNCPTR (gst_cuda_sgm_release);

  gst_type_mark_as_plugin_api (GST_TYPE_SGM_LAYOUT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SGM_CENSUS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SGM_PATHS, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_sgm_debug, "cudasgm", 0,
      "CUDA Semi-Global Matching stereo");
}

static void
gst_cuda_sgm_init (GstCudaSgm * self)
{
  gst_sgm_settings_init (&self->settings);
}
