/* fuzz_check.c: robustness test of `polytile check` over mutated pipelines
 * (and, with --run, a differential test of compiled code: see README.md).
 *
 *   fuzz_check [--keep DIR] [--only I] POLYTILE_BINARY SEED COUNT FILE.pipe...
 *
 * Reads the FILEs, makes COUNT variants with a deterministic PRNG seeded by
 * SEED (variant I depends only on SEED, I and the files, in the order given,
 * so a run with a smaller COUNT is a prefix of a larger one and `--only I`
 * regenerates one variant), cycling through the mutation kinds below.  Each
 * variant is written to a fresh mkdtemp directory under $TMPDIR (else
 * P_tmpdir) and checked with `POLYTILE_BINARY check VARIANT` in a child
 * process (stdout and stderr to files, 10 s wall-clock limit, then SIGKILL).
 *
 * The contract of `check`: exit 0 (valid), or exit 1 with at least one
 * stderr line `VARIANT:LINE:COL: error: ...`; never a signal, another status,
 * sanitizer output or a hang.  A variant that breaks it is a FAILURE: it is
 * kept in the directory given by --keep or $FUZZ_KEEP (as
 * fuzz-s<SEED>-<I>-<kind>.pipe with its .stderr), else left in its temp
 * directory, and its path and first stderr lines are printed.  The temp
 * files of passing variants are removed.  Last line: `N passed, N failed`;
 * exit 0 if none failed, 1 if any did, 2 on a usage or setup error.
 *
 * $FUZZ_TIMEOUT overrides the 10 s limit (seconds); $FUZZ_VERBOSE=1 prints
 * a line per variant. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* P_tmpdir */
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_tmpdir
#define P_tmpdir "."
#endif

#define OUTPUT_LIMIT (64L << 20) /* RLIMIT_FSIZE of the child: 64 MiB */
#define STDERR_LINES 8           /* stderr lines shown per failure */

/* ---- growable byte buffer ---------------------------------------------- */

