/* profconv-mpi: what the ranks send each other (see pc_mpi.h and
 * doc/design.md, "MPI ranks"). A rank's profiles travel as records of
 * their sorted values, stored values and trace bytes; its tables (when
 * they are its own: ovni streams, Callgrind files) as one record of
 * modules, files, functions, metrics, contexts and profiles, which rank
 * 0 merges into its model by the same find-or-create calls the
 * importers use, in rank order: the ids one process reading every
 * profile in order would have given. Large records go in pieces (MPI
 * counts are int). */
#include "pc_mpi.h"
#include "share.h"
#include "buf.h"
#include "internal.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 17
#define PIECE ((size_t)1 << 30)

/* An MPI call failed (another rank gone: killed, or out of memory):
 * this rank's temporary outputs go before the job is aborted, which
 * MPI's default handler does without them (rank 0's output was left
 * half written when another rank was killed while it wrote). */
static void on_mpi_error(MPI_Comm *comm, int *code, ...)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0, r = -1;
	pc_dest_remove_all();
	if (MPI_Error_string(*code, msg, &len) != MPI_SUCCESS)
		len = 0;
	msg[len < (int)sizeof msg ? len : (int)sizeof msg - 1] = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	fprintf(stderr, "profconv-mpi: error: rank %d: MPI: %s (another rank "
		"stopped?); nothing written\n", r, len ? msg : "error");
	MPI_Abort(*comm, 1);
}

void pc_mpi_init(int *argc, char ***argv, unsigned *rank, unsigned *size)
{
	int r = 0, s = 1;
	MPI_Init(argc, argv);
	MPI_Errhandler eh;
	MPI_Comm_create_errhandler(on_mpi_error, &eh);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
	MPI_Errhandler_free(&eh);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &s);
	*rank = (unsigned)r;
	*size = (unsigned)s;
}

void pc_mpi_finalize(void)
{
	MPI_Finalize();
}

/* ---- agreement ---- */

int pc_mpi_agree(int failed, struct pc_err *err)
{
	int size, rank, first;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int mine = failed ? rank : size;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == size)
		return 0;
	MPI_Bcast(err->msg, (int)sizeof err->msg, MPI_CHAR, first,
		  MPI_COMM_WORLD);
	return 1;
}

