/* Convolution bloom: per-pixel maths and shared types, for the CUDA kernels
 * (kernels/fftbloom.cu) and the C reference (reference/fftbloom.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "cicuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Packed 4-sample pixels: 8-bit (RGBA, BGRA, RGBx, BGRx, ARGB, ABGR) or 16-bit
 * (RGBA64_LE). Only the three colour samples are touched; the fourth sample
 * (alpha or padding) is copied through unchanged. */
typedef struct
{
  int bytes_per_sample;         /* 1 or 2 */
  int off_r, off_g, off_b;      /* sample index (0..3) of each colour in a pixel */
  int srgb;                     /* 1: samples are sRGB-encoded, 0: linear */
} CiFbFormat;

/* Per-frame parameters (may change every frame). */
typedef struct
{
  float intensity;              /* out = in + intensity * bloom */
  float threshold;              /* bright-pass threshold, linear light */
  float knee;                   /* soft knee width as a fraction of threshold, 0..1 */
} CiFbParams;

/* A convolution kernel: `channels` planes (1 = grey, 3 = R, G, B) of
 * width x height floats, each plane normalised to unit sum; (cx, cy) is the
 * texel that lands on the output pixel. */
typedef struct
{
  int width, height, channels;
  int cx, cy;
  float *data;
} CiFbKernel;

/* ---- transfer functions (IEC 61966-2-1) ---- */

CI_HD float
ci_fb_srgb_to_linear (float v)
{
  return v <= 0.04045f ? v * (1.0f / 12.92f)
      : powf ((v + 0.055f) * (1.0f / 1.055f), 2.4f);
}

CI_HD float
ci_fb_linear_to_srgb (float v)
{
  return v <= 0.0031308f ? v * 12.92f
      : 1.055f * powf (v, 1.0f / 2.4f) - 0.055f;
}

CI_HD float
ci_fb_decode (unsigned code, int bytes, int srgb)
{
  float v = bytes == 1 ? (float) code * (1.0f / 255.0f)
      : (float) code * (1.0f / 65535.0f);
  return srgb ? ci_fb_srgb_to_linear (v) : v;
}

/* Linear light (any value) to a code value: clamp to [0, 1], encode, round. */
CI_HD unsigned
ci_fb_encode (float lin, int bytes, int srgb)
{
  float v = lin > 0.0f ? (lin < 1.0f ? lin : 1.0f) : 0.0f;
  if (srgb)
    v = ci_fb_linear_to_srgb (v);
  float maxv = bytes == 1 ? 255.0f : 65535.0f;
  float c = v * maxv + 0.5f;
  c = c < maxv ? c : maxv;
  return (unsigned) c;
}

#ifdef __CUDACC__
/* ci_fb_encode on the GPU where no table applies: log2 / exp2 instead of
 * powf (relative error ~1e-6, far below a code value). */
static __device__ __forceinline__ unsigned
ci_fb_encode_fast (float lin, int bytes, int srgb)
{
  float v = lin > 0.0f ? (lin < 1.0f ? lin : 1.0f) : 0.0f;
  if (srgb)
    v = v <= 0.0031308f ? v * 12.92f
        : 1.055f * exp2f (__log2f (v) * (1.0f / 2.4f)) - 0.055f;
  float maxv = bytes == 1 ? 255.0f : 65535.0f;
  float c = v * maxv + 0.5f;
  c = c < maxv ? c : maxv;
  return (unsigned) c;
}
#endif

/* 8-bit sRGB encode by table, the same code as ci_fb_encode (v, 1, 1) for
 * every float: code[b] is the code of b / CI_FB_ENC8_N, thr[c] the smallest
 * float whose code is c (thr[256] = 2 is never reached). Neighbouring
 * thresholds are at least 3.0e-4 apart (the linear segment near 0; wider
 * above), more than a bucket's 1 / 4096, so a bucket holds at most one and
 * the code is code[b] or code[b] + 1. On the GPU this replaces a log2, an
 * exp2 and their range fix-ups per sample with two cached loads. */
#define CI_FB_ENC8_N 4096

typedef struct
{
  float thr[257];
  uint8_t code[CI_FB_ENC8_N + 4];
} CiFbEnc8;

CI_HD unsigned
ci_fb_encode8_tab (float lin, const uint8_t * code, const float *thr)
{
  float v = lin > 0.0f ? (lin < 1.0f ? lin : 1.0f) : 0.0f;
  unsigned c = code[(int) (v * (float) CI_FB_ENC8_N)];
  return c + (v >= thr[c + 1] ? 1u : 0u);
}

/* Builds the table from ci_fb_encode itself (binary search over the float
 * bit patterns of [0, 1]); -1 if a bucket would hold two thresholds. */
