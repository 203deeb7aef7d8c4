/* Profiles written on a thread of their own (-j): while the importer
 * reads the next profile, a writer thread hands the last one to the
 * sink, sorting its values first. Profiles go through a queue of QDEPTH
 * in order, so the sink sees
 * exactly what it sees without the thread and the output is the same
 * byte for byte. The importer's tree must be complete before its first
 * profile is done (struct pc_importer, tree_first): the writer reads the
 * contexts while the importer reads values, and the model refuses a new
 * context from then on (db->frozen). See doc/design.md, "Threads". */
#include "pc.h"
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Profiles queued besides the one being written: memory holds at most
 * QDEPTH + 2 profiles (one read, QDEPTH queued, one written). */
#define QDEPTH 2

struct item {
	pc_id p;
	struct pc_value *v, *sv;
	size_t n, sn, capv, capsv;
	struct pc_trace t;
};

struct pc_async {
	struct pc_sink *sink;
	const struct pc_db *db;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* the queue changed, or stop */
	struct item q[QDEPTH];
	size_t head, count;
	int stop, failed;
	uint64_t nvalues, nscoped; /* written, once coalesced */
	struct pc_err err; /* the sink's, when failed */
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

static void *writer(void *arg)
{
	struct pc_async *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->count && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (!a->count)
			break;
		/* the slot stays counted while it is written: the importer
		 * fills only the others */
		struct item *it = &a->q[a->head];
		int failed = a->failed;
		pthread_mutex_unlock(&a->mu);
		int rc = 0;
		struct pc_err err = { 0 };
		if (!failed)
			rc = pc_profile_prepare(it->p, it->v, &it->n, it->sv,
						&it->sn, &err);
		if (!failed && !rc)
			rc = a->sink->profile(a->sink, a->db, it->p,
					      it->n ? it->v : NULL, it->n,
					      it->sn ? it->sv : NULL, it->sn,
					      &it->t, &err);
		free(it->t.b);
		pthread_mutex_lock(&a->mu);
		a->nvalues += it->n;
		a->nscoped += it->sn;
		if (rc && !a->failed) {
			a->failed = 1;
			a->err = err;
		}
		give_back(&a->spare_v, &a->spare_capv, it->v, it->capv);
		give_back(&a->spare_sv, &a->spare_capsv, it->sv, it->capsv);
		a->head = (a->head + 1) % QDEPTH;
		a->count--;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

struct pc_async *pc_async_start(struct pc_sink *sink, const struct pc_db *db,
				struct pc_err *err)
{
	struct pc_async *a = pc_xcalloc(1, sizeof(*a));
	a->sink = sink;
	a->db = db;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	int e = pthread_create(&a->thread, NULL, writer, a);
	if (e) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		free(a);
		pc_err_set(err, "cannot start the writer thread: %s",
			   strerror(e));
		return NULL;
	}
	return a;
}

int pc_async_put(struct pc_async *a, struct pc_db *db, pc_id p,
		 struct pc_err *err)
{
	db->frozen = 1;
	pthread_mutex_lock(&a->mu);
	while (a->count == QDEPTH && !a->failed)
		pthread_cond_wait(&a->cv, &a->mu);
	if (a->failed) {
		*err = a->err;
		pthread_mutex_unlock(&a->mu);
		return -1;
	}
	/* the profile's arrays and trace go to the queue; the model takes
	 * a written profile's arrays for the next */
	struct item *it = &a->q[(a->head + a->count) % QDEPTH];
	*it = (struct item){ p, db->values, db->scoped, db->nvalues,
			     db->nscoped, db->capvalues, db->capscoped,
			     db->traces[p] };
	db->values = a->spare_v;
	db->capvalues = a->spare_capv;
	db->scoped = a->spare_sv;
	db->capscoped = a->spare_capsv;
	a->spare_v = a->spare_sv = NULL;
	a->spare_capv = a->spare_capsv = 0;
	a->count++;
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
	pthread_join(a->thread, NULL);
	db->flushed_values += a->nvalues;
	db->flushed_scoped += a->nscoped;
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
	free(a);
	return rc;
}
