/* SGM CUDA kernels vs the C reference, bit for bit, stage by stage: census,
 * cost volume, each of the 8 paths alone, the summed volume (8 and 4
 * paths), WTA (left disparity, winner index, right winners), LR check,
 * median, whole pipeline with pitched output, output conversion; the
 * pipeline's u8 form too (each path alone as a uint8 volume, the fused
 * last pass with its WTA), the sweeps (three directions summed per
 * launch, D = 129..512) with their WTA, and the pipeline in every layout.
 * num-disparities 1, 16, 32, 64, 128, 129, 140, 180, 200, 256, 270, 300,
 * 320, 333, 384, 400, 417, 448, 470, 512, 540 .. 930, 1024 on odd sizes
 * and odd pitches, and true disparities placed around the WTA's tails
 * and the seam of its halves.
 * Outputs are poisoned before every launch.
 * Exits 77 (skipped) without a CUDA device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "../../reference/sgm.h"
#include "../../kernels/sgm.h"
#include "cicuda.h"
#include "citest.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf ("CUDA error %s at %s:%d\n", cudaGetErrorString (e_), __FILE__, __LINE__); exit (1); } } while (0)
#define KL(x) do { int e_ = (x); if (e_) { \
  printf ("launcher error %s at %s:%d\n", ci_cuda_error_string (e_), __FILE__, __LINE__); exit (1); } \
  CK (cudaStreamSynchronize (stream)); } while (0)

static int failures, checks;
static cudaStream_t stream;

/* The test's stream is non-blocking: the legacy stream's copies and
 * memsets (a device-to-device copy or a memset returns before it is done,
 * a pageable upload before its DMA lands) are not ordered with its
 * kernels, so every copy and memset goes on it. */
static void
copy (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
  CK (cudaMemcpyAsync (dst, src, n, kind, stream));
  CK (cudaStreamSynchronize (stream));
}

static void *
dalloc (size_t n)
{
  void *p;
  CK (cudaMalloc (&p, n + 256));
  CK (cudaMemsetAsync (p, 0xa5, n + 256, stream));
  return p;
}

static void
poison (void *p, size_t n)
{
  CK (cudaMemsetAsync (p, 0xa5, n, stream));
}

/* What the whole-pipeline checks share: the inputs on the device, the
 * pitched output buffer. */
typedef struct
{
  const uint8_t *dL, *dR;
  size_t stride;
  SgmLuma luma;
  uint8_t *dmed;
  size_t mpitch;
  int w, h;
} Pipe;

/* sgm_cuda_compute on ctx into the poisoned output buffer, copied to host
 * (w x h, dense) when it succeeds; returns the launcher's error. */
/* a pitched device int16 image (w x h, rows pitch bytes apart) into
 * dense host rows */
static void
download_pitched (int16_t * host, const uint8_t * dev, size_t pitch, int w,
    int h)
{
  CK (cudaMemcpy2DAsync (host, (size_t) w * 2, dev, pitch, (size_t) w * 2, h,
          cudaMemcpyDeviceToHost, stream));
  CK (cudaStreamSynchronize (stream));
}

static int
pipe_run (const Pipe * q, SgmCuda * ctx, const SgmParams * p, int16_t * host)
{
  poison (q->dmed, q->mpitch * q->h);
  int err = sgm_cuda_compute (ctx, p, q->dL, q->stride, q->dR, q->stride,
      q->luma, (int16_t *) q->dmed, q->mpitch, stream);
  if (!err) {
    CK (cudaStreamSynchronize (stream));
    download_pitched (host, q->dmed, q->mpitch, q->w, q->h);
  }
  return err;
}

/* the pipeline on ctx equals want (the reference's output) */
static void
check_pipe (const char *tag, const char *what, const Pipe * q,
    SgmCuda * ctx, const SgmParams * p, const int16_t * want, int16_t * host)
{
  KL (pipe_run (q, ctx, p, host));
  checks++;
  if (memcmp (host, want, (size_t) q->w * q->h * 2)) {
    failures++;
    printf ("FAIL %s pipeline%s\n", tag, what);
  }
}

/* compare device buffer with host expectation; report first mismatch */
static void
compare (const char *tag, const char *stage, const void *dev, const void *ref,
    size_t n, size_t elem)
{
  uint8_t *h = malloc (n * elem);
  copy (h, dev, n * elem, cudaMemcpyDeviceToHost);
  long bad = 0;
  size_t first = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp (h + i * elem, (const uint8_t *) ref + i * elem, elem)) {
      if (!bad)
        first = i;
      bad++;
    }
  checks++;
  if (bad) {
    failures++;
    printf ("FAIL %s %s: %ld of %zu differ (first at element %zu)\n", tag,
        stage, bad, n, first);
  }
  free (h);
}

/* a pitched device int16 image (w x h, rows pitch bytes apart) against a
 * dense reference one; hm: a w * h host buffer it is copied into */
