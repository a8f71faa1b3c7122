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
	std::vector<Argument> args;	// int params, float params, images (the outputs are appended)
	std::vector<Func> outs;		// in the pipeline's output order
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

	Def d{ { Ip }, { harris }, nullptr };
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

	Def d{ { th, w, imgp }, { mask }, nullptr };
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

	Def d{ { Ip }, { blur }, nullptr };
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

	Def d{ { Ip }, { mag }, nullptr };
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

	Def d{ { pR, pC, pA, pB, Ip }, { outp }, nullptr };
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

// ---- histogram (bench/halide/histogram.cpp): I u8 [R, C], hist i32 [256] ----
Def histogram(bool guard)
{
	const int R = 6400, C = 6400;
	ImageParam Ip(UInt(8), 2, "I");
	Param<int> pR("R"), pC("C");
	estimate(Ip, { C, R });
	pR.set_estimate(R), pC.set_estimate(C);
	Func I = input(Ip, guard);
	Var b("b");
	RDom r(0, pC, 0, pR);
	Func hist("hist");
	hist(b) = 0;
	hist(cast<int32_t>(I(r.x, r.y))) += 1;
	hist.set_estimates({ { 0, 256 } });

	Def d{ { pR, pC, Ip }, { hist }, nullptr };
	// A GPU histogram as Halide writes one (rfactor and atomics, as in its
	// atomics tests and apps/hist): rfactor the rows into chunks of 16,
	// each chunk's histogram a block's, privatized in shared memory and
	// updated with shared atomics by 256 threads across the columns
	// (coalesced reads); each block then adds its 256 bins to the output
	// with global atomics.  Integer atomics: the counts are exact.
	d.hand = [=]() mutable {
		RVar ro("ro"), ri("ri"), rxo("rxo"), rxi("rxi");
		Var u("u"), bi("bi");
		hist.bound(b, 0, 256).compute_root().gpu_tile(b, bi, 256);
		hist.update().split(r.y, ro, ri, 16);
		Func part = hist.update().rfactor(ro, u);
		hist.update().atomic().reorder(b, ro).gpu_blocks(ro).gpu_threads(b);
		part.compute_at(hist, ro).store_in(MemoryType::GPUShared).gpu_threads(b);
		part.update().atomic().split(r.x, rxo, rxi, 256).reorder(rxi, rxo, ri).gpu_threads(rxi);
	};
	return d;
}

