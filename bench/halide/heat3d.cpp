// heat3d.cpp: apps/heat3d.pipe in Halide 14: one 7-point step (`once`) and
// T steps with the border held (`last`).  Halide's coordinates are the
// pipeline's reversed: the .pipe's f(x, y, z) is f(z, y, x) here.  T is a
// param of the .pipe; Halide has no loop over Funcs, so the version is
// defined for the run's T (one Func per step).
#include "compare.h"
#include "heat3d_default.h"
#include "heat3d_naive.h"
#include "heat3d_tuned.h"

extern "C" {
#include "ref_heat3d.h"
}

#include <cstring>

using namespace Halide;

App make_heat3d(bool quick)
{
	int N = quick ? 62 : 510, T = 4;
	const float k = 0.125f;
	int64_t E = N + 2;
	App a;
	a.name = "heat3d";
	a.size = std::to_string(E) + "^3 f32, T = " + std::to_string(T);
	a.in.push_back(alloc_buf(PT_F32, { E, E, E }));
	fill(a.in[0], 6);
	a.out.push_back(make_output(PT_F32, { N, N, N }, whole({ N, N, N }), { 1e-5, 0, 0 }));
	a.out.push_back(make_output(PT_F32, { E, E, E }, whole({ E, E, E }), { 1e-5, 0, 0 }));
	// The reference writes `once` into an array like U's, at 1 .. N.
	std::vector<float> once_full((size_t)(E * E * E));
	ref_heat3d(N, T, k, (const float *)a.in[0].data, once_full.data(), (float *)a.out[1].ref.data);
	float *o = (float *)a.out[0].ref.data;
	for (int x = 0; x < N; x++)
		for (int y = 0; y < N; y++)
			std::memcpy(o + ((size_t)x * N + y) * N, &once_full[(((size_t)x + 1) * E + y + 1) * E + 1],
				N * sizeof(float));
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf) + nbytes(a.out[1].buf));

	pt_buffer in = a.in[0], once_b = a.out[0].buf, last_b = a.out[1].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(heat3d, v, N, T, k, &in, &once_b, &last_b);
	};

	a.halide = [=](bool guard) {
		ImageParam Up(Float(32), 3, "U");
		Param<int> pN("N");
		Param<float> pk("k");
		Up.set(hview(in));
		estimate_like(Up, in);
		Func U = input(Up, guard);
		pN.set(N), pk.set(k);
		pN.set_estimate(N), pk.set_estimate(k);
		Var x("x"), y("y"), z("z");
		// The .pipe's sum, in its order.
		auto step = [&](Func f) {
			return f(z, y, x) + pk * (f(z, y, x - 1) + f(z, y, x + 1) + f(z, y - 1, x)
				+ f(z, y + 1, x) + f(z - 1, y, x) + f(z + 1, y, x) - 6.0f * f(z, y, x));
		};
		Func Uf("Uf"), once("once");
		Uf(z, y, x) = U(z, y, x);
		once(z, y, x) = step(Uf);
		// heat[t] keeps U on the border; the stencil of a border point is
		// computed and thrown away (select), so step t reads step t-1 one
		// point beyond the box, and U is read through repeat_edge (in every
		// schedule, hand included: the values used never change).  Each
		// step is then computed over a box one point larger than the next
		// (4 planes per side at T = 4: 1.6% more points at N = 510), with
		// contiguous vector loads; clamping each step's reads to its box
		// instead made the hand schedule 5x slower than polytile naive.
		Func Ub = input(Up, true);
		std::vector<Func> heat(T + 1);
		heat[0] = Func("heat0");
		heat[0](z, y, x) = Ub(z, y, x);
		Expr interior = x >= 1 && x <= pN && y >= 1 && y <= pN && z >= 1 && z <= pN;
		for (int t = 1; t <= T; t++) {
			heat[t] = Func("heat" + std::to_string(t));
			heat[t](z, y, x) = select(interior, step(heat[t - 1]), Ub(z, y, x));
		}
		Func last = heat[T];
		HalideApp h;
		h.outputs = { once, last };
		h.targets = { hview(once_b, { 1, 1, 1 }), hview(last_b) };
		estimate_like(once, h.targets[0]);
		estimate_like(last, h.targets[1]);
		// Each step over the whole grid in parallel planes, vectorized
		// rows: a step reads 7 points of the previous one, so recomputing
		// steps in tiles would cost more than it saves at T = 4 unless
		// tiles were large; this is how Halide's users write a stencil
		// loop of unknown length.
		h.hand = [=](const Target &tg) mutable {
			const int vec = tg.natural_vector_size<float>();
			once.parallel(x).vectorize(z, vec);
			for (int t = 1; t <= T; t++)
				heat[t].compute_root().parallel(x).vectorize(z, vec);
		};
		return h;
	};
	return a;
}
