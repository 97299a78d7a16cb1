/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cicuda.h"
#include <cuda_runtime.h>
#include <pthread.h>

static pthread_mutex_t smem_lock = PTHREAD_MUTEX_INITIALIZER;

extern "C" const char *
ci_cuda_error_string (int err)
{
  return cudaGetErrorString ((cudaError_t) err);
}

extern "C" int
ci_cuda_error_is_oom (int err)
{
  return err == cudaErrorMemoryAllocation;
}

extern "C" int
ci_cuda_device_count (void)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return n;
}

extern "C" int
ci_cuda_smem_at_least (const void *func, size_t smem)
{
  /* no shortcut for smem <= 48 KiB: without the opt-in a function may take
   * 48 KiB less its static shared memory (tonemap's fast kernels at 1434
   * bins asked for 49,096 bytes with 176 static: no block fitted) */
  if (smem == 0)
    return 0;
  pthread_mutex_lock (&smem_lock);
  cudaFuncAttributes fa;
  cudaError_t e = cudaFuncGetAttributes (&fa, func);
  if (e == cudaSuccess && (size_t) fa.maxDynamicSharedSizeBytes < smem)
    e = cudaFuncSetAttribute (func,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem);
  pthread_mutex_unlock (&smem_lock);
  return (int) e;
}

extern "C" int
ci_cuda_host_is_pinned (const void *p)
{
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes (&a, p) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return a.type == cudaMemoryTypeHost;
}

extern "C" int
ci_cuda_host_register (void *p, size_t n)
{
  cudaError_t e = cudaHostRegister (p, n, cudaHostRegisterPortable);
  if (e != cudaSuccess)
    cudaGetLastError ();
  return (int) e;
}

extern "C" int
ci_cuda_host_unregister (void *p)
{
  cudaError_t e = cudaHostUnregister (p);
  if (e != cudaSuccess)
    cudaGetLastError ();
  return (int) e;
}