// ---- camera_pipe (bench/halide/camera_pipe.cpp): img u16 [R+48, C+64],
// process u8 [3, R, C] whose rows/cols start at 12/16 ----
Def camera_pipe(bool guard)
{
	const int R = 1920, C = 2528;
	ImageParam imgp(UInt(16), 2, "img");
	Param<float> pT("colour_temp"), pG("gamma"), pK("contrast");
	estimate(imgp, { C + 64, R + 48 });
	pT.set_estimate(3700), pG.set_estimate(2), pK.set_estimate(50);
	Func img = input(imgp, guard);
	Var x("x"), y("y"), c("c"), k("k"), v("v");
	auto i32 = [](Expr e) { return cast<int32_t>(e); };
	auto i16 = [](Expr e) { return cast<int16_t>(e); };

	Func In("In"), denoised("denoised");
	In(y, x) = i32(img(y, x));
	Expr n0 = In(y, x - 2), n1 = In(y, x + 2), n2 = In(y - 2, x), n3 = In(y + 2, x);
	denoised(y, x) = i16(clamp(In(y, x), min(min(n0, n1), min(n2, n3)), max(max(n0, n1), max(n2, n3))));
	Func deint("deinterleaved");
	deint(y, x, c) = select(c == 0, denoised(2 * y, 2 * x), c == 1, denoised(2 * y + 1, 2 * x),
		c == 2, denoised(2 * y, 2 * x + 1), denoised(2 * y + 1, 2 * x + 1));
	Func g_gr("g_gr"), r_r("r_r"), b_b("b_b"), g_gb("g_gb");
	g_gr(y, x) = deint(y, x, 0);
	r_r(y, x) = deint(y, x, 1);
	b_b(y, x) = deint(y, x, 2);
	g_gb(y, x) = deint(y, x, 3);
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
	r_gr(y, x) = i16((at(g_gr, 0, 0) - (at(g_r, 0, 0) + at(g_r, 0, -1)) / 2 + (at(r_r, 0, -1) + at(r_r, 0, 0)) / 2));
	b_gr(y, x) = i16((at(g_gr, 0, 0) - (at(g_b, 0, 0) + at(g_b, -1, 0)) / 2 + (at(b_b, 0, 0) + at(b_b, -1, 0)) / 2));
	r_gb(y, x) = i16((at(g_gb, 0, 0) - (at(g_r, 0, 0) + at(g_r, 1, 0)) / 2 + (at(r_r, 0, 0) + at(r_r, 1, 0)) / 2));
	b_gb(y, x) = i16((at(g_gb, 0, 0) - (at(g_b, 0, 0) + at(g_b, 0, 1)) / 2 + (at(b_b, 0, 0) + at(b_b, 0, 1)) / 2));
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
	auto inter = [&](Func e0, Func e1, Func o0, Func o1) {
		Expr hy = y / 2, hx = x / 2;
		return select(x % 2 == 0, select(y % 2 == 0, e0(hy, hx), e1(hy, hx)),
			select(y % 2 == 0, o0(hy, hx), o1(hy, hx)));
	};
	Func rgb("rgb");
	rgb(y, x, c) = select(c == 0, inter(r_gr, r_r, r_b, r_gb), c == 1, inter(g_gr, g_r, g_b, g_gb),
		inter(b_gr, b_r, b_b, b_gb));
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
	Func curve("curve");
	{
		Expr cx = max(0.0f, min(1.0f, cast<float>(v) / 1024.0f));
		Expr cg = pow(cx, 1.0f / pG);
		Expr cb = 2.0f - pow(2.0f, pK / 100.0f);
		Expr ca = 2.0f - 2.0f * cb;
		Expr cz = select(cg > 0.5f, 1.0f - (ca * (1.0f - cg) * (1.0f - cg) + cb * (1.0f - cg)), ca * cg * cg + cb * cg);
		curve(v) = cast<uint8_t>(min(max(cz * 256.0f, 0.0f), 255.0f));
	}
	Func process("process");
	process(y, x, c) = curve(i32(corrected(y, x, c)));
	process.set_estimates({ { 16, C }, { 12, R }, { 0, 3 } });

	Def d{ { pT, pG, pK, imgp }, { process }, nullptr };
	// Halide 14's apps/camera_pipe GPU schedule: output tiles of 28 x 12
	// threads, two columns a thread, the channels unrolled; in each tile
	// (in shared memory) the colour-corrected and interleaved planes,
	// the demosaic's two green intermediates, the deinterleaved planes
	// and the denoised image (2 x 2 points a thread), every stage with
	// its own threads; the LUT and the matrix computed once (the matrix
	// by one GPU thread).  Ours has no sharpening: its output is the
	// curve's lookup, inlined into the tile.
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi"), vi("vi");
		process.bound(c, 0, 3).reorder(c, y, x).unroll(y, 2).gpu_tile(y, x, yi, xi, 28, 12).unroll(c);
		for (Func f : { corrected, rgb })
			f.compute_at(process, y).reorder(c, y, x).unroll(y, 2).gpu_threads(y, x).unroll(c);
		for (Func f : { g_r, g_b })
			f.compute_at(process, y).gpu_threads(y, x);
		denoised.compute_at(process, y).tile(y, x, yi, xi, 2, 2).unroll(yi).unroll(xi).gpu_threads(y, x);
		deint.compute_at(process, y).bound(c, 0, 4).reorder(c, y, x).unroll(y, 2).gpu_threads(y, x).unroll(c);
		matrix.compute_root().gpu_single_thread();
		curve.compute_root().gpu_tile(v, vi, 32);
	};
	return d;
}

