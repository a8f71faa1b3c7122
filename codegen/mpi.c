/* mpi.c: the MPI target.  Within a rank, the CPU target's code (threads,
 * tiles, scratchpads); across ranks, the split of poly/distribute.h:
 * the schedule names each split kernel's part as mpi.lo.K .. mpi.hi.K,
 * bound before it runs from pt_mpi_slice; before a kernel, every array
 * it reads that an exchanged kernel wrote is exchanged (pt_mpi_exchange
 * with the rank's need box and the producer part's own box; a
 * recomputed kernel's readers find what they read on the rank); after the
 * schedule, the outputs are gathered on rank 0 and the ranks agree on
 * the error to return (pt_mpi_finish).  The runtime calls are collective:
 * every rank makes the same ones in the same order, which is why the
 * exchanges are emitted outside any condition that depends on a part
 * (ast.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast_build.h>

#include "distribute.h"
#include "entry.h"
#include "target.h"

/* Rank r's part of split kernel k among R (i32 values): pt_mpi_slice_of
 * its range, or on a grid pt_mpi_slice2_of its two ranges (part[0 .. 1]
 * along the first, part[2 .. 3] along the second). */
static void part(pt_cg *cg, int k, LLVMValueRef r, LLVMValueRef R, LLVMValueRef *part)
{
	const pt_dist_kernel *dk = &cg->dist->k[k];
	LLVMTypeRef t = LLVMArrayType(cg->i64, 4);
	LLVMValueRef out = cg_entry_alloca(cg, t);
	if (dk->coord2 >= 0) {
		LLVMValueRef args[] = { cg_pw_value(cg, dk->first, NULL), cg_pw_value(cg, dk->last, NULL),
			cg_pw_value(cg, dk->first2, NULL), cg_pw_value(cg, dk->last2, NULL), r, R, out };
		LLVMTypeRef p[] = { cg->i64, cg->i64, cg->i64, cg->i64, cg->i32, cg->i32, cg->ptr };
		cg_call(cg, "pt_mpi_slice2_of", cg->vd, p, args, 7);
	} else {
		LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, 1) };
		LLVMValueRef args[] = { cg_pw_value(cg, dk->first, NULL), cg_pw_value(cg, dk->last, NULL), r, R, out,
			LLVMBuildInBoundsGEP2(cg->b, t, out, idx, 2, "") };
		LLVMTypeRef p[] = { cg->i64, cg->i64, cg->i32, cg->i32, cg->ptr, cg->ptr };
		cg_call(cg, "pt_mpi_slice_of", cg->vd, p, args, 6);
	}
	for (int i = 0; i < (dk->coord2 >= 0 ? 4 : 2); i++) {
		LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, i) };
		part[i] = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildInBoundsGEP2(cg->b, t, out, idx, 2, ""), "mpi.part");
	}
}

/* An i64 array of n values. */
static LLVMValueRef i64_array(pt_cg *cg, const LLVMValueRef *v, int n)
{
	LLVMTypeRef t = LLVMArrayType(cg->i64, (unsigned)n);
	LLVMValueRef a = cg_entry_alloca(cg, t);
	for (int i = 0; i < n; i++) {
		LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, i) };
		LLVMBuildStore(cg->b, v[i], LLVMBuildInBoundsGEP2(cg->b, t, a, idx, 2, ""));
	}
	return a;
}

/* Box b on this rank (its params mpi.lo.K, mpi.hi.K read from the
 * parts), as the runtime takes it (empty where it is not defined).  In
 * an array folded along dim 0 a box is one plane there (distribute.h:
 * stepped), which the runtime finds at its folded place. */
