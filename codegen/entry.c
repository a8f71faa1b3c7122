/* entry.c: the pipeline function of the ABI (DESIGN.md):
 *   int NAME(<int params>, <float params>, const pt_buffer *in..., pt_buffer *out...)
 * It checks every buffer against the params (nothing is written when a
 * check fails), allocates the intermediate stages (the target's alloc and
 * free hooks), runs the schedule in a kernel with noalias arrays, and
 * frees.  NAME_argv takes the same
 * arguments as arrays, for the JIT and for generic callers. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "entry.h"
#include "stream_plan.h"
#include "target.h"

/* A full buffer from the target; a null pointer when it has no memory. */
static LLVMValueRef cg_target_alloc(pt_cg *cg, LLVMValueRef bytes, pt_placement place)
{
	return cg->target->alloc ? cg->target->alloc(cg, bytes, place) : LLVMConstPointerNull(cg->ptr);
}

/* Where slot k (k < nslots) or the mask of stage k - nslots lives: where
 * its stages do. */
static pt_placement placement_of(pt_cg *cg, int k)
{
	const pt_storage *st = cg->storage;
	int i = k - st->nslots;
	for (int j = 0; i < 0 && j < cg->p->nstages; j++)
		if (st->slot[cg->p->stages[j]->id] == k)
			i = j;
	return st->place && i >= 0 ? st->place[cg->p->stages[i]->id] : PT_PLACE_HOST;
}

static void cg_target_free(pt_cg *cg, LLVMValueRef ptr)
{
	if (cg->target->free)
		cg->target->free(cg, ptr);
}

/* n bytes (i64) at ptr, memory from the target, set to byte. */
static void cg_target_fill(pt_cg *cg, LLVMValueRef ptr, int byte, LLVMValueRef n)
{
	LLVMValueRef v = LLVMConstInt(cg->i8, (unsigned long long)byte, 0);
	if (cg->target->fill)
		cg->target->fill(cg, ptr, v, n);
	else
		LLVMBuildMemSet(cg->b, ptr, v, n, 1);
}

/* Returns code from the function when cond holds. */
static void early_return(pt_cg *cg, LLVMValueRef code)
{
	if (cg->target->early_return)
		cg->target->early_return(cg, code);
	LLVMBuildRet(cg->b, code);
}

static void fail_if(pt_cg *cg, LLVMValueRef cond, int code)
{
	LLVMBasicBlockRef bad = cg_block(cg, "bad"), ok = cg_block(cg, "ok");
	LLVMBuildCondBr(cg->b, cond, bad, ok);
	LLVMPositionBuilderAtEnd(cg->b, bad);
	early_return(cg, LLVMConstInt(cg->i32, (unsigned long long)(int64_t)code, 1));
	LLVMPositionBuilderAtEnd(cg->b, ok);
}

static LLVMValueRef field(pt_cg *cg, LLVMValueRef buf, unsigned f, int d, LLVMTypeRef t)
{
	LLVMValueRef idx[3] = { LLVMConstInt(cg->i32, 0, 0), LLVMConstInt(cg->i32, f, 0),
		LLVMConstInt(cg->i32, (unsigned long long)d, 0) };
	LLVMValueRef p = LLVMBuildInBoundsGEP2(cg->b, cg->buf_ty, buf, idx, f == 3 || f == 4 ? 3 : 2, "");
	return LLVMBuildLoad2(cg->b, t, p, "");
}

/* pt_buffer.flags (field 6): a target on the host reads and writes data;
 * a buffer whose device copy is newer is refused (pt_runtime.h). */
#define BUF_FLAGS 6

static bool on_host(const pt_cg *cg)
{
	return cg->target->placement == PT_PLACE_HOST;
}

/* The outputs' host copies are newer than any device copy once the
 * schedule has run on the host (its points written, or some of them
 * before a run-time check failed). */
static void mark_outputs_written(pt_cg *cg, LLVMValueRef f)
{
	if (!on_host(cg))
		return;
	unsigned arg = (unsigned)(cg->p->nparams + cg->p->nimages);
	for (int i = 0; i < cg->p->nstages; i++) {
		if (!cg->p->stages[i]->is_output)
			continue;
		LLVMValueRef buf = LLVMGetParam(f, arg++);
		LLVMValueRef at = LLVMBuildStructGEP2(cg->b, cg->buf_ty, buf, BUF_FLAGS, "");
		LLVMValueRef fl = LLVMBuildLoad2(cg->b, cg->i32, at, "");
		LLVMBuildStore(cg->b, LLVMBuildOr(cg->b, fl, LLVMConstInt(cg->i32, PT_BUF_HOST_DIRTY, 0), ""), at);
	}
}

