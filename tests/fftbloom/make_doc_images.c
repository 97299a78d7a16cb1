/* Writes the pictures of docs/fftbloom.md: a synthetic night scene with
 * lights, bloomed by the C reference with the procedural glare and with an
 * RGB image kernel (also written, usable as kernel-location).
 * Usage: make-fftbloom-doc-images OUTDIR
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "citest.h"
#include "../../reference/fftbloom.h"

#define W 960
#define H 540

static float scene[H][W][3];    /* linear light */

static void
add_disc (float cx, float cy, float r, float cr, float cg, float cb)
{
  for (int y = (int) (cy - r - 2); y <= (int) (cy + r + 2); y++)
    for (int x = (int) (cx - r - 2); x <= (int) (cx + r + 2); x++) {
      if (x < 0 || y < 0 || x >= W || y >= H)
        continue;
      float d = hypotf (x + 0.5f - cx, y + 0.5f - cy);
      float cov = fminf (fmaxf (r + 0.5f - d, 0.0f), 1.0f);
      scene[y][x][0] = scene[y][x][0] * (1 - cov) + cr * cov;
      scene[y][x][1] = scene[y][x][1] * (1 - cov) + cg * cov;
      scene[y][x][2] = scene[y][x][2] * (1 - cov) + cb * cov;
    }
}

static void
fill_rect (int x0, int y0, int x1, int y1, float r, float g, float b)
{
  for (int y = y0 < 0 ? 0 : y0; y < y1 && y < H; y++)
    for (int x = x0 < 0 ? 0 : x0; x < x1 && x < W; x++) {
      scene[y][x][0] = r;
      scene[y][x][1] = g;
      scene[y][x][2] = b;
    }
}

static void
make_scene (void)
{
  uint64_t s = 1234;
  /* sky: deep blue, a little lighter at the horizon */
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      float t = (float) y / H;
      scene[y][x][0] = 0.002f + 0.006f * t;
      scene[y][x][1] = 0.003f + 0.008f * t;
      scene[y][x][2] = 0.012f + 0.02f * t;
    }
  /* stars */
  for (int i = 0; i < 120; i++) {
    int x = ci_rand_next (&s) % W, y = ci_rand_next (&s) % (H / 2);
    float v = 0.05f + (ci_rand_next (&s) % 100) / 200.0f;
    scene[y][x][0] = scene[y][x][1] = scene[y][x][2] = v;
  }
  add_disc (780, 80, 22, 0.9f, 0.88f, 0.75f);   /* moon */
  /* buildings with lit windows */
  int x = 0;
  while (x < W) {
    int bw = 60 + ci_rand_next (&s) % 90, bh = 140 + ci_rand_next (&s) % 220;
    int top = H - 90 - bh;
    fill_rect (x, top, x + bw - 4, H - 90, 0.004f, 0.004f, 0.006f);
    for (int wy = top + 10; wy < H - 100; wy += 16)
      for (int wx = x + 8; wx < x + bw - 14; wx += 12) {
        uint64_t r = ci_rand_next (&s) % 100;
        if (r < 35) {
          float k = r < 4 ? 1.0f : 0.25f + (r % 10) / 30.0f;
          fill_rect (wx, wy, wx + 6, wy + 9, k, k * 0.75f, k * 0.35f);
        }
      }
    x += bw;
  }
  /* neon sign */
  fill_rect (120, 250, 300, 256, 1.0f, 0.1f, 0.8f);
  fill_rect (120, 268, 300, 272, 0.1f, 0.9f, 1.0f);
  /* street: dark, lamps, cars */
  fill_rect (0, H - 90, W, H, 0.006f, 0.006f, 0.007f);
  for (int i = 0; i < 6; i++) {
    int lx = 70 + i * 165;
    fill_rect (lx - 2, H - 190, lx + 2, H - 90, 0.01f, 0.01f, 0.01f);
    add_disc (lx, H - 192, 5, 1.0f, 0.8f, 0.45f);
  }
  add_disc (300, H - 40, 4, 1.0f, 1.0f, 0.95f);  /* headlights */
  add_disc (330, H - 40, 4, 1.0f, 1.0f, 0.95f);
  add_disc (610, H - 50, 3, 1.0f, 0.05f, 0.02f); /* tail lights */
  add_disc (650, H - 50, 3, 1.0f, 0.05f, 0.02f);
  add_disc (860, H - 30, 3, 0.2f, 1.0f, 0.3f);   /* traffic light */
}

