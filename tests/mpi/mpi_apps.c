/* mpi_apps.c: every app compiled for MPI equals the interpreter, run
 * under `mpirun -np N` (tests/mpi/run.sh runs it for N = 1 .. 4).
 *
 * Every rank runs the same cases in the same order: each app at the two
 * test sizes of apps_table.h and at tiny sizes where ranks own one row
 * or none, under each configuration below.  Inputs are generated alike on
 * every rank; rank 0, where the outputs are whole, compares them with
 * the interpreter's at every point it defines, exactly (the ranks run
 * the CPU target's code on their parts: the same operations in the
 * same order).  Configurations: -O1 auto, -O0 communicating, -O1
 * recomputing and -O1 replicated (these two at the tiny sizes only);
 * "quick": the first only.  Cases under auto, the stepped and the random
 * pipelines also run through the local-part ABI (local_parts).  Rank 0 compiles first and the others then take the
 * object from the compile cache ($PT_CACHE_DIR).  With --random, the
 * random pipelines of tests/fuzz/gen_pipe.h instead of the apps, under
 * each configuration.  Exit status 0 when
 * every case matched on rank 0 and every rank ran every case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps_table.h"
#include "gen_pipe.h"
#include "ir.h"
#include "polytile.h"
#include "pt_runtime.h"

#define MAX_IO 16

static void fill(pt_buffer *b, uint32_t seed)
{
	int64_t n = pt_buffer_count(b);
	uint32_t s = seed * 2654435761u + 12345u;
	for (int64_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		uint32_t r = s >> 8;
		double v = pt_type_is_float((int)b->type) ? (double)r / 16777216.0 : b->type == PT_U8 ? r & 255 :
			b->type == PT_I8 ? (double)(int)(r & 255) - 128 : r & 1023;
		int64_t idx[PT_MAX_DIMS], k = i;
		for (int d = b->ndim - 1; d >= 0; d--) {
			idx[d] = k % b->extent[d];
			k /= b->extent[d];
		}
		pt_buffer_set(b, idx, v);
	}
}

/* Points where out differs from the interpreter's output name. */
static int64_t differ(pt_interp *in, const char *name, const pt_buffer *out)
{
	const uint8_t *def;
	int64_t origin[PT_MAX_DIMS];
	const pt_buffer *ref = pt_interp_result(in, name, &def, origin);
	int64_t n = pt_buffer_count(ref), bad = 0;
	for (int64_t k = 0; k < n; k++) {
		if (!def[k])
			continue;
		int64_t idx[PT_MAX_DIMS], j = k;
		for (int d = ref->ndim - 1; d >= 0; d--) {
			idx[d] = j % ref->extent[d];
			j /= ref->extent[d];
		}
		double a = pt_buffer_get(out, idx), b = pt_buffer_get(ref, idx);
		bad += !(a == b || (isnan(a) && isnan(b)));
	}
	return bad;
}

/* Points of box olo .. ohi (global coordinates) where part (element 0
 * at lo) differs from whole (element 0 at wlo), those whole does not
 * define (def, NULL: all defined) left out. */
static int64_t part_differs(const pt_buffer *part, const int64_t *lo, const int64_t *olo, const int64_t *ohi,
	const pt_buffer *whole, const int64_t *wlo, const uint8_t *def)
{
	int nd = part->ndim;
	int64_t n = 1, bad = 0;
	for (int d = 0; d < nd; d++)
		n *= olo[0] > ohi[0] ? 0 : ohi[d] - olo[d] + 1;
	for (int64_t k = 0; k < n; k++) {
		int64_t x[PT_MAX_DIMS], ip[PT_MAX_DIMS], iw[PT_MAX_DIMS], j = k, flat = 0;
		for (int d = nd - 1; d >= 0; d--) {
			x[d] = olo[d] + j % (ohi[d] - olo[d] + 1);
			j /= ohi[d] - olo[d] + 1;
		}
		for (int d = 0; d < nd; d++) {
			ip[d] = x[d] - lo[d];
			iw[d] = x[d] - wlo[d];
			flat = flat * whole->extent[d] + iw[d];
		}
		if (def && !def[flat])
			continue;
		double a = pt_buffer_get(part, ip), b = pt_buffer_get(whole, iw);
		bad += !(a == b || (isnan(a) && isnan(b)));
	}
	return bad;
}

/* Whether the ranks' own parts of output i (pt_program_part with
 * PT_PART_OWN, every rank's asked on this one) tile the points the
 * interpreter defines (def): each in exactly one, or each in every one
 * (a replicated output), and no other point in two. */
