/* gst-cuda-imaging: Semi-Global Matching, the per-pixel maths shared by the
 * C reference (reference/sgm.c) and the CUDA kernels (kernels/sgm.cu).
 *
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything is integer so that both sides agree bit for bit.  Conventions:
 *  - census words are uint64 (62 bits for 9x7, 31 bits for centre-symmetric);
 *  - the cost of left pixel x at disparity index d (0..D-1) compares the
 *    left census at x with the right census at xr = x - (min_disp + d); when
 *    xr is outside the image the cost is the census bit count (the maximum);
 *  - path costs L and their sum S are uint16; p2 is used as max (p1, p2) so
 *    that the P2 term is the usual "any larger jump" penalty; S <= 8 * (62 + p2);
 *  - disparities are int16 in 1/16 pixel (SGM_DISP_SCALE), min_disp included,
 *    invalid pixels are SGM_INVALID.
 */
#pragma once

#include <stdint.h>
#include "cicuda.h"

#define SGM_MAX_DISP 1024
/* the largest view width or height (sgm_params_valid) */
#define SGM_MAX_VIEW 32767
#define SGM_MIN_MIN_DISP (-1024)
#define SGM_MAX_MIN_DISP 1023
#define SGM_MAX_P 2000
#define SGM_DISP_SCALE 16
#define SGM_INVALID ((int16_t) -32768)
#define SGM_UNIQ_ONE 1024       /* uniqueness ratio 1.0 in fixed point */

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  SGM_CENSUS_9X7 = 0,           /* 62 bits: neighbour < centre */
  SGM_CENSUS_SYM_9X7 = 1        /* 31 bits: pixel >= its point-mirror */
} SgmCensusKind;

typedef struct
{
  int width, height;            /* one view */
  int num_disp;                 /* D: 1..1024 */
  int min_disp;                 /* disparity of index 0 */
  int p1, p2;                   /* 0..SGM_MAX_P */
  int paths;                    /* 4 or 8 */
  int census;                   /* SgmCensusKind */
  int uniqueness;               /* ratio * SGM_UNIQ_ONE; SGM_UNIQ_ONE = off */
  int lr_max_diff;              /* < 0: no left-right check */
  int subpixel;                 /* parabolic refinement on/off */
  int median;                   /* 3x3 median on/off */
} SgmParams;

/* How to read the luma of one view. */
typedef enum
{
  SGM_LUMA_GRAY8 = 0,
  SGM_LUMA_GRAY16 = 1,          /* native-endian uint16 */
  SGM_LUMA_RGB = 2              /* 8-bit R, G, B at byte offsets r/g/b of each pixel */
} SgmLumaKind;

typedef struct
{
  int kind;                     /* SgmLumaKind */
  int pixel_stride;             /* bytes from one pixel to the next (RGB kinds) */
  int r, g, b;                  /* byte offsets (RGB kinds) */
} SgmLuma;

/* Output of the element: kind 0 = GRAY16 (uint16), 1 = GRAY8, 2 = 4-byte
 * colour with R, G, B at byte offsets r, g, b and 255 at a. */
typedef enum
{
  SGM_OUT_GRAY16 = 0,
  SGM_OUT_GRAY8 = 1,
  SGM_OUT_COLOUR = 2
} SgmOutKind;

typedef struct
{
  int kind;                     /* SgmOutKind */
  int r, g, b, a;
} SgmOutFormat;

/* 0 when @p is within the ranges both implementations are built for
 * (the CUDA pipeline's 16-bit sums and disparities included), else -1. */
