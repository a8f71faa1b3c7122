/* gpu_tile.c: a GPU's 2-D tiles for a group, from a model of the device
 * (target_desc.h's GPU figures): each candidate tile's time at the
 * estimates, as the larger of its device-memory traffic over the
 * bandwidth and its computed points (the overlap's redundant ones
 * included) over the multiprocessors' rate, each slowed by what the
 * tile allows:
 *   occupancy   blocks a multiprocessor runs at once, bounded by its
 *               threads, blocks, registers and shared memory against
 *               the tile's scratchpads; below half of its threads, its
 *               memory accesses no longer hide each other's latency;
 *   coalescing  a warp reads rows of 32-byte sectors: a tile's row of
 *               its inputs costs its bytes rounded up to sectors, plus
 *               one for a start that is not aligned (the overlap);
 *   L2          what tiles read again of their neighbours' (the
 *               overlap) comes from the L2 cache, at its bandwidth,
 *               where the tiles resident at once read no more than half
 *               of its size; else from device memory;
 *   waves       the tiles run in waves of every multiprocessor's
 *               blocks; the last one may leave most of them idle;
 *   lanes       a block's threads step over each stage's widened tile
 *               (tile plus overlap) in strides of the block: a tile of 32
 *               columns widened to 34 takes two steps of a 32-wide
 *               block, the second with 2 of its 32 lanes busy, and the
 *               idle lanes cost as the busy ones;
 * plus a fixed cost per wave (a block's start, its first loads).  The
 * block is chosen with the tile: a warp or more along the row (its
 * accesses coalesced), 64 to 1,024 threads; larger blocks keep a
 * multiprocessor busy where scratchpads allow few blocks, smaller ones
 * waste fewer lanes on a narrow tile.  Tiles are at least 8 rows of 32
 * columns.
 *
 * What it was checked against (an H200, docs/performance.md): blur's
 * grouped kernel ran 0.073 ms in 32 x 256 tiles, 0.076 in 16 x 256 and
 * 64 x 128, 0.123 in 8 x 128; the model orders them the same way
 * (test_tile_model).  Its rates are an H100's data sheet's, not fitted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tile.h"

enum { BLOCK_X = 32, BLOCK_Y = 8, REGS_PER_THREAD = 32, BLOCK_RESERVED = 1024, SECTOR = 32, UNTILED_BLOCK = 256 };
/* a wave's fixed cost (s): the blocks' start and first loads */
#define WAVE_COST 2e-6

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

static int block_x(const pt_gpu_tile_case *c)
{
	return c->bx > 0 ? c->bx : BLOCK_X;
}

static int block_y(const pt_gpu_tile_case *c)
{
	return c->by > 0 ? c->by : BLOCK_Y;
}

/* The blocks of c's tile one multiprocessor runs at once (0: none fits). */
static int blocks_per_sm(const pt_target_desc *dev, const pt_gpu_tile_case *c)
{
	int threads = block_x(c) * block_y(c), n = dev->gpu.blocks_per_sm;
	if (dev->gpu.threads_per_sm / threads < n)
		n = dev->gpu.threads_per_sm / threads;
	if (dev->gpu.regs_per_sm / (threads * REGS_PER_THREAD) < n)
		n = dev->gpu.regs_per_sm / (threads * REGS_PER_THREAD);
	if (c->scratch > (double)dev->gpu.shared_per_block)
		return 0;
	if (c->scratch > 0 && (int)((double)dev->gpu.shared_per_sm / (c->scratch + BLOCK_RESERVED)) < n)
		n = (int)((double)dev->gpu.shared_per_sm / (c->scratch + BLOCK_RESERVED));
	return n;
}

/* Bytes of rows rows of n bytes each, in whole sectors, each row's
 * start unaligned when misaligned. */
static double row_bytes(int64_t rows, double n, bool misaligned)
{
	return (double)rows * ((double)ceil_div((int64_t)ceil(n), SECTOR) + misaligned) * SECTOR;
}

/* A kernel of blocks blocks (k->blocks_per_sm at once) moving bytes
 * through device memory and l2 more from the L2 cache, and stepping its
 * lanes over points: the larger of its memory and compute times, each
 * slowed below half occupancy (latency no longer hidden) and by an idle
 * last wave, plus each wave's fixed cost; parts into k. */
