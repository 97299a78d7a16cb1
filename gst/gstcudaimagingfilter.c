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
 * SECTION:gstcudaimagingfilter
 * @title: GstCudaImagingFilter
 * @short_description: abstract base class of the cuda* elements
 *
 * Owns the #GstCudaContext (shared with neighbouring CUDA elements through
 * context queries), the element's own CUDA stream, caps in both
 * memory:CUDAMemory and system memory, a #GstCudaBufferPool for CUDA caps,
 * and for system memory pools of pinned memory (gstcipinned.h), which the
 * GPU copies from and to directly, with pinned staging for other
 * system-memory buffers. Subclasses describe formats and enqueue kernels
 * on device pointers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "gstcudaimagingfilter.h"
#include "gstcivideo.h"
#include "gstcicontrol.h"
#include "gstcipinned.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_imaging_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_imaging_filter_debug

#define DEFAULT_DEVICE_ID -1

enum
{
  PROP_0,
  PROP_DEVICE_ID,
};

/* Device + pinned staging for one side whose buffers are in system memory.
 * The host part is made when a buffer that is not pinned comes. */
typedef struct
{
  CUdeviceptr dev[GST_VIDEO_MAX_PLANES];
  size_t pitch[GST_VIDEO_MAX_PLANES];
  guint8 *host;                 /* pinned, planes tightly packed */
  gsize host_size;
  gsize host_offset[GST_VIDEO_MAX_PLANES];
  gint row_bytes[GST_VIDEO_MAX_PLANES];
  gint rows[GST_VIDEO_MAX_PLANES];
  gint n_planes;
} Staging;

typedef struct
{
  GstCudaContext *context;
  gint device_id;
  CUstream stream;
  GstVideoInfo in_info, out_info;
  gboolean have_info;
  Staging in_stage, out_stage;
  /* an out-of-memory error is posted and nothing has worked since: the
   * same failure of a retry (the caps event and then its buffer both
   * negotiate) is not posted again */
  gboolean oom_posted;
} GstCudaImagingFilterPrivate;

#define gst_cuda_imaging_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCudaImagingFilter, gst_cuda_imaging_filter,
    GST_TYPE_BASE_TRANSFORM, G_ADD_PRIVATE (GstCudaImagingFilter);
    GST_DEBUG_CATEGORY_INIT (gst_cuda_imaging_filter_debug, "cudaimagingfilter", 0,
        "CUDA imaging filter base class"));

#define PRIV(self) ((GstCudaImagingFilterPrivate *) \
    gst_cuda_imaging_filter_get_instance_private (GST_CUDA_IMAGING_FILTER (self)))

/* ---------------------------------------------------------------- caps */

/* The formats GStreamer 1.22's CUDA allocator can lay out (it aborts on any
 * other), so only these are offered in memory:CUDAMemory. */
#define CUDA_MEMORY_FORMATS "{ I420, YV12, I420_10LE, Y42B, I422_10LE, I422_12LE, " \
  "NV12, NV21, P010_10LE, P016_LE, Y444, Y444_16LE, BGRA, RGBA, RGBx, BGRx, " \
  "ARGB, ABGR, RGB, BGR, BGR10A2_LE, RGB10A2_LE }"

GstCaps *
gst_cuda_imaging_caps_add_features (GstCaps * raw)
{
  return gst_cuda_imaging_caps_add_features_full (raw, TRUE);
}

/* @cuda_first: the memory:CUDAMemory structures before the system-memory
 * ones (the order fixation follows) */
