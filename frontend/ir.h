/* ir.h: the pipeline IR, a DAG of stages over integer domains.
 *
 * Every later pass hangs off these structures: poly/ converts the affine
 * expressions (domain bounds, affine call arguments) to isl directly from
 * the trees below, codegen/ walks the same trees to emit LLVM IR, and the
 * interpreter evaluates them.  Node kinds and operators are listed once as
 * X-macros so that enums and name tables stay in step; code that visits
 * every node goes through pt_expr_walk / pt_expr_map.
 *
 * Parser and builder make stages through the same constructors below
 * (pt_pipeline_declare_*, pt_stage_add_*), which hold every rule about
 * declarations (fresh names, distinct variables, dimension limits, cases
 * of functions, updates of reductions) and report located errors. */
#ifndef PT_IR_H
#define PT_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_runtime.h"
#include "diag.h"

/* Value types: the element types of pt_runtime.h plus bool for conditions. */
#define PT_BOOL PT_NTYPES
#define PT_NO_TYPE (-1)

#define PT_EXPR_KINDS(X) \
	X(INT, "integer literal") \
	X(FLOAT, "float literal") \
	X(NAME, "name") \
	X(PARAM, "parameter") \
	X(VAR, "variable") \
	X(CALL, "call") \
	X(UNARY, "unary operation") \
	X(BINARY, "binary operation") \
	X(SELECT, "select") \
	X(CAST, "cast") \
	X(INTRIN, "intrinsic")

#define PT_UNOPS(X) \
	X(NEG, "-") X(NOT, "!") X(BNOT, "~")

#define PT_BINOPS(X) \
	X(ADD, "+") X(SUB, "-") X(MUL, "*") X(DIV, "/") X(MOD, "%") \
	X(LT, "<") X(LE, "<=") X(GT, ">") X(GE, ">=") X(EQ, "==") X(NE, "!=") \
	X(AND, "&&") X(OR, "||") X(BAND, "&") X(BOR, "|") X(BXOR, "^") \
	X(SHL, "<<") X(SHR, ">>")

/* name, arity (-1: 2 or more) */
#define PT_INTRINSICS(X) \
	X(MIN, "min", -1) X(MAX, "max", -1) X(CLAMP, "clamp", 3) \
	X(ABS, "abs", 1) X(SQRT, "sqrt", 1) X(EXP, "exp", 1) X(LOG, "log", 1) \
	X(POW, "pow", 2) X(FLOOR, "floor", 1) X(CEIL, "ceil", 1) \
	X(ROUND, "round", 1) X(SIN, "sin", 1) X(COS, "cos", 1) \
	X(TAN, "tan", 1) X(ATAN2, "atan2", 2) X(TANH, "tanh", 1)

#define PT_REDOPS(X) \
	X(NONE, "none", "") X(SUM, "sum", "+=") X(PROD, "prod", "*=") \
	X(MIN, "min", "min=") X(MAX, "max", "max=") X(AND, "and", "&&=") \
	X(OR, "or", "||=") X(UPDATE, "update", "=")

#define PT_ENUM_(n, ...) PT_E_##n,
typedef enum pt_expr_kind { PT_EXPR_KINDS(PT_ENUM_) PT_E_COUNT } pt_expr_kind;
#undef PT_ENUM_
#define PT_ENUM_(n, ...) PT_OP_##n,
typedef enum pt_unop { PT_UNOPS(PT_ENUM_) PT_OP_UNCOUNT } pt_unop;
typedef enum pt_binop { PT_BINOPS(PT_ENUM_) PT_OP_BINCOUNT } pt_binop;
#undef PT_ENUM_
#define PT_ENUM_(n, ...) PT_IN_##n,
typedef enum pt_intrin { PT_INTRINSICS(PT_ENUM_) PT_IN_COUNT } pt_intrin;
#undef PT_ENUM_
#define PT_ENUM_(n, ...) PT_RED_##n,
typedef enum pt_redop { PT_REDOPS(PT_ENUM_) PT_RED_COUNT } pt_redop;
#undef PT_ENUM_

struct pt_stage;
struct pt_image;