typedef struct {
	char *p;
	size_t n, cap;
} buf;

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz_check: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void buf_add(buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (b->n + n + 1 > cap)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			die("out of memory");
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void buf_str(buf *b, const char *s) { buf_add(b, s, strlen(s)); }

/* Reads a whole file; false if it cannot be opened. */
static bool read_file(const char *path, buf *out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char tmp[8192];
	size_t k;
	out->n = 0;
	buf_add(out, "", 0);
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(out, tmp, k);
	fclose(f);
	return true;
}

static bool write_file(const char *path, const char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok;
}

/* ---- PRNG: splitmix64 --------------------------------------------------- */

typedef struct {
	uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static size_t rng_below(rng *r, size_t n)
{
	return (size_t)(rng_next(r) % (uint64_t)n);
}

/* Uniform in [lo, hi]. */
static size_t rng_range(rng *r, size_t lo, size_t hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

/* ---- mutations ---------------------------------------------------------- */

typedef struct {
	const char *path;
	buf text;
} input;

static input *inputs;
static size_t n_inputs;

enum kind {
	K_TRUNCATE,      /* cut at a random byte */
	K_SPLICE_JOIN,   /* prefix of one file + suffix of another */
	K_SPLICE_INSERT, /* random chunk of one file inserted into another */
	K_FLIP,          /* 1-8 bytes set to random values */
	K_LINE_DELETE,   /* delete a random line */
	K_LINE_DUP,      /* duplicate a random line */
	K_LINE_SWAP,     /* swap two random lines */
	K_NUMBER,        /* replace a number by a huge/zero/negative one */
	K_STACKED,       /* 2-4 of the above, one after another */
	N_KINDS
};

static const char *const kind_names[N_KINDS] = {
	"truncate", "splice-join", "splice-insert", "flip", "line-delete",
	"line-dup", "line-swap", "number", "stacked",
};

/* Bytes a flip writes: punctuation of the language, NUL, non-ASCII. */
static const char flip_punct[] = "()[]{}|-><=.,:;+*/%!&^~?#\"'\\_$@` \t\r\n0123456789eE";

static const char *const numbers[] = {
	"99999999999999999999", "0", "-1", "2147483647", "2147483648",
	"-2147483648", "9223372036854775807", "9223372036854775808",
	"18446744073709551616", "4294967296", "1e400", "0.0", "-0", "00",
	"340282366920938463463374607431768211457",
	"99999999999999999999999999999999999999999999999999999999999999999999",
};

static const input *pick_input(rng *r) { return &inputs[rng_below(r, n_inputs)]; }

/* A different input than `not` when there is more than one. */
static const input *pick_other(rng *r, const input *not)
{
	if (n_inputs < 2)
		return not;
	size_t k = rng_below(r, n_inputs - 1);
	const input *in = &inputs[k];
	return in >= not ? in + 1 : in;
}

/* Line starts of t: starts[0..n) and starts[n] == t->n. Returns n. */
static size_t line_starts(const buf *t, size_t **out)
{
	size_t n = 0, cap = 16;
	size_t *s = malloc(cap * sizeof *s);
	if (!s)
		die("out of memory");
	for (size_t i = 0; i <= t->n; i++) {
		if (i == t->n && (i == 0 || t->p[i - 1] == '\n')) {
			/* no empty line after a final newline */
		} else if (i == 0 || (i < t->n && t->p[i - 1] == '\n')) {
			if (n + 2 > cap) {
				cap *= 2;
				size_t *q = realloc(s, cap * sizeof *s);
				if (!q)
					die("out of memory");
				s = q;
			}
			s[n++] = i;
		}
	}
	s[n] = t->n;
	*out = s;
	return n;
}

static void mutate(rng *r, enum kind k, buf *t);

static void mutate_lines(rng *r, enum kind k, buf *t)
{
	size_t *ls, n = line_starts(t, &ls);
	if (n == 0) {
		free(ls);
		return;
	}
	buf o = {0};
	size_t a = rng_below(r, n), b = rng_below(r, n);
	for (size_t i = 0; i < n; i++) {
		size_t src = i;
		if (k == K_LINE_SWAP)
			src = i == a ? b : i == b ? a : i;
		if (k == K_LINE_DELETE && i == a)
			continue;
		const char *p = t->p + ls[src];
		size_t len = ls[src + 1] - ls[src];
		buf_add(&o, p, len);
		/* a swapped/duplicated last line may lack its newline */
		if (len && p[len - 1] != '\n' && i + 1 < n)
			buf_add(&o, "\n", 1);
		if (k == K_LINE_DUP && i == a) {
			if (len && p[len - 1] != '\n')
				buf_add(&o, "\n", 1);
			buf_add(&o, p, len);
		}
	}
	free(ls);
	free(t->p);
	*t = o;
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (c >= '0' && c <= '9');
}

static void mutate_number(rng *r, buf *t)
{
	size_t count = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i] >= '0' && t->p[i] <= '9' && (i == 0 || !is_ident(t->p[i - 1])))
			count++;
	if (count == 0) {
		mutate(r, K_FLIP, t);
		return;
	}
	size_t want = rng_below(r, count), start = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i] >= '0' && t->p[i] <= '9' && (i == 0 || !is_ident(t->p[i - 1])) &&
		    want-- == 0) {
			start = i;
			break;
		}
	size_t end = start;
	while (end < t->n && t->p[end] >= '0' && t->p[end] <= '9')
		end++;
	const char *num = numbers[rng_below(r, sizeof numbers / sizeof *numbers)];
	buf o = {0};
	buf_add(&o, t->p, start);
	buf_str(&o, num);
	buf_add(&o, t->p + end, t->n - end);
	free(t->p);
	*t = o;
}

/* t's prefix + a suffix of b. */
static void splice_join(rng *r, buf *t, const input *b)
{
	size_t pa = rng_range(r, 0, t->n), pb = rng_range(r, 0, b->text.n);
	t->n = pa;
	buf_add(t, b->text.p + pb, b->text.n - pb);
}

/* A chunk of b (1 to 200 bytes) inserted at a random place of t. */
static void splice_insert(rng *r, buf *t, const input *b)
{
	if (b->text.n == 0)
		return;
	size_t len = rng_range(r, 1, b->text.n < 200 ? b->text.n : 200);
	size_t from = rng_range(r, 0, b->text.n - len), at = rng_range(r, 0, t->n);
	buf o = {0};
	buf_add(&o, t->p, at);
	buf_add(&o, b->text.p + from, len);
	buf_add(&o, t->p + at, t->n - at);
	free(t->p);
	*t = o;
}

