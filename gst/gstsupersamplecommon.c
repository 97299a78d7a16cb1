/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstsupersamplecommon.h"
#include "gstcivideo.h"

GST_DEBUG_CATEGORY_STATIC (gst_supersample_common_debug);
#define GST_CAT_DEFAULT gst_supersample_common_debug

static gint
value_extreme (const GValue * v, gboolean want_max)
{
  if (G_VALUE_HOLDS_INT (v))
    return g_value_get_int (v);
  if (GST_VALUE_HOLDS_INT_RANGE (v))
    return want_max ? gst_value_get_int_range_max (v) :
        gst_value_get_int_range_min (v);
  if (GST_VALUE_HOLDS_LIST (v)) {
    gint best = want_max ? 0 : G_MAXINT;
    for (guint i = 0; i < gst_value_list_get_size (v); i++) {
      gint e = value_extreme (gst_value_list_get_value (v, i), want_max);
      best = want_max ? MAX (best, e) : MIN (best, e);
    }
    return best;
  }
  return want_max ? G_MAXINT : 1;
}

static void
set_range (GstStructure * s, const gchar * field, gint lo, gint hi)
{
  if (lo == hi)
    gst_structure_set (s, field, G_TYPE_INT, lo, NULL);
  else
    gst_structure_set (s, field, GST_TYPE_INT_RANGE, lo, hi, NULL);
}

GstCaps *
gst_supersample_transform_caps (GstPadDirection direction, GstCaps * caps,
    GstCaps * filter)
{
  GstCaps *ret = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    const GValue *w = gst_structure_get_value (s, "width");
    const GValue *h = gst_structure_get_value (s, "height");
    if (w && h) {
      if (direction == GST_PAD_SINK) {
        /* output may be anything from 1x1 up to the input size */
        set_range (s, "width", 1, value_extreme (w, TRUE));
        set_range (s, "height", 1, value_extreme (h, TRUE));
      } else {
        set_range (s, "width", value_extreme (w, FALSE), G_MAXINT);
        set_range (s, "height", value_extreme (h, FALSE), G_MAXINT);
      }
    }
    /* Towards the sink pad 0/1 too: an unknown ratio, which fixation
     * takes as square (an output ratio is never unknown). Without it a
     * source that asks (videotestsrc, a decoder's ACCEPT_CAPS) could not
     * send 0/1, though the harness's fixed caps negotiated. */
    if (gst_structure_has_field (s, "pixel-aspect-ratio"))
      gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION_RANGE,
          direction == GST_PAD_SINK ? 1 : 0, direction == GST_PAD_SINK ?
          G_MAXINT : 1, G_MAXINT, 1, NULL);
    ret = gst_caps_merge_structure (ret, s);
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

/* Fixate @field of @s to the value nearest @target that the caps allow. */
static gint
fixate_int (GstStructure * s, const gchar * field, gint target)
{
  gint v;
  gst_structure_fixate_field_nearest_int (s, field, MAX (target, 1));
  gst_structure_get_int (s, field, &v);
  return v;
}

