/* gst-cuda-imaging: Semi-Global Matching, CUDA launchers.
 *
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Same stages, layouts and integer maths as reference/sgm.h (bit-exact).
 * All pointers are device pointers; every launcher enqueues on @stream and
 * returns a cudaError_t value (0 = ok).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "cicuda.h"
#include "sgm_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- stages (tests and the pipeline use the same launchers) ---- */

/* census of the left and right views into out_left and out_right (width *
 * height uint64 each, dense rows), in one launch; right NULL: the left
 * view only. */
int sgm_cuda_census (const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma, int width,
    int height, int census, uint64_t * out_left, uint64_t * out_right,
    ci_stream_t stream);
/* cost volume: cost[(y*W + x)*Ds + d], Ds = sgm_sum_stride (D); the
 * entries d in [D, Ds) are 0. */
int sgm_cuda_cost_volume (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost, ci_stream_t stream);
/* The two kernels sgm_cuda_cost_volume chooses from (by D; before sm_80
 * always the first): popcounts, and the tensor cores (sm_80+; otherwise
 * cudaErrorNotSupported). Each does every D; the tests compare both. */
int sgm_cuda_cost_volume_popc (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost, ci_stream_t stream);
int sgm_cuda_cost_volume_mma (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost, ci_stream_t stream);
/* Path @dir from the cost volume: acc = L_dir or acc += L_dir (uint16,
 * (y*W + x)*Ds + d; the entries d in [D, Ds) are kept 0). */
int sgm_cuda_aggregate_path (const uint8_t * cost, const SgmParams * p,
    int dir, uint16_t * acc, int accumulate, ci_stream_t stream);
/* The same from the census words, costs computed on the fly (the first
 * design: no cost volume, one disparity per register; kept as a second,
 * independently written implementation that the tests check too). */
int sgm_cuda_aggregate_path_census (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, int dir, uint16_t * acc, int accumulate,
    ci_stream_t stream);
/* The pipeline's faster form, when every path cost fits a byte
 * (sgm_cuda_u8_ok: census bits + max (p1, p2) <= 255).
 * Path @dir alone as uint8 L_dir (layout of the cost volume; entries d in
 * [D, Ds) are 0).  @cost may hold a cost volume (cost[(y*W + x)*Ds + d]). */
int sgm_cuda_u8_ok (const SgmParams * p);
int sgm_cuda_aggregate_path_u8 (const uint8_t * cost, const SgmParams * p,
    int dir, uint8_t * out, ci_stream_t stream);
/* The last pass: path 0 (left to right) from volume 0 (costs) of @vols,
 * plus volumes 1..@nvol (uint8 paths, @vstride bytes apart), then the WTA
 * of sgm_cuda_wta on the sum (disp, dint; right_key when not NULL, every
 * entry written, no 0xffffffff fill needed).  sgm_cuda_final_fits says
 * whether its shared memory (it holds a row of right keys) fits. */
int sgm_cuda_final_fits (const SgmParams * p, int nvol);
int sgm_cuda_aggregate_final (const uint8_t * vols, int nvol, size_t vstride,
    const SgmParams * p, int16_t * disp, int16_t * dint,
    uint32_t * right_key, ci_stream_t stream);
/* @sum has the layout of sgm_cuda_aggregate_path.
 * Left WTA (disp, dint as the reference) and, when right_key is not NULL,
 * the right-view minimum as packed keys (cost << 11 | d, 0xffffffff = none;
 * right_key must hold 0xffffffff on entry). */
int sgm_cuda_wta (const uint16_t * sum, const SgmParams * p, int16_t * disp,
    int16_t * dint, uint32_t * right_key, ci_stream_t stream);
/* The same on sum + sum2 (two volumes holding disjoint sets of paths;
 * sum2 may be NULL). */
int sgm_cuda_wta2 (const uint16_t * sum, const uint16_t * sum2,
    const SgmParams * p, int16_t * disp, int16_t * dint,
    uint32_t * right_key, ci_stream_t stream);
/* The same on the sum of @nvol (4 or 8, a path count) uint8 path
 * volumes (the layout of sgm_cuda_aggregate_path_u8, @vstride bytes
 * apart). */
