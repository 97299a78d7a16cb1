/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "citest.h"
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <png.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CiImage *
ci_image_new (int width, int height, int channels, int bytes_per_sample)
{
  CiImage *img = g_new0 (CiImage, 1);
  img->width = width;
  img->height = height;
  img->channels = channels;
  img->bytes_per_sample = bytes_per_sample;
  img->stride = (size_t) width * channels * bytes_per_sample;
  img->data = g_malloc0 (img->stride * (size_t) height + 1);
  return img;
}

void
ci_image_free (CiImage * img)
{
  if (!img)
    return;
  g_free (img->data);
  g_free (img);
}

CiImage *
ci_image_load_png (const char *path)
{
  png_image pi;
  memset (&pi, 0, sizeof pi);
  pi.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file (&pi, path))
    return NULL;
  /* Keep the file's bit depth; "linear" 16-bit formats would re-encode the values. */
  FILE *f = fopen (path, "rb");
  if (!f) {
    png_image_free (&pi);
    return NULL;
  }
  png_image_free (&pi);
  png_structp png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct (png);
  CiImage *img = NULL;
  png_bytep *rows = NULL;
  if (setjmp (png_jmpbuf (png))) {
    ci_image_free (img);
    g_free (rows);
    png_destroy_read_struct (&png, &info, NULL);
    fclose (f);
    return NULL;
  }
  png_init_io (png, f);
  png_read_info (png, info);
  int depth = png_get_bit_depth (png, info);
  int ctype = png_get_color_type (png, info);
  if (ctype == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8)
    png_set_expand_gray_1_2_4_to_8 (png);
  if (png_get_valid (png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha (png);
  if (depth == 16 && G_BYTE_ORDER == G_LITTLE_ENDIAN)
    png_set_swap (png);
  png_read_update_info (png, info);
  int w = png_get_image_width (png, info), h = png_get_image_height (png, info);
  int ch = png_get_channels (png, info);
  int bps = png_get_bit_depth (png, info) == 16 ? 2 : 1;
  img = ci_image_new (w, h, ch, bps);
  rows = g_new (png_bytep, h);
  for (int y = 0; y < h; y++)
    rows[y] = img->data + (size_t) y * img->stride;
  png_read_image (png, rows);
  png_read_end (png, NULL);
  g_free (rows);
  png_destroy_read_struct (&png, &info, NULL);
  fclose (f);
  return img;
}

gboolean
ci_image_save_png (const CiImage * img, const char *path)
{
  static const int types[] = { 0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA
  };
  if (img->channels < 1 || img->channels > 4 || img->bytes_per_sample > 2)
    return FALSE;
  FILE *f = fopen (path, "wb");
  if (!f)
    return FALSE;
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct (png);
  if (setjmp (png_jmpbuf (png))) {
    png_destroy_write_struct (&png, &info);
    fclose (f);
    return FALSE;
  }
  png_init_io (png, f);
  png_set_IHDR (png, info, img->width, img->height, img->bytes_per_sample * 8,
      types[img->channels], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
      PNG_FILTER_TYPE_DEFAULT);
  png_write_info (png, info);
  if (img->bytes_per_sample == 2 && G_BYTE_ORDER == G_LITTLE_ENDIAN)
    png_set_swap (png);
  for (int y = 0; y < img->height; y++)
    png_write_row (png, img->data + (size_t) y * img->stride);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  fclose (f);
  return TRUE;
}

static int
pnm_int (FILE * f)
{
  int c, v = 0;
  do {
    c = fgetc (f);
    if (c == '#')
      while (c != '\n' && c != EOF)
        c = fgetc (f);
  } while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
  if (c < '0' || c > '9')
    return -1;
  while (c >= '0' && c <= '9') {
    v = v * 10 + (c - '0');
    c = fgetc (f);
  }
  return v;
}

CiImage *
ci_image_load_pnm (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  char m[3] = { 0 };
  if (fread (m, 1, 2, f) != 2 || m[0] != 'P' || (m[1] != '5' && m[1] != '6')) {
    fclose (f);
    return NULL;
  }
  int w = pnm_int (f), h = pnm_int (f), maxv = pnm_int (f);
  if (w <= 0 || h <= 0 || maxv <= 0 || maxv > 65535) {
    fclose (f);
    return NULL;
  }
  int ch = m[1] == '5' ? 1 : 3, bps = maxv > 255 ? 2 : 1;
  CiImage *img = ci_image_new (w, h, ch, bps);
  size_t n = img->stride * h;
  if (fread (img->data, 1, n, f) != n) {
    ci_image_free (img);
    fclose (f);
    return NULL;
  }
  if (bps == 2)                 /* PNM is big-endian */
    for (size_t i = 0; i < n; i += 2) {
      uint8_t t = img->data[i];
      img->data[i] = img->data[i + 1];
      img->data[i + 1] = t;
    }
  fclose (f);
  return img;
}

CiImage *
ci_image_load_pfm (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  char hdr[3] = { 0 };
  int w, h;
  double scale;
  if (fscanf (f, "%2s %d %d %lf", hdr, &w, &h, &scale) != 4 || hdr[0] != 'P'
      || (hdr[1] != 'f' && hdr[1] != 'F') || w <= 0 || h <= 0) {
    fclose (f);
    return NULL;
  }
  fgetc (f);
  int ch = hdr[1] == 'F' ? 3 : 1;
  CiImage *img = ci_image_new (w, h, ch, 4);
  gboolean swap = (scale < 0) != (G_BYTE_ORDER == G_LITTLE_ENDIAN);
  /* PFM stores the bottom row first. */
  for (int y = h - 1; y >= 0; y--) {
    uint8_t *row = img->data + (size_t) y * img->stride;
    if (fread (row, 1, img->stride, f) != img->stride) {
      ci_image_free (img);
      fclose (f);
      return NULL;
    }
    if (swap)
      for (size_t i = 0; i < img->stride; i += 4) {
        uint8_t t0 = row[i], t1 = row[i + 1];
        row[i] = row[i + 3];
        row[i + 1] = row[i + 2];
        row[i + 2] = t1;
        row[i + 3] = t0;
      }
  }
  fclose (f);
  return img;
}

uint64_t
ci_rand_next (uint64_t * s)
{
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

void
ci_fill_random (uint8_t * p, size_t n, uint64_t seed)
{
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t) (ci_rand_next (&s) >> 56);
}

gchar *
ci_data_path (const char *env, const char *name)
{
  const char *dir = g_getenv (env);
  if (!dir)
    return NULL;
  gchar *p = g_build_filename (dir, name, NULL);
  if (!g_file_test (p, G_FILE_TEST_EXISTS)) {
    g_free (p);
    return NULL;
  }
  return p;
}

gboolean
ci_element_can_start (const char *factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  if (!e)
    return FALSE;
  gboolean ok = gst_element_set_state (e, GST_STATE_READY) == GST_STATE_CHANGE_SUCCESS;
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  return ok;
}

int
ci_check_main (Suite * s, const char *needs_factory, int argc, char **argv)
{
  gst_check_init (&argc, &argv);
  if (needs_factory && !ci_element_can_start (needs_factory)) {
    gchar *why = g_strdup_printf ("%s cannot start here (no CUDA device)",
        needs_factory);
    int status = ci_gpu_unavailable (why);
    g_free (why);
    return status;
  }
  return gst_check_run_suite (s, needs_factory ? needs_factory : "cpu", __FILE__);
}

void
ci_check_roi_meta (GstHarness * h, GstBuffer * in, const guint r[4],
    const guint e[4])
{
  gst_buffer_add_video_region_of_interest_meta (in, "face", r[0], r[1], r[2],
      r[3]);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  GstVideoRegionOfInterestMeta *m =
      gst_buffer_get_video_region_of_interest_meta (out);
  /* one region in, at most one out: a scaled meta must not also be copied
   * unscaled (a mutation audit found that unchecked) */
  guint n = 0;
  gpointer state = NULL;
  while (gst_buffer_iterate_meta_filtered (out, &state,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    n++;
  fail_unless_equals_int (n, e[2] == 0 ? 0 : 1);
  if (e[2] == 0)
    fail_unless (m == NULL, "a region of interest came through");
  else {
    fail_unless (m != NULL, "the region of interest was dropped");
    fail_unless (m->x == e[0] && m->y == e[1] && m->w == e[2]
        && m->h == e[3], "region (%u,%u) %ux%u, want (%u,%u) %ux%u", m->x,
        m->y, m->w, m->h, e[0], e[1], e[2], e[3]);
    fail_unless (m->roi_type == g_quark_from_string ("face"));
  }
  gst_buffer_unref (out);
}

/* A meta API of the tests' own with the tags of a colorspace meta:
 * GStreamer has no stable one tagged just video and colorspace, and the
 * other tags of a real one (size, orientation) would take it through
 * other branches of gst_ci_transform_meta. Copies itself on the copy
 * transform, as GstBaseTransform asks of metas it keeps. */
static gboolean
ci_cs_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  return TRUE;
}

static gboolean ci_cs_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data);

static GType
ci_cs_meta_api_get_type (void)
{
  static GType type;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, NULL
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, gst_meta_api_type_register ("CiTestCsMetaAPI",
            tags));
  return type;
}

