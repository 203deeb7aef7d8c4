/* Profiles written by threads of their own (-j): while the importer
 * reads the next profile, writer threads sort the ones before and hand
 * them to the sink: a sink in two steps (struct pc_sink: encode, then
 * commit) encodes several at once, each in a scratch of its own, and
 * commits them in profile order; another is called in profile order
 * by one thread. Either way the sink sees exactly what it sees without
 * the threads and the output is the same byte for byte. The importer's
 * tree must be complete before its first profile is done (struct
 * pc_importer, tree_first): the writers read the contexts while the
 * importer reads values, and the model refuses a new context from then
 * on (db->frozen). See doc/design.md, "Threads". */
#include "pc.h"
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Profiles queued besides those being written: memory holds at most
 * QDEPTH + workers + 1 profiles (one read, QDEPTH queued, one per
 * writer thread). */
#define QDEPTH 2

struct item {
	pc_id p;
	struct pc_value *v, *sv;
	size_t n, sn, capv, capsv;
	struct pc_trace t;
};

struct worker {
	struct pc_async *a;
	unsigned k; /* the sink's scratch */
	pthread_t thread;
};

struct pc_async {
	struct pc_sink *sink;
	const struct pc_db *db;
	struct worker *w;
	unsigned nw;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* the queue changed, or stop */
	/* profile seq % cap is q[...]; put, claimed by a thread, written */
	struct item *q;
	size_t cap;
	uint64_t nput, nclaim, ncommit;
	int stop, failed;
	int two_steps; /* sink->encode on several threads, then commit */
	int help;      /* the importer's thread writes with scratch nw */
	uint64_t nvalues, nscoped; /* written, once coalesced */
	struct pc_err err;         /* the first error, when failed */
	/* one written profile's arrays, for the importer's next */
	struct pc_value *spare_v, *spare_sv;
	size_t spare_capv, spare_capsv;
};

static void give_back(struct pc_value **spare, size_t *spare_cap,
		      struct pc_value *a, size_t cap)
{
	if (!*spare && a) {
		*spare = a;
		*spare_cap = cap;
	} else {
		free(a);
	}
}

static void fail(struct pc_async *a, const struct pc_err *err)
{
	if (!a->failed) {
		a->failed = 1;
		a->err = *err;
	}
}

/* Profile seq, claimed, with scratch k: sorts it and (a sink in two
 * steps) encodes it, then waits for its turn to write it. Called and
 * returns with a->mu held. */
static void write_one(struct pc_async *a, unsigned k, uint64_t seq)
{
	struct pc_sink *sink = a->sink;
	struct item *it = &a->q[seq % a->cap];
	int skip = a->failed;
	pthread_mutex_unlock(&a->mu);
	struct pc_err err = { 0 };
	int rc = skip ? 0 :
		 pc_profile_prepare(it->p, it->v, &it->n, it->sv, &it->sn,
				    &err);
	if (!skip && !rc && a->two_steps)
		rc = sink->encode(sink, k, a->db, it->p, it->n ? it->v : NULL,
				  it->n, it->sn ? it->sv : NULL, it->sn, &err);
	pthread_mutex_lock(&a->mu);
	if (rc)
		fail(a, &err);
	while (a->ncommit != seq)
		pthread_cond_wait(&a->cv, &a->mu);
	skip = a->failed;
	pthread_mutex_unlock(&a->mu);
	/* its turn: the others wait for this one */
	if (!skip)
		rc = a->two_steps ?
			     sink->commit(sink, k, a->db, it->p, &it->t, &err) :
			     sink->profile(sink, a->db, it->p,
					   it->n ? it->v : NULL, it->n,
					   it->sn ? it->sv : NULL, it->sn,
					   &it->t, &err);
	pc_trace_free(&it->t);
	pthread_mutex_lock(&a->mu);
	if (!skip && rc)
		fail(a, &err);
	a->nvalues += it->n;
	a->nscoped += it->sn;
	give_back(&a->spare_v, &a->spare_capv, it->v, it->capv);
	give_back(&a->spare_sv, &a->spare_capsv, it->sv, it->capsv);
	a->ncommit++;
	pthread_cond_broadcast(&a->cv);
}

