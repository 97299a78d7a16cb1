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
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>

#include "cicuda.h"
#include "gstcivideo.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_IMAGING_FILTER (gst_cuda_imaging_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaImagingFilter, gst_cuda_imaging_filter,
    GST, CUDA_IMAGING_FILTER, GstBaseTransform)

/**
 * GstCudaImagingFrame:
 * @info: the negotiated video info of this side
 * @data: device pointer of each plane (valid in the element's CUDA context)
 * @stride: row pitch of each plane, in bytes
 *
 * What a subclass's kernels read from or write to. Always device memory,
 * whether the buffer came in CUDA memory or the base class staged it.
 */
typedef struct
{
  const GstVideoInfo *info;
  guint8 *data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} GstCudaImagingFrame;

/**
 * GstCudaImagingFilterClass:
 * @set_info: caps were set; the CUDA context is current. Allocate per-caps
 *   device resources here. Optional.
 * @process: enqueue the work for one frame on @stream (context current). The
 *   base class synchronises the stream before the buffer leaves. Return a
 *   cudaError_t value (0 on success); the base class turns failure into an
 *   element error, except %GST_CUDA_IMAGING_ERROR_POSTED (the subclass
 *   posted its own).
 * @release: free device resources (context current). Called on stop and
 *   before a new set_info. Optional.
 *
 * @transform_raw_caps: GstBaseTransform::transform_caps on feature-less caps
 *   (@caps has no features; return caps without features, unfiltered). The
 *   base class strips the features, calls this, offers the result in both
 *   memory:CUDAMemory and system memory and applies the filter. Optional:
 *   without it the caps are kept as they are (same format and size).
 */
/* process () result: failed, and the element error is already posted */
#define GST_CUDA_IMAGING_ERROR_POSTED (-1)

struct _GstCudaImagingFilterClass
{
  GstBaseTransformClass parent_class;

  gboolean (*set_info) (GstCudaImagingFilter * self,
      GstCaps * incaps, const GstVideoInfo * in_info,
      GstCaps * outcaps, const GstVideoInfo * out_info);
  int (*process) (GstCudaImagingFilter * self,
      const GstCudaImagingFrame * in, GstCudaImagingFrame * out,
      ci_stream_t stream);
  void (*release) (GstCudaImagingFilter * self);
  GstCaps *(*transform_raw_caps) (GstCudaImagingFilter * self,
      GstPadDirection direction, GstCaps * caps);
  /* bit p set: process() reads input plane p; 0 (the default): all. From
   * system memory only those planes are uploaded. */
  guint in_planes_read;
  /* which tagged input metas the output keeps (gst_ci_transform_meta) */
  GstCiMetas keep_metas;

  gpointer _reserved[GST_PADDING];
};

/* Pad templates from feature-less caps strings: each gets a CUDAMemory and a
 * system-memory variant, CUDA memory first. */
void gst_cuda_imaging_filter_class_add_pad_templates (GstElementClass * klass,
    const gchar * sink_caps, const gchar * src_caps);

/* Caps helpers: every structure twice, with memory:CUDAMemory then system memory. */
GstCaps *gst_cuda_imaging_caps_add_features (GstCaps * raw);
GstCaps *gst_cuda_imaging_caps_add_features_full (GstCaps * raw,
    gboolean cuda_first);
/* Copy of @caps with all features dropped and duplicates merged. */
GstCaps *gst_cuda_imaging_caps_strip_features (GstCaps * caps);

/* The element's context (NULL before READY). Borrowed. */
GstCudaContext *gst_cuda_imaging_filter_get_context (GstCudaImagingFilter * self);
const GstVideoInfo *gst_cuda_imaging_filter_get_in_info (GstCudaImagingFilter * self);
const GstVideoInfo *gst_cuda_imaging_filter_get_out_info (GstCudaImagingFilter * self);

/* Post an element error for a failed CUDA call (err is a cudaError_t value).
 * Returns FALSE so it can be used as `return gst_cuda_imaging_filter_error (...)`. */
gboolean gst_cuda_imaging_filter_post_cuda_error (GstCudaImagingFilter * self,
    int err, const gchar * what);

G_END_DECLS
