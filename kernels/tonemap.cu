/* gst-cuda-imaging: HDR -> SDR tone mapping, CUDA kernels.
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Built with --fmad=false (see kernels/meson.build): together with the
 * explicit fmaf() calls in tonemap_math.h this makes every pixel's
 * histogram bin bit-identical to the C reference.
 *
 * One thread handles a 2x2 quad (4:2:0 chroma is shared by it), in a
 * grid-stride loop over a grid of a few blocks per SM, so each block's
 * shared-memory histogram absorbs many pixels before its single merge into
 * the global one (the seed's one-global-atomic-per-pixel histogram is what
 * "cannot handle large images").
 */
#include "tonemap_cuda.h"

#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include "cipdl.cuh"
#include <math.h>
#include <stdlib.h>
#include <type_traits>

#define TM_BLOCK 256
#define TM_UPD 1024
#define TM_TRC_N CI_TM_TRC_N
#define TM_EOTF_N CI_TM_EOTF_N
#define TM_TRC_PAD ((TM_TRC_N + 3) & ~3)    /* keeps the next table 16-byte aligned */
#define TM_O8_PAD ((CI_TM_OETF8_N + 15) & ~15)  /* 8-bit OETF table, bytes */
/* fast kernels: (value, next - value) pairs of the log and OETF tables */
#ifndef TM_FBLOCK
#define TM_FBLOCK 1024          /* threads per block of the fast kernels */
#endif
#ifndef TM_FMINB
#define TM_FMINB 1              /* blocks per SM they are compiled for (64 registers) */
#endif
#define TM_O2_N (CI_TM_TRC_LUT + 2)     /* OETF: 4097 pairs used; even count keeps 16-byte alignment */
#define TM_L2_N (CI_TM_LOG_LUT + 2)     /* 257 pairs used */
#define TM_BINT_PAD ((CI_TM_KEYS + 7) & ~7)     /* bins of the cell keys, uint16 */
static_assert (CI_TM_EOTF_N % 4 == 0, "the fast kernels' tables follow the EOTF table 16-byte aligned");
#define TM_NIC 5                        /* input classes of the fast kernels (TmRaw) */
#define TM_FKEYS_SMEM ((TM_EOTF_N + CI_TM_KEYS) * sizeof (float))   /* tm_fast_keys_kernel */

#define CK(x) do { int e_ = (int) (x); if (e_ != 0) return e_; } while (0)
#define CKL() CK (cudaGetLastError ())

struct TmDevState
{
  float smin, smax, blo, bhi;
  int count, cuts;
};

struct CiTmCuda
{
  CiTmParams p;
  CiTmCudaRuntime rt;
  int impl;
  int bins, primed;
  bool pdl;                     /* update kernel dependent-launched (sm_90+) */
  float *d_eotf, *d_oetf, *d_map;
  float2 *d_pairs;              /* TM_L2_N log pairs, TM_O2_N OETF pairs */
  uint8_t *d_oetf8;             /* TM_O8_PAD bytes */
  int grid_fast[TM_NIC][2][2];  /* [input class][output class][stats] */
  int grid_fkeys[TM_NIC];       /* [input class]: still statistics */
  size_t smem_fast[2][2];       /* [output class][stats] */
  size_t smem_limit;            /* the device's per-block opt-in maximum */
  CiTmMapRange *d_range;
  uint32_t *d_hist, *d_keys;
  uint32_t *d_kh;               /* CI_TM_KEYS cell counts (still frames) */
  unsigned long long *d_s;
  TmDevState *d_st;
  int grid_minmax, grid_hist, grid_map, grid_map_stats;
  size_t smem_minmax, smem_hist, smem_map, smem_map_stats;
  /* CUB statistics */
  float *d_l, *d_mm;
  uint16_t *d_bin;
  void *d_tmp;
  size_t tmp_bytes;
};

struct TmMin
{
  __device__ __forceinline__ float operator() (float a, float b) const
  {
    return fminf (a, b);
  }
};

struct TmMax
{
  __device__ __forceinline__ float operator() (float a, float b) const
  {
    return fmaxf (a, b);
  }
};

/* Grid-stride walk over 2x2 quads without a division per step: the
 * stride is split once into whole rows and a remainder. */
#define TM_QUAD_LOOP_SETUP(p) \
  const int qw = ((p).width + 1) / 2, qh = ((p).height + 1) / 2; \
  const unsigned stride_ = gridDim.x * blockDim.x; \
  const int sy_ = (int) (stride_ / (unsigned) qw), sx_ = (int) (stride_ % (unsigned) qw); \
  unsigned start_ = blockIdx.x * blockDim.x + threadIdx.x; \
  int qy = (int) (start_ / (unsigned) qw), qx = (int) (start_ % (unsigned) qw)
#define TM_QUAD_NEXT() \
  (qx += sx_, qy += sy_, (qx >= qw ? (qx -= qw, qy++) : 0))

/* Tables into shared memory at block start: 16-byte copies. ASYNC (the
 * fast kernels, one block per SM, sm_80+): by cp.async, so that every
 * table's loads are in flight at once rather than a round trip to L2 per
 * table, and tm_copy_wait () before the barrier that publishes them.
 * Otherwise (the generic kernels, several blocks per SM) unrolled loads
 * through L1: cp.async.cg, which skips L1, made the generic map kernel
 * slower (H200, 4K Y444_16 video 76.5 -> 80.1 us). */
template < bool ASYNC = false > static __device__ __forceinline__ void
tm_copy (float *dst, const float *src, int n)
{
  int n4 = 0;
  if ((((uintptr_t) dst | (uintptr_t) src) & 15) == 0) {
    n4 = n >> 2;
    float4 *d4 = (float4 *) dst;
    const float4 *s4 = (const float4 *) src;
#if __CUDA_ARCH__ >= 800
    if (ASYNC) {
      const uint32_t d = (uint32_t) __cvta_generic_to_shared (d4);
      for (int i = threadIdx.x; i < n4; i += blockDim.x)
        asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"::"r" (d +
                16u * i), "l" (s4 + i):"memory");
    } else
#endif
    {
#pragma unroll 4
      for (int i = threadIdx.x; i < n4; i += blockDim.x)
        d4[i] = s4[i];
    }
    n4 <<= 2;
  }
  for (int i = n4 + threadIdx.x; i < n; i += blockDim.x)
    dst[i] = src[i];
}

static __device__ __forceinline__ void
tm_copy_wait ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.wait_all;":::"memory");
#endif
}

static __device__ __forceinline__ int
tm_map_entries (const CiTmParams & p)
{
  return p.op == CI_TM_OP_HISTOGRAM ? p.bins : CI_TM_CURVE_N;
}

/* Pixels of the quad inside the frame. */
static __device__ __forceinline__ int
tm_valid (const CiTmParams & p, int x, int y, int i)
{
  return x + (i & 1) < p.width && y + (i >> 1) < p.height;
}

/* Min/max of the log-luminance of the quad's pixels inside the frame. */
static __device__ __forceinline__ void
tm_minmax_quad (const CiTmParams & p, int x, int y, const float *l,
    float *lo, float *hi)
{
  for (int i = 0; i < 4; i++)
    if (tm_valid (p, x, y, i)) {
      *lo = fminf (*lo, l[i]);
      *hi = fmaxf (*hi, l[i]);
    }
}

/* Shared histogram update for one quad: a flat quad is one atomic. */
static __device__ __forceinline__ void
tm_hist_quad (uint32_t * h, const CiTmParams & p, int x, int y, const int *bin)
{
  int full = x + 1 < p.width && y + 1 < p.height;
  if (full && bin[1] == bin[0] && bin[2] == bin[0] && bin[3] == bin[0]) {
    atomicAdd (&h[bin[0]], 4u);
    return;
  }
  for (int i = 0; i < 4; i++)
    if (tm_valid (p, x, y, i))
      atomicAdd (&h[bin[i]], 1u);
}

template < int NT = TM_BLOCK > static __device__ __forceinline__ void
tm_merge_minmax (float lo, float hi, uint32_t * keys)
{
  typedef cub::BlockReduce < float, NT > BR;
  __shared__ typename BR::TempStorage ts;
  float bl = BR (ts).Reduce (lo, TmMin ());
  __syncthreads ();
  float bh = BR (ts).Reduce (hi, TmMax ());
  if (threadIdx.x == 0) {
    atomicMin (&keys[0], ci_tm_float_key (bl));
    atomicMax (&keys[1], ci_tm_float_key (bh));
  }
}

static __device__ __forceinline__ void
tm_merge_hist (const uint32_t * h, uint32_t * g, int bins)
{
  __syncthreads ();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    uint32_t c = h[b];
    if (c)
      atomicAdd (&g[b], c);
  }
}

/* The fast kernels' input class of an input format: 0 P010/P016,
 * 1 RGBA64/BGRA64, 2 I420_10, 3 RGB10A2/BGR10A2, 4 Y444_16. */
static __host__ __device__ __forceinline__ int
tm_class_of (int f)
{
  switch (f) {
    case CI_TM_IN_P010:
    case CI_TM_IN_P016:
      return 0;
    case CI_TM_IN_RGBA64:
    case CI_TM_IN_BGRA64:
      return 1;
    case CI_TM_IN_I420_10:
      return 2;
    case CI_TM_IN_RGB10A2:
    case CI_TM_IN_BGR10A2:
      return 3;
    case CI_TM_IN_Y444_16:
      return 4;
    default:
      return -1;
  }
}

/* f (std::integral_constant < int, IC > ()) for the fast kernels' input
 * class ic (0 .. TM_NIC - 1): one dispatch for every launch site and for
 * the generic kernels' aligned-quad decode. */
template < typename F > static __host__ __device__ __forceinline__ void
tm_with_class (int ic, F f)
{
  static_assert (TM_NIC == 5, "one case per input class");
  switch (ic) {
    case 0:
      f (std::integral_constant < int, 0 > ());
      break;
    case 1:
      f (std::integral_constant < int, 1 > ());
      break;
    case 2:
      f (std::integral_constant < int, 2 > ());
      break;
    case 3:
      f (std::integral_constant < int, 3 > ());
      break;
    default:
      f (std::integral_constant < int, 4 > ());
      break;
  }
}

/* Raw input of one full quad: IC 0 = P010/P016 (a0: luma row 0, a1: luma
 * row 1, c: CbCr), IC 1 = RGBA64/BGRA64 (two pixels per row), IC 2 =
 * I420_10 (as IC 0, c: Cb | Cr << 16 from their planes), IC 3 =
 * RGB10A2/BGR10A2 (two pixels per row), IC 4 = Y444_16 (two samples per
 * row of each plane). */
template < int IC > struct TmRaw;
template <> struct TmRaw <0>
{
  uint32_t a0, a1, c;
};
template <> struct TmRaw <1>
{
  uint4 q0, q1;
};
template <> struct TmRaw <2>:TmRaw <0>
{
};
template <> struct TmRaw <3>
{
  uint2 p0, p1;
};
template <> struct TmRaw <4>
{
  uint32_t y0, y1, u0, u1, v0, v1;
};

/* plane pl's T at byte o of row y, and at the same byte of row y + 1 */
template < typename T > static __device__ __forceinline__ void
row_pair (const CiTmInPlanes & in, int pl, int y, size_t o, T & t0, T & t1)
{
  const uint8_t *p = in.data[pl] + (size_t) y * in.stride[pl] + o;
  t0 = __ldg ((const T *) p);
  t1 = __ldg ((const T *) (p + in.stride[pl]));
}

static __device__ __forceinline__ void
tm_raw_load (TmRaw < 0 > &r, const CiTmInPlanes & in, int x, int y)
{
  row_pair (in, 0, y, 2 * x, r.a0, r.a1);
  r.c = __ldg ((const unsigned int *) (in.data[1] + (size_t) (y >> 1) *
          in.stride[1] + 2 * x));
}

