/* split.c: a module compiled in pieces on threads (split.h).
 *
 * LLVM's optimizer and code generator take most of a compile, and a
 * module's parallel loops are independent functions (a worker and the
 * kernel it calls), referenced from the host code only by address.  Each
 * piece is a copy of the module keeping some functions' bodies (the rest
 * become declarations), moved as bitcode into a context of its own, since
 * an LLVM context is used by one thread at a time.  Functions another
 * piece refers to become external with hidden visibility, so the merged
 * object resolves them and a shared library built from it does not
 * export them. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

#include "machine.h"
#include "objmerge.h"
#include "split.h"

/* Pieces at most (the module is copied log2 of it times over), and the
 * weight (instructions before optimization, the host's divided by
 * HOST_COST, cold loops' times COLD_COST / 5) below which one more
 * piece costs more than it saves (a copy of the module's declarations,
 * a pass pipeline, a target machine): at 500, harris's -O1 kernel (two
 * nests, 900) and heat3d stayed whole; at 200 they compile 1.2x and
 * 1.3x faster, unsharp_mask's -O0 1.1x, and no app slower
 * (bench/results.md, "Less fusion of small levels, smaller LLVM
 * pieces").  Cold loops get O2 and no
 * strength reduction (machine.h): per instruction LLVM took 2/5 of the
 * time it takes on hot ones (local_laplacian's pieces: 0.016-0.027 ms
 * against 0.038-0.054), and weighed like hot ones they made pieces
 * look balanced that were not: a hot piece, the smallest by
 * instructions, was taken last. */
enum { MAX_PIECES = 8, MIN_PIECE = 200, HOST_COST = 10, COLD_COST = 2 };

typedef struct {
	LLVMMemoryBufferRef bc;     /* the piece, as bitcode */
	LLVMContextRef llc;
	LLVMModuleRef mod;
	LLVMTargetMachineRef tm;
	LLVMMemoryBufferRef obj;
	char *err;
	long size;                  /* weight: threads take the heaviest first */
	bool cold;                  /* only cold functions (machine.h) */
} piece;

struct pt_split {
	int n;
	piece *p;
	LLVMTargetRef target;
	char *triple, *cpu, *features;
	LLVMCodeGenOptLevel level;
};

int pt_split_default_threads(void)
{
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		int n = CPU_COUNT(&set);
		if (n > 0)
			return n;
	}
	return 1;
}

static int find(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

static int index_of(LLVMValueRef *fn, int nf, LLVMValueRef f)
{
	for (int i = 0; i < nf; i++)
		if (fn[i] == f)
			return i;
	return -1;
}

/* The function an instruction or constant user belongs to (NULL: none). */
static LLVMValueRef user_function(LLVMValueRef user)
{
	if (!LLVMIsAInstruction(user))
		return NULL;
	return LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
}

/* Whether objects of tm's target can be merged (objmerge.c: 64-bit ELF
 * with RELA relocations). */
static bool mergeable(LLVMTargetMachineRef tm)
{
	char *t = LLVMGetTargetMachineTriple(tm);
	bool elf = (!strncmp(t, "x86_64", 6) || !strncmp(t, "aarch64", 7)) &&
		!strstr(t, "apple") && !strstr(t, "darwin") && !strstr(t, "macos") && !strstr(t, "ios") &&
		!strstr(t, "windows") && !strstr(t, "win32") && !strstr(t, "mingw") && !strstr(t, "cygwin") &&
		!strstr(t, "uefi") && !strstr(t, "-coff") && !strstr(t, "-macho");
	LLVMDisposeMessage(t);
	return elf;
}

/* Only constants may be copied into every piece; anything else keeps the
 * module whole. */
static bool splittable(LLVMModuleRef m)
{
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g) && !LLVMIsGlobalConstant(g))
			return false;
	return !LLVMGetFirstGlobalAlias(m) && !LLVMGetFirstGlobalIFunc(m);
}

/* The module's defined functions, by name (every one is named). */
typedef struct {
	int nf;
	char **name;
	const int *which;           /* piece of each */
	const bool *exported;
	piece *p;
} table;

static int lookup(const table *t, LLVMValueRef f)
{
	size_t len;
	const char *name = LLVMGetValueName2(f, &len);
	for (int i = 0; i < t->nf; i++)
		if (!strcmp(t->name[i], name))
			return i;
	return -1;
}

/* Drops from m the bodies of functions outside pieces lo..hi-1: each
 * becomes a declaration where still used, and goes where not. */
