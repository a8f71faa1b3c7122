/* expr.c: IR expressions to LLVM IR with the semantics of values.c:
 * integers wrap to their width, x/0 == 0 and x%0 == 0 (floor division),
 * out-of-range shifts give 0 or the sign, float-to-int truncates and
 * saturates (NaN gives 0), f32 arithmetic rounds to float per operation.
 * Branches whose value reads memory are evaluated only when taken, as
 * the interpreter does (the bounds check relies on it). */
#include <assert.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cg.h"
#include "target.h"

static bool is_signed(int t)
{
	return pt_type_is_signed(t);
}

/* Float to int: truncate, saturate, NaN -> 0, as llvm.fptosi.sat, which
 * LLVM 19 scalarizes in x86 vector loops (16 scalar conversions per vector
 * of bilateral grid's slicing).  Here x is clamped to the range with
 * compares and selects, which vectorize: to [min, max] where the type's
 * max is a value of from, else to [min, the largest value of from below
 * 2^bits] with x >= 2^bits giving max. */
static LLVMValueRef float_to_int(pt_cg *cg, LLVMValueRef v, int from, int to)
{
	LLVMBuilderRef b = cg->b;
	LLVMTypeRef F = cg_type(cg, from), T = cg_type(cg, to);
	int bits = pt_type_bits(to) - (is_signed(to) ? 1 : 0);
	int mant = from == PT_F32 ? 24 : 53;
	double lo = is_signed(to) ? -ldexp(1.0, bits) : 0.0, top = ldexp(1.0, bits);
	bool exact = bits <= mant;
	double hi = exact ? top - 1.0 : (from == PT_F32 ? (double)nextafterf((float)top, 0.0f) : nextafter(top, 0.0));
	LLVMValueRef flo = LLVMConstReal(F, lo), fhi = LLVMConstReal(F, hi);
	/* NaN fails both ordered compares and ends as lo: fixed below */
	LLVMValueRef c = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, flo, ""), v, flo, "");
	c = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLE, c, fhi, ""), c, fhi, "");
	LLVMValueRef r = is_signed(to) ? LLVMBuildFPToSI(b, c, T, "") : LLVMBuildFPToUI(b, c, T, "");
	if (!exact) {
		LLVMValueRef max = LLVMConstInt(T, is_signed(to) ? (1ULL << bits) - 1 : ~0ULL, 0);
		r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, LLVMConstReal(F, top), ""), max, r, "");
	}
	return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, v, v, ""), LLVMConstNull(T), r, "");
}

LLVMValueRef cg_convert(pt_cg *cg, LLVMValueRef v, int from, int to)
{
	if (from == to)
		return v;
	LLVMBuilderRef b = cg->b;
	LLVMTypeRef T = cg_type(cg, to);
	bool ff = pt_type_is_float(from), tf = pt_type_is_float(to);
	if (to == PT_BOOL)
		return ff ? LLVMBuildFCmp(b, LLVMRealUNE, v, LLVMConstReal(cg_type(cg, from), 0), "")
			  : LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstInt(cg_type(cg, from), 0, 0), "");
	if (!ff && !tf) {
		unsigned fw = from == PT_BOOL ? 1 : (unsigned)pt_type_bits(from), tw = (unsigned)pt_type_bits(to);
		if (tw < fw)
			return LLVMBuildTrunc(b, v, T, "");
		if (tw == fw)
			return v;
		return from != PT_BOOL && is_signed(from) ? LLVMBuildSExt(b, v, T, "") : LLVMBuildZExt(b, v, T, "");
	}
	if (!ff && tf) {
		if (from == PT_I64 && to == PT_F32) {
			/* the interpreter goes through double */
			LLVMValueRef d = LLVMBuildSIToFP(b, v, cg->f64, "");
			return LLVMBuildFPTrunc(b, d, cg->f32, "");
		}
		return from != PT_BOOL && is_signed(from) ? LLVMBuildSIToFP(b, v, T, "") : LLVMBuildUIToFP(b, v, T, "");
	}
	if (ff && tf)
		return to == PT_F64 ? LLVMBuildFPExt(b, v, T, "") : LLVMBuildFPTrunc(b, v, T, "");
	return float_to_int(cg, v, from, to);
}

LLVMValueRef cg_expr_as(pt_cg *cg, const pt_expr *e, int to)
{
	return cg_convert(cg, cg_expr(cg, e), e->type, to);
}

/* A conditional value: both arms free of memory reads become a select,
 * otherwise a branch evaluates only the taken arm.  The arms already have
 * type t (the checker and the inliner convert them). */
