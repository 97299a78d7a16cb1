/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cpusupersample"
#include "supersample-checks.h"

static Suite *
cpusupersample_suite (void)
{
  Suite *s = suite_create ("cpusupersample");
  TCase *tc = tcase_create ("general");
  add_common_cases (tc);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cpusupersample_suite (), NULL, argc, argv);
}
