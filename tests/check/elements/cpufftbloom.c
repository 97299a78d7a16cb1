/* cpufftbloom: every output equals the C reference run with the kernel the
 * properties describe, for all formats, properties changed while playing,
 * image kernels and a clean error for an unreadable kernel; any number of
 * threads gives the same bytes.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cpufftbloom"
#define TOL 0
#include "../../fftbloom/fftbloom-checks.h"

/* n-threads, with every frame split (CI_MIN_SLICE_BYTES=1: a slice per
 * thread) and with the usual 256 KiB a slice: the reference's bytes for
 * any number of threads, odd sizes, the count changed between frames */
GST_START_TEST (test_threads)
{
  const guint n[] = { 1, 2, 3, 7, 0 };
  const char *formats[] = { "RGBA", "RGBA64_LE" };
  g_setenv ("CI_MIN_SLICE_BYTES", "1", TRUE);
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info;
    caps_for (&info, formats[f], 53, 29, FALSE);
    Setup s;
    setup_defaults (&s);
    s.p.threshold = 0.4f;
    GstHarness *h = harness_for (&info);
    g_object_set (h->element, "threshold", 0.4f, NULL);
    for (guint i = 0; i < G_N_ELEMENTS (n); i++) {
      g_object_set (h->element, "n-threads", n[i], NULL);
      gchar *what = g_strdup_printf ("%s 53x29, %u threads", formats[f], n[i]);
      push_and_check (h, &info, &s, 40 + i, what);
      g_free (what);
    }
    gst_harness_teardown (h);
  }
  g_unsetenv ("CI_MIN_SLICE_BYTES");
  GstVideoInfo info;
  caps_for (&info, "BGRx", 1023, 577, FALSE);
  Setup s;
  setup_defaults (&s);
  s.scale = 1;
  GstHarness *h = harness_for (&info);
  g_object_set (h->element, "n-threads", 3, "resolution-scale", 1, NULL);
  push_and_check (h, &info, &s, 50, "BGRx 1023x577 full resolution, 3 threads");
  gst_harness_teardown (h);
}
GST_END_TEST;

/* n-threads' range, default and flags as documented, and a round trip */
GST_START_TEST (test_n_threads_property)
{
  ci_check_n_threads_property (FACTORY);
}
GST_END_TEST;

static Suite *
cpufftbloom_suite (void)
{
  Suite *s = fftbloom_suite ();
  TCase *tc = tcase_create ("threads");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_n_threads_property);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cpufftbloom_suite (), NULL, argc, argv);
}
