/* Cases shared by the cputonemap and cudatonemap GstHarness programs: each
 * element's output must match the C reference (cpu: exactly, cuda: within
 * one code value), caps must say BT.709, properties must act.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "citest.h"
#include "tonemap.h"
#include "tmscene.h"

#ifndef FACTORY
#error define FACTORY
#endif
#ifndef TOLERANCE
#error define TOLERANCE
#endif

#define W 96
#define H 54

/* the scene variant of the frames made below (tm_fill_scene: 1 is another
 * scene, for cuts) */
static int push_variant = 0;

/* Synthetic HDR10 scene (push_variant) as a GstBuffer of @fmt (and the
 * same frame as a TmFrame for the reference). */
static GstBuffer *
scene_buffer_sized (const gchar * fmt, CiTmInFormat tf, gint w, gint h,
    guint64 seed, TmFrame ** out)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (fmt), w, h);
  TmFrame *f = tm_frame_new_in (tf, w, h, 0);
  tm_fill_scene (f, push_variant, 0.02, seed);
  GstBuffer *buf = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
  GstVideoFrame vf;
  fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE));
  for (int p = 0; p < f->nplanes; p++)
    for (int y = 0; y < tm_frame_rows (f, p); y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p),
          f->plane[p] + (size_t) y * f->stride[p], tm_frame_row_bytes (f, p));
  gst_video_frame_unmap (&vf);
  *out = f;
  return buf;
}

static GstBuffer *
scene_buffer (const gchar * fmt, CiTmInFormat tf, guint64 seed, TmFrame ** out)
{
  return scene_buffer_sized (fmt, tf, W, H, seed, out);
}

/* Max difference between the element's output and the reference's. */
static int
compare_out (GstBuffer * got, const GstVideoInfo * oinfo, TmFrame * ref)
{
  GstVideoFrame vf;
  int worst = 0;
  fail_unless (gst_video_frame_map (&vf, oinfo, got, GST_MAP_READ));
  for (int p = 0; p < ref->nplanes; p++)
    for (int y = 0; y < tm_frame_rows (ref, p); y++) {
      const guint8 *a = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
      const guint8 *b = ref->plane[p] + (size_t) y * ref->stride[p];
      for (int x = 0; x < tm_frame_row_bytes (ref, p); x++) {
        if (a[x] != b[x] && g_getenv ("CI_TM_TOLERANCE"))
          g_printerr ("plane %d row %d byte %d: %u, reference %u\n", p, y, x,
              a[x], b[x]);
        worst = MAX (worst, ABS (a[x] - b[x]));
      }
    }
  gst_video_frame_unmap (&vf);
  return worst;
}

/* CI_TM_TOLERANCE overrides TOLERANCE (and prints each differing byte) */
static int
tm_tolerance (void)
{
  const gchar *e = g_getenv ("CI_TM_TOLERANCE");
  return e ? atoi (e) : TOLERANCE;
}

/* valid: push_and_compare's buffer has this PTS */
static GstClockTime push_pts = GST_CLOCK_TIME_NONE;

/* Push a @w x @h scene frame of @ifmt (@seed), run @ref on the same frame
 * into @rout, and return the largest difference of the element's output;
 * the output caps must describe 8-bit BT.709. */
static int
push_and_compare (GstHarness * h, const gchar * ifmt, CiTmInFormat tf, gint w,
    gint hh, guint64 seed, CiTonemap * ref, TmFrame * rout)
{
  TmFrame *rin;
  GstBuffer *in = scene_buffer_sized (ifmt, tf, w, hh, seed, &rin);
  GST_BUFFER_PTS (in) = push_pts;
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo oinfo;
  fail_unless (gst_video_info_from_caps (&oinfo, caps));
  fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&oinfo), w);
  fail_unless_equals_int (oinfo.colorimetry.transfer, GST_VIDEO_TRANSFER_BT709);
  fail_unless_equals_int (oinfo.colorimetry.primaries,
      GST_VIDEO_COLOR_PRIMARIES_BT709);
  if (!GST_VIDEO_INFO_IS_RGB (&oinfo)) {
    fail_unless (gst_video_colorimetry_matches (&oinfo.colorimetry,
            GST_VIDEO_COLORIMETRY_BT709));
    /* the chroma of a 2x2 block is its mean */
    fail_unless_equals_int (GST_VIDEO_INFO_CHROMA_SITE (&oinfo),
        GST_VIDEO_CHROMA_SITE_JPEG);
  }
  CiTmInPlanes ip;
  CiTmOutPlanes op;
  tm_frame_in_planes (rin, &ip);
  tm_frame_out_planes (rout, &op);
  ci_tonemap_process (ref, &ip, &op);
  int d = compare_out (out, &oinfo, rout);
  gst_caps_unref (caps);
  gst_buffer_unref (out);
  tm_frame_free (rin);
  return d;
}

/* Push @n P010 frames of seeds @seed0, @seed0 + 1, ... through @h and
 * compare each with a fresh reference run with @cfg (BGRx out); @what
 * names the case in a failure. */
static void
push_p010_vs_ref (GstHarness * h, const CiTmConfig * cfg, guint64 seed0,
    int n, const gchar * what)
{
  CiTonemap *ref = ci_tonemap_new (cfg);
  TmFrame *rout = tm_frame_new_out (CI_TM_OUT_BGRX, W, H, 0);
  for (int fr = 0; fr < n; fr++) {
    int d = push_and_compare (h, "P010_10LE", CI_TM_IN_P010, W, H,
        seed0 + fr, ref, rout);
    fail_unless (d <= tm_tolerance (), "%s frame %d: max diff %d", what, fr,
        d);
  }
  tm_frame_free (rout);
  ci_tonemap_free (ref);
}

/* TRUE: run the element between cudaupload and cudadownload, so that it
 * takes and gives memory:CUDAMemory */
static gboolean use_cuda_memory = FALSE;

/* > 0: run_case_cfg sets the element's source-peak property to it */
static gfloat prop_source_peak = 0.0f;

/* Push 4 frames of @ifmt with caps @ic to @ofmt and compare each with the
 * reference run with @cfg. */