static void
compare_pitched (const char *tag, const char *stage, const uint8_t * dev,
    size_t pitch, int w, int h, const int16_t * ref, int16_t * hm)
{
  download_pitched (hm, dev, pitch, w, h);
  checks++;
  if (memcmp (hm, ref, (size_t) w * h * 2)) {
    failures++;
    printf ("FAIL %s %s\n", tag, stage);
  }
}

/* a CUDA sum volume (pixel stride Ds) against a dense reference one */
static void
compare_sum (const char *tag, const char *stage, const uint16_t * dev,
    const uint16_t * ref, size_t n, int D)
{
  const int Ds = sgm_sum_stride (D);
  uint16_t *h = malloc (n * Ds * 2);
  copy (h, dev, n * Ds * 2, cudaMemcpyDeviceToHost);
  long bad = 0;
  size_t first = 0;
  for (size_t i = 0; i < n; i++)
    for (int d = 0; d < D; d++)
      if (h[i * Ds + d] != ref[i * D + d]) {
        if (!bad)
          first = i * D + d;
        bad++;
      }
  checks++;
  if (bad) {
    failures++;
    printf ("FAIL %s %s: %ld of %zu differ (first at element %zu)\n", tag,
        stage, bad, n * D, first);
  }
  free (h);
}

static void
compare_cost (const char *tag, const char *kernel, const uint8_t * dev,
    const uint8_t * ref, size_t n, int D)
{
  const int Ds = sgm_sum_stride (D);
  uint8_t *h = malloc (n * Ds);
  copy (h, dev, n * Ds, cudaMemcpyDeviceToHost);
  long bad = 0;
  for (size_t i = 0; i < n; i++) {
    for (int d = 0; d < Ds; d++) {
      /* padding is defined as 0 */
      const int want = d < D ? ref[i * D + d] : 0;
      if (h[i * Ds + d] != want && bad++ < 3)
        printf ("  pixel %zu, d %d: %d, want %d\n", i, d, h[i * Ds + d],
            want);
    }
  }
  checks++;
  if (bad) {
    failures++;
    printf ("FAIL %s cost volume (%s): %ld differ\n", tag, kernel, bad);
  }
  free (h);
}

static void
make_pair (uint8_t * l, uint8_t * r, size_t stride, int w, int h, int bpp,
    int shift, uint64_t seed)
{
  uint64_t st = seed;
  for (size_t i = 0; i < stride * h; i++)
    l[i] = (uint8_t) (ci_rand_next (&st) >> 56);
  /* smooth it a little so the census is not pure noise */
  for (int y = 0; y < h; y++)
    for (int x = 1; x < w * bpp; x++)
      l[(size_t) y * stride + x] = (uint8_t) ((l[(size_t) y * stride + x] +
              l[(size_t) y * stride + x - 1]) / 2);
  for (int y = 0; y < h; y++) {
    int s = shift + (y * 7) % 5;
    for (int x = 0; x < w; x++) {
      int xs = x + s < w ? x + s : w - 1;
      for (int b = 0; b < bpp; b++)
        r[(size_t) y * stride + (size_t) x * bpp + b] =
            (uint8_t) (l[(size_t) y * stride + (size_t) xs * bpp + b] ^
            ((ci_rand_next (&st) & 7) == 0 ? 8 : 0));
    }
  }
}

/* name = v, or unset when v is empty */
static void
set_or_unset (const char *name, const char *v)
{
  if (*v)
    setenv (name, v, 1);
  else
    unsetenv (name);
}

