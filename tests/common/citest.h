/* Shared helpers for the test programs.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <stddef.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "cislices.h"

G_BEGIN_DECLS

/* An image in host memory: channels interleaved, rows `stride` bytes apart. */
typedef struct
{
  int width, height, channels, bytes_per_sample;     /* 1 or 2 (native-endian uint16) */
  size_t stride;
  uint8_t *data;
} CiImage;

CiImage *ci_image_new (int width, int height, int channels, int bytes_per_sample);
void ci_image_free (CiImage * img);
/* PNG (8/16-bit, grey/grey+alpha/RGB/RGBA, 16-bit samples returned native-endian). */
CiImage *ci_image_load_png (const char *path);
gboolean ci_image_save_png (const CiImage * img, const char *path);
/* Netpbm P5/P6 (8 or 16 bit) and PFM (returns bytes_per_sample 4, float, top row first). */
CiImage *ci_image_load_pnm (const char *path);
CiImage *ci_image_load_pfm (const char *path);

/* Deterministic pseudo-random numbers (xorshift64*). */
uint64_t ci_rand_next (uint64_t * state);
void ci_fill_random (uint8_t * p, size_t n, uint64_t seed);

/* Path of a test data file: $CI_TEST_DATA/name or $CI_SHARED_DATA/name; NULL if absent. */
gchar *ci_data_path (const char *env, const char *name);

/* TRUE when @factory can reach READY (i.e. a CUDA device is there for cuda* elements). */
gboolean ci_element_can_start (const char *factory);

/* TRUE when GStreamer's cudaupload exists (the CUDA-memory cases need it
 * and cudadownload); otherwise says that the case is skipped, or fails it
 * when CI_REQUIRE_CUDAUPLOAD is set. */
gboolean ci_have_cudaupload (void);

/* Fails unless @factory's n-threads is as documented (README, docs): a
 * guint 0 .. 1024, default 0 (one per processor), changeable while
 * PLAYING, and reads back what was set. */
void ci_check_n_threads_property (const char *factory);

/* Fails unless property @name of @e is changeable while PLAYING
 * (GST_PARAM_MUTABLE_PLAYING) exactly when @playing and controllable
 * (GST_PARAM_CONTROLLABLE) exactly when @controllable; -1: not checked. */
void ci_check_param_flags (GstElement * e, const char *name, int playing,
    int controllable);

/* Binds @prop of @e to a control source that holds @v[i] from i seconds
 * of stream time on (absolute values, no interpolation). */
void ci_control_steps (GstElement * e, const char *prop, const double *v,
    int n);

/* The CUDA context @e answers a context query on its src pad with, for
 * comparison only (no reference is kept); NULL if it has none. */
gpointer ci_cuda_context_of (GstElement * e);
/* Fails unless the elements named @a and @b in @h's bin have one CUDA
 * context. */
void ci_check_shared_context (GstHarness * h, const char *a, const char *b);

/* Counts, from now on, the buffers that cross @e's sink and src pads in
 * CUDA memory and in any other memory. */
void ci_watch_memory (GstElement * e);
/* Fails unless buffers crossed both of @e's pads since ci_watch_memory and
 * every one of them was in CUDA memory: a caps filter alone does not prove
 * that the element took the CUDA path. */
void ci_check_cuda_memory (GstElement * e);
/* A harness for @element (a factory and its properties) named @name,
 * between a cudaupload named "up" and a cudadownload, memory:CUDAMemory on
 * both of its sides; *e: the element (a reference), its memory watched by
 * ci_watch_memory. */
GstHarness *ci_cuda_memory_harness (const char *element, const char *name,
    GstElement ** e);

/* Pushes @in (taken) with a region-of-interest meta (x, y, w, h) through
 * @h and fails unless the output carries it as (ex, ey, ew, eh); ew = 0:
 * it must carry none. */
void ci_check_roi_meta (GstHarness * h, GstBuffer * in, const guint r[4],
    const guint e[4]);

/* Pushes @in (taken) with a test meta tagged only video and colorspace
 * through @h and fails unless the output carries it exactly when @kept
 * (gst_ci_transform_meta: kept by elements that leave the colours as they
 * were, dropped by those that change them). */
void ci_check_colorspace_meta (GstHarness * h, GstBuffer * in,
    gboolean kept);