static const GstMetaInfo *
ci_cs_meta_get_info (void)
{
  static const GstMetaInfo *info;
  if (g_once_init_enter ((GstMetaInfo **) & info))
    g_once_init_leave ((GstMetaInfo **) & info,
        (GstMetaInfo *) gst_meta_register (ci_cs_meta_api_get_type (),
            "CiTestCsMeta", sizeof (GstMeta), ci_cs_meta_init, NULL,
            ci_cs_meta_transform));
  return info;
}

static gboolean
ci_cs_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  return gst_buffer_add_meta (dest, ci_cs_meta_get_info (), NULL) != NULL;
}

void
ci_check_colorspace_meta (GstHarness * h, GstBuffer * in, gboolean kept)
{
  fail_unless (gst_buffer_add_meta (in, ci_cs_meta_get_info (), NULL));
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  const gboolean has =
      gst_buffer_get_meta (out, ci_cs_meta_api_get_type ()) != NULL;
  fail_unless (has == kept, kept ? "a colorspace-tagged meta was dropped, "
      "though the element leaves the colours as they were" :
      "a colorspace-tagged meta came through an element that changes the "
      "colours");
  gst_buffer_unref (out);
}

gpointer
ci_cuda_context_of (GstElement * e)
{
  GstPad *pad = gst_element_get_static_pad (e, "src");
  GstQuery *q = gst_query_new_context ("gst.cuda.context");
  gpointer ctx = NULL;
  if (pad && gst_pad_query (pad, q)) {
    GstContext *c = NULL;
    gst_query_parse_context (q, &c);
    const GValue *v = c ? gst_structure_get_value (gst_context_get_structure
        (c), "gst.cuda.context") : NULL;
    if (v && G_VALUE_HOLDS_OBJECT (v))
      ctx = g_value_get_object (v);
  }
  gst_query_unref (q);
  if (pad)
    gst_object_unref (pad);
  return ctx;
}

