/* CPU reference of NPP-exact super-sampling (area) downscale.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One plane of interleaved samples. */
typedef struct
{
  int width, height;            /* in pixels */
  int channels;                 /* samples per pixel (1..4) */
  int bytes_per_sample;         /* 1 or 2 (native-endian uint16) */
  int shift;                    /* sample value = raw >> shift (P010: 6) */
  size_t stride;                /* bytes between rows */
} CiSsPlane;

/* dst must be no larger than src on either axis. Returns 0, or -1 for bad
 * geometry (upscale, empty, unsupported sample layout). */
int ci_ref_supersample_plane (const void *src, const CiSsPlane * sp,
    void *dst, const CiSsPlane * dp);

/* Output rows [dy0, dy1) of ci_ref_supersample_plane, the same bytes (each
 * output row depends only on the geometry and the input), so that row
 * ranges can run on several threads. */
int ci_ref_supersample_rows (const void *src, const CiSsPlane * sp,
    void *dst, const CiSsPlane * dp, int dy0, int dy1);

#ifdef __cplusplus
}
#endif
