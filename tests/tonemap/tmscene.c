/* gst-cuda-imaging: tone-mapping test frames and the synthetic HDR10 scene.
 * Independent of the code under test: double precision, exact BT.2100 maths.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tmscene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *in_names[] = { "P010_10LE", "I420_10LE", "P016_LE",
  "Y444_16LE", "RGBA64_LE", "BGRA64_LE", "RGB10A2_LE", "BGR10A2_LE"
};
static const char *out_names[] = { "RGBA", "BGRA", "RGBx", "BGRx", "I420",
  "NV12"
};
static const char *op_names[] = { "histogram", "reinhard", "hable", "bt2390",
  "clip"
};

const char *
tm_in_name (int f)
{
  return in_names[f];
}

const char *
tm_out_name (int f)
{
  return out_names[f];
}

const char *
tm_op_name (int op)
{
  return op_names[op];
}

static void
plane_geom (int out, int fmt, int w, int h, int *np, int rb[3], int rows[3])
{
  int cw = (w + 1) / 2, ch = (h + 1) / 2;
  *np = 1;
  rows[0] = h;
  if (!out) {
    switch (fmt) {
      case CI_TM_IN_P010:
      case CI_TM_IN_P016:
        *np = 2;
        rb[0] = 2 * w;
        rb[1] = 4 * cw;
        rows[1] = ch;
        return;
      case CI_TM_IN_I420_10:
        *np = 3;
        rb[0] = 2 * w;
        rb[1] = rb[2] = 2 * cw;
        rows[1] = rows[2] = ch;
        return;
      case CI_TM_IN_Y444_16:
        *np = 3;
        rb[0] = rb[1] = rb[2] = 2 * w;
        rows[1] = rows[2] = h;
        return;
      case CI_TM_IN_RGBA64:
      case CI_TM_IN_BGRA64:
        rb[0] = 8 * w;
        return;
      default:
        rb[0] = 4 * w;
        return;
    }
  }
  switch (fmt) {
    case CI_TM_OUT_I420:
      *np = 3;
      rb[0] = w;
      rb[1] = rb[2] = cw;
      rows[1] = rows[2] = ch;
      return;
    case CI_TM_OUT_NV12:
      *np = 2;
      rb[0] = w;
      rb[1] = 2 * cw;
      rows[1] = ch;
      return;
    default:
      rb[0] = 4 * w;
      return;
  }
}

static TmFrame *
frame_new (int out, int fmt, int w, int h, int pad)
{
  TmFrame *f = calloc (1, sizeof *f);
  int rb[3], rows[3];
  f->out = out;
  f->fmt = fmt;
  f->w = w;
  f->h = h;
  plane_geom (out, fmt, w, h, &f->nplanes, rb, rows);
  for (int i = 0; i < f->nplanes; i++) {
    /* pad < 0: rows aligned to -pad bytes (the wide-load path) */
    f->stride[i] = pad == TM_PAD_TIGHT ? rb[i] : pad < 0 ?
        (rb[i] - pad - 1) / -pad * -pad : (rb[i] + pad + 3) & ~3;
    f->size[i] = (size_t) f->stride[i] * rows[i];
    f->plane[i] = calloc (1, f->size[i]);
  }
  return f;
}

TmFrame *
tm_frame_new_in (CiTmInFormat fmt, int w, int h, int pad)
{
  return frame_new (0, fmt, w, h, pad);
}

TmFrame *
tm_frame_new_out (CiTmOutFormat fmt, int w, int h, int pad)
{
  return frame_new (1, fmt, w, h, pad);
}

void
tm_frame_free (TmFrame * f)
{
  if (!f)
    return;
  for (int i = 0; i < 3; i++)
    free (f->plane[i]);
  free (f);
}

int
tm_frame_row_bytes (const TmFrame * f, int plane)
{
  int np, rb[3], rows[3];
  plane_geom (f->out, f->fmt, f->w, f->h, &np, rb, rows);
  return rb[plane];
}

