#!/bin/sh
# Install what is missing, build, and run the demo on bundled data. Pictures go to demo-out/.
# Uses the cuda* elements where a CUDA device is present, the cpu* twins otherwise, and says which.
set -e
cd "$(dirname "$0")/.."
./tools/install-deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
build=${BUILD_DIR:-build}
[ -d "$build" ] || meson setup "$build"
ninja -C "$build"
export GST_PLUGIN_PATH="$PWD/$build/gst"
out=demo-out
mkdir -p "$out"
kind=cpu
if gst-launch-1.0 -q videotestsrc num-buffers=1 ! video/x-raw,width=64,height=64 ! \
    cudasupersample ! fakesink >/dev/null 2>&1; then kind=cuda; fi
if [ $kind = cuda ]; then echo "demo: CUDA device found: using the cuda* elements"
else echo "demo: no CUDA device: using the cpu* twins (same output)"; fi

# Supersampling vs videoscale's default on a zone plate: aliasing avoided.
gst-launch-1.0 -q videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=1 ! \
  video/x-raw,format=RGBA,width=1920,height=1080 ! ${kind}supersample ! \
  video/x-raw,width=480,height=270 ! pngenc ! filesink location=$out/supersample.png
gst-launch-1.0 -q videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=1 num-buffers=1 ! \
  video/x-raw,format=RGBA,width=1920,height=1080 ! videoscale ! \
  video/x-raw,width=480,height=270 ! pngenc ! filesink location=$out/videoscale.png
echo "demo: wrote $out/supersample.png (${kind}supersample) and $out/videoscale.png"
for step in pipelines/demo-*.sh; do
  [ -f "$step" ] && sh "$step" $kind "$out"
done
echo "demo: done"
