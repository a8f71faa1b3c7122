#!/usr/bin/env bash
# The MPI tests' runner: PROGRAM ARGS... under mpirun with 1, 2, 3 and 4
# ranks (more ranks than this machine's cores: --oversubscribe), each run
# bounded by a timeout so that a hang fails instead of stalling the suite;
# the last argument is "full" with 3 ranks, else $MPI_TEST_DEPTH (quick).
# Open MPI refuses to run as root unless told (CI runs as root).
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shared-memory transport only: the tests run on one machine, and some
# containers have no usable network interface for Open MPI's TCP probe
export OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1
nps=${MPI_TEST_NPS:-1 2 3 4}
status=0
for np in $nps; do
  echo "== mpirun -np $np $*"
  depth=${MPI_TEST_DEPTH:-quick}
  [ "$np" = 3 ] && depth=full
  timeout 900 mpirun --oversubscribe -np "$np" "$@" $depth < /dev/null
  rc=$?
  [ $rc -eq 0 ] || { echo "mpirun -np $np: exit status $rc"; status=1; }
done
exit $status
