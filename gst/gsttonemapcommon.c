/* gst-cuda-imaging: what cudatonemap and cputonemap share
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

#include <string.h>
#include "gsttonemapcommon.h"

GST_DEBUG_CATEGORY_STATIC (gst_tonemap_common_debug);
#define GST_CAT_DEFAULT gst_tonemap_common_debug

/* each 2x2 block's chroma is its mean: sited at the block's centre */
#define OUT_CHROMA_SITE "jpeg"

#define DEFAULT_OPERATOR CI_TM_OP_HISTOGRAM
#define DEFAULT_BINS 1024
#define DEFAULT_TARGET_PEAK 100.0f
#define DEFAULT_SOURCE_PEAK 0.0f
#define DEFAULT_INPUT_TRANSFER GST_TONEMAP_TRANSFER_AUTO
#define DEFAULT_INPUT_PEAK 1000.0f
#define DEFAULT_SMOOTHING 8
#define DEFAULT_SCENE_THRESHOLD 0.3f

enum
{
  PROP_0,
  PROP_OPERATOR,
  PROP_BINS,
  PROP_TARGET_PEAK,
  PROP_SOURCE_PEAK,
  PROP_INPUT_TRANSFER,
  PROP_INPUT_PEAK,
  PROP_SMOOTHING,
  PROP_SCENE_THRESHOLD,
};

GType
gst_tonemap_operator_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CI_TM_OP_HISTOGRAM, "Log-luminance histogram equalisation (CDF)",
        "histogram"},
    {CI_TM_OP_REINHARD, "Extended Reinhard, white at the source peak",
        "reinhard"},
    {CI_TM_OP_HABLE, "Hable (Uncharted 2) filmic curve", "hable"},
    {CI_TM_OP_BT2390, "ITU-R BT.2390 EETF (PQ domain)", "bt2390"},
    {CI_TM_OP_CLIP, "No tone mapping: scale to target-peak and clip per "
          "channel (comparison baseline)", "clip"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTonemapOperator", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_tonemap_transfer_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_TONEMAP_TRANSFER_AUTO, "From the caps colorimetry", "auto"},
    {CI_TM_TRC_PQ + 1, "SMPTE ST 2084 (PQ)", "pq"},
    {CI_TM_TRC_HLG + 1, "ARIB STD-B67 (HLG), display peak input-peak", "hlg"},
    {CI_TM_TRC_LINEAR + 1, "Linear, full scale = input-peak", "linear"},
    {CI_TM_TRC_SRGB + 1, "sRGB curve, full scale = input-peak", "srgb"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstTonemapTransfer", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_tonemap_settings_init (GstTonemapSettings * s)
{
  memset (s, 0, sizeof *s);
  s->op = DEFAULT_OPERATOR;
  s->bins = DEFAULT_BINS;
  s->target_peak = DEFAULT_TARGET_PEAK;
  s->source_peak = DEFAULT_SOURCE_PEAK;
  s->input_transfer = DEFAULT_INPUT_TRANSFER;
  s->input_peak = DEFAULT_INPUT_PEAK;
  s->smoothing = DEFAULT_SMOOTHING;
  s->scene_threshold = DEFAULT_SCENE_THRESHOLD;
  s->runtime_serial = s->layout_serial = 1;
}

void
gst_tonemap_install_properties (GObjectClass * klass)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags rwc = rw | GST_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_tonemap_common_debug, "tonemapcommon", 0,
      "tone mapping properties and caps");

  g_object_class_install_property (klass, PROP_OPERATOR,
      g_param_spec_enum ("operator", "Operator",
          "Tone-mapping operator", GST_TYPE_TONEMAP_OPERATOR,
          DEFAULT_OPERATOR, rw));
  g_object_class_install_property (klass, PROP_BINS,
      g_param_spec_uint ("bins", "Bins",
          "Histogram bins over the log-luminance range (histogram operator)",
          CI_TM_MIN_BINS, CI_TM_MAX_BINS, DEFAULT_BINS, rw));
  g_object_class_install_property (klass, PROP_TARGET_PEAK,
      g_param_spec_float ("target-peak", "Target peak",
          "Luminance (cd/m2) of SDR white: the curves' scale; the histogram "
          "operator shows a frame peaking below it no brighter than it is",
          1.0f, 10000.0f, DEFAULT_TARGET_PEAK, rwc));
  g_object_class_install_property (klass, PROP_SOURCE_PEAK,
      g_param_spec_float ("source-peak", "Source peak",
          "Peak luminance (cd/m2) of the input for the curve operators; 0: "
          "HDR10 metadata (MaxCLL, else mastering display max), else the "
          "smoothed measured maximum", 0.0f, 10000.0f, DEFAULT_SOURCE_PEAK,
          rwc));
  g_object_class_install_property (klass, PROP_INPUT_TRANSFER,
      g_param_spec_enum ("input-transfer", "Input transfer",
          "Transfer function of the input (auto: from caps colorimetry)",
          GST_TYPE_TONEMAP_TRANSFER, DEFAULT_INPUT_TRANSFER, rw));
  g_object_class_install_property (klass, PROP_INPUT_PEAK,
      g_param_spec_float ("input-peak", "Input peak",
          "Luminance (cd/m2) of full scale for linear and sRGB inputs, and "
          "the HLG display peak", 1.0f, 10000.0f, DEFAULT_INPUT_PEAK, rw));
  g_object_class_install_property (klass, PROP_SMOOTHING,
      g_param_spec_uint ("smoothing", "Smoothing",
          "Frames over which the statistics are averaged (0: each frame on "
          "its own statistics, for stills)", 0, 1000, DEFAULT_SMOOTHING, rwc));
  g_object_class_install_property (klass, PROP_SCENE_THRESHOLD,
      g_param_spec_float ("scene-threshold", "Scene threshold",
          "Kolmogorov-Smirnov distance between a frame's log-luminance "
          "histogram and the average above which the average restarts "
          "(scene cut)", 0.0f, 1.0f, DEFAULT_SCENE_THRESHOLD, rwc));

  gst_type_mark_as_plugin_api (GST_TYPE_TONEMAP_OPERATOR, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_TONEMAP_TRANSFER, 0);
}

