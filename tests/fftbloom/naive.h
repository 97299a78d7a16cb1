/* Independent naive convolution bloom for the tests: double precision,
 * direct spatial convolution, its own transfer functions and bright pass
 * (written from the formulas, not from kernels/fftbloom_math.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  int bytes, off[3], srgb;
} NvFormat;

static double
nv_decode (unsigned code, const NvFormat * f)
{
  double v = code / (f->bytes == 1 ? 255.0 : 65535.0);
  if (!f->srgb)
    return v;
  return v <= 0.04045 ? v / 12.92 : pow ((v + 0.055) / 1.055, 2.4);
}

static double
nv_encode_real (double lin, const NvFormat * f)
{
  double v = lin < 0 ? 0 : (lin > 1 ? 1 : lin);
  if (f->srgb)
    v = v <= 0.0031308 ? 12.92 * v : 1.055 * pow (v, 1 / 2.4) - 0.055;
  return v * (f->bytes == 1 ? 255.0 : 65535.0);
}

static unsigned
nv_sample (const uint8_t * px, int i, int bytes)
{
  if (bytes == 1)
    return px[i];
  uint16_t v;
  memcpy (&v, px + 2 * i, 2);
  return v;
}

/* Soft knee: quadratic between t(1-k) and t(1+k), linear above. */
static double
nv_bright_factor (double r, double g, double b, double t, double knee)
{
  double m = fmax (r, fmax (g, b));
  if (m <= 0)
    return 0;
  double lo = t * (1 - knee), hi = t * (1 + knee);
  double pass;
  if (m >= hi || knee == 0)
    pass = m - t;
  else if (m <= lo)
    pass = 0;
  else
    pass = (m - lo) * (m - lo) / (4 * t * knee);
  return fmax (pass, 0) / m;
}

/* out_real[(y*w+x)*3+c]: the exact output before rounding, for every pixel.
 * kern: kch planes kw x kh, centre (kcx, kcy); the frame is black outside. */
static double *
nv_bloom (const uint8_t * in, size_t stride, int width, int height,
    const NvFormat * f, double intensity, double t, double knee, int scale,
    const float *kern, int kw, int kh, int kch, int kcx, int kcy)
{
  int w = (width + scale - 1) / scale, h = (height + scale - 1) / scale;
  size_t pxb = 4 * (size_t) f->bytes;
  double *lin = malloc (sizeof (double) * 3 * width * height);
  double *br = calloc ((size_t) 3 * w * h, sizeof (double));
  double *bl = calloc ((size_t) 3 * w * h, sizeof (double));
  double *out = malloc (sizeof (double) * 3 * width * height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      for (int c = 0; c < 3; c++)
        lin[((size_t) y * width + x) * 3 + c] =
            nv_decode (nv_sample (in + y * stride + x * pxb, f->off[c],
                f->bytes), f);
  /* box average of the bright part over each scale x scale block */
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++) {
      int n = 0;
      for (int y = j * scale; y < (j + 1) * scale && y < height; y++)
        for (int x = i * scale; x < (i + 1) * scale && x < width; x++) {
          const double *p = lin + ((size_t) y * width + x) * 3;
          double k = nv_bright_factor (p[0], p[1], p[2], t, knee);
          for (int c = 0; c < 3; c++)
            br[((size_t) j * w + i) * 3 + c] += p[c] * k;
          n++;
        }
      for (int c = 0; c < 3; c++)
        br[((size_t) j * w + i) * 3 + c] /= n;
    }
  /* direct convolution: bloom(p) = sum_q br(q) K(c + p - q) */
  for (int j = 0; j < h; j++)
    for (int i = 0; i < w; i++)
      for (int ky = 0; ky < kh; ky++)
        for (int kx = 0; kx < kw; kx++) {
          int sx = i - (kx - kcx), sy = j - (ky - kcy);
          if (sx < 0 || sy < 0 || sx >= w || sy >= h)
            continue;
          for (int c = 0; c < 3; c++) {
            double kv = kern[(size_t) (kch == 3 ? c : 0) * kw * kh + ky * kw + kx];
            bl[((size_t) j * w + i) * 3 + c] +=
                kv * br[((size_t) sy * w + sx) * 3 + c];
          }
        }
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      /* bilinear at ((x + .5) / s - .5), edges clamped */
      double px = (x + 0.5) / scale - 0.5, py = (y + 0.5) / scale - 0.5;
      px = fmin (fmax (px, 0), w - 1);
      py = fmin (fmax (py, 0), h - 1);
      int x0 = (int) px, y0 = (int) py;
      int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
      double fx = px - x0, fy = py - y0;
      for (int c = 0; c < 3; c++) {
        double v00 = bl[((size_t) y0 * w + x0) * 3 + c];
        double v10 = bl[((size_t) y0 * w + x1) * 3 + c];
        double v01 = bl[((size_t) y1 * w + x0) * 3 + c];
        double v11 = bl[((size_t) y1 * w + x1) * 3 + c];
        double b = (v00 * (1 - fx) + v10 * fx) * (1 - fy)
            + (v01 * (1 - fx) + v11 * fx) * fy;
        out[((size_t) y * width + x) * 3 + c] =
            nv_encode_real (lin[((size_t) y * width + x) * 3 + c] +
            intensity * b, f);
      }
    }
  free (lin);
  free (br);
  free (bl);
  return out;
}
