// gen.cpp: AOT generator of the Halide 14 CUDA versions of polytile's
// benchmark apps (bench/gpu/halide/README.md).  For each app it defines the
// algorithm of bench/halide/APP.cpp (same Funcs, same arithmetic order,
// Halide coordinates = the pipeline's reversed, the first one contiguous)
// with ImageParam/Param inputs, and compiles it twice for CUDA:
//   hl_APP_hand    a hand GPU schedule in the style of Halide's apps/
//   hl_APP_li2018  the Li2018 auto-scheduler's (the GPU one of Halide 14)
// as OUTDIR/hl_APP_VARIANT.{o,h} (no runtime), plus one standalone Halide
// runtime (hl_runtime.o) and hl_gpu_built.h, which says what was built.
//
// usage: gen OUTDIR [APP...]    (no APP: all)
#include <Halide.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace Halide;

namespace {

// Features of every object; the pipelines add no_runtime.  sm_86 (PTX 7.1)
// is the newest Halide 14 knows; the driver JIT-compiles it for newer GPUs.
const char *TARGET = "x86-64-linux-cuda-cuda_capability_86";

// An app's algorithm, defined afresh for each variant.
struct Def {
	std::vector<Argument> args;	// int params, float params, images (the output is appended)
	Func out;
	std::function<void()> hand;	// the hand GPU schedule
};

// The input as a Func: with guard (the auto-scheduler's variant, as in
// bench/halide) read through repeat_edge, so that a schedule may round
// tiles up past the input's edges; no point the output uses reads outside.
Func input(const ImageParam &p, bool guard)
{
	if (guard)
		return BoundaryConditions::repeat_edge(p);
	Func f(p.name() + "_in");
	f(_) = p(_);
	return f;
}

void estimate(ImageParam &p, const std::vector<int> &ext)	// Halide order, min 0
{
	Region r;
	for (int e : ext)
		r.push_back({ 0, e });
	p.set_estimates(r);
}

// ---- harris (bench/halide/harris.cpp): I f32 [R+2, C+2], out the same
// buffer cropped to rows/cols 2 .. R-1 / 2 .. C-1 ----
Def harris(bool guard)
{
	const int R = 6400, C = 6400;
	ImageParam Ip(Float(32), 2, "I");
	estimate(Ip, { C + 2, R + 2 });
	Func I = input(Ip, guard);
	Var x("x"), y("y");
	const float k = (float)(1.0 / 12);
	Func Ix("Ix"), Iy("Iy"), Ixx("Ixx"), Iyy("Iyy"), Ixy("Ixy"), Sxx("Sxx"), Syy("Syy"),
		Sxy("Sxy"), det("det"), trace("trace"), harris("harris");
	Ix(y, x) = (-I(y - 1, x - 1) + I(y + 1, x - 1) - 2.0f * I(y - 1, x) + 2.0f * I(y + 1, x)
		- I(y - 1, x + 1) + I(y + 1, x + 1)) * k;
	Iy(y, x) = (-I(y - 1, x - 1) - 2.0f * I(y, x - 1) - I(y + 1, x - 1) + I(y - 1, x + 1)
		+ 2.0f * I(y, x + 1) + I(y + 1, x + 1)) * k;
	Ixx(y, x) = Ix(y, x) * Ix(y, x);
	Iyy(y, x) = Iy(y, x) * Iy(y, x);
	Ixy(y, x) = Ix(y, x) * Iy(y, x);
	auto box3 = [&](Func f) {
		Expr s = f(y - 1, x - 1);
		for (int i = -1; i <= 1; i++)
			for (int j = -1; j <= 1; j++)
				if (i != -1 || j != -1)
					s = s + f(y + j, x + i);
		return s;
	};
	Sxx(y, x) = box3(Ixx);
	Syy(y, x) = box3(Iyy);
	Sxy(y, x) = box3(Ixy);
	det(y, x) = Sxx(y, x) * Syy(y, x) - Sxy(y, x) * Sxy(y, x);
	trace(y, x) = Sxx(y, x) + Syy(y, x);
	harris(y, x) = det(y, x) - 0.04f * trace(y, x) * trace(y, x);
	harris.set_estimates({ { 2, C - 2 }, { 2, R - 2 } });

	Def d{ { Ip }, harris, nullptr };
	// Halide 14's apps/harris GPU schedule (62 x 14 tiles, two columns a
	// thread; the gradients per tile in shared memory, computed together,
	// each thread's 4 x 3 window of them staged in registers), without
	// its gray stage (the input here is the gray image).  Its tile beat
	// 64 x 4 .. 128 x 4 on an H200.
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi");
		harris.gpu_tile(y, x, yi, xi, 62, 14).unroll(yi, 2);
		Ix.compute_at(harris, y).store_in(MemoryType::GPUShared).gpu_threads(y, x).unroll(y, 2);
		Iy.compute_at(harris, y).store_in(MemoryType::GPUShared).gpu_threads(y, x).unroll(y, 2);
		Ix.compute_with(Iy, y);
		Ix.in().compute_at(harris, yi).vectorize(y, 2).unroll(y).unroll(x);
		Iy.in().compute_at(harris, yi).vectorize(y, 2).unroll(y).unroll(x);
	};
	return d;
}

