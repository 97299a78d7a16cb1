/* CUDA kernel vs C reference (bit-exact, odd sizes and pitches, every layout),
 * and NPP nppiResize SUPER vs the reference when NPP is present (exact-match table).
 * Exits 77 (skipped) without a CUDA device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "supersample.h"        /* reference */
#include "cicuda.h"
#include "citest.h"
#include "cinpp.h"

int ci_cuda_supersample_plane (const void *src, const CiSsPlane * sp,
    void *dst, const CiSsPlane * dp, ci_stream_t stream);

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf ("CUDA error %s at %s:%d\n", cudaGetErrorString (e_), __FILE__, __LINE__); exit (1); } } while (0)

static int failures, cases;
static unsigned max_diff, last_first;
static int first_bad_x = -1, first_bad_y, first_ref, first_got;
static cudaStream_t stream;

static void
fill (uint8_t * p, size_t stride, int w, int h, int C, int bps, int shift, int kind, uint64_t seed)
{
  ci_fill_random (p, stride * h, seed);
  if (kind == 1)                /* gradient */
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w * C; x++) {
        unsigned v = (unsigned) (x * 7 + y * 3);
        if (bps == 1)
          p[y * stride + x] = (uint8_t) v;
        else
          ((uint16_t *) (p + y * stride))[x] = (uint16_t) (v * 97);
      }
  if (kind == 2)                /* constant: 200 of 255, 51400 of 65535 */
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w * C; x++) {
        if (bps == 1)
          p[y * stride + x] = 200;
        else
          ((uint16_t *) (p + y * stride))[x] = 51400;
      }
  if (shift)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w * C; x++)
        ((uint16_t *) (p + y * stride))[x] &= (uint16_t) (0xffff << shift);
}

/* mode 0: CUDA vs reference; mode 1: NPP vs reference. Returns mismatching samples. */
static long
compare (int sw, int sh, int dw, int dh, int C, int bps, int shift, int spad, int dpad,
    int kind, int mode, long *total)
{
  CiSsPlane sp = { sw, sh, C, bps, shift, (size_t) sw * C * bps + spad };
  CiSsPlane dp = { dw, dh, C, bps, shift, (size_t) dw * C * bps + dpad };
  size_t sn = sp.stride * sh, dn = dp.stride * dh;
  uint8_t *h_src = malloc (sn), *h_ref = malloc (dn), *h_out = malloc (dn);
  uint8_t *d_src, *d_dst;
  fill (h_src, sp.stride, sw, sh, C, bps, shift, kind, (uint64_t) sw * 31 + dh + C);
  ci_ref_supersample_plane (h_src, &sp, h_ref, &dp);
  CK (cudaMalloc ((void **) &d_src, sn + 64));
  CK (cudaMalloc ((void **) &d_dst, dn + 64));
  CK (cudaMemcpy (d_src, h_src, sn, cudaMemcpyHostToDevice));
  /* poison: every sample must be written. It alternates from call to call,
   * so that a sample left unwritten cannot pass by equalling it each time. */
  static int calls;
  const uint8_t poison = calls++ & 1 ? 0x5a : 0xa5;
  CK (cudaMemset (d_dst, poison, dn));
  /* cudaMemset runs on the legacy stream, which a non-blocking stream does not
   * wait for: without this the poison can land after the kernel. */
  CK (cudaDeviceSynchronize ());
  if (mode == 0) {
    int e = ci_cuda_supersample_plane (d_src, &sp, d_dst, &dp, (ci_stream_t) stream);
    if (e) {
      printf ("launch failed for %dx%d->%dx%d C%d bps%d: %s\n", sw, sh, dw, dh, C, bps,
          ci_cuda_error_string (e));
      exit (1);
    }
  } else {
    /* Legacy default stream, then a device-wide sync: whatever stream NPP
     * really runs on, its result is complete before we read it. */
    int st = ci_npp_resize_super (d_src, (int) sp.stride, sw, sh, d_dst, (int) dp.stride,
        dw, dh, C, bps, 0);
    CK (cudaDeviceSynchronize ());
    if (st != 0) {
      printf ("NPP status %d for %dx%d->%dx%d C%d\n", st, sw, sh, dw, dh, C);
      *total = 0;
      cudaFree (d_src);
      cudaFree (d_dst);
      free (h_src); free (h_ref); free (h_out);
      return -1;
    }
  }
  CK (cudaStreamSynchronize (stream));
  CK (cudaGetLastError ());
  CK (cudaMemcpy (h_out, d_dst, dn, cudaMemcpyDeviceToHost));
  long bad = 0;
  *total = (long) dw * dh * C;
  last_first = bps == 1 ? h_out[0] : ((uint16_t *) h_out)[0];
  for (int y = 0; y < dh; y++)
    for (int x = 0; x < dw * C; x++) {
      unsigned a, b;
      if (bps == 1) {
        a = h_ref[y * dp.stride + x];
        b = h_out[y * dp.stride + x];
      } else {
        a = ((uint16_t *) (h_ref + y * dp.stride))[x];
        b = ((uint16_t *) (h_out + y * dp.stride))[x];
      }
      if (a != b) {
        unsigned d = a > b ? a - b : b - a;
        max_diff = d > max_diff ? d : max_diff;
        if (first_bad_x < 0) {
          first_bad_x = x;
          first_bad_y = y;
          first_ref = (int) a;
          first_got = (int) b;
        }
      }
      bad += a != b;
    }
  /* the row padding keeps the poison: nothing is written past a row */
  for (int y = 0; y < dh; y++)
    for (size_t x = (size_t) dw * C * bps; x < dp.stride; x++)
      bad += h_out[y * dp.stride + x] != poison;
  cudaFree (d_src);
  cudaFree (d_dst);
  free (h_src);
  free (h_ref);
  free (h_out);
  return bad;
}

