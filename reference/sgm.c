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

/* The inner loops run over d on plain arrays; let GCC vectorise them. */
#pragma GCC optimize ("O3")

#include "sgm.h"
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

int
sgm_params_check (const SgmParams * p)
{
  if (p->width < 1 || p->height < 1 || p->width > 32767 || p->height > 32767)
    return -1;
  if (p->num_disp < 1 || p->num_disp > SGM_MAX_DISP)
    return -1;
  if (p->min_disp < SGM_MIN_MIN_DISP || p->min_disp > SGM_MAX_MIN_DISP)
    return -1;
  if (p->p1 < 0 || p->p1 > SGM_MAX_P || p->p2 < 0 || p->p2 > SGM_MAX_P)
    return -1;
  if (p->paths != 4 && p->paths != 8)
    return -1;
  if (p->census != SGM_CENSUS_9X7 && p->census != SGM_CENSUS_SYM_9X7)
    return -1;
  if (p->uniqueness < 0 || p->uniqueness > SGM_UNIQ_ONE)
    return -1;
  return 0;
}

void
sgm_ref_census (const uint8_t * img, size_t stride, SgmLuma luma,
    int width, int height, int census, uint64_t * out)
{
  /* luma once per pixel, then the windows from it */
  int *lum = malloc ((size_t) (width + 8) * (height + 6) * sizeof *lum);
  int win[7][9];
  if (!lum) {
    /* no memory for the luma image: read the input for every window */
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) {
        for (int r = 0; r < 7; r++)
          for (int c = 0; c < 9; c++)
            win[r][c] = sgm_luma_at (img, stride, luma,
                sgm_clampi (x + c - 4, 0, width - 1),
                sgm_clampi (y + r - 3, 0, height - 1));
        out[(size_t) y * width + x] = sgm_census_from_window (win, census);
      }
    return;
  }
  /* lum is the luma with a replicated 4 (x) / 3 (y) pixel border, so the
   * windows below need no clamping */
  const int pw = width + 8;
  for (int y = 0; y < height + 6; y++)
    for (int x = 0; x < pw; x++)
      lum[(size_t) y * pw + x] = sgm_luma_at (img, stride, luma,
          sgm_clampi (x - 4, 0, width - 1), sgm_clampi (y - 3, 0, height - 1));
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      for (int r = 0; r < 7; r++)
        for (int c = 0; c < 9; c++)
          win[r][c] = lum[(size_t) (y + r) * pw + x + c];
      out[(size_t) y * width + x] = sgm_census_from_window (win, census);
    }
  }
  free (lum);
}

/* Hamming distances are popcounts: use the instruction where the CPU has it
 * (GCC picks the clone at load time; the result is the same either way). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SGM_POPCNT_CLONES __attribute__ ((target_clones ("popcnt", "default")))
#else
#define SGM_POPCNT_CLONES
#endif

SGM_POPCNT_CLONES void
sgm_ref_cost_volume (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost)
{
  const int W = p->width, D = p->num_disp;
  const int cmax = sgm_census_bits (p->census);
  for (int y = 0; y < p->height; y++) {
    const uint64_t *cr_row = cr + (size_t) y * W;
    for (int x = 0; x < W; x++) {
      const uint64_t l = cl[(size_t) y * W + x];
      uint8_t *c = cost + ((size_t) y * W + x) * D;
      /* xr = x - min - d lies in the image for d in [lo, hi] */
      const int lo = sgm_clampi (x - p->min_disp - (W - 1), 0, D);
      const int hi = sgm_clampi (x - p->min_disp, -1, D - 1);
      for (int d = 0; d < D; d++)
        c[d] = (uint8_t) cmax;
      for (int d = lo; d <= hi; d++)
        c[d] = (uint8_t) sgm_popcount64 (l ^ cr_row[x - p->min_disp - d]);
    }
  }
}

/* L at one pixel from the previous pixel on the path (prev == NULL: first).
 * prev[-1] and prev[D] exist and hold a value that never wins (see
 * aggregate_path_costs), so the loop has no edge cases and vectorises. */
static void
pixel_path (const uint8_t * c, const uint16_t * prev, const SgmParams * p,
    uint16_t * out)
{
  const int D = p->num_disp;
  const int p1 = p->p1, p2 = sgm_effective_p2 (p->p1, p->p2);
  if (!prev) {
    for (int d = 0; d < D; d++)
      out[d] = c[d];
    return;
  }
  int mn = prev[0];
  for (int d = 1; d < D; d++)
    mn = prev[d] < mn ? prev[d] : mn;
  for (int d = 0; d < D; d++)
    out[d] = (uint16_t) sgm_aggregate_step (c[d], prev[d], prev[d - 1],
        prev[d + 1], mn, p1, p2);
}