static void
run_case_cfg (const gchar * ifmt, CiTmInFormat tf, const gchar * ofmt,
    const gchar * ic, const CiTmConfig * cfg)
{
  GstHarness *h;
  GstElement *tm;
  if (use_cuda_memory) {
    h = ci_cuda_memory_harness (FACTORY, "tm", &tm);
  } else {
    h = gst_harness_new (FACTORY);
    tm = gst_object_ref (h->element);
  }
  gchar *oc = g_strdup_printf ("video/x-raw,format=%s", ofmt);
  g_object_set (tm, "operator", cfg->op, "smoothing", cfg->smoothing,
      "input-peak", cfg->input_peak, NULL);
  if (prop_source_peak > 0.0f)
    g_object_set (tm, "source-peak", prop_source_peak, NULL);
  gst_harness_set_src_caps_str (h, ic);
  gst_harness_set_sink_caps_str (h, oc);
  CiTonemap *ref = ci_tonemap_new (cfg);
  TmFrame *rout = tm_frame_new_out (cfg->out_format, W, H, 0);
  for (int fr = 0; fr < 4; fr++) {
    int d = push_and_compare (h, ifmt, tf, W, H, 10 + fr, ref, rout);
    fail_unless (d <= tm_tolerance (), "%s (%s) -> %s op %d frame %d: max diff %d",
        ifmt, ic, ofmt, cfg->op, fr, d);
  }
  tm_frame_free (rout);
  ci_tonemap_free (ref);
  g_free (oc);
  if (use_cuda_memory) {
    ci_check_cuda_memory (tm);
    ci_check_shared_context (h, "up", "tm");
  }
  gst_object_unref (tm);
  gst_harness_teardown (h);
}

static void
run_case (const gchar * ifmt, CiTmInFormat tf, const gchar * ofmt,
    CiTmOutFormat to, CiTmOperator op, const gchar * extra_caps)
{
  gchar *ic = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1,colorimetry=bt2100-pq%s", ifmt, W, H,
      extra_caps ? extra_caps : "");
  /* the reference with the same configuration */
  GstCaps *incaps = gst_caps_from_string (ic);
  CiTmConfig cfg;
  tm_config_init (&cfg, tf, to, W, H);
  cfg.op = op;
  cfg.smoothing = 4;
  GstVideoContentLightLevel cll;
  if (gst_video_content_light_level_from_caps (&cll, incaps))
    cfg.source_peak = cll.max_content_light_level;
  run_case_cfg (ifmt, tf, ofmt, ic, &cfg);
  gst_caps_unref (incaps);
  g_free (ic);
}

/* The caps' colorimetry and HDR10 metadata reach the configuration: each
 * case's expected settings are written out here, not derived as the
 * element derives them. */
GST_START_TEST (test_caps_mapping)
{
  static const struct
  {
    GstVideoColorRange range;
    GstVideoColorMatrix matrix;
    GstVideoTransferFunction transfer;
    GstVideoColorPrimaries primaries;
    CiTmTransfer trc;
    CiTmMatrix cm;
    int full, bt2020;
    guint mastering_max;        /* cd/m2; 0: no mastering-display-info */
  } t[] = {
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT2020,
          GST_VIDEO_TRANSFER_ARIB_STD_B67, GST_VIDEO_COLOR_PRIMARIES_BT2020,
        CI_TM_TRC_HLG, CI_TM_MATRIX_BT2020, 0, 1, 0},
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT709,
          GST_VIDEO_TRANSFER_BT709, GST_VIDEO_COLOR_PRIMARIES_BT709,
        CI_TM_TRC_SRGB, CI_TM_MATRIX_BT709, 0, 0, 0},
    {GST_VIDEO_COLOR_RANGE_0_255, GST_VIDEO_COLOR_MATRIX_BT601,
          GST_VIDEO_TRANSFER_SMPTE2084, GST_VIDEO_COLOR_PRIMARIES_BT2020,
        CI_TM_TRC_PQ, CI_TM_MATRIX_BT601, 1, 1, 0},
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT2020,
          GST_VIDEO_TRANSFER_SMPTE2084, GST_VIDEO_COLOR_PRIMARIES_BT2020,
        CI_TM_TRC_PQ, CI_TM_MATRIX_BT2020, 0, 1, 600},
    /* gamma10 is linear light, full scale at input-peak */
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT2020,
          GST_VIDEO_TRANSFER_GAMMA10, GST_VIDEO_COLOR_PRIMARIES_BT2020,
        CI_TM_TRC_LINEAR, CI_TM_MATRIX_BT2020, 0, 1, 0},
    /* the SDR transfers all take the sRGB curve (docs: srgb, bt709,
     * bt601, bt2020-10/12) */
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT2020,
          GST_VIDEO_TRANSFER_BT2020_10, GST_VIDEO_COLOR_PRIMARIES_BT2020,
        CI_TM_TRC_SRGB, CI_TM_MATRIX_BT2020, 0, 1, 0},
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT2020,
          GST_VIDEO_TRANSFER_BT2020_12, GST_VIDEO_COLOR_PRIMARIES_BT2020,
        CI_TM_TRC_SRGB, CI_TM_MATRIX_BT2020, 0, 1, 0},
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT601,
          GST_VIDEO_TRANSFER_BT601, GST_VIDEO_COLOR_PRIMARIES_BT709,
        CI_TM_TRC_SRGB, CI_TM_MATRIX_BT601, 0, 0, 0},
    {GST_VIDEO_COLOR_RANGE_0_255, GST_VIDEO_COLOR_MATRIX_BT709,
          GST_VIDEO_TRANSFER_SRGB, GST_VIDEO_COLOR_PRIMARIES_BT709,
        CI_TM_TRC_SRGB, CI_TM_MATRIX_BT709, 1, 0, 0},
    /* HLG is BT.2100's: unstated primaries are BT.2020 */
    {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT2020,
          GST_VIDEO_TRANSFER_ARIB_STD_B67, GST_VIDEO_COLOR_PRIMARIES_UNKNOWN,
        CI_TM_TRC_HLG, CI_TM_MATRIX_BT2020, 0, 1, 0},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    GstVideoColorimetry c = { t[i].range, t[i].matrix, t[i].transfer,
      t[i].primaries
    };
    gchar *cs = gst_video_colorimetry_to_string (&c);
    GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, "P010_10LE", "width", G_TYPE_INT, W, "height",
        G_TYPE_INT, H, "framerate", GST_TYPE_FRACTION, 30, 1, "colorimetry",
        G_TYPE_STRING, cs, NULL);
    if (t[i].mastering_max) {
      GstVideoMasteringDisplayInfo m;
      gst_video_mastering_display_info_init (&m);
      m.max_display_mastering_luminance = t[i].mastering_max * 10000;
      m.min_display_mastering_luminance = 50;
      m.white_point.x = 15635;
      m.white_point.y = 16450;
      fail_unless (gst_video_mastering_display_info_add_to_caps (&m, caps));
    }
    gchar *ic = gst_caps_to_string (caps);
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.op = t[i].mastering_max ? CI_TM_OP_BT2390 : CI_TM_OP_HISTOGRAM;
    cfg.smoothing = 4;
    cfg.transfer = t[i].trc;
    cfg.matrix = t[i].cm;
    cfg.full_range = t[i].full;
    cfg.primaries_bt2020 = t[i].bt2020;
    cfg.source_peak = (float) t[i].mastering_max;
    run_case_cfg ("P010_10LE", CI_TM_IN_P010, "BGRx", ic, &cfg);
    g_free (ic);
    g_free (cs);
    gst_caps_unref (caps);
  }
}