/* Tuple reductions (frontend/tuple.h): at most this many components. */
#define PT_MAX_TUPLE 8
/* How a tuple reduction's updates combine: componentwise built-in
 * operators, argmin/argmax (lexicographic on the tuple), or general
 * updates h(t) = (E0, E1, ...). */
typedef enum pt_tuple_kind {
	PT_TUPLE_NONE, PT_TUPLE_EACH, PT_TUPLE_ARGMIN, PT_TUPLE_ARGMAX, PT_TUPLE_GENERAL
} pt_tuple_kind;

/* What the checker's lowering made of a node, so that messages and
 * listings print it as written: an inserted conversion prints as its
 * operand, the min of a lowered clamp as clamp(v, lo, hi), and a min/max
 * that is the left operand of the same intrinsic from one n-ary call is
 * printed flat into it. */
typedef enum pt_written {
	PT_AS_WRITTEN, PT_IMPLICIT_CAST, PT_FROM_CLAMP, PT_FROM_NARY
} pt_written;

/* One expression node.  CALL nodes are the edges of the DAG: after name
 * resolution exactly one of stage/image is set. */
typedef struct pt_expr {
	pt_expr_kind kind;
	int type;               /* a pt_type, PT_BOOL, or PT_NO_TYPE before checking */
	pt_loc loc;
	pt_written written;
	int op;                 /* pt_unop, pt_binop or pt_intrin */
	int64_t ival;           /* INT */
	double fval;            /* FLOAT */
	char *name;             /* NAME, CALL: the name as written (families folded: "G[2]") */
	int index;              /* VAR: domain dim, then reduction dims; PARAM: param index */
	struct pt_stage *stage; /* CALL to a stage */
	struct pt_image *image; /* CALL to an image */
	int nargs;
	struct pt_expr **args;  /* CALL args, operands, SELECT (c, a, b), CAST (a) */
} pt_expr;

/* An inclusive interval lo .. hi with a positive step; lo and hi are
 * affine in int params (floor division by constants allowed). */
typedef struct pt_interval {
	pt_expr *lo, *hi;
	int64_t step;
} pt_interval;

/* A piece of a definition: value where cond holds (cond NULL: everywhere).
 * For reductions, target gives the updated point (ndim expressions).
 * A general update (`h(t) = E`, operator PT_RED_UPDATE) keeps in value
 * the one sub-expression of E that does not read h(t), and in update
 * E's operator: an expression of two VAR nodes, PT_UPD_ACC (the
 * accumulator h(t), of the stage's type) and PT_UPD_VAL (the value, of
 * value's type), that no other pass walks (frontend/update.h). */
typedef struct pt_case {
	pt_expr *cond;
	pt_expr *value;
	pt_expr **target;
	pt_expr *update;        /* PT_RED_UPDATE only, else NULL */
	pt_loc loc;
} pt_case;

/* The operands of a general update's operator (VAR indices, apart from
 * pt_expr_new's -1). */
#define PT_UPD_ACC (-100)
#define PT_UPD_VAL (-101)

typedef struct pt_param {
	char *name;
	int type;               /* PT_I32.. or PT_F32/PT_F64 */
	bool has_estimate;
	double estimate;
	pt_loc loc;
} pt_param;

typedef struct pt_image {
	char *name;
	int type;
	int ndim;
	pt_expr **extent;       /* affine in params */
	pt_loc loc;
	int id;
} pt_image;

typedef struct pt_stage {
	char *name;
	int type;
	pt_loc loc;
	int ndim;
	char **vars;            /* ndim names, then nrdim reduction names */
	pt_interval *dom;
	int ncases;
	pt_case *cases;
	pt_redop red;           /* PT_RED_NONE for plain functions */
	int nrdim;
	pt_interval *rdom;
	pt_expr *init;          /* reduction initial value, NULL: op identity */
	bool is_output;
	int id;                 /* index in pipeline->stages, topological after checking */
	/* set by the checker from a plain stage's self-reads (docs/language.md
	 * §13): backward[d], dimension d runs from its last point down (a
	 * read f(.., x+1)); self_fixed[d], every self-read's index d is the
	 * variable itself, so the points along d are independent */
	bool backward[PT_MAX_DIMS];
	bool self_fixed[PT_MAX_DIMS];
	/* a tuple reduction's stage (frontend/tuple.h): ntuple components of
	 * types tuple_type, held in its type along its last result dimension
	 * (slots ntuple.. keep old values an update still reads); 0 for
	 * every other stage */
	int ntuple;
	int tuple_type[PT_MAX_TUPLE];
	pt_tuple_kind tuple_kind;
	pt_redop tuple_red;     /* PT_TUPLE_EACH: every component's operator */
} pt_stage;