void
ci_check_n_threads_property (const char *factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  fail_unless (e != NULL, "no %s", factory);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "n-threads");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps), "%s: no guint n-threads",
      factory);
  const GParamSpecUInt *u = G_PARAM_SPEC_UINT (ps);
  fail_unless (u->minimum == 0 && u->maximum == 1024
      && u->default_value == 0, "%s n-threads: %u..%u, default %u; want "
      "0..1024, default 0", factory, u->minimum, u->maximum,
      u->default_value);
  fail_unless ((ps->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE,
      "%s n-threads: not readable and writable", factory);
  ci_check_param_flags (e, "n-threads", 1, -1);
  const guint v[] = { 1024, 7, 1, 0 };
  for (guint i = 0; i < G_N_ELEMENTS (v); i++) {
    guint got = G_MAXUINT;
    g_object_set (e, "n-threads", v[i], NULL);
    g_object_get (e, "n-threads", &got, NULL);
    fail_unless (got == v[i], "%s n-threads: set %u, read %u", factory, v[i],
        got);
  }
  gst_object_unref (e);
}

void
ci_check_param_flags (GstElement * e, const char *name, int playing,
    int controllable)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      name);
  fail_unless (ps != NULL, "no property %s", name);
  if (playing >= 0)
    fail_unless (!(ps->flags & GST_PARAM_MUTABLE_PLAYING) == !playing,
        "%s: %schangeable while PLAYING", name, playing ? "not " : "");
  if (controllable >= 0)
    fail_unless (!(ps->flags & GST_PARAM_CONTROLLABLE) == !controllable,
        "%s: %scontrollable", name, controllable ? "not " : "");
}

void
ci_control_steps (GstElement * e, const char *prop, const double *v, int n)
{
  GstControlSource *cs = gst_interpolation_control_source_new ();
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (e),
          gst_direct_control_binding_new_absolute (GST_OBJECT (e), prop, cs)));
  for (int i = 0; i < n; i++)
    gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
        i * GST_SECOND, v[i]);
  gst_object_unref (cs);        /* the binding holds it */
}

void
ci_check_shared_context (GstHarness * h, const char *a, const char *b)
{
  GstElement *ea = gst_bin_get_by_name (GST_BIN (h->element), a);
  GstElement *eb = gst_bin_get_by_name (GST_BIN (h->element), b);
  fail_unless (ea && eb);
  fail_unless (ci_cuda_context_of (ea) != NULL, "%s has no CUDA context", a);
  fail_unless (ci_cuda_context_of (ea) == ci_cuda_context_of (eb),
      "%s and %s did not share a CUDA context", a, b);
  gst_object_unref (ea);
  gst_object_unref (eb);
}

/* the video info of the caps @h's sink pad negotiated */
static void
harness_out_info (GstHarness * h, GstVideoInfo * info)
{
  GstCaps *oc = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (oc && gst_video_info_from_caps (info, oc));
  gst_caps_unref (oc);
}

GstBuffer *
ci_push_one (const char *launch, const char *caps, GstBuffer * in,
    GstVideoInfo * out_info)
{
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps_str (h, caps);
  GstBuffer *out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL, "%s: no output", launch);
  harness_out_info (h, out_info);
  gst_harness_teardown (h);
  return out;
}

void
ci_same_picture (GstBuffer * a, GstBuffer * b, const GstVideoInfo * oi,
    const char *launch, const char *what)
{
  GstVideoFrame fa, fb;
  fail_unless (gst_video_frame_map (&fa, (GstVideoInfo *) oi, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, (GstVideoInfo *) oi, b, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (oi->finfo, p, comp);
    const gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, comp[0]);
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, comp[0]); y++)
      fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
              y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p),
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
              y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p), row) == 0,
          "%s: %s gave other output than its picture alone (plane %u row "
          "%d)", launch, what, p, y);
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

