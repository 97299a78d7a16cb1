/* gst-cuda-imaging: Semi-Global Matching, CUDA kernels.
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
 * Design:
 *  - census of both views (uint64 per pixel), then a uint8 cost volume;
 *  - one kernel launch per path direction (agg2_kernel): a warp walks one
 *    path line, each lane holding K consecutive disparities as 16-bit pairs
 *    updated with SIMD-in-word min/add/sub; costs and partial sums of the
 *    next steps stream into a per-warp shared-memory ring (cp.async).  The
 *    path costs are added into a single uint16 sum volume S (the first
 *    direction stores), so memory is 3 bytes per (pixel, disparity), not a
 *    volume per path.  The warp is always full: padding disparities hold a
 *    large value and are never stored, so every shuffle and reduction runs
 *    over 32 active lanes (never over a partial warp);
 *  - WTA over S (one warp per pixel) with uniqueness and subpixel, and the
 *    right view's winners scattered into shared-memory atomic minima;
 *  - left-right check, 3x3 median, output conversion.
 * agg_kernel is the first design (costs from the census words on the fly,
 * one disparity per register); it is kept, and tested, as an independently
 * written second implementation of the same stage.
 */
#include "sgm.h"
#include <cuda_runtime.h>
#include <stdlib.h>

#define FULL 0xffffffffu
#define BIG 0x7fff              /* > any L + p1 + p2; never a real value */
#define AGG_WARPS 4
#define WTA_WARPS 8
#define WTA_TILE 64

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return (int) e_; } while (0)
#define CHECK_LAUNCH() do { cudaError_t e_ = cudaGetLastError (); if (e_ != cudaSuccess) return (int) e_; } while (0)

static inline cudaStream_t
cs (ci_stream_t s)
{
  return (cudaStream_t) s;
}

/* ---------------- census ---------------- */

#define CEN_BX 32
#define CEN_BY 8

/* The block's luma tile (with the 4/3-pixel apron, edges clamped) is read
 * once into shared memory; each thread then reads its 9x7 window there. */
__global__ void __launch_bounds__ (CEN_BX * CEN_BY)
census_kernel (const uint8_t * __restrict__ img, size_t stride, SgmLuma luma,
    int W, int H, int census, uint64_t * __restrict__ out)
{
  __shared__ int tile[CEN_BY + 6][CEN_BX + 8];
  const int x0 = blockIdx.x * CEN_BX - 4, y0 = blockIdx.y * CEN_BY - 3;
  for (int i = threadIdx.y * CEN_BX + threadIdx.x;
      i < (CEN_BY + 6) * (CEN_BX + 8); i += CEN_BX * CEN_BY) {
    const int r = i / (CEN_BX + 8), c = i % (CEN_BX + 8);
    tile[r][c] = sgm_luma_at (img, stride, luma,
        sgm_clampi (x0 + c, 0, W - 1), sgm_clampi (y0 + r, 0, H - 1));
  }
  __syncthreads ();
  const int x = blockIdx.x * CEN_BX + threadIdx.x;
  const int y = blockIdx.y * CEN_BY + threadIdx.y;
  if (x >= W || y >= H)
    return;
  /* clamping the window inside the tile equals clamping in the image, as
   * the tile itself holds clamped pixels */
  int win[7][9];
#pragma unroll
  for (int r = 0; r < 7; r++)
#pragma unroll
    for (int c = 0; c < 9; c++)
      win[r][c] = tile[threadIdx.y + r][threadIdx.x + c];
  out[(size_t) y * W + x] = sgm_census_from_window (win, census);
}

extern "C" int
sgm_cuda_census (const uint8_t * img, size_t stride, SgmLuma luma,
    int width, int height, int census, uint64_t * out, ci_stream_t stream)
{
  dim3 b (CEN_BX, CEN_BY), g ((width + CEN_BX - 1) / CEN_BX,
      (height + CEN_BY - 1) / CEN_BY);
  census_kernel <<< g, b, 0, cs (stream) >>> (img, stride, luma, width,
      height, census, out);
  CHECK_LAUNCH ();
  return 0;
}

/* ---------------- matching cost volume ---------------- */

/* cost[pix * Ds + d] (uint8), 4 disparities per thread; d in [D, Ds) is 0. */
__global__ void
cost_kernel (const uint64_t * __restrict__ cl, const uint64_t * __restrict__ cr,
    int W, int H, int D, int Ds, int min_disp, int cmax,
    uint32_t * __restrict__ cost)
{
  const int nq = Ds / 4;
  const size_t n = (size_t) W * H * nq;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x) {
    const int q = (int) (i % nq);
    const size_t pix = i / nq;
    const int x = (int) (pix % W);
    const uint64_t l = cl[pix];
    const uint64_t *row = cr + (pix - x);
    uint32_t v = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const int d = q * 4 + j;
      const int xr = x - min_disp - d;
      const int c = d >= D ? 0 : (xr < 0 || xr >= W) ? cmax :
          __popcll (l ^ row[xr]);
      v |= (uint32_t) c << (8 * j);
    }
    cost[i] = v;
  }
}

