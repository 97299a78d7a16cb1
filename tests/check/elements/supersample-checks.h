/* Cases shared by the cpusupersample and cudasupersample test programs:
 * each element must produce exactly the reference's output.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "citest.h"
#include "supersample.h"

#ifndef FACTORY
#error define FACTORY
#endif

static const gchar *formats[] = { "GRAY8", "GRAY16_LE", "RGB", "BGR", "RGBA", "BGRA",
  "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", "I420", "YV12", "Y42B", "Y444",
  "NV12", "NV21", "RGBA64_LE", "P010_10LE", "I420_10LE"
};

static void
plane_desc (const GstVideoInfo * info, guint p, CiSsPlane * d, gint stride)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  gst_video_format_info_component (info->finfo, p, comp);
  gint depth = GST_VIDEO_INFO_COMP_DEPTH (info, comp[0]);
  d->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
  d->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
  d->bytes_per_sample = depth > 8 ? 2 : 1;
  d->channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]) / d->bytes_per_sample;
  d->shift = GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, comp[0]);
  d->stride = stride;
}

/* Push one random frame through @h and compare with the reference. */
static void
check_scale (GstHarness * h, const gchar * fmt, gint sw, gint sh, gint dw, gint dh,
    guint64 seed)
{
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1,pixel-aspect-ratio=1/1", fmt, sw, sh);
  gchar *out_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", fmt, dw, dh);
  GstVideoInfo in_info, out_info;
  GstCaps *ic = gst_caps_from_string (in_caps), *oc;

  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  fail_unless (gst_video_info_from_caps (&in_info, ic));

  GstBuffer *in = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&in_info));
  GstMapInfo m;
  gst_buffer_map (in, &m, GST_MAP_WRITE);
  ci_fill_random (m.data, m.size, seed);
  gst_buffer_unmap (in, &m);
  gst_buffer_add_video_meta_full (in, 0, GST_VIDEO_INFO_FORMAT (&in_info), sw, sh,
      GST_VIDEO_INFO_N_PLANES (&in_info), in_info.offset, in_info.stride);

  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "no output for %s %dx%d->%dx%d", fmt, sw, sh, dw, dh);
  oc = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, oc));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), dw);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), dh);

  GstVideoFrame fi, fo;
  fail_unless (gst_video_frame_map (&fi, &in_info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, &out_info, out, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&in_info); p++) {
    CiSsPlane sp, dp;
    plane_desc (&in_info, p, &sp, GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p));
    plane_desc (&out_info, p, &dp, GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p));
    guint8 *ref = g_malloc0 (dp.stride * dp.height);
    fail_unless_equals_int (ci_ref_supersample_plane (GST_VIDEO_FRAME_PLANE_DATA (&fi, p),
            &sp, ref, &dp), 0);
    const guint8 *got = GST_VIDEO_FRAME_PLANE_DATA (&fo, p);
    gsize row = (gsize) dp.width * dp.channels * dp.bytes_per_sample;
    for (gint y = 0; y < dp.height; y++)
      fail_unless (memcmp (ref + y * dp.stride, got + y * dp.stride, row) == 0,
          "%s plane %u row %d differs (%dx%d -> %dx%d)", fmt, p, y, sw, sh, dw, dh);
    g_free (ref);
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_caps_unref (ic);
  gst_caps_unref (oc);
  g_free (in_caps);
  g_free (out_caps);
}

GST_START_TEST (test_all_formats)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstHarness *h = gst_harness_new (FACTORY);
    check_scale (h, formats[i], 67, 43, 31, 17, i + 1);
    gst_harness_teardown (h);
    h = gst_harness_new (FACTORY);
    check_scale (h, formats[i], 33, 21, 33, 7, i + 100);       /* one axis unchanged */
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* New caps mid-stream, as a camera switching modes or an adaptive stream
 * gives: one element (@h) through formats and sizes, larger and smaller
 * and back to the first, each frame exactly the reference's; @cuda: only
 * formats cudaupload takes. */
