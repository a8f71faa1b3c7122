// unsharp_mask.cpp: apps/unsharp_mask.pipe in Halide 14, and OpenCV
// (sepFilter2D + arithmetic).  Halide's coordinates are the pipeline's
// reversed: the .pipe's f(c, x, y) is f(y, x, c) here.
#include "compare.h"
#include "unsharp_mask_default.h"
#include "unsharp_mask_naive.h"
#include "unsharp_mask_tuned.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

using namespace Halide;

App make_unsharp_mask(bool quick)
{
	int R = quick ? 509 : 2048, C = quick ? 387 : 2048;
	const float threshold = 0.001f, weight = 3;
	App a;
	a.name = "unsharp_mask";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " x 3 f32";
	a.in.push_back(alloc_buf(PT_F32, { 3, R + 4, C + 4 }));
	fill(a.in[0], 2);
	OutBuf o = make_output(PT_F32, { 3, R, C }, whole({ 3, R, C }), { 1e-5, 0, 0 });
	// OpenCV sums in another order (and with FMA): ~1e-7 apart, so the
	// select may take the other branch where |img - blur| is within that
	// of the threshold; such points must stay rare (tests/opencv counts
	// them the same way).
	o.cv_tol = { 1e-5, 0, 1e-4 };
	a.out.push_back(o);
	ref_unsharp_mask(R, C, threshold, weight, (const float *)a.in[0].data, (float *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(unsharp_mask, v, R, C, threshold, weight, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam imgp(Float(32), 3, "img");
		Param<float> th("threshold"), w("weight");
		imgp.set(hview(in));
		estimate_like(imgp, in);
		Func img = input(imgp, guard);
		th.set(threshold), w.set(weight);
		th.set_estimate(threshold), w.set_estimate(weight);
		Var x("x"), y("y"), c("c");
		Func blurx("blurx"), blury("blury"), sharpen("sharpen"), mask("mask");
		blurx(y, x, c) = (img(y, x - 2, c) + img(y, x - 1, c) * 4.0f + img(y, x, c) * 6.0f
			+ img(y, x + 1, c) * 4.0f + img(y, x + 2, c)) * 0.0625f;
		blury(y, x, c) = (blurx(y - 2, x, c) + blurx(y - 1, x, c) * 4.0f + blurx(y, x, c) * 6.0f
			+ blurx(y + 1, x, c) * 4.0f + blurx(y + 2, x, c)) * 0.0625f;
		sharpen(y, x, c) = img(y, x, c) * (1 + w) - blury(y, x, c) * w;
		mask(y, x, c) = select(abs(img(y, x, c) - blury(y, x, c)) < th, img(y, x, c), sharpen(y, x, c));
		HalideApp h;
		h.outputs = { mask };
		h.targets = { hview(out, { 0, 2, 2 }) };
		estimate_like(mask, h.targets[0]);
		// Halide's apps/unsharp style: strips of 32 rows (of each plane)
		// in parallel, the vertical blur slid down the strip (one new row
		// per output row), the rest inlined into the output row.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			Var xo("xo"), xi("xi"), s("s");
			mask.split(x, xo, xi, 32).fuse(xo, c, s).parallel(s).vectorize(y, vec);
			blurx.store_at(mask, s).compute_at(mask, xi).vectorize(y, vec);
		};
		return h;
	};

	// Per plane: the separable 1-4-6-4-1 / 16 blur of the padded plane
	// (its border mode never reaches the interior kept), then the
	// sharpening and the select as matrix expressions.
	a.opencv = [=]() {
		cv::Mat k = (cv::Mat_<float>(1, 5) << 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f);
		for (int ch = 0; ch < 3; ch++) {
			cv::Mat src(R + 4, C + 4, CV_32F, (float *)in.data + (size_t)ch * in.stride[0]);
			cv::Mat dst(R, C, CV_32F, (float *)out.data + (size_t)ch * out.stride[0]);
			cv::Mat blur;
			cv::sepFilter2D(src, blur, CV_32F, k, k);
			cv::Rect r(2, 2, C, R);
			cv::Mat im = src(r), bl = blur(r);
			cv::Mat sharp = im * (1 + weight) - bl * weight;
			cv::Mat keep = cv::abs(im - bl) < threshold;
			sharp.copyTo(dst);
			im.copyTo(dst, keep);
		}
	};
	a.opencv_how = "per plane cv::sepFilter2D (1-4-6-4-1 / 16) + matrix expressions, copyTo with mask";
	return a;
}