// ---- unsharp_mask (bench/halide/unsharp_mask.cpp): img f32 [3, R+4, C+4],
// mask f32 [3, R, C] whose rows/cols start at 2 ----
Def unsharp_mask(bool guard)
{
	const int R = 2048, C = 2048;
	ImageParam imgp(Float(32), 3, "img");
	Param<float> th("threshold"), w("weight");
	estimate(imgp, { C + 4, R + 4, 3 });
	th.set_estimate(0.001f), w.set_estimate(3);
	Func img = input(imgp, guard);
	Var x("x"), y("y"), c("c");
	Func blurx("blurx"), blury("blury"), sharpen("sharpen"), mask("mask");
	blurx(y, x, c) = (img(y, x - 2, c) + img(y, x - 1, c) * 4.0f + img(y, x, c) * 6.0f
		+ img(y, x + 1, c) * 4.0f + img(y, x + 2, c)) * 0.0625f;
	blury(y, x, c) = (blurx(y - 2, x, c) + blurx(y - 1, x, c) * 4.0f + blurx(y, x, c) * 6.0f
		+ blurx(y + 1, x, c) * 4.0f + blurx(y + 2, x, c)) * 0.0625f;
	sharpen(y, x, c) = img(y, x, c) * (1 + w) - blury(y, x, c) * w;
	mask(y, x, c) = select(abs(img(y, x, c) - blury(y, x, c)) < th, img(y, x, c), sharpen(y, x, c));
	mask.set_estimates({ { 2, C }, { 2, R }, { 0, 3 } });

	Def d{ { th, w, imgp }, mask, nullptr };
	// Halide 14's apps/unsharp GPU schedule: the output in 2-D tiles, the
	// three channels unrolled in each thread, the first blur pass (the
	// one the second reads with a stencil) per tile in shared memory, two
	// rows a thread; the second pass inlined.  32 x 4 tiles, not its
	// 32 x 32 (with the halo, 1152 threads: over CUDA's 1024 a block):
	// the fastest of 32 x 4 .. 128 x 8 on an H200.
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi"), xu("xu");
		mask.bound(c, 0, 3).reorder(c, y, x).gpu_tile(y, x, yi, xi, 32, 4).unroll(c);
		blurx.compute_at(mask, y).store_in(MemoryType::GPUShared).split(x, x, xu, 2)
			.reorder(c, xu, y, x).unroll(c).unroll(xu).gpu_threads(y, x);
	};
	return d;
}

// ---- blur (bench/halide/blur.cpp): I u16 [R+2, C+2], out u16 [R, C] ----
Def blur(bool guard)
{
	const int R = 6400, C = 4800;
	ImageParam Ip(UInt(16), 2, "I");
	estimate(Ip, { C + 2, R + 2 });
	Func I = input(Ip, guard);
	Var x("x"), y("y");
	Func bx("bx"), blur("blur");
	auto w = [](Expr e) { return cast<int32_t>(e); };
	bx(y, x) = cast<uint16_t>((w(I(y, x)) + w(I(y + 1, x)) + w(I(y + 2, x))) / 3);
	blur(y, x) = cast<uint16_t>((w(bx(y, x)) + w(bx(y, x + 1)) + w(bx(y, x + 2))) / 3);
	blur.set_estimates({ { 0, C }, { 0, R } });

	Def d{ { Ip }, blur, nullptr };
	// Halide 14's apps/blur default GPU schedule (SlideVectorize): both
	// passes inlined, each thread a vector of 8 consecutive rows
	// (unrolled, so the first pass of a row serves three outputs).  4-wide
	// vectors (8-byte accesses) and blocks of 32 x 4 threads instead of
	// its 2 and 32 x 1 (one warp a block caps an SM at half occupancy):
	// the fastest of the variations tried on an H200.
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi"), xu("xu");
		blur.vectorize(y, 4).split(x, x, xu, 8).reorder(xu, y).unroll(xu)
			.gpu_tile(y, x, yi, xi, 32, 4);
	};
	return d;
}