static __device__ __forceinline__ void
tm_raw_load (TmRaw < 2 > &r, const CiTmInPlanes & in, int x, int y)
{
  row_pair (in, 0, y, 2 * x, r.a0, r.a1);
  const size_t c = (size_t) (y >> 1) * in.stride[1] + x;
  const size_t c2 = (size_t) (y >> 1) * in.stride[2] + x;
  r.c = __ldg ((const unsigned short *) (in.data[1] + c)) |
      ((uint32_t) __ldg ((const unsigned short *) (in.data[2] + c2)) << 16);
}

static __device__ __forceinline__ void
tm_raw_load (TmRaw < 3 > &r, const CiTmInPlanes & in, int x, int y)
{
  row_pair (in, 0, y, 4 * x, r.p0, r.p1);
}

static __device__ __forceinline__ void
tm_raw_load (TmRaw < 4 > &r, const CiTmInPlanes & in, int x, int y)
{
  row_pair (in, 0, y, 2 * x, r.y0, r.y1);
  row_pair (in, 1, y, 2 * x, r.u0, r.u1);
  row_pair (in, 2, y, 2 * x, r.v0, r.v1);
}

static __device__ __forceinline__ void
tm_raw_load (TmRaw < 1 > &r, const CiTmInPlanes & in, int x, int y)
{
  row_pair (in, 0, y, 8 * x, r.q0, r.q1);
}

/* Decode (as ci_tm_load_quad): non-linear R'G'B' and alpha.  4:2:0
 * samples: (v >> sh) & mask, P010 (6, 0xffff), P016 (0, 0xffff), I420_10
 * (0, 0x3ff). */
static __device__ __forceinline__ void
tm_decode_420 (uint32_t a0, uint32_t a1, uint32_t c, int sh, uint32_t m,
    const CiTmParams & p, float *r, float *g, float *b, float *a)
{
  /* the same codes, each by a shift and one and-or (mask and magic):
   * a low half as (x >> sh) & (m & 0xffff >> sh), a high half as
   * x >> (16 + sh), masked where m is narrower than the half */
  const uint32_t ml = m & (0xffffu >> sh), sh2 = 16u + (uint32_t) sh;
  auto lo =[&](uint32_t x) {
    /* (x >> sh) & ml | magic as one lop3: written in C, ptxas turned it
     * into (x & 0xffff) >> sh and an or, one instruction more */
    uint32_t u;
    asm ("lop3.b32 %0, %1, %2, %3, 0xEA;":"=r" (u):"r" (x >> sh), "r" (ml),
        "r" (0x4B400000u));
    return ci_tm_u2f (u) - CI_TM_MAGIC;
  };
  auto hi =[&](uint32_t x) {
    return ci_tm_i2f (m == 0xffffu ? x >> sh2 : (x >> sh2) & m);
  };
  float yy[4];
  yy[0] = lo (a0);
  yy[1] = hi (a0);
  yy[2] = lo (a1);
  yy[3] = hi (a1);
  float u = fmaf (lo (c), p.c_scale, p.c_off);
  float v = fmaf (hi (c), p.c_scale, p.c_off);
  for (int i = 0; i < 4; i++) {
    ci_tm_ycc_rgb (&p, fmaf (yy[i], p.y_scale, p.y_off), u, v, &r[i], &g[i],
        &b[i]);
    a[i] = 1.0f;
  }
}

static __device__ __forceinline__ void
tm_raw_decode (const TmRaw < 0 > &q, const CiTmParams & p, float *r,
    float *g, float *b, float *a)
{
  tm_decode_420 (q.a0, q.a1, q.c, p.in_format == CI_TM_IN_P010 ? 6 : 0,
      0xffffu, p, r, g, b, a);
}

static __device__ __forceinline__ void
tm_raw_decode (const TmRaw < 2 > &q, const CiTmParams & p, float *r,
    float *g, float *b, float *a)
{
  tm_decode_420 (q.a0, q.a1, q.c, 0, 0x3ffu, p, r, g, b, a);
}

static __device__ __forceinline__ void
tm_raw_decode (const TmRaw < 1 > &q, const CiTmParams & p, float *r,
    float *g, float *b, float *a)
{
  const bool rgba = p.in_format == CI_TM_IN_RGBA64;
  for (int i = 0; i < 4; i++) {
    const uint4 & w = (i >> 1) ? q.q1 : q.q0;
    uint32_t lo = (i & 1) ? w.z : w.x;
    uint32_t hi = (i & 1) ? w.w : w.y;
    float c0 = ci_tm_i2f (lo & 0xffffu) * (1.0f / 65535.0f);
    float c2 = ci_tm_i2f (hi & 0xffffu) * (1.0f / 65535.0f);
    g[i] = ci_tm_i2f (lo >> 16) * (1.0f / 65535.0f);
    r[i] = rgba ? c0 : c2;
    b[i] = rgba ? c2 : c0;
    a[i] = ci_tm_i2f (hi >> 16) * (1.0f / 65535.0f);
  }
}

/* as ci_tm_decode's Y444_16 case: chroma per pixel */
static __device__ __forceinline__ void
tm_raw_decode (const TmRaw < 4 > &q, const CiTmParams & p, float *r,
    float *g, float *b, float *a)
{
  const uint32_t yw[4] = { q.y0 & 0xffffu, q.y0 >> 16, q.y1 & 0xffffu,
    q.y1 >> 16
  };
  const uint32_t uw[4] = { q.u0 & 0xffffu, q.u0 >> 16, q.u1 & 0xffffu,
    q.u1 >> 16
  };
  const uint32_t vw[4] = { q.v0 & 0xffffu, q.v0 >> 16, q.v1 & 0xffffu,
    q.v1 >> 16
  };
  for (int i = 0; i < 4; i++) {
    ci_tm_ycc_rgb (&p, fmaf (ci_tm_i2f (yw[i]), p.y_scale, p.y_off),
        fmaf (ci_tm_i2f (uw[i]), p.c_scale, p.c_off),
        fmaf (ci_tm_i2f (vw[i]), p.c_scale, p.c_off), &r[i], &g[i], &b[i]);
    a[i] = 1.0f;
  }
}

/* as ci_tm_decode's RGB10A2/BGR10A2 case */
static __device__ __forceinline__ void
tm_raw_decode (const TmRaw < 3 > &q, const CiTmParams & p, float *r,
    float *g, float *b, float *a)
{
  const bool rgb = p.in_format == CI_TM_IN_RGB10A2;
  const uint32_t px[4] = { q.p0.x, q.p0.y, q.p1.x, q.p1.y };
  for (int i = 0; i < 4; i++) {
    const uint32_t v = px[i];
    float c0 = ci_tm_i2f (v & 0x3ff) * (1.0f / 1023.0f);
    float c2 = ci_tm_i2f ((v >> 20) & 0x3ff) * (1.0f / 1023.0f);
    g[i] = ci_tm_i2f ((v >> 10) & 0x3ff) * (1.0f / 1023.0f);
    r[i] = rgb ? c0 : c2;
    b[i] = rgb ? c2 : c0;
    a[i] = ci_tm_i2f (v >> 30) * (1.0f / 3.0f);
  }
}

/* One aligned full quad of input class IC, loaded and decoded. */
template < int IC > static __device__ __forceinline__ void
tm_quad_decode (const CiTmParams & p, const CiTmInPlanes & in, int x, int y,
    float *r, float *g, float *b, float *a)
{
  TmRaw < IC > q;
  tm_raw_load (q, in, x, y);
  tm_raw_decode (q, p, r, g, b, a);
}

/* Aligned full quads for the generic kernels: the fast kernels' loads and
 * decodes (so the same bits as ci_tm_load_quad), then the generic tables. */
static __device__ __forceinline__ void
tm_load_quad_vec (const CiTmParams & p, const float *eotf,
    const CiTmInPlanes & in, int x, int y, float rgb[4][3], float *yl,
    float *l, float *a)
{
  float r[4], g[4], b[4];
  tm_with_class (tm_class_of (p.in_format),[&](auto k) {
        tm_quad_decode < decltype (k)::value > (p, in, x, y, r, g, b, a);
      });
  for (int i = 0; i < 4; i++) {
    yl[i] = ci_tm_linearize (&p, eotf, r[i], g[i], b[i], rgb[i]);
    l[i] = ci_tm_logl (yl[i], eotf);
  }
}

template < bool VEC > __global__ void __launch_bounds__ (TM_BLOCK)
tm_minmax_kernel (CiTmParams p, CiTmInPlanes in, const float *g_eotf,
    uint32_t * keys)
{
  extern __shared__ float sm[];
  float *eotf = sm;
  tm_copy (eotf, g_eotf, TM_EOTF_N);
  __syncthreads ();
  TM_QUAD_LOOP_SETUP (p);
  float lo = INFINITY, hi = -INFINITY;
  for (; qy < qh; TM_QUAD_NEXT ()) {
    int x = 2 * qx, y = 2 * qy;
    float rgb[4][3], yl[4], l[4], a[4];
    if (VEC && x + 1 < p.width && y + 1 < p.height)
      tm_load_quad_vec (p, eotf, in, x, y, rgb, yl, l, a);
    else
      ci_tm_load_quad (&p, eotf, &in, x, y, rgb, yl, l, a);
    tm_minmax_quad (p, x, y, l, &lo, &hi);
  }
  tm_merge_minmax (lo, hi, keys);
}

/* use_keys: range from this frame's min/max (still mode), else from args. */
template < bool VEC > __global__ void __launch_bounds__ (TM_BLOCK)
tm_hist_kernel (CiTmParams p, CiTmInPlanes in, const float *g_eotf,
    const uint32_t * keys, int use_keys, float lmin, float scale,
    uint32_t * g_hist)
{
  extern __shared__ float sm[];
  float *eotf = sm;
  uint32_t *h = (uint32_t *) (sm + TM_EOTF_N);
  tm_copy (eotf, g_eotf, TM_EOTF_N);
  for (int b = threadIdx.x; b < p.bins; b += blockDim.x)
    h[b] = 0;
  if (use_keys) {
    float mn = ci_tm_key_float (keys[0]), mx = ci_tm_key_float (keys[1]);
    lmin = mn;
    scale = ci_tm_range_scale (mn, mx, p.bins);
  }
  __syncthreads ();
  TM_QUAD_LOOP_SETUP (p);
  for (; qy < qh; TM_QUAD_NEXT ()) {
    int x = 2 * qx, y = 2 * qy;
    float rgb[4][3], yl[4], l[4], a[4];
    int bin[4];
    if (VEC && x + 1 < p.width && y + 1 < p.height)
      tm_load_quad_vec (p, eotf, in, x, y, rgb, yl, l, a);
    else
      ci_tm_load_quad (&p, eotf, &in, x, y, rgb, yl, l, a);
    for (int i = 0; i < 4; i++)
      bin[i] = ci_tm_bin (l[i], lmin, scale, p.bins);
    tm_hist_quad (h, p, x, y, bin);
  }
  tm_merge_hist (h, g_hist, p.bins);
}

/* BT.709 OETF from the hardware log2/exp2 (continuous path). */
static __device__ __forceinline__ float
tm_oetf_hw (float v)
{
  v = ci_tm_clamp01 (v);
  return v < 0.018f ? 4.5f * v : 1.099f * exp2f (0.45f * __log2f (v)) - 0.099f;
}

/* Map + encode; VEC: full quad with aligned planes, wide stores; hwo:
 * hardware OETF instead of the tables. */
