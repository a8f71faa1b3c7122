/* cache.h: the content-addressed cache of compiled objects, so that
 * running an unchanged pipeline skips LLVM.
 *
 * An entry is one file, DIR/KEY.obj, KEY the SHA-256 of everything the
 * object depends on (cache_key.c).  The file is a header (magic, format,
 * the key again, the payload's length and its HMAC-SHA-256) and the
 * object bytes.  The objects run as the user's code, so the cache
 * trusts the user and root only (docs/cli.md, "The compile cache"):
 * a directory not owned by the user or writable by group or others is
 * refused; entries are opened without following symlinks and must be
 * regular files of the user; and each is authenticated with a random
 * 32-byte key kept in DIR/hmac-key (mode 0600), so that a file planted
 * by anyone without that key, however well formed, is never linked.
 * A writer fills a temporary file in DIR and renames it over the entry,
 * so that a reader sees a whole entry or none, and concurrent writers of
 * one key both succeed (the last rename wins, with identical bytes).  A
 * reader checks everything in the header: a truncated, altered or
 * unauthenticated entry counts as a miss, and the compile that follows
 * replaces it. */
#ifndef PT_DRIVER_CACHE_H
#define PT_DRIVER_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/TargetMachine.h>

#include "polytile.h"

/* The cache directory's path, created (mode 0700) if missing:
 * $PT_CACHE_DIR, else $XDG_CACHE_HOME/polytile, else
 * $HOME/.cache/polytile.  NULL when none can be made; caller frees. */
char *pt_cache_dir(void);

/* An open cache: the directory (checked, held open so that it cannot
 * be swapped under us) and the user's key. */
typedef struct pt_cache pt_cache;

/* Opens the cache in dir: its checks, then its key (made on first
 * use).  NULL when it must not be used; then *why (caller frees) says
 * why, for the user: the compile goes on without the cache. */
pt_cache *pt_cache_open(const char *dir, char **why);
void pt_cache_close(pt_cache *c);

/* The key (64 hex digits) of compiling p with opt for machine tm as a
 * function named fname. */
void pt_cache_key(const pt_pipeline *p, const pt_options *opt, LLVMTargetMachineRef tm,
	const char *fname, char key[65]);

typedef enum pt_cache_status { PT_CACHE_MISS, PT_CACHE_HIT, PT_CACHE_CORRUPT } pt_cache_status;

/* Entry key of c: on a hit, *data (caller frees) and *n hold the
 * object.  A bad entry is removed and counts as PT_CACHE_CORRUPT; when
 * it was no regular file of the user's (a symlink, a FIFO, a directory,
 * another user's file), *why (caller frees) says so, for the user. */
pt_cache_status pt_cache_get(pt_cache *c, const char *key, void **data, size_t *n, char **why);
/* Stores the object as entry key of c; 0, or -1 (nothing is left
 * behind: the cache is an optimization, a failure to write is not an
 * error of the compile). */
int pt_cache_put(pt_cache *c, const char *key, const void *data, size_t n);

#endif