static LLVMValueRef choose(pt_cg *cg, LLVMValueRef c, const pt_expr *a, const pt_expr *x, int t)
{
	if (!pt_expr_has_call(a) && !pt_expr_has_call(x)) {
		LLVMValueRef va = cg_expr(cg, a), vb = cg_expr(cg, x);
		return LLVMBuildSelect(cg->b, c, va, vb, "");
	}
	LLVMBasicBlockRef bt = cg_block(cg, "sel.t"), bf = cg_block(cg, "sel.f"), bj = cg_block(cg, "sel.j");
	LLVMBuildCondBr(cg->b, c, bt, bf);
	LLVMPositionBuilderAtEnd(cg->b, bt);
	LLVMValueRef va = cg_expr(cg, a);
	LLVMBasicBlockRef et = LLVMGetInsertBlock(cg->b);
	LLVMBuildBr(cg->b, bj);
	LLVMPositionBuilderAtEnd(cg->b, bf);
	LLVMValueRef vb = cg_expr(cg, x);
	LLVMBasicBlockRef ef = LLVMGetInsertBlock(cg->b);
	LLVMBuildBr(cg->b, bj);
	LLVMPositionBuilderAtEnd(cg->b, bj);
	LLVMValueRef phi = LLVMBuildPhi(cg->b, cg_type(cg, t), "");
	LLVMValueRef vals[] = { va, vb };
	LLVMBasicBlockRef from[] = { et, ef };
	LLVMAddIncoming(phi, vals, from, 2);
	return phi;
}

/* && and ||: short-circuit when the right side reads memory. */
static LLVMValueRef logic(pt_cg *cg, const pt_expr *e)
{
	bool is_and = e->op == PT_OP_AND;
	LLVMValueRef x = cg_expr(cg, e->args[0]);
	if (!pt_expr_has_call(e->args[1])) {
		LLVMValueRef y = cg_expr(cg, e->args[1]);
		return is_and ? LLVMBuildAnd(cg->b, x, y, "") : LLVMBuildOr(cg->b, x, y, "");
	}
	LLVMBasicBlockRef from = LLVMGetInsertBlock(cg->b);
	LLVMBasicBlockRef brhs = cg_block(cg, "sc.rhs"), bj = cg_block(cg, "sc.j");
	if (is_and)
		LLVMBuildCondBr(cg->b, x, brhs, bj);
	else
		LLVMBuildCondBr(cg->b, x, bj, brhs);
	LLVMPositionBuilderAtEnd(cg->b, brhs);
	LLVMValueRef y = cg_expr(cg, e->args[1]);
	LLVMBasicBlockRef erhs = LLVMGetInsertBlock(cg->b);
	LLVMBuildBr(cg->b, bj);
	LLVMPositionBuilderAtEnd(cg->b, bj);
	LLVMValueRef phi = LLVMBuildPhi(cg->b, cg->i1, "");
	LLVMValueRef vals[] = { LLVMConstInt(cg->i1, is_and ? 0 : 1, 0), y };
	LLVMBasicBlockRef bbs[] = { from, erhs };
	LLVMAddIncoming(phi, vals, bbs, 2);
	return phi;
}

/* Floor division and modulo; x/0 = 0, x%0 = 0, x/-1 = -x (wrapping). */
static LLVMValueRef int_divmod(pt_cg *cg, int t, LLVMValueRef x, LLVMValueRef y, bool mod)
{
	LLVMBuilderRef b = cg->b;
	LLVMTypeRef T = cg_type(cg, t);
	LLVMValueRef zero = LLVMConstInt(T, 0, 0), one = LLVMConstInt(T, 1, 0);
	LLVMValueRef yz = LLVMBuildICmp(b, LLVMIntEQ, y, zero, "");
	if (!is_signed(t)) {
		LLVMValueRef ys = LLVMBuildSelect(b, yz, one, y, "");
		LLVMValueRef r = mod ? LLVMBuildURem(b, x, ys, "") : LLVMBuildUDiv(b, x, ys, "");
		return LLVMBuildSelect(b, yz, zero, r, "");
	}
	LLVMValueRef ym1 = LLVMBuildICmp(b, LLVMIntEQ, y, LLVMConstAllOnes(T), "");
	LLVMValueRef bad = LLVMBuildOr(b, yz, ym1, "");
	LLVMValueRef ys = LLVMBuildSelect(b, bad, one, y, "");
	LLVMValueRef q = LLVMBuildSDiv(b, x, ys, ""), r = LLVMBuildSRem(b, x, ys, "");
	/* the remainder's sign differs from the divisor's: floor adjusts */
	LLVMValueRef rnz = LLVMBuildICmp(b, LLVMIntNE, r, zero, "");
	LLVMValueRef sdiff = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildXor(b, r, ys, ""), zero, "");
	LLVMValueRef adj = LLVMBuildAnd(b, rnz, sdiff, "");
	if (mod) {
		LLVMValueRef m = LLVMBuildSelect(b, adj, LLVMBuildAdd(b, r, ys, ""), r, "");
		return LLVMBuildSelect(b, bad, zero, m, "");
	}
	LLVMValueRef fq = LLVMBuildSub(b, q, LLVMBuildZExt(b, adj, T, ""), "");
	LLVMValueRef neg = LLVMBuildSub(b, zero, x, "");
	return LLVMBuildSelect(b, yz, zero, LLVMBuildSelect(b, ym1, neg, fq, ""), "");
}

