#!/bin/sh
# HDR -> SDR: the bundled synthetic HDR10 still (16-bit PNG holding PQ-encoded
# BT.2020 light, docs/tonemap.md) tone-mapped by cputonemap or cudatonemap.
#   pipelines/demo-tonemap.sh [cpu|cuda] [output directory]
# SPDX-License-Identifier: LGPL-2.1-or-later
set -e
elem=${1:-cpu}tonemap
mkdir -p "${2:-.}"
out=${2:-.}/tonemap-sdr.png
# written aside and moved into place, so a failed run leaves no empty picture
tmp=$out.part
trap 'rm -f "$tmp"' EXIT
src=$(dirname "$0")/../docs/img/tonemap-scene-pq16.png
gst-launch-1.0 -q filesrc location="$src" ! pngdec ! videoconvert ! \
  video/x-raw,format=RGBA64_LE ! capssetter caps="video/x-raw,colorimetry=bt2100-pq" ! \
  "$elem" smoothing=0 ! videoconvert ! pngenc ! filesink location="$tmp"
mv "$tmp" "$out"
echo "wrote $out ($elem)"
