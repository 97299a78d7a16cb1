/* gst-cuda-imaging: Semi-Global Matching, C reference.
 *
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

/* The inner loops (over d; over x in the census and the median) run on
 * plain arrays; let GCC vectorise them. */
#pragma GCC optimize ("O3")

#include "sgm.h"
#include "ciclones.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void
sgm_params_init (SgmParams * p, int width, int height)
{
  memset (p, 0, sizeof *p);
  p->width = width;
  p->height = height;
  p->num_disp = 64;
  p->min_disp = 0;
  /* chosen on tsukuba/venus/cones, see docs/sgm.md */
  p->p1 = 20;
  p->p2 = 90;
  p->paths = 8;
  p->census = SGM_CENSUS_9X7;
  p->uniqueness = 973;          /* 0.95 */
  p->lr_max_diff = -1;
  p->subpixel = 1;
  p->median = 1;
}

/* Census from the luma with a replicated border, one output row at a time:
 * for each window position in raster order (the order of
 * sgm_census_from_window), every pixel of the row shifts in its bit.  The
 * loops over x work on int16 lanes (8 per SSE2 register): the luma is kept
 * as luma - 32768, which orders like the luma, and the bits are collected in
 * four 16-bit words per pixel; word q holds bits 16q .. 16q + 15 of the
 * result, where the k-th bit of the window (of nbits) belongs at bit
 * nbits - 1 - k. */
static void
census_rows (const int16_t * lum, int pw, int width, int height, int census,
    uint16_t * words, uint64_t * out)
{
  const int nbits = sgm_census_bits (census);
  for (int y = 0; y < height; y++) {
    /* lum row y + r holds image row y + r - 3, column x + c image x + c - 4 */
    const int16_t *centre = lum + (size_t) (y + 3) * pw + 4;
    memset (words, 0, 4 * (size_t) width * sizeof *words);
    int k = 0;                  /* bits so far */
    for (int r = 0; r < 7; r++)
      for (int c = 0; c < 9; c++) {
        const int16_t *a = lum + (size_t) (y + r) * pw + c;
        uint16_t *w = words + (size_t) ((nbits - 1 - k) / 16) * width;
        if (census == SGM_CENSUS_SYM_9X7) {
          /* the 31 positions before the centre, each against its point mirror */
          if (!(r < 3 || (r == 3 && c < 4)))
            continue;
          const int16_t *b = lum + (size_t) (y + 6 - r) * pw + (8 - c);
          for (int x = 0; x < width; x++)
            w[x] = (uint16_t) ((w[x] << 1) | (a[x] >= b[x]));
        } else {
          if (r == 3 && c == 4)
            continue;
          for (int x = 0; x < width; x++)
            w[x] = (uint16_t) ((w[x] << 1) | (a[x] < centre[x]));
        }
        k++;
      }
    const uint16_t *w0 = words, *w1 = w0 + width, *w2 = w1 + width,
        *w3 = w2 + width;
    for (int x = 0; x < width; x++)
      out[(size_t) y * width + x] = (uint64_t) w3[x] << 48 |
          (uint64_t) w2[x] << 32 | (uint64_t) w1[x] << 16 | w0[x];
  }
}

void
sgm_ref_census (const uint8_t * img, size_t stride, SgmLuma luma,
    int width, int height, int census, uint64_t * out)
{
  /* luma once per pixel, then the windows from it */
  const int pw = width + 8;
  int16_t *lum = malloc ((size_t) pw * (height + 6) * sizeof *lum);
  uint16_t *words = malloc (4 * (size_t) width * sizeof *words);
  if (!lum || !words) {
    /* no memory for the luma image: read the input for every window */
    int win[7][9];
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) {
        for (int r = 0; r < 7; r++)
          for (int c = 0; c < 9; c++)
            win[r][c] = sgm_luma_at (img, stride, luma,
                sgm_clampi (x + c - 4, 0, width - 1),
                sgm_clampi (y + r - 3, 0, height - 1));
        out[(size_t) y * width + x] = sgm_census_from_window (win, census);
      }
  } else {
    /* lum is the luma with a replicated 4 (x) / 3 (y) pixel border, so the
     * windows need no clamping */
    for (int y = 0; y < height + 6; y++)
      for (int x = 0; x < pw; x++)
        lum[(size_t) y * pw + x] = (int16_t) (sgm_luma_at (img, stride, luma,
                sgm_clampi (x - 4, 0, width - 1), sgm_clampi (y - 3, 0,
                    height - 1)) - 32768);
    census_rows (lum, pw, width, height, census, words, out);
  }
  free (lum);
  free (words);
}

