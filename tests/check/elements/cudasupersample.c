/* cudasupersample: the same cases as cpusupersample (output identical to the
 * reference), plus CUDA-memory caps, a context shared with nvcodec's
 * cudaupload/cudadownload, and a clean failure without a device.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define FACTORY "cudasupersample"
#include "supersample-checks.h"
#include <gst/cuda/gstcudamemory.h>

GST_START_TEST (test_no_device_fails_cleanly)
{
  /* Run only where no CUDA device exists: READY must fail with an error message. */
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  GstBus *bus = gst_bus_new ();
  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  GError *err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND));
  fail_unless (strstr (err->message, "no CUDA device") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
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

GST_START_TEST (test_cuda_memory_shared_context)
{
  GstElement *up = gst_element_factory_make ("cudaupload", NULL);
  if (!up) {
    g_print ("cudaupload not available: CUDA-memory case skipped\n");
    return;
  }
  gst_object_unref (up);
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
  } else {
    tcase_add_test (tc, test_no_device_fails_cleanly);
  }
  suite_add_tcase (s, tc);
  int r = gst_check_run_suite (s, "cudasupersample", __FILE__);
  if (!gpu && r == 0) {
    g_print ("SKIP: no CUDA device: only the no-device case ran\n");
    return 77;
  }
  return r;
}
