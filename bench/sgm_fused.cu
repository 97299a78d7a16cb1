/* bench-sgm-fused: an experiment towards the 4K goal of docs/sgm.md, not
 * used by the elements. The three downward SGM directions (0,+1), (+1,+1)
 * and (-1,+1) in one kernel that fetches each cost once and writes their
 * uint16 sum (D = 256), checked element by element against the sum of the
 * three u8 passes of kernels/sgm.cu, and timed against them. Blocks own
 * strips of NC columns (a warp per column), step row by row with one
 * barrier per row (diagonal states go to the neighbouring warp through
 * shared memory) and hand their edge states to the neighbouring blocks
 * through global memory each row (all blocks co-resident: a cooperative
 * launch). "Without the waits" skips those hand-overs (wrong at the strip
 * edges): the time a halo scheme would approach. H200, 2026-11-22: bit-exact,
 * but 2.5x slower than the three passes on three streams at 1080p and 2.1x
 * at 4K, and still 2.1x and 1.2x slower without the waits: the row barrier
 * keeps every warp in step, so the SM cannot hide one row's dependent chain
 * behind another line's, as the free-running passes do (docs/sgm.md).
 * Superseded by kernels/sgm.cu's sweeps (docs/sgm.md step 15): warps of
 * several columns that hand their diagonal states over through tagged
 * words, without barriers; kept as the record of this first attempt.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <vector>
#include <algorithm>
#include "sgm.h"

#ifndef NC
#define NC 32
#endif
#define FULL 0xffffffffu
#define CK(x) do { cudaError_t e_ = (cudaError_t) (x); if (e_ != cudaSuccess) { \
  printf ("CUDA %s at %d\n", cudaGetErrorString (e_), __LINE__); exit (1); } } while (0)

__device__ __forceinline__ void
step4 (uint32_t (&P)[4], uint32_t up, uint32_t dn, uint32_t pmin, uint32_t p1x2,
    uint32_t p2x2, const uint32_t (&C2)[4])
{
  const uint32_t pm2 = pmin * 0x10001u;
  const uint32_t lim = __vadd2 (pm2, p2x2);
  uint32_t NP[4];
#pragma unroll
  for (int j = 0; j < 4; j++) {
    const uint32_t lo = __byte_perm (j > 0 ? P[j - 1] : up, P[j], 0x5432);
    const uint32_t hi = __byte_perm (P[j], j < 3 ? P[j + 1] : dn, 0x5432);
    uint32_t m = __vadd2 (__vminu2 (lo, hi), p1x2);
    m = __vminu2 (__vminu2 (m, P[j]), lim);
    NP[j] = __vadd2 (__vsub2 (m, pm2), C2[j]);
  }
#pragma unroll
  for (int j = 0; j < 4; j++)
    P[j] = NP[j];
}

__device__ __forceinline__ uint32_t
pmin_of (const uint32_t (&P)[4])
{
  uint32_t mm = __vminu2 (__vminu2 (P[0], P[1]), __vminu2 (P[2], P[3]));
  mm = min (mm & 0xffffu, mm >> 16);
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync (FULL, mm);
#else
  for (int o = 16; o > 0; o >>= 1)
    mm = min (mm, __shfl_xor_sync (FULL, mm, o));
  return mm;
#endif
}

// one step of a path whose previous state is P (pmin recomputed)
__device__ __forceinline__ void
advance (uint32_t (&P)[4], int lane, uint32_t p1x2, uint32_t p2x2,
    const uint32_t (&C2)[4])
{
  const uint32_t pm = pmin_of (P);
  uint32_t up = __shfl_up_sync (FULL, P[3], 1);
  uint32_t dn = __shfl_down_sync (FULL, P[0], 1);
  if (lane == 0)
    up = 0x7fff7fffu;
  if (lane == 31)
    dn = 0x7fff7fffu;
  step4 (P, up, dn, pm, p1x2, p2x2, C2);
}

__device__ __forceinline__ int
ld_acquire (const int *p)
{
  int v;
  asm volatile ("ld.acquire.gpu.global.s32 %0, [%1];" : "=r" (v) : "l" (p) : "memory");
  return v;
}

__device__ __forceinline__ void
st_release (int *p, int v)
{
  asm volatile ("st.release.gpu.global.s32 [%0], %1;" :: "l" (p), "r" (v) : "memory");
}

__global__ void __launch_bounds__ (NC * 32, 1024 / (NC * 32))
fused_down (const uint8_t * __restrict__ cost, uint16_t * __restrict__ sum,
    int W, int H, uint32_t p1x2, uint32_t p2x2, uint4 * gR, uint4 * gL,
    int *flags, int nowait)
{
  extern __shared__ uint4 sm[];
  uint4 *sR = sm, *sL = sm + 2 * NC * 32;       // [parity][warp][lane]
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int b = blockIdx.x;
  const int x = b * NC + w;
  const bool colok = x < W;
  uint32_t V[4], R[4], L[4];
  const uint2 *cp = (const uint2 *) (cost + (size_t) x * 256 + lane * 8);
  const size_t rowstep = (size_t) W * 256 / 8;
  uint2 nx8 = make_uint2 (0u, 0u), nn8 = make_uint2 (0u, 0u);
  if (colok) {
    nx8 = __ldcs (cp);
    if (H > 1)
      nn8 = __ldcs (cp + rowstep);
  }
  for (int y = 0; y < H; y++) {
    const int par = y & 1, ppar = par ^ 1;
    const uint2 c8 = nx8;         /* two rows of prefetch */
    nx8 = nn8;
    if (colok && y + 2 < H)
      nn8 = __ldcs (cp + (size_t) (y + 2) * rowstep);
    uint32_t C2[4];
    C2[0] = __byte_perm (c8.x, 0u, 0x4140);
    C2[1] = __byte_perm (c8.x, 0u, 0x4342);
    C2[2] = __byte_perm (c8.y, 0u, 0x4140);
    C2[3] = __byte_perm (c8.y, 0u, 0x4342);
    if (y == 0) {
#pragma unroll
      for (int j = 0; j < 4; j++)
        V[j] = R[j] = L[j] = C2[j];
    } else {
      advance (V, lane, p1x2, p2x2, C2);
      /* a diagonal's state comes from column x + dx at row y - 1: the
       * neighbouring warp (shared memory), the neighbouring block (global
       * memory, once its flag says row y - 1 is there), or a fresh line */
      auto diag = [&](uint32_t (&P)[4], int dx, const uint4 * sbuf,
          const uint4 * gbuf) {
        const int wn = w + dx, bn = b + dx;
        if (x + dx < 0 || x + dx >= W) {
#pragma unroll
          for (int j = 0; j < 4; j++)
            P[j] = C2[j];
          return;
        }
        uint4 v;
        if (wn >= 0 && wn < NC)
          v = sbuf[(ppar * NC + wn) * 32 + lane];
        else {
          if (lane == 0 && !nowait)
            while (ld_acquire (flags + bn) < y - 1);
          __syncwarp ();
          v = __ldcg (gbuf + ((size_t) bn * 2 + ppar) * 32 + lane);
        }
        P[0] = v.x; P[1] = v.y; P[2] = v.z; P[3] = v.w;
        advance (P, lane, p1x2, p2x2, C2);
      };
      diag (R, -1, sR, gR);     /* direction (+1,+1) */
      diag (L, +1, sL, gL);     /* direction (-1,+1) */
    }
    if (colok) {
      uint4 s;
      s.x = V[0] + R[0] + L[0];
      s.y = V[1] + R[1] + L[1];
      s.z = V[2] + R[2] + L[2];
      s.w = V[3] + R[3] + L[3];
      __stcs ((uint4 *) (sum + ((size_t) y * W + x) * 256 + lane * 8), s);
    }
    sR[(par * NC + w) * 32 + lane] = make_uint4 (R[0], R[1], R[2], R[3]);
    sL[(par * NC + w) * 32 + lane] = make_uint4 (L[0], L[1], L[2], L[3]);
    if (w == NC - 1) {
      __stcg (gR + ((size_t) b * 2 + par) * 32 + lane, make_uint4 (R[0], R[1], R[2], R[3]));
      __threadfence ();
    }
    if (w == 0) {
      __stcg (gL + ((size_t) b * 2 + par) * 32 + lane, make_uint4 (L[0], L[1], L[2], L[3]));
      __threadfence ();
    }
    __syncthreads ();
    if (threadIdx.x == 0)
      st_release (flags + b, y);
  }
}

