/* GstHarness cases shared by cpufftbloom and cudafftbloom: every output is
 * compared with the C reference run on the same frame with the kernel the
 * properties describe (cpu: identical; cuda: within TOL code values).
 * Define FACTORY and TOL before including.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include "citest.h"
#include "../../reference/fftbloom.h"

/* What the element's properties are in a case, for the reference run. */
typedef struct
{
  CiFbParams p;
  CiFbGlare glare;
  float kernel_size;
  const char *image;            /* kernel-location or NULL */
  float cx, cy;
  int scale;
} Setup;

static void
setup_defaults (Setup * s)
{
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  fail_unless (e != NULL);
  gint sc;
  g_object_get (e, "intensity", &s->p.intensity, "threshold", &s->p.threshold,
      "knee", &s->p.knee, "kernel-size", &s->kernel_size, "resolution-scale",
      &sc, "core-size", &s->glare.core_size, "halo-strength",
      &s->glare.halo_strength, "halo-size", &s->glare.halo_size,
      "spike-strength", &s->glare.spike_strength, "spike-count",
      &s->glare.spike_count, "spike-width", &s->glare.spike_width,
      "spike-angle", &s->glare.spike_angle, NULL);
  s->scale = sc;
  s->image = NULL;
  s->cx = s->cy = -1;
  gst_object_unref (e);
}

/* A frame with lights: dark random ground, a few saturated blobs. */
static GstBuffer *
make_frame (const GstVideoInfo * info, guint64 seed)
{
  GstBuffer *buf = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (info));
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gint bytes = GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0) > 8 ? 2 : 1;
  ci_fill_random (d, (size_t) stride * h, seed);
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++) {
      gboolean lit = ((x / 4) * 7 + (y / 4) * 3) % 11 == 0;
      guint8 *px = d + y * stride + x * 4 * bytes;
      for (gint c = 0; c < 4 * bytes; c++)
        px[c] = lit ? (guint8) (255 - (px[c] & 7)) : px[c] / 4;
    }
  gst_video_frame_unmap (&f);
  return buf;
}

static void
caps_for (GstVideoInfo * info, const char *format, int w, int h,
    gboolean linear)
{
  gst_video_info_set_format (info, gst_video_format_from_string (format), w, h);
  if (linear)
    info->colorimetry.transfer = GST_VIDEO_TRANSFER_GAMMA10;
}

static void
format_for (const GstVideoInfo * info, CiFbFormat * fmt)
{
  gint bytes = GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0) > 8 ? 2 : 1;
  fmt->bytes_per_sample = bytes;
  fmt->off_r = GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo, GST_VIDEO_COMP_R) / bytes;
  fmt->off_g = GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo, GST_VIDEO_COMP_G) / bytes;
  fmt->off_b = GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo, GST_VIDEO_COMP_B) / bytes;
  fmt->srgb = !(bytes == 2
      && info->colorimetry.transfer == GST_VIDEO_TRANSFER_GAMMA10);
}

/* The reference's output for the mapped frame @fi with the kernel and
 * parameters of @s, in rows of @fi's stride (g_free it). */
