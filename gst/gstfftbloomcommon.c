/* gst-cuda-imaging
 * Copyright (C) 2026 gst-cuda-imaging developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gstfftbloomcommon.h"

GST_DEBUG_CATEGORY_STATIC (gst_fftbloom_common_debug);
#define GST_CAT_DEFAULT gst_fftbloom_common_debug

#define DEFAULT_INTENSITY 1.0f
#define DEFAULT_THRESHOLD 0.8f
#define DEFAULT_KNEE 0.5f
#define DEFAULT_KERNEL_SIZE 0.1f
#define DEFAULT_KERNEL_CENTER "auto"
#define DEFAULT_RESOLUTION_SCALE 1

enum
{
  PROP_0,
  PROP_INTENSITY,
  PROP_THRESHOLD,
  PROP_KNEE,
  PROP_KERNEL_LOCATION,
  PROP_KERNEL_SIZE,
  PROP_KERNEL_CENTER,
  PROP_RESOLUTION_SCALE,
  PROP_CORE_SIZE,
  PROP_HALO_STRENGTH,
  PROP_HALO_SIZE,
  PROP_SPIKE_STRENGTH,
  PROP_SPIKE_COUNT,
  PROP_SPIKE_WIDTH,
  PROP_SPIKE_ANGLE,
};

GType
gst_fftbloom_resolution_scale_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {1, "Bloom at full resolution", "full"},
    {2, "Bloom at 1/2 resolution, upsampled", "half"},
    {4, "Bloom at 1/4 resolution, upsampled", "quarter"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstFftBloomResolutionScale", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_fftbloom_settings_init (GstFftBloomSettings * s)
{
  memset (s, 0, sizeof *s);
  s->intensity = DEFAULT_INTENSITY;
  s->threshold = DEFAULT_THRESHOLD;
  s->knee = DEFAULT_KNEE;
  s->kernel_size = DEFAULT_KERNEL_SIZE;
  s->kernel_center = g_strdup (DEFAULT_KERNEL_CENTER);
  s->center_x = s->center_y = -1.0f;
  s->resolution_scale = DEFAULT_RESOLUTION_SCALE;
  ci_fb_glare_defaults (&s->glare);
  s->serial = 1;
}

void
gst_fftbloom_settings_clear (GstFftBloomSettings * s)
{
  g_free (s->kernel_location);
  g_free (s->kernel_center);
  g_free (s->image_path);
  ci_fb_image_free (s->image);
  s->kernel_location = s->kernel_center = s->image_path = NULL;
  s->image = NULL;
}

void
gst_fftbloom_install_properties (GObjectClass * klass)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags rwc = rw | GST_PARAM_CONTROLLABLE;
  CiFbGlare g;
  ci_fb_glare_defaults (&g);

  GST_DEBUG_CATEGORY_INIT (gst_fftbloom_common_debug, "fftbloomcommon", 0,
      "fftbloom kernel and properties");

  g_object_class_install_property (klass, PROP_INTENSITY,
      g_param_spec_float ("intensity", "Intensity",
          "Gain of the bloom term: out = in + intensity * (bright(in) * K)",
          0.0f, 100.0f, DEFAULT_INTENSITY, rwc));
  g_object_class_install_property (klass, PROP_THRESHOLD,
      g_param_spec_float ("threshold", "Threshold",
          "Bright-pass threshold on the brightest colour sample, linear light "
          "(0 = the whole image blooms)", 0.0f, 1.0f, DEFAULT_THRESHOLD, rwc));
  g_object_class_install_property (klass, PROP_KNEE,
      g_param_spec_float ("knee", "Knee",
          "Soft-knee width as a fraction of the threshold (0 = hard cut)",
          0.0f, 1.0f, DEFAULT_KNEE, rwc));
  g_object_class_install_property (klass, PROP_KERNEL_LOCATION,
      g_param_spec_string ("kernel-location", "Kernel location",
          "PNG image used as the convolution kernel (grey, or RGB for one "
          "kernel per channel; 8-bit taken as sRGB, 16-bit as linear); "
          "NULL = procedural glare", NULL, rw));
  g_object_class_install_property (klass, PROP_KERNEL_SIZE,
      g_param_spec_float ("kernel-size", "Kernel size",
          "Kernel diameter (larger side) as a fraction of the frame's larger "
          "side; 0 = an image kernel at its own size, one texel per pixel",
          0.0f, 2.0f, DEFAULT_KERNEL_SIZE, rw));
  g_object_class_install_property (klass, PROP_KERNEL_CENTER,
      g_param_spec_string ("kernel-center", "Kernel center",
          "Texel of an image kernel that lands on the lit pixel: \"auto\" = "
          "its brightest texel, or \"x,y\" as fractions of its width and "
          "height (\"0.5,0.5\" = the middle). The glare is always centred",
          DEFAULT_KERNEL_CENTER, rw));
  g_object_class_install_property (klass, PROP_RESOLUTION_SCALE,
      g_param_spec_enum ("resolution-scale", "Resolution scale",
          "Resolution of the bloom term (computed smaller, upsampled "
          "bilinearly, for speed)", GST_TYPE_FFTBLOOM_RESOLUTION_SCALE,
          DEFAULT_RESOLUTION_SCALE, rw));
  g_object_class_install_property (klass, PROP_CORE_SIZE,
      g_param_spec_float ("core-size", "Core size",
          "Glare: sigma of the sharp Gaussian core, fraction of the kernel "
          "radius (at least half a texel)", 0.0f, 0.5f, g.core_size, rwc));
  g_object_class_install_property (klass, PROP_HALO_STRENGTH,
      g_param_spec_float ("halo-strength", "Halo strength",
          "Glare: share of the energy in the wide halo", 0.0f, 1.0f,
          g.halo_strength, rwc));
  g_object_class_install_property (klass, PROP_HALO_SIZE,
      g_param_spec_float ("halo-size", "Halo size",
          "Glare: scale of the halo's 1/(1+(r/s)^2)^1.5 fall-off, fraction of "
          "the kernel radius", 0.001f, 1.0f, g.halo_size, rwc));
  g_object_class_install_property (klass, PROP_SPIKE_STRENGTH,
      g_param_spec_float ("spike-strength", "Spike strength",
          "Glare: share of the energy in the diffraction spikes", 0.0f, 1.0f,
          g.spike_strength, rwc));
  g_object_class_install_property (klass, PROP_SPIKE_COUNT,
      g_param_spec_int ("spike-count", "Spike count",
          "Glare: number of diffraction rays (0 = none)", 0, 16,
          g.spike_count, rw));
  g_object_class_install_property (klass, PROP_SPIKE_WIDTH,
      g_param_spec_float ("spike-width", "Spike width",
          "Glare: Gaussian half-width of a ray, fraction of the kernel radius "
          "(at least half a texel)", 0.0f, 0.1f, g.spike_width, rwc));
  g_object_class_install_property (klass, PROP_SPIKE_ANGLE,
      g_param_spec_float ("spike-angle", "Spike angle",
          "Glare: direction of the first ray in degrees (0 = right, 90 = down)",
          -360.0f, 360.0f, g.spike_angle, rwc));
}

static gboolean
parse_center (const gchar * str, gfloat * x, gfloat * y)
{
  if (!str || !*str || !g_ascii_strcasecmp (str, "auto")) {
    *x = *y = -1.0f;
    return TRUE;
  }
  gchar **parts = g_strsplit (str, ",", 2);
  gboolean ok = FALSE;
  if (g_strv_length (parts) == 2) {
    gchar *p1 = g_strstrip (parts[0]), *p2 = g_strstrip (parts[1]), *e1, *e2;
    gdouble a = g_ascii_strtod (p1, &e1);
    gdouble b = g_ascii_strtod (p2, &e2);
    /* each part a whole number: an empty one ("," or " ,1") reads as 0 */
    if (e1 != p1 && e2 != p2 && !*e1 && !*e2 && a >= 0 && a <= 1 && b >= 0
        && b <= 1) {
      *x = (gfloat) a;
      *y = (gfloat) b;
      ok = TRUE;
    }
  }
  g_strfreev (parts);
  return ok;
}