int pc_mpi_same_inputs(char **inputs, int n, struct pc_err *err)
{
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	uint64_t *mine = pc_xcalloc((size_t)n + 1, sizeof(uint64_t));
	uint64_t *ref = pc_xcalloc((size_t)n + 1, sizeof(uint64_t));
	for (int i = 0; i < n; i++)
		mine[i] = strcmp(inputs[i], "-") ? pc_tree_print(inputs[i]) : 0;
	memcpy(ref, mine, (size_t)n * sizeof(uint64_t));
	MPI_Bcast(ref, n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	int bad = -1;
	for (int i = 0; i < n && bad < 0; i++)
		if (mine[i] != ref[i])
			bad = i;
	if (bad >= 0)
		pc_err_set(err, "%s: the input differs between ranks: rank %d "
			   "sees other files or sizes than rank 0 (a trace "
			   "still being written, or a file system's cached "
			   "attributes); nothing written", inputs[bad], rank);
	free(mine);
	free(ref);
	return pc_mpi_agree(bad >= 0, err);
}

/* ---- the bytes the ranks read ---- */

/* Every rank's record r, on every rank: rank i's from at[i], len[i]
 * bytes (the records are lists of paths and digests). */
static unsigned char *gather_all(const struct rec *r, int size, int *len,
				 int *at)
{
	int mine = (int)r->n;
	MPI_Allgather(&mine, 1, MPI_INT, len, 1, MPI_INT, MPI_COMM_WORLD);
	size_t total = 0;
	for (int i = 0; i < size; i++) {
		at[i] = (int)total;
		total += (size_t)len[i];
	}
	unsigned char *all = pc_xmalloc(total + 1);
	MPI_Allgatherv(r->p, mine, MPI_BYTE, all, len, at, MPI_BYTE,
		       MPI_COMM_WORLD);
	return all;
}

struct seen {
	const char *path;
	uint64_t d;
	int rank;
};

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

/* a path and its digest: length, the bytes with their NUL, digest */
static void put_seen(struct rec *r, const char *path, uint64_t d)
{
	size_t n = strlen(path);
	put32(r, (uint32_t)n);
	memcpy(room(r, n + 1), path, n + 1);
	put64(r, d);
}

/* The records of every rank (from all, len, at) appended to *v. */
static void take_seen(const unsigned char *all, const int *len, const int *at,
		      int size, struct seen **v, size_t *n, size_t *cap)
{
	for (int i = 0; i < size; i++) {
		struct rd d = { all + at[i], all + at[i] + len[i], 0 };
		while (d.p < d.end && !d.bad) {
			uint32_t k = get32(&d);
			const unsigned char *s = take(&d, (size_t)k + 1);
			uint64_t dg = get64(&d);
			if (d.bad || s[k])
				break;
			PC_GROW(*v, *n, *cap);
			(*v)[(*n)++] = (struct seen){ (const char *)s, dg, i };
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int has_path(char **paths, size_t n, const char *p)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(paths[mid], p);
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int pc_mpi_same_bytes(struct pc_err *err)
{
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	size_t n = 0;
	char **paths = pc_reads(&n);
	/* the digests of the files this rank read */
	struct rec r = { 0 };
	int bad = 0;
	for (size_t i = 0; i < n && !bad; i++) {
		uint64_t d = 0;
		bad = pc_file_digest(paths[i], &d, err) != 0;
		put_seen(&r, paths[i], d);
	}
	if (pc_mpi_agree(bad, err)) {
		free(r.p);
		return 1;
	}
	int *len = pc_xcalloc((size_t)size, sizeof(int));
	int *at = pc_xcalloc((size_t)size, sizeof(int));
	unsigned char *all = gather_all(&r, size, len, at);
	/* a file of another rank's share is read by no other: rank 0
	 * digests it too, so that every byte read is the one rank 0 sees
	 * (as its names and sizes are: pc_mpi_same_inputs), where a rank
	 * other than rank 0 read files at all */
	int others = 0;
	for (int i = 1; i < size; i++)
		others |= len[i] > 0;
	struct rec x = { 0 };
	const char **want = NULL; /* their files rank 0 did not read */
	size_t nwant = 0, capwant = 0;
	for (int q = 1; q < size && !rank && others; q++) {
		struct rd d = { all + at[q], all + at[q] + len[q], 0 };
		while (d.p < d.end && !d.bad) {
			uint32_t k = get32(&d);
			const char *s = (const char *)take(&d, (size_t)k + 1);
			(void)get64(&d);
			if (d.bad || s[k] || has_path(paths, n, s))
				continue;
			PC_GROW(want, nwant, capwant);
			want[nwant++] = s;
		}
	}
	if (nwant)
		qsort(want, nwant, sizeof(*want), cmp_str);
	for (size_t i = 0; i < nwant && !bad; i++) {
		if (i && !strcmp(want[i - 1], want[i]))
			continue;
		uint64_t dg = 0;
		struct pc_err e = { 0 };
		if (pc_file_digest(want[i], &dg, &e))
			bad = pc_err_set(err, "the input differs between "
					 "ranks: another rank reads %s, which "
					 "rank 0 cannot (%s); nothing written",
					 want[i], e.msg);
		put_seen(&x, want[i], dg);
	}
	free(want);
	int *xlen = pc_xcalloc((size_t)size, sizeof(int));
	int *xat = pc_xcalloc((size_t)size, sizeof(int));
	unsigned char *xall = gather_all(&x, size, xlen, xat);
	/* every rank's view of each file, by path then rank: the first
	 * file two ranks see otherwise (the same verdict on every rank) */
	struct seen *v = NULL;
	size_t nv = 0, cap = 0;
	take_seen(all, len, at, size, &v, &nv, &cap);
	take_seen(xall, xlen, xat, size, &v, &nv, &cap);
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_seen);
	for (size_t i = 1; i < nv && !bad; i++) {
		size_t g = i - 1; /* the group's first */
		while (g > 0 && !strcmp(v[g - 1].path, v[i].path))
			g--;
		if (strcmp(v[g].path, v[i].path) || v[g].d == v[i].d)
			continue;
		bad = pc_err_set(err, "%s: the input differs between ranks: "
				 "rank %d reads other bytes than rank %d "
				 "under the same name and size (a file still "
				 "being written, or a file system's cached "
				 "data); nothing written", v[i].path,
				 v[i].rank, v[g].rank);
	}
	free(v);
	free(all);
	free(xall);
	free(len);
	free(at);
	free(xlen);
	free(xat);
	free(r.p);
	free(x.p);
	return pc_mpi_agree(bad, err);
}

uint64_t pc_mpi_sum(uint64_t v)
{
	uint64_t s = 0;
	MPI_Allreduce(&v, &s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	return s;
}

void pc_mpi_bcast_rc(int *rc)
{
	MPI_Bcast(rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* ---- records between ranks ---- */

static void send_rec(const struct rec *r, int to)
{
	uint64_t n = r->n;
	MPI_Send(&n, 1, MPI_UINT64_T, to, TAG, MPI_COMM_WORLD);
	for (size_t at = 0; at < r->n; at += PIECE) {
		size_t k = r->n - at < PIECE ? r->n - at : PIECE;
		MPI_Send(r->p + at, (int)k, MPI_BYTE, to, TAG, MPI_COMM_WORLD);
	}
}

static void recv_rec(struct rec *r, int from)
{
	uint64_t n = 0;
	MPI_Recv(&n, 1, MPI_UINT64_T, from, TAG, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	r->n = 0;
	room(r, (size_t)n);
	for (size_t at = 0; at < n; at += PIECE) {
		size_t k = n - at < PIECE ? n - at : PIECE;
		MPI_Recv(r->p + at, (int)k, MPI_BYTE, from, TAG,
			 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

/* A rank's first record: its profile count, context count, whether it
 * has trace samples, and its tables (with_tables). */
static void send_tables(const struct keeper *k, const struct pc_db *db,
			int with_tables)
{
	struct rec t = { 0 };
	put64(&t, k->nprof);
	put64(&t, db ? db->ncontexts : 1);
	put8(&t, (uint8_t)pc_kept_trace(k));
	if (with_tables)
		pc_put_tables(&t, db);
	send_rec(&t, 0);
	free(t.p);
}

int pc_mpi_send(struct pc_sink *s, const struct pc_db *db, int with_tables)
{
	struct keeper *k = (struct keeper *)s;
	send_tables(k, db, with_tables);
	for (size_t i = 0; i < k->nprof; i++) {
		send_rec(&k->prof[i], 0);
		free(k->prof[i].p);
		k->prof[i].p = NULL;
	}
	return 0;
}

/* Rank 0's own kept profiles, handed on first (their ids are g's); the
 * records freed. rc: a failure before (nothing is handed on). */
static int feed_own(struct pc_db *g, struct pc_sink *own, int rc,
		    struct pc_err *err)
{
	struct keeper *k = (struct keeper *)own;
	for (size_t i = 0; k && i < k->nprof; i++) {
		if (!rc)
			rc = pc_feed(g, &k->prof[i], NULL, NULL, err);
		free(k->prof[i].p);
		k->prof[i].p = NULL;
	}
	return rc;
}

/* Rank from's first record r into g: its tables merged (with_tables:
 * its id maps into m), else its context count checked against g's; its
 * profile count in *np, whether it has trace samples in *trace. rc: a
 * failure before (nothing is merged). */
static int take_tables(struct pc_db *g, const struct rec *r, int with_tables,
		       const struct pc_importer *files, unsigned from,
		       struct maps *m,
		       uint64_t *np, int *trace, int rc, struct pc_err *err)
{
	struct rd d = { r->p, r->p + r->n, 0 };
	*np = get64(&d);
	uint64_t nctx = get64(&d);
	*trace = get8(&d);
	if (with_tables) {
		if (!rc && pc_merge_tables(g, &d, m, files))
			rc = pc_err_set(err, "internal: bad tables from rank "
					"%u; please report this bug", from);
	} else if (!rc && nctx != g->ncontexts) {
		rc = pc_err_set(err, "internal: rank %u read %llu contexts, "
				"rank 0 %zu; please report this bug", from,
				(unsigned long long)nctx, g->ncontexts);
	}
	return rc;
}

int pc_mpi_gather(struct pc_db *g, struct pc_sink *own, int with_tables,
		  const struct pc_importer *files, unsigned size,
		  struct pc_err *err)
{
	int rc = feed_own(g, own, 0, err);
	struct rec r = { 0 };
	for (unsigned from = 1; from < size; from++) {
		recv_rec(&r, (int)from);
		struct maps m = { 0 };
		uint64_t np;
		int trace; /* rank 0 writes them all */
		rc = take_tables(g, &r, with_tables, files, from, &m, &np,
				 &trace, rc, err);
		/* every record is received, even after a failure: the
		 * rank waits for it */
		for (uint64_t i = 0; i < np; i++) {
			recv_rec(&r, (int)from);
			if (!rc)
				rc = pc_feed(g, &r, with_tables ? &m : NULL, NULL,
					     err);
		}
		free(m.ctx);
		free(m.metric);
	}
	free(r.p);
	return rc;
}

/* ---- the ranks write their own profiles (v4 output) ---- */

static void bcast_rec(struct rec *r)
{
	uint64_t n = r->n;
	MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (r->n != n) { /* a receiver */
		r->n = 0;
		room(r, (size_t)n);
	}
	for (size_t at = 0; at < n; at += PIECE) {
		size_t k = n - at < PIECE ? n - at : PIECE;
		MPI_Bcast(r->p + at, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD);
	}
}

/* v up to a multiple of a (a power of 2; 0 or 1: v) */
static uint64_t align_up(uint64_t v, unsigned a)
{
	return a > 1 ? (v + a - 1) & ~(uint64_t)(a - 1) : v;
}

/* A part's record for rank 0: whether it failed; the counts of its
 * values and stored values, the sample count of each of its profiles
 * p0.. (np), then what the output's part wrote (out). */
static void put_part(struct rec *r, int failed, const struct pc_db *g,
		     pc_id p0, size_t np, uint64_t nv, uint64_t nsv,
		     const struct rec *out)
{
	put8(r, (uint8_t)failed);
	if (failed)
		return;
	put64(r, nv);
	put64(r, nsv);
	put64(r, np);
	for (size_t i = 0; i < np; i++)
		put64(r, g->traces[p0 + i].n);
	memcpy(room(r, out->n), out->p, out->n);
}

int pc_mpi_part(struct pc_sink *s, struct pc_db *db, int with_tables,
		const struct pc_parts *parts, struct pc_err *err)
{
	struct keeper *k = (struct keeper *)s;
	send_tables(k, db, with_tables);
	struct maps m = { 0 };
	struct rec r = { 0 };
	if (with_tables) { /* rank 0's ids for this rank's */
		recv_rec(&r, 0);
		struct rd d = { r.p, r.p + r.n, 0 };
		m.prof0 = get32(&d);
		m.nctx = (size_t)get64(&d);
		m.ctx = pc_xmalloc((m.nctx + 1) * sizeof(pc_id));
		for (size_t i = 0; i < m.nctx && !d.bad; i++)
			m.ctx[i] = get32(&d);
		m.nmetric = (size_t)get64(&d);
		m.metric = pc_xmalloc((m.nmetric + 1) * sizeof(pc_id));
		for (size_t i = 0; i < m.nmetric && !d.bad; i++)
			m.metric[i] = get32(&d);
	}
	int rc = -1;
	struct pc_db *g = NULL;
	struct pc_sink *ps = NULL;
	if (pc_mpi_agree(0, err)) /* rank 0 could not take them */
		goto out;
	bcast_rec(&r);
	struct rd d = { r.p, r.p + r.n, 0 };
	g = pc_get_model(&d, db, with_tables);
	const struct maps *pm = with_tables ? &m : NULL;
	/* its profiles into the output's part (a spool), their sizes to
	 * rank 0 */
	int bad = 0;
	uint64_t nv0 = g ? g->flushed_values : 0, ns0 = g ? g->flushed_scoped : 0;
	pc_id p0 = k->nprof ? (pc_id)pc_getle(k->prof[0].p, 4) +
				      (pm ? pm->prof0 : 0) : 0;
	size_t np = k->nprof;
	if (!g) {
		bad = pc_err_set(err, "internal: a bad lead record from rank "
				 "0; please report this bug");
	} else {
		ps = parts->part(&d, g, p0, err);
		bad = !ps || pc_replay(g, k, pm, ps, err);
	}
	uint64_t size[2] = { 0, 0 }, base[2] = { 0, 0 };
	if (!bad)
		parts->sizes(ps, size);
	if (pc_mpi_agree(bad, err))
		goto out;
	MPI_Gather(size, 2, MPI_UINT64_T, NULL, 2, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	MPI_Scatter(NULL, 2, MPI_UINT64_T, base, 2, MPI_UINT64_T, 0,
		    MPI_COMM_WORLD);
	/* then in place */
	struct rec wrote = { 0 }, o = { 0 };
	bad = parts->place(ps, base, &wrote, err);
	put_part(&o, bad, g, p0, np, g->flushed_values - nv0,
		 g->flushed_scoped - ns0, &wrote);
	send_rec(&o, 0);
	free(o.p);
	free(wrote.p);
	rc = pc_mpi_agree(bad, err) ? -1 : 0;
out:
	if (ps)
		parts->free(ps);
	if (g != db)
		pc_db_free(g);
	free(m.ctx);
	free(m.metric);
	free(r.p);
	return rc;
}

int pc_mpi_lead(struct pc_db *g, struct pc_sink *own, struct pc_sink *writer,
		int with_tables, const struct pc_importer *files, unsigned size,
		const struct pc_parts *parts, struct pc_err *err)
{
	int rc = feed_own(g, own, writer ? 0 : -1, err);
	/* every rank's tables, merged in rank order; each rank gets back
	 * the ids they have in g */
	int trace = pc_samples_total(g) > 0;
	struct rec r = { 0 };
	double merging = 0, t0 = MPI_Wtime();
	for (unsigned from = 1; from < size; from++) {
		recv_rec(&r, (int)from);
		double t1 = MPI_Wtime();
		struct maps m = { 0 };
		uint64_t np;
		int has;
		rc = take_tables(g, &r, with_tables, files, from, &m, &np,
				 &has, rc, err);
		trace |= has;
		if (with_tables) {
			struct rec o = { 0 };
			put32(&o, m.prof0);
			put64(&o, m.nctx);
			for (size_t i = 0; i < m.nctx; i++)
				put32(&o, m.ctx[i]);
			put64(&o, m.nmetric);
			for (size_t i = 0; i < m.nmetric; i++)
				put32(&o, m.metric[i]);
			send_rec(&o, (int)from);
			free(o.p);
		}
		free(m.ctx);
		free(m.metric);
		merging += MPI_Wtime() - t1;
	}
	double waiting = MPI_Wtime() - t0 - merging;
	/* the lead: the model parts write with, then the output's */
	uint64_t end[2] = { 0, 0 };
	r.n = 0;
	pc_put_model(&r, g, with_tables);
	if (!rc)
		rc = parts->lead(writer, g, trace, &r, end, err);
	if (pc_mpi_agree(rc != 0, err))
		goto out;
	bcast_rec(&r);
	/* where each part goes: the ranks' sizes in turn, each part's
	 * profile.db bytes from a multiple of 8 (as every block starts) */
	uint64_t *size2 = pc_xcalloc(2 * (size_t)size, sizeof(uint64_t));
	uint64_t *base = pc_xcalloc(2 * (size_t)size, sizeof(uint64_t));
	uint64_t none[2] = { 0, 0 }, mine[2];
	if (pc_mpi_agree(0, err)) {
		rc = -1;
		goto out2;
	}
	MPI_Gather(none, 2, MPI_UINT64_T, size2, 2, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	uint64_t at[2];
	for (int k = 0; k < 2; k++)
		at[k] = align_up(end[k], parts->align[k]);
	for (unsigned i = 1; i < size; i++)
		for (int k = 0; k < 2; k++) {
			base[2 * i + k] = at[k];
			at[k] += align_up(size2[2 * i + k], parts->align[k]);
		}
	MPI_Scatter(base, 2, MPI_UINT64_T, mine, 2, MPI_UINT64_T, 0,
		    MPI_COMM_WORLD);
	/* what each wrote, in profile order (none after a rank that
	 * failed: its own message says why) */
	int bad = 0, failed = 0;
	pc_id next = (pc_id)g->nflushed;
	uint64_t pbytes = 0, tbytes = 0;
	for (unsigned from = 1; from < size; from++) {
		recv_rec(&r, (int)from);
		struct rd d = { r.p, r.p + r.n, 0 };
		failed |= get8(&d);
		if (failed || bad)
			continue;
		uint64_t nv = get64(&d), nsv = get64(&d), np = get64(&d);
		uint64_t *ns = pc_xcalloc(np < r.n ? np + 1 : 1, sizeof(*ns));
		for (size_t i = 0; i < np && np < r.n; i++)
			ns[i] = get64(&d);
		uint64_t wend[2] = { base[2 * from], base[2 * from + 1] };
		size_t took = 0;
		if (d.bad || np >= r.n)
			bad = pc_err_set(err, "internal: a bad part record "
					 "from rank %u; please report this "
					 "bug", from);
		else
			bad = parts->add(writer, &d, next, &took, wend, err);
		if (!bad && (took != np || next + np > g->nprofiles))
			bad = pc_err_set(err, "internal: rank %u wrote %zu "
					 "profiles, %llu sent; please report "
					 "this bug", from, took,
					 (unsigned long long)np);
		if (!bad) {
			g->flushed_values += nv;
			g->flushed_scoped += nsv;
			for (size_t i = 0; i < np; i++)
				g->traces[next + i].n = (size_t)ns[i];
			pbytes += wend[0] - base[2 * from];
			tbytes += wend[1] - base[2 * from + 1];
			next += (pc_id)np;
		}
		free(ns);
	}
	if (pc_mpi_agree(bad, err) || failed) {
		rc = -1;
	} else {
		const struct pc_diag *dg = g->diag;
		if (dg && dg->verbose && !dg->quiet)
			fprintf(stderr, "profconv: ranks 1 to %u: their tables "
				"merged in %.3f s (%.2f s waiting for them); "
				"they wrote %llu profiles: %llu bytes of "
				"profile.db, %llu of trace.db\n", size - 1,
				merging, waiting,
				(unsigned long long)(next - g->nflushed),
				(unsigned long long)pbytes,
				(unsigned long long)tbytes);
		g->nflushed = next;
	}
out2:
	free(size2);
	free(base);
out:
	free(r.p);
	return rc;
}
