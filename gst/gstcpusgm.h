/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CPU_SGM (gst_cpu_sgm_get_type ())
G_DECLARE_FINAL_TYPE (GstCpuSgm, gst_cpu_sgm, GST, CPU_SGM, GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE (cpusgm);

G_END_DECLS
