/* gst-cuda-imaging: HDR -> SDR tone mapping, C reference.
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>
#include "tonemap_math.h"
#include "cislices.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum
{
  CI_TM_MATRIX_BT2020 = 0,
  CI_TM_MATRIX_BT709,
  CI_TM_MATRIX_BT601
} CiTmMatrix;

/* Everything that defines the mapping of a stream. */
typedef struct
{
  CiTmInFormat in_format;
  CiTmOutFormat out_format;
  int width, height;
  CiTmTransfer transfer;
  CiTmMatrix matrix;            /* YUV inputs only */
  int full_range;               /* YUV inputs only */
  int primaries_bt2020;         /* else BT.709 */
  CiTmOperator op;
  int bins;
  float target_peak;            /* nits of SDR white */
  float source_peak;            /* nits; 0 = measured (smoothed max) */
  float input_peak;             /* nits of code 1.0 for linear/srgb, HLG Lw */
  int smoothing;                /* frames; 0 = per frame, current frame's stats */
  float scene_threshold;        /* KS distance of the histograms (0..1) that is a cut */
} CiTmConfig;

void ci_tm_config_defaults (CiTmConfig * cfg);
void ci_tm_params_init (const CiTmConfig * cfg, CiTmParams * p);
/* eotf[CI_TM_EOTF_N]: code [0,1] -> nits (HLG: scene light), then the log2
 * mantissa table; oetf[CI_TM_TRC_N]: BT.709 OETF */
void ci_tm_build_trc_luts (const CiTmConfig * cfg, float *eotf, float *oetf);
/* oetf8[CI_TM_OETF8_N]: the BT.709 OETF straight to 8-bit codes (RGB
 * outputs), from the float table: oetf8[i] = rne(255 oetf[i]). */
void ci_tm_build_oetf8 (const float *oetf, uint8_t * oetf8);
/* Scene-cut threshold in the fixed-point units of the smoothed histogram. */
uint64_t ci_tm_cut_threshold (float l1);

/* Temporal state (mirrored on the GPU). */
typedef struct
{
  int bins;
  uint64_t *s;                  /* smoothed histogram, fractions of CI_TM_ONE */
  float smin, smax;             /* smoothed log10 range */
  float blo, bhi;               /* binning range (smoothed range with hysteresis) */
  int count;                    /* frames in the running average (0: none) */
  int cuts;                     /* scene cuts detected so far */
} CiTmState;

/* s is NULL for bins outside 1..CI_TM_MAX_BINS or when out of memory */
void ci_tm_state_init (CiTmState * st, int bins);
void ci_tm_state_clear (CiTmState * st);
/* One frame's statistics into the state; returns 1 when a cut was detected.
 * fresh: discard history (still mode / first frame). */
int ci_tm_state_update (CiTmState * st, const uint32_t * hist, uint32_t total,
    float fmin, float fmax, int window, uint64_t cut_thr, int fresh);
/* The map stage's table (bins entries for histogram, CI_TM_CURVE_N for
 * curves) and range from the state. */
void ci_tm_build_map (const CiTmState * st, const CiTmConfig * cfg,
    float *map_lut, CiTmMapRange * range);

/* Stages on whole frames (tests compare each with naive loops / CUDA). */
void ci_tm_ref_minmax (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, float *mn, float *mx);
void ci_tm_ref_histogram (const CiTmParams * p, const float *eotf,
    const CiTmInPlanes * in, float lmin, float scale, uint32_t * hist);
void ci_tm_ref_exclusive_scan (const uint64_t * in, uint64_t * out, int n);

/* The whole pipeline with its state; ci_tonemap_new gives NULL for bins
 * outside 1..CI_TM_MAX_BINS or when out of memory. */
typedef struct CiTonemap CiTonemap;
CiTonemap *ci_tonemap_new (const CiTmConfig * cfg);
void ci_tonemap_free (CiTonemap * tm);

/* ci_tonemap_process's row loops through @run (NULL: on the caller's
 * thread, one slice). The output is the same for any slicing. Returns -1
 * out of memory (nothing changed), else 0. */
int ci_tonemap_set_runner (CiTonemap * tm, CiRunner run, void *data,
    unsigned max_slices);
const CiTmConfig *ci_tonemap_get_config (const CiTonemap * tm);
/* Run-time changes (operator, peaks, smoothing, threshold); bins/format
 * changes need a new context. */
void ci_tonemap_set_runtime (CiTonemap * tm, const CiTmConfig * cfg);
void ci_tonemap_reset (CiTonemap * tm);
void ci_tonemap_process (CiTonemap * tm, const CiTmInPlanes * in,
    const CiTmOutPlanes * out);
/* Introspection for tests: state after the last frame. */
const CiTmState *ci_tonemap_get_state (const CiTonemap * tm);

#ifdef __cplusplus
}
#endif
