#!/usr/bin/env bash
# bench/run-grouped.sh: polytile -O1 (groups, overlapped tiles) against
# -O0 (naive schedule), every app at the paper sizes, 1 and 2 threads, one
# run; outputs compared byte for byte first. See bench/README.md.
#   bash bench/run-grouped.sh [--runs N] [--threads LIST] [--app NAME]...
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build-bench}
if [ ! -d "$build" ]; then
	meson setup "$build" --buildtype=release >/dev/null
fi
ninja -C "$build" bench/bench_grouped >/dev/null
echo "# polytile -O1 (grouped) vs -O0 (naive)"
echo
echo "- command: bash bench/run-grouped.sh $*"
if rev=$(git rev-parse --short HEAD 2>/dev/null); then
	git diff --quiet HEAD -- . 2>/dev/null || rev="$rev, with uncommitted changes in the tree"
	echo "- commit: $rev"
fi
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs online"
echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$build/bench/bench_grouped" --apps "$root/apps" "$@"
echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
