#!/usr/bin/env bash
# Installs what polytile needs, builds it, and runs the whole test suite.
# The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")"
bash scripts/install-deps.sh || exit 1
if [ ! -d build-test ]; then
  meson setup build-test >/dev/null || exit 1
fi
ninja -C build-test || exit 1
meson test -C build-test --print-errorlogs --num-processes 2 | tee build-test/test-summary.txt
status=${PIPESTATUS[0]}
ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' build-test/test-summary.txt)
fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' build-test/test-summary.txt)
timeout=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' build-test/test-summary.txt)
echo "${ok:-0} passed, $(( ${fail:-0} + ${timeout:-0} )) failed"
exit "$status"