static void keep_pieces(LLVMModuleRef m, const table *t, int lo, int hi)
{
	LLVMValueRef *drop = malloc(sizeof(*drop) * (size_t)t->nf), *decl = malloc(sizeof(*decl) * (size_t)t->nf);
	int nd = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		int i = LLVMIsDeclaration(f) ? -1 : lookup(t, f);
		if (i >= 0 && (t->which[i] < lo || t->which[i] >= hi))
			drop[nd++] = f;
	}
	/* declarations take the uses first, so that no function is deleted
	 * while used */
	for (int d = 0; d < nd; d++) {
		decl[d] = LLVMAddFunction(m, "", LLVMGlobalGetValueType(drop[d]));
		LLVMSetFunctionCallConv(decl[d], LLVMGetFunctionCallConv(drop[d]));
		LLVMReplaceAllUsesWith(drop[d], decl[d]);
	}
	for (int d = 0; d < nd; d++) {
		size_t len;
		const char *name = LLVMGetValueName2(drop[d], &len);
		char *copy = strndup(name, len);
		LLVMDeleteFunction(drop[d]);
		if (LLVMGetFirstUse(decl[d]))
			LLVMSetValueName2(decl[d], copy, len);
		else
			LLVMDeleteFunction(decl[d]);
		free(copy);
	}
	free(drop);
	free(decl);
}

/* Pieces lo..hi-1 of m (taken over; holding at least their bodies) as
 * bitcode: halves copied and cut until one piece is left, so the module
 * is copied log2(pieces) times over rather than once per piece. */
static void cut(LLVMModuleRef m, const table *t, int lo, int hi)
{
	if (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		LLVMModuleRef c = LLVMCloneModule(m);
		keep_pieces(c, t, lo, mid);
		cut(c, t, lo, mid);
		keep_pieces(m, t, mid, hi);
		cut(m, t, mid, hi);
		return;
	}
	keep_pieces(m, t, lo, hi);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		int i = lookup(t, f);
		if (i >= 0 && t->exported[i]) {
			LLVMSetLinkage(f, LLVMExternalLinkage);
			LLVMSetVisibility(f, LLVMHiddenVisibility);
		}
	}
	t->p[lo].bc = LLVMWriteBitcodeToMemoryBuffer(m);
	LLVMDisposeModule(m);
}

static int by_size(const void *a, const void *b)
{
	const long *x = a, *y = b;   /* {size, id} pairs: largest first, then id */
	return x[0] != y[0] ? (x[0] < y[0] ? 1 : -1) : (x[1] > y[1]) - (x[1] < y[1]);
}