GstCaps *
gst_cuda_imaging_caps_add_features_full (GstCaps * raw, gboolean cuda_first)
{
  static GstStaticCaps allowed = GST_STATIC_CAPS ("video/x-raw, format=(string) "
      CUDA_MEMORY_FORMATS);
  GstCaps *allowed_caps = gst_static_caps_get (&allowed);
  GstCaps *cuda = gst_caps_intersect_full (raw, allowed_caps,
      GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (allowed_caps);
  /* an empty intersection is a shared, read-only singleton */
  cuda = gst_caps_make_writable (cuda);
  gst_caps_set_features_simple (cuda,
      gst_caps_features_new_single (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  GstCaps *sys = gst_caps_copy (raw);
  gst_caps_set_features_simple (sys,
      gst_caps_features_new_single (GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY));
  return cuda_first ? gst_caps_merge (cuda, sys) : gst_caps_merge (sys, cuda);
}

GstCaps *
gst_cuda_imaging_caps_strip_features (GstCaps * caps)
{
  GstCaps *res = gst_caps_new_empty ();
  guint n = gst_caps_get_size (caps);
  for (guint i = 0; i < n; i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (i > 0 && gst_caps_is_subset_structure_full (res,
            gst_caps_get_structure (caps, i), NULL))
      continue;
    /* ANY features would also match other memory we cannot read */
    if (f && gst_caps_features_is_any (f))
      continue;
    res = gst_caps_merge_structure (res,
        gst_structure_copy (gst_caps_get_structure (caps, i)));
  }
  return res;
}

void
gst_cuda_imaging_filter_class_add_pad_templates (GstElementClass * klass,
    const gchar * sink_caps, const gchar * src_caps)
{
  GstCaps *raw = gst_caps_from_string (sink_caps);
  GstCaps *caps = gst_cuda_imaging_caps_add_features (raw);
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_caps_unref (raw);
  raw = gst_caps_from_string (src_caps);
  caps = gst_cuda_imaging_caps_add_features (raw);
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_caps_unref (raw);
}

/* ---------------------------------------------------------------- errors */

/* TRUE the first time since something worked */
static gboolean
first_oom (GstCudaImagingFilter * self, const gchar * what)
{
  GstCudaImagingFilterPrivate *priv = PRIV (self);
  if (priv->oom_posted) {
    GST_WARNING_OBJECT (self, "out of GPU memory again (%s), already posted",
        what);
    return FALSE;
  }
  priv->oom_posted = TRUE;
  return TRUE;
}

gboolean
gst_cuda_imaging_filter_post_cuda_error (GstCudaImagingFilter * self, int err,
    const gchar * what)
{
  if (ci_cuda_error_is_oom (err)) {
    if (first_oom (self, what))
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of GPU memory (%s)", what), ("CUDA error %d: %s", err,
              ci_cuda_error_string (err)));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("CUDA failure (%s): %s", what, ci_cuda_error_string (err)),
        ("CUDA error %d", err));
  }
  return FALSE;
}

static gboolean
post_cu_error (GstCudaImagingFilter * self, CUresult res, const gchar * what)
{
  const gchar *name = NULL, *text = NULL;
  CuGetErrorName (res, &name);
  CuGetErrorString (res, &text);
  if (res == CUDA_ERROR_OUT_OF_MEMORY) {
    if (first_oom (self, what))
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of GPU memory (%s)", what), ("%s: %s", GST_STR_NULL (name),
              GST_STR_NULL (text)));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("CUDA failure (%s): %s", what, GST_STR_NULL (text)),
        ("%s (%d)", GST_STR_NULL (name), (gint) res));
  }
  return FALSE;
}

/* ---------------------------------------------------------------- staging */

static void
staging_free (Staging * st)
{
  for (gint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    if (st->dev[p])
      CuMemFree (st->dev[p]);
  }
  if (st->host)
    CuMemFreeHost (st->host);
  memset (st, 0, sizeof (*st));
}

static void
plane_geometry (const GstVideoInfo * info, gint plane, gint * row_bytes,
    gint * rows)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, plane, comp);
  *row_bytes = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

/* Context must be current. */
static CUresult
staging_alloc (Staging * st, const GstVideoInfo * info)
{
  CUresult res;
  gsize total = 0;
  memset (st, 0, sizeof (*st));
  st->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (gint p = 0; p < st->n_planes; p++) {
    plane_geometry (info, p, &st->row_bytes[p], &st->rows[p]);
    res = CuMemAllocPitch (&st->dev[p], &st->pitch[p], st->row_bytes[p],
        st->rows[p], 16);
    if (res != CUDA_SUCCESS)
      goto fail;
    st->host_offset[p] = total;
    total += GST_ROUND_UP_64 ((gsize) st->row_bytes[p] * st->rows[p]);
  }
  st->host_size = total;
  return CUDA_SUCCESS;
fail:
  /* transform () re-allocates when n_planes is 0: leave nothing behind */
  staging_free (st);
  return res;
}

/* Context must be current. */
static CUresult
staging_host (Staging * st)
{
  if (st->host)
    return CUDA_SUCCESS;
  return CuMemAllocHost ((void **) &st->host, st->host_size);
}

static void
copy_rows (guint8 * dst, gsize dstride, const guint8 * src, gsize sstride,
    gsize row_bytes, gint rows)
{
  if (dstride == sstride && dstride == row_bytes) {
    memcpy (dst, src, row_bytes * rows);
    return;
  }
  for (gint y = 0; y < rows; y++)
    memcpy (dst + y * dstride, src + y * sstride, row_bytes);
}

