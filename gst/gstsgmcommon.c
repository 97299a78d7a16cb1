/* gst-cuda-imaging: what cudasgm and cpusgm share
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstsgmcommon.h"
#include "gstcivideo.h"

GST_DEBUG_CATEGORY_STATIC (gst_sgm_common_debug);
#define GST_CAT_DEFAULT gst_sgm_common_debug

/* Defaults: chosen on tsukuba/venus/cones (docs/sgm.md). */
#define DEFAULT_NUM_DISPARITIES 64
#define DEFAULT_MIN_DISPARITY 0
#define DEFAULT_P1 20
#define DEFAULT_P2 90
#define DEFAULT_PATHS 8
#define DEFAULT_CENSUS SGM_CENSUS_9X7
#define DEFAULT_UNIQUENESS 0.95
#define DEFAULT_LR_MAX_DIFF (-1)
#define DEFAULT_SUBPIXEL TRUE
#define DEFAULT_MEDIAN TRUE
#define DEFAULT_LAYOUT GST_SGM_LAYOUT_SIDE_BY_SIDE

enum
{
  P_NUM_DISPARITIES,
  P_MIN_DISPARITY,
  P_P1,
  P_P2,
  P_PATHS,
  P_CENSUS,
  P_UNIQUENESS,
  P_LR_MAX_DIFF,
  P_SUBPIXEL,
  P_MEDIAN,
  P_LAYOUT,
  P_COUNT
};