/* rows [y0, y1) of sgm_ref_cost_volume (Hamming distances are popcounts:
 * the instruction where the CPU has it) */
static CI_CLONES ("popcnt") void
cost_rows (const uint64_t * cl, const uint64_t * cr, const SgmParams * p,
    uint8_t * cost, int y0, int y1)
{
  /* locals: stores through the uint8_t cost pointer could alias *p */
  const int W = p->width, D = p->num_disp, mind = p->min_disp;
  const uint8_t cmax = (uint8_t) sgm_census_bits (p->census);
  for (int y = y0; y < y1; y++) {
    const uint64_t *cr_row = cr + (size_t) y * W;
    for (int x = 0; x < W; x++) {
      const uint64_t l = cl[(size_t) y * W + x];
      uint8_t *c = cost + ((size_t) y * W + x) * D;
      /* xr = x - min - d lies in the image for d in [lo, hi]; the maximum
       * cost below and above */
      const int lo = sgm_clampi (x - mind - (W - 1), 0, D);
      const int hi = sgm_clampi (x - mind, -1, D - 1);
      for (int d = 0; d < lo; d++)
        c[d] = cmax;
      for (int d = lo; d <= hi; d++)
        c[d] = (uint8_t) sgm_popcount64 (l ^ cr_row[x - mind - d]);
      for (int d = hi + 1 > lo ? hi + 1 : lo; d < D; d++)
        c[d] = cmax;
    }
  }
}

void
sgm_ref_cost_volume (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost)
{
  cost_rows (cl, cr, p, cost, 0, p->height);
}

/* ---- path aggregation ----
 *
 * L = C + min (...) - prev_min with the min at most prev_min + p2, so
 * 0 <= L <= 64 + p2 <= 2064 (a cost is a popcount; p1, p2 <= SGM_MAX_P as
 * sgm_params_valid requires, as the CUDA kernels also assume), and
 * prev_min + p2 and the sentinel + p1 below stay under 32768: the working
 * rows are int16, which SSE2 handles 8 at a time (pminsw).  Sums are uint16
 * as in the API; adding mod 2^16 in any order gives the same sum. */

#if defined(__GNUC__)
#define SGM_INLINE static inline __attribute__ ((always_inline))
#else
#define SGM_INLINE static inline
#endif

/* "No dependence between iterations": the row pointers of different paths
 * never overlap (and out is never prev), which GCC cannot prove by itself. */
#if defined(__GNUC__) && !defined(__clang__)
#define SGM_IVDEP _Pragma ("GCC ivdep")
#else
#define SGM_IVDEP
#endif

/* The most paths one sweep handles. */
#define SGM_SWEEP_MAX 4

/* Two sweeps that add into one sum at once (sgm_ref_compute_mt): whichever
 * comes to a row first sets it, the other adds to it once it is set. The
 * sums are uint16 mod 2^16, so the order does not change them. */
typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t set;
  unsigned char *state;         /* per row: 0 not yet, 1 being set, 2 set */
} SgmGate;

/* 1: set row y; 0: add to it (it is set) */
static int
gate_enter (SgmGate * g, int y)
{
  pthread_mutex_lock (&g->lock);
  while (g->state[y] == 1)
    pthread_cond_wait (&g->set, &g->lock);
  const int first = g->state[y] == 0;
  if (first)
    g->state[y] = 1;
  pthread_mutex_unlock (&g->lock);
  return first;
}

static void
gate_leave (SgmGate * g, int y, int first)
{
  if (!first)
    return;
  pthread_mutex_lock (&g->lock);
  g->state[y] = 2;
  pthread_cond_broadcast (&g->set);
  pthread_mutex_unlock (&g->lock);
}

/* prev[-1] and prev[D] hold this: + p1 it never beats prev_min + p2, and the
 * sum stays in int16. */
#define SGM_SENTINEL ((int16_t) (INT16_MAX - SGM_MAX_P))