static void mutate(rng *r, enum kind k, buf *t)
{
	switch (k) {
	case K_TRUNCATE:
		t->n = t->n ? rng_below(r, t->n) : 0;
		buf_add(t, "", 0);
		break;
	case K_SPLICE_JOIN:
		splice_join(r, t, pick_input(r));
		break;
	case K_SPLICE_INSERT:
		splice_insert(r, t, pick_input(r));
		break;
	case K_FLIP: {
		if (t->n == 0) {
			buf_add(t, "(", 1);
			break;
		}
		size_t n = rng_range(r, 1, 8);
		for (size_t i = 0; i < n; i++) {
			size_t at = rng_below(r, t->n);
			unsigned char v;
			switch (rng_below(r, 6)) {
			case 0:
			case 1:
				v = (unsigned char)flip_punct[rng_below(r, sizeof flip_punct - 1)];
				break;
			case 2:
				v = 0;
				break;
			case 3:
				v = (unsigned char)rng_range(r, 0x80, 0xFF);
				break;
			default:
				v = (unsigned char)rng_below(r, 256);
				break;
			}
			t->p[at] = (char)v;
		}
		break;
	}
	case K_LINE_DELETE:
	case K_LINE_DUP:
	case K_LINE_SWAP:
		mutate_lines(r, k, t);
		break;
	case K_NUMBER:
		mutate_number(r, t);
		break;
	case K_STACKED: {
		size_t n = rng_range(r, 2, 4);
		for (size_t i = 0; i < n; i++)
			mutate(r, (enum kind)rng_below(r, K_STACKED), t);
		break;
	}
	default:
		break;
	}
}

/* Variant I of seed S: a base file and kind I mod N_KINDS. */
static void make_variant(uint64_t seed, size_t i, buf *t, enum kind *k, const char **base)
{
	rng r = {seed * 0x100000001B3ull ^ ((uint64_t)i * 0xD6E8FEB86659FD93ull)};
	rng_next(&r);
	*k = (enum kind)(i % N_KINDS);
	const input *in = pick_input(&r);
	*base = in->path;
	t->n = 0;
	buf_add(t, in->text.p, in->text.n);
	if (*k == K_SPLICE_JOIN) /* mix two pipelines */
		splice_join(&r, t, pick_other(&r, in));
	else if (*k == K_SPLICE_INSERT)
		splice_insert(&r, t, pick_other(&r, in));
	else
		mutate(&r, *k, t);
}

/* ---- running the child -------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
	bool hang;
	int status; /* from waitpid, unless hang */
	double secs;
} run_result;

/* Runs argv in a child (stdout, stderr to files) under the time limit. */
static run_result run_child(char *const argv[], const char *out_path, const char *err_path,
                            double limit)
{
	run_result res = {0};
	double t0 = now();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0); /* its own group, so a hang is killed with its children */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int in = open("/dev/null", O_RDONLY);
		int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0 || err < 0)
			_exit(126);
		dup2(in, 0);
		dup2(out, 1);
		dup2(err, 2);
		close(in);
		close(out);
		close(err);
		struct rlimit rl = {OUTPUT_LIMIT, OUTPUT_LIMIT};
		setrlimit(RLIMIT_FSIZE, &rl);
		execv(argv[0], argv);
		fprintf(stderr, "fuzz_check: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	/* SIGCHLD is blocked (see main): wait for it with a timeout. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		pid_t w = waitpid(pid, &res.status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			die("waitpid: %s", strerror(errno));
		double left = limit - (now() - t0);
		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &res.status, 0) < 0 && errno == EINTR)
				;
			res.hang = true;
			break;
		}
		if (left > 0.1)
			left = 0.1; /* poll now and then in case a SIGCHLD was merged */
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
		sigtimedwait(&chld, NULL, &ts);
	}
	res.secs = now() - t0;
	return res;
}

static run_result run_check(const char *bin, const char *variant, const char *out_path,
                            const char *err_path, double limit)
{
	char *argv[] = {(char *)bin, "check", (char *)variant, NULL};
	return run_child(argv, out_path, err_path, limit);
}

