/* SGM C reference vs the naive implementation in naive.h, stage by stage:
 * census (both kinds, GRAY8/GRAY16/RGB input, odd strides), cost volume,
 * every path direction, WTA (argmin, uniqueness, subpixel), right WTA, LR
 * check and median.  Odd sizes, negative and positive min-disparity.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../reference/sgm.h"
#include "citest.h"
#include "naive.h"

static int failures, checks;

#define EXPECT(cond, ...) do { checks++; if (!(cond)) { failures++; \
  if (failures < 30) { printf ("FAIL %s:%d: ", __FILE__, __LINE__); printf (__VA_ARGS__); printf ("\n"); } } } while (0)

/* Smooth random texture plus a shifted copy, so that paths and WTA see
 * realistic (not all-equal) costs. */
static void
make_pair (uint8_t * l, uint8_t * r, size_t stride, int w, int h, int kind,
    int shift, uint64_t seed)
{
  const int bpp = kind == 0 ? 1 : kind == 1 ? 2 : 4;
  uint64_t st = seed;
  memset (l, 0, stride * h);
  memset (r, 0, stride * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int b = 0; b < bpp; b++) {
        uint8_t v = (uint8_t) (ci_rand_next (&st) >> 56);
        l[(size_t) y * stride + (size_t) x * bpp + b] = v;
      }
  /* right = left shifted by a disparity that varies by row, plus noise */
  for (int y = 0; y < h; y++) {
    int s = shift + (y % 3);
    for (int x = 0; x < w; x++) {
      int xs = x + s < w ? x + s : w - 1;
      for (int b = 0; b < bpp; b++) {
        uint8_t v = l[(size_t) y * stride + (size_t) xs * bpp + b];
        if ((ci_rand_next (&st) & 15) == 0)
          v ^= 0x10;
        r[(size_t) y * stride + (size_t) x * bpp + b] = v;
      }
    }
  }
}

