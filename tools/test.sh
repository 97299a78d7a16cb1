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
rc=0
meson test -C "$build" --print-errorlogs --num-processes 2 || rc=$?
# One plain summary line (meson's own summary is a table).
log="$build/meson-logs/testlog.json"
if [ -f "$log" ]; then
  ok=$(grep -c '"result": "OK"' "$log" || true)
  bad=$(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
  skip=$(grep -c '"result": "SKIP"' "$log" || true)
  echo "$ok passed, $bad failed, $skip skipped"
fi
exit $rc
