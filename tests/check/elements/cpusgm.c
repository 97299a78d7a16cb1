/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cpusgm"
#include "sgm-checks.h"

/* n-threads, with every frame split (CI_MIN_SLICE_BYTES=1: a slice per
 * thread, and the two sweeps at once): the serial reference's bytes, odd
 * sizes, 8 and 4 paths, LR check and median on and off */
GST_START_TEST (test_threads)
{
  const guint n[] = { 1, 2, 3, 7, 0 };
  const Knobs k[] = {
    {23, 0, 1, 8, SGM_CENSUS_9X7},
    {129, 2, -1, 4, SGM_CENSUS_SYM_9X7},
    {16, -3, 2, 8, SGM_CENSUS_9X7, .no_median = 1},
  };
  g_setenv ("CI_MIN_SLICE_BYTES", "1", TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (n); i++)
    for (guint c = 0; c < G_N_ELEMENTS (k); c++) {
      GstElement *sgm;
      GstHarness *h = new_harness (&sgm);
      apply_knobs (sgm, &k[c]);
      g_object_set (sgm, "n-threads", n[i], NULL);
      gst_object_unref (sgm);
      push_and_compare (h, "GRAY8", "GRAY16_LE", FALSE, FALSE, 61 + 2 * c,
          37 - c, &k[c]);
      finish_harness (h);
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
cpusgm_suite (void)
{
  Suite *s = suite_create ("cpusgm");
  TCase *tc = tcase_create ("general");
  add_sgm_cases (tc);
  tcase_add_test (tc, test_threads);
  tcase_add_test (tc, test_n_threads_property);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cpusgm_suite (), NULL, argc, argv);
}