// ---- pyramid_blend (bench/halide/pyramid_blend.cpp): img1, img2 f32
// [3, R+4, C+4], mask f32 [R+4, C+4], out f32 [3, R+4, C+4] ----
Def pyramid_blend(bool guard)
{
	const int R0 = 2048, C0 = 2048, L = 4;
	ImageParam p1(Float(32), 3, "img1"), p2(Float(32), 3, "img2"), pm(Float(32), 2, "mask");
	Param<int> pR("R"), pC("C");
	estimate(p1, { C0 + 4, R0 + 4, 3 }), estimate(p2, { C0 + 4, R0 + 4, 3 }), estimate(pm, { C0 + 4, R0 + 4 });
	pR.set_estimate(R0), pC.set_estimate(C0);
	Func img1 = input(p1, guard), img2 = input(p2, guard), mask = input(pm, guard);
	Var x("x"), y("y"), c("c");
	auto Rl = [&](int l) { return pR / (1 << l); };
	auto Cl = [&](int l) { return pC / (1 << l); };
	auto in_ = [&](int l, Expr cols) { return x >= 2 && x <= Rl(l) + 1 && y >= 2 && y <= cols + 1; };
	Func G[3][L], Dx[3][L], M[L], Mx[L];
	G[1][0](y, x, c) = img1(y, x, c);
	G[2][0](y, x, c) = img2(y, x, c);
	M[0](y, x) = mask(y, x);
	auto down_x = [&](Func f, bool col) {
		auto g = [&](Expr xx) { return col ? f(y, xx) : f(y, xx, c); };
		return (g(2 * x - 4) + g(2 * x - 3) * 4 + g(2 * x - 2) * 6 + g(2 * x - 1) * 4 + g(2 * x)) * 0.0625f;
	};
	auto down_y = [&](Func f, bool col) {
		auto g = [&](Expr yy) { return col ? f(yy, x) : f(yy, x, c); };
		return (g(2 * y - 4) + g(2 * y - 3) * 4 + g(2 * y - 2) * 6 + g(2 * y - 1) * 4 + g(2 * y)) * 0.0625f;
	};
	auto boxed = [&](Func f, Expr rows, Expr cols) {
		Region r = { { 0, cols }, { 0, rows } };
		if (f.dimensions() == 3)
			r.push_back(Range(Expr(), Expr()));
		return BoundaryConditions::repeat_edge(f, r);
	};
	for (int l = 1; l < L; l++) {
		Expr r0 = Rl(l - 1) + 4, r1 = Rl(l) + 4, c0 = Cl(l - 1) + 4;
		for (int i = 1; i <= 2; i++) {
			Dx[i][l] = Func("Dx" + std::to_string(i) + "_" + std::to_string(l));
			G[i][l] = Func("G" + std::to_string(i) + "_" + std::to_string(l));
			Dx[i][l](y, x, c) = select(in_(l, Cl(l - 1)), down_x(boxed(G[i][l - 1], r0, c0), false), 0.0f);
			G[i][l](y, x, c) = select(in_(l, Cl(l)), down_y(boxed(Dx[i][l], r1, c0), false), 0.0f);
		}
		Mx[l] = Func("Mx" + std::to_string(l));
		M[l] = Func("M" + std::to_string(l));
		Mx[l](y, x) = select(in_(l, Cl(l - 1)), down_x(boxed(M[l - 1], r0, c0), true), 0.0f);
		M[l](y, x) = select(in_(l, Cl(l)), down_y(boxed(Mx[l], r1, c0), true), 0.0f);
	}
	auto up_x = [&](Func f) {
		Expr b = x / 2 + 1;
		return select(x % 2 == 0, (f(y, b - 1, c) + f(y, b, c) * 6 + f(y, b + 1, c)) * 0.125f,
			(f(y, b, c) * 4 + f(y, b + 1, c) * 4) * 0.125f);
	};
	auto up_y = [&](Func f) {
		Expr b = y / 2 + 1;
		return select(y % 2 == 0, (f(b - 1, x, c) + f(b, x, c) * 6 + f(b + 1, x, c)) * 0.125f,
			(f(b, x, c) * 4 + f(b + 1, x, c) * 4) * 0.125f);
	};
	Func Ux[3][L], Uy[3][L], Lap[3][L], Res[L], Cx[L], Cy[L], Col[L];
	Col[L - 1] = Func("Col" + std::to_string(L - 1));
	Col[L - 1](y, x, c) = G[1][L - 1](y, x, c) * M[L - 1](y, x) + G[2][L - 1](y, x, c) * (1 - M[L - 1](y, x));
	for (int l = L - 2; l >= 0; l--) {
		std::string s = std::to_string(l);
		for (int i = 1; i <= 2; i++) {
			std::string si = std::to_string(i) + "_" + s;
			Ux[i][l] = Func("Ux" + si), Uy[i][l] = Func("Uy" + si), Lap[i][l] = Func("Lap" + si);
			Ux[i][l](y, x, c) = select(in_(l, Cl(l + 1)), up_x(G[i][l + 1]), 0.0f);
			Uy[i][l](y, x, c) = select(in_(l, Cl(l)), up_y(Ux[i][l]), 0.0f);
			Lap[i][l](y, x, c) = G[i][l](y, x, c) - Uy[i][l](y, x, c);
		}
		Res[l] = Func("Res" + s), Cx[l] = Func("Cx" + s), Cy[l] = Func("Cy" + s), Col[l] = Func("Col" + s);
		Res[l](y, x, c) = Lap[1][l](y, x, c) * M[l](y, x) + Lap[2][l](y, x, c) * (1 - M[l](y, x));
		Cx[l](y, x, c) = select(in_(l, Cl(l + 1)), up_x(Col[l + 1]), 0.0f);
		Cy[l](y, x, c) = select(in_(l, Cl(l)), up_y(Cx[l]), 0.0f);
		Col[l](y, x, c) = Cy[l](y, x, c) + Res[l](y, x, c);
	}
	Func out = Col[0];
	out.set_estimates({ { 0, C0 + 4 }, { 0, R0 + 4 }, { 0, 3 } });

	Def d{ { pR, pC, p1, p2, pm }, { out }, nullptr };
	// Halide's pyramid GPU schedule (apps/local_laplacian's, as for
	// local_laplacian above): every level of the two Gaussian pyramids,
	// the mask's and the collapse computed whole, each in its own 2-D
	// tiled kernel (32 x 8 threads), the three channels unrolled in each
	// thread; the x passes of the down-sampling, the up-sampling, the
	// Laplacians and the blend inlined into their consumers.
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi");
		for (int l = 1; l < L; l++) {
			for (int i = 1; i <= 2; i++)
				G[i][l].compute_root().bound(c, 0, 3).reorder(c, y, x).gpu_tile(y, x, yi, xi, 32, 8).unroll(c);
			M[l].compute_root().gpu_tile(y, x, yi, xi, 32, 8);
		}
		for (int l = L - 1; l >= 0; l--)
			Col[l].compute_root().bound(c, 0, 3).reorder(c, y, x).gpu_tile(y, x, yi, xi, 32, 8).unroll(c);
	};
	return d;
}