// ---- sobel (bench/halide/sobel.cpp): I u8 [R+2, C+2], out f32 [R, C]
// whose rows/cols start at 1 ----
Def sobel(bool guard)
{
	const int R = 6400, C = 4800;
	ImageParam Ip(UInt(8), 2, "I");
	estimate(Ip, { C + 2, R + 2 });
	Func I = input(Ip, guard);
	Var x("x"), y("y");
	Func In("In"), gx("gx"), gy("gy"), mag("mag");
	In(y, x) = cast<int32_t>(I(y, x));
	gx(y, x) = -In(y - 1, x - 1) + In(y + 1, x - 1) - 2 * In(y - 1, x) + 2 * In(y + 1, x)
		- In(y - 1, x + 1) + In(y + 1, x + 1);
	gy(y, x) = -In(y - 1, x - 1) - 2 * In(y, x - 1) - In(y + 1, x - 1) + In(y - 1, x + 1)
		+ 2 * In(y, x + 1) + In(y + 1, x + 1);
	mag(y, x) = sqrt(cast<float>(gx(y, x) * gx(y, x) + gy(y, x) * gy(y, x)));
	mag.set_estimates({ { 1, C }, { 1, R } });

	Def d{ { Ip }, mag, nullptr };
	// A 3 x 3 stencil of the input, point-wise after it: blur's schedule
	// (everything inlined, each thread a 4-wide vector of 8 consecutive
	// rows, unrolled so that rows' loads are shared, 32 x 4 threads).
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi"), xu("xu");
		mag.vectorize(y, 4).split(x, x, xu, 8).reorder(xu, y).unroll(xu)
			.gpu_tile(y, x, yi, xi, 32, 4);
	};
	return d;
}

