/* gst-cuda-imaging: tone mapping, C reference vs BT.2100 values and naive loops.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tonemap.h"
#include "tmscene.h"
#include "citest.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf (stderr, __VA_ARGS__); fputc ('\n', stderr); } } while (0)

/* ---- transfer functions ---- */
static void
test_eotf (void)
{
  /* BT.2100 / BT.2408 reference points: PQ signal -> nits */
  static const double pq[][2] = {
    {0.0, 0.0}, {0.508078, 100.0}, {0.580689, 203.0}, {0.751827, 1000.0},
    {0.902550, 4000.0}, {1.0, 10000.0}
  };
  for (size_t i = 0; i < sizeof pq / sizeof pq[0]; i++) {
    double n = ci_tm_pq_eotf (pq[i][0]);
    CHECK (fabs (n - pq[i][1]) <= 5e-4 * pq[i][1] + 1e-9,
        "PQ(%g) = %g, want %g", pq[i][0], n, pq[i][1]);
    if (pq[i][1] > 0)
      CHECK (fabs (ci_tm_pq_inv (pq[i][1]) - pq[i][0]) < 3e-5,
          "PQ^-1(%g) = %g", pq[i][1], ci_tm_pq_inv (pq[i][1]));
  }
  /* HLG: E' = 0.5 is E = 1/12; E' = 1 is E = 1 */
  CHECK (fabs (ci_tm_hlg_inv_oetf (0.5) - 1.0 / 12.0) < 1e-9, "HLG 0.5");
  CHECK (fabs (ci_tm_hlg_inv_oetf (1.0) - 1.0) < 1e-6, "HLG 1.0: %.9f",
      ci_tm_hlg_inv_oetf (1.0));
  /* BT.2408: 75% HLG grey is 203 nits on a 1000-nit display (gamma 1.2),
   * through the table + OOTF path the pixels take */
  CiTmConfig cfg;
  CiTmParams p;
  float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N], rgb[3];
  ci_tm_config_defaults (&cfg);
  cfg.transfer = CI_TM_TRC_HLG;
  cfg.input_peak = 1000.0f;
  ci_tm_params_init (&cfg, &p);
  ci_tm_build_trc_luts (&cfg, eotf, oetf);
  float y = ci_tm_linearize (&p, eotf, 0.75f, 0.75f, 0.75f, rgb);
  CHECK (fabs (y - 203.0) < 1.0, "HLG 75%% grey = %g nits", y);
  /* PQ table path at every 10-bit code vs the exact EOTF */
  cfg.transfer = CI_TM_TRC_PQ;
  ci_tm_params_init (&cfg, &p);
  ci_tm_build_trc_luts (&cfg, eotf, oetf);
  double worst = 0, worst_step = 0;
  for (int c = 64; c <= 940; c++) {
    double e = (c - 64) / 876.0, ex = ci_tm_pq_eotf (e);
    double t = ci_tm_eotf (eotf, (float) e);
    /* the nearest node: the exact EOTF within half a node (1/8192) of e */
    double lo = ci_tm_pq_eotf (e - 0.5 / CI_TM_TRC_LUT);
    double hi = ci_tm_pq_eotf (e + 0.5 / CI_TM_TRC_LUT);
    CHECK (t >= lo * (1 - 1e-6) - 1e-9 && t <= hi * (1 + 1e-6) + 1e-9,
        "PQ code %d: %g outside [%g, %g]", c, t, lo, hi);
    double rel = fabs (t - ex) / (ex + 0.01);
    worst = rel > worst ? rel : worst;
    /* against the light between this code and the next */
    if (c < 940) {
      double step = fabs (t - ex) / (ci_tm_pq_eotf ((c - 63) / 876.0) - ex);
      worst_step = step > worst_step ? step : worst_step;
    }
  }
  CHECK (worst < 6e-3, "PQ table relative error %g", worst);
  CHECK (worst_step <= 0.13, "PQ table error %g of a code step", worst_step);
  printf ("PQ table (nearest node) vs exact EOTF, 10-bit limited-range codes: "
      "max rel. error %.2e, max %.3f of the step to the next code\n", worst,
      worst_step);
  /* the IEEE-only log2/exp2 */
  double wl = 0, we = 0;
  for (int i = 0; i < 100000; i++) {
    float x = (float) (1e-4 * pow (1e9, i / 100000.0));
    wl = fmax (wl, fabs (ci_tm_log2f (x) - log2 ((double) x)));
    float e = -20.0f + 40.0f * i / 100000.0f;
    we = fmax (we, fabs (ci_tm_exp2f (e) / exp2 ((double) e) - 1.0));
  }
  CHECK (wl < 1e-5 && we < 1e-6, "log2 err %g exp2 rel err %g", wl, we);
  /* BT.709 OETF table vs inverse */
  for (int i = 0; i <= 100; i++) {
    float v = i / 100.0f;
    float back = ci_tm_lut (oetf, CI_TM_TRC_LUT, ci_tm_bt709_inv_oetf_f (v));
    CHECK (fabsf (back - v) < 2e-4f, "709 OETF round trip at %g: %g", v, back);
  }
}

/* ---- statistics vs naive loops ---- */
static void
naive_l (const CiTmParams * p, const float *eotf, const CiTmInPlanes * in,
    float *l)
{
  for (int y = 0; y < p->height; y++)
    for (int x = 0; x < p->width; x++) {
      float r, g, b, a, rgb[3];
      ci_tm_decode (p, in, x, y, &r, &g, &b, &a);
      l[(size_t) y * p->width + x] =
          ci_tm_logl (ci_tm_linearize (p, eotf, r, g, b, rgb), eotf);
    }
}

static void
test_stats (int fmt, int w, int h)
{
  CiTmConfig cfg;
  CiTmParams p;
  static float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
  ci_tm_config_defaults (&cfg);
  cfg.in_format = fmt;
  cfg.width = w;
  cfg.height = h;
  ci_tm_params_init (&cfg, &p);
  ci_tm_build_trc_luts (&cfg, eotf, oetf);
  TmFrame *f = tm_frame_new_in (fmt, w, h, 24);
  tm_fill_scene (f, 0, 0.02, 7);
  CiTmInPlanes in;
  tm_frame_in_planes (f, &in);
  float *l = malloc ((size_t) w * h * sizeof (float));
  naive_l (&p, eotf, &in, l);
  float mn = INFINITY, mx = -INFINITY;
  for (size_t i = 0; i < (size_t) w * h; i++) {
    mn = l[i] < mn ? l[i] : mn;
    mx = l[i] > mx ? l[i] : mx;
  }
  float rmn, rmx;
  ci_tm_ref_minmax (&p, eotf, &in, &rmn, &rmx);
  CHECK (rmn == mn && rmx == mx, "%s %dx%d minmax %g %g vs %g %g",
      tm_in_name (fmt), w, h, rmn, rmx, mn, mx);
  CHECK ((mx - mn) * CI_TM_LOG2_10 >= 16.0f, "scene has only %.1f stops",
      (mx - mn) * CI_TM_LOG2_10);
  float scale = ci_tm_range_scale (mn, mx, cfg.bins);
  uint32_t *h1 = calloc (cfg.bins, 4), *h2 = calloc (cfg.bins, 4);
  for (size_t i = 0; i < (size_t) w * h; i++) {
    /* bin from the spec in double; pixels within 1e-4 bin of an edge may differ */
    double fb = ((double) l[i] - mn) * scale;
    int b = (int) floor (fb);
    b = b < 0 ? 0 : (b >= cfg.bins ? cfg.bins - 1 : b);
    int bs = ci_tm_bin (l[i], mn, scale, cfg.bins);
    double frac = fb - floor (fb);
    if (bs != b)
      CHECK (frac < 1e-4 || frac > 1 - 1e-4 || b == cfg.bins - 1,
          "bin %d vs %d at L %g", bs, b, l[i]);
    h1[bs]++;
  }
  ci_tm_ref_histogram (&p, eotf, &in, mn, scale, h2);
  uint64_t sum = 0;
  for (int b = 0; b < cfg.bins; b++) {
    CHECK (h1[b] == h2[b], "hist[%d] %u vs %u", b, h2[b], h1[b]);
    sum += h2[b];
  }
  CHECK (sum == (uint64_t) w * h, "histogram total %llu",
      (unsigned long long) sum);
  free (h1);
  free (h2);
  free (l);
  tm_frame_free (f);
}

static void
test_scan (void)
{
  uint64_t s = 12345;
  for (int n = 1; n <= CI_TM_MAX_BINS; n = n * 3 + 1) {
    uint64_t *in = malloc (n * 8), *out = malloc (n * 8), acc = 0;
    for (int i = 0; i < n; i++) {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      in[i] = s >> 24;
    }
    ci_tm_ref_exclusive_scan (in, out, n);
    for (int i = 0; i < n; i++) {
      CHECK (out[i] == acc, "scan n=%d [%d]", n, i);
      acc += in[i];
    }
    free (in);
    free (out);
  }
}

/* ---- whole pipeline properties ---- */
static double
ramp_nits (int x, int y, void *ud)
{
  const int *wh = ud;
  /* smooth log-luminance: L uniform over [-2, 3] along the scan order */
  double t = ((double) y * wh[0] + x + 0.5) / ((double) wh[0] * wh[1]);
  return pow (10.0, -2.0 + 5.0 * t);
}

static double
const_nits (int x, int y, void *ud)
{
  return *(const double *) ud;
}

static CiTonemap *
make (int fmt, int out, int op, int w, int h, int smoothing)
{
  CiTmConfig cfg;
  tm_config_init (&cfg, fmt, out, w, h);
  cfg.op = op;
  cfg.smoothing = smoothing;
  return ci_tonemap_new (&cfg);
}

static void
run (CiTonemap * tm, TmFrame * in, TmFrame * out)
{
  CiTmInPlanes ip;
  CiTmOutPlanes op;
  tm_frame_in_planes (in, &ip);
  tm_frame_out_planes (out, &op);
  ci_tonemap_process (tm, &ip, &op);
}

static void
test_uniform_and_monotonic (void)
{
  int wh[2] = { 256, 128 };
  TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, wh[0], wh[1], 0);
  TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, wh[0], wh[1], 0);
  tm_fill_grey (in, ramp_nits, wh, 0, 0);
  for (int op = 0; op <= CI_TM_OP_CLIP; op++) {
    CiTonemap *tm = make (CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, op, wh[0], wh[1], 0);
    run (tm, in, out);
    /* scan order is luminance order: luma must never decrease */
    int prev = -1, bad = 0;
    for (int y = 0; y < wh[1]; y++)
      for (int x = 0; x < wh[0]; x++) {
        int c = tm_luma_at (out, x, y);
        bad += c < prev;
        prev = c;
      }
    CHECK (bad == 0, "%s: %d luma decreases on a rising ramp",
        tm_op_name (op), bad);
    if (op == CI_TM_OP_HISTOGRAM) {
      /* Kolmogorov-Smirnov distance of output luma codes from uniform */
      uint32_t hist[256] = { 0 };
      int n = wh[0] * wh[1];
      for (int y = 0; y < wh[1]; y++)
        for (int x = 0; x < wh[0]; x++)
          hist[tm_luma_at (out, x, y)]++;
      double cdf = 0, ks = 0;
      for (int c = 0; c < 256; c++) {
        cdf += (double) hist[c] / n;
        ks = fmax (ks, fabs (cdf - (c + 1) / 256.0));
      }
      uint32_t hmax = 0;
      for (int c = 0; c < 256; c++)
        hmax = hist[c] > hmax ? hist[c] : hmax;
      printf ("histogram operator on a smooth log-luminance ramp: output luma "
          "KS distance from uniform %.4f; fullest code holds %.4f of the "
          "pixels (uniform: %.4f)\n", ks, (double) hmax / n, 1.0 / 256);
      CHECK (ks < 0.004, "output luma not uniform: KS %.4f", ks);
    }
    ci_tonemap_free (tm);
  }
  tm_frame_free (in);
  tm_frame_free (out);
}

