// harris.cpp: apps/harris.pipe in Halide 14, and OpenCV's cornerHarris.
//
// Halide coordinates are the pipeline's with the dimensions reversed (the
// first is the contiguous one): the .pipe's f(x, y) is f(y, x) here.
// Sums are added in the .pipe's stencil order (row x-1 first, columns
// y-1 to y+1 within a row, zero weights left out), then scaled.
#include "compare.h"
#include "harris_default.h"
#include "harris_naive.h"
#include "harris_tuned.h"

#include <opencv2/imgproc.hpp>

using namespace Halide;

App make_harris(bool quick)
{
	int R = quick ? 509 : 6400, C = quick ? 387 : 6400;
	App a;
	a.name = "harris";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " f32";
	a.in.push_back(alloc_buf(PT_F32, { R + 2, C + 2 }));
	fill(a.in[0], 1);
	// Defined on 2 .. R-1 x 2 .. C-1 (the `border` case); the reference
	// leaves the rest alone.  Floats in another summation order (or with
	// OpenCV's SIMD) differ by a few ulps of the largest terms.
	Box box{ { 2, 2 }, { R - 1, C - 1 } };
	a.out.push_back(make_output(PT_F32, { R + 2, C + 2 }, box, { 1e-5, 0, 0 }));
	a.out[0].cv_tol = { 1e-4, 0, 0 };
	ref_harris(R, C, (const float *)a.in[0].data, (float *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(harris, v, R, C, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam Ip(Float(32), 2, "I");
		Param<int> pR("R"), pC("C");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func I = input(Ip, guard);
		pR.set(R), pC.set(C);
		pR.set_estimate(R), pC.set_estimate(C);
		Var x("x"), y("y");
		const float k = (float)(1.0 / 12);
		Func Ix("Ix"), Iy("Iy"), Ixx("Ixx"), Iyy("Iyy"), Ixy("Ixy"), Sxx("Sxx"), Syy("Syy"),
			Sxy("Sxy"), det("det"), trace("trace"), harris("harris");
		Ix(y, x) = (-I(y - 1, x - 1) + I(y + 1, x - 1) - 2.0f * I(y - 1, x) + 2.0f * I(y + 1, x)
			- I(y - 1, x + 1) + I(y + 1, x + 1)) * k;
		Iy(y, x) = (-I(y - 1, x - 1) - 2.0f * I(y, x - 1) - I(y + 1, x - 1) + I(y - 1, x + 1)
			+ 2.0f * I(y, x + 1) + I(y + 1, x + 1)) * k;
		Ixx(y, x) = Ix(y, x) * Ix(y, x);
		Iyy(y, x) = Iy(y, x) * Iy(y, x);
		Ixy(y, x) = Ix(y, x) * Iy(y, x);
		auto box3 = [&](Func f) {
			Expr s = f(y - 1, x - 1);
			for (int i = -1; i <= 1; i++)
				for (int j = -1; j <= 1; j++)
					if (i != -1 || j != -1)
						s = s + f(y + j, x + i);
			return s;
		};
		Sxx(y, x) = box3(Ixx);
		Syy(y, x) = box3(Iyy);
		Sxy(y, x) = box3(Ixy);
		det(y, x) = Sxx(y, x) * Syy(y, x) - Sxy(y, x) * Sxy(y, x);
		trace(y, x) = Sxx(y, x) + Syy(y, x);
		harris(y, x) = det(y, x) - 0.04f * trace(y, x) * trace(y, x);

		HalideApp h;
		h.outputs = { harris };
		h.targets = { hview_crop(out, {}, { 2, 2 }, { R - 1, C - 1 }) };
		estimate_like(harris, h.targets[0]);
		// Halide's apps/harris schedule: strips of 32 rows in parallel,
		// the gradients slid down each strip (stored per strip, computed
		// per row), everything else inlined into the output's row.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			Var xo("xo"), xi("xi");
			harris.split(x, xo, xi, 32).parallel(xo).vectorize(y, vec);
			Ix.store_at(harris, xo).compute_at(harris, xi).vectorize(y, vec);
			Iy.store_at(harris, xo).compute_at(harris, xi).vectorize(y, vec);
			Ix.compute_with(Iy, y);
		};
		return h;
	};

	// cornerHarris with OpenCV's defaults for a float image scales the
	// 3x3 Sobel by 1/12 and sums 3x3 windows unnormalized: the same
	// formula.  Its border (replicated) only reaches rows and columns
	// 0, 1, R, R+1, which the check leaves out.
	a.opencv = [=]() {
		cv::Mat src(R + 2, C + 2, CV_32F, in.data), dst(R + 2, C + 2, CV_32F, out.data);
		cv::cornerHarris(src, dst, 3, 3, 0.04, cv::BORDER_REPLICATE);
	};
	a.opencv_how = "cv::cornerHarris(block 3, Sobel 3, k 0.04)";
	return a;
}