void
gst_fftbloom_set_property (GObject * object, GstFftBloomSettings * s,
    guint prop_id, const GValue * value, GParamSpec * pspec)
{
  gchar *warning = NULL;
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_INTENSITY:
      s->intensity = g_value_get_float (value);
      break;
    case PROP_THRESHOLD:
      s->threshold = g_value_get_float (value);
      break;
    case PROP_KNEE:
      s->knee = g_value_get_float (value);
      break;
    case PROP_KERNEL_LOCATION:
      g_free (s->kernel_location);
      s->kernel_location = g_value_dup_string (value);
      if (s->kernel_location && !*s->kernel_location)
        g_clear_pointer (&s->kernel_location, g_free);
      s->serial++;
      break;
    case PROP_KERNEL_SIZE:
      s->kernel_size = g_value_get_float (value);
      s->serial++;
      break;
    case PROP_KERNEL_CENTER:{
      const gchar *str = g_value_get_string (value);
      gfloat x, y;
      if (parse_center (str, &x, &y)) {
        g_free (s->kernel_center);
        s->kernel_center = g_strdup (str ? str : DEFAULT_KERNEL_CENTER);
        s->center_x = x;
        s->center_y = y;
        s->serial++;
      } else {
        /* as GObject warns of a number out of its property's range: a
         * gst-launch user would otherwise not learn it was ignored */
        warning = g_strdup_printf ("%s: kernel-center \"%s\" is neither "
            "\"auto\" nor \"x,y\" with x, y in [0, 1]; keeping \"%s\"",
            GST_OBJECT_NAME (object), str, s->kernel_center);
      }
      break;
    }
    case PROP_RESOLUTION_SCALE:
      s->resolution_scale = g_value_get_enum (value);
      s->serial++;
      break;
    case PROP_CORE_SIZE:
      s->glare.core_size = g_value_get_float (value);
      s->serial++;
      break;
    case PROP_HALO_STRENGTH:
      s->glare.halo_strength = g_value_get_float (value);
      s->serial++;
      break;
    case PROP_HALO_SIZE:
      s->glare.halo_size = g_value_get_float (value);
      s->serial++;
      break;
    case PROP_SPIKE_STRENGTH:
      s->glare.spike_strength = g_value_get_float (value);
      s->serial++;
      break;
    case PROP_SPIKE_COUNT:
      s->glare.spike_count = g_value_get_int (value);
      s->serial++;
      break;
    case PROP_SPIKE_WIDTH:
      s->glare.spike_width = g_value_get_float (value);
      s->serial++;
      break;
    case PROP_SPIKE_ANGLE:
      s->glare.spike_angle = g_value_get_float (value);
      s->serial++;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
  /* emitted unlocked: a log handler may well read the element's properties */
  if (warning) {
    g_warning ("%s", warning);
    g_free (warning);
  }
}

