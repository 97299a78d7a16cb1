/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CPU_FFTBLOOM (gst_cpu_fftbloom_get_type ())
G_DECLARE_FINAL_TYPE (GstCpuFftBloom, gst_cpu_fftbloom, GST, CPU_FFTBLOOM,
    GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE (cpufftbloom);

G_END_DECLS
