/* storage.c: folding and reuse of intermediate stages' full buffers (see
 * storage.h). */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "access.h"
#include "diag.h"
#include "storage.h"

/* Folding modulo more than this saves too little to be worth an index
 * computation per access. */
#define MAX_FOLD 64

static int stmt_index(const pt_model *m, const char *name)
{
	for (int k = 0; name && k < m->stmts->n; k++)
		if (!strcmp(m->stmts->s[k].name, name))
			return k;
	return -1;
}

/* ---- the parts of the schedule's top-level sequence ---- */

typedef struct parts {
	const pt_model *m;
	int *pos;               /* per statement index */
	int i;
} parts;

static isl_stat note_part(__isl_take isl_set *set, void *user)
{
	parts *ps = user;
	int k = stmt_index(ps->m, isl_set_get_tuple_name(set));
	if (k >= 0)
		ps->pos[k] = ps->i;
	isl_set_free(set);
	return isl_stat_ok;
}

/* Per statement, the index of the top-level part it runs in (all 0 when
 * the schedule is not a sequence at the top). */
static int *stmt_parts(const pt_model *m, __isl_keep isl_schedule *sched)
{
	parts ps = { m, calloc((size_t)m->stmts->n + 1, sizeof(int)), 0 };
	isl_schedule_node *n = isl_schedule_get_root(sched);
	if (isl_schedule_node_has_children(n) == isl_bool_true)
		n = isl_schedule_node_child(n, 0);
	if (isl_schedule_node_get_type(n) == isl_schedule_node_sequence) {
		isl_size nc = isl_schedule_node_n_children(n);
		for (ps.i = 0; ps.i < nc; ps.i++) {
			isl_schedule_node *c = isl_schedule_node_get_child(n, ps.i);
			isl_union_set *f = isl_schedule_node_filter_get_filter(c);
			isl_union_set_foreach_set(f, note_part, &ps);
			isl_union_set_free(f);
			isl_schedule_node_free(c);
		}
	}
	isl_schedule_node_free(n);
	return ps.pos;
}

/* ---- who reads an array, and where ---- */

typedef struct readers {
	const pt_model *m;
	const int *pos;
	const char *array;
	int self;               /* the statement whose reads are kept apart; -1: none */
	isl_map *self_reads;    /* its instances -> elements, or NULL */
	isl_union_set *other;   /* elements the other statements read */
	int last;               /* the last part that reads the array */
	bool other_same_part;   /* another statement reads it in self's part */
} readers;

static isl_stat note_read(__isl_take isl_map *map, void *user)
{
	readers *r = user;
	const char *out = isl_map_get_tuple_name(map, isl_dim_out);
	int k = stmt_index(r->m, isl_map_get_tuple_name(map, isl_dim_in));
	if (!out || k < 0 || strcmp(out, r->array)) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	r->last = r->pos[k] > r->last ? r->pos[k] : r->last;
	if (k == r->self) {
		r->self_reads = r->self_reads ? isl_map_union(r->self_reads, map) : map;
		return isl_stat_ok;
	}
	r->other_same_part |= r->self >= 0 && r->pos[k] == r->pos[r->self];
	r->other = isl_union_set_add_set(r->other, isl_map_range(map));
	return isl_stat_ok;
}

static isl_stat note_write(__isl_take isl_map *map, void *user)
{
	readers *r = user;
	if (stmt_index(r->m, isl_map_get_tuple_name(map, isl_dim_in)) == r->self)
		r->other = isl_union_set_add_set(r->other, isl_map_range(map));
	else
		isl_map_free(map);
	return isl_stat_ok;
}

/* ---- folding ---- */

/* The optimum of dimension 0 of d (taken) over every parameter value:
 * an integer in *v, false when unbounded or d is empty. */
static bool dim0_opt(__isl_take isl_set *d, bool max, long *v)
{
	isl_size n = isl_set_dim(d, isl_dim_set);
	d = isl_set_project_out(d, isl_dim_set, 1, (unsigned)(n - 1));
	if (!d || isl_set_is_empty(d) != isl_bool_false) {
		isl_set_free(d);
		return false;
	}
	isl_aff *x0 = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(d)), isl_dim_set, 0);
	isl_val *x = max ? isl_set_max_val(d, x0) : isl_set_min_val(d, x0);
	bool ok = x && isl_val_is_int(x);
	if (ok)
		*v = isl_val_get_num_si(x);
	isl_val_free(x);
	isl_aff_free(x0);
	isl_set_free(d);
	return ok;
}