static void
check_caps_changes (GstHarness * h, gboolean cuda)
{
  static const struct
  {
    const gchar *fmt;
    gint sw, sh, dw, dh;
    gboolean not_cuda;
  } steps[] = {
    {"RGBA", 67, 43, 31, 17}, {"NV12", 640, 360, 213, 120},
    {"GRAY16_LE", 33, 21, 33, 7, TRUE}, {"RGBA", 67, 43, 31, 17},
    {"I420_10LE", 1001, 3, 17, 2}, {"RGBA", 1920, 1080, 640, 361},
    {"Y444", 5, 5, 1, 1}, {"P010_10LE", 130, 66, 129, 65},
  };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (!cuda || !steps[i].not_cuda)
      check_scale (h, steps[i].fmt, steps[i].sw, steps[i].sh, steps[i].dw,
          steps[i].dh, 500 + i);
}

GST_START_TEST (test_caps_changes)
{
  GstHarness *h = gst_harness_new (FACTORY);
  check_caps_changes (h, FALSE);
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_extreme_ratios)
{
  static const gint cases[][4] = { {64, 64, 63, 1}, {7, 5, 1, 1}, {1000, 1000, 3, 997},
  {641, 479, 320, 240}, {6, 6, 4, 4}, {129, 127, 128, 1}, {1, 301, 1, 2}
  };
  const gchar *fmts[] = { "GRAY8", "RGB", "RGBA", "I420", "NV12", "GRAY16_LE" };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint f = 0; f < G_N_ELEMENTS (fmts); f++) {
      if (cases[i][0] < 2 && (f == 3 || f == 4))
        continue;
      GstHarness *h = gst_harness_new (FACTORY);
      check_scale (h, fmts[f], cases[i][0], cases[i][1], cases[i][2], cases[i][3], i * 7 + f);
      gst_harness_teardown (h);
    }
}
GST_END_TEST;

/* An RGBA 64x48 buffer in @caps comes out as the same buffer. */
static void
check_passthrough (const gchar * caps)
{
  GstHarness *h = gst_harness_new (FACTORY);
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_set_sink_caps_str (h, caps);
  GstBuffer *in = gst_buffer_new_and_alloc (64 * 48 * 4);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out == in, "equal caps must pass the buffer through: %s", caps);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

GST_START_TEST (test_passthrough_on_equal_caps)
{
  check_passthrough ("video/x-raw,format=RGBA,width=64,height=48,"
      "framerate=30/1");
}
GST_END_TEST;

/* A harness around FACTORY whose element posts to a bus of its own. */
static GstHarness *
harness_with_bus (GstBus ** bus)
{
  GstHarness *h = gst_harness_new (FACTORY);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

/* GRAY8 64x48 pushed against downstream's @sink_caps (a larger size on
 * some axis) must not negotiate, and the error must name the smallest size
 * downstream needs, "at least @need". */
static void
check_upscale_refused (const gchar * sink_caps, const gchar * need)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (&bus);
  gst_harness_set_sink_caps_str (h, sink_caps);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1");
  GstFlowReturn r = gst_harness_push (h, gst_buffer_new_and_alloc (64 * 48));
  fail_unless_equals_int (r, GST_FLOW_NOT_NEGOTIATED);
  /* the refused CAPS event is explained */
  gchar *text = ci_pop_error (bus, GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION, NULL);
  gchar *want = g_strdup_printf ("at least %s", need);
  fail_unless (strstr (text, "only downscales") && strstr (text, "64x48")
      && strstr (text, want), "%s: %s", sink_caps, text);
  g_free (want);
  g_free (text);
  /* the caps come again with the next buffer: still one error */
  r = gst_harness_push (h, gst_buffer_new_and_alloc (64 * 48));
  fail_unless_equals_int (r, GST_FLOW_NOT_NEGOTIATED);
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}

GST_START_TEST (test_upscale_refused)
{
  /* Larger sizes are not offered in caps, so an upscale request cannot negotiate. */
  check_upscale_refused ("video/x-raw,format=GRAY8,width=128,height=96,"
      "framerate=30/1", "128x96");
  /* one axis larger is enough to refuse, the height as much as the width */
  check_upscale_refused ("video/x-raw,format=GRAY8,width=64,height=96,"
      "framerate=30/1", "64x96");
  /* no width asked for: any width >= 1 will do, and the message says so
   * (1, not 0: a video is never 0 pixels wide) */
  check_upscale_refused ("video/x-raw,format=GRAY8,height=96,"
      "framerate=30/1", "1x96");
}
GST_END_TEST;

/* Each input refused is explained: after 64x48 is refused (downstream
 * needs 128x96), other caps that need an upscale too (32x24) get their
 * own error, not taken for the one posted before. */
