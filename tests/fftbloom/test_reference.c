/* fftbloom reference (FFTW) against the naive direct convolution, and the
 * physical properties: delta kernel, energy conservation, no wrap-around.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <glib.h>
#include <glib/gstdio.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include "citest.h"
#include "../../reference/fftbloom.h"
#include "naive.h"

static int failures = 0;

#define EXPECT(cond, ...) do { if (!(cond)) { failures++; \
  fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
  fprintf (stderr, __VA_ARGS__); fprintf (stderr, "\n"); } } while (0)

static const CiFbFormat fmt_rgba = { 1, 0, 1, 2, 1 };
static const CiFbFormat fmt_argb = { 1, 1, 2, 3, 1 };
static const CiFbFormat fmt_bgrx = { 1, 2, 1, 0, 1 };
static const CiFbFormat fmt_rgba64_lin = { 2, 0, 1, 2, 0 };
static const CiFbFormat fmt_rgba64_srgb = { 2, 0, 1, 2, 1 };

static NvFormat
nv_fmt (const CiFbFormat * f)
{
  NvFormat n = { f->bytes_per_sample, {f->off_r, f->off_g, f->off_b}, f->srgb };
  return n;
}

static CiFbKernel *
random_kernel (int kw, int kh, int ch, int cx, int cy, uint64_t seed)
{
  CiFbKernel *k = ci_fb_kernel_new (kw, kh, ch);
  uint64_t s = seed;
  for (int i = 0; i < kw * kh * ch; i++)
    k->data[i] = (float) ((ci_rand_next (&s) >> 40) / (double) (1 << 24)) + 0.01f;
  k->cx = cx;
  k->cy = cy;
  g_assert (ci_fb_kernel_normalise (k) == 0);
  return k;
}

/* Max |code - exact| over colour samples; alpha must be copied exactly. */
static double
compare_naive (const uint8_t * in, const uint8_t * out, size_t stride,
    int width, int height, const CiFbFormat * f, const double *exact,
    int *alpha_bad)
{
  NvFormat nf = nv_fmt (f);
  size_t pxb = 4 * (size_t) f->bytes_per_sample;
  int aoff = 6 - f->off_r - f->off_g - f->off_b;
  double worst = 0;
  *alpha_bad = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      const uint8_t *o = out + y * stride + x * pxb, *i = in + y * stride + x * pxb;
      for (int c = 0; c < 3; c++) {
        double d = fabs ((double) nv_sample (o, nf.off[c], nf.bytes) -
            exact[((size_t) y * width + x) * 3 + c]);
        worst = d > worst ? d : worst;
      }
      if (nv_sample (o, aoff, nf.bytes) != nv_sample (i, aoff, nf.bytes))
        (*alpha_bad)++;
    }
  return worst;
}

/* when set, the naive convolution takes this kernel instead (the whole
 * kernel of which the element's is cut) */
static const CiFbKernel *naive_kernel;

static void
run_vs_naive (const char *what, int width, int height, const CiFbFormat * f,
    const CiFbKernel * k, const CiFbParams * p, int scale, uint64_t seed)
{
  size_t stride = (size_t) width * 4 * f->bytes_per_sample + 12;
  uint8_t *in = g_malloc (stride * height), *out = g_malloc (stride * height);
  ci_fill_random (in, stride * height, seed);
  /* sparse bright lights on a darker random ground, so the bright pass matters */
  if (f->bytes_per_sample == 1)
    for (size_t i = 0; i < stride * height; i++)
      in[i] = (in[i] % 7 == 0) ? 255 - in[i] % 16 : in[i] / 3;
  memset (out, 0xA5, stride * height);
  CiFbRef *r = ci_fb_ref_new ();
  EXPECT (ci_fb_ref_set_kernel (r, k, width, height, scale) == 0, "%s set_kernel", what);
  ci_fb_ref_process (r, in, stride, out, stride, f, p);
  /* the same bytes on threads: rows and planes in 2, 3 and 16 slices */
  uint8_t *mt = g_malloc (stride * height);
  const unsigned slices[] = { 2, 3, 16 };
  for (int s = 0; s < 3; s++) {
    memset (mt, 0xA5, stride * height);
    ci_fb_ref_process_mt (r, in, stride, mt, stride, f, p, ci_thread_runner,
        NULL, slices[s]);
    EXPECT (memcmp (out, mt, stride * height) == 0,
        "%s: %u slices differ from one", what, slices[s]);
  }
  g_free (mt);
  NvFormat nf = nv_fmt (f);
  const CiFbKernel *kn = naive_kernel ? naive_kernel : k;
  double *exact = nv_bloom (in, stride, width, height, &nf, p->intensity,
      p->threshold, p->knee, scale, kn->data, kn->width, kn->height,
      kn->channels, kn->cx, kn->cy);
  int abad;
  double worst = compare_naive (in, out, stride, width, height, f, exact, &abad);
  int nx, ny;
  ci_fb_ref_grid (r, &nx, &ny);
  printf ("%-40s %4dx%-4d grid %4dx%-4d scale %d: max |ref - naive| = %.3f codes\n",
      what, width, height, nx, ny, scale, worst);
  /* rounding to the nearest code: 0.5 plus the FFT's float error (the
   * worst measured is 0.506); a floor or a biased rounding exceeds it */
  EXPECT (worst <= 0.55, "%s: max diff %.3f > 0.55 code values", what, worst);
  EXPECT (abad == 0, "%s: %d alpha samples changed", what, abad);
  free (exact);
  ci_fb_ref_free (r);
  g_free (in);
  g_free (out);
}

static void
test_transfer (void)
{
  /* 8-bit codes must survive decode -> encode exactly (bloom 0 = identity) */
  int bad = 0;
  for (unsigned c = 0; c < 256; c++)
    bad += ci_fb_encode (ci_fb_decode (c, 1, 1), 1, 1) != c;
  for (unsigned c = 0; c < 65536; c += 7)
    bad += ci_fb_encode (ci_fb_decode (c, 2, 1), 2, 1) != c;
  EXPECT (bad == 0, "%d codes do not round-trip", bad);
  /* the GPU's 8-bit sRGB encode table gives ci_fb_encode's code: around
   * every threshold and bucket edge, and on a sparse sweep of [0, 1] */
  CiFbEnc8 e8;
  EXPECT (ci_fb_encode8_build (&e8) == 0, "a bucket holds two thresholds");
  long long tried = 0;
  bad = 0;
#define ENC8_TRY(f_) do { float f__ = (f_); tried++; \
    bad += ci_fb_encode8_tab (f__, e8.code, e8.thr) != ci_fb_encode (f__, 1, 1); \
  } while (0)
  for (uint32_t u = 0; u <= 0x3f800000u; u += 97) {
    float f;
    memcpy (&f, &u, 4);
    ENC8_TRY (f);
  }
  for (int i = 0; i <= 256 + CI_FB_ENC8_N; i++) {
    float at = i <= 256 ? e8.thr[i < 256 ? i : 255]
        : (float) (i - 257) / CI_FB_ENC8_N;
    uint32_t u;
    memcpy (&u, &at, 4);
    for (int d = -300; d <= 300; d++) {
      uint32_t w = u + (uint32_t) d;
      float f;
      memcpy (&f, &w, 4);
      if (w <= 0x3f800000u)
        ENC8_TRY (f);
    }
  }
  ENC8_TRY (-1.0f);
  ENC8_TRY (1.5f);
  ENC8_TRY (INFINITY);
  ENC8_TRY (NAN);
