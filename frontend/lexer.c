/* lexer.c: turns .pipe text into tokens; '#' starts a comment. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "lexer.h"

#define PT_TOK_NAME_(n, s) s,
static const char *const tok_names[] = { PT_TOKENS(PT_TOK_NAME_) };
#undef PT_TOK_NAME_

const char *pt_tok_kind_name(pt_tok_kind k)
{
	return tok_names[k];
}

bool pt_tok_is(const pt_token *t, const char *s)
{
	return (int)strlen(s) == t->len && !memcmp(t->start, s, (size_t)t->len);
}

/* Punctuation, longest first so that "&&=" wins over "&&" and "&". */
static const struct { const char *s; pt_tok_kind k; } puncts[] = {
	{"&&=", PT_T_ANDEQ}, {"||=", PT_T_OREQ},
	{"..", PT_T_DOTDOT}, {"->", PT_T_ARROW}, {"==", PT_T_EQ}, {"!=", PT_T_NE},
	{"<=", PT_T_LE}, {">=", PT_T_GE}, {"&&", PT_T_ANDAND}, {"||", PT_T_OROR},
	{"<<", PT_T_SHL}, {">>", PT_T_SHR}, {"+=", PT_T_PLUSEQ}, {"*=", PT_T_STAREQ},
	{"(", PT_T_LPAREN}, {")", PT_T_RPAREN}, {"[", PT_T_LBRACK}, {"]", PT_T_RBRACK},
	{"{", PT_T_LBRACE}, {"}", PT_T_RBRACE}, {",", PT_T_COMMA}, {":", PT_T_COLON},
	{"=", PT_T_ASSIGN}, {"?", PT_T_QUESTION}, {"+", PT_T_PLUS}, {"-", PT_T_MINUS},
	{"*", PT_T_STAR}, {"/", PT_T_SLASH}, {"%", PT_T_PERCENT}, {"<", PT_T_LT},
	{">", PT_T_GT}, {"!", PT_T_NOT}, {"~", PT_T_TILDE}, {"&", PT_T_AMP},
	{"|", PT_T_BAR}, {"^", PT_T_CARET},
};

/* Scans a number at p: digits, optional fraction and exponent.  A ".."
 * right after digits is the interval operator, not a fraction. */
