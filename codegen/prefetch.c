/* prefetch.c: a tile asks for the image lines its successor will read.
 * A tile's first loop nests read the group's images in short rows (a
 * 64 x 256 tile of camera_pipe's hot-pixel stage reads 74 rows of 540
 * bytes), too many short streams for the hardware prefetcher: that loop
 * ran 2.5x slower than the same stage's naive loop over whole rows, its
 * samples on the first use of each load (perf).  So at the start of each
 * tile, the lines of every image that the next tile along the innermost
 * tile dim (the one a thread walks) will read are prefetched to L2: the
 * reads of the group's stages whose every index is a stage variable plus
 * a constant, or a constant, over the stage's widened tile.  Reads at
 * other indices are left to the hardware, and so is a footprint over
 * PREFETCH_LINES lines.  A prefetch never faults and changes no value. */
#include <stdlib.h>

#include "cg.h"

#define MAX_READS 16
/* at most this many lines a tile (256 KiB: a fraction of an L2) */
#define PREFETCH_LINES 4096
#define LINE 64

typedef struct img_read {
	const pt_image *im;
	int si;                         /* the reading stage's index in the group */
	int var[PT_MAX_DIMS];           /* per image dim: the stage dim read, -1: a constant */
	int64_t lo[PT_MAX_DIMS], hi[PT_MAX_DIMS];   /* offsets from it (or the constants) */
} img_read;

typedef struct reads {
	const pt_pipeline *p;
	const pt_stage *s;
	int si;
	img_read r[MAX_READS];
	int n;
	bool full;                      /* a read that did not fit: prefetch nothing */
} reads;

/* Image dim index e as stage dim + constant (*var >= 0) or a constant
 * (*var = -1); false for anything else. */
static bool translated(const reads *rs, const pt_expr *e, int *var, int64_t *off)
{
	pt_affine a = {0};
	int nv = rs->s->ndim + rs->s->nrdim;
	bool ok = pt_expr_affine(e, rs->p->nparams, nv, &a) && a.div == 1;
	for (int i = 0; ok && i < a.nparams; i++)
		ok = a.pcoef[i] == 0;
	*var = -1;
	for (int j = 0; ok && j < nv; j++) {
		if (!a.vcoef[j])
			continue;
		ok = a.vcoef[j] == 1 && j < rs->s->ndim && *var < 0;
		*var = j;
	}
	*off = a.cst;
	pt_affine_clear(&a);
	return ok;
}

static void note_read(const pt_expr *e, void *user)
{
	reads *rs = user;
	if (e->kind != PT_E_CALL || !e->image || e->nargs < 1 || rs->full)
		return;
	img_read r = { .im = e->image, .si = rs->si };
	for (int k = 0; k < e->nargs; k++) {
		int64_t off;
		if (!translated(rs, e->args[k], &r.var[k], &off))
			return;
		r.lo[k] = r.hi[k] = off;
	}
	for (int i = 0; i < rs->n; i++) {
		img_read *q = &rs->r[i];
		bool same = q->im == r.im && q->si == r.si;
		for (int k = 0; same && k < e->nargs; k++)
			same = q->var[k] == r.var[k];
		if (!same)
			continue;
		for (int k = 0; k < e->nargs; k++) {
			q->lo[k] = r.lo[k] < q->lo[k] ? r.lo[k] : q->lo[k];
			q->hi[k] = r.hi[k] > q->hi[k] ? r.hi[k] : q->hi[k];
		}
		return;
	}
	if (rs->n == MAX_READS)
		rs->full = true;
	else
		rs->r[rs->n++] = r;
}

/* Points of stage dim d in one widened tile, or -1 when the dim is not
 * tiled and its domain is not a constant interval. */
static int64_t dim_points(const pt_group *g, int si, int d)
{
	int64_t n = pt_group_scratch_extent(g, si, d);
	if (n >= 0)
		return n;
	const pt_stage *s = g->stages[si];
	pt_affine lo = {0}, hi = {0};
	int64_t r = -1;
	if (pt_expr_is_param_only(s->dom[d].lo) && pt_expr_is_param_only(s->dom[d].hi) &&
		pt_expr_affine(s->dom[d].lo, 0, 0, &lo) && pt_expr_affine(s->dom[d].hi, 0, 0, &hi) &&
		lo.div == 1 && hi.div == 1)
		r = hi.cst - lo.cst + 1;
	pt_affine_clear(&lo);
	pt_affine_clear(&hi);
	return r;
}

