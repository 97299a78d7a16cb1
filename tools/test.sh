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
logs="$build/meson-logs/testlog.json"
# The cpu* element checks once more under valgrind (memory errors, leaks).
if command -v valgrind >/dev/null; then
  rm -f "$build/meson-logs/valgrind-valgrind.json"
  meson test -C "$build" --setup valgrind --suite elements --no-suite gpu \
    --logbase valgrind --print-errorlogs --num-processes 2 || rc=$?
  logs="$logs $build/meson-logs/valgrind-valgrind.json"
fi
# The CPU code once more under AddressSanitizer and UndefinedBehaviorSanitizer
# (stack and global overflows, misaligned or overflowing arithmetic, which
# valgrind does not see): a CPU-only build, the plugin loaded in-process.
asan=${build}-asan
[ -d "$asan" ] || meson setup "$asan" -Dcuda=disabled \
  -Db_sanitize=address,undefined -Db_lundef=false
ninja -C "$asan"
rm -f "$asan/meson-logs/testlog.json"
GST_REGISTRY_FORK=no ASAN_OPTIONS=detect_leaks=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C "$asan" --print-errorlogs --num-processes 2 \
  --timeout-multiplier 5 || rc=$?
logs="$logs $asan/meson-logs/testlog.json"
# One plain summary line (meson's own summary is a table).
ok=0; bad=0; skip=0
for log in $logs; do
  [ -f "$log" ] || continue
  ok=$((ok + $(grep -c '"result": "OK"' "$log" || true)))
  bad=$((bad + $(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)))
  skip=$((skip + $(grep -c '"result": "SKIP"' "$log" || true)))
done
echo "$ok passed, $bad failed, $skip skipped"
exit $rc