GType
gst_sgm_layout_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SGM_LAYOUT_SIDE_BY_SIDE, "Left view | right view", "side-by-side"},
    {GST_SGM_LAYOUT_TOP_BOTTOM, "Left view above the right view", "top-bottom"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSgmLayout", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_sgm_census_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {SGM_CENSUS_9X7, "9x7 census (62 bits)", "9x7"},
    {SGM_CENSUS_SYM_9X7, "Centre-symmetric 9x7 census (31 bits)",
        "symmetric-9x7"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSgmCensus", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* An enum rather than an int range, so that 5..7 are refused when the
 * property is parsed; the values are the path counts themselves, so
 * g_object_set (sgm, "paths", 4, NULL) and "paths=4" both work. */
GType
gst_sgm_paths_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {4, "4 paths: horizontal and vertical", "4"},
    {8, "8 paths: horizontal, vertical and diagonal", "8"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSgmPaths", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_sgm_settings_init (GstSgmSettings * s)
{
  s->num_disparities = DEFAULT_NUM_DISPARITIES;
  s->min_disparity = DEFAULT_MIN_DISPARITY;
  s->p1 = DEFAULT_P1;
  s->p2 = DEFAULT_P2;
  s->paths = DEFAULT_PATHS;
  s->census = DEFAULT_CENSUS;
  s->uniqueness = DEFAULT_UNIQUENESS;
  s->lr_max_diff = DEFAULT_LR_MAX_DIFF;
  s->subpixel = DEFAULT_SUBPIXEL;
  s->median = DEFAULT_MEDIAN;
  s->layout = DEFAULT_LAYOUT;
}

void
gst_sgm_install_properties (GObjectClass * klass, guint first_id)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  const GParamFlags live = rw | GST_PARAM_CONTROLLABLE |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_sgm_common_debug, "sgmcommon", 0,
      "stereo layout, caps and properties");

  g_object_class_install_property (klass, first_id + P_NUM_DISPARITIES,
      g_param_spec_int ("num-disparities", "Number of disparities",
          "Size of the disparity search range (any value, not only multiples "
          "of 32 or powers of two)", 1, SGM_MAX_DISP, DEFAULT_NUM_DISPARITIES, live));
  g_object_class_install_property (klass, first_id + P_MIN_DISPARITY,
      g_param_spec_int ("min-disparity", "Minimum disparity",
          "Smallest disparity searched (x_right = x_left - d)",
          SGM_MIN_MIN_DISP, SGM_MAX_MIN_DISP, DEFAULT_MIN_DISPARITY, live));
  g_object_class_install_property (klass, first_id + P_P1,
      g_param_spec_int ("p1", "P1", "Penalty for a disparity change of 1 "
          "between neighbours (census Hamming units)", 0, SGM_MAX_P,
          DEFAULT_P1, live));
  g_object_class_install_property (klass, first_id + P_P2,
      g_param_spec_int ("p2", "P2", "Penalty for larger disparity changes "
          "(used as max (p1, p2))", 0, SGM_MAX_P, DEFAULT_P2, live));
  g_object_class_install_property (klass, first_id + P_PATHS,
      g_param_spec_enum ("paths", "Paths", "Aggregation directions: 4 "
          "(horizontal and vertical) or 8 (plus diagonals)",
          GST_TYPE_SGM_PATHS, DEFAULT_PATHS, live));
  g_object_class_install_property (klass, first_id + P_CENSUS,
      g_param_spec_enum ("census", "Census", "Census transform window",
          GST_TYPE_SGM_CENSUS, DEFAULT_CENSUS, live));
  g_object_class_install_property (klass, first_id + P_UNIQUENESS,
      g_param_spec_double ("uniqueness", "Uniqueness ratio",
          "libSGM-style: a pixel is valid when ratio * (best cost more than "
          "one disparity away) >= best cost; 1.0 disables the test",
          0.0, 1.0, DEFAULT_UNIQUENESS, live));
  g_object_class_install_property (klass, first_id + P_LR_MAX_DIFF,
      g_param_spec_int ("lr-max-diff", "Left-right check",
          "Largest left/right disparity difference kept (-1: no check)",
          -1, SGM_MAX_DISP, DEFAULT_LR_MAX_DIFF, live));
  g_object_class_install_property (klass, first_id + P_SUBPIXEL,
      g_param_spec_boolean ("subpixel", "Subpixel",
          "Parabolic subpixel refinement (1/16 pixel)", DEFAULT_SUBPIXEL,
          live));
  g_object_class_install_property (klass, first_id + P_MEDIAN,
      g_param_spec_boolean ("median", "Median", "3x3 median of the result",
          DEFAULT_MEDIAN, live));
  /* changes the output size, so only before negotiation */
  g_object_class_install_property (klass, first_id + P_LAYOUT,
      g_param_spec_enum ("layout", "Layout", "Where the two views are when "
          "the caps carry no multiview-mode", GST_TYPE_SGM_LAYOUT,
          DEFAULT_LAYOUT, rw | GST_PARAM_MUTABLE_READY));
}

gboolean
gst_sgm_set_property (GObject * obj, GstSgmSettings * s, guint first_id,
    guint prop_id, const GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id + P_COUNT)
    return FALSE;
  GST_OBJECT_LOCK (obj);
  switch (prop_id - first_id) {
    case P_NUM_DISPARITIES:
      s->num_disparities = g_value_get_int (value);
      break;
    case P_MIN_DISPARITY:
      s->min_disparity = g_value_get_int (value);
      break;
    case P_P1:
      s->p1 = g_value_get_int (value);
      break;
    case P_P2:
      s->p2 = g_value_get_int (value);
      break;
    case P_PATHS:
      s->paths = g_value_get_enum (value);
      break;
    case P_CENSUS:
      s->census = g_value_get_enum (value);
      break;
    case P_UNIQUENESS:
      s->uniqueness = g_value_get_double (value);
      break;
    case P_LR_MAX_DIFF:
      s->lr_max_diff = g_value_get_int (value);
      break;
    case P_SUBPIXEL:
      s->subpixel = g_value_get_boolean (value);
      break;
    case P_MEDIAN:
      s->median = g_value_get_boolean (value);
      break;
    case P_LAYOUT:
      s->layout = g_value_get_enum (value);
      break;
  }
  GST_OBJECT_UNLOCK (obj);
  return TRUE;
}