static CUresult
memcpy2d_async (CUmemorytype dtype, void *dst, size_t dpitch,
    CUmemorytype stype, const void *src, size_t spitch, size_t width,
    size_t height, CUstream stream)
{
  CUDA_MEMCPY2D c;
  memset (&c, 0, sizeof (c));
  c.srcMemoryType = stype;
  c.dstMemoryType = dtype;
  if (stype == CU_MEMORYTYPE_DEVICE)
    c.srcDevice = (CUdeviceptr) src;
  else
    c.srcHost = src;
  if (dtype == CU_MEMORYTYPE_DEVICE)
    c.dstDevice = (CUdeviceptr) dst;
  else
    c.dstHost = dst;
  c.srcPitch = spitch;
  c.dstPitch = dpitch;
  c.WidthInBytes = width;
  c.Height = height;
  return CuMemcpy2DAsync (&c, stream);
}

/* ---------------------------------------------------------------- GObject */

static void
gst_cuda_imaging_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaImagingFilterPrivate *priv = PRIV (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:{
      gint id = g_value_get_int (value);
      GstCudaContext *drop = NULL;
      GST_OBJECT_LOCK (object);
      /* a context made (or received from a neighbour) for another device
       * is dropped, so that the next caps make one on this device; only in
       * NULL or READY (MUTABLE_READY) with no state change under way, when
       * neither a streaming thread nor change_state can be using it: later
       * the new id takes effect at the next start */
      const gboolean idle = GST_STATE (object) <= GST_STATE_READY
          && GST_STATE_PENDING (object) == GST_STATE_VOID_PENDING;
      const gboolean later = !idle && id != priv->device_id;
      if (idle && id >= 0 && priv->context && !priv->have_info) {
        guint dev = 0;
        g_object_get (priv->context, "cuda-device-id", &dev, NULL);
        if ((gint) dev != id) {
          drop = priv->context;
          priv->context = NULL;
        }
      }
      priv->device_id = id;
      GST_OBJECT_UNLOCK (object);
      gst_clear_object (&drop);
      if (later)
        GST_WARNING_OBJECT (object, "cuda-device-id %d takes effect when the "
            "element next goes from NULL to READY", id);
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_imaging_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaImagingFilterPrivate *priv = PRIV (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      g_value_set_int (value, priv->device_id);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* A bin hands its CUDA context to every element added to it: an element
 * that never left NULL must still drop it. */
static void
gst_cuda_imaging_filter_dispose (GObject * object)
{
  gst_clear_object (&PRIV (object)->context);
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
release_device_resources (GstCudaImagingFilter * self)
{
  GstCudaImagingFilterPrivate *priv = PRIV (self);
  GstCudaImagingFilterClass *klass = GST_CUDA_IMAGING_FILTER_GET_CLASS (self);
  if (!priv->context)
    return;
  if (!gst_cuda_context_push (priv->context)) {
    /* nothing of it can be freed without its context */
    GST_ERROR_OBJECT (self, "cannot push the CUDA context: device memory "
        "and the stream of this element are not released");
    return;
  }
  if (priv->stream)
    CuStreamSynchronize (priv->stream);
  if (priv->have_info && klass->release)
    klass->release (self);
  priv->have_info = FALSE;
  staging_free (&priv->in_stage);
  staging_free (&priv->out_stage);
  if (priv->stream) {
    CuStreamDestroy (priv->stream);
    priv->stream = NULL;
  }
  gst_cuda_context_pop (NULL);
}

/* Releases what the context holds and puts @ctx (taken; NULL: none) in its
 * place, under the lock: a context query may be taking a reference. */
static void
replace_context (GstCudaImagingFilter * self, GstCudaContext * ctx)
{
  GstCudaImagingFilterPrivate *priv = PRIV (self);
  release_device_resources (self);
  GST_OBJECT_LOCK (self);
  GstCudaContext *old = priv->context;
  priv->context = ctx;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old);
}

/* ---------------------------------------------------------------- element */

static gboolean
ensure_context (GstCudaImagingFilter * self)
{
  GstCudaImagingFilterPrivate *priv = PRIV (self);
  if (!gst_cuda_load_library ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("no CUDA device"),
        ("The CUDA driver library (libcuda) could not be loaded"));
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  gint device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          &priv->context)) {
    int n = 0;
    if (device_id >= 0 && CuInit (0) == CUDA_SUCCESS
        && CuDeviceGetCount (&n) == CUDA_SUCCESS && n > 0 && device_id >= n)
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("CUDA device %d not found", device_id),
          ("cuda-device-id=%d, but there %s %d CUDA device%s (0..%d)",
              device_id, n == 1 ? "is" : "are", n, n == 1 ? "" : "s", n - 1));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("no CUDA device"),
          ("No usable CUDA device (cuda-device-id=%d)", device_id));
    return FALSE;
  }
  return TRUE;
}