static LLVMValueRef box_value(pt_cg *cg, const pt_dist_box *b)
{
	LLVMValueRef v[2 * PT_MAX_DIMS], defined = NULL;
	for (int d = 0; d < b->ndim; d++) {
		v[2 * d] = cg_pw_value(cg, b->lo[d], d == 0 ? &defined : NULL);
		v[2 * d + 1] = cg_pw_value(cg, b->hi[d], NULL);
	}
	const cg_array *a = &cg->stage[b->stage->id];
	if (a->fold && !a->group) {
		LLVMValueRef lo = cg_param_expr(cg, b->stage->dom[0].lo);
		LLVMValueRef at = LLVMBuildSRem(cg->b, LLVMBuildNSWSub(cg->b, v[0], lo, ""), cg_i64(cg, a->fold), "");
		v[0] = v[1] = LLVMBuildNSWAdd(cg->b, at, lo, "");
	}
	/* an empty box: dim 0 from 1 to 0 */
	v[0] = LLVMBuildSelect(cg->b, defined, v[0], cg_i64(cg, 1), "");
	v[1] = LLVMBuildSelect(cg->b, defined, v[1], cg_i64(cg, 0), "");
	return i64_array(cg, v, 2 * b->ndim);
}

/* The first arguments of an exchange or a gather of stage s's array. */
static void array_args(pt_cg *cg, const pt_stage *s, LLVMValueRef *args)
{
	const cg_array *a = &cg->stage[s->id];
	LLVMValueRef origin[PT_MAX_DIMS], stride[PT_MAX_DIMS];
	for (int d = 0; d < s->ndim; d++) {
		origin[d] = a->origin[d] ? a->origin[d] : cg_param_expr(cg, s->dom[d].lo);
		stride[d] = d < s->ndim - 1 ? a->stride[d] : cg_i64(cg, 1);
	}
	args[0] = a->ptr;
	args[1] = LLVMConstInt(cg->i32, pt_type_size((pt_type)s->type), 0);
	args[2] = LLVMConstInt(cg->i32, (unsigned)s->ndim, 0);
	args[3] = i64_array(cg, origin, s->ndim);
	args[4] = i64_array(cg, stride, s->ndim);
}

/* The parts of the split kernels, PT_DIST_SLOTS per kernel (lo, hi,
 * wlo, whi, t, lo2, hi2, wlo2, whi2): a global that run_begin fills, read wherever the schedule
 * names mpi.lo.K and the others (an outlined loop included, with
 * nothing to capture). */
static LLVMValueRef parts(pt_cg *cg)
{
	char name[300];
	snprintf(name, sizeof(name), "%s.mpi.parts", cg->fname);
	LLVMValueRef g = LLVMGetNamedGlobal(cg->mod, name);
	if (!g) {
		LLVMTypeRef t = LLVMArrayType(cg->i64, (unsigned)(PT_DIST_SLOTS * cg->dist->n + 1));
		g = LLVMAddGlobal(cg->mod, t, name);
		LLVMSetInitializer(g, LLVMConstNull(t));
		LLVMSetLinkage(g, LLVMInternalLinkage);
	}
	return g;
}

static LLVMValueRef part_slot(pt_cg *cg, int k, int slot)
{
	LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, PT_DIST_SLOTS * k + slot) };
	LLVMValueRef g = parts(cg);
	return LLVMBuildInBoundsGEP2(cg->b, LLVMGlobalGetValueType(g), g, idx, 2, "");
}

static LLVMValueRef mpi_name_value(pt_cg *cg, const char *name)
{
	int k, slot = pt_dist_slot(name, &k);
	if (slot < 0 || k < 0 || k >= cg->dist->n)
		return NULL;
	return LLVMBuildLoad2(cg->b, cg->i64, part_slot(cg, k, slot), name);
}

static LLVMValueRef pick(pt_cg *cg, LLVMIntPredicate pr, LLVMValueRef a, LLVMValueRef b)
{
	return LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, pr, a, b, ""), a, b, "");
}

/* A widened kernel's range: the hull of its own part and the values its
 * readers' parts need (pt_dist_values, pt_dist_widen). */
