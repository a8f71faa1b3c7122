/* fixture.h: the Check fixture of the suites that parse small pipelines
 * and run them: a fresh pt_ctx per test, an interpreter and up to
 * MAX_BUFS input buffers, all freed in teardown. */
#ifndef PT_TEST_FIXTURE_H
#define PT_TEST_FIXTURE_H

#include "polytile.h"

#define MAX_BUFS 12

static pt_ctx *ctx;
static pt_interp *in;
static pt_buffer bufs[MAX_BUFS];
static int nbufs;

static void setup(void)
{
	ctx = pt_ctx_new();
	in = NULL;
	nbufs = 0;
}

static void teardown(void)
{
	pt_interp_free(in);
	in = NULL;
	for (int i = 0; i < nbufs; i++)
		pt_buffer_free(&bufs[i]);
	nbufs = 0;
	pt_ctx_free(ctx);
	ctx = NULL;
}

#endif