/* ---- classification ----------------------------------------------------- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Does some line of err start with `path:DIGITS:DIGITS: error:`? */
static bool has_located_error(const buf *err, const char *path)
{
	size_t pl = strlen(path);
	for (size_t i = 0; i < err->n; i++) {
		if (i > 0 && err->p[i - 1] != '\n')
			continue;
		size_t j = i;
		if (err->n - j < pl || memcmp(err->p + j, path, pl) != 0)
			continue;
		j += pl;
		bool ok = true;
		for (int field = 0; field < 2 && ok; field++) {
			if (j >= err->n || err->p[j] != ':')
				ok = false;
			else
				j++;
			size_t d = j;
			while (j < err->n && is_digit(err->p[j]))
				j++;
			if (j == d)
				ok = false;
		}
		static const char tail[] = ": error:";
		if (ok && err->n - j >= sizeof tail - 1 && memcmp(err->p + j, tail, sizeof tail - 1) == 0)
			return true;
	}
	return false;
}

/* First occurrence of needle in the n bytes at hay (which may hold NULs). */
static const char *find_mem(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(hay + i, needle, k) == 0)
			return hay + i;
	return NULL;
}

static const char *const sanitizer_marks[] = {
	"runtime error:", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
};

/* The failure reason, written into why; false if the run passed. */
static bool classify(const run_result *res, const buf *err, const char *variant, char *why,
                     size_t why_n, const char **san_line)
{
	*san_line = NULL;
	for (size_t i = 0; i < sizeof sanitizer_marks / sizeof *sanitizer_marks; i++) {
		const char *m = find_mem(err->p, err->n, sanitizer_marks[i]);
		if (m && (!*san_line || m < *san_line))
			*san_line = m;
	}
	if (res->hang) {
		snprintf(why, why_n, "HANG (killed after %.1f s)", res->secs);
		return true;
	}
	if (WIFSIGNALED(res->status)) {
		int sig = WTERMSIG(res->status);
		snprintf(why, why_n, "killed by signal %d (%s)%s", sig, strsignal(sig),
		         sig == SIGXFSZ ? ", output over the 64 MiB limit" : "");
		return true;
	}
	int code = WEXITSTATUS(res->status);
	if (*san_line) {
		snprintf(why, why_n, "sanitizer report (exit %d)", code);
		return true;
	}
	if (code == 0)
		return false;
	if (code == 1) {
		if (has_located_error(err, variant))
			return false;
		snprintf(why, why_n, "exit 1 without a `%s:LINE:COL: error:` line", variant);
		return true;
	}
	if (code == 127 && err->n > 17 && !memcmp(err->p, "fuzz_check: exec ", 17)) {
		/* ETXTBSY/EACCES here usually means the binary is being relinked */
		snprintf(why, why_n, "could not run the binary (rebuilt during the run?)");
		return true;
	}
	snprintf(why, why_n, "exit status %d", code);
	return true;
}

/* Prints the first STDERR_LINES lines of err, and the sanitizer line. */
static void show_stderr(const buf *err, const char *san_line)
{
	size_t i = 0;
	int lines = 0;
	if (err->n == 0)
		printf("    (stderr empty)\n");
	while (i < err->n && lines < STDERR_LINES) {
		size_t e = i;
		while (e < err->n && err->p[e] != '\n')
			e++;
		printf("    | ");
		for (size_t j = i; j < e && j - i < 200; j++) {
			unsigned char c = (unsigned char)err->p[j];
			if (c >= 0x20 && c != 0x7f)
				putchar(c);
			else
				printf("\\x%02x", c);
		}
		putchar('\n');
		lines++;
		i = e + 1;
	}
	if (san_line && (size_t)(san_line - err->p) >= i) {
		const char *s = san_line;
		while (s > err->p && s[-1] != '\n')
			s--;
		const char *e = memchr(s, '\n', err->n - (size_t)(s - err->p));
		int len = e ? (int)(e - s) : (int)(err->n - (size_t)(s - err->p));
		printf("    | ...\n    | %.*s\n", len > 300 ? 300 : len, s);
	}
}

static void remove_dir(const char *dir, const char *const *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (unlink(files[i]) != 0 && errno != ENOENT)
			fprintf(stderr, "fuzz_check: warning: cannot remove %s: %s\n", files[i],
			        strerror(errno));
	if (rmdir(dir) != 0)
		fprintf(stderr, "fuzz_check: warning: cannot remove %s: %s\n", dir, strerror(errno));
}

/* ---- differential run (--run) -------------------------------------------- */

#define MAX_ARGS 96

static size_t n_compared; /* variants whose outputs were compared */

/* The next word of line s (identifier characters, brackets, commas). */
static size_t word(const char *s, size_t n, size_t i, size_t *start)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
		i++;
	*start = i;
	while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != ',' && s[i] != ':' && s[i] != '\n' && s[i] != '#')
		i++;
	return i;
}

