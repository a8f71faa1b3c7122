/* mpi.c: the MPI part of libpolytile_rt (pt_runtime.h says what each
 * call does), built only with Open MPI.
 *
 * Every collective a run makes is one MPI_Allgather of a fixed-size
 * record (a status, two boxes, a message), so that a rank that fails
 * early and calls pt_mpi_abandon meets the others in whichever
 * collective they are at: they read its status there, stop
 * communicating for the rest of the run (a sticky failure) and return
 * its code.  Point-to-point transfers follow a collective in which every
 * rank learnt every box, so each side knows exactly what to send and
 * receive; they are non-blocking and completed together, in any order,
 * without deadlock. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "pt_mpi_grid.h"
#include "pt_runtime.h"

#define BOX (2 * PT_MAX_DIMS)

typedef struct rec {
	int64_t code;
	int64_t need[BOX], own[BOX];
	char msg[240];
} rec;

static MPI_Comm comm = MPI_COMM_NULL;
static int me, nranks = 1;
static bool started;        /* MPI_Init was ours */
/* this run's failure, once known: no more collectives until the next */
static int32_t sticky;
static int sticky_rank = -1;
static char sticky_msg[300];
static int last_failed = -1;
static int64_t sent_bytes, received_bytes;
/* intermediate buffers allocated since the last run began (pt_mpi_alloc,
 * before pt_mpi_begin), and those of the last run */
static int64_t pending_held, held_bytes;
static rec *all;            /* one record per rank */

int pt_mpi_init(void)
{
	if (comm != MPI_COMM_NULL)
		return PT_OK;
	int on = 0;
	MPI_Initialized(&on);
	if (!on) {
		int got;
		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &got) != MPI_SUCCESS)
			return PT_ERR_DEVICE;
		started = true;
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &nranks);
	all = calloc((size_t)nranks, sizeof(*all));
	return all ? PT_OK : PT_ERR_NOMEM;
}

void pt_mpi_finalize(void)
{
	if (comm != MPI_COMM_NULL)
		MPI_Comm_free(&comm);
	free(all);
	all = NULL;
	int done = 0;
	MPI_Finalized(&done);
	if (started && !done)
		MPI_Finalize();
	started = false;
}

int pt_mpi_rank(void)
{
	return pt_mpi_init() ? 0 : me;
}

int pt_mpi_size(void)
{
	return pt_mpi_init() ? 1 : nranks;
}

void pt_mpi_bytes(int64_t *sent, int64_t *received, int reset)
{
	if (sent)
		*sent = sent_bytes;
	if (received)
		*received = received_bytes;
	if (reset)
		sent_bytes = received_bytes = 0;
}

void pt_mpi_bytes_all(int64_t *sent, int64_t *received)
{
	int64_t mine[2] = { sent_bytes, received_bytes };
	int64_t *all2 = pt_mpi_init() ? NULL : malloc(sizeof(int64_t) * 2 * (size_t)nranks);
	if (!all2) {
		sent[0] = mine[0];
		received[0] = mine[1];
		return;
	}
	MPI_Allgather(mine, 2, MPI_INT64_T, all2, 2, MPI_INT64_T, comm);
	for (int r = 0; r < nranks; r++) {
		sent[r] = all2[2 * r];
		received[r] = all2[2 * r + 1];
	}
	free(all2);
}

int pt_mpi_failed_rank(void)
{
	return last_failed;
}

/* MPI_Allgather of bytes from each rank that, past a short spin, sleeps
 * between its tests, an eighth of the time waited so far (10 us to
 * 1 ms: a run's collectives, where ranks arrive close together, wait at
 * most an eighth longer than they must).  Open MPI's blocking
 * collectives spin: ranks waiting there while another compiles (rank 0
 * compiles first, then the others read the compile cache) would take the
 * cores from it when ranks outnumber cores, and a compile of local
 * Laplacian on 4 ranks of 2 cores took 2.5x as long. */
static void patient_allgather(const void *in, void *out, int bytes)
{
	MPI_Request req;
	if (MPI_Iallgather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, comm, &req) != MPI_SUCCESS) {
		MPI_Allgather(in, bytes, MPI_BYTE, out, bytes, MPI_BYTE, comm);
		return;
	}
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int i = 0;; i++) {
		int done = 0;
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		if (i < 2000)
			continue;   /* ranks at the same point meet here, unslept */
		clock_gettime(CLOCK_MONOTONIC, &now);
		long waited = (long)(now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
		long ns = waited / 8 < 10000 ? 10000 : waited / 8 > 1000000 ? 1000000 : waited / 8;
		struct timespec t = { 0, ns };
		nanosleep(&t, NULL);
	}
}