static LLVMValueRef shift(pt_cg *cg, int op, int t, LLVMValueRef x, LLVMValueRef n)
{
	LLVMBuilderRef b = cg->b;
	LLVMTypeRef T = cg_type(cg, t);
	int bits = pt_type_bits(t);
	LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, n, cg_i64(cg, bits), "");
	LLVMValueRef safe = LLVMBuildTrunc(b, LLVMBuildSelect(b, in, n, cg_i64(cg, 0), ""), T, "");
	if (op == PT_OP_SHL)
		return LLVMBuildSelect(b, in, LLVMBuildShl(b, x, safe, ""), LLVMConstInt(T, 0, 0), "");
	if (!is_signed(t))
		return LLVMBuildSelect(b, in, LLVMBuildLShr(b, x, safe, ""), LLVMConstInt(T, 0, 0), "");
	LLVMValueRef fill = LLVMBuildAShr(b, x, LLVMConstInt(T, (unsigned)bits - 1, 0), "");
	return LLVMBuildSelect(b, in, LLVMBuildAShr(b, x, safe, ""), fill, "");
}

static LLVMValueRef compare(pt_cg *cg, const pt_expr *e)
{
	/* the operands already have the type compared in */
	int t = e->args[0]->type;
	LLVMValueRef va = cg_expr(cg, e->args[0]), vb = cg_expr(cg, e->args[1]);
	if (pt_type_is_float(t)) {
		static const LLVMRealPredicate fp[] = { LLVMRealOLT, LLVMRealOLE, LLVMRealOGT,
			LLVMRealOGE, LLVMRealOEQ, LLVMRealUNE };
		return LLVMBuildFCmp(cg->b, fp[e->op - PT_OP_LT], va, vb, "");
	}
	bool s = t != PT_BOOL && is_signed(t);
	LLVMIntPredicate pred = LLVMIntNE;
	switch ((pt_binop)e->op) {
	case PT_OP_LT: pred = s ? LLVMIntSLT : LLVMIntULT; break;
	case PT_OP_LE: pred = s ? LLVMIntSLE : LLVMIntULE; break;
	case PT_OP_GT: pred = s ? LLVMIntSGT : LLVMIntUGT; break;
	case PT_OP_GE: pred = s ? LLVMIntSGE : LLVMIntUGE; break;
	case PT_OP_EQ: pred = LLVMIntEQ; break;
	case PT_OP_NE: pred = LLVMIntNE; break;
	case PT_OP_ADD: case PT_OP_SUB: case PT_OP_MUL: case PT_OP_DIV: case PT_OP_MOD:
	case PT_OP_AND: case PT_OP_OR: case PT_OP_BAND: case PT_OP_BOR: case PT_OP_BXOR:
	case PT_OP_SHL: case PT_OP_SHR: case PT_OP_BINCOUNT:
		assert(!"not a comparison");
	}
	return LLVMBuildICmp(cg->b, pred, va, vb, "");
}

static LLVMValueRef float_mod(pt_cg *cg, int t, LLVMValueRef x, LLVMValueRef y)
{
	/* a - b * floor(a / b) in double, rounded once for f32 */
	if (t == PT_F32) {
		x = LLVMBuildFPExt(cg->b, x, cg->f64, "");
		y = LLVMBuildFPExt(cg->b, y, cg->f64, "");
	}
	LLVMValueRef q = LLVMBuildFDiv(cg->b, x, y, "");
	q = cg_call_intrinsic(cg, "llvm.floor", cg->f64, &q, 1);
	LLVMValueRef r = LLVMBuildFSub(cg->b, x, LLVMBuildFMul(cg->b, y, q, ""), "");
	return t == PT_F32 ? LLVMBuildFPTrunc(cg->b, r, cg->f32, "") : r;
}

/* floor(a / b) and its remainder for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && a < 0);
}

/* In a split statement, y / d and y % d (and of y +- c) of its innermost
 * variable y = d * k + part: k plus a constant, a constant; NULL for any
 * other division.  pt_poly_split_of admits only such divisions. */
static LLVMValueRef split_divmod(pt_cg *cg, const pt_expr *e)
{
	const pt_stmt *st = cg->stmt;
	if (!cg->split_k32 || pt_type_is_float(e->type))
		return NULL;
	const pt_expr *n = e->args[0], *q = e->args[1];
	while (q->kind == PT_E_CAST)
		q = q->args[0];
	int y = st->var0 + st->nvars - 1;
	int64_t off = 0;
	if (n->kind == PT_E_BINARY && (n->op == PT_OP_ADD || n->op == PT_OP_SUB) && n->args[1]->kind == PT_E_INT) {
		off = n->op == PT_OP_ADD ? n->args[1]->ival : -n->args[1]->ival;
		n = n->args[0];
	}
	if (n->kind != PT_E_VAR || n->index != y || q->kind != PT_E_INT || q->ival != st->split)
		return NULL;
	int64_t c = st->part + off, qc = floor_div(c, st->split);
	if (e->op == PT_OP_MOD)
		return cg_convert(cg, cg_i64(cg, c - qc * st->split), PT_I64, e->type);
	return cg_convert(cg, LLVMBuildNSWAdd(cg->b, cg->split_k32, LLVMConstInt(cg->i32, (unsigned long long)qc, 1), ""),
		PT_I32, e->type);
}

