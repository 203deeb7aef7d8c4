/* Profiles read apart and brought together as one process reads them:
 * the pieces profconv-mpi's ranks (src/mpi.c) use. A reader keeps the
 * profiles it completes (a keeper: records of their sorted values,
 * stored values and trace bytes); its tables travel as one record that
 * the first reader merges into its model in reader order (the ids one
 * process gives); the merged model's writing layout travels as a lead
 * record from which another reader makes the model it writes its own
 * profiles with (struct pc_parts, which the output fills in). See
 * doc/design.md, "MPI ranks". */
#ifndef PC_SHARE_H
#define PC_SHARE_H

#include "pc.h"
#include "rec.h"

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
/* Kept record i (spooled: read back, valid until the next call, but
 * for its trace, which tr then reads from the spool: give it to pc_feed
 * or free it); NULL with err set if it cannot be read. */
const struct rec *pc_kept_rec(struct keeper *k, size_t i,
			      struct pc_trace *tr, struct pc_err *err);
void pc_keeper_free(struct pc_sink *k);
/* Whether its spool could not be written (a full disk, ulimit -f). */
int pc_keeper_failed(const struct pc_sink *k);
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
/* Merges a reader's tables into g (files: of an importer whose files
 * are read apart, as it finds them from one file to the next; NULL:
 * not such files), its id maps into m. 0, or -1 if the record is bad. */
int pc_merge_tables(struct pc_db *g, struct rd *d, struct maps *m,
		    const struct pc_importer *files);
/* One profile record into g (its ids mapped by m unless NULL), handed
 * on (pc_profile_done); its trace read from tr when tr holds one
 * (pc_kept_rec's; taken: tr is empty after). */
int pc_feed(struct pc_db *g, const struct rec *r, const struct maps *m,
	    struct pc_trace *tr, struct pc_err *err);

/* ---- an output's parts (struct pc_parts) ---- */

/* With tables, the merged model's tree and metrics, which a part
 * writes its profiles with (rank 0's lead record begins with them). */
void pc_put_model(struct rec *r, const struct pc_db *g, int with_tables);
/* A part's model: with tables, a new one, else db (NULL if the record
 * is bad). */
struct pc_db *pc_get_model(struct rd *d, struct pc_db *db, int with_tables);
/* The kept profiles, handed to the part writer ps through g (ids mapped
 * by m, unless NULL), each record freed once taken. */
int pc_replay(struct pc_db *g, struct keeper *k, const struct maps *m,
	      struct pc_sink *ps, struct pc_err *err);

/* ---- readers on threads (-j) ---- */

/* A reader's share after the shares before it: the tables of its model
 * db merged into g (files: as pc_merge_tables), and its kept
 * profiles handed on through g in order (pc_feed), as if g's importer
 * had read them. */
int pc_take_share(struct pc_db *g, const struct pc_db *db, struct pc_sink *k,
		  const struct pc_importer *files, struct pc_err *err);

#endif
