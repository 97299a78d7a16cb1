/* Convolution bloom through cuFFT.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Default path (CI_FB_MODE_R2C), per frame:
 *   1. pre:  decode + bright-pass (+ s x s box downsample) written straight
 *            into the zero-padded FFT grid, 3 real planes (one pass);
 *   2. cuFFT R2C, batch 3;
 *   3. spectrum multiply by the cached kernel spectrum (already scaled by
 *      1/(nx ny)); a grey kernel is read once for the three channels;
 *   4. cuFFT C2R, batch 3;
 *   5. post: crop (+ bilinear upsample) + add + encode, alpha copied (one pass).
 * The other two modes exist to be measured against it (bench/fftbloom.c). */
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fftbloom.h"

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) return (int) e_; } while (0)
#define CHECK_LAUNCH() CHECK (cudaGetLastError ())
#define CHECK_FFT(x) do { cufftResult r_ = (x); if (r_ != CUFFT_SUCCESS) return fft_err (r_); } while (0)

static int
fft_err (cufftResult r)
{
  switch (r) {
    case CUFFT_ALLOC_FAILED:
      return (int) cudaErrorMemoryAllocation;
    case CUFFT_INVALID_VALUE:
    case CUFFT_INVALID_SIZE:
    case CUFFT_INVALID_PLAN:
      return (int) cudaErrorInvalidValue;
    default:
      return (int) cudaErrorUnknown;
  }
}

struct CiFbCuda
{
  CiFbMode mode;
  int width, height, scale;
  int w, h;                     /* low-resolution image */
  int nx, ny, nxc;              /* grid; complex row length */
  int kch;                      /* kernel planes */
  float *grid;                  /* R2C: 3 real planes nx*ny */
  cufftComplex *spec;           /* R2C: 3 x nxc*ny; PACKED: 2 x nx*ny; NAIVE: 3 x nx*ny */
  cufftComplex *kspec;          /* kch planes of the spectrum layout above */
  float4 *lin, *tmp;            /* NAIVE: full-size float images */
  cufftHandle fwd, inv;
  int have_fwd, have_inv;
  int lut_ready;
};

