/* The call-graph-to-tree expansion's own state, shared by
 * importers/callgrind_graph.c (SCCs, costs, the groups' DAGs),
 * callgrind_tree.c (the best-first layout of instances and members),
 * callgrind_rest.c (flat profiles below cuts, the rests laid out below
 * anchors), callgrind_budget.c (the budget) and callgrind_lay.c
 * (contexts, shares, calls):
 * not for other files. See callgrind_tree.c's opening comment. */
#ifndef PC_CALLGRIND_TREE_H
#define PC_CALLGRIND_TREE_H

#include "callgrind.h"

/* Work above this share of a metric's total is laid out beyond the
 * default budget (see pc_cg_expand). */
#define CG_MIN_SHARE 1e-4
/* The default bound is never below the contexts of a v4 database of
 * this size (see cg_default_cap): a small input's tree fits whole. */
#define CG_SMALL_DB (64.0 * 1048576.0)
/* ... of which 1/CG_SUMMED_PART is kept for the summed frames of the
 * cuts, where it is cut */
#ifndef CG_SUMMED_PART
#define CG_SUMMED_PART 5
#endif
/* Work laid out with this share of a metric's total or more is an
 * anchor: the cuts below it that do not fit below their call sites go
 * below its summed frame (see cg_lay_rests). */
#ifndef CG_ANCHOR_SHARE
#define CG_ANCHOR_SHARE 1e-2
#endif
/* A function on no cycle of the call graph holding this share of a
 * metric's total inclusively is heavy: a rest's cost below it keeps a
 * path through it (callgrind_hpath.c) */
#ifndef CG_HEAVY_SHARE
#define CG_HEAVY_SHARE 1e-2
#endif
/* ... and a path below a heavy function is kept in a rest for work of
 * this share or more reached by it (lighter work takes the path above:
 * the rests' walks are per path) */
#ifndef CG_HEAVY_MIN
#define CG_HEAVY_MIN 1e-3
#endif
/* ... while a rest's walk passes what a heavy function reaches on to
 * the walk of the path below it for work of this share or more below
 * it there (from a path kept) */
#ifndef CG_HEAVY_DIVERT
#define CG_HEAVY_DIVERT 2e-4
#endif
/* ... but for a heavy function that trim would take this share of a
 * total or more from, over all anchors, its places are kept from this
 * share (callgrind_hpath.c, cg_hpath_rescue) */
#ifndef CG_HEAVY_RESCUE
#define CG_HEAVY_RESCUE 8e-3
#endif
#ifndef CG_HEAVY_KEEP
#define CG_HEAVY_KEEP 5e-4
#endif
/* ... and of the room the rests have left, this part is kept from the
 * splits for the heavy paths */
#ifndef CG_HEAVY_ROOM
#define CG_HEAVY_ROOM 0.9
#endif
/* ... the units first that bring the heavy functions' losses (their
 * inclusive share less their share in a stack view) down to this goal
 * (a share of the total); a function that loses more than CG_HEAVY_OFF
 * whatever the units do gets that loss and CG_HEAVY_OVER more as its
 * goal; a unit's weight beyond a goal counts CG_HEAVY_EPS of itself
 * (callgrind_hpath.c, cg_hplace_keep) */
#ifndef CG_HEAVY_LOSS
#define CG_HEAVY_LOSS 9.7e-3
#endif
#ifndef CG_HEAVY_OFF
#define CG_HEAVY_OFF 1e-2
#endif
#ifndef CG_HEAVY_OVER
#define CG_HEAVY_OVER 1e-2
#endif
/* Under a --max-contexts above the default bound (cg_hplace_keep): the
 * weight a unit gives back to a function that loses more than at the
 * default counts this much more where the order says so; an order of
 * the units whose functions lose at most CG_HEAVY_NEAR more than at the
 * default is kept without trying the next. doc/callgrind-tree.md,
 * section 5, "More room". */