static void
run_case (int w, int h, int D, int mind, int census, int kind, int uniq,
    int subpix, int lr)
{
  SgmParams p;
  sgm_params_init (&p, w, h);
  p.num_disp = D;
  p.min_disp = mind;
  p.census = census;
  p.uniqueness = uniq;
  p.subpixel = subpix;
  p.lr_max_diff = lr;
  p.p1 = 7 + D % 5;
  p.p2 = D % 2 ? 5 : 90;        /* p2 < p1 exercises the max (p1, p2) rule */
  SgmLuma luma = { kind, 4, 2, 1, 0 };  /* BGRx order for the RGB kind */
  const int bpp = kind == 0 ? 1 : kind == 1 ? 2 : 4;
  const size_t stride = (size_t) w * bpp + (kind == 1 ? 6 : 3);
  const size_t n = (size_t) w * h, nv = n * D;
  uint8_t *L = malloc (stride * h), *R = malloc (stride * h);
  make_pair (L, R, stride, w, h, kind, 2 + mind > 0 ? 2 + mind : 2,
      (uint64_t) w * 1000 + D);
  uint64_t *cl = malloc (n * 8), *cr = malloc (n * 8);
  uint8_t *cost = malloc (nv);
  uint16_t *acc = malloc (nv * 2), *sum = malloc (nv * 2);
  int *nl = malloc (nv * sizeof (int)), *nsum = calloc (nv, sizeof (int));
  int *nsum4 = calloc (nv, sizeof (int));
  int16_t *disp = malloc (n * 2), *dint = malloc (n * 2), *dr = malloc (n * 2);
  int16_t *med = malloc (n * 2);
  const int sym = census == SGM_CENSUS_SYM_9X7;
  char tag[128];
  snprintf (tag, sizeof tag, "%dx%d D=%d min=%d census=%d kind=%d", w, h, D,
      mind, census, kind);

  sgm_ref_census (L, stride, luma, w, h, census, cl);
  sgm_ref_census (R, stride, luma, w, h, census, cr);
  long bad = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      bad += cl[(size_t) y * w + x] != nv_census (L, stride, kind, 4, 2, 1, 0,
          w, h, sym, x, y);
      bad += cr[(size_t) y * w + x] != nv_census (R, stride, kind, 4, 2, 1, 0,
          w, h, sym, x, y);
    }
  EXPECT (bad == 0, "%s census: %ld mismatches", tag, bad);

  sgm_ref_cost_volume (cl, cr, &p, cost);
  bad = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int d = 0; d < D; d++)
        bad += cost[((size_t) y * w + x) * D + d] != nv_cost (cl, cr, w, sym,
            mind, x, y, d);
  EXPECT (bad == 0, "%s cost: %ld mismatches", tag, bad);

  for (int dir = 0; dir < 8; dir++) {
    EXPECT (sgm_ref_aggregate_path (cl, cr, &p, dir, acc, 0) == 0, "alloc");
    nv_path (cl, cr, w, h, D, mind, sym, p.p1, p.p2, sgm_dir_dx (dir),
        sgm_dir_dy (dir), nl);
    bad = 0;
    /* paths = 4: the horizontal and vertical directions */
    const int in4 = sgm_dir_dx (dir) == 0 || sgm_dir_dy (dir) == 0;
    for (size_t i = 0; i < nv; i++) {
      bad += acc[i] != nl[i];
      nsum[i] += nl[i];
      nsum4[i] += in4 ? nl[i] : 0;
    }
    EXPECT (bad == 0, "%s path %d: %ld mismatches", tag, dir, bad);
  }
  EXPECT (sgm_ref_aggregate (cl, cr, &p, sum) == 0, "alloc");
  bad = 0;
  for (size_t i = 0; i < nv; i++)
    bad += sum[i] != nsum[i];
  EXPECT (bad == 0, "%s 8-path sum: %ld mismatches", tag, bad);
  p.paths = 4;
  EXPECT (sgm_ref_aggregate (cl, cr, &p, sum) == 0, "alloc");
  p.paths = 8;
  bad = 0;
  for (size_t i = 0; i < nv; i++)
    bad += sum[i] != nsum4[i];
  EXPECT (bad == 0, "%s 4-path sum: %ld mismatches", tag, bad);
  EXPECT (sgm_ref_aggregate (cl, cr, &p, sum) == 0, "alloc");

  /* WTA from the naive sum */
  sgm_ref_wta_left (sum, &p, disp, dint);
  bad = 0;
  for (size_t i = 0; i < n; i++) {
    const int *s = nsum + i * D;
    int b = 0;
    for (int d = 1; d < D; d++)
      if (s[d] < s[b])
        b = d;
    int second = 65535;
    for (int d = 0; d < D; d++)
      if (abs (d - b) > 1 && s[d] < second)
        second = s[d];
    int expect;
    if ((double) second * uniq / SGM_UNIQ_ONE < (double) s[b])
      expect = SGM_INVALID;
    else if (subpix && b > 0 && b < D - 1 && s[b - 1] + s[b + 1] - 2 * s[b] > 0) {
      double off = 16.0 * (s[b - 1] - s[b + 1]) /
          (2.0 * (s[b - 1] + s[b + 1] - 2 * s[b]));
      expect = (mind + b) * 16 + (int) round (off);
    } else
      expect = (mind + b) * 16;
    bad += dint[i] != b || disp[i] != expect;
  }
  EXPECT (bad == 0, "%s WTA: %ld mismatches", tag, bad);

  sgm_ref_wta_right (sum, &p, dr);
  bad = 0;
  for (int y = 0; y < h; y++)
    for (int xr = 0; xr < w; xr++) {
      int b = -1;
      for (int d = 0; d < D; d++) {
        int x = xr + mind + d;
        if (x >= 0 && x < w && (b < 0
                || nsum[((size_t) y * w + x) * D + d] <
                nsum[((size_t) y * w + xr + mind + b) * D + b]))
          b = d;
      }
      bad += dr[(size_t) y * w + xr] != b;
    }
  EXPECT (bad == 0, "%s right WTA: %ld mismatches", tag, bad);

  int16_t *chk = malloc (n * 2);
  memcpy (chk, disp, n * 2);
  sgm_ref_lr_check (chk, dint, dr, &p);
  bad = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      size_t i = (size_t) y * w + x;
      int16_t e = disp[i];
      if (lr >= 0 && e != SGM_INVALID) {
        int xr = x - mind - dint[i];
        if (xr < 0 || xr >= w || dr[(size_t) y * w + xr] < 0
            || abs (dr[(size_t) y * w + xr] - dint[i]) > lr)
          e = SGM_INVALID;
      }
      bad += chk[i] != e;
    }
  EXPECT (bad == 0, "%s LR: %ld mismatches", tag, bad);

  sgm_ref_median (chk, med, w, h);
  bad = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int v[9], k = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
          int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
          v[k++] = chk[(size_t) yy * w + xx];
        }
      /* insertion sort, take the middle */
      for (int i = 1; i < 9; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
          int t = v[j];
          v[j] = v[j - 1];
          v[j - 1] = t;
        }
      bad += med[(size_t) y * w + x] != v[4];
    }
  EXPECT (bad == 0, "%s median: %ld mismatches", tag, bad);

  /* the whole pipeline is the composition of the stages */
  p.median = 1;
  int16_t *full = malloc (n * 2);
  EXPECT (sgm_ref_compute (&p, L, stride, R, stride, luma, full) == 0, "run");
  EXPECT (memcmp (full, med, n * 2) == 0, "%s pipeline != stages", tag);

  free (full);
  free (chk);
  free (L);
  free (R);
  free (cl);
  free (cr);
  free (cost);
  free (acc);
  free (sum);
  free (nl);
  free (nsum);
  free (nsum4);
  free (disp);
  free (dint);
  free (dr);
  free (med);
}

