/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "citest_cuda.h"
#include <gst/cuda/gstcudautils.h>  /* CuInit etc., through GStreamer's loader */
#include <stdlib.h>
#include <string.h>

int
ci_gst_cuda_device_count (void)
{
  int n = 0;
  if (!gst_cuda_load_library () || CuInit (0) != CUDA_SUCCESS
      || CuDeviceGetCount (&n) != CUDA_SUCCESS)
    return 0;
  return n;
}

static gint
context_device (gpointer ctx)
{
  guint dev = G_MAXUINT;
  fail_unless (ctx != NULL, "no CUDA context");
  g_object_get (ctx, "cuda-device-id", &dev, NULL);
  return (gint) dev;
}

/* the device of the CUDA memory of every buffer that crossed the pad, in
 * *user: -1 none yet, -2 not all the same, -3 other memory */
static GstPadProbeReturn
note_device (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  gint *seen = user;
  GstMemory *m = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0);
  const gint d = gst_is_cuda_memory (m) ?
      context_device (GST_CUDA_MEMORY_CAST (m)->context) : -3;
  if (*seen == -1)
    *seen = d;
  else if (*seen != d)
    *seen = -2;
  return GST_PAD_PROBE_OK;
}

static void
probe_device (GstElement * e, const char *pad_name, gint * seen)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  *seen = -1;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, note_device, seen, NULL);
  gst_object_unref (pad);
}

/* @in (a reference is taken) through @launch's element "dev", which must
 * run on @device, in one context with the elements named @share (NULL or
 * up to two names); its output, which must show @ref's picture */
static void
check_on_device (const char *launch, const char *caps, GstBuffer * in,
    GstBuffer * ref, const GstVideoInfo * oi, gint device, const char *what,
    const char *const share[2])
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstElement *dev = gst_bin_get_by_name (GST_BIN (h->element), "dev");
  fail_unless (dev != NULL);
  gst_harness_set_src_caps_str (h, caps);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output", launch);
  fail_unless_equals_int (context_device (ci_cuda_context_of (dev)), device);
  for (int i = 0; share && i < 2 && share[i]; i++)
    ci_check_shared_context (h, share[i], "dev");
  ci_same_picture (ref, out, oi, launch, what);
  gst_buffer_unref (out);
  gst_object_unref (dev);
  gst_harness_teardown (h);
}