static inline int
ci_fb_encode8_build (CiFbEnc8 * t)
{
  uint32_t prev = 0;
  t->thr[0] = 0.0f;
  t->thr[256] = 2.0f;
  for (int c = 1; c <= 255; c++) {
    uint32_t lo = 0, hi = 0x3f800000u;  /* the code of 1.0 is 255 */
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      float f;
      memcpy (&f, &mid, 4);
      if ((int) ci_fb_encode (f, 1, 1) >= c)
        hi = mid;
      else
        lo = mid + 1;
    }
    memcpy (&t->thr[c], &lo, 4);
    uint32_t b = (uint32_t) (t->thr[c] * (float) CI_FB_ENC8_N);
    if (c > 1 && b == prev)
      return -1;
    prev = b;
  }
  for (int b = 0; b <= CI_FB_ENC8_N; b++)
    t->code[b] = (uint8_t) ci_fb_encode ((float) b / CI_FB_ENC8_N, 1, 1);
  for (int b = CI_FB_ENC8_N + 1; b < CI_FB_ENC8_N + 4; b++)
    t->code[b] = 255;
  return 0;
}

/* Device code divides with the fast reciprocal (2 ulp): the IEEE division
 * and its slow-path check were a third of the bloom's per-pixel work. */
#ifdef __CUDA_ARCH__
#define CI_FB_DIV(a, b) __fdividef ((a), (b))
#else
#define CI_FB_DIV(a, b) ((a) / (b))
#endif

/* ---- bright pass ----
 * Soft knee on the brightest colour sample b (the "Unity" curve): below
 * threshold - knee*threshold nothing passes, above threshold + knee*threshold
 * everything above the threshold passes, and in between a quadratic joins
 * the two. The colour is scaled, so hue is kept. The knee is relative to the
 * threshold so that threshold 0 passes the whole image unchanged, whatever
 * the knee (the energy test relies on that). */
CI_HD float
ci_fb_bright_factor (float r, float g, float b, float threshold, float knee)
{
  float m = r > g ? r : g;
  m = m > b ? m : b;
  if (m <= 0.0f)
    return 0.0f;
  float k = threshold * knee;
  float contrib = m - threshold;
  if (k > 0.0f) {
    float s = m - threshold + k;
    s = s < 0.0f ? 0.0f : (s > 2.0f * k ? 2.0f * k : s);
    s = CI_FB_DIV (s * s, 4.0f * k);
    contrib = contrib > s ? contrib : s;
  }
  contrib = contrib > 0.0f ? contrib : 0.0f;
  return CI_FB_DIV (contrib, m);
}

/* ---- FFT sizes ---- */

/* Smallest even n >= want with no prime factor above maxp (5 or 7); even,
 * so the R2C half spectrum and the packed pair split stay simple. */
CI_HD int
ci_fb_smooth_size (int want, int maxp)
{
  int n = want < 2 ? 2 : want;
  for (;; n++) {
    if (n & 1)
      continue;
    int m = n;
    /* a composite f divides nothing once its primes are out */
    for (int f = 2; f <= maxp; f++)
      while (m % f == 0)
        m /= f;
    if (m == 1)
      return n;
  }
}

/* 7-smooth: sizes both cuFFT and FFTW handle with their fast radices. */
CI_HD int
ci_fb_good_size (int want)
{
  return ci_fb_smooth_size (want, 7);
}

/* The FFT length used for `want` samples. Measured on an H200 (cuFFT 2D
 * R2C + C2R, batch 3, docs/fftbloom.md): a power of two is clearly fastest
 * (2048 x 1200 took 0.115 ms where the tight 2016 x 1176 took 0.158 ms;
 * 4096 x 2400 0.49 ms against 4032 x 2352 0.74 ms), radix 7 is slowest. So:
 * the next power of two when it costs at most 25 % more samples, else the
 * next 5-smooth size when within 10 %, else the next 7-smooth size. */
CI_HD int
ci_fb_fast_size (int want)
{
  int p = 2;
  while (p < want)
    p *= 2;
  if ((long long) p * 4 <= (long long) want * 5)
    return p;
  int s5 = ci_fb_smooth_size (want, 5);
  if ((long long) s5 * 10 <= (long long) want * 11)
    return s5;
  return ci_fb_good_size (want);
}

/* The (low-resolution) image and the FFT grid for a kernel. Linear
 * convolution of a w-wide image with a kernel reaching a texels left and b
 * right of its centre needs only n >= w + max (a, b) for the w output
 * samples to stay free of wrap-around (the zero band absorbs both
 * directions); n >= a + b + 1 keeps every kernel texel in its own bin. */
CI_HD int
ci_fb_grid_size (int w, int kw, int kc)
{
  int a = kc, b = kw - 1 - kc;
  int pad = a > b ? a : b;
  int need = w + pad;
  need = need > kw ? need : kw;
  return ci_fb_fast_size (need);
}

/* Size of the bloom image at resolution divisor s (1, 2 or 4). */
CI_HD int
ci_fb_scaled (int n, int s)
{
  return (n + s - 1) / s;
}