static bool own_parts_tile(pt_program *prog, const pt_pipeline *p, const int64_t *ip, const double *fp, int i,
	const uint8_t *def)
{
	int64_t wlo[PT_MAX_DIMS], wext[PT_MAX_DIMS], n = 1;
	int nd = pt_pipeline_output_box(p, i, ip, wlo, wext), R = pt_mpi_size();
	for (int d = 0; d < nd; d++)
		n *= wext[d];
	int *cover = calloc((size_t)n + 1, sizeof(int));
	bool ok = cover != NULL;
	for (int q = 0; q < R && ok; q++) {
		int64_t lo[PT_MAX_DIMS], hi[PT_MAX_DIMS], m = 1;
		ok = pt_program_part(prog, ip, fp, q, R, p->nimages + i + PT_PART_OWN, lo, hi) == nd;
		for (int d = 0; d < nd && ok; d++) {
			ok = lo[0] > hi[0] || (lo[d] >= wlo[d] && hi[d] < wlo[d] + wext[d]);
			m *= lo[0] > hi[0] ? 0 : hi[d] - lo[d] + 1;
		}
		for (int64_t k = 0; k < m && ok; k++) {
			int64_t j = k, flat = 0, x[PT_MAX_DIMS];
			for (int d = nd - 1; d >= 0; d--) {
				x[d] = lo[d] + j % (hi[d] - lo[d] + 1);
				j /= hi[d] - lo[d] + 1;
			}
			for (int d = 0; d < nd; d++)
				flat = flat * wext[d] + x[d] - wlo[d];
			cover[flat]++;
		}
	}
	int each = -1;   /* how many parts hold a defined point */
	for (int64_t k = 0; k < n && ok && each < 0; k++)
		if (def[k])
			each = cover[k];
	/* no point defined (a tiny harris): nothing to tile */
	for (int64_t k = 0; k < n && ok && each >= 0; k++)
		ok = def[k] ? cover[k] == each : cover[k] <= 1 || cover[k] == each;
	ok = ok && (each < 0 || each == 1 || each == R);
	free(cover);
	return ok;
}

/* The local-part ABI on every rank: the part of each input that
 * pt_program_part names, copied from the whole input; the outputs'
 * parts compared with what the whole run left in this rank's buffers
 * (rank 0: the gathered outputs, which equal the interpreter's; the
 * others: their own parts, with any ghost zones they received), and on
 * rank 0 with the interpreter too.  The number of outputs that differ on
 * this rank, -1 when it could not run. */