typedef struct pt_pipeline {
	char *name;
	pt_loc loc;
	int nparams, nimages, nstages;
	pt_param *params;
	pt_image **images;
	pt_stage **stages;      /* topologically sorted (producers first) once checked */
	bool checked;
	struct pt_owned *owner; /* the pt_ctx entry that owns this pipeline */
} pt_pipeline;

/* Names of kinds, operators, intrinsics and reduction operators. */
const char *pt_expr_kind_name(pt_expr_kind k);
const char *pt_unop_name(int op);
const char *pt_binop_name(int op);
const char *pt_intrin_name(int in);
int pt_intrin_arity(int in);
int pt_intrin_lookup(const char *name);   /* -1 if not an intrinsic */
const char *pt_redop_name(int r);
const char *pt_redop_token(int r);
const char *pt_ir_type_name(int t);
int pt_type_lookup(const char *name);       /* also aliases; -1 if unknown */

bool pt_type_is_float(int t);
bool pt_type_is_int(int t);     /* integer element types (not bool) */
bool pt_type_is_signed(int t);
int pt_type_bits(int t);
/* Range of an integer type as int64 (u64 is not a language type). */
void pt_type_range(int t, int64_t *lo, int64_t *hi);

/* Constructors and ownership: every node is owned by its parent;
 * pt_expr_free frees a whole tree.  Out of memory (alloc.h) they return
 * NULL (false), and those that take trees free them, also when given
 * NULL for one: a construction may nest calls without checking each. */
pt_expr *pt_expr_new(pt_expr_kind kind, pt_loc loc);
pt_expr *pt_expr_int(int64_t v, pt_loc loc);
pt_expr *pt_expr_float(double v, pt_loc loc);
pt_expr *pt_expr_binary(int op, pt_expr *a, pt_expr *b, pt_loc loc);
pt_expr *pt_expr_unary(int op, pt_expr *a, pt_loc loc);
pt_expr *pt_expr_copy(const pt_expr *e);
pt_expr *pt_expr_free(pt_expr *e);
/* Appends arg (taken) to e's arguments; false, arg freed and e left as
 * it was, when e or arg is NULL or memory runs out. */
bool pt_expr_push_arg(pt_expr *e, pt_expr *arg);
/* e with its first n of a, b, c appended (all taken); NULL, everything
 * freed, when one of them is NULL or memory runs out. */
pt_expr *pt_expr_with_args(pt_expr *e, int n, pt_expr *a, pt_expr *b, pt_expr *c);

pt_pipeline *pt_pipeline_new(const char *name);
pt_pipeline *pt_pipeline_free(pt_pipeline *p);
/* A deep copy of p sharing no node with it (owner NULL); CALL nodes point
 * to the copy's stages and images.  Stages keep their order and ids.
 * NULL when out of memory. */
pt_pipeline *pt_pipeline_copy(const pt_pipeline *p);
pt_stage *pt_pipeline_find_stage(const pt_pipeline *p, const char *name);
pt_image *pt_pipeline_find_image(const pt_pipeline *p, const char *name);
int pt_pipeline_find_param(const pt_pipeline *p, const char *name);
pt_stage *pt_stage_new(const char *name, pt_loc loc);
pt_stage *pt_stage_free(pt_stage *s);
/* These take s or im only on success; out of memory: false or -1. */
bool pt_pipeline_add_stage(pt_pipeline *p, pt_stage *s);
bool pt_pipeline_add_image(pt_pipeline *p, pt_image *im);
int pt_pipeline_add_param(pt_pipeline *p, const char *name, int type, pt_loc loc);

/* ---- declarations with validation (parser and builder) ----
 * Each checks one rule of the language about declarations, reports a user
 * error at loc into d (hint and notes included) and fails, or adds to p,
 * which then owns what it was given.  Expressions and intervals passed in
 * are taken, also on failure. */
