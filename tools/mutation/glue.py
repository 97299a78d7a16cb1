#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Targeted mutation testing of the cuda* elements' GStreamer glue.

  glue.py check [--src ROOT]          every search string once in ROOT's files,
                                      every selected test registered
  glue.py build BUILD_DIR OUTDIR [--only m00,m05] [-j N]
                                      mutant plugins by relinking (here, no GPU)
  glue.py run                         on the GPU host, from the repository root
  glue.py table OUT                   the verdict table of a run's results.tsv
  glue.py list                        the mutants and their test selections

See tools/mutation/README.md. Standard library only."""
import argparse, concurrent.futures, hashlib, io, json, lzma, os, re, shlex, shutil, signal
import struct, subprocess, sys, tarfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = 'gst/libgstcudaimaging.so'
PROGRAMS = ('supersample', 'sgm', 'tonemap', 'fftbloom')
OOM_TEST = 'test_oom_on_caps_change'
# where each program's tests are registered (tcase_add_test)
TEST_SOURCES = {
    'supersample': ['tests/check/elements/cudasupersample.c',
                    'tests/check/elements/supersample-checks.h'],
    'sgm': ['tests/check/elements/cudasgm.c',
            'tests/check/elements/sgm-checks.h'],
    'tonemap': ['tests/check/elements/cudatonemap.c',
                'tests/tonemap/tonemap-checks.h'],
    'fftbloom': ['tests/check/elements/cudafftbloom.c',
                 'tests/fftbloom/fftbloom-checks.h'],
}

F = 'gst/gstcudaimagingfilter.c'
P = 'gst/gstcipinned.c'
T = 'gst/gstcudatonemap.c'
S = 'gst/gstcudasgm.c'
B = 'gst/gstcudafftbloom.c'
SS = 'gst/gstcudasupersample.c'


class M:
    """One mutant. tests: {program: [test, ...]} run in the main phase; oom:
    the program whose test_oom_on_caps_change is its only test (the OOM
    phase); gpus=2: only a second device reaches it (left out unless
    TWO_GPU=1); expect: k(illed) / s(urvives) / ? as judged by reading the
    tests, so that a surprise stands out in the table."""

    def __init__(self, mid, file, old, new, desc, tests=None, oom=None,
                 expect='?', gpus=1, why=''):
        self.id, self.file, self.old, self.new, self.desc = mid, file, old, new, desc
        self.tests = tests or {}
        self.oom, self.expect, self.gpus, self.why = oom, expect, gpus, why
        assert bool(self.tests) != bool(oom), mid


# Selections: the fewest tests (in one program where one suffices) that run
# the mutated line in the way that shows the change; 'why' says which.  The
# element checks pay for a CUDA context per harness, so small one-harness
# tests are preferred (supersample's test_caps_changes: one harness, eight
# caps, multi-plane and odd-stride formats, a 1080p frame).
MUTANTS = [
    # ---- base class: caps
    M('m01', F, "      gst_caps_is_empty (caps) || caps_have_cuda (caps));",
      "      !(gst_caps_is_empty (caps) || caps_have_cuda (caps)));",
      "transform_caps: memory preference inverted (system in -> CUDA out first)",
      {'supersample': ['test_memory_preference']}, expect='k',
      why='ci_check_memory_preference: caps queries in NULL (killed without a GPU too)'),
    M('m02', F, '"NV12, NV21, P010_10LE, P016_LE, Y444, Y444_16LE,',
      '"NV12, NV21, P010_10LE, P016_LE, Y444_16LE,',
      "Y444 dropped from the formats offered in memory:CUDAMemory",
      {'supersample': ['test_caps_changes_cuda_memory']}, expect='k',
      why='a Y444 step in CUDA memory'),
    M('m03', F, """  if (filter) {
    tmp = gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);""",
      """  if (filter && FALSE) {
    tmp = gst_caps_intersect_full (filter, ret, GST_CAPS_INTERSECT_FIRST);""",
      "transform_caps ignores the filter caps",
      {'sgm': ['test_announced_layout_size']}, expect='k',
      why='caps query with a multiview filter, fixated'),
    # ---- base class: errors (OOM phase)
    M('m04', F, """    if (first_oom (self, what))
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of GPU memory (%s)", what), ("CUDA error %d: %s", err,""",
      """    if (first_oom (self, what) || TRUE)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of GPU memory (%s)", what), ("CUDA error %d: %s", err,""",
      "post_cuda_error (runtime API): out-of-memory posted every time",
      oom='fftbloom', expect='s',
      why='the OOM test fails at set_caps staging (driver API, post_cu_error) first'),
    M('m05', F, """    if (first_oom (self, what))
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Out of GPU memory (%s)", what), ("%s: %s", GST_STR_NULL (name),""",
      """    if (first_oom (self, what))
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Out of GPU memory (%s)", what), ("%s: %s", GST_STR_NULL (name),""",
      "post_cu_error (driver API): out-of-memory posted as RESOURCE/FAILED",
      oom='fftbloom', expect='k', why='the staging allocation at set_caps'),
    M('m06', F, """    gst_ci_forget_refusal (trans);
    priv->oom_posted = FALSE;
  }
  return ok;""", """    gst_ci_forget_refusal (trans);
  }
  return ok;""",
      "set_caps success does not clear oom_posted (only a frame does)",
      oom='fftbloom', expect='s', why='the frame after set_caps clears it too'),
    # ---- base class: staging and copies
    M('m07', F, "    total += GST_ROUND_UP_64 ((gsize) st->row_bytes[p] * st->rows[p]);",
      "    total += GST_ROUND_UP_64 ((gsize) st->row_bytes[p] * (st->rows[p] - 1));",
      "host staging: each plane one row short (planes overlap)",
      {'supersample': ['test_caps_changes']}, expect='k',
      why='multi-plane output (NV12, I420_10LE, Y444, P010) through staging'),
    M('m08', F, """  for (gint y = 0; y < rows; y++)
    memcpy (dst + y * dstride, src + y * sstride, row_bytes);""",
      """  for (gint y = 0; y < rows - 1; y++)
    memcpy (dst + y * dstride, src + y * sstride, row_bytes);""",
      "copy_rows (strided path): last row not copied",
      {'supersample': ['test_caps_changes']}, expect='k',
      why='GRAY16 33 px and I420_10LE 1001 px: stride != row bytes'),
    M('m09', F, """  c.srcPitch = spitch;
  c.dstPitch = dpitch;""", """  c.srcPitch = spitch;
  c.dstPitch = spitch;""",
      "memcpy2d_async: destination pitch = source pitch",
      {'supersample': ['test_caps_changes']}, expect='k'),
    # ---- base class: contexts
    M('m10', F, "        if ((gint) dev != id) {", "        if ((gint) dev == id) {",
      "cuda-device-id set in READY drops a context of the SAME device",
      {'tonemap': ['test_devices']}, expect='k', gpus=2,
      why='one GPU: "last" is 0, the check is skipped'),
    M('m11', F, """    priv->stream = NULL;
  }
  gst_cuda_context_pop (NULL);
}""", """    priv->stream = NULL;
  }
}""",
      "release_device_resources: context pushed, never popped",
      {'tonemap': ['test_devices', 'test_shared_context_bins']}, expect='s',
      why='every CUDA call of ours pushes its own context first'),
    M('m12', F, """  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    replace_context (self, NULL);""", """  if (transition == GST_STATE_CHANGE_READY_TO_NULL && FALSE)
    replace_context (self, NULL);""",
      "READY->NULL keeps the CUDA context",
      {'tonemap': ['test_devices']}, expect='s',
      why='a leak; one device gives the same context back'),
    M('m13', F, """  if (!have) {
    GstCudaContext *ctx = NULL;""", """  if (have) {
    GstCudaContext *ctx = NULL;""",
      "set_context: a context from the bin/app ignored while the element has none",
      {'tonemap': ['test_shared_context_bins']}, expect='k',
      why='two elements in system memory share through the bin only'),
    M('m14', F, """    if (priv->context)
      ctx = gst_object_ref (priv->context);
    GST_OBJECT_UNLOCK (trans);""", """    if (priv->context && FALSE)
      ctx = gst_object_ref (priv->context);
    GST_OBJECT_UNLOCK (trans);""",
      "context queries never answered with the element's context",
      {'tonemap': ['test_shared_context_bins']}, expect='k',
      why='ci_check_shared_context asks the element by a context query'),
    M('m15', F, """  if (!gst_ci_check_progressive (trans, incaps, outcaps, &in_info))
    return FALSE;""", "  (void) gst_ci_check_progressive;",
      "set_caps: interlaced caps no longer refused",
      {'sgm': ['test_interlaced_refused']}, expect='k'),
    M('m16', F, """  if (!ok) {
    release_device_resources (self);
  } else {""", """  if (!ok) {
  } else {""",
      "failed set_caps keeps what it allocated until the next caps/stop",
      oom='fftbloom', expect='s', why='the next set_caps releases it first'),
    # ---- base class: allocation
    M('m17', F, """    if (caps_have_cuda (caps) && priv->context)
      pool = gst_cuda_buffer_pool_new (priv->context);""",
      """    if (caps_have_cuda (caps) && priv->context && FALSE)
      pool = gst_cuda_buffer_pool_new (priv->context);""",
      "propose_allocation: CUDA caps get a plain GstVideoBufferPool",
      {'supersample': ['test_cuda_memory_shared_context']}, expect='?',
      why='cudaupload may refuse a non-CUDA pool and make its own'),
    M('m18', F, """  if (pinned)
    gst_query_add_allocation_param (query, pinned, NULL);""", "  (void) 0;",
      "propose_allocation: pinned allocator not offered (sanity control)",
      {'sgm': ['test_pinned_pools']}, expect='k'),
    M('m19', F, """  gst_clear_object (&pinned);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);""",
      "  gst_clear_object (&pinned);",
      "propose_allocation: GstVideoMeta support not announced upstream",
      {'sgm': ['test_fixates_whole_views']}, expect='s',
      why='videotestsrc upstream; default strides either way'),
    M('m20', F, """  if (pool && !cuda && (G_OBJECT_TYPE (pool) == GST_TYPE_VIDEO_BUFFER_POOL ||
          G_OBJECT_TYPE (pool) == GST_TYPE_BUFFER_POOL)) {""",
      "  if (pool && !cuda && (G_OBJECT_TYPE (pool) == GST_TYPE_BUFFER_POOL)) {",
      "decide_allocation: a downstream plain GstVideoBufferPool is kept",
      {'sgm': ['test_pinned_pools']}, expect='s',
      why='no test has a downstream that proposes a plain video pool'),
    # ---- base class: transform
    M('m21', F, "          GST_MAP_READ | (in_cuda ? GST_MAP_CUDA : 0))) {",
      "          GST_MAP_READ)) {",
      "transform: CUDA input mapped without GST_MAP_CUDA",
      {'supersample': ['test_cuda_memory_shared_context',
                       'test_caps_changes_cuda_memory']}, expect='?',
      why="1.22's host map is pinned staging the GPU may read through UVA"),
    M('m22', F, "          GST_MAP_WRITE | (out_cuda ? GST_MAP_CUDA : 0))) {",
      "          GST_MAP_WRITE)) {",
      "transform: CUDA output mapped without GST_MAP_CUDA",
      {'supersample': ['test_cuda_memory_shared_context',
                       'test_caps_changes_cuda_memory']}, expect='?',
      why='as m21; the unmap uploads the host copy'),
    M('m23', F, """      host = st->host + st->host_offset[p];
      hstride = st->row_bytes[p];""", "      host = st->host + st->host_offset[p];",
      "upload from staging with the frame's stride instead of the staging's",
      {'supersample': ['test_caps_changes']}, expect='k',
      why='odd strides (GRAY16 33 px)'),
    M('m24', F, """    if (err != GST_CUDA_IMAGING_ERROR_POSTED)
      gst_cuda_imaging_filter_post_cuda_error""", """    if (TRUE)
      gst_cuda_imaging_filter_post_cuda_error""",
      "process failures the subclass posted are posted again",
      {'fftbloom': ['test_bad_kernel_location', 'test_frame_too_large_for_fft']},
      expect='k', why='ci_bus_done fails on a second error'),
    M('m25', F, "    for (gint p = 0; p < st->n_planes && res == CUDA_SUCCESS; p++) {",
      "    for (gint p = 0; p < st->n_planes - 1 && res == CUDA_SUCCESS; p++) {",
      "download: last output plane not copied back (sanity control)",
      {'supersample': ['test_caps_changes']}, expect='k'),
    M('m26', F, """  if (res == CUDA_SUCCESS)
    res = CuStreamSynchronize (priv->stream);""", "  (void) 0;",
      "no stream synchronisation before the output is pushed",
      {'supersample': ['test_caps_changes']}, expect='k',
      why='a race; the 1080p step makes the copy out of staging early'),
    M('m27', F, """  if (res == CUDA_SUCCESS)
    res = CuStreamSynchronize (priv->stream);""",
      """  if (res == CUDA_SUCCESS && !out_cuda)
    res = CuStreamSynchronize (priv->stream);""",
      "no synchronisation before pushing CUDA-memory output",
      {'supersample': ['test_caps_changes_cuda_memory'],
       'tonemap': ['test_cuda_memory']}, expect='?',
      why="a race with cudadownload's copy (our stream is non-blocking)"),
    M('m28', F, """  if (ret != GST_FLOW_OK)
    CuStreamSynchronize (priv->stream);
  else""", """  if (ret != GST_FLOW_OK)
    (void) 0;
  else""",
      "error path unmaps the frames without synchronising the stream",
      {'fftbloom': ['test_bad_kernel_location']}, expect='s',
      why='reached, but no error path has work queued'),
    M('m29', F, """          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));""",
      "          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));",
      "cuda-device-id loses GST_PARAM_MUTABLE_READY",
      {'supersample': ['test_device_id_property']}, expect='k',
      why="ci_check_device_id_property reads the flags (killed without a GPU too)"),
    # ---- pinned memory and registration
    M('m30', P, "  return (mb ? g_ascii_strtoll (mb, NULL, 10) : 2048) << 20;",
      "  return (mb ? g_ascii_strtoll (mb, NULL, 10) : 2048) << 10;",
      "pinned limit in KiB instead of MiB (2 MiB by default)",
      {'supersample': ['test_pinned_pools']}, expect='k',
      why='ci_check_host_register locks a 2.4 MB frame'),
    M('m31', P, "  if (params->align < 4096 && before + (gint64) maxsize <= self->limit &&",
      "  if (params->align < 4096 && before <= self->limit &&",
      "allocator limit check ignores the new block's size",
      {'sgm': ['test_pinned_pools']}, expect='k', why='CI_PINNED_MAX_MB=0 still pins'),
    M('m32', P, """  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), pinned_quark (), b,
      NULL);""", "  (void) pinned_quark;",
      "pinned memory not marked: the element stages its own pinned buffers",
      {'sgm': ['test_pinned_pools']}, expect='s',
      why='same pixels, still pinned: only slower'),
    M('m33', P, """  if (pinning_off ())
    return NULL;
  GstCiPinnedAllocator *self""", "  GstCiPinnedAllocator *self",
      "CI_NO_PINNED_POOLS ignored by the allocator (sanity control)",
      {'sgm': ['test_pinned_pools']}, expect='k'),
    M('m34', P, "  gst_buffer_pool_config_set_allocator (config, self->allocator, &params);",
      "  (void) params;",
      "pinned pool: set_config no longer forces the pinned allocator",
      {'sgm': ['test_pinned_pools']}, expect='k'),
    M('m35', P, """  if (!gst_buffer_pool_config_get_allocator (config, NULL, &params))
    gst_allocation_params_init (&params);""", "  gst_allocation_params_init (&params);",
      "pinned pool: the configured allocation params are dropped",
      {'sgm': ['test_pinned_pools']}, expect='s',
      why='the test configures default params'),
    M('m36', P, "#define REG_MIN_BYTES (1 << 20)", "#define REG_MIN_BYTES (1 << 22)",
      "host registration threshold 4 MiB instead of 1 MiB",
      {'supersample': ['test_pinned_pools']}, expect='k'),
    M('m37', P, "  } else if (r->state == REG_SEEN) {", """  }
  if (r->state == REG_SEEN) {""",
      "ordinary memory page-locked on its first sighting",
      {'supersample': ['test_pinned_pools']}, expect='k'),
    M('m38', P, """  const gboolean ready = r->state == REG_LOCKED && ptr >= r->ptr &&
      ptr + size <= r->ptr + r->size;""",
      """  const gboolean ready = r->state == REG_LOCKED && ptr >= r->ptr &&
      ptr + size < r->ptr + r->size;""",
      "dma_ready: locked memory never reported ready (staged although locked)",
      {'supersample': ['test_pinned_pools']}, expect='s',
      why='same pixels, still locked: only slower'),
    M('m39', P, """    if (gst_cuda_context_push (r->context)) {
      ci_cuda_host_unregister (r->ptr);""",
      """    if (gst_cuda_context_push (r->context)) {
      (void) ci_cuda_host_unregister;""",
      "host_reg_free: pages not unregistered before the memory is freed",
      {'supersample': ['test_pinned_pools']}, expect='k',
      why='"freed memory is still page-locked"'),
    M('m40', P, "      r->context = gst_object_ref (context);", "      r->context = context;",
      "registration keeps the context without a reference",
      {'supersample': ['test_pinned_pools']}, expect='?',
      why='the unref at free drops the element\'s context early'),
    # ---- tonemap
    M('m41', T, """  if (gst_tonemap_event_restarts_history (event))
    self->need_reset = TRUE;""", "  (void) gst_tonemap_event_restarts_history;",
      "tonemap: flush / stream-start no longer restart the history",
      {'tonemap': ['test_stream_start_resets', 'test_flush_resets']}, expect='k'),
    M('m42', T, """    err = ci_tm_cuda_set_runtime (self->tm, &rt, stream);
    if (err)
      return err;""", "    err = 0;",
      "tonemap: runtime property changes not sent to the device",
      {'tonemap': ['test_runtime_change', 'test_live_smoothing']}, expect='k'),
    M('m43', T, "    if (err && !ci_cuda_error_is_oom (err)) {", "    if (err) {",
      "tonemap: OOM creating the device state posted as a setup error",
      oom='tonemap', expect='s',
      why='set_caps staging fails first; the state is made at the first frame'),
    M('m44', T, "  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (out->info) && i < 3; i++) {",
      "  for (guint i = 0; i < GST_VIDEO_INFO_N_PLANES (out->info) && i < 2; i++) {",
      "tonemap: third output plane (I420 V) not passed to the kernel",
      {'tonemap': ['test_cuda_memory']}, expect='k', why='BGR10A2 -> I420'),
    # ---- sgm
    M('m45', S, "    err = sgm_cuda_reserve (self->sgm, &p);", "    (void) p;",
      "sgm: scratch not reserved at set_info (the first frame allocates it)",
      oom='sgm', expect='s', why='set_caps staging fails first'),
    M('m46', S, "      right, in->stride[0], g->luma, out->data[0], out->stride[0], g->out,",
      "      right, in->stride[0], g->luma, out->data[0], in->stride[0], g->out,",
      "sgm: output written with the input's pitch",
      {'sgm': ['test_live_changes']}, expect='s',
      why='device pitches are 512-aligned: equal for the frames the tests use'),
    # ---- fftbloom
    M('m47', B, "    if (!ci_fb_cuda_frame_fits (kernel, width, height, scale)) {",
      "    if (!ci_fb_cuda_frame_fits (kernel, width, height, scale) && FALSE) {",
      "fftbloom: frame-too-large-for-the-FFT check bypassed",
      {'fftbloom': ['test_frame_too_large_for_fft']}, expect='k'),
    M('m48', B, """    return gst_cuda_imaging_filter_post_cuda_error (filter, err,
        "creating the FFT context");""", "    return FALSE;",
      "fftbloom: failure creating the FFT context not posted",
      oom='fftbloom', expect='s', why='set_caps staging fails first'),
    # ---- supersample
    M('m49', SS, "  trans_class->passthrough_on_same_caps = TRUE;",
      "  trans_class->passthrough_on_same_caps = FALSE;",
      "supersample: no passthrough on equal caps",
      {'supersample': ['test_passthrough_on_equal_caps']}, expect='k'),
    M('m50', SS, """    if (err)
      return err;
  }
  return 0;""", """  }
  return 0;""",
      "supersample: a plane's kernel error ignored",
      {'supersample': ['test_caps_changes']}, expect='s',
      why='no test makes a kernel fail'),
]
BY_ID = {m.id: m for m in MUTANTS}
# run first: their kills show that the set-up works
CONTROLS = ['m25', 'm33']