int
tm_frame_rows (const TmFrame * f, int plane)
{
  int np, rb[3], rows[3];
  plane_geom (f->out, f->fmt, f->w, f->h, &np, rb, rows);
  return rows[plane];
}

int
tm_frame_diff (const TmFrame * a, const TmFrame * b, long *ndiff)
{
  int worst = 0;
  *ndiff = 0;
  for (int i = 0; i < a->nplanes; i++)
    for (int y = 0; y < tm_frame_rows (a, i); y++)
      for (int x = 0; x < tm_frame_row_bytes (a, i); x++) {
        int d = abs (a->plane[i][(size_t) y * a->stride[i] + x] -
            b->plane[i][(size_t) y * b->stride[i] + x]);
        worst = d > worst ? d : worst;
        *ndiff += d != 0;
      }
  return worst;
}

void
tm_frame_in_planes (const TmFrame * f, CiTmInPlanes * p)
{
  memset (p, 0, sizeof *p);
  for (int i = 0; i < f->nplanes; i++) {
    p->data[i] = f->plane[i];
    p->stride[i] = f->stride[i];
  }
}

void
tm_frame_out_planes (TmFrame * f, CiTmOutPlanes * p)
{
  memset (p, 0, sizeof *p);
  for (int i = 0; i < f->nplanes; i++) {
    p->data[i] = f->plane[i];
    p->stride[i] = f->stride[i];
  }
}

/* ---- exact BT.2100 PQ inverse EOTF ---- */
static double
pq_inv (double nits)
{
  const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128;
  const double c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
      c3 = 2392.0 / 4096 * 32;
  double y = nits / 10000.0;
  if (y < 0)
    y = 0;
  if (y > 1)
    y = 1;
  double p = pow (y, m1);
  return pow ((c1 + c2 * p) / (1 + c3 * p), m2);
}

double
tm_pq_signal (double nits)
{
  return pq_inv (nits);
}

static double
smooth (double e0, double e1, double x)
{
  double t = (x - e0) / (e1 - e0);
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  return t * t * (3 - 2 * t);
}

void
tm_scene_nits (int variant, int x, int y, int w, int h, double *rgb)
{
  double u = (x + 0.5) / w, v = (y + 0.5) / h;
  if (variant == 2) {
    /* the interior faded to a 20 cd/m^2 peak (the histogram's anchor) */
    tm_scene_nits (0, x, y, w, h, rgb);
    for (int c = 0; c < 3; c++)
      rgb[c] *= 0.002;
    return;
  }
  if (variant == 1) {
    /* daylight exterior: bright, low contrast, blue sky over green field */
    double sky = 600.0 + 400.0 * (1.0 - v);
    if (v < 0.55) {
      rgb[0] = 0.55 * sky;
      rgb[1] = 0.75 * sky;
      rgb[2] = 1.0 * sky;
    } else {
      double g = 80.0 + 60.0 * sin (20.0 * u) * sin (13.0 * v);
      rgb[0] = 0.35 * g;
      rgb[1] = 0.9 * g;
      rgb[2] = 0.2 * g;
    }
    return;
  }
  /* interior: walls lit by falloff from the window, deep shadow at right */
  double wall = 0.02 + 2.5 * exp (-3.0 * fabs (u - 0.3)) * (0.4 + 0.6 * v);
  double shadow = smooth (0.75, 0.95, u);
  wall = wall * (1.0 - shadow) + 0.005 * shadow;
  rgb[0] = wall * 1.0;
  rgb[1] = wall * 0.9;
  rgb[2] = wall * 0.75;
  /* window with sky gradient and a sun-lit cloud */
  if (u > 0.12 && u < 0.45 && v > 0.1 && v < 0.55) {
    double sky = 900.0 + 1600.0 * (0.55 - v);
    double cloud = 4000.0 * exp (-(pow ((u - 0.3) / 0.05, 2) + pow ((v - 0.25)
                / 0.03, 2)));
    rgb[0] = 0.6 * sky + cloud;
    rgb[1] = 0.8 * sky + cloud;
    rgb[2] = 1.0 * sky + cloud;
  }
  /* two lamps with glow: 10000 and 3000 nits cores */
  double d1 = hypot ((u - 0.62) * w / h, v - 0.3), d2 = hypot ((u - 0.85) * w
      / h, v - 0.7);
  double l1 = d1 < 0.02 ? 10000.0 : 60.0 * exp (-d1 / 0.04);
  double l2 = d2 < 0.015 ? 3000.0 : 20.0 * exp (-d2 / 0.03);
  rgb[0] += l1 + l2;
  rgb[1] += 0.85 * l1 + 0.7 * l2;
  rgb[2] += 0.6 * l1 + 0.4 * l2;
  /* saturated BT.2020 objects (outside BT.709) on a table */
  if (v > 0.72 && v < 0.85) {
    double lit = 3.0 + 40.0 * exp (-3.0 * fabs (u - 0.3));
    if (u > 0.05 && u < 0.15) {
      rgb[0] = lit;
      rgb[1] = 0.02 * lit;
      rgb[2] = 0.02 * lit;
    } else if (u > 0.2 && u < 0.3) {
      rgb[0] = 0.02 * lit;
      rgb[1] = lit;
      rgb[2] = 0.05 * lit;
    } else if (u > 0.35 && u < 0.45) {
      rgb[0] = 0.03 * lit;
      rgb[1] = 0.03 * lit;
      rgb[2] = lit;
    }
  }
}

