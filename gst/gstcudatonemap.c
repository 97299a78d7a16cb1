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
 * SECTION:element-cudatonemap
 * @title: cudatonemap
 *
 * HDR to SDR tone mapping on the GPU. PQ (HDR10), HLG, linear or sRGB
 * input with BT.2020 or BT.709 primaries, from system or CUDA memory;
 * 8-bit BT.709 output (RGBA/BGRA/RGBx/BGRx/I420/NV12), gamut-mapped without
 * hue shifts. The default operator equalises the log-luminance histogram
 * (as in CS344 problem set 3); its statistics are averaged over
 * #GstCudaTonemap:smoothing frames and restart at scene cuts, so video does
 * not flicker. Output matches #cputonemap to one code value.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=hdr10.mkv ! matroskademux ! h265parse ! \
 *   nvh265dec ! "video/x-raw(memory:CUDAMemory)" ! cudatonemap ! \
 *   cudadownload ! videoconvert ! autovideosink
 * ]|
 * The bundled 16-bit PQ still (from the source tree's root):
 * |[
 * gst-launch-1.0 filesrc location=docs/img/tonemap-scene-pq16.png ! pngdec ! videoconvert ! \
 *   video/x-raw,format=RGBA64_LE ! \
 *   capssetter caps="video/x-raw,colorimetry=bt2100-pq" ! \
 *   cudatonemap smoothing=0 operator=bt2390 ! videoconvert ! pngenc ! \
 *   filesink location=sdr.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudatonemap.h"
#include "gsttonemapcommon.h"
#include "tonemap_cuda.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_tonemap_debug);
#define GST_CAT_DEFAULT gst_cuda_tonemap_debug

struct _GstCudaTonemap
{
  GstCudaImagingFilter parent;
  GstTonemapSettings settings;

  /* streaming thread (context current in set_info/process/release) */
  CiTmCuda *tm;
  CiTmConfig cfg;
  gfloat meta_peak;
  guint runtime_serial, layout_serial;
  gboolean need_create, need_reset;
};

G_DEFINE_TYPE (GstCudaTonemap, gst_cuda_tonemap, GST_TYPE_CUDA_IMAGING_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudatonemap, "cudatonemap", GST_RANK_NONE,
    GST_TYPE_CUDA_TONEMAP);

static void
gst_cuda_tonemap_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaTonemap *self = GST_CUDA_TONEMAP (object);
  gst_tonemap_set_property (object, &self->settings, prop_id, value, pspec);
}

static void
gst_cuda_tonemap_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaTonemap *self = GST_CUDA_TONEMAP (object);
  gst_tonemap_get_property (object, &self->settings, prop_id, value, pspec);
}

static GstCaps *
gst_cuda_tonemap_transform_raw_caps (GstCudaImagingFilter * filter,
    GstPadDirection direction, GstCaps * caps)
{
  return gst_tonemap_transform_caps (direction, caps, NULL);
}

