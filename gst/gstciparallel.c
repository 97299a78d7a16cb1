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
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstciparallel.h"
#include "cislices.h"

typedef struct
{
  GstCiSliceFunc func;
  gpointer user;
  guint slice;
  gint first, end;
} Task;

struct _GstCiParallel
{
  GThreadPool *pool;            /* made at the first run with 2+ slices */
  GMutex lock;
  GCond done;
  guint pending;
};

GstCiParallel *
gst_ci_parallel_new (void)
{
  GstCiParallel *par = g_new0 (GstCiParallel, 1);
  g_mutex_init (&par->lock);
  g_cond_init (&par->done);
  return par;
}

void
gst_ci_parallel_free (GstCiParallel * par)
{
  if (!par)
    return;
  if (par->pool)
    g_thread_pool_free (par->pool, FALSE, TRUE);
  g_mutex_clear (&par->lock);
  g_cond_clear (&par->done);
  g_free (par);
}

guint
gst_ci_parallel_slices (GObject * obj, const guint * n_threads, gsize bytes)
{
  GST_OBJECT_LOCK (obj);
  guint threads = *n_threads;
  GST_OBJECT_UNLOCK (obj);
  if (!threads)
    threads = MAX (1, g_get_num_processors ());
  const gchar *e = g_getenv ("CI_MIN_SLICE_BYTES");
  const gsize min = e && *e ? MAX (g_ascii_strtoull (e, NULL, 10), 1) :
      256 * 1024;
  return (guint) MIN (threads, MAX (1, bytes / min));
}

static void
run_task (gpointer data, gpointer user_data)
{
  Task *t = data;
  GstCiParallel *par = user_data;
  t->func (t->user, t->slice, t->first, t->end);
  g_mutex_lock (&par->lock);
  if (--par->pending == 0)
    g_cond_signal (&par->done);
  g_mutex_unlock (&par->lock);
}

guint
gst_ci_parallel_run (GstCiParallel * par, guint max_slices, gint n,
    gint align, GstCiSliceFunc func, gpointer user)
{
  if (n <= 0)
    return 0;
  const gint units = (n + align - 1) / align;
  guint slices = MIN (MAX (max_slices, 1u), (guint) units);
  if (slices > 1 && !par->pool) {
    /* shared threads (not exclusive): GLib keeps idle ones for any pool */
    par->pool = g_thread_pool_new (run_task, par, -1, FALSE, NULL);
    if (!par->pool)
      slices = 1;
  }
  Task *tasks = g_newa (Task, slices);
  for (guint s = 0; s < slices; s++) {
    tasks[s].func = func;
    tasks[s].user = user;
    tasks[s].slice = s;
    ci_slice_bounds (n, align, slices, s, &tasks[s].first, &tasks[s].end);
  }
  par->pending = slices - 1;
  for (guint s = 1; s < slices; s++)
    g_thread_pool_push (par->pool, &tasks[s], NULL);
  func (user, 0, tasks[0].first, tasks[0].end);
  g_mutex_lock (&par->lock);
  while (par->pending > 0)
    g_cond_wait (&par->done, &par->lock);
  g_mutex_unlock (&par->lock);
  return slices;
}

guint
gst_ci_parallel_runner (gpointer data, guint max_slices, gint n, gint align,
    GstCiSliceFunc func, gpointer user)
{
  return gst_ci_parallel_run (data, max_slices, n, align, func, user);
}

void
gst_ci_install_n_threads (GObjectClass * klass, guint prop_id)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_uint ("n-threads", "Threads",
          "Threads that share the rows of a frame (0: one per processor); "
          "the output is the same for any number",
          0, 1024, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
}

gboolean
gst_ci_set_n_threads (GObject * obj, guint prop_id, guint id,
    const GValue * v, guint * n_threads)
{
  if (id != prop_id)
    return FALSE;
  GST_OBJECT_LOCK (obj);
  *n_threads = g_value_get_uint (v);
  GST_OBJECT_UNLOCK (obj);
  return TRUE;
}

gboolean
gst_ci_get_n_threads (GObject * obj, guint prop_id, guint id, GValue * v,
    const guint * n_threads)
{
  if (id != prop_id)
    return FALSE;
  GST_OBJECT_LOCK (obj);
  g_value_set_uint (v, *n_threads);
  GST_OBJECT_UNLOCK (obj);
  return TRUE;
}
