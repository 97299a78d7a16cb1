/* NPP's nppiResize (NPPI_INTER_SUPER), loaded at run time so nothing links NPP.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <cuda_runtime_api.h>

/* Returns 1 when libnppig/libnppc could be loaded. */
int ci_npp_load (void);
/* Device pointers, tightly described; channels 1/3/4, bps 1/2. Returns NppStatus (0 = ok),
 * or -1000 when NPP has no such function. */
int ci_npp_resize_super (const void *src, int src_step, int sw, int sh,
    void *dst, int dst_step, int dw, int dh, int channels, int bps, cudaStream_t stream);
