/* Cases shared by the cpusgm and cudasgm test programs: each element must
 * produce exactly what the C reference computes from the same views.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>
#include "citest.h"
#include "../../../reference/sgm.h"

#ifndef FACTORY
#error define FACTORY
#endif

/* Luma reading for @fmt, written out here (not taken from the element). */
static SgmLuma
luma_for (const gchar * fmt)
{
  SgmLuma l = { SGM_LUMA_GRAY8, 1, 0, 0, 0 };
  static const struct
  {
    const gchar *name;
    gint ps, r, g, b;
  } rgb[] = {
    {"RGB", 3, 0, 1, 2}, {"BGR", 3, 2, 1, 0},
    {"RGBA", 4, 0, 1, 2}, {"BGRA", 4, 2, 1, 0},
    {"ARGB", 4, 1, 2, 3}, {"ABGR", 4, 3, 2, 1},
    {"RGBx", 4, 0, 1, 2}, {"BGRx", 4, 2, 1, 0},
    {"xRGB", 4, 1, 2, 3}, {"xBGR", 4, 3, 2, 1},
  };
  if (!strcmp (fmt, "GRAY16_LE"))
    l.kind = SGM_LUMA_GRAY16;
  /* GRAY8, and I420 / NV12 whose luma plane comes first */
  for (guint i = 0; i < G_N_ELEMENTS (rgb); i++)
    if (!strcmp (fmt, rgb[i].name))
      l = (SgmLuma) { SGM_LUMA_RGB, rgb[i].ps, rgb[i].r, rgb[i].g, rgb[i].b };
  return l;
}

static SgmOutFormat
out_for (const gchar * fmt)
{
  SgmOutFormat f = { SGM_OUT_GRAY16, 0, 0, 0, 0 };
  if (!strcmp (fmt, "GRAY8"))
    f.kind = SGM_OUT_GRAY8;
  else if (!strcmp (fmt, "RGBA") || !strcmp (fmt, "RGBx"))
    f = (SgmOutFormat) { SGM_OUT_COLOUR, 0, 1, 2, 3 };
  else if (!strcmp (fmt, "BGRA") || !strcmp (fmt, "BGRx"))
    f = (SgmOutFormat) { SGM_OUT_COLOUR, 2, 1, 0, 3 };
  return f;
}

/* A stereo frame: textured left view, right view = left shifted by @shift
 * pixels (x_right = x_left - shift) in the luma / packed plane 0; other
 * planes (chroma, unused) random. */

static void
fill_pair (GstVideoFrame * f, gboolean top_bottom, gint vw, gint vh,
    gint shift, guint64 seed)
{
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (f); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (f->info.finfo, p, comp);
    ci_fill_random (GST_VIDEO_FRAME_PLANE_DATA (f, p),
        (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (f, p) *
        GST_VIDEO_FRAME_COMP_HEIGHT (f, comp[0]), seed + p);
  }
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  const gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  const gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (f, 0);
  /* smooth the left view's rows so the census sees structure, not noise */
  for (gint y = 0; y < vh; y++)
    for (gint x = ps; x < vw * ps; x++)
      d[y * stride + x] = (d[y * stride + x] + d[y * stride + x - ps]) / 2;
  for (gint y = 0; y < vh; y++)
    for (gint x = 0; x < vw; x++) {
      gint xs = MIN (x + shift, vw - 1);
      guint8 *dst = top_bottom ? d + (y + vh) * stride + (gsize) x * ps :
          d + y * stride + (gsize) (x + vw) * ps;
      memcpy (dst, d + y * stride + (gsize) xs * ps, ps);
    }
}

/* Exchange the two views of a frame made by fill_pair. */
static void
swap_views (GstVideoFrame * f, gboolean top_bottom, gint vw, gint vh)
{
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  const gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  const gsize row = (gsize) vw * GST_VIDEO_FRAME_COMP_PSTRIDE (f, 0);
  guint8 *tmp = g_malloc (row);
  for (gint y = 0; y < vh; y++) {
    guint8 *a = d + y * stride;
    guint8 *b = top_bottom ? d + (y + vh) * stride : a + row;
    memcpy (tmp, a, row);
    memcpy (a, b, row);
    memcpy (b, tmp, row);
  }
  g_free (tmp);
}

/* valid: push_and_compare's buffer has this PTS (1 s duration) */
static GstClockTime push_pts = GST_CLOCK_TIME_NONE;
/* > 0: push_and_compare's frames follow a segment that starts here, so
 * that a PTS of segment_start is stream time 0 */
static GstClockTime segment_start = 0;
/* a hash of the last output push_and_compare checked */
static guint last_out_hash = 0;

/* TRUE: run FACTORY between cudaupload and cudadownload (CUDA memory). */
static gboolean use_cuda_memory = FALSE;
/* > 0: input rows this many bytes longer than the caps' stride (video meta),
 * single-plane formats only */
static gint extra_stride = 0;
/* TRUE: the frame holds the right view first and its caps say so
 * (multiview-flags right-view-first; with by_caps only) */
static gboolean right_first = FALSE;

/* Register the flag-set type before a caps string names it: GStreamer
 * 1.22 otherwise loads it through a dynamic type factory of the registry
 * and leaks the factory's cached copy (valgrind: definitely lost). */
static void
ensure_multiview_types (void)
{
  g_type_ensure (GST_TYPE_VIDEO_MULTIVIEW_FLAGSET);
}

/* Element settings a frame is checked against. */
typedef struct
{
  gint nd, mind, lr, paths, census;
  gint p2, p1;                  /* 0: the element's, not set */
  gint uniq;                    /* uniqueness x 1024; 0: the element's */
  gboolean no_subpixel, no_median;
} Knobs;

static void
apply_knobs (GstElement * sgm, const Knobs * k)
{
  g_object_set (sgm, "num-disparities", k->nd, "min-disparity", k->mind,
      "lr-max-diff", k->lr, "paths", k->paths, "census", k->census, NULL);
  if (k->p2 > 0)
    g_object_set (sgm, "p2", k->p2, NULL);
  if (k->p1 > 0)
    g_object_set (sgm, "p1", k->p1, NULL);
  if (k->uniq > 0)
    g_object_set (sgm, "uniqueness", k->uniq / 1024.0, NULL);
  g_object_set (sgm, "subpixel", !k->no_subpixel, "median", !k->no_median,
      NULL);
}

