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
 * SECTION:element-cpusgm
 * @title: cpusgm
 *
 * The CPU twin of #cudasgm: Semi-Global Matching stereo run by the C
 * reference implementation. Same properties, caps and (bit for bit) output
 * as cudasgm; see docs/sgm.md for the conventions.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=pair-sbs.png ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! cpusgm num-disparities=64 ! video/x-raw,format=RGBx ! videoconvert ! pngenc ! filesink location=disparity.png
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include "gstcpusgm.h"
#include "gstcivideo.h"
#include "gstsgmcommon.h"
#include "gstcicontrol.h"
#include "gstciparallel.h"

GST_DEBUG_CATEGORY_STATIC (gst_cpu_sgm_debug);
#define GST_CAT_DEFAULT gst_cpu_sgm_debug

#define PROP_FIRST 1
/* above the shared properties' ids (from PROP_FIRST) */
#define PROP_N_THREADS 1000

struct _GstCpuSgm
{
  GstVideoFilter parent;
  GstSgmSettings settings;
  GstSgmGeometry geom;
  guint n_threads;              /* the property; under the object lock */
  GstCiParallel *par;
};

G_DEFINE_TYPE (GstCpuSgm, gst_cpu_sgm, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cpusgm, "cpusgm", GST_RANK_NONE,
    GST_TYPE_CPU_SGM);

static void
gst_cpu_sgm_set_property (GObject * obj, guint id, const GValue * v,
    GParamSpec * pspec)
{
  if (gst_ci_set_n_threads (obj, PROP_N_THREADS, id, v,
          &GST_CPU_SGM (obj)->n_threads))
    return;
  if (!gst_sgm_set_property (obj, &GST_CPU_SGM (obj)->settings, PROP_FIRST, id,
          v))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, pspec);
}

static void
gst_cpu_sgm_get_property (GObject * obj, guint id, GValue * v,
    GParamSpec * pspec)
{
  if (gst_ci_get_n_threads (obj, PROP_N_THREADS, id, v,
          &GST_CPU_SGM (obj)->n_threads))
    return;
  if (!gst_sgm_get_property (obj, &GST_CPU_SGM (obj)->settings, PROP_FIRST, id,
          v))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, pspec);
}

static GstCaps *
gst_cpu_sgm_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_sgm_transform_caps (G_OBJECT (trans),
      &GST_CPU_SGM (trans)->settings, direction, caps, filter);
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      ret);
  return ret;
}

static gboolean
gst_cpu_sgm_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstCpuSgm *self = GST_CPU_SGM (filter);
  if (!gst_ci_check_progressive (GST_BASE_TRANSFORM (filter), incaps, outcaps,
          in_info))
    return FALSE;
  return gst_sgm_geometry_from_info (GST_BASE_TRANSFORM (filter),
      &self->settings, incaps, in_info, outcaps, out_info, &self->geom);
}

static void
gst_cpu_sgm_finalize (GObject * object)
{
  gst_ci_parallel_free (GST_CPU_SGM (object)->par);
  G_OBJECT_CLASS (gst_cpu_sgm_parent_class)->finalize (object);
}

static GstFlowReturn
gst_cpu_sgm_transform_frame (GstVideoFilter * filter, GstVideoFrame * in,
    GstVideoFrame * out)
{
  GstCpuSgm *self = GST_CPU_SGM (filter);
  const GstSgmGeometry *g = &self->geom;
  SgmParams p;
  gst_sgm_params (G_OBJECT (self), &self->settings, g, &p);

  const gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (in, 0);
  int16_t *disp = g_try_malloc ((gsize) p.width * p.height * sizeof *disp);
  const guint8 *left, *right;
  gst_sgm_views (g, GST_VIDEO_FRAME_PLANE_DATA (in, 0), stride, &left, &right);
  /* the slices' size: the cost volume's bytes */
  const guint slices = gst_ci_parallel_slices (G_OBJECT (self),
      &self->n_threads, (gsize) p.width * p.height * p.num_disp);
  if (!disp || sgm_ref_compute_mt (&p, left, stride, right, stride, g->luma,
          disp, gst_ci_parallel_runner, self->par, slices) != 0) {
    g_free (disp);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, (NULL),
        ("SGM failed on a %dx%d view with %d disparities (out of memory?)",
            p.width, p.height, p.num_disp));
    return GST_FLOW_ERROR;
  }
  sgm_ref_convert (disp, p.width, p.height, GST_VIDEO_FRAME_PLANE_DATA (out,
          0), GST_VIDEO_FRAME_PLANE_STRIDE (out, 0), g->out, &p);
  g_free (disp);
  return GST_FLOW_OK;
}

/* one view of the frame: nothing tagged carries over */
GST_CI_VIDEO_FILTER_TRANSFORM_META (gst_cpu_sgm_transform_meta,
    GST_CI_METAS_UNTAGGED);

static void
gst_cpu_sgm_class_init (GstCpuSgmClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_cpu_sgm_set_property;
  gobject_class->get_property = gst_cpu_sgm_get_property;
  gobject_class->finalize = gst_cpu_sgm_finalize;
  gst_sgm_install_properties (gobject_class, PROP_FIRST);
  gst_ci_install_n_threads (gobject_class, PROP_N_THREADS);

  caps = gst_caps_from_string (GST_SGM_SINK_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (GST_SGM_SRC_CAPS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gst_element_class_set_static_metadata (element_class,
      "CPU Semi-Global Matching stereo", "Filter/Analyzer/Video",
      "Disparity of the left view of a stereo frame (C reference of cudasgm)",
      "gst-cuda-imaging developers");

  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_ci_sync_controlled_properties);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cpu_sgm_transform_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_ci_video_filter_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ci_video_filter_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_ci_video_filter_transform);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cpu_sgm_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_cpu_sgm_transform_frame);

  gst_type_mark_as_plugin_api (GST_TYPE_SGM_LAYOUT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SGM_CENSUS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_SGM_PATHS, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cpu_sgm_debug, "cpusgm", 0,
      "CPU Semi-Global Matching stereo");
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cpu_sgm_transform_meta);
}

static void
gst_cpu_sgm_init (GstCpuSgm * self)
{
  gst_sgm_settings_init (&self->settings);
  self->par = gst_ci_parallel_new ();
}
