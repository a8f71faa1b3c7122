/* objmerge.c: relocatable ELF objects merged into one (objmerge.h).
 *
 * The pieces of a split module (split.c) are compiled to objects of their
 * own; users and the JIT get one.  As `ld -r` does, sections of the same
 * name, type, flags and entry size are concatenated (each input's part
 * aligned as it was), so the output looks like any compiler's object:
 * LLVM's JIT places sections of one name as one block, and two .eh_frame
 * blocks at the same address would overlap.  Symbols move by their
 * section's offset, relocations by their target's; one section symbol
 * per output section, relocations against an input's section symbol get
 * its offset added to the addend.  One symbol table: the locals first,
 * as ELF requires, then each global once.  The layout depends only on
 * the inputs and their order. */
#include <elf.h>
#include <stdbool.h>
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
	Elf64_Xword *secoff;     /* its offset there */
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
		if (s->sh_addralign > 4096 || (s->sh_addralign & (s->sh_addralign - 1)))
			return bad(err, k, "a section's alignment is not a power of 2 up to 4096");
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
	in->secoff = calloc(e->e_shnum, sizeof(Elf64_Xword));
	in->symmap = calloc(in->nsym, sizeof(int));
	return 0;
}

/* Whether input section i is copied (not the symbol table, the string
 * tables or the address-significance hint). */
