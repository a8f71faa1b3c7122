#!/usr/bin/env bash
# deep_exprs.sh: generated hostile expressions (issue 36, defects 2 and 3).
# Chains of 10^5 and 10^6 terms of every binary operator and of `?:`,
# unary chains, nested parentheses and calls, exponential `let`s, a 1 MB
# name and bytes that are not UTF-8 must each end `polytile check` with
# exit 1 and a located error (file:line:col), within a time limit and,
# outside AddressSanitizer builds, an address-space cap: no crash, no
# hang.  Also: a chain at the depth limit is accepted, one past it is not.
#   tests/robustness/deep_exprs.sh POLYTILE [asan]
set -uo pipefail
polytile=$(realpath "$1")
asan=${2:-plain}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
fail=0
cap=()
[ "$asan" != asan ] && command -v prlimit >/dev/null && cap=(prlimit --as=$((2 << 30)))

head_='pipeline p
param R : int = 8
image I : int [R]'

# chain N SEP TERM: TERM SEP TERM ... (N terms) on one line
chain() { awk -v n="$1" -v sep="$2" -v t="$3" 'BEGIN { printf "%s", t; for (i = 1; i < n; i++) printf "%s%s", sep, t; print "" }'; }

# want STATUS FILE [TEXT]: polytile check FILE under the limits
want() {
	local st=$1 f=$2 text=${3:-}
	local start=$SECONDS
	timeout 20 "${cap[@]}" "$polytile" check "$f" >/dev/null 2>err
	local got=$? took=$((SECONDS - start))
	if [ "$got" -eq "$st" ] && { [ "$st" -eq 0 ] || grep -qE "^$f:[0-9]+:[0-9]+: error: " err; } &&
	   { [ -z "$text" ] || grep -qF -- "$text" err; } && ! grep -q Sanitizer err; then
		echo "ok   $f: status $got in ${took}s $(head -c 120 err | head -1)"
	else
		echo "FAIL $f: status $got in ${took}s, wanted $st with a located error${text:+ '$text'}:"
		head -c 2000 err
		fail=1
	fi
}

# func FILE EXPR: a pipeline whose stage f is EXPR
func() { printf '%s\nfunc f(x : 0 .. R-1) : int = %s\noutput f\n' "$head_" "$2" >"$1"; }

for n in 100000 1000000; do
	i=0
	for op in '+' '-' '*' '/' '%' '<<' '>>' '<' '<=' '>' '>=' '==' '!=' '&' '|' '^' '&&' '||'; do
		i=$((i + 1))
		func "op$i-$n.pipe" "$(chain $n " $op " 'I(x)')"
		want 1 "op$i-$n.pipe" "expression too deep"
	done
	func "sel-$n.pipe" "$(chain $n ' ? x : ' 'x > 0') ? x : x"
	want 1 "sel-$n.pipe" "expression too deep"
done
# every kind of nesting, 10^5 deep, meets the one limit with one message
n=100000
deep="expression too deep: more than 1000 nested operations"
for u in '-' '!' '~' '+'; do
	func "un$((++i)).pipe" "$(chain $n ' ' "$u") x"
	want 1 "un$i.pipe" "$deep"
done
func parens.pipe "$(chain $n '' '(') x $(chain $n '' ')')"
want 1 parens.pipe "$deep"
func calls.pipe "$(chain $n '' 'abs(') x $(chain $n '' ')')"
want 1 calls.pipe "$deep"
func mins.pipe "$(chain $n '' 'min(') x $(chain $n '' ', x)')"
want 1 mins.pipe "$deep"
func minargs.pipe "min($(chain $n ', ' 'x'))"
want 1 minargs.pipe "$deep"
# ?: nested in the condition (parenthesized) and in the middle
func selcond.pipe "$(chain $n '' '(') x $(chain $n '' ' > 0 ? x : x)')"
want 1 selcond.pipe "$deep"
func selmid.pipe "$(chain $n '' 'x > 0 ? ') x $(chain $n '' ' : x')"
want 1 selmid.pipe "$deep"
func stencils.pipe "$(chain $n '' 'stencil(I(') x $(chain $n '' '), 1, [1])')"
want 1 stencils.pipe "$deep"
# a thousand parentheses around a name are one too many; 999 are not
func parens_at.pipe "$(chain 999 '' '(') x $(chain 999 '' ')')"
want 0 parens_at.pipe
func parens_past.pipe "$(chain 1000 '' '(') x $(chain 1000 '' ')')"
want 1 parens_past.pipe "$deep"

# depth limit (docs/language.md): 999 '+' make depth 1000, accepted
func at_limit.pipe "$(chain 1000 ' + ' 'x')"
want 0 at_limit.pipe
func past_limit.pipe "$(chain 1002 ' + ' 'x')"
want 1 past_limit.pipe "expression too deep"

# exponential lets: 40 lines of aK = aK-1 + aK-1
{
	printf '%s\nlet a0 = x\n' "$head_"
	for k in $(seq 1 40); do printf 'let a%d = a%d + a%d\n' $k $((k - 1)) $((k - 1)); done
	printf 'func f(x : 0 .. R-1) : int = a40\noutput f\n'
} >lets.pipe
want 1 lets.pipe "expression too large"
# a let used many times in one expression
{
	printf '%s\nlet a = %s\n' "$head_" "$(chain 500 ' + ' 'x')"
	printf 'func f(x : 0 .. R-1) : int = %s\noutput f\n' "$(chain 300 ' * ' '(a)')"
} >uses.pipe
want 1 uses.pipe "expression too large"

# a 1 MB name
func name.pipe "$(head -c 1048576 /dev/zero | tr '\0' a)"
want 1 name.pipe "name is too long"
# bytes that are not UTF-8: in a name, in a comment, invalid UTF-8 sequences
printf '%s\nfunc f\xff(x : 0 .. R-1) : int = x\noutput f\n' "$head_" >byte_name.pipe
want 1 byte_name.pipe "unexpected byte 0xff"
printf '%s\n# caf\xe9\nfunc f(x : 0 .. R-1) : int = x\noutput f\n' "$head_" >byte_comment.pipe
want 1 byte_comment.pipe "not UTF-8"
printf '%s\n# \xed\xa0\x80 \xc0\xaf\nfunc f(x : 0 .. R-1) : int = x\noutput f\n' "$head_" >surrogate.pipe
want 1 surrogate.pipe "not UTF-8"
printf '%s\nfunc f(x : 0 .. R-1) : int = "x"\noutput f\n' "$head_" >string.pipe
want 1 string.pipe "unexpected character"
# valid UTF-8 in a comment is fine
printf '%s\n# \xcf\x83 = 2 \xe2\x80\x94 ok\nfunc f(x : 0 .. R-1) : int = x\noutput f\n' "$head_" >utf8.pipe
want 0 utf8.pipe
exit $fail