// ---- bilateral_grid (bench/halide/bilateral_grid.cpp): I f32 [R+56,
// C+56], filtered f32 [R, C] whose rows/cols start at 24 ----
Def bilateral_grid(bool guard)
{
	const int R0 = 2560, C0 = 1536;
	ImageParam Ip(Float(32), 2, "I");
	Param<int> pR("R"), pC("C");
	estimate(Ip, { C0 + 56, R0 + 56 });
	pR.set_estimate(R0), pC.set_estimate(C0);
	Func I = input(Ip, guard);
	Var x("x"), y("y"), z("z"), c("c");
	Func grid("grid"), blurz("blurz"), blurx("blurx"), blury("blury"), interpolated("interpolated"),
		filtered("filtered");
	RDom r(0, 9, 0, 9);
	Expr px = I(8 * y - 4 + r.x, 8 * x - 4 + r.y);
	Expr bin = clamp(2 + cast<int32_t>(px * 10 + 0.5f), 0, 14);
	grid(z, y, x, c) = 0.0f;
	grid(bin, y, x, c) += select(c == 0, px, 1.0f);
	blurz(z, y, x, c) = grid(z - 2, y, x, c) + 4 * grid(z - 1, y, x, c) + 6 * grid(z, y, x, c)
		+ 4 * grid(z + 1, y, x, c) + grid(z + 2, y, x, c);
	blurx(z, y, x, c) = blurz(z, y, x - 2, c) + 4 * blurz(z, y, x - 1, c) + 6 * blurz(z, y, x, c)
		+ 4 * blurz(z, y, x + 1, c) + blurz(z, y, x + 2, c);
	blury(z, y, x, c) = blurx(z, y - 2, x, c) + 4 * blurx(z, y - 1, x, c) + 6 * blurx(z, y, x, c)
		+ 4 * blurx(z, y + 1, x, c) + blurx(z, y + 2, x, c);
	Expr zv = I(y, x) * 10;
	Expr zi = cast<int32_t>(zv);
	Expr zf = zv - zi;
	Expr xf = cast<float>(x % 8) / 8, yf = cast<float>(y % 8) / 8;
	Expr z0 = clamp(2 + zi, 2, 12), z1 = clamp(3 + zi, 2, 12);
	auto b = [&](Expr dx, Expr dy, Expr zz) { return blury(zz, y / 8 + dy, x / 8 + dx, c); };
	Expr l00 = b(0, 0, z0) + xf * (b(1, 0, z0) - b(0, 0, z0));
	Expr l10 = b(0, 1, z0) + xf * (b(1, 1, z0) - b(0, 1, z0));
	Expr l01 = b(0, 0, z1) + xf * (b(1, 0, z1) - b(0, 0, z1));
	Expr l11 = b(0, 1, z1) + xf * (b(1, 1, z1) - b(0, 1, z1));
	Expr l0 = l00 + yf * (l10 - l00), l1 = l01 + yf * (l11 - l01);
	interpolated(y, x, c) = l0 + zf * (l1 - l0);
	filtered(y, x) = select(interpolated(y, x, 1) > 0, interpolated(y, x, 0) / interpolated(y, x, 1), I(y, x));
	filtered.set_estimates({ { 24, C0 }, { 24, R0 } });

	Def d{ { pR, pC, Ip }, { filtered }, nullptr };
	// Halide 14's apps/bilateral_grid GPU schedule: the z blur in 8 x 8
	// tiles of cells, each tile's grid built in shared memory by the same
	// threads (a cell a thread, its 9 x 9 pixels in the .pipe's order,
	// both channels unrolled) first; the x and y blurs computed whole,
	// 32 x 8 threads of two cells each, the channel pair a vector stored
	// innermost; the slicing per output point of 32 x 8 tiles.  Its
	// RoundUp tails are left out: they would read past the input here
	// (this variant reads it unguarded).
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi"), zi("zi");
		for (Func f : { grid, blurz, blurx, blury })
			f.bound(c, 0, 2);
		blurz.compute_root().reorder(c, z, y, x).gpu_tile(y, x, yi, xi, 8, 8).unroll(c);
		grid.compute_at(blurz, y).reorder(c, z, y, x).gpu_threads(y, x);
		grid.update().reorder(c, r.x, r.y, y, x).gpu_threads(y, x).unroll(c);
		for (Func f : { blurx, blury })
			f.compute_root().reorder(c, y, x, z).reorder_storage(c, y, x, z).vectorize(c).unroll(x, 2)
				.gpu_tile(y, x, z, yi, xi, zi, 32, 8, 1);
		filtered.compute_root().gpu_tile(y, x, yi, xi, 32, 8);
		interpolated.compute_at(filtered, yi).bound(c, 0, 2).vectorize(c);
	};
	return d;
}

