// bilateral_grid.cpp: apps/bilateral_grid.pipe in Halide 14.  Halide's
// coordinates are the pipeline's reversed: the .pipe's grid(c, i, j, k) is
// grid(k, j, i, c) here.
#include "compare.h"
#include "bilateral_grid_default.h"
#include "bilateral_grid_naive.h"
#include "bilateral_grid_tuned.h"

extern "C" {
#include "ref_bilateral_grid.h"
}

using namespace Halide;

App make_bilateral_grid(bool quick)
{
	int R = quick ? 517 : 2560, C = quick ? 389 : 1536;
	App a;
	a.name = "bilateral_grid";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " f32";
	a.in.push_back(alloc_buf(PT_F32, { R + 56, C + 56 }));
	fill(a.in[0], 7);
	// Sums of 81 floats per cell, three blurs and a division: another
	// order of the same additions moves the result by ~1e-6 relative.
	a.out.push_back(make_output(PT_F32, { R, C }, whole({ R, C }), { 1e-5, 0, 0 }));
	ref_bilateral_grid(R, C, (const float *)a.in[0].data, nullptr, nullptr, (float *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(bilateral_grid, v, R, C, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam Ip(Float(32), 2, "I");
		Param<int> pR("R"), pC("C");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func I = input(Ip, guard);
		pR.set(R), pC.set(C);
		pR.set_estimate(R), pC.set_estimate(C);
		Expr GX = (pR + 55) / 8 - 1, GY = (pC + 55) / 8 - 1;
		Var x("x"), y("y"), z("z"), c("c");
		// grid: cell (x, y) gathers the 9 x 9 pixels around (8x, 8y) into
		// bins; rx outer, ry inner, as the .pipe's reduction.
		Func grid("grid"), blurz("blurz"), blurx("blurx"), blury("blury"),
			interpolated("interpolated"), filtered("filtered");
		RDom r(0, 9, 0, 9);
		Expr px = I(8 * y - 4 + r.x, 8 * x - 4 + r.y);
		Expr bin = clamp(2 + cast<int32_t>(px * 10 + 0.5f), 0, 14);
		grid(z, y, x, c) = 0.0f;
		grid(bin, y, x, c) += select(c == 0, px, 1.0f);
		blurz(z, y, x, c) = grid(z - 2, y, x, c) + 4 * grid(z - 1, y, x, c) + 6 * grid(z, y, x, c)
			+ 4 * grid(z + 1, y, x, c) + grid(z + 2, y, x, c);
		blurx(z, y, x, c) = blurz(z, y, x - 2, c) + 4 * blurz(z, y, x - 1, c) + 6 * blurz(z, y, x, c)
			+ 4 * blurz(z, y, x + 1, c) + blurz(z, y, x + 2, c);
		blury(z, y, x, c) = blurx(z, y - 2, x, c) + 4 * blurx(z, y - 1, x, c) + 6 * blurx(z, y, x, c)
			+ 4 * blurx(z, y + 1, x, c) + blurx(z, y + 2, x, c);
		// Trilinear slicing at (x/8, y/8, 10 v).
		Expr zv = I(y, x) * 10;
		Expr zi = cast<int32_t>(zv);
		Expr zf = zv - zi;
		Expr xf = cast<float>(x % 8) / 8, yf = cast<float>(y % 8) / 8;
		Expr z0 = clamp(2 + zi, 2, 12), z1 = clamp(3 + zi, 2, 12);
		auto b = [&](Expr dx, Expr dy, Expr zz) { return blury(zz, y / 8 + dy, x / 8 + dx, c); };
		Expr l00 = b(0, 0, z0) + xf * (b(1, 0, z0) - b(0, 0, z0));
		Expr l10 = b(0, 1, z0) + xf * (b(1, 1, z0) - b(0, 1, z0));
		Expr l01 = b(0, 0, z1) + xf * (b(1, 0, z1) - b(0, 0, z1));
		Expr l11 = b(0, 1, z1) + xf * (b(1, 1, z1) - b(0, 1, z1));
		Expr l0 = l00 + yf * (l10 - l00), l1 = l01 + yf * (l11 - l01);
		interpolated(y, x, c) = l0 + zf * (l1 - l0);
		filtered(y, x) = select(interpolated(y, x, 1) > 0,
			interpolated(y, x, 0) / interpolated(y, x, 1), I(y, x));
		HalideApp h;
		h.outputs = { filtered };
		h.targets = { hview(out, { 24, 24 }) };
		estimate_like(filtered, h.targets[0]);
		// Halide's apps/bilateral_grid CPU schedule: the grid built per
		// row of cells inside the first blur's parallel loop, the blurs
		// computed whole (parallel, vectorized along cells, channels
		// unrolled; cells stored contiguously), the slicing inlined into
		// the output.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			for (Func f : { grid, blurz, blurx, blury })
				f.bound(c, 0, 2).reorder_storage(y, z, x, c);
			grid.compute_at(blurz, x);
			grid.update().reorder(c, r.x, r.y, y, x).unroll(c);
			blurz.compute_root().reorder(c, z, y, x).parallel(x).vectorize(y, vec).unroll(c);
			blurx.compute_root().reorder(c, y, x, z).parallel(z).vectorize(y, vec).unroll(c);
			blury.compute_root().reorder(c, y, x, z).parallel(z).vectorize(y, vec).unroll(c);
			filtered.parallel(x, 8).vectorize(y, vec);
		};
		return h;
	};
	return a;
}