static LLVMValueRef binary(pt_cg *cg, const pt_expr *e)
{
	int op = e->op, t = e->type;
	if (op == PT_OP_AND || op == PT_OP_OR)
		return logic(cg, e);
	if (op == PT_OP_DIV || op == PT_OP_MOD) {
		LLVMValueRef v = split_divmod(cg, e);
		if (v)
			return v;
	}
	if (op >= PT_OP_LT && op <= PT_OP_NE)
		return compare(cg, e);
	/* operands of type t; a shift count is an i64 */
	LLVMValueRef x = cg_expr(cg, e->args[0]);
	LLVMValueRef y = cg_expr(cg, e->args[1]);
	LLVMBuilderRef b = cg->b;
	bool f = pt_type_is_float(t);
	switch ((pt_binop)op) {
	case PT_OP_ADD: return f ? LLVMBuildFAdd(b, x, y, "") : LLVMBuildAdd(b, x, y, "");
	case PT_OP_SUB: return f ? LLVMBuildFSub(b, x, y, "") : LLVMBuildSub(b, x, y, "");
	case PT_OP_MUL: return f ? LLVMBuildFMul(b, x, y, "") : LLVMBuildMul(b, x, y, "");
	case PT_OP_DIV: return f ? LLVMBuildFDiv(b, x, y, "") : int_divmod(cg, t, x, y, false);
	case PT_OP_MOD: return f ? float_mod(cg, t, x, y) : int_divmod(cg, t, x, y, true);
	case PT_OP_BAND: return LLVMBuildAnd(b, x, y, "");
	case PT_OP_BOR: return LLVMBuildOr(b, x, y, "");
	case PT_OP_BXOR: return LLVMBuildXor(b, x, y, "");
	case PT_OP_SHL: case PT_OP_SHR:
		return shift(cg, op, t, x, y);
	case PT_OP_LT: case PT_OP_LE: case PT_OP_GT: case PT_OP_GE: case PT_OP_EQ: case PT_OP_NE:
	case PT_OP_AND: case PT_OP_OR: case PT_OP_BINCOUNT:
		break;
	}
	assert(!"handled above");
	return NULL;
}

/* v as an ext (LLVMZExt or LLVMSExt) of a value of type narrow: that
 * value, when v is such an extension or a constant that fits; else NULL. */
static LLVMValueRef narrow_of(LLVMValueRef v, LLVMTypeRef narrow, LLVMOpcode ext)
{
	if (LLVMIsAConstantInt(v)) {
		unsigned bits = LLVMGetIntTypeWidth(narrow);
		long long c = LLVMConstIntGetSExtValue(v);
		bool fits = ext == LLVMZExt ? c >= 0 && c < (1ll << bits)
			: c >= -(1ll << (bits - 1)) && c < (1ll << (bits - 1));
		return fits ? LLVMConstInt(narrow, (unsigned long long)c, ext == LLVMSExt) : NULL;
	}
	if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != ext)
		return NULL;
	LLVMValueRef src = LLVMGetOperand(v, 0);
	return LLVMTypeOf(src) == narrow ? src : NULL;
}

/* min/max of two values extended from one narrower integer type, taken
 * in that type and extended (camera_pipe's hot-pixel clamp of ushorts
 * promoted to int): twice the lanes per vector.  Exact: zero- and
 * sign-extension keep the narrow values' unsigned order, sign-extension
 * their signed order too, and a zero-extended value is never negative. */
static LLVMValueRef narrow_minmax(pt_cg *cg, LLVMTypeRef wide, bool wide_signed, LLVMValueRef x, LLVMValueRef y,
	bool want_min)
{
	/* the extension and narrow type from the operand that is not a
	 * constant; the other must be the same extension or fit it */
	LLVMValueRef v = LLVMIsAConstantInt(x) ? y : x;
	if (!LLVMIsAInstruction(v))
		return NULL;
	LLVMOpcode ext = LLVMGetInstructionOpcode(v);
	if (ext != LLVMZExt && ext != LLVMSExt)
		return NULL;
	LLVMTypeRef narrow = LLVMTypeOf(LLVMGetOperand(v, 0));
	LLVMValueRef nx = narrow_of(x, narrow, ext), ny = narrow_of(y, narrow, ext);
	if (!nx || !ny)
		return NULL;
	/* zero-extended: both orders are the narrow unsigned one; sign-
	 * extended: each order is the narrow one of the same kind */
	bool sgn = ext == LLVMSExt && wide_signed;
	const char *name = want_min ? (sgn ? "llvm.smin" : "llvm.umin") : (sgn ? "llvm.smax" : "llvm.umax");
	LLVMValueRef args[] = { nx, ny };
	LLVMValueRef r = cg_call_intrinsic(cg, name, narrow, args, 2);
	return ext == LLVMSExt ? LLVMBuildSExt(cg->b, r, wide, "") : LLVMBuildZExt(cg->b, r, wide, "");
}

