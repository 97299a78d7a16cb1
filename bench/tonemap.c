/* Benchmark of the tone-mapping kernels on device memory, against the
 * device's own copy bandwidth measured in the same run (a large
 * device-to-device cudaMemcpy, bytes read + written).  CUDA events between
 * back-to-back calls, warm-up, median of many runs, inputs and outputs
 * rotated over a set larger than L2.  Tables last.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "tonemap.h"            /* reference: params and tables */
#include "tonemap_cuda.h"
#include "tmscene.h"

#define CK(x) do { cudaError_t e_ = (cudaError_t) (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString (e_), __FILE__, __LINE__); exit (1); } } while (0)

static int
cmpf (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

typedef struct
{
  int in, out, op, smoothing, impl;
  const char *name;
} Case;

typedef struct
{
  const char *name;
  double us, gbs, frac, mean_us;
} Row;

static int reps = 300;
static cudaStream_t s;
static cudaEvent_t *ev;
static float *times;

/* Median and mean of `reps` back-to-back calls of fn(i). */
static void
time_calls (void (*fn) (int, void *), void *ud, double *median, double *mean)
{
  for (int i = 0; i < 20; i++)
    fn (i, ud);
  CK (cudaEventRecord (ev[0], s));
  for (int i = 0; i < reps; i++) {
    fn (i, ud);
    CK (cudaEventRecord (ev[i + 1], s));
  }
  CK (cudaEventSynchronize (ev[reps]));
  for (int i = 0; i < reps; i++)
    CK (cudaEventElapsedTime (&times[i], ev[i], ev[i + 1]));
  float total;
  CK (cudaEventElapsedTime (&total, ev[0], ev[reps]));
  qsort (times, reps, sizeof (float), cmpf);
  *median = times[reps / 2] * 1000.0;
  *mean = total * 1000.0 / reps;
}

typedef struct
{
  uint8_t *src, *dst;
  size_t bytes;
} CopyUd;

static void
copy_fn (int i, void *ud)
{
  CopyUd *c = ud;
  CK (cudaMemcpyAsync (c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, s));
}

#define NSET 8

typedef struct
{
  CiTmCuda *tm;
  CiTmInPlanes in[NSET];
  CiTmOutPlanes out[NSET];
} RunUd;

static void
run_fn (int i, void *ud)
{
  RunUd *r = ud;
  CK (ci_tm_cuda_process (r->tm, &r->in[i % NSET], &r->out[i % NSET], s));
}

static void
minmax_fn (int i, void *ud)
{
  RunUd *r = ud;
  CK (ci_tm_cuda_minmax (r->tm, &r->in[i % NSET], s));
}

static void
hist_fn (int i, void *ud)
{
  RunUd *r = ud;
  CK (ci_tm_cuda_histogram (r->tm, &r->in[i % NSET], -2.0f, 150.0f, s));
}

/* update kernel without new statistics: scan + table of the state */
static void
table_fn (int i, void *ud)
{
  RunUd *r = ud;
  CiTmCudaRuntime rt = { CI_TM_OP_HISTOGRAM, 100.0f, 0.0f, 8,
    ci_tm_cut_threshold (0.3f)
  };
  CK (ci_tm_cuda_set_runtime (r->tm, &rt, s));
}

int
main (int argc, char **argv)
{
  const int w = 3840, h = 2160;
  const Case cases[] = {
    {CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 8, 0,
        "P010→BGRx histogram, video (fused map+stats)"},
    {CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 8, CI_TM_HW_OETF,
        "P010→BGRx histogram, video, hardware OETF"},
    {CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 8, CI_TM_NO_VEC,
        "P010→BGRx histogram, video, scalar loads/stores"},
    {CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM, 8, 0,
        "RGBA64→RGBA histogram, video (fused map+stats)"},
    {CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM, 8, CI_TM_HW_OETF,
        "RGBA64→RGBA histogram, video, hardware OETF"},
    {CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM, 8, CI_TM_NO_VEC,
        "RGBA64→RGBA histogram, video, scalar loads/stores"},
    {CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_BT2390, 8, 0,
        "P010→BGRx bt2390, video"},
    {CI_TM_IN_P010, CI_TM_OUT_NV12, CI_TM_OP_HISTOGRAM, 8, 0,
        "P010→NV12 histogram, video"},
    {CI_TM_IN_I420_10, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 8, 0,
        "I420_10→BGRx histogram, video"},
    {CI_TM_IN_RGB10A2, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 8, 0,
        "RGB10A2→BGRx histogram, video"},
    {CI_TM_IN_Y444_16, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 8, 0,
        "Y444_16→BGRx histogram, video"},
    {CI_TM_IN_Y444_16, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 8, CI_TM_NO_VEC,
        "Y444_16→BGRx histogram, video, generic kernel"},
    {CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 0, 0,
        "P010→BGRx histogram, still, fused stats"},
    {CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM, 0, 1,
        "P010→BGRx histogram, still, CUB stats"},
    {CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM, 0, 0,
        "RGBA64→RGBA histogram, still, fused stats"},
    {CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM, 0, 1,
        "RGBA64→RGBA histogram, still, CUB stats"},
  };
  const int ncases = sizeof cases / sizeof cases[0];
  Row rows[32];
  double stage_us[3] = { 0 };
  if (argc > 1)
    reps = atoi (argv[1]);
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  CK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  if (reps < 1)
    reps = 1;
  /* the copy below takes 30 calls whatever reps is */
  const int nev = reps > 30 ? reps : 30;
  ev = malloc (sizeof (cudaEvent_t) * (nev + 1));
  times = malloc (sizeof (float) * nev);
  for (int i = 0; i <= nev; i++)
    CK (cudaEventCreate (&ev[i]));

  /* device copy bandwidth: 1 GiB D2D, read + write */
  CopyUd cu;
  cu.bytes = (size_t) 1 << 30;
  CK (cudaMalloc ((void **) &cu.src, cu.bytes));
  CK (cudaMalloc ((void **) &cu.dst, cu.bytes));
  CK (cudaMemsetAsync (cu.src, 1, cu.bytes, s));
  int save = reps;
  reps = 30;
  double cmed, cmean;
  time_calls (copy_fn, &cu, &cmed, &cmean);
  reps = save;
  double copy_gbs = 2.0 * cu.bytes / (cmed * 1e-6) / 1e9;
  CK (cudaFree (cu.src));
  CK (cudaFree (cu.dst));

  /* CI_TM_BENCH_ONLY: run only the cases whose names contain one of its
   * '|'-separated parts (for A/B runs of a few cases) */
  const char *only = getenv ("CI_TM_BENCH_ONLY");
  for (int k = 0; k < ncases; k++) {
    const Case *c = &cases[k];
    rows[k].name = NULL;
    if (only && *only) {
      char buf[256], *save_p = NULL;
      int hit = 0;
      snprintf (buf, sizeof buf, "%s", only);
      for (char *t = strtok_r (buf, "|", &save_p); t && !hit;
          t = strtok_r (NULL, "|", &save_p))
        hit = strstr (c->name, t) != NULL;
      if (!hit)
        continue;
    }
    CiTmConfig cfg;
    ci_tm_config_defaults (&cfg);
    cfg.in_format = c->in;
    cfg.out_format = c->out;
    cfg.op = c->op;
    cfg.width = w;
    cfg.height = h;
    cfg.smoothing = c->smoothing;
    CiTmParams p;
    static float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
    ci_tm_params_init (&cfg, &p);
    ci_tm_build_trc_luts (&cfg, eotf, oetf);
    CiTmCudaRuntime rt = { cfg.op, cfg.target_peak, cfg.source_peak,
      cfg.smoothing, ci_tm_cut_threshold (cfg.scene_threshold)
    };
    /* one synthetic HDR10 frame copied into NSET device frames */
    TmFrame *hin = tm_frame_new_in (c->in, w, h, 0);
    TmFrame *hout = tm_frame_new_out (c->out, w, h, 0);
    tm_fill_scene (hin, 0, 0.01, 1);
    RunUd r;
    size_t in_bytes = 0, out_bytes = 0;
    void *allocs[NSET * 6];
    int na = 0;
    for (int i = 0; i < NSET; i++) {
      memset (&r.in[i], 0, sizeof r.in[i]);
      memset (&r.out[i], 0, sizeof r.out[i]);
      for (int pl = 0; pl < hin->nplanes; pl++) {
        uint8_t *d;
        CK (cudaMalloc ((void **) &d, hin->size[pl]));
        CK (cudaMemcpy (d, hin->plane[pl], hin->size[pl],
                cudaMemcpyHostToDevice));
        r.in[i].data[pl] = d;
        r.in[i].stride[pl] = hin->stride[pl];
        allocs[na++] = d;
        if (i == 0)
          in_bytes += hin->size[pl];
      }
      for (int pl = 0; pl < hout->nplanes; pl++) {
        uint8_t *d;
        CK (cudaMalloc ((void **) &d, hout->size[pl]));
        r.out[i].data[pl] = d;
        r.out[i].stride[pl] = hout->stride[pl];
        allocs[na++] = d;
        if (i == 0)
          out_bytes += hout->size[pl];
      }
    }
    CK (ci_tm_cuda_create (&p, eotf, oetf, &rt, c->impl, s, &r.tm));
    double med, mean;
    time_calls (run_fn, &r, &med, &mean);
    double bytes = (double) in_bytes + out_bytes;
    rows[k].name = c->name;
    rows[k].us = med;
    rows[k].mean_us = mean;
    rows[k].gbs = bytes / (med * 1e-6) / 1e9;
    rows[k].frac = rows[k].gbs / copy_gbs;
    if (k == 0) {
      /* stages of the first case, to see where the time goes */
      time_calls (minmax_fn, &r, &med, &mean);
      stage_us[0] = med;
      time_calls (hist_fn, &r, &med, &mean);
      stage_us[1] = med;
      time_calls (table_fn, &r, &med, &mean);
      stage_us[2] = med;
    }
    ci_tm_cuda_destroy (r.tm);
    for (int i = 0; i < na; i++)
      CK (cudaFree (allocs[i]));
    tm_frame_free (hin);
    tm_frame_free (hout);
  }

  /* whole 4K HDR10 frame from and to system memory (pinned), P010 -> BGRx,
   * video mode: upload + process + download, as the element does */
  double sys_us;
  {
    CiTmConfig cfg;
    ci_tm_config_defaults (&cfg);
    cfg.width = w;
    cfg.height = h;
    CiTmParams p;
    static float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
    ci_tm_params_init (&cfg, &p);
    ci_tm_build_trc_luts (&cfg, eotf, oetf);
    CiTmCudaRuntime rt = { cfg.op, cfg.target_peak, cfg.source_peak,
      cfg.smoothing, ci_tm_cut_threshold (cfg.scene_threshold)
    };
    size_t ib = (size_t) w * h * 3, ob = (size_t) w * h * 4;
    uint8_t *hi, *ho, *di, *dout;
    CK (cudaMallocHost ((void **) &hi, ib));
    CK (cudaMallocHost ((void **) &ho, ob));
    memset (hi, 0x80, ib);
    CK (cudaMalloc ((void **) &di, ib));
    CK (cudaMalloc ((void **) &dout, ob));
    CiTmInPlanes ip = { {di, di + (size_t) w * h * 2}, {w * 2, w * 2} };
    CiTmOutPlanes op = { {dout}, {w * 4} };
    CiTmCuda *tm;
    CK (ci_tm_cuda_create (&p, eotf, oetf, &rt, CI_TM_STATS_FUSED, s, &tm));
    int n = 60;
    cudaEvent_t a, b;
    CK (cudaEventCreate (&a));
    CK (cudaEventCreate (&b));
    for (int i = 0; i < n + 5; i++) {
      if (i == 5)
        CK (cudaEventRecord (a, s));
      CK (cudaMemcpyAsync (di, hi, ib, cudaMemcpyHostToDevice, s));
      CK (ci_tm_cuda_process (tm, &ip, &op, s));
      CK (cudaMemcpyAsync (ho, dout, ob, cudaMemcpyDeviceToHost, s));
      CK (cudaStreamSynchronize (s));
    }
    CK (cudaEventRecord (b, s));
    CK (cudaEventSynchronize (b));
    float ms;
    CK (cudaEventElapsedTime (&ms, a, b));
    sys_us = ms * 1000.0 / n;
    ci_tm_cuda_destroy (tm);
    cudaFree (di);
    cudaFree (dout);
    cudaFreeHost (hi);
    cudaFreeHost (ho);
  }

  printf ("GPU: %s, %d SMs, L2 %d MB; %d runs per case (median), "
      "%d rotating frames\n\n", prop.name, prop.multiProcessorCount,
      prop.l2CacheSize >> 20, reps, NSET);
  printf ("device-to-device copy (1 GiB, read+write): %.0f GB/s\n\n",
      copy_gbs);
  printf ("| 3840x2160 case | median µs | mean µs (pipelined) | GB/s (in+out) "
      "| of copy bandwidth |\n|---|---|---|---|---|\n");
  for (int k = 0; k < ncases; k++)
    if (rows[k].name)
      printf ("| %s | %.1f | %.1f | %.0f | %.0f %% |\n", rows[k].name,
          rows[k].us, rows[k].mean_us, rows[k].gbs, 100.0 * rows[k].frac);
  if (rows[0].name)             /* the stages are timed with the first case */
    printf ("\nstages, P010 3840x2160 (each includes a tiny stats-reset "
        "kernel): min/max pass %.1f µs, histogram pass %.1f µs, update kernel "
        "(scan + table, no new stats) %.1f µs\n", stage_us[0], stage_us[1],
        stage_us[2]);
  printf ("\nsystem memory round trip (pinned H2D + process + D2H, synced "
      "per frame), P010→BGRx: %.0f µs/frame = %.0f frames/s\n", sys_us,
      1e6 / sys_us);
  return 0;
}
