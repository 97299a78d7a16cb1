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
/* Pinned system memory and pools of it (gstcipinned.h). Each block is
 * wrapped as ordinary system memory, so mapping, sharing and copying are
 * GStreamer's own; a qdata on the memory marks it as ours. Pages from
 * cuMemAllocHost are reachable from every context under unified
 * addressing (every 64-bit platform CUDA runs on), so a buffer from one
 * element's pool serves another's on another context or device. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcipinned.h"

#include <gst/video/video.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>
#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ci_pinned_debug);
#define GST_CAT_DEFAULT gst_ci_pinned_debug

G_DEFINE_QUARK (gst-ci-pinned-block, pinned);

typedef struct
{
  gpointer ptr;
  GstCudaContext *context;
} PinnedBlock;

static void
pinned_block_free (gpointer data)
{
  PinnedBlock *b = data;
  if (gst_cuda_context_push (b->context)) {
    CuMemFreeHost (b->ptr);
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR ("cannot push the CUDA context: %p stays pinned", b->ptr);
  }
  gst_object_unref (b->context);
  g_free (b);
}

struct _GstCiPinnedAllocator
{
  GstAllocator parent;
  GstCudaContext *context;
};

G_DEFINE_TYPE_WITH_CODE (GstCiPinnedAllocator, gst_ci_pinned_allocator,
    GST_TYPE_ALLOCATOR, GST_DEBUG_CATEGORY_INIT (gst_ci_pinned_debug,
        "cipinned", 0, "pinned system memory"));

static GstMemory *
gst_ci_pinned_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstCiPinnedAllocator *self = GST_CI_PINNED_ALLOCATOR (allocator);
  const gsize maxsize = size + params->prefix + params->padding;
  gpointer ptr = NULL;

  /* the pages are aligned far beyond any alignment a pool asks for */
  if (params->align < 4096 && gst_cuda_context_push (self->context)) {
    if (CuMemAllocHost (&ptr, maxsize) != CUDA_SUCCESS)
      ptr = NULL;
    gst_cuda_context_pop (NULL);
  }
  if (!ptr) {
    GST_WARNING_OBJECT (self, "no pinned memory for %" G_GSIZE_FORMAT
        " bytes: ordinary system memory instead (copied through staging)",
        maxsize);
    return gst_allocator_alloc (NULL, size, params);
  }
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (ptr, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset ((guint8 *) ptr + params->prefix + size, 0, params->padding);

  PinnedBlock *b = g_new (PinnedBlock, 1);
  b->ptr = ptr;
  b->context = gst_object_ref (self->context);
  GstMemory *mem = gst_memory_new_wrapped (params->flags &
      ~(GST_MEMORY_FLAG_ZERO_PREFIXED | GST_MEMORY_FLAG_ZERO_PADDED), ptr,
      maxsize, params->prefix, size, b, pinned_block_free);
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), pinned_quark (), b,
      NULL);
  return mem;
}

/* never called: the memory it gives belongs to the system allocator */
static void
gst_ci_pinned_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  g_return_if_reached ();
}

static void
gst_ci_pinned_allocator_finalize (GObject * object)
{
  gst_clear_object (&GST_CI_PINNED_ALLOCATOR (object)->context);
  G_OBJECT_CLASS (gst_ci_pinned_allocator_parent_class)->finalize (object);
}

static void
gst_ci_pinned_allocator_class_init (GstCiPinnedAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);
  gobject_class->finalize = gst_ci_pinned_allocator_finalize;
  alloc_class->alloc = gst_ci_pinned_allocator_alloc;
  alloc_class->free = gst_ci_pinned_allocator_free;
}

static void
gst_ci_pinned_allocator_init (GstCiPinnedAllocator * self)
{
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_ci_pinned_allocator_new (GstCudaContext * context)
{
  GstCiPinnedAllocator *self = g_object_new (GST_TYPE_CI_PINNED_ALLOCATOR,
      NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  return GST_ALLOCATOR_CAST (self);
}

gboolean
gst_ci_memory_is_pinned (GstMemory * mem)
{
  return gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      pinned_quark ()) != NULL;
}

gboolean
gst_ci_buffer_is_pinned (GstBuffer * buf)
{
  return gst_buffer_n_memory (buf) == 1 &&
      gst_ci_memory_is_pinned (gst_buffer_peek_memory (buf, 0));
}

/* ---------------------------------------------------------------- pool */

#define GST_TYPE_CI_PINNED_POOL (gst_ci_pinned_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCiPinnedPool, gst_ci_pinned_pool, GST, CI_PINNED_POOL,
    GstVideoBufferPool)

struct _GstCiPinnedPool
{
  GstVideoBufferPool parent;
  GstAllocator *allocator;
};

G_DEFINE_TYPE (GstCiPinnedPool, gst_ci_pinned_pool, GST_TYPE_VIDEO_BUFFER_POOL);

/* whoever configures the pool (upstream, through the allocation query)
 * may set an allocator of its own: the pool's memory stays pinned, with
 * the parameters asked for */
static gboolean
gst_ci_pinned_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstCiPinnedPool *self = GST_CI_PINNED_POOL (pool);
  GstAllocationParams params;
  if (!gst_buffer_pool_config_get_allocator (config, NULL, &params))
    gst_allocation_params_init (&params);
  gst_buffer_pool_config_set_allocator (config, self->allocator, &params);
  return GST_BUFFER_POOL_CLASS (gst_ci_pinned_pool_parent_class)->set_config
      (pool, config);
}

static void
gst_ci_pinned_pool_finalize (GObject * object)
{
  gst_clear_object (&GST_CI_PINNED_POOL (object)->allocator);
  G_OBJECT_CLASS (gst_ci_pinned_pool_parent_class)->finalize (object);
}

static void
gst_ci_pinned_pool_class_init (GstCiPinnedPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_ci_pinned_pool_finalize;
  GST_BUFFER_POOL_CLASS (klass)->set_config = gst_ci_pinned_pool_set_config;
}

static void
gst_ci_pinned_pool_init (GstCiPinnedPool * self)
{
}

GstBufferPool *
gst_ci_pinned_pool_new (GstCudaContext * context)
{
  const gchar *off = g_getenv ("CI_NO_PINNED_POOLS");
  if (off && atoi (off))
    return NULL;
  GstCiPinnedPool *self = g_object_new (GST_TYPE_CI_PINNED_POOL, NULL);
  gst_object_ref_sink (self);
  self->allocator = gst_ci_pinned_allocator_new (context);
  return GST_BUFFER_POOL_CAST (self);
}
