/* gst-cuda-imaging: what every kernel file and its C callers share.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define CI_HD __host__ __device__ __forceinline__
#else
#define CI_HD static inline
#endif

/* 16- and 32-bit samples at any address: the C references are given
 * frames at odd offsets and pitches (buffer regions, allocators' prefixes,
 * the tests' pitches), where a wide pointer access is undefined in C. */
CI_HD uint16_t
ci_ld_u16 (const uint8_t * p)
{
  uint16_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

CI_HD uint32_t
ci_ld_u32 (const uint8_t * p)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

CI_HD void
ci_st_u16 (uint8_t * p, uint16_t v)
{
  memcpy (p, &v, sizeof v);
}

#ifdef __cplusplus
extern "C" {
#endif

/* Same type as cudaStream_t and CUstream, without pulling either header into GStreamer code. */
typedef struct CUstream_st *ci_stream_t;

/* Launchers return a cudaError_t value: 0 is success. */
const char *ci_cuda_error_string (int err);
int ci_cuda_error_is_oom (int err);
/* Number of usable CUDA devices; 0 when there is no driver or no GPU (never fails). */
int ci_cuda_device_count (void);
/* Let kernel @func launch with @smem bytes of dynamic shared memory in the
 * current context (a no-op up to the 48 KiB every kernel may take). The
 * limit belongs to the function within a context, and elements share
 * contexts: it is only ever raised, under a lock, so that an instance
 * needing less cannot lower it under another one's launch. */
int ci_cuda_smem_at_least (const void *func, size_t smem);
/* 1 when @p is page-locked host memory the driver knows (any context's,
 * under unified addressing), 0 when not; for the tests of the pinned pools. */
int ci_cuda_host_is_pinned (const void *p);
/* Page-lock @n bytes of ordinary host memory at @p for every context
 * (cudaHostRegisterPortable), in the current context; and release them.
 * cudaError_t values. */
int ci_cuda_host_register (void *p, size_t n);
int ci_cuda_host_unregister (void *p);

#ifdef __cplusplus
}
#endif
