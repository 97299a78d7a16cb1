/* Queue priming for the benchmarks, as nvbench's blocking kernel: a host
 * function holds the stream until a whole batch of calls is queued behind
 * it, so the events time the GPU's work alone, not how fast the host
 * submits it. It gives up after 0.5 s so a call that synchronises inside
 * cannot deadlock it (gate_timeouts counts those; warn when non-zero).
 * One benchmark program per translation unit: the state is static.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <time.h>
#include <cuda_runtime_api.h>

static volatile int release_flag;
static int gate_timeouts;

static void CUDART_CB
gate (void *arg)
{
  struct timespec t0, t;
  (void) arg;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  while (!release_flag) {
    clock_gettime (CLOCK_MONOTONIC, &t);
    if ((t.tv_sec - t0.tv_sec) * 1e9 + (t.tv_nsec - t0.tv_nsec) > 5e8) {
      gate_timeouts++;
      break;
    }
  }
}
