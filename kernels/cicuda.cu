/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cicuda.h"
#include <cuda_runtime.h>

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