static int copied(const input *in, int i)
{
	const Elf64_Shdr *s = &in->sh[i];
	return s->sh_type != SHT_NULL && s->sh_type != SHT_SYMTAB && s->sh_type != SHT_LLVM_ADDRSIG &&
		s->sh_type != SHT_RELA && i != (int)in->sh[in->symtab].sh_link && i != in->eh.e_shstrndx;
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

/* An output section: the inputs' sections of one name, type, flags and
 * entry size, one after the other, and the relocations that apply to
 * it. */
typedef struct {
	Elf64_Shdr h;
	const char *name;
	buf data;
	buf rel;
} osec;

/* The state of one merge: the inputs, the output sections, the string
 * and symbol tables being built and the globals, in output order. */
typedef struct merge {
	input *in;
	int n;
	osec *os;
	int nos;
	buf strtab, shstrtab, symtab;
	Elf64_Sym *glob;
	size_t nglob, nlocal;
	char **err;
} merge;

/* The inputs' copied sections into output sections (number j + 1):
 * sections of one name, type, flags and entry size are concatenated. */
static int merge_sections(merge *m)
{
	input *in = m->in;
	for (int k = 0; k < m->n; k++)
		for (int i = 1; i < in[k].eh.e_shnum; i++) {
			if (!copied(&in[k], i))
				continue;
			const Elf64_Shdr *s = &in[k].sh[i];
			if (s->sh_link || (s->sh_flags & (SHF_LINK_ORDER | SHF_INFO_LINK)))
				return bad(m->err, k, "a section linked to another, of a kind not merged");
			const char *name = in[k].p + in[k].sh[in[k].eh.e_shstrndx].sh_offset + s->sh_name;
			int j = 0;
			while (j < m->nos && (strcmp(m->os[j].name, name) || m->os[j].h.sh_type != s->sh_type ||
				m->os[j].h.sh_flags != s->sh_flags || m->os[j].h.sh_entsize != s->sh_entsize))
				j++;
			if (j == m->nos) {
				m->os = realloc(m->os, sizeof(*m->os) * (size_t)(m->nos + 1));
				memset(&m->os[m->nos], 0, sizeof(m->os[m->nos]));
				m->os[m->nos].h = *s;
				m->os[m->nos].h.sh_size = 0;
				m->os[m->nos].h.sh_addralign = 1;
				m->os[m->nos].name = name;
				m->nos++;
			}
			osec *o = &m->os[j];
			Elf64_Xword a = s->sh_addralign ? s->sh_addralign : 1;
			if (a > o->h.sh_addralign)
				o->h.sh_addralign = a;
			Elf64_Xword off = (o->h.sh_size + a - 1) / a * a;
			if (s->sh_type != SHT_NOBITS) {
				align(&o->data, a);
				put(&o->data, in[k].p + s->sh_offset, s->sh_size);
			}
			o->h.sh_size = off + s->sh_size;
			in[k].secmap[i] = j + 1;
			in[k].secoff[i] = off;
		}
	if (2 * m->nos + 4 >= SHN_LORESERVE)
		return bad(m->err, 0, "too many sections");
	return 0;
}

/* Symbols: a section symbol per output section, then the inputs' other
 * locals. */
static void merge_locals(merge *m)
{
	input *in = m->in;
	Elf64_Sym s0 = {0};
	put(&m->symtab, &s0, sizeof(s0));
	for (int j = 0; j < m->nos; j++) {
		Elf64_Sym s = { .st_info = ELF64_ST_INFO(STB_LOCAL, STT_SECTION), .st_shndx = (Elf64_Half)(j + 1) };
		put(&m->symtab, &s, sizeof(s));
	}
	m->nlocal = 1 + (size_t)m->nos;
	for (int k = 0; k < m->n; k++)
		for (size_t j = 1; j < in[k].nsym; j++) {
			Elf64_Sym s = in[k].sym[j];
			if (ELF64_ST_BIND(s.st_info) != STB_LOCAL)
				continue;
			bool in_sec = s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE;
			if (in_sec && !in[k].secmap[s.st_shndx])
				continue;      /* in a dropped section: nothing kept refers to it */
			if (ELF64_ST_TYPE(s.st_info) == STT_SECTION) {
				if (in_sec)
					in[k].symmap[j] = in[k].secmap[s.st_shndx];
				continue;
			}
			if (in_sec) {
				s.st_value += in[k].secoff[s.st_shndx];
				s.st_shndx = (Elf64_Half)in[k].secmap[s.st_shndx];
			}
			s.st_name = s.st_name ? (Elf64_Word)put(&m->strtab, in[k].str + s.st_name, strlen(in[k].str + s.st_name) + 1) : 0;
			put(&m->symtab, &s, sizeof(s));
			in[k].symmap[j] = (int)m->nlocal++;
		}
}

/* Each global once: a definition wins over references, two definitions
 * are an error. */
static int merge_globals(merge *m)
{
	input *in = m->in;
	for (int k = 0; k < m->n; k++)
		for (size_t j = 1; j < in[k].nsym; j++) {
			Elf64_Sym s = in[k].sym[j];
			if (ELF64_ST_BIND(s.st_info) == STB_LOCAL)
				continue;
			const char *name = in[k].str + s.st_name;
			if (s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE) {
				if (!in[k].secmap[s.st_shndx])
					return bad(m->err, k, "a global symbol in a section not merged");
				s.st_value += in[k].secoff[s.st_shndx];
				s.st_shndx = (Elf64_Half)in[k].secmap[s.st_shndx];
			}
			size_t g = 0;
			while (g < m->nglob && strcmp(m->strtab.data + m->glob[g].st_name, name))
				g++;
			Elf64_Sym *glob = m->glob;
			if (g == m->nglob) {
				m->glob = glob = realloc(glob, sizeof(*glob) * (m->nglob + 1));
				s.st_name = (Elf64_Word)put(&m->strtab, name, strlen(name) + 1);
				glob[m->nglob++] = s;
			} else if (s.st_shndx != SHN_UNDEF) {
				if (glob[g].st_shndx != SHN_UNDEF) {
					char msg[300];
					snprintf(msg, sizeof(msg), "symbol %.200s is defined twice", name);
					*m->err = strdup(msg);
					return -1;
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
			in[k].symmap[j] = (int)(m->nlocal + g);
		}
	for (size_t g = 0; g < m->nglob; g++)
		put(&m->symtab, &m->glob[g], sizeof(m->glob[g]));
	return 0;
}

/* Relocations, moved with the section they apply to. */
static int merge_relocations(merge *m)
{
	input *in = m->in;
	for (int k = 0; k < m->n; k++)
		for (int i = 1; i < in[k].eh.e_shnum; i++) {
			const Elf64_Shdr *s = &in[k].sh[i];
			if (s->sh_type != SHT_RELA)
				continue;
			if (s->sh_entsize != sizeof(Elf64_Rela) || s->sh_link != (Elf64_Word)in[k].symtab ||
				!s->sh_info || s->sh_info >= in[k].eh.e_shnum || !in[k].secmap[s->sh_info])
				return bad(m->err, k, "bad relocation section");
			osec *o = &m->os[in[k].secmap[s->sh_info] - 1];
			for (size_t r = 0; r < s->sh_size / sizeof(Elf64_Rela); r++) {
				Elf64_Rela rel;
				memcpy(&rel, in[k].p + s->sh_offset + r * sizeof(rel), sizeof(rel));
				size_t sym = ELF64_R_SYM(rel.r_info);
				if (sym >= in[k].nsym || (sym && !in[k].symmap[sym]))
					return bad(m->err, k, "a relocation's symbol is not kept");
				if (sym && ELF64_ST_TYPE(in[k].sym[sym].st_info) == STT_SECTION)
					rel.r_addend += (Elf64_Sxword)in[k].secoff[in[k].sym[sym].st_shndx];
				rel.r_offset += in[k].secoff[s->sh_info];
				rel.r_info = ELF64_R_INFO((Elf64_Xword)(sym ? in[k].symmap[sym] : 0), ELF64_R_TYPE(rel.r_info));
				put(&o->rel, &rel, sizeof(rel));
			}
		}
	return 0;
}

/* Appends a table section (contents data) and its header. */
static void put_table(buf *out, buf *sh, Elf64_Shdr h, const buf *data)
{
	align(out, h.sh_addralign);
	h.sh_offset = out->len;
	h.sh_size = data->len;
	put(out, data->data, data->len);
	put(sh, &h, sizeof(h));
}

/* The file: header, sections' contents, relocations, tables, section
 * headers. */
static char *write_merged(merge *m, size_t *out_len)
{
	buf out = {0}, sh = {0};
	int nrel = 0;
	for (int j = 0; j < m->nos; j++)
		nrel += m->os[j].rel.len > 0;
	int symtab_ix = m->nos + nrel + 1, strtab_ix = symtab_ix + 1, shstrtab_ix = symtab_ix + 2;
	Elf64_Shdr zero = {0};
	put(&sh, &zero, sizeof(zero));
	put(&out, &m->in[0].eh, sizeof(Elf64_Ehdr));
	for (int j = 0; j < m->nos; j++) {
		Elf64_Shdr h = m->os[j].h;
		h.sh_name = (Elf64_Word)put(&m->shstrtab, m->os[j].name, strlen(m->os[j].name) + 1);
		align(&out, h.sh_addralign);
		h.sh_offset = out.len;
		put(&out, m->os[j].data.data, m->os[j].data.len);
		put(&sh, &h, sizeof(h));
	}
	for (int j = 0; j < m->nos; j++) {
		if (!m->os[j].rel.len)
			continue;
		char name[300];
		snprintf(name, sizeof(name), ".rela%.250s", m->os[j].name);
		Elf64_Shdr h = { .sh_type = SHT_RELA, .sh_flags = SHF_INFO_LINK, .sh_link = (Elf64_Word)symtab_ix,
			.sh_info = (Elf64_Word)(j + 1), .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Rela) };
		h.sh_name = (Elf64_Word)put(&m->shstrtab, name, strlen(name) + 1);
		put_table(&out, &sh, h, &m->os[j].rel);
	}
	Elf64_Shdr t = { .sh_type = SHT_SYMTAB, .sh_link = (Elf64_Word)strtab_ix, .sh_info = (Elf64_Word)m->nlocal,
		.sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	t.sh_name = (Elf64_Word)put(&m->shstrtab, ".symtab", 8);
	Elf64_Shdr st = { .sh_type = SHT_STRTAB, .sh_addralign = 1 }, sst = st;
	st.sh_name = (Elf64_Word)put(&m->shstrtab, ".strtab", 8);
	sst.sh_name = (Elf64_Word)put(&m->shstrtab, ".shstrtab", 10);
	put_table(&out, &sh, t, &m->symtab);
	put_table(&out, &sh, st, &m->strtab);
	put_table(&out, &sh, sst, &m->shstrtab);
	align(&out, 8);
	Elf64_Ehdr eh = m->in[0].eh;
	eh.e_shoff = out.len;
	eh.e_shnum = (Elf64_Half)(shstrtab_ix + 1);
	eh.e_shstrndx = (Elf64_Half)shstrtab_ix;
	eh.e_phoff = 0;
	eh.e_phnum = 0;
	put(&out, sh.data, sh.len);
	memcpy(out.data, &eh, sizeof(eh));
	free(sh.data);
	*out_len = out.len;
	return out.data;
}

char *pt_objmerge(const void *const *obj, const size_t *len, int n, size_t *out_len, char **err)
{
	merge m = { .in = calloc((size_t)n, sizeof(input)), .n = n, .err = err };
	char *result = NULL;
	put(&m.strtab, "", 1);
	put(&m.shstrtab, "", 1);
	bool ok = true;
	for (int k = 0; k < n && ok; k++) {
		ok = !read_input(&m.in[k], obj[k], len[k], k, err);
		if (ok && (m.in[k].eh.e_machine != m.in[0].eh.e_machine || m.in[k].eh.e_flags != m.in[0].eh.e_flags)) {
			bad(err, k, "another machine");
			ok = false;
		}
	}
	if (ok && !merge_sections(&m)) {
		merge_locals(&m);
		if (!merge_globals(&m) && !merge_relocations(&m))
			result = write_merged(&m, out_len);
	}
	for (int k = 0; k < n; k++) {
		free(m.in[k].sh);
		free(m.in[k].sym);
		free(m.in[k].secmap);
		free(m.in[k].secoff);
		free(m.in[k].symmap);
	}
	for (int j = 0; j < m.nos; j++) {
		free(m.os[j].data.data);
		free(m.os[j].rel.data);
	}
	free(m.os);
	free(m.in);
	free(m.strtab.data);
	free(m.shstrtab.data);
	free(m.symtab.data);
	free(m.glob);
	return result;
}
