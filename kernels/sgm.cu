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
 *  - census of both views (uint64 per pixel), then a uint8 cost volume
 *    (popcounts, or 8-bit matrix products on the tensor cores);
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
 *  - for D >= 385 (and every path cost fitting a byte) the pipeline takes
 *    the u8 form (agg3_kernel): each path but the last writes its own
 *    uint8 volume, the last (left to right) reads them and does the WTA
 *    on the spot (see docs/sgm.md for when each form is faster);
 * agg_kernel is the first design (costs from the census words on the fly,
 * one disparity per register); it is kept, and tested, as an independently
 * written second implementation of the same stage.
 */
#include "sgm.h"
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

#define FULL 0xffffffffu
#define BIG 0x7fff              /* > any L + p1 + p2; never a real value */
#define AGG_WARPS 4
#ifndef WTA_WARPS
#define WTA_WARPS 8
#endif
#ifndef WTA_TILE
#define WTA_TILE 64
#endif

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
#define CEN_PY 4                /* rows per thread: the block covers 32 x 32 pixels */
#define CEN_TH (CEN_BY * CEN_PY + 6)
#define CEN_TW (CEN_BX + 8)

struct CensusViews
{
  const uint8_t *img[2];
  size_t stride[2];
  uint64_t *out[2];
};

/* One view per blockIdx.z.  The block's luma tile (with the 4/3-pixel
 * apron, edges clamped) is read once into shared memory; each thread then
 * reads the 9x7 windows of CEN_PY pixels there, rows CEN_BY apart, so the
 * tile's load latency is paid once per 32 x 32 pixels, not per 32 x 8
 * (H200, 1080p, census x 2 + cost volume: 0.357 -> 0.306 ms). */
__global__ void __launch_bounds__ (CEN_BX * CEN_BY)
census_kernel (CensusViews v, SgmLuma luma, int W, int H, int census)
{
  __shared__ int tile[CEN_TH][CEN_TW];
  /* selects, not an index: a parameter array indexed at run time goes
   * through local memory */
  const bool r1 = blockIdx.z != 0;
  const uint8_t *img = r1 ? v.img[1] : v.img[0];
  const size_t stride = r1 ? v.stride[1] : v.stride[0];
  uint64_t *out = r1 ? v.out[1] : v.out[0];
  const int x0 = blockIdx.x * CEN_BX - 4;
  const int y0 = blockIdx.y * CEN_BY * CEN_PY - 3;
  for (int r = threadIdx.y; r < CEN_TH; r += CEN_BY) {
    const int yy = sgm_clampi (y0 + r, 0, H - 1);
    for (int c = threadIdx.x; c < CEN_TW; c += CEN_BX)
      tile[r][c] = sgm_luma_at (img, stride, luma, sgm_clampi (x0 + c, 0,
              W - 1), yy);
  }
  __syncthreads ();
  const int x = blockIdx.x * CEN_BX + threadIdx.x;
  if (x >= W)
    return;
#pragma unroll 1
  for (int k = 0; k < CEN_PY; k++) {
    const int ty = threadIdx.y + k * CEN_BY;
    const int y = blockIdx.y * CEN_BY * CEN_PY + ty;
    if (y >= H)
      return;
    /* clamping the window inside the tile equals clamping in the image,
     * as the tile itself holds clamped pixels */
    int win[7][9];
#pragma unroll
    for (int r = 0; r < 7; r++)
#pragma unroll
      for (int c = 0; c < 9; c++)
        win[r][c] = tile[ty + r][threadIdx.x + c];
    /* sgm_census_from_window's bits in the same order, appended to two
     * 32-bit words instead of shifting one 64-bit word per bit (H200,
     * 1080p: 94 -> 75 us per view) */
    uint32_t hi = 0, lo = 0;
    int n = 0;
    auto put = [&](bool bit) {
      if (n < 32)
        hi = (hi << 1) | bit;
      else
        lo = (lo << 1) | bit;
      n++;
    };
    if (census == SGM_CENSUS_SYM_9X7) {
#pragma unroll
      for (int r = 0; r < 4; r++)
#pragma unroll
        for (int c = 0; c < 9; c++)
          if (r < 3 || c < 4)
            put (win[r][c] >= win[6 - r][8 - c]);
    } else {
      const int centre = win[3][4];
#pragma unroll
      for (int r = 0; r < 7; r++)
#pragma unroll
        for (int c = 0; c < 9; c++)
          if (r != 3 || c != 4)
            put (win[r][c] < centre);
    }
    /* n bits in all: the first min (n, 32) are in hi, the rest in lo */
    const int nl = n - 32;
    out[(size_t) y * W + x] = nl > 0 ? ((uint64_t) hi << nl) | lo : hi;
  }
}

extern "C" int
sgm_cuda_census (const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma, int width,
    int height, int census, uint64_t * out_left, uint64_t * out_right,
    ci_stream_t stream)
{
  CensusViews v = { {left, right}, {left_stride, right_stride},
  {out_left, out_right}
  };
  dim3 b (CEN_BX, CEN_BY), g ((width + CEN_BX - 1) / CEN_BX,
      (height + CEN_BY * CEN_PY - 1) / (CEN_BY * CEN_PY), right ? 2 : 1);
  census_kernel <<< g, b, 0, cs (stream) >>> (v, luma, width, height,
      census);
  CHECK_LAUNCH ();
  return 0;
}

/* ---------------- matching cost volume ---------------- */

/* cost[pix * Ds + d] (uint8); d in [D, Ds) is 0. Thread (run, q) walks
 * a run of COST_P pixels of a row for the disparities 4q .. 4q + 3 (q <
 * Ds / 4); consecutive threads take consecutive q, so a pixel's words are
 * contiguous stores, and no lane idles whatever Ds / 4 is (with a fixed 32
 * lanes per run, D = 270 left 28 of a third warp's lanes idle: slower than
 * before). For 4 pixels x .. x + 3 the thread needs the right-view words
 * x - min - 4q - 3 .. x - min - 4q + 3: the last three are the next
 * group's first three, so each group loads 4 new words (the old kernel
 * loaded 4 per pixel and transposed through shared memory with a division
 * per word: H100, 1080p, D = 128, 290 us at 25 instructions per cost).
 * What remains is two popcounts per cost (the 62-bit census; 16 per clock
 * per SM): H200, 1080p, D = 128, census x 2 + costs 0.305 -> 0.235 ms. */
#define COST_P 32
#define COST_T 256

template < bool EDGE > __device__ __forceinline__ void
cost_group (const uint64_t (&w)[7], const uint64_t (&L)[4], int base, int W,
    int cmax, uint32_t dmask, int n, uint32_t * out, int nq)
{
#pragma unroll
  for (int t = 0; t < 4; t++) {
    uint32_t word = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint32_t c = (uint32_t) __popcll (L[t] ^ w[3 + t - j]);
      if (EDGE)
        c = (unsigned) (base + t - j) < (unsigned) W ? c : (uint32_t) cmax;
      word |= c << (8 * j);
    }
    if (t < n)
      out[(size_t) t * nq] = word & dmask;
  }
}

__global__ void __launch_bounds__ (COST_T)
cost_kernel (const uint64_t * __restrict__ cl, const uint64_t * __restrict__ cr,
    int W, int D, int nq, int nruns, int min_disp, int cmax,
    uint32_t * __restrict__ cost)
{
  const int gt = blockIdx.x * COST_T + threadIdx.x;
  const int run = gt / nq, q = gt - run * nq;
  const int y = blockIdx.y;
  if (run >= nruns)
    return;                     /* no warp-wide operations below */
  const int x0 = run * COST_P, xe = min (x0 + COST_P, W);
  const int d0 = 4 * q;
  const uint32_t dmask = d0 + 4 <= D ? 0xffffffffu
      : d0 >= D ? 0u : 0xffffffffu >> (8 * (d0 + 4 - D));
  const uint64_t *row = cr + (size_t) y * W, *lrow = cl + (size_t) y * W;
  uint32_t *out = cost + ((size_t) y * W + x0) * nq + q;
  int base = x0 - min_disp - d0;        /* right pixel of (x, d0) */
  uint64_t w[7];                /* w[3 + i] = right word base + i */
#pragma unroll
  for (int i = 0; i < 3; i++)
    w[i] = __ldg (row + min (max (base - 3 + i, 0), W - 1));
  for (int x = x0; x < xe; x += 4, base += 4, out += 4 * (size_t) nq) {
    uint64_t L[4];
#pragma unroll
    for (int t = 0; t < 4; t++)
      L[t] = __ldg (lrow + min (x + t, W - 1));
    const int n = xe - x;
    if (base - 3 >= 0 && base + 3 < W) {
#pragma unroll
      for (int i = 0; i < 4; i++)
        w[3 + i] = __ldg (row + base + i);
      cost_group < false > (w, L, base, W, cmax, dmask, n, out, nq);
    } else {
#pragma unroll
      for (int i = 0; i < 4; i++)
        w[3 + i] = __ldg (row + min (max (base + i, 0), W - 1));
      cost_group < true > (w, L, base, W, cmax, dmask, n, out, nq);
    }
#pragma unroll
    for (int i = 0; i < 3; i++)
      w[i] = w[4 + i];
  }
}

/* The same volume on the tensor cores (sm_80+), where the popcounts above
 * are the limit (H200, 4K, D = 256: 1.25 ms for 2.1 GB written, 85 % of
 * the SM busy, 12 instructions per cost). With the left word as 64 signed
 * bytes 1 - 2 bit and the right word as 64 bytes 0 / 1, the Hamming
 * distance is a dot product: popc (l) + sum (1 - 2 l_k) r_k = popc (l ^ r),
 * so an 8-bit integer matrix product started at popc (l) gives the cost.
 * A warp multiplies 16 left pixels (rows) by 8 right pixels (columns) per
 * pair of m16n8k32 steps; the right pixels a row needs are x - min - d,
 * so 16 rows and 256 disparities take 34 column tiles (94 % of the
 * products are used). A block (8 warps: 128 pixels of a row, one chunk
 * of 256 disparities) expands the right words its tile needs into shared
 * memory, each warp stages its 16 x 256 bytes there (d along a row) and
 * writes them out as whole rows; then the block takes the row's next tile.
 * Only the tiles whose right pixels leave the image take a check. What
 * limits it now is latency and the byte-wide staging stores (H200, 4K:
 * 1.0 ms, 46 % of the DRAM bandwidth, 50 % of the SM's issue). */
#define MCOST_W 8                       /* warps per block */
#define MCOST_X (16 * MCOST_W)          /* pixels per block */
#define MCOST_D 256                     /* disparities per block */
#define MCOST_NP (MCOST_X + MCOST_D)    /* right pixels per block */
#define MCOST_NT ((MCOST_D + 16) / 8)   /* column tiles per warp */
/* staging row: 16 bytes before d = 0 and 34 after d = 255 take the
 * products outside [0, 256) that every column tile has at the band's ends,
 * so no tile checks d; stride 304: no bank conflicts */
#define MCOST_S 304
#define MCOST_PRE 16
#define MCOST_SMEM (MCOST_NP * 64 + MCOST_W * 16 * MCOST_S)

/* bits sh .. sh + 3 of w as 4 bytes, 0 or 1 each */
__device__ __forceinline__ uint32_t
nib_spread (uint32_t w, int sh)
{
  return (((w >> sh) & 0xfu) * 0x00204081u) & 0x01010101u;
}

/* The census bits lane t holds of either operand, one byte each: bits
 * 4 t .. 4 t + 3 + 16 k for k = 0 .. 3 (the k-th register of an m16n8k32
 * fragment pair), so that left and right use the same order */
__device__ __forceinline__ uint4
nib_words (uint64_t c, int t)
{
  const uint32_t lo = (uint32_t) c, hi = (uint32_t) (c >> 32);
  return make_uint4 (nib_spread (lo, 4 * t), nib_spread (lo, 16 + 4 * t),
      nib_spread (hi, 4 * t), nib_spread (hi, 16 + 4 * t));
}

/* Column tile j of the warp into its staging rows. The value of row r,
 * column c is d = 255 + r - c - 8 j (of the block's 256), in [-16, 270]. */
template < bool EDGE > __device__ __forceinline__ void
mcost_tile (int j, const uint32_t (&a)[2][4], int pa0, int pa1,
    const uint4 * bp, uint8_t * sbase, int xs, int W, int cmax, int t)
{
  const uint4 b = bp[32 * j];
  int c0, c1, c2, c3;
  asm ("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%10,%11,%11};\n"
      : "=r" (c0), "=r" (c1), "=r" (c2), "=r" (c3)
      : "r" (a[0][0]), "r" (a[1][0]), "r" (a[0][1]), "r" (a[1][1]),
      "r" (b.x), "r" (b.y), "r" (pa0), "r" (pa1));
  asm ("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+r" (c0), "+r" (c1), "+r" (c2), "+r" (c3)
      : "r" (a[0][2]), "r" (a[1][2]), "r" (a[0][3]), "r" (a[1][3]),
      "r" (b.z), "r" (b.w));
  uint8_t *s = sbase - 8 * j;
  if (!EDGE) {
    s[0] = (uint8_t) c0;
    s[-1] = (uint8_t) c1;
    s[8 * MCOST_S + 8] = (uint8_t) c2;
    s[8 * MCOST_S + 7] = (uint8_t) c3;
  } else {
    /* right pixels outside the image cost the maximum */
    const int xr = xs + 8 * j + 2 * t;  /* columns 2 t and 2 t + 1 */
    const bool v0 = (unsigned) xr < (unsigned) W,
        v1 = (unsigned) (xr + 1) < (unsigned) W;
    s[0] = (uint8_t) (v0 ? c0 : cmax);
    s[-1] = (uint8_t) (v1 ? c1 : cmax);
    s[8 * MCOST_S + 8] = (uint8_t) (v0 ? c2 : cmax);
    s[8 * MCOST_S + 7] = (uint8_t) (v1 ? c3 : cmax);
  }
}

/* the right words of the block's tile at X0 into registers (w), then as
 * bytes into shared memory (mcost_expand) */
template < int NI > __device__ __forceinline__ void
mcost_load (uint64_t (&w)[NI], const uint64_t * rrow, int xb, int W, int jmin)
{
#pragma unroll
  for (int k = 0; k < NI; k++) {
    const int i = threadIdx.x + k * MCOST_W * 32;
    if (i >= 32 * jmin)
      w[k] = __ldg (rrow + min (max (xb + (i >> 2), 0), W - 1));
  }
}

template < int NI > __device__ __forceinline__ void
mcost_expand (const uint64_t (&w)[NI], uint4 * bx, int jmin)
{
#pragma unroll
  for (int k = 0; k < NI; k++) {
    const int i = threadIdx.x + k * MCOST_W * 32;
    if (i >= 32 * jmin)
      bx[i] = nib_words (w[k], i & 3);
  }
}

/* The block walks MCOST_NB tiles of a row (one disparity chunk), loading
 * the next tile's words while the tensor cores work on this one. */
#define MCOST_NB 4

__global__ void __launch_bounds__ (MCOST_W * 32)
mma_cost_kernel (const uint64_t * __restrict__ cl,
    const uint64_t * __restrict__ cr, int W, int D, int Ds, int nch,
    int min_disp, int cmax, uint8_t * __restrict__ cost)
{
#if __CUDA_ARCH__ >= 800
  extern __shared__ __align__ (16) uint8_t msm[];
  uint4 *bx = (uint4 *) msm;    /* [pixel][t]: the 4 words lane t reads */
  /* the chunks of a pixel run next to each other, so that the sector two
   * of them share is whole in the L2 before it is written back */
  const int ch = blockIdx.x % nch;
  const int y = blockIdx.y, Xb = blockIdx.x / nch * (MCOST_NB * MCOST_X);
  const int Xe = min (Xb + MCOST_NB * MCOST_X, W);      /* the block's end */
  const int dc = ch * MCOST_D;
  const int Dloc = min (D - dc, MCOST_D), Sloc = min (Ds - dc, MCOST_D);
  /* the first tile with a disparity below D */
  const int jmin = Dloc > MCOST_D - 8 ? 0 : (MCOST_D - 8 - Dloc) / 8 + 1;
  const uint64_t *rrow = cr + (size_t) y * W, *lrow = cl + (size_t) y * W;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3;
  uint8_t *stage = msm + MCOST_NP * 64 + warp * 16 * MCOST_S;
  uint8_t *sbase = stage + g * MCOST_S + MCOST_PRE + (MCOST_D - 1) + g - 2 * t;
  const uint4 *bp = bx + (16 * warp + g) * 4 + t;
  /* copy-out: lane = 8 bytes of d; d >= D is 0 */
  const int u = 8 * lane, keep = Dloc - u;
  const unsigned long long mask = keep >= 8 ? ~0ull : keep <= 0 ? 0ull
      : (1ull << (8 * keep)) - 1;
  constexpr int NI = MCOST_NP * 4 / (MCOST_W * 32);
  uint64_t rw[NI], lw[2];
  /* right pixel of entry p: X0 + xb0 + p; tiles before jmin are never read */
  const int xb0 = -min_disp - dc - (MCOST_D - 1);
  mcost_load (rw, rrow, Xb + xb0, W, jmin);
#pragma unroll
  for (int h = 0; h < 2; h++)
    lw[h] = __ldg (lrow + min (Xb + 16 * warp + g + 8 * h, W - 1));
  for (int X0 = Xb; X0 < Xe; X0 += MCOST_X) {
    if (X0 != Xb)
      __syncthreads ();         /* every warp is done with bx */
    mcost_expand (rw, bx, jmin);
    /* left rows g and g + 8: bytes 1 - 2 bit; the sums start at popc (l) */
    uint32_t a[2][4];
    int pa[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const uint4 n = nib_words (lw[h], t);
      a[h][0] = 0x01010101u | n.x * 0xfeu;
      a[h][1] = 0x01010101u | n.y * 0xfeu;
      a[h][2] = 0x01010101u | n.z * 0xfeu;
      a[h][3] = 0x01010101u | n.w * 0xfeu;
      pa[h] = __popcll (lw[h]);
    }
    __syncthreads ();
    const int Xn = X0 + MCOST_X, x0 = X0 + 16 * warp;
    if (Xn < Xe) {
      mcost_load (rw, rrow, Xn + xb0, W, jmin);
#pragma unroll
      for (int h = 0; h < 2; h++)
        lw[h] = __ldg (lrow + min (Xn + 16 * warp + g + 8 * h, W - 1));
    }
    const int xs = X0 + xb0 + 16 * warp;        /* right pixel of column 0, tile 0 */
    /* tiles whose right pixels are all in the image (floor divisions by 8
     * as arithmetic shifts). (Written as -(xs >> 3), the ceiling lost its
     * negation in CUDA 13.0's ptxas, which folded it into a three-way
     * maximum: wrong costs at the left edge.) */
    int f0 = max ((7 - xs) >> 3, jmin);
    int f1 = min (MCOST_NT - 1, (W - 8 - xs) >> 3);
    if (f0 > f1) {
      f0 = MCOST_NT;
      f1 = MCOST_NT - 1;
    }
    for (int j = jmin; j < f0; j++)
      mcost_tile < true > (j, a, pa[0], pa[1], bp, sbase, xs, W, cmax, t);
#pragma unroll 4
    for (int j = f0; j <= f1; j++)
      mcost_tile < false > (j, a, pa[0], pa[1], bp, sbase, xs, W, cmax, t);
    for (int j = max (f1 + 1, jmin); j < MCOST_NT; j++)
      mcost_tile < true > (j, a, pa[0], pa[1], bp, sbase, xs, W, cmax, t);
    __syncwarp ();
    if (u < Sloc) {
      const int nr = min (16, W - x0);
      const uint8_t *src = stage + MCOST_PRE + u;
      uint8_t *dst = cost + ((size_t) y * W + x0) * Ds + dc + u;
      for (int r = 0; r < nr; r++, src += MCOST_S, dst += Ds)
        *(unsigned long long *) dst = *(const unsigned long long *) src & mask;
    }
    __syncwarp ();              /* the stage is read before the next tile */
  }
#endif
}