static int scan_number(const char *p, const char *end, bool *is_float)
{
	const char *q = p;
	*is_float = false;
	while (q < end && isdigit((unsigned char)*q))
		q++;
	if (q < end && *q == '.' && !(q + 1 < end && q[1] == '.')) {
		*is_float = true;
		q++;
		while (q < end && isdigit((unsigned char)*q))
			q++;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		const char *r = q + 1;
		if (r < end && (*r == '+' || *r == '-'))
			r++;
		if (r < end && isdigit((unsigned char)*r)) {
			*is_float = true;
			q = r;
			while (q < end && isdigit((unsigned char)*q))
				q++;
		}
	}
	return (int)(q - p);
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
	int n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 :
		p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	if (n == 0 || end - p < n)
		return 0;
	unsigned lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
	unsigned hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
	if (n > 1 && (p[1] < lo || p[1] > hi))
		return 0;
	for (int i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* Skips a comment from '#' to the end of its line.  Comments may hold
 * any UTF-8 text; other bytes are refused, at their column, so that a
 * binary or mis-encoded file is reported rather than half read. */
static bool skip_comment(pt_diag *d, const pt_source *src, const char **pp, const char *end,
	int line, const char *line_start)
{
	const char *p = *pp;
	while (p < end && *p != '\n') {
		int n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
		if (n == 0) {
			pt_loc loc = {src, line, (int)(p - line_start) + 1, 1, NULL};
			pt_error_at(d, loc, "save the file as UTF-8 (or ASCII)",
				"byte 0x%02x in a comment is not UTF-8", (unsigned char)*p);
			return false;
		}
		p += n;
	}
	*pp = p;
	return true;
}

/* False when out of memory (alloc.h; *v is kept). */
static bool push(pt_token **v, int *n, int *cap, pt_token t)
{
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 256;
		pt_token *nv = pt_mem_realloc(*v, sizeof(**v) * (size_t)c);
		if (!nv)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = t;
	return true;
}

bool pt_lex(pt_diag *d, const pt_source *src, pt_token **toks, int *ntoks)
{
	const char *p = src->text, *end = src->text + src->len, *line_start = p;
	int line = 1, n = 0, cap = 0;
	bool bol = true;
	pt_token *v = NULL;
	while (p < end) {
		char c = *p;
		if (c == '\n') {
			line++;
			p++;
			line_start = p;
			bol = true;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p++;
			continue;
		}
		if (c == '#') {
			if (!skip_comment(d, src, &p, end, line, line_start)) {
				free(v);
				return false;
			}
			continue;
		}
		pt_token t = {0};
		t.start = p;
		t.bol = bol;
		bol = false;
		t.loc.src = src;
		t.loc.line = line;
		t.loc.col = (int)(p - line_start) + 1;
		if (isalpha((unsigned char)c) || c == '_') {
			const char *q = p;
			while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
				q++;
			t.kind = PT_T_IDENT;
			if (q - p > PT_MAX_NAME_LEN) {
				t.loc.len = PT_MAX_NAME_LEN + 1;
				pt_error_at(d, t.loc, "use a shorter name",
					"name is too long (%ld characters, at most %d)", (long)(q - p), PT_MAX_NAME_LEN);
				free(v);
				return false;
			}
			t.len = (int)(q - p);
		} else if (isdigit((unsigned char)c) || (c == '.' && p + 1 < end &&
				isdigit((unsigned char)p[1]))) {
			bool is_float;
			t.len = scan_number(p, end, &is_float);
			char buf[64];
			if (t.len >= (int)sizeof(buf)) {
				t.loc.len = t.len;
				pt_error_at(d, t.loc, "write the value with fewer digits",
					"number literal is too long");
				free(v);
				return false;
			}
			memcpy(buf, p, (size_t)t.len);
			buf[t.len] = 0;
			errno = 0;
			if (is_float) {
				t.kind = PT_T_FLOAT;
				t.fval = strtod(buf, NULL);
			} else {
				t.kind = PT_T_INT;
				t.ival = strtoll(buf, NULL, 10);
			}
			if (errno == ERANGE) {
				t.loc.len = t.len;
				pt_error_at(d, t.loc, "integers must fit in 64 bits and floats in a double",
					"number '%s' is out of range", buf);
				free(v);
				return false;
			}
			if (p + t.len < end && (isalpha((unsigned char)p[t.len]) || p[t.len] == '_')) {
				t.loc.len = t.len + 1;
				pt_error_at(d, t.loc, "separate the number from the name that follows it",
					"malformed number");
				free(v);
				return false;
			}
		} else {
			size_t i;
			for (i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
				size_t l = strlen(puncts[i].s);
				if ((size_t)(end - p) >= l && !memcmp(p, puncts[i].s, l))
					break;
			}
			if (i == sizeof(puncts) / sizeof(puncts[0])) {
				t.loc.len = 1;
				if ((unsigned char)c >= 32 && (unsigned char)c < 127)
					pt_error_at(d, t.loc, "remove it; comments start with '#'",
						"unexpected character '%c'", c);
				else
					pt_error_at(d, t.loc, "the language uses ASCII only; remove it",
						"unexpected byte 0x%02x", (unsigned char)c);
				free(v);
				return false;
			}
			t.kind = puncts[i].k;
			t.len = (int)strlen(puncts[i].s);
		}
		t.loc.len = t.len;
		p += t.len;
		if (!push(&v, &n, &cap, t)) {
			free(v);
			return false;
		}
	}
	pt_token eof = {0};
	eof.kind = PT_T_EOF;
	eof.start = end;
	eof.loc.src = src;
	eof.loc.line = line;
	eof.loc.col = (int)(end - line_start) + 1;
	eof.loc.len = 1;
	eof.bol = true;
	if (!push(&v, &n, &cap, eof)) {
		free(v);
		return false;
	}
	*toks = v;
	*ntoks = n;
	return true;
}