LLVMValueRef cg_minmax(pt_cg *cg, int t, LLVMValueRef x, LLVMValueRef y, bool want_min)
{
	const char *name;
	if (!pt_type_is_float(t)) {
		LLVMValueRef r = narrow_minmax(cg, cg_type(cg, t), is_signed(t), x, y, want_min);
		if (r)
			return r;
	}
	if (pt_type_is_float(t))
		name = want_min ? "llvm.minnum" : "llvm.maxnum";
	else if (is_signed(t))
		name = want_min ? "llvm.smin" : "llvm.smax";
	else
		name = want_min ? "llvm.umin" : "llvm.umax";
	LLVMValueRef args[] = { x, y };
	return cg_call_intrinsic(cg, name, cg_type(cg, t), args, 2);
}

/* Arguments already have the intrinsic's type; min and max are binary. */
static LLVMValueRef intrinsic(pt_cg *cg, const pt_expr *e)
{
	int t = e->type;
	LLVMTypeRef T = cg_type(cg, t);
	LLVMValueRef v[2];
	for (int i = 0; i < e->nargs && i < 2; i++)
		v[i] = cg_expr(cg, e->args[i]);
	if (e->op == PT_IN_MIN || e->op == PT_IN_MAX)
		return cg_minmax(cg, t, v[0], v[1], e->op == PT_IN_MIN);
	if (!pt_type_is_float(t)) {
		if (e->op != PT_IN_ABS)
			return v[0];        /* floor, ceil, round of an integer */
		if (!is_signed(t))
			return v[0];
		LLVMValueRef neg = LLVMBuildSub(cg->b, LLVMConstInt(T, 0, 0), v[0], "");
		LLVMValueRef lt = LLVMBuildICmp(cg->b, LLVMIntSLT, v[0], LLVMConstInt(T, 0, 0), "");
		return LLVMBuildSelect(cg->b, lt, neg, v[0], "");
	}
	switch ((pt_intrin)e->op) {
	case PT_IN_ABS: return cg_call_intrinsic(cg, "llvm.fabs", T, v, 1);
	case PT_IN_SQRT: return cg_call_intrinsic(cg, "llvm.sqrt", T, v, 1);
	case PT_IN_EXP: return cg_call_math(cg, "exp", T, v, 1);
	case PT_IN_LOG: return cg_call_math(cg, "log", T, v, 1);
	case PT_IN_POW: return cg_call_math(cg, "pow", T, v, 2);
	case PT_IN_FLOOR: return cg_call_intrinsic(cg, "llvm.floor", T, v, 1);
	case PT_IN_CEIL: return cg_call_intrinsic(cg, "llvm.ceil", T, v, 1);
	case PT_IN_ROUND: return cg_call_intrinsic(cg, "llvm.roundeven", T, v, 1);
	case PT_IN_SIN: return cg_call_math(cg, "sin", T, v, 1);
	case PT_IN_COS: return cg_call_math(cg, "cos", T, v, 1);
	case PT_IN_TAN: return cg_call_math(cg, "tan", T, v, 1);
	case PT_IN_TANH: return cg_call_math(cg, "tanh", T, v, 1);
	case PT_IN_ATAN2: return cg_call_math(cg, "atan2", T, v, 2);
	case PT_IN_MIN: case PT_IN_MAX: case PT_IN_CLAMP: case PT_IN_COUNT:
		break;
	}
	assert(!"clamp is lowered by the checker");
	return v[0];
}

static LLVMValueRef unary(pt_cg *cg, const pt_expr *e)
{
	LLVMValueRef x = cg_expr(cg, e->args[0]);   /* of e's type, or bool for ! */
	if (e->op == PT_OP_NOT)
		return LLVMBuildNot(cg->b, x, "");
	if (pt_type_is_float(e->type))
		return e->op == PT_OP_NEG ? LLVMBuildFNeg(cg->b, x, "") : x;
	if (e->op == PT_OP_NEG)
		return LLVMBuildSub(cg->b, LLVMConstInt(cg_type(cg, e->type), 0, 0), x, "");
	return LLVMBuildNot(cg->b, x, "");
}

/* Index i of dim d of array a (of stage s, NULL for an image) from its
 * element 0: a scratchpad's tile origin, a partition's, or the domain's
 * first point. */
static LLVMValueRef from_origin(pt_cg *cg, const cg_array *a, const pt_stage *s, int d, LLVMValueRef i)
{
	if (a->group)
		return LLVMBuildNSWSub(cg->b, i, cg_scratch_origin(cg, a, d), "");
	if (a->origin[d])
		return LLVMBuildNSWSub(cg->b, i, a->origin[d], "");
	return s ? LLVMBuildNSWSub(cg->b, i, cg_param_expr(cg, s->dom[d].lo), "") : i;
}

LLVMValueRef cg_fold_index(pt_cg *cg, const cg_array *a, LLVMValueRef i)
{
	if (a->fold_steps > 1)
		i = LLVMBuildUDiv(cg->b, i, cg_i64(cg, a->fold_steps), "");
	return LLVMBuildURem(cg->b, i, cg_i64(cg, a->fold), "");
}

