/* cpufftbloom: every output equals the C reference run with the kernel the
 * properties describe, for all formats, properties changed while playing,
 * image kernels and a clean error for an unreadable kernel.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cpufftbloom"
#define TOL 0
#include "../../fftbloom/fftbloom-checks.h"

int
main (int argc, char **argv)
{
  return ci_check_main (fftbloom_suite (), NULL, argc, argv);
}
