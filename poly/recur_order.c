/* recur_order.c: strips and the innermost loop of a recurrence's nest.
 *
 * A self-read of stage P keeps its own coordinate along a dimension j
 * (self_fixed[j]): no dependence of P crosses two values of y_j, so the
 * nest may cut y_j into strips floor(y_j / B) run in parallel outside
 * everything, and may move y_j to any position, the other dimensions
 * keeping their order (which carries the recurrence).  Where the
 * domain's order runs a parallel loop per step, or none:
 *   - the outermost dimension carries the recurrence (a running sum
 *     P(x, y) from P(x-1, y)): a fork and join per step; strips of the
 *     first kept dimension outside, the order kept (the innermost loop,
 *     when it is kept, still parallel and vectorized);
 *   - the innermost dimension carries the recurrence (a filter along
 *     the rows, P(c, x, y) from P(c, x, y-1)): the innermost loop is
 *     serial, one point per latency of the update; the last kept
 *     dimension that is not a narrow one (narrow()) goes innermost, a
 *     parallel loop across rows, in narrow strips.
 * A recurrence whose innermost dimension is kept and whose outermost is
 * too (a filter down the columns of 3 planes, P(c, x, y) from
 * P(c, x-1, y)) keeps the domain's order: the planes in parallel, whole
 * rows inside (strips of 256 columns, in parallel, ran it 8% slower at
 * 1 thread). */
#include <stdint.h>

#include <isl/ilp.h>
#include <isl/set.h>
#include <isl/val.h>

#include "recur_order.h"

/* Strips of a contiguous kept dimension: a multiple of any vector width,
 * and 1 KB of floats per row (a 2048-column running sum at 2 threads:
 * 2.7-3.6 ms against 3.6-16 ms with 64, the naive nest 7.5-13 ms; a
 * narrower strip reads fewer lines per page, and the prefetcher follows
 * it less). */
#define PT_RECUR_STRIP 256
/* Strips of a kept dimension moved innermost: its points are a row apart,
 * so each step of the recurrence reads and writes a cache line per point
 * of the strip, and each line serves 16 steps (floats).  LLVM does not
 * vectorize the loop (it versions it for a unit row stride, and runs the
 * scalar loop), but its points are independent, so the core overlaps
 * their updates.  Measured on iir_blur's row pass (1536 x 2560 x 3 f32,
 * 1 thread, CPU ms): width 1 (the domain's order) 53, 2: 31, 4: 17,
 * 8: 15-18, 16: 28, 64: 57, 256: 70: a few rows at a time stay within
 * what the prefetcher follows (a stream per row). */
#define PT_RECUR_STRIP_STRIDED 8

/* Whether dimension d of the statements s[idx[0..n)] spans at most
 * width points for all params (a plane index 0 .. 2): a strip of it is
 * the whole range, and its loop moved innermost would leave every
 * parallel loop inside the recurrence. */
static bool narrow(const pt_stmt *s, const int *idx, int n, int d, unsigned width)
{
	int64_t lo = 0, hi = 0;
	for (int i = 0; i < n; i++) {
		isl_set *dom = isl_set_copy(s[idx[i]].domain);
		dom = isl_set_project_out(dom, isl_dim_param, 0, (unsigned)isl_set_dim(dom, isl_dim_param));
		int pos = s[idx[i]].ntile + d;
		isl_val *a = isl_set_dim_min_val(isl_set_copy(dom), pos), *b = isl_set_dim_max_val(dom, pos);
		bool ok = a && b && isl_val_is_int(a) && isl_val_is_int(b);
		if (ok) {
			lo = i == 0 || isl_val_get_num_si(a) < lo ? isl_val_get_num_si(a) : lo;
			hi = i == 0 || isl_val_get_num_si(b) > hi ? isl_val_get_num_si(b) : hi;
		}
		isl_val_free(a);
		isl_val_free(b);
		if (!ok)
			return false;
	}
	return hi - lo < (int64_t)width;
}

pt_recur_order pt_poly_recur_order(const pt_stmt *s, const int *idx, int n)
{
	pt_recur_order o = { -1, 0, -1 };
	const pt_stmt *t = &s[idx[0]];
	const pt_stage *st = t->stage;
	int nd = st->ndim;
	if (t->kind != PT_STMT_FUNC || t->split > 1 || nd < 2 || !pt_stage_reads(st, st))
		return o;
	int first = -1, wide = -1;
	bool carried = false;
	for (int d = 0; d < nd; d++) {
		carried |= !st->self_fixed[d];
		if (!st->self_fixed[d])
			continue;
		if (first < 0)
			first = d;
		if (!narrow(s, idx, n, d, PT_RECUR_STRIP_STRIDED))
			wide = d;
	}
	if (first < 0 || !carried)
		return o;
	if (!st->self_fixed[nd - 1] && wide >= 0) {
		o.strip = o.last = wide;
		o.width = PT_RECUR_STRIP_STRIDED;
	} else if (!st->self_fixed[0]) {
		o.strip = first;
		o.width = PT_RECUR_STRIP;
	}
	return o;
}