static void
test_constant_and_one_bin (void)
{
  double nits = 150.0;
  TmFrame *in = tm_frame_new_in (CI_TM_IN_P010, 33, 17, 0);
  TmFrame *out = tm_frame_new_out (CI_TM_OUT_NV12, 33, 17, 0);
  tm_fill_grey (in, const_nits, &nits, 0, 0);
  for (int op = 0; op <= CI_TM_OP_CLIP; op++)
    for (int sm = 0; sm <= 4; sm += 4) {
      CiTonemap *tm = make (CI_TM_IN_P010, CI_TM_OUT_NV12, op, 33, 17, sm);
      for (int fr = 0; fr < 3; fr++)
        run (tm, in, out);
      const CiTmState *st = ci_tonemap_get_state (tm);
      CHECK (st->smin == st->smax && isfinite (st->smin), "constant range");
      int c0 = out->plane[0][0], same = 1;
      for (int y = 0; y < 17; y++)
        for (int x = 0; x < 33; x++)
          same &= out->plane[0][y * out->stride[0] + x] == c0;
      CHECK (same && c0 >= 16 && c0 <= 235, "%s constant frame -> luma %d",
          tm_op_name (op), c0);
      if (op == CI_TM_OP_HISTOGRAM)     /* degenerate CDF: luma 0.5 */
        CHECK (abs (c0 - (16 + 110)) <= 1, "constant frame luma %d", c0);
      ci_tonemap_free (tm);
    }
  /* all pixels clamped into the top bin: exclusive CDF top is 0 */
  CiTmState st;
  ci_tm_state_init (&st, 64);
  uint32_t hist[64] = { 0 };
  hist[63] = 1000;
  ci_tm_state_update (&st, hist, 1000, 1.0f, 2.0f, 1, 0, 1);
  CiTmConfig cfg;
  ci_tm_config_defaults (&cfg);
  cfg.bins = 64;
  float lut[CI_TM_CURVE_N];
  CiTmMapRange r;
  ci_tm_build_map (&st, &cfg, lut, &r);
  for (int b = 0; b < 64; b++)
    CHECK (isfinite (lut[b]) && lut[b] >= 0 && lut[b] <= 1, "lut %g", lut[b]);
  ci_tm_state_clear (&st);
  tm_frame_free (in);
  tm_frame_free (out);
}

/* Frames below SDR white (docs/tonemap.md §5, the histogram's anchor):
 * black stays black whatever its chroma noise, and a dim ramp's brightest
 * pixels come out at their own luminance over target-peak, not at white. */
static double
scaled_ramp_nits (int x, int y, void *ud)
{
  const double *f = ud;
  int wh[2] = { 256, 128 };
  return f[0] * ramp_nits (x, y, wh);
}

static int
max_rgb (const TmFrame * out)
{
  int m = 0;
  for (int y = 0; y < out->h; y++)
    for (int x = 0; x < 4 * out->w; x++)
      if ((x & 3) != 3)
        m = out->plane[0][(size_t) y * out->stride[0] + x] > m ?
            out->plane[0][(size_t) y * out->stride[0] + x] : m;
  return m;
}

static void
test_dim_frames (void)
{
  /* P010 black (Y' code 64) with chroma 0..2 codes off neutral, as
   * videotestsrc's black gives: it was equalised to magenta or blue */
  for (int du = -2; du <= 2; du++)
    for (int sm = 0; sm <= 8; sm += 8) {
      TmFrame *in = tm_frame_new_in (CI_TM_IN_P010, 34, 18, 0);
      TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, 34, 18, 0);
      for (int y = 0; y < 18; y++)
        for (int x = 0; x < 34; x++)
          ((uint16_t *) (in->plane[0] + (size_t) y * in->stride[0]))[x] = 64 << 6;
      for (int y = 0; y < 9; y++)
        for (int x = 0; x < 17; x++) {
          uint16_t *uv = (uint16_t *) (in->plane[1] + (size_t) y * in->stride[1]);
          uv[2 * x] = (uint16_t) ((512 + du) << 6);
          uv[2 * x + 1] = (uint16_t) ((512 + (du * 3) / 2) << 6);
        }
      CiTonemap *tm = make (CI_TM_IN_P010, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM,
          34, 18, sm);
      for (int fr = 0; fr < 3; fr++)
        run (tm, in, out);
      CHECK (max_rgb (out) == 0, "P010 black, chroma %+d, smoothing %d: "
          "an RGB code %d", du, sm, max_rgb (out));
      ci_tonemap_free (tm);
      tm_frame_free (in);
      tm_frame_free (out);
    }
  /* constant near-black RGBA64 (PQ codes of 65535): bright blue and
   * mid-grey before */
  static const uint16_t px[][3] = { {0, 0, 64}, {20, 20, 20}, {0, 0, 0},
    {655, 655, 655}
  };
  for (int i = 0; i < 4; i++) {
    TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, 16, 8, 0);
    TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, 16, 8, 0);
    for (int y = 0; y < 8; y++)
      for (int x = 0; x < 16; x++) {
        uint16_t *q = (uint16_t *) (in->plane[0] + (size_t) y * in->stride[0]) + 4 * x;
        q[0] = px[i][0], q[1] = px[i][1], q[2] = px[i][2], q[3] = 65535;
      }
    CiTonemap *tm = make (CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM,
        16, 8, 0);
    run (tm, in, out);
    /* (655, 655, 655): PQ 0.01, 0.0023 cd/m^2 */
    CHECK (max_rgb (out) == 0, "RGBA64 (%u,%u,%u): an RGB code %d",
        px[i][0], px[i][1], px[i][2], max_rgb (out));
    ci_tonemap_free (tm);
    tm_frame_free (in);
    tm_frame_free (out);
  }
  /* the ramp of 10^-2..10^3 cd/m^2 dimmed: the top pixel at its own
   * luminance over target-peak (100), through the BT.709 OETF */
  static const double f[] = { 1.0, 0.1, 0.01, 1e-3, 1e-4 };
  double prev = 256;
  for (int i = 0; i < 5; i++) {
    TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, 256, 128, 0);
    TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, 256, 128, 0);
    tm_fill_grey (in, scaled_ramp_nits, (void *) &f[i], 0, 0);
    CiTonemap *tm = make (CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM,
        256, 128, 0);
    run (tm, in, out);
    const double peak = fmin (1000.0 * f[i] / 100.0, 1.0);
    const double want = 255.0 * (peak < 0.018 ? 4.5 * peak :
        1.099 * pow (peak, 0.45) - 0.099);
    const int top = tm_luma_at (out, 255, 127);
    const double mean = tm_mean_luma (out);
    printf ("histogram operator, ramp with peak %g cd/m^2: top luma %d "
        "(its own luminance: %.1f), mean luma %.2f\n", 1000.0 * f[i], top, want,
        mean);
    CHECK (fabs (top - want) <= 1.5, "ramp peak %g: top luma %d, want %.1f",
        1000.0 * f[i], top, want);
    CHECK (mean < prev, "ramp peak %g: mean luma %.2f not below %.2f",
        1000.0 * f[i], mean, prev);
    prev = mean;
    ci_tonemap_free (tm);
    tm_frame_free (in);
    tm_frame_free (out);
  }
}

/* The decode of RGBA64 input with transfer @trc at @peak cd/m2 and
 * BT.2020 (else BT.709) primaries, for ci_tm_linearize: @p and the EOTF
 * table @eotf (CI_TM_EOTF_N entries). */
static void
rgba64_light (CiTmTransfer trc, float peak, int bt2020, CiTmParams * p,
    float *eotf)
{
  static float oetf[CI_TM_TRC_N];
  CiTmConfig cfg;
  ci_tm_config_defaults (&cfg);
  cfg.in_format = CI_TM_IN_RGBA64;
  cfg.transfer = trc;
  cfg.input_peak = peak;
  cfg.primaries_bt2020 = bt2020;
  ci_tm_params_init (&cfg, p);
  ci_tm_build_trc_luts (&cfg, eotf, oetf);
}

/* The domain ci_tm_fdiv_nrm needs (kernels/tonemap_math.h): every pixel
 * luminance Y > 0 in [2^-100, 2^20] and every histogram map value 0 or in
 * [2^-40, 1], for every transfer, input-peak and primaries.  The EOTF is a
 * nearest-node lookup, so the table's nodes are all the values a channel
 * takes; Y grows with each channel (HLG's OOTF included: Y = Lw Ys^gamma,
 * gamma > 0), so single-channel and grey pixels give its extremes. */
static void
test_factor_domain (void)
{
  const CiTmTransfer trc[] = { CI_TM_TRC_PQ, CI_TM_TRC_HLG, CI_TM_TRC_LINEAR,
    CI_TM_TRC_SRGB
  };
  const float peaks[] = { 1.0f, 203.0f, 1000.0f, 4000.0f, 10000.0f };
  float ymin = INFINITY, ymax = 0.0f;
  int bad = 0;
  for (int t = 0; t < 4; t++)
    for (int k = 0; k < 5; k++)
      for (int pr = 0; pr < 2; pr++) {
        CiTmParams p;
        static float eotf[CI_TM_EOTF_N];
        float rgb[3];
        rgba64_light (trc[t], peaks[k], pr, &p, eotf);
        for (int i = 0; i <= CI_TM_TRC_LUT; i++) {
          const float x = (float) i / CI_TM_TRC_LUT;
          const float px[4][3] = { {x, 0, 0}, {0, x, 0}, {0, 0, x}, {x, x, x} };
          for (int j = 0; j < 4; j++) {
            const float y = ci_tm_linearize (&p, eotf, px[j][0], px[j][1],
                px[j][2], rgb);
            if (y == 0.0f)
              continue;
            bad += !(y >= 0x1p-100f && y <= 0x1p20f);
            ymin = fminf (ymin, y);
            ymax = fmaxf (ymax, y);
          }
        }
      }
  CHECK (bad == 0, "%d pixel luminances outside [2^-100, 2^20]", bad);
  /* the smallest non-zero map value: one count over a total above 2^32 */
  const float c1 = ci_tm_hist_target (1, 1ull << 33, 0, 1.0f);
  CHECK (c1 >= 0x1p-40f && ci_tm_hist_target (7, 7, 0, 1.0f) <= 1.0f &&
      ci_tm_hist_target (0, 5, 1, 1.0f) <= 1.0f, "map values: %g", c1);
  /* a dim frame's anchor: map values 0 or still at least 2^-40 */
  int dom = 0;
  for (float a = 1.0f; a > 1e-30f; a *= 0.37f)
    for (uint64_t top = 1; top < (1ull << 40); top = top * 3 + 1) {
      const float m = ci_tm_hist_target (1, top, 0, a);
      dom += !(m == 0.0f || (m >= 0x1p-40f && m <= 1.0f));
    }
  CHECK (dom == 0, "%d map values of dim frames outside 0 or [2^-40, 1]", dom);
  printf ("map factor's division: Y > 0 in [%.3g, %.3g] cd/m^2 over every "
      "transfer, input-peak and primaries; smallest map value %.3g\n",
      ymin, ymax, c1);
}