def die(msg):
    sys.exit('glue.py: ' + msg)


# ------------------------------------------------------------------ check

def registered_tests(root):
    out = {}
    for prog, files in TEST_SOURCES.items():
        names = set()
        for f in files:
            names |= set(re.findall(r'tcase_add_test\s*\(\s*\w+\s*,\s*(\w+)',
                                    open(os.path.join(root, f)).read()))
        out[prog] = names
    return out


def cmd_check(args):
    root = os.path.abspath(args.src)
    bad = 0
    tests = registered_tests(root)
    for m in MUTANTS:
        text = open(os.path.join(root, m.file)).read()
        n = text.count(m.old)
        if n != 1 or m.old == m.new:
            print('%s: search string found %d times in %s' % (m.id, n, m.file))
            bad += 1
        for prog, names in m.tests.items():
            for t in names:
                if prog not in tests or t not in tests[prog]:
                    print('%s: %s is not a test of check-cuda%s' % (m.id, t, prog))
                    bad += 1
        if m.oom and OOM_TEST not in tests.get(m.oom, ()):
            print('%s: check-cuda%s has no %s' % (m.id, m.oom, OOM_TEST))
            bad += 1
    print('%d mutants, %d problems (%s)' % (len(MUTANTS), bad, root))
    return 1 if bad else 0