// mismatches of sum against a + b + c (u8 volumes)
__global__ void
compare (const uint16_t * s, const uint8_t * a, const uint8_t * b,
    const uint8_t * c, size_t n, unsigned long long *bad)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x)
    if (s[i] != (uint16_t) (a[i] + b[i] + c[i]))
      atomicAdd (bad, 1ull);
}

static float
median (std::vector < float >v)
{
  std::sort (v.begin (), v.end ());
  return v[v.size () / 2];
}

int
main (void)
{
  int ndev = 0;
  if (cudaGetDeviceCount (&ndev) != cudaSuccess || ndev == 0) {
    printf ("no CUDA device\n");
    return 77;
  }
  const int sizes[2][2] = { {1920, 1080}, {3840, 2160} };
  cudaStream_t st[3];
  for (int i = 0; i < 3; i++)
    CK (cudaStreamCreateWithFlags (&st[i], cudaStreamNonBlocking));
  cudaEvent_t e0, e1, ej[3];
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  for (int i = 0; i < 3; i++)
    CK (cudaEventCreate (&ej[i]));
  for (int si = 0; si < 2; si++) {
    const int W = sizes[si][0], H = sizes[si][1], D = 256;
    SgmParams p;
    memset (&p, 0, sizeof p);
    p.width = W; p.height = H; p.num_disp = D; p.p1 = 20; p.p2 = 90;
    p.paths = 8; p.census = 0; p.uniqueness = 95; p.lr_max_diff = -1;
    const size_t n = (size_t) W * H, nv = n * 256;
    std::vector < uint8_t > img (2 * n);
    uint64_t r = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
      r ^= r << 13; r ^= r >> 7; r ^= r << 17;
      img[i] = (uint8_t) r;
    }
    for (int y = 0; y < H; y++)       // right view: left shifted by 40 px + noise
      for (int x = 0; x < W; x++) {
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        int xs = x + 40 < W ? x + 40 : x;
        img[n + (size_t) y * W + x] = (uint8_t) (img[(size_t) y * W + xs] + (r & 7));
      }
    uint8_t *dimg, *cost, *vols;
    uint64_t *cl, *cr;
    uint16_t *sum;
    CK (cudaMalloc (&dimg, 2 * n));
    CK (cudaMemcpy (dimg, img.data (), 2 * n, cudaMemcpyHostToDevice));
    CK (cudaMalloc (&cl, n * 8));
    CK (cudaMalloc (&cr, n * 8));
    CK (cudaMalloc (&cost, nv));
    CK (cudaMalloc (&vols, 3 * nv));
    CK (cudaMalloc (&sum, nv * 2));
    SgmLuma luma = { SGM_LUMA_GRAY8, 1, 0, 0, 0 };
    CK (sgm_cuda_census (dimg, W, dimg + n, W, luma, W, H, 0, cl, cr, 0));
    CK (sgm_cuda_cost_volume (cl, cr, &p, cost, 0));
    const int nb = (W + NC - 1) / NC;
    uint4 *gR, *gL;
    int *flags;
    CK (cudaMalloc (&gR, (size_t) nb * 2 * 32 * 16));
    CK (cudaMalloc (&gL, (size_t) nb * 2 * 32 * 16));
    CK (cudaMalloc (&flags, nb * 4));
    const size_t smem = 4 * NC * 32 * 16;
    CK (cudaFuncSetAttribute (fused_down, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
    int per_sm = 0, nsm = 0;
    CK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, fused_down, NC * 32, smem));
    CK (cudaDeviceGetAttribute (&nsm, cudaDevAttrMultiProcessorCount, 0));
    uint32_t p1x2 = 20u * 0x10001u, p2x2 = 90u * 0x10001u;
    int Wv = W, Hv = H;
    int nowait = 0;
    void *args[] = { &cost, &sum, &Wv, &Hv, &p1x2, &p2x2, &gR, &gL, &flags, &nowait };
    auto fused = [&](cudaStream_t s) {
      CK (cudaMemsetAsync (flags, 0xff, nb * 4, s));
      CK (cudaLaunchCooperativeKernel ((void *) fused_down, nb, NC * 32, args, smem, s));
    };
    const int dirs[3] = { 2, 4, 5 };
    auto three = [&](bool conc) {
      for (int i = 0; i < 3; i++)
        CK (sgm_cuda_aggregate_path_u8 (cost, &p, dirs[i], vols + i * nv,
                conc ? (ci_stream_t) st[i] : (ci_stream_t) 0));
    };
    // correctness
    fused (0);
    three (false);
    CK (cudaDeviceSynchronize ());
    unsigned long long *dbad, hbad = 0;
    CK (cudaMalloc (&dbad, 8));
    CK (cudaMemset (dbad, 0, 8));
    compare <<< 1024, 256 >>> (sum, vols, vols + nv, vols + 2 * nv, nv, dbad);
    CK (cudaMemcpy (&hbad, dbad, 8, cudaMemcpyDeviceToHost));
    // timing
    std::vector < float >tf, ts, tc, tn;
    /* the work @run queues behind e0 on stream 0 (side streams join back) */
    auto timed = [&](auto run, std::vector < float >&out, bool keep) {
      float ms;
      CK (cudaEventRecord (e0, 0));
      run ();
      CK (cudaEventRecord (e1, 0));
      CK (cudaEventSynchronize (e1));
      CK (cudaEventElapsedTime (&ms, e0, e1));
      if (keep)
        out.push_back (ms);
    };
    for (int it = 0; it < 23; it++) {
      const bool keep = it >= 3;
      timed ([&] { nowait = 0; fused (0); }, tf, keep);
      timed ([&] { nowait = 1; fused (0); }, tn, keep);
      nowait = 0;
      timed ([&] { three (false); }, ts, keep);
      timed ([&] {
            for (int i = 0; i < 3; i++)
              CK (cudaStreamWaitEvent (st[i], e0, 0));
            three (true);
            for (int i = 0; i < 3; i++) {
              CK (cudaEventRecord (ej[i], st[i]));
              CK (cudaStreamWaitEvent (0, ej[i], 0));
            }
          }, tc, keep);
    }
    printf ("| %dx%d | D 256 | blocks %d (%d/SM x %d SMs) | mismatches %llu of %zu | fused %.3f ms | without the waits (wrong at strip edges) %.3f ms | 3 passes one after another %.3f ms | 3 passes on 3 streams %.3f ms |\n",
        W, H, nb, per_sm, nsm, hbad, nv, median (tf), median (tn), median (ts), median (tc));
    cudaFree (dimg); cudaFree (cl); cudaFree (cr); cudaFree (cost); cudaFree (vols);
    cudaFree (sum); cudaFree (gR); cudaFree (gL); cudaFree (flags); cudaFree (dbad);
    if (hbad)
      return 1;
  }
  return 0;
}
