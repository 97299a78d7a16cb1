/* GstHarness tests of cudatonemap (system memory in and out, staged by the
 * base class, and memory:CUDAMemory through cudaupload / cudadownload):
 * output bit-identical to the C reference (the issue allows one code value;
 * the kernels follow the reference's operations exactly, docs/tonemap.md).
 * CI_TM_TOLERANCE=N relaxes that and prints each differing byte.  Skipped
 * without a CUDA device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cudatonemap"
#define TOLERANCE 0
#include "cicuda.h"
#include "citest_cuda.h"
#include "tonemap-checks.h"

/* memory:CUDAMemory in and out (as after nvh265dec): formats that 1.22's
 * cudaupload / cudadownload carry (no RGBA64 there) */
GST_START_TEST (test_cuda_memory)
{
  if (!ci_have_cudaupload ())
    return;
  use_cuda_memory = TRUE;
  run_case ("P010_10LE", CI_TM_IN_P010, "NV12", CI_TM_OUT_NV12,
      CI_TM_OP_HISTOGRAM, NULL);
  run_case ("P010_10LE", CI_TM_IN_P010, "BGRx", CI_TM_OUT_BGRX,
      CI_TM_OP_BT2390, ",content-light-level=(string)1000:400");
  run_case ("I420_10LE", CI_TM_IN_I420_10, "RGBA", CI_TM_OUT_RGBA,
      CI_TM_OP_HABLE, NULL);
  run_case ("BGR10A2_LE", CI_TM_IN_BGR10A2, "I420", CI_TM_OUT_I420,
      CI_TM_OP_REINHARD, NULL);
  run_case ("Y444_16LE", CI_TM_IN_Y444_16, "BGRA", CI_TM_OUT_BGRA,
      CI_TM_OP_HISTOGRAM, NULL);
  use_cuda_memory = FALSE;
}

GST_END_TEST;

/* Two instances with different bins in one pipeline share a CUDA context,
 * so their kernels are the same functions: the second one's smaller
 * shared-memory need (1024 bins) must not lower the limit the first one
 * (4096 bins, 4:2:0 output) launches with. */
GST_START_TEST (test_shared_context_bins)
{
  GstHarness *h = gst_harness_new_parse ("tee name=t ! cudatonemap name=a "
      "bins=4096 ! video/x-raw,format=NV12 ! fakesink sync=false async=false "
      "t. ! cudatonemap name=b ! capsfilter caps=video/x-raw,format=NV12");
  gst_harness_set_src_caps_str (h, "video/x-raw,format=P010_10LE,width=96,"
      "height=54,framerate=30/1,colorimetry=bt2100-pq");
  /* b's frames against the reference (a's failing would fail the push) */
  CiTmConfig cfg;
  tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_NV12, W, H);
  CiTonemap *ref = ci_tonemap_new (&cfg);
  TmFrame *rout = tm_frame_new_out (CI_TM_OUT_NV12, W, H, 0);
  for (int i = 0; i < 3; i++) {
    int d = push_and_compare (h, "P010_10LE", CI_TM_IN_P010, W, H, 70 + i,
        ref, rout);
    fail_unless (d <= TOLERANCE, "frame %d: max diff %d", i, d);
  }
  tm_frame_free (rout);
  ci_tonemap_free (ref);
  ci_check_shared_context (h, "a", "b");
  gst_harness_teardown (h);
}

GST_END_TEST;


/* cuda-device-id: each device, a change in READY, a device that does not
 * exist, and CUDA memory of another device */
GST_START_TEST (test_devices)
{
  ci_check_devices (FACTORY, "smoothing=0", "format=NV12",
      "video/x-raw,format=P010_10LE,width=97,height=55,"
      "framerate=30/1,colorimetry=bt2100-pq");
}
GST_END_TEST;

/* the memory the other side has comes first (ci_check_memory_preference;
 * no GPU needed) */
GST_START_TEST (test_memory_preference)
{
  ci_check_memory_preference (FACTORY,
      "video/x-raw,format=P010_10LE,width=64,height=48,framerate=30/1,"
      "colorimetry=bt2100-pq", "video/x-raw,format=BGRx");
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
  ci_check_oom_on_caps_change (FACTORY, "smoothing=0",
      "video/x-raw,format=P010_10LE,width=64,height=48,framerate=30/1,"
      "colorimetry=bt2100-pq", "video/x-raw,format=BGRx",
      "video/x-raw,format=P010_10LE,width=7680,height=4320,framerate=30/1,"
      "colorimetry=bt2100-pq", "video/x-raw,format=BGRx");
}
GST_END_TEST;

/* system memory through the pinned pools and through staging */
GST_START_TEST (test_pinned_pools)
{
  ci_check_pinned_pools ("cudatonemap smoothing=0 ! capsfilter caps=video/x-raw,format=NV12",
      "video/x-raw,format=P010_10LE,width=97,height=55,framerate=30/1,"
      "colorimetry=bt2100-pq", ci_cuda_host_is_pinned);
}
GST_END_TEST;

static Suite *
cudatonemap_suite (void)
{
  Suite *s = suite_create ("cudatonemap");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  add_common_cases (tc);
  tcase_add_test (tc, test_cuda_memory);
  tcase_add_test (tc, test_pinned_pools);
  tcase_add_test (tc, test_devices);
  tcase_add_test (tc, test_oom_on_caps_change);
  tcase_add_test (tc, test_device_id_property);
  tcase_add_test (tc, test_memory_preference);
  tcase_add_test (tc, test_shared_context_bins);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  return ci_check_main (cudatonemap_suite (), "cudatonemap", argc, argv);
}