/* Checks buffer arg against type t and extents ext[]; binds the array. */
static void check_buffer(pt_cg *cg, LLVMValueRef buf, int t, int ndim, LLVMValueRef *ext, cg_array *a)
{
	LLVMBuilderRef b = cg->b;
	fail_if(cg, LLVMBuildIsNull(b, buf, ""), PT_ERR_NULL);
	if (on_host(cg)) {
		LLVMValueRef fl = field(cg, buf, BUF_FLAGS, 0, cg->i32);
		fail_if(cg, LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, fl, LLVMConstInt(cg->i32, PT_BUF_DEVICE_DIRTY, 0), ""),
			LLVMConstInt(cg->i32, 0, 0), ""), PT_ERR_DEVICE);
	}
	LLVMValueRef data = field(cg, buf, 0, 0, cg->ptr);
	/* no data is needed where there is no element (a rank's empty part
	 * under the local-part ABI; other extents are checked >= 1) */
	LLVMValueRef some = LLVMConstInt(cg->i1, 1, 0);
	for (int d = 0; d < ndim; d++)
		some = LLVMBuildAnd(b, some, LLVMBuildICmp(b, LLVMIntSGT, ext[d], cg_i64(cg, 0), ""), "");
	fail_if(cg, LLVMBuildAnd(b, some, LLVMBuildIsNull(b, data, ""), ""), PT_ERR_NULL);
	/* the code loads and stores elements at their natural alignment */
	int64_t esz = (int64_t)pt_type_size((pt_type)t);
	if (esz > 1)
		fail_if(cg, LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, LLVMBuildPtrToInt(b, data, cg->i64, ""),
			cg_i64(cg, esz - 1), ""), cg_i64(cg, 0), ""), PT_ERR_ALIGN);
	fail_if(cg, LLVMBuildICmp(b, LLVMIntNE, field(cg, buf, 1, 0, cg->i32), LLVMConstInt(cg->i32, (unsigned)t, 0), ""), PT_ERR_TYPE);
	fail_if(cg, LLVMBuildICmp(b, LLVMIntNE, field(cg, buf, 2, 0, cg->i32), LLVMConstInt(cg->i32, (unsigned)ndim, 0), ""), PT_ERR_NDIM);
	for (int d = 0; d < ndim; d++)
		fail_if(cg, LLVMBuildICmp(b, LLVMIntNE, field(cg, buf, 3, d, cg->i64), ext[d], ""), PT_ERR_EXTENT);
	if (ndim > 0)
		fail_if(cg, LLVMBuildICmp(b, LLVMIntNE, field(cg, buf, 4, ndim - 1, cg->i64), cg_i64(cg, 1), ""), PT_ERR_STRIDE);
	a->ptr = data;
	a->ndim = ndim;
	a->type = t;
	/* the caller's strides are free, but the farthest element's byte
	 * offset must fit in i64 (addresses are computed without wrapping) */
	LLVMValueRef ovf = NULL, span = cg_i64(cg, 0);
	for (int d = 0; d < ndim - 1; d++) {
		LLVMValueRef st = a->stride[d] = field(cg, buf, 4, d, cg->i64);
		LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, st, cg_i64(cg, 0), "");
		st = LLVMBuildSelect(b, neg, cg_checked(cg, "ssub", cg_i64(cg, 0), st, &ovf), st, "");
		LLVMValueRef far = cg_checked(cg, "smul", LLVMBuildSub(b, ext[d], cg_i64(cg, 1), ""), st, &ovf);
		span = cg_checked(cg, "sadd", span, far, &ovf);
	}
	if (ndim > 0) {
		span = cg_checked(cg, "sadd", span, ext[ndim - 1], &ovf);
		cg_note_narrow(cg, cg_checked(cg, "smul", span, cg_i64(cg, (int64_t)pt_type_size((pt_type)t)), &ovf));
		fail_if(cg, ovf, PT_ERR_STRIDE);
	}
}

void cg_note_narrow(pt_cg *cg, LLVMValueRef bytes)
{
	if (!cg->narrow_ok)
		return;
	LLVMValueRef small = LLVMBuildICmp(cg->b, LLVMIntSLT, bytes, cg_i64(cg, INT32_MAX - 64), "");
	cg->narrow_ok = LLVMBuildAnd(cg->b, cg->narrow_ok, small, "");
}