/* The statistic on cells (docs/tonemap.md §3): log10 of the cell's lower
 * edge, so within one cell's width below log10(Y + eps), never above;
 * non-decreasing in Y; and a pixel's bin by the per-frame table over the
 * keys (what the fast kernels use) equal to its bin from L. */
static void
test_cell_log (void)
{
  CiTmConfig cfg;
  float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
  ci_tm_config_defaults (&cfg);
  ci_tm_build_trc_luts (&cfg, eotf, oetf);
  const float lmin = -3.7f, lmax = 3.9f;
  const int bins[] = { 16, 1024, 4096 };
  double below = 0;
  int up = 0, down = 0, wrong = 0, n = 0;
  float prev = -INFINITY;
  uint32_t seed = 1;
  for (int i = 0; i <= 400000; i++) {
    /* 0, then a log-uniform sweep over 1e-7 .. 1e4 cd/m2, then random */
    float y;
    if (i == 0)
      y = 0.0f;
    else if (i <= 200000)
      y = (float) pow (10.0, -7.0 + 11.0 * (i - 1) / 199999.0);
    else {
      seed = seed * 1664525u + 1013904223u;
      y = (float) pow (10.0, -7.0 + 11.0 * (seed >> 8) / 16777216.0);
    }
    float l = ci_tm_logl (y, eotf);
    double ex = log10 ((double) y + CI_TM_EPS);
    below = fmax (below, ex - l);
    up += l > ex + 1e-6;
    if (i <= 200000) {
      down += l < prev;         /* the sweep rises */
      prev = l;
    }
    for (int b = 0; b < 3; b++) {
      float sc = ci_tm_range_scale (lmin, lmax, bins[b]);
      wrong += ci_tm_bin_of_key (ci_tm_key (y), eotf, lmin, sc, bins[b]) !=
          ci_tm_bin (l, lmin, sc, bins[b]);
      n++;
    }
  }
  printf ("cell log: at most %.6f below log10(Y + eps), %d above, %d "
      "decreasing, %d of %d table bins differ\n", below, up, down, wrong, n);
  CHECK (below < 0.0017 && up == 0 && down == 0 && wrong == 0,
      "cell log: %.5f below, %d above, %d decreasing, %d of %d bins wrong",
      below, up, down, wrong, n);
  CHECK (ci_tm_key (0.0f) == CI_TM_KEY0 &&
      ci_tm_key (10000.0f) < CI_TM_KEY_END, "key range");
}

/* Video: a nearly constant frame (the smallest range there is, one cell
 * of 1/256 octave, so scale near 4096 / 0.0017) and then a frame with a
 * full-white pixel binned over that range, millions of bins past the
 * top: it must clamp, as must NaN. (With the statistic continuous, before
 * 2026-11-28, the range could be just above the 1e-6 guard and the white
 * pixel's bin past 2^31, which crashed the reference once; the unit checks
 * below keep that case.) */
static void
test_bin_clamp (void)
{
  CHECK (ci_tm_bin (4.0f, 0.0f, 1e9f, 4096) == 4095, "huge bin");
  CHECK (ci_tm_bin (-4.0f, 0.0f, 1e9f, 4096) == 0, "huge negative bin");
  CHECK (ci_tm_bin (NAN, 0.0f, 1.0f, 16) == 0, "NaN bin");
  CHECK (ci_tm_bin (2.5f, 0.0f, 1.0f, 16) == 2, "plain bin");
  CHECK (ci_tm_bin (15.99f, 0.0f, 1.0f, 16) == 15 &&
      ci_tm_bin (16.0f, 0.0f, 1.0f, 16) == 15, "top bin");
  enum { W = 8, H = 8 };
  CiTmConfig cfg;
  tm_config_init (&cfg, CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, W, H);
  cfg.bins = 4096;
  CiTonemap *tm = NULL;
  static uint16_t in[H][W][4];
  static uint8_t out[H][W][4];
  CiTmInPlanes ip = { {(const uint8_t *) in, 0, 0}, {W * 8, 0, 0} };
  CiTmOutPlanes op = { {(uint8_t *) out, 0, 0}, {W * 4, 0, 0} };
  /* Grey of about 56 cd/m2 with a blue near 1 cd/m2; one pixel's blue
   * raised, a node (16 codes) at a time, until its luminance reaches the
   * next cell, so the frame's range is one cell. */
  const CiTmState *st = NULL;
  for (int d = 16; d <= 65535 - 9800; d += 16) {
    if (tm)
      ci_tonemap_free (tm);
    tm = ci_tonemap_new (&cfg);
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        in[y][x][0] = in[y][x][1] = 30000;
        in[y][x][2] = 9800;
        in[y][x][3] = 65535;
      }
    in[0][0][2] += d;
    ci_tonemap_process (tm, &ip, &op);
    st = ci_tonemap_get_state (tm);
    if (st->bhi - st->blo > 1e-6f)
      break;
  }
  /* one cell wide, and white (L = 4) is then binned far past the top */
  CHECK (st->bhi - st->blo > 1e-6f && st->bhi - st->blo < 0.002f &&
      (double) cfg.bins / (st->bhi - st->blo) * (4.0 - st->blo) > 1e6,
      "near-constant range %g from %g", st->bhi - st->blo, st->blo);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      in[y][x][0] = in[y][x][1] = in[y][x][2] =
          (x + y) * 4000 > 65535 ? 65535 : (x + y) * 4000;
  in[H - 1][W - 1][0] = in[H - 1][W - 1][1] = in[H - 1][W - 1][2] = 65535;
  ci_tonemap_process (tm, &ip, &op);
  CHECK (isfinite (ci_tonemap_get_state (tm)->smax), "second frame");
  ci_tonemap_free (tm);
}

static void
test_flicker_and_cut (void)
{
  const int w = 192, h = 108, W = 8, cut_at = 20, frames = 40;
  TmFrame *in = tm_frame_new_in (CI_TM_IN_P010, w, h, 0);
  TmFrame *out = tm_frame_new_out (CI_TM_OUT_BGRX, w, h, 0);
  double mean[64];
  for (int sm = 0; sm <= W; sm += W) {
    CiTonemap *tm = make (CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM,
        w, h, sm);
    double worst = 0;
    int cuts_before = 0;
    for (int fr = 0; fr < frames; fr++) {
      tm_fill_scene (in, fr < cut_at ? 0 : 1, 0.03, 100 + fr);
      run (tm, in, out);
      mean[fr] = tm_mean_luma (out);
      if (getenv ("TM_VERBOSE"))
        printf ("sm %d frame %d mean %.3f cuts %d\n", sm, fr, mean[fr], ci_tonemap_get_state (tm)->cuts);
      if (fr > 2 && fr < cut_at)
        worst = fmax (worst, fabs (mean[fr] - mean[fr - 1]));
      if (fr == cut_at - 1)
        cuts_before = ci_tonemap_get_state (tm)->cuts;
    }
    printf ("smoothing %d: static noisy HDR scene, max |delta mean luma| "
        "frame to frame %.3f code values\n", sm, worst);
    if (sm == W) {
      CHECK (worst < 0.5, "flicker %.3f code values", worst);
      CHECK (cuts_before == 0, "false cut in a static scene");
      CHECK (ci_tonemap_get_state (tm)->cuts == 1, "cut not detected (%d)",
          ci_tonemap_get_state (tm)->cuts);
      /* settled within the window: later frames within 0.5 of the end */
      double fin = mean[frames - 1], dev = 0;
      for (int fr = cut_at + W; fr < frames; fr++)
        dev = fmax (dev, fabs (mean[fr] - fin));
      printf ("after the cut at frame %d: mean luma %.2f -> %.2f, frames >= "
          "cut+%d within %.3f of the final value\n", cut_at,
          mean[cut_at - 1], fin, W, dev);
      CHECK (dev < 0.5, "not settled after a cut: %.3f", dev);
    }
    ci_tonemap_free (tm);
  }
  tm_frame_free (in);
  tm_frame_free (out);
}

/* Pumping: a sign covering 2 % of a static noisy scene blinks (off 0.5
 * nits, on 500 nits, every other frame). Per-frame equalisation moves the
 * rest of the picture with it (mean output luma of the static part, away
 * from the sign); the smoothing window must damp that, more with a longer
 * window, without taking the blinking for cuts. (The measure, the
 * mean luma of the whole frame, cannot show this: equalisation keeps it
 * near mid-grey whatever the sign does.) */
static void
test_blinking_sign (void)
{
  const int w = 192, h = 108, frames = 40, settled = 20;
  const int bw = 27, bh = 15, bx = 10, by = h - bh - 2;     /* 1.95 % */
  const int windows[] = { 0, 2, 4, 8, 16 };
  TmFrame *in = tm_frame_new_in (CI_TM_IN_P010, w, h, 0);
  TmFrame *out = tm_frame_new_out (CI_TM_OUT_BGRX, w, h, 0);
  double pump[5];
  for (int wi = 0; wi < 5; wi++) {
    CiTonemap *tm = make (CI_TM_IN_P010, CI_TM_OUT_BGRX, CI_TM_OP_HISTOGRAM,
        w, h, windows[wi]);
    double prev = 0;
    pump[wi] = 0;
    for (int fr = 0; fr < frames; fr++) {
      tm_fill_scene (in, 0, 0.03, 300 + fr);
      const double e = tm_pq_signal (fr & 1 ? 500.0 : 0.5);
      for (int y = by; y < by + bh; y++)
        for (int x = bx; x < bx + bw; x++)
          tm_put_nonlinear (in, x, y, e, 0.6 * e, 0.6 * e, 1);
      run (tm, in, out);
      double m = 0;
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          if (y < by - 1 || y > by + bh || x < bx - 1 || x > bx + bw)
            m += tm_luma_at (out, x, y);
      m /= (double) w * h - (double) (bw + 2) * (bh + 2);
      /* after the window has filled (and, at 16, nearly so) */
      if (fr > settled)
        pump[wi] = fmax (pump[wi], fabs (m - prev));
      prev = m;
    }
    printf ("blinking sign (2 %% of the frame), smoothing %2d: the static "
        "part's mean luma moves up to %.3f code values frame to frame\n",
        windows[wi], pump[wi]);
    CHECK (ci_tonemap_get_state (tm)->cuts == 0, "smoothing %d: the blinking "
        "was taken for %d cuts", windows[wi], ci_tonemap_get_state (tm)->cuts);
    if (wi > 0)
      CHECK (pump[wi] < 0.75 * pump[wi - 1], "smoothing %d pumps %.3f, "
          "smoothing %d %.3f: a longer window must damp more", windows[wi],
          pump[wi], windows[wi - 1], pump[wi - 1]);
    ci_tonemap_free (tm);
  }
  CHECK (pump[0] > 2.0, "per-frame equalisation pumped only %.3f: the case "
      "tests nothing", pump[0]);
  CHECK (pump[3] < 0.5, "smoothing 8 pumps %.3f code values", pump[3]);
  tm_frame_free (in);
  tm_frame_free (out);
}

