/* image_io.h: the runtime's file I/O: the public readers and writers of
 * pt_io.h, and the helpers its writers share (atomic temporary files). */
#ifndef PT_IMAGE_IO_H
#define PT_IMAGE_IO_H

#include <stdio.h>

#include "pt_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Helpers shared by the runtime's writers; not meant for pipelines. */

/* A file being written (out_file.c): under a temporary name next to
 * the file it replaces, or in place for a device or FIFO. */
typedef struct pt_io_tmpfile {
	FILE *fp;
	char *tmp_path;     /* NULL when written in place */
	const char *path;   /* as the caller named it, for messages */
	char *final;        /* path, or the target of its symbolic link */
} pt_io_tmpfile;

/* Formats a one-line message into err (if err is not NULL). */
void pt_io_error(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* Creates ".pt-XXXXXX" in the directory of path (of its target when
 * path is a symbolic link) with mkstemp and opens it for writing; an
 * existing device or FIFO is opened in place; a directory or a link to
 * nothing is refused. */
int pt_io_tmp_open(pt_io_tmpfile *t, const char *path, char *err,
		size_t errlen);
/* Flushes, syncs and closes the temporary file and renames it to path;
 * on any failure removes it instead. */
int pt_io_tmp_commit(pt_io_tmpfile *t, char *err, size_t errlen);
/* Closes and removes the temporary file (after a failed write). */
void pt_io_tmp_abort(pt_io_tmpfile *t);

#ifdef __cplusplus
}
#endif
#endif
