/* HPCToolkit v4 database writer family: hpctoolkit.c drives it and
 * writes profile.db, cct.db and trace.db; hpctoolkit_meta.c meta.db;
 * hpctoolkit_yaml.c metrics/default.yaml. FORMAT-NOTES section 1. */
#ifndef PC_HPCTOOLKIT_H
#define PC_HPCTOOLKIT_H

#include "pc.h"
#include "buf.h"

/* Propagation scopes, in the order hpcprof writes them (the model's). */
enum {
	HPC_POINT = PC_SCOPE_POINT,
	HPC_FUNCTION = PC_SCOPE_FUNCTION,
	HPC_LEXAWARE = PC_SCOPE_LEXAWARE,
	HPC_EXECUTION = PC_SCOPE_EXECUTION,
	HPC_NSCOPES = PC_NSCOPES,
};

/* Summary statistics ("partials"); the first is the only default. */
struct hpc_partial {
	const char *formula;
	uint8_t combine; /* 0 sum, 1 min, 2 max */
	const char *yaml_combine;
};
extern const struct hpc_partial hpc_partials[5];

struct hpc_layout {
	size_t nmetrics;
	unsigned npartials; /* 1, or 5 with --stats */
	/* per metric, bit 1<<scope: the scopes it is written with (see
	 * hpc_layout_scopes) */
	uint8_t *scopes;
};

static inline uint16_t hpc_prop_id(const struct hpc_layout *l, size_t m,
				   unsigned scope)
{
	return (uint16_t)(m * l->npartials * HPC_NSCOPES + scope);
}
static inline uint16_t hpc_stat_id(const struct hpc_layout *l, size_t m,
				   unsigned partial, unsigned scope)
{
	return (uint16_t)(m * l->npartials * HPC_NSCOPES +
			  partial * HPC_NSCOPES + scope);
}

/* cct.db's context blocks and the summary profile's values, merged by
 * context from the thread blocks of profile.db (exporters/
 * hpctoolkit_cct.c): blocks go to co (its Context Info entries to ci),
 * summary values to summary() in context order. */
#define SZ_CI 0x20 /* a Context Info entry of cct.db */
struct hpc_sv { /* a summary value: its metric id and value */
	uint16_t metric;
	double v;
};
struct hpc_cct {
	const struct pc_db *db;
	const struct hpc_layout *l;
	/* the summary's lex_aware corrections at loops (NULL: none) */
	const double *lexfix;
	const uint32_t *loopix;
	unsigned char (*block)[0x20]; /* profile.db's blocks, by profile */
	int fd;                       /* profile.db, read back */
	const char *dir;              /* the database being written */
	unsigned jobs;                /* threads (ranges of contexts) */
	void *ctx;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	/* context c's summary values v[0..n), metric ids ascending (a
	 * context's at once: a call a value was a tenth of the merge) */
	void (*summary)(void *ctx, pc_id c, const struct hpc_sv *v, size_t n);
};
int pc_hpc_cct(const struct hpc_cct *in, struct pc_out *co, unsigned char *ci,
	       struct pc_err *err);

/* profconv-mpi (src/mpi.c; doc/design.md, "MPI ranks"): every rank
 * writes its own profiles' profile.db blocks and trace.db lines into
 * the files rank 0's writer began, from the offsets rank 0 hands out
 * (hpctoolkit_part.c, the output's struct pc_parts). A part's bytes
 * are where one process would have written them. */
struct hpc_lexd { /* a summary correction at a loop (lex_fix) */
	uint32_t loop, metric;
	double d;
};
extern const struct pc_parts pc_hpc_parts;

/* Each writes one file of the database into directory dir; meta.db's
 * size in *bytes (it may run on a thread of its own: it says nothing
 * but its error). */
int pc_hpc_write_meta(const struct pc_db *db, const struct hpc_layout *l,
		      const char *dir, uint64_t *bytes, struct pc_err *err);
int pc_hpc_write_yaml(const struct pc_db *db, const struct hpc_layout *l,
		      const char *dir, struct pc_err *err);

#endif