GST_END_TEST;

GST_START_TEST (test_formats)
{
  static const gchar *ins[] = { "P010_10LE", "I420_10LE", "P016_LE",
    "Y444_16LE", "RGBA64_LE", "BGRA64_LE", "RGB10A2_LE", "BGR10A2_LE"
  };
  static const gchar *outs[] = { "RGBA", "BGRA", "RGBx", "BGRx", "I420",
    "NV12"
  };
  for (int i = 0; i < CI_TM_IN_N; i++)
    run_case (ins[i], i, outs[(i + 3) % CI_TM_OUT_N], (i + 3) % CI_TM_OUT_N,
        CI_TM_OP_HISTOGRAM, NULL);
  for (int o = 0; o < CI_TM_OUT_N; o++)
    run_case ("P010_10LE", CI_TM_IN_P010, outs[o], o, CI_TM_OP_HISTOGRAM, NULL);
}

GST_END_TEST;

GST_START_TEST (test_operators)
{
  for (int op = 0; op <= CI_TM_OP_CLIP; op++)
    run_case ("RGBA64_LE", CI_TM_IN_RGBA64, "RGBA", CI_TM_OUT_RGBA, op, NULL);
}

GST_END_TEST;

/* Alpha of RGBA64 input reaches RGBA and BGRA (docs §6: rne(255 a)) and
 * not RGBx and BGRx, whose x byte is 255: a scene frame with alpha
 * 0x8000 (byte 128) to each, against the reference too */