gboolean
gst_sgm_get_property (GObject * obj, GstSgmSettings * s, guint first_id,
    guint prop_id, GValue * value)
{
  if (prop_id < first_id || prop_id >= first_id + P_COUNT)
    return FALSE;
  GST_OBJECT_LOCK (obj);
  switch (prop_id - first_id) {
    case P_NUM_DISPARITIES:
      g_value_set_int (value, s->num_disparities);
      break;
    case P_MIN_DISPARITY:
      g_value_set_int (value, s->min_disparity);
      break;
    case P_P1:
      g_value_set_int (value, s->p1);
      break;
    case P_P2:
      g_value_set_int (value, s->p2);
      break;
    case P_PATHS:
      g_value_set_enum (value, s->paths);
      break;
    case P_CENSUS:
      g_value_set_enum (value, s->census);
      break;
    case P_UNIQUENESS:
      g_value_set_double (value, s->uniqueness);
      break;
    case P_LR_MAX_DIFF:
      g_value_set_int (value, s->lr_max_diff);
      break;
    case P_SUBPIXEL:
      g_value_set_boolean (value, s->subpixel);
      break;
    case P_MEDIAN:
      g_value_set_boolean (value, s->median);
      break;
    case P_LAYOUT:
      g_value_set_enum (value, s->layout);
      break;
  }
  GST_OBJECT_UNLOCK (obj);
  return TRUE;
}

void
gst_sgm_params (GObject * obj, const GstSgmSettings * s,
    const GstSgmGeometry * g, SgmParams * p)
{
  sgm_params_init (p, g->view_width, g->view_height);
  GST_OBJECT_LOCK (obj);
  p->num_disp = s->num_disparities;
  p->min_disp = s->min_disparity;
  p->p1 = s->p1;
  p->p2 = s->p2;
  p->paths = s->paths;
  p->census = s->census;
  p->uniqueness = (int) lround (s->uniqueness * SGM_UNIQ_ONE);
  p->lr_max_diff = s->lr_max_diff;
  p->subpixel = s->subpixel;
  p->median = s->median;
  GST_OBJECT_UNLOCK (obj);
}

/* Layout from a caps structure's multiview-mode, else the property. */
static GstSgmLayout
structure_layout (const GstStructure * st, GstSgmLayout fallback)
{
  const gchar *mode = gst_structure_get_string (st, "multiview-mode");
  if (mode && !g_strcmp0 (mode, "side-by-side"))
    return GST_SGM_LAYOUT_SIDE_BY_SIDE;
  if (mode && !g_strcmp0 (mode, "top-bottom"))
    return GST_SGM_LAYOUT_TOP_BOTTOM;
  return fallback;
}

/* views we cannot read: flipped or flopped */
#define STEREO_FLIPS (GST_VIDEO_MULTIVIEW_FLAGS_LEFT_FLIPPED | \
    GST_VIDEO_MULTIVIEW_FLAGS_LEFT_FLOPPED | \
    GST_VIDEO_MULTIVIEW_FLAGS_RIGHT_FLIPPED | \
    GST_VIDEO_MULTIVIEW_FLAGS_RIGHT_FLOPPED)

/* Whether a caps structure's stereo description is one we can read: no
 * multiview-mode, mono, side-by-side or top-bottom, and no flipped or
 * flopped view (right-view-first is handled by swapping the views). */
static gboolean
structure_stereo_ok (const GstStructure * st)
{
  const gchar *mode = gst_structure_get_string (st, "multiview-mode");
  if (mode && g_strcmp0 (mode, "mono") && g_strcmp0 (mode, "side-by-side")
      && g_strcmp0 (mode, "top-bottom"))
    return FALSE;
  const GValue *f = gst_structure_get_value (st, "multiview-flags");
  if (f && GST_VALUE_HOLDS_FLAG_SET (f)
      && (gst_value_get_flagset_flags (f) & gst_value_get_flagset_mask (f) &
          STEREO_FLIPS))
    return FALSE;
  return TRUE;
}

/* out (initialised here) as the int @first, or the range first..last in
 * steps of @step (last - first a multiple of it) */
static void
set_sizes (GValue * out, gint64 first, gint64 last, gint64 step)
{
  if (last <= first) {
    g_value_init (out, G_TYPE_INT);
    g_value_set_int (out, (gint) first);
  } else {
    g_value_init (out, GST_TYPE_INT_RANGE);
    gst_value_set_int_range_step (out, (gint) first, (gint) last, (gint) step);
  }
}

