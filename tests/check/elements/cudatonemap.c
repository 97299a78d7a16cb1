/* GstHarness tests of cudatonemap (system memory in and out, staged by the
 * base class): output within one code value of the C reference.  Skipped
 * without a CUDA device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cudatonemap"
#define TOLERANCE 1
#include "tonemap-checks.h"

static Suite *
cudatonemap_suite (void)
{
  Suite *s = suite_create ("cudatonemap");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  add_common_cases (tc);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cudatonemap_suite (), "cudatonemap", argc, argv);
}