static void widen(pt_cg *cg, int k)
{
	const pt_dist_kernel *dk = &cg->dist->k[k];
	LLVMValueRef lo = LLVMBuildLoad2(cg->b, cg->i64, part_slot(cg, k, 0), "");
	LLVMValueRef hi = LLVMBuildLoad2(cg->b, cg->i64, part_slot(cg, k, 1), "");
	LLVMValueRef some = LLVMConstInt(cg->i1, 0, 0), vlo = cg_i64(cg, 1), vhi = cg_i64(cg, 0);
	for (int i = 0; i < dk->nv; i++) {
		LLVMValueRef def, a = cg_pw_value(cg, dk->vmin[i], &def), b = cg_pw_value(cg, dk->vmax[i], NULL);
		LLVMValueRef nlo = LLVMBuildSelect(cg->b, some, pick(cg, LLVMIntSLT, vlo, a), a, "");
		LLVMValueRef nhi = LLVMBuildSelect(cg->b, some, pick(cg, LLVMIntSGT, vhi, b), b, "");
		vlo = LLVMBuildSelect(cg->b, def, nlo, vlo, "");
		vhi = LLVMBuildSelect(cg->b, def, nhi, vhi, "");
		some = LLVMBuildOr(cg->b, some, def, "");
	}
	LLVMValueRef own = LLVMBuildICmp(cg->b, LLVMIntSLE, lo, hi, "");
	LLVMValueRef wlo = LLVMBuildSelect(cg->b, own, pick(cg, LLVMIntSLT, lo, vlo), vlo, "");
	LLVMValueRef whi = LLVMBuildSelect(cg->b, own, pick(cg, LLVMIntSGT, hi, vhi), vhi, "");
	LLVMBuildStore(cg->b, LLVMBuildSelect(cg->b, some, wlo, lo, ""), part_slot(cg, k, 2));
	LLVMBuildStore(cg->b, LLVMBuildSelect(cg->b, some, whi, hi, ""), part_slot(cg, k, 3));
}

/* Stepped kernel k's own part widened by m steps (pt_dist_step_range)
 * into slots wlo, whi. */
static void step_range(pt_cg *cg, int k, LLVMValueRef m)
{
	const pt_dist_kernel *dk = &cg->dist->k[k];
	/* along coord (slots lo, hi into wlo, whi), and coord2 on a grid */
	static const int from[2][2] = { { 0, 1 }, { 5, 6 } }, to[2][2] = { { 2, 3 }, { 7, 8 } };
	const int64_t *g[2] = { dk->grow, dk->grow2 };
	int nc = dk->coord2 >= 0 ? 2 : 1;
	LLVMValueRef lo[2], hi[2], some = LLVMConstInt(cg->i1, 1, 0);
	for (int c = 0; c < nc; c++) {
		lo[c] = LLVMBuildLoad2(cg->b, cg->i64, part_slot(cg, k, from[c][0]), "");
		hi[c] = LLVMBuildLoad2(cg->b, cg->i64, part_slot(cg, k, from[c][1]), "");
		some = LLVMBuildAnd(cg->b, some, LLVMBuildICmp(cg->b, LLVMIntSLE, lo[c], hi[c], ""), "");
	}
	for (int c = 0; c < nc; c++) {
		bool grow = g[c][0] >= 0 && g[c][1] >= 0;
		LLVMValueRef wlo = LLVMBuildNSWSub(cg->b, lo[c], LLVMBuildNSWMul(cg->b, m, cg_i64(cg, grow ? g[c][0] : 0), ""), "");
		LLVMValueRef whi = LLVMBuildNSWAdd(cg->b, hi[c], LLVMBuildNSWMul(cg->b, m, cg_i64(cg, grow ? g[c][1] : 0), ""), "");
		LLVMBuildStore(cg->b, LLVMBuildSelect(cg->b, some, wlo, lo[c], ""), part_slot(cg, k, to[c][0]));
		LLVMBuildStore(cg->b, LLVMBuildSelect(cg->b, some, whi, hi[c], ""), part_slot(cg, k, to[c][1]));
	}
}

/* Its steps left before an exchange at step t (pt_dist_steps_left). */
static LLVMValueRef steps_left(pt_cg *cg, int k, LLVMValueRef t)
{
	const pt_dist_kernel *dk = &cg->dist->k[k];
	LLVMValueRef left = LLVMBuildNSWSub(cg->b, cg_pw_value(cg, dk->tlast, NULL), t, "");
	return dk->depth > 0 ? LLVMBuildSRem(cg->b, left, cg_i64(cg, dk->depth), "") : left;
}

