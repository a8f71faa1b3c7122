#!/usr/bin/env bash
# bench/chain.sh: compile time and memory of generated chains of N stages
# (issue 13), `polytile compile --time` at -O1 (the default) and -O0, one
# process per compile, in a release build.  See bench/README.md.
#   bash bench/chain.sh [--n 50,100,200,500] [--levels O1,O0] [--bounded]
#                       [--bin PATH] [--runs K]
# Per N and level: polytile's own total (the --time lines, wall clock),
# the process's wall and CPU (user + sys) seconds and peak RSS
# (/usr/bin/time), then each pass's milliseconds.  With --runs K > 1 the
# run with the least CPU time is kept (the machine is shared).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. "$root/bench/header.sh"
build=${BUILD_DIR:-build-bench}
ns=50,100,200,500
levels=O1,O0
bounded=
bin=
runs=1
while [ $# -gt 0 ]; do
	case $1 in
	--n) ns=$2; shift 2 ;;
	--levels) levels=$2; shift 2 ;;
	--bounded) bounded=--bounded; shift ;;
	--bin) bin=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: bash bench/chain.sh [--n LIST] [--levels O1,O0] [--bounded] [--bin PATH] [--runs K]" >&2
	   exit 2 ;;
	esac
done
if [ -z "$bin" ]; then
	[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
	ninja -C "$build" cli/polytile >/dev/null
	bin=$build/cli/polytile
fi
[ -x /usr/bin/time ] || { echo "bench/chain.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passes="parse typecheck admissible cases bounds inline statements group tiles dependences schedule storage ast llvm-ir optimize object"
echo "# compile time of generated chains (bench/gen_chain.py${bounded:+ $bounded})"
echo
echo "- command: bash bench/chain.sh --n $ns --levels $levels${bounded:+ $bounded} --runs $runs${bin:+ (polytile: $bin)}"
bench_header
echo
printf '| N | level | total (ms) | wall (s) | CPU (s) | peak RSS (MB) |'
for p in $passes; do printf ' %s |' "$p"; done
printf '\n|---:|---|---:|---:|---:|---:|'
for p in $passes; do printf -- '---:|'; done
printf '\n'
for n in ${ns//,/ }; do
	python3 bench/gen_chain.py "$n" $bounded -o "$tmp/chain$n.pipe"
	for lv in ${levels//,/ }; do
		best=
		for ((r = 0; r < runs; r++)); do
			if ! /usr/bin/time -f 'TIME %e %U %S %M' -o "$tmp/time" \
				"$bin" compile "-$lv" --time "$tmp/chain$n.pipe" -o "$tmp/out" 2>"$tmp/log" >/dev/null; then
				echo "bench/chain.sh: polytile compile -$lv failed on $n stages:" >&2
				cat "$tmp/log" >&2
				exit 1
			fi
			cpu=$(awk '/^TIME/ { print $3 + $4 }' "$tmp/time")
			if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then
				best=$cpu
				cp "$tmp/log" "$tmp/best.log"
				cp "$tmp/time" "$tmp/best.time"
			fi
		done
		read -r _ wall user sys rss < "$tmp/best.time"
		total=$(awk '$2 == "total" { print $3 }' "$tmp/best.log")
		printf '| %d | -%s | %s | %s | %.2f | %.0f |' "$n" "$lv" "$total" "$wall" \
			"$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
		for p in $passes; do
			printf ' %s |' "$(awk -v p="$p" '$2 == p { v = $3 } END { print v == "" ? "-" : v }' "$tmp/best.log")"
		done
		printf '\n'
	done
done
echo
echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