/* Every input/output format and operator runs, and gamut mapping keeps hue:
 * a saturated BT.2020 red object stays red (no channel clip to orange). */
static double
hue_of (const double *xyz)
{
  double s = xyz[0] + xyz[1] + xyz[2];
  return atan2 (xyz[1] / s - 0.3290, xyz[0] / s - 0.3127) * 180.0 / M_PI;
}

static double
inv709 (double v)
{
  return v < 0.081 ? v / 4.5 : pow ((v + 0.099) / 1.099, 1 / 0.45);
}

/* Hue angle difference (degrees, around D65 in xy) between a BT.2020 linear
 * colour and an 8-bit BT.709 output pixel. */
static double
hue_error (const double *rgb2020, const uint8_t * px)
{
  const double *c = rgb2020;
  double in[3] = { 0.636958 * c[0] + 0.144617 * c[1] + 0.168881 * c[2],
    0.262700 * c[0] + 0.677998 * c[1] + 0.059302 * c[2],
    0.028073 * c[1] + 1.060985 * c[2]
  };
  double r = inv709 (px[0] / 255.0), g = inv709 (px[1] / 255.0),
      b = inv709 (px[2] / 255.0);
  double out[3] = { 0.412391 * r + 0.357584 * g + 0.180481 * b,
    0.212639 * r + 0.715169 * g + 0.072192 * b,
    0.019331 * r + 0.119195 * g + 0.950532 * b
  };
  double d = fabs (hue_of (in) - hue_of (out));
  return d > 180 ? 360 - d : d;
}

static double worst_hue, clip_hue;
static int worst_yuv, worst_alpha;

/* A 4:2:0 output against the RGBA output of the same run, through an 8-bit
 * BT.709 limited-range forward matrix written out here: each luma within 2
 * codes of the one from that pixel's R'G'B', each chroma pair within 2 of
 * the one from the block's mean R'G'B'. */
static void
check_yuv_vs_rgba (const TmFrame * yuv, const TmFrame * rgba, const char *tag)
{
  const int w = yuv->w, h = yuv->h, nv12 = yuv->fmt == CI_TM_OUT_NV12;
  int worst = 0;
  for (int by = 0; by + 1 < h; by += 2)
    for (int bx = 0; bx + 1 < w; bx += 2) {
      double mr = 0, mg = 0, mb = 0;
      for (int k = 0; k < 4; k++) {
        const int x = bx + (k & 1), y = by + (k >> 1);
        const uint8_t *p = rgba->plane[0] + (size_t) y * rgba->stride[0] +
            4 * x;
        const double r = p[0], g = p[1], b = p[2];
        const double yl = 16 + 219 * (0.2126 * r + 0.7152 * g + 0.0722 * b)
            / 255;
        const int got = yuv->plane[0][(size_t) y * yuv->stride[0] + x];
        worst = MAX (worst, (int) ceil (fabs (got - yl) - 0.5));
        mr += r / 4;
        mg += g / 4;
        mb += b / 4;
      }
      const double yl = 0.2126 * mr + 0.7152 * mg + 0.0722 * mb;
      const double cb = 128 + 224 * (mb - yl) / 1.8556 / 255;
      const double cr = 128 + 224 * (mr - yl) / 1.5748 / 255;
      const size_t cy = by / 2, cx = bx / 2;
      const int gcb = nv12 ? yuv->plane[1][cy * yuv->stride[1] + 2 * cx] :
          yuv->plane[1][cy * yuv->stride[1] + cx];
      const int gcr = nv12 ? yuv->plane[1][cy * yuv->stride[1] + 2 * cx + 1] :
          yuv->plane[2][cy * yuv->stride[2] + cx];
      worst = MAX (worst, (int) ceil (fabs (gcb - cb) - 0.5));
      worst = MAX (worst, (int) ceil (fabs (gcr - cr) - 0.5));
    }
  worst_yuv = MAX (worst_yuv, worst);
  CHECK (worst <= 2, "%s: 4:2:0 output off the RGBA output by %d codes", tag,
      worst);
}

static void
test_formats_and_gamut (void)
{
  const int w = 96, h = 54;
  for (int fi = 0; fi < CI_TM_IN_N; fi++) {
    TmFrame *in = tm_frame_new_in (fi, w, h, 8);
    tm_fill_scene (in, 0, 0, 1);
    const int a16 = fi == CI_TM_IN_RGBA64 || fi == CI_TM_IN_BGRA64;
    if (a16)                    /* an alpha ramp, passed through */
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
          const uint16_t a = (uint16_t) ((x * 257 + y * 1031) % 65536);
          uint8_t *p = in->plane[0] + (size_t) y * in->stride[0] + 8 * x + 6;
          p[0] = a & 255;
          p[1] = a >> 8;
        }
    TmFrame *rgba[CI_TM_OP_CLIP + 1] = { NULL };
    for (int fo = 0; fo < CI_TM_OUT_N; fo++) {
      TmFrame *out = tm_frame_new_out (fo, w, h, 8);
      for (int op = 0; op <= CI_TM_OP_CLIP; op++) {
        CiTonemap *tm = make (fi, fo, op, w, h, 0);
        run (tm, in, out);
        char tag[96];
        snprintf (tag, sizeof tag, "%s -> %s, %s", tm_in_name (fi),
            tm_out_name (fo), tm_op_name (op));
        if (fo == CI_TM_OUT_RGBA) {
          rgba[op] = tm_frame_new_out (fo, w, h, 8);
          memcpy (rgba[op]->plane[0], out->plane[0], out->size[0]);
        }
        if (fo == CI_TM_OUT_I420 || fo == CI_TM_OUT_NV12)
          check_yuv_vs_rgba (out, rgba[op], tag);
        if (a16 && (fo == CI_TM_OUT_RGBA || fo == CI_TM_OUT_BGRA)) {
          int bad = 0;
          for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
              const int a = (x * 257 + y * 1031) % 65536;
              const int want = (int) floor (a * 255.0 / 65535 + 0.5);
              const int got = out->plane[0][(size_t) y * out->stride[0] +
                  4 * x + 3];
              bad = MAX (bad, abs (got - want));
            }
          worst_alpha = MAX (worst_alpha, bad);
          CHECK (bad == 0, "%s: alpha off by up to %d", tag, bad);
        }
        if (fo == CI_TM_OUT_RGBA && op != CI_TM_OP_CLIP) {
          /* patches at v 0.78: red u 0.1, green u 0.25, blue u 0.4 */
          static const double src[3][3] = { {1, 0.02, 0.02}, {0.02, 1, 0.05},
          {0.03, 0.03, 1}
          };
          for (int k = 0; k < 3; k++) {
            const uint8_t *px = out->plane[0] + (size_t) (int) (0.78 * h) *
                out->stride[0] + 4 * (int) ((0.1 + 0.15 * k) * w);
            double dh = hue_error (src[k], px);
            worst_hue = fmax (worst_hue, dh);
            CHECK (dh < 2.0, "%s/%s patch %d -> %d %d %d: hue off by %.1f deg",
                tm_in_name (fi), tm_op_name (op), k, px[0], px[1], px[2], dh);
          }
        }
        ci_tonemap_free (tm);
      }
      tm_frame_free (out);
    }
    for (int op = 0; op <= CI_TM_OP_CLIP; op++)
      tm_frame_free (rgba[op]);
    tm_frame_free (in);
  }
  printf ("4:2:0 outputs against the RGBA output through a BT.709 matrix: "
      "within %d codes; alpha ramps: off by at most %d\n", worst_yuv,
      worst_alpha);
  /* the naive baseline: per-channel clipping of the same scene */
  TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, w, h, 0);
  TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, w, h, 0);
  tm_fill_scene (in, 0, 0, 1);
  CiTonemap *tm = make (CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, CI_TM_OP_CLIP, w, h,
      0);
  run (tm, in, out);
  static const double src[3][3] = { {1, 0.02, 0.02}, {0.02, 1, 0.05},
  {0.03, 0.03, 1}
  };
  for (int k = 0; k < 3; k++)
    clip_hue = fmax (clip_hue, hue_error (src[k], out->plane[0] +
            (size_t) (int) (0.78 * h) * out->stride[0] +
            4 * (int) ((0.1 + 0.15 * k) * w)));
  printf ("saturated BT.2020 patches: hue error %.2f deg with gamut mapping, "
      "%.2f deg with per-channel clipping\n", worst_hue, clip_hue);
  ci_tonemap_free (tm);
  tm_frame_free (in);
  tm_frame_free (out);
}

/* The clip operator is the naive baseline (docs/tonemap.md, section 5:
 * "x, no gamut mapping"): an over-range colour is clipped per channel, not
 * desaturated like the other operators' (section 6). Linear BT.709 input
 * (1000 cd/m2 at code 1.0), codes on EOTF nodes so the light is exact:
 * 375 and 125 cd/m2 at target-peak 250 are 1.5 and 0.5 of the target, and
 * the pixel's luminance (178 or 143 cd/m2) is below it, so the curve is
 * x itself. Expected: the over channel at 255, the others at the 8-bit
 * code of the BT.709 OETF of 0.5 (180), computed here in double (gamut
 * mapping pulls them towards the luminance: 203 and 187). */
static void
test_clip_per_channel (void)
{
  const int w = 2, h = 2;
  static const uint16_t px[2][4] = { {24576, 8192, 8192, 65535},
  {8192, 8192, 24576, 65535}
  };
  TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, w, h, 0);
  TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, w, h, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      memcpy (in->plane[0] + (size_t) y * in->stride[0] + 8 * x, px[y],
          sizeof px[y]);
  CiTmConfig cfg;
  tm_config_init (&cfg, CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, w, h);
  cfg.op = CI_TM_OP_CLIP;
  cfg.transfer = CI_TM_TRC_LINEAR;
  cfg.primaries_bt2020 = 0;
  cfg.input_peak = 1000.0f;
  cfg.target_peak = 250.0f;
  cfg.smoothing = 0;
  CiTonemap *tm = ci_tonemap_new (&cfg);
  run (tm, in, out);
  const int half = (int) floor (255.0 * (1.099 * pow (0.5, 0.45) - 0.099)
      + 0.5);
  const int want[2][4] = { {255, half, half, 255}, {half, half, 255, 255} };
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *o = out->plane[0] + (size_t) y * out->stride[0] + 4 * x;
      const int *c = want[y];
      CHECK (o[0] == c[0] && o[1] == c[1] && o[2] == c[2] && o[3] == c[3],
          "clip operator, pixel (%d,%d): %d %d %d %d, want the per-channel "
          "clip %d %d %d %d", x, y, o[0], o[1], o[2], o[3], c[0], c[1], c[2],
          c[3]);
    }
  ci_tonemap_free (tm);
  tm_frame_free (in);
  tm_frame_free (out);
}

