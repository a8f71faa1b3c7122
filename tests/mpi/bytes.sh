#!/usr/bin/env bash
# The bytes are exact (POLYTILE APPS_DIR): for blur, harris, local
# Laplacian and heat3d on 2 and 4 ranks communicating, 2 by the
# model, 4 recomputing, 4 communicating on a grid
# of ranks (2 x 2), and heat3d's steps exchanged every 2 steps on 3
# and on the 2 x 2 grid (replicating, where nothing moves: by mpi_apps), the bytes
# each rank sent and received in a run, and the bytes of intermediate
# arrays it held (partitioned memory; counted by the runtime, printed
# by `polytile run --backend mpi`) equal what `polytile explain --backend
# mpi --ranks N` predicts.  Both compile for the same estimates: each app
# is copied with its estimates set to the sizes run here (smaller than
# the paper's, so that the suite stays quick).  With --paper (not in
# the suite: minutes), at the apps' own estimates, the paper sizes, under
# every strategy on 2, 3 and 4 ranks, and communicating on grids of 4
# and 6 (docs/distributed.md has its output).
set -uo pipefail
P=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")   # absolute: the work happens elsewhere
APPS=$(cd "$2" && pwd)
paper=${3:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
while read -r app a va b vb extra; do
  if [ "$paper" = --paper ]; then
    cp "$APPS/$app.pipe" "$app.pipe"
  else
    sed -e "s/^param $a : int = [0-9]*/param $a : int = $va/" -e "s/^param $b : int = [0-9]*/param $b : int = $vb/" \
      "$APPS/$app.pipe" > "$app.pipe"
  fi
  for cfg in communicate recompute auto communicate:grid $extra; do
    strategy=${cfg%%:*} grid=slabs nps="2 3 4" steps=auto
    # on a grid of ranks (2 x 2; and 3 x 2 with --paper)
    case $cfg in *:grid*) grid=grid nps="4 6" ;; esac
    # deep ghost zones between steps: communicate:stepsN (:grid:stepsN)
    case $cfg in *:steps*) steps=${cfg##*:steps} ;; esac
    if [ "$paper" != --paper ]; then
      [ $grid = grid ] && nps=4
      [ $steps != auto ] && [ $grid = slabs ] && nps=3
      # suite time: communicate on 2 and 4 ranks (3 in heat3d's steps
      # below, and in mpi_apps), recompute on 4, auto on 2
      [ $strategy = communicate ] && [ $grid = slabs ] && [ $steps = auto ] && nps="2 4"
      [ $strategy = recompute ] && nps=4
      [ $strategy = auto ] && nps=2   # auto plans 4 times: its compiles are the longest
    fi
    for np in $nps; do
      "$P" explain "$app.pipe" --backend mpi --mpi-strategy $strategy --mpi-grid $grid --mpi-steps $steps --ranks $np |
        sed -n -e 's/^ *rank \([0-9]*\) sends \([0-9]*\) .*, receives \([0-9]*\) .*/rank \1 sent \2 bytes, received \3/p' \
          -e 's/^ *rank \([0-9]*\) holds \([0-9]*\) .*/rank \1 held \2 bytes of intermediate arrays/p' > want
      timeout 300 mpirun --oversubscribe -np $np "$P" run "$app.pipe" --backend mpi --mpi-strategy $strategy \
        --mpi-grid $grid --mpi-steps $steps </dev/null 2>err | grep '^rank ' > got
      if [ ! -s want ] || ! cmp -s want got; then
        echo "FAIL: $app, $cfg, $np ranks: predicted"; cat want; echo "counted:"; cat got err; fail=1
      else
        echo "ok: $app, $cfg, $np ranks: $(paste -sd ';' got)"
      fi
      rm -f ./*.png ./*.npy
    done
  done
done <<'APPS'
blur R 640 C 480
harris R 400 C 320
local_laplacian R 320 C 192
heat3d N 62 T 3 communicate:steps2 communicate:grid:steps2
APPS
exit $fail
