/* rt_error.c: errors that compiled code finds while its schedule runs
 * (inside parallel loops, where no code can be returned): the first one
 * is kept until the pipeline function takes it and returns it. */
#include <stdatomic.h>

#include "pt_runtime.h"

static atomic_int first_error;

void pt_rt_fail(int32_t code)
{
	int none = 0;
	atomic_compare_exchange_strong(&first_error, &none, code);
}

int32_t pt_rt_take_error(void)
{
	return atomic_exchange(&first_error, 0);
}
