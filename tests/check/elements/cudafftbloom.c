/* cudafftbloom: the same cases as cpufftbloom, each output within one code
 * value of the C reference, plus CUDA-memory caps through cudaupload /
 * cudadownload. Exits 77 (skip) without a CUDA device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cudafftbloom"
#define TOL 1
#include "cicuda.h"
#include "citest_cuda.h"
#include "../../fftbloom/fftbloom-checks.h"

GST_START_TEST (test_cuda_memory)
{
  if (!ci_have_cudaupload ())
    return;
  GstElement *fb;
  GstHarness *h = ci_cuda_memory_harness ("cudafftbloom threshold=0.3", "fb",
      &fb);
  GstVideoInfo info;
  caps_for (&info, "RGBA", 45, 27, FALSE);
  GstCaps *caps = gst_video_info_to_caps (&info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  gst_harness_set_sink_caps (h, caps);
  Setup s;
  setup_defaults (&s);
  s.p.threshold = 0.3f;
  push_and_check (h, &info, &s, 40, "CUDA memory in and out");
  ci_check_cuda_memory (fb);
  ci_check_shared_context (h, "up", "fb");
  gst_object_unref (fb);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* new caps mid-stream in CUDA memory */
GST_START_TEST (test_caps_changes_cuda_memory)
{
  if (!ci_have_cudaupload ())
    return;
  GstElement *fb;
  GstHarness *h = ci_cuda_memory_harness ("cudafftbloom", "fb", &fb);
  check_caps_changes (h, fb, TRUE);
  ci_check_cuda_memory (fb);
  gst_object_unref (fb);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* the memory the other side has comes first (ci_check_memory_preference;
 * no GPU needed) */
GST_START_TEST (test_memory_preference)
{
  ci_check_memory_preference (FACTORY,
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1",
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
  ci_check_oom_on_caps_change (FACTORY, "",
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1",
      "video/x-raw,format=RGBA",
      "video/x-raw,format=RGBA,width=3840,height=2160,framerate=30/1",
      "video/x-raw,format=RGBA");
}
GST_END_TEST;

/* Two instances of different sizes in one pipeline share a CUDA context,
 * so their kernels are the same functions: the second one's smaller
 * shared-memory need must not lower the limit the first one launches
 * with (1080p: 2048-point rows; 720p: 1350). */
GST_START_TEST (test_shared_context_sizes)
{
  GstHarness *h = gst_harness_new_parse ("cudafftbloom name=a ! "
      "cudasupersample ! video/x-raw,width=1280,height=720 ! "
      "cudafftbloom name=b");
  GstVideoInfo info;
  caps_for (&info, "RGBA", 1920, 1080, FALSE);
  GstCaps *caps = gst_video_info_to_caps (&info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_harness_set_src_caps (h, caps);
  for (int i = 0; i < 3; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h, make_frame (&info, 60 + i));
    fail_unless (out != NULL, "frame %d: no output", i);
    gst_buffer_unref (out);
  }
  ci_check_shared_context (h, "a", "b");
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Run with CI_TEST_NO_CUFFT=1 and CI_CUFFT_LIBRARY naming a missing library
 * (the meson test cudafftbloom-no-cufft): a GPU host without cuFFT. The
 * element says so, once, instead of a bare CUDA failure. */
GST_START_TEST (test_no_cufft)
{
  GstHarness *h = gst_harness_new (FACTORY);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstVideoInfo info;
  caps_for (&info, "RGBA", 64, 48, FALSE);
  GstCaps *caps = gst_video_info_to_caps (&info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_harness_set_src_caps (h, caps);
  for (int i = 0; i < 2; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&info, i)),
        GST_FLOW_NOT_NEGOTIATED);
  gchar *dbg = NULL;
  gchar *text = ci_pop_error (bus, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
      &dbg);
  fail_unless (strstr (text, "cuFFT") != NULL, "%s", text);
  fail_unless (dbg && strstr (dbg, g_getenv ("CI_CUFFT_LIBRARY")), "%s",
      dbg);
  g_free (text);
  g_free (dbg);
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}
GST_END_TEST;


/* cuda-device-id: each device, a change in READY, a device that does not
 * exist, and CUDA memory of another device */
GST_START_TEST (test_devices)
{
  ci_check_devices (FACTORY, "", "format=RGBA",
      "video/x-raw,format=RGBA,width=45,height=27,framerate=30/1");
}
GST_END_TEST;

/* system memory through the pinned pools and through staging */
GST_START_TEST (test_pinned_pools)
{
  ci_check_pinned_pools (FACTORY " ! capsfilter caps=video/x-raw,format=RGBA",
      "video/x-raw,format=RGBA,width=45,height=27,framerate=30/1", ci_cuda_host_is_pinned);
}
GST_END_TEST;

int
main (int argc, char **argv)
{
  if (g_getenv ("CI_TEST_NO_CUFFT")) {
    Suite *s = suite_create ("cudafftbloom-no-cufft");
    TCase *tc = tcase_create ("no-cufft");
    suite_add_tcase (s, tc);
    tcase_add_test (tc, test_no_cufft);
    return ci_check_main (s, FACTORY, argc, argv);
  }
  Suite *s = fftbloom_suite ();
  TCase *tc = tcase_create ("cuda-memory");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_memory);
  tcase_add_test (tc, test_caps_changes_cuda_memory);
  tcase_add_test (tc, test_shared_context_sizes);
  tcase_add_test (tc, test_pinned_pools);
  tcase_add_test (tc, test_devices);
  tcase_add_test (tc, test_oom_on_caps_change);
  tcase_add_test (tc, test_device_id_property);
  tcase_add_test (tc, test_memory_preference);
  return ci_check_main (s, "cudafftbloom", argc, argv);
}