template < bool VEC > static __device__ __forceinline__ void
tm_map_quad_dev (const CiTmParams & p, bool hwo, const float *eotf,
    const float *oetf, const uint8_t * oetf8, const float *map,
    const CiTmOutPlanes & out, int x, int y, float rgb[4][3],
    const float *yl, const int *bin, const float *a)
{
  for (int i = 0; i < 4; i++) {
    float k = ci_tm_factor (p.op, map, eotf, yl[i], bin[i]);
    ci_tm_gamut (p.op, k, rgb[i]);
  }
  const int f = p.out_format;
  if (f <= CI_TM_OUT_BGRX) {
    uint32_t w[4];
    for (int i = 0; i < 4; i++) {
      uint32_t c[3];
      for (int j = 0; j < 3; j++)
        c[j] = hwo ? ci_tm_q8 (tm_oetf_hw (rgb[i][j])) :
            ci_tm_oetf8 (oetf8, rgb[i][j]);
      w[i] = ci_tm_rgb_word (f, c[0], c[1], c[2], a[i]);
    }
    if (VEC) {
      uint8_t *r0 = out.data[0] + (size_t) y * out.stride[0] + 4 * x;
      *(uint2 *) r0 = make_uint2 (w[0], w[1]);
      *(uint2 *) (r0 + out.stride[0]) = make_uint2 (w[2], w[3]);
    } else
      ci_tm_store_rgb_quad (&p, &out, x, y, w);
    return;
  }
  for (int i = 0; i < 4; i++)
    for (int c = 0; c < 3; c++)
      rgb[i][c] = hwo ? tm_oetf_hw (rgb[i][c]) :
          ci_tm_lut (oetf, CI_TM_TRC_LUT, rgb[i][c]);
  ci_tm_encode_quad (&p, &out, x, y, rgb);
}

/* Map (+ this frame's statistics when STATS: video mode). */
template < bool STATS, bool VEC > __global__ void
__launch_bounds__ (TM_BLOCK)
tm_map_kernel (CiTmParams p, CiTmInPlanes in, CiTmOutPlanes out,
    const float *g_eotf, const float *g_oetf, const uint8_t * g_oetf8,
    const float *g_map, const CiTmMapRange * g_range, uint32_t * g_hist,
    uint32_t * keys, int hwo)
{
  extern __shared__ float sm[];
  if (STATS)
    ci_pdl_launch_next ();
  int nmap = tm_map_entries (p);
  float *eotf = sm, *oetf = sm + TM_EOTF_N, *map = oetf + TM_TRC_PAD;
  uint8_t *o8 = (uint8_t *) (map + ((nmap + 3) & ~3));
  uint32_t *h = (uint32_t *) (o8 + TM_O8_PAD);
  tm_copy (eotf, g_eotf, TM_EOTF_N);
  tm_copy (oetf, g_oetf, TM_TRC_N);
  tm_copy (map, g_map, nmap);
  tm_copy ((float *) o8, (const float *) g_oetf8, TM_O8_PAD / 4);
  if (STATS)
    for (int b = threadIdx.x; b < p.bins; b += blockDim.x)
      h[b] = 0;
  float lmin = g_range->lmin, scale = g_range->scale;
  __syncthreads ();
  TM_QUAD_LOOP_SETUP (p);
  float lo = INFINITY, hi = -INFINITY;
  for (; qy < qh; TM_QUAD_NEXT ()) {
    int x = 2 * qx, y = 2 * qy;
    float rgb[4][3], yl[4], l[4], a[4];
    int bin[4];
    const bool full = x + 1 < p.width && y + 1 < p.height;
    if (VEC && full)
      tm_load_quad_vec (p, eotf, in, x, y, rgb, yl, l, a);
    else
      ci_tm_load_quad (&p, eotf, &in, x, y, rgb, yl, l, a);
    for (int i = 0; i < 4; i++)
      bin[i] = ci_tm_bin (l[i], lmin, scale, p.bins);
    if (STATS) {
      tm_hist_quad (h, p, x, y, bin);
      tm_minmax_quad (p, x, y, l, &lo, &hi);
    }
    if (VEC && full)
      tm_map_quad_dev < true > (p, hwo != 0, eotf, oetf, o8, map, out, x, y,
          rgb, yl, bin, a);
    else
      tm_map_quad_dev < false > (p, hwo != 0, eotf, oetf, o8, map, out, x, y,
          rgb, yl, bin, a);
  }
  if (STATS) {
    tm_merge_hist (h, g_hist, p.bins);
    tm_merge_minmax (lo, hi, keys);
  }
}

/* ---- fast kernels: P010/P016, I420_10, RGBA64/BGRA64 or RGB10A2/BGR10A2
 * in; RGB or 4:2:0 out; still-frame statistics ----
 * Same arithmetic as the generic path (so the same bins and codes), with:
 * in the map kernels the plain EOTF table (nearest node), each pixel's bin
 * from a per-block table over the cell keys (ci_tm_bin_of_key), the
 * curves' log and the 4:2:0 outputs' OETF as (value, next - value) pairs
 * (one 8-byte shared load per interpolated lookup; next - value is the
 * float difference the generic lookup computes, so the result is
 * bit-identical) and the 8-bit OETF table for RGB outputs, all read at
 * shared addresses set up once (tm_sbase); in the still-frame statistics
 * kernel the plain EOTF and log table through the reference's functions;
 * the next quad's input loaded before the current one is computed, a hot loop over full
 * quads only (odd last row/column afterwards, by the reference's own
 * functions), one small kernel per input class x output class (the generic
 * kernel's all-format code does not fit the instruction cache). */

/* ci_tm_lut with pairs */
static __device__ __forceinline__ float
tm_lut2 (const float2 * lut, float v)
{
  float f = ci_tm_clamp01 (v) * (float) CI_TM_TRC_LUT;
  float r = (f - 0.5f) + CI_TM_MAGIC;
  int i = (int) (ci_tm_f2u (r) - 0x4B400000u);
  float t = f - (r - CI_TM_MAGIC);
  float2 e = lut[i];
  return fmaf (t, e.y, e.x);
}

/* ci_tm_logc with pairs */
static __device__ __forceinline__ float
tm_logc2 (float y, const float2 * lg)
{
  uint32_t u = ci_tm_f2u (y + CI_TM_EPS);
  float t = ci_tm_u2f (0x3f800000u | ((u & 0x7fffu) << 8)) - 1.0f;
  float e = ci_tm_u2f (0x4B400000u | (u >> 23)) - (CI_TM_MAGIC + 127.0f);
  float2 m = lg[(u >> 15) & 0xffu];
  return (e + fmaf (t, m.y, m.x)) * CI_TM_LOG10_2;
}

/* Shared-memory loads at a 32-bit address, so that a table index that is
 * the bits of (x + MAGIC) needs no subtraction: the magic is taken out of
 * the base once (tm_sbase). volatile: without it an asm may move above
 * the barrier that ends the tables' copy. */
static __device__ __forceinline__ uint32_t
tm_sbase (const void *p, uint32_t off)
{
  /* through a shuffle, opaque to ptxas: it would split the offset out of
   * the base again and add it per lookup (H100, 4K P010 video: 53.6 ->
   * 50.4 us) */
  return __shfl_sync (0xffffffffu, (uint32_t) __cvta_generic_to_shared (p) -
      off, 0);
}

#define TM_LDS(name, ptx) static __device__ __forceinline__ uint32_t \
  name (uint32_t a) \
  { \
    uint32_t v; \
    asm volatile ("ld.shared." ptx " %0, [%1];":"=r" (v):"r" (a)); \
    return v; \
  }
TM_LDS (tm_lds_u32, "u32")
TM_LDS (tm_lds_u16, "u16")
TM_LDS (tm_lds_u8, "u8")
#undef TM_LDS

/* ci_tm_eotf from the plain table at shared address eb = tm_sbase (table,
 * 4 * 0x4B400000) */
static __device__ __forceinline__ float
tm_eotf_s (uint32_t eb, float v)
{
  return ci_tm_u2f (tm_lds_u32 (eb + (ci_tm_f2u (fmaf (ci_tm_clamp01 (v),
                  (float) CI_TM_TRC_LUT, CI_TM_MAGIC)) << 2)));
}

/* ci_tm_oetf8 from the byte table at ob = tm_sbase (table, 0x4B400000);
 * v already in [0,1] */
static __device__ __forceinline__ uint32_t
tm_oetf8_s (uint32_t ob, float v)
{
  return tm_lds_u8 (ob + ci_tm_f2u (fmaf (v, (float) CI_TM_TRC_LUT,
              CI_TM_MAGIC)));
}

/* Index of a cell key in the key histogram, from the key's offset ko = k
 * - CI_TM_KEY0: the clamp of ci_tm_bin_of_key, so that folding the cells
 * into bins gives each pixel the bin the map kernels look up. */
static __device__ __forceinline__ uint32_t
tm_cell (uint32_t ko)
{
  return min (ko, CI_TM_KEYS - 1u);
}

/* ci_tm_bin_of_key from the per-frame table at bb = shared address of
 * bin[0] (one entry per cell), for the key's offset ko = k - CI_TM_KEY0 */
static __device__ __forceinline__ int
tm_bin_s (uint32_t bb, uint32_t ko)
{
  return (int) tm_lds_u16 (bb + 2u * tm_cell (ko));
}

/* ci_tm_factor's histogram case without its select of 0 for y <= 0: y is
 * 0 only where the pixel's three linear channels are (each is 0 or a
 * table value far above 2^-100, times a positive weight), and then the
 * rgb that k multiplies is zero and the quotient finite (map <= 1), so
 * the product is the same +0. */
static __device__ __forceinline__ float
tm_hist_factor (const float *map, float y, int bin)
{
  return ci_tm_fdiv_nrm (map[bin], fmaxf (y, 0x1p-100f));
}

/* ci_tm_light for a quad (r, g, b: its non-linear R'G'B'), the same steps
 * per pixel, but HLG's and the primaries' branches taken once per quad
 * rather than per pixel */
static __device__ __forceinline__ void
tm_light_quad (const CiTmParams & p, uint32_t eb, const float *r,
    const float *g, const float *b, float (*rgb)[3], float *yl)
{
  float l[4][3];
  for (int i = 0; i < 4; i++) {
    l[i][0] = tm_eotf_s (eb, r[i]);
    l[i][1] = tm_eotf_s (eb, g[i]);
    l[i][2] = tm_eotf_s (eb, b[i]);
    yl[i] = ci_tm_lum (&p, l[i][0], l[i][1], l[i][2]);
  }
  if (p.transfer == CI_TM_TRC_HLG)
    for (int i = 0; i < 4; i++)
      ci_tm_hlg_ootf (&p, &l[i][0], &l[i][1], &l[i][2], &yl[i]);
  if (p.convert_primaries)
    for (int i = 0; i < 4; i++)
      ci_tm_bt2087 (l[i][0], l[i][1], l[i][2], rgb[i]);
  else
    for (int i = 0; i < 4; i++)
      for (int c = 0; c < 3; c++)
        rgb[i][c] = l[i][c];
}

/* ci_tm_gamut for a quad: one branch for the quad's usual case, all four
 * pixels in gamut */
static __device__ __forceinline__ void
tm_gamut_quad (int op, const float *k, float (*rgb)[3])
{
  int in[4];
  for (int i = 0; i < 4; i++) {
    for (int c = 0; c < 3; c++)
      rgb[i][c] *= k[i];
    in[i] = ci_tm_in01 (rgb[i][0], rgb[i][1], rgb[i][2]);
  }
  if (!(in[0] & in[1] & in[2] & in[3]))
    for (int i = 0; i < 4; i++)
      if (!in[i])
        ci_tm_gamut_fix (op, rgb[i]);
}

/* ci_tm_rgb_word as two byte permutes and an or (r8, g8, b8: bytes 0 of
 * their words, the rest zero): srb = tm_rb_sel (f) puts r8 and b8 at
 * bytes 0 and 2 in the format's order, 0x4101 g8 and alpha at 1 and 3.
 * The fast kernels take srb as an argument: the permute reads it from the
 * constant bank, where a value computed in the kernel was recomputed for
 * every pixel (64 registers). */
static __host__ __device__ __forceinline__ uint32_t
tm_rb_sel (int f)
{
  return ci_tm_out_bgr (f) ? 0x1014u : 0x1410u;
}

/* OPAQUE: an input without alpha (a = 1, so alpha 255 in every format):
 * the alpha byte or-ed in and g8 shifted in by one add, not a second
 * permute of g8 and a constant 255 that had to be set per pixel */