/* One NPP-vs-model comparison added to the totals: its mismatching
 * samples, or -1 (counted as not compared) when NPP could not run it. */
static long
npp_tally (int sw, int sh, int dw, int dh, int C, int bps, int kind, long *tot,
    long *all, long *allbad, int *skipped, int *nfail)
{
  long b = compare (sw, sh, dw, dh, C, bps, 0, 0, 0, kind, 1, tot);
  if (b < 0) {
    (*skipped)++;
    return -1;
  }
  *all += *tot;
  *allbad += b;
  cases++;
  if (b)
    failures++, (*nfail)++;
  return b;
}

static const int issue_sizes[][4] = {
  {6, 6, 4, 4}, {128, 128, 96, 96}, {641, 479, 320, 240}, {1919, 1079, 997, 541},
  {64, 64, 63, 1}, {7, 5, 1, 1}, {1000, 1000, 3, 997}, {3840, 2160, 1920, 1080},
  {128, 128, 64, 64}, {90, 90, 60, 60}, {250, 250, 100, 100}, {500, 500, 300, 300},
  {1920, 1080, 1280, 720}, {1280, 720, 640, 360}, {4096, 2160, 1000, 1000},
  {333, 777, 331, 2}, {2, 2, 1, 1}, {17, 1000, 16, 999}, {1000, 17, 999, 16},
};

/* `probe SW SH DW DH C BPS`: NPP vs the model for one geometry, across source
 * and destination step paddings and input kinds — to locate a disagreement. */