/* A harness for FACTORY (between cudaupload and cudadownload, CUDA memory
 * on both sides, when use_cuda_memory); *sgm: the element itself, a new
 * reference. */
static GstHarness *
new_harness (GstElement ** sgm)
{
  GstHarness *h;
  if (use_cuda_memory) {
    h = ci_cuda_memory_harness (FACTORY, "sgm", sgm);
  } else {
    h = gst_harness_new (FACTORY);
    *sgm = gst_object_ref (h->element);
  }
  return h;
}

/* Tears @h down; with use_cuda_memory, first fails unless the element took
 * and gave CUDA memory only, in cudaupload's context. */
static void
finish_harness (GstHarness * h)
{
  if (use_cuda_memory) {
    GstElement *sgm = gst_bin_get_by_name (GST_BIN (h->element), "sgm");
    ci_check_cuda_memory (sgm);
    gst_object_unref (sgm);
    ci_check_shared_context (h, "up", "sgm");
  }
  gst_harness_teardown (h);
}

/* Set caps for @vw x @vh views (a no-op when they are unchanged), push one
 * frame, compare the output with the reference for @k, row by row. */
static void
push_and_compare (GstHarness * h, const gchar * infmt, const gchar * outfmt,
    gboolean top_bottom, gboolean by_caps, gint vw, gint vh, const Knobs * k)
{
  const gint nd = k->nd, mind = k->mind;
  gint fw = top_bottom ? vw : 2 * vw, fh = top_bottom ? 2 * vh : vh;
  gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1%s%s", infmt, fw, fh, by_caps ? (top_bottom ?
          ",multiview-mode=top-bottom" : ",multiview-mode=side-by-side") : "",
      by_caps && right_first ?
      ",multiview-flags=(GstVideoMultiviewFlagsSet)1:ffffffff" : "");
  gchar *out_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d,framerate=30/1", outfmt, vw, vh);
  gst_harness_set_src_caps_str (h, in_caps);
  gst_harness_set_sink_caps_str (h, out_caps);
  if (segment_start > 0) {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    seg.start = seg.position = segment_start;
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }

  GstVideoInfo in_info, out_info;
  GstCaps *ic = gst_caps_from_string (in_caps);
  fail_unless (gst_video_info_from_caps (&in_info, ic));
  if (extra_stride > 0) {
    /* the frame's stride differs from the caps': the right view of a
     * top-bottom frame must be found with the buffer's own stride */
    in_info.stride[0] += extra_stride;
    in_info.size = (gsize) in_info.stride[0] * fh;
  }
  GstBuffer *in = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&in_info));
  if (extra_stride > 0)
    gst_buffer_add_video_meta_full (in, 0, GST_VIDEO_INFO_FORMAT (&in_info),
        fw, fh, 1, in_info.offset, in_info.stride);
  GstVideoFrame fi;
  fail_unless (gst_video_frame_map (&fi, &in_info, in, GST_MAP_WRITE));
  fill_pair (&fi, top_bottom, vw, vh, 3 + mind, (guint64) vw * 131 + nd);
  if (right_first)
    swap_views (&fi, top_bottom, vw, vh);
  gst_video_frame_unmap (&fi);
  if (GST_CLOCK_TIME_IS_VALID (push_pts)) {
    GST_BUFFER_PTS (in) = push_pts;
    GST_BUFFER_DURATION (in) = GST_SECOND;
  }

  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "no output for %s -> %s", infmt, outfmt);
  GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&out_info, oc));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&out_info), vw);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&out_info), vh);

  /* the reference on the same views */
  GstVideoFrame fo;
  fail_unless (gst_video_frame_map (&fi, &in_info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, &out_info, out, GST_MAP_READ));
  SgmParams p;
  sgm_params_init (&p, vw, vh);
  p.num_disp = nd;
  p.min_disp = mind;
  p.lr_max_diff = k->lr;
  p.paths = k->paths;
  p.census = k->census;
  if (k->p2 > 0)
    p.p2 = k->p2;
  if (k->p1 > 0)
    p.p1 = k->p1;
  if (k->uniq > 0)
    p.uniqueness = k->uniq;
  p.subpixel = !k->no_subpixel;
  p.median = !k->no_median;
  const guint8 *base = GST_VIDEO_FRAME_PLANE_DATA (&fi, 0);
  gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, 0);
  SgmLuma l = luma_for (infmt);
  gsize bpp = l.kind == SGM_LUMA_GRAY16 ? 2 : l.kind == SGM_LUMA_RGB ?
      (gsize) l.pixel_stride : 1;
  const guint8 *second = top_bottom ? base + vh * stride : base + vw * bpp;
  const guint8 *left = right_first ? second : base;
  const guint8 *right = right_first ? base : second;
  int16_t *disp = g_new (int16_t, vw * vh);
  fail_unless_equals_int (sgm_ref_compute (&p, left, stride, right, stride, l,
          disp), 0);
  SgmOutFormat of = out_for (outfmt);
  gsize row = (gsize) vw * sgm_out_bytes (of);
  gsize ostride = GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0);
  guint8 *ref = g_malloc0 (ostride * vh);
  sgm_ref_convert (disp, vw, vh, ref, ostride, of, &p);
  const guint8 *got = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  glong valid = 0;
  for (gint i = 0; i < vw * vh; i++)
    valid += disp[i] != SGM_INVALID;
  /* a test on an all-invalid map would prove little */
  fail_unless (valid > vw * vh / 4, "only %ld valid pixels", valid);
  last_out_hash = 5381;
  for (gint y = 0; y < vh; y++)
    for (gsize x = 0; x < row; x++)
      last_out_hash = last_out_hash * 33 + got[y * ostride + x];
  for (gint y = 0; y < vh; y++)
    fail_unless (memcmp (ref + y * ostride, got + y * ostride, row) == 0,
        "%s -> %s %s%s %dx%d D=%d min=%d paths=%d: row %d differs", infmt,
        outfmt, top_bottom ? "top-bottom" : "side-by-side",
        by_caps ? " (caps)" : "", vw, vh, nd, mind, k->paths, y);
  g_free (ref);
  g_free (disp);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_caps_unref (ic);
  gst_caps_unref (oc);
  g_free (in_caps);
  g_free (out_caps);
}

/* set: check_one sets the layout property to it (else to top-bottom only
 * where the caps do not say) */
static const gchar *layout_prop = NULL;

