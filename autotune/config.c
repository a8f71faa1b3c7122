/* config.c: configuration files, the options a tuner chose, read by
 * `polytile run/compile --config` and by pt_options_read_config. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "diag.h"

/* The most per-group entries a configuration may hold. */
#define MAX_GROUP_ENTRIES 4096

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The length of the UTF-8 sequence at s that is no control character
 * (C1 controls, U+0080..U+009F, move a terminal too), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (!n || s[0] > 0xf4)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 2 && s[0] == 0xc2 && s[1] < 0xa0) || (n == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (n == 3 && s[0] == 0xed && s[1] >= 0xa0) || (n == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;   /* overlong, surrogates, beyond U+10FFFF */
	return (size_t)n;
}

const char *pt_text_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (!len)
		return buf;
	for (const unsigned char *u = (const unsigned char *)s; u && *u;) {
		size_t n = *u >= 0x20 && *u < 0x7f ? 1 : utf8_len(u);
		size_t need = n ? n : 4;
		if (o + need + 4 > len) {
			snprintf(buf + o, len - o, "%s", len - o > 3 ? "..." : "");
			return buf;
		}
		if (n)
			memcpy(buf + o, u, n);
		else
			snprintf(buf + o, 5, "\\x%02x", *u);
		o += need;
		u += n ? n : 1;
	}
	buf[o] = 0;
	return buf;
}

/* "32x256" into n and t; false if malformed. */
static bool parse_sizes(const char *v, int *n_out, int *t_out)
{
	int n = 0, t[PT_MAX_TILE_DIMS];
	for (const char *s = v;; s++) {
		char *end;
		errno = 0;
		long k = strtol(s, &end, 10);
		if (end == s || *s == '-' || *s == '+' || isspace((unsigned char)*s) || errno || k < 1 || k > 1 << 20 ||
		    n == PT_MAX_TILE_DIMS)
			return false;
		t[n++] = (int)k;
		if (!*end)
			break;
		if (*end != 'x')
			return false;
		s = end;
	}
	*n_out = n;
	memcpy(t_out, t, sizeof(t[0]) * (size_t)n);
	return true;
}

/* A tile value ("32x256" or "default": n = 0); -1 with a message. */
static int tile_value(const char *key, const char *value, int *n, int *t, char *err, size_t errlen)
{
	char e[80];
	if (!strcmp(value, "default")) {
		*n = 0;
		return 0;
	}
	if (!parse_sizes(value, n, t))
		return fail(err, errlen, "%s = %s: give sizes like 32x256 (1 to %d of them, each 1 to %d) "
			"or `default`", key, pt_text_escape(value, e, sizeof(e)), PT_MAX_TILE_DIMS, 1 << 20);
	return 0;
}

/* An overlap value (in [0, 1), or "default": *set false); -1 with a message. */
static int overlap_value(const char *key, const char *value, double *v, bool *set, char *err, size_t errlen)
{
	char e[80], *end;
	if (!strcmp(value, "default")) {
		*v = 0;
		*set = false;
		return 0;
	}
	double x = strtod(value, &end);
	if (end == value || *end || !(x >= 0 && x < 1))
		return fail(err, errlen, "%s = %s: give a fraction in [0, 1), like 0.4, or `default`", key,
			pt_text_escape(value, e, sizeof(e)));
	*v = x;
	*set = true;
	return 0;
}

/* A GPU block ("32x8", x by y, at most PT_GPU_BLOCK_MAX threads, or
 * "default": 0 x 0); -1 with a message. */
static int block_value(const char *key, const char *value, int *b, char *err, size_t errlen)
{
	char e[80];
	int n, t[PT_MAX_TILE_DIMS];
	if (!strcmp(value, "default")) {
		b[0] = b[1] = 0;
		return 0;
	}
	if (!parse_sizes(value, &n, t) || n != 2 || (int64_t)t[0] * t[1] > PT_GPU_BLOCK_MAX)
		return fail(err, errlen, "%s = %s: give a block of threads like 32x8 (x along the innermost tiled dim, "
			"then y; at most %d threads in all) or `default`", key, pt_text_escape(value, e, sizeof(e)),
			PT_GPU_BLOCK_MAX);
	b[0] = t[0];
	b[1] = t[1];
	return 0;
}