static GstStateChangeReturn
gst_cuda_imaging_filter_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaImagingFilter *self = GST_CUDA_IMAGING_FILTER (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !ensure_context (self))
    return GST_STATE_CHANGE_FAILURE;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    replace_context (self, NULL);
  return ret;
}

static void
gst_cuda_imaging_filter_set_context (GstElement * element, GstContext * context)
{
  GstCudaImagingFilterPrivate *priv = PRIV (element);
  GST_OBJECT_LOCK (element);
  gint device_id = priv->device_id;
  gboolean have = priv->context != NULL;
  GST_OBJECT_UNLOCK (element);
  /* a bin or the application may call this from any thread, also while
   * READY -> NULL drops the context: take it into a local reference and
   * install it under the lock, unless one arrived meanwhile */
  if (!have) {
    GstCudaContext *ctx = NULL;
    gst_cuda_handle_set_context (element, context, device_id, &ctx);
    if (ctx) {
      GST_OBJECT_LOCK (element);
      if (!priv->context) {
        priv->context = ctx;
        ctx = NULL;
      }
      GST_OBJECT_UNLOCK (element);
      gst_clear_object (&ctx);
    }
  }
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_imaging_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCudaImagingFilterPrivate *priv = PRIV (trans);
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    /* queries come from any thread: answer with a reference taken under
     * the lock, which READY -> NULL and cuda-device-id also take to drop it */
    GstCudaContext *ctx = NULL;
    GST_OBJECT_LOCK (trans);
    if (priv->context)
      ctx = gst_object_ref (priv->context);
    GST_OBJECT_UNLOCK (trans);
    gboolean ret = gst_cuda_handle_context_query (GST_ELEMENT (trans), query,
        ctx);
    gst_clear_object (&ctx);
    if (ret)
      return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_cuda_imaging_filter_stop (GstBaseTransform * trans)
{
  GstCudaImagingFilter *self = GST_CUDA_IMAGING_FILTER (trans);
  /* Keep the context (READY), drop everything sized by caps. */
  release_device_resources (self);
  gst_ci_forget_refusal (trans);
  PRIV (self)->oom_posted = FALSE;
  return TRUE;
}

static gboolean
caps_have_cuda (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

static GstCaps *
gst_cuda_imaging_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaImagingFilterClass *klass = GST_CUDA_IMAGING_FILTER_GET_CLASS (trans);
  GstCaps *raw = gst_cuda_imaging_caps_strip_features (caps);
  GstCaps *tmp = klass->transform_raw_caps ?
      klass->transform_raw_caps (GST_CUDA_IMAGING_FILTER (trans), direction,
      raw) : gst_caps_ref (raw);
  /* the memory the other side has comes first: system memory in, system
   * memory out, unless downstream asks for CUDA memory (cpusgm and cudasgm
   * then fixate the same format for a sink that takes anything) */
  GstCaps *ret = gst_cuda_imaging_caps_add_features_full (tmp,
      gst_caps_is_empty (caps) || caps_have_cuda (caps));
  gst_caps_unref (raw);
  gst_caps_unref (tmp);
  if (filter) {
    tmp = gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, ret);
  return ret;
}

/* The context of the CUDA memory @pad's peer deals in (a reference), if
 * it is not ours. */
static GstCudaContext *
peer_context (GstCudaImagingFilter * self, GstPad * pad)
{
  GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *other = NULL;
  GstContext *c = NULL;
  if (gst_pad_peer_query (pad, q)) {
    gst_query_parse_context (q, &c);
    if (c)
      gst_structure_get (gst_context_get_structure (c), GST_CUDA_CONTEXT_TYPE,
          GST_TYPE_CUDA_CONTEXT, &other, NULL);
  }
  gst_query_unref (q);
  if (other && other == PRIV (self)->context)
    gst_clear_object (&other);
  return other;
}

/* cuda-device-id=-1: READY took the context of a neighbour that had one
 * then, or made one on device 0. A bin does not order its children's
 * state changes by their devices, so the element whose CUDA memory we
 * take (or give) may have made its context after us, on another device
 * or just another context, whose memory ours cannot address. At caps,
 * where everything sized by caps is made anew anyway, take that
 * neighbour's context: upstream's first, since the input is what is
 * read. */
static void
follow_neighbour_context (GstCudaImagingFilter * self, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaImagingFilterPrivate *priv = PRIV (self);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCudaContext *other = NULL;
  GST_OBJECT_LOCK (self);
  const gint device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  if (device_id != -1)
    return;
  if (caps_have_cuda (incaps))
    other = peer_context (self, GST_BASE_TRANSFORM_SINK_PAD (trans));
  if (!other && caps_have_cuda (outcaps))
    other = peer_context (self, GST_BASE_TRANSFORM_SRC_PAD (trans));
  if (!other)
    return;
  guint dev = 0;
  g_object_get (other, "cuda-device-id", &dev, NULL);
  GST_INFO_OBJECT (self, "taking the CUDA context of a neighbour (device "
      "%u) in CUDA memory", dev);
  replace_context (self, other);
}

static gboolean
gst_cuda_imaging_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaImagingFilter *self = GST_CUDA_IMAGING_FILTER (trans);
  GstCudaImagingFilterPrivate *priv = PRIV (self);
  GstCudaImagingFilterClass *klass = GST_CUDA_IMAGING_FILTER_GET_CLASS (self);
  GstVideoInfo in_info, out_info;
  CUresult res;
  gboolean ok = TRUE;

  if (!gst_video_info_from_caps (&in_info, incaps) ||
      !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  if (!gst_ci_check_progressive (trans, incaps, outcaps, &in_info))
    return FALSE;
  if (!priv->context && !ensure_context (self))
    return FALSE;
  follow_neighbour_context (self, incaps, outcaps);

  release_device_resources (self);
  priv->in_info = in_info;
  priv->out_info = out_info;

  if (!gst_cuda_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot use the CUDA context"),
        (NULL));
    return FALSE;
  }
  /* The staging for both sides is small next to the frames it carries;
   * allocate it up front so a later CUDA-memory peer costs nothing. Not in
   * passthrough (equal caps, set before set_caps), where no frame is copied:
   * transform () still makes it if passthrough ends. */
  const gboolean pass = gst_base_transform_is_passthrough (trans);
  res = CuStreamCreate (&priv->stream, CU_STREAM_NON_BLOCKING);
  if (res != CUDA_SUCCESS)
    ok = post_cu_error (self, res, "creating a stream");
  if (ok && !pass && !caps_have_cuda (incaps)) {
    res = staging_alloc (&priv->in_stage, &in_info);
    if (res != CUDA_SUCCESS)
      ok = post_cu_error (self, res, "allocating input staging");
  }
  if (ok && !pass && !caps_have_cuda (outcaps)) {
    res = staging_alloc (&priv->out_stage, &out_info);
    if (res != CUDA_SUCCESS)
      ok = post_cu_error (self, res, "allocating output staging");
  }
  if (ok && klass->set_info)
    ok = klass->set_info (self, incaps, &in_info, outcaps, &out_info);
  priv->have_info = ok;
  gst_cuda_context_pop (NULL);

  if (!ok) {
    release_device_resources (self);
  } else {
    gst_ci_forget_refusal (trans);
    priv->oom_posted = FALSE;
  }
  return ok;
}

