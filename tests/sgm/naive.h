/* Naive SGM written from the textbook definitions, independently of
 * reference/sgm.c and kernels/sgm_math.h (only the conventions are shared):
 * bit positions computed explicitly, path aggregation as
 *   L(p,d) = C(p,d) + min_k (L(p-r,k) + pen(d,k)) - min_k L(p-r,k)
 * with pen = 0, P1 (|d-k| = 1), P2 (otherwise), over a whole int volume.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int
nv_luma (const uint8_t * img, size_t stride, int kind, int ps, int ro, int go,
    int bo, int w, int h, int x, int y)
{
  if (x < 0)
    x = 0;
  if (x > w - 1)
    x = w - 1;
  if (y < 0)
    y = 0;
  if (y > h - 1)
    y = h - 1;
  const uint8_t *row = img + (size_t) y * stride;
  if (kind == 0)
    return row[x];
  if (kind == 1) {
    uint16_t v;
    memcpy (&v, row + 2 * (size_t) x, 2);
    return v;
  }
  const uint8_t *p = row + (size_t) x * ps;
  int acc = 77 * p[ro] + 150 * p[go] + 29 * p[bo];
  return (acc + 128) / 256;
}

/* census bit b (0 = least significant) of pixel (x, y) */
static uint64_t
nv_census (const uint8_t * img, size_t stride, int kind, int ps, int ro,
    int go, int bo, int w, int h, int sym, int x, int y)
{
  uint64_t v = 0;
  if (sym) {
    /* 31 pairs; pair i (raster index i < 31) goes to bit 30 - i */
    for (int i = 0; i < 31; i++) {
      int dy = i / 9 - 3, dx = i % 9 - 4;
      int a = nv_luma (img, stride, kind, ps, ro, go, bo, w, h, x + dx, y + dy);
      int b = nv_luma (img, stride, kind, ps, ro, go, bo, w, h, x - dx, y - dy);
      if (a >= b)
        v |= (uint64_t) 1 << (30 - i);
    }
  } else {
    int c = nv_luma (img, stride, kind, ps, ro, go, bo, w, h, x, y);
    int bit = 61;
    for (int dy = -3; dy <= 3; dy++)
      for (int dx = -4; dx <= 4; dx++) {
        if (!dx && !dy)
          continue;
        if (nv_luma (img, stride, kind, ps, ro, go, bo, w, h, x + dx,
                y + dy) < c)
          v |= (uint64_t) 1 << bit;
        bit--;
      }
  }
  return v;
}

static int
nv_popcount (uint64_t v)
{
  int n = 0;
  while (v) {
    n += (int) (v & 1);
    v >>= 1;
  }
  return n;
}

static int
nv_cost (const uint64_t * cl, const uint64_t * cr, int w, int sym, int mind,
    int x, int y, int d)
{
  int xr = x - mind - d;
  if (xr < 0 || xr >= w)
    return sym ? 31 : 62;
  return nv_popcount (cl[(size_t) y * w + x] ^ cr[(size_t) y * w + xr]);
}

/* L for direction (dx, dy) into out[(y*w + x)*D + d]. */
static void
nv_path (const uint64_t * cl, const uint64_t * cr, int w, int h, int D,
    int mind, int sym, int P1, int P2, int dx, int dy, int *out)
{
  if (P2 < P1)
    P2 = P1;
  /* visit pixels so that p - r always comes first */
  for (int iy = 0; iy < h; iy++) {
    int y = dy >= 0 ? iy : h - 1 - iy;
    for (int ix = 0; ix < w; ix++) {
      int x = dx >= 0 ? ix : w - 1 - ix;
      int px = x - dx, py = y - dy;
      int has_prev = px >= 0 && px < w && py >= 0 && py < h;
      int *L = out + ((size_t) y * w + x) * D;
      const int *Lp = has_prev ? out + ((size_t) py * w + px) * D : NULL;
      int mn = 0;
      if (Lp) {
        mn = Lp[0];
        for (int k = 1; k < D; k++)
          if (Lp[k] < mn)
            mn = Lp[k];
      }
      for (int d = 0; d < D; d++) {
        int c = nv_cost (cl, cr, w, sym, mind, x, y, d);
        if (!Lp) {
          L[d] = c;
          continue;
        }
        int best = -1;
        for (int k = 0; k < D; k++) {
          int pen = k == d ? 0 : (abs (k - d) == 1 ? P1 : P2);
          int v = Lp[k] + pen;
          if (best < 0 || v < best)
            best = v;
        }
        L[d] = c + best - mn;
      }
    }
  }
}