static CiImage *
encode_scene (void)
{
  CiImage *img = ci_image_new (W, H, 4, 1);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      uint8_t *p = img->data + y * img->stride + x * 4;
      for (int c = 0; c < 3; c++)
        p[c] = (uint8_t) ci_fb_encode (scene[y][x][c], 1, 1);
      p[3] = 255;
    }
  return img;
}

/* A camera-like starburst: 8 thin rays and a ring whose size grows with the
 * wavelength, so the rays end in colour fringes. 16-bit linear PNG. */
static CiImage *
make_kernel_image (int n)
{
  CiImage *img = ci_image_new (n, n, 3, 2);
  const float lambda[3] = { 1.0f, 0.85f, 0.7f };
  float c = (n - 1) / 2.0f;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      float dx = x - c, dy = y - c, r = hypotf (dx, dy) / c;
      for (int ch = 0; ch < 3; ch++) {
        float l = lambda[ch], v = 0.0f;
        v += expf (-r * r / (2 * 0.01f * l * l)) * 1.0f;
        v += 0.02f * expf (-powf ((r - 0.35f * l) / (0.03f * l), 2));
        for (int k = 0; k < 8; k++) {
          float a = k * 3.14159265f / 4 + 0.2f;
          float along = dx * cosf (a) + dy * sinf (a);
          float perp = -dx * sinf (a) + dy * cosf (a);
          if (along > 0)
            v += 0.08f * expf (-perp * perp / (2 * 0.8f)) *
                expf (-along / (c * 0.45f * l));
        }
        v *= r < 1 ? 1.0f : 0.0f;
        uint16_t q = (uint16_t) fminf (v * 65535.0f, 65535.0f);
        memcpy (img->data + y * img->stride + (x * 3 + ch) * 2, &q, 2);
      }
    }
  return img;
}

static void
bloom (CiImage * in, const CiFbKernel * k, float intensity, float threshold,
    const char *path)
{
  CiFbRef *r = ci_fb_ref_new ();
  if (ci_fb_ref_set_kernel (r, k, W, H, 1) != 0) {
    fprintf (stderr, "set_kernel failed\n");
    exit (1);
  }
  CiImage *out = ci_image_new (W, H, 4, 1);
  CiFbFormat f = { 1, 0, 1, 2, 1 };
  CiFbParams p = { intensity, threshold, 0.5f };
  ci_fb_ref_process (r, in->data, in->stride, out->data, out->stride, &f, &p);
  if (!ci_image_save_png (out, path)) {
    fprintf (stderr, "cannot write %s\n", path);
    exit (1);
  }
  printf ("wrote %s\n", path);
  ci_image_free (out);
  ci_fb_ref_free (r);
}

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  char path[4096];
  make_scene ();
  CiImage *in = encode_scene ();
  snprintf (path, sizeof path, "%s/fftbloom-scene.png", dir);
  ci_image_save_png (in, path);
  printf ("wrote %s\n", path);

  CiFbGlare g;
  ci_fb_glare_defaults (&g);
  g.spike_strength = 0.3f;      /* spike-strength=0.3 kernel-size=0.2 intensity=4 threshold=0.5 */
  CiFbKernel *k = ci_fb_kernel_for_frame (&g, NULL, 0.2f, -1, -1, W, H, 1);
  snprintf (path, sizeof path, "%s/fftbloom-glare.png", dir);
  bloom (in, k, 4.0f, 0.5f, path);
  ci_fb_kernel_free (k);

  CiImage *kimg = make_kernel_image (161);
  snprintf (path, sizeof path, "%s/fftbloom-kernel.png", dir);
  ci_image_save_png (kimg, path);
  printf ("wrote %s\n", path);
  char *err = NULL;
  CiFbImage *fi = ci_fb_image_load_png (path, &err);
  if (!fi) {
    fprintf (stderr, "%s\n", err);
    return 1;
  }
  /* kernel-location=fftbloom-kernel.png kernel-size=0.25 intensity=3 threshold=0.5 */
  k = ci_fb_kernel_for_frame (&g, fi, 0.25f, -1, -1, W, H, 1);
  snprintf (path, sizeof path, "%s/fftbloom-image-kernel.png", dir);
  bloom (in, k, 3.0f, 0.5f, path);
  ci_fb_kernel_free (k);
  ci_fb_image_free (fi);
  ci_image_free (kimg);
  ci_image_free (in);
  return 0;
}