static gboolean
gst_cuda_imaging_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaImagingFilterPrivate *priv = PRIV (trans);
  GstVideoInfo info;
  GstCaps *caps;
  GstBufferPool *pool;
  GstStructure *config;
  guint size;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  /* passthrough: the downstream query was forwarded as is */
  if (!decide_query)
    return TRUE;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  /* system memory: pinned, so that upstream writes the frames where the
   * GPU can fetch them without a copy into staging; the allocator too,
   * for upstream elements that allocate without a pool */
  GstAllocator *pinned = !caps_have_cuda (caps) && priv->context ?
      gst_ci_pinned_allocator_new (priv->context) : NULL;
  if (pinned)
    gst_query_add_allocation_param (query, pinned, NULL);
  if (gst_query_get_n_allocation_pools (query) == 0) {
    if (caps_have_cuda (caps) && priv->context)
      pool = gst_cuda_buffer_pool_new (priv->context);
    else if (pinned)
      pool = gst_ci_pinned_pool_new (pinned);
    else
      pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    size = GST_VIDEO_INFO_SIZE (&info);
    gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_WARNING_OBJECT (trans, "pool rejected its config");
      gst_object_unref (pool);
      gst_clear_object (&pinned);
      return FALSE;
    }
    /* the pool may have changed the size (pitch alignment) */
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  gst_clear_object (&pinned);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