static bool int_type(const char *t, size_t n)
{
	static const char *const names[] = {"int", "long", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
	                                    "uchar", "ushort", "uint", "short", "char"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strlen(names[i]) == n && !memcmp(names[i], t, n))
			return true;
	return false;
}

/* Runs an accepted variant with the interpreter and compiled (every int
 * param at 24, every output to .npy); when the interpreter succeeds the
 * compiled run must too, with byte-identical outputs.  False and why on
 * a failure. */
static bool differential(const char *bin, const char *variant, const char *dir, const buf *text,
                         double limit, char *why, size_t why_n, buf *err)
{
	char *argv[2][MAX_ARGS + 8];
	char *owned[2 * MAX_ARGS];
	int nowned = 0, nout = 0, na = 3;
	for (int b = 0; b < 2; b++) {
		argv[b][0] = (char *)bin;
		argv[b][1] = "run";
		argv[b][2] = (char *)variant;
	}
	const char *s = text->p;
	size_t n = text->n;
	for (size_t i = 0; i < n && na < MAX_ARGS - 4; i++) {
		if (i > 0 && s[i - 1] != '\n')
			continue;
		size_t st, e = word(s, n, i, &st);
		bool is_param = e - st == 5 && !memcmp(s + st, "param", 5);
		bool is_output = e - st == 6 && !memcmp(s + st, "output", 6);
		if (is_param) {
			size_t ns, ne = word(s, n, e, &ns);
			size_t c = ne;
			while (c < n && (s[c] == ' ' || s[c] == '\t'))
				c++;
			if (c >= n || s[c] != ':')
				continue;
			size_t ts, te = word(s, n, c + 1, &ts);
			if (!int_type(s + ts, te - ts) || ne == ns)
				continue;
			char *a = malloc(ne - ns + 8);
			snprintf(a, ne - ns + 8, "%.*s=24", (int)(ne - ns), s + ns);
			owned[nowned++] = a;
			for (int b = 0; b < 2; b++) {
				argv[b][na] = "--param";
				argv[b][na + 1] = a;
			}
			na += 2;
		} else if (is_output) {
			size_t ws, we = e;
			while ((we = word(s, n, we, &ws)) > ws && na < MAX_ARGS - 4 && nout < 16) {
				for (int b = 0; b < 2; b++) {
					char *a = malloc(we - ws + strlen(dir) + 32);
					sprintf(a, "%.*s=%s/%c%d.npy", (int)(we - ws), s + ws, dir, b ? 'c' : 'i', nout);
					owned[nowned++] = a;
					argv[b][na] = "--out";
					argv[b][na + 1] = a;
				}
				na += 2;
				nout++;
				while (we < n && (s[we] == ' ' || s[we] == '\t'))
					we++;
				if (we >= n || s[we] != ',')
					break;
			}
		}
	}
	argv[0][na] = "--backend";
	argv[0][na + 1] = "interp";
	argv[0][na + 2] = "--quiet";
	argv[0][na + 3] = NULL;
	argv[1][na] = "--quiet";
	argv[1][na + 1] = NULL;
	char out_path[4300], err_path[4300], a[4300], c[4300];
	snprintf(out_path, sizeof out_path, "%s/run.out", dir);
	snprintf(err_path, sizeof err_path, "%s/run.err", dir);
	bool fail = false;
	const char *san;
	run_result ri = run_child(argv[0], out_path, err_path, limit);
	if (!read_file(err_path, err))
		err->n = 0;
	bool bad = classify(&ri, err, variant, why, why_n, &san);
	if (bad && !ri.hang && (san || WIFSIGNALED(ri.status) || WEXITSTATUS(ri.status) > 1)) {
		fail = true;    /* the interpreter crashed (exit 1 is a user error: skip) */
	} else if (!ri.hang && WIFEXITED(ri.status) && WEXITSTATUS(ri.status) == 0) {
		run_result rc = run_child(argv[1], out_path, err_path, limit * 3);
		if (!read_file(err_path, err))
			err->n = 0;
		/* compiled code refuses params that leave a stage empty (its
		 * schedule assumes none is), where the interpreter may run */
		bool refused = !rc.hang && WIFEXITED(rc.status) && WEXITSTATUS(rc.status) == 1 &&
		               find_mem(err->p, err->n, "a parameter value is out of range");
		if (!refused && (rc.hang || !WIFEXITED(rc.status) || WEXITSTATUS(rc.status) != 0)) {
			snprintf(why, why_n, "the interpreter ran it but the compiled run did not (%s)",
			         rc.hang ? "hang" : "bad exit");
			fail = true;
		}
		n_compared += !fail && !refused;
		for (int k = 0; k < nout && !fail && !refused; k++) {
			buf x = {0}, y = {0};
			snprintf(a, sizeof a, "%s/i%d.npy", dir, k);
			snprintf(c, sizeof c, "%s/c%d.npy", dir, k);
			if (!read_file(a, &x) || !read_file(c, &y) || x.n != y.n || memcmp(x.p, y.p, x.n)) {
				snprintf(why, why_n, "output %d differs between the interpreter and compiled code", k);
				fail = true;
			}
			free(x.p);
			free(y.p);
		}
	}
	for (int k = 0; k < nout; k++) {
		snprintf(a, sizeof a, "%s/i%d.npy", dir, k);
		snprintf(c, sizeof c, "%s/c%d.npy", dir, k);
		unlink(a);
		unlink(c);
	}
	unlink(out_path);
	if (!fail)
		unlink(err_path);
	for (int k = 0; k < nowned; k++)
		free(owned[k]);
	return fail;
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
	fputs("usage: fuzz_check [--keep DIR] [--only I] [--run] POLYTILE_BINARY SEED COUNT FILE.pipe...\n"
	      "  --run       also run accepted variants with the interpreter and compiled\n"
	      "              (int params 24) and require the same outputs\n"
	      "  --keep DIR  keep failing variants in DIR (default $FUZZ_KEEP, else leave\n"
	      "              them in their temp directory)\n"
	      "  --only I    run only variant I (0-based) of SEED, to reproduce a failure\n",
	      stderr);
	exit(2);
}

