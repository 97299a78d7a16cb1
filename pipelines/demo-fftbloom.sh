#!/bin/sh
# Convolution bloom of the bundled synthetic night scene (docs/img/fftbloom-scene.png)
# with the procedural glare kernel (settings of docs/img/fftbloom-glare.png), by cpufftbloom or cudafftbloom.
#   pipelines/demo-fftbloom.sh [cpu|cuda] [output directory]
# SPDX-License-Identifier: LGPL-2.1-or-later
set -e
elem=${1:-cpu}fftbloom
mkdir -p "${2:-.}"
out=${2:-.}/fftbloom-glare.png
# written aside and moved into place, so a failed run leaves no empty picture
tmp=$out.part
trap 'rm -f "$tmp"' EXIT
src=$(dirname "$0")/../docs/img/fftbloom-scene.png
gst-launch-1.0 -q filesrc location="$src" ! pngdec ! videoconvert ! \
  video/x-raw,format=RGBA ! "$elem" spike-strength=0.3 kernel-size=0.2 intensity=4 \
  threshold=0.5 ! videoconvert ! pngenc ! filesink location="$tmp"
mv "$tmp" "$out"
echo "wrote $out ($elem)"