/* Everyone's record; false when a rank failed (the run's failure is then
 * sticky). */
static bool gather_records(rec *mine)
{
	if (sticky)
		return false;
	patient_allgather(mine, all, (int)sizeof(rec));
	for (int r = 0; r < nranks; r++)
		if (all[r].code) {
			sticky = (int32_t)all[r].code;
			sticky_rank = r;
			all[r].msg[sizeof(all[r].msg) - 1] = 0;
			snprintf(sticky_msg, sizeof(sticky_msg), "rank %d: %s", r,
				all[r].msg[0] ? all[r].msg : pt_error_name(sticky));
			return false;
		}
	return true;
}

void *pt_mpi_alloc(int64_t bytes)
{
	void *p = pt_rt_alloc(bytes);
	if (p)
		pending_held += bytes;
	return p;
}

void pt_mpi_held_all(int64_t *held)
{
	int64_t *all2 = pt_mpi_init() ? NULL : malloc(sizeof(int64_t) * (size_t)nranks);
	if (!all2) {
		held[0] = held_bytes;
		return;
	}
	MPI_Allgather(&held_bytes, 1, MPI_INT64_T, all2, 1, MPI_INT64_T, comm);
	memcpy(held, all2, sizeof(int64_t) * (size_t)nranks);
	free(all2);
}

void pt_mpi_begin(void)
{
	held_bytes = pending_held;
	pending_held = 0;
	if (pt_mpi_init())
		return;
	sticky = 0;
	sticky_rank = -1;
}

void pt_mpi_abandon(int32_t code)
{
	pending_held = 0;
	if (pt_mpi_init())
		return;
	rec mine = { .code = code };
	snprintf(mine.msg, sizeof(mine.msg), "%s", pt_error_name(code));
	gather_records(&mine);
	last_failed = sticky_rank;
	sticky = 0;
}

int32_t pt_mpi_agree(int32_t status, int *rank)
{
	*rank = -1;
	if (pt_mpi_init())
		return status;
	sticky = 0;
	rec mine = { .code = status };
	if (!gather_records(&mine))
		*rank = sticky_rank;
	int32_t code = sticky;
	sticky = 0;
	return code;
}

void pt_mpi_slice_of(int64_t first, int64_t last, int32_t r, int32_t R, int64_t *lo, int64_t *hi)
{
	int64_t n = last >= first ? last - first + 1 : 0;
	if (R < 1 || r < 0 || r >= R) {
		*lo = first;
		*hi = first - 1;
		return;
	}
	/* balanced: parts differ by one at most; n * R fits i64 for any
	 * extent an array can have */
	*lo = first + n * r / R;
	*hi = first + n * (r + 1) / R - 1;
}

void pt_mpi_slice2_of(int64_t first, int64_t last, int64_t first2, int64_t last2, int32_t r, int32_t R,
	int64_t *part)
{
	int32_t P, Q;
	pt_mpi_grid_shape(R, &P, &Q);
	bool in = R >= 1 && r >= 0 && r < R;
	pt_mpi_slice_of(first, last, in ? r / Q : -1, P, &part[0], &part[1]);
	pt_mpi_slice_of(first2, last2, in ? r % Q : -1, Q, &part[2], &part[3]);
}

void pt_mpi_slice(int64_t first, int64_t last, int64_t *lo, int64_t *hi)
{
	pt_mpi_slice_of(first, last, pt_mpi_rank(), pt_mpi_size(), lo, hi);
}

/* a ∩ b into c; false when empty. */
static bool meet(int ndim, const int64_t *a, const int64_t *b, int64_t *c)
{
	for (int d = 0; d < ndim; d++) {
		c[2 * d] = a[2 * d] > b[2 * d] ? a[2 * d] : b[2 * d];
		c[2 * d + 1] = a[2 * d + 1] < b[2 * d + 1] ? a[2 * d + 1] : b[2 * d + 1];
		if (c[2 * d] > c[2 * d + 1])
			return false;
	}
	return true;
}

static int64_t box_count(int ndim, const int64_t *b)
{
	int64_t n = 1;
	for (int d = 0; d < ndim; d++)
		n *= b[2 * d + 1] - b[2 * d] + 1;
	return n;
}

typedef struct array {
	char *data;
	int32_t esize, ndim;
	const int64_t *origin, *stride;
} array;

