/* Whole-pipeline throughput: appsrc -> ELEMENT -> fakesink, frames/s.
 * Usage: bench-pipeline ELEMENT IN_CAPS OUT_CAPS [frames] [cuda-in]
 *   cuda-in = 1: appsrc pushes frames already in CUDA memory (one shared context)
 *   and OUT_CAPS should carry memory:CUDAMemory too.
 *   cuda-in = 2: system memory from the pool the element proposes upstream
 *   (what a decoder or camera source that takes downstream's pool writes
 *   into); 0: system memory of the application's own (gst_buffer_new).
 * Input frames are random, a ring of 8, made before timing starts.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc < 4) {
    fprintf (stderr, "usage: %s ELEMENT IN_CAPS OUT_CAPS [frames] [cuda-in]\n", argv[0]);
    return 2;
  }
  const int frames = argc > 4 ? atoi (argv[4]) : 600;
  const int cuda_in = argc > 5 ? atoi (argv[5]) : 0;
  GstCaps *in_caps = gst_caps_from_string (argv[2]);
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, in_caps)) {
    fprintf (stderr, "bad input caps\n");
    return 2;
  }
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! %s ! %s ! "
      "fakesink name=sink sync=false", argv[1], argv[3]);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  if (!pipe) {
    fprintf (stderr, "parse: %s\n", err->message);
    return 2;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstCudaContext *ctx = NULL;
  GstBufferPool *pool = NULL;
  if (cuda_in == 1) {
    gst_cuda_load_library ();
    ctx = gst_cuda_context_new (0);
    if (!ctx) {
      fprintf (stderr, "no CUDA context\n");
      return 1;
    }
    GstContext *gc = gst_context_new_cuda_context (ctx);
    gst_element_set_context (pipe, gc);
    gst_context_unref (gc);
    pool = gst_cuda_buffer_pool_new (ctx);
    GstStructure *cfg = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (cfg, in_caps, GST_VIDEO_INFO_SIZE (&info), 8, 8);
    gst_buffer_pool_config_add_option (cfg, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_set_config (pool, cfg);
    gst_buffer_pool_set_active (pool, TRUE);
  }
  g_object_set (src, "caps", in_caps, "max-buffers", (guint64) 4, "block", TRUE, NULL);

  GstBuffer *ring[8];
  for (int i = 0; i < 8; i++) {
    if (pool) {
      gst_buffer_pool_acquire_buffer (pool, &ring[i], NULL);
    } else {
      ring[i] = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
    }
    GstVideoFrame f;
    gst_video_frame_map (&f, &info, ring[i], GST_MAP_WRITE);
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
      guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
      gsize n = (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) *
          GST_VIDEO_FRAME_COMP_HEIGHT (&f, p);
      for (gsize k = 0; k < n; k++)
        d[k] = (guint8) ((k * 2654435761u + i) >> 11);
    }
    gst_video_frame_unmap (&f);
  }
  if (pool) {                   /* upload the ring now, outside the timing */
    for (int i = 0; i < 8; i++) {
      GstMapInfo m;
      gst_buffer_map (ring[i], &m, GST_MAP_READ | GST_MAP_CUDA);
      gst_buffer_unmap (ring[i], &m);
    }
  }

  if (gst_element_set_state (pipe, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "cannot start pipeline\n");
    return 1;
  }
  int first = 0;
  if (cuda_in == 2) {
    /* the element answers the allocation query once negotiated: one frame
     * through first, then the ring is copied into buffers of its pool */
    GstBuffer *b = gst_buffer_ref (ring[0]);
    GST_BUFFER_PTS (b) = 0;
    GST_BUFFER_DURATION (b) = GST_SECOND / 60;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    GstSample *smp = NULL;
    for (int t = 0; t < 10000 && !smp; t++) {
      g_object_get (sink, "last-sample", &smp, NULL);
      if (!smp)
        g_usleep (1000);
    }
    gst_object_unref (sink);
    if (!smp) {
      fprintf (stderr, "the first frame did not come through\n");
      return 1;
    }
    gst_sample_unref (smp);
    first = 1;
    GstPad *sp = gst_element_get_static_pad (src, "src");
    GstQuery *q = gst_query_new_allocation (in_caps, TRUE);
    guint size, min, max;
    if (!gst_pad_peer_query (sp, q) || gst_query_get_n_allocation_pools (q) == 0) {
      fprintf (stderr, "the element proposed no pool\n");
      return 1;
    }
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
    GstStructure *cfg = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (cfg, in_caps, size, 8, 0);
    gst_buffer_pool_config_add_option (cfg, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, cfg) ||
        !gst_buffer_pool_set_active (pool, TRUE)) {
      fprintf (stderr, "the proposed pool refused its configuration\n");
      return 1;
    }
    for (int i = 0; i < 8; i++) {
      GstBuffer *pb;
      GstVideoFrame fs, fd;
      gst_buffer_pool_acquire_buffer (pool, &pb, NULL);
      gst_video_frame_map (&fs, &info, ring[i], GST_MAP_READ);
      gst_video_frame_map (&fd, &info, pb, GST_MAP_WRITE);
      gst_video_frame_copy (&fd, &fs);
      gst_video_frame_unmap (&fd);
      gst_video_frame_unmap (&fs);
      gst_buffer_unref (ring[i]);
      ring[i] = pb;
    }
    gst_query_unref (q);
    gst_object_unref (sp);
  }
  gint64 t0 = 0;
  const int warm = 30;
  for (int i = 0; i < frames + warm; i++) {
    if (i == warm)
      t0 = g_get_monotonic_time ();
    GstBuffer *b = gst_buffer_ref (ring[i % 8]);
    GST_BUFFER_PTS (b) = (GstClockTime) (i + first) * GST_SECOND / 60;
    GST_BUFFER_DURATION (b) = GST_SECOND / 60;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), b) != GST_FLOW_OK) {
      fprintf (stderr, "push failed at frame %d\n", i);
      return 1;
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gint64 t1 = g_get_monotonic_time ();
  int rc = 0;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e;
    gst_message_parse_error (msg, &e, NULL);
    fprintf (stderr, "error: %s\n", e->message);
    rc = 1;
  } else {
    double fps = frames / ((t1 - t0) / 1e6);
    printf ("| %s | %s | %s | %.1f |\n", argv[1], argv[2], cuda_in == 1 ?
        "CUDA memory" : cuda_in == 2 ? "system memory, element's pool" :
        "system memory", fps);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (int i = 0; i < 8; i++)
    gst_buffer_unref (ring[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_clear_object (&ctx);
  gst_object_unref (src);
  gst_object_unref (pipe);
  g_free (desc);
  gst_caps_unref (in_caps);
  return rc;
}