namespace {

__device__ float g_lut8[256];

__global__ void
k_init_lut ()
{
  int i = threadIdx.x;
  g_lut8[i] = ci_fb_decode (i, 1, 1);
}

/* Faster than libm-exact powf; errors ~1e-6 relative, far below a code value. */
__device__ __forceinline__ float
fast_linear_to_srgb (float v)
{
  return v <= 0.0031308f ? v * 12.92f
      : 1.055f * exp2f (__log2f (v) * (1.0f / 2.4f)) - 0.055f;
}

__device__ __forceinline__ unsigned
encode (float lin, int bytes, int srgb)
{
  float v = lin > 0.0f ? (lin < 1.0f ? lin : 1.0f) : 0.0f;
  if (srgb)
    v = fast_linear_to_srgb (v);
  float maxv = bytes == 1 ? 255.0f : 65535.0f;
  float c = v * maxv + 0.5f;
  c = c < maxv ? c : maxv;
  return (unsigned) c;
}

template <typename T> struct Px;
template <> struct Px<uint8_t> { typedef uchar4 type; };
template <> struct Px<uint16_t> { typedef ushort4 type; };

template <typename V>
__device__ __forceinline__ unsigned
pick (const V & p, int i)
{
  return i == 0 ? p.x : (i == 1 ? p.y : (i == 2 ? p.z : p.w));
}

template <typename V>
__device__ __forceinline__ void
put (V & p, int i, unsigned v)
{
  if (i == 0)
    p.x = v;
  else if (i == 1)
    p.y = v;
  else if (i == 2)
    p.z = v;
  else
    p.w = v;
}

template <typename T>
__device__ __forceinline__ float
dec (unsigned code, const CiFbFormat & f)
{
  if (sizeof (T) == 1 && f.srgb)
    return g_lut8[code];
  return ci_fb_decode (code, (int) sizeof (T), f.srgb);
}

template <typename T>
__device__ __forceinline__ typename Px<T>::type
load_px (const uint8_t * base, size_t pitch, int x, int y)
{
  typedef typename Px<T>::type V;
  return __ldg (reinterpret_cast<const V *> (base + (size_t) y * pitch) + x);
}

template <typename T>
__device__ __forceinline__ void
decode_rgb (const typename Px<T>::type & p, const CiFbFormat & f, float &r,
    float &g, float &b)
{
  r = dec<T> (pick (p, f.off_r), f);
  g = dec<T> (pick (p, f.off_g), f);
  b = dec<T> (pick (p, f.off_b), f);
}

/* Bright-pass averaged over the s x s block of low-res texel (i, j). */
template <typename T>
__device__ __forceinline__ void
bright_texel (const uint8_t * in, size_t pitch, int width, int height, int s,
    int i, int j, const CiFbFormat & f, const CiFbParams & prm, float (&acc)[3])
{
  acc[0] = acc[1] = acc[2] = 0.0f;
  int cnt = 0;
  for (int y = j * s; y < (j + 1) * s && y < height; y++)
    for (int x = i * s; x < (i + 1) * s && x < width; x++) {
      float r, g, b;
      decode_rgb<T> (load_px<T> (in, pitch, x, y), f, r, g, b);
      float k = ci_fb_bright_factor (r, g, b, prm.threshold, prm.knee);
      acc[0] += r * k;
      acc[1] += g * k;
      acc[2] += b * k;
      cnt++;
    }
  float inv = 1.0f / (float) cnt;
  acc[0] *= inv;
  acc[1] *= inv;
  acc[2] *= inv;
}

struct Geo
{
  int width, height, s, w, h, nx, ny;
  size_t np;                    /* nx * ny */
};

/* 1 (R2C): decode + bright + pad into 3 real planes; the whole grid is
 * written (zeros outside) because C2R reuses it as its output. */
template <typename T>
__global__ void
k_pre_r2c (const uint8_t * __restrict__ in, size_t pitch, Geo g, CiFbFormat f,
    CiFbParams prm, float *__restrict__ grid)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.nx || y >= g.ny)
    return;
  float acc[3] = { 0.0f, 0.0f, 0.0f };
  if (x < g.w && y < g.h)
    bright_texel<T> (in, pitch, g.width, g.height, g.s, x, y, f, prm, acc);
  size_t i = (size_t) y * g.nx + x;
  grid[i] = acc[0];
  grid[g.np + i] = acc[1];
  grid[2 * g.np + i] = acc[2];
}

/* 1 (PACKED): R + iG into plane 0, B + i0 into plane 1. */
template <typename T>
__global__ void
k_pre_packed (const uint8_t * __restrict__ in, size_t pitch, Geo g,
    CiFbFormat f, CiFbParams prm, float2 * __restrict__ z)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.nx || y >= g.ny)
    return;
  float acc[3] = { 0.0f, 0.0f, 0.0f };
  if (x < g.w && y < g.h)
    bright_texel<T> (in, pitch, g.width, g.height, g.s, x, y, f, prm, acc);
  size_t i = (size_t) y * g.nx + x;
  z[i] = make_float2 (acc[0], acc[1]);
  z[g.np + i] = make_float2 (acc[2], 0.0f);
}