/* One pixel of @n paths (n is a constant at each call): for each path k,
 * L_k = sgm_aggregate_step at every d (in int16) from the previous pixel's
 * L @prev[k] (framed by sentinels) and its minimum @prev_min[k]; L_k goes
 * to @out[k], its minimum over d to @mn[k], and the sum over k of L_k is
 * stored to (@store) or added to @acc.  One branch-free loop over d. */
SGM_INLINE void
sweep_pixel (const uint8_t * restrict c, const int16_t * const *prev,
    const int16_t * prev_min, int16_t * const *out, int16_t * mn,
    uint16_t * restrict acc, int D, int16_t p1, int16_t p2, const int n,
    const int store)
{
  int16_t jump[SGM_SWEEP_MAX], m[SGM_SWEEP_MAX];
  for (int k = 0; k < n; k++) {
    jump[k] = (int16_t) (prev_min[k] + p2);
    m[k] = INT16_MAX;
  }
  SGM_IVDEP
  for (int d = 0; d < D; d++) {
    uint16_t s = store ? 0 : acc[d];
    for (int k = 0; k < n; k++) {
      const int16_t *pv = prev[k];
      int16_t lo = pv[d - 1], hi = pv[d + 1], v = pv[d];
      int16_t t = (int16_t) ((lo < hi ? lo : hi) + p1);
      v = t < v ? t : v;
      v = jump[k] < v ? jump[k] : v;
      int16_t l = (int16_t) (c[d] + v - prev_min[k]);
      out[k][d] = l;
      m[k] = l < m[k] ? l : m[k];
      s = (uint16_t) (s + l);
    }
    acc[d] = s;
  }
  for (int k = 0; k < n; k++)
    mn[k] = m[k];
}

/* Paths @dirs[0..n-1] in one sweep over the image: rows in the order of the
 * paths' dy, pixels of a row in the order of their dx.  All paths of one
 * sweep must agree: no dy > 0 with dy < 0, and the dx of every dy == 0 path
 * the same sign (the previous pixel of a dy == 0 path is in the row being
 * computed; for the others it is in the previous row, already complete).
 * acc = (accumulate ? acc : 0) + the sum of the paths; with @gate, a row
 * is set or added to as the gate says.  @D is p->num_disp (a constant in
 * some copies, see aggregate_sweep). */