CI_HD int
sgm_params_valid (const SgmParams * p)
{
  if (p->width < 1 || p->height < 1 || p->width > SGM_MAX_VIEW
      || p->height > SGM_MAX_VIEW)
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

/* The 8 path directions (dx, dy); the first 4 are the 4-path set. */
CI_HD int
sgm_dir_dx (int i)
{
  return (i == 0 || i == 4 || i == 6) ? 1 : (i == 1 || i == 5 || i == 7) ? -1 : 0;
}

CI_HD int
sgm_dir_dy (int i)
{
  return (i == 2 || i == 4 || i == 5) ? 1 : (i == 3 || i == 6 || i == 7) ? -1 : 0;
}

/* Elements per pixel of the CUDA sum volume: D rounded up to 8 so that
 * every pixel's run is 16-byte aligned (the reference stores exactly D). */
CI_HD int
sgm_sum_stride (int num_disp)
{
  return (num_disp + 7) & ~7;
}

CI_HD int
sgm_clampi (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

CI_HD int
sgm_luma_at (const uint8_t * img, size_t stride, SgmLuma l, int x, int y)
{
  const uint8_t *row = img + (size_t) y * stride;
  if (l.kind == SGM_LUMA_GRAY8)
    return row[x];
  if (l.kind == SGM_LUMA_GRAY16) {
    /* on the host through memcpy: a frame at an odd offset (a buffer
     * region) makes a plain access undefined in C; the device code keeps
     * its plain access (aligned buffers, instructions as measured) */
#ifdef __CUDA_ARCH__
    return ((const uint16_t *) row)[x];
#else
    return ci_ld_u16 (row + 2 * (size_t) x);
#endif
  }
  const uint8_t *p = row + (size_t) x * l.pixel_stride;
  /* BT.601 weights in 1/256, rounded; same integers everywhere. */
  return (77 * p[l.r] + 150 * p[l.g] + 29 * p[l.b] + 128) >> 8;
}

CI_HD int
sgm_census_bits (int census)
{
  return census == SGM_CENSUS_SYM_9X7 ? 31 : 62;
}

/* win[r][c] is the (clamped) luma at (x + c - 4, y + r - 3).  Bits are
 * appended in raster order of the window, the first one ending up highest. */
CI_HD uint64_t
sgm_census_from_window (const int win[7][9], int census)
{
  uint64_t v = 0;
  if (census == SGM_CENSUS_SYM_9X7) {
    /* the 31 positions before the centre, each against its point mirror */
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 9; c++)
        if (r < 3 || c < 4)
          v = (v << 1) | (uint64_t) (win[r][c] >= win[6 - r][8 - c]);
  } else {
    int centre = win[3][4];
    for (int r = 0; r < 7; r++)
      for (int c = 0; c < 9; c++)
        if (r != 3 || c != 4)
          v = (v << 1) | (uint64_t) (win[r][c] < centre);
  }
  return v;
}

CI_HD int
sgm_popcount64 (uint64_t v)
{
#ifdef __CUDA_ARCH__
  return __popcll (v);
#else
  return __builtin_popcountll (v);
#endif
}

/* Matching cost of left census cl against the right census at xr. */
CI_HD int
sgm_cost (uint64_t cl, const uint64_t * cr_row, int xr, int width, int census)
{
  if (xr < 0 || xr >= width)
    return sgm_census_bits (census);
  return sgm_popcount64 (cl ^ cr_row[xr]);
}

/* One step of path aggregation at one disparity.  prev_lo / prev_hi are the
 * previous path costs at d-1 / d+1, or a value >= prev_min + p2 where that
 * disparity does not exist. */
CI_HD int
sgm_aggregate_step (int cost, int prev, int prev_lo, int prev_hi,
    int prev_min, int p1, int p2)
{
  int m = prev;
  int n = (prev_lo < prev_hi ? prev_lo : prev_hi) + p1;
  m = n < m ? n : m;
  n = prev_min + p2;
  m = n < m ? n : m;
  return cost + m - prev_min;
}

CI_HD int
sgm_effective_p2 (int p1, int p2)
{
  return p2 > p1 ? p2 : p1;
}

/* uniqueness: best must be clearly better than every disparity further than
 * one step away: second * u >= best * ONE (u = ONE disables the test). */
CI_HD int
sgm_unique_ok (int best, int second, int uniqueness)
{
  return (int64_t) second * uniqueness >= (int64_t) best * SGM_UNIQ_ONE;
}

/* Parabolic refinement in 1/16 pixel, rounded half away from zero.  sm, s0,
 * sp are the sums at d-1, d, d+1 with s0 the minimum, so |result| <= 8. */
CI_HD int
sgm_subpixel_offset (int sm, int s0, int sp)
{
  int num = sm - sp;
  int den = sm - 2 * s0 + sp;
  if (den <= 0)
    return 0;
  int v = SGM_DISP_SCALE * num;
  return v >= 0 ? (v + den) / (2 * den) : -((-v + den) / (2 * den));
}

/* Median of 9 with invalid (INT16_MIN) ordered lowest, so the result is
 * invalid exactly when 5 or more of the 9 are. */
CI_HD int16_t
sgm_median9 (int16_t v[9])
{
  for (int i = 0; i < 5; i++) {
    int m = i;
    for (int j = i + 1; j < 9; j++)
      if (v[j] < v[m])
        m = j;
    int16_t t = v[i];
    v[i] = v[m];
    v[m] = t;
  }
  return v[4];
}

/* ---- output conventions ---- */

/* GRAY16_LE: disparity * 16; invalid 65535; negative disparities (only with
 * min-disparity < 0) clamp to 0. */
CI_HD uint16_t
sgm_out_gray16 (int16_t d)
{
  if (d == SGM_INVALID)
    return 65535;
  return d < 0 ? 0 : (uint16_t) d;
}

/* GRAY8: the search range [min, min + D - 1] mapped to 0..254; invalid 255. */
CI_HD uint8_t
sgm_out_gray8 (int16_t d, int min_disp, int num_disp)
{
  if (d == SGM_INVALID)
    return 255;
  if (num_disp <= 1)
    return 0;
  int span = (num_disp - 1) * SGM_DISP_SCALE;
  int v = sgm_clampi (d - min_disp * SGM_DISP_SCALE, 0, span);
  return (uint8_t) ((v * 254 + span / 2) / span);
}

/* Colour map (jet) of the GRAY8 value; invalid is black. rgb[0..2]. */
CI_HD void
sgm_out_colour (int16_t d, int min_disp, int num_disp, uint8_t rgb[3])
{
  if (d == SGM_INVALID) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  int u = sgm_out_gray8 (d, min_disp, num_disp) * 1020 / 254;
  int du = u - 765, dg = u - 510, db = u - 255;
  rgb[0] = (uint8_t) sgm_clampi (382 - (du < 0 ? -du : du), 0, 255);
  rgb[1] = (uint8_t) sgm_clampi (382 - (dg < 0 ? -dg : dg), 0, 255);
  rgb[2] = (uint8_t) sgm_clampi (382 - (db < 0 ? -db : db), 0, 255);
}

/* One output pixel at @px. */
CI_HD void
sgm_out_pixel (int16_t d, SgmOutFormat f, int min_disp, int num_disp,
    uint8_t * px)
{
  if (f.kind == SGM_OUT_GRAY16) {
#ifdef __CUDA_ARCH__
    *(uint16_t *) px = sgm_out_gray16 (d);
#else
    ci_st_u16 (px, sgm_out_gray16 (d));  /* any alignment (see sgm_luma_at) */
#endif
  } else if (f.kind == SGM_OUT_GRAY8) {
    *px = sgm_out_gray8 (d, min_disp, num_disp);
  } else {
    uint8_t rgb[3];
    sgm_out_colour (d, min_disp, num_disp, rgb);
    px[f.r] = rgb[0];
    px[f.g] = rgb[1];
    px[f.b] = rgb[2];
    px[f.a] = 255;
  }
}

CI_HD int
sgm_out_bytes (SgmOutFormat f)
{
  return f.kind == SGM_OUT_GRAY16 ? 2 : f.kind == SGM_OUT_GRAY8 ? 1 : 4;
}

#ifdef __cplusplus
}
#endif