// ---- interpolate (bench/halide/interpolate.cpp): rgb f32 [3, R+2, C+2],
// alpha f32 [R+2, C+2], out f32 [3, R, C] ----
Def interpolate(bool guard)
{
	const int R0 = 2560, C0 = 1536, L = 10;
	ImageParam prgb(Float(32), 3, "rgb"), palpha(Float(32), 2, "alpha");
	Param<int> pR("R"), pC("C");
	estimate(prgb, { C0 + 2, R0 + 2, 3 }), estimate(palpha, { C0 + 2, R0 + 2 });
	pR.set_estimate(R0), pC.set_estimate(C0);
	Func rgbf = input(prgb, guard), alphaf = input(palpha, guard);
	Var x("x"), y("y"), c("c");
	auto Rl = [&](int l) { return pR / (1 << l); };
	auto Cl = [&](int l) { return pC / (1 << l); };
	auto inside = [&](int l, Expr cols) { return x >= 1 && x <= Rl(l) && y >= 1 && y <= cols; };
	auto str = [](const char *n, int l) { return std::string(n) + std::to_string(l); };
	auto boxed = [&](Func f, Expr rows, Expr cols) {
		return BoundaryConditions::repeat_edge(f, { { 0, cols }, { 0, rows }, { Expr(), Expr() } });
	};
	Func down[L], downx[L], upx[L], interp[L];
	for (int l = 0; l < L; l++)
		down[l] = Func(str("down", l)), downx[l] = Func(str("downx", l)), upx[l] = Func(str("upx", l)),
		interp[l] = Func(str("interp", l));
	down[0](y, x, c) = select(c <= 2, rgbf(y, x, min(c, 2)) * alphaf(y, x), alphaf(y, x) * alphaf(y, x));
	for (int l = 1; l < L; l++) {
		Func f = boxed(down[l - 1], Rl(l - 1) + 2, Cl(l - 1) + 2);
		downx[l](y, x, c) = select(inside(l, Cl(l - 1)),
			(f(y, 2 * x - 2, c) + f(y, 2 * x - 1, c) * 2 + f(y, 2 * x, c)) * 0.25f, 0.0f);
		Func g = boxed(downx[l], Rl(l) + 2, Cl(l - 1) + 2);
		down[l](y, x, c) = select(inside(l, Cl(l)),
			(g(2 * y - 2, x, c) + g(2 * y - 1, x, c) * 2 + g(2 * y, x, c)) * 0.25f, 0.0f);
	}
	interp[L - 1] = down[L - 1];
	for (int l = L - 2; l >= 0; l--) {
		Func f = interp[l + 1];
		upx[l](y, x, c) = select(inside(l, Cl(l + 1)), (f(y, (x + 1) / 2, c) + f(y, (x + 2) / 2, c)) / 2.0f, 0.0f);
		interp[l](y, x, c) = select(inside(l, Cl(l)), down[l](y, x, c) + (1.0f - down[l](y, x, 3))
			* ((upx[l]((y + 1) / 2, x, c) + upx[l]((y + 2) / 2, x, c)) / 2.0f), 0.0f);
	}
	Func result("interpolate");
	result(y, x, c) = interp[0](y + 1, x + 1, c) / interp[0](y + 1, x + 1, 3);
	result.set_estimates({ { 0, C0 }, { 0, R0 }, { 0, 3 } });

	Def d{ { pR, pC, prgb, palpha }, { result }, nullptr };
	// Halide 14's apps/interpolate GPU schedule: each down-sampled level
	// computed whole (16 x 16 threads, the four planes unrolled, its x
	// pass inlined); every other level of the up-sampling (3, 5, 7)
	// computed whole, 2 x 2 points a thread in 32 x 32 tiles, the levels
	// between inlined; levels 2 and 1 (and level 1's x pass) computed per
	// output tile in shared memory; the output 2 x 2 points a thread.
	d.hand = [=]() mutable {
		Var yi("yi"), xi("xi"), yii("yii"), xii("xii");
		auto two_by_two = [&](Func f, int planes) {
			f.bound(c, 0, planes).reorder(c, y, x).tile(y, x, yi, xi, 32, 32).tile(yi, xi, yii, xii, 2, 2)
				.gpu_blocks(y, x).gpu_threads(yi, xi).unroll(yii).unroll(xii).unroll(c);
		};
		two_by_two(result, 3);
		for (int l = 1; l < L; l++)
			down[l].compute_root().bound(c, 0, 4).reorder(c, y, x).gpu_tile(y, x, yi, xi, 16, 16).unroll(c);
		for (int l = 3; l < L - 1; l += 2)
			two_by_two(interp[l].compute_root(), 4);
		upx[1].compute_at(result, y).bound(c, 0, 4).reorder(c, y, x).tile(y, x, yi, xi, 2, 1).unroll(yi)
			.unroll(xi).unroll(c).gpu_threads(y, x);
		interp[1].compute_at(result, y).bound(c, 0, 4).reorder(c, y, x).tile(y, x, yi, xi, 2, 2).unroll(yi)
			.unroll(xi).unroll(c).gpu_threads(y, x);
		interp[2].compute_at(result, y).bound(c, 0, 4).reorder(c, y, x).unroll(c).gpu_threads(y, x);
	};
	return d;
}

