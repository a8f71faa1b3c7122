// wrap.cpp: hl_gpu.h over the pipelines gen.cpp compiled (their headers
// and hl_gpu_built.h in the include path) and Halide's standalone runtime.
// Needs HalideRuntime.h only, not Halide.h or libHalide.
#include "hl_gpu.h"

#include <HalideRuntime.h>
#include <HalideRuntimeCuda.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "hl_gpu_built.h"

#ifdef HL_HAVE_harris_hand
#include "hl_harris_hand.h"
#endif
#ifdef HL_HAVE_harris_li2018
#include "hl_harris_li2018.h"
#endif
#ifdef HL_HAVE_unsharp_mask_hand
#include "hl_unsharp_mask_hand.h"
#endif
#ifdef HL_HAVE_unsharp_mask_li2018
#include "hl_unsharp_mask_li2018.h"
#endif
#ifdef HL_HAVE_blur_hand
#include "hl_blur_hand.h"
#endif
#ifdef HL_HAVE_blur_li2018
#include "hl_blur_li2018.h"
#endif
#ifdef HL_HAVE_sobel_hand
#include "hl_sobel_hand.h"
#endif
#ifdef HL_HAVE_sobel_li2018
#include "hl_sobel_li2018.h"
#endif
#ifdef HL_HAVE_local_laplacian_hand
#include "hl_local_laplacian_hand.h"
#endif
#ifdef HL_HAVE_local_laplacian_li2018
#include "hl_local_laplacian_li2018.h"
#endif
#ifdef HL_HAVE_histogram_hand
#include "hl_histogram_hand.h"
#endif
#ifdef HL_HAVE_histogram_li2018
#include "hl_histogram_li2018.h"
#endif
#ifdef HL_HAVE_camera_pipe_hand
#include "hl_camera_pipe_hand.h"
#endif
#ifdef HL_HAVE_camera_pipe_li2018
#include "hl_camera_pipe_li2018.h"
#endif
#ifdef HL_HAVE_pyramid_blend_hand
#include "hl_pyramid_blend_hand.h"
#endif
#ifdef HL_HAVE_pyramid_blend_li2018
#include "hl_pyramid_blend_li2018.h"
#endif
#ifdef HL_HAVE_bilateral_grid_hand
#include "hl_bilateral_grid_hand.h"
#endif
#ifdef HL_HAVE_bilateral_grid_li2018
#include "hl_bilateral_grid_li2018.h"
#endif
#ifdef HL_HAVE_interpolate_hand
#include "hl_interpolate_hand.h"
#endif
#ifdef HL_HAVE_interpolate_li2018
#include "hl_interpolate_li2018.h"
#endif
#ifdef HL_HAVE_heat3d_hand
#include "hl_heat3d_hand.h"
#endif
#ifdef HL_HAVE_heat3d_li2018
#include "hl_heat3d_li2018.h"
#endif
#ifdef HL_HAVE_argmin_hand
#include "hl_argmin_hand.h"
#endif
#ifdef HL_HAVE_argmin_li2018
#include "hl_argmin_li2018.h"
#endif
#ifdef HL_HAVE_iir_blur_hand
#include "hl_iir_blur_hand.h"
#endif
#ifdef HL_HAVE_iir_blur_li2018
#include "hl_iir_blur_li2018.h"
#endif

