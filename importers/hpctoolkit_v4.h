/* The v4 database reader, shared by importers/hpctoolkit.c (meta.db,
 * default.yaml, the driver) and importers/hpctoolkit_values.c
 * (profile.db, trace.db, the placement of elided values). */
#ifndef PC_HPCTOOLKIT_V4_H
#define PC_HPCTOOLKIT_V4_H

#include "pc.h"
#include "internal.h"
#include "buf.h"
#include "hpctoolkit_place.h"

struct reader {
	struct pc_db *db;
	const char *dir;
	struct pc_err *err;
	struct pc_blob meta, prof, trace;
	int prerelease; /* meta.db of the pre-release 4.0 layout */
	uint64_t prerelease_elided; /* its values at elided contexts */
	/* meta.db tables, by element index */
	uint64_t mod_base, mod_n, mod_stride;
	uint64_t file_base, file_n, file_stride;
	uint64_t fn_base, fn_n, fn_stride;
	pc_id *mod_id, *file_id, *fn_id;
	/* propMetricId -> model metric and scope (metric PC_NONE: not a
	 * scope the model keeps) */
	struct {
		pc_id metric;
		uint8_t scope;
	} prop[65536];
	/* what visible_values does with a propMetricId's values (made
	 * before the profiles are read): nothing, or the V_* they are */
	uint8_t act[65536];
	/* per model metric: its point values are derived from execution
	 * (meta.db gives it no point scope); a profile's execution values
	 * of such metrics, in the file's order */
	uint8_t *derive;
	struct pc_value *dx;
	size_t ndx, capdx;
	/* a profile's contexts in the model's order (profile_values): the
	 * model context, the index in the profile's list */
	struct pc_keyidx *ord;
	size_t capord;
	/* point values of elided ids: ctx = the raw id */
	struct pc_value *el;
	size_t nel, capel;
	pc_id first_profile;
	/* ctxId -> model context; and, once meta.db is read, directly by
	 * ctxId where the ids are dense (as writers make them): the values
	 * look up a context per profile */
	struct pc_keymap *ctxmap;
	struct idmap {
		uint32_t id;
		pc_id ctx;
	} *ids;
	size_t nids, capids;
	pc_id *dense;
	uint32_t ndense;
	int point_only; /* the caller reads point values only */
	unsigned jobs;  /* threads that read profiles (-j) */
	/* id tuple kind of the input -> the model's (PC_ID_NKINDS: a kind
	 * the model has no name for), by the names of meta.db's IdNames */
	uint8_t kind_of[256];
	char kind_name[256][24];
	/* profile index -> model profile (PC_NONE for summaries) */
	pc_id *prof_id;
	uint32_t nprof;
	/* elided ids whose values were placed by context but which have no
	 * single place themselves, sorted (trace samples naming them show
	 * the deepest context certain to hold them) */
	uint32_t *vague;
	size_t nvague, capvague;
	/* trace.db's lines by profile index (entry order kept): the
	 * samples of profile i are lines[tfirst[i] .. tfirst[i + 1]) */
	struct pc_tline *lines;
	uint64_t *tfirst;
	uint64_t nvaguesamples;
	size_t m0; /* the model's metrics before this input's */
	/* the residuals of the profiles with elided values, for place() */
	struct pc_hpc_resids resid;
	/* the values place() gives the profiles (placed_values) */
	struct add {
		pc_id profile, ctx, metric;
		int scoped;
		double v;
	} *adds;
	size_t nadds, capadds;
	uint32_t *elids; /* the elided ids, sorted */
	size_t nelids;
};

/* An error at offset off of b (returns -1). */
int pc_v4_fail_at(struct reader *r, const struct pc_blob *b, uint64_t off,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Is [off, off+len) inside the file? */
int pc_v4_ok_range(const struct pc_blob *b, uint64_t off, uint64_t len);
#define NEED(r, b, off, len, what)                                           \
	do {                                                                 \
		if (!pc_v4_ok_range((b), (off), (len)))                      \
			return pc_v4_fail_at((r), (b), (off), "%s runs past "\
					     "the end of the file", (what));  \
	} while (0)
/* Maps the database's file name (optional: 1 if it is missing). */
int pc_v4_map_file(struct reader *r, struct pc_blob *b, const char *name,
		   int optional);
void pc_v4_unmap(struct pc_blob *b);
/* The common header of a file of the format fmt, footer and sections. */
int pc_v4_file_header(struct reader *r, const struct pc_blob *b, const char *fmt,
		      const char *footer, unsigned nsec);
uint64_t pc_v4_sec_ptr(const struct pc_blob *b, unsigned i);
/* A ctxId's model context (PC_NONE: not in meta.db); binding one; the
 * context of a ctxId for a trace sample (a placeholder if unknown). */
pc_id pc_v4_ctx_search(const struct reader *r, uint32_t id);
/* (the dense case inline: every context of every profile asks) */
static inline pc_id pc_v4_ctx_lookup(const struct reader *r, uint32_t id)
{
	return id < r->ndense ? r->dense[id] : pc_v4_ctx_search(r, id);
}
int pc_v4_ctx_bind(struct reader *r, const struct pc_blob *b, uint64_t at,
		   uint32_t id, pc_id ctx);
pc_id pc_v4_ctx_of(struct reader *r, uint32_t id);
/* profile.db's values and trace.db's samples into the model (and, with
 * a sink, to the writer profile by profile). */
int pc_v4_read_profiles(struct reader *r);

#endif