LLVMValueRef cg_address(pt_cg *cg, const cg_array *a, const pt_stage *s, LLVMValueRef *idx)
{
	if (a->scalar)
		return a->ptr;
	LLVMValueRef off = NULL;
	for (int d = 0; d < a->ndim; d++) {
		LLVMValueRef i = from_origin(cg, a, s, d, idx[d]);
		if (d == 0 && a->fold)
			i = cg_fold_index(cg, a, i);
		if (d < a->ndim - 1)
			i = LLVMBuildNSWMul(cg->b, i, a->stride[d], "");
		off = off ? LLVMBuildNSWAdd(cg->b, off, i, "") : i;
	}
	if (!off)
		off = cg_i64(cg, 0);
	return LLVMBuildInBoundsGEP2(cg->b, cg_type(cg, a->type), a->ptr, &off, 1, "");
}

/* A table lookup (a read at a data-dependent index) of 8- or 16-bit
 * elements loads 32 bits and keeps the low ones: x86 gathers 32-bit
 * lanes but not bytes, so that the vectorizer may gather (LLVM's cost
 * model decides per CPU) rather than extract, load and insert lane by
 * lane.  Only from a full buffer the pipeline allocates, which has
 * CG_LOAD_PAD bytes past its end (entry.c); little-endian targets. */
static bool widened_load(const pt_cg *cg, const pt_expr *e, const cg_array *a)
{
	if (!cg->target->wide_table_loads || !cg->little_endian || !e->stage || e->stage->is_output || a->group || a->scalar || pt_type_size(a->type) > 2)
		return false;
	for (int d = 0; d < e->nargs; d++)
		if (pt_expr_has_call(e->args[d]))
			return true;
	return false;
}

/* The address of a widened load from a 1-D table with constant bounds
 * (in range: checked), its offset computed in 32 bits and sign-extended:
 * x86 then gathers with 32-bit indices, 16 lanes per AVX-512 gather
 * rather than 8 with 64-bit ones.  NULL where that does not apply. */
static LLVMValueRef table_address32(pt_cg *cg, const pt_expr *e, const cg_array *a, LLVMValueRef i)
{
	if (e->nargs != 1 || a->fold || a->origin[0])
		return NULL;
	LLVMValueRef lo = cg_param_expr(cg, e->stage->dom[0].lo), hi = cg_param_expr(cg, e->stage->dom[0].hi);
	if (!LLVMIsAConstantInt(lo) || !LLVMIsAConstantInt(hi))
		return NULL;
	long long l = LLVMConstIntGetSExtValue(lo), h = LLVMConstIntGetSExtValue(hi);
	if (l < INT32_MIN || h > INT32_MAX || h - l > INT32_MAX)
		return NULL;
	LLVMValueRef off = LLVMBuildNSWSub(cg->b, LLVMBuildTrunc(cg->b, i, cg->i32, ""),
		LLVMConstInt(cg->i32, (unsigned long long)l, 1), "");
	off = LLVMBuildSExt(cg->b, off, cg->i64, "");
	return LLVMBuildInBoundsGEP2(cg->b, cg_type(cg, a->type), a->ptr, &off, 1, "");
}

/* The address of element idx of a, its offset computed in 32 bits and
 * sign-extended, for a read at a data-dependent index in the version of
 * a loop where every array takes less than 2 GiB (ast.c): then every
 * partial sum of the offset is below 2^31 in magnitude, and x86 gathers
 * with 32-bit indices, 16 lanes per AVX-512 gather rather than 8, half
 * the index arithmetic (bilateral grid's slicing: 8 gathers a channel
 * and pixel).  NULL where that does not apply. */
static LLVMValueRef address32(pt_cg *cg, const pt_expr *e, const cg_array *a, LLVMValueRef *idx)
{
	if (!cg->narrow || a->fold || a->scalar)
		return NULL;
	bool data = false;
	for (int d = 0; d < e->nargs; d++)
		data |= pt_expr_has_call(e->args[d]);
	if (!data)
		return NULL;
	LLVMBuilderRef b = cg->b;
	LLVMValueRef off = NULL;
	for (int d = 0; d < a->ndim; d++) {
		LLVMValueRef i = LLVMBuildTrunc(b, from_origin(cg, a, e->stage, d, idx[d]), cg->i32, "");
		if (d < a->ndim - 1)
			i = LLVMBuildNSWMul(b, i, LLVMBuildTrunc(b, a->stride[d], cg->i32, ""), "");
		off = off ? LLVMBuildNSWAdd(b, off, i, "") : i;
	}
	if (!off)
		return NULL;
	off = LLVMBuildSExt(b, off, cg->i64, "");
	return LLVMBuildInBoundsGEP2(b, cg_type(cg, a->type), a->ptr, &off, 1, "");
}

