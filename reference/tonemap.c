/* gst-cuda-imaging: HDR -> SDR tone mapping, C reference.
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frame pipeline (same on the GPU, see kernels/tonemap.cu):
 *  - still mode (smoothing 0, or no history yet): min/max of L over the
 *    frame, histogram over that range, fresh state, map with it;
 *  - video mode: map with the table built from the previous frames while
 *    collecting this frame's min/max and histogram (binned over the range
 *    the table was built for), then fold them into the smoothed state.
 */
#include "tonemap.h"
#include "ciclones.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
ci_tm_config_defaults (CiTmConfig * cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->in_format = CI_TM_IN_P010;
  cfg->out_format = CI_TM_OUT_BGRX;
  cfg->transfer = CI_TM_TRC_PQ;
  cfg->matrix = CI_TM_MATRIX_BT2020;
  cfg->primaries_bt2020 = 1;
  cfg->op = CI_TM_OP_HISTOGRAM;
  cfg->bins = 1024;
  cfg->target_peak = 100.0f;
  cfg->input_peak = 1000.0f;
  cfg->smoothing = 8;
  cfg->scene_threshold = 0.3f;
}

void
ci_tm_params_init (const CiTmConfig * cfg, CiTmParams * p)
{
  double kr, kb, depth, maxc;
  memset (p, 0, sizeof *p);
  p->in_format = cfg->in_format;
  p->out_format = cfg->out_format;
  p->transfer = cfg->transfer;
  p->op = cfg->op;
  p->width = cfg->width;
  p->height = cfg->height;
  p->bins = cfg->bins;
  p->target_peak = cfg->target_peak;

  switch (cfg->matrix) {
    case CI_TM_MATRIX_BT709:
      kr = 0.2126;
      kb = 0.0722;
      break;
    case CI_TM_MATRIX_BT601:
      kr = 0.299;
      kb = 0.114;
      break;
    default:
      kr = 0.2627;
      kb = 0.0593;
      break;
  }
  p->cr_r = (float) (2.0 * (1.0 - kr));
  p->cb_b = (float) (2.0 * (1.0 - kb));
  p->cb_g = (float) (-2.0 * kb * (1.0 - kb) / (1.0 - kr - kb));
  p->cr_g = (float) (-2.0 * kr * (1.0 - kr) / (1.0 - kr - kb));

  depth = (cfg->in_format == CI_TM_IN_P010
      || cfg->in_format == CI_TM_IN_I420_10) ? 10.0 : 16.0;
  maxc = pow (2.0, depth) - 1.0;
  if (cfg->full_range) {
    p->y_scale = (float) (1.0 / maxc);
    p->y_off = 0.0f;
    p->c_scale = (float) (1.0 / maxc);
    p->c_off = (float) (-pow (2.0, depth - 1.0) / maxc);
  } else {
    double u = pow (2.0, depth - 8.0);
    p->y_scale = (float) (1.0 / (219.0 * u));
    p->y_off = (float) (-16.0 / 219.0);
    p->c_scale = (float) (1.0 / (224.0 * u));
    p->c_off = (float) (-128.0 / 224.0);
  }

  p->convert_primaries = cfg->primaries_bt2020;
  if (cfg->primaries_bt2020) {
    p->lum[0] = 0.2627f;
    p->lum[1] = 0.6780f;
    p->lum[2] = 0.0593f;
  } else {
    p->lum[0] = 0.2126f;
    p->lum[1] = 0.7152f;
    p->lum[2] = 0.0722f;
  }
  p->hlg_peak = cfg->input_peak;
  /* BT.2100 note 5f: gamma = 1.2 + 0.42 log10(Lw / 1000) */
  p->hlg_gamma_m1 = (float) (0.2 + 0.42 * log10 (cfg->input_peak / 1000.0));
}