/* dsh: the true disparity's index (d - min) in row 0 (the rows add 0..4) */
static void
run_case (int w, int h, int D, int mind, int census, int kind, int paths,
    int dsh)
{
  SgmParams p;
  sgm_params_init (&p, w, h);
  p.num_disp = D;
  p.min_disp = mind;
  p.census = census;
  p.paths = paths;
  p.p1 = 9;
  p.p2 = 111;
  p.lr_max_diff = 1;
  SgmLuma luma = { kind, 3, 0, 1, 2 };  /* packed RGB for the RGB kind */
  const int bpp = kind == 0 ? 1 : kind == 1 ? 2 : 3;
  const size_t stride = (size_t) w * bpp + (kind == 1 ? 10 : 7);   /* odd for 8-bit */
  const size_t n = (size_t) w * h, nv = n * D;
  char tag[160];
  snprintf (tag, sizeof tag, "[%dx%d D=%d min=%d census=%d kind=%d paths=%d]",
      w, h, D, mind, census, kind, paths);

  uint8_t *L = malloc (stride * h), *R = malloc (stride * h);
  make_pair (L, R, stride, w, h, bpp, mind + dsh > 0 ? mind + dsh : 1,
      (uint64_t) D * 7919 + w);
  uint8_t *dL = dalloc (stride * h), *dR = dalloc (stride * h);
  copy (dL, L, stride * h, cudaMemcpyHostToDevice);
  copy (dR, R, stride * h, cudaMemcpyHostToDevice);

  /* census */
  uint64_t *cl = malloc (n * 8), *cr = malloc (n * 8);
  sgm_ref_census (L, stride, luma, w, h, census, cl);
  sgm_ref_census (R, stride, luma, w, h, census, cr);
  uint64_t *dcl = dalloc (n * 8), *dcr = dalloc (n * 8);
  KL (sgm_cuda_census (dL, stride, dR, stride, luma, w, h, census, dcl, dcr,
          stream));
  compare (tag, "census left", dcl, cl, n, 8);
  compare (tag, "census right", dcr, cr, n, 8);

  /* costs (kept on the device for the aggregation) */
  const size_t nvs = n * sgm_sum_stride (D);
  uint8_t *cost = malloc (nv), *dcost = dalloc (nvs);
  sgm_ref_cost_volume (cl, cr, &p, cost);
  /* both kernels (the tensor cores from sm_80), then the default's choice */
  poison (dcost, nvs);
  KL (sgm_cuda_cost_volume_popc (dcl, dcr, &p, dcost, stream));
  compare_cost (tag, "popcounts", dcost, cost, n, D);
  poison (dcost, nvs);
  const int merr = sgm_cuda_cost_volume_mma (dcl, dcr, &p, dcost, stream);
  if (merr != (int) cudaErrorNotSupported) {   /* (that is: before sm_80) */
    KL (merr);
    compare_cost (tag, "tensor cores", dcost, cost, n, D);
  }
  poison (dcost, nvs);
  KL (sgm_cuda_cost_volume (dcl, dcr, &p, dcost, stream));
  compare_cost (tag, "default", dcost, cost, n, D);
  free (cost);

  /* each path alone, then the sum; both CUDA implementations */
  uint16_t *acc = malloc (nv * 2), *dacc = dalloc (nvs * 2);
  for (int dir = 0; dir < 8; dir++) {
    char st[64];
    if (sgm_ref_aggregate_path (cl, cr, &p, dir, acc, 0) < 0)
      exit (1);
    for (int v = 0; v < 2; v++) {
      snprintf (st, sizeof st, "path %d (%d,%d) %s", dir, sgm_dir_dx (dir),
          sgm_dir_dy (dir), v ? "census kernel" : "cost kernel");
      poison (dacc, nvs * 2);
      if (v)
        KL (sgm_cuda_aggregate_path_census (dcl, dcr, &p, dir, dacc, 0,
                stream));
      else
        KL (sgm_cuda_aggregate_path (dcost, &p, dir, dacc, 0, stream));
      compare_sum (tag, st, dacc, acc, n, D);
    }
  }
  if (sgm_ref_aggregate (cl, cr, &p, acc) < 0)
    exit (1);
  poison (dacc, nvs * 2);
  for (int dir = 0; dir < p.paths; dir++)
    KL (sgm_cuda_aggregate_path_census (dcl, dcr, &p, dir, dacc, dir > 0,
            stream));
  compare_sum (tag, "summed volume (census kernel)", dacc, acc, n, D);
  poison (dacc, nvs * 2);
  for (int dir = 0; dir < p.paths; dir++)
    KL (sgm_cuda_aggregate_path (dcost, &p, dir, dacc, dir > 0, stream));
  compare_sum (tag, "summed volume", dacc, acc, n, D);
  /* the pipeline's default split: the horizontal paths (0, 1) in a second
   * volume, the others in the first; the WTA adds them */
  uint16_t *dsplit_h = dalloc (nvs * 2), *dsplit_o = dalloc (nvs * 2);
  poison (dsplit_h, nvs * 2);
  poison (dsplit_o, nvs * 2);
  for (int dir = 0; dir < 2; dir++)
    KL (sgm_cuda_aggregate_path (dcost, &p, dir, dsplit_h, dir > 0, stream));
  for (int dir = 2; dir < p.paths; dir++)
    KL (sgm_cuda_aggregate_path (dcost, &p, dir, dsplit_o, dir > 2, stream));

  /* the pipeline's u8 form: each path alone as uint8 volumes, then the
   * fused last pass (path 0 + the others + WTA) */
  const int u8ok = sgm_cuda_u8_ok (&p);
  const size_t vstride = (nvs + 255) & ~(size_t) 255;
  uint8_t *dvols = NULL, *dpaths = NULL;
  if (u8ok) {
    dvols = dalloc (vstride * 8);
    uint16_t *one = malloc (nv * 2);
    uint8_t *h8 = malloc (nvs);
    for (int dir = 0; dir < 8; dir++) {
      char st[64];
      snprintf (st, sizeof st, "path %d u8", dir);
      if (sgm_ref_aggregate_path (cl, cr, &p, dir, one, 0) < 0)
        exit (1);
      poison (dvols + vstride, nvs);
      KL (sgm_cuda_aggregate_path_u8 (dcost, &p, dir, dvols + vstride,
              stream));
      copy (h8, dvols + vstride, nvs, cudaMemcpyDeviceToHost);
      long bad = 0;
      for (size_t i = 0; i < n; i++) {
        for (int d = 0; d < D; d++)
          bad += h8[i * (nvs / n) + d] != one[i * D + d];
        for (int d = D; d < (int) (nvs / n); d++)
          bad += h8[i * (nvs / n) + d] != 0;
      }
      checks++;
      if (bad) {
        failures++;
        printf ("FAIL %s %s: %ld differ\n", tag, st, bad);
      }
    }
    free (one);
    free (h8);
    copy (dvols, dcost, nvs, cudaMemcpyDeviceToDevice);
    for (int dir = 1; dir < p.paths; dir++)
      KL (sgm_cuda_aggregate_path_u8 (dvols, &p, dir, dvols + dir * vstride,
              stream));
    /* every path in its own volume, for the WTA over uint8 volumes */
    dpaths = dalloc (vstride * p.paths);
    for (int dir = 0; dir < p.paths; dir++)
      KL (sgm_cuda_aggregate_path_u8 (dvols, &p, dir, dpaths + dir * vstride,
              stream));
  }
  /* the sweeps: directions 2, 4, 5 (dy = +1) summed, and 3, 6, 7 */
  uint16_t *dsw = NULL;
  const size_t sst = nvs + 56;  /* elements between the two sums */
  if (u8ok && p.paths == 8 && sgm_cuda_sweeps_ok (&p)) {
    dsw = dalloc (sst * 2 * 2);
    /* a ring for either count of columns per warp (the fewer, the more
     * warps and ring slots) */
    const char *fnc = getenv ("CI_SGM_SWEEP_NC");
    char keep[8];
    snprintf (keep, sizeof keep, "%s", fnc ? fnc : "");
    setenv ("CI_SGM_SWEEP_NC", "4", 1);
    const size_t rb = sgm_cuda_sweeps_ring_bytes (&p);
    set_or_unset ("CI_SGM_SWEEP_NC", keep);
    void *dring = dalloc (rb);
    poison (dring, rb);
    uint16_t *want = malloc (nv * 2), *got = malloc (nvs * 2);
    /* the default's columns per warp, then forced to 4 and 8 (where this
     * D takes them); the second run finds the ring as the first left it */
    for (int rep = 0; rep < 4; rep++) {
      if (rep >= 2)
        setenv ("CI_SGM_SWEEP_NC", rep == 2 ? "4" : "8", 1);
      poison (dsw, sst * 2 * 2);
      KL (sgm_cuda_aggregate_sweeps (dcost, &p, dsw, sst, dring, stream));
      for (int s = 0; s < 2; s++) {
        static const int dirs[2][3] = { {2, 4, 5}, {3, 6, 7} };
        for (int k = 0; k < 3; k++)
          if (sgm_ref_aggregate_path (cl, cr, &p, dirs[s][k], want, k > 0) < 0)
            exit (1);
        copy (got, dsw + s * sst, nvs * 2, cudaMemcpyDeviceToHost);
        long bad = 0;
        for (size_t i = 0; i < n; i++)
          for (int d = 0; d < D; d++)
            bad += got[i * (nvs / n) + d] != want[i * D + d];
        checks++;
        if (bad) {
          failures++;
          printf ("FAIL %s sweep %s (run %d): %ld differ\n", tag,
              s ? "up" : "down", rep, bad);
        }
      }
    }
    set_or_unset ("CI_SGM_SWEEP_NC", keep);
    free (want);
    free (got);
    CK (cudaFree (dring));
  } else if (D >= 129 && D <= 512 && u8ok && p.paths == 8) {
    checks++;
    failures++;
    printf ("FAIL %s the sweeps do not apply\n", tag);
  }
  CK (cudaFree (dcost));

  /* WTA, right winners, LR, median */
  int16_t *disp = malloc (n * 2), *dint = malloc (n * 2), *dr = malloc (n * 2);
  int16_t *med = malloc (n * 2);
  sgm_ref_wta_left (acc, &p, disp, dint);
  sgm_ref_wta_right (acc, &p, dr);
  int16_t *ddisp = dalloc (n * 2), *ddint = dalloc (n * 2),
      *ddr = dalloc (n * 2);
  uint32_t *dkey = dalloc (n * 4);
  CK (cudaMemsetAsync (dkey, 0xff, n * 4, stream));
  KL (sgm_cuda_wta (dacc, &p, ddisp, ddint, dkey, stream));
  KL (sgm_cuda_right_from_keys (dkey, (int) n, ddr, stream));
  compare (tag, "WTA disparity", ddisp, disp, n, 2);
  compare (tag, "WTA index", ddint, dint, n, 2);
  compare (tag, "right WTA", ddr, dr, n, 2);
  /* without the right view */
  poison (ddisp, n * 2);
  KL (sgm_cuda_wta (dacc, &p, ddisp, ddint, NULL, stream));
  compare (tag, "WTA disparity (no right)", ddisp, disp, n, 2);
  poison (ddisp, n * 2);
  poison (ddint, n * 2);
  CK (cudaMemsetAsync (dkey, 0xff, n * 4, stream));
  KL (sgm_cuda_wta2 (dsplit_o, dsplit_h, &p, ddisp, ddint, dkey, stream));
  KL (sgm_cuda_right_from_keys (dkey, (int) n, ddr, stream));
  compare (tag, "split WTA disparity", ddisp, disp, n, 2);
  compare (tag, "split WTA index", ddint, dint, n, 2);
  compare (tag, "split right WTA", ddr, dr, n, 2);
  CK (cudaFree (dsplit_h));
  CK (cudaFree (dsplit_o));
  if (dpaths) {
    poison (ddisp, n * 2);
    poison (ddint, n * 2);
    CK (cudaMemsetAsync (dkey, 0xff, n * 4, stream));
    KL (sgm_cuda_wta_u8 (dpaths, p.paths, vstride, &p, ddisp, ddint, dkey,
            stream));
    KL (sgm_cuda_right_from_keys (dkey, (int) n, ddr, stream));
    compare (tag, "uint8 volumes WTA disparity", ddisp, disp, n, 2);
    compare (tag, "uint8 volumes WTA index", ddint, dint, n, 2);
    compare (tag, "uint8 volumes right WTA", ddr, dr, n, 2);
    if (dsw) {
      /* the horizontal paths' volumes and the two sums */
      poison (ddisp, n * 2);
      poison (ddint, n * 2);
      CK (cudaMemsetAsync (dkey, 0xff, n * 4, stream));
      KL (sgm_cuda_wta_sweeps (dpaths, vstride, dsw, sst, &p, ddisp, ddint,
              dkey, stream));
      KL (sgm_cuda_right_from_keys (dkey, (int) n, ddr, stream));
      compare (tag, "sweeps WTA disparity", ddisp, disp, n, 2);
      compare (tag, "sweeps WTA index", ddint, dint, n, 2);
      compare (tag, "sweeps right WTA", ddr, dr, n, 2);
      CK (cudaFree (dsw));
    }
    CK (cudaFree (dpaths));
  }
  /* back to the plain WTA's state */
  CK (cudaMemsetAsync (dkey, 0xff, n * 4, stream));
  KL (sgm_cuda_wta (dacc, &p, ddisp, ddint, dkey, stream));

  if (u8ok && sgm_cuda_final_fits (&p, p.paths - 1)) {
    poison (ddisp, n * 2);
    poison (ddint, n * 2);
    poison (dkey, n * 4);       /* the fused pass writes every key */
    KL (sgm_cuda_aggregate_final (dvols, p.paths - 1, vstride, &p, ddisp,
            ddint, dkey, stream));
    KL (sgm_cuda_right_from_keys (dkey, (int) n, ddr, stream));
    compare (tag, "fused WTA disparity", ddisp, disp, n, 2);
    compare (tag, "fused WTA index", ddint, dint, n, 2);
    compare (tag, "fused right WTA", ddr, dr, n, 2);
    poison (ddisp, n * 2);
    KL (sgm_cuda_aggregate_final (dvols, p.paths - 1, vstride, &p, ddisp,
            ddint, NULL, stream));
    compare (tag, "fused WTA disparity (no right)", ddisp, disp, n, 2);
    /* back to the plain WTA's state for the LR check below */
    CK (cudaMemsetAsync (dkey, 0xff, n * 4, stream));
    KL (sgm_cuda_wta (dacc, &p, ddisp, ddint, dkey, stream));
  } else if (u8ok) {
    printf ("%s fused pass does not fit (row of keys too long)\n", tag);
  }
  if (dvols)
    CK (cudaFree (dvols));

  /* the disparities before the check, for the fused check + median */
  int16_t *dpre = dalloc (n * 2);
  copy (dpre, ddisp, n * 2, cudaMemcpyDeviceToDevice);
  sgm_ref_lr_check (disp, dint, dr, &p);
  KL (sgm_cuda_lr_check (ddisp, ddint, dkey, &p, stream));
  compare (tag, "LR check", ddisp, disp, n, 2);

  sgm_ref_median (disp, med, w, h);
  const size_t mpitch = (size_t) w * 2 + 6;
  uint8_t *dmed = dalloc (mpitch * h);
  KL (sgm_cuda_median (ddisp, (int16_t *) dmed, mpitch, w, h, stream));
  int16_t *hm = malloc (n * 2);
  compare_pitched (tag, "median", dmed, mpitch, w, h, med, hm);
  if (p.lr_max_diff >= 0) {
    poison (dmed, mpitch * h);
    KL (sgm_cuda_lr_median (dpre, ddint, dkey, &p, (int16_t *) dmed, mpitch,
            stream));
    compare_pitched (tag, "LR check + median in one pass", dmed, mpitch, w,
        h, med, hm);
  }
  CK (cudaFree (dpre));

  /* the whole pipeline, pitched output, then the output conversions */
  int16_t *full = malloc (n * 2);
  if (sgm_ref_compute (&p, L, stride, R, stride, luma, full) < 0)
    exit (1);
  const Pipe pp = { dL, dR, stride, luma, dmed, mpitch, w, h };
  SgmCuda *ctx;
  KL (sgm_cuda_create (&ctx));
  check_pipe (tag, "", &pp, ctx, &p, full, hm);
  const int chosen = sgm_cuda_layout (ctx);
  /* every scratch layout the pipeline can take (forced where it applies;
   * where it does not, the unforced choice runs) */
  for (int l = 0; l < 5; l++) {
    char v[8];
    snprintf (v, sizeof v, "%d", l);
    setenv ("CI_SGM_LAYOUT", v, 1);
    char what[24];
    snprintf (what, sizeof what, ", layout %d", l);
    SgmCuda *cl2;
    KL (sgm_cuda_create (&cl2));
    check_pipe (tag, what, &pp, cl2, &p, full, hm);
    /* the conditions below restate kernels/sgm.cu's layout_applies */
    const int applies = l == 4 ? sgm_cuda_u8_ok (&p) && p.paths == 8
        && sgm_cuda_sweeps_ok (&p) : l >= 2 || (sgm_cuda_u8_ok (&p) && (l == 0
            || sgm_cuda_final_fits (&p, p.paths - 1)));
    const int want = applies ? l : chosen;
    checks++;
    if (sgm_cuda_layout (cl2) != want) {
      failures++;
      printf ("FAIL %s pipeline%s: layout %d ran, %d expected\n", tag, what,
          sgm_cuda_layout (cl2), want);
    }
    sgm_cuda_destroy (cl2);
  }
  unsetenv ("CI_SGM_LAYOUT");
  /* out of memory: each layout's allocation fails in turn (a pretended
   * limit just below it); the context falls back and the result stays */
  {
    size_t lim = (size_t) -1;
    int prev = -1;
    for (int step = 0; step < 4; step++) {
      char v[32];
      snprintf (v, sizeof v, "%zu", lim);
      setenv ("CI_SGM_MAX_BYTES", v, 1);       /* read by sgm_cuda_create */
      SgmCuda *cm;
      KL (sgm_cuda_create (&cm));
      const int err = pipe_run (&pp, cm, &p, hm);
      if (err == cudaErrorMemoryAllocation && step > 0) {
        /* no smaller layout left (on tiny frames they are all about the
         * same size): a clean error, then stop */
        sgm_cuda_destroy (cm);
        break;
      }
      KL (err);
      const size_t got = sgm_cuda_bytes (cm);
      /* rank in kernels/sgm.cu's order of preference (pick_layout):
       * sweeps (4), u8 + WTA (0), u8 (1), split (2), compact (3) */
      const int lay = (sgm_cuda_layout (cm) + 1) % 5;
      checks++;
      /* each limit moves the context to a later layout */
      if (memcmp (hm, full, n * 2) || got > lim || lay <= prev) {
        failures++;
        printf ("FAIL %s pipeline under a %zu-byte limit (%zu held, layout "
            "%d after %d)\n", tag, lim, got, lay, prev);
      }
      prev = lay;
      sgm_cuda_destroy (cm);
      lim = got - 1;            /* the next run cannot have this layout */
    }
    unsetenv ("CI_SGM_MAX_BYTES");
  }
  {
    /* p2 too large for uint8 path costs: the compact layout (uint16 sum) */
    SgmParams q = p;
    q.p2 = 250;
    int16_t *fq = malloc (n * 2);
    if (sgm_ref_compute (&q, L, stride, R, stride, luma, fq) < 0)
      exit (1);
    SgmCuda *cq;
    KL (sgm_cuda_create (&cq));
    int16_t *hq = malloc (n * 2);
    KL (pipe_run (&pp, cq, &q, hq));
    checks++;
    if (sgm_cuda_u8_ok (&q) || memcmp (hq, fq, n * 2)) {
      failures++;
      printf ("FAIL %s pipeline, compact layout\n", tag);
    }
    const int qlay = sgm_cuda_layout (cq);
    sgm_cuda_destroy (cq);
    /* the first context, whose layout choice is cached on the parameters
     * it depends on: another uniqueness ratio and LR limit (not among
     * them) keep its layout; p2 = 250 (among them) moves it to the layout
     * a new context takes for it; p again takes its first layout */
    SgmParams v = p;
    v.uniqueness = p.uniqueness > SGM_UNIQ_ONE / 2 ? SGM_UNIQ_ONE / 2 :
        SGM_UNIQ_ONE * 9 / 10;
    v.lr_max_diff = p.lr_max_diff == 3 ? 1 : 3;
    int16_t *fv = malloc (n * 2);
    if (sgm_ref_compute (&v, L, stride, R, stride, luma, fv) < 0)
      exit (1);
    const struct
    {
      const SgmParams *p;
      const int16_t *want;
      int layout;
    } seq[] = { {&v, fv, chosen}, {&q, fq, qlay}, {&p, full, chosen} };
    for (int i = 0; i < 3; i++) {
      KL (pipe_run (&pp, ctx, seq[i].p, hq));
      checks++;
      if (memcmp (hq, seq[i].want, n * 2)
          || sgm_cuda_layout (ctx) != seq[i].layout) {
        failures++;
        printf ("FAIL %s pipeline, one context, parameter set %d: layout "
            "%d, %d expected%s\n", tag, i, sgm_cuda_layout (ctx),
            seq[i].layout, memcmp (hq, seq[i].want, n * 2) ?
            ", disparities differ" : "");
      }
    }
    free (fv);
    free (fq);
    free (hq);
    /* the first context again, for the conversions below */
    KL (pipe_run (&pp, ctx, &p, hm));
  }
  static const SgmOutFormat fmts[] = {
    {SGM_OUT_GRAY16, 0, 0, 0, 0}, {SGM_OUT_GRAY8, 0, 0, 0, 0},
    {SGM_OUT_COLOUR, 2, 1, 0, 3}
  };
  for (int f = 0; f < 3; f++) {
    const size_t op = (size_t) w * sgm_out_bytes (fmts[f]) + 4;
    /* poisoned, padding included: 0 is a valid output, 0xa5 a sentinel
     * that the rows' 4 padding bytes must keep */
    uint8_t *ho = malloc (op * h), *dho = malloc (op * h);
    uint8_t *dout = dalloc (op * h);
    memset (ho, 0xa5, op * h);
    CK (cudaMemsetAsync (dout, 0xa5, op * h, stream));
    CK (cudaDeviceSynchronize ());
    sgm_ref_convert (full, w, h, ho, op, fmts[f], &p);
    KL (sgm_cuda_convert ((int16_t *) dmed, mpitch, dout, op, fmts[f], &p,
            stream));
    copy (dho, dout, op * h, cudaMemcpyDeviceToHost);
    checks++;
    if (memcmp (ho, dho, op * h)) {
      failures++;
      printf ("FAIL %s convert %d\n", tag, f);
    }
    free (ho);
    free (dho);
    CK (cudaFree (dout));
  }
  long inval = 0;
  for (size_t i = 0; i < n; i++)
    inval += full[i] == SGM_INVALID;
  printf ("%s done, %.1f%% invalid, scratch %zu bytes\n", tag,
      100.0 * inval / n, sgm_cuda_bytes (ctx));
  sgm_cuda_destroy (ctx);

  free (L);
  free (R);
  free (cl);
  free (cr);
  free (acc);
  free (disp);
  free (dint);
  free (dr);
  free (med);
  free (hm);
  free (full);
  void *dev[] = { dL, dR, dcl, dcr, dacc, ddisp, ddint, ddr, dkey, dmed };
  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    CK (cudaFree (dev[i]));
}

