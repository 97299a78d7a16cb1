/* gst-cuda-imaging: tone-mapping test frames and the synthetic HDR10 scene.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "tonemap_math.h"
#include "tonemap.h"

/* A frame in host memory with padded, independent planes. */
typedef struct
{
  int fmt, out, w, h, nplanes;  /* out: 1 for CiTmOutFormat, 0 for CiTmInFormat */
  uint8_t *plane[3];
  int stride[3];
  size_t size[3];
} TmFrame;

/* pad >= 0: bytes added to each row (rounded to 4); pad < 0: rows aligned
 * to -pad bytes; TM_PAD_TIGHT: no padding at all (odd strides where a row's
 * bytes are odd, as a downstream pool may give). */
#define TM_PAD_TIGHT (1 << 30)
/* The defaults with these formats and frame size. */
void tm_config_init (CiTmConfig * cfg, int fi, int fo, int w, int h);

TmFrame *tm_frame_new_in (CiTmInFormat fmt, int w, int h, int pad);
TmFrame *tm_frame_new_out (CiTmOutFormat fmt, int w, int h, int pad);
void tm_frame_free (TmFrame * f);
void tm_frame_in_planes (const TmFrame * f, CiTmInPlanes * p);
void tm_frame_out_planes (TmFrame * f, CiTmOutPlanes * p);
/* Row bytes actually written by the element for plane i. */
int tm_frame_row_bytes (const TmFrame * f, int plane);
int tm_frame_rows (const TmFrame * f, int plane);
/* The largest byte difference between two frames of one format and size
 * (the rows' bytes, not their padding); *ndiff: how many bytes differ. */
int tm_frame_diff (const TmFrame * a, const TmFrame * b, long *ndiff);

/* Linear light (nits, BT.2020) of the synthetic scene at (x, y) of a w x h
 * frame: a dark interior (0.005..3 nits) lit by a window (sky ~1000-2500
 * nits), two lamps (up to 10000 nits with glow) and saturated BT.2020
 * objects; ~21 stops. variant 1 is a different (daylight) scene for cuts, variant 2
 * the interior faded to a 20 cd/m^2 peak. */
void tm_scene_nits (int variant, int x, int y, int w, int h, double *rgb);

/* Fill @f (an input frame) from linear nits (BT.2020) through the PQ inverse
 * EOTF; noise: relative sigma of per-pixel multiplicative noise (0 = none),
 * seeded by @seed (per frame). YUV: BT.2020 NCL, limited range. */
void tm_fill_scene (TmFrame * f, int variant, double noise, uint64_t seed);
/* Fill with a function of the pixel: nits of grey (BT.2020). */
void tm_fill_grey (TmFrame * f, double (*nits) (int x, int y, void *ud),
    void *ud, double noise, uint64_t seed);
/* The PQ signal (BT.2100 inverse EOTF, 0..1) of @nits. */
double tm_pq_signal (double nits);
/* Encode one pixel given non-linear R'G'B' in [0,1]; YUV formats take
 * chroma from even pixels. */
void tm_put_nonlinear (TmFrame * f, int x, int y, double r, double g, double b,
    double a);

/* Mean BT.709 luma (8-bit code values) of an output frame. */
double tm_mean_luma (const TmFrame * f);
/* Luma code of pixel (x, y) of an output frame. */
int tm_luma_at (const TmFrame * f, int x, int y);

const char *tm_in_name (int fmt);
const char *tm_out_name (int fmt);
const char *tm_op_name (int op);