/* ci_tm_decode (which the statistics, the reference and the kernels
 * share) against tmscene's own encoder: every input format, colours
 * constant over 2x2 blocks, R'G'B' back within a few quantisation steps. */
static void
test_decode (void)
{
  const int w = 10, h = 6;
  for (int fi = 0; fi < CI_TM_IN_N; fi++) {
    TmFrame *f = tm_frame_new_in (fi, w, h, 4);
    uint64_t st = 77 + fi;
    double col[3][5][3];
    for (int by = 0; by < h / 2; by++)
      for (int bx = 0; bx < w / 2; bx++)
        for (int c = 0; c < 3; c++)
          col[by][bx][c] = (double) (ci_rand_next (&st) >> 11) / (1ull << 53);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const double *c = col[y / 2][x / 2];
        tm_put_nonlinear (f, x, y, c[0], c[1], c[2], 1.0);
      }
    CiTmConfig cfg;
    CiTmParams p;
    tm_config_init (&cfg, fi, CI_TM_OUT_RGBA, w, h);
    ci_tm_params_init (&cfg, &p);
    CiTmInPlanes ip;
    tm_frame_in_planes (f, &ip);
    double worst = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        float r, g, b, a;
        ci_tm_decode (&p, &ip, x, y, &r, &g, &b, &a);
        const double *c = col[y / 2][x / 2];
        worst = fmax (worst, fmax (fabs (r - c[0]), fmax (fabs (g - c[1]),
                    fabs (b - c[2]))));
      }
    /* 10-bit limited range: a step is 1/876 (chroma 1/896) of full scale,
     * and R', B' take up to 1.88 chroma steps plus a luma step */
    CHECK (worst < 4e-3, "%s: decoded R'G'B' off by %.5f", tm_in_name (fi),
        worst);
    tm_frame_free (f);
  }
}

/* ---- slices on threads (ci_tonemap_set_runner) ---- */
/* 2, 3 and 16 slices give one slice's bytes and statistics, frame after
 * frame (video: the histogram and range carried over, a cut; still). The
 * sliced output has no row padding (odd strides at odd widths): a slice
 * writing past its rows' bytes would change its neighbour's or, on the
 * last row, leave the buffer (valgrind) */
static void
test_threads (void)
{
  static const struct
  {
    int fi, fo, w, h, smoothing;
  } c[] = {
    {CI_TM_IN_P010, CI_TM_OUT_BGRX, 123, 59, 4},
    {CI_TM_IN_RGBA64, CI_TM_OUT_NV12, 97, 35, 0},
    {CI_TM_IN_I420_10, CI_TM_OUT_I420, 33, 7, 2},
    {CI_TM_IN_BGR10A2, CI_TM_OUT_RGBA, 5, 1, 4},
  };
  static const unsigned slices[] = { 2, 3, 16 };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    for (size_t k = 0; k < sizeof slices / sizeof slices[0]; k++) {
      CiTmConfig cfg;
      tm_config_init (&cfg, c[i].fi, c[i].fo, c[i].w, c[i].h);
      cfg.smoothing = c[i].smoothing;
      CiTonemap *one = ci_tonemap_new (&cfg), *many = ci_tonemap_new (&cfg);
      CHECK (ci_tonemap_set_runner (many, ci_thread_runner, NULL,
              slices[k]) == 0, "set_runner");
      TmFrame *in = tm_frame_new_in (c[i].fi, c[i].w, c[i].h, 3);
      TmFrame *a = tm_frame_new_out (c[i].fo, c[i].w, c[i].h, 1);
      TmFrame *b = tm_frame_new_out (c[i].fo, c[i].w, c[i].h, TM_PAD_TIGHT);
      for (int fr = 0; fr < 4; fr++) {
        /* frame 2 is another scene: a cut */
        tm_fill_scene (in, fr == 2, 0.02, 500 + fr);
        CiTmInPlanes ip;
        CiTmOutPlanes oa, ob;
        tm_frame_in_planes (in, &ip);
        tm_frame_out_planes (a, &oa);
        tm_frame_out_planes (b, &ob);
        ci_tonemap_process (one, &ip, &oa);
        ci_tonemap_process (many, &ip, &ob);
        long nd = 0;
        const int d = tm_frame_diff (a, b, &nd);
        CHECK (d == 0, "%s %dx%d, %u slices, frame %d: %ld bytes differ "
            "(max %d)", tm_in_name (c[i].fi), c[i].w, c[i].h, slices[k], fr,
            nd, d);
        const CiTmState *sa = ci_tonemap_get_state (one),
            *sb = ci_tonemap_get_state (many);
        CHECK (sa->count == sb->count && sa->cuts == sb->cuts
            && memcmp (sa->s, sb->s, (size_t) cfg.bins * sizeof *sa->s) == 0,
            "%s, %u slices, frame %d: other statistics",
            tm_in_name (c[i].fi), slices[k], fr);
      }
      tm_frame_free (in);
      tm_frame_free (a);
      tm_frame_free (b);
      ci_tonemap_free (one);
      ci_tonemap_free (many);
    }
}

/* HLG's system gamma follows the display peak (BT.2100 note 5f:
 * gamma = 1.2 + 0.42 log10(Lw / 1000)), so away from 1000 cd/m2 it is not
 * 1.2. Grey at nodes of the EOTF table (k/4096, no rounding of the
 * signal) through ci_tm_linearize against BT.2100's display light
 * F_D = Lw Ys^gamma (grey: Ys = E), written out here in double. E' = 1
 * (Ys = 1) would not tell gammas apart, so it is left out. */
static void
test_hlg_gamma (void)
{
  const double peaks[] = { 400.0, 2000.0, 4000.0 };
  const double sig[] = { 0.125, 0.25, 0.5, 0.625, 0.75, 0.875 };
  for (size_t k = 0; k < sizeof peaks / sizeof peaks[0]; k++) {
    const double lw = peaks[k], gamma = 1.2 + 0.42 * log10 (lw / 1000.0);
    CiTmParams p;
    static float eotf[CI_TM_EOTF_N];
    float rgb[3];
    rgba64_light (CI_TM_TRC_HLG, (float) lw, 1, &p, eotf);
    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++) {
      const double e = sig[i];
      /* BT.2100 HLG inverse OETF, a = 0.17883277, b = 1 - 4a, c = 0.5 - a ln 4a */
      const double a = 0.17883277, b = 1.0 - 4.0 * a,
          c = 0.5 - a * log (4.0 * a);
      const double ys = e <= 0.5 ? e * e / 3.0 : (exp ((e - c) / a) + b) / 12.0;
      const double fd = lw * pow (ys, gamma);
      const float y = ci_tm_linearize (&p, eotf, (float) e, (float) e,
          (float) e, rgb);
      CHECK (fabs (y - fd) <= 1e-4 * fd, "HLG Lw %g (gamma %.4f), E' %g: "
          "%g cd/m2, BT.2100 gives %g (with gamma 1.2: %g)", lw, gamma, e, y,
          fd, lw * pow (ys, 1.2));
      /* grey stays grey through BT.2087 (its rows sum to 1) */
      CHECK (fabs (rgb[1] - fd) <= 1e-4 * fd, "HLG Lw %g, E' %g: G %g, want %g",
          lw, e, rgb[1], fd);
    }
  }
}
/* Odd frame sizes: the 4:2:0 outputs' last chroma column and row come from
 * 2-pixel quads (and the corner from 1), whose mean divides by 2 (by 1),
 * not 4 (docs/tonemap.md §6). A flat coloured frame has the same R'G'B'
 * in every pixel, so every chroma sample, edges included, must be the
 * interior's; the colour is far enough from grey that a wrong divisor
 * moves Cb and Cr (an orange of 92, 32 and 8 cd/m2 under the clip
 * operator, which keeps it orange: the curves take a constant frame's
 * one luminance to white). */
static void
test_odd_edge_chroma (void)
{
  const int w = 97, h = 55, cw = (w + 1) / 2, ch = (h + 1) / 2;
  TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, w, h, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      tm_put_nonlinear (in, x, y, 0.50, 0.40, 0.28, 1.0);
  for (int fo = CI_TM_OUT_I420; fo <= CI_TM_OUT_NV12; fo++) {
    TmFrame *out = tm_frame_new_out (fo, w, h, 3);
    CiTonemap *tm = make (CI_TM_IN_RGBA64, fo, CI_TM_OP_CLIP, w, h, 0);
    run (tm, in, out);
    const int nv12 = fo == CI_TM_OUT_NV12;
#define TM_U(cx, cy) (nv12 ? out->plane[1][(size_t) (cy) * out->stride[1] + \
      2 * (cx)] : out->plane[1][(size_t) (cy) * out->stride[1] + (cx)])
#define TM_V(cx, cy) (nv12 ? out->plane[1][(size_t) (cy) * out->stride[1] + \
      2 * (cx) + 1] : out->plane[2][(size_t) (cy) * out->stride[2] + (cx)])
    const int u0 = TM_U (0, 0), v0 = TM_V (0, 0);
    CHECK (abs (u0 - 128) >= 8 && abs (v0 - 128) >= 8, "%s: flat colour "
        "gave chroma %d %d, too near grey to test the edges", tm_out_name (fo),
        u0, v0);
    int bad = 0;
    for (int cy = 0; cy < ch; cy++)
      for (int cx = 0; cx < cw; cx++)
        if (TM_U (cx, cy) != u0 || TM_V (cx, cy) != v0) {
          if (bad++ < 4)
            fprintf (stderr, "%s %dx%d chroma (%d, %d): %d %d, interior %d "
                "%d\n", tm_out_name (fo), w, h, cx, cy, TM_U (cx, cy),
                TM_V (cx, cy), u0, v0);
        }
#undef TM_U
#undef TM_V
    int ybad = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        ybad += out->plane[0][(size_t) y * out->stride[0] + x] !=
            out->plane[0][0];
    CHECK (bad == 0 && ybad == 0, "%s %dx%d flat frame: %d chroma and %d "
        "luma samples differ from the interior", tm_out_name (fo), w, h, bad,
        ybad);
    ci_tonemap_free (tm);
    tm_frame_free (out);
  }
  tm_frame_free (in);
}
/* The bin of L by docs/tonemap.md §3, scale = bins / (Lmax - Lmin),
 * bin = floor((L - Lmin) scale) clamped to [0, bins-1]: L at the centre
 * of each bin and a hundredth of a bin inside each of its edges, worked
 * out here in double, must land in that bin; Lmin in bin 0 and Lmax in
 * the top one. */