static double
gauss (uint64_t * s)
{
  /* Irwin-Hall approximation: deterministic and cheap */
  double acc = 0;
  for (int i = 0; i < 4; i++) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    acc += (double) ((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
  }
  return (acc - 2.0) * 1.7320508;
}

static uint16_t
q (double v, int bits)
{
  double m = (double) ((1 << bits) - 1);
  v = v * m + 0.5;
  if (v < 0)
    v = 0;
  if (v > m)
    v = m;
  return (uint16_t) v;
}

static uint16_t
qlim (double v, int bits, int chroma)
{
  double u = pow (2.0, bits - 8), c = chroma ? 128.0 * u + 224.0 * u * v :
      16.0 * u + 219.0 * u * v;
  double m = pow (2.0, bits) - 1;
  c = floor (c + 0.5);
  return (uint16_t) (c < 0 ? 0 : (c > m ? m : c));
}

void
tm_put_nonlinear (TmFrame * f, int x, int y, double r, double g, double b,
    double a)
{
  uint16_t *p16;
  if (f->fmt >= CI_TM_IN_RGBA64) {
    switch (f->fmt) {
      case CI_TM_IN_RGBA64:
      case CI_TM_IN_BGRA64:
        p16 = (uint16_t *) (f->plane[0] + (size_t) y * f->stride[0]) + 4 * x;
        p16[0] = q (f->fmt == CI_TM_IN_RGBA64 ? r : b, 16);
        p16[1] = q (g, 16);
        p16[2] = q (f->fmt == CI_TM_IN_RGBA64 ? b : r, 16);
        p16[3] = q (a, 16);
        return;
      default:{
        uint32_t c0 = q (f->fmt == CI_TM_IN_RGB10A2 ? r : b, 10);
        uint32_t c2 = q (f->fmt == CI_TM_IN_RGB10A2 ? b : r, 10);
        ((uint32_t *) (f->plane[0] + (size_t) y * f->stride[0]))[x] =
            c0 | ((uint32_t) q (g, 10) << 10) | (c2 << 20) |
            ((uint32_t) q (a, 2) << 30);
        return;
      }
    }
  }
  /* BT.2020 NCL Y'CbCr, limited range */
  double yy = 0.2627 * r + 0.6780 * g + 0.0593 * b;
  double cb = (b - yy) / 1.8814, cr = (r - yy) / 1.4746;
  int bits = (f->fmt == CI_TM_IN_P010 || f->fmt == CI_TM_IN_I420_10) ? 10 : 16;
  int sh = f->fmt == CI_TM_IN_P010 ? 6 : 0;
  ((uint16_t *) (f->plane[0] + (size_t) y * f->stride[0]))[x] =
      (uint16_t) (qlim (yy, bits, 0) << sh);
  if (f->fmt == CI_TM_IN_Y444_16) {
    ((uint16_t *) (f->plane[1] + (size_t) y * f->stride[1]))[x] =
        qlim (cb, 16, 1);
    ((uint16_t *) (f->plane[2] + (size_t) y * f->stride[2]))[x] =
        qlim (cr, 16, 1);
    return;
  }
  if ((x & 1) || (y & 1))
    return;
  if (f->fmt == CI_TM_IN_I420_10) {
    ((uint16_t *) (f->plane[1] + (size_t) (y / 2) * f->stride[1]))[x / 2] =
        qlim (cb, 10, 1);
    ((uint16_t *) (f->plane[2] + (size_t) (y / 2) * f->stride[2]))[x / 2] =
        qlim (cr, 10, 1);
  } else {
    uint16_t *uv = (uint16_t *) (f->plane[1] + (size_t) (y / 2) *
        f->stride[1]) + 2 * (x / 2);
    uv[0] = (uint16_t) (qlim (cb, bits, 1) << sh);
    uv[1] = (uint16_t) (qlim (cr, bits, 1) << sh);
  }
}

void
tm_fill_scene (TmFrame * f, int variant, double noise, uint64_t seed)
{
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int y = 0; y < f->h; y++)
    for (int x = 0; x < f->w; x++) {
      double rgb[3];
      tm_scene_nits (variant, x, y, f->w, f->h, rgb);
      double n = noise > 0 ? 1.0 + noise * gauss (&s) : 1.0;
      tm_put_nonlinear (f, x, y, pq_inv (rgb[0] * n), pq_inv (rgb[1] * n),
          pq_inv (rgb[2] * n), 1.0);
    }
}