#define PT_MAX_STAGES 10000     /* keeps checking time and recursion bounded */
/* Whether name (a plain name or a family member "G[1,2]") may name
 * something: an identifier that is not a keyword. */
bool pt_name_is_valid(const char *name);
bool pt_name_is_keyword(const char *s, size_t len);
/* name is valid and not yet a param, image or stage of p. */
bool pt_pipeline_check_name(pt_diag *d, const pt_pipeline *p, const char *name, pt_loc loc);
/* A param (type i32 i64 f32 f64, reported at type_loc); its index or -1. */
int pt_pipeline_declare_param(pt_diag *d, pt_pipeline *p, const char *name, int type,
	pt_loc loc, pt_loc type_loc);
/* An image of element type type without extents yet; NULL on error. */
pt_image *pt_pipeline_declare_image(pt_diag *d, pt_pipeline *p, const char *name, int type, pt_loc loc);
/* Appends an extent (at most PT_MAX_DIMS; loc: where the extent is). */
bool pt_image_add_extent(pt_diag *d, pt_image *im, pt_expr *e, pt_loc loc);
/* A stage without variables, type or cases yet; NULL on error. */
pt_stage *pt_pipeline_declare_stage(pt_diag *d, pt_pipeline *p, const char *name, pt_loc loc);
/* Sets the element type (a pt_type). */
bool pt_stage_set_type(pt_diag *d, pt_stage *s, int type, pt_loc loc);
/* Whether name may be the next variable of s: valid, distinct from the
 * others, at most PT_MAX_DIMS in all. */
bool pt_stage_check_var(pt_diag *d, const pt_stage *s, const char *name, pt_loc loc);
/* Appends a variable with its interval: a result variable, or (reduction)
 * a reduction variable after every result variable; names distinct, at
 * most PT_MAX_DIMS in all. */
bool pt_stage_add_var(pt_diag *d, pt_stage *s, const char *name, pt_interval iv, bool reduction, pt_loc loc);
/* Whether a complete stage has at least one variable and, if reduction,
 * one reduction variable. */
bool pt_stage_check_shape(pt_diag *d, const pt_stage *s, bool reduction, pt_loc loc);
/* Whether an image has at least one extent. */
bool pt_image_check_shape(pt_diag *d, const pt_image *im, pt_loc loc);
/* A case of a function: value where cond holds (cond NULL: everywhere). */
bool pt_stage_add_case(pt_diag *d, pt_stage *s, pt_expr *cond, pt_expr *value, pt_loc loc);
/* An update of a reduction (a stage with reduction variables): op, the
 * same for every update (reported at op_loc), of value at target (ntarget
 * indices, one per result dimension, reported at target_loc; the array is
 * taken with its expressions) where cond holds; loc: the whole update. */
bool pt_stage_add_update(pt_diag *d, pt_stage *s, pt_expr *cond, pt_expr **target, int ntarget,
	pt_loc target_loc, int op, pt_loc op_loc, pt_expr *value, pt_loc loc);
/* A general update (operator PT_RED_UPDATE, frontend/update.h): value
 * and its operator update (both taken), otherwise as above. */
bool pt_stage_add_general(pt_diag *d, pt_stage *s, pt_expr *cond, pt_expr **target, int ntarget,
	pt_loc target_loc, pt_loc op_loc, pt_expr *value, pt_expr *update, pt_loc loc);
/* The name of component j of tuple reduction name: name_j.  The tuple's
 * own stage is named name, over (result, PT_TUPLE_SLOT). */
#define PT_TUPLE_SLOT "tuple_slot"
void pt_tuple_component_name(const char *name, int j, char *buf, size_t n);
/* Marks the stage name (an existing stage) as an output; a tuple
 * reduction: each of its components. */
bool pt_pipeline_set_output(pt_diag *d, pt_pipeline *p, const char *name, pt_loc loc);

/* ---- generic traversal ---- */
/* Structural equality: kinds, types, operators, values (floats bit for
 * bit), names, indices and bindings of every node; locations ignored. */
bool pt_expr_equal(const pt_expr *a, const pt_expr *b);
/* Whether case k of s has the condition !(c0 || .. || cj) of the cases
 * before it, as the parser writes `| else ->`: it holds exactly where
 * they do not, so those cases cover every point and none overlaps it
 * (the bounds and case checks need not ask isl). */