/* The output conventions against values written out here (docs/sgm.md):
 * GRAY16 = disparity x 16, invalid 65535, below 0 clamped to 0; GRAY8 =
 * [min, min + D - 1] rounded onto 0..254, invalid 255; colour = jet of the
 * GRAY8 value (dark blue .. dark red), invalid black, alpha 255. */
static void
check_conversion (void)
{
  static const struct
  {
    int16_t d;
    int mind, nd;
    uint16_t g16;
    uint8_t g8, rgb[3];
  } t[] = {
    {SGM_INVALID, 0, 64, 65535, 255, {0, 0, 0}},
    {0, 0, 65, 0, 0, {0, 0, 127}},
    {64 * 16, 0, 65, 1024, 254, {127, 0, 0}},
    {32 * 16, 0, 65, 512, 127, {127, 255, 127}},
    /* 1/16 px over a span of 2 px: 254 / 32 = 7.94, rounded to 8 */
    {1, 0, 3, 1, 8, {0, 0, 159}},
    /* 8/16 px: 254 x 8 / 32 = 63.5, a half, rounded up to 64 */
    {8, 0, 3, 8, 64, {0, 129, 255}},
    /* min-disparity -2, D = 5: -2 .. 2 px onto 0 .. 254 */
    {-32, -2, 5, 0, 0, {0, 0, 127}},
    {-48, -2, 5, 0, 0, {0, 0, 127}},
    {32, -2, 5, 32, 254, {127, 0, 0}},
    {48, -2, 5, 48, 254, {127, 0, 0}},
    {0, -2, 5, 0, 127, {127, 255, 127}},
    {7, 0, 1, 7, 0, {0, 0, 127}},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    SgmParams p;
    sgm_params_init (&p, 1, 1);
    p.min_disp = t[i].mind;
    p.num_disp = t[i].nd;
    uint8_t g16[2], g8, rgba[4], bgrx[4];
    sgm_ref_convert (&t[i].d, 1, 1, g16, 2, (SgmOutFormat) {
        SGM_OUT_GRAY16, 0, 0, 0, 0}, &p);
    sgm_ref_convert (&t[i].d, 1, 1, &g8, 1, (SgmOutFormat) {
        SGM_OUT_GRAY8, 0, 0, 0, 0}, &p);
    sgm_ref_convert (&t[i].d, 1, 1, rgba, 4, (SgmOutFormat) {
        SGM_OUT_COLOUR, 0, 1, 2, 3}, &p);
    sgm_ref_convert (&t[i].d, 1, 1, bgrx, 4, (SgmOutFormat) {
        SGM_OUT_COLOUR, 2, 1, 0, 3}, &p);
    const uint16_t v16 = (uint16_t) (g16[0] | g16[1] << 8);
    EXPECT (v16 == t[i].g16, "case %zu: GRAY16 %u, want %u", i, v16,
        t[i].g16);
    EXPECT (g8 == t[i].g8, "case %zu: GRAY8 %u, want %u", i, g8, t[i].g8);
    EXPECT (rgba[0] == t[i].rgb[0] && rgba[1] == t[i].rgb[1]
        && rgba[2] == t[i].rgb[2] && rgba[3] == 255,
        "case %zu: RGBA %u %u %u %u, want %u %u %u 255", i, rgba[0], rgba[1],
        rgba[2], rgba[3], t[i].rgb[0], t[i].rgb[1], t[i].rgb[2]);
    EXPECT (bgrx[2] == t[i].rgb[0] && bgrx[1] == t[i].rgb[1]
        && bgrx[0] == t[i].rgb[2], "case %zu: BGRx channel order", i);
  }
}

