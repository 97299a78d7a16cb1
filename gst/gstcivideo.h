/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <string.h>

G_BEGIN_DECLS

/* Which tagged metas of the input an element's output keeps. */
typedef enum
{
  /* GstBaseTransform's rule: untagged metas only */
  GST_CI_METAS_UNTAGGED = 0,
  /* also metas tagged only video, size and orientation (regions of
   * interest ...): places in a picture whose geometry the element keeps,
   * or scales (then they are scaled, as videoscale does) */
  GST_CI_METAS_GEOMETRY,
  /* and colorspace-tagged ones, where the colours stay as they were */
  GST_CI_METAS_GEOMETRY_COLORSPACE
} GstCiMetas;

/* transform_meta of every element, from its input and output info */
static inline gboolean
gst_ci_transform_meta (GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info,
    GstCiMetas keep)
{
  const GstMetaInfo *info = meta->info;
  const gchar *const *tags = gst_meta_api_type_get_tags (info->api);
  if (!tags || !*tags)
    return TRUE;
  if (keep == GST_CI_METAS_UNTAGGED)
    return FALSE;
  for (const gchar * const *t = tags; *t; t++)
    if (strcmp (*t, GST_META_TAG_VIDEO_STR)
        && strcmp (*t, GST_META_TAG_VIDEO_SIZE_STR)
        && strcmp (*t, GST_META_TAG_VIDEO_ORIENTATION_STR)
        && (keep != GST_CI_METAS_GEOMETRY_COLORSPACE
            || strcmp (*t, GST_META_TAG_VIDEO_COLORSPACE_STR)))
      return FALSE;
  if (gst_meta_api_type_has_tag (info->api,
          g_quark_from_static_string (GST_META_TAG_VIDEO_SIZE_STR))
      && (GST_VIDEO_INFO_WIDTH (in_info) != GST_VIDEO_INFO_WIDTH (out_info)
          || GST_VIDEO_INFO_HEIGHT (in_info) !=
          GST_VIDEO_INFO_HEIGHT (out_info))) {
    GstVideoMetaTransform t = { (GstVideoInfo *) in_info,
      (GstVideoInfo *) out_info
    };
    if (info->transform_func)
      info->transform_func (outbuf, meta, inbuf,
          gst_video_meta_transform_scale_get_quark (), &t);
    return FALSE;               /* scaled into outbuf, not copied as well */
  }
  return TRUE;
}

/* The transform_meta vfunc NAME of a GstVideoFilter (the cpu* twins). */
#define GST_CI_VIDEO_FILTER_TRANSFORM_META(NAME, KEEP) \
static gboolean \
NAME (GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta, \
    GstBuffer * inbuf) \
{ \
  GstVideoFilter *f = GST_VIDEO_FILTER (trans); \
  return gst_ci_transform_meta (outbuf, meta, inbuf, &f->in_info, \
      &f->out_info, KEEP); \
}

/* A failed caps event stays pending on the upstream pad and is sent again
 * with the next buffer, so an error posted for caps that can never be taken
 * (interlaced, too large, an upscale) would be posted once per attempt. Such
 * refusals remember the pair (the same incaps object, as a re-sent event
 * carries, and equal outcaps; outcaps NULL where the refusal comes before
 * set_caps) until caps are taken (a reconfigure may bring the pair back)
 * or the element stops (a restarted source may send the same object).
 * Failures that may pass on a later try (out of memory) are not remembered:
 * each try is made and reported. */
typedef struct
{
  GstCaps *in, *out;
} GstCiRefusal;

static inline GQuark
gst_ci_refusal_quark (void)
{
  return g_quark_from_static_string ("gst-ci-refused-caps");
}

static inline void
gst_ci_refusal_free (gpointer data)
{
  GstCiRefusal *r = (GstCiRefusal *) data;
  gst_caps_unref (r->in);
  if (r->out)
    gst_caps_unref (r->out);
  g_free (r);
}

/* TRUE if this refusal was posted already; else remembers it (the caller
 * posts it) */
static inline gboolean
gst_ci_refused_before (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  const GstCiRefusal *r = (const GstCiRefusal *)
      g_object_get_qdata (G_OBJECT (trans), gst_ci_refusal_quark ());
  if (r && r->in == incaps && (r->out == outcaps || (r->out && outcaps
              && gst_caps_is_equal (r->out, outcaps))))
    return TRUE;
  GstCiRefusal *n = g_new (GstCiRefusal, 1);
  n->in = gst_caps_ref (incaps);
  n->out = outcaps ? gst_caps_ref (outcaps) : NULL;
  g_object_set_qdata_full (G_OBJECT (trans), gst_ci_refusal_quark (), n,
      gst_ci_refusal_free);
  return FALSE;
}

/* from stop and each set_caps that succeeds */
static inline void
gst_ci_forget_refusal (GstBaseTransform * trans)
{
  g_object_set_qdata (G_OBJECT (trans), gst_ci_refusal_quark (), NULL);
}

/* set_caps of the cpu* twins: GstVideoFilter's, forgetting a refusal once
 * caps are taken */
static inline gboolean
gst_ci_video_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstBaseTransformClass *vf = (GstBaseTransformClass *)
      g_type_class_peek (GST_TYPE_VIDEO_FILTER);
  gboolean ok = vf->set_caps (trans, incaps, outcaps);
  if (ok)
    gst_ci_forget_refusal (trans);
  return ok;
}

/* The bytes a row of plane @p takes at the caps' width (the elements read
 * the caps-sized picture at the top left of a larger meta). */