#undef ENC8_TRY
  EXPECT (bad == 0, "encode table: %d of %lld values differ", bad, tried);
  printf ("8-bit encode table: %lld values, %d differ from ci_fb_encode\n",
      tried, bad);
  /* the bright pass against the naive formula */
  double worst = 0;
  for (int i = 0; i <= 200; i++) {
    float m = i / 100.0f;
    double a = ci_fb_bright_factor (m, m * 0.5f, 0.1f, 0.6f, 0.5f);
    double b = nv_bright_factor (m, m * 0.5, 0.1, 0.6, 0.5);
    worst = fmax (worst, fabs (a - b));
  }
  EXPECT (worst < 1e-5, "bright factor differs by %g", worst);
  EXPECT (ci_fb_bright_factor (0.3f, 0.2f, 0.1f, 0.0f, 0.8f) == 1.0f,
      "threshold 0 must pass everything");
  EXPECT (ci_fb_good_size (1981) == 2000 && ci_fb_good_size (37) == 40
      && ci_fb_good_size (1176) == 1176 && ci_fb_good_size (1) == 2,
      "good sizes");
  EXPECT (ci_fb_fast_size (2016) == 2048 && ci_fb_fast_size (1176) == 1200
      && ci_fb_fast_size (2880) == 2880 && ci_fb_fast_size (65) == 70
      && ci_fb_fast_size (2041) == 2048, "fast sizes");
}

static void
test_vs_naive (void)
{
  CiFbParams p = { 1.0f, 0.35f, 0.5f };
  CiFbKernel *k = random_kernel (15, 9, 3, 4, 6, 11);
  run_vs_naive ("37x23 RGB kernel 15x9, RGBA", 37, 23, &fmt_rgba, k, &p, 1, 1);
  run_vs_naive ("37x23 RGB kernel 15x9, ARGB", 37, 23, &fmt_argb, k, &p, 1, 2);
  run_vs_naive ("37x23 RGB kernel 15x9, RGBA64 linear", 37, 23,
      &fmt_rgba64_lin, k, &p, 1, 3);
  run_vs_naive ("37x23 RGB kernel 15x9, RGBA64 sRGB", 37, 23,
      &fmt_rgba64_srgb, k, &p, 1, 4);
  run_vs_naive ("37x23 RGB kernel 15x9, scale 1/2", 37, 23, &fmt_bgrx, k, &p,
      2, 5);
  ci_fb_kernel_free (k);
  k = random_kernel (15, 9, 1, 7, 4, 12);
  CiFbParams p2 = { 2.5f, 0.0f, 0.0f };
  run_vs_naive ("37x23 grey kernel, threshold 0, x2.5", 37, 23, &fmt_bgrx, k,
      &p2, 1, 6);
  run_vs_naive ("37x23 grey kernel, scale 1/4", 37, 23, &fmt_rgba, k, &p, 4, 7);
  ci_fb_kernel_free (k);
  /* kernel wider than the frame, centre in a corner */
  k = random_kernel (41, 5, 1, 40, 0, 13);
  run_vs_naive ("13x31 kernel 41x5 centre (40,0)", 13, 31, &fmt_rgba, k, &p, 1, 8);
  ci_fb_kernel_free (k);
  /* the reference's transforms run in chunks of 8 rows and 16 spectrum
   * columns: a grid smaller than one chunk each way (6x4), and one of
   * whole chunks only (2430x16: 1216 spectrum columns) */
  k = random_kernel (3, 3, 3, 1, 1, 14);
  run_vs_naive ("5x3 kernel 3x3, grid below one chunk", 5, 3, &fmt_rgba, k,
      &p2, 1, 10);
  run_vs_naive ("2429x15 kernel 3x3, whole chunks", 2429, 15, &fmt_argb, k, &p2,
      1, 11);
  ci_fb_kernel_free (k);
  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  k = ci_fb_kernel_glare (&g, 12);
  run_vs_naive ("61x47 glare R=12", 61, 47, &fmt_rgba, k, &p, 1, 9);
  ci_fb_kernel_free (k);
}

/* Kernels reaching past the frame are cut to its extent
 * (ci_fb_kernel_for_frame): every texel kept has the bits of the whole
 * kernel's, and the output stays within the naive convolution with the
 * whole kernel. */
static int
same_window (const CiFbKernel * cut, const CiFbKernel * whole, int want_w,
    int want_h)
{
  if (!cut || !whole || cut->width != want_w || cut->height != want_h
      || cut->channels != whole->channels)
    return 0;
  for (int c = 0; c < cut->channels; c++)
    for (int y = 0; y < cut->height; y++)
      for (int x = 0; x < cut->width; x++) {
        const int wx = x - cut->cx + whole->cx, wy = y - cut->cy + whole->cy;
        const float a = cut->data[((size_t) c * cut->height + y) * cut->width + x];
        const float b = whole->data[((size_t) c * whole->height + wy) *
            whole->width + wx];
        if (memcmp (&a, &b, sizeof a) != 0)
          return 0;
      }
  return 1;
}

static void
test_kernel_cut (void)
{
  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  CiFbParams p = { 1.0f, 0.35f, 0.5f };
  /* frame, kernel-size, scale: R = lround (ks * big / s / 2) */
  static const struct
  {
    int w, h;
    float ks;
    int s;
  } c[] = { {97, 3, 2.0f, 1}, {5, 61, 1.0f, 1}, {200, 9, 0.5f, 2}, {64, 64, 2.0f, 1},
  {1, 40, 2.0f, 1} };
  for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
    const int bw = ci_fb_scaled (c[i].w, c[i].s), bh = ci_fb_scaled (c[i].h, c[i].s);
    const int big = c[i].w > c[i].h ? c[i].w : c[i].h;
    int R = (int) lroundf (c[i].ks * big / c[i].s * 0.5f);
    R = R < 1 ? 1 : R;
    CiFbKernel *whole = ci_fb_kernel_glare (&g, R);
    CiFbKernel *cut = ci_fb_kernel_for_frame (&g, NULL, c[i].ks, -1, -1, c[i].w,
        c[i].h, c[i].s);
    const int ww = 2 * (R < bw - 1 ? R : bw - 1) + 1;
    const int wh = 2 * (R < bh - 1 ? R : bh - 1) + 1;
    EXPECT (same_window (cut, whole, ww, wh), "glare R=%d for %dx%d at 1/%d: "
        "not the whole kernel's %dx%d window (got %dx%d)", R, c[i].w, c[i].h,
        c[i].s, ww, wh, cut ? cut->width : -1, cut ? cut->height : -1);
    char what[64];
    snprintf (what, sizeof what, "%dx%d glare R=%d cut to %dx%d", c[i].w,
        c[i].h, R, ww, wh);
    naive_kernel = whole;
    if (cut)
      run_vs_naive (what, c[i].w, c[i].h, &fmt_rgba, cut, &p, c[i].s, 40 + i);
    naive_kernel = NULL;
    ci_fb_kernel_free (whole);
    ci_fb_kernel_free (cut);
  }
  /* the window computed without the whole kernel (what kernels past 2^24
   * texels take), against the whole one: rays at odd angles, a halo */
  CiFbGlare g2 = g;
  g2.spike_count = 5;
  g2.spike_angle = 13.0f;
  g2.halo_strength = 0.3f;
  static const int win[][3] = { {40, 3, 2}, {40, 40, 0}, {40, 50, 50}, {7, 0, 7},
  {1, 1, 1}
  };
  for (unsigned i = 0; i < sizeof win / sizeof win[0]; i++) {
    const int R = win[i][0], rx = win[i][1], ry = win[i][2];
    CiFbKernel *whole = ci_fb_kernel_glare (&g2, R);
    CiFbKernel *w = ci_fb_kernel_glare_window (&g2, R, rx, ry);
    const int ww = 2 * (rx < R ? rx : R) + 1, wh = 2 * (ry < R ? ry : R) + 1;
    EXPECT (same_window (w, whole, ww, wh), "glare window R=%d %d,%d: not the "
        "whole kernel's (got %dx%d)", R, rx, ry, w ? w->width : -1,
        w ? w->height : -1);
    ci_fb_kernel_free (whole);
    ci_fb_kernel_free (w);
  }
  /* an image kernel (three planes, centre off the middle), cut the same way */
  CiFbImage img = { 31, 23, 3, NULL };
  img.data = g_malloc ((size_t) 31 * 23 * 3 * sizeof (float));
  uint64_t st = 77;
  for (int i = 0; i < 31 * 23 * 3; i++)
    img.data[i] = (float) ((ci_rand_next (&st) >> 40) / (double) (1 << 24));
  CiFbKernel *whole = ci_fb_kernel_from_image (&img, 0, 0.2f, 0.7f);
  CiFbKernel *cut = ci_fb_kernel_for_frame (&g, &img, 0.0f, 0.2f, 0.7f, 40, 4, 1);
  /* centre (6, 15): columns 0..30 stay (reach 39), rows 12..18 */
  EXPECT (same_window (cut, whole, 31, 7), "image kernel for 40x4: not the "
      "whole kernel's 31x7 window (got %dx%d)", cut ? cut->width : -1,
      cut ? cut->height : -1);
  naive_kernel = whole;
  if (cut)
    run_vs_naive ("40x4 image kernel 31x23 cut to 31x7", 40, 4, &fmt_rgba, cut,
        &p, 1, 50);
  naive_kernel = NULL;
  ci_fb_kernel_free (whole);
  ci_fb_kernel_free (cut);
  g_free (img.data);
}

