/* gst-cuda-imaging: the cudaimaging plugin
 * Copyright (C) 2026 gst-cuda-imaging developers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#if HAVE_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#endif

#ifdef CI_HAVE_SUPERSAMPLE
#include "gstcpusupersample.h"
#if HAVE_CUDA
#include "gstcudasupersample.h"
#endif
#endif
#ifdef CI_HAVE_SGM
#include "gstcpusgm.h"
#if HAVE_CUDA
#include "gstcudasgm.h"
#endif
#endif
#ifdef CI_HAVE_TONEMAP
#include "gstcputonemap.h"
#if HAVE_CUDA
#include "gstcudatonemap.h"
#endif
#endif
#ifdef CI_HAVE_FFTBLOOM
#include "gstcpufftbloom.h"
#if HAVE_CUDA
#include "gstcudafftbloom.h"
#endif
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

#if HAVE_CUDA
  /* cuda* elements are registered even without a driver: they then fail
   * NULL->READY with a clear error instead of vanishing from the registry. */
  if (gst_cuda_load_library ())
    gst_cuda_memory_init_once ();
#endif

#ifdef CI_HAVE_SUPERSAMPLE
  ret |= GST_ELEMENT_REGISTER (cpusupersample, plugin);
#if HAVE_CUDA
  ret |= GST_ELEMENT_REGISTER (cudasupersample, plugin);
#endif
#endif
#ifdef CI_HAVE_SGM
  ret |= GST_ELEMENT_REGISTER (cpusgm, plugin);
#if HAVE_CUDA
  ret |= GST_ELEMENT_REGISTER (cudasgm, plugin);
#endif
#endif
#ifdef CI_HAVE_TONEMAP
  ret |= GST_ELEMENT_REGISTER (cputonemap, plugin);
#if HAVE_CUDA
  ret |= GST_ELEMENT_REGISTER (cudatonemap, plugin);
#endif
#endif
#ifdef CI_HAVE_FFTBLOOM
  ret |= GST_ELEMENT_REGISTER (cpufftbloom, plugin);
#if HAVE_CUDA
  ret |= GST_ELEMENT_REGISTER (cudafftbloom, plugin);
#endif
#endif

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaimaging,
    "Image algorithms as CUDA kernels, each with a CPU reference twin",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
