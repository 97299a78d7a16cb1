/* gst-cuda-imaging: stress program for the cpu* elements
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Build (not part of the meson build):
 *   cc -g -O1 -o cistress tools/stress/cistress.c $(pkg-config --cflags \
 *     --libs gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0 \
 *     gstreamer-app-1.0 gstreamer-controller-1.0)
 * (add -fsanitize=address,undefined against a -Db_sanitize=address,undefined
 * build, with GST_REGISTRY_FORK=no so the plugin loads in this process).
 *
 * cistress MODE ELEMENT [SECONDS] [SEED] [N]
 *   props : appsrc ! ELEMENT ! capsfilter ! appsink, every writable
 *           property of ELEMENT set to random valid values (often the ends
 *           of their ranges) from another thread while PLAYING; one in 50
 *           also the READY-only ones (sgm's layout)
 *   caps  : new input caps every few frames (1x1 ... 4097x5, every sink
 *           format, extreme pixel aspect ratios), downstream capsfilter caps
 *           changed and reconfigure events sent while PLAYING
 *           (CISTRESS_PROPS=1: and the property thread of props)
 *   bad   : short, empty, split, oversized and odd-meta (odd strides and
 *           offsets, a meta smaller or larger than the caps) buffers,
 *           buffers without timestamps, gap and segment events
 *   ctrl  : interpolation control sources on every controllable property,
 *           with the property thread on the others
 *   states: N pipelines (default 4), each from its own thread, through
 *           random NULL/READY/PAUSED/PLAYING changes, flushing seeks,
 *           flushes from upstream with buffers in flight, EOS and restart
 * Errors posted by the element are expected (refused caps, an unreadable
 * kernel) and restart the pipeline; what fails a run is an output buffer
 * that does not match its caps, a GLib warning or critical, or a crash;
 * a stall of 20 s aborts (run under gdb for the stacks). Every pixel byte
 * of each output is read, so valgrind reports output never written.
 * CISTRESS_SRCDIR: the source tree (image kernels); CISTRESS_VERBOSE=1
 * prints every property set and every error; CI_MIN_SLICE_BYTES=1 makes
 * the elements split even small frames among their threads;
 * CISTRESS_NOFMT=1 (supersample, caps) keeps the format out of downstream
 * caps and prints the caps of each refusal other than an upscale.
 * Exit status: 0 clean, 1 problems, 2 usage.
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/base/gstbasetransform.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <stdlib.h>
#include <string.h>

static const gchar *mode, *elem_name;
static gdouble seconds = 10;
static guint seed = 1;
static gint n_pipes = 4;
static volatile gint g_criticals, g_bad_frames, g_frames, g_errors;
static volatile gint g_last_progress;  /* monotonic seconds */
static volatile gint g_stop;
static const gchar *srcdir = ".";

static void
log_handler (const gchar * domain, GLogLevelFlags level, const gchar * msg,
    gpointer user)
{
  if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_ERROR)) {
    g_atomic_int_inc (&g_criticals);
    g_printerr ("GLIB %s: %s: %s\n",
        (level & G_LOG_LEVEL_CRITICAL) ? "CRITICAL" : "WARNING",
        domain ? domain : "", msg);
  }
}

/* ---- caps ---- */

static GstCaps *
template_caps (GstElementFactory * f, GstPadDirection dir)
{
  for (const GList * l = gst_element_factory_get_static_pad_templates (f); l;
      l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (t->direction == dir)
      return gst_static_caps_get (&t->static_caps);
  }
  return NULL;
}

/* the formats of a template (the system-memory structure) */
static GPtrArray *
template_formats (GstElementFactory * f, GstPadDirection dir)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  GstCaps *c = template_caps (f, dir);
  for (guint i = 0; i < gst_caps_get_size (c); i++) {
    GstCapsFeatures *feat = gst_caps_get_features (c, i);
    if (feat && !gst_caps_features_is_equal (feat,
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      continue;
    const GValue *v = gst_structure_get_value (gst_caps_get_structure (c, i),
        "format");
    if (GST_VALUE_HOLDS_LIST (v)) {
      for (guint k = 0; k < gst_value_list_get_size (v); k++)
        g_ptr_array_add (a,
            g_value_dup_string (gst_value_list_get_value (v, k)));
    } else if (G_VALUE_HOLDS_STRING (v))
      g_ptr_array_add (a, g_value_dup_string (v));
  }
  gst_caps_unref (c);
  return a;
}

static gint
rnd_size (GRand * r, gint typical)
{
  static const gint odd[] = { 1, 2, 3, 4, 5, 7, 17, 33, 127 };
  switch (g_rand_int_range (r, 0, 10)) {
    case 0:
    case 1:
      return odd[g_rand_int_range (r, 0, G_N_ELEMENTS (odd))];
    case 2:
      return g_rand_int_range (r, 1, 300);
    default:
      return g_rand_int_range (r, typical / 2, typical + 1);
  }
}

typedef struct
{
  GstElement *pipe, *src, *elem, *filter, *sink;
  GPtrArray *formats;
  GRand *rand;
  gint id;
  GstVideoInfo in_info;
  GstClockTime pts;
  gboolean allow_errors;
} Pipe;

static gboolean is_sgm, is_tm, is_ss, is_fb;

/* input caps of w x h in one of the sink template's formats */
static GstCaps *
make_in_caps (Pipe * p, gint w, gint h, const gchar * fmt)
{
  GstCaps *c = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      fmt, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h, "framerate",
      GST_TYPE_FRACTION, 30, 1, NULL);
  if (is_tm && g_rand_boolean (p->rand))
    gst_caps_set_simple (c, "colorimetry", G_TYPE_STRING,
        g_rand_boolean (p->rand) ? "bt2100-pq" : "bt2100-hlg", NULL);
  if (is_ss && g_rand_int_range (p->rand, 0, 2) == 0) {
    static const gint par[][2] = { {1, 1}, {2, 1}, {1, 2}, {G_MAXINT, 1},
    {1, G_MAXINT}, {0, 1}, {16, 15}, {G_MAXINT, G_MAXINT - 1}
    };
    gint k = g_rand_int_range (p->rand, 0, G_N_ELEMENTS (par));
    gst_caps_set_simple (c, "pixel-aspect-ratio", GST_TYPE_FRACTION,
        par[k][0], par[k][1], NULL);
  }
  if (is_sgm && g_rand_int_range (p->rand, 0, 4) == 0)
    gst_caps_set_simple (c, "multiview-mode", G_TYPE_STRING,
        g_rand_boolean (p->rand) ? "side-by-side" : "top-bottom", NULL);
  return c;
}