/* A writer thread: writes the profiles it claims, in turn. */
static void *writer(void *arg)
{
	struct worker *me = arg;
	struct pc_async *a = me->a;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (a->nclaim == a->nput && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->nclaim == a->nput)
			break;
		write_one(a, me->k, a->nclaim++);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

struct pc_async *pc_async_start(struct pc_sink *sink, const struct pc_db *db,
				unsigned jobs, struct pc_err *err)
{
	struct pc_async *a = pc_xcalloc(1, sizeof(*a));
	a->sink = sink;
	a->db = db;
	/* a core is the importer's: jobs - 1 writer threads, each with a
	 * scratch of the sink's (a sink that writes in one step: one
	 * thread, profile() as without threads) */
	a->nw = jobs > 1 ? jobs - 1 : 1;
	a->nw = sink->encode && a->nw > 1 ?
			(a->nw < sink->workers ? a->nw : sink->workers) : 1;
	/* the importer's thread writes too while the writers are behind
	 * (pc_async_put), with a scratch of its own */
	a->help = sink->encode && a->nw < sink->workers;
	a->two_steps = a->nw > 1 || a->help;
	a->cap = QDEPTH + a->nw;
	a->q = pc_xcalloc(a->cap, sizeof(*a->q));
	a->w = pc_xcalloc(a->nw, sizeof(*a->w));
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	for (unsigned k = 0; k < a->nw; k++) {
		a->w[k] = (struct worker){ a, k, 0 };
		int e = pthread_create(&a->w[k].thread, NULL, writer, &a->w[k]);
		if (e) {
			a->nw = k;
			pc_async_finish(a, NULL, NULL);
			pc_err_set(err, "cannot start a writer thread: %s",
				   strerror(e));
			return NULL;
		}
	}
	return a;
}

int pc_async_put(struct pc_async *a, struct pc_db *db, pc_id p,
		 struct pc_err *err)
{
	db->frozen = 1;
	pthread_mutex_lock(&a->mu);
	/* the queue is full: rather than wait, write the next profile
	 * that no writer took yet (the writers are the slower side: the
	 * importer's core would be idle) */
	while (a->nput - a->ncommit == a->cap && !a->failed) {
		if (a->help && a->nclaim < a->nput)
			write_one(a, a->nw, a->nclaim++);
		else
			pthread_cond_wait(&a->cv, &a->mu);
	}
	if (a->failed) {
		*err = a->err;
		pthread_mutex_unlock(&a->mu);
		return -1;
	}
	/* the profile's arrays and trace go to the queue; the model takes
	 * a written profile's arrays for the next */
	a->q[a->nput % a->cap] = (struct item){
		p, db->values, db->scoped, db->nvalues, db->nscoped,
		db->capvalues, db->capscoped, db->traces[p] };
	a->nput++;
	db->values = a->spare_v;
	db->capvalues = a->spare_capv;
	db->scoped = a->spare_sv;
	db->capscoped = a->spare_capsv;
	a->spare_v = a->spare_sv = NULL;
	a->spare_capv = a->spare_capsv = 0;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	db->traces[p].b = NULL; /* (the queue's now, spool and all) */
	db->traces[p].len = db->traces[p].cap = 0;
	db->traces[p].spooled = 0;
	return 0;
}

int pc_async_finish(struct pc_async *a, struct pc_db *db,
		    struct pc_err *err)
{
	if (!a)
		return 0;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	for (unsigned k = 0; k < a->nw; k++)
		pthread_join(a->w[k].thread, NULL);
	if (db) {
		db->flushed_values += a->nvalues;
		db->flushed_scoped += a->nscoped;
	}
	int rc = 0;
	if (a->failed) {
		if (err)
			*err = a->err;
		rc = -1;
	}
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a->spare_v);
	free(a->spare_sv);
	free(a->q);
	free(a->w);
	free(a);
	return rc;
}

/* ---- profiles read on several threads (pc_read_profiles) ---- */

struct rp {
	struct pc_db *db;
	const struct pc_profile_reader *pr;
	void *ctx;
	const pc_id *prof_of;
	uint64_t n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t next; /* the index read next */
	uint64_t turn; /* the index handed on next */
	int failed;
	struct pc_err *err;
};

/* Moves the values of shadow into db (its own arrays kept aside), hands
 * profile p on, and gives shadow db's arrays for the next. */
static int hand_on(struct pc_db *db, struct pc_db *shadow, pc_id p,
		   struct pc_err *err)
{
	struct pc_value *v = db->values, *sv = db->scoped;
	size_t cv = db->capvalues, csv = db->capscoped;
	db->values = shadow->values;
	db->nvalues = shadow->nvalues;
	db->capvalues = shadow->capvalues;
	db->scoped = shadow->scoped;
	db->nscoped = shadow->nscoped;
	db->capscoped = shadow->capscoped;
	int rc = pc_profile_done(db, p, err);
	shadow->values = db->values;
	shadow->capvalues = db->capvalues;
	shadow->scoped = db->scoped;
	shadow->capscoped = db->capscoped;
	shadow->nvalues = shadow->nscoped = 0;
	db->values = v;
	db->capvalues = cv;
	db->scoped = sv;
	db->capscoped = csv;
	db->nvalues = db->nscoped = 0;
	return rc;
}