GstCaps *
gst_supersample_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstStructure *ins, *outs;
  const GValue *from_par_v, *to_par_v;
  gint from_w = 0, from_h = 0, from_par_n = 1, from_par_d = 1;
  gint w = 0, h = 0, to_par_n = 1, to_par_d = 1;
  gint dar_n, dar_d;

  othercaps = gst_caps_truncate (gst_caps_make_writable (othercaps));
  ins = gst_caps_get_structure (caps, 0);
  outs = gst_caps_get_structure (othercaps, 0);

  gst_structure_get_int (ins, "width", &from_w);
  gst_structure_get_int (ins, "height", &from_h);
  from_par_v = gst_structure_get_value (ins, "pixel-aspect-ratio");
  if (from_par_v && GST_VALUE_HOLDS_FRACTION (from_par_v)) {
    from_par_n = gst_value_get_fraction_numerator (from_par_v);
    from_par_d = gst_value_get_fraction_denominator (from_par_v);
  }
  if (from_par_n <= 0 || from_par_d <= 0)
    from_par_n = from_par_d = 1;        /* 0/1: unknown, taken as square */
  if (from_w <= 0 || from_h <= 0) {
    othercaps = gst_caps_fixate (othercaps);
    return othercaps;
  }
  /* A pixel aspect ratio too extreme to compute the display ratio with
   * (2147483647/1): the picture keeps its shape in pixels and its pixel
   * aspect ratio (plain fixation took the smallest width allowed, 1). */
  const gboolean keep_shape = !gst_util_fraction_multiply (from_w, from_h,
      from_par_n, from_par_d, &dar_n, &dar_d);
  if (keep_shape) {
    dar_n = from_w;
    dar_d = from_h;
  }

  gst_structure_get_int (outs, "width", &w);
  gst_structure_get_int (outs, "height", &h);
  to_par_v = gst_structure_get_value (outs, "pixel-aspect-ratio");

  if (w && h) {
    /* Size fixed: the pixel aspect ratio keeps the display aspect ratio. */
    if (to_par_v && !gst_value_is_fixed (to_par_v)) {
      gint n, d;
      if (keep_shape)
        gst_structure_fixate_field_nearest_fraction (outs,
            "pixel-aspect-ratio", from_par_n, from_par_d);
      else if (gst_util_fraction_multiply (dar_n, dar_d, h, w, &n, &d))
        gst_structure_fixate_field_nearest_fraction (outs,
            "pixel-aspect-ratio", n, d);
    }
    goto done;
  }

  /* Keep the input's pixel aspect ratio where allowed (what downstream
   * allows is kept too, for the ratio's last say below). */
  gboolean par_free = to_par_v && !gst_value_is_fixed (to_par_v);
  GValue par_allowed = G_VALUE_INIT;
  if (par_free) {
    gst_value_init_and_copy (&par_allowed, to_par_v);
    gst_structure_fixate_field_nearest_fraction (outs, "pixel-aspect-ratio",
        from_par_n, from_par_d);
  }
  to_par_v = gst_structure_get_value (outs, "pixel-aspect-ratio");
  if (to_par_v && GST_VALUE_HOLDS_FRACTION (to_par_v)) {
    to_par_n = gst_value_get_fraction_numerator (to_par_v);
    to_par_d = gst_value_get_fraction_denominator (to_par_v);
  }
  /* display ratio in output pixels: w / h = dar * to_par_d / to_par_n */
  gint num, den;
  if (keep_shape || !gst_util_fraction_multiply (dar_n, dar_d, to_par_d,
          to_par_n, &num, &den)) {
    num = from_w;
    den = from_h;
  }
  {
    /* Keep the height (the input's, or the one asked for), the width
     * following the display aspect ratio; where that width is not allowed
     * and the height is free, keep the width instead. */
    gint tw, th;
    GstStructure *t = gst_structure_copy (outs);
    th = fixate_int (t, "height", h ? h : from_h);
    tw = (gint) gst_util_uint64_scale_int_round (th, num, den);
    gboolean exact = fixate_int (t, "width", w ? w : tw) == tw;
    if (!exact && !h) {
      gst_structure_free (t);
      t = gst_structure_copy (outs);
      tw = fixate_int (t, "width", w ? w : from_w);
      th = (gint) gst_util_uint64_scale_int_round (tw, den, num);
      exact = fixate_int (t, "height", th) == th;
    }
    gst_structure_get_int (t, "width", &tw);
    gst_structure_get_int (t, "height", &th);
    gst_structure_free (t);
    gst_structure_set (outs, "width", G_TYPE_INT, tw, "height", G_TYPE_INT, th,
        NULL);
    /* no exact size pair: the pixel aspect ratio takes up the rest, as
     * near as downstream allows */
    if (par_free && !exact && !keep_shape) {
      gint n, d;
      if (gst_util_fraction_multiply (dar_n, dar_d, th, tw, &n, &d)) {
        gst_structure_set_value (outs, "pixel-aspect-ratio", &par_allowed);
        gst_structure_fixate_field_nearest_fraction (outs,
            "pixel-aspect-ratio", n, d);
      }
    }
  }
  if (par_free)
    g_value_unset (&par_allowed);

done:
  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (trans, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}