#ifndef CG_HEAVY_DEFW
#define CG_HEAVY_DEFW 5e-2
#endif
#ifndef CG_HEAVY_NEAR
#define CG_HEAVY_NEAR 1e-6
#endif
#ifndef CG_HEAVY_EPS
#define CG_HEAVY_EPS 1e-3
#endif
/* ... and where, laid out, a larger bound's tree still draws a heavy
 * function with a loss (less than its inclusive cost) grown by more
 * than this share of the total over the default bound's tree's
 * (cg_room_worse; tests/func_room.pl compares pprof's shares at 0.0005
 * point), the default bound's tree is laid out in its place, where it
 * fits; so too where its distance either way grew by more than
 * CG_ROOM_OVER: the recursive groups' flows, balanced within
 * CG_BALANCE_ROUNDS, draw a function below them above its inclusive
 * cost by some thousandths of a point, more as more of them is laid
 * out (clang at four times its default contexts: up to 0.012 point;
 * the same pass managers 0.0034 below at the default) */
#ifndef CG_ROOM_EPS
#define CG_ROOM_EPS 2e-6
#endif
#ifndef CG_ROOM_OVER
#define CG_ROOM_OVER 2e-4
#endif
/* Where the tree is cut for certain, this part of the bound goes from
 * the tree's budget to the rests (callgrind_budget.c, cg_rest_shift):
 * 1/CG_REST_SHIFT (a sixth, since each place takes its summed frame
 * too: tmpl.cpp 0 functions off, stl.cpp 1, -1.29; a seventh 1, -1.04
 * and 1, -1.42; a fifth 0 and 1, -1.14, but a function 0.02 point
 * further off at twice the contexts, and 0.8 point more summed) */
#ifndef CG_REST_SHIFT
#define CG_REST_SHIFT 6
#endif
/* After this many cuts in a row of work below CG_MIN_SHARE, what is
 * pending goes to the rests as it lies (callgrind_tree.c) */
#define CG_CUT_RUN 1024
/* the kinds of a rest's entries (struct rent) */
enum { CG_REST_SCC, CG_REST_NODE, CG_REST_CALLS };
/* room for the warning's account of where the rests went */
#define CG_WHERE 512

/* calls= counts carried along: [0] the run's (a pair's BASE's), [1]
 * a pair's NEW's (g->split; else 0) */
typedef struct {
	double n[2];
} cg_calls;
static inline int cg_calls_any(cg_calls c)
{
	return c.n[0] != 0 || c.n[1] != 0;
}
static inline cg_calls cg_calls_sum(cg_calls a, cg_calls b)
{
	a.n[0] += b.n[0];
	a.n[1] += b.n[1];
	return a;
}

struct scc {
	uint32_t first, n; /* members in scc_members[first..first+n) */
};

struct expand {
	struct pc_db *db;
	const struct cg_graph *g;
	size_t nev;
	pc_id profile;
	int instr_ctx;    /* instruction contexts are laid out (below lines
			   * with --instructions, or without lines) */
	size_t start;     /* db->ncontexts before this part */
	/* the contexts made before this part that it lays out too (the
	 * earlier parts' and files' it shares: a file's tree is the same
	 * whatever was read before it, and so is the one profconv-mpi's
	 * rank makes of it alone): one bit each, and their count */
	unsigned char *shared;
	size_t nshared;
	/* the contexts it lays out, in the order it first does (its own in
	 * the order it makes them): the order they would have in a model
	 * of this part alone (pc_cg_round's) */
	pc_id *order;
	size_t norder, caporder;
	size_t budget;    /* contexts this part lays out */
	size_t reserve;   /* of it, kept for the flat fallback */
	size_t nocost;    /* functions without self cost */
	int tight;        /* the default bound is 30 times the input */
	int viewer;       /* ... or hpcviewer's bound on meta.db */
	int rootroom;     /* the roots' own rest may pass the bound (a
			   * default bound, not a tight one) */
	double *grand;    /* per metric: the part's total */
	double *ones;     /* nev weights of 1 */
	uint32_t *npos;   /* per function: distinct positions laid out */
	size_t *isize;    /* per SCC: contexts an instance lays out */
	/* cut below: per SCC, its flat profile (cached): SCC shares */
	struct flat {
		uint32_t *fn;  /* the functions it lays out */
		double *share; /* n x nev: their shares */
		size_t n;
		size_t size;  /* contexts it lays out */
		int done;     /* 1 computed, 2 larger than a limit seen */
	} *flats;

