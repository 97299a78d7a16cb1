#!/bin/bash
# Robustness sweep of the cuda* elements through gst-launch-1.0, for the GPU
# host: tiny and odd sizes, every tone-map input class, CUDA memory, extreme
# disparity ranges (each must run to EOS), and inputs each element must refuse
# with an error of its own and no crash (interlaced video, frames too large,
# out of GPU memory, a missing device).
#
#   tools/gpu-sweep.sh PLUGIN_DIR [LOG_DIR]
#
# RUN prefixes every gst-launch-1.0 (e.g. RUN=.gpu/run on the device host).
# Prints one line per failure and a summary; exits 1 if anything failed.
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u
PLUGINS=${1:?usage: $0 PLUGIN_DIR [LOG_DIR]}
LOG=${2:-${TMPDIR:-/tmp}/gpu-sweep}
mkdir -p "$LOG"
export GST_PLUGIN_PATH_1_0=$PLUGINS GST_REGISTRY_1_0=$LOG/registry.bin
RUN=${RUN:-}
n=0 failed=0
: > "$LOG/failures.txt"

# A hung pipeline's threads: their kernel wait channels and system calls
# (futex: a lock; ioctl: the driver) and, where the host has gdb, their
# backtraces. One refusal hung once in some 1800 runs (2026-11-29) and left
# nothing but its timeout behind.
hang_report () {
  local pid=$1 t
  shift
  echo "== $(date -u '+%F %T') pid $pid: gst-launch-1.0 $*"
  for t in /proc/"$pid"/task/*; do
    echo "thread ${t##*/} $(cat "$t/comm" 2>/dev/null): wchan" \
      "$(cat "$t/wchan" 2>/dev/null), syscall $(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
  done
  if command -v gdb > /dev/null; then
    timeout 60 gdb -q -batch -p "$pid" -ex 'thread apply all bt' 2>&1 | tail -300
  fi
}

# launch PIPELINE...: gst-launch-1.0 -q with a limit of SWEEP_TIMEOUT seconds
# (120); sets out (stdout and stderr) and rc (124 past the limit, after
# hang_report into $LOG/hang.N.txt).
launch () {
  local pid timer done_pid st
  $RUN gst-launch-1.0 -q "$@" > "$LOG/out.txt" 2>&1 &
  pid=$!
  sleep "${SWEEP_TIMEOUT:-120}" &
  timer=$!
  wait -n -p done_pid "$pid" "$timer"
  st=$?
  if [ "$done_pid" = "$pid" ]; then
    rc=$st
    kill "$timer" 2> /dev/null
    wait "$timer" 2> /dev/null
  else
    hang_report "$pid" "$@" > "$LOG/hang.$n.txt" 2>&1
    kill -KILL "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    rc=124
  fi
  out=$(cat "$LOG/out.txt")
}

# expect ok|refuse PIPELINE...: ok = exit 0; refuse = a non-zero exit with an
# ERROR (or a refused link) and no crash. Either way no CRITICAL or signal.
expect () {
  local want=$1; shift
  n=$((n + 1))
  local out rc
  launch "$@"
  local bad=
  if echo "$out" | grep -q "CRITICAL\|Segmentation\|Aborted\|SIGSEGV"; then
    bad="crash or CRITICAL"
  elif [ $rc -eq 124 ] || { [ $rc -gt 128 ] && [ $rc -lt 255 ]; }; then
    # (255 is gst-launch's own "could not start": not a signal)
    bad="timeout or signal (rc $rc)"
  elif [ "$want" = ok ] && [ $rc -ne 0 ]; then
    bad="failed (rc $rc)"
  elif [ "$want" = refuse ] && [ $rc -eq 0 ]; then
    bad="was not refused"
  elif [ "$want" = refuse ] && ! echo "$out" | grep -q "^ERROR\|could not link"; then
    bad="refused without an error (rc $rc)"
  fi
  if [ -n "$bad" ]; then
    failed=$((failed + 1))
    { echo "FAIL ($bad): $*"; echo "$out" | tail -4
      [ $rc -eq 124 ] && echo "(threads: $LOG/hang.$n.txt)"; } >> "$LOG/failures.txt"
    echo "FAIL ($bad): $*"
  fi
}

