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
#include "cicuda.h"

#include <gst/video/video.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>
#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_ci_pinned_debug);
#define GST_CAT_DEFAULT gst_ci_pinned_debug

G_DEFINE_QUARK (gst-ci-pinned-block, pinned);

static gboolean
pinning_off (void)
{
  const gchar *off = g_getenv ("CI_NO_PINNED_POOLS");
  return off && atoi (off);
}

/* bytes one allocator may keep pinned, and all registrations together */
static gint64
pinned_limit (void)
{
  const gchar *mb = g_getenv ("CI_PINNED_MAX_MB");
  return (mb ? g_ascii_strtoll (mb, NULL, 10) : 2048) << 20;
}

struct _GstCiPinnedAllocator
{
  GstAllocator parent;
  GstCudaContext *context;
  gssize pinned;                /* bytes now pinned through this allocator */
  gint64 limit;
};

typedef struct
{
  gpointer ptr;
  gsize size;
  GstCiPinnedAllocator *allocator;      /* a reference */
} PinnedBlock;

static void
pinned_block_free (gpointer data)
{
  PinnedBlock *b = data;
  GstCiPinnedAllocator *a = b->allocator;
  if (gst_cuda_context_push (a->context)) {
    CuMemFreeHost (b->ptr);
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (a, "cannot push the CUDA context: %p stays pinned",
        b->ptr);
  }
  g_atomic_pointer_add (&a->pinned, -(gssize) b->size);
  gst_object_unref (a);
  g_free (b);
}

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

  /* Page-locked memory is taken from what the whole system can page: a
   * pool that grows (a long queue downstream, say) is limited to
   * self->limit bytes, past which it gets ordinary memory. The pages are
   * aligned far beyond any alignment a pool asks for. */
  const gint64 before = g_atomic_pointer_add (&self->pinned, (gssize) maxsize);
  if (params->align < 4096 && before + (gint64) maxsize <= self->limit &&
      gst_cuda_context_push (self->context)) {
    if (CuMemAllocHost (&ptr, maxsize) != CUDA_SUCCESS)
      ptr = NULL;
    gst_cuda_context_pop (NULL);
  }
  if (!ptr) {
    g_atomic_pointer_add (&self->pinned, -(gssize) maxsize);
    GST_WARNING_OBJECT (self, "no pinned memory for %" G_GSIZE_FORMAT
        " bytes (%" G_GINT64_FORMAT " pinned, limit %" G_GINT64_FORMAT
        "): ordinary system memory instead (copied through staging)",
        maxsize, before, self->limit);
    return gst_allocator_alloc (NULL, size, params);
  }
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (ptr, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset ((guint8 *) ptr + params->prefix + size, 0, params->padding);

  PinnedBlock *b = g_new (PinnedBlock, 1);
  b->ptr = ptr;
  b->size = maxsize;
  b->allocator = gst_object_ref (self);
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
  /* not GST_ALLOCATOR_FLAG_CUSTOM_ALLOC: what it gives is plain system
   * memory, which any element may take from it */
  GST_ALLOCATOR_CAST (self)->mem_type = GST_ALLOCATOR_SYSMEM;
}

GstAllocator *
gst_ci_pinned_allocator_new (GstCudaContext * context)
{
  if (pinning_off ())
    return NULL;
  GstCiPinnedAllocator *self = g_object_new (GST_TYPE_CI_PINNED_ALLOCATOR,
      NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  self->limit = pinned_limit ();
  return GST_ALLOCATOR_CAST (self);
}

/* @mem is pinned memory from a GstCiPinnedAllocator (not a sub-memory
 * shared out of one) */
static gboolean
memory_is_pinned (GstMemory * mem)
{
  return gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      pinned_quark ()) != NULL;
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
gst_ci_pinned_pool_new (GstAllocator * allocator)
{
  GstCiPinnedPool *self = g_object_new (GST_TYPE_CI_PINNED_POOL, NULL);
  gst_object_ref_sink (self);
  self->allocator = gst_object_ref (allocator);
  return GST_BUFFER_POOL_CAST (self);
}

/* ---------------------------------------------------------------- registration */

/* Ordinary memory that comes again (a pool's, recycled) is page-locked in
 * place the second time it is seen and copied by DMA from then on; memory
 * seen once (a new buffer per frame) is never locked. The state is a
 * qdata on the memory, so it ends with the memory (and its pages are
 * released before they are freed). */
typedef enum
{
  REG_SEEN,
  REG_LOCKED,
  REG_REFUSED,
} RegState;

typedef struct
{
  RegState state;
  guint8 *ptr;
  gsize size;
  GstCudaContext *context;      /* the one it was locked in, to release it */
} HostReg;

#define REG_MIN_BYTES (1 << 20)

static GMutex reg_lock;
static gint64 reg_bytes;

G_DEFINE_QUARK (gst-ci-host-reg, host_reg);

static void
host_reg_free (gpointer data)
{
  HostReg *r = data;
  if (r->state == REG_LOCKED) {
    if (gst_cuda_context_push (r->context)) {
      ci_cuda_host_unregister (r->ptr);
      gst_cuda_context_pop (NULL);
    } else {
      GST_ERROR ("cannot push the CUDA context: %p stays page-locked", r->ptr);
    }
    g_mutex_lock (&reg_lock);
    reg_bytes -= r->size;
    g_mutex_unlock (&reg_lock);
  }
  gst_clear_object (&r->context);
  g_free (r);
}

gboolean
gst_ci_buffer_dma_ready (GstBuffer * buf, GstCudaContext * context)
{
  if (gst_buffer_n_memory (buf) != 1)
    return FALSE;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  if (memory_is_pinned (mem))
    return TRUE;
  /* plain system memory only (a CUDA or GL memory's map is a download, a
   * dma-buf's a mapping of device pages) */
  if (pinning_off () || !gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM))
    return FALSE;
  GstMapInfo m;
  if (!gst_memory_map (mem, &m, GST_MAP_READ))
    return FALSE;
  guint8 *ptr = m.data;
  const gsize size = m.size;
  gst_memory_unmap (mem, &m);
  /* small frames: the copy costs little, and their pages are likelier
   * to be shared with other memory */
  if (size < REG_MIN_BYTES)
    return FALSE;

  g_mutex_lock (&reg_lock);
  HostReg *r = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      host_reg_quark ());
  if (!r) {
    r = g_new0 (HostReg, 1);
    r->state = REG_SEEN;
    gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), host_reg_quark (),
        r, host_reg_free);
  } else if (r->state == REG_SEEN) {
    int err = -1;
    if (reg_bytes + (gint64) size <= pinned_limit ())
      err = ci_cuda_host_register (ptr, size);
    if (err == 0) {
      r->state = REG_LOCKED;
      r->ptr = ptr;
      r->size = size;
      r->context = gst_object_ref (context);
      reg_bytes += size;
    } else {
      /* a page shared with memory locked already, a read-only mapping,
       * the limit: staged for good */
      GST_INFO ("memory %p (%" G_GSIZE_FORMAT " bytes) not page-locked: %s",
          ptr, size, err < 0 ? "limit" : ci_cuda_error_string (err));
      r->state = REG_REFUSED;
    }
  }
  const gboolean ready = r->state == REG_LOCKED && ptr >= r->ptr &&
      ptr + size <= r->ptr + r->size;
  g_mutex_unlock (&reg_lock);
  return ready;
}
