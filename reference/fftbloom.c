/* Convolution bloom through FFTs: CPU reference.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "fftbloom.h"

#include <fftw3.h>
#include <math.h>
#include <png.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FFTW's planner is not thread-safe; elements may plan from several threads. */
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;

void
ci_fb_glare_defaults (CiFbGlare * g)
{
  g->core_size = 0.01f;
  g->halo_strength = 0.35f;
  g->halo_size = 0.08f;
  g->spike_strength = 0.15f;
  g->spike_count = 6;
  g->spike_width = 0.006f;
  g->spike_angle = 90.0f;
}

CiFbKernel *
ci_fb_kernel_new (int width, int height, int channels)
{
  CiFbKernel *k = calloc (1, sizeof *k);
  if (!k)
    return NULL;
  k->width = width;
  k->height = height;
  k->channels = channels;
  k->cx = width / 2;
  k->cy = height / 2;
  k->data = calloc ((size_t) width * height * channels, sizeof (float));
  if (!k->data) {
    free (k);
    return NULL;
  }
  return k;
}

void
ci_fb_kernel_free (CiFbKernel * k)
{
  if (!k)
    return;
  free (k->data);
  free (k);
}

int
ci_fb_kernel_normalise (CiFbKernel * k)
{
  size_t n = (size_t) k->width * k->height;
  int lit = 0;
  for (int c = 0; c < k->channels; c++) {
    float *p = k->data + c * n;
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
      s += p[i];
    if (!(s >= 0.0))
      return -1;                /* NaN: not a kernel */
    if (s > 0.0) {
      for (size_t i = 0; i < n; i++)
        p[i] = (float) (p[i] / s);
      lit++;
    }
  }
  /* a dark channel (a pure red kernel's green) blooms nothing; an all-dark
   * kernel is refused */
  return lit > 0 ? 0 : -1;
}

/* The energy shares of the glare's three parts (docs/fftbloom.md). */
static void
glare_shares (const CiFbGlare * g, double w[3])
{
  double hs = g->halo_strength, ss = g->spike_count > 0 ? g->spike_strength : 0;
  if (hs + ss > 1.0) {
    double f = 1.0 / (hs + ss);
    hs *= f;
    ss *= f;
  }
  w[0] = 1.0 - hs - ss;
  w[1] = hs;
  w[2] = ss;
}

/* A texel from its parts: each part over its sum, weighted by its share
 * (one copy, so the whole kernel and its window give the same bits). */
static float
glare_mix (const float tm[3], const double w[3], const double sum[3])
{
  double v = 0.0;
  for (int t = 0; t < 3; t++)
    if (sum[t] > 0.0)
      v += w[t] * tm[t] / sum[t];
  return (float) v;
}

CiFbKernel *
ci_fb_kernel_glare (const CiFbGlare * g, int radius)
{
  int R = radius < 1 ? 1 : radius;
  int d = 2 * R + 1;
  size_t n = (size_t) d * d;
  float *terms = malloc (3 * n * sizeof (float));
  CiFbKernel *k = ci_fb_kernel_new (d, d, 1);
  if (!terms || !k) {
    free (terms);
    ci_fb_kernel_free (k);
    return NULL;
  }
  double sum[3] = { 0, 0, 0 };
  CiFbGlarePrep gp;
  ci_fb_glare_prepare (g, (float) R + 0.5f, &gp);
  for (int y = 0; y < d; y++)
    for (int x = 0; x < d; x++) {
      size_t i = (size_t) y * d + x;
      ci_fb_glare_terms (&gp, (float) (x - R), (float) (y - R),
          &terms[i], &terms[n + i], &terms[2 * n + i]);
      for (int t = 0; t < 3; t++)
        sum[t] += terms[t * n + i];
    }
  /* Each component normalised on its own so the strengths are energy shares. */
  double w[3];
  glare_shares (g, w);
  for (size_t i = 0; i < n; i++) {
    const float tm[3] = { terms[i], terms[n + i], terms[2 * n + i] };
    k->data[i] = glare_mix (tm, w, sum);
  }
  free (terms);
  k->cx = k->cy = R;
  if (ci_fb_kernel_normalise (k) < 0) {
    ci_fb_kernel_free (k);
    return NULL;
  }
  return k;
}

/* The texels of ci_fb_kernel_glare (g, R) within rx columns and ry rows of
 * its centre, each with the bits the whole kernel gives it: the sums that
 * normalise it still run over all (2R + 1)^2 texels, which are computed
 * twice instead of stored. */
CiFbKernel *
ci_fb_kernel_glare_window (const CiFbGlare * g, int R, int rx, int ry)
{
  const int d = 2 * R + 1;
  rx = rx < R ? rx : R;
  ry = ry < R ? ry : R;
  CiFbKernel *k = ci_fb_kernel_new (2 * rx + 1, 2 * ry + 1, 1);
  if (!k)
    return NULL;
  CiFbGlarePrep gp;
  ci_fb_glare_prepare (g, (float) R + 0.5f, &gp);
  double sum[3] = { 0, 0, 0 };
  for (int y = 0; y < d; y++)
    for (int x = 0; x < d; x++) {
      float tm[3];
      ci_fb_glare_terms (&gp, (float) (x - R), (float) (y - R),
          &tm[0], &tm[1], &tm[2]);
      for (int t = 0; t < 3; t++)
        sum[t] += tm[t];
    }
  double w[3];
  glare_shares (g, w);
  /* ci_fb_kernel_normalise's sum, over the whole kernel in its order */
  double s = 0.0;
  for (int y = 0; y < d; y++)
    for (int x = 0; x < d; x++) {
      float tm[3];
      ci_fb_glare_terms (&gp, (float) (x - R), (float) (y - R),
          &tm[0], &tm[1], &tm[2]);
      const float fv = glare_mix (tm, w, sum);
      s += fv;
      if (x >= R - rx && x <= R + rx && y >= R - ry && y <= R + ry)
        k->data[(size_t) (y - (R - ry)) * k->width + (x - (R - rx))] = fv;
    }
  if (!(s > 0.0)) {
    ci_fb_kernel_free (k);
    return NULL;
  }
  for (size_t i = 0; i < (size_t) k->width * k->height; i++)
    k->data[i] = (float) (k->data[i] / s);
  k->cx = rx;
  k->cy = ry;
  return k;
}