static void
test_delta (void)
{
  CiFbKernel *k = ci_fb_kernel_new (1, 1, 1);
  k->data[0] = 1.0f;
  k->cx = k->cy = 0;
  const CiFbFormat *fmts[] = { &fmt_rgba, &fmt_rgba64_srgb };
  for (int fi = 0; fi < 2; fi++) {
    const CiFbFormat *f = fmts[fi];
    int width = 29, height = 17;
    size_t stride = (size_t) width * 4 * f->bytes_per_sample;
    uint8_t *in = g_malloc (stride * height), *out = g_malloc (stride * height);
    ci_fill_random (in, stride * height, 77 + fi);
    CiFbParams p = { 0.7f, 0.4f, 0.3f };
    CiFbRef *r = ci_fb_ref_new ();
    ci_fb_ref_set_kernel (r, k, width, height, 1);
    ci_fb_ref_process (r, in, stride, out, stride, f, &p);
    NvFormat nf = nv_fmt (f);
    double worst = 0;
    size_t pxb = 4 * (size_t) f->bytes_per_sample;
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) {
        const uint8_t *ip = in + y * stride + x * pxb, *op = out + y * stride + x * pxb;
        double l[3];
        for (int c = 0; c < 3; c++)
          l[c] = nv_decode (nv_sample (ip, nf.off[c], nf.bytes), &nf);
        double kf = nv_bright_factor (l[0], l[1], l[2], p.threshold, p.knee);
        for (int c = 0; c < 3; c++) {
          double e = nv_encode_real (l[c] + p.intensity * kf * l[c], &nf);
          worst = fmax (worst, fabs (nv_sample (op, nf.off[c], nf.bytes) - e));
        }
      }
    printf ("delta kernel (%d-bit): max |out - (in + i*bright(in))| = %.3f codes\n",
        8 * f->bytes_per_sample, worst);
    EXPECT (worst <= 0.55, "delta kernel: %.3f codes", worst);
    ci_fb_ref_free (r);
    g_free (in);
    g_free (out);
  }
  ci_fb_kernel_free (k);
}

/* Threshold 0, black band wider than the kernel radius: everything the
 * kernel spreads stays inside the frame, so added energy = intensity x input. */
static void
test_energy (void)
{
  const CiFbFormat *f = &fmt_rgba64_lin;
  int width = 96, height = 70, R = 10, band = R + 2;
  size_t stride = (size_t) width * 8;
  uint16_t *in = g_malloc0 (stride * height), *out = g_malloc (stride * height);
  uint64_t s = 5;
  for (int y = band; y < height - band; y++)
    for (int x = band; x < width - band; x++)
      for (int c = 0; c < 4; c++)
        in[(size_t) y * width * 4 + x * 4 + c] = (uint16_t) ((ci_rand_next (&s) >> 48) / 4);
  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  {
    CiFbKernel *k = ci_fb_kernel_glare (&g, R);
    CiFbParams p = { 0.8f, 0.0f, 0.5f };
    CiFbRef *r = ci_fb_ref_new ();
    ci_fb_ref_set_kernel (r, k, width, height, 1);
    ci_fb_ref_process (r, in, stride, out, stride, f, &p);
    double ein = 0, eadd = 0;
    for (size_t i = 0; i < (size_t) width * height * 4; i++) {
      if (i % 4 == 3)
        continue;
      ein += in[i] / 65535.0;
      eadd += (out[i] - (double) in[i]) / 65535.0;
    }
    double rel = fabs (eadd - p.intensity * ein) / (p.intensity * ein);
    printf ("energy: input %.3f, added %.3f, intensity x input %.3f, rel. error %.2e\n",
        ein, eadd, p.intensity * ein, rel);
    EXPECT (rel < 1e-3, "energy not conserved: rel. error %g", rel);
    ci_fb_ref_free (r);
    ci_fb_kernel_free (k);
  }
  g_free (in);
  g_free (out);
}

/* Light on the left edge, kernel reaching right: nothing may appear near the
 * right edge (nor bottom/top), which a too-small grid would wrap onto. */
static void
test_no_wrap (void)
{
  int width = 50, height = 20;
  size_t stride = (size_t) width * 4;
  uint8_t *in = g_malloc0 (stride * height), *out = g_malloc (stride * height);
  for (int y = 0; y < height; y++) {
    in[y * stride + 0] = in[y * stride + 1] = in[y * stride + 2] = 255;
    in[y * stride + 3] = 255;
  }
  /* kernel 31x1 centred: reaches 15 texels each way; grid x >= 50 + 15 */
  CiFbKernel *k = ci_fb_kernel_new (31, 1, 1);
  for (int i = 0; i < 31; i++)
    k->data[i] = 1.0f;
  k->cx = 15;
  k->cy = 0;
  ci_fb_kernel_normalise (k);
  CiFbParams p = { 4.0f, 0.0f, 0.0f };
  CiFbRef *r = ci_fb_ref_new ();
  ci_fb_ref_set_kernel (r, k, width, height, 1);
  int nx, ny;
  ci_fb_ref_grid (r, &nx, &ny);
  ci_fb_ref_process (r, in, stride, out, stride, &fmt_rgba, &p);
  int lit_far = 0, lit_near = 0;
  for (int y = 0; y < height; y++)
    for (int x = 1; x < width; x++)
      for (int c = 0; c < 3; c++) {
        int v = out[y * stride + x * 4 + c];
        if (x > 15)
          lit_far += v != 0;
        else
          lit_near += v != 0;
      }
  printf ("no wrap-around: grid %dx%d for 50x20 + radius 15; lit beyond reach %d, "
      "lit within reach %d\n", nx, ny, lit_far, lit_near);
  EXPECT (nx >= width + 15 && nx < width + 15 + 12, "grid %d", nx);
  EXPECT (lit_far == 0, "%d samples lit beyond the kernel's reach (wrap-around)",
      lit_far);
  EXPECT (lit_near == 3 * height * 15, "bloom missing within reach (%d)", lit_near);
  ci_fb_ref_free (r);
  ci_fb_kernel_free (k);
  g_free (in);
  g_free (out);
}

