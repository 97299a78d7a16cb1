/* GstHarness tests of cputonemap: output identical to the C reference.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cputonemap"
#define TOLERANCE 0
#include "tonemap-checks.h"

static Suite *
cputonemap_suite (void)
{
  Suite *s = suite_create ("cputonemap");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  add_common_cases (tc);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cputonemap_suite (), NULL, argc, argv);
}
