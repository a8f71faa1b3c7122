/* test_errors.c: Check suite proving that every kind of user error is
 * reported well: parsing fails (NULL) or the interpreter's run fails, and
 * the diagnostics hold
 *
 *   t.pipe:LINE:COL: error: MESSAGE
 *     <the source line>
 *     <a caret under the offending text, '~' along the rest of it>
 *     hint: HOW TO FIX IT
 *
 * with LINE and COL worked out by hand for each test (the helper also
 * checks that the text at LINE:COL really is the text the test says is
 * underlined, so a miscounted column fails loudly), a key phrase of the
 * message, and a key phrase of the hint. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polytile.h"

#include "run_suite.h"

#define FILE_NAME "t.pipe"

#include "fixture.h"


/* Copies line `line` (1-based) of text into buf, without its newline (or
 * "\r\n"), with the characters the diagnostics cannot print as spaces. */
static void source_line(const char *text, int line, char *buf, size_t n)
{
	const char *t = text;
	for (int l = 1; l < line && *t; t++)
		if (*t == '\n')
			l++;
	size_t k = 0;
	for (; *t && *t != '\n' && k + 1 < n; t++, k++) {
		unsigned char c = (unsigned char)*t;
		buf[k] = (c == '\t' || c < 32 || c > 126) ? ' ' : (char)c;
	}
	if (k > 0 && text[0] && buf[k - 1] == ' ' && t > text && t[-1] == '\r')
		k--;    /* the '\r' of "\r\n" */
	buf[k] = 0;
}

/* Checks the diagnostics of ctx for one error as described at the top of
 * this file.  under is the underlined text ("" for the end of the file:
 * a single caret). */
static void check_error_in(const char *file, const char *text, int line, int col, const char *under,
	const char *phrase, const char *hint)
{
	const char *diag = pt_ctx_diagnostics(ctx);
	ck_assert_msg(pt_ctx_error_count(ctx) >= 1, "no error counted; diagnostics:\n%s", diag);

	char prefix[256];
	snprintf(prefix, sizeof(prefix), "%s:%d:%d: error: ", file, line, col);
	const char *m = strstr(diag, prefix);
	ck_assert_msg(m != NULL, "expected an error starting '%s'; diagnostics:\n%s", prefix, diag);
	const char *eol = strchr(m, '\n');
	ck_assert_ptr_nonnull(eol);
	char msg[1024];
	snprintf(msg, sizeof(msg), "%.*s", (int)(eol - m), m);
	ck_assert_msg(strstr(msg, phrase) != NULL, "message '%s' lacks '%s'", msg, phrase);

	/* the source line and the caret line right after the message */
	char src[512], expect[1200];
	source_line(text, line, src, sizeof(src));
	ck_assert_msg(strncmp(src + col - 1, under, strlen(under)) == 0 && (size_t)col - 1 <= strlen(src),
		"test bug: %d:%d of the source is '%s', not '%s'", line, col, src + col - 1, under);
	size_t len = strlen(under) ? strlen(under) : 1;
	int k = snprintf(expect, sizeof(expect), "  %s\n  %*s^", src, col - 1, "");
	for (size_t i = 1; i < len; i++)
		k += snprintf(expect + k, sizeof(expect) - (size_t)k, "~");
	snprintf(expect + k, sizeof(expect) - (size_t)k, "\n");
	ck_assert_msg(strncmp(eol + 1, expect, strlen(expect)) == 0,
		"expected the source and caret lines\n%s\nafter '%s'; diagnostics:\n%s", expect, msg, diag);

	/* and the hint */
	const char *h = eol + 1 + strlen(expect);
	ck_assert_msg(strncmp(h, "  hint: ", 8) == 0, "no hint line after the caret line of '%s':\n%s", msg, diag);
	const char *hend = strchr(h, '\n');
	ck_assert_ptr_nonnull(hend);
	char hl[1024];
	snprintf(hl, sizeof(hl), "%.*s", (int)(hend - h), h);
	ck_assert_msg(strstr(hl, hint) != NULL, "hint '%s' lacks '%s'", hl, hint);
}

static void check_error(const char *text, int line, int col, const char *under,
	const char *phrase, const char *hint)
{
	check_error_in(FILE_NAME, text, line, col, under, phrase, hint);
}

/* text must fail to parse with the error described. */
static void expect_parse_error(const char *text, int line, int col, const char *under,
	const char *phrase, const char *hint)
{
	pt_pipeline *p = pt_parse_string(ctx, FILE_NAME, text);
	ck_assert_msg(p == NULL, "pipeline parsed but should not have:\n%s", text);
	check_error(text, line, col, under, phrase, hint);
}

static pt_pipeline *parse_ok(const char *text)
{
	pt_pipeline *p = pt_parse_string(ctx, FILE_NAME, text);
	ck_assert_msg(p != NULL, "pipeline did not parse:\n%s", pt_ctx_diagnostics(ctx));
	return p;
}

/* Parses text and makes an interpreter for it. */
static void start(const char *text)
{
	pt_pipeline *p = parse_ok(text);
	in = pt_interp_new(ctx, p);
}

/* Binds image name to a new 1-d or 2-d buffer holding vals. */
static void input(const char *name, pt_type t, int ndim, const int64_t *ext, const double *vals)
{
	ck_assert_int_lt(nbufs, MAX_BUFS);
	pt_buffer *b = &bufs[nbufs++];
	ck_assert_int_eq(pt_buffer_alloc(b, t, ndim, ext), PT_OK);
	int64_t n = pt_buffer_count(b);
	for (int64_t i = 0; vals && i < n; i++) {
		int64_t idx[2] = {ndim == 2 ? i / ext[1] : i, ndim == 2 ? i % ext[1] : 0};
		pt_buffer_set(b, idx, vals[i]);
	}
	ck_assert_msg(pt_interp_set_input(in, name, b) == 0, "%s", pt_ctx_diagnostics(ctx));
}

#define EXT(...) ((const int64_t[]){__VA_ARGS__})
#define VALS(...) ((const double[]){__VA_ARGS__})

/* The run must fail with the error described. */
static void expect_run_error(const char *text, int line, int col, const char *under,
	const char *phrase, const char *hint)
{
	ck_assert_str_eq(pt_ctx_diagnostics(ctx), "");
	ck_assert_int_eq(pt_interp_run(in), -1);
	check_error(text, line, col, under, phrase, hint);
}

/* The compiled pipeline of text, at both optimization levels, run on
 * the images bound so far (in declaration order) into an int output of
 * extents ext: it returns code and says what failed and where, as the
 * interpreter does (pt_rt_error_detail). */
static void expect_compiled_error(const char *text, int ndim, const int64_t *ext, int code, const char *phrase)
{
	pt_pipeline *p = parse_ok(text);
	for (int level = 0; level < 2; level++) {
		pt_options o = { .opt_level = level ? PT_OPT_GROUPED : PT_OPT_NAIVE };
		pt_program *prog = pt_compile(ctx, p, &o);
		ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
		pt_buffer out;
		ck_assert_int_eq(pt_buffer_alloc(&out, PT_I32, ndim, ext), PT_OK);
		const pt_buffer *ins[MAX_BUFS];
		for (int i = 0; i < nbufs; i++)
			ins[i] = &bufs[i];
		pt_buffer *outs[] = { &out };
		int64_t ip[1] = {0};
		double fp[1] = {0};
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), code);
		ck_assert_msg(strstr(pt_rt_error_detail(), phrase), "-O%d: '%s' does not say '%s'", level,
			pt_rt_error_detail(), phrase);
		pt_buffer_free(&out);
		pt_program_free(prog);
	}
}

/* ---- syntax ---- */

START_TEST(syntax_missing_paren)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = min(x, 2\n"
		"output f\n";
	expect_parse_error(t, 3, 1, "output", "expected ')', found 'output'", "close the argument list with ')'");
}
END_TEST

START_TEST(syntax_missing_paren_of_group)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = (x + 1 * 2 -> 4\n"
		"output f\n";
	expect_parse_error(t, 2, 39, "->", "expected ')', found '->'", "close the parenthesis");
}
END_TEST

START_TEST(syntax_bad_token)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = x + * 2\n"
		"output f\n";
	expect_parse_error(t, 2, 32, "*", "expected an expression, found '*'", "expression");
}
END_TEST

START_TEST(syntax_missing_arrow)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int\n"
		"  | x > 1 2\n"
		"output f\n";
	expect_parse_error(t, 3, 11, "2", "expected '->', found '2'", "| condition -> value");
}
END_TEST

START_TEST(syntax_no_definition)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int\n"
		"output f\n";
	expect_parse_error(t, 3, 1, "output", "expected '=' or '|', found 'output'", "define it with '= expr'");
}
END_TEST

START_TEST(syntax_not_a_declaration)
{
	const char *t =
		"pipeline t\n"
		"x = 3\n";
	expect_parse_error(t, 2, 1, "x", "expected a declaration, found 'x'", "declarations start with param");
}
END_TEST

START_TEST(syntax_missing_header)
{
	const char *t = "func f(x : 0 .. 3) : int = x\n";
	expect_parse_error(t, 1, 1, "func", "expected 'pipeline', found 'func'", "pipeline NAME");
}
END_TEST

START_TEST(syntax_reserved_word_as_name)
{
	const char *t =
		"pipeline t\n"
		"func over(x : 0 .. 3) : int = x\n";
	expect_parse_error(t, 2, 6, "over", "expected a function name, found 'over'", "reserved");
}
END_TEST

START_TEST(syntax_number_for_name)
{
	const char *t =
		"pipeline t\n"
		"param 3 : int\n";
	expect_parse_error(t, 2, 7, "3", "expected a parameter name, found '3'", "name");
}
END_TEST

START_TEST(syntax_eof_in_call)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = min(x, 2";
	expect_parse_error(t, 2, 36, "", "expected ')', found the end of the file", "close the argument list");
}
END_TEST

START_TEST(syntax_eof_after_equals)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int =\n";
	expect_parse_error(t, 3, 1, "", "expected an expression, found the end of the file", "expression");
}
END_TEST

START_TEST(syntax_eof_in_block)
{
	const char *t =
		"pipeline t\n"
		"for l in 1 .. 2 {\n"
		"  func f[l](x : 0 .. 3) : int = x\n";
	expect_parse_error(t, 2, 17, "{", "block is never closed", "close it with '}'");
}
END_TEST

START_TEST(syntax_bad_character)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = x @ 2\n"
		"output f\n";
	expect_parse_error(t, 2, 30, "@", "unexpected character '@'", "comments start with '#'");
}
END_TEST

START_TEST(syntax_non_ascii_byte)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = x \xc3\xa9 2\n"
		"output f\n";
	expect_parse_error(t, 2, 30, " ", "unexpected byte 0xc3", "ASCII");
}
END_TEST

START_TEST(syntax_malformed_number)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = 3x\n";
	expect_parse_error(t, 2, 28, "3x", "malformed number", "separate the number");
}
END_TEST

START_TEST(syntax_number_out_of_range)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : long = 99999999999999999999\n";
	expect_parse_error(t, 2, 29, "99999999999999999999", "out of range", "64 bits");
}
END_TEST

