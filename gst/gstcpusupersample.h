/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CPU_SUPERSAMPLE (gst_cpu_supersample_get_type ())
G_DECLARE_FINAL_TYPE (GstCpuSupersample, gst_cpu_supersample, GST,
    CPU_SUPERSAMPLE, GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE (cpusupersample);

G_END_DECLS