void
gst_supersample_plane_desc (const GstVideoInfo * info, gint plane,
    CiSsPlane * desc)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comp);
  const gint c = comp[0];
  const gint depth = GST_VIDEO_INFO_COMP_DEPTH (info, c);
  desc->width = GST_VIDEO_INFO_COMP_WIDTH (info, c);
  desc->height = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  desc->bytes_per_sample = depth > 8 ? 2 : 1;
  desc->channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, c) / desc->bytes_per_sample;
  /* P010: 10 significant bits at the top; average them, not the zero bits. */
  desc->shift = GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, c);
  desc->stride = GST_VIDEO_INFO_PLANE_STRIDE (info, plane);
}

/* The class above the one that installed FN at OFFSET, so shared vfuncs can
 * chain up from either element (or a subclass of one). */
static GstBaseTransformClass *
parent_for (GstBaseTransform * trans, gsize offset, gconstpointer fn)
{
  gpointer k = G_OBJECT_GET_CLASS (trans), up;
  while ((up = g_type_class_peek_parent (k))
      && G_STRUCT_MEMBER (gconstpointer, up, offset) == fn)
    k = up;
  return GST_BASE_TRANSFORM_CLASS (up);
}

#define PARENT(trans, vfunc, self) \
  parent_for (trans, G_STRUCT_OFFSET (GstBaseTransformClass, vfunc), (gconstpointer) self)

/* Smallest (or largest) width and height any structure of @caps allows;
 * an absent field allows anything. */
static void
caps_size_extreme (GstCaps * caps, gboolean want_max, gint * w, gint * h)
{
  *w = want_max ? 0 : G_MAXINT;
  *h = want_max ? 0 : G_MAXINT;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    const GValue *wv = gst_structure_get_value (s, "width");
    const GValue *hv = gst_structure_get_value (s, "height");
    gint ew = wv ? value_extreme (wv, want_max) : (want_max ? G_MAXINT : 1);
    gint eh = hv ? value_extreme (hv, want_max) : (want_max ? G_MAXINT : 1);
    *w = want_max ? MAX (*w, ew) : MIN (*w, ew);
    *h = want_max ? MAX (*h, eh) : MIN (*h, eh);
  }
}

static gboolean
supersample_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCaps *caps = NULL;
  gint in_w = 0, in_h = 0;
  gboolean ret;

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &caps);
    gst_caps_ref (caps);        /* the event is consumed below */
    GstStructure *s = gst_caps_get_structure (caps, 0);
    gst_structure_get_int (s, "width", &in_w);
    gst_structure_get_int (s, "height", &in_h);
  }
  ret = PARENT (trans, sink_event, supersample_sink_event)->sink_event (trans,
      event);
  if (!ret && in_w > 0 && in_h > 0) {
    GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans),
        NULL);
    gint min_w = G_MAXINT, min_h = G_MAXINT;
    if (peer)
      caps_size_extreme (peer, FALSE, &min_w, &min_h);
    /* ANY (fakesink, appsink without caps) has no structures to bound it */
    if (peer && !gst_caps_is_empty (peer) && !gst_caps_is_any (peer)
        && (min_w > in_w || min_h > in_h)
        && !gst_ci_refused_before (trans, caps, NULL)) {
      GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
          ("%s only downscales: the input is %dx%d but downstream needs at "
              "least %dx%d", GST_ELEMENT_NAME (trans), in_w, in_h, min_w,
              min_h), ("upscaling is not offered in caps"));
    }
    if (peer)
      gst_caps_unref (peer);
  }
  if (caps)
    gst_caps_unref (caps);
  return ret;
}

/* Per-element flag, kept as qdata so both elements share this code. */
static G_DEFINE_QUARK (gst-supersample-upscale-armed, upscale_armed);

static void
arm_upscale_warning (GstBaseTransform * trans, gboolean arm)
{
  GST_OBJECT_LOCK (trans);
  g_object_set_qdata (G_OBJECT (trans), upscale_armed_quark (),
      GINT_TO_POINTER (arm));
  GST_OBJECT_UNLOCK (trans);
}

/* Test and clear the flag, so concurrent queries post at most one message. */
static gboolean
take_upscale_warning (GstBaseTransform * trans)
{
  gboolean armed;
  GST_OBJECT_LOCK (trans);
  armed = GPOINTER_TO_INT (g_object_get_qdata (G_OBJECT (trans),
          upscale_armed_quark ()));
  if (armed)
    g_object_set_qdata (G_OBJECT (trans), upscale_armed_quark (), NULL);
  GST_OBJECT_UNLOCK (trans);
  return armed;
}