/* Params must give every image an extent >= 1 and every stage a point
 * (the schedule was generated under that assumption); box[i] and iext[i]
 * are the extents of stage and image i. */
static void check_params(pt_cg *cg, LLVMValueRef (*box)[PT_MAX_DIMS], LLVMValueRef (*iext)[PT_MAX_DIMS])
{
	const pt_pipeline *p = cg->p;
	LLVMValueRef bad = LLVMConstInt(cg->i1, 0, 0);
	for (int i = 0; i < p->nimages; i++)
		for (int d = 0; d < p->images[i]->ndim; d++)
			bad = LLVMBuildOr(cg->b, bad, LLVMBuildICmp(cg->b, LLVMIntSLT, iext[i][d], cg_i64(cg, 1), ""), "");
	for (int i = 0; i < p->nstages; i++)
		for (int d = 0; d < p->stages[i]->ndim; d++)
			bad = LLVMBuildOr(cg->b, bad, LLVMBuildICmp(cg->b, LLVMIntSLT, box[i][d], cg_i64(cg, 1), ""), "");
	/* variables are i32: bounds past that range would wrap */
	LLVMValueRef ovf = NULL;
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		for (int d = 0; d < s->ndim + s->nrdim; d++) {
			const pt_interval *iv = d < s->ndim ? &s->dom[d] : &s->rdom[d - s->ndim];
			LLVMValueRef lo = cg_checked_param_expr(cg, iv->lo, &ovf), hi = cg_checked_param_expr(cg, iv->hi, &ovf);
			LLVMValueRef past = LLVMBuildOr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, lo, cg_i64(cg, INT32_MIN), ""),
				LLVMBuildICmp(cg->b, LLVMIntSGT, hi, cg_i64(cg, INT32_MAX), ""), "");
			LLVMValueRef nonempty = LLVMBuildICmp(cg->b, LLVMIntSGE, hi, lo, "");
			bad = LLVMBuildOr(cg->b, bad, LLVMBuildAnd(cg->b, past, nonempty, ""), "");
		}
	}
	if (ovf)
		bad = LLVMBuildOr(cg->b, bad, ovf, "");
	fail_if(cg, bad, PT_ERR_PARAM);
}

int pt_entry_nargs(const pt_pipeline *p)
{
	int n = p->nparams + p->nimages;
	for (int i = 0; i < p->nstages; i++)
		n += p->stages[i]->is_output;
	return n;
}

/* Params in ABI order: ints then floats, each in declaration order. */
int pt_entry_param_order(const pt_pipeline *p, int *order)
{
	int n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int q = 0; q < p->nparams; q++)
			if (pt_type_is_int(p->params[q].type) == (pass == 0))
				order[n++] = q;
	return n;
}

/* Intermediate s's plane written in its output's buffer (storage.h),
 * both in host memory, neither with a mask. */
static void plane_in_place(pt_cg *cg, const pt_stage *s)
{
	const pt_storage *st = cg->storage;
	int o = st->plane_out ? st->plane_out[s->id] : -1;
	if (o < 0 || (st->place && (st->place[s->id] != PT_PLACE_HOST || st->place[o] != PT_PLACE_HOST)))
		return;
	const pt_stage *out = NULL;
	for (int i = 0; i < cg->p->nstages; i++)
		if (cg->p->stages[i]->id == o)
			out = cg->p->stages[i];
	if (!out || cg_stage_needs_mask(cg, s) || cg_stage_needs_mask(cg, out) || !cg->stage[o].ptr)
		return;
	cg->stage[s->id].plane_out = out;
	cg->stage[o].plane_skip = true;
}

/* The bytes of each intermediate stage's full buffer (NULL for outputs
 * and scratchpad stages), its layout bound in cg->stage; a size that
 * does not fit in i64, there or in a scratchpad, returns PT_ERR_NOMEM
 * before anything is allocated. */