static void
test_kernels (void)
{
  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  CiFbKernel *k = ci_fb_kernel_glare (&g, 40);
  double sum = 0, edge = 0, peak = 0;
  int pk = -1;
  for (int i = 0; i < k->width * k->height; i++) {
    sum += k->data[i];
    if (k->data[i] > peak) {
      peak = k->data[i];
      pk = i;
    }
  }
  edge = k->data[0] + k->data[80] + k->data[80 * 81];  /* corners, outside the disc */
  EXPECT (k->width == 81 && k->cx == 40 && k->cy == 40, "glare geometry");
  EXPECT (fabs (sum - 1.0) < 1e-5, "glare sum %g", sum);
  EXPECT (pk == 40 * 81 + 40, "glare peak at %d", pk);
  EXPECT (edge == 0.0, "glare does not vanish outside its disc (%g)", edge);
  EXPECT (k->data[40] < 1e-3 * peak, "glare border too bright");
  /* spikes: 6 rays from 90 degrees; along the vertical ray > off-ray */
  EXPECT (k->data[(40 + 20) * 81 + 40] > 5 * k->data[(40 + 20) * 81 + 50],
      "no spike along the first ray");
  ci_fb_kernel_free (k);

  /* one ray and nothing else: the two texels beside its root get the same
   * light at each axis angle (a hard start at along >= 0 lit one of them
   * fully and the other not at all at 90 degrees, by the rounding of
   * cos (pi / 2)), less than the first texel on the ray; none behind it */
  for (int ai = 0; ai < 4; ai++) {
    CiFbGlare g1;
    ci_fb_glare_defaults (&g1);
    g1.spike_count = 1;
    g1.halo_strength = 0.0f;
    g1.spike_strength = 1.0f;
    g1.spike_angle = 90.0f * ai;
    CiFbKernel *k1 = ci_fb_kernel_glare (&g1, 20);
    const int d = 41, c = 20;
    /* the ray's direction in texels (x right, y down) */
    static const int dir[4][2] = { {1, 0}, {0, 1}, {-1, 0}, {0, -1} };
    const int ux = dir[ai][0], uy = dir[ai][1];
#define AT(x, y) k1->data[(c + (y)) * d + c + (x)]
    float ray = AT (ux, uy), behind = AT (-ux, -uy);
    float side1 = AT (-uy, ux), side2 = AT (uy, -ux);
#undef AT
    EXPECT (side1 > 0.0f && fabsf (side1 - side2) <= 1e-5f * side1,
        "ray at %d degrees: beside its root %g and %g", 90 * ai, side1, side2);
    EXPECT (side1 < ray, "ray at %d degrees: root side %g, on the ray %g",
        90 * ai, side1, ray);
    EXPECT (behind == 0.0f, "ray at %d degrees: %g behind its root", 90 * ai,
        behind);
    ci_fb_kernel_free (k1);
  }

  /* a pure red kernel: green and blue bloom nothing, red is normalised; an
   * all-dark one is refused */
  {
    CiFbImage red = { 3, 3, 3, NULL };
    float texels[27] = { 0 };
    texels[4 * 3 + 0] = 1.0f;
    texels[1 * 3 + 0] = 0.5f;
    red.data = texels;
    CiFbKernel *kr = ci_fb_kernel_from_image (&red, 0, -1, -1);
    EXPECT (kr != NULL, "a pure red kernel was refused");
    if (kr) {
      double sr = 0, sgb = 0;
      for (int i = 0; i < 9; i++) {
        sr += kr->data[i];
        sgb += kr->data[9 + i] + kr->data[18 + i];
      }
      EXPECT (fabs (sr - 1) < 1e-6 && sgb == 0.0, "pure red kernel: red %g, "
          "green + blue %g", sr, sgb);
      EXPECT (kr->cx == 1 && kr->cy == 1, "pure red kernel centre %d,%d",
          kr->cx, kr->cy);
      ci_fb_kernel_free (kr);
    }
    texels[4 * 3 + 0] = texels[1 * 3 + 0] = 0.0f;
    kr = ci_fb_kernel_from_image (&red, 0, -1, -1);
    EXPECT (kr == NULL, "an all-dark kernel was taken");
    ci_fb_kernel_free (kr);
  }

  /* 10x3 to 9x3: only x is resampled; the lit row's light stays in it */
  {
    float texels[30] = { 0 };
    texels[1 * 10 + 4] = 1.0f;
    CiFbImage line = { 10, 3, 1, texels };
    CiFbKernel *kl = ci_fb_kernel_from_image (&line, 9, -1, -1);
    EXPECT (kl && kl->width == 9 && kl->height == 3, "9x3 kernel");
    if (kl) {
      double off = 0;
      for (int x = 0; x < 9; x++)
        off += kl->data[x] + kl->data[18 + x];
      EXPECT (off == 0.0, "light spread across an axis kept as it was: %g",
          off);
      EXPECT (kl->cy == 1, "centre row %d", kl->cy);
    }
    ci_fb_kernel_free (kl);
  }

  /* image kernel through a PNG: RGB, brightest texel found, resampled */
  CiImage *img = ci_image_new (9, 5, 3, 1);
  for (int i = 0; i < 9 * 5 * 3; i++)
    img->data[i] = 10;
  img->data[(3 * 9 + 6) * 3 + 0] = 255;
  img->data[(3 * 9 + 6) * 3 + 1] = 200;
  img->data[(3 * 9 + 6) * 3 + 2] = 100;
  gchar *path = g_build_filename (g_get_tmp_dir (), "fftbloom-kernel-test.png", NULL);
  EXPECT (ci_image_save_png (img, path), "save png");
  char *err = NULL;
  CiFbImage *fi = ci_fb_image_load_png (path, &err);
  EXPECT (fi != NULL, "load png: %s", err ? err : "?");
  if (fi) {
    EXPECT (fi->width == 9 && fi->height == 5 && fi->channels == 3, "png geometry");
    EXPECT (fabs (fi->data[(3 * 9 + 6) * 3 + 1] - nv_decode (200,
                &(NvFormat) { 1, {0, 1, 2}, 1 })) < 1e-6, "png decode");
    k = ci_fb_kernel_from_image (fi, 0, -1, -1);
    EXPECT (k && k->channels == 3 && k->cx == 6 && k->cy == 3, "brightest texel");
    double s3[3] = { 0, 0, 0 };
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 45; i++)
        s3[c] += k->data[c * 45 + i];
    EXPECT (fabs (s3[0] - 1) < 1e-5 && fabs (s3[1] - 1) < 1e-5
        && fabs (s3[2] - 1) < 1e-5, "planes sum to 1");
    ci_fb_kernel_free (k);
    k = ci_fb_kernel_from_image (fi, 18, 0.5f, 0.5f);
    EXPECT (k && k->width == 18 && k->height == 10 && k->cx == 9 && k->cy == 5,
        "resampled geometry");
    ci_fb_kernel_free (k);
    /* kernel for a frame: 0 = native size; scale 1/2 halves it */
    k = ci_fb_kernel_for_frame (&g, fi, 0.0f, -1, -1, 640, 480, 2);
    EXPECT (k && k->width == 5, "native size at scale 1/2: %d", k ? k->width : -1);
    ci_fb_kernel_free (k);
    ci_fb_image_free (fi);
  }
  free (err);
  g_unlink (path);
  g_free (path);
  ci_image_free (img);
  k = ci_fb_kernel_for_frame (&g, NULL, 0.1f, -1, -1, 1920, 1080, 1);
  CiFbRef *r = ci_fb_ref_new ();
  ci_fb_ref_set_kernel (r, k, 1920, 1080, 1);
  int nx, ny;
  ci_fb_ref_grid (r, &nx, &ny);
  printf ("default kernel at 1920x1080: %dx%d texels, FFT grid %dx%d\n",
      k->width, k->height, nx, ny);
  EXPECT (nx >= 1920 + 96 && ny >= 1080 + 96, "grid too small");
  ci_fb_ref_free (r);
  ci_fb_kernel_free (k);
}

