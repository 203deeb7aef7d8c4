/* profconv-mpi: the ranks' side of a conversion (src/mpi.c; doc/design.md,
 * "MPI ranks"). Each rank reads its share of the profiles; rank 0 makes
 * the one model (merging the other ranks' tables in rank order, which is
 * the order one process would have made them in) and hands every
 * profile to the writer in order. */
#ifndef PC_MPI_H
#define PC_MPI_H

#include "share.h"

void pc_mpi_init(int *argc, char ***argv, unsigned *rank, unsigned *size);
void pc_mpi_finalize(void);

/* Every rank says whether it failed: 0 if none did; else 1, with err
 * the message of the lowest failing rank (the first error in the
 * order one process reads), on every rank. */
int pc_mpi_agree(int failed, struct pc_err *err);
/* Whether every rank sees the n inputs as rank 0 does (the names and
 * sizes of their files): 0 if so; else 1 on every rank, with err naming
 * the input and the first rank that sees it otherwise. */
int pc_mpi_same_inputs(char **inputs, int n, struct pc_err *err);
/* Once the ranks have read: whether every file a rank read has the
 * same bytes on every rank that read it and on rank 0 (pc_reads: rank
 * 0 digests the files the other ranks read and it did not). 0 if so;
 * else 1 on every rank, with err naming the file and two ranks that see
 * it otherwise. */
int pc_mpi_same_bytes(struct pc_err *err);
/* The sum of v over the ranks, on every rank. */
uint64_t pc_mpi_sum(uint64_t v);
/* rank 0's value of *rc, on every rank. */
void pc_mpi_bcast_rc(int *rc);

/* Ranks > 0: sends the rank's tables (with_tables: its contexts,
 * functions, metrics and profiles are its own; else they are every
 * rank's, read from the same database; db NULL: none, an input rank 0
 * reads alone) and its kept profiles to rank 0. */
int pc_mpi_send(struct pc_sink *k, const struct pc_db *db, int with_tables);
/* Rank 0: the profiles of every rank in rank order (rank 0's own from
 * own, which may be NULL), each rank's tables merged into g first
 * (with_tables; files: as pc_merge_tables, functions as their importer finds
 * them from one file to the next), each profile's ids mapped to g's and
 * handed on (pc_profile_done). 0, or -1 with err set (every rank's
 * messages are still received). */
int pc_mpi_gather(struct pc_db *g, struct pc_sink *own, int with_tables,
		  const struct pc_importer *files, unsigned size,
		  struct pc_err *err);

/* An output written in parts (struct pc_parts: the v4 database): each
 * rank writes its own profiles' bytes. Ranks > 0: sends its tables,
 * gets back their ids in rank 0's model, writes its kept profiles
 * where rank 0 says. */
int pc_mpi_part(struct pc_sink *k, struct pc_db *db, int with_tables,
		const struct pc_parts *parts, struct pc_err *err);
/* Rank 0: its own kept profiles written first; the other ranks' tables
 * merged into g in rank order (as pc_mpi_gather); each rank told where
 * to write; what they wrote taken into writer (NULL: it could not be
 * begun, err says why, and every rank stops). */
int pc_mpi_lead(struct pc_db *g, struct pc_sink *own, struct pc_sink *writer,
		int with_tables, const struct pc_importer *files, unsigned size,
		const struct pc_parts *parts, struct pc_err *err);

#endif