/* Rank r's parts (of R) of the split kernels into the parts global, a
 * stepped kernel's range its widest (pt_dist_steps_most), then the
 * widened ranges, from the last kernel back (a widened range reads its
 * readers'). */
static void bind_parts(pt_cg *cg, LLVMValueRef r, LLVMValueRef R)
{
	for (int k = 0; k < cg->dist->n; k++) {
		if (!cg->dist->k[k].split)
			continue;
		LLVMValueRef q[4];
		part(cg, k, r, R, q);
		for (int i = 0; i < 2; i++) {
			LLVMBuildStore(cg->b, q[0], part_slot(cg, k, 2 * i));
			LLVMBuildStore(cg->b, q[1], part_slot(cg, k, 2 * i + 1));
		}
		if (cg->dist->k[k].coord2 >= 0)   /* a grid: mpi.lo2.K, mpi.hi2.K (and widened) */
			for (int i = 0; i < 2; i++) {
				LLVMBuildStore(cg->b, q[2], part_slot(cg, k, 5 + 2 * i));
				LLVMBuildStore(cg->b, q[3], part_slot(cg, k, 6 + 2 * i));
			}
		const pt_dist_kernel *dk = &cg->dist->k[k];
		if (dk->stepped) {
			LLVMValueRef all = LLVMBuildNSWSub(cg->b, cg_pw_value(cg, dk->tlast, NULL), cg_pw_value(cg, dk->tfirst, NULL), "");
			all = pick(cg, LLVMIntSGT, all, cg_i64(cg, 0));
			step_range(cg, k, dk->depth > 0 ? pick(cg, LLVMIntSLT, all, cg_i64(cg, dk->depth - 1)) : all);
		}
	}
	for (int k = cg->dist->n - 1; k >= 0; k--)
		if (cg->dist->k[k].split && cg->dist->k[k].widened)
			widen(cg, k);
}

/* The hull of boxes bs[0 .. n) (ndim dims) on this rank, those empty
 * here left out; lo > hi along dim 0 when all are. */
static void hull(pt_cg *cg, const pt_dist_box **bs, int n, int ndim, LLVMValueRef *lo, LLVMValueRef *hi)
{
	LLVMValueRef some = LLVMConstInt(cg->i1, 0, 0);
	for (int d = 0; d < ndim; d++) {
		lo[d] = cg_i64(cg, 1);
		hi[d] = cg_i64(cg, 0);
	}
	for (int i = 0; i < n; i++) {
		LLVMValueRef def = NULL, blo[PT_MAX_DIMS], bhi[PT_MAX_DIMS];
		for (int d = 0; d < ndim; d++) {
			blo[d] = cg_pw_value(cg, bs[i]->lo[d], d == 0 ? &def : NULL);
			bhi[d] = cg_pw_value(cg, bs[i]->hi[d], NULL);
		}
		/* defined and not empty */
		for (int d = 0; d < ndim; d++)
			def = LLVMBuildAnd(cg->b, def, LLVMBuildICmp(cg->b, LLVMIntSLE, blo[d], bhi[d], ""), "");
		for (int d = 0; d < ndim; d++) {
			LLVMValueRef nlo = LLVMBuildSelect(cg->b, some, pick(cg, LLVMIntSLT, lo[d], blo[d]), blo[d], "");
			LLVMValueRef nhi = LLVMBuildSelect(cg->b, some, pick(cg, LLVMIntSGT, hi[d], bhi[d]), bhi[d], "");
			lo[d] = LLVMBuildSelect(cg->b, def, nlo, lo[d], "");
			hi[d] = LLVMBuildSelect(cg->b, def, nhi, hi[d], "");
		}
		some = LLVMBuildOr(cg->b, some, def, "");
	}
}

/* ABI array a (images in order, then outputs): its dims, and its stage
 * (*s; NULL: image a) at index *si of the pipeline's stages. */
static int abi_array(const pt_pipeline *p, int a, const pt_stage **s, int *si)
{
	*s = NULL;
	for (int i = 0, o = p->nimages; i < p->nstages && !*s; i++)
		if (p->stages[i]->is_output && o++ == a) {
			*s = p->stages[i];
			*si = i;
		}
	return *s ? (*s)->ndim : p->images[a]->ndim;
}