/* Whether the instances of statement k run in increasing order of their
 * dimension 0 under sched: no p, q with p0 < q0 and sched(p) >= sched(q). */
static bool runs_in_order(const pt_model *m, int k, __isl_keep isl_schedule *sched)
{
	isl_union_map *um = isl_schedule_get_map(sched);
	um = isl_union_map_intersect_domain(um, isl_union_set_from_set(isl_set_copy(m->stmts->s[k].domain)));
	isl_map *s = isl_map_from_union_map(um);
	isl_map *bad = isl_map_lex_ge_map(isl_map_copy(s), s);
	bad = isl_map_order_lt(bad, isl_dim_in, 0, isl_dim_out, 0);
	bool ok = bad && isl_map_is_empty(bad) == isl_bool_true;
	isl_map_free(bad);
	return ok;
}

/* The m by which stage f (computed by statement k alone) can be folded,
 * or 0 (see storage.h). */
static int fold_of(const pt_model *m, int k, __isl_keep isl_schedule *sched, const int *pos, int *last)
{
	const pt_stmt *st = &m->stmts->s[k];
	const pt_stage *f = st->stage;
	readers r = { m, pos, f->name, k, NULL, isl_union_set_empty(isl_set_get_space(m->context)), pos[k], false };
	isl_union_map_foreach_map(m->reads, note_read, &r);
	*last = r.last;
	int fold = 0;
	long self = 0, ext = 0;
	bool ok = r.self_reads && !r.other_same_part;
	if (ok) {
		/* read back at most self steps, never ahead, at least one back
		 * (else dimension 0 could run in parallel) */
		isl_map *sr = isl_map_set_tuple_id(r.self_reads, isl_dim_out, isl_map_get_tuple_id(r.self_reads, isl_dim_in));
		isl_set *d = isl_map_deltas(sr);   /* element - instance */
		r.self_reads = NULL;
		long hi = 1, lo = 0;
		ok = dim0_opt(isl_set_copy(d), true, &hi) && hi <= 0 && dim0_opt(isl_set_copy(d), false, &lo) && lo <= -1;
		isl_set_free(d);
		self = -lo;
	}
	if (ok) {
		/* the other readers: how far past an element they read f writes */
		readers w = { m, pos, f->name, k, NULL, isl_union_set_empty(isl_set_get_space(m->context)), 0, false };
		isl_union_map_foreach_map(m->writes, note_write, &w);
		isl_space *sp = isl_space_set_tuple_name(isl_set_get_space(st->domain), isl_dim_set, f->name);
		/* extract_set keeps its union set: w.other is freed here, r.other below */
		isl_set *wr = isl_union_set_extract_set(w.other, isl_space_copy(sp));
		isl_union_set_free(w.other);
		isl_set *rd = isl_union_set_extract_set(r.other, sp);
		isl_map *later = isl_map_from_domain_and_range(rd, wr);
		for (int d = 1; d < f->ndim; d++)
			later = isl_map_equate(later, isl_dim_in, d, isl_dim_out, d);
		if (isl_map_is_empty(later) != isl_bool_true)
			ok = dim0_opt(isl_map_deltas(isl_map_copy(later)), true, &ext);
		isl_map_free(later);
	}
	isl_map_free(r.self_reads);
	isl_union_set_free(r.other);
	long mod = (self > ext ? self : ext) + 1;
	if (ok && mod <= MAX_FOLD && runs_in_order(m, k, sched))
		fold = (int)mod;
	return fold;
}

/* ---- the plan ---- */

double pt_storage_box_bytes(const pt_stage *s, const int64_t *ip, int fold)
{
	double n = (double)pt_type_size((pt_type)s->type);
	for (int d = 0; d < s->ndim; d++) {
		int64_t lo, hi;
		double e = pt_interval_eval(&s->dom[d], ip, &lo, &hi) && hi >= lo ? (double)(hi - lo + 1) : 0;
		n *= d == 0 && fold && e > fold ? fold : e;
	}
	return n;
}