/* @bad (taken) pushed into a fresh @launch with @caps must fail the flow
 * with one stream error and no output; @why names it */
static void
push_refused (const char *launch, const char *caps, GstBuffer * bad,
    const char *why)
{
  GstHarness *h = gst_harness_new_parse (launch);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (gst_harness_push (h, bad), GST_FLOW_ERROR);
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: %s gave output",
      launch, why);
  g_free (ci_pop_error (bus, GST_STREAM_ERROR, -1, NULL));
  ci_bus_done (h->element, bus);
  gst_harness_teardown (h);
}

void
ci_check_buffer_layouts (const char *launch, const char *caps)
{
  GstVideoInfo info, big;
  GstCaps *c = gst_caps_from_string (caps);
  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  fail_unless (GST_VIDEO_INFO_N_PLANES (&info) == 1);
  const gint w = GST_VIDEO_INFO_WIDTH (&info), hgt = GST_VIDEO_INFO_HEIGHT
      (&info), ps = GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
  gst_video_info_set_format (&big, GST_VIDEO_INFO_FORMAT (&info), 2 * w,
      2 * hgt);

  /* the picture, tight */
  GstBuffer *tight = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
  GstBuffer *wide = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&big));
  GstMapInfo mt, mw;
  gst_buffer_map (wide, &mw, GST_MAP_WRITE);
  ci_fill_random (mw.data, mw.size, 4242);
  gst_buffer_map (tight, &mt, GST_MAP_WRITE);
  for (gint y = 0; y < hgt; y++)
    memcpy (mt.data + (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (&info, 0),
        mw.data + (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (&big, 0),
        (gsize) w * ps);
  /* the same picture at an odd address (a buffer region, say): samples
   * wider than a byte must be read without alignment (UBSan checks) */
  const gsize size = GST_VIDEO_INFO_SIZE (&info);
  GstBuffer *odd = gst_buffer_new_and_alloc (size + 1);
  gst_buffer_fill (odd, 1, mt.data, size);
  gst_buffer_resize (odd, 1, size);
  gst_buffer_unmap (tight, &mt);
  gst_buffer_unmap (wide, &mw);
  gst_buffer_add_video_meta_full (wide, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&big), 2 * w, 2 * hgt, 1, big.offset, big.stride);
  GstVideoInfo oi;
  GstBuffer *a = ci_push_one (launch, caps, tight, &oi);
  GstBuffer *others[2] = { ci_push_one (launch, caps, wide, &oi),
    ci_push_one (launch, caps, odd, &oi)
  };
  const char *what[2] = { "a frame with a larger video meta",
    "a frame at an odd address"
  };
  for (int k = 0; k < 2; k++) {
    ci_same_picture (a, others[k], &oi, launch, what[k]);
    gst_buffer_unref (others[k]);
  }
  gst_buffer_unref (a);

  /* frames that do not hold their picture: half a frame, and video metas
   * whose plane runs past the memory that holds its start (GStreamer's
   * frame map checks only that start) or that do not fit the caps */
  const gint st = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  const GstVideoFormat fmt = GST_VIDEO_INFO_FORMAT (&info);
  GstBuffer *bad[8];
  const char *why[8] = { "half a frame", "a meta whose plane starts half "
        "way through the buffer", "half a frame with a whole frame's meta",
    "a plane split over two memories", "a meta smaller than the caps",
    "a meta with a negative stride", "the last row one byte short",
    "a meta whose rows overlap (stride below a row)"
  };
  gsize off[GST_VIDEO_MAX_PLANES] = { 0 };
  gint str[GST_VIDEO_MAX_PLANES] = { st };
  bad[0] = gst_buffer_new_and_alloc (size / 2);
  bad[1] = gst_buffer_new_and_alloc (size);
  off[0] = size / 2;
  gst_buffer_add_video_meta_full (bad[1], GST_VIDEO_FRAME_FLAG_NONE, fmt, w,
      hgt, 1, off, str);
  off[0] = 0;
  bad[2] = gst_buffer_new_and_alloc (size / 2);
  gst_buffer_add_video_meta_full (bad[2], GST_VIDEO_FRAME_FLAG_NONE, fmt, w,
      hgt, 1, off, str);
  bad[3] = gst_buffer_new_and_alloc (size / 2);
  gst_buffer_append_memory (bad[3], gst_allocator_alloc (NULL,
          size - size / 2, NULL));
  gst_buffer_add_video_meta_full (bad[3], GST_VIDEO_FRAME_FLAG_NONE, fmt, w,
      hgt, 1, off, str);
  bad[4] = gst_buffer_new_and_alloc (size);
  gst_buffer_add_video_meta_full (bad[4], GST_VIDEO_FRAME_FLAG_NONE, fmt,
      hgt > 1 ? w : w - 1, hgt > 1 ? hgt - 1 : hgt, 1, off, str);
  bad[5] = gst_buffer_new_and_alloc (size);
  off[0] = (gsize) st * (hgt - 1);
  str[0] = -st;
  gst_buffer_add_video_meta_full (bad[5], GST_VIDEO_FRAME_FLAG_NONE, fmt, w,
      hgt, 1, off, str);
  /* (a mutation audit: the extent left out the last row's bytes, and
   * overlapping rows were taken, and no case above noticed) */
  const gsize rowb = (gsize) w * ps;
  off[0] = 0;
  str[0] = st;
  bad[6] = gst_buffer_new_and_alloc ((gsize) st * (hgt - 1) + rowb - 1);
  gst_buffer_add_video_meta_full (bad[6], GST_VIDEO_FRAME_FLAG_NONE, fmt, w,
      hgt, 1, off, str);
  const int nbad = hgt > 1 && w > 1 ? 8 : 7;
  if (nbad == 8) {
    str[0] = (gint) (rowb - ps);
    bad[7] = gst_buffer_new_and_alloc (size);
    gst_buffer_add_video_meta_full (bad[7], GST_VIDEO_FRAME_FLAG_NONE, fmt, w,
        hgt, 1, off, str);
  }
  for (int k = 0; k < nbad; k++) {
    gst_buffer_memset (bad[k], 0, 0x40, gst_buffer_get_size (bad[k]));
    push_refused (launch, caps, bad[k], why[k]);
  }
}