START_TEST(syntax_unknown_type)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : flaot = x\n";
	expect_parse_error(t, 2, 22, "flaot", "unknown type 'flaot'", "u8 u16 u32");
}
END_TEST

START_TEST(syntax_param_type)
{
	const char *t =
		"pipeline t\n"
		"param N : u8 = 3\n";
	expect_parse_error(t, 2, 11, "u8", "parameters are i32, i64, f32 or f64", "int, long, float or double");
}
END_TEST

START_TEST(syntax_variable_without_interval)
{
	const char *t =
		"pipeline t\n"
		"func f(x) : int = x\n";
	expect_parse_error(t, 2, 8, "x", "variable 'x' has no interval", "var x : lo .. hi");
}
END_TEST

START_TEST(syntax_bad_step)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 9 step 0) : int = x\n";
	expect_parse_error(t, 2, 24, "0", "interval step must be positive", "step of 1 or more");
}
END_TEST

START_TEST(syntax_const_not_constant)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 4\n"
		"const K = R + 1\n";
	expect_parse_error(t, 3, 11, "R + 1", "must be a compile-time constant", "literals, `const` names");
}
END_TEST

START_TEST(syntax_stencil_needs_a_call)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 1 .. 2) : int = stencil(x, 1, [1, 2, 1])\n";
	expect_parse_error(t, 2, 36, "x", "first argument of stencil must be a call", "stencil(f(x, y), 1");
}
END_TEST

START_TEST(syntax_stencil_ragged_matrix)
{
	const char *t =
		"pipeline t\n"
		"image I : int [4, 4]\n"
		"func f(x : 1 .. 2, y : 1 .. 2) : int = stencil(I(x, y), 1, [[1, 2], [3]])\n";
	expect_parse_error(t, 3, 69, "[3]", "stencil matrix row has 1 entries, expected 2", "same length");
}
END_TEST

START_TEST(syntax_update_of_another_stage)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = x\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 3)\n"
		"  | g(x) += 1\n";
	expect_parse_error(t, 4, 5, "g(x)", "update must assign to 'h'", "| h(index) += value");
}
END_TEST

START_TEST(syntax_bar_mid_line_is_bitwise_or)
{
	/* only a '|' that starts a line starts an update: here the init
	 * expression reads "0 | h(x)" and the parser then finds '+=' */
	const char *t =
		"pipeline t\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 3) init 0 | h(x) += 1\n";
	expect_parse_error(t, 2, 60, "+=", "expected '|', found '+='", "| h(I(x, y)) += 1");
}
END_TEST

/* ---- unknown names ---- */

START_TEST(unknown_stage_suggests_closest)
{
	const char *t =
		"pipeline t\n"
		"image I : float [4]\n"
		"func harris(x : 0 .. 3) : float = I(x)\n"
		"func g(x : 0 .. 3) : float = harri(x)\n"
		"output g\n";
	expect_parse_error(t, 4, 30, "harri(x)", "unknown function or image 'harri'", "did you mean 'harris'?");
}
END_TEST

START_TEST(unknown_image_suggests_closest)
{
	const char *t =
		"pipeline t\n"
		"image input : float [4]\n"
		"func g(x : 0 .. 3) : float = inptu(x) * 2\n"
		"output g\n";
	expect_parse_error(t, 3, 30, "inptu(x)", "unknown function or image 'inptu'", "did you mean 'input'?");
}
END_TEST

START_TEST(unknown_variable_suggests_closest)
{
	const char *t =
		"pipeline t\n"
		"func f(row : 0 .. 3, col : 0 .. 3) : int = roww + col\n"
		"output f\n";
	expect_parse_error(t, 2, 44, "roww", "unknown name 'roww'", "did you mean 'row'?");
}
END_TEST

START_TEST(unknown_param_in_bound_suggests_closest)
{
	const char *t =
		"pipeline t\n"
		"param width : int = 4\n"
		"func f(x : 0 .. widht - 1) : int = x\n"
		"output f\n";
	expect_parse_error(t, 3, 17, "widht", "unknown name 'widht'", "did you mean 'width'?");
}
END_TEST

START_TEST(unknown_output_suggests_closest)
{
	const char *t =
		"pipeline t\n"
		"func harris(x : 0 .. 3) : float = x\n"
		"output harri\n";
	expect_parse_error(t, 3, 8, "harri", "no stage named 'harri'", "did you mean 'harris'?");
}
END_TEST

START_TEST(unknown_name_without_suggestion)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = zzzz(x)\n"
		"output f\n";
	expect_parse_error(t, 2, 28, "zzzz(x)", "unknown function or image 'zzzz'", "declare it with func, reduce or image");
}
END_TEST

START_TEST(stage_used_as_a_value)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = x\n"
		"func g(x : 0 .. 3) : int = f + 1\n"
		"output g\n";
	expect_parse_error(t, 3, 28, "f", "'f' is a stage or image, not a value", "call it with its indices");
}
END_TEST

/* ---- arity ---- */

START_TEST(arity_of_a_stage_call)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3, y : 0 .. 3) : int = x + y\n"
		"func g(x : 0 .. 3) : int = f(x)\n"
		"output g\n";
	expect_parse_error(t, 3, 28, "f(x)", "'f' has 2 dimensions but is called with 1 argument",
		"one index per dimension");
}
END_TEST

START_TEST(arity_of_an_image_call)
{
	const char *t =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"func g(x : 0 .. 3) : int = I(x, 0)\n"
		"output g\n";
	expect_parse_error(t, 3, 28, "I(x, 0)", "'I' has 1 dimension but is called with 2 arguments",
		"one index per dimension");
}
END_TEST

START_TEST(arity_of_an_intrinsic)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : float = sqrt(x, 2)\n"
		"output g\n";
	expect_parse_error(t, 2, 30, "sqrt(x, 2)", "sqrt takes 1 argument, not 2", "sqrt");
}
END_TEST

START_TEST(arity_of_min)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = min(x)\n"
		"output g\n";
	expect_parse_error(t, 2, 28, "min(x)", "min takes 2 or more arguments, not 1", "min");
}
END_TEST

START_TEST(arity_of_select)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = select(x > 1, 2)\n"
		"output g\n";
	expect_parse_error(t, 2, 28, "select(x > 1, 2)", "select takes 3 arguments, not 2", "select(cond, a, b)");
}
END_TEST

START_TEST(arity_of_an_update)
{
	const char *t =
		"pipeline t\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 3)\n"
		"  | h(x, 0) += 1\n"
		"output h\n";
	expect_parse_error(t, 3, 5, "h(x, 0)", "'h' has 1 dimension but the update gives 2 indices", "index");
}
END_TEST

/* ---- types ---- */

START_TEST(type_float_index)
{
	const char *t =
		"pipeline t\n"
		"image I : float [8]\n"
		"func g(x : 0 .. 3) : float = I(x * 2.0)\n"
		"output g\n";
	expect_parse_error(t, 3, 32, "x * 2.0", "an index must be an integer, not f32", "int(floor(v))");
}
END_TEST

START_TEST(type_condition_as_number)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = (x > 1) + 2\n"
		"output g\n";
	expect_parse_error(t, 2, 29, "x > 1", "operand of '+' is a condition, not a number", "select(c, 1, 0)");
}
END_TEST

START_TEST(type_condition_as_value)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = x > 1\n"
		"output g\n";
	expect_parse_error(t, 2, 28, "x > 1", "'g' has type i32 but this value is a condition", "select(c, 1, 0)");
}
END_TEST

START_TEST(type_number_as_condition)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int\n"
		"  | x + 1 -> 2\n"
		"  | else -> 0\n"
		"output g\n";
	expect_parse_error(t, 3, 5, "x + 1", "a case condition must be a condition, not i32", "like v != 0");
}
END_TEST

START_TEST(type_number_in_logical_and)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = select(x && 1, 1, 0)\n"
		"output g\n";
	expect_parse_error(t, 2, 35, "x", "operands of '&&' must be conditions", "like v != 0");
}
END_TEST

START_TEST(type_select_condition)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = select(x, 1, 0)\n"
		"output g\n";
	expect_parse_error(t, 2, 35, "x", "the condition of select must be a condition", "like v != 0");
}
END_TEST

START_TEST(type_select_mixes_condition_and_number)
{
	const char *t =
		"pipeline t\n"
		"func g(x : 0 .. 3) : int = select(x > 0, x < 2, 1)\n"
		"output g\n";
	expect_parse_error(t, 2, 42, "x < 2", "select mixes a condition and a number", "both branches");
}
END_TEST

START_TEST(type_float_param_in_bound)
{
	const char *t =
		"pipeline t\n"
		"param s : float = 2.0\n"
		"func f(x : 0 .. s) : int = x\n"
		"output f\n";
	expect_parse_error(t, 3, 17, "s", "float param 's' cannot appear in a domain bound or extent",
		"param N : int");
}
END_TEST

START_TEST(type_float_literal_in_bound)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 2.5) : int = x\n"
		"output f\n";
	expect_parse_error(t, 2, 17, "2.5", "the upper bound of 'x' in 'f' must be an integer, not f32",
		"int params and integer constants");
}
END_TEST

START_TEST(type_bitwise_on_floats)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : float = x * 1.5 & 3\n"
		"output f\n";
	expect_parse_error(t, 2, 30, "x * 1.5", "'&' needs integer operands", "integer type first");
}
END_TEST

START_TEST(type_complement_of_a_float)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : float = ~(x * 1.5)\n"
		"output f\n";
	expect_parse_error(t, 2, 32, "x * 1.5", "'~' needs an integer operand", "integer type first");
}
END_TEST

START_TEST(type_not_of_a_number)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int\n"
		"  | !x -> 1\n"
		"  | else -> 0\n"
		"output f\n";
	expect_parse_error(t, 3, 6, "x", "operand of '!' must be a condition", "like v != 0");
}
END_TEST

START_TEST(type_float_reduction_target)
{
	const char *t =
		"pipeline t\n"
		"image F : float [4]\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 3)\n"
		"  | h(F(x)) += 1\n"
		"output h\n";
	expect_parse_error(t, 4, 7, "F(x)", "a reduction index must be an integer, not f32", "int(floor(v))");
}
END_TEST

/* ---- static rules ---- */

START_TEST(cycle_between_stages)
{
	const char *t =
		"pipeline t\n"
		"func a(x : 0 .. 3) : int = b(x)\n"
		"func b(x : 0 .. 3) : int = a(x) + 1\n"
		"output b\n";
	expect_parse_error(t, 2, 6, "a", "stages depend on each other in a cycle: a -> b -> a", "DAG");
}
END_TEST

START_TEST(cycle_of_three)
{
	const char *t =
		"pipeline t\n"
		"func p(x : 0 .. 3) : int = 1\n"
		"func a(x : 0 .. 3) : int = p(x) + c(x)\n"
		"func b(x : 0 .. 3) : int = a(x)\n"
		"func c(x : 0 .. 3) : int = b(x)\n"
		"output c\n";
	expect_parse_error(t, 3, 6, "a", "cycle: a -> c -> b -> a", "time dimension");
}
END_TEST