// ---- local_laplacian (bench/halide/local_laplacian.cpp): I u16 [3, R+4,
// C+4], out u16 [3, R, C] ----
Def local_laplacian(bool guard)
{
	const int R0 = 2560, C0 = 1536;
	const int J = 8, K = 8, LUT_MAX = (K - 1) * 256;
	const float STEP = (float)(1.0 / (K - 1)), EPS = 0.01f;
	ImageParam Ip(UInt(16), 3, "I");
	Param<int> pR("R"), pC("C");
	Param<float> pA("alpha"), pB("beta");
	estimate(Ip, { C0 + 4, R0 + 4, 3 });
	pR.set_estimate(R0), pC.set_estimate(C0), pA.set_estimate(1.0f / 7), pB.set_estimate(1);
	Func I = input(Ip, guard);
	Var x("x"), y("y"), k("k"), c("c"), r("r");
	auto Rl = [&](int l) { return pR / (1 << l); };
	auto Cl = [&](int l) { return pC / (1 << l); };
	auto inside = [&](int l, Expr cols) { return x >= 2 && x <= Rl(l) + 1 && y >= 2 && y <= cols + 1; };
	auto str = [](const char *n, int l) { return std::string(n) + std::to_string(l); };
	auto boxed = [&](Func f, Expr rows, Expr cols) {
		Region rg = { { 0, cols }, { 0, rows } };
		if (f.dimensions() == 3)
			rg.push_back(Range(Expr(), Expr()));
		return BoundaryConditions::repeat_edge(f, rg);
	};
	auto at = [&](Func f, Expr yy, Expr xx) { return f.dimensions() == 3 ? f(yy, xx, k) : f(yy, xx); };
	auto dn_x = [&](Func f) {
		return (at(f, y, 2 * x - 3) + 3.0f * at(f, y, 2 * x - 2) + 3.0f * at(f, y, 2 * x - 1)
			+ at(f, y, 2 * x)) * 0.125f;
	};
	auto dn_y = [&](Func f) {
		return (at(f, 2 * y - 3, x) + 3.0f * at(f, 2 * y - 2, x) + 3.0f * at(f, 2 * y - 1, x)
			+ at(f, 2 * y, x)) * 0.125f;
	};
	auto up_x = [&](Func f) {
		return select(x % 2 == 0, 0.25f * at(f, y, x / 2) + 0.75f * at(f, y, x / 2 + 1),
			0.25f * at(f, y, x / 2 + 2) + 0.75f * at(f, y, x / 2 + 1));
	};
	auto up_y = [&](Func f) {
		return select(y % 2 == 0, 0.25f * at(f, y / 2, x) + 0.75f * at(f, y / 2 + 1, x),
			0.25f * at(f, y / 2 + 2, x) + 0.75f * at(f, y / 2 + 1, x));
	};

	std::vector<Func> inG(J), G(J), inDx(J), Dx(J), Ux(J), U(J), Lp(J), outUx(J), outU(J),
		outL(J), outG(J);
	for (int l = 0; l < J; l++) {
		inG[l] = Func(str("inG", l)), G[l] = Func(str("G", l)), inDx[l] = Func(str("inDx", l));
		Dx[l] = Func(str("Dx", l)), Ux[l] = Func(str("Ux", l)), U[l] = Func(str("U", l));
		Lp[l] = Func(str("L", l)), outUx[l] = Func(str("outUx", l)), outU[l] = Func(str("outU", l));
		outL[l] = Func(str("outL", l)), outG[l] = Func(str("outG", l));
	}
	inG[0](y, x) = (0.299f * cast<float>(I(y, x, 0)) + 0.587f * cast<float>(I(y, x, 1))
		+ 0.114f * cast<float>(I(y, x, 2))) / 65535.0f;
	Func remap("remap");
	Expr fr = cast<float>(r) / 256.0f;
	remap(r) = pA * fr * exp(-fr * fr / 2.0f);
	Expr lut = clamp(cast<int32_t>(inG[0](y, x) * (float)LUT_MAX), 0, LUT_MAX);
	Expr kf = cast<float>(k);
	G[0](y, x, k) = pB * (inG[0](y, x) - kf * STEP) + kf * STEP + remap(lut - 256 * k);
	for (int l = 1; l < J; l++) {
		Expr r0 = Rl(l - 1) + 4, r1 = Rl(l) + 4, c0 = Cl(l - 1) + 4;
		inDx[l](y, x) = select(inside(l, Cl(l - 1)), dn_x(boxed(inG[l - 1], r0, c0)), 0.0f);
		inG[l](y, x) = select(inside(l, Cl(l)), dn_y(boxed(inDx[l], r1, c0)), 0.0f);
		Dx[l](y, x, k) = select(inside(l, Cl(l - 1)), dn_x(boxed(G[l - 1], r0, c0)), 0.0f);
		G[l](y, x, k) = select(inside(l, Cl(l)), dn_y(boxed(Dx[l], r1, c0)), 0.0f);
	}
	for (int l = 0; l < J - 1; l++) {
		Ux[l](y, x, k) = select(inside(l, Cl(l + 1)), up_x(G[l + 1]), 0.0f);
		U[l](y, x, k) = select(inside(l, Cl(l)), up_y(Ux[l]), 0.0f);
		Lp[l](y, x, k) = G[l](y, x, k) - U[l](y, x, k);
	}
	for (int l = 0; l < J; l++) {
		Expr lev = inG[l](y, x) * (float)(K - 1);
		Expr li = clamp(cast<int32_t>(lev), 0, K - 2);
		Expr lf = lev - cast<float>(li);
		Func src = l < J - 1 ? Lp[l] : G[l];
		Expr v = src(y, x, li) * (1.0f - lf) + src(y, x, li + 1) * lf;
		if (l < J - 1)
			outL[l](y, x) = v;
		else
			outG[l](y, x) = v;
	}
	for (int l = J - 2; l >= 0; l--) {
		outUx[l](y, x) = select(inside(l, Cl(l + 1)), up_x(outG[l + 1]), 0.0f);
		outU[l](y, x) = select(inside(l, Cl(l)), up_y(outUx[l]), 0.0f);
		outG[l](y, x) = outU[l](y, x) + outL[l](y, x);
	}
	Func outp("out");
	Expr v = outG[0](y + 2, x + 2) * (cast<float>(I(y + 2, x + 2, c)) / 65535.0f + EPS)
		/ (inG[0](y + 2, x + 2) + EPS);
	outp(y, x, c) = cast<uint16_t>(clamp(v, 0.0f, 1.0f) * 65535.0f);
	outp.set_estimates({ { 0, C0 }, { 0, R0 }, { 0, 3 } });

	Def d{ { pR, pC, pA, pB, Ip }, outp, nullptr };
	// Halide 14's apps/local_laplacian GPU schedule: every level of the
	// gray, remapped and output pyramids computed whole in its own 2-D
	// tiled kernel (the remapped ones with the intensity level k looped
	// inside each thread), the down/up-sampling passes, Laplacian and
	// interpolation stages inlined, the output in 2-D tiles.  Changes:
	// the LUT built by a GPU kernel (Halide's builds it on the host and
	// copies it over at every run), the output's three channels unrolled
	// in one kernel, 32 x 8 tiles on the fine levels (its 16 x 8) and
	// 8 x 4 on the coarse ones (its 2 x 2: 4-thread blocks), and the gray
	// level computed once: same time, but one rounding of it for all its
	// consumers (Halide's PTX fuses multiply-adds, differently where it
	// is inlined in different kernels, which doubled the points whose LUT
	// index moved: over bench/halide's 1e-4 at the paper size).
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi"), ri("ri");
		remap.compute_root().gpu_tile(r, ri, 128);
		outp.bound(c, 0, 3).reorder(c, y, x).gpu_tile(y, x, yi, xi, 32, 8).unroll(c);
		inG[0].compute_root().gpu_tile(y, x, yi, xi, 32, 8);
		for (int j = 0; j < J; j++) {
			int bw = j > 3 ? 8 : 32, bh = j > 3 ? 4 : 8;
			if (j > 0) {
				inG[j].compute_root().gpu_tile(y, x, yi, xi, bw, bh);
				G[j].compute_root().bound(k, 0, K).reorder(k, y, x).gpu_tile(y, x, yi, xi, bw, bh);
			}
			outG[j].compute_root().gpu_tile(y, x, yi, xi, bw, bh);
		}
	};
	return d;
}