void
ci_check_plane_layouts (const char *launch, const char *caps)
{
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  const guint np = GST_VIDEO_INFO_N_PLANES (&info);
  fail_unless (np > 1 && np < GST_VIDEO_MAX_PLANES);   /* room for one more */
  /* the picture, tight and random */
  GstBuffer *tight = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
  guint8 *pic = g_malloc (GST_VIDEO_INFO_SIZE (&info));
  ci_fill_random (pic, GST_VIDEO_INFO_SIZE (&info), 777);
  gst_buffer_fill (tight, 0, pic, GST_VIDEO_INFO_SIZE (&info));
  /* every row padded by 64 bytes, each plane starting one byte after a
   * 64-byte boundary (odd addresses: samples wider than a byte must be read
   * without alignment, which UBSan checks) */
  gsize off[GST_VIDEO_MAX_PLANES] = { 0 };
  gint str[GST_VIDEO_MAX_PLANES] = { 0 }, rows[GST_VIDEO_MAX_PLANES];
  gsize total = 0;
  for (guint p = 0; p < np; p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comp);
    rows[p] = GST_VIDEO_INFO_COMP_HEIGHT (&info, comp[0]);
    str[p] = GST_VIDEO_INFO_PLANE_STRIDE (&info, p) + 64;
    off[p] = total + 1;
    total += GST_ROUND_UP_64 ((gsize) str[p] * rows[p] + 1);
  }
  for (int k = 0; k < 3; k++) {
    /* k = 0: the padded layout gives what the tight picture gives; k = 1:
     * the last plane starts half a plane later, so its last rows lie past
     * the buffer; k = 2: a meta with one plane more than the format has */
    GstBuffer *b = gst_buffer_new_and_alloc (total);
    GstMapInfo mb;
    gst_buffer_map (b, &mb, GST_MAP_WRITE);
    memset (mb.data, 0x40, total);
    for (guint p = 0; p < np; p++)
      for (gint y = 0; y < rows[p]; y++)
        memcpy (mb.data + off[p] + (gsize) y * str[p], pic +
            GST_VIDEO_INFO_PLANE_OFFSET (&info, p) + (gsize) y *
            GST_VIDEO_INFO_PLANE_STRIDE (&info, p),
            GST_VIDEO_INFO_PLANE_STRIDE (&info, p));
    gst_buffer_unmap (b, &mb);
    gsize o[GST_VIDEO_MAX_PLANES];
    memcpy (o, off, sizeof o);
    if (k == 1)
      o[np - 1] += (total - off[np - 1]) / 2;
    if (k == 2) {
      str[np] = str[np - 1];
      o[np] = o[np - 1];
    }
    gst_buffer_add_video_meta_full (b, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
        GST_VIDEO_INFO_HEIGHT (&info), np + (k == 2), o, str);
    if (k == 0) {
      GstVideoInfo oi;
      GstBuffer *a = ci_push_one (launch, caps, tight, &oi);
      GstBuffer *out = ci_push_one (launch, caps, b, &oi);
      ci_same_picture (a, out, &oi, launch, "a padded layout at odd addresses");
      gst_buffer_unref (out);
      gst_buffer_unref (a);
    } else
      push_refused (launch, caps, b, k == 1 ? "a plane past the buffer" :
          "a meta with a plane too many");
  }
  g_free (pic);
}

int
ci_gpu_unavailable (const char *why)
{
  if (g_getenv ("CI_REQUIRE_GPU")) {
    g_printerr ("FAIL: %s, and CI_REQUIRE_GPU is set\n", why);
    return 1;
  }
  g_print ("SKIP: %s; GPU tests skipped\n", why);
  return 77;
}

/* [0]: sink pad, [1]: src pad */
typedef struct
{
  guint cuda[2], other[2];
} CiMemSeen;