/* One harness, one frame. */
static void
check_one (const gchar * infmt, const gchar * outfmt, gboolean top_bottom,
    gboolean by_caps, gint vw, gint vh, gint nd, gint mind, gint lr,
    gint paths, gint census)
{
  GstElement *sgm;
  GstHarness *h = new_harness (&sgm);
  const Knobs k = { nd, mind, lr, paths, census };
  apply_knobs (sgm, &k);
  if (layout_prop)
    gst_util_set_object_arg (G_OBJECT (sgm), "layout", layout_prop);
  else if (!by_caps && top_bottom)
    gst_util_set_object_arg (G_OBJECT (sgm), "layout", "top-bottom");
  gst_object_unref (sgm);
  push_and_compare (h, infmt, outfmt, top_bottom, by_caps, vw, vh, &k);
  finish_harness (h);
}

/* Properties changed while playing and a new frame size mid-stream: each
 * frame must equal the reference for the settings and size it was pushed
 * with (the CUDA element re-plans and re-allocates its scratch). */
static void
check_live_changes (void)
{
  static const struct
  {
    gint vw, vh;
    Knobs k;
  } steps[] = {
    {61, 37, {23, 0, 1, 8, SGM_CENSUS_9X7}},
    {61, 37, {129, 0, 1, 8, SGM_CENSUS_9X7}},   /* D up: larger volumes */
    {61, 37, {16, -2, -1, 4, SGM_CENSUS_SYM_9X7}},
    {93, 21, {16, -2, -1, 4, SGM_CENSUS_SYM_9X7}},      /* new caps */
    {93, 21, {270, 1, 0, 8, SGM_CENSUS_9X7}},
    {40, 50, {7, 0, 2, 8, SGM_CENSUS_9X7}},
  };
  GstElement *sgm;
  GstHarness *h = new_harness (&sgm);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
    apply_knobs (sgm, &steps[i].k);
    push_and_compare (h, "NV12", "RGBA", FALSE, FALSE, steps[i].vw,
        steps[i].vh, &steps[i].k);
  }
  gst_object_unref (sgm);
  finish_harness (h);
}

/* A property bound to a control source takes its value at each buffer's
 * stream time (GST_PARAM_CONTROLLABLE): the same stereo frame at stream
 * time 0 s and 1 s (PTS @start and @start + 1 s in a segment from @start)
 * must equal the reference with p2 = 200 and p2 = 20 respectively, and
 * the two outputs must differ. */
static void
check_controller (GstClockTime start)
{
  GstElement *sgm;
  GstHarness *h = new_harness (&sgm);
  const gint want[] = { 200, 20 };
  const double steps[] = { 200, 20 };
  ci_control_steps (sgm, "p2", steps, 2);
  const Knobs fixed = { 48, 0, 1, 8, SGM_CENSUS_9X7, 0 };
  apply_knobs (sgm, &fixed);    /* p2 is left to the control source */
  guint hash[2];
  segment_start = start;
  for (gint i = 0; i < 2; i++) {
    Knobs k = fixed;
    k.p2 = want[i];             /* for the reference */
    push_pts = start + i * GST_SECOND;
    push_and_compare (h, "GRAY8", "GRAY16_LE", FALSE, FALSE, 67, 29, &k);
    hash[i] = last_out_hash;
    gint p2;
    g_object_get (sgm, "p2", &p2, NULL);
    fail_unless (p2 == want[i], "segment from %" GST_TIME_FORMAT ", PTS %"
        GST_TIME_FORMAT ": p2 %d, want %d (the value at stream time %d s)",
        GST_TIME_ARGS (start), GST_TIME_ARGS (push_pts), p2, want[i], i);
  }
  push_pts = GST_CLOCK_TIME_NONE;
  segment_start = 0;
  fail_unless (hash[0] != hash[1], "p2 200 and 20 gave the same output");
  gst_object_unref (sgm);
  gst_harness_teardown (h);
}

GST_START_TEST (test_controller)
{
  check_controller (0);
  /* a segment from 10 s: PTS 10 s is stream time 0, where the control
   * source is read (not at the PTS, which is past its last step) */
  check_controller (10 * GST_SECOND);
}
GST_END_TEST;

/* p1, uniqueness, subpixel and median reach the output: each setting's
 * frame equals the reference with it and differs from the defaults'. */
