#!/usr/bin/env bash
# Failures under `polytile run --backend mpi` (POLYTILE DIR): every rank
# returns and the command exits 1, naming the rank that failed, never a
# hang (each mpirun bounded by a timeout):
#   - rank 0, which alone reads the input files, given one that does not
#     exist (mpirun's MPMD form gives each rank its own command line:
#     the others' files are not read);
#   - a run-time check failing in one rank's part only (tests/mpi/fault.pipe
#     with a bad value at x = 2990 of 3000: the last of 3 ranks' rows);
#   - a parse error, which every rank finds, is printed once;
#   - the same input without the bad value runs, and equals the CPU's.
set -uo pipefail
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")   # absolute: the work happens elsewhere
SRC=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
check() {   # check WHAT STATUS WANTED_STATUS FILE PATTERN
  if [ "$2" != "$3" ] || ! grep -q -- "$5" "$4"; then
    echo "FAIL: $1: exit status $2 (wanted $3), output:"; cat "$4"; fail=1
  else
    echo "ok: $1"
  fi
}
python3 - <<'PY'
import struct
def npy(path, vals):
    hdr = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % len(vals)
    hdr += ' ' * ((64 - (10 + len(hdr) + 1) % 64) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(hdr)) + hdr.encode() + struct.pack('<%di' % len(vals), *vals))
v = [200 + i % 7 for i in range(3000)]
npy('good.npy', v)
v[2990] = 0
npy('bad.npy', v)
PY
run="$P run $SRC/fault.pipe --backend mpi --no-cache --out g=g.npy"
timeout 120 mpirun --oversubscribe -np 1 $run --in I=missing.npy : -np 2 $run --in I=good.npy \
  </dev/null >out.txt 2>&1
check "a missing input on rank 0 of 3" $? 1 out.txt "missing.npy"
[ -e g.npy ] && { echo "FAIL: g.npy written after a failed run"; fail=1; }
# split (communicate), so that only rank 2's part reads the bad point
# whatever the auto model would choose
for opt in -O0 -O1; do
  timeout 120 mpirun --oversubscribe -np 3 $run --in I=bad.npy $opt --mpi-strategy communicate </dev/null >out.txt 2>&1
  check "a run-time check failing on rank 2 of 3 ($opt)" $? 1 out.txt \
    "rank 2: stage 'g' at (2990) reads a point of 'f' that no case of it defines"
  [ -e g.npy ] && { echo "FAIL: g.npy written after a failed run"; fail=1; }
done
# a parse error every rank finds is printed once, by rank 0
printf 'pipeline bad\nparam R : int = 10\nfunc f(x : 0 .. R) : float = y\noutput f\n' > bad.pipe
timeout 120 mpirun --oversubscribe -np 3 "$P" run bad.pipe --backend mpi </dev/null >out.txt 2>&1
check "a parse error on 3 ranks" $? 1 out.txt "bad.pipe:3:30: error: unknown name 'y'"
n=$(grep -c "error: unknown name 'y'" out.txt)
[ "$n" = 1 ] || { echo "FAIL: the parse error printed $n times on 3 ranks (wanted once)"; fail=1; }
timeout 120 mpirun --oversubscribe -np 3 $run --in I=good.npy </dev/null >out.txt 2>&1
check "the good input on 3 ranks" $? 0 out.txt "on 3 ranks"
$P run "$SRC/fault.pipe" --in I=good.npy --out g=cpu.npy --no-cache --quiet || fail=1
cmp -s g.npy cpu.npy || { echo "FAIL: 3 ranks' g differs from the CPU's"; fail=1; }
exit $fail
