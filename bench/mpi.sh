#!/usr/bin/env bash
# bench/mpi.sh: the MPI target's run time against the CPU target's on one
# machine, every layout and strategy interleaved in one run (issue 39:
# 2 ranks x 1 thread against 1 rank x 2 threads; the auto strategy
# against the forced ones).  Builds bench_mpi (bench/mpi.c) in a release
# build (BUILD_DIR, default build-bench) and runs, per app and round, in
# turn: the CPU target on 1 rank x 2 threads, then the MPI target on 2
# ranks x 1 thread under auto, communicate, recompute and replicate, and
# under auto through the local-part ABI (NAME_local: each rank's parts
# in and out, nothing gathered).
# The auto strategy plans with this machine's figures, measured by
# `polytile calibrate` before the runs.
# Each is verified against -O0 before it is timed; the table gives the
# median over the rounds of each run's median, in ms, and the ratio
# CPU / MPI (> 1: the MPI layout faster).  Every mpirun has --bind-to
# none: by default Open MPI binds each of 1 or 2 ranks to one core, and
# the CPU layout's 2 threads then share it (harris 57 ms, not 28).
#
# For a time-iterated app (heat3d), a second table: its steps exchanged
# every 1, 2 and 3 steps (--mpi-steps, communicating) and never (all:
# each rank recomputing from the first step), against auto.
#
#   bash bench/mpi.sh                       # harris, blur, local_laplacian; 3 rounds of 10 runs
#   bash bench/mpi.sh --apps blur --rounds 5 --runs 20
#   bash bench/mpi.sh --apps heat3d --rounds 3 --runs 5
#   APPS_DIR=DIR bash bench/mpi.sh ...      # the apps' .pipe files from DIR (other sizes)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
apps=harris,blur,local_laplacian
rounds=3
runs=10
while [ $# -gt 0 ]; do
	case "$1" in
	--apps) apps=${2:?}; shift ;;
	--rounds) rounds=${2:?}; shift ;;
	--runs) runs=${2:?}; shift ;;
	*) echo "usage: bash bench/mpi.sh [--apps LIST] [--rounds N] [--runs N]" >&2; exit 2 ;;
	esac
	shift
done
build=${BUILD_DIR:-build-bench}
cd "$root"
[ -d "$build" ] || meson setup "$build" --buildtype=release >/dev/null
ninja -C "$build" bench/bench_mpi >/dev/null
bin="$root/$build/bench/bench_mpi"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export PT_CACHE_DIR=${PT_CACHE_DIR:-$root/$build/bench-mpi-cache}
# the auto strategy plans with this machine's figures, measured first
# (`polytile calibrate`), as `polytile run --backend mpi` does, with the
# MPI layouts' 1 thread a rank (each rank with both cores measured half
# the point time, and auto replicated harris: 63 ms against 48 split)
ninja -C "$build" cli/polytile >/dev/null
model="$root/$build/bench-mpi-model"
PT_MPI_MODEL="$model" mpirun --bind-to none -np 2 "$root/$build/cli/polytile" calibrate --threads 1 </dev/null >&2
layouts=("1 cpu auto 2" "2 mpi auto 1" "2 mpi communicate 1" "2 mpi recompute 1" "2 mpi replicate 1" "2 mpi local 1")
# a time-iterated app's depths between exchanges (bench_mpi --steps)
deep=("2 mpi communicate:steps1 1" "2 mpi communicate:steps2 1" "2 mpi communicate:steps3 1" "2 mpi communicate:steps-1 1")
stepped() { [ "$1" = heat3d ]; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for app in ${apps//,/ }; do
	for r in $(seq "$rounds"); do
		all=("${layouts[@]}")
		stepped "$app" && all+=("${deep[@]}")
		for l in "${all[@]}"; do
			read -r np backend strategy threads <<<"$l"
			lflag=()
			[ "$strategy" = local ] && strategy=auto && lflag=(--local)
			case $strategy in *:steps*)
				s=${strategy##*:steps}
				[ "$s" = -1 ] && s=all
				lflag=(--steps "$s"); strategy=${strategy%%:*} ;;
			esac
			mpirun --oversubscribe --bind-to none -np "$np" "$bin" --app "$app" --apps "${APPS_DIR:-$root/apps}" --backend "$backend" \
				--strategy "$strategy" --threads "$threads" --runs "$runs" --model "$model" "${lflag[@]}" < /dev/null >> "$out"
		done
	done
done
echo "# bench/mpi.sh --apps $apps --rounds $rounds --runs $runs ($(git -C "$root" rev-parse --short HEAD), $(nproc) CPUs)"
echo
echo "| app | CPU 1 x 2 | MPI 2 x 1 auto | communicate | recompute | replicate | local parts | CPU / MPI auto | CPU / local |"
echo "|---|---|---|---|---|---|---|---|---|"
for app in ${apps//,/ }; do
	row="| $app"
	cpu=
	for l in "${layouts[@]}"; do
		read -r np backend strategy threads <<<"$l"
		m=$(awk -v a="$app" -v b="$backend" -v s="$strategy" -v n="$np" \
			'$1 == a && $2 == b && $4 == n && (b == "cpu" || $3 == s) { print $6 }' "$out" | sort -g |
			awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }')
		row="$row | $m"
		[ "$backend" = cpu ] && cpu=$m
		[ "$backend" = mpi ] && [ "$strategy" = auto ] && auto=$m
		[ "$strategy" = local ] && loc=$m
	done
	echo "$row | $(awk -v c="$cpu" -v m="$auto" 'BEGIN { printf "%.2f", c / m }') | $(awk -v c="$cpu" -v m="$loc" 'BEGIN { printf "%.2f", c / m }') |"
done
# the depths of a time-iterated app's exchanges between steps
median() {
	awk -v a="$1" -v s="$2" '$1 == a && $2 == "mpi" && $4 == 2 && $3 == s { print $6 }' "$out" | sort -g |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}
for app in ${apps//,/ }; do
	stepped "$app" || continue
	echo
	echo "| $app, 2 x 1 | auto | every step | every 2 steps | every 3 steps | never (all) | best forced / auto |"
	echo "|---|---|---|---|---|---|---|"
	a=$(median "$app" auto) row="| steps, ms | $a" best=
	for s in 1 2 3 -1; do
		m=$(median "$app" "communicate:steps$s")
		row="$row | $m"
		best=$(awk -v b="$best" -v m="$m" 'BEGIN { print (b == "" || m < b) ? m : b }')
	done
	echo "$row | $(awk -v b="$best" -v a="$a" 'BEGIN { printf "%.2f", b / a }') |"
done
