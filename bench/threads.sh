#!/usr/bin/env bash
# bench/threads.sh: the runtime's thread pool (issue 42 item 5) against
# the OpenMP parallel-for it replaced, beside Halide 14's hand schedules:
# harris and local Laplacian at 1 and 2 threads, with no load and with one
# competing CPU-bound process (a busy loop started and stopped here,
# pinned to nothing), several rounds, interleaved: in every round each
# (load, threads) cell runs the old runtime, the new one and Halide one
# after the other, in an order that alternates between rounds.
#
# "old" is the same bench_compare binary (the same generated code) with
# bench/old_parallel.c preloaded: a copy of the OpenMP pt_parallel_for of
# a1ae711, built here into a shared object.  Outputs are checked by
# bench_compare against tests/ref (a wrong one is reported and fails).
#
#   bash bench/threads.sh                  # 5 rounds, 5 runs per cell
#   bash bench/threads.sh --rounds 3 --runs 7 --quick
#
# Environment: BUILD_DIR (a configured build with bench_compare; default
# build).  Prints a Markdown table of medians over the rounds (each
# round's value: bench_compare's median of --runs).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build}
rounds=5
runs=5
quick=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=${2:?--rounds needs a value}; shift ;;
	--runs) runs=${2:?--runs needs a value}; shift ;;
	--quick) quick=(--quick) ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/threads.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

ninja -C "$build" bench/halide/bench_compare >/dev/null
bin="$build/bench/halide/bench_compare"
tmp=$(mktemp -d)
busy=
cleanup() {
	[ -n "$busy" ] && kill "$busy" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
${CC:-cc} -std=c11 -O2 -fPIC -shared -fopenmp -I include bench/old_parallel.c -o "$tmp/libpt_oldpar.so"

apps=harris,local_laplacian
# cell LOAD THREADS RUNTIME: one bench_compare run, its CSV rows tagged
cell() {
	local load=$1 t=$2 rt=$3 pre=() variants="polytile default"
	[ "$rt" = old ] && pre=(env LD_PRELOAD="$tmp/libpt_oldpar.so")
	[ "$rt" = halide ] && variants="Halide hand"
	"${pre[@]}" "$bin" --threads "$t" --apps "$apps" --auto none --runs "$runs" "${quick[@]}" \
		--variants "$variants" --csv "$tmp/one.csv" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; echo "bench/threads.sh: bench_compare failed ($rt, $t threads, load $load)" >&2; exit 1; }
	tail -n +2 "$tmp/one.csv" | sed "s/^/$load,$rt,/" >>"$tmp/all.csv"
	rm -f "$tmp/one.csv"
}

for r in $(seq 1 "$rounds"); do
	for load in none busy; do
		if [ "$load" = busy ]; then
			( while :; do :; done ) &
			busy=$!
		fi
		for t in 1 2; do
			if [ $((r % 2)) = 1 ]; then order="old new halide"; else order="halide new old"; fi
			for rt in $order; do
				cell "$load" "$t" "$rt"
			done
		done
		if [ -n "$busy" ]; then
			kill "$busy"
			wait "$busy" 2>/dev/null || true
			busy=
		fi
	done
	echo "round $r of $rounds done" >&2
done

echo "Command: bench/threads.sh --rounds $rounds --runs $runs ${quick[*]}"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs for this process"
echo
python3 - "$tmp/all.csv" <<'EOF'
import csv, statistics, sys
# rows: load,rt,app,size,threads,variant,status,median_ms,...
cells, bad = {}, []
for row in csv.reader(open(sys.argv[1])):
    load, rt, app, size, threads, variant, status, med = row[:8]
    if status != "ok":
        bad.append(f"{app} {variant} ({rt}, {threads} threads, load {load}): {status}")
        continue
    cells.setdefault((app, load, int(threads), rt), []).append(float(med))
print("Median over the rounds of each run's median, ms (min..max of the rounds).\n")
print("| app | load | threads | polytile, old runtime (OpenMP) | polytile, new runtime (pool) | new / old | Halide hand |")
print("|---|---|---:|---:|---:|---:|---:|")
def fmt(v):
    return f"{statistics.median(v):.1f} ({min(v):.1f}..{max(v):.1f})" if v else "—"
for app in ("harris", "local_laplacian"):
    for load in ("none", "busy"):
        for t in (1, 2):
            o, n, h = (cells.get((app, load, t, rt), []) for rt in ("old", "new", "halide"))
            ratio = f"{statistics.median(n) / statistics.median(o):.2f}" if o and n else "—"
            print(f"| {app} | {'one busy loop' if load == 'busy' else 'none'} | {t} | {fmt(o)} | {fmt(n)} | {ratio} | {fmt(h)} |")
print()
for app in ("harris", "local_laplacian"):
    for rt in ("old", "new", "halide"):
        one, two = cells.get((app, "busy", 1, rt)), cells.get((app, "busy", 2, rt))
        if one and two:
            print(f"- {app}, {rt}, under load: 2 threads / 1 thread = {statistics.median(two) / statistics.median(one):.2f}")
if bad:
    print("\nNot ok:\n" + "\n".join("- " + b for b in bad))
    sys.exit(1)
print("\nEvery output equal to the reference (bench_compare's check).")
EOF
