/* gst-cuda-imaging: a frame's work in slices, for the references'
 * multi-threaded forms (sgm_ref_compute_mt, ci_tonemap_set_runner,
 * ci_fb_ref_process_mt) and the runners that serve them.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Items [first, end) of a stage (rows, views, planes), slice number
 * @slice (0 ..). */
typedef void (*CiSliceFn) (void *user, unsigned slice, int first, int end);

/* Calls @fn on at most @max_slices contiguous slices of [0, @n) (inner
 * bounds multiples of @align, see ci_slice_bounds), which may run at
 * once, and returns the number of slices once every call has returned. */
typedef unsigned (*CiRunner) (void *data, unsigned max_slices, int n,
    int align, CiSliceFn fn, void *user);

/* Slice @i of @k over [0, @n) in units of @align: [*first, *end). */
static inline void
ci_slice_bounds (int n, int align, unsigned k, unsigned i, int *first,
    int *end)
{
  const int units = (n + align - 1) / align;
  const int b = (int) ((long long) units * (i + 1) / k) * align;
  *first = (int) ((long long) units * i / k) * align;
  *end = b < n ? b : n;
}

/* Through @run when there is one and more than one slice is allowed, else
 * one slice on the caller's thread; the number of slices. */
static inline unsigned
ci_run_slices (CiRunner run, void *data, unsigned max_slices, int n,
    int align, CiSliceFn fn, void *user)
{
  if (run && max_slices > 1)
    return run (data, max_slices, n, align, fn, user);
  fn (user, 0, 0, n);
  return 1;
}
