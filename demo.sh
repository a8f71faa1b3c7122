#!/usr/bin/env bash
# The main job: installs what polytile needs, builds it (release), and runs
# the bundled Harris corner pipeline on a generated 512x512 input, writing
# harris.png (values normalized for viewing) in the current directory.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install-deps.sh
[ -d build-release ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release >/dev/null
./build-release/cli/polytile check apps/harris.pipe | tail -n 1
./build-release/cli/polytile run apps/harris.pipe --param R=512 --param C=512 \
  --out harris=harris.png --normalize
