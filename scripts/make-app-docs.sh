#!/usr/bin/env bash
# Regenerates docs/img: for each app, its stage graph (SVG) and thumbnails
# of an input and its output, made with polytile itself (the thumbnails
# are halved with docs/tools/thumb_*.pipe until under 40 KB).
# Usage: scripts/make-app-docs.sh [IMAGES_DIR]   (default ../shared/images)
set -euo pipefail
cd "$(dirname "$0")/.."
imgs=${1:-../shared/images}
pt=build-release/cli/polytile
[ -x "$pt" ] || { meson setup build-release --buildtype=release >/dev/null; ninja -C build-release >/dev/null; }
out=docs/img
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# thumb SRC DEST: halve a gray or RGB 8-bit PNG until it is small.
thumb() {
  local src=$1 dest=$2 kind=gray
  cp "$src" "$tmp/t.png"
  while [ "$(stat -c %s "$tmp/t.png")" -gt 40000 ]; do
    if $pt run docs/tools/thumb_gray.pipe --in I="$tmp/t.png" --out half="$tmp/t2.png" --quiet 2>/dev/null; then :;
    else $pt run docs/tools/thumb_rgb.pipe --in I="$tmp/t.png" --out half="$tmp/t2.png" --quiet; fi
    mv "$tmp/t2.png" "$tmp/t.png"
  done
  cp "$tmp/t.png" "$dest"
}

# app NAME INPUT-BINDING OUTPUT-STAGE [extra run args...]
app() {
  local name=$1 input=$2 stage=$3
  shift 3
  $pt graph "apps/$name.pipe" -o "$out/$name-graph.svg" >/dev/null
  local src=${input#*=}
  $pt run "apps/$name.pipe" --in "$input" --out "$stage=$tmp/$name.png" --quiet "$@"
  thumb "$src" "$out/$name-in.png"
  thumb "$tmp/$name.png" "$out/$name-out.png"
  echo "$name: $(ls -s --block-size=K "$out/$name-in.png" "$out/$name-out.png" | awk '{printf "%s ", $1}')"
}

app harris I="$imgs/gray_small.png" harris --normalize
app unsharp_mask img="$imgs/rgb_small.png" mask
app sobel I="$imgs/gray_small.png" mag --normalize
app blur I="$imgs/gray_small.png" out --normalize
app camera_pipe img="$imgs/bayer_small.png" process
app bilateral_grid I="$imgs/gray_small.png" filtered
app local_laplacian I="$imgs/rgb_small16.png" out
app iir_blur I="$imgs/rgb_small.png" out

# Apps whose inputs are not plain pictures get a generated input: the
# thumbnail on the left is then the first input as polytile generates it.
gen() {
  local name=$1 stage=$2 image=$3
  shift 3
  $pt graph "apps/$name.pipe" -o "$out/$name-graph.svg" >/dev/null
  $pt run "apps/$name.pipe" --out "$stage=$tmp/$name.png" --quiet "$@"
  thumb "$tmp/$name.png" "$out/$name-out.png"
  echo "$name: $(ls -s --block-size=K "$out/$name-out.png" | awk '{print $1}')"
}
# pyramid_blend: the parrot (image 1) blended into a generated pattern
# (image 2) through a generated checkerboard-and-disc mask.
app pyramid_blend img1="$imgs/rgb_small.png" "Col[0]"
# interpolate: the parrot's colours with a generated opacity (squares and a
# disc), filled in from the opaque parts.
app interpolate rgb="$imgs/rgb_small.png" interpolate
$pt graph apps/heat3d.pipe -o "$out/heat3d-graph.svg" >/dev/null
$pt graph apps/histogram.pipe -o "$out/histogram-graph.svg" >/dev/null
$pt graph apps/argmin.pipe -o "$out/argmin-graph.svg" >/dev/null
