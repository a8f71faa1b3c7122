// iir_blur.cpp: apps/iir_blur.pipe in Halide 14, written as Halide's
// apps/iir_blur generator is: each pass pair is a Func with two updates
// (down the columns, then back up), followed by a transpose, applied
// twice, so that the row passes also run down columns.  Halide's
// coordinates are the pipeline's reversed: the .pipe's f(c, x, y) is
// f(y, x, c) here (Halide's x is the column, y the row).
#include "compare.h"
#include "iir_blur_default.h"
#include "iir_blur_naive.h"
#include "iir_blur_tuned.h"

extern "C" {
#include "ref_iir_blur.h"
}

using namespace Halide;

namespace {

// One column pass pair and its transpose, with what the hand schedule
// names.
struct ColsT {
	Func blur, transpose;
	RDom ry;
};

ColsT blur_cols_transpose(Func in, Expr height, Expr alpha, Var x, Var y, Var c, const std::string &n)
{
	ColsT r{ Func("blur" + n), Func("transpose" + n), RDom(1, height - 1, "ry" + n) };
	// As Halide's: an undefined pure definition, the first row copied,
	// then down the columns from it and back up from the last row; the
	// .pipe's expressions in its order.
	r.blur(x, y, c) = undef<float>();
	r.blur(x, 0, c) = in(x, 0, c);
	r.blur(x, r.ry, c) = (1 - alpha) * r.blur(x, r.ry - 1, c) + alpha * in(x, r.ry, c);
	Expr flip = height - r.ry - 1;
	r.blur(x, flip, c) = (1 - alpha) * r.blur(x, flip + 1, c) + alpha * r.blur(x, flip, c);
	r.transpose(x, y, c) = r.blur(y, x, c);
	return r;
}

} // namespace

App make_iir_blur(bool quick)
{
	int R = quick ? 301 : 2560, C = quick ? 203 : 1536;
	const float alpha = 0.1f;
	App a;
	a.name = "iir_blur";
	a.size = std::to_string(C) + " x " + std::to_string(R) + " x 3 f32";
	a.in.push_back(alloc_buf(PT_F32, { 3, R, C }));
	fill(a.in[0], 12);
	a.out.push_back(make_output(PT_F32, { 3, R, C }, whole({ 3, R, C }), { 1e-5, 0, 0 }));
	ref_iir_blur(R, C, alpha, (const float *)a.in[0].data, (float *)a.out[0].ref.data);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(iir_blur, v, R, C, alpha, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam Ip(Float(32), 3, "I");
		Param<float> pa("a");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func I = input(Ip, guard);
		pa.set(alpha);
		pa.set_estimate(alpha);
		Var x("x"), y("y"), c("c");
		// The columns (height R), then the columns of the transpose (the
		// rows, height C), transposed back.
		ColsT first = blur_cols_transpose(I, R, pa, x, y, c, "1");
		ColsT second = blur_cols_transpose(first.transpose, C, pa, x, y, c, "2");
		Func outf = second.transpose;
		HalideApp h;
		h.outputs = { outf };
		h.targets = { hview(out) };
		estimate_like(outf, h.targets[0]);
		// Halide's CPU schedule, per pass pair: the transpose in tiles of
		// vec x 4 vec, in parallel over strips of tile rows and channels;
		// each strip's filter computed at the strip (its columns stay in
		// cache for the transpose), both recurrences inside a vectorized
		// loop across the columns.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<float>();
			for (ColsT *p : { &first, &second }) {
				ColsT &s = *p;
				Var xo("xo"), yo("yo");
				s.transpose.compute_root()
					.tile(x, y, xo, yo, x, y, vec, vec * 4)
					.vectorize(x)
					.parallel(yo)
					.parallel(c);
				s.blur.compute_at(s.transpose, yo);
				// the first row's copy as Halide's app leaves it (scalar)
				s.blur.update(0).unscheduled();
				s.blur.update(1).reorder(x, s.ry).vectorize(x);
				s.blur.update(2).reorder(x, s.ry).vectorize(x);
			}
		};
		return h;
	};
	return a;
}
