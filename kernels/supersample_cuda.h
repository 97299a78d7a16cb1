/* CUDA super-sampling (area) downscale, bit-exact with NPP NPPI_INTER_SUPER.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cicuda.h"
#include "supersample.h"        /* CiSsPlane, from reference/ */

#ifdef __cplusplus
extern "C" {
#endif

/* Device pointers. Same contract as ci_ref_supersample_plane(); returns a
 * cudaError_t value (cudaErrorInvalidValue for bad geometry). */
int ci_cuda_supersample_plane (const void *src, const CiSsPlane * sp,
    void *dst, const CiSsPlane * dp, ci_stream_t stream);

#ifdef __cplusplus
}
#endif
