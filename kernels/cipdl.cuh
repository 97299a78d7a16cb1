/* gst-cuda-imaging: programmatic dependent launch (sm_90+), shared by the
 * kernel files.  A kernel calls ci_pdl_launch_next () to let the next
 * dependent-launched kernel on its stream start once all its blocks run;
 * that kernel does only what does not read the previous one's output
 * before ci_pdl_wait_prev ().  Older GPUs: no-ops, and the launch carries
 * no attribute.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <cuda_runtime.h>

__device__ __forceinline__ void
ci_pdl_launch_next (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.launch_dependents;":::"memory");
#endif
}

__device__ __forceinline__ void
ci_pdl_wait_prev (void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.wait;":::"memory");
#endif
}

/* Whether the current device can dependent-launch. */
static inline bool
ci_pdl_supported (int dev)
{
  int cc = 0;
  bool ok = cudaDeviceGetAttribute (&cc, cudaDevAttrComputeCapabilityMajor,
      dev) == cudaSuccess && cc >= 9;
  cudaGetLastError ();
  return ok;
}

/* Launches k on st, dependent-launched on the kernel before it when pdl. */
template < typename... P, typename... A > static cudaError_t
ci_launch_after (bool pdl, void (*k) (P...), dim3 blocks, dim3 threads,
    size_t smem, cudaStream_t st, A... args)
{
  cudaLaunchConfig_t cfg = { };
  cudaLaunchAttribute at[1];
  cfg.gridDim = blocks;
  cfg.blockDim = threads;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = st;
  if (pdl) {
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
  }
  return cudaLaunchKernelEx (&cfg, k, ((P) args)...);
}
