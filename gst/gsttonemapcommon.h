/* gst-cuda-imaging: what cudatonemap and cputonemap share
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "../reference/tonemap.h"

G_BEGIN_DECLS

/* HDR10 metadata peaks (MaxCLL, mastering max) below this many cd/m2, or
 * above 10000, are ignored */
#define GST_TONEMAP_META_MIN_PEAK 10

#define GST_TONEMAP_IN_FORMATS "{ P010_10LE, I420_10LE, P016_LE, Y444_16LE, " \
  "RGBA64_LE, BGRA64_LE, RGB10A2_LE, BGR10A2_LE }"
#define GST_TONEMAP_OUT_FORMATS "{ BGRx, RGBx, BGRA, RGBA, NV12, I420 }"
#define GST_TONEMAP_SINK_CAPS GST_VIDEO_CAPS_MAKE (GST_TONEMAP_IN_FORMATS)
#define GST_TONEMAP_SRC_CAPS GST_VIDEO_CAPS_MAKE (GST_TONEMAP_OUT_FORMATS)

#define GST_TYPE_TONEMAP_OPERATOR (gst_tonemap_operator_get_type ())
GType gst_tonemap_operator_get_type (void);
#define GST_TYPE_TONEMAP_TRANSFER (gst_tonemap_transfer_get_type ())
GType gst_tonemap_transfer_get_type (void);

/* input-transfer values; the others are CiTmTransfer + 1 */
#define GST_TONEMAP_TRANSFER_AUTO 0

/* Properties of one element, guarded by the object lock (they change while
 * PLAYING).  runtime_serial: operator/peaks/smoothing changed;
 * layout_serial: bins/input-transfer/input-peak changed (new context). */
typedef struct
{
  gint op;
  guint bins;
  gfloat target_peak;
  gfloat source_peak;
  gint input_transfer;
  gfloat input_peak;
  guint smoothing;
  gfloat scene_threshold;
  guint runtime_serial, layout_serial;
  /* not a property: the negotiated caps had no colorimetry (streaming
   * thread only; see gst_tonemap_config_from_caps) */
  gboolean caps_colorimetry_unknown;
} GstTonemapSettings;

void gst_tonemap_settings_init (GstTonemapSettings * s);
/* Installs all properties with ids 1..n on @klass. */
void gst_tonemap_install_properties (GObjectClass * klass);
void gst_tonemap_set_property (GObject * object, GstTonemapSettings * s,
    guint prop_id, const GValue * value, GParamSpec * pspec);
void gst_tonemap_get_property (GObject * object, GstTonemapSettings * s,
    guint prop_id, GValue * value, GParamSpec * pspec);

/* Feature-less caps: HDR formats one side, 8-bit BT.709 the other. */
GstCaps *gst_tonemap_transform_caps (GstPadDirection direction,
    GstCaps * caps, GstCaps * filter);
/* Fixates, then states the output colorimetry (BT.709). */
GstCaps *gst_tonemap_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);

/* The configuration for negotiated caps and the current properties, read
 * with their serials under one object lock.  @incaps supplies HDR10
 * mastering-display and content-light-level fields when present; NULL
 * rebuilds for the caps seen last, whose peak @meta_peak then brings in
 * (it returns the caps' peak, 0 if none). */
gboolean gst_tonemap_config_from_caps (GstElement * element,
    GstTonemapSettings * s, GstCaps * incaps, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, CiTmConfig * cfg, gfloat * meta_peak,
    guint * runtime_serial, guint * layout_serial);
/* Refreshes the run-time fields of @cfg from the properties (@meta_peak:
 * the caps' HDR10 peak, 0 if none); returns the serials so the caller can
 * tell what changed. */
void gst_tonemap_runtime (GstElement * element, GstTonemapSettings * s,
    gfloat meta_peak, CiTmConfig * cfg, guint * runtime_serial,
    guint * layout_serial);

/* Whether @event starts the temporal statistics afresh: after a seek
 * (flush) the history belongs to another part of the stream, after a
 * stream-start (gapless playback, concat) to another stream. */
static inline gboolean
gst_tonemap_event_restarts_history (GstEvent * event)
{
  return GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP
      || GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START;
}

G_END_DECLS
