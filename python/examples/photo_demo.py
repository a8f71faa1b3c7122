#!/usr/bin/python3
"""The demo on photographs (the README's first command, through demo.sh):
polytile from Python on scikit-image's photos (python3-skimage ships
them; public domain and CC0, nothing is copied into this repository).

  coffee.png     local Laplacian detail enhancement, before | after
  coffee.png     unsharp mask, before | after
  camera.png     Harris corners drawn in red over the photograph

Writes the PNGs to --out (default: demo-out) and prints, per pipeline, the
time to compile (LLVM, or a hit in the compile cache) and to run.
"""

import argparse
import os
import sys
import time

import numpy as np
from PIL import Image
from scipy import ndimage
from skimage import data, draw

import polytile

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps")


def timed(p, label, **kw):
    """Compiles p, then runs it twice (the first run also starts the
    threads): prints both times, returns the output."""
    opts = {k: kw.pop(k) for k in list(kw) if k in ("threads", "tile")}
    t0 = time.perf_counter()
    p.compile_program(**opts)
    t1 = time.perf_counter()
    p(**kw, **opts)
    t2 = time.perf_counter()
    out = p(**kw, **opts)
    t3 = time.perf_counter()
    print(f"  {label}: compile {t1 - t0:.2f} s, run {1e3 * (t3 - t2):.1f} ms"
          f" (first run {1e3 * (t2 - t1):.1f} ms)")
    return out


def side_by_side(before, after):
    """before | after with a white gap, both H x W x 3 u8."""
    gap = np.full((before.shape[0], 12, 3), 255, np.uint8)
    return np.concatenate([before, gap, after], axis=1)


def save(img, out, name):
    path = os.path.join(out, name)
    Image.fromarray(img).save(path)
    print(f"  wrote {path} ({img.shape[1]} x {img.shape[0]})")
    return path


def local_laplacian(photo, out, threads):
    p = polytile.load(os.path.join(APPS, "local_laplacian.pipe"))
    rgb16 = photo.astype(np.uint16) * 257                     # 8 to 16 bits
    planes = np.pad(rgb16.transpose(2, 0, 1), ((0, 0), (2, 2), (2, 2)), mode="reflect")
    res = timed(p, f"local_laplacian ({len(p.stages)} stages, {photo.shape[0]} x {photo.shape[1]})",
                I=planes, alpha=0.3, beta=1.0, threads=threads)
    after = (res.transpose(1, 2, 0) // 257).astype(np.uint8)
    save(side_by_side(photo, after), out, "coffee_local_laplacian.png")


def unsharp(photo, out, threads):
    p = polytile.load(os.path.join(APPS, "unsharp_mask.pipe"))
    f = photo.astype(np.float32).transpose(2, 0, 1) / 255
    planes = np.pad(f, ((0, 0), (2, 2), (2, 2)), mode="reflect")
    res = timed(p, f"unsharp_mask ({len(p.stages)} stages)", img=planes, weight=3.0,
                threshold=0.02, threads=threads)
    after = (np.clip(res, 0, 1).transpose(1, 2, 0) * 255 + 0.5).astype(np.uint8)
    save(side_by_side(photo, after), out, "coffee_unsharp.png")


def harris(gray, out, threads):
    p = polytile.load(os.path.join(APPS, "harris.pipe"))
    img = np.pad(gray.astype(np.float32) / 255, 1, mode="reflect")
    res = timed(p, f"harris ({len(p.stages)} stages, {gray.shape[0]} x {gray.shape[1]})",
                I=img, threads=threads)
    r = res[1:-1, 1:-1]                                      # the photo's pixels
    peaks = (r == ndimage.maximum_filter(r, size=9)) & (r > 0.02 * r.max())
    ys, xs = np.nonzero(peaks)
    keep = np.argsort(r[ys, xs])[::-1][:300]                 # the strongest corners
    pic = np.stack([gray] * 3, axis=-1)
    for y, x in zip(ys[keep], xs[keep]):
        rr, cc = draw.circle_perimeter(y, x, 4, shape=pic.shape[:2])
        pic[rr, cc] = (255, 32, 32)
    print(f"  harris: {len(keep)} corners of {peaks.sum()} local maxima over 2% of the peak response")
    save(side_by_side(np.stack([gray] * 3, axis=-1), pic), out, "camera_harris.png")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="demo-out", help="directory for the PNGs")
    ap.add_argument("--threads", type=int, default=None, help="threads of each run (default: all CPUs)")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    print(f"photos: {os.path.dirname(data.__file__)} (python3-skimage)")
    coffee = data.coffee()
    local_laplacian(coffee, a.out, a.threads)
    unsharp(coffee, a.out, a.threads)
    harris(data.camera(), a.out, a.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