pt_split *pt_split_new(LLVMModuleRef m, LLVMTargetMachineRef tm)
{
	if (!mergeable(tm) || !splittable(m))
		return NULL;
	int nf = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		nf += !LLVMIsDeclaration(f);
	if (nf < 2)
		return NULL;
	LLVMValueRef *fn = malloc(sizeof(*fn) * (size_t)nf);
	int *up = malloc(sizeof(int) * (size_t)nf), *which = malloc(sizeof(int) * (size_t)nf);
	long *size = calloc((size_t)nf, sizeof(long));
	bool *exported = calloc((size_t)nf, sizeof(bool));
	char **name = calloc((size_t)nf, sizeof(char *));
	bool named = true;
	int i = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			size_t len;
			const char *nm = LLVMGetValueName2(f, &len);
			named = named && len > 0;
			name[i] = strndup(nm, len);
			up[i] = i;
			fn[i++] = f;
		}
	/* a function stays with those it calls, which O3 may inline (a
	 * tile's nests, nests.c, are noinline: they go apart) */
	unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
	long total = 0;
	for (i = 0; i < nf; i++)
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn[i]); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
				size[i]++;
				if (!LLVMIsACallInst(in))
					continue;
				LLVMValueRef callee = LLVMGetCalledValue(in);
				int j = LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee) &&
					!LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, noinline) ?
					index_of(fn, nf, callee) : -1;
				if (j >= 0)
					up[find(up, i)] = find(up, j);
			}
	/* groups, largest first, each into the piece with least so far */
	long (*group)[2] = calloc((size_t)nf, sizeof(*group));
	bool *cold = calloc((size_t)nf, sizeof(bool));   /* per root */
	long cold_load = 0;
	int ngroups = 0;
	for (i = 0; i < nf; i++) {
		if (find(up, i) != i)
			continue;
		bool host = false;
		group[ngroups][1] = i;
		cold[i] = true;
		for (int j = 0; j < nf; j++)
			if (find(up, j) == i) {
				group[ngroups][0] += size[j];
				host = host || LLVMGetLinkage(fn[j]) == LLVMExternalLinkage;
				cold[i] = cold[i] && pt_machine_is_cold(fn[j]);
			}
		/* the host code (the entry functions, the schedule's sequential
		 * part) costs LLVM about a tenth of what loop nests do per
		 * instruction: checks and calls, nothing to vectorize */
		if (host)
			group[ngroups][0] = (group[ngroups][0] + HOST_COST - 1) / HOST_COST;
		else if (cold[i])
			group[ngroups][0] = (group[ngroups][0] * COLD_COST + 4) / 5;
		total += group[ngroups][0];
		cold_load += cold[i] ? group[ngroups][0] : 0;
		ngroups++;
	}
	int n = ngroups < MAX_PIECES ? ngroups : MAX_PIECES;
	if (n > total / MIN_PIECE)
		n = (int)(total / MIN_PIECE);
	pt_split *s = NULL;
	if (n >= 2 && named) {
		qsort(group, (size_t)ngroups, sizeof(*group), by_size);
		/* the cold groups in pieces nh.. of their own, as many as
		 * their share of the weight rounds to (none: they go with the
		 * hot ones, rather than leave the hot ones fewer pieces), so
		 * that only the hot pieces pay for O3 and strength reduction
		 * (machine.h) */
		int nh = n - (int)((n * cold_load + total / 2) / total);
		nh = nh < 1 ? 1 : nh;
		long load[MAX_PIECES] = {0};
		bool hot[MAX_PIECES] = {0};
		for (int g = 0; g < ngroups; g++) {
			bool c = nh < n && cold[group[g][1]];
			int lo = c ? nh : 0, hi = c ? n : nh, best = lo;
			for (int k = lo + 1; k < hi; k++)
				if (load[k] < load[best])
					best = k;
			load[best] += group[g][0];
			hot[best] = hot[best] || !cold[group[g][1]];
			for (int j = 0; j < nf; j++)
				if (find(up, j) == group[g][1])
					which[j] = best;
		}
		/* an internal function used from another piece: external there,
		 * hidden (the module's external ones stay as they are) */
		for (i = 0; i < nf; i++) {
			LLVMLinkage l = LLVMGetLinkage(fn[i]);
			if (l != LLVMInternalLinkage && l != LLVMPrivateLinkage)
				continue;
			for (LLVMUseRef u = LLVMGetFirstUse(fn[i]); u && !exported[i]; u = LLVMGetNextUse(u)) {
				LLVMValueRef uf = user_function(LLVMGetUser(u));
				int j = uf ? index_of(fn, nf, uf) : -1;
				exported[i] = j < 0 || which[j] != which[i];
			}
		}
		s = calloc(1, sizeof(*s));
		s->n = n;
		s->p = calloc((size_t)n, sizeof(piece));
		for (int k = 0; k < n; k++) {
			s->p[k].size = load[k];
			s->p[k].cold = !hot[k];
		}
		table t = { .nf = nf, .name = name, .which = which, .exported = exported, .p = s->p };
		cut(m, &t, 0, n);
		s->target = LLVMGetTargetMachineTarget(tm);
		s->triple = LLVMGetTargetMachineTriple(tm);
		s->cpu = LLVMGetTargetMachineCPU(tm);
		s->features = LLVMGetTargetMachineFeatureString(tm);
		s->level = pt_machine_level();
	}
	free(group);
	free(cold);
	free(fn);
	free(up);
	free(which);
	free(size);
	free(exported);
	for (i = 0; i < nf; i++)
		free(name[i]);
	free(name);
	return s;
}

int pt_split_count(const pt_split *s)
{
	return s->n;
}

int pt_split_cold_count(const pt_split *s)
{
	int c = 0;
	for (int k = 0; k < s->n; k++)
		c += s->p[k].cold;
	return c;
}

void pt_split_free(pt_split *s)
{
	if (!s)
		return;
	for (int k = 0; k < s->n; k++) {
		piece *p = &s->p[k];
		if (p->bc)
			LLVMDisposeMemoryBuffer(p->bc);
		if (p->mod)
			LLVMDisposeModule(p->mod);
		if (p->tm)
			LLVMDisposeTargetMachine(p->tm);
		if (p->llc)
			LLVMContextDispose(p->llc);
		if (p->obj)
			LLVMDisposeMemoryBuffer(p->obj);
		free(p->err);
	}
	free(s->p);
	LLVMDisposeMessage(s->triple);
	LLVMDisposeMessage(s->cpu);
	LLVMDisposeMessage(s->features);
	free(s);
}