def cmd_list(args):
    for m in MUTANTS:
        sel = '; '.join('%s: %s' % (p, ','.join(t)) for p, t in m.tests.items())
        if m.oom:
            sel = 'OOM only: %s' % m.oom
        print('%s %s %-45s %s%s' % (m.id, m.expect, sel, m.desc,
                                    ' [2 GPUs]' if m.gpus > 1 else ''))
    return 0


# ------------------------------------------------------------------ deltas
# A stripped mutant differs from the base plugin in a few sections, and
# there mostly by displacements: each section is stored as the base's where
# equal, else as a common prefix, inserted bytes and the rest XORed with the
# base's section aligned at its end (sparse, so xz packs it small).

def elf_sections(data):
    assert data[:4] == b'\x7fELF' and data[4] == 2, 'not ELF64'
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    hdrs = [struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize)
            for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    out = {}
    for name, typ, _fl, _addr, off, size in hdrs:
        if typ == 8 or size == 0:            # NOBITS
            continue
        n = data[stro + name:data.index(b'\0', stro + name)].decode()
        out[n] = (off, size)
    return out


def _xor(a, b):
    return (int.from_bytes(a, 'little') ^ int.from_bytes(b, 'little')).to_bytes(len(a), 'little')


def _prefix(a, b):
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def delta_make(base, new):
    bs, ns = elf_sections(base), elf_sections(new)
    ops, lit = [], bytearray()

    def L(a, b):
        if b > a:
            ops.append(['L', len(lit), b - a])
            lit.extend(new[a:b])

    def Bop(off, n):
        if n <= 0:
            return
        if ops and ops[-1][0] == 'B' and ops[-1][1] + ops[-1][2] == off:
            ops[-1][2] += n
        else:
            ops.append(['B', off, n])
    pos = 0
    for name, (off, size) in sorted(ns.items(), key=lambda kv: kv[1][0]):
        if off < pos:
            continue
        L(pos, off)
        pos = off + size
        if name not in bs:
            L(off, off + size)
            continue
        bo, bsz = bs[name]
        a, b = new[off:off + size], base[bo:bo + bsz]
        if a == b:
            Bop(bo, size)
            continue
        p = _prefix(a, b)
        Bop(bo, p)
        d = size - bsz
        q = p + max(d, 0)                      # a[q:] aligns with b[q - d:]
        L(off + p, off + q)
        if q < size:
            ops.append(['X', bo + q - d, len(lit), size - q])
            lit.extend(_xor(a[q:], b[q - d:]))
    L(pos, len(new))
    hdr = {'base_sha256': hashlib.sha256(base).hexdigest(),
           'new_sha256': hashlib.sha256(new).hexdigest(), 'size': len(new),
           'ops': ops}
    h = json.dumps(hdr).encode()
    return b'SODELTA2' + struct.pack('<Q', len(h)) + h + bytes(lit)


