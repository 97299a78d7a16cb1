/* NPP NPPI_INTER_SUPER arithmetic (see ../shared/notes/npp-super-arithmetic.md).
 * Shared by the CUDA kernel and the C reference so both round identically.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cicuda.h"
#ifndef __CUDACC__
#include <math.h>
#endif

/* Every multiply and add rounds on its own, except the one explicit fma:
 * nvcc would contract a*b+c by itself, and the C side is built with
 * -ffp-contract=off for the same reason. */
#ifdef __CUDA_ARCH__
#define CI_SS_MUL(a, b) __fmul_rn ((a), (b))
#define CI_SS_ADD(a, b) __fadd_rn ((a), (b))
#define CI_SS_DIV(a, b) __fdiv_rn ((a), (b))
#define CI_SS_FMA(a, b, c) __fmaf_rn ((a), (b), (c))
#define CI_SS_CEIL(a) ceilf (a)
#define CI_SS_FLOOR(a) floorf (a)
#else
#define CI_SS_MUL(a, b) ((float) (a) * (float) (b))
#define CI_SS_ADD(a, b) ((float) (a) + (float) (b))
#define CI_SS_DIV(a, b) ((float) (a) / (float) (b))
#define CI_SS_FMA(a, b, c) fmaf ((a), (b), (c))
#define CI_SS_CEIL(a) ceilf (a)
#define CI_SS_FLOOR(a) floorf (a)
#endif

/* The footprint of output index d along one axis: an optional leading partial
 * sample (first - 1, w_first), full samples [first, last), an optional trailing
 * partial sample (last, w_last). A weight of 0 means "no such sample". */
typedef struct
{
  int first, last;
  float w_first, w_last;
} CiSsSpan;

CI_HD float
ci_ss_scale (int src, int dst)
{
  return CI_SS_DIV ((float) src, (float) dst);
}

CI_HD CiSsSpan
ci_ss_span (int d, float s, int src)
{
  CiSsSpan sp;
  float lo = CI_SS_MUL ((float) d, s);
  float hi = CI_SS_ADD (lo, s);           /* not (d+1)*s: NPP adds */
  float clo = CI_SS_CEIL (lo), fhi = CI_SS_FLOOR (hi);
  int i0 = (int) clo, i1 = (int) fhi;
  float w0 = clo - lo, w1 = hi - fhi;    /* exact */
  sp.w_first = (w0 > 0.0f && i0 > 0) ? w0 : 0.0f;
  sp.w_last = (w1 > 0.0f && i1 < src) ? w1 : 0.0f;
  sp.first = i0 > 0 ? i0 : 0;
  sp.last = i1 < src ? i1 : src;
  if (sp.last < sp.first)
    sp.last = sp.first;
  return sp;
}

/* 1 / (sx * sy): float product, then float reciprocal. */
CI_HD float
ci_ss_inv_area (float sx, float sy)
{
  return CI_SS_DIV (1.0f, CI_SS_MUL (sx, sy));
}

/* Round half up by truncation, as NPP does; clamp only guards the type. */
CI_HD unsigned int
ci_ss_round (float acc, float inv, unsigned int maxval)
{
  float v = CI_SS_ADD (CI_SS_MUL (acc, inv), 0.5f);
#ifdef __CUDA_ARCH__
  /* Truncation of 0 <= v < 2^23 without the quarter-rate F2I: adding 2^23
   * rounded toward zero leaves floor (v) in the mantissa. Same result. */
  int r = __float_as_int (__fadd_rz (v, 8388608.0f)) - 0x4B000000;
#else
  int r = (int) v;
#endif
  if (r < 0)
    r = 0;
  if ((unsigned int) r > maxval)
    r = (int) maxval;
  return (unsigned int) r;
}
