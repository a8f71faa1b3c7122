#!/usr/bin/env python3
"""Write a .pipe with a chain of N stages over a 2-D image (issue 13).

Stages alternate point-wise and 3-tap stencils; the stencils alternate
between x and y.  By default a stencil clamps its reads to the image
(`f(max(x-1, 0), y)`, as camera_pipe and interpolate do at their
edges), so every stage has the image's domain.  With --bounded the
stencils read only inside their producer instead (as blur and harris
do): each stencil's domain is one point smaller on each side of its
dim, so R and C must exceed the number of stencils along each dim.

  python3 bench/gen_chain.py 500 > chain500.pipe
  python3 bench/gen_chain.py 100 --bounded --rows 512 --cols 384 -o c.pipe
"""

import argparse
import sys

# Point-wise stages cycle through these (v: the previous stage at (x, y)).
# Some are cheap enough for -O1 to inline into the next stencil, some not.
POINTWISE = [
    "{v} * 0.75",
    "select({v} > 0.5, {v} - 0.125, {v} * 1.0625)",
    "abs({v} - 0.5) * 0.5 + {v} * 0.5",
    "min(max({v}, 0.0), 4.0)",
]


def chain(n, bounded, rows, cols):
    if n < 1:
        raise ValueError("N must be at least 1")
    out = []
    w = out.append
    w("# A generated chain of %d stages (bench/gen_chain.py %d%s):" %
      (n, n, " --bounded" if bounded else ""))
    w("# point-wise stages alternating with 3-tap stencils along x, then y.")
    w("pipeline chain%d" % n)
    w("")
    w("param R : int = %d" % rows)
    w("param C : int = %d" % cols)
    w("image I : float [R, C]")
    w("")
    # lo/hi margins of the current domain per dim (bounded chains shrink).
    lo = [0, 0]
    prev = "I"
    nstencil = 0
    for k in range(n):
        name = "s%d" % k
        if k % 2 == 0:
            body = POINTWISE[(k // 2) % len(POINTWISE)].format(
                v="%s(x, y)" % prev)
        else:
            d = nstencil % 2          # 0: along x, 1: along y
            nstencil += 1
            ext = ["R", "C"][d]
            if bounded:
                lo[d] += 1
                m = lo[d] - 1         # the producer's margin in dim d
                lm, rp = "%s-1" % "xy"[d], "%s+1" % "xy"[d]
            else:
                lm = "max(%s-1, 0)" % "xy"[d]
                rp = "min(%s+1, %s-1)" % ("xy"[d], ext)
            idx = lambda e: "%s(%s)" % (prev, ", ".join(
                e if i == d else "xy"[i] for i in range(2)))
            body = "(%s + %s * 2.0 + %s) * 0.25" % (
                idx(lm), idx("xy"[d]), idx(rp))
        dims = "x : %d .. R-%d, y : %d .. C-%d" % (lo[0], lo[0] + 1,
                                                   lo[1], lo[1] + 1)
        w("func %s(%s) : float = %s" % (name, dims, body))
        prev = name
    w("")
    w("output %s" % prev)
    if bounded and (2 * lo[0] >= rows or 2 * lo[1] >= cols):
        raise ValueError("--bounded with %d stencils needs R > %d and C > %d"
                         % (nstencil, 2 * lo[0], 2 * lo[1]))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int, help="number of stages")
    ap.add_argument("--bounded", action="store_true",
                    help="stencils read inside their producer (domains shrink)")
    ap.add_argument("--rows", type=int, default=2048, help="R's estimate")
    ap.add_argument("--cols", type=int, default=2048, help="C's estimate")
    ap.add_argument("-o", dest="out", help="output file (default stdout)")
    a = ap.parse_args()
    try:
        text = chain(a.n, a.bounded, a.rows, a.cols)
    except ValueError as e:
        sys.exit("gen_chain.py: %s" % e)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
