#!/usr/bin/env bash
# The main job: installs what polytile needs, builds it (release, with
# its Python package), and processes photographs that python3-skimage
# ships (nothing is copied into the repository): local Laplacian detail
# enhancement and an unsharp mask on coffee.png, Harris corners drawn
# over camera.png, each a before | after PNG (python/examples/
# photo_demo.py, printing compile and run times), then `polytile run` on
# camera.png from the command line.  The pictures go to build-release/demo/.
# As root it also installs polytile under /usr/local (meson install).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/install-deps.sh
[ -d build-release ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release >/dev/null
# Installed (prefix /usr/local): the polytile command, libpolytile and
# the Python package, so that python3 -c "import polytile" works after
# this script.  Not as root, it is left in the build directory.
if [ "$(id -u)" = 0 ]; then
  meson install -C build-release --quiet >/dev/null
  echo "installed: $(command -v polytile || echo /usr/local/bin/polytile), and the polytile Python package for /usr/bin/python3"
  # another python3 first on PATH (pyenv, a venv) has neither Debian's
  # numpy nor this package: say which interpreter to use
  py=$(command -v python3 || true)
  if [ -n "$py" ] && ! "$py" -c 'import polytile' 2>/dev/null; then
    echo "note: python3 on PATH is $py, which does not see Debian's packages; use /usr/bin/python3 -c \"import polytile\""
  fi
else
  echo "not root: nothing installed (as root, meson install -C build-release); the package is in build-release/python"
fi
out=build-release/demo
# Debian's interpreter: the one python3-numpy and python3-skimage are for
PYTHONPATH=build-release/python /usr/bin/python3 python/examples/photo_demo.py --out "$out"
photo=$(/usr/bin/python3 -c 'import os, skimage.data as d; print(os.path.join(os.path.dirname(d.__file__), "camera.png"))')
echo "polytile run apps/harris.pipe --in I=$photo:"
./build-release/cli/polytile run apps/harris.pipe --in I="$photo" \
  --out harris="$out/camera_harris_response.png" --normalize
