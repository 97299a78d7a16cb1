/* Writes the documentation pictures (docs/img/tonemap-*.png) from the
 * synthetic HDR10 scene with the C reference, and the scene itself as a
 * 16-bit PQ PNG for the launch-line example.
 * Usage: tonemap-demo OUTDIR [width height]
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "citest.h"
#include "tonemap.h"
#include "tmscene.h"

int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  const int w = argc > 3 ? atoi (argv[2]) : 480;
  const int h = argc > 3 ? atoi (argv[3]) : 270;
  static const int ops[] = { CI_TM_OP_CLIP, CI_TM_OP_HISTOGRAM,
    CI_TM_OP_REINHARD, CI_TM_OP_HABLE, CI_TM_OP_BT2390
  };
  const int nops = 5;
  TmFrame *in = tm_frame_new_in (CI_TM_IN_RGBA64, w, h, 0);
  tm_fill_scene (in, 0, 0, 1);
  /* the scene: RGBA64 PQ BT.2020, as a 16-bit RGBA PNG */
  CiImage *png16 = ci_image_new (w, h, 4, 2);
  for (int y = 0; y < h; y++)
    memcpy (png16->data + (size_t) y * png16->stride,
        in->plane[0] + (size_t) y * in->stride[0], (size_t) w * 8);
  gchar *p = g_strdup_printf ("%s/tonemap-scene-pq16.png", dir);
  if (!ci_image_save_png (png16, p))
    return 1;
  g_free (p);
  /* 3 x 2 mosaic: clip, histogram, reinhard / hable, bt2390, (blank) */
  CiImage *mosaic = ci_image_new (3 * w, 2 * h, 3, 1);
  memset (mosaic->data, 40, mosaic->stride * 2 * h);
  for (int k = 0; k < nops; k++) {
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, w, h);
    cfg.op = ops[k];
    cfg.smoothing = 0;
    CiTonemap *tm = ci_tonemap_new (&cfg);
    TmFrame *out = tm_frame_new_out (CI_TM_OUT_RGBA, w, h, 0);
    CiTmInPlanes ip;
    CiTmOutPlanes op;
    tm_frame_in_planes (in, &ip);
    tm_frame_out_planes (out, &op);
    ci_tonemap_process (tm, &ip, &op);
    int ox = (k % 3) * w, oy = (k / 3) * h;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        memcpy (mosaic->data + (size_t) (oy + y) * mosaic->stride +
            3 * (ox + x), out->plane[0] + (size_t) y * out->stride[0] + 4 * x,
            3);
    ci_tonemap_free (tm);
    tm_frame_free (out);
  }
  p = g_strdup_printf ("%s/tonemap-operators.png", dir);
  if (!ci_image_save_png (mosaic, p))
    return 1;
  printf ("wrote %s (top: clip, histogram, reinhard; bottom: hable, bt2390)\n",
      p);
  g_free (p);
  ci_image_free (mosaic);
  ci_image_free (png16);
  tm_frame_free (in);
  return 0;
}