def delta_apply(base, delta):
    if delta[:8] != b'SODELTA2':
        raise ValueError('not a delta')
    n, = struct.unpack_from('<Q', delta, 8)
    hdr = json.loads(delta[16:16 + n])
    lit = delta[16 + n:]
    if hashlib.sha256(base).hexdigest() != hdr['base_sha256']:
        raise ValueError('the base is not the plugin this delta was made against')
    out = bytearray()
    for op in hdr['ops']:
        if op[0] == 'B':
            out += base[op[1]:op[1] + op[2]]
        elif op[0] == 'L':
            out += lit[op[1]:op[1] + op[2]]
        else:
            out += _xor(lit[op[2]:op[2] + op[3]], base[op[1]:op[1] + op[3]])
    if len(out) != hdr['size'] or hashlib.sha256(out).hexdigest() != hdr['new_sha256']:
        raise ValueError('the result does not match its checksum')
    return bytes(out)


# ------------------------------------------------------------------ build

def sha256_file(path):
    return hashlib.sha256(open(path, 'rb').read()).hexdigest()


def link_command(build):
    # -s: the final command only (the link), not the chain before it
    out = subprocess.run(['ninja', '-C', build, '-t', 'commands', '-s', PLUGIN],
                         capture_output=True, text=True, check=True).stdout
    lines = [l for l in out.splitlines() if l.strip()]
    return shlex.split(lines[-1])