static LLVMValueRef *intermediate_sizes(pt_cg *cg, LLVMValueRef (*box)[PT_MAX_DIMS])
{
	const pt_pipeline *p = cg->p;
	LLVMValueRef *bytes = calloc((size_t)p->nstages + 1, sizeof(*bytes)), ovf = NULL;
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		if (s->is_output)
			continue;
		const pt_group *g = pt_tiling_group(cg->model->tiling, s);
		if (pt_tiling_is_scratch(cg->model->tiling, s)) {
			/* what cg_scratch_begin will ask for in each tile */
			int si = 0;
			while (g->stages[si] != s)
				si++;
			LLVMValueRef ext[PT_MAX_DIMS];
			for (int d = 0; d < s->ndim; d++) {
				int64_t n = pt_group_scratch_extent(g, si, d);
				ext[d] = n >= 0 ? cg_i64(cg, n) : box[i][d];
			}
			cg_note_narrow(cg, cg_checked_bytes(cg, s->ndim, ext, s->type, NULL, &ovf));
			continue;
		}
		cg_array *a = &cg->stage[s->id];
		a->ndim = s->ndim;
		a->type = s->type;
		/* folded (storage.h): dimension 0 holds fold steps; not a stage
		 * with a mask, whose stale bits would say a step is defined */
		a->fold = cg_stage_needs_mask(cg, s) ? 0 : cg->storage->fold[s->id];
		a->fold_steps = a->fold ? cg->storage->fold_steps[s->id] : 0;
		LLVMValueRef ext[PT_MAX_DIMS];
		for (int d = 0; d < s->ndim; d++)
			ext[d] = d == 0 && a->fold ? cg_i64(cg, a->fold) : box[i][d];
		bytes[i] = cg_checked_bytes(cg, s->ndim, ext, s->type, a->stride, &ovf);
		cg_note_narrow(cg, bytes[i]);
		plane_in_place(cg, s);
	}
	if (ovf)
		fail_if(cg, ovf, PT_ERR_NOMEM);
	return bytes;
}

/* The caller's buffers as a device target binds them for one run. */
typedef struct bound {
	int n;
	LLVMValueRef *buf, *dev, *box;
	bool *output;
	LLVMValueRef ok;     /* i1: every one bound */
} bound;

/* For an output s whose defined points are a box (pt_kernels), that box
 * in s's buffer's elements (first then last along each dim; empty where
 * s defines nothing), in an array of the entry's; else NULL. */
static LLVMValueRef defined_box(pt_cg *cg, const pt_stage *s)
{
	const pt_kernels *ks = cg->kernels;
	if (!ks || !ks->defined_lo || !ks->defined_lo[s->id][0])
		return NULL;
	LLVMTypeRef t = LLVMArrayType(cg->i64, (unsigned)(2 * s->ndim));
	LLVMValueRef box = cg_entry_alloca(cg, t);
	for (int d = 0; d < s->ndim; d++) {
		/* the params were checked: the domain's bounds do not overflow */
		LLVMValueRef some, base = cg_param_expr(cg, s->dom[d].lo);
		LLVMValueRef lo = LLVMBuildSub(cg->b, cg_pw_value(cg, ks->defined_lo[s->id][d], &some), base, "");
		LLVMValueRef hi = LLVMBuildSub(cg->b, cg_pw_value(cg, ks->defined_hi[s->id][d], NULL), base, "");
		/* nothing defined: first 1, last 0 */
		lo = LLVMBuildSelect(cg->b, some, lo, cg_i64(cg, 1), "");
		hi = LLVMBuildSelect(cg->b, some, hi, cg_i64(cg, 0), "");
		for (int k = 0; k < 2; k++) {
			LLVMValueRef idx[] = { cg_i64(cg, 0), cg_i64(cg, k * s->ndim + d) };
			LLVMBuildStore(cg->b, k ? hi : lo, LLVMBuildInBoundsGEP2(cg->b, t, box, idx, 2, ""));
		}
	}
	return box;
}

/* Binds every image and output buffer of f where the target has its
 * own addresses for them (their arrays then point there). */