template < bool OPAQUE > static __device__ __forceinline__ uint32_t
tm_rgb_word (uint32_t srb, int f, uint32_t r8, uint32_t g8, uint32_t b8,
    float a)
{
  if (OPAQUE)
    return (__byte_perm (r8, b8, srb) | 0xff000000u) + (g8 << 8);
  const uint32_t a8 = ci_tm_alpha8 (f, a);
  return __byte_perm (r8, b8, srb) | __byte_perm (g8, a8, 0x4101u);
}

/* A full quad into a shared histogram at idx[] (bins or cells): one
 * atomic where the four agree (flat areas); and the min/max of its cell
 * keys' offsets ko = k - CI_TM_KEY0 (what the bin address is computed
 * from: the key itself would be computed again for this). */
template < typename I > static __device__ __forceinline__ void
tm_count_quad (uint32_t * h, const I * idx, const uint32_t * key,
    uint32_t & klo, uint32_t & khi)
{
  if (idx[1] == idx[0] && idx[2] == idx[0] && idx[3] == idx[0])
    atomicAdd (&h[idx[0]], 4u);
  else
    for (int i = 0; i < 4; i++)
      atomicAdd (&h[idx[i]], 1u);
  klo = min (klo, min (min (key[0], key[1]), min (key[2], key[3])));
  khi = max (khi, max (max (key[0], key[1]), max (key[2], key[3])));
}

/* The range of L from tm_count_quad's key offsets klo..khi (none counted:
 * klo > khi, *lo and *hi left as they are) */
static __device__ __forceinline__ void
tm_key_range (uint32_t klo, uint32_t khi, const float *eotf, float *lo,
    float *hi)
{
  if (klo <= khi) {
    *lo = ci_tm_logq (klo + CI_TM_KEY0, eotf);
    *hi = ci_tm_logq (khi + CI_TM_KEY0, eotf);
  }
}

/* The fast kernels' walk: a grid-stride loop over the full 2x2 quads
 * (qwf x qhf) without a division per step, then the edge quads of an odd
 * width (last column) or height (last row), by the generic code. */
struct TmFullQuads
{
  int qwf, qhf, qw, qh, sx, sy, qx, qy;
  unsigned start, stride;
  __device__ __forceinline__ TmFullQuads (const CiTmParams & p)
  {
    qwf = p.width >> 1;
    qhf = p.height >> 1;
    qw = (p.width + 1) >> 1;
    qh = (p.height + 1) >> 1;
    stride = gridDim.x * blockDim.x;
    sy = (int) (stride / (unsigned) qwf);
    sx = (int) (stride % (unsigned) qwf);
    /* warp w of block b starts at warp w * gridDim.x + b of the grid: the
     * last, partial trip's warps are spread over every SM rather than
     * packed into the first blocks (blockDim.x is a multiple of 32) */
    start = (((threadIdx.x >> 5) * gridDim.x + blockIdx.x) << 5) |
        (threadIdx.x & 31);
    qy = (int) (start / (unsigned) qwf);
    qx = (int) (start % (unsigned) qwf);
  }
  __device__ __forceinline__ bool more () const
  {
    return qy < qhf;
  }
  __device__ __forceinline__ void next ()
  {
    qx += sx;
    qy += sy;
    if (qx >= qwf) {
      qx -= qwf;
      qy++;
    }
  }
  /* the edge quads (the last column's qh for an odd width, then the last
   * row's qwf for an odd height), loaded by the generic code, to
   * f (x, y, rgb, yl, l, a) */
  template < typename F > __device__ __forceinline__ void
  edge_quads (const CiTmParams & p, const float *g_eotf,
      const CiTmInPlanes & in, F f) const
  {
    const int ncol = qw > qwf ? qh : 0, n = ncol + (qh > qhf ? qwf : 0);
    for (int e = (int) start; e < n; e += (int) stride) {
      const int x = e < ncol ? 2 * (qw - 1) : 2 * (e - ncol);
      const int y = e < ncol ? 2 * e : 2 * (qh - 1);
      float rgb[4][3], yl[4], l[4], a[4];
      ci_tm_load_quad (&p, g_eotf, &in, x, y, rgb, yl, l, a);
      f (x, y, rgb, yl, l, a);
    }
  }
};


template < int IC, int OC, bool STATS > __global__ void
__launch_bounds__ (TM_FBLOCK, TM_FMINB)
tm_fast_kernel (CiTmParams p, CiTmInPlanes in, CiTmOutPlanes out,
    const float2 * g_pairs, const float *g_eotf, const uint8_t * g_oetf8,
    const float *g_oetf, const float *g_map, const CiTmMapRange * g_range,
    uint32_t * g_hist, uint32_t * keys, uint32_t srb)
{
  extern __shared__ float4 sm4[];
  if (STATS)
    ci_pdl_launch_next ();      /* the update kernel may take a freed SM */
  const int nmap = tm_map_entries (p);
  /* the EOTF and log table; the log pairs (curves); OC 1: OETF pairs; the
   * map; the bins of the cell keys; OC 0: the 8-bit OETF; the histogram */
  float *eotf = (float *) sm4;
  float2 *lg2 = (float2 *) (eotf + TM_EOTF_N), *o2 = lg2 + TM_L2_N;
  float *map = (float *) (o2 + (OC ? TM_O2_N : 0));
  uint16_t *bint = (uint16_t *) (map + ((nmap + 3) & ~3));
  uint8_t *o8 = (uint8_t *) (bint + TM_BINT_PAD);
  uint32_t *h = (uint32_t *) (o8 + (OC ? 0 : TM_O8_PAD));

  /* Without statistics (still frames), dependent-launched after the
   * update kernel: the fixed tables are copied while it runs; its map,
   * range and cleared statistics (and whatever else came before on the
   * stream) are read after the wait. (With statistics, on video, the
   * same measured no faster, with the update's SM in the grid or left
   * out of it: see docs/tonemap.md.) */
  tm_copy < true > (eotf, g_eotf, TM_EOTF_N);
  tm_copy < true > ((float *) lg2, (const float *) g_pairs,
      2 * (TM_L2_N + (OC ? TM_O2_N : 0)));
  if (!OC)
    tm_copy < true > ((float *) o8, (const float *) g_oetf8, TM_O8_PAD / 4);
  if (STATS)
    for (int b = threadIdx.x; b < p.bins; b += blockDim.x)
      h[b] = 0;
  ci_pdl_wait_prev ();

  /* the first quad's input is in flight while the map is copied */
  TmFullQuads walk (p);
  TmRaw < IC > cur = { };
  if (walk.more ())
    tm_raw_load (cur, in, 2 * walk.qx, 2 * walk.qy);
  tm_copy < true > (map, g_map, nmap);
  const float lmin = g_range->lmin, scale = g_range->scale;
  const int f = p.out_format;
  const uint32_t eb = tm_sbase (eotf, 0x4B400000u << 2);
  const uint32_t ob = tm_sbase (o8, 0x4B400000u);
  const uint32_t bb = tm_sbase (bint, 0);
  tm_copy_wait ();
  __syncthreads ();
  /* each block bins the cell keys itself (7 k entries: a few per thread,
   * cheaper than copying them), unrolled so that a thread's entries are
   * computed side by side rather than one latency after another (every
   * fast kernel is launched with TM_FBLOCK threads) */
#pragma unroll
  for (int j = 0; j < (int) (CI_TM_KEYS + TM_FBLOCK - 1) / TM_FBLOCK; j++) {
    const int c = threadIdx.x + j * TM_FBLOCK;
    if (c < (int) CI_TM_KEYS)
      bint[c] = (uint16_t) ci_tm_bin_of_key (CI_TM_KEY0 + c, eotf, lmin,
          scale, p.bins);
  }
  __syncthreads ();

  /* this frame's range as cell keys' offsets (ci_tm_logq is monotonic in
   * them; the keys are never below CI_TM_KEY0) */
  uint32_t klo = 0xffffffffu, khi = 0u;
  while (walk.more ()) {
    const int x = 2 * walk.qx, y = 2 * walk.qy;
    walk.next ();
    float r[4], g[4], b[4], a[4], rgb[4][3], yl[4];
    uint32_t key[4];
    int bin[4];
    /* decode, then load the next quad: loaded first, P010's loads shared
     * a scoreboard with the decode's constant loads, and every quad
     * waited for the next one's input (Nsight: 16 % of the stall
     * samples on the decode's first shift, H200) */
    tm_raw_decode (cur, p, r, g, b, a);
    TmRaw < IC > nxt = { };
    if (walk.more ())
      tm_raw_load (nxt, in, 2 * walk.qx, 2 * walk.qy);
    tm_light_quad (p, eb, r, g, b, rgb, yl);
    for (int i = 0; i < 4; i++) {
      key[i] = ci_tm_key (yl[i]) - CI_TM_KEY0;
      bin[i] = tm_bin_s (bb, key[i]);
    }
    if (STATS)
      tm_count_quad (h, bin, key, klo, khi);
    float k[4];
    for (int i = 0; i < 4; i++)
      k[i] = p.op == CI_TM_OP_HISTOGRAM ? tm_hist_factor (map, yl[i], bin[i]) :
          ci_tm_curve_factor (map, tm_logc2 (yl[i], lg2));
    tm_gamut_quad (p.op, k, rgb);
    if (!OC) {
      uint32_t w[4];
      for (int i = 0; i < 4; i++)
        w[i] = tm_rgb_word < IC == 0 || IC == 2 || IC == 4 > (srb, f,
            tm_oetf8_s (ob, rgb[i][0]), tm_oetf8_s (ob, rgb[i][1]),
            tm_oetf8_s (ob, rgb[i][2]), a[i]);
      uint8_t *o0 = out.data[0] + (size_t) y * out.stride[0] + 4 * x;
      *(uint2 *) o0 = make_uint2 (w[0], w[1]);
      *(uint2 *) (o0 + out.stride[0]) = make_uint2 (w[2], w[3]);
    } else {
      /* as ci_tm_map_quad: R'G'B' from the float OETF, then the matrix */
      for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++)
          rgb[i][c] = tm_lut2 (o2, rgb[i][c]);
      uint8_t yv[4], u, v;
      ci_tm_yuv_quad (rgb, 2, 2, yv, &u, &v);
      uint8_t *o0 = out.data[0] + (size_t) y * out.stride[0] + x;
      *(uint16_t *) o0 = (uint16_t) (yv[0] | (yv[1] << 8));
      *(uint16_t *) (o0 + out.stride[0]) = (uint16_t) (yv[2] | (yv[3] << 8));
      if (f == CI_TM_OUT_NV12)
        *(uint16_t *) (out.data[1] + (size_t) (y >> 1) * out.stride[1] + x) =
            (uint16_t) (u | (v << 8));
      else {
        out.data[1][(size_t) (y >> 1) * out.stride[1] + (x >> 1)] = u;
        out.data[2][(size_t) (y >> 1) * out.stride[2] + (x >> 1)] = v;
      }
    }
    cur = nxt;
  }

  float lo = INFINITY, hi = -INFINITY;
  if (STATS)
    tm_key_range (klo, khi, eotf, &lo, &hi);
  walk.edge_quads (p, g_eotf, in, [&](int x, int y, float (*rgb)[3],
          const float *yl, const float *l, const float *a) {
        int bin[4];
        for (int i = 0; i < 4; i++)
          bin[i] = ci_tm_bin (l[i], lmin, scale, p.bins);
        if (STATS) {
          tm_hist_quad (h, p, x, y, bin);
          tm_minmax_quad (p, x, y, l, &lo, &hi);
        }
        ci_tm_map_quad (&p, g_eotf, g_oetf, o8, map, &out, x, y, rgb, yl, bin,
            a);
      });
  if (STATS) {
    tm_merge_hist (h, g_hist, p.bins);
    tm_merge_minmax < TM_FBLOCK > (lo, hi, keys);
  }
}

