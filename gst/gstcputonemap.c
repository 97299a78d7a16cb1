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
 * SECTION:element-cputonemap
 * @title: cputonemap
 *
 * HDR to SDR tone mapping on the CPU: the C reference of #cudatonemap, with
 * the same properties, caps and output (to one code value). PQ, HLG, linear
 * or sRGB input with BT.2020 or BT.709 primaries; 8-bit BT.709 output,
 * gamut-mapped without hue shifts. The default operator equalises the
 * log-luminance histogram, smoothed over time with scene-cut detection.
 * Rows are shared by #GstCpuTonemap:n-threads threads (one per processor
 * by default); the output is the same for any number.
 *
 * ## Example launch lines
 * HDR10 video decoded in software (avdec_h265, from gstreamer1.0-libav on
 * Debian, gives I420_10LE for HEVC Main10):
 * |[
 * gst-launch-1.0 filesrc location=hdr10.mkv ! matroskademux ! h265parse ! \
 *   avdec_h265 ! cputonemap ! videoconvert ! autovideosink
 * ]|
 * A 16-bit PQ-encoded BT.2020 PNG still (the bundled synthetic scene, from
 * the source tree's root):
 * |[
 * gst-launch-1.0 filesrc location=docs/img/tonemap-scene-pq16.png ! pngdec ! videoconvert ! \
 *   video/x-raw,format=RGBA64_LE ! \
 *   capssetter caps="video/x-raw,colorimetry=bt2100-pq" ! \
 *   cputonemap smoothing=0 ! videoconvert ! pngenc ! filesink location=sdr.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcputonemap.h"
#include "gstcivideo.h"
#include "gsttonemapcommon.h"
#include "gstcicontrol.h"
#include "gstciparallel.h"

GST_DEBUG_CATEGORY_STATIC (gst_cpu_tonemap_debug);
#define GST_CAT_DEFAULT gst_cpu_tonemap_debug

/* above the ids of gsttonemapcommon.c's shared properties */
#define PROP_N_THREADS 1000

struct _GstCpuTonemap
{
  GstVideoFilter parent;
  GstTonemapSettings settings;
  guint n_threads;              /* the property; under the object lock */
  GstCiParallel *par;

  /* streaming thread */
  CiTonemap *tm;
  CiTmConfig cfg;
  gfloat meta_peak;
  guint runtime_serial, layout_serial;
  gboolean need_reset;
};

G_DEFINE_TYPE (GstCpuTonemap, gst_cpu_tonemap, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cputonemap, "cputonemap", GST_RANK_NONE,
    GST_TYPE_CPU_TONEMAP);

static void
gst_cpu_tonemap_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCpuTonemap *self = GST_CPU_TONEMAP (object);
  if (gst_ci_set_n_threads (object, PROP_N_THREADS, prop_id, value,
          &self->n_threads))
    return;
  gst_tonemap_set_property (object, &self->settings, prop_id, value, pspec);
}

static void
gst_cpu_tonemap_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCpuTonemap *self = GST_CPU_TONEMAP (object);
  if (gst_ci_get_n_threads (object, PROP_N_THREADS, prop_id, value,
          &self->n_threads))
    return;
  gst_tonemap_get_property (object, &self->settings, prop_id, value, pspec);
}

static void
gst_cpu_tonemap_finalize (GObject * object)
{
  GstCpuTonemap *self = GST_CPU_TONEMAP (object);
  ci_tonemap_free (self->tm);
  gst_ci_parallel_free (self->par);
  G_OBJECT_CLASS (gst_cpu_tonemap_parent_class)->finalize (object);
}

static GstCaps *
gst_cpu_tonemap_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_tonemap_transform_caps (direction, caps, filter);
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, ret);
  return ret;
}

/* A fresh reference pipeline (and history) for self->cfg. */
static gboolean
renew_state (GstCpuTonemap * self)
{
  ci_tonemap_free (self->tm);
  self->tm = ci_tonemap_new (&self->cfg);
  if (!self->tm)
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
        ("out of memory for the tone-mapping state"));
  return self->tm != NULL;
}

