/* cache.c: the compile cache's directory, key and entries (see cache.h).
 * Every file is reached through the directory's descriptor (openat and
 * friends), never through its path again, and checked with fstat on
 * the open descriptor, so that nothing can be swapped in between a
 * check and a use. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "hmac.h"

#define MAGIC "PTCACHE\n"
/* 1 was a bare SHA-256 of the payload, which anyone can compute: its
 * entries no longer verify and are rebuilt */
#define FORMAT 2u
/* magic 8, format 4, reserved 4, key 32, length 8, HMAC 32 */
enum { SIGNED = 8 + 4 + 4 + 32 + 8, HEADER = SIGNED + 32, SECRET = 32 };
/* an object past this is not something polytile makes: refuse it rather
 * than allocate it */
#define MAX_PAYLOAD ((uint64_t)1 << 31)
#define KEY_FILE "hmac-key"
/* a temporary file this old was left by a writer that was killed */
#define STALE_TMP_S (10 * 60)

struct pt_cache {
	int dfd;
	char *dir;
	uint8_t secret[SECRET];
};

/* mkdir -p path (mode 0700: the objects run as the user's code) */
static int make_dirs(char *path)
{
	for (char *s = path + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			int r = mkdir(path, 0700);
			*s = '/';
			if (r && errno != EEXIST)
				return -1;
		}
	if (mkdir(path, 0700) && errno != EEXIST)
		return -1;
	/* whose it is and who can write it is pt_cache_open's to check */
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode) ? 0 : -1;
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 1;
	char *s = malloc(n);
	snprintf(s, n, "%s%s", a, b);
	return s;
}