bool pt_case_is_else(const pt_stage *s, int k);
/* Calls fn on every node of e, parents before their arguments (NULL e:
 * no call). */
void pt_expr_walk(const pt_expr *e, void (*fn)(const pt_expr *e, void *user), void *user);
/* Rebuilds e bottom up: each node, its arguments already mapped, is
 * replaced by fn's result (the node itself, or a new tree after freeing
 * it); returns the new root.  fn's results are not mapped again. */
pt_expr *pt_expr_map(pt_expr *e, pt_expr *(*fn)(pt_expr *e, void *user), void *user);
/* Number of nodes of e. */
long pt_expr_size(const pt_expr *e);

/* Prints e in the surface syntax (for messages and `polytile check`). */
void pt_expr_print(const pt_expr *e, const pt_stage *s, const pt_pipeline *p, pt_strbuf *out);

/* Affine form of an int expression: sum coef[i]*param_i + sum vcoef[j]*var_j
 * + constant, all divided (floor) by div.  Returns false when e is not
 * affine in this restricted sense (nested floor divisions are folded when
 * exact, otherwise rejected). */
typedef struct pt_affine {
	int nparams, nvars;
	int64_t *pcoef, *vcoef;
	int64_t cst;
	int64_t div;            /* >= 1 */
} pt_affine;
bool pt_expr_affine(const pt_expr *e, int nparams, int nvars, pt_affine *out);
void pt_affine_clear(pt_affine *a);
/* Whether e is a CAST between integer types that keeps every value (a
 * widening one, such as the checker inserts for i32 + i64): analyses see
 * through it. */
bool pt_cast_keeps_value(const pt_expr *e);
/* Whether e mentions only literals and params (no vars, calls). */
bool pt_expr_is_param_only(const pt_expr *e);
/* Whether pred holds at some node of e (NULL: false). */
bool pt_expr_any(const pt_expr *e, bool (*pred)(const pt_expr *e, const void *data), const void *data);
/* Whether e (may be NULL) calls stage s; *own becomes false when some
 * call is not at the caller's own point (the variables in order). */
bool pt_expr_reads_stage(const pt_expr *e, const struct pt_stage *s, bool *own);
/* Whether stage c reads stage s anywhere: a case's value or condition,
 * a reduction's target index or initial value. */
bool pt_stage_reads(const struct pt_stage *c, const struct pt_stage *s);
/* The fused-nest rule's reads (one home for poly/statements.c and the
 * tile model's prediction, poly/tile.c): whether every case of stage t
 * (its conditions and values) reads the stages run[0..nrun) only at its
 * own point, so that running t right after them at each point keeps
 * every dependence. */
bool pt_stage_reads_at_own_point(const struct pt_stage *t, const struct pt_stage *const *run, int nrun);
/* Reduction s's cell variable along result dim d: the reduction
 * variable (0 .. nrdim - 1) that every case's target index d is, alone
 * (bilateral grid's gx for grid(c, gx, gy, bin)), so that the points
 * with one coordinate there are written only by the updates at that
 * value of it; -1 for any other index, a dim a variable already serves,
 * or a stage that is no reduction. */
int pt_reduction_cell_var(const struct pt_stage *s, int d);
/* Whether e contains a CALL (its value depends on data). */
bool pt_expr_has_call(const pt_expr *e);
/* Evaluates an affine int expression in params only; false if not possible. */
bool pt_expr_eval_params(const pt_expr *e, const int64_t *params, int64_t *out);

/* An interval under int params: lo, and hi moved down onto the step
 * lattice (hi < lo when empty); false if a bound is not computable. */
bool pt_interval_eval(const pt_interval *iv, const int64_t *params, int64_t *lo, int64_t *hi);
/* The points of s's domain at params (an empty or unknown dim counts
 * 1). */
double pt_stage_points(const struct pt_stage *s, const int64_t *params);

/* Floor division and modulo as the language defines them (x/0 = 0). */
int64_t pt_floordiv(int64_t a, int64_t b);
int64_t pt_floormod(int64_t a, int64_t b);

#endif
