// camera_pipe.cpp: apps/camera_pipe.pipe in Halide 14.  Halide's
// coordinates are the pipeline's reversed: the .pipe's f(c, x, y) is
// f(y, x, c) here; half-resolution planes keep the .pipe's half
// coordinates.  Stage values are int16 (cast<int16_t> wraps, as the
// .pipe's `short`), sums and differences int32, division floors (Halide's
// integer division does).
#include "compare.h"
#include "camera_pipe_default.h"
#include "camera_pipe_naive.h"
#include "camera_pipe_tuned.h"

extern "C" {
#include "ref_camera_pipe.h"
}

using namespace Halide;

App make_camera_pipe(bool quick)
{
	int R = quick ? 480 : 1920, C = quick ? 632 : 2528;
	const float colour_temp = 3700, gamma = 2.0f, contrast = 50;
	App a;
	a.name = "camera_pipe";
	a.size = std::to_string(R) + " x " + std::to_string(C) + " raw u16";
	a.in.push_back(alloc_buf(PT_U16, { R + 48, C + 64 }));
	fill(a.in[0], 8);
	// A raw image of 10-bit samples, as the .pipe's curve expects.
	uint16_t *raw = (uint16_t *)a.in[0].data;
	for (int64_t i = 0; i < pt_buffer_count(&a.in[0]); i++)
		raw[i] >>= 6;
	// The curve's LUT is computed in f32 with pow: Halide's pow is its own
	// polynomial, a few ulps from libm's powf, which can move a LUT entry
	// across an integer (255 * ulps): 1 apart at most.
	Box box = whole({ 3, R, C });
	a.out.push_back(make_output(PT_U8, { 3, R, C }, box, { 0, 1, 0 }));
	ref_camera_pipe(R, C, colour_temp, gamma, contrast, raw, (uint8_t *)a.out[0].ref.data,
		nullptr, nullptr, nullptr, nullptr);
	a.bytes = (double)(nbytes(a.in[0]) + nbytes(a.out[0].buf));

	pt_buffer in = a.in[0], out = a.out[0].buf;
	a.polytile = [=](PtVersion v) mutable {
		return PT_CALL(camera_pipe, v, R, C, colour_temp, gamma, contrast, &in, &out);
	};

	a.halide = [=](bool guard) {
		ImageParam imgp(UInt(16), 2, "img");
		Param<float> pT("colour_temp"), pG("gamma"), pK("contrast");
		imgp.set(hview(in));
		estimate_like(imgp, in);
		Func img = input(imgp, guard);
		pT.set(colour_temp), pG.set(gamma), pK.set(contrast);
		pT.set_estimate(colour_temp), pG.set_estimate(gamma), pK.set_estimate(contrast);
		Var x("x"), y("y"), c("c"), k("k"), v("v");
		auto i32 = [](Expr e) { return cast<int32_t>(e); };
		auto i16 = [](Expr e) { return cast<int16_t>(e); };

		// 1. Hot-pixel suppression.
		Func In("In"), denoised("denoised");
		In(y, x) = i32(img(y, x));
		Expr n0 = In(y, x - 2), n1 = In(y, x + 2), n2 = In(y - 2, x), n3 = In(y + 2, x);
		denoised(y, x) = i16(clamp(In(y, x), min(min(n0, n1), min(n2, n3)), max(max(n0, n1), max(n2, n3))));

		// 2. Deinterleave.
		Func deint("deinterleaved");
		deint(y, x, c) = select(c == 0, denoised(2 * y, 2 * x), c == 1, denoised(2 * y + 1, 2 * x),
			c == 2, denoised(2 * y, 2 * x + 1), denoised(2 * y + 1, 2 * x + 1));
		Func g_gr("g_gr"), r_r("r_r"), b_b("b_b"), g_gb("g_gb");
		g_gr(y, x) = deint(y, x, 0);
		r_r(y, x) = deint(y, x, 1);
		b_b(y, x) = deint(y, x, 2);
		g_gb(y, x) = deint(y, x, 3);

		// 3. Demosaic.  at(f, dx, dy) is the .pipe's f(x+dx, y+dy).
		auto at = [&](Func f, int dx, int dy) { return i32(f(y + dy, x + dx)); };
		Func g_r("g_r"), g_b("g_b");
		{
			Expr gv = (at(g_gb, -1, 0) + at(g_gb, 0, 0)) / 2, gvd = absd(at(g_gb, -1, 0), at(g_gb, 0, 0));
			Expr gh = (at(g_gr, 0, 1) + at(g_gr, 0, 0)) / 2, ghd = absd(at(g_gr, 0, 1), at(g_gr, 0, 0));
			g_r(y, x) = i16((select(ghd < gvd, gh, gv)));
		}
		{
			Expr gv = (at(g_gr, 1, 0) + at(g_gr, 0, 0)) / 2, gvd = absd(at(g_gr, 1, 0), at(g_gr, 0, 0));
			Expr gh = (at(g_gb, 0, -1) + at(g_gb, 0, 0)) / 2, ghd = absd(at(g_gb, 0, -1), at(g_gb, 0, 0));
			g_b(y, x) = i16((select(ghd < gvd, gh, gv)));
		}
		Func r_gr("r_gr"), b_gr("b_gr"), r_gb("r_gb"), b_gb("b_gb"), r_b("r_b"), b_r("b_r");
		r_gr(y, x) = i16((at(g_gr, 0, 0) - (at(g_r, 0, 0) + at(g_r, 0, -1)) / 2
			+ (at(r_r, 0, -1) + at(r_r, 0, 0)) / 2));
		b_gr(y, x) = i16((at(g_gr, 0, 0) - (at(g_b, 0, 0) + at(g_b, -1, 0)) / 2
			+ (at(b_b, 0, 0) + at(b_b, -1, 0)) / 2));
		r_gb(y, x) = i16((at(g_gb, 0, 0) - (at(g_r, 0, 0) + at(g_r, 1, 0)) / 2
			+ (at(r_r, 0, 0) + at(r_r, 1, 0)) / 2));
		b_gb(y, x) = i16((at(g_gb, 0, 0) - (at(g_b, 0, 0) + at(g_b, 0, 1)) / 2
			+ (at(b_b, 0, 0) + at(b_b, 0, 1)) / 2));
		{
			Expr rp = at(g_b, 0, 0) - (at(g_r, 0, 0) + at(g_r, 1, -1)) / 2 + (at(r_r, 0, 0) + at(r_r, 1, -1)) / 2;
			Expr rpd = absd(at(r_r, 0, 0), at(r_r, 1, -1));
			Expr rn = at(g_b, 0, 0) - (at(g_r, 0, -1) + at(g_r, 1, 0)) / 2 + (at(r_r, 0, -1) + at(r_r, 1, 0)) / 2;
			Expr rnd = absd(at(r_r, 0, -1), at(r_r, 1, 0));
			r_b(y, x) = i16((select(rpd < rnd, rp, rn)));
		}
		{
			Expr bp = at(g_r, 0, 0) - (at(g_b, 0, 0) + at(g_b, -1, 1)) / 2 + (at(b_b, 0, 0) + at(b_b, -1, 1)) / 2;
			Expr bpd = absd(at(b_b, 0, 0), at(b_b, -1, 1));
			Expr bn = at(g_r, 0, 0) - (at(g_b, 0, 1) + at(g_b, -1, 0)) / 2 + (at(b_b, 0, 1) + at(b_b, -1, 0)) / 2;
			Expr bnd = absd(at(b_b, 0, 1), at(b_b, -1, 0));
			b_r(y, x) = i16((select(bpd < bnd, bp, bn)));
		}

		// 4. Interleave: columns of each half-resolution row, then rows.
		auto inter = [&](Func e0, Func e1, Func o0, Func o1) {
			Expr hy = y / 2, hx = x / 2;
			return select(x % 2 == 0, select(y % 2 == 0, e0(hy, hx), e1(hy, hx)),
				select(y % 2 == 0, o0(hy, hx), o1(hy, hx)));
		};
		Func rgb("rgb");
		rgb(y, x, c) = select(c == 0, inter(r_gr, r_r, r_b, r_gb),
			c == 1, inter(g_gr, g_r, g_b, g_gb), inter(b_gr, b_r, b_b, b_gb));

		// 5. Colour correction: the Q8.8 matrix from the params.
		static const float m3200[3][4] = { { 1.6697f, -0.2693f, -0.4004f, -42.4346f },
			{ -0.3576f, 1.0615f, 1.5949f, -37.1158f }, { -0.2175f, -1.8751f, 6.9640f, -26.6970f } };
		static const float m7000[3][4] = { { 2.2997f, -0.4478f, 0.1706f, -39.0923f },
			{ -0.3826f, 1.5906f, -0.2080f, -25.4311f }, { -0.0888f, -0.7344f, 2.2832f, -20.0826f } };
		Func m32("matrix_3200"), m70("matrix_7000"), matrix("matrix");
		Expr e32 = 0.0f, e70 = 0.0f;
		for (int ci = 2; ci >= 0; ci--)
			for (int ki = 3; ki >= 0; ki--) {
				e32 = select(c == ci && k == ki, m3200[ci][ki], e32);
				e70 = select(c == ci && k == ki, m7000[ci][ki], e70);
			}
		m32(k, c) = e32;
		m70(k, c) = e70;
		Expr alpha = (1.0f / pT - (float)(1.0 / 3200)) / (float)(1.0 / 7000 - 1.0 / 3200);
		matrix(k, c) = i32((m32(k, c) * alpha + m70(k, c) * (1.0f - alpha)) * 256.0f);
		Func corrected("corrected");
		corrected(y, x, c) = i16((matrix(3, c) + matrix(0, c) * i32(rgb(y, x, 0)) + matrix(1, c) * i32(rgb(y, x, 1))
			+ matrix(2, c) * i32(rgb(y, x, 2))) / 256);

		// 6. The curve, a LUT over every short.
		Func curve("curve");
		{
			Expr cx = max(0.0f, min(1.0f, cast<float>(v) / 1024.0f));
			Expr cg = pow(cx, 1.0f / pG);
			Expr cb = 2.0f - pow(2.0f, pK / 100.0f);
			Expr ca = 2.0f - 2.0f * cb;
			Expr cz = select(cg > 0.5f, 1.0f - (ca * (1.0f - cg) * (1.0f - cg) + cb * (1.0f - cg)),
				ca * cg * cg + cb * cg);
			curve(v) = cast<uint8_t>(min(max(cz * 256.0f, 0.0f), 255.0f));
		}
		Func process("process");
		process(y, x, c) = curve(i32(corrected(y, x, c)));

		HalideApp h;
		h.outputs = { process };
		h.targets = { hview(out, { 0, 12, 16 }) };
		estimate_like(process, h.targets[0]);
		// In the style of Halide's apps/camera_pipe CPU schedule: strips of
		// 32 output rows in parallel; inside a strip the full-resolution
		// denoising, the deinterleaved planes and the demosaic's planes are
		// slid down the strip (stored per strip, computed per output row);
		// interleaving, colour correction and the LUT lookup inlined into
		// the output row, channels unrolled; the LUT and matrix computed
		// once per call.
		h.hand = [=](const Target &t) mutable {
			const int vec = t.natural_vector_size<int16_t>();
			Var xo("xo"), xi("xi");
			process.bound(c, 0, 3).reorder(c, y, x).split(x, xo, xi, 32).parallel(xo)
				.vectorize(y, vec).unroll(c);
			for (Func f : { denoised, deint })
				f.store_at(process, xo).compute_at(process, xi).vectorize(y, vec);
			deint.bound(c, 0, 4).reorder(c, y, x).unroll(c);
			for (Func f : { g_r, g_b, r_gr, b_gr, r_gb, b_gb, r_b, b_r })
				f.store_at(process, xo).compute_at(process, xi).vectorize(y, vec);
			matrix.compute_root();
			curve.compute_root().vectorize(v, vec);
		};
		return h;
	};
	return a;
}
