// local_laplacian.cpp: apps/local_laplacian.pipe in Halide 14.  Halide's
// coordinates are the pipeline's reversed: the .pipe's f(k, x, y) is
// f(y, x, k) here.  Every level keeps the .pipe's 2-point ring of zeros.
#include "compare.h"
#include "local_laplacian_default.h"
#include "local_laplacian_naive.h"
#include "local_laplacian_tuned.h"

extern "C" {
#include "ref_local_laplacian.h"
}

using namespace Halide;

App make_local_laplacian(bool quick)
{
	int R = quick ? 256 : 2560, C = quick ? 384 : 1536;
	const float alpha = 1.0f / 7, beta = 1;
	App a;
	a.name = "local_laplacian";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " x 3 u16";
	a.in.push_back(alloc_buf(PT_U16, { 3, R + 4, C + 4 }));
	fill(a.in[0], 14);
	// u16 from f32: Halide's exp (its own polynomial) is a few ulps from
	// libm's expf in the remapping LUT, which can move a result across an
	// integer: 1 apart.  And Halide fuses multiply-adds (the gray level
	// 0.299 r + 0.587 g + 0.114 b): where the gray level times 1792 lies
	// within an ulp of an integer, the LUT index (int of it) moves by one,
	// a step of the remapping curve that the pyramid spreads to its
	// neighbours (measured: 19 of 294,912 points, at most 72 apart at
	// 256 x 384).  So up to 1e-4 of the points may differ by more than 1.
	a.out.push_back(make_output(PT_U16, { 3, R, C }, whole({ 3, R, C }), { 0, 1, 1e-4 }));
	ref_local_laplacian(R, C, alpha, beta, (const uint16_t *)a.in[0].data,
		(uint16_t *)a.out[0].ref.data, nullptr);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(local_laplacian, v, R, C, alpha, beta, &in, &out);
	};

	a.halide = [=](bool guard) {
		const int J = 8, K = 8, LUT_MAX = (K - 1) * 256;
		const float STEP = (float)(1.0 / (K - 1)), EPS = 0.01f;
		ImageParam Ip(UInt(16), 3, "I");
		Param<int> pR("R"), pC("C");
		Param<float> pA("alpha"), pB("beta");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func I = input(Ip, guard);
		pR.set(R), pC.set(C), pA.set(alpha), pB.set(beta);
		pR.set_estimate(R), pC.set_estimate(C), pA.set_estimate(alpha), pB.set_estimate(beta);
		Var x("x"), y("y"), k("k"), c("c"), r("r");
		auto Rl = [&](int l) { return pR / (1 << l); };
		auto Cl = [&](int l) { return pC / (1 << l); };
		auto inside = [&](int l, Expr cols) { return x >= 2 && x <= Rl(l) + 1 && y >= 2 && y <= cols + 1; };
		auto str = [](const char *n, int l) { return std::string(n) + std::to_string(l); };
		// The down-sampling stencils of ring points (which select 0) read
		// outside the level below: read it clamped to its box (rows x
		// cols points) to keep Halide's bounds there.
		auto boxed = [&](Func f, Expr rows, Expr cols) {
			Region rg = { { 0, cols }, { 0, rows } };
			if (f.dimensions() == 3)
				rg.push_back(Range(Expr(), Expr()));
			return BoundaryConditions::repeat_edge(f, rg);
		};
		// f is a level's Func of (y, x) or (y, x, k): at(f, yy, xx).
		auto at = [&](Func f, Expr yy, Expr xx) { return f.dimensions() == 3 ? f(yy, xx, k) : f(yy, xx); };
		auto dn_x = [&](Func f) {
			return (at(f, y, 2 * x - 3) + 3.0f * at(f, y, 2 * x - 2) + 3.0f * at(f, y, 2 * x - 1)
				+ at(f, y, 2 * x)) * 0.125f;
		};
		auto dn_y = [&](Func f) {
			return (at(f, 2 * y - 3, x) + 3.0f * at(f, 2 * y - 2, x) + 3.0f * at(f, 2 * y - 1, x)
				+ at(f, 2 * y, x)) * 0.125f;
		};
		auto up_x = [&](Func f) {
			return select(x % 2 == 0, 0.25f * at(f, y, x / 2) + 0.75f * at(f, y, x / 2 + 1),
				0.25f * at(f, y, x / 2 + 2) + 0.75f * at(f, y, x / 2 + 1));
		};
		auto up_y = [&](Func f) {
			return select(y % 2 == 0, 0.25f * at(f, y / 2, x) + 0.75f * at(f, y / 2 + 1, x),
				0.25f * at(f, y / 2 + 2, x) + 0.75f * at(f, y / 2 + 1, x));
		};

		Func inG[J], G[J], inDx[J], Dx[J], Ux[J], U[J], Lp[J], outUx[J], outU[J], outL[J], outG[J];
		for (int l = 0; l < J; l++) {
			inG[l] = Func(str("inG", l)), G[l] = Func(str("G", l)), inDx[l] = Func(str("inDx", l));
			Dx[l] = Func(str("Dx", l)), Ux[l] = Func(str("Ux", l)), U[l] = Func(str("U", l));
			Lp[l] = Func(str("L", l)), outUx[l] = Func(str("outUx", l)), outU[l] = Func(str("outU", l));
			outL[l] = Func(str("outL", l)), outG[l] = Func(str("outG", l));
		}
		inG[0](y, x) = (0.299f * cast<float>(I(y, x, 0)) + 0.587f * cast<float>(I(y, x, 1))
			+ 0.114f * cast<float>(I(y, x, 2))) / 65535.0f;
		Func remap("remap");
		Expr fr = cast<float>(r) / 256.0f;
		remap(r) = pA * fr * exp(-fr * fr / 2.0f);
		Expr lut = clamp(cast<int32_t>(inG[0](y, x) * (float)LUT_MAX), 0, LUT_MAX);
		Expr kf = cast<float>(k);
		G[0](y, x, k) = pB * (inG[0](y, x) - kf * STEP) + kf * STEP + remap(lut - 256 * k);
		for (int l = 1; l < J; l++) {
			Expr r0 = Rl(l - 1) + 4, r1 = Rl(l) + 4, c0 = Cl(l - 1) + 4;
			inDx[l](y, x) = select(inside(l, Cl(l - 1)), dn_x(boxed(inG[l - 1], r0, c0)), 0.0f);
			inG[l](y, x) = select(inside(l, Cl(l)), dn_y(boxed(inDx[l], r1, c0)), 0.0f);
			Dx[l](y, x, k) = select(inside(l, Cl(l - 1)), dn_x(boxed(G[l - 1], r0, c0)), 0.0f);
			G[l](y, x, k) = select(inside(l, Cl(l)), dn_y(boxed(Dx[l], r1, c0)), 0.0f);
		}
		for (int l = 0; l < J - 1; l++) {
			Ux[l](y, x, k) = select(inside(l, Cl(l + 1)), up_x(G[l + 1]), 0.0f);
			U[l](y, x, k) = select(inside(l, Cl(l)), up_y(Ux[l]), 0.0f);
			Lp[l](y, x, k) = G[l](y, x, k) - U[l](y, x, k);
		}
		// The output pyramid: the Laplacian level interpolated between the
		// two intensity levels nearest to inG[l].
		for (int l = 0; l < J; l++) {
			Expr lev = inG[l](y, x) * (float)(K - 1);
			Expr li = clamp(cast<int32_t>(lev), 0, K - 2);
			Expr lf = lev - cast<float>(li);
			Func src = l < J - 1 ? Lp[l] : G[l];
			Expr v = src(y, x, li) * (1.0f - lf) + src(y, x, li + 1) * lf;
			if (l < J - 1)
				outL[l](y, x) = v;
			else
				outG[l](y, x) = v;
		}
		for (int l = J - 2; l >= 0; l--) {
			outUx[l](y, x) = select(inside(l, Cl(l + 1)), up_x(outG[l + 1]), 0.0f);
			outU[l](y, x) = select(inside(l, Cl(l)), up_y(outUx[l]), 0.0f);
			outG[l](y, x) = outU[l](y, x) + outL[l](y, x);
		}
		Func outp("out");
		Expr v = outG[0](y + 2, x + 2) * (cast<float>(I(y + 2, x + 2, c)) / 65535.0f + EPS)
			/ (inG[0](y + 2, x + 2) + EPS);
		outp(y, x, c) = cast<uint16_t>(clamp(v, 0.0f, 1.0f) * 65535.0f);

		HalideApp h;
		h.outputs = { outp };
		h.targets = { hview(out) };
		estimate_like(outp, h.targets[0]);
		// Halide's published CPU schedule (apps/local_laplacian, v14): the
		// LUT and the fine levels of the pyramids computed whole (rows in
		// parallel, vectorized; the remapped pyramids with the intensity
		// level inside the row loop), the output in 64-row strips in
		// parallel with the fine output levels slid down each strip, the
		// coarse levels computed whole; plus each x pass of the down-
		// sampling computed per row of its y pass instead of inlined.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			Var xo("xo");
			remap.compute_root();
			outp.bound(c, 0, 3).reorder(c, y, x).split(x, xo, x, 64).parallel(xo).vectorize(y, vec);
			inG[0].compute_root().parallel(x, 32).vectorize(y, vec);
			for (int j = 1; j < 5; j++) {
				inG[j].compute_root().parallel(x, 32).vectorize(y, vec);
				inDx[j].compute_at(inG[j], x).vectorize(y, vec);
				G[j].compute_root().bound(k, 0, K).reorder_storage(y, k, x).reorder(k, x)
					.parallel(x, 8).vectorize(y, vec);
				Dx[j].compute_at(G[j], k).vectorize(y, vec);
				outG[j].store_at(outp, xo).compute_at(outp, x).fold_storage(x, 4).vectorize(y, vec);
			}
			outG[0].compute_at(outp, x).vectorize(y, vec);
			for (int j = 5; j < J; j++) {
				inG[j].compute_root();
				G[j].compute_root().bound(k, 0, K).parallel(k);
				outG[j].compute_root();
			}
		};
		return h;
	};
	return a;
}