static void
test_bin_edges (void)
{
  const int bins[] = { 16, 100, 1024, 4096 };
  const float ranges[][2] = { {-4.0f, 4.0f}, {-1.37f, 2.91f}, {0.5f, 0.75f} };
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
    for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
      const float lmin = ranges[r][0], lmax = ranges[r][1];
      const int n = bins[i];
      const float scale = ci_tm_range_scale (lmin, lmax, n);
      const double width = ((double) lmax - lmin) / n;
      int bad = 0;
      for (int b = 0; b < n; b++) {
        const double at[] = { b + 0.01, b + 0.5, b + 0.99 };
        for (int k = 0; k < 3; k++) {
          const float l = (float) (lmin + at[k] * width);
          /* the float L's bin, in double: float rounding of L stays well
           * inside the hundredth of a bin */
          const int want = (int) floor (((double) l - lmin) / width);
          const int got = ci_tm_bin (l, lmin, scale, n);
          if (got != want || want != b) {
            if (bad++ < 3)
              fprintf (stderr, "bins %d [%g, %g]: L %.9g in bin %d, want %d\n",
                  n, lmin, lmax, l, got, want);
          }
        }
      }
      CHECK (bad == 0, "bins %d over [%g, %g]: %d values in the wrong bin", n,
          lmin, lmax, bad);
      CHECK (ci_tm_bin (lmin, lmin, scale, n) == 0 &&
          ci_tm_bin (lmax, lmin, scale, n) == n - 1, "bins %d over [%g, %g]: "
          "Lmin in %d, Lmax in %d", n, lmin, lmax,
          ci_tm_bin (lmin, lmin, scale, n), ci_tm_bin (lmax, lmin, scale, n));
    }
}
/* Writes one pixel's Y'CbCr codes (depth 10 or 16, as the format stores
 * them) into a YUV input frame; 4:2:0 chroma goes to the pixel's quad. */
static void
put_ycc_codes (TmFrame * f, int x, int y, unsigned yc, unsigned cb,
    unsigned cr)
{
  const int sh = f->fmt == CI_TM_IN_P010 ? 6 : 0;
  ((uint16_t *) (f->plane[0] + (size_t) y * f->stride[0]))[x] =
      (uint16_t) (yc << sh);
  if (f->fmt == CI_TM_IN_Y444_16) {
    ((uint16_t *) (f->plane[1] + (size_t) y * f->stride[1]))[x] = cb;
    ((uint16_t *) (f->plane[2] + (size_t) y * f->stride[2]))[x] = cr;
  } else if (f->fmt == CI_TM_IN_I420_10) {
    ((uint16_t *) (f->plane[1] + (size_t) (y / 2) * f->stride[1]))[x / 2] = cb;
    ((uint16_t *) (f->plane[2] + (size_t) (y / 2) * f->stride[2]))[x / 2] = cr;
  } else {
    uint16_t *uv = (uint16_t *) (f->plane[1] + (size_t) (y / 2) *
        f->stride[1]) + 2 * (x / 2);
    uv[0] = (uint16_t) (cb << sh);
    uv[1] = (uint16_t) (cr << sh);
  }
}

/* Chroma decode (docs/tonemap.md §1): the neutral code 2^(d-1) is C = 0
 * exactly in both ranges (limited: 128/224, full: 2^(d-1)/(2^d-1), the
 * offset's own value), so neutral pixels decode to R' = G' = B' = Y' for
 * every matrix; and full range's extreme chroma codes give
 * C = (code - 2^(d-1))/(2^d-1), worked out here in double. */
static void
test_chroma_decode (void)
{
  const CiTmInFormat fmts[] = { CI_TM_IN_P010, CI_TM_IN_I420_10,
    CI_TM_IN_P016, CI_TM_IN_Y444_16
  };
  const double kb[] = { 0.0593, 0.0722, 0.114 };
  for (size_t fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++)
    for (int full = 0; full <= 1; full++)
      for (int m = CI_TM_MATRIX_BT2020; m <= CI_TM_MATRIX_BT601; m++) {
        const int d = fmts[fi] == CI_TM_IN_P010
            || fmts[fi] == CI_TM_IN_I420_10 ? 10 : 16;
        const unsigned maxc = (1u << d) - 1, mid = 1u << (d - 1);
        /* luma codes: black, a dark grey, mid, white (of the range) */
        const unsigned ys[4] = { full ? 0 : 16u << (d - 8),
          full ? maxc / 5 : 80u << (d - 8), mid,
          full ? maxc : 235u << (d - 8)
        };
        TmFrame *f = tm_frame_new_in (fmts[fi], 8, 2, 0);
        for (int x = 0; x < 8; x++)
          for (int y = 0; y < 2; y++)
            put_ycc_codes (f, x, y, ys[x / 2], x < 4 || !full ? mid :
                (x < 6 ? maxc : 0), mid);
        CiTmConfig cfg;
        CiTmParams p;
        tm_config_init (&cfg, fmts[fi], CI_TM_OUT_RGBA, 8, 2);
        cfg.full_range = full;
        cfg.matrix = m;
        ci_tm_params_init (&cfg, &p);
        CiTmInPlanes ip;
        tm_frame_in_planes (f, &ip);
        for (int x = 0; x < 8; x++) {
          float r, g, b, a;
          ci_tm_decode (&p, &ip, x, 0, &r, &g, &b, &a);
          if (x < 4 || !full) {
            CHECK (r == g && g == b, "%s %s range, matrix %d, Y' code %u, "
                "neutral chroma: R'G'B' %.9g %.9g %.9g", tm_in_name (fmts[fi]),
                full ? "full" : "limited", m, ys[x / 2], r, g, b);
            continue;
          }
          /* Cb at the top (x 4, 5) and bottom (x 6, 7) code, Cr neutral:
           * B' = Y' + 2(1 - Kb) Cb */
          const double c = ((double) (x < 6 ? maxc : 0) - mid) / maxc;
          const double yv = (double) ys[x / 2] / maxc;
          const double want = yv + 2.0 * (1.0 - kb[m]) * c;
          CHECK (fabs (b - want) < 1e-6 && fabs (r - yv) < 1e-6, "%s full "
              "range, matrix %d, "
              "Cb code %u: B' %.9g R' %.9g, want %.9g %.9g",
              tm_in_name (fmts[fi]), m, x < 6 ? maxc : 0, b, r, want, yv);
        }
        tm_frame_free (f);
      }
}
/* ci_tm_load_quad (the map pass's decode of a 2x2 quad: 4:2:0 inputs read
 * their one chroma sample once) must give each pixel what ci_tm_decode
 * and ci_tm_linearize give it, bit for bit, the statistics' path: random
 * codes in every plane of every input format, both ranges, odd sizes
 * (the quads past the right and bottom edges replicate the last pixel). */
static void
test_load_quad (void)
{
  const int w = 13, h = 7;
  uint64_t st = 4242;
  for (int fi = 0; fi < CI_TM_IN_N; fi++)
    for (int full = 0; full <= 1; full++) {
      TmFrame *f = tm_frame_new_in (fi, w, h, 4);
      for (int pl = 0; pl < f->nplanes; pl++)
        for (int y = 0; y < tm_frame_rows (f, pl); y++)
          for (int x = 0; x < tm_frame_row_bytes (f, pl); x++)
            f->plane[pl][(size_t) y * f->stride[pl] + x] =
                (uint8_t) (ci_rand_next (&st) >> 56);
      CiTmConfig cfg;
      CiTmParams p;
      static float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
      tm_config_init (&cfg, fi, CI_TM_OUT_RGBA, w, h);
      cfg.full_range = full;
      ci_tm_params_init (&cfg, &p);
      ci_tm_build_trc_luts (&cfg, eotf, oetf);
      CiTmInPlanes ip;
      tm_frame_in_planes (f, &ip);
      int bad = 0;
      for (int y = 0; y < h; y += 2)
        for (int x = 0; x < w; x += 2) {
          float rgb[4][3], ylum[4], l[4], a[4];
          ci_tm_load_quad (&p, eotf, &ip, x, y, rgb, ylum, l, a);
          for (int i = 0; i < 4; i++) {
            const int px = x + (i & 1) < w ? x + (i & 1) : w - 1,
                py = y + (i >> 1) < h ? y + (i >> 1) : h - 1;
            float r, g, b, al, c[3];
            ci_tm_decode (&p, &ip, px, py, &r, &g, &b, &al);
            const float yl = ci_tm_linearize (&p, eotf, r, g, b, c);
            const float ll = ci_tm_logl (yl, eotf);
            if (memcmp (c, rgb[i], sizeof c) != 0 || yl != ylum[i]
                || ll != l[i] || al != a[i]) {
              if (bad++ < 3)
                fprintf (stderr, "%s %s range (%d, %d): load_quad %g %g %g "
                    "Y %g, decode %g %g %g Y %g\n", tm_in_name (fi),
                    full ? "full" : "limited", px, py, rgb[i][0], rgb[i][1],
                    rgb[i][2], ylum[i], c[0], c[1], c[2], yl);
            }
          }
        }
      CHECK (bad == 0, "%s %s range: %d pixels of ci_tm_load_quad differ from "
          "ci_tm_decode", tm_in_name (fi), full ? "full" : "limited", bad);
      tm_frame_free (f);
    }
}

/* ST 2084 in double, from the standard's constants (the test's own, not
 * tonemap_math.h's) */
static double
st2084_inv (double nits)
{
  const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128,
      c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32;
  const double p = pow (nits / 10000.0, m1);
  return pow ((c1 + c2 * p) / (1 + c3 * p), m2);
}

static double
st2084 (double e)
{
  const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128,
      c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32;
  /* the docs' pow: 0 for e <= 0 (BT.2390's spline dips below 0 there) */
  const double p = e <= 0 ? 0 : pow (e, 1 / m2);
  return 10000.0 * pow (fmax (p - c1, 0.0) / (c2 - c3 * p), 1 / m1);
}

static double
hable_h (double x)
{
  return (x * (0.15 * x + 0.05) + 0.004) / (x * (0.15 * x + 0.5) + 0.06) -
      0.02 / 0.3;
}

/* docs/tonemap.md §5's curves in double: Yt of y cd/m2 */
static double
curve_exact (int op, double y, double peak, double target)
{
  const double x = y / target, w = peak / target;
  double r = x;
  if (w > 1 && op == CI_TM_OP_REINHARD)
    r = x * (1 + x / (w * w)) / (1 + x);
  else if (w > 1 && op == CI_TM_OP_HABLE)
    r = hable_h (x) / hable_h (w);
  else if (w > 1 && op == CI_TM_OP_BT2390) {
    const double pw = st2084_inv (peak), m = st2084_inv (target) / pw,
        ks = 1.5 * m - 0.5;
    double e = st2084_inv (y) / pw;
    if (e > ks) {
      const double t = (e - ks) / (1 - ks);
      e = (2 * t * t * t - 3 * t * t + 1) * ks + (t * t * t - 2 * t * t +
          t) * (1 - ks) + (-2 * t * t * t + 3 * t * t) * m;
    }
    r = st2084 (e * pw) / target;
  }
  return r < 0 ? 0 : (r > 1 ? 1 : r);
}

/* The curves (docs/tonemap.md §5) against those formulas written out in
 * double: reinhard, hable and BT.2390's knee at two source peaks and two
 * targets (the curves are scaled by target-peak, w by the source peak
 * over it), above the source peak (clamped to 1), and w <= 1 (x itself);
 * the curve table's entries k(L_j) = Yt/Y with Y = max(10^L_j - eps,
 * 1e-6), L_j = -4 + j/128 (at target-peak 1, where eps and the 1e-6
 * floor show); the measured peak 10^smax - eps; BT.709's inverse OETF
 * on both sides of its knee at 0.081. */
