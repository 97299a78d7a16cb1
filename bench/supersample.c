/* Kernel benchmark: cudasupersample's kernel vs NPP nppiResize SUPER on the same
 * device-memory inputs. CUDA events around each call, median of many runs,
 * inputs rotated over a set larger than L2. Prints a markdown table.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cibench_gate.h"
#include <time.h>
#include <cuda_runtime_api.h>
#include "supersample_cuda.h"
#include "cinpp.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString (e_), __FILE__, __LINE__); exit (1); } } while (0)

static int
cmpf (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

typedef struct { int sw, sh, dw, dh, C, bps; const char *name; } Case;

#define BATCH 50

int
main (int argc, char **argv)
{
  const Case cases[] = {
    {3840, 2160, 1920, 1080, 4, 1, "4K→1080p RGBA"},
    {1920, 1080, 1280, 720, 1, 1, "1080p→720p GRAY8"},
    {64, 64, 63, 1, 1, 1, "64²→63×1 GRAY8"},
    {64, 64, 63, 1, 4, 1, "64²→63×1 RGBA"},
    {1000, 1000, 3, 997, 1, 1, "1000²→3×997 GRAY8"},
    {1000, 1000, 3, 997, 4, 1, "1000²→3×997 RGBA"},
    {1920, 1080, 1280, 720, 4, 1, "1080p→720p RGBA"},
    {3840, 2160, 1920, 1080, 1, 1, "4K→1080p GRAY8"},
    {3840, 2160, 1280, 720, 3, 1, "4K→720p RGB"},
    {3840, 2160, 1920, 1080, 4, 2, "4K→1080p RGBA64"},
    {1919, 1079, 997, 541, 4, 1, "1919×1079→997×541 RGBA"},
  };
  const int reps = argc > 1 && atoi (argv[1]) > 0 ? atoi (argv[1]) : 200;
  int have_npp = ci_npp_load ();
  struct cudaDeviceProp prop;
  CK (cudaGetDeviceProperties (&prop, 0));
  /* The legacy default stream: events on it also cover work a library might
   * put on another blocking stream. */
  cudaStream_t s = 0;
  const int only = argc > 2 ? atoi (argv[2]) : -1;
  /* CI_BENCH_SRC_DEVICE=N: inputs in device N's memory, read by device 0's
   * kernel through peer access (what an element on one GPU pays for CUDA
   * memory from another) */
  const char *sd = getenv ("CI_BENCH_SRC_DEVICE");
  const int src_dev = sd ? atoi (sd) : 0;
  if (src_dev != 0) {
    int can = 0;
    CK (cudaDeviceCanAccessPeer (&can, 0, src_dev));
    if (!can) {
      fprintf (stderr, "device 0 cannot access device %d's memory\n", src_dev);
      return 1;
    }
    CK (cudaDeviceEnablePeerAccess (src_dev, 0));
    have_npp = 0;
  }
  /* One event between consecutive calls: launches run back to back, so the GPU
   * never idles (and drops its clocks) between timed calls. */
  cudaEvent_t *ev = malloc (sizeof (cudaEvent_t) * (reps + 1));
  for (int i = 0; i <= reps; i++)
    CK (cudaEventCreate (&ev[i]));
  float *t_ours = malloc (sizeof (float) * reps), *t_npp = malloc (sizeof (float) * reps);
  float *t_ours_h = malloc (sizeof (float) * reps), *t_npp_h = malloc (sizeof (float) * reps);

  printf ("GPU: %s, L2 %d MB, %d SMs; %d runs per case, median\n\n", prop.name,
      prop.l2CacheSize >> 20, prop.multiProcessorCount, reps);
  if (src_dev)
    printf ("Inputs in device %d's memory, read by peer access.\n\n", src_dev);
  printf ("GPU time per call (queue primed, as nvbench) and, after it, the time between\n"
      "calls as the host launches them back to back (host submission included).\n\n");
  printf ("| case | ours (µs) | NPP (µs) | speed-up | ours GB/s | ours, host-launched (µs) "
      "| NPP, host-launched (µs) | speed-up |\n|---|---|---|---|---|---|---|---|\n");
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const Case *c = &cases[k];
    if (only >= 0 && (int) k != only)
      continue;
    size_t sstride = (size_t) c->sw * c->C * c->bps, dstride = (size_t) c->dw * c->C * c->bps;
    sstride = (sstride + 255) & ~(size_t) 255;
    dstride = (dstride + 255) & ~(size_t) 255;
    size_t sbytes = sstride * c->sh, dbytes = dstride * c->dh;
    /* rotate over >= 256 MB so no input sits in L2 */
    int nbuf = (int) ((256u << 20) / (sbytes + dbytes)) + 2;
    if (nbuf > 4096)
      nbuf = 4096;
    uint8_t *src, *dst;
    CK (cudaSetDevice (src_dev));
    CK (cudaMalloc ((void **) &src, sbytes * nbuf));
    CK (cudaSetDevice (0));
    CK (cudaMalloc ((void **) &dst, dbytes * nbuf));
    uint8_t *h = malloc (sbytes);
    for (size_t i = 0; i < sbytes; i++)
      h[i] = (uint8_t) (i * 2654435761u >> 13);
    for (int b = 0; b < nbuf; b++)
      CK (cudaMemcpy (src + b * sbytes, h, sbytes, cudaMemcpyHostToDevice));
    free (h);
    CiSsPlane sp = { c->sw, c->sh, c->C, c->bps, 0, sstride };
    CiSsPlane dp = { c->dw, c->dh, c->C, c->bps, 0, dstride };
    for (int pass = 0; pass < 4; pass++) {
      /* passes: ours and NPP with the queue primed, then both as the host launches them */
      const int primed = pass < 2, npp = pass & 1;
      float *t = primed ? (npp ? t_npp : t_ours) : (npp ? t_npp_h : t_ours_h);
      if (npp && !have_npp)
        continue;
      for (int r = -20; r < reps; r++) {
        int b = (r + 20) % nbuf;
        if (primed && r >= 0 && r % BATCH == 0) {
          release_flag = 0;
          CK (cudaLaunchHostFunc (s, gate, NULL));
        }
        if (r >= 0)
          CK (cudaEventRecord (ev[r], s));
        if (!npp) {
          int e = ci_cuda_supersample_plane (src + b * sbytes, &sp, dst + b * dbytes, &dp, s);
          if (e) {
            fprintf (stderr, "launch: %s\n", cudaGetErrorString (e));
            return 1;
          }
        } else {
          int st = ci_npp_resize_super (src + b * sbytes, (int) sstride, c->sw, c->sh,
              dst + b * dbytes, (int) dstride, c->dw, c->dh, c->C, c->bps, s);
          if (st) {
            fprintf (stderr, "NPP status %d\n", st);
            return 1;
          }
        }
        if (primed && r >= 0 && (r % BATCH == BATCH - 1 || r == reps - 1)) {
          /* close the batch: its last call ends at this event */
          CK (cudaEventRecord (ev[r + 1], s));
          release_flag = 1;
          CK (cudaEventSynchronize (ev[r + 1]));
          for (int q = r - r % BATCH; q <= r; q++)
            CK (cudaEventElapsedTime (&t[q], ev[q], ev[q + 1]));
        }
      }
      if (!primed) {
        CK (cudaEventRecord (ev[reps], s));
        CK (cudaEventSynchronize (ev[reps]));
        for (int r = 0; r < reps; r++)
          CK (cudaEventElapsedTime (&t[r], ev[r], ev[r + 1]));
      }
      qsort (t, reps, sizeof (float), cmpf);
    }
    float mo = t_ours[reps / 2] * 1000.0f, mn = have_npp ? t_npp[reps / 2] * 1000.0f : 0;
    float ho = t_ours_h[reps / 2] * 1000.0f, hn = have_npp ? t_npp_h[reps / 2] * 1000.0f : 0;
    double gb = ((double) c->sw * c->sh + (double) c->dw * c->dh) * c->C * c->bps / (mo * 1e3);
    if (have_npp)
      printf ("| %s | %.1f | %.1f | %.2f× | %.0f | %.1f | %.1f | %.2f× |\n", c->name, mo, mn,
          mn / mo, gb, ho, hn, hn / ho);
    else
      printf ("| %s | %.1f | n/a | n/a | %.0f | %.1f | n/a | n/a |\n", c->name, mo, gb, ho);
    CK (cudaSetDevice (src_dev));
    CK (cudaFree (src));
    CK (cudaSetDevice (0));
    CK (cudaFree (dst));
  }
  if (gate_timeouts)
    printf ("\nWARNING: the queue gate timed out %d times: those batches include host time\n",
        gate_timeouts);
  return 0;
}
