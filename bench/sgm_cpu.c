/* SGM C reference speed (what cpusgm runs per frame): sgm_ref_compute with
 * the element's defaults on Middlebury tsukuba, venus and cones (D = 16, 32,
 * 64, the images as tests/sgm/accuracy.c uses them), one thread, best of N
 * runs after one warm-up.  CPU only.  docs/sgm.md ("CPU reference speed")
 * has the table and the OpenCV StereoSGBM settings it is compared with.
 *   bench-sgm-cpu [DATA_DIR [runs]]   (DATA_DIR: tests/sgm/data)
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../reference/sgm.h"
#include "citest.h"

#include "../tests/sgm/stereo_sets.h"

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : CI_SOURCE_DIR "/tests/sgm/data";
  const int runs = argc > 2 ? atoi (argv[2]) : 9;
  printf ("| set | size | D | reference ms (best of %d) |\n|---|---|---|---|\n",
      runs);
  for (size_t s = 0; s < G_N_ELEMENTS (sets); s++) {
    CiImage *l = load (dir, sets[s].name, sets[s].left);
    CiImage *r = load (dir, sets[s].name, sets[s].right);
    if (!l || !r || l->bytes_per_sample != 1 || l->width != r->width ||
        l->height != r->height || l->channels != r->channels) {
      printf ("cannot use %s\n", sets[s].name);
      return 1;
    }
    const SgmLuma luma = luma_of (l);
    SgmParams p;
    sgm_params_init (&p, l->width, l->height);
    p.num_disp = sets[s].num_disp;
    int16_t *disp = malloc ((size_t) l->width * l->height * sizeof *disp);
    double best = 1e30;
    for (int i = 0; i <= runs; i++) {
      double t0 = now_ms ();
      if (sgm_ref_compute (&p, l->data, l->stride, r->data, r->stride, luma,
              disp) < 0) {
        printf ("sgm_ref_compute failed\n");
        return 1;
      }
      double t = now_ms () - t0;
      if (i > 0 && t < best)    /* run 0 warms up */
        best = t;
    }
    printf ("| %s | %dx%d | %d | %.1f |\n", sets[s].name, l->width,
        l->height, p.num_disp, best);
    free (disp);
    ci_image_free (l);
    ci_image_free (r);
  }
  return 0;
}