/* a pool of pinned memory for our output; NULL when that is turned off */
static GstBufferPool *
pinned_pool_new (GstCudaContext * context)
{
  GstAllocator *alloc = gst_ci_pinned_allocator_new (context);
  if (!alloc)
    return NULL;
  GstBufferPool *pool = gst_ci_pinned_pool_new (alloc);
  gst_object_unref (alloc);
  return pool;
}

static gboolean
gst_cuda_imaging_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaImagingFilterPrivate *priv = PRIV (trans);
  GstCaps *outcaps;
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  guint size, min = 0, max = 0;
  gboolean update_pool = FALSE;
  gboolean cuda;
  GstStructure *config;

  gst_query_parse_allocation (query, &outcaps, NULL);
  if (!outcaps || !gst_video_info_from_caps (&info, outcaps))
    return FALSE;
  cuda = caps_have_cuda (outcaps);

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    update_pool = TRUE;
  }
  if (pool && cuda) {
    /* Only our own context's CUDA pool gives memory our kernels can write. */
    if (!GST_IS_CUDA_BUFFER_POOL (pool) ||
        GST_CUDA_BUFFER_POOL (pool)->context != priv->context)
      gst_clear_object (&pool);
  }
  if (pool && !cuda && GST_IS_CUDA_BUFFER_POOL (pool))
    gst_clear_object (&pool);
  /* A downstream pool of plain system memory (a videoconvert's, say) gives
   * nothing our own does not, and ours is pinned: the frames are copied
   * from the GPU straight into it instead of through staging. Special
   * memory (a sink's, mapped for display) is kept. */
  if (pool && !cuda && (G_OBJECT_TYPE (pool) == GST_TYPE_VIDEO_BUFFER_POOL ||
          G_OBJECT_TYPE (pool) == GST_TYPE_BUFFER_POOL)) {
    GstBufferPool *pinned = pinned_pool_new (priv->context);
    if (pinned) {
      GST_DEBUG_OBJECT (trans, "pinned pool instead of downstream's %"
          GST_PTR_FORMAT, pool);
      gst_object_unref (pool);
      pool = pinned;
    }
  }

  /* A downstream pool that rejects the configuration (or changes it in a
   * way that does not fit) is replaced by one of ours, as basetransform's
   * default does. */
  for (gint attempt = 0;; attempt++) {
    gboolean ours = pool == NULL;
    if (ours) {
      pool = cuda ? gst_cuda_buffer_pool_new (priv->context) :
          pinned_pool_new (priv->context);
      if (!pool)
        pool = gst_video_buffer_pool_new ();
      min = max = 0;
    }
    size = GST_VIDEO_INFO_SIZE (&info);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, outcaps, size, min, max);
    gboolean ok = gst_buffer_pool_set_config (pool, config);
    if (!ok) {
      /* the pool may have adjusted the configuration: take it if it fits */
      config = gst_buffer_pool_get_config (pool);
      if (gst_buffer_pool_config_validate_params (config, outcaps, size, min,
              max))
        ok = gst_buffer_pool_set_config (pool, config);
      else
        gst_structure_free (config);
    }
    if (ok)
      break;
    gst_clear_object (&pool);
    if (ours || attempt > 0) {
      GST_ELEMENT_ERROR (trans, RESOURCE, SETTINGS, (NULL),
          ("the output buffer pool rejected its configuration"));
      return FALSE;
    }
    GST_INFO_OBJECT (trans, "downstream pool rejected the configuration, "
        "using our own");
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);

  if (update_pool)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* CI_NO_PEER_ACCESS=1 treats other contexts' CUDA memory as devices
 * without peer access get it (through host memory), so that path can be
 * tested on GPUs that have peer access. */
static gboolean
peer_access_off (void)
{
  static gint off = -1;
  if (g_atomic_int_get (&off) < 0) {
    const gchar *e = g_getenv ("CI_NO_PEER_ACCESS");
    g_atomic_int_set (&off, e && atoi (e) ? 1 : 0);
  }
  return g_atomic_int_get (&off);
}

/* A buffer whose memory our kernels may address directly. */
static gboolean
is_our_cuda_buffer (GstCudaImagingFilterPrivate * priv, GstBuffer * buf)
{
  GstMemory *mem;
  if (gst_buffer_n_memory (buf) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buf, 0);
  if (!gst_is_cuda_memory (mem))
    return FALSE;
  return GST_CUDA_MEMORY_CAST (mem)->context == priv->context ||
      (!peer_access_off () && gst_cuda_context_can_access_peer (priv->context,
          GST_CUDA_MEMORY_CAST (mem)->context));
}

