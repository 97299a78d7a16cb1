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
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

/* System memory in page-locked (pinned) host pages, which the GPU copies
 * from and to directly: the cuda* elements offer pools of it for their
 * system-memory sides, so that a frame needs no copy into staging. The
 * memory is plain system memory to everyone else. */
#define GST_TYPE_CI_PINNED_ALLOCATOR (gst_ci_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCiPinnedAllocator, gst_ci_pinned_allocator,
    GST, CI_PINNED_ALLOCATOR, GstAllocator)

/* An allocator of pinned memory in @context's name (the memory keeps a
 * reference to it, to free its pages). Where the driver refuses pages, or
 * past 2 GiB pinned through it at once (CI_PINNED_MAX_MB sets another
 * limit), it gives ordinary system memory instead. NULL when pinned memory
 * is turned off (CI_NO_PINNED_POOLS=1, to measure against staging). */
GstAllocator *gst_ci_pinned_allocator_new (GstCudaContext * context);

/* TRUE when the GPU can copy from and to all of @buf (one memory) by
 * DMA: pinned memory from a #GstCiPinnedAllocator, or ordinary memory
 * that comes again (a pool's, recycled), page-locked in place on its
 * second sighting and released with the memory. Memory seen once, shared
 * pages, read-only mappings and anything past the limit of pinned bytes
 * stay FALSE (staged), as do memory other than plain system memory and
 * below 1 MiB. @context must be current; it releases the pages. */
gboolean gst_ci_buffer_dma_ready (GstBuffer * buf, GstCudaContext * context);

/* A video buffer pool whose memory comes from @allocator (a
 * #GstCiPinnedAllocator, referenced); its configuration is set by the
 * caller as usual (the allocator is set again in every configuration it is
 * given). */
GstBufferPool *gst_ci_pinned_pool_new (GstAllocator * allocator);

G_END_DECLS
