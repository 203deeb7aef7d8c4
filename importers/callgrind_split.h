/* The anchors' rests as pieces and their splits (callgrind_split.c),
 * for callgrind_rest.c's cg_lay_rests: not for other files. */
#ifndef PC_CALLGRIND_SPLIT_H
#define PC_CALLGRIND_SPLIT_H

#include "callgrind_tree.h"

/* a one-function SCC's share came by no call edge, or by several */
#define CG_NO_EDGE UINT32_MAX
#define CG_EDGES (UINT32_MAX - 1)

/* Whether function f has self cost to lay out with weights w. */
static inline int has_cost(const struct expand *x, uint32_t f, const double *w)
{
	return x->rec_start[f] != x->rec_start[f + 1] &&
	       cg_any_positive(w, x->nev);
}

/* Contexts laying out function f with weights w (and calls) takes at
 * most. */
static inline size_t settled_size(const struct expand *x, uint32_t f,
			   const double *w, cg_calls calls)
{
	if (x->rec_start[f] != x->rec_start[f + 1] && cg_any_positive(w, x->nev))
		return 1 + x->npos[f];
	return cg_calls_any(calls);
}

/* The anchors' rests as pieces, one per (anchor, function reached):
 * the function, the anchor (src), the weights (nev each) and the calls
 * into it; and groups of one function's pieces laid out together below
 * one anchor's summed frame (at): the pieces idx[lo, hi), all below
 * (or at) `pivot`, their lowest common anchor; at is the nearest anchor
 * at or above pivot outside f's recursive group. */
struct pieces {
	uint32_t *f, *src;
	uint32_t *e;   /* the call edge its weight came by (CG_EDGES: none
			* alone) */
	uint32_t *path; /* the heavy path it was reached by */
	double *w;
	cg_calls *c;
	size_t n, cap;
	uint32_t *idx; /* the pieces, each function's together */
	uint32_t *depth; /* per anchor: its depth (the entry point 0) */
	uint32_t *nat;   /* per anchor: the groups placed below it (its
			  * summed frame one context more) */
	/* the anchors' tree (anchor_tree): per anchor its subtree's
	 * interval in a preorder, [tin, tout); its children in index
	 * order, kid[ks[a], ks[a + 1]) (in the preorder's order too); the
	 * nearest anchor above it outside its function's SCC (out) */
	uint32_t *tin, *tout, *ks, *kid, *out;
	uint32_t *kcnt;  /* scratch per anchor + 1 (a split's keys), 0 */
	struct pgroup {
		uint32_t f, at, pivot;
		int shared; /* its place (f, at) is another group's too */
		size_t lo, hi;
	} *g;
	size_t ng, capg;
	struct pkey {
		uint32_t key;
		uint32_t i;
	} *keys, *ktmp; /* scratch for a split */
	uint32_t *klist; /* ... its distinct keys */
	double *sw, *sacc; /* scratch: nev */
	struct pgroup *sub; /* ... its runs */
	size_t capsub;
};

void cg_anchor_tree(const struct expand *x, struct pieces *p);
uint32_t cg_anchor_lca(const struct expand *x, const struct pieces *p,
		       uint32_t a, uint32_t b);
uint32_t cg_place_of(const struct expand *x, const struct pieces *p,
		     uint32_t a, uint32_t f);
void cg_piece_reserve(struct pieces *p, size_t nev, size_t more);
void cg_piece_add(struct pieces *p, size_t nev, uint32_t f, uint32_t src,
		  const double *w, cg_calls calls, uint32_t e, uint32_t path);
size_t cg_range_size(const struct expand *x, struct pieces *p, uint32_t f,
		     size_t lo, size_t hi, cg_calls *calls);
int cg_split_group(const struct expand *x, struct pieces *p, size_t gi,
		   int apply, double *gain, size_t *cost);
void cg_cand_of(const struct expand *x, struct pieces *p, size_t gi,
		struct cg_cand **h, size_t *n, size_t *cap);

#endif
