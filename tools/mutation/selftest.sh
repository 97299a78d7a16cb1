#!/bin/bash
# Exercises `glue.py run` without a GPU: fake element checks (one script
# under the four program names) and a fake .gpu/run that sets variables the
# command line must override; small deadlines, so that the pool, a timeout,
# a crash, the deadline, the OOM phase and the table are all reached.
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cat > "$t/prog" <<'EOF'
#!/bin/bash
m=$(basename "$GST_PLUGIN_PATH_1_0"); p=$(basename "$0")
echo "$p $m GST_CHECKS=$GST_CHECKS REG=$GST_REGISTRY_1_0 CK_FORK=$CK_FORK"
[ "$CK_FORK" = no ] && [ "$CI_REQUIRE_GPU" = 1 ] && [ "${GST_REGISTRY_1_0#*/reg-}" = "$m.bin" ] || exit 3
sleep 0.2
fail () { for x in ${GST_CHECKS//,/ }; do echo "../x.c:1:F:general:$x:0: boom"; done; exit 1; }
case "$m:$p" in
  m25:*) fail;;                                   # killed
  m33:*) kill -SEGV $$;;                          # killed by a crash
  m02:*) sleep 100;;                              # killed by the timeout
  m05:*) [ "$GST_CHECKS" = test_oom_on_caps_change ] && fail;;
  m00:check-cudafftbloom) [[ $GST_CHECKS == *test_bad_kernel_location* ]] &&
    { echo "../x.c:2:F:general:test_bad_kernel_location:0: x"; exit 1; };;
esac
echo "100%: Checks: 1, Failures: 0, Errors: 0"
EOF
printf '#!/bin/sh\nexport GST_REGISTRY_1_0=/wrong CK_FORK=yes\nexec "$@"\n' > "$t/run"
chmod +x "$t/prog" "$t/run"
for a in supersample sgm tonemap fftbloom; do
  mkdir -p "$t/bin/$a" && ln -s ../../prog "$t/bin/$a/check-cuda$a"
done
mkdir -p "$t/mut/so/m00" && for i in $(seq -w 1 50); do mkdir -p "$t/mut/so/m$i"; done
cd "$here/../.."
OUT=$t/out NO_UNPACK=1 MUTANTS="m25 m33 m02 m24 m05 m43 m41 m42 m47 m49 m50" MUT_DIR=$t/mut RUNNER=$t/run BIN_DIR=$t/bin \
  PER_TIMEOUT=2 MIN_RUN=1 DEADLINE=${DEADLINE:-4} OOM_DEADLINE=12 HARD_END=16 \
  python3 "$here/glue.py" run > "$t/log" 2>&1 || { cat "$t/log"; exit 1; }
cat "$t/out/table.txt"
tab=$t/out/table.txt
ok=1
expect () { grep -qE "$1" "$tab" || { echo "selftest: no line matching '$1'"; ok=0; }; }
expect '^m25 +killed .*supersample: test_caps_changes'
expect '^m33 +killed .*sgm: SIG11'
expect '^m02 +killed .*TIMEOUT'
expect '^m05 +killed .*fftbloom-oom: test_oom_on_caps_change'
expect '^m24 +inconclusive'           # m00 failed one of its tests
expect '^m10 +not run\(2GPU\)'
expect '^m50 +not run'                # past the deadline
grep -q 'deadline: ' "$t/log" || { echo 'selftest: the deadline was not reached'; ok=0; }
[ $ok = 1 ] && echo 'selftest: passed' || { echo 'selftest: FAILED'; exit 1; }
