#!/bin/sh
# Builds harris_demo the way an application would, outside meson: the
# compiled pipeline's object and header, the C compiler, and
# `pkg-config --cflags --libs polytile_rt` (here the build tree's
# uninstalled .pc); then runs it.
#   link_with_pkgconfig.sh CC PKG_CONFIG_DIR HARRIS_O DEMO_C WORKDIR
set -eu
cc=$1 pcdir=$2 obj=$3 src=$4 work=$5
mkdir -p "$work"
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs polytile_rt)
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=prefix polytile_rt)/runtime
# shellcheck disable=SC2086
"$cc" -O2 -I "$(dirname "$obj")" "$src" "$obj" $flags -o "$work/harris_demo_pc"
LD_LIBRARY_PATH="$libdir" "$work/harris_demo_pc" 32 29
