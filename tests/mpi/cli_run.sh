#!/usr/bin/env bash
# `polytile run --backend mpi` (POLYTILE APPS_DIR): rank 0
# reads the --in PNG files and scatters each rank's part, each rank reads
# its part of a .npy input, generated inputs are made per part, rank 0
# gathers and writes; the outputs equal the
# CPU target's byte for byte on 2, 3 and 5 ranks (1: mpi_apps), at odd sizes and at sizes
# where ranks own one row or none; a 3-D output goes to STAGE.npy.
set -uo pipefail
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")   # absolute: the work happens elsewhere
APPS=$(cd "$2" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
# PNG inputs, made by the CPU target: gray u16 61 x 45, and RGB u16
"$P" run "$APPS/blur.pipe" --param R=61 --param C=45 --quiet --out out=gray.png || exit 1
"$P" run "$APPS/local_laplacian.pipe" --param R=41 --param C=27 --quiet --out out=rgb.png || exit 1
same() {   # same WHAT NP ARGS...: the MPI run's out.npy equals the CPU's
  local what=$1 np=$2
  shift 2
  rm -f cpu.npy mpi.npy
  "$P" run "$@" --quiet --out "$what=cpu.npy" || { echo "FAIL: cpu: $*"; fail=1; return; }
  timeout 300 mpirun --oversubscribe -np "$np" "$P" run "$@" --backend mpi --out "$what=mpi.npy" </dev/null >log 2>&1
  local rc=$? scattered=yes
  # a PNG input on 2 ranks or more: rank 0 sent the others their parts;
  # a .npy input: each rank read its own, rank 0 sent nothing
  [[ "$*" == *.png* && $np -gt 1 ]] && ! grep -q '^inputs scattered from rank 0: [1-9]' log && scattered=no
  [[ "$*" == *.npy* ]] && grep -q '^inputs scattered' log && scattered=unexpected
  if [ $rc -ne 0 ] || ! cmp -s cpu.npy mpi.npy || [ $scattered = no ]; then
    echo "FAIL: $np ranks: $* (scattered: $scattered)"; cat log; fail=1
  else
    echo "ok: $np ranks: $* ($(grep -c '^rank .* sent' log) ranks counted; $(grep -o 'inputs scattered.*' log))"
  fi
}
# a .npy input, big-endian u16 39 x 25 (harris reads it as float [R+2,
# C+2]: converted per part), written here without numpy
python3 - <<'PY' || exit 1
import struct
h = "{'descr': '>u2', 'fortran_order': False, 'shape': (39, 25), }"
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
data = b''.join(struct.pack('>H', (i * 7919 + 13) % 65536) for i in range(39 * 25))
open('in.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + data)
open('short.npy', 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + data[:100])
PY
for np in 2 3 5; do
  same harris $np "$APPS/harris.pipe" --param R=37 --param C=23                   # generated, per part
  same harris $np "$APPS/harris.pipe" --in I=in.npy                               # each rank reads its rows
  same out $np "$APPS/blur.pipe" --in I=gray.png                # read by rank 0, scattered
  same harris $np "$APPS/harris.pipe" --param R=3 --param C=9 --mpi-strategy recompute   # ranks with no row
done
same out 3 "$APPS/local_laplacian.pipe" --in I=rgb.png --mpi-strategy communicate
same harris 4 "$APPS/harris.pipe" --in I=in.npy --mpi-grid grid    # its rectangle of a .npy, on 2 x 2
# a truncated .npy: every rank stops, exit status 1, the file named
timeout 300 mpirun --oversubscribe -np 3 "$P" run "$APPS/harris.pipe" --in I=short.npy --backend mpi </dev/null \
  >log 2>&1
rc=$?
if [ $rc -ne 1 ] || ! grep -q 'short.npy: truncated data' log; then
  echo "FAIL: a truncated .npy on 3 ranks: exit $rc"; cat log; fail=1
fi
# calibrate: four positive figures in the model file, which explain reads
timeout 300 mpirun --oversubscribe -np 2 "$P" calibrate --threads 1 -o model </dev/null >log 2>&1
if ! awk '$2 > 0 { n++ } END { exit n != 4 }' model ||
  ! PT_MPI_MODEL=model "$P" explain "$APPS/blur.pipe" --backend mpi --ranks 2 | grep -q "ns a point in tiles"; then
  echo "FAIL: calibrate"; cat log model; fail=1
else
  echo "ok: calibrate: $(paste -sd ' ' model)"
fi
# a 3-D output without channels: STAGE.npy when no --out names a file
timeout 300 mpirun --oversubscribe -np 2 "$P" run "$APPS/heat3d.pipe" --param N=14 --param T=2 --backend mpi \
  </dev/null >log 2>&1 && [ -s last.npy ] && [ -s once.npy ] || { echo "FAIL: heat3d's outputs not in .npy"; cat log; fail=1; }
exit $fail
