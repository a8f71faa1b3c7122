#!/usr/bin/env bash
# bench/run.sh: the one command for issues 5 and 10. Builds polytile
# (release, in build-bench/), compiles harris, unsharp_mask and blur with
# `polytile compile`, builds the harness with the hand-written C (naive
# for every app, and fused for harris; gcc -O3 -march=native -fopenmp),
# and runs it: outputs checked against tests/ref, then timed at 1 and 2
# threads. See bench/README.md.
#
#   bash bench/run.sh                 # paper sizes
#   bash bench/run.sh --quick         # small sizes, 3 runs
#   PT_COMPILE_FLAGS= bash bench/run.sh --app harris
#                                     # polytile's default (grouped) against
#                                     # the naive and the fused C
#   bash bench/run.sh --selftest ...  # no polytile: the naive C in both columns
#   bash bench/run.sh --small-pages   # malloc's defaults (no huge pages)
#
# Other arguments go to the harness (--runs N, --threads LIST, --app NAME).
# Environment: BUILD_DIR (default build-bench), CC (default gcc),
# PT_COMPILE_FLAGS (flags for `polytile compile`; default `-O0
# --no-inline`, polytile's naive schedule with the same stages as the
# naive C; set it empty to time polytile's default, the grouped schedule).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build-bench}
cc=${CC:-gcc}

selftest=0
hugepages=1
args=()
for a in "$@"; do
	case "$a" in
	--selftest) selftest=1 ;;
	--small-pages) hugepages=0 ;;
	*) args+=("$a") ;;
	esac
done

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Dbuildtype=release >/dev/null
fi
ninja -C "$build" >/dev/null
pt="$build/cli/polytile"
rtdir="$root/$build/runtime"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# -std=c11 keeps floating-point contraction off (no fused multiply-add),
# the rounding of the .pipe semantics, as in tests/ref.
cflags=(-std=c11 -O3 -march=native -fopenmp -Wall -Wextra -Wno-unused-parameter)
inc=(-I "$root/include" -I "$root/tests/ref" -I "$root/bench")
srcs=("$root/bench/bench.c" "$root/bench/naive/harris.c"
	"$root/bench/naive/harris_fused.c"
	"$root/bench/naive/unsharp_mask.c" "$root/bench/naive/blur.c")
objs=()
if [ "$selftest" = 1 ]; then
	cflags+=(-DSELFTEST)
else
	if ! "$pt" compile --help >/dev/null 2>&1; then
		echo "run.sh: '$pt compile' is not available yet; try --selftest" >&2
		exit 2
	fi
	# -O0: the naive schedule (the default is the grouped optimizer since
	# a3dcd4c); --no-inline: the same stages as the naive C
	ptflags=${PT_COMPILE_FLAGS--O0 --no-inline}
	for app in harris unsharp_mask blur; do
		# shellcheck disable=SC2086
		"$pt" compile $ptflags "apps/$app.pipe" -o "$tmp/$app"
		objs+=("$tmp/$app.o")
	done
	cflags+=(-DPT_GENERATED_HEADERS)
	inc+=(-I "$tmp")
fi

"$cc" "${cflags[@]}" "${inc[@]}" "${srcs[@]}" "${objs[@]}" \
	"$root/tests/ref/ref_apps.c" \
	-L "$rtdir" -Wl,-rpath,"$rtdir" -lpolytile_rt -lm -o "$tmp/bench"

echo "# polytile vs hand-written C (naive; and fused for harris)"
echo
echo "- command: bash bench/run.sh $*"
if rev=$(git rev-parse --short HEAD 2>/dev/null); then
	git diff --quiet HEAD -- . 2>/dev/null || rev="$rev, with uncommitted changes in the tree"
	echo "- commit: $rev"
fi
if [ "$selftest" = 0 ]; then
	note=""
	[ -n "$ptflags" ] || note=" (no flags: polytile's default, the grouped schedule)"
	echo "- polytile: $pt compile${ptflags:+ $ptflags} apps/APP.pipe -o \$tmp/APP$note"
fi
echo "- naive C and fused C: $cc ${cflags[*]}"
if [ "$hugepages" = 1 ]; then
	# Both versions allocate their intermediates in every call (harris:
	# 1.6 GB at 6400 x 6400); with 4 KiB pages the page faults dominate and,
	# in a VM, vary by +-50% from run to run. glibc's malloc then asks for
	# transparent huge pages for its large (mmap'ed) blocks, for both.
	export GLIBC_TUNABLES="glibc.malloc.hugetlb=1${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}"
fi
echo "- malloc: GLIBC_TUNABLES=${GLIBC_TUNABLES:-} (transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown))"
echo
"$tmp/bench" "${args[@]+"${args[@]}"}"