__device__ __forceinline__ float2
cmul (float2 a, float2 b)
{
  return make_float2 (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__device__ __forceinline__ float2
conj2 (float2 a)
{
  return make_float2 (a.x, -a.y);
}

/* 3: spec[c] *= u[c or 0], planes of n elements. */
__global__ void
k_mul3 (float2 * __restrict__ spec, const float2 * __restrict__ u, size_t n,
    int kch, int planes)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float2 u0 = __ldg (u + i);
  for (int c = 0; c < planes; c++) {
    float2 uc = (kch == 1 || c == 0) ? u0 : __ldg (u + c * n + i);
    spec[c * n + i] = cmul (spec[c * n + i], uc);
  }
}

/* 3 (PACKED, RGB kernel): plane 0 holds Z = X + iY for two real signals.
 * X[k] = (Z[k] + Z*[-k]) / 2, Y[k] = (Z[k] - Z*[-k]) / 2i. Each thread owns
 * the pair (k, -k): it reads both and writes both, so no thread ever reads
 * an element another has already rewritten (the seed's race). The partner's
 * products follow by conjugation (X, Y and the kernel spectra are Hermitian).
 * Plane 1 (B + i0) is a plain product. */
__global__ void
k_mul_packed_rgb (float2 * __restrict__ z, const float2 * __restrict__ u,
    int nx, int ny)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y > ny / 2)
    return;
  size_t np = (size_t) nx * ny;
  int px = (nx - x) % nx, py = (ny - y) % ny;
  size_t a = (size_t) y * nx + x, b = (size_t) py * nx + px;
  if (y == py && x > px)
    return;                     /* the partner thread of this row owns the pair */
  /* plane 1 (B + i0): plain products; the pairs cover every element once */
  z[np + a] = cmul (z[np + a], __ldg (u + 2 * np + a));
  if (b != a)
    z[np + b] = cmul (z[np + b], __ldg (u + 2 * np + b));
  float2 za = z[a], zb = z[b];
  float2 zbc = conj2 (zb);
  float2 X = make_float2 (0.5f * (za.x + zbc.x), 0.5f * (za.y + zbc.y));
  /* (za - zbc) / 2i = -i/2 (za - zbc) */
  float2 d = make_float2 (za.x - zbc.x, za.y - zbc.y);
  float2 Y = make_float2 (0.5f * d.y, -0.5f * d.x);
  float2 Xp = cmul (X, __ldg (u + a));
  float2 Yp = cmul (Y, __ldg (u + np + a));
  /* Z' = X' + i Y' */
  z[a] = make_float2 (Xp.x - Yp.y, Xp.y + Yp.x);
  if (b != a) {
    float2 Xb = conj2 (Xp), Yb = conj2 (Yp);
    z[b] = make_float2 (Xb.x - Yb.y, Xb.y + Yb.x);
  }
}

/* 5: crop (+ bilinear upsample) + add + encode. Bloom read through L. */
struct BloomR2C
{
  const float *grid;
  size_t np;
  int nx;
  __device__ __forceinline__ void
  get (int x, int y, float (&v)[3]) const
  {
    size_t i = (size_t) y * nx + x;
    v[0] = grid[i];
    v[1] = grid[np + i];
    v[2] = grid[2 * np + i];
  }
};

struct BloomPacked
{
  const float2 *z;
  size_t np;
  int nx;
  __device__ __forceinline__ void
  get (int x, int y, float (&v)[3]) const
  {
    size_t i = (size_t) y * nx + x;
    float2 rg = z[i];
    v[0] = rg.x;
    v[1] = rg.y;
    v[2] = z[np + i].x;
  }
};

template <typename T, class L>
__global__ void
k_post (const uint8_t * __restrict__ in, size_t in_pitch,
    uint8_t * __restrict__ out, size_t out_pitch, Geo g, CiFbFormat f,
    CiFbParams prm, L bloom)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= g.width || y >= g.height)
    return;
  typedef typename Px<T>::type V;
  V p = load_px<T> (in, in_pitch, x, y);
  float rgb[3];
  decode_rgb<T> (p, f, rgb[0], rgb[1], rgb[2]);
  float bl[3];
  if (g.s == 1) {
    bloom.get (x, y, bl);
  } else {
    int x0, x1, y0, y1;
    float fx, fy;
    ci_fb_upsample_coord (x, g.s, g.w, &x0, &x1, &fx);
    ci_fb_upsample_coord (y, g.s, g.h, &y0, &y1, &fy);
    float a[3], b[3], c[3], d[3];
    bloom.get (x0, y0, a);
    bloom.get (x1, y0, b);
    bloom.get (x0, y1, c);
    bloom.get (x1, y1, d);
#pragma unroll
    for (int k = 0; k < 3; k++) {
      float top = a[k] * (1.0f - fx) + b[k] * fx;
      float bot = c[k] * (1.0f - fx) + d[k] * fx;
      bl[k] = top * (1.0f - fy) + bot * fy;
    }
  }
  const int bytes = (int) sizeof (T);
  put (p, f.off_r, encode (rgb[0] + prm.intensity * bl[0], bytes, f.srgb));
  put (p, f.off_g, encode (rgb[1] + prm.intensity * bl[1], bytes, f.srgb));
  put (p, f.off_b, encode (rgb[2] + prm.intensity * bl[2], bytes, f.srgb));
  reinterpret_cast<V *> (out + (size_t) y * out_pitch)[x] = p;
}

