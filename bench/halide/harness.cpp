// harness.cpp: polytile against Halide 14 (hand schedules and its three
// auto-schedulers) and OpenCV 4.6, every app, at one thread count.
//
// For each app: every variant runs once into zeroed outputs and is compared
// with the plain-C reference of tests/ref (a mismatch is reported as WRONG
// and that variant is not timed); then each correct variant runs once as a
// warm-up and --runs times.  Halide variants are JIT-compiled in this process; the
// auto-schedulers' search and every variant's compilation are timed.
// Prints three markdown tables (times, ratios, compile and search) and
// appends long-format rows to --csv and normalized rows to --dat.
// bench/compare runs it once per thread count (Halide's thread pool reads
// HL_NUM_THREADS once, at its first use) and draws the chart.
//
// Usage: bench_compare --threads N [--apps a,b] [--quick] [--runs N]
//        [--auto LIST] [--auto-apps LIST] [--skip LIST] [--llc BYTES] [--csv F] [--dat F]
//        [--variants LIST]
// --variants keeps only the named columns ("polytile default,Halide hand";
// bench/threads.sh).
// --skip takes VARIANT:APP pairs (Adams2019:local_laplacian): those
// variants are not run (a dash in the table).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <omp.h>
#include <opencv2/core.hpp>

#include "compare.h"

#ifndef HALIDE_PLUGIN_DIR
#define HALIDE_PLUGIN_DIR "/usr/lib/x86_64-linux-gnu/halide14"
#endif

// ---- helpers shared with the apps ----

// Buffers are 128-byte aligned: Halide 14's code for AVX-512 uses aligned
// vector loads on buffers it assumes aligned (an output read back by an
// update: 32-byte aligned memory from calloc crashed histogram's).  Dense,
// row-major, zeroed, freed by pt_buffer_free (free()), like pt_buffer_alloc's.
pt_buffer alloc_buf(pt_type t, std::vector<int64_t> ext)
{
	pt_buffer b{};
	b.type = t;
	b.ndim = (int)ext.size();
	int64_t n = 1;
	for (int i = b.ndim - 1; i >= 0; i--) {
		b.extent[i] = ext[i];
		b.stride[i] = n;
		n *= ext[i];
	}
	size_t bytes = ((size_t)n * pt_type_size(t) + 127) / 128 * 128;
	b.data = std::aligned_alloc(128, bytes ? bytes : 128);
	if (!b.data) {
		std::fprintf(stderr, "bench_compare: out of memory\n");
		std::exit(2);
	}
	std::memset(b.data, 0, bytes);
	return b;
}

void fill(pt_buffer &b, uint32_t seed)
{
	size_t n = (size_t)pt_buffer_count(&b);
	switch (b.type) {
	case PT_F32: ref_fill_f32((float *)b.data, n, seed); break;
	case PT_U8: ref_fill_u8((uint8_t *)b.data, n, seed); break;
	case PT_U16: ref_fill_u16((uint16_t *)b.data, n, seed); break;
	default: std::fprintf(stderr, "bench_compare: no generator for %s\n", pt_type_name(b.type)); std::exit(2);
	}
}

Box whole(const std::vector<int64_t> &ext)
{
	Box b;
	for (int64_t e : ext) {
		b.lo.push_back(0);
		b.hi.push_back(e - 1);
	}
	return b;
}

OutBuf make_output(pt_type t, std::vector<int64_t> ext, Box box, Tolerance tol)
{
	OutBuf o;
	o.buf = alloc_buf(t, ext);
	o.ref = alloc_buf(t, ext);
	o.box = box;
	o.tol = tol;
	o.cv_box = box;
	o.cv_tol = tol;
	return o;
}

int64_t nbytes(const pt_buffer &b)
{
	return pt_buffer_count(&b) * (int64_t)pt_type_size(b.type);
}

