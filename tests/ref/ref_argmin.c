/* ref_argmin.c: the 4-D argmin visited in lexicographic order (last
 * index fastest, as memory is laid out); a strict < keeps the first of
 * equal values, the language's tie rule (docs/language.md §12). */
#include <stddef.h>

#include "ref_argmin.h"

void ref_argmin(int N, const uint8_t *V, uint8_t *val, int32_t idx[4])
{
	size_t n = (size_t)N * (size_t)N * (size_t)N * (size_t)N, best = 0;
	for (size_t i = 1; i < n; i++)
		if (V[i] < V[best])
			best = i;
	*val = V[best];
	for (int k = 3; k >= 0; k--) {
		idx[k] = (int32_t)(best % (size_t)N);
		best /= (size_t)N;
	}
}