/* ---- buffers and output checks ---- */

static GstBuffer *
make_buffer (Pipe * p, gsize size)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo m;
  gst_buffer_map (b, &m, GST_MAP_WRITE);
  for (gsize i = 0; i < size; i++)
    m.data[i] = (guint8) g_rand_int (p->rand);
  gst_buffer_unmap (b, &m);
  GST_BUFFER_PTS (b) = p->pts;
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  p->pts += GST_SECOND / 30;
  return b;
}

static GstFlowReturn
on_sample (GstAppSink * sink, gpointer user)
{
  Pipe *p = user;
  GstSample *s = gst_app_sink_pull_sample (sink);
  if (!s)
    return GST_FLOW_OK;
  GstCaps *caps = gst_sample_get_caps (s);
  GstBuffer *b = gst_sample_get_buffer (s);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps)) {
    g_printerr ("[%d] BAD: sample without video caps\n", p->id);
    g_atomic_int_inc (&g_bad_frames);
  } else if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (p->elem))) {
    /* passed through untouched: whatever came in */
  } else {
    GstVideoMeta *vm = gst_buffer_get_video_meta (b);
    if (vm) {
      if ((gint) vm->width != GST_VIDEO_INFO_WIDTH (&info)
          || (gint) vm->height != GST_VIDEO_INFO_HEIGHT (&info)
          || vm->format != GST_VIDEO_INFO_FORMAT (&info)) {
        gchar *cs = gst_caps_to_string (caps);
        g_printerr ("[%d] BAD: meta %ux%u %s, caps %s\n", p->id, vm->width,
            vm->height, gst_video_format_to_string (vm->format), cs);
        g_free (cs);
        g_atomic_int_inc (&g_bad_frames);
      }
    } else if (gst_buffer_get_size (b) != GST_VIDEO_INFO_SIZE (&info)) {
      gchar *cs = gst_caps_to_string (caps);
      g_printerr ("[%d] BAD: %" G_GSIZE_FORMAT " bytes, caps need %"
          G_GSIZE_FORMAT " %s\n", p->id, gst_buffer_get_size (b),
          GST_VIDEO_INFO_SIZE (&info), cs);
      g_free (cs);
      g_atomic_int_inc (&g_bad_frames);
    }
    /* read every pixel byte (not the rows' padding) and branch on the sum:
     * valgrind reports output that was never written */
    GstVideoFrame f;
    if (gst_video_frame_map (&f, &info, b, GST_MAP_READ)) {
      guint acc = 0;
      for (guint q = 0; q < GST_VIDEO_FRAME_N_PLANES (&f); q++) {
        gint comp[GST_VIDEO_MAX_COMPONENTS];
        gst_video_format_info_component (info.finfo, q, comp);
        const gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&f, comp[0]);
        const gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&f, comp[0]) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&f, comp[0]);
        const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, q);
        for (gint y = 0; y < rows; y++)
          for (gsize x = 0; x < row; x++)
            acc += d[(gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, q) + x];
      }
      if (acc == 0x7fffffff)
        g_printerr ("(sum)\n");
      gst_video_frame_unmap (&f);
    }
  }
  gst_sample_unref (s);
  g_atomic_int_inc (&g_frames);
  g_atomic_int_set (&g_last_progress, (gint) (g_get_monotonic_time () / G_USEC_PER_SEC));
  return GST_FLOW_OK;
}

static GstElement *
make (const gchar * f, const gchar * name)
{
  GstElement *e = gst_element_factory_make (f, name);
  if (!e) {
    g_printerr ("no element %s (GST_PLUGIN_PATH?)\n", f);
    exit (2);
  }
  return e;
}

