/* config.c: configuration files, the options a tuner chose, read by
 * `polytile run/compile --config` and by pt_options_read_config. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"
#include "diag.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* "32x256" into opt's tiles; false if malformed (opt unchanged). */
static bool parse_tiles(const char *v, pt_options *opt)
{
	int n = 0, t[PT_MAX_TILE_DIMS];
	for (const char *s = v;; s++) {
		char *end;
		errno = 0;
		long k = strtol(s, &end, 10);
		if (end == s || *s == '-' || *s == '+' || errno || k < 1 || k > 1 << 20 || n == PT_MAX_TILE_DIMS)
			return false;
		t[n++] = (int)k;
		if (!*end)
			break;
		if (*end != 'x')
			return false;
		s = end;
	}
	opt->ntile = n;
	memcpy(opt->tile, t, sizeof(t[0]) * (size_t)n);
	return true;
}

int pt_options_set(pt_options *opt, const char *key, const char *value, char *err, size_t errlen)
{
	bool dflt = !strcmp(value, "default");
	if (!strcmp(key, "tile")) {
		if (dflt) {
			opt->ntile = 0;
			return 0;
		}
		if (!parse_tiles(value, opt))
			return fail(err, errlen, "tile = %s: give sizes like 32x256 (1 to %d of them, each 1 to %d) "
				"or `default`", value, PT_MAX_TILE_DIMS, 1 << 20);
		return 0;
	}
	if (!strcmp(key, "overlap")) {
		char *end;
		double v = dflt ? 0 : strtod(value, &end);
		if (!dflt && (end == value || *end || !(v >= 0 && v < 1)))
			return fail(err, errlen, "overlap = %s: give a fraction in [0, 1), like 0.4, or `default`", value);
		opt->overlap = v;
		return 0;
	}
	return fail(err, errlen, "unknown key '%s' (the keys are tile and overlap)", key);
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

/* One line (comment stripped) into o; seen[] marks keys given. */
static int parse_line(pt_options *o, char *line, bool seen[2], char *msg, size_t len)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	char *s = trim(line);
	if (!*s)
		return 0;
	char *eq = strchr(s, '=');
	if (!eq)
		return fail(msg, len, "expected `key = value`, not '%s'", s);
	*eq = 0;
	char *key = trim(s), *value = trim(eq + 1);
	int k = !strcmp(key, "tile") ? 0 : !strcmp(key, "overlap") ? 1 : -1;
	if (k >= 0 && seen[k])
		return fail(msg, len, "%s given twice", key);
	if (!*value)
		return fail(msg, len, "%s has no value", key);
	if (k >= 0)
		seen[k] = true;
	return pt_options_set(o, key, value, msg, len);
}

int pt_options_parse_config(pt_options *opt, const char *name, const char *text, char *err, size_t errlen)
{
	pt_options o = *opt;
	bool seen[2] = { false, false };
	char msg[512];
	int lineno = 1;
	for (const char *l = text; *l; lineno++) {
		size_t n = strcspn(l, "\n");
		char *line = strndup(l, n);
		if (!line)
			return fail(err, errlen, "%s: out of memory", name);
		int r = parse_line(&o, line, seen, msg, sizeof(msg));
		free(line);
		if (r)
			return fail(err, errlen, "%s:%d: %s", name, lineno, msg);
		l += n + (l[n] == '\n');
	}
	/* all or nothing: a bad line leaves opt as it was */
	opt->ntile = o.ntile;
	memcpy(opt->tile, o.tile, sizeof(o.tile));
	opt->overlap = o.overlap;
	return 0;
}

int pt_options_read_config(pt_options *opt, const char *path, char *err, size_t errlen)
{
	enum { MAX = 1 << 20 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, "%s: cannot read the configuration: %s", path, strerror(errno));
	char *text = malloc(MAX + 1);
	size_t n = text ? fread(text, 1, MAX + 1, f) : 0;
	bool bad = !text || ferror(f);
	fclose(f);
	int r = bad ? fail(err, errlen, "%s: cannot read the configuration", path)
		: n > MAX ? fail(err, errlen, "%s: not a configuration (over 1 MB)", path)
		: memchr(text, 0, n) ? fail(err, errlen, "%s: not a configuration (a NUL byte: not text)", path)
		: (text[n] = 0, pt_options_parse_config(opt, path, text, err, errlen));
	free(text);
	return r;
}

char *pt_options_config_text(const pt_options *opt, const char *comment)
{
	pt_strbuf b = {0};
	for (const char *l = comment ? comment : ""; *l;) {
		size_t n = strcspn(l, "\n");
		pt_sb_printf(&b, "# %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	pt_sb_printf(&b, "tile = ");
	if (opt->ntile <= 0)
		pt_sb_printf(&b, "default");
	for (int k = 0; k < opt->ntile && k < PT_MAX_TILE_DIMS; k++)
		pt_sb_printf(&b, "%s%d", k ? "x" : "", opt->tile[k]);
	char v[64];
	snprintf(v, sizeof(v), "%g", opt->overlap);
	if (strtod(v, NULL) != opt->overlap)    /* %g is not exact: all the digits */
		snprintf(v, sizeof(v), "%.17g", opt->overlap);
	if (opt->overlap > 0)
		pt_sb_printf(&b, "\noverlap = %s\n", v);
	else
		pt_sb_printf(&b, "\noverlap = default\n");
	return pt_sb_take(&b);
}
