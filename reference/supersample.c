/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>
#include "supersample.h"
#include "supersample_math.h"
#include "ciclones.h"

static inline unsigned int
load (const uint8_t * row, int idx, int bps, int shift)
{
  if (bps == 1)
    return row[idx];
  return ci_ld_u16 (row + 2 * (size_t) idx) >> shift;
}

int
ci_ref_supersample_plane (const void *src, const CiSsPlane * sp,
    void *dst, const CiSsPlane * dp)
{
  return ci_ref_supersample_rows (src, sp, dst, dp, 0, dp->height);
}

/* with the FMA instruction where the CPU has it (ciclones.h) */
CI_FMA_CLONES int
ci_ref_supersample_rows (const void *src, const CiSsPlane * sp,
    void *dst, const CiSsPlane * dp, int dy0, int dy1)
{
  const int C = sp->channels, bps = sp->bytes_per_sample, shift = sp->shift;
  if (sp->width < 1 || sp->height < 1 || dp->width < 1 || dp->height < 1
      || dp->width > sp->width || dp->height > sp->height
      || C < 1 || C > 4 || dp->channels != C
      || (bps != 1 && bps != 2) || dp->bytes_per_sample != bps
      || dy0 < 0 || dy1 > dp->height || dy0 > dy1)
    return -1;

  const float sx = ci_ss_scale (sp->width, dp->width);
  const float sy = ci_ss_scale (sp->height, dp->height);
  const float inv = ci_ss_inv_area (sx, sy);
  const unsigned int maxval = (bps == 1 ? 0xffu : 0xffffu) >> shift;

  for (int dy = dy0; dy < dy1; dy++) {
    const CiSsSpan ys = ci_ss_span (dy, sy, sp->height);
    uint8_t *orow = (uint8_t *) dst + (size_t) dy * dp->stride;
    for (int dx = 0; dx < dp->width; dx++) {
      const CiSsSpan xs = ci_ss_span (dx, sx, sp->width);
      for (int c = 0; c < C; c++) {
        float acc = 0.0f;
        /* y slots outer: top partial, full rows, bottom partial */
        for (int ys_i = ys.first - 1; ys_i <= ys.last; ys_i++) {
          float wy;
          if (ys_i == ys.first - 1)
            wy = ys.w_first;
          else if (ys_i == ys.last)
            wy = ys.w_last;
          else
            wy = 1.0f;
          if (wy == 0.0f)
            continue;
          const uint8_t *row = (const uint8_t *) src + (size_t) ys_i * sp->stride;
          for (int xs_i = xs.first - 1; xs_i <= xs.last; xs_i++) {
            float wx;
            if (xs_i == xs.first - 1)
              wx = xs.w_first;
            else if (xs_i == xs.last)
              wx = xs.w_last;
            else
              wx = 1.0f;
            if (wx == 0.0f)
              continue;
            float v = (float) load (row, xs_i * C + c, bps, shift);
            acc = CI_SS_FMA (v, CI_SS_MUL (wx, wy), acc);
          }
        }
        unsigned int r = ci_ss_round (acc, inv, maxval);
        if (bps == 1)
          orow[dx * C + c] = (uint8_t) r;
        else
          ci_st_u16 (orow + 2 * (size_t) (dx * C + c), (uint16_t) (r << shift));
      }
    }
  }
  return 0;
}
