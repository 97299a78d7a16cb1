/* Convolution bloom through FFTs: CPU reference (FFTW, single precision),
 * kernel construction (procedural glare, PNG images) shared by both elements.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "fftbloom_math.h"      /* CiFbFormat, CiFbParams, CiFbKernel, CiFbGlare */
#include "cislices.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel source image in linear light, channels (1 or 3) interleaved. */
typedef struct
{
  int width, height, channels;
  float *data;
} CiFbImage;

void ci_fb_glare_defaults (CiFbGlare * g);

CiFbKernel *ci_fb_kernel_new (int width, int height, int channels);
void ci_fb_kernel_free (CiFbKernel * k);
/* Scales each plane to unit sum; -1 if a plane has no positive sum. */
int ci_fb_kernel_normalise (CiFbKernel * k);

/* Procedural glare of radius R texels: (2R+1)^2 texels, centred, grey. */
CiFbKernel *ci_fb_kernel_glare (const CiFbGlare * g, int radius);
/* The texels of ci_fb_kernel_glare (g, R) within rx columns and ry rows of
 * its centre, with the same bits, without storing the whole kernel. */
CiFbKernel *ci_fb_kernel_glare_window (const CiFbGlare * g, int R, int rx,
    int ry);

/* Kernel from an image, resampled so that its larger side is `size` texels
 * (0 = keep the image's size), centred on (fx, fy) (fractions of the
 * kernel's width and height) or, when fx < 0, on its brightest texel.
 * Grey images give one plane, RGB images three. NULL if the image is black. */
CiFbKernel *ci_fb_kernel_from_image (const CiFbImage * img, int size,
    float fx, float fy);

/* 8-bit samples are taken as sRGB-encoded, 16-bit as linear; an alpha
 * channel is multiplied in. NULL on error (*err set, free with free()). */
CiFbImage *ci_fb_image_load_png (const char *path, char **err);
void ci_fb_image_free (CiFbImage * img);

/* The kernel both elements use for a frame of width x height at resolution
 * divisor `scale`: the image kernel when img is non-NULL, else the glare.
 * kernel_size is a fraction of the frame's larger side (0 with an image:
 * one image texel per frame pixel). */
CiFbKernel *ci_fb_kernel_for_frame (const CiFbGlare * g, const CiFbImage * img,
    float kernel_size, float fx, float fy, int width, int height, int scale);

/* The FFT pipeline. */
typedef struct CiFbRef CiFbRef;

CiFbRef *ci_fb_ref_new (void);
void ci_fb_ref_free (CiFbRef * r);
/* Plans the grid for a width x height frame at divisor scale (1, 2, 4) and
 * caches the kernel's spectrum. Returns 0, or -1 on bad arguments. */
int ci_fb_ref_set_kernel (CiFbRef * r, const CiFbKernel * k, int width,
    int height, int scale);
/* Grid (FFT) size chosen by the last set_kernel. */
void ci_fb_ref_grid (const CiFbRef * r, int *nx, int *ny);
/* One frame; in and out may not overlap. */
void ci_fb_ref_process (CiFbRef * r, const void *in, size_t in_stride,
    void *out, size_t out_stride, const CiFbFormat * fmt,
    const CiFbParams * p);
/* ci_fb_ref_process with its stages in slices through @run (NULL: on the
 * caller's thread): the bright pass and the output by rows, the three
 * planes' transforms side by side (each plane has its own plans). The
 * output is the same for any slicing. */
void ci_fb_ref_process_mt (CiFbRef * r, const void *in, size_t in_stride,
    void *out, size_t out_stride, const CiFbFormat * fmt,
    const CiFbParams * p, CiRunner run, void *data, unsigned max_slices);
/* The linear bright-pass + downsample stage and the bloom after the inverse
 * FFT, exposed for the stage tests: planes of the low-res image (w x h,
 * stride w floats, 3 planes). */
void ci_fb_ref_bright (const void *in, size_t in_stride, int width, int height,
    int scale, const CiFbFormat * fmt, const CiFbParams * p, float *planes);

#ifdef __cplusplus
}
#endif
