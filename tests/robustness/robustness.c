/* robustness.c: bad input for `polytile run`, each expected to end in a
 * clean exit 1 or 2 (never a signal) with a message that names the file
 * or the argument at fault, with bounded memory: crafted .npy and PNG
 * files (truncated, corrupt headers, huge declared dimensions,
 * compression bombs, wrong dtypes, zero extents), extreme params and bad
 * targets.  Every run gets PT_MEMORY_LIMIT=1 GB and, unless this test is
 * built with AddressSanitizer (which reserves terabytes of address
 * space), an address-space cap (RLIMIT_AS, as `prlimit --as`) of 3 GB;
 * its peak resident memory must stay under 1.5 GB.
 *
 *   robustness POLYTILE APPS_DIR */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <png.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static const char *polytile, *apps;
static char dir[512];
static int failures, cases;

/* ---- files ---- */

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void write_bytes(const char *name, const void *data, size_t n)
{
	char p[700];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
		perror(p);
		exit(2);
	}
}

/* A .npy of format 1.0 with header dict text and data_bytes bytes of
 * data (zeros), or a file of sparse_size bytes made by ftruncate. */
static void npy(const char *name, const char *dict, size_t data_bytes, off_t sparse_size)
{
	char buf[4096];
	size_t dl = strlen(dict), total = (10 + dl + 1 + 63) / 64 * 64;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (char)((total - 10) & 255);
	buf[9] = (char)((total - 10) >> 8);
	memcpy(buf + 10, dict, dl);
	memset(buf + 10 + dl, ' ', total - 10 - dl - 1);
	buf[total - 1] = '\n';
	char *all = calloc(1, total + data_bytes + 1);
	memcpy(all, buf, total);
	write_bytes(name, all, total + data_bytes);
	free(all);
	if (sparse_size) {
		char p[700];
		path_of(p, sizeof(p), name);
		if (truncate(p, sparse_size))
			fprintf(stderr, "note: %s: cannot make a sparse file: %s\n", name, strerror(errno));
	}
}

/* A PNG of w x h (gray 8-bit unless color) with only the first rows
 * rows written (all of them when rows >= h): libpng compresses the zero
 * rows, so a huge declared image makes a small file (a bomb). */
static void png(const char *name, png_uint_32 w, png_uint_32 h, int color, png_uint_32 rows)
{
	char p[700];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "wb");
	png_structp s = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(s);
	if (!f || !s || !info || setjmp(png_jmpbuf(s))) {
		fprintf(stderr, "cannot write %s\n", p);
		exit(2);
	}
	png_init_io(s, f);
	png_set_user_limits(s, 0x7fffffff, 0x7fffffff);
	png_set_IHDR(s, info, w, h, 8, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		PNG_FILTER_TYPE_DEFAULT);
	png_write_info(s, info);
	png_bytep row = calloc((size_t)w * 4, 1);
	for (png_uint_32 y = 0; y < h && y < rows; y++)
		png_write_row(s, row);
	if (rows >= h)
		png_write_end(s, info);
	else
		png_write_flush(s);
	free(row);
	png_destroy_write_struct(&s, &info);
	fclose(f);
}