for s in 1x1 2x1 1x2 3x3 5x1 1x7 17x3 33x31; do
  w=${s%x*} h=${s#*x}
  for f in P010_10LE I420_10LE RGBA64_LE Y444_16LE BGR10A2_LE; do
    for of in BGRx NV12; do
      for op in histogram bt2390; do
        expect ok videotestsrc num-buffers=3 ! video/x-raw,width=$w,height=$h,format=$f ! \
          cudatonemap operator=$op ! video/x-raw,format=$of ! fakesink
      done
    done
  done
  expect ok videotestsrc num-buffers=3 ! video/x-raw,width=$w,height=$h,format=P010_10LE ! \
    cudaupload ! cudatonemap ! "video/x-raw(memory:CUDAMemory),format=NV12" ! cudadownload ! fakesink
  for f in RGBA BGRx RGBA64_LE; do
    expect ok videotestsrc num-buffers=2 ! video/x-raw,width=$w,height=$h,format=$f ! \
      cudafftbloom ! fakesink
    expect ok videotestsrc num-buffers=2 ! video/x-raw,width=$w,height=$h,format=$f ! \
      cudafftbloom kernel-size=2 resolution-scale=quarter ! fakesink
  done
  for f in RGBA I420 NV12 GRAY8; do
    expect ok videotestsrc num-buffers=2 ! video/x-raw,width=$((w * 2)),height=$h,format=$f ! \
      cudasgm num-disparities=1024 min-disparity=-1024 lr-max-diff=0 ! video/x-raw,format=RGBA ! fakesink
    expect ok videotestsrc num-buffers=2 ! video/x-raw,width=$((w * 2)),height=$h,format=$f ! \
      cudasgm num-disparities=1 paths=4 ! video/x-raw,format=GRAY16_LE ! fakesink
  done
  expect ok videotestsrc num-buffers=2 ! video/x-raw,width=$((w * 2)),height=$h,format=NV12 ! \
    cudaupload ! cudasgm num-disparities=270 ! "video/x-raw(memory:CUDAMemory),format=RGBA" ! \
    cudadownload ! fakesink
  expect ok videotestsrc num-buffers=2 ! video/x-raw,width=$((w * 3)),height=$((h * 3)) ! \
    cudasupersample ! video/x-raw,width=$w,height=$h ! fakesink
  expect ok videotestsrc num-buffers=2 ! video/x-raw,width=$w,height=$h ! \
    cudasupersample ! video/x-raw,width=1,height=1 ! fakesink
done

# what each element must refuse
for m in interleaved mixed; do
  expect refuse videotestsrc num-buffers=2 ! video/x-raw,width=64,height=32,format=P010_10LE,interlace-mode=$m ! \
    cudatonemap ! fakesink
  expect refuse videotestsrc num-buffers=2 ! video/x-raw,width=64,height=32,format=RGBA,interlace-mode=$m ! \
    cudasgm ! fakesink
  expect refuse videotestsrc num-buffers=2 ! video/x-raw,width=64,height=32,format=RGBA,interlace-mode=$m ! \
    cudafftbloom ! fakesink
  expect refuse videotestsrc num-buffers=2 ! video/x-raw,width=64,height=32,format=RGBA,interlace-mode=$m ! \
    cudasupersample ! video/x-raw,width=32,height=16 ! fakesink
done
# formats an element does not take fail at linking
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=64,height=32,format=NV12 ! cudafftbloom ! fakesink
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=64,height=32,format=RGBA ! cudatonemap ! fakesink
# upscaling is not offered
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=64,height=32 ! cudasupersample ! \
  video/x-raw,width=128,height=64 ! fakesink
# an FFT grid past 32 bits (frames stay under 2^31 bytes: videotestsrc itself
# crashes above that), a side past 2^20
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=23000,height=23000,format=RGBx ! \
  cudafftbloom kernel-size=1 ! fakesink
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=2097152,height=1,format=RGBx ! \
  cudafftbloom kernel-size=0.001 ! fakesink
# taller than 8 x 65535 rows (the launches' grid height), and just under it
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=2,height=600000,format=RGBx ! \
  cudafftbloom kernel-size=0.001 ! fakesink
expect ok videotestsrc num-buffers=1 ! video/x-raw,width=2,height=300000,format=RGBx ! \
  cudafftbloom kernel-size=0.001 ! fakesink
# very tall frames: outputs over 65,535 blocks of rows run in bands
expect ok videotestsrc num-buffers=1 ! video/x-raw,width=64,height=1200000,format=GRAY8 ! \
  cudasupersample ! video/x-raw,width=32,height=600000 ! fakesink
expect ok videotestsrc num-buffers=1 ! video/x-raw,width=53,height=600001,format=GRAY8 ! \
  cudasupersample ! video/x-raw,width=40,height=600001 ! fakesink
expect ok videotestsrc num-buffers=1 ! video/x-raw,width=400,height=700000,format=RGBA ! \
  cudasupersample ! video/x-raw,width=200,height=600000 ! fakesink
# sources over 2^24 rows (the general kernel; the tiled ones can overrun shared memory
# there); GStreamer refuses frames whose 128-aligned rows pass 2^32 bytes (~33.5 M rows)
expect ok videotestsrc num-buffers=1 ! video/x-raw,width=1,height=30000000,format=GRAY8 ! \
  cudasupersample ! video/x-raw,width=1,height=28000000 ! fakesink
# out of GPU memory in every SGM layout (compact: 3 x 8192 x 8192 x 1024 bytes)
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=16384,height=8192,format=GRAY8 ! \
  cudasgm num-disparities=1024 ! video/x-raw,format=GRAY16_LE ! fakesink
# no such device
expect refuse videotestsrc num-buffers=1 ! video/x-raw,width=64,height=64 ! cudasgm cuda-device-id=7 ! fakesink

echo "gpu-sweep: $n pipelines, $failed failed (details: $LOG/failures.txt)"
[ $failed -eq 0 ]