SGM_INLINE int
sweep (const uint8_t * cost, const SgmParams * p, const int *dirs,
    const int n, uint16_t * acc, int accumulate, SgmGate * gate, const int D)
{
  const int W = p->width, H = p->height;
  const int16_t p1 = (int16_t) p->p1;
  const int16_t p2 = (int16_t) sgm_effective_p2 (p->p1, p->p2);
  int up = 0, leftward = 0, dx[SGM_SWEEP_MAX], dy[SGM_SWEEP_MAX];
  for (int k = 0; k < n; k++) {
    dx[k] = sgm_dir_dx (dirs[k]);
    dy[k] = sgm_dir_dy (dirs[k]);
    up |= dy[k] < 0;
    leftward |= dy[k] == 0 && dx[k] < 0;
  }
  /* Per path two rows (this one, the previous one along the path) of W + 2
   * pixels, x = -1 .. W, each pixel's D values framed by one sentinel on
   * either side, and each pixel's minimum over d. */
  const size_t ps = (size_t) D + 2, rl = (size_t) (W + 2) * ps;
  int16_t *rows = malloc (2 * n * rl * sizeof *rows);
  int16_t *mins = malloc (2 * n * (size_t) (W + 2) * sizeof *mins);
  if (!rows || !mins) {
    free (rows);
    free (mins);
    return -1;
  }
  /* Everything starts at L = 0 and minimum 0: the row before the first and
   * the pixels x = -1 and x = W (never written) stay so.  A step from there
   * gives L = C (prev = prev_min = 0 and p1, p2 >= 0), which is the first
   * pixel of a path, so the loops below have no edge cases. */
  for (size_t i = 0; i < 2 * n * (size_t) (W + 2); i++) {
    int16_t *px = rows + i * ps;
    px[0] = px[ps - 1] = SGM_SENTINEL;
    memset (px + 1, 0, (size_t) D * sizeof *px);
  }
  memset (mins, 0, 2 * n * (size_t) (W + 2) * sizeof *mins);

  for (int i = 0; i < H; i++) {
    const int y = up ? H - 1 - i : i;
    const int cur = i & 1, prv = cur ^ 1;       /* which of the two rows */
    const int set = gate ? gate_enter (gate, y) : !accumulate;
    /* per path: pixel x's L goes to lrow + x * ps, its minimum to lmin[x];
     * its previous pixel's are at prow + x * ps and pmin[x] */
    const int16_t *prow[SGM_SWEEP_MAX], *pmin[SGM_SWEEP_MAX];
    int16_t *lrow[SGM_SWEEP_MAX], *lmin[SGM_SWEEP_MAX];
    for (int k = 0; k < n; k++) {
      const int from = dy[k] == 0 ? cur : prv;
      prow[k] = rows + (2 * k + from) * rl + (1 - dx[k]) * ps + 1;
      pmin[k] = mins + (2 * k + from) * (size_t) (W + 2) + 1 - dx[k];
      lrow[k] = rows + (2 * k + cur) * rl + ps + 1;
      lmin[k] = mins + (2 * k + cur) * (size_t) (W + 2) + 1;
    }
    for (int j = 0; j < W; j++) {
      const int x = leftward ? W - 1 - j : j;
      const size_t pix = (size_t) y * W + x;
      const int16_t *prev[SGM_SWEEP_MAX];
      int16_t prev_min[SGM_SWEEP_MAX], *out[SGM_SWEEP_MAX], mn[SGM_SWEEP_MAX];
      for (int k = 0; k < n; k++) {
        prev[k] = prow[k] + x * ps;
        prev_min[k] = pmin[k][x];
        out[k] = lrow[k] + x * ps;
      }
      if (!set)
        sweep_pixel (cost + pix * D, prev, prev_min, out, mn, acc + pix * D,
            D, p1, p2, n, 0);
      else
        sweep_pixel (cost + pix * D, prev, prev_min, out, mn, acc + pix * D,
            D, p1, p2, n, 1);
      for (int k = 0; k < n; k++)
        lmin[k][x] = mn[k];
    }
    if (gate)
      gate_leave (gate, y, set);
  }
  free (rows);
  free (mins);
  return 0;
}

/* sweep() with n, and for the usual search ranges D, constants in each
 * copy: the loops over the paths unroll and the loop over d vectorises with
 * no remainder code (it matters most for small D). */
static int
aggregate_sweep (const uint8_t * cost, const SgmParams * p, const int *dirs,
    int n, uint16_t * acc, int accumulate, SgmGate * gate)
{
  const int D = p->num_disp;
  if (n == 4) {
    switch (D) {
      case 16:
        return sweep (cost, p, dirs, 4, acc, accumulate, gate, 16);
      case 32:
        return sweep (cost, p, dirs, 4, acc, accumulate, gate, 32);
      case 64:
        return sweep (cost, p, dirs, 4, acc, accumulate, gate, 64);
      case 128:
        return sweep (cost, p, dirs, 4, acc, accumulate, gate, 128);
      default:
        return sweep (cost, p, dirs, 4, acc, accumulate, gate, D);
    }
  }
  if (n == 2)
    return sweep (cost, p, dirs, 2, acc, accumulate, gate, D);
  if (n == 1)
    return sweep (cost, p, dirs, 1, acc, accumulate, gate, D);
  return -1;
}

int
sgm_ref_aggregate_path (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, int dir, uint16_t * acc, int accumulate)
{
  uint8_t *cost = malloc ((size_t) p->width * p->height * p->num_disp);
  if (!cost)
    return -1;
  sgm_ref_cost_volume (cl, cr, p, cost);
  int ret = aggregate_sweep (cost, p, &dir, 1, acc, accumulate, NULL);
  free (cost);
  return ret;
}

/* the paths of sweep @up (0: down, left to right; 1: up, right to left),
 * each with half the paths (*n) */
static const int *
sweep_dirs (const SgmParams * p, int up, int *n)
{
  static const int down8[] = { 0, 2, 4, 5 }, up8[] = { 1, 3, 6, 7 };
  static const int down4[] = { 0, 2 }, up4[] = { 1, 3 };
  *n = p->paths == 8 ? 4 : 2;
  return p->paths == 8 ? (up ? up8 : down8) : (up ? up4 : down4);
}