static gboolean
gst_cpu_tonemap_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstCpuTonemap *self = GST_CPU_TONEMAP (filter);
  if (!gst_ci_check_progressive (GST_BASE_TRANSFORM (filter), incaps, outcaps,
          in_info))
    return FALSE;
  if (!gst_tonemap_config_from_caps (GST_ELEMENT (self), &self->settings,
          incaps, in_info, out_info, &self->cfg, &self->meta_peak,
          &self->runtime_serial, &self->layout_serial)) {
    GST_ERROR_OBJECT (self, "unsupported caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  return renew_state (self);
}

static gboolean
gst_cpu_tonemap_stop (GstBaseTransform * trans)
{
  GstCpuTonemap *self = GST_CPU_TONEMAP (trans);
  ci_tonemap_free (self->tm);
  self->tm = NULL;
  gst_ci_forget_refusal (trans);
  return TRUE;
}

static gboolean
gst_cpu_tonemap_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCpuTonemap *self = GST_CPU_TONEMAP (trans);
  if (gst_tonemap_event_restarts_history (event))
    self->need_reset = TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_cpu_tonemap_parent_class)->sink_event
      (trans, event);
}

/* the slices for this frame, from n-threads and the frame's size (the
 * reference re-allocates only when their number changes) */
static gboolean
update_runner (GstCpuTonemap * self, const GstVideoInfo * in_info)
{
  const guint slices = gst_ci_parallel_slices (G_OBJECT (self),
      &self->n_threads, GST_VIDEO_INFO_SIZE (in_info));
  if (ci_tonemap_set_runner (self->tm, slices > 1 ? gst_ci_parallel_runner :
          NULL, self->par, slices) != 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
        ("out of memory for %u threads' statistics", slices));
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_cpu_tonemap_transform_frame (GstVideoFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstCpuTonemap *self = GST_CPU_TONEMAP (filter);
  guint rs, ls;
  CiTmInPlanes ip = { {0} };
  CiTmOutPlanes op = { {0} };

  if (!self->tm)
    return GST_FLOW_NOT_NEGOTIATED;
  gst_tonemap_runtime (GST_ELEMENT (self), &self->settings, self->meta_peak,
      &self->cfg, &rs, &ls);
  if (ls != self->layout_serial) {
    /* bins / transfer / input peak: a new pipeline, new history */
    gfloat meta = self->meta_peak;      /* keeps the caps' metadata */
    CiTmConfig cfg;
    if (!gst_tonemap_config_from_caps (GST_ELEMENT (self), &self->settings,
            NULL, &filter->in_info, &filter->out_info, &cfg, &meta, &rs, &ls))
      return GST_FLOW_NOT_NEGOTIATED;
    self->cfg = cfg;
    if (!renew_state (self))
      return GST_FLOW_ERROR;
    self->layout_serial = ls;
    self->runtime_serial = rs;
  } else if (rs != self->runtime_serial) {
    ci_tonemap_set_runtime (self->tm, &self->cfg);
    self->runtime_serial = rs;
  }
  if (self->need_reset) {
    ci_tonemap_reset (self->tm);
    self->need_reset = FALSE;
  }

  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in) && p < 3; p++) {
    ip.data[p] = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    ip.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
  }
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (out) && p < 3; p++) {
    op.data[p] = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    op.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
  }
  if (!update_runner (self, &filter->in_info))
    return GST_FLOW_ERROR;
  ci_tonemap_process (self->tm, &ip, &op);
  return GST_FLOW_OK;
}

/* same geometry, new colour space */
GST_CI_VIDEO_FILTER_TRANSFORM_META (gst_cpu_tonemap_transform_meta,
    GST_CI_METAS_GEOMETRY);

static void
gst_cpu_tonemap_class_init (GstCpuTonemapClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_cpu_tonemap_set_property;
  gobject_class->get_property = gst_cpu_tonemap_get_property;
  gobject_class->finalize = gst_cpu_tonemap_finalize;
  gst_tonemap_install_properties (gobject_class);
  gst_ci_install_n_threads (gobject_class, PROP_N_THREADS);

  caps = gst_caps_from_string (GST_TONEMAP_SINK_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (GST_TONEMAP_SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gst_element_class_set_static_metadata (element_class,
      "CPU HDR to SDR tone mapper", "Filter/Converter/Video",
      "HDR (PQ/HLG/linear/sRGB) to 8-bit BT.709 tone mapping with temporal "
      "smoothing and scene-cut detection (CPU reference)",
      "gst-cuda-imaging developers");

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_ci_sync_controlled_properties);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cpu_tonemap_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_tonemap_fixate_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cpu_tonemap_sink_event);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cpu_tonemap_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ci_video_filter_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_ci_video_filter_transform);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cpu_tonemap_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_cpu_tonemap_transform_frame);

  GST_DEBUG_CATEGORY_INIT (gst_cpu_tonemap_debug, "cputonemap", 0,
      "CPU HDR to SDR tone mapper");
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cpu_tonemap_transform_meta);
}

static void
gst_cpu_tonemap_init (GstCpuTonemap * self)
{
  gst_tonemap_settings_init (&self->settings);
  self->par = gst_ci_parallel_new ();
}
