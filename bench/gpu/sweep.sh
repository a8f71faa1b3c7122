#!/bin/bash
# bench/gpu/sweep.sh: adds to gpubundle/ (made by build.sh) one harness
# per configuration, gpubench-TAG, whose second CUDA column runs the apps
# compiled with that configuration's options instead of -O0: data for
# the device model that is to choose GPU tiles and fusion.  There:
#   bash gpubundle/sweep.sh [--runs N]
# Usage: bench/gpu/sweep.sh "TAG:OPTIONS" ...   (APPS: the apps, default
# the four of issue 37's targets and sobel, camera_pipe)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
out=$root/gpubundle
pt=$build/cli/polytile
host=x86_64-unknown-linux-gnu:x86-64-v3
apps=${APPS:-harris unsharp_mask blur sobel local_laplacian camera_pipe}
[ -x "$out/gpubench" ] || { echo "sweep.sh: run bench/gpu/build.sh first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=(gcc -O2 -std=gnu11 -I"$root/include" -I"$root/runtime" -I"$root/bench/gpu")
for f in "$root"/runtime/*.c "$root/bench/gpu/harness.c" "$root/bench/gpu/halide_glue.c"; do
	# the MPI runtime: not for the GPU machine (no MPI headers needed)
	[ "$(basename "$f")" = mpi.c ] && continue
	"${cc[@]}" -c "$f" -o "$tmp/$(basename "$f" .c).o" &
done
wait
bash "$root/bench/gpu/fns.sh" "$tmp/fns.c" cuda alt cpu $apps
"${cc[@]}" -c "$tmp/fns.c" -o "$tmp/fns.o"
echo "#!/bin/bash" > "$out/sweep.sh"
echo 'cd "$(dirname "$0")"' >> "$out/sweep.sh"
for conf in "$@"; do
	tag=${conf%%:*}
	opts=${conf#*:}
	mkdir -p "$tmp/$tag"
	for a in $apps; do
		cp "$out/obj/${a}_cuda.o" "$out/obj/${a}_cpu.o" "$tmp/$tag/"
		# shellcheck disable=SC2086
		"$pt" compile "$root/apps/$a.pipe" --backend cuda $opts --target $host -o "$tmp/$tag/${a}_alt"
	done
	g++ -o "$out/gpubench-$tag" "$tmp"/*.o "$tmp/$tag"/*.o -static-libstdc++ -static-libgcc \
		-Wl,-Bstatic -lpng16 -lz -Wl,-Bdynamic -lm -ldl -lpthread
	echo "echo '=== $tag: $opts'; for a in $apps; do GPUBENCH_ALT='$opts' ./gpubench-$tag data --apps \$a \"\$@\" | grep '^| '\$a' \|WRONG' || echo \"\$a: exit \${PIPESTATUS[0]}\"; done" >> "$out/sweep.sh"
done
du -sh "$out"