static void
pipe_build (Pipe * p, gint id, guint s)
{
  memset (p, 0, sizeof *p);
  p->id = id;
  p->rand = g_rand_new_with_seed (s);
  p->pipe = gst_pipeline_new (NULL);
  p->src = make ("appsrc", NULL);
  p->elem = make (elem_name, "elem");
  p->filter = make ("capsfilter", NULL);
  p->sink = make ("appsink", NULL);
  g_object_set (p->src, "format", GST_FORMAT_TIME, "block", FALSE,
      "max-bytes", (guint64) 4 << 20, NULL);
  g_object_set (p->sink, "sync", FALSE, "emit-signals", FALSE, "max-buffers",
      4, NULL);
  GstAppSinkCallbacks cb = { 0 };
  cb.new_sample = on_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (p->sink), &cb, p, NULL);
  gst_bin_add_many (GST_BIN (p->pipe), p->src, p->elem, p->filter, p->sink,
      NULL);
  gst_element_link_many (p->src, p->elem, p->filter, p->sink, NULL);
  p->formats = template_formats (gst_element_get_factory (p->elem),
      GST_PAD_SINK);
}

static void
pipe_free (Pipe * p)
{
  gst_element_set_state (p->pipe, GST_STATE_NULL);
  gst_object_unref (p->pipe);
  g_ptr_array_unref (p->formats);
  g_rand_free (p->rand);
}

/* new input caps on the appsrc (a random format and size) */
static void
pipe_new_input (Pipe * p, gboolean odd_sizes)
{
  const gchar *fmt = g_ptr_array_index (p->formats,
      g_rand_int_range (p->rand, 0, p->formats->len));
  gint w = odd_sizes ? rnd_size (p->rand, 96) : 64 + 2 * g_rand_int_range
      (p->rand, 0, 16);
  gint h = odd_sizes ? rnd_size (p->rand, 64) : 48 + g_rand_int_range
      (p->rand, 0, 16);
  if (odd_sizes && g_rand_int_range (p->rand, 0, 20) == 0) {
    w = 4097;
    h = 5;
  }
  if (odd_sizes && g_rand_int_range (p->rand, 0, 20) == 0) {
    w = 5;
    h = 1031;
  }
  GstCaps *c = make_in_caps (p, w, h, fmt);
  gst_video_info_from_caps (&p->in_info, c);
  gst_app_src_set_caps (GST_APP_SRC (p->src), c);
  gst_caps_unref (c);
}

static gint pipe_poll_bus (Pipe * p, GstClockTime wait, gboolean * eos);

/* appsrc does not block (a blocked push never returns once the element
 * errors out): wait for room, watching the bus; an error is left on the
 * bus for the caller */
static GstFlowReturn
pipe_push (Pipe * p)
{
  GstBus *bus = gst_element_get_bus (p->pipe);
  for (gint i = 0; i < 500; i++) {
    guint64 level = gst_app_src_get_current_level_bytes (GST_APP_SRC (p->src));
    if (level < (4u << 20))
      break;
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_ERROR);
    if (m) {
      gst_bus_post (bus, m);
      break;
    }
    g_usleep (2000);
  }
  gst_object_unref (bus);
  GstBuffer *b = make_buffer (p, GST_VIDEO_INFO_SIZE (&p->in_info));
  return gst_app_src_push_buffer (GST_APP_SRC (p->src), b);
}

static GHashTable *err_counts;
G_LOCK_DEFINE_STATIC (errs);

/* Drains the bus; returns the number of errors seen. */
static gint
pipe_poll_bus (Pipe * p, GstClockTime wait, gboolean * eos)
{
  GstBus *bus = gst_element_get_bus (p->pipe);
  gint errors = 0;
  GstMessage *m;
  while ((m = gst_bus_timed_pop_filtered (bus, errors ? 0 : wait,
              GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_EOS))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
      if (eos)
        *eos = TRUE;
    } else {
      GError *e = NULL;
      gchar *dbg = NULL;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        gst_message_parse_error (m, &e, &dbg);
        errors++;
        g_atomic_int_inc (&g_errors);
      } else
        gst_message_parse_warning (m, &e, &dbg);
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        gchar *key = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (m->src),
            e->message);
        for (gchar * c = key; *c; c++)
          if (g_ascii_isdigit (*c))
            *c = '#';
        G_LOCK (errs);
        if (!err_counts)
          err_counts = g_hash_table_new_full (g_str_hash, g_str_equal,
              g_free, NULL);
        g_hash_table_insert (err_counts, key, GINT_TO_POINTER
            (GPOINTER_TO_INT (g_hash_table_lookup (err_counts, key)) + 1));
        G_UNLOCK (errs);
      }
      static gint shown;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR
          && g_getenv ("CISTRESS_NOFMT") && !strstr (e->message, "downscales")) {
        GstCaps *fc = NULL;
        g_object_get (p->filter, "caps", &fc, NULL);
        GstCaps *ic = gst_video_info_to_caps (&p->in_info);
        gchar *a = gst_caps_to_string (ic), *b = gst_caps_to_string (fc);
        g_printerr ("UNEXPLAINED: in %s filter %s\n", a, b);
        g_free (a);
        g_free (b);
        gst_caps_unref (ic);
        if (fc)
          gst_caps_unref (fc);
      }
      if (!p->allow_errors || g_getenv ("CISTRESS_VERBOSE")
          || g_atomic_int_add (&shown, 1) < 6)
        g_printerr ("[%d] %s from %s: %s (%s)\n", p->id,
            GST_MESSAGE_TYPE_NAME (m), GST_OBJECT_NAME (m->src), e->message,
            dbg ? dbg : "");
      g_clear_error (&e);
      g_free (dbg);
    }
    gst_message_unref (m);
    wait = 0;
  }
  gst_object_unref (bus);
  return errors;
}