def mirror(src_root, build, rel_build, work, mfile, mtext, obj):
    """A tree under @work where the compile and link commands, run as they
    are (same relative paths, so the same __FILE__ strings and the same
    binary), see the mutated copy of @mfile and write their outputs here:
    everything else is a symlink into the source tree and the build."""
    root = os.path.join(work, 'root')
    os.makedirs(root)
    for e in os.listdir(src_root):
        if e not in ('gst', rel_build.split('/')[0]):
            os.symlink(os.path.join(src_root, e), os.path.join(root, e))
    os.makedirs(os.path.join(root, 'gst'))
    for e in os.listdir(os.path.join(src_root, 'gst')):
        dst = os.path.join(root, 'gst', e)
        if 'gst/' + e == mfile:
            open(dst, 'w').write(mtext)
        else:
            os.symlink(os.path.join(src_root, 'gst', e), dst)
    bdir = os.path.join(root, rel_build)
    os.makedirs(os.path.join(bdir, 'gst', 'libgstcudaimaging.so.p'))
    for e in os.listdir(build):
        if e != 'gst':
            os.symlink(os.path.join(build, e), os.path.join(bdir, e))
    for e in os.listdir(os.path.join(build, 'gst')):
        if e not in ('libgstcudaimaging.so.p', 'libgstcudaimaging.so'):
            os.symlink(os.path.join(build, 'gst', e), os.path.join(bdir, 'gst', e))
    pdir = os.path.join(build, 'gst', 'libgstcudaimaging.so.p')
    for e in os.listdir(pdir):
        if e.endswith('.o') and e != obj:
            os.symlink(os.path.join(pdir, e),
                       os.path.join(bdir, 'gst', 'libgstcudaimaging.so.p', e))
    return bdir


def build_one(m, ctx, outdir):
    """Builds, strips and returns the path of mutant @m's plugin (m None:
    m00, the unmutated plugin built the same way)."""
    mid = m.id if m else 'm00'
    mfile = m.file if m else F
    text = open(os.path.join(ctx['src'], mfile)).read()
    if m:
        if text.count(m.old) != 1:
            raise RuntimeError('%s: search string not found once' % mid)
        text = text.replace(m.old, m.new)
    work = os.path.join(outdir, 'work', mid)
    shutil.rmtree(work, ignore_errors=True)
    obj = os.path.basename(mfile) + '.o'
    bdir = mirror(ctx['src'], ctx['build'], ctx['rel_build'], work, mfile, text, obj)
    log = open(os.path.join(outdir, 'logs', mid + '.txt'), 'w')
    cc = [a.replace('-fdiagnostics-color=always', '-fdiagnostics-color=never')
          for a in ctx['compile'][mfile]]
    # the debug info names the directories: the build's own, so that the
    # build-id (a hash over everything, debug info too) is the build's
    cc.insert(1, '-fdebug-prefix-map=%s=%s' % (os.path.join(work, 'root'),
                                                ctx['src_root']))
    for argv in (cc, ctx['link']):
        log.write('$ ' + shlex.join(argv) + '\n')
        log.flush()
        r = subprocess.run(argv, cwd=bdir, stdout=log, stderr=subprocess.STDOUT)
        if r.returncode:
            raise RuntimeError('%s: %s failed (see logs/%s.txt)' % (mid, argv[0], mid))
    so_dir = os.path.join(outdir, 'so', mid)
    os.makedirs(so_dir, exist_ok=True)
    so = os.path.join(so_dir, 'libgstcudaimaging.so')
    subprocess.run(['strip', '--strip-debug', '-o', so,
                    os.path.join(bdir, PLUGIN)], check=True)
    shutil.rmtree(work)
    return so


