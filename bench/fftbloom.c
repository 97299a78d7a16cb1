/* fftbloom benchmark: median GPU time per frame (CUDA events) of the fused
 * R2C pipeline, the seed's packed two-channel C2C, the naive baseline and
 * plain cuFFT R2C+C2R on the same grid; inputs rotated over > 2x L2. Two
 * timings per case: frames queued behind a gate (the GPU's work alone, as
 * bench-supersample and nvbench), and one frame at a time, each synchronised
 * (also counting the host's submission of the frame's first launch).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cibench_gate.h"
#include <time.h>
#include "../reference/fftbloom.h"
#include "../kernels/fftbloom.h"

#define CK(x) do { int e_ = (int) (x); if (e_) { fprintf (stderr, "%s:%d: %s: %s\n", \
  __FILE__, __LINE__, #x, ci_cuda_error_string (e_)); exit (1); } } while (0)

#define WARMUP 10
#define RUNS 100
#define BATCH 20
#define MAX_ROWS 64

typedef struct
{
  char what[96];
  int w, h, nx, ny;
  float med, p10, p90;           /* queue primed */
  float med_sync;               /* one frame at a time */
} Row;

static Row rows[MAX_ROWS];
static int nrows;

static int
cmpf (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

typedef struct
{
  int n;                        /* rotated frames */
  void **in, **out;
  size_t pitch;
} Frames;

static void
frames_new (Frames * fr, int w, int h)
{
  size_t bytes = (size_t) w * h * 4;
  fr->pitch = (size_t) w * 4;
  fr->n = (int) ((160u << 20) / (2 * bytes)) + 2;  /* > 160 MB in + out */
  fr->in = calloc (fr->n, sizeof (void *));
  fr->out = calloc (fr->n, sizeof (void *));
  unsigned char *host = malloc (bytes);
  unsigned long long s = 88172645463325252ull;
  for (size_t i = 0; i < bytes; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    unsigned v = (unsigned) (s & 255);
    host[i] = v % 9 == 0 ? 250 : v / 3;
  }
  for (int i = 0; i < fr->n; i++) {
    CK (cudaMalloc (&fr->in[i], bytes));
    CK (cudaMalloc (&fr->out[i], bytes));
    CK (cudaMemcpy (fr->in[i], host, bytes, cudaMemcpyHostToDevice));
  }
  free (host);
}

static void
frames_free (Frames * fr)
{
  for (int i = 0; i < fr->n; i++) {
    cudaFree (fr->in[i]);
    cudaFree (fr->out[i]);
  }
  free (fr->in);
  free (fr->out);
}

typedef void (*FrameFn) (void *arg, int j, cudaStream_t st);

/* ts: RUNS times per frame with the queue primed (consecutive events of one
 * batch), t1: RUNS times of frames run one at a time. */
static void
time_frames (FrameFn fn, void *arg, int rot, cudaStream_t st, float *ts,
    float *t1)
{
  cudaEvent_t ev[RUNS + 1];
  for (int i = 0; i <= RUNS; i++)
    CK (cudaEventCreate (&ev[i]));
  for (int i = 0; i < WARMUP; i++)
    fn (arg, i % rot, st);
  /* batches small enough that the launch queue never fills behind the
   * gate (the naive path launches a dozen kernels per frame) */
  for (int b0 = 0; b0 < RUNS; b0 += BATCH) {
    int b1 = b0 + BATCH < RUNS ? b0 + BATCH : RUNS;
    release_flag = 0;
    CK (cudaLaunchHostFunc (st, gate, NULL));
    for (int i = b0; i < b1; i++) {
      CK (cudaEventRecord (ev[i], st));
      fn (arg, (WARMUP + i) % rot, st);
    }
    CK (cudaEventRecord (ev[b1], st));
    release_flag = 1;
    CK (cudaEventSynchronize (ev[b1]));
    for (int i = b0; i < b1; i++)
      CK (cudaEventElapsedTime (&ts[i], ev[i], ev[i + 1]));
  }
  for (int i = 0; i < RUNS; i++) {
    CK (cudaEventRecord (ev[0], st));
    fn (arg, i % rot, st);
    CK (cudaEventRecord (ev[1], st));
    CK (cudaEventSynchronize (ev[1]));
    CK (cudaEventElapsedTime (&t1[i], ev[0], ev[1]));
  }
  for (int i = 0; i <= RUNS; i++)
    cudaEventDestroy (ev[i]);
}

static void
add_row (const char *what, int w, int h, int nx, int ny, float *t, float *t1)
{
  qsort (t, RUNS, sizeof (float), cmpf);
  qsort (t1, RUNS, sizeof (float), cmpf);
  Row *r = &rows[nrows++];
  snprintf (r->what, sizeof r->what, "%s", what);
  r->w = w;
  r->h = h;
  r->nx = nx;
  r->ny = ny;
  r->med = t[RUNS / 2];
  r->p10 = t[RUNS / 10];
  r->p90 = t[RUNS * 9 / 10];
  r->med_sync = t1[RUNS / 2];
  fprintf (stderr, "  %-44s %4dx%-4d grid %4dx%-4d median %.4f ms (one at a "
      "time %.4f)\n", what, w, h, nx, ny, r->med, r->med_sync);
}

static int force_nx, force_ny;

typedef struct
{
  CiFbCuda *ctx;
  Frames *fr;
  CiFbFormat f;
  CiFbParams p;
} ModeArg;

static void
mode_frame (void *arg, int j, cudaStream_t st)
{
  ModeArg *a = arg;
  CK (ci_fb_cuda_process (a->ctx, a->fr->in[j], a->fr->pitch, a->fr->out[j],
          a->fr->pitch, &a->f, &a->p, st));
}

static void
bench_mode (const char *what, CiFbMode mode, const CiFbKernel * k, int w,
    int h, int scale, Frames * fr, cudaStream_t st)
{
  CiFbCuda *ctx;
  CK (ci_fb_cuda_create (&ctx, mode));
  ci_fb_cuda_force_grid (ctx, force_nx, force_ny);
  CK (ci_fb_cuda_set_kernel (ctx, k, w, h, scale, st));
  if (mode == CI_FB_MODE_R2C_CB)
    fprintf (stderr, "  (cuFFT callbacks: %d)\n", ci_fb_cuda_callbacks (ctx));
  if (mode == CI_FB_MODE_FUSED && !ci_fb_cuda_fused (ctx))
    fprintf (stderr, "  (fused: grid too large, R2C path)\n");
  ModeArg a = { ctx, fr, { 1, 0, 1, 2, 1 }, { 0.8f, 0.6f, 0.5f } };
  float t[RUNS], t1[RUNS];
  time_frames (mode_frame, &a, fr->n, st, t, t1);
  int nx, ny;
  ci_fb_cuda_grid (ctx, &nx, &ny);
  add_row (what, w, h, nx, ny, t, t1);
  ci_fb_cuda_destroy (ctx);
}

/* cuFFT alone: R2C + C2R, batch 3, on the grid the pipeline uses. */
typedef struct
{
  cufftHandle f, b;
  float **re;
  cufftComplex **cx;
} FftArg;

static void
fft_frame (void *arg, int j, cudaStream_t st)
{
  FftArg *a = arg;
  (void) st;
  if (cufftExecR2C (a->f, a->re[j], a->cx[j])
      || cufftExecC2R (a->b, a->cx[j], a->re[j])) {
    fprintf (stderr, "cufft exec failed\n");
    exit (1);
  }
}

static void
bench_fft_only (const char *what, int w, int h, int nx, int ny, cudaStream_t st)
{
  int n[2] = { ny, nx };
  size_t np = (size_t) nx * ny, ncp = (size_t) (nx / 2 + 1) * ny;
  int rot = 3;
  float *re[3];
  cufftComplex *cx[3];
  for (int i = 0; i < rot; i++) {
    CK (cudaMalloc ((void **) &re[i], 3 * np * sizeof (float)));
    CK (cudaMalloc ((void **) &cx[i], 3 * ncp * sizeof (cufftComplex)));
    CK (cudaMemset (re[i], 0, 3 * np * sizeof (float)));
  }
  cufftHandle f, b;
  if (cufftPlanMany (&f, 2, n, NULL, 1, (int) np, NULL, 1, (int) ncp, CUFFT_R2C, 3)
      || cufftPlanMany (&b, 2, n, NULL, 1, (int) ncp, NULL, 1, (int) np,
          CUFFT_C2R, 3) || cufftSetStream (f, st) || cufftSetStream (b, st)) {
    fprintf (stderr, "cufft plan failed\n");
    exit (1);
  }
  FftArg a = { f, b, re, cx };
  float t[RUNS], t1[RUNS];
  time_frames (fft_frame, &a, rot, st, t, t1);
  add_row (what, w, h, nx, ny, t, t1);
  cufftDestroy (f);
  cufftDestroy (b);
  for (int i = 0; i < rot; i++) {
    cudaFree (re[i]);
    cudaFree (cx[i]);
  }
}

/* Whole pipeline from system memory: pinned upload, process, download, with
 * two streams so one frame's copies overlap the other's kernels. */
static float
bench_sysmem (int w, int h, const CiFbKernel * k)
{
  size_t bytes = (size_t) w * h * 4;
  const int NS = 2, FRAMES = 120;
  cudaStream_t st[2];
  CiFbCuda *ctx[2];
  void *hin[2], *hout[2], *din[2], *dout[2];
  for (int i = 0; i < NS; i++) {
    CK (cudaStreamCreateWithFlags (&st[i], cudaStreamNonBlocking));
    CK (ci_fb_cuda_create (&ctx[i], CI_FB_MODE_FUSED));
    CK (ci_fb_cuda_set_kernel (ctx[i], k, w, h, 1, st[i]));
    CK (cudaMallocHost (&hin[i], bytes));
    CK (cudaMallocHost (&hout[i], bytes));
    memset (hin[i], 100, bytes);
    CK (cudaMalloc (&din[i], bytes));
    CK (cudaMalloc (&dout[i], bytes));
  }
  CiFbFormat f = { 1, 0, 1, 2, 1 };
  CiFbParams p = { 0.8f, 0.6f, 0.5f };
  CK (cudaDeviceSynchronize ());
  cudaEvent_t e0, e1;
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  CK (cudaEventRecord (e0, st[0]));
  for (int i = 0; i < FRAMES; i++) {
    int s = i % NS;
    CK (cudaMemcpyAsync (din[s], hin[s], bytes, cudaMemcpyHostToDevice, st[s]));
    CK (ci_fb_cuda_process (ctx[s], din[s], w * 4, dout[s], w * 4, &f, &p, st[s]));
    CK (cudaMemcpyAsync (hout[s], dout[s], bytes, cudaMemcpyDeviceToHost, st[s]));
  }
  CK (cudaStreamSynchronize (st[1]));
  CK (cudaEventRecord (e1, st[0]));
  CK (cudaEventSynchronize (e1));
  float ms;
  CK (cudaEventElapsedTime (&ms, e0, e1));
  for (int i = 0; i < NS; i++) {
    ci_fb_cuda_destroy (ctx[i]);
    cudaFreeHost (hin[i]);
    cudaFreeHost (hout[i]);
    cudaFree (din[i]);
    cudaFree (dout[i]);
    cudaStreamDestroy (st[i]);
  }
  return FRAMES * 1000.0f / ms;
}


/* ---- grid sweep: cuFFT R2C + C2R alone over candidate grid sizes ---- */

static float
time_fft (int nx, int ny, int batch, float **re, cufftComplex ** cx, int rot,
    cudaStream_t st)
{
  int n[2] = { ny, nx };
  size_t np = (size_t) nx * ny, ncp = (size_t) (nx / 2 + 1) * ny;
  cufftHandle f, b;
  if (cufftPlanMany (&f, 2, n, NULL, 1, (int) np, NULL, 1, (int) ncp, CUFFT_R2C,
          batch))
    return -1;
  if (cufftPlanMany (&b, 2, n, NULL, 1, (int) ncp, NULL, 1, (int) np, CUFFT_C2R,
          batch)) {
    cufftDestroy (f);
    return -1;
  }
  cufftSetStream (f, st);
  cufftSetStream (b, st);
  cudaEvent_t e0, e1;
  CK (cudaEventCreate (&e0));
  CK (cudaEventCreate (&e1));
  enum { N = 15 };
  float t[N];
  for (int i = 0; i < N + 3; i++) {
    int j = i % rot;
    CK (cudaEventRecord (e0, st));
    for (int c = 0; c < 3; c += batch) {
      cufftExecR2C (f, re[j] + c * np, cx[j] + c * ncp);
      cufftExecC2R (b, cx[j] + c * ncp, re[j] + c * np);
    }
    CK (cudaEventRecord (e1, st));
    CK (cudaEventSynchronize (e1));
    if (i >= 3)
      CK (cudaEventElapsedTime (&t[i - 3], e0, e1));
  }
  cufftDestroy (f);
  cufftDestroy (b);
  cudaEventDestroy (e0);
  cudaEventDestroy (e1);
  qsort (t, N, sizeof (float), cmpf);
  return t[N / 2];
}

typedef struct
{
  int nx, ny;
  float t3, t1;
} Cand;

static int
cmp_t3 (const void *a, const void *b)
{
  const Cand *x = a, *y = b;
  return x->t3 < y->t3 ? -1 : x->t3 > y->t3;
}

static int
cmp_t1 (const void *a, const void *b)
{
  const Cand *x = a, *y = b;
  return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

static void
sweep (const char *what, int need_x, int need_y, float range, cudaStream_t st)
{
  int xs[16], ys[16], nxs = 0, nys = 0;
  for (int n = ci_fb_good_size (need_x); n <= need_x * range && nxs < 12;
      n = ci_fb_good_size (n + 1))
    xs[nxs++] = n;
  for (int n = ci_fb_good_size (need_y); n <= need_y * range && nys < 12;
      n = ci_fb_good_size (n + 1))
    ys[nys++] = n;
  size_t maxn = (size_t) xs[nxs - 1] * ys[nys - 1];
  size_t maxc = (size_t) (xs[nxs - 1] / 2 + 1) * ys[nys - 1];
  const int rot = 3;
  float *re[3];
  cufftComplex *cx[3];
  for (int i = 0; i < rot; i++) {
    CK (cudaMalloc ((void **) &re[i], 3 * maxn * sizeof (float)));
    CK (cudaMalloc ((void **) &cx[i], 3 * maxc * sizeof (cufftComplex)));
    CK (cudaMemset (re[i], 0, 3 * maxn * sizeof (float)));
  }
  Cand c[256];
  int nc = 0;
  for (int i = 0; i < nxs; i++)
    for (int j = 0; j < nys; j++) {
      c[nc].nx = xs[i];
      c[nc].ny = ys[j];
      c[nc].t3 = time_fft (xs[i], ys[j], 3, re, cx, rot, st);
      c[nc].t1 = time_fft (xs[i], ys[j], 1, re, cx, rot, st);
      nc++;
    }
  float first3 = c[0].t3, first1 = c[0].t1;
  printf ("\nsweep %s: need %dx%d; smallest grid %dx%d: batch3 %.4f ms, 3x batch1 %.4f ms\n",
      what, need_x, need_y, c[0].nx, c[0].ny, first3, first1);
  qsort (c, nc, sizeof (Cand), cmp_t3);
  printf ("  best batch3: ");
  for (int i = 0; i < 8 && i < nc; i++)
    printf ("%dx%d %.4f  ", c[i].nx, c[i].ny, c[i].t3);
  qsort (c, nc, sizeof (Cand), cmp_t1);
  printf ("\n  best 3x batch1: ");
  for (int i = 0; i < 8 && i < nc; i++)
    printf ("%dx%d %.4f  ", c[i].nx, c[i].ny, c[i].t1);
  printf ("\n  all (nx ny t3 t1):");
  for (int i = 0; i < nc; i++)
    printf ("%s%d %d %.4f %.4f;", i % 6 ? " " : "\n   ", c[i].nx, c[i].ny,
        c[i].t3, c[i].t1);
  printf ("\n");
  for (int i = 0; i < rot; i++) {
    cudaFree (re[i]);
    cudaFree (cx[i]);
  }
}

static CiFbKernel *
rgb_kernel (int size)
{
  CiFbKernel *k = ci_fb_kernel_new (size, size, 3);
  int c0 = size / 2;
  for (int c = 0; c < 3; c++)
    for (int y = 0; y < size; y++)
      for (int x = 0; x < size; x++) {
        float dx = (float) (x - c0), dy = (float) (y - c0);
        float s = size * (0.05f + 0.03f * c);
        k->data[(size_t) c * size * size + y * size + x] =
            expf (-(dx * dx + dy * dy) / (2 * s * s));
      }
  ci_fb_kernel_normalise (k);
  return k;
}

static void
print_table (const struct cudaDeviceProp *prop)
{
  printf ("\nfftbloom on %s (%d SMs, L2 %d MB), RGBA 8-bit sRGB, median of %d "
      "(p10..p90), inputs rotated over >160 MB; GPU time per frame with the "
      "queue primed, and with one frame at a time (synchronised, the host's "
      "first launch included)\n", prop->name,
      prop->multiProcessorCount, prop->l2CacheSize >> 20, RUNS);
  printf ("| %-44s | frame     | FFT grid  | median ms | p10..p90 ms     | one at a time ms |\n", "case");
  printf ("|%.46s|-----------|-----------|-----------|-----------------|------------------|\n",
      "----------------------------------------------------");
  for (int i = 0; i < nrows; i++)
    printf ("| %-44s | %4dx%-4d | %4dx%-4d | %9.4f | %6.4f..%-7.4f | %16.4f |\n",
        rows[i].what, rows[i].w, rows[i].h, rows[i].nx, rows[i].ny,
        rows[i].med, rows[i].p10, rows[i].p90, rows[i].med_sync);
  if (gate_timeouts)
    printf ("\nWARNING: the queue gate timed out %d times: those batches include "
        "host time\n", gate_timeouts);
}

int
main (int argc, char **argv)
{
  if (ci_cuda_device_count () == 0) {
    fprintf (stderr, "no CUDA device\n");
    return 77;
  }
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  cudaStream_t st;
  CK (cudaStreamCreateWithFlags (&st, cudaStreamNonBlocking));
  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  if (argc > 1 && !strcmp (argv[1], "--fused")) {
    /* the fused path's block shapes against the cuFFT path */
    static const char *cfg[][3] = { {"", "", ""}, {"", "", "4"}, {"", "", "2"},
    {"", "640", "4"}, {"", "480", "4"}, {"", "768", "4"}, {"", "320", "2"}
    };
    /* --fused 4k: only 3840x2160 (for profiling) */
    int only4k = argc > 2 && !strcmp (argv[2], "4k");
    for (int si = only4k; si < 2; si++) {
      int w = si ? 3840 : 1920, h = si ? 2160 : 1080;
      Frames fr;
      frames_new (&fr, w, h);
      for (int ks = 0; ks < 2; ks++) {
        CiFbKernel *k = ci_fb_kernel_for_frame (&g, NULL, ks ? 1.0f : 0.1f,
            -1, -1, w, h, 1);
        bench_mode (ks ? "frame-sized, r2c" : "default, r2c", CI_FB_MODE_R2C,
            k, w, h, 1, &fr, st);
        for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
          char what[96];
          /* "" = the rule's choice */
          setenv ("CI_FB_FUSED_T_ROWS", cfg[c][0], 1);
          setenv ("CI_FB_FUSED_T_COLS", cfg[c][1], 1);
          setenv ("CI_FB_FUSED_COLS", cfg[c][2], 1);
          snprintf (what, sizeof what, "%s, fused T %s/%s C %s",
              ks ? "frame-sized" : "default", *cfg[c][0] ? cfg[c][0] : "auto",
              *cfg[c][1] ? cfg[c][1] : "auto", *cfg[c][2] ? cfg[c][2] : "auto");
          bench_mode (what, CI_FB_MODE_FUSED, k, w, h, 1, &fr, st);
        }
        unsetenv ("CI_FB_FUSED_T_ROWS");
        unsetenv ("CI_FB_FUSED_T_COLS");
        unsetenv ("CI_FB_FUSED_COLS");
        ci_fb_kernel_free (k);
      }
      frames_free (&fr);
    }
    print_table (&prop);
    return 0;
  }
  if (argc > 1 && !strcmp (argv[1], "--sweep")) {
    sweep ("1080p default kernel", 2016, 1176, 1.3f, st);
    sweep ("4K default kernel", 4032, 2352, 1.25f, st);
    sweep ("1080p frame-sized kernel", 2880, 2040, 1.2f, st);
    sweep ("4K frame-sized kernel", 5760, 4080, 1.1f, st);
    return 0;
  }
  const int sizes[2][2] = { {1920, 1080}, {3840, 2160} };
  float fps4k = 0;
  for (int si = 0; si < 2; si++) {
    int w = sizes[si][0], h = sizes[si][1];
    Frames fr;
    frames_new (&fr, w, h);
    char what[96];
    CiFbKernel *k = ci_fb_kernel_for_frame (&g, NULL, 0.1f, -1, -1, w, h, 1);
    bench_mode ("default glare (0.1), fused smem FFT [default]",
        CI_FB_MODE_FUSED, k, w, h, 1, &fr, st);
    bench_mode ("default glare (0.1), cuFFT r2c + 3 passes", CI_FB_MODE_R2C,
        k, w, h, 1, &fr, st);
    bench_mode ("default glare (0.1), r2c + cuFFT LTO callbacks",
        CI_FB_MODE_R2C_CB, k, w, h, 1, &fr, st);
    bench_mode ("default glare (0.1), r2c per channel", CI_FB_MODE_R2C_SEQ, k,
        w, h, 1, &fr, st);
    bench_mode ("default glare (0.1), packed 2ch C2C", CI_FB_MODE_PACKED, k,
        w, h, 1, &fr, st);
    bench_mode ("default glare (0.1), naive 3xC2C", CI_FB_MODE_NAIVE, k, w, h,
        1, &fr, st);
    int nx = rows[nrows - 1].nx, ny = rows[nrows - 1].ny;
    bench_fft_only ("  cuFFT R2C+C2R x3 alone (same grid)", w, h, nx, ny, st);
    {
      /* other grids for the callback pipeline (the rule's is nx x ny) */
      static const int ys[2][5] = { {0}, {2592, 0} };
      for (int q = 0; q < 5 && ys[si][q]; q++) {
        force_nx = nx;
        force_ny = ys[si][q];
        bench_mode ("  default glare, cuFFT r2c, other grid",
            CI_FB_MODE_R2C, k, w, h, 1, &fr, st);
        bench_fft_only ("  cuFFT R2C+C2R x3 alone (same grid)", w, h,
            force_nx, force_ny, st);
      }
      force_nx = force_ny = 0;
    }
    for (int s = 2; s <= 4; s *= 2) {
      CiFbKernel *ks = ci_fb_kernel_for_frame (&g, NULL, 0.1f, -1, -1, w, h, s);
      snprintf (what, sizeof what, "default glare, fused, resolution-scale 1/%d", s);
      bench_mode (what, CI_FB_MODE_FUSED, ks, w, h, s, &fr, st);
      ci_fb_kernel_free (ks);
    }
    ci_fb_kernel_free (k);
    k = rgb_kernel (w / 10 + 1);
    bench_mode ("RGB kernel (0.1), fused smem FFT", CI_FB_MODE_FUSED, k, w, h,
        1, &fr, st);
    bench_mode ("RGB kernel (0.1), cuFFT r2c", CI_FB_MODE_R2C, k, w, h, 1, &fr,
        st);
    bench_mode ("RGB kernel (0.1), packed 2ch C2C + split", CI_FB_MODE_PACKED,
        k, w, h, 1, &fr, st);
    ci_fb_kernel_free (k);
    k = ci_fb_kernel_for_frame (&g, NULL, 1.0f, -1, -1, w, h, 1);
    bench_mode ("frame-sized glare (1.0), fused smem FFT", CI_FB_MODE_FUSED, k,
        w, h, 1, &fr, st);
    bench_mode ("frame-sized glare (1.0), cuFFT r2c", CI_FB_MODE_R2C, k, w, h,
        1, &fr, st);
    bench_mode ("frame-sized glare (1.0), r2c + LTO callbacks", CI_FB_MODE_R2C_CB,
        k, w, h, 1, &fr, st);
    bench_mode ("frame-sized glare (1.0), r2c per channel", CI_FB_MODE_R2C_SEQ,
        k, w, h, 1, &fr, st);
    bench_mode ("frame-sized glare (1.0), packed", CI_FB_MODE_PACKED, k, w, h,
        1, &fr, st);
    bench_mode ("frame-sized glare (1.0), naive 3xC2C", CI_FB_MODE_NAIVE, k, w,
        h, 1, &fr, st);
    nx = rows[nrows - 1].nx;
    ny = rows[nrows - 1].ny;
    bench_fft_only ("  cuFFT R2C+C2R x3 alone (same grid)", w, h, nx, ny, st);
    ci_fb_kernel_free (k);
    if (si == 1) {
      k = ci_fb_kernel_for_frame (&g, NULL, 0.1f, -1, -1, w, h, 1);
      fps4k = bench_sysmem (w, h, k);
      ci_fb_kernel_free (k);
    }
    frames_free (&fr);
  }
  print_table (&prop);
  printf ("\n4K whole pipeline from pinned system memory (upload + bloom + "
      "download, 2 streams): %.1f frames/s\n", fps4k);
  cudaStreamDestroy (st);
  return 0;
}