extern "C" int
sgm_cuda_cost_volume (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost, ci_stream_t stream)
{
  const int Ds = sgm_sum_stride (p->num_disp);
  const size_t n = (size_t) p->width * p->height * (Ds / 4);
  const int blocks = (int) ((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
  cost_kernel <<< blocks, 256, 0, cs (stream) >>> (cl, cr, p->width,
      p->height, p->num_disp, Ds, p->min_disp, sgm_census_bits (p->census),
      (uint32_t *) cost);
  CHECK_LAUNCH ();
  return 0;
}

/* ---------------- path aggregation ---------------- */

struct AggArgs
{
  int W, H, D, Ds, min_disp, p1, p2, cmax, dx, dy, accumulate, nlines;
};

/* Warp minima over all 32 lanes (always a full warp here). */
__device__ __forceinline__ int
warp_min (int v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync (FULL, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    int u = __shfl_xor_sync (FULL, v, o);
    v = u < v ? u : v;
  }
  return v;
#endif
}

__device__ __forceinline__ unsigned
warp_min_u (unsigned v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync (FULL, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    unsigned u = __shfl_xor_sync (FULL, v, o);
    v = u < v ? u : v;
  }
  return v;
#endif
}

/* Start pixel and length of path line @i for direction (dx, dy). */
__device__ __forceinline__ void
line_start (const AggArgs & a, int i, int &sx, int &sy, int &len)
{
  if (a.dy == 0) {
    sx = a.dx > 0 ? 0 : a.W - 1;
    sy = i;
  } else if (a.dx == 0) {
    sx = i;
    sy = a.dy > 0 ? 0 : a.H - 1;
  } else if (i < a.W) {
    sx = i;
    sy = a.dy > 0 ? 0 : a.H - 1;
  } else {
    int j = i - a.W + 1;
    sx = a.dx > 0 ? 0 : a.W - 1;
    sy = a.dy > 0 ? j : a.H - 1 - j;
  }
  int lx = a.dx > 0 ? a.W - sx : a.dx < 0 ? sx + 1 : 0x7fffffff;
  int ly = a.dy > 0 ? a.H - sy : a.dy < 0 ? sy + 1 : 0x7fffffff;
  len = lx < ly ? lx : ly;
}

__device__ __forceinline__ void
cp_async16 (void *smem, const void *gmem)
{
#if __CUDA_ARCH__ >= 800
  unsigned sa = (unsigned) __cvta_generic_to_shared (smem);
  asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n"::"r" (sa),
      "l" (gmem));
#else
  /* Turing has no cp.async: a plain copy, complete before the wait. */
  *(uint4 *) smem = *(const uint4 *) gmem;
#endif
}

__device__ __forceinline__ void
cp_async_commit ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.commit_group;\n"::);
#endif
}

template < int N > __device__ __forceinline__ void
cp_async_wait ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.wait_group %0;\n"::"n" (N));
#endif
}

/* Ring depth for the partial sums: about 8 KiB in flight per path line,
 * which is what keeps HBM busy with only one warp per line. */
template < int K > struct AggCfg
{
  static constexpr int PF = K <= 4 ? 4 : K <= 8 ? 2 : 1;
  static constexpr int R0 = 8192 / (64 * K);
  static constexpr int R = R0 > 32 ? 32 : R0 < 2 ? 2 : R0;
};

/* K disparities per lane.  Census words are loaded PF steps ahead into
 * registers; the partial sums S of the steps ahead stream into a per-warp
 * shared-memory ring with cp.async, R steps ahead, so no DRAM round trip
 * sits in the step-to-step dependency chain. */
template < int K >
__global__ void __launch_bounds__ (AGG_WARPS * 32)
agg_kernel (const uint64_t * __restrict__ cl, const uint64_t * __restrict__ cr,
    uint16_t * __restrict__ acc, AggArgs a)
{
  constexpr int PF = AggCfg < K >::PF, R = AggCfg < K >::R;
  extern __shared__ uint4 agg_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int line = blockIdx.x * AGG_WARPS + warp;
  if (line >= a.nlines)
    return;                     /* whole warp leaves together */
  int sx, sy, len;
  line_start (a, line, sx, sy, len);
  uint16_t *ring = (uint16_t *) agg_smem + (size_t) warp * R * a.Ds;
  const int pieces = a.Ds / 8;  /* 16-byte pieces per pixel */

  auto fetch_sum = [&](int t) {
    if (a.accumulate && t < len) {
      const int x = sx + t * a.dx, y = sy + t * a.dy;
      const uint16_t *g = acc + ((size_t) y * a.W + x) * a.Ds;
      uint16_t *r = ring + (t % R) * a.Ds;
      for (int i = lane; i < pieces; i += 32)
        cp_async16 (r + i * 8, g + i * 8);
    }
    cp_async_commit ();         /* one group per step, empty or not */
  };

  uint64_t lw[PF];
  uint64_t rw[PF][K];
  int prev[K];
  int prev_min = 0;

  auto load = [&](uint64_t & l, uint64_t (&r)[K], int t) {
    const int x = sx + t * a.dx, y = sy + t * a.dy;
    const size_t row = (size_t) y * a.W;
    l = __ldg (cl + row + x);
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int d = k * 32 + lane;
      const int xr = x - a.min_disp - d;
      r[k] = (d < a.D && xr >= 0 && xr < a.W) ? __ldg (cr + row + xr) : 0;
    }
  };

  for (int t = 0; t < R; t++)
    fetch_sum (t);