def cmd_build(args):
    build = os.path.abspath(args.build_dir)
    outdir = os.path.abspath(args.outdir)
    base_so = os.path.join(build, PLUGIN)
    cc = json.load(open(os.path.join(build, 'compile_commands.json')))
    compile_ = {}
    src_root = None
    for e in cc:
        path = os.path.normpath(os.path.join(e['directory'], e['file']))
        if '/gst/' not in path or 'libgstcudaimaging.so.p' not in e.get('command', ''):
            continue
        root = path[:path.rindex('/gst/')]
        src_root = src_root or root
        argv = e.get('arguments') or shlex.split(e['command'])
        compile_['gst/' + os.path.basename(path)] = argv
    if not src_root:
        die('no plugin sources in %s/compile_commands.json' % build)
    src = os.path.abspath(args.src) if args.src else src_root
    rel_build = os.path.relpath(build, src_root)
    if rel_build.startswith('..') or '/' in rel_build:
        die('the build directory must be a child of the source tree (%s)' % src_root)
    ctx = {'src': src, 'src_root': src_root, 'build': build, 'rel_build': rel_build,
           'compile': compile_, 'link': link_command(build)}
    want = args.only.split(',') if args.only else ['m00'] + [m.id for m in MUTANTS]
    for w in want:
        if w != 'm00' and w not in BY_ID:
            die('no mutant %s' % w)
    os.makedirs(os.path.join(outdir, 'logs'), exist_ok=True)
    sos, errors = {}, []
    lock = threading.Lock()
    queue = list(want)

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                w = queue.pop(0)
            t0 = time.time()
            try:
                so = build_one(BY_ID.get(w), ctx, outdir)
                with lock:
                    sos[w] = so
                    print('%s built (%.0f s)' % (w, time.time() - t0), flush=True)
            except Exception as ex:            # noqa: report all, pack the rest
                with lock:
                    errors.append(str(ex))
                    print(ex, flush=True)
    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # m00 must be the build's own plugin once both are stripped: else the
    # mirror compiled something else, and no verdict would mean anything
    if 'm00' in sos:
        ref = os.path.join(outdir, 'base-stripped.so')
        subprocess.run(['strip', '--strip-debug', '-o', ref, base_so], check=True)
        same = sha256_file(ref) == sha256_file(sos['m00'])
        os.remove(ref)
        print('m00 %s the build\'s plugin (both stripped)' %
              ('equals' if same else 'DIFFERS FROM'))
        if not same:
            errors.append('m00 differs from the build')
    base = open(base_so, 'rb').read()
    manifest = {'base_sha256': hashlib.sha256(base).hexdigest(),
                'mutants_sha256': mutants_digest(), 'plugins': {}}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as tar:
        for w in sorted(sos):
            data = open(sos[w], 'rb').read()
            d = delta_make(base, data)
            assert delta_apply(base, d) == data
            manifest['plugins'][w] = hashlib.sha256(data).hexdigest()
            info = tarfile.TarInfo('deltas/%s.delta' % w)
            info.size = len(d)
            tar.addfile(info, io.BytesIO(d))
        mj = json.dumps(manifest, indent=1).encode()
        info = tarfile.TarInfo('manifest.json')
        info.size = len(mj)
        tar.addfile(info, io.BytesIO(mj))
    pack = os.path.join(outdir, 'mutants.tar.xz')
    open(pack, 'wb').write(lzma.compress(buf.getvalue(), preset=9))
    print('%s: %d plugins, %.1f MB; base %s sha256 %s' % (
        pack, len(sos), os.path.getsize(pack) / 1e6, base_so,
        manifest['base_sha256'][:16]))
    for e in errors:
        print('error: ' + e)
    return 1 if errors else 0


def mutants_digest():
    # the table the pack was built from; run warns when it is not this one
    h = hashlib.sha256()
    for m in MUTANTS:
        h.update(repr((m.id, m.file, m.old, m.new)).encode())
    return h.hexdigest()


# ------------------------------------------------------------------ run

def env_num(name, default):
    v = os.environ.get(name)
    return float(v) if v else default


def rebuild_plugin(job):
    base_so, mut, mid = job
    try:
        data = delta_apply(open(base_so, 'rb').read(),
                           open(os.path.join(mut, 'deltas', mid + '.delta'), 'rb').read())
    except ValueError as ex:
        return mid, str(ex)
    os.makedirs(os.path.join(mut, 'so', mid))
    open(os.path.join(mut, 'so', mid, 'libgstcudaimaging.so'), 'wb').write(data)
    return mid, None


