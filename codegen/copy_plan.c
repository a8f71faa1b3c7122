/* copy_plan.c: the plan of a run whose copies to and from the device go
 * in chunks (poly/stream_plan.h; pt_runtime.h's pt_gpu_stream), built
 * in the entry function from the run's one launch's outermost loop. */
#include "cg.h"
#include "stream_plan.h"
#include "target.h"

/* Chunks of a plan: at most this many (fewer when the loop has fewer
 * iterations): enough that a chunk's copies overlap the others' work,
 * few enough that each copy is large. */
#define CHUNKS 8

bool cg_copy_plan_possible(const pt_cg *cg, __isl_keep isl_ast_node *tree)
{
	return cg->target->stream && pt_stream_runs(cg->kernels, cg->model, tree);
}

static LLVMValueRef at(pt_cg *cg, LLVMTypeRef t, LLVMValueRef a, int64_t i)
{
	LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, i) };
	return LLVMBuildInBoundsGEP2(cg->b, t, a, idx, 2, "");
}

/* Buffer i's box in chunk c (tiles first .. last along tile dim 0) into
 * box: its first and last element along each dim, in the buffer's
 * elements (an output's from its domain's start); empty where the chunk
 * needs none of it. */
static void chunk_box(pt_cg *cg, const pt_stream *s, int i, const pt_stage *st, LLVMValueRef first,
	LLVMValueRef last, LLVMTypeRef bt, LLVMValueRef box, int64_t base)
{
	cg_push_iter(cg, PT_STREAM_FIRST, first);
	cg_push_iter(cg, PT_STREAM_LAST, last);
	for (int d = 0; d < PT_MAX_DIMS; d++) {
		LLVMValueRef lo = cg_i64(cg, 0), hi = cg_i64(cg, d == 0 ? -1 : 0);
		if (d < s->ndim[i] && s->lo[i][0]) {
			LLVMValueRef some, org = st ? cg_param_expr(cg, st->dom[d].lo) : cg_i64(cg, 0);
			lo = LLVMBuildSub(cg->b, cg_pw_value(cg, s->lo[i][d], &some), org, "");
			hi = LLVMBuildSub(cg->b, cg_pw_value(cg, s->hi[i][d], NULL), org, "");
			/* nothing needed: first 0, last -1 */
			lo = LLVMBuildSelect(cg->b, some, lo, cg_i64(cg, 0), "");
			hi = LLVMBuildSelect(cg->b, some, hi, cg_i64(cg, -1), "");
		}
		LLVMBuildStore(cg->b, lo, at(cg, bt, box, base + 2 * d));
		LLVMBuildStore(cg->b, hi, at(cg, bt, box, base + 2 * d + 1));
	}
	cg_unbind_iter(cg);
	cg_unbind_iter(cg);
}

/* The stage of buffer i (the images first, then the outputs), or NULL
 * for an image. */
static const pt_stage *buffer_stage(const pt_pipeline *p, int i)
{
	if (i < p->nimages)
		return NULL;
	for (int j = 0, k = p->nimages; j < p->nstages; j++)
		if (p->stages[j]->is_output && k++ == i)
			return p->stages[j];
	return NULL;
}

/* The chunks: CHUNKS of them over the loop's n iterations, each
 * ceil(n / min(CHUNKS, n)) iterations but the last ones (empty where
 * n < CHUNKS): first[c] into the i64 array first; chunk c's tiles along
 * tile dim 0 into tf[c], tl[c]. */