/* The box of ABI array a that a rank's buffer covers under the
 * local-part ABI: the hull of the kernels' need boxes of an image, or of
 * an output's partition boxes; own: of an output, only the points the
 * rank's own part writes (the parts of the ranks tile the output).  Along
 * dims no rank's part changes (split[d] false), and along every dim
 * when it is whole (its writer replicated, or no kernel reads it:
 * returns false), the whole domain or extent. */
static bool local_box(pt_cg *cg, int a, bool own, LLVMValueRef *lo, LLVMValueRef *hi, bool *split)
{
	const pt_pipeline *p = cg->p;
	const pt_stage *s;
	int si, n, ndim = abi_array(p, a, &s, &si);
	const pt_dist_box **bs = s ? pt_dist_partition_boxes(cg->dist, cg->kernels, s, &n) :
		pt_dist_image_boxes(cg->dist, p->images[a], &n);
	if (s && own && n > 0) {
		bs[0] = pt_dist_own(&cg->dist->k[cg->kernels->of_stage[s->id]], s);
		n = 1;
	}
	if (n > 0)
		hull(cg, bs, n, ndim, lo, hi);
	for (int d = 0; d < ndim; d++) {
		split[d] = n > 0 && pt_dist_dim_split(bs, n, d);
		if (split[d])
			continue;
		lo[d] = s ? cg_param_expr(cg, s->dom[d].lo) : cg_i64(cg, 0);
		hi[d] = s ? cg_param_expr(cg, s->dom[d].hi) :
			LLVMBuildNSWSub(cg->b, cg_param_expr(cg, p->images[a]->extent[d]), cg_i64(cg, 1), "");
	}
	free(bs);
	return n > 0;
}

/* Extents of box lo .. hi (0 along every dim when it is empty). */
static void box_extents(pt_cg *cg, int ndim, LLVMValueRef *lo, LLVMValueRef *hi, LLVMValueRef *ext)
{
	LLVMValueRef none = LLVMBuildICmp(cg->b, LLVMIntSGT, lo[0], hi[0], "");
	for (int d = 0; d < ndim; d++) {
		LLVMValueRef e = LLVMBuildNSWAdd(cg->b, LLVMBuildNSWSub(cg->b, hi[d], lo[d], ""), cg_i64(cg, 1), "");
		e = pick(cg, LLVMIntSGT, e, cg_i64(cg, 0));
		ext[d] = LLVMBuildSelect(cg->b, none, cg_i64(cg, 0), e, "");
	}
}

/* The caller's images and outputs under NAME_local: their extents and
 * first points those of the rank's parts (local_box). */