GST_START_TEST (test_more_knobs)
{
  static const Knobs ks[] = {
    {64, 0, 1, 8, SGM_CENSUS_9X7},
    {64, 0, 1, 8, SGM_CENSUS_9X7, 0, 4},
    {64, 0, 1, 8, SGM_CENSUS_9X7, 0, 0, 512},
    {64, 0, 1, 8, SGM_CENSUS_9X7, 0, 0, 700},
    {64, 0, 1, 8, SGM_CENSUS_9X7, 0, 0, 0, TRUE},
    {64, 0, 1, 8, SGM_CENSUS_9X7, 0, 0, 0, FALSE, TRUE},
    {64, 0, -1, 4, SGM_CENSUS_9X7, 0, 0, 1024, TRUE, TRUE},
  };
  guint hash0 = 0;
  for (guint i = 0; i < G_N_ELEMENTS (ks); i++) {
    GstElement *sgm;
    GstHarness *h = new_harness (&sgm);
    apply_knobs (sgm, &ks[i]);
    gst_object_unref (sgm);
    push_and_compare (h, "GRAY8", "GRAY16_LE", FALSE, FALSE, 77, 31, &ks[i]);
    if (i == 0)
      hash0 = last_out_hash;
    else
      fail_unless (last_out_hash != hash0, "setting %u gave the defaults' "
          "output", i);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* The bundled tsukuba pair (tests/sgm/data, CI_SGM_DATA) as one
 * side-by-side GRAY8 frame; *vw x *vh: one view */
static GstBuffer *
tsukuba_sbs (gint * vw, gint * vh, guint8 ** left, guint8 ** right)
{
  const gchar *dir = g_getenv ("CI_SGM_DATA");
  fail_unless (dir != NULL, "CI_SGM_DATA is not set");
  CiImage *im[2];
  for (int v = 0; v < 2; v++) {
    gchar *path = g_build_filename (dir, "tsukuba", v ? "im4.png" : "im3.png",
        NULL);
    im[v] = ci_image_load_png (path);
    fail_unless (im[v] != NULL && im[v]->bytes_per_sample == 1, "%s", path);
    g_free (path);
  }
  const gint w = im[0]->width, h = im[0]->height;
  GstBuffer *buf = gst_buffer_new_and_alloc ((gsize) 2 * w * h);
  GstMapInfo m;
  gst_buffer_map (buf, &m, GST_MAP_WRITE);
  for (int v = 0; v < 2; v++) {
    const CiImage *g = im[v];
    guint8 *plane = g_malloc ((gsize) w * h);
    for (gint y = 0; y < h; y++)
      for (gint x = 0; x < w; x++) {
        const guint8 *px = g->data + y * g->stride + (gsize) x * g->channels;
        plane[y * w + x] = g->channels >= 3 ? (guint8) ((77 * px[0] +
                150 * px[1] + 29 * px[2] + 128) >> 8) : px[0];
      }
    for (gint y = 0; y < h; y++)
      memcpy (m.data + (gsize) y * 2 * w + (gsize) v * w, plane + (gsize) y * w,
          w);
    *(v ? right : left) = plane;
    ci_image_free (im[v]);
  }
  gst_buffer_unmap (buf, &m);
  *vw = w;
  *vh = h;
  return buf;
}

/* uniqueness is rounded to the nearest 1/1024, not truncated (a helper's
 * mutation audit: truncation, 0.95 -> 972 instead of 973, went unseen:
 * the other cases set exact k/1024 values, and on their synthetic pairs,
 * which match exactly, no pixel's ratio falls between two such steps).
 * On the tsukuba pair at the defaults the element must give the
 * reference's 973, whose map differs from 972's there. */
GST_START_TEST (test_uniqueness_rounding)
{
  gint vw, vh;
  guint8 *l = NULL, *r = NULL;
  GstBuffer *in = tsukuba_sbs (&vw, &vh, &l, &r);
  GstElement *sgm;
  GstHarness *h = new_harness (&sgm);
  g_object_set (sgm, "num-disparities", 16, "uniqueness", 0.95, NULL);
  gst_object_unref (sgm);
  gchar *ic = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,height=%d,"
      "framerate=30/1", 2 * vw, vh);
  gst_harness_set_src_caps_str (h, ic);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY16_LE");
  g_free (ic);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  const SgmLuma gray = { SGM_LUMA_GRAY8, 1, 0, 0, 0 };
  const gsize row = (gsize) vw * 2;
  guint8 *ref[2];
  for (int k = 0; k < 2; k++) {
    SgmParams p;
    sgm_params_init (&p, vw, vh);
    p.num_disp = 16;
    p.uniqueness = k ? 972 : 973;
    int16_t *disp = g_new (int16_t, (gsize) vw * vh);
    fail_unless_equals_int (sgm_ref_compute (&p, l, vw, r, vw, gray, disp), 0);
    ref[k] = g_malloc (row * vh);
    sgm_ref_convert (disp, vw, vh, ref[k], row, out_for ("GRAY16_LE"), &p);
    g_free (disp);
  }
  fail_if (memcmp (ref[0], ref[1], row * vh) == 0, "972 and 973 give the "
      "same map: the case tells nothing");
  GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo oi;
  GstVideoFrame fo;
  fail_unless (gst_video_info_from_caps (&oi, oc));
  fail_unless (gst_video_frame_map (&fo, &oi, out, GST_MAP_READ));
  for (gint y = 0; y < vh; y++)
    fail_unless (memcmp ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0)
            + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0), ref[0] + y * row,
            row) == 0, "row %d differs from the reference at uniqueness 973",
        y);
  gst_video_frame_unmap (&fo);
  gst_caps_unref (oc);
  gst_buffer_unref (out);
  g_free (ref[0]);
  g_free (ref[1]);
  g_free (l);
  g_free (r);
  finish_harness (h);
}
GST_END_TEST;

GST_START_TEST (test_live_changes)
{
  check_live_changes ();
}
GST_END_TEST;

/* Fails unless @fmts holds every format of FACTORY's @pad template (a
 * format added to the element without a check here fails). */