/* ---- threads: each takes the next piece, largest first ---- */

typedef struct {
	pt_split *s;
	int *order;
	atomic_int next;
	void (*work)(pt_split *s, piece *p);
} pool;

static void *worker(void *arg)
{
	pool *w = arg;
	int k;
	while ((k = atomic_fetch_add(&w->next, 1)) < w->s->n)
		w->work(w->s, &w->s->p[w->order[k]]);
	return NULL;
}

/* Runs work on every piece on up to `threads` threads (this one among
 * them); -1 with *err from the first piece that failed. */
static int run_pool(pt_split *s, int threads, void (*work)(pt_split *, piece *), char **err)
{
	long (*by)[2] = calloc((size_t)s->n, sizeof(*by));
	for (int k = 0; k < s->n; k++) {
		by[k][0] = s->p[k].size;
		by[k][1] = k;
	}
	qsort(by, (size_t)s->n, sizeof(*by), by_size);
	int *order = malloc(sizeof(int) * (size_t)s->n);
	for (int k = 0; k < s->n; k++)
		order[k] = (int)by[k][1];
	free(by);
	pool w = { .s = s, .order = order, .work = work };
	atomic_init(&w.next, 0);
	if (threads > s->n)
		threads = s->n;
	pthread_t *t = malloc(sizeof(*t) * (size_t)(threads > 1 ? threads - 1 : 1));
	int started = 0;
	for (int i = 1; i < threads; i++)
		if (!pthread_create(&t[started], NULL, worker, &w))
			started++;
	worker(&w);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	free(order);
	for (int k = 0; k < s->n; k++)
		if (s->p[k].err) {
			*err = s->p[k].err;
			s->p[k].err = NULL;
			return -1;
		}
	return 0;
}

static void quiet(LLVMDiagnosticInfoRef di, void *user)
{
	(void)di;
	(void)user;
}

static void optimize_piece(pt_split *s, piece *p)
{
	p->llc = LLVMContextCreate();
	/* the loops LLVM cannot vectorize are expected (module.c) */
	LLVMContextSetDiagnosticHandler(p->llc, quiet, NULL);
	if (LLVMParseBitcodeInContext2(p->llc, p->bc, &p->mod)) {
		p->mod = NULL;
		p->err = strdup("a piece of the module could not be read back");
		return;
	}
	LLVMDisposeMemoryBuffer(p->bc);
	p->bc = NULL;
	p->tm = LLVMCreateTargetMachine(s->target, s->triple, s->cpu, s->features, s->level,
		LLVMRelocPIC, LLVMCodeModelDefault);
	if (!p->tm)
		p->err = strdup("LLVM could not create a machine for this target");
	if (p->tm)
		pt_machine_optimize(p->mod, p->tm, &p->err);
}

static void emit_piece(pt_split *s, piece *p)
{
	(void)s;
	p->obj = pt_machine_emit_object(p->mod, p->tm, &p->err);
	/* done with the piece: its memory back before the merge */
	LLVMDisposeModule(p->mod);
	p->mod = NULL;
	LLVMDisposeTargetMachine(p->tm);
	p->tm = NULL;
	LLVMContextDispose(p->llc);
	p->llc = NULL;
}

int pt_split_optimize(pt_split *s, int threads, char **err)
{
	return run_pool(s, threads, optimize_piece, err);
}

LLVMMemoryBufferRef pt_split_emit(pt_split *s, int threads, char **err)
{
	if (run_pool(s, threads, emit_piece, err))
		return NULL;
	const void **data = malloc(sizeof(*data) * (size_t)s->n);
	size_t *len = malloc(sizeof(*len) * (size_t)s->n);
	for (int k = 0; k < s->n; k++) {
		data[k] = LLVMGetBufferStart(s->p[k].obj);
		len[k] = LLVMGetBufferSize(s->p[k].obj);
	}
	size_t n = 0;
	char *out = pt_objmerge(data, len, s->n, &n, err);
	free(data);
	free(len);
	if (!out)
		return NULL;
	LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(out, n, "pt_pipeline");
	free(out);
	return buf;
}

