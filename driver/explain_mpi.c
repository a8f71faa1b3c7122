/* explain_mpi.c: `polytile explain --backend mpi --ranks N`: how each
 * kernel is shared among ranks (poly/distribute.h) and the bytes each
 * rank sends and receives in one run at the estimates, predicted from
 * the same boxes the compiled code exchanges, so that the runtime's
 * counts (pt_mpi_bytes) equal them. */
#include <stdlib.h>
#include <string.h>

#include "distribute.h"
#include "passes.h"

/* Bytes as "12.3 MB". */
static void bytes_text(pt_strbuf *b, int64_t n)
{
	if (n < 1000)
		pt_sb_printf(b, "%lld B", (long long)n);
	else if (n < 1000000)
		pt_sb_printf(b, "%.1f KB", (double)n / 1e3);
	else
		pt_sb_printf(b, "%.1f MB", (double)n / 1e6);
}

/* The model's projection of a run on R ranks (pt_dist_project). */
static void projection(pt_strbuf *b, const pt_unit *u, const int64_t *ip, int R)
{
	pt_dist_costs c = pt_dist_costs_of(u->opt);
	pt_dist_projection pr;
	if (!pt_dist_project(u->dist, u->model, u->kernels, ip, R, &c, &pr))
		return;
	pt_sb_printf(b, "  on %d ranks, the model's projection (%.3g us a message, %.3g GB/s, %.3g ns a point in "
		"tiles, %.3g untiled):\n", R, c.latency * 1e6, c.bandwidth / 1e9, c.point_time * 1e9, c.stream_time * 1e9);
	pt_sb_printf(b, "    points: %.4g in all, %.4g on the busiest rank (%.1f%% beyond an even share: "
		"recomputed, replicated, or parts of unequal size)\n", pr.points, pr.most_points,
		pr.points > 0 ? 100 * (pr.most_points * R / pr.points - 1) : 0.0);
	pt_sb_printf(b, "    exchanges: %lld (", (long long)pr.most_received);
	bytes_text(b, pr.most_received);
	pt_sb_printf(b, ") in %lld messages to the rank that receives most; %.3g ms on the slowest\n",
		(long long)pr.messages, pr.exchange_s * 1e3);
	double tg = (double)pr.gathered / c.bandwidth;
	pt_sb_printf(b, "    predicted run %.3g ms, efficiency %.0f%% (with rank 0's gather of the outputs, %lld B: "
		"%.3g ms, %.0f%%)\n", pr.time_s * 1e3, pr.efficiency * 100, (long long)pr.gathered, (pr.time_s + tg) * 1e3,
		pr.time_s + tg > 0 ? pr.efficiency * pr.time_s / (pr.time_s + tg) * 100 : 100.0);
}

void pt_explain_mpi(pt_strbuf *b, const pt_unit *u, const int64_t *ip, int ranks)
{
	static const char *const names[] = { "auto", "communicate", "recompute", "replicate" };
	pt_sb_printf(b, "distributed (--backend mpi, --mpi-strategy %s):\n", names[u->opt->mpi_strategy & 3]);
	char *plan = pt_dist_str(u->dist, u->kernels);
	for (char *l = plan; *l;) {
		size_t n = strcspn(l, "\n");
		pt_sb_printf(b, "  %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	free(plan);
	/* auto's plan is for one number of ranks (4 without --ranks) */
	int from = ranks > 0 ? ranks : u->opt->mpi_strategy == PT_MPI_AUTO ? 4 : 2, to = ranks > 0 ? ranks : 4;
	for (int R = from; R <= to; R++) {
		int64_t *sent = calloc((size_t)R, sizeof(int64_t)), *recv = calloc((size_t)R, sizeof(int64_t));
		pt_dist_predict(u->dist, u->model, u->kernels, ip, R, sent, recv);
		pt_sb_printf(b, "  on %d ranks, bytes per run (exchanges, and the outputs gathered on rank 0):\n", R);
		for (int r = 0; r < R; r++) {
			pt_sb_printf(b, "    rank %d sends %lld (", r, (long long)sent[r]);
			bytes_text(b, sent[r]);
			pt_sb_printf(b, "), receives %lld (", (long long)recv[r]);
			bytes_text(b, recv[r]);
			pt_sb_printf(b, ")\n");
		}
		free(sent);
		free(recv);
		projection(b, u, ip, R);
		pt_sb_printf(b, "  on %d ranks, intermediate arrays held (partitioned where a split kernel writes them):\n", R);
		for (int r = 0; r < R; r++) {
			int64_t held = pt_dist_held(u->dist, u->model, u->kernels, u->storage, ip, r, R);
			pt_sb_printf(b, "    rank %d holds %lld (", r, (long long)held);
			bytes_text(b, held);
			pt_sb_printf(b, ")\n");
		}
	}
}