static void
check_covers_template (const gchar * pad, const gchar ** fmts, guint n)
{
  GstElementFactory *f = gst_element_factory_find (FACTORY);
  fail_unless (f != NULL);
  GstCaps *caps = NULL;
  for (const GList * l = gst_element_factory_get_static_pad_templates (f); l;
      l = l->next) {
    GstStaticPadTemplate *t = l->data;
    if (!strcmp (t->name_template, pad))
      caps = gst_static_caps_get (&t->static_caps);
  }
  fail_unless (caps != NULL && !gst_caps_is_empty (caps));
  /* the system-memory structure: a cuda* element offers fewer formats in
   * memory:CUDAMemory (what 1.22's allocator can lay out) */
  const GstStructure *st = NULL;
  for (guint i = 0; i < gst_caps_get_size (caps) && !st; i++) {
    GstCapsFeatures *cf = gst_caps_get_features (caps, i);
    if (!cf || gst_caps_features_is_equal (cf,
            GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      st = gst_caps_get_structure (caps, i);
  }
  fail_unless (st != NULL, "no system-memory caps on the %s template", pad);
  const GValue *list = gst_structure_get_value (st, "format");
  fail_unless (list != NULL && GST_VALUE_HOLDS_LIST (list));
  fail_unless_equals_int (gst_value_list_get_size (list), n);
  for (guint i = 0; i < n; i++) {
    const gchar *name = g_value_get_string (gst_value_list_get_value (list, i));
    guint j = 0;
    while (j < n && strcmp (fmts[j], name))
      j++;
    fail_unless (j < n, "%s pad format %s is not checked", pad, name);
  }
  gst_caps_unref (caps);
  gst_object_unref (f);
}

GST_START_TEST (test_input_formats)
{
  /* every format of the sink template */
  const gchar *fmts[] = { "GRAY8", "GRAY16_LE", "RGB", "BGR", "RGBA", "BGRA",
    "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", "I420", "NV12"
  };
  check_covers_template ("sink", fmts, G_N_ELEMENTS (fmts));
  for (guint i = 0; i < G_N_ELEMENTS (fmts); i++)
    check_one (fmts[i], "GRAY16_LE", FALSE, FALSE, 61, 37, 23, 0, 1, 8,
        SGM_CENSUS_9X7);
}
GST_END_TEST;

GST_START_TEST (test_output_formats)
{
  const gchar *fmts[] = { "GRAY16_LE", "GRAY8", "RGBA", "BGRA", "RGBx",
    "BGRx"
  };
  check_covers_template ("src", fmts, G_N_ELEMENTS (fmts));
  for (guint i = 0; i < G_N_ELEMENTS (fmts); i++)
    check_one ("GRAY8", fmts[i], FALSE, FALSE, 53, 29, 17, 2, -1, 8,
        SGM_CENSUS_SYM_9X7);
}
GST_END_TEST;

GST_START_TEST (test_layouts)
{
  /* top-bottom from the property and from the caps; side-by-side from caps */
  check_one ("GRAY8", "GRAY16_LE", TRUE, FALSE, 47, 31, 16, 0, 1, 4,
      SGM_CENSUS_9X7);
  check_one ("RGB", "GRAY16_LE", TRUE, TRUE, 47, 31, 16, 0, 1, 8,
      SGM_CENSUS_9X7);
  check_one ("GRAY8", "GRAY8", FALSE, TRUE, 45, 21, 129, 0, 2, 8,
      SGM_CENSUS_9X7);
  /* the caps' multiview mode overrides the property, both ways round */
  layout_prop = "top-bottom";
  check_one ("GRAY8", "GRAY8", FALSE, TRUE, 45, 21, 19, 0, 1, 8,
      SGM_CENSUS_9X7);
  layout_prop = "side-by-side";
  check_one ("BGRA", "GRAY16_LE", TRUE, TRUE, 39, 25, 21, 0, 1, 8,
      SGM_CENSUS_9X7);
  layout_prop = NULL;
}
GST_END_TEST;

GST_START_TEST (test_padded_stride)
{
  extra_stride = 72;
  check_one ("GRAY8", "GRAY16_LE", TRUE, FALSE, 47, 31, 16, 0, 1, 8,
      SGM_CENSUS_9X7);
  check_one ("RGB", "GRAY8", TRUE, TRUE, 33, 21, 24, 0, -1, 8,
      SGM_CENSUS_9X7);
  check_one ("BGRx", "RGBA", FALSE, FALSE, 35, 17, 20, 1, 1, 4,
      SGM_CENSUS_SYM_9X7);
  extra_stride = 0;
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  gint nd, mind, p1, p2, paths, lr, census;
  gdouble uniq;
  gboolean sub, med;
  g_object_get (e, "num-disparities", &nd, "min-disparity", &mind, "p1", &p1,
      "p2", &p2, "paths", &paths, "lr-max-diff", &lr, "census", &census,
      "uniqueness", &uniq, "subpixel", &sub, "median", &med, NULL);
  /* the defaults are the reference's (docs/sgm.md explains them) */
  SgmParams d;
  sgm_params_init (&d, 1, 1);
  fail_unless_equals_int (nd, d.num_disp);
  fail_unless_equals_int (mind, d.min_disp);
  fail_unless_equals_int (p1, d.p1);
  fail_unless_equals_int (p2, d.p2);
  fail_unless_equals_int (paths, d.paths);
  fail_unless_equals_int (lr, d.lr_max_diff);
  fail_unless_equals_int (census, d.census);
  fail_unless_equals_int ((gint) (uniq * SGM_UNIQ_ONE + 0.5), d.uniqueness);
  fail_unless (sub && med);
  g_object_set (e, "num-disparities", 1024, "min-disparity", -7, "p1", 3,
      "p2", 200, "paths", 4, "lr-max-diff", 0, "uniqueness", 0.5,
      "subpixel", FALSE, "median", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "census", "symmetric-9x7");
  gst_util_set_object_arg (G_OBJECT (e), "layout", "top-bottom");
  gint layout;
  g_object_get (e, "num-disparities", &nd, "min-disparity", &mind, "p1", &p1,
      "p2", &p2, "paths", &paths, "lr-max-diff", &lr, "census", &census,
      "uniqueness", &uniq, "subpixel", &sub, "median", &med, "layout",
      &layout, NULL);
  fail_unless (nd == 1024 && mind == -7 && p1 == 3 && p2 == 200 && paths == 4
      && lr == 0 && census == SGM_CENSUS_SYM_9X7 && uniq == 0.5 && !sub
      && !med && layout == 1);
  /* only 4 and 8 paths exist: the enum has no other value to parse */
  gst_util_set_object_arg (G_OBJECT (e), "paths", "8");
  g_object_get (e, "paths", &paths, NULL);
  fail_unless_equals_int (paths, 8);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "paths");
  GEnumClass *ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
  for (gint v = 0; v <= 16; v++)
    fail_unless ((g_enum_get_value (ec, v) != NULL) == (v == 4 || v == 8));
  /* docs/sgm.md: all but layout may change while PLAYING and are
   * controllable; layout (the output size) only up to READY */
  const gchar *live[] = { "num-disparities", "min-disparity", "p1", "p2",
    "paths", "census", "uniqueness", "lr-max-diff", "subpixel", "median"
  };
  for (guint i = 0; i < G_N_ELEMENTS (live); i++)
    ci_check_param_flags (e, live[i], 1, 1);
  ci_check_param_flags (e, "layout", 0, 0);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "layout");
  fail_unless (ps->flags & GST_PARAM_MUTABLE_READY, "layout: not READY");
  gst_object_unref (e);
}
GST_END_TEST;

GST_START_TEST (test_ranges)
{
  /* a single disparity, and a range wider than the view with min < 0 */
  check_one ("GRAY8", "GRAY16_LE", FALSE, FALSE, 41, 19, 1, 3, -1, 8,
      SGM_CENSUS_9X7);
  check_one ("GRAY8", "GRAY16_LE", FALSE, FALSE, 41, 19, 300, -2, 3, 8,
      SGM_CENSUS_9X7);
}
GST_END_TEST;


/* multiview-flags right-view-first: the views are read the other way
 * round (side by side and top-bottom) */
GST_START_TEST (test_right_view_first)
{
  ensure_multiview_types ();
  right_first = TRUE;
  check_one ("GRAY8", "GRAY16_LE", FALSE, TRUE, 45, 23, 32, 0, 1, 8,
      SGM_CENSUS_9X7);
  check_one ("RGB", "GRAY8", TRUE, TRUE, 37, 19, 16, -1, 1, 4,
      SGM_CENSUS_9X7);
  right_first = FALSE;
}
GST_END_TEST;

/* Stereo descriptions the element cannot read fail negotiation: other
 * multiview modes, flipped or flopped views. */