/* WTA and LR check at their boundaries (docs/sgm.md), on sums and
 * disparities written out here: uniqueness valid when m x S2 >= 1024 x
 * S(best), equality included (so m = 1024 disables it even where a far
 * disparity ties the best); the LR check invalidates a pixel whose x_r =
 * x - min - best lies outside the image, here x_r = W exactly (with the
 * right view's disparity at the next row's first pixel agreeing). */
static void
check_wta_lr_edges (void)
{
  static const struct
  {
    int uniq;
    uint16_t s[5];
  } u[] = { {1024, {10, 40, 40, 40, 10}}, {973, {973, 2000, 1024, 2000, 2000}},
  {973, {974, 2000, 1024, 2000, 2000}}
  };
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
    SgmParams p;
    sgm_params_init (&p, 1, 1);
    p.num_disp = 5;
    p.subpixel = 0;
    p.uniqueness = u[i].uniq;
    int16_t disp, dint;
    sgm_ref_wta_left (u[i].s, &p, &disp, &dint);
    /* best d = 0; S2 over d = 2 .. 4; m x S2 against 1024 x S(best) */
    int s2 = 65535;
    for (int d = 2; d < 5; d++)
      s2 = u[i].s[d] < s2 ? u[i].s[d] : s2;
    const int valid = (long) s2 * u[i].uniq >= (long) u[i].s[0] * 1024;
    EXPECT (dint == 0 && disp == (valid ? 0 : SGM_INVALID), "uniqueness %d, "
        "best %u, second %d: disparity %d (index %d), want %d", u[i].uniq,
        u[i].s[0], s2, disp, dint, valid ? 0 : SGM_INVALID);
  }
  SgmParams p;
  sgm_params_init (&p, 2, 2);
  p.min_disp = -1;
  p.lr_max_diff = 0;
  int16_t disp[4] = { 16, 16, 16, 16 }, dint[4] = { 0, 0, 0, 0 };
  const int16_t dright[4] = { 0, 0, 0, 0 };
  sgm_ref_lr_check (disp, dint, dright, &p);
  /* x_r = x + 1: pixel 0 matches right pixel 1; pixel 1 matches none */
  EXPECT (disp[0] == 16 && disp[1] == SGM_INVALID && disp[2] == 16
      && disp[3] == SGM_INVALID, "LR check with x_r = x + 1 on 2 columns: "
      "%d %d / %d %d, want 16 invalid / 16 invalid", disp[0], disp[1],
      disp[2], disp[3]);
}

