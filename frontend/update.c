/* update.c: general reduction updates split into an operator and one
 * value (update.h). */
#include "update.h"

#include <string.h>

#include "alloc.h"

typedef struct splitter {
	pt_diag *d;
	const pt_stage *s;
	pt_expr *const *target;
	int n;
	const pt_expr *val;     /* the first value found (inside e) */
	const pt_expr *lit;     /* the first literal-only sub-expression */
	bool lits_differ;
	bool failed;
} splitter;

/* Whether e is the accumulator: h called at the target as written. */
static bool is_acc(const splitter *sp, const pt_expr *e)
{
	if (e->kind != PT_E_CALL || !e->name || strcmp(e->name, sp->s->name) || e->nargs != sp->n)
		return false;
	for (int i = 0; i < sp->n; i++)
		if (!pt_expr_equal(e->args[i], sp->target[i]))
			return false;
	return true;
}

static bool reads_acc(const splitter *sp, const pt_expr *e)
{
	if (is_acc(sp, e))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (reads_acc(sp, e->args[i]))
			return true;
	return false;
}

/* Only literals and operators: a constant of the operator. */
static bool closed(const pt_expr *e)
{
	if (e->kind == PT_E_NAME || e->kind == PT_E_CALL || e->kind == PT_E_VAR || e->kind == PT_E_PARAM)
		return false;
	for (int i = 0; i < e->nargs; i++)
		if (!closed(e->args[i]))
			return false;
	return true;
}

static void fail_at(splitter *sp, const pt_expr *at, const char *hint, const char *fmt, const pt_expr *a,
	const pt_expr *b)
{
	pt_strbuf x = {0}, y = {0};
	if (a)
		pt_expr_print(a, NULL, NULL, &x);
	if (b)
		pt_expr_print(b, NULL, NULL, &y);
	pt_error_at(sp->d, at->loc, hint, fmt, sp->s->name, x.s ? x.s : "", y.s ? y.s : "");
	pt_sb_free(&x);
	pt_sb_free(&y);
	sp->failed = true;
}

/* A largest sub-expression e that does not read the accumulator. */
static void note(splitter *sp, const pt_expr *e)
{
	if (closed(e)) {
		sp->lits_differ = sp->lits_differ || (sp->lit && !pt_expr_equal(sp->lit, e));
		sp->lit = sp->lit ? sp->lit : e;
	} else if (!sp->val) {
		sp->val = e;
	} else if (!sp->failed && !pt_expr_equal(sp->val, e)) {
		fail_at(sp, e, "a general update is op(h(t), v) of one value v: compute v once, or split the reduction",
			"the update of '%s' combines its accumulator with two values, '%s' and '%s'", sp->val, e);
	}
}

/* Notes the largest sub-expressions of e that do not read h(t);
 * whether e reads it. */
static bool scan(splitter *sp, const pt_expr *e)
{
	if (is_acc(sp, e))
		return true;
	if (e->kind == PT_E_CALL && e->name && !strcmp(e->name, sp->s->name) && !sp->failed)
		fail_at(sp, e, "an update reads its reduction only at its target, as h(t) = h(t) + v",
			"the update of '%s' reads it at %s, not at its target", e, NULL);
	bool any = false, reads[64];
	for (int i = 0; i < e->nargs; i++) {
		bool r = scan(sp, e->args[i]);
		if (i < 64)
			reads[i] = r;
		any = any || r;
	}
	if (any && e->kind == PT_E_CALL && !sp->failed)
		fail_at(sp, e, "combine the accumulator with operators, as h(t) = h(t) + v",
			"the update of '%s' reads %s at an index that depends on its accumulator", e, NULL);
	for (int i = 0; any && i < e->nargs; i++)
		if (!(i < 64 ? reads[i] : reads_acc(sp, e->args[i])))
			note(sp, e->args[i]);
	return any;
}

static pt_expr *operand(int index, pt_loc loc)
{
	pt_expr *v = pt_expr_new(PT_E_VAR, loc);
	if (v) {
		v->index = index;
		v->name = pt_mem_strdup(index == PT_UPD_ACC ? "acc" : "value");
		if (!v->name)
			v = pt_expr_free(v);
	}
	return v;
}

/* e (taken) with the accumulator and every largest sub-expression
 * equal to v replaced by the operands. */
static pt_expr *build(const splitter *sp, pt_expr *e, const pt_expr *v)
{
	if (!e)
		return NULL;
	bool acc = is_acc(sp, e);
	if (acc || (!reads_acc(sp, e) && pt_expr_equal(e, v))) {
		pt_loc loc = e->loc;
		pt_expr_free(e);
		return operand(acc ? PT_UPD_ACC : PT_UPD_VAL, loc);
	}
	if (!reads_acc(sp, e))
		return e;
	for (int i = 0; i < e->nargs; i++)
		if (!(e->args[i] = build(sp, e->args[i], v)))
			return pt_expr_free(e);
	return e;
}

bool pt_update_split(pt_diag *d, const pt_stage *s, pt_expr *const *target, int n, pt_expr *e, pt_expr **value,
	pt_expr **op)
{
	*value = *op = NULL;
	splitter sp = {.d = d, .s = s, .target = target, .n = n};
	if (!scan(&sp, e))
		note(&sp, e);
	const pt_expr *v = sp.val ? sp.val : sp.lits_differ ? NULL : sp.lit;
	if (!sp.failed && !v)
		fail_at(&sp, e, "combine h(t) with one value, as h(t) = h(t) + v; constants alone give no value",
			"the update of '%s' combines its accumulator with no value%s%s", sp.lit, NULL);
	if (sp.failed) {
		pt_expr_free(e);
		return false;
	}
	*value = pt_expr_copy(v);
	*op = *value ? build(&sp, e, *value) : pt_expr_free(e);    /* v is inside e: compare with its copy */
	if (!*op)
		*value = pt_expr_free(*value);
	return *op != NULL;
}

static pt_expr *apply(pt_expr *e, void *user)
{
	const pt_expr *const *with = user;
	if (e->kind != PT_E_VAR || (e->index != PT_UPD_ACC && e->index != PT_UPD_VAL))
		return e;
	pt_expr *r = pt_expr_copy(with[e->index == PT_UPD_ACC ? 0 : 1]);
	pt_expr_free(e);
	return r;
}

pt_expr *pt_update_apply(const pt_expr *op, const pt_expr *acc, const pt_expr *val)
{
	const pt_expr *with[2] = {acc, val};
	return pt_expr_map(pt_expr_copy(op), apply, (void *)with);
}
