/* gst-cuda-imaging: what cudafftbloom and cpufftbloom share
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include "../reference/fftbloom.h"

G_BEGIN_DECLS

#define GST_FFTBLOOM_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGBA64_LE }"
#define GST_FFTBLOOM_CAPS GST_VIDEO_CAPS_MAKE (GST_FFTBLOOM_FORMATS)

#define GST_TYPE_FFTBLOOM_RESOLUTION_SCALE (gst_fftbloom_resolution_scale_get_type ())
GType gst_fftbloom_resolution_scale_get_type (void);

/* Properties and the kernel cache of one element. The property fields are
 * guarded by the object lock (they change while PLAYING); the cache fields
 * belong to the streaming thread. */
typedef struct
{
  /* properties */
  gfloat intensity, threshold, knee;
  gfloat kernel_size;
  gchar *kernel_location;
  gchar *kernel_center;
  gfloat center_x, center_y;    /* parsed kernel-center; < 0: auto */
  gint resolution_scale;        /* 1, 2 or 4 */
  CiFbGlare glare;
  guint serial;                 /* bumped by every kernel-shaping change */

  /* streaming thread */
  CiFbImage *image;             /* decoded kernel-location */
  gchar *image_path;
  guint built_serial;
  gint built_width, built_height;
  gboolean built;
  /* what the kernel handed out last was made for, until it is installed */
  guint pending_serial;
  gint pending_width, pending_height;
} GstFftBloomSettings;

void gst_fftbloom_settings_init (GstFftBloomSettings * s);
void gst_fftbloom_settings_clear (GstFftBloomSettings * s);
/* Installs all properties with ids 1..n on @klass. */
void gst_fftbloom_install_properties (GObjectClass * klass);
void gst_fftbloom_set_property (GObject * object, GstFftBloomSettings * s,
    guint prop_id, const GValue * value, GParamSpec * pspec);
void gst_fftbloom_get_property (GObject * object, GstFftBloomSettings * s,
    guint prop_id, GValue * value, GParamSpec * pspec);

/* Caps changed: the kernel must be rebuilt for the next frame. */
void gst_fftbloom_invalidate (GstFftBloomSettings * s);

/* Streaming thread, once per frame: the per-frame parameters, and, when the
 * kernel must change (first frame, kernel properties, caps), a new kernel in
 * *kernel (free with ci_fb_kernel_free) and its resolution divisor. FALSE
 * with an element error posted when the kernel cannot be made. */
gboolean gst_fftbloom_prepare (GstElement * element, GstFftBloomSettings * s,
    gint width, gint height, CiFbParams * params, CiFbKernel ** kernel,
    gint * scale);
/* Marks the kernel handed out by prepare as installed. */
void gst_fftbloom_kernel_installed (GstFftBloomSettings * s);

/* Sample layout and transfer function of negotiated caps. */
void gst_fftbloom_format (const GstVideoInfo * info, CiFbFormat * f);

/* Same caps on both sides (only memory features may differ). */
GstCaps *gst_fftbloom_transform_caps (GstCaps * caps, GstCaps * filter);

G_END_DECLS
