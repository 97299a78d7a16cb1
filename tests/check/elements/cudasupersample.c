/* cudasupersample: the same cases as cpusupersample (output identical to the
 * reference), plus CUDA-memory caps, a context shared with nvcodec's
 * cudaupload/cudadownload, out of GPU memory on a caps change, and a clean
 * failure without a device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cudasupersample"
#include "cicuda.h"
#include "citest_cuda.h"
#include "supersample-checks.h"
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>       /* CuMemAlloc, through GStreamer's loader */

GST_START_TEST (test_no_device_fails_cleanly)
{
  /* Run only where no CUDA device exists: READY must fail with an error message. */
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  GstBus *bus = gst_bus_new ();
  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  gchar *text = ci_pop_error (bus, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, NULL);
  fail_unless (strstr (text, "no CUDA device") != NULL, "%s", text);
  g_free (text);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}
GST_END_TEST;

static GstCudaContext *seen_ctx[2];

static GstPadProbeReturn
grab_ctx (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *m = gst_buffer_peek_memory (b, 0);
  gint i = GPOINTER_TO_INT (user);
  if (!seen_ctx[i] && gst_is_cuda_memory (m))
    seen_ctx[i] = gst_object_ref (GST_CUDA_MEMORY_CAST (m)->context);
  return GST_PAD_PROBE_OK;
}

/* new caps mid-stream in CUDA memory */
GST_START_TEST (test_caps_changes_cuda_memory)
{
  if (!ci_have_cudaupload ())
    return;
  GstElement *ss;
  GstHarness *h = ci_cuda_memory_harness ("cudasupersample", "ss", &ss);
  check_caps_changes (h, TRUE);
  ci_check_cuda_memory (ss);
  gst_object_unref (ss);
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_cuda_memory_shared_context)
{
  if (!ci_have_cudaupload ())
    return;
  GstHarness *h = gst_harness_new_parse ("cudaupload ! video/x-raw(memory:CUDAMemory) ! cudasupersample ! "
      "video/x-raw(memory:CUDAMemory),width=23,height=11 ! cudadownload");
  GstElement *ss = gst_harness_find_element (h, "cudasupersample");
  GstPad *sink = gst_element_get_static_pad (ss, "sink");
  GstPad *src = gst_element_get_static_pad (ss, "src");
  seen_ctx[0] = seen_ctx[1] = NULL;
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, grab_ctx, GINT_TO_POINTER (0), NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, grab_ctx, GINT_TO_POINTER (1), NULL);

  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=NV12,width=97,height=45,framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=NV12,width=23,height=11");
  GstVideoInfo ii, oi;
  gst_video_info_set_format (&ii, GST_VIDEO_FORMAT_NV12, 97, 45);
  gst_video_info_set_format (&oi, GST_VIDEO_FORMAT_NV12, 23, 11);
  GstBuffer *in = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&ii));
  GstMapInfo m;
  gst_buffer_map (in, &m, GST_MAP_WRITE);
  ci_fill_random (m.data, m.size, 5);
  gst_buffer_unmap (in, &m);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless (seen_ctx[0] && seen_ctx[1], "CUDA memory did not flow on both sides");
  fail_unless (seen_ctx[0] == seen_ctx[1], "cudaupload and cudasupersample use different contexts");

  GstVideoFrame fi, fo;
  fail_unless (gst_video_frame_map (&fi, &ii, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, &oi, out, GST_MAP_READ));
  for (guint p = 0; p < 2; p++) {
    CiSsPlane sp, dp;
    plane_desc (&ii, p, &sp, GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p));
    plane_desc (&oi, p, &dp, GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p));
    guint8 *ref = g_malloc0 (dp.stride * dp.height);
    ci_ref_supersample_plane (GST_VIDEO_FRAME_PLANE_DATA (&fi, p), &sp, ref, &dp);
    for (gint y = 0; y < dp.height; y++)
      fail_unless (memcmp (ref + y * dp.stride,
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, p) + y * dp.stride,
              dp.width * dp.channels) == 0, "plane %u row %d differs", p, y);
    g_free (ref);
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (ss);
  gst_clear_object (&seen_ctx[0]);
  gst_clear_object (&seen_ctx[1]);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* the memory the other side has comes first (ci_check_memory_preference;
 * no GPU needed) */
GST_START_TEST (test_memory_preference)
{
  ci_check_memory_preference (FACTORY,
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1",
      "video/x-raw,format=RGBA,width=32,height=24");
}
GST_END_TEST;

/* cuda-device-id as documented (ci_check_device_id_property; no GPU needed) */
GST_START_TEST (test_device_id_property)
{
  ci_check_device_id_property (FACTORY);
}
GST_END_TEST;

/* Out of GPU memory on a caps change mid-stream (a resolution switch): the
 * element must post a clear RESOURCE error and refuse the caps, not crash;
 * once memory is back it must work again. Device memory is filled from a
 * context of our own (memory is per device, so the element's context sees it). */
GST_START_TEST (test_oom_on_caps_change)
{
  /* 7680x4320 RGBA in, 3840x2160 out: ~170 MB of staging that cannot fit */
  ci_check_oom_on_caps_change (FACTORY, "",
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1",
      "video/x-raw,format=RGBA,width=32,height=24",
      "video/x-raw,format=RGBA,width=7680,height=4320,framerate=30/1",
      "video/x-raw,format=RGBA,width=3840,height=2160");
}
GST_END_TEST;


/* cuda-device-id: each device, a change in READY, a device that does not
 * exist, and CUDA memory of another device */
GST_START_TEST (test_devices)
{
  ci_check_devices (FACTORY, "", "width=23,height=11",
      "video/x-raw,format=NV12,width=97,height=45,framerate=30/1");
}
GST_END_TEST;

/* system memory through the pinned pools and through staging */
GST_START_TEST (test_pinned_pools)
{
  ci_check_pinned_pools (FACTORY " ! capsfilter caps=video/x-raw,width=23,height=11",
      "video/x-raw,format=NV12,width=97,height=45,framerate=30/1", ci_cuda_host_is_pinned);
  ci_check_host_register (FACTORY " ! capsfilter caps=video/x-raw,width=512,"
      "height=300", "video/x-raw,format=RGBA,width=1023,height=599,"
      "framerate=30/1", ci_cuda_host_is_pinned);
}
GST_END_TEST;

int
main (int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  Suite *s = suite_create ("cudasupersample");
  TCase *tc = tcase_create ("general");
  gboolean gpu = ci_element_can_start (FACTORY);
  if (gpu) {
    add_common_cases (tc);
    tcase_add_test (tc, test_cuda_memory_shared_context);
    tcase_add_test (tc, test_caps_changes_cuda_memory);
    tcase_add_test (tc, test_oom_on_caps_change);
    tcase_add_test (tc, test_pinned_pools);
    tcase_add_test (tc, test_devices);
  } else {
    tcase_add_test (tc, test_no_device_fails_cleanly);
  }
  tcase_add_test (tc, test_device_id_property);
  tcase_add_test (tc, test_memory_preference);
  suite_add_tcase (s, tc);
  int r = gst_check_run_suite (s, "cudasupersample", __FILE__);
  if (!gpu && r == 0)
    return ci_gpu_unavailable ("no CUDA device: only the no-device case ran");
  return r;
}
