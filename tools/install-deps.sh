#!/bin/sh
# Installs what a fresh Debian 12 lacks to build and test gst-cuda-imaging.
# The CUDA 13 toolkit is optional (/usr/local/cuda); without it only the cpu* elements build.
set -e
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  pkgs="build-essential pkg-config meson ninja-build libgstreamer1.0-dev
    libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools
    gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
    libfftw3-dev libpng-dev valgrind"
  missing=""
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $missing
  fi
fi