int
sgm_ref_aggregate (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint16_t * sum)
{
  /* the costs once, then two sweeps: down (left to right) and up (right to
   * left), each with half the paths; S is the same sum in another order */
  uint8_t *cost = malloc ((size_t) p->width * p->height * p->num_disp);
  if (!cost)
    return -1;
  sgm_ref_cost_volume (cl, cr, p, cost);
  int ret = 0;
  for (int up = 0; up <= 1 && ret == 0; up++) {
    int n;
    const int *dirs = sweep_dirs (p, up, &n);
    ret = aggregate_sweep (cost, p, dirs, n, sum, up, NULL);
  }
  free (cost);
  return ret;
}

/* rows [y0, y1) of sgm_ref_wta_left */
static void
wta_left_rows (const uint16_t * sum, const SgmParams * p, int16_t * disp,
    int16_t * dint, int y0, int y1)
{
  const int D = p->num_disp;
  const size_t i1 = (size_t) p->width * y1;
  for (size_t i = (size_t) p->width * y0; i < i1; i++) {
    const uint16_t *s = sum + i * D;
    /* the minimum, then its first index; uint16 minima vectorise */
    uint16_t mv = 0xffff;
    for (int d = 0; d < D; d++)
      mv = s[d] < mv ? s[d] : mv;
    int best = 0;
    while (s[best] != mv)
      best++;
    uint16_t second = 0xffff;   /* min over |d - best| > 1 */
    for (int d = 0; d < best - 1; d++)
      second = s[d] < second ? s[d] : second;
    for (int d = best + 2; d < D; d++)
      second = s[d] < second ? s[d] : second;
    dint[i] = (int16_t) best;
    if (!sgm_unique_ok (s[best], second, p->uniqueness)) {
      disp[i] = SGM_INVALID;
      continue;
    }
    int v = (p->min_disp + best) * SGM_DISP_SCALE;
    if (p->subpixel && best > 0 && best < D - 1)
      v += sgm_subpixel_offset (s[best - 1], s[best], s[best + 1]);
    disp[i] = (int16_t) v;
  }
}

void
sgm_ref_wta_left (const uint16_t * sum, const SgmParams * p,
    int16_t * disp, int16_t * dint)
{
  wta_left_rows (sum, p, disp, dint, 0, p->height);
}

/* rows [y0, y1) of sgm_ref_wta_right */
static void
wta_right_rows (const uint16_t * sum, const SgmParams * p, int16_t * dright,
    int y0, int y1)
{
  const int W = p->width, D = p->num_disp;
  for (int y = y0; y < y1; y++) {
    for (int xr = 0; xr < W; xr++) {
      int best = -1, bestv = 0;
      for (int d = 0; d < D; d++) {
        int x = xr + p->min_disp + d;
        if (x < 0 || x >= W)
          continue;
        int v = sum[((size_t) y * W + x) * D + d];
        if (best < 0 || v < bestv) {
          best = d;
          bestv = v;
        }
      }
      dright[(size_t) y * W + xr] = (int16_t) best;
    }
  }
}

void
sgm_ref_wta_right (const uint16_t * sum, const SgmParams * p,
    int16_t * dright)
{
  wta_right_rows (sum, p, dright, 0, p->height);
}

/* rows [y0, y1) of sgm_ref_lr_check */
static void
lr_rows (int16_t * disp, const int16_t * dint, const int16_t * dright,
    const SgmParams * p, int y0, int y1)
{
  const int W = p->width;
  if (p->lr_max_diff < 0)
    return;
  for (int y = y0; y < y1; y++) {
    for (int x = 0; x < W; x++) {
      size_t i = (size_t) y * W + x;
      if (disp[i] == SGM_INVALID)
        continue;
      int xr = x - p->min_disp - dint[i];
      int dr = (xr >= 0 && xr < W) ? dright[(size_t) y * W + xr] : -1;
      int diff = dr - dint[i];
      if (dr < 0 || diff > p->lr_max_diff || -diff > p->lr_max_diff)
        disp[i] = SGM_INVALID;
    }
  }
}

void
sgm_ref_lr_check (int16_t * disp, const int16_t * dint,
    const int16_t * dright, const SgmParams * p)
{
  lr_rows (disp, dint, dright, p, 0, p->height);
}

