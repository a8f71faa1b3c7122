/* bounds.c: the static bounds check.  For each access and each dimension
 * whose index isl represents exactly, the points where it is evaluated
 * and the index falls outside the callee's interval (or off its steps)
 * must be empty for admissible params; otherwise the error shows one such
 * point, with small params.  A data-dependent index must likewise stay
 * inside the interval by the bounds of its values (frontend/range.h, with
 * isl's); its error shows the range it may take and a clamp. */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/point.h>
#include <isl/val.h>

#include "access.h"
#include "bounds.h"
#include "index_range.h"
#include "isl_expr.h"

typedef struct checker {
	pt_diag *d;
	const pt_pipeline *p;
	const pt_stage *s;
	isl_set *admissible;    /* params */
	/* per stage id: the points of its domain no case defines, when its
	 * conditions are affine (else NULL: checked at run time) */
	isl_set **undefined;
	bool ok;
} checker;

/* The points of function f's domain where no case holds, as a set named
 * f; NULL when every point is defined (a case without condition: plain
 * `=`, or an `else`) or a condition is not affine (reads data, floats). */
static __isl_give isl_set *undefined_points(isl_ctx *ctx, const pt_pipeline *p, const pt_stage *f)
{
	if (f->red)
		return NULL;
	for (int c = 0; c < f->ncases; c++)
		if (!f->cases[c].cond || pt_expr_has_call(f->cases[c].cond) || pt_case_is_else(f, c))
			return NULL;
	isl_space *sp = pt_poly_stage_space(ctx, p, f, f->ndim);
	isl_set *u = pt_poly_domain_set(sp, f);
	for (int c = 0; u && c < f->ncases; c++) {
		isl_set *k = pt_poly_cond_set(sp, f->cases[c].cond);
		u = k ? isl_set_subtract(u, k) : isl_set_free(u);
	}
	isl_space_free(sp);
	if (u && isl_set_is_empty(u) == isl_bool_true)
		u = isl_set_free(u);
	return u ? isl_set_set_tuple_name(u, f->name) : NULL;
}

static __isl_give isl_pw_aff *constant(__isl_keep isl_space *sp, long v)
{
	return isl_pw_aff_val_on_domain(isl_set_universe(isl_space_copy(sp)),
		isl_val_int_from_si(isl_space_get_ctx(sp), v));
}

/* The callee's interval in dimension d as bounds on sp (images:
 * 0 .. extent - 1); NULL for a bound that is not affine. */
static void callee_bounds(__isl_keep isl_space *sp, const pt_expr *call, int d,
	__isl_give isl_pw_aff **lo, __isl_give isl_pw_aff **hi)
{
	if (call->stage) {
		*lo = pt_poly_pw_aff(sp, call->stage->dom[d].lo);
		*hi = pt_poly_pw_aff(sp, call->stage->dom[d].hi);
	} else {
		*lo = constant(sp, 0);
		*hi = pt_poly_pw_aff(sp, call->image->extent[d]);
		*hi = *hi ? isl_pw_aff_sub(*hi, constant(sp, 1)) : NULL;
	}
}

/* The points of sp where index idx lies outside the callee's dimension d
 * (below, above, or off the steps); NULL if a bound is not affine. */
static __isl_give isl_set *outside(__isl_keep isl_space *sp, __isl_keep isl_pw_aff *idx,
	const pt_expr *call, int d)
{
	isl_pw_aff *lo, *hi;
	int64_t step = call->stage ? call->stage->dom[d].step : 1;
	callee_bounds(sp, call, d, &lo, &hi);
	if (!lo || !hi) {
		isl_pw_aff_free(lo);
		isl_pw_aff_free(hi);
		return NULL;
	}
	isl_set *bad = isl_set_union(isl_pw_aff_lt_set(isl_pw_aff_copy(idx), isl_pw_aff_copy(lo)),
		isl_pw_aff_gt_set(isl_pw_aff_copy(idx), hi));
	if (step > 1) {
		isl_val *st = isl_val_int_from_si(isl_space_get_ctx(sp), (long)step);
		isl_pw_aff *off = isl_pw_aff_mod_val(isl_pw_aff_sub(isl_pw_aff_copy(idx), isl_pw_aff_copy(lo)), st);
		bad = isl_set_union(bad, isl_pw_aff_ne_set(off, constant(sp, 0)));
	}
	isl_pw_aff_free(lo);
	return bad;
}