static bound bind_buffers(pt_cg *cg, LLVMValueRef f)
{
	const pt_pipeline *p = cg->p;
	bound b = { .ok = LLVMConstInt(cg->i1, 1, 0) };
	if (!cg->target->bind || (cg->target->bind_streamed_only && !cg->streamed))
		return b;
	size_t n = (size_t)pt_entry_nargs(p) + 1;
	b.buf = calloc(n, sizeof(*b.buf));
	b.dev = calloc(n, sizeof(*b.dev));
	b.output = calloc(n, sizeof(*b.output));
	b.box = calloc(n, sizeof(*b.box));
	int arg = p->nparams;
	for (int i = 0; i < p->nimages + p->nstages; i++) {
		bool out = i >= p->nimages;
		if (out && !p->stages[i - p->nimages]->is_output)
			continue;
		cg_array *a = out ? &cg->stage[p->stages[i - p->nimages]->id] : &cg->image[p->images[i]->id];
		b.buf[b.n] = LLVMGetParam(f, (unsigned)arg++);
		b.output[b.n] = out;
		int role = !out ? PT_BIND_INPUT : cg_stage_defines_all(p->stages[i - p->nimages]) ? PT_BIND_OUTPUT :
			PT_BIND_OUTPUT_PARTIAL;
		b.box[b.n] = role == PT_BIND_OUTPUT_PARTIAL ? defined_box(cg, p->stages[i - p->nimages]) : NULL;
		a->ptr = b.dev[b.n] = cg->target->bind(cg, b.buf[b.n], role, b.box[b.n]);
		b.ok = LLVMBuildAnd(cg->b, b.ok, LLVMBuildIsNotNull(cg->b, a->ptr, ""), "");
		b.n++;
	}
	return b;
}

/* Ends the binding (outputs copied back) and frees the record. */
static void unbind_buffers(pt_cg *cg, bound *b)
{
	for (int i = 0; i < b->n && cg->target->unbind; i++)
		cg->target->unbind(cg, b->buf[i], b->output[i], b->dev[i], b->box[i]);
	free(b->box);
	free(b->buf);
	free(b->dev);
	free(b->output);
}

/* The intermediate stages' memory, and the masks: see below.  Returns
 * the array of what was allocated (*nmemp entries, NULL where none); a
 * failed allocation frees the others and returns from the function. */
static LLVMValueRef *alloc_intermediates(pt_cg *cg, LLVMValueRef *bytes, int *nmemp)
{
	const pt_pipeline *p = cg->p;
	/* intermediate stages: dense buffers, all or nothing (not zeroed: the
	 * schedule writes every point before a consumer reads it), one per
	 * slot of the storage plan, as large as its largest stage; then the
	 * masks (cg_array.mask), one per stage that needs one */
	const pt_storage *st = cg->storage;
	int nmem = *nmemp = st->nslots + p->nstages;
	LLVMValueRef *mem = calloc((size_t)nmem + 1, sizeof(*mem));
	int *users = calloc((size_t)st->nslots + 1, sizeof(int));
	for (int i = 0; i < p->nstages; i++) {
		int k = st->slot[p->stages[i]->id];
		if (k < 0 || !bytes[i])
			continue;
		users[k]++;
		mem[k] = !mem[k] ? bytes[i] : LLVMBuildSelect(cg->b,
			LLVMBuildICmp(cg->b, LLVMIntUGT, bytes[i], mem[k], ""), bytes[i], mem[k], "");
	}
	for (int k = 0; k < st->nslots; k++)
		if (mem[k])
			mem[k] = LLVMBuildNUWAdd(cg->b, mem[k], cg_i64(cg, CG_LOAD_PAD), "");
	for (int k = 0; k < nmem; k++) {
		int i = k - st->nslots;
		const pt_stage *s = i >= 0 ? p->stages[i] : NULL;
		LLVMValueRef n = s ? (bytes[i] && cg_stage_needs_mask(cg, s) ?
			LLVMBuildSDiv(cg->b, bytes[i], cg_i64(cg, (int64_t)pt_type_size((pt_type)s->type)), "") : NULL) : mem[k];
		mem[k] = NULL;
		if (!n)
			continue;
		LLVMValueRef ptr = mem[k] = cg_target_alloc(cg, n, placement_of(cg, k));
		LLVMBasicBlockRef bad = cg_block(cg, "nomem"), ok = cg_block(cg, "mem.ok");
		LLVMBuildCondBr(cg->b, LLVMBuildIsNull(cg->b, ptr, ""), bad, ok);
		LLVMPositionBuilderAtEnd(cg->b, bad);
		for (int j = 0; j < k; j++)
			if (mem[j])
				cg_target_free(cg, mem[j]);
		/* what the target's allocator recorded (a device's), else NOMEM */
		LLVMTypeRef none[1] = { cg->i32 };
		LLVMValueRef why = cg_call(cg, "pt_rt_take_error", cg->i32, none, NULL, 0);
		early_return(cg, LLVMBuildSelect(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, why, LLVMConstInt(cg->i32, 0, 0), ""),
			LLVMConstInt(cg->i32, (unsigned long long)(int64_t)PT_ERR_NOMEM, 1), why, ""));
		LLVMPositionBuilderAtEnd(cg->b, ok);
		if (s) {   /* no point defined yet */
			cg->stage[s->id].mask = ptr;
			cg_target_fill(cg, ptr, 0, n);
		}
	}
	for (int i = 0; i < p->nstages; i++) {
		int k = st->slot[p->stages[i]->id];
		if (k >= 0 && bytes[i]) {
			cg->stage[p->stages[i]->id].ptr = mem[k];
			cg->stage[p->stages[i]->id].shared = users[k] > 1;
			if (pt_type_size((pt_type)p->stages[i]->type) <= 2) {
				/* the bytes a widened load reads past the stage's end
				 * (expr.c) hold defined values, whatever runs first */
				LLVMValueRef end = bytes[i];
				LLVMValueRef at = LLVMBuildGEP2(cg->b, cg->i8, mem[k], &end, 1, "");
				if (on_host(cg))
					LLVMSetAlignment(LLVMBuildStore(cg->b, LLVMConstInt(cg->i32, 0, 0), at), 1);
				else
					cg_target_fill(cg, at, 0, cg_i64(cg, 4));
			}
		}
	}
	free(users);
	return mem;
}

