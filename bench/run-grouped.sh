#!/usr/bin/env bash
# bench/run-grouped.sh: polytile -O1 (groups, overlapped tiles) against
# -O0 (naive schedule), every app at the paper sizes, 1 and 2 threads, one
# run; outputs compared byte for byte first. See bench/README.md.
#   bash bench/run-grouped.sh [--runs N] [--threads LIST] [--app NAME]...
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. "$root/bench/header.sh"
build=${BUILD_DIR:-build-bench}
if [ ! -d "$build" ]; then
	meson setup "$build" --buildtype=release >/dev/null
fi
ninja -C "$build" bench/bench_grouped >/dev/null
echo "# polytile -O1 (grouped) vs -O0 (naive)"
echo
echo "- command: bash bench/run-grouped.sh $*"
bench_header
echo
"$build/bench/bench_grouped" --apps "$root/apps" "$@"
echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