void
ci_tm_build_trc_luts (const CiTmConfig * cfg, float *eotf, float *oetf)
{
  for (int i = 0; i < CI_TM_TRC_N; i++) {
    double v = (double) (i < CI_TM_TRC_LUT ? i : CI_TM_TRC_LUT) / CI_TM_TRC_LUT,
        e;
    switch (cfg->transfer) {
      case CI_TM_TRC_PQ:
        e = ci_tm_pq_eotf (v);
        break;
      case CI_TM_TRC_HLG:
        e = ci_tm_hlg_inv_oetf (v);     /* OOTF applied per pixel */
        break;
      case CI_TM_TRC_SRGB:
        e = ci_tm_srgb_eotf (v) * cfg->input_peak;
        break;
      default:
        e = v * cfg->input_peak;
        break;
    }
    eotf[i] = (float) e;
    oetf[i] = (float) ci_tm_bt709_oetf (v);
  }
  /* log2 of the mantissa 1 + j/256 */
  for (int j = 0; j < CI_TM_LOG_LUT + 2; j++)
    eotf[CI_TM_LOG_OFF + j] = (float) log2 (1.0 + (double) (j <= CI_TM_LOG_LUT
            ? j : CI_TM_LOG_LUT) / CI_TM_LOG_LUT);
}

void
ci_tm_build_oetf8 (const float *oetf, uint8_t * oetf8)
{
  for (int i = 0; i < CI_TM_OETF8_N; i++)
    oetf8[i] = ci_tm_oetf8_entry (oetf, i);
}

uint64_t
ci_tm_cut_threshold (float l1)
{
  return (uint64_t) ((double) l1 * (double) CI_TM_ONE);
}

void
ci_tm_state_init (CiTmState * st, int bins)
{
  st->bins = bins;
  /* ci_tm_build_map scans into CI_TM_MAX_BINS entries */
  st->s = bins >= 1 && bins <= CI_TM_MAX_BINS ?
      calloc ((size_t) bins, sizeof (uint64_t)) : NULL;
  st->smin = st->smax = st->blo = st->bhi = 0.0f;
  st->count = 0;
  st->cuts = 0;
}

void
ci_tm_state_clear (CiTmState * st)
{
  free (st->s);
  st->s = NULL;
}

int
ci_tm_state_update (CiTmState * st, const uint32_t * hist, uint32_t total,
    float fmin, float fmax, int window, uint64_t cut_thr, int fresh)
{
  int bins = st->bins, cut = 0;
  if (window < 1)
    window = 1;
  if (fresh || st->count == 0) {
    for (int b = 0; b < bins; b++)
      st->s[b] = ci_tm_frac (hist[b], total);
    st->smin = st->blo = fmin;
    st->smax = st->bhi = fmax;
    st->count = 1;
    return 0;
  }
  /* Kolmogorov-Smirnov distance between this frame and the average: fine
   * bins make L1 distances noisy, cumulative ones are not */
  uint64_t d = 0, cp = 0, cs = 0;
  for (int b = 0; b < bins; b++) {
    cp += ci_tm_frac (hist[b], total);
    cs += st->s[b];
    uint64_t e = cp > cs ? cp - cs : cs - cp;
    d = e > d ? e : d;
  }
  if (d > cut_thr) {
    /* New scene: this frame was binned over the old range, so it only
     * gives the range; the next frame restarts the average. */
    for (int b = 0; b < bins; b++)
      st->s[b] = CI_TM_ONE / (uint64_t) bins;
    st->smin = st->blo = fmin;
    st->smax = st->bhi = fmax;
    st->count = 0;
    st->cuts++;
    return 1;
  }
  int k = st->count + 1 < window ? st->count + 1 : window;
  for (int b = 0; b < bins; b++)
    st->s[b] = ci_tm_ema_u64 (st->s[b], ci_tm_frac (hist[b], total), k);
  st->smin = ci_tm_ema_f (st->smin, fmin, k);
  st->smax = ci_tm_ema_f (st->smax, fmax, k);
  ci_tm_bin_range (st->smin, st->smax, &st->blo, &st->bhi);
  st->count = k;
  return cut;
}

void
ci_tm_ref_exclusive_scan (const uint64_t * in, uint64_t * out, int n)
{
  uint64_t acc = 0;
  for (int i = 0; i < n; i++) {
    out[i] = acc;
    acc += in[i];
  }
}