static double timed(const pt_target_desc *dev, pt_gpu_tile_cost *k, double blocks, double bytes, double l2,
	double points, double occupancy)
{
	double hide = occupancy >= 0.5 ? 1 : occupancy / 0.5;
	double slots = (double)dev->gpu.sms * k->blocks_per_sm;
	double waves = ceil(blocks / slots);
	k->occupancy = occupancy;
	k->tail = blocks > 0 ? blocks / (waves * slots) : 1;
	k->memory = (bytes / dev->gpu.bandwidth + l2 / dev->gpu.l2_bandwidth) / hide;
	k->compute = points / ((double)dev->gpu.sms * dev->gpu.points_per_s * hide);
	k->time = (k->memory > k->compute ? k->memory : k->compute) / k->tail + waves * WAVE_COST;
	return k->time;
}

double pt_gpu_tile_time(const pt_target_desc *dev, const pt_gpu_tile_case *c, pt_gpu_tile_cost *out)
{
	pt_gpu_tile_cost k = { .blocks_per_sm = blocks_per_sm(dev, c) };
	if (k.blocks_per_sm == 0) {
		if (out)
			*out = k;
		return HUGE_VAL;
	}
	int64_t r = c->rows, w = c->cols;
	k.tiles = (double)ceil_div(c->extent[0], r) * (double)ceil_div(c->extent[1], w);
	int bx = block_x(c), by = block_y(c);
	k.occupancy = (double)(k.blocks_per_sm * bx * by) / dev->gpu.threads_per_sm;
	/* per tile: its inputs' rows, widened by the overlap; its outputs */
	double in = row_bytes(r + c->overlap[0], (double)(w + c->overlap[1]) * c->in_bytes, c->overlap[1] > 0);
	double written = row_bytes(r, (double)w * c->out_bytes, false);
	/* the rows and columns tiles share (the overlap) are read again from
	 * L2 where the tiles resident at once read no more than half of it:
	 * a neighbour runs in the same wave or the next row of them */
	double all = k.tiles * in, once = c->in_bytes * (double)c->extent[0] * (double)c->extent[1];
	double resident = fmin(k.tiles, (double)dev->gpu.sms * k.blocks_per_sm) * in;
	double again = resident <= (double)dev->gpu.l2_bytes / 2 && all > once ? all - once : 0;
	/* the lanes' steps over each stage's widened tile, idle lanes
	 * counted */
	double points = 0;
	for (int s = 0; s < c->nst; s++)
		points += c->st[s].weight * c->st[s].inner * (double)(ceil_div(c->st[s].points[0], by) * by) *
			(double)(ceil_div(c->st[s].points[1], bx) * bx);
	if (c->nst == 0)
		points = (double)c->stages * (double)(ceil_div(r + c->overlap[0], by) * by) *
			(double)(ceil_div(w + c->overlap[1], bx) * bx);
	k.time = timed(dev, &k, k.tiles, all - again + k.tiles * written, again, k.tiles * points, k.occupancy);
	if (out)
		*out = k;
	return k.time;
}

double pt_gpu_untiled_time(const pt_target_desc *dev, const pt_gpu_untiled_case *c)
{
	pt_gpu_tile_case b = { .bx = UNTILED_BLOCK, .by = 1 };
	pt_gpu_tile_cost k = { .blocks_per_sm = blocks_per_sm(dev, &b) };
	double occupancy = (double)(k.blocks_per_sm * UNTILED_BLOCK) / dev->gpu.threads_per_sm;
	double points = c->weight * c->blocks * (double)(ceil_div(c->inner, UNTILED_BLOCK) * UNTILED_BLOCK);
	return timed(dev, &k, c->blocks, c->bytes, 0, points, occupancy);
}

/* The block of least predicted time for c's tile into c->bx, c->by:
 * 32 x 8 first (ties keep it), then a warp or more along the cols (no
 * wider than the widened tile's cols in warps) and 64 to 1,024
 * threads; its time. */
static double choose_block(const pt_target_desc *dev, pt_gpu_tile_case *c)
{
	static const int xs[] = { 32, 64, 128, 256 }, ys[] = { 1, 2, 4, 8, 16, 32 };
	if (c->fixed_block)
		return pt_gpu_tile_time(dev, c, NULL);
	c->bx = BLOCK_X;
	c->by = BLOCK_Y;
	double best = pt_gpu_tile_time(dev, c, NULL);
	int bx = c->bx, by = c->by;
	int64_t wide = ceil_div(c->cols + c->overlap[1], 32) * 32;
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		for (size_t j = 0; j < sizeof(ys) / sizeof(ys[0]); j++) {
			int threads = xs[i] * ys[j];
			if (threads < 64 || threads > 1024 || xs[i] > wide || ys[j] > c->rows + c->overlap[0])
				continue;
			c->bx = xs[i];
			c->by = ys[j];
			double t = pt_gpu_tile_time(dev, c, NULL);
			if (t < best * (1 - 1e-9)) {
				best = t;
				bx = xs[i];
				by = ys[j];
			}
		}
	c->bx = bx;
	c->by = by;
	return best;
}