static GstPadProbeReturn
count_memory (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  CiMemSeen *seen = user;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  int side = GST_PAD_DIRECTION (pad) == GST_PAD_SRC;
  /* GST_CUDA_MEMORY_TYPE_NAME: matched by name so that CPU-only builds of
   * this library need no gstcuda */
  gboolean cuda = gst_buffer_n_memory (b) > 0;
  for (guint i = 0; i < gst_buffer_n_memory (b); i++)
    cuda = cuda && gst_memory_is_type (gst_buffer_peek_memory (b, i),
        "gst.cuda.memory");
  if (cuda)
    g_atomic_int_inc (&seen->cuda[side]);
  else
    g_atomic_int_inc (&seen->other[side]);
  return GST_PAD_PROBE_OK;
}

void
ci_watch_memory (GstElement * e)
{
  CiMemSeen *seen = g_new0 (CiMemSeen, 1);
  /* freed with the element, whose pads (and probes) go before it */
  g_object_set_data_full (G_OBJECT (e), "ci-mem-seen", seen, g_free);
  const char *names[2] = { "sink", "src" };
  for (int i = 0; i < 2; i++) {
    GstPad *pad = gst_element_get_static_pad (e, names[i]);
    fail_unless (pad != NULL);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_memory, seen,
        NULL);
    gst_object_unref (pad);
  }
}

GstHarness *
ci_cuda_memory_harness (const char *element, const char *name,
    GstElement ** e)
{
  gchar *desc = g_strdup_printf ("cudaupload name=up ! "
      "video/x-raw(memory:CUDAMemory) ! %s name=%s ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload", element, name);
  GstHarness *h = gst_harness_new_parse (desc);
  g_free (desc);
  *e = gst_bin_get_by_name (GST_BIN (h->element), name);
  fail_unless (*e != NULL, "no element %s", name);
  ci_watch_memory (*e);
  return h;
}

void
ci_check_cuda_memory (GstElement * e)
{
  CiMemSeen *seen = g_object_get_data (G_OBJECT (e), "ci-mem-seen");
  fail_unless (seen != NULL, "ci_watch_memory was not called");
  const char *names[2] = { "in", "out" };
  for (int i = 0; i < 2; i++) {
    fail_unless (seen->cuda[i] > 0, "no buffer went %s in CUDA memory",
        names[i]);
    fail_unless (seen->other[i] == 0, "%u buffers went %s in system memory",
        seen->other[i], names[i]);
  }
}

/* every byte of @b's one memory pinned or none: its first and last */
static void
check_pinned (GstBuffer * b, int (*is_pinned) (const void *p), gboolean want,
    const char *launch, const char *what)
{
  GstMapInfo m;
  fail_unless (gst_buffer_n_memory (b) == 1);
  fail_unless (gst_buffer_map (b, &m, GST_MAP_READ));
  const int first = is_pinned (m.data), last = is_pinned (m.data + m.size - 1);
  gst_buffer_unmap (b, &m);
  fail_unless (first == want && last == want, "%s: %s %s pinned", launch,
      what, want ? "not" : "");
}

/* @mode 0: the pools; 1: turned off; 2: on, but with no page to spare
 * (their memory then ordinary) */