GST_START_TEST (test_stereo_modes_refused)
{
  static const gchar *extra[] = {
    ",multiview-mode=row-interleaved",
    ",multiview-mode=checkerboard",
    ",multiview-mode=frame-by-frame",
    ",multiview-mode=side-by-side,"
        "multiview-flags=(GstVideoMultiviewFlagsSet)2:ffffffff",
    ",multiview-mode=top-bottom,"
        "multiview-flags=(GstVideoMultiviewFlagsSet)10:ffffffff",
  };
  ensure_multiview_types ();
  for (guint i = 0; i < G_N_ELEMENTS (extra); i++) {
    GstElement *sgm;
    GstHarness *h = new_harness (&sgm);
    gst_object_unref (sgm);
    gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=64,"
        "height=32,framerate=30/1%s", extra[i]);
    gst_harness_set_src_caps_str (h, caps);
    GstBuffer *buf = gst_buffer_new_and_alloc (64 * 32);
    gst_buffer_memset (buf, 0, 0x40, 64 * 32);
    fail_unless_equals_int (gst_harness_push (h, buf),
        GST_FLOW_NOT_NEGOTIATED);
    g_free (caps);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* A view wider than SGM_MAX_VIEW fails negotiation (not the first frame),
 * with an error that says why */
GST_START_TEST (test_huge_view_refused)
{
  GstElement *sgm;
  GstHarness *h = new_harness (&sgm);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (sgm, bus);
  const gint w = 2 * (SGM_MAX_VIEW + 1);
  gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
      "height=2,framerate=30/1", w);
  gst_harness_set_src_caps_str (h, caps);
  GstBuffer *buf = gst_buffer_new_and_alloc ((gsize) w * 2);
  gst_buffer_memset (buf, 0, 0x40, (gsize) w * 2);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_NOT_NEGOTIATED);
  gchar *dbg = NULL;
  gchar *text = ci_pop_error (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      &dbg);
  fail_unless (dbg && strstr (dbg, "32767"), "%s", text);
  g_free (text);
  g_free (dbg);
  buf = gst_buffer_new_and_alloc ((gsize) w * 2);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_NOT_NEGOTIATED);
  ci_bus_done (sgm, bus);
  gst_object_unref (sgm);
  g_free (caps);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Downstream caps with lists of sizes: the views' list is scaled to the
 * frames' (one size of it fits) */
GST_START_TEST (test_size_lists)
{
  GstElement *sgm;
  GstHarness *h = new_harness (&sgm);
  g_object_set (sgm, "num-disparities", 16, NULL);
  gst_object_unref (sgm);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY16_LE,"
      "width={ 40, 320 },height={ 24, 480 }");
  /* what upstream asks before it picks caps */
  GstCaps *in = gst_caps_from_string ("video/x-raw,format=GRAY8,width=80,"
      "height=24,framerate=30/1");
  fail_unless (gst_pad_peer_query_accept_caps (h->srcpad, in));
  GstCaps *can = gst_pad_peer_query_caps (h->srcpad, NULL);
  fail_unless (gst_caps_can_intersect (can, in));
  gst_caps_unref (can);
  gst_caps_unref (in);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=80,"
      "height=24,framerate=30/1");
  GstBuffer *buf = gst_buffer_new_and_alloc (80 * 24);
  gst_buffer_memset (buf, 0, 0x40, 80 * 24);
  GstBuffer *out = gst_harness_push_and_pull (h, buf);
  fail_unless (out != NULL);
  GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, oc));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 40);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), 24);
  gst_caps_unref (oc);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Upstream that announces a layout in its caps but leaves the size open is
 * offered that layout's frame size first, whatever the layout property says
 * (the property's size used to come first, a frame whose views do not match
 * the output); upstream that announces none gets the property's. */
GST_START_TEST (test_announced_layout_size)
{
  static const char *modes[2] = { "side-by-side", "top-bottom" };
  for (int prop = 0; prop < 2; prop++)
    for (int up = 0; up < 3; up++) {
      GstHarness *h = gst_harness_new (FACTORY);
      gst_util_set_object_arg (G_OBJECT (h->element), "layout", modes[prop]);
      gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY16_LE,"
          "width=320,height=240");
      /* up == 2: upstream announces nothing, the property decides */
      gchar *f = g_strdup_printf ("video/x-raw,format=GRAY8%s%s",
          up < 2 ? ",multiview-mode=" : "", up < 2 ? modes[up] : "");
      GstCaps *filter = gst_caps_from_string (f);
      GstCaps *can = gst_pad_peer_query_caps (h->srcpad, filter);
      fail_if (gst_caps_is_empty (can), "%s, layout %s", f, modes[prop]);
      can = gst_caps_fixate (can);
      GstVideoInfo info;
      fail_unless (gst_video_info_from_caps (&info, can));
      const int tb = up < 2 ? up : prop;
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), tb ? 320 : 640);
      fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), tb ? 480 : 240);
      /* nor is a stereo layout claimed for upstream that announced none
       * (other branches of a tee would see it) */
      const gchar *m = gst_structure_get_string (gst_caps_get_structure (can,
              0), "multiview-mode");
      if (up == 2)
        fail_unless (m == NULL || g_str_equal (m, "mono"), "%s", m);
      gst_caps_unref (can);
      gst_caps_unref (filter);
      g_free (f);
      gst_harness_teardown (h);
    }
}
GST_END_TEST;

/* Runs @desc (its element named "e") to EOS; the caps on e's @pad */
static void
caps_after_eos (const gchar * desc, const gchar * pad_name, GstVideoInfo * info)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL, "%s", desc);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "%s", desc);
  gst_message_unref (m);
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), "e");
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  fail_unless (gst_video_info_from_caps (info, caps));
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (e);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

/* With only the output size given, a free source (videotestsrc) makes a
 * stereo frame of exactly two views (2w x h or w x 2h), not one with a
 * column or row to drop; a source that can only give 2w + 1 still links. */
