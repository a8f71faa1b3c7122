#!/bin/bash
# bench/gpu/fns.sh OUT V1 V2 V3 APP...: writes the harness's table of
# functions (harness.h's gpu_fns) to OUT: for each app, APP_V1_argv as
# its CUDA build, APP_V2_argv as the second CUDA column, APP_V3_argv as
# the CPU reference (build.sh and sweep.sh compile the objects).
set -euo pipefail
out=$1 v1=$2 v2=$3 v3=$4
shift 4
{
	echo '#include "harness.h"'
	for a in "$@"; do
		for v in "$v1" "$v2" "$v3"; do
			echo "int ${a}_${v}_argv(const int64_t *, const double *, const pt_buffer *const *, pt_buffer *const *);"
		done
	done
	echo 'const app_fns gpu_fns[] = {'
	for a in "$@"; do echo "	{ \"$a\", ${a}_${v1}_argv, ${a}_${v2}_argv, ${a}_${v3}_argv },"; done
	echo '};'
	echo 'const int gpu_nfns = sizeof(gpu_fns) / sizeof(gpu_fns[0]);'
} > "$out"
