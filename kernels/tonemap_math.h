/* gst-cuda-imaging: HDR -> SDR tone mapping, per-pixel maths shared by the
 * CUDA kernels (kernels/tonemap.cu) and the C reference (reference/tonemap.c).
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exactness contract: everything that decides a pixel's histogram bin
 * (decode, EOTF table lookup, luminance, log, bin index, min/max, range
 * smoothing) uses only IEEE add/mul/div and explicit fmaf(), so the host
 * (built with -ffp-contract=off) and the device (tonemap.cu built with
 * --fmad=false) compute bit-identical bins.  Everything after the bin is
 * continuous, so transcendental differences there move outputs by far less
 * than one code value.  See docs/tonemap.md for the formulas.
 */
#pragma once

#include "cicuda.h"
#include <stdint.h>
#ifndef __CUDACC__
#include <math.h>
#include <string.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- enums (values are stable: used by properties and tests) ---- */
typedef enum
{
  CI_TM_IN_P010 = 0,            /* P010_10LE: Y plane + interleaved UV, 10 bits in the MSBs */
  CI_TM_IN_I420_10,             /* I420_10LE: 3 planes, 10 bits in the LSBs */
  CI_TM_IN_P016,                /* P016_LE: like P010 with 16 bits */
  CI_TM_IN_Y444_16,             /* Y444_16LE: 3 full planes, 16 bits */
  CI_TM_IN_RGBA64,              /* RGBA64_LE */
  CI_TM_IN_BGRA64,              /* BGRA64_LE */
  CI_TM_IN_RGB10A2,             /* RGB10A2_LE: R in bits 0-9, G 10-19, B 20-29, A 30-31 */
  CI_TM_IN_BGR10A2,             /* BGR10A2_LE: B in bits 0-9, G 10-19, R 20-29, A 30-31 */
  CI_TM_IN_N
} CiTmInFormat;

typedef enum
{
  CI_TM_OUT_RGBA = 0,
  CI_TM_OUT_BGRA,
  CI_TM_OUT_RGBX,
  CI_TM_OUT_BGRX,
  CI_TM_OUT_I420,
  CI_TM_OUT_NV12,
  CI_TM_OUT_N
} CiTmOutFormat;

typedef enum
{
  CI_TM_TRC_PQ = 0,             /* SMPTE ST 2084, absolute nits */
  CI_TM_TRC_HLG,                /* ARIB STD-B67 + BT.2100 OOTF, display peak = input_peak */
  CI_TM_TRC_LINEAR,             /* code 1.0 = input_peak nits */
  CI_TM_TRC_SRGB                /* IEC 61966-2-1 curve, code 1.0 = input_peak nits */
} CiTmTransfer;

typedef enum
{
  CI_TM_OP_HISTOGRAM = 0,
  CI_TM_OP_REINHARD,
  CI_TM_OP_HABLE,
  CI_TM_OP_BT2390,
  CI_TM_OP_CLIP                 /* no tone mapping, per-channel clip: the naive baseline */
} CiTmOperator;

/* ---- constants ---- */
#define CI_TM_EPS 1e-4f                 /* nits, added before log10 */
#define CI_TM_LOG10_2 0.30102999566398120f
#define CI_TM_LOG2_10 3.32192809488736235f
#define CI_TM_TRC_LUT 4096              /* transfer tables: 4097 points on [0,1] (+1 repeat) */
#define CI_TM_TRC_N (CI_TM_TRC_LUT + 2)
#define CI_TM_LOG_LUT 256               /* log2 of the mantissa: 257 points on [1,2] (+1 repeat) */
#define CI_TM_LOG_OFF CI_TM_TRC_N       /* the log table follows the EOTF table */
#define CI_TM_EOTF_N (CI_TM_TRC_N + CI_TM_LOG_LUT + 2)
#define CI_TM_OETF8_N (CI_TM_TRC_LUT + 1) /* BT.709 OETF to 8-bit codes: 4097 entries on [0,1] */
#define CI_TM_CURVE_LUT 1024            /* curve tables: 1025 points on L in [CI_TM_CURVE_LMIN, LMAX] (+1) */
#define CI_TM_CURVE_N (CI_TM_CURVE_LUT + 2)
#define CI_TM_MAGIC 12582912.0f         /* 1.5 * 2^23: x + MAGIC rounds x to an integer */
#define CI_TM_CURVE_LMIN (-4.0f)
#define CI_TM_CURVE_LMAX 4.0f
#define CI_TM_MAX_BINS 4096
#define CI_TM_MIN_BINS 16
#define CI_TM_ONE ((uint64_t) 1 << 32)  /* fixed-point unit of the smoothed histogram */

/* ---- kernel parameters: built on the host by ci_tm_params_init() ---- */
typedef struct
{
  int in_format, out_format, transfer, op;
  int width, height, bins;
  /* decode: y' = code * y_scale + y_off, c = code * c_scale + c_off */
  float y_scale, y_off, c_scale, c_off;
  float cr_r, cb_g, cr_g, cb_b; /* R' = Y' + cr_r Cr, G' = Y' + cb_g Cb + cr_g Cr, B' = Y' + cb_b Cb */
  int convert_primaries;        /* 1: BT.2020 -> BT.709 */
  float lum[3];                 /* luminance weights of the source primaries */
  float hlg_peak, hlg_gamma_m1; /* HLG: Lw and gamma - 1 */
  float target_peak;            /* nits of SDR 1.0 */
} CiTmParams;

/* Input / output planes: host or device pointers, row pitches in bytes. */
typedef struct
{
  const uint8_t *data[3];
  int stride[3];
} CiTmInPlanes;

typedef struct
{
  uint8_t *data[3];
  int stride[3];
} CiTmOutPlanes;

/* What the map stage needs from the statistics (also in device memory). */
typedef struct
{
  float lmin;                   /* histogram range start (log10 nits) */
  float scale;                  /* bins / (lmax - lmin), 0 when degenerate */
  float src_peak;               /* nits used by the curves */
  int valid;
} CiTmMapRange;

/* ---- bit helpers ---- */
CI_HD uint32_t
ci_tm_f2u (float f)
{
#ifdef __CUDA_ARCH__
  return __float_as_uint (f);
#else
  uint32_t u;
  memcpy (&u, &f, 4);
  return u;
#endif
}

