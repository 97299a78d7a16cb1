/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CPU_TONEMAP (gst_cpu_tonemap_get_type ())
G_DECLARE_FINAL_TYPE (GstCpuTonemap, gst_cpu_tonemap, GST, CPU_TONEMAP,
    GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE (cputonemap);

G_END_DECLS
