/* rt_error.c: errors that compiled code finds while its schedule runs
 * (inside parallel loops or on a device, where no code can be returned):
 * the first one is kept, with what failed and where, until the pipeline
 * function takes it and returns its code. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "pt_runtime.h"

#define RT_MSG 512

static atomic_int first_error;
/* written by the one failure that set first_error, before the pipeline
 * function (which joins every thread first) takes it */
static char first_msg[RT_MSG];
static _Thread_local char taken_msg[RT_MSG];

void pt_rt_fail(int32_t code)
{
	int none = 0;
	if (atomic_compare_exchange_strong(&first_error, &none, code))
		first_msg[0] = 0;
}

/* what with its "(@)" replaced by the point, into first_msg. */
static void format(const char *what, int32_t n, const int64_t *point)
{
	char pt[300];
	size_t k = 0;
	pt[k++] = '(';
	pt[k] = 0;
	for (int32_t d = 0; d < n && d < 16 && k < sizeof(pt) - 24; d++)
		k += (size_t)snprintf(pt + k, sizeof(pt) - k, "%s%" PRId64, d ? ", " : "", point[d]);
	snprintf(pt + k, sizeof(pt) - k, ")");
	const char *at = what ? strstr(what, "(@)") : NULL;
	if (!what)
		first_msg[0] = 0;
	else if (!at)
		snprintf(first_msg, sizeof(first_msg), "%s", what);
	else
		snprintf(first_msg, sizeof(first_msg), "%.*s%s%s", (int)(at - what), what, pt, at + 3);
}

void pt_rt_fail_at(int32_t code, const char *what, int32_t n, const int64_t *point)
{
	int none = 0;
	if (atomic_compare_exchange_strong(&first_error, &none, code))
		format(what, n, point);
}

int32_t pt_rt_take_error(void)
{
	int32_t code = atomic_exchange(&first_error, 0);
	if (code)
		memcpy(taken_msg, first_msg, sizeof(taken_msg));
	return code;
}

const char *pt_rt_error_detail(void)
{
	return taken_msg;
}