void
ci_tm_build_map (const CiTmState * st, const CiTmConfig * cfg,
    float *map_lut, CiTmMapRange * range)
{
  range->lmin = st->blo;
  range->scale = ci_tm_range_scale (st->blo, st->bhi, st->bins);
  const float measured = ci_tm_measured_peak (st->smax);
  range->src_peak = cfg->source_peak > 0.0f ? cfg->source_peak : measured;
  if (range->src_peak < 1e-3f)
    range->src_peak = 1e-3f;
  range->valid = 1;
  if (cfg->op == CI_TM_OP_HISTOGRAM) {
    int bins = st->bins, nonzero = 0;
    uint64_t cdf[CI_TM_MAX_BINS];       /* bounded by ci_tm_state_init */
    const float anchor = ci_tm_hist_anchor (measured, cfg->target_peak);
    ci_tm_ref_exclusive_scan (st->s, cdf, bins);
    for (int b = 0; b < bins; b++)
      nonzero += st->s[b] != 0;
    for (int b = 0; b < bins; b++)
      map_lut[b] = ci_tm_hist_target (cdf[b], cdf[bins - 1], nonzero <= 1,
          anchor);
  } else {
    for (int j = 0; j < CI_TM_CURVE_N; j++)
      map_lut[j] = ci_tm_curve_entry (cfg->op, j, range->src_peak,
          cfg->target_peak);
  }
}

static void minmax_rows (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, int y0, int y1, float *mn, float *mx);
static void histogram_rows (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, float lmin, float scale, int y0, int y1,
    uint32_t * hist);

void
ci_tm_ref_minmax (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, float *mn, float *mx)
{
  minmax_rows (p, eotf, in, 0, p->height, mn, mx);
}

/* rows [y0, y1) of ci_tm_ref_minmax */
static void
minmax_rows (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, int y0, int y1, float *mn, float *mx)
{
  float lo = INFINITY, hi = -INFINITY;
  for (int y = y0; y < y1; y++)
    for (int x = 0; x < p->width; x++) {
      float r, g, b, a, rgb[3];
      ci_tm_decode (p, in, x, y, &r, &g, &b, &a);
      float l = ci_tm_logl (ci_tm_linearize (p, eotf, r, g, b, rgb), eotf);
      lo = l < lo ? l : lo;
      hi = l > hi ? l : hi;
    }
  *mn = lo;
  *mx = hi;
}

void
ci_tm_ref_histogram (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, float lmin, float scale, uint32_t * hist)
{
  histogram_rows (p, eotf, in, lmin, scale, 0, p->height, hist);
}

/* rows [y0, y1) of ci_tm_ref_histogram */
static void
histogram_rows (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, float lmin, float scale, int y0, int y1,
    uint32_t * hist)
{
  memset (hist, 0, (size_t) p->bins * sizeof (uint32_t));
  for (int y = y0; y < y1; y++)
    for (int x = 0; x < p->width; x++) {
      float r, g, b, a, rgb[3];
      ci_tm_decode (p, in, x, y, &r, &g, &b, &a);
      float l = ci_tm_logl (ci_tm_linearize (p, eotf, r, g, b, rgb), eotf);
      hist[ci_tm_bin (l, lmin, scale, p->bins)]++;
    }
}

struct CiTonemap
{
  CiTmConfig cfg;
  CiTmParams p;
  float eotf[CI_TM_EOTF_N], oetf[CI_TM_TRC_N];
  uint8_t oetf8[CI_TM_OETF8_N];
  CiTmState st;
  float *map_lut;
  CiTmMapRange range;
  uint32_t *hist;
  /* the row loops: one slice on the caller's thread, or tm->run's slices
   * (at most max_slices), each with its own histogram and range, added or
   * compared in slice order afterwards */
  CiRunner run;
  void *run_data;
  unsigned max_slices;
  uint32_t *slice_hist;         /* max_slices x bins */
  float *slice_lo, *slice_hi;
};