/* ---- random property values ---- */

static gboolean
set_random_property (GObject * obj, GRand * r, gboolean allow_errors,
    gboolean include_ready)
{
  guint n;
  GParamSpec **ps = g_object_class_list_properties (G_OBJECT_GET_CLASS (obj),
      &n);
  GPtrArray *cand = g_ptr_array_new ();
  for (guint i = 0; i < n; i++) {
    if (ps[i]->owner_type != G_OBJECT_TYPE (obj)
        || !(ps[i]->flags & G_PARAM_WRITABLE))
      continue;
    if (!include_ready && !(ps[i]->flags & GST_PARAM_MUTABLE_PLAYING))
      continue;
    g_ptr_array_add (cand, ps[i]);
  }
  g_free (ps);
  if (!cand->len) {
    g_ptr_array_free (cand, TRUE);
    return FALSE;
  }
  GParamSpec *p = g_ptr_array_index (cand, g_rand_int_range (r, 0, cand->len));
  g_ptr_array_free (cand, TRUE);
  GValue v = G_VALUE_INIT;
  g_value_init (&v, p->value_type);
  const gboolean edge = g_rand_int_range (r, 0, 4) == 0;
  if (G_IS_PARAM_SPEC_INT (p)) {
    GParamSpecInt *q = G_PARAM_SPEC_INT (p);
    g_value_set_int (&v, edge ? (g_rand_boolean (r) ? q->minimum : q->maximum)
        : g_rand_int_range (r, q->minimum, MIN (q->maximum, q->minimum +
                300) + 1));
  } else if (G_IS_PARAM_SPEC_UINT (p)) {
    GParamSpecUInt *q = G_PARAM_SPEC_UINT (p);
    guint hi = MIN (q->maximum, q->minimum + 300);
    if (!strcmp (p->name, "n-threads"))
      hi = MIN (q->maximum, 8);
    g_value_set_uint (&v, edge ? (g_rand_boolean (r) ? q->minimum : hi)
        : q->minimum + g_rand_int_range (r, 0, hi - q->minimum + 1));
    if (edge && !strcmp (p->name, "bins") && g_rand_boolean (r))
      g_value_set_uint (&v, q->maximum);
  } else if (G_IS_PARAM_SPEC_FLOAT (p)) {
    GParamSpecFloat *q = G_PARAM_SPEC_FLOAT (p);
    g_value_set_float (&v, edge ? (g_rand_boolean (r) ? q->minimum :
            q->maximum) : (gfloat) g_rand_double_range (r, q->minimum,
            q->maximum));
  } else if (G_IS_PARAM_SPEC_DOUBLE (p)) {
    GParamSpecDouble *q = G_PARAM_SPEC_DOUBLE (p);
    g_value_set_double (&v, edge ? (g_rand_boolean (r) ? q->minimum :
            q->maximum) : g_rand_double_range (r, q->minimum, q->maximum));
  } else if (G_IS_PARAM_SPEC_BOOLEAN (p)) {
    g_value_set_boolean (&v, g_rand_boolean (r));
  } else if (G_IS_PARAM_SPEC_ENUM (p)) {
    GEnumClass *ec = G_PARAM_SPEC_ENUM (p)->enum_class;
    g_value_set_enum (&v, ec->values[g_rand_int_range (r, 0,
                ec->n_values)].value);
  } else if (G_IS_PARAM_SPEC_STRING (p)) {
    if (!strcmp (p->name, "kernel-location")) {
      static gchar *paths[4];
      if (!paths[0]) {
        paths[0] = g_build_filename (srcdir, "docs/img/fftbloom-kernel.png",
            NULL);
        paths[1] = g_build_filename (srcdir, "tests/fftbloom/data/k.png",
            NULL);
        paths[2] = g_strdup ("");
        paths[3] = NULL;
      }
      gint k = g_rand_int_range (r, 0, 4);
      if (k == 1 && (!allow_errors || g_rand_int_range (r, 0, 10)))
        k = 0;
      g_value_set_string (&v, paths[k]);
    } else if (!strcmp (p->name, "kernel-center")) {
      static const gchar *c[] = { "auto", "0.5,0.5", "0,0", "1,1", "0,1",
        NULL
      };
      g_value_set_string (&v, c[g_rand_int_range (r, 0, G_N_ELEMENTS (c))]);
    } else {
      g_value_unset (&v);
      return FALSE;
    }
  } else {
    g_value_unset (&v);
    return FALSE;
  }
  if (g_getenv ("CISTRESS_VERBOSE")) {
    gchar *s = g_strdup_value_contents (&v);
    g_printerr ("set %s=%s\n", p->name, s);
    g_free (s);
  }
  g_object_set_property (obj, p->name, &v);
  g_value_unset (&v);
  return TRUE;
}

