/* Reading apart: a conversion whose profiles are read in shares, by
 * readers on threads (-j) or by profconv-mpi's ranks, and brought
 * together in reading order (doc/design.md, "ovni streams on threads"
 * and "MPI ranks"). */
#include "main.h"
#include "share.h"
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef PC_MPI
#include "pc_mpi.h"

int mpi_follow(struct opts *o, char **inputs, int n)
{
	struct pc_err err = { 0 };
	struct pc_sink *keeper = pc_keeper();
	struct stream st = { NULL, o->out, &o->exp, keeper };
	o->diag.progress = 0;
	pc_reads_start();
	struct pc_db *db = load(o, inputs, n, NULL, &st, &err);
	/* the profiles this rank read: its share (handed on as they were
	 * read); with tables of its own, those still in its model too;
	 * an input read whole by rank 0 alone: none */
	int tables = !(n == 1 && o->mpi_tree && db && db->shared);
	int mine = db && (n > 1 || db->shared);
	if (mine && tables)
		pc_keep_rest(keeper, db);
	else if (!mine) { /* rank 0 reads this input alone */
		pc_keeper_free(keeper);
		keeper = pc_keeper();
	}
	int rc = 1;
	/* (then whether the ranks read the same bytes: rank 0 says) */
	if (!pc_mpi_agree(!db, &err) && !pc_mpi_same_bytes(&err)) {
		pc_mpi_sum(pc_kept(keeper));
		if (o->mpi_parts)
			pc_mpi_part(keeper, mine ? db : NULL, tables,
				    o->mpi_parts, &err);
		else
			pc_mpi_send(keeper, mine ? db : NULL, tables);
		rc = 0;
	}
	pc_mpi_bcast_rc(&rc);
	pc_keeper_free(keeper);
	pc_db_free(db);
	return rc;
}

/* Rank 0 reads its share (the first profiles) into the output as one
 * process would, then every other rank's in rank order. The model, or
 * NULL with err set (the first error in reading order, whichever rank
 * met it). */