static Halide::Type halide_type(pt_type t)
{
	switch (t) {
	case PT_U8: return Halide::UInt(8);
	case PT_U16: return Halide::UInt(16);
	case PT_U32: return Halide::UInt(32);
	case PT_I8: return Halide::Int(8);
	case PT_I16: return Halide::Int(16);
	case PT_I32: return Halide::Int(32);
	case PT_I64: return Halide::Int(64);
	case PT_F32: return Halide::Float(32);
	default: return Halide::Float(64);
	}
}

Halide::Buffer<> hview(const pt_buffer &b, std::vector<int> lo)
{
	std::vector<halide_dimension_t> d(b.ndim);
	for (int i = 0; i < b.ndim; i++) {
		int k = b.ndim - 1 - i;
		d[i] = halide_dimension_t(lo.empty() ? 0 : lo[k], (int32_t)b.extent[k], (int32_t)b.stride[k]);
	}
	return Halide::Buffer<>(halide_type(b.type), b.data, b.ndim, d.data());
}

Halide::Buffer<> hview_crop(const pt_buffer &b, std::vector<int> lo,
	std::vector<int> first, std::vector<int> last)
{
	Halide::Buffer<> v = hview(b, lo);
	for (int k = 0; k < b.ndim; k++)
		v.crop(b.ndim - 1 - k, first[k], last[k] - first[k] + 1);
	return v;
}

Halide::Func input(const Halide::ImageParam &p, bool guard)
{
	if (guard)
		return Halide::BoundaryConditions::repeat_edge(p);
	Halide::Func f(p.name() + "_in");
	f(Halide::_) = p(Halide::_);
	return f;
}

void estimate_like(Halide::ImageParam &p, const pt_buffer &b, std::vector<int> lo)
{
	Halide::Region r;
	for (int i = 0; i < b.ndim; i++) {
		int k = b.ndim - 1 - i;
		r.push_back({ lo.empty() ? 0 : lo[k], (int)b.extent[k] });
	}
	p.set_estimates(r);
}

void estimate_like(Halide::Func &f, const Halide::Buffer<> &t)
{
	Halide::Region r;
	for (int i = 0; i < t.dimensions(); i++)
		r.push_back({ t.dim(i).min(), t.dim(i).extent() });
	f.set_estimates(r);
}

// ---- options ----

struct Options {
	int threads = 1, runs = 10;
	bool quick = false;
	std::vector<std::string> apps, autos = { "Mullapudi2016", "Adams2019", "Li2018" }, auto_apps, skip;
	std::vector<std::string> variants;	// empty: all
	uint64_t llc = 0;
	int limit_s = 900;	// per variant: schedule, compile, check, time
	std::string csv, dat;
};

static std::vector<std::string> split(const std::string &s)
{
	std::vector<std::string> v;
	std::stringstream ss(s);
	std::string t;
	while (std::getline(ss, t, ','))
		if (!t.empty())
			v.push_back(t);
	return v;
}

static bool has(const std::vector<std::string> &v, const std::string &s)
{
	return std::find(v.begin(), v.end(), s) != v.end();
}

static double now_ms()
{
	using namespace std::chrono;
	return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// ---- the machine ----

// The last-level cache the auto-schedulers are told about.  A VM's CPUID
// often reports the whole socket's L3 (here 508 MiB); a core complex of
// the EPYCs this runs on shares 32 MiB, so larger figures are capped.
static uint64_t llc_bytes(const Options &o)
{
	if (o.llc)
		return o.llc;
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
	uint64_t cap = 32ull << 20;
	return l3 > 0 && (uint64_t)l3 < cap ? (uint64_t)l3 : cap;
}

// STREAM-style triad a = b + s*c over 3 x 64 MiB at the run's thread
// count: the bandwidth of the memory-traffic floor (best of 5, GB/s).
static double triad_gbs()
{
	size_t n = (64u << 20) / sizeof(double);
	std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
#pragma omp parallel for
	for (size_t i = 0; i < n; i++)
		a[i] = 0, b[i] = 1, c[i] = 2;
	double best = 1e30;
	for (int r = 0; r < 5; r++) {
		double t = now_ms();
#pragma omp parallel for
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * c[i];
		best = std::min(best, now_ms() - t);
	}
	if (a[n / 2] != 7.0)
		std::fprintf(stderr, "bench_compare: triad check failed\n");
	return 3.0 * (double)n * sizeof(double) / (best * 1e6);
}

// f() computed in a child process: the parent must start no thread.
static double in_child(double (*f)())
{
	int fd[2];
	if (pipe(fd) != 0) {
		std::perror("pipe");
		std::exit(2);
	}
	std::fflush(stdout);
	std::fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		double v = f();
		ssize_t k = write(fd[1], &v, sizeof v);
		_exit(k == (ssize_t)sizeof v ? 0 : 1);
	}
	close(fd[1]);
	double v = NAN;
	if (pid < 0 || read(fd[0], &v, sizeof v) != (ssize_t)sizeof v)
		v = NAN;
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, nullptr, 0);
	return v;
}