/* An image kernel resampled to W'xH' as docs/fftbloom.md writes it out,
 * then each plane over its double sum: Sx x Sy bilinear samples a texel
 * (S = ceil (f) + 1, 1 on an axis whose size stays), the four texels
 * around a sample in the order given, outside the image 0. */
static float *
doc_resample (const CiFbImage * img, int ow, int oh)
{
  const int ch = img->channels, n = ow * oh;
  const float fx = (float) img->width / ow, fy = (float) img->height / oh;
  const int sx = fx == 1.0f ? 1 : (int) ceilf (fx) + 1;
  const int sy = fy == 1.0f ? 1 : (int) ceilf (fy) + 1;
  float *out = g_malloc ((size_t) n * ch * sizeof (float));
  for (int c = 0; c < ch; c++) {
    double sum = 0;
    for (int j = 0; j < oh; j++)
      for (int i = 0; i < ow; i++) {
        float acc = 0.0f;
        for (int b = 0; b < sy; b++)
          for (int a = 0; a < sx; a++) {
            const float x = (i + (a + 0.5f) / sx) * fx - 0.5f;
            const float y = (j + (b + 0.5f) / sy) * fy - 0.5f;
            const int x0 = (int) floorf (x), y0 = (int) floorf (y);
            const float ax = x - x0, ay = y - y0;
            const int tx[4] = { x0, x0 + 1, x0, x0 + 1 };
            const int ty[4] = { y0, y0, y0 + 1, y0 + 1 };
            const float wx[4] = { 1 - ax, ax, 1 - ax, ax };
            const float wy[4] = { 1 - ay, 1 - ay, ay, ay };
            float v = 0.0f;
            for (int t = 0; t < 4; t++)
              if (tx[t] >= 0 && ty[t] >= 0 && tx[t] < img->width
                  && ty[t] < img->height)
                v += (wx[t] * wy[t]) * img->data[((size_t) ty[t] * img->width
                        + tx[t]) * ch + c];
            acc += v;
          }
        out[(size_t) c * n + j * ow + i] = acc / (float) (sx * sy);
        sum += out[(size_t) c * n + j * ow + i];
      }
    for (int i = 0; i < n; i++)
      out[(size_t) c * n + i] = (float) (out[(size_t) c * n + i] / sum);
  }
  return out;
}

/* The image kernel's geometry (docs/fftbloom.md, image kernel): the
 * resampled size (W' = lround (W x B' / B)), its texels against the
 * resampling written out above, the centre "x,y" (lround (x (W' - 1)),
 * lround (y (H' - 1))), "auto" on a tie (the first in raster order) and
 * B' from kernel-size and the resolution divisor, kernel-size > 0 giving
 * at least one texel and 0 at 1/4 (B + 2) div 4. */
static void
test_kernel_geometry (void)
{
  static const struct
  {
    int w, h, size, ow, oh;
  } rs[] = { {9, 5, 18, 18, 10}, {9, 5, 4, 4, 2}, {9, 5, 12, 12, 7},
  {10, 3, 9, 9, 3}, {3, 10, 9, 3, 9}
  };
  for (unsigned i = 0; i < G_N_ELEMENTS (rs); i++) {
    CiFbImage img = { rs[i].w, rs[i].h, 3, NULL };
    img.data = g_malloc ((size_t) rs[i].w * rs[i].h * 3 * sizeof (float));
    uint64_t st = 90 + i;
    for (int t = 0; t < rs[i].w * rs[i].h * 3; t++)
      img.data[t] = (float) ((ci_rand_next (&st) >> 40) / (double) (1 << 24));
    CiFbKernel *k = ci_fb_kernel_from_image (&img, rs[i].size, 0.5f, 0.5f);
    EXPECT (k && k->width == rs[i].ow && k->height == rs[i].oh, "%dx%d to "
        "%d: %dx%d, want %dx%d", rs[i].w, rs[i].h, rs[i].size,
        k ? k->width : -1, k ? k->height : -1, rs[i].ow, rs[i].oh);
    if (k && k->width == rs[i].ow && k->height == rs[i].oh) {
      float *want = doc_resample (&img, rs[i].ow, rs[i].oh);
      double worst = 0;
      for (int t = 0; t < rs[i].ow * rs[i].oh * 3; t++)
        worst = fmax (worst, fabs (k->data[t] - want[t]) / want[t]);
      EXPECT (worst < 1e-5, "%dx%d to %dx%d: texels off the documented "
          "resampling by %.3g (relative)", rs[i].w, rs[i].h, rs[i].ow,
          rs[i].oh, worst);
      g_free (want);
    }
    ci_fb_kernel_free (k);
    g_free (img.data);
  }

  /* centre "x,y" on an 18x10 kernel (x, y unequal, odd and even sides) */
  float texels[9 * 5];
  for (int t = 0; t < 9 * 5; t++)
    texels[t] = 0.1f + (t % 7) * 0.01f;
  CiFbImage grey = { 9, 5, 1, texels };
  static const struct
  {
    int size;
    float x, y;
    int cx, cy;
  } cs[] = { {18, 0.25f, 0.75f, 4, 7}, {0, 1.0f, 0.0f, 8, 0},
  {4, 0.5f, 0.5f, 2, 1}, {0, 0.3f, 0.6f, 2, 2}
  };
  for (unsigned i = 0; i < G_N_ELEMENTS (cs); i++) {
    CiFbKernel *k = ci_fb_kernel_from_image (&grey, cs[i].size, cs[i].x,
        cs[i].y);
    EXPECT (k && k->cx == cs[i].cx && k->cy == cs[i].cy, "centre \"%g,%g\" "
        "of a %dx%d kernel: (%d, %d), want (%d, %d)", cs[i].x, cs[i].y,
        k ? k->width : -1, k ? k->height : -1, k ? k->cx : -1,
        k ? k->cy : -1, cs[i].cx, cs[i].cy);
    ci_fb_kernel_free (k);
  }
  /* "auto": two texels share the largest value; the first one wins */
  texels[1 * 9 + 6] = texels[3 * 9 + 2] = 5.0f;
  CiFbKernel *k = ci_fb_kernel_from_image (&grey, 0, -1, -1);
  EXPECT (k && k->cx == 6 && k->cy == 1, "auto centre on a tie: (%d, %d), "
      "want the first in raster order (6, 1)", k ? k->cx : -1, k ? k->cy : -1);
  ci_fb_kernel_free (k);

  /* B' (larger side) for a frame; kernel-size, frame, divisor */
  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  static const struct
  {
    float ks;
    int w, h, s, kw, kh;
  } fs[] = {
    {0.05f, 640, 480, 2, 16, 9},        /* lround (0.05 x 640 / 2) = 16 */
    {0.001f, 64, 48, 1, 1, 1},  /* lround (0.064) = 0: one texel */
    {0.0f, 640, 480, 4, 2, 1},  /* (9 + 2) div 4 = 2 */
    {0.0f, 640, 480, 1, 9, 5},  /* its own size */
  };
  for (unsigned i = 0; i < G_N_ELEMENTS (fs); i++) {
    k = ci_fb_kernel_for_frame (&g, &grey, fs[i].ks, -1, -1, fs[i].w,
        fs[i].h, fs[i].s);
    EXPECT (k && k->width == fs[i].kw && k->height == fs[i].kh,
        "kernel-size %g, %dx%d at 1/%d: a %dx%d kernel, want %dx%d",
        fs[i].ks, fs[i].w, fs[i].h, fs[i].s, k ? k->width : -1,
        k ? k->height : -1, fs[i].kw, fs[i].kh);
    ci_fb_kernel_free (k);
  }
}