const std::map<std::string, std::function<Def(bool)>> apps = {
	{ "harris", harris },
	{ "unsharp_mask", unsharp_mask },
	{ "blur", blur },
	{ "local_laplacian", local_laplacian },
	{ "sobel", sobel },
};

// Compiles one variant; false (and why) when Halide refuses.
bool build(const std::string &dir, const std::string &app, const std::string &variant,
	std::string &why)
{
	const std::string fn = "hl_" + app + "_" + variant, base = dir + "/" + fn;
	try {
		Def d = apps.at(app)(variant != "hand");
		Pipeline p(d.out);
		Target t = Target(TARGET).with_feature(Target::NoRuntime);
		if (variant == "hand") {
			d.hand();
		} else {
			// The H200: 132 SMs, 50 MB of L2.
			AutoSchedulerResults res = p.auto_schedule("Li2018", t, MachineParams(132, 50u << 20, 40));
			std::ofstream(base + ".schedule.h") << res.schedule_source;
		}
		p.compile_to({ { OutputFileType::object, base + ".o" }, { OutputFileType::c_header, base + ".h" } },
			d.args, fn, t);
		return true;
	} catch (const Halide::Error &e) {
		why = e.what();
		return false;
	}
}

}  // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		std::fprintf(stderr, "usage: %s OUTDIR [APP...]\n", argv[0]);
		return 2;
	}
	const std::string dir = argv[1];
	std::vector<std::string> todo(argv + 2, argv + argc);
	if (todo.empty())
		for (auto &a : apps)
			todo.push_back(a.first);
	load_plugin("/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_li2018.so");

	compile_standalone_runtime(dir + "/hl_runtime.o", Target(TARGET));
	// hl_gpu_built.h: one HL_HAVE_APP_VARIANT per compiled variant, for wrap.cpp.
	std::ofstream built(dir + "/hl_gpu_built.h");
	built << "/* generated by bench/gpu/halide/gen.cpp: the variants compiled */\n";
	int failed = 0;	// hand schedules that failed: those are bugs
	for (const std::string &app : todo) {
		if (!apps.count(app)) {
			std::fprintf(stderr, "gen: unknown app %s\n", app.c_str());
			return 2;
		}
		for (const char *v : { "hand", "li2018" }) {
			std::string why;
			std::fprintf(stderr, "gen: hl_%s_%s\n", app.c_str(), v);
			if (build(dir, app, v, why)) {
				built << "#define HL_HAVE_" << app << "_" << v << " 1\n";
			} else {
				std::fprintf(stderr, "gen: hl_%s_%s FAILED: %s\n", app.c_str(), v, why.c_str());
				built << "/* hl_" << app << "_" << v << " failed: see gen's log */\n";
				failed += std::string(v) == "hand";
			}
		}
	}
	return failed ? 1 : 0;
}