// Halide's host target, less Sapphire Rapids where the CPU lacks its
// AVX512-FP16: Halide 14 names this machine's Zen 5 (which has the BF16
// and VNNI it checks for) avx512_sapphirerapids, LLVM then emits FP16
// instructions, and the auto-scheduled blur died of SIGILL.
static Halide::Target host_target()
{
	Halide::Target t = Halide::get_host_target();
	FILE *f = std::fopen("/proc/cpuinfo", "r");
	bool fp16 = false;
	char line[8192];
	while (f && std::fgets(line, sizeof line, f))
		if (std::strncmp(line, "flags", 5) == 0) {
			fp16 = std::strstr(line, " avx512_fp16") != nullptr;
			break;
		}
	if (f)
		std::fclose(f);
	if (!fp16)
		t = t.without_feature(Halide::Target::AVX512_SapphireRapids);
	return t;
}

// ---- checking ----

// Compares o.buf with o.ref on box; returns "" or what is wrong.
static std::string check(const OutBuf &o, const Box &box, const Tolerance &tol)
{
	const pt_buffer &b = o.buf, &r = o.ref;
	int nd = b.ndim;
	std::vector<int64_t> idx(box.lo);
	bool fl = b.type == PT_F32 || b.type == PT_F64;
	int64_t count = 1;
	for (int d = 0; d < nd; d++)
		count *= box.hi[d] - box.lo[d] + 1;
	if (count <= 0)
		return "";
	double maxref = 0;
	for (int64_t k = 0; k < count; k++) {
		int64_t rest = k;
		for (int d = nd - 1; d >= 0; d--) {
			int64_t e = box.hi[d] - box.lo[d] + 1;
			idx[d] = box.lo[d] + rest % e;
			rest /= e;
		}
		maxref = std::max(maxref, std::fabs(pt_buffer_get(&r, idx.data())));
	}
	double lim = fl ? tol.rel * maxref + tol.abs : tol.abs;
	int64_t bad = 0;
	double worst = -1, wv = 0, wr = 0;
	std::vector<int64_t> widx(idx);
	for (int64_t k = 0; k < count; k++) {
		int64_t rest = k;
		for (int d = nd - 1; d >= 0; d--) {
			int64_t e = box.hi[d] - box.lo[d] + 1;
			idx[d] = box.lo[d] + rest % e;
			rest /= e;
		}
		double v = pt_buffer_get(&b, idx.data()), rv = pt_buffer_get(&r, idx.data());
		double dd = std::fabs(v - rv);
		if (!(dd <= lim)) {	// NaN is a mismatch
			bad++;
			if (!(dd <= worst)) {
				worst = dd, wv = v, wr = rv;
				widx = idx;
			}
		}
	}
	if (bad == 0 || (double)bad <= tol.bad_frac * (double)count)
		return "";
	std::ostringstream s;
	s << bad << " of " << count << " points differ; worst at (";
	for (int d = 0; d < nd; d++)
		s << (d ? ", " : "") << widx[d];
	s << "): " << wv << ", reference " << wr << " (tolerance " << lim << ")";
	return s.str();
}

// ---- variants ----