GST_START_TEST (test_each_upscale_explained)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (&bus);
  const gint size[2][2] = { {64, 48}, {32, 24} };
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY8,width=128,"
      "height=96,framerate=30/1");
  for (guint i = 0; i < 2; i++) {
    const gint w = size[i][0], ht = size[i][1];
    gchar *c = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
        "height=%d,framerate=30/1", w, ht);
    gst_harness_set_src_caps_str (h, c);
    g_free (c);
    GstFlowReturn r = gst_harness_push (h, gst_buffer_new_and_alloc (w * ht));
    fail_unless_equals_int (r, GST_FLOW_NOT_NEGOTIATED);
    gchar *text = ci_pop_error (bus, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, NULL);
    gchar *want = g_strdup_printf ("the input is %dx%d", w, ht);
    fail_unless (strstr (text, want) && strstr (text, "at least 128x96"),
        "%dx%d refused: %s", w, ht, text);
    g_free (want);
    g_free (text);
  }
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Interlaced frames scaled (refused, one error), then passed through at
 * equal caps (taken), then scaled again: the same caps object comes back
 * with the reconfigure and must be explained again. (Downstream's first
 * size is set before the caps: after a refused reconfigure, caps equal to
 * the ones negotiated before it are not set again by GstBaseTransform, so
 * they stay refused.) */
GST_START_TEST (test_refusal_after_renegotiation)
{
  GstHarness *h = gst_harness_new_parse (FACTORY " ! capsfilter name=cf");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstElement *cf = gst_bin_get_by_name (GST_BIN (h->element), "cf");
  static const gchar *sizes[3] = { "video/x-raw,width=32,height=24",
    "video/x-raw,width=64,height=48", "video/x-raw,width=32,height=24"
  };
  for (int step = 0; step < 3; step++) {
    GstCaps *c = gst_caps_from_string (sizes[step]);
    g_object_set (cf, "caps", c, NULL);
    gst_caps_unref (c);
    if (step == 0)
      gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,"
          "height=48,framerate=30/1,interlace-mode=interleaved");
    GstFlowReturn r = gst_harness_push (h, gst_buffer_new_and_alloc (64 * 48
            * 4));
    if (step == 1) {
      fail_unless_equals_int (r, GST_FLOW_OK);
      gst_buffer_unref (gst_harness_pull (h));
      fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
      continue;
    }
    fail_unless_equals_int (r, GST_FLOW_NOT_NEGOTIATED);
    gchar *dbg = NULL;
    g_free (ci_pop_error (bus, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
            &dbg));
    fail_unless (dbg && strstr (dbg, "deinterlace"), "step %d: %s", step,
        dbg);
    g_free (dbg);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL,
        "step %d: more than one error", step);
  }
  gst_object_unref (cf);
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Run @desc (the element named "ss") to EOS or error; return the text of
 * the first warning, failing unless ss posted it. @in_caps, if given, go on
 * the capsfilter "in" only after parsing, so that linking (which would see
 * the fixed size and refuse) passes as it does behind a decoder. */
static gchar *
run_for_warning (const gchar * desc, const gchar * in_caps, gboolean * eos)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
  GstElement *ss = gst_bin_get_by_name (GST_BIN (pipe), "ss");
  fail_unless (ss != NULL);
  if (in_caps) {
    GstElement *in = gst_bin_get_by_name (GST_BIN (pipe), "in");
    GstCaps *c = gst_caps_from_string (in_caps);
    g_object_set (in, "caps", c, NULL);
    gst_caps_unref (c);
    gst_object_unref (in);
  }
  GstBus *bus = gst_element_get_bus (pipe);
  gchar *text = NULL;
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  *eos = FALSE;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "%s: no EOS or error", desc);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (m, &err, NULL);
      fail_unless (GST_MESSAGE_SRC (m) == GST_OBJECT (ss),
          "warning from %s: %s", GST_MESSAGE_SRC_NAME (m), err->message);
      fail_unless (text == NULL, "second warning: %s", err->message);
      text = g_strdup (err->message);
      g_clear_error (&err);
    } else {
      *eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
      gst_message_unref (m);
      break;
    }
    gst_message_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (ss);
  gst_object_unref (pipe);
  return text;
}