static void
test_curves (void)
{
  static const double ys[] = { 0.01, 0.5, 5.0, 50.0, 100.0, 150.0, 400.0,
    900.0, 2500.0, 6000.0
  };
  static const double pk[][2] = { {1000, 100}, {4000, 100}, {1000, 203},
  {4000, 203}, {80, 100}
  };
  double worst = 0;
  for (int op = CI_TM_OP_REINHARD; op <= CI_TM_OP_CLIP; op++)
    for (size_t k = 0; k < sizeof pk / sizeof pk[0]; k++)
      for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
        const double want = curve_exact (op, ys[i], pk[k][0], pk[k][1]);
        const float got = ci_tm_curve (op, (float) ys[i], (float) pk[k][0],
            (float) pk[k][1]);
        /* (hable's H(x) - 0.02/0.3 cancels in float at small x) */
        const double err = fabs (got - want) / (want + 1e-4);
        worst = fmax (worst, err);
        CHECK (err < 2e-4, "%s, source peak %g, target %g: Yt(%g cd/m2) = "
            "%.7g, want %.7g", tm_op_name (op), pk[k][0], pk[k][1], ys[i], got,
            want);
      }
  /* the table entries, target-peak 1 cd/m2, source peak 1000; hable's
   * and BT.2390's float cancellation (below 0.05 cd/m2 there) and PQ
   * powers leave them less exact */
  double worst_e = 0;
  for (int op = CI_TM_OP_REINHARD; op <= CI_TM_OP_CLIP; op++)
    for (int j = 0; j <= CI_TM_CURVE_LUT + 1; j += j < 64 ? 8 : 61) {
      const int jj = j < CI_TM_CURVE_LUT ? j : CI_TM_CURVE_LUT;
      const double y = fmax (pow (10.0, -4.0 + jj / 128.0) - 1e-4, 1e-6);
      const int loose = op == CI_TM_OP_HABLE || op == CI_TM_OP_BT2390;
      if (loose && y < 0.05)
        continue;
      const double want = curve_exact (op, y, 1000.0, 1.0) / y;
      const float got = ci_tm_curve_entry (op, j, 1000.0f, 1.0f);
      const double err = fabs (got - want) / want;
      worst_e = fmax (worst_e, err);
      CHECK (err < (loose ? 3e-4 : 2e-5), "%s curve table entry %d (L %g, Y %g): %.8g, want "
          "%.8g", tm_op_name (op), j, -4.0 + jj / 128.0, y, got, want);
    }
  /* w = 1 exactly (source peak = target-peak) is w <= 1: Yt = x itself,
   * x = Y / target-peak in float, bit for bit */
  int notx = 0;
  for (int op = CI_TM_OP_REINHARD; op <= CI_TM_OP_CLIP; op++)
    for (int i = 0; i < 2000; i++) {
      const float tp = i & 1 ? 203.0f : 100.0f,
          y = (float) (tp * pow (10.0, -3.0 + 3.0 * i / 2000.0));
      notx += ci_tm_curve (op, y, tp, tp) != y / tp;
    }
  CHECK (notx == 0, "source peak = target-peak: %d of 8000 curve values are "
      "not x = Y / target-peak", notx);
  printf ("curves against docs/tonemap.md §5 in double: within %.2e "
      "(relative), table entries within %.2e\n", worst, worst_e);
  /* 10^smax - eps: a frame of black (Y + eps = eps) measures 0 */
  CHECK (fabsf (ci_tm_measured_peak (-4.0f)) < 1e-8f &&
      fabsf (ci_tm_measured_peak (2.0f) - 99.9999f) < 1e-3f,
      "measured peak of L -4: %g, of L 2: %g", ci_tm_measured_peak (-4.0f),
      ci_tm_measured_peak (2.0f));
  static const double vs[] = { 0.0, 0.02, 0.0805, 0.0815, 0.085, 0.09, 0.3,
    0.7, 1.0
  };
  for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
    const double want = vs[i] < 0.081 ? vs[i] / 4.5 :
        pow ((vs[i] + 0.099) / 1.099, 1 / 0.45);
    const float got = ci_tm_bt709_inv_oetf_f ((float) vs[i]);
    CHECK (fabs (got - want) <= 1e-5 * want, "BT.709 inverse OETF of %g: "
        "%.8g, want %.8g", vs[i], got, want);
  }
}

/* 3x3 inverse (cofactors) */
static void
inv3 (const double m[3][3], double r[3][3])
{
  const double d = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
      m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
      m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3,
          e = (i + 2) % 3;
      r[i][j] = (m[a][c] * m[b][e] - m[a][e] * m[b][c]) / d;
    }
}

/* RGB -> XYZ of primaries xy[3][2] with the D65 white */
static void
npm (const double xy[3][2], double m[3][3])
{
  double p[3][3], pi[3][3], s[3];
  const double w[3] = { 0.3127 / 0.3290, 1.0, (1 - 0.3127 - 0.3290) / 0.3290 };
  for (int c = 0; c < 3; c++) {
    p[0][c] = xy[c][0] / xy[c][1];
    p[1][c] = 1.0;
    p[2][c] = (1 - xy[c][0] - xy[c][1]) / xy[c][1];
  }
  inv3 (p, pi);
  for (int i = 0; i < 3; i++)
    s[i] = pi[i][0] * w[0] + pi[i][1] * w[1] + pi[i][2] * w[2];
  for (int i = 0; i < 3; i++)
    for (int c = 0; c < 3; c++)
      m[i][c] = p[i][c] * s[c];
}

/* docs/tonemap.md §6's gamut step in double (after the scaling by k) */
static void
gamut_exact (double *c)
{
  if (c[0] >= 0 && c[1] >= 0 && c[2] >= 0 && c[0] <= 1 && c[1] <= 1
      && c[2] <= 1)
    return;
  double y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  y = y < 0 ? 0 : (y > 1 ? 1 : y);
  const double mn = fmin (c[0], fmin (c[1], c[2]));
  if (mn < 0)
    for (int i = 0; i < 3; i++)
      c[i] = y + y / (y - mn) * (c[i] - y);
  const double mx = fmax (c[0], fmax (c[1], c[2]));
  if (mx > 1)
    for (int i = 0; i < 3; i++)
      c[i] = y + (1 - y) / (mx - y) * (c[i] - y);
  for (int i = 0; i < 3; i++)
    c[i] = c[i] < 0 ? 0 : (c[i] > 1 ? 1 : c[i]);
}

/* BT.2020 -> BT.709 (linear) against the matrix derived here from the two
 * sets of primaries and D65 (BT.2087's is that, to 6 decimals), and the
 * gamut mapping (§6) on colours that take each of its branches: only one
 * channel below 0, a maximum above 1 that the first step already brings
 * in (the maximum must be re-read after it), a maximum just above 1, both
 * steps, a luminance above 1 (y is clamped to 1 first: a grey just over
 * white is white), and in-gamut colours (left alone) */
static void
test_gamut_map (void)
{
  static const double p2020[3][2] = { {0.708, 0.292}, {0.170, 0.797},
  {0.131, 0.046}
  }, p709[3][2] = { {0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06} };
  double a[3][3], b[3][3], bi[3][3], m[3][3];
  npm (p2020, a);
  npm (p709, b);
  inv3 (b, bi);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m[i][j] = bi[i][0] * a[0][j] + bi[i][1] * a[1][j] + bi[i][2] * a[2][j];
  static const float in[][3] = { {1, 0, 0}, {0, 1, 0}, {0, 0, 1},
  {0.3f, 0.5f, 0.7f}
  };
  for (size_t k = 0; k < sizeof in / sizeof in[0]; k++) {
    float o[3];
    ci_tm_bt2087 (in[k][0], in[k][1], in[k][2], o);
    for (int i = 0; i < 3; i++) {
      const double want = m[i][0] * in[k][0] + m[i][1] * in[k][1] +
          m[i][2] * in[k][2];
      CHECK (fabs (o[i] - want) < 2e-6, "BT.2020 (%g, %g, %g) -> BT.709 "
          "channel %d: %.7f, from the primaries %.7f", in[k][0], in[k][1],
          in[k][2], i, o[i], want);
    }
  }
  static const float cols[][3] = { {1.05f, 0.2f, -0.3f}, {0.5f, 0.5f, -0.1f},
  {1.005f, 0.9f, 0.8f}, {2.0f, 0.3f, 0.1f}, {0.3f, 1.5f, -0.2f},
  {3.0f, 1.2f, 1.1f}, {1.0f, 0.6f, 0.2f}, {0.2f, 0.4f, 0.0f},
  {1.00004f, 1.00004f, 1.00004f}        /* a curve table's k Y just over 1 */
  };
  for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
    /* k = 0.5 on twice the colour */
    float c[3] = { 2 * cols[k][0], 2 * cols[k][1], 2 * cols[k][2] };
    double e[3] = { cols[k][0], cols[k][1], cols[k][2] };
    ci_tm_gamut (CI_TM_OP_HISTOGRAM, 0.5f, c);
    gamut_exact (e);
    CHECK (fabs (c[0] - e[0]) < 1e-6 && fabs (c[1] - e[1]) < 1e-6 &&
        fabs (c[2] - e[2]) < 1e-6, "gamut mapping of (%g, %g, %g): %.7f "
        "%.7f %.7f, want %.7f %.7f %.7f", cols[k][0], cols[k][1], cols[k][2],
        c[0], c[1], c[2], e[0], e[1], e[2]);
  }
}

/* BT.709 OETF in double (the test's own) */
static double
oetf709 (double l)
{
  return l < 0.018 ? 4.5 * l : 1.099 * pow (l, 0.45) - 0.099;
}

/* Output encoding (docs/tonemap.md §6), each value worked out here in
 * double: the float OETF table at its nodes and the 8-bit codes
 * C[rne(4096 v)] = rne(255 OETF) at the nodes; the interpolated lookup
 * (§2: cell floor(v n), t = v n - cell) on a table of squares; then whole
 * frames of linear BT.709 light (RGBA64, codes on EOTF nodes: input-peak
 * = target-peak = 1000 cd/m2, clip operator, so the output's linear value
 * is node / 4096): each RGB output's byte order and its alpha or x byte,
 * RGB10A2's 2-bit alpha (code / 3), and the 4:2:0 outputs' limited-range
 * Y, Cb, Cr of four flat quads (colours picked so that Cr's 224, Cb's
 * 1.8556, the chroma's luma weights and the OETF table's last node each
 * move a code; one luma lies 0.01 above a rounding tie) */