/* The points where access a is evaluated, for admissible params, at which
 * its data-dependent index d may leave the callee's interval: where the
 * bounds of its values (pt_poly_index_range, decided on those points)
 * are not inside it; all of them when a side is unbounded. */
static __isl_give isl_set *data_outside(checker *ck, const pt_poly_access *a, int d)
{
	isl_set *at = isl_set_intersect_params(isl_set_copy(a->where), isl_set_copy(ck->admissible));
	isl_pw_aff *lo, *hi, *clo, *chi;
	pt_poly_index_range(a->space, at, a->call->args[d], &lo, &hi);
	callee_bounds(a->space, a->call, d, &clo, &chi);
	if (!lo || !hi || !clo || !chi) {
		isl_pw_aff_free(lo);
		isl_pw_aff_free(hi);
		isl_pw_aff_free(clo);
		isl_pw_aff_free(chi);
		return at;
	}
	isl_set *bad = isl_set_union(isl_pw_aff_lt_set(lo, clo), isl_pw_aff_gt_set(hi, chi));
	return isl_set_intersect(bad, at);
}

/* A point of bad with the smallest params in -64 .. 64 if there is one
 * (then the smallest point), else any; a reduction's result variables,
 * unused in its updates, are 0. */
static __isl_give isl_point *example(__isl_take isl_set *bad, const pt_stage *s)
{
	for (int i = 0; s->red && i < s->ndim; i++)
		bad = isl_set_fix_si(bad, isl_dim_set, (unsigned)i, 0);
	isl_size np = isl_set_dim(bad, isl_dim_param);
	isl_set *box = isl_set_copy(bad);
	for (int q = 0; q < np; q++) {
		box = isl_set_lower_bound_si(box, isl_dim_param, (unsigned)q, -64);
		box = isl_set_upper_bound_si(box, isl_dim_param, (unsigned)q, 64);
	}
	if (isl_set_is_empty(box) != isl_bool_false) {
		isl_set_free(box);
		return isl_set_sample_point(bad);
	}
	isl_set_free(bad);
	if (np > 0) {
		isl_set *ps = isl_set_from_params(isl_set_params(isl_set_copy(box)));
		ps = isl_set_move_dims(ps, isl_dim_set, 0, isl_dim_param, 0, (unsigned)np);
		isl_point *pp = isl_set_sample_point(isl_set_lexmin(ps));
		for (int q = 0; q < np && pp; q++)
			box = isl_set_fix_val(box, isl_dim_param, (unsigned)q,
				isl_point_get_coordinate_val(pp, isl_dim_set, q));
		isl_point_free(pp);
	}
	return isl_set_sample_point(isl_set_lexmin(box));
}

static long coordinate(__isl_keep isl_point *pt, enum isl_dim_type t, int i)
{
	isl_val *v = isl_point_get_coordinate_val(pt, t, i);
	long r = isl_val_get_num_si(v);
	isl_val_free(v);
	return r;
}

/* "x = 0, y = 3 with R = 1, C = 1" for the iteration point of pt. */
static void describe_point(pt_strbuf *b, __isl_keep isl_point *pt, const pt_pipeline *p, const pt_stage *s)
{
	int first = s->red ? s->ndim : 0, n = s->red ? s->nrdim : s->ndim;
	for (int i = 0; i < n; i++)
		pt_sb_printf(b, "%s%s = %ld", i ? ", " : "", s->vars[first + i],
			coordinate(pt, isl_dim_set, first + i));
	bool any = false;
	for (int q = 0; q < p->nparams; q++) {
		if (!pt_type_is_int(p->params[q].type))
			continue;
		pt_sb_printf(b, "%s%s = %ld", any ? ", " : " with ", p->params[q].name,
			coordinate(pt, isl_dim_param, q));
		any = true;
	}
}