class Runner:
    def __init__(self):
        self.root = os.getcwd()
        self.out = os.environ.get('OUT') or die('set OUT to the directory whose contents come back')
        self.t0 = env_num('START_EPOCH', time.time())
        self.deadline = env_num('DEADLINE', 330)
        self.oom_deadline = env_num('OOM_DEADLINE', 400)
        self.hard_end = env_num('HARD_END', 440)
        self.per_timeout = env_num('PER_TIMEOUT', 60)
        # no run is started with less time left than this before HARD_END
        self.min_run = min(env_num('MIN_RUN', 8), self.per_timeout)
        self.jobs = int(env_num('JOBS', 1))
        if self.jobs > 2:
            print('JOBS=%d: the element checks share one GPU and slow each other '
                  'down (4 at once: each ~4x slower); using 2' % self.jobs)
            self.jobs = 2
        self.runner = os.environ.get('RUNNER', os.path.join(self.root, '.gpu/run'))
        self.bin_dir = os.environ.get('BIN_DIR', os.path.join(self.root, 'build-gpu/tests'))
        self.pack = os.environ.get('PACK', os.path.join(self.root, 'build-carry/mut/mutants.tar.xz'))
        self.mut = os.environ.get('MUT_DIR', '/tmp/mut-kit')
        self.base_so = os.environ.get('BASE_SO', os.path.join(self.root, 'build-gpu', PLUGIN))
        self.lock = threading.Lock()
        os.makedirs(os.path.join(self.out, 'log'), exist_ok=True)
        self.results = os.path.join(self.out, 'results.tsv')
        open(self.results, 'w').close()

    def now(self):
        return time.time() - self.t0

    def log(self, *a):
        with self.lock:
            print('[%4.0fs] %s' % (self.now(), ' '.join(map(str, a))), flush=True)

    def unpack(self):
        shutil.rmtree(self.mut, ignore_errors=True)
        os.makedirs(self.mut)
        with tarfile.open(self.pack, 'r:xz') as tar:
            tar.extractall(self.mut)
        man = json.load(open(os.path.join(self.mut, 'manifest.json')))
        if man['mutants_sha256'] != mutants_digest():
            self.log('warning: the pack was built from another mutant table')
        base = open(self.base_so, 'rb').read()
        if hashlib.sha256(base).hexdigest() != man['base_sha256']:
            die('%s is not the plugin the pack was built against: unpack '
                'build-carry/b.tar.xz (the same build) first' % self.base_so)
        # one process per core: 51 plugins of 32 MB each to rebuild and hash
        with concurrent.futures.ProcessPoolExecutor(min(8, os.cpu_count() or 1)) as ex:
            done = list(ex.map(rebuild_plugin, [(self.base_so, self.mut, mid)
                                                for mid in sorted(man['plugins'])]))
        have = [mid for mid, err in done if not err]
        for mid, err in done:
            if err:
                self.log('%s: %s' % (mid, err))
        self.log('%d plugins rebuilt from %s' % (len(have), self.pack))
        return set(have)

    def env(self):
        # tests/meson.build's cuda_check_env, less what is set per run
        shared = os.path.join(self.root, 'shared/data')
        if not os.path.isdir(shared):
            shared = os.path.join(self.root, '../shared/data')
        return {'GST_PLUGIN_LOADING_WHITELIST': '', 'CK_DEFAULT_TIMEOUT': '300',
                'CI_TEST_DATA': os.path.join(self.root, 'tests/data'),
                'CI_SHARED_DATA': shared,
                'CI_SGM_DATA': os.path.join(self.root, 'tests/sgm/data'),
                'CK_FORK': 'no', 'CI_REQUIRE_GPU': '1', 'CI_REQUIRE_CUDAUPLOAD': '1',
                'CK_VERBOSITY': 'verbose'}

    def run_one(self, mid, prog, tests, phase):
        """One program of one mutant; its line appended to results.tsv."""
        left = self.hard_end - self.now()
        tmo = min(self.per_timeout, left)
        label = prog + ('-oom' if phase == 'oom' else '')
        if tmo < self.min_run:
            self.record(mid, label, 'skipped', 0, tests, '-')
            return None
        reg = os.path.join(self.mut, 'reg-%s.bin' % mid)
        seed = os.path.join(self.mut, 'reg-m00.bin')
        # a fresh registry per mutant would rescan every plugin of the
        # bundle (nvcodec's probes the GPU); from m00's only ours is new
        if mid != 'm00' and not os.path.exists(reg) and os.path.exists(seed) \
                and os.environ.get('REG_SEED', '1') != '0':
            shutil.copy(seed, reg)
        env = dict(self.env(), GST_PLUGIN_PATH_1_0=os.path.join(self.mut, 'so', mid),
                   GST_REGISTRY_1_0=reg, GST_CHECKS=','.join(tests))
        # after the wrapper: it sets GST_REGISTRY_1_0 itself
        argv = [self.runner, 'env'] + ['%s=%s' % kv for kv in sorted(env.items())] + \
            [os.path.join(self.bin_dir, prog, 'check-cuda' + prog)]
        logf = os.path.join(self.out, 'log', '%s-%s.txt' % (mid, label))
        t1 = time.time()
        with open(logf, 'w') as lf:
            p = subprocess.Popen(argv, stdout=lf, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                rc = p.wait(timeout=tmo)
            except subprocess.TimeoutExpired:
                # the whole group: the wrapper execs, but a test may fork
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
                rc = 'timeout'
        secs = time.time() - t1
        text = open(logf, errors='replace').read()
        # check's failure lines: file:line:F|E:tcase:test:iteration: message
        failed = sorted(set(re.findall(r'^[^:\n]+:\d+:[EF]:[^:\n]*:(\w+):', text, re.M)))
        if rc == 'timeout':
            failed.append('TIMEOUT')
        elif rc < 0:
            failed.append('SIG%d' % -rc)
        self.record(mid, label, rc, secs, tests, ','.join(failed) or '-')
        return rc

    def record(self, mid, label, rc, secs, tests, failed):
        with self.lock:
            with open(self.results, 'a') as f:
                f.write('%s\t%s\t%s\t%.1f\t%s\t%s\n' % (mid, label, rc, secs,
                                                        ','.join(tests), failed))

    def main(self):
        have = self.unpack() if not os.environ.get('NO_UNPACK') else \
            set(os.listdir(os.path.join(self.mut, 'so')))
        if 'm00' not in have:
            die('no m00 in the pack')
        two = os.environ.get('TWO_GPU') == '1'
        chosen = os.environ.get('MUTANTS', '').split()
        ms = [BY_ID[i] for i in chosen] if chosen else \
            [BY_ID[i] for i in CONTROLS] + [m for m in MUTANTS if m.id not in CONTROLS]
        ms = [m for m in ms if m.id in have and (two or m.gpus == 1)]
        main_ms = [m for m in ms if m.tests]
        oom_ms = [m for m in ms if m.oom]
        # the wrapper makes its origin link on first use: once, here
        subprocess.run([self.runner, 'true'])
        if not os.environ.get('SKIP_MAIN'):
            union = {}
            for m in main_ms:
                for prog, tests in m.tests.items():
                    union.setdefault(prog, set()).update(tests)
            jobs = [('m00', p, sorted(union[p]), True) for p in PROGRAMS if p in union]
            for m in main_ms:
                first = True
                for p in PROGRAMS:
                    if p in m.tests:
                        jobs.append((m.id, p, m.tests[p], first))
                        first = False
            self.log('main phase: m00, then %d mutants in %d runs, %d at a time; '
                     'none started after %.0f s' % (len(main_ms), len(jobs) - len(union),
                                                   self.jobs, self.deadline))
            self.pool(jobs)
        if not os.environ.get('SKIP_OOM') and oom_ms:
            self.log('out-of-memory phase (one at a time: it takes all GPU memory)')
            progs = [p for p in PROGRAMS if any(m.oom == p for m in oom_ms)]
            for mid, p in [('m00', p) for p in progs] + [(m.id, m.oom) for m in oom_ms]:
                if self.now() >= self.oom_deadline:
                    self.log('OOM deadline: %s and the rest not started' % mid)
                    self.record(mid, p + '-oom', 'skipped', 0, [OOM_TEST], '-')
                    continue
                self.run_one(mid, p, [OOM_TEST], 'oom')
        text = table(self.out)
        open(os.path.join(self.out, 'table.txt'), 'w').write(text)
        print(text)
        self.log('end')
        return 0

    def pool(self, jobs):
        """Runs @jobs ((mutant, program, tests, first of its mutant)) in
        order, self.jobs at a time. m00's runs finish before any mutant's
        (the registry seed); a mutant not started by the deadline is not."""
        lock = threading.Lock()
        late = set()
        m00 = [j for j in jobs if j[0] == 'm00']
        rest = [j for j in jobs if j[0] != 'm00']

        def worker(queue):
            while True:
                with lock:
                    if not queue:
                        return
                    mid, prog, tests, first = queue.pop(0)
                    if mid != 'm00' and (mid in late or (first and self.now() >= self.deadline)):
                        if mid not in late:
                            self.log('deadline: %s not started' % mid)
                        late.add(mid)
                        self.record(mid, prog, 'skipped', 0, tests, '-')
                        continue
                rc = self.run_one(mid, prog, tests, 'main')
                self.log('%s %s: %s' % (mid, prog, rc))
        for queue in (m00, rest):
            threads = [threading.Thread(target=worker, args=(queue,))
                       for _ in range(self.jobs)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()


def cmd_run(args):
    return Runner().main()


# ------------------------------------------------------------------ table

def table(out):
    rows = [l.rstrip('\n').split('\t') for l in open(os.path.join(out, 'results.tsv'))
            if l.strip()]
    res = {}
    for mid, label, rc, secs, tests, failed in rows:
        res.setdefault(mid, {})[label] = (rc, float(secs), tests.split(','), failed)
    base = res.get('m00', {})
    lines = []
    total = sum(v[1] for r in res.values() for v in r.values())
    lines.append('m00 (unmutated): ' + ('; '.join(
        '%s rc=%s %.0fs%s' % (p, v[0], v[1], '' if v[3] == '-' else ' FAILED ' + v[3])
        for p, v in sorted(base.items())) or 'not run'))

    def judge(label, v, tests):
        """'kill', 'pass' or 'unsure' for a mutant's run @v of @label with
        @tests: a failure counts where m00 passed, or in tests m00 did not
        fail; a pass, where m00 passed those tests."""
        b = base.get(label)
        if not b or b[0] == 'skipped':
            return 'unsure'
        bfail = set(b[3].split(',')) - {'-'}
        # m00 crashed, hung, or failed without saying which test
        broken = b[0] != '0' and (b[0] != '1' or not bfail or any(
            x == 'TIMEOUT' or x.startswith('SIG') for x in bfail))
        if v[0] == '0':
            return 'unsure' if broken or bfail & set(tests) else 'pass'
        if b[0] == '0':
            return 'kill'
        if broken:
            return 'unsure'
        mfail = set(v[3].split(',')) - {'-'}
        if v[0] != '1' or mfail - bfail:
            return 'kill'                      # a crash, a hang or a new failure
        return 'unsure'
        if b[0] == '0':
            return 'kill'
        bfail = set(b[3].split(',')) - {'-'}
        if b[0] != '1' or not bfail or any(x == 'TIMEOUT' or x.startswith('SIG')
                                           for x in bfail):
            return 'unsure'                    # m00 crashed, hung or said nothing
        mfail = set(v[3].split(',')) - {'-'}
        if v[0] != '1' or mfail - bfail:
            return 'kill'                      # a crash, a hang or a new failure
        return 'unsure'
    lines.append('')
    lines.append('%-4s %-12s %-3s %-50s %s' % ('id', 'verdict', 'exp', 'killed by (program: failed tests)', 'what'))
    counts = {}
    for m in MUTANTS:
        r = res.get(m.id, {})
        killers, ran, unsure, missing = [], [], [], []
        want = {('%s-oom' % m.oom): [OOM_TEST]} if m.oom else dict(m.tests)
        for label, tests in want.items():
            v = r.get(label)
            if not v or v[0] == 'skipped':
                missing.append(label)
                continue
            ran.append(label)
            j = judge(label, v, tests)
            if j == 'unsure':
                unsure.append(label)
            if j != 'kill':
                continue
            killers.append('%s: %s' % (label, v[3] if v[3] != '-' else 'rc ' + v[0]))
        if killers:
            v = 'killed'
        elif not ran:
            v = 'not run' if m.gpus == 1 else 'not run(2GPU)'
        elif unsure:
            v = 'inconclusive'
        elif missing:
            v = 'partial'
        else:
            v = 'survived'
        counts[v] = counts.get(v, 0) + 1
        surprise = (v == 'killed' and m.expect == 's') or (v == 'survived' and m.expect == 'k')
        lines.append('%-4s %-12s %-3s %-50s %s' % (
            m.id, v, m.expect + ('!' if surprise else ''),
            '; '.join(killers)[:200] or '-', m.desc))
    lines.append('')
    lines.append('  '.join('%s: %d' % kv for kv in sorted(counts.items())) +
                 '   (device time in runs: %.0f s)' % total)
    k, s = counts.get('killed', 0), counts.get('survived', 0)
    if k + s:
        lines.append('mutation score (killed / (killed + survived)): %d/%d = %.0f%%' %
                     (k, k + s, 100.0 * k / (k + s)))
    lines.append('exp: what reading the tests predicted (k killed, s survives); '
                 '"!" marks a surprise. inconclusive: failed where m00 also failed '
                 'those tests; partial: some selected programs did not run.')
    return '\n'.join(lines) + '\n'


def cmd_table(args):
    sys.stdout.write(table(args.out))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('check')
    c.add_argument('--src', default=os.path.normpath(os.path.join(HERE, '../..')))
    c.set_defaults(fn=cmd_check)
    b = sub.add_parser('build')
    b.add_argument('build_dir')
    b.add_argument('outdir')
    b.add_argument('--only', help='comma-separated ids (m00 = unmutated)')
    b.add_argument('--src', help="the sources to mutate (default: the build's)")
    b.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1)
    b.set_defaults(fn=cmd_build)
    sub.add_parser('run').set_defaults(fn=cmd_run)
    t = sub.add_parser('table')
    t.add_argument('out')
    t.set_defaults(fn=cmd_table)
    sub.add_parser('list').set_defaults(fn=cmd_list)
    args = ap.parse_args()
    return args.fn(args)


if __name__ == '__main__':
    sys.exit(main())
