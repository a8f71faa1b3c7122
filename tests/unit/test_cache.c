/* test_cache.c: the compile cache's parts: SHA-256 against the FIPS
 * 180-4 / NIST vectors, entries (round trip, truncated, altered, moved,
 * concurrent writers and readers), the directory's choice, and keys that
 * change with what the code depends on and only with that. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "machine.h"
#include "machine_env.h"
#include "hmac.h"
#include "sha256.h"

#include "run_suite.h"

static const char *hex(const char *msg)
{
	static char out[65];
	pt_sha256_hex(msg, strlen(msg), out);
	return out;
}

START_TEST(sha256_vectors)
{
	ck_assert_str_eq(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ck_assert_str_eq(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	/* 448 bits: the padding needs a second block */
	ck_assert_str_eq(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	ck_assert_str_eq(hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
		"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}
END_TEST

/* A million 'a' fed in pieces of odd sizes: the buffering across blocks. */
START_TEST(sha256_million_a_in_pieces)
{
	char *a = malloc(1000000);
	memset(a, 'a', 1000000);
	pt_sha256 s;
	uint8_t d[32];
	char out[65];
	pt_sha256_init(&s);
	size_t done = 0, step = 1;
	while (done < 1000000) {
		size_t n = step < 1000000 - done ? step : 1000000 - done;
		pt_sha256_update(&s, a + done, n);
		done += n;
		step = step * 3 % 199 + 1;
	}
	pt_sha256_final(&s, d);
	pt_sha256_to_hex(d, out);
	ck_assert_str_eq(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}
END_TEST

static char *tmpdir(void)
{
	const char *td = getenv("TMPDIR");
	char *d = malloc(512);
	snprintf(d, 512, "%s/pt_cache_test_XXXXXX", td && *td ? td : P_tmpdir);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void rmdir_all(const char *d)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	ck_assert_int_eq(system(cmd), 0);
}

static const char KEY[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char KEY2[] = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

static char *entry(const char *dir, const char *key)
{
	char *p = malloc(strlen(dir) + 80);
	sprintf(p, "%s/%s.obj", dir, key);
	return p;
}

static pt_cache *open_cache(const char *dir)
{
	char *why = NULL;
	pt_cache *c = pt_cache_open(dir, &why);
	ck_assert_msg(c != NULL, "%s", why);
	return c;
}

/* Entry key of dir, through a cache opened for this one look-up. */
static pt_cache_status get(const char *dir, const char *key, size_t *n)
{
	void *data = NULL;
	char *why = NULL;
	pt_cache *c = open_cache(dir);
	pt_cache_status st = pt_cache_get(c, key, &data, n, &why);
	pt_cache_close(c);
	free(why);
	if (st == PT_CACHE_HIT)
		ck_assert_int_eq(memcmp(data, "object bytes", 12), 0);
	free(data);
	return st;
}

static int put(const char *dir, const char *key, const void *data, size_t n)
{
	pt_cache *c = open_cache(dir);
	int r = pt_cache_put(c, key, data, n);
	pt_cache_close(c);
	return r;
}

START_TEST(entry_round_trip_and_corruption)
{
	char *d = tmpdir(), *path = entry(d, KEY);
	size_t n = 0;
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_MISS);
	ck_assert_int_eq(put(d, KEY, "object bytes", 12), 0);
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_HIT);
	ck_assert_uint_eq(n, 12);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	/* truncated: detected, removed, a miss next time */
	ck_assert_int_eq(truncate(path, st.st_size - 3), 0);
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_CORRUPT);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_MISS);
	/* one byte of the payload flipped, and one of the header */
	for (long at = 0; at < 2; at++) {
		long off = at ? st.st_size - 1 : 20;
		ck_assert_int_eq(put(d, KEY, "object bytes", 12), 0);
		FILE *f = fopen(path, "r+b");
		fseek(f, off, SEEK_SET);
		int c = fgetc(f);
		fseek(f, off, SEEK_SET);
		fputc(c ^ 0x10, f);
		fclose(f);
		ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_CORRUPT);
	}
	/* bytes appended, an empty file, another key's entry moved here */
	ck_assert_int_eq(put(d, KEY, "object bytes", 12), 0);
	FILE *f = fopen(path, "ab");
	fputs("x", f);
	fclose(f);
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_CORRUPT);
	f = fopen(path, "wb");
	fclose(f);
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_CORRUPT);
	char *other = entry(d, KEY2);
	ck_assert_int_eq(put(d, KEY2, "object bytes", 12), 0);
	ck_assert_int_eq(rename(other, path), 0);
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_CORRUPT);
	/* nothing but entries is left behind (no temporary files) */
	ck_assert_int_eq(put(d, KEY, "object bytes", 12), 0);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | grep -vx hmac-key | wc -l) -eq 1", d);
	ck_assert_int_eq(system(cmd), 0);
	free(other);
	free(path);
	rmdir_all(d);
	free(d);
}
END_TEST