/* ---- naive baseline: one job per kernel ---- */

template <typename T>
__global__ void
k_naive_decode (const uint8_t * __restrict__ in, size_t pitch, int width,
    int height, CiFbFormat f, float4 * __restrict__ lin)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  float r, g, b;
  decode_rgb<T> (load_px<T> (in, pitch, x, y), f, r, g, b);
  lin[(size_t) y * width + x] = make_float4 (r, g, b, 0.0f);
}

__global__ void
k_naive_bright (const float4 * __restrict__ lin, float4 * __restrict__ out,
    size_t n, CiFbParams prm)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 v = lin[i];
  float k = ci_fb_bright_factor (v.x, v.y, v.z, prm.threshold, prm.knee);
  out[i] = make_float4 (v.x * k, v.y * k, v.z * k, 0.0f);
}

__global__ void
k_naive_pad (const float4 * __restrict__ img, int width, int height, int c,
    float2 * __restrict__ z, int nx, int ny)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny)
    return;
  float v = 0.0f;
  if (x < width && y < height) {
    float4 p = img[(size_t) y * width + x];
    v = c == 0 ? p.x : (c == 1 ? p.y : p.z);
  }
  z[(size_t) y * nx + x] = make_float2 (v, 0.0f);
}

__global__ void
k_naive_mul (float2 * __restrict__ z, const float2 * __restrict__ u, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = cmul (z[i], u[i]);
}

__global__ void
k_naive_crop (const float2 * __restrict__ z, size_t np, int nx, int width,
    int height, float4 * __restrict__ bloom)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  size_t i = (size_t) y * nx + x;
  bloom[(size_t) y * width + x] =
      make_float4 (z[i].x, z[np + i].x, z[2 * np + i].x, 0.0f);
}

__global__ void
k_naive_add (float4 * __restrict__ lin, const float4 * __restrict__ bloom,
    size_t n, float intensity)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float4 a = lin[i], b = bloom[i];
  lin[i] = make_float4 (a.x + intensity * b.x, a.y + intensity * b.y,
      a.z + intensity * b.z, 0.0f);
}

template <typename T>
__global__ void
k_naive_encode (const float4 * __restrict__ lin, const uint8_t * __restrict__ in,
    size_t in_pitch, uint8_t * __restrict__ out, size_t out_pitch, int width,
    int height, CiFbFormat f)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  typedef typename Px<T>::type V;
  V p = load_px<T> (in, in_pitch, x, y);
  float4 v = lin[(size_t) y * width + x];
  const int bytes = (int) sizeof (T);
  put (p, f.off_r, encode (v.x, bytes, f.srgb));
  put (p, f.off_g, encode (v.y, bytes, f.srgb));
  put (p, f.off_b, encode (v.z, bytes, f.srgb));
  reinterpret_cast<V *> (out + (size_t) y * out_pitch)[x] = p;
}

/* ---- kernel spectrum ---- */

/* Kernel plane c -> grid with its centre at the origin, wrapped around.
 * Real planes (R2C) or the real part of complex planes. */
__global__ void
k_scatter_kernel (const float *__restrict__ k, int kw, int kh, int cx, int cy,
    float *grid_real, float2 * grid_cplx, int nx, int ny)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= kw || y >= kh)
    return;
  int gx = ((x - cx) % nx + nx) % nx, gy = ((y - cy) % ny + ny) % ny;
  float v = k[(size_t) y * kw + x];
  size_t i = (size_t) gy * nx + gx;
  if (grid_real)
    grid_real[i] = v;
  else
    grid_cplx[i] = make_float2 (v, 0.0f);
}

