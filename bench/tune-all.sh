#!/usr/bin/env bash
# bench/tune-all.sh: `polytile tune` on every app at its paper size (the
# params' estimates), writing bench/tuned/APP.cfg (what bench/compare's
# "polytile tuned" column compiles with), and the sweep's table, CSV and
# plot to BUILD/tune/.  Run it on a quiet machine: a candidate timed while
# other work runs (a build, a test) can be 10x slower and rank wrong.
#   bash bench/tune-all.sh [--threads N] [--scale F] [APP...]
# --threads: threads of the runs (default 2); --scale: multiplies every
# app's budget (default 1: about 30 minutes in all).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. "$root/bench/header.sh"
threads=2
scale=1
apps=()
while [ $# -gt 0 ]; do
	case "$1" in
	--threads) threads=${2:?--threads needs a value}; shift ;;
	--scale) scale=${2:?--scale needs a value}; shift ;;
	-h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bench/tune-all.sh: unknown option $1" >&2; exit 2 ;;
	*) apps+=("$1") ;;
	esac
	shift
done
# seconds per app: the full sweep where it fits, else the candidates
# nearest the default first (polytile tune's order)
declare -A budget=([harris]=120 [unsharp_mask]=120 [blur]=120 [sobel]=120 [histogram]=60
	[heat3d]=60 [bilateral_grid]=240 [camera_pipe]=240 [pyramid_blend]=240
	[interpolate]=240 [local_laplacian]=420 [iir_blur]=60 [argmin]=60)
[ ${#apps[@]} -gt 0 ] || apps=(harris unsharp_mask blur sobel histogram heat3d bilateral_grid
	camera_pipe pyramid_blend interpolate local_laplacian iir_blur argmin)
build=${BUILD_DIR:-build-bench}
if [ ! -d "$build" ]; then
	meson setup "$build" --buildtype=release >/dev/null
fi
ninja -C "$build" cli/polytile >/dev/null
out="$build/tune"
mkdir -p "$out" bench/tuned
echo "# polytile tune, every app at its paper size"
echo
echo "- command: bash bench/tune-all.sh --threads $threads --scale $scale ${apps[*]}"
bench_header
status=0
for app in "${apps[@]}"; do
	b=${budget[$app]:?unknown app $app}
	b=$(awk -v b="$b" -v s="$scale" 'BEGIN { printf "%d", b * s + 0.5 }')
	echo
	echo "## $app (budget ${b}s)"
	echo
	if OMP_NUM_THREADS=$threads "$build/cli/polytile" tune "apps/$app.pipe" --threads "$threads" \
		--budget "${b}s" -o "bench/tuned/$app.cfg" --plot "$out/$app" > "$out/$app.log" 2>&1; then
		grep -v '^tune:' "$out/$app.log" | head -n 12
		echo "..."
		grep '(default)\|^best\|candidates tried' "$out/$app.log" || true
	else
		status=$?
		echo "polytile tune failed ($status):"
		tail -n 20 "$out/$app.log"
	fi
done
echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