static guint8 *
reference_output (const GstVideoInfo * info, GstVideoFrame * fi,
    const Setup * s)
{
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  CiFbFormat fmt;
  format_for (info, &fmt);
  CiFbImage *img = NULL;
  if (s->image) {
    img = ci_fb_image_load_png (s->image, NULL);
    fail_unless (img != NULL);
  }
  CiFbKernel *k = ci_fb_kernel_for_frame (&s->glare, img, s->kernel_size,
      s->cx, s->cy, w, h, s->scale);
  fail_unless (k != NULL);
  CiFbRef *r = ci_fb_ref_new ();
  fail_unless (ci_fb_ref_set_kernel (r, k, w, h, s->scale) == 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (fi, 0);
  guint8 *ref = g_malloc ((size_t) stride * h);
  ci_fb_ref_process (r, GST_VIDEO_FRAME_PLANE_DATA (fi, 0), stride, ref,
      stride, &fmt, &s->p);
  ci_fb_ref_free (r);
  ci_fb_kernel_free (k);
  ci_fb_image_free (img);
  return ref;
}

/* The sample at byte offset @o of a plane of 1- or 2-byte (LE) samples */
static gint
sample_at (const guint8 * p, size_t o, gint bytes)
{
  return bytes == 1 ? p[o] : GST_READ_UINT16_LE (p + o);
}

/* Max code difference over colour samples; alpha must match exactly. */
static void
check_against_reference (const GstVideoInfo * info, GstBuffer * in,
    GstBuffer * out, const Setup * s, int tol, const char *what)
{
  GstVideoFrame fi, fo;
  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  CiFbFormat fmt;
  format_for (info, &fmt);
  gint bytes = fmt.bytes_per_sample;
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0);
  guint8 *ref = reference_output (info, &fi, s);
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&fi, 0);
  const guint8 *o = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  gint ostride = GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0);
  gint aoff = 6 - fmt.off_r - fmt.off_g - fmt.off_b;
  gint worst = 0, alpha_bad = 0, changed = 0;
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      for (gint c = 0; c < 4; c++) {
        size_t ia = (size_t) y * stride + (x * 4 + c) * bytes;
        size_t ib = (size_t) y * ostride + (x * 4 + c) * bytes;
        const gint a = sample_at (ref, ia, bytes), b = sample_at (o, ib, bytes),
            i = sample_at (src, ia, bytes);
        if (c == aoff) {
          alpha_bad += a != i || b != i;
          continue;
        }
        worst = MAX (worst, ABS (a - b));
        changed += b != i;
      }
  GST_INFO ("%s: max |element - reference| = %d, %d samples bloomed", what,
      worst, changed);
  fail_unless (worst <= tol, "%s: element differs from the reference by %d",
      what, worst);
  fail_unless (alpha_bad == 0, "%s: alpha/padding changed", what);
  fail_unless (s->p.intensity == 0 || changed > 0, "%s: nothing bloomed", what);
  g_free (ref);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
}

/* Max code difference between the reference's outputs for setups @a and @b
 * on @in. A case that is to tell two settings apart needs more than 2 TOL:
 * within TOL of one, an element is then not within TOL of the other. */
static gint
reference_difference (const GstVideoInfo * info, GstBuffer * in,
    const Setup * a, const Setup * b)
{
  GstVideoFrame fi;
  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  CiFbFormat fmt;
  format_for (info, &fmt);
  gint bytes = fmt.bytes_per_sample;
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0);
  guint8 *ra = reference_output (info, &fi, a);
  guint8 *rb = reference_output (info, &fi, b);
  gint worst = 0;
  for (gint y = 0; y < h; y++)
    for (gint i = 0; i < w * 4; i++) {
      size_t o = (size_t) y * stride + i * bytes;
      worst = MAX (worst, ABS (sample_at (ra, o, bytes) - sample_at (rb, o,
                  bytes)));
    }
  g_free (ra);
  g_free (rb);
  gst_video_frame_unmap (&fi);
  return worst;
}

static GstHarness *
harness_for (const GstVideoInfo * info)
{
  GstHarness *h = gst_harness_new (FACTORY);
  GstCaps *caps = gst_video_info_to_caps (info);
  gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  gst_harness_set_sink_caps (h, caps);
  return h;
}

static void
push_and_check (GstHarness * h, const GstVideoInfo * info, const Setup * s,
    guint64 seed, const char *what)
{
  GstBuffer *in = make_frame (info, seed);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output", what);
  check_against_reference (info, in, out, s, TOL, what);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
}