int sgm_cuda_wta_u8 (const uint8_t * vols, int nvol, size_t vstride,
    const SgmParams * p, int16_t * disp, int16_t * dint,
    uint32_t * right_key, ci_stream_t stream);
/* The sweeps (D = 129..512, 8 paths, every path value a byte): the three
 * directions with dy = +1 (2, 4, 5) summed into @out (uint16, the layout
 * of sgm_cuda_aggregate_path), the three with dy = -1 (3, 6, 7) into
 * @out + @ostride, in one cooperative launch. @ring: scratch of
 * sgm_cuda_sweeps_ring_bytes. sgm_cuda_sweeps_ok: whether it applies and
 * its grid fits the current device at once. */
int sgm_cuda_sweeps_ok (const SgmParams * p);
size_t sgm_cuda_sweeps_ring_bytes (const SgmParams * p);
int sgm_cuda_aggregate_sweeps (const uint8_t * cost, const SgmParams * p,
    uint16_t * out, size_t ostride, void *ring, ci_stream_t stream);
/* The WTA of sgm_cuda_wta_u8 on 2 uint8 volumes (the horizontal paths,
 * @vstride bytes apart) plus the 2 sums of sgm_cuda_aggregate_sweeps. */
int sgm_cuda_wta_sweeps (const uint8_t * vols, size_t vstride,
    const uint16_t * sums, size_t sstride, const SgmParams * p,
    int16_t * disp, int16_t * dint, uint32_t * right_key, ci_stream_t stream);
/* dright[i] = right_key[i] & 2047, or -1 (tests only). */
int sgm_cuda_right_from_keys (const uint32_t * right_key, int n,
    int16_t * dright, ci_stream_t stream);
/* In place on disp (dense rows). */
int sgm_cuda_lr_check (int16_t * disp, const int16_t * dint,
    const uint32_t * right_key, const SgmParams * p, ci_stream_t stream);
/* 3x3 median; in dense rows, out rows @out_pitch bytes apart. */
int sgm_cuda_median (const int16_t * in, int16_t * out, size_t out_pitch,
    int width, int height, ci_stream_t stream);
/* LR check of disp (dense, not modified) then 3x3 median into out, in one
 * pass: the same values as sgm_cuda_lr_check + sgm_cuda_median. */
int sgm_cuda_lr_median (const int16_t * disp, const int16_t * dint,
    const uint32_t * right_key, const SgmParams * p, int16_t * out,
    size_t out_pitch, ci_stream_t stream);

/* ---- whole pipeline with its scratch memory ---- */
typedef struct SgmCuda SgmCuda;

/* Nothing is allocated until the first compute (or sgm_cuda_reserve). */
int sgm_cuda_create (SgmCuda ** out);
void sgm_cuda_destroy (SgmCuda * s);
/* Grow the scratch for these parameters (synchronous allocation). */
int sgm_cuda_reserve (SgmCuda * s, const SgmParams * p);
/* Device bytes held now. */
size_t sgm_cuda_bytes (const SgmCuda * s);
/* The scratch layout the last reserve or compute took (0: u8 + WTA, 1: u8,
 * 2: split, 3: compact, 4: sweeps; see kernels/sgm.cu), -1 before any; for
 * tests. */
int sgm_cuda_layout (const SgmCuda * s);
/* Bytes the pipeline needs for @p (without the caller's images). */
size_t sgm_cuda_bytes_needed (const SgmParams * p);

/* disp: int16 1/16-pixel disparities, rows @disp_pitch bytes apart. */
int sgm_cuda_compute (SgmCuda * s, const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma,
    int16_t * disp, size_t disp_pitch, ci_stream_t stream);


/* sgm_cuda_compute into the context's own buffer, then sgm_cuda_convert
 * into @out (rows @out_pitch bytes apart). */
int sgm_cuda_compute_output (SgmCuda * s, const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma,
    uint8_t * out, size_t out_pitch, SgmOutFormat fmt, ci_stream_t stream);

int sgm_cuda_convert (const int16_t * disp, size_t disp_pitch,
    uint8_t * out, size_t out_pitch, SgmOutFormat fmt, const SgmParams * p,
    ci_stream_t stream);

#ifdef __cplusplus
}
#endif