	/* CSR of records, out-edges and in-edges per function */
	uint32_t *rec_start, *rec_idx;
	uint32_t *edge_start, *edge_idx;
	uint32_t *in_start, *in_idx;
	/* a cut's drawing (cg_lay_flat): per function its index in the
	 * flat profile; per index the function it is nested below (its
	 * one caller there, UINT32_MAX: none), that call edge, its context
	 * and a stack */
	uint32_t *fidx, *nup, *nedge, *nstack;
	pc_id *nctx;
	size_t capnest;

	uint32_t *scc_of;
	struct scc *sccs;
	size_t nsccs;
	uint32_t *members;

	double *incl;  /* per SCC x nev: max(self + out, in) */
	double *efrac; /* per edge into another SCC x nev: its share of its
			* callee's activity (the callee SCC's incl, or a
			* group member's flow) */
	double *total; /* per SCC x nev: cost of one full expansion */
	double *root;  /* per SCC x nev: share not covered by callers */

	/* events with negative counts (g->sgn): per function, the event
	 * whose layout its costs in them follow (nev: none, and they lie
	 * flat: cg_lay_signed_flat, which sets signed_flat) */
	uint32_t *ref;  /* (x 2: per run of a pair, cg_ref) */
	int signed_flat;

	uint32_t *visit; /* per function: stamp of the last instance */
	uint32_t stamp;

	/* calls= counts: the metric (PC_NONE without counts), and a
	 * pair's NEW's (cg_calls.n[1]) */
	pc_id calls[2];
	/* cuts: their count and largest share, and the largest share of a
	 * metric's total laid out flat below the entry point */
	size_t ncut;
	double flat_share, heaviest;
	/* per function x nev: its self cost; per metric: the self cost
	 * laid out in the tree (not below cuts) */
	double *fself, *laid;
	/* the share of a metric's total the rests left to the end put
	 * below anchors (the entry point's part is flat_share) */
	double top_share;
	/* with --verbose, how far the rests' cost lies above the cuts'
	 * own callers (cg_up_cut, cg_up_piece, cg_up_say): per anchor, the
	 * cost its rest received by the function levels from the cut's
	 * caller up to the anchor (CG_UP_LEVELS, the last one for more),
	 * and the cost its pieces laid at anchors above it by the levels
	 * from it up to there: a row of 2 x CG_UP_LEVELS per anchor) */
	int upstat;
	double *up;
	size_t capup;
	/* where the cuts that do not fit below their call sites go: below
	 * the nearest anchor laid out above them (every function context
	 * laid out; the entry point is anchor 0), as entries of its rest
	 * (rents, below) */
	struct anchor {
		pc_id ctx;     /* its function context */
		uint32_t up;   /* the anchor above */
		uint32_t fn;   /* its function (UINT32_MAX: the entry point) */
		uint32_t rhead; /* its rest's last entry (UINT32_MAX: none) */
		uint32_t hpath; /* the heavy path of its context */
	} *anchors;
	size_t nanchors, capanchors;
	/* the anchors' rests, sparse: an entry per anchor and cut SCC
	 * (kind CG_REST_SCC, idx the SCC), cut node of a group's DAG
	 * (CG_REST_NODE, idx the node, inst its DAG) or function called
	 * (CG_REST_CALLS, idx the function), found by a hash table. Past
	 * maxrents entries a new one is merged into the same entry of the
	 * nearest anchor above that has one, else the entry point's. */
	struct rent {
		uint32_t anchor, idx, inst, next; /* next: the anchor's one
						   * before */
		uint32_t kind;
		uint32_t hpath; /* the heavy path its cost was reached by */
	} *rents;
	double *rval;     /* per entry: nev weights (calls: the count) */
	size_t nrents, caprents, maxrents;
	uint32_t *rslot;  /* the table: 1 + an entry, 0 free */
	size_t nslot;     /* its size, a power of two */
	uint32_t cur;  /* the anchor of the work being laid out */
	size_t room, caproom; /* budget - floor; the cap - floor */
	double *uw, *rw, *acc; /* scratch, nev each */