// ---- heat3d (bench/halide/heat3d.cpp): U f32 [N+2]^3, once f32 [N]^3
// (points 1 .. N), last f32 [N+2]^3; T = 4 steps, one Func each ----
const int HEAT_T = 4;

Def heat3d(bool guard)
{
	const int N0 = 510, E0 = N0 + 2, T = HEAT_T;
	ImageParam Up(Float(32), 3, "U");
	Param<int> pN("N");
	Param<float> pk("k");
	estimate(Up, { E0, E0, E0 });
	pN.set_estimate(N0), pk.set_estimate(0.125f);
	Func U = input(Up, guard);
	Var x("x"), y("y"), z("z");
	auto step = [&](Func f) {
		return f(z, y, x) + pk * (f(z, y, x - 1) + f(z, y, x + 1) + f(z, y - 1, x) + f(z, y + 1, x)
			+ f(z - 1, y, x) + f(z + 1, y, x) - 6.0f * f(z, y, x));
	};
	Func Uf("Uf"), once("once");
	Uf(z, y, x) = U(z, y, x);
	once(z, y, x) = step(Uf);
	// As in bench/halide: the steps read U through repeat_edge in every
	// variant (a border point's stencil is computed and thrown away).
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
	once.set_estimates({ { 1, N0 }, { 1, N0 }, { 1, N0 } });
	last.set_estimates({ { 0, E0 }, { 0, E0 }, { 0, E0 } });

	Def d{ { pN, pk, Up }, { once, last }, nullptr };
	// A stencil loop in Halide: one kernel per time step (each step
	// computed whole, over the box the next one reads), 32 x 8 threads a
	// block over the two inner dimensions, a block per plane; `once` the
	// same.  Fusing steps in tiles would recompute a halo that grows by
	// one point a step: Halide's users write T steps this way.
	d.hand = [=]() mutable {
		Var zi("zi"), yi("yi"), xi("xi");
		once.gpu_tile(z, y, x, zi, yi, xi, 32, 8, 1);
		for (int t = 1; t <= T; t++)
			heat[t].compute_root().gpu_tile(z, y, x, zi, yi, xi, 32, 8, 1);
	};
	return d;
}