/* Four processes write the same key over and over while a fifth reads:
 * the reader sees whole entries or none, never a corrupt one. */
START_TEST(entry_concurrent_writers)
{
	char *d = tmpdir();
	size_t big = 1 << 20;
	char *payload = malloc(big);
	memcpy(payload, "object bytes", 12);
	for (size_t i = 12; i < big; i++)
		payload[i] = (char)(i * 7);
	pid_t pids[4];
	for (int k = 0; k < 4; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			int bad = 0;
			for (int i = 0; i < 40; i++)
				bad |= put(d, KEY, payload, big) != 0;
			_exit(bad);
		}
	}
	int corrupt = 0, hits = 0;
	for (int i = 0; i < 200; i++) {
		size_t n = 0;
		pt_cache_status st = get(d, KEY, &n);
		corrupt += st == PT_CACHE_CORRUPT;
		hits += st == PT_CACHE_HIT;
		if (st == PT_CACHE_HIT)
			ck_assert_uint_eq(n, big);
	}
	for (int k = 0; k < 4; k++) {
		int status;
		ck_assert_int_eq(waitpid(pids[k], &status, 0), pids[k]);
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ck_assert_int_eq(corrupt, 0);
	size_t n = 0;
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_HIT);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | grep -vx hmac-key | wc -l) -eq 1", d);
	ck_assert_int_eq(system(cmd), 0);
	free(payload);
	rmdir_all(d);
	free(d);
}
END_TEST

START_TEST(directory_choice)
{
	char *d = tmpdir(), want[600];
	char *saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	/* PT_CACHE_DIR first, made with its parents */
	snprintf(want, sizeof(want), "%s/a/b", d);
	setenv("PT_CACHE_DIR", want, 1);
	char *got = pt_cache_dir();
	ck_assert_str_eq(got, want);
	free(got);
	ck_assert_int_eq(access(want, W_OK), 0);
	/* then XDG_CACHE_HOME/polytile, then HOME/.cache/polytile */
	unsetenv("PT_CACHE_DIR");
	setenv("XDG_CACHE_HOME", d, 1);
	snprintf(want, sizeof(want), "%s/polytile", d);
	got = pt_cache_dir();
	ck_assert_str_eq(got, want);
	free(got);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", d, 1);
	snprintf(want, sizeof(want), "%s/.cache/polytile", d);
	got = pt_cache_dir();
	ck_assert_str_eq(got, want);
	free(got);
	/* a path under a file cannot be made: no cache, no error */
	snprintf(want, sizeof(want), "%s/file", d);
	FILE *f = fopen(want, "w");
	fclose(f);
	snprintf(want, sizeof(want), "%s/file/sub", d);
	setenv("PT_CACHE_DIR", want, 1);
	ck_assert_ptr_null(pt_cache_dir());
	unsetenv("PT_CACHE_DIR");
	if (saved_home)
		setenv("HOME", saved_home, 1);
	free(saved_home);
	rmdir_all(d);
	free(d);
}
END_TEST

/* HMAC-SHA-256 against RFC 4231's cases 1, 2 and 6 (a key longer than
 * a block is hashed first). */
static const char *hmac_hex(const void *key, size_t kn, const char *msg)
{
	static char out[65];
	uint8_t d[32];
	pt_hmac m;
	pt_hmac_init(&m, key, kn);
	pt_hmac_update(&m, msg, strlen(msg));
	pt_hmac_final(&m, d);
	pt_sha256_to_hex(d, out);
	return out;
}