static gboolean
gst_cuda_tonemap_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaTonemap *self = GST_CUDA_TONEMAP (trans);
  if (gst_tonemap_event_restarts_history (event))
    self->need_reset = TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_tonemap_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_cuda_tonemap_set_info (GstCudaImagingFilter * filter, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstCudaTonemap *self = GST_CUDA_TONEMAP (filter);
  if (!gst_tonemap_config_from_caps (GST_ELEMENT (self), &self->settings,
          incaps, in_info, out_info, &self->cfg, &self->meta_peak,
          &self->runtime_serial, &self->layout_serial)) {
    GST_ERROR_OBJECT (self, "unsupported caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  /* the device context is made on the first frame, where the stream is */
  self->need_create = TRUE;
  return TRUE;
}

static void
gst_cuda_tonemap_release (GstCudaImagingFilter * filter)
{
  GstCudaTonemap *self = GST_CUDA_TONEMAP (filter);
  ci_tm_cuda_destroy (self->tm);
  self->tm = NULL;
}

static CiTmCudaRuntime
runtime_of (const CiTmConfig * c)
{
  CiTmCudaRuntime rt = { c->op, c->target_peak, c->source_peak, c->smoothing,
    ci_tm_cut_threshold (c->scene_threshold)
  };
  return rt;
}

static int
gst_cuda_tonemap_process (GstCudaImagingFilter * filter,
    const GstCudaImagingFrame * in, GstCudaImagingFrame * out,
    ci_stream_t stream)
{
  GstCudaTonemap *self = GST_CUDA_TONEMAP (filter);
  CiTmInPlanes ip = { {0} };
  CiTmOutPlanes op = { {0} };
  CiTmCudaRuntime rt;
  guint rs, ls;
  int err;

  gst_tonemap_runtime (GST_ELEMENT (self), &self->settings, self->meta_peak,
      &self->cfg, &rs, &ls);
  if (ls != self->layout_serial) {
    gfloat meta = self->meta_peak;      /* keeps the caps' metadata */
    CiTmConfig cfg;
    if (!gst_tonemap_config_from_caps (GST_ELEMENT (self), &self->settings,
            NULL, in->info, out->info, &cfg, &meta, &rs, &ls)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, (NULL),
          ("the changed settings do not fit the negotiated formats"));
      return GST_CUDA_IMAGING_ERROR_POSTED;
    }
    self->cfg = cfg;
    self->layout_serial = ls;
    self->need_create = TRUE;
  }
  rt = runtime_of (&self->cfg);
  if (self->need_create || !self->tm) {
    CiTmParams p;
    float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
    ci_tm_cuda_destroy (self->tm);
    self->tm = NULL;
    ci_tm_params_init (&self->cfg, &p);
    ci_tm_build_trc_luts (&self->cfg, eotf, oetf);
    err = ci_tm_cuda_create (&p, eotf, oetf, &rt, CI_TM_STATS_FUSED, stream,
        &self->tm);
    if (err && !ci_cuda_error_is_oom (err)) {
      /* e.g. a bins table larger than this GPU's shared memory per block */
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot set up tone mapping with %d bins on this GPU: %s",
              p.bins, ci_cuda_error_string (err)), ("CUDA error %d", err));
      return GST_CUDA_IMAGING_ERROR_POSTED;
    }
    if (err)
      return err;
    self->need_create = FALSE;
    self->runtime_serial = rs;
  } else if (rs != self->runtime_serial) {
    err = ci_tm_cuda_set_runtime (self->tm, &rt, stream);
    if (err)
      return err;
    self->runtime_serial = rs;
  }
  if (self->need_reset) {
    ci_tm_cuda_reset (self->tm);
    self->need_reset = FALSE;
  }

  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (in->info) && i < 3; i++) {
    ip.data[i] = in->data[i];
    ip.stride[i] = in->stride[i];
  }
  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (out->info) && i < 3; i++) {
    op.data[i] = out->data[i];
    op.stride[i] = out->stride[i];
  }
  return ci_tm_cuda_process (self->tm, &ip, &op, stream);
}

static void
gst_cuda_tonemap_class_init (GstCudaTonemapClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaImagingFilterClass *filter_class =
      GST_CUDA_IMAGING_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_tonemap_set_property;
  gobject_class->get_property = gst_cuda_tonemap_get_property;
  gst_tonemap_install_properties (gobject_class);

  gst_cuda_imaging_filter_class_add_pad_templates (element_class,
      GST_TONEMAP_SINK_CAPS, GST_TONEMAP_SRC_CAPS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA HDR to SDR tone mapper", "Filter/Converter/Video/Hardware",
      "HDR (PQ/HLG/linear/sRGB) to 8-bit BT.709 tone mapping on the GPU, with "
      "temporal smoothing and scene-cut detection",
      "gst-cuda-imaging developers");

  trans_class->passthrough_on_same_caps = FALSE;
  filter_class->transform_raw_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_tonemap_transform_raw_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_tonemap_fixate_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_tonemap_sink_event);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_tonemap_set_info);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_tonemap_process);
  /* same geometry, new colour space */
  filter_class->keep_metas = GST_CI_METAS_GEOMETRY;
  filter_class->release = GST_DEBUG_FUNCPTR (gst_cuda_tonemap_release);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_tonemap_debug, "cudatonemap", 0,
      "CUDA HDR to SDR tone mapper");
}

static void
gst_cuda_tonemap_init (GstCudaTonemap * self)
{
  gst_tonemap_settings_init (&self->settings);
}