	/* recursive groups (SCCs of more than one function), laid out
	 * member by member: each group's DAG (callgrind_graph.c) */
	struct dag {
		uint32_t scc;
		size_t base;   /* its nodes: nodes[base, base + n), in order */
		uint32_t n;
		size_t pbase;  /* dpos[pbase + i]: the node of member i */
	} *dags;
	size_t ndags, capdags;
	uint32_t *sdag;   /* per SCC: its DAGs, dags[sdag[s], sdag[s + 1]) */
	uint32_t *dag_of; /* per function: the DAG a call from outside
			   * enters (UINT32_MAX: none does) */
	uint32_t *dpos;
	size_t npos_all, capdpos;
	uint32_t *pos;    /* scratch: per function, its node in a DAG */
	size_t maxnodes;  /* bound on the DAGs' nodes */
	struct onode {
		uint32_t fn;
		float part;    /* a copy's part of its caller's flow (the
				* paths without it), a primary's 1 */
		size_t e0, e1; /* its forward edges: dedges[e0, e1) */
		size_t least;  /* its cut lays out more contexts than this */
	} *nodes;
	size_t nnodes, capnodes;
	struct dedge {
		uint32_t edge; /* the call edge */
		uint32_t to;   /* its callee's node, in the same DAG */
	} *dedges;
	size_t ndedges, capdedges;
	double *dfrac;  /* per forward edge x nev: its share of the callee */
	size_t capdfrac;
	double *sub;    /* per node x nev: the cost below it per unit,
			 * itself included */
	size_t capsub;
	double *froot;  /* per function x nev: a group member's share of
			 * its activity that no caller accounts for */
	double *fold;  /* per function x 2: calls= counts of the costed calls
			* into it from its own SCC (BASE's, NEW's) */
	double *fsh;   /* scratch: per function x nev, zero between uses */
	double *nsh;   /* scratch: per DAG node x nev, zero between uses */
	uint32_t *flist; /* scratch: per function */
	double *mw;    /* scratch: nev */

	/* heavy paths (callgrind_hpath.c): per function whether it is
	 * heavy; the trie of paths (hn[0]: none), its hash table; the path
	 * of the context being laid out */
	uint8_t *heavy;
	uint8_t *hkeep; /* per function: its light places kept (NULL: none) */
	double hscale; /* the places' trims (CG_HEAVY_MIN, CG_HEAVY_KEEP)
			* times this: the default bound over a larger
			* --max-contexts, else 1 (cg_trim_scale) */
	/* per function: its loss at the default bound (a larger
	 * --max-contexts' goals at most these, cg_hplace_keep), NULL: none;
	 * dloss: the default bound's own run under a larger one, where its
	 * losses go (HUGE_VAL where none was measured; at [nfns], the room
	 * its units took) */
	const double *dgoal;
	double *dloss;
	struct hnode {
		uint32_t up, fn, depth;
	} *hn;
	size_t nhn, caphn;
	uint32_t *hslot;
	size_t nhslot;
	uint32_t curpath;
	/* per function: on path hmarked (cg_hpath_mark); its scratch */
	uint8_t *hmark;
	uint32_t hmarked;
	uint32_t *hstack;
	size_t caphstack;
	uint32_t *hbyn;   /* scratch per path: a table's place (hplace) */
	size_t caphbyn;
};