static void chunks(pt_cg *cg, __isl_keep isl_ast_node *tree, LLVMTypeRef ft, LLVMValueRef first, LLVMValueRef *n,
	LLVMValueRef *tf, LLVMValueRef *tl)
{
	LLVMValueRef init, last;
	int64_t inc;
	isl_ast_node *loop = pt_stream_loop(tree);
	cg_loop_bounds(cg, loop, &init, &last, &inc);
	isl_ast_node_free(loop);
	*n = cg_trip_count(cg, init, last, inc);
	LLVMValueRef s = cg_minmax(cg, PT_I64, *n, cg_i64(cg, CHUNKS), true);
	s = LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, s, cg_i64(cg, 1), ""), cg_i64(cg, 1), s, "");
	LLVMValueRef k = LLVMBuildSDiv(cg->b, LLVMBuildAdd(cg->b, *n, LLVMBuildSub(cg->b, s, cg_i64(cg, 1), ""), ""), s, "");
	LLVMValueRef f[CHUNKS + 1];
	for (int c = 0; c <= CHUNKS; c++) {
		f[c] = cg_minmax(cg, PT_I64, LLVMBuildMul(cg->b, k, cg_i64(cg, c), ""), *n, true);
		LLVMBuildStore(cg->b, f[c], at(cg, ft, first, c));
	}
	for (int c = 0; c < CHUNKS; c++) {
		tf[c] = LLVMBuildAdd(cg->b, init, LLVMBuildMul(cg->b, f[c], cg_i64(cg, inc), ""), "");
		tl[c] = LLVMBuildAdd(cg->b, init, LLVMBuildMul(cg->b, LLVMBuildSub(cg->b, f[c + 1], cg_i64(cg, 1), ""),
			cg_i64(cg, inc), ""), "");
	}
}

LLVMValueRef cg_copy_plan(pt_cg *cg, __isl_keep isl_ast_node *tree, int nbuf, const LLVMValueRef *buf,
	const LLVMValueRef *dev, const bool *output)
{
	const pt_stream *s = cg->kernels->stream;
	LLVMTypeRef ft = LLVMArrayType(cg->i64, CHUNKS + 1);
	LLVMTypeRef bt = LLVMArrayType(cg->i64, (unsigned)(CHUNKS * nbuf * 2 * PT_MAX_DIMS));
	LLVMTypeRef pt = LLVMArrayType(cg->ptr, (unsigned)nbuf), dt = LLVMArrayType(cg->i64, (unsigned)nbuf);
	LLVMTypeRef ot = LLVMArrayType(cg->i32, (unsigned)nbuf);
	LLVMValueRef first = cg_entry_alloca(cg, ft), box = cg_entry_alloca(cg, bt), bufs = cg_entry_alloca(cg, pt);
	LLVMValueRef devs = cg_entry_alloca(cg, dt), outs = cg_entry_alloca(cg, ot);
	LLVMValueRef n, tf[CHUNKS], tl[CHUNKS];
	chunks(cg, tree, ft, first, &n, tf, tl);
	for (int i = 0; i < nbuf; i++) {
		LLVMBuildStore(cg->b, buf[i], at(cg, pt, bufs, i));
		LLVMBuildStore(cg->b, LLVMBuildPtrToInt(cg->b, dev[i], cg->i64, ""), at(cg, dt, devs, i));
		LLVMBuildStore(cg->b, LLVMConstInt(cg->i32, output[i], 0), at(cg, ot, outs, i));
		const pt_stage *st = buffer_stage(cg->p, i);
		for (int c = 0; c < CHUNKS; c++)
			chunk_box(cg, s, i, st, tf[c], tl[c], bt, box, (int64_t)(c * nbuf + i) * 2 * PT_MAX_DIMS);
	}
	/* pt_gpu_stream */
	LLVMTypeRef fields[] = { cg->i32, cg->i32, cg->i64, cg->ptr, cg->ptr, cg->ptr, cg->ptr, cg->ptr, cg->ptr };
	LLVMTypeRef st = LLVMStructTypeInContext(cg->llc, fields, 9, 0);
	LLVMValueRef plan = cg_entry_alloca(cg, st);
	LLVMValueRef vals[] = { LLVMConstInt(cg->i32, CHUNKS, 0), LLVMConstInt(cg->i32, (unsigned long long)nbuf, 0), n,
		bufs, devs, outs, first, box, cg->stream_launch ? cg->stream_launch : LLVMConstNull(cg->ptr) };
	for (unsigned f = 0; f < 9; f++)
		LLVMBuildStore(cg->b, vals[f], LLVMBuildStructGEP2(cg->b, st, plan, f, ""));
	return plan;
}