static LLVMValueRef load(pt_cg *cg, const pt_expr *e)
{
	LLVMValueRef idx[PT_MAX_DIMS];
	for (int d = 0; d < e->nargs; d++)
		idx[d] = cg_checked_index(cg, e, d, cg_index(cg, e->args[d]));
	const cg_array *a = e->stage ? &cg->stage[e->stage->id] : &cg->image[e->image->id];
	bool widened = widened_load(cg, e, a);
	LLVMValueRef addr = widened ? table_address32(cg, e, a, idx[0]) : NULL;
	if (!addr)
		addr = address32(cg, e, a, idx);
	if (!addr)
		addr = cg_address(cg, a, e->stage, idx);
	LLVMValueRef v;
	if (widened) {
		v = LLVMBuildLoad2(cg->b, cg->i32, addr, "");
		LLVMSetAlignment(v, 1);
		v = LLVMBuildTrunc(cg->b, v, cg_type(cg, a->type), "");
	} else
		v = LLVMBuildLoad2(cg->b, cg_type(cg, a->type), addr, "");
	if (!e->stage || !a->mask)
		return v;
	/* a point no case defined: an error, and 0 rather than what the
	 * memory held */
	LLVMValueRef def = LLVMBuildLoad2(cg->b, cg->i8, cg_mask_address(cg, e->stage, idx), "");
	LLVMValueRef bad = LLVMBuildICmp(cg->b, LLVMIntEQ, def, LLVMConstInt(cg->i8, 0, 0), "");
	char what[300];
	snprintf(what, sizeof(what), "stage '%s' at (@) reads a point of '%s' that no case of it defines",
		cg->stmt ? cg->stmt->stage->name : "?", e->stage->name);
	cg_fail_at_run_time(cg, bad, PT_ERR_UNDEFINED, what);
	return LLVMBuildSelect(cg->b, bad, LLVMConstNull(cg_type(cg, a->type)), v, "");
}

LLVMValueRef cg_expr(pt_cg *cg, const pt_expr *e)
{
	switch (e->kind) {
	case PT_E_INT:
		return cg_convert(cg, cg_i64(cg, e->ival), PT_I64, e->type);
	case PT_E_FLOAT:
		return cg_convert(cg, LLVMConstReal(cg->f64, e->fval), PT_F64, e->type);
	case PT_E_PARAM:
		return cg_convert(cg, cg->param[e->index], cg->p->params[e->index].type, e->type);
	case PT_E_VAR:
		if (e->index == PT_UPD_ACC || e->index == PT_UPD_VAL)   /* a general update's operand, of its type */
			return cg->operand[e->index == PT_UPD_ACC ? 0 : 1];
		return cg_convert(cg, cg->var32[e->index], PT_I32, e->type);
	case PT_E_CALL:
		return load(cg, e);
	case PT_E_UNARY:
		return unary(cg, e);
	case PT_E_BINARY:
		return binary(cg, e);
	case PT_E_SELECT:
		return choose(cg, cg_expr(cg, e->args[0]), e->args[1], e->args[2], e->type);
	case PT_E_CAST:
		return cg_expr_as(cg, e->args[0], e->type);
	case PT_E_INTRIN:
		return intrinsic(cg, e);
	case PT_E_NAME: case PT_E_COUNT:
		break;
	}
	assert(!"unresolved expression in codegen");
	return NULL;
}

/* Affine form sum c_i * x_i + sum d_j * p_j + c, floor-divided by div, in
 * i64 with no wrap (the value the bounds check reasoned about). */
static LLVMValueRef affine(pt_cg *cg, const pt_affine *a, bool vars)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef r = cg_i64(cg, a->cst);
	/* a split statement's innermost y = d * k + part: when div divides
	 * d * coef(y), floor((coef * y + rest) / div) is
	 * (coef * d / div) * k + floor((coef * part + rest) / div) */
	const pt_stmt *st = cg->stmt;
	int y = st ? st->var0 + st->nvars - 1 : -1;
	LLVMValueRef ky = NULL;
	if (vars && cg->split_k64 && a->div > 1 && y < a->nvars && a->vcoef[y] &&
	    (a->vcoef[y] * st->split) % a->div == 0) {
		ky = LLVMBuildNSWMul(b, cg->split_k64, cg_i64(cg, a->vcoef[y] * st->split / a->div), "");
		r = cg_i64(cg, a->cst + a->vcoef[y] * st->part);
	}
	for (int q = 0; q < a->nparams; q++)
		if (a->pcoef[q]) {
			LLVMValueRef v = cg_convert(cg, cg->param[q], cg->p->params[q].type, PT_I64);
			r = LLVMBuildNSWAdd(b, r, LLVMBuildNSWMul(b, v, cg_i64(cg, a->pcoef[q]), ""), "");
		}
	for (int j = 0; vars && j < a->nvars; j++)
		if (a->vcoef[j] && !(ky && j == y))
			r = LLVMBuildNSWAdd(b, r, LLVMBuildNSWMul(b, cg->var64[j], cg_i64(cg, a->vcoef[j]), ""), "");
	if (a->div == 1)
		return r;
	/* floor(r / div) for div > 0: (r - (r < 0 ? div - 1 : 0)) / div */
	LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, r, cg_i64(cg, 0), "");
	LLVMValueRef adj = LLVMBuildSelect(b, neg, cg_i64(cg, a->div - 1), cg_i64(cg, 0), "");
	r = LLVMBuildSDiv(b, LLVMBuildNSWSub(b, r, adj, ""), cg_i64(cg, a->div), "");
	return ky ? LLVMBuildNSWAdd(b, ky, r, "") : r;
}

