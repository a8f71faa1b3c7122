/* ctx.h: the compilation context behind pt_ctx (private). */
#ifndef PT_CTX_H
#define PT_CTX_H

#include "polytile.h"
#include "ir.h"
#include "parser.h"

struct pt_ctx;

/* A pipeline the ctx owns; parser and last are set while building. */
typedef struct pt_owned {
	struct pt_ctx *ctx;
	pt_pipeline *p;
	pt_parser *parser;
	pt_stage *last;
	int errors_before;      /* ctx errors when the builder started */
} pt_owned;

struct isl_ctx;

struct pt_ctx {
	pt_diag diag;
	struct isl_ctx *isl;     /* one per pt_ctx, made on first use */
	pt_owned **pipelines;
	int npipelines;
	pt_options opt;          /* pt_ctx_set_options: checking's dumps and times */
};

#endif
