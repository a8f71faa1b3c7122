// test_opencv.cpp: the interpreter's harris and unsharp mask against
// OpenCV 4.6 (cv::cornerHarris, cv::sepFilter2D) on the interior, where
// boundary handling cannot differ.  OpenCV is an independent
// implementation with its own summation order (and SIMD), so floats are
// compared with a tolerance:
//  - harris: |ours - cv| <= 1e-4 * max|cv|.  Each response is a difference
//    of products of 9-term sums of products of 6-term sums; float rounding
//    in a different order moves it by a few ulps of the largest terms,
//    around 1e-6 relative; 1e-4 leaves margin while any algorithmic
//    difference (a wrong weight or window) moves it by far more.
//  - pyramid blending: the pipeline pads each level with zeros where OpenCV
//    reflects, so only points farther than 48 pixels from the border are
//    compared (the influence of a border through 4 levels of 5-tap filters
//    down and 3-tap filters up stays within about 2*(2+4+8+16) = 60 taps of
//    weights that shrink geometrically; 48 px leaves it below 1e-6);
//    |ours - cv| <= 1e-5 there (values in [0, 1], same weights, different
//    summation order).
//  - unsharp mask: |ours - cv| <= 1e-5 (values are in [0, 1] and the blur
//    weights sum to 1, so rounding differences are ~1e-7), except where
//    |img - blur| lies within 1e-5 of the threshold, where the two may
//    legitimately pick different branches of the select; those points are
//    counted and must be few.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "polytile.h"
extern "C" {
#include "ref_apps.h"
}

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

static int passed, failed;

static void expect(bool ok, const char *what)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		std::printf("FAIL: %s\n", what);
	}
}

// Runs an app with one float input; returns the named output's buffer
// copied into a vector (nullptr-free on failure: empty vector).
static std::vector<float> run_app(const char *app, const char *image, pt_buffer *in,
	const char *out, int64_t *extent, int ndim)
{
	std::vector<float> r;
	pt_ctx *ctx = pt_ctx_new();
	char path[512];
	std::snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, app);
	pt_pipeline *p = pt_parse_file(ctx, path);
	if (p) {
		pt_interp *it = pt_interp_new(ctx, p);
		if (pt_interp_set_input(it, image, in) == 0 && pt_interp_run(it) == 0) {
			const pt_buffer *b = pt_interp_result(it, out, nullptr, nullptr);
			int64_t n = pt_buffer_count(b);
			const float *d = static_cast<const float *>(b->data);
			r.assign(d, d + n);
			for (int i = 0; i < ndim; i++)
				extent[i] = b->extent[i];
		}
		pt_interp_free(it);
	}
	if (r.empty())
		std::printf("%s", pt_ctx_diagnostics(ctx));
	pt_ctx_free(ctx);
	return r;
}

static void harris_vs_opencv(int R, int C, uint32_t seed)
{
	pt_buffer in;
	int64_t ext[2] = {R + 2, C + 2};
	pt_buffer_alloc(&in, PT_F32, 2, ext);
	ref_fill_f32(static_cast<float *>(in.data), (size_t)(R + 2) * (C + 2), seed);
	int64_t oext[2];
	std::vector<float> ours = run_app("harris", "I", &in, "harris", oext, 2);
	expect(!ours.empty(), "harris runs in the interpreter");
	cv::Mat src(R + 2, C + 2, CV_32F, in.data), dst;
	cv::cornerHarris(src, dst, 3, 3, 0.04, cv::BORDER_REFLECT_101);
	double maxmag = 0, maxdiff = 0;
	for (int x = 2; x <= R - 1; x++)
		for (int y = 2; y <= C - 1; y++)
			maxmag = std::fmax(maxmag, std::fabs(dst.at<float>(x, y)));
	for (int x = 2; x <= R - 1 && !ours.empty(); x++)
		for (int y = 2; y <= C - 1; y++)
			maxdiff = std::fmax(maxdiff, std::fabs(ours[(size_t)x * (C + 2) + y] - dst.at<float>(x, y)));
	char what[200];
	std::snprintf(what, sizeof(what), "harris %dx%d vs cv::cornerHarris: max diff %.3g of %.3g", R, C, maxdiff, maxmag);
	std::printf("%s\n", what);
	expect(maxmag > 0 && maxdiff <= 1e-4 * maxmag, what);
	pt_buffer_free(&in);
}

