/* profconv's command line, in two files: src/main.c (the commands,
 * the reading of inputs into one model) and src/apart.c (a conversion
 * whose profiles are read apart: by readers on threads, or by
 * profconv-mpi's ranks). */
#ifndef PC_MAIN_H
#define PC_MAIN_H

#include "pc.h"

#include <time.h>

struct opts {
	const char *from, *to, *out;
	struct pc_import_opts imp;
	struct pc_export_opts exp;
	struct pc_diag diag;
	int values, strict, json;
	unsigned jobs; /* -j: threads (1: none) */
	const char *cmd; /* the verb for "nothing to ..." */
	/* profconv-mpi: this process's rank of mpi_size (1: no MPI); the
	 * one input's importer has its tree first (every rank reads the
	 * same tree) */
	unsigned mpi_rank, mpi_size;
	int mpi_tree;
	/* several inputs, all files of one importer that reads them apart
	 * (Callgrind's, a file per thread): that importer; they are shared
	 * out whole (NULL: any other several inputs are read by rank 0
	 * alone) */
	const struct pc_importer *mpi_files;
	/* an output written in parts (the v4 database): each rank writes
	 * its own profiles (NULL: rank 0 writes them all) */
	const struct pc_parts *mpi_parts;
	double mpi_read, mpi_recv; /* rank 0's phases (--verbose) */
	int normalize; /* diff: NEW scaled to BASE's total per metric */
	int apart;     /* diff: each run's tree built alone (no read_pair) */
};

/* Where a conversion's profiles go while its input is read: the
 * output format and, once begun, its sink (see doc/design.md,
 * "Profiles as the unit of streaming"); or, without an output format
 * (info), a sink of the caller's. */
struct stream {
	const struct pc_exporter *ex;
	const char *out;
	const struct pc_export_opts *opts;
	struct pc_sink *sink; /* begun: end or abort it */
};

double seconds(const struct timespec *a, const struct timespec *b);
/* A usage error (fmt with one %s): said, with the hint; PC_EUSAGE. */
/* Where spools go (the readers', long traces'): beside the output out
 * (whose file system holds it anyway), or in TMPDIR for standard
 * output. */
void spool_dir(const char *out, char *dir, size_t n);
int usage_error(const char *fmt, const char *arg);
/* "Did you mean" (src/suggest.c): the name nearest to word, if near
 * enough to be a typo of it (NULL names are skipped), or NULL; the
 * usage errors of an unknown command (with the nearest, or the hint
 * that a file came first) and of an unknown option (with the nearest
 * long option for which applies(its val) is true). */
const char *nearest_name(const char *word, const char *const *names,
			 size_t n);
int unknown_command(const char *cmd);
struct option;
int unknown_option(const char *arg, const struct option *longopts,
		   int (*applies)(int c));
/* The command whose help a usage error points to (NULL: --help). */
extern const char *usage_help;
/* An error said as profconv's one line. */
void report(const struct pc_err *err);
/* The output format of o->out and -t (*ex), with the options given
 * checked against it: 0, or a usage error's status (said). */
int output_choose(struct opts *o, const struct pc_exporter **ex);
/* Before any input is read: the output may be written (not one of the
 * inputs, replaced only with --force) and every input is there. 0, or
 * -1 with err set. */
int output_check(struct opts *o, const struct pc_exporter *ex,
		 char **inputs, int n, struct pc_err *err);
/* profconv diff (src/diff.c): inputs BASE NEW, or BASE... : NEW... */
int cmd_diff(struct opts *o, char **inputs, int n);
/* The importer of path (forced: the one named by -f). */
const struct pc_importer *detect(const char *path, const char *forced,
				 struct pc_err *err);
/* Reads every input into one model; formats (if not NULL) gets the
 * name of each input's format ("-" for a skipped empty file). With
 * `to`, a single input whose importer hands on complete profiles
 * streams them to that output as they come. With o->mpi_size > 1, the
 * share o->mpi_rank of an input's profiles (see src/apart.c). */
struct pc_db *load(struct opts *o, char **inputs, int n,
		   const char **formats, struct stream *to, struct pc_err *err);

/* Whether db holds nothing (no costs, values or trace samples); and
 * the error that refuses it (err set, -1). */
int load_none(const struct pc_db *db);
int load_refuse(const struct opts *o, char **inputs, int n,
		struct pc_err *err);
/* What load does once every input is read: a model with nothing in it
 * refused (err set, NULL), or written as a tree alone where every input
 * is a database directory with a tree (tree_only). */
struct pc_db *load_end(struct opts *o, struct pc_db *db, char **inputs, int n,
		       int tree_only, struct pc_err *err);

/* -j: how many readers on threads read the input's profiles in shares
 * (0: the input is not read so; see src/apart.c), and the importer of
 * the (last) input in *im. */
unsigned apart_readers(const struct opts *o, char **inputs, int n,
		       const struct pc_importer **im);
/* The model of nr readers' shares of the inputs of importer im, the
 * first read on this thread into the output as one process would (as
 * load does). */
struct pc_db *load_apart(struct opts *o, char **inputs, int n, unsigned nr,
			 const struct pc_importer *im, struct stream *st,
			 struct pc_err *err);

#ifdef PC_MPI
/* Ranks > 0: read this rank's share, then send it to rank 0 (whose
 * exit status every rank takes). */
int mpi_follow(struct opts *o, char **inputs, int n);
/* Rank 0: the model, its share and every other rank's in rank order. */
struct pc_db *mpi_lead(struct opts *o, char **inputs, int n,
		       struct stream *st, struct pc_err *err);
#endif

#endif
