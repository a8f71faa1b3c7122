#!/bin/bash
# bench/gpu/build.sh: builds the GPU bench's bundle in gpubundle/ (at the
# repository root, ignored by git), for a machine with an NVIDIA GPU and
# its driver but none of our packages: every app compiled by polytile
# for the CUDA target (default schedule and -O0) and for the CPU (the
# reference there), the cases of bench_gpu_prepare (inputs and the
# interpreter's outputs), Halide 14's GPU versions when
# bench/gpu/halide/build.sh can build them, and the harness linked
# with libpolytile_rt, libpng and libstdc++ statically.  Then, there:
#   bash gpubundle/run.sh [--runs N] [--apps a,b]
# Usage: bench/gpu/build.sh [--no-halide]   (BUILD_DIR: a release build,
# default build-bench; GPU_BACKEND=cuda-emu puts the emulated kernels in
# the CUDA columns, to try the harness on a machine without a GPU)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
out=$root/gpubundle
halide=1
[ "${1:-}" = "--no-halide" ] && halide=0
[ -d "$build" ] || meson setup "$build" "$root" --buildtype=release
ninja -C "$build" cli/polytile bench/bench_gpu_prepare
pt=$build/cli/polytile
rm -rf "$out"
mkdir -p "$out/data" "$out/obj"
"$build/bench/bench_gpu_prepare" "$root/apps" "$out/data"
# the host code for any x86-64 with AVX2 (the GPU machine's CPU is not this one)
host=x86_64-unknown-linux-gnu:x86-64-v3
apps="harris unsharp_mask blur sobel histogram local_laplacian camera_pipe bilateral_grid pyramid_blend interpolate heat3d argmin iir_blur"
fns=$out/obj/fns.c
bash "$root/bench/gpu/fns.sh" "$fns" cuda cuda0 cpu $apps
for a in $apps; do
	"$pt" compile "$root/apps/$a.pipe" --backend ${GPU_BACKEND:-cuda} --target $host -o "$out/obj/${a}_cuda" &
	"$pt" compile "$root/apps/$a.pipe" --backend ${GPU_BACKEND:-cuda} -O0 --target $host -o "$out/obj/${a}_cuda0" &
	"$pt" compile "$root/apps/$a.pipe" --target $host -o "$out/obj/${a}_cpu"
	wait
done
hl=()
if [ $halide = 1 ] && [ -x "$root/bench/gpu/halide/build.sh" ] && bash "$root/bench/gpu/halide/build.sh" "$build/hl_gpu"; then
	hl=(-DHAVE_HL_GPU -I"$build/hl_gpu" -I"$root/bench/gpu/halide" -L"$build/hl_gpu" -lhl_gpu)
fi
cc=(gcc -O2 -std=gnu11 -I"$root/include" -I"$root/runtime" -I"$root/bench/gpu")
mkdir -p "$out/host"
for f in "$root"/runtime/*.c "$root/bench/gpu/harness.c" "$root/bench/gpu/halide_glue.c" "$fns"; do
	# the MPI runtime: not for the GPU machine (no MPI headers needed)
	[ "$(basename "$f")" = mpi.c ] && continue
	"${cc[@]}" "${hl[@]:0:3}" -c "$f" -o "$out/host/$(basename "$f" .c).o" &
done
wait
# C++ only for Halide's wrappers: libstdc++ linked in statically
g++ -o "$out/gpubench" "$out"/host/*.o "$out"/obj/*.o "${hl[@]:3}" -static-libstdc++ -static-libgcc \
	-Wl,-Bstatic -lpng16 -lz -Wl,-Bdynamic -lm -ldl -lpthread
rm -rf "$out/host"
cat > "$out/run.sh" <<'RUN'
#!/bin/bash
# The GPU bench, on the GPU machine (built by bench/gpu/build.sh).
cd "$(dirname "$0")" && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
exec ./gpubench data "$@"
RUN
cat > "$out/each.sh" <<EACH
#!/bin/bash
# The GPU bench one app per process (a kernel that faults takes only its
# app's rows), with the host copies' rates staged and direct first.
cd "\$(dirname "\$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
./gpubench data --apps none | head -3
PT_CUDA_COPY=direct ./gpubench data --apps none | grep "host copies"
for a in ${apps}; do
	echo "=== \$a"
	timeout 100 ./gpubench data --apps \$a "\$@" | grep -v "^GPU:\|^host copies"
done
EACH
du -sh "$out"
echo "bundle: $out (carry gpubundle; run: bash gpubundle/run.sh, or gpubundle/each.sh)"