static void unsharp_vs_opencv(int R, int C, uint32_t seed)
{
	const float threshold = 0.001f, weight = 3.0f;
	pt_buffer in;
	int64_t ext[3] = {3, R + 4, C + 4};
	pt_buffer_alloc(&in, PT_F32, 3, ext);
	float *img = static_cast<float *>(in.data);
	ref_fill_f32(img, (size_t)3 * (R + 4) * (C + 4), seed);
	int64_t oext[3];
	std::vector<float> ours = run_app("unsharp_mask", "img", &in, "mask", oext, 3);
	expect(!ours.empty(), "unsharp_mask runs in the interpreter");
	cv::Mat k = (cv::Mat_<float>(5, 1) << 1, 4, 6, 4, 1) / 16.0f;
	double maxdiff = 0;
	int near = 0, points = 0;
	for (int c = 0; c < 3 && !ours.empty(); c++) {
		cv::Mat plane(R + 4, C + 4, CV_32F, img + (size_t)c * (R + 4) * (C + 4)), blur;
		cv::sepFilter2D(plane, blur, CV_32F, k, k, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
		for (int x = 2; x <= R + 1; x++)
			for (int y = 2; y <= C + 1; y++) {
				float v = plane.at<float>(x, y), b = blur.at<float>(x, y);
				float cv_out = std::fabs(v - b) < threshold ? v : v * (1 + weight) - b * weight;
				float o = ours[((size_t)c * R + (x - 2)) * C + (y - 2)];
				points++;
				if (std::fabs(std::fabs(v - b) - threshold) <= 1e-5f) {
					near++;
					continue;
				}
				maxdiff = std::fmax(maxdiff, std::fabs(o - cv_out));
			}
	}
	char what[200];
	std::snprintf(what, sizeof(what), "unsharp %dx%d vs cv::sepFilter2D: max diff %.3g, %d of %d points at the threshold skipped",
		R, C, maxdiff, near, points);
	std::printf("%s\n", what);
	expect(maxdiff <= 1e-5 && near * 100 <= points, what);
	pt_buffer_free(&in);
}

// Blends two images with a mask the way apps/pyramid_blend.pipe does,
// with cv::pyrDown / cv::pyrUp (4 levels), on one channel.
static cv::Mat cv_blend(const cv::Mat &a, const cv::Mat &b, const cv::Mat &m, int levels)
{
	std::vector<cv::Mat> ga{a}, gb{b}, gm{m};
	for (int l = 1; l < levels; l++) {
		cv::Mat ta, tb, tm;     // distinct Mats: a Mat shares its pixels
		cv::pyrDown(ga.back(), ta);
		cv::pyrDown(gb.back(), tb);
		cv::pyrDown(gm.back(), tm);
		ga.push_back(ta);
		gb.push_back(tb);
		gm.push_back(tm);
	}
	cv::Mat one = cv::Mat::ones(gm.back().size(), CV_32F);
	cv::Mat col = ga.back().mul(gm.back()) + gb.back().mul(one - gm.back());
	for (int l = levels - 2; l >= 0; l--) {
		cv::Mat ua, ub, uc;
		cv::pyrUp(ga[l + 1], ua, ga[l].size());
		cv::pyrUp(gb[l + 1], ub, gb[l].size());
		cv::pyrUp(col, uc, ga[l].size());
		cv::Mat ones = cv::Mat::ones(gm[l].size(), CV_32F);
		cv::Mat res = (ga[l] - ua).mul(gm[l]) + (gb[l] - ub).mul(ones - gm[l]);
		col = uc + res;
	}
	return col;
}

static void pyramid_vs_opencv(int R, int C, uint32_t seed)
{
	const int margin = 48;
	pt_buffer a, b, m;
	int64_t ext3[3] = {3, R + 4, C + 4}, ext2[2] = {R + 4, C + 4};
	pt_buffer_alloc(&a, PT_F32, 3, ext3);
	pt_buffer_alloc(&b, PT_F32, 3, ext3);
	pt_buffer_alloc(&m, PT_F32, 2, ext2);
	ref_fill_f32(static_cast<float *>(a.data), (size_t)3 * (R + 4) * (C + 4), seed);
	ref_fill_f32(static_cast<float *>(b.data), (size_t)3 * (R + 4) * (C + 4), seed + 1);
	float *md = static_cast<float *>(m.data);
	for (int x = 0; x < R + 4; x++)      // a soft vertical seam
		for (int y = 0; y < C + 4; y++)
			md[x * (C + 4) + y] = y < (C + 4) / 2 ? 1.0f : 0.0f;
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, APPS_DIR "/pyramid_blend.pipe");
	pt_interp *it = p ? pt_interp_new(ctx, p) : nullptr;
	bool ok = it && pt_interp_set_input(it, "img1", &a) == 0 && pt_interp_set_input(it, "img2", &b) == 0 &&
		pt_interp_set_input(it, "mask", &m) == 0 && pt_interp_run(it) == 0;
	expect(ok, "pyramid_blend runs in the interpreter");
	if (!ok)
		std::printf("%s", pt_ctx_diagnostics(ctx));
	double maxdiff = 0;
	int compared = 0;
	for (int c = 0; c < 3 && ok; c++) {
		const pt_buffer *out = pt_interp_result(it, "Col[0]", nullptr, nullptr);
		const float *o = static_cast<const float *>(out->data);
		auto interior = [&](const pt_buffer &buf, int plane, bool planar) {
			cv::Mat full(R + 4, C + 4, CV_32F,
				static_cast<float *>(buf.data) + (planar ? (size_t)plane * (R + 4) * (C + 4) : 0));
			return full(cv::Rect(2, 2, C, R)).clone();
		};
		cv::Mat res = cv_blend(interior(a, c, true), interior(b, c, true), interior(m, 0, false), 4);
		for (int x = margin; x < R - margin; x++)
			for (int y = margin; y < C - margin; y++) {
				float ours = o[((size_t)c * (R + 4) + x + 2) * (C + 4) + y + 2];
				maxdiff = std::fmax(maxdiff, std::fabs(ours - res.at<float>(x, y)));
				compared++;
			}
	}
	char what[200];
	std::snprintf(what, sizeof(what), "pyramid_blend %dx%d vs cv::pyrDown/pyrUp: max diff %.3g over %d interior points",
		R, C, maxdiff, compared);
	std::printf("%s\n", what);
	expect(ok && compared > 0 && maxdiff <= 1e-5, what);
	pt_interp_free(it);
	pt_ctx_free(ctx);
	pt_buffer_free(&a);
	pt_buffer_free(&b);
	pt_buffer_free(&m);
}

int main()
{
	pyramid_vs_opencv(160, 136, 35);
	pyramid_vs_opencv(256, 200, 36);
	harris_vs_opencv(37, 29, 31);
	harris_vs_opencv(128, 96, 32);
	unsharp_vs_opencv(21, 17, 33);
	unsharp_vs_opencv(64, 48, 34);
	std::printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