void
gst_tonemap_set_property (GObject * object, GstTonemapSettings * s,
    guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_OPERATOR:
      s->op = g_value_get_enum (value);
      s->runtime_serial++;
      break;
    case PROP_BINS:
      s->bins = g_value_get_uint (value);
      s->layout_serial++;
      break;
    case PROP_TARGET_PEAK:
      s->target_peak = g_value_get_float (value);
      s->runtime_serial++;
      break;
    case PROP_SOURCE_PEAK:
      s->source_peak = g_value_get_float (value);
      s->runtime_serial++;
      break;
    case PROP_INPUT_TRANSFER:
      s->input_transfer = g_value_get_enum (value);
      s->layout_serial++;
      break;
    case PROP_INPUT_PEAK:
      s->input_peak = g_value_get_float (value);
      s->layout_serial++;
      break;
    case PROP_SMOOTHING:
      s->smoothing = g_value_get_uint (value);
      s->runtime_serial++;
      break;
    case PROP_SCENE_THRESHOLD:
      s->scene_threshold = g_value_get_float (value);
      s->runtime_serial++;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

void
gst_tonemap_get_property (GObject * object, GstTonemapSettings * s,
    guint prop_id, GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_OPERATOR:
      g_value_set_enum (value, s->op);
      break;
    case PROP_BINS:
      g_value_set_uint (value, s->bins);
      break;
    case PROP_TARGET_PEAK:
      g_value_set_float (value, s->target_peak);
      break;
    case PROP_SOURCE_PEAK:
      g_value_set_float (value, s->source_peak);
      break;
    case PROP_INPUT_TRANSFER:
      g_value_set_enum (value, s->input_transfer);
      break;
    case PROP_INPUT_PEAK:
      g_value_set_float (value, s->input_peak);
      break;
    case PROP_SMOOTHING:
      g_value_set_uint (value, s->smoothing);
      break;
    case PROP_SCENE_THRESHOLD:
      g_value_set_float (value, s->scene_threshold);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/* 8-bit BT.709: full-range RGB with BT.709 transfer and primaries, or
 * limited-range bt709 YUV */
static gchar *
gst_tonemap_out_colorimetry (gboolean rgb)
{
  GstVideoColorimetry c = { GST_VIDEO_COLOR_RANGE_16_235,
    GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_TRANSFER_BT709,
    GST_VIDEO_COLOR_PRIMARIES_BT709
  };
  if (rgb) {
    c.range = GST_VIDEO_COLOR_RANGE_0_255;
    c.matrix = GST_VIDEO_COLOR_MATRIX_RGB;
  }
  return gst_video_colorimetry_to_string (&c);
}

/* Everything the element can output: its formats, each with its fixed
 * colour description (towards the sink, output caps outside it are
 * dropped: the way back dropped the colorimetry and took any, so an
 * ACCEPT_CAPS of BGRx with bt709 or NV12 with bt2100-pq answered yes).
 * Built once per process (a fixed set; caps queries come often); a new
 * reference for the caller. */
static GstCaps *
gst_tonemap_all_out_caps (void)
{
  static GstCaps *all;
  if (g_once_init_enter (&all)) {
    GstCaps *in = gst_caps_from_string (GST_TONEMAP_SINK_CAPS);
    GstCaps *ours = gst_tonemap_transform_caps (GST_PAD_SINK, in, NULL);
    gst_caps_unref (in);
    GST_MINI_OBJECT_FLAG_SET (ours, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&all, ours);
  }
  return gst_caps_ref (all);
}

GstCaps *
gst_tonemap_transform_caps (GstPadDirection direction, GstCaps * caps,
    GstCaps * filter)
{
  GstCaps *ret = gst_caps_new_empty ();
  GstCaps *tmpl = gst_caps_from_string (direction == GST_PAD_SINK ?
      GST_TONEMAP_SRC_CAPS : GST_TONEMAP_SINK_CAPS);
  const GValue *formats =
      gst_structure_get_value (gst_caps_get_structure (tmpl, 0), "format");

  /* towards the source pad the output's colour description is known (and
   * fixed: 8-bit BT.709), so a peer that wants another one fails to
   * intersect instead of failing after fixation */
  GValue rgb = G_VALUE_INIT, yuv = G_VALUE_INIT;
  if (direction == GST_PAD_SINK) {
    g_value_init (&rgb, GST_TYPE_LIST);
    g_value_init (&yuv, GST_TYPE_LIST);
    for (guint i = 0; i < gst_value_list_get_size (formats); i++) {
      const GValue *f = gst_value_list_get_value (formats, i);
      const GstVideoFormatInfo *fi = gst_video_format_get_info
          (gst_video_format_from_string (g_value_get_string (f)));
      gst_value_list_append_value (GST_VIDEO_FORMAT_INFO_IS_RGB (fi) ? &rgb :
          &yuv, f);
    }
  }

  GstCaps *ours = direction == GST_PAD_SRC ? gst_tonemap_all_out_caps () :
      NULL;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    if (ours) {
      GstCaps *one = gst_caps_copy_nth (caps, i);
      const gboolean possible = gst_caps_can_intersect (one, ours);
      gst_caps_unref (one);
      if (!possible)
        continue;
    }
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    /* size and rate pass through; colour description does not */
    gst_structure_set_value (s, "format", formats);
    gst_structure_remove_fields (s, "colorimetry", "chroma-site",
        "mastering-display-info", "content-light-level", NULL);
    if (direction == GST_PAD_SINK) {
      GstStructure *y = gst_structure_copy (s);
      gchar *c = gst_tonemap_out_colorimetry (TRUE);
      gst_structure_set_value (s, "format", &rgb);
      gst_structure_set (s, "colorimetry", G_TYPE_STRING, c, NULL);
      g_free (c);
      c = gst_tonemap_out_colorimetry (FALSE);
      gst_structure_set_value (y, "format", &yuv);
      gst_structure_set (y, "colorimetry", G_TYPE_STRING, c, "chroma-site",
          G_TYPE_STRING, OUT_CHROMA_SITE, NULL);
      g_free (c);
      ret = gst_caps_merge_structure (ret, s);
      ret = gst_caps_merge_structure (ret, y);
    } else {
      ret = gst_caps_merge_structure (ret, s);
    }
  }
  if (direction == GST_PAD_SINK) {
    g_value_unset (&rgb);
    g_value_unset (&yuv);
  }
  if (ours)
    gst_caps_unref (ours);
  gst_caps_unref (tmpl);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

GstCaps *
gst_tonemap_fixate_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * othercaps)
{
  othercaps = gst_caps_fixate (gst_caps_make_writable (othercaps));
  if (direction == GST_PAD_SINK && !gst_caps_is_empty (othercaps)) {
    GstStructure *s = gst_caps_get_structure (othercaps, 0);
    const gchar *fmt = gst_structure_get_string (s, "format");
    GstVideoFormat f = gst_video_format_from_string (fmt ? fmt : "");
    if (f != GST_VIDEO_FORMAT_UNKNOWN) {
      const GstVideoFormatInfo *fi = gst_video_format_get_info (f);
      gchar *str = gst_tonemap_out_colorimetry (GST_VIDEO_FORMAT_INFO_IS_RGB
          (fi));
      gst_structure_set (s, "colorimetry", G_TYPE_STRING, str, NULL);
      if (!GST_VIDEO_FORMAT_INFO_IS_RGB (fi))
        gst_structure_set (s, "chroma-site", G_TYPE_STRING, OUT_CHROMA_SITE,
            NULL);
      g_free (str);
    }
  }
  GST_DEBUG_OBJECT (trans, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}

static gboolean
in_format (GstVideoFormat f, CiTmInFormat * out)
{
  switch (f) {
    case GST_VIDEO_FORMAT_P010_10LE:
      *out = CI_TM_IN_P010;
      return TRUE;
    case GST_VIDEO_FORMAT_I420_10LE:
      *out = CI_TM_IN_I420_10;
      return TRUE;
    case GST_VIDEO_FORMAT_P016_LE:
      *out = CI_TM_IN_P016;
      return TRUE;
    case GST_VIDEO_FORMAT_Y444_16LE:
      *out = CI_TM_IN_Y444_16;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBA64_LE:
      *out = CI_TM_IN_RGBA64;
      return TRUE;
    case GST_VIDEO_FORMAT_BGRA64_LE:
      *out = CI_TM_IN_BGRA64;
      return TRUE;
    case GST_VIDEO_FORMAT_RGB10A2_LE:
      *out = CI_TM_IN_RGB10A2;
      return TRUE;
    case GST_VIDEO_FORMAT_BGR10A2_LE:
      *out = CI_TM_IN_BGR10A2;
      return TRUE;
    default:
      return FALSE;
  }
}

static gboolean
out_format (GstVideoFormat f, CiTmOutFormat * out)
{
  switch (f) {
    case GST_VIDEO_FORMAT_RGBA:
      *out = CI_TM_OUT_RGBA;
      return TRUE;
    case GST_VIDEO_FORMAT_BGRA:
      *out = CI_TM_OUT_BGRA;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBx:
      *out = CI_TM_OUT_RGBX;
      return TRUE;
    case GST_VIDEO_FORMAT_BGRx:
      *out = CI_TM_OUT_BGRX;
      return TRUE;
    case GST_VIDEO_FORMAT_I420:
      *out = CI_TM_OUT_I420;
      return TRUE;
    case GST_VIDEO_FORMAT_NV12:
      *out = CI_TM_OUT_NV12;
      return TRUE;
    default:
      return FALSE;
  }
}

/* the object lock held */
static void
runtime_locked (GstTonemapSettings * s, gfloat meta_peak, CiTmConfig * cfg,
    guint * runtime_serial, guint * layout_serial)
{
  cfg->op = s->op;
  cfg->source_peak = s->source_peak > 0.0f ? s->source_peak : meta_peak;
  cfg->target_peak = s->target_peak;
  cfg->smoothing = (int) s->smoothing;
  cfg->scene_threshold = s->scene_threshold;
  if (runtime_serial)
    *runtime_serial = s->runtime_serial;
  if (layout_serial)
    *layout_serial = s->layout_serial;
}

void
gst_tonemap_runtime (GstElement * element, GstTonemapSettings * s,
    gfloat meta_peak, CiTmConfig * cfg, guint * runtime_serial,
    guint * layout_serial)
{
  GST_OBJECT_LOCK (element);
  runtime_locked (s, meta_peak, cfg, runtime_serial, layout_serial);
  GST_OBJECT_UNLOCK (element);
}

gboolean
gst_tonemap_config_from_caps (GstElement * element, GstTonemapSettings * s,
    GstCaps * incaps, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, CiTmConfig * cfg, gfloat * meta_peak_io,
    guint * runtime_serial, guint * layout_serial)
{
  /* caps without colorimetry: gst_video_info_from_caps () fills in SDR
   * defaults (sRGB / BT.709), but an HDR source that does not say (a raw
   * parser, a capsfilter) is far more likely HDR10: unknown, as the docs
   * say auto treats it (PQ, BT.2020 primaries and matrix) */
  GstVideoColorimetry cu = in_info->colorimetry;
  if (incaps)                   /* NULL: the caps seen last */
    s->caps_colorimetry_unknown = gst_caps_get_size (incaps) > 0
        && !gst_structure_has_field (gst_caps_get_structure (incaps, 0),
        "colorimetry");
  if (s->caps_colorimetry_unknown) {
    cu.transfer = GST_VIDEO_TRANSFER_UNKNOWN;
    cu.primaries = GST_VIDEO_COLOR_PRIMARIES_UNKNOWN;
    cu.matrix = GST_VIDEO_COLOR_MATRIX_UNKNOWN;
  }
  const GstVideoColorimetry *c = &cu;
  GstVideoMasteringDisplayInfo mdi;
  GstVideoContentLightLevel cll;
  CiTmInFormat fi;
  CiTmOutFormat fo;
  gint transfer, bins;
  gfloat input_peak, meta_peak = incaps ? 0.0f : *meta_peak_io;

  if (!in_format (GST_VIDEO_INFO_FORMAT (in_info), &fi) ||
      !out_format (GST_VIDEO_INFO_FORMAT (out_info), &fo))
    return FALSE;
  if (in_info->width != out_info->width
      || in_info->height != out_info->height)
    return FALSE;

  /* HDR10 static metadata: MaxCLL, else the mastering display's peak. A
   * value outside GST_TONEMAP_META_MIN_PEAK .. 10000 cd/m2 (PQ's range) is
   * taken as absent: streams carry 0, 65535 and other junk, and a peak of
   * a few cd/m2 would turn every curve into clipping. */
  if (incaps && gst_video_content_light_level_from_caps (&cll, incaps)
      && cll.max_content_light_level >= GST_TONEMAP_META_MIN_PEAK
      && cll.max_content_light_level <= 10000)
    meta_peak = cll.max_content_light_level;
  else if (incaps && gst_video_mastering_display_info_from_caps (&mdi, incaps)
      && mdi.max_display_mastering_luminance >=
      GST_TONEMAP_META_MIN_PEAK * 10000u
      && mdi.max_display_mastering_luminance <= 10000u * 10000u)
    meta_peak = mdi.max_display_mastering_luminance / 10000.0f;

  /* one locked read: the serials must be those of the values used, or a
   * change made in between would be taken as applied */
  ci_tm_config_defaults (cfg);
  GST_OBJECT_LOCK (element);
  transfer = s->input_transfer;
  bins = (gint) s->bins;
  input_peak = s->input_peak;
  runtime_locked (s, meta_peak, cfg, runtime_serial, layout_serial);
  GST_OBJECT_UNLOCK (element);

  cfg->in_format = fi;
  cfg->out_format = fo;
  cfg->width = in_info->width;
  cfg->height = in_info->height;
  cfg->bins = bins;
  cfg->input_peak = input_peak;

  if (transfer == GST_TONEMAP_TRANSFER_AUTO) {
    switch (c->transfer) {
      case GST_VIDEO_TRANSFER_ARIB_STD_B67:
        cfg->transfer = CI_TM_TRC_HLG;
        break;
      case GST_VIDEO_TRANSFER_GAMMA10:
        cfg->transfer = CI_TM_TRC_LINEAR;
        break;
      case GST_VIDEO_TRANSFER_SRGB:
      case GST_VIDEO_TRANSFER_BT709:
      case GST_VIDEO_TRANSFER_BT601:
      case GST_VIDEO_TRANSFER_BT2020_10:
      case GST_VIDEO_TRANSFER_BT2020_12:
        cfg->transfer = CI_TM_TRC_SRGB;
        break;
      default:                 /* PQ, and unknown: HDR10 is the common case */
        cfg->transfer = CI_TM_TRC_PQ;
        break;
    }
  } else {
    cfg->transfer = transfer - 1;
  }

  switch (c->primaries) {
    case GST_VIDEO_COLOR_PRIMARIES_BT709:
      cfg->primaries_bt2020 = 0;
      break;
    case GST_VIDEO_COLOR_PRIMARIES_BT2020:
      cfg->primaries_bt2020 = 1;
      break;
    default:
      cfg->primaries_bt2020 = cfg->transfer == CI_TM_TRC_PQ
          || cfg->transfer == CI_TM_TRC_HLG;
      break;
  }
  switch (c->matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709:
      cfg->matrix = CI_TM_MATRIX_BT709;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT601:
      cfg->matrix = CI_TM_MATRIX_BT601;
      break;
    default:
      cfg->matrix = CI_TM_MATRIX_BT2020;
      break;
  }
  cfg->full_range = c->range == GST_VIDEO_COLOR_RANGE_0_255;
  *meta_peak_io = meta_peak;
  GST_INFO_OBJECT (element, "%dx%d format %d -> %d, transfer %d, primaries "
      "%s, matrix %d, %s range, bins %d, source peak %g (metadata %g)",
      cfg->width, cfg->height, cfg->in_format, cfg->out_format, cfg->transfer,
      cfg->primaries_bt2020 ? "bt2020" : "bt709", cfg->matrix,
      cfg->full_range ? "full" : "limited", cfg->bins, cfg->source_peak,
      meta_peak);
  return TRUE;
}