static LLVMValueRef typed_function(pt_cg *cg, __isl_keep isl_ast_node *tree)
{
	const pt_pipeline *p = cg->p;
	int n = pt_entry_nargs(p), *order = malloc(sizeof(int) * (size_t)(p->nparams + 1));
	pt_entry_param_order(p, order);
	LLVMTypeRef *pt = malloc(sizeof(*pt) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		pt[i] = i < p->nparams ? cg_type(cg, p->params[order[i]].type) : cg->ptr;
	LLVMTypeRef fty = LLVMFunctionType(cg->i32, pt, (unsigned)n, 0);
	free(pt);
	LLVMValueRef f = LLVMAddFunction(cg->mod, cg->fname, fty);
	cg->fn = f;
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, f, "entry"));
	for (int i = 0; i < p->nparams; i++)
		cg->param[order[i]] = LLVMGetParam(f, (unsigned)i);
	int arg = p->nparams;
	for (int i = 0; i < n - p->nparams; i++)
		fail_if(cg, LLVMBuildIsNull(cg->b, LLVMGetParam(f, (unsigned)(p->nparams + i)), ""), PT_ERR_NULL);
	/* every extent once, from the params, in i64 without wrapping */
	LLVMValueRef (*box)[PT_MAX_DIMS] = calloc((size_t)p->nstages + 1, sizeof(*box));
	LLVMValueRef (*iext)[PT_MAX_DIMS] = calloc((size_t)p->nimages + 1, sizeof(*iext));
	LLVMValueRef ovf = NULL;
	for (int i = 0; i < p->nstages; i++)
		for (int d = 0; d < p->stages[i]->ndim; d++)
			box[i][d] = cg_checked_box_extent(cg, p->stages[i], d, &ovf);
	for (int i = 0; i < p->nimages; i++)
		for (int d = 0; d < p->images[i]->ndim; d++)
			iext[i][d] = cg_checked_param_expr(cg, p->images[i]->extent[d], &ovf);
	if (ovf)
		fail_if(cg, ovf, PT_ERR_PARAM);
	check_params(cg, box, iext);
	if (cg->target->partition)
		cg->target->partition(cg, box, iext);
	cg->narrow_ok = cg->target->narrow_gathers ? LLVMConstInt(cg->i1, 1, 0) : NULL;
	for (int i = 0; i < p->nimages; i++) {
		const pt_image *im = p->images[i];
		check_buffer(cg, LLVMGetParam(f, (unsigned)arg++), im->type, im->ndim, iext[i], &cg->image[im->id]);
	}
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		if (s->is_output) {
			check_buffer(cg, LLVMGetParam(f, (unsigned)arg++), s->type, s->ndim, box[i], &cg->stage[s->id]);
			cg->stage[s->id].stream = cg->target->stream_stores && cg->storage->stream && cg->storage->stream[s->id];
		}
	}
	LLVMValueRef *bytes = intermediate_sizes(cg, box);
	int nmem;
	LLVMValueRef *mem = alloc_intermediates(cg, bytes, &nmem);
	free(bytes);
	LLVMTypeRef none[1] = { cg->i32 };
	cg_call(cg, "pt_rt_take_error", cg->i32, none, NULL, 0);   /* a stale one is not ours */
	cg->streamed = cg_copy_plan_possible(cg, tree);
	bound b = bind_buffers(cg, f);
	/* the schedule runs in a kernel whose arrays are noalias */
	cg_closure c;
	cg_closure_capture(cg, &c, NULL);
	LLVMValueRef *args = malloc(sizeof(*args) * (size_t)(c.n + 1));
	for (int i = 0; i < c.n; i++)
		args[i] = *c.slot[i];
	LLVMBasicBlockRef resume = LLVMGetInsertBlock(cg->b);
	char name[300];
	snprintf(name, sizeof(name), "%s.body", cg->fname);
	LLVMValueRef body = cg_closure_function(cg, &c, name, NULL, 0);
	if (cg->target->run_begin)
		cg->target->run_begin(cg);
	cg_ast(cg, tree);
	LLVMBuildRetVoid(cg->b);
	cg_closure_restore(cg, &c);
	cg->fn = f;
	LLVMPositionBuilderAtEnd(cg->b, resume);
	LLVMBasicBlockRef run = cg_block(cg, "run"), ran = cg_block(cg, "ran");
	LLVMBuildCondBr(cg->b, b.ok, run, ran);
	LLVMPositionBuilderAtEnd(cg->b, run);
	assert(!cg->streamed || b.n == cg->kernels->stream->nbuf);
	LLVMValueRef plan = cg->streamed ? cg_copy_plan(cg, tree, b.n, b.buf, b.dev, b.output) : NULL;
	if (plan)
		cg->target->stream(cg, plan);
	LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(body), body, args, (unsigned)c.n, "");
	if (plan)
		cg->target->stream(cg, LLVMConstNull(cg->ptr));
	if (cg->target->run_end)
		cg->target->run_end(cg);
	LLVMBuildBr(cg->b, ran);
	LLVMPositionBuilderAtEnd(cg->b, ran);
	unbind_buffers(cg, &b);
	LLVMValueRef code = cg_call(cg, "pt_rt_take_error", cg->i32, none, NULL, 0);
	mark_outputs_written(cg, f);
	free(args);
	cg_closure_free(&c);
	for (int k = 0; k < nmem; k++)
		if (mem[k])
			cg_target_free(cg, mem[k]);
	free(mem);
	free(box);
	free(iext);
	LLVMBuildRet(cg->b, code);   /* 0, or what a run-time check found */
	free(order);
	return f;
}