#pragma unroll
  for (int j = 0; j < PF; j++)
    if (j < len)
      load (lw[j], rw[j], j);

  for (int t0 = 0; t0 < len; t0 += PF) {
#pragma unroll
    for (int j = 0; j < PF; j++) {
      const int t = t0 + j;
      if (t >= len)
        break;
      const int x = sx + t * a.dx, y = sy + t * a.dy;
      int c[K];
#pragma unroll
      for (int k = 0; k < K; k++) {
        const int d = k * 32 + lane;
        const int xr = x - a.min_disp - d;
        c[k] = (xr >= 0 && xr < a.W) ? __popcll (lw[j] ^ rw[j][k]) : a.cmax;
      }
      if (t + PF < len)
        load (lw[j], rw[j], t + PF);
      if (t == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
          prev[k] = (k * 32 + lane < a.D) ? c[k] : BIG;
      } else {
        /* d+1 neighbours first (lane 31 takes lane 0's next k) */
        int hi[K];
        int carry = BIG;
#pragma unroll
        for (int k = K - 1; k >= 0; k--) {
          int dn = __shfl_sync (FULL, prev[k], (lane + 1) & 31);
          hi[k] = lane == 31 ? carry : dn;
          carry = dn;
        }
        carry = BIG;
#pragma unroll
        for (int k = 0; k < K; k++) {
          int up = __shfl_sync (FULL, prev[k], (lane + 31) & 31);
          int lo = lane == 0 ? carry : up;
          carry = up;
          int v = sgm_aggregate_step (c[k], prev[k], lo, hi[k], prev_min,
              a.p1, a.p2);
          prev[k] = (k * 32 + lane < a.D) ? v : BIG;
        }
      }
      int m = prev[0];
#pragma unroll
      for (int k = 1; k < K; k++)
        m = prev[k] < m ? prev[k] : m;
      prev_min = warp_min (m);

      /* this step's partial sums are in the ring once its group is done */
      cp_async_wait < R - 1 > ();
      __syncwarp ();
      const uint16_t *r = ring + (t % R) * a.Ds;
      uint16_t *g = acc + ((size_t) y * a.W + x) * a.Ds;
#pragma unroll
      for (int k = 0; k < K; k++) {
        const int d = k * 32 + lane;
        /* padding up to Ds is kept at 0 so that the ring never copies
         * uninitialised memory */
        if (d < a.Ds)
          g[d] = d < a.D ?
              (uint16_t) ((a.accumulate ? r[d] : 0) + prev[k]) : 0;
      }
      __syncwarp ();            /* the slot is read before it is refilled */
      fetch_sum (t + R);
    }
  }
  cp_async_wait < 0 > ();
}