CI_HD float
ci_tm_u2f (uint32_t u)
{
#ifdef __CUDA_ARCH__
  return __uint_as_float (u);
#else
  float f;
  memcpy (&f, &u, 4);
  return f;
#endif
}

/* Order-preserving float <-> uint32 (for atomicMin/atomicMax on floats). */
CI_HD uint32_t
ci_tm_float_key (float f)
{
  uint32_t u = ci_tm_f2u (f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

CI_HD float
ci_tm_key_float (uint32_t k)
{
  return ci_tm_u2f ((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

CI_HD float
ci_tm_clamp01 (float v)
{
#ifdef __CUDA_ARCH__
  return __saturatef (v);       /* same value for every non-NaN v, often free (.SAT) */
#else
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
#endif
}

/* Integer 0 <= v < 2^22 as float without a conversion instruction. */
CI_HD float
ci_tm_i2f (uint32_t v)
{
  return ci_tm_u2f (0x4B400000u | v) - CI_TM_MAGIC;
}

/* Round to nearest (ties to even) for |x| < 2^22, as int, no conversion. */
CI_HD int
ci_tm_rint (float x)
{
  return (int) (ci_tm_f2u (x + CI_TM_MAGIC) - 0x4B400000u);
}

/* Index of the transfer-table node nearest to v in [0,1]:
 * rne(4096 v). v * 4096 is exact, so on the GPU one fma rounds as the
 * product and sum do on the host. */
CI_HD int
ci_tm_node (float v)
{
#ifdef __CUDA_ARCH__
  return (int) (ci_tm_f2u (fmaf (v, (float) CI_TM_TRC_LUT, CI_TM_MAGIC)) -
      0x4B400000u);
#else
  return ci_tm_rint (v * (float) CI_TM_TRC_LUT);
#endif
}

/* Division after the bin (the gamut mapping; the map factor through
 * ci_tm_fdiv_nrm below, the same bits): IEEE, correctly rounded on both
 * sides. With __fdividef (2 ulp) the GPU was one code off
 * on 19 bytes of a 97x55 frame: there k = map / Y taken as map * (1 / Y)
 * is one ulp low, and R = r k falls just below a tie of the 8-bit OETF
 * index (docs/tonemap.md). */
CI_HD float
ci_tm_fdiv (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fdiv_rn (a, b);
#else
  return a / b;
#endif
}

/* ci_tm_fdiv for a zero or in [2^-40, 1] and b in [2^-100, 2^20]: the map
 * factor, whose map values are 0 or above 2^-36 and whose Y is at most
 * 10^4 cd/m^2. There the reciprocal, quotient and residual of the
 * reciprocal-and-correction sequence that __fdiv_rn runs are normal
 * floats, which is when __fdiv_rn returns that sequence's result (its
 * range check, FCHK, sends only other operands to a slow path). So the
 * sequence alone gives the same bits, without the check and its branch
 * (test-tonemap-cuda compares it with __fdiv_rn on 2^34 pairs of that
 * domain). */
CI_HD float
ci_tm_fdiv_nrm (float a, float b)
{
#ifdef __CUDA_ARCH__
  float r;
  asm ("rcp.approx.ftz.f32 %0, %1;":"=f" (r):"f" (b));
  r = fmaf (r, fmaf (-b, r, 1.0f), r);
  const float q = fmaf (a, r, 0.0f);
  return fmaf (r, fmaf (-b, q, a), q);
#else
  return a / b;
#endif
}

/* log2 for normal positive x, from IEEE ops only (bit-identical host/device):
 * x = m 2^e with m in [sqrt(1/2), sqrt(2)), log2(m) = 2 atanh(t) / ln 2,
 * t = (m-1)/(m+1), odd series to t^11 (|t| <= 0.1716: error < 2e-9). */
CI_HD float
ci_tm_log2f (float x)
{
  uint32_t u = ci_tm_f2u (x);
  int e = (int) ((u >> 23) & 0xff) - 127;
  uint32_t mu = (u & 0x7fffffu) | 0x3f800000u;
  if (mu > 0x3fb504f3u) {       /* m > sqrt(2) */
    mu -= 0x00800000u;
    e += 1;
  }
  float m = ci_tm_u2f (mu);
  float t = (m - 1.0f) / (m + 1.0f);
  float t2 = t * t;
  float p = fmaf (t2, 0.262308189f, 0.320598898f);      /* 2/(11 ln2), 2/(9 ln2) */
  p = fmaf (t2, p, 0.412198583f);       /* 2/(7 ln2) */
  p = fmaf (t2, p, 0.577078016f);       /* 2/(5 ln2) */
  p = fmaf (t2, p, 0.961796694f);       /* 2/(3 ln2) */
  p = fmaf (t2, p, 2.885390082f);       /* 2/ln2 */
  return fmaf (t, p, (float) e);
}

/* 2^x from IEEE ops only; x clamped to [-126, 127]. */
CI_HD float
ci_tm_exp2f (float x)
{
  x = x < -126.0f ? -126.0f : (x > 127.0f ? 127.0f : x);
  float n = floorf (x + 0.5f);
  float f = x - n;              /* [-0.5, 0.5] */
  /* Taylor series of e^(f ln2) to degree 7: error < 2e-9 */
  float p = fmaf (f, 1.52527338e-5f, 1.54035304e-4f);
  p = fmaf (f, p, 1.33335581e-3f);
  p = fmaf (f, p, 9.61812911e-3f);
  p = fmaf (f, p, 5.55041087e-2f);
  p = fmaf (f, p, 2.40226507e-1f);
  p = fmaf (f, p, 6.93147181e-1f);
  p = fmaf (f, p, 1.0f);
  return p * ci_tm_u2f ((uint32_t) ((int) n + 127) << 23);
}

CI_HD float
ci_tm_powf (float x, float y)
{
  return x <= 0.0f ? 0.0f : ci_tm_exp2f (y * ci_tm_log2f (x));
}

/* log10(Y + eps), the statistic everything is computed on, on cells of
 * 1/256 octave: the cell key k = bits(Y + eps) >> 15 (exponent and the
 * top 8 mantissa bits), L = log10 of the cell's lower edge,
 * (e + log2(1 + j/256)) log10(2) from the 257-point table at offset
 * CI_TM_LOG_OFF of the EOTF table (error < 0.0017, a cell's width). A
 * function of the key alone, so the map kernels can look a pixel's bin up
 * in a table over the keys (ci_tm_bin_of_key). */
CI_HD float
ci_tm_logq (uint32_t k, const float *eotf_lut)
{
  return (ci_tm_i2f (k >> 8) - 127.0f + eotf_lut[CI_TM_LOG_OFF + (k & 0xffu)])
      * CI_TM_LOG10_2;
}

CI_HD uint32_t
ci_tm_key (float y)
{
  return ci_tm_f2u (y + CI_TM_EPS) >> 15;
}

CI_HD float
ci_tm_logl (float y, const float *eotf_lut)
{
  return ci_tm_logq (ci_tm_key (y), eotf_lut);
}

/* The curves' log10(Y + eps), continuous (a step in L would put a step
 * into their output): the 257-point table interpolated (error < 3e-6). */
CI_HD float
ci_tm_logc (float y, const float *eotf_lut)
{
  const float *lg = eotf_lut + CI_TM_LOG_OFF;
  uint32_t u = ci_tm_f2u (y + CI_TM_EPS);
  uint32_t i = (u >> 15) & 0xffu;
  float t = ci_tm_u2f (0x3f800000u | ((u & 0x7fffu) << 8)) - 1.0f;
  float e = ci_tm_i2f (u >> 23) - 127.0f;
  float a = lg[i];
  return (e + fmaf (t, lg[i + 1] - a, a)) * CI_TM_LOG10_2;
}

/* Histogram bin of L: floor((L - lmin) * scale) clamped to [0, bins-1].
 * Clamped as a float before the conversion: on video the range comes from
 * earlier frames, so with scale up to bins / 1e-6 the product can pass 2^31
 * (x86 then converts to INT_MIN), and NaN must land in a bin too. */
CI_HD int
ci_tm_bin (float l, float lmin, float scale, int bins)
{
  float f = (l - lmin) * scale;
  return (int) fminf (fmaxf (f, 0.0f), (float) (bins - 1));
}

/* Range -> scale, with the constant-frame guard. */
CI_HD float
ci_tm_range_scale (float lmin, float lmax, int bins)
{
  float r = lmax - lmin;
  return r > 1e-6f ? (float) bins / r : 0.0f;
}

/* Keys of every Y the elements can produce: Y + eps in [1e-4, 2^14)
 * (no transfer function gives more than 10000 cd/m2: input-peak <= 10000). */
#define CI_TM_KEY0 (0x38d1b717u >> 15)  /* bits (1e-4f) >> 15 */
#define CI_TM_KEY_END (0x46800000u >> 15)       /* bits (16384.0f) >> 15 */
#define CI_TM_KEYS (CI_TM_KEY_END - CI_TM_KEY0)

/* Bin of the cell with key k (clamped into the table's keys): the map
 * kernels' per-frame table, built from the same range as ci_tm_bin. */
CI_HD int
ci_tm_bin_of_key (uint32_t k, const float *eotf_lut, float lmin, float scale,
    int bins)
{
  uint32_t c = k - CI_TM_KEY0;  /* wraps for k < KEY0: no Y gives that */
  c = c < CI_TM_KEYS ? c : CI_TM_KEYS - 1u;
  return ci_tm_bin (ci_tm_logq (CI_TM_KEY0 + c, eotf_lut), lmin, scale, bins);
}

/* ---- transfer functions (exact forms, double: used to build tables and in tests) ---- */
#define CI_PQ_M1 (2610.0 / 16384.0)
#define CI_PQ_M2 (2523.0 / 4096.0 * 128.0)
#define CI_PQ_C1 (3424.0 / 4096.0)
#define CI_PQ_C2 (2413.0 / 4096.0 * 32.0)
#define CI_PQ_C3 (2392.0 / 4096.0 * 32.0)
#define CI_HLG_A 0.17883277
#define CI_HLG_B 0.28466892     /* 1 - 4a */
#define CI_HLG_C 0.55991073     /* 0.5 - a ln(4a) */

#ifndef __CUDACC__
/* BT.2100 PQ EOTF: E' in [0,1] -> nits */
static inline double
ci_tm_pq_eotf (double e)
{
  if (e <= 0.0)
    return 0.0;
  double p = pow (e, 1.0 / CI_PQ_M2);
  double n = p - CI_PQ_C1;
  if (n < 0.0)
    n = 0.0;
  return 10000.0 * pow (n / (CI_PQ_C2 - CI_PQ_C3 * p), 1.0 / CI_PQ_M1);
}

/* BT.2100 PQ inverse EOTF: nits -> E' */
static inline double
ci_tm_pq_inv (double nits)
{
  double y = nits / 10000.0;
  if (y <= 0.0)
    return pow (CI_PQ_C1, CI_PQ_M2);
  double p = pow (y, CI_PQ_M1);
  return pow ((CI_PQ_C1 + CI_PQ_C2 * p) / (1.0 + CI_PQ_C3 * p), CI_PQ_M2);
}

/* BT.2100 HLG inverse OETF: E' -> scene linear E in [0,1] */
static inline double
ci_tm_hlg_inv_oetf (double e)
{
  if (e <= 0.0)
    return 0.0;
  if (e <= 0.5)
    return e * e / 3.0;
  return (exp ((e - CI_HLG_C) / CI_HLG_A) + CI_HLG_B) / 12.0;
}

/* IEC 61966-2-1 sRGB EOTF */
static inline double
ci_tm_srgb_eotf (double e)
{
  if (e <= 0.04045)
    return e / 12.92;
  return pow ((e + 0.055) / 1.055, 2.4);
}

/* BT.709 OETF (what GStreamer's "bt709" transfer means) */
static inline double
ci_tm_bt709_oetf (double l)
{
  if (l < 0.018)
    return 4.5 * l;
  return 1.099 * pow (l, 0.45) - 0.099;
}
#endif

/* BT.709 inverse OETF in float (continuous-path only). */
CI_HD float
ci_tm_bt709_inv_oetf_f (float v)
{
  if (v < 0.081f)
    return v == 0.0f ? v : v / 4.5f;   /* as ci_tm_ema_f: no slow path for 0 */
  return ci_tm_powf ((v + 0.099f) / 1.099f, 1.0f / 0.45f);
}

/* PQ in float from IEEE ops (continuous path: bt2390 curve tables). */
CI_HD float
ci_tm_pq_inv_f (float nits)
{
  float y = nits * 1e-4f;
  float p = ci_tm_powf (y, (float) CI_PQ_M1);
  return ci_tm_powf (((float) CI_PQ_C1 + (float) CI_PQ_C2 * p) / (1.0f +
          (float) CI_PQ_C3 * p), (float) CI_PQ_M2);
}

CI_HD float
ci_tm_pq_eotf_f (float e)
{
  float p = ci_tm_powf (e, (float) (1.0 / CI_PQ_M2));
  float n = p - (float) CI_PQ_C1;
  n = n < 0.0f ? 0.0f : n;
  return 10000.0f * ci_tm_powf (n / ((float) CI_PQ_C2 - (float) CI_PQ_C3 * p),
      (float) (1.0 / CI_PQ_M1));
}

/* ---- the operators' curves: nits -> relative SDR luminance [0,1] ---- */
CI_HD float
ci_tm_hable_raw (float x)
{
  const float A = 0.15f, B = 0.50f, C = 0.10f, D = 0.20f, E = 0.02f, F = 0.30f;
  return (x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F) - E / F;
}

CI_HD float
ci_tm_curve (int op, float y, float src_peak, float target_peak)
{
  float x = y / target_peak;
  float w = src_peak / target_peak;
  float r;
  switch (op) {
    case CI_TM_OP_REINHARD:
      /* extended Reinhard, white point at the source peak */
      r = w <= 1.0f ? x : x * (1.0f + x / (w * w)) / (1.0f + x);
      break;
    case CI_TM_OP_HABLE:
      r = w <= 1.0f ? x : ci_tm_hable_raw (x) / ci_tm_hable_raw (w);
      break;
    case CI_TM_OP_BT2390:{
      /* BT.2390-10 EETF in the PQ domain, black levels 0 */
      if (w <= 1.0f) {
        r = x;
        break;
      }
      float pw = ci_tm_pq_inv_f (src_peak);
      float e = ci_tm_pq_inv_f (y) / pw;
      float maxl = ci_tm_pq_inv_f (target_peak) / pw;
      float ks = 1.5f * maxl - 0.5f;
      if (e > ks) {
        float t = (e - ks) / (1.0f - ks);
        float t2 = t * t, t3 = t2 * t;
        e = (2.0f * t3 - 3.0f * t2 + 1.0f) * ks + (t3 - 2.0f * t2 +
            t) * (1.0f - ks) + (-2.0f * t3 + 3.0f * t2) * maxl;
      }
      r = ci_tm_pq_eotf_f (e * pw) / target_peak;
      break;
    }
    default:                   /* CLIP */
      r = x;
      break;
  }
  return r < 0.0f ? 0.0f : (r > 1.0f ? 1.0f : r);
}

/* Curve table entry j: ratio out/in (1/nits) at L_j = LMIN + j (LMAX-LMIN)/N. */
CI_HD float
ci_tm_curve_entry (int op, int j, float src_peak, float target_peak)
{
  j = j < CI_TM_CURVE_LUT ? j : CI_TM_CURVE_LUT;
  float l = CI_TM_CURVE_LMIN + (float) j * ((CI_TM_CURVE_LMAX -
          CI_TM_CURVE_LMIN) / (float) CI_TM_CURVE_LUT);
  float y = ci_tm_exp2f (l * CI_TM_LOG2_10) - CI_TM_EPS;
  if (y < 1e-6f)
    y = 1e-6f;
  return ci_tm_curve (op, y, src_peak, target_peak) / y;
}

/* ---- statistics update: one bin (integer, order-free) ---- */
/* Frame histogram count -> fixed-point fraction of the frame. */
CI_HD uint64_t
ci_tm_frac (uint32_t count, uint32_t total)
{
  return total ? (((uint64_t) count << 32) / total) : 0;
}

/* Smoothed value after one more frame: s + (p - s) / k (truncating). */
CI_HD uint64_t
ci_tm_ema_u64 (uint64_t s, uint64_t p, int k)
{
  int64_t d = (int64_t) p - (int64_t) s;
  return (uint64_t) ((int64_t) s + d / k);
}

/* A zero dividend (a still range) skips the division: the GPU's IEEE
 * division takes its slow path for it, and s + 0.0f is s + 0 / k, signed
 * zeros included. */
CI_HD float
ci_tm_ema_f (float s, float p, int k)
{
  const float d = p - s;
  return d == 0.0f ? s + 0.0f : s + d / (float) k;
}

/* The statistic's smoothed peak in cd/m^2: 10^smax - eps. The curves'
 * measured source peak and the histogram's anchor both take it. */
CI_HD float
ci_tm_measured_peak (float smax)
{
  return ci_tm_exp2f (smax * CI_TM_LOG2_10) - CI_TM_EPS;
}

/* The histogram operator's anchor: the measured peak (above) over
 * target-peak, at most 1. Equalisation only places tones relative to each
 * other; this keeps a frame whose peak is below SDR white (a fade, a black
 * screen, chroma noise on black) from being stretched to grey or to
 * saturated colour: its brightest bin is shown at its own luminance, not
 * brighter. */
CI_HD float
ci_tm_hist_anchor (float peak, float target_peak)
{
  return peak >= target_peak ? 1.0f : peak > 0.0f ? peak / target_peak : 0.0f;
}

/* Target relative luminance of histogram bin b from the exclusive CDF:
 * luma c = cdf_excl[b] / cdf_excl[bins-1] (0.5 for a single occupied bin),
 * linear luminance = BT.709 inverse OETF(c), so output luma ~ CDF; times
 * the anchor (1 for a frame that reaches target-peak: the same bits). */
CI_HD float
ci_tm_hist_target (uint64_t cdf_excl_b, uint64_t cdf_excl_top, int degenerate,
    float anchor)
{
  /* (the empty bins below the first occupied one: 0 without a division,
   * whose slow path a zero dividend takes on the GPU) */
  float c = (degenerate || cdf_excl_top == 0) ? 0.5f : cdf_excl_b == 0 ? 0.0f :
      (float) ((double) cdf_excl_b / (double) cdf_excl_top);
  /* below 2^-40 (a dim frame's anchor only): 0, keeping the map values in
   * the domain of ci_tm_fdiv_nrm; such a factor gives code 0 either way */
  const float m = anchor * ci_tm_bt709_inv_oetf_f (c);
  return m < 0x1p-40f ? 0.0f : m;
}

/* Binning range with hysteresis: it follows the smoothed range only when
 * that drifts by more than 2 % (+0.005): a jittering range would
 * misregister the averaged histogram against the bins and flicker. */
CI_HD void
ci_tm_bin_range (float smin, float smax, float *blo, float *bhi)
{
  float tol = 0.02f * (*bhi - *blo) + 0.005f;
  if (fabsf (smin - *blo) > tol || fabsf (smax - *bhi) > tol) {
    *blo = smin;
    *bhi = smax;
  }
}

/* ---- per-pixel stages ---- */
/* Table lookup with linear interpolation, v clamped to [0,1]; the table
 * has n + 2 entries (the last repeats the one at 1.0).  The cell is
 * round-half-even(f - 0.5), which is floor(f) except where f is an
 * integer (then t = 1 or 0 give the same value). */
CI_HD float
ci_tm_lut (const float *lut, int n, float v)
{
  float f = ci_tm_clamp01 (v) * (float) n;
  float r = (f - 0.5f) + CI_TM_MAGIC;
  int i = (int) (ci_tm_f2u (r) - 0x4B400000u);
  float t = f - (r - CI_TM_MAGIC);
  float a = lut[i];
  return fmaf (t, lut[i + 1] - a, a);
}

/* Samples wider than a byte: on the host through memcpy, as the reference
 * may be given a frame at an odd offset (a buffer region, an allocator's
 * prefix), where a plain access is undefined in C; the device code keeps
 * its plain accesses (CUDA allocations and the staging are aligned, and
 * its instructions stay as they were measured). */
CI_HD uint16_t
ci_tm_rd16 (const uint8_t * row, int idx)
{
#ifdef __CUDA_ARCH__
  return ((const uint16_t *) row)[idx];
#else
  return ci_ld_u16 (row + 2 * (size_t) idx);
#endif
}

/* Scaled luma vy (y_scale, y_off applied) and chroma cb, cr (c_scale,
 * c_off applied) -> non-linear R'G'B': the one Y'CbCr matrix of every
 * decode (reference and fast kernels alike). */
CI_HD void
ci_tm_ycc_rgb (const CiTmParams * p, float vy, float cb, float cr, float *r,
    float *g, float *b)
{
  *r = fmaf (p->cr_r, cr, vy);
  *g = fmaf (p->cr_g, cr, fmaf (p->cb_g, cb, vy));
  *b = fmaf (p->cb_b, cb, vy);
}

/* One input pixel at (x, y) -> non-linear R'G'B' in [0,1] and alpha [0,1]. */
CI_HD void
ci_tm_decode (const CiTmParams * p, const CiTmInPlanes * in, int x, int y,
    float *r, float *g, float *b, float *a)
{
  float yy, cb, cr;
  const uint8_t *r0;
  switch (p->in_format) {
    case CI_TM_IN_P010:
    case CI_TM_IN_P016:{
      int sh = p->in_format == CI_TM_IN_P010 ? 6 : 0;
      yy = ci_tm_i2f (ci_tm_rd16 (in->data[0] + (size_t) y * in->stride[0],
              x) >> sh);
      r0 = in->data[1] + (size_t) (y >> 1) * in->stride[1];
      cb = ci_tm_i2f (ci_tm_rd16 (r0, (x >> 1) * 2) >> sh);
      cr = ci_tm_i2f (ci_tm_rd16 (r0, (x >> 1) * 2 + 1) >> sh);
      break;
    }
    case CI_TM_IN_I420_10:
      yy = ci_tm_i2f (ci_tm_rd16 (in->data[0] + (size_t) y * in->stride[0],
              x) & 0x3ff);
      cb = ci_tm_i2f (ci_tm_rd16 (in->data[1] + (size_t) (y >> 1) *
              in->stride[1], x >> 1) & 0x3ff);
      cr = ci_tm_i2f (ci_tm_rd16 (in->data[2] + (size_t) (y >> 1) *
              in->stride[2], x >> 1) & 0x3ff);
      break;
    case CI_TM_IN_Y444_16:
      yy = ci_tm_i2f (ci_tm_rd16 (in->data[0] + (size_t) y * in->stride[0], x));
      cb = ci_tm_i2f (ci_tm_rd16 (in->data[1] + (size_t) y * in->stride[1], x));
      cr = ci_tm_i2f (ci_tm_rd16 (in->data[2] + (size_t) y * in->stride[2], x));
      break;
    case CI_TM_IN_RGBA64:
    case CI_TM_IN_BGRA64:{
#ifdef __CUDA_ARCH__
      const uint16_t *px = (const uint16_t *) (in->data[0] +
          (size_t) y * in->stride[0]) + 4 * x;
#else
      uint16_t px[4];
      memcpy (px, in->data[0] + (size_t) y * in->stride[0] + 8 * (size_t) x,
          sizeof px);
#endif
      float c0 = ci_tm_i2f (px[0]) * (1.0f / 65535.0f);
      float c2 = ci_tm_i2f (px[2]) * (1.0f / 65535.0f);
      *g = ci_tm_i2f (px[1]) * (1.0f / 65535.0f);
      *r = p->in_format == CI_TM_IN_RGBA64 ? c0 : c2;
      *b = p->in_format == CI_TM_IN_RGBA64 ? c2 : c0;
      *a = ci_tm_i2f (px[3]) * (1.0f / 65535.0f);
      return;
    }
    default:{                  /* RGB10A2 / BGR10A2 */
#ifdef __CUDA_ARCH__
      uint32_t v = ((const uint32_t *) (in->data[0] +
              (size_t) y * in->stride[0]))[x];
#else
      uint32_t v = ci_ld_u32 (in->data[0] + (size_t) y * in->stride[0] +
          4 * (size_t) x);
#endif
      float c0 = ci_tm_i2f (v & 0x3ff) * (1.0f / 1023.0f);
      float c2 = ci_tm_i2f ((v >> 20) & 0x3ff) * (1.0f / 1023.0f);
      *g = ci_tm_i2f ((v >> 10) & 0x3ff) * (1.0f / 1023.0f);
      *r = p->in_format == CI_TM_IN_RGB10A2 ? c0 : c2;
      *b = p->in_format == CI_TM_IN_RGB10A2 ? c2 : c0;
      *a = ci_tm_i2f (v >> 30) * (1.0f / 3.0f);
      return;
    }
  }
  yy = fmaf (yy, p->y_scale, p->y_off);
  cb = fmaf (cb, p->c_scale, p->c_off);
  cr = fmaf (cr, p->c_scale, p->c_off);
  ci_tm_ycc_rgb (p, yy, cb, cr, r, g, b);
  *a = 1.0f;
}

/* ci_tm_light's steps, also taken a quad at a time by the fast kernels:
 * the luminance (source primaries), */
CI_HD float
ci_tm_lum (const CiTmParams * p, float lr, float lg, float lb)
{
  return fmaf (p->lum[2], lb, fmaf (p->lum[1], lg, p->lum[0] * lr));
}

/* HLG's OOTF (BT.2100: F_D = Lw Ys^(gamma-1) E) on the scene light lr, lg,
 * lb and its luminance *y, */
CI_HD void
ci_tm_hlg_ootf (const CiTmParams * p, float *lr, float *lg, float *lb,
    float *y)
{
  float f = *y > 0.0f ? p->hlg_peak * ci_tm_powf (*y, p->hlg_gamma_m1) : 0.0f;
  *lr *= f;
  *lg *= f;
  *lb *= f;
  *y *= f;
}

/* and BT.2087's BT.2020 -> BT.709 (linear). */
CI_HD void
ci_tm_bt2087 (float lr, float lg, float lb, float *rgb)
{
  rgb[0] = fmaf (-0.072850f, lb, fmaf (-0.587641f, lg, 1.660491f * lr));
  rgb[1] = fmaf (-0.008349f, lb, fmaf (1.132900f, lg, -0.124550f * lr));
  rgb[2] = fmaf (1.118730f, lb, fmaf (-0.100579f, lg, -0.018151f * lr));
}

/* Linear (EOTF'd) source rgb -> light in nits, BT.709 primaries in rgb[],
 * luminance (source primaries, never negative) returned. */
CI_HD float
ci_tm_light (const CiTmParams * p, float lr, float lg, float lb, float *rgb)
{
  float y = ci_tm_lum (p, lr, lg, lb);
  if (p->transfer == CI_TM_TRC_HLG)
    ci_tm_hlg_ootf (p, &lr, &lg, &lb, &y);
  if (p->convert_primaries)
    ci_tm_bt2087 (lr, lg, lb, rgb);
  else {
    rgb[0] = lr;
    rgb[1] = lg;
    rgb[2] = lb;
  }
  return y;
}

/* EOTF: the table's node nearest to v (ci_tm_node of v clamped to
 * [0,1]), no interpolation. Nodes are 1/4096 apart, four per 10-bit code
 * step, so the error is at most an eighth of a 10-bit code's step in light
 * (PQ: <= 0.3 % above 0.005 cd/m2), and it saves a quarter of the map
 * kernels' arithmetic per channel (docs/tonemap.md). */
CI_HD float
ci_tm_eotf (const float *eotf_lut, float v)
{
  return eotf_lut[ci_tm_node (ci_tm_clamp01 (v))];
}

/* Non-linear R'G'B' -> ci_tm_light. */
CI_HD float
ci_tm_linearize (const CiTmParams * p, const float *eotf_lut, float r, float g,
    float b, float *rgb)
{
  return ci_tm_light (p, ci_tm_eotf (eotf_lut, r), ci_tm_eotf (eotf_lut, g),
      ci_tm_eotf (eotf_lut, b), rgb);
}

/* r, g, b all in [0,1] (false for NaN). On the GPU as one unsigned maximum
 * of the bits: 0 <= x <= 1 exactly when bits(x) <= bits(1.0f), but for -0
 * (0x80000000), which then takes the clamps below to the same code. */
CI_HD int
ci_tm_in01 (float r, float g, float b)
{
#ifdef __CUDA_ARCH__
  return max (max (ci_tm_f2u (r), ci_tm_f2u (g)), ci_tm_f2u (b)) <=
      0x3f800000u;
#else
  return (r >= 0.0f) & (g >= 0.0f) & (b >= 0.0f) & (r <= 1.0f) &
      (g <= 1.0f) & (b <= 1.0f);
#endif
}

/* ci_tm_gamut's step for a scaled rgb not in [0,1]^3 */
CI_HD void
ci_tm_gamut_fix (int op, float *rgb)
{
  float r = rgb[0], g = rgb[1], b = rgb[2];
  if (op != CI_TM_OP_CLIP) {
    float mn = fminf (r, fminf (g, b)), mx = fmaxf (r, fmaxf (g, b));
    float yo = fmaf (0.0722f, b, fmaf (0.7152f, g, 0.2126f * r));
    yo = ci_tm_clamp01 (yo);
    if (mn < 0.0f) {
      float t = ci_tm_fdiv (yo, yo - mn);
      r = fmaf (t, r - yo, yo);
      g = fmaf (t, g - yo, yo);
      b = fmaf (t, b - yo, yo);
      mx = fmaxf (r, fmaxf (g, b));
    }
    if (mx > 1.0f) {
      float t = ci_tm_fdiv (1.0f - yo, mx - yo);
      r = fmaf (t, r - yo, yo);
      g = fmaf (t, g - yo, yo);
      b = fmaf (t, b - yo, yo);
    }
  }
  rgb[0] = ci_tm_clamp01 (r);
  rgb[1] = ci_tm_clamp01 (g);
  rgb[2] = ci_tm_clamp01 (b);
}

/* Scale linear BT.709 rgb (nits) by k (1/nits) and bring it into [0,1]^3
 * without changing hue: out-of-gamut colours are desaturated towards the
 * grey of the same luminance (not clipped per channel). */
CI_HD void
ci_tm_gamut (int op, float k, float *rgb)
{
  rgb[0] *= k;
  rgb[1] *= k;
  rgb[2] *= k;
  /* The usual pixel is in gamut, and then already in [0,1]: the test
   * (false for NaN, unlike one on min/max) is all it costs. Its
   * luminance, the desaturation steps and the clamp are only computed
   * when needed (the second step re-reads the maximum after the first). */
  if (!ci_tm_in01 (rgb[0], rgb[1], rgb[2]))
    ci_tm_gamut_fix (op, rgb);
}

/* A curve's factor at the continuous log-luminance lc (ci_tm_logc). */
CI_HD float
ci_tm_curve_factor (const float *map_lut, float lc)
{
  return ci_tm_lut (map_lut, CI_TM_CURVE_LUT, (lc - CI_TM_CURVE_LMIN) *
      (1.0f / (CI_TM_CURVE_LMAX - CI_TM_CURVE_LMIN)));
}

/* Map factor k = out/in (1/nits) for a pixel of luminance y in bin. */
CI_HD float
ci_tm_factor (int op, const float *map_lut, const float *eotf_lut, float y,
    int bin)
{
  if (op == CI_TM_OP_HISTOGRAM) {
    /* selects, not a branch around the division; map values are in
     * [0, 1], and every Y > 0 is far above 2^-100 (the smallest: HLG at
     * input-peak 10000, about 4e-11 cd/m^2), so the max changes nothing */
    const float k = ci_tm_fdiv_nrm (map_lut[bin], fmaxf (y, 0x1p-100f));
    return y > 0.0f ? k : 0.0f;
  }
  return ci_tm_curve_factor (map_lut, ci_tm_logc (y, eotf_lut));
}

/* 8-bit code of v in [0,1]: round half to even of 255 v */
CI_HD uint32_t
ci_tm_q8 (float v)
{
  return (uint32_t) ci_tm_rint (ci_tm_clamp01 (v) * 255.0f);
}

/* 8-bit OETF table entry i: the code of the BT.709 OETF at i/4096, i.e.
 * q8 of the float OETF table's node (both built from the same table, so
 * host and device tables are identical). */
CI_HD uint8_t
ci_tm_oetf8_entry (const float *oetf_lut, int i)
{
  return (uint8_t) ci_tm_q8 (oetf_lut[i < CI_TM_TRC_LUT ? i : CI_TM_TRC_LUT]);
}

/* RGB outputs: the 8-bit code of linear v in [0,1] (already clamped, as
 * ci_tm_gamut leaves it) is the table entry at rne(4096 v): one multiply,
 * one round and one byte load instead of an interpolated OETF and a
 * quantisation.  Neighbouring entries differ by at most one code (largest
 * slope 255 * 4.5 / 4096 = 0.28 codes per step), so a one-step index
 * difference (host vs device rounding of v) moves a code by at most one. */
CI_HD uint32_t
ci_tm_oetf8 (const uint8_t * oetf8, float v)
{
  return oetf8[ci_tm_node (v)];
}

/* RGB outputs: B in byte 0 (BGRA, BGRX)? */
CI_HD int
ci_tm_out_bgr (int f)
{
  return f == CI_TM_OUT_BGRA || f == CI_TM_OUT_BGRX;
}

/* RGB outputs: the alpha byte (the input's alpha for RGBA/BGRA, else 255) */
CI_HD uint32_t
ci_tm_alpha8 (int f, float a)
{
  return (f == CI_TM_OUT_RGBA || f == CI_TM_OUT_BGRA) ? ci_tm_q8 (a) : 255u;
}

/* One RGB output word from 8-bit codes. */
CI_HD uint32_t
ci_tm_rgb_word (int f, uint32_t r8, uint32_t g8, uint32_t b8, float a)
{
  uint32_t a8 = ci_tm_alpha8 (f, a);
  return ci_tm_out_bgr (f) ?
      (b8 | (g8 << 8) | (r8 << 16) | (a8 << 24)) :
      (r8 | (g8 << 8) | (b8 << 16) | (a8 << 24));
}

/* Store the RGB words w[4] of the quad at (x, y) (pixels outside the frame
 * skipped). */
CI_HD void
ci_tm_store_rgb_quad (const CiTmParams * p, const CiTmOutPlanes * out, int x,
    int y, const uint32_t * w)
{
  int nx = x + 1 < p->width ? 2 : 1, ny = y + 1 < p->height ? 2 : 1;
  for (int j = 0; j < ny; j++) {
#ifdef __CUDA_ARCH__
    uint32_t *row = (uint32_t *) (out->data[0] + (size_t) (y + j) *
        out->stride[0]) + x;
    row[0] = w[2 * j];
    if (nx == 2)
      row[1] = w[2 * j + 1];
#else
    memcpy (out->data[0] + (size_t) (y + j) * out->stride[0] + 4 * (size_t) x,
        w + 2 * j, 4 * (size_t) nx);
#endif
  }
}

/* The 4:2:0 codes of one quad from BT.709-encoded R'G'B' (rgb[i]: quad
 * pixel i, 0 tl, 1 tr, 2 bl, 3 br; nx x ny of them inside the frame):
 * luma yv[j * 2 + i], chroma from the mean R'G'B' of those pixels. */
CI_HD void
ci_tm_yuv_quad (float rgb[4][3], int nx, int ny, uint8_t * yv, uint8_t * u,
    uint8_t * v)
{
  float sr = 0.0f, sg = 0.0f, sb = 0.0f;
  int n = 0;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      const float *c = rgb[j * 2 + i];
      float yl = fmaf (0.0722f, c[2], fmaf (0.7152f, c[1], 0.2126f * c[0]));
      yv[j * 2 + i] = (uint8_t) ci_tm_rint (fmaf (yl, 219.0f, 16.0f));
      sr += c[0];
      sg += c[1];
      sb += c[2];
      n++;
    }
  float inv = n == 4 ? 0.25f : (n == 2 ? 0.5f : 1.0f);
  sr *= inv;
  sg *= inv;
  sb *= inv;
  float yl = fmaf (0.0722f, sb, fmaf (0.7152f, sg, 0.2126f * sr));
  *u = (uint8_t) ci_tm_rint (fmaf ((sb - yl) * (1.0f / 1.8556f), 224.0f,
          128.0f));
  *v = (uint8_t) ci_tm_rint (fmaf ((sr - yl) * (1.0f / 1.5748f), 224.0f,
          128.0f));
}

/* Encode one 2x2 quad whose top-left pixel is (x, y) into I420/NV12.
 * rgb[i] is the BT.709-encoded R'G'B' of quad pixel i (0 tl, 1 tr, 2 bl,
 * 3 br); pixels outside the frame are skipped. */
CI_HD void
ci_tm_encode_quad (const CiTmParams * p, const CiTmOutPlanes * out, int x,
    int y, float rgb[4][3])
{
  int nx = x + 1 < p->width ? 2 : 1, ny = y + 1 < p->height ? 2 : 1;
  uint8_t yv[4], u, v;
  ci_tm_yuv_quad (rgb, nx, ny, yv, &u, &v);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      out->data[0][(size_t) (y + j) * out->stride[0] + x + i] = yv[j * 2 + i];
  if (p->out_format == CI_TM_OUT_I420) {
    out->data[1][(size_t) (y >> 1) * out->stride[1] + (x >> 1)] = u;
    out->data[2][(size_t) (y >> 1) * out->stride[2] + (x >> 1)] = v;
  } else {
    uint8_t *uv = out->data[1] + (size_t) (y >> 1) * out->stride[1] + x;
    uv[0] = u;
    uv[1] = v;
  }
}

/* Decode + linearise + log-luminance of the quad at (x, y).  Pixels outside
 * the frame replicate the nearest inside one (their stats are not counted). */
CI_HD void
ci_tm_load_quad (const CiTmParams * p, const float *eotf_lut,
    const CiTmInPlanes * in, int x, int y, float rgb[4][3], float *ylum,
    float *l, float *a)
{
  int f = p->in_format;
  if (f == CI_TM_IN_P010 || f == CI_TM_IN_P016 || f == CI_TM_IN_I420_10) {
    /* 4:2:0: one chroma sample for the quad; same arithmetic as
     * ci_tm_decode */
    float cb, cr, yy[4];
    int sh = f == CI_TM_IN_P010 ? 6 : 0;
    uint32_t mask = f == CI_TM_IN_I420_10 ? 0x3ffu : 0xffffu;
    int x1 = x + 1 < p->width ? x + 1 : x, y1 = y + 1 < p->height ? y + 1 : y;
    const uint8_t *r0 = in->data[0] + (size_t) y * in->stride[0];
    const uint8_t *r1 = in->data[0] + (size_t) y1 * in->stride[0];
    yy[0] = ci_tm_i2f ((ci_tm_rd16 (r0, x) >> sh) & mask);
    yy[1] = ci_tm_i2f ((ci_tm_rd16 (r0, x1) >> sh) & mask);
    yy[2] = ci_tm_i2f ((ci_tm_rd16 (r1, x) >> sh) & mask);
    yy[3] = ci_tm_i2f ((ci_tm_rd16 (r1, x1) >> sh) & mask);
    if (f == CI_TM_IN_I420_10) {
      cb = ci_tm_i2f (ci_tm_rd16 (in->data[1] + (size_t) (y >> 1) *
              in->stride[1], x >> 1) & 0x3ff);
      cr = ci_tm_i2f (ci_tm_rd16 (in->data[2] + (size_t) (y >> 1) *
              in->stride[2], x >> 1) & 0x3ff);
    } else {
      const uint8_t *c0 = in->data[1] + (size_t) (y >> 1) * in->stride[1];
      cb = ci_tm_i2f (ci_tm_rd16 (c0, x) >> sh);
      cr = ci_tm_i2f (ci_tm_rd16 (c0, x + 1) >> sh);
    }
    cb = fmaf (cb, p->c_scale, p->c_off);
    cr = fmaf (cr, p->c_scale, p->c_off);
    for (int i = 0; i < 4; i++) {
      float r, g, b;
      ci_tm_ycc_rgb (p, fmaf (yy[i], p->y_scale, p->y_off), cb, cr, &r, &g,
          &b);
      a[i] = 1.0f;
      ylum[i] = ci_tm_linearize (p, eotf_lut, r, g, b, rgb[i]);
      l[i] = ci_tm_logl (ylum[i], eotf_lut);
    }
    return;
  }
  for (int i = 0; i < 4; i++) {
    int px = x + (i & 1), py = y + (i >> 1);
    px = px < p->width ? px : p->width - 1;
    py = py < p->height ? py : p->height - 1;
    float r, g, b;
    ci_tm_decode (p, in, px, py, &r, &g, &b, &a[i]);
    ylum[i] = ci_tm_linearize (p, eotf_lut, r, g, b, rgb[i]);
    l[i] = ci_tm_logl (ylum[i], eotf_lut);
  }
}

/* Map + encode the loaded quad.  RGB outputs: codes from the 8-bit OETF
 * table; YUV outputs: R'G'B' from the float OETF table, then the matrix. */
CI_HD void
ci_tm_map_quad (const CiTmParams * p, const float *eotf_lut,
    const float *oetf_lut, const uint8_t * oetf8, const float *map_lut,
    const CiTmOutPlanes * out, int x, int y, float rgb[4][3],
    const float *ylum, const int *bin, const float *a)
{
  for (int i = 0; i < 4; i++) {
    float k = ci_tm_factor (p->op, map_lut, eotf_lut, ylum[i], bin[i]);
    ci_tm_gamut (p->op, k, rgb[i]);
  }
  if (p->out_format <= CI_TM_OUT_BGRX) {
    uint32_t w[4];
    for (int i = 0; i < 4; i++)
      w[i] = ci_tm_rgb_word (p->out_format, ci_tm_oetf8 (oetf8, rgb[i][0]),
          ci_tm_oetf8 (oetf8, rgb[i][1]), ci_tm_oetf8 (oetf8, rgb[i][2]), a[i]);
    ci_tm_store_rgb_quad (p, out, x, y, w);
    return;
  }
  for (int i = 0; i < 4; i++)
    for (int c = 0; c < 3; c++)
      rgb[i][c] = ci_tm_lut (oetf_lut, CI_TM_TRC_LUT, rgb[i][c]);
  ci_tm_encode_quad (p, out, x, y, rgb);
}

#ifdef __cplusplus
}
#endif
