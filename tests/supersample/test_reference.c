/* reference/ vs an independent naive transcription of the NPP model, on odd
 * sizes, padded strides, every channel count and depth.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "supersample.h"
#include "citest.h"
#include "naive.h"

static int failures = 0, cases = 0;

static void
run_case (int sw, int sh, int dw, int dh, int C, int bps, int shift, int pad, uint64_t seed)
{
  CiSsPlane sp = { sw, sh, C, bps, shift, (size_t) sw * C * bps + pad };
  CiSsPlane dp = { dw, dh, C, bps, shift, (size_t) dw * C * bps + pad };
  size_t sn = sp.stride * sh, dn = dp.stride * dh;
  uint8_t *src = malloc (sn), *a = malloc (dn), *b = malloc (dn);
  ci_fill_random (src, sn, seed);
  if (shift)                    /* P010-style: only the top bits carry data */
    for (size_t i = 0; i + 1 < sn; i += 2)
      ((uint16_t *) src)[i / 2] &= (uint16_t) (0xffff << shift);
  memset (a, 0xa5, dn);
  memset (b, 0xa5, dn);
  int r = ci_ref_supersample_plane (src, &sp, a, &dp);
  naive_supersample (src, sp.stride, sw, sh, b, dp.stride, dw, dh, C, bps, shift);
  cases++;
  int bad = r != 0;
  for (int y = 0; y < dh && !bad; y++)
    if (memcmp (a + y * dp.stride, b + y * dp.stride, (size_t) dw * C * bps))
      bad = 1;
  /* padding bytes untouched */
  for (int y = 0; y < dh && !bad; y++)
    for (int k = dw * C * bps; k < (int) dp.stride; k++)
      if (a[y * dp.stride + k] != 0xa5)
        bad = 1;
  if (bad) {
    failures++;
    printf ("FAIL %dx%d -> %dx%d C%d bps%d shift%d pad%d\n", sw, sh, dw, dh, C, bps, shift, pad);
  }
  free (src);
  free (a);
  free (b);
}

int
main (void)
{
  static const int sizes[][4] = {
    {6, 6, 4, 4}, {128, 128, 96, 96}, {128, 128, 64, 64}, {641, 479, 320, 240},
    {64, 64, 63, 1}, {7, 5, 1, 1}, {1000, 1000, 3, 997}, {90, 90, 60, 60},
    {250, 250, 100, 100}, {33, 17, 33, 5}, {1, 1, 1, 1}, {5, 300, 5, 7},
    {301, 3, 2, 3}, {97, 89, 96, 1}, {1919, 1079, 997, 541},
  };
  int n = sizeof sizes / sizeof sizes[0];
  for (int i = 0; i < n; i++)
    for (int C = 1; C <= 4; C++)
      for (int bps = 1; bps <= 2; bps++) {
        if (sizes[i][0] > 1000 && (C != 4 || bps != 1))
          continue;             /* keep CI quick: the big case once */
        run_case (sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3], C, bps, 0,
            (i * 3 + C) % 7, i * 16 + C * 2 + bps);
      }
  run_case (130, 66, 97, 31, 1, 2, 6, 4, 99);   /* P010 luma */
  run_case (65, 33, 48, 17, 2, 2, 6, 0, 98);    /* P010 chroma */

  /* Random geometry. */
  uint64_t st = 12345;
  for (int i = 0; i < 300; i++) {
    int sw = 1 + ci_rand_next (&st) % 150, sh = 1 + ci_rand_next (&st) % 150;
    int dw = 1 + ci_rand_next (&st) % sw, dh = 1 + ci_rand_next (&st) % sh;
    int C = 1 + ci_rand_next (&st) % 4, bps = 1 + ci_rand_next (&st) % 2;
    run_case (sw, sh, dw, dh, C, bps, 0, ci_rand_next (&st) % 9, i);
  }

  /* Known values: a 2x2 mean of exactly .5 rounds up (NPP is not round-half-even). */
  {
    uint8_t src[4] = { 64, 65, 64, 65 }, dst[1] = { 0 };
    CiSsPlane sp = { 2, 2, 1, 1, 0, 2 }, dp = { 1, 1, 1, 1, 0, 1 };
    ci_ref_supersample_plane (src, &sp, dst, &dp);
    cases++;
    if (dst[0] != 65) {
      failures++;
      printf ("FAIL half-up rounding: got %d\n", dst[0]);
    }
  }
  /* Upscale and empty geometry are refused. */
  {
    uint8_t buf[16];
    CiSsPlane sp = { 2, 2, 1, 1, 0, 2 }, up = { 3, 2, 1, 1, 0, 3 }, z = { 0, 2, 1, 1, 0, 1 };
    cases += 2;
    if (ci_ref_supersample_plane (buf, &sp, buf + 8, &up) != -1
        || ci_ref_supersample_plane (buf, &sp, buf + 8, &z) != -1) {
      failures++;
      printf ("FAIL bad geometry accepted\n");
    }
  }
  /* A row range past the output is refused before anything is written:
   * the elements hand out slices of rows, and a range one row too far would
   * write a row beyond the destination (the canary row here). The source
   * has spare rows so that a wrongly accepted range reads nothing outside
   * the buffer either. */
  {
    uint8_t src[8 * 12] = { 0 }, dst[8 * 5];
    CiSsPlane sp = { 8, 8, 1, 1, 0, 8 }, dp = { 4, 4, 1, 1, 0, 8 };
    memset (dst, 0xaa, sizeof dst);
    int r = ci_ref_supersample_rows (src, &sp, dst, &dp, 0, 5);
    int touched = 0;
    for (size_t i = 0; i < sizeof dst; i++)
      touched += dst[i] != 0xaa;
    cases++;
    if (r != -1 || touched) {
      failures++;
      printf ("FAIL rows 0..5 of a 4-row output: returned %d, %d bytes "
          "written (row 4: 0x%02x)\n", r, touched, dst[4 * 8]);
    }
  }
  printf ("%d passed, %d failed\n", cases - failures, failures);
  return failures ? 1 : 0;
}
