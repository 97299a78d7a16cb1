/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_runtime.h>
#include <stdint.h>
#include "supersample_cuda.h"
#include "supersample_math.h"

namespace {

template <typename T, int C> struct Vec;
template <> struct Vec<uint8_t, 4> { typedef uchar4 type; };
template <> struct Vec<uint16_t, 4> { typedef ushort4 type; };
template <> struct Vec<uint8_t, 2> { typedef uchar2 type; };
template <> struct Vec<uint16_t, 2> { typedef ushort2 type; };

/* Exact float of a sample (< 2^23) on the full-rate FP32 pipe instead of
 * the quarter-rate I2F conversion. */
__device__ __forceinline__ float
u2f (unsigned int v)
{
  return __fsub_rn (__int_as_float (0x4B000000 | v), 8388608.0f);
}

/* Byte c of q as an exact float: one byte permute builds 0x4B0000qq
 * (2^23 + q), one subtraction removes 2^23. */
__device__ __forceinline__ float
byte2f (uint32_t q, int c)
{
  return __fsub_rn (__int_as_float (__byte_perm (q, 0x4B000000u, 0x7540 | c)), 8388608.0f);
}

/* Loads the C samples of one pixel; 2- and 4-channel pixels in one access when aligned. */
template <typename T, int C, bool VEC>
__device__ __forceinline__ void
load_px (const T * __restrict__ row, int x, float (&v)[C], int shift)
{
  if constexpr (VEC && (C == 2 || C == 4)) {
    typedef typename Vec<T, C>::type V;
    V p = __ldg (reinterpret_cast<const V *> (row) + x);
    v[0] = u2f (p.x >> shift);
    v[1] = u2f (p.y >> shift);
    if constexpr (C == 4) {
      v[2] = u2f (p.z >> shift);
      v[3] = u2f (p.w >> shift);
    }
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = u2f (__ldg (row + x * C + c) >> shift);
  }
}

struct Geo
{
  const uint8_t *src;
  size_t sstride;
  int sw, sh;
  uint8_t *dst;
  size_t dstride;
  int dw, dh;
  float sx, sy, inv;
  int shift;
  unsigned int maxval;
  unsigned int yb;              /* block rows above this launch's band */
};

template <typename T, int C, bool VEC>
__device__ __forceinline__ void
store_px (const Geo & g, int dx, int dy, const float (&acc)[C])
{
  T *out = (T *) (g.dst + (size_t) dy * g.dstride) + dx * C;
  T r[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    r[c] = (T) (ci_ss_round (acc[c], g.inv, g.maxval) << (sizeof (T) == 1 ? 0 : g.shift));
  if constexpr (VEC && (C == 2 || C == 4)) {
    typedef typename Vec<T, C>::type V;
    V p;
    p.x = r[0];
    p.y = r[1];
    if constexpr (C == 4) {
      p.z = r[2];
      p.w = r[3];
    }
    *reinterpret_cast<V *> (out) = p;
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      out[c] = r[c];
  }
}

/* Slot j of an axis: position start + j, weight w_first / 1 / w_last / 0.
 * A zero weight is an exact no-op in the chain (fma (v, 0, acc) == acc for
 * finite v >= 0), so a fixed, fully unrolled slot count keeps NPP's order
 * while every load is issued before the first multiply-add. */
struct Axis
{
  int start, first, last;
  float w_first, w_last;
};

__device__ __forceinline__ Axis
make_axis (const CiSsSpan & sp)
{
  Axis a;
  a.first = sp.first;
  a.last = sp.last;
  a.w_first = sp.w_first;
  a.w_last = sp.w_last;
  a.start = sp.w_first > 0.0f ? sp.first - 1 : sp.first;
  return a;
}

__device__ __forceinline__ float
axis_weight (const Axis & a, int pos)
{
  if (pos == a.first - 1)
    return a.w_first;
  if (pos < a.last)
    return 1.0f;
  return pos == a.last ? a.w_last : 0.0f;
}

/* The fixed-slot chain for one output; fetch (y, x, v) yields pixel (x, y). */
template <int C, int N, typename Fetch>
__device__ __forceinline__ void
accumulate_fixed (const Geo & g, const Axis & ax, const Axis & ay, Fetch fetch,
    float (&acc)[C])
{
  float wx[N], wy[N];
  int px[N], py[N];
#pragma unroll
  for (int j = 0; j < N; j++) {
    const int p = ax.start + j, q = ay.start + j;
    wx[j] = p < g.sw ? axis_weight (ax, p) : 0.0f;
    px[j] = wx[j] != 0.0f ? p : ax.start;
    wy[j] = q < g.sh ? axis_weight (ay, q) : 0.0f;
    py[j] = wy[j] != 0.0f ? q : ay.start;
  }
  float v[N][N][C];
#pragma unroll
  for (int i = 0; i < N; i++)
#pragma unroll
    for (int j = 0; j < N; j++) {
      if (wy[i] != 0.0f && wx[j] != 0.0f) {
        fetch (py[i], px[j], v[i][j]);
      } else {
#pragma unroll
        for (int c = 0; c < C; c++)
          v[i][j][c] = 0.0f;
      }
    }
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = 0.0f;
#pragma unroll
  for (int i = 0; i < N; i++)
#pragma unroll
    for (int j = 0; j < N; j++) {
      const float w = __fmul_rn (wx[j], wy[i]);
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[c] = __fmaf_rn (v[i][j][c], w, acc[c]);
    }
}

template <typename T, int C, bool VEC, int N>
__global__ void __launch_bounds__ (256)
supersample_fixed_kernel (Geo g)
{
  const int dx = blockIdx.x * blockDim.x + threadIdx.x;
  const int dy = (blockIdx.y + g.yb) * blockDim.y + threadIdx.y;
  if (dx >= g.dw || dy >= g.dh)
    return;
  const Axis ax = make_axis (ci_ss_span (dx, g.sx, g.sw));
  const Axis ay = make_axis (ci_ss_span (dy, g.sy, g.sh));
  float acc[C];
  accumulate_fixed<C, N> (g, ax, ay, [&](int y, int x, float (&v)[C]) {
        load_px<T, C, VEC> ((const T *) (g.src + (size_t) y * g.sstride), x, v,
            g.shift);
      }, acc);
  store_px<T, C, VEC> (g, dx, dy, acc);
}

/* Dyadic scale factors (s * 2^K an integer: 2, 1.5, 2.5, 3, ...): every
 * weight, product and partial sum of NPP's float chain is then an exact
 * multiple of 2^-(Kx+Ky) below 2^23 (the host checks the bound), so the chain
 * equals an integer sum in any order. Integers skip the per-sample conversions
 * and the sequential dependency; the final float steps are NPP's. */
/* Slot j of an axis covers pixel start + j; its weight is the pixel's overlap
 * with [lo, hi) in units of 2^-K, which is exactly NPP's partial/full weight
 * (and 0 past the footprint or the image). Branch-free. */
template <int N>
__device__ __forceinline__ int
int_slots (int d, int S, int K, int src, int (&w)[N])
{
  const int lo = d * S, hi = lo + S, start = lo >> K;
#pragma unroll
  for (int j = 0; j < N; j++) {
    const int p = start + j;
    const int o = min (hi, (p + 1) << K) - max (lo, p << K);
    w[j] = (p < src && o > 0) ? o : 0;
  }
  return start;
}

template <typename T, int C, int N>
__device__ __forceinline__ void
dyadic_px (const Geo & g, int dx, int dy, int Sx, int Kx, int Sy, int Ky, float unit)
{
  /* 8-bit samples are never shifted; only P010 (16-bit) is */
  const int sh = sizeof (T) == 1 ? 0 : g.shift;
  int wx[N], wy[N];
  const int x0 = int_slots<N> (dx, Sx, Kx, g.sw, wx);
  const int y0 = int_slots<N> (dy, Sy, Ky, g.sh, wy);
  int isum[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    isum[c] = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
    /* out-of-image slots read a valid pixel with weight 0 */
    const T *row = (const T *) (g.src + (size_t) (wy[i] ? y0 + i : y0) * g.sstride);
#pragma unroll
    for (int j = 0; j < N; j++) {
      const int w = wx[j] * wy[i];
      const int x = wx[j] ? x0 + j : x0;
      if constexpr (C == 2 || C == 4) {
        typedef typename Vec<T, C>::type V;
        V p = __ldg (reinterpret_cast<const V *> (row) + x);
        isum[0] += (int) (p.x >> sh) * w;
        isum[1] += (int) (p.y >> sh) * w;
        if constexpr (C == 4) {
          isum[2] += (int) (p.z >> sh) * w;
          isum[3] += (int) (p.w >> sh) * w;
        }
      } else {
#pragma unroll
        for (int c = 0; c < C; c++)
          isum[c] += (int) (__ldg (row + x * C + c) >> sh) * w;
      }
    }
  }
  float acc[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = __fmul_rn (u2f ((unsigned) isum[c]), unit);     /* exact */
  store_px<T, C, (C == 2 || C == 4)> (g, dx, dy, acc);
}

/* P horizontally adjacent outputs per thread: single-channel frames have
 * few samples per output, so this trades threads for loads in flight. */
template <typename T, int C, int N, int P>
__global__ void __launch_bounds__ (256)
supersample_dyadic_kernel (Geo g, int Sx, int Kx, int Sy, int Ky, float unit)
{
  const int dx0 = (blockIdx.x * blockDim.x + threadIdx.x) * P;
  const int dy = (blockIdx.y + g.yb) * blockDim.y + threadIdx.y;
  if (dx0 >= g.dw || dy >= g.dh)
    return;
#pragma unroll
  for (int k = 0; k < P; k++)
    if (dx0 + k < g.dw)
      dyadic_px<T, C, N> (g, dx0 + k, dy, Sx, Kx, Sy, Ky, unit);
}

/* Word-wide dyadic paths: a thread takes P = 4 << K adjacent outputs, whose
 * inputs are exactly 4*S pixels from a word boundary. Finds the thread's
 * group and its row slots; false when there is nothing left to do (past
 * the frame, or a ragged right edge finished one output at a time). */
template <typename T, int C, int S, int K, int N>
__device__ __forceinline__ bool
dyadic_group (const Geo & g, int Sy, int Ky, float unit, int &dx0, int &dy,
    int (&wy)[N], int &y0)
{
  constexpr int P = 4 << K;
  dx0 = (blockIdx.x * blockDim.x + threadIdx.x) * P;
  dy = (blockIdx.y + g.yb) * blockDim.y + threadIdx.y;
  if (dx0 >= g.dw || dy >= g.dh)
    return false;
  if (dx0 + P > g.dw) {
    for (int k = 0; dx0 + k < g.dw; k++)
      dyadic_px<T, C, N> (g, dx0 + k, dy, S, K, Sy, Ky, unit);
    return false;
  }
  y0 = int_slots<N> (dy, Sy, Ky, g.sh, wy);
  return true;
}

/* Overlap of pixel j of a group with output k's footprint, in 2^-K units
 * (a compile-time constant once the loops are unrolled). */
template <int S, int K>
__device__ __forceinline__ int
group_overlap (int k, int j)
{
  return min (k * S + S, (j + 1) << K) - max (k * S, j << K);
}

/* One-channel planes at common dyadic ratios (s = S / 2^K), grouped as
 * dyadic_group says. A thread reads its inputs as whole 32-bit words (a few loads in
 * place of one per sample and slot) and the horizontal weights are compile-time
 * constants. Same integer sums as dyadic_px, so the same results. */
template <typename T, int S, int K, int N>
__global__ void __launch_bounds__ (256)
supersample_dyadic_vec_kernel (Geo g, int Sy, int Ky, float unit)
{
  constexpr int P = 4 << K, GW = 4 * S, NW = GW * (int) sizeof (T) / 4;
  constexpr int PER = 4 / (int) sizeof (T), BITS = 8 * (int) sizeof (T);
  int dx0, dy, wy[N], y0;
  if (!dyadic_group<T, 1, S, K, N> (g, Sy, Ky, unit, dx0, dy, wy, y0))
    return;
  const int sh = sizeof (T) == 1 ? 0 : g.shift;
  const size_t xoff = (size_t) (dx0 >> K) * S * sizeof (T);
  uint32_t wd[N][NW];
#pragma unroll
  for (int i = 0; i < N; i++) {
    const uint32_t *row = (const uint32_t *) (g.src + (size_t) (y0 + i) * g.sstride + xoff);
#pragma unroll
    for (int k = 0; k < NW; k++)
      wd[i][k] = wy[i] ? __ldg (row + k) : 0u;
  }
  int isum[P];
#pragma unroll
  for (int k = 0; k < P; k++)
    isum[k] = 0;
#pragma unroll
  for (int i = 0; i < N; i++) {
#pragma unroll
    for (int k = 0; k < P; k++) {
      int rs = 0;
#pragma unroll
      for (int j = 0; j < GW; j++) {
        const int o = group_overlap<S, K> (k, j);
        if (o > 0) {
          const int v = (int) ((wd[i][j / PER] >> (BITS * (j % PER)))
              & ((1u << BITS) - 1u)) >> sh;
          rs += o * v;
        }
      }
      isum[k] += rs * wy[i];
    }
  }
  uint32_t packed[P / PER];
#pragma unroll
  for (int k = 0; k < P / PER; k++)
    packed[k] = 0;
#pragma unroll
  for (int k = 0; k < P; k++) {
    const float acc = __fmul_rn (u2f ((unsigned) isum[k]), unit);     /* exact */
    const uint32_t r = ci_ss_round (acc, g.inv, g.maxval) << sh;
    packed[k / PER] |= r << (BITS * (k % PER));
  }
  uint32_t *out = (uint32_t *) (g.dst + (size_t) dy * g.dstride + (size_t) dx0 * sizeof (T));
#pragma unroll
  for (int k = 0; k < P / PER; k++)
    out[k] = packed[k];
}

/* Copies the input window of outputs [bx0, bx1] x [by0, by1] into shared
 * memory with W-byte loads (each input byte read once), U loads in flight
 * per thread of NT; returns the window's first row and first byte. */
struct Window
{
  int y_lo, byte_lo;
};

template <typename T, int C, int NT, int U>
__device__ __forceinline__ Window
copy_window (const Geo & g, int bx0, int by0, int bx1, int by1, uint8_t * tile,
    int tile_pitch, int W, int tid)
{
  const Axis fx = make_axis (ci_ss_span (bx0, g.sx, g.sw));
  const Axis lx = make_axis (ci_ss_span (bx1, g.sx, g.sw));
  const Axis fy = make_axis (ci_ss_span (by0, g.sy, g.sh));
  const Axis ly = make_axis (ci_ss_span (by1, g.sy, g.sh));
  const int x_hi = min (lx.last + (lx.w_last > 0.0f ? 1 : 0), g.sw);
  const int y_lo = fy.start, y_hi = min (ly.last + (ly.w_last > 0.0f ? 1 : 0), g.sh);
  constexpr int pxb = C * (int) sizeof (T);
  const int byte_lo = (fx.start * pxb) & ~(W - 1);
  const int byte_hi = (x_hi * pxb + W - 1) & ~(W - 1);
  const int wpr = (byte_hi - byte_lo) / W, total = wpr * (y_hi - y_lo);
  /* i / wpr through a float reciprocal and one correction step: a runtime
   * integer division costs ~30 instructions, per load, per thread */
  const float inv_wpr = 1.0f / (float) wpr;
  for (int i0 = tid; i0 < total; i0 += U * NT) {
    uint4 t[U];
    int rr[U], kk[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int i = i0 + u * NT;
      int r = (int) (((float) i + 0.5f) * inv_wpr), k = i - r * wpr;
      if (k < 0) {
        r--;
        k += wpr;
      } else if (k >= wpr) {
        r++;
        k -= wpr;
      }
      rr[u] = r;
      kk[u] = k;
      const uint8_t *src = g.src + (size_t) (y_lo + r) * g.sstride + byte_lo + k * W;
      if (i < total) {
        if (W == 16)
          t[u] = __ldg ((const uint4 *) src);
        else if (W == 4)
          t[u].x = __ldg ((const uint32_t *) src);
        else
          t[u].x = __ldg (src);
      }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int i = i0 + u * NT;
      uint8_t *dst = tile + rr[u] * tile_pitch + kk[u] * W;
      if (i < total) {
        if (W == 16)
          *(uint4 *) dst = t[u];
        else if (W == 4)
          *(uint32_t *) dst = t[u].x;
        else
          *dst = (uint8_t) t[u].x;
      }
    }
  }
  Window w = { y_lo, byte_lo };
  return w;
}

/* Four-channel 8-bit pixels (RGBA, BGRx, ...) at ratios 2, 3, 4 and 1.5
 * across: the same grouping as the one-channel path with a pixel per 32-bit
 * word, read and written as 16-byte vectors (rows on 16-byte boundaries),
 * so each thread keeps four times the bytes in flight. */
template <int S, int K, int N>
__global__ void __launch_bounds__ (256)
supersample_dyadic_rgba_kernel (Geo g, int Sy, int Ky, float unit)
{
  constexpr int P = 4 << K, GW = 4 * S;
  int dx0, dy, wy[N], y0;
  if (!dyadic_group<uint8_t, 4, S, K, N> (g, Sy, Ky, unit, dx0, dy, wy, y0))
    return;
  const size_t xoff = (size_t) (dx0 >> K) * S * 4;
  uint32_t px[N][GW];
#pragma unroll
  for (int i = 0; i < N; i++) {
    const uint4 *row = (const uint4 *) (g.src + (size_t) (y0 + i) * g.sstride + xoff);
#pragma unroll
    for (int q = 0; q < S; q++) {
      const uint4 v = wy[i] ? __ldg (row + q) : make_uint4 (0, 0, 0, 0);
      px[i][4 * q] = v.x;
      px[i][4 * q + 1] = v.y;
      px[i][4 * q + 2] = v.z;
      px[i][4 * q + 3] = v.w;
    }
  }
  uint32_t res[P];
#pragma unroll
  for (int k = 0; k < P; k++) {
    int isum[4] = { 0, 0, 0, 0 };
#pragma unroll
    for (int i = 0; i < N; i++) {
      int rs[4] = { 0, 0, 0, 0 };
#pragma unroll
      for (int j = 0; j < GW; j++) {
        const int o = group_overlap<S, K> (k, j);
        if (o > 0) {
#pragma unroll
          for (int c = 0; c < 4; c++)
            rs[c] += o * (int) ((px[i][j] >> (8 * c)) & 0xffu);
        }
      }
#pragma unroll
      for (int c = 0; c < 4; c++)
        isum[c] += rs[c] * wy[i];
    }
    uint32_t w = 0;
#pragma unroll
    for (int c = 0; c < 4; c++) {
      const float acc = __fmul_rn (u2f ((unsigned) isum[c]), unit);   /* exact */
      w |= ci_ss_round (acc, g.inv, g.maxval) << (8 * c);
    }
    res[k] = w;
  }
  uint4 *out = (uint4 *) (g.dst + (size_t) dy * g.dstride + (size_t) dx0 * 4);
#pragma unroll
  for (int k = 0; k < P / 4; k++)
    out[k] = make_uint4 (res[4 * k], res[4 * k + 1], res[4 * k + 2], res[4 * k + 3]);
}

/* Small footprints: the block first copies its whole input window into shared
 * memory with W-byte coalesced loads (each input byte read once), then each
 * thread runs the fixed-slot chain out of shared memory. */
#define TILE_W 32
#define TILE_H 8
template <typename T, int C, int N>
__global__ void __launch_bounds__ (TILE_W * TILE_H)
supersample_tile_kernel (Geo g, int tile_pitch, int W)
{
  extern __shared__ __align__ (16) uint8_t tile[];
  const int bx0 = blockIdx.x * TILE_W, by0 = (blockIdx.y + g.yb) * TILE_H;
  const int bx1 = min (bx0 + TILE_W, g.dw) - 1, by1 = min (by0 + TILE_H, g.dh) - 1;
  const int pxb = C * (int) sizeof (T);
  const Window win = copy_window<T, C, TILE_W * TILE_H, 4> (g, bx0, by0, bx1, by1, tile,
      tile_pitch, W, threadIdx.y * TILE_W + threadIdx.x);
  const int y_lo = win.y_lo, byte_lo = win.byte_lo;
  __syncthreads ();
  const int dx = bx0 + threadIdx.x, dy = by0 + threadIdx.y;
  if (dx >= g.dw || dy >= g.dh)
    return;
  const Axis ax = make_axis (ci_ss_span (dx, g.sx, g.sw));
  const Axis ay = make_axis (ci_ss_span (dy, g.sy, g.sh));
  float acc[C];
  /* 2- and 4-channel pixels in one shared-memory read when the window
   * start is aligned to the pixel size (4 x fewer reads for RGBA) */
  const bool vec = (C == 2 || C == 4) && W >= pxb;
  accumulate_fixed<C, N> (g, ax, ay, [&](int y, int x, float (&v)[C]) {
        const T *p = (const T *) (tile + (y - y_lo) * tile_pitch + x * pxb - byte_lo);
        if constexpr (C == 4 && sizeof (T) == 1) {
          if (vec) {
            const uint32_t q = *reinterpret_cast<const uint32_t *> (p);
#pragma unroll
            for (int c = 0; c < 4; c++)
              v[c] = byte2f (q, c);
            return;
          }
        } else if constexpr ((C == 2 || C == 4) && C * sizeof (T) >= 4) {
          if (vec) {
            typedef typename Vec<T, C>::type V;
            const V q = *reinterpret_cast<const V *> (p);
            v[0] = u2f (q.x >> g.shift);
            v[1] = u2f (q.y >> g.shift);
            if constexpr (C == 4) {
              v[2] = u2f (q.z >> g.shift);
              v[3] = u2f (q.w >> g.shift);
            }
            return;
          }
        }
#pragma unroll
        for (int c = 0; c < C; c++)
          v[c] = u2f (sizeof (T) == 1 ? p[c] : p[c] >> g.shift);
      }, acc);
  store_px<T, C, false> (g, dx, dy, acc);
}

/* Large footprints whose window fits shared memory. Every thread is one
 * chain: output (t / C), channel (t % C), so a warp runs 32 chains side by
 * side (one chain per warp would leave 31 lanes idle and make the kernel
 * issue-bound). The block first copies the input window of its outputs with
 * 16-byte loads, eight in flight per thread; then each thread runs NPP's
 * chain over its footprint, row-major, a full sample weighing wy itself
 * (1 * wy is exact), the next eight samples read while the current eight
 * are accumulated. */
#define WIN_THREADS 128
template <typename T, int C, int NX>
__global__ void __launch_bounds__ (WIN_THREADS)
supersample_window_kernel (Geo g, int TW, int TH, int tile_pitch, int W)
{
  extern __shared__ __align__ (16) uint8_t tile[];
  const int bx0 = blockIdx.x * TW, by0 = (blockIdx.y + g.yb) * TH;
  const int bx1 = min (bx0 + TW, g.dw) - 1, by1 = min (by0 + TH, g.dh) - 1;
  const Window win = copy_window<T, C, WIN_THREADS, 8> (g, bx0, by0, bx1, by1, tile,
      tile_pitch, W, threadIdx.x);
  const int y_lo = win.y_lo, byte_lo = win.byte_lo;
  __syncthreads ();
  const int o = threadIdx.x / C, c = threadIdx.x - o * C;
  if (o >= TW * TH)
    return;
  const int dx = bx0 + o % TW, dy = by0 + o / TW;
  if (dx >= g.dw || dy >= g.dh)
    return;
  const CiSsSpan xs = ci_ss_span (dx, g.sx, g.sw);
  const CiSsSpan ys = ci_ss_span (dy, g.sy, g.sh);
  const int ya = ys.w_first > 0.0f ? ys.first - 1 : ys.first;
  const int yb = ys.w_last > 0.0f ? ys.last + 1 : ys.last;
  const int xa = xs.first, xb = xs.last;
  const bool has_first = xs.w_first > 0.0f, has_last = xs.w_last > 0.0f;
  const int sh = g.shift;
  /* this thread's channel of pixel x in window row r */
  const T *base = (const T *) (tile - byte_lo) + c;
  float acc = 0.0f;
  if constexpr (NX > 0) {
    /* Narrow footprints (tall ones: 64x64 -> 63x1): NX fixed slots per row as
     * in accumulate_fixed (a zero weight is an exact no-op), rows unrolled so
     * the reads of the next rows run ahead of this row's multiply-adds. */
    const Axis ax = make_axis (xs);
    float wx[NX];
    int px[NX];
#pragma unroll
    for (int j = 0; j < NX; j++) {
      const int p = ax.start + j;
      wx[j] = p < g.sw ? axis_weight (ax, p) : 0.0f;
      px[j] = (wx[j] != 0.0f ? p : ax.start) * C;
    }
#pragma unroll 4
    for (int y = ya; y < yb; y++) {
      const float wy = y < ys.first ? ys.w_first : (y < ys.last ? 1.0f : ys.w_last);
      const T *row = (const T *) ((const uint8_t *) base + (y - y_lo) * tile_pitch);
#pragma unroll
      for (int j = 0; j < NX; j++)
        acc = __fmaf_rn (u2f (row[px[j]] >> sh), __fmul_rn (wx[j], wy), acc);
    }
  } else {
    for (int y = ya; y < yb; y++) {
      const float wy = y < ys.first ? ys.w_first : (y < ys.last ? 1.0f : ys.w_last);
      const T *row = (const T *) ((const uint8_t *) base + (y - y_lo) * tile_pitch);
      /* issue the row's edge reads first; the chain order is unchanged */
      const float vf = has_first ? u2f (row[(xa - 1) * C] >> sh) : 0.0f;
      const float vl = has_last ? u2f (row[xb * C] >> sh) : 0.0f;
      if (has_first)
        acc = __fmaf_rn (vf, __fmul_rn (xs.w_first, wy), acc);
      int x = xa;
      if (x + 8 <= xb) {
        float cur[8];
#pragma unroll
        for (int u = 0; u < 8; u++)
          cur[u] = u2f (row[(x + u) * C] >> sh);
        for (; x + 16 <= xb; x += 8) {
          float nxt[8];
#pragma unroll
          for (int u = 0; u < 8; u++)
            nxt[u] = u2f (row[(x + 8 + u) * C] >> sh);
#pragma unroll
          for (int u = 0; u < 8; u++)
            acc = __fmaf_rn (cur[u], wy, acc);
#pragma unroll
          for (int u = 0; u < 8; u++)
            cur[u] = nxt[u];
        }
#pragma unroll
        for (int u = 0; u < 8; u++)
          acc = __fmaf_rn (cur[u], wy, acc);
        x += 8;
      }
      for (; x < xb; x++)
        acc = __fmaf_rn (u2f (row[x * C] >> sh), wy, acc);
      if (has_last)
        acc = __fmaf_rn (vl, __fmul_rn (xs.w_last, wy), acc);
    }
  }
  T *out = (T *) (g.dst + (size_t) dy * g.dstride) + dx * C + c;
  *out = (T) (ci_ss_round (acc, g.inv, g.maxval) << sh);
}

/* Large footprints: one warp per output pixel. The warp copies a tile of the
 * footprint (whole rows while they fit) into shared memory and computes each
 * sample's weight wx*wy in parallel; lane c then runs channel c's chain over
 * the tile in NPP's order (row-major), unrolled so the shared-memory reads run
 * ahead of the dependent multiply-adds. (A double-buffered variant, with idle
 * lanes fetching the next tile during the chain, measured slower on H200.) */
#define WARP_TILE 512           /* samples per warp */
template <typename T, int C>
__global__ void __launch_bounds__ (256)
supersample_warp_kernel (Geo g)
{
  __shared__ float tile_all[8][WARP_TILE];
  __shared__ float wt_all[8][WARP_TILE];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const long long out = blockIdx.x * 8LL + warp;
  if (out >= (long long) g.dw * g.dh)
    return;                     /* whole warp leaves together */
  float *tile = tile_all[warp], *wt = wt_all[warp];
  const int dx = (int) (out % g.dw), dy = (int) (out / g.dw);
  const CiSsSpan xs = ci_ss_span (dx, g.sx, g.sw);
  const CiSsSpan ys = ci_ss_span (dy, g.sy, g.sh);
  const int x0 = xs.w_first > 0.0f ? xs.first - 1 : xs.first;
  const int x1 = xs.w_last > 0.0f ? xs.last + 1 : xs.last;   /* exclusive */
  const int y0 = ys.w_first > 0.0f ? ys.first - 1 : ys.first;
  const int y1 = ys.w_last > 0.0f ? ys.last + 1 : ys.last;
  const int ncols = x1 - x0;
  const int cols_per = min (ncols, WARP_TILE / C);
  const int rows_per = cols_per == ncols ? max (1, WARP_TILE / (ncols * C)) : 1;
  float acc = 0.0f;
  for (int ty = y0; ty < y1; ty += rows_per) {
    const int nr = min (rows_per, y1 - ty);
    for (int tx = x0; tx < x1; tx += cols_per) {
      const int nc = min (cols_per, x1 - tx);
      const int rowlen = nc * C, n = nr * rowlen, npx = nr * nc;
      __syncwarp ();
      /* eight loads in flight per lane before any is used */
      for (int base = 0; base < n; base += 32 * 8) {
        float t[8];
#pragma unroll
        for (int u = 0; u < 8; u++) {
          const int i = base + u * 32 + lane;
          const int r = i / rowlen, k = i - r * rowlen;
          t[u] = i < n ? u2f (__ldg ((const T *) (g.src + (size_t) (ty + r) *
                          g.sstride) + tx * C + k) >> g.shift) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 8; u++)
          if (base + u * 32 + lane < n)
            tile[base + u * 32 + lane] = t[u];
      }
      for (int e = lane; e < npx; e += 32) {
        const int r = e / nc, y = ty + r, x = tx + e - r * nc;
        const float wy = y < ys.first ? ys.w_first : (y < ys.last ? 1.0f : ys.w_last);
        const float wx = x < xs.first ? xs.w_first : (x < xs.last ? 1.0f : xs.w_last);
        wt[e] = __fmul_rn (wx, wy);
      }
      __syncwarp ();
      if (lane < C) {
#pragma unroll 8
        for (int e = 0; e < npx; e++)
          acc = __fmaf_rn (tile[e * C + lane], wt[e], acc);
      }
    }
  }
  if (lane < C) {
    T *o = (T *) (g.dst + (size_t) dy * g.dstride) + dx * C + lane;
    *o = (T) (ci_ss_round (acc, g.inv, g.maxval) << g.shift);
  }
}

/* 256-thread blocks over cols x rows threads; narrow outputs (e.g. 3 columns)
 * still fill warps by taking more rows per block. */
void
thread_grid (int cols, int rows, dim3 * block, dim3 * grid)
{
  int bx = 32;
  while (bx > 1 && bx / 2 >= cols)
    bx /= 2;
  *block = dim3 (bx, 256 / bx);
  *grid = dim3 ((cols + block->x - 1) / block->x, (rows + block->y - 1) / block->y);
}

/* A grid is at most 65,535 blocks tall: taller outputs (over 524,280 rows
 * with 8-row blocks) run as bands, each kernel adding g.yb to blockIdx.y. */
template <typename F>
cudaError_t
launch_bands (Geo g, dim3 grid, F launch)
{
  const unsigned rows = grid.y;
  for (unsigned b = 0; b < rows; b += 65535u) {
    g.yb = b;
    grid.y = rows - b < 65535u ? rows - b : 65535u;
    launch (g, grid);
    const cudaError_t err = cudaGetLastError ();
    if (err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}

template <typename T, int C, bool VEC, int N>
cudaError_t
launch_fixed (const Geo & g, cudaStream_t stream)
{
  dim3 block, grid;
  thread_grid (g.dw, g.dh, &block, &grid);
  return launch_bands (g, grid, [&] (const Geo & b, dim3 gr) {
        supersample_fixed_kernel<T, C, VEC, N> <<<gr, block, 0, stream>>> (b);
      });
}

template <typename T, int C, int N>
cudaError_t
launch_tile (const Geo & g, int w, int pitch, int rows, cudaStream_t stream)
{
  dim3 block (TILE_W, TILE_H);
  dim3 grid ((g.dw + TILE_W - 1) / TILE_W, (g.dh + TILE_H - 1) / TILE_H);
  const size_t smem = (size_t) pitch * rows;
  return launch_bands (g, grid, [&] (const Geo & b, dim3 gr) {
        supersample_tile_kernel<T, C, N> <<<gr, block, smem, stream>>> (b, pitch, w);
      });
}

template <typename T, int C, int N>
cudaError_t
launch_dyadic (const Geo & g, int Sx, int Kx, int Sy, int Ky, cudaStream_t stream)
{
  constexpr int P = C == 1 ? 4 : 1;
  dim3 block, grid;
  thread_grid ((g.dw + P - 1) / P, g.dh, &block, &grid);
  const float unit = ldexpf (1.0f, -(Kx + Ky));
  return launch_bands (g, grid, [&] (const Geo & b, dim3 gr) {
        supersample_dyadic_kernel<T, C, N, P> <<<gr, block, 0, stream>>> (b, Sx, Kx, Sy,
            Ky, unit);
      });
}

template <typename T, int S, int K, int N>
cudaError_t
launch_dyadic_vec_n (const Geo & g, int Sy, int Ky, cudaStream_t stream)
{
  constexpr int P = 4 << K;
  dim3 block, grid;
  thread_grid ((g.dw + P - 1) / P, g.dh, &block, &grid);
  const float unit = ldexpf (1.0f, -(K + Ky));
  return launch_bands (g, grid, [&] (const Geo & b, dim3 gr) {
        supersample_dyadic_vec_kernel<T, S, K, N> <<<gr, block, 0, stream>>> (b, Sy, Ky,
            unit);
      });
}

template <typename T, int S, int K>
cudaError_t
launch_dyadic_vec_sk (const Geo & g, int Sy, int Ky, int n, cudaStream_t stream)
{
  if (n <= 2)
    return launch_dyadic_vec_n<T, S, K, 2> (g, Sy, Ky, stream);
  if (n <= 3)
    return launch_dyadic_vec_n<T, S, K, 3> (g, Sy, Ky, stream);
  return launch_dyadic_vec_n<T, S, K, 4> (g, Sy, Ky, stream);
}

/* The word-wide one-channel path, for the ratios video uses most (2, 3, 4,
 * 1.5, 2.5, 1.25 horizontally) when rows start on 4-byte boundaries. */
template <typename T>
bool
launch_dyadic_vec (const Geo & g, int Sx, int Kx, int Sy, int Ky, int n,
    cudaStream_t stream, cudaError_t * err)
{
  if ((uintptr_t) g.src % 4 || g.sstride % 4 || (uintptr_t) g.dst % 4 || g.dstride % 4)
    return false;
  switch (Kx * 16 + Sx) {
    case 0 * 16 + 2: *err = launch_dyadic_vec_sk<T, 2, 0> (g, Sy, Ky, n, stream); return true;
    case 0 * 16 + 3: *err = launch_dyadic_vec_sk<T, 3, 0> (g, Sy, Ky, n, stream); return true;
    case 0 * 16 + 4: *err = launch_dyadic_vec_sk<T, 4, 0> (g, Sy, Ky, n, stream); return true;
    case 1 * 16 + 3: *err = launch_dyadic_vec_sk<T, 3, 1> (g, Sy, Ky, n, stream); return true;
    case 1 * 16 + 5: *err = launch_dyadic_vec_sk<T, 5, 1> (g, Sy, Ky, n, stream); return true;
    case 2 * 16 + 5: *err = launch_dyadic_vec_sk<T, 5, 2> (g, Sy, Ky, n, stream); return true;
    default: return false;
  }
}

template <int S, int K, int N>
cudaError_t
launch_dyadic_rgba_n (const Geo & g, int Sy, int Ky, cudaStream_t stream)
{
  constexpr int P = 4 << K;
  dim3 block, grid;
  thread_grid ((g.dw + P - 1) / P, g.dh, &block, &grid);
  const float unit = ldexpf (1.0f, -(K + Ky));
  return launch_bands (g, grid, [&] (const Geo & b, dim3 gr) {
        supersample_dyadic_rgba_kernel<S, K, N> <<<gr, block, 0, stream>>> (b, Sy, Ky,
            unit);
      });
}

template <int S, int K>
cudaError_t
launch_dyadic_rgba_sk (const Geo & g, int Sy, int Ky, int n, cudaStream_t stream)
{
  if (n <= 2)
    return launch_dyadic_rgba_n<S, K, 2> (g, Sy, Ky, stream);
  if (n <= 3)
    return launch_dyadic_rgba_n<S, K, 3> (g, Sy, Ky, stream);
  return launch_dyadic_rgba_n<S, K, 4> (g, Sy, Ky, stream);
}

/* The 16-byte four-channel path, for 8-bit pixels at 2, 3, 4 and 1.5 across
 * when rows start on 16-byte boundaries. */
bool
launch_dyadic_rgba (const Geo & g, int Sx, int Kx, int Sy, int Ky, int n,
    cudaStream_t stream, cudaError_t * err)
{
  if ((uintptr_t) g.src % 16 || g.sstride % 16 || (uintptr_t) g.dst % 16 || g.dstride % 16)
    return false;
  switch (Kx * 16 + Sx) {
    case 0 * 16 + 2: *err = launch_dyadic_rgba_sk<2, 0> (g, Sy, Ky, n, stream); return true;
    case 0 * 16 + 3: *err = launch_dyadic_rgba_sk<3, 0> (g, Sy, Ky, n, stream); return true;
    case 0 * 16 + 4: *err = launch_dyadic_rgba_sk<4, 0> (g, Sy, Ky, n, stream); return true;
    case 1 * 16 + 3: *err = launch_dyadic_rgba_sk<3, 1> (g, Sy, Ky, n, stream); return true;
    default: return false;
  }
}

template <typename T, int C>
cudaError_t
launch_warp (const Geo & g, cudaStream_t stream)
{
  const long long outs = (long long) g.dw * g.dh;
  const long long blocks = (outs + 7) / 8;
  if (blocks > 0x7fffffffLL)
    return cudaErrorInvalidConfiguration;
  supersample_warp_kernel<T, C> <<<(unsigned) blocks, 256, 0, stream>>> (g);
  return cudaGetLastError ();
}

/* s = S / 2^K exactly, K <= 8? */
bool
dyadic (float s, int *S, int *K)
{
  for (int k = 0; k <= 8; k++) {
    const float t = ldexpf (s, k);
    if (t == floorf (t) && t < (float) (1 << 20)) {
      *S = (int) t;
      *K = k;
      return true;
    }
  }
  return false;
}

/* Most samples any output touches along one axis, in O(1) so the host never
 * lags the GPU: an integer factor k lands on pixel edges (d*k is exact), so
 * exactly k samples; otherwise at most floor(s) full samples plus two partial ones. */
int
max_slots (float s)
{
  const float f = floorf (s);
  return f == s ? (int) f : (int) f + 2;
}

/* Picks TW x TH outputs per block for the window kernel: enough blocks for
 * two per SM where the frame allows (outs / 264), at most one chain per
 * thread, shrunk until the window fits 48 KB. False when even one output's
 * window does not fit (the warp kernel tiles it instead). */
template <typename T, int C>
bool
launch_window (const Geo & g, cudaStream_t stream, cudaError_t * err)
{
  const int pxb = C * (int) sizeof (T);
  int W = 1;
  if ((uintptr_t) g.src % 16 == 0 && g.sstride % 16 == 0)
    W = 16;
  else if ((uintptr_t) g.src % 4 == 0 && g.sstride % 4 == 0)
    W = 4;
  const long long outs = (long long) g.dw * g.dh;
  long long want = outs / 264;
  want = want < 1 ? 1 : (want > WIN_THREADS / C ? WIN_THREADS / C : want);
  int tw = (int) (want < g.dw ? want : g.dw);
  int th = (int) (want / tw < g.dh ? want / tw : g.dh);
  if (th < 1)
    th = 1;
  for (;;) {
    /* +4 samples per axis: footprint rounding and the partial edge pixels;
     * 2W + 15 bytes: alignment of the window's ends and of the pitch */
    const double pitch = ((ceil (tw * (double) g.sx) + 4) * pxb + 2 * W + 15);
    const double rows = ceil (th * (double) g.sy) + 4;
    if (pitch * rows <= 48 * 1024) {
      const int p = (int) pitch & ~15;
      dim3 grid ((g.dw + tw - 1) / tw, (g.dh + th - 1) / th);
      const size_t smem = (size_t) p * (size_t) rows;
      const int nx = max_slots (g.sx);
      *err = launch_bands (g, grid, [&] (const Geo & b, dim3 gr) {
            if (nx <= 3)
              supersample_window_kernel<T, C, 3> <<<gr, WIN_THREADS, smem, stream>>> (b, tw,
                  th, p, W);
            else if (nx <= 6)
              supersample_window_kernel<T, C, 6> <<<gr, WIN_THREADS, smem, stream>>> (b, tw,
                  th, p, W);
            else
              supersample_window_kernel<T, C, 0> <<<gr, WIN_THREADS, smem, stream>>> (b, tw,
                  th, p, W);
          });
      return true;
    }
    if (tw == 1 && th == 1)
      return false;
    if (th >= tw || tw == 1)
      th = (th + 1) / 2;
    else
      tw = (tw + 1) / 2;
  }
}

template <typename T, int C, bool VEC>
cudaError_t
launch_tc (const Geo & g, int n, cudaStream_t stream)
{
  int Sx, Kx, Sy, Ky;
  /* Exactness bound of the integer path: every partial sum < 2^23 units. */
  if (VEC == (C == 2 || C == 4) && n <= 4 && dyadic (g.sx, &Sx, &Kx)
      && dyadic (g.sy, &Sy, &Ky)
      && (double) g.maxval * n * n * (double) (1 << (Kx + Ky)) < 8388608.0
            /* NPP's float footprint (d * s) is exact only below 2^24 units */
      && (long long) g.sw << Kx < (1 << 24) && (long long) g.sh << Ky < (1 << 24)) {
    if constexpr (C == 1) {
      cudaError_t err;
      if (launch_dyadic_vec<T> (g, Sx, Kx, Sy, Ky, n, stream, &err))
        return err;
    } else if constexpr (C == 4 && sizeof (T) == 1 && VEC) {
      cudaError_t err;
      if (launch_dyadic_rgba (g, Sx, Kx, Sy, Ky, n, stream, &err))
        return err;
    }
    if (n <= 2)
      return launch_dyadic<T, C, 2> (g, Sx, Kx, Sy, Ky, stream);
    if (n <= 3)
      return launch_dyadic<T, C, 3> (g, Sx, Kx, Sy, Ky, stream);
    return launch_dyadic<T, C, 4> (g, Sx, Kx, Sy, Ky, stream);
  }
  /* From 2^24 up float span ends are coarser than a pixel, so a footprint
   * can cover more samples than max_slots () and the fixed slots allow, and
   * a block's more rows than the tile and window kernels' shared memory:
   * the warp kernel sizes every footprint itself. */
  if (g.sw > (1 << 24) || g.sh > (1 << 24))
    return launch_warp<T, C> (g, stream);
  /* Shared-memory window of one block, with room for rounding and alignment. */
  const int pxb = C * (int) sizeof (T);
  const int pitch = (((int) ceilf (TILE_W * g.sx) + 4) * pxb + 2 * 16 + 15) & ~15;
  const int rows = (int) ceilf (TILE_H * g.sy) + 4;
  const bool fits = (size_t) pitch * rows <= 48 * 1024;
  int w = 1;
  if ((uintptr_t) g.src % 16 == 0 && g.sstride % 16 == 0)
    w = 16;
  else if ((uintptr_t) g.src % 4 == 0 && g.sstride % 4 == 0)
    w = 4;
  cudaError_t err;
  if (fits && n <= 2)
    return launch_tile<T, C, 2> (g, w, pitch, rows, stream);
  if (fits && n <= 3)
    return launch_tile<T, C, 3> (g, w, pitch, rows, stream);
  if (fits && n <= 4)
    return launch_tile<T, C, 4> (g, w, pitch, rows, stream);
  if (fits && n <= 6)
    return launch_tile<T, C, 6> (g, w, pitch, rows, stream);
  /* big pixels whose window does not fit shared memory */
  if (n <= 6)
    return launch_fixed<T, C, VEC, 6> (g, stream);
  if (launch_window<T, C> (g, stream, &err))
    return err;
  return launch_warp<T, C> (g, stream);
}

template <typename T>
cudaError_t
launch_t (const Geo & g, int C, bool vec, int n, cudaStream_t stream)
{
  switch (C) {
    case 1: return launch_tc<T, 1, false> (g, n, stream);
    case 2: return vec ? launch_tc<T, 2, true> (g, n, stream) :
          launch_tc<T, 2, false> (g, n, stream);
    case 3: return launch_tc<T, 3, false> (g, n, stream);
    case 4: return vec ? launch_tc<T, 4, true> (g, n, stream) :
          launch_tc<T, 4, false> (g, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace

extern "C" int
ci_cuda_supersample_plane (const void *src, const CiSsPlane * sp,
    void *dst, const CiSsPlane * dp, ci_stream_t stream)
{
  const int C = sp->channels, bps = sp->bytes_per_sample;
  if (sp->width < 1 || sp->height < 1 || dp->width < 1 || dp->height < 1
      || dp->width > sp->width || dp->height > sp->height
      || C < 1 || C > 4 || dp->channels != C
      || (bps != 1 && bps != 2) || dp->bytes_per_sample != bps
      || (uintptr_t) src % bps || (uintptr_t) dst % bps
      || sp->stride % bps || dp->stride % bps
      || sp->stride < (size_t) sp->width * C * bps
      || dp->stride < (size_t) dp->width * C * bps
      /* the kernels shift 16-bit samples only (P010's 6) */
      || sp->shift != dp->shift || sp->shift < 0
      || sp->shift > (bps == 2 ? 15 : 0))
    return cudaErrorInvalidValue;
  Geo g;
  g.src = (const uint8_t *) src;
  g.sstride = sp->stride;
  g.sw = sp->width;
  g.sh = sp->height;
  g.dst = (uint8_t *) dst;
  g.dstride = dp->stride;
  g.dw = dp->width;
  g.dh = dp->height;
  g.sx = ci_ss_scale (sp->width, dp->width);
  g.sy = ci_ss_scale (sp->height, dp->height);
  g.inv = ci_ss_inv_area (g.sx, g.sy);
  g.shift = sp->shift;
  g.maxval = (bps == 1 ? 0xffu : 0xffffu) >> sp->shift;
  g.yb = 0;
  const size_t px = (size_t) C * bps;
  const bool vec = ((uintptr_t) src % px) == 0 && ((uintptr_t) dst % px) == 0
      && sp->stride % px == 0 && dp->stride % px == 0;
  cudaStream_t s = (cudaStream_t) stream;
  const int nx = max_slots (g.sx), ny = max_slots (g.sy);
  const int n = nx > ny ? nx : ny;
  return bps == 1 ? launch_t<uint8_t> (g, C, vec, n, s) : launch_t<uint16_t> (g, C, vec, n, s);
}
