/* objmerge.c: relocatable ELF objects merged into one (objmerge.h).
 *
 * The pieces of a split module (split.c) are compiled to objects of their
 * own; users and the JIT get one.  Sections are not concatenated, so no
 * offset, symbol value or addend changes: the output has the inputs'
 * sections side by side (names may repeat, as ELF allows), one symbol
 * table (locals first, as ELF requires, then each global once), and the
 * relocations' symbol indices renumbered.  The layout depends only on the
 * inputs and their order. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objmerge.h"

#ifndef SHT_LLVM_ADDRSIG
#define SHT_LLVM_ADDRSIG 0x6fff4c03   /* address-significance table: a hint, dropped */
#endif

typedef struct {
	char *data;
	size_t len, cap;
} buf;

static size_t put(buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->data = realloc(b->data, b->cap);
	}
	size_t at = b->len;
	if (n)
		memcpy(b->data + at, p, n);
	b->len += n;
	return at;
}

static void align(buf *b, size_t a)
{
	static const char zero[64];
	while (a > 1 && b->len % a)
		put(b, zero, a - b->len % a < sizeof(zero) ? a - b->len % a : sizeof(zero));
}

/* One input: its headers, checked to lie inside it. */
typedef struct {
	const char *p;
	size_t len;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	int symtab;              /* section index */
	Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	size_t nstr;
	int *secmap;             /* input section -> output (0: dropped) */
	int *symmap;             /* input symbol -> output */
} input;

static int bad(char **err, int k, const char *what)
{
	char m[160];
	snprintf(m, sizeof(m), "object %d of the split module: %s", k, what);
	*err = strdup(m);
	return -1;
}

static int read_input(input *in, const void *p, size_t len, int k, char **err)
{
	in->p = p;
	in->len = len;
	if (len < sizeof(Elf64_Ehdr))
		return bad(err, k, "too short");
	memcpy(&in->eh, p, sizeof(in->eh));
	const Elf64_Ehdr *e = &in->eh;
	if (memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_ident[EI_CLASS] != ELFCLASS64 ||
		e->e_ident[EI_DATA] != ELFDATA2LSB || e->e_type != ET_REL)
		return bad(err, k, "not a 64-bit little-endian relocatable ELF object");
	if (e->e_shentsize != sizeof(Elf64_Shdr) || e->e_shnum == 0 || e->e_shnum >= SHN_LORESERVE ||
		e->e_shoff > len || (len - e->e_shoff) / sizeof(Elf64_Shdr) < e->e_shnum)
		return bad(err, k, "bad section headers");
	in->sh = malloc(sizeof(Elf64_Shdr) * e->e_shnum);
	memcpy(in->sh, (const char *)p + e->e_shoff, sizeof(Elf64_Shdr) * e->e_shnum);
	in->symtab = -1;
	for (int i = 1; i < e->e_shnum; i++) {
		const Elf64_Shdr *s = &in->sh[i];
		if (s->sh_type != SHT_NOBITS && (s->sh_offset > len || s->sh_size > len - s->sh_offset))
			return bad(err, k, "a section lies outside the file");
		if (s->sh_type == SHT_GROUP || s->sh_type == SHT_SYMTAB_SHNDX || s->sh_type == SHT_REL ||
			s->sh_type == SHT_RELR || s->sh_type == SHT_DYNSYM || s->sh_type == SHT_DYNAMIC)
			return bad(err, k, "a section of a kind not merged (group, REL, dynamic)");
		if (s->sh_type == SHT_SYMTAB) {
			if (in->symtab >= 0)
				return bad(err, k, "two symbol tables");
			in->symtab = i;
		}
	}
	if (in->symtab < 0)
		return bad(err, k, "no symbol table");
	const Elf64_Shdr *st = &in->sh[in->symtab];
	if (st->sh_entsize != sizeof(Elf64_Sym) || st->sh_link == 0 || st->sh_link >= e->e_shnum ||
		in->sh[st->sh_link].sh_type != SHT_STRTAB || st->sh_info == 0 || st->sh_info > st->sh_size / sizeof(Elf64_Sym))
		return bad(err, k, "bad symbol table");
	in->nsym = st->sh_size / sizeof(Elf64_Sym);
	in->sym = malloc(sizeof(Elf64_Sym) * in->nsym);
	memcpy(in->sym, in->p + st->sh_offset, sizeof(Elf64_Sym) * in->nsym);
	in->str = in->p + in->sh[st->sh_link].sh_offset;
	in->nstr = in->sh[st->sh_link].sh_size;
	if (!in->nstr || in->str[in->nstr - 1])
		return bad(err, k, "bad string table");
	if (e->e_shstrndx == 0 || e->e_shstrndx >= e->e_shnum || in->sh[e->e_shstrndx].sh_type != SHT_STRTAB ||
		!in->sh[e->e_shstrndx].sh_size || in->p[in->sh[e->e_shstrndx].sh_offset + in->sh[e->e_shstrndx].sh_size - 1])
		return bad(err, k, "bad section name table");
	for (size_t j = 0; j < in->nsym; j++)
		if (in->sym[j].st_name >= in->nstr || in->sym[j].st_shndx == SHN_XINDEX ||
			(in->sym[j].st_shndx != SHN_UNDEF && in->sym[j].st_shndx < SHN_LORESERVE &&
			 in->sym[j].st_shndx >= e->e_shnum))
			return bad(err, k, "bad symbol");
	for (int i = 1; i < e->e_shnum; i++)
		if (in->sh[i].sh_name >= in->sh[e->e_shstrndx].sh_size)
			return bad(err, k, "bad section name");
	in->secmap = calloc(e->e_shnum, sizeof(int));
	in->symmap = calloc(in->nsym, sizeof(int));
	return 0;
}

