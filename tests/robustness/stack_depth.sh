#!/usr/bin/env bash
# stack_depth.sh: every recursive pass stays well inside the stack at the
# depth limit (issue 36).  An expression exactly at the limit of 1000
# nested operations, built of every kind of nesting the passes recurse on
# (calls, unary minus, parentheses, min, select, ?:), and a chain of '+'
# at the limit are loaded, printed (--dump), interpreted and compiled
# under a stack of 1 MiB (4 MiB under AddressSanitizer), about twice what
# the deepest pass was measured to need (479 KB and 1734 KB, the parser),
# and the compiled results equal the interpreter's.  One level more is
# refused, so the test stays at the limit if the limit moves.
#   tests/robustness/stack_depth.sh POLYTILE [asan]
set -uo pipefail
polytile=$(realpath "$1")
stack=1024
[ "${2:-}" = asan ] && stack=4096
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
fail=0

# nested N: f is N wrappers, cycling through the kinds, around I(x)
nested() {
	awk -v n="$1" 'BEGIN {
		pre[0] = "abs(";           post[0] = ")";
		pre[1] = "-";              post[1] = "";
		pre[2] = "(";              post[2] = " + 1)";
		pre[3] = "min(";           post[3] = ", 2)";
		pre[4] = "select(x > 1, "; post[4] = ", 3)";
		pre[5] = "(x > 2 ? 4 : "; post[5] = ")";
		printf "pipeline deep\nparam R : int = 8\nimage I : int [R]\nfunc f(x : 0 .. R-1) : int = ";
		for (i = 0; i < n; i++) printf "%s", pre[i % 6];
		printf "I(x)";
		for (i = n - 1; i >= 0; i--) printf "%s", post[i % 6];
		printf "\noutput f\n" }'
}
# chain N: I(x) and N - 1 terms '+ x'
chain() {
	awk -v n="$1" 'BEGIN { printf "pipeline chain\nparam R : int = 8\nimage I : int [R]\nfunc f(x : 0 .. R-1) : int = I(x)";
		for (i = 1; i < n; i++) printf " + x"; printf "\noutput f\n" }'
}

# run NAME STATUS ARGS...: polytile ARGS under the small stack
run() {
	local name=$1 want=$2
	shift 2
	(ulimit -s $stack; exec timeout 60 "$polytile" "$@") >out 2>err
	local st=$?
	if [ "$st" -eq "$want" ] && ! grep -q Sanitizer err; then
		echo "ok   $name: polytile $*: status $st"
	else
		echo "FAIL $name: polytile $*: status $st, wanted $want:"
		head -c 2000 err
		fail=1
	fi
}

nested 998 >at.pipe       # I(x) is 2 deep: 1000 in all
nested 999 >past.pipe
chain 999 >chain.pipe     # the '+' of I(x) + 998 x: 1000 deep
chain 1000 >chain_past.pipe
for f in at chain; do
	run "$f" 0 check $f.pipe
	run "$f" 0 run $f.pipe --no-cache --dump=typecheck --backend interp --out f=$f-interp.npy
	run "$f" 0 run $f.pipe --no-cache --dump=typecheck,inline --out f=$f-cpu.npy
	if cmp -s $f-interp.npy $f-cpu.npy; then
		echo "ok   $f: compiled = interpreted"
	else
		echo "FAIL $f: the compiled result differs from the interpreter's"
		fail=1
	fi
done
run past 1 check past.pipe
grep -q "expression too deep" err || { echo "FAIL past: not refused as too deep"; fail=1; }
run chain_past 1 check chain_past.pipe
grep -q "expression too deep" err || { echo "FAIL chain_past: not refused as too deep"; fail=1; }
exit $fail
