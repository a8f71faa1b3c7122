// argmin.cpp: apps/argmin.pipe (the least value of an N^4 u8 volume and
// its first point in lexicographic order) in Halide 14, written as
// Halide's test/performance/rfactor.cpp writes its 4-D argmin: an RDom
// over the volume and a Tuple update (the min of the values, and for each
// index select(amin[0] < v, amin[i], index): Halide's argmin pattern),
// factored with rfactor into partials computed in parallel, then merged.
//
// That pattern sends a tie to the later operand: serially, the last
// point visited among equal values wins.  So the RDom runs the volume
// backwards (the .pipe's a = N-1-r.w, .., d = N-1-r.x), which makes the
// last point visited the first in lexicographic order, the language's
// rule (docs/language.md §12; 64^4 random u8 values hold each value about
// 65536 times, so the rule decides the indices).  rfactor keeps it only
// where each partial is a contiguous run of the visiting order and the
// merge folds the partials in that order.  The test's schedule also
// rfactors the innermost dimension into vector lanes: interleaved
// points, whose tie goes to the last lane (Li2018, which factors on its
// own, gives a wrong index here).  Lanes over the next outer dimension b
// keep the rule but read 16 planes 4 KB apart: 58 ms at 1 thread against
// about 16 without them (d7cdb5c; docs/performance.md), so the partials,
// one per value of a, run in parallel and fold their b-c-d volume
// serially, and the merge folds them in the visiting order.  Halide's
// coordinates are the pipeline's reversed: the .pipe's V(a, b, c, d) is
// V(d, c, b, a).
#include "compare.h"
#include "argmin_default.h"
#include "argmin_naive.h"
#include "argmin_tuned.h"

extern "C" {
#include "ref_argmin.h"
}

using namespace Halide;

App make_argmin(bool quick)
{
	const int N = quick ? 32 : 64;
	App a;
	a.name = "argmin";
	a.size = std::to_string(N) + "^4 u8";
	a.in.push_back(alloc_buf(PT_U8, { N, N, N, N }));
	fill(a.in[0], 17);
	a.out.push_back(make_output(PT_U8, { 1 }, whole({ 1 }), {}));
	for (int k = 0; k < 4; k++)
		a.out.push_back(make_output(PT_I32, { 1 }, whole({ 1 }), {}));
	int32_t idx[4];
	ref_argmin(N, (const uint8_t *)a.in[0].data, (uint8_t *)a.out[0].ref.data, idx);
	for (int k = 0; k < 4; k++)
		*(int32_t *)a.out[k + 1].ref.data = idx[k];
	a.bytes = (double)nbytes(a.in[0]);

	pt_buffer in = a.in[0];
	std::vector<pt_buffer> outs;
	for (const OutBuf &o : a.out)
		outs.push_back(o.buf);
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(argmin, v, N, &in, &outs[0], &outs[1], &outs[2], &outs[3], &outs[4]);
	};

	a.halide = [=](bool guard) {
		ImageParam Ip(UInt(8), 4, "V");
		Param<int> pN("N");
		Ip.set(hview(in));
		estimate_like(Ip, in);
		Func V = input(Ip, guard);
		pN.set(N);
		pN.set_estimate(N);
		// backwards: the last point visited is the lexicographically first
		RDom r(0, pN, 0, pN, 0, pN, 0, pN, "r");
		Expr pd = pN - 1 - r.x, pc = pN - 1 - r.y, pb = pN - 1 - r.z, pa = pN - 1 - r.w;
		Expr val = cast<int32_t>(V(pd, pc, pb, pa));
		Func amin("amin");
		amin() = Tuple(255, 0, 0, 0, 0);
		Expr keep = amin()[0] < val;
		amin() = Tuple(min(amin()[0], val), select(keep, amin()[1], pa), select(keep, amin()[2], pb),
			select(keep, amin()[3], pc), select(keep, amin()[4], pd));
		Var k("k");
		Func am0("am_0");
		am0(k) = cast<uint8_t>(amin()[0]);
		std::vector<Func> ix;
		for (int c = 0; c < 4; c++) {
			Func f("am_" + std::to_string(c + 1));
			f(k) = amin()[c + 1];
			ix.push_back(f);
		}
		HalideApp h;
		h.outputs = { am0, ix[0], ix[1], ix[2], ix[3] };
		for (size_t o = 0; o < outs.size(); o++) {
			h.targets.push_back(hview(outs[o]));
			estimate_like(h.outputs[o], h.targets[o]);
		}
		// rfactor.cpp's first step: a partial per value of the outer
		// dimension (r.w: a), in parallel
		h.hand = [=](const Target &) mutable {
			Var u("u");
			amin.compute_root();
			Func intm = amin.update().rfactor(r.w, u);
			intm.compute_root().parallel(u);
			intm.update().parallel(u);
		};
		return h;
	};
	return a;
}