struct Variant {
	std::string name;
	std::function<void()> run;
	double compile_s = -1, search_s = -1;
	std::string status = "ok", why;	// ok, WRONG, FAILED, n/a
	std::vector<double> times;
	double median() const
	{
		std::vector<double> t(times);
		std::sort(t.begin(), t.end());
		size_t n = t.size();
		return n == 0 ? NAN : n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	}
	double min() const { return times.empty() ? NAN : *std::min_element(times.begin(), times.end()); }
};

static const char *const column_names[] = { "polytile naive", "polytile default", "polytile tuned",
	"Halide hand", "Mullapudi2016", "Adams2019", "Li2018", "OpenCV" };
enum { NCOLS = sizeof(column_names) / sizeof(column_names[0]) };

static void zero_outputs(App &a)
{
	for (OutBuf &o : a.out)
		std::memset(o.buf.data, 0, (size_t)nbytes(o.buf));
}

// Halide's allocations: 128-byte aligned for the same reason as
// alloc_buf's, and kept for the next call, as polytile's runtime keeps its
// intermediates (pt_rt_alloc): neither then pays the page faults of fresh
// memory in every call (harris at 6400 x 6400: 1.6 GB of intermediates
// naively).  A freed block goes to a list; an allocation takes a block of
// the same rounded size from it.  Each variant runs in a process of its
// own, so the list holds one variant's blocks.
static std::mutex cache_lock;
static std::multimap<size_t, void *> cache;

static void *aligned_malloc(Halide::JITUserContext *, size_t n)
{
	n = (n + 127) / 128 * 128;
	{
		std::lock_guard<std::mutex> g(cache_lock);
		auto it = cache.find(n);
		if (it != cache.end()) {
			void *p = it->second;
			cache.erase(it);
			return p;
		}
	}
	void *p = std::aligned_alloc(128, n + 128);
	if (!p)
		return nullptr;
	*(size_t *)p = n;	// the size, in a header of one alignment unit
	return (char *)p + 128;
}

static void aligned_free(Halide::JITUserContext *, void *p)
{
	if (!p)
		return;
	std::lock_guard<std::mutex> g(cache_lock);
	cache.emplace(*(size_t *)((char *)p - 128), p);
}

// A Halide variant: the algorithm defined afresh, scheduled (by hand, or by
// the named auto-scheduler), JIT-compiled.
static Variant halide_variant(App &a, const std::string &sched, const Options &o,
	const Halide::Target &target)
{
	Variant v;
	v.name = sched == "hand" ? "Halide hand" : sched;
	try {
		HalideApp h = a.halide(sched != "hand");
		auto p = std::make_shared<Halide::Pipeline>(h.outputs);
		if (sched == "hand") {
			h.hand(target);
		} else {
			double t = now_ms();
			p->auto_schedule(sched, target, Halide::MachineParams(o.threads, llc_bytes(o), 40));
			v.search_s = (now_ms() - t) / 1e3;
		}
		p->jit_handlers().custom_malloc = aligned_malloc;
		p->jit_handlers().custom_free = aligned_free;
		double t = now_ms();
		p->compile_jit(target);
		v.compile_s = (now_ms() - t) / 1e3;
		auto targets = std::make_shared<std::vector<Halide::Buffer<>>>(h.targets);
		v.run = [p, targets] { p->realize(Halide::Realization(*targets)); };
	} catch (const Halide::Error &e) {
		v.status = "FAILED";
		v.why = e.what();
	}
	return v;
}

static Variant polytile_variant(App &a, PtVersion which)
{
	Variant v;
	v.name = which == PT_NAIVE ? "polytile naive" : which == PT_TUNED ? "polytile tuned" : "polytile default";
	v.run = [&a, which] {
		int r = a.polytile(which);
		if (r != 0) {
			std::fprintf(stderr, "bench_compare: %s: polytile returned %s\n",
				a.name.c_str(), pt_error_name(r));
			std::exit(2);
		}
	};
	return v;
}

struct Result {
	std::string app, size;
	double floor_ms;
	std::map<std::string, Variant> v;
};

