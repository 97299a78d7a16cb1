/* gst-cuda-imaging: what cudasgm and cpusgm share (properties, caps, layout)
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "../reference/sgm.h"

G_BEGIN_DECLS

#define GST_SGM_SINK_FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, ARGB, " \
  "ABGR, RGBx, BGRx, xRGB, xBGR, I420, NV12 }"
#define GST_SGM_SRC_FORMATS "{ GRAY16_LE, GRAY8, RGBA, BGRA, RGBx, BGRx }"
#define GST_SGM_SINK_CAPS GST_VIDEO_CAPS_MAKE (GST_SGM_SINK_FORMATS)
#define GST_SGM_SRC_CAPS GST_VIDEO_CAPS_MAKE (GST_SGM_SRC_FORMATS)

typedef enum
{
  GST_SGM_LAYOUT_SIDE_BY_SIDE = 0,
  GST_SGM_LAYOUT_TOP_BOTTOM = 1
} GstSgmLayout;

#define GST_TYPE_SGM_LAYOUT (gst_sgm_layout_get_type ())
GType gst_sgm_layout_get_type (void);
#define GST_TYPE_SGM_CENSUS (gst_sgm_census_get_type ())
GType gst_sgm_census_get_type (void);
#define GST_TYPE_SGM_PATHS (gst_sgm_paths_get_type ())
GType gst_sgm_paths_get_type (void);

/* Property storage; read and written under the object lock. */
typedef struct
{
  gint num_disparities;
  gint min_disparity;
  gint p1, p2;
  gint paths;
  gint census;                  /* SgmCensusKind */
  gdouble uniqueness;
  gint lr_max_diff;
  gboolean subpixel;
  gboolean median;
  GstSgmLayout layout;
} GstSgmSettings;

void gst_sgm_settings_init (GstSgmSettings * s);
/* Installs every property with ids from @first_id on. */
void gst_sgm_install_properties (GObjectClass * klass, guint first_id);
/* FALSE when @prop_id is not one of ours. */
gboolean gst_sgm_set_property (GObject * obj, GstSgmSettings * s,
    guint first_id, guint prop_id, const GValue * value);
gboolean gst_sgm_get_property (GObject * obj, GstSgmSettings * s,
    guint first_id, guint prop_id, GValue * value);

/* Where the two views are and what to read, fixed at caps time. */
typedef struct
{
  gint view_width, view_height;
  GstSgmLayout layout;
  SgmLuma luma;
  /* each view starts *_rows rows and *_bytes bytes into plane 0 (rows:
   * the frame's own stride, known per buffer); the left one is second
   * when the caps say right-view-first */
  gint left_rows, right_rows;
  gsize left_bytes, right_bytes;
  SgmOutFormat out;
} GstSgmGeometry;

/* The two views in plane 0 of a frame at @base, rows @stride bytes apart. */
static inline void
gst_sgm_views (const GstSgmGeometry * g, const guint8 * base, gsize stride,
    const guint8 ** left, const guint8 ** right)
{
  *left = base + (gsize) g->left_rows * stride + g->left_bytes;
  *right = base + (gsize) g->right_rows * stride + g->right_bytes;
}

/* From negotiated caps; FALSE (with a debug message) if they do not fit. */
gboolean gst_sgm_geometry_from_info (GstBaseTransform * trans,
    const GstSgmSettings * s, GstCaps * incaps, const GstVideoInfo * in,
    GstCaps * outcaps, const GstVideoInfo * out, GstSgmGeometry * g);
/* Snapshot of the settings (under the object lock) as algorithm parameters. */
void gst_sgm_params (GObject * obj, const GstSgmSettings * s,
    const GstSgmGeometry * g, SgmParams * p);

/* Feature-less caps arithmetic (one view out of a stereo frame). */
GstCaps *gst_sgm_transform_caps (GObject * obj, const GstSgmSettings * s,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);

G_END_DECLS