/* "f(-1, 3)": the indices read at pt (non-affine ones as written). */
static void describe_read(pt_strbuf *b, __isl_keep isl_point *pt, __isl_keep isl_space *sp,
	const pt_pipeline *p, const pt_stage *s, const pt_expr *call)
{
	pt_sb_printf(b, "%s(", call->name);
	for (int d = 0; d < call->nargs; d++) {
		const pt_expr *arg = call->args[d];
		isl_pw_aff *pa = pt_expr_has_call(arg) ? NULL : pt_poly_pw_aff(sp, arg);
		isl_val *v = pa ? isl_pw_aff_eval(pa, isl_point_copy(pt)) : NULL;
		if (d)
			pt_sb_printf(b, ", ");
		if (v && isl_val_is_int(v))
			pt_sb_printf(b, "%ld", isl_val_get_num_si(v));
		else
			pt_expr_print(arg, s, p, b);
		isl_val_free(v);
	}
	pt_sb_printf(b, ")");
}

/* One end of the callee's interval in dimension d, as written; an
 * image's upper end is extent - 1, folded when the extent is affine
 * without division ("R - 1"). */
static void describe_end(pt_strbuf *b, const pt_pipeline *p, const pt_expr *call, int d, bool hi)
{
	if (call->stage) {
		const pt_interval *iv = &call->stage->dom[d];
		pt_expr_print(hi ? iv->hi : iv->lo, call->stage, p, b);
		return;
	}
	if (!hi) {
		pt_sb_printf(b, "0");
		return;
	}
	const pt_expr *ext = call->image->extent[d];
	pt_affine a = {0};
	if (!pt_expr_affine(ext, p->nparams, 0, &a) || a.div != 1) {
		pt_affine_clear(&a);
		pt_expr_print(ext, NULL, p, b);
		pt_sb_printf(b, " - 1");
		return;
	}
	bool any = false;
	for (int q = 0; q < p->nparams; q++) {
		int64_t c = a.pcoef[q];
		if (!c)
			continue;
		if (any)
			pt_sb_printf(b, c < 0 ? " - " : " + ");
		else if (c < 0)
			pt_sb_printf(b, "-");
		if (c != 1 && c != -1)
			pt_sb_printf(b, "%lld*", (long long)(c < 0 ? -c : c));
		pt_sb_printf(b, "%s", p->params[q].name);
		any = true;
	}
	int64_t cst = a.cst - 1;
	if (!any)
		pt_sb_printf(b, "%lld", (long long)cst);
	else if (cst)
		pt_sb_printf(b, " %c %lld", cst < 0 ? '-' : '+', (long long)(cst < 0 ? -cst : cst));
	pt_affine_clear(&a);
}

/* The interval of the callee in dimension d, as written ("0 .. R - 1",
 * "1 .. 9 step 2"). */
static void describe_interval(pt_strbuf *b, const pt_pipeline *p, const pt_expr *call, int d)
{
	describe_end(b, p, call, d, false);
	pt_sb_printf(b, " .. ");
	describe_end(b, p, call, d, true);
	if (call->stage && call->stage->dom[d].step > 1)
		pt_sb_printf(b, " step %lld", (long long)call->stage->dom[d].step);
}

/* The location of a reduction target `h(i, j)` in its update, found from
 * its first and last indices; the whole update if the text differs. */
static pt_loc target_loc(const pt_stage *s, const pt_case *k)
{
	pt_loc first = k->target[0]->loc, last = k->target[s->ndim - 1]->loc;
	if (!first.src || first.src != last.src || first.line != last.line || first.src != k->loc.src ||
	    first.line < k->loc.line || (first.line == k->loc.line && first.col < k->loc.col))
		return k->loc;    /* e.g. an index from a `cond` declared elsewhere */
	const char *t = first.src->text, *line = t;
	for (int l = 1; l < first.line && *line; line++)
		if (*line == '\n')
			l++;
	const char *start = line + first.col - 1, *end = line + last.col - 1 + last.len;
	const char *q = start;
	while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	if (q <= line || q[-1] != '(')
		return k->loc;
	q--;
	while (q > line && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	size_t n = strlen(s->name);
	if ((size_t)(q - line) < n || strncmp(q - n, s->name, n) != 0)
		return k->loc;
	q -= n;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end != ')')
		return k->loc;
	pt_loc r = first;
	r.col = (int)(q - line) + 1;
	r.len = (int)(end + 1 - q);
	return r;
}

