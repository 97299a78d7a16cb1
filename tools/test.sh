#!/bin/sh
# Install what is missing, build everything (CUDA too when the toolkit is there), run all tests.
# GPU tests skip (exit 77) where no CUDA device is present.
set -e
cd "$(dirname "$0")/.."
./tools/install-deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
build=${BUILD_DIR:-build}
[ -d "$build" ] || meson setup "$build"
ninja -C "$build"
meson test -C "$build" --print-errorlogs --num-processes 2
