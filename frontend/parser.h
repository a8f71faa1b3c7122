/* parser.h: .pipe text -> IR, with compile-time constants and loops
 * expanded as the text is read (a family `G[l]` becomes stages "G[0]",
 * "G[1]", ...).  Names of stages, images, params and variables inside
 * expressions are left as NAME/CALL nodes for resolve.c to bind. */
#ifndef PT_PARSER_H
#define PT_PARSER_H

#include "ir.h"
#include "lexer.h"

typedef struct pt_parser pt_parser;

/* The parser adds what it reads to p (borrowed) and reports into d. */
pt_parser *pt_parser_new(pt_diag *d, pt_pipeline *p);
pt_parser *pt_parser_free(pt_parser *ps);

/* Parses a whole file: "pipeline NAME" then declarations. */
bool pt_parser_parse_file(pt_parser *ps, const pt_source *src);
/* Parses src as one expression (builder API); NULL after an error. */
pt_expr *pt_parser_parse_expr(pt_parser *ps, const pt_source *src);
/* Parses src as the declarations that may follow the header. */
bool pt_parser_parse_decls(pt_parser *ps, const pt_source *src);

/* Named conditions and constants, for the builder API (expr is taken). */
bool pt_parser_define_cond(pt_parser *ps, const char *name, pt_expr *expr);
bool pt_parser_define_const(pt_parser *ps, const char *name, double v, bool is_int);
/* The default interval of a variable declared with `var`, or NULL. */
const pt_interval *pt_parser_var_interval(pt_parser *ps, const char *name);
bool pt_parser_define_var(pt_parser *ps, const char *name, pt_interval iv);

#endif