/* Statistics of a still frame in one pass: a histogram of the cell keys
 * (CI_TM_KEYS counters, 28 KB per block) and their min/max. The bins
 * depend on the range, but a cell's bin is a function of its key alone
 * (ci_tm_bin_of_key), so the update kernel folds the cells into this
 * range's bins afterwards: the same histogram as a min/max pass followed
 * by a bin pass (tm_minmax_kernel, tm_hist_kernel), from one read of the
 * frame (H200, 4K still P010: 91.7 -> 72.2 us against those passes in
 * the fast kernels' form). */
template < int IC > __global__ void
__launch_bounds__ (TM_FBLOCK, TM_FMINB)
tm_fast_keys_kernel (CiTmParams p, CiTmInPlanes in, const float *g_eotf,
    uint32_t * keys, uint32_t * g_kh)
{
  extern __shared__ float4 sm4[];
  ci_pdl_launch_next ();        /* the update kernel may take a freed SM */
  float *eotf = (float *) sm4;
  uint32_t *h = (uint32_t *) (eotf + TM_EOTF_N);
  TmFullQuads walk (p);
  TmRaw < IC > cur = { };
  if (walk.more ())
    tm_raw_load (cur, in, 2 * walk.qx, 2 * walk.qy);

  tm_copy < true > (eotf, g_eotf, TM_EOTF_N);
  for (int c = threadIdx.x; c < (int) CI_TM_KEYS; c += blockDim.x)
    h[c] = 0;
  tm_copy_wait ();
  __syncthreads ();

  /* ci_tm_logq is monotonic in the keys: the min/max of their offsets
   * give the range */
  uint32_t klo = 0xffffffffu, khi = 0u;
  while (walk.more ()) {
    walk.next ();
    TmRaw < IC > nxt = { };
    if (walk.more ())
      tm_raw_load (nxt, in, 2 * walk.qx, 2 * walk.qy);
    float r[4], g[4], b[4], a[4], rgb[3];
    uint32_t key[4], c[4];
    tm_raw_decode (cur, p, r, g, b, a);
    for (int i = 0; i < 4; i++) {
      key[i] = ci_tm_key (ci_tm_linearize (&p, eotf, r[i], g[i], b[i], rgb)) -
          CI_TM_KEY0;
      c[i] = tm_cell (key[i]);
    }
    tm_count_quad (h, c, key, klo, khi);
    cur = nxt;
  }

  walk.edge_quads (p, eotf, in, [&](int x, int y, float (*)[3],
          const float *yl, const float *, const float *) {
        int cell[4];
        for (int i = 0; i < 4; i++) {
          const uint32_t k = ci_tm_key (yl[i]) - CI_TM_KEY0;
          cell[i] = (int) tm_cell (k);
          if (tm_valid (p, x, y, i)) {
            klo = min (klo, k);
            khi = max (khi, k);
          }
        }
        tm_hist_quad (h, p, x, y, cell);
      });
  float lo = INFINITY, hi = -INFINITY;
  tm_key_range (klo, khi, eotf, &lo, &hi);
  tm_merge_hist (h, g_kh, (int) CI_TM_KEYS);
  tm_merge_minmax < TM_FBLOCK > (lo, hi, keys);
}

/* The pair tables (log, OETF) and the 8-bit OETF table from the host's
 * float tables. */
__global__ void
tm_tables_kernel (const float *eotf, const float *oetf, float2 * e2,
    uint8_t * o8)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < TM_O2_N)
    e2[TM_L2_N + i] = i <= CI_TM_TRC_LUT ? make_float2 (oetf[i],
        oetf[i + 1] - oetf[i]) : make_float2 (oetf[i], 0.0f);
  if (i < TM_L2_N) {
    const float *lg = eotf + CI_TM_LOG_OFF;
    e2[i] = i <= CI_TM_LOG_LUT ? make_float2 (lg[i],
        lg[i + 1] - lg[i]) : make_float2 (lg[i], 0.0f);
  }
  if (i < TM_O8_PAD)
    o8[i] = i < CI_TM_OETF8_N ? ci_tm_oetf8_entry (oetf, i) : 0;
}

/* The video update's one scan: the KS difference (frame - average), the
 * smoothed values the CDF takes (the last bin left out), and how many bins
 * are occupied. */
struct TmKs
{
  long long d;
  unsigned long long m;
  uint32_t n;
};

struct TmKsSum
{
  __device__ __forceinline__ TmKs operator() (const TmKs & x,
      const TmKs & y) const
  {
    TmKs r = { x.d + y.d, x.m + y.m, x.n + y.n };
    return r;
  }
};

struct TmU64Sum
{
  __device__ __forceinline__ unsigned long long operator() (unsigned long long
      x, unsigned long long y) const
  {
    return x + y;
  }
};

static __device__ __forceinline__ unsigned long long
tm_shfl_up (unsigned long long v, int o)
{
  return __shfl_up_sync (0xffffffffu, v, o);
}

static __device__ __forceinline__ TmKs
tm_shfl_up (const TmKs & v, int o)
{
  TmKs r = { __shfl_up_sync (0xffffffffu, v.d, o),
    __shfl_up_sync (0xffffffffu, v.m, o),
    __shfl_up_sync (0xffffffffu, v.n, o)
  };
  return r;
}

/* Inclusive block scan of per-thread values for TM_UPD threads: shuffles
 * within each warp, one warp over the warp totals, two barriers.  (CUB's
 * raking scan spills at 1024 threads and its warp-scans variant walks all
 * 32 warp totals in every thread.)  sh: 32 slots; *total: the block sum. */
template < typename T, typename Op > static __device__ __forceinline__ T
tm_block_scan (T v, T * sh, Op op, T * total)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    T u = tm_shfl_up (v, o);
    if (lane >= o)
      v = op (u, v);
  }
  if (lane == 31)
    sh[warp] = v;
  __syncthreads ();
  if (warp == 0) {
    T w = sh[lane];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      T u = tm_shfl_up (w, o);
      if (lane >= o)
        w = op (u, w);
    }
    sh[lane] = w;
  }
  __syncthreads ();
  if (warp > 0)
    v = op (sh[warp - 1], v);
  *total = sh[31];
  return v;
}

/* Exclusive sum of IPT consecutive values per thread (in place);
 * *total: the block sum. */
template < int IPT > static __device__ __forceinline__ void
tm_excl_scan (unsigned long long *it, unsigned long long *sh,
    unsigned long long *total)
{
  unsigned long long run = 0;
  for (int i = 0; i < IPT; i++) {
    unsigned long long v = it[i];
    it[i] = run;
    run += v;
  }
  unsigned long long incl = tm_block_scan (run, sh, TmU64Sum (), total);
  for (int i = 0; i < IPT; i++)
    it[i] += incl - run;
}

/* Exact floor(count * 2^32 / total) (ci_tm_frac) without a 64-bit
 * division: a double estimate is within one of the quotient (count <
 * total < 2^32, relative error 2^-52), the remainder picks the right one. */
static __device__ __forceinline__ unsigned long long
tm_frac (uint32_t count, uint32_t total, double two32_over_total)
{
  if (count >= total)
    return ci_tm_frac (count, total);
  unsigned long long num = (unsigned long long) count << 32;
  unsigned long long q = (unsigned long long) ((double) count *
      two32_over_total);
  long long r = (long long) (num - q * total);
  if (r < 0)
    q--;
  else if (r >= (long long) total)
    q++;
  return q;
}

/* Exact ci_tm_ema_u64 from rk = 1.0 / k: |p - s| <= 2^33, so d * rk is
 * within 2^-19 of d / k and truncates to the quotient or one off it; the
 * remainder check picks the quotient. */
static __device__ __forceinline__ unsigned long long
tm_ema (unsigned long long s, unsigned long long p, int k, double rk)
{
  long long d = (long long) p - (long long) s;
  long long q = (long long) ((double) d * rk);
  long long r = d - q * k;
  if (d >= 0) {
    if (r < 0)
      q--;
    else if (r >= k)
      q++;
  } else {
    if (r > 0)
      q++;
    else if (r <= -k)
      q--;
  }
  return (unsigned long long) ((long long) s + q);
}

/* Fold this frame's statistics into the state (do_update), build the map
 * table and range from the state, and clear the statistics buffers.
 * One block of TM_UPD threads, IPT consecutive bins each (bins <= IPT *
 * TM_UPD); mirrors ci_tm_state_update + ci_tm_build_map.  Every global
 * value is loaded up front and the divisions are exact double-based ones.
 * A video frame (the state already primed) takes one scan and one barrier
 * vote: each bin's smoothed value is computed before the cut is known, so
 * that the KS distance and the CDF come from the same scan (a cut sets
 * every bin to 1/bins, whose CDF needs none).  Otherwise: one barrier
 * count (occupied bins) and one scan (CDF). */