/* ---- watchdog ---- */

static gpointer
watchdog (gpointer unused)
{
  while (!g_atomic_int_get (&g_stop)) {
    g_usleep (G_USEC_PER_SEC / 2);
    gint64 last = g_atomic_int_get (&g_last_progress);
    if (last && g_get_monotonic_time () / G_USEC_PER_SEC - last > 20) {
      g_printerr ("STALL: no progress for 20 s (frames %d)\n", g_frames);
      abort ();
    }
  }
  return NULL;
}

static void
progress (void)
{
  g_atomic_int_set (&g_last_progress, (gint) (g_get_monotonic_time () / G_USEC_PER_SEC));
}

/* ---- modes ---- */

typedef struct
{
  Pipe *p;
  guint seed;
} PropThread;

static gpointer
prop_thread (gpointer data)
{
  PropThread *t = data;
  GRand *r = g_rand_new_with_seed (t->seed);
  while (!g_atomic_int_get (&g_stop)) {
    set_random_property (G_OBJECT (t->p->elem), r, t->p->allow_errors,
        g_rand_int_range (r, 0, 50) == 0);
    g_usleep (g_rand_int_range (r, 0, 3000));
  }
  g_rand_free (r);
  return NULL;
}

/* downstream caps for the current input, for elements whose output size
 * may be chosen (supersample) or whose format may be */
static void
random_filter_caps (Pipe * p)
{
  GstCaps *c = NULL;
  switch (g_rand_int_range (p->rand, 0, 4)) {
    case 0:
      c = gst_caps_new_any ();
      break;
    case 1:
    nofmt:
      if (is_ss) {
        /* mostly a downscale of the current input, sometimes not */
        gint mw = g_rand_int_range (p->rand, 0, 8) ? GST_VIDEO_INFO_WIDTH
            (&p->in_info) : 97, mh = g_rand_int_range (p->rand, 0, 8) ?
            GST_VIDEO_INFO_HEIGHT (&p->in_info) : 65;
        c = gst_caps_new_empty_simple ("video/x-raw");
        gint kind = g_rand_int_range (p->rand, 0, 5);
        if (kind != 1)
          gst_caps_set_simple (c, "width", G_TYPE_INT,
              g_rand_int_range (p->rand, 1, mw + 1), NULL);
        if (kind != 2)
          gst_caps_set_simple (c, "height", G_TYPE_INT,
              g_rand_int_range (p->rand, 1, mh + 1), NULL);
        if (kind == 3)
          gst_caps_set_simple (c, "width", GST_TYPE_INT_RANGE, 1,
              g_rand_int_range (p->rand, 2, MAX (mw, 2) + 1), "height",
              GST_TYPE_INT_RANGE, g_rand_int_range (p->rand, 1, mh + 1),
              G_MAXINT, NULL);
        if (g_rand_boolean (p->rand))
          gst_caps_set_simple (c, "pixel-aspect-ratio", GST_TYPE_FRACTION,
              g_rand_int_range (p->rand, 1, 4), g_rand_int_range (p->rand, 1,
                  4), NULL);
        else if (g_rand_boolean (p->rand))
          gst_caps_set_simple (c, "pixel-aspect-ratio",
              GST_TYPE_FRACTION_RANGE, 1, 3, 3, 1, NULL);
        break;
      }
      if (is_fb) {
        c = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
            GST_VIDEO_INFO_NAME (&p->in_info), NULL);
        break;
      }
      /* fall through */
    default:{
      if (is_ss && g_getenv ("CISTRESS_NOFMT"))
        goto nofmt;
      GPtrArray *f = template_formats (gst_element_get_factory (p->elem),
          GST_PAD_SRC);
      c = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
          (gchar *) g_ptr_array_index (f, g_rand_int_range (p->rand, 0,
                  f->len)), NULL);
      g_ptr_array_unref (f);
      break;
    }
  }
  g_object_set (p->filter, "caps", c, NULL);
  gst_caps_unref (c);
}