template < int K > static int
launch_agg (const uint64_t * cl, const uint64_t * cr, uint16_t * acc,
    const AggArgs & a, cudaStream_t s)
{
  constexpr int R = AggCfg < K >::R;
  int blocks = (a.nlines + AGG_WARPS - 1) / AGG_WARPS;
  size_t smem = a.accumulate ? (size_t) AGG_WARPS * R * a.Ds * 2 : 0;
  if (smem > 48 * 1024)
    CHECK (cudaFuncSetAttribute (agg_kernel < K >,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
  agg_kernel < K > <<< blocks, AGG_WARPS * 32, smem, s >>> (cl, cr, acc, a);
  CHECK_LAUNCH ();
  return 0;
}

/* ---- version 2: costs from the cost volume, two disparities per 32-bit
 * register (SIMD-in-word min/add/sub), K = 2 * KP consecutive disparities
 * per lane, costs and partial sums streamed through the ring. ---- */

#define BIG2 0x7fff7fffu

__device__ __forceinline__ void
cp_async8 (void *smem, const void *gmem)
{
#if __CUDA_ARCH__ >= 800
  unsigned sa = (unsigned) __cvta_generic_to_shared (smem);
  asm volatile ("cp.async.ca.shared.global [%0], [%1], 8;\n"::"r" (sa),
      "l" (gmem));
#else
  *(uint2 *) smem = *(const uint2 *) gmem;
#endif
}

template < int KP > struct Agg2Cfg
{
  static constexpr int R0 = 12288 / (192 * KP);
  static constexpr int R = R0 > 32 ? 32 : R0 < 2 ? 2 : R0;
};

template < int KP >
__global__ void __launch_bounds__ (AGG_WARPS * 32)
agg2_kernel (const uint8_t * __restrict__ cost, uint16_t * __restrict__ acc,
    AggArgs a)
{
  constexpr int K = 2 * KP, R = Agg2Cfg < KP >::R;
  extern __shared__ uint4 agg_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int line = blockIdx.x * AGG_WARPS + warp;
  if (line >= a.nlines)
    return;                     /* whole warp leaves together */
  int sx, sy, len;
  line_start (a, line, sx, sy, len);
  const int Ds = a.Ds;
  uint16_t *ringS = (uint16_t *) agg_smem + (size_t) warp * R * Ds;
  uint8_t *ringC = (uint8_t *) ((uint16_t *) agg_smem +
      (size_t) AGG_WARPS * R * Ds) + (size_t) warp * R * Ds;
  const int pieces = Ds / 8;    /* 16-byte S pieces = 8-byte cost pieces */

  auto fetch = [&](int t) {
    if (t < len) {
      const int x = sx + t * a.dx, y = sy + t * a.dy;
      const size_t pix = (size_t) y * a.W + x;
      const int slot = t % R;
      for (int i = lane; i < pieces; i += 32) {
        if (a.accumulate)
          cp_async16 (ringS + slot * Ds + i * 8, acc + pix * Ds + i * 8);
        cp_async8 (ringC + slot * Ds + i * 8, cost + pix * Ds + i * 8);
      }
    }
    cp_async_commit ();         /* one group per step, empty or not */
  };

  /* per-pair constants: which halves are real disparities, which pairs
   * exist in memory (Ds is even, pairs start even: all in or all out) */
  const int d0 = lane * K;
  uint32_t vm[KP];
  bool inmem[KP];
#pragma unroll
  for (int j = 0; j < KP; j++) {
    const int d = d0 + 2 * j;
    vm[j] = (d < a.D ? 0xffffu : 0u) | (d + 1 < a.D ? 0xffff0000u : 0u);
    inmem[j] = d < Ds;
  }
  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  const uint32_t p2x2 = (uint32_t) a.p2 * 0x10001u;

  for (int t = 0; t < R; t++)
    fetch (t);

  uint32_t P[KP];
  uint32_t pmin = 0;
  for (int t = 0; t < len; t++) {
    cp_async_wait < R - 1 > ();
    __syncwarp ();
    const int slot = t % R;
    const uint16_t *rs = ringS + slot * Ds + d0;
    const uint8_t *rc = ringC + slot * Ds + d0;
    uint32_t C2[KP], S2[KP];
#pragma unroll
    for (int j = 0; j < KP; j++) {
      C2[j] = inmem[j] ?
          __byte_perm (*(const uint16_t *) (rc + 2 * j), 0, 0x4140) : 0u;
      S2[j] = (inmem[j] && a.accumulate) ?
          *(const uint32_t *) (rs + 2 * j) : 0u;
    }
    if (t == 0) {
#pragma unroll
      for (int j = 0; j < KP; j++)
        P[j] = (C2[j] & vm[j]) | (BIG2 & ~vm[j]);
    } else {
      /* neighbours across lanes: d0 - 1 (high half of lane-1's last pair)
       * and d0 + K (low half of lane+1's first pair) */
      uint32_t up = __shfl_sync (FULL, P[KP - 1], (lane + 31) & 31);
      uint32_t dn = __shfl_sync (FULL, P[0], (lane + 1) & 31);
      if (lane == 0)
        up = BIG2;
      if (lane == 31)
        dn = BIG2;
      const uint32_t pm2 = pmin * 0x10001u;
      const uint32_t lim = __vadd2 (pm2, p2x2);
      uint32_t NP[KP];
#pragma unroll
      for (int j = 0; j < KP; j++) {
        const uint32_t lo = __byte_perm (j > 0 ? P[j - 1] : up, P[j], 0x5432);
        const uint32_t hi = __byte_perm (P[j], j < KP - 1 ? P[j + 1] : dn,
            0x5432);
        uint32_t m = __vadd2 (__vminu2 (lo, hi), p1x2);
        m = __vminu2 (__vminu2 (m, P[j]), lim);
        m = __vadd2 (__vsub2 (m, pm2), C2[j]);
        NP[j] = (m & vm[j]) | (BIG2 & ~vm[j]);
      }
#pragma unroll
      for (int j = 0; j < KP; j++)
        P[j] = NP[j];
    }
    uint32_t mm = P[0];
#pragma unroll
    for (int j = 1; j < KP; j++)
      mm = __vminu2 (mm, P[j]);
    mm = min (mm & 0xffffu, mm >> 16);
    pmin = warp_min_u (mm);

    const int x = sx + t * a.dx, y = sy + t * a.dy;
    uint16_t *g = acc + ((size_t) y * a.W + x) * Ds + d0;
#pragma unroll
    for (int j = 0; j < KP; j++)
      if (inmem[j])             /* padding disparities stored as 0 */
        *(uint32_t *) (g + 2 * j) = __vadd2 (S2[j], P[j]) & vm[j];
    __syncwarp ();              /* the slot is read before it is refilled */
    fetch (t + R);
  }
  cp_async_wait < 0 > ();
}

template < int KP > static int
launch_agg2 (const uint8_t * cost, uint16_t * acc, const AggArgs & a,
    cudaStream_t s)
{
  constexpr int R = Agg2Cfg < KP >::R;
  int blocks = (a.nlines + AGG_WARPS - 1) / AGG_WARPS;
  size_t smem = (size_t) AGG_WARPS * R * a.Ds * 3;
  if (smem > 48 * 1024)
    CHECK (cudaFuncSetAttribute (agg2_kernel < KP >,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
  agg2_kernel < KP > <<< blocks, AGG_WARPS * 32, smem, s >>> (cost, acc, a);
  CHECK_LAUNCH ();
  return 0;
}

#define K_CASES(F, ...) \
  switch (K) { \
    case 1: return F<1> (__VA_ARGS__); case 2: return F<2> (__VA_ARGS__); \
    case 3: return F<3> (__VA_ARGS__); case 4: return F<4> (__VA_ARGS__); \
    case 5: return F<5> (__VA_ARGS__); case 6: return F<6> (__VA_ARGS__); \
    case 7: return F<7> (__VA_ARGS__); case 8: return F<8> (__VA_ARGS__); \
    case 9: return F<9> (__VA_ARGS__); case 10: return F<10> (__VA_ARGS__); \
    case 11: return F<11> (__VA_ARGS__); case 12: return F<12> (__VA_ARGS__); \
    case 13: return F<13> (__VA_ARGS__); case 14: return F<14> (__VA_ARGS__); \
    case 15: return F<15> (__VA_ARGS__); case 16: return F<16> (__VA_ARGS__); \
    case 17: case 18: return F<18> (__VA_ARGS__); \
    case 19: case 20: return F<20> (__VA_ARGS__); \
    case 21: case 22: return F<22> (__VA_ARGS__); \
    case 23: case 24: return F<24> (__VA_ARGS__); \
    case 25: case 26: return F<26> (__VA_ARGS__); \
    case 27: case 28: return F<28> (__VA_ARGS__); \
    case 29: case 30: return F<30> (__VA_ARGS__); \
    case 31: case 32: return F<32> (__VA_ARGS__); \
    default: return (int) cudaErrorInvalidValue; \
  }

static int
agg_args (const SgmParams * p, int dir, int accumulate, AggArgs * a)
{
  if (p->num_disp < 1 || p->num_disp > SGM_MAX_DISP || dir < 0 || dir > 7
      || p->width < 1 || p->height < 1)
    return (int) cudaErrorInvalidValue;
  a->W = p->width;
  a->H = p->height;
  a->D = p->num_disp;
  a->Ds = sgm_sum_stride (p->num_disp);
  a->min_disp = p->min_disp;
  a->p1 = p->p1;
  a->p2 = sgm_effective_p2 (p->p1, p->p2);
  a->cmax = sgm_census_bits (p->census);
  a->dx = sgm_dir_dx (dir);
  a->dy = sgm_dir_dy (dir);
  a->accumulate = accumulate ? 1 : 0;
  a->nlines = a->dy == 0 ? a->H : a->dx == 0 ? a->W : a->W + a->H - 1;
  return 0;
}

extern "C" int
sgm_cuda_aggregate_path_census (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, int dir, uint16_t * acc, int accumulate,
    ci_stream_t stream)
{
  AggArgs a;
  int err = agg_args (p, dir, accumulate, &a);
  if (err)
    return err;
  const int K = (a.D + 31) / 32;
  K_CASES (launch_agg, cl, cr, acc, a, cs (stream));
}

extern "C" int
sgm_cuda_aggregate_path (const uint8_t * cost, const SgmParams * p, int dir,
    uint16_t * acc, int accumulate, ci_stream_t stream)
{
  AggArgs a;
  int err = agg_args (p, dir, accumulate, &a);
  if (err)
    return err;
  const int KP = ((a.D + 31) / 32 + 1) / 2;
  switch (KP) {
    case 1: return launch_agg2 < 1 > (cost, acc, a, cs (stream));
    case 2: return launch_agg2 < 2 > (cost, acc, a, cs (stream));
    case 3: return launch_agg2 < 3 > (cost, acc, a, cs (stream));
    case 4: return launch_agg2 < 4 > (cost, acc, a, cs (stream));
    case 5: return launch_agg2 < 5 > (cost, acc, a, cs (stream));
    case 6: return launch_agg2 < 6 > (cost, acc, a, cs (stream));
    case 7: return launch_agg2 < 7 > (cost, acc, a, cs (stream));
    case 8: return launch_agg2 < 8 > (cost, acc, a, cs (stream));
    case 9: case 10: return launch_agg2 < 10 > (cost, acc, a, cs (stream));
    case 11: case 12: return launch_agg2 < 12 > (cost, acc, a, cs (stream));
    case 13: case 14: return launch_agg2 < 14 > (cost, acc, a, cs (stream));
    case 15: case 16: return launch_agg2 < 16 > (cost, acc, a, cs (stream));
    default: return (int) cudaErrorInvalidValue;
  }
}

/* ---------------- winner takes all ---------------- */

struct WtaArgs
{
  int W, H, D, Ds, min_disp, uniqueness, subpixel, want_right;
};

/* Block: one row, WTA_TILE pixels; right-view minima for the xr those
 * pixels can reach collect in shared memory, then go out with one global
 * atomicMin each. */
template < int K >
__global__ void __launch_bounds__ (WTA_WARPS * 32)
wta_kernel (const uint16_t * __restrict__ sum, WtaArgs a,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key)
{
  extern __shared__ uint32_t skey[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int y = blockIdx.y;
  const int x0 = blockIdx.x * WTA_TILE;
  const int nkey = WTA_TILE + a.D - 1;
  const int kbase = x0 - a.min_disp - (a.D - 1);       /* xr of skey[0] */
  if (a.want_right) {
    for (int i = threadIdx.x; i < nkey; i += blockDim.x)
      skey[i] = 0xffffffffu;
    __syncthreads ();
  }
  for (int xi = warp; xi < WTA_TILE; xi += WTA_WARPS) {
    const int x = x0 + xi;
    if (x >= a.W)
      break;                    /* warp-uniform */
    const size_t pix = (size_t) y * a.W + x;
    const uint16_t *s = sum + pix * a.Ds;
    unsigned v[K];
    unsigned best = 0xffffffffu;
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int d = k * 32 + lane;
      v[k] = d < a.D ? s[d] : 0xffffu;
      unsigned key = (v[k] << 11) | (unsigned) d;
      best = key < best ? key : best;
      if (a.want_right && d < a.D) {
        const int xr = x - a.min_disp - d;
        if (xr >= 0 && xr < a.W)
          atomicMin (&skey[xr - kbase], key);
      }
    }
    best = warp_min_u (best);
    const int bd = (int) (best & 2047u);
    const int bc = (int) (best >> 11);
    int second = 0xffff;
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int d = k * 32 + lane;
      if (d < a.D && (d < bd - 1 || d > bd + 1) && (int) v[k] < second)
        second = (int) v[k];
    }
    second = warp_min (second);
    if (lane == 0) {
      dint[pix] = (int16_t) bd;
      int out;
      if (!sgm_unique_ok (bc, second, a.uniqueness)) {
        out = SGM_INVALID;
      } else {
        out = (a.min_disp + bd) * SGM_DISP_SCALE;
        if (a.subpixel && bd > 0 && bd < a.D - 1)
          out += sgm_subpixel_offset (s[bd - 1], bc, s[bd + 1]);
      }
      disp[pix] = (int16_t) out;
    }
  }
  if (a.want_right) {
    __syncthreads ();
    uint32_t *row = right_key + (size_t) y * a.W;
    for (int i = threadIdx.x; i < nkey; i += blockDim.x) {
      const int xr = kbase + i;
      if (skey[i] != 0xffffffffu && xr >= 0 && xr < a.W)
        atomicMin (row + xr, skey[i]);
    }
  }
}

template < int K > static int
launch_wta (const uint16_t * sum, const WtaArgs & a, int16_t * disp,
    int16_t * dint, uint32_t * right_key, cudaStream_t s)
{
  dim3 g ((a.W + WTA_TILE - 1) / WTA_TILE, a.H);
  size_t smem = a.want_right ? (size_t) (WTA_TILE + a.D - 1) * 4 : 0;
  wta_kernel < K > <<< g, WTA_WARPS * 32, smem, s >>> (sum, a, disp, dint,
      right_key);
  CHECK_LAUNCH ();
  return 0;
}

extern "C" int
sgm_cuda_wta (const uint16_t * sum, const SgmParams * p, int16_t * disp,
    int16_t * dint, uint32_t * right_key, ci_stream_t stream)
{
  if (p->num_disp < 1 || p->num_disp > SGM_MAX_DISP)
    return (int) cudaErrorInvalidValue;
  WtaArgs a;
  a.W = p->width;
  a.H = p->height;
  a.D = p->num_disp;
  a.Ds = sgm_sum_stride (p->num_disp);
  a.min_disp = p->min_disp;
  a.uniqueness = p->uniqueness;
  a.subpixel = p->subpixel;
  a.want_right = right_key != NULL;
  const int K = (a.D + 31) / 32;
  K_CASES (launch_wta, sum, a, disp, dint, right_key, cs (stream));
}

__global__ void
right_keys_kernel (const uint32_t * __restrict__ key, int n,
    int16_t * __restrict__ dright)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dright[i] = key[i] == 0xffffffffu ? (int16_t) - 1 :
        (int16_t) (key[i] & 2047u);
}

extern "C" int
sgm_cuda_right_from_keys (const uint32_t * right_key, int n,
    int16_t * dright, ci_stream_t stream)
{
  right_keys_kernel <<< (n + 255) / 256, 256, 0, cs (stream) >>> (right_key,
      n, dright);
  CHECK_LAUNCH ();
  return 0;
}

/* ---------------- LR check, median, output ---------------- */

__global__ void
lr_kernel (int16_t * __restrict__ disp, const int16_t * __restrict__ dint,
    const uint32_t * __restrict__ key, int W, int H, int min_disp, int maxdiff)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= W)
    return;
  size_t i = (size_t) y * W + x;
  if (disp[i] == SGM_INVALID)
    return;
  int xr = x - min_disp - dint[i];
  int dr = -1;
  if (xr >= 0 && xr < W) {
    uint32_t k = key[(size_t) y * W + xr];
    dr = k == 0xffffffffu ? -1 : (int) (k & 2047u);
  }
  int diff = dr - dint[i];
  if (dr < 0 || diff > maxdiff || -diff > maxdiff)
    disp[i] = SGM_INVALID;
}