template < int IPT > __global__ void __launch_bounds__ (TM_UPD, 1)
tm_update_kernel (int bins, uint32_t total, int window,
    unsigned long long thr, int fresh, int do_update, int op, float target,
    float src_cfg, uint32_t * g_hist, uint32_t * keys,
    unsigned long long *s, TmDevState * st, float *map,
    CiTmMapRange * range, uint32_t * g_kh, const float *g_eotf)
{
  __shared__ union
  {
    TmKs ks[32];
    unsigned long long sc[32];
  } ts;
  __shared__ uint32_t kb[IPT * TM_UPD];      /* the bins this block owns */
  const int t = threadIdx.x, b0 = t * IPT;
  unsigned long long sv[IPT];
  uint32_t hv[IPT];
  /* the exclusive CDF (the last bin left out) and its total, when the
   * video step has them */
  unsigned long long cdf[IPT], top = 0ull;
  int have_cdf = 0, single = 0;
  /* the next frame's map kernel copies its fixed tables meanwhile */
  ci_pdl_launch_next ();
  ci_pdl_wait_prev ();
  TmDevState cur = *st;
  for (int i = 0; i < IPT; i++)
    sv[i] = b0 + i < bins ? s[b0 + i] : 0ull;
  /* the frame's bins with the other loads: one round trip to L2, not two */
  const bool binned = do_update && !g_kh;
  for (int i = 0; i < IPT; i++)
    hv[i] = binned && b0 + i < bins ? g_hist[b0 + i] : 0u;

  if (do_update) {
    const float fmin = ci_tm_key_float (keys[0]);
    const float fmax = ci_tm_key_float (keys[1]);
    if (g_kh) {
      /* a still frame's cell histogram (tm_fast_keys_kernel), folded into
       * the bins of its own range as ci_tm_bin_of_key bins the cells (the
       * cells read are cleared for the next frame) */
      const float scale = ci_tm_range_scale (fmin, fmax, bins);
      for (int i = 0; i < IPT; i++)
        kb[b0 + i] = 0u;
      __syncthreads ();
      for (int c = t; c < (int) CI_TM_KEYS; c += TM_UPD) {
        const uint32_t v = g_kh[c];
        if (v) {
          g_kh[c] = 0u;
          atomicAdd (&kb[ci_tm_bin_of_key (CI_TM_KEY0 + c, g_eotf, fmin,
                      scale, bins)], v);
        }
      }
      __syncthreads ();
      for (int i = 0; i < IPT; i++)
        hv[i] = kb[b0 + i];
    } else {
      /* each thread clears only the bins it has read */
      for (int i = 0; i < IPT; i++)
        if (b0 + i < bins)
          g_hist[b0 + i] = 0;
    }
    if (window < 1)
      window = 1;
    const double inv = 4294967296.0 / (double) total;
    unsigned long long pv[IPT];
    for (int i = 0; i < IPT; i++)
      pv[i] = b0 + i < bins ? tm_frac (hv[i], total, inv) : 0ull;
    TmDevState n;
    if (fresh || cur.count == 0) {
      for (int i = 0; i < IPT; i++)
        sv[i] = pv[i];
      n = { fmin, fmax, fmin, fmax, 1, cur.cuts };
      /* every thread has read the keys before thread 0 resets them */
      __syncthreads ();
    } else {
      const int k = cur.count + 1 < window ? cur.count + 1 : window;
      const double rk = 1.0 / (double) k;
      unsigned long long ev[IPT];
      TmKs it[IPT], run = { 0ll, 0ull, 0u }, tot;
      for (int i = 0; i < IPT; i++) {
        ev[i] = tm_ema (sv[i], pv[i], k, rk);
        run.d += (long long) (pv[i] - sv[i]);
        run.m += b0 + i < bins - 1 ? ev[i] : 0ull;
        run.n += ev[i] != 0ull;
        it[i] = run;
      }
      const TmKs incl = tm_block_scan (run, ts.ks, TmKsSum (), &tot);
      /* KS distance: max |cumulative frame - cumulative average| */
      bool over = false;
      for (int i = 0; i < IPT; i++) {
        const long long c = it[i].d + (incl.d - run.d);
        over |= (unsigned long long) (c < 0 ? -c : c) > thr;
      }
      /* (this barrier also orders every thread's read of the keys before
       * thread 0 resets them) */
      if (__syncthreads_or (over)) {
        const unsigned long long u = CI_TM_ONE / (uint64_t) bins;
        for (int i = 0; i < IPT; i++) {
          sv[i] = u;
          cdf[i] = (unsigned long long) (b0 + i) * u;
        }
        top = (unsigned long long) (bins - 1) * u;
        n = { fmin, fmax, fmin, fmax, 0, cur.cuts + 1 };
      } else {
        for (int i = 0; i < IPT; i++) {
          sv[i] = ev[i];
          cdf[i] = (incl.m - run.m) + it[i].m -
              (b0 + i < bins - 1 ? ev[i] : 0ull);
        }
        top = tot.m;
        single = tot.n <= 1u;
        n = { ci_tm_ema_f (cur.smin, fmin, k), ci_tm_ema_f (cur.smax, fmax,
                k), cur.blo, cur.bhi, k, cur.cuts };
        ci_tm_bin_range (n.smin, n.smax, &n.blo, &n.bhi);
      }
      have_cdf = 1;
    }
    for (int i = 0; i < IPT; i++)
      if (b0 + i < bins)
        s[b0 + i] = sv[i];
    cur = n;
    if (t == 0) {
      *st = n;
      keys[0] = ci_tm_float_key (INFINITY);
      keys[1] = ci_tm_float_key (-INFINITY);
    }
  }

  const float measured = ci_tm_measured_peak (cur.smax);
  float src = src_cfg > 0.0f ? src_cfg : measured;
  if (src < 1e-3f)
    src = 1e-3f;
  if (t == 0) {
    CiTmMapRange r = { cur.blo, ci_tm_range_scale (cur.blo, cur.bhi, bins),
      src, 1
    };
    *range = r;
  }
  if (op == CI_TM_OP_HISTOGRAM) {
    if (!have_cdf) {
      int nz = 0;
      for (int i = 0; i < IPT; i++)
        nz += sv[i] != 0ull;
      /* at most one occupied bin: one thread with one */
      const int occupied = __syncthreads_count (nz > 0);
      const int several = __syncthreads_or (nz > 1);
      single = occupied <= 1 && !several;
      for (int i = 0; i < IPT; i++)
        cdf[i] = b0 + i < bins - 1 ? sv[i] : 0ull;
      tm_excl_scan < IPT > (cdf, ts.sc, &top);
    }
    const float anchor = ci_tm_hist_anchor (measured, target);
    for (int i = 0; i < IPT; i++)
      if (b0 + i < bins)
        map[b0 + i] = ci_tm_hist_target (cdf[i], top, single, anchor);
  } else {
    for (int j = t; j < CI_TM_CURVE_N; j += TM_UPD)
      map[j] = ci_tm_curve_entry (op, j, src, target);
  }
}

__global__ void
tm_reset_stats_kernel (uint32_t * g_hist, int bins, uint32_t * keys)
{
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < bins;
      b += gridDim.x * blockDim.x)
    g_hist[b] = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    keys[0] = ci_tm_float_key (INFINITY);
    keys[1] = ci_tm_float_key (-INFINITY);
  }
}

/* ---- CUB statistics: L buffer, DeviceReduce, bin buffer, DeviceHistogram ---- */
__global__ void
tm_logl_kernel (CiTmParams p, CiTmInPlanes in, const float *g_eotf, float *l)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= p.width)
    return;
  float r, g, b, a, rgb[3];
  ci_tm_decode (&p, &in, x, y, &r, &g, &b, &a);
  l[(size_t) y * p.width + x] =
      ci_tm_logl (ci_tm_linearize (&p, g_eotf, r, g, b, rgb), g_eotf);
}

__global__ void
tm_mm_to_keys_kernel (const float *mm, uint32_t * keys)
{
  keys[0] = ci_tm_float_key (mm[0]);
  keys[1] = ci_tm_float_key (mm[1]);
}

__global__ void
tm_bin_kernel (const float *l, size_t n, const float *mm, int bins,
    uint16_t * out)
{
  float lmin = mm[0], scale = ci_tm_range_scale (mm[0], mm[1], bins);
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x)
    out[i] = (uint16_t) ci_tm_bin (l[i], lmin, scale, bins);
}

template < int IPT > __global__ void __launch_bounds__ (TM_UPD)
tm_scan_test_kernel (const unsigned long long *in, unsigned long long *out,
    int n)
{
  __shared__ unsigned long long sh[32];
  unsigned long long it[IPT], total;
  for (int i = 0; i < IPT; i++) {
    int b = threadIdx.x * IPT + i;
    it[i] = b < n ? in[b] : 0ull;
  }
  tm_excl_scan < IPT > (it, sh, &total);
  for (int i = 0; i < IPT; i++) {
    int b = threadIdx.x * IPT + i;
    if (b < n)
      out[b] = it[i];
  }
}

/* ---- host side ---- */
static int
tm_input_class (const CiTmCuda * tm)
{
  return tm_class_of (tm->p.in_format);
}

/* Blocks of @nt threads for @work_items, as many as fit the SMs at once;
 * *grid = 0 when the kernel does not fit this device at all: its dynamic
 * (@smem) and static shared memory (CUB's temporaries) past the per-block
 * limit. */
static int
tm_grid_n (const CiTmCuda * tm, const void *func, int nt, size_t smem,
    long long work_items, int *grid)
{
  cudaFuncAttributes fa;
  CK (cudaFuncGetAttributes (&fa, func));
  if (smem + fa.sharedSizeBytes > tm->smem_limit) {
    *grid = 0;
    return 0;
  }
  int dev, sms, occ;
  CK (cudaGetDevice (&dev));
  CK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
  CK (ci_cuda_smem_at_least (func, smem));
  CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&occ, func, nt, smem));
  if (occ < 1)
    return (int) cudaErrorInvalidConfiguration;
  long long need = (work_items + nt - 1) / nt;
  long long g = (long long) sms * occ;
  *grid = (int) (g < need ? g : (need > 0 ? need : 1));
  return 0;
}

/* The generic kernels: no fallback, so one that does not fit (bins
 * decides) is an error. */
static int
tm_grid (const CiTmCuda * tm, const void *func, size_t smem,
    long long work_items, int *grid)
{
  CK (tm_grid_n (tm, func, TM_BLOCK, smem, work_items, grid));
  return *grid > 0 ? 0 : (int) cudaErrorLaunchOutOfResources;
}

static int
tm_reset_stats (CiTmCuda * tm, cudaStream_t s)
{
  tm_reset_stats_kernel <<< (tm->bins + 255) / 256, 256, 0, s >>> (tm->d_hist,
      tm->bins, tm->d_keys);
  CKL ();
  return 0;
}

static int
tm_launch_update (CiTmCuda * tm, int fresh, int do_update, int keyed,
    cudaStream_t s)
{
  uint32_t total = (uint32_t) tm->p.width * (uint32_t) tm->p.height;
  /* dependent-launched: its block waits on an SM the statistics kernel
   * has freed, not behind the launch */
#define TM_U(IPT) ci_launch_after (tm->pdl, tm_update_kernel < IPT >, 1, \
      TM_UPD, 0, s, tm->bins, total, tm->rt.smoothing, \
      (unsigned long long) tm->rt.cut_thr, fresh, do_update, tm->rt.op, \
      tm->rt.target_peak, tm->rt.source_peak, tm->d_hist, tm->d_keys, \
      tm->d_s, tm->d_st, tm->d_map, tm->d_range, keyed ? tm->d_kh : NULL, \
      tm->d_eotf)
  if (tm->bins <= TM_UPD)
    CK (TM_U (1));
  else if (tm->bins <= 2 * TM_UPD)
    CK (TM_U (2));
  else
    CK (TM_U (4));
#undef TM_U
  return 0;
}

extern "C" void
ci_tm_cuda_destroy (CiTmCuda * tm)
{
  if (!tm)
    return;
  cudaFree (tm->d_eotf);
  cudaFree (tm->d_oetf);
  cudaFree (tm->d_pairs);
  cudaFree (tm->d_oetf8);
  cudaFree (tm->d_map);
  cudaFree (tm->d_range);
  cudaFree (tm->d_hist);
  cudaFree (tm->d_keys);
  cudaFree (tm->d_kh);
  cudaFree (tm->d_s);
  cudaFree (tm->d_st);
  cudaFree (tm->d_l);
  cudaFree (tm->d_mm);
  cudaFree (tm->d_bin);
  cudaFree (tm->d_tmp);
  delete tm;
}

