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

/* Loads the C samples of one pixel; 2- and 4-channel pixels in one access when aligned. */
template <typename T, int C, bool VEC>
__device__ __forceinline__ void
load_px (const T * __restrict__ row, int x, float (&v)[C], int shift)
{
  if constexpr (VEC && (C == 2 || C == 4)) {
    typedef typename Vec<T, C>::type V;
    V p = __ldg (reinterpret_cast<const V *> (row) + x);
    v[0] = (float) (p.x >> shift);
    v[1] = (float) (p.y >> shift);
    if constexpr (C == 4) {
      v[2] = (float) (p.z >> shift);
      v[3] = (float) (p.w >> shift);
    }
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = (float) (__ldg (row + x * C + c) >> shift);
  }
}

/* One row of the footprint, columns in NPP's order: left partial, full, right partial. */
template <typename T, int C, bool VEC>
__device__ __forceinline__ void
accum_row (const T * __restrict__ row, const CiSsSpan & xs, float wy,
    float (&acc)[C], int shift)
{
  float v[C];
  if (xs.w_first > 0.0f) {
    const float w = __fmul_rn (xs.w_first, wy);
    load_px<T, C, VEC> (row, xs.first - 1, v, shift);
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[c] = __fmaf_rn (v[c], w, acc[c]);
  }
  /* w = 1 * wy == wy exactly */
#pragma unroll 4
  for (int x = xs.first; x < xs.last; x++) {
    load_px<T, C, VEC> (row, x, v, shift);
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[c] = __fmaf_rn (v[c], wy, acc[c]);
  }
  if (xs.w_last > 0.0f) {
    const float w = __fmul_rn (xs.w_last, wy);
    load_px<T, C, VEC> (row, xs.last, v, shift);
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[c] = __fmaf_rn (v[c], w, acc[c]);
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
};

template <typename T, int C, bool VEC>
__global__ void
supersample_kernel (Geo g)
{
  const int dx = blockIdx.x * blockDim.x + threadIdx.x;
  const int dy = blockIdx.y * blockDim.y + threadIdx.y;
  if (dx >= g.dw || dy >= g.dh)
    return;
  const CiSsSpan xs = ci_ss_span (dx, g.sx, g.sw);
  const CiSsSpan ys = ci_ss_span (dy, g.sy, g.sh);
  float acc[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    acc[c] = 0.0f;

  /* Rows in NPP's order: top partial, full rows, bottom partial. */
  if (ys.w_first > 0.0f)
    accum_row<T, C, VEC> ((const T *) (g.src + (size_t) (ys.first - 1) * g.sstride),
        xs, ys.w_first, acc, g.shift);
  for (int y = ys.first; y < ys.last; y++)
    accum_row<T, C, VEC> ((const T *) (g.src + (size_t) y * g.sstride), xs, 1.0f,
        acc, g.shift);
  if (ys.w_last > 0.0f)
    accum_row<T, C, VEC> ((const T *) (g.src + (size_t) ys.last * g.sstride),
        xs, ys.w_last, acc, g.shift);

  T *out = (T *) (g.dst + (size_t) dy * g.dstride) + dx * C;
  T r[C];
#pragma unroll
  for (int c = 0; c < C; c++)
    r[c] = (T) (ci_ss_round (acc[c], g.inv, g.maxval) << g.shift);
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

template <typename T, int C>
cudaError_t
launch_tc (const Geo & g, bool vec, cudaStream_t stream)
{
  /* Narrow outputs (e.g. 3 columns) still fill warps: take more rows per block. */
  int bx = 32;
  while (bx > 1 && bx / 2 >= g.dw)
    bx /= 2;
  dim3 block (bx, 256 / bx);
  dim3 grid ((g.dw + block.x - 1) / block.x, (g.dh + block.y - 1) / block.y);
  if (grid.y > 65535)
    return cudaErrorInvalidConfiguration;
  if (vec)
    supersample_kernel<T, C, true> <<<grid, block, 0, stream>>> (g);
  else
    supersample_kernel<T, C, false> <<<grid, block, 0, stream>>> (g);
  return cudaGetLastError ();
}

template <typename T>
cudaError_t
launch_t (const Geo & g, int C, bool vec, cudaStream_t stream)
{
  switch (C) {
    case 1: return launch_tc<T, 1> (g, false, stream);
    case 2: return launch_tc<T, 2> (g, vec, stream);
    case 3: return launch_tc<T, 3> (g, false, stream);
    case 4: return launch_tc<T, 4> (g, vec, stream);
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
      || sp->stride % bps || dp->stride % bps)
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
  const size_t px = (size_t) C * bps;
  const bool vec = ((uintptr_t) src % px) == 0 && ((uintptr_t) dst % px) == 0
      && sp->stride % px == 0 && dp->stride % px == 0;
  cudaStream_t s = (cudaStream_t) stream;
  return bps == 1 ? launch_t<uint8_t> (g, C, vec, s) : launch_t<uint16_t> (g, C, vec, s);
}