static int local_parts(pt_program *prog, pt_interp *in, const pt_pipeline *p, const int64_t *ip, const double *fp,
	const pt_buffer *inputs, const pt_buffer *outs, int nout, const char *label)
{
	pt_buffer lin[MAX_IO] = {{0}}, lout[MAX_IO] = {{0}};
	const pt_buffer *linp[MAX_IO];
	pt_buffer *loutp[MAX_IO];
	int64_t lo[2 * MAX_IO][PT_MAX_DIMS], hi[PT_MAX_DIMS];
	int bad = 0, R = pt_mpi_size(), r = pt_mpi_rank();
	for (int a = 0; a < p->nimages + nout && bad >= 0; a++) {
		bool out = a >= p->nimages;
		const pt_buffer *whole = out ? &outs[a - p->nimages] : &inputs[a];
		int nd = pt_program_part(prog, ip, fp, r, R, a, lo[a], hi);
		int64_t ext[PT_MAX_DIMS];
		for (int d = 0; d < nd; d++)
			ext[d] = lo[a][0] > hi[0] ? 0 : hi[d] - lo[a][d] + 1;
		pt_buffer *b = out ? &lout[a - p->nimages] : &lin[a];
		if (nd != whole->ndim || pt_buffer_alloc(b, whole->type, nd, ext) != PT_OK) {
			fprintf(stderr, "%s: rank %d: no part of array %d (%d)\n", label, r, a, nd);
			bad = -1;
			break;
		}
		if (!out) {
			int64_t n = pt_buffer_count(b);
			for (int64_t k = 0; k < n; k++) {
				int64_t idx[PT_MAX_DIMS], at[PT_MAX_DIMS], j = k;
				for (int d = nd - 1; d >= 0; d--) {
					idx[d] = j % ext[d];
					j /= ext[d];
				}
				for (int d = 0; d < nd; d++)
					at[d] = idx[d] + lo[a][d];
				pt_buffer_set(b, idx, pt_buffer_get(whole, at));
			}
			linp[a] = b;
		} else {
			loutp[a - p->nimages] = b;
		}
	}
	int who;   /* every rank runs, or none */
	int rc = pt_mpi_agree(bad < 0 ? PT_ERR_PARAM : 0, &who) ? PT_ERR_PARAM :
		pt_program_run_local(prog, ip, fp, linp, loutp);
	if (bad >= 0 && rc) {
		fprintf(stderr, "%s: rank %d: local-part run failed: %s: %s\n", label, r, pt_error_name(rc),
			pt_rt_error_detail());
		bad = -1;
	}
	for (int i = 0; bad >= 0 && i < nout; i++) {
		int64_t wlo[PT_MAX_DIMS], wext[PT_MAX_DIMS], olo[PT_MAX_DIMS], ohi[PT_MAX_DIMS], n = 0;
		pt_pipeline_output_box(p, i, ip, wlo, wext);
		const int64_t *plo = lo[p->nimages + i];
		/* the points this rank computes: inside its buffer's box */
		if (pt_program_part(prog, ip, fp, r, R, (p->nimages + i) + PT_PART_OWN, olo, ohi) != lout[i].ndim)
			n = 1;
		for (int d = 0; d < lout[i].ndim && !n && olo[0] <= ohi[0]; d++)
			n = olo[d] < plo[d] || ohi[d] > plo[d] + lout[i].extent[d] - 1;
		if (!n)
			n = part_differs(&lout[i], plo, olo, ohi, &outs[i], wlo, NULL);
		const uint8_t *def = NULL;
		if (in && !n) {   /* rank 0: and the interpreter's, where it defines points */
			int64_t origin[PT_MAX_DIMS];
			const pt_buffer *ref = pt_interp_result(in, pt_pipeline_output_name(p, i), &def, origin);
			n = part_differs(&lout[i], plo, olo, ohi, ref, origin, def);
		}
		if (n)
			fprintf(stderr, "%s: rank %d: local part of output %s differs at %lld points\n", label, r,
				pt_pipeline_output_name(p, i), (long long)n);
		if (!n && def && !own_parts_tile(prog, p, ip, fp, i, def)) {
			fprintf(stderr, "%s: the ranks' own parts of output %s do not tile it\n", label,
				pt_pipeline_output_name(p, i));
			n = 1;
		}
		bad += n > 0;
	}
	for (int i = 0; i < MAX_IO; i++) {
		pt_buffer_free(&lin[i]);
		pt_buffer_free(&lout[i]);
	}
	return bad;
}

typedef struct one_case {
	const char *app;            /* apps/APP.pipe, or NULL: text */
	const char *text;
	int nparams;
	const char *const *names;
	double size[3];
	pt_options opt;
	bool local;                 /* also through the local-part ABI */
	char label[200];
} one_case;

/* Runs c on every rank; on rank 0, the number of outputs that differ
 * (-1: the case could not run). */