static int
probe (char **a)
{
  int sw = atoi (a[0]), sh = atoi (a[1]), dw = atoi (a[2]), dh = atoi (a[3]);
  int C = atoi (a[4]), bps = atoi (a[5]);
  if (!ci_npp_load ()) {
    printf ("no NPP\n");
    return 77;
  }
  static const int pads[][2] = { {0, 0}, {1, 0}, {0, 1}, {3, 5}, {64, 64}, {-1, -1} };
  for (int kind = 0; kind < 2; kind++)
    for (int i = 0; i < 6; i++) {
      int sp = pads[i][0], dp = pads[i][1];
      if (sp < 0) {             /* align both steps to 256 bytes */
        sp = (256 - (sw * C * bps) % 256) % 256;
        dp = (256 - (dw * C * bps) % 256) % 256;
      }
      long tot;
      max_diff = 0;
      first_bad_x = -1;
      long bad = compare (sw, sh, dw, dh, C, bps, 0, sp * bps, dp * bps, kind, 1, &tot);
      printf ("%dx%d->%dx%d C%d bps%d kind%d src+%d dst+%d: %ld/%ld differ, max %u",
          sw, sh, dw, dh, C, bps, kind, sp * bps, dp * bps, bad, tot, max_diff);
      if (first_bad_x >= 0)
        printf (", first at sample %d row %d: model %d NPP %d", first_bad_x, first_bad_y,
            first_ref, first_got);
      printf ("\n");
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (ci_cuda_device_count () == 0) {
    return ci_gpu_unavailable ("no CUDA device");
  }
  CK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  if (argc == 8 && strcmp (argv[1], "probe") == 0)
    return probe (argv + 2);
  int n = sizeof issue_sizes / sizeof issue_sizes[0];
  /* CI_SS_QUICK: every kernel path, but no frame over 1 Mpixel and no NPP
   * table — for compute-sanitizer, which runs kernels ~100x slower. */
  const int quick = getenv ("CI_SS_QUICK") ? atoi (getenv ("CI_SS_QUICK")) : 0;
  /* CI_SS_QUICK=2 (racecheck, slower still): a few cases of each loop */
  const int few = quick >= 2;

  /* 1. CUDA vs reference: every case, channel count, depth, aligned and odd pitches. */
  for (int i = 0; i < n; i++)
    for (int C = 1; C <= 4; C++)
      for (int bps = 1; bps <= 2; bps++)
        for (int pad = 0; pad < 2; pad++) {
          if (quick && (long) issue_sizes[i][0] * issue_sizes[i][1] > (few ? (1L << 16) : (1L << 20)))
            continue;
          long tot, bad = compare (issue_sizes[i][0], issue_sizes[i][1], issue_sizes[i][2],
              issue_sizes[i][3], C, bps, 0, pad ? 3 * bps : 0, pad ? 5 * bps : 0, i & 1, 0, &tot);
          cases++;
          if (bad) {
            failures++;
            printf ("FAIL cuda %dx%d->%dx%d C%d bps%d pad%d: %ld/%ld differ\n",
                issue_sizes[i][0], issue_sizes[i][1], issue_sizes[i][2], issue_sizes[i][3],
                C, bps, pad, bad, tot);
          }
        }
  uint64_t st = 777;
  for (int k = 0; k < (few ? 24 : 400); k++) {
    int sw = 1 + ci_rand_next (&st) % 300, sh = 1 + ci_rand_next (&st) % 300;
    int dw = 1 + ci_rand_next (&st) % sw, dh = 1 + ci_rand_next (&st) % sh;
    int C = 1 + ci_rand_next (&st) % 4, bps = 1 + ci_rand_next (&st) % 2;
    int shift = (bps == 2 && C <= 2 && (k % 5) == 0) ? 6 : 0;
    long tot, bad = compare (sw, sh, dw, dh, C, bps, shift, bps * (ci_rand_next (&st) % 9),
        bps * (ci_rand_next (&st) % 9), k & 1, 0, &tot);
    cases++;
    if (bad) {
      failures++;
      printf ("FAIL cuda random %dx%d->%dx%d C%d bps%d shift%d: %ld/%ld differ\n",
          sw, sh, dw, dh, C, bps, shift, bad, tot);
    }
  }
  /* Dyadic ratios (1.25, 1.5, 2, 2.5, 3, 4, ...), which take the integer path. */
  static const int num[] = { 5, 3, 2, 5, 3, 4, 7, 1 }, den[] = { 4, 2, 1, 2, 1, 1, 4, 1 };
  for (int k = 0; k < (few ? 40 : 160); k++) {
    int r = k % 8, ry = (k / 8) % 8;
    /* multiples of the denominators: every draw is an exact ratio */
    int dw = den[r] * (1 + ci_rand_next (&st) % (120 / den[r]));
    int dh = den[ry] * (1 + ci_rand_next (&st) % (120 / den[ry]));
    int sw = dw * num[r] / den[r], sh = dh * num[ry] / den[ry];
    int C = 1 + ci_rand_next (&st) % 4, bps = 1 + ci_rand_next (&st) % 2;
    long tot, bad = compare (sw, sh, dw, dh, C, bps, 0, bps * (k % 3 ? 0 : 3),
        bps * (k % 5 ? 0 : 1), k & 1, 0, &tot);
    cases++;
    if (bad) {
      failures++;
      printf ("FAIL cuda dyadic %dx%d->%dx%d C%d bps%d: %ld/%ld differ\n",
          sw, sh, dw, dh, C, bps, bad, tot);
    }
  }
  /* The word-wide one-channel path: ratios 2, 3, 4, 1.5, 2.5, 1.25 across, any
   * dyadic ratio down, rows on 4-byte boundaries; ragged right edges included. */
  static const int vnum[] = { 2, 3, 4, 3, 5, 5 }, vden[] = { 1, 1, 1, 2, 2, 4 };
  for (int k = 0; k < (few ? 60 : 240); k++) {
    int r = k % 6, ry = (k / 6) % 8;
    int dw = 1 + ci_rand_next (&st) % 200, dh = 1 + ci_rand_next (&st) % 60;
    if (k % 3 == 0)
      dw = (dw + 15) & ~15;     /* no ragged edge */
    int sw = dw * vnum[r] / vden[r], sh = dh * num[ry] / den[ry];
    if (sw * vden[r] != dw * vnum[r] || sh * den[ry] != dh * num[ry])
      continue;
    int bps = 1 + (k / 48) % 2, shift = (bps == 2 && k % 4 == 1) ? 6 : 0;
    int spad = (4 - (sw * bps) % 4) % 4 + 4 * (k % 2), dpad = (4 - (dw * bps) % 4) % 4;
    long tot, bad = compare (sw, sh, dw, dh, 1, bps, shift, spad, dpad, k & 1, 0, &tot);
    cases++;
    if (bad) {
      failures++;
      printf ("FAIL cuda dyadic-vec %dx%d->%dx%d bps%d shift%d: %ld/%ld differ\n",
          sw, sh, dw, dh, bps, shift, bad, tot);
    }
  }
  /* The 16-byte four-channel path (8-bit, 2, 3, 4 and 1.5 across, rows on
   * 16-byte boundaries); ragged right edges included. */
  static const int rnum[] = { 2, 3, 4, 3 }, rden[] = { 1, 1, 1, 2 };
  for (int k = 0; k < (few ? 24 : 160); k++) {
    int r = k % 4, ry = (k / 4) % 8;
    int dw = 1 + ci_rand_next (&st) % 150, dh = 1 + ci_rand_next (&st) % 50;
    if (k % 3 == 0)
      dw = (dw + 7) & ~7;       /* no ragged edge */
    int sw = dw * rnum[r] / rden[r], sh = dh * num[ry] / den[ry];
    if (sw * rden[r] != dw * rnum[r] || sh * den[ry] != dh * num[ry])
      continue;
    int spad = (16 - (sw * 4) % 16) % 16 + 16 * (k % 2), dpad = (16 - (dw * 4) % 16) % 16;
    long tot, bad = compare (sw, sh, dw, dh, 4, 1, 0, spad, dpad, k & 1, 0, &tot);
    cases++;
    if (bad) {
      failures++;
      printf ("FAIL cuda dyadic-rgba %dx%d->%dx%d: %ld/%ld differ\n", sw, sh, dw, dh,
          bad, tot);
    }
  }
  /* Large footprints: the shared-memory window kernel, and the warp kernel
   * where one output's window exceeds shared memory. */
  static const int big[][4] = {
    {1000, 1000, 3, 997}, {64, 64, 63, 1}, {5000, 7, 3, 2}, {7, 5000, 2, 3},
    {3000, 3000, 1, 1}, {20000, 3, 1, 1}, {999, 999, 7, 5}, {4097, 33, 5, 4},
    {2000, 1500, 61, 37}, {1023, 4001, 9, 500}, {20, 400, 5, 3}, {31, 777, 9, 10},
    {400, 20, 3, 5},
  };
  for (int i = 0; i < (int) (sizeof big / sizeof big[0]); i++)
    for (int C = 1; C <= 4; C++)
      for (int bps = 1; bps <= 2; bps++)
        for (int pad = 0; pad < 2; pad++) {
          if (quick && (long) big[i][0] * big[i][1] > (few ? (1L << 16) : (1L << 20)))
            continue;
          long tot, bad = compare (big[i][0], big[i][1], big[i][2], big[i][3], C, bps,
              (bps == 2 && C == 1 && pad) ? 6 : 0, pad ? 3 * bps : 0, pad ? 5 * bps : 0,
              i & 1, 0, &tot);
          cases++;
          if (bad) {
            failures++;
            printf ("FAIL cuda large %dx%d->%dx%d C%d bps%d pad%d: %ld/%ld differ\n",
                big[i][0], big[i][1], big[i][2], big[i][3], C, bps, pad, bad, tot);
          }
        }
  for (int k = 0; k < (few ? 6 : quick ? 20 : 200); k++) {
    int sw = 8 + ci_rand_next (&st) % 1500, sh = 8 + ci_rand_next (&st) % 1500;
    int dw = 1 + ci_rand_next (&st) % (sw / 7), dh = 1 + ci_rand_next (&st) % (sh / 7);
    if (k & 1)
      dh = 1 + ci_rand_next (&st) % sh;
    int C = 1 + ci_rand_next (&st) % 4, bps = 1 + ci_rand_next (&st) % 2;
    long tot, bad = compare (sw, sh, dw, dh, C, bps, 0, bps * (ci_rand_next (&st) % 9),
        bps * (ci_rand_next (&st) % 9), k & 1, 0, &tot);
    cases++;
    if (bad) {
      failures++;
      printf ("FAIL cuda random-large %dx%d->%dx%d C%d bps%d: %ld/%ld differ\n",
          sw, sh, dw, dh, C, bps, bad, tot);
    }
  }
  /* Outputs taller than 65,535 blocks of rows, one per kernel path (in the
   * order tile, dyadic, word-wide dyadic, 16-byte dyadic, window, fixed):
   * each launches in bands. Then sources over 2^24 rows, which take the
   * warp kernel (the tile and window kernels wrote past their shared memory
   * on the third and fourth: float span ends coarser than a pixel). The
   * sixth reads 2.8 GB; none is for the sanitizers. */
  static const int tall[][6] = {
    {53, 600001, 40, 600001, 1, 1}, {80, 524289, 40, 524289, 3, 1},
    {256, 524289, 128, 524289, 1, 1}, {256, 524289, 128, 524289, 4, 1},
    {400, 524289, 40, 524289, 1, 1}, {132, 2621445, 32, 524289, 4, 2},
    {1, 30000000, 1, 28000000, 1, 1}, {1, 100000000, 1, 94000000, 1, 1},
    {1, 81267108, 1, 3614763, 1, 1}, {1, 40000000, 1, 13000000, 2, 2},
  };
  for (int i = 0; !quick && i < (int) (sizeof tall / sizeof tall[0]); i++) {
    long tot, bad = compare (tall[i][0], tall[i][1], tall[i][2], tall[i][3], tall[i][4],
        tall[i][5], 0, 0, 0, i & 1, 0, &tot);
    cases++;
    if (bad) {
      failures++;
      printf ("FAIL cuda tall %dx%d->%dx%d C%d bps%d: %ld/%ld differ\n", tall[i][0],
          tall[i][1], tall[i][2], tall[i][3], tall[i][4], tall[i][5], bad, tot);
    }
  }
  printf ("CUDA vs reference: %d cases, %d failed\n", cases, failures);

  /* 2. NPP vs reference (the model) — the bit-exactness claim itself.
   * CI_REQUIRE_NPP: not comparing (no NPP, an NPP error) fails. */
  const int need_npp = getenv ("CI_REQUIRE_NPP") != NULL;
  if (quick) {
    printf ("quick mode: NPP comparison skipped\n");
  } else if (!ci_npp_load ()) {
    printf ("NPP not found: NPP comparison skipped\n");
    if (need_npp)
      failures++, cases++;
  } else {
    int nfail = 0, skipped = 0;
    long all = 0, allbad = 0;
    printf ("\n| case | C | bits | samples | exact with NPP |\n|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++)
      for (int C = 1; C <= 4; C++) {
        if (C == 2)
          continue;
        for (int bps = 1; bps <= 2; bps++) {
          long tot = 0, bad = 0;
          for (int kind = 0; kind < 2; kind++) {
            long t;
            long b = compare (issue_sizes[i][0], issue_sizes[i][1], issue_sizes[i][2],
                issue_sizes[i][3], C, bps, 0, 0, 0, kind, 1, &t);
            if (b < 0) {
              bad = -1;
              break;
            }
            tot += t;
            bad += b;
          }
          if (bad < 0) {
            printf ("| %dx%d→%dx%d | %d | %d | - | not compared (error) |\n",
                issue_sizes[i][0], issue_sizes[i][1], issue_sizes[i][2],
                issue_sizes[i][3], C, bps * 8);
            skipped++;
            continue;
          }
          all += tot;
          allbad += bad;
          printf ("| %dx%d→%dx%d | %d | %d | %ld | %.4f %% |\n", issue_sizes[i][0],
              issue_sizes[i][1], issue_sizes[i][2], issue_sizes[i][3], C, bps * 8, tot,
              100.0 * (tot - bad) / tot);
          cases++;
          if (bad)
            failures++, nfail++;
        }
      }
    for (int k = 0; k < 300; k++) {
      int sw = 2 + ci_rand_next (&st) % 700, sh = 2 + ci_rand_next (&st) % 700;
      int dw = 1 + ci_rand_next (&st) % (sw - 1), dh = 1 + ci_rand_next (&st) % (sh - 1);
      int Cs[3] = { 1, 3, 4 };
      int C = Cs[ci_rand_next (&st) % 3], bps = 1 + ci_rand_next (&st) % 2;
      long t, b = npp_tally (sw, sh, dw, dh, C, bps, k & 1, &t, &all, &allbad,
          &skipped, &nfail);
      if (b > 0) {
        printf ("NPP mismatch random %dx%d->%dx%d C%d bps%d: %ld/%ld\n", sw, sh, dw, dh,
            C, bps, b, t);
      }
    }
    /* Footprints of millions of samples: NPP's float chain stops adding
     * once a sample is below half the sum's ulp, so a constant frame comes
     * out far from its value; the model must drift the same way. The
     * first output sample is printed for docs/supersample.md. */
    static const int huge[][4] = {
      {1920, 1080, 1, 1}, {3840, 2160, 1, 1}, {7680, 4320, 1, 1}, {8192, 8192, 1, 1},
      {7680, 4320, 2, 3},
    };
    for (int i = 0; i < (int) (sizeof huge / sizeof huge[0]); i++)
      for (int C = 1; C <= 4; C += 3)
        for (int bps = 1; bps <= 2; bps++)
          for (int kind = 0; kind <= 2; kind += 2) {
            long t, b = npp_tally (huge[i][0], huge[i][1], huge[i][2], huge[i][3], C,
                bps, kind, &t, &all, &allbad, &skipped, &nfail);
            if (b >= 0)
              printf ("NPP huge %dx%d->%dx%d C%d bps%d %s: %ld/%ld differ, first %u\n",
                  huge[i][0], huge[i][1], huge[i][2], huge[i][3], C, bps,
                  kind ? "constant" : "random", b, t, last_first);
          }
    printf ("\nNPP vs model: %ld samples, %ld differ (%.6f %% exact), %d failing cases, "
        "%d not compared\n", all, allbad, all ? 100.0 * (all - allbad) / all : 0.0,
        nfail, skipped);
    if (need_npp && skipped)
      failures++, cases++;
  }
  printf ("%d passed, %d failed\n", cases - failures, failures);
  return failures ? 1 : 0;
}