extern "C" int
sgm_cuda_lr_check (int16_t * disp, const int16_t * dint,
    const uint32_t * right_key, const SgmParams * p, ci_stream_t stream)
{
  if (p->lr_max_diff < 0)
    return 0;
  dim3 g ((p->width + 127) / 128, p->height);
  lr_kernel <<< g, 128, 0, cs (stream) >>> (disp, dint, right_key, p->width,
      p->height, p->min_disp, p->lr_max_diff);
  CHECK_LAUNCH ();
  return 0;
}

__global__ void
median_kernel (const int16_t * __restrict__ in, int16_t * __restrict__ out,
    size_t out_pitch, int W, int H)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H)
    return;
  int16_t v[9];
  int k = 0;
#pragma unroll
  for (int dy = -1; dy <= 1; dy++)
#pragma unroll
    for (int dx = -1; dx <= 1; dx++)
      v[k++] = in[(size_t) sgm_clampi (y + dy, 0, H - 1) * W +
          sgm_clampi (x + dx, 0, W - 1)];
  *(int16_t *) ((uint8_t *) out + (size_t) y * out_pitch + (size_t) x * 2) =
      sgm_median9 (v);
}

extern "C" int
sgm_cuda_median (const int16_t * in, int16_t * out, size_t out_pitch,
    int width, int height, ci_stream_t stream)
{
  dim3 b (32, 8), g ((width + 31) / 32, (height + 7) / 8);
  median_kernel <<< g, b, 0, cs (stream) >>> (in, out, out_pitch, width,
      height);
  CHECK_LAUNCH ();
  return 0;
}

