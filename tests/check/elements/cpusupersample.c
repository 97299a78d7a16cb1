/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cpusupersample"
#include "supersample-checks.h"

/* n-threads: frames large enough to be split (256 KiB of input per slice)
 * give the reference's bytes for any number of threads, odd sizes and
 * planes included, and the count may change between frames */
GST_START_TEST (test_threads)
{
  GstHarness *h = gst_harness_new (FACTORY);
  const guint n[] = { 1, 3, 7, 0, 2 };
  for (guint i = 0; i < G_N_ELEMENTS (n); i++) {
    g_object_set (h->element, "n-threads", n[i], NULL);
    check_scale (h, "RGBA", 1023, 599, 311, 97, 100 + i);
    check_scale (h, "I420", 1919, 1079, 997, 541, 200 + i);
    check_scale (h, "P010_10LE", 1279, 721, 1278, 720, 300 + i);
  }
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
cpusupersample_suite (void)
{
  Suite *s = suite_create ("cpusupersample");
  TCase *tc = tcase_create ("general");
  add_common_cases (tc);
  tcase_add_test (tc, test_threads);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cpusupersample_suite (), NULL, argc, argv);
}