void cg_entry_argv_params(pt_cg *cg, LLVMValueRef ip, LLVMValueRef fp, LLVMValueRef *args)
{
	const pt_pipeline *p = cg->p;
	int *order = malloc(sizeof(int) * (size_t)(p->nparams + 1));
	pt_entry_param_order(p, order);
	for (int i = 0; i < p->nparams; i++) {
		int q = order[i];
		bool is_int = pt_type_is_int(p->params[q].type);
		LLVMValueRef base = is_int ? ip : fp;
		LLVMValueRef idx = cg_i64(cg, q);
		LLVMValueRef v = LLVMBuildLoad2(cg->b, is_int ? cg->i64 : cg->f64,
			LLVMBuildInBoundsGEP2(cg->b, is_int ? cg->i64 : cg->f64, base, &idx, 1, ""), "");
		if (is_int && p->params[q].type != PT_I64) {
			/* an i64 that does not fit the param's type is refused, not
			 * truncated (2^32 + 62 would run as 62) */
			int64_t lo, hi;
			pt_type_range(p->params[q].type, &lo, &hi);
			LLVMValueRef bad = LLVMBuildOr(cg->b, LLVMBuildICmp(cg->b, LLVMIntSLT, v, cg_i64(cg, lo), ""),
				LLVMBuildICmp(cg->b, LLVMIntSGT, v, cg_i64(cg, hi), ""), "");
			fail_if(cg, bad, PT_ERR_PARAM);
		}
		args[i] = cg_convert(cg, v, is_int ? PT_I64 : PT_F64, p->params[q].type);
	}
	free(order);
}

/* NAME_argv(const int64_t *ip, const double *fp, const pt_buffer *const *in,
 * pt_buffer *const *out): params indexed by declaration order; the name
 * NAME + suffix, calling typed. */