/* Slots by lifetime: greedy in order of first write, best fit by size. */
static void assign_slots(pt_storage *s, const pt_pipeline *p)
{
	int n = p->nstages;
	int *order = malloc(sizeof(int) * (size_t)(n + 1)), no = 0;
	int *busy_until = malloc(sizeof(int) * (size_t)(n + 1));
	double *size = calloc((size_t)n + 1, sizeof(double));
	for (int i = 0; i < n; i++)
		if (s->slot[i] == 0)
			order[no++] = i;
	for (int a = 1; a < no; a++)
		for (int b = a; b > 0 && s->first[order[b]] < s->first[order[b - 1]]; b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	for (int a = 0; a < no; a++) {
		int i = order[a], best = -1;
		for (int k = 0; k < s->nslots; k++) {
			if (busy_until[k] >= s->first[i])
				continue;
			double waste = size[k] >= s->bytes[i] ? size[k] - s->bytes[i] : 2 * (s->bytes[i] - size[k]);
			double bw = best < 0 ? 0 : size[best] >= s->bytes[i] ? size[best] - s->bytes[i] : 2 * (s->bytes[i] - size[best]);
			if (best < 0 || waste < bw)
				best = k;
		}
		if (best < 0)
			best = s->nslots++;
		s->slot[i] = best;
		busy_until[best] = s->last[i];
		size[best] = s->bytes[i] > size[best] ? s->bytes[i] : size[best];
	}
	for (int k = 0; k < s->nslots; k++)
		s->peak_bytes += size[k];
	free(order);
	free(busy_until);
	free(size);
}

/* ---- an output that copies one plane of an intermediate ---- */

static bool is_var_expr(const pt_expr *e, const void *data)
{
	(void)data;
	return e->kind == PT_E_VAR || e->kind == PT_E_CALL;
}

/* f when output o is o(X) = f(c, X) as storage.h says, else NULL. */
static const pt_stage *plane_source(const pt_stage *o)
{
	if (!o->is_output || o->red != PT_RED_NONE || o->ncases != 1 || o->cases[0].cond || o->ndim == 0)
		return NULL;
	const pt_expr *e = o->cases[0].value;
	if (e->kind != PT_E_CALL || !e->stage || e->stage == o || e->nargs != o->ndim + 1)
		return NULL;
	const pt_stage *f = e->stage;
	if (f->is_output || f->red != PT_RED_NONE || f->type != o->type || f->ndim != o->ndim + 1)
		return NULL;
	for (int d = 0; d < o->ndim; d++)
		if (e->args[d + 1]->kind != PT_E_VAR || e->args[d + 1]->index != d)
			return NULL;
	return pt_expr_any(e->args[0], is_var_expr, NULL) ? NULL : f;
}

typedef struct plane_reads {
	const pt_model *m;
	const pt_stage *f, *o;
	isl_union_set *by_o, *by_others;
} plane_reads;

static isl_stat note_plane_read(__isl_take isl_map *map, void *user)
{
	plane_reads *r = user;
	int k = stmt_index(r->m, isl_map_get_tuple_name(map, isl_dim_in));
	const char *arr = isl_map_get_tuple_name(map, isl_dim_out);
	if (k < 0 || !arr || strcmp(arr, r->f->name)) {
		isl_map_free(map);
		return isl_stat_ok;
	}
	isl_set *els = isl_map_range(map);
	if (r->m->stmts->s[k].stage == r->o)
		r->by_o = isl_union_set_add_set(r->by_o, els);
	else
		r->by_others = isl_union_set_add_set(r->by_others, els);
	return isl_stat_ok;
}

/* Whether o's domain is f's without dimension 0, for the admissible
 * params. */
static bool same_plane_domain(const pt_model *m, const pt_stage *f, const pt_stage *o)
{
	isl_ctx *ctx = isl_set_get_ctx(m->context);
	isl_set *fd = pt_poly_iter_domain(ctx, m->p, f), *od = pt_poly_iter_domain(ctx, m->p, o);
	if (!fd || !od) {
		isl_set_free(fd);
		isl_set_free(od);
		return false;
	}
	fd = isl_set_reset_tuple_id(isl_set_project_out(fd, isl_dim_set, 0, 1));
	od = isl_set_reset_tuple_id(od);
	fd = isl_set_intersect_params(fd, isl_set_copy(m->context));
	od = isl_set_intersect_params(od, isl_set_copy(m->context));
	bool eq = isl_set_is_equal(fd, od) == isl_bool_true;
	isl_set_free(fd);
	isl_set_free(od);
	return eq;
}

/* plane_out (storage.h) for every output of m. */
static void planes_in_place(pt_storage *s, const pt_model *m)
{
	const pt_pipeline *p = m->p;
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *o = p->stages[i], *f = plane_source(o);
		if (!f || s->slot[f->id] < 0 || s->plane_out[f->id] >= 0 || !same_plane_domain(m, f, o))
			continue;
		plane_reads r = { m, f, o, isl_union_set_empty(isl_set_get_space(m->context)),
			isl_union_set_empty(isl_set_get_space(m->context)) };
		isl_union_map_foreach_map(m->reads, note_plane_read, &r);
		isl_union_set *both = isl_union_set_intersect(r.by_o, r.by_others);
		both = isl_union_set_intersect_params(both, isl_set_copy(m->context));
		if (isl_union_set_is_empty(both) == isl_bool_true)
			s->plane_out[f->id] = o->id;
		isl_union_set_free(both);
	}
}

