/* Checks for the cuda* elements that need GStreamer's CUDA library.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "citest.h"

G_BEGIN_DECLS

/* Number of CUDA devices through GStreamer's CUDA loader; 0 without one. */
int ci_gst_cuda_device_count (void);

/* cuda-device-id on @factory with @props (its output caps fields
 * @out_fields, e.g. "format=NV12", input @caps):
 * - each of the first two devices gives, in system memory, the output of
 *   the default device, from a context on that device;
 * - a device id set while the element is READY is taken at the next caps;
 * - the first id past the last device fails READY with one RESOURCE
 *   error that names it;
 * - with two devices (and cudaupload): CUDA memory of device 0 into the
 *   element on device 1, its CUDA memory out to a cudadownload on device
 *   0, the same output; and cuda-device-id=-1 takes the context of a
 *   neighbour on device 1 in CUDA memory: a cudaupload upstream, or a
 *   cudadownload downstream after system-memory input. */
void ci_check_devices (const char *factory, const char *props,
    const char *out_fields, const char *caps);

/* cuda-device-id of @factory as documented: an int from -1 (a neighbour's
 * device, else the first) up, -1 by default, read-write, changeable in
 * READY (it takes effect at the next start) but not while PLAYING, not
 * controllable; set and read back. Needs no GPU. */
void ci_check_device_id_property (const char *factory);

/* The memory the other side has comes first (caps queries, the element in
 * NULL, so no GPU needed): with an upstream peer that offers @in_caps
 * (raw caps, no features) in system memory, every structure of the src
 * pad's caps in system memory comes before any in memory:CUDAMemory, and
 * the other way round for a peer in CUDA memory; the same for the sink pad
 * against a downstream peer taking @out_caps. */
void ci_check_memory_preference (const char *factory, const char *in_caps,
    const char *out_caps);

/* Out of GPU memory at new caps mid-stream (a resolution switch): @factory
 * with @props works at @small_caps -> @small_out (caps strings), then,
 * with every block of device 0's memory held by a context of the test's
 * own, a frame at @big_caps -> @big_out must fail with one RESOURCE /
 * NO_SPACE_LEFT error saying "Out of GPU memory", not crash, and so must a
 * second frame, without a second error (the caps event and the buffer both
 * negotiate; the error is posted once); with the memory given back, the
 * next frame at those caps must pass, and no other error be posted. */
void ci_check_oom_on_caps_change (const char *factory, const char *props,
    const char *small_caps, const char *small_out, const char *big_caps,
    const char *big_out);

G_END_DECLS
