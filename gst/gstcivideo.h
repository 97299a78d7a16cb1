/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

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
  GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
      ("Interlaced video is not supported"),
      ("interlace-mode=%s: put deinterlace in front of %s",
          gst_video_interlace_mode_to_string (GST_VIDEO_INFO_INTERLACE_MODE
              (in_info)), GST_ELEMENT_NAME (trans)));
  return FALSE;
}

G_END_DECLS
