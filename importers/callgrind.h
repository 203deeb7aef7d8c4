/* Callgrind importer family: the parser (callgrind.c) fills a call graph
 * per part; the expansion (callgrind_tree.c) turns it into contexts. */
#ifndef PC_CALLGRIND_H
#define PC_CALLGRIND_H

#include "pc.h"
#include "internal.h"

/* A function of the graph: a model function plus its object. */
struct cg_fn {
	pc_id func;
};

/* Self cost at one position of one function. */
struct cg_rec {
	uint32_t fn;
	pc_id file;
	uint32_t line;
	pc_id module;
	uint64_t addr;
};

/* Calls from one call site of `from` to `to`: count and inclusive cost. */
struct cg_edge {
	uint32_t from, to;
	pc_id file;
	uint32_t line;
	pc_id module;
	uint64_t addr;
	uint64_t count;
};

struct cg_graph {
	size_t nev;
	pc_id *metric; /* model metric of each event */
	int has_line, has_instr;

	struct cg_fn *fns;
	size_t nfns, capfns;
	uint32_t *fnix; /* per model function: its fns index + 1, 0 none */
	size_t nfnix;

	struct cg_rec *recs;
	size_t nrecs, caprecs;
	uint64_t *rcost; /* nrecs x nev */
	/* events with negative costs (Xdebug's memory): not laid out (0 in
	 * rcost and ecost); their costs, nrecs x nev, follow another
	 * event's layout where they are laid (cg_lay_records); NULL: none */
	int64_t *scost;
	uint8_t *sgn; /* per event: one of those */

	struct cg_edge *edges;
	size_t nedges, capedges;
	uint64_t *ecost; /* nedges x nev */
	/* the edges by call site: open addressing, a slot the key's
	 * hash's high half and the edge's index + 1 (0: empty); ecap a
	 * power of two (0: none yet) */
	uint64_t *eslot;
	size_t ecap;
	size_t ncalls; /* calls= lines read (edges merge repeated ones) */

	/* consecutive cost lines at one position of a function are one
	 * record when instruction contexts are not laid out (merge); the
	 * cost lines read, their nonzero costs and their size as valgrind
	 * writes them (see input_bytes in callgrind_tree.c) */
	int merge;
	size_t ncost;
	double nonzero, cost_bytes;

	/* two runs on one tree (profconv diff; callgrind_pair.c): pair
	 * set, the calls' metrics are cmetric (not PC_CALLS_METRIC's);
	 * with both runs' parts (count2 set), events [0, split) are
	 * BASE's, [split, nev) NEW's, an edge's count BASE's calls= count
	 * and count2[edge] NEW's; a part of one run alone has its own
	 * events and counts, its calls' metric cmetric[0] */
	int pair;
	size_t split;
	uint64_t *count2;
	pc_id cmetric[2];
};

/* Building the graph (callgrind_ids.c): the graph's function of a
 * model function (added if new); the edge of e's call site (added with
 * no cost if new; ncalls counted), its costs in *cost; emptied; begun
 * for a part with nev events of these metrics. */
uint32_t pc_cg_graph_fn(struct cg_graph *g, pc_id func);
struct cg_edge *pc_cg_graph_edge(struct cg_graph *g, const struct cg_edge *e,
				 uint64_t **cost);
void pc_cg_graph_reset(struct cg_graph *g);
void pc_cg_graph_init(struct cg_graph *g, size_t nev, const pc_id *metric,
		      int has_line, int has_instr);
/* Appends a self-cost record (inline: one per cost line). Records are
 * not merged here: a position seen twice (a function in several fn=
 * blocks) lands in the same context during the expansion, and values
 * are coalesced once. */
static inline uint64_t *pc_cg_graph_rec(struct cg_graph *g,
					const struct cg_rec *r)
{
	size_t cap = g->caprecs;
	PC_GROW(g->recs, g->nrecs, g->caprecs);
	if (cap != g->caprecs)
		g->rcost = pc_xrealloc(g->rcost, g->caprecs * g->nev,
				       sizeof(uint64_t));
	size_t i = g->nrecs++;
	g->recs[i] = *r;
	return g->rcost + i * g->nev;
}

/* Decimal digits of v. */
static inline double cg_digits(uint64_t v)
{
	double d = 1;
	for (; v >= 10; v /= 10)
		d++;
	return d;
}

/* Whether instruction contexts are laid out: below the line contexts
 * with --instructions, or without lines. */
static inline int cg_instr_ctx(const struct cg_graph *g,
			       const struct pc_import_opts *opts)
{
	return g->has_instr && ((opts && opts->instructions) || !g->has_line);
}

/* Expands the graph into a calling-context tree below `entry` and adds
 * the point values to `profile`, within a context budget
 * (opts->max_contexts, else chosen from the graph's size). See
 * callgrind_tree.c and doc/callgrind-tree.md; it keeps every metric's total,
 * every function's self cost per position, and every non-recursive
 * edge's inclusive cost where the edge is expanded. */
/* Makes the values from v0 on (one part's, from pc_cg_expand) whole
 * numbers: each position's shares add up to its cost, each context's
 * inclusive value is its real one rounded (callgrind_round.c); all
 * metrics but skip and skip2 (the call counts), on up to jobs threads at once.
 * Returns the number of metrics left as they were (sums not whole
 * numbers). */
size_t pc_cg_round(struct pc_db *db, size_t v0, pc_id skip, pc_id skip2,
		   const pc_id *order, size_t norder, unsigned jobs);
/* ... and returns the contexts it laid out (*norder), in the order it
 * first did (the caller frees them): pc_cg_round's order, the one they
 * would have in a model of this part alone. */
pc_id *pc_cg_expand(struct pc_db *db, const struct cg_graph *g, pc_id profile,
		    pc_id entry, const struct pc_import_opts *opts,
		    size_t *norder);

/* Two Callgrind inputs read onto one tree (profconv diff): into db,
 * BASE's events under their names and NEW's under theirs with
 * PC_PAIR_SUFFIX (callgrind_pair.c). */
int pc_cg_read_pair(struct pc_db *db, const char *const path[2],
		    const char *title[2], const struct pc_import_opts *opts,
		    struct pc_err *err);

/* The parser (callgrind.c) with each part's graph handed to `held`
 * (which takes it over: a graph emptied is left) instead of laid out;
 * events named with suffix (NULL: none). What the parser would apply
 * after its parts is handed in *out, the caller's to apply and free:
 * per model metric the divisor of an event a writer scaled (1: none),
 * per model function its entry (pc_functions_set_entries: set after
 * both runs are read, a function stays one). */
struct cg_part {
	struct cg_graph g;
	uint64_t pid, thread, part;
};
struct cg_parsed {
	double *div;
	size_t ndiv;
	uint64_t *ent_off;
	uint32_t *ent_line;
	size_t nent;
};
int pc_cg_parse(struct pc_db *db, const char *path,
		const struct pc_import_opts *opts, struct pc_err *err,
		void (*held)(void *ctx, struct cg_part *part), void *ctx,
		const char *suffix, struct cg_parsed *out);

#endif
