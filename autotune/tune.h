/* tune.h: the tuner's parts (autotune/), shared by its files and its unit
 * tests; the API is pt_tune in include/polytile.h. */
#ifndef PT_AUTOTUNE_TUNE_H
#define PT_AUTOTUNE_TUNE_H

#include "polytile.h"

/* What is searched: a size from tiles[] per tiled dim (ntiled of them)
 * and a threshold from overlaps[]; the default (def_tile, def_overlap)
 * orders the candidates. */
typedef struct pt_tune_space {
	int ntiled;
	const int *tiles;
	int ntiles;
	const double *overlaps;
	int noverlaps;
	const int *def_tile;
	double def_overlap;
} pt_tune_space;

/* The most candidates a space may have. */
#define PT_TUNE_MAX_CANDIDATES 100000

/* The candidates of s: the default (ntile 0, overlap 0) first, then every
 * combination, nearest the default first (distance: octaves between each
 * tile size and the default's, plus tenths between the thresholds; ties
 * in enumeration order, the innermost tile size varying fastest).  NULL
 * if s has more than PT_TUNE_MAX_CANDIDATES; *n their number. */
pt_tune_cand *pt_tune_candidates(const pt_tune_space *s, int *n);

/* The grouping keys already timed: each with the candidate that had it. */
typedef struct pt_tune_keys {
	char **key;
	int *cand;
	int n, cap;
} pt_tune_keys;

/* The candidate that had key, or -1 after adding key for cand (key is
 * copied). */
int pt_tune_keys_lookup(pt_tune_keys *k, const char *key, int cand);
void pt_tune_keys_clear(pt_tune_keys *k);

/* The spread of n run times: their median absolute deviation over
 * their median (0 for fewer than 2 runs or a median of 0); times is
 * not changed. */
double pt_tune_spread(const double *times, int n);

#endif