static int
tm_create (const CiTmParams * p, const float *eotf, const float *oetf,
    const CiTmCudaRuntime * rt, int impl, cudaStream_t s,
    CiTmCuda * tm)
{
  if (p->bins < CI_TM_MIN_BINS || p->bins > CI_TM_MAX_BINS || p->width < 1
      || p->height < 1)
    return (int) cudaErrorInvalidValue;
  tm->p = *p;
  tm->rt = *rt;
  tm->p.op = rt->op;
  tm->p.target_peak = rt->target_peak;
  tm->impl = impl;
  tm->bins = p->bins;
  {
    int dev = 0;
    const char *e = getenv ("CI_TM_NO_PDL");
    CK (cudaGetDevice (&dev));
    tm->pdl = ci_pdl_supported (dev) && !(e && atoi (e));
    /* the fast kernels' tables take more than Turing's 64 KiB per block
     * (4:2:0 outputs, large bins): those variants are left out there.
     * CI_TM_SMEM_LIMIT lowers the limit, to test that on larger GPUs. */
    int optin = 0;
    CK (cudaDeviceGetAttribute (&optin,
            cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const char *l = getenv ("CI_TM_SMEM_LIMIT");
    if (l && atoi (l) > 0 && atoi (l) < optin)
      optin = atoi (l);
    tm->smem_limit = (size_t) optin;
  }
  int nmap = p->bins > CI_TM_CURVE_N ? p->bins : CI_TM_CURVE_N;
  CK (cudaMalloc (&tm->d_eotf, TM_EOTF_N * sizeof (float)));
  CK (cudaMalloc (&tm->d_oetf, TM_TRC_N * sizeof (float)));
  CK (cudaMalloc (&tm->d_pairs, (TM_O2_N + TM_L2_N) * sizeof (float2)));
  CK (cudaMalloc (&tm->d_oetf8, TM_O8_PAD));
  CK (cudaMalloc (&tm->d_map, nmap * sizeof (float)));
  CK (cudaMalloc (&tm->d_range, sizeof (CiTmMapRange)));
  CK (cudaMalloc (&tm->d_hist, p->bins * sizeof (uint32_t)));
  CK (cudaMalloc (&tm->d_keys, 2 * sizeof (uint32_t)));
  CK (cudaMalloc (&tm->d_kh, CI_TM_KEYS * sizeof (uint32_t)));
  CK (cudaMemsetAsync (tm->d_kh, 0, CI_TM_KEYS * sizeof (uint32_t), s));
  CK (cudaMalloc (&tm->d_s, p->bins * sizeof (unsigned long long)));
  CK (cudaMalloc (&tm->d_st, sizeof (TmDevState)));
  CK (cudaMemcpyAsync (tm->d_eotf, eotf, TM_EOTF_N * sizeof (float),
          cudaMemcpyHostToDevice, s));
  CK (cudaMemcpyAsync (tm->d_oetf, oetf, TM_TRC_N * sizeof (float),
          cudaMemcpyHostToDevice, s));
  tm_tables_kernel <<< (TM_O8_PAD + 255) / 256, 256, 0, s >>> (tm->d_eotf,
      tm->d_oetf, tm->d_pairs, tm->d_oetf8);
  CKL ();
  CK (cudaMemsetAsync (tm->d_map, 0, nmap * sizeof (float), s));
  CK (cudaMemsetAsync (tm->d_range, 0, sizeof (CiTmMapRange), s));
  CK (cudaMemsetAsync (tm->d_s, 0, p->bins * sizeof (unsigned long long), s));
  CK (cudaMemsetAsync (tm->d_st, 0, sizeof (TmDevState), s));
  CK (tm_reset_stats (tm, s));

  long long nq = (long long) ((p->width + 1) / 2) * ((p->height + 1) / 2);
  tm->smem_minmax = TM_EOTF_N * sizeof (float);
  tm->smem_hist = (TM_EOTF_N + p->bins) * sizeof (float);
  tm->smem_map = (TM_EOTF_N + TM_TRC_PAD + ((nmap + 3) & ~3)) * sizeof (float)
      + TM_O8_PAD;
  tm->smem_map_stats = tm->smem_map + p->bins * sizeof (uint32_t);
  CK (tm_grid (tm, (const void *) tm_minmax_kernel < true >,
          tm->smem_minmax, nq, &tm->grid_minmax));
  CK (tm_grid (tm, (const void *) tm_minmax_kernel < false >,
          tm->smem_minmax, nq, &tm->grid_minmax));
  CK (tm_grid (tm, (const void *) tm_hist_kernel < true >, tm->smem_hist,
          nq, &tm->grid_hist));
  CK (tm_grid (tm, (const void *) tm_hist_kernel < false >, tm->smem_hist,
          nq, &tm->grid_hist));
  {
    /* every variant may be launched: all get the shared-memory opt-in */
    const void *nostats[] = { (const void *) tm_map_kernel < false, false >,
      (const void *) tm_map_kernel < false, true >
    };
    const void *stats[] = { (const void *) tm_map_kernel < true, false >,
      (const void *) tm_map_kernel < true, true >
    };
    int g;
    for (int i = 1; i >= 0; i--) {
      CK (tm_grid (tm, nostats[i], tm->smem_map, nq, &g));
      tm->grid_map = g;
      CK (tm_grid (tm, stats[i], tm->smem_map_stats, nq, &g));
      tm->grid_map_stats = g;
    }
#define TM_FK(IC, OC) {(const void *) tm_fast_kernel < IC, OC, false >, \
      (const void *) tm_fast_kernel < IC, OC, true >}
    const void *fast[TM_NIC][2][2] = { {TM_FK (0, 0), TM_FK (0, 1)},
    {TM_FK (1, 0), TM_FK (1, 1)}, {TM_FK (2, 0), TM_FK (2, 1)},
    {TM_FK (3, 0), TM_FK (3, 1)}, {TM_FK (4, 0), TM_FK (4, 1)}
    };
#undef TM_FK
    for (int oc = 0; oc < 2; oc++) {
      tm->smem_fast[oc][0] = TM_EOTF_N * sizeof (float) + TM_L2_N *
          sizeof (float2) + ((nmap + 3) & ~3) * sizeof (float) +
          TM_BINT_PAD * sizeof (uint16_t) + (oc ? TM_O2_N * sizeof (float2) :
          TM_O8_PAD);
      tm->smem_fast[oc][1] = tm->smem_fast[oc][0] +
          p->bins * sizeof (uint32_t);
    }
    long long nqf = (long long) (p->width / 2) * (p->height / 2);
    const void *fkeys[TM_NIC] = { (const void *) tm_fast_keys_kernel < 0 >,
      (const void *) tm_fast_keys_kernel < 1 >,
      (const void *) tm_fast_keys_kernel < 2 >,
      (const void *) tm_fast_keys_kernel < 3 >,
      (const void *) tm_fast_keys_kernel < 4 >
    };
    /* grid 0: the variant does not fit this device (generic kernels) */
    for (int ic = 0; ic < TM_NIC; ic++)
      CK (tm_grid_n (tm, fkeys[ic], TM_FBLOCK, TM_FKEYS_SMEM,
              nqf > 0 ? nqf : 1, &tm->grid_fkeys[ic]));
    for (int ic = 0; ic < TM_NIC; ic++)
      for (int oc = 0; oc < 2; oc++)
        for (int st = 0; st < 2; st++)
          CK (tm_grid_n (tm, fast[ic][oc][st], TM_FBLOCK,
                  tm->smem_fast[oc][st], nqf > 0 ? nqf : 1,
                  &tm->grid_fast[ic][oc][st]));
  }

  if (impl & CI_TM_STATS_CUB) {
    size_t n = (size_t) p->width * p->height, b1 = 0, b2 = 0, b3 = 0;
    CK (cudaMalloc (&tm->d_l, n * sizeof (float)));
    CK (cudaMalloc (&tm->d_bin, n * sizeof (uint16_t)));
    CK (cudaMalloc (&tm->d_mm, 2 * sizeof (float)));
    CK (cub::DeviceReduce::Min (NULL, b1, tm->d_l, tm->d_mm, (int) n, s));
    CK (cub::DeviceReduce::Max (NULL, b2, tm->d_l, tm->d_mm + 1, (int) n, s));
    CK (cub::DeviceHistogram::HistogramEven (NULL, b3,
            (const uint16_t *) tm->d_bin, tm->d_hist, p->bins + 1, 0, p->bins,
            (int) n, s));
    tm->tmp_bytes = b1 > b2 ? b1 : b2;
    tm->tmp_bytes = tm->tmp_bytes > b3 ? tm->tmp_bytes : b3;
    CK (cudaMalloc (&tm->d_tmp, tm->tmp_bytes));
  }
  return 0;
}

extern "C" int
ci_tm_cuda_create (const CiTmParams * p, const float *eotf, const float *oetf,
    const CiTmCudaRuntime * rt, CiTmStatsImpl impl, ci_stream_t stream,
    CiTmCuda ** out)
{
  CiTmCuda *tm = new CiTmCuda ();
  int err = tm_create (p, eotf, oetf, rt, impl, (cudaStream_t) stream, tm);
  if (err) {
    ci_tm_cuda_destroy (tm);
    *out = NULL;
    return err;
  }
  *out = tm;
  return 0;
}

extern "C" void
ci_tm_cuda_reset (CiTmCuda * tm)
{
  tm->primed = 0;
}

extern "C" int
ci_tm_cuda_set_runtime (CiTmCuda * tm, const CiTmCudaRuntime * rt,
    ci_stream_t stream)
{
  tm->rt = *rt;
  tm->p.op = rt->op;
  tm->p.target_peak = rt->target_peak;
  if (tm->primed)
    return tm_launch_update (tm, 0, 0, 0, (cudaStream_t) stream);
  return 0;
}

static int
tm_aligned (const void *ptr, int stride, int a)
{
  return ((uintptr_t) ptr % a) == 0 && stride % a == 0;
}

/* Wide loads need aligned rows in every input plane. */
static int
tm_can_vec_in (const CiTmCuda * tm, const CiTmInPlanes * in)
{
  int f = tm->p.in_format, ok = 1;
  int ia = (f == CI_TM_IN_RGBA64 || f == CI_TM_IN_BGRA64) ? 16 :
      (f >= CI_TM_IN_RGB10A2 ? 8 : 4);
  ok &= tm_aligned (in->data[0], in->stride[0], ia);
  if (f == CI_TM_IN_P010 || f == CI_TM_IN_P016 || f == CI_TM_IN_Y444_16)
    ok &= tm_aligned (in->data[1], in->stride[1], 4);
  if (f == CI_TM_IN_Y444_16)
    ok &= tm_aligned (in->data[2], in->stride[2], 4);
  if (f == CI_TM_IN_I420_10)    /* 16-bit chroma loads */
    ok &= tm_aligned (in->data[1], in->stride[1], 2) &&
        tm_aligned (in->data[2], in->stride[2], 2);
  return ok && !(tm->impl & CI_TM_NO_VEC);
}

/* ... and wide stores aligned rows in the RGB output. */
static int
tm_can_vec (const CiTmCuda * tm, const CiTmInPlanes * in,
    const CiTmOutPlanes * out)
{
  int ok = tm_can_vec_in (tm, in);
  if (tm->p.out_format <= CI_TM_OUT_BGRX)
    ok &= tm_aligned (out->data[0], out->stride[0], 8);
  else {
    /* a quad row's two luma bytes, NV12's CbCr pair: 16-bit stores */
    ok &= tm_aligned (out->data[0], out->stride[0], 2);
    if (tm->p.out_format == CI_TM_OUT_NV12)
      ok &= tm_aligned (out->data[1], out->stride[1], 2);
  }
  return ok;
}

/* *keyed: the statistics are cells in d_kh, for the update to fold */
static int
tm_still_stats (CiTmCuda * tm, const CiTmInPlanes * in, cudaStream_t s,
    int *keyed)
{
  CK (tm_reset_stats (tm, s));
  *keyed = 0;
  if (tm->impl & CI_TM_STATS_CUB) {
    size_t n = (size_t) tm->p.width * tm->p.height, bytes = tm->tmp_bytes;
    dim3 g ((tm->p.width + 255) / 256, tm->p.height);
    tm_logl_kernel <<< g, 256, 0, s >>> (tm->p, *in, tm->d_eotf, tm->d_l);
    CKL ();
    CK (cub::DeviceReduce::Min (tm->d_tmp, bytes, tm->d_l, tm->d_mm, (int) n,
            s));
    bytes = tm->tmp_bytes;
    CK (cub::DeviceReduce::Max (tm->d_tmp, bytes, tm->d_l, tm->d_mm + 1,
            (int) n, s));
    tm_mm_to_keys_kernel <<< 1, 1, 0, s >>> (tm->d_mm, tm->d_keys);
    CKL ();
    tm_bin_kernel <<< 1024, 256, 0, s >>> (tm->d_l, n, tm->d_mm, tm->bins,
        tm->d_bin);
    CKL ();
    bytes = tm->tmp_bytes;
    CK (cub::DeviceHistogram::HistogramEven (tm->d_tmp, bytes,
            (const uint16_t *) tm->d_bin, tm->d_hist, tm->bins + 1, 0,
            tm->bins, (int) n, s));
    return 0;
  }
  const int ic = tm_input_class (tm);
  if (tm_can_vec_in (tm, in) && ic >= 0 && tm->p.width >= 2
      && tm->p.height >= 2 && tm->grid_fkeys[ic] > 0) {
    tm_with_class (ic,[&](auto k) {
          constexpr int IC = decltype (k)::value;
          tm_fast_keys_kernel < IC > <<< tm->grid_fkeys[IC], TM_FBLOCK,
              TM_FKEYS_SMEM, s >>> (tm->p, *in, tm->d_eotf, tm->d_keys,
              tm->d_kh);
        });
    *keyed = 1;
  } else if (tm_can_vec_in (tm, in)) {
    tm_minmax_kernel < true > <<< tm->grid_minmax, TM_BLOCK, tm->smem_minmax,
        s >>> (tm->p, *in, tm->d_eotf, tm->d_keys);
    CKL ();
    tm_hist_kernel < true > <<< tm->grid_hist, TM_BLOCK, tm->smem_hist, s >>>
        (tm->p, *in, tm->d_eotf, tm->d_keys, 1, 0.0f, 0.0f, tm->d_hist);
  } else {
    tm_minmax_kernel < false > <<< tm->grid_minmax, TM_BLOCK,
        tm->smem_minmax, s >>> (tm->p, *in, tm->d_eotf, tm->d_keys);
    CKL ();
    tm_hist_kernel < false > <<< tm->grid_hist, TM_BLOCK, tm->smem_hist, s >>>
        (tm->p, *in, tm->d_eotf, tm->d_keys, 1, 0.0f, 0.0f, tm->d_hist);
  }
  CKL ();
  return 0;
}

template < bool STATS > static int
tm_launch_map_t (CiTmCuda * tm, bool vec, bool hwo, const CiTmInPlanes * in,
    const CiTmOutPlanes * out, cudaStream_t s)
{
  int grid = STATS ? tm->grid_map_stats : tm->grid_map;
  size_t smem = STATS ? tm->smem_map_stats : tm->smem_map;
  const int ic = tm_input_class (tm);
  /* the fast kernels write RGB words (oc 0) or 4:2:0 quads (oc 1) */
  const int oc = tm->p.out_format <= CI_TM_OUT_BGRX ? 0 : 1;
  if (vec && !hwo && ic >= 0 && tm->p.width >= 2 && tm->p.height >= 2
      && tm->grid_fast[ic][oc][STATS] > 0) {
    int err = 0;
    tm_with_class (ic,[&](auto k) {
          constexpr int IC = decltype (k)::value;
#define TM_F(OC) (int) ci_launch_after (tm->pdl && !STATS, \
          tm_fast_kernel < IC, OC, \
          STATS >, tm->grid_fast[IC][OC][STATS], TM_FBLOCK, \
          tm->smem_fast[OC][STATS], s, tm->p, *in, *out, tm->d_pairs, \
          tm->d_eotf, tm->d_oetf8, tm->d_oetf, tm->d_map, tm->d_range, \
          tm->d_hist, tm->d_keys, tm_rb_sel (tm->p.out_format))
          err = oc == 0 ? TM_F (0) : TM_F (1);
#undef TM_F
        });
    CK (err);
    CKL ();
    return 0;
  }
#define TM_L(V) tm_map_kernel < STATS, V > <<< grid, TM_BLOCK, smem, s >>> \
      (tm->p, *in, *out, tm->d_eotf, tm->d_oetf, tm->d_oetf8, tm->d_map, \
      tm->d_range, tm->d_hist, tm->d_keys, hwo ? 1 : 0)
  if (vec)
    TM_L (true);
  else
    TM_L (false);
#undef TM_L
  CKL ();
  return 0;
}

