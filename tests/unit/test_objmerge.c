/* test_objmerge.c: codegen/objmerge.c on objects polytile writes: two
 * pipelines merged into one object holding both (each global once, the
 * runtime's references shared), a global defined twice refused, and
 * damaged input (truncated, bytes changed) refused with a message or
 * merged, never a crash. */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polytile.h"
#include "objmerge.h"

#include "run_suite.h"

#ifndef APPS_DIR
#define APPS_DIR "apps"
#endif

/* The object of apps/APP.pipe compiled whole (-O1 harris and blur are
 * too small to be split), malloc'd. */
static char *object(const char *app, size_t *len)
{
	char path[1024], base[512];
	snprintf(path, sizeof(path), "%s/%s.pipe", APPS_DIR, app);
	const char *t = getenv("TMPDIR");
	snprintf(base, sizeof(base), "%s/pt_objmerge_%d_%s", t && *t ? t : P_tmpdir, (int)getpid(), app);
	pt_ctx *ctx = pt_ctx_new();
	pt_pipeline *p = pt_parse_file(ctx, path);
	ck_assert_msg(p != NULL, "%s", pt_ctx_diagnostics(ctx));
	/* the base name is the function's: write base/app */
	char fbase[600];
	snprintf(fbase, sizeof(fbase), "mkdir -p %s", base);
	ck_assert_int_eq(system(fbase), 0);
	snprintf(fbase, sizeof(fbase), "%s/%s", base, app);
	ck_assert_msg(pt_compile_files(ctx, p, NULL, fbase) == 0, "%s", pt_ctx_diagnostics(ctx));
	pt_ctx_free(ctx);
	snprintf(path, sizeof(path), "%s.o", fbase);
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	char *data = malloc(*len);
	ck_assert_uint_eq(fread(data, 1, *len, f), *len);
	fclose(f);
	snprintf(fbase, sizeof(fbase), "rm -rf %s", base);
	ck_assert_int_eq(system(fbase), 0);
	return data;
}

/* How many symbols named name obj has (not counting file names), and
 * how many of them are defined. */
static int symbols(const char *obj, const char *name, int *defined)
{
	Elf64_Ehdr eh;
	memcpy(&eh, obj, sizeof(eh));
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(obj + eh.e_shoff);
	int n = 0;
	*defined = 0;
	for (int i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		const Elf64_Sym *sym = (const Elf64_Sym *)(obj + sh[i].sh_offset);
		const char *str = obj + sh[sh[i].sh_link].sh_offset;
		for (size_t j = 0; j < sh[i].sh_size / sizeof(Elf64_Sym); j++)
			if (!strcmp(str + sym[j].st_name, name) && ELF64_ST_TYPE(sym[j].st_info) != STT_FILE) {
				n++;
				*defined += sym[j].st_shndx != SHN_UNDEF;
			}
	}
	return n;
}

START_TEST(two_pipelines_in_one)
{
	size_t len[2], n = 0;
	const void *obj[2];
	char *blur = object("blur", &len[0]), *harris = object("harris", &len[1]);
	obj[0] = blur;
	obj[1] = harris;
	char *err = NULL;
	char *m = pt_objmerge(obj, len, 2, &n, &err);
	ck_assert_msg(m != NULL, "%s", err ? err : "");
	int def;
	const char *const defs[] = { "blur", "blur_argv", "harris", "harris_argv" };
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(symbols(m, defs[i], &def), 1);
		ck_assert_int_eq(def, 1);
	}
	/* both call the runtime: one undefined reference */
	ck_assert_int_eq(symbols(m, "pt_parallel_for", &def), 1);
	ck_assert_int_eq(def, 0);
	free(m);
	/* the same pipeline twice: its function defined twice */
	obj[1] = blur;
	len[1] = len[0];
	ck_assert_ptr_null(pt_objmerge(obj, len, 2, &n, &err));
	ck_assert_ptr_nonnull(strstr(err, "symbol blur is defined twice"));
	free(err);
	free(blur);
	free(harris);
}
END_TEST

START_TEST(damaged_input)
{
	size_t len, n;
	char *blur = object("blur", &len);
	char *copy = malloc(len);
	const void *obj[1] = { copy };
	/* truncated anywhere */
	for (size_t cut = 0; cut < len; cut += 37) {
		char *err = NULL;
		memcpy(copy, blur, cut);
		char *m = pt_objmerge(obj, &cut, 1, &n, &err);
		ck_assert_msg(m == NULL && err != NULL, "truncated at %zu: merged", cut);
		free(err);
	}
	/* a byte changed anywhere: refused or merged, never a crash */
	for (size_t at = 0; at < len; at += 3) {
		char *err = NULL;
		memcpy(copy, blur, len);
		copy[at] = (char)(copy[at] ^ (at % 2 ? 0xff : 0x40));
		char *m = pt_objmerge(obj, &len, 1, &n, &err);
		ck_assert(m != NULL || err != NULL);
		free(m);
		free(err);
	}
	char *err = NULL;
	memcpy(copy, "not an object", 14);
	size_t short_len = 14;
	ck_assert_ptr_null(pt_objmerge(obj, &short_len, 1, &n, &err));
	ck_assert_ptr_nonnull(strstr(err, "object 0 of the split module"));
	free(err);
	free(copy);
	free(blur);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("objmerge");
	TCase *tc = tcase_create("objmerge");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, two_pipelines_in_one);
	tcase_add_test(tc, damaged_input);
	suite_add_tcase(s, tc);
	return pt_test_run_suite(s);
}