static void local_arrays(pt_cg *cg, LLVMValueRef (*box)[PT_MAX_DIMS], LLVMValueRef (*iext)[PT_MAX_DIMS])
{
	const pt_pipeline *p = cg->p;
	int narr = pt_entry_nargs(p) - p->nparams;
	for (int a = 0; a < narr; a++) {
		const pt_stage *s;
		int si = 0, ndim = abi_array(p, a, &s, &si);
		LLVMValueRef lo[PT_MAX_DIMS], hi[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		bool split[PT_MAX_DIMS];
		if (!local_box(cg, a, false, lo, hi, split))
			continue;
		box_extents(cg, ndim, lo, hi, ext);
		cg_array *arr = s ? &cg->stage[s->id] : &cg->image[p->images[a]->id];
		LLVMValueRef *whole = s ? box[si] : iext[a];
		for (int d = 0; d < ndim; d++) {
			whole[d] = LLVMBuildSelect(cg->b, cg->local_parts, ext[d], whole[d], "");
			/* a dim no part changes starts where the whole one does */
			if (split[d])
				arr->origin[d] = LLVMBuildSelect(cg->b, cg->local_parts, lo[d],
					s ? cg_param_expr(cg, s->dom[d].lo) : cg_i64(cg, 0), "");
		}
	}
}

/* The parts bound, then each partitioned stage's box: its first point
 * the array's origin, its extents (0 when the rank holds none of it);
 * then the caller's arrays, for NAME_local. */
static void mpi_partition(pt_cg *cg, LLVMValueRef (*box)[PT_MAX_DIMS], LLVMValueRef (*iext)[PT_MAX_DIMS])
{
	LLVMValueRef r = cg_call(cg, "pt_mpi_rank", cg->i32, NULL, NULL, 0);
	LLVMValueRef R = cg_call(cg, "pt_mpi_size", cg->i32, NULL, NULL, 0);
	bind_parts(cg, r, R);
	const pt_pipeline *p = cg->p;
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		if (!cg->storage->place || cg->storage->place[s->id] != PT_PLACE_PARTITION)
			continue;
		int n;
		const pt_dist_box **bs = pt_dist_partition_boxes(cg->dist, cg->kernels, s, &n);
		LLVMValueRef lo[PT_MAX_DIMS], hi[PT_MAX_DIMS], ext[PT_MAX_DIMS];
		hull(cg, bs, n, s->ndim, lo, hi);
		bool split[PT_MAX_DIMS];
		for (int d = 0; d < s->ndim; d++)
			split[d] = pt_dist_dim_split(bs, n, d);
		free(bs);
		box_extents(cg, s->ndim, lo, hi, ext);
		/* as intermediate_sizes: a stage with a mask is not folded; dims
		 * no part changes stay whole, at offsets known when compiled */
		bool fold = cg->storage->fold[s->id] && !cg_stage_needs_mask(cg, s);
		LLVMValueRef none = LLVMBuildICmp(cg->b, LLVMIntSGT, lo[0], hi[0], "");
		for (int d = fold ? 1 : 0; d < s->ndim; d++) {
			if (!split[d]) {   /* empty on this rank: no element at all */
				box[i][d] = LLVMBuildSelect(cg->b, none, cg_i64(cg, 0), box[i][d], "");
				continue;
			}
			box[i][d] = ext[d];
			cg->stage[s->id].origin[d] = lo[d];
		}
	}
	cg->local_parts = LLVMBuildICmp(cg->b, LLVMIntNE,
		LLVMBuildLoad2(cg->b, cg->i8, cg_local_flag(cg), ""), LLVMConstInt(cg->i8, 0, 0), "local");
	local_arrays(cg, box, iext);
}

/* int32_t NAME_part(const int64_t *iparams, const double *fparams,
 * int32_t rank, int32_t nranks, int32_t a, int64_t *lo, int64_t *hi):
 * the box of ABI array a (images, then outputs) that rank's buffer
 * covers under NAME_local, in the array's coordinates (none when some
 * lo > hi), or with a + PT_PART_OWN that rank's own points of an
 * output (local_box); returns its dims, or PT_ERR_PARAM for a that is
 * none or params out of their types' range. */
