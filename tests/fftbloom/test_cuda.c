/* fftbloom: cuFFT pipeline (all modes) against the FFTW reference,
 * every pixel within 1 code value, odd sizes, pitches, all formats, kernels
 * changed mid-stream. Exits 77 without a CUDA device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <cuda_runtime.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "citest.h"
#include "../../reference/fftbloom.h"
#include "../../kernels/fftbloom.h"

static int failures = 0;
static int small_only = 0;

#define EXPECT(cond, ...) do { if (!(cond)) { failures++; \
  fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
  fprintf (stderr, __VA_ARGS__); fprintf (stderr, "\n"); } } while (0)
#define CK(x) do { int e_ = (int) (x); if (e_) { fprintf (stderr, "%s:%d: %s: %s\n", \
  __FILE__, __LINE__, #x, ci_cuda_error_string (e_)); exit (1); } } while (0)

static const char *mode_names[] = { "r2c", "packed", "naive", "r2c-seq",
  "r2c-cb", "fused"
};

typedef struct
{
  const char *name;
  CiFbFormat f;
} Fmt;

static const Fmt fmts[] = {
  {"RGBA", {1, 0, 1, 2, 1}},
  {"BGRx", {1, 2, 1, 0, 1}},
  {"ARGB", {1, 1, 2, 3, 1}},
  {"ABGR", {1, 3, 2, 1, 1}},
  {"RGBA64 linear", {2, 0, 1, 2, 0}},
  {"RGBA64 sRGB", {2, 0, 1, 2, 1}},
};

static CiFbKernel *
random_kernel (int kw, int kh, int ch, int cx, int cy, uint64_t seed)
{
  CiFbKernel *k = ci_fb_kernel_new (kw, kh, ch);
  uint64_t s = seed;
  for (int i = 0; i < kw * kh * ch; i++)
    k->data[i] = (float) ((ci_rand_next (&s) >> 40) / (double) (1 << 24)) + 0.01f;
  k->cx = cx;
  k->cy = cy;
  ci_fb_kernel_normalise (k);
  return k;
}

typedef struct
{
  cudaStream_t st;
  CiFbCuda *ctx;
  CiFbRef *ref;
  int mode;
} Rig;

/* One frame through GPU and reference; returns the max code difference. */
static int
frame (Rig * g, const char *what, int width, int height, const Fmt * fm,
    const CiFbParams * p, uint64_t seed)
{
  const CiFbFormat *f = &fm->f;
  size_t pxb = 4 * (size_t) f->bytes_per_sample;
  size_t pitch = width * pxb + 72;      /* not a multiple of the row size */
  size_t n = pitch * height;
  uint8_t *in = g_malloc (n), *ref = g_malloc (n), *gpu = g_malloc (n);
  ci_fill_random (in, n, seed);
  if (f->bytes_per_sample == 1)
    for (size_t i = 0; i < n; i++)
      in[i] = (in[i] % 5 == 0) ? 255 - in[i] % 8 : in[i] / 2;
  memset (ref, 0x5A, n);
  void *din, *dout;
  CK (cudaMalloc (&din, n));
  CK (cudaMalloc (&dout, n));
  CK (cudaMemcpyAsync (din, in, n, cudaMemcpyHostToDevice, g->st));
  CK (cudaMemsetAsync (dout, 0xA5, n, g->st));  /* poison */
  CK (ci_fb_cuda_process (g->ctx, din, pitch, dout, pitch, f, p, g->st));
  CK (cudaMemcpyAsync (gpu, dout, n, cudaMemcpyDeviceToHost, g->st));
  CK (cudaStreamSynchronize (g->st));
  ci_fb_ref_process (g->ref, in, pitch, ref, pitch, f, p);
  int worst = 0, differ = 0, alpha_bad = 0;
  int aoff = 6 - f->off_r - f->off_g - f->off_b;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const uint8_t *a = ref + y * pitch + x * pxb, *b = gpu + y * pitch + x * pxb,
          *i = in + y * pitch + x * pxb;
      for (int c = 0; c < 4; c++) {
        int va, vb, vi;
        if (f->bytes_per_sample == 1) {
          va = a[c];
          vb = b[c];
          vi = i[c];
        } else {
          uint16_t t;
          memcpy (&t, a + 2 * c, 2);
          va = t;
          memcpy (&t, b + 2 * c, 2);
          vb = t;
          memcpy (&t, i + 2 * c, 2);
          vi = t;
        }
        if (c == aoff) {
          alpha_bad += vb != vi;
          continue;
        }
        int d = abs (va - vb);
        worst = d > worst ? d : worst;
        differ += d != 0;
      }
    }
  /* the row padding keeps the poison: nothing is written past a row */
  long pad_bad = 0;
  for (int y = 0; y < height; y++)
    for (size_t x = width * pxb; x < pitch; x++)
      pad_bad += gpu[y * pitch + x] != 0xA5;
  EXPECT (pad_bad == 0, "%s %s: %ld padding bytes written", mode_names[g->mode],
      what, pad_bad);
  int nx, ny;
  ci_fb_cuda_grid (g->ctx, &nx, &ny);
  printf ("%-9s %-34s %-13s %4dx%-4d grid %4dx%-4d cb %d max|gpu-ref| %d (%d samples differ), alpha %s\n",
      mode_names[g->mode], what, fm->name, width, height, nx, ny,
      ci_fb_cuda_callbacks (g->ctx), worst, differ, alpha_bad ? "CHANGED" : "ok");
  /* otherwise this mode silently tests the plain r2c path again; a host
   * without nvJitLink says so with CI_FB_NO_LTO */
  EXPECT (g->mode != CI_FB_MODE_R2C_CB || ci_fb_cuda_callbacks (g->ctx) != 0
      || g_getenv ("CI_FB_NO_LTO"), "%s %s: no cuFFT callback was planned",
      mode_names[g->mode], what);
  EXPECT (worst <= 1, "%s %s %s: max diff %d", mode_names[g->mode], what,
      fm->name, worst);
  EXPECT (alpha_bad == 0, "%s %s: alpha changed", mode_names[g->mode], what);
  CK (cudaFree (din));
  CK (cudaFree (dout));
  g_free (in);
  g_free (ref);
  g_free (gpu);
  return worst;
}

