#!/bin/sh
# Pack a build for the device tool (see /work/.library/device): the build
# directory without objects and static libraries, xz-compressed into
# build-carry/ (ignored, as build* is), and the GStreamer runtime into .gpu/
# by ../shared/gpu/bundle.sh. A CUDA build is ~130 MB, over the 64 MiB that
# travels; packed it is ~30 MB. Then run there, carrying [".gpu", "build-carry"]:
#   tar xJf build-carry/b.tar.xz && OUT=$OUT tools/gpu-check.sh BUILD_DIR
# SPDX-License-Identifier: LGPL-2.1-or-later
set -e
cd "$(dirname "$0")/.."
b=${1:?usage: $0 BUILD_DIR}
mkdir -p build-carry
tar --exclude='*.o' --exclude='*.a' --exclude='*.p' --exclude='bench-sgm-fused' \
  -cf - "$b" | xz -T2 -6 > build-carry/b.tar.xz
../shared/gpu/bundle.sh "$b" >/dev/null
du -sh build-carry .gpu
