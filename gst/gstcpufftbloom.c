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
 * SECTION:element-cpufftbloom
 * @title: cpufftbloom
 *
 * The CPU twin of #cudafftbloom: convolution bloom through FFTs (FFTW,
 * single precision), out = in + intensity × (bright(in) ⊛ K) in linear
 * light, with the same properties, caps and output (within one code value)
 * as cudafftbloom. Slow (about 100 ms per 1080p frame on two cores, a
 * quarter second at 4K; docs/fftbloom.md); meant as the
 * reference and for machines without a GPU. The bright pass and the output
 * run by rows on #GstCpuFftBloom:n-threads threads, the three colour
 * planes' transforms side by side; the output is the same for any number.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,format=RGBA,width=640,height=360 ! cpufftbloom threshold=0.5 intensity=2 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcpufftbloom.h"
#include "gstcivideo.h"
#include "gstfftbloomcommon.h"
#include "gstcicontrol.h"
#include "gstciparallel.h"

GST_DEBUG_CATEGORY_STATIC (gst_cpu_fftbloom_debug);
#define GST_CAT_DEFAULT gst_cpu_fftbloom_debug

struct _GstCpuFftBloom
{
  GstVideoFilter parent;

  GstFftBloomSettings settings;
  CiFbRef *ref;                 /* streaming thread */
  CiFbFormat format;
  GstCiParallel *par;
  guint n_threads;              /* object lock */
};

/* after the shared properties' ids */
#define PROP_N_THREADS 1000

G_DEFINE_TYPE (GstCpuFftBloom, gst_cpu_fftbloom, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cpufftbloom, "cpufftbloom", GST_RANK_NONE,
    GST_TYPE_CPU_FFTBLOOM);

static void
gst_cpu_fftbloom_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCpuFftBloom *self = GST_CPU_FFTBLOOM (object);
  if (gst_ci_set_n_threads (object, PROP_N_THREADS, prop_id, value,
          &self->n_threads))
    return;
  gst_fftbloom_set_property (object, &self->settings, prop_id, value, pspec);
}

static void
gst_cpu_fftbloom_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCpuFftBloom *self = GST_CPU_FFTBLOOM (object);
  if (gst_ci_get_n_threads (object, PROP_N_THREADS, prop_id, value,
          &self->n_threads))
    return;
  gst_fftbloom_get_property (object, &self->settings, prop_id, value, pspec);
}

static void
gst_cpu_fftbloom_finalize (GObject * object)
{
  GstCpuFftBloom *self = GST_CPU_FFTBLOOM (object);
  ci_fb_ref_free (self->ref);
  gst_ci_parallel_free (self->par);
  gst_fftbloom_settings_clear (&self->settings);
  G_OBJECT_CLASS (gst_cpu_fftbloom_parent_class)->finalize (object);
}

static GstCaps *
gst_cpu_fftbloom_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  return gst_fftbloom_transform_caps (caps, filter);
}

static gboolean
gst_cpu_fftbloom_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps * outcaps, GstVideoInfo * out_info)
{
  GstCpuFftBloom *self = GST_CPU_FFTBLOOM (filter);
  if (!gst_ci_check_progressive (GST_BASE_TRANSFORM (filter), incaps, outcaps,
          in_info))
    return FALSE;
  gst_fftbloom_format (in_info, &self->format);
  gst_fftbloom_invalidate (&self->settings);
  return TRUE;
}

static gboolean
gst_cpu_fftbloom_stop (GstBaseTransform * trans)
{
  GstCpuFftBloom *self = GST_CPU_FFTBLOOM (trans);
  ci_fb_ref_free (self->ref);
  self->ref = NULL;
  gst_fftbloom_invalidate (&self->settings);
  gst_ci_forget_refusal (trans);
  return TRUE;
}

static GstFlowReturn
gst_cpu_fftbloom_transform_frame (GstVideoFilter * filter,
    GstVideoFrame * in, GstVideoFrame * out)
{
  GstCpuFftBloom *self = GST_CPU_FFTBLOOM (filter);
  /* the caps' size: a video meta may describe a larger frame */
  gint width = GST_VIDEO_INFO_WIDTH (&filter->in_info);
  gint height = GST_VIDEO_INFO_HEIGHT (&filter->in_info);
  CiFbParams params;
  CiFbKernel *kernel;
  gint scale;

  if (!self->ref && !(self->ref = ci_fb_ref_new ())) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL), ("out of memory"));
    return GST_FLOW_ERROR;
  }
  if (!gst_fftbloom_prepare (GST_ELEMENT (self), &self->settings, width,
          height, &params, &kernel, &scale))
    return GST_FLOW_ERROR;
  if (kernel) {
    int r = ci_fb_ref_set_kernel (self->ref, kernel, width, height, scale);
    ci_fb_kernel_free (kernel);
    if (r != 0) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not set up the FFTs (out of memory?)"),
          ("could not allocate or plan the FFTs for %dx%d", width, height));
      return GST_FLOW_ERROR;
    }
    gst_fftbloom_kernel_installed (&self->settings);
  }
  const guint slices = gst_ci_parallel_slices (G_OBJECT (self),
      &self->n_threads, GST_VIDEO_INFO_SIZE (&filter->in_info));
  ci_fb_ref_process_mt (self->ref, GST_VIDEO_FRAME_PLANE_DATA (in, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (in, 0), GST_VIDEO_FRAME_PLANE_DATA (out, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (out, 0), &self->format, &params,
      gst_ci_parallel_runner, self->par, slices);
  return GST_FLOW_OK;
}

/* same geometry and colour space */
GST_CI_VIDEO_FILTER_TRANSFORM_META (gst_cpu_fftbloom_transform_meta,
    GST_CI_METAS_GEOMETRY_COLORSPACE);

static void
gst_cpu_fftbloom_class_init (GstCpuFftBloomClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  GstCaps *caps = gst_caps_from_string (GST_FFTBLOOM_CAPS);

  gobject_class->set_property = gst_cpu_fftbloom_set_property;
  gobject_class->get_property = gst_cpu_fftbloom_get_property;
  gobject_class->finalize = gst_cpu_fftbloom_finalize;
  gst_fftbloom_install_properties (gobject_class);
  gst_ci_install_n_threads (gobject_class, PROP_N_THREADS);

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gst_element_class_set_static_metadata (element_class,
      "CPU FFT convolution bloom", "Filter/Effect/Video",
      "Convolution bloom (glare) through FFTs, CPU reference (FFTW)",
      "gst-cuda-imaging developers");

  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_ci_sync_controlled_properties);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cpu_fftbloom_transform_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cpu_fftbloom_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_ci_video_filter_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_ci_video_filter_transform);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cpu_fftbloom_set_info);
  filter_class->transform_frame =
      GST_DEBUG_FUNCPTR (gst_cpu_fftbloom_transform_frame);

  gst_type_mark_as_plugin_api (GST_TYPE_FFTBLOOM_RESOLUTION_SCALE, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cpu_fftbloom_debug, "cpufftbloom", 0,
      "CPU FFT convolution bloom");
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cpu_fftbloom_transform_meta);
}

static void
gst_cpu_fftbloom_init (GstCpuFftBloom * self)
{
  gst_fftbloom_settings_init (&self->settings);
  self->par = gst_ci_parallel_new ();
}