/* Bilinear sample position in the low-resolution bloom image for full
 * resolution pixel x: index i0 and weight f of i0 + 1 (clamped at edges). */
CI_HD void
ci_fb_upsample_coord (int x, int s, int n, int *i0, int *i1, float *f)
{
  if (s == 1) {
    *i0 = *i1 = x;
    *f = 0.0f;
    return;
  }
  float p = ((float) x + 0.5f) / (float) s - 0.5f;
  if (p <= 0.0f) {
    *i0 = *i1 = 0;
    *f = 0.0f;
    return;
  }
  int i = (int) p;
  if (i >= n - 1) {
    *i0 = *i1 = n - 1;
    *f = 0.0f;
    return;
  }
  *i0 = i;
  *i1 = i + 1;
  *f = p - (float) i;
}

/* ---- the procedural glare kernel ---- */

typedef struct
{
  float core_size;              /* core Gaussian sigma, fraction of the radius */
  float halo_strength;          /* share of the energy in the halo, 0..1 */
  float halo_size;              /* halo scale, fraction of the radius */
  float spike_strength;         /* share of the energy in the spikes, 0..1 */
  int spike_count;              /* number of rays (0 = none) */
  float spike_width;            /* ray half-width, fraction of the radius */
  float spike_angle;            /* angle of the first ray, degrees */
} CiFbGlare;

/* Smooth window reaching zero at the radius, so the kernel has compact
 * support and the padding really prevents wrap-around. */
CI_HD float
ci_fb_window (float rho)
{
  if (rho >= 1.0f)
    return 0.0f;
  float t = 1.0f - rho * rho;
  return t * t;
}

/* What the glare's texels share: the three sizes in texels and the rays'
 * directions (cosf/sinf of the same angles per texel gave the same bits,
 * at most 32 transcendental calls a texel). */
typedef struct
{
  float R, sc, hs, sw;
  int n;                        /* rays */
  float ux[16], uy[16];
} CiFbGlarePrep;

CI_HD void
ci_fb_glare_prepare (const CiFbGlare * g, float R, CiFbGlarePrep * p)
{
  p->R = R;
  /* at least half a texel, or a small kernel loses its core to sampling */
  p->sc = g->core_size * R;
  p->sc = p->sc > 0.5f ? p->sc : 0.5f;
  p->hs = g->halo_size * R;
  p->hs = p->hs > 0.5f ? p->hs : 0.5f;
  p->sw = g->spike_width * R;
  p->sw = p->sw > 0.5f ? p->sw : 0.5f;
  p->n = g->spike_count < 16 ? (g->spike_count > 0 ? g->spike_count : 0) : 16;
  const float a0 = g->spike_angle * (3.14159265358979f / 180.0f);
  for (int k = 0; k < p->n; k++) {
    const float a = a0 + (float) k * (6.28318530717959f / (float) p->n);
    p->ux[k] = cosf (a);
    p->uy[k] = sinf (a);
  }
}

/* The three glare components at offset (dx, dy) in texels from the centre of
 * a kernel of radius R texels (prepared in @p); each is later normalised on
 * its own. The shortcuts give the bits the full formulas give: outside the
 * window every term is a finite value times 0, and a ray's term is
 * start x e1 x e2, which is 0 once e1 is (92 M texels of old and new
 * compared bit for bit, 2026-11-30). */
CI_HD void
ci_fb_glare_terms (const CiFbGlarePrep * p, float dx, float dy,
    float *core, float *halo, float *spikes)
{
  const float R = p->R;
  float r = sqrtf (dx * dx + dy * dy);
  float rho = r / R;
  float w = ci_fb_window (rho);
  if (w == 0.0f) {
    *core = *halo = *spikes = 0.0f;
    return;
  }
  *core = expf (-(r * r) / (2.0f * p->sc * p->sc)) * w;
  float q = 1.0f + (r * r) / (p->hs * p->hs);
  *halo = w / (q * sqrtf (q));
  float sp = 0.0f;
  if (r > 0.0f) {
    for (int k = 0; k < p->n; k++) {
      const float ux = p->ux[k], uy = p->uy[k];
      float along = dx * ux + dy * uy;
      /* the ray starts over one texel (weight 1/2 at along = 0): a hard
       * along >= 0 let float rounding of cos/sin light one of the two
       * texels beside the root and not the other */
      float start = along + 0.5f;
      if (start <= 0.0f)
        continue;
      start = start < 1.0f ? start : 1.0f;
      float perp = -dx * uy + dy * ux;
      /* e^-110 is far below half the smallest float: expf gives 0 */
      const float x1 = -(perp * perp) / (2.0f * p->sw * p->sw);
      if (x1 < -110.0f)
        continue;
      const float e1 = expf (x1);
      if (e1 == 0.0f)
        continue;
      sp += start * e1 * expf (-3.0f * along / R);
    }
    sp *= w;
  }
  *spikes = sp;
}

#ifdef __cplusplus
}
#endif