GST_START_TEST (test_formats)
{
  static const char *formats[] = { "RGBA", "BGRA", "RGBx", "BGRx", "ARGB",
    "ABGR", "RGBA64_LE", "RGBA64_LE"
  };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info;
    gboolean linear = i == G_N_ELEMENTS (formats) - 1;
    caps_for (&info, formats[i], 37, 23, linear);
    Setup s;
    setup_defaults (&s);
    s.p.threshold = 0.4f;
    s.kernel_size = 0.3f;
    GstHarness *h = harness_for (&info);
    g_object_set (h->element, "threshold", 0.4f, "kernel-size", 0.3f, NULL);
    gchar *what = g_strdup_printf ("%s%s 37x23", formats[i],
        linear ? " linear" : "");
    push_and_check (h, &info, &s, 10 + i, what);
    g_free (what);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* New caps mid-stream (a camera switching modes, an adaptive stream): one
 * element (in @h) through formats and sizes, larger and smaller and back,
 * each frame checked against the reference (new FFT grids and buffers);
 * @cuda: only formats cudaupload takes. */
static void
check_caps_changes (GstHarness * h, GstElement * element, gboolean cuda)
{
  static const struct
  {
    const char *fmt;
    int w, h;
    gboolean linear;
  } steps[] = {
    {"RGBA", 64, 41, FALSE}, {"BGRx", 131, 77, FALSE},
    {"RGBA64_LE", 37, 90, TRUE}, {"ARGB", 5, 3, FALSE},
    {"RGBA", 64, 41, FALSE}, {"ABGR", 640, 361, FALSE},
  };
  Setup s;
  setup_defaults (&s);
  s.p.threshold = 0.3f;
  g_object_set (element, "threshold", 0.3f, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
    if (cuda && steps[i].linear)
      continue;
    GstVideoInfo info;
    caps_for (&info, steps[i].fmt, steps[i].w, steps[i].h, steps[i].linear);
    GstCaps *caps = gst_video_info_to_caps (&info);
    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
    gst_harness_set_src_caps (h, gst_caps_ref (caps));
    gst_harness_set_sink_caps (h, caps);
    gchar *what = g_strdup_printf ("step %u: %s %dx%d%s", i, steps[i].fmt,
        steps[i].w, steps[i].h, cuda ? " in CUDA memory" : "");
    push_and_check (h, &info, &s, 300 + i, what);
    g_free (what);
  }
}

GST_START_TEST (test_caps_changes)
{
  GstHarness *h = gst_harness_new (FACTORY);
  check_caps_changes (h, h->element, FALSE);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Properties changed between buffers while PLAYING take effect at once,
 * including kernel-shaping ones (cached spectrum replaced). */
GST_START_TEST (test_properties_while_playing)
{
  GstVideoInfo info;
  caps_for (&info, "RGBA", 64, 41, FALSE);
  Setup s;
  setup_defaults (&s);
  GstHarness *h = harness_for (&info);
  s.p.threshold = 0.5f;
  g_object_set (h->element, "threshold", 0.5f, NULL);
  push_and_check (h, &info, &s, 1, "defaults, threshold 0.5");

  s.p.intensity = 3.0f;
  s.p.knee = 0.0f;
  g_object_set (h->element, "intensity", 3.0f, "knee", 0.0f, NULL);
  push_and_check (h, &info, &s, 2, "intensity 3, knee 0");

  s.kernel_size = 0.5f;
  s.glare.spike_count = 4;
  s.glare.spike_angle = 45.0f;
  g_object_set (h->element, "kernel-size", 0.5f, "spike-count", 4,
      "spike-angle", 45.0f, NULL);
  push_and_check (h, &info, &s, 3, "kernel-size 0.5, 4 spikes at 45");

  s.glare.halo_strength = 0.7f;
  s.glare.core_size = 0.05f;
  g_object_set (h->element, "halo-strength", 0.7f, "core-size", 0.05f, NULL);
  push_and_check (h, &info, &s, 4, "stronger halo (same kernel size)");

  s.scale = 2;
  g_object_set (h->element, "resolution-scale", 2, NULL);
  push_and_check (h, &info, &s, 5, "resolution-scale half");

  s.scale = 4;
  g_object_set (h->element, "resolution-scale", 4, NULL);
  push_and_check (h, &info, &s, 6, "resolution-scale quarter");

  /* intensity 0: the frame passes unchanged (decode/encode round-trips) */
  g_object_set (h->element, "intensity", 0.0f, NULL);
  GstBuffer *in = make_frame (&info, 7);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  GstMapInfo mi, mo;
  gst_buffer_map (in, &mi, GST_MAP_READ);
  gst_buffer_map (out, &mo, GST_MAP_READ);
  fail_unless (mi.size == mo.size && memcmp (mi.data, mo.data, mi.size) == 0,
      "intensity 0 changed the frame");
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A grey-ish ramp: the brightest sample rises from code 0 at the left to
 * 255 at the right (linear 0 to 1, every bright-pass regime of any
 * threshold and knee), the other two a row-dependent fraction of it. */
static GstBuffer *
make_ramp_frame (const GstVideoInfo * info)
{
  GstBuffer *buf = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (info));
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  fail_unless (GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0) == 8);
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++) {
      guint8 *px = d + y * stride + x * 4;
      gint m = (255 * x + (w - 1) / 2) / (w - 1);
      px[GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo, GST_VIDEO_COMP_R)] = m;
      px[GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo, GST_VIDEO_COMP_G)] =
          m * (h - y) / h;
      px[GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo, GST_VIDEO_COMP_B)] =
          m * (1 + y % 3) / 4;
    }
  /* the fourth byte: alpha or padding, which must come through as it is */
  for (gint y = 0; y < h; y++)
    for (gint x = 0; x < w; x++)
      d[y * stride + x * 4 + 6 - GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo,
              GST_VIDEO_COMP_R) - GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo,
              GST_VIDEO_COMP_G) - GST_VIDEO_FORMAT_INFO_POFFSET (info->finfo,
              GST_VIDEO_COMP_B)] = (guint8) (x * 5 + y);
  gst_video_frame_unmap (&f);
  return buf;
}