int
main (int argc, char **argv)
{
  if (ci_cuda_device_count () == 0) {
    return ci_gpu_unavailable ("no CUDA device");
  }
  CK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  /* "small": only one tiny case per D (for compute-sanitizer) */
  const int small = argc > 1 && !strcmp (argv[1], "small");
  static const struct
  {
    int w, h, D, mind, census, kind, paths, dsh;     /* dsh 0: D / 3 */
  } cases[] = {
    {45, 33, 1, 0, SGM_CENSUS_9X7, 0, 8},
    {77, 31, 16, 0, SGM_CENSUS_9X7, 0, 8},
    {101, 27, 64, -5, SGM_CENSUS_SYM_9X7, 2, 8},
    {163, 19, 128, 0, SGM_CENSUS_9X7, 1, 8},
    {171, 21, 129, 7, SGM_CENSUS_9X7, 0, 4},
    {301, 9, 270, 0, SGM_CENSUS_9X7, 2, 8},
    {289, 11, 300, -3, SGM_CENSUS_SYM_9X7, 0, 8},
    {555, 7, 512, 0, SGM_CENSUS_9X7, 0, 8},
    {83, 13, 200, 0, SGM_CENSUS_9X7, 0, 8},
    {301, 9, 256, 2, SGM_CENSUS_9X7, 0, 8},
    /* the sweeps at D = 256: warps of 4 columns with 1..4 in the last,
     * rows past the ring and its tags (8 and 128), one and two columns */
    {263, 23, 256, -3, SGM_CENSUS_SYM_9X7, 2, 8},
    {130, 300, 256, 0, SGM_CENSUS_9X7, 0, 8},
    {5, 40, 256, 0, SGM_CENSUS_9X7, 1, 8},
    {2, 17, 256, 0, SGM_CENSUS_9X7, 0, 8},
    {1, 9, 256, 0, SGM_CENSUS_9X7, 0, 8},
    /* one and two rows (the sweeps take rows two at a time) */
    {263, 1, 256, 0, SGM_CENSUS_9X7, 0, 8},
    {301, 2, 270, 1, SGM_CENSUS_9X7, 0, 8},
    {262, 10, 256, 0, SGM_CENSUS_9X7, 0, 4},
    {3077, 6, 256, 1, SGM_CENSUS_9X7, 2, 8},   /* 8 columns per warp */
    {1061, 5, 1024, 0, SGM_CENSUS_9X7, 1, 8},
    /* more pair counts per lane, and the WTA's tail after 3 groups (400) */
    {197, 7, 180, 1, SGM_CENSUS_9X7, 0, 8},
    {351, 5, 333, 0, SGM_CENSUS_SYM_9X7, 0, 8},
    {423, 5, 400, -4, SGM_CENSUS_9X7, 0, 8},
    {431, 3, 417, 0, SGM_CENSUS_9X7, 0, 8},
    {489, 5, 470, 3, SGM_CENSUS_9X7, 0, 8},
    /* each piece mix of the interleaved passes (D > 256) */
    {611, 3, 600, 0, SGM_CENSUS_9X7, 0, 8},
    {713, 3, 700, -2, SGM_CENSUS_9X7, 0, 4},
    {821, 3, 800, 0, SGM_CENSUS_9X7, 0, 8},
    {557, 3, 540, 0, SGM_CENSUS_9X7, 0, 8},
    {761, 3, 750, 0, SGM_CENSUS_SYM_9X7, 0, 8},
    {869, 3, 850, 1, SGM_CENSUS_9X7, 0, 8},
    {941, 3, 930, 0, SGM_CENSUS_9X7, 0, 8},
    /* D = 65..128 (16-lane lines) at odd D and a wide frame */
    {133, 11, 100, 0, SGM_CENSUS_9X7, 0, 8},
    {70, 9, 65, 2, SGM_CENSUS_SYM_9X7, 0, 8},
    {3079, 4, 128, 0, SGM_CENSUS_9X7, 0, 8},
    /* D that fill the passes' lanes exactly (no padding masks) */
    {97, 9, 32, 0, SGM_CENSUS_9X7, 0, 8},
    {331, 5, 320, 0, SGM_CENSUS_9X7, 0, 8},
    {397, 5, 384, -1, SGM_CENSUS_SYM_9X7, 0, 4},
    {459, 3, 448, 0, SGM_CENSUS_9X7, 0, 8},
    /* winners in and around the WTA's tail (after 1, 2 and 3 groups of
     * 128): its second best and subpixel neighbours on either side */
    {171, 9, 140, 0, SGM_CENSUS_9X7, 0, 8, 125},
    {301, 9, 270, 0, SGM_CENSUS_9X7, 0, 8, 253},
    {311, 9, 270, -3, SGM_CENSUS_9X7, 0, 8, 259},
    {301, 9, 270, 0, SGM_CENSUS_9X7, 0, 8, 265},
    {423, 5, 400, 0, SGM_CENSUS_9X7, 0, 8, 382},
    /* D = 401..512: the WTA in two halves of 256 (their seam between
     * d = 255 and 256), 8 and 4 paths */
    {555, 7, 512, 0, SGM_CENSUS_9X7, 0, 8, 253},
    {489, 5, 470, -3, SGM_CENSUS_SYM_9X7, 0, 8, 252},
    {431, 5, 417, 0, SGM_CENSUS_9X7, 0, 4, 254},
    {533, 3, 512, 0, SGM_CENSUS_9X7, 1, 4, 505},
    {1, 1, 1, 0, SGM_CENSUS_9X7, 0, 8},
    {3, 2, 16, 0, SGM_CENSUS_9X7, 0, 8},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int w = cases[i].w, h = cases[i].h;
    if (small) {
      w = w > 40 ? 40 + (int) (i % 3) : w;
      h = h > 5 ? 5 : h;
    }
    run_case (w, h, cases[i].D, cases[i].mind, cases[i].census,
        cases[i].kind, cases[i].paths,
        cases[i].dsh ? cases[i].dsh : cases[i].D / 3);
  }
  printf ("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