GST_START_TEST (test_upscale_explained)
{
  /* Upstream never sends caps here: videoconvert's caps query gets an empty
   * answer, and only a message from the element says why. */
  gboolean eos;
  gchar *text = run_for_warning ("videotestsrc num-buffers=1 ! "
      "capsfilter name=in ! videoconvert ! " FACTORY " name=ss ! "
      "video/x-raw,width=128,height=96 ! fakesink",
      "video/x-raw,width=64,height=48", &eos);
  fail_unless (!eos, "an upscale must not negotiate");
  fail_unless (text != NULL, "no warning from " FACTORY);
  fail_unless (strstr (text, "only downscales") != NULL, "%s", text);
  fail_unless (strstr (text, "64x48") && strstr (text, "128x96"), "%s", text);
  g_free (text);
}
GST_END_TEST;

GST_START_TEST (test_no_warning_when_negotiated)
{
  gboolean eos;
  /* a downscale behind videoconvert */
  gchar *text = run_for_warning ("videotestsrc num-buffers=2 ! "
      "capsfilter name=in ! videoconvert ! " FACTORY " name=ss ! "
      "video/x-raw,width=32,height=24 ! fakesink",
      "video/x-raw,width=64,height=48", &eos);
  fail_unless (eos && text == NULL, "%s", text ? text : "no EOS");
  /* upstream can produce the larger size: it is asked to */
  text = run_for_warning ("videotestsrc num-buffers=2 ! " FACTORY " name=ss ! "
      "video/x-raw,width=400,height=300 ! fakesink", NULL, &eos);
  fail_unless (eos && text == NULL, "%s", text ? text : "no EOS");
}
GST_END_TEST;

/* The warnings for an empty caps answer (upstream's 64x48 against
 * downstream's 64x96: one axis is enough): one per run, as said where the
 * element arms them, none while stopped, and one again once restarted. */
GST_START_TEST (test_upscale_warning_once_per_run)
{
  GstBus *bus;
  GstHarness *h = harness_with_bus (&bus);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY8,width=64,"
      "height=96,framerate=30/1");
  GstCaps *filter = gst_caps_from_string ("video/x-raw,format=GRAY8,"
      "width=64,height=48,framerate=30/1");
  /* the harness started the element: stopped before any warning first */
  const GstState state[] = { GST_STATE_READY, GST_STATE_PLAYING,
    GST_STATE_PLAYING, GST_STATE_READY, GST_STATE_PLAYING, GST_STATE_PLAYING
  };
  const gint want[] = { 0, 1, 0, 0, 1, 0 };
  for (guint i = 0; i < G_N_ELEMENTS (state); i++) {
    fail_unless (gst_element_set_state (h->element, state[i]) ==
        GST_STATE_CHANGE_SUCCESS);
    GstCaps *caps = gst_pad_peer_query_caps (h->srcpad, filter);
    fail_unless (gst_caps_is_empty (caps), "an upscale was offered: %"
        GST_PTR_FORMAT, caps);
    gst_caps_unref (caps);
    gint n = 0;
    GstMessage *m;
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
      GError *err = NULL;
      gst_message_parse_warning (m, &err, NULL);
      fail_unless (strstr (err->message, "at least 64x96") != NULL,
          "query %u: %s", i, err->message);
      g_error_free (err);
      gst_message_unref (m);
      n++;
    }
    fail_unless (n == want[i], "query %u (%s): %d warnings, want %d", i,
        gst_element_state_get_name (state[i]), n, want[i]);
  }
  gst_caps_unref (filter);
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Sizes given as lists: towards the output each structure allows 1 up to
 * its largest size, towards the input its smallest size and up, whatever
 * the order of the list. */