static int
run_props_or_caps (gboolean caps_mode, gboolean ctrl_mode)
{
  Pipe p;
  pipe_build (&p, 0, seed);
  p.allow_errors = TRUE;
  if (is_ss && !caps_mode) {
    GstCaps *c = gst_caps_from_string ("video/x-raw,width=[1,40],"
        "height=[1,30]");
    g_object_set (p.filter, "caps", c, NULL);
    gst_caps_unref (c);
  }
  pipe_new_input (&p, caps_mode);
  GThread *pt = NULL;
  PropThread t = { &p, seed * 7 + 1 };
  GstControlSource *cs[32];
  gint ncs = 0;
  if ((!caps_mode || g_getenv ("CISTRESS_PROPS")) && !ctrl_mode)
    pt = g_thread_new ("props", prop_thread, &t);
  if (ctrl_mode) {
    guint n;
    GParamSpec **ps =
        g_object_class_list_properties (G_OBJECT_GET_CLASS (p.elem), &n);
    for (guint i = 0; i < n && ncs < 32; i++) {
      if (!(ps[i]->flags & GST_PARAM_CONTROLLABLE))
        continue;
      GstControlSource *c = gst_interpolation_control_source_new ();
      g_object_set (c, "mode", g_rand_int_range (p.rand, 0, 3) == 0 ?
          GST_INTERPOLATION_MODE_NONE : GST_INTERPOLATION_MODE_LINEAR, NULL);
      /* control values 0..1 map over the property's range */
      for (gint k = 0; k < 40; k++)
        gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE
            (c), k * GST_SECOND / 4, g_rand_int_range (p.rand, 0, 4) == 0 ?
            (gdouble) g_rand_int_range (p.rand, 0, 2) :
            g_rand_double (p.rand));
      gst_object_add_control_binding (GST_OBJECT (p.elem),
          gst_direct_control_binding_new (GST_OBJECT (p.elem), ps[i]->name,
              c));
      cs[ncs++] = c;
      g_printerr ("controlled: %s\n", ps[i]->name);
    }
    g_free (ps);
    pt = g_thread_new ("props", prop_thread, &t);       /* the others too */
  }
  gst_element_set_state (p.pipe, GST_STATE_PLAYING);
  const gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;
  gint n = 0;
  while (g_get_monotonic_time () < end) {
    progress ();
    if (caps_mode) {
      if (g_rand_int_range (p.rand, 0, 4) == 0)
        pipe_new_input (&p, TRUE);
      if (g_rand_int_range (p.rand, 0, 6) == 0)
        random_filter_caps (&p);
      if (g_rand_int_range (p.rand, 0, 20) == 0)
        {
        GstPad *sp = gst_element_get_static_pad (p.sink, "sink");
        gst_pad_push_event (sp, gst_event_new_reconfigure ());
        gst_object_unref (sp);
      }
    }
    if (ctrl_mode && p.pts > 9 * GST_SECOND)
      p.pts = 0;                /* stay within the control points */
    GstFlowReturn fr = pipe_push (&p);
    n++;
    if (pipe_poll_bus (&p, 0, NULL) || (fr != GST_FLOW_OK
            && fr != GST_FLOW_FLUSHING)) {
      /* an error (refused caps, unreadable kernel): start again */
      gst_element_set_state (p.pipe, GST_STATE_NULL);
      if (caps_mode)
        random_filter_caps (&p);
      pipe_new_input (&p, caps_mode);
      p.pts = 0;
      gst_element_set_state (p.pipe, GST_STATE_PLAYING);
    }
  }
  g_atomic_int_set (&g_stop, 1);
  if (pt)
    g_thread_join (pt);
  gst_app_src_end_of_stream (GST_APP_SRC (p.src));
  pipe_poll_bus (&p, GST_SECOND * 2, NULL);
  pipe_free (&p);
  for (gint i = 0; i < ncs; i++)
    gst_object_unref (cs[i]);
  g_printerr ("pushed %d\n", n);
  return 0;
}

/* states: each thread drives one pipeline through random transitions */
static gpointer
states_thread (gpointer data)
{
  Pipe *p = data;
  p->allow_errors = TRUE;
  pipe_new_input (p, FALSE);
  const gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;
  GstState cur = GST_STATE_NULL;
  while (g_get_monotonic_time () < end) {
    progress ();
    gint a = g_rand_int_range (p->rand, 0, 10);
    if (a < 4) {
      static const GstState st[] = { GST_STATE_NULL, GST_STATE_READY,
        GST_STATE_PAUSED, GST_STATE_PLAYING
      };
      cur = st[g_rand_int_range (p->rand, 0, 4)];
      if (cur <= GST_STATE_READY)
        gst_element_set_state (p->pipe, cur);
      else {
        /* appsrc blocks when full and not playing: set it async */
        gst_element_set_state (p->pipe, cur);
      }
      if (cur == GST_STATE_NULL && g_rand_boolean (p->rand))
        pipe_new_input (p, FALSE);
      if (cur <= GST_STATE_READY)
        p->pts = 0;
    } else if (a < 5 && cur >= GST_STATE_PAUSED) {
      if (g_rand_boolean (p->rand)) {
        gst_element_seek_simple (p->pipe, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, 0);
      } else {
        /* a flush from upstream, as a seek there gives, with buffers in
         * flight from the streaming thread */
        GstPad *sp = gst_element_get_static_pad (p->elem, "sink");
        for (gint k = g_rand_int_range (p->rand, 0, 4); k > 0; k--)
          pipe_push (p);
        gst_pad_send_event (sp, gst_event_new_flush_start ());
        g_usleep (g_rand_int_range (p->rand, 0, 2000));
        gst_pad_send_event (sp, gst_event_new_flush_stop (TRUE));
        gst_object_unref (sp);
      }
      p->pts = 0;
    } else if (a < 6 && cur >= GST_STATE_PAUSED) {
      gst_app_src_end_of_stream (GST_APP_SRC (p->src));
      gboolean eos = FALSE;
      if (cur == GST_STATE_PLAYING)
        pipe_poll_bus (p, GST_SECOND / 2, &eos);
      gst_element_set_state (p->pipe, GST_STATE_READY);
      gst_element_set_state (p->pipe, cur);
      p->pts = 0;
    } else if (cur == GST_STATE_PLAYING) {
      for (gint k = g_rand_int_range (p->rand, 1, 6); k > 0; k--)
        pipe_push (p);
    }
    if (pipe_poll_bus (p, 0, NULL)) {
      gst_element_set_state (p->pipe, GST_STATE_NULL);
      cur = GST_STATE_NULL;
    }
  }
  return NULL;
}