// Runs one variant in this (child) process: made, checked, timed.
static Variant run_variant(App &a, const std::function<Variant()> &make, const Options &o)
{
	Variant v = make();
	if (v.status != "ok")
		return v;
	zero_outputs(a);
	try {
		v.run();
	} catch (const std::exception &e) {
		v.status = "FAILED";
		v.why = e.what();
		return v;
	}
	bool cv = v.name == "OpenCV";
	for (size_t k = 0; k < a.out.size(); k++) {
		const OutBuf &out = a.out[k];
		std::string w = check(out, cv ? out.cv_box : out.box, cv ? out.cv_tol : out.tol);
		if (!w.empty()) {
			v.status = "WRONG";
			// which output, where an app has several (argmin: am_0 .. am_4)
			v.why = a.out.size() > 1 ? "output " + std::to_string(k) + ": " + w : w;
			return v;
		}
	}
	for (int r = -1; r < o.runs; r++) {	// a warm-up, then the runs
		double t = now_ms();
		v.run();
		t = now_ms() - t;
		if (r >= 0)
			v.times.push_back(t);
	}
	return v;
}

// Each variant runs in a child process of its own (fork), made from the
// parent's inputs and references (shared copy-on-write), so that
//  - a crash or a hang of one (an auto-scheduler's bug: Adams2019 on
//    local Laplacian, Halide issue 6188) costs that variant only: it is
//    reported as CRASHED and the run goes on;
//  - each has the machine to itself: Halide's thread pool and libgomp's
//    keep spinning a while after a call, and on 2 cores, alternating them
//    in one process made each wait for the other (polytile harris at
//    509 x 387: 0.3 ms alone, 94 ms alternating with Halide).
// The parent starts no thread (libgomp and Halide's pool are not
// fork-safe); the child reports on a pipe.
static Variant isolated(App &a, const std::string &name, const std::function<Variant()> &make,
	const Options &o, int limit_s)
{
	std::fflush(stdout);
	std::fflush(stderr);
	int fd[2];
	if (pipe(fd) != 0) {
		std::perror("pipe");
		std::exit(2);
	}
	pid_t pid = fork();
	if (pid < 0) {
		std::perror("fork");
		std::exit(2);
	}
	if (pid == 0) {
		close(fd[0]);
		alarm((unsigned)limit_s);
		cv::setNumThreads(o.threads);
		Variant v = run_variant(a, make, o);
		std::ostringstream m;
		m.precision(17);
		m << v.status << '\n' << v.compile_s << ' ' << v.search_s << ' ' << v.times.size();
		for (double t : v.times)
			m << ' ' << t;
		std::string why = v.why;
		std::replace(why.begin(), why.end(), '\n', ' ');
		m << '\n' << why << '\n';
		std::string msg = m.str();
		size_t off = 0;
		while (off < msg.size()) {
			ssize_t k = write(fd[1], msg.data() + off, msg.size() - off);
			if (k <= 0)
				break;
			off += (size_t)k;
		}
		close(fd[1]);
		std::fflush(stderr);
		_exit(0);
	}
	close(fd[1]);
	std::string msg;
	char buf[4096];
	ssize_t k;
	while ((k = read(fd[0], buf, sizeof buf)) > 0)
		msg.append(buf, (size_t)k);
	close(fd[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	Variant v;
	v.name = name;
	std::istringstream in(msg);
	size_t n = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && std::getline(in, v.status)) {
		in >> v.compile_s >> v.search_s >> n;
		v.times.resize(n);
		for (double &t : v.times)
			in >> t;
		in.ignore(1);
		std::getline(in, v.why);
	} else {
		v.status = "CRASHED";
		if (WIFSIGNALED(st))
			v.why = WTERMSIG(st) == SIGALRM ? "no result after " + std::to_string(limit_s) + " s"
				: std::string("signal ") + strsignal(WTERMSIG(st));
		else
			v.why = "exit status " + std::to_string(WEXITSTATUS(st));
	}
	std::fprintf(stderr, "%s: %-16s %s%s%s\n", a.name.c_str(), name.c_str(), v.status.c_str(),
		v.why.empty() ? "" : ": ", v.why.c_str());
	return v;
}

static Result bench_app(App &a, const Options &o, const Halide::Target &target, double gbs)
{
	Result res;
	res.app = a.name;
	res.size = a.size;
	res.floor_ms = a.bytes / (gbs * 1e6);
	std::vector<std::pair<std::string, std::function<Variant()>>> specs;
	specs.push_back({ "polytile naive", [&] { return polytile_variant(a, PT_NAIVE); } });
	specs.push_back({ "polytile default", [&] { return polytile_variant(a, PT_DEFAULT); } });
	specs.push_back({ "polytile tuned", [&] { return polytile_variant(a, PT_TUNED); } });
	if (a.halide) {
		specs.push_back({ "Halide hand", [&] { return halide_variant(a, "hand", o, target); } });
		if (o.auto_apps.empty() || has(o.auto_apps, a.name))
			for (const std::string &s : o.autos)
				if (!has(o.skip, s + ":" + a.name))
					specs.push_back({ s, [&a, s, &o, &target] { return halide_variant(a, s, o, target); } });
	}
	if (a.opencv)
		specs.push_back({ "OpenCV", [&] {
			Variant v;
			v.name = "OpenCV";
			v.run = a.opencv;
			return v;
		} });
	for (auto &sp : specs)
		if (o.variants.empty() || has(o.variants, sp.first))
			res.v[sp.first] = isolated(a, sp.first, sp.second, o, o.limit_s);
	return res;
}

// ---- output ----

static std::string cell(const Result &r, const char *col, bool with_min)
{
	auto it = r.v.find(col);
	if (it == r.v.end())
		return "—";
	const Variant &v = it->second;
	if (v.status != "ok")
		return v.status;
	char s[64];
	if (with_min)
		std::snprintf(s, sizeof s, "%.3g (%.3g)", v.median(), v.min());
	else
		std::snprintf(s, sizeof s, "%.3g", v.median());
	return s;
}

static void print_tables(const std::vector<Result> &rs, const Options &o, double gbs)
{
	std::printf("\n## %d thread%s\n\n", o.threads, o.threads == 1 ? "" : "s");
	std::printf("Median (min) ms of %d runs after a warm-up; memory floor = input + output bytes at "
		"%.1f GB/s (triad, %d thread%s). WRONG: output differs from the reference (not timed); "
		"—: no such variant.\n\n", o.runs, gbs, o.threads, o.threads == 1 ? "" : "s");
	std::printf("| app | size | floor |");
	for (const char *c : column_names)
		std::printf(" %s |", c);
	std::printf("\n|---|---|---|");
	for (int i = 0; i < NCOLS; i++)
		std::printf("---|");
	std::printf("\n");
	for (const Result &r : rs) {
		std::printf("| %s | %s | %.3g |", r.app.c_str(), r.size.c_str(), r.floor_ms);
		for (const char *c : column_names)
			std::printf(" %s |", cell(r, c, true).c_str());
		std::printf("\n");
	}

	for (const char *mine : { "polytile default", "polytile tuned" }) {
		std::printf("\nPeer median / %s median, same run (> 1: %s is faster):\n\n", mine, mine);
		std::printf("| app |");
		for (int i = 0; i < NCOLS; i++)
			if (std::strcmp(column_names[i], mine))
				std::printf(" %s |", column_names[i]);
		std::printf("\n|---|");
		for (int i = 1; i < NCOLS; i++)
			std::printf("---|");
		std::printf("\n");
		for (const Result &r : rs) {
			auto d = r.v.find(mine);
			double dm = d != r.v.end() && d->second.status == "ok" ? d->second.median() : NAN;
			std::printf("| %s |", r.app.c_str());
			for (int i = 0; i < NCOLS; i++) {
				if (!std::strcmp(column_names[i], mine))
					continue;
				auto it = r.v.find(column_names[i]);
				if (it == r.v.end() || it->second.status != "ok" || std::isnan(dm))
					std::printf(" — |");
				else
					std::printf(" %.2f |", it->second.median() / dm);
			}
			std::printf("\n");
		}
	}

	std::printf("\nHalide compile (JIT) and auto-scheduler search, s:\n\n| app |");
	for (int i = 3; i < 7; i++)
		std::printf(" %s |", column_names[i]);
	std::printf("\n|---|---|---|---|---|\n");
	for (const Result &r : rs) {
		std::printf("| %s |", r.app.c_str());
		for (int i = 3; i < 7; i++) {
			auto it = r.v.find(column_names[i]);
			if (it == r.v.end())
				std::printf(" — |");
			else if (it->second.compile_s < 0)
				std::printf(" %s |", it->second.status.c_str());
			else if (it->second.search_s >= 0)
				std::printf(" %.2f + %.1f search |", it->second.compile_s, it->second.search_s);
			else
				std::printf(" %.2f |", it->second.compile_s);
		}
		std::printf("\n");
	}
	for (const Result &r : rs)
		for (auto &kv : r.v)
			if (kv.second.status != "ok")
				std::printf("\n%s, %s: %s: %s\n", r.app.c_str(), kv.first.c_str(),
					kv.second.status.c_str(), kv.second.why.c_str());
	std::fflush(stdout);
}

// Long format: one row per app and variant.
static void write_csv(const std::vector<Result> &rs, const Options &o, double gbs)
{
	if (o.csv.empty())
		return;
	FILE *f = std::fopen(o.csv.c_str(), "a");
	if (!f) {
		std::perror(o.csv.c_str());
		std::exit(2);
	}
	if (std::ftell(f) == 0)
		std::fprintf(f, "app,size,threads,variant,status,median_ms,min_ms,runs,compile_s,search_s,floor_ms,triad_gbs\n");
	for (const Result &r : rs)
		for (const char *c : column_names) {
			auto it = r.v.find(c);
			if (it == r.v.end())
				continue;
			const Variant &v = it->second;
			std::fprintf(f, "%s,\"%s\",%d,%s,%s,%.4f,%.4f,%zu,%.3f,%.3f,%.4f,%.2f\n",
				r.app.c_str(), r.size.c_str(), o.threads, c, v.status.c_str(), v.median(), v.min(),
				v.times.size(), v.compile_s, v.search_s, r.floor_ms, gbs);
		}
	std::fclose(f);
}

// For the chart: per app, each variant's median over the fastest peer's
// (Halide or OpenCV); "-" (gnuplot's missing value) where there is none.
static void write_dat(const std::vector<Result> &rs, const Options &o)
{
	if (o.dat.empty())
		return;
	FILE *f = std::fopen(o.dat.c_str(), "w");
	if (!f) {
		std::perror(o.dat.c_str());
		std::exit(2);
	}
	std::fprintf(f, "app");
	for (const char *c : column_names)
		std::fprintf(f, "\t\"%s\"", c);
	std::fprintf(f, "\n");
	for (const Result &r : rs) {
		double best = INFINITY;
		for (int i = 3; i < NCOLS; i++) {
			auto it = r.v.find(column_names[i]);
			if (it != r.v.end() && it->second.status == "ok")
				best = std::min(best, it->second.median());
		}
		std::fprintf(f, "%s", r.app.c_str());
		for (const char *c : column_names) {
			auto it = r.v.find(c);
			if (it == r.v.end() || it->second.status != "ok" || std::isinf(best))
				std::fprintf(f, "\t-");
			else
				std::fprintf(f, "\t%.4f", it->second.median() / best);
		}
		std::fprintf(f, "\n");
	}
	std::fclose(f);
}

static void usage()
{
	std::fprintf(stderr, "usage: bench_compare --threads N [--apps a,b] [--quick] [--runs N] "
		"[--auto LIST] [--auto-apps LIST] [--skip VARIANT:APP,..] [--llc BYTES] [--limit S] [--csv FILE] [--dat FILE] "
		"[--variants LIST]\n");
	std::exit(2);
}

int main(int argc, char **argv)
{
	Options o;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto val = [&]() -> std::string {
			if (i + 1 >= argc)
				usage();
			return argv[++i];
		};
		if (a == "--threads") o.threads = std::atoi(val().c_str());
		else if (a == "--runs") o.runs = std::atoi(val().c_str());
		else if (a == "--quick") o.quick = true;
		else if (a == "--apps") o.apps = split(val());
		else if (a == "--auto") o.autos = split(val());
		else if (a == "--auto-apps") o.auto_apps = split(val());
		else if (a == "--skip") o.skip = split(val());
		else if (a == "--variants") o.variants = split(val());
		else if (a == "--limit") o.limit_s = std::atoi(val().c_str());
		else if (a == "--llc") o.llc = std::strtoull(val().c_str(), nullptr, 10);
		else if (a == "--csv") o.csv = val();
		else if (a == "--dat") o.dat = val();
		else usage();
	}
	if (o.threads < 1 || o.runs < 1)
		usage();
	if (o.autos.size() == 1 && o.autos[0] == "none")
		o.autos.clear();

	// One thread count for everyone: polytile's and our OpenMP loops,
	// Halide's thread pool (read at its first use), OpenCV's.
	std::string nt = std::to_string(o.threads);
	setenv("HL_NUM_THREADS", nt.c_str(), 1);
	omp_set_num_threads(o.threads);
	pt_set_num_threads(o.threads);
	cv::setNumThreads(o.threads);

	for (const std::string &s : o.autos) {
		std::string lib = s == "Mullapudi2016" ? "mullapudi2016" : s == "Adams2019" ? "adams2019"
			: s == "Li2018" ? "li2018" : "";
		if (lib.empty()) {
			std::fprintf(stderr, "bench_compare: unknown auto-scheduler %s\n", s.c_str());
			return 2;
		}
		Halide::load_plugin(std::string(HALIDE_PLUGIN_DIR) + "/libautoschedule_" + lib + ".so");
	}

	static const std::pair<const char *, App (*)(bool)> makers[] = {
		{ "harris", make_harris }, { "unsharp_mask", make_unsharp_mask }, { "blur", make_blur },
		{ "sobel", make_sobel }, { "histogram", make_histogram }, { "heat3d", make_heat3d },
		{ "bilateral_grid", make_bilateral_grid }, { "camera_pipe", make_camera_pipe },
		{ "pyramid_blend", make_pyramid_blend }, { "interpolate", make_interpolate },
		{ "local_laplacian", make_local_laplacian }, { "iir_blur", make_iir_blur },
		{ "argmin", make_argmin },
	};
	for (const std::string &a : o.apps) {
		bool known = false;
		for (auto &m : makers)
			known |= a == m.first;
		if (!known) {
			std::fprintf(stderr, "bench_compare: unknown app %s\n", a.c_str());
			return 2;
		}
	}

	Halide::Target target = host_target();
	double gbs = in_child(triad_gbs);
	std::fprintf(stderr, "threads %d, Halide target %s, LLC %llu bytes, triad %.1f GB/s\n",
		o.threads, target.to_string().c_str(), (unsigned long long)llc_bytes(o), gbs);

	std::vector<Result> rs;
	int wrong = 0;
	for (auto &m : makers) {
		if (!o.apps.empty() && !has(o.apps, m.first))
			continue;
		App a = m.second(o.quick);
		rs.push_back(bench_app(a, o, target, gbs));
		// A wrong answer fails the run; so does a failure of our own code
		// (polytile, our Halide hand schedules, our OpenCV calls).  An
		// auto-scheduler that fails or crashes is reported, not fatal.
		for (auto &kv : rs.back().v) {
			bool ours = kv.first.rfind("polytile", 0) == 0 || kv.first == "Halide hand" || kv.first == "OpenCV";
			wrong += kv.second.status == "WRONG" || (ours && kv.second.status != "ok");
		}
		for (pt_buffer &b : a.in)
			pt_buffer_free(&b);
		for (OutBuf &out : a.out) {
			pt_buffer_free(&out.buf);
			pt_buffer_free(&out.ref);
		}
	}
	print_tables(rs, o, gbs);
	write_csv(rs, o, gbs);
	write_dat(rs, o);
	return wrong ? 1 : 0;
}
