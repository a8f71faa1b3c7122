// argmin.cpp: apps/argmin.pipe (the least value of an N^4 u8 volume and
// its first point in lexicographic order) in Halide 14, scheduled as
// Halide's test/performance/rfactor.cpp schedules its 4-D argmin: an
// RDom over the volume, rfactor of the outer dimension into a partial
// per value of it (in parallel), whose inner dimension is split and
// rfactored again into vector lanes, then merged.
//
// That test's Tuple update (min of the value, select(amin[0] < v,
// amin[i], r.i) for each index) matches Halide's argmin pattern, which
// sends a tie to the later operand, and Halide's table calls it
// commutative: once the lanes hold interleaved points, which of equal
// values wins depends on the schedule.  A random u8 volume of 64^4 holds
// each value about 65536 times, so the tie rule decides the indices.
// Here the value and the point's lexicographic index are one u32 key
// (value in the top 8 bits, ((a N + b) N + c) N + d below: N <= 64), whose
// plain min is the language's argmin (docs/language.md §12) in any order,
// and which Halide proves associative for rfactor.  Halide's coordinates
// are the pipeline's reversed: the .pipe's V(a, b, c, d) is V(d, c, b, a).
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
		// r.x is d (contiguous), r.w is a
		RDom r(0, pN, 0, pN, 0, pN, 0, pN, "r");
		Expr lin = ((r.w * pN + r.z) * pN + r.y) * pN + r.x;
		Expr key = (cast<uint32_t>(V(r.x, r.y, r.z, r.w)) << 24) | cast<uint32_t>(lin);
		Func amin("amin");
		amin() = UInt(32).max();
		amin() = min(amin(), key);
		Var k("k");
		Expr best = cast<int32_t>(amin() & 0xffffff);
		Func val("am_0");
		val(k) = cast<uint8_t>(amin() >> 24);
		std::vector<Func> ix;
		Expr n3 = pN * pN * pN, n2 = pN * pN;
		Expr coord[4] = { best / n3, best / n2 % pN, best / pN % pN, best % pN };
		for (int c = 0; c < 4; c++) {
			Func f("am_" + std::to_string(c + 1));
			f(k) = coord[c];
			ix.push_back(f);
		}
		HalideApp h;
		h.outputs = { val, ix[0], ix[1], ix[2], ix[3] };
		for (size_t o = 0; o < outs.size(); o++) {
			h.targets.push_back(hview(outs[o]));
			estimate_like(h.outputs[o], h.targets[o]);
		}
		// Halide's rfactor.cpp schedule: a partial per a in parallel;
		// inside it d split into vectors, a partial per lane, merged.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<uint32_t>();
			Var u("u"), v("v");
			RVar rxo("rxo"), rxi("rxi");
			amin.compute_root();
			Func intm1 = amin.update().rfactor(r.w, u);
			intm1.compute_root();
			intm1.update().parallel(u);
			Func intm2 = intm1.update().split(r.x, rxo, rxi, vec).rfactor(rxi, v);
			intm2.compute_at(intm1, u).vectorize(v);
			intm2.update().vectorize(v);
		};
		return h;
	};
	return a;
}