START_TEST(non_affine_domain_bound)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 4\n"
		"param C : int = 4\n"
		"func f(x : 0 .. R*C) : int = x\n"
		"output f\n";
	expect_parse_error(t, 4, 17, "R*C", "the upper bound of 'x' in 'f' is not affine", "R/2 + 1");
}
END_TEST

START_TEST(non_affine_image_extent)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : u8 [2, R % 3]\n"
		"func f(x : 0 .. 1) : int = I(x, 0)\n"
		"output f\n";
	expect_parse_error(t, 3, 18, "R % 3", "extent 2 of image 'I' is not affine", "divided by a positive constant");
}
END_TEST

START_TEST(bound_reads_data)
{
	const char *t =
		"pipeline t\n"
		"image I : int [4]\n"
		"func f(x : 0 .. I(0)) : int = x\n"
		"output f\n";
	expect_parse_error(t, 3, 17, "I(0)", "a bound cannot read 'I'", "params and constants only");
}
END_TEST

/* Domains and extents empty for every value of the params (int params
 * range over their type). */
START_TEST(empty_for_all_params)
{
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 4\n"
		"image I : int [N]\n"
		"func f(x : 2147483647 .. N - 1) : int = I(0)\n"
		"output f\n", 4, 12, "2147483647",
		"stage 'f' has no point for any value of the params: its interval in dimension 1 is empty",
		"lo <= hi");
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 4\n"
		"image I : int [N - 2147483648]\n"
		"func f(x : 0 .. 3) : int = x\n"
		"output f\n", 3, 16, "N - 2147483648",
		"image 'I' has no element for any value of the params: its extent in dimension 1 is below 1",
		"at least one element");
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 4\n"
		"image I : int [4]\n"
		"func a(x : 0 .. N - 10) : int = I(0)\n"
		"func b(x : 0 .. 5 - N) : int = I(0)\n"
		"output a, b\n", 1, 10, "t",
		"no value of the params gives every image an element and every stage a point",
		"bounds and extents together");
}
END_TEST

START_TEST(bound_names_a_variable)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3, y : 0 .. x) : int = x\n"
		"output f\n";
	expect_parse_error(t, 2, 29, "x", "unknown name 'x'", "bounds may use only int params");
}
END_TEST

START_TEST(data_dependent_index_not_in_bounds)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 4\n"
		"image L : u8 [256]\n"
		"image I : i32 [R]\n"
		"func f(x : 0 .. R-1) : u8 = L(I(x))\n"
		"output f\n";
	expect_parse_error(t, 5, 31, "I(x)",
		"data-dependent index 1 of 'L' may fall outside 0 .. 255: its values range over -2147483648 .. 2147483647",
		"clamp it: L(..., clamp(index, 0, 255), ...)");
}
END_TEST

START_TEST(data_dependent_index_clamped_is_accepted)
{
	parse_ok("pipeline t\n"
		"param R : int = 4\n"
		"image L : u8 [256]\n"
		"image I : i32 [R]\n"
		"func f(x : 0 .. R-1) : u8 = L(clamp(I(x), 0, 255))\n"
		"func lut(v : 0 .. R-1) : int = v * v\n"
		"func g(x : 0 .. R-1) : int = lut(clamp(I(x), 0, R - 1))\n"
		"output f, g\n");
	ck_assert_str_eq(pt_ctx_diagnostics(ctx), "");
}
END_TEST

/* clamp is min(max(v, lo), hi): when hi may be below lo the value is hi,
 * which may leave the domain (R = 2 gives clamp(v, 0, -3) = -3); the
 * checker's old clamp rule claimed lo .. hi and accepted this. */
START_TEST(data_dependent_clamp_with_hi_below_lo)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 8\n"
		"image I : i32 [R]\n"
		"func f(x : 0 .. R-1) : int = I(clamp(I(x), 0, R - 5))\n"
		"output f\n";
	expect_parse_error(t, 4, 32, "clamp(I(x), 0, R - 5)",
		"data-dependent index 1 of 'I' may fall outside 0 .. R - 1: its values range over -4 .. R - 5",
		"clamp it: I(..., clamp(index, 0, R - 1), ...)");
}
END_TEST

START_TEST(data_dependent_u8_into_a_smaller_table)
{
	const char *t =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"func lut(v : 0 .. 199) : int = v\n"
		"func f(x : 0 .. 3) : int = lut(I(x))\n"
		"output f\n";
	expect_parse_error(t, 4, 32, "I(x)", "may fall outside 0 .. 199: its values range over 0 .. 255",
		"clamp(index, 0, 199)");
}
END_TEST

START_TEST(data_dependent_reduction_target)
{
	const char *t =
		"pipeline t\n"
		"image I : u16 [4]\n"
		"reduce h(b : 0 .. 255) : int over (x : 0 .. 3)\n"
		"  | h(I(x)) += 1\n"
		"output h\n";
	expect_parse_error(t, 4, 7, "I(x)", "index 1 of 'h' may fall outside 0 .. 255: its values range over 0 .. 65535",
		"clamp it");
}
END_TEST

/* The hint's clamp can be written: no -inf or +inf in it. */
static void assert_hint_writable(void)
{
	const char *h = strstr(pt_ctx_diagnostics(ctx), "hint: ");
	ck_assert_ptr_nonnull(h);
	const char *eol = strchr(h, '\n');
	char line[512];
	snprintf(line, sizeof(line), "%.*s", eol ? (int)(eol - h) : (int)strlen(h), h);
	ck_assert_msg(!strstr(line, "inf"), "the hint cannot be written: %s", line);
}

/* Issue 40 item 7: with two params, C - 5 >= 4 (s2's own domain is not
 * empty) orders the clamp's bounds, so its values stay in 4 .. C - 5. */
static const char *fact_from_domain =
	"pipeline m7\n"
	"param R : int = 23\n"
	"param C : int = 17\n"
	"image I : float [R, C]\n"
	"func s2(x : 0 .. R - 1, y : 4 .. C - 5) : float = I(x, y)\n"
	"func s4(x : 0 .. C - 1, y : 0 .. R - 1) : float = s2(y, clamp(x + int(I(y, x)), 4, C - 5))\n"
	"output s4\n";

START_TEST(data_dependent_fact_from_a_domain)
{
	parse_ok(fact_from_domain);
	ck_assert_str_eq(pt_ctx_diagnostics(ctx), "");
}
END_TEST

/* The same read one past the end: C - 4 is outside 4 .. C - 5. */
START_TEST(data_dependent_fact_from_a_domain_one_past)
{
	const char *t =
		"pipeline m7\n"
		"param R : int = 23\n"
		"param C : int = 17\n"
		"image I : float [R, C]\n"
		"func s2(x : 0 .. R - 1, y : 4 .. C - 5) : float = I(x, y)\n"
		"func s4(x : 0 .. C - 1, y : 0 .. R - 1) : float = s2(y, clamp(x + int(I(y, x)), 4, C - 4))\n"
		"output s4\n";
	expect_parse_error(t, 6, 57, "clamp(x + int(I(y, x)), 4, C - 4)",
		"data-dependent index 2 of 's2' may fall outside 4 .. C - 5: its values range over 4 .. C - 4",
		"clamp it: s2(..., clamp(index, 4, C - 5), ...)");
}
END_TEST

/* Without the fact (s2 over 0 .. C - 1 is not empty for C >= 1): C = 1
 * makes the clamp C - 5 = -4. */
START_TEST(data_dependent_clamp_bounds_not_ordered)
{
	const char *t =
		"pipeline m7\n"
		"param R : int = 23\n"
		"param C : int = 17\n"
		"image I : float [R, C]\n"
		"func s2(x : 0 .. R - 1, y : 0 .. C - 1) : float = I(x, y)\n"
		"func s4(x : 0 .. C - 1, y : 0 .. R - 1) : float = s2(y, clamp(x + int(I(y, x)), 4, C - 5))\n"
		"output s4\n";
	expect_parse_error(t, 6, 57, "clamp(x + int(I(y, x)), 4, C - 5)",
		"data-dependent index 2 of 's2' may fall outside 0 .. C - 1: its values range over -4 .. C - 5",
		"clamp it: s2(..., clamp(index, 0, C - 1), ...)");
}
END_TEST

/* A reduction's reduction domain may be empty (N = 0 is admissible): it
 * orders nothing for another stage's read, clamp(J(x), 0, N - 1) = -1. */
START_TEST(data_dependent_reduction_domain_is_no_fact)
{
	const char *t =
		"pipeline t\n"
		"param N : int = 4\n"
		"image J : int [5 - N]\n"
		"reduce r(b : 0 .. 0) : int over (k : 0 .. N - 1)\n"
		"  | r(0) += k\n"
		"func f(x : 0 .. 3) : int = x\n"
		"func g(x : 0 .. 0) : int = f(clamp(J(x), 0, N - 1)) + r(0)\n"
		"output g\n";
	expect_parse_error(t, 7, 30, "clamp(J(x), 0, N - 1)", "data-dependent index 1 of 'f' may fall outside 0 .. 3",
		"clamp it: f(..., clamp(index, 0, 3), ...)");
}
END_TEST

/* Issue 40 item 7: bounds with a floor division, as a reduction target
 * and as a read. */
START_TEST(data_dependent_bound_with_a_division)
{
	parse_ok("pipeline t\n"
		"param R : int = 40\n"
		"image Q : float [R]\n"
		"reduce h(b : 0 .. R / 2 - 1) : int over (x : 0 .. R - 1)\n"
		"  | h(clamp(x / 2 + int(Q(x)) / 64, 0, R / 2 - 1)) += 1\n"
		"func g(x : 0 .. R - 1) : int = h(clamp(x / 2 + int(Q(x)) / 64, 0, R / 2 - 1))\n"
		"output g\n");
	ck_assert_str_eq(pt_ctx_diagnostics(ctx), "");
}
END_TEST

/* (R + 1) / 2 - 1 is R / 2 for odd R; the hint clamps to the bound as
 * written (it once said clamp(index, 0, +inf)). */
START_TEST(data_dependent_bound_with_a_division_one_past)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 40\n"
		"image Q : float [R]\n"
		"reduce h(b : 0 .. R / 2 - 1) : int over (x : 0 .. R - 1)\n"
		"  | h(clamp(x / 2 + int(Q(x)) / 64, 0, (R + 1) / 2 - 1)) += 1\n"
		"output h\n";
	expect_parse_error(t, 5, 7, "clamp(x / 2 + int(Q(x)) / 64, 0, (R + 1) / 2 - 1)",
		"data-dependent index 1 of 'h' may fall outside 0 .. R / 2 - 1",
		"clamp it: h(..., clamp(index, 0, R / 2 - 1), ...)");
	assert_hint_writable();
}
END_TEST

/* Reads and targets are decided where they are evaluated: a guard or an
 * update's condition x > 0 keeps clamp(J(x), 0, x - 1) >= 0. */