static GstBuffer *
push_pinned_case (const char *launch, const char *caps, GstBuffer * in,
    GstVideoInfo * oi, int (*is_pinned) (const void *p), int mode)
{
  static const char *what[3] = { "a frame from the element's pinned pool",
    "a frame from the element's pool (pools off)",
    "a frame from the element's pool (no pinned memory left)"
  };
  const gboolean pools = mode == 0;
  if (mode == 1)
    g_setenv ("CI_NO_PINNED_POOLS", "1", TRUE);
  if (mode == 2)
    g_setenv ("CI_PINNED_MAX_MB", "0", TRUE);
  GstHarness *h = gst_harness_new_parse (launch);
  gst_harness_set_src_caps_str (h, caps);
  GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL, "%s: no output", launch);
  harness_out_info (h, oi);
  /* the harness's sink proposes no pool: the element takes its own */
  check_pinned (out, is_pinned, pools, launch, "the output");

  /* the pool it proposes upstream, now that it is negotiated */
  GstCaps *c = gst_caps_from_string (caps);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, c));
  GstQuery *q = gst_query_new_allocation (c, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q), "%s: allocation query "
      "unanswered", launch);
  fail_unless (gst_query_get_n_allocation_pools (q) > 0, "%s: no pool "
      "proposed", launch);
  GstBufferPool *pool;
  guint size, min, max;
  gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  GstStructure *cfg = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (cfg, c, size, min, max);
  gst_buffer_pool_config_add_option (cfg, GST_BUFFER_POOL_OPTION_VIDEO_META);
  fail_unless (gst_buffer_pool_set_config (pool, cfg));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  GstBuffer *pb = NULL;
  fail_unless (gst_buffer_pool_acquire_buffer (pool, &pb, NULL) ==
      GST_FLOW_OK);
  check_pinned (pb, is_pinned, pools, launch, "the proposed pool's buffer");
  GstVideoFrame fs, fd;
  fail_unless (gst_video_frame_map (&fs, &info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fd, &info, pb, GST_MAP_WRITE));
  fail_unless (gst_video_frame_copy (&fd, &fs));
  gst_video_frame_unmap (&fd);
  gst_video_frame_unmap (&fs);
  GstBuffer *out2 = gst_harness_push_and_pull (h, pb);
  fail_unless (out2 != NULL, "%s: no output from the pool's buffer", launch);
  ci_same_picture (out, out2, oi, launch, what[mode]);
  gst_buffer_unref (out2);

  /* an upstream element that takes the allocator alone */
  fail_unless (!pools || gst_query_get_n_allocation_params (q) > 0,
      "%s: no allocator proposed", launch);
  GstAllocator *al = NULL;
  GstAllocationParams ap;
  if (gst_query_get_n_allocation_params (q) > 0)
    gst_query_parse_nth_allocation_param (q, 0, &al, &ap);
  if (al) {
    GstBuffer *ab = gst_buffer_new ();
    gst_buffer_append_memory (ab, gst_allocator_alloc (al,
            GST_VIDEO_INFO_SIZE (&info), &ap));
    check_pinned (ab, is_pinned, pools, launch, "the proposed allocator's "
        "memory");
    GstMapInfo m;
    fail_unless (gst_buffer_map (in, &m, GST_MAP_READ));
    gst_buffer_fill (ab, 0, m.data, m.size);
    gst_buffer_unmap (in, &m);
    GstBuffer *out3 = gst_harness_push_and_pull (h, ab);
    fail_unless (out3 != NULL, "%s: no output from the allocator's memory",
        launch);
    ci_same_picture (out, out3, oi, launch, "a frame in the proposed "
        "allocator's memory");
    gst_buffer_unref (out3);
    gst_object_unref (al);
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (q);
  gst_caps_unref (c);
  gst_harness_teardown (h);
  g_unsetenv ("CI_NO_PINNED_POOLS");
  g_unsetenv ("CI_PINNED_MAX_MB");
  return out;
}

GstBuffer *
ci_random_frame (const char *caps, GstVideoInfo * info, uint64_t seed,
    const guint8 ** data)
{
  GstCaps *c = gst_caps_from_string (caps);
  fail_unless (gst_video_info_from_caps (info, c));
  gst_caps_unref (c);
  GstBuffer *b = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (info));
  GstMapInfo m;
  gst_buffer_map (b, &m, GST_MAP_WRITE);
  ci_fill_random (m.data, m.size, seed);
  *data = m.data;
  gst_buffer_unmap (b, &m);
  return b;
}

void
ci_check_pinned_pools (const char *launch, const char *caps,
    int (*is_pinned) (const void *p))
{
  GstVideoInfo info, oi;
  const guint8 *ptr;
  GstBuffer *in = ci_random_frame (caps, &info, 9090, &ptr);
  check_pinned (in, is_pinned, FALSE, launch, "ordinary memory");
  GstBuffer *a = push_pinned_case (launch, caps, in, &oi, is_pinned, 0);
  for (int mode = 1; mode <= 2; mode++) {
    GstBuffer *b = push_pinned_case (launch, caps, in, &oi, is_pinned, mode);
    ci_same_picture (a, b, &oi, launch, mode == 1 ? "staging instead of the "
        "pinned pools" : "the pools' ordinary memory");
    gst_buffer_unref (b);
  }
  gst_buffer_unref (a);
  gst_buffer_unref (in);
}

void
ci_check_host_register (const char *launch, const char *caps,
    int (*is_pinned) (const void *p))
{
  GstVideoInfo info, oi;
  for (int off = 0; off <= 1; off++) {
    if (off)
      g_setenv ("CI_NO_PINNED_POOLS", "1", TRUE);
    const guint8 *ptr;
    GstBuffer *in = ci_random_frame (caps, &info, 31337, &ptr);
    fail_unless (GST_VIDEO_INFO_SIZE (&info) >= (1 << 20), "%s: a frame of "
        "at least 1 MiB is locked, not %" G_GSIZE_FORMAT " bytes", caps,
        GST_VIDEO_INFO_SIZE (&info));
    GstHarness *h = gst_harness_new_parse (launch);
    gst_harness_set_src_caps_str (h, caps);
    GstBuffer *first = NULL;
    for (int k = 0; k < 3; k++) {
      /* seen once: staged; from the second time on: locked */
      fail_unless (is_pinned (ptr) == (!off && k >= 2), "%s: the input %s "
          "page-locked before push %d", launch, is_pinned (ptr) ? "is" :
          "is not", k + 1);
      GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
      fail_unless (out != NULL, "%s: no output", launch);
      if (!first) {
        first = out;
        harness_out_info (h, &oi);
        continue;
      }
      ci_same_picture (first, out, &oi, launch, off ? "a frame pushed again "
          "(pinning off)" : "a frame pushed again (page-locked)");
      gst_buffer_unref (out);
    }
    fail_unless (is_pinned (ptr) == !off);
    gst_buffer_unref (first);
    gst_harness_teardown (h);
    /* the pages are released with the memory */
    gst_buffer_unref (in);
    fail_if (is_pinned (ptr), "%s: freed memory is still page-locked",
        launch);
    g_unsetenv ("CI_NO_PINNED_POOLS");
  }
}