START_TEST(hmac_vectors)
{
	uint8_t k[131];
	memset(k, 0x0b, 20);
	ck_assert_str_eq(hmac_hex(k, 20, "Hi There"), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	ck_assert_str_eq(hmac_hex("Jefe", 4, "what do ya want for nothing?"),
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, 131);
	ck_assert_str_eq(hmac_hex(k, 131, "Test Using Larger Than Block-Size Key - Hash Key First"),
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	const uint8_t a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 2, 3, 5 };
	ck_assert(pt_equal_secret(a, a, 4) && !pt_equal_secret(a, b, 4) && pt_equal_secret(a, b, 3));
}
END_TEST

/* The key file: made 0600, 32 bytes, on first use, and the same after;
 * one that is not a private regular file of 32 bytes turns the cache
 * off with a message naming it. */
START_TEST(key_file_is_private)
{
	char *d = tmpdir(), key[600];
	snprintf(key, sizeof(key), "%s/hmac-key", d);
	pt_cache *c = open_cache(d);
	pt_cache_close(c);
	struct stat st;
	ck_assert(!lstat(key, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 && st.st_size == 32);
	ck_assert_int_eq(put(d, KEY, "object bytes", 12), 0);
	size_t n;
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_HIT);
	ck_assert_int_eq(chmod(key, 0644), 0);
	char *why = NULL;
	ck_assert_ptr_null(pt_cache_open(d, &why));
	ck_assert_msg(why && strstr(why, "hmac-key") && strstr(why, "mode 0600"), "%s", why);
	free(why);
	/* a new key: the old entries no longer verify */
	ck_assert_int_eq(unlink(key), 0);
	ck_assert_int_eq(get(d, KEY, &n), PT_CACHE_CORRUPT);
	rmdir_all(d);
	free(d);
}
END_TEST

/* A store past `ulimit -f` fails and leaves no temporary file; those of
 * killed writers (old .tmp-*) are swept by the next store. */
START_TEST(failed_stores_leave_nothing)
{
	char *d = tmpdir(), old[600], young[600];
	pt_cache *c = open_cache(d);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit r = { 1000, 1000 };
		static char big[4096];
		_exit(setrlimit(RLIMIT_FSIZE, &r) || pt_cache_put(c, KEY, big, sizeof(big)) != -1);
	}
	int st;
	ck_assert(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | grep -vx hmac-key | wc -l) -eq 0", d);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(old, sizeof(old), "%s/.tmp-0123456789abcdef", d);
	snprintf(young, sizeof(young), "%s/.tmp-fedcba9876543210", d);
	fclose(fopen(old, "w"));
	fclose(fopen(young, "w"));
	struct timespec t[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
	ck_assert_int_eq(utimensat(AT_FDCWD, old, t, 0), 0);
	ck_assert_int_eq(pt_cache_put(c, KEY, "object bytes", 12), 0);
	ck_assert_int_ne(access(old, F_OK), 0);
	ck_assert_int_eq(access(young, F_OK), 0);   /* a concurrent writer's */
	pt_cache_close(c);
	rmdir_all(d);
	free(d);
}
END_TEST

static void key_of(const char *src, const pt_options *o, char key[65])
{
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_string(ctx, "k.pipe", src);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	char *err = NULL;
	LLVMTargetMachineRef tm = pt_machine_create(NULL, &err);
	ck_assert_ptr_nonnull(tm);
	pt_cache_key(p, o, tm, "pt_pipeline", key);
	LLVMDisposeTargetMachine(tm);
	pt_ctx_free(ctx);
}

#define SRC(k) \
	"pipeline k\nparam N : int = 64\nimage I : f32 [N]\n" \
	"func f(x : 0 .. N-1) : f32 = I(x) * " k "\noutput f\n"

START_TEST(keys_follow_what_the_code_depends_on)
{
	pt_options o = {0};
	char base[65], k[65];
	key_of(SRC("0.5"), &o, base);
	key_of(SRC("0.5"), &o, k);
	ck_assert_str_eq(base, k);
	/* threads, timing and the cache flag do not change the code */
	pt_options same = { .threads = 3, .time = true, .cache = true };
	key_of(SRC("0.5"), &same, k);
	ck_assert_str_eq(base, k);
	/* a float literal that prints alike at 9 digits */
	key_of(SRC("0.50000000001"), &o, k);
	ck_assert_str_ne(base, k);
	pt_options diff[] = {
		{ .opt_level = PT_OPT_NAIVE }, { .no_inline = true }, { .ntile = 1, .tile = {16} },
		{ .ntile = 1, .tile = {32} }, { .overlap = 0.3 }, { .estimates = (const double[]){ 128 } },
	};
	char seen[6][65];
	for (int i = 0; i < 6; i++) {
		key_of(SRC("0.5"), &diff[i], seen[i]);
		ck_assert_str_ne(base, seen[i]);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(seen[j], seen[i]);
	}
	/* the vector width is the vectorizers' at -O0 too; the caches are not */
	char *saved = set_machine(NULL);
	char naive[3][65];
	const char *machines[3] = { "l2=1M,vector=64", "l2=1M,vector=32", "l2=2M,vector=64" };
	for (int i = 0; i < 3; i++) {
		setenv("PT_MACHINE", machines[i], 1);
		key_of(SRC("0.5"), &diff[0], naive[i]);
	}
	ck_assert_str_ne(naive[0], naive[1]);
	ck_assert_str_eq(naive[0], naive[2]);
	restore_machine(saved);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("cache");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, sha256_vectors);
	tcase_add_test(tc, sha256_million_a_in_pieces);
	tcase_add_test(tc, hmac_vectors);
	tcase_add_test(tc, key_file_is_private);
	tcase_add_test(tc, failed_stores_leave_nothing);
	tcase_add_test(tc, entry_round_trip_and_corruption);
	tcase_add_test(tc, entry_concurrent_writers);
	tcase_add_test(tc, directory_choice);
	tcase_add_test(tc, keys_follow_what_the_code_depends_on);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
