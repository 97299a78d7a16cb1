/* cuFFT opened when first used instead of linked, so that the plugin (its
 * cpu* elements, and the cuda* ones that do no FFT) loads on hosts without
 * the CUDA toolkit: the driver alone gives libcuda, and nothing else of the
 * toolkit is linked dynamically. Each cuFFT entry point the kernels call is
 * defined here, hidden, and forwards to the library.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define CUFFTAPI __attribute__ ((visibility ("hidden")))
#include <cufft.h>
#include <cufftXt.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "cicufft.h"

#ifndef CUFFT_VER_MAJOR
#error "cufft.h without CUFFT_VER_MAJOR: the soname cannot be derived"
#endif
#define CI_STR_(x) #x
#define CI_STR(x) CI_STR_(x)
/* the soname's number is cuFFT's major version (12 in CUDA 13) */
#define CI_CUFFT_SONAME "libcufft.so." CI_STR (CUFFT_VER_MAJOR)

static struct
{
  cufftResult (*Create) (cufftHandle *);
  cufftResult (*Destroy) (cufftHandle);
  cufftResult (*Plan2d) (cufftHandle *, int, int, cufftType);
  cufftResult (*PlanMany) (cufftHandle *, int, int *, int *, int, int,
      int *, int, int, cufftType, int);
  cufftResult (*MakePlanMany) (cufftHandle, int, int *, int *, int, int,
      int *, int, int, cufftType, int, size_t *);
  cufftResult (*SetStream) (cufftHandle, cudaStream_t);
  cufftResult (*ExecR2C) (cufftHandle, cufftReal *, cufftComplex *);
  cufftResult (*ExecC2R) (cufftHandle, cufftComplex *, cufftReal *);
  cufftResult (*ExecC2C) (cufftHandle, cufftComplex *, cufftComplex *, int);
  cufftResult (*XtSetJITCallback) (cufftHandle, const char *, const void *,
      size_t, cufftXtCallbackType, void **);
} fn;
static int loaded;
static char error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
load (void)
{
  /* CI_CUFFT_LIBRARY: another name or path (tests use a missing one) */
  const char *name = getenv ("CI_CUFFT_LIBRARY");
  if (!name || !*name)
    name = CI_CUFFT_SONAME;
  /* a bare name is searched along this library's RUNPATH too (the
   * toolkit's lib64 at build time) */
  void *lib = dlopen (name, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf (error, sizeof error, "%s", dlerror ());
    return;
  }
#define SYM(f) \
  if (!(*(void **) &fn.f = dlsym (lib, "cufft" #f))) { \
    snprintf (error, sizeof error, "%s has no cufft" #f, name); \
    dlclose (lib); \
    return; \
  }
  SYM (Create);
  SYM (Destroy);
  SYM (Plan2d);
  SYM (PlanMany);
  SYM (MakePlanMany);
  SYM (SetStream);
  SYM (ExecR2C);
  SYM (ExecC2R);
  SYM (ExecC2C);
  SYM (XtSetJITCallback);
#undef SYM
  loaded = 1;
}

int
ci_cufft_available (void)
{
  pthread_once (&once, load);
  return loaded;
}

const char *
ci_cufft_error (void)
{
  return ci_cufft_available () ? NULL : error;
}

#define FWD(call) return ci_cufft_available () ? fn.call : CUFFT_NOT_SUPPORTED

cufftResult CUFFTAPI
cufftCreate (cufftHandle * plan)
{
  FWD (Create (plan));
}

cufftResult CUFFTAPI
cufftDestroy (cufftHandle plan)
{
  FWD (Destroy (plan));
}

cufftResult CUFFTAPI
cufftPlan2d (cufftHandle * plan, int nx, int ny, cufftType type)
{
  FWD (Plan2d (plan, nx, ny, type));
}

cufftResult CUFFTAPI
cufftPlanMany (cufftHandle * plan, int rank, int *n, int *inembed,
    int istride, int idist, int *onembed, int ostride, int odist,
    cufftType type, int batch)
{
  FWD (PlanMany (plan, rank, n, inembed, istride, idist, onembed, ostride,
          odist, type, batch));
}

cufftResult CUFFTAPI
cufftMakePlanMany (cufftHandle plan, int rank, int *n, int *inembed,
    int istride, int idist, int *onembed, int ostride, int odist,
    cufftType type, int batch, size_t *work_size)
{
  FWD (MakePlanMany (plan, rank, n, inembed, istride, idist, onembed,
          ostride, odist, type, batch, work_size));
}

cufftResult CUFFTAPI
cufftSetStream (cufftHandle plan, cudaStream_t stream)
{
  FWD (SetStream (plan, stream));
}

cufftResult CUFFTAPI
cufftExecR2C (cufftHandle plan, cufftReal * idata, cufftComplex * odata)
{
  FWD (ExecR2C (plan, idata, odata));
}

cufftResult CUFFTAPI
cufftExecC2R (cufftHandle plan, cufftComplex * idata, cufftReal * odata)
{
  FWD (ExecC2R (plan, idata, odata));
}

cufftResult CUFFTAPI
cufftExecC2C (cufftHandle plan, cufftComplex * idata, cufftComplex * odata,
    int direction)
{
  FWD (ExecC2C (plan, idata, odata, direction));
}

cufftResult CUFFTAPI
cufftXtSetJITCallback (cufftHandle plan, const char *lto_callback_symbol_name,
    const void *lto_callback_fatbin, size_t lto_callback_fatbin_size,
    cufftXtCallbackType type, void **caller_info)
{
  FWD (XtSetJITCallback (plan, lto_callback_symbol_name, lto_callback_fatbin,
          lto_callback_fatbin_size, type, caller_info));
}
