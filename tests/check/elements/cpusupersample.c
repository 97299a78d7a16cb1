/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cpusupersample"
#include "supersample-checks.h"

/* n-threads, with every frame split (CI_MIN_SLICE_BYTES=1: a slice per
 * thread), and with the usual 256 KiB a slice: the reference's bytes for
 * any number of threads, odd sizes and planes included, the count changed
 * between frames */
GST_START_TEST (test_threads)
{
  GstHarness *h = gst_harness_new (FACTORY);
  const guint n[] = { 1, 3, 7, 0, 2 };
  g_setenv ("CI_MIN_SLICE_BYTES", "1", TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (n); i++) {
    g_object_set (h->element, "n-threads", n[i], NULL);
    check_scale (h, "RGBA", 123, 59, 31, 7, 100 + i);
    check_scale (h, "I420", 191, 107, 97, 54, 200 + i);
    check_scale (h, "P010_10LE", 127, 71, 126, 70, 300 + i);
  }
  g_unsetenv ("CI_MIN_SLICE_BYTES");
  g_object_set (h->element, "n-threads", 3, NULL);
  check_scale (h, "RGBA", 1023, 599, 311, 97, 400);
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
cpusupersample_suite (void)
{
  Suite *s = suite_create ("cpusupersample");
  TCase *tc = tcase_create ("general");
  add_common_cases (tc);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_n_threads_property);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cpusupersample_suite (), NULL, argc, argv);
}