/* Sort a pair: *a gets the smaller value. */
SGM_INLINE void
sort2 (int16_t * a, int16_t * b)
{
  int16_t lo = *a < *b ? *a : *b, hi = *a < *b ? *b : *a;
  *a = lo;
  *b = hi;
}

/* The same value as sgm_median9 (the 5th smallest of the 9, plain int16
 * order, so SGM_INVALID = INT16_MIN is lowest), from the 19 compare-swaps
 * of the known median-of-9 network (Paeth, Graphics Gems, 1990): only
 * min/max, so the loop over x below vectorises. */
SGM_INLINE int16_t
median9_network (int16_t a0, int16_t a1, int16_t a2, int16_t a3, int16_t a4,
    int16_t a5, int16_t a6, int16_t a7, int16_t a8)
{
  int16_t v[9] = { a0, a1, a2, a3, a4, a5, a6, a7, a8 };
  sort2 (&v[1], &v[2]);
  sort2 (&v[4], &v[5]);
  sort2 (&v[7], &v[8]);
  sort2 (&v[0], &v[1]);
  sort2 (&v[3], &v[4]);
  sort2 (&v[6], &v[7]);
  sort2 (&v[1], &v[2]);
  sort2 (&v[4], &v[5]);
  sort2 (&v[7], &v[8]);
  sort2 (&v[0], &v[3]);
  sort2 (&v[5], &v[8]);
  sort2 (&v[4], &v[7]);
  sort2 (&v[3], &v[6]);
  sort2 (&v[1], &v[4]);
  sort2 (&v[2], &v[5]);
  sort2 (&v[4], &v[7]);
  sort2 (&v[4], &v[2]);
  sort2 (&v[6], &v[4]);
  sort2 (&v[4], &v[2]);
  return v[4];
}

/* rows [y0, y1) of sgm_ref_median */
static void
median_rows (const int16_t * in, int16_t * out, int width, int height,
    int y0, int y1)
{
  /* each row with its edge pixels repeated (x = -1 and x = width) */
  int16_t *pad = malloc (3 * (size_t) (width + 2) * sizeof *pad);
  if (!pad) {
    /* no memory: one pixel at a time with sgm_median9 */
    int16_t v[9];
    for (int y = y0; y < y1; y++)
      for (int x = 0; x < width; x++) {
        int k = 0;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++)
            v[k++] = in[(size_t) sgm_clampi (y + dy, 0, height - 1) * width +
                sgm_clampi (x + dx, 0, width - 1)];
        out[(size_t) y * width + x] = sgm_median9 (v);
      }
    return;
  }
  for (int y = y0; y < y1; y++) {
    int16_t *r[3];
    for (int k = 0; k < 3; k++) {
      const int16_t *src = in +
          (size_t) sgm_clampi (y + k - 1, 0, height - 1) * width;
      r[k] = pad + (size_t) k * (width + 2);
      memcpy (r[k] + 1, src, (size_t) width * sizeof *src);
      r[k][0] = src[0];
      r[k][width + 1] = src[width - 1];
    }
    const int16_t *a = r[0], *b = r[1], *c = r[2];
    int16_t *o = out + (size_t) y * width;
    for (int x = 0; x < width; x++)
      o[x] = median9_network (a[x], a[x + 1], a[x + 2], b[x], b[x + 1],
          b[x + 2], c[x], c[x + 1], c[x + 2]);
  }
  free (pad);
}

void
sgm_ref_median (const int16_t * in, int16_t * out, int width, int height)
{
  median_rows (in, out, width, height, 0, height);
}

void
sgm_ref_convert (const int16_t * disp, int width, int height,
    uint8_t * out, size_t pitch, SgmOutFormat fmt, const SgmParams * p)
{
  const int bpp = sgm_out_bytes (fmt);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      sgm_out_pixel (disp[(size_t) y * width + x], fmt, p->min_disp,
          p->num_disp, out + (size_t) y * pitch + (size_t) x * bpp);
}

enum
{ STAGE_CENSUS, STAGE_COST, STAGE_SWEEPS, STAGE_WTA, STAGE_MEDIAN };