/* An int, int range or list of those multiplied (up = TRUE) or divided by
 * 2 into out (initialised here); FALSE for other types. Up, a view size v
 * gives the stereo size 2v, or with @odd 2v + 1 (whose last column or row
 * is dropped); a range [lo, hi] in steps of s the sizes 2v of its v (steps
 * of 2s), or with @odd and s = 1 all of [2lo, 2hi + 1] (with s > 1 the odd
 * sizes are no GStreamer range: FALSE, nothing offered). Sizes are clamped
 * to 0 .. G_MAXINT, in 64 bits. */
static gboolean
scale_value (const GValue * v, gboolean up, gboolean odd, GValue * out)
{
  const gint64 top = G_MAXINT;
  if (G_VALUE_HOLDS_INT (v)) {
    gint64 i = MAX (g_value_get_int (v), 0);
    if (up)
      set_sizes (out, MIN (2 * i + (odd ? 1 : 0), top - (odd ? 0 : 1)), 0, 1);
    else
      set_sizes (out, MAX (i / 2, 1), 0, 1);
    return TRUE;
  }
  if (GST_VALUE_HOLDS_INT_RANGE (v)) {
    gint64 lo = MAX (gst_value_get_int_range_min (v), 0);
    gint64 hi = MAX (gst_value_get_int_range_max (v), lo);
    gint64 st = MAX (gst_value_get_int_range_step (v), 1);
    if (!up) {
      set_sizes (out, MAX (lo / 2, 1), MAX (hi / 2, 1), 1);
    } else if (odd && st > 1) {
      return FALSE;
    } else if (odd) {
      set_sizes (out, MIN (2 * lo, top), MIN (2 * hi + 1, top), 1);
    } else if (2 * lo > top) {
      set_sizes (out, top - 1, 0, 1);
    } else {
      /* 2 lo is a multiple of 2 s, as GStreamer's stepped ranges need */
      set_sizes (out, 2 * lo, 2 * lo + 2 * st * ((MIN (2 * hi, top) - 2 * lo) /
              (2 * st)), 2 * st);
    }
    return TRUE;
  }
  if (GST_VALUE_HOLDS_LIST (v)) {
    g_value_init (out, GST_TYPE_LIST);
    for (guint i = 0; i < gst_value_list_get_size (v); i++) {
      GValue e = G_VALUE_INIT;
      if (scale_value (gst_value_list_get_value (v, i), up, odd, &e))
        gst_value_list_append_and_take_value (out, &e);
    }
    if (gst_value_list_get_size (out) > 0)
      return TRUE;
    g_value_unset (out);
    return FALSE;
  }
  return FALSE;
}

/* Scale a width or height field by 2 (see scale_value); a field of another
 * type is left as it is. FALSE where @odd gives nothing (no size, or odd
 * sizes no range can hold). */
static gboolean
scale_field (GstStructure * st, const gchar * field, gboolean up,
    gboolean odd)
{
  const GValue *v = gst_structure_get_value (st, field);
  GValue out = G_VALUE_INIT;
  if (v && scale_value (v, up, odd, &out)) {
    gst_structure_take_value (st, field, &out);
    return TRUE;
  }
  return !odd;
}