struct pc_db *mpi_lead(struct opts *o, char **inputs, int n, struct stream *st,
		       struct pc_err *err)
{
	struct timespec t0, t1, t2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pc_reads_start();
	struct pc_db *g = load(o, inputs, n, NULL, st, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	o->mpi_read = seconds(&t0, &t1);
	int tables = !(n == 1 && o->mpi_tree && g && g->shared);
	struct pc_sink *own = NULL;
	/* every file read, with the same bytes on each rank that read it:
	 * else nothing is written (what was streamed goes) */
	if (pc_mpi_agree(!g, err) || pc_mpi_same_bytes(err)) {
		pc_db_free(g);
		return NULL;
	}
	uint64_t total = pc_mpi_sum(0);
	/* the output's writer, if reading did not begin it (several
	 * inputs, or an importer that does not stream) */
	if (!st->sink && st->ex->begin &&
	    (!st->ex->stream_ok || st->ex->stream_ok(st->opts))) {
		st->sink = st->ex->begin(st->out, st->opts, err);
		if (!st->sink) {
			if (o->mpi_parts)
				pc_mpi_lead(g, NULL, NULL, tables, o->mpi_files,
					    o->mpi_size, o->mpi_parts, err);
			else
				pc_mpi_gather(g, NULL, tables, o->mpi_files,
					      o->mpi_size, err);
			pc_db_free(g);
			return NULL;
		}
		g->sink = st->sink;
	}
	/* profiles rank 0 read that are not handed on yet: before the
	 * other ranks' */
	if (tables && g->sink) {
		own = pc_keeper();
		pc_keep_rest(own, g);
	}
	if (tables && g->nplanned < g->nflushed + pc_kept(own) + total)
		g->nplanned = g->nflushed + pc_kept(own) + total;
	int rc = o->mpi_parts ?
		pc_mpi_lead(g, own, st->sink, tables, o->mpi_files,
			    o->mpi_size, o->mpi_parts, err) :
		pc_mpi_gather(g, own, tables, o->mpi_files, o->mpi_size, err);
	pc_keeper_free(own);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	o->mpi_recv = seconds(&t1, &t2);
	if (!rc && load_none(g))
		rc = load_refuse(o, inputs, n, err);
	if (rc) {
		pc_db_free(g);
		return NULL;
	}
	pc_values_finish(g);
	return g;
}
#endif

/* ---- readers on threads (-j) ---- */

/* A reader of a share, other than the first: its own options (its
 * share, and a diag that holds its messages), its model and its kept
 * profiles. */
struct reader {
	struct opts o;
	char **inputs;
	int n;
	struct pc_sink *keeper;
	struct pc_db *db;
	struct pc_err err;
	pthread_t th;
	int started;
};

static void *read_share(void *arg)
{
	struct reader *r = arg;
	struct stream st = { NULL, r->o.out, &r->o.exp, r->keeper };
	r->db = load(&r->o, r->inputs, r->n, NULL, &st, &r->err);
	if (r->db)
		pc_keep_rest(r->keeper, r->db);
	return NULL;
}

unsigned apart_readers(const struct opts *o, char **inputs, int n,
		       const struct pc_importer **im)
{
	if (o->jobs < 2 || o->mpi_size > 1)
		return 0;
	int files = n > 1;
	const struct pc_importer *first = NULL;
	for (int i = 0; i < n; i++) {
		struct stat st;
		struct pc_err e;
		/* (a pipe is not probed: load says why it cannot be) */
		if (!strcmp(inputs[i], "-") || stat(inputs[i], &st) ||
		    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			return 0;
		*im = detect(inputs[i], o->from, &e);
		if (!*im)
			return 0;
		/* one input whose importer shares out its profiles and
		 * makes its tree as it reads them (ovni) */
		if (n == 1)
			return (*im)->streams && !(*im)->tree_first ? o->jobs : 0;
		/* or several files of one run (a file per thread) of an
		 * importer that reads them apart, shared out whole, as
		 * profconv-mpi's ranks do */
		files &= (*im)->files_apart && (!first || *im == first);
		first = *im;
	}
	if (!files)
		return 0;
	/* more readers than cores where that evens out the cores' work
	 * (three files on two cores: three readers, a file and a half a
	 * core, not two files on one): the fewest whose largest share is
	 * no more than a core's part of the files (at most twice the cores) */
	unsigned nr = o->jobs < (unsigned)n ? o->jobs : (unsigned)n;
	while (nr < (unsigned)n && (n + nr - 1) / nr * o->jobs > (unsigned)n)
		nr++;
	return nr;
}

void spool_dir(const char *out, char *dir, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	if (!strcmp(out, "-")) {
		snprintf(dir, n, "%s", tmp && *tmp ? tmp : "/tmp");
		return;
	}
	snprintf(dir, n, "%s", out);
	char *slash = strrchr(dir, '/');
	while (slash && slash > dir && !slash[1]) { /* "out/" */
		*slash = 0;
		slash = strrchr(dir, '/');
	}
	if (!slash)
		snprintf(dir, n, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
}

/* Whether a failure is one of room: the disk that the readers'
 * temporary files share with the output is full. */
static int no_room(const struct pc_err *err)
{
	return strstr(err->msg, strerror(ENOSPC)) ||
	       strstr(err->msg, strerror(EDQUOT));
}

/* The readers ran out of room for their temporary files (a full disk, a
 * file-size limit), or the output did beside them: the output begun is
 * removed and the inputs are read again by one reader, as at -j1, which
 * needs no such files; what was said already is not said again (the
 * messages of -j1 are those of -jN, in the same order). */
static struct pc_db *again(struct opts *o, char **inputs, int n,
			   struct stream *st, struct pc_err *err,
			   unsigned said0, unsigned nwarn0, uint8_t *once0)
{
	if (st->sink) {
		st->ex->abort(st->sink);
		st->sink = NULL;
	}
	unsigned skip = o->diag.said - said0;
	free(o->diag.once);
	o->diag.once = once0;
	o->diag.nwarn = nwarn0;
	pc_dest_err_names(err);
	pc_warn(&o->diag, "%s; reading again with one reader, which needs no "
		"temporary files", err->msg);
	o->diag.skip = skip;
	*err = (struct pc_err){ 0 };
	return load(o, inputs, n, NULL, st, err);
}

struct pc_db *load_apart(struct opts *o, char **inputs, int n, unsigned nr,
			 const struct pc_importer *im, struct stream *st,
			 struct pc_err *err)
{
	char dir[4096];
	spool_dir(o->out, dir, sizeof dir);
	/* what was said before, for a run again (again()) */
	unsigned said0 = o->diag.said, nwarn0 = o->diag.nwarn;
	uint8_t *once0 = NULL;
	if (o->diag.once) {
		once0 = pc_xmalloc(1u << 21);
		memcpy(once0, o->diag.once, 1u << 21);
	}
	int room = 0; /* a reader's temporary file could not be written */
	/* the threads an importer may start itself, shared out (a
	 * Callgrind file's rounding) */
	unsigned jobs = o->jobs / nr ? o->jobs / nr : 1, jobs0 = o->imp.jobs;
	struct reader *rd = pc_xcalloc(nr, sizeof(*rd));
	int rc = 0;
	int stop = 0; /* the readers' (pc_import_opts.stop) */
	for (unsigned i = 1; i < nr && !rc; i++) {
		struct reader *r = &rd[i];
		r->o = *o;
		r->o.mpi_rank = i;
		r->o.mpi_size = nr;
		r->o.diag = (struct pc_diag){ .max_print = o->diag.max_print,
					      .quiet = o->diag.quiet,
					      .holding = 1 };
		r->o.imp.stop = &stop;
		r->o.imp.jobs = jobs;
		r->inputs = inputs;
		r->n = n;
		r->keeper = pc_keeper_spool(dir, err);
		rc = !r->keeper;
		room |= rc;
		/* a reader whose thread cannot start reads after the first */
		r->started = !rc && !pthread_create(&r->th, NULL, read_share, r);
	}
	/* the first share, on this thread, straight into the output */
	o->mpi_rank = 0;
	o->mpi_size = nr;
	o->imp.jobs = jobs;
	struct pc_db *g = !rc ? load(o, inputs, n, NULL, st, err) : NULL;
	/* files read apart: functions found from one file to the next as
	 * their importer finds them */
	const struct pc_importer *files = o->mpi_files;
	o->mpi_size = 1;
	o->mpi_files = NULL;
	o->imp.jobs = jobs0;
	rc = !g;
	struct timespec t0, t1, t2;
	double waited = 0, took = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* then each other share in order: its messages said, its tables
	 * merged, its profiles handed on; after a failure the readers still
	 * reading stop at their next profile */
	for (unsigned i = 1; i < nr; i++) {
		struct reader *r = &rd[i];
		if (rc)
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
		if (r->started)
			pthread_join(r->th, NULL);
		else if (r->keeper && !rc)
			read_share(r);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!rc) {
			pc_diag_release(&o->diag, &r->o.diag);
			if (!r->db) {
				*err = r->err;
				rc = -1;
			} else {
				rc = pc_take_share(g, r->db, r->keeper,
						   files, err);
			}
			clock_gettime(CLOCK_MONOTONIC, &t2);
			waited += seconds(&t0, &t1);
			took += seconds(&t1, &t2);
			t0 = t2;
		}
		room |= pc_keeper_failed(r->keeper);
		pc_db_free(r->db);
		pc_keeper_free(r->keeper);
		pc_diag_free(&r->o.diag);
	}
	free(rd);
	if (rc) {
		pc_db_free(g);
		if (room || no_room(err))
			return again(o, inputs, n, st, err, said0, nwarn0,
				     once0);
		free(once0);
		return NULL;
	}
	free(once0);
	if (o->diag.verbose && !o->diag.quiet)
		fprintf(stderr, "profconv: the shares of %u other readers "
			"(threads): %.2f s waited for, their profiles taken "
			"in %.2f s\n", nr - 1, waited, took);
	pc_values_finish(g);
	return load_end(o, g, inputs, n, n == 1 && im->is_dir, err);
}
