#!/bin/sh
# Disparity of the Middlebury tsukuba pair (bundled in tests/sgm/data) as a
# colour-mapped PNG: the two views are composed side by side, then cpusgm
# (or cudasgm) computes the left view's disparity.
#   pipelines/demo-sgm.sh [cpu|cuda] [output directory]
# SPDX-License-Identifier: LGPL-2.1-or-later
set -e
elem=${1:-cpu}sgm
mkdir -p "${2:-.}"
out=${2:-.}/sgm-tsukuba.png
# written aside and moved into place, so a failed run leaves no empty picture
tmp=$out.part
trap 'rm -f "$tmp"' EXIT
dir=$(dirname "$0")/../tests/sgm/data/tsukuba
gst-launch-1.0 -q \
  compositor name=c sink_1::xpos=384 ! video/x-raw,width=768,height=288 ! \
  videoconvert ! video/x-raw,format=GRAY8 ! \
  "$elem" num-disparities=16 ! video/x-raw,format=RGBx ! \
  videoconvert ! pngenc ! filesink location="$tmp" \
  filesrc location="$dir/im3.png" ! pngdec ! imagefreeze num-buffers=1 ! c.sink_0 \
  filesrc location="$dir/im4.png" ! pngdec ! imagefreeze num-buffers=1 ! c.sink_1
mv "$tmp" "$out"
echo "wrote $out"