static void mpi_part_function(pt_cg *cg)
{
	const pt_pipeline *p = cg->p;
	char name[300];
	snprintf(name, sizeof(name), "%s_part", cg->fname);
	LLVMTypeRef pt[] = { cg->ptr, cg->ptr, cg->i32, cg->i32, cg->i32, cg->ptr, cg->ptr };
	LLVMValueRef f = LLVMAddFunction(cg->mod, name, LLVMFunctionType(cg->i32, pt, 7, 0));
	cg->fn = f;
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, f, "entry"));
	LLVMValueRef *args = calloc((size_t)p->nparams + 1, sizeof(*args));
	int *order = malloc(sizeof(int) * (size_t)(p->nparams + 1));
	pt_entry_param_order(p, order);
	cg_entry_argv_params(cg, LLVMGetParam(f, 0), LLVMGetParam(f, 1), args);
	for (int i = 0; i < p->nparams; i++)
		cg->param[order[i]] = args[i];
	free(order);
	free(args);
	bind_parts(cg, LLVMGetParam(f, 2), LLVMGetParam(f, 3));
	int narr = pt_entry_nargs(p) - p->nparams;
	LLVMBasicBlockRef bad = cg_block(cg, "none");
	LLVMValueRef sw = LLVMBuildSwitch(cg->b, LLVMGetParam(f, 4), bad, (unsigned)(2 * narr));
	for (int c = 0; c < 2 * narr; c++) {
		int a = c % narr;
		const pt_stage *s;
		int si, ndim = abi_array(p, a, &s, &si);
		LLVMBasicBlockRef here = cg_block(cg, "array");
		LLVMAddCase(sw, LLVMConstInt(cg->i32, (unsigned)(a + (c >= narr ? PT_PART_OWN : 0)), 0), here);
		LLVMPositionBuilderAtEnd(cg->b, here);
		LLVMValueRef lo[PT_MAX_DIMS], hi[PT_MAX_DIMS];
		bool split[PT_MAX_DIMS];
		if (!local_box(cg, a, c >= narr, lo, hi, split) && s && c >= narr) {
			/* a replicated output: every rank computes it whole, rank 0 owns it */
			LLVMValueRef r0 = LLVMBuildICmp(cg->b, LLVMIntEQ, LLVMGetParam(f, 2), LLVMConstInt(cg->i32, 0, 0), "");
			hi[0] = LLVMBuildSelect(cg->b, r0, hi[0], LLVMBuildNSWSub(cg->b, lo[0], cg_i64(cg, 1), ""), "");
		}
		for (int d = 0; d < ndim; d++) {
			LLVMValueRef idx = cg_i64(cg, d);
			LLVMBuildStore(cg->b, lo[d], LLVMBuildInBoundsGEP2(cg->b, cg->i64, LLVMGetParam(f, 5), &idx, 1, ""));
			LLVMBuildStore(cg->b, hi[d], LLVMBuildInBoundsGEP2(cg->b, cg->i64, LLVMGetParam(f, 6), &idx, 1, ""));
		}
		LLVMBuildRet(cg->b, LLVMConstInt(cg->i32, (unsigned)ndim, 0));
	}
	LLVMPositionBuilderAtEnd(cg->b, bad);
	LLVMBuildRet(cg->b, LLVMConstInt(cg->i32, (unsigned long long)(int64_t)PT_ERR_PARAM, 1));
}

/* Host memory, counted (pt_mpi_held_all) so that a test can check what
 * partitions save. */
static LLVMValueRef mpi_alloc(pt_cg *cg, LLVMValueRef bytes, pt_placement place)
{
	(void)place;
	LLVMTypeRef p[] = { cg->i64 };
	return cg_call(cg, "pt_mpi_alloc", cg->ptr, p, &bytes, 1);
}

static void mpi_run_begin(pt_cg *cg)
{
	cg_call(cg, "pt_mpi_begin", cg->vd, NULL, NULL, 0);
}

/* Before kernel k: each array it reads that an exchanged kernel wrote. */
static void mpi_exchange(pt_cg *cg, const pt_kernel *k)
{
	const pt_dist_kernel *dk = &cg->dist->k[k->index];
	for (int i = 0; i < dk->nneed; i++) {
		const pt_stage *s = dk->need[i].stage;
		const pt_dist_kernel *pk = &cg->dist->k[cg->kernels->of_stage[s->id]];
		const pt_dist_box *own = pt_dist_own(pk, s);
		if (!pk->split || pk->widened || !own)
			continue;
		LLVMValueRef args[7];
		array_args(cg, s, args);
		args[5] = box_value(cg, &dk->need[i]);
		args[6] = box_value(cg, own);
		LLVMTypeRef p[] = { cg->ptr, cg->i32, cg->i32, cg->ptr, cg->ptr, cg->ptr, cg->ptr };
		cg_call(cg, "pt_mpi_exchange", cg->vd, p, args, 7);
	}
}

static bool mpi_stepped(pt_cg *cg, int k)
{
	return cg->dist->k[k].split && cg->dist->k[k].stepped;
}

static void mpi_step_range(pt_cg *cg, int k, LLVMValueRef *first, LLVMValueRef *last)
{
	*first = cg_pw_value(cg, cg->dist->k[k].tfirst, NULL);
	*last = cg_pw_value(cg, cg->dist->k[k].tlast, NULL);
}

/* Before step t of stepped kernel k: the step named (mpi.t.K), its
 * range widened by the steps left before the next exchange, and at the
 * start of a block of steps (pt_dist_step_exchanged: t alone decides,
 * the same on every rank), the ghost zone of its array at the step
 * before exchanged. */
