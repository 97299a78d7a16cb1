/* Convolution bloom: the data the cuFFT LTO callbacks (kernels/fftbloom_cb.cu)
 * read, shared with the host side (kernels/fftbloom.cu).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What changes every frame (pointers, format, parameters). */
typedef struct
{
  const unsigned char *in;
  unsigned char *out;
  unsigned long long in_pitch, out_pitch;
  float intensity, threshold, knee;
  int bytes, srgb;
  int off[3];                   /* sample index of R, G, B */
  int off_a;                    /* the fourth sample, copied through */
  int pad_;
} CiFbCbFrame;

/* One per context, in device memory; callerInfo of every callback. */
typedef struct
{
  CiFbCbFrame fr;
  int width, height, s, w, h, nx;
  unsigned np, ncp;             /* nx * ny, (nx / 2 + 1) * ny */
  int kch;
  int pad_;
  const void *kspec;            /* float2, kch planes of ncp, scaled by 1/np */
  float lut[256];               /* 8-bit sRGB decode */
} CiFbCbInfo;