void
tm_fill_grey (TmFrame * f, double (*nits) (int x, int y, void *ud), void *ud,
    double noise, uint64_t seed)
{
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int y = 0; y < f->h; y++)
    for (int x = 0; x < f->w; x++) {
      double n = noise > 0 ? 1.0 + noise * gauss (&s) : 1.0;
      double e = pq_inv (nits (x, y, ud) * n);
      tm_put_nonlinear (f, x, y, e, e, e, 1.0);
    }
}

int
tm_luma_at (const TmFrame * f, int x, int y)
{
  if (f->fmt == CI_TM_OUT_I420 || f->fmt == CI_TM_OUT_NV12)
    return f->plane[0][(size_t) y * f->stride[0] + x];
  const uint8_t *p = f->plane[0] + (size_t) y * f->stride[0] + 4 * x;
  int sw = f->fmt == CI_TM_OUT_BGRA || f->fmt == CI_TM_OUT_BGRX;
  double r = sw ? p[2] : p[0], g = p[1], b = sw ? p[0] : p[2];
  /* full-range luma of the RGB codes */
  return (int) floor (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.5);
}

double
tm_mean_luma (const TmFrame * f)
{
  double acc = 0;
  for (int y = 0; y < f->h; y++)
    for (int x = 0; x < f->w; x++)
      acc += tm_luma_at (f, x, y);
  return acc / ((double) f->w * f->h);
}

void
tm_config_init (CiTmConfig * cfg, int fi, int fo, int w, int h)
{
  ci_tm_config_defaults (cfg);
  cfg->in_format = fi;
  cfg->out_format = fo;
  cfg->width = w;
  cfg->height = h;
}