static int run_case(const char *dir, const one_case *c)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s.pipe", dir, c->app ? c->app : "");
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = c->app ? pt_parse_file(ctx, path) : pt_parse_string(ctx, "random", c->text);
	pt_interp *in = p ? pt_interp_new(ctx, p) : NULL;
	int bad = -1;
	pt_buffer inputs[MAX_IO] = {{0}}, outs[MAX_IO] = {{0}};
	const pt_buffer *inp[MAX_IO];
	pt_buffer *outp[MAX_IO];
	int64_t ip[64] = {0};
	double fp[64] = {0};
	bool ok = in != NULL;
	for (int q = 0; ok && q < c->nparams; q++)
		ok = !pt_interp_set_param(in, c->names[q], c->size[q]);
	ok = ok && !pt_interp_infer_params(in);
	for (int i = 0; ok && i < p->nimages; i++) {
		int64_t ext[PT_MAX_DIMS];
		ok = !pt_interp_image_extents(in, p->images[i]->name, ext) &&
			pt_buffer_alloc(&inputs[i], (pt_type)p->images[i]->type, p->images[i]->ndim, ext) == PT_OK;
		if (ok) {
			fill(&inputs[i], 7u + (uint32_t)i);
			inp[i] = &inputs[i];
			ok = !pt_interp_set_input(in, p->images[i]->name, &inputs[i]);
		}
	}
	for (int q = 0; ok && q < p->nparams; q++) {
		pt_interp_get_param(in, p->params[q].name, &fp[q]);
		ip[q] = (int64_t)fp[q];
	}
	int nout = ok ? pt_pipeline_output_count(p) : 0;
	for (int i = 0; ok && i < nout; i++) {
		int64_t lo[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		const pt_stage *s = pt_pipeline_find_stage(p, pt_pipeline_output_name(p, i));
		pt_pipeline_output_box(p, i, ip, lo, ext);
		ok = pt_buffer_alloc(&outs[i], (pt_type)s->type, s->ndim, ext) == PT_OK;
		outp[i] = &outs[i];
	}
	/* rank 0 compiles first; the others find its object in the cache */
	int rank, who;
	pt_program *prog = NULL;
	for (int turn = 0; turn < 2; turn++) {
		if ((pt_mpi_rank() == 0) == (turn == 0) && ok)
			prog = pt_compile(ctx, p, &c->opt);
		pt_mpi_agree(0, &rank);
	}
	if (pt_mpi_agree(ok && prog ? 0 : PT_ERR_PARAM, &who)) {
		if (pt_mpi_rank() == 0)
			fprintf(stderr, "%s: rank %d could not set up or compile: %s\n", c->label, who, pt_ctx_diagnostics(ctx));
	} else {
		int rc = pt_program_run(prog, ip, fp, inp, outp);
		if (rc) {
			if (pt_mpi_rank() == 0)
				fprintf(stderr, "%s: run failed: %s: %s\n", c->label, pt_error_name(rc), pt_rt_error_detail());
		} else if (pt_mpi_rank() == 0) {
			bad = pt_interp_run(in) ? -1 : 0;
			for (int i = 0; bad >= 0 && i < nout; i++) {
				int64_t n = differ(in, pt_pipeline_output_name(p, i), &outs[i]);
				if (n)
					fprintf(stderr, "%s: output %s differs at %lld points\n", c->label, pt_pipeline_output_name(p, i),
						(long long)n);
				bad += n > 0;
			}
		} else {
			bad = 0;
		}
		/* every rank's local part (the interpreter has run on rank 0) */
		int local = !rc && c->local ? local_parts(prog, pt_mpi_rank() == 0 && bad == 0 ? in : NULL, p, ip, fp, inputs, outs, nout,
			c->label) : 0;
		if (pt_mpi_agree(local ? PT_ERR_PARAM : 0, &who) && bad == 0)
			bad = 1;
	}
	pt_program_free(prog);
	for (int i = 0; i < MAX_IO; i++) {
		pt_buffer_free(&inputs[i]);
		pt_buffer_free(&outs[i]);
	}
	pt_interp_free(in);
	pt_ctx_free(ctx);
	return bad;
}

/* Tiny sizes: fewer rows than ranks, one row each. */
static const app_case tiny[] = {
	{ "blur", { "R", "C" }, { { 1, 5 }, { 3, 2 } } },
	{ "sobel", { "R", "C" }, { { 2, 3 }, { 5, 1 } } },
	{ "harris", { "R", "C" }, { { 1, 7 }, { 4, 4 } } },
	{ "histogram", { "R", "C" }, { { 1, 3 }, { 3, 1 } } },
	{ "unsharp_mask", { "R", "C" }, { { 1, 9 }, { 4, 3 } } },
	{ "heat3d", { "N", "T" }, { { 2, 1 }, { 3, 5 } } },
};

/* Time-iterated stages split between their steps (poly/dist_steps.c):
 * the stage itself an output (every step gathered, not folded), a
 * recurrence within a step along the coordinate it keeps, and one
 * reading two steps back (not stepped: replicated). */
static const char *const stepped_text[] = {
	"pipeline steps2d\nparam N : int = 40\nparam T : int = 3\nimage U : float [N, N]\n"
	"var t : 0 .. T\nvar x : 0 .. N-1\nvar y : 0 .. N-1\n"
	"func h(t, x, y) : float\n  | t == 0 || x == 0 || x == N-1 || y == 0 || y == N-1 -> U(x, y)\n"
	"  | else -> 0.25 * (h(t-1, x-1, y) + h(t-1, x+1, y) + h(t-1, x, y-1) + h(t-1, x, y+1))\noutput h\n",
	"pipeline steps_scan\nparam N : int = 40\nparam T : int = 3\nimage U : float [N, N]\n"
	"var t : 0 .. T\nvar x : 0 .. N-1\nvar y : 0 .. N-1\n"
	"func h(t, x, y) : float\n  | t == 0 || x == 0 || x == N-1 || y == 0 -> U(x, y)\n"
	"  | else -> 0.5 * h(t, x, y-1) + 0.25 * (h(t-1, x-1, y) + h(t-1, x+1, y))\n"
	"func g(x, y) : float = h(T, x, y) * 2\noutput g\n",
	"pipeline steps_two\nparam N : int = 40\nparam T : int = 3\nimage U : float [N, N]\n"
	"var t : 0 .. T\nvar x : 0 .. N-1\nvar y : 0 .. N-1\n"
	"func h(t, x, y) : float\n  | t <= 1 || x == 0 || x == N-1 -> U(x, y)\n"
	"  | else -> 0.5 * h(t-1, x, y) + 0.25 * (h(t-2, x-1, y) + h(t-2, x+1, y))\noutput h\n",
};
static const char *const stepped_names[] = { "N", "T" };

