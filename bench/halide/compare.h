// compare.h: what each app of the comparison (bench/halide/APP.cpp)
// hands the harness (harness.cpp), and the helpers they share.
//
// An app allocates its inputs and outputs as pt_buffers (the generated C
// ABI's type), fills the inputs deterministically, computes the plain-C
// reference of tests/ref into buffers laid out like the outputs, and
// offers its variants: the polytile functions, a Halide 14 version of the
// same algorithm (scheduled by hand or by an auto-scheduler), and, where
// the app is a composition of library calls, OpenCV.  bench/README.md
// describes the whole comparison.
#ifndef BENCH_HALIDE_COMPARE_H
#define BENCH_HALIDE_COMPARE_H

#include <Halide.h>

#include <functional>
#include <string>
#include <vector>

#include "pt_runtime.h"

extern "C" {
#include "ref_apps.h"
}

// The points of an output that are compared with the reference: an
// inclusive box of buffer indices (element 0 of each dimension is 0), in
// the pipeline's dimension order.
struct Box {
	std::vector<int64_t> lo, hi;
};

// How closely a variant must match: floats |v - ref| <= rel * max|ref| +
// abs; integers |v - ref| <= abs.  bad_frac > 0 lets that fraction of the
// points differ (only where an app says why: a select whose condition is
// within rounding of its threshold).
struct Tolerance {
	double rel = 0, abs = 0, bad_frac = 0;
};

// One output as a variant must produce it.
struct OutBuf {
	pt_buffer buf{};	// the variant writes here (shared by all variants)
	pt_buffer ref{};	// the reference, same layout
	Box box;		// the points compared
	Tolerance tol;		// for polytile and Halide (same algorithm)
	Box cv_box;		// for OpenCV (interior; empty: same as box)
	Tolerance cv_tol;
};

// A Halide version of the app, freshly defined (so that each variant
// schedules its own Funcs): the outputs, the buffers they are realized
// into (views of the outputs' defined points, so that Halide computes
// exactly those), and the hand schedule.  Estimates (the run's sizes) are
// already set on the inputs, params and outputs for the auto-schedulers.
// guard (the auto-schedulers' versions): the inputs are read through
// BoundaryConditions::repeat_edge, as in Halide's published generators, so
// that a schedule may round tiles up past the inputs' edges; no point the
// outputs use reads outside them, so no value changes.  The hand
// schedules read the inputs directly.
struct HalideApp {
	std::vector<Halide::Func> outputs;
	std::vector<Halide::Buffer<>> targets;
	std::function<void(const Halide::Target &)> hand;
};

// polytile's builds of an app: -O0, no options, and --config
// bench/tuned/APP.cfg (what `polytile tune` chose on the paper size).
enum PtVersion { PT_NAIVE, PT_DEFAULT, PT_TUNED };

// Calls the build v of app (APP_naive, APP_default or APP_tuned).
#define PT_CALL(app, v, ...) \
	((v) == PT_NAIVE ? app##_naive(__VA_ARGS__) : (v) == PT_TUNED ? app##_tuned(__VA_ARGS__) : app##_default(__VA_ARGS__))

struct App {
	std::string name, size;
	std::vector<pt_buffer> in;
	std::vector<OutBuf> out;
	double bytes = 0;	// input + output bytes: the memory-traffic floor
	std::function<int(PtVersion)> polytile;
	std::function<HalideApp(bool guard)> halide;
	std::function<void()> opencv;	// empty where the app is no composition
	std::string opencv_how;		// the calls, for the notes
};

// The apps (one file each); quick selects the small size of --quick.
App make_harris(bool quick);
App make_unsharp_mask(bool quick);
App make_blur(bool quick);
App make_sobel(bool quick);
App make_histogram(bool quick);
App make_heat3d(bool quick);
App make_bilateral_grid(bool quick);
App make_camera_pipe(bool quick);
App make_pyramid_blend(bool quick);
App make_interpolate(bool quick);
App make_local_laplacian(bool quick);
App make_iir_blur(bool quick);
App make_argmin(bool quick);

// ---- helpers (harness.cpp) ----

// A zeroed dense buffer of type t with extents ext (pipeline order).
pt_buffer alloc_buf(pt_type t, std::vector<int64_t> ext);
// Deterministic inputs: tests/ref's generators (f32 in [0, 1), u8, u16).
void fill(pt_buffer &b, uint32_t seed);
// An OutBuf with buffer and reference of type t and extents ext, compared
// on box with tolerance tol (and the same for OpenCV).
OutBuf make_output(pt_type t, std::vector<int64_t> ext, Box box, Tolerance tol);
// The whole buffer as a box.
Box whole(const std::vector<int64_t> &ext);
int64_t nbytes(const pt_buffer &b);

// A Halide view of b whose coordinates are the pipeline's: dimensions
// reversed (Halide's first is the contiguous one) and dimension d starting
// at lo[d] (the lower bound of the stage's domain; 0 when lo is empty).
Halide::Buffer<> hview(const pt_buffer &b, std::vector<int> lo = {});
// hview cropped to the box [first[d], last[d]] in pipeline coordinates.
Halide::Buffer<> hview_crop(const pt_buffer &b, std::vector<int> lo,
	std::vector<int> first, std::vector<int> last);

// An input as a Func: p itself, or with guard, p read through repeat_edge.
Halide::Func input(const Halide::ImageParam &p, bool guard);

// Estimates of an ImageParam from its pt_buffer (coordinates as hview's).
void estimate_like(Halide::ImageParam &p, const pt_buffer &b, std::vector<int> lo = {});
// Estimates of an output Func: its target buffer's region.
void estimate_like(Halide::Func &f, const Halide::Buffer<> &target);

#endif