static void *read_some(void *arg)
{
	struct rp *x = arg;
	struct pc_db shadow;
	struct pc_err err = { 0 };
	/* the model's values change under the lock, at each turn; so do
	 * the importer's shared counters, which another reader's merge
	 * adds to while this one copies them */
	pthread_mutex_lock(&x->mu);
	shadow = *x->db;
	shadow.values = shadow.scoped = NULL;
	shadow.nvalues = shadow.capvalues = shadow.nscoped =
		shadow.capscoped = 0;
	void *copy = x->pr->copy(x->ctx, &shadow, &err);
	pthread_mutex_unlock(&x->mu);
	for (;;) {
		pthread_mutex_lock(&x->mu);
		if (x->failed || x->next >= x->n) {
			pthread_mutex_unlock(&x->mu);
			break;
		}
		uint64_t i = x->next++;
		pthread_mutex_unlock(&x->mu);
		pc_id p = x->prof_of[i];
		int rc = p != PC_NONE ? x->pr->read(copy, i) : 0;
		pthread_mutex_lock(&x->mu);
		while (x->turn != i)
			pthread_cond_wait(&x->cv, &x->mu);
		if (!x->failed && p != PC_NONE) {
			if (!rc)
				rc = hand_on(x->db, &shadow, p, &err);
			if (rc) {
				x->failed = 1;
				*x->err = err;
			}
		}
		x->turn = i + 1;
		pthread_cond_broadcast(&x->cv);
		pthread_mutex_unlock(&x->mu);
	}
	pthread_mutex_lock(&x->mu);
	x->pr->merge(x->ctx, copy);
	pthread_mutex_unlock(&x->mu);
	free(shadow.values);
	free(shadow.scoped);
	return NULL;
}

int pc_read_profiles(struct pc_db *db, unsigned jobs, uint64_t n,
		     const pc_id *prof_of, const struct pc_profile_reader *pr,
		     void *ctx, struct pc_err *err)
{
	struct rp x = { .db = db, .pr = pr, .ctx = ctx, .prof_of = prof_of,
			.n = n, .err = err };
	pthread_mutex_init(&x.mu, NULL);
	pthread_cond_init(&x.cv, NULL);
	unsigned nt = pc_reader_threads(db, jobs), started = 0;
	nt = nt < n ? nt : (unsigned)n;
	pthread_t *th = pc_xcalloc(nt ? nt : 1, sizeof(*th));
	/* this thread is one of them; one that does not start leaves its
	 * share to the others */
	for (unsigned t = 1; t < nt; t++)
		if (!pthread_create(&th[started], NULL, read_some, &x))
			started++;
	read_some(&x);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_cond_destroy(&x.cv);
	pthread_mutex_destroy(&x.mu);
	free(th);
	return x.failed ? -1 : 0;
}

/* ---- n independent tasks on up to `threads` threads ---- */

struct par {
	void (*fn)(void *ctx, size_t i, unsigned k);
	void *ctx;
	size_t n, next;
	pthread_mutex_t mu;
};

struct par_thread {
	struct par *p;
	unsigned k;
	int started;
	pthread_t thread;
};

static void *par_run(void *arg)
{
	struct par_thread *t = arg;
	struct par *p = t->p;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next < p->n ? p->next++ : p->n;
		pthread_mutex_unlock(&p->mu);
		if (i == p->n)
			return NULL;
		p->fn(p->ctx, i, t->k);
	}
}

void pc_parallel(size_t n, unsigned threads,
		 void (*fn)(void *ctx, size_t i, unsigned k), void *ctx)
{
	if (threads > n)
		threads = (unsigned)n;
	if (threads < 2) {
		for (size_t i = 0; i < n; i++)
			fn(ctx, i, 0);
		return;
	}
	struct par p = { .fn = fn, .ctx = ctx, .n = n };
	pthread_mutex_init(&p.mu, NULL);
	struct par_thread *t = pc_xcalloc(threads, sizeof(*t));
	/* a thread that cannot start leaves its share to the others */
	for (unsigned k = 1; k < threads; k++) {
		t[k] = (struct par_thread){ .p = &p, .k = k };
		t[k].started = !pthread_create(&t[k].thread, NULL, par_run,
					       &t[k]);
	}
	t[0] = (struct par_thread){ .p = &p, .k = 0 };
	par_run(&t[0]);
	for (unsigned k = 1; k < threads; k++)
		if (t[k].started)
			pthread_join(t[k].thread, NULL);
	pthread_mutex_destroy(&p.mu);
	free(t);
}