/* Texels further from the centre than the bloom image reaches (w - 1
 * columns, h - 1 rows) only move light from outside the frame or to
 * outside it (black, lost: docs/fftbloom.md), so they are cut away after
 * normalisation: the FFT grid then grows with the frame, not with a kernel
 * larger than it. A kernel within that reach is returned as it is. */
static CiFbKernel *
crop_to_reach (CiFbKernel * k, int w, int h)
{
  if (!k)
    return NULL;
  const int x0 = k->cx - (w - 1) > 0 ? k->cx - (w - 1) : 0;
  const int y0 = k->cy - (h - 1) > 0 ? k->cy - (h - 1) : 0;
  const int x1 = k->cx + (w - 1) < k->width - 1 ? k->cx + (w - 1) : k->width - 1;
  const int y1 = k->cy + (h - 1) < k->height - 1 ? k->cy + (h - 1) : k->height - 1;
  if (x0 == 0 && y0 == 0 && x1 == k->width - 1 && y1 == k->height - 1)
    return k;
  CiFbKernel *c = ci_fb_kernel_new (x1 - x0 + 1, y1 - y0 + 1, k->channels);
  if (c) {
    for (int ch = 0; ch < k->channels; ch++)
      for (int y = y0; y <= y1; y++)
        memcpy (c->data + ((size_t) ch * c->height + (y - y0)) * c->width,
            k->data + ((size_t) ch * k->height + y) * k->width + x0,
            (size_t) c->width * sizeof (float));
    c->cx = k->cx - x0;
    c->cy = k->cy - y0;
  }
  ci_fb_kernel_free (k);
  return c;
}

/* Bilinear sample of channel c at continuous texel coordinates, zero outside. */
static float
img_sample (const CiFbImage * img, int c, float x, float y)
{
  float fx = floorf (x), fy = floorf (y);
  int x0 = (int) fx, y0 = (int) fy;
  float ax = x - fx, ay = y - fy;
  float v = 0.0f;
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < 2; i++) {
      int xx = x0 + i, yy = y0 + j;
      if (xx < 0 || yy < 0 || xx >= img->width || yy >= img->height)
        continue;
      float wgt = (i ? ax : 1.0f - ax) * (j ? ay : 1.0f - ay);
      v += wgt * img->data[((size_t) yy * img->width + xx) * img->channels + c];
    }
  return v;
}

CiFbKernel *
ci_fb_kernel_from_image (const CiFbImage * img, int size, float fx, float fy)
{
  int big = img->width > img->height ? img->width : img->height;
  int ow = img->width, oh = img->height;
  if (size > 0 && size != big) {
    ow = (int) lroundf ((float) img->width * size / big);
    oh = (int) lroundf ((float) img->height * size / big);
    ow = ow < 1 ? 1 : ow;
    oh = oh < 1 ? 1 : oh;
  }
  int ch = img->channels >= 3 ? 3 : 1;
  CiFbKernel *k = ci_fb_kernel_new (ow, oh, ch);
  if (!k)
    return NULL;
  size_t n = (size_t) ow * oh;
  float sx = (float) img->width / ow, sy = (float) img->height / oh;
  if (sx == 1.0f && sy == 1.0f) {
    for (int c = 0; c < ch; c++)
      for (size_t i = 0; i < n; i++)
        k->data[c * n + i] = img->data[i * img->channels + c];
  } else {
    /* Supersampled bilinear: an area average when shrinking, smooth when
     * enlarging. Done once per kernel change. */
    /* an axis whose size stays is not resampled (one sample on the texel:
     * two would blur it by 1/8, 3/4, 1/8) */
    int ssx = sx == 1.0f ? 1 : (int) ceilf (sx) + 1;
    int ssy = sy == 1.0f ? 1 : (int) ceilf (sy) + 1;
    for (int c = 0; c < ch; c++)
      for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
          float acc = 0.0f;
          for (int j = 0; j < ssy; j++)
            for (int i = 0; i < ssx; i++) {
              float px = (x + (i + 0.5f) / ssx) * sx - 0.5f;
              float py = (y + (j + 0.5f) / ssy) * sy - 0.5f;
              acc += img_sample (img, c, px, py);
            }
          k->data[c * n + (size_t) y * ow + x] = acc / (ssx * ssy);
        }
  }
  if (fx >= 0.0f) {
    k->cx = (int) lroundf (fx * (ow - 1));
    k->cy = (int) lroundf ((fy < 0.0f ? fx : fy) * (oh - 1));
    k->cx = k->cx < 0 ? 0 : (k->cx >= ow ? ow - 1 : k->cx);
    k->cy = k->cy < 0 ? 0 : (k->cy >= oh ? oh - 1 : k->cy);
  } else {
    float best = -1.0f;
    for (size_t i = 0; i < n; i++) {
      float s = 0.0f;
      for (int c = 0; c < ch; c++)
        s += k->data[c * n + i];
      if (s > best) {
        best = s;
        k->cx = (int) (i % ow);
        k->cy = (int) (i / ow);
      }
    }
  }
  if (ci_fb_kernel_normalise (k) < 0) {
    ci_fb_kernel_free (k);
    return NULL;
  }
  return k;
}