/* Whether input section i is copied (not the symbol table, the string
 * tables or the address-significance hint). */
static int copied(const input *in, int i)
{
	const Elf64_Shdr *s = &in->sh[i];
	return s->sh_type != SHT_NULL && s->sh_type != SHT_SYMTAB && s->sh_type != SHT_LLVM_ADDRSIG &&
		i != (int)in->sh[in->symtab].sh_link && i != in->eh.e_shstrndx;
}

/* The most constraining of two visibilities (internal, hidden, protected,
 * default). */
static unsigned char visibility(unsigned char a, unsigned char b)
{
	a = ELF64_ST_VISIBILITY(a);
	b = ELF64_ST_VISIBILITY(b);
	if (!a || !b)
		return a | b;
	return a < b ? a : b;
}

char *pt_objmerge(const void *const *obj, const size_t *len, int n, size_t *out_len, char **err)
{
	input *in = calloc((size_t)n, sizeof(*in));
	buf out = {0}, strtab = {0}, shstrtab = {0}, sh = {0}, symtab = {0};
	Elf64_Sym *glob = NULL;            /* the globals, in output order */
	size_t nglob = 0;
	char *result = NULL;
	int nsec = 1;
	Elf64_Shdr zero = {0};
	put(&sh, &zero, sizeof(zero));
	put(&strtab, "", 1);
	put(&shstrtab, "", 1);
	for (int k = 0; k < n; k++) {
		if (read_input(&in[k], obj[k], len[k], k, err))
			goto done;
		if (in[k].eh.e_machine != in[0].eh.e_machine || in[k].eh.e_flags != in[0].eh.e_flags) {
			bad(err, k, "another machine");
			goto done;
		}
	}
	/* section numbers: every copied section of every input, in order;
	 * then the symbol table and the two string tables */
	for (int k = 0; k < n; k++)
		for (int i = 1; i < in[k].eh.e_shnum; i++)
			if (copied(&in[k], i))
				in[k].secmap[i] = nsec++;
	int symtab_ix = nsec, strtab_ix = nsec + 1, shstrtab_ix = nsec + 2;
	if (shstrtab_ix >= SHN_LORESERVE) {
		bad(err, 0, "too many sections");
		goto done;
	}
	/* symbols: the locals of every input, then each global once */
	Elf64_Sym s0 = {0};
	put(&symtab, &s0, sizeof(s0));
	size_t nlocal = 1;
	for (int k = 0; k < n; k++)
		for (size_t j = 1; j < in[k].nsym; j++) {
			Elf64_Sym s = in[k].sym[j];
			if (ELF64_ST_BIND(s.st_info) != STB_LOCAL)
				continue;
			if (s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE) {
				if (!in[k].secmap[s.st_shndx])
					continue;      /* in a dropped section: nothing refers to it */
				s.st_shndx = (Elf64_Half)in[k].secmap[s.st_shndx];
			}
			s.st_name = s.st_name ? (Elf64_Word)put(&strtab, in[k].str + s.st_name, strlen(in[k].str + s.st_name) + 1) : 0;
			put(&symtab, &s, sizeof(s));
			in[k].symmap[j] = (int)nlocal++;
		}
	for (int k = 0; k < n; k++)
		for (size_t j = 1; j < in[k].nsym; j++) {
			Elf64_Sym s = in[k].sym[j];
			if (ELF64_ST_BIND(s.st_info) == STB_LOCAL)
				continue;
			const char *name = in[k].str + s.st_name;
			if (s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE) {
				if (!in[k].secmap[s.st_shndx]) {
					bad(err, k, "a global symbol in a section not merged");
					goto done;
				}
				s.st_shndx = (Elf64_Half)in[k].secmap[s.st_shndx];
			}
			size_t g = 0;
			while (g < nglob && strcmp(strtab.data + glob[g].st_name, name))
				g++;
			if (g == nglob) {
				glob = realloc(glob, sizeof(*glob) * (nglob + 1));
				s.st_name = (Elf64_Word)put(&strtab, name, strlen(name) + 1);
				glob[nglob++] = s;
			} else if (s.st_shndx != SHN_UNDEF) {
				if (glob[g].st_shndx != SHN_UNDEF) {
					char m[300];
					snprintf(m, sizeof(m), "symbol %.200s is defined twice", name);
					*err = strdup(m);
					goto done;
				}
				unsigned char vis = visibility(glob[g].st_other, s.st_other);
				s.st_name = glob[g].st_name;
				s.st_other = (unsigned char)((s.st_other & ~3u) | vis);
				glob[g] = s;
			} else {
				glob[g].st_other = (unsigned char)((glob[g].st_other & ~3u) | visibility(glob[g].st_other, s.st_other));
				/* a strong reference makes an undefined weak one strong */
				if (glob[g].st_shndx == SHN_UNDEF && ELF64_ST_BIND(s.st_info) == STB_GLOBAL)
					glob[g].st_info = ELF64_ST_INFO(STB_GLOBAL, ELF64_ST_TYPE(glob[g].st_info) ?
						ELF64_ST_TYPE(glob[g].st_info) : ELF64_ST_TYPE(s.st_info));
			}
			in[k].symmap[j] = (int)(nlocal + g);
		}
	for (size_t g = 0; g < nglob; g++)
		put(&symtab, &glob[g], sizeof(glob[g]));

	/* the file: header, sections' contents, tables, section headers */
	put(&out, &in[0].eh, sizeof(Elf64_Ehdr));
	for (int k = 0; k < n; k++)
		for (int i = 1; i < in[k].eh.e_shnum; i++) {
			if (!in[k].secmap[i])
				continue;
			Elf64_Shdr s = in[k].sh[i];
			const char *name = in[k].p + in[k].sh[in[k].eh.e_shstrndx].sh_offset + s.sh_name;
			s.sh_name = (Elf64_Word)put(&shstrtab, name, strlen(name) + 1);
			align(&out, s.sh_addralign ? s.sh_addralign : 1);
			if (s.sh_type == SHT_RELA) {
				if (s.sh_entsize != sizeof(Elf64_Rela) || s.sh_link != (Elf64_Word)in[k].symtab ||
					!s.sh_info || s.sh_info >= in[k].eh.e_shnum || !in[k].secmap[s.sh_info]) {
					bad(err, k, "bad relocation section");
					goto done;
				}
				s.sh_link = (Elf64_Word)symtab_ix;
				s.sh_info = (Elf64_Word)in[k].secmap[s.sh_info];
				size_t nr = s.sh_size / sizeof(Elf64_Rela);
				s.sh_offset = out.len;
				for (size_t r = 0; r < nr; r++) {
					Elf64_Rela rel;
					memcpy(&rel, in[k].p + in[k].sh[i].sh_offset + r * sizeof(rel), sizeof(rel));
					size_t sym = ELF64_R_SYM(rel.r_info);
					if (sym >= in[k].nsym || (sym && !in[k].symmap[sym])) {
						bad(err, k, "a relocation's symbol is not kept");
						goto done;
					}
					rel.r_info = ELF64_R_INFO((Elf64_Xword)(sym ? in[k].symmap[sym] : 0), ELF64_R_TYPE(rel.r_info));
					put(&out, &rel, sizeof(rel));
				}
			} else {
				if (s.sh_flags & SHF_LINK_ORDER) {
					if (!s.sh_link || s.sh_link >= in[k].eh.e_shnum || !in[k].secmap[s.sh_link]) {
						bad(err, k, "bad linked section");
						goto done;
					}
					s.sh_link = (Elf64_Word)in[k].secmap[s.sh_link];
				} else if (s.sh_link) {
					bad(err, k, "a section linked to another of a kind not merged");
					goto done;
				}
				if (s.sh_flags & SHF_INFO_LINK) {
					bad(err, k, "a section linked to another of a kind not merged");
					goto done;
				}
				s.sh_offset = out.len;
				if (s.sh_type != SHT_NOBITS)
					put(&out, in[k].p + in[k].sh[i].sh_offset, s.sh_size);
			}
			put(&sh, &s, sizeof(s));
		}
	Elf64_Shdr t = { .sh_type = SHT_SYMTAB, .sh_link = (Elf64_Word)strtab_ix, .sh_info = (Elf64_Word)nlocal,
		.sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	t.sh_name = (Elf64_Word)put(&shstrtab, ".symtab", 8);
	Elf64_Word strtab_name = (Elf64_Word)put(&shstrtab, ".strtab", 8);
	Elf64_Word shstrtab_name = (Elf64_Word)put(&shstrtab, ".shstrtab", 10);
	align(&out, 8);
	t.sh_offset = out.len;
	t.sh_size = symtab.len;
	put(&out, symtab.data, symtab.len);
	put(&sh, &t, sizeof(t));
	Elf64_Shdr st = { .sh_name = strtab_name, .sh_type = SHT_STRTAB, .sh_offset = out.len, .sh_size = strtab.len,
		.sh_addralign = 1 };
	put(&out, strtab.data, strtab.len);
	put(&sh, &st, sizeof(st));
	Elf64_Shdr sst = { .sh_name = shstrtab_name, .sh_type = SHT_STRTAB, .sh_offset = out.len,
		.sh_size = shstrtab.len, .sh_addralign = 1 };
	put(&out, shstrtab.data, shstrtab.len);
	put(&sh, &sst, sizeof(sst));
	align(&out, 8);
	Elf64_Ehdr eh = in[0].eh;
	eh.e_shoff = out.len;
	eh.e_shnum = (Elf64_Half)(shstrtab_ix + 1);
	eh.e_shstrndx = (Elf64_Half)shstrtab_ix;
	eh.e_phoff = 0;
	eh.e_phnum = 0;
	put(&out, sh.data, sh.len);
	memcpy(out.data, &eh, sizeof(eh));
	*out_len = out.len;
	result = out.data;
	out.data = NULL;
done:
	for (int k = 0; k < n; k++) {
		free(in[k].sh);
		free(in[k].sym);
		free(in[k].secmap);
		free(in[k].symmap);
	}
	free(in);
	free(out.data);
	free(strtab.data);
	free(shstrtab.data);
	free(sh.data);
	free(symtab.data);
	free(glob);
	return result;
}
