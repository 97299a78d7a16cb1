/* SGM benchmark: the whole CUDA pipeline (census .. median, device memory
 * in and out) at the sizes libSGM 3.1 publishes, plus D = 270 / 512 at
 * 1080p and a D sweep.  CUDA events, 3 warm-up runs, median of the timed
 * runs, input pairs rotated over a set larger than L2.  Tables last.
 *   bench-sgm [runs]
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "../reference/sgm.h"
#include "../kernels/sgm.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf ("CUDA error %s at %s:%d\n", cudaGetErrorString (e_), __FILE__, __LINE__); exit (1); } } while (0)
#define KL(x) do { int e_ = (x); if (e_) { \
  printf ("launcher error %s at %s:%d\n", ci_cuda_error_string (e_), __FILE__, __LINE__); exit (1); } } while (0)

/* One timed run of the statements (on stream st, between events e0 and
 * e1); its milliseconds go to dst[r] unless r < 0 (a warm-up run). */
#define TIMED(dst, r, ...) do { CK (cudaEventRecord (e0, st)); __VA_ARGS__; \
  CK (cudaEventRecord (e1, st)); CK (cudaEventSynchronize (e1)); \
  if ((r) >= 0) CK (cudaEventElapsedTime (&(dst)[r], e0, e1)); } while (0)

typedef struct
{
  int w, h, D, paths;
  double libsgm_ms;             /* libSGM 3.1 on H200 from the issue; 0 = none */
} Conf;

static const Conf confs[] = {
  {1280, 720, 128, 8, 2.17},
  {1920, 1080, 128, 8, 3.76},
  {1920, 1080, 256, 8, 6.37},
  {3840, 2160, 256, 8, 19.8},
  {1024, 440, 128, 4, 1.10},
  {1920, 1080, 32, 8, 0},
  {1920, 1080, 64, 8, 0},
  {1920, 1080, 270, 8, 0},
  {1920, 1080, 512, 8, 0},
  {1920, 1080, 192, 8, 0},
};

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

/* sorts t[0..n) and returns its median */
static float
median (float *t, int n)
{
  qsort (t, n, sizeof (float), cmp_float);
  return t[n / 2];
}

static uint64_t
xs (uint64_t * s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}