/* the first nch chunks of 256 disparities */
static int
launch_mma_cost (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, int nch, uint8_t * cost, cudaStream_t s)
{
  /* every call: the attribute belongs to the current context */
  CHECK (cudaFuncSetAttribute (mma_cost_kernel,
          cudaFuncAttributeMaxDynamicSharedMemorySize, MCOST_SMEM));
  const int span = MCOST_NB * MCOST_X;
  dim3 g ((p->width + span - 1) / span * nch, p->height);
  mma_cost_kernel <<< g, MCOST_W * 32, MCOST_SMEM, s >>> (cl, cr, p->width,
      p->num_disp, sgm_sum_stride (p->num_disp), nch, p->min_disp,
      sgm_census_bits (p->census), cost);
  CHECK_LAUNCH ();
  return 0;
}

extern "C" int
sgm_cuda_cost_volume_popc (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost, ci_stream_t stream)
{
  const int nq = sgm_sum_stride (p->num_disp) / 4;
  const int nruns = (p->width + COST_P - 1) / COST_P;
  dim3 g ((unsigned) (((size_t) nruns * nq + COST_T - 1) / COST_T),
      p->height);
  cost_kernel <<< g, COST_T, 0, cs (stream) >>> (cl, cr, p->width,
      p->num_disp, nq, nruns, p->min_disp, sgm_census_bits (p->census),
      (uint32_t *) cost);
  CHECK_LAUNCH ();
  return 0;
}

extern "C" int
sgm_cuda_cost_volume_mma (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost, ci_stream_t stream)
{
  int dev, major = 0;
  CHECK (cudaGetDevice (&dev));
  CHECK (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          dev));
  if (major < 8)
    return (int) cudaErrorNotSupported;
  return launch_mma_cost (cl, cr, p, (p->num_disp + MCOST_D - 1) / MCOST_D,
      cost, cs (stream));
}