static void report(checker *ck, const pt_poly_access *a, int d, __isl_take isl_set *bad)
{
	const pt_pipeline *p = ck->p;
	const pt_stage *s = ck->s;
	isl_point *pt = example(bad, s);
	pt_strbuf call = {0}, iv = {0}, at = {0}, rd = {0};
	pt_expr_print(a->call, s, p, &call);
	describe_interval(&iv, p, a->call, d);
	if (pt && !isl_point_is_void(pt)) {
		describe_point(&at, pt, p, s);
		describe_read(&rd, pt, a->space, p, s, a->call);
	}
	isl_point_free(pt);
	const char *point = at.s ? at.s : "some point", *read = rd.s ? rd.s : "outside";
	if (a->is_target)
		pt_error_at(ck->d, target_loc(s, &s->cases[a->case_index]),
			"clamp the target index, or add a condition to the update so that it stays inside the domain",
			"reduction '%s' updates %s outside its domain in dimension %d (%s): at %s it updates %s",
			s->name, call.s, d + 1, iv.s, point, read);
	else if (a->call->stage)
		pt_error_at(ck->d, a->call->loc,
			"clamp the index, or restrict the case so that it reads only points of the domain",
			"'%s' reads %s outside the domain of '%s' in dimension %d (%s): at %s it reads %s",
			s->name, call.s, a->call->name, d + 1, iv.s, point, read);
	else
		pt_error_at(ck->d, a->call->loc,
			"clamp the index, or restrict the case so that it reads only points of the image",
			"'%s' reads %s outside image '%s' in dimension %d (%s): at %s it reads %s",
			s->name, call.s, a->call->name, d + 1, iv.s, point, read);
	pt_sb_free(&call);
	pt_sb_free(&iv);
	pt_sb_free(&at);
	pt_sb_free(&rd);
}

/* A data-dependent index that may leave its callee: its derived range
 * (frontend/index_range.h), and a clamp to the interval as written. */
static void report_data(checker *ck, const pt_poly_access *a, int d)
{
	const pt_expr *call = a->call, *arg = call->args[d];
	pt_strbuf iv = {0}, r = {0}, h = {0};
	describe_interval(&iv, ck->p, call, d);
	pt_index_range_print(&r, ck->p, ck->s, arg);
	pt_sb_printf(&h, "clamp it: %s(..., clamp(index, ", call->name);
	describe_end(&h, ck->p, call, d, false);
	pt_sb_printf(&h, ", ");
	describe_end(&h, ck->p, call, d, true);
	pt_sb_printf(&h, "), ...)");
	pt_error_at(ck->d, arg->loc, h.s, "data-dependent index %d of '%s' may fall outside %s: its values range over %s",
		d + 1, call->name, iv.s, r.s);
	pt_sb_free(&iv);
	pt_sb_free(&r);
	pt_sb_free(&h);
}

/* A read of a stage whose indices are all exact must not reach a point
 * no case defines; false (stop) after a report. */