static gboolean
supersample_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  gboolean (*parent_query) (GstBaseTransform *, GstPadDirection, GstQuery *) =
      PARENT (trans, query, supersample_query)->query;
  GstCaps *filter = NULL, *result = NULL;
  gboolean armed;

  if (!parent_query (trans, direction, query))
    return FALSE;
  if (direction != GST_PAD_SINK || GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return TRUE;

  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &result);
  if (!filter || gst_caps_is_empty (filter) || !result
      || !gst_caps_is_empty (result))
    return TRUE;

  /* Only started elements warn: link-time and other queries while stopped
   * stay silent, and the flag limits it to one message per run. */
  GST_OBJECT_LOCK (trans);
  armed = GPOINTER_TO_INT (g_object_get_qdata (G_OBJECT (trans),
          upscale_armed_quark ()));
  GST_OBJECT_UNLOCK (trans);
  if (!armed)
    return TRUE;

  /* Ask again with the size left open: if that answers, only the size (i.e.
   * an upscale) empties the caps. Its minimum is what downstream needs. */
  GstCaps *relaxed = gst_caps_copy (filter);
  for (guint i = 0; i < gst_caps_get_size (relaxed); i++) {
    GstStructure *s = gst_caps_get_structure (relaxed, i);
    if (gst_structure_has_field (s, "width"))
      gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
    if (gst_structure_has_field (s, "height"))
      gst_structure_set (s, "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
  }
  GstQuery *q = gst_query_new_caps (relaxed);
  GstCaps *wider = NULL;
  if (parent_query (trans, direction, q))
    gst_query_parse_caps_result (q, &wider);

  if (wider && !gst_caps_is_empty (wider)) {
    gint up_w, up_h, down_w, down_h;
    caps_size_extreme (filter, TRUE, &up_w, &up_h);
    caps_size_extreme (wider, FALSE, &down_w, &down_h);
    /* WARNING rather than ERROR: a caps query is a question, not a commitment;
     * the querier may still settle on other caps. When it does not, upstream
     * posts the not-negotiated error itself; this says why. */
    if ((down_w > up_w || down_h > up_h) && take_upscale_warning (trans)) {
      GST_ELEMENT_WARNING (trans, CORE, NEGOTIATION,
          ("%s only downscales: upstream offers at most %dx%d but downstream "
              "needs at least %dx%d", GST_ELEMENT_NAME (trans), up_w, up_h,
              down_w, down_h), ("upscaling is not offered in caps"));
      GST_DEBUG_OBJECT (trans, "empty answer to %" GST_PTR_FORMAT
          ", with any size %" GST_PTR_FORMAT, filter, wider);
    }
  }
  gst_query_unref (q);
  gst_caps_unref (relaxed);
  return TRUE;
}

/* Only started elements warn (link-time queries stay silent), once per run. */
static gboolean
supersample_start (GstBaseTransform * trans)
{
  GstBaseTransformClass *parent = PARENT (trans, start, supersample_start);
  arm_upscale_warning (trans, TRUE);
  return parent->start ? parent->start (trans) : TRUE;
}

static gboolean
supersample_stop (GstBaseTransform * trans)
{
  GstBaseTransformClass *parent = PARENT (trans, stop, supersample_stop);
  arm_upscale_warning (trans, FALSE);
  gst_ci_forget_refusal (trans);
  return parent->stop ? parent->stop (trans) : TRUE;
}

void
gst_supersample_install_vfuncs (GstBaseTransformClass * klass)
{
  GST_DEBUG_CATEGORY_INIT (gst_supersample_common_debug, "supersamplecommon",
      0, "supersample caps and events");
  klass->fixate_caps = GST_DEBUG_FUNCPTR (gst_supersample_fixate_caps);
  klass->sink_event = GST_DEBUG_FUNCPTR (supersample_sink_event);
  klass->query = GST_DEBUG_FUNCPTR (supersample_query);
  klass->start = GST_DEBUG_FUNCPTR (supersample_start);
  klass->stop = GST_DEBUG_FUNCPTR (supersample_stop);
}