static inline gsize
gst_ci_plane_row_bytes (const GstVideoInfo * info, guint p, gint * rows)
{
  const GstVideoFormatInfo *fi = info->finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (fi, p, comp);
  *rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (fi, comp[0],
      GST_VIDEO_INFO_HEIGHT (info));
  if (GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, comp[0]) <= 0)
    return GST_VIDEO_INFO_PLANE_STRIDE (info, p);       /* sub-byte packing */
  return (gsize) GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, comp[0]) *
      GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (fi, comp[0],
      GST_VIDEO_INFO_WIDTH (info));
}

/* TRUE when @buf holds a whole frame of @info (GstVideoFilter would only
 * warn, and push an output buffer that nothing wrote). With a video meta,
 * every plane of the caps-sized picture must lie inside the memory that
 * holds its first byte: gst_video_meta_map () maps only that memory and
 * checks only that byte, so a plane running past the memory (a bad offset,
 * a short buffer with a full-size meta, a plane split over two memories)
 * would be read or written out of bounds. Checked before any map, so that
 * a meta that does not fit the caps fails here, not in a g_return_if_fail
 * of gst_video_frame_map (). */
static inline gboolean
gst_ci_buffer_holds_frame (GstBuffer * buf, const GstVideoInfo * info)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  if (!meta)
    return gst_buffer_get_size (buf) >= GST_VIDEO_INFO_SIZE (info);
  if (meta->format != GST_VIDEO_INFO_FORMAT (info)
      || meta->width < (guint) GST_VIDEO_INFO_WIDTH (info)
      || meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info)
      || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return FALSE;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint rows;
    const gsize row = gst_ci_plane_row_bytes (info, p, &rows);
    const gint stride = meta->stride[p];
    guint idx, len;
    gsize skip;
    /* negative or overlapping rows: no element walks those */
    if (stride < 0 || (rows > 1 && (gsize) stride < row))
      return FALSE;
    const guint64 extent = (guint64) stride * (guint64) (rows - 1) + row;
    if (!gst_buffer_find_memory (buf, meta->offset[p], 1, &idx, &len, &skip))
      return FALSE;
    const GstMemory *mem = gst_buffer_peek_memory (buf, idx);
    if ((guint64) skip + extent > (guint64) mem->size)
      return FALSE;
  }
  return TRUE;
}

/* TRUE when both buffers hold a whole frame of their caps; else posts the
 * stream error that says which does not (every element, before mapping) */
static inline gboolean
gst_ci_check_frames (GstBaseTransform * trans, GstBuffer * inbuf,
    const GstVideoInfo * in_info, GstBuffer * outbuf,
    const GstVideoInfo * out_info)
{
  const gboolean in_ok = gst_ci_buffer_holds_frame (inbuf, in_info);
  if (in_ok && gst_ci_buffer_holds_frame (outbuf, out_info))
    return TRUE;
  const GstVideoInfo *info = in_ok ? out_info : in_info;
  GstBuffer *bad = in_ok ? outbuf : inbuf;
  GST_ELEMENT_ERROR (trans, STREAM, FORMAT,
      ("The %s buffer does not hold a whole video frame",
          in_ok ? "output" : "input"),
      ("%" G_GSIZE_FORMAT " bytes in %u memories%s; %dx%d %s needs %"
          G_GSIZE_FORMAT, gst_buffer_get_size (bad), gst_buffer_n_memory (bad),
          gst_buffer_get_video_meta (bad) ? " with a video meta whose planes "
          "do not fit (or do not match the caps)" : "",
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info)));
  return FALSE;
}

/* transform of the cpu* twins: a buffer that does not hold its frame is a
 * stream error, as in the cuda* elements, then GstVideoFilter's transform */
static inline GstFlowReturn
gst_ci_video_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER_CAST (trans);
  GstBaseTransformClass *vf = (GstBaseTransformClass *)
      g_type_class_peek (GST_TYPE_VIDEO_FILTER);
  if (filter->negotiated && !gst_ci_check_frames (trans, inbuf,
          &filter->in_info, outbuf, &filter->out_info))
    return GST_FLOW_ERROR;
  return vf->transform (trans, inbuf, outbuf);
}

/* stop of the cpu* twins that keep nothing else to free */
static inline gboolean
gst_ci_video_filter_stop (GstBaseTransform * trans)
{
  gst_ci_forget_refusal (trans);
  return TRUE;
}

/* set_caps of every element: interlaced frames are refused with an error
 * that says what to do. Each element filters or matches across rows, and
 * the chroma rows of interlaced 4:2:0 frames alternate fields, so the
 * output would be combed. Equal caps on an element that passes them
 * through untouched (supersample) are let by. (The pad templates stay
 * open: caps without interlace-mode must keep negotiating to themselves.) */
static inline gboolean
gst_ci_check_progressive (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps, const GstVideoInfo * in_info)
{
  if (!GST_VIDEO_INFO_IS_INTERLACED (in_info))
    return TRUE;
  if (GST_BASE_TRANSFORM_GET_CLASS (trans)->passthrough_on_same_caps
      && gst_caps_is_equal (incaps, outcaps))
    return TRUE;
  if (gst_ci_refused_before (trans, incaps, outcaps))
    return FALSE;
  GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
      ("Interlaced video is not supported"),
      ("interlace-mode=%s: put deinterlace in front of %s",
          gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
              (in_info)), GST_ELEMENT_NAME (trans)));
  return FALSE;
}

G_END_DECLS