GST_START_TEST (test_size_lists)
{
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  GstBaseTransformClass *bt = GST_BASE_TRANSFORM_GET_CLASS (e);
  const gchar *lists[] = { "width={ 64, 32 },height={ 48, 24 }",
    "width={ 32, 64 },height={ 24, 48 }"
  };
  for (guint i = 0; i < G_N_ELEMENTS (lists); i++) {
    gchar *s = g_strdup_printf ("video/x-raw,format=GRAY8,%s,framerate=30/1",
        lists[i]);
    GstCaps *in = gst_caps_from_string (s);
    GstCaps *out = bt->transform_caps (GST_BASE_TRANSFORM (e), GST_PAD_SINK,
        in, NULL);
    GstCaps *up = bt->transform_caps (GST_BASE_TRANSFORM (e), GST_PAD_SRC,
        in, NULL);
    const struct
    {
      GstCaps *caps;
      const gchar *size;
      gboolean allowed;
    } c[] = {
      {out, "width=64,height=48", TRUE}, {out, "width=1,height=1", TRUE},
      {out, "width=65,height=48", FALSE}, {up, "width=32,height=24", TRUE},
      {up, "width=4096,height=4096", TRUE}, {up, "width=31,height=24", FALSE},
    };
    for (guint k = 0; k < G_N_ELEMENTS (c); k++) {
      gchar *t = g_strdup_printf ("video/x-raw,format=GRAY8,%s,"
          "framerate=30/1", c[k].size);
      GstCaps *one = gst_caps_from_string (t);
      fail_unless (gst_caps_can_intersect (c[k].caps, one) == c[k].allowed,
          "%s: %s %s the %s: %" GST_PTR_FORMAT, lists[i], c[k].size,
          c[k].allowed ? "not offered to" : "offered to",
          c[k].caps == out ? "output" : "input", c[k].caps);
      gst_caps_unref (one);
      g_free (t);
    }
    gst_caps_unref (in);
    gst_caps_unref (out);
    gst_caps_unref (up);
    g_free (s);
  }
  gst_object_unref (e);
}
GST_END_TEST;

/* Negotiate RGBA @iw x @ih (pixel aspect ratio @ipar, NULL: 1/1) against
 * @sink_caps, push a frame; the output size and pixel aspect ratio must be
 * as given. */
static void
check_fixation (gint iw, gint ih, const gchar * ipar, const gchar * sink_caps,
    gint ew, gint eh, gint epn, gint epd)
{
  GstHarness *h = gst_harness_new (FACTORY);
  gchar *ic = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,height=%d,"
      "framerate=30/1,pixel-aspect-ratio=%s", iw, ih, ipar ? ipar : "1/1");
  gchar *oc = g_strdup_printf ("video/x-raw,format=RGBA,framerate=30/1,%s",
      sink_caps);
  gst_harness_set_src_caps_str (h, ic);
  gst_harness_set_sink_caps_str (h, oc);
  GstBuffer *in = gst_buffer_new_and_alloc ((gsize) iw * ih * 4);
  gst_buffer_memset (in, 0, 0x80, (gsize) iw * ih * 4);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL, "%s: no output", sink_caps);
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstStructure *st = gst_caps_get_structure (caps, 0);
  gint w = 0, hh = 0, pn = 0, pd = 0;
  gst_structure_get_int (st, "width", &w);
  gst_structure_get_int (st, "height", &hh);
  gst_structure_get_fraction (st, "pixel-aspect-ratio", &pn, &pd);
  fail_unless (w == ew && hh == eh && pn == epn && pd == epd,
      "%dx%d -> %s: got %dx%d %d/%d, want %dx%d %d/%d", iw, ih, sink_caps, w,
      hh, pn, pd, ew, eh, epn, epd);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (ic);
  g_free (oc);
}

/* The display aspect ratio is kept as videoscale keeps it: the free axis
 * follows the other (rounded), a size clamped by downstream makes the other
 * axis follow it, and where no size pair keeps it exactly a free pixel
 * aspect ratio takes up the rest. */
