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
  int win[7][9];
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      for (int r = 0; r < 7; r++) {
        int yy = sgm_clampi (y + r - 3, 0, height - 1);
        for (int c = 0; c < 9; c++) {
          int xx = sgm_clampi (x + c - 4, 0, width - 1);
          win[r][c] = sgm_luma_at (img, stride, luma, xx, yy);
        }
      }
      out[(size_t) y * width + x] = sgm_census_from_window (win, census);
    }
  }
}

void
sgm_ref_cost_volume (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost)
{
  const int W = p->width, D = p->num_disp;
  for (int y = 0; y < p->height; y++)
    for (int x = 0; x < W; x++)
      for (int d = 0; d < D; d++)
        cost[((size_t) y * W + x) * D + d] =
            (uint8_t) sgm_cost (cl[(size_t) y * W + x], cr + (size_t) y * W,
            x - p->min_disp - d, W, p->census);
}

/* Costs of one pixel for all d into c[0..D-1]. */
static void
pixel_costs (const uint64_t * cl_row, const uint64_t * cr_row,
    const SgmParams * p, int x, uint16_t * c)
{
  const int W = p->width, D = p->num_disp;
  const uint64_t l = cl_row[x];
  const int cmax = sgm_census_bits (p->census);
  for (int d = 0; d < D; d++) {
    int xr = x - p->min_disp - d;
    c[d] = (uint16_t) ((xr < 0 || xr >= W) ? cmax :
        sgm_popcount64 (l ^ cr_row[xr]));
  }
}

/* L at one pixel from the previous pixel on the path (prev == NULL: first). */
static void
pixel_path (const uint16_t * c, const uint16_t * prev, const SgmParams * p,
    uint16_t * out)
{
  const int D = p->num_disp;
  const int p1 = p->p1, p2 = sgm_effective_p2 (p->p1, p->p2);
  if (!prev) {
    memcpy (out, c, (size_t) D * sizeof *out);
    return;
  }
  int mn = prev[0];
  for (int d = 1; d < D; d++)
    mn = prev[d] < mn ? prev[d] : mn;
  /* a missing neighbour disparity: big enough to never win */
  const int none = mn + p2;
  for (int d = 0; d < D; d++) {
    int lo = d > 0 ? prev[d - 1] : none;
    int hi = d + 1 < D ? prev[d + 1] : none;
    out[d] = (uint16_t) sgm_aggregate_step (c[d], prev[d], lo, hi, mn, p1, p2);
  }
}

int
sgm_ref_aggregate_path (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, int dir, uint16_t * acc, int accumulate)
{
  const int W = p->width, H = p->height, D = p->num_disp;
  const int dx = sgm_dir_dx (dir), dy = sgm_dir_dy (dir);
  /* two rows of L: the row being computed and the one before along dy */
  uint16_t *rows = malloc ((size_t) 2 * W * D * sizeof *rows);
  uint16_t *c = malloc ((size_t) D * sizeof *c);
  if (!rows || !c) {
    free (rows);
    free (c);
    return -1;
  }
  uint16_t *cur = rows, *prv = rows + (size_t) W * D;
  for (int i = 0; i < H; i++) {
    const int y = dy >= 0 ? i : H - 1 - i;
    const uint64_t *cl_row = cl + (size_t) y * W, *cr_row = cr + (size_t) y * W;
    for (int j = 0; j < W; j++) {
      /* along dx so that, for dy == 0, the previous pixel is already done */
      const int x = dx >= 0 ? j : W - 1 - j;
      const int xp = x - dx;
      const uint16_t *prev = NULL;
      if (xp >= 0 && xp < W) {
        if (dy == 0)
          prev = cur + (size_t) xp *D;
        else if (i > 0)
          prev = prv + (size_t) xp *D;
      }
      uint16_t *out = cur + (size_t) x * D;
      pixel_costs (cl_row, cr_row, p, x, c);
      pixel_path (c, prev, p, out);
      uint16_t *a = acc + ((size_t) y * W + x) * D;
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
  free (c);
  return 0;
}

int
sgm_ref_aggregate (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint16_t * sum)
{
  for (int dir = 0; dir < p->paths; dir++)
    if (sgm_ref_aggregate_path (cl, cr, p, dir, sum, dir > 0) < 0)
      return -1;
  return 0;
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