static GstFlowReturn
gst_cuda_imaging_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaImagingFilter *self = GST_CUDA_IMAGING_FILTER (trans);
  GstCudaImagingFilterPrivate *priv = PRIV (self);
  GstCudaImagingFilterClass *klass = GST_CUDA_IMAGING_FILTER_GET_CLASS (self);
  GstVideoFrame in_frame, out_frame;
  GstCudaImagingFrame in = { 0 }, out = { 0 };
  gboolean in_cuda, out_cuda, in_pinned, out_pinned;
  GstFlowReturn ret = GST_FLOW_OK;
  CUresult res = CUDA_SUCCESS;
  int err;

  if (!priv->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NOT_IMPLEMENTED, (NULL),
        ("transform called before caps were set"));
    return GST_FLOW_NOT_NEGOTIATED;
  }

  /* before any map: a meta's planes may run past their memory */
  if (!gst_ci_check_frames (trans, inbuf, &priv->in_info, outbuf,
          &priv->out_info))
    return GST_FLOW_ERROR;

  in_cuda = is_our_cuda_buffer (priv, inbuf);
  out_cuda = is_our_cuda_buffer (priv, outbuf);
  /* A side negotiated as CUDA caps but carrying foreign memory falls back
   * to staging, which exists only for system-memory caps: make it now. */
  if (!gst_cuda_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Cannot use the CUDA context"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  /* pinned or page-locked system memory: the GPU copies the frame's
   * planes themselves */
  in_pinned = !in_cuda && gst_ci_buffer_dma_ready (inbuf, priv->context);
  out_pinned = !out_cuda && gst_ci_buffer_dma_ready (outbuf, priv->context);
  if (!in_cuda && !priv->in_stage.n_planes)
    res = staging_alloc (&priv->in_stage, &priv->in_info);
  if (res == CUDA_SUCCESS && !out_cuda && !priv->out_stage.n_planes)
    res = staging_alloc (&priv->out_stage, &priv->out_info);
  if (res == CUDA_SUCCESS && !in_cuda && !in_pinned)
    res = staging_host (&priv->in_stage);
  if (res == CUDA_SUCCESS && !out_cuda && !out_pinned)
    res = staging_host (&priv->out_stage);
  if (res != CUDA_SUCCESS) {
    post_cu_error (self, res, "allocating staging");
    gst_cuda_context_pop (NULL);
    return GST_FLOW_ERROR;
  }

#if GST_CHECK_VERSION(1, 24, 0)
  /* From 1.24 CUDA memory may carry its producer's stream with work still
   * queued on it (a CUDA map does not wait for it): ours reads it next. */
  if (in_cuda)
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (inbuf,
                0)));