START_TEST(data_dependent_index_under_a_guard)
{
	parse_ok("pipeline t\n"
		"param R : int = 8\n"
		"image J : int [R]\n"
		"func f(x : 0 .. R - 1) : int = x\n"
		"func g(x : 0 .. R - 1) : int = select(x > 0, f(clamp(J(x), 0, x - 1)), 0)\n"
		"reduce h(b : 0 .. R - 1) : int over (x : 0 .. R - 1)\n"
		"  | x > 0 -> h(clamp(J(x), 0, x - 1)) += 1\n"
		"output g, h\n");
	ck_assert_str_eq(pt_ctx_diagnostics(ctx), "");
}
END_TEST

START_TEST(data_dependent_index_without_its_guard)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 8\n"
		"image J : int [R]\n"
		"func f(x : 0 .. R - 1) : int = x\n"
		"func g(x : 0 .. R - 1) : int = select(x >= 0, f(clamp(J(x), 0, x - 1)), 0)\n"
		"output g\n";
	expect_parse_error(t, 5, 49, "clamp(J(x), 0, x - 1)",
		"data-dependent index 1 of 'f' may fall outside 0 .. R - 1: its values range over -1 .. R - 2",
		"clamp it: f(..., clamp(index, 0, R - 1), ...)");
}
END_TEST

START_TEST(data_dependent_target_without_its_condition)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 8\n"
		"image J : int [R]\n"
		"reduce h(b : 0 .. R - 1) : int over (x : 0 .. R - 1)\n"
		"  | h(clamp(J(x), 0, x - 1)) += 1\n"
		"output h\n";
	expect_parse_error(t, 5, 7, "clamp(J(x), 0, x - 1)",
		"data-dependent index 1 of 'h' may fall outside 0 .. R - 1: its values range over -1 .. R - 2",
		"clamp it: h(..., clamp(index, 0, R - 1), ...)");
}
END_TEST

/* A stage reading itself both ways along one variable: no order of
 * evaluation computes both points first (docs/language.md §13). */
START_TEST(self_read_both_ways)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int\n"
		"  | x == 0 || x == 3 -> x\n"
		"  | else -> f(x - 1) + f(x + 1)\n"
		"output f\n";
	expect_parse_error(t, 4, 24, "f(x + 1)",
		"'f' reads itself both before and after along 'x' (here and at 4:13): no order computes both first",
		"one pass each way");
	/* along the second variable, under the same first one; a read
	 * leading along the first (x) fixes nothing about y */
	const char *u =
		"pipeline t\n"
		"func g(x : 0 .. 3, y : 0 .. 3) : int\n"
		"  | x == 0 || y == 0 || y == 3 -> y\n"
		"  | else -> g(x, y + 1) + g(x - 1, y - 1) + g(x, y - 1)\n"
		"output g\n";
	expect_parse_error(u, 4, 45, "g(x, y - 1)",
		"'g' reads itself both before and after along 'y' (here and at 4:13)", "split the stage");
}
END_TEST

/* Reads that are not a constant step along the first differing
 * variable, and a reduction reading itself, stay refused. */
START_TEST(self_read_not_a_step)
{
	const char *t =
		"pipeline t\n"
		"func f(t : 0 .. 3, x : 0 .. 3) : int\n"
		"  | t == 0 -> x\n"
		"  | t > 0 -> f(t - 1, x) + f(3 - t, x)\n"
		"output f\n";
	expect_parse_error(t, 4, 28, "f(3 - t, x)", "'f' reads itself at a point that is not provably computed earlier",
		"a constant step away along the first variable that differs");
	const char *r =
		"pipeline t\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 3)\n"
		"  | h(x) += h(x + 1)\n"
		"output h\n";
	expect_parse_error(r, 3, 13, "h(x + 1)", "'h' reads itself at a point that is not provably computed earlier",
		"a reduction may read itself only at an earlier step");
}
END_TEST

START_TEST(self_read_same_point)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = f(x) + 1\n"
		"output f\n";
	expect_parse_error(t, 2, 28, "f(x)", "'f' reads itself", "constant step away");
}
END_TEST

/* A backward recurrence whose next point is undefined where the data
 * say so: the interpreter, running x down, and the compiled code at
 * both levels report the read of a point not computed (r is no output:
 * an output has no mask of its defined points). */
START_TEST(run_backward_reads_undefined_point)
{
	const char *t =
		"pipeline t\n"
		"image I : int [4]\n"
		"func r(x : 0 .. 3) : int\n"
		"  | I(x) > 0 -> select(x == 3, 1, r(x + 1) + 1)\n"
		"func o(x : 0 .. 3) : int = r(3) + x\n"
		"output o\n";
	start(t);
	input("I", PT_I32, 1, EXT(4), (double[]){ 1, 1, 0, 1 });
	expect_run_error(t, 4, 35, "r(x + 1)", "stage 'r' at (1) reads r(2), a point of itself not computed yet",
		"in the order its self-reads give");
	expect_compiled_error(t, 1, EXT(4), PT_ERR_UNDEFINED, "reads a point of 'r' that no case of it defines");
}
END_TEST

START_TEST(duplicate_stage)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = x\n"
		"func f(x : 0 .. 3) : int = 2\n"
		"output f\n";
	expect_parse_error(t, 3, 6, "f", "'f' is already defined", "rename one of them");
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx),
		"  hint: rename one of them\n"
		FILE_NAME ":2:6: note: 'f' was defined here\n"
		"  func f(x : 0 .. 3) : int = x\n"
		"       ^\n"));
}
END_TEST

START_TEST(alias_errors)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : int [R]\n"
		"alias J = K\n"
		"output J\n";
	expect_parse_error(t, 4, 11, "K", "no stage or image named 'K'", "declare the stage or image before its alias");
	pt_ctx_clear_diagnostics(ctx);
	const char *u =
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : int [R]\n"
		"alias J = I\n"
		"func J(x : 0 .. 3) : int = x\n"
		"output J\n";
	expect_parse_error(u, 5, 6, "J", "'J' is already an alias", "rename one of them");
}
END_TEST

START_TEST(too_many_stages)
{
	const char *t =
		"pipeline t\n"
		"func f[0](x : 0 .. 1) : int = x\n"
		"for l in 1 .. 20000 {\n"
		"  func f[l](x : 0 .. 1) : int = f[l-1](x)\n"
		"}\n"
		"output f[0]\n";
	expect_parse_error(t, 4, 8, "f[l]", "too many stages", "at most 10000 stages");
}
END_TEST

START_TEST(duplicate_param)
{
	const char *t =
		"pipeline t\n"
		"param R : int\n"
		"param R : long\n";
	expect_parse_error(t, 3, 7, "R", "'R' is already defined", "rename one of them");
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), FILE_NAME ":2:7: note: 'R' was defined here"));
}
END_TEST

START_TEST(duplicate_image_and_stage)
{
	const char *t =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"reduce I(b : 0 .. 3) : int over (x : 0 .. 3)\n"
		"  | I(x) += 1\n";
	expect_parse_error(t, 3, 8, "I", "'I' is already defined", "rename one of them");
	ck_assert_ptr_nonnull(strstr(pt_ctx_diagnostics(ctx), FILE_NAME ":2:7: note: 'I' was defined here"));
}
END_TEST

START_TEST(duplicate_family_member)
{
	const char *t =
		"pipeline t\n"
		"func G[1](x : 0 .. 3) : int = x\n"
		"for l in 0 .. 1 {\n"
		"  func G[l](x : 0 .. 3) : int = x\n"
		"}\n";
	expect_parse_error(t, 4, 8, "G[l]", "'G[1]' is already defined", "rename one of them");
}
END_TEST

START_TEST(duplicate_variable_of_a_stage)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3, x : 0 .. 3) : int = 1\n";
	expect_parse_error(t, 2, 20, "x", "variable 'x' appears twice in 'f'", "its own name");
}
END_TEST

START_TEST(reduction_operator_mismatch)
{
	const char *t =
		"pipeline t\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3)\n"
		"  | h(0) += x\n"
		"  | h(1) *= x\n"
		"output h\n";
	expect_parse_error(t, 4, 10, "*=", "'h' already reduces with +=", "one operator for every update");
}
END_TEST

START_TEST(reduction_bad_operator)
{
	const char *t =
		"pipeline t\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3)\n"
		"  | h(0) : x\n";
	expect_parse_error(t, 3, 10, ":", "expected a reduction operator, found ':'", "+= *= min= max= &&= ||=");
}
END_TEST

/* General updates (h(t) = E, docs §12): one value, the accumulator read
 * only at the target and never as an index, a value at all, an init. */
START_TEST(general_update_errors)
{
	const char *two =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3) init 0\n"
		"  | h(0) = h(0) + I(x) + 7 * h(0) * I(3 - x)\n"
		"output h\n";
	expect_parse_error(two, 4, 37, "I(3 - x)", "the update of 'h' combines its accumulator with two values, 'I(x)' and "
		"'I(3 - x)'", "one value v");
	const char *other =
		"pipeline t\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3) init 0\n"
		"  | h(1) = h(0) + x\n"
		"output h\n";
	expect_parse_error(other, 3, 12, "h(0)", "the update of 'h' reads it at h(0), not at its target", "only at its target");
	const char *index =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3) init 0\n"
		"  | h(0) = h(0) + I(h(0) % 4 + x)\n"
		"output h\n";
	expect_parse_error(index, 4, 19, "I(h(0) % 4 + x)", "reads I(h(0) % 4 + x) at an index that depends on its accumulator",
		"combine the accumulator with operators");
	const char *none =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3) init 0\n"
		"  | h(0) = 2 * h(0) + 1\n"
		"output h\n";
	expect_parse_error(none, 4, 12, "2 * h(0) + 1", "the update of 'h' combines its accumulator with no value", "one value");
	const char *noinit =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3)\n"
		"  | h(0) = h(0) + x\n"
		"output h\n";
	expect_parse_error(noinit, 3, 8, "h", "reduction 'h' has general updates and needs `init`", "init 0");
	const char *mixed =
		"pipeline t\n"
		"image I : u8 [4]\n"
		"reduce h(b : 0 .. 1) : int over (x : 0 .. 3) init 0\n"
		"  | h(0) = h(0) + x\n"
		"  | h(1) += x\n"
		"output h\n";
	expect_parse_error(mixed, 5, 10, "+=", "'h' already reduces with =", "write every update as h(t) = expression");
}
END_TEST

/* Tuple reductions (docs §12): arity of the type, the init and the
 * values; components that do not exist, a tuple read whole, a component
 * of a stage that is not a tuple; updates reading the accumulator
 * elsewhere or in a built-in operator's values; one operator; no
 * i64 with floats; a component's name taken. */