GstCaps *
gst_sgm_transform_caps (GObject * obj, const GstSgmSettings * s,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstSgmLayout prop_layout;
  GST_OBJECT_LOCK (obj);
  prop_layout = s->layout;
  GST_OBJECT_UNLOCK (obj);

  GstCaps *ret = gst_caps_new_empty ();
  GstCaps *sink_tmpl = gst_caps_from_string (GST_SGM_SINK_CAPS);
  GstCaps *src_tmpl = gst_caps_from_string (GST_SGM_SRC_CAPS);
  const GValue *sink_formats =
      gst_structure_get_value (gst_caps_get_structure (sink_tmpl, 0), "format");
  const GValue *src_formats =
      gst_structure_get_value (gst_caps_get_structure (src_tmpl, 0), "format");

  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *in = gst_caps_get_structure (caps, i);
    if (direction == GST_PAD_SINK) {
      if (!structure_stereo_ok (in))
        continue;               /* other stereo modes are refused */
      GstStructure *st = gst_structure_copy (in);
      GstSgmLayout l = structure_layout (in, prop_layout);
      scale_field (st, l == GST_SGM_LAYOUT_SIDE_BY_SIDE ? "width" : "height",
          FALSE, FALSE);
      gst_structure_set_value (st, "format", src_formats);
      gst_structure_remove_fields (st, "multiview-mode", "multiview-flags",
          "colorimetry", "chroma-site", NULL);
      ret = gst_caps_merge_structure (ret, st);
    } else {
      /* The property's layout as mono (what upstream that announces
       * nothing fixates to), then each layout announced, the property's
       * first, and last the property's layout with no mode, for fixed caps
       * without the field. That one also matches caps announcing the other
       * layout, whose frame size it would get wrong: hence last. Each
       * offers frames of exactly two views first (2i, even sizes of a
       * range), then those with a column or row to drop (2i + 1): upstream
       * that fixates the first structure (videotestsrc) wasted a column on
       * [2i, 2i + 1]. */
      for (int k = 0; k < 8; k++) {
        GstSgmLayout l = k / 2 == 2 ? !prop_layout : prop_layout;
        const gboolean sbs = l == GST_SGM_LAYOUT_SIDE_BY_SIDE;
        const gchar *mode = k / 2 == 0 ? "mono" : k / 2 == 3 ? NULL :
            sbs ? "side-by-side" : "top-bottom";
        GstStructure *st = gst_structure_copy (in);
        if (!scale_field (st, sbs ? "width" : "height", TRUE, k & 1)) {
          gst_structure_free (st);
          continue;
        }
        gst_structure_set_value (st, "format", sink_formats);
        gst_structure_remove_fields (st, "multiview-mode", "multiview-flags",
            "colorimetry", "chroma-site", NULL);
        if (mode)
          gst_structure_set (st, "multiview-mode", G_TYPE_STRING, mode, NULL);
        ret = gst_caps_merge_structure (ret, st);
      }
    }
  }
  gst_caps_unref (sink_tmpl);
  gst_caps_unref (src_tmpl);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

