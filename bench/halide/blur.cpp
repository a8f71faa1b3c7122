// blur.cpp: apps/blur.pipe (3x1 then 1x3 box, u16, truncating division)
// in Halide 14, and OpenCV.  Halide's coordinates are the pipeline's
// reversed: the .pipe's f(x, y) is f(y, x) here (y contiguous).
#include "compare.h"
#include "blur_default.h"
#include "blur_naive.h"
#include "blur_tuned.h"

#include <opencv2/imgproc.hpp>

#include <array>
#include <memory>

using namespace Halide;

App make_blur(bool quick)
{
	int R = quick ? 1003 : 6400, C = quick ? 717 : 4800;
	App a;
	a.name = "blur";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " u16";
	a.in.push_back(alloc_buf(PT_U16, { R + 2, C + 2 }));
	fill(a.in[0], 3);
	a.out.push_back(make_output(PT_U16, { R, C }, whole({ R, C }), {}));
	ref_blur(R, C, (const uint16_t *)a.in[0].data, (uint16_t *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(blur, v, R, C, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam Ip(UInt(16), 2, "I");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func I = input(Ip, guard);
		Var x("x"), y("y");
		Func bx("bx"), blur("blur");
		// The sums are the language's: u16 operands added in i32.
		auto w = [](Expr e) { return cast<int32_t>(e); };
		bx(y, x) = cast<uint16_t>((w(I(y, x)) + w(I(y + 1, x)) + w(I(y + 2, x))) / 3);
		blur(y, x) = cast<uint16_t>((w(bx(y, x)) + w(bx(y, x + 1)) + w(bx(y, x + 2))) / 3);
		HalideApp h;
		h.outputs = { blur };
		h.targets = { hview(out) };
		estimate_like(blur, h.targets[0]);
		// Halide's apps/blur schedule: 256 x 32 tiles in parallel rows of
		// tiles, the first pass computed per tile, both vectorized.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<uint16_t>();
			Var xi("xi"), yi("yi");
			blur.tile(y, x, yi, xi, 256, 32).vectorize(yi, vec).parallel(x);
			bx.compute_at(blur, y).vectorize(y, vec);
		};
		return h;
	};

	// Unnormalized 3-sums (boxFilter to i32), then the truncating division
	// by 3: convertTo rounds s * (1/3) - 1/3 to nearest, which is s / 3
	// rounded down for every integer s >= 0.  The padded input's border
	// handling is never read for the points kept.
	// The intermediate Mats are kept from call to call (allocated once).
	auto tmp = std::make_shared<std::array<cv::Mat, 3>>();
	a.opencv = [=]() {
		cv::Mat src(R + 2, C + 2, CV_16U, in.data), dst(R, C, CV_16U, out.data);
		cv::Mat &s = (*tmp)[0], &b = (*tmp)[1], &s2 = (*tmp)[2];
		cv::boxFilter(src, s, CV_32S, cv::Size(3, 1), cv::Point(-1, -1), false);
		s.convertTo(b, CV_16U, 1.0 / 3, -1.0 / 3);
		cv::boxFilter(b, s2, CV_32S, cv::Size(1, 3), cv::Point(-1, -1), false);
		s2(cv::Rect(1, 1, C, R)).convertTo(dst, CV_16U, 1.0 / 3, -1.0 / 3);
	};
	a.opencv_how = "cv::boxFilter 3x1 and 1x3 (unnormalized, i32) + convertTo (truncating / 3)";
	return a;
}