static uint64_t parse_u64(const char *s, const char *what)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		die("bad %s '%s'", what, s);
	return (uint64_t)v;
}

int main(int argc, char **argv)
{
	const char *keep = getenv("FUZZ_KEEP");
	long only = -1;
	bool diff = false;
	int ai = 1;
	while (ai < argc && argv[ai][0] == '-' && argv[ai][1] == '-') {
		if (!strcmp(argv[ai], "--keep") && ai + 1 < argc)
			keep = argv[ai + 1], ai += 2;
		else if (!strcmp(argv[ai], "--run"))
			diff = true, ai += 1;
		else if (!strcmp(argv[ai], "--only") && ai + 1 < argc)
			only = (long)parse_u64(argv[ai + 1], "variant index"), ai += 2;
		else
			usage();
	}
	if (argc - ai < 4)
		usage();
	const char *bin = argv[ai];
	uint64_t seed = parse_u64(argv[ai + 1], "seed");
	size_t count = (size_t)parse_u64(argv[ai + 2], "count");
	if (keep && !*keep)
		keep = NULL;
	double limit = 10.0;
	if (getenv("FUZZ_TIMEOUT") && *getenv("FUZZ_TIMEOUT"))
		limit = (double)parse_u64(getenv("FUZZ_TIMEOUT"), "FUZZ_TIMEOUT");
	bool verbose = getenv("FUZZ_VERBOSE") && !strcmp(getenv("FUZZ_VERBOSE"), "1");

	/* run_check waits for SIGCHLD with sigtimedwait */
	signal(SIGCHLD, SIG_DFL);
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);

	if (access(bin, X_OK) != 0)
		die("%s is not executable: %s", bin, strerror(errno));
	n_inputs = (size_t)(argc - ai - 3);
	inputs = calloc(n_inputs, sizeof *inputs);
	if (!inputs)
		die("out of memory");
	for (size_t i = 0; i < n_inputs; i++) {
		inputs[i].path = argv[ai + 3 + i];
		if (!read_file(inputs[i].path, &inputs[i].text))
			die("cannot read %s: %s", inputs[i].path, strerror(errno));
	}

	const char *tmproot = getenv("TMPDIR");
	if (!tmproot || !*tmproot)
		tmproot = P_tmpdir;

	size_t passed = 0, valid = 0, failed = 0, hangs = 0, by_kind_failed[N_KINDS] = {0};
	double t_start = now(), slowest = 0;
	size_t slowest_i = 0;
	buf text = {0}, err = {0};
	size_t first = only >= 0 ? (size_t)only : 0, last = only >= 0 ? (size_t)only + 1 : count;
	printf("fuzz_check: %s check, seed %llu, variants %zu..%zu of %zu files, %.0f s limit\n",
	       bin, (unsigned long long)seed, first, last - 1, n_inputs, limit);

	for (size_t i = first; i < last; i++) {
		enum kind k;
		const char *base;
		make_variant(seed, i, &text, &k, &base);

		char dir[4096], variant[4200], out_path[4200], err_path[4200];
		snprintf(dir, sizeof dir, "%s/polytile-fuzz-XXXXXX", tmproot);
		if (!mkdtemp(dir))
			die("mkdtemp %s: %s", dir, strerror(errno));
		snprintf(variant, sizeof variant, "%s/v%zu-%s.pipe", dir, i, kind_names[k]);
		snprintf(out_path, sizeof out_path, "%s/stdout", dir);
		snprintf(err_path, sizeof err_path, "%s/stderr", dir);
		if (!write_file(variant, text.p, text.n))
			die("cannot write %s: %s", variant, strerror(errno));

		run_result res = run_check(bin, variant, out_path, err_path, limit);
		if (res.secs > slowest)
			slowest = res.secs, slowest_i = i;
		if (!read_file(err_path, &err))
			err.n = 0;
		char why[4400];
		const char *san_line;
		bool fail = classify(&res, &err, variant, why, sizeof why, &san_line);
		bool accepted = !fail && !res.hang && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0;
		if (diff && accepted)
			fail = differential(bin, variant, dir, &text, limit, why, sizeof why, &err);
		if (verbose)
			printf("#%zu %-13s %-28s %.3f s %s\n", i, kind_names[k], base, res.secs,
			       fail ? "FAIL" : "ok");
		const char *files[] = {variant, out_path, err_path};
		if (!fail) {
			passed++;
			valid += !res.hang && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0;
			remove_dir(dir, files, 3);
			continue;
		}
		failed++;
		hangs += res.hang;
		by_kind_failed[k]++;
		const char *saved = variant;
		char kept[4200], kept_err[4300];
		if (keep) {
			if (mkdir(keep, 0777) != 0 && errno != EEXIST)
				die("cannot create %s: %s", keep, strerror(errno));
			snprintf(kept, sizeof kept, "%s/fuzz-s%llu-%zu-%s.pipe", keep,
			         (unsigned long long)seed, i, kind_names[k]);
			snprintf(kept_err, sizeof kept_err, "%s.stderr", kept);
			if (write_file(kept, text.p, text.n) && write_file(kept_err, err.p, err.n)) {
				saved = kept;
				remove_dir(dir, files, 3);
			} else {
				fprintf(stderr, "fuzz_check: cannot write %s: %s\n", kept, strerror(errno));
			}
		}
		printf("FAILURE #%zu (%s of %s): %s\n  variant: %s\n  rerun:   %s check %s\n"
		       "  regenerate: fuzz_check --only %zu %s %llu 1",
		       i, kind_names[k], base, why, saved, bin, saved, i, bin,
		       (unsigned long long)seed);
		for (size_t f = 0; f < n_inputs; f++)
			printf(" %s", inputs[f].path);
		printf("\n  stderr:\n");
		show_stderr(&err, san_line);
		fflush(stdout);
	}

	double total = now() - t_start;
	size_t ran = last - first;
	printf("fuzz_check: %zu variants in %.1f s (%.1f ms each, slowest #%zu %.2f s); "
	       "%zu accepted, %zu rejected with a located error\n",
	       ran, total, ran ? 1000 * total / (double)ran : 0.0, slowest_i, slowest, valid,
	       passed - valid);
	if (failed) {
		printf("fuzz_check: failures by kind:");
		for (int k = 0; k < N_KINDS; k++)
			if (by_kind_failed[k])
				printf(" %s %zu", kind_names[k], by_kind_failed[k]);
		printf("; hangs %zu\n", hangs);
	}
	if (diff)
		printf("fuzz_check: outputs of %zu accepted variants compared, interpreter vs compiled\n",
		       n_compared);
	printf("%zu passed, %zu failed\n", passed, failed);
	free(text.p);
	free(err.p);
	for (size_t i = 0; i < n_inputs; i++)
		free(inputs[i].text.p);
	free(inputs);
	return failed ? 1 : 0;
}
