/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cpusupersample
 * @title: cpusupersample
 *
 * The CPU twin of #cudasupersample: area ("super-sampling") downscaling,
 * bit-exact with NVIDIA NPP's nppiResize NPPI_INTER_SUPER, run by the C
 * reference implementation. Same caps and output as cudasupersample.
 * Output rows are computed on #GstCpuSupersample:n-threads threads (one
 * per processor by default); every row is the same whatever the count.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=1 ! video/x-raw,width=1920,height=1080 ! cpusupersample ! video/x-raw,width=320,height=180 ! pngenc ! filesink location=small.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcpusupersample.h"
#include "gstsupersamplecommon.h"
#include "gstcivideo.h"
#include "gstciparallel.h"

GST_DEBUG_CATEGORY_STATIC (gst_cpu_supersample_debug);
#define GST_CAT_DEFAULT gst_cpu_supersample_debug

enum
{
  PROP_0,
  PROP_N_THREADS,
};

struct _GstCpuSupersample
{
  GstVideoFilter parent;
  guint n_threads;              /* the property; under the object lock */
  GstCiParallel *par;
};

G_DEFINE_TYPE (GstCpuSupersample, gst_cpu_supersample, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cpusupersample, "cpusupersample", GST_RANK_NONE,
    GST_TYPE_CPU_SUPERSAMPLE);

static GstCaps *
gst_cpu_supersample_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_supersample_transform_caps (direction, caps, filter);
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, ret);
  return ret;
}

static gboolean
gst_cpu_supersample_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  return gst_ci_check_progressive (GST_BASE_TRANSFORM (filter), incaps,
      outcaps, in_info);
}

typedef struct
{
  const void *src;
  void *dst;
  CiSsPlane sp, dp;
  gint err;                     /* any slice's failure */
} PlaneJob;

static void
plane_rows (gpointer user, guint slice, gint first, gint end)
{
  PlaneJob *j = user;
  if (ci_ref_supersample_rows (j->src, &j->sp, j->dst, &j->dp, first, end))
    g_atomic_int_set (&j->err, 1);
}

static GstFlowReturn
gst_cpu_supersample_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in, GstVideoFrame * out)
{
  GstCpuSupersample *self = GST_CPU_SUPERSAMPLE (filter);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (in); p++) {
    PlaneJob j = { 0 };
    CiSsPlane *sp = &j.sp, *dp = &j.dp;
    /* the caps' sizes (as cudasupersample): a video meta may describe a
     * larger frame */
    gst_supersample_plane_desc (&filter->in_info, p, sp);
    gst_supersample_plane_desc (&filter->out_info, p, dp);
    sp->stride = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    dp->stride = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    j.src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    j.dst = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    const gsize bytes = (gsize) sp->width * sp->height * sp->channels *
        sp->bytes_per_sample;
    const guint slices = gst_ci_parallel_slices (G_OBJECT (self),
        &self->n_threads, bytes);
    gst_ci_parallel_run (self->par, slices, dp->height, 1, plane_rows, &j);
    if (j.err) {
      GST_ELEMENT_ERROR (filter, STREAM, FORMAT, (NULL),
          ("cannot scale plane %u from %dx%d to %dx%d", p, sp->width,
              sp->height, dp->width, dp->height));
      return GST_FLOW_ERROR;
    }
  }
  return GST_FLOW_OK;
}

/* scaled picture, same colours */
GST_CI_VIDEO_FILTER_TRANSFORM_META (gst_cpu_supersample_transform_meta,
    GST_CI_METAS_GEOMETRY_COLORSPACE);

static void
gst_cpu_supersample_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (!gst_ci_set_n_threads (object, PROP_N_THREADS, prop_id, value,
          &GST_CPU_SUPERSAMPLE (object)->n_threads))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cpu_supersample_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  if (!gst_ci_get_n_threads (object, PROP_N_THREADS, prop_id, value,
          &GST_CPU_SUPERSAMPLE (object)->n_threads))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cpu_supersample_finalize (GObject * object)
{
  gst_ci_parallel_free (GST_CPU_SUPERSAMPLE (object)->par);
  G_OBJECT_CLASS (gst_cpu_supersample_parent_class)->finalize (object);
}

static void
gst_cpu_supersample_class_init (GstCpuSupersampleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  GstCaps *caps = gst_caps_from_string (GST_SUPERSAMPLE_CAPS);

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gobject_class->set_property = gst_cpu_supersample_set_property;
  gobject_class->get_property = gst_cpu_supersample_get_property;
  gobject_class->finalize = gst_cpu_supersample_finalize;
  gst_ci_install_n_threads (gobject_class, PROP_N_THREADS);

  gst_element_class_set_static_metadata (element_class,
      "CPU super-sampling downscaler", "Filter/Converter/Video/Scaler",
      "Area downscaling bit-exact with NPP NPPI_INTER_SUPER (CPU reference)",
      "gst-cuda-imaging developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ci_video_filter_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_ci_video_filter_transform);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cpu_supersample_transform_caps);
  gst_supersample_install_vfuncs (trans_class);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cpu_supersample_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_cpu_supersample_transform_frame);

  GST_DEBUG_CATEGORY_INIT (gst_cpu_supersample_debug, "cpusupersample", 0,
      "CPU super-sampling downscaler");
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cpu_supersample_transform_meta);
}

static void
gst_cpu_supersample_init (GstCpuSupersample * self)
{
  self->par = gst_ci_parallel_new ();
}