/* Lines read r over one tile, bounded above; -1 if not bounded by constants. */
static int64_t lines_of(const pt_group *g, const img_read *r)
{
	int n = r->im->ndim;
	int64_t lines = 1;
	for (int k = 0; k < n; k++) {
		int64_t pts = r->hi[k] - r->lo[k] + 1;
		if (r->var[k] >= 0) {
			int64_t m = dim_points(g, r->si, r->var[k]);
			if (m < 0)
				return -1;
			pts += m - 1;
		}
		if (k == n - 1)
			pts = pts * (int64_t)pt_type_size((pt_type)r->im->type) / LINE + 2;
		lines *= pts;
		if (lines > PREFETCH_LINES)
			return lines;
	}
	return lines;
}

/* The first and last point of stage dim d that the next tile computes
 * (tile coordinates cg->tile, the last one plus one). */
static void next_tile_range(pt_cg *cg, const pt_group *g, int si, int d, LLVMValueRef *lo, LLVMValueRef *hi)
{
	const pt_stage *s = g->stages[si];
	int k = pt_group_tile_of_dim(g, si, d);
	if (k < 0) {
		*lo = cg_param_expr(cg, s->dom[d].lo);
		*hi = cg_param_expr(cg, s->dom[d].hi);
		return;
	}
	int gd = g->tdim[k];
	int64_t sc = g->scale[si][d];
	LLVMValueRef t = cg->tile[k];
	if (k == g->ntile - 1)
		t = LLVMBuildAdd(cg->b, t, cg_i64(cg, 1), "");
	LLVMValueRef base = LLVMBuildAdd(cg->b, LLVMBuildMul(cg->b, t, cg_i64(cg, g->tsize[k]), ""),
		cg_i64(cg, g->torig[k]), "");
	/* group coordinates to the stage's, rounded outwards (a prefetch
	 * range may be a point too wide) */
	LLVMValueRef glo = LLVMBuildSub(cg->b, base, cg_i64(cg, g->ext[si][gd][0] + sc), "");
	LLVMValueRef ghi = LLVMBuildAdd(cg->b, base, cg_i64(cg, g->tsize[k] - 1 + g->ext[si][gd][1] + sc), "");
	*lo = LLVMBuildSDiv(cg->b, glo, cg_i64(cg, sc), "");
	*hi = LLVMBuildSDiv(cg->b, ghi, cg_i64(cg, sc), "");
}

/* The box of image lines r reads over the next tile, inside the image. */
static void read_box(pt_cg *cg, const pt_group *g, const img_read *r, LLVMValueRef *lo, LLVMValueRef *hi)
{
	for (int k = 0; k < r->im->ndim; k++) {
		LLVMValueRef a = cg_i64(cg, 0), b = cg_i64(cg, 0);
		if (r->var[k] >= 0)
			next_tile_range(cg, g, r->si, r->var[k], &a, &b);
		a = LLVMBuildAdd(cg->b, a, cg_i64(cg, r->lo[k]), "");
		b = LLVMBuildAdd(cg->b, b, cg_i64(cg, r->hi[k]), "");
		/* inside the image: the addresses stay in its buffer */
		LLVMValueRef last = LLVMBuildSub(cg->b, cg_param_expr(cg, r->im->extent[k]), cg_i64(cg, 1), "");
		/* lo inside the image even when the range is empty (then no
		 * loop runs, but the innermost one's first address is formed) */
		lo[k] = cg_minmax(cg, PT_I64, cg_minmax(cg, PT_I64, a, cg_i64(cg, 0), false), last, true);
		hi[k] = cg_minmax(cg, PT_I64, b, last, true);
	}
}

/* Whether reads a and b of one image cover boxes that differ by constants
 * in every dim (a constant index in both, or stage dims tiled by the same
 * tile dim at the same scale, or untiled dims of one constant extent), so
 * that the box around both exceeds the two by at most the constant gap
 * between them. */
static bool same_shape(const pt_group *g, const img_read *a, const img_read *b)
{
	if (a->im != b->im)
		return false;
	for (int k = 0; k < a->im->ndim; k++) {
		if ((a->var[k] < 0) != (b->var[k] < 0))
			return false;
		if (a->var[k] < 0)
			continue;
		int ta = pt_group_tile_of_dim(g, a->si, a->var[k]);
		int tb = pt_group_tile_of_dim(g, b->si, b->var[k]);
		if (ta != tb)
			return false;
		if (ta >= 0 && g->scale[a->si][a->var[k]] != g->scale[b->si][b->var[k]])
			return false;
		if (ta < 0 && (dim_points(g, a->si, a->var[k]) < 0 ||
			dim_points(g, a->si, a->var[k]) != dim_points(g, b->si, b->var[k])))
			return false;
	}
	return true;
}