static bool on_grid(void)
{
	const char *g = getenv("MPI_TEST_GRID");
	return g && *g;
}

/* The configurations (quick: the first): -O1 auto, -O0 communicate,
 * -O1 recompute, -O1 communicate, -O1 replicate. */
#define NCONFIGS 5
static bool random_run;   /* --random */
static pt_options config(int o)
{
	static const pt_mpi_strategy strategy[NCONFIGS] = { PT_MPI_AUTO, PT_MPI_COMMUNICATE, PT_MPI_RECOMPUTE,
		PT_MPI_COMMUNICATE, PT_MPI_REPLICATE };
	pt_options opt = { .backend = PT_BACKEND_MPI, .cache = true };
	opt.opt_level = o == 1 ? PT_OPT_NAIVE : PT_OPT_GROUPED;
	opt.mpi_strategy = strategy[o];
	/* the auto strategy's plan: the apps' for 4 ranks (what `polytile
	 * compile` plans for without --ranks) on every count, so that one
	 * compile serves them all (from the compile cache after the first);
	 * the random pipelines' for the ranks they run on */
	opt.mpi_ranks = random_run ? pt_mpi_size() : 4;
	/* MPI_TEST_GRID set: kernels split along two coordinates where they
	 * can, on a grid of ranks (4: 2 x 2, 6: 3 x 2) */
	opt.mpi_grid = on_grid() ? PT_MPI_GRID : PT_MPI_GRID_AUTO;
	return opt;
}

static const char *const config_name[NCONFIGS] = { "-O1 auto", "-O0 communicate", "-O1 recompute",
	"-O1 communicate", "-O1 replicate" };

/* The apps at their sizes; *cases and *failed counted. */
static void apps_cases(const char *dir, bool quick, int *cases, int *failed)
{
	for (int set = 0; set < 2; set++) {
		const app_case *tab = set ? tiny : apps;
		int n = set ? (int)(sizeof(tiny) / sizeof(tiny[0])) : NAPPS;
		for (int a = 0; a < n; a++) {
			for (int sz = 0; sz < 2; sz++)
				for (int o = 0; o < (quick ? 1 : NCONFIGS); o++) {
					/* on a grid: -O1 communicate (exchanges on the grid whatever
					 * the model's choice; auto's grid plans by mpi_bytes) */
					if (on_grid() && o != 3)
						continue;
					if (o == 3 && !on_grid())
						continue;   /* -O1 communicate: by the random pipelines and mpi_bytes */
					if (o == 4 && !set)
						continue;   /* -O1 replicate at the test sizes: the CPU's code whole on
						             * each rank; kept at the tiny sizes (suite time) */
					if (o == 2 && !set)
						continue;   /* -O1 recompute at the test sizes: by mpi_random and
						             * mpi_bytes; kept at the tiny sizes (suite time) */
					/* the local-part ABI under auto (suite time) */
					one_case c = { .app = tab[a].app, .nparams = 2, .names = tab[a].names,
						.size = { tab[a].size[sz][0], tab[a].size[sz][1] }, .opt = config(o),
						.local = o == 0 || on_grid() };
					snprintf(c.label, sizeof(c.label), "%s %g x %g %s on %d ranks%s", c.app, c.size[0], c.size[1],
						config_name[o], pt_mpi_size(), on_grid() ? " (a grid)" : "");
					(*cases)++;
					*failed += run_case(dir, &c) != 0;
				}
		}
	}
}

/* The stepped pipelines communicating, at a size where ranks own one
 * row or none and at an odd one; the first by the model too. */
