/* GstHarness tests of cputonemap: output identical to the C reference.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cputonemap"
#define TOLERANCE 0
#include "tonemap-checks.h"

/* n-threads, with every frame split (CI_MIN_SLICE_BYTES=1: a slice per
 * thread), odd sizes, video (statistics carried over) and still frames
 * (their own range and histogram first): the reference's bytes, one
 * thread, for any number of threads */
GST_START_TEST (test_threads)
{
  const guint n[] = { 1, 3, 7, 0 };
  g_setenv ("CI_MIN_SLICE_BYTES", "1", TRUE);
  const struct
  {
    const gchar *ifmt, *ofmt;
    CiTmInFormat tf;
    CiTmOutFormat to;
    gint w, h;
  } c[] = {
    {"P010_10LE", "BGRx", CI_TM_IN_P010, CI_TM_OUT_BGRX, 123, 59},
    {"RGBA64_LE", "NV12", CI_TM_IN_RGBA64, CI_TM_OUT_NV12, 97, 35},
    /* one row, split in pairs of rows: more slices than row pairs */
    {"RGBA64_LE", "RGBA", CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, 9, 1},
  };
  for (guint k = 0; k < G_N_ELEMENTS (c); k++)
    for (guint smoothing = 0; smoothing <= 4; smoothing += 4)
      for (guint i = 0; i < G_N_ELEMENTS (n); i++) {
        GstHarness *h = gst_harness_new (FACTORY);
        g_object_set (h->element, "n-threads", n[i], "smoothing", smoothing,
            NULL);
        gchar *ic = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
            "height=%d,framerate=30/1,colorimetry=bt2100-pq", c[k].ifmt,
            c[k].w, c[k].h);
        gchar *oc = g_strdup_printf ("video/x-raw,format=%s", c[k].ofmt);
        gst_harness_set_src_caps_str (h, ic);
        gst_harness_set_sink_caps_str (h, oc);
        CiTmConfig cfg;
        tm_config_init (&cfg, c[k].tf, c[k].to, c[k].w, c[k].h);
        cfg.smoothing = smoothing;
        CiTonemap *ref = ci_tonemap_new (&cfg);
        TmFrame *rout = tm_frame_new_out (c[k].to, c[k].w, c[k].h, 0);
        for (int fr = 0; fr < 3; fr++) {
          int d = push_and_compare (h, c[k].ifmt, c[k].tf, c[k].w, c[k].h,
              40 + fr, ref, rout);
          fail_unless (d == 0, "%s -> %s, smoothing %u, n-threads %u, frame "
              "%d: max diff %d", c[k].ifmt, c[k].ofmt, smoothing, n[i], fr, d);
        }
        tm_frame_free (rout);
        ci_tonemap_free (ref);
        g_free (ic);
        g_free (oc);
        gst_harness_teardown (h);
      }
  g_unsetenv ("CI_MIN_SLICE_BYTES");
}
GST_END_TEST;

/* n-threads' range, default and flags as documented, and a round trip */
GST_START_TEST (test_n_threads_property)
{
  ci_check_n_threads_property (FACTORY);
}
GST_END_TEST;

static Suite *
cputonemap_suite (void)
{
  Suite *s = suite_create ("cputonemap");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  add_common_cases (tc);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_n_threads_property);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cputonemap_suite (), NULL, argc, argv);
}
