#!/usr/bin/env bash
# build.sh [OUTDIR]: the Halide 14 CUDA versions of the benchmark apps as
# one static archive, OUTDIR/libhl_gpu.a (default: build-gpu/halide under
# the repository root), plus OUTDIR/linkcheck (bench/gpu/halide/README.md).
# A C harness includes hl_gpu.h (-Ibench/gpu/halide -Iinclude) and links with
#   g++ -static-libstdc++ -static-libgcc ... -LOUTDIR -lhl_gpu -ldl -lpthread
# Needs g++ and Halide 14 (libhalide14-0-dev); the archive needs neither.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/build-gpu/halide}
hinc=${HALIDE_INCLUDE:-/usr/include/halide14}
cxx=${CXX:-g++}
cc=${CC:-gcc}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The generator (links libHalide14: a program of its own, so that Halide's
# LLVM never meets another in one process).
"$cxx" -O1 -std=c++17 -Wall -Wextra -isystem "$hinc" "$here/gen.cpp" -o "$out/gen" \
	-lHalide14 -ldl -lpthread
rm -f "$out"/hl_*.o "$out"/hl_*.h "$out"/hl_*.schedule.h "$out/libhl_gpu.a"
"$out/gen" "$out" 2>&1 | tee "$out/gen.log"

# -fPIC: the archive may go into a PIE (Halide's objects are PIC too).
"$cxx" -O2 -std=c++17 -fPIC -Wall -Wextra -isystem "$hinc" -I"$root/include" -I"$here" -I"$out" \
	-c "$here/wrap.cpp" -o "$out/wrap.o"
ar rcs "$out/libhl_gpu.a" "$out/wrap.o" "$out/hl_runtime.o" \
	$(ls "$out"/hl_*_hand.o "$out"/hl_*_li2018.o 2>/dev/null)

"$cc" -O2 -std=c11 -Wall -Wextra -I"$root/include" -I"$here" -c "$here/linkcheck.c" -o "$out/linkcheck.o"
"$cxx" -static-libstdc++ -static-libgcc "$out/linkcheck.o" -L"$out" -lhl_gpu -ldl -lpthread -o "$out/linkcheck"
# verify: the check to run on a GPU machine (against tests/ref's references).
refs="apps local_laplacian argmin bilateral_grid camera_pipe heat3d iir_blur interpolate pyramid_blend"
objs=("$out/verify.o")
for r in $refs; do objs+=("$out/ref_$r.o"); done
for f in "$here/verify.c" $(for r in $refs; do echo "$root/tests/ref/ref_$r.c"; done); do
	"$cc" -O2 -std=c11 -Wall -Wextra -I"$root/include" -I"$here" -I"$root/tests/ref" \
		-c "$f" -o "$out/$(basename "$f" .c).o"
done
"$cxx" -static-libstdc++ -static-libgcc "${objs[@]}" -L"$out" -lhl_gpu -ldl -lpthread -lm -o "$out/verify"
echo "build.sh: $out/libhl_gpu.a"