static int
run_states (void)
{
  Pipe *p = g_new0 (Pipe, n_pipes);
  GThread **th = g_new0 (GThread *, n_pipes);
  for (gint i = 0; i < n_pipes; i++) {
    pipe_build (&p[i], i, seed * 1000 + i);
    /* appsrc must not block in PAUSED, or the thread cannot change state */
    g_object_set (p[i].src, "block", FALSE, "max-bytes", (guint64) 0, NULL);
    th[i] = g_thread_new ("states", states_thread, &p[i]);
  }
  for (gint i = 0; i < n_pipes; i++)
    g_thread_join (th[i]);
  g_atomic_int_set (&g_stop, 1);
  for (gint i = 0; i < n_pipes; i++)
    pipe_free (&p[i]);
  g_free (p);
  g_free (th);
  return 0;
}

/* bad buffers: each case on a fresh pipeline; the element must refuse with
 * an error or produce correct frames */
static int
run_bad (void)
{
  gint cases = 0;
  const gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;
  for (guint c = 0; g_get_monotonic_time () < end; c++) {
    Pipe p;
    pipe_build (&p, c, seed * 100 + c);
    p.allow_errors = TRUE;
    pipe_new_input (&p, g_rand_boolean (p.rand));
    gst_element_set_state (p.pipe, GST_STATE_PLAYING);
    progress ();
    for (gint k = 0; k < 12; k++) {
      const gsize size = GST_VIDEO_INFO_SIZE (&p.in_info);
      GstBuffer *b = NULL;
      gint kind = g_rand_int_range (p.rand, 0, 11);
      if ((kind == 4 || kind == 5) && k < 3)
        kind = 10;              /* events only once the stream has started */
      if (kind == 4 || kind == 5)
        g_usleep (30000);
      switch (kind) {
        case 0:                /* short */
          b = make_buffer (&p, g_rand_int_range (p.rand, 0, size));
          break;
        case 1:                /* empty */
          b = gst_buffer_new ();
          break;
        case 2:{               /* video meta with odd stride and offsets */
          GstVideoInfo *in = &p.in_info;
          gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
          gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
          gsize total = 0;
          gint pad = g_rand_int_range (p.rand, 0, 9);
          gint lead = g_rand_int_range (p.rand, 0, 7);
          for (guint q = 0; q < GST_VIDEO_INFO_N_PLANES (in); q++) {
            gint rows;
            gint comp[GST_VIDEO_MAX_COMPONENTS];
            gst_video_format_info_component (in->finfo, q, comp);
            rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (in->finfo, comp[0],
                GST_VIDEO_INFO_HEIGHT (in));
            stride[q] = GST_VIDEO_INFO_PLANE_STRIDE (in, q) + pad;
            offset[q] = total + lead;
            total = offset[q] + (gsize) stride[q] * rows;
          }
          gint shrink = g_rand_int_range (p.rand, 0, 3) == 0 ?
              g_rand_int_range (p.rand, 1, 16) : 0;
          b = make_buffer (&p, total > (gsize) shrink ? total - shrink : 0);
          gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE,
              GST_VIDEO_INFO_FORMAT (in), GST_VIDEO_INFO_WIDTH (in),
              GST_VIDEO_INFO_HEIGHT (in), GST_VIDEO_INFO_N_PLANES (in),
              offset, stride);
          break;
        }
        case 3:                /* no timestamps */
          b = make_buffer (&p, size);
          GST_BUFFER_PTS (b) = GST_BUFFER_DURATION (b) = GST_CLOCK_TIME_NONE;
          break;
        case 4:                /* gap event */
          gst_pad_send_event (gst_element_get_static_pad (p.elem, "sink"),
              gst_event_new_gap (p.pts, GST_SECOND / 30));
          p.pts += GST_SECOND / 30;
          break;
        case 5:{               /* a new segment */
          GstSegment seg;
          gst_segment_init (&seg, GST_FORMAT_TIME);
          seg.rate = g_rand_boolean (p.rand) ? 1.0 : -1.0;
          seg.start = g_rand_int_range (p.rand, 0, 5) * GST_SECOND;
          seg.stop = g_rand_boolean (p.rand) && seg.rate > 0 ?
              GST_CLOCK_TIME_NONE : seg.start + GST_SECOND;
          seg.time = seg.start;
          gst_pad_send_event (gst_element_get_static_pad (p.elem, "sink"),
              gst_event_new_segment (&seg));
          break;
        }
        case 6:                /* larger than needed */
          b = make_buffer (&p, size + g_rand_int_range (p.rand, 1, 4096));
          break;
        case 7:{               /* two memories, split anywhere */
          GstBuffer *a = make_buffer (&p, size);
          gsize cut = g_rand_int_range (p.rand, 0, size + 1);
          b = gst_buffer_copy_region (a, GST_BUFFER_COPY_ALL, 0, cut);
          GstBuffer *tail = gst_buffer_copy_region (a, GST_BUFFER_COPY_MEMORY,
              cut, size - cut);
          b = gst_buffer_append (b, tail);
          gst_buffer_unref (a);
          break;
        }
        case 8:{               /* meta describing a larger frame */
          GstVideoInfo big;
          gst_video_info_set_format (&big, GST_VIDEO_INFO_FORMAT (&p.in_info),
              GST_VIDEO_INFO_WIDTH (&p.in_info) + g_rand_int_range (p.rand, 0,
                  5), GST_VIDEO_INFO_HEIGHT (&p.in_info) +
              g_rand_int_range (p.rand, 0, 5));
          b = make_buffer (&p, GST_VIDEO_INFO_SIZE (&big));
          gst_buffer_add_video_meta_full (b, 0, GST_VIDEO_INFO_FORMAT (&big),
              GST_VIDEO_INFO_WIDTH (&big), GST_VIDEO_INFO_HEIGHT (&big),
              GST_VIDEO_INFO_N_PLANES (&big), big.offset, big.stride);
          break;
        }
        case 9:{               /* meta of another format or smaller */
          b = make_buffer (&p, size);
          gst_buffer_add_video_meta (b, 0, GST_VIDEO_INFO_FORMAT (&p.in_info),
              MAX (1, GST_VIDEO_INFO_WIDTH (&p.in_info) - 1),
              GST_VIDEO_INFO_HEIGHT (&p.in_info));
          break;
        }
        default:
          b = make_buffer (&p, size);
          break;
      }
      if (b)
        gst_app_src_push_buffer (GST_APP_SRC (p.src), b);
      if (pipe_poll_bus (&p, GST_MSECOND * 20, NULL))
        break;
    }
    gst_app_src_end_of_stream (GST_APP_SRC (p.src));
    gboolean eos = FALSE;
    pipe_poll_bus (&p, GST_SECOND / 2, &eos);
    pipe_free (&p);
    cases++;
  }
  g_atomic_int_set (&g_stop, 1);
  g_printerr ("cases %d\n", cases);
  return 0;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc < 3) {
    g_printerr ("usage: %s props|states|caps|bad|ctrl ELEMENT [SECONDS] "
        "[SEED] [N]\n", argv[0]);
    return 2;
  }
  mode = argv[1];
  elem_name = argv[2];
  if (argc > 3)
    seconds = g_ascii_strtod (argv[3], NULL);
  if (argc > 4)
    seed = atoi (argv[4]);
  if (argc > 5)
    n_pipes = atoi (argv[5]);
  if (g_getenv ("CISTRESS_SRCDIR"))
    srcdir = g_getenv ("CISTRESS_SRCDIR");
  is_sgm = strstr (elem_name, "sgm") != NULL;
  is_tm = strstr (elem_name, "tonemap") != NULL;
  is_ss = strstr (elem_name, "supersample") != NULL;
  is_fb = strstr (elem_name, "fftbloom") != NULL;
  g_log_set_default_handler (log_handler, NULL);
  g_log_set_handler ("GStreamer", G_LOG_LEVEL_MASK, log_handler, NULL);
  g_log_set_handler ("GLib-GObject", G_LOG_LEVEL_MASK, log_handler, NULL);
  g_log_set_handler ("GLib", G_LOG_LEVEL_MASK, log_handler, NULL);
  GThread *wd = g_thread_new ("watchdog", watchdog, NULL);
  if (!strcmp (mode, "props"))
    run_props_or_caps (FALSE, FALSE);
  else if (!strcmp (mode, "caps"))
    run_props_or_caps (TRUE, FALSE);
  else if (!strcmp (mode, "ctrl"))
    run_props_or_caps (FALSE, TRUE);
  else if (!strcmp (mode, "states"))
    run_states ();
  else if (!strcmp (mode, "bad"))
    run_bad ();
  else
    return 2;
  g_atomic_int_set (&g_stop, 1);
  g_thread_join (wd);
  if (err_counts) {
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init (&it, err_counts);
    while (g_hash_table_iter_next (&it, &k, &v))
      g_printerr ("  error x%d: %s\n", GPOINTER_TO_INT (v), (gchar *) k);
  }
  g_printerr ("%s %s seed %u: frames %d, errors %d, bad frames %d, glib "
      "warnings %d\n", mode, elem_name, seed, g_frames, g_errors,
      g_bad_frames, g_criticals);
  gst_deinit ();
  return g_bad_frames || g_criticals ? 1 : 0;
}
