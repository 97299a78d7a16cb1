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
 * SECTION:element-cudafftbloom
 * @title: cudafftbloom
 *
 * Convolution bloom (glare) through FFTs: out = in + intensity ×
 * (bright(in) ⊛ K) in linear light, where bright() is a soft-knee bright
 * pass and K a unit-sum kernel: a procedural glare (sharp core, wide halo,
 * diffraction spikes) or a PNG image (grey, or RGB for one kernel per
 * channel). The frame is padded by the kernel's reach so light never wraps
 * around to the opposite border; outside the frame counts as black. Any
 * frame size works; the kernel's spectrum is computed once and cached until
 * the kernel, its properties or the caps change. All properties can be
 * changed while playing. Accepts and produces both memory:CUDAMemory and
 * system memory. The transforms run in shared memory, fused with the
 * bright pass, the kernel multiply and the blend (three launches a frame);
 * grids too large for the GPU's shared memory go through cuFFT. The CPU
 * twin is #cpufftbloom.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudafftbloom threshold=0.5 intensity=2 ! videoconvert ! autovideosink
 * ]|
 * An image as the kernel (a path relative to the working directory; this
 * one is in the source tree):
 * |[
 * gst-launch-1.0 filesrc location=night.mp4 ! parsebin ! nvh264dec ! cudadownload ! videoconvert ! video/x-raw,format=RGBA ! cudafftbloom kernel-location=docs/img/fftbloom-kernel.png kernel-size=0.25 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafftbloom.h"
#include "gstfftbloomcommon.h"
#include "../kernels/fftbloom.h"
#include "../kernels/cicufft.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_fftbloom_debug);
#define GST_CAT_DEFAULT gst_cuda_fftbloom_debug

struct _GstCudaFftBloom
{
  GstCudaImagingFilter parent;

  GstFftBloomSettings settings;
  CiFbCuda *ctx;                /* created in set_info, destroyed in release */
  CiFbFormat format;
};

G_DEFINE_TYPE (GstCudaFftBloom, gst_cuda_fftbloom, GST_TYPE_CUDA_IMAGING_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudafftbloom, "cudafftbloom", GST_RANK_NONE,
    GST_TYPE_CUDA_FFTBLOOM);

static void
gst_cuda_fftbloom_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFftBloom *self = GST_CUDA_FFTBLOOM (object);
  gst_fftbloom_set_property (object, &self->settings, prop_id, value, pspec);
}

static void
gst_cuda_fftbloom_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFftBloom *self = GST_CUDA_FFTBLOOM (object);
  gst_fftbloom_get_property (object, &self->settings, prop_id, value, pspec);
}

static void
gst_cuda_fftbloom_finalize (GObject * object)
{
  GstCudaFftBloom *self = GST_CUDA_FFTBLOOM (object);
  gst_fftbloom_settings_clear (&self->settings);
  G_OBJECT_CLASS (gst_cuda_fftbloom_parent_class)->finalize (object);
}

static gboolean
gst_cuda_fftbloom_set_info (GstCudaImagingFilter * filter, GstCaps * incaps,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    const GstVideoInfo * out_info)
{
  GstCudaFftBloom *self = GST_CUDA_FFTBLOOM (filter);
  if (!ci_cufft_available ()) {
    /* the same each try: posted once */
    if (!gst_ci_refused_before (GST_BASE_TRANSFORM (filter), incaps, outcaps))
      GST_ELEMENT_ERROR (self, LIBRARY, INIT, ("cuFFT could not be loaded"),
          ("%s (cudafftbloom needs the CUDA toolkit's cuFFT library)",
              ci_cufft_error ()));
    return FALSE;
  }
  gst_fftbloom_format (in_info, &self->format);
  gst_fftbloom_invalidate (&self->settings);
  int err = ci_fb_cuda_create (&self->ctx, CI_FB_MODE_FUSED);
  if (err)
    return gst_cuda_imaging_filter_post_cuda_error (filter, err,
        "creating the FFT context");
  return TRUE;
}

static void
gst_cuda_fftbloom_release (GstCudaImagingFilter * filter)
{
  GstCudaFftBloom *self = GST_CUDA_FFTBLOOM (filter);
  ci_fb_cuda_destroy (self->ctx);
  self->ctx = NULL;
  gst_fftbloom_invalidate (&self->settings);
}

static int
gst_cuda_fftbloom_process (GstCudaImagingFilter * filter,
    const GstCudaImagingFrame * in, GstCudaImagingFrame * out,
    ci_stream_t stream)
{
  GstCudaFftBloom *self = GST_CUDA_FFTBLOOM (filter);
  gint width = GST_VIDEO_INFO_WIDTH (in->info);
  gint height = GST_VIDEO_INFO_HEIGHT (in->info);
  CiFbParams params;
  CiFbKernel *kernel;
  gint scale;

  if (!gst_fftbloom_prepare (GST_ELEMENT (self), &self->settings, width,
          height, &params, &kernel, &scale))
    return GST_CUDA_IMAGING_ERROR_POSTED;
  if (kernel) {
    /* replans only when the grid changes; the spectrum is recomputed */
    if (!ci_fb_cuda_frame_fits (kernel, width, height, scale)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Frame too large for the FFT"),
          ("%dx%d with a %dx%d kernel: the FFT grid would pass %d M samples, "
              "a side of 2^20 or %d rows", width, height, kernel->width,
              kernel->height, G_MAXINT / 3 >> 20, 8 * 65535));
      ci_fb_kernel_free (kernel);
      return GST_CUDA_IMAGING_ERROR_POSTED;
    }
    int err = ci_fb_cuda_set_kernel (self->ctx, kernel, width, height, scale,
        stream);
    ci_fb_kernel_free (kernel);
    if (err)
      return err;
    gst_fftbloom_kernel_installed (&self->settings);
  }
  return ci_fb_cuda_process (self->ctx, in->data[0], in->stride[0],
      out->data[0], out->stride[0], &self->format, &params, stream);
}

static void
gst_cuda_fftbloom_class_init (GstCudaFftBloomClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaImagingFilterClass *filter_class =
      GST_CUDA_IMAGING_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_fftbloom_set_property;
  gobject_class->get_property = gst_cuda_fftbloom_get_property;
  gobject_class->finalize = gst_cuda_fftbloom_finalize;
  gst_fftbloom_install_properties (gobject_class);

  gst_cuda_imaging_filter_class_add_pad_templates (element_class,
      GST_FFTBLOOM_CAPS, GST_FFTBLOOM_CAPS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA FFT convolution bloom", "Filter/Effect/Video/Hardware",
      "Convolution bloom (glare) through FFTs on the GPU, any frame size",
      "gst-cuda-imaging developers");

  /* same format and size either way: the base class's default transform */
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_fftbloom_set_info);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_fftbloom_process);
  /* same geometry and colour space */
  filter_class->keep_metas = GST_CI_METAS_GEOMETRY_COLORSPACE;
  filter_class->release = GST_DEBUG_FUNCPTR (gst_cuda_fftbloom_release);

  gst_type_mark_as_plugin_api (GST_TYPE_FFTBLOOM_RESOLUTION_SCALE, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_fftbloom_debug, "cudafftbloom", 0,
      "CUDA FFT convolution bloom");
}

static void
gst_cuda_fftbloom_init (GstCudaFftBloom * self)
{
  gst_fftbloom_settings_init (&self->settings);
}