static void argv_function(pt_cg *cg, LLVMValueRef typed, const char *suffix)
{
	const pt_pipeline *p = cg->p;
	char name[300];
	snprintf(name, sizeof(name), "%s%s", cg->fname, suffix);
	LLVMTypeRef pt[] = { cg->ptr, cg->ptr, cg->ptr, cg->ptr };
	LLVMValueRef f = LLVMAddFunction(cg->mod, name, LLVMFunctionType(cg->i32, pt, 4, 0));
	cg->fn = f;
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, f, "entry"));
	int n = pt_entry_nargs(p);
	LLVMValueRef *args = malloc(sizeof(*args) * (size_t)(n + 1));
	/* an array that has something to give must be there */
	bool has[4] = { false, false, p->nimages > 0, n > p->nparams + p->nimages };
	for (int q = 0; q < p->nparams; q++)
		has[pt_type_is_int(p->params[q].type) ? 0 : 1] = true;
	for (unsigned k = 0; k < 4; k++)
		if (has[k])
			fail_if(cg, LLVMBuildIsNull(cg->b, LLVMGetParam(f, k), ""), PT_ERR_NULL);
	cg_entry_argv_params(cg, LLVMGetParam(f, 0), LLVMGetParam(f, 1), args);
	int arg = p->nparams;
	for (int i = 0; i < p->nimages; i++) {
		LLVMValueRef idx = cg_i64(cg, i);
		args[arg++] = LLVMBuildLoad2(cg->b, cg->ptr, LLVMBuildInBoundsGEP2(cg->b, cg->ptr, LLVMGetParam(f, 2), &idx, 1, ""), "");
	}
	for (int i = 0; arg < n; i++) {
		LLVMValueRef idx = cg_i64(cg, i);
		args[arg++] = LLVMBuildLoad2(cg->b, cg->ptr, LLVMBuildInBoundsGEP2(cg->b, cg->ptr, LLVMGetParam(f, 3), &idx, 1, ""), "");
	}
	LLVMValueRef r = LLVMBuildCall2(cg->b, LLVMGlobalGetValueType(typed), typed, args, (unsigned)n, "");
	LLVMBuildRet(cg->b, r);
	free(args);
}

LLVMValueRef cg_local_flag(pt_cg *cg)
{
	char name[300];
	snprintf(name, sizeof(name), "%s.local", cg->fname);
	LLVMValueRef g = LLVMGetNamedGlobal(cg->mod, name);
	if (!g) {
		g = LLVMAddGlobal(cg->mod, cg->i8, name);
		LLVMSetInitializer(g, LLVMConstInt(cg->i8, 0, 0));
		LLVMSetLinkage(g, LLVMInternalLinkage);
	}
	return g;
}

/* NAME_local: NAME with the flag set that makes its buffers the rank's
 * parts (one call at a time: MPI's calling thread). */
static LLVMValueRef local_function(pt_cg *cg, LLVMValueRef typed)
{
	char name[300];
	snprintf(name, sizeof(name), "%s_local", cg->fname);
	LLVMTypeRef fty = LLVMGlobalGetValueType(typed);
	LLVMValueRef f = LLVMAddFunction(cg->mod, name, fty);
	cg->fn = f;
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, f, "entry"));
	unsigned n = LLVMCountParams(f);
	LLVMValueRef *args = malloc(sizeof(*args) * (n + 1));
	for (unsigned i = 0; i < n; i++)
		args[i] = LLVMGetParam(f, i);
	LLVMBuildStore(cg->b, LLVMConstInt(cg->i8, 1, 0), cg_local_flag(cg));
	LLVMValueRef r = LLVMBuildCall2(cg->b, fty, typed, args, n, "");
	LLVMBuildStore(cg->b, LLVMConstInt(cg->i8, 0, 0), cg_local_flag(cg));
	LLVMBuildRet(cg->b, r);
	free(args);
	return f;
}

void pt_entry_emit(pt_cg *cg, __isl_keep isl_ast_node *tree)
{
	LLVMValueRef typed = typed_function(cg, tree);
	argv_function(cg, typed, "_argv");
	if (cg->target->part_function) {
		argv_function(cg, local_function(cg, typed), "_local_argv");
		cg->target->part_function(cg);
	}
	/* int32_t NAME_abi_version(void): what a loader checks before
	 * calling (a function, not a constant: the pieces of a split module
	 * each keep their globals, split.c) */
	char name[300];
	snprintf(name, sizeof(name), "%s_abi_version", cg->fname);
	LLVMValueRef f = LLVMAddFunction(cg->mod, name, LLVMFunctionType(cg->i32, NULL, 0, 0));
	LLVMPositionBuilderAtEnd(cg->b, LLVMAppendBasicBlockInContext(cg->llc, f, "entry"));
	LLVMBuildRet(cg->b, LLVMConstInt(cg->i32, PT_ABI_VERSION, 0));
}