__global__ void
convert_kernel (const int16_t * __restrict__ disp, size_t disp_pitch,
    uint8_t * __restrict__ out, size_t out_pitch, SgmOutFormat f, int W,
    int H, int min_disp, int num_disp)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H)
    return;
  int16_t d = *(const int16_t *) ((const uint8_t *) disp +
      (size_t) y * disp_pitch + (size_t) x * 2);
  sgm_out_pixel (d, f, min_disp, num_disp,
      out + (size_t) y * out_pitch + (size_t) x * sgm_out_bytes (f));
}

extern "C" int
sgm_cuda_convert (const int16_t * disp, size_t disp_pitch,
    uint8_t * out, size_t out_pitch, SgmOutFormat fmt, const SgmParams * p,
    ci_stream_t stream)
{
  dim3 b (32, 8), g ((p->width + 31) / 32, (p->height + 7) / 8);
  convert_kernel <<< g, b, 0, cs (stream) >>> (disp, disp_pitch, out,
      out_pitch, fmt, p->width, p->height, p->min_disp, p->num_disp);
  CHECK_LAUNCH ();
  return 0;
}

/* ---------------- pipeline ---------------- */

struct SgmCuda
{
  void *mem;                    /* one allocation, carved below */
  size_t bytes;
};

static size_t
align256 (size_t v)
{
  return (v + 255) & ~(size_t) 255;
}