struct work {
	uint32_t scc, entry;
	pc_id parent;
	size_t w;      /* offset of the weights in the pool */
	double share;  /* largest share of a metric's total it carries */
	cg_calls calls; /* calls into the entry it stands for */
	uint32_t inst; /* a whole instance (UINT32_MAX), or a member node of */
	uint32_t node; /* DAG inst: its node (0: the entry) */
	uint32_t anchor; /* where it goes if it becomes a rest */
	uint32_t hpath;  /* the heavy path of its parent context */
};

/* The event function f's costs in event m (of negative counts) follow
 * (x->ref): of m's run, where a pair's runs share the graph. */
static inline uint32_t cg_ref(const struct expand *x, uint32_t f, size_t m)
{
	return x->ref[2 * (size_t)f + (x->g->count2 && m >= x->g->split)];
}

/* callgrind_lay.c: contexts, shares and calls */
void cg_first_laid(struct expand *x, pc_id c);
pc_id cg_site_ctx(struct expand *x, pc_id fctx, pc_id file, uint32_t line,
		  pc_id module, uint64_t addr);
pc_id cg_call_ctx(struct expand *x, pc_id parent, pc_id func);
double cg_share_of(const struct expand *x, const double *w,
		   const double *c);
cg_calls cg_fold_calls(const struct expand *x, uint32_t s, const double *w,
		       uint32_t f);
size_t cg_used(const struct expand *x);
cg_calls cg_edge_calls(const struct expand *x, uint32_t s, const double *w,
		       uint32_t e);
void cg_calls_weights(const struct expand *x, uint32_t s, const double *w,
		      double cw[2]);
cg_calls cg_edge_calls_by(const struct expand *x, uint32_t e,
			  const double cw[2]);
void cg_add_calls(struct expand *x, pc_id ctx, cg_calls calls);
static inline int cg_has_calls(const struct expand *x)
{
	return x->calls[0] != PC_NONE || x->calls[1] != PC_NONE;
}
void cg_lay_signed_flat(struct expand *x, pc_id entry);
#define CG_UP_LEVELS 32
void cg_up_cut(struct expand *x, uint32_t anchor, pc_id site, double share);
void cg_up_piece(struct expand *x, uint32_t src, uint32_t at, double share);
size_t cg_up_say(const struct expand *x, char *buf, size_t n);
void cg_lay_records(struct expand *x, uint32_t f, pc_id fctx,
		    const double *sh, const double *w);

/* callgrind_graph.c: SCCs, costs, the groups' DAGs */
void cg_analyze(struct expand *x);
int cg_any_positive(const double *w, size_t n);
void cg_sort_u32(uint32_t *a, size_t n);
size_t cg_group_walk(const struct expand *x, uint32_t u, double *nsh,
		     double *fsh, uint32_t *list);
size_t cg_entry_node(const struct expand *x, uint32_t f);
size_t cg_nsh_size(const struct expand *x);
double *cg_node_mass(const struct expand *x, double *nsh, uint32_t d,
		     size_t node);
void cg_group_clear(const struct expand *x, uint32_t u, double *nsh);
uint32_t cg_member_index(const struct expand *x, uint32_t f);

/* callgrind_rest.c: cuts and rests */
struct flat *cg_flat_of(struct expand *x, uint32_t t, double *sh,
			uint8_t *on, uint32_t *heap, size_t limit);
void cg_lay_flat(struct expand *x, const struct flat *fl, pc_id parent,
		 const double *w, uint32_t callee, size_t room);
pc_id cg_summed_ctx(struct expand *x, pc_id parent, size_t n);
int cg_cut_member(struct expand *x, const struct work *it,
		  const double *w, double *sh, uint8_t *on,
		  uint32_t *heap, size_t limit);
void cg_lay_rests(struct expand *x, size_t avail, pc_id entry);

