/* What the outputs that read the calling-context tree as stacks of
 * functions share (Callgrind, pprof, folded stacks, Chrome traces):
 * each context's frame and position, the names of frames, and how a
 * metric's values become integers. */
#ifndef PC_STACKS_H
#define PC_STACKS_H

#include "pc.h"

/* Per context: the nearest context at or above it that starts a frame
 * (a function, an entry, the root, or code reached by a call), and the
 * position it stands for in that frame: the file and line of the
 * innermost line or loop, the address of the innermost instruction,
 * else the frame's own. */
struct pc_frames {
	size_t n; /* contexts prepared: the tree may grow */
	pc_id *frame;
	pc_id *file;
	uint32_t *line;
	uint64_t *addr;
	uint32_t *depth; /* frames from the root to the context's, its own included */
};

/* The deepest stack the stack-shaped outputs write: a tree (a crafted
 * one) of a million nested calls would otherwise give a file of a
 * million frames per sample. Deeper stacks are cut, with a warning:
 * pprof keeps the innermost frames, folded stacks and Chrome traces
 * the outermost. */
#define PC_MAX_STACK 4096

/* Does context c start a frame of its own? */
int pc_starts_frame(const struct pc_db *db, size_t c);
/* The function name of frame c: the function's, the entry's
 * "[main thread]", "[program root]" (pprof drops names in angle
 * brackets), or an unnamed callee's address
 * as valgrind names code without symbols (interned in mdb). */
const char *pc_frame_name(const struct pc_db *db, struct pc_db *mdb, pc_id c);
/* The load module of frame c (PC_NONE: unknown). */
pc_id pc_frame_module(const struct pc_db *db, pc_id c);
/* Prepares the contexts added since the last call (parents have
 * smaller ids than their children: one pass in id order). */
void pc_frames_update(struct pc_frames *f, const struct pc_db *db);
void pc_frames_free(struct pc_frames *f);

/* The largest total a 64-bit integer output may hold: half of 2^64
 * (Callgrind's unsigned costs) leaves room for the rounding of each
 * value; pprof's signed values fit it too. */
#define PC_INT_MAX_TOTAL 9.2e18

/* The power of ten k that a metric's values are multiplied by to be
 * written as integers: 0 for whole numbers, else about nine
 * significant digits of the largest (max, absolute); lowered while the
 * total would not fit PC_INT_MAX_TOTAL (k < 0: the caller warns). */
int pc_int_scale(double max, double total, int whole);
/* The same for the outputs that name units (pprof, folded stacks):
 * seconds that are not whole go to nanoseconds, other metrics as
 * pc_int_scale has them. */
int pc_metric_scale(const struct pc_metric *m, double max, double total,
		    int whole);
/* Is v a whole number, within the rounding of a sum of whole numbers? */
int pc_is_whole(double v);

/* One metric's unit as the outputs of other tools name it, for a
 * metric written at scale 10^k: "nanoseconds" for seconds at 10^9 or
 * a unit of "ns" at 10^0, "bytes", "count"; NULL where no such name
 * says the scale (the metric's name then carries it). */
const char *pc_unit_name(const struct pc_metric *m, int k);

/* A single-file output: written under a temporary name and put in
 * place once complete; "-" is standard output. */
struct pc_outfile {
	struct pc_dest d;
	FILE *f;
	int to_stdout;
};
/* Its name in messages. */
static inline const char *pc_outfile_name(const struct pc_outfile *o)
{
	return o->to_stdout ? "standard output" : o->d.tmp;
}
/* Before any input is read: out fits buf (n bytes; it is copied
 * there) and may be written (pc_dest_check; "-" is standard output).
 * 0, or -1 with err set. */
int pc_outfile_check(char *buf, size_t n, const char *out,
		     const struct pc_export_opts *opts, struct pc_err *err);
int pc_outfile_open(struct pc_outfile *o, const char *out, struct pc_err *err);
/* Flushes and closes the file (still under its temporary name): 0, or
 * -1 with err set (the temporary removed). */
int pc_outfile_close(struct pc_outfile *o, struct pc_err *err);
/* Closes the file if it is open and puts it in place: 0, or -1 with
 * err set (the temporary removed). */
int pc_outfile_commit(struct pc_outfile *o, struct pc_diag *diag,
		      struct pc_err *err);
/* Removes the temporary (after a failure, or after commit: a no-op). */
void pc_outfile_abort(struct pc_outfile *o);

/* s as a JSON string's contents (without the quotes): ", \ and control
 * characters escaped; bytes that are not UTF-8 as \xHH text, as every
 * profconv output writes them. */
void pc_put_json(FILE *f, const char *s);
/* The same as a string (free it). */
char *pc_json_escape(const char *s);
/* --split's file i (from 1): OUT-01, or before suffix (".pb.gz"):
 * x-01.pb.gz. */
void pc_split_name(char *buf, size_t n, const char *out, const char *suffix,
		   size_t i);
/* Once a split of n files is in place (or, n 0, the one file out): the
 * files of an earlier split beyond them (OUT-(n+1), ..., gaps and all:
 * part of the output --force replaced) are removed, with a note (without
 * --force: kept, with a warning); and what was written goes to
 * opts->split_done. */
void pc_split_done(const char *out, const char *suffix, size_t n,
		   const struct pc_export_opts *opts, struct pc_diag *d);

/* A frame of a flame graph (folded.c's tree): its caller (0 above every
 * stack), its name, its self value (of two runs compared: in NEW, and
 * in BASE as b). */
struct pc_fnode {
	uint32_t parent;
	const char *name;
	double v, b;
};
/* The flame graph of nodes n[0..len) (callers before callees; those
 * named `merged` left out) as an interactive SVG file (svg.c); values
 * times scale are shown in unit (NULL: named after the metric). diff:
 * a differential flame graph of two runs (widths NEW's, colours by
 * the change from BASE), and in *gone BASE's cost in the frames NEW
 * does not have, which have no width. note (NULL: none): where the
 * tree was cut, in the subtitle. o: flamegraph.pl's options
 * (--title... of convert; --reverse is the caller's, on n). */
int pc_svg_write(FILE *f, const struct pc_fnode *n, size_t len,
		 const char *merged, const char *title, const char *note,
		 const char *metric, const char *unit, double scale, int diff,
		 const struct pc_svg_opts *o, double *gone);

#endif
