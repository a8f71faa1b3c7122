/* cache_key.c: what a compiled object depends on, hashed into the
 * compile cache's key (cache.h).
 *
 * The pipeline is hashed field by field from the checked IR, not from a
 * printed form: the printer rounds float literals and hides the
 * checker's conversions, and two pipelines that print alike must still
 * get different keys.  The compiler is identified by the GNU build ID of
 * the binary holding this code (the linker's hash of that binary, so any
 * change to polytile's code changes it); a binary linked without one
 * falls back to this file's compile date and time, which changes with
 * every rebuild of the driver but not with a change elsewhere that the
 * build does not recompile here, so such builds should use --no-cache
 * while developing. */
#ifndef _GNU_SOURCE   /* dl_iterate_phdr (LLVM's flags may define it) */
#define _GNU_SOURCE
#endif
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "cache.h"
#include "ir.h"
#include "machine_facts.h"
#include "sha256.h"

/* Bumped when the key's contents or the entry's meaning change. */
#define KEY_FORMAT "polytile-cache-key 1"

static void u64(pt_sha256 *s, uint64_t v)
{
	pt_sha256_update(s, &v, sizeof(v));
}

static void i64(pt_sha256 *s, int64_t v)
{
	u64(s, (uint64_t)v);
}

static void f64(pt_sha256 *s, double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	u64(s, b);
}

/* length first, so that ("ab", "c") and ("a", "bc") differ; NULL apart */
static void str(pt_sha256 *s, const char *t)
{
	if (!t) {
		u64(s, UINT64_MAX);
		return;
	}
	size_t n = strlen(t);
	u64(s, n);
	pt_sha256_update(s, t, n);
}

static void expr(pt_sha256 *s, const pt_expr *e)
{
	if (!e) {
		i64(s, -1);
		return;
	}
	i64(s, e->kind);
	i64(s, e->type);
	i64(s, e->written);
	i64(s, e->op);
	i64(s, e->ival);
	f64(s, e->fval);
	str(s, e->name);
	i64(s, e->index);
	i64(s, e->stage ? e->stage->id : -1);
	i64(s, e->image ? e->image->id : -1);
	i64(s, e->nargs);
	for (int i = 0; i < e->nargs; i++)
		expr(s, e->args[i]);
}

static void intervals(pt_sha256 *s, const pt_interval *iv, int n)
{
	for (int d = 0; d < n; d++) {
		expr(s, iv[d].lo);
		expr(s, iv[d].hi);
		i64(s, iv[d].step);
	}
}

static void stage(pt_sha256 *s, const pt_stage *st)
{
	str(s, st->name);
	i64(s, st->type);
	i64(s, st->id);
	i64(s, st->is_output);
	i64(s, st->ndim);
	i64(s, st->nrdim);
	for (int d = 0; d < st->ndim + st->nrdim; d++)
		str(s, st->vars[d]);
	intervals(s, st->dom, st->ndim);
	i64(s, st->red);
	if (st->red != PT_RED_NONE)
		intervals(s, st->rdom, st->nrdim);
	expr(s, st->init);
	i64(s, st->ncases);
	for (int k = 0; k < st->ncases; k++) {
		const pt_case *c = &st->cases[k];
		expr(s, c->cond);
		expr(s, c->value);
		expr(s, c->update);
		i64(s, c->target != NULL);
		for (int d = 0; c->target && d < st->ndim; d++)
			expr(s, c->target[d]);
	}
}

static void pipeline(pt_sha256 *s, const pt_pipeline *p)
{
	str(s, p->name);
	i64(s, p->nparams);
	for (int i = 0; i < p->nparams; i++) {
		str(s, p->params[i].name);
		i64(s, p->params[i].type);
		i64(s, p->params[i].has_estimate);
		f64(s, p->params[i].estimate);
	}
	i64(s, p->nimages);
	for (int i = 0; i < p->nimages; i++) {
		const pt_image *im = p->images[i];
		str(s, im->name);
		i64(s, im->type);
		i64(s, im->id);
		i64(s, im->ndim);
		for (int d = 0; d < im->ndim; d++)
			expr(s, im->extent[d]);
	}
	i64(s, p->nstages);
	for (int i = 0; i < p->nstages; i++)
		stage(s, p->stages[i]);
}

/* Every option that changes the code (time, dumps do not; threads only
 * through the tile model's machine). */