LLVMValueRef cg_index(pt_cg *cg, const pt_expr *e)
{
	const pt_stage *s = cg->stmt ? cg->stmt->stage : NULL;
	int nvars = s ? s->ndim + s->nrdim : 0;
	pt_affine a = {0};
	if (!pt_expr_has_call(e) && pt_expr_affine(e, cg->p->nparams, nvars, &a)) {
		LLVMValueRef r = affine(cg, &a, true);
		pt_affine_clear(&a);
		return r;
	}
	pt_affine_clear(&a);
	return cg_expr_as(cg, e, PT_I64);
}

LLVMValueRef cg_param_expr(pt_cg *cg, const pt_expr *e)
{
	pt_affine a = {0};
	LLVMValueRef r;
	if (pt_expr_affine(e, cg->p->nparams, 0, &a))
		r = affine(cg, &a, false);
	else
		r = cg_expr_as(cg, e, PT_I64);
	pt_affine_clear(&a);
	return r;
}

/* floor(a / b) for b > 0. */
static LLVMValueRef floor_div_by(pt_cg *cg, LLVMValueRef a, int64_t b)
{
	if (b == 1)
		return a;
	LLVMValueRef q = LLVMBuildSDiv(cg->b, a, cg_i64(cg, b), "");
	LLVMValueRef neg = LLVMBuildICmp(cg->b, LLVMIntSLT, LLVMBuildSRem(cg->b, a, cg_i64(cg, b), ""), cg_i64(cg, 0), "");
	return LLVMBuildSub(cg->b, q, LLVMBuildZExt(cg->b, neg, cg->i64, ""), "");
}

LLVMValueRef cg_scratch_origin(pt_cg *cg, const cg_array *a, int d)
{
	const pt_group *g = a->group;
	const pt_stage *s = g->stages[a->si];
	int k = pt_group_tile_of_dim(g, a->si, d);
	if (k < 0)
		return cg_param_expr(cg, s->dom[d].lo);
	/* the widened tile's first group coordinate, in the stage's */
	LLVMValueRef t = LLVMBuildNSWMul(cg->b, cg->tile[k], cg_i64(cg, g->tsize[k]), "");
	t = LLVMBuildNSWAdd(cg->b, t, cg_i64(cg, g->torig[k] - g->ext[a->si][g->tdim[k]][0]), "");
	t = floor_div_by(cg, t, g->scale[a->si][d]);
	if (!pt_group_scratch_clipped(g, a->si, d))
		return t;
	/* no point of the domain precedes it (scratch.c's extents) */
	LLVMValueRef args[] = { t, cg_param_expr(cg, s->dom[d].lo) };
	return cg_call_intrinsic(cg, "llvm.smax", cg->i64, args, 2);
}

LLVMValueRef cg_checked_index(pt_cg *cg, const pt_expr *call, int d, LLVMValueRef idx)
{
	if (cg_index_proven(cg, call->args[d]))
		return idx;
	LLVMBuilderRef b = cg->b;
	LLVMValueRef lo, hi;
	int64_t step = 1;
	if (call->stage) {
		lo = cg_param_expr(cg, call->stage->dom[d].lo);
		hi = cg_param_expr(cg, call->stage->dom[d].hi);
		step = call->stage->dom[d].step;
	} else {
		lo = cg_i64(cg, 0);
		hi = LLVMBuildSub(b, cg_param_expr(cg, call->image->extent[d]), cg_i64(cg, 1), "");
	}
	LLVMValueRef bad = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntSLT, idx, lo, ""),
		LLVMBuildICmp(b, LLVMIntSGT, idx, hi, ""), "");
	if (step > 1)   /* off the steps (idx - lo >= 0 here, or bad already) */
		bad = LLVMBuildOr(b, bad, LLVMBuildICmp(b, LLVMIntNE,
			LLVMBuildSRem(b, LLVMBuildSub(b, idx, lo, ""), cg_i64(cg, step), ""), cg_i64(cg, 0), ""), "");
	char what[400];
	snprintf(what, sizeof(what), "stage '%s' at (@) reads '%s' outside its %s in dimension %d",
		cg->stmt ? cg->stmt->stage->name : "?", call->stage ? call->stage->name : call->image->name,
		call->stage ? "domain" : "extent", d + 1);
	cg_fail_at_run_time(cg, bad, PT_ERR_READ, what);
	/* a rank's part may not hold the first point */
	const cg_array *arr = call->stage ? &cg->stage[call->stage->id] : &cg->image[call->image->id];
	if (arr->origin[d])
		lo = arr->origin[d];
	return LLVMBuildSelect(b, bad, lo, idx, "");
}

LLVMValueRef cg_mask_address(pt_cg *cg, const pt_stage *s, LLVMValueRef *idx)
{
	cg_array m = cg->stage[s->id];
	m.ptr = m.mask;
	m.type = PT_U8;
	return cg_address(cg, &m, s, idx);
}
