/* gst-cuda-imaging: Semi-Global Matching, C reference.
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
 * Stages (each exposed so tests can compare them one by one):
 *   census -> cost volume (uint8, W*H*D) -> per-path aggregation summed
 *   into S (uint16, W*H*D, index (y*W + x)*D + d)
 *   -> WTA with uniqueness and subpixel (left) + plain WTA (right, from the
 *   same S) -> left-right check -> 3x3 median.
 * Conventions are in kernels/sgm_math.h.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "sgm_math.h"

#include "cislices.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defaults used by both elements and the tests. */
void sgm_params_init (SgmParams * p, int width, int height);
/* Validity: sgm_params_valid () of sgm_math.h (0 when valid, else -1). */

/* census of one view: out[y * width + x] */
void sgm_ref_census (const uint8_t * img, size_t stride, SgmLuma luma,
    int width, int height, int census, uint64_t * out);

/* cost volume (tests only): cost[(y*W + x)*D + d] */
void sgm_ref_cost_volume (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint8_t * cost);

/* Path @dir (0..7, see sgm_dir_dx/dy): acc = L_dir (accumulate = 0) or
 * acc += L_dir (accumulate = 1).  Returns -1 on allocation failure. */
int sgm_ref_aggregate_path (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, int dir, uint16_t * acc, int accumulate);

/* S = sum over p->paths directions. */
int sgm_ref_aggregate (const uint64_t * cl, const uint64_t * cr,
    const SgmParams * p, uint16_t * sum);

/* Left WTA + uniqueness + subpixel: disp (1/16 px, SGM_INVALID) and the
 * integer winner index dint (0..D-1, kept even when disp is invalid). */
void sgm_ref_wta_left (const uint16_t * sum, const SgmParams * p,
    int16_t * disp, int16_t * dint);
/* Right view: dright[xr] = argmin_d S(xr + min + d, d) over d whose left
 * pixel exists, smallest d on ties; -1 when none exists. */
void sgm_ref_wta_right (const uint16_t * sum, const SgmParams * p,
    int16_t * dright);
/* In place on disp (no-op when p->lr_max_diff < 0). */
void sgm_ref_lr_check (int16_t * disp, const int16_t * dint,
    const int16_t * dright, const SgmParams * p);
/* 3x3 median, edges replicated; out may not alias in. */
void sgm_ref_median (const int16_t * in, int16_t * out, int width, int height);

/* disp (dense rows) to the output format, rows @pitch bytes apart. */
void sgm_ref_convert (const int16_t * disp, int width, int height,
    uint8_t * out, size_t pitch, SgmOutFormat fmt, const SgmParams * p);

/* Whole pipeline; disp is width*height (rows dense).  Returns 0 or -1. */
int sgm_ref_compute (const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma, int16_t * disp);

/* sgm_ref_compute with its stages in slices through @run (NULL: on the
 * caller's thread; the items are views, sweeps or rows): the census of the two views, the costs and the WTA,
 * LR check and median by rows, the two sweeps at once into one sum (each
 * row set by the first, added to by the second). The output is the same
 * for any slicing. */
int sgm_ref_compute_mt (const SgmParams * p,
    const uint8_t * left, size_t left_stride,
    const uint8_t * right, size_t right_stride, SgmLuma luma, int16_t * disp,
    CiRunner run, void *data, unsigned max_slices);

#ifdef __cplusplus
}
#endif
