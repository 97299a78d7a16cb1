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

/* TRUE when @buf holds a whole frame of @info (GstVideoFilter would only
 * warn, and push an output buffer that nothing wrote). */
static inline gboolean
gst_ci_buffer_holds_frame (GstBuffer * buf, const GstVideoInfo * info)
{
  GstVideoFrame f;
  if (!gst_buffer_get_video_meta (buf))
    return gst_buffer_get_size (buf) >= GST_VIDEO_INFO_SIZE (info);
  /* the meta's planes: let the mapping judge them */
  if (!gst_video_frame_map (&f, (GstVideoInfo *) info, buf, GST_MAP_READ))
    return FALSE;
  gst_video_frame_unmap (&f);
  return TRUE;
}

/* transform of the cpu* twins: a buffer too small for the caps is a stream
 * error, as in the cuda* elements, then GstVideoFilter's transform */
static inline GstFlowReturn
gst_ci_video_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER_CAST (trans);
  GstBaseTransformClass *vf = (GstBaseTransformClass *)
      g_type_class_peek (GST_TYPE_VIDEO_FILTER);
  if (filter->negotiated) {
    const gboolean in_ok = gst_ci_buffer_holds_frame (inbuf, &filter->in_info);
    if (!in_ok || !gst_ci_buffer_holds_frame (outbuf, &filter->out_info)) {
      const GstVideoInfo *info = in_ok ? &filter->out_info : &filter->in_info;
      GST_ELEMENT_ERROR (trans, STREAM, FORMAT,
          ("The %s buffer does not hold a whole video frame",
              in_ok ? "output" : "input"),
          ("%" G_GSIZE_FORMAT " bytes%s; %dx%d %s needs %" G_GSIZE_FORMAT,
              gst_buffer_get_size (in_ok ? outbuf : inbuf),
              gst_buffer_get_video_meta (in_ok ? outbuf : inbuf) ?
              " with a video meta" : "", GST_VIDEO_INFO_WIDTH (info),
              GST_VIDEO_INFO_HEIGHT (info),
              GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info)));
      return GST_FLOW_ERROR;
    }
  }
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
