/* cache.h: the content-addressed cache of compiled objects, so that
 * running an unchanged pipeline skips LLVM.
 *
 * An entry is one file, DIR/KEY.obj, KEY the SHA-256 of everything the
 * object depends on (cache_key.c).  The file is a header (magic, format,
 * the key again, the payload's length and SHA-256) and the object bytes.
 * A writer fills a temporary file in DIR and renames it over the entry,
 * so that a reader sees a whole entry or none, and concurrent writers of
 * one key both succeed (the last rename wins, with identical bytes).  A
 * reader checks everything in the header: a truncated or altered entry
 * is removed and counts as a miss, and the compile that follows rewrites
 * it. */
#ifndef PT_DRIVER_CACHE_H
#define PT_DRIVER_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/TargetMachine.h>

#include "polytile.h"

/* The cache directory, created if missing: $PT_CACHE_DIR, else
 * $XDG_CACHE_HOME/polytile, else $HOME/.cache/polytile.  NULL when none
 * can be made (the compile then goes on without the cache); caller
 * frees. */
char *pt_cache_dir(void);

/* The key (64 hex digits) of compiling p with opt for machine tm as a
 * function named fname. */
void pt_cache_key(const pt_pipeline *p, const pt_options *opt, LLVMTargetMachineRef tm,
	const char *fname, char key[65]);

typedef enum pt_cache_status { PT_CACHE_MISS, PT_CACHE_HIT, PT_CACHE_CORRUPT } pt_cache_status;

/* Entry key of dir: on a hit, *data (caller frees) and *n hold the
 * object.  A corrupt entry is removed. */
pt_cache_status pt_cache_get(const char *dir, const char *key, void **data, size_t *n);
/* Stores the object as entry key of dir; 0, or -1 (nothing is left
 * behind: the cache is an optimization, a failure to write is not an
 * error of the compile). */
int pt_cache_put(const char *dir, const char *key, const void *data, size_t n);

#endif