CiTonemap *
ci_tonemap_new (const CiTmConfig * cfg)
{
  CiTonemap *tm = calloc (1, sizeof *tm);
  if (!tm)
    return NULL;
  tm->p.bins = cfg->bins;        /* for the slices' histograms */
  ci_tm_state_init (&tm->st, cfg->bins);
  if (tm->st.s) {
    tm->map_lut = calloc ((size_t) (cfg->bins > CI_TM_CURVE_N ?
            cfg->bins : CI_TM_CURVE_N), sizeof (float));
    tm->hist = calloc ((size_t) cfg->bins, sizeof (uint32_t));
  }
  if (!tm->st.s || !tm->map_lut || !tm->hist
      || ci_tonemap_set_runner (tm, NULL, NULL, 1) != 0) {
    ci_tonemap_free (tm);
    return NULL;
  }
  tm->cfg = *cfg;
  ci_tm_params_init (cfg, &tm->p);
  ci_tm_build_trc_luts (cfg, tm->eotf, tm->oetf);
  ci_tm_build_oetf8 (tm->oetf, tm->oetf8);
  return tm;
}

void
ci_tonemap_free (CiTonemap * tm)
{
  if (!tm)
    return;
  ci_tm_state_clear (&tm->st);
  free (tm->map_lut);
  free (tm->hist);
  free (tm->slice_hist);
  free (tm->slice_lo);
  free (tm->slice_hi);
  free (tm);
}

int
ci_tonemap_set_runner (CiTonemap * tm, CiRunner run, void *data,
    unsigned max_slices)
{
  if (max_slices < 1)
    max_slices = 1;
  if (!run)
    max_slices = 1;
  if (max_slices != tm->max_slices) {
    uint32_t *h = calloc ((size_t) max_slices * (size_t) tm->p.bins,
        sizeof (uint32_t));
    float *lo = calloc (max_slices, sizeof (float));
    float *hi = calloc (max_slices, sizeof (float));
    if (!h || !lo || !hi) {
      free (h);
      free (lo);
      free (hi);
      return -1;
    }
    free (tm->slice_hist);
    free (tm->slice_lo);
    free (tm->slice_hi);
    tm->slice_hist = h;
    tm->slice_lo = lo;
    tm->slice_hi = hi;
    tm->max_slices = max_slices;
  }
  tm->run = run;
  tm->run_data = data;
  return 0;
}

const CiTmConfig *
ci_tonemap_get_config (const CiTonemap * tm)
{
  return &tm->cfg;
}

const CiTmState *
ci_tonemap_get_state (const CiTonemap * tm)
{
  return &tm->st;
}

void
ci_tonemap_set_runtime (CiTonemap * tm, const CiTmConfig * cfg)
{
  tm->cfg.op = cfg->op;
  tm->cfg.target_peak = cfg->target_peak;
  tm->cfg.source_peak = cfg->source_peak;
  tm->cfg.smoothing = cfg->smoothing;
  tm->cfg.scene_threshold = cfg->scene_threshold;
  tm->p.op = cfg->op;
  tm->p.target_peak = cfg->target_peak;
  /* the table must be rebuilt for the new operator before it is used */
  if (tm->range.valid)
    ci_tm_build_map (&tm->st, &tm->cfg, tm->map_lut, &tm->range);
}

void
ci_tonemap_reset (CiTonemap * tm)
{
  tm->st.count = 0;
  tm->range.valid = 0;
}

enum { PASS_MINMAX, PASS_HISTOGRAM, PASS_MAP };

typedef struct
{
  CiTonemap *tm;
  const CiTmInPlanes *in;
  const CiTmOutPlanes *out;
  int pass;
  float lmin, scale;            /* PASS_HISTOGRAM */
} Slices;

/* one slice of a pass: rows [y0, y1), y0 even (with the FMA instruction
 * where the CPU has it, ciclones.h) */