int pt_options_set(pt_options *opt, const char *key, const char *value, char *err, size_t errlen)
{
	char e[80];
	if (!strcmp(key, "tile")) {
		int n, t[PT_MAX_TILE_DIMS];
		if (tile_value(key, value, &n, t, err, errlen))
			return -1;
		opt->ntile = n;
		memcpy(opt->tile, t, sizeof(int) * (size_t)n);
		return 0;
	}
	if (!strcmp(key, "overlap"))
		return overlap_value(key, value, &opt->overlap, &opt->overlap_set, err, errlen);
	if (!strcmp(key, "block"))
		return block_value(key, value, opt->gpu_block, err, errlen);
	return fail(err, errlen, "unknown key '%s' (the keys are tile, overlap, block, tile[GROUP], overlap[GROUP] and " \
		"block[GROUP])",
		pt_text_escape(key, e, sizeof(e)));
}

/* A configuration being read: a copy of the options and every per-group
 * entry (those opt had, copied, then the file's). */
typedef struct reading {
	pt_options o;
	pt_group_options *g;
	unsigned char *seen;        /* per entry: 1 tile, 2 overlap, 4 block given in this file */
	int n, cap;
	bool seen_tile, seen_overlap, seen_block;
	const char *where;          /* "NAME:LINE" of the line read */
} reading;

static void free_entries(pt_group_options *g, int n)
{
	for (int i = 0; i < n; i++) {
		free((char *)g[i].group);
		free((char *)g[i].where);
	}
	free(g);
}

/* The entry of group text G (a name or an index), added if new; NULL
 * when out of memory or over MAX_GROUP_ENTRIES. */
static pt_group_options *entry(reading *r, const char *gname, int index)
{
	for (int i = 0; i < r->n; i++)
		if (gname ? r->g[i].group && !strcmp(r->g[i].group, gname) : !r->g[i].group && r->g[i].index == index)
			return &r->g[i];
	if (r->n == MAX_GROUP_ENTRIES)
		return NULL;
	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 8;
		pt_group_options *g = realloc(r->g, sizeof(*g) * (size_t)cap);
		unsigned char *seen = g ? realloc(r->seen, (size_t)cap) : NULL;
		if (g)
			r->g = g;
		if (!seen)
			return NULL;
		r->seen = seen;
		r->cap = cap;
	}
	pt_group_options *e = &r->g[r->n];
	*e = (pt_group_options){ .index = index };
	e->group = gname ? strdup(gname) : NULL;
	e->where = strdup(r->where);
	r->seen[r->n] = 0;
	if ((gname && !e->group) || !e->where) {
		free((char *)e->group);
		free((char *)e->where);
		return NULL;
	}
	r->n++;
	return e;
}

/* "tile[G]", "overlap[G]" or "block[G]": the base key (0 tile, 1 overlap, 2 block), the
 * group's name (in place) or index; -1 with a message.  G runs to the
 * last ']': a stage of an indexed family is named like G[1,2]. */