static int
tm_launch_map (CiTmCuda * tm, bool stats, const CiTmInPlanes * in,
    const CiTmOutPlanes * out, cudaStream_t s)
{
  bool vec = tm_can_vec (tm, in, out), hwo = (tm->impl & CI_TM_HW_OETF) != 0;
  return stats ? tm_launch_map_t < true > (tm, vec, hwo, in, out, s) :
      tm_launch_map_t < false > (tm, vec, hwo, in, out, s);
}

/* Rows at least one plane row long and element-aligned (the scalar
 * kernels read 16- or 32-bit words and write 32-bit RGB words), so that no
 * kernel reads or writes outside the planes it was given. */
static int
tm_planes_ok (const CiTmCuda * tm, const CiTmInPlanes * in,
    const CiTmOutPlanes * out)
{
  const int f = tm->p.in_format, w = tm->p.width, cw = (w + 1) / 2;
  int np, row[3], al;
  switch (f) {
    case CI_TM_IN_P010:
    case CI_TM_IN_P016:
      np = 2, row[0] = 2 * w, row[1] = 4 * cw, al = 2;
      break;
    case CI_TM_IN_I420_10:
      np = 3, row[0] = 2 * w, row[1] = row[2] = 2 * cw, al = 2;
      break;
    case CI_TM_IN_Y444_16:
      np = 3, row[0] = row[1] = row[2] = 2 * w, al = 2;
      break;
    case CI_TM_IN_RGBA64:
    case CI_TM_IN_BGRA64:
      np = 1, row[0] = 8 * w, al = 2;
      break;
    default:                   /* RGB10A2 / BGR10A2 */
      np = 1, row[0] = 4 * w, al = 4;
  }
  for (int i = 0; i < np; i++)
    if (!in->data[i] || in->stride[i] < row[i]
        || !tm_aligned (in->data[i], in->stride[i], al))
      return 0;
  if (!out)
    return 1;
  const int o = tm->p.out_format;
  if (o <= CI_TM_OUT_BGRX)
    np = 1, row[0] = 4 * w, al = 4;
  else if (o == CI_TM_OUT_NV12)
    np = 2, row[0] = w, row[1] = 2 * cw, al = 1;
  else
    np = 3, row[0] = w, row[1] = row[2] = cw, al = 1;
  for (int i = 0; i < np; i++)
    if (!out->data[i] || out->stride[i] < row[i]
        || !tm_aligned (out->data[i], out->stride[i], al))
      return 0;
  return 1;
}

extern "C" int
ci_tm_cuda_process (CiTmCuda * tm, const CiTmInPlanes * in,
    const CiTmOutPlanes * out, ci_stream_t stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (!tm_planes_ok (tm, in, out))
    return (int) cudaErrorInvalidValue;
  if (tm->rt.smoothing == 0 || !tm->primed) {
    int keyed = 0;
    CK (tm_still_stats (tm, in, s, &keyed));
    CK (tm_launch_update (tm, 1, 1, keyed, s));
    CK (tm_launch_map (tm, false, in, out, s));
  } else {
    CK (tm_launch_map (tm, true, in, out, s));
    CK (tm_launch_update (tm, 0, 1, 0, s));
  }
  tm->primed = 1;
  return 0;
}

extern "C" int
ci_tm_cuda_minmax (CiTmCuda * tm, const CiTmInPlanes * in, ci_stream_t stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (!tm_planes_ok (tm, in, NULL))
    return (int) cudaErrorInvalidValue;
  CK (tm_reset_stats (tm, s));
  tm_minmax_kernel < false > <<< tm->grid_minmax, TM_BLOCK, tm->smem_minmax,
      s >>> (tm->p, *in, tm->d_eotf, tm->d_keys);
  CKL ();
  return 0;
}

extern "C" int
ci_tm_cuda_histogram (CiTmCuda * tm, const CiTmInPlanes * in, float lmin,
    float scale, ci_stream_t stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (!tm_planes_ok (tm, in, NULL))
    return (int) cudaErrorInvalidValue;
  CK (tm_reset_stats (tm, s));
  tm_hist_kernel < false > <<< tm->grid_hist, TM_BLOCK, tm->smem_hist,
      s >>> (tm->p, *in, tm->d_eotf, tm->d_keys, 0, lmin, scale, tm->d_hist);
  CKL ();
  return 0;
}

extern "C" int
ci_tm_cuda_read_stats (CiTmCuda * tm, float *mn, float *mx, uint32_t * hist,
    ci_stream_t stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  uint32_t keys[2];
  if (hist)
    CK (cudaMemcpyAsync (hist, tm->d_hist, tm->bins * sizeof (uint32_t),
            cudaMemcpyDeviceToHost, s));
  if (mn || mx) {
    CK (cudaMemcpyAsync (keys, tm->d_keys, sizeof keys,
            cudaMemcpyDeviceToHost, s));
    CK (cudaStreamSynchronize (s));     /* keys is on this stack */
    if (mn)
      *mn = ci_tm_key_float (keys[0]);
    if (mx)
      *mx = ci_tm_key_float (keys[1]);
  }
  return 0;
}

extern "C" int
ci_tm_cuda_read_state (CiTmCuda * tm, uint64_t * s_out, float *map_lut,
    float *smin_smax, int *count_cuts, CiTmMapRange * range,
    ci_stream_t stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  TmDevState st;
  int nmap = tm->p.op == CI_TM_OP_HISTOGRAM ? tm->bins : CI_TM_CURVE_N;
  if (s_out)
    CK (cudaMemcpyAsync (s_out, tm->d_s, tm->bins * sizeof (uint64_t),
            cudaMemcpyDeviceToHost, s));
  if (map_lut)
    CK (cudaMemcpyAsync (map_lut, tm->d_map, nmap * sizeof (float),
            cudaMemcpyDeviceToHost, s));
  if (range)
    CK (cudaMemcpyAsync (range, tm->d_range, sizeof (CiTmMapRange),
            cudaMemcpyDeviceToHost, s));
  CK (cudaMemcpyAsync (&st, tm->d_st, sizeof st, cudaMemcpyDeviceToHost, s));
  CK (cudaStreamSynchronize (s));       /* st is on this stack */
  if (smin_smax) {
    smin_smax[0] = st.smin;
    smin_smax[1] = st.smax;
  }
  if (count_cuts) {
    count_cuts[0] = st.count;
    count_cuts[1] = st.cuts;
  }
  return 0;
}

/* ci_tm_fdiv_nrm against __fdiv_rn on n random pairs of its domain (a
 * zero or in [2^-40, 1], b in [2^-100, 2^20]); mismatches counted in *bad */
__global__ void
tm_fdiv_test_kernel (unsigned long long n, uint32_t seed,
    unsigned long long *bad)
{
  unsigned long long nb = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x +
      threadIdx.x; i < n; i += (unsigned long long) gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t) i * 0x9E3779B9u ^ (uint32_t) (i >> 32) ^ seed;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    uint32_t h2 = h * 0x2c1b3c6du + 0x297a2d39u;
    h2 ^= h2 >> 12;
    h2 *= 0x9E3779B9u;
    h2 ^= h2 >> 15;
    const uint32_t alo = 0x2B800000u, ahi = 0x3F800000u;     /* 2^-40, 1 */
    const uint32_t blo = 0x0D800000u, bhi = 0x49800000u;     /* 2^-100, 2^20 */
    const float a = (h & 1023u) == 0u ? 0.0f :
        ci_tm_u2f (alo + (uint32_t) ((unsigned long long) h * (ahi - alo + 1) >> 32));
    const float b = ci_tm_u2f (blo + (uint32_t) ((unsigned long long) h2 *
            (bhi - blo + 1) >> 32));
    nb += ci_tm_f2u (ci_tm_fdiv_nrm (a, b)) != ci_tm_f2u (__fdiv_rn (a, b));
  }
  if (nb)
    atomicAdd (bad, nb);
}

extern "C" int
ci_tm_cuda_fdiv_test (uint64_t n, uint32_t seed, uint64_t * bad)
{
  unsigned long long *d;
  cudaError_t e = cudaMalloc ((void **) &d, sizeof *d);
  if (e != cudaSuccess)
    return (int) e;
  e = cudaMemset (d, 0, sizeof *d);
  if (e == cudaSuccess) {
    tm_fdiv_test_kernel <<< 1024, 256 >>> (n, seed, d);
    e = cudaGetLastError ();
  }
  if (e == cudaSuccess)
    e = cudaMemcpy (bad, d, sizeof *d, cudaMemcpyDeviceToHost);
  cudaFree (d);
  return (int) e;
}

extern "C" int
ci_tm_cuda_block_scan_test (const uint64_t * d_in, uint64_t * d_out, int n,
    ci_stream_t stream)
{
  if (n < 1 || n > CI_TM_MAX_BINS)
    return (int) cudaErrorInvalidValue;
  const unsigned long long *i = (const unsigned long long *) d_in;
  unsigned long long *o = (unsigned long long *) d_out;
  cudaStream_t s = (cudaStream_t) stream;
  if (n <= TM_UPD)
    tm_scan_test_kernel < 1 > <<< 1, TM_UPD, 0, s >>> (i, o, n);
  else if (n <= 2 * TM_UPD)
    tm_scan_test_kernel < 2 > <<< 1, TM_UPD, 0, s >>> (i, o, n);
  else
    tm_scan_test_kernel < 4 > <<< 1, TM_UPD, 0, s >>> (i, o, n);
  CKL ();
  return 0;
}