static void stepped_cases(int *cases, int *failed)
{
	static const double size[][2] = { { 3, 1 }, { 29, 3 } };
	for (size_t i = 0; i < sizeof(stepped_text) / sizeof(stepped_text[0]); i++)
		for (size_t sz = 0; sz < sizeof(size) / sizeof(size[0]); sz++)
			for (int o = 3; o >= 0; o -= 3) {
				if (o == 0 && (i > 0 || sz == 0))
					continue;
				one_case c = { .text = stepped_text[i], .nparams = 2, .names = stepped_names,
					.size = { size[sz][0], size[sz][1] }, .opt = config(o), .local = true };
				snprintf(c.label, sizeof(c.label), "stepped pipeline %zu at N = %g, T = %g, %s on %d ranks%s", i,
					c.size[0], c.size[1], config_name[o], pt_mpi_size(), on_grid() ? " (a grid)" : "");
				(*cases)++;
				*failed += run_case(NULL, &c) != 0;
			}
	/* deep ghost zones (--mpi-steps): exchanged every 2 or 3 steps, or
	 * never (each rank recomputing from the first step), at sizes where
	 * a block's ghost zone spans several ranks' parts and where the
	 * steps make several blocks and a short first one */
	static const double deep_size[][2] = { { 3, 2 }, { 13, 7 } };
	static const int depth[] = { 2, 3, -1 };
	for (size_t i = 0; i < 2; i++)
		for (size_t sz = 0; sz < 2; sz++)
			for (size_t j = 0; j < sizeof(depth) / sizeof(depth[0]); j++) {
				one_case c = { .text = stepped_text[i], .nparams = 2, .names = stepped_names,
					.size = { deep_size[sz][0], deep_size[sz][1] }, .opt = config(3), .local = sz == 1 };
				c.opt.mpi_steps = depth[j];
				snprintf(c.label, sizeof(c.label), "stepped pipeline %zu at N = %g, T = %g, --mpi-steps %d on %d ranks%s",
					i, c.size[0], c.size[1], depth[j], pt_mpi_size(), on_grid() ? " (a grid)" : "");
				(*cases)++;
				*failed += run_case(NULL, &c) != 0;
			}
}

/* Random pipelines (tests/fuzz/gen_pipe.h) of seeds first .. first +
 * count - 1, at their smallest admissible sizes and odd ones near the
 * estimates. */
static void random_cases(long first, long count, int *cases, int *failed)
{
	for (long seed = first; seed < first + count; seed++) {
		gen_pipe g;
		gen_pipe_make((uint64_t)seed, &g);
		for (int sz = 0; sz < 2; sz++)
			for (int o = 0; o < NCONFIGS - 1; o++) {   /* replicating: by the apps */
				one_case c = { .text = g.text, .nparams = g.ndims, .names = g.param, .opt = config(o), .local = true };
				for (int d = 0; d < g.ndims; d++) {
					int x = sz == 0 ? g.min[d] : (g.estimate[d] | 1);
					c.size[d] = x < g.min[d] ? g.min[d] : x;
				}
				snprintf(c.label, sizeof(c.label), "random pipeline of seed %ld (RANDPIPE_KEEP with randpipe --first %ld "
					"--count 1 writes it), size %d, %s on %d ranks%s", seed, seed, sz, config_name[o], pt_mpi_size(),
					on_grid() ? " (a grid)" : "");
				(*cases)++;
				*failed += run_case(NULL, &c) != 0;
			}
		gen_pipe_free(&g);
	}
}

int main(int argc, char **argv)
{
	bool random = argc > 3 && !strcmp(argv[1], "--random");
	if (argc < 2 || (argc > 1 && !strcmp(argv[1], "--random") && !random)) {
		fprintf(stderr, "usage: mpirun -np N mpi_apps APPS_DIR [quick|full]\n"
			"       mpirun -np N mpi_apps --random FIRST COUNT [quick|full]\n");
		return 2;
	}
	if (pt_mpi_init())
		return 1;
	int failed = 0, cases = 0;
	random_run = random;
	if (random)
		random_cases(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10), &cases, &failed);
	else {
		apps_cases(argv[1], argc > 2 && !strcmp(argv[2], "quick"), &cases, &failed);
		stepped_cases(&cases, &failed);
	}
	int rank;
	int code = pt_mpi_agree(failed ? PT_ERR_PARAM : 0, &rank);
	if (pt_mpi_rank() == 0)
		printf("%d cases on %d ranks: %d failed\n", cases, pt_mpi_size(), failed);
	pt_mpi_finalize();
	return code ? 1 : 0;
}