static int group_key(char *key, int *which, char **gname, int *index, char *msg, size_t len)
{
	char e[80];
	char *open = strchr(key, '['), *close = strrchr(key, ']');
	*open = 0;
	*which = !strcmp(key, "tile") ? 0 : !strcmp(key, "overlap") ? 1 : !strcmp(key, "block") ? 2 : -1;
	*open = '[';
	if (*which < 0 || !close || close < open || close[1])
		return fail(msg, len, "unknown key '%s' (the keys are tile, overlap, block, tile[GROUP], overlap[GROUP] and " \
		"block[GROUP])",
			pt_text_escape(key, e, sizeof(e)));
	*close = 0;
	char *g = open + 1;
	size_t n = strlen(g), digits = strspn(g, "0123456789"), word = strspn(g,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789[], ");
	*close = ']';
	if (n && digits == n && n <= 6) {
		*index = atoi(g);
		*gname = NULL;
		return 0;
	}
	int depth = 0;   /* brackets paired, one level deep */
	for (size_t i = 0; i < n && depth >= 0 && depth <= 1; i++)
		depth += (g[i] == '[') - (g[i] == ']');
	if (!n || word != n || !(isalpha((unsigned char)g[0]) || g[0] == '_') || n > 256 || depth)
		return fail(msg, len, "%s: give a group as a stage's name or a group's index (0 to 999999), "
			"like tile[blur] or tile[2]", pt_text_escape(key, e, sizeof(e)));
	g[n] = 0;   /* the name ends where the last ']' was */
	/* "G[1, 2]" as the checker spells it: "G[1,2]" (no blanks) */
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (g[i] != ' ')
			g[k++] = g[i];
	g[k] = 0;
	*gname = g;
	return 0;
}

/* key = value with key tile[G], overlap[G] or block[G]. */
static int group_line(reading *r, char *key, const char *value, char *msg, size_t len)
{
	int which, index = 0;
	char *gname = NULL, shown[300];
	snprintf(shown, sizeof(shown), "%s", key);
	if (group_key(key, &which, &gname, &index, msg, len))
		return -1;
	pt_group_options *e = entry(r, gname, index);
	if (!e)
		return fail(msg, len, "too many per-group entries (at most %d) or out of memory", MAX_GROUP_ENTRIES);
	unsigned char *seen = &r->seen[e - r->g];
	if (*seen & (1u << which))
		return fail(msg, len, "%s given twice", shown);
	*seen |= (unsigned char)(1u << which);
	if (which == 0)
		return tile_value(shown, value, &e->ntile, e->tile, msg, len);
	if (which == 2)
		return block_value(shown, value, e->gpu_block, msg, len);
	return overlap_value(shown, value, &e->overlap, &e->overlap_set, msg, len);
}

/* s without leading and trailing blanks, in place. */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = 0;
	return s;
}

/* One line (comment stripped) into r. */
static int parse_line(reading *r, char *line, char *msg, size_t len)
{
	char e[80];
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *s = trim(line);
	if (!*s)
		return 0;
	char *eq = strchr(s, '=');
	if (!eq)
		return fail(msg, len, "expected `key = value`, not '%s'", pt_text_escape(s, e, sizeof(e)));
	*eq = 0;
	char *key = trim(s), *value = trim(eq + 1);
	if (!*value)
		return fail(msg, len, "%s has no value", pt_text_escape(key, e, sizeof(e)));
	if (strchr(key, '['))
		return group_line(r, key, value, msg, len);
	bool *seen = !strcmp(key, "tile") ? &r->seen_tile : !strcmp(key, "overlap") ? &r->seen_overlap :
		!strcmp(key, "block") ? &r->seen_block : NULL;
	if (seen && *seen)
		return fail(msg, len, "%s given twice", key);
	if (seen)
		*seen = true;
	return pt_options_set(&r->o, key, value, msg, len);
}

/* r's entries start as copies of opt's; false when out of memory. */
static bool copy_entries(reading *r, const pt_options *opt)
{
	for (int i = 0; i < opt->ngroups; i++) {
		const pt_group_options *g = &opt->groups[i];
		r->where = g->where ? g->where : "";
		pt_group_options *e = entry(r, g->group, g->index);
		if (!e)
			return false;
		const char *where = e->where, *name = e->group;
		*e = *g;
		e->where = where;
		e->group = name;
	}
	return true;
}

/* Reads text's lines into r; 0, or -1 with "NAME:LINE: what" in err. */
static int parse_lines(reading *r, const char *shown, const char *text, char *err, size_t errlen)
{
	char msg[512], where[400];
	int lineno = 1;
	for (const char *l = text; *l; lineno++) {
		size_t n = strcspn(l, "\n");
		char *line = strndup(l, n);
		if (!line)
			return fail(err, errlen, "%s: out of memory", shown);
		snprintf(where, sizeof(where), "%s:%d", shown, lineno);
		r->where = where;
		int rc = parse_line(r, line, msg, sizeof(msg));
		free(line);
		if (rc)
			return fail(err, errlen, "%s: %s", where, msg);
		l += n + (l[n] == '\n');
	}
	return 0;
}