int
main (int argc, char **argv)
{
  int runs = argc > 1 && atoi (argv[1]) > 0 ? atoi (argv[1]) : 30;
  if (ci_cuda_device_count () == 0) {
    printf ("no CUDA device\n");
    return 77;
  }
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  cudaStream_t st;
  CK (cudaStreamCreateWithFlags (&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  const int nconf = (int) (sizeof confs / sizeof confs[0]);
  float med[16], agg[16], agg1[16], mn[16];
  size_t mem[16];
  int dd[16];
  Conf used[16];
  /* CI_SGM_BENCH_CONF = i: only configuration i (for profilers) */
  const char *only = getenv ("CI_SGM_BENCH_CONF");
  for (int c = 0; c < nconf; c++) {
    if (only && *only && atoi (only) != c)
      continue;
    Conf kw = confs[c];
    /* CI_SGM_BENCH_W / _H: another frame size (e.g. where a layout stops
     * paying) */
    const char *ow = getenv ("CI_SGM_BENCH_W"), *oh = getenv ("CI_SGM_BENCH_H");
    if (ow && atoi (ow) > 0)
      kw.w = atoi (ow);
    if (oh && atoi (oh) > 0)
      kw.h = atoi (oh);
    used[c] = kw;
    const Conf *k = &used[c];
    SgmParams p;
    sgm_params_init (&p, k->w, k->h);
    /* CI_SGM_BENCH_D = n: n disparities instead (e.g. the WTA's tails) */
    const char *dov = getenv ("CI_SGM_BENCH_D");
    p.num_disp = dov && *dov ? atoi (dov) : k->D;
    p.paths = k->paths;
    p.lr_max_diff = 1;          /* as libSGM's default */
    const size_t img = (size_t) k->w * k->h;
    /* enough pairs to exceed 128 MB of input, at least 2 */
    int npairs = (int) ((128u << 20) / (2 * img)) + 1;
    if (npairs < 2)
      npairs = 2;
    uint8_t *h = malloc (img * 2), *d;
    CK (cudaMalloc ((void **) &d, img * 2 * npairs));
    uint64_t s = 0x9e3779b97f4a7c15ull + c;
    for (int i = 0; i < npairs; i++) {
      for (size_t j = 0; j < img; j++)
        h[j] = (uint8_t) (xs (&s) >> 56);
      for (int y = 0; y < k->h; y++)    /* right = left shifted by 17 px */
        for (int x = 0; x < k->w; x++)
          h[img + (size_t) y * k->w + x] =
              h[(size_t) y * k->w + (x + 17 < k->w ? x + 17 : k->w - 1)];
      CK (cudaMemcpy (d + img * 2 * i, h, img * 2, cudaMemcpyHostToDevice));
    }
    int16_t *out;
    CK (cudaMalloc ((void **) &out, img * 2));
    SgmCuda *ctx;
    KL (sgm_cuda_create (&ctx));
    KL (sgm_cuda_reserve (ctx, &p));
    SgmLuma l = { SGM_LUMA_GRAY8, 1, 0, 0, 0 };
    float *t = malloc (sizeof (float) * runs), *ta = malloc (sizeof (float) * runs);
    for (int r = -3; r < runs; r++) {
      const uint8_t *L = d + img * 2 * ((r + 3) % npairs), *R = L + img;
      TIMED (t, r,
        KL (sgm_cuda_compute (ctx, &p, L, k->w, R, k->w, l, out,
                (size_t) k->w * 2, st)));
    }
    /* aggregation alone (census of the last pair is reused) */
    uint64_t *cl, *cr;
    uint16_t *sum;
    uint8_t *cost;
    CK (cudaMalloc ((void **) &cost, img * sgm_sum_stride (p.num_disp)));
    CK (cudaMalloc ((void **) &cl, img * 8));
    CK (cudaMalloc ((void **) &cr, img * 8));
    CK (cudaMalloc ((void **) &sum, img * sgm_sum_stride (p.num_disp) * 2));
    KL (sgm_cuda_census (d, k->w, d + img, k->w, l, k->w, k->h, p.census,
            cl, cr, st));
    KL (sgm_cuda_cost_volume (cl, cr, &p, cost, st));
    for (int r = -1; r < runs; r++) {
      TIMED (ta, r,
        for (int dir = 0; dir < p.paths; dir++)
          KL (sgm_cuda_aggregate_path (cost, &p, dir, sum, dir > 0, st)));
    }
    /* the pipeline's u8 form: paths 1.. as uint8 volumes, then path 0
     * fused with the WTA (what sgm_cuda_compute runs when p2 allows) */
    float *tc = malloc (sizeof (float) * runs);
    const size_t vstride = (img * sgm_sum_stride (p.num_disp) + 255) & ~(size_t) 255;
    uint8_t *vols = NULL;
    int16_t *wd, *wi;
    uint32_t *wk;
    CK (cudaMalloc ((void **) &wd, img * 2));
    CK (cudaMalloc ((void **) &wi, img * 2));
    CK (cudaMalloc ((void **) &wk, img * 4));
    const int u8 = sgm_cuda_u8_ok (&p) && sgm_cuda_final_fits (&p, p.paths - 1);
    if (u8) {
      CK (cudaMalloc ((void **) &vols, vstride * p.paths));
      CK (cudaMemcpy (vols, cost, img * sgm_sum_stride (p.num_disp),
              cudaMemcpyDeviceToDevice));
    }
    for (int r = -1; r < runs; r++) {
      if (!u8) {
        tc[r < 0 ? 0 : r] = 0;
        continue;
      }
      TIMED (tc, r,
        for (int dir = 1; dir < p.paths; dir++)
          KL (sgm_cuda_aggregate_path_u8 (vols, &p, dir, vols + dir * vstride,
                  st));
        KL (sgm_cuda_aggregate_final (vols, p.paths - 1, vstride, &p, wd, wi,
                wk, st)));
    }
    if (u8 && c == 1) {
      for (int dir = 0; dir < 8; dir++) {
        float td[64];
        int nr = runs < 64 ? runs : 64;
        for (int r = -1; r < nr; r++) {
          TIMED (td, r,
            if (dir == 0)
              KL (sgm_cuda_aggregate_final (vols, p.paths - 1, vstride, &p, wd,
                      wi, wk, st));
            else
              KL (sgm_cuda_aggregate_path_u8 (vols, &p, dir,
                      vols + dir * vstride, st)));
        }
        printf ("  u8 direction %d (%+d,%+d)%s: %.3f ms\n", dir,
            sgm_dir_dx (dir), sgm_dir_dy (dir),
            dir == 0 ? " + 7 volumes + WTA" : "", median (td, nr));
      }
    }
    /* CI_SGM_BENCH_STAGES: the default layout's passes one after another
     * and its WTA alone, to see how the time splits */
    const char *stages = getenv ("CI_SGM_BENCH_STAGES");
    if (u8 && stages && *stages) {
      uint8_t *sv;
      CK (cudaMalloc ((void **) &sv, vstride * (p.paths + 1)));
      CK (cudaMemcpy (sv, cost, img * sgm_sum_stride (p.num_disp),
              cudaMemcpyDeviceToDevice));
      float tp[64], tq[64];
      const int nr = runs < 64 ? runs : 64;
      for (int r = -1; r < nr; r++) {
        TIMED (tp, r,
          for (int dir = 0; dir < p.paths; dir++)
            KL (sgm_cuda_aggregate_path_u8 (sv, &p, dir,
                    sv + (dir + 1) * vstride, st)));
        TIMED (tq, r,
          KL (sgm_cuda_wta_u8 (sv + vstride, p.paths, vstride, &p, wd, wi, wk,
                  st)));
      }
      printf ("  directions alone %dx%d D=%d:", k->w, k->h, p.num_disp);
      for (int dir = 0; dir < p.paths; dir++) {
        float td[64];
        for (int r = -1; r < nr; r++) {
          TIMED (td, r,
            KL (sgm_cuda_aggregate_path_u8 (sv, &p, dir,
                    sv + (dir + 1) * vstride, st)));
        }
        printf (" (%+d,%+d) %.3f", sgm_dir_dx (dir), sgm_dir_dy (dir),
            median (td, nr));
      }
      printf (" ms\n");
      float tk[64], tk2[64];
      for (int r = -1; r < nr; r++) {
        TIMED (tk, r, KL (sgm_cuda_cost_volume (cl, cr, &p, sv, st)));
        TIMED (tk2, r, KL (sgm_cuda_cost_volume_popc (cl, cr, &p, sv, st)));
      }
      printf ("  stages %dx%d D=%d: %d u8 passes one after another %.3f ms, "
          "WTA %.3f ms, cost volume %.3f ms (popcount kernel %.3f ms)\n",
          k->w, k->h, p.num_disp, p.paths, median (tp, nr), median (tq, nr),
          median (tk, nr), median (tk2, nr));
      if (p.paths == 8 && sgm_cuda_sweeps_ok (&p)) {
        /* the sweeps' layout: the six directions with dy != 0 as two
         * launches' sums, the horizontal two as u8, their WTA */
        KL (sgm_cuda_cost_volume (cl, cr, &p, sv, st));
        const size_t sst = img * sgm_sum_stride (p.num_disp);
        uint16_t *ss;
        void *ring;
        CK (cudaMalloc ((void **) &ss, sst * 2 * 2));
        CK (cudaMalloc (&ring, sgm_cuda_sweeps_ring_bytes (&p)));
        float ts[64], th[64], tw[64];
        for (int r = -1; r < nr; r++) {
          TIMED (ts, r,
            KL (sgm_cuda_aggregate_sweeps (sv, &p, ss, sst, ring, st)));
          TIMED (th, r,
            for (int dir = 0; dir < 2; dir++)
              KL (sgm_cuda_aggregate_path_u8 (sv, &p, dir,
                      sv + (dir + 1) * vstride, st)));
          TIMED (tw, r,
            KL (sgm_cuda_wta_sweeps (sv + vstride, vstride, ss, sst, &p, wd,
                    wi, wk, st)));
        }
        printf ("  sweeps %dx%d D=%d: both sweeps %.3f ms, the 2 horizontal "
            "passes one after the other %.3f ms, WTA %.3f ms\n", k->w, k->h,
            p.num_disp, median (ts, nr), median (th, nr), median (tw, nr));
        CK (cudaFree (ss));
        CK (cudaFree (ring));
      }
      CK (cudaFree (sv));
    }
    if (vols)
      CK (cudaFree (vols));
    CK (cudaFree (wd));
    CK (cudaFree (wi));
    CK (cudaFree (wk));
    agg1[c] = median (tc, runs);
    free (tc);
    if (c == 1) {
      /* each direction alone (accumulating), to see where the time goes */
      for (int dir = 0; dir < 8; dir++) {
        float td[64];
        int nr = runs < 64 ? runs : 64;
        for (int r = -1; r < nr; r++) {
          TIMED (td, r,
            KL (sgm_cuda_aggregate_path (cost, &p, dir, sum, 1, st)));
        }
        printf ("  direction %d (%+d,%+d): %.3f ms\n", dir, sgm_dir_dx (dir),
            sgm_dir_dy (dir), median (td, nr));
      }
      float tw[64];
      int nr = runs < 64 ? runs : 64;
      for (int r = -1; r < nr; r++) {
        TIMED (tw, r,
          KL (sgm_cuda_census (d, k->w, d + img, k->w, l, k->w, k->h,
                  p.census, cl, cr, st));
          KL (sgm_cuda_cost_volume (cl, cr, &p, cost, st)));
      }
      printf ("  census x2 + cost volume: %.3f ms\n", median (tw, nr));
    }
    CK (cudaGetLastError ());
    med[c] = median (t, runs);
    mn[c] = t[0];               /* median () sorted t */
    agg[c] = median (ta, runs);
    mem[c] = sgm_cuda_bytes (ctx);
    dd[c] = p.num_disp;
    printf ("%dx%d D=%d paths=%d: median %.3f ms (min %.3f), aggregation %.3f ms, %d pairs\n",
        k->w, k->h, p.num_disp, k->paths, med[c], mn[c], agg[c], npairs);
    fflush (stdout);
    free (t);
    free (ta);
    free (h);
    sgm_cuda_destroy (ctx);
    CK (cudaFree (d));
    CK (cudaFree (out));
    CK (cudaFree (cl));
    CK (cudaFree (cr));
    CK (cudaFree (sum));
    CK (cudaFree (cost));
  }
  printf ("\nGPU: %s (%d SMs); defaults: census 9x7, subpixel, uniqueness 0.95, "
      "LR check, median; %d timed runs\n\n", prop.name,
      prop.multiProcessorCount, runs);
  printf ("| size | D | paths | median ms | min ms | aggregation (uint16 sum) ms | "
      "u8 aggregation + fused WTA ms | Mpix*D/s | scratch MB | "
      "libSGM 3.1 H200 ms | speed-up |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int c = 0; c < nconf; c++) {
    if (only && *only && atoi (only) != c)
      continue;
    const Conf *k = &used[c];
    char su[32] = "-", ls[32] = "-";
    if (k->libsgm_ms > 0 && dd[c] == confs[c].D && k->w == confs[c].w
        && k->h == confs[c].h) {
      snprintf (su, sizeof su, "%.2fx", k->libsgm_ms / med[c]);
      snprintf (ls, sizeof ls, "%.2f", k->libsgm_ms);
    }
    printf ("| %dx%d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.0f | %.1f | %s | %s |\n",
        k->w, k->h, dd[c], k->paths, med[c], mn[c], agg[c], agg1[c],
        (double) k->w * k->h * dd[c] / (med[c] * 1e3), mem[c] / 1048576.0, ls,
        su);
  }
  return 0;
}
