/* cache.c: the compile cache's directory and entries (see cache.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "sha256.h"

#define MAGIC "PTCACHE\n"
#define FORMAT 1u
/* magic 8, format 4, reserved 4, key 32, length 8, payload SHA-256 32 */
enum { HEADER = 8 + 4 + 4 + 32 + 8 + 32 };
/* an object past this is not something polytile makes: refuse it rather
 * than allocate it */
#define MAX_PAYLOAD ((uint64_t)1 << 31)

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
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode) && !access(path, W_OK | X_OK) ? 0 : -1;
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

static char *entry_path(const char *dir, const char *key)
{
	size_t n = strlen(dir) + strlen(key) + 6;
	char *s = malloc(n);
	snprintf(s, n, "%s/%s.obj", dir, key);
	return s;
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

static void key_bytes(const char *key, uint8_t out[32])
{
	for (int i = 0; i < 32; i++) {
		unsigned b = 0;
		sscanf(key + 2 * i, "%2x", &b);
		out[i] = (uint8_t)b;
	}
}

static void header(uint8_t h[HEADER], const char *key, const void *data, size_t n)
{
	memcpy(h, MAGIC, 8);
	put_u32(h + 8, FORMAT);
	put_u32(h + 12, 0);
	key_bytes(key, h + 16);
	put_u64(h + 48, n);
	pt_sha256 s;
	pt_sha256_init(&s);
	pt_sha256_update(&s, data, n);
	pt_sha256_final(&s, h + 56);
}

pt_cache_status pt_cache_get(const char *dir, const char *key, void **data, size_t *n)
{
	char *path = entry_path(dir, key);
	FILE *f = fopen(path, "rb");
	if (!f) {
		free(path);
		return PT_CACHE_MISS;
	}
	uint8_t h[HEADER], want[HEADER];
	uint8_t *buf = NULL;
	uint64_t len = 0;
	bool ok = fread(h, 1, HEADER, f) == HEADER && (len = get_u64(h + 48)) <= MAX_PAYLOAD &&
		(buf = malloc(len ? len : 1)) && fread(buf, 1, len, f) == len && fgetc(f) == EOF;
	fclose(f);
	/* every byte of the header must be what a writer of this key and
	 * these bytes would have written */
	if (ok) {
		header(want, key, buf, len);
		ok = !memcmp(h, want, HEADER);
	}
	if (!ok) {
		free(buf);
		unlink(path);   /* a concurrent writer's rename may already replace it: either is fine */
		free(path);
		return PT_CACHE_CORRUPT;
	}
	free(path);
	*data = buf;
	*n = len;
	return PT_CACHE_HIT;
}

int pt_cache_put(const char *dir, const char *key, const void *data, size_t n)
{
	char *tmp = join(dir, "/.tmp-XXXXXX");
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	uint8_t h[HEADER];
	header(h, key, data, n);
	FILE *f = fdopen(fd, "wb");
	bool ok = f && fwrite(h, 1, HEADER, f) == HEADER && fwrite(data, 1, n, f) == n;
	if (f)
		ok = !fclose(f) && ok;
	else
		close(fd);
	char *path = entry_path(dir, key);
	/* rename is atomic: readers see the old entry, or none, or this one */
	if (ok)
		ok = !rename(tmp, path);
	if (!ok)
		unlink(tmp);
	free(path);
	free(tmp);
	return ok ? 0 : -1;
}
