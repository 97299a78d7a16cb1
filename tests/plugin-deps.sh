#!/bin/sh
# The plugin must load where the CUDA toolkit is not installed (the driver
# gives libcuda, which GStreamer opens itself): it may link no toolkit
# library dynamically. SPDX-License-Identifier: LGPL-2.1-or-later
set -eu
plugin=$1
needed=$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || { echo "no NEEDED entries read from $plugin"; exit 1; }
echo "$needed"
bad=$(echo "$needed" | grep -E '^lib(cuda|cudart|cufft|npp|nvrtc|nvJitLink|cublas|curand)' || true)
if [ -n "$bad" ]; then
  echo "links CUDA toolkit libraries: $bad"
  exit 1
fi
# nor leave their symbols to be found at run time (the plugin links without
# --no-undefined; a cuFFT call past kernels/cicufft.c's forwarders would
# fail only when reached)
undef=$(nm -D --undefined-only "$plugin" |
  grep -E ' (cufft|cuda[A-Z]|npp|nvrtc|nvJitLink|cublas|curand)' || true)
if [ -n "$undef" ]; then
  echo "undefined CUDA toolkit symbols: $undef"
  exit 1
fi
