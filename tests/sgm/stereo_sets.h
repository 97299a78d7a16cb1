/* The Middlebury stereo sets of tests/sgm/data as the SGM accuracy test and
 * bench-sgm-cpu use them: file names, search range, ground truth scale,
 * OpenCV StereoSGBM's bad-2 (issue 3); loading and the luma description.
 * Needs citest.h and reference/sgm.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

typedef struct
{
  const char *name, *left, *right, *gt;
  int gt_scale, num_disp;
  double opencv_bad2;
  /* the defaults' bad-2 as docs/sgm.md records it: the accuracy test fails
   * on any worsening (the arithmetic is integer, so it is reproducible) */
  double recorded_bad2;
} Set;

static const Set sets[] = {
  {"tsukuba", "im3.png", "im4.png", "disp3.pgm", 16, 16, 5.2, 4.23},
  {"venus", "im2.png", "im6.png", "disp2.pgm", 8, 32, 9.4, 3.77},
  {"cones", "im2.png", "im6.png", "disp2.png", 4, 64, 22.2, 13.03},
};

static CiImage *
load (const char *dir, const char *set, const char *file)
{
  gchar *path = g_build_filename (dir, set, file, NULL);
  CiImage *img = g_str_has_suffix (file, ".png") ? ci_image_load_png (path) :
      ci_image_load_pnm (path);
  if (!img)
    printf ("cannot load %s\n", path);
  g_free (path);
  return img;
}

static SgmLuma
luma_of (const CiImage * img)
{
  SgmLuma l = { SGM_LUMA_GRAY8, 1, 0, 0, 0 };
  if (img->channels >= 3) {
    l.kind = SGM_LUMA_RGB;
    l.pixel_stride = img->channels;
    l.r = 0;
    l.g = 1;
    l.b = 2;
  }
  return l;
}
