/* gst-cuda-imaging: rows of a frame on several threads, for the cpu* twins
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* @slice (0 ..) covers rows [@first, @end) */
typedef void (*GstCiSliceFunc) (gpointer user, guint slice, gint first,
    gint end);

typedef struct _GstCiParallel GstCiParallel;

GstCiParallel *gst_ci_parallel_new (void);
void gst_ci_parallel_free (GstCiParallel * par);

/* How many slices a frame of @bytes takes for @obj's n-threads property
 * *@n_threads (read under the object lock; 0: one thread per processor):
 * at most one per 256 KiB (below, another thread costs more than it
 * saves); CI_MIN_SLICE_BYTES=N sets that size, for tests. */
guint gst_ci_parallel_slices (GObject * obj, const guint * n_threads,
    gsize bytes);

/* Splits rows [0, @n) into at most @max_slices contiguous slices whose
 * inner bounds are multiples of @align, calls @func on each (the calling
 * thread takes slice 0, pool threads the others) and returns the number
 * of slices once every call has returned. */
guint gst_ci_parallel_run (GstCiParallel * par, guint max_slices, gint n,
    gint align, GstCiSliceFunc func, gpointer user);
/* gst_ci_parallel_run with the GstCiParallel as @data: the references'
 * CiRunner (cislices.h) */
guint gst_ci_parallel_runner (gpointer data, guint max_slices, gint n,
    gint align, GstCiSliceFunc func, gpointer user);

/* The cpu* twins' "n-threads" property (guint, 0 = one per processor,
 * the default; changeable while playing: it applies from the next frame). */
void gst_ci_install_n_threads (GObjectClass * klass, guint prop_id);
/* The property's value to and from *@n_threads, under the object lock;
 * FALSE where @id is not @prop_id (another property). */
gboolean gst_ci_set_n_threads (GObject * obj, guint prop_id, guint id,
    const GValue * v, guint * n_threads);
gboolean gst_ci_get_n_threads (GObject * obj, guint prop_id, guint id,
    GValue * v, const guint * n_threads);

G_END_DECLS
