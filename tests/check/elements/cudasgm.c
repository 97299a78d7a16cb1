/* cudasgm must equal the C reference bit for bit, in system memory (the
 * base class stages it) and in memory:CUDAMemory (cudaupload/cudadownload).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cudasgm"
#include "cicuda.h"
#include "citest_cuda.h"
#include "sgm-checks.h"

GST_START_TEST (test_cuda_memory)
{
  if (!ci_have_cudaupload ())
    return;
  /* formats that 1.22's cudaupload / cudadownload carry (no GRAY*) */
  use_cuda_memory = TRUE;
  check_one ("NV12", "RGBA", TRUE, TRUE, 64, 36, 270, 0, -1, 8,
      SGM_CENSUS_9X7);
  check_one ("BGRx", "BGRx", FALSE, FALSE, 77, 13, 64, -3, -1, 4,
      SGM_CENSUS_SYM_9X7);
  check_one ("I420", "RGBA", TRUE, FALSE, 61, 37, 23, 0, 1, 8,
      SGM_CENSUS_9X7);
  check_live_changes ();
  use_cuda_memory = FALSE;
}
GST_END_TEST;


/* cuda-device-id: each device, a change in READY, a device that does not
 * exist, and CUDA memory of another device */
GST_START_TEST (test_devices)
{
  ci_check_devices (FACTORY, "num-disparities=16", "format=RGBA",
      "video/x-raw,format=NV12,width=74,height=22,framerate=30/1");
}
GST_END_TEST;

/* the memory the other side has comes first (ci_check_memory_preference;
 * no GPU needed) */
GST_START_TEST (test_memory_preference)
{
  ci_check_memory_preference (FACTORY,
      "video/x-raw,format=NV12,width=128,height=48,framerate=30/1",
      "video/x-raw,format=RGBA");
}
GST_END_TEST;

/* cuda-device-id as documented (ci_check_device_id_property; no GPU needed) */
GST_START_TEST (test_device_id_property)
{
  ci_check_device_id_property (FACTORY);
}
GST_END_TEST;

/* out of GPU memory at a resolution switch: a clear error, no crash,
 * then frames again once memory is back (ci_check_oom_on_caps_change) */
GST_START_TEST (test_oom_on_caps_change)
{
  ci_check_oom_on_caps_change (FACTORY, "num-disparities=128",
      "video/x-raw,format=GRAY8,width=128,height=48,framerate=30/1",
      "video/x-raw,format=GRAY16_LE",
      "video/x-raw,format=GRAY8,width=7680,height=2160,framerate=30/1",
      "video/x-raw,format=GRAY16_LE");
}
GST_END_TEST;

/* system memory through the pinned pools and through staging */
GST_START_TEST (test_pinned_pools)
{
  ci_check_pinned_pools (FACTORY " num-disparities=16 ! capsfilter caps=video/x-raw,format=GRAY8",
      "video/x-raw,format=NV12,width=74,height=22,framerate=30/1", ci_cuda_host_is_pinned);
}
GST_END_TEST;

static Suite *
cudasgm_suite (void)
{
  Suite *s = suite_create ("cudasgm");
  TCase *tc = tcase_create ("general");
  add_sgm_cases (tc);
  tcase_add_test (tc, test_cuda_memory);
  tcase_add_test (tc, test_pinned_pools);
  tcase_add_test (tc, test_devices);
  tcase_add_test (tc, test_oom_on_caps_change);
  tcase_add_test (tc, test_device_id_property);
  tcase_add_test (tc, test_memory_preference);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cudasgm_suite (), "cudasgm", argc, argv);
}