GST_START_TEST (test_fixates_whole_views)
{
  static const char *modes[2] = { "side-by-side", "top-bottom" };
  GstVideoInfo info;
  /* odd 0: a free source; 1: one fixed at 2w + 1; 2: the output's size a
   * range (videotestsrc fixates towards 320x240) */
  for (int tb = 0; tb < 2; tb++)
    for (int odd = 0; odd < 3; odd++) {
      gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
          "video/x-raw,format=GRAY8%s ! " FACTORY " name=e layout=%s "
          "num-disparities=4 ! video/x-raw,format=GRAY8,width=%s,height=%s ! "
          "fakesink", odd == 1 ? (tb ? ",height=41" : ",width=75") : "",
          modes[tb], odd == 2 ? "[30,41]" : "37", odd == 2 ? "[15,21]" : "20");
      caps_after_eos (desc, "sink", &info);
      if (odd == 2) {
        fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), tb ? 41 : 82);
        fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), tb ? 42 : 21);
      } else {
        fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info),
            tb ? 37 : 74 + odd);
        fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info),
            tb ? 40 + odd : 20);
      }
      g_free (desc);
    }
  /* stepped ranges keep their steps: views of 16..256 in steps of 16 are
   * frames of 32..512 in steps of 32 (the frame's height fixated to 240
   * gave a view of 120 and not-negotiated) */
  caps_after_eos ("videotestsrc num-buffers=1 ! video/x-raw,format=GRAY8 ! "
      FACTORY " name=e layout=top-bottom num-disparities=4 ! "
      "video/x-raw,format=GRAY8,width=[16,64,16],height=[16,256,16] ! "
      "fakesink", "src", &info);
  fail_unless (GST_VIDEO_INFO_WIDTH (&info) % 16 == 0
      && GST_VIDEO_INFO_HEIGHT (&info) % 16 == 0, "%dx%d",
      GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info));
}
GST_END_TEST;

/* An odd frame (its last column or row unused, docs/sgm.md) is offered
 * upstream also when downstream gives the views' size as a range: views of
 * 15..20 are frames of 30..41 (41: a view of 20 and a column to drop) */
GST_START_TEST (test_odd_frame_in_range)
{
  static const char *modes[2] = { "side-by-side", "top-bottom" };
  for (int tb = 0; tb < 2; tb++) {
    GstElement *e = gst_element_factory_make (FACTORY, NULL);
    GstElement *cf = gst_element_factory_make ("capsfilter", NULL);
    GstCaps *fc = gst_caps_from_string (tb ?
        "video/x-raw,format=GRAY8,width=20,height=[15,20]" :
        "video/x-raw,format=GRAY8,width=[15,20],height=20");
    g_object_set (cf, "caps", fc, NULL);
    gst_caps_unref (fc);
    gst_util_set_object_arg (G_OBJECT (e), "layout", modes[tb]);
    GstPad *src = gst_element_get_static_pad (e, "src");
    GstPad *cfsink = gst_element_get_static_pad (cf, "sink");
    GstPad *sink = gst_element_get_static_pad (e, "sink");
    fail_unless_equals_int (gst_pad_link (src, cfsink), GST_PAD_LINK_OK);
    GstCaps *can = gst_pad_query_caps (sink, NULL);
    for (gint v = 28; v <= 43; v++) {
      gchar *str = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
          "height=%d", tb ? 20 : v, tb ? v : 20);
      GstCaps *c = gst_caps_from_string (str);
      const gboolean want = v >= 30 && v <= 41;
      if (gst_caps_can_intersect (can, c) != want) {
        gchar *cs = gst_caps_to_string (can);
        fail ("%s, views of 15..20: frame %s %s; offered %s", modes[tb], str,
            want ? "not offered" : "offered", cs);
        g_free (cs);
      }
      gst_caps_unref (c);
      g_free (str);
    }
    gst_caps_unref (can);
    gst_pad_unlink (src, cfsink);
    gst_object_unref (src);
    gst_object_unref (cfsink);
    gst_object_unref (sink);
    gst_object_unref (cf);
    gst_object_unref (e);
  }
}
GST_END_TEST;

/* The output is one view: a region of the stereo frame does not carry
 * over (and the cpu and cuda twins agree on that). */
GST_START_TEST (test_roi_meta_dropped)
{
  GstHarness *h = gst_harness_new (FACTORY);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,"
      "height=16,framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY16_LE,"
      "width=32,height=16,framerate=30/1");
  GstBuffer *in = gst_buffer_new_and_alloc (64 * 16);
  gst_buffer_memset (in, 0, 0x40, 64 * 16);
  const guint r[4] = { 1, 2, 3, 4 }, none[4] = { 0, 0, 0, 0 };
  ci_check_roi_meta (h, in, r, none);
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_interlaced_refused)
{
  ci_check_interlaced_refused (FACTORY, "GRAY8", NULL);
}
GST_END_TEST;

/* a larger video meta, a short buffer (ci_check_buffer_layouts) */
GST_START_TEST (test_buffer_layouts)
{
  ci_check_buffer_layouts (FACTORY " num-disparities=16 ! capsfilter caps="
      "video/x-raw,format=GRAY16_LE", "video/x-raw,format=GRAY16_LE,width=74,"
      "height=21,framerate=30/1");
  ci_check_plane_layouts (FACTORY " num-disparities=16 ! capsfilter caps="
      "video/x-raw,format=GRAY8", "video/x-raw,format=NV12,width=74,"
      "height=22,framerate=30/1");
}
GST_END_TEST;

/* The output is one view (docs/sgm.md): its caps claim no stereo layout,
 * even when the input's announced one (downstream would split it again) */
GST_START_TEST (test_output_not_stereo)
{
  static const char *modes[2] = { "side-by-side", "top-bottom" };
  for (int tb = 0; tb < 2; tb++) {
    GstHarness *h = gst_harness_new (FACTORY);
    g_object_set (h->element, "num-disparities", 4, NULL);
    gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=64,"
        "height=16,framerate=30/1,multiview-mode=%s", modes[tb]);
    gst_harness_set_src_caps_str (h, caps);
    GstBuffer *in = gst_buffer_new_and_alloc (64 * 16);
    gst_buffer_memset (in, 0, 0x40, 64 * 16);
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL, "%s", caps);
    GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
    const GstStructure *st = gst_caps_get_structure (oc, 0);
    const gchar *m = gst_structure_get_string (st, "multiview-mode");
    fail_unless (m == NULL || g_str_equal (m, "mono"),
        "output of %s claims multiview-mode %s", caps, m);
    gint w, hh;
    fail_unless (gst_structure_get_int (st, "width", &w)
        && gst_structure_get_int (st, "height", &hh));
    fail_unless (w == (tb ? 64 : 32) && hh == (tb ? 8 : 16), "%dx%d", w, hh);
    gst_caps_unref (oc);
    gst_buffer_unref (out);
    g_free (caps);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* Flipped or flopped views are refused already when caps are offered
 * (accept-caps), not only when they are set; right-view-first is taken */
