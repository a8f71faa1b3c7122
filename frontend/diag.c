/* diag.c: diagnostics with caret lines, and growable strings. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diag.h"

void pt_sb_vprintf(pt_strbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || b->failed)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		char *s = pt_mem_realloc(b->s, cap);
		if (!s) {
			/* out of memory: the text stops here (alloc.h) */
			b->failed = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void pt_sb_printf(pt_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pt_sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void pt_sb_free(pt_strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

char *pt_sb_take(pt_strbuf *b)
{
	char *s = b->failed ? NULL : b->s ? b->s : pt_mem_strdup("");
	if (b->failed)
		free(b->s);
	memset(b, 0, sizeof(*b));
	return s;
}

void pt_diag_init(pt_diag *d)
{
	memset(d, 0, sizeof(*d));
	d->max_errors = 20;
}

void pt_diag_clear(pt_diag *d)
{
	pt_sb_free(&d->text);
	for (int i = 0; i < d->nsources; i++) {
		free(d->sources[i]->name);
		free(d->sources[i]->text);
		free(d->sources[i]);
	}
	free(d->sources);
	for (int i = 0; i < d->ninsts; i++) {
		free(d->insts[i]->name);
		free(d->insts[i]);
	}
	free(d->insts);
	pt_diag_init(d);
}

const pt_source *pt_diag_add_source(pt_diag *d, const char *name, char *text, size_t len)
{
	pt_source *s = pt_mem_calloc(1, sizeof(*s));
	pt_source **v = s ? pt_mem_realloc(d->sources, sizeof(*v) * (size_t)(d->nsources + 1)) : NULL;
	if (v)
		d->sources = v;
	if (!v || !(s->name = pt_mem_strdup(name))) {
		free(s);
		free(text);
		return NULL;
	}
	s->text = text;
	s->len = len;
	d->sources[d->nsources++] = s;
	return s;
}

const pt_inst *pt_diag_add_inst(pt_diag *d, const char *name, pt_loc use)
{
	pt_inst *t = pt_mem_calloc(1, sizeof(*t));
	pt_inst **v = t ? pt_mem_realloc(d->insts, sizeof(*v) * (size_t)(d->ninsts + 1)) : NULL;
	if (v)
		d->insts = v;
	if (!v || !(t->name = pt_mem_strdup(name))) {
		free(t);
		return NULL;
	}
	t->use = use;
	d->insts[d->ninsts++] = t;
	return t;
}

/* Text shown of a line longer than SHOW_WIDTH: SHOW_BEFORE characters
 * before the column, SHOW_WIDTH in all, "..." marking what is left out (a generated line can be
 * megabytes long). */
#define SHOW_BEFORE 60
#define SHOW_WIDTH 160

/* Appends the source line of loc and a caret line under its text. */
static void show_line(pt_strbuf *b, pt_loc loc)
{
	const char *t = loc.src->text, *end = t + loc.src->len;
	for (int l = 1; l < loc.line && t < end; t++)
		if (*t == '\n')
			l++;
	const char *e = t;
	while (e < end && *e != '\n')
		e++;
	const char *from = t, *to = e;
	if (e - t > SHOW_WIDTH && loc.col - 1 > SHOW_BEFORE)
		from = t + (loc.col - 1 - SHOW_BEFORE < e - t ? loc.col - 1 - SHOW_BEFORE : e - t);
	if (to - from > SHOW_WIDTH)
		to = from + SHOW_WIDTH;
	const char *dots = from > t ? "..." : "";
	pt_strbuf line = {0};
	for (const char *c = from; c < to; c++)
		pt_sb_printf(&line, "%c", (*c == '\t' || (unsigned char)*c < 32 ||
				(unsigned char)*c > 126) ? ' ' : *c);
	pt_sb_printf(b, "  %s%s%s\n  %s", dots, line.s ? line.s : "", to < e ? "..." : "", *dots ? "   " : "");
	pt_sb_free(&line);
	int col = loc.col - (int)(from - t), width = (int)(to - from);
	for (int i = 1; i < col && i <= width; i++)
		pt_sb_printf(b, " ");
	int len = loc.len > 0 ? loc.len : 1;
	if (col - 1 + len > width && width >= col)
		len = width - col + 1;
	pt_sb_printf(b, "^");
	for (int i = 1; i < len; i++)
		pt_sb_printf(b, "~");
	pt_sb_printf(b, "\n");
}

static void vreport(pt_diag *d, pt_loc loc, const char *kind, const char *hint,
	const char *fmt, va_list ap)
{
	/* a message is kept whole or not at all: out of memory, the text
	 * goes back to the end of the previous one, and stays usable */
	size_t mark = d->text.len;
	if (loc.src)
		pt_sb_printf(&d->text, "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
	else
		pt_sb_printf(&d->text, "polytile: %s: ", kind);
	pt_sb_vprintf(&d->text, fmt, ap);
	pt_sb_printf(&d->text, "\n");
	if (loc.src && loc.line > 0)
		show_line(&d->text, loc);
	if (hint)
		pt_sb_printf(&d->text, "  hint: %s\n", hint);
	if (d->text.failed) {
		d->text.len = mark;
		if (d->text.s)
			d->text.s[mark] = 0;
		d->text.failed = false;
	}
}

void pt_error_at(pt_diag *d, pt_loc loc, const char *hint, const char *fmt, ...)
{
	d->nerrors++;
	if (d->nerrors > d->max_errors)
		return;
	va_list ap;
	va_start(ap, fmt);
	vreport(d, loc, "error", hint, fmt, ap);
	va_end(ap);
	/* an error in a template's body is also the use's: name every use
	 * from the innermost out (bounded: uses nest as deep as blocks) */
	for (const pt_inst *t = loc.inst; t; t = t->use.inst)
		pt_note_at(d, t->use, "in this use of template '%s'", t->name);
}

void pt_note_at(pt_diag *d, pt_loc loc, const char *fmt, ...)
{
	if (d->nerrors > d->max_errors)
		return;
	va_list ap;
	va_start(ap, fmt);
	vreport(d, loc, "note", NULL, fmt, ap);
	va_end(ap);
}

bool pt_mem_check(pt_diag *d, long before, const char *what)
{
	if (pt_mem_failures() == before)
		return true;
	pt_loc none = {0};
	pt_error_at(d, none, "give polytile more memory (ulimit -v) or make the pipeline smaller",
		"out of memory while %s", what);
	return false;
}

int pt_edit_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 64 || m > 64)
		return 1000;
	int row[65];
	for (size_t j = 0; j <= m; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= n; i++) {
		int prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= m; j++) {
			int cur = row[j];
			int sub = prev + (a[i - 1] != b[j - 1]);
			int del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	return row[m];
}