START_TEST(tuple_errors)
{
	const char *head = "pipeline t\nimage I : int [4]\n";
	static const struct { const char *body; int line, col; const char *under, *phrase, *hint; } cases[] = {
		{"reduce a(k : 0 .. 0) : (int) over (x : 0 .. 3)\n  | a(0) += (I(x))\noutput a\n", 3, 24, "(int)",
			"a tuple has at least 2 components", "write the type alone"},
		{"reduce a(k : 0 .. 0) : (int, i64, float) over (x : 0 .. 3)\n  | a(0) += (I(x), 1, 2)\noutput a\n", 3, 24,
			"(int, i64, float)", "cannot mix i64 and float components", "i32 or narrower"},
		{"reduce a(k : 0 .. 0) : (int, int) over (x : 0 .. 3)\n  | a(0) argmin= (I(x), x, 1)\noutput a\n", 4, 18,
			"(I(x), x, 1)", "'a' has 2 components but the update gives 3 values", "one value per component"},
		{"reduce a(k : 0 .. 0) : (int, int) over (x : 0 .. 3) init (1, 2, 3)\n  | a(0) argmin= (I(x), x)\noutput a\n",
			3, 58, "(1, 2, 3)", "'a' has 2 components but its initial value gives 3 values", "one value per component"},
		{"reduce a(k : 0 .. 0) : (int, int) over (x : 0 .. 3)\n  | a(0) argmin= (I(x), x)\n"
			"func f(x : 0 .. 0) : int = a(0).2\noutput f\n", 5, 28, "a(0).2", "'a' has 2 components (.0 .. .1), not .2",
			"numbered from 0"},
		{"reduce a(k : 0 .. 0) : (int, int) over (x : 0 .. 3)\n  | a(0) argmin= (I(x), x)\n"
			"func f(x : 0 .. 0) : int = a(0)\noutput f\n", 5, 28, "a(0)", "'a' is a tuple of 2 components: read one as a(...).0",
			"read one component"},
		{"func g(x : 0 .. 0) : int = I(x)\nfunc f(x : 0 .. 0) : int = g(0).1\noutput f\n", 4, 28, "g(0).1",
			"'g' is not a tuple: it has no component .1", "tuple reductions"},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3) init (0, 0)\n  | a(0) = (a(1).0 + I(x), a(0).1)\noutput a\n",
			4, 13, "a(1).0", "the update of 'a' reads component 0 at another point than its target", "only at its target"},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3) init (0, 0)\n  | a(0) = (a(0) + I(x), a(0).1)\noutput a\n",
			4, 13, "a(0)", "reads the whole tuple a(...)", "read one component"},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3)\n  | a(0) = (a(0).0 + I(x), a(0).1)\noutput a\n", 3, 8, "a",
			"tuple reduction 'a' has general updates and needs `init`", "init (0, 0)"},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3)\n  | a(0) argmin= (I(x), x)\n  | a(1) += (I(x), x)\n"
			"output a\n", 5, 10, "+=", "'a' already reduces with another operator", "one operator"},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3)\n  | a(0, 1) argmin= (I(x), x)\noutput a\n", 4, 5, "a(0, 1)",
			"'a' has 1 dimension but the update gives 2 indices", "one index per dimension"},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3)\n  | a(0) argmin= (a(0).0, x)\noutput a\n", 4, 19, "a(0).0",
			"the values of this update of 'a' may not read it", "general update"},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3)\n  | a(0) &&= (I(x), x)\noutput a\n", 4, 10, "&&=",
			"expected a tuple reduction operator", "argmin= argmax="},
		{"reduce a(k : 0 .. 1) : (int, int) over (x : 0 .. 3)\n  | a(0) argmin= (I(x), x)\nfunc a_1(x : 0 .. 0) : int = 0\n"
			"output a\n", 5, 6, "a_1", "'a_1' is already defined", ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s", head, cases[i].body);
		pt_ctx_clear_diagnostics(ctx);
		expect_parse_error(text, cases[i].line, cases[i].col, cases[i].under, cases[i].phrase, cases[i].hint);
	}
}
END_TEST

/* The tie rule (docs §12): argmin and argmax keep the least index among
 * equal values, the first point visited; the components as stages. */
START_TEST(tuple_ties)
{
	const char *t =
		"pipeline t\n"
		"image I : int [2, 3]\n"
		"reduce am(k : 0 .. 0) : (int, int, int) over (x : 0 .. 1, y : 0 .. 2)\n"
		"  | am(0) argmin= (I(x, y), x, y)\n"
		"reduce ax(k : 0 .. 0) : (int, int, int) over (x : 0 .. 1, y : 0 .. 2)\n"
		"  | ax(0) argmax= (I(x, y), x, y)\n"
		"output am, ax\n";
	start(t);
	input("I", PT_I32, 2, EXT(2, 3), VALS(5, 1, 9, 1, 9, 1));
	ck_assert_msg(pt_interp_run(in) == 0, "%s", pt_ctx_diagnostics(ctx));
	static const char *names[] = {"am_0", "am_1", "am_2", "ax_0", "ax_1", "ax_2"};
	static const double want[] = {1, 0, 1, 9, 0, 2};
	for (int i = 0; i < 6; i++) {
		const pt_buffer *b = pt_interp_result(in, names[i], NULL, NULL);
		ck_assert_ptr_nonnull(b);
		ck_assert_msg(pt_buffer_get(b, (const int64_t[]){0}) == want[i], "%s = %g, not %g", names[i],
			pt_buffer_get(b, (const int64_t[]){0}), want[i]);
	}
}
END_TEST

START_TEST(reduction_result_variable_in_update)
{
	const char *t =
		"pipeline t\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 3)\n"
		"  | h(b) += x\n"
		"output h\n";
	expect_parse_error(t, 3, 7, "b", "'b' names a dimension of the result of 'h'", "reduction variables");
}
END_TEST

START_TEST(reduction_init_depends_on_point)
{
	const char *t =
		"pipeline t\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 3) init x * 2\n"
		"  | h(x) += 1\n"
		"output h\n";
	expect_parse_error(t, 2, 51, "x * 2", "the initial value of 'h' must not depend on the point",
		"a constant or params");
}
END_TEST

START_TEST(no_output)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3) : int = x\n";
	expect_parse_error(t, 1, 10, "t", "pipeline 't' has no output", "`output name`");
}
END_TEST

START_TEST(loop_too_long)
{
	const char *t =
		"pipeline t\n"
		"for l in 0 .. 1000000 {\n"
		"}\n";
	expect_parse_error(t, 2, 5, "l", "loop over 'l' runs too many times", "a few thousand");
}
END_TEST

/* An alias names a stage or an image in `output`; an image cannot be an
 * output (it said "no stage named 'I'"). */
START_TEST(output_of_an_image_alias)
{
	expect_parse_error("pipeline t\n"
		"image I : float [4]\n"
		"alias G[0] = I\n"
		"func f(x : 0 .. 3) : float = G[0](x)\n"
		"output f, G[0]\n", 5, 11, "G[0]",
		"'G[0]' is an alias of image 'I', not a stage; only stages can be outputs", "output a stage that reads it");
	expect_parse_error("pipeline t\n"
		"image I : float [4]\n"
		"func f(x : 0 .. 3) : float = I(x)\n"
		"output f, I\n", 4, 11, "I",
		"'I' is an image, not a stage", "output a stage that reads it");
	start("pipeline t\n"
		"image I : float [4]\n"
		"func g(x : 0 .. 3) : float = I(x)\n"
		"alias H[0] = g\n"
		"func f(x : 0 .. 3) : float = H[0](x)\n"
		"output f, H[0]\n");
}
END_TEST

/* Affine conditions: a read of a point no case defines is found
 * statically, with an example (issue 12). */
START_TEST(bounds_reads_undefined_point)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 1, y : 0 .. 3) : int\n"
		"  | y < 3 -> x + y\n"
		"func g(x : 0 .. 1, y : 0 .. 3) : int = f(x, y) * 2\n"
		"output g\n";
	expect_parse_error(t, 4, 40, "f(x, y)",
		"'g' reads f(x, y) at a point that no case of 'f' defines: at x = 0, y = 3 it reads f(0, 3)",
		"add a case (or an `else`) covering that point");
	const char *r =
		"pipeline rterr2\n"
		"param R : int = 8\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x < 2 -> I(x)\n"
		"func g(x : 0 .. R-1) : float = f(x) + 1.0\n"
		"output g\n";
	expect_parse_error(r, 6, 32, "f(x)",
		"'g' reads f(x) at a point that no case of 'f' defines: at x = 2 with R = 3 it reads f(2)", "add a case");
}
END_TEST

/* Reads guarded by the same affine condition are accepted. */
START_TEST(bounds_guarded_defined_reads_accepted)
{
	start("pipeline t\n"
		"param R : int = 8\n"
		"image I : float [R]\n"
		"func f(x : 0 .. R-1) : float\n"
		"  | x < 2 -> I(x)\n"
		"  | x >= 2 && x >= R - 2 -> I(x) * 2.0\n"
		"func g(x : 0 .. R-1) : float\n"
		"  | x < 2 || x >= R - 2 -> f(x)\n"
		"  | else -> select(x > 4 && x + 2 < R, f(R - 1), f(0))\n"
		"output g\n");
}
END_TEST

/* ---- run-time errors of the interpreter ---- */

/* A condition isl cannot represent (y * y) leaves the undefined points
 * to the run-time check. */
START_TEST(run_reads_undefined_point)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 1, y : 0 .. 3) : int\n"
		"  | y * y < 9 -> x + y\n"
		"func g(x : 0 .. 1, y : 0 .. 3) : int = f(x, y) * 2\n"
		"output g\n";
	start(t);
	expect_run_error(t, 4, 40, "f(x, y)",
		"stage 'g' at (0, 3) reads f(0, 3), a point that no case of it defines", "add a case covering");
	expect_compiled_error(t, 2, EXT(2, 4), PT_ERR_UNDEFINED,
		", 3) reads a point of 'f' that no case of it defines");   /* x 0 or 1: threads race to say it first */
}
END_TEST

/* A stage whose cases read data, large enough that the grouping would
 * fuse it into its reader's tiles: it stays a full buffer with its mask
 * (a scratchpad has none), so that the undefined read is found at -O1
 * too (it was not: the read went through silently). */
START_TEST(run_reads_undefined_point_grouped)
{
	pt_pipeline *p = parse_ok("pipeline t\n"
		"image I : int [3000]\n"
		"func f(x : 0 .. 2999) : int\n"
		"  | I(x) > 100 -> I(x) + 1\n"
		"func g(x : 0 .. 2999) : int = f(x) * 2\n"
		"output g\n");
	pt_buffer in, out;
	int64_t n = 3000;
	ck_assert_int_eq(pt_buffer_alloc(&in, PT_I32, 1, &n), PT_OK);
	for (int64_t i = 0; i < n; i++)
		((int32_t *)in.data)[i] = i == 2990 ? 0 : 200;
	for (int level = 0; level < 2; level++) {
		pt_options o = { .opt_level = level ? PT_OPT_GROUPED : PT_OPT_NAIVE };
		pt_program *prog = pt_compile(ctx, p, &o);
		ck_assert_msg(prog != NULL, "%s", pt_ctx_diagnostics(ctx));
		ck_assert_int_eq(pt_buffer_alloc(&out, PT_I32, 1, &n), PT_OK);
		const pt_buffer *ins[] = { &in };
		pt_buffer *outs[] = { &out };
		int64_t ip[1] = {0};
		double fp[1] = {0};
		ck_assert_int_eq(pt_program_run(prog, ip, fp, ins, outs), PT_ERR_UNDEFINED);
		ck_assert_msg(strstr(pt_rt_error_detail(), "stage 'g' at (2990) reads a point of 'f'"), "-O%d: %s", level,
			pt_rt_error_detail());
		pt_buffer_free(&out);
		pt_program_free(prog);
	}
	pt_buffer_free(&in);
}
END_TEST

