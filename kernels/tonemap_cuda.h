/* gst-cuda-imaging: HDR -> SDR tone mapping, CUDA launchers.
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * All launchers enqueue on the given stream and never synchronise; they
 * return a cudaError_t value (0 = ok).  Create/destroy/launch with the
 * element's CUDA context current.
 */
#pragma once

#include "cicuda.h"
#include "tonemap_math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CiTmCuda CiTmCuda;

/* Implementation choices (flags).  Statistics of a still frame (and of the
 * first video frame): fused kernels or CUB. */
typedef enum
{
  CI_TM_STATS_FUSED = 0,        /* own kernels: block-private shared histograms + one merge */
  CI_TM_STATS_CUB = 1,          /* log-luminance buffer + cub::DeviceReduce / DeviceHistogram */
  CI_TM_HW_OETF = 2,            /* BT.709 OETF from hardware log2/exp2 instead of the table */
  CI_TM_NO_VEC = 4              /* scalar loads/stores even for aligned frames (benchmark) */
} CiTmStatsImpl;

/* Per-stream run-time settings (mirror of the reference's CiTmConfig fields). */
typedef struct
{
  int op;
  float target_peak;
  float source_peak;            /* 0 = measured */
  int smoothing;
  uint64_t cut_thr;             /* ci_tm_cut_threshold () */
} CiTmCudaRuntime;

/* eotf/oetf: host tables from ci_tm_build_trc_luts (copied). */
int ci_tm_cuda_create (const CiTmParams * p, const float *eotf,
    const float *oetf, const CiTmCudaRuntime * rt, CiTmStatsImpl impl,
    ci_stream_t stream, CiTmCuda ** out);
void ci_tm_cuda_destroy (CiTmCuda * tm);
/* New operator/peaks/smoothing: rebuilds the map table from the state. */
int ci_tm_cuda_set_runtime (CiTmCuda * tm, const CiTmCudaRuntime * rt,
    ci_stream_t stream);
/* Forget the history: the next frame is handled as a still. */
void ci_tm_cuda_reset (CiTmCuda * tm);
int ci_tm_cuda_process (CiTmCuda * tm, const CiTmInPlanes * in,
    const CiTmOutPlanes * out, ci_stream_t stream);

/* Stages, for tests and benchmarks. Statistics land in the context's
 * buffers; read them with ci_tm_cuda_read_stats (async, into pinned or
 * pageable host memory: synchronise the stream before using them). */
int ci_tm_cuda_minmax (CiTmCuda * tm, const CiTmInPlanes * in,
    ci_stream_t stream);
int ci_tm_cuda_histogram (CiTmCuda * tm, const CiTmInPlanes * in,
    float lmin, float scale, ci_stream_t stream);
int ci_tm_cuda_read_stats (CiTmCuda * tm, float *mn, float *mx,
    uint32_t * hist, ci_stream_t stream);
/* State after the last frame: s[bins], map table (bins or CI_TM_CURVE_LUT+1
 * floats), smin/smax/count/cuts, map range. */
int ci_tm_cuda_read_state (CiTmCuda * tm, uint64_t * s, float *map_lut,
    float *smin_smax, int *count_cuts, CiTmMapRange * range,
    ci_stream_t stream);
/* The update kernel's block scan on n <= CI_TM_MAX_BINS device values. */
int ci_tm_cuda_block_scan_test (const uint64_t * d_in, uint64_t * d_out,
    int n, ci_stream_t stream);
/* ci_tm_fdiv_nrm against __fdiv_rn on n random pairs of its domain: the
 * number that differ in *bad. */
int ci_tm_cuda_fdiv_test (uint64_t n, uint32_t seed, uint64_t * bad);

#ifdef __cplusplus
}
#endif