/* the sRGB curve of v in [0, 1] (IEC 61966-2-1), in double; below, of an
 * 8-bit code */
static double
srgb_code_to_linear_v (double v)
{
  return v <= 0.04045 ? v / 12.92 : pow ((v + 0.055) / 1.055, 2.4);
}

static double
srgb_code_to_linear (int code)
{
  return srgb_code_to_linear_v (code / 255.0);
}

/* The alpha of an 8-bit PNG kernel weights its texels (docs/fftbloom.md,
 * image kernel: texel = sRGB-decoded code/255 x alpha/255), checked on the
 * loader's texels, before the kernel's normalisation would hide a common
 * factor: RGBA and grey + alpha, alpha 255, 128, 1 and 0 on colours that
 * are not black (an alpha-0 texel adds no light whatever its colour). */
static void
test_png_alpha (void)
{
  static const uint8_t alpha[4] = { 255, 128, 1, 0 };
  static const uint8_t rgb[4][3] = { {200, 100, 30}, {200, 100, 30},
  {255, 255, 255}, {90, 180, 250}
  };
  gchar *path = g_build_filename (g_get_tmp_dir (),
      "fftbloom-alpha-kernel-test.png", NULL);
  for (int grey = 0; grey <= 1; grey++) {
    const int in_ch = grey ? 2 : 4, ch = grey ? 1 : 3;
    CiImage *img = ci_image_new (4, 1, in_ch, 1);
    for (int x = 0; x < 4; x++) {
      for (int c = 0; c < ch; c++)
        img->data[x * in_ch + c] = rgb[x][c];
      img->data[x * in_ch + ch] = alpha[x];
    }
    EXPECT (ci_image_save_png (img, path), "save png");
    char *err = NULL;
    CiFbImage *fi = ci_fb_image_load_png (path, &err);
    EXPECT (fi && fi->width == 4 && fi->height == 1 && fi->channels == ch,
        "%s png: %s", grey ? "GA" : "RGBA", err ? err : "geometry");
    for (int x = 0; fi && x < 4; x++)
      for (int c = 0; c < ch; c++) {
        const double want = srgb_code_to_linear (rgb[x][c]) * alpha[x] / 255.0;
        const double got = fi->data[x * ch + c];
        EXPECT (fabs (got - want) <= 1e-6 * want + 1e-9, "%s png texel %d "
            "channel %d (code %d, alpha %d): %.7g, want %.7g",
            grey ? "GA" : "RGBA", x, c, rgb[x][c], alpha[x], got, want);
      }
    ci_fb_image_free (fi);
    free (err);
    ci_image_free (img);
    g_unlink (path);
  }
  g_free (path);
}

/* A 16-bit PNG written here byte by byte (big-endian samples, as the PNG
 * format stores them), grey or RGB, + alpha when @alpha, with an sRGB chunk
 * when @srgb, Adam7-interlaced when @interlace. */