/* Copies box b of a to (out) or from (!out) the dense buffer buf. */
static void copy_box(const array *a, const int64_t *b, char *buf, bool out)
{
	/* buf: the box's elements packed, its first point at its origin */
	int n = a->ndim;
	int64_t lo[PT_MAX_DIMS], stride[PT_MAX_DIMS];
	for (int d = n - 1; d >= 0; d--) {
		lo[d] = b[2 * d];
		stride[d] = d == n - 1 ? 1 : stride[d + 1] * (b[2 * d + 3] - b[2 * d + 2] + 1);
	}
	if (out)
		pt_copy_box(buf, lo, stride, a->data, a->origin, a->stride, n, a->esize, b);
	else
		pt_copy_box(a->data, a->origin, a->stride, buf, lo, stride, n, a->esize, b);
}

/* Box b's elements in a when they are one contiguous range (the last
 * dim dense, every dim after some k whole, those before it one value):
 * a rank's rows of an image, sent and received in place; else NULL. */
static char *contiguous(const array *a, const int64_t *b)
{
	int n = a->ndim, d = n - 1;
	if (n == 0 || a->stride[n - 1] != 1)
		return NULL;
	while (d > 0 && (b[2 * d + 1] - b[2 * d] + 1) * a->stride[d] == a->stride[d - 1])
		d--;
	for (int e = 0; e < d; e++)
		if (b[2 * e] != b[2 * e + 1])
			return NULL;
	int64_t off = 0;
	for (int e = 0; e < n; e++)
		off += (b[2 * e] - a->origin[e]) * a->stride[e];
	return a->data + off * a->esize;
}

typedef struct transfer {
	int peer;
	int64_t box[BOX];
	char *buf;
	bool in_place;              /* buf is the array's own memory */
	int64_t n;
} transfer;

/* Messages of at most this many bytes, so that no part is limited by
 * MPI's int counts (2 GiB). */
#define CHUNK ((int64_t)1 << 23)

static int64_t chunks(int64_t bytes)
{
	return (bytes + CHUNK - 1) / CHUNK;
}

/* Posts the sends and receives of tr[0 .. nt) (send[i]: a send) in
 * chunks, waits for all of them and unpacks what came.  A box that is
 * one contiguous range of its array moves in place; others are packed.
 * False, with the failure recorded, when memory runs out. */
static bool transfer_all(const array *a, transfer *tr, const bool *send, int nt)
{
	int64_t nchunks = 0;
	for (int i = 0; i < nt; i++)
		nchunks += chunks(tr[i].n * a->esize);
	MPI_Request *req = calloc((size_t)nchunks + 1, sizeof(*req));
	bool ok = req != NULL;
	int nreq = 0;
	for (int i = 0; i < nt && ok; i++) {
		int64_t bytes = tr[i].n * a->esize;
		char *at = contiguous(a, tr[i].box);
		tr[i].in_place = at != NULL;
		/* pack buffers from the runtime's block cache: the next run finds
		 * them mapped (harris's 82 MB gather on 2 ranks took 100 ms with
		 * a fresh malloc, most of it page faults) */
		tr[i].buf = at ? at : pt_rt_alloc(bytes);
		if (!tr[i].buf) {
			ok = false;
			break;
		}
		if (send[i] && !at)
			copy_box(a, tr[i].box, tr[i].buf, true);
		/* chunks of one pair and tag arrive in the order posted */
		for (int64_t off = 0; off < bytes; off += CHUNK) {
			int len = (int)(bytes - off < CHUNK ? bytes - off : CHUNK);
			if (send[i])
				MPI_Isend(tr[i].buf + off, len, MPI_BYTE, tr[i].peer, 0, comm, &req[nreq++]);
			else
				MPI_Irecv(tr[i].buf + off, len, MPI_BYTE, tr[i].peer, 0, comm, &req[nreq++]);
		}
		if (send[i])
			sent_bytes += bytes;
		else
			received_bytes += bytes;
	}
	/* what was posted completes even after a failure: no message is
	 * left half-sent to a rank that waits for it */
	MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
	for (int i = 0; i < nt; i++) {
		if (tr[i].in_place)
			continue;
		if (ok && !send[i])
			copy_box(a, tr[i].box, tr[i].buf, false);
		pt_rt_free(tr[i].buf);
	}
	free(req);
	if (!ok)
		pt_rt_fail_at(PT_ERR_NOMEM, "out of memory for an MPI transfer", 0, NULL);
	return ok;
}

/* Adds a transfer with peer of a ∩ b (send: ours to it) when it is not
 * empty. */
