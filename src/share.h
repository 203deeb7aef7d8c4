/* Profiles read apart and brought together as one process reads them:
 * the pieces profconv-mpi's ranks (src/mpi.c) use. A reader keeps the
 * profiles it completes (a keeper: records of their sorted values,
 * stored values and trace bytes); its tables travel as one record that
 * the first reader merges into its model in reader order (the ids one
 * process gives); the merged model's writing layout travels as a lead
 * record from which another reader makes the model it writes its own
 * profiles with (exporters/hpctoolkit.h, "profconv-mpi"). See
 * doc/design.md, "MPI ranks". */
#ifndef PC_SHARE_H
#define PC_SHARE_H

#include "pc.h"
#include "buf.h"
#include "../exporters/hpctoolkit.h"

#include <string.h>

/* ---- a growing byte record, and reading one back ---- */

struct rec {
	unsigned char *p;
	size_t n, cap;
};

static inline unsigned char *room(struct rec *r, size_t k)
{
	if (r->cap - r->n < k) {
		r->cap = (r->n + k) * 2;
		r->p = pc_xrealloc(r->p, r->cap, 1);
	}
	unsigned char *at = r->p + r->n;
	r->n += k;
	return at;
}

static inline void put8(struct rec *r, uint8_t v) { *room(r, 1) = v; }
static inline void put32(struct rec *r, uint32_t v) { pc_le32(room(r, 4), v); }
static inline void put64(struct rec *r, uint64_t v) { pc_le64(room(r, 8), v); }
static inline void putf(struct rec *r, double v) { pc_lef64(room(r, 8), v); }
static inline void putstr(struct rec *r, const char *s)
{
	if (!s) {
		put32(r, UINT32_MAX);
		return;
	}
	size_t n = strlen(s);
	put32(r, (uint32_t)n);
	memcpy(room(r, n), s, n);
}

/* reading one back: bounds are the sender's own, but checked anyway */
struct rd {
	const unsigned char *p, *end;
	int bad;
};

static inline const unsigned char *take(struct rd *d, size_t k)
{
	if ((size_t)(d->end - d->p) < k) {
		d->bad = 1;
		static const unsigned char zero[8];
		return zero;
	}
	const unsigned char *at = d->p;
	d->p += k;
	return at;
}
static inline uint8_t get8(struct rd *d) { return *take(d, 1); }
static inline uint32_t get32(struct rd *d) { return (uint32_t)pc_getle(take(d, 4), 4); }
static inline uint64_t get64(struct rd *d) { return pc_getle(take(d, 8), 8); }
static inline double getf(struct rd *d) { return pc_getlef64(take(d, 8)); }
/* a string interned in db (NULL as sent) */
static inline const char *getstr(struct rd *d, struct pc_db *db)
{
	uint32_t n = get32(d);
	if (n == UINT32_MAX)
		return NULL;
	const unsigned char *s = take(d, n);
	return d->bad ? "" : pc_intern(db, (const char *)s, n);
}

/* ---- the keeper ---- */

struct keeper {
	struct pc_sink sink;
	struct rec *prof;
	size_t nprof, capprof;
	/* spooled (pc_keeper_spool): the records in an unlinked file, each
	 * prof[i] with p NULL, n its size and cap where it starts */
	struct pc_out spool;
	const char *dir; /* for messages */
	struct rec back; /* the record last read back */
};

/* A sink that keeps each profile handed to it (its values sorted and
 * coalesced, as a writer gets them). */
struct pc_sink *pc_keeper(void);
/* The same, its records in an unlinked file of dir (a reader on a
 * thread: its share is not held in memory); NULL with err set if the
 * file cannot be made. */
struct pc_sink *pc_keeper_spool(const char *dir, struct pc_err *err);
/* Kept record i (spooled: read back, valid until the next call); NULL
 * with err set if it cannot be read. */
const struct rec *pc_kept_rec(struct keeper *k, size_t i, struct pc_err *err);
void pc_keeper_free(struct pc_sink *k);
/* Moves the profiles db still holds (from db->nflushed on; values
 * sorted by pc_values_finish) into the keeper, and out of db. */
void pc_keep_rest(struct pc_sink *k, struct pc_db *db);
/* How many profiles the keeper holds; whether one has trace samples. */
uint64_t pc_kept(const struct pc_sink *k);
int pc_kept_trace(const struct keeper *k);

/* ---- tables ---- */

/* The tables of a reader's model (NULL: none, empty tables). */
void pc_put_tables(struct rec *r, const struct pc_db *db);
/* Id maps of one rank's tables into g. */
struct maps {
	pc_id *ctx, *metric;
	size_t nctx, nmetric;
	pc_id prof0; /* the rank's first profile in g */
};
/* Merges a reader's tables into g (callgrind: functions as the Callgrind
 * importer finds them from one file to the next), its id maps into m.
 * 0, or -1 if the record is bad. */
int pc_merge_tables(struct pc_db *g, struct rd *d, struct maps *m, int cg);
/* One profile record into g (its ids mapped by m unless NULL), handed
 * on (pc_profile_done). */
int pc_feed(struct pc_db *g, const struct rec *r, const struct maps *m,
	    struct pc_err *err);

/* ---- the v4 writer's parts ---- */

/* What rank 0's writer tells every part (with tables: the merged model's
 * tree and metrics too). */
void pc_put_lead(struct rec *r, const struct hpc_lead *ld,
		 const struct pc_db *g, int with_tables);
/* A part's copy of the lead; with tables, a new model it writes with,
 * else db (NULL if the record is bad). */
struct pc_db *pc_get_lead(struct rd *d, struct hpc_lead *ld,
			  struct hpc_layout *l, struct pc_db *db,
			  int with_tables);
/* The kept profiles, handed to the part writer ps through g (ids mapped
 * by m, unless NULL), each record freed once taken. */
int pc_replay(struct pc_db *g, struct keeper *k, const struct maps *m,
	      struct pc_sink *ps, struct pc_err *err);

/* ---- readers on threads (-j) ---- */

/* A reader's share after the shares before it: the tables of its model
 * db merged into g (callgrind: as pc_merge_tables), and its kept
 * profiles handed on through g in order (pc_feed), as if g's importer
 * had read them. */
int pc_take_share(struct pc_db *g, const struct pc_db *db, struct pc_sink *k,
		  int callgrind, struct pc_err *err);

#endif