GST_START_TEST (test_flipped_not_accepted)
{
  ensure_multiview_types ();
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  static const struct
  {
    const gchar *flags;
    gboolean ok;
  } c[] = {
    {"1:ffffffff", TRUE},       /* right-view-first */
    {"2:ffffffff", FALSE},      /* left-flipped */
    {"4:ffffffff", FALSE},      /* left-flopped */
    {"8:ffffffff", FALSE},      /* right-flipped */
    {"10:ffffffff", FALSE},     /* right-flopped */
  };
  for (guint i = 0; i < G_N_ELEMENTS (c); i++) {
    gchar *str = g_strdup_printf ("video/x-raw,format=GRAY8,width=64,"
        "height=16,framerate=30/1,multiview-mode=side-by-side,"
        "multiview-flags=(GstVideoMultiviewFlagsSet)%s", c[i].flags);
    GstCaps *caps = gst_caps_from_string (str);
    fail_unless (caps != NULL, "%s", str);
    fail_unless (gst_pad_query_accept_caps (sink, caps) == c[i].ok,
        "accept-caps of %s: want %d", str, c[i].ok);
    gst_caps_unref (caps);
    g_free (str);
  }
  gst_object_unref (sink);
  gst_object_unref (e);
}
GST_END_TEST;

/* Ranges of frame sizes upstream are offered downstream as the ranges of
 * their views: frames of 30..31 (side by side) are views of 15 only,
 * frames of 30..40 views of 15..20; top-bottom halves the height */
GST_START_TEST (test_upstream_ranges_halved)
{
  static const struct
  {
    const gchar *layout, *frame;
    gint lo, hi;                /* the views' size in the halved direction */
    const gchar *field;
  } c[] = {
    {"side-by-side", "width=[30,31],height=20", 15, 15, "width"},
    {"side-by-side", "width=[30,40],height=20", 15, 20, "width"},
    {"top-bottom", "width=20,height=[30,31]", 15, 15, "height"},
    {"top-bottom", "width=20,height=[30,40]", 15, 20, "height"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (c); i++) {
    GstElement *cf = gst_element_factory_make ("capsfilter", NULL);
    GstElement *e = gst_element_factory_make (FACTORY, NULL);
    gchar *str = g_strdup_printf ("video/x-raw,format=GRAY8,%s,"
        "framerate=30/1", c[i].frame);
    GstCaps *fc = gst_caps_from_string (str);
    g_object_set (cf, "caps", fc, NULL);
    gst_caps_unref (fc);
    gst_util_set_object_arg (G_OBJECT (e), "layout", c[i].layout);
    GstPad *cfsrc = gst_element_get_static_pad (cf, "src");
    GstPad *sink = gst_element_get_static_pad (e, "sink");
    GstPad *src = gst_element_get_static_pad (e, "src");
    fail_unless_equals_int (gst_pad_link (cfsrc, sink), GST_PAD_LINK_OK);
    GstCaps *can = gst_pad_query_caps (src, NULL);
    for (gint v = c[i].lo - 2; v <= 2 * c[i].hi + 2; v++) {
      gchar *o = g_strdup_printf ("video/x-raw,format=GRAY16_LE,%s=%d",
          c[i].field, v);
      GstCaps *oc = gst_caps_from_string (o);
      const gboolean want = v >= c[i].lo && v <= c[i].hi;
      if (gst_caps_can_intersect (can, oc) != want) {
        gchar *cs = gst_caps_to_string (can);
        fail ("%s %s: views of %s=%d %s; offered %s", c[i].layout, str,
            c[i].field, v, want ? "not offered" : "offered", cs);
        g_free (cs);
      }
      gst_caps_unref (oc);
      g_free (o);
    }
    gst_caps_unref (can);
    gst_pad_unlink (cfsrc, sink);
    gst_object_unref (cfsrc);
    gst_object_unref (sink);
    gst_object_unref (src);
    gst_object_unref (cf);
    gst_object_unref (e);
    g_free (str);
  }
}
GST_END_TEST;

/* docs/sgm.md: views of at most 32767 pixels each way: 32767 itself is
 * taken (test_huge_view_refused checks 32768) */
GST_START_TEST (test_largest_view_taken)
{
  GstHarness *h = gst_harness_new (FACTORY);
  g_object_set (h->element, "num-disparities", 4, NULL);
  const gint w = 2 * 32767;
  gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
      "height=2,framerate=30/1", w);
  gst_harness_set_src_caps_str (h, caps);
  /* GRAY8 rows are padded to 4 bytes */
  const gsize size = (gsize) GST_ROUND_UP_4 (w) * 2;
  GstBuffer *buf = gst_buffer_new_and_alloc (size);
  gst_buffer_memset (buf, 0, 0x40, size);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL);
  GstVideoInfo info;
  GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_video_info_from_caps (&info, oc));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 32767);
  fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), 2);
  gst_caps_unref (oc);
  gst_buffer_unref (out);
  g_free (caps);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Each test starts from the defaults of the switches above (with
 * CK_FORK=no a failed test leaves them as it had set them). */
static void
reset_switches (void)
{
  push_pts = GST_CLOCK_TIME_NONE;
  segment_start = 0;
  use_cuda_memory = FALSE;
  extra_stride = 0;
  right_first = FALSE;
  layout_prop = NULL;
}

static void
add_sgm_cases (TCase * tc)
{
  tcase_add_checked_fixture (tc, reset_switches, NULL);
  tcase_add_test (tc, test_buffer_layouts);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_input_formats);
  tcase_add_test (tc, test_output_formats);
  tcase_add_test (tc, test_layouts);
  tcase_add_test (tc, test_ranges);
  tcase_add_test (tc, test_padded_stride);
  tcase_add_test (tc, test_live_changes);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_more_knobs);
  tcase_add_test (tc, test_uniqueness_rounding);
  tcase_add_test (tc, test_interlaced_refused);
  tcase_add_test (tc, test_roi_meta_dropped);
  tcase_add_test (tc, test_right_view_first);
  tcase_add_test (tc, test_stereo_modes_refused);
  tcase_add_test (tc, test_size_lists);
  tcase_add_test (tc, test_announced_layout_size);
  tcase_add_test (tc, test_fixates_whole_views);
  tcase_add_test (tc, test_huge_view_refused);
  tcase_add_test (tc, test_output_not_stereo);
  tcase_add_test (tc, test_flipped_not_accepted);
  tcase_add_test (tc, test_upstream_ranges_halved);
  tcase_add_test (tc, test_largest_view_taken);
  tcase_add_test (tc, test_odd_frame_in_range);
}