__global__ void
k_scale_copy (const float2 * __restrict__ src, float2 * __restrict__ dst,
    size_t n, float s)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float2 v = src[i];
    dst[i] = make_float2 (v.x * s, v.y * s);
  }
}

inline dim3
grid2 (int w, int h, dim3 b)
{
  return dim3 ((w + b.x - 1) / b.x, (h + b.y - 1) / b.y);
}

inline unsigned
grid1 (size_t n, unsigned b)
{
  return (unsigned) ((n + b - 1) / b);
}

}                               /* namespace */

static void
free_buffers (CiFbCuda * c)
{
  if (c->have_fwd)
    cufftDestroy (c->fwd);
  if (c->have_inv)
    cufftDestroy (c->inv);
  c->have_fwd = c->have_inv = 0;
  cudaFree (c->grid);
  cudaFree (c->spec);
  cudaFree (c->kspec);
  cudaFree (c->lin);
  cudaFree (c->tmp);
  c->grid = NULL;
  c->spec = c->kspec = NULL;
  c->lin = c->tmp = NULL;
  c->nx = c->ny = 0;
}

extern "C" int
ci_fb_cuda_create (CiFbCuda ** out, CiFbMode mode)
{
  CiFbCuda *c = (CiFbCuda *) calloc (1, sizeof *c);
  if (!c)
    return (int) cudaErrorMemoryAllocation;
  c->mode = mode;
  *out = c;
  return 0;
}

extern "C" void
ci_fb_cuda_destroy (CiFbCuda * c)
{
  if (!c)
    return;
  free_buffers (c);
  free (c);
}

extern "C" void
ci_fb_cuda_grid (const CiFbCuda * c, int *nx, int *ny)
{
  *nx = c->nx;
  *ny = c->ny;
}

static int
alloc_grid (CiFbCuda * c, int nx, int ny, int kch, int width, int height)
{
  size_t np = (size_t) nx * ny, ncp = (size_t) (nx / 2 + 1) * ny;
  int n[2] = { ny, nx };
  switch (c->mode) {
    case CI_FB_MODE_R2C:
    case CI_FB_MODE_R2C_SEQ:{
      int batch = c->mode == CI_FB_MODE_R2C ? 3 : 1;
      CHECK (cudaMalloc (&c->grid, 3 * np * sizeof (float)));
      CHECK (cudaMalloc (&c->spec, 3 * ncp * sizeof (cufftComplex)));
      CHECK (cudaMalloc (&c->kspec, kch * ncp * sizeof (cufftComplex)));
      CHECK_FFT (cufftPlanMany (&c->fwd, 2, n, NULL, 1, (int) np, NULL, 1,
              (int) ncp, CUFFT_R2C, batch));
      c->have_fwd = 1;
      CHECK_FFT (cufftPlanMany (&c->inv, 2, n, NULL, 1, (int) ncp, NULL, 1,
              (int) np, CUFFT_C2R, batch));
      c->have_inv = 1;
      break;
    }
    case CI_FB_MODE_PACKED:
      CHECK (cudaMalloc (&c->spec, 2 * np * sizeof (cufftComplex)));
      CHECK (cudaMalloc (&c->kspec, kch * np * sizeof (cufftComplex)));
      CHECK_FFT (cufftPlanMany (&c->fwd, 2, n, NULL, 1, (int) np, NULL, 1,
              (int) np, CUFFT_C2C, 2));
      c->have_fwd = 1;
      break;
    case CI_FB_MODE_NAIVE:
      CHECK (cudaMalloc (&c->spec, 3 * np * sizeof (cufftComplex)));
      CHECK (cudaMalloc (&c->kspec, kch * np * sizeof (cufftComplex)));
      CHECK (cudaMalloc (&c->lin, (size_t) width * height * sizeof (float4)));
      CHECK (cudaMalloc (&c->tmp, (size_t) width * height * sizeof (float4)));
      CHECK_FFT (cufftPlan2d (&c->fwd, ny, nx, CUFFT_C2C));
      c->have_fwd = 1;
      break;
    default:
      return (int) cudaErrorInvalidValue;
  }
  c->nx = nx;
  c->ny = ny;
  c->nxc = nx / 2 + 1;
  c->kch = kch;
  return 0;
}

