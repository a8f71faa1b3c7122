// interpolate.cpp: apps/interpolate.pipe in Halide 14.  Halide's
// coordinates are the pipeline's reversed: the .pipe's f(c, x, y) is
// f(y, x, c) here.  Every level keeps the .pipe's 1-point ring of zeros.
#include "compare.h"
#include "interpolate_default.h"
#include "interpolate_naive.h"
#include "interpolate_tuned.h"

extern "C" {
#include "ref_interpolate.h"
}

#include <cstring>

using namespace Halide;

App make_interpolate(bool quick)
{
	const int L = 10;
	int R = quick ? 512 : 2560, C = quick ? 768 : 1536;
	App a;
	a.name = "interpolate";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " x 3 f32 + alpha";
	a.in.push_back(alloc_buf(PT_F32, { 3, R + 2, C + 2 }));
	a.in.push_back(alloc_buf(PT_F32, { R + 2, C + 2 }));
	fill(a.in[0], 12);
	fill(a.in[1], 13);
	// Divisions by the interpolated alpha amplify rounding: 1e-4.
	a.out.push_back(make_output(PT_F32, { 3, R, C }, whole({ 3, R, C }), { 1e-4, 0, 0 }));
	{	// the reference takes RGBA planes
		size_t plane = (size_t)(R + 2) * (C + 2);
		std::vector<float> rgba(4 * plane);
		std::memcpy(rgba.data(), a.in[0].data, 3 * plane * sizeof(float));
		std::memcpy(rgba.data() + 3 * plane, a.in[1].data, plane * sizeof(float));
		ref_interpolate(R, C, rgba.data(), (float *)a.out[0].ref.data);
	}
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.in[1]) + nbytes(a.out[0].buf));

	pt_buffer rgb = a.in[0], alpha = a.in[1], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(interpolate, v, R, C, &rgb, &alpha, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam prgb(Float(32), 3, "rgb"), palpha(Float(32), 2, "alpha");
		Param<int> pR("R"), pC("C");
		prgb.set(hview(rgb)), palpha.set(hview(alpha));
		estimate_like(prgb, rgb), estimate_like(palpha, alpha);
		Func rgbf = input(prgb, guard), alphaf = input(palpha, guard);
		pR.set(R), pC.set(C);
		pR.set_estimate(R), pC.set_estimate(C);
		Var x("x"), y("y"), c("c");
		auto Rl = [&](int l) { return pR / (1 << l); };
		auto Cl = [&](int l) { return pC / (1 << l); };
		auto inside = [&](int l, Expr cols) { return x >= 1 && x <= Rl(l) && y >= 1 && y <= cols; };
		auto str = [](const char *n, int l) { return std::string(n) + std::to_string(l); };
		// Ring points' down-sampling stencils (which select 0) would read
		// outside the level below: read it clamped to its box.
		auto boxed = [&](Func f, Expr rows, Expr cols) {
			return BoundaryConditions::repeat_edge(f, { { 0, cols }, { 0, rows }, { Expr(), Expr() } });
		};
		Func down[L], downx[L], upx[L], interp[L];
		for (int l = 0; l < L; l++)
			down[l] = Func(str("down", l)), downx[l] = Func(str("downx", l)),
			upx[l] = Func(str("upx", l)), interp[l] = Func(str("interp", l));
		// Premultiplied; the alpha plane becomes alpha^2.
		down[0](y, x, c) = select(c <= 2, rgbf(y, x, min(c, 2)) * alphaf(y, x), alphaf(y, x) * alphaf(y, x));
		for (int l = 1; l < L; l++) {
			Func f = boxed(down[l - 1], Rl(l - 1) + 2, Cl(l - 1) + 2);
			downx[l](y, x, c) = select(inside(l, Cl(l - 1)),
				(f(y, 2 * x - 2, c) + f(y, 2 * x - 1, c) * 2 + f(y, 2 * x, c)) * 0.25f, 0.0f);
			Func g = boxed(downx[l], Rl(l) + 2, Cl(l - 1) + 2);
			down[l](y, x, c) = select(inside(l, Cl(l)),
				(g(2 * y - 2, x, c) + g(2 * y - 1, x, c) * 2 + g(2 * y, x, c)) * 0.25f, 0.0f);
		}
		interp[L - 1] = down[L - 1];
		for (int l = L - 2; l >= 0; l--) {
			Func f = interp[l + 1];
			upx[l](y, x, c) = select(inside(l, Cl(l + 1)),
				(f(y, (x + 1) / 2, c) + f(y, (x + 2) / 2, c)) / 2.0f, 0.0f);
			interp[l](y, x, c) = select(inside(l, Cl(l)), down[l](y, x, c) + (1.0f - down[l](y, x, 3))
				* ((upx[l]((y + 1) / 2, x, c) + upx[l]((y + 2) / 2, x, c)) / 2.0f), 0.0f);
		}
		Func result("interpolate");
		result(y, x, c) = interp[0](y + 1, x + 1, c) / interp[0](y + 1, x + 1, 3);

		HalideApp h;
		h.outputs = { result };
		h.targets = { hview(out) };
		estimate_like(result, h.targets[0]);
		// In the style of Halide's apps/interpolate CPU schedule: every
		// level computed whole, rows in parallel, the four planes of a row
		// together, vectorized; each x pass computed per row of the pass
		// that consumes it; the normalization per row of the output.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			for (int l = 0; l < L; l++) {
				down[l].compute_root().bound(c, 0, 4).reorder(y, c, x).parallel(x, 8).vectorize(y, vec);
				if (l > 0)
					downx[l].compute_at(down[l], x).vectorize(y, vec);
			}
			for (int l = L - 2; l >= 0; l--) {
				interp[l].compute_root().bound(c, 0, 4).reorder(y, c, x).parallel(x, 8).vectorize(y, vec);
				upx[l].compute_at(interp[l], x).vectorize(y, vec);
			}
			result.bound(c, 0, 3).reorder(y, c, x).parallel(x, 8).vectorize(y, vec);
		};
		return h;
	};
	return a;
}
