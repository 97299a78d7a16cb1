/* gst-cuda-imaging: what cudasupersample and cpusupersample share
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "supersample.h"

G_BEGIN_DECLS

#define GST_SUPERSAMPLE_FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, ARGB, ABGR, " \
  "RGBx, BGRx, xRGB, xBGR, I420, YV12, Y42B, Y444, NV12, NV21, RGBA64_LE, P010_10LE, I420_10LE }"

#define GST_SUPERSAMPLE_CAPS GST_VIDEO_CAPS_MAKE (GST_SUPERSAMPLE_FORMATS)

/* Feature-less caps arithmetic: outputs no larger than the input on each axis. */
GstCaps *gst_supersample_transform_caps (GstPadDirection direction,
    GstCaps * caps, GstCaps * filter);
/* Like videoscale: keep the display aspect ratio, prefer the input size. */
GstCaps *gst_supersample_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
/* Geometry of @plane for the supersample code (stride filled by the caller). */
void gst_supersample_plane_desc (const GstVideoInfo * info, gint plane,
    CiSsPlane * desc);
/* Sets fixate_caps and the upscale explanations (sink_event: a refused CAPS
 * event; query: a sink CAPS query emptied only by the size; start/stop: one
 * warning per run), all chaining up to the element's parent class. */
void gst_supersample_install_vfuncs (GstBaseTransformClass * klass);

G_END_DECLS
