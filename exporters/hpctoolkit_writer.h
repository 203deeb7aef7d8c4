/* The v4 writer's own state, shared by exporters/hpctoolkit.c (the
 * writer) and exporters/hpctoolkit_part.c (profconv-mpi's parts):
 * not for other files. */
#ifndef PC_HPCTOOLKIT_WRITER_H
#define PC_HPCTOOLKIT_WRITER_H

#include "hpctoolkit.h"

#include <pthread.h>

#define PROF_HEADER 0x30
#define SZ_PROFILE 0x30
#define CCT_HEADER 0x30
#define TRACE_HEADER 0x20
#define SZ_TRACE 0x18

/* The propagation accumulators of a context and metric. */
enum { A_POINT, A_FUNC, A_EXEC, A_LEX };

/* A {PSVB} value block being made: its values (10-byte records, by
 * context, then metric id, ascending) in memory until written, and its
 * context index (context, first value). */
struct blk {
	uint64_t pvalues, n;
	unsigned char *vb;
	size_t vlen, vcap;
	/* where the values go once 1 MiB of them are made (NULL: they are
	 * kept until commit) */
	struct pc_out *out;
	struct blk_ctx {
		uint32_t ctx;
		uint64_t first;
	} *idx;
	size_t nidx, capidx;
};

/* One thread's propagation scratch and the block it encodes. */
struct scratch {
	uint32_t *slot; /* per context: index into touched, or PC_NONE */
	size_t nslot;
	uint32_t *touched;
	size_t ntouched, captouched;
	double *acc; /* per touched context: nmetrics x stride */
	size_t capacc;
	struct blk blk;
	/* lex_fix's differences for the summary, added at the commit */
	struct hpc_lexd *lexd;
	size_t nlexd, caplexd;
};

struct writer {
	/* the streaming interface (first: a writer is its sink) */
	struct pc_sink sink;
	const struct pc_db *db;
	struct hpc_layout l;
	const char *dir;
	struct pc_err *err;
	struct pc_dest dest; /* the output, under its temporary name */
	int stats;           /* --stats */
	int point;           /* --point */
	unsigned jobs;       /* -j */
	/* profile.db is open, the layout fixed (at the first profile) */
	int begun;
	struct pc_out po;
	unsigned char phdr[PROF_HEADER];
	size_t capblock;
	/* contexts looked at so far for loops, and whether one is; a
	 * metric stores lex_aware */
	size_t ctx_seen;
	int loops, storedlex;
	/* trace.db, opened at the first profile with a trace: its profile
	 * count, section (th, at tsec), the profiles whose entries are
	 * filled in, the time range */
	int topen;
	struct pc_out to;
	unsigned char thdr[TRACE_HEADER];
	unsigned char *th;
	uint64_t tsec, tsec_size, tmin, tmax;
	size_t tprofiles, tdone;
	/* progress: the step being written, of nsteps, and its label */
	unsigned step, nsteps;
	char label[96];

	/* a profile's accumulators per metric: derived (A_*), then stored
	 * (stride) */
	size_t stride, own;
	/* a propagation scratch per writer thread (-j: scr[worker], each
	 * profile encoded in one, then committed in profile order); mu
	 * keeps the layout and the per-context arrays, made or grown as
	 * profiles come, from being read meanwhile */
	struct scratch *scr;
	unsigned nscr;
	pthread_mutex_t mu;
	/* the summary's value block (profile 0) */
	struct blk sblk;

	/* value blocks of profile.db, by profile index (0 = summary) */
	unsigned char (*block)[0x20];

	/* hpcprof stores a thread's lex_aware value at a loop as its
	 * function value, but sums the function values without nested
	 * loops into the summary's. Where a thread's stored lex_aware
	 * differs so from the one derived, the summary takes the derived:
	 * loopix (per context: its index among the loops, or PC_NONE;
	 * NULL if no metric stores lex_aware), lexfix (nloops x nmetrics,
	 * allocated at the first difference): derived less stored, summed
	 * over the threads */
	uint32_t *loopix;
	size_t nloops;
	double *lexfix;
	size_t nlexfix; /* loops lexfix has room for */
	unsigned char *rec; /* trace.db's records, written in batches */

	/* profconv-mpi: a part of the profiles, written by a rank other
	 * than 0 into rank 0's files (part_new, hpctoolkit_part.c): its first profile and
	 * the next one, its lex_fix differences in profile order (rank 0
	 * sums them in the order of the sums), its traces kept until their
	 * place is known */
	int part;
	pc_id p0, pnext;
	struct hpc_lexd *plexd;
	size_t nplexd, capplexd;
	struct pc_trace *ptrace;
	size_t nptrace, capptrace;
};

/* An error writing file (errno's reason), in w's err: -1. */
int hpcw_io_error(struct writer *w, const char *file);
/* The layout fixed and profile.db begun (at the first profile). */
int hpcw_start(struct writer *w, const struct pc_db *db);
/* The per-context arrays grown to the model's contexts. */
void hpcw_contexts(struct writer *w);
/* trace.db begun, its section for nprofiles. */
int hpcw_trace_open(struct writer *w, size_t nprofiles);
/* Profile p's line of trace.db (into a null output: its size only). */
void hpcw_trace_line(struct writer *w, pc_id p, const struct pc_trace *t);
/* Room for the blocks of profiles up to p - 1 and the summary's. */
void hpcw_blocks(struct writer *w, size_t p);
/* The sink's profile(): a profile's block and trace line written. */
int hpcw_profile(struct pc_sink *sk, const struct pc_db *db, pc_id p,
		 const struct pc_value *v, size_t n, const struct pc_value *sv,
		 size_t sn, const struct pc_trace *t, struct pc_err *err);
/* lex_fix's differences summed in (a part keeps them). */
void hpcw_lex_commit(struct writer *w, const struct hpc_lexd *d, size_t n);
void hpcw_free(struct writer *w);
/* For a comparison of two runs (db->diff) whose tree has calls below
 * lines that hpcviewer would show wrong (hpctoolkit_lines.c): a copy of
 * db with each such call below a line context of its own, to write
 * instead; it shares db's tables but contexts, values and stored
 * values. NULL: db is written as it is. */
struct pc_db *hpcw_split_lines(const struct pc_db *db);
void hpcw_split_free(struct pc_db *s);

#endif
