#!/usr/bin/env bash
# Installs the Debian packages polytile needs (build, tests, next backends).
# Idempotent: packages already installed are skipped; works with no terminal.
set -euo pipefail

pkgs=(
  meson ninja-build pkg-config gcc g++
  libisl-dev libgmp-dev libppl-dev
  llvm-19-dev
  libopenmpi-dev openmpi-bin
  check libpng-dev zlib1g-dev
  graphviz gnuplot-nox
  libopencv-dev libhalide14-0-dev
  python3-dev python3-numpy python3-pytest python3-skimage
)

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq </dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