#endif
  if (!gst_video_frame_map (&in_frame, &priv->in_info, inbuf,
          GST_MAP_READ | (in_cuda ? GST_MAP_CUDA : 0))) {
    gst_cuda_context_pop (NULL);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL), ("cannot map input"));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&out_frame, &priv->out_info, outbuf,
          GST_MAP_WRITE | (out_cuda ? GST_MAP_CUDA : 0))) {
    gst_video_frame_unmap (&in_frame);
    gst_cuda_context_pop (NULL);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL), ("cannot map output"));
    return GST_FLOW_ERROR;
  }

  in.info = &priv->in_info;
  out.info = &priv->out_info;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&priv->in_info); p++) {
    if (in_cuda) {
      in.data[p] = GST_VIDEO_FRAME_PLANE_DATA (&in_frame, p);
      in.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, p);
      continue;
    }
    if (klass->in_planes_read && !(klass->in_planes_read & (1u << p))) {
      in.data[p] = NULL;
      in.stride[p] = 0;
      continue;
    }
    Staging *st = &priv->in_stage;
    const guint8 *host = GST_VIDEO_FRAME_PLANE_DATA (&in_frame, p);
    gsize hstride = GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, p);
    if (!in_pinned) {
      copy_rows (st->host + st->host_offset[p], st->row_bytes[p], host,
          hstride, st->row_bytes[p], st->rows[p]);
      host = st->host + st->host_offset[p];
      hstride = st->row_bytes[p];
    }
    res = memcpy2d_async (CU_MEMORYTYPE_DEVICE, (void *) st->dev[p],
        st->pitch[p], CU_MEMORYTYPE_HOST, host, hstride, st->row_bytes[p],
        st->rows[p], priv->stream);
    if (res != CUDA_SUCCESS)
      break;
    in.data[p] = (guint8 *) st->dev[p];
    in.stride[p] = st->pitch[p];
  }
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&priv->out_info); p++) {
    if (out_cuda) {
      out.data[p] = GST_VIDEO_FRAME_PLANE_DATA (&out_frame, p);
      out.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, p);
    } else {
      out.data[p] = (guint8 *) priv->out_stage.dev[p];
      out.stride[p] = priv->out_stage.pitch[p];
    }
  }

  if (res != CUDA_SUCCESS) {
    post_cu_error (self, res, "uploading");
    ret = GST_FLOW_ERROR;
    goto done;
  }

  err = klass->process (self, &in, &out, priv->stream);
  if (err != 0) {
    if (err != GST_CUDA_IMAGING_ERROR_POSTED)
      gst_cuda_imaging_filter_post_cuda_error (self, err, "processing a frame");
    ret = GST_FLOW_ERROR;
    goto done;
  }

  if (!out_cuda) {
    Staging *st = &priv->out_stage;
    for (gint p = 0; p < st->n_planes && res == CUDA_SUCCESS; p++) {
      /* into the frame itself, or into staging for the copy below */
      void *host = out_pinned ? GST_VIDEO_FRAME_PLANE_DATA (&out_frame, p) :
          st->host + st->host_offset[p];
      gsize hstride = out_pinned ? (gsize) GST_VIDEO_FRAME_PLANE_STRIDE
          (&out_frame, p) : (gsize) st->row_bytes[p];
      res = memcpy2d_async (CU_MEMORYTYPE_HOST, host, hstride,
          CU_MEMORYTYPE_DEVICE, (void *) st->dev[p], st->pitch[p],
          st->row_bytes[p], st->rows[p], priv->stream);
    }
  }
  if (res == CUDA_SUCCESS)
    res = CuStreamSynchronize (priv->stream);
  if (res != CUDA_SUCCESS) {
    post_cu_error (self, res, "downloading");
    ret = GST_FLOW_ERROR;
    goto done;
  }
  if (!out_cuda && !out_pinned) {
    Staging *st = &priv->out_stage;
    for (gint p = 0; p < st->n_planes; p++)
      copy_rows (GST_VIDEO_FRAME_PLANE_DATA (&out_frame, p),
          GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, p),
          st->host + st->host_offset[p], st->row_bytes[p], st->row_bytes[p],
          st->rows[p]);
  }

done:
  /* Nothing may still read the input or write the output once unmapped. */
  if (ret != GST_FLOW_OK)
    CuStreamSynchronize (priv->stream);
  else
    priv->oom_posted = FALSE;
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  gst_cuda_context_pop (NULL);
  return ret;
}

static gboolean
gst_cuda_imaging_filter_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  GstCudaImagingFilterPrivate *priv = PRIV (trans);
  return gst_ci_transform_meta (outbuf, meta, inbuf, &priv->in_info,
      &priv->out_info, GST_CUDA_IMAGING_FILTER_GET_CLASS (trans)->keep_metas);
}

static void
gst_cuda_imaging_filter_class_init (GstCudaImagingFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->dispose = gst_cuda_imaging_filter_dispose;
  gobject_class->set_property = gst_cuda_imaging_filter_set_property;
  gobject_class->get_property = gst_cuda_imaging_filter_get_property;

  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = the one a neighbour uses, else the first)",
          -1, G_MAXINT, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_change_state);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_set_context);

  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_query);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_transform_caps);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_transform);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cuda_imaging_filter_transform_meta);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_ci_sync_controlled_properties);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_IMAGING_FILTER, 0);
}

static void
gst_cuda_imaging_filter_init (GstCudaImagingFilter * self)
{
  PRIV (self)->device_id = DEFAULT_DEVICE_ID;
  /* as GstVideoFilter does for the cpu* twins: late frames are dropped */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}

GstCudaContext *
gst_cuda_imaging_filter_get_context (GstCudaImagingFilter * self)
{
  return PRIV (self)->context;
}

const GstVideoInfo *
gst_cuda_imaging_filter_get_in_info (GstCudaImagingFilter * self)
{
  return &PRIV (self)->in_info;
}

const GstVideoInfo *
gst_cuda_imaging_filter_get_out_info (GstCudaImagingFilter * self)
{
  return &PRIV (self)->out_info;
}