static bool check_defined(checker *ck, const pt_poly_access *a)
{
	const pt_expr *call = a->call;
	isl_set *u = call->stage && !a->is_target ? ck->undefined[call->stage->id] : NULL;
	if (!u)
		return true;
	for (int d = 0; d < call->nargs; d++) {
		isl_pw_aff *idx = pt_expr_has_call(call->args[d]) ? NULL : pt_poly_pw_aff(a->space, call->args[d]);
		if (!idx)
			return true;
		isl_pw_aff_free(idx);
	}
	isl_map *m = isl_map_intersect_range(pt_poly_access_map(a->space, call), isl_set_copy(u));
	isl_set *bad = isl_set_intersect(isl_map_domain(m), isl_set_copy(a->where));
	bad = isl_set_intersect_params(bad, isl_set_copy(ck->admissible));
	if (isl_set_is_empty(bad) != isl_bool_false) {
		isl_set_free(bad);
		return true;
	}
	const pt_stage *s = ck->s;
	isl_point *pt = example(bad, s);
	pt_strbuf text = {0}, at = {0}, rd = {0};
	pt_expr_print(call, s, ck->p, &text);
	if (pt && !isl_point_is_void(pt)) {
		describe_point(&at, pt, ck->p, s);
		describe_read(&rd, pt, a->space, ck->p, s, call);
	}
	isl_point_free(pt);
	pt_error_at(ck->d, call->loc,
		"add a case (or an `else`) covering that point, or restrict this case so that it reads only defined points",
		"'%s' reads %s at a point that no case of '%s' defines: at %s it reads %s",
		s->name, text.s, call->name, at.s ? at.s : "some point", rd.s ? rd.s : text.s);
	pt_sb_free(&text);
	pt_sb_free(&at);
	pt_sb_free(&rd);
	ck->ok = false;
	return false;
}

/* Checks each dimension of one access (data-dependent ones too); false
 * (stop) after a report. */
static bool check_access(const pt_poly_access *a, void *user)
{
	checker *ck = user;
	const pt_expr *call = a->call;
	for (int d = 0; d < call->nargs; d++) {
		if (pt_expr_has_call(call->args[d])) {
			isl_set *bad = data_outside(ck, a, d);
			bool out = isl_set_is_empty(bad) != isl_bool_true;
			isl_set_free(bad);
			if (out) {
				report_data(ck, a, d);
				ck->ok = false;
				return false;
			}
			continue;
		}
		isl_pw_aff *idx = pt_poly_pw_aff(a->space, call->args[d]);
		isl_set *bad = idx ? outside(a->space, idx, call, d) : NULL;
		isl_pw_aff_free(idx);
		if (!bad)
			continue;
		bad = isl_set_intersect(bad, isl_set_copy(a->where));
		bad = isl_set_intersect_params(bad, isl_set_copy(ck->admissible));
		if (isl_set_is_empty(bad) == isl_bool_false) {
			report(ck, a, d, bad);
			ck->ok = false;
			return false;
		}
		isl_set_free(bad);
	}
	return check_defined(ck, a);
}

/* Variables are i32: a domain whose literal bounds go past that range
 * is refused (param-dependent ones are checked at run time). */
static bool check_var_range(pt_diag *d, const pt_stage *s)
{
	for (int k = 0; k < s->ndim + s->nrdim; k++) {
		const pt_interval *iv = k < s->ndim ? &s->dom[k] : &s->rdom[k - s->ndim];
		bool lit_lo = iv->lo->kind == PT_E_INT, lit_hi = iv->hi->kind == PT_E_INT;
		if ((lit_lo && iv->lo->ival < INT32_MIN) || (lit_hi && iv->hi->ival > INT32_MAX)) {
			pt_error_at(d, s->loc, "narrow the domain: variables are i32",
				"'%s' has %s ranging past the i32 range (-2147483648 .. 2147483647) of its variables",
				s->name, s->vars[k]);
			return false;
		}
	}
	return true;
}

bool pt_poly_check_bounds(isl_ctx *ctx, pt_diag *d, const pt_pipeline *p)
{
	for (int i = 0; i < p->nstages; i++)
		if (!check_var_range(d, p->stages[i]))
			return false;
	isl_space *sp = pt_poly_stage_space(ctx, p, NULL, 0);
	checker ck = {d, p, NULL, pt_poly_admissible(sp, p), NULL, true};
	isl_space_free(sp);
	ck.undefined = calloc((size_t)p->nstages + 1, sizeof(isl_set *));
	for (int i = 0; i < p->nstages; i++)
		ck.undefined[p->stages[i]->id] = undefined_points(ctx, p, p->stages[i]);
	for (int i = 0; i < p->nstages; i++) {
		ck.s = p->stages[i];
		pt_poly_walk(ctx, p, ck.s, check_access, &ck);
	}
	for (int i = 0; i < p->nstages; i++)
		isl_set_free(ck.undefined[i]);
	free(ck.undefined);
	isl_set_free(ck.admissible);
	return ck.ok;
}