int pt_gpu_tile_choose(const pt_target_desc *dev, pt_gpu_tile_case *c, void (*shape)(void *, pt_gpu_tile_case *),
	void *user, pt_strbuf *text)
{
	static const int64_t rows[] = { 8, 16, 32, 64, 128 }, cols[] = { 32, 64, 128, 256, 512 };
	double best = HUGE_VAL;
	int64_t br = 0, bc = 0;
	int bx = 0, by = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		/* nothing past the first size that holds the whole extent */
		if (i > 0 && rows[i - 1] >= c->extent[0])
			break;
		for (size_t j = 0; j < sizeof(cols) / sizeof(cols[0]); j++) {
			if (j > 0 && (c->fixed_cols > 0 || cols[j - 1] >= c->extent[1]))
				break;
			c->rows = rows[i];
			c->cols = c->fixed_cols > 0 ? c->fixed_cols : cols[j];
			shape(user, c);
			double t = choose_block(dev, c);
			/* ties: the first, the smaller tile (more blocks) */
			if (t < best * (1 - 1e-9)) {
				best = t;
				br = rows[i];
				bc = c->cols;   /* fixed_cols where given */
				bx = c->bx;
				by = c->by;
			}
		}
	}
	if (br == 0)
		return -1;
	c->rows = br;
	c->cols = bc;
	c->bx = bx;
	c->by = by;
	shape(user, c);
	pt_gpu_tile_cost k;
	pt_gpu_tile_time(dev, c, &k);
	if (text)
		pt_sb_printf(text, "%lld x %lld tiles (%.0f of them) in blocks of %d x %d threads (x along the cols%s), scratchpads "
			"%.1f KiB, %d blocks per multiprocessor (occupancy %.0f%%, last wave %.0f%% full): %.3f ms predicted (memory "
			"%.3f, compute %.3f)", (long long)br, (long long)bc, k.tiles, bx, by, c->fixed_block ? "; given" : "",
			c->scratch / 1024, k.blocks_per_sm,
			100 * k.occupancy, 100 * k.tail, 1e3 * k.time, 1e3 * k.memory, 1e3 * k.compute);
	return 0;
}

/* "name=value" items of $PT_GPU into dev: sms, smem_block, smem_sm (K
 * suffix: KiB), threads_sm, blocks_sm, regs_sm, l2 (bytes, K: KiB),
 * bw and l2bw (GB/s). */
int pt_target_desc_gpu_env(pt_target_desc *dev, char *err, size_t n)
{
	const char *env = getenv("PT_GPU");
	if (!env || !*env)
		return 0;
	for (const char *s = env; *s;) {
		size_t k = strcspn(s, ",");
		char item[64], name[32];
		snprintf(item, sizeof(item), "%.*s", (int)(k < 63 ? k : 63), s);
		double v;
		char unit = 0;
		int got = sscanf(item, "%31[a-z0-9_]=%lf%c", name, &v, &unit);
		double scale = unit == 'K' ? 1024 : 1;
		bool ok = got >= 2 && v > 0 && (got == 2 || unit == 'K');
		if (ok && !strcmp(name, "sms"))
			dev->gpu.sms = (int)v;
		else if (ok && !strcmp(name, "smem_block"))
			dev->gpu.shared_per_block = (int64_t)(v * scale);
		else if (ok && !strcmp(name, "smem_sm"))
			dev->gpu.shared_per_sm = (int64_t)(v * scale);
		else if (ok && !strcmp(name, "threads_sm"))
			dev->gpu.threads_per_sm = (int)v;
		else if (ok && !strcmp(name, "blocks_sm"))
			dev->gpu.blocks_per_sm = (int)v;
		else if (ok && !strcmp(name, "regs_sm"))
			dev->gpu.regs_per_sm = (int)(v * scale);
		else if (ok && !strcmp(name, "bw"))
			dev->gpu.bandwidth = v * 1e9;
		else if (ok && !strcmp(name, "l2"))
			dev->gpu.l2_bytes = (int64_t)(v * scale);
		else if (ok && !strcmp(name, "l2bw"))
			dev->gpu.l2_bandwidth = v * 1e9;
		else {
			snprintf(err, n, "PT_GPU=%s: bad item '%s' (give sms=, smem_block=, smem_sm=, threads_sm=, blocks_sm=, "
				"regs_sm=, l2=, bw= and l2bw= in GB/s; K for KiB)", env, item);
			return -1;
		}
		s += k + (s[k] == ',');
	}
	dev->gpu.source = "PT_GPU";
	return 0;
}
