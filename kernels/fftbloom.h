/* Convolution bloom through cuFFT.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cicuda.h"
#include "fftbloom_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the three colour channels go through the FFTs.
 * R2C: one batched (x3) real-to-complex plan, fused pre/post kernels (default).
 * PACKED: the seed's two real channels per complex transform (R + iG, B),
 *   split/merge of the symmetric pair Z[k], Z[-k] done by one thread.
 * NAIVE: the baseline: one C2C per channel, separate decode, bright-pass,
 *   pad, multiply, crop, add and encode kernels. */
typedef enum
{
  CI_FB_MODE_R2C = 0,
  CI_FB_MODE_PACKED = 1,
  CI_FB_MODE_NAIVE = 2,
  /* R2C with batch-1 plans run channel after channel (R2C, multiply, C2R),
   * so one channel's working set stays in L2 between the steps. */
  CI_FB_MODE_R2C_SEQ = 3,
  /* R2C with the pre / multiply / post passes moved into cuFFT LTO
   * callbacks (falls back to CI_FB_MODE_R2C's kernels where cuFFT refuses
   * them). Correct but measured 2.6-2.8x slower on an H200, CUDA 13.0. */
  CI_FB_MODE_R2C_CB = 4,
  /* Our own mixed-radix FFTs in shared memory, three passes: rows forward
   * (decode + bright-pass + FFT), columns (FFT, multiply, inverse FFT), rows
   * inverse (+ add + encode). Grids too large for the device's shared
   * memory run CI_FB_MODE_R2C instead (ci_fb_cuda_fused says which). */
  CI_FB_MODE_FUSED = 5
} CiFbMode;

typedef struct CiFbCuda CiFbCuda;

/* Context with the element's CUDA context current. Returns a cudaError_t. */
int ci_fb_cuda_create (CiFbCuda ** out, CiFbMode mode);
void ci_fb_cuda_destroy (CiFbCuda * ctx);
/* Whether a frame of width x height with kernel k at divisor scale fits the
 * 32-bit FFT grid (ci_fb_cuda_set_kernel refuses those that do not). */
int ci_fb_cuda_frame_fits (const CiFbKernel * k, int width, int height,
    int scale);
/* (Re)plans the grid for a width x height frame at divisor scale (1, 2, 4),
 * uploads the kernel (host memory) and computes its spectrum on `stream`.
 * Buffers and plans are only reallocated when the grid changes. */
int ci_fb_cuda_set_kernel (CiFbCuda * ctx, const CiFbKernel * k, int width,
    int height, int scale, ci_stream_t stream);
void ci_fb_cuda_grid (const CiFbCuda * ctx, int *nx, int *ny);
/* Which LTO callbacks the context's plans carry (CI_FB_MODE_R2C_CB), a mask:
 * 1 = R2C load (decode + bright pass), 2 = R2C store (spectrum multiply),
 * 4 = C2R store (crop + add + encode; full resolution only); 0 = none, the
 * separate kernels run instead. */
int ci_fb_cuda_callbacks (const CiFbCuda * ctx);
/* 1 when CI_FB_MODE_FUSED's shared-memory path runs for the current grid. */
int ci_fb_cuda_fused (const CiFbCuda * ctx);
/* Benchmarks only: force the FFT grid (0, 0 = the rule's choice). Must be at
 * least the size the rule needs; applies at the next ci_fb_cuda_set_kernel. */
void ci_fb_cuda_force_grid (CiFbCuda * ctx, int nx, int ny);
/* One frame, device pointers, enqueued on `stream`. in and out may not overlap. */
int ci_fb_cuda_process (CiFbCuda * ctx, const void *in, size_t in_pitch,
    void *out, size_t out_pitch, const CiFbFormat * fmt,
    const CiFbParams * p, ci_stream_t stream);

#ifdef __cplusplus
}
#endif