static void
test_output_encoding (void)
{
  CiTmConfig cfg;
  static float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
  static uint8_t oetf8[CI_TM_OETF8_N];
  ci_tm_config_defaults (&cfg);
  ci_tm_build_trc_luts (&cfg, eotf, oetf);
  ci_tm_build_oetf8 (oetf, oetf8);
  int bad = 0;
  for (int i = 0; i <= CI_TM_TRC_LUT; i++) {
    const double o = oetf709 (i / 4096.0), c = 255.0 * o;
    const int code = (int) ci_tm_oetf8 (oetf8, (float) i / 4096.0f);
    if (fabs (oetf[i] - o) > 1e-6 || (fabs (c - floor (c) - 0.5) > 1e-4 &&
            code != (int) floor (c + 0.5))) {
      if (bad++ < 3)
        fprintf (stderr, "OETF node %d: %.8f code %d, want %.8f code %.3f\n",
            i, oetf[i], code, o, c);
    }
  }
  CHECK (bad == 0, "%d OETF table nodes or 8-bit codes off BT.709", bad);
  float sq[10];
  for (int i = 0; i < 10; i++)
    sq[i] = (float) (i * i);
  sq[9] = sq[8];
  for (int i = 0; i < 8; i++)
    for (int q = 1; q < 4; q++) {
      const float v = (i + 0.25f * q) / 8.0f;
      const double want = i * i + 0.25 * q * (2 * i + 1);
      CHECK (fabsf (ci_tm_lut (sq, 8, v) - (float) want) < 1e-5f,
          "interpolated lookup at %g of 8: %g, want %g", v,
          ci_tm_lut (sq, 8, v), want);
    }

  /* four flat 2x2 quads of linear light node / 4096, per channel */
  static const int quad[4][3] = { {530, 3604, 184}, {3844, 356, 2527},
  {2211, 740, 2048}, {4084, 636, 1106}
  };
  const int w = 8, h = 2;
  TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, w, h, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint16_t *px = (uint16_t *) (in->plane[0] + (size_t) y * in->stride[0])
          + 4 * x;
      for (int c = 0; c < 3; c++)
        px[c] = (uint16_t) (16 * quad[x / 2][c]);
      px[3] = (uint16_t) (4369 * (x + w * y));  /* alpha 17 codes a pixel */
    }
  for (int fo = 0; fo < CI_TM_OUT_N; fo++) {
    TmFrame *out = tm_frame_new_out (fo, w, h, 0);
    tm_config_init (&cfg, CI_TM_IN_RGBA64, fo, w, h);
    cfg.op = CI_TM_OP_CLIP;
    cfg.transfer = CI_TM_TRC_LINEAR;
    cfg.primaries_bt2020 = 0;
    cfg.input_peak = cfg.target_peak = 1000.0f;
    cfg.smoothing = 0;
    CiTonemap *tm = ci_tonemap_new (&cfg);
    run (tm, in, out);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const int *n = quad[x / 2];
        double e[3], d[3];
        for (int c = 0; c < 3; c++) {
          e[c] = oetf709 (n[c] / 4096.0);
          d[c] = 255.0 * e[c];
        }
        if (fo <= CI_TM_OUT_BGRX) {
          const uint8_t *o = out->plane[0] + (size_t) y * out->stride[0] + 4 * x;
          const int bgr = fo == CI_TM_OUT_BGRA || fo == CI_TM_OUT_BGRX;
          const int a = fo == CI_TM_OUT_RGBA || fo == CI_TM_OUT_BGRA ?
              17 * (x + w * y) : 255;
          const double want[4] = { bgr ? d[2] : d[0], d[1], bgr ? d[0] : d[2],
            a
          };
          for (int c = 0; c < 4; c++)
            CHECK (fabs (o[c] - want[c]) < 0.501, "linear (%d, %d, %d)/4096 "
                "alpha %d/15 -> %s (%d, %d) byte %d: %d, want %.3f",
                n[0], n[1], n[2], x + w * y, tm_out_name (fo), x, y, c, o[c],
                want[c]);
          continue;
        }
        const double yl = 0.2126 * e[0] + 0.7152 * e[1] + 0.0722 * e[2];
        const double yc = 16 + 219 * yl, cb = 128 + 224 * (e[2] - yl) / 1.8556,
            cr = 128 + 224 * (e[0] - yl) / 1.5748;
        const int nv12 = fo == CI_TM_OUT_NV12;
        const int gy = out->plane[0][(size_t) y * out->stride[0] + x];
        const int gcb = nv12 ? out->plane[1][2 * (x / 2)] :
            out->plane[1][x / 2];
        const int gcr = nv12 ? out->plane[1][2 * (x / 2) + 1] :
            out->plane[2][x / 2];
        CHECK (fabs (gy - yc) < 0.501 && fabs (gcb - cb) < 0.501 &&
            fabs (gcr - cr) < 0.501, "linear (%d, %d, %d)/4096 -> %s (%d, "
            "%d): Y Cb Cr %d %d %d, want %.3f %.3f %.3f", n[0], n[1], n[2],
            tm_out_name (fo), x, y, gy, gcb, gcr, yc, cb, cr);
      }
    ci_tonemap_free (tm);
    tm_frame_free (out);
  }
  tm_frame_free (in);
  /* RGB10A2 / BGR10A2: alpha in bits 30-31, code / 3 */
  for (int fi = CI_TM_IN_RGB10A2; fi <= CI_TM_IN_BGR10A2; fi++) {
    TmFrame *in2 = tm_frame_new_in (fi, 4, 1, 0);
    TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, 4, 1, 0);
    for (int x = 0; x < 4; x++)
      ((uint32_t *) in2->plane[0])[x] = 512u | 512u << 10 | 512u << 20 |
          (uint32_t) x << 30;
    CiTonemap *tm = make (fi, CI_TM_OUT_RGBA, CI_TM_OP_HISTOGRAM, 4, 1, 0);
    run (tm, in2, out);
    for (int x = 0; x < 4; x++)
      CHECK (out->plane[0][4 * x + 3] == 85 * x, "%s alpha code %d: byte %d, "
          "want %d", tm_in_name (fi), x, out->plane[0][4 * x + 3], 85 * x);
    ci_tonemap_free (tm);
    tm_frame_free (in2);
    tm_frame_free (out);
  }
}

/* The temporal state by docs/tonemap.md §4, on 4 bins, each value worked
 * out by hand: fractions (h << 32) / N; the second frame averaged with
 * k = 2 and the third with k = 3 (s += (p - s) / k, truncating; smin and
 * smax the same in float); the binning range follows when the smoothed
 * range moves by more than 0.02 (bhi - blo) + 0.005, on either end alone;
 * a cut (D > threshold) sets every bin to 2^32 / bins; a frame equal to
 * the average (D = 0) is no cut even at threshold 0; a window of 0 is 1. */
static void
test_state_update (void)
{
  CiTmState st;
  const uint64_t one = 1ull << 32;
  uint32_t h1[4] = { 1, 1, 2, 0 }, h2[4] = { 0, 2, 2, 0 }, h3[4] = { 0, 0, 0,
    4
  };
  ci_tm_state_init (&st, 4);
  const uint64_t half = ci_tm_cut_threshold (0.5f);
  CHECK (half == one / 2, "threshold 0.5: %llu", (unsigned long long) half);
  ci_tm_state_update (&st, h1, 4, -1.0f, 2.0f, 8, half, 1);
  CHECK (st.s[0] == one / 4 && st.s[1] == one / 4 && st.s[2] == one / 2 &&
      st.s[3] == 0 && st.count == 1 && st.blo == -1.0f && st.bhi == 2.0f,
      "first frame: s %llu %llu %llu, count %d, range %g %g",
      (unsigned long long) st.s[0], (unsigned long long) st.s[1],
      (unsigned long long) st.s[2], st.count, st.blo, st.bhi);
  /* D = 2^30 < 2^31: k = 2; the range moves 0.25 > 0.065 */
  int cut = ci_tm_state_update (&st, h2, 4, -0.5f, 2.5f, 8, half, 0);
  CHECK (!cut && st.s[0] == one / 8 && st.s[1] == 3 * one / 8 &&
      st.s[2] == one / 2 && st.s[3] == 0 && st.count == 2 &&
      st.smin == -0.75f && st.smax == 2.25f && st.blo == -0.75f &&
      st.bhi == 2.25f, "second frame: cut %d, s %llu %llu %llu, count %d, "
      "smoothed %g %g, binning %g %g", cut, (unsigned long long) st.s[0],
      (unsigned long long) st.s[1], (unsigned long long) st.s[2], st.count,
      st.smin, st.smax, st.blo, st.bhi);
  /* k = 3: s[0] = 2^29 - trunc(2^29 / 3), s[1] = 3 2^29 + 2^29 / 3; only
   * the top moves (by 0.1 > 0.065) */
  cut = ci_tm_state_update (&st, h2, 4, -0.75f, 2.55f, 8, half, 0);
  CHECK (!cut && st.s[0] == 357913942u && st.s[1] == 1789569706u &&
      st.s[2] == one / 2 && st.count == 3 && st.smin == -0.75f &&
      fabsf (st.smax - 2.35f) < 1e-6f && st.blo == -0.75f &&
      st.bhi == st.smax, "third frame: cut %d, s %llu %llu, count %d, "
      "smoothed %g %.7g, binning %g %.7g", cut, (unsigned long long) st.s[0],
      (unsigned long long) st.s[1], st.count, st.smin, st.smax, st.blo,
      st.bhi);
  /* all in the top bin: D = 2^32, a cut */
  cut = ci_tm_state_update (&st, h3, 4, 3.0f, 3.5f, 8, half, 0);
  CHECK (cut && st.count == 0 && st.cuts == 1 && st.s[0] == one / 4 &&
      st.s[3] == one / 4 && st.blo == 3.0f && st.bhi == 3.5f, "cut: %d, "
      "count %d, s %llu %llu, range %g %g", cut, st.count,
      (unsigned long long) st.s[0], (unsigned long long) st.s[3], st.blo,
      st.bhi);
  /* threshold 0: the same frame again is no cut */
  ci_tm_state_update (&st, h1, 4, -1.0f, 2.0f, 8, 0, 1);
  cut = ci_tm_state_update (&st, h1, 4, -1.0f, 2.0f, 8, 0, 0);
  CHECK (!cut && st.cuts == 1 && st.count == 2, "an unchanged frame at "
      "threshold 0: cut %d", cut);
  /* window 0 averages as 1: s = p */
  cut = ci_tm_state_update (&st, h2, 4, -0.5f, 2.5f, 0, half, 0);
  CHECK (!cut && st.s[0] == 0 && st.s[1] == one / 2 && st.count == 1,
      "window 0: s %llu %llu, count %d", (unsigned long long) st.s[0],
      (unsigned long long) st.s[1], st.count);
  ci_tm_state_clear (&st);
}

int
main (void)
{
  test_threads ();
  test_eotf ();
  test_decode ();
  test_load_quad ();
  test_chroma_decode ();
  test_hlg_gamma ();
  test_scan ();
  test_stats (CI_TM_IN_P010, 1920, 1080);
  test_stats (CI_TM_IN_I420_10, 321, 179);
  test_stats (CI_TM_IN_RGBA64, 257, 131);
  test_stats (CI_TM_IN_BGR10A2, 100, 51);
  test_uniform_and_monotonic ();
  test_constant_and_one_bin ();
  test_dim_frames ();
  test_factor_domain ();
  test_cell_log ();
  test_bin_clamp ();
  test_bin_edges ();
  test_odd_edge_chroma ();
  test_flicker_and_cut ();
  test_blinking_sign ();
  test_formats_and_gamut ();
  test_clip_per_channel ();
  test_curves ();
  test_gamut_map ();
  test_output_encoding ();
  test_state_update ();
  if (failures)
    fprintf (stderr, "%d failure(s)\n", failures);
  else
    printf ("all tonemap reference tests passed\n");
  return failures ? 1 : 0;
}