pt_storage *pt_storage_plan(const pt_model *m, __isl_keep isl_schedule *sched, const int64_t *ip)
{
	const pt_pipeline *p = m->p;
	int n = p->nstages;
	pt_storage *s = calloc(1, sizeof(*s));
	s->nstages = n;
	s->fold = calloc((size_t)n + 1, sizeof(int));
	s->fold_steps = calloc((size_t)n + 1, sizeof(int));
	s->slot = malloc(sizeof(int) * (size_t)(n + 1));
	s->first = malloc(sizeof(int) * (size_t)(n + 1));
	s->last = malloc(sizeof(int) * (size_t)(n + 1));
	s->bytes = calloc((size_t)n + 1, sizeof(double));
	s->plane_out = malloc(sizeof(int) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		s->plane_out[i] = -1;
	int *pos = stmt_parts(m, sched);
	for (int i = 0; i < n; i++) {
		const pt_stage *f = p->stages[i];
		bool full = !f->is_output && !pt_tiling_is_scratch(m->tiling, f);
		s->slot[i] = full ? 0 : -1;   /* 0: to assign */
		s->first[i] = s->last[i] = -1;
		int k1 = -1, nst = 0;
		for (int k = 0; k < m->stmts->n; k++) {
			if (m->stmts->s[k].stage != f)
				continue;
			k1 = k;
			nst++;
			s->first[i] = s->first[i] < 0 || pos[k] < s->first[i] ? pos[k] : s->first[i];
			s->last[i] = pos[k] > s->last[i] ? pos[k] : s->last[i];
		}
		if (!full)
			continue;
		int last = s->last[i];
		if (nst == 1 && f->red == PT_RED_NONE && m->stmts->s[k1].ntile == 0 && m->stmts->s[k1].nvars == f->ndim)
			s->fold[i] = fold_of(m, k1, sched, pos, &last);
		else {
			if (pt_tiling_is_time_tiled(m->tiling, f)) {
				/* exact by the time tiling's rule (grouping/
				 * time_tile.h): other stages read only the last step */
				s->fold[i] = 2;
				s->fold_steps[i] = pt_tiling_group(m->tiling, f)->tsteps;
			}
			readers r = { m, pos, f->name, -1, NULL, isl_union_set_empty(isl_set_get_space(m->context)), last, false };
			isl_union_map_foreach_map(m->reads, note_read, &r);
			isl_union_set_free(r.other);
			last = r.last;
		}
		s->last[i] = last;
		s->bytes[i] = pt_storage_box_bytes(f, ip, s->fold[i]);
		s->naive_bytes += pt_storage_box_bytes(f, ip, 0);
	}
	free(pos);
	assign_slots(s, p);
	planes_in_place(s, m);
	return s;
}

void pt_storage_free(pt_storage *s)
{
	if (!s)
		return;
	free(s->fold);
	free(s->fold_steps);
	free(s->plane_out);
	free(s->slot);
	free(s->first);
	free(s->last);
	free(s->bytes);
	free(s->stream);
	free(s->place);
	free(s);
}

void pt_storage_place(pt_storage *s, const pt_pipeline *p, const pt_tiling *t, pt_placement full)
{
	free(s->place);
	s->place = calloc((size_t)s->nstages + 1, sizeof(*s->place));
	for (int i = 0; i < s->nstages && i < p->nstages; i++)
		s->place[i] = pt_tiling_is_scratch(t, p->stages[i]) ? PT_PLACE_SCRATCH : full;
}

const char *pt_placement_name(pt_placement pl)
{
	static const char *const names[] = { "scratch", "host", "device", "partition" };
	return pl >= PT_PLACE_SCRATCH && pl <= PT_PLACE_PARTITION ? names[pl] : "?";
}

/* Whether some stage of p reads f. */
static bool read_by_a_stage(const pt_pipeline *p, const pt_stage *f)
{
	bool own = true, read = false;
	for (int i = 0; i < p->nstages && !read; i++) {
		const pt_stage *s = p->stages[i];
		read = pt_expr_reads_stage(s->init, f, &own);
		for (int k = 0; k < s->ncases; k++) {
			read |= pt_expr_reads_stage(s->cases[k].cond, f, &own) | pt_expr_reads_stage(s->cases[k].value, f, &own);
			for (int d = 0; s->cases[k].target && d < s->ndim; d++)
				read |= pt_expr_reads_stage(s->cases[k].target[d], f, &own);
		}
	}
	return read;
}

void pt_storage_mark_streams(pt_storage *s, const pt_pipeline *p, const pt_tiling *t,
	const int64_t *ip, double min_bytes)
{
	free(s->stream);
	s->stream = calloc((size_t)s->nstages + 1, sizeof(bool));
	if (!t || !(min_bytes > 0))
		return;
	for (int i = 0; i < p->nstages; i++) {
		const pt_stage *f = p->stages[i];
		if (!f->is_output || f->red != PT_RED_NONE || f->ndim < 1 || read_by_a_stage(p, f))
			continue;
		const pt_group *g = pt_tiling_group(t, f);
		int k = pt_group_tile_of_dim(g, t->index_in_group[f->id], f->ndim - 1);
		if (k >= 0) {
			int64_t sc = g->scale[t->index_in_group[f->id]][f->ndim - 1];
			if ((double)(g->tsize[k] / sc) * (double)pt_type_size((pt_type)f->type) < 64)
				continue;
		}
		s->stream[f->id] = pt_storage_box_bytes(f, ip, 0) >= min_bytes;
	}
}

void pt_storage_bytes_text(pt_strbuf *b, double bytes)
{
	if (bytes >= 1e6)
		pt_sb_printf(b, "%.1f MB", bytes / 1e6);
	else
		pt_sb_printf(b, "%.1f KB", bytes / 1e3);
}

char *pt_storage_str(const pt_storage *s, const pt_pipeline *p)
{
	pt_strbuf b = {0};
	for (int i = 0; i < s->nstages; i++) {
		if (s->slot[i] < 0)
			continue;
		pt_sb_printf(&b, "%s: slot %d, parts %d..%d, ", p->stages[i]->name, s->slot[i], s->first[i], s->last[i]);
		pt_storage_bytes_text(&b, s->bytes[i]);
		if (s->fold[i] && s->fold_steps[i] > 1)
			pt_sb_printf(&b, ", dimension 0 kept modulo %d by blocks of %d steps", s->fold[i], s->fold_steps[i]);
		else if (s->fold[i])
			pt_sb_printf(&b, ", dimension 0 kept modulo %d", s->fold[i]);
		if (s->plane_out[i] >= 0)
			pt_sb_printf(&b, ", the plane %s reads written in its buffer", p->stages[s->plane_out[i]]->name);
		pt_sb_printf(&b, "\n");
	}
	pt_sb_printf(&b, "full buffers: %d slot%s, ", s->nslots, s->nslots == 1 ? "" : "s");
	pt_storage_bytes_text(&b, s->peak_bytes);
	pt_sb_printf(&b, " at the estimates (one buffer per stage: ");
	pt_storage_bytes_text(&b, s->naive_bytes);
	pt_sb_printf(&b, ")\n");
	for (int i = 0; s->stream && i < s->nstages; i++)
		if (s->stream[i])
			pt_sb_printf(&b, "%s: streamed (non-temporal stores)\n", p->stages[i]->name);
	return pt_sb_take(&b);
}
