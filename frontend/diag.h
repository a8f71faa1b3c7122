/* diag.h: source locations, growable strings and user diagnostics.
 *
 * User errors carry file:line:col, a message saying what is wrong, the
 * source line with a caret under the offending text, and a hint saying how
 * to fix it (like a C compiler).  Internal invariants use assert. */
#ifndef PT_DIAG_H
#define PT_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct pt_source {
	char *name;             /* file name as given by the user */
	char *text;             /* whole text, NUL-terminated */
	size_t len;
} pt_source;

/* A position in a source: line and col are 1-based, len is the length of
 * the offending text (for the underline).  src NULL: no location. */
struct pt_inst;
typedef struct pt_loc {
	const pt_source *src;
	int line, col, len;
	const struct pt_inst *inst;     /* read from a template's body: which use; else NULL */
} pt_loc;

/* One use of a template (docs/language.md, section 18): the body's tokens
 * are read again with their locations pointing here, so that an error
 * found in the body, by any pass, also names the use (which may itself
 * lie in another template's body). */
typedef struct pt_inst {
	char *name;             /* the template's name */
	pt_loc use;             /* the use: NAME(args) */
} pt_inst;

/* A growable string; out of memory it keeps what it had and sets
 * failed, and later appends do nothing (alloc.h). */
typedef struct pt_strbuf {
	char *s;
	size_t len, cap;
	bool failed;
} pt_strbuf;

void pt_sb_printf(pt_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pt_sb_vprintf(pt_strbuf *b, const char *fmt, va_list ap);
void pt_sb_free(pt_strbuf *b);
/* The caller owns the string ("" if empty); NULL, the text freed, if
 * an append failed. */
char *pt_sb_take(pt_strbuf *b);

/* A list of diagnostics; ctx-owned.  Sources are kept alive here so that
 * locations stay valid as long as the IR that refers to them. */
typedef struct pt_diag {
	pt_strbuf text;         /* all messages, formatted */
	int nerrors;
	int max_errors;         /* stop recording after this many */
	pt_source **sources;
	int nsources;
	pt_inst **insts;        /* kept alive like sources */
	int ninsts;
} pt_diag;

void pt_diag_init(pt_diag *d);
void pt_diag_clear(pt_diag *d);
/* Takes ownership of text; returns the registered source, or NULL
 * (text freed) when out of memory. */
const pt_source *pt_diag_add_source(pt_diag *d, const char *name, char *text, size_t len);

/* Records a use of template name at use; NULL when out of memory. */
const pt_inst *pt_diag_add_inst(pt_diag *d, const char *name, pt_loc use);

/* Reports an error at loc: "file:line:col: error: MSG", the source line, a
 * caret line, and "  hint: HINT" when hint is not NULL; when loc lies in
 * a template's body, a note for each use that stamped it out follows. */
void pt_error_at(pt_diag *d, pt_loc loc, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A note attached to the previous error (another location). */
void pt_note_at(pt_diag *d, pt_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reports into d "out of memory while WHAT" (with no location) and
 * returns false when allocations of the front end failed since their
 * count (alloc.h's pt_mem_failures) was `before`. */
bool pt_mem_check(pt_diag *d, long before, const char *what);

/* Edit distance, for "did you mean" suggestions. */
int pt_edit_distance(const char *a, const char *b);

#endif