extern "C" int
ci_fb_cuda_set_kernel (CiFbCuda * c, const CiFbKernel * k, int width,
    int height, int scale, ci_stream_t stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  if (!k || !k->data || width < 1 || height < 1
      || (scale != 1 && scale != 2 && scale != 4)
      || (k->channels != 1 && k->channels != 3)
      || (c->mode == CI_FB_MODE_NAIVE && scale != 1))
    return (int) cudaErrorInvalidValue;
  if (!c->lut_ready) {
    k_init_lut <<< 1, 256, 0, st >>> ();
    CHECK_LAUNCH ();
    c->lut_ready = 1;
  }
  int w = ci_fb_scaled (width, scale), h = ci_fb_scaled (height, scale);
  int nx = ci_fb_grid_size (w, k->width, k->cx);
  int ny = ci_fb_grid_size (h, k->height, k->cy);
  if (nx != c->nx || ny != c->ny || k->channels != c->kch
      || (c->mode == CI_FB_MODE_NAIVE && (width != c->width
              || height != c->height))) {
    /* buffers may still be in use by queued work */
    CHECK (cudaStreamSynchronize (st));
    free_buffers (c);
    int err = alloc_grid (c, nx, ny, k->channels, width, height);
    if (err) {
      free_buffers (c);
      return err;
    }
  }
  c->width = width;
  c->height = height;
  c->scale = scale;
  c->w = w;
  c->h = h;

  size_t np = (size_t) nx * ny, ncp = (size_t) c->nxc * ny;
  size_t kn = (size_t) k->width * k->height;
  float *dk = NULL;
  CHECK (cudaMallocAsync (&dk, kn * k->channels * sizeof (float), st));
  int err = 0;
  dim3 b (32, 8);
  float norm = 1.0f / (float) np;
  err = (int) cudaMemcpyAsync (dk, k->data, kn * k->channels * sizeof (float),
      cudaMemcpyHostToDevice, st);
  if (err)
    goto done;
  if (c->mode == CI_FB_MODE_R2C || c->mode == CI_FB_MODE_R2C_SEQ) {
    int batch = c->mode == CI_FB_MODE_R2C ? 3 : 1;
    err = (int) cudaMemsetAsync (c->grid, 0, 3 * np * sizeof (float), st);
    for (int ch = 0; ch < k->channels && !err; ch++) {
      k_scatter_kernel <<< grid2 (k->width, k->height, b), b, 0, st >>> (dk +
          ch * kn, k->width, k->height, k->cx, k->cy, c->grid + ch * np, NULL,
          nx, ny);
      err = (int) cudaGetLastError ();
    }
    if (!err && cufftSetStream (c->fwd, st) != CUFFT_SUCCESS)
      err = (int) cudaErrorUnknown;
    for (int ch = 0; ch < k->channels && !err; ch += batch)
      if (cufftExecR2C (c->fwd, c->grid + ch * np, c->spec + ch * ncp)
          != CUFFT_SUCCESS)
        err = (int) cudaErrorUnknown;
    if (!err) {
      k_scale_copy <<< grid1 (k->channels * ncp, 256), 256, 0, st >>> ((float2
              *) c->spec, (float2 *) c->kspec, k->channels * ncp, norm);
      err = (int) cudaGetLastError ();
    }
  } else {
    /* complex planes, one kernel channel at a time through plane 0 (and 1) */
    int per = c->mode == CI_FB_MODE_PACKED ? 2 : 1;
    for (int ch = 0; ch < k->channels && !err; ch += per) {
      err = (int) cudaMemsetAsync (c->spec, 0, per * np * sizeof (float2), st);
      for (int q = 0; q < per && ch + q < k->channels && !err; q++) {
        k_scatter_kernel <<< grid2 (k->width, k->height, b), b, 0, st >>> (dk +
            (ch + q) * kn, k->width, k->height, k->cx, k->cy, NULL,
            (float2 *) c->spec + q * np, nx, ny);
        err = (int) cudaGetLastError ();
      }
      if (!err && cufftSetStream (c->fwd, st) != CUFFT_SUCCESS)
        err = (int) cudaErrorUnknown;
      if (!err && cufftExecC2C (c->fwd, c->spec, c->spec,
              CUFFT_FORWARD) != CUFFT_SUCCESS)
        err = (int) cudaErrorUnknown;
      int cnt = k->channels - ch < per ? k->channels - ch : per;
      if (!err) {
        k_scale_copy <<< grid1 (cnt * np, 256), 256, 0, st >>> ((float2 *)
            c->spec, (float2 *) c->kspec + ch * np, cnt * np, norm);
        err = (int) cudaGetLastError ();
      }
    }
  }
done:
  {
    int e2 = (int) cudaFreeAsync (dk, st);
    return err ? err : e2;
  }
}