gboolean
ci_have_cudaupload (void)
{
  GstElementFactory *f = gst_element_factory_find ("cudaupload");
  if (!f) {
    /* on a GPU host the CUDA-memory cases must not pass by not running */
    fail_if (g_getenv ("CI_REQUIRE_CUDAUPLOAD") != NULL,
        "cudaupload not available and CI_REQUIRE_CUDAUPLOAD is set");
    g_print ("cudaupload not available: CUDA-memory case skipped\n");
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

gchar *
ci_pop_error (GstBus * bus, GQuark domain, gint code, gchar ** debug)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  GError *err = NULL;
  gst_message_parse_error (msg, &err, debug);
  fail_unless (err->domain == domain && (code < 0 || err->code == code),
      "unexpected error: %s", err->message);
  gchar *text = g_strdup (err->message);
  g_error_free (err);
  gst_message_unref (msg);
  return text;
}

void
ci_bus_done (GstElement * element, GstBus * bus)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (m) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail ("an error was posted more than once, or another followed: %s",
        err->message);
  }
  gst_element_set_bus (element, NULL);
  gst_object_unref (bus);
}

void
ci_check_interlaced_refused (const char *factory, const char *format,
    const char *sink_caps)
{
  static const char *modes[3] = { "progressive", "interleaved", "mixed" };
  for (int m = 0; m < 3; m++) {
    GstHarness *h = gst_harness_new (factory);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (h->element, bus);
    gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=64,height=32,"
        "framerate=30/1,interlace-mode=%s", format, modes[m]);
    GstVideoInfo info;
    GstCaps *c = gst_caps_from_string (caps);
    fail_unless (gst_video_info_from_caps (&info, c), "%s", caps);
    gst_caps_unref (c);
    if (sink_caps)
      gst_harness_set_sink_caps_str (h, sink_caps);
    gst_harness_set_src_caps_str (h, caps);
    GstBuffer *buf = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
    gst_buffer_memset (buf, 0, 0x40, GST_VIDEO_INFO_SIZE (&info));
    GstFlowReturn r = gst_harness_push (h, buf);
    if (m == 0) {
      fail_unless_equals_int (r, GST_FLOW_OK);
      fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL,
          "%s: error on progressive input", factory);
      GstBuffer *out = gst_harness_pull (h);
      fail_unless (out != NULL, "%s: no output for progressive input",
          factory);
      gst_buffer_unref (out);
    } else {
      fail_unless_equals_int (r, GST_FLOW_NOT_NEGOTIATED);
      gchar *dbg = NULL;
      gchar *text = ci_pop_error (bus, GST_CORE_ERROR, -1, &dbg);
      fail_unless (dbg && strstr (dbg, "deinterlace"), "%s: %s", factory,
          text);
      g_free (text);
      g_free (dbg);
      /* the refused caps come again with every buffer: one error in all */
      buf = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
      fail_unless_equals_int (gst_harness_push (h, buf),
          GST_FLOW_NOT_NEGOTIATED);
      fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL,
          "%s: the refusal was posted more than once", factory);
      /* a restarted stream may send the same caps object: posted again */
      GstCaps *same = gst_pad_get_current_caps (h->srcpad);
      fail_unless (same != NULL);
      gst_element_set_state (h->element, GST_STATE_NULL);
      gst_element_set_state (h->element, GST_STATE_PLAYING);
      gst_pad_push_event (h->srcpad, gst_event_new_stream_start ("restart"));
      gst_harness_set_src_caps (h, same);
      g_free (ci_pop_error (bus, GST_CORE_ERROR, -1, NULL));
    }
    g_free (caps);
    ci_bus_done (h->element, bus);
    gst_harness_teardown (h);
  }
}

typedef struct
{
  CiSliceFn fn;
  void *user;
  unsigned slice;
  int first, end;
} CiSlice;

static void *
slice_main (void *arg)
{
  CiSlice *s = arg;
  s->fn (s->user, s->slice, s->first, s->end);
  return NULL;
}

unsigned
ci_thread_runner (void *data, unsigned max_slices, int n, int align,
    CiSliceFn fn, void *user)
{
  (void) data;
  const int units = (n + align - 1) / align;
  unsigned k = max_slices < (unsigned) units ? max_slices : (unsigned) units;
  k = k < 16 ? k : 16;
  CiSlice sl[16];
  pthread_t t[16];
  for (unsigned i = 0; i < k; i++) {
    sl[i] = (CiSlice) { fn, user, i, 0, 0 };
    ci_slice_bounds (n, align, k, i, &sl[i].first, &sl[i].end);
    pthread_create (&t[i], NULL, slice_main, &sl[i]);
  }
  for (unsigned i = 0; i < k; i++)
    pthread_join (t[i], NULL);
  return k;
}