/* Fails unless @factory refuses interlaced input (interleaved and mixed
 * @format frames of 64x32) with not-negotiated and an error that names
 * deinterlace, and takes the same caps marked progressive; @sink_caps, if
 * given, are the harness's downstream caps. */
void ci_check_interlaced_refused (const char *factory, const char *format,
    const char *sink_caps);

/* The next error on @bus, which must exist and be of @domain (and @code
 * where >= 0): its message, and its debug text in *debug unless NULL (both
 * to g_free). */
gchar *ci_pop_error (GstBus * bus, GQuark domain, gint code, gchar ** debug);
/* Fails if another error is on @bus (each failure is posted once), then
 * detaches @bus from @element and drops it. */
void ci_bus_done (GstElement * element, GstBus * bus);

/* Buffers that do not match their caps, through the harness bin @launch
 * with input @caps (one packed plane): a buffer whose video meta describes
 * a frame twice the caps' size, with the caps' picture at its top left,
 * must give the output that picture gives in a tight buffer (and nothing
 * past it may be read or written); a buffer half the caps' size, and video
 * metas whose plane runs past its memory (or that do not fit the caps),
 * must fail the flow with one stream error and no output. */
void ci_check_buffer_layouts (const char *launch, const char *caps);
/* A multi-plane frame (@caps, at most 3 planes) whose video meta pads
 * every row and starts every plane at an odd address must give the output
 * of the same picture in a tight buffer; with its last plane moved past
 * the buffer's end, or a meta with one plane too many, it must fail the
 * flow with one stream error and no output. */
void ci_check_plane_layouts (const char *launch, const char *caps);

/* The cuda* elements' pinned pools (gstcipinned.h), through the harness
 * bin @launch with input @caps: a frame must give the same output from
 * ordinary memory, from a buffer of the pool the element proposes upstream
 * and from memory of the allocator it proposes, with the pools turned off
 * (CI_NO_PINNED_POOLS=1, staging on both sides) and with no pinned memory
 * to spare (CI_PINNED_MAX_MB=0: the pools' memory ordinary). The proposed
 * buffers and memory and the output, which goes to the element's own pool
 * where downstream proposes none, must be pinned (@is_pinned:
 * ci_cuda_host_is_pinned) with the pools, and not without. */
void ci_check_pinned_pools (const char *launch, const char *caps,
    int (*is_pinned) (const void *p));

/* Ordinary memory that comes again is page-locked in place (gstcipinned.h):
 * one buffer of @caps (at least 1 MiB) pushed three times through @launch
 * must give the same output each time and be page-locked (@is_pinned)
 * from its second push until it is freed; with CI_NO_PINNED_POOLS=1
 * never. */
void ci_check_host_register (const char *launch, const char *caps,
    int (*is_pinned) (const void *p));

/* @in (taken) pushed through a fresh harness of @launch with input @caps:
 * its output, and in *out_info the video info its caps negotiated. */
GstBuffer *ci_push_one (const char *launch, const char *caps, GstBuffer * in,
    GstVideoInfo * out_info);

/* @b (the output for @what) must hold the picture @a holds (both of video
 * info @oi), in the rows' bytes, not their padding; @launch names the case. */
void ci_same_picture (GstBuffer * a, GstBuffer * b, const GstVideoInfo * oi,
    const char *launch, const char *what);

/* A frame of @caps (its info in *info) in ordinary memory, random bytes
 * from @seed; *data: where they are. */
GstBuffer *ci_random_frame (const char *caps, GstVideoInfo * info,
    uint64_t seed, const guint8 ** data);

/* A CiRunner (cislices.h) for the references: one plain thread per
 * slice, at most 16; returns the slice count. */
unsigned ci_thread_runner (void *data, unsigned max_slices, int n, int align,
    CiSliceFn fn, void *user);

/* The exit status of a GPU test that cannot run (no device, @why says
 * more): 77, meson's "skipped", or 1 when CI_REQUIRE_GPU is set (on the GPU
 * host, where a skip would hide a device or driver failure). */
int ci_gpu_unavailable (const char *why);

/* Runs @s; when @needs_factory is set and cannot start, returns
 * ci_gpu_unavailable's status. */
int ci_check_main (Suite * s, const char *needs_factory, int argc, char **argv);

G_END_DECLS
