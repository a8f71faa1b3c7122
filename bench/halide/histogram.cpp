// histogram.cpp: apps/histogram.pipe (256 bins of a u8 image, i32 counts)
// in Halide 14, and OpenCV's calcHist.
#include "compare.h"
#include "histogram_default.h"
#include "histogram_naive.h"
#include "histogram_tuned.h"

#include <opencv2/imgproc.hpp>

using namespace Halide;

App make_histogram(bool quick)
{
	int R = quick ? 1001 : 6400, C = quick ? 803 : 6400;
	App a;
	a.name = "histogram";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " u8";
	a.in.push_back(alloc_buf(PT_U8, { R, C }));
	fill(a.in[0], 5);
	a.out.push_back(make_output(PT_I32, { 256 }, whole({ 256 }), {}));
	ref_histogram(R, C, (const uint8_t *)a.in[0].data, (int32_t *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(histogram, v, R, C, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam Ip(UInt(8), 2, "I");
		Param<int> pR("R"), pC("C");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func I = input(Ip, guard);
		pR.set(R), pC.set(C);
		pR.set_estimate(R), pC.set_estimate(C);
		Var b("b");
		RDom r(0, pC, 0, pR);
		Func hist("hist");
		hist(b) = 0;
		hist(cast<int32_t>(I(r.x, r.y))) += 1;
		HalideApp h;
		h.outputs = { hist };
		h.targets = { hview(out) };
		estimate_like(hist, h.targets[0]);
		// Halide's parallel histogram (tutorial lesson 18): rfactor the
		// rows into chunks of 64, a private histogram per chunk in
		// parallel, then the chunks' histograms summed, vectorized.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<int32_t>();
			RVar ro("ro"), ri("ri");
			Var u("u");
			hist.update().split(r.y, ro, ri, 64);
			Func part = hist.update().rfactor(ro, u);
			part.compute_root().vectorize(b, vec).parallel(u);
			part.update().parallel(u);
			hist.vectorize(b, vec);
			hist.update().vectorize(b, vec);
		};
		return h;
	};

	a.opencv = [=]() {
		cv::Mat src(R, C, CV_8U, in.data), hf, dst(256, 1, CV_32S, out.data);
		int channel = 0, bins = 256;
		float range[] = { 0, 256 };
		const float *ranges[] = { range };
		cv::calcHist(&src, 1, &channel, cv::Mat(), hf, 1, &bins, ranges);
		hf.convertTo(dst, CV_32S);
	};
	a.opencv_how = "cv::calcHist (f32 counts) + convertTo i32";
	return a;
}