/* Path @dir from the cost volume (see sgm_ref_aggregate_path). */
static int
aggregate_path_costs (const uint8_t * cost, const SgmParams * p, int dir,
    uint16_t * acc, int accumulate)
{
  const int W = p->width, H = p->height, D = p->num_disp;
  const int dx = sgm_dir_dx (dir), dy = sgm_dir_dy (dir);
  /* Two rows of L (the row being computed and the one before along dy),
   * each pixel's D values framed by one sentinel on either side. */
  const size_t ps = (size_t) D + 2;
  uint16_t *rows = malloc (2 * W * ps * sizeof *rows);
  if (!rows)
    return -1;
  for (size_t i = 0; i < 2 * W * ps; i++)
    rows[i] = 0xffff - SGM_MAX_P;       /* + p1 never beats prev_min + p2 */
  uint16_t *cur = rows + 1, *prv = rows + W * ps + 1;
  for (int i = 0; i < H; i++) {
    const int y = dy >= 0 ? i : H - 1 - i;
    for (int j = 0; j < W; j++) {
      /* along dx so that, for dy == 0, the previous pixel is already done */
      const int x = dx >= 0 ? j : W - 1 - j;
      const int xp = x - dx;
      const uint16_t *prev = NULL;
      if (xp >= 0 && xp < W) {
        if (dy == 0)
          prev = cur + xp * ps;
        else if (i > 0)
          prev = prv + xp * ps;
      }
      uint16_t *out = cur + x * ps;
      const size_t pix = (size_t) y * W + x;
      pixel_path (cost + pix * D, prev, p, out);
      uint16_t *a = acc + pix * D;
      if (accumulate)
        for (int d = 0; d < D; d++)
          a[d] = (uint16_t) (a[d] + out[d]);
      else
        memcpy (a, out, (size_t) D * sizeof *a);
    }
    uint16_t *t = cur;
    cur = prv;
    prv = t;
  }
  free (rows);
  return 0;
}

int
sgm_ref_aggregate_path (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, int dir, uint16_t * acc, int accumulate)
{
  uint8_t *cost = malloc ((size_t) p->width * p->height * p->num_disp);
  if (!cost)
    return -1;
  sgm_ref_cost_volume (cl, cr, p, cost);
  int ret = aggregate_path_costs (cost, p, dir, acc, accumulate);
  free (cost);
  return ret;
}

int
sgm_ref_aggregate (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint16_t * sum)
{
  /* the costs once, then every path from them */
  uint8_t *cost = malloc ((size_t) p->width * p->height * p->num_disp);
  if (!cost)
    return -1;
  sgm_ref_cost_volume (cl, cr, p, cost);
  int ret = 0;
  for (int dir = 0; dir < p->paths && ret == 0; dir++)
    ret = aggregate_path_costs (cost, p, dir, sum, dir > 0);
  free (cost);
  return ret;
}

void
sgm_ref_wta_left (const uint16_t * sum, const SgmParams * p,
    int16_t * disp, int16_t * dint)
{
  const int D = p->num_disp;
  const size_t n = (size_t) p->width * p->height;
  for (size_t i = 0; i < n; i++) {
    const uint16_t *s = sum + i * D;
    int best = 0;
    for (int d = 1; d < D; d++)
      if (s[d] < s[best])
        best = d;
    int second = 0xffff;        /* min over |d - best| > 1 */
    for (int d = 0; d < D; d++)
      if ((d < best - 1 || d > best + 1) && s[d] < second)
        second = s[d];
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
sgm_ref_wta_right (const uint16_t * sum, const SgmParams * p,
    int16_t * dright)
{
  const int W = p->width, D = p->num_disp;
  for (int y = 0; y < p->height; y++) {
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
sgm_ref_lr_check (int16_t * disp, const int16_t * dint,
    const int16_t * dright, const SgmParams * p)
{
  const int W = p->width;
  if (p->lr_max_diff < 0)
    return;
  for (int y = 0; y < p->height; y++) {
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
sgm_ref_median (const int16_t * in, int16_t * out, int width, int height)
{
  int16_t v[9];
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      int k = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          v[k++] = in[(size_t) sgm_clampi (y + dy, 0, height - 1) * width +
              sgm_clampi (x + dx, 0, width - 1)];
      out[(size_t) y * width + x] = sgm_median9 (v);
    }
  }
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

int
sgm_ref_compute (const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma, int16_t * disp)
{
  if (sgm_params_check (p) < 0)
    return -1;
  const size_t n = (size_t) p->width * p->height;
  int ret = -1;
  uint64_t *cl = malloc (n * sizeof *cl), *cr = malloc (n * sizeof *cr);
  uint16_t *sum = malloc (n * p->num_disp * sizeof *sum);
  int16_t *dint = malloc (n * sizeof *dint), *dr = malloc (n * sizeof *dr);
  int16_t *tmp = malloc (n * sizeof *tmp);
  if (!cl || !cr || !sum || !dint || !dr || !tmp)
    goto done;
  sgm_ref_census (left, left_stride, luma, p->width, p->height, p->census, cl);
  sgm_ref_census (right, right_stride, luma, p->width, p->height, p->census,
      cr);
  if (sgm_ref_aggregate (cl, cr, p, sum) < 0)
    goto done;
  sgm_ref_wta_left (sum, p, p->median ? tmp : disp, dint);
  if (p->lr_max_diff >= 0) {
    sgm_ref_wta_right (sum, p, dr);
    sgm_ref_lr_check (p->median ? tmp : disp, dint, dr, p);
  }
  if (p->median)
    sgm_ref_median (tmp, disp, p->width, p->height);
  ret = 0;
done:
  free (cl);
  free (cr);
  free (sum);
  free (dint);
  free (dr);
  free (tmp);
  return ret;
}