/* An index isl cannot represent (x * x) is checked at run time. */
START_TEST(run_reads_outside_image)
{
	const char *t =
		"pipeline t\n"
		"image I : int [4]\n"
		"func f(x : 0 .. 3) : int = I(x * x)\n"
		"output f\n";
	start(t);
	input("I", PT_I32, 1, EXT(4), VALS(1, 2, 3, 4));
	expect_run_error(t, 3, 28, "I(x * x)", "stage 'f' at (2) reads I(4), outside its extent 0 .. 3 in dimension 1",
		"clamp the index");
	expect_compiled_error(t, 1, EXT(4), PT_ERR_READ, "stage 'f' at (2) reads 'I' outside its extent in dimension 1");
}
END_TEST

START_TEST(run_reads_outside_stage_domain)
{
	const char *t =
		"pipeline t\n"
		"func f(x : 0 .. 3, y : 0 .. 1) : int = x\n"
		"func g(x : 0 .. 3) : int = f(x, x * x - 1)\n"
		"output g\n";
	start(t);
	expect_run_error(t, 3, 28, "f(x, x * x - 1)",
		"stage 'g' at (0) reads f(0, -1), outside its domain 0 .. 1 in dimension 2", "clamp the index");
}
END_TEST

START_TEST(run_overlapping_cases)
{
	const char *t =
		"pipeline t\n"
		"image I : int [3]\n"
		"func f(x : 0 .. 2) : int\n"
		"  | I(x) > 0 -> 1\n"
		"  | I(x) > 5 -> 2\n"
		"output f\n";
	start(t);
	input("I", PT_I32, 1, EXT(3), VALS(1, 7, 0));
	expect_run_error(t, 5, 5, "I(x) > 5 -> 2", "cases 1 and 2 of 'f' both hold at (1)", "exclusive");
	expect_compiled_error(t, 1, EXT(3), PT_ERR_CASES, "cases 1 and 2 of 'f' both hold at (1)");
}
END_TEST

START_TEST(run_input_of_wrong_extents)
{
	const char *t =
		"pipeline t\n"
		"param R : int\n"
		"image I : u8 [R+2, 3]\n"
		"func f(x : 0 .. R-1) : int = I(x, 0)\n"
		"output f\n";
	start(t);
	ck_assert_int_eq(pt_interp_set_param(in, "R", 3), 0);
	input("I", PT_U8, 2, EXT(4, 3), NULL);
	expect_run_error(t, 3, 7, "I", "input 'I' is 4 x 3 but the pipeline expects 5 x 3 (R + 2, 3 with R=3)",
		"expected size");
}
END_TEST

START_TEST(run_param_without_value)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 4\n"
		"param h : double\n"
		"func f(x : 0 .. R-1) : double = h * x\n"
		"output f\n";
	start(t);
	expect_run_error(t, 3, 7, "h", "param 'h' has no value", "--param NAME=VALUE");
}
END_TEST

START_TEST(run_image_without_input)
{
	const char *t =
		"pipeline t\n"
		"param R : int = 4\n"
		"image I : u8 [R]\n"
		"func f(x : 0 .. R-1) : int = I(x)\n"
		"output f\n";
	start(t);
	expect_run_error(t, 3, 7, "I", "image 'I' has no input", "bind it");
}
END_TEST

START_TEST(run_reduction_target_outside_domain)
{
	const char *t =
		"pipeline t\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 5)\n"
		"  | h(x * x) += 1\n"
		"output h\n";
	start(t);
	expect_run_error(t, 3, 5, "h(x * x) += 1", "reduction 'h' at reduction point (2) updates h(4), outside its domain",
		"clamp the target");
}
END_TEST

/* ---- static bounds: affine accesses must stay inside for every admissible param ---- */

START_TEST(bounds_reads_outside_image)
{
	expect_parse_error(
		"pipeline t\n"
		"image I : int [4]\n"
		"func f(x : 0 .. 3) : int = I(x + 1)\n"
		"output f\n", 3, 28, "I(x + 1)",
		"'f' reads I(x + 1) outside image 'I' in dimension 1 (0 .. 3): at x = 3 it reads I(4)",
		"clamp the index, or restrict the case so that it reads only points of the image");
}
END_TEST

START_TEST(bounds_reads_outside_stage_domain)
{
	expect_parse_error(
		"pipeline t\n"
		"func f(x : 0 .. 3, y : 0 .. 1) : int = x\n"
		"func g(x : 0 .. 3) : int = f(x, x - 1)\n"
		"output g\n", 3, 28, "f(x, x - 1)",
		"'g' reads f(x, x - 1) outside the domain of 'f' in dimension 2 (0 .. 1): at x = 0 it reads f(0, -1)",
		"clamp the index, or restrict the case so that it reads only points of the domain");
}
END_TEST

START_TEST(bounds_reduction_target_outside_domain)
{
	expect_parse_error(
		"pipeline t\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. 5)\n"
		"  | h(x) += 1\n"
		"output h\n", 3, 5, "h(x)",
		"reduction 'h' updates h(x) outside its domain in dimension 1 (0 .. 3): at x = 4 it updates h(4)",
		"clamp the target index");
}
END_TEST

/* The condition does not keep the target in: x = 4 passes x < 5. */
START_TEST(bounds_conditioned_target_outside_domain)
{
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 8\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. N)\n"
		"  | x < 5 -> h( x ) += 1\n"
		"output h\n", 4, 14, "h( x )",
		"reduction 'h' updates h(x) outside its domain in dimension 1 (0 .. 3): at x = 4 with N = 4 it updates h(4)",
		"add a condition to the update");
}
END_TEST

/* For every admissible N: N = 1 is enough to go out. */
START_TEST(bounds_stencil_with_params)
{
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 64\n"
		"func f(x : 0 .. N-1) : float = float(x)\n"
		"func g(x : 0 .. N-1) : float = f(x - 1) + f(x + 1)\n"
		"output g\n", 4, 32, "f(x - 1)",
		"'g' reads f(x - 1) outside the domain of 'f' in dimension 1 (0 .. N - 1): at x = 0 with N = 1 it reads f(-1)",
		"clamp the index");
}
END_TEST

START_TEST(bounds_image_extent_in_params)
{
	expect_parse_error(
		"pipeline t\n"
		"param R : int = 64\n"
		"param C : int = 64\n"
		"image I : u8 [R + 2, C]\n"
		"func f(x : 0 .. R-1, y : 0 .. C-1) : int = I(x + 2, y) + I(x, y + 1)\n"
		"output f\n", 5, 58, "I(x, y + 1)",
		"'f' reads I(x, y + 1) outside image 'I' in dimension 2 (0 .. C - 1): at x = 0, y = 0 with R = 1, C = 1 it reads I(0, 1)",
		"points of the image");
}
END_TEST

/* x / 2 is floor(x / 2): up to N at x = 2N. */
START_TEST(bounds_floor_division_goes_out)
{
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 64\n"
		"image I : float [N]\n"
		"func up(x : 0 .. 2*N) : float = I(x / 2)\n"
		"output up\n", 4, 33, "I(x / 2)",
		"'up' reads I(x / 2) outside image 'I' in dimension 1 (0 .. N - 1): at x = 2 with N = 1 it reads I(1)",
		"clamp the index");
}
END_TEST

/* e is defined on even points only. */
START_TEST(bounds_step_lattice_missed)
{
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 64\n"
		"func e(x : 0 .. 2*N step 2) : int = x\n"
		"func o(x : 0 .. N-1) : int = e(2*x + 1)\n"
		"output o\n", 4, 30, "e(2*x + 1)",
		"'o' reads e(2 * x + 1) outside the domain of 'e' in dimension 1 (0 .. 2 * N step 2): at x = 0 with N = 1 it reads e(1)",
		"clamp the index");
}
END_TEST

/* The else case holds at x = N-2, where f(x + 2) is f(N). */
START_TEST(bounds_else_not_enough)
{
	expect_parse_error(
		"pipeline t\n"
		"param N : int = 64\n"
		"func f(x : 0 .. N-1) : int = x\n"
		"func g(x : 0 .. N-1) : int\n"
		"  | x == N - 1 -> 0\n"
		"  | else -> f(x + 2)\n"
		"output g\n", 6, 13, "f(x + 2)",
		"'g' reads f(x + 2) outside the domain of 'f' in dimension 1 (0 .. N - 1): at x = 0 with N = 2 it reads f(2)",
		"restrict the case");
}
END_TEST

/* The read is in the branch taken where the guard fails. */
START_TEST(bounds_select_wrong_branch)
{
	expect_parse_error(
		"pipeline t\n"
		"image I : float [8]\n"
		"func g(x : 0 .. 7) : float = x > 0 ? 0.0 : I(x - 1)\n"
		"output g\n", 3, 44, "I(x - 1)",
		"'g' reads I(x - 1) outside image 'I' in dimension 1 (0 .. 7): at x = 0 it reads I(-1)",
		"clamp the index");
}
END_TEST

/* A condition that reads data cannot guard a read: it is not affine. */
START_TEST(bounds_data_guard_does_not_count)
{
	expect_parse_error(
		"pipeline t\n"
		"image I : float [8]\n"
		"func g(x : 0 .. 7) : float\n"
		"  | I(x) > 0.5 && x >= 1 -> I(x - 1)\n"
		"  | I(x) > 0.5 && x == 0 -> 1.0\n"
		"  | I(x) <= 0.5 -> select(I(x) > 0.0, I(x - 1), 0.0)\n"
		"output g\n", 6, 39, "I(x - 1)",
		"'g' reads I(x - 1) outside image 'I' in dimension 1 (0 .. 7): at x = 0 it reads I(-1)",
		"clamp the index");
}
END_TEST

/* Reads that stay inside: guarded by select, ?:, && and ||, by a case,
 * by else after a condition, clamped, through steps and divisions, and
 * the reads of a time-iterated stage. */