GST_START_TEST (test_alpha_and_x_byte)
{
  static const gchar *outs[] = { "RGBA", "BGRA", "RGBx", "BGRx" };
  for (int o = 0; o < 4; o++) {
    GstHarness *h = gst_harness_new (FACTORY);
    g_object_set (h->element, "smoothing", 0, NULL);
    gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA64_LE,width=96,"
        "height=54,framerate=30/1,colorimetry=bt2100-pq");
    gchar *oc = g_strdup_printf ("video/x-raw,format=%s", outs[o]);
    gst_harness_set_sink_caps_str (h, oc);
    g_free (oc);
    TmFrame *rin;
    GstBuffer *in = scene_buffer ("RGBA64_LE", CI_TM_IN_RGBA64, 5, &rin);
    GstMapInfo m;
    fail_unless (gst_buffer_map (in, &m, GST_MAP_WRITE));
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        /* RGBA64's default stride is 8 W; the alpha word's high byte */
        m.data[(size_t) y * 8 * W + 8 * x + 6] = 0x00;
        m.data[(size_t) y * 8 * W + 8 * x + 7] = 0x80;
        rin->plane[0][(size_t) y * rin->stride[0] + 8 * x + 6] = 0x00;
        rin->plane[0][(size_t) y * rin->stride[0] + 8 * x + 7] = 0x80;
      }
    gst_buffer_unmap (in, &m);
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_RGBA64, o, W, H);
    cfg.smoothing = 0;
    CiTonemap *ref = ci_tonemap_new (&cfg);
    TmFrame *rout = tm_frame_new_out (o, W, H, 0);
    CiTmInPlanes ip;
    CiTmOutPlanes op;
    tm_frame_in_planes (rin, &ip);
    tm_frame_out_planes (rout, &op);
    ci_tonemap_process (ref, &ip, &op);
    GstVideoInfo oinfo;
    gst_video_info_set_format (&oinfo, gst_video_format_from_string (outs[o]),
        W, H);
    fail_unless (compare_out (out, &oinfo, rout) <= tm_tolerance (), "%s: "
        "not the reference's bytes", outs[o]);
    GstVideoFrame vf;
    fail_unless (gst_video_frame_map (&vf, &oinfo, out, GST_MAP_READ));
    const int want = o < 2 ? 128 : 255;
    int bad = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        bad += ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0))[(size_t)
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0) + 4 * x + 3] != want;
    fail_unless (bad == 0, "%s: %d pixels' fourth byte is not %d", outs[o],
        bad, want);
    gst_video_frame_unmap (&vf);
    gst_buffer_unref (out);
    tm_frame_free (rout);
    tm_frame_free (rin);
    ci_tonemap_free (ref);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The largest byte difference, over frames @from .. @n-1, between the
 * reference run with @a and one run with @b (and, from frame @from on,
 * with @b_later's run-time settings, ci_tonemap_set_runtime; NULL: none)
 * on 96x54 frames of @a's input format: scene variant 0 before frame @cut,
 * 1 from it on, seed @seed + frame number. */
static int
reference_seq_diff (const CiTmConfig * a, const CiTmConfig * b,
    const CiTmConfig * b_later, int from, int cut, int n, guint64 seed)
{
  CiTonemap *ra = ci_tonemap_new (a), *rb = ci_tonemap_new (b);
  TmFrame *in = tm_frame_new_in (a->in_format, W, H, 0);
  TmFrame *oa = tm_frame_new_out (a->out_format, W, H, 0);
  TmFrame *ob = tm_frame_new_out (b->out_format, W, H, 0);
  int worst = 0;
  for (int fr = 0; fr < n; fr++) {
    CiTmInPlanes ip;
    CiTmOutPlanes pa, pb;
    long nd;
    if (fr == from && b_later)
      ci_tonemap_set_runtime (rb, b_later);
    tm_fill_scene (in, fr >= cut, 0.02, seed + fr);
    tm_frame_in_planes (in, &ip);
    tm_frame_out_planes (oa, &pa);
    tm_frame_out_planes (ob, &pb);
    ci_tonemap_process (ra, &ip, &pa);
    ci_tonemap_process (rb, &ip, &pb);
    if (fr >= from)
      worst = MAX (worst, tm_frame_diff (oa, ob, &nd));
  }
  tm_frame_free (in);
  tm_frame_free (oa);
  tm_frame_free (ob);
  ci_tonemap_free (ra);
  ci_tonemap_free (rb);
  return worst;
}

/* The largest byte difference between the reference run with @a and with
 * @b on run_case_cfg's four frames */
static int
reference_diff (const CiTmConfig * a, const CiTmConfig * b)
{
  return reference_seq_diff (a, b, NULL, 0, 4, 4, 10);
}

/* The output caps describe SDR BT.709: HDR10's mastering-display-info and
 * content-light-level stay on the input side, and only the 4:2:0 outputs
 * carry a chroma-site (jpeg: a 2x2 block's chroma is its mean). */
GST_START_TEST (test_output_caps_sdr)
{
  static const gchar *outs[] = { "BGRx", "RGBA", "NV12", "I420" };
  for (guint o = 0; o < G_N_ELEMENTS (outs); o++) {
    GstHarness *h = gst_harness_new (FACTORY);
    g_object_set (h->element, "smoothing", 0, NULL);
    gchar *ic = g_strdup_printf ("video/x-raw,format=P010_10LE,width=%d,"
        "height=%d,framerate=30/1,colorimetry=bt2100-pq,chroma-site=mpeg2,"
        "content-light-level=(string)1000:400,mastering-display-info=(string)"
        "35400:14600:8500:39850:6550:2300:15635:16450:10000000:50", W, H);
    gst_harness_set_src_caps_str (h, ic);
    g_free (ic);
    gchar *oc = g_strdup_printf ("video/x-raw,format=%s", outs[o]);
    gst_harness_set_sink_caps_str (h, oc);
    g_free (oc);
    TmFrame *rin;
    GstBuffer *out = gst_harness_push_and_pull (h, scene_buffer ("P010_10LE",
            CI_TM_IN_P010, 3, &rin));
    fail_unless (out != NULL);
    GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
    const GstStructure *st = gst_caps_get_structure (caps, 0);
    fail_if (gst_structure_has_field (st, "mastering-display-info"),
        "%s: mastering-display-info in the SDR caps", outs[o]);
    fail_if (gst_structure_has_field (st, "content-light-level"),
        "%s: content-light-level in the SDR caps", outs[o]);
    const gchar *site = gst_structure_get_string (st, "chroma-site");
    if (o < 2)
      fail_unless (site == NULL, "%s: chroma-site %s on RGB", outs[o], site);
    else
      fail_unless (site && !strcmp (site, "jpeg"), "%s: chroma-site %s, "
          "want jpeg", outs[o], site ? site : "none");
    gst_caps_unref (caps);
    gst_buffer_unref (out);
    tm_frame_free (rin);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* HDR10 content-light-level sets the curves' source peak; an implausible
 * one (below 10 or above 10000 cd/m2) is ignored for the mastering
 * display's peak, and an implausible mastering peak for the measured one */
GST_START_TEST (test_hdr10_metadata)
{
  run_case ("P010_10LE", CI_TM_IN_P010, "BGRx", CI_TM_OUT_BGRX,
      CI_TM_OP_REINHARD, ",content-light-level=(string)1000:400");
  /* the peak each must give, and the one taken before 2026-11-23 or, for
   * the limits themselves (10 and 10000 cd/m2 are plausible, docs: "below
   * 10 or above 10000" is absent), the one a strict bound would take (0:
   * measured). Reinhard: on this dark scene BT.2390 hardly depends on the
   * source peak (the first case's old and new peaks gave one code apart) */
  static const struct
  {
    const gchar *meta;
    gfloat peak, old;
    int daylight;               /* scene variant 1, measured peak ~1000 */
  } t[] = {
    {",content-light-level=(string)1:1,mastering-display-info=(string)"
          "35400:14600:8500:39850:6550:2300:15635:16450:6000000:50", 600.0f,
        1.0f},
    {",content-light-level=(string)65535:400", 0.0f, 65535.0f},
    {",content-light-level=(string)9:9", 0.0f, 9.0f},
    {",content-light-level=(string)10000:400", 10000.0f, 10000.0f},
    {",mastering-display-info=(string)35400:14600:8500:39850:6550:2300:"
          "15635:16450:4294967295:50", 0.0f, 429496.7295f},
    {",content-light-level=(string)10:10", 10.0f, 0.0f},
    {",mastering-display-info=(string)35400:14600:8500:39850:6550:2300:"
          "15635:16450:100000:50", 10.0f, 0.0f},
    /* (the interior's lamps measure about 10000 cd/m2 themselves) */
    {",mastering-display-info=(string)35400:14600:8500:39850:6550:2300:"
          "15635:16450:100000000:50", 10000.0f, 0.0f, 1},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    gchar *ic = g_strdup_printf ("video/x-raw,format=P010_10LE,width=%d,"
        "height=%d,framerate=30/1,colorimetry=bt2100-pq%s", W, H, t[i].meta);
    CiTmConfig cfg, old;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.op = CI_TM_OP_REINHARD;
    cfg.smoothing = 4;
    cfg.source_peak = t[i].peak;
    push_variant = t[i].daylight;
    run_case_cfg ("P010_10LE", CI_TM_IN_P010, "BGRx", ic, &cfg);
    push_variant = 0;
    /* the case tells the peaks apart, beyond the cuda twin's tolerance */
    old = cfg;
    old.source_peak = t[i].old;
    if (t[i].old != t[i].peak)
      fail_unless (reference_seq_diff (&cfg, &old, NULL, 0,
              t[i].daylight ? 0 : 4, 4, 10) > 1, "case %u: the old peak "
          "gives the same picture", i);
    g_free (ic);
  }
}

GST_END_TEST;

/* The source-peak property is the curves' source peak, before the HDR10
 * metadata (docs: "0: MaxCLL, else mastering max, else measured"): with
 * MaxCLL 1000 in the caps and the property at 300, the reference at 300 */
GST_START_TEST (test_source_peak_property)
{
  CiTmConfig cfg, meta;
  tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
  cfg.op = CI_TM_OP_REINHARD;
  cfg.smoothing = 4;
  meta = cfg;
  cfg.source_peak = 300.0f;
  meta.source_peak = 1000.0f;
  prop_source_peak = 300.0f;
  gchar *ic = g_strdup_printf ("video/x-raw,format=P010_10LE,width=%d,"
      "height=%d,framerate=30/1,colorimetry=bt2100-pq,"
      "content-light-level=(string)1000:400", W, H);
  run_case_cfg ("P010_10LE", CI_TM_IN_P010, "BGRx", ic, &cfg);
  prop_source_peak = 0.0f;
  /* beyond the cuda twin's tolerance */
  fail_unless (reference_diff (&cfg, &meta) > 1, "source-peak 300 gives "
      "MaxCLL 1000's picture");
  g_free (ic);
}

GST_END_TEST;

/* A layout change while playing (bins) re-reads the configuration without
 * new caps: the caps' HDR10 peak (MaxCLL 400) must stay the curves'
 * source peak, not give way to the measured one. The frames after the
 * change equal a fresh reference with 256 bins at 400 cd/m2. */
GST_START_TEST (test_live_bins_keep_metadata)
{
  GstHarness *h = gst_harness_new (FACTORY);
  g_object_set (h->element, "smoothing", 4, "operator", CI_TM_OP_REINHARD,
      NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=P010_10LE,width=96,"
      "height=54,framerate=30/1,colorimetry=bt2100-pq,"
      "content-light-level=(string)400:100");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGRx");
  CiTmConfig cfg, measured;
  for (int step = 0; step < 2; step++) {
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.op = CI_TM_OP_REINHARD;
    cfg.smoothing = 4;
    cfg.source_peak = 400.0f;
    cfg.bins = step ? 256 : 1024;
    if (step)
      g_object_set (h->element, "bins", 256, NULL);
    push_p010_vs_ref (h, &cfg, 10 + 2 * step, 2, step ? "256 bins" :
        "1024 bins");
  }
  /* beyond the cuda twin's tolerance */
  measured = cfg;
  measured.source_peak = 0.0f;
  fail_unless (reference_diff (&cfg, &measured) > 1, "MaxCLL 400 gives "
      "the measured peak's picture");
  gst_harness_teardown (h);
}

GST_END_TEST;

/* input-peak reaches the configuration: the HLG display peak L_W (at
 * 400 and 4000 cd/m2, with its gamma) and linear input's full scale
 * (gamma10 caps, auto), each against the reference with that peak, and
 * each case's picture differs from the default 1000 cd/m2's */
GST_START_TEST (test_input_peak)
{
  static const struct
  {
    GstVideoTransferFunction transfer;
    CiTmTransfer trc;
    gfloat peak;
  } t[] = {
    {GST_VIDEO_TRANSFER_ARIB_STD_B67, CI_TM_TRC_HLG, 400.0f},
    {GST_VIDEO_TRANSFER_ARIB_STD_B67, CI_TM_TRC_HLG, 4000.0f},
    {GST_VIDEO_TRANSFER_GAMMA10, CI_TM_TRC_LINEAR, 4000.0f},
  };
  for (guint i = 0; i < G_N_ELEMENTS (t); i++) {
    GstVideoColorimetry c = { GST_VIDEO_COLOR_RANGE_16_235,
      GST_VIDEO_COLOR_MATRIX_BT2020, t[i].transfer,
      GST_VIDEO_COLOR_PRIMARIES_BT2020
    };
    gchar *cs = gst_video_colorimetry_to_string (&c);
    gchar *ic = g_strdup_printf ("video/x-raw,format=P010_10LE,width=%d,"
        "height=%d,framerate=30/1,colorimetry=%s", W, H, cs);
    CiTmConfig cfg, def;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.op = CI_TM_OP_REINHARD;
    cfg.smoothing = 4;
    cfg.transfer = t[i].trc;
    def = cfg;
    cfg.input_peak = t[i].peak;
    run_case_cfg ("P010_10LE", CI_TM_IN_P010, "BGRx", ic, &cfg);
    fail_unless (reference_diff (&cfg, &def) > 1, "case %u: input-peak %g "
        "gives the default's picture", i, t[i].peak);
    g_free (ic);
    g_free (cs);
  }
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make (FACTORY, NULL);
  gint op;
  guint bins, smoothing;
  gfloat target;
  fail_unless (e != NULL);
  g_object_get (e, "operator", &op, "bins", &bins, "target-peak", &target,
      "smoothing", &smoothing, NULL);
  fail_unless_equals_int (op, CI_TM_OP_HISTOGRAM);
  fail_unless_equals_int (bins, 1024);
  fail_unless_equals_float (target, 100.0f);
  fail_unless_equals_int (smoothing, 8);
  gst_util_set_object_arg (G_OBJECT (e), "operator", "bt2390");
  gst_util_set_object_arg (G_OBJECT (e), "input-transfer", "hlg");
  g_object_set (e, "bins", 256, NULL);
  g_object_get (e, "operator", &op, "bins", &bins, NULL);
  fail_unless_equals_int (op, CI_TM_OP_BT2390);
  fail_unless_equals_int (bins, 256);
  /* docs/tonemap.md: every property is taken at the next frame, so may
   * change while PLAYING; operator is not controllable */
  const gchar *names[] = { "operator", "bins", "target-peak", "source-peak",
    "input-transfer", "input-peak", "smoothing", "scene-threshold"
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    ci_check_param_flags (e, names[i], 1, i == 0 ? 0 : -1);
  gst_object_unref (e);
}

GST_END_TEST;

/* operator changed while playing: the next frame uses the new curve */
GST_START_TEST (test_runtime_change)
{
  GstHarness *h = gst_harness_new (FACTORY);
  TmFrame *rin;
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA64_LE,width=96,"
      "height=54,framerate=30/1,colorimetry=bt2100-pq");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA");
  GstBuffer *in = scene_buffer ("RGBA64_LE", CI_TM_IN_RGBA64, 1, &rin);
  GstBuffer *a = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  gst_util_set_object_arg (G_OBJECT (h->element), "operator", "clip");
  GstBuffer *b = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (a && b);
  GstMapInfo ma, mb;
  gst_buffer_map (a, &ma, GST_MAP_READ);
  gst_buffer_map (b, &mb, GST_MAP_READ);
  fail_unless (ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) != 0,
      "operator change had no effect");
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_unref (in);
  tm_frame_free (rin);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* bins changed while playing, then a new frame size: each starts the
 * statistics afresh, so each run of frames must equal a new reference */
GST_START_TEST (test_live_changes)
{
  static const struct
  {
    gint w, h;
    guint bins;
  } steps[] = { {96, 54, 1024}, {96, 54, 256}, {50, 31, 256}, {97, 55, 4096} };
  GstHarness *h = gst_harness_new (FACTORY);
  g_object_set (h->element, "smoothing", 4, NULL);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGRx");
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
    const gint w = steps[i].w, hh = steps[i].h;
    g_object_set (h->element, "bins", steps[i].bins, NULL);
    gchar *ic = g_strdup_printf ("video/x-raw,format=P010_10LE,width=%d,"
        "height=%d,framerate=30/1,colorimetry=bt2100-pq", w, hh);
    gst_harness_set_src_caps_str (h, ic);
    g_free (ic);
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, w, hh);
    cfg.smoothing = 4;
    cfg.bins = steps[i].bins;
    CiTonemap *ref = ci_tonemap_new (&cfg);
    TmFrame *rout = tm_frame_new_out (CI_TM_OUT_BGRX, w, hh, 0);
    for (int fr = 0; fr < 3; fr++) {
      int d = push_and_compare (h, "P010_10LE", CI_TM_IN_P010, w, hh,
          100 * i + fr, ref, rout);
      fail_unless (d <= tm_tolerance (), "step %u (%dx%d, %u bins) frame %d: max "
          "diff %d", i, w, hh, steps[i].bins, fr, d);
    }
    tm_frame_free (rout);
    ci_tonemap_free (ref);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A harness taking 96x54 P010 (@colorimetry: a caps field or "") to BGRx
 * with @smoothing frames */
static GstHarness *
p010_bgrx_harness (guint smoothing, const gchar * colorimetry)
{
  GstHarness *h = gst_harness_new (FACTORY);
  g_object_set (h->element, "smoothing", smoothing, NULL);
  gchar *caps = g_strdup_printf ("video/x-raw,format=P010_10LE,width=%d,"
      "height=%d,framerate=30/1%s", W, H, colorimetry);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGRx");
  return h;
}

/* A reconfigure with unchanged caps (basetransform calls set_caps again)
 * must not restart the temporal statistics: the frames after it equal a
 * reference that ran on without a break. */
GST_START_TEST (test_reconfigure_keeps_state)
{
  GstHarness *h = p010_bgrx_harness (8, ",colorimetry=bt2100-pq");
  CiTmConfig cfg;
  tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
  cfg.smoothing = 8;
  CiTonemap *ref = ci_tonemap_new (&cfg);
  TmFrame *rout = tm_frame_new_out (CI_TM_OUT_BGRX, W, H, 0);
  for (int fr = 0; fr < 6; fr++) {
    if (fr == 3)
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_reconfigure ()));
    int d = push_and_compare (h, "P010_10LE", CI_TM_IN_P010, W, H, 40 + fr,
        ref, rout);
    fail_unless (d <= tm_tolerance (), "frame %d: max diff %d", fr, d);
  }
  tm_frame_free (rout);
  ci_tonemap_free (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;


/* target-peak bound to a control source takes its value at each buffer's
 * stream time (GST_PARAM_CONTROLLABLE): the same frame at 0 s and 1 s must
 * match references with 100 and 400 nits, and the outputs must differ. */
GST_START_TEST (test_controller)
{
  GstHarness *h = gst_harness_new (FACTORY);
  g_object_set (h->element, "smoothing", 0, "operator", CI_TM_OP_BT2390,
      NULL);
  const float peak[] = { 100.0f, 400.0f };
  const double steps[] = { 100, 400 };
  ci_control_steps (h->element, "target-peak", steps, 2);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=P010_10LE,width=96,"
      "height=54,framerate=1/1,colorimetry=bt2100-pq");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGRx");
  TmFrame *rout[2];
  for (int i = 0; i < 2; i++) {
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.smoothing = 0;
    cfg.op = CI_TM_OP_BT2390;
    cfg.target_peak = peak[i];
    CiTonemap *ref = ci_tonemap_new (&cfg);
    rout[i] = tm_frame_new_out (CI_TM_OUT_BGRX, W, H, 0);
    push_pts = i * GST_SECOND;
    int d = push_and_compare (h, "P010_10LE", CI_TM_IN_P010, W, H, 7, ref,
        rout[i]);
    fail_unless (d <= tm_tolerance (), "target-peak %g: max diff %d", peak[i], d);
    gfloat tp;
    g_object_get (h->element, "target-peak", &tp, NULL);
    fail_unless (tp == peak[i]);
    ci_tonemap_free (ref);
  }
  push_pts = GST_CLOCK_TIME_NONE;
  fail_unless (memcmp (rout[0]->plane[0], rout[1]->plane[0],
          (size_t) rout[0]->stride[0] * H) != 0,
      "target-peak 100 and 400 gave the same reference");
  tm_frame_free (rout[0]);
  tm_frame_free (rout[1]);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A region of interest stays where it was: the geometry is unchanged. */
GST_START_TEST (test_roi_meta_kept)
{
  GstHarness *h = p010_bgrx_harness (0, ",colorimetry=bt2100-pq");
  TmFrame *rin;
  const guint r[4] = { 10, 5, 20, 30 };
  ci_check_roi_meta (h, scene_buffer ("P010_10LE", CI_TM_IN_P010, 3, &rin),
      r, r);
  tm_frame_free (rin);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Tone mapping changes the colours (PQ BT.2020 in, BT.709 out), so a meta
 * that describes them (tagged colorspace) no longer holds and is dropped:
 * the element keeps geometry metas only (GST_CI_METAS_GEOMETRY). */
GST_START_TEST (test_colorspace_meta_dropped)
{
  GstHarness *h = p010_bgrx_harness (0, ",colorimetry=bt2100-pq");
  TmFrame *rin;
  ci_check_colorspace_meta (h, scene_buffer ("P010_10LE", CI_TM_IN_P010, 3,
          &rin), FALSE);
  tm_frame_free (rin);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_interlaced_refused)
{
  ci_check_interlaced_refused (FACTORY, "P010_10LE", NULL);
}
GST_END_TEST;

/* P010 caps without colorimetry are HDR10 for input-transfer=auto (PQ,
 * BT.2020), also after a setting that re-derives the configuration
 * (bins) changes while playing */
GST_START_TEST (test_no_colorimetry)
{
  GstHarness *h = p010_bgrx_harness (4, "");
  for (int step = 0; step < 2; step++) {
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.smoothing = 4;
    cfg.bins = step ? 512 : 1024;
    if (step)
      g_object_set (h->element, "bins", 512, NULL);
    gchar *what = g_strdup_printf ("step %d", step);
    push_p010_vs_ref (h, &cfg, 60 + 2 * step, 2, what);
    g_free (what);
  }
  gst_harness_teardown (h);
}
GST_END_TEST;

/* After a stream-start (the next stream of a gapless or concat playlist)
 * or a flush (FLUSH_START, FLUSH_STOP: a seek) the temporal statistics
 * start afresh: frames of another part of the stream must equal a fresh
 * reference, not one that ran on */
static void
check_history_restarts (gboolean flush)
{
  GstHarness *h = p010_bgrx_harness (8, ",colorimetry=bt2100-pq");
  g_object_set (h->element, "scene-threshold", 1.0, NULL);
  for (int part = 0; part < 2; part++) {
    if (part && flush) {
      fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (h,
              gst_event_new_flush_stop (TRUE)));
    } else if (part) {
      fail_unless (gst_harness_push_event (h,
              gst_event_new_stream_start ("second")));
    }
    if (part) {
      GstSegment seg;
      gst_segment_init (&seg, GST_FORMAT_TIME);
      fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    }
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.smoothing = 8;
    cfg.scene_threshold = 1.0f;
    /* a different scene in each part (seed), no cut detection */
    gchar *what = g_strdup_printf ("%s, part %d",
        flush ? "flush" : "stream-start", part);
    push_p010_vs_ref (h, &cfg, part ? 900 : 70, 3, what);
    g_free (what);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_stream_start_resets)
{
  check_history_restarts (FALSE);
}
GST_END_TEST;

GST_START_TEST (test_flush_resets)
{
  check_history_restarts (TRUE);
}
GST_END_TEST;

/* scene-threshold reaches the cut detection: over a scene change (frame
 * 3), 1 (never a cut: the average glides to the new scene) and 0 (every
 * frame that differs at all is a cut) must each give the reference's
 * frames with that threshold, which are not those of the default 0.3
 * (one cut, at the change) */
GST_START_TEST (test_scene_threshold)
{
  static const float thr[] = { 1.0f, 0.0f };
  for (guint i = 0; i < G_N_ELEMENTS (thr); i++) {
    GstHarness *h = p010_bgrx_harness (8, ",colorimetry=bt2100-pq");
    g_object_set (h->element, "scene-threshold", thr[i], NULL);
    CiTmConfig cfg, def;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.smoothing = 8;
    def = cfg;
    cfg.scene_threshold = thr[i];
    CiTonemap *ref = ci_tonemap_new (&cfg);
    TmFrame *rout = tm_frame_new_out (CI_TM_OUT_BGRX, W, H, 0);
    for (int fr = 0; fr < 6; fr++) {
      push_variant = fr >= 3;
      int d = push_and_compare (h, "P010_10LE", CI_TM_IN_P010, W, H, 80 + fr,
          ref, rout);
      fail_unless (d <= tm_tolerance (), "scene-threshold %g frame %d: max "
          "diff %d", thr[i], fr, d);
    }
    push_variant = 0;
    /* beyond the cuda twin's tolerance */
    fail_unless (reference_seq_diff (&cfg, &def, NULL, 0, 3, 6, 80) > 1,
        "scene-threshold %g gives the default's frames", thr[i]);
    tm_frame_free (rout);
    ci_tonemap_free (ref);
    gst_harness_teardown (h);
  }
}
GST_END_TEST;

/* input-transfer and input-peak set on their own while playing: each
 * restarts the pipeline (a new layout, new history), so the frames after
 * it equal a fresh reference with the new setting: HLG at 1000 cd/m2,
 * then HLG at 4000 (the OOTF's peak and gamma), then PQ */
GST_START_TEST (test_live_transfer_and_peak)
{
  GstHarness *h = p010_bgrx_harness (4, ",colorimetry=bt2100-hlg");
  CiTmConfig prev;
  for (int step = 0; step < 3; step++) {
    CiTmConfig cfg;
    tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
    cfg.smoothing = 4;
    cfg.transfer = step < 2 ? CI_TM_TRC_HLG : CI_TM_TRC_PQ;
    cfg.input_peak = step ? 4000.0f : 1000.0f;
    if (step == 1)
      g_object_set (h->element, "input-peak", 4000.0f, NULL);
    if (step == 2)
      gst_util_set_object_arg (G_OBJECT (h->element), "input-transfer", "pq");
    /* the change tells the pictures apart, beyond the cuda twin's
     * tolerance */
    if (step)
      fail_unless (reference_diff (&cfg, &prev) > 1, "step %d: the setting "
          "before gives the same picture", step);
    prev = cfg;
    gchar *what = g_strdup_printf ("step %d (transfer %d, input-peak %g)",
        step, cfg.transfer, cfg.input_peak);
    push_p010_vs_ref (h, &cfg, 30 + 3 * step, 3, what);
    g_free (what);
  }
  gst_harness_teardown (h);
}
GST_END_TEST;

/* smoothing set on its own while playing is a run-time change
 * (ci_tonemap_set_runtime): the history is kept and averaged on with the
 * new window. 8 -> 2 at a scene change (no cut detection, so the average
 * glides to the new scene, four times as fast after the change): the
 * frames equal a reference given the same change */
GST_START_TEST (test_live_smoothing)
{
  GstHarness *h = p010_bgrx_harness (8, ",colorimetry=bt2100-pq");
  g_object_set (h->element, "scene-threshold", 1.0, NULL);
  CiTmConfig cfg, later;
  tm_config_init (&cfg, CI_TM_IN_P010, CI_TM_OUT_BGRX, W, H);
  cfg.smoothing = 8;
  cfg.scene_threshold = 1.0f;
  later = cfg;
  later.smoothing = 2;
  CiTonemap *ref = ci_tonemap_new (&cfg);
  TmFrame *rout = tm_frame_new_out (CI_TM_OUT_BGRX, W, H, 0);
  for (int fr = 0; fr < 8; fr++) {
    if (fr == 4) {
      g_object_set (h->element, "smoothing", 2, NULL);
      ci_tonemap_set_runtime (ref, &later);
    }
    push_variant = fr >= 4;
    int d = push_and_compare (h, "P010_10LE", CI_TM_IN_P010, W, H, 50 + fr,
        ref, rout);
    fail_unless (d <= tm_tolerance (), "frame %d: max diff %d", fr, d);
  }
  push_variant = 0;
  /* the change tells the pictures apart, beyond the cuda twin's tolerance */
  fail_unless (reference_seq_diff (&cfg, &cfg, &later, 4, 4, 8, 50) > 1,
      "smoothing 2 gives smoothing 8's frames");
  tm_frame_free (rout);
  ci_tonemap_free (ref);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* a larger video meta, a short buffer (ci_check_buffer_layouts) */
GST_START_TEST (test_buffer_layouts)
{
  ci_check_buffer_layouts (FACTORY " smoothing=0 ! capsfilter caps=video/x-raw,format=BGRx",
      "video/x-raw,format=RGBA64_LE,width=37,height=21,framerate=30/1,"
      "colorimetry=bt2100-pq");
  ci_check_buffer_layouts (FACTORY " smoothing=0 ! capsfilter caps=video/x-raw,format=RGBA",
      "video/x-raw,format=RGB10A2_LE,width=37,height=21,framerate=30/1,"
      "colorimetry=bt2100-pq");
  /* the planar classes, odd sizes too: 4:2:0 (P010, I420_10) and 4:4:4 */
  static const char *planar[3] = { "P010_10LE,width=38,height=22",
    "I420_10LE,width=37,height=21", "Y444_16LE,width=37,height=21"
  };
  for (int i = 0; i < 3; i++) {
    gchar *c = g_strdup_printf ("video/x-raw,format=%s,framerate=30/1,"
        "colorimetry=bt2100-pq", planar[i]);
    ci_check_plane_layouts (FACTORY " smoothing=0 ! capsfilter caps=video/x-raw,"
        "format=NV12", c);
    g_free (c);
  }
}
GST_END_TEST;

/* With CK_FORK=no a failed test would leave the switch set for the next. */
static void
reset_switches (void)
{
  use_cuda_memory = FALSE;
  push_variant = 0;
  prop_source_peak = 0.0f;
}

/* The output's colour description is fixed (BT.709; RGB full range): the
 * src pad refuses another in ACCEPT_CAPS, and a downstream that wants one
 * leaves the sink pad's CAPS query empty (a helper's audit: both took any). */
GST_START_TEST (test_out_colorimetry_refused)
{
  GstHarness *h = gst_harness_new (FACTORY);
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");
  static const struct
  {
    const gchar *rest;
    gboolean ok;
  } c[] = {
    {"format=BGRx,colorimetry=bt709", FALSE},
    {"format=BGRx,colorimetry=bt2020", FALSE},
    {"format=NV12,colorimetry=bt2100-pq", FALSE},
    {"format=I420,colorimetry=bt601", FALSE},
    {"format=BGRx,colorimetry=1:1:5:1", TRUE},
    {"format=RGBA", TRUE},
    {"format=NV12,colorimetry=bt709,chroma-site=jpeg", TRUE},
  };
  for (guint i = 0; i < G_N_ELEMENTS (c); i++) {
    gchar *str = g_strdup_printf ("video/x-raw,width=64,height=48,"
        "framerate=30/1,%s", c[i].rest);
    GstCaps *caps = gst_caps_from_string (str);
    fail_unless_equals_int (gst_pad_query_accept_caps (src, caps), c[i].ok);
    gst_caps_unref (caps);
    g_free (str);
  }
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGRx,width=64,"
      "height=48,framerate=30/1,colorimetry=bt2020");
  GstCaps *up = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_is_empty (up), "%" GST_PTR_FORMAT, up);
  gst_caps_unref (up);
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=BGRx,width=64,"
      "height=48,framerate=30/1,colorimetry=1:1:5:1");
  up = gst_pad_query_caps (sink, NULL);
  fail_if (gst_caps_is_empty (up));
  gst_caps_unref (up);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A property of the layout (bins) set while the element reads its caps'
 * configuration, after the layout was read: the change must still be
 * applied (a helper's review: the serial was read under a second lock, so
 * the change was taken as applied and never was). The log hook is the
 * window: the configuration's INFO line comes after its reads. */
static GstElement *caps_race_target;
static gboolean caps_race_fired;

static void
caps_race_log (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * func, gint line, GObject * obj, GstDebugMessage * msg,
    gpointer data)
{
  const gchar *s;
  if (caps_race_fired || !caps_race_target
      || obj != (GObject *) caps_race_target
      || strcmp (gst_debug_category_get_name (cat), "tonemapcommon") != 0)
    return;
  s = gst_debug_message_get (msg);
  /* the negotiation's last configuration: RGBA out (format 0) */
  if (strstr (s, "bins 1024,") && strstr (s, " -> 0,")) {
    caps_race_fired = TRUE;
    g_object_set (caps_race_target, "bins", 256, NULL);
  }
}

GST_START_TEST (test_change_during_caps)
{
  GstHarness *h = gst_harness_new (FACTORY);
  g_object_set (h->element, "smoothing", 4, "bins", 1024, NULL);
  caps_race_target = h->element;
  caps_race_fired = FALSE;
  gst_debug_add_log_function (caps_race_log, NULL, NULL);
  gst_debug_set_threshold_for_name ("tonemapcommon", GST_LEVEL_INFO);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA64_LE,width=96,"
      "height=54,framerate=30/1,colorimetry=bt2100-pq");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=RGBA");
  CiTmConfig cfg;
  tm_config_init (&cfg, CI_TM_IN_RGBA64, CI_TM_OUT_RGBA, W, H);
  cfg.smoothing = 4;
  cfg.bins = 256;
  CiTonemap *ref = ci_tonemap_new (&cfg);
  TmFrame *rout = tm_frame_new_out (CI_TM_OUT_RGBA, W, H, 0);
  for (int fr = 0; fr < 3; fr++) {
    int d = push_and_compare (h, "RGBA64_LE", CI_TM_IN_RGBA64, W, H, 20 + fr,
        ref, rout);
    fail_unless (caps_race_fired, "the hook did not run");
    fail_unless (d <= tm_tolerance (), "frame %d: max diff %d from 256 bins",
        fr, d);
  }
  gst_debug_remove_log_function (caps_race_log);
  gst_debug_unset_threshold_for_name ("tonemapcommon");
  caps_race_target = NULL;
  tm_frame_free (rout);
  ci_tonemap_free (ref);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
add_common_cases (TCase * tc)
{
  tcase_add_checked_fixture (tc, reset_switches, NULL);
  tcase_add_test (tc, test_buffer_layouts);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_operators);
  tcase_add_test (tc, test_alpha_and_x_byte);
  tcase_add_test (tc, test_hdr10_metadata);
  tcase_add_test (tc, test_output_caps_sdr);
  tcase_add_test (tc, test_source_peak_property);
  tcase_add_test (tc, test_live_bins_keep_metadata);
  tcase_add_test (tc, test_runtime_change);
  tcase_add_test (tc, test_live_changes);
  tcase_add_test (tc, test_reconfigure_keeps_state);
  tcase_add_test (tc, test_interlaced_refused);
  tcase_add_test (tc, test_roi_meta_kept);
  tcase_add_test (tc, test_colorspace_meta_dropped);
  tcase_add_test (tc, test_no_colorimetry);
  tcase_add_test (tc, test_stream_start_resets);
  tcase_add_test (tc, test_flush_resets);
  tcase_add_test (tc, test_scene_threshold);
  tcase_add_test (tc, test_live_transfer_and_peak);
  tcase_add_test (tc, test_live_smoothing);
  tcase_add_test (tc, test_input_peak);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_caps_mapping);
  tcase_add_test (tc, test_out_colorimetry_refused);
  tcase_add_test (tc, test_change_during_caps);
}