extern "C" size_t
sgm_cuda_bytes_needed (const SgmParams * p)
{
  const size_t n = (size_t) p->width * p->height;
  const size_t Ds = sgm_sum_stride (p->num_disp);
  return 2 * align256 (n * 8) + align256 (n * Ds * 2) + align256 (n * Ds) +
      3 * align256 (n * 2) + align256 (n * 4);
}

extern "C" int
sgm_cuda_create (SgmCuda ** out)
{
  SgmCuda *s = (SgmCuda *) calloc (1, sizeof *s);
  if (!s)
    return (int) cudaErrorMemoryAllocation;
  *out = s;
  return 0;
}

extern "C" void
sgm_cuda_destroy (SgmCuda * s)
{
  if (!s)
    return;
  if (s->mem)
    cudaFree (s->mem);
  free (s);
}

extern "C" size_t
sgm_cuda_bytes (const SgmCuda * s)
{
  return s ? s->bytes : 0;
}

extern "C" int
sgm_cuda_reserve (SgmCuda * s, const SgmParams * p)
{
  size_t need = sgm_cuda_bytes_needed (p);
  if (need <= s->bytes)
    return 0;
  if (s->mem) {
    CHECK (cudaFree (s->mem));
    s->mem = NULL;
    s->bytes = 0;
  }
  CHECK (cudaMalloc (&s->mem, need));
  s->bytes = need;
  return 0;
}