CI_FMA_CLONES static void
slice_rows (void *user, unsigned slice, int y0, int y1)
{
  const Slices *j = user;
  CiTonemap *tm = j->tm;
  const CiTmParams *p = &tm->p;
  const int w = p->width, h = p->height, bins = p->bins;
  uint32_t *hist = tm->slice_hist + (size_t) slice * (size_t) bins;
  float *lo = tm->slice_lo + slice, *hi = tm->slice_hi + slice;

  if (j->pass == PASS_MINMAX) {
    minmax_rows (p, tm->eotf, j->in, y0, y1, lo, hi);
    return;
  }
  if (j->pass == PASS_HISTOGRAM) {
    histogram_rows (p, tm->eotf, j->in, j->lmin, j->scale, y0, y1, hist);
    return;
  }
  /* map (and, in video mode, collect this frame's statistics) */
  memset (hist, 0, (size_t) bins * sizeof (uint32_t));
  float fmin = INFINITY, fmax = -INFINITY;
  for (int y = y0; y < y1; y += 2)
    for (int x = 0; x < w; x += 2) {
      float rgb[4][3], ylum[4], l[4], a[4];
      int bin[4];
      ci_tm_load_quad (p, tm->eotf, j->in, x, y, rgb, ylum, l, a);
      for (int i = 0; i < 4; i++) {
        bin[i] = ci_tm_bin (l[i], tm->range.lmin, tm->range.scale, bins);
        if (x + (i & 1) < w && y + (i >> 1) < h) {
          hist[bin[i]]++;
          fmin = l[i] < fmin ? l[i] : fmin;
          fmax = l[i] > fmax ? l[i] : fmax;
        }
      }
      ci_tm_map_quad (p, tm->eotf, tm->oetf, tm->oetf8, tm->map_lut, j->out,
          x, y, rgb, ylum, bin, a);
    }
  *lo = fmin;
  *hi = fmax;
}

/* Runs a pass over the frame's rows in slices, then puts their results
 * together in slice order: the histogram's sum, and the range as one scan
 * in row order would find it (ties keep the earlier value). */
static void
run_pass (CiTonemap * tm, Slices * j, float *mn, float *mx)
{
  const int h = tm->p.height, bins = tm->p.bins;
  const unsigned n = ci_run_slices (tm->run, tm->run_data, tm->max_slices,
      h, 2, slice_rows, j);
  if (j->pass == PASS_MINMAX || j->pass == PASS_MAP) {
    float lo = INFINITY, hi = -INFINITY;
    for (unsigned s = 0; s < n; s++) {
      lo = tm->slice_lo[s] < lo ? tm->slice_lo[s] : lo;
      hi = tm->slice_hi[s] > hi ? tm->slice_hi[s] : hi;
    }
    *mn = lo;
    *mx = hi;
  }
  if (j->pass == PASS_HISTOGRAM || j->pass == PASS_MAP) {
    memcpy (tm->hist, tm->slice_hist, (size_t) bins * sizeof (uint32_t));
    for (unsigned s = 1; s < n; s++)
      for (int b = 0; b < bins; b++)
        tm->hist[b] += tm->slice_hist[(size_t) s * (size_t) bins + b];
  }
}

void
ci_tonemap_process (CiTonemap * tm, const CiTmInPlanes * in,
    const CiTmOutPlanes * out)
{
  const CiTmParams *p = &tm->p;
  int w = p->width, h = p->height, bins = p->bins;
  uint32_t total = (uint32_t) w * (uint32_t) h;
  int still = tm->cfg.smoothing == 0 || !tm->range.valid;
  uint64_t thr = ci_tm_cut_threshold (tm->cfg.scene_threshold);
  float fmin, fmax;
  Slices j = { tm, in, out, PASS_MINMAX, 0.0f, 0.0f };

  if (still) {
    run_pass (tm, &j, &fmin, &fmax);
    j.pass = PASS_HISTOGRAM;
    j.lmin = fmin;
    j.scale = ci_tm_range_scale (fmin, fmax, bins);
    run_pass (tm, &j, NULL, NULL);
    ci_tm_state_update (&tm->st, tm->hist, total, fmin, fmax,
        tm->cfg.smoothing, thr, 1);
    ci_tm_build_map (&tm->st, &tm->cfg, tm->map_lut, &tm->range);
  }

  j.pass = PASS_MAP;
  run_pass (tm, &j, &fmin, &fmax);

  if (!still) {
    ci_tm_state_update (&tm->st, tm->hist, total, fmin, fmax,
        tm->cfg.smoothing, thr, 0);
    ci_tm_build_map (&tm->st, &tm->cfg, tm->map_lut, &tm->range);
  }
}