/* What the loops of one read's prefetch share. */
typedef struct rows {
	const pt_image *im;
	LLVMValueRef *lo, *hi, *idx;
	int k;                          /* the dim the loop being built walks */
	LLVMValueRef first;             /* the innermost loop: its row's first byte */
} rows;

static void prefetch_line(pt_cg *cg, LLVMValueRef line, void *data)
{
	rows *r = data;
	LLVMValueRef off = LLVMBuildMul(cg->b, line, cg_i64(cg, LINE), "");
	LLVMValueRef args[] = { LLVMBuildGEP2(cg->b, cg->i8, r->first, &off, 1, ""),
		LLVMConstInt(cg->i32, 0, 0), LLVMConstInt(cg->i32, 2, 0), LLVMConstInt(cg->i32, 1, 0) };
	cg_call_intrinsic(cg, "llvm.prefetch", cg->ptr, args, 4);
}

/* The rows of r's image from dim r->k on, within lo..hi, at idx[0..k-1];
 * the innermost dim a line at a time. */
static void prefetch_rows(pt_cg *cg, LLVMValueRef i, void *data)
{
	rows *r = data;
	int k = r->k, n = r->im->ndim;
	if (i)
		r->idx[k - 1] = i;
	LLVMValueRef one = cg_i64(cg, 1);
	if (k < n - 1) {
		r->k++;
		cg_counted_loop(cg, r->lo[k], LLVMBuildAdd(cg->b, r->hi[k], one, ""), CG_VEC_DEFAULT, prefetch_rows, r);
		r->k--;
		return;
	}
	r->idx[k] = r->lo[k];
	r->first = cg_address(cg, &cg->image[r->im->id], NULL, r->idx);
	/* lines from the row's first byte to its last; none when hi < lo */
	LLVMValueRef bytes = LLVMBuildMul(cg->b, LLVMBuildSub(cg->b, r->hi[k], r->lo[k], ""),
		cg_i64(cg, (int64_t)pt_type_size((pt_type)r->im->type)), "");
	LLVMValueRef lines = LLVMBuildAdd(cg->b, LLVMBuildSDiv(cg->b, bytes, cg_i64(cg, LINE), ""), one, "");
	lines = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, bytes, cg_i64(cg, 0), ""),
		cg_i64(cg, 0), lines, "");
	cg_counted_loop(cg, cg_i64(cg, 0), lines, CG_VEC_DEFAULT, prefetch_line, r);
}

void cg_prefetch_next_tile(pt_cg *cg, const pt_group *g)
{
	if (g->ntile < 1)
		return;
	reads rs = { .p = cg->p };
	for (int i = 0; i < g->nstages && !rs.full; i++) {
		rs.s = g->stages[i];
		rs.si = i;
		if (rs.s->red != PT_RED_NONE)
			continue;
		for (int c = 0; c < rs.s->ncases; c++) {
			pt_expr_walk(rs.s->cases[c].cond, note_read, &rs);
			pt_expr_walk(rs.s->cases[c].value, note_read, &rs);
		}
	}
	if (rs.full)
		return;
	int64_t total = 0;
	for (int i = 0; i < rs.n; i++) {
		int64_t l = lines_of(g, &rs.r[i]);
		if (l < 0 || (total += l) > PREFETCH_LINES)
			return;
	}
	/* one box per image and shape: a stencil read by two stages of the
	 * group (harris's Ix and Iy, unsharp's blur and mask) is asked for once */
	bool merged[MAX_READS] = {false};
	for (int i = 0; i < rs.n; i++) {
		if (merged[i])
			continue;
		const img_read *r = &rs.r[i];
		LLVMValueRef lo[PT_MAX_DIMS], hi[PT_MAX_DIMS], idx[PT_MAX_DIMS];
		read_box(cg, g, r, lo, hi);
		for (int j = i + 1; j < rs.n; j++) {
			if (!same_shape(g, r, &rs.r[j]))
				continue;
			LLVMValueRef lo2[PT_MAX_DIMS], hi2[PT_MAX_DIMS];
			read_box(cg, g, &rs.r[j], lo2, hi2);
			for (int k = 0; k < r->im->ndim; k++) {
				lo[k] = cg_minmax(cg, PT_I64, lo[k], lo2[k], true);
				hi[k] = cg_minmax(cg, PT_I64, hi[k], hi2[k], false);
			}
			merged[j] = true;
		}
		rows rw = { r->im, lo, hi, idx, 0, NULL };
		prefetch_rows(cg, NULL, &rw);
	}
}