/* callgrind_hpath.c: heavy paths */
void cg_hpath_init(struct expand *x);
void cg_hpath_free(struct expand *x);
void cg_hpath_rescue(struct expand *x);
uint32_t cg_hpath_step(struct expand *x, uint32_t p, uint32_t f);
void cg_hpath_mark(struct expand *x, uint32_t p);
uint32_t cg_hpath_step_marked(struct expand *x, uint32_t p, uint32_t f);
/* places of heavy paths below anchors (cg_lay_rests) */
struct hplace {
	struct hpl {
		uint32_t at, node;
		double w;   /* the largest share of a metric's total below */
		pc_id ctx;  /* its summed frame, made when first needed */
		uint32_t nf; /* the functions summed below it */
		int kept;
	} *e;
	size_t n, cap;
	uint32_t *slot; /* hash table: 1 + an entry, 0 free */
	size_t nslot;
	uint32_t *byn;  /* or, for one anchor's, per path: 1 + an entry */
};
/* The contexts a place takes when first made: the frame of its heavy
 * function and the summed frame below it that holds what was reached
 * through it (its children are summed, not called). */
#define CG_PLACE_CTXS 2
void cg_hplace_add(const struct expand *x, struct hplace *t, uint32_t at,
		   uint32_t p, double w);
void cg_hplace_make(const struct expand *x, struct hplace *t, uint32_t at,
		    uint32_t p);
size_t cg_hplace_keep(const struct expand *x, struct hplace *t, size_t room,
		      size_t np, const uint32_t *pat, const uint32_t *path,
		      const uint32_t *fn, const double *w, uint32_t *pnode);
void cg_hplace_count(const struct expand *x, struct hplace *t, uint32_t at,
		     uint32_t n, uint32_t f, uint64_t *mark);
pc_id cg_hplace_ctx(struct expand *x, struct hplace *t, uint32_t at,
		    uint32_t n, pc_id summed);
void cg_hplace_free(struct hplace *t);
uint32_t cg_hplace_trim(const struct expand *x, const struct hplace *t,
			uint32_t at, uint32_t p, double min);
/* a rest's walks' entries, per heavy path (a min-heap on the path: a
 * path's entries all come before it is walked, from its rest's entries
 * or from the walk of the path above it, made before it) and their
 * weights (nev each) */
struct hpends {
	struct hpend {
		uint32_t path, kind, idx, inst;
		size_t w;
	} *e;
	size_t n, cap;
	double *pw;
	size_t npw, cappw;
};
void cg_pend_add(struct hpends *rw, size_t nev, uint32_t path, uint32_t kind,
		 uint32_t idx, uint32_t inst, const double *w);
struct hpend cg_pend_pop(struct hpends *rw);
void cg_divert_fn(struct expand *x, struct hpends *rw, uint32_t u, uint32_t f,
		  const double *su, uint32_t q);
void cg_rest_pend(struct expand *x, uint32_t a, struct hpends *rw);

/* callgrind_budget.c: the budget */
size_t cg_flat_floor(struct expand *x);
size_t cg_default_cap(struct expand *x, const struct pc_import_opts *opts,
		      size_t *limit);
void cg_rest_shift(struct expand *x, size_t *cap, size_t *hard);
double cg_whole_least(const struct expand *x);
double cg_trim_scale(struct expand *x, const struct pc_import_opts *opts,
		     size_t budget, size_t *dbudget);
void cg_fn_incl(const struct expand *x, size_t v0, double *t);
uint32_t cg_room_worse(const struct expand *x, const double *td,
		       const double *tb, double *by);

/* A max-heap of candidates by key, ties to the smaller id, so that the
 * order does not depend on the heap's: Prim's order of a group's
 * members (callgrind_graph.c), the rests' splits (callgrind_rest.c),
 * the heavy paths' units (callgrind_hpath.c). */
struct cg_cand {
	double key;
	uint32_t id;
	uint32_t cost; /* (what taking it costs, where that is kept;
			* UINT32_MAX: that or more) */
};
void cg_cand_push(struct cg_cand **h, size_t *n, size_t *cap,
		  struct cg_cand c);
struct cg_cand cg_cand_pop(struct cg_cand *h, size_t *n);
/* qsort's order of the heap's: first what it pops first */
int cg_cand_cmp(const void *a, const void *b);

#endif