extern "C" int
sgm_cuda_cost_volume (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost, ci_stream_t stream)
{
  /* CI_SGM_COST_POPC=1 (benchmarks) keeps the popcount kernel */
  const char *e = getenv ("CI_SGM_COST_POPC");
  const int popc = e && *e && atoi (e) != 0;
  /* The tensor cores pay where each chunk of 256 disparities is at least
   * 3/4 full (a chunk's fixed costs, the expansion and the copy-out, are
   * those of a full one). H200, the cost volume alone, popcounts -> tensor
   * cores: 4K, D = 256 1.25 -> 1.00 ms; 1080p, D = 512 0.66 -> 0.51, D =
   * 256 0.33 -> 0.26, D = 192 0.26 -> 0.22, D = 128 0.17 both, D = 270 as
   * 256 + 16: 0.36 -> 0.37, or with the 16 by popcounts: 0.55. */
  const int D = p->num_disp, rest = D % MCOST_D;
  if (!popc && D >= 192 && (rest == 0 || rest >= 192)) {
    const int err = sgm_cuda_cost_volume_mma (cl, cr, p, cost, stream);
    if (err != (int) cudaErrorNotSupported)     /* (that is: before sm_80) */
      return err;
  }
  return sgm_cuda_cost_volume_popc (cl, cr, p, cost, stream);
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

/* the smallest of a lane's KP 16-bit pairs (its share of a path minimum) */
template < int KP > __device__ __forceinline__ unsigned
pairs_min (const uint32_t (&P)[KP])
{
  uint32_t mm = P[0];
#pragma unroll
  for (int j = 1; j < KP; j++)
    mm = __vminu2 (mm, P[j]);
  return min (mm & 0xffffu, mm >> 16);
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

/* Asynchronous copy of N (4, 8 or 16) bytes to shared memory; 16 bytes
 * bypass L1 (.cg: streamed once), the smaller sizes only exist as .ca. */
template < int N > __device__ __forceinline__ void
cp_async (void *smem, const void *gmem)
{
  static_assert (N == 4 || N == 8 || N == 16, "cp.async copies 4, 8 or 16 bytes");
#if __CUDA_ARCH__ >= 800
  unsigned sa = (unsigned) __cvta_generic_to_shared (smem);
  if constexpr (N == 16)
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n"::"r" (sa),
        "l" (gmem));
  else
    asm volatile ("cp.async.ca.shared.global [%0], [%1], %2;\n"::"r" (sa),
        "l" (gmem), "n" (N));
#else
  /* Turing has no cp.async: a plain copy, complete before the wait. */
  if constexpr (N == 16)
    *(uint4 *) smem = *(const uint4 *) gmem;
  else if constexpr (N == 8)
    *(uint2 *) smem = *(const uint2 *) gmem;
  else
    *(uint32_t *) smem = *(const uint32_t *) gmem;
#endif
}

/* cp_async to a shared address when on, predicated inside the asm (a C++
 * condition around it became a branch per step) */
template < int N > __device__ __forceinline__ void
cp_async_p (uint32_t saddr, const void *gmem, bool on)
{
  static_assert (N == 4 || N == 8, "4 or 8 bytes");
#if __CUDA_ARCH__ >= 800
  asm volatile ("{\n .reg .pred p;\n setp.ne.u32 p, %3, 0;\n"
      " @p cp.async.ca.shared.global [%0], [%1], %2;\n}\n"::"r" (saddr),
      "l" (gmem), "n" (N), "r" ((uint32_t) on));
#else
  if (on)
    cp_async < N > (__cvta_shared_to_generic (saddr), gmem);
#endif
}

/* shared loads by address when on (else 0), ordered after the (volatile)
 * cp.async waits */
__device__ __forceinline__ uint2
lds64_p (uint32_t saddr, bool on)
{
  uint2 v;
  asm volatile ("{\n .reg .pred p;\n setp.ne.u32 p, %3, 0;\n"
      " mov.u32 %0, 0;\n mov.u32 %1, 0;\n"
      " @p ld.shared.v2.u32 {%0, %1}, [%2];\n}\n":"=r" (v.x), "=r" (v.y)
      :"r" (saddr), "r" ((uint32_t) on));
  return v;
}

__device__ __forceinline__ uint32_t
lds32_p (uint32_t saddr, bool on)
{
  uint32_t v;
  asm volatile ("{\n .reg .pred p;\n setp.ne.u32 p, %2, 0;\n"
      " mov.u32 %0, 0;\n @p ld.shared.u32 %0, [%1];\n}\n":"=r" (v)
      :"r" (saddr), "r" ((uint32_t) on));
  return v;
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
        cp_async < 16 > (r + i * 8, g + i * 8);
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
  CHECK ((cudaError_t) ci_cuda_smem_at_least ((const void *) agg_kernel < K >,
          smem));
  agg_kernel < K > <<< blocks, AGG_WARPS * 32, smem, s >>> (cl, cr, acc, a);
  CHECK_LAUNCH ();
  return 0;
}

/* ---- version 2: costs from the cost volume, two disparities per 32-bit
 * register (SIMD-in-word min/add/sub), K = 2 * KP consecutive disparities
 * per lane, costs and partial sums streamed through the ring. ---- */

#define BIG2 0x7fff7fffu

/* One pair of a path step: lo and hi hold P(d - 1) and P(d + 1) for each
 * half's d, p P(d), c the costs; halves outside the range (vm clear) stay
 * BIG2. npm2 is -pmin (mod 2^16) in both halves. min (P, P(d -+ 1) + p1,
 * pmin + p2) - pmin is taken as min (min (P, P(d -+ 1) + p1) - pmin, p2):
 * every P is at least pmin, so the subtraction never wraps, and the add
 * and min fuse (VIADDMNMX on sm_90), one instruction less per pair than
 * min (.., pmin + p2) - pmin. */
__device__ __forceinline__ uint32_t
path_pair (uint32_t lo, uint32_t hi, uint32_t p, uint32_t c, uint32_t vm,
    uint32_t p1x2, uint32_t npm2, uint32_t p2x2)
{
  uint32_t m = __vminu2 (__vadd2 (__vminu2 (lo, hi), p1x2), p);
  m = __vadd2 (__vminu2 (__vadd2 (m, npm2), p2x2), c);
  return (m & vm) | (BIG2 & ~vm);
}

/* -pmin in both halves */
__device__ __forceinline__ uint32_t
neg_pmin2 (uint32_t pmin)
{
  return ((0u - pmin) & 0xffffu) * 0x10001u;
}

/* One step of a path on a lane's K = 2 * KP disparities, held as 16-bit
 * pairs: L(d) = C(d) + min (P(d), P(d-1) + p1, P(d+1) + p1, pmin + p2) - pmin.
 * up and dn are P(d0 - 1) and P(d0 + K) from the neighbouring lanes (BIG2
 * past the ends); disparities outside the range (vm clear) stay BIG2. */
template < int KP >
__device__ __forceinline__ void
path_step (uint32_t (&P)[KP], uint32_t up, uint32_t dn, uint32_t pmin,
    uint32_t p1x2, uint32_t p2x2, const uint32_t (&C2)[KP],
    const uint32_t (&vm)[KP])
{
  const uint32_t npm2 = neg_pmin2 (pmin);
  uint32_t NP[KP];
#pragma unroll
  for (int j = 0; j < KP; j++)
    NP[j] = path_pair (__byte_perm (j > 0 ? P[j - 1] : up, P[j], 0x5432),
        __byte_perm (P[j], j < KP - 1 ? P[j + 1] : dn, 0x5432), P[j], C2[j],
        vm[j], p1x2, npm2, p2x2);
#pragma unroll
  for (int j = 0; j < KP; j++)
    P[j] = NP[j];
}

/* ---- split pairs ----
 * A lane's run of 2 N consecutive disparities d_0 .. d_2N-1 held as N
 * pairs (d_k, d_k+N) rather than (d_2k, d_2k+1): pair k's neighbours
 * d -+ 1 are then pairs k - 1 and k + 1 themselves, and only the run's
 * first and last pair take a byte permute with the neighbouring lane's
 * value (up: its last pair, whose high half is the run's d_0 - 1; dn: its
 * first pair, whose low half is d_2N-1 + 1). 2 permutes per run instead of
 * 2 per pair. The costs come in from bytes by one permute per pair as
 * before (prmt's sign-replicating selectors give the zero high bytes,
 * since no cost reaches 128), the stores take 2 N / 4 ... N permutes.
 * Used by the passes' form where D fills the lanes (agg3_body's SPLIT). */

/* prmt with a selector that may sign-replicate */
template < uint32_t S > __device__ __forceinline__ uint32_t
prmt (uint32_t a, uint32_t b)
{
  uint32_t r;
  asm ("prmt.b32 %0, %1, %2, %3;":"=r" (r):"r" (a), "r" (b), "n" (S));
  return r;
}

/* costs (bytes d_0 .. d_2N-1 in w[0], w[1]; costs < 128) to split pairs */
template < int N > __device__ __forceinline__ void
split_costs (const uint32_t * w, uint32_t * C2)
{
  static_assert (N == 4 || N == 2, "8- or 4-byte runs");
  if constexpr (N == 4) {
    /* (w0.b k, w1.b k), high bytes the sign of each: 0 */
    C2[0] = prmt < 0xC480 > (w[0], w[1]);
    C2[1] = prmt < 0xD591 > (w[0], w[1]);
    C2[2] = prmt < 0xE6A2 > (w[0], w[1]);
    C2[3] = prmt < 0xF7B3 > (w[0], w[1]);
  } else {
    C2[0] = prmt < 0xA280 > (w[0], w[0]);
    C2[1] = prmt < 0xB391 > (w[0], w[0]);
  }
}

/* split pairs (low bytes of P & vm) to the run's bytes in w */
template < int N > __device__ __forceinline__ void
split_store_words (const uint32_t * P, const uint32_t * vm, uint32_t * w)
{
  static_assert (N == 4 || N == 2, "8- or 4-byte runs");
  /* (P0.b0, P1.b0, P0.b2, P1.b2) */
  const uint32_t t01 = __byte_perm (P[0] & vm[0], P[1] & vm[1], 0x6240);
  if constexpr (N == 4) {
    const uint32_t t23 = __byte_perm (P[2] & vm[2], P[3] & vm[3], 0x6240);
    w[0] = __byte_perm (t01, t23, 0x5410);
    w[1] = __byte_perm (t01, t23, 0x7632);
  } else {
    w[0] = t01;
  }
}

/* new values NP of a run of N split pairs P (up, dn: as above) */
template < int N > __device__ __forceinline__ void
split_run (const uint32_t * P, uint32_t up, uint32_t dn, const uint32_t * C2,
    const uint32_t * vm, uint32_t p1x2, uint32_t npm2, uint32_t p2x2,
    uint32_t * NP)
{
#pragma unroll
  for (int k = 0; k < N; k++)
    NP[k] = path_pair (k == 0 ? __byte_perm (up, P[N - 1], 0x5432) : P[k - 1],
        k == N - 1 ? __byte_perm (P[0], dn, 0x5432) : P[k + 1], P[k], C2[k],
        vm[k], p1x2, npm2, p2x2);
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

  /* addresses stepped, not recomputed: a path moves by a constant offset
   * per step, and the ring slot wraps (no 64-bit multiply or modulo in the
   * loop) */
  const ptrdiff_t step = ((ptrdiff_t) a.dy * a.W + a.dx) * Ds;
  const size_t off0 = ((size_t) sy * a.W + sx) * Ds;
  size_t foff = off0 + (size_t) lane * 8;
  int ft = 0, fslot = 0;
  auto fetch = [&]() {
    if (ft < len) {
      uint16_t *rs = ringS + fslot * Ds + lane * 8;
      uint8_t *rc = ringC + fslot * Ds + lane * 8;
      for (int i = lane, o = 0; i < pieces; i += 32, o += 256) {
        if (a.accumulate)
          cp_async < 16 > (rs + o, acc + foff + o);
        cp_async < 8 > (rc + o, cost + foff + o);
      }
    }
    cp_async_commit ();         /* one group per step, empty or not */
    ft++;
    foff += step;
    fslot = fslot == R - 1 ? 0 : fslot + 1;
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
    fetch ();

  uint32_t P[KP];
  uint32_t pmin = 0;
  uint16_t *g = acc + off0 + d0;
  int slot = 0;
  for (int t = 0; t < len; t++) {
    cp_async_wait < R - 1 > ();
    __syncwarp ();
    const uint16_t *rs = ringS + slot * Ds + d0;
    const uint8_t *rc = ringC + slot * Ds + d0;
    slot = slot == R - 1 ? 0 : slot + 1;
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
      path_step<KP> (P, up, dn, pmin, p1x2, p2x2, C2, vm);
    }
    pmin = warp_min_u (pairs_min (P));

#pragma unroll
    for (int j = 0; j < KP; j++)
      if (inmem[j])             /* padding disparities stored as 0 */
        *(uint32_t *) (g + 2 * j) = __vadd2 (S2[j], P[j]) & vm[j];
    g += step;
    __syncwarp ();              /* the slot is read before it is refilled */
    fetch ();
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
  CHECK ((cudaError_t) ci_cuda_smem_at_least ((const void *) agg2_kernel < KP >,
          smem));
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

/* ---- version 3, the pipeline's path when every path cost fits a byte
 * (cmax + p2 <= 255, the usual case): each path but the last (dir 0)
 * writes its own uint8 volume L_dir (1 byte per element instead of the
 * 4-byte read-modify-write of the uint16 sum); the last pass reads the
 * costs and those volumes through the ring, adds its own path costs and
 * does the winner-takes-all on the spot (fused WTA, uniqueness, subpixel;
 * the right view's minima of its row collect in shared memory, so no
 * atomics and no sum volume).  Same recurrence as agg2_kernel. ---- */

__device__ __forceinline__ int
x_of (int sx, int t, int dx)
{
  return sx + t * dx;
}

struct Agg3Args
{
  AggArgs g;
  int nvol;                     /* volumes read besides the costs (FINAL) */
  size_t vstride;               /* bytes from one volume to the next */
  int uniqueness, subpixel, want_right;
};

/* G lanes per path line (a warp walks 32 / G lines side by side), KP
 * disparity pairs per lane; the last pass has G = 32. */
template < int KP, bool FINAL, int G = 32 > struct Agg3Cfg
{
  static constexpr int LPW = 32 / G;
  static constexpr int R0 = FINAL ? 12288 / (512 * KP) : 8192 / (64 * KP);
  static constexpr int RMAX = FINAL ? 16 : 32;
  static constexpr int R = R0 > RMAX ? RMAX : R0 < 2 ? 2 : R0;
  static constexpr int WARPS = FINAL ? 2 : AGG_WARPS;
};

__device__ __forceinline__ int
warp_max (int v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync (FULL, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    int u = __shfl_xor_sync (FULL, v, o);
    v = u > v ? u : v;
  }
  return v;
#endif
}

/* The output disparity of a WTA winner bd (cost bc, second best outside
 * bd - 1 .. bd + 1 `second`): invalid unless unique, else bd (+ min) in
 * 1/16 px with the subpixel fit when on. nb (-1 / +1) gives S(bd - 1) and
 * S(bd + 1); it is called only when the fit runs. */
template < class NB > __device__ __forceinline__ int
wta_out (int bd, int bc, int second, int uniqueness, int subpixel,
    int min_disp, int D, NB nb)
{
  if (!sgm_unique_ok (bc, second, uniqueness))
    return SGM_INVALID;
  int out = (min_disp + bd) * SGM_DISP_SCALE;
  if (subpixel && bd > 0 && bd < D - 1)
    out += sgm_subpixel_offset ((int) nb (-1), bc, (int) nb (1));
  return out;
}

/* minimum over each group of G lanes (the full warp takes part) */
template < int G > __device__ __forceinline__ unsigned
group_min_u (unsigned v)
{
  if constexpr (G == 32) {
    return warp_min_u (v);
#if __CUDA_ARCH__ >= 800
  } else if constexpr (G == 16) {
    /* two independent whole-warp reductions: the step's chain waits for
     * one reduction instead of four dependent shuffles (H200, 720p,
     * D = 128: 1.18 -> 1.14 ms) */
    const bool hi = (threadIdx.x & 16) != 0;
    const unsigned r0 = __reduce_min_sync (FULL, hi ? 0xffffffffu : v);
    const unsigned r1 = __reduce_min_sync (FULL, hi ? v : 0xffffffffu);
    return hi ? r1 : r0;
#endif
  } else {
#pragma unroll
    for (int o = G / 2; o > 0; o >>= 1) {
      unsigned u = __shfl_xor_sync (FULL, v, o);
      v = u < v ? u : v;
    }
    return v;
  }
}

__device__ __forceinline__ unsigned
warp_and_u (unsigned v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_and_sync (FULL, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v &= __shfl_xor_sync (FULL, v, o);
  return v;
#endif
}

/* two bytes -> two uint16 halves */
__device__ __forceinline__ uint32_t
expand2 (const uint8_t * p)
{
  return __byte_perm (*(const uint16_t *) p, 0, 0x4140);
}

/* vols: volume 0 is the cost volume, volumes 1..nvol the other paths
 * (FINAL); out: this path's volume (not FINAL). */
template < int KP, bool FINAL, int G, bool FD = false >
__device__ __forceinline__ void
agg3_body (const uint8_t * __restrict__ vols, uint8_t * __restrict__ out,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key, const Agg3Args & a3)
{
  static_assert (!FINAL || G == 32, "the last pass has one line per warp");
  constexpr int K = 2 * KP, R = Agg3Cfg < KP, FINAL, G >::R;
  constexpr int NW = Agg3Cfg < KP, FINAL, G >::WARPS;
  constexpr int LPW = 32 / G;
  /* K a multiple of 4, no other volumes: a lane's costs are K / GR
   * aligned pieces of GR bytes of the slot, which the lane fetches itself
   * (cp.async, then shared loads and stores of whole pieces; no __syncwarp
   * for the ring). H200, 1080p, D = 128: 165 -> 116 M instructions per pass,
   * pipeline 2.80 -> 2.34 ms (720p 1.44 -> 1.18, 4K D = 256 18.1 -> 15.5). */
  constexpr bool SELF = !FINAL && K % 4 == 0;
  constexpr int GR = K % 8 == 0 ? 8 : 4, NPC = K / GR;
  /* SELF on 8 or 16 lanes per line (D <= 128): shared addresses stepped
   * and the copies and loads predicated inside their asm (below). H200,
   * against the C++ loads and conditions: 1080p D = 32 1.56 -> 1.36 ms,
   * D = 64 1.72 -> 1.58-1.61, 720p 1.12 -> 1.07-1.08, 1024x440 (4 paths)
   * 0.46 -> 0.39-0.40, 1080p D = 128 2.25-2.27 -> 2.26-2.28. On 32 lanes
   * it measured 0.3-0.8 % slower at D = 256 (1080p, 4K), 0.6 % faster at
   * 512, and with 2 or 3 4-byte pieces (D = 270) 5.36 -> 5.77 ms, so 32
   * lanes keep the former (D > 256 now takes aggil_kernel). */
  constexpr bool SELFA = SELF && G < 32 && (GR == 8 || NPC == 1);
  /* what the launchers instantiate: a pass has an even KP (so SELF), and
   * on 32 lanes one 8-byte piece per lane (D > 256 takes aggil_kernel) */
  static_assert (FINAL || SELF, "a pass's pieces are whole words");
  static_assert (!SELF || SELFA || GR == 8, "32-lane pass: one 8-byte piece");
  /* SPLIT: the lane's K disparities as split pairs (split_run), only
   * where D fills the lanes (FD). H200, 1080p, 8 passes one after another:
   * D = 128 1.83 -> 1.73 ms, 720p 1.02 -> 0.95, D = 32 1.36 -> 1.32,
   * D = 256 the same. Where lanes are left empty they were slower (D = 96
   * 1.95 -> 2.63, D = 192 3.15 -> 3.36), with the same registers and no
   * more instructions; not understood, so those keep (d, d + 1) pairs, as
   * aggil_kernel does. */
  constexpr bool SPLIT = SELF && FD;
  static_assert (!SPLIT || NPC == 1, "a pass lane's run is one piece");
  const AggArgs & a = a3.g;
  extern __shared__ uint4 agg_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int glane = lane & (G - 1), grp = lane / G;
  const int wline0 = (blockIdx.x * NW + warp) * LPW;
  if (wline0 >= a.nlines)
    return;                     /* whole warp leaves together */
  /* lines past the end walk along with len 0: they store nothing, and the
   * warp stays full for every shuffle and reduction */
  const int line = wline0 + grp;
  int sx = 0, sy = 0, len = 0;
  if (line < a.nlines)
    line_start (a, line, sx, sy, len);
  const int maxlen = LPW > 1 ? warp_max (len) : len;
  const int Ds = a.Ds;
  const int nv = FINAL ? a3.nvol : 0;
  const int SB = (1 + nv) * Ds; /* ring slot bytes */
  uint8_t *ring = (uint8_t *) agg_smem + ((size_t) warp * LPW + grp) * R * SB;
  uint32_t *skey = (uint32_t *) ((uint8_t *) agg_smem + (size_t) NW * R * SB)
      + (size_t) warp * a.W;
  /* piece i (8 bytes) of a slot is volume i / pieces, bytes (i % pieces)*8
   * of the pixel; slot offset i * 8.  This lane copies i = glane + G m. */
  const int pieces = Ds / 8;
  const int npieces = pieces * (1 + nv);
  int v0 = 0, pc0 = glane;
  while (pc0 >= pieces) {
    pc0 -= pieces;
    v0++;
  }
  const int inc_v = G / pieces, inc_pc = G % pieces;
  const long long pstep = (long long) (a.dx + (long long) a.dy * a.W) * Ds;
  const uint8_t *fsrc = vols + ((size_t) sy * a.W + sx) * Ds;   /* pixel of the next fetch */
  int fslot = 0, fleft = len;

  /* SELF: this lane's pieces inside the pixel's Ds bytes (Ds is a
   * multiple of 8). SELFA: its ring pieces as 32-bit shared addresses
   * (lbeg: slot 0) stepped by SB, so no per-step address arithmetic from
   * the slot index, no generic-to-shared conversion, and no branch on the
   * fetch or the read (both predicated inside their asm; pieces past Ds
   * are neither fetched nor read, and read as 0). H200, 1080p, D = 128,
   * one vertical pass alone: 124 -> 111 M warp instructions, 270 -> 187
   * us. */
  const int nown = min (max ((Ds - glane * K) / GR, 0), NPC);
  const uint32_t lbeg = (uint32_t) __cvta_generic_to_shared (ring) + glane * K;
  const uint32_t lend = lbeg + R * SB;
  uint32_t fa = lbeg, ca = lbeg;
  auto fetch = [&]() {
    if constexpr (SELFA) {
      const bool fv = fleft > 0;
#pragma unroll
      for (int i = 0; i < NPC; i++)
        cp_async_p < GR > (fa + i * GR, fsrc + glane * K + i * GR,
            fv && i < nown);
      if (fleft > 1)
        fsrc += pstep;
      fleft--;
      fa = fa + SB == lend ? lbeg : fa + SB;
    } else if constexpr (SELF) {
      if (fleft > 0) {
#pragma unroll
        for (int i = 0; i < NPC; i++)
          if (i < nown) {
            const int o = glane * K + i * GR;
            cp_async < GR > (ring + fslot * SB + o, fsrc + o);
          }
        fsrc += pstep;
        fleft--;
      }
    } else if (fleft > 0) {
      uint8_t *r = ring + fslot * SB;
      int v = v0, pc = pc0;
      for (int i = glane; i < npieces; i += G) {
        cp_async < 8 > (r + i * 8, fsrc + v * a3.vstride + pc * 8);
        pc += inc_pc;
        v += inc_v;
        if (pc >= pieces) {
          pc -= pieces;
          v++;
        }
      }
      fsrc += pstep;
      fleft--;
    }
    cp_async_commit ();         /* one group per step, empty or not */
    if constexpr (!SELFA)
      fslot = fslot + 1 == R ? 0 : fslot + 1;
  };

  const int d0 = glane * K;
  uint32_t vm[KP];
  bool inmem[KP];
#pragma unroll
  for (int j = 0; j < KP; j++) {
    /* the pair's halves: d and d + 1, or (SPLIT) d and d + KP */
    const int d = d0 + (SPLIT ? j : 2 * j), dh = d + (SPLIT ? KP : 1);
    /* FD: D fills the lanes exactly; vm is then a constant and every mask
     * of a pair folds away */
    vm[j] = FD ? 0xffffffffu :
        (d < a.D ? 0xffffu : 0u) | (dh < a.D ? 0xffff0000u : 0u);
    inmem[j] = FD || d < Ds;
  }
  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  const uint32_t p2x2 = (uint32_t) a.p2 * 0x10001u;
  /* neighbour lanes inside the group */
  const int lane_up = (lane & ~(G - 1)) | ((lane + G - 1) & (G - 1));
  const int lane_dn = (lane & ~(G - 1)) | ((lane + 1) & (G - 1));

  if (FINAL && a3.want_right)
    for (int i = lane; i < a.W; i += 32)
      skey[i] = 0xffffffffu;

  /* WTA of one pixel from its totals T (FINAL only) */
  auto wta = [&](const uint32_t (&T)[KP], int x, size_t pix) {
    unsigned best = 0xffffffffu;
#pragma unroll
    for (int j = 0; j < KP; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int d = d0 + 2 * j + h;
        const unsigned v = h ? T[j] >> 16 : T[j] & 0xffffu;
        const unsigned key = (v << 11) | (unsigned) d;
        if (d < a.D && key < best)
          best = key;
      }
    if (a3.want_right) {
      /* the lanes' xr are distinct within a pixel; pixels are ordered by
       * the __syncwarp of each step */
#pragma unroll
      for (int j = 0; j < KP; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int d = d0 + 2 * j + h;
          const unsigned v = h ? T[j] >> 16 : T[j] & 0xffffu;
          const int xr = x - a.min_disp - d;
          if (d < a.D && xr >= 0 && xr < a.W) {
            const unsigned key = (v << 11) | (unsigned) d;
            if (key < skey[xr])
              skey[xr] = key;
          }
        }
    }
    best = warp_min_u (best);
    const int bd = (int) (best & 2047u);
    const int bc = (int) (best >> 11);
    unsigned second = 0xffffu, nb = 0xffffffffu;
#pragma unroll
    for (int j = 0; j < KP; j++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int d = d0 + 2 * j + h;
        const unsigned v = h ? T[j] >> 16 : T[j] & 0xffffu;
        if (d < a.D) {
          if ((d < bd - 1 || d > bd + 1) && v < second)
            second = v;
          if (d == bd - 1)
            nb &= (v << 16) | 0xffffu;
          if (d == bd + 1)
            nb &= 0xffff0000u | v;
        }
      }
    second = warp_min_u (second);
    nb = warp_and_u (nb);
    if (lane == 0) {
      dint[pix] = (int16_t) bd;
      disp[pix] = (int16_t) wta_out (bd, bc, (int) second, a3.uniqueness,
          a3.subpixel, a.min_disp, a.D,[&](int o) {
            return o < 0 ? nb >> 16 : nb & 0xffffu;
          });
    }
  };

  for (int t = 0; t < R; t++)
    fetch ();

  uint32_t P[KP], Tp[KP];
  uint32_t pmin = 0;
  int cslot = 0;
  size_t pix = (size_t) sy * a.W + sx;
  const long long pixstep = a.dx + (long long) a.dy * a.W;
  uint8_t *gout = out + pix * Ds + d0;  /* SELF: this lane's output */
  for (int t = 0; t < maxlen; t++, pix += pixstep) {
    const bool active = t < len;
    cp_async_wait < R - 1 > ();
    if constexpr (!SELF)
      __syncwarp ();
    const uint8_t *rc = ring + cslot * SB + d0;
    if constexpr (!SELFA)
      cslot = cslot + 1 == R ? 0 : cslot + 1;
    uint32_t C2[KP], O[KP];
    if constexpr (SELF) {
      uint32_t cw[K / 4];
#pragma unroll
      for (int i = 0; i < NPC; i++) {
        if constexpr (SELFA && GR == 8) {
          const uint2 c8 = lds64_p (ca + 8 * i, i < nown);
          cw[2 * i] = c8.x;
          cw[2 * i + 1] = c8.y;
        } else if constexpr (SELFA) {
          cw[i] = lds32_p (ca + 4 * i, i < nown);
        } else {
          const uint2 c8 = i < nown ? *(const uint2 *) (rc + 8 * i)
              : make_uint2 (0u, 0u);
          cw[2 * i] = c8.x;
          cw[2 * i + 1] = c8.y;
        }
      }
      if constexpr (SELFA)
        ca = ca + SB == lend ? lbeg : ca + SB;
      if constexpr (SPLIT) {
        split_costs < KP > (cw, C2);
      } else {
#pragma unroll
        for (int j = 0; j < KP; j++)
          C2[j] = __byte_perm (cw[j >> 1], 0u, (j & 1) ? 0x4342 : 0x4140);
      }
    } else {
#pragma unroll
      for (int j = 0; j < KP; j++)
        C2[j] = inmem[j] ? expand2 (rc + 2 * j) : 0u;
    }
#pragma unroll
    for (int j = 0; j < KP; j++)
      O[j] = 0;
    if (FINAL) {
      /* the other paths' costs: no 16-bit half overflows (<= 7 * 255) */
      for (int v = 1; v <= nv; v++) {
        const uint8_t *rv = rc + v * Ds;
#pragma unroll
        for (int j = 0; j < KP; j++)
          if (inmem[j])
            O[j] += expand2 (rv + 2 * j);
      }
    }
    if (t == 0) {
#pragma unroll
      for (int j = 0; j < KP; j++)
        P[j] = (C2[j] & vm[j]) | (BIG2 & ~vm[j]);
    } else {
      uint32_t up = __shfl_sync (FULL, P[KP - 1], lane_up);
      uint32_t dn = __shfl_sync (FULL, P[0], lane_dn);
      if (glane == 0)
        up = BIG2;
      if (glane == G - 1)
        dn = BIG2;
      if constexpr (SPLIT) {
        uint32_t NP[KP];
        split_run < KP > (P, up, dn, C2, vm, p1x2, neg_pmin2 (pmin), p2x2,
            NP);
#pragma unroll
        for (int j = 0; j < KP; j++)
          P[j] = NP[j];
      } else {
        path_step < KP > (P, up, dn, pmin, p1x2, p2x2, C2, vm);
      }
      /* the previous pixel's WTA here, off the recurrence's chain */
      if (FINAL)
        wta (Tp, x_of (sx, t - 1, a.dx), pix - pixstep);
    }
    pmin = group_min_u < G > (pairs_min (P));

    if constexpr (SELF) {
      uint8_t *g = gout;
      gout += pstep;
      if (active) {
        uint32_t ow[K / 4];
        if constexpr (SPLIT) {
          split_store_words < KP > (P, vm, ow);
        } else {
#pragma unroll
          for (int m = 0; m < K / 4; m++)
            ow[m] = __byte_perm (P[2 * m] & vm[2 * m],
                P[2 * m + 1] & vm[2 * m + 1], 0x6420);
        }
#pragma unroll
        for (int i = 0; i < NPC; i++)
          if (i < nown) {
            if constexpr (GR == 8)
              *(uint2 *) (g + 8 * i) = make_uint2 (ow[2 * i], ow[2 * i + 1]);
            else
              *(uint32_t *) (g + 4 * i) = ow[i];
          }
      }
    } else {
      /* totals (<= 8 * 255 on real disparities, no half overflows) */
#pragma unroll
      for (int j = 0; j < KP; j++)
        Tp[j] = P[j] + O[j];
    }
    if constexpr (!SELF)
      __syncwarp ();            /* the slot is read before it is refilled */
    fetch ();
  }
  cp_async_wait < 0 > ();
  if (FINAL) {
    __syncwarp ();
    wta (Tp, x_of (sx, len - 1, a.dx), pix - pixstep);
    if (a3.want_right) {
      __syncwarp ();
      uint32_t *row = right_key + (size_t) sy * a.W;
      for (int i = lane; i < a.W; i += 32)
        row[i] = skey[i];
    }
  }
}

/* ---- D > 256: interleaved pieces ----
 * agg3_body gives each lane 2 KP contiguous disparities, so on 32 lanes
 * its warp-wide copies and stores run at a stride of 12, 16, 20 ... bytes,
 * and its KP comes in steps of 2 (a multiple of 4 bytes per lane, for the
 * lane's own cp.async). Here the pixel's bytes are NP8 runs of 256 (lane
 * i: the 8 bytes at 8 i of each), then NP4 runs of 128 (4 bytes at 4 i),
 * then NP2 runs of 64 (2 bytes at 2 i), so every warp-wide access covers
 * contiguous bytes and a lane holds as few as 2 (D - 1) / 64 + 1
 * disparities rounded up to a pair: D = 257..320 on 5 pairs instead of 6.
 * A 2-byte piece cannot be fetched by cp.async (4 bytes at least): the
 * lane copies the aligned word holding it into a word of its own after
 * the slot's Ds bytes. Piece m's neighbours across lanes come by one
 * shuffle each way; lane 0 (31) takes them from lane 31 (0) of the piece
 * before (after). H200, 1080p pipeline against agg3's contiguous form:
 * D = 270 5.30-5.32 -> 5.13-5.15 ms (8 passes one after another 3.98 ->
 * 3.79), D = 512 7.81-7.84 -> 7.68-7.70; with the pieces interleaved but
 * no 2-byte piece (D = 270 on 6 pairs) 5.30: coalescing alone gave
 * nothing there, the pair less did. */
template < int NP8, int NP4, int NP2 > struct AggIl
{
  static constexpr int NPC = NP8 + NP4 + NP2;
  static constexpr int KP = 4 * NP8 + 2 * NP4 + NP2;
  /* ring depth as agg3's; 2, 4 or 8 times shallower (more warps per SM)
   * was no faster in the pipeline (H200, 1080p, D = 270 and 512) */
  static constexpr int R = Agg3Cfg < KP, false >::R;
  /* pairs of piece m, its first pair, and the piece of pair j */
  static constexpr int pairs (int m)
  {
    return m < NP8 ? 4 : m < NP8 + NP4 ? 2 : 1;
  }
  static constexpr int first (int m)
  {
    return m <= NP8 ? 4 * m : m <= NP8 + NP4 ? 4 * NP8 + 2 * (m - NP8)
        : 4 * NP8 + 2 * NP4 + (m - NP8 - NP4);
  }
  static constexpr int last (int m)
  {
    return first (m) + pairs (m) - 1;
  }
  static constexpr int piece (int j)
  {
    return j < 4 * NP8 ? j / 4 : j < 4 * NP8 + 2 * NP4 ?
        NP8 + (j - 4 * NP8) / 2 : NP8 + NP4 + (j - 4 * NP8 - 2 * NP4);
  }
  /* byte offset of the lane's piece m in the pixel */
  static __device__ __forceinline__ int off (int m, int lane)
  {
    return m < NP8 ? 256 * m + 8 * lane : m < NP8 + NP4 ?
        256 * NP8 + 128 * (m - NP8) + 4 * lane :
        256 * NP8 + 128 * NP4 + 64 * (m - NP8 - NP4) + 2 * lane;
  }
  /* pair j's mask (its halves d < D), om the lane's offset of its piece;
   * FD: D fills every piece. Only the last piece can hold padding. */
  template < bool FD > static __device__ __forceinline__ uint32_t
  vmask (int j, int om, int D)
  {
    const int m = piece (j), d = om + 2 * (j - first (m));
    return FD || m < NPC - 1 ? 0xffffffffu :
        (d < D ? 0xffffu : 0u) | (d + 1 < D ? 0xffff0000u : 0u);
  }
  /* piece m's raw cost bytes as 16-bit pairs from its first pair on: w0
   * (and w1 for 4 pairs) as loaded; sel1: where a 1-pair piece's two
   * bytes sit in w0 (as __byte_perm's selector) */
  static __device__ __forceinline__ void
  widen (int m, uint32_t w0, uint32_t w1, uint32_t sel1, uint32_t (&Cp)[KP])
  {
    const int j = first (m);
    if (pairs (m) == 4) {
      Cp[j] = __byte_perm (w0, 0u, 0x4140);
      Cp[j + 1] = __byte_perm (w0, 0u, 0x4342);
      Cp[j + 2] = __byte_perm (w1, 0u, 0x4140);
      Cp[j + 3] = __byte_perm (w1, 0u, 0x4342);
    } else if (pairs (m) == 2) {
      Cp[j] = __byte_perm (w0, 0u, 0x4140);
      Cp[j + 1] = __byte_perm (w0, 0u, 0x4342);
    } else {
      Cp[j] = __byte_perm (w0, 0u, sel1);
    }
  }
  /* ring slot bytes: the pixel, and a word per lane for a 2-byte piece */
  static __host__ __device__ int slot (int Ds)
  {
    return Ds + (NP2 ? 128 : 0);
  }
};

/* One path step on AggIl C's pieces: N from state P, costs C2, masks vm
 * and P's minimum pmin ((d, d + 1) pairs; pair j's neighbours d -+ 1 in
 * the next pair or lane, a piece's first (last) pair on lane 0 (31) from
 * lane 31 (0) of the piece before (after): one shuffle each way per
 * piece). !MASK: padding halves as path_pair leaves them (f3_step). */
template < class C, bool MASK = true > __device__ __forceinline__ void
il_step (const uint32_t (&P)[C::KP], const uint32_t (&C2)[C::KP],
    const uint32_t (&vm)[C::KP], uint32_t pmin, int lane, uint32_t p1x2,
    uint32_t p2x2, uint32_t (&N)[C::KP])
{
  constexpr int NPC = C::NPC;
  const int lane_up = (lane + 31) & 31, lane_dn = (lane + 1) & 31;
  uint32_t ur[NPC], dr[NPC], up[NPC], dn[NPC];
#pragma unroll
  for (int m = 0; m < NPC; m++) {
    ur[m] = __shfl_sync (FULL, P[C::last (m)], lane_up);
    dr[m] = __shfl_sync (FULL, P[C::first (m)], lane_dn);
  }
#pragma unroll
  for (int m = 0; m < NPC; m++) {
    up[m] = lane == 0 ? (m == 0 ? BIG2 : ur[m - 1]) : ur[m];
    dn[m] = lane == 31 ? (m == NPC - 1 ? BIG2 : dr[m + 1]) : dr[m];
  }
  const uint32_t npm2 = neg_pmin2 (pmin);
#pragma unroll
  for (int j = 0; j < C::KP; j++) {
    const int m = C::piece (j);
    N[j] = path_pair (__byte_perm (j == C::first (m) ? up[m] : P[j - 1],
            P[j], 0x5432), __byte_perm (P[j], j == C::last (m) ? dn[m] :
            P[j + 1], 0x5432), P[j], C2[j], MASK ? vm[j] : 0xffffffffu, p1x2,
        npm2, p2x2);
  }
}

/* FD: D fills every piece exactly. Only the last piece can hold padding
 * disparities (launch_aggil checks it), so the other pieces' masks are
 * constants and fold away, and with FD the last piece's too. */
template < int NP8, int NP4, int NP2, bool FD >
__global__ void __launch_bounds__ (AGG_WARPS * 32)
aggil_kernel (const uint8_t * __restrict__ cost, uint8_t * __restrict__ out,
    AggArgs a)
{
  using C = AggIl < NP8, NP4, NP2 >;
  static_assert (NP2 <= 1, "one 2-byte piece at most");
  constexpr int NPC = C::NPC, KP = C::KP;
  constexpr int R = C::R;
  extern __shared__ uint4 agg_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int line = blockIdx.x * AGG_WARPS + warp;
  if (line >= a.nlines)
    return;                     /* whole warp leaves together */
  int sx = 0, sy = 0, len = 0;
  line_start (a, line, sx, sy, len);
  const int Ds = a.Ds, SB = C::slot (Ds);
  const uint32_t lbeg = (uint32_t) __cvta_generic_to_shared (agg_smem)
      + (uint32_t) (warp * R * SB);
  const uint32_t lend = lbeg + R * SB;
  /* per piece: offset in the pixel (fetch source, store), in the slot
   * (fetch destination, shared load), and whether this lane has it */
  int off[NPC], src[NPC], dst[NPC];
  bool own[NPC];
#pragma unroll
  for (int m = 0; m < NPC; m++) {
    off[m] = C::off (m, lane);
    own[m] = off[m] < Ds;       /* Ds is a multiple of 8: whole pieces */
    const bool w2 = C::pairs (m) == 1;
    src[m] = w2 ? off[m] & ~3 : off[m];
    dst[m] = w2 ? Ds + 4 * lane : off[m];
  }
  const uint32_t sel2 = (lane & 1) ? 0x4342 : 0x4140;
  uint32_t vm[KP];
#pragma unroll
  for (int j = 0; j < KP; j++)
    vm[j] = C::template vmask < FD > (j, off[C::piece (j)], a.D);
  const long long pstep = (long long) (a.dx + (long long) a.dy * a.W) * Ds;
  const uint8_t *fsrc = cost + ((size_t) sy * a.W + sx) * Ds;
  uint8_t *gout = out + ((size_t) sy * a.W + sx) * Ds;
  int fleft = len;
  uint32_t fa = lbeg, ca = lbeg;
  auto fetch = [&]() {
    const bool fv = fleft > 0;
#pragma unroll
    for (int m = 0; m < NPC; m++) {
      if (C::pairs (m) == 4)
        cp_async_p < 8 > (fa + dst[m], fsrc + src[m], fv && own[m]);
      else
        cp_async_p < 4 > (fa + dst[m], fsrc + src[m], fv && own[m]);
    }
    if (fleft > 1)
      fsrc += pstep;
    fleft--;
    fa = fa + SB == lend ? lbeg : fa + SB;
    cp_async_commit ();         /* one group per step, empty or not */
  };
  for (int t = 0; t < R; t++)
    fetch ();

  const uint32_t p1x2 = (uint32_t) a.p1 * 0x10001u;
  const uint32_t p2x2 = (uint32_t) a.p2 * 0x10001u;
  uint32_t P[KP];
  uint32_t pmin = 0;
  for (int t = 0; t < len; t++) {
    cp_async_wait < R - 1 > ();
    uint32_t C2[KP];
#pragma unroll
    for (int m = 0; m < NPC; m++) {
      if (C::pairs (m) == 4) {
        const uint2 c8 = lds64_p (ca + dst[m], own[m]);
        C::widen (m, c8.x, c8.y, 0u, C2);
      } else {
        C::widen (m, lds32_p (ca + dst[m], own[m]), 0u, sel2, C2);
      }
    }
    ca = ca + SB == lend ? lbeg : ca + SB;
    if (t == 0) {
#pragma unroll
      for (int j = 0; j < KP; j++)
        P[j] = (C2[j] & vm[j]) | (BIG2 & ~vm[j]);
    } else {
      uint32_t NP[KP];
      il_step < C > (P, C2, vm, pmin, lane, p1x2, p2x2, NP);
#pragma unroll
      for (int j = 0; j < KP; j++)
        P[j] = NP[j];
    }
    pmin = warp_min_u (pairs_min (P));

    /* every real L <= cmax + p2 <= 255; padding as 0 */
#pragma unroll
    for (int m = 0; m < NPC; m++) {
      const int j = C::first (m);
      if (C::pairs (m) == 1) {
        if (own[m])
          *(uint16_t *) (gout + off[m]) =
              (uint16_t) __byte_perm (P[j] & vm[j], 0, 0x0020);
        continue;
      }
      const uint32_t w0 = __byte_perm (P[j] & vm[j], P[j + 1] & vm[j + 1],
          0x6420);
      if (C::pairs (m) == 4) {
        const uint32_t w1 = __byte_perm (P[j + 2] & vm[j + 2],
            P[j + 3] & vm[j + 3], 0x6420);
        if (own[m])
          *(uint2 *) (gout + off[m]) = make_uint2 (w0, w1);
      } else if (own[m]) {
        *(uint32_t *) (gout + off[m]) = w0;
      }
    }
    gout += pstep;
    fetch ();
  }
  cp_async_wait < 0 > ();
}

template < int NP8, int NP4, int NP2 > static int
launch_aggil (const uint8_t * cost, uint8_t * out, const AggArgs & a,
    cudaStream_t s)
{
  using C = AggIl < NP8, NP4, NP2 >;
  constexpr int R = C::R;
  /* every piece but the last full, as aggil_kernel assumes */
  constexpr int span = 256 * NP8 + 128 * NP4 + 64 * NP2;
  constexpr int last = NP2 ? 64 : NP4 ? 128 : 256;
  if (a.D <= span - last || a.D > span)
    return (int) cudaErrorInvalidValue;
  const int blocks = (a.nlines + AGG_WARPS - 1) / AGG_WARPS;
  const size_t smem = (size_t) AGG_WARPS * R * C::slot (a.Ds);
  const auto kernel = a.D == span ? aggil_kernel < NP8, NP4, NP2, true > :
      aggil_kernel < NP8, NP4, NP2, false >;
  CHECK ((cudaError_t) ci_cuda_smem_at_least ((const void *) kernel,
          smem));
  kernel <<< blocks, AGG_WARPS * 32, smem, s >>> (cost, out, a);
  CHECK_LAUNCH ();
  return 0;
}

/* D > 256: whole runs of 256, then what is left by 64 */
static int
launch_aggil_d (const uint8_t * cost, uint8_t * out, const AggArgs & a,
    cudaStream_t s)
{
  const int n8 = a.D / 256, t = (a.D % 256 + 63) / 64;
#define IL(A, B, C) launch_aggil < A, B, C > (cost, out, a, s)
  switch (n8 * 8 + t) {
    case 8 + 1: return IL (1, 0, 1);
    case 8 + 2: return IL (1, 1, 0);
    case 8 + 3: return IL (1, 1, 1);
    case 8 + 4: case 16: return IL (2, 0, 0);
    case 16 + 1: return IL (2, 0, 1);
    case 16 + 2: return IL (2, 1, 0);
    case 16 + 3: return IL (2, 1, 1);
    case 16 + 4: case 24: return IL (3, 0, 0);
    case 24 + 1: return IL (3, 0, 1);
    case 24 + 2: return IL (3, 1, 0);
    case 24 + 3: return IL (3, 1, 1);
    case 24 + 4: case 32: return IL (4, 0, 0);
    default: return (int) cudaErrorInvalidValue;
  }
#undef IL
}


/* ---- three directions per sweep (sgm_cuda_aggregate_sweeps) ----
 * The three directions that walk down, (0,+1), (+1,+1) and (-1,+1), in one
 * kernel, and the three that walk up in the same launch (blockIdx.y): each
 * cost is fetched once for three paths and the three go out as one uint16
 * sum, 2 bytes per element instead of 3 written and 3 read back by the WTA
 * (a frame moves 17 bytes per volume element instead of 25: at 4K, D = 256
 * 36 GB instead of 53).
 * A warp owns NC neighbouring columns and walks them row by row, its
 * 3 x NC path states in registers (32 lanes x 8 disparities, D = 256):
 * the pixels of a row are independent, so a row's 3 NC steps fill the
 * pipeline. Only the diagonals cross warps: column x0 takes (+1, dy) from
 * the left warp's last column, column x0 + NC - 1 takes (-1, dy) from
 * the right warp's first column, one row earlier. Those two states depend
 * on the warp's own previous row only, so each row starts by computing and
 * publishing them (a ring of F3_RING rows in global memory, every word
 * tagged with its row in the bits a u8 path value leaves free: bits 8..15
 * of each half, so a reader needs no flag or fence and retries until its
 * 32 lanes see the tag), and takes its neighbours' at the end of the row:
 * they were published a row's work earlier. A warp can then be at most 3
 * rows past the oldest row a neighbour has still to read, so F3_RING = 4
 * slots are never rewritten unread. (8 until 2026-11-30: the ring's lines
 * then took twice the L2 and were written back to memory in between; H200,
 * 1080p, both sweeps at D = 512 2.89-2.91 -> 2.22-2.24 ms, pipeline
 * 6.55-6.78 -> 5.90-6.04; D = 256 and 270 the same.) Every warp waits on its neighbours, so
 * all must be resident: a cooperative launch, which refuses grids that do
 * not fit (the caller then takes another layout). The earlier barrier-per-
 * row form with a warp per column (bench/sgm_fused.cu) kept the warps in
 * step and was 2.1x slower than the three passes at 4K. */
#ifndef F3_WARPS
#define F3_WARPS 8
#endif
#define F3_RING 4

struct F3Args
{
  int W, H, D, Ds, nwx;         /* nwx: warps per sweep */
  uint32_t p1x2, p2x2;
  size_t ostride;               /* elements from sweep 0's sums to sweep 1's */
};

/* row i's tag in bits 8..15 of both halves (1..128, never the 0 of a
 * cleared ring) */
__device__ __forceinline__ uint32_t
f3_tag (int i)
{
  return ((uint32_t) (i & 127) + 1u) * 0x01000100u;
}

__device__ __forceinline__ void
st_relaxed_v4 (uint4 * p, uint4 v)
{
  asm volatile ("st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};"
      ::"l" (p), "r" (v.x), "r" (v.y), "r" (v.z), "r" (v.w):"memory");
}

__device__ __forceinline__ uint4
ld_relaxed_v4 (const uint4 * p)
{
  uint4 v;
  asm volatile ("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
      :"=r" (v.x), "=r" (v.y), "=r" (v.z), "=r" (v.w):"l" (p):"memory");
  return v;
}

/* a neighbour's published state (NW words per lane, read early, perhaps
 * too early: v): until every lane sees tag in all its words, read again;
 * then the padding halves (vm clear) back to BIG2 */
template < int KP > __device__ __forceinline__ void
f3_take (uint4 (&v)[(KP + 3) / 4], const uint4 * p, uint32_t tag,
    const uint32_t (&vm)[KP], uint32_t (&P)[KP])
{
  constexpr int NW = (KP + 3) / 4;
  for (;;) {
    bool ok = true;
#pragma unroll
    for (int j = 0; j < KP; j++) {
      const uint32_t w = (&v[j / 4].x)[j % 4];
      ok = ok && (w & 0xff00ff00u) == tag;
    }
    if (__all_sync (FULL, ok))
      break;
#pragma unroll
    for (int i = 0; i < NW; i++)
      v[i] = ld_relaxed_v4 (p + 32 * i);
  }
#pragma unroll
  for (int j = 0; j < KP; j++)
    P[j] = ((&v[j / 4].x)[j % 4] & 0x00ff00ffu & vm[j]) | (BIG2 & ~vm[j]);
}

template < int KP > __device__ __forceinline__ void
f3_publish (uint4 * p, const uint32_t (&P)[KP], const uint32_t (&vm)[KP],
    uint32_t tag)
{
  constexpr int NW = (KP + 3) / 4;
  uint32_t w[4 * NW];
#pragma unroll
  for (int j = 0; j < 4 * NW; j++)
    w[j] = j < KP ? (P[j] & vm[j]) | tag : tag;
#pragma unroll
  for (int i = 0; i < NW; i++)
    st_relaxed_v4 (p + 32 * i, make_uint4 (w[4 * i], w[4 * i + 1],
            w[4 * i + 2], w[4 * i + 3]));
}

/* One path step from state P with costs Cs on AggIl C's pieces (il_step
 * with P's minimum), padding halves unmasked: their costs and first
 * states are BIG2 and a step adds at most p2 to a cost (min (.., pmin +
 * p2) - pmin), so they stay in BIG2 .. BIG2 + p2: never below a real value,
 * never past 16 bits. Publishing and the sums mask them. */
template < class C > __device__ __forceinline__ void
f3_step (const uint32_t (&P)[C::KP], const uint32_t (&Cs)[C::KP],
    const uint32_t (&vm)[C::KP], uint32_t (&N)[C::KP], int lane,
    uint32_t p1x2, uint32_t p2x2)
{
  il_step < C, false > (P, Cs, vm, warp_min_u (pairs_min (P)), lane, p1x2,
      p2x2, N);
}

/* NC columns per warp; the disparities on AggIl's pieces (NP8, NP4, NP2);
 * FD: D fills them (no padding masks) */
template < int NC, int NP8, int NP4, int NP2, bool FD >
__global__ void __launch_bounds__ (F3_WARPS * 32)
sweep3_kernel (const uint8_t * __restrict__ cost, uint16_t * __restrict__ out,
    uint4 * __restrict__ ring, F3Args a)
{
  using CF = AggIl < NP8, NP4, NP2 >;
  constexpr int KP = CF::KP, NPC = CF::NPC, NW = (KP + 3) / 4;
  constexpr int SLOT = 64 * NW; /* uint4 per ring slot */
  static_assert (NC >= 2, "the published states must not depend on a neighbour");
  const int lane = threadIdx.x & 31;
  const int g = blockIdx.x * F3_WARPS + (threadIdx.x >> 5);
  if (g >= a.nwx)
    return;                     /* whole warp; no block barrier below */
  const int sweep = blockIdx.y; /* 0: dy = +1 (dirs 2, 4, 5); 1: dy = -1 */
  /* with FD, Ds is the pieces' span: constant strides (H200, D = 256:
   * 1080p 3.44 -> 3.3 ms against a.Ds) */
  const int Ds = FD ? 256 * NP8 + 128 * NP4 + 64 * NP2 : a.Ds;
  const int W = a.W, H = a.H, x0 = g * NC;
  const bool hasl = g > 0, hasr = x0 + NC < W;
  int off[NPC];
  bool own[NPC];
#pragma unroll
  for (int m = 0; m < NPC; m++) {
    off[m] = CF::off (m, lane);
    own[m] = FD || off[m] < Ds; /* Ds is a multiple of 8: whole pieces */
  }
  uint32_t vm[KP];
#pragma unroll
  for (int j = 0; j < KP; j++)
    vm[j] = CF::template vmask < FD > (j, off[CF::piece (j)], a.D);
  uint16_t *o = out + sweep * a.ostride + (size_t) x0 * Ds;
  /* ring: [sweep][warp][slot] SLOT uint4: the (+1, dy) state of the last
   * column (NW x 32 lanes), then the (-1, dy) state of the first */
  uint4 *mine = ring + (size_t) (sweep * a.nwx + g) * F3_RING * SLOT + lane;
  /* the left warp's (+1, dy) state and the right warp's (-1, dy) */
  const uint4 *left = mine - F3_RING * SLOT;
  const uint4 *right = mine + F3_RING * SLOT + 32 * NW;
  const uint8_t *cbase = cost + (size_t) x0 * Ds;
  const size_t rowb = (size_t) W * Ds;
  auto row_of = [&](int i) { return sweep ? H - 1 - i : i; };
  /* a column's costs as pairs (0 where the lane has no piece) */
  auto load = [&](int i, uint32_t (&c)[NC][KP]) {
    const uint8_t *q = cbase + (size_t) row_of (i) * rowb;
#pragma unroll
    for (int k = 0; k < NC; k++) {
      const bool col = x0 + k < W;
#pragma unroll
      for (int m = 0; m < NPC; m++) {
        const int j = CF::first (m);
        const uint8_t *s = q + k * Ds + off[m];
        if (CF::pairs (m) == 4) {
          const uint2 v = col && own[m] ? __ldcs ((const uint2 *) s) :
              make_uint2 (0u, 0u);
          c[k][j] = v.x;
          c[k][j + 1] = v.y;
          c[k][j + 2] = c[k][j + 3] = 0u;       /* unused */
        } else if (CF::pairs (m) == 2) {
          c[k][j] = col && own[m] ? __ldcs ((const uint32_t *) s) : 0u;
          c[k][j + 1] = 0u;
        } else {
          c[k][j] = col && own[m] ? __ldcs ((const uint16_t *) s) : 0u;
        }
      }
    }
  };
  /* raw bytes as loaded (a piece's words from its first pair on) ->
   * 16-bit pairs */
  auto unpack = [&](const uint32_t (&c)[KP], uint32_t (&Cp)[KP]) {
#pragma unroll
    for (int m = 0; m < NPC; m++) {
      const int j = CF::first (m);
      CF::widen (m, c[j], CF::pairs (m) == 4 ? c[j + 1] : 0u, 0x4140, Cp);
    }
  };
  using St = uint32_t[NC][KP];
  /* two rows per trip, the arrays' roles swapped, so that no state is
   * copied back (about a tenth of the loop's instructions). H200, 1080p,
   * both sweeps: D = 270 2.10 -> 1.97 ms, D = 300 2.12 -> 2.03. Elsewhere
   * not: D = 384 and 512 the same, 4K D = 256 (8 columns) slower, and with
   * 4 pairs 154 registers instead of 126: one block per SM */
  constexpr bool PP = KP == 5;
  /* Row i: costs from cur (row i's raw bytes; row i + 2's go to nxt, with
   * PP cur itself once read), states A, R, L of row i - 1 -> nA, nR, nL
   * of row i */
  /* a line that starts at this pixel (no neighbour before it): its state
   * is the cost */
  auto start = [](const uint32_t (&c)[KP], uint32_t (&n)[KP]) {
#pragma unroll
    for (int j = 0; j < KP; j++)
      n[j] = c[j];
  };
  auto row = [&](int i, const St & cur, St & nxt, const St & A,
      const St & R, const St & L, St & nA, St & nR, St & nL) {
    if (!PP && i + 2 < H)
      load (i + 2, nxt);
    uint32_t C[NC][KP];
#pragma unroll
    for (int k = 0; k < NC; k++) {
      unpack (cur[k], C[k]);
#pragma unroll
      for (int j = 0; j < KP; j++)
        C[k][j] = (C[k][j] & vm[j]) | (BIG2 & ~vm[j]);
    }
    if (PP && i + 2 < H)
      load (i + 2, nxt);
    const uint32_t tag = f3_tag (i);
    uint4 *slot = mine + (i % F3_RING) * SLOT;
    if (i == 0) {
      /* every line starts on the first row */
#pragma unroll
      for (int k = 0; k < NC; k++)
#pragma unroll
        for (int j = 0; j < KP; j++)
          nA[k][j] = nR[k][j] = nL[k][j] = C[k][j];
      f3_publish < KP > (slot, nR[NC - 1], vm, tag);
      f3_publish < KP > (slot + 32 * NW, nL[0], vm, tag);
    } else {
      const int ps = (i - 1) % F3_RING;
      const uint32_t ptag = f3_tag (i - 1);
      /* the neighbours' states of row i - 1, read now, checked at the end */
      uint4 vl[NW], vr[NW];
#pragma unroll
      for (int w = 0; w < NW; w++) {
        vl[w] = hasl ? ld_relaxed_v4 (left + ps * SLOT + 32 * w) :
            make_uint4 (0, 0, 0, 0);
        vr[w] = hasr ? ld_relaxed_v4 (right + ps * SLOT + 32 * w) :
            make_uint4 (0, 0, 0, 0);
      }
      /* first what the neighbours wait for */
      f3_step < CF > (R[NC - 2], C[NC - 1], vm, nR[NC - 1], lane, a.p1x2,
          a.p2x2);
      if (x0 + 1 < W)
        f3_step < CF > (L[1], C[0], vm, nL[0], lane, a.p1x2, a.p2x2);
      else
        start (C[0], nL[0]);
      f3_publish < KP > (slot, nR[NC - 1], vm, tag);
      f3_publish < KP > (slot + 32 * NW, nL[0], vm, tag);
#pragma unroll
      for (int k = 0; k < NC; k++)
        f3_step < CF > (A[k], C[k], vm, nA[k], lane, a.p1x2, a.p2x2);
#pragma unroll
      for (int k = 1; k < NC - 1; k++) {
        f3_step < CF > (R[k - 1], C[k], vm, nR[k], lane, a.p1x2, a.p2x2);
        if (x0 + k + 1 < W)
          f3_step < CF > (L[k + 1], C[k], vm, nL[k], lane, a.p1x2, a.p2x2);
        else
          start (C[k], nL[k]);
      }
      if (hasl) {
        uint32_t P[KP];
        f3_take < KP > (vl, left + ps * SLOT, ptag, vm, P);
        f3_step < CF > (P, C[0], vm, nR[0], lane, a.p1x2, a.p2x2);
      } else {
        start (C[0], nR[0]);
      }
      if (hasr) {
        uint32_t P[KP];
        f3_take < KP > (vr, right + ps * SLOT, ptag, vm, P);
        f3_step < CF > (P, C[NC - 1], vm, nL[NC - 1], lane, a.p1x2, a.p2x2);
      } else {
        /* x0 + NC - 1 >= W - 1: the line starts here, or the column is
         * past the image */
        start (C[NC - 1], nL[NC - 1]);
      }
    }
    uint16_t *q = o + (size_t) row_of (i) * W * Ds;
#pragma unroll
    for (int k = 0; k < NC; k++) {
      /* halves <= 3 x 255: no carry between them; padding stored as 0 */
      uint32_t S[KP];
#pragma unroll
      for (int j = 0; j < KP; j++)
        S[j] = (nA[k][j] + nR[k][j] + nL[k][j]) & vm[j];
      if (x0 + k >= W)
        continue;
#pragma unroll
      for (int m = 0; m < NPC; m++) {
        const int j = CF::first (m);
        uint16_t *s = q + k * Ds + off[m];
        if (!own[m])
          continue;
        if (CF::pairs (m) == 4)
          *(uint4 *) s = make_uint4 (S[j], S[j + 1], S[j + 2], S[j + 3]);
        else if (CF::pairs (m) == 2)
          *(uint2 *) s = make_uint2 (S[j], S[j + 1]);
        else
          *(uint32_t *) s = S[j];
      }
    }
  };
  St A, R, L, nA, nR, nL, c0, c1, c2;
  load (0, c0);
  if (H > 1)
    load (1, c1);
  if constexpr (PP) {
    for (int i = 0; i < H; i += 2) {
      row (i, c0, c0, A, R, L, nA, nR, nL);
      if (i + 1 < H)
        row (i + 1, c1, c1, nA, nR, nL, A, R, L);
    }
  } else {
    for (int i = 0; i < H; i++) {
      row (i, c0, c2, A, R, L, nA, nR, nL);
#pragma unroll
      for (int k = 0; k < NC; k++)
#pragma unroll
        for (int j = 0; j < KP; j++) {
          A[k][j] = nA[k][j];
          R[k][j] = nR[k][j];
          L[k][j] = nL[k][j];
          c0[k][j] = c1[k][j];
          c1[k][j] = c2[k][j];
        }
    }
  }
}

/* Pairs per lane of the sweeps' pieces (AggIl: runs of 256, then what is
 * left by 64) for D = 129..512, else 0. Three pairs left over take a
 * fourth, padded: one 8-byte piece beat a 4- and a 2-byte piece (H200,
 * pipeline ms: 1080p D = 140 3.37 -> 3.22, 176 3.66 -> 3.45, 400 6.45 ->
 * 5.87-5.96, 448 6.90-6.98 -> 6.59-6.60; 4K D = 192 13.92 -> 13.25) */
static int
sweeps_kp (int D)
{
  if (D < 129 || D > 512)
    return 0;
  const int n8 = D / 256, t = (D % 256 + 63) / 64;
  return n8 * 4 + (t >= 3 ? 4 : t);
}

/* Columns per warp: more make longer rows of independent steps and fewer
 * hand-overs, fewer make more warps and fewer registers. H200, D = 256:
 * 4K 13.5 ms with 4, 12.3 with 8 (227 registers, 7 warps per SM); 1080p
 * 3.35 with 4, 3.68 with 8 (too few warps: 240 per sweep). Above 4 pairs
 * per lane always 4 (8 would not fit the registers; 2 was slower: 1080p
 * D = 270 5.86 against 4.42 ms, D = 512 8.57 against 7.26).
 * CI_SGM_SWEEP_NC = 4 or 8 forces it where it applies, for the tests. */
static int
sweeps_nc (const SgmParams * p)
{
  if (sweeps_kp (p->num_disp) > 4)
    return 4;
  const char *e = getenv ("CI_SGM_SWEEP_NC");
  const int f = e ? atoi (e) : 0;
  return f == 4 || f == 8 ? f : p->width >= 3072 ? 8 : 4;
}

static int
sweeps_nwx (const SgmParams * p)
{
  const int nc = sweeps_nc (p);
  return (p->width + nc - 1) / nc;
}

/* the sweeps' kernel for p's D and columns per warp (NULL: none) */
static const void *
sweeps_kernel (const SgmParams * p)
{
  const int D = p->num_disp, kp = sweeps_kp (D), nc = sweeps_nc (p);
#define SK(A, B, C, N) (D == 256 * A + 128 * B + 64 * C ? \
    (const void *) sweep3_kernel < N, A, B, C, true > : \
    (const void *) sweep3_kernel < N, A, B, C, false >)
  switch (kp) {
    case 4: return nc == 8 ? SK (1, 0, 0, 8) : SK (1, 0, 0, 4);
    case 5: return SK (1, 0, 1, 4);
    case 6: return SK (1, 1, 0, 4);
    case 8: return SK (2, 0, 0, 4);
    default: return NULL;
  }
#undef SK
}

extern "C" size_t
sgm_cuda_sweeps_ring_bytes (const SgmParams * p)
{
  const int nw = (sweeps_kp (p->num_disp) + 3) / 4;
  return (size_t) 2 * sweeps_nwx (p) * F3_RING * 64 * nw * sizeof (uint4);
}

/* sgm_cuda_sweeps_ok, and the device's SM count in *sms */
static int
sweeps_fit (const SgmParams * p, int *sms_out)
{
  const void *k = sweeps_kernel (p);
  *sms_out = 0;
  if (!k || !sgm_cuda_u8_ok (p))
    return 0;
  int dev = 0, sms = 0, coop = 0, nb = 0;
  if (cudaGetDevice (&dev) != cudaSuccess
      || cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev)
      != cudaSuccess || cudaDeviceGetAttribute (&coop,
          cudaDevAttrCooperativeLaunch, dev) != cudaSuccess
      || cudaOccupancyMaxActiveBlocksPerMultiprocessor (&nb, k,
          F3_WARPS * 32, 0) != cudaSuccess) {
    (void) cudaGetLastError ();
    return 0;
  }
  const long blocks = 2L * ((sweeps_nwx (p) + F3_WARPS - 1) / F3_WARPS);
  *sms_out = sms;
  return coop && blocks <= (long) nb * sms;
}

/* D = 129..512, every path value a byte, and a grid that fits the device
 * at once (the cooperative launch's condition) */
extern "C" int
sgm_cuda_sweeps_ok (const SgmParams * p)
{
  int sms;
  return sweeps_fit (p, &sms);
}

/* Each of the sweeps' 2 x nwx warps walks a band of columns down the whole
 * frame: with too few of them per SM the u8 passes win. H200 (132 SMs),
 * W x 1080, pipeline ms, u8 + WTA / sweeps: W = 1280 (4.8 warps per SM):
 * D = 160 2.45 / 2.87, 256 2.54 / 2.66, 400 4.61 / 4.62; 1440 (5.5): 160
 * 2.73 / 3.01, 256 2.82 / 2.81, 400 5.17 / 4.90; 1600 (6.1): 160 3.02 /
 * 3.15, 256 3.13 / 2.98; 1760 (6.7): 160 3.29 / 3.31, 256 3.42 / 3.14.
 * D <= 192 (a lane's fourth pair all padding) needs more warps. */
static int
sweeps_preferred (const SgmParams * p)
{
  int sms;
  const long min4 = p->num_disp <= 192 ? 26 : 21;       /* warps per SM x 4 */
  return sweeps_fit (p, &sms) && 8L * sweeps_nwx (p) >= min4 * sms;
}

/* sgm_cuda_aggregate_sweeps once sgm_cuda_sweeps_ok holds (compute_into's
 * layout choice has asked it, once per parameter set: sw_preferred) */
static int
sweeps_launch (const uint8_t * cost, const SgmParams * p, uint16_t * out,
    size_t ostride, void *ring, ci_stream_t stream)
{
  F3Args a;
  a.W = p->width;
  a.H = p->height;
  a.D = p->num_disp;
  a.Ds = sgm_sum_stride (p->num_disp);
  a.nwx = sweeps_nwx (p);
  a.p1x2 = (uint32_t) p->p1 * 0x10001u;
  a.p2x2 = (uint32_t) p->p2 * 0x10001u;
  a.ostride = ostride;
  CHECK (cudaMemsetAsync (ring, 0, sgm_cuda_sweeps_ring_bytes (p),
          cs (stream)));
  const dim3 grid ((a.nwx + F3_WARPS - 1) / F3_WARPS, 2);
  uint4 *r = (uint4 *) ring;
  void *args[] = { (void *) &cost, (void *) &out, (void *) &r, (void *) &a };
  CHECK (cudaLaunchCooperativeKernel (sweeps_kernel (p), grid,
          F3_WARPS * 32, args, 0, cs (stream)));
  return 0;
}

extern "C" int
sgm_cuda_aggregate_sweeps (const uint8_t * cost, const SgmParams * p,
    uint16_t * out, size_t ostride, void *ring, ci_stream_t stream)
{
  if (sgm_params_valid (p) || !sgm_cuda_sweeps_ok (p) || !cost || !out
      || !ring || ostride < (size_t) p->width * p->height *
      sgm_sum_stride (p->num_disp))
    return (int) cudaErrorInvalidValue;
  return sweeps_launch (cost, p, out, ostride, ring, stream);
}

template < int KP, bool FINAL, int G = 32 > static size_t
agg3_smem (const Agg3Args & a3)
{
  constexpr int R = Agg3Cfg < KP, FINAL, G >::R;
  constexpr int NW = Agg3Cfg < KP, FINAL, G >::WARPS;
  constexpr int LPW = 32 / G;
  const size_t SB = (size_t) (1 + (FINAL ? a3.nvol : 0)) * a3.g.Ds;
  return (size_t) NW * LPW * R * SB + (FINAL && a3.want_right ?
      (size_t) NW * a3.g.W * 4 : 0);
}

/* Blocks per SM promised to the compiler for a pass (__launch_bounds__'
 * second argument; 0: none), as for the WTA (wta8_minb). H200, against
 * none, 8 passes one after another: 4, 6 or 8 took D = 32 1.45 -> 1.37
 * ms (pipeline 1.36 -> 1.34), D = 64 1.62 -> 1.57, D = 270 3.98 -> 3.90,
 * 1080p D = 256 and 4K 1 % less, D = 128 1.97 -> 2.01; but the pipelines
 * (paths at once) only moved at D = 32, so only D <= 32 has one. The
 * macros are for measuring. */
#ifndef SGM_AGG3_MB_D32
#define SGM_AGG3_MB_D32 4
#endif
#ifndef SGM_AGG3_MB
#define SGM_AGG3_MB 0
#endif
template < int KP, bool FINAL, int G > constexpr int
agg3_minb ()
{
  return FINAL ? 0 : G == 8 && KP == 2 ? SGM_AGG3_MB_D32 : SGM_AGG3_MB;
}

template < int KP, bool FINAL, int G, bool FD >
__global__ void __launch_bounds__ (Agg3Cfg < KP, FINAL, G >::WARPS * 32)
agg3_kernel (const uint8_t * __restrict__ vols, uint8_t * __restrict__ out,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key, Agg3Args a3)
{
  agg3_body < KP, FINAL, G, FD > (vols, out, disp, dint, right_key, a3);
}

template < int KP, bool FINAL, int G, bool FD, int MB >
__global__ void __launch_bounds__ (Agg3Cfg < KP, FINAL, G >::WARPS * 32, MB)
agg3_kernel_mb (const uint8_t * __restrict__ vols, uint8_t * __restrict__ out,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key, Agg3Args a3)
{
  agg3_body < KP, FINAL, G, FD > (vols, out, disp, dint, right_key, a3);
}

template < int KP, bool FINAL, int G = 32 > static int
launch_agg3 (const uint8_t * vols, uint8_t * out, int16_t * disp,
    int16_t * dint, uint32_t * right_key, const Agg3Args & a3, cudaStream_t s)
{
  constexpr int NW = Agg3Cfg < KP, FINAL, G >::WARPS;
  constexpr int LPB = NW * (32 / G);    /* lines per block */
  const int blocks = (a3.g.nlines + LPB - 1) / LPB;
  const size_t smem = agg3_smem < KP, FINAL, G > (a3);
  constexpr int MB = agg3_minb < KP, FINAL, G > ();
  /* FD (passes only): D = 2 KP G fills the lanes exactly and takes the
   * form without padding masks (agg3_body): about 2 instructions fewer per
   * pair and step (H200, 8 passes one after another: 1080p D = 256 3.04 ->
   * 2.88 ms, 4K 10.32 -> 9.97; pipeline 720p 1.08 -> 1.04, 1080p D = 128
   * 2.27 -> 2.21, D = 64 1.59 -> 1.54) */
  const auto pick = [](auto fd) {
    if constexpr (MB > 0)
      return agg3_kernel_mb < KP, FINAL, G, decltype (fd)::value, MB >;
    else
      return agg3_kernel < KP, FINAL, G, decltype (fd)::value >;
  };
  const auto kernel = !FINAL && a3.g.D == 2 * KP * G ?
      pick (std::bool_constant < !FINAL > ()) : pick (std::false_type ());
  CHECK ((cudaError_t) ci_cuda_smem_at_least ((const void *) kernel,
          smem));
  kernel <<< blocks, NW * 32, smem, s >>> (vols, out, disp, dint, right_key,
      a3);
  CHECK_LAUNCH ();
  return 0;
}

#define KP_CASES(F, FIN, ...) \
  switch (KP) { \
    case 1: return F<1, FIN> (__VA_ARGS__); case 2: return F<2, FIN> (__VA_ARGS__); \
    case 3: return F<3, FIN> (__VA_ARGS__); case 4: return F<4, FIN> (__VA_ARGS__); \
    case 5: return F<5, FIN> (__VA_ARGS__); case 6: return F<6, FIN> (__VA_ARGS__); \
    case 7: return F<7, FIN> (__VA_ARGS__); case 8: return F<8, FIN> (__VA_ARGS__); \
    case 9: case 10: return F<10, FIN> (__VA_ARGS__); \
    case 11: case 12: return F<12, FIN> (__VA_ARGS__); \
    case 13: case 14: return F<14, FIN> (__VA_ARGS__); \
    case 15: case 16: return F<16, FIN> (__VA_ARGS__); \
    default: return (int) cudaErrorInvalidValue; \
  }

template < bool FINAL > static size_t
agg3_smem_kp (int KP, const Agg3Args & a3)
{
  KP_CASES (agg3_smem, FINAL, a3);
}

extern "C" int
sgm_cuda_u8_ok (const SgmParams * p)
{
  return sgm_census_bits (p->census) + sgm_effective_p2 (p->p1, p->p2) <= 255;
}

extern "C" int
sgm_cuda_aggregate_path_u8 (const uint8_t * cost, const SgmParams * p,
    int dir, uint8_t * out, ci_stream_t stream)
{
  Agg3Args a3;
  int err = agg_args (p, dir, 0, &a3.g);
  if (err)
    return err;
  if (!sgm_cuda_u8_ok (p))
    return (int) cudaErrorInvalidValue;
  a3.nvol = 0;
  a3.vstride = 0;
  a3.uniqueness = p->uniqueness;
  a3.subpixel = p->subpixel;
  a3.want_right = 0;
  /* Fewer lanes per line for small D: a warp walks 2 or 4 lines at
   * once. Each pass is bound by the latency of its steps' dependent
   * chain, so with the paths running together (sgm_cuda_compute) more
   * independent lines per warp pay: H200, 1080p pipeline, D = 64:
   * 32 / 16 / 8 lanes 3.77 / 2.77 / 2.51 ms; D = 128: 3.66 / 3.08 / 3.45;
   * D = 256: no difference. (One pass at a time, they did not.) */
  /* D <= 32: 8 lanes of 4 disparities (4 lines per warp, whole 4-byte
   * pieces) rather than 32 lanes of 2 or 4 */
  if (a3.g.D <= 32)
    return launch_agg3 < 2, false, 8 > (cost, out, NULL, NULL, NULL, a3,
        cs (stream));
  if (a3.g.D <= 64)
    return launch_agg3 < 4, false, 8 > (cost, out, NULL, NULL, NULL, a3,
        cs (stream));
  if (a3.g.D <= 128)
    return launch_agg3 < 4, false, 16 > (cost, out, NULL, NULL, NULL, a3,
        cs (stream));
  /* D = 129..256: 32 lanes of 8 disparities, one 8-byte piece each.
   * (aggil_kernel's 4- and 2-byte pieces, 6 per lane, at D = 129..192:
   * H200, 1080p, D = 192, 8 passes one after another 3.15 -> 2.88 ms,
   * but the pipeline 3.63 -> 3.74; not used.) */
  if (a3.g.D <= 256)
    return launch_agg3 < 4, false > (cost, out, NULL, NULL, NULL, a3,
        cs (stream));
  return launch_aggil_d (cost, out, a3.g, cs (stream));
}

static int
final_args (const SgmParams * p, int nvol, size_t vstride, int want_right,
    Agg3Args * a3, int *KP)
{
  int err = agg_args (p, 0, 0, &a3->g);
  if (err)
    return err;
  if (!sgm_cuda_u8_ok (p) || nvol < 0 || nvol > 7)
    return (int) cudaErrorInvalidValue;
  a3->nvol = nvol;
  a3->vstride = vstride;
  a3->uniqueness = p->uniqueness;
  a3->subpixel = p->subpixel;
  a3->want_right = want_right;
  *KP = ((a3->g.D + 31) / 32 + 1) / 2;
  return 0;
}

extern "C" int
sgm_cuda_final_fits (const SgmParams * p, int nvol)
{
  Agg3Args a3;
  int KP;
  if (final_args (p, nvol, 0, 1, &a3, &KP))
    return 0;
  int dev, lim;
  if (cudaGetDevice (&dev) != cudaSuccess || cudaDeviceGetAttribute (&lim,
          cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
    return 0;
  return agg3_smem_kp < true > (KP, a3) <= (size_t) lim;
}

extern "C" int
sgm_cuda_aggregate_final (const uint8_t * vols, int nvol, size_t vstride,
    const SgmParams * p, int16_t * disp, int16_t * dint,
    uint32_t * right_key, ci_stream_t stream)
{
  Agg3Args a3;
  int KP;
  int err = final_args (p, nvol, vstride, right_key != NULL, &a3, &KP);
  if (err)
    return err;
  KP_CASES (launch_agg3, true, vols, NULL, disp, dint, right_key, a3,
      cs (stream));
}

/* ---------------- winner takes all ---------------- */

struct WtaArgs
{
  int W, H, D, Ds, min_disp, uniqueness, subpixel, want_right;
  int nvol;                     /* uint8 volumes (vols) */
  size_t vstride;
  /* uint16 volumes added to them (the sweeps' sums), v16stride elements
   * apart, element for element (pixel * Ds + d) */
  const uint16_t *v16;
  size_t v16stride;
  int nv16;
};

/* Right-view keys of a WTA block (WTA_TILE pixels of one row from x0):
 * the minima for the xr those pixels can reach collect in shared memory
 * (s[i] is xr = base + i, n of them), then go out with one global
 * atomicMin each. */
struct WtaKeys
{
  uint32_t *s;
  int base, n, W;
  /* entries per block (4 bytes of shared memory each) */
  __host__ __device__ static int count (const WtaArgs & a)
  {
    return WTA_TILE + a.D - 1;
  }
  __device__ WtaKeys (uint32_t * skey, const WtaArgs & a, int x0)
  :s (skey), base (x0 - a.min_disp - (a.D - 1)), n (count (a)), W (a.W)
  {
  }
  __device__ __forceinline__ void init () const
  {
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      s[i] = 0xffffffffu;
    __syncthreads ();
  }
  __device__ __forceinline__ void put (int xr, unsigned key) const
  {
    if (xr >= 0 && xr < W)
      atomicMin (&s[xr - base], key);
  }
  __device__ __forceinline__ void flush (uint32_t * row) const
  {
    __syncthreads ();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const int xr = base + i;
      if (s[i] != 0xffffffffu && xr >= 0 && xr < W)
        atomicMin (row + xr, s[i]);
    }
  }
};

/* grid and shared memory of a WTA launch */
static dim3
wta_grid (const WtaArgs & a)
{
  return dim3 ((a.W + WTA_TILE - 1) / WTA_TILE, a.H);
}

static size_t
wta_smem (const WtaArgs & a)
{
  return a.want_right ? (size_t) WtaKeys::count (a) * 4 : 0;
}

/* Block: one row, WTA_TILE pixels (right-view keys: WtaKeys). */
template < int K >
__global__ void __launch_bounds__ (WTA_WARPS * 32)
wta_kernel (const uint16_t * __restrict__ sum,
    const uint16_t * __restrict__ sum2, WtaArgs a,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key)
{
  extern __shared__ uint32_t skey[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int y = blockIdx.y;
  const int x0 = blockIdx.x * WTA_TILE;
  const WtaKeys keys (skey, a, x0);
  if (a.want_right)
    keys.init ();
  for (int xi = warp; xi < WTA_TILE; xi += WTA_WARPS) {
    const int x = x0 + xi;
    if (x >= a.W)
      break;                    /* warp-uniform */
    const size_t pix = (size_t) y * a.W + x;
    /* S(d): the uint16 sum, plus the second one */
    auto S = [&](int d) -> unsigned {
      return (unsigned) sum[pix * a.Ds + d] + (sum2 ? sum2[pix * a.Ds +
              d] : 0u);
    };
    unsigned v[K];
    unsigned best = 0xffffffffu;
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int d = k * 32 + lane;
      v[k] = d < a.D ? S (d) : 0xffffu;
      unsigned key = (v[k] << 11) | (unsigned) d;
      best = key < best ? key : best;
      if (a.want_right && d < a.D)
        keys.put (x - a.min_disp - d, key);
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
      disp[pix] = (int16_t) wta_out (bd, bc, second, a.uniqueness,
          a.subpixel, a.min_disp, a.D,[&](int o) {
            return S (bd + o);
          });
    }
  }
  if (a.want_right)
    keys.flush (right_key + (size_t) y * a.W);
}

template < int K > static int
launch_wta (const uint16_t * sum, const uint16_t * sum2, const WtaArgs & a,
    int16_t * disp, int16_t * dint, uint32_t * right_key, cudaStream_t s)
{
  const dim3 g = wta_grid (a);
  const size_t smem = wta_smem (a);
  wta_kernel < K > <<< g, WTA_WARPS * 32, smem, s >>> (sum, sum2, a, disp,
      dint, right_key);
  CHECK_LAUNCH ();
  return 0;
}

extern "C" int
sgm_cuda_wta (const uint16_t * sum, const SgmParams * p, int16_t * disp,
    int16_t * dint, uint32_t * right_key, ci_stream_t stream)
{
  return sgm_cuda_wta2 (sum, NULL, p, disp, dint, right_key, stream);
}

/* The WTA on the sum of nvol uint8 path volumes, 4 disparities per lane
 * per 128 (one 32-bit load per volume, byte pairs summed in 16-bit halves:
 * at most 8 x 255); otherwise as wta_kernel. KQ = ceil (D / 128).
 * A warp takes WTA_RUN consecutive pixels. The right-view key of pixel
 * x + k at disparity d = 4 (32 g + lane) + j goes to xr = x + k - min - d,
 * which depends on k - j only: a lane folds its 4 WTA_RUN keys into
 * WTA_RUN + 3 minima per g in registers and sends those to the shared
 * keys (2.9x fewer shared-memory atomics; above SGM_FOLD_MAX, where the
 * minima would need too many registers, every key goes straight out).
 * S(bd - 1) and S(bd + 1) for the subpixel fit come from the lanes that
 * hold them; lane k keeps pixel k's winner, and the uniqueness test and
 * subpixel division run after the loop on 8 lanes at once (before, lane 0
 * ran them once per pixel while the warp waited). NV is
 * the number of volumes. H100, 1080p, D = 128: 1.31 -> 0.94 ms; H200,
 * 1080p pipeline with folding up to KQ = 2 / 4: D = 270 7.40 / 6.65 ms,
 * D = 512 11.15 / 9.69; then with the deferred tail, D = 128 3.08 -> 3.03,
 * D = 256 5.51 -> 4.99, 4K D = 256 21.3 -> 19.1. */
#define WTA_RUN (WTA_TILE / WTA_WARPS)
#ifndef SGM_FOLD_MAX
#define SGM_FOLD_MAX 4
#endif

/* S of the 4 disparities at pv over NV volumes vstride apart, as byte
 * pairs summed in 16-bit halves (at most 8 x 255): lo = (d, d + 2), hi =
 * (d + 1, d + 3); 0 when !on. All loads are in flight before the first
 * add. */
template < int NV, int NV16 > __device__ __forceinline__ void
sum_quad (const uint8_t * vols, const WtaArgs & a, size_t e, bool on,
    uint32_t & lo, uint32_t & hi)
{
  uint32_t w[NV];
  uint2 w16[NV16 ? NV16 : 1];
  const uint8_t *pv = vols + e;
#pragma unroll
  for (int i = 0; i < NV; i++) {
    w[i] = on ? __ldg ((const uint32_t *) pv) : 0u;
    pv += a.vstride;
  }
#pragma unroll
  for (int i = 0; i < NV16; i++)
    w16[i] = on ? __ldg ((const uint2 *) (a.v16 + e + i * a.v16stride)) :
        make_uint2 (0u, 0u);
  lo = hi = 0;
#pragma unroll
  for (int i = 0; i < NV; i++) {
    lo += w[i] & 0x00ff00ffu;
    hi += (w[i] >> 8) & 0x00ff00ffu;
  }
  /* (d, d + 1), (d + 2, d + 3) -> (d, d + 2), (d + 1, d + 3) */
#pragma unroll
  for (int i = 0; i < NV16; i++) {
    lo += __byte_perm (w16[i].x, w16[i].y, 0x5410);
    hi += __byte_perm (w16[i].x, w16[i].y, 0x7632);
  }
}

/* TAIL: D <= 128 KQ + 16; the (at most 4) quads after the KQ groups are
 * read for the warp's 8 pixels at once (lane = 4 x pixel + quad) instead
 * of by a group of 32 lanes per pixel: H200, 1080p, D = 270: WTA 2.01 ->
 * 1.57 ms, pipeline 5.81 -> 5.38.
 * SPLIT: twice the warps (WTA_SPLIT_WARPS), a pair per WTA_RUN pixels:
 * the even warp takes d < 128 KQ, the odd one the next 128 KQ, each with
 * the registers of KQ groups instead of 2 KQ (D = 401..512 as two halves
 * of KQ = 2: 4 blocks' worth of warps per SM instead of 2); the odd warp
 * leaves its summary of each pixel in shared memory for the even one.
 * H200, 1080p, the sweeps' WTA alone: D = 512 2.13 -> 1.83 ms, 448 2.13
 * -> 1.81, 417 2.12 -> 1.80; pipeline D = 512 7.11-7.16 -> 6.58-6.85,
 * 4K D = 512 29.75 -> 28.75-29.0. */
#define WTA_SPLIT_WARPS (2 * WTA_WARPS)
template < int KQ, int NV, bool TAIL, int NV16 = 0, bool SPLIT = false >
__device__ __forceinline__ void
wta8_body (const uint8_t * __restrict__ vols, const WtaArgs & a,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key)
{
  static_assert (!(SPLIT && TAIL), "a split WTA has no tail");
  constexpr bool FOLD = KQ <= SGM_FOLD_MAX;
  /* one group (D <= 128): second best and S(bd -+ 1) on the packed pairs
   * (H200, 1080p, D = 128: 2.35 -> 2.25 ms); with more groups the extra
   * per-lane constants cost more than they save (D = 256 3.94 -> 4.06,
   * D = 512 7.85 -> 9.36: measured, kept to one group) */
  constexpr bool PACK = KQ == 1;
  constexpr int NM = WTA_RUN + 3;
  extern __shared__ uint32_t skey[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int y = blockIdx.y;
  const int x0 = blockIdx.x * WTA_TILE;
  const WtaKeys keys (skey, a, x0);
  const int xw = x0 + (SPLIT ? warp >> 1 : warp) * WTA_RUN;
  /* SPLIT: the half (0 low, 1 high) and its first disparity */
  const int hi = SPLIT ? warp & 1 : 0;
  const int doff = hi * 128 * KQ;
  if (a.want_right)
    keys.init ();
  static_assert (WTA_RUN * 4 == 32, "the tail takes 4 lanes per pixel");
  /* TAIL: what the main loop and the fit need of pixel tk's tail, reduced
   * over its 4 lanes before the loop so that only its best key stays in a
   * register (tkey, on those 4 lanes); the rest waits in shared memory for
   * lane tk after the loop: [0] min T outside tb - 1 .. tb + 1 | min T
   * outside DT0 << 16, [1] T(tb - 1) | T(tb + 1) << 16, [2] T(DT0), where
   * T is the tail's S (0xffff for d >= D) and tb its own winner. Before,
   * the 4 sums stayed live through the loop and were checked per pixel
   * (H200, 1080p, WTA alone: D = 270 1.51-1.53 -> 1.38 ms with 4 blocks
   * per SM, which the old form could not take; D = 140 0.93 -> 0.84,
   * D = 400 2.30 -> 2.17) */
  constexpr int DT0 = 128 * KQ;
  const int tk = lane >> 2;
  unsigned tkey = 0xffffffffu;
  __shared__ uint32_t tsum[TAIL ? WTA_WARPS : 1][TAIL ? WTA_RUN : 1][3];
  if constexpr (TAIL) {
    const int td0 = DT0 + 4 * (lane & 3);
    const int x = xw + tk;
    unsigned tv[4] = { 0xffffu, 0xffffu, 0xffffu, 0xffffu };
    if (x < a.W && td0 < a.Ds) {
      uint32_t lo, hi;
      sum_quad < NV, NV16 > (vols, a, ((size_t) y * a.W + x) * a.Ds + td0,
          true, lo, hi);
      tv[0] = lo & 0xffffu;
      tv[1] = hi & 0xffffu;
      tv[2] = lo >> 16;
      tv[3] = hi >> 16;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const int d = td0 + j;
      if (d >= a.D) {
        tv[j] = 0xffffu;
      } else if (x < a.W) {
        const unsigned key = (tv[j] << 11) | (unsigned) d;
        tkey = key < tkey ? key : tkey;
        if (a.want_right)
          keys.put (x - a.min_disp - d, key);
      }
    }
    tkey = min (tkey, __shfl_xor_sync (FULL, tkey, 1));
    tkey = min (tkey, __shfl_xor_sync (FULL, tkey, 2));
    const int tb = (int) (tkey & 2047u);
    unsigned s_own = 0xffffu, s_n0 = 0xffffu, t_l = 0, t_r = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const int d = td0 + j;
      if ((unsigned) (d - tb + 1) > 2u)
        s_own = min (s_own, tv[j]);
      if (d != DT0)
        s_n0 = min (s_n0, tv[j]);
      t_l = d == tb - 1 ? tv[j] : t_l;
      t_r = d == tb + 1 ? tv[j] : t_r;
    }
    uint32_t sec = s_own | s_n0 << 16, nb = t_l | t_r << 16;
    sec = __vminu2 (sec, __shfl_xor_sync (FULL, sec, 1));
    sec = __vminu2 (sec, __shfl_xor_sync (FULL, sec, 2));
    nb = __vmaxu2 (nb, __shfl_xor_sync (FULL, nb, 1));
    nb = __vmaxu2 (nb, __shfl_xor_sync (FULL, nb, 2));
    if ((lane & 3) == 0) {
      tsum[warp][tk][0] = sec;
      tsum[warp][tk][1] = nb;
      tsum[warp][tk][2] = tv[0];        /* this lane's d0 is DT0 */
    }
  }
  uint32_t rk[FOLD ? KQ : 1][FOLD ? NM : 1];
#pragma unroll
  for (int g = 0; g < (FOLD ? KQ : 1); g++)
#pragma unroll
    for (int m = 0; m < (FOLD ? NM : 1); m++)
      rk[g][m] = 0xffffffffu;
  unsigned o_best = 0;
  int o_second = 0, o_sl = 0, o_sr = 0, o_seam = 0;
  /* this lane's disparities as 16-bit pairs, in the order of the packed
   * sums: LO (d0, d0 + 2), HI (d0 + 1, d0 + 3); and 0xffff in the halves
   * of d >= D (they then never win, nor count as second best) */
  uint32_t dlo[KQ], dhi[KQ], plo[KQ], phi[KQ];
#pragma unroll
  for (int g = 0; g < (PACK ? KQ : 0); g++) {
    const int d0 = 4 * (g * 32 + lane);
    dlo[g] = (uint32_t) d0 | (uint32_t) (d0 + 2) << 16;
    dhi[g] = (uint32_t) (d0 + 1) | (uint32_t) (d0 + 3) << 16;
    plo[g] = (d0 >= a.D ? 0xffffu : 0u) | (d0 + 2 >= a.D ? 0xffff0000u : 0u);
    phi[g] = (d0 + 1 >= a.D ? 0xffffu : 0u) | (d0 + 3 >= a.D ? 0xffff0000u : 0u);
  }
  /* unrolled only where the keys are folded (k must be a constant) */
  constexpr int UNROLL = FOLD ? WTA_RUN : 1;
#pragma unroll (UNROLL)
  for (int k = 0; k < WTA_RUN; k++) {
    const int x = xw + k;
    if (x >= a.W)
      break;                    /* warp-uniform */
    const size_t pix = (size_t) y * a.W + x;
    unsigned v[4 * KQ];
    uint32_t LO[KQ], HI[KQ];    /* S as 16-bit pairs (dlo, dhi order) */
    unsigned best = 0xffffffffu;
#pragma unroll
    for (int g = 0; g < KQ; g++) {
      const int d0 = doff + 4 * (g * 32 + lane);
      uint32_t lo, hi;          /* Ds is a multiple of 8 */
      sum_quad < NV, NV16 > (vols, a, pix * a.Ds + d0, d0 < a.Ds, lo, hi);
      if (PACK) {
        lo |= plo[g];
        hi |= phi[g];
      }
      LO[g] = lo;
      HI[g] = hi;
      v[4 * g] = lo & 0xffffu;
      v[4 * g + 1] = hi & 0xffffu;
      v[4 * g + 2] = lo >> 16;
      v[4 * g + 3] = hi >> 16;
#pragma unroll
      for (int j = 0; j < 4; j++) {
        const int d = d0 + j;
        if (!PACK && d >= a.D)
          v[4 * g + j] = 0xffffu;
        const unsigned key = (v[4 * g + j] << 11) | (unsigned) d;
        best = key < best ? key : best;
        if (FOLD) {
          const unsigned rkey = d < a.D ? key : 0xffffffffu;
          rk[FOLD ? g : 0][FOLD ? k - j + 3 : 0] =
              min (rk[FOLD ? g : 0][FOLD ? k - j + 3 : 0], rkey);
        } else if (a.want_right && d < a.D) {
          keys.put (x - a.min_disp - d, key);
        }
      }
    }
    if (TAIL && tk == k)
      best = tkey < best ? tkey : best;
    best = warp_min_u (best);
    const int bd = (int) (best & 2047u);
    int second = 0xffff, sl = 0, sr = 0;
    if constexpr (PACK) {
      /* second best outside bd - 1 .. bd + 1 on the packed pairs: a half is
       * excluded when (d - (bd - 1)) mod 2^16 <= 2; it is then raised to
       * at least 0xfffd (t = 3 - min (diff, 3) > 0, 0 - t), above any real
       * S (<= 8 * 255) and read as "none" like the pads' 0xffff */
      const uint32_t bm = ((uint32_t) (bd - 1) & 0xffffu) * 0x10001u;
      uint32_t smin = 0xffffffffu;
#pragma unroll
      for (int g = 0; g < KQ; g++) {
        const uint32_t tl = __vminu2 (__vsub2 (dlo[g], bm), 0x00030003u)
            ^ 0x00030003u;
        const uint32_t th = __vminu2 (__vsub2 (dhi[g], bm), 0x00030003u)
            ^ 0x00030003u;
        smin = __vminu2 (smin, __vmaxu2 (LO[g], __vsub2 (0u, tl)));
        smin = __vminu2 (smin, __vmaxu2 (HI[g], __vsub2 (0u, th)));
      }
      second = (int) warp_min_u (min (smin & 0xffffu, smin >> 16));
      second = second >= 0xfffd ? 0xffff : second;
      /* S(bd - 1), S(bd + 1): every lane picks the same pair and half of its
       * own sums, the owner's comes by one shuffle (used only when the fit
       * runs: 0 < bd < D - 1) */
      if (a.subpixel) {
        auto pick = [&](int dt) {
          const int gq = dt >> 7, j = dt & 3;
          if (TAIL && gq >= KQ) /* warp-uniform; the tail's after the loop */
            return 0;
          uint32_t w = 0;
#pragma unroll
          for (int g = 0; g < KQ; g++)
            w = gq == g ? ((j & 1) ? HI[g] : LO[g]) : w;
          const int val = (int) ((j & 2) ? w >> 16 : w & 0xffffu);
          return __shfl_sync (FULL, val, (dt >> 2) & 31);
        };
        sl = pick (bd - 1);
        sr = pick (bd + 1);
      }
    } else {
      /* second best outside bd - 1 .. bd + 1 (d >= D holds 0xffff, never
       * below it), and S(bd - 1), S(bd + 1) from the lanes holding them */
#pragma unroll
      for (int g = 0; g < KQ; g++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
          const int d = doff + 4 * (g * 32 + lane) + j;
          const int vv = (int) v[4 * g + j];
          if ((unsigned) (d - bd + 1) > 2u && vv < second)
            second = vv;
          sl = d == bd - 1 ? vv : sl;
          sr = d == bd + 1 ? vv : sr;
        }
      second = warp_min (second);
      /* a split WTA's second best may need a neighbour's S */
      if (SPLIT || a.subpixel) {
        sl = warp_max (sl);
        sr = warp_max (sr);
      }
    }
    /* SPLIT: S at the seam on this half's side, for the other half's fit
     * (d = 128 KQ on lane 0's first quad, 128 KQ - 1 on lane 31's last) */
    int seam = 0;
    if (SPLIT && a.subpixel)
      seam = (int) __shfl_sync (FULL, hi ? v[0] : v[4 * KQ - 1], hi ? 0 : 31);
    /* lane k keeps pixel k's winner; the divisions of the subpixel fit
     * then run once, on 8 lanes together, after the loop */
    if (lane == k) {
      o_best = best;
      o_second = second;
      o_sl = sl;
      o_sr = sr;
      o_seam = seam;
    }
  }
  if constexpr (SPLIT) {
    /* the odd warp's summaries to the even one: with the halves' winners
     * tb (key kb) the pixel's is the smaller key; the second best outside
     * bd - 1 .. bd + 1 is the winning half's own second and the other
     * half's minimum, less the seam's S when bd is next to the seam: that
     * is the other half's winner unless it is the seam's own disparity,
     * then its second (outside the seam and its neighbour) or that
     * neighbour's S. S(bd -+ 1) across the seam is the other half's seam
     * value. */
    __shared__ int hsum[WTA_WARPS][WTA_RUN][5];
    const int pair = warp >> 1;
    if (hi && lane < WTA_RUN) {
      hsum[pair][lane][0] = (int) o_best;
      hsum[pair][lane][1] = o_second;
      hsum[pair][lane][2] = o_sl;
      hsum[pair][lane][3] = o_sr;
      hsum[pair][lane][4] = o_seam;
    }
    __syncthreads ();
    const int x = xw + lane;
    if (!hi && lane < WTA_RUN && x < a.W) {
      const unsigned kh = (unsigned) hsum[pair][lane][0];
      const int sec_h = hsum[pair][lane][1], sl_h = hsum[pair][lane][2],
          sr_h = hsum[pair][lane][3], seam_h = hsum[pair][lane][4];
      const int dh0 = 128 * KQ;
      const int tl = (int) (o_best & 2047u), vl = (int) (o_best >> 11);
      const int th = (int) (kh & 2047u), vh = (int) (kh >> 11);
      int bd, bc, second, sl, sr;
      if (o_best < kh) {
        bd = tl;
        bc = vl;
        const int other = bd == dh0 - 1 && th == dh0 ? min (sec_h, sr_h) : vh;
        second = min (o_second, other);
        sl = o_sl;
        sr = bd == dh0 - 1 ? seam_h : o_sr;
      } else {
        bd = th;
        bc = vh;
        const int other = bd == dh0 && tl == dh0 - 1 ? min (o_second, o_sl) :
            vl;
        second = min (sec_h, other);
        sl = bd == dh0 ? o_seam : sl_h;
        sr = sr_h;
      }
      const size_t pix = (size_t) y * a.W + x;
      dint[pix] = (int16_t) bd;
      disp[pix] = (int16_t) wta_out (bd, bc, second, a.uniqueness,
          a.subpixel, a.min_disp, a.D,[&](int o) {
            return o < 0 ? sl : sr;
          });
    }
  } else {
    const int x = xw + lane;
    /* pixel lane's minimum tail S (its 4 lanes hold its best key) */
    const unsigned tmin = TAIL ?
        __shfl_sync (FULL, tkey, (4 * lane) & 31) >> 11 : 0u;
    if (TAIL)
      __syncwarp ();            /* tsum's stores before its loads */
    if (lane < WTA_RUN && x < a.W) {
      const size_t pix = (size_t) y * a.W + x;
      const int bd = (int) (o_best & 2047u);
      const int bc = (int) (o_best >> 11);
      if constexpr (TAIL) {
        /* the tail's part of the second best and of S(bd -+ 1) */
        const uint32_t sec = tsum[warp][lane][0], nb = tsum[warp][lane][1];
        const int ts = (int) (bd >= DT0 ? sec & 0xffffu :
            bd == DT0 - 1 ? sec >> 16 : tmin);
        o_second = ts < o_second ? ts : o_second;
        if (bd == DT0 - 1)
          o_sr = (int) tsum[warp][lane][2];
        if (bd >= DT0)
          o_sr = (int) (nb >> 16);
        if (bd > DT0)
          o_sl = (int) (nb & 0xffffu);
      }
      dint[pix] = (int16_t) bd;
      disp[pix] = (int16_t) wta_out (bd, bc, o_second, a.uniqueness,
          a.subpixel, a.min_disp, a.D,[&](int o) {
            return o < 0 ? o_sl : o_sr;
          });
    }
  }
  if (a.want_right) {
    if (FOLD) {
#pragma unroll
      for (int g = 0; g < (FOLD ? KQ : 1); g++)
#pragma unroll
        for (int m = 0; m < (FOLD ? NM : 1); m++)
          if (rk[g][m] != 0xffffffffu)
            keys.put (xw - a.min_disp - doff - 4 * (g * 32 + lane) + m - 3,
                rk[g][m]);
    }
    keys.flush (right_key + (size_t) y * a.W);
  }
}

/* Blocks per SM promised to the compiler (__launch_bounds__' second
 * argument; 0: none) by groups of 128 disparities and tail; it changes
 * the code even where the register count stays the same. H200, WTA alone
 * against none: 1080p D = 256 1.22 -> 1.10 ms (4K 4.84 -> 4.35), D = 270
 * 1.56 -> 1.51, D = 512 2.50 -> 2.49; 5 for one group and 4 for its tail
 * changed nothing, 4 for D <= 128 was slower (0.64 -> 0.69 ms at D = 128:
 * 56 registers instead of 48, one block less per SM), as was 4 for the
 * tail of D = 270 (1.61) until the tail was reduced before the loop
 * (then 3 -> 4: 1.45 -> 1.38 ms). 3 groups took 2 until 3 was measured
 * (sweeps' WTA, 1080p: D = 288 1.74 -> 1.40 ms, D = 384 1.76 -> 1.45;
 * with its tail D = 400 2.05 -> 1.69; 8 u8 volumes, D = 300 1.97 -> 1.81;
 * 4 paths, 1024x440, D = 300 0.36 -> 0.29, D = 400 0.40 -> 0.32);
 * 4 groups keep 2 (D = 512 2.14; 3 2.48, 4 2.64; since 2026-11-30 they
 * run only with CI_SGM_WTA_SPLIT=0, as two halves of 2). Sending each folded
 * key to shared memory once no later pixel reaches it (4 of the 11 live)
 * was slower everywhere (D = 256 0.89 -> 1.08). The macros are for
 * measuring. */
#ifndef SGM_WTA_MB1
#define SGM_WTA_MB1 0
#endif
#ifndef SGM_WTA_MB1T
#define SGM_WTA_MB1T 0
#endif
#ifndef SGM_WTA_MB2
#define SGM_WTA_MB2 4
#endif
#ifndef SGM_WTA_MB2T
#define SGM_WTA_MB2T 4
#endif
#ifndef SGM_WTA_MB3
#define SGM_WTA_MB3 3
#endif
#ifndef SGM_WTA_MB3T
#define SGM_WTA_MB3T 3
#endif
#ifndef SGM_WTA_MB4
#define SGM_WTA_MB4 2
#endif
template < int KQ, bool TAIL > constexpr int
wta8_minb ()
{
  return KQ == 1 ? (TAIL ? SGM_WTA_MB1T : SGM_WTA_MB1) :
      KQ == 2 ? (TAIL ? SGM_WTA_MB2T : SGM_WTA_MB2) :
      KQ == 3 ? (TAIL ? SGM_WTA_MB3T : SGM_WTA_MB3) :
      KQ == 4 ? SGM_WTA_MB4 : 0;
}

template < int KQ, int NV, bool TAIL, int NV16 >
__global__ void __launch_bounds__ (WTA_WARPS * 32)
wta8_kernel (const uint8_t * __restrict__ vols, WtaArgs a,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key)
{
  wta8_body < KQ, NV, TAIL, NV16 > (vols, a, disp, dint, right_key);
}

template < int KQ, int NV, bool TAIL, int NV16, int MB >
__global__ void __launch_bounds__ (WTA_WARPS * 32, MB)
wta8_kernel_mb (const uint8_t * __restrict__ vols, WtaArgs a,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key)
{
  wta8_body < KQ, NV, TAIL, NV16 > (vols, a, disp, dint, right_key);
}

/* Blocks per SM of a split WTA (16 warps each): 64 registers, as the
 * plain KQ = 2 kernel's 4 blocks of 8 warps */
#ifndef SGM_WTA_MBS
#define SGM_WTA_MBS 2
#endif
template < int KQ, int NV, int NV16 >
__global__ void __launch_bounds__ (WTA_SPLIT_WARPS * 32, SGM_WTA_MBS)
wta8_kernel_split (const uint8_t * __restrict__ vols, WtaArgs a,
    int16_t * __restrict__ disp, int16_t * __restrict__ dint,
    uint32_t * __restrict__ right_key)
{
  wta8_body < KQ, NV, false, NV16, true > (vols, a, disp, dint, right_key);
}

template < int KQ, int NV, bool TAIL, int NV16 = 0, bool SPLIT = false >
static void
wta8_go (dim3 g, size_t smem, cudaStream_t s, const uint8_t * vols,
    const WtaArgs & a, int16_t * disp, int16_t * dint, uint32_t * right_key)
{
  if constexpr (SPLIT) {
    wta8_kernel_split < KQ, NV, NV16 > <<< g, WTA_SPLIT_WARPS * 32, smem,
        s >>> (vols, a, disp, dint, right_key);
    return;
  }
  constexpr int MB = wta8_minb < KQ, TAIL > ();
  const auto kernel = [] {
    if constexpr (MB > 0)
      return wta8_kernel_mb < KQ, NV, TAIL, NV16, MB >;
    else
      return wta8_kernel < KQ, NV, TAIL, NV16 >;
  }();
  kernel <<< g, WTA_WARPS * 32, smem, s >>> (vols, a, disp, dint, right_key);
}

template < int KQ, bool TAIL = false, bool SPLIT = false > static int
launch_wta8 (const uint8_t * vols, const WtaArgs & a, int16_t * disp,
    int16_t * dint, uint32_t * right_key, cudaStream_t s)
{
  const dim3 g = wta_grid (a);
  const size_t smem = wta_smem (a);
  if (a.nv16) {
    /* the sweeps' layout (D = 129..512): two horizontal u8 volumes and
     * two sums */
    if constexpr (KQ <= 4) {
      if (a.nvol != 2 || a.nv16 != 2)
        return (int) cudaErrorInvalidValue;
      wta8_go < KQ, 2, TAIL, 2, SPLIT > (g, smem, s, vols, a, disp, dint,
          right_key);
      CHECK_LAUNCH ();
      return 0;
    }
    return (int) cudaErrorInvalidValue;
  }
  if (a.nvol == 4)
    wta8_go < KQ, 4, TAIL, 0, SPLIT > (g, smem, s, vols, a, disp, dint,
        right_key);
  else
    wta8_go < KQ, 8, TAIL, 0, SPLIT > (g, smem, s, vols, a, disp, dint,
        right_key);
  CHECK_LAUNCH ();
  return 0;
}

static int
wta_any (const uint16_t * sum, const uint16_t * sum2, const uint8_t * vols,
    int nvol, size_t vstride, const uint16_t * v16, int nv16,
    size_t v16stride, const SgmParams * p, int16_t * disp,
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
  a.nvol = nvol;
  a.vstride = vstride;
  a.v16 = v16;
  a.nv16 = nv16;
  a.v16stride = v16stride;
  if (vols) {
    const int KQ = (a.D + 127) / 128;
    /* a last group of at most 4 quads as wta8_kernel's TAIL (D = 129..144,
     * 257..272, 385..400) */
    if (KQ >= 2 && KQ <= 4 && a.D <= 128 * (KQ - 1) + 16) {
      switch (KQ - 1) {
        case 1: return launch_wta8 < 1, true > (vols, a, disp, dint, right_key, cs (stream));
        case 2: return launch_wta8 < 2, true > (vols, a, disp, dint, right_key, cs (stream));
        case 3: return launch_wta8 < 3, true > (vols, a, disp, dint, right_key, cs (stream));
        default: break;
      }
    }
    /* D = 401..512 as two halves of 256 (CI_SGM_WTA_SPLIT=0: one warp
     * per pixel run, for measuring) */
    const char *sp = getenv ("CI_SGM_WTA_SPLIT");
    if (KQ == 4 && !(sp && !strcmp (sp, "0")))
      return launch_wta8 < 2, false, true > (vols, a, disp, dint, right_key,
          cs (stream));
    switch (KQ) {
      case 1: return launch_wta8 < 1 > (vols, a, disp, dint, right_key, cs (stream));
      case 2: return launch_wta8 < 2 > (vols, a, disp, dint, right_key, cs (stream));
      case 3: return launch_wta8 < 3 > (vols, a, disp, dint, right_key, cs (stream));
      case 4: return launch_wta8 < 4 > (vols, a, disp, dint, right_key, cs (stream));
      case 5: return launch_wta8 < 5 > (vols, a, disp, dint, right_key, cs (stream));
      case 6: return launch_wta8 < 6 > (vols, a, disp, dint, right_key, cs (stream));
      case 7: return launch_wta8 < 7 > (vols, a, disp, dint, right_key, cs (stream));
      case 8: return launch_wta8 < 8 > (vols, a, disp, dint, right_key, cs (stream));
      default: return (int) cudaErrorInvalidValue;
    }
  }
  const int K = (a.D + 31) / 32;
  K_CASES (launch_wta, sum, sum2, a, disp, dint, right_key, cs (stream));
}

extern "C" int
sgm_cuda_wta2 (const uint16_t * sum, const uint16_t * sum2,
    const SgmParams * p, int16_t * disp, int16_t * dint,
    uint32_t * right_key, ci_stream_t stream)
{
  return wta_any (sum, sum2, NULL, 0, 0, NULL, 0, 0, p, disp, dint,
      right_key, stream);
}

extern "C" int
sgm_cuda_wta_u8 (const uint8_t * vols, int nvol, size_t vstride,
    const SgmParams * p, int16_t * disp, int16_t * dint,
    uint32_t * right_key, ci_stream_t stream)
{
  if (!vols || (nvol != 4 && nvol != 8))  /* the path counts */
    return (int) cudaErrorInvalidValue;
  return wta_any (NULL, NULL, vols, nvol, vstride, NULL, 0, 0, p, disp,
      dint, right_key, stream);
}

extern "C" int
sgm_cuda_wta_sweeps (const uint8_t * vols, size_t vstride,
    const uint16_t * sums, size_t sstride, const SgmParams * p,
    int16_t * disp, int16_t * dint, uint32_t * right_key, ci_stream_t stream)
{
  if (!vols || !sums || !sweeps_kp (p->num_disp))
    return (int) cudaErrorInvalidValue;
  return wta_any (NULL, NULL, vols, 2, vstride, sums, 2, sstride, p, disp,
      dint, right_key, stream);
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

/* Whether pixel (x, y) with integer disparity di fails the check against
 * the right view's winner (keys: the right view's packed minima). */
static __device__ __forceinline__ bool
lr_fails (const uint32_t * __restrict__ key, int x, int y, int di, int W,
    int min_disp, int maxdiff)
{
  int xr = x - min_disp - di;
  int dr = -1;
  if (xr >= 0 && xr < W) {
    uint32_t k = key[(size_t) y * W + xr];
    dr = k == 0xffffffffu ? -1 : (int) (k & 2047u);
  }
  int diff = dr - di;
  return dr < 0 || diff > maxdiff || -diff > maxdiff;
}

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
  if (lr_fails (key, x, y, dint[i], W, min_disp, maxdiff))
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

/* The median of 9 by 19 compare-exchanges (Devillard's opt_med9; the 5th
 * smallest, as sgm_median9's selection; H200, 1080p: 138 -> 19 us). */
static __device__ __forceinline__ int16_t
median9 (int16_t * v)
{
#define CX(a, b) { const int16_t t_ = min (v[a], v[b]); \
      v[b] = max (v[a], v[b]); v[a] = t_; }
  CX (1, 2); CX (4, 5); CX (7, 8); CX (0, 1); CX (3, 4); CX (6, 7);
  CX (1, 2); CX (4, 5); CX (7, 8); CX (0, 3); CX (5, 8); CX (4, 7);
  CX (3, 6); CX (1, 4); CX (2, 5); CX (4, 7); CX (4, 2); CX (6, 4);
  CX (4, 2);
#undef CX
  return v[4];
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
      median9 (v);
}

/* LR check and median in one pass (the pipeline with both on): the block's
 * LR-checked disparities with a one-pixel apron go to shared memory, the
 * median reads them there; no checked copy is written and read back. */
#define LRM_BX 32
#define LRM_BY 8
__global__ void __launch_bounds__ (LRM_BX * LRM_BY)
lr_median_kernel (const int16_t * __restrict__ disp,
    const int16_t * __restrict__ dint, const uint32_t * __restrict__ key,
    int16_t * __restrict__ out, size_t out_pitch, int W, int H, int min_disp,
    int maxdiff)
{
  __shared__ int16_t t[LRM_BY + 2][LRM_BX + 2];
  const int x0 = blockIdx.x * LRM_BX - 1, y0 = blockIdx.y * LRM_BY - 1;
  for (int i = threadIdx.y * LRM_BX + threadIdx.x;
      i < (LRM_BY + 2) * (LRM_BX + 2); i += LRM_BX * LRM_BY) {
    const int r = i / (LRM_BX + 2), c = i % (LRM_BX + 2);
    const int x = sgm_clampi (x0 + c, 0, W - 1);
    const int y = sgm_clampi (y0 + r, 0, H - 1);
    const size_t k = (size_t) y * W + x;
    int16_t d = disp[k];
    if (d != SGM_INVALID && lr_fails (key, x, y, dint[k], W, min_disp,
            maxdiff))
      d = SGM_INVALID;
    t[r][c] = d;
  }
  __syncthreads ();
  const int x = blockIdx.x * LRM_BX + threadIdx.x;
  const int y = blockIdx.y * LRM_BY + threadIdx.y;
  if (x >= W || y >= H)
    return;
  /* the tile holds clamped pixels, so its 3x3 is the clamped window */
  int16_t v[9];
#pragma unroll
  for (int r = 0; r < 3; r++)
#pragma unroll
    for (int c = 0; c < 3; c++)
      v[r * 3 + c] = t[threadIdx.y + r][threadIdx.x + c];
  *(int16_t *) ((uint8_t *) out + (size_t) y * out_pitch + (size_t) x * 2) =
      median9 (v);
}

extern "C" int
sgm_cuda_lr_median (const int16_t * disp, const int16_t * dint,
    const uint32_t * right_key, const SgmParams * p, int16_t * out,
    size_t out_pitch, ci_stream_t stream)
{
  dim3 b (LRM_BX, LRM_BY), g ((p->width + LRM_BX - 1) / LRM_BX,
      (p->height + LRM_BY - 1) / LRM_BY);
  lr_median_kernel <<< g, b, 0, cs (stream) >>> (disp, dint, right_key, out,
      out_pitch, p->width, p->height, p->min_disp, p->lr_max_diff);
  CHECK_LAUNCH ();
  return 0;
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

/* Layouts of the scratch, in order of preference where they apply:
 *  - u8 + WTA (every path cost fits a byte): the cost volume and one uint8
 *    volume per path, (1 + paths) * W * H * Ds bytes (libSGM holds 8 path
 *    volumes too). The paths read only the costs and write only their own
 *    volume, so they run at once on four streams: each is bound by the
 *    latency of its steps, not by memory traffic, and a horizontal path
 *    alone (H lines) cannot fill the GPU. The WTA adds the volumes;
 *  - u8 (as above, D >= SGM_U8_MIN_DISP and the fused last pass fits in
 *    shared memory): the cost volume and paths - 1 uint8 path volumes;
 *    path 0 runs last, fused with the WTA (one volume less);
 *  - split: one uint16 sum volume for the horizontal paths, on a side
 *    stream, one for the others, and the cost volume: 5 * W * H * Ds;
 *  - compact: one uint16 sum volume and the cost volume, 3 * W * H * Ds.
 * When one cannot be allocated the next is used from then on.
 * Then, in all: census words (2 x 8 bytes per pixel), disparity, winner
 * index, right-view keys, the output buffer of compute_output. */
/* CI_SGM_LAYOUT's numbers; the order of preference is pick_layout's */
enum { LAYOUT_U8W, LAYOUT_U8, LAYOUT_SPLIT, LAYOUT_COMPACT, LAYOUT_SW,
  LAYOUT_N };
#define SGM_SIDE 3              /* side streams */

struct SgmCuda
{
  void *mem;                    /* one allocation, carved below */
  size_t bytes;
  int failed[LAYOUT_N];         /* could not be allocated */
  /* read once at creation, for benchmarks and tests: CI_SGM_LAYOUT forces
   * a layout where it applies (-1: none), CI_SGM_MAX_BYTES pretends a
   * device with that much memory (0: none) */
  int force_layout;
  size_t max_bytes;
  int layout;                   /* the last one reserve_mode took, or -1 */
  /* sw_preferred's answer for sw_p */
  int sw_known, sw_pref;
  SgmParams sw_p;
  int have_streams;
  cudaStream_t side[SGM_SIDE];
  cudaEvent_t fork, join[SGM_SIDE];
};

static size_t
align256 (size_t v)
{
  return (v + 255) & ~(size_t) 255;
}

/* Measured on an H200 (docs/sgm.md): the u8 form with its fused last pass
 * is faster than the compact form only for large D (1080p: 0.52x the
 * compact form's speed at D = 128, 1.0x at 270, 1.7x at 512); it is the
 * fallback of u8 + WTA (H100, 1080p, D = 512: 12.5 against 15.6 ms). */
#define SGM_U8_MIN_DISP 385

/* The sweeps against u8 + WTA (H200, 1080p, pipeline ms): D = 200 3.52
 * against 3.91, 230 3.61 / 4.22, 256 3.31 / 3.71, 270 4.40 / 4.90, 300
 * 5.16 / 5.79, 400 6.84 / 6.87, 512 7.16 / 7.48; 4K, D = 256 12.3 / 14.5;
 * since D = 129..192 take 4 pairs per lane also D = 140 3.23 / 3.37, 176
 * 3.45 / 3.66. On narrower frames u8 + WTA can win: sweeps_preferred. */
static int
layout_applies (const SgmParams * p, int layout, int forced, int sw_pref)
{
  switch (layout) {
    case LAYOUT_U8:
      return (forced || p->num_disp >= SGM_U8_MIN_DISP) && sgm_cuda_u8_ok (p)
          && sgm_cuda_final_fits (p, p->paths - 1);
    case LAYOUT_U8W:
      return sgm_cuda_u8_ok (p);
    case LAYOUT_SW:
      return p->paths == 8 && (forced ? sgm_cuda_sweeps_ok (p) : sw_pref);
    default:
      return 1;
  }
}

/* The parameters sweeps_preferred depends on (the kernel and grid: width
 * and D; sgm_cuda_u8_ok: census, p1, p2), so that animating another
 * property (uniqueness, lr-max-diff, ...) does not ask the device again
 * every frame. */
static int
sw_same (const SgmParams * a, const SgmParams * b)
{
  return a->width == b->width && a->num_disp == b->num_disp &&
      a->census == b->census && a->p1 == b->p1 && a->p2 == b->p2;
}

/* sweeps_preferred for 8 paths, asked once per such parameter set (it
 * queries the device) */
static int
sw_preferred (SgmCuda * s, const SgmParams * p)
{
  if (p->paths != 8)
    return 0;
  if (!s)
    return sweeps_preferred (p);
  if (s->sw_known && sw_same (&s->sw_p, p))
    return s->sw_pref;
  s->sw_p = *p;
  s->sw_pref = sweeps_preferred (p);
  s->sw_known = 1;
  return s->sw_pref;
}

/* The preferred layout not marked failed (or s->force_layout where it
 * applies). */
static int
pick_layout (SgmCuda * s, const SgmParams * p)
{
  const int l = s ? s->force_layout : -1;
  if (l >= 0 && l < LAYOUT_N && layout_applies (p, l, 1, 0) && !s->failed[l])
    return l;
  static const int order[] = { LAYOUT_SW, LAYOUT_U8W, LAYOUT_U8,
    LAYOUT_SPLIT
  };
  const int sw = sw_preferred (s, p);
  for (int i = 0; i < (int) (sizeof order / sizeof order[0]); i++)
    if (layout_applies (p, order[i], 0, sw) && !(s && s->failed[order[i]]))
      return order[i];
  return LAYOUT_COMPACT;
}

/* Distance between the uint8 volumes: an odd multiple of 256 bytes, so the
 * same element of every volume (what the WTA reads together) does not sit
 * at the same offset modulo a large power of two. */
static size_t
vol_stride (const SgmParams * p)
{
  size_t v = align256 ((size_t) p->width * p->height *
      sgm_sum_stride (p->num_disp));
  return (v / 256) % 2 ? v : v + 256;
}

static size_t
bytes_for (const SgmParams * p, int layout)
{
  const size_t n = (size_t) p->width * p->height;
  const size_t Ds = sgm_sum_stride (p->num_disp);
  const size_t vol = vol_stride (p);
  size_t vols;
  switch (layout) {
    case LAYOUT_U8:
      vols = (size_t) p->paths * vol;
      break;
    case LAYOUT_U8W:
      vols = (size_t) (1 + p->paths) * vol;
      break;
    case LAYOUT_SW:
      vols = 3 * vol + 2 * align256 (n * Ds * 2) +
          align256 (sgm_cuda_sweeps_ring_bytes (p));
      break;
    case LAYOUT_SPLIT:
      vols = 2 * align256 (n * Ds * 2) + vol;
      break;
    default:
      vols = align256 (n * Ds * 2) + vol;
  }
  return 2 * align256 (n * 8) + vols + 3 * align256 (n * 2) +
      align256 (n * 4);
}

extern "C" size_t
sgm_cuda_bytes_needed (const SgmParams * p)
{
  return bytes_for (p, pick_layout (NULL, p));
}

struct Carve
{
  uint64_t *cl, *cr;
  uint8_t *vols;                /* u8 layouts: volume i at vols + i * vstride */
  size_t vstride;
  uint16_t *sum;                /* compact, split */
  uint16_t *sum2;               /* split: the horizontal paths */
  uint8_t *cost;                /* compact, split */
  size_t sstride;               /* sweeps: elements from sum to the second */
  void *ring;                   /* sweeps */
  int16_t *tmp, *dint, *fin;
  uint32_t *key;
};

static void
carve (void *mem, const SgmParams * p, int layout, Carve * c)
{
  const size_t n = (size_t) p->width * p->height;
  const size_t Ds = sgm_sum_stride (p->num_disp);
  uint8_t *m = (uint8_t *) mem;
  c->cl = (uint64_t *) m;
  m += align256 (n * 8);
  c->cr = (uint64_t *) m;
  m += align256 (n * 8);
  c->vols = NULL;
  c->vstride = vol_stride (p);
  c->sum = c->sum2 = NULL;
  c->cost = NULL;
  c->ring = NULL;
  c->sstride = 0;
  if (layout == LAYOUT_SW) {
    /* costs, then paths 0 and 1 (uint8); the two sums; the ring */
    c->vols = m;
    m += 3 * c->vstride;
    c->sum = (uint16_t *) m;
    c->sstride = align256 (n * Ds * 2) / 2;
    m += 2 * align256 (n * Ds * 2);
    c->ring = m;
    m += align256 (sgm_cuda_sweeps_ring_bytes (p));
  } else if (layout == LAYOUT_U8 || layout == LAYOUT_U8W) {
    c->vols = m;
    m += (size_t) (p->paths + (layout == LAYOUT_U8W)) * c->vstride;
  } else {
    c->sum = (uint16_t *) m;
    m += align256 (n * Ds * 2);
    if (layout == LAYOUT_SPLIT) {
      c->sum2 = (uint16_t *) m;
      m += align256 (n * Ds * 2);
    }
    c->cost = m;
    m += align256 (n * Ds);
  }
  c->tmp = (int16_t *) m;
  m += align256 (n * 2);
  c->dint = (int16_t *) m;
  m += align256 (n * 2);
  c->key = (uint32_t *) m;
  m += align256 (n * 4);
  c->fin = (int16_t *) m;
}

extern "C" int
sgm_cuda_create (SgmCuda ** out)
{
  SgmCuda *s = (SgmCuda *) calloc (1, sizeof *s);
  if (!s)
    return (int) cudaErrorMemoryAllocation;
  const char *e = getenv ("CI_SGM_LAYOUT");
  s->force_layout = e && *e ? atoi (e) : -1;
  s->layout = -1;
  e = getenv ("CI_SGM_MAX_BYTES");
  s->max_bytes = e && *e ? (size_t) strtoull (e, NULL, 10) : 0;
  *out = s;
  return 0;
}

static void
destroy_streams (SgmCuda * s)
{
  for (int i = 0; i < SGM_SIDE; i++) {
    if (s->side[i])
      cudaStreamDestroy (s->side[i]);
    if (s->join[i])
      cudaEventDestroy (s->join[i]);
    s->side[i] = NULL;
    s->join[i] = NULL;
  }
  if (s->fork)
    cudaEventDestroy (s->fork);
  s->fork = NULL;
  s->have_streams = 0;
}

static int
create_streams (SgmCuda * s)
{
  int ok = cudaEventCreateWithFlags (&s->fork, cudaEventDisableTiming)
      == cudaSuccess;
  for (int i = 0; i < SGM_SIDE && ok; i++)
    ok = cudaStreamCreateWithFlags (&s->side[i], cudaStreamNonBlocking)
        == cudaSuccess && cudaEventCreateWithFlags (&s->join[i],
        cudaEventDisableTiming) == cudaSuccess;
  if (!ok) {
    int e = (int) cudaGetLastError ();
    destroy_streams (s);
    return e ? e : (int) cudaErrorUnknown;
  }
  s->have_streams = 1;
  return 0;
}

extern "C" void
sgm_cuda_destroy (SgmCuda * s)
{
  if (!s)
    return;
  if (s->mem)
    cudaFree (s->mem);
  destroy_streams (s);
  free (s);
}

extern "C" size_t
sgm_cuda_bytes (const SgmCuda * s)
{
  return s ? s->bytes : 0;
}

extern "C" int
sgm_cuda_layout (const SgmCuda * s)
{
  return s ? s->layout : -1;
}

/* Grows the scratch for the preferred layout (*layout), falling back to
 * the next one on an allocation failure. */
static int
reserve_mode (SgmCuda * s, const SgmParams * p, int *layout)
{
  if (!s->have_streams) {
    int e = create_streams (s);
    if (e)
      return e;
  }
  for (;;) {
    *layout = pick_layout (s, p);
    size_t need = bytes_for (p, *layout);
    if (need <= s->bytes) {
      s->layout = *layout;
      return 0;
    }
    if (s->mem) {
      CHECK (cudaFree (s->mem));
      s->mem = NULL;
      s->bytes = 0;
    }
    cudaError_t e = s->max_bytes && need > s->max_bytes ?
        cudaErrorMemoryAllocation : cudaMalloc (&s->mem, need);
    if (e == cudaSuccess) {
      s->bytes = need;
      s->layout = *layout;
      return 0;
    }
    s->mem = NULL;
    if (*layout == LAYOUT_COMPACT || e != cudaErrorMemoryAllocation)
      return (int) e;
    (void) cudaGetLastError ();   /* clear it, try the next layout */
    s->failed[*layout] = 1;
  }
}

extern "C" int
sgm_cuda_reserve (SgmCuda * s, const SgmParams * p)
{
  int layout;
  return reserve_mode (s, p, &layout);
}

/* n launches on the main stream and the side streams (fork / join with
 * events). as[i] is launch i's stream (0 = main, k = side[k - 1]); run
 * (i, stream) makes launch i (a path, or the sweeps). The join happens
 * even after an error, so no work is left running on a side stream when
 * the caller gives up. */
template < typename F > static int
run_paths (SgmCuda * s, int n, const int *as, ci_stream_t stream, F run)
{
  CHECK (cudaEventRecord (s->fork, cs (stream)));
  for (int i = 0; i < SGM_SIDE; i++)
    CHECK (cudaStreamWaitEvent (s->side[i], s->fork, 0));
  int err = 0;
  for (int i = 0; i < n && !err; i++)
    err = run (i, as[i] ? (ci_stream_t) s->side[as[i] - 1] : stream);
  for (int i = 0; i < SGM_SIDE; i++) {
    int e = (int) cudaEventRecord (s->join[i], s->side[i]);
    if (!e)
      e = (int) cudaStreamWaitEvent (cs (stream), s->join[i], 0);
    err = err ? err : e;
  }
  return err;
}

static int
compute_into (SgmCuda * s, const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma,
    int16_t ** dispp, size_t disp_pitch, int to_fin, ci_stream_t stream)
{
  int16_t *disp = *dispp;
  if (sgm_params_valid (p))
    return (int) cudaErrorInvalidValue;
  const size_t luma_row = (size_t) p->width * (luma.kind == SGM_LUMA_GRAY8 ?
      1 : luma.kind == SGM_LUMA_GRAY16 ? 2 : luma.pixel_stride);
  if (left_stride < luma_row || right_stride < luma_row
      || (!to_fin && disp_pitch < (size_t) p->width * 2))
    return (int) cudaErrorInvalidValue;
  int layout;
  int err = reserve_mode (s, p, &layout);
  if (err)
    return err;
  const size_t n = (size_t) p->width * p->height;
  Carve c;
  carve (s->mem, p, layout, &c);
  if (to_fin) {
    disp = *dispp = c.fin;
    disp_pitch = (size_t) p->width * 2;
  }
  const int lr = p->lr_max_diff >= 0;

  if ((err = sgm_cuda_census (left, left_stride, right, right_stride, luma,
              p->width, p->height, p->census, c.cl, c.cr, stream)))
    return err;
  if (layout == LAYOUT_U8) {
    /* volume 0 = costs, volume d = path d (d >= 1); path 0 last, fused
     * with the WTA (right keys: every row written, no memset) */
    if ((err = sgm_cuda_cost_volume (c.cl, c.cr, p, c.vols, stream)))
      return err;
    for (int dir = 1; dir < p->paths; dir++)
      if ((err = sgm_cuda_aggregate_path_u8 (c.vols, p, dir,
                  c.vols + dir * c.vstride, stream)))
        return err;
    if ((err = sgm_cuda_aggregate_final (c.vols, p->paths - 1, c.vstride, p,
                c.tmp, c.dint, lr ? c.key : NULL, stream)))
      return err;
  } else if (layout == LAYOUT_SW) {
    /* the sweeps here, the horizontal paths (volumes 1 and 2) on two side
     * streams; the sweeps first: their cooperative launch needs room for
     * every block at once */
    /* (the horizontal passes first measured the same: 4K 13.57 against
     * 13.59 ms) */
    static const int as[3] = { 0, 1, 2 };
    if ((err = sgm_cuda_cost_volume (c.cl, c.cr, p, c.vols, stream)))
      return err;
    err = run_paths (s, 3, as, stream,[&](int i, ci_stream_t st) {
          return i == 0 ?
              sweeps_launch (c.vols, p, c.sum, c.sstride, c.ring,
              st) : sgm_cuda_aggregate_path_u8 (c.vols, p, i - 1,
              c.vols + i * c.vstride, st);
        });
    if (err == (int) cudaErrorCooperativeLaunchTooLarge) {
      /* fewer SMs than the device reports (e.g. an MPS share): the next
       * layout from now on, this frame again */
      (void) cudaGetLastError ();
      s->failed[LAYOUT_SW] = 1;
      return compute_into (s, p, left, left_stride, right, right_stride,
          luma, dispp, disp_pitch, to_fin, stream);
    }
    if (err)
      return err;
    if (lr)
      CHECK (cudaMemsetAsync (c.key, 0xff, n * 4, cs (stream)));
    if ((err = sgm_cuda_wta_sweeps (c.vols + c.vstride, c.vstride, c.sum,
                c.sstride, p, c.tmp, c.dint, lr ? c.key : NULL, stream)))
      return err;
  } else if (layout == LAYOUT_U8W) {
    /* volume 0 = costs, volume 1 + d = path d; the horizontal paths
     * (slowest) first, each stream about the same work */
    /* (one stream per path measured the same at D = 128) */
    static const int as[8] = { 1, 2, 0, 3, 1, 2, 0, 3 };
    if ((err = sgm_cuda_cost_volume (c.cl, c.cr, p, c.vols, stream)))
      return err;
    err = run_paths (s, p->paths, as, stream,[&](int dir, ci_stream_t st) {
          return sgm_cuda_aggregate_path_u8 (c.vols, p, dir,
              c.vols + (1 + dir) * c.vstride, st);
        });
    if (err)
      return err;
    /* (on the first path's side stream instead: no gain at 720p and 1080p,
     * 1024x440 4 paths 0.56 -> 0.595 ms) */
    if (lr)
      CHECK (cudaMemsetAsync (c.key, 0xff, n * 4, cs (stream)));
    if ((err = sgm_cuda_wta_u8 (c.vols + c.vstride, p->paths, c.vstride, p,
                c.tmp, c.dint, lr ? c.key : NULL, stream)))
      return err;
  } else {
    if ((err = sgm_cuda_cost_volume (c.cl, c.cr, p, c.cost, stream)))
      return err;
    if (c.sum2) {
      /* paths 0 and 1 (horizontal) into sum2 on a side stream, the others
       * into sum here; the WTA adds the two (1080p, D = 128, H100:
       * pipeline 5.75 -> 5.27 ms, 720p 3.07 -> 2.47) */
      static const int as[8] = { 1, 1, 0, 0, 0, 0, 0, 0 };
      err = run_paths (s, p->paths, as, stream,[&](int dir, ci_stream_t st) {
            return dir < 2 ?
                sgm_cuda_aggregate_path (c.cost, p, dir, c.sum2, dir > 0, st)
                : sgm_cuda_aggregate_path (c.cost, p, dir, c.sum, dir > 2,
                st);
          });
      if (err)
        return err;
    } else {
      for (int dir = 0; dir < p->paths; dir++)
        if ((err = sgm_cuda_aggregate_path (c.cost, p, dir, c.sum, dir > 0,
                    stream)))
          return err;
    }
    if (lr)
      CHECK (cudaMemsetAsync (c.key, 0xff, n * 4, cs (stream)));
    if ((err = sgm_cuda_wta2 (c.sum, c.sum2, p, c.tmp, c.dint,
                lr ? c.key : NULL, stream)))
      return err;
  }
  if (lr && p->median)
    return sgm_cuda_lr_median (c.tmp, c.dint, c.key, p, disp, disp_pitch,
        stream);
  if (lr && (err = sgm_cuda_lr_check (c.tmp, c.dint, c.key, p, stream)))
    return err;
  if (p->median)
    err = sgm_cuda_median (c.tmp, disp, disp_pitch, p->width, p->height,
        stream);
  else
    CHECK (cudaMemcpy2DAsync (disp, disp_pitch, c.tmp, (size_t) p->width * 2,
            (size_t) p->width * 2, p->height, cudaMemcpyDeviceToDevice,
            cs (stream)));
  return err;
}

extern "C" int
sgm_cuda_compute (SgmCuda * s, const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma,
    int16_t * disp, size_t disp_pitch, ci_stream_t stream)
{
  return compute_into (s, p, left, left_stride, right, right_stride, luma,
      &disp, disp_pitch, 0, stream);
}

extern "C" int
sgm_cuda_compute_output (SgmCuda * s, const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma,
    uint8_t * out, size_t out_pitch, SgmOutFormat fmt, ci_stream_t stream)
{
  /* into the context's own buffer (the last region of the scratch) */
  int16_t *fin = NULL;
  int err = compute_into (s, p, left, left_stride, right, right_stride, luma,
      &fin, (size_t) p->width * 2, 1, stream);
  if (err)
    return err;
  return sgm_cuda_convert (fin, (size_t) p->width * 2, out, out_pitch, fmt, p,
      stream);
}
