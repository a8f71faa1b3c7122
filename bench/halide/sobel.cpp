// sobel.cpp: apps/sobel.pipe (u8 input, i32 gradients, f32 magnitude) in
// Halide 14, and OpenCV's Sobel + magnitude.  Halide's coordinates are the
// pipeline's reversed: the .pipe's f(x, y) is f(y, x) here.
#include "compare.h"
#include "sobel_default.h"
#include "sobel_naive.h"
#include "sobel_tuned.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <array>
#include <memory>

using namespace Halide;

App make_sobel(bool quick)
{
	int R = quick ? 1003 : 6400, C = quick ? 717 : 4800;
	App a;
	a.name = "sobel";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " u8";
	a.in.push_back(alloc_buf(PT_U8, { R + 2, C + 2 }));
	fill(a.in[0], 4);
	// The magnitude of integer gradients: sqrt of an exact integer, the
	// same float everywhere.
	a.out.push_back(make_output(PT_F32, { R, C }, whole({ R, C }), {}));
	ref_sobel(R, C, (const uint8_t *)a.in[0].data, (float *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(sobel, v, R, C, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam Ip(UInt(8), 2, "I");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func I = input(Ip, guard);
		Var x("x"), y("y");
		Func In("In"), gx("gx"), gy("gy"), mag("mag");
		In(y, x) = cast<int32_t>(I(y, x));
		gx(y, x) = -In(y - 1, x - 1) + In(y + 1, x - 1) - 2 * In(y - 1, x) + 2 * In(y + 1, x)
			- In(y - 1, x + 1) + In(y + 1, x + 1);
		gy(y, x) = -In(y - 1, x - 1) - 2 * In(y, x - 1) - In(y + 1, x - 1) + In(y - 1, x + 1)
			+ 2 * In(y, x + 1) + In(y + 1, x + 1);
		mag(y, x) = sqrt(cast<float>(gx(y, x) * gx(y, x) + gy(y, x) * gy(y, x)));
		HalideApp h;
		h.outputs = { mag };
		h.targets = { hview(out, { 1, 1 }) };
		estimate_like(mag, h.targets[0]);
		// Point-wise over stencils of the input: everything inlined into
		// the output, strips of 32 rows in parallel, vectorized.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			Var xo("xo"), xi("xi");
			mag.split(x, xo, xi, 32).parallel(xo).vectorize(y, vec);
		};
		return h;
	};

	// OpenCV's dx is along columns (the .pipe's y), as gx; the magnitude
	// of exact integers in float is exact until the square root.
	auto tmp = std::make_shared<std::array<cv::Mat, 2>>();	// kept from call to call
	a.opencv = [=]() {
		cv::Mat src(R + 2, C + 2, CV_8U, in.data), dst(R, C, CV_32F, out.data);
		cv::Mat &gx = (*tmp)[0], &gy = (*tmp)[1];
		cv::Sobel(src, gx, CV_32F, 1, 0, 3);
		cv::Sobel(src, gy, CV_32F, 0, 1, 3);
		cv::Rect in_(1, 1, C, R);
		cv::magnitude(gx(in_), gy(in_), dst);
	};
	a.opencv_how = "cv::Sobel x and y (f32) + cv::magnitude";
	return a;
}