static char *
dup_err (const char *a, const char *b)
{
  size_t n = strlen (a) + strlen (b) + 3;
  char *s = malloc (n);
  if (s)
    snprintf (s, n, "%s: %s", a, b);
  return s;
}

static void
png16_warning (png_structp png, png_const_charp msg)
{
  (void) png;
  (void) msg;                   /* as the simplified API: not printed */
}

static void
png16_error (png_structp png, png_const_charp msg)
{
  snprintf ((char *) png_get_error_ptr (png), 128, "%s", msg);
  png_longjmp (png, 1);
}

/* A 16-bit PNG with an sRGB chunk, through libpng's low-level API: its
 * simplified API decodes such a file with a 2.2 power (gamma 0.45455),
 * not the sRGB curve it decodes 8-bit files with. Texels are
 * sRGB-decoded code/65535 times alpha/65535 (tRNS as alpha), grey one
 * plane, colour three. NULL: not such a file (*handled 0), or an error
 * (*handled 1, *err set). */
static CiFbImage *
load_png16_srgb (const char *path, int *handled, char **err)
{
  *handled = 0;
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  char msg[128] = "out of memory";
  png_structp png = png_create_read_struct (PNG_LIBPNG_VER_STRING, msg,
      png16_error, png16_warning);
  png_infop info = png ? png_create_info_struct (png) : NULL;
  uint8_t *volatile buf = NULL;
  png_bytep *volatile rows = NULL;
  float *volatile data = NULL;
  CiFbImage *volatile img = NULL;
  if (!info || setjmp (png_jmpbuf (png))) {
    if (*handled && err && !*err)
      *err = dup_err (path, msg);
    free (buf);
    free (rows);
    free (data);
    free (img);
    png_destroy_read_struct (&png, &info, NULL);
    fclose (f);
    return NULL;
  }
  png_init_io (png, f);
  png_read_info (png, info);
  if (png_get_bit_depth (png, info) != 16
      || !png_get_valid (png, info, PNG_INFO_sRGB)) {
    png_destroy_read_struct (&png, &info, NULL);
    fclose (f);
    return NULL;
  }
  *handled = 1;
  const int ct = png_get_color_type (png, info);
  if (png_get_valid (png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha (png);
  else if (!(ct & PNG_COLOR_MASK_ALPHA))
    png_set_add_alpha (png, 0xffff, PNG_FILLER_AFTER);
  png_set_interlace_handling (png);
  png_read_update_info (png, info);
  const png_uint_32 pw = png_get_image_width (png, info),
      ph = png_get_image_height (png, info);
  const int in_ch = png_get_channels (png, info);
  const size_t rb = png_get_rowbytes (png, info);
  const int ch = in_ch == 4 ? 3 : 1;
  buf = malloc (rb * ph);
  rows = malloc (ph * sizeof *rows);
  data = malloc ((size_t) pw * ph * ch * sizeof (float));
  img = calloc (1, sizeof *img);
  if (!buf || !rows || !data || !img)
    png_longjmp (png, 1);       /* msg: out of memory */
  for (png_uint_32 y = 0; y < ph; y++)
    rows[y] = buf + rb * y;
  png_read_image (png, rows);
  png_read_end (png, NULL);
  /* samples are big-endian in the file and in libpng's rows */
  for (size_t i = 0; i < (size_t) pw * ph; i++) {
    const uint8_t *p = buf + i * in_ch * 2;
    const float a = ((p[2 * (in_ch - 1)] << 8) | p[2 * in_ch - 1]) / 65535.0f;
    for (int c = 0; c < ch; c++)
      data[i * ch + c] = ci_fb_srgb_to_linear (((p[2 * c] << 8) | p[2 * c +
                  1]) / 65535.0f) * a;
  }
  free (buf);
  free (rows);
  png_destroy_read_struct (&png, &info, NULL);
  fclose (f);
  img->width = (int) pw;
  img->height = (int) ph;
  img->channels = ch;
  img->data = data;
  return img;
}

CiFbImage *
ci_fb_image_load_png (const char *path, char **err)
{
  png_image pi;
  memset (&pi, 0, sizeof pi);
  pi.version = PNG_IMAGE_VERSION;
  if (err)
    *err = NULL;
  if (!png_image_begin_read_from_file (&pi, path)) {
    if (err)
      *err = dup_err (path, pi.message);
    return NULL;
  }
  int colour = (pi.format & PNG_FORMAT_FLAG_COLOR) != 0;
  int linear16 = (pi.format & PNG_FORMAT_FLAG_LINEAR) != 0;
  if (linear16) {
    int handled;
    CiFbImage *img = load_png16_srgb (path, &handled, err);
    if (handled) {
      png_image_free (&pi);
      return img;
    }
  }
  /* Ask libpng for 16-bit linear or 8-bit sRGB with alpha, whatever the file. */
  pi.format = (colour ? PNG_FORMAT_RGBA : PNG_FORMAT_GA)
      | (linear16 ? PNG_FORMAT_FLAG_LINEAR : 0);
  int in_ch = colour ? 4 : 2;
  size_t bps = linear16 ? 2 : 1;
  size_t n = (size_t) pi.width * pi.height;
  void *buf = malloc (n * in_ch * bps);
  CiFbImage *img = calloc (1, sizeof *img);
  float *data = malloc (n * (colour ? 3 : 1) * sizeof (float));
  if (!buf || !img || !data) {
    free (buf);
    free (img);
    free (data);
    png_image_free (&pi);
    if (err)
      *err = dup_err (path, "out of memory");
    return NULL;
  }
  if (!png_image_finish_read (&pi, NULL, buf, 0, NULL)) {
    if (err)
      *err = dup_err (path, pi.message);
    free (buf);
    free (img);
    free (data);
    return NULL;
  }
  int ch = colour ? 3 : 1;
  for (size_t i = 0; i < n; i++) {
    float a;
    float v[3];
    if (linear16) {
      /* libpng's linear format is already premultiplied by alpha. */
      const uint16_t *p = (const uint16_t *) buf + i * in_ch;
      a = 1.0f;
      for (int c = 0; c < ch; c++)
        v[c] = p[c] / 65535.0f;
    } else {
      const uint8_t *p = (const uint8_t *) buf + i * in_ch;
      a = p[in_ch - 1] / 255.0f;
      for (int c = 0; c < ch; c++)
        v[c] = ci_fb_srgb_to_linear (p[c] / 255.0f);
    }
    for (int c = 0; c < ch; c++)
      data[i * ch + c] = v[c] * a;
  }
  free (buf);
  img->width = (int) pi.width;
  img->height = (int) pi.height;
  img->channels = ch;
  img->data = data;
  return img;
}

void
ci_fb_image_free (CiFbImage * img)
{
  if (!img)
    return;
  free (img->data);
  free (img);
}

CiFbKernel *
ci_fb_kernel_for_frame (const CiFbGlare * g, const CiFbImage * img,
    float kernel_size, float fx, float fy, int width, int height, int scale)
{
  int big = width > height ? width : height;
  if (scale < 1)
    scale = 1;
  const int bw = ci_fb_scaled (width, scale), bh = ci_fb_scaled (height, scale);
  if (img) {
    int size;
    if (kernel_size > 0.0f)
      size = (int) lroundf (kernel_size * big / scale);
    else {
      int ib = img->width > img->height ? img->width : img->height;
      size = scale == 1 ? 0 : (ib + scale / 2) / scale;
    }
    if (kernel_size > 0.0f || scale > 1)
      size = size < 1 ? 1 : size;
    return crop_to_reach (ci_fb_kernel_from_image (img, size, fx, fy), bw, bh);
  }
  int radius = (int) lroundf (kernel_size * big / scale * 0.5f);
  radius = radius < 1 ? 1 : radius;
  /* up to 2^24 texels stored whole (256 MB with the parts) and cut; past
   * that computed twice and only the window kept (the whole kernel of an
   * 8191x2 frame at kernel-size 2, 4 GB, for 5 of its 16383 rows) */
  if ((size_t) (2 * radius + 1) * (2 * radius + 1) <= ((size_t) 1 << 24))
    return crop_to_reach (ci_fb_kernel_glare (g, radius), bw, bh);
  return ci_fb_kernel_glare_window (g, radius, bw - 1, bh - 1);
}

/* ---- the FFT pipeline ---- */

/* The 2-D transforms run as 1-D ones over fixed chunks of FFT_ROWS rows
 * and FFT_COLS columns, each chunk by one plan (a full chunk's or the
 * last one's), so threads can share a plane and a sample's bits do not
 * depend on how the chunks are spread over them. The spectrum is stored
 * by columns (the row transforms write it transposed), so the column
 * transforms and the product with the kernel's spectrum run over
 * contiguous memory. Strides are padded so each chunk starts a multiple
 * of 64 bytes (FFTW's widest SIMD alignment) past the planned one, as
 * new-array execution requires. */
#define FFT_ROWS 8
#define FFT_COLS 16

enum
{ ROW_FWD, ROW_INV, COL_FWD, COL_INV, N_PLAN_KINDS };

struct CiFbRef
{
  int width, height, scale;     /* full-resolution frame, divisor */
  int w, h;                     /* low-resolution image */
  int nx, ny, nxc;              /* grid, complex row length nx/2+1 */
  int nxs, nys;                 /* strides: grid rows (floats), spectrum
                                 * columns (complex) */
  int kch;                      /* kernel planes (1 or 3) */
  float *grid;                  /* 3 real planes ny x nxs */
  fftwf_complex *spec;          /* 3 planes nxc x nys, by columns */
  fftwf_complex *kspec;         /* kch planes, scaled by 1/(nx ny) */
  /* [kind][0]: a full chunk, [kind][1]: the last, shorter one (or NULL) */
  fftwf_plan plan[N_PLAN_KINDS][2];
  /* upsampling: output column x reads grid columns ucol[2x], ucol[2x + 1]
   * with weight ufx[x] on the second */
  int *ucol;
  float *ufx;
  float lut8[256];
  /* 8-bit sRGB encode by table, the same codes as ci_fb_encode (a quarter
   * of a frame's time went to its powf) */
  CiFbEnc8 enc8;
  int have_enc8;
};

CiFbRef *
ci_fb_ref_new (void)
{
  CiFbRef *r = calloc (1, sizeof *r);
  if (!r)
    return NULL;
  for (int i = 0; i < 256; i++)
    r->lut8[i] = ci_fb_decode (i, 1, 1);
  r->have_enc8 = ci_fb_encode8_build (&r->enc8) == 0;
  return r;
}

static void
ref_clear (CiFbRef * r)
{
  pthread_mutex_lock (&plan_lock);
  for (int k = 0; k < N_PLAN_KINDS; k++)
    for (int i = 0; i < 2; i++) {
      if (r->plan[k][i])
        fftwf_destroy_plan (r->plan[k][i]);
      r->plan[k][i] = NULL;
    }
  fftwf_free (r->grid);
  fftwf_free (r->spec);
  fftwf_free (r->kspec);
  pthread_mutex_unlock (&plan_lock);
  r->grid = NULL;
  r->spec = r->kspec = NULL;
  r->nx = r->ny = 0;
}

void
ci_fb_ref_free (CiFbRef * r)
{
  if (!r)
    return;
  ref_clear (r);
  free (r->ucol);
  free (r->ufx);
  free (r);
}

void
ci_fb_ref_grid (const CiFbRef * r, int *nx, int *ny)
{
  *nx = r->nx;
  *ny = r->ny;
}

/* Plans [ROW_*][0] for full chunks of FFT_ROWS rows, where there is one,
 * and [ROW_*][1] for the last, shorter chunk, where there is one: each on
 * plane 0 at such a chunk; likewise for columns. 0 if all were made. */
static int
make_plans (CiFbRef * r)
{
  int nx = r->nx, ny = r->ny, ok = 1;
  for (int i = 0; i < 2; i++) {
    int rows = i == 0 ? (ny >= FFT_ROWS ? FFT_ROWS : 0) : ny % FFT_ROWS;
    int cols = i == 0 ? (r->nxc >= FFT_COLS ? FFT_COLS : 0) : r->nxc % FFT_COLS;
    if (rows) {
      float *g = r->grid + (size_t) (ny - rows) * r->nxs;
      fftwf_complex *s = r->spec + (ny - rows);
      r->plan[ROW_FWD][i] = fftwf_plan_many_dft_r2c (1, &nx, rows, g, NULL,
          1, r->nxs, s, NULL, r->nys, 1, FFTW_ESTIMATE);
      r->plan[ROW_INV][i] = fftwf_plan_many_dft_c2r (1, &nx, rows, s, NULL,
          r->nys, 1, g, NULL, 1, r->nxs, FFTW_ESTIMATE);
      ok &= r->plan[ROW_FWD][i] && r->plan[ROW_INV][i];
    }
    if (cols) {
      fftwf_complex *s = r->spec + (size_t) (r->nxc - cols) * r->nys;
      r->plan[COL_FWD][i] = fftwf_plan_many_dft (1, &ny, cols, s, NULL,
          1, r->nys, s, NULL, 1, r->nys, FFTW_FORWARD, FFTW_ESTIMATE);
      r->plan[COL_INV][i] = fftwf_plan_many_dft (1, &ny, cols, s, NULL,
          1, r->nys, s, NULL, 1, r->nys, FFTW_BACKWARD, FFTW_ESTIMATE);
      ok &= r->plan[COL_FWD][i] && r->plan[COL_INV][i];
    }
  }
  return ok ? 0 : -1;
}

/* The plan of chunk @chunk of @n items in chunks of @size: the full or
 * the last one's. */
static fftwf_plan
chunk_plan (const CiFbRef * r, int kind, int chunk, int n, int size)
{
  return (chunk + 1) * size <= n ? r->plan[kind][0] : r->plan[kind][1];
}

/* Plane @c's rows [first, end) (a multiple of FFT_ROWS, or the end),
 * forward: grid -> spec. */
static void
rows_forward (CiFbRef * r, int c, int first, int end)
{
  for (int j = first; j < end; j += FFT_ROWS)
    fftwf_execute_dft_r2c (chunk_plan (r, ROW_FWD, j / FFT_ROWS, r->ny,
            FFT_ROWS), r->grid + ((size_t) c * r->ny + j) * r->nxs,
        r->spec + (size_t) c * r->nxc * r->nys + j);
}

static void
rows_inverse (CiFbRef * r, int c, int first, int end)
{
  for (int j = first; j < end; j += FFT_ROWS)
    fftwf_execute_dft_c2r (chunk_plan (r, ROW_INV, j / FFT_ROWS, r->ny,
            FFT_ROWS), r->spec + (size_t) c * r->nxc * r->nys + j,
        r->grid + ((size_t) c * r->ny + j) * r->nxs);
}

/* Plane @c's column chunk at column @x, in place (@kind COL_FWD/COL_INV). */
static void
columns (CiFbRef * r, int kind, int c, int x)
{
  fftwf_complex *p = r->spec + ((size_t) c * r->nxc + x) * r->nys;
  fftwf_execute_dft (chunk_plan (r, kind, x / FFT_COLS, r->nxc, FFT_COLS),
      p, p);
}

static int
round_up (int v, int m)
{
  return (v + m - 1) / m * m;
}

int
ci_fb_ref_set_kernel (CiFbRef * r, const CiFbKernel * k, int width,
    int height, int scale)
{
  if (!k || width < 1 || height < 1 || (scale != 1 && scale != 2 && scale != 4)
      || (k->channels != 1 && k->channels != 3))
    return -1;
  int w = ci_fb_scaled (width, scale), h = ci_fb_scaled (height, scale);
  int nx = ci_fb_grid_size (w, k->width, k->cx);
  int ny = ci_fb_grid_size (h, k->height, k->cy);
  int nxc = nx / 2 + 1, nxs = round_up (nx, 16), nys = round_up (ny, 8);
  size_t np = (size_t) nxs * ny, ncp = (size_t) nxc * nys;
  if (nx != r->nx || ny != r->ny || k->channels != r->kch) {
    ref_clear (r);
    pthread_mutex_lock (&plan_lock);
    r->grid = fftwf_alloc_real (3 * np);
    r->spec = fftwf_alloc_complex (3 * ncp);
    r->kspec = fftwf_alloc_complex (k->channels * ncp);
    r->nx = nx;
    r->ny = ny;
    r->nxc = nxc;
    r->nxs = nxs;
    r->nys = nys;
    int ok = r->grid && r->spec && r->kspec && make_plans (r) == 0;
    pthread_mutex_unlock (&plan_lock);
    if (!ok) {
      ref_clear (r);
      return -1;
    }
    r->kch = k->channels;
  }
  int *ucol = malloc (sizeof (int) * 2 * width);
  float *ufx = malloc (sizeof (float) * width);
  if (!ucol || !ufx) {
    free (ucol);
    free (ufx);
    return -1;
  }
  for (int x = 0; x < width; x++)
    ci_fb_upsample_coord (x, scale, w, &ucol[2 * x], &ucol[2 * x + 1],
        &ufx[x]);
  free (r->ucol);
  free (r->ufx);
  r->ucol = ucol;
  r->ufx = ufx;
  r->width = width;
  r->height = height;
  r->scale = scale;
  r->w = w;
  r->h = h;
  /* Kernel centre at the origin, the rest wrapped around: out(x) =
   * sum_d in(x - d) K(c + d). */
  memset (r->grid, 0, k->channels * np * sizeof (float));
  for (int c = 0; c < k->channels; c++)
    for (int y = 0; y < k->height; y++)
      for (int x = 0; x < k->width; x++) {
        int gx = ((x - k->cx) % nx + nx) % nx, gy = ((y - k->cy) % ny + ny) % ny;
        r->grid[c * np + (size_t) gy * nxs + gx] =
            k->data[(size_t) c * k->width * k->height + (size_t) y * k->width + x];
      }
  float norm = 1.0f / ((float) nx * (float) ny);
  for (int c = 0; c < k->channels; c++) {
    rows_forward (r, c, 0, ny);
    for (int x = 0; x < nxc; x += FFT_COLS)
      columns (r, COL_FWD, c, x);
    for (int x = 0; x < nxc; x++)
      for (int y = 0; y < ny; y++) {
        size_t i = c * ncp + (size_t) x * nys + y;
        r->kspec[i][0] = r->spec[i][0] * norm;
        r->kspec[i][1] = r->spec[i][1] * norm;
      }
  }
  return 0;
}

static inline unsigned
load_sample (const uint8_t * px, int idx, int bytes)
{
  if (bytes == 1)
    return px[idx];
  return ci_ld_u16 (px + 2 * idx);
}

static inline void
store_sample (uint8_t * px, int idx, int bytes, unsigned v)
{
  if (bytes == 1)
    px[idx] = (uint8_t) v;
  else
    ci_st_u16 (px + 2 * idx, (uint16_t) v);
}

static inline void
decode_px (const float *lut8, const uint8_t * px, const CiFbFormat * f,
    float *rgb)
{
  const int off[3] = { f->off_r, f->off_g, f->off_b };
  for (int c = 0; c < 3; c++) {
    unsigned code = load_sample (px, off[c], f->bytes_per_sample);
    rgb[c] = (f->bytes_per_sample == 1 && f->srgb && lut8) ? lut8[code]
        : ci_fb_decode (code, f->bytes_per_sample, f->srgb);
  }
}

#define BRIGHT_BLOCK 256

typedef float CiV4 __attribute__ ((vector_size (16)));
typedef int32_t CiV4i __attribute__ ((vector_size (16)));

/* mask ? a : b, lane by lane (mask lanes all ones or zero) */
static inline CiV4
v4_select (CiV4i mask, CiV4 a, CiV4 b)
{
  return (CiV4) ((mask & (CiV4i) a) | (~mask & (CiV4i) b));
}

/* out_c[i] = rgb[c][i] * ci_fb_bright_factor (rgb[..][i]) for i < n: the
 * same operations in the same order, four lanes at once (GCC's vector
 * types: SSE2 or NEON), so the same bits */
static void
bright_block (const float rgb[3][BRIGHT_BLOCK], int n, float threshold,
    float knee, float *o0, float *o1, float *o2)
{
  const float k = threshold * knee, k2 = 2.0f * k, k4 = 4.0f * k;
  const CiV4 zero = { 0, 0, 0, 0 };
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    CiV4 r, g, b;
    memcpy (&r, rgb[0] + i, sizeof r);
    memcpy (&g, rgb[1] + i, sizeof g);
    memcpy (&b, rgb[2] + i, sizeof b);
    CiV4 m = v4_select (r > g, r, g);
    m = v4_select (m > b, m, b);
    CiV4 contrib = m - threshold;
    if (k > 0.0f) {
      CiV4 s = m - threshold + k;
      s = v4_select (s < 0.0f, zero, v4_select (s > k2, zero + k2, s));
      s = s * s / k4;
      contrib = v4_select (contrib > s, contrib, s);
    }
    contrib = v4_select (contrib > 0.0f, contrib, zero);
    CiV4 f = v4_select (m <= 0.0f, zero, contrib / m);
    CiV4 v0 = r * f, v1 = g * f, v2 = b * f;
    memcpy (o0 + i, &v0, sizeof v0);
    memcpy (o1 + i, &v1, sizeof v1);
    memcpy (o2 + i, &v2, sizeof v2);
  }
  for (; i < n; i++) {
    float f = ci_fb_bright_factor (rgb[0][i], rgb[1][i], rgb[2][i],
        threshold, knee);
    o0[i] = rgb[0][i] * f;
    o1[i] = rgb[1][i] * f;
    o2[i] = rgb[2][i] * f;
  }
}

/* @n pixels from @px into rgb[c][0 .. n) */
static void
decode_block (const float *lut8, const uint8_t * px, const CiFbFormat * fmt,
    int n, float rgb[3][BRIGHT_BLOCK])
{
  const size_t pxb = 4 * (size_t) fmt->bytes_per_sample;
  for (int i = 0; i < n; i++, px += pxb) {
    float v[3];
    decode_px (lut8, px, fmt, v);
    rgb[0][i] = v[0];
    rgb[1][i] = v[1];
    rgb[2][i] = v[2];
  }
}

/* low-resolution rows [j0, j1) */
static void
bright_planes (const float *lut8, const void *in, size_t in_stride, int width,
    int height, int scale, const CiFbFormat * fmt, const CiFbParams * p,
    float *planes, size_t plane_stride, size_t row_stride, int j0, int j1)
{
  int w = ci_fb_scaled (width, scale);
  size_t pxb = 4 * (size_t) fmt->bytes_per_sample;
  if (scale == 1) {
    /* one pixel a texel: the mean below is the pixel itself, the same
     * bits (0 + v and v / 1 are v); decoded a block at a time, the factor
     * four pixels at a time */
    float rgb[3][BRIGHT_BLOCK];
    for (int j = j0; j < j1; j++) {
      const uint8_t *px = (const uint8_t *) in + j * in_stride;
      float *o = planes + j * row_stride;
      for (int i0 = 0; i0 < w; i0 += BRIGHT_BLOCK) {
        int n = w - i0 < BRIGHT_BLOCK ? w - i0 : BRIGHT_BLOCK;
        decode_block (lut8, px, fmt, n, rgb);
        px += n * pxb;
        bright_block (rgb, n, p->threshold, p->knee, o + i0, o + plane_stride
            + i0, o + 2 * plane_stride + i0);
      }
    }
    return;
  }
  /* Each texel the mean of its pixels' rgb * f, summed row by row, left
   * to right, from 0; here a block of texels at a time, the pixels'
   * products by bright_block: the same sums in the same order. */
  const int tb = BRIGHT_BLOCK / scale;
  float rgb[3][BRIGHT_BLOCK], prod[3][BRIGHT_BLOCK], acc[3][BRIGHT_BLOCK];
  for (int j = j0; j < j1; j++) {
    int ya = j * scale, yb = (j + 1) * scale < height ? (j + 1) * scale : height;
    float *o = planes + j * row_stride;
    for (int i0 = 0; i0 < w; i0 += tb) {
      int nt = w - i0 < tb ? w - i0 : tb, xa = i0 * scale;
      int nx = nt * scale < width - xa ? nt * scale : width - xa;
      for (int c = 0; c < 3; c++)
        memset (acc[c], 0, sizeof (float) * nt);
      for (int y = ya; y < yb; y++) {
        const uint8_t *px = (const uint8_t *) in + y * in_stride + xa * pxb;
        decode_block (lut8, px, fmt, nx, rgb);
        bright_block (rgb, nx, p->threshold, p->knee, prod[0], prod[1],
            prod[2]);
        for (int c = 0; c < 3; c++)
          for (int t = 0; t < nt; t++)
            for (int x = t * scale; x < (t + 1) * scale && x < nx; x++)
              acc[c][t] += prod[c][x];
      }
      for (int t = 0; t < nt; t++) {
        int cols = (t + 1) * scale < nx ? scale : nx - t * scale;
        float cnt = (float) ((yb - ya) * cols);
        for (int c = 0; c < 3; c++)
          o[c * plane_stride + i0 + t] = acc[c][t] / cnt;
      }
    }
  }
}

void
ci_fb_ref_bright (const void *in, size_t in_stride, int width, int height,
    int scale, const CiFbFormat * fmt, const CiFbParams * p, float *planes)
{
  int w = ci_fb_scaled (width, scale), h = ci_fb_scaled (height, scale);
  bright_planes (NULL, in, in_stride, width, height, scale, fmt, p, planes,
      (size_t) w * h, w, 0, h);
}

typedef struct
{
  CiFbRef *r;
  const void *in;
  size_t in_stride;
  void *out;
  size_t out_stride;
  const CiFbFormat *fmt;
  const CiFbParams *p;
} Frame;

/* grid rows [first, end) (whole row chunks): the bright pass inside the
 * low-res image, zeros around it, then their forward row transforms */
static void
grid_rows (void *user, unsigned slice, int first, int end)
{
  const Frame *f = user;
  CiFbRef *r = f->r;
  size_t np = (size_t) r->nxs * r->ny;
  bright_planes (r->lut8, f->in, f->in_stride, r->width, r->height, r->scale,
      f->fmt, f->p, r->grid, np, r->nxs, first, end < r->h ? end : r->h);
  for (int c = 0; c < 3; c++) {
    for (int j = first; j < end; j++) {
      int x0 = j < r->h ? r->w : 0;
      memset (r->grid + c * np + (size_t) j * r->nxs + x0, 0,
          (size_t) (r->nx - x0) * sizeof (float));
    }
    rows_forward (r, c, first, end);
  }
}

/* spectrum columns [first, end) (whole column chunks) of each plane:
 * forward, times the kernel's spectrum, inverse */
static void
convolve_columns (void *user, unsigned slice, int first, int end)
{
  CiFbRef *r = ((const Frame *) user)->r;
  size_t ncp = (size_t) r->nxc * r->nys;
  for (int x0 = first; x0 < end; x0 += FFT_COLS) {
    int x1 = x0 + FFT_COLS < r->nxc ? x0 + FFT_COLS : r->nxc;
    for (int c = 0; c < 3; c++) {
      columns (r, COL_FWD, c, x0);
      fftwf_complex *s = r->spec + c * ncp;
      const fftwf_complex *u = r->kspec + (r->kch == 3 ? c : 0) * ncp;
      for (int x = x0; x < x1; x++)
        for (int y = 0; y < r->ny; y++) {
          size_t i = (size_t) x * r->nys + y;
          float a = s[i][0], b = s[i][1];
          s[i][0] = a * u[i][0] - b * u[i][1];
          s[i][1] = a * u[i][1] + b * u[i][0];
        }
      columns (r, COL_INV, c, x0);
    }
  }
}

/* grid rows [first, end) (whole row chunks): inverse row transforms */
static void
inverse_rows (void *user, unsigned slice, int first, int end)
{
  CiFbRef *r = ((const Frame *) user)->r;
  for (int c = 0; c < 3; c++)
    rows_inverse (r, c, first, end);
}

/* an output sample's code: by the table where @tab (8-bit sRGB) */
static inline unsigned
encode_out (const CiFbRef * r, const CiFbFormat * fmt, int tab, float v)
{
  return tab ? ci_fb_encode8_tab (v, r->enc8.code, r->enc8.thr) :
      ci_fb_encode (v, fmt->bytes_per_sample, fmt->srgb);
}

/* output rows [first, end) */
static void
bloom_rows (void *user, unsigned slice, int first, int end)
{
  const Frame *f = user;
  const CiFbRef *r = f->r;
  const CiFbFormat *fmt = f->fmt;
  size_t np = (size_t) r->nxs * r->ny;
  const int off[3] = { fmt->off_r, fmt->off_g, fmt->off_b };
  size_t pxb = 4 * (size_t) fmt->bytes_per_sample;
  int tab = fmt->bytes_per_sample == 1 && fmt->srgb && r->have_enc8;
  if (r->scale == 1) {
    /* no upsampling: the interpolation below gives the grid's sample
     * itself (v * 1 + v * 0), the same bits */
    for (int y = first; y < end; y++) {
      const uint8_t *sp = (const uint8_t *) f->in + y * f->in_stride;
      uint8_t *dp = (uint8_t *) f->out + y * f->out_stride;
      const float *g = r->grid + (size_t) y * r->nxs;
      for (int x = 0; x < r->width; x++, sp += pxb, dp += pxb) {
        memcpy (dp, sp, pxb);
        float rgb[3];
        decode_px (r->lut8, sp, fmt, rgb);
        for (int c = 0; c < 3; c++) {
          float v = rgb[c] + f->p->intensity * g[c * np + x];
          store_sample (dp, off[c], fmt->bytes_per_sample,
              encode_out (r, fmt, tab, v));
        }
      }
    }
    return;
  }
  for (int y = first; y < end; y++) {
    int y0, y1;
    float fy;
    ci_fb_upsample_coord (y, r->scale, r->h, &y0, &y1, &fy);
    const uint8_t *src = (const uint8_t *) f->in + y * f->in_stride;
    uint8_t *dst = (uint8_t *) f->out + y * f->out_stride;
    for (int x = 0; x < r->width; x++) {
      const int x0 = r->ucol[2 * x], x1 = r->ucol[2 * x + 1];
      const float fx = r->ufx[x];
      const uint8_t *sp = src + x * pxb;
      uint8_t *dp = dst + x * pxb;
      memcpy (dp, sp, pxb);
      float rgb[3];
      decode_px (r->lut8, sp, fmt, rgb);
      for (int c = 0; c < 3; c++) {
        const float *g = r->grid + c * np;
        float top = g[(size_t) y0 * r->nxs + x0] * (1.0f - fx)
            + g[(size_t) y0 * r->nxs + x1] * fx;
        float bot = g[(size_t) y1 * r->nxs + x0] * (1.0f - fx)
            + g[(size_t) y1 * r->nxs + x1] * fx;
        float bloom = top * (1.0f - fy) + bot * fy;
        float v = rgb[c] + f->p->intensity * bloom;
        store_sample (dp, off[c], fmt->bytes_per_sample,
            encode_out (r, fmt, tab, v));
      }
    }
  }
}

void
ci_fb_ref_process_mt (CiFbRef * r, const void *in, size_t in_stride,
    void *out, size_t out_stride, const CiFbFormat * fmt, const CiFbParams * p,
    CiRunner run, void *data, unsigned max_slices)
{
  Frame f = { r, in, in_stride, out, out_stride, fmt, p };
  ci_run_slices (run, data, max_slices, r->ny, FFT_ROWS, grid_rows, &f);
  ci_run_slices (run, data, max_slices, r->nxc, FFT_COLS, convolve_columns,
      &f);
  ci_run_slices (run, data, max_slices, r->ny, FFT_ROWS, inverse_rows, &f);
  ci_run_slices (run, data, max_slices, r->height, 1, bloom_rows, &f);
}

void
ci_fb_ref_process (CiFbRef * r, const void *in, size_t in_stride,
    void *out, size_t out_stride, const CiFbFormat * fmt, const CiFbParams * p)
{
  ci_fb_ref_process_mt (r, in, in_stride, out, out_stride, fmt, p, NULL, NULL,
      1);
}