/* The soft knee (docs/fftbloom.md, bright pass) changed while PLAYING, on a
 * ramp across threshold +- knee x threshold: each knee's frame is the
 * reference's with that knee, and each differs from the one before by more
 * than 2 TOL, so a knee ignored or stuck at any of these values fails
 * (test_properties_while_playing's knee 0 is on a frame of only near-white
 * and dark pixels, where the knee changes nothing). */
GST_START_TEST (test_knee)
{
  GstVideoInfo info;
  caps_for (&info, "RGBA", 48, 33, FALSE);
  Setup s, prev;
  setup_defaults (&s);
  s.p.threshold = 0.5f;
  s.p.intensity = 2.0f;
  GstHarness *h = harness_for (&info);
  g_object_set (h->element, "threshold", 0.5f, "intensity", 2.0f, NULL);
  GstBuffer *in = make_ramp_frame (&info);
  /* the default first */
  const float knees[] = { s.p.knee, 0.0f, 0.25f, 1.0f };
  for (guint i = 0; i < G_N_ELEMENTS (knees); i++) {
    s.p.knee = knees[i];
    g_object_set (h->element, "knee", knees[i], NULL);
    gchar *what = g_strdup_printf ("ramp, threshold 0.5, knee %g", knees[i]);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL, "%s: no output", what);
    check_against_reference (&info, in, out, &s, TOL, what);
    if (i > 0) {
      gint d = reference_difference (&info, in, &prev, &s);
      GST_INFO ("%s: %d codes from knee %g's frame", what, d, prev.p.knee);
      fail_unless (d > 2 * TOL, "%s: the reference differs from knee %g's by "
          "%d only", what, prev.p.knee, d);
    }
    prev = s;
    g_free (what);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A kernel property of the glare on the element and in @s. */
static void
set_kernel_property (GstElement * e, Setup * s, const char *name, double v)
{
  if (strcmp (name, "spike-count") == 0) {
    s->glare.spike_count = (int) v;
    g_object_set (e, name, (gint) v, NULL);
    return;
  }
  float *field = NULL;
  if (strcmp (name, "core-size") == 0)
    field = &s->glare.core_size;
  else if (strcmp (name, "halo-strength") == 0)
    field = &s->glare.halo_strength;
  else if (strcmp (name, "halo-size") == 0)
    field = &s->glare.halo_size;
  else if (strcmp (name, "spike-strength") == 0)
    field = &s->glare.spike_strength;
  else if (strcmp (name, "spike-width") == 0)
    field = &s->glare.spike_width;
  else if (strcmp (name, "spike-angle") == 0)
    field = &s->glare.spike_angle;
  else if (strcmp (name, "kernel-size") == 0)
    field = &s->kernel_size;
  fail_unless (field != NULL, "no kernel property %s", name);
  *field = (float) v;
  g_object_set (e, name, (gfloat) v, NULL);
}

/* Every kernel property changed alone while PLAYING, then set back: the
 * kernel and its spectrum must be rebuilt (docs/fftbloom.md), so the next
 * frame is the reference's with the new value, which differs from the old
 * value's by more than 2 TOL (a kernel left as it was fails). Kernel size
 * 0.5 (R = 16 texels on 64x41) keeps both values of each width above its
 * half-texel floor, so every change reaches the kernel. */
GST_START_TEST (test_kernel_properties_while_playing)
{
  static const struct
  {
    const char *name;
    double base, changed;
  } props[] = {
    {"core-size", 0.01, 0.15}, {"halo-strength", 0.35, 0.1},
    {"halo-size", 0.08, 0.3}, {"spike-strength", 0.4, 0.1},
    {"spike-count", 6, 3}, {"spike-width", 0.05, 0.1},
    {"spike-angle", 90, 45}, {"kernel-size", 0.5, 0.3},
  };
  GstVideoInfo info;
  caps_for (&info, "RGBA", 64, 41, FALSE);
  Setup s;
  setup_defaults (&s);
  GstHarness *h = harness_for (&info);
  s.p.threshold = 0.5f;
  s.p.intensity = 4.0f;
  g_object_set (h->element, "threshold", 0.5f, "intensity", 4.0f, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (props); i++)
    set_kernel_property (h->element, &s, props[i].name, props[i].base);
  push_and_check (h, &info, &s, 60, "kernel properties' base values");
  for (guint i = 0; i < G_N_ELEMENTS (props); i++)
    for (int back = 0; back < 2; back++) {
      Setup before = s;
      double v = back ? props[i].base : props[i].changed;
      set_kernel_property (h->element, &s, props[i].name, v);
      gchar *what = g_strdup_printf ("%s %g -> %g while playing",
          props[i].name, back ? props[i].changed : props[i].base, v);
      GstBuffer *in = make_frame (&info, 61 + i);
      gint d = reference_difference (&info, in, &before, &s);
      GST_INFO ("%s: the reference changes by %d codes", what, d);
      fail_unless (d > 2 * TOL, "%s: the reference changes by %d only", what,
          d);
      GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (out != NULL, "%s: no output", what);
      check_against_reference (&info, in, out, &s, TOL, what);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      g_free (what);
    }
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Properties bound to control sources take their values at each buffer's
 * stream time (GST_PARAM_CONTROLLABLE), a kernel-shaping one included:
 * frames at 0 s and 1 s must match the reference with each second's
 * intensity and spike angle. */
GST_START_TEST (test_controller)
{
  GstVideoInfo info;
  caps_for (&info, "RGBA", 48, 33, FALSE);
  Setup s;
  setup_defaults (&s);
  s.glare.spike_count = 4;
  s.glare.spike_strength = 0.5f;
  GstHarness *h = harness_for (&info);
  g_object_set (h->element, "spike-count", 4, "spike-strength", 0.5f, NULL);
  const gchar *names[] = { "intensity", "spike-angle" };
  const float val[2][2] = { {2.0f, 0.5f}, {0.0f, 30.0f} };
  for (int p = 0; p < 2; p++) {
    const double steps[] = { val[p][0], val[p][1] };
    ci_control_steps (h->element, names[p], steps, 2);
  }
  for (int i = 0; i < 2; i++) {
    s.p.intensity = val[0][i];
    s.glare.spike_angle = val[1][i];
    GstBuffer *in = make_frame (&info, 5);
    GST_BUFFER_PTS (in) = i * GST_SECOND;
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    gchar *what = g_strdup_printf ("controlled: intensity %g, spike-angle %g",
        val[0][i], val[1][i]);
    check_against_reference (&info, in, out, &s, TOL, what);
    g_free (what);
    gfloat got;
    g_object_get (h->element, "spike-angle", &got, NULL);
    fail_unless (got == val[1][i]);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}
GST_END_TEST;

static gchar *
write_kernel_png (void)
{
  CiImage *img = ci_image_new (21, 13, 3, 1);
  for (int y = 0; y < 13; y++)
    for (int x = 0; x < 21; x++) {
      guint8 *p = img->data + (y * 21 + x) * 3;
      int d = abs (x - 14) + abs (y - 4);
      p[0] = d < 3 ? 255 : (x == 14 ? 180 : 8);   /* vertical red streak */
      p[1] = d < 2 ? 255 : (y == 4 ? 160 : 4);    /* horizontal green */
      p[2] = d < 5 ? 200 - 30 * d : 2;
    }
  gchar *path = g_build_filename (g_get_tmp_dir (), "fftbloom-check-kernel.png",
      NULL);
  fail_unless (ci_image_save_png (img, path));
  ci_image_free (img);
  return path;
}

/* counts warnings, and those given while @e's object lock was held */
typedef struct
{
  GstElement *e;
  gint seen, locked;
} CenterWarning;

static void
center_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer user)
{
  CenterWarning *cw = user;
  cw->seen++;
  if (g_mutex_trylock (GST_OBJECT_GET_LOCK (cw->e)))
    g_mutex_unlock (GST_OBJECT_GET_LOCK (cw->e));
  else
    cw->locked++;
}

/* A written PNG kernel at its own size (kernel-size 0) and threshold 0.3
 * on 53x31 BGRx, in the element and in @s; the caller unlinks and frees
 * *@path. */
static GstHarness *
image_kernel_harness (GstVideoInfo * info, Setup * s, gchar ** path)
{
  *path = write_kernel_png ();
  caps_for (info, "BGRx", 53, 31, FALSE);
  setup_defaults (s);
  GstHarness *h = harness_for (info);
  s->image = *path;
  s->kernel_size = 0.0f;
  s->p.threshold = 0.3f;
  g_object_set (h->element, "kernel-location", *path, "kernel-size", 0.0f,
      "threshold", 0.3f, NULL);
  return h;
}

GST_START_TEST (test_image_kernel)
{
  gchar *path;
  GstVideoInfo info;
  Setup s;
  GstHarness *h = image_kernel_harness (&info, &s, &path);
  push_and_check (h, &info, &s, 20, "RGB image kernel, own size, brightest");
  s.cx = s.cy = 0.5f;
  g_object_set (h->element, "kernel-center", "0.5,0.5", NULL);
  push_and_check (h, &info, &s, 21, "RGB image kernel, centred");
  /* an invalid centre is refused with a warning and the old one kept */
  static const gchar *bad[] = { "2,x", ",", " ,1", "0.5,", "0.5", "0.5,0.5,0.5",
    "1.5,0.5", "nan,nan", "0.5;0.5"
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    ASSERT_WARNING (g_object_set (h->element, "kernel-center", bad[i], NULL));
    gchar *c;
    g_object_get (h->element, "kernel-center", &c, NULL);
    fail_unless_equals_string (c, "0.5,0.5");
    g_free (c);
  }
  /* the warning is given with the element unlocked (a log handler may read
   * its properties; under the lock that would deadlock) */
  CenterWarning cw = { h->element, 0, 0 };
  guint id = g_log_set_handler (NULL, G_LOG_LEVEL_WARNING, center_warning,
      &cw);
  g_object_set (h->element, "kernel-center", "2,2", NULL);
  g_log_remove_handler (NULL, id);
  fail_unless_equals_int (cw.seen, 1);
  fail_unless_equals_int (cw.locked, 0);
  s.kernel_size = 0.8f;
  g_object_set (h->element, "kernel-size", 0.8f, NULL);
  push_and_check (h, &info, &s, 22, "RGB image kernel, scaled to 0.8");
  /* back to the glare */
  s.image = NULL;
  g_object_set (h->element, "kernel-location", NULL, NULL);
  push_and_check (h, &info, &s, 23, "back to the glare");
  gst_harness_teardown (h);
  g_unlink (path);
  g_free (path);
}
GST_END_TEST;

/* kernel-center "x,y" takes x for the column and y for the row, 0 and 1
 * included, white space around each part stripped; "auto" in any case is
 * the brightest texel (docs/fftbloom.md, properties); none of these warns
 * (a warning fails the test). An empty kernel-location is no image: the
 * glare. Each frame against the reference with the centre the doc gives. */
GST_START_TEST (test_kernel_center)
{
  static const struct
  {
    const gchar *str;
    gfloat x, y;
  } c[] = { {"0.25,0.75", 0.25f, 0.75f}, {"1,0", 1.0f, 0.0f},
  {"0,1", 0.0f, 1.0f}, {" 0.75 ,\t0.5 ", 0.75f, 0.5f}, {"AUTO", -1, -1},
  {"0.5,0.5", 0.5f, 0.5f}, {"Auto", -1, -1}
  };
  gchar *path;
  GstVideoInfo info;
  Setup s;
  GstHarness *h = image_kernel_harness (&info, &s, &path);
  for (guint i = 0; i < G_N_ELEMENTS (c); i++) {
    g_object_set (h->element, "kernel-center", c[i].str, NULL);
    gchar *got;
    g_object_get (h->element, "kernel-center", &got, NULL);
    fail_unless_equals_string (got, c[i].str);
    g_free (got);
    s.cx = c[i].x;
    s.cy = c[i].y;
    gchar *what = g_strdup_printf ("kernel-center \"%s\"", c[i].str);
    push_and_check (h, &info, &s, 60 + i, what);
    g_free (what);
  }
  s.image = NULL;
  g_object_set (h->element, "kernel-location", "", NULL);
  push_and_check (h, &info, &s, 70, "kernel-location \"\": the glare");
  gst_harness_teardown (h);
  g_unlink (path);
  g_free (path);
}
GST_END_TEST;

/* The ranges and defaults of docs/fftbloom.md's property table: a value
 * out of range is refused by GObject, so these are the clamps. */
GST_START_TEST (test_property_ranges)
{
  static const struct
  {
    const gchar *name;
    gfloat min, max, def;
  } f[] = { {"intensity", 0, 100, 1}, {"threshold", 0, 1, 0.8f},
  {"knee", 0, 1, 0.5f}, {"kernel-size", 0, 2, 0.1f}, {"core-size", 0, 0.5f,
      0.01f}, {"halo-strength", 0, 1, 0.35f}, {"halo-size", 0.001f, 1, 0.08f},
  {"spike-strength", 0, 1, 0.15f}, {"spike-width", 0, 0.1f, 0.006f},
  {"spike-angle", -360, 360, 90}
  };
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  fail_unless (e != NULL);
  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  for (guint i = 0; i < G_N_ELEMENTS (f); i++) {
    GParamSpec *ps = g_object_class_find_property (k, f[i].name);
    fail_unless (ps && G_IS_PARAM_SPEC_FLOAT (ps), "%s", f[i].name);
    GParamSpecFloat *pf = G_PARAM_SPEC_FLOAT (ps);
    fail_unless (pf->minimum == f[i].min && pf->maximum == f[i].max
        && pf->default_value == f[i].def, "%s: %g..%g, default %g; want "
        "%g..%g, %g", f[i].name, pf->minimum, pf->maximum, pf->default_value,
        f[i].min, f[i].max, f[i].def);
  }
  GParamSpec *ps = g_object_class_find_property (k, "spike-count");
  fail_unless (ps && G_IS_PARAM_SPEC_INT (ps));
  fail_unless (G_PARAM_SPEC_INT (ps)->minimum == 0
      && G_PARAM_SPEC_INT (ps)->maximum == 16
      && G_PARAM_SPEC_INT (ps)->default_value == 6);
  /* docs/fftbloom.md: all changeable while PLAYING; the table marks the
   * float ones but kernel-size controllable, and only those */
  for (guint i = 0; i < G_N_ELEMENTS (f); i++)
    ci_check_param_flags (e, f[i].name, 1, strcmp (f[i].name,
            "kernel-size") != 0);
  const gchar *other[] = { "kernel-location", "kernel-center",
    "resolution-scale", "spike-count"
  };
  for (guint i = 0; i < G_N_ELEMENTS (other); i++)
    ci_check_param_flags (e, other[i], 1, 0);
  gst_object_unref (e);
}
GST_END_TEST;

GST_START_TEST (test_bad_kernel_location)
{
  GstVideoInfo info;
  caps_for (&info, "RGBA", 16, 16, FALSE);
  GstHarness *h = harness_for (&info);
  g_object_set (h->element, "kernel-location", "/nonexistent/kernel.png", NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  GstBuffer *in = make_frame (&info, 30);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_ERROR);
  g_free (ci_pop_error (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
          NULL));
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}
GST_END_TEST;


/* A frame of extreme aspect ratio with the largest kernel-size asks for a
 * 46343-texel kernel and a grid of 2 G samples: refused before any of it
 * is allocated (it would take tens of GB; the tree before this test tried,
 * and FFTW's int offsets would have overflowed). */
GST_START_TEST (test_frame_too_large_for_fft)
{
  GstVideoInfo info;
  caps_for (&info, "RGBA", 1, 23171, FALSE);
  GstHarness *h = harness_for (&info);
  g_object_set (h->element, "kernel-size", 2.0f, NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, make_frame (&info, 31)),
      GST_FLOW_ERROR);
  gchar *debug = NULL;
  gchar *msg = ci_pop_error (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      &debug);
  fail_unless (strstr (msg, "Frame too large for the FFT") != NULL, "%s", msg);
  fail_unless (strstr (debug, "kernel of side 46343") != NULL, "%s", debug);
  g_free (msg);
  g_free (debug);
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A region of interest stays where it was: the geometry is unchanged. */
GST_START_TEST (test_roi_meta_kept)
{
  GstVideoInfo info;
  caps_for (&info, "RGBA", 64, 41, FALSE);
  GstHarness *h = harness_for (&info);
  const guint r[4] = { 10, 5, 20, 30 };
  ci_check_roi_meta (h, make_frame (&info, 3), r, r);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Bloom adds light in the input's own colour space (caps pass through),
 * so a meta that describes that space (tagged colorspace) still holds and
 * is kept (GST_CI_METAS_GEOMETRY_COLORSPACE; tonemap's counterpart drops
 * it). */
GST_START_TEST (test_colorspace_meta_kept)
{
  GstVideoInfo info;
  caps_for (&info, "RGBA", 64, 41, FALSE);
  GstHarness *h = harness_for (&info);
  ci_check_colorspace_meta (h, make_frame (&info, 3), TRUE);
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_interlaced_refused)
{
  ci_check_interlaced_refused (FACTORY, "RGBA", NULL);
}
GST_END_TEST;

/* a larger video meta, a short buffer (ci_check_buffer_layouts) */
GST_START_TEST (test_buffer_layouts)
{
  ci_check_buffer_layouts (FACTORY " threshold=0.2", "video/x-raw,"
      "format=RGBA,width=37,height=21,framerate=30/1");
}
GST_END_TEST;

static Suite *
fftbloom_suite (void)
{
  Suite *s = suite_create (FACTORY);
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_caps_changes);
  tcase_add_test (tc, test_properties_while_playing);
  tcase_add_test (tc, test_knee);
  tcase_add_test (tc, test_kernel_properties_while_playing);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_image_kernel);
  tcase_add_test (tc, test_kernel_center);
  tcase_add_test (tc, test_property_ranges);
  tcase_add_test (tc, test_bad_kernel_location);
  tcase_add_test (tc, test_frame_too_large_for_fft);
  tcase_add_test (tc, test_interlaced_refused);
  tcase_add_test (tc, test_roi_meta_kept);
  tcase_add_test (tc, test_colorspace_meta_kept);
  tcase_add_test (tc, test_buffer_layouts);
  return s;
}
