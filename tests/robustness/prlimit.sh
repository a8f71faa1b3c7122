#!/usr/bin/env bash
# prlimit.sh: polytile under an address-space cap set from outside with
# `prlimit --as` and no PT_MEMORY_LIMIT (issue 12, defect 4).  A run whose
# buffers do not fit the cap must end in exit 1 with a message naming
# RLIMIT_AS (never a signal or a failed malloc deep inside); a small run
# under the same cap must succeed, so the refusals come from the sizes.
#   tests/robustness/prlimit.sh POLYTILE APPS_DIR [asan]
# Exits 77 (skipped) without prlimit, and with "asan" (meson passes it in
# AddressSanitizer builds, whose shadow memory needs terabytes of address
# space, so no cap of a few GB lets polytile start).
set -uo pipefail
[ "${3:-}" = asan ] && { echo "an address-space cap cannot hold an AddressSanitizer build: skipped"; exit 77; }
polytile=$(realpath "$1")
apps=$(realpath "$2")
command -v prlimit >/dev/null || { echo "prlimit (util-linux) not found: skipped"; exit 77; }
cap=$((3 << 30))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
fail=0

# A .npy of format 1.0 (u16, shape R x C) whose data is a hole: its
# declared size on disk, nothing of it in memory until read.
npy_u16() {  # file, R, C
	local dict="{'descr': '<u2', 'fortran_order': False, 'shape': ($2, $3), }"
	local total=$(( (10 + ${#dict} + 1 + 63) / 64 * 64 ))
	local pad=$(( total - 10 - ${#dict} - 1 ))
	printf '\x93NUMPY\x01\x00' >"$1"
	printf "\\x$(printf %02x $(( (total - 10) & 255 )))\\x$(printf %02x $(( (total - 10) >> 8 )))" >>"$1"
	printf '%s%*s\n' "$dict" "$pad" '' >>"$1"
	truncate -s $(( total + 2 * $2 * $3 )) "$1"
}

# want status, text wanted on stderr, polytile args...
expect() {
	local want=$1 text=$2
	shift 2
	env -u PT_MEMORY_LIMIT prlimit --as=$cap "$polytile" "$@" >/dev/null 2>err
	local st=$?
	if [ "$st" -eq "$want" ] && { [ -z "$text" ] || grep -qF -- "$text" err; } && ! grep -q Sanitizer err; then
		echo "ok   polytile $*: status $st $(head -c 200 err)"
	else
		echo "FAIL polytile $*: status $st, wanted $want and '$text' on stderr, got:"
		cat err
		fail=1
	fi
}

# compiled and interpreted: about 5 GB of buffers, more than the cap, less
# than the machine (so the cap is what refuses them)
expect 1 RLIMIT_AS run "$apps/harris.pipe" --param R=10000 --param C=10000 --out harris=h.npy
expect 1 RLIMIT_AS run "$apps/harris.pipe" --param R=10000 --param C=10000 --backend interp --out harris=h.npy
# a 7.2 GB input file: refused before it is read
npy_u16 big.npy 60000 60000
expect 1 big.npy run "$apps/blur.pipe" --in I=big.npy --out out=o.npy
# the same cap leaves room for a small run
expect 0 "" run "$apps/harris.pipe" --param R=64 --param C=64 --out harris=h.npy
# a pipeline whose expressions need more memory than a tighter cap
# leaves (1400 stages of 2700 nodes, about 600 MB): the front end's
# allocations fail and every command that loads it says so, exit 1
# (issue 36); caps of 300 and 400 MB stop it at different points
awk 'BEGIN { printf "pipeline big\nparam R : int = 8\nimage I : int [R]\nfor l in 0 .. 1400 {\n  func F[l](x : 0 .. R-1) : int = I(x)";
	for (i = 1; i < 900; i++) printf " + I(x)"; printf "\n}\nfunc out(x : 0 .. R-1) : int = F[1400](x)\noutput out\n" }' >big.pipe
for cap in $((300 << 20)) $((400 << 20)); do
	expect 1 "out of memory while loading the pipeline" check big.pipe
	expect 1 "out of memory while loading the pipeline" run big.pipe --out out=o.npy
	expect 1 "out of memory while loading the pipeline" run big.pipe --backend interp --out out=o.npy
	expect 1 "out of memory while loading the pipeline" compile big.pipe -o big
done
cap=$((3 << 30))
# more threads than the runtime uses, their stacks past the cap: a
# message, and the run on the threads there are (issue 36, defect 8)
expect 0 "running on 256 threads" run "$apps/harris.pipe" --param R=256 --param C=256 --threads 4096 --out harris=h.npy
cap=$((1000 << 20))     # about 100 thread stacks of 8 MiB
expect 0 "the system refused to create more" run "$apps/harris.pipe" --param R=256 --param C=256 --threads 4096 --out harris=h2.npy
cap=$((3 << 30))
if ! cmp -s h.npy h2.npy; then
	echo "FAIL the run on the threads there were differs from the one on 256"
	fail=1
fi
# a tile of 2^20 x 2^20 on an 8 x 8 image: its scratchpad's rows are
# clipped to the image's (not 4.4 TB), and it runs (issue 42)
expect 0 "" run "$apps/blur.pipe" --tile 1048576x1048576 --param R=8 --param C=8 --no-cache --out out=o.npy
expect 0 "" run "$apps/blur.pipe" --backend interp --param R=8 --param C=8 --out out=o_ref.npy
if ! cmp -s o.npy o_ref.npy; then
	echo "FAIL the clipped tile's output differs from the interpreter's"
	fail=1
fi
exit $fail