START_TEST(bounds_guarded_reads_accepted)
{
	parse_ok(
		"pipeline t\n"
		"param N : int = 64\n"
		"param T : int = 4\n"
		"image I : float [N]\n"
		"func f(x : 0 .. N-1) : float = I(x)\n"
		"func s(x : 0 .. N-1) : float = select(x > 0, f(x - 1), 0.0) + (x < N - 1 ? f(x + 1) : 0.0)\n"
		"func c(x : 0 .. N-1) : float\n"
		"  | x >= 1 && f(x - 1) > 0.0 -> f(x - 1)\n"
		"  | x == 0 || f(x - 1) <= 0.0 -> f(x)\n"
		"func e(x : 0 .. N-1) : float\n"
		"  | x == 0 -> f(0)\n"
		"  | else -> f(x - 1)\n"
		"func k(x : 0 .. N-1) : float = I(clamp(x - 1, 0, N - 1)) + I(min(x + 1, N - 1)) + I(max(x - 2, 0))\n"
		"func ev(x : 0 .. 2*N-2 step 2) : float = I(x / 2)\n"
		"func od(x : 0 .. N-1) : float = ev(2 * x) + ev(2 * (x / 2))\n"
		"func up(x : 0 .. 2*N-1) : float = I(x / 2)\n"
		"func u(t : 0 .. T, x : 0 .. N-1) : float\n"
		"  | t == 0 -> I(x)\n"
		"  | t > 0 && (x == 0 || x == N - 1) -> u(t - 1, x)\n"
		"  | else -> u(t - 1, x - 1) + u(t - 1, x + 1)\n"
		"reduce h(b : 0 .. 3) : int over (x : 0 .. N-1)\n"
		"  | x < 4 -> h(x) += 1\n"
		"  | x >= 4 -> h(x % 4) += 1\n"
		"output s, c, e, k, od, up, u, h\n");
}
END_TEST

/* ---- the builder API: expression strings are sources of their own ---- */

START_TEST(builder_syntax_error)
{
	const char *x[] = {"x"}, *lo[] = {"0"}, *hi[] = {"3"};
	pt_pipeline *p = pt_build_begin(ctx, "b");
	ck_assert_int_eq(pt_build_func(p, "g", PT_I32, 1, x, lo, hi), 0);
	ck_assert_int_eq(pt_build_case(p, NULL, "x +"), -1);
	check_error_in("<builder g case 1>", "x +", 1, 4, "", "expected an expression, found the end of the file",
		"expression");
	ck_assert_ptr_null(pt_build_end(p));
}
END_TEST

START_TEST(builder_unknown_name)
{
	const char *x[] = {"x"}, *lo[] = {"0"}, *hi[] = {"3"};
	pt_pipeline *p = pt_build_begin(ctx, "b");
	ck_assert_int_eq(pt_build_func(p, "harris", PT_F32, 1, x, lo, hi), 0);
	ck_assert_int_eq(pt_build_case(p, NULL, "1.5"), 0);
	ck_assert_int_eq(pt_build_func(p, "g", PT_F32, 1, x, lo, hi), 0);
	ck_assert_int_eq(pt_build_case(p, "x > 0", "2 * harri(x)"), 0);
	ck_assert_int_eq(pt_build_output(p, "g"), 0);
	ck_assert_ptr_null(pt_build_end(p));
	check_error_in("<builder g case 1>", "2 * harri(x)", 1, 5, "harri(x)", "unknown function or image 'harri'",
		"did you mean 'harris'?");
}
END_TEST

/* The builder's pipelines go through the same check. */
START_TEST(builder_read_outside_image)
{
	const char *x[] = {"x"}, *lo[] = {"0"}, *hi[] = {"R - 1"}, *ext[] = {"R"};
	pt_pipeline *p = pt_build_begin(ctx, "b");
	ck_assert_int_eq(pt_build_param(p, "R", PT_I32, true, 8), 0);
	ck_assert_int_eq(pt_build_image(p, "I", PT_F32, 1, ext), 0);
	ck_assert_int_eq(pt_build_func(p, "g", PT_F32, 1, x, lo, hi), 0);
	ck_assert_int_eq(pt_build_case(p, NULL, "I(x) + I(x + 1)"), 0);
	ck_assert_int_eq(pt_build_output(p, "g"), 0);
	ck_assert_ptr_null(pt_build_end(p));
	check_error_in("<builder g case 1>", "I(x) + I(x + 1)", 1, 8, "I(x + 1)",
		"'g' reads I(x + 1) outside image 'I' in dimension 1 (0 .. R - 1): at x = 0 with R = 1 it reads I(1)",
		"clamp the index");
}
END_TEST

START_TEST(input_of_wrong_type)
{
	start("pipeline t\n"
		"image I : u8 [4]\n"
		"func f(x : 0 .. 3) : int = I(x)\n"
		"output f\n");
	pt_buffer b;
	ck_assert_int_eq(pt_buffer_alloc(&b, PT_U16, 1, EXT(4)), PT_OK);
	int r = pt_interp_set_input(in, "I", &b);
	pt_buffer_free(&b);
	ck_assert_int_eq(r, -1);
	const char *d = pt_ctx_diagnostics(ctx);
	ck_assert_ptr_nonnull(strstr(d, "polytile: error: input 'I' is u16 with 1 dimensions but the pipeline declares u8 with 1\n"));
	ck_assert_ptr_nonnull(strstr(d, "  hint: "));
}
END_TEST

/* ---- the builder applies the parser's rules, with the same messages ---- */

/* The message of the first error in the diagnostics ("" if none), and
 * with hint the first hint line's text. */
static void first_error(char *msg, size_t n, char *hint, size_t hn)
{
	const char *d = pt_ctx_diagnostics(ctx), *m = strstr(d, "error: ");
	const char *h = m ? strstr(m, "  hint: ") : NULL;
	snprintf(msg, n, "%.*s", m ? (int)strcspn(m + 7, "\n") : 0, m ? m + 7 : "");
	if (hint)
		snprintf(hint, hn, "%.*s", h ? (int)strcspn(h + 8, "\n") : 0, h ? h + 8 : "");
}

/* The builder's first error says phrase, with hint. */
static void check_builder_error(const char *phrase, const char *hint)
{
	char msg[512], h[512];
	first_error(msg, sizeof(msg), h, sizeof(h));
	ck_assert_msg(strstr(msg, phrase) != NULL, "message '%s' lacks '%s'", msg, phrase);
	ck_assert_msg(strstr(h, hint) != NULL, "hint '%s' lacks '%s'", h, hint);
}

/* The parser's error for text, then the builder's for what build does:
 * the same message and hint. */
static void check_same_as_parser(const char *text, int (*build)(pt_pipeline *p))
{
	char pm[512], ph[512], bm[512], bh[512];
	ck_assert_ptr_null(pt_parse_string(ctx, FILE_NAME, text));
	first_error(pm, sizeof(pm), ph, sizeof(ph));
	pt_ctx_clear_diagnostics(ctx);
	pt_pipeline *p = pt_build_begin(ctx, "b");
	ck_assert_int_eq(build(p), -1);
	first_error(bm, sizeof(bm), bh, sizeof(bh));
	ck_assert_str_eq(bm, pm);
	ck_assert_str_eq(bh, ph);
	ck_assert_ptr_null(pt_build_end(p));
}

static const char *const x1[] = {"x"}, *const zero1[] = {"0"}, *const three1[] = {"3"};

static int build_var_twice(pt_pipeline *p)
{
	const char *xx[] = {"x", "x"}, *lo[] = {"0", "0"}, *hi[] = {"3", "3"};
	return pt_build_func(p, "f", PT_I32, 2, xx, lo, hi);
}

static int build_param_twice(pt_pipeline *p)
{
	ck_assert_int_eq(pt_build_param(p, "R", PT_I32, false, 0), 0);
	return pt_build_param(p, "R", PT_I32, false, 0);
}

static int build_stage_named_like_param(pt_pipeline *p)
{
	ck_assert_int_eq(pt_build_param(p, "R", PT_I32, false, 0), 0);
	return pt_build_func(p, "R", PT_I32, 1, x1, zero1, three1);
}

static int build_image_named_like_stage(pt_pipeline *p)
{
	ck_assert_int_eq(pt_build_func(p, "I", PT_I32, 1, x1, zero1, three1), 0);
	ck_assert_int_eq(pt_build_case(p, NULL, "1"), 0);
	return pt_build_image(p, "I", PT_U8, 1, three1);
}

static int build_u8_param(pt_pipeline *p)
{
	return pt_build_param(p, "N", PT_U8, false, 0);
}