// ---- argmin (bench/halide/argmin.cpp): V u8 [N]^4, am_0 u8 [1] (the
// least value), am_1 .. am_4 i32 [1] (its lexicographically first point) ----
Def argmin(bool guard)
{
	const int N0 = 64;
	ImageParam Ip(UInt(8), 4, "V");
	Param<int> pN("N");
	estimate(Ip, { N0, N0, N0, N0 });
	pN.set_estimate(N0);
	Func V = input(Ip, guard);
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
	Def d{ { pN, Ip }, {}, nullptr };
	Func am0("am_0");
	am0(k) = cast<uint8_t>(amin()[0]);
	d.outs.push_back(am0);
	for (int i = 0; i < 4; i++) {
		Func f("am_" + std::to_string(i + 1));
		f(k) = amin()[i + 1];
		d.outs.push_back(f);
	}
	for (Func &f : d.outs)
		f.set_estimates({ { 0, 1 } });
	// rfactor as bench/halide's and Halide's test/performance/rfactor,
	// twice: a partial per (a, b) plane pair, each a GPU thread folding
	// its c-d plane in the visiting order (64 x 64 = 4096 threads at
	// N = 64); those folded per a by N threads, then by one GPU thread.
	// Each partial is a contiguous run of the visiting order and each
	// merge folds them in that order, which keeps the tie rule.  The
	// outputs are read by one thread each.
	d.hand = [=]() mutable {
		Var u("u"), w("w"), ui("ui"), wi("wi");
		Func part = amin.update().rfactor({ { r.z, u }, { r.w, w } });
		part.compute_root().gpu_tile(u, w, ui, wi, 64, 1, TailStrategy::GuardWithIf);
		part.update().gpu_tile(u, w, ui, wi, 64, 1, TailStrategy::GuardWithIf);
		Func part2 = amin.update().rfactor(r.w, w);
		part2.compute_root().gpu_tile(w, wi, 64, TailStrategy::GuardWithIf);
		part2.update().gpu_tile(w, wi, 64, TailStrategy::GuardWithIf);
		amin.compute_root().gpu_single_thread();
		amin.update().gpu_single_thread();
		for (Func f : d.outs)
			f.gpu_single_thread();
	};
	return d;
}