static void
set_kernel (Rig * g, const CiFbKernel * k, int width, int height, int scale)
{
  CK (ci_fb_cuda_set_kernel (g->ctx, k, width, height, scale, g->st));
  EXPECT (ci_fb_ref_set_kernel (g->ref, k, width, height, scale) == 0,
      "ref set_kernel");
  int a, b, c, d;
  ci_fb_cuda_grid (g->ctx, &a, &b);
  ci_fb_ref_grid (g->ref, &c, &d);
  EXPECT (a == c && b == d, "grids differ: %dx%d vs %dx%d", a, b, c, d);
}

static void
run_mode (int mode)
{
  Rig g = { 0 };
  g.mode = mode;
  CK (cudaStreamCreateWithFlags (&g.st, cudaStreamNonBlocking));
  CK (ci_fb_cuda_create (&g.ctx, (CiFbMode) mode));
  g.ref = ci_fb_ref_new ();
  CiFbParams p = { 1.0f, 0.35f, 0.5f };
  CiFbGlare gl;
  ci_fb_glare_defaults (&gl);

  /* 37x23 with a 15x9 RGB kernel off-centre: all formats */
  CiFbKernel *k = random_kernel (15, 9, 3, 4, 6, 21);
  set_kernel (&g, k, 37, 23, 1);
  for (size_t i = 0; i < G_N_ELEMENTS (fmts); i++)
    frame (&g, "37x23, RGB kernel 15x9", 37, 23, &fmts[i], &p, 100 + i);
  ci_fb_kernel_free (k);
  /* mid-stream: a grey kernel of another size (new grid), then the same
   * size with other content (cached spectrum must be replaced) */
  k = random_kernel (9, 13, 1, 8, 0, 22);
  set_kernel (&g, k, 37, 23, 1);
  frame (&g, "kernel changed: grey 9x13", 37, 23, &fmts[0], &p, 200);
  ci_fb_kernel_free (k);
  k = random_kernel (9, 13, 1, 2, 5, 23);
  set_kernel (&g, k, 37, 23, 1);
  frame (&g, "kernel changed: same size", 37, 23, &fmts[0], &p, 201);
  ci_fb_kernel_free (k);
  CiFbParams p2 = { 3.0f, 0.0f, 0.0f };
  frame (&g, "params changed: threshold 0, x3", 37, 23, &fmts[1], &p2, 202);

  if (mode != CI_FB_MODE_NAIVE) {
    for (int s = 2; s <= 4; s *= 2) {
      k = ci_fb_kernel_for_frame (&gl, NULL, 0.2f, -1, -1, 61, 47, s);
      set_kernel (&g, k, 61, 47, s);
      frame (&g, s == 2 ? "glare, scale 1/2" : "glare, scale 1/4", 61, 47,
          &fmts[0], &p, 300 + s);
      frame (&g, s == 2 ? "glare, scale 1/2" : "glare, scale 1/4", 61, 47,
          &fmts[5], &p, 310 + s);
      ci_fb_kernel_free (k);
    }
    k = random_kernel (11, 11, 3, 5, 5, 24);
    set_kernel (&g, k, 45, 29, 2);
    frame (&g, "RGB kernel, scale 1/2", 45, 29, &fmts[2], &p, 320);
    ci_fb_kernel_free (k);
  }
  /* degenerate frames: one pixel, one row, one column */
  {
    static const int sz[4][2] = { {1, 1}, {3, 2}, {1, 17}, {17, 1} };
    for (int i = 0; i < 4; i++) {
      char what[48];
      k = random_kernel (3, 5, 1, 1, 2, 40 + i);
      set_kernel (&g, k, sz[i][0], sz[i][1], 1);
      snprintf (what, sizeof what, "tiny %dx%d, grey kernel 3x5", sz[i][0],
          sz[i][1]);
      frame (&g, what, sz[i][0], sz[i][1], &fmts[i % 2 ? 4 : 0], &p, 50 + i);
      ci_fb_kernel_free (k);
    }
  }
  if (mode == CI_FB_MODE_FUSED) {
    k = random_kernel (15, 9, 3, 4, 6, 21);
    set_kernel (&g, k, 37, 23, 1);
    ci_fb_kernel_free (k);
    EXPECT (ci_fb_cuda_fused (g.ctx), "fused: shared-memory path not taken");
    /* a grid too large for the device's shared memory (a small device
     * pretended): the R2C path runs */
    g_setenv ("CI_FB_FUSED_SMEM_LIMIT", "4096", TRUE);
    k = random_kernel (15, 9, 3, 4, 6, 26);
    set_kernel (&g, k, 601, 23, 1);
    EXPECT (!ci_fb_cuda_fused (g.ctx), "fused: fallback not taken");
    frame (&g, "fused fallback to r2c, 601x23", 601, 23, &fmts[0], &p, 330);
    ci_fb_kernel_free (k);
    g_unsetenv ("CI_FB_FUSED_SMEM_LIMIT");
  }
  /* CI_FB_CT: with CI_FB_SMALL, still the compile-time FFT path (for
   * the sanitizers) */
  if ((!small_only || g_getenv ("CI_FB_CT")) && mode == CI_FB_MODE_FUSED) {
    /* the grids the speed goals are measured on: 2048x1200 (mixed
     * radices) and 4096x2400, the compile-time instances and load shapes */
    static const struct { int w, h, seed; const char *what; } big[2] = {
      {1920, 1080, 410, "default glare 1080p"},
      {3840, 2160, 413, "default glare 4K"}
    };
    for (int i = 0; i < 2; i++) {
      k = ci_fb_kernel_for_frame (&gl, NULL, 0.1f, -1, -1, big[i].w, big[i].h,
          1);
      set_kernel (&g, k, big[i].w, big[i].h, 1);
      EXPECT (ci_fb_cuda_fused (g.ctx), "fused: %s not on the fused path",
          big[i].what);
      frame (&g, big[i].what, big[i].w, big[i].h, &fmts[0], &p, big[i].seed);
      frame (&g, big[i].what, big[i].w, big[i].h, &fmts[4], &p,
          big[i].seed + 1);
      ci_fb_kernel_free (k);
    }
    /* a 7 in both grid sizes, odd frame */
    k = random_kernel (37, 31, 1, 30, 3, 27);
    set_kernel (&g, k, 621, 299, 1);
    frame (&g, "grey kernel 37x31, 621x299 (grid 672x336)", 621, 299,
        &fmts[1], &p, 412);
    ci_fb_kernel_free (k);
  }
  if (!small_only) {
    k = ci_fb_kernel_for_frame (&gl, NULL, 0.1f, -1, -1, 641, 359, 1);
    set_kernel (&g, k, 641, 359, 1);
    frame (&g, "default glare", 641, 359, &fmts[0], &p, 400);
    ci_fb_kernel_free (k);
    k = random_kernel (201, 151, 3, 120, 40, 25);
    set_kernel (&g, k, 320, 181, 1);
    frame (&g, "RGB kernel 201x151", 320, 181, &fmts[3], &p, 401);
    ci_fb_kernel_free (k);
  }
  /* frames whose grid would overflow the 32-bit plane offsets or cuFFT's
   * int distances are refused before anything is allocated, and the
   * context goes on working */
  k = random_kernel (3, 5, 1, 1, 2, 60);
  EXPECT (!ci_fb_cuda_frame_fits (k, 26000, 30000, 1)
      && ci_fb_cuda_frame_fits (k, 26000, 30000, 2)
      && ci_fb_cuda_frame_fits (k, 7680, 4320, 1)
      && !ci_fb_cuda_frame_fits (k, 1 << 21, 7, 4), "frame_fits");
  EXPECT (ci_fb_cuda_set_kernel (g.ctx, k, 26000, 30000, 1, g.st) != 0,
      "%s: a 26000x30000 grid was taken", mode_names[mode]);
  EXPECT (ci_fb_cuda_set_kernel (g.ctx, k, 1 << 21, 7, 1, g.st) != 0,
      "%s: a 2^21-wide frame was taken", mode_names[mode]);
  set_kernel (&g, k, 19, 11, 1);
  frame (&g, "after refused sizes, 19x11", 19, 11, &fmts[0], &p, 61);
  ci_fb_kernel_free (k);
  ci_fb_cuda_destroy (g.ctx);
  ci_fb_ref_free (g.ref);
  CK (cudaStreamDestroy (g.st));
}

int
main (int argc, char **argv)
{
  if (ci_cuda_device_count () == 0) {
    return ci_gpu_unavailable ("no CUDA device");
  }
  small_only = g_getenv ("CI_FB_SMALL") != NULL;
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  printf ("device: %s\n", prop.name);
  for (int m = 0; m <= CI_FB_MODE_FUSED; m++)
    run_mode (m);
  if (failures)
    fprintf (stderr, "%d failure(s)\n", failures);
  else
    printf ("all fftbloom CUDA tests passed\n");
  return failures ? 1 : 0;
}