static unsigned char *slurp(const char *name, size_t *n)
{
	char p[700];
	path_of(p, sizeof(p), name);
	FILE *f = fopen(p, "rb");
	static unsigned char buf[1 << 20];
	*n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static uint32_t crc32_of(const unsigned char *b, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= b[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

/* A copy of PNG from with its IHDR width set to w and the CRC fixed
 * (fix_crc) or left stale. */
static void png_patch_width(const char *from, const char *to, uint32_t w, bool fix_crc)
{
	size_t n;
	unsigned char *b = slurp(from, &n);
	b[16] = (unsigned char)(w >> 24);
	b[17] = (unsigned char)(w >> 16);
	b[18] = (unsigned char)(w >> 8);
	b[19] = (unsigned char)w;
	if (fix_crc) {
		uint32_t c = crc32_of(b + 12, 17);
		b[29] = (unsigned char)(c >> 24);
		b[30] = (unsigned char)(c >> 16);
		b[31] = (unsigned char)(c >> 8);
		b[32] = (unsigned char)c;
	}
	write_bytes(to, b, n);
}

static void make_files(void)
{
	const char junk[] = "this is not an image at all, just some text\n";
	write_bytes("junk.npy", junk, sizeof(junk) - 1);
	write_bytes("junk.png", junk, sizeof(junk) - 1);
	write_bytes("empty.npy", "", 0);
	write_bytes("empty.png", "", 0);
	write_bytes("trunc_header.npy", "\x93NUMPY\x01\x00\x76\x00{'descr':", 19);
	npy("trunc_data.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (10, 10), }", 50, 0);
	npy("extra_data.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 2), }", 80, 0);
	npy("huge_dims.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (60000, 60000), }", 0, 0);
	npy("sparse.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (60000, 60000), }", 0,
		(off_t)64 + (off_t)60000 * 60000 * 4);
	npy("overflow.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 0, 0);
	npy("negative.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (-1, 5), }", 0, 0);
	npy("zero.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (0, 5), }", 0, 0);
	npy("complex.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (4, 4), }", 128, 0);
	npy("object.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (4, 4), }", 128, 0);
	npy("half.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (4, 4), }", 32, 0);
	npy("rank1.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (10,), }", 20, 0);
	npy("fortran.npy", "{'descr': '<u2', 'fortran_order': True, 'shape': (4, 4), }", 32, 0);
	npy("nodict.npy", "[1, 2, 3]", 0, 0);
	npy("noshape.npy", "{'descr': '<u2', 'fortran_order': False, }", 0, 0);
	png("ok.png", 8, 8, PNG_COLOR_TYPE_GRAY, 8);
	png("rgb.png", 8, 8, PNG_COLOR_TYPE_RGB, 8);
	png("bomb.png", 60000, 60000, PNG_COLOR_TYPE_GRAY, 600);
	png("bomb30k.png", 30000, 30000, PNG_COLOR_TYPE_GRAY, 300);
	size_t n;
	unsigned char *b = slurp("ok.png", &n);
	write_bytes("trunc.png", b, n / 2);
	b[n - 20] ^= 0x55;   /* inside IDAT: its CRC no longer matches */
	write_bytes("bad_crc.png", b, n);
	png_patch_width("ok.png", "zero_width.png", 0, true);
	png_patch_width("ok.png", "stale_crc.png", 9, false);
	png_patch_width("ok.png", "wide.png", 0x7fffffff, true);
}

/* ---- runs ---- */

/* Runs polytile with args in dir, its stderr into dir/err; the status
 * (128 + signal when killed) and the peak RSS of the children so far, in KB. */
static int run(char *const *args, long *peak_kb)
{
	char errp[700];
	path_of(errp, sizeof(errp), "err");
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir(dir))
			_exit(99);
		int fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(fd, 2);
#ifndef UNDER_ASAN
		struct rlimit rl = { (rlim_t)3 << 30, (rlim_t)3 << 30 };
		setrlimit(RLIMIT_AS, &rl);
#endif
		setenv("PT_MEMORY_LIMIT", "1000000000", 1);
		execv(polytile, args);
		_exit(98);
	}
	int st;
	struct rusage ru;
	if (waitpid(pid, &st, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru))
		return -1;
	*peak_kb = ru.ru_maxrss;   /* the largest child so far */
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One case: `polytile ARGS` (space-separated, no quoting) must exit
 * with want_status (1 or 2) and say want on stderr. */
static void expect(int want_status, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void expect(int want_status, const char *want, const char *fmt, ...)
{
	char line[4096], *argv[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	int n = 0;
	argv[n++] = (char *)polytile;
	for (char *t = strtok(line, " "); t && n < 63; t = strtok(NULL, " "))
		argv[n++] = t;
	argv[n] = NULL;
	long peak = 0;
	int st = run(argv, &peak);
	char errp[700], text[8192] = "";
	path_of(errp, sizeof(errp), "err");
	FILE *f = fopen(errp, "r");
	if (f) {
		text[fread(text, 1, sizeof(text) - 1, f)] = 0;
		fclose(f);
	}
	cases++;
	bool ok = st == want_status && strstr(text, want) && !strstr(text, "Sanitizer") && peak < 1500 * 1024;
	char shown[4096] = "";
	for (int i = 1; i < n; i++)
		snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown), " %s", argv[i]);
	printf("%s polytile%s: status %d, peak %ld MB\n", ok ? "ok  " : "FAIL", shown, st, peak / 1024);
	if (!ok) {
		printf("     wanted status %d and '%s' on stderr, got:\n%s\n", want_status, want, text);
		failures++;
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: robustness POLYTILE APPS_DIR\n");
		return 2;
	}
	/* the runs happen in the temporary directory */
	static char pexe[4096], pdir[4096];
	if (!realpath(argv[1], pexe) || !realpath(argv[2], pdir)) {
		perror("realpath");
		return 2;
	}
	polytile = pexe;
	apps = pdir;
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/pt_robust_XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	make_files();
	/* .npy files for blur's I : u16 [R+2, C+2] */
	const char *npys[][2] = {
		{ "junk.npy", "junk.npy" }, { "empty.npy", "empty.npy" },
		{ "trunc_header.npy", "trunc_header.npy" }, { "trunc_data.npy", "trunc_data.npy" },
		{ "extra_data.npy", "extra_data.npy" }, { "huge_dims.npy", "huge_dims.npy" },
		{ "sparse.npy", "sparse.npy" }, { "overflow.npy", "overflow.npy" },
		{ "negative.npy", "negative.npy" }, { "zero.npy", "zero.npy" },
		{ "complex.npy", "complex.npy" }, { "object.npy", "object.npy" },
		{ "half.npy", "half.npy" }, { "rank1.npy", "rank1.npy" },
		{ "fortran.npy", "fortran.npy" }, { "nodict.npy", "nodict.npy" },
		{ "noshape.npy", "noshape.npy" }, { "missing.npy", "missing.npy" },
	};
	for (size_t i = 0; i < sizeof(npys) / sizeof(npys[0]); i++)
		expect(1, npys[i][1], "run %s/blur.pipe --in I=%s --out out=o.npy", apps, npys[i][0]);
	const char *pngs[] = { "junk.png", "empty.png", "trunc.png", "bad_crc.png", "zero_width.png",
		"stale_crc.png", "wide.png", "bomb.png", "rgb.png", "missing.png" };
	for (size_t i = 0; i < sizeof(pngs) / sizeof(pngs[0]); i++)
		expect(1, pngs[i], "run %s/blur.pipe --in I=%s --out out=o.npy", apps, pngs[i]);
	/* a 30000 x 30000 image fits the decoder's share (its rows end early) */
	expect(1, "bomb30k.png", "run %s/harris.pipe --in I=bomb30k.png --out harris=h.npy", apps);
	/* params */
	const char *ints[][2] = {
		{ "R=-5", "" }, { "R=2147483648", "param 'R'" }, { "R=1e400", "R" }, { "R=nan", "param 'R'" },
		{ "R=abc", "R=abc" }, { "R=3.5", "param 'R'" },
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		expect(1, ints[i][1], "run %s/blur.pipe --param %s --param C=8 --out out=o.npy", apps, ints[i][0]);
	expect(1, "needs", "run %s/harris.pipe --param R=32000 --param C=32000 --out harris=h.npy", apps);
	expect(1, "needs", "run %s/harris.pipe --param R=32000 --param C=32000 --backend interp --out harris=h.npy", apps);
	expect(1, "needs", "run %s/blur.pipe --param R=2147483000 --param C=2147483000 --out out=o.npy", apps);
	expect(2, "--threads", "run %s/blur.pipe --threads 0", apps);
	expect(2, "--threads", "run %s/blur.pipe --threads 99999", apps);
	expect(2, "--param", "run %s/blur.pipe --param", apps);
	expect(2, "--param", "run %s/blur.pipe --param R=", apps);
	/* targets */
	expect(1, "--target", "run %s/blur.pipe --param R=8 --param C=8 --target x86_64-pc-linux-gnu:i386", apps);
	expect(1, "--target", "run %s/blur.pipe --param R=8 --param C=8 --target x86_64-pc-windows-msvc", apps);
	expect(1, "nonsense", "compile %s/blur.pipe -o b --target nonsense-triple", apps);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "note: could not remove %s\n", dir);
	printf("%d cases, %d failed\n", cases, failures);
	return failures != 0;
}
