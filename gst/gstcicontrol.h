/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* GstBaseTransform::before_transform of every element: properties bound
 * to a GstControlSource (GST_PARAM_CONTROLLABLE) take their value at the
 * buffer's stream time, as gst-plugins-good's videofilters do. */
static inline void
gst_ci_sync_controlled_properties (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClockTime ts = GST_BUFFER_PTS (buf), st;
  if (!GST_CLOCK_TIME_IS_VALID (ts))
    return;
  st = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, ts);
  if (GST_CLOCK_TIME_IS_VALID (st))
    gst_object_sync_values (GST_OBJECT (trans), st);
}

G_END_DECLS
