/* dist_memory.c: the bytes of intermediate arrays each rank holds under
 * partitioned memory (distribute.h pt_dist_place), as the generated code
 * allocates them (codegen/mpi.c, entry.c), so that `explain --backend
 * mpi` predicts what the runtime counts (pt_mpi_held_all). */
#include <stdlib.h>

#include "dist_priv.h"
#include "isl_expr.h"

/* Stage s's elements on rank parts row (a partitioned stage: the hull of
 * its non-empty boxes, else its domain box), dim 0 at fold steps when
 * folded; 0 when the rank holds none. */
static int64_t elements(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const pt_stage *s, const pt_storage *st,
	int fold, const int64_t *ip, const int64_t *parts)
{
	int64_t lo[PT_MAX_DIMS], hi[PT_MAX_DIMS];
	bool some = false;
	for (int k = 0; k < s->ndim; k++)
		if (!pt_interval_eval(&s->dom[k], ip, &lo[k], &hi[k]))
			return 0;
	if (st->place[s->id] == PT_PLACE_PARTITION) {
		int n;
		const pt_dist_box **bs = pt_dist_partition_boxes(d, ks, s, &n);
		for (int i = 0; i < n; i++) {
			int64_t b[2 * PT_MAX_DIMS];
			pt_dist_box_at(bs[i], m->p, ip, parts, b);
			bool empty = false;
			for (int k = 0; k < s->ndim; k++)
				empty = empty || b[2 * k] > b[2 * k + 1];
			for (int k = 0; k < s->ndim && !empty; k++) {
				if ((k == 0 && fold) || !pt_dist_dim_split(bs, n, k))
					continue;   /* whole: fold steps, or the same on every rank */
				lo[k] = some && lo[k] < b[2 * k] ? lo[k] : b[2 * k];
				hi[k] = some && hi[k] > b[2 * k + 1] ? hi[k] : b[2 * k + 1];
			}
			some = some || !empty;
		}
		free(bs);
		if (!some)
			return 0;
	}
	int64_t n = 1;
	for (int k = 0; k < s->ndim; k++)
		n *= k == 0 && fold ? fold : hi[k] >= lo[k] ? hi[k] - lo[k] + 1 : 0;
	return n;
}

int64_t pt_dist_held(const pt_dist *d, const pt_model *m, const pt_kernels *ks, const pt_storage *st, const int64_t *ip,
	int r, int R)
{
	const pt_pipeline *p = m->p;
	int64_t *parts = calloc((size_t)PT_DIST_SLOTS * (size_t)d->n + 1, sizeof(int64_t));
	int64_t *slot = calloc((size_t)st->nslots + 1, sizeof(int64_t)), held = 0;
	bool *used = calloc((size_t)st->nslots + 1, sizeof(bool));
	isl_ctx *ctx = isl_set_get_ctx(m->context);
	pt_dist_parts(d, p, ip, r, R, parts);
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *s = p->stages[i];
		int k = st->slot[s->id];
		if (s->is_output || k < 0)
			continue;
		/* as entry.c: a stage with a mask is not folded, its mask a
		 * byte per element */
		bool mask = !s->red && pt_poly_stage_undecided(ctx, p, s);
		int64_t n = elements(d, m, ks, s, st, mask ? 0 : st->fold[s->id], ip, parts);
		int64_t bytes = n * (int64_t)pt_type_size((pt_type)s->type);
		slot[k] = used[k] && slot[k] > bytes ? slot[k] : bytes;
		used[k] = true;
		held += mask ? n : 0;
	}
	for (int k = 0; k < st->nslots; k++)
		held += used[k] ? slot[k] + PT_STORAGE_PAD : 0;
	free(parts);
	free(slot);
	free(used);
	return held;
}