void
gst_fftbloom_get_property (GObject * object, GstFftBloomSettings * s,
    guint prop_id, GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_INTENSITY:
      g_value_set_float (value, s->intensity);
      break;
    case PROP_THRESHOLD:
      g_value_set_float (value, s->threshold);
      break;
    case PROP_KNEE:
      g_value_set_float (value, s->knee);
      break;
    case PROP_KERNEL_LOCATION:
      g_value_set_string (value, s->kernel_location);
      break;
    case PROP_KERNEL_SIZE:
      g_value_set_float (value, s->kernel_size);
      break;
    case PROP_KERNEL_CENTER:
      g_value_set_string (value, s->kernel_center);
      break;
    case PROP_RESOLUTION_SCALE:
      g_value_set_enum (value, s->resolution_scale);
      break;
    case PROP_CORE_SIZE:
      g_value_set_float (value, s->glare.core_size);
      break;
    case PROP_HALO_STRENGTH:
      g_value_set_float (value, s->glare.halo_strength);
      break;
    case PROP_HALO_SIZE:
      g_value_set_float (value, s->glare.halo_size);
      break;
    case PROP_SPIKE_STRENGTH:
      g_value_set_float (value, s->glare.spike_strength);
      break;
    case PROP_SPIKE_COUNT:
      g_value_set_int (value, s->glare.spike_count);
      break;
    case PROP_SPIKE_WIDTH:
      g_value_set_float (value, s->glare.spike_width);
      break;
    case PROP_SPIKE_ANGLE:
      g_value_set_float (value, s->glare.spike_angle);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

void
gst_fftbloom_invalidate (GstFftBloomSettings * s)
{
  s->built = FALSE;
}

gboolean
gst_fftbloom_prepare (GstElement * element, GstFftBloomSettings * s,
    gint width, gint height, CiFbParams * params, CiFbKernel ** kernel,
    gint * scale)
{
  GstObject *obj = GST_OBJECT (element);
  CiFbGlare glare;
  gchar *location;
  gfloat size, cx, cy;
  guint serial;

  *kernel = NULL;
  GST_OBJECT_LOCK (obj);
  params->intensity = s->intensity;
  params->threshold = s->threshold;
  params->knee = s->knee;
  serial = s->serial;
  glare = s->glare;
  location = g_strdup (s->kernel_location);
  size = s->kernel_size;
  cx = s->center_x;
  cy = s->center_y;
  *scale = s->resolution_scale;
  GST_OBJECT_UNLOCK (obj);

  if (s->built && serial == s->built_serial && width == s->built_width
      && height == s->built_height) {
    g_free (location);
    return TRUE;
  }

  /* decode the image only when the path changed */
  if (g_strcmp0 (location, s->image_path) != 0) {
    ci_fb_image_free (s->image);
    s->image = NULL;
    g_free (s->image_path);
    s->image_path = NULL;
    if (location) {
      char *err = NULL;
      s->image = ci_fb_image_load_png (location, &err);
      if (!s->image) {
        GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ,
            ("Could not read the kernel image \"%s\"", location),
            ("%s", err ? err : "unknown error"));
        free (err);
        g_free (location);
        return FALSE;
      }
      s->image_path = g_strdup (location);
    }
  }
  g_free (location);

  /* The kernel's larger side before it is built: a frame of extreme aspect
   * ratio with a large kernel-size (1x23171 at 2) would ask for a kernel
   * and a grid of tens of GB. Bounded as the FFTs are (3 planes of int
   * offsets); the grid is checked exactly once the kernel is there. */
  {
    const gint big = MAX (width, height);
    gint64 side;
    if (s->image && size > 0.0f)
      side = MAX (1, lroundf (size * big / *scale));
    else if (s->image) {
      const gint ib = MAX (s->image->width, s->image->height);
      side = *scale == 1 ? ib : (ib + *scale / 2) / *scale;
    } else
      side = 2 * (gint64) MAX (1, lroundf (size * big / *scale * 0.5f)) + 1;
    const gint64 w = ci_fb_scaled (width, *scale);
    const gint64 h = ci_fb_scaled (height, *scale);
    /* the grid pads each axis by at least half the kernel (a lower bound:
     * frames the exact check below takes must pass here) */
    if ((w + (side - 1) / 2) * (h + (side - 1) / 2) > G_MAXINT / 3) {
      GST_ELEMENT_ERROR (element, STREAM, FAILED,
          ("Frame too large for the FFT"),
          ("%dx%d at 1/%d with a kernel of side %" G_GINT64_FORMAT
              ": the FFT grid would pass %d M samples at least (lower kernel-size or "
              "raise resolution-scale)", width, height, *scale, side,
              G_MAXINT / 3 >> 20));
      return FALSE;
    }
  }
  *kernel = ci_fb_kernel_for_frame (&glare, s->image, size, cx, cy, width,
      height, *scale);
  if (*kernel) {
    const gint nx = ci_fb_grid_size (ci_fb_scaled (width, *scale),
        (*kernel)->width, (*kernel)->cx);
    const gint ny = ci_fb_grid_size (ci_fb_scaled (height, *scale),
        (*kernel)->height, (*kernel)->cy);
    if ((gint64) nx * ny > G_MAXINT / 3) {
      GST_ELEMENT_ERROR (element, STREAM, FAILED,
          ("Frame too large for the FFT"),
          ("%dx%d at 1/%d with a %dx%d kernel: the FFT grid %dx%d passes "
              "%d M samples", width, height, *scale, (*kernel)->width,
              (*kernel)->height, nx, ny, G_MAXINT / 3 >> 20));
      ci_fb_kernel_free (*kernel);
      *kernel = NULL;
      return FALSE;
    }
  }
  if (!*kernel) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("The bloom kernel is empty"),
        ("kernel image \"%s\" is black, or out of memory",
            s->image_path ? s->image_path : "(glare)"));
    return FALSE;
  }
  GST_DEBUG_OBJECT (element, "new kernel %dx%d x%d, centre (%d,%d), scale 1/%d",
      (*kernel)->width, (*kernel)->height, (*kernel)->channels, (*kernel)->cx,
      (*kernel)->cy, *scale);
  /* recorded as built only once installed: if installing fails, the next
   * frame builds it again instead of keeping the older kernel */
  s->pending_serial = serial;
  s->pending_width = width;
  s->pending_height = height;
  return TRUE;
}

void
gst_fftbloom_kernel_installed (GstFftBloomSettings * s)
{
  s->built_serial = s->pending_serial;
  s->built_width = s->pending_width;
  s->built_height = s->pending_height;
  s->built = TRUE;
}

void
gst_fftbloom_format (const GstVideoInfo * info, CiFbFormat * f)
{
  const GstVideoFormatInfo *fi = info->finfo;
  int bytes = GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0) > 8 ? 2 : 1;
  f->bytes_per_sample = bytes;
  f->off_r = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_R) / bytes;
  f->off_g = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_G) / bytes;
  f->off_b = GST_VIDEO_FORMAT_INFO_POFFSET (fi, GST_VIDEO_COMP_B) / bytes;
  /* 8-bit formats are sRGB; RGBA64_LE is linear only when the caps say so */
  f->srgb = !(bytes == 2
      && info->colorimetry.transfer == GST_VIDEO_TRANSFER_GAMMA10);
}

GstCaps *
gst_fftbloom_transform_caps (GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_caps_ref (caps);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}