extern "C" int
sgm_cuda_compute (SgmCuda * s, const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma,
    int16_t * disp, size_t disp_pitch, ci_stream_t stream)
{
  if (p->width < 1 || p->height < 1 || p->num_disp < 1
      || p->num_disp > SGM_MAX_DISP || (p->paths != 4 && p->paths != 8))
    return (int) cudaErrorInvalidValue;
  int err = sgm_cuda_reserve (s, p);
  if (err)
    return err;
  const size_t n = (size_t) p->width * p->height;
  uint8_t *m = (uint8_t *) s->mem;
  uint64_t *cl = (uint64_t *) m;
  m += align256 (n * 8);
  uint64_t *cr = (uint64_t *) m;
  m += align256 (n * 8);
  uint16_t *sum = (uint16_t *) m;
  m += align256 (n * sgm_sum_stride (p->num_disp) * 2);
  uint8_t *cost = m;
  m += align256 (n * sgm_sum_stride (p->num_disp));
  int16_t *tmp = (int16_t *) m;
  m += align256 (n * 2);
  int16_t *dint = (int16_t *) m;
  m += align256 (n * 2);
  uint32_t *key = (uint32_t *) m;
  const int lr = p->lr_max_diff >= 0;

  if ((err = sgm_cuda_census (left, left_stride, luma, p->width, p->height,
              p->census, cl, stream)))
    return err;
  if ((err = sgm_cuda_census (right, right_stride, luma, p->width, p->height,
              p->census, cr, stream)))
    return err;
  if ((err = sgm_cuda_cost_volume (cl, cr, p, cost, stream)))
    return err;
  for (int dir = 0; dir < p->paths; dir++)
    if ((err = sgm_cuda_aggregate_path (cost, p, dir, sum, dir > 0, stream)))
      return err;
  if (lr)
    CHECK (cudaMemsetAsync (key, 0xff, n * 4, cs (stream)));
  if ((err = sgm_cuda_wta (sum, p, tmp, dint, lr ? key : NULL, stream)))
    return err;
  if (lr && (err = sgm_cuda_lr_check (tmp, dint, key, p, stream)))
    return err;
  if (p->median)
    return sgm_cuda_median (tmp, disp, disp_pitch, p->width, p->height,
        stream);
  CHECK (cudaMemcpy2DAsync (disp, disp_pitch, tmp, (size_t) p->width * 2,
          (size_t) p->width * 2, p->height, cudaMemcpyDeviceToDevice,
          cs (stream)));
  return 0;
}

extern "C" int
sgm_cuda_compute_output (SgmCuda * s, const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma,
    uint8_t * out, size_t out_pitch, SgmOutFormat fmt, ci_stream_t stream)
{
  int err = sgm_cuda_reserve (s, p);
  if (err)
    return err;
  /* the last region of the scratch (see sgm_cuda_bytes_needed) */
  const size_t n = (size_t) p->width * p->height;
  int16_t *fin = (int16_t *) ((uint8_t *) s->mem + sgm_cuda_bytes_needed (p)
      - align256 (n * 2));
  if ((err = sgm_cuda_compute (s, p, left, left_stride, right, right_stride,
              luma, fin, (size_t) p->width * 2, stream)))
    return err;
  return sgm_cuda_convert (fin, (size_t) p->width * 2, out, out_pitch, fmt, p,
      stream);
}