namespace {

char last_error[4096];

void on_error(void *, const char *msg)
{
	std::snprintf(last_error, sizeof last_error, "%s", msg);
	std::fprintf(stderr, "hl_gpu: %s%s", msg, msg[0] && msg[std::strlen(msg) - 1] == '\n' ? "" : "\n");
}

int fail(int code, const char *what)
{
	on_error(nullptr, what);
	return code;
}

void init()
{
	static bool done;
	if (done)
		return;
	done = true;
	halide_set_error_handler(on_error);
	// Halide's runtime dlopens "libcuda.so", which a driver-only install
	// may lack; it looks in the process first, so load the driver's
	// soname globally.  (If this fails, Halide reports the error.)
	if (!dlsym(RTLD_DEFAULT, "cuInit"))
		dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	// Keep freed device memory for the next call: the compute_root
	// intermediates are allocated and freed at every run otherwise.
	halide_reuse_device_allocations(nullptr, true);
}

halide_type_t htype(pt_type t)
{
	switch (t) {
	case PT_U8: return { halide_type_uint, 8, 1 };
	case PT_U16: return { halide_type_uint, 16, 1 };
	case PT_U32: return { halide_type_uint, 32, 1 };
	case PT_I8: return { halide_type_int, 8, 1 };
	case PT_I16: return { halide_type_int, 16, 1 };
	case PT_I32: return { halide_type_int, 32, 1 };
	case PT_I64: return { halide_type_int, 64, 1 };
	case PT_F32: return { halide_type_float, 32, 1 };
	default: return { halide_type_float, 64, 1 };
	}
}

// A halide_buffer_t kept across calls, so that its device copy is.
struct View {
	halide_buffer_t b{};
	halide_dimension_t dim[PT_MAX_DIMS]{};
	bool crop = false;	// its device memory is a crop of another View's
};

// The buffers of one app and variant.
enum { MAX_IN = 3, MAX_OUT = 5 };
struct Slot {
	View in[MAX_IN];
	View whole, out[MAX_OUT];	// whole: harris' full buffer, of which out[0] is a crop
};

bool same(const halide_buffer_t &a, const halide_buffer_t &b)
{
	if (a.host != b.host || a.dimensions != b.dimensions || a.type != b.type)
		return false;
	for (int i = 0; i < a.dimensions; i++)
		if (a.dim[i] != b.dim[i])
			return false;
	return true;
}

int release(View &v)
{
	int r = 0;
	if (v.b.device)
		r = v.crop ? halide_device_release_crop(nullptr, &v.b) : halide_device_free(nullptr, &v.b);
	v.b = halide_buffer_t{};
	v.crop = false;
	return r;
}

// The view of p that the pipelines take, checked against polytile's
// declaration (type t, extents ext): Halide's dimensions are p's reversed,
// coordinates start at lo (pipeline order), and with first/last only the
// box [first, last] (buffer indices, pipeline order) is seen.
int describe(halide_buffer_t &hb, halide_dimension_t *dim, const pt_buffer *p, pt_type t, int n,
	const int64_t *ext, const int *lo, const int64_t *first = nullptr, const int64_t *last = nullptr)
{
	if (!p || !p->data)
		return fail(halide_error_code_buffer_argument_is_null, "a buffer or its data is NULL");
	if (p->type != t)
		return fail(halide_error_code_bad_type, "a buffer's element type is not the app's");
	if (p->ndim != n)
		return fail(halide_error_code_bad_dimensions, "a buffer's dimensions are not the app's");
	int64_t off = 0;
	for (int k = 0; k < n; k++) {
		int64_t f = first ? first[k] : 0, e = first ? last[k] - first[k] + 1 : p->extent[k];
		if (p->extent[k] != ext[k] || e < 0 || p->stride[k] > INT32_MAX || p->stride[k] < INT32_MIN)
			return fail(halide_error_code_constraint_violated, "a buffer's extents are not the app's for R, C");
		off += f * p->stride[k];
		dim[n - 1 - k] = halide_dimension_t((int32_t)(lo[k] + f), (int32_t)e, (int32_t)p->stride[k]);
	}
	hb = halide_buffer_t{};
	hb.host = (uint8_t *)p->data + off * (int64_t)htype(t).bytes();
	hb.type = htype(t);
	hb.dimensions = n;
	hb.dim = dim;
	return 0;
}

// Points v at want (a describe()d buffer), dropping v's device copy if it
// was another buffer's; true if so (or if it has no device copy yet).
bool assign(View &v, const halide_buffer_t &want)
{
	if (v.b.device && same(v.b, want))
		return false;
	release(v);
	halide_dimension_t *d = v.dim;
	std::memcpy(d, want.dim, sizeof(halide_dimension_t) * want.dimensions);
	v.b = want;
	v.b.dim = d;
	return true;
}

// Desired views of one call.
struct Want {
	halide_buffer_t b{};
	halide_dimension_t dim[PT_MAX_DIMS];
};

// Sets up s for a call: inputs (n of them) copied to the device when the
// mode or a new buffer says so; the outputs (nout) get device memory at
// the run, or, cropped (one output), a crop of the whole buffer's, uploaded
// once so that a copy back of the whole buffer leaves the points outside
// the crop as they were: one copy instead of one per row.
int prepare(Slot &s, int mode, Want *in, int n, Want &whole, Want *out, int nout, bool cropped)
{
	for (int i = 0; i < n; i++) {
		bool fresh = assign(s.in[i], in[i].b);
		s.in[i].b.set_host_dirty(fresh || mode == HL_E2E);
	}
	if (!cropped) {
		for (int o = 0; o < nout; o++)
			assign(s.out[o], out[o].b);
	} else if (!s.whole.b.device || !same(s.whole.b, whole.b) || !same(s.out[0].b, out[0].b)) {
		release(s.out[0]);
		assign(s.whole, whole.b);
		s.whole.b.set_host_dirty(true);
		if (int r = halide_copy_to_device(nullptr, &s.whole.b, halide_cuda_device_interface()))
			return r;
		assign(s.out[0], out[0].b);
		if (int r = halide_device_crop(nullptr, &s.whole.b, &s.out[0].b))
			return r;
		s.out[0].crop = true;
	}
	for (int o = 0; o < nout; o++)
		s.out[o].b.set_host_dirty(false);
	return 0;
}

int finish(Slot &s, int mode, bool cropped, int nout, int r)
{
	if (r)
		return r;
	if (mode == HL_RESIDENT)
		return halide_device_sync(nullptr, &s.out[0].b);
	if (cropped) {
		s.whole.b.set_device_dirty(true);
		r = halide_copy_to_host(nullptr, &s.whole.b);
		s.out[0].b.set_device_dirty(false);
		return r;
	}
	for (int o = 0; o < nout && !r; o++)
		r = halide_copy_to_host(nullptr, &s.out[o].b);
	return r;
}

int release_slot(Slot &s)
{
	int r = 0;
	for (View &v : s.out)	// a crop goes before its parent
		if (int e = release(v))
			r = r ? r : e;
	for (View *v : { &s.whole, &s.in[0], &s.in[1], &s.in[2] })
		if (int e = release(*v))
			r = r ? r : e;
	// Hand the pooled allocations back to the driver.
	if (int e = halide_reuse_device_allocations(nullptr, false))
		r = r ? r : e;
	halide_reuse_device_allocations(nullptr, true);
	return r;
}

// An app's variants: name and function, NULL-terminated.
template<class Fn>
struct Variant {
	const char *name;
	Fn fn;
};

template<class Fn, int N>
int find(const Variant<Fn> (&v)[N], const char *name)
{
	for (int i = 0; i < N && v[i].name; i++)
		if (name && !std::strcmp(v[i].name, name))
			return i;
	return fail(halide_error_code_generic_error, "no such variant built for this app");
}

template<class Fn, int N>
struct Names {
	const char *n[N];
	explicit Names(const Variant<Fn> (&v)[N])
	{
		for (int i = 0; i < N; i++)
			n[i] = v[i].name;
	}
};

// ---- the apps ----

using Fn2 = int (*)(halide_buffer_t *, halide_buffer_t *);	// image, output
using FnUnsharp = int (*)(float, float, halide_buffer_t *, halide_buffer_t *);
using FnLL = int (*)(int32_t, int32_t, float, float, halide_buffer_t *, halide_buffer_t *);
using FnRC1 = int (*)(int32_t, int32_t, halide_buffer_t *, halide_buffer_t *);	// R, C, image, output
using FnCamera = int (*)(float, float, float, halide_buffer_t *, halide_buffer_t *);
using FnBlend = int (*)(int32_t, int32_t, halide_buffer_t *, halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
using FnInterp = int (*)(int32_t, int32_t, halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
using FnHeat = int (*)(int32_t, float, halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);
using FnArgmin = int (*)(int32_t, halide_buffer_t *, halide_buffer_t *, halide_buffer_t *, halide_buffer_t *,
	halide_buffer_t *, halide_buffer_t *);
using FnIir = int (*)(int32_t, int32_t, float, halide_buffer_t *, halide_buffer_t *);

const Variant<Fn2> harris_v[] = {
#ifdef HL_HAVE_harris_hand
	{ "hand", hl_harris_hand },
#endif
#ifdef HL_HAVE_harris_li2018
	{ "li2018", hl_harris_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnUnsharp> unsharp_mask_v[] = {
#ifdef HL_HAVE_unsharp_mask_hand
	{ "hand", hl_unsharp_mask_hand },
#endif
#ifdef HL_HAVE_unsharp_mask_li2018
	{ "li2018", hl_unsharp_mask_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<Fn2> blur_v[] = {
#ifdef HL_HAVE_blur_hand
	{ "hand", hl_blur_hand },
#endif
#ifdef HL_HAVE_blur_li2018
	{ "li2018", hl_blur_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<Fn2> sobel_v[] = {
#ifdef HL_HAVE_sobel_hand
	{ "hand", hl_sobel_hand },
#endif
#ifdef HL_HAVE_sobel_li2018
	{ "li2018", hl_sobel_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnLL> local_laplacian_v[] = {
#ifdef HL_HAVE_local_laplacian_hand
	{ "hand", hl_local_laplacian_hand },
#endif
#ifdef HL_HAVE_local_laplacian_li2018
	{ "li2018", hl_local_laplacian_li2018 },
#endif
	{ nullptr, nullptr }
};

const Variant<FnRC1> histogram_v[] = {
#ifdef HL_HAVE_histogram_hand
	{ "hand", hl_histogram_hand },
#endif
#ifdef HL_HAVE_histogram_li2018
	{ "li2018", hl_histogram_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnCamera> camera_pipe_v[] = {
#ifdef HL_HAVE_camera_pipe_hand
	{ "hand", hl_camera_pipe_hand },
#endif
#ifdef HL_HAVE_camera_pipe_li2018
	{ "li2018", hl_camera_pipe_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnBlend> pyramid_blend_v[] = {
#ifdef HL_HAVE_pyramid_blend_hand
	{ "hand", hl_pyramid_blend_hand },
#endif
#ifdef HL_HAVE_pyramid_blend_li2018
	{ "li2018", hl_pyramid_blend_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnRC1> bilateral_grid_v[] = {
#ifdef HL_HAVE_bilateral_grid_hand
	{ "hand", hl_bilateral_grid_hand },
#endif
#ifdef HL_HAVE_bilateral_grid_li2018
	{ "li2018", hl_bilateral_grid_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnInterp> interpolate_v[] = {
#ifdef HL_HAVE_interpolate_hand
	{ "hand", hl_interpolate_hand },
#endif
#ifdef HL_HAVE_interpolate_li2018
	{ "li2018", hl_interpolate_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnHeat> heat3d_v[] = {
#ifdef HL_HAVE_heat3d_hand
	{ "hand", hl_heat3d_hand },
#endif
#ifdef HL_HAVE_heat3d_li2018
	{ "li2018", hl_heat3d_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnArgmin> argmin_v[] = {
#ifdef HL_HAVE_argmin_hand
	{ "hand", hl_argmin_hand },
#endif
#ifdef HL_HAVE_argmin_li2018
	{ "li2018", hl_argmin_li2018 },
#endif
	{ nullptr, nullptr }
};
const Variant<FnIir> iir_blur_v[] = {
#ifdef HL_HAVE_iir_blur_hand
	{ "hand", hl_iir_blur_hand },
#endif
#ifdef HL_HAVE_iir_blur_li2018
	{ "li2018", hl_iir_blur_li2018 },
#endif
	{ nullptr, nullptr }
};

Slot harris_s[2], unsharp_mask_s[2], blur_s[2], sobel_s[2], local_laplacian_s[2], histogram_s[2], camera_pipe_s[2],
	pyramid_blend_s[2], bilateral_grid_s[2], interpolate_s[2], heat3d_s[2], argmin_s[2], iir_blur_s[2];

const int zero[PT_MAX_DIMS] = {};


// One buffer of a call: polytile's declaration (type, dimensions,
// extents in pipeline order) and where its coordinates start (NULL: 0).
struct Io {
	const pt_buffer *p;
	pt_type t;
	int n;
	std::initializer_list<int64_t> ext;
	const int *lo;
};

// A call of an app whose outputs are not crops: the views described and
// checked, the slot prepared, run() (given the slot) called, the outputs
// finished.
template<class Run>
int call(Slot &s, int mode, std::initializer_list<Io> ins, std::initializer_list<Io> outs, Run run)
{
	Want in[MAX_IN], out[MAX_OUT];
	int n = 0, nout = 0, r = 0;
	for (const Io &io : ins) {
		r = r ? r : describe(in[n].b, in[n].dim, io.p, io.t, io.n, io.ext.begin(), io.lo ? io.lo : zero);
		n++;
	}
	for (const Io &io : outs) {
		r = r ? r : describe(out[nout].b, out[nout].dim, io.p, io.t, io.n, io.ext.begin(), io.lo ? io.lo : zero);
		nout++;
	}
	r = r ? r : prepare(s, mode, in, n, out[0], out, nout, false);
	return r ? r : finish(s, mode, false, nout, run(s));
}

}  // namespace

extern "C" {

int hl_gpu_harris(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out)
{
	init();
	int v = find(harris_v, variant);
	if (v < 0)
		return v;
	Slot &s = harris_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	// The output is defined on rows and columns 2 .. R-1 / 2 .. C-1.
	const int64_t ext[] = { R + 2, C + 2 }, first[] = { 2, 2 }, last[] = { R - 1, C - 1 };
	Want in[1], whole, o;
	int r = describe(in[0].b, in[0].dim, I, PT_F32, 2, ext, zero);
	r = r ? r : describe(whole.b, whole.dim, out, PT_F32, 2, ext, zero);
	r = r ? r : describe(o.b, o.dim, out, PT_F32, 2, ext, zero, first, last);
	r = r ? r : prepare(s, mode, in, 1, whole, &o, 1, true);
	return r ? r : finish(s, mode, true, 1, harris_v[v].fn(&s.in[0].b, &s.out[0].b));
}

int hl_gpu_unsharp_mask(const char *variant, int mode, int32_t R, int32_t C, float threshold, float weight,
	const pt_buffer *img, pt_buffer *mask)
{
	init();
	int v = find(unsharp_mask_v, variant);
	if (v < 0)
		return v;
	Slot &s = unsharp_mask_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	// mask's point (c, x, y) is the buffer's (c, x-2, y-2).
	const int64_t iext[] = { 3, R + 4, C + 4 }, oext[] = { 3, R, C };
	const int olo[] = { 0, 2, 2 };
	Want in[1], o;
	int r = describe(in[0].b, in[0].dim, img, PT_F32, 3, iext, zero);
	r = r ? r : describe(o.b, o.dim, mask, PT_F32, 3, oext, olo);
	r = r ? r : prepare(s, mode, in, 1, o, &o, 1, false);
	return r ? r : finish(s, mode, false, 1, unsharp_mask_v[v].fn(threshold, weight, &s.in[0].b, &s.out[0].b));
}

int hl_gpu_blur(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *out)
{
	init();
	int v = find(blur_v, variant);
	if (v < 0)
		return v;
	Slot &s = blur_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	const int64_t iext[] = { R + 2, C + 2 }, oext[] = { R, C };
	Want in[1], o;
	int r = describe(in[0].b, in[0].dim, I, PT_U16, 2, iext, zero);
	r = r ? r : describe(o.b, o.dim, out, PT_U16, 2, oext, zero);
	r = r ? r : prepare(s, mode, in, 1, o, &o, 1, false);
	return r ? r : finish(s, mode, false, 1, blur_v[v].fn(&s.in[0].b, &s.out[0].b));
}

int hl_gpu_sobel(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *mag)
{
	init();
	int v = find(sobel_v, variant);
	if (v < 0)
		return v;
	Slot &s = sobel_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	// mag's point (x, y) is the buffer's (x-1, y-1).
	const int64_t iext[] = { R + 2, C + 2 }, oext[] = { R, C };
	const int olo[] = { 1, 1 };
	Want in[1], o;
	int r = describe(in[0].b, in[0].dim, I, PT_U8, 2, iext, zero);
	r = r ? r : describe(o.b, o.dim, mag, PT_F32, 2, oext, olo);
	r = r ? r : prepare(s, mode, in, 1, o, &o, 1, false);
	return r ? r : finish(s, mode, false, 1, sobel_v[v].fn(&s.in[0].b, &s.out[0].b));
}

int hl_gpu_local_laplacian(const char *variant, int mode, int32_t R, int32_t C, float alpha, float beta,
	const pt_buffer *I, pt_buffer *out)
{
	init();
	int v = find(local_laplacian_v, variant);
	if (v < 0)
		return v;
	Slot &s = local_laplacian_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	const int64_t iext[] = { 3, R + 4, C + 4 }, oext[] = { 3, R, C };
	Want in[1], o;
	int r = describe(in[0].b, in[0].dim, I, PT_U16, 3, iext, zero);
	r = r ? r : describe(o.b, o.dim, out, PT_U16, 3, oext, zero);
	r = r ? r : prepare(s, mode, in, 1, o, &o, 1, false);
	return r ? r : finish(s, mode, false, 1, local_laplacian_v[v].fn(R, C, alpha, beta, &s.in[0].b, &s.out[0].b));
}

int hl_gpu_histogram(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *hist)
{
	init();
	int v = find(histogram_v, variant);
	if (v < 0)
		return v;
	Slot &s = histogram_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	return call(s, mode, { { I, PT_U8, 2, { R, C }, nullptr } }, { { hist, PT_I32, 1, { 256 }, nullptr } },
		[&](Slot &t) { return histogram_v[v].fn(R, C, &t.in[0].b, &t.out[0].b); });
}

int hl_gpu_camera_pipe(const char *variant, int mode, int32_t R, int32_t C, float colour_temp, float gamma,
	float contrast, const pt_buffer *img, pt_buffer *process)
{
	init();
	int v = find(camera_pipe_v, variant);
	if (v < 0)
		return v;
	Slot &s = camera_pipe_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	// process' point (c, x, y) is the buffer's (c, x-12, y-16).
	static const int lo[] = { 0, 12, 16 };
	return call(s, mode, { { img, PT_U16, 2, { R + 48, C + 64 }, nullptr } },
		{ { process, PT_U8, 3, { 3, R, C }, lo } }, [&](Slot &t) {
			return camera_pipe_v[v].fn(colour_temp, gamma, contrast, &t.in[0].b, &t.out[0].b);
		});
}

int hl_gpu_pyramid_blend(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *img1,
	const pt_buffer *img2, const pt_buffer *mask, pt_buffer *out)
{
	init();
	int v = find(pyramid_blend_v, variant);
	if (v < 0)
		return v;
	Slot &s = pyramid_blend_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	return call(s, mode,
		{ { img1, PT_F32, 3, { 3, R + 4, C + 4 }, nullptr }, { img2, PT_F32, 3, { 3, R + 4, C + 4 }, nullptr },
			{ mask, PT_F32, 2, { R + 4, C + 4 }, nullptr } },
		{ { out, PT_F32, 3, { 3, R + 4, C + 4 }, nullptr } }, [&](Slot &t) {
			return pyramid_blend_v[v].fn(R, C, &t.in[0].b, &t.in[1].b, &t.in[2].b, &t.out[0].b);
		});
}

int hl_gpu_bilateral_grid(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *I, pt_buffer *filtered)
{
	init();
	int v = find(bilateral_grid_v, variant);
	if (v < 0)
		return v;
	Slot &s = bilateral_grid_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	// filtered's point (x, y) is the buffer's (x-24, y-24).
	static const int lo[] = { 24, 24 };
	return call(s, mode, { { I, PT_F32, 2, { R + 56, C + 56 }, nullptr } }, { { filtered, PT_F32, 2, { R, C }, lo } },
		[&](Slot &t) { return bilateral_grid_v[v].fn(R, C, &t.in[0].b, &t.out[0].b); });
}

int hl_gpu_interpolate(const char *variant, int mode, int32_t R, int32_t C, const pt_buffer *rgb,
	const pt_buffer *alpha, pt_buffer *out)
{
	init();
	int v = find(interpolate_v, variant);
	if (v < 0)
		return v;
	Slot &s = interpolate_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	return call(s, mode,
		{ { rgb, PT_F32, 3, { 3, R + 2, C + 2 }, nullptr }, { alpha, PT_F32, 2, { R + 2, C + 2 }, nullptr } },
		{ { out, PT_F32, 3, { 3, R, C }, nullptr } },
		[&](Slot &t) { return interpolate_v[v].fn(R, C, &t.in[0].b, &t.in[1].b, &t.out[0].b); });
}

int hl_gpu_heat3d(const char *variant, int mode, int32_t N, int32_t T, float k, const pt_buffer *U, pt_buffer *once,
	pt_buffer *last)
{
	init();
	int v = find(heat3d_v, variant);
	if (v < 0)
		return v;
	Slot &s = heat3d_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	// Halide has no loop over Funcs: the versions are built for T = 4.
	if (T != HL_GPU_HEAT3D_T)
		return fail(halide_error_code_constraint_violated, "heat3d: Halide's versions are built for T = 4 only");
	static const int lo[] = { 1, 1, 1 };
	const int64_t E = (int64_t)N + 2;
	return call(s, mode, { { U, PT_F32, 3, { E, E, E }, nullptr } },
		{ { once, PT_F32, 3, { N, N, N }, lo }, { last, PT_F32, 3, { E, E, E }, nullptr } },
		[&](Slot &t) { return heat3d_v[v].fn(N, k, &t.in[0].b, &t.out[0].b, &t.out[1].b); });
}

int hl_gpu_argmin(const char *variant, int mode, int32_t N, const pt_buffer *V, pt_buffer *am)
{
	init();
	int v = find(argmin_v, variant);
	if (v < 0)
		return v;
	Slot &s = argmin_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	return call(s, mode, { { V, PT_U8, 4, { N, N, N, N }, nullptr } },
		{ { &am[0], PT_U8, 1, { 1 }, nullptr }, { &am[1], PT_I32, 1, { 1 }, nullptr },
			{ &am[2], PT_I32, 1, { 1 }, nullptr }, { &am[3], PT_I32, 1, { 1 }, nullptr },
			{ &am[4], PT_I32, 1, { 1 }, nullptr } },
		[&](Slot &t) {
			return argmin_v[v].fn(N, &t.in[0].b, &t.out[0].b, &t.out[1].b, &t.out[2].b, &t.out[3].b, &t.out[4].b);
		});
}

int hl_gpu_iir_blur(const char *variant, int mode, int32_t R, int32_t C, float a, const pt_buffer *I, pt_buffer *out)
{
	init();
	int v = find(iir_blur_v, variant);
	if (v < 0)
		return v;
	Slot &s = iir_blur_s[v];
	if (mode == HL_RELEASE)
		return release_slot(s);
	return call(s, mode, { { I, PT_F32, 3, { 3, R, C }, nullptr } }, { { out, PT_F32, 3, { 3, R, C }, nullptr } },
		[&](Slot &t) { return iir_blur_v[v].fn(R, C, a, &t.in[0].b, &t.out[0].b); });
}

const char *const *hl_gpu_variants(const char *app)
{
	struct Entry {
		const char *app;
		const char *const *names;
	};
	static const Names harris_n(harris_v);
	static const Names unsharp_mask_n(unsharp_mask_v);
	static const Names blur_n(blur_v);
	static const Names sobel_n(sobel_v);
	static const Names local_laplacian_n(local_laplacian_v);
	static const Names histogram_n(histogram_v);
	static const Names camera_pipe_n(camera_pipe_v);
	static const Names pyramid_blend_n(pyramid_blend_v);
	static const Names bilateral_grid_n(bilateral_grid_v);
	static const Names interpolate_n(interpolate_v);
	static const Names heat3d_n(heat3d_v);
	static const Names argmin_n(argmin_v);
	static const Names iir_blur_n(iir_blur_v);
	static const Entry table[] = {
		{ "harris", harris_n.n },
		{ "unsharp_mask", unsharp_mask_n.n },
		{ "blur", blur_n.n },
		{ "sobel", sobel_n.n },
		{ "local_laplacian", local_laplacian_n.n },
		{ "histogram", histogram_n.n },
		{ "camera_pipe", camera_pipe_n.n },
		{ "pyramid_blend", pyramid_blend_n.n },
		{ "bilateral_grid", bilateral_grid_n.n },
		{ "interpolate", interpolate_n.n },
		{ "heat3d", heat3d_n.n },
		{ "argmin", argmin_n.n },
		{ "iir_blur", iir_blur_n.n },
	};
	static const char *const none[] = { nullptr };
	for (const Entry &e : table)
		if (app && !std::strcmp(app, e.app))
			return e.names;
	return none;
}

const char *hl_gpu_last_error(void)
{
	return last_error;
}

}  // extern "C"
