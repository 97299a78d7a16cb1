/* Convolution bloom: cuFFT LTO callbacks (compiled to LTO-IR with -dlto,
 * embedded as a fatbin and linked into cuFFT's kernels at plan time through
 * cufftXtSetJITCallback). They fuse the element's own passes into the FFTs:
 *   ci_fb_cb_load  (R2C load):  decode + bright pass (+ box average) read
 *                  straight from the frame; the zero padding costs no load;
 *   ci_fb_cb_mul   (R2C store): spectrum x cached kernel spectrum;
 *   ci_fb_cb_post  (C2R store): crop + add + encode into the output frame,
 *                  one colour sample per call (channel 0 copies alpha).
 * Offsets are element indices in the plans' layouts: real c*np + y*nx + x,
 * complex c*ncp + ky*(nx/2+1) + kx. C++ linkage and the exact signatures of
 * cufftXt.h (cufftJITCallback*): cuFFT finds a callback by its plain name
 * with that signature (an extern "C" symbol is not found: planning fails
 * with CUFFT_INTERNAL_ERROR, seen on an H200 with CUDA 13.0).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cufft.h>
#include <stdint.h>
#include "fftbloom_math.h"
#include "fftbloom_cb.h"

#ifndef CI_FB_CB
#error "build with -DCI_FB_CB=1 (load), 2 (multiply) or 3 (post)"
#endif

#if CI_FB_CB != 2
/* Offset of a real element (c*np + y*nx + x) as channel, x, y. */
static __device__ __forceinline__ int
cb_real_index (const CiFbCbInfo * I, unsigned long long offset, unsigned &x,
    unsigned &y)
{
  unsigned o = (unsigned) offset, np = I->np;
  int ch = 0;
  if (o >= np) {
    o -= np;
    ch = 1;
    if (o >= np) {
      o -= np;
      ch = 2;
    }
  }
  const unsigned nx = (unsigned) I->nx;
  y = o / nx;
  x = o - y * nx;
  return ch;
}
#endif

#if CI_FB_CB == 1
static __device__ __forceinline__ float
cb_dec (const CiFbCbInfo * I, unsigned code)
{
  if (I->fr.bytes == 1)
    return I->fr.srgb ? I->lut[code] : ci_fb_decode (code, 1, 0);
  return ci_fb_decode (code, 2, I->fr.srgb);
}

template <typename V>
static __device__ __forceinline__ unsigned
cb_pick (const V & p, int i)
{
  return i == 0 ? p.x : (i == 1 ? p.y : (i == 2 ? p.z : p.w));
}

static __device__ __forceinline__ void
cb_pixel (const CiFbCbInfo * I, int x, int y, float &r, float &g, float &b)
{
  const CiFbCbFrame & F = I->fr;
  const unsigned char *row = F.in + (size_t) y * F.in_pitch;
  if (F.bytes == 1) {
    uchar4 p = __ldg (reinterpret_cast<const uchar4 *> (row) + x);
    r = cb_dec (I, cb_pick (p, F.off[0]));
    g = cb_dec (I, cb_pick (p, F.off[1]));
    b = cb_dec (I, cb_pick (p, F.off[2]));
  } else {
    ushort4 p = __ldg (reinterpret_cast<const ushort4 *> (row) + x);
    r = cb_dec (I, cb_pick (p, F.off[0]));
    g = cb_dec (I, cb_pick (p, F.off[1]));
    b = cb_dec (I, cb_pick (p, F.off[2]));
  }
}

#endif

/* Built three times (CI_FB_CB = 1, 2, 3), one callback per fatbin: cuFFT
 * links each callback's module separately into a plan, and a module holding
 * all three would define the other two twice when a plan has two callbacks. */
#if CI_FB_CB == 1
/* Same order of operations as bright_texel() in fftbloom.cu. */
__device__ cufftReal
ci_fb_cb_load (void *dataIn, unsigned long long offset, void *info, void *smem)
{
  const CiFbCbInfo *I = (const CiFbCbInfo *) info;
  unsigned i, j;
  const int ch = cb_real_index (I, offset, i, j);
  if (i >= (unsigned) I->w || j >= (unsigned) I->h)
    return 0.0f;
  const CiFbCbFrame & F = I->fr;
  int s = I->s;
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f;
  int cnt = 0;
  for (int y = j * s; y < (int) (j + 1) * s && y < I->height; y++)
    for (int x = i * s; x < (int) (i + 1) * s && x < I->width; x++) {
      float r, g, b;
      cb_pixel (I, x, y, r, g, b);
      float k = ci_fb_bright_factor (r, g, b, F.threshold, F.knee);
      a0 += r * k;
      a1 += g * k;
      a2 += b * k;
      cnt++;
    }
  float inv = 1.0f / (float) cnt;
  float v = ch == 0 ? a0 : (ch == 1 ? a1 : a2);
  return v * inv;
}
#endif

#if CI_FB_CB == 2

__device__ void
ci_fb_cb_mul (void *dataOut, unsigned long long offset, cufftComplex e,
    void *info, void *smem)
{
  const CiFbCbInfo *I = (const CiFbCbInfo *) info;
  unsigned o = (unsigned) offset, n = I->ncp;
  if (I->kch == 1)
    o = o >= n ? (o >= 2 * n ? o - 2 * n : o - n) : o;
  float2 u = __ldg ((const float2 *) I->kspec + o);
  cufftComplex r;
  r.x = e.x * u.x - e.y * u.y;
  r.y = e.x * u.y + e.y * u.x;
  ((cufftComplex *) dataOut)[offset] = r;
}
#endif

#if CI_FB_CB == 3

__device__ void
ci_fb_cb_post (void *dataOut, unsigned long long offset, cufftReal v,
    void *info, void *smem)
{
  const CiFbCbInfo *I = (const CiFbCbInfo *) info;
  unsigned x, y;
  const int ch = cb_real_index (I, offset, x, y);
  if (x >= (unsigned) I->width || y >= (unsigned) I->height)
    return;
  const CiFbCbFrame & F = I->fr;
  int off = F.off[ch];
  if (F.bytes == 1) {
    const unsigned char *p = F.in + (size_t) y * F.in_pitch + 4 * (size_t) x;
    unsigned char *q = F.out + (size_t) y * F.out_pitch + 4 * (size_t) x;
    unsigned code = __ldg (p + off);
    float lin = F.srgb ? I->lut[code] : ci_fb_decode (code, 1, 0);
    q[off] = (unsigned char) ci_fb_encode_fast (lin + F.intensity * v, 1,
        F.srgb);
    if (ch == 0)
      q[F.off_a] = __ldg (p + F.off_a);
  } else {
    const unsigned short *p = (const unsigned short *) (F.in
        + (size_t) y * F.in_pitch) + 4 * (size_t) x;
    unsigned short *q = (unsigned short *) (F.out
        + (size_t) y * F.out_pitch) + 4 * (size_t) x;
    unsigned code = __ldg (p + off);
    float lin = ci_fb_decode (code, 2, F.srgb);
    q[off] = (unsigned short) ci_fb_encode_fast (lin + F.intensity * v, 2,
        F.srgb);
    if (ch == 0)
      q[F.off_a] = __ldg (p + F.off_a);
  }
}
#endif