static void options(pt_sha256 *s, const pt_options *o, int nparams)
{
	i64(s, o->backend);
	i64(s, o->backend == PT_BACKEND_MPI ? o->mpi_strategy : 0);
	i64(s, o->backend == PT_BACKEND_MPI ? o->mpi_grid : 0);
	i64(s, o->backend == PT_BACKEND_MPI ? o->mpi_steps : 0);
	/* what the auto strategy's choices depend on */
	if (o->backend == PT_BACKEND_MPI && o->mpi_strategy == PT_MPI_AUTO) {
		i64(s, o->mpi_ranks);
		f64(s, o->mpi_latency);
		f64(s, o->mpi_bandwidth);
		f64(s, o->mpi_point_time);
		f64(s, o->mpi_stream_time);
		i64(s, o->mpi_local_outputs);
	}
	i64(s, o->opt_level);
	i64(s, o->no_inline);
	i64(s, o->ntile);
	for (int i = 0; i < o->ntile; i++)
		i64(s, o->tile[i]);
	f64(s, o->overlap);
	i64(s, o->overlap > 0 || o->overlap_set);
	/* per-group entries as given (their order decides ties) */
	i64(s, o->ngroups);
	for (int i = 0; i < o->ngroups; i++) {
		const pt_group_options *g = &o->groups[i];
		i64(s, g->group != NULL);
		if (g->group)
			str(s, g->group);
		else
			i64(s, g->index);
		i64(s, g->ntile);
		for (int k = 0; k < g->ntile; k++)
			i64(s, g->tile[k]);
		i64(s, g->overlap_set);
		f64(s, g->overlap_set ? g->overlap : 0);
		i64(s, g->gpu_block[0]);
		i64(s, g->gpu_block[1]);
	}
	i64(s, o->fixed_tiles);
	i64(s, o->gpu_block[0]);
	i64(s, o->gpu_block[1]);
	i64(s, o->separate_tiles);
	i64(s, o->time_tile);
	i64(s, o->reassociate);
	i64(s, o->estimates != NULL);
	for (int i = 0; o->estimates && i < nparams; i++)
		f64(s, o->estimates[i]);
	/* at -O1 the program depends on the machine it plans for: the tile
	 * model's sizes, and which outputs stream (L3, poly/storage.h); at
	 * any level on its vector width; a bad PT_MACHINE fails the compile
	 * before the key is used */
	pt_machine m;
	char *err = NULL;
	if (!pt_machine_facts(o, &m, &err)) {
		if (o->opt_level == PT_OPT_GROUPED) {
			i64(s, m.l1);
			i64(s, m.l2);
			i64(s, m.l3);
			i64(s, m.threads);
		}
		i64(s, m.vector_bytes);   /* the vectorizers' width at any level */
	}
	free(err);
}

struct build_id {
	uintptr_t addr;
	const uint8_t *id;
	size_t n;
};

/* The GNU build ID note of the loaded object that holds b->addr. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *user)
{
	struct build_id *b = user;
	bool here = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && b->addr >= lo && b->addr < lo + ph->p_memsz)
			here = true;
	}
	if (!here)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const uint8_t *name = p + sizeof(*nh), *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
				desc + nh->n_descsz <= end) {
				b->id = desc;
				b->n = nh->n_descsz;
				return 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;
}

static void compiler(pt_sha256 *s)
{
	static struct build_id b;
	static bool looked;
	if (!looked) {
		b.addr = (uintptr_t)&pt_cache_key;
		dl_iterate_phdr(find_build_id, &b);
		looked = true;
	}
	str(s, PT_VERSION);
	if (b.id) {
		u64(s, b.n);
		pt_sha256_update(s, b.id, b.n);
	} else {
		str(s, __DATE__ " " __TIME__);
	}
	unsigned major, minor, patch;
	LLVMGetVersion(&major, &minor, &patch);
	u64(s, major);
	u64(s, minor);
	u64(s, patch);
}

static void machine(pt_sha256 *s, LLVMTargetMachineRef tm)
{
	char *triple = LLVMGetTargetMachineTriple(tm), *cpu = LLVMGetTargetMachineCPU(tm),
		*feat = LLVMGetTargetMachineFeatureString(tm);
	str(s, triple);
	str(s, cpu);
	str(s, feat);
	LLVMDisposeMessage(triple);
	LLVMDisposeMessage(cpu);
	LLVMDisposeMessage(feat);
}

void pt_cache_key(const pt_pipeline *p, const pt_options *opt, LLVMTargetMachineRef tm,
	const char *fname, char key[65])
{
	pt_sha256 s;
	uint8_t d[32];
	pt_sha256_init(&s);
	str(&s, KEY_FORMAT);
	compiler(&s);
	machine(&s, tm);
	options(&s, opt, p->nparams);
	str(&s, fname);
	pipeline(&s, p);
	pt_sha256_final(&s, d);
	pt_sha256_to_hex(d, key);
}
