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

/* A writer thread: takes the next profile, sorts it and (a sink in two
 * steps) encodes it, then waits for its turn to write it. */
static void *writer(void *arg)
{
	struct worker *me = arg;
	struct pc_async *a = me->a;
	struct pc_sink *sink = a->sink;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (a->nclaim == a->nput && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->nclaim == a->nput)
			break;
		uint64_t seq = a->nclaim++;
		struct item *it = &a->q[seq % a->cap];
		int skip = a->failed;
		pthread_mutex_unlock(&a->mu);
		struct pc_err err = { 0 };
		int rc = skip ? 0 :
			 pc_profile_prepare(it->p, it->v, &it->n, it->sv,
					    &it->sn, &err);
		if (!skip && !rc && a->two_steps)
			rc = sink->encode(sink, me->k, a->db, it->p,
					  it->n ? it->v : NULL, it->n,
					  it->sn ? it->sv : NULL, it->sn, &err);
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
				     sink->commit(sink, me->k, a->db, it->p,
						  &it->t, &err) :
				     sink->profile(sink, a->db, it->p,
						   it->n ? it->v : NULL, it->n,
						   it->sn ? it->sv : NULL,
						   it->sn, &it->t, &err);
		free(it->t.b);
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
	 * scratch of the sink's (a sink that writes in one step, or a
	 * single thread: profile() as without threads) */
	a->nw = jobs > 1 ? jobs - 1 : 1;
	a->nw = sink->encode && a->nw > 1 ?
			(a->nw < sink->workers ? a->nw : sink->workers) : 1;
	a->two_steps = a->nw > 1;
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
	while (a->nput - a->ncommit == a->cap && !a->failed)
		pthread_cond_wait(&a->cv, &a->mu);
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
	db->traces[p].b = NULL;
	db->traces[p].len = db->traces[p].cap = 0;
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