static void add_transfer(transfer *tr, bool *send, int *nt, int peer, int ndim, const int64_t *a, const int64_t *b,
	bool to_peer)
{
	if (!meet(ndim, a, b, tr[*nt].box))
		return;
	tr[*nt].peer = peer;
	tr[*nt].n = box_count(ndim, tr[*nt].box);
	send[(*nt)++] = to_peer;
}

/* Runs the planned transfers (none when the plan could not be made) and
 * frees the plan. */
static void run_transfers(const array *a, transfer *tr, bool *send, int nt)
{
	if (!tr || !send)
		pt_rt_fail(PT_ERR_NOMEM);
	else
		transfer_all(a, tr, send, nt);
	free(tr);
	free(send);
}

void pt_mpi_exchange(void *data, int32_t esize, int32_t ndim, const int64_t *origin, const int64_t *stride,
	const int64_t *need, const int64_t *own)
{
	rec mine = {0};
	memcpy(mine.need, need, sizeof(int64_t) * 2 * (size_t)ndim);
	memcpy(mine.own, own, sizeof(int64_t) * 2 * (size_t)ndim);
	if (!gather_records(&mine))
		return;
	array a = { data, esize, ndim, origin, stride };
	transfer *tr = calloc(2 * (size_t)nranks, sizeof(*tr));
	bool *send = calloc(2 * (size_t)nranks, sizeof(bool));
	int nt = 0;
	for (int q = 0; q < nranks && tr && send; q++) {
		if (q == me)
			continue;
		/* what q needs of mine, and what I need of q's */
		add_transfer(tr, send, &nt, q, ndim, own, all[q].need, true);
		add_transfer(tr, send, &nt, q, ndim, need, all[q].own, false);
	}
	run_transfers(&a, tr, send, nt);
}

void pt_mpi_gather(void *data, int32_t esize, int32_t ndim, const int64_t *origin, const int64_t *stride,
	const int64_t *own)
{
	rec mine = {0};
	memcpy(mine.own, own, sizeof(int64_t) * 2 * (size_t)ndim);
	if (!gather_records(&mine))
		return;

	array a = { data, esize, ndim, origin, stride };
	transfer *tr = calloc((size_t)nranks, sizeof(*tr));
	bool *send = calloc((size_t)nranks, sizeof(bool));
	int nt = 0;
	for (int q = 0; q < nranks && tr && send; q++) {
		bool mine_to_0 = me != 0 && q == 0, theirs = me == 0 && q != 0;
		const int64_t *box = mine_to_0 ? own : all[q].own;
		if (mine_to_0 || theirs)
			add_transfer(tr, send, &nt, q, ndim, box, box, mine_to_0);
	}
	run_transfers(&a, tr, send, nt);
}

int32_t pt_mpi_finish(void)
{
	int32_t code = pt_rt_take_error();
	if (!sticky) {
		rec mine = { .code = code };
		snprintf(mine.msg, sizeof(mine.msg), "%s", code ? pt_rt_error_detail() : "");
		if (code && !mine.msg[0])
			snprintf(mine.msg, sizeof(mine.msg), "%s", pt_error_name(code));
		gather_records(&mine);
	}
	last_failed = sticky_rank;
	code = sticky;
	if (code)
		pt_rt_fail_at(code, sticky_msg, 0, NULL);
	sticky = 0;
	sticky_rank = -1;
	return code;
}

double pt_mpi_pingpong(int64_t bytes, int reps)
{
	if (comm == MPI_COMM_NULL || nranks < 2 || bytes < 0 || bytes > INT_MAX || reps < 1)
		return -1;
	char *buf = calloc((size_t)bytes + 1, 1);
	int ok = buf != NULL, all_ok = 0;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
	if (!all_ok) {
		free(buf);
		return -1;
	}
	double t = 0;
	for (int i = -1; i < reps; i++) {   /* one round untimed: the connection set up */
		MPI_Barrier(comm);
		double t0 = MPI_Wtime();
		if (me == 0) {
			MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 7, comm);
			MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 7, comm, MPI_STATUS_IGNORE);
		} else if (me == 1) {
			MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
			MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 7, comm);
		}
		if (i >= 0)
			t += MPI_Wtime() - t0;
	}
	free(buf);
	MPI_Bcast(&t, 1, MPI_DOUBLE, 0, comm);
	return t / reps / 2;
}

void pt_mpi_bcast(void *data, int32_t bytes)
{
	if (!pt_mpi_init() && bytes > 0)
		MPI_Bcast(data, bytes, MPI_BYTE, 0, comm);
}

double pt_mpi_wtime(void)
{
	return MPI_Wtime();
}