static int build_nine_dims(pt_pipeline *p)
{
	const char *v[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
	const char *z[] = {"0", "0", "0", "0", "0", "0", "0", "0", "0"};
	return pt_build_func(p, "f", PT_I32, 9, v, z, z);
}

static int build_unknown_output(pt_pipeline *p)
{
	ck_assert_int_eq(pt_build_func(p, "harris", PT_I32, 1, x1, zero1, three1), 0);
	ck_assert_int_eq(pt_build_case(p, NULL, "1"), 0);
	return pt_build_output(p, "harri");
}

START_TEST(builder_duplicate_variable)
{
	check_same_as_parser("pipeline t\nfunc f(x : 0 .. 3, x : 0 .. 3) : int = 1\n", build_var_twice);
	check_builder_error("variable 'x' appears twice in 'f'", "its own name");
}
END_TEST

START_TEST(builder_duplicate_names)
{
	check_same_as_parser("pipeline t\nparam R : int\nparam R : int\n", build_param_twice);
	pt_ctx_clear_diagnostics(ctx);
	/* the builder used to accept a stage named like a param */
	check_same_as_parser("pipeline t\nparam R : int\nfunc R(x : 0 .. 3) : int = 1\n",
		build_stage_named_like_param);
	check_builder_error("'R' is already defined", "rename one of them");
	pt_ctx_clear_diagnostics(ctx);
	check_same_as_parser("pipeline t\nfunc I(x : 0 .. 3) : int = 1\nimage I : u8 [3]\n",
		build_image_named_like_stage);
}
END_TEST

START_TEST(builder_param_type)
{
	check_same_as_parser("pipeline t\nparam N : u8\n", build_u8_param);
	check_builder_error("parameters are i32, i64, f32 or f64", "use int, long, float or double");
}
END_TEST

START_TEST(builder_dimension_limits)
{
	const char *v[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
	const char *z[] = {"0", "0", "0", "0", "0", "0", "0", "0", "0"};
	check_same_as_parser("pipeline t\nfunc f(a : 0 .. 0, b : 0 .. 0, c : 0 .. 0, d : 0 .. 0, e : 0 .. 0, "
		"f : 0 .. 0, g : 0 .. 0, h : 0 .. 0, i : 0 .. 0) : int = 1\n", build_nine_dims);
	pt_ctx_clear_diagnostics(ctx);
	pt_pipeline *p = pt_build_begin(ctx, "b");
	ck_assert_int_eq(pt_build_image(p, "I", PT_U8, 9, z), -1);
	check_builder_error("images have at most 8 dimensions", "fold dimensions");
	pt_ctx_clear_diagnostics(ctx);
	/* no variables, no extents, no reduction variables: the grammar of a
	 * file cannot say these */
	ck_assert_int_eq(pt_build_func(p, "f", PT_I32, 0, v, z, z), -1);
	check_builder_error("'f' has no variables", "at least one variable");
	pt_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(pt_build_image(p, "J", PT_U8, 0, z), -1);
	check_builder_error("image 'J' has no extents", "1 to 8 extents");
	pt_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(pt_build_reduce(p, "h", PT_I32, 1, v, z, z, 0, v, z, z, "sum", NULL), -1);
	check_builder_error("reduction 'h' has no reduction variables", "over (");
	ck_assert_ptr_null(pt_build_end(p));
}
END_TEST

START_TEST(builder_names)
{
	pt_pipeline *p = pt_build_begin(ctx, "b");
	ck_assert_int_eq(pt_build_func(p, "func", PT_I32, 1, x1, zero1, three1), -1);
	check_builder_error("'func' is not a valid name", "not a keyword");
	pt_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(pt_build_image(p, "2I", PT_U8, 1, three1), -1);
	check_builder_error("'2I' is not a valid name", "starts with a letter");
	pt_ctx_clear_diagnostics(ctx);
	const char *v[] = {"for"};
	ck_assert_int_eq(pt_build_func(p, "g", PT_I32, 1, v, zero1, three1), -1);
	check_builder_error("'for' is not a valid variable name", "not a keyword");
	pt_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(pt_build_func(p, "k", (pt_type)PT_NTYPES, 1, x1, zero1, three1), -1);
	check_builder_error("'k' has no valid element type", "u8 u16");
	ck_assert_ptr_null(pt_build_end(p));
}
END_TEST

START_TEST(builder_reductions)
{
	const char *b[] = {"b"}, *r[] = {"r"};
	pt_pipeline *p = pt_build_begin(ctx, "b");
	ck_assert_int_eq(pt_build_update(p, NULL, zero1, "1"), -1);
	check_builder_error("pt_build_update without a reduction", "pt_build_reduce first");
	pt_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(pt_build_reduce(p, "h", PT_I32, 1, b, zero1, three1, 1, r, zero1, three1, "avg", NULL), -1);
	check_builder_error("reduction 'h' has an unknown operator", "use sum, prod");
	pt_ctx_clear_diagnostics(ctx);
	/* an update of a function, a case of a reduction */
	ck_assert_int_eq(pt_build_func(p, "f", PT_I32, 1, x1, zero1, three1), 0);
	ck_assert_int_eq(pt_build_update(p, NULL, zero1, "1"), -1);
	check_builder_error("'f' is not a reduction and has no updates", "defined by cases");
	pt_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(pt_build_reduce(p, "g", PT_I32, 1, b, zero1, three1, 1, r, zero1, three1, "sum", NULL), 0);
	ck_assert_int_eq(pt_build_case(p, NULL, "1"), -1);
	check_builder_error("'g' is a reduction and has no cases", "updates");
	ck_assert_ptr_null(pt_build_end(p));
}
END_TEST

START_TEST(builder_unknown_output)
{
	check_same_as_parser("pipeline t\nfunc harris(x : 0 .. 3) : int = 1\noutput harri\n", build_unknown_output);
	check_builder_error("no stage named 'harri'", "did you mean 'harris'?");
}
END_TEST

static Suite *errors_suite(void)
{
	Suite *s = suite_create("errors");
	TCase *tc;
#define TC(name, ...) do { \
		tc = tcase_create(name); \
		tcase_set_timeout(tc, 60); /* 10000 stages take seconds under ASan */ \
		tcase_add_checked_fixture(tc, setup, teardown); \
		__VA_ARGS__ \
		suite_add_tcase(s, tc); \
	} while (0)
	TC("syntax",
		tcase_add_test(tc, syntax_missing_paren);
		tcase_add_test(tc, syntax_missing_paren_of_group);
		tcase_add_test(tc, syntax_bad_token);
		tcase_add_test(tc, syntax_missing_arrow);
		tcase_add_test(tc, syntax_no_definition);
		tcase_add_test(tc, syntax_not_a_declaration);
		tcase_add_test(tc, syntax_missing_header);
		tcase_add_test(tc, syntax_reserved_word_as_name);
		tcase_add_test(tc, syntax_number_for_name);
		tcase_add_test(tc, syntax_eof_in_call);
		tcase_add_test(tc, syntax_eof_after_equals);
		tcase_add_test(tc, syntax_eof_in_block);
		tcase_add_test(tc, syntax_bad_character);
		tcase_add_test(tc, syntax_non_ascii_byte);
		tcase_add_test(tc, syntax_malformed_number);
		tcase_add_test(tc, syntax_number_out_of_range);
		tcase_add_test(tc, syntax_unknown_type);
		tcase_add_test(tc, syntax_param_type);
		tcase_add_test(tc, syntax_variable_without_interval);
		tcase_add_test(tc, syntax_bad_step);
		tcase_add_test(tc, syntax_const_not_constant);
		tcase_add_test(tc, syntax_stencil_needs_a_call);
		tcase_add_test(tc, syntax_stencil_ragged_matrix);
		tcase_add_test(tc, syntax_update_of_another_stage);
		tcase_add_test(tc, syntax_bar_mid_line_is_bitwise_or););
	TC("names",
		tcase_add_test(tc, unknown_stage_suggests_closest);
		tcase_add_test(tc, unknown_image_suggests_closest);
		tcase_add_test(tc, unknown_variable_suggests_closest);
		tcase_add_test(tc, unknown_param_in_bound_suggests_closest);
		tcase_add_test(tc, unknown_output_suggests_closest);
		tcase_add_test(tc, unknown_name_without_suggestion);
		tcase_add_test(tc, stage_used_as_a_value););
	TC("arity",
		tcase_add_test(tc, arity_of_a_stage_call);
		tcase_add_test(tc, arity_of_an_image_call);
		tcase_add_test(tc, arity_of_an_intrinsic);
		tcase_add_test(tc, arity_of_min);
		tcase_add_test(tc, arity_of_select);
		tcase_add_test(tc, arity_of_an_update););
	TC("types",
		tcase_add_test(tc, type_float_index);
		tcase_add_test(tc, type_condition_as_number);
		tcase_add_test(tc, type_condition_as_value);
		tcase_add_test(tc, type_number_as_condition);
		tcase_add_test(tc, type_number_in_logical_and);
		tcase_add_test(tc, type_select_condition);
		tcase_add_test(tc, type_select_mixes_condition_and_number);
		tcase_add_test(tc, type_float_param_in_bound);
		tcase_add_test(tc, type_float_literal_in_bound);
		tcase_add_test(tc, type_bitwise_on_floats);
		tcase_add_test(tc, type_complement_of_a_float);
		tcase_add_test(tc, type_not_of_a_number);
		tcase_add_test(tc, type_float_reduction_target););
	TC("rules",
		tcase_add_test(tc, cycle_between_stages);
		tcase_add_test(tc, cycle_of_three);
		tcase_add_test(tc, non_affine_domain_bound);
		tcase_add_test(tc, non_affine_image_extent);
		tcase_add_test(tc, bound_reads_data);
		tcase_add_test(tc, empty_for_all_params);
		tcase_add_test(tc, bound_names_a_variable);
		tcase_add_test(tc, data_dependent_index_not_in_bounds);
		tcase_add_test(tc, data_dependent_index_clamped_is_accepted);
		tcase_add_test(tc, data_dependent_clamp_with_hi_below_lo);
		tcase_add_test(tc, data_dependent_u8_into_a_smaller_table);
		tcase_add_test(tc, data_dependent_reduction_target);
		tcase_add_test(tc, data_dependent_fact_from_a_domain);
		tcase_add_test(tc, data_dependent_fact_from_a_domain_one_past);
		tcase_add_test(tc, data_dependent_clamp_bounds_not_ordered);
		tcase_add_test(tc, data_dependent_reduction_domain_is_no_fact);
		tcase_add_test(tc, data_dependent_bound_with_a_division);
		tcase_add_test(tc, data_dependent_bound_with_a_division_one_past);
		tcase_add_test(tc, data_dependent_index_under_a_guard);
		tcase_add_test(tc, data_dependent_index_without_its_guard);
		tcase_add_test(tc, data_dependent_target_without_its_condition);
		tcase_add_test(tc, self_read_both_ways);
		tcase_add_test(tc, self_read_not_a_step);
		tcase_add_test(tc, self_read_same_point);
		tcase_add_test(tc, run_backward_reads_undefined_point);
		tcase_add_test(tc, duplicate_stage);
		tcase_add_test(tc, too_many_stages);
		tcase_add_test(tc, alias_errors);
		tcase_add_test(tc, duplicate_param);
		tcase_add_test(tc, duplicate_image_and_stage);
		tcase_add_test(tc, duplicate_family_member);
		tcase_add_test(tc, duplicate_variable_of_a_stage);
		tcase_add_test(tc, reduction_operator_mismatch);
		tcase_add_test(tc, reduction_bad_operator);
		tcase_add_test(tc, general_update_errors);
		tcase_add_test(tc, tuple_errors);
		tcase_add_test(tc, tuple_ties);
		tcase_add_test(tc, reduction_result_variable_in_update);
		tcase_add_test(tc, reduction_init_depends_on_point);
		tcase_add_test(tc, no_output);
		tcase_add_test(tc, loop_too_long););
	TC("run",
		tcase_add_test(tc, run_reads_undefined_point);
	tcase_add_test(tc, run_reads_undefined_point_grouped);
		tcase_add_test(tc, run_reads_outside_image);
		tcase_add_test(tc, run_reads_outside_stage_domain);
		tcase_add_test(tc, run_overlapping_cases);
		tcase_add_test(tc, run_input_of_wrong_extents);
		tcase_add_test(tc, run_param_without_value);
		tcase_add_test(tc, run_image_without_input);
		tcase_add_test(tc, run_reduction_target_outside_domain);
		tcase_add_test(tc, input_of_wrong_type););
	TC("bounds",
		tcase_add_test(tc, bounds_reads_outside_image);
		tcase_add_test(tc, bounds_reads_outside_stage_domain);
		tcase_add_test(tc, bounds_reduction_target_outside_domain);
		tcase_add_test(tc, bounds_conditioned_target_outside_domain);
		tcase_add_test(tc, bounds_stencil_with_params);
		tcase_add_test(tc, bounds_image_extent_in_params);
		tcase_add_test(tc, bounds_floor_division_goes_out);
		tcase_add_test(tc, bounds_step_lattice_missed);
		tcase_add_test(tc, bounds_else_not_enough);
		tcase_add_test(tc, bounds_select_wrong_branch);
		tcase_add_test(tc, bounds_data_guard_does_not_count);
		tcase_add_test(tc, bounds_guarded_reads_accepted);
		tcase_add_test(tc, bounds_reads_undefined_point);
		tcase_add_test(tc, output_of_an_image_alias);
		tcase_add_test(tc, bounds_guarded_defined_reads_accepted);
		tcase_add_test(tc, builder_read_outside_image););
	TC("builder",
		tcase_add_test(tc, builder_syntax_error);
		tcase_add_test(tc, builder_unknown_name);
		tcase_add_test(tc, builder_duplicate_variable);
		tcase_add_test(tc, builder_duplicate_names);
		tcase_add_test(tc, builder_param_type);
		tcase_add_test(tc, builder_dimension_limits);
		tcase_add_test(tc, builder_names);
		tcase_add_test(tc, builder_reductions);
		tcase_add_test(tc, builder_unknown_output););
#undef TC
	return s;
}

int main(void)
{
	return pt_test_run_suite(errors_suite());
}
