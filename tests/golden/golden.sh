#!/usr/bin/env bash
# Golden files: the naive schedule tree and isl's AST (loops marked
# parallel) of every app, inlined and not (-O0), and the AST of the
# grouped schedule (the default, -O1), and its kernel descriptions (what
# a target maps: grid, blocks, scratchpads, footprints, placement), as
# `polytile compile --dump=PASS` prints them.  A change of grouping, tiling or parallel loops shows up
# here as a reviewable diff.
#   tests/golden/golden.sh POLYTILE            compare (the meson test)
#   tests/golden/golden.sh POLYTILE --update   rewrite the files
# From the source root after a build:
#   tests/golden/golden.sh build-test/cli/polytile --update
# Also checks that every pass's dump is printed for every app.
set -uo pipefail
# the tile model plans for this machine, not the one running the test
export PT_MACHINE=${PT_MACHINE:-l1=32K,l2=1M,l3=32M,threads=2,vector=64}
polytile=$1
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
apps=$here/../../apps
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
passes=(parse typecheck admissible cases bounds inline rfactor statements group tiles dependences schedule storage kernels distribute ast llvm-ir cubin optimize)

check() {  # name, golden file, polytile args...
	local golden=$here/$2
	shift 2
	if ! "$polytile" compile "$@" >"$out/got" 2>"$out/err"; then
		echo "FAIL: polytile compile $*"; cat "$out/err"; fail=1; return
	fi
	if [ "$update" = --update ]; then
		cp "$out/got" "$golden"
	elif ! diff -u "$golden" "$out/got"; then
		echo "FAIL: $golden differs (regenerate: $0 POLYTILE --update)"; fail=1
	fi
}

for f in "$apps"/*.pipe; do
	n=$(basename "$f" .pipe)
	check "$n" "$n.schedule" -O0 --dump=schedule "$f"
	check "$n" "$n.ast" -O0 --dump=ast "$f"
	check "$n" "$n.noinline.ast" -O0 --no-inline --dump=ast "$f"
	check "$n" "$n.O1.ast" --dump=ast "$f"
	check "$n" "$n.kernels" --dump=kernels "$f"
	# every pass prints a non-empty dump, in order
	if ! "$polytile" compile --dump=all "$f" >"$out/all" 2>"$out/err"; then
		echo "FAIL: --dump=all $n"; cat "$out/err"; fail=1; continue
	fi
	got=$(sed -n 's/^---- \(.*\) ----$/\1/p' "$out/all" | tr '\n' ' ')
	if [ "$got" != "${passes[*]} " ]; then
		echo "FAIL: --dump=all $n printed: $got"; fail=1
	fi
	if awk '/^---- .* ----$/ { if (prev) exit 1; prev = 1; next } { prev = 0 } END { exit prev }' "$out/all"; then :; else
		echo "FAIL: --dump=all $n: an empty dump"; fail=1
	fi
done
[ "$update" = --update ] && echo "golden files rewritten in $here"
exit $fail