static gboolean
write_png16_full (const char *path, int w, int h, int grey, int alpha,
    int srgb, int interlace, const uint16_t * samples)
{
  const int in_ch = (grey ? 1 : 3) + (alpha ? 1 : 0);
  FILE *f = fopen (path, "wb");
  if (!f)
    return FALSE;
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL,
      NULL, NULL);
  png_infop info = png_create_info_struct (png);
  uint8_t *row = g_malloc ((size_t) w * in_ch * 2);
  if (setjmp (png_jmpbuf (png))) {
    png_destroy_write_struct (&png, &info);
    fclose (f);
    g_free (row);
    return FALSE;
  }
  png_init_io (png, f);
  png_set_IHDR (png, info, w, h, 16, (grey ? PNG_COLOR_TYPE_GRAY :
          PNG_COLOR_TYPE_RGB) | (alpha ? PNG_COLOR_MASK_ALPHA : 0),
      interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
      PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (srgb)
    png_set_sRGB (png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  png_write_info (png, info);
  const int passes = png_set_interlace_handling (png);
  for (int pass = 0; pass < passes; pass++)
    for (int y = 0; y < h; y++) {
      for (int i = 0; i < w * in_ch; i++) {
        const uint16_t v = samples[(size_t) y * w * in_ch + i];
        row[2 * i] = (uint8_t) (v >> 8);
        row[2 * i + 1] = (uint8_t) (v & 0xff);
      }
      png_write_row (png, row);
    }
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  fclose (f);
  g_free (row);
  return TRUE;
}

static gboolean
write_png16 (const char *path, int w, int h, int grey, int srgb,
    const uint16_t * samples)
{
  return write_png16_full (path, w, h, grey, 1, srgb, 0, samples);
}

/* 16-bit sRGB files read outside libpng's simplified API: without alpha
 * (opaque), interlaced (a 5x3 Adam7 image), and a truncated file, which
 * is an error naming the file, not a crash. */
static void
test_png16_srgb_forms (void)
{
  gchar *path = g_build_filename (g_get_tmp_dir (),
      "fftbloom-png16-srgb-forms.png", NULL);
  uint16_t s[5 * 3 * 3];
  for (int i = 0; i < 5 * 3 * 3; i++)
    s[i] = (uint16_t) (0x0123 + 4099 * i);
  for (int k = 0; k < 2; k++) {
    const int w = k ? 5 : 2, h = k ? 3 : 1;
    EXPECT (write_png16_full (path, w, h, 0, 0, 1, k, s), "write");
    char *err = NULL;
    CiFbImage *fi = ci_fb_image_load_png (path, &err);
    EXPECT (fi && fi->width == w && fi->height == h && fi->channels == 3,
        "RGB16 sRGB%s png: %s", k ? " interlaced" : "", err ? err : "geometry");
    for (int i = 0; fi && i < w * h * 3; i++) {
      const double want = srgb_code_to_linear_v (s[i] / 65535.0);
      EXPECT (fabs (fi->data[i] - want) <= 2e-6 * want + 1e-9, "RGB16 sRGB%s "
          "sample %d (0x%04x): %.7g, want %.7g", k ? " interlaced" : "", i,
          s[i], fi->data[i], want);
    }
    ci_fb_image_free (fi);
    free (err);
  }
  /* the header and a part of the data only */
  gchar *bytes;
  gsize n;
  EXPECT (g_file_get_contents (path, &bytes, &n, NULL), "read back");
  EXPECT (g_file_set_contents (path, bytes, n / 2 > 60 ? n / 2 : 60, NULL),
      "truncate");
  g_free (bytes);
  char *err = NULL;
  CiFbImage *fi = ci_fb_image_load_png (path, &err);
  EXPECT (fi == NULL && err && strstr (err, path), "truncated 16-bit sRGB "
      "png: %s", fi ? "loaded" : err ? err : "no message");
  ci_fb_image_free (fi);
  free (err);
  g_unlink (path);
  g_free (path);
}

/* A 16-bit PNG kernel (docs/fftbloom.md, image kernel): without a gAMA or
 * sRGB chunk the codes are linear, texel = code/65535 with libpng's
 * premultiplied alpha (code x alpha/65535, to 16 bits); with an sRGB chunk
 * the IEC curve of code/65535 times alpha/65535, as for 8-bit files
 * (libpng's simplified API would take a 2.2 power: 0x1234 gave 0.0029755,
 * the curve 0.0061090). Grey + alpha gives one plane, RGBA
 * three in the order R, G, B. The codes' two bytes differ, so a byte swap
 * shows; opaque texels are exact. */
static void
test_png16 (void)
{
  /* per texel: R, G, B (grey: R), alpha */
  static const uint16_t px[4][4] = {
    {0x1234, 0xC0DE, 0x0A0B, 65535}, {0xFEDC, 0x3456, 0x789A, 65535},
    {0x8000, 0x4000, 0x2000, 0x8000}, {0xFFFF, 0xFFFF, 0xFFFF, 0}
  };
  gchar *path = g_build_filename (g_get_tmp_dir (),
      "fftbloom-png16-kernel-test.png", NULL);
  for (int k = 0; k < 4; k++) {
    const int grey = k & 1, srgb = k >> 1, in_ch = grey ? 2 : 4;
    const int ch = grey ? 1 : 3;
    const char *what = grey ? (srgb ? "GA16 sRGB" : "GA16") :
        (srgb ? "RGBA16 sRGB" : "RGBA16");
    uint16_t samples[4 * 4];
    for (int x = 0; x < 4; x++) {
      for (int c = 0; c < ch; c++)
        samples[x * in_ch + c] = px[x][c];
      samples[x * in_ch + ch] = px[x][3];
    }
    EXPECT (write_png16 (path, 4, 1, grey, srgb, samples), "write %s", what);
    char *err = NULL;
    CiFbImage *fi = ci_fb_image_load_png (path, &err);
    EXPECT (fi && fi->width == 4 && fi->height == 1 && fi->channels == ch,
        "%s png: %s", what, err ? err : "geometry");
    for (int x = 0; fi && x < 4; x++)
      for (int c = 0; c < ch; c++) {
        const double v = px[x][c] / 65535.0, a = px[x][3] / 65535.0;
        const double lin = srgb ? srgb_code_to_linear_v (v) : v;
        const double want = lin * a, got = fi->data[x * ch + c];
        /* opaque linear: the code itself; sRGB: float arithmetic;
         * otherwise libpng's 16-bit premultiplication rounds to 1/65535 */
        const double tol = srgb ? 2e-6 * want + 1e-9 : (px[x][3] == 65535 ?
            1e-6 * want : 1.01 / 65535);
        EXPECT (fabs (got - want) <= tol, "%s png texel %d channel %d (code "
            "0x%04x, alpha %u): %.7g, want %.7g", what, x, c, px[x][c],
            px[x][3], got, want);
      }
    ci_fb_image_free (fi);
    free (err);
    g_unlink (path);
  }
  g_free (path);
}

/* A glare kernel of radius 40 with @g's shape and the given shares. */
static CiFbKernel *
glare_with (const CiFbGlare * g, float halo, float spike)
{
  CiFbGlare h = *g;
  h.halo_strength = halo;
  h.spike_strength = spike;
  CiFbKernel *k = ci_fb_kernel_glare (&h, 40);
  g_assert (k != NULL);
  return k;
}

/* The energy shares of the glare's parts (docs/fftbloom.md): the kernel is
 * core, halo and rays, each over its own sum, weighted by 1 - e - f, e =
 * halo-strength, f = spike-strength, both divided by e + f when it is
 * over 1, and f = 0 (its share to the core) without rays. The parts alone
 * are the kernels with one share 1 (halo 0 + spike 0: core; halo 1: halo;
 * spike 1: rays); the shares of a mixed kernel are found from them by least
 * squares and compared with the rule computed here. */
static void
test_glare_shares (void)
{
  static const struct
  {
    const char *what;
    float halo, spike;
    int count;
    double want[3];             /* core, halo, rays */
  } cases[] = {
    {"defaults", 0.35f, 0.15f, 6, {0.5, 0.35, 0.15}},
    /* e + f = 1.3: both divided by it, no core */
    {"halo 0.7 + spikes 0.6", 0.7f, 0.6f, 6, {0.0, 0.7 / 1.3, 0.6 / 1.3}},
    /* no rays: spike-strength's share goes to the core */
    {"spike-count 0, spikes 0.3", 0.35f, 0.3f, 0, {0.65, 0.35, 0.0}},
  };
  for (unsigned c = 0; c < G_N_ELEMENTS (cases); c++) {
    CiFbGlare g;
    ci_fb_glare_defaults (&g);
    g.spike_count = cases[c].count;
    CiFbKernel *k = glare_with (&g, cases[c].halo, cases[c].spike);
    CiFbKernel *part[3] = { glare_with (&g, 0.0f, 0.0f),
      glare_with (&g, 1.0f, 0.0f), NULL
    };
    /* without rays there is no ray part to fit (its kernel is refused) */
    int np = cases[c].count > 0 ? 3 : 2;
    if (np == 3)
      part[2] = glare_with (&g, 0.0f, 1.0f);
    /* normal equations A x = b, solved by Gaussian elimination */
    double a[3][4] = { {0} };
    const int n = k->width * k->height;
    for (int i = 0; i < n; i++)
      for (int u = 0; u < np; u++) {
        for (int v = 0; v < np; v++)
          a[u][v] += (double) part[u]->data[i] * part[v]->data[i];
        a[u][np] += (double) part[u]->data[i] * k->data[i];
      }
    for (int u = 0; u < np; u++)
      for (int v = u + 1; v < np; v++) {
        double f = a[v][u] / a[u][u];
        for (int j = u; j <= np; j++)
          a[v][j] -= f * a[u][j];
      }
    double x[3] = { 0, 0, 0 };
    for (int u = np - 1; u >= 0; u--) {
      double t = a[u][np];
      for (int j = u + 1; j < np; j++)
        t -= a[u][j] * x[j];
      x[u] = t / a[u][u];
    }
    double worst = 0;
    for (int t = 0; t < 3; t++)
      worst = MAX (worst, fabs (x[t] - cases[c].want[t]));
    printf ("glare shares, %s: core %.4f halo %.4f rays %.4f (want %.4f %.4f "
        "%.4f)\n", cases[c].what, x[0], x[1], x[2], cases[c].want[0],
        cases[c].want[1], cases[c].want[2]);
    EXPECT (worst < 1e-4, "glare shares, %s: core %g halo %g rays %g, want "
        "%g %g %g", cases[c].what, x[0], x[1], x[2], cases[c].want[0],
        cases[c].want[1], cases[c].want[2]);
    for (int u = 0; u < 3; u++)
      ci_fb_kernel_free (part[u]);
    ci_fb_kernel_free (k);
  }
}

/* The radial profiles of the glare's parts against docs/fftbloom.md's
 * formulas, computed here in double: each part alone (radius R = 40,
 * rho = R + 1/2), texels along the +x axis relative to one nearer the
 * centre, so the normalisation cancels. Window Phi = (1 - (r/rho)^2)^2;
 * core exp(-r^2 / (2 sigma^2)) Phi; halo Phi / q^1.5, q = 1 + r^2 /
 * lambda^2; one ray at 0 degrees, exp(-p^2 / (2 omega^2)) exp(-3 t / rho)
 * Phi, t along it, p across. A float kernel keeps these ratios within
 * 1e-6 or so; a halo falling as 1/q or a ray decaying as exp(-2 t / rho)
 * misses them by factors of 2 or more. */
static double
glare_window (double r, double rho)
{
  double u = 1.0 - (r / rho) * (r / rho);
  return r < rho ? u * u : 0.0;
}

static void
test_glare_profiles (void)
{
  const int R = 40, d = 2 * R + 1;
  const double rho = R + 0.5;
  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  g.core_size = 0.1f;
  g.halo_size = 0.2f;
  g.spike_count = 1;
  g.spike_angle = 0.0f;
  g.spike_width = 0.05f;
  const double sigma = (double) g.core_size * rho;
  const double lambda = (double) g.halo_size * rho;
  const double omega = (double) g.spike_width * rho;
  g_assert (sigma > 0.5 && lambda > 0.5 && omega > 0.5);
  CiFbKernel *core = glare_with (&g, 0.0f, 0.0f);
  CiFbKernel *halo = glare_with (&g, 1.0f, 0.0f);
  CiFbKernel *ray = glare_with (&g, 0.0f, 1.0f);
#define AT(k, x, y) ((double) (k)->data[(R + (y)) * d + R + (x)])
  double wc = 0, wh = 0, wr = 0, wp = 0;
  /* core and halo: r = 1 .. R - 1 against the centre (core: to 3 sigma) */
  for (int r = 1; r < R; r++) {
    double phi = glare_window (r, rho);
    if (r <= 3 * sigma) {
      double want = exp (-(double) r * r / (2 * sigma * sigma)) * phi;
      wc = MAX (wc, fabs (AT (core, r, 0) / AT (core, 0, 0) / want - 1));
    }
    double q = 1.0 + (double) r * r / (lambda * lambda);
    double want = phi / (q * sqrt (q));
    wh = MAX (wh, fabs (AT (halo, r, 0) / AT (halo, 0, 0) / want - 1));
  }
  /* the ray along +x: t = 2 .. R - 1 against t = 1 (the ray's weight is
   * whole from t = 1/2 on), and across it at t = 10 */
  for (int t = 2; t < R; t++) {
    double want = glare_window (t, rho) * exp (-3.0 * t / rho) /
        (glare_window (1, rho) * exp (-3.0 / rho));
    wr = MAX (wr, fabs (AT (ray, t, 0) / AT (ray, 1, 0) / want - 1));
  }
  for (int p = 1; p <= 4; p++) {
    double want = exp (-(double) p * p / (2 * omega * omega)) *
        glare_window (sqrt (100.0 + p * p), rho) / glare_window (10, rho);
    wp = MAX (wp, fabs (AT (ray, 10, p) / AT (ray, 10, 0) / want - 1));
  }
#undef AT
  printf ("glare profiles against the formulas: max relative error core %.1e, "
      "halo %.1e, ray along %.1e, across %.1e\n", wc, wh, wr, wp);
  EXPECT (wc < 1e-4, "glare core profile off by %g (relative)", wc);
  EXPECT (wh < 1e-4, "glare halo profile off by %g (relative)", wh);
  EXPECT (wr < 1e-4, "glare ray profile along the ray off by %g (relative)",
      wr);
  EXPECT (wp < 1e-4, "glare ray profile across the ray off by %g (relative)",
      wp);
  ci_fb_kernel_free (core);
  ci_fb_kernel_free (halo);
  ci_fb_kernel_free (ray);
}

/* The reference's bright pass (blocks of pixels, four a step) gives each
 * texel the mean of its pixels' rgb * ci_fb_bright_factor, summed row by
 * row, left to right, bit for bit: odd widths (the lanes' tails), rows
 * past one block, clipped texels at the edges, knee 0 and threshold 0,
 * 8 and 16-bit, every resolution scale. */
static void
test_bright_bits (void)
{
  static const float tk[][2] = { {0.35f, 0.5f}, {0.0f, 0.5f}, {0.6f, 0.0f},
  {0.9f, 1.0f}, {0.05f, 0.3f}
  };
  static const int sizes[][2] = { {1, 1}, {3, 2}, {257, 3}, {523, 5},
  {1031, 7}
  };
  const CiFbFormat *fmts[] = { &fmt_rgba, &fmt_argb, &fmt_rgba64_lin,
    &fmt_rgba64_srgb
  };
  long bad = 0, n = 0;
  for (unsigned f = 0; f < 4; f++)
    for (unsigned z = 0; z < 5; z++)
      for (unsigned t = 0; t < 5; t++)
        for (int sc = 1; sc <= 4; sc *= 2) {
          const CiFbFormat *fmt = fmts[f];
          int width = sizes[z][0], height = sizes[z][1];
          int bytes = fmt->bytes_per_sample;
          int w = ci_fb_scaled (width, sc), h = ci_fb_scaled (height, sc);
          size_t stride = (size_t) width * 4 * bytes;
          uint8_t *in = g_malloc (stride * height);
          ci_fill_random (in, stride * height, 100 * f + 10 * z + t + sc);
          float *pl = g_malloc (sizeof (float) * 3 * w * h);
          CiFbParams p = { 1.0f, tk[t][0], tk[t][1] };
          ci_fb_ref_bright (in, stride, width, height, sc, fmt, &p, pl);
          const int off[3] = { fmt->off_r, fmt->off_g, fmt->off_b };
          for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
              float acc[3] = { 0, 0, 0 };
              int cnt = 0;
              for (int y = j * sc; y < (j + 1) * sc && y < height; y++)
                for (int x = i * sc; x < (i + 1) * sc && x < width; x++) {
                  float rgb[3];
                  for (int c = 0; c < 3; c++) {
                    const uint8_t *q = in + y * stride + ((size_t) x * 4 +
                        off[c]) * bytes;
                    rgb[c] = ci_fb_decode (bytes == 1 ? q[0] : q[0] | q[1] <<
                        8, bytes, fmt->srgb);
                  }
                  float fa = ci_fb_bright_factor (rgb[0], rgb[1], rgb[2],
                      p.threshold, p.knee);
                  for (int c = 0; c < 3; c++) {
                    float prod = rgb[c] * fa;
                    acc[c] += prod;
                  }
                  cnt++;
                }
              for (int c = 0; c < 3; c++) {
                float want = acc[c] / (float) cnt;
                float got = pl[(size_t) c * w * h + (size_t) j * w + i];
                bad += memcmp (&want, &got, sizeof want) != 0;
                n++;
              }
            }
          g_free (pl);
          g_free (in);
        }
  EXPECT (bad == 0, "bright pass: %ld of %ld texels differ from the "
      "plain sums", bad, n);
  printf ("bright pass: %ld texels (scales 1, 2, 4), %ld differ from the "
      "plain sums\n", n, bad);
}

int
main (int argc, char **argv)
{
  test_transfer ();
  test_bright_bits ();
  test_vs_naive ();
  test_kernel_cut ();
  test_delta ();
  test_energy ();
  test_no_wrap ();
  test_kernels ();
  test_kernel_geometry ();
  test_png_alpha ();
  test_png16 ();
  test_png16_srgb_forms ();
  test_glare_shares ();
  test_glare_profiles ();
  if (failures)
    fprintf (stderr, "%d failure(s)\n", failures);
  else
    printf ("all fftbloom reference tests passed\n");
  return failures ? 1 : 0;
}