typedef struct
{
  const SgmParams *p;
  const uint8_t *view[2];
  size_t stride[2];
  SgmLuma luma;
  uint64_t *census[2];
  uint8_t *cost;
  uint16_t *sum;
  int16_t *disp, *dint, *dr, *tmp;
  SgmGate *gate;
  int stage, failed;
} SgmJob;

/* Items [first, end) of the job's stage: views, sweeps (0 down, 1 up) or
 * rows. */
static void
job_slice (void *user, unsigned slice, int first, int end)
{
  SgmJob *j = user;
  const SgmParams *p = j->p;
  (void) slice;
  switch (j->stage) {
    case STAGE_CENSUS:
      for (int i = first; i < end; i++)
        sgm_ref_census (j->view[i], j->stride[i], j->luma, p->width,
            p->height, p->census, j->census[i]);
      break;
    case STAGE_COST:
      cost_rows (j->census[0], j->census[1], p, j->cost, first, end);
      break;
    case STAGE_SWEEPS:
      /* both in one slice: one after the other, the second adding */
      for (int i = first; i < end; i++) {
        int n;
        const int *dirs = sweep_dirs (p, i, &n);
        if (aggregate_sweep (j->cost, p, dirs, n, j->sum, i,
                end - first == 2 ? NULL : j->gate) != 0)
          __atomic_store_n (&j->failed, 1, __ATOMIC_RELAXED);
      }
      break;
    case STAGE_WTA:{
      int16_t *d = p->median ? j->tmp : j->disp;
      wta_left_rows (j->sum, p, d, j->dint, first, end);
      if (p->lr_max_diff >= 0) {
        wta_right_rows (j->sum, p, j->dr, first, end);
        lr_rows (d, j->dint, j->dr, p, first, end);
      }
      break;
    }
    case STAGE_MEDIAN:
      median_rows (j->tmp, j->disp, p->width, p->height, first, end);
      break;
  }
}

static void
run_stage (SgmJob * j, int stage, int n, CiRunner run, void *data,
    unsigned max_slices)
{
  j->stage = stage;
  ci_run_slices (run, data, max_slices, n, 1, job_slice, j);
}

int
sgm_ref_compute_mt (const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma, int16_t * disp,
    CiRunner run, void *data, unsigned max_slices)
{
  if (sgm_params_valid (p) < 0)
    return -1;
  const size_t n = (size_t) p->width * p->height;
  const int H = p->height;
  int ret = -1;
  SgmGate gate;
  SgmJob j = { p, {left, right}, {left_stride, right_stride}, luma };
  j.census[0] = malloc (n * sizeof (uint64_t));
  j.census[1] = malloc (n * sizeof (uint64_t));
  j.cost = malloc (n * p->num_disp);
  j.sum = malloc (n * p->num_disp * sizeof *j.sum);
  j.dint = malloc (n * sizeof *j.dint);
  j.dr = malloc (n * sizeof *j.dr);
  j.tmp = malloc (n * sizeof *j.tmp);
  j.disp = disp;
  gate.state = calloc ((size_t) H, 1);
  pthread_mutex_init (&gate.lock, NULL);
  pthread_cond_init (&gate.set, NULL);
  j.gate = &gate;
  if (!j.census[0] || !j.census[1] || !j.cost || !j.sum || !j.dint || !j.dr
      || !j.tmp || !gate.state)
    goto done;
  run_stage (&j, STAGE_CENSUS, 2, run, data, max_slices);
  run_stage (&j, STAGE_COST, H, run, data, max_slices);
  run_stage (&j, STAGE_SWEEPS, 2, run, data, max_slices);
  if (j.failed)
    goto done;
  run_stage (&j, STAGE_WTA, H, run, data, max_slices);
  if (p->median)
    run_stage (&j, STAGE_MEDIAN, H, run, data, max_slices);
  ret = 0;
done:
  free (j.census[0]);
  free (j.census[1]);
  free (j.cost);
  free (j.sum);
  free (j.dint);
  free (j.dr);
  free (j.tmp);
  free (gate.state);
  pthread_mutex_destroy (&gate.lock);
  pthread_cond_destroy (&gate.set);
  return ret;
}

int
sgm_ref_compute (const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma, int16_t * disp)
{
  return sgm_ref_compute_mt (p, left, left_stride, right, right_stride, luma,
      disp, NULL, NULL, 1);
}