/* sgm_ref_compute_mt on 2, 3 and 16 slices: the bytes of sgm_ref_compute */
static void
check_threads (void)
{
  static const struct
  {
    int w, h, D, mind, paths, lr, median, census;
  } c[] = {
    {61, 37, 23, 0, 8, 1, 1, SGM_CENSUS_9X7},
    {45, 21, 129, 2, 4, -1, 1, SGM_CENSUS_SYM_9X7},
    {33, 17, 16, -3, 8, 2, 0, SGM_CENSUS_9X7},
    {1, 1, 1, 0, 8, 1, 1, SGM_CENSUS_9X7},
    {7, 2, 5, 0, 4, 0, 1, SGM_CENSUS_9X7},
  };
  static const unsigned slices[] = { 2, 3, 16 };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    SgmParams p;
    sgm_params_init (&p, c[i].w, c[i].h);
    p.num_disp = c[i].D;
    p.min_disp = c[i].mind;
    p.paths = c[i].paths;
    p.lr_max_diff = c[i].lr;
    p.median = c[i].median;
    p.census = c[i].census;
    SgmLuma luma = { 0, 1, 0, 0, 0 };
    const size_t stride = (size_t) c[i].w + 5, n = (size_t) c[i].w * c[i].h;
    uint8_t *L = malloc (stride * c[i].h), *R = malloc (stride * c[i].h);
    make_pair (L, R, stride, c[i].w, c[i].h, 0, 3, 77 + i);
    int16_t *ref = malloc (n * 2), *got = malloc (n * 2);
    EXPECT (sgm_ref_compute (&p, L, stride, R, stride, luma, ref) == 0,
        "case %zu: serial", i);
    for (size_t k = 0; k < sizeof slices / sizeof slices[0]; k++) {
      memset (got, 0x55, n * 2);
      EXPECT (sgm_ref_compute_mt (&p, L, stride, R, stride, luma, got,
              ci_thread_runner, NULL, slices[k]) == 0, "case %zu: %u slices", i,
          slices[k]);
      EXPECT (memcmp (ref, got, n * 2) == 0, "case %zu (%dx%d D=%d paths=%d):"
          " %u slices differ from one", i, c[i].w, c[i].h, c[i].D,
          c[i].paths, slices[k]);
    }
    free (L);
    free (R);
    free (ref);
    free (got);
  }
}

int
main (void)
{
  check_conversion ();
  check_wta_lr_edges ();
  check_threads ();
  /* subpixel rounding against floating point, exhaustively on small sums */
  long bad = 0;
  for (int s0 = 0; s0 < 40; s0++)
    for (int sm = s0; sm < s0 + 60; sm++)
      for (int sp = s0; sp < s0 + 60; sp++) {
        int den = sm + sp - 2 * s0;
        int e = den > 0 ? (int) round (16.0 * (sm - sp) / (2.0 * den)) : 0;
        bad += sgm_subpixel_offset (sm, s0, sp) != e;
      }
  EXPECT (bad == 0, "subpixel offset: %ld mismatches", bad);

  run_case (1, 1, 1, 0, SGM_CENSUS_9X7, 0, 973, 1, 1);
  run_case (5, 3, 3, 0, SGM_CENSUS_9X7, 0, 973, 1, 0);
  run_case (17, 13, 16, 0, SGM_CENSUS_9X7, 0, 973, 1, 1);
  run_case (23, 11, 7, -3, SGM_CENSUS_SYM_9X7, 1, 1024, 1, 2);
  run_case (31, 9, 40, 5, SGM_CENSUS_9X7, 2, 900, 1, 1);
  run_case (29, 15, 33, 0, SGM_CENSUS_SYM_9X7, 2, 973, 0, -1);
  run_case (12, 7, 20, -25, SGM_CENSUS_9X7, 0, 0, 1, 0);
  printf ("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
