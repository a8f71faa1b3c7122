/* out_file.c: how the runtime's and the CLI's writers put a file in
 * place: whole or not at all, and never anywhere but where the user
 * asked.
 *
 * A regular file (or a new one) is written under a temporary name in
 * its directory and renamed over it, so that readers, and the user
 * after a failure (a full disk, `ulimit -f`), see the old file or the
 * complete new one.  A symbolic link is written through, as a shell's
 * `>` does: its target is replaced (keeping the target's mode) and the
 * link stays a link; a link to nothing is refused.  A path that is not
 * a regular file (a device such as /dev/null or /dev/full, a FIFO) is
 * written in place, since nothing can be renamed over it without
 * replacing the device; a directory is refused. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define _XOPEN_SOURCE 700   /* realpath */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image_io.h"

/* The umask, read from /proc (umask() would change it for a moment, which
 * is not thread-safe); 022 where /proc does not say. */
static mode_t current_umask(void)
{
	mode_t m = 022;
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		unsigned v;
		if (sscanf(line, "Umask: %o", &v) == 1) {
			m = (mode_t)v & 0777;
			break;
		}
	}
	if (f)
		fclose(f);
	return m;
}

/* Gives the temporary file the mode the final file should have: that of
 * the file it replaces, or 0666 less the umask for a new one (mkstemp
 * makes 0600). */
static void set_final_mode(int fd, const struct stat *old)
{
	mode_t mode = old ? old->st_mode & (S_IRWXU | S_IRWXG | S_IRWXO) : 0666 & ~current_umask();
	(void)fchmod(fd, mode);
}

/* Opens the existing non-regular file path (a device, a FIFO) to write
 * in place: no O_CREAT, no O_TRUNC; O_NONBLOCK so that a FIFO no one
 * reads is refused (ENXIO) rather than waited on. */
static int open_in_place(pt_io_tmpfile *t, char *err, size_t errlen)
{
	int fd = open(t->final, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && fcntl(fd, F_SETFL, 0) == 0 && (t->fp = fdopen(fd, "wb")))
		return PT_OK;
	int e = errno;
	if (fd >= 0)
		close(fd);
	pt_io_error(err, errlen, "%s: cannot open to write: %s", t->path,
			e == ENXIO ? "a FIFO that no process reads" : strerror(e));
	pt_io_tmp_abort(t);
	return PT_ERR_IO;
}

/* Where path's bytes go: path itself, or the file its symbolic link
 * names (t->final); *st is that file's, *exists whether it is there. */
static int resolve(pt_io_tmpfile *t, struct stat *st, int *exists, char *err, size_t errlen)
{
	struct stat lst;
	t->final = strdup(t->path);
	*exists = lstat(t->path, &lst) == 0;
	if (*exists && S_ISLNK(lst.st_mode)) {
		char *real = realpath(t->path, NULL);
		if (!real) {
			pt_io_error(err, errlen, "%s: a symbolic link to a file that cannot be reached (%s): "
					"write to its target, or remove the link", t->path, strerror(errno));
			return PT_ERR_IO;
		}
		free(t->final);
		t->final = real;
	}
	if (!t->final) {
		pt_io_error(err, errlen, "%s: out of memory", t->path);
		return PT_ERR_NOMEM;
	}
	*exists = stat(t->final, st) == 0;
	if (*exists && S_ISDIR(st->st_mode)) {
		pt_io_error(err, errlen, "%s: is a directory", t->path);
		return PT_ERR_IO;
	}
	return PT_OK;
}

/* Creates ".pt-XXXXXX" in the final file's directory (so rename() stays
 * within one file system; a short name, so that any valid file name can
 * be written) with mkstemp (O_EXCL: a planted file or symlink is never
 * followed) and opens it as a stdio stream; or opens a device or FIFO
 * in place. */
int pt_io_tmp_open(pt_io_tmpfile *t, const char *path, char *err,
		size_t errlen)
{
	static const char base[] = ".pt-XXXXXX";
	struct stat st;
	int exists;
	*t = (pt_io_tmpfile){ .path = path };
	int rc = resolve(t, &st, &exists, err, errlen);
	if (rc != PT_OK) {
		pt_io_tmp_abort(t);
		return rc;
	}
	if (exists && !S_ISREG(st.st_mode))
		return open_in_place(t, err, errlen);
	const char *slash = strrchr(t->final, '/');
	size_t n = slash ? (size_t)(slash - t->final) + 1 : 0;
	t->tmp_path = malloc(n + sizeof(base));
	if (!t->tmp_path) {
		pt_io_error(err, errlen, "%s: out of memory", path);
		pt_io_tmp_abort(t);
		return PT_ERR_NOMEM;
	}
	memcpy(t->tmp_path, t->final, n);
	memcpy(t->tmp_path + n, base, sizeof(base));
	int fd = mkstemp(t->tmp_path);
	if (fd < 0) {
		pt_io_error(err, errlen, "%s: cannot create a temporary file "
				"to write: %s", path, strerror(errno));
		free(t->tmp_path);
		t->tmp_path = NULL;
		pt_io_tmp_abort(t);
		return PT_ERR_IO;
	}
	set_final_mode(fd, exists ? &st : NULL);
	t->fp = fdopen(fd, "wb");
	if (!t->fp) {
		pt_io_error(err, errlen, "%s: cannot open a temporary file: %s",
				path, strerror(errno));
		close(fd);
		pt_io_tmp_abort(t);
		return PT_ERR_IO;
	}
	return PT_OK;
}

/* Makes the written data durable and only then moves it over the final
 * path, so readers see either the old file or the complete new one. */
int pt_io_tmp_commit(pt_io_tmpfile *t, char *err, size_t errlen)
{
	const char *what = NULL;
	int e = 0;
	if (fflush(t->fp) != 0 || ferror(t->fp))
		what = "write failed";
	else if (t->tmp_path && fsync(fileno(t->fp)) != 0)   /* a device need not sync */
		what = "sync failed";
	if (what)
		e = errno;
	if (fclose(t->fp) != 0 && !what) {
		what = "close failed";
		e = errno;
	}
	t->fp = NULL;
	if (!what && t->tmp_path && rename(t->tmp_path, t->final) != 0) {
		what = "cannot rename the temporary file";
		e = errno;
	}
	if (what) {
		pt_io_error(err, errlen, "%s: %s: %s", t->path, what,
				strerror(e));
		pt_io_tmp_abort(t);
		return PT_ERR_IO;
	}
	free(t->tmp_path);
	t->tmp_path = NULL;
	free(t->final);
	t->final = NULL;
	return PT_OK;
}

int pt_io_write_file(const char *path, const void *data, size_t n, char *err, size_t errlen)
{
	pt_io_tmpfile t;
	int rc = pt_io_tmp_open(&t, path, err, errlen);
	if (rc != PT_OK)
		return rc;
	if (n && fwrite(data, 1, n, t.fp) != n) {
		pt_io_error(err, errlen, "%s: write failed: %s", path, strerror(errno));
		pt_io_tmp_abort(&t);
		return PT_ERR_IO;
	}
	return pt_io_tmp_commit(&t, err, errlen);
}

/* Throws away a partly written temporary file (a device or FIFO written
 * in place keeps what reached it). */
void pt_io_tmp_abort(pt_io_tmpfile *t)
{
	if (t->fp)
		fclose(t->fp);
	t->fp = NULL;
	if (t->tmp_path)
		unlink(t->tmp_path);
	free(t->tmp_path);
	t->tmp_path = NULL;
	free(t->final);
	t->final = NULL;
}