GST_START_TEST (test_aspect_ratio_kept)
{
  static const struct
  {
    gint iw, ih;
    const gchar *caps;
    gint w, h, pn, pd;
    const gchar *ipar;          /* NULL: 1/1 */
  } t[] = {
    {640, 480, "width=320,height=[1,2147483647],pixel-aspect-ratio=1/1", 320,
        240, 1, 1},
    /* both sizes fixed: the pixel aspect ratio keeps the display ratio */
    {640, 480, "width=320,height=480,pixel-aspect-ratio=[1/100,100/1]", 320,
        480, 2, 1},
    /* a box: both axes clamped, the picture fits inside it */
    {640, 480, "width=[1,320],height=[1,320],pixel-aspect-ratio=1/1", 320,
        240, 1, 1},
    {640, 480, "width=[1,320],pixel-aspect-ratio=1/1", 320, 240, 1, 1},
    {640, 480, "height=[1,240]", 320, 240, 1, 1},
    /* no size pair keeps 4:3 with square pixels: the ratio absorbs it */
    {640, 480, "width=320,height=[1,100]", 320, 100, 5, 12},
    /* a fixed height whose width is clamped: the nearest allowed width */
    {640, 480, "height=240,width=[400,640],pixel-aspect-ratio=1/1", 400, 240,
        1, 1},
    {640, 480, "height=240,width=[400,640],pixel-aspect-ratio=[1/1,2/1]", 400,
        240, 1, 1},
    /* the ratio that would absorb the error must still be one downstream
     * allows (10/9 wanted here): the nearest of its list */
    {640, 480, "width=[1,300],height=[250,480],pixel-aspect-ratio={1/1,2/1}",
        300, 250, 1, 1},
    /* 563 * 16 / 9 = 1000.9: rounded, not truncated */
    {1920, 1080, "height=563,pixel-aspect-ratio=1/1", 1001, 563, 1, 1},
    /* the width clamped, the height following it: 101 * 3 / 4 = 75.75,
     * rounded too */
    {640, 480, "width=[1,101]", 101, 76, 1, 1},
    /* a pixel aspect ratio too extreme to compute the display ratio with
     * keeps the picture's shape in pixels (it fixated to 1x5 before); 0/1
     * (unknown) is taken as square */
    {33, 17, "height=5", 10, 5, G_MAXINT, 1, "2147483647/1"},
    {33, 17, "height=5", 10, 5, 1, G_MAXINT, "1/2147483647"},
    /* ... and where no size pair keeps that shape, keeps its pixel aspect
     * ratio still (the display ratio to absorb the error cannot be
     * computed: 80/99 would be its shape in pixels, not the picture's) */
    {64, 48, "width=33,height=[1,20]", 33, 20, G_MAXINT, 1, "2147483647/1"},
    {33, 17, "height=5", 10, 5, 1, 1, "0/1"},
    {640, 480, "height=240", 320, 240, 2, 1, "2/1"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    check_fixation (t[i].iw, t[i].ih, t[i].ipar, t[i].caps, t[i].w, t[i].h,
        t[i].pn, t[i].pd);
}
GST_END_TEST;

/* An unknown pixel aspect ratio (0/1) upstream is taken as square, also
 * where upstream asks what it may send (a source that negotiates, not the
 * harness's fixed caps): the caps query and ACCEPT_CAPS answered only
 * ratios from 1/2147483647 up, so videotestsrc with 0/1 failed with
 * not-negotiated against any downscale. */
GST_START_TEST (test_unknown_par_upstream)
{
  const gchar *in = "video/x-raw,format=RGBA,width=33,height=17,"
      "framerate=30/1,pixel-aspect-ratio=0/1";
  GstHarness *h = gst_harness_new (FACTORY);
  gst_harness_set_sink_caps_str (h,
      "video/x-raw,format=RGBA,height=5,framerate=30/1");
  GstCaps *caps = gst_caps_from_string (in);
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");
  fail_unless (gst_pad_query_accept_caps (sink, caps),
      "%s refused", in);
  /* what a source asks before it sends */
  GstCaps *allowed = gst_pad_query_caps (sink, caps);
  fail_if (gst_caps_is_empty (allowed), "caps query with %s: empty", in);
  gst_caps_unref (allowed);
  gst_object_unref (sink);
  gst_caps_unref (caps);
  gchar *launch = g_strdup_printf ("videotestsrc pattern=gradient ! "
      "capsfilter caps=\"%s\"", in);
  gst_harness_add_src_parse (h, launch, FALSE);
  g_free (launch);
  fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  caps = gst_pad_get_current_caps (h->sinkpad);
  GstStructure *st = gst_caps_get_structure (caps, 0);
  gint w = 0, hh = 0, pn = 0, pd = 0;
  gst_structure_get_int (st, "width", &w);
  gst_structure_get_int (st, "height", &hh);
  gst_structure_get_fraction (st, "pixel-aspect-ratio", &pn, &pd);
  fail_unless (w == 10 && hh == 5 && pn == 1 && pd == 1,
      "33x17 at 0/1 -> height=5: got %dx%d at %d/%d, want 10x5 at 1/1", w,
      hh, pn, pd);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* RGBA @iw x @ih to @ow x @oh with a region of interest @r: it must come
 * out as @e (ci_check_roi_meta). */
static void
check_roi_scaled (gint iw, gint ih, gint ow, gint oh, const guint r[4],
    const guint e[4])
{
  GstHarness *h = gst_harness_new (FACTORY);
  gchar *ic = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,height=%d,"
      "framerate=30/1", iw, ih);
  gchar *oc = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,height=%d,"
      "framerate=30/1", ow, oh);
  gst_harness_set_src_caps_str (h, ic);
  gst_harness_set_sink_caps_str (h, oc);
  GstBuffer *in = gst_buffer_new_and_alloc ((gsize) iw * ih * 4);
  gst_buffer_memset (in, 0, 0x80, (gsize) iw * ih * 4);
  ci_check_roi_meta (h, in, r, e);
  gst_harness_teardown (h);
  g_free (ic);
  g_free (oc);
}

/* A region of interest is scaled with the picture (as videoscale does). */
GST_START_TEST (test_roi_meta_scaled)
{
  const guint r[4] = { 400, 300, 200, 160 }, e[4] = { 100, 75, 50, 40 };
  check_roi_scaled (640, 480, 160, 120, r, e);
  /* the width unchanged, the size still changes: y and h are halved, x and
   * w kept (not copied unscaled) */
  const guint r2[4] = { 8, 10, 32, 20 }, e2[4] = { 8, 5, 32, 10 };
  check_roi_scaled (64, 48, 64, 24, r2, e2);
  /* the height unchanged: x and w are halved, y and h kept */
  const guint r3[4] = { 8, 10, 32, 20 }, e3[4] = { 4, 10, 16, 20 };
  check_roi_scaled (64, 48, 32, 48, r3, e3);
}
GST_END_TEST;

/* Scaling keeps the colours: a meta that describes the colour space
 * (tagged video and colorspace only) still holds and is kept
 * (GST_CI_METAS_GEOMETRY_COLORSPACE), downscaled or passed through. */
GST_START_TEST (test_colorspace_meta_kept)
{
  const gint size[2][2] = { {32, 24}, {64, 48} };
  for (guint i = 0; i < 2; i++) {
    GstHarness *h = gst_harness_new (FACTORY);
    gchar *oc = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,"
        "height=%d,framerate=30/1", size[i][0], size[i][1]);
    gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,"
        "height=48,framerate=30/1");
    gst_harness_set_sink_caps_str (h, oc);
    GstBuffer *in = gst_buffer_new_and_alloc (64 * 48 * 4);
    gst_buffer_memset (in, 0, 0x80, 64 * 48 * 4);
    ci_check_colorspace_meta (h, in, TRUE);
    gst_harness_teardown (h);
    g_free (oc);
  }
}
GST_END_TEST;