int pt_options_parse_config(pt_options *opt, const char *name, const char *text, char *err, size_t errlen)
{
	char shown[300];
	pt_text_escape(name, shown, sizeof(shown));
	reading r = { .o = *opt };
	if (!copy_entries(&r, opt)) {
		free_entries(r.g, r.n);
		free(r.seen);
		return fail(err, errlen, "%s: out of memory", shown);
	}
	int rc = parse_lines(&r, shown, text, err, errlen);
	free(r.seen);
	if (rc) {
		/* all or nothing: a bad line leaves opt as it was */
		free_entries(r.g, r.n);
		return -1;
	}
	opt->ntile = r.o.ntile;
	memcpy(opt->tile, r.o.tile, sizeof(r.o.tile));
	opt->overlap = r.o.overlap;
	opt->overlap_set = r.o.overlap_set;
	memcpy(opt->gpu_block, r.o.gpu_block, sizeof(r.o.gpu_block));
	pt_options_free_config(opt);
	opt->groups = r.g;
	opt->ngroups = r.n;
	opt->config_mem = r.g;
	return 0;
}

void pt_options_free_config(pt_options *opt)
{
	if (opt->config_mem && opt->config_mem == opt->groups)
		free_entries((pt_group_options *)opt->groups, opt->ngroups);
	opt->config_mem = NULL;
	opt->groups = NULL;
	opt->ngroups = 0;
}

/* The line number of byte at in text. */
static int line_of(const char *text, size_t at)
{
	int line = 1;
	for (size_t i = 0; i < at; i++)
		line += text[i] == '\n';
	return line;
}

int pt_options_read_config(pt_options *opt, const char *path, char *err, size_t errlen)
{
	enum { MAX = 1 << 20 };
	char shown[300];
	pt_text_escape(path, shown, sizeof(shown));
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, "%s: cannot read the configuration: %s", shown, strerror(errno));
	char *text = malloc(MAX + 1);
	size_t n = text ? fread(text, 1, MAX + 1, f) : 0;
	bool bad = !text || ferror(f);
	fclose(f);
	const char *nul = bad ? NULL : memchr(text, 0, n < MAX ? n : MAX);
	int r = bad ? fail(err, errlen, "%s: cannot read the configuration", shown)
		: nul ? fail(err, errlen, "%s:%d: not a configuration (a NUL byte: not text)", shown, line_of(text, (size_t)(nul - text)))
		: n > MAX ? fail(err, errlen, "%s:%d: not a configuration (over 1 MB)", shown, line_of(text, MAX))
		: (text[n] = 0, pt_options_parse_config(opt, path, text, err, errlen));
	free(text);
	return r;
}

/* "%g" of v, or all the digits where %g is not exact. */
static void exact(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

static void sizes_text(pt_strbuf *b, int n, const int *t)
{
	if (n <= 0)
		pt_sb_printf(b, "default");
	for (int k = 0; k < n && k < PT_MAX_TILE_DIMS; k++)
		pt_sb_printf(b, "%s%d", k ? "x" : "", t[k]);
}

char *pt_options_config_text(const pt_options *opt, const char *comment)
{
	pt_strbuf b = {0};
	char v[64];
	for (const char *l = comment ? comment : ""; *l;) {
		size_t n = strcspn(l, "\n");
		pt_sb_printf(&b, "# %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	pt_sb_printf(&b, "tile = ");
	sizes_text(&b, opt->ntile, opt->tile);
	exact(v, sizeof(v), opt->overlap);
	pt_sb_printf(&b, "\noverlap = %s\n", opt->overlap > 0 || opt->overlap_set ? v : "default");
	if (opt->gpu_block[0] > 0)
		pt_sb_printf(&b, "block = %dx%d\n", opt->gpu_block[0], opt->gpu_block[1]);
	for (int i = 0; i < opt->ngroups; i++) {
		const pt_group_options *g = &opt->groups[i];
		char name[32];
		if (!g->group)
			snprintf(name, sizeof(name), "%d", g->index);
		if (g->ntile > 0) {
			pt_sb_printf(&b, "tile[%s] = ", g->group ? g->group : name);
			sizes_text(&b, g->ntile, g->tile);
			pt_sb_printf(&b, "\n");
		}
		exact(v, sizeof(v), g->overlap);
		if (g->overlap_set)
			pt_sb_printf(&b, "overlap[%s] = %s\n", g->group ? g->group : name, v);
		if (g->gpu_block[0] > 0)
			pt_sb_printf(&b, "block[%s] = %dx%d\n", g->group ? g->group : name, g->gpu_block[0], g->gpu_block[1]);
	}
	return pt_sb_take(&b);
}
