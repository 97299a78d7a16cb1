/* An independent, deliberately plain transcription of the NPP model in
 * ../shared/notes/npp-super-arithmetic.md: explicit slot lists, no shared code
 * with reference/ or kernels/. Tests check the reference against it.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

typedef struct { int idx; float w; } NaiveSlot;

static int
naive_slots (int d, int src, int dst, NaiveSlot * out)
{
  volatile float s = (float) src / (float) dst;
  volatile float lo = (float) d * s;
  volatile float hi = lo + s;
  int i0 = (int) ceilf (lo), i1 = (int) floorf (hi);
  float w0 = ceilf (lo) - lo, w1 = hi - floorf (hi);
  int n = 0;
  if (w0 > 0 && i0 > 0)
    out[n++] = (NaiveSlot) { i0 - 1, w0 };
  for (int x = i0 > 0 ? i0 : 0; x < (i1 < src ? i1 : src); x++)
    out[n++] = (NaiveSlot) { x, 1.0f };
  if (w1 > 0 && i1 < src)
    out[n++] = (NaiveSlot) { i1, w1 };
  return n;
}

/* Samples: bps 1 or 2, `shift` applied to 16-bit samples before averaging. */
static void
naive_supersample (const uint8_t * src, size_t sstride, int sw, int sh,
    uint8_t * dst, size_t dstride, int dw, int dh, int C, int bps, int shift)
{
  NaiveSlot *xs = malloc (sizeof (NaiveSlot) * (sw + 2));
  NaiveSlot *ys = malloc (sizeof (NaiveSlot) * (sh + 2));
  float sx = (float) sw / (float) dw, sy = (float) sh / (float) dh;
  volatile float area = sx * sy;
  float inv = 1.0f / area;
  unsigned maxv = (bps == 1 ? 255u : 65535u) >> shift;
  for (int dy = 0; dy < dh; dy++) {
    int ny = naive_slots (dy, sh, dh, ys);
    for (int dx = 0; dx < dw; dx++) {
      int nx = naive_slots (dx, sw, dw, xs);
      for (int c = 0; c < C; c++) {
        float acc = 0.0f;
        for (int j = 0; j < ny; j++)
          for (int i = 0; i < nx; i++) {
            const uint8_t *p = src + (size_t) ys[j].idx * sstride;
            unsigned v;
            if (bps == 1)
              v = p[xs[i].idx * C + c];
            else {              /* odd pitches: no uint16_t pointer */
              uint16_t s;
              memcpy (&s, p + 2 * (size_t) (xs[i].idx * C + c), 2);
              v = s >> shift;
            }
            volatile float w = xs[i].w * ys[j].w;
            acc = fmaf ((float) v, w, acc);
          }
        volatile float m = acc * inv;
        int r = (int) (m + 0.5f);
        if (r < 0) r = 0;
        if ((unsigned) r > maxv) r = (int) maxv;
        if (bps == 1)
          dst[(size_t) dy * dstride + dx * C + c] = (uint8_t) r;
        else
        {
          uint16_t s = (uint16_t) (r << shift);
          memcpy (dst + (size_t) dy * dstride + 2 * (size_t) (dx * C + c), &s, 2);
        }
      }
    }
  }
  free (xs);
  free (ys);
}
