/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cpusgm"
#include "sgm-checks.h"

static Suite *
cpusgm_suite (void)
{
  Suite *s = suite_create ("cpusgm");
  TCase *tc = tcase_create ("general");
  add_sgm_cases (tc);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cpusgm_suite (), NULL, argc, argv);
}