void
ci_check_devices (const char *factory, const char *props,
    const char *out_fields, const char *caps)
{
  const int n = ci_gst_cuda_device_count ();
  fail_unless (n > 0, "no CUDA device");
  g_print ("%s: %d CUDA device%s\n", factory, n, n == 1 ? "" : "s");
  GstVideoInfo info, oi;
  const guint8 *ptr;
  GstBuffer *in = ci_random_frame (caps, &info, 4242, &ptr);

  /* the default device's output */
  gchar *launch = g_strdup_printf ("%s name=dev %s ! "
      "capsfilter caps=video/x-raw,%s", factory, props, out_fields);
  GstBuffer *ref = ci_push_one (launch, caps, gst_buffer_ref (in), &oi);
  g_free (launch);

  const int last = MIN (n, 2) - 1;
  for (int d = 0; d <= last; d++) {
    launch = g_strdup_printf ("%s name=dev cuda-device-id=%d %s ! "
        "capsfilter caps=video/x-raw,%s", factory, d, props, out_fields);
    check_on_device (launch, caps, in, ref, &oi, d, "another device", NULL);
    g_free (launch);
  }

  /* set in READY: the context made for device 0 is dropped, and the next
   * caps make one on the new device */
  gchar *desc = g_strdup_printf ("%s cuda-device-id=0 %s", factory, props);
  GstElement *e = gst_parse_launch (desc, NULL);
  fail_unless (e != NULL, "%s", desc);
  gst_object_ref_sink (e);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (context_device (ci_cuda_context_of (e)), 0);
  g_object_set (e, "cuda-device-id", last, NULL);
  fail_unless (last == 0 || ci_cuda_context_of (e) == NULL,
      "%s: device 0's context kept after cuda-device-id=%d in READY", desc,
      last);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gchar *sink_caps = g_strdup_printf ("video/x-raw,%s", out_fields);
  gst_harness_set_sink_caps_str (h, sink_caps);
  gst_harness_set_src_caps_str (h, caps);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output", desc);
  fail_unless_equals_int (context_device (ci_cuda_context_of (e)), last);
  ci_same_picture (ref, out, &oi, desc, "a device set in READY");
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  gst_object_unref (e);
  g_free (sink_caps);
  g_free (desc);

  /* no such device: READY fails with one error that names it */
  e = gst_element_factory_make (factory, NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  g_object_set (e, "cuda-device-id", n, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  gchar *text = ci_pop_error (bus, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, NULL);
  gchar *want = g_strdup_printf ("CUDA device %d", n);
  fail_unless (strstr (text, want) != NULL, "%s: \"%s\" does not say \"%s\"",
      factory, text, want);
  g_free (want);
  g_free (text);
  ci_bus_done (e, bus);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);

  /* CUDA memory from device 0 into the element on device 1, out again to
   * device 0: through peer access where the devices have it, else through
   * host memory */
  if (n >= 2 && ci_have_cudaupload ()) {
    launch = g_strdup_printf ("cudaupload name=up cuda-device-id=0 ! "
        "video/x-raw(memory:CUDAMemory) ! %s name=dev cuda-device-id=1 %s ! "
        "video/x-raw(memory:CUDAMemory),%s ! cudadownload cuda-device-id=0",
        factory, props, out_fields);
    h = gst_harness_new_parse (launch);
    GstElement *dev = gst_bin_get_by_name (GST_BIN (h->element), "dev");
    GstElement *up = gst_bin_get_by_name (GST_BIN (h->element), "up");
    gint seen_in, seen_out;
    probe_device (dev, "sink", &seen_in);
    probe_device (dev, "src", &seen_out);
    ci_watch_memory (dev);
    gst_harness_set_src_caps_str (h, caps);
    for (int k = 0; k < 2; k++) {
      out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (out != NULL, "%s: no output", launch);
      ci_same_picture (ref, out, &oi, launch, "CUDA memory of another device");
      gst_buffer_unref (out);
    }
    ci_check_cuda_memory (dev);
    fail_unless_equals_int (seen_in, 0);
    fail_unless_equals_int (seen_out, 1);
    gpointer cd = ci_cuda_context_of (dev), cu = ci_cuda_context_of (up);
    fail_unless_equals_int (context_device (cd), 1);
    fail_unless_equals_int (context_device (cu), 0);
    const gchar *off = g_getenv ("CI_NO_PEER_ACCESS");
    g_print ("%s: device 0's CUDA memory read on device 1 %s\n", factory,
        gst_cuda_context_can_access_peer (cd, cu) && !(off && atoi (off)) ?
        "by peer access" : "through host memory");
    gst_object_unref (up);
    gst_object_unref (dev);
    gst_harness_teardown (h);
    g_free (launch);

    /* cuda-device-id=-1 takes the context of a neighbour on device 1 that
     * deals in CUDA memory: upstream's, or downstream's after system memory */
    for (int with_up = 1; with_up >= 0; with_up--) {
      launch = g_strdup_printf ("%s%s name=dev %s ! "
          "video/x-raw(memory:CUDAMemory),%s ! cudadownload name=down "
          "cuda-device-id=1", with_up ? "cudaupload name=up cuda-device-id=1 "
          "! video/x-raw(memory:CUDAMemory) ! " : "", factory, props,
          out_fields);
      const char *const share[2] = { "down", with_up ? "up" : NULL };
      check_on_device (launch, caps, in, ref, &oi, 1, "the neighbour's device",
          share);
      g_free (launch);
    }
  }
  gst_buffer_unref (ref);
  gst_buffer_unref (in);
}

void
ci_check_device_id_property (const char *factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  fail_unless (e != NULL, "no element %s", factory);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "cuda-device-id");
  fail_unless (ps != NULL && G_IS_PARAM_SPEC_INT (ps),
      "%s: no int property cuda-device-id", factory);
  const GParamSpecInt *pi = G_PARAM_SPEC_INT (ps);
  fail_unless (pi->minimum == -1 && pi->maximum == G_MAXINT
      && pi->default_value == -1, "%s cuda-device-id: range %d..%d, "
      "default %d", factory, pi->minimum, pi->maximum, pi->default_value);
  fail_unless ((ps->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE
      && (ps->flags & GST_PARAM_MUTABLE_READY),
      "%s cuda-device-id: not read-write and changeable in READY", factory);
  ci_check_param_flags (e, "cuda-device-id", 0, 0);
  const gint v[] = { 3, 0, -1 };
  for (guint i = 0; i < G_N_ELEMENTS (v); i++) {
    gint got = -2;
    g_object_set (e, "cuda-device-id", v[i], NULL);
    g_object_get (e, "cuda-device-id", &got, NULL);
    fail_unless_equals_int (got, v[i]);
  }
  gst_object_unref (e);
}

/* a peer's answer to caps queries: the caps in its "ci-caps" data */
static gboolean
answer_caps (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return FALSE;
  GstCaps *filter = NULL;
  GstCaps *caps =
      gst_caps_ref (g_object_get_data (G_OBJECT (pad), "ci-caps"));
  gst_query_parse_caps (query, &filter);
  if (filter) {
    GstCaps *t = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = t;
  }
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  return TRUE;
}

/* whether every structure of @caps in CUDA memory (@cuda) or in system
 * memory comes before every structure in the other, and there is one */
static gboolean
grouped_first (GstCaps * caps, gboolean cuda)
{
  gint last_same = -1, first_other = G_MAXINT;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    const gboolean c = f && gst_caps_features_contains (f,
        GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    if (c == cuda)
      last_same = i;
    else if (first_other == G_MAXINT)
      first_other = i;
  }
  return last_same >= 0 && last_same < first_other;
}

void
ci_check_memory_preference (const char *factory, const char *in_caps,
    const char *out_caps)
{
  for (int cuda = 0; cuda <= 1; cuda++) {
    for (int down = 0; down <= 1; down++) {
      GstElement *e = gst_element_factory_make (factory, NULL);
      fail_unless (e != NULL, "no element %s", factory);
      GstCaps *peer_caps = gst_caps_from_string (down ? out_caps : in_caps);
      fail_unless (peer_caps != NULL);
      if (cuda)
        gst_caps_set_features_simple (peer_caps,
            gst_caps_features_new_single (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
      GstPad *peer = gst_pad_new ("peer", down ? GST_PAD_SINK : GST_PAD_SRC);
      g_object_set_data_full (G_OBJECT (peer), "ci-caps", peer_caps,
          (GDestroyNotify) gst_caps_unref);
      gst_pad_set_query_function (peer, answer_caps);
      GstPad *near = gst_element_get_static_pad (e, down ? "src" : "sink");
      GstPad *far = gst_element_get_static_pad (e, down ? "sink" : "src");
      fail_unless_equals_int (down ? gst_pad_link (near, peer) :
          gst_pad_link (peer, near), GST_PAD_LINK_OK);
      GstCaps *got = gst_pad_query_caps (far, NULL);
      gchar *what = g_strdup_printf ("%s, %s peer in %s memory: %s pad",
          factory, down ? "downstream" : "upstream", cuda ? "CUDA" : "system",
          down ? "sink" : "src");
      gchar *text = gst_caps_to_string (got);
      fail_unless (grouped_first (got, cuda), "%s: %s", what, text);
      g_free (text);
      g_free (what);
      gst_caps_unref (got);
      if (down)
        gst_pad_unlink (near, peer);
      else
        gst_pad_unlink (peer, near);
      gst_object_unref (near);
      gst_object_unref (far);
      gst_object_unref (peer);
      gst_object_unref (e);
    }
  }
}

static GstBuffer *
frame_for (const char *caps)
{
  GstVideoInfo info;
  const guint8 *data;
  return ci_random_frame (caps, &info, 4242, &data);
}

void
ci_check_oom_on_caps_change (const char *factory, const char *props,
    const char *small_caps, const char *small_out, const char *big_caps,
    const char *big_out)
{
  gchar *desc = g_strdup_printf ("%s %s", factory, props);
  GstHarness *h = gst_harness_new_parse (desc);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, small_caps);
  gst_harness_set_sink_caps_str (h, small_out);
  GstBuffer *out = gst_harness_push_and_pull (h, frame_for (small_caps));
  fail_unless (out != NULL, "%s: no output at %s", desc, small_caps);
  gst_buffer_unref (out);

  GstCudaContext *ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  fail_unless (gst_cuda_context_push (ctx));
  GPtrArray *hog = g_ptr_array_new ();
  for (gsize chunk = (gsize) 1 << 30; chunk >= ((gsize) 1 << 20); chunk >>= 2) {
    CUdeviceptr d;
    while (CuMemAlloc (&d, chunk) == CUDA_SUCCESS)
      g_ptr_array_add (hog, (gpointer) (guintptr) d);
  }
  gst_cuda_context_pop (NULL);

  gst_harness_set_sink_caps_str (h, big_out);
  gst_harness_set_src_caps_str (h, big_caps);
  GstFlowReturn r = gst_harness_push (h, frame_for (big_caps));
  fail_unless (r != GST_FLOW_OK, "%s: a frame went through with no GPU "
      "memory left", desc);
  gchar *text = ci_pop_error (bus, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NO_SPACE_LEFT, NULL);
  fail_unless (strstr (text, "Out of GPU memory") != NULL, "%s: %s", desc,
      text);
  g_print ("%s, %u device blocks held: %s\n", desc, hog->len, text);
  g_free (text);
  /* a second frame while memory is still short: refused again, but the
   * error is not posted twice (ci_bus_done below) */
  r = gst_harness_push (h, frame_for (big_caps));
  fail_unless (r != GST_FLOW_OK, "%s: a second frame went through with no "
      "GPU memory left", desc);

  fail_unless (gst_cuda_context_push (ctx));
  for (guint i = 0; i < hog->len; i++)
    CuMemFree ((CUdeviceptr) (guintptr) g_ptr_array_index (hog, i));
  gst_cuda_context_pop (NULL);
  g_ptr_array_unref (hog);
  gst_object_unref (ctx);

  /* an out-of-memory refusal is retried with the next buffer, not kept */
  out = gst_harness_push_and_pull (h, frame_for (big_caps));
  fail_unless (out != NULL, "%s: no output once memory was back", desc);
  gst_buffer_unref (out);
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
  g_free (desc);
}