static void mpi_step(pt_cg *cg, int k, LLVMValueRef t)
{
	const pt_dist_kernel *dk = &cg->dist->k[k];
	LLVMBuildStore(cg->b, t, part_slot(cg, k, 4));
	LLVMValueRef m = steps_left(cg, k, t);
	step_range(cg, k, m);
	if (dk->depth == 0)
		return;
	LLVMBasicBlockRef ex = cg_block(cg, "step.exchange"), done = cg_block(cg, "step.run");
	LLVMValueRef later = LLVMBuildICmp(cg->b, LLVMIntSGT, t, cg_pw_value(cg, dk->tfirst, NULL), "");
	LLVMValueRef top = LLVMBuildICmp(cg->b, LLVMIntEQ, m, cg_i64(cg, dk->depth - 1), "");
	LLVMBuildCondBr(cg->b, LLVMBuildAnd(cg->b, later, top, ""), ex, done);
	LLVMPositionBuilderAtEnd(cg->b, ex);
	LLVMValueRef args[7];
	array_args(cg, dk->step_need.stage, args);
	args[5] = box_value(cg, &dk->step_need);
	args[6] = box_value(cg, &dk->step_own);
	LLVMTypeRef p[] = { cg->ptr, cg->i32, cg->i32, cg->ptr, cg->ptr, cg->ptr, cg->ptr };
	cg_call(cg, "pt_mpi_exchange", cg->vd, p, args, 7);
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
}

/* After the schedule: the outputs on rank 0, the error agreed (which
 * pt_mpi_finish records again for the function to return). */
static void mpi_run_end(pt_cg *cg)
{
	const pt_pipeline *p = cg->p;
	/* NAME_local: the outputs stay in the ranks' parts */
	LLVMBasicBlockRef gather = cg_block(cg, "gather"), done = cg_block(cg, "gathered");
	LLVMBuildCondBr(cg->b, cg->local_parts, done, gather);
	LLVMPositionBuilderAtEnd(cg->b, gather);
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		int k = cg->kernels->of_stage[s->id];
		const pt_dist_box *own = s->is_output ? pt_dist_own(&cg->dist->k[k], s) : NULL;
		if (!own || !cg->dist->k[k].split)
			continue;
		LLVMValueRef args[6];
		array_args(cg, s, args);
		args[5] = box_value(cg, own);
		LLVMTypeRef pt[] = { cg->ptr, cg->i32, cg->i32, cg->ptr, cg->ptr, cg->ptr };
		cg_call(cg, "pt_mpi_gather", cg->vd, pt, args, 6);
	}
	LLVMBuildBr(cg->b, done);
	LLVMPositionBuilderAtEnd(cg->b, done);
	cg_call(cg, "pt_mpi_finish", cg->i32, NULL, NULL, 0);
}

static void mpi_early_return(pt_cg *cg, LLVMValueRef code)
{
	LLVMTypeRef p[] = { cg->i32 };
	cg_call(cg, "pt_mpi_abandon", cg->vd, p, &code, 1);
}

const pt_target pt_target_mpi = {
	.name = "mpi",
	.placement = PT_PLACE_HOST,
	.wide_table_loads = true,
	.stream_stores = true,
	.strip_scatters = true,
	/* one module: the pieces of a split one would each have their own
	 * copy of the parts (split.h) */
	.split_objects = false,
	.module_begin = cg_cpu_module_begin,
	.module_finish = cg_cpu_module_finish,
	.alloc = mpi_alloc,
	.free = cg_cpu_free,
	.scratch = cg_cpu_scratch,
	.exchange = mpi_exchange,
	.stepped = mpi_stepped,
	.step_range = mpi_step_range,
	.step = mpi_step,
	.parallel_for = cg_cpu_parallel_for,
	.tile = cg_cpu_tile,
	.partition = mpi_partition,
	.part_function = mpi_part_function,
	.run_begin = mpi_run_begin,
	.name_value = mpi_name_value,
	.run_end = mpi_run_end,
	.early_return = mpi_early_return,
	.fail = cg_cpu_fail,
};