// ---- iir_blur (bench/halide/iir_blur.cpp): I f32 [3, R, C], out f32
// [3, R, C]; two column pass pairs, each followed by a transpose ----
struct ColsT {
	Func blur, transpose;
	RDom ry;
};

ColsT blur_cols_transpose(Func in, Expr height, Expr alpha, Var x, Var y, Var c, const std::string &n)
{
	ColsT r{ Func("blur" + n), Func("transpose" + n), RDom(1, height - 1, "ry" + n) };
	r.blur(x, y, c) = undef<float>();
	r.blur(x, 0, c) = in(x, 0, c);
	r.blur(x, r.ry, c) = (1 - alpha) * r.blur(x, r.ry - 1, c) + alpha * in(x, r.ry, c);
	Expr flip = height - r.ry - 1;
	r.blur(x, flip, c) = (1 - alpha) * r.blur(x, flip + 1, c) + alpha * r.blur(x, flip, c);
	r.transpose(x, y, c) = r.blur(y, x, c);
	return r;
}

Def iir_blur(bool guard)
{
	const int R0 = 2560, C0 = 1536;
	ImageParam Ip(Float(32), 3, "I");
	Param<int> pR("R"), pC("C");
	Param<float> pa("a");
	estimate(Ip, { C0, R0, 3 });
	pR.set_estimate(R0), pC.set_estimate(C0), pa.set_estimate(0.1f);
	Func I = input(Ip, guard);
	Var x("x"), y("y"), c("c");
	ColsT first = blur_cols_transpose(I, pR, pa, x, y, c, "1");
	ColsT second = blur_cols_transpose(first.transpose, pC, pa, x, y, c, "2");
	Func out = second.transpose;
	out.set_estimates({ { 0, C0 }, { 0, R0 }, { 0, 3 } });

	Def d{ { pR, pC, pa, Ip }, { out }, nullptr };
	// Halide 14's apps/iir_blur CUDA schedule, per pass pair: a block per
	// 32 columns of the filter (a warp, one column a lane) and channel,
	// its columns filtered in global memory (too large for shared), the
	// scans unrolled by 8 so that loads are issued early; the transpose
	// in 32 x 32 tiles staged through shared memory padded to 33 columns
	// (no bank conflicts on the strided reads).
	d.hand = [=]() mutable {
		for (ColsT *p : { &first, &second }) {
			ColsT &s = *p;
			Var xi("xi"), yi("yi");
			s.transpose.compute_root().tile(x, y, xi, yi, 32, 32).gpu_blocks(y, c).gpu_lanes(xi);
			s.blur.compute_at(s.transpose, y).store_in(MemoryType::Heap).gpu_lanes(x);
			s.blur.update(0).gpu_lanes(x);
			s.blur.update(1).unroll(s.ry, 8).gpu_lanes(x);
			s.blur.update(2).unroll(s.ry, 8).gpu_lanes(x);
			s.blur.in().align_storage(x, 33).compute_at(s.transpose, x).gpu_lanes(x);
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
	{ "histogram", histogram },
	{ "camera_pipe", camera_pipe },
	{ "pyramid_blend", pyramid_blend },
	{ "bilateral_grid", bilateral_grid },
	{ "interpolate", interpolate },
	{ "heat3d", heat3d },
	{ "argmin", argmin },
	{ "iir_blur", iir_blur },
};

// Compiles one variant; false (and why) when Halide refuses.
bool build(const std::string &dir, const std::string &app, const std::string &variant,
	std::string &why)
{
	const std::string fn = "hl_" + app + "_" + variant, base = dir + "/" + fn;
	try {
		Def d = apps.at(app)(variant != "hand");
		Pipeline p(d.outs);
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