gboolean
gst_sgm_geometry_from_info (GstBaseTransform * trans,
    const GstSgmSettings * s, GstCaps * incaps, const GstVideoInfo * in,
    GstCaps * outcaps, const GstVideoInfo * out, GstSgmGeometry * g)
{
  const GstVideoFormatInfo *fi = in->finfo;
  GstVideoMultiviewMode mode = GST_VIDEO_INFO_MULTIVIEW_MODE (in);
  const gint iw = GST_VIDEO_INFO_WIDTH (in), ih = GST_VIDEO_INFO_HEIGHT (in);

  GST_OBJECT_LOCK (trans);
  g->layout = s->layout;
  GST_OBJECT_UNLOCK (trans);
  if (mode == GST_VIDEO_MULTIVIEW_MODE_SIDE_BY_SIDE)
    g->layout = GST_SGM_LAYOUT_SIDE_BY_SIDE;
  else if (mode == GST_VIDEO_MULTIVIEW_MODE_TOP_BOTTOM)
    g->layout = GST_SGM_LAYOUT_TOP_BOTTOM;
  else if (mode != GST_VIDEO_MULTIVIEW_MODE_NONE
      && mode != GST_VIDEO_MULTIVIEW_MODE_MONO) {
    GST_WARNING_OBJECT (trans, "multiview-mode %s is not a stereo layout "
        "this element reads", gst_video_multiview_mode_to_caps_string (mode));
    return FALSE;
  }
  const GstVideoMultiviewFlags flags = GST_VIDEO_INFO_MULTIVIEW_FLAGS (in);
  if (flags & STEREO_FLIPS) {
    GST_WARNING_OBJECT (trans, "flipped or flopped views are not supported");
    return FALSE;
  }

  g->view_width = g->layout == GST_SGM_LAYOUT_SIDE_BY_SIDE ? iw / 2 : iw;
  g->view_height = g->layout == GST_SGM_LAYOUT_TOP_BOTTOM ? ih / 2 : ih;
  if (g->view_width < 1 || g->view_height < 1
      || GST_VIDEO_INFO_WIDTH (out) != g->view_width
      || GST_VIDEO_INFO_HEIGHT (out) != g->view_height) {
    GST_WARNING_OBJECT (trans, "input %dx%d (%s) does not give the output "
        "%dx%d", iw, ih, g->layout ? "top-bottom" : "side-by-side",
        GST_VIDEO_INFO_WIDTH (out), GST_VIDEO_INFO_HEIGHT (out));
    return FALSE;
  }
  if (g->view_width > SGM_MAX_VIEW || g->view_height > SGM_MAX_VIEW) {
    /* the caps ranges allow it: say why, not only not-negotiated */
    if (!gst_ci_refused_before (trans, incaps, outcaps))
      GST_ELEMENT_ERROR (trans, STREAM, FORMAT, ("Stereo views too large"),
          ("views of %dx%d: at most %d pixels each way", g->view_width,
              g->view_height, SGM_MAX_VIEW));
    return FALSE;
  }

  gint pstride = GST_VIDEO_INFO_COMP_PSTRIDE (in, 0);
  memset (&g->luma, 0, sizeof g->luma);
  if (GST_VIDEO_FORMAT_INFO_IS_YUV (fi) || GST_VIDEO_FORMAT_INFO_IS_GRAY (fi)) {
    /* plane 0 is luma; GRAY16_LE is native-endian on little-endian hosts */
    g->luma.kind = GST_VIDEO_INFO_COMP_DEPTH (in, 0) > 8 ?
        SGM_LUMA_GRAY16 : SGM_LUMA_GRAY8;
    pstride = g->luma.kind == SGM_LUMA_GRAY16 ? 2 : 1;
  } else {
    g->luma.kind = SGM_LUMA_RGB;
    g->luma.pixel_stride = pstride;
    g->luma.r = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_R);
    g->luma.g = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_G);
    g->luma.b = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_B);
  }
  /* where the second view starts */
  const gint rows2 = g->layout == GST_SGM_LAYOUT_TOP_BOTTOM ?
      g->view_height : 0;
  const gsize bytes2 = g->layout == GST_SGM_LAYOUT_SIDE_BY_SIDE ?
      (gsize) g->view_width * pstride : 0;
  const gboolean swap = (flags & GST_VIDEO_MULTIVIEW_FLAGS_RIGHT_VIEW_FIRST)
      != 0;
  g->left_rows = swap ? rows2 : 0;
  g->left_bytes = swap ? bytes2 : 0;
  g->right_rows = swap ? 0 : rows2;
  g->right_bytes = swap ? 0 : bytes2;

  const GstVideoFormatInfo *fo = out->finfo;
  memset (&g->out, 0, sizeof g->out);
  switch (GST_VIDEO_INFO_FORMAT (out)) {
    case GST_VIDEO_FORMAT_GRAY16_LE:
      g->out.kind = SGM_OUT_GRAY16;
      break;
    case GST_VIDEO_FORMAT_GRAY8:
      g->out.kind = SGM_OUT_GRAY8;
      break;
    default:
      g->out.kind = SGM_OUT_COLOUR;
      g->out.r = GST_VIDEO_FORMAT_INFO_POFFSET (fo, GST_VIDEO_COMP_R);
      g->out.g = GST_VIDEO_FORMAT_INFO_POFFSET (fo, GST_VIDEO_COMP_G);
      g->out.b = GST_VIDEO_FORMAT_INFO_POFFSET (fo, GST_VIDEO_COMP_B);
      /* the fourth byte: alpha or padding, written 255 either way */
      g->out.a = 6 - g->out.r - g->out.g - g->out.b;
      break;
  }
  return TRUE;
}
