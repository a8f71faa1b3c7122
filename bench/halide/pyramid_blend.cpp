// pyramid_blend.cpp: apps/pyramid_blend.pipe in Halide 14, and OpenCV
// (pyrDown / pyrUp).  Halide's coordinates are the pipeline's reversed:
// the .pipe's f(c, x, y) is f(y, x, c) here.  Every level keeps the .pipe's
// 2-point ring of zeros: the filters are defined on the interior and 0
// outside it.
#include "compare.h"

extern "C" {
#include "ref_pyramid_blend.h"
// The generated header names the output parameter `Col[0]`, which does not
// compile as C++ (an array of size 0): the prototypes, by hand.
int pyramid_blend_naive(int32_t R, int32_t C, const pt_buffer *img1, const pt_buffer *img2,
	const pt_buffer *mask, pt_buffer *out);
int pyramid_blend_default(int32_t R, int32_t C, const pt_buffer *img1, const pt_buffer *img2,
	const pt_buffer *mask, pt_buffer *out);
int pyramid_blend_tuned(int32_t R, int32_t C, const pt_buffer *img1, const pt_buffer *img2,
	const pt_buffer *mask, pt_buffer *out);
}

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

using namespace Halide;

App make_pyramid_blend(bool quick)
{
	const int L = 4;
	int R = quick ? 256 : 2048, C = quick ? 192 : 2048;
	App a;
	a.name = "pyramid_blend";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " x 3 f32";
	a.in.push_back(alloc_buf(PT_F32, { 3, R + 4, C + 4 }));
	a.in.push_back(alloc_buf(PT_F32, { 3, R + 4, C + 4 }));
	a.in.push_back(alloc_buf(PT_F32, { R + 4, C + 4 }));
	fill(a.in[0], 9);
	fill(a.in[1], 10);
	fill(a.in[2], 11);
	OutBuf o = make_output(PT_F32, { 3, R + 4, C + 4 }, whole({ 3, R + 4, C + 4 }), { 1e-5, 0, 0 });
	// OpenCV reflects the image at its border where the .pipe pads each
	// level with zeros: compare only points farther than 48 pixels from
	// the border (4 levels of 5-tap filters down and 3-tap up reach about
	// 60 taps of geometrically shrinking weight: below 1e-6 there, as in
	// tests/opencv), values in [0, 1] to 1e-5.
	o.cv_box = { { 0, 2 + 48, 2 + 48 }, { 2, R + 1 - 48, C + 1 - 48 } };
	o.cv_tol = { 0, 1e-5, 0 };
	a.out.push_back(o);
	ref_pyramid_blend(R, C, (const float *)a.in[0].data, (const float *)a.in[1].data,
		(const float *)a.in[2].data, (float *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.in[1]) + nbytes(a.in[2]) + nbytes(a.out[0].buf));

	pt_buffer i1 = a.in[0], i2 = a.in[1], mk = a.in[2], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(pyramid_blend, v, R, C, &i1, &i2, &mk, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam p1(Float(32), 3, "img1"), p2(Float(32), 3, "img2"), pm(Float(32), 2, "mask");
		Param<int> pR("R"), pC("C");
		p1.set(hview(i1)), p2.set(hview(i2)), pm.set(hview(mk));
		estimate_like(p1, i1), estimate_like(p2, i2), estimate_like(pm, mk);
		Func img1 = input(p1, guard), img2 = input(p2, guard), mask = input(pm, guard);
		pR.set(R), pC.set(C);
		pR.set_estimate(R), pC.set_estimate(C);
		Var x("x"), y("y"), c("c");
		auto Rl = [&](int l) { return pR / (1 << l); };
		auto Cl = [&](int l) { return pC / (1 << l); };
		// Level l's interior: rows 2 .. Rl+1, columns 2 .. (cols)+1.
		auto in_ = [&](int l, Expr cols) { return x >= 2 && x <= Rl(l) + 1 && y >= 2 && y <= cols + 1; };

		// 1. Gaussian pyramids (G[i][l], M[l]); level 0 is the input.
		Func G[3][L], Dx[3][L], M[L], Mx[L];
		G[1][0](y, x, c) = img1(y, x, c);
		G[2][0](y, x, c) = img2(y, x, c);
		M[0](y, x) = mask(y, x);
		auto down_x = [&](Func f, bool col) {	// 1-4-6-4-1 / 16 along x
			auto g = [&](Expr xx) { return col ? f(y, xx) : f(y, xx, c); };
			return (g(2 * x - 4) + g(2 * x - 3) * 4 + g(2 * x - 2) * 6 + g(2 * x - 1) * 4 + g(2 * x)) * 0.0625f;
		};
		auto down_y = [&](Func f, bool col) {
			auto g = [&](Expr yy) { return col ? f(yy, x) : f(yy, x, c); };
			return (g(2 * y - 4) + g(2 * y - 3) * 4 + g(2 * y - 2) * 6 + g(2 * y - 1) * 4 + g(2 * y)) * 0.0625f;
		};
		// The down-sampling stencils of the ring's points (which select
		// 0) would read outside the level below: reading it clamped to
		// its box (rows x cols points) keeps Halide's bounds there.
		auto boxed = [&](Func f, Expr rows, Expr cols) {
			Region r = { { 0, cols }, { 0, rows } };
			if (f.dimensions() == 3)
				r.push_back(Range(Expr(), Expr()));
			return BoundaryConditions::repeat_edge(f, r);
		};
		for (int l = 1; l < L; l++) {
			Expr r0 = Rl(l - 1) + 4, r1 = Rl(l) + 4, c0 = Cl(l - 1) + 4;
			for (int i = 1; i <= 2; i++) {
				Dx[i][l] = Func("Dx" + std::to_string(i) + "_" + std::to_string(l));
				G[i][l] = Func("G" + std::to_string(i) + "_" + std::to_string(l));
				Dx[i][l](y, x, c) = select(in_(l, Cl(l - 1)), down_x(boxed(G[i][l - 1], r0, c0), false), 0.0f);
				G[i][l](y, x, c) = select(in_(l, Cl(l)), down_y(boxed(Dx[i][l], r1, c0), false), 0.0f);
			}
			Mx[l] = Func("Mx" + std::to_string(l));
			M[l] = Func("M" + std::to_string(l));
			Mx[l](y, x) = select(in_(l, Cl(l - 1)), down_x(boxed(M[l - 1], r0, c0), true), 0.0f);
			M[l](y, x) = select(in_(l, Cl(l)), down_y(boxed(Mx[l], r1, c0), true), 0.0f);
		}
		// 2-4. Laplacians, blend, collapse.  Point x of level l sits
		// between x/2 + 1 and x/2 + 2 of level l+1.
		auto up_x = [&](Func f) {
			Expr b = x / 2 + 1;
			return select(x % 2 == 0, (f(y, b - 1, c) + f(y, b, c) * 6 + f(y, b + 1, c)) * 0.125f,
				(f(y, b, c) * 4 + f(y, b + 1, c) * 4) * 0.125f);
		};
		auto up_y = [&](Func f) {
			Expr b = y / 2 + 1;
			return select(y % 2 == 0, (f(b - 1, x, c) + f(b, x, c) * 6 + f(b + 1, x, c)) * 0.125f,
				(f(b, x, c) * 4 + f(b + 1, x, c) * 4) * 0.125f);
		};
		Func Ux[3][L], Uy[3][L], Lap[3][L], Res[L], Cx[L], Cy[L], Col[L];
		Col[L - 1] = Func("Col" + std::to_string(L - 1));
		Col[L - 1](y, x, c) = G[1][L - 1](y, x, c) * M[L - 1](y, x) + G[2][L - 1](y, x, c) * (1 - M[L - 1](y, x));
		for (int l = L - 2; l >= 0; l--) {
			std::string s = std::to_string(l);
			for (int i = 1; i <= 2; i++) {
				std::string si = std::to_string(i) + "_" + s;
				Ux[i][l] = Func("Ux" + si), Uy[i][l] = Func("Uy" + si), Lap[i][l] = Func("Lap" + si);
				Ux[i][l](y, x, c) = select(in_(l, Cl(l + 1)), up_x(G[i][l + 1]), 0.0f);
				Uy[i][l](y, x, c) = select(in_(l, Cl(l)), up_y(Ux[i][l]), 0.0f);
				Lap[i][l](y, x, c) = G[i][l](y, x, c) - Uy[i][l](y, x, c);
			}
			Res[l] = Func("Res" + s), Cx[l] = Func("Cx" + s), Cy[l] = Func("Cy" + s), Col[l] = Func("Col" + s);
			Res[l](y, x, c) = Lap[1][l](y, x, c) * M[l](y, x) + Lap[2][l](y, x, c) * (1 - M[l](y, x));
			Cx[l](y, x, c) = select(in_(l, Cl(l + 1)), up_x(Col[l + 1]), 0.0f);
			Cy[l](y, x, c) = select(in_(l, Cl(l)), up_y(Cx[l]), 0.0f);
			Col[l](y, x, c) = Cy[l](y, x, c) + Res[l](y, x, c);
		}
		Func out0 = Col[0];
		HalideApp h;
		h.outputs = { out0 };
		h.targets = { hview(out) };
		estimate_like(out0, h.targets[0]);
		// Halide-style pyramid schedule (as its local_laplacian's): every
		// level's stages computed whole, rows in parallel, vectorized, the
		// x pass of each filter computed per row of its y pass (its
		// consumer), the Laplacians and blends inlined into the collapse.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			for (int l = 1; l < L; l++) {
				for (int i = 1; i <= 2; i++) {
					G[i][l].compute_root().parallel(x, 4).vectorize(y, vec);
					Dx[i][l].compute_at(G[i][l], x).vectorize(y, vec);
				}
				M[l].compute_root().parallel(x, 4).vectorize(y, vec);
				Mx[l].compute_at(M[l], x).vectorize(y, vec);
			}
			for (int l = L - 1; l >= 0; l--) {
				Col[l].compute_root().parallel(x, 4).vectorize(y, vec);
				if (l < L - 1) {
					Cx[l].compute_at(Col[l], x).vectorize(y, vec);
					for (int i = 1; i <= 2; i++)
						Ux[i][l].compute_at(Col[l], x).vectorize(y, vec);
				}
			}
		};
		return h;
	};

	// OpenCV on the interiors (no ring): per plane, Gaussian pyramids by
	// pyrDown, Laplacians by pyrUp, blended by the mask's pyramid and
	// collapsed by pyrUp, into the output's interior.
	a.opencv = [=]() {
		for (int ch = 0; ch < 3; ch++) {
			cv::Rect r(2, 2, C, R);
			cv::Mat im1 = cv::Mat(R + 4, C + 4, CV_32F, (float *)i1.data + (size_t)ch * i1.stride[0])(r);
			cv::Mat im2 = cv::Mat(R + 4, C + 4, CV_32F, (float *)i2.data + (size_t)ch * i2.stride[0])(r);
			cv::Mat m = cv::Mat(R + 4, C + 4, CV_32F, mk.data)(r);
			cv::Mat dst = cv::Mat(R + 4, C + 4, CV_32F, (float *)out.data + (size_t)ch * out.stride[0])(r);
			cv::Mat g1[L], g2[L], gm[L];
			g1[0] = im1, g2[0] = im2, gm[0] = m;
			for (int l = 1; l < L; l++) {
				cv::pyrDown(g1[l - 1], g1[l]);
				cv::pyrDown(g2[l - 1], g2[l]);
				cv::pyrDown(gm[l - 1], gm[l]);
			}
			cv::Mat col = g1[L - 1].mul(gm[L - 1]) + g2[L - 1].mul(1 - gm[L - 1]);
			for (int l = L - 2; l >= 0; l--) {
				cv::Mat u1, u2, uc;
				cv::pyrUp(g1[l + 1], u1, g1[l].size());
				cv::pyrUp(g2[l + 1], u2, g2[l].size());
				cv::pyrUp(col, uc, g1[l].size());
				col = uc + (g1[l] - u1).mul(gm[l]) + (g2[l] - u2).mul(1 - gm[l]);
			}
			col.copyTo(dst);
		}
	};
	a.opencv_how = "per plane cv::pyrDown x 3 pyramids, cv::pyrUp, matrix expressions";
	return a;
}