template <typename T>
static int
process_t (CiFbCuda * c, const uint8_t * in, size_t in_pitch, uint8_t * out,
    size_t out_pitch, const CiFbFormat & f, const CiFbParams & p,
    cudaStream_t st)
{
  Geo g;
  g.width = c->width;
  g.height = c->height;
  g.s = c->scale;
  g.w = c->w;
  g.h = c->h;
  g.nx = c->nx;
  g.ny = c->ny;
  g.np = (size_t) c->nx * c->ny;
  dim3 b (32, 8);
  size_t ncp = (size_t) c->nxc * c->ny;

  switch (c->mode) {
    case CI_FB_MODE_R2C:{
      k_pre_r2c<T> <<< grid2 (g.nx, g.ny, b), b, 0, st >>> (in, in_pitch, g, f,
          p, c->grid);
      CHECK_LAUNCH ();
      CHECK_FFT (cufftSetStream (c->fwd, st));
      CHECK_FFT (cufftExecR2C (c->fwd, c->grid, c->spec));
      k_mul3 <<< grid1 (ncp, 256), 256, 0, st >>> ((float2 *) c->spec,
          (const float2 *) c->kspec, ncp, c->kch, 3);
      CHECK_LAUNCH ();
      CHECK_FFT (cufftSetStream (c->inv, st));
      CHECK_FFT (cufftExecC2R (c->inv, c->spec, c->grid));
      BloomR2C L = { c->grid, g.np, g.nx };
      k_post<T, BloomR2C> <<< grid2 (g.width, g.height, b), b, 0, st >>> (in,
          in_pitch, out, out_pitch, g, f, p, L);
      CHECK_LAUNCH ();
      break;
    }
    case CI_FB_MODE_R2C_SEQ:{
      k_pre_r2c<T> <<< grid2 (g.nx, g.ny, b), b, 0, st >>> (in, in_pitch, g, f,
          p, c->grid);
      CHECK_LAUNCH ();
      CHECK_FFT (cufftSetStream (c->fwd, st));
      CHECK_FFT (cufftSetStream (c->inv, st));
      for (int ch = 0; ch < 3; ch++) {
        CHECK_FFT (cufftExecR2C (c->fwd, c->grid + ch * g.np,
                c->spec + ch * ncp));
        k_mul3 <<< grid1 (ncp, 256), 256, 0, st >>> ((float2 *) c->spec +
            ch * ncp, (const float2 *) c->kspec + (c->kch == 3 ? ch : 0) * ncp,
            ncp, 1, 1);
        CHECK_LAUNCH ();
        CHECK_FFT (cufftExecC2R (c->inv, c->spec + ch * ncp,
                c->grid + ch * g.np));
      }
      BloomR2C L = { c->grid, g.np, g.nx };
      k_post<T, BloomR2C> <<< grid2 (g.width, g.height, b), b, 0, st >>> (in,
          in_pitch, out, out_pitch, g, f, p, L);
      CHECK_LAUNCH ();
      break;
    }
    case CI_FB_MODE_PACKED:{
      float2 *z = (float2 *) c->spec;
      k_pre_packed<T> <<< grid2 (g.nx, g.ny, b), b, 0, st >>> (in, in_pitch, g,
          f, p, z);
      CHECK_LAUNCH ();
      CHECK_FFT (cufftSetStream (c->fwd, st));
      CHECK_FFT (cufftExecC2C (c->fwd, c->spec, c->spec, CUFFT_FORWARD));
      if (c->kch == 1) {
        /* grey kernel: Z' = Z U for the pair, no split (seed's shortcut) */
        k_mul3 <<< grid1 (g.np, 256), 256, 0, st >>> (z,
            (const float2 *) c->kspec, g.np, 1, 2);
      } else {
        k_mul_packed_rgb <<< grid2 (g.nx, g.ny / 2 + 1, b), b, 0, st >>> (z,
            (const float2 *) c->kspec, g.nx, g.ny);
      }
      CHECK_LAUNCH ();
      CHECK_FFT (cufftExecC2C (c->fwd, c->spec, c->spec, CUFFT_INVERSE));
      BloomPacked L = { z, g.np, g.nx };
      k_post<T, BloomPacked> <<< grid2 (g.width, g.height, b), b, 0, st >>> (in,
          in_pitch, out, out_pitch, g, f, p, L);
      CHECK_LAUNCH ();
      break;
    }
    case CI_FB_MODE_NAIVE:{
      size_t n = (size_t) g.width * g.height;
      float2 *z = (float2 *) c->spec;
      k_naive_decode<T> <<< grid2 (g.width, g.height, b), b, 0, st >>> (in,
          in_pitch, g.width, g.height, f, c->lin);
      CHECK_LAUNCH ();
      k_naive_bright <<< grid1 (n, 256), 256, 0, st >>> (c->lin, c->tmp, n, p);
      CHECK_LAUNCH ();
      CHECK_FFT (cufftSetStream (c->fwd, st));
      for (int ch = 0; ch < 3; ch++) {
        float2 *zc = z + ch * g.np;
        k_naive_pad <<< grid2 (g.nx, g.ny, b), b, 0, st >>> (c->tmp, g.width,
            g.height, ch, zc, g.nx, g.ny);
        CHECK_LAUNCH ();
        CHECK_FFT (cufftExecC2C (c->fwd, (cufftComplex *) zc,
                (cufftComplex *) zc, CUFFT_FORWARD));
        k_naive_mul <<< grid1 (g.np, 256), 256, 0, st >>> (zc,
            (const float2 *) c->kspec + (c->kch == 3 ? ch : 0) * g.np, g.np);
        CHECK_LAUNCH ();
        CHECK_FFT (cufftExecC2C (c->fwd, (cufftComplex *) zc,
                (cufftComplex *) zc, CUFFT_INVERSE));
      }
      k_naive_crop <<< grid2 (g.width, g.height, b), b, 0, st >>> (z, g.np,
          g.nx, g.width, g.height, c->tmp);
      CHECK_LAUNCH ();
      k_naive_add <<< grid1 (n, 256), 256, 0, st >>> (c->lin, c->tmp, n,
          p.intensity);
      CHECK_LAUNCH ();
      k_naive_encode<T> <<< grid2 (g.width, g.height, b), b, 0, st >>> (c->lin,
          in, in_pitch, out, out_pitch, g.width, g.height, f);
      CHECK_LAUNCH ();
      break;
    }
    default:
      return (int) cudaErrorInvalidValue;
  }
  return 0;
}

extern "C" int
ci_fb_cuda_process (CiFbCuda * c, const void *in, size_t in_pitch, void *out,
    size_t out_pitch, const CiFbFormat * f, const CiFbParams * p,
    ci_stream_t stream)
{
  if (!c || !c->nx || !f || !p || (f->bytes_per_sample != 1
          && f->bytes_per_sample != 2))
    return (int) cudaErrorInvalidValue;
  if (f->bytes_per_sample == 1)
    return process_t<uint8_t> (c, (const uint8_t *) in, in_pitch,
        (uint8_t *) out, out_pitch, *f, *p, (cudaStream_t) stream);
  return process_t<uint16_t> (c, (const uint8_t *) in, in_pitch,
      (uint8_t *) out, out_pitch, *f, *p, (cudaStream_t) stream);
}