char *pt_cache_dir(void)
{
	const char *env = getenv("PT_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir;
	if (env && *env)
		dir = strdup(env);
	else if (xdg && xdg[0] == '/')   /* the spec ignores a relative one */
		dir = join(xdg, "/polytile");
	else if (home && *home)
		dir = join(home, "/.cache/polytile");
	else
		return NULL;
	if (make_dirs(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* A message for the user (caller frees). */
static char *says(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *says(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = malloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static int random_bytes(uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		p += r;
		n -= (size_t)r;
	}
	if (!n)
		return 0;
	/* a kernel without getrandom */
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t r = fd < 0 ? -1 : read(fd, p, n);
	if (fd >= 0)
		close(fd);
	return r == (ssize_t)n ? 0 : -1;
}

/* Creates a new file .tmp-RANDOM in c's directory, mode 0600, never
 * through a planted name (O_EXCL, O_NOFOLLOW); its descriptor, name in
 * tmp. */
static int tmp_create(int dfd, char tmp[32])
{
	for (int tries = 0; tries < 16; tries++) {
		uint8_t r[8];
		if (random_bytes(r, sizeof(r)))
			return -1;
		strcpy(tmp, ".tmp-");
		for (int i = 0; i < 8; i++)
			snprintf(tmp + 5 + 2 * i, 3, "%02x", r[i]);
		int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int write_all(int fd, const void *data, size_t n)
{
	const uint8_t *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *data, size_t n)
{
	uint8_t *p = data;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Whether the open file fd is one of ours: a regular file of this user
 * that no one else can write. */
static bool ours(int fd, struct stat *st)
{
	return !fstat(fd, st) && S_ISREG(st->st_mode) && st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The key file: made by writing a temporary file and linking it to its
 * name (link fails when the name exists), so that a concurrent first
 * run reads a whole key or makes none. */
static void make_secret(int dfd)
{
	char tmp[32];
	uint8_t s[SECRET];
	int fd = tmp_create(dfd, tmp);
	if (fd < 0)
		return;
	bool ok = !random_bytes(s, SECRET) && !write_all(fd, s, SECRET) && !fsync(fd);
	ok = !close(fd) && ok;
	if (ok)
		(void)linkat(dfd, tmp, dfd, KEY_FILE, 0);   /* EEXIST: another run made it */
	unlinkat(dfd, tmp, 0);
	memset(s, 0, SECRET);
}

/* Reads the user's key into c; a message when it cannot be trusted. */
static char *load_secret(pt_cache *c)
{
	int fd = openat(c->dfd, KEY_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		make_secret(c->dfd);
		fd = openat(c->dfd, KEY_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0)
		return says("the cache's key %s/%s cannot be opened (%s)", c->dir, KEY_FILE, strerror(errno));
	struct stat st;
	bool ok = ours(fd, &st) && !(st.st_mode & 077) && st.st_size == SECRET && !read_all(fd, c->secret, SECRET);
	close(fd);
	if (!ok)
		return says("the cache's key %s/%s is not a 32-byte file of yours with mode 0600 "
			"(remove it: a new one is made)", c->dir, KEY_FILE);
	return NULL;
}

pt_cache *pt_cache_open(const char *dir, char **why)
{
	*why = NULL;
	pt_cache *c = calloc(1, sizeof(*c));
	c->dir = strdup(dir);
	c->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (c->dfd < 0 || fstat(c->dfd, &st)) {
		*why = says("the cache directory %s cannot be opened (%s)", dir, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		*why = says("the cache directory %s is owned by uid %lu, not by you", dir, (unsigned long)st.st_uid);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		*why = says("the cache directory %s can be written by group or others (mode %04lo; "
			"chmod go-w it, or set PT_CACHE_DIR to a directory of yours)", dir, (unsigned long)(st.st_mode & 07777));
	} else {
		*why = load_secret(c);
	}
	if (*why) {
		pt_cache_close(c);
		return NULL;
	}
	return c;
}

void pt_cache_close(pt_cache *c)
{
	if (!c)
		return;
	if (c->dfd >= 0)
		close(c->dfd);
	memset(c->secret, 0, SECRET);
	free(c->dir);
	free(c);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A key is 64 lowercase hex digits: it names a file in the directory. */
static bool key_bytes(const char *key, uint8_t out[32])
{
	static const char digits[] = "0123456789abcdef";
	if (strlen(key) != 64)
		return false;
	for (int i = 0; i < 64; i++) {
		const char *d = key[i] ? strchr(digits, key[i]) : NULL;
		if (!d)
			return false;
		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] << 4 | (d - digits) : (d - digits));
	}
	return true;
}

/* The header a writer of this key and these bytes writes: the fields,
 * then their and the payload's HMAC with the user's key. */
static void header(const pt_cache *c, uint8_t h[HEADER], const uint8_t key[32], const void *data, size_t n)
{
	memcpy(h, MAGIC, 8);
	put_u32(h + 8, FORMAT);
	put_u32(h + 12, 0);
	memcpy(h + 16, key, 32);
	put_u64(h + 48, n);
	pt_hmac m;
	pt_hmac_init(&m, c->secret, SECRET);
	pt_hmac_update(&m, h, SIGNED);
	pt_hmac_update(&m, data, n);
	pt_hmac_final(&m, h + SIGNED);
}

static void entry_name(const char *key, char name[72])
{
	snprintf(name, 72, "%.64s.obj", key);
}

/* Takes something that is not an entry away from an entry's name, so
 * that the next store can put one there (and it is reported once): a
 * file or link is removed, a directory too if empty, else moved aside
 * to NAME.bad-RANDOM. */
static const char *clear_name(pt_cache *c, const char *name, const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return unlinkat(c->dfd, name, 0) ? "could not be removed" : "removed";
	if (!unlinkat(c->dfd, name, AT_REMOVEDIR))
		return "removed";
	char aside[120];
	uint8_t r[4] = {0};
	(void)random_bytes(r, sizeof(r));
	snprintf(aside, sizeof(aside), "%s.bad-%02x%02x%02x%02x", name, r[0], r[1], r[2], r[3]);
	return renameat(c->dfd, name, c->dfd, aside) ? "could not be moved aside" : "moved aside";
}

static const char *kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISLNK(m) ? "a symbolic link" :
		S_ISSOCK(m) ? "a socket" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/* Opens entry name for reading, without following a link and without
 * blocking on a FIFO; -1 with *why set when something else is there. */
static int open_entry(pt_cache *c, const char *name, char **why)
{
	int fd = openat(c->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		if (errno != ENOENT && !fstatat(c->dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			*why = says("cache entry %s/%s is %s: %s", c->dir, name, kind(st.st_mode), clear_name(c, name, &st));
		return -1;
	}
	if (ours(fd, &st))
		return fd;
	close(fd);
	if (!S_ISREG(st.st_mode))
		*why = says("cache entry %s/%s is %s: %s", c->dir, name, kind(st.st_mode), clear_name(c, name, &st));
	else
		*why = says("cache entry %s/%s is owned by uid %lu or writable by others: %s", c->dir, name,
			(unsigned long)st.st_uid, clear_name(c, name, &st));
	return -1;
}

pt_cache_status pt_cache_get(pt_cache *c, const char *key, void **data, size_t *n, char **why)
{
	*why = NULL;
	uint8_t kb[32];
	char name[72];
	if (!key_bytes(key, kb))
		return PT_CACHE_MISS;
	entry_name(key, name);
	int fd = open_entry(c, name, why);
	if (fd < 0)
		return *why ? PT_CACHE_CORRUPT : PT_CACHE_MISS;
	struct stat st;
	uint8_t h[HEADER], want[HEADER];
	uint8_t *buf = NULL;
	uint64_t len = 0;
	bool ok = !fstat(fd, &st) && read_all(fd, h, HEADER) == 0 && (len = get_u64(h + 48)) <= MAX_PAYLOAD &&
		(uint64_t)st.st_size == HEADER + len && (buf = malloc(len ? len : 1)) && read_all(fd, buf, len) == 0;
	close(fd);
	/* every byte of the header must be what this user's polytile would
	 * have written for this key and these bytes */
	if (ok) {
		header(c, want, kb, buf, len);
		ok = !memcmp(h, want, SIGNED) && pt_equal_secret(h + SIGNED, want + SIGNED, 32);
	}
	if (!ok) {
		free(buf);
		unlinkat(c->dfd, name, 0);   /* a concurrent writer's rename may already replace it: either is fine */
		return PT_CACHE_CORRUPT;
	}
	*data = buf;
	*n = len;
	return PT_CACHE_HIT;
}

/* Removes the temporary files of writers that were killed (a failing
 * writer removes its own): this user's, older than STALE_TMP_S. */
static void sweep_stale(pt_cache *c)
{
	int fd = openat(c->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	time_t now = time(NULL);
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		if (!strncmp(e->d_name, ".tmp-", 5) && !fstatat(c->dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			S_ISREG(st.st_mode) && st.st_uid == geteuid() && now - st.st_mtime > STALE_TMP_S)
			unlinkat(c->dfd, e->d_name, 0);
	}
	closedir(d);
}

int pt_cache_put(pt_cache *c, const char *key, const void *data, size_t n)
{
	uint8_t kb[32], h[HEADER];
	char name[72], tmp[32];
	if (!key_bytes(key, kb))
		return -1;
	entry_name(key, name);
	sweep_stale(c);
	int fd = tmp_create(c->dfd, tmp);
	if (fd < 0)
		return -1;
	header(c, h, kb, data, n);
	bool ok = !write_all(fd, h, HEADER) && !write_all(fd, data, n);
	ok = !close(fd) && ok;
	/* rename is atomic: readers see the old entry, or none, or this one */
	if (ok)
		ok = !renameat(c->dfd, tmp, c->dfd, name);
	if (!ok)
		unlinkat(c->dfd, tmp, 0);
	return ok ? 0 : -1;
}