GST_START_TEST (test_interlaced_refused)
{
  /* scaling mixes the fields: refused */
  ci_check_interlaced_refused (FACTORY, "RGBA",
      "video/x-raw,format=RGBA,width=32,height=16");
  /* equal caps pass through untouched, interlaced or not */
  check_passthrough ("video/x-raw,format=RGBA,width=64,height=48,"
      "framerate=30/1,interlace-mode=interleaved");
}
GST_END_TEST;

/* a larger video meta, a short buffer (ci_check_buffer_layouts) */
GST_START_TEST (test_buffer_layouts)
{
  ci_check_buffer_layouts (FACTORY " ! capsfilter caps=video/x-raw,width=13,height=7",
      "video/x-raw,format=RGBA,width=37,height=21,framerate=30/1");
}
GST_END_TEST;

static void
add_common_cases (TCase * tc)
{
  tcase_add_test (tc, test_buffer_layouts);
  tcase_add_test (tc, test_all_formats);
  tcase_add_test (tc, test_extreme_ratios);
  tcase_add_test (tc, test_caps_changes);
  tcase_add_test (tc, test_passthrough_on_equal_caps);
  tcase_add_test (tc, test_upscale_refused);
  tcase_add_test (tc, test_each_upscale_explained);
  tcase_add_test (tc, test_upscale_explained);
  tcase_add_test (tc, test_no_warning_when_negotiated);
  tcase_add_test (tc, test_upscale_warning_once_per_run);
  tcase_add_test (tc, test_size_lists);
  tcase_add_test (tc, test_aspect_ratio_kept);
  tcase_add_test (tc, test_unknown_par_upstream);
  tcase_add_test (tc, test_interlaced_refused);
  tcase_add_test (tc, test_refusal_after_renegotiation);
  tcase_add_test (tc, test_roi_meta_scaled);
  tcase_add_test (tc, test_colorspace_meta_kept);
}
