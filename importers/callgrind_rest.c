/* The parts of the call-graph-to-tree expansion that lay out what the
 * budget left out (see callgrind_tree.c's opening comment): the flat
 * profile of an instance cut below its call site, the rests passed up
 * to anchors and laid out there heaviest first, and the budget itself
 * (the flat floor, the default cap from the input's size). */
#include "callgrind_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The largest SCC index on the max-heap of nh, taken off it. */
static uint32_t heap_pop(uint32_t *heap, size_t *nh)
{
	uint32_t top = heap[0], last = heap[--*nh];
	size_t i = 0, n = *nh;
	for (;;) { /* sift down */
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && heap[c + 1] > heap[c])
			c++;
		if (heap[c] <= last)
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (n)
		heap[i] = last;
	return top;
}

/* SCC u on the max-heap of *nh (in `on`), unless it is there. */
static void heap_push(uint8_t *on, uint32_t *heap, size_t *nh, uint32_t u)
{
	if (on[u])
		return;
	on[u] = 1;
	size_t q = (*nh)++;
	while (q && heap[(q - 1) / 2] < u) {
		heap[q] = heap[(q - 1) / 2];
		q = (q - 1) / 2;
	}
	heap[q] = u;
}

/* Passes function f's shares su (f a member of SCC u) on to what it
 * calls outside u, in proportion to each call edge's weight: to the SCC
 * (sh, per SCC x metric), or for a group's member to its entry node
 * (nsh, per node x metric); with on, each SCC reached the first time goes
 * on the max-heap of indices. */
static void spread_fn(const struct expand *x, uint32_t u, uint32_t f,
		      const double *su, double *sh, double *nsh, uint8_t *on,
		      uint32_t *heap, size_t *nh)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j], to = g->edges[e].to;
		uint32_t v = x->scc_of[to];
		if (v == u)
			continue;
		double *d = x->sccs[v].n > 1 ?
				    cg_node_mass(x, nsh, x->dag_of[to],
						 cg_entry_node(x, to)) :
				    sh + (size_t)v * nev;
		for (size_t m = 0; m < nev; m++)
			d[m] += su[m] * x->efrac[e * nev + m];
		if (on)
			heap_push(on, heap, nh, v);
	}
}

/* SCC u's members with their shares in fsh (x->flist the members with
 * one), from its share su (one function) or, for a group, the masses on
 * its nodes in nsh (zero again after); their count. */
static size_t scc_shares(const struct expand *x, uint32_t u, const double *su,
			 double *nsh, double *fsh)
{
	const struct scc *c = &x->sccs[u];
	if (c->n > 1)
		return cg_group_walk(x, u, nsh, fsh, x->flist);
	if (!cg_any_positive(su, x->nev))
		return 0;
	x->flist[0] = x->members[c->first];
	memcpy(fsh + (size_t)x->flist[0] * x->nev, su, x->nev * sizeof(double));
	return 1;
}

/* Zeroes SCC u's share, the shares in fsh of the n members scc_shares
 * listed and, with nsh, its nodes' masses there. */
static void scc_clear(const struct expand *x, uint32_t u, double *sh,
		      double *nsh, double *fsh, size_t n)
{
	memset(sh + (size_t)u * x->nev, 0, x->nev * sizeof(double));
	for (size_t k = 0; k < n; k++)
		memset(fsh + (size_t)x->flist[k] * x->nev, 0,
		       x->nev * sizeof(double));
	if (nsh && x->sccs[u].n > 1)
		cg_group_clear(x, u, nsh);
}

/* Fills flat profile fl from the SCCs on the heap (their shares in sh,
 * a group's members' in x->fsh): callee SCCs have smaller indices than
 * their callers, so the shares are final when taken in decreasing index
 * order. Returns 0 (fl and the scratch emptied) as soon as fl lays out
 * more than limit contexts. */
static int flat_run(struct expand *x, struct flat *fl, double *sh,
		    uint8_t *on, uint32_t *heap, size_t nh, size_t limit)
{
	size_t nev = x->nev, cap = fl->n;
	double *fsh = x->fsh;
	while (nh) {
		uint32_t u = heap_pop(heap, &nh);
		size_t n = scc_shares(x, u, sh + (size_t)u * nev, x->nsh, fsh);
		for (size_t k = 0; k < n; k++) {
			uint32_t f = x->flist[k];
			const double *sf = fsh + (size_t)f * nev;
			if (fl->n >= cap) {
				PC_GROW(fl->fn, fl->n, cap);
				fl->share = pc_xrealloc(fl->share, cap * nev,
							sizeof(double));
			}
			fl->fn[fl->n] = f;
			memcpy(fl->share + fl->n * nev, sf, nev * sizeof(double));
			fl->n++;
			fl->size += 1 + x->npos[f];
			spread_fn(x, u, f, sf, sh, x->nsh, on, heap, &nh);
		}
		scc_clear(x, u, sh, NULL, fsh, n);
		on[u] = 0;
		if (fl->size > limit) {
			/* too big to lay out now or later: stop early */
			for (size_t q = 0; q < nh; q++) {
				scc_clear(x, heap[q], sh, x->nsh, fsh, 0);
				on[heap[q]] = 0;
			}
			free(fl->fn);
			free(fl->share);
			*fl = (struct flat){ .done = 2, .size = fl->size };
			return 0;
		}
	}
	return 1;
}

/* The flat profile of one full instance of SCC t (one function): the
 * share of each function it reaches (t itself 1), per metric. Cached
 * per SCC. */
struct flat *cg_flat_of(struct expand *x, uint32_t t, double *sh,
			uint8_t *on, uint32_t *heap, size_t limit)
{
	struct flat *fl = &x->flats[t];
	if (fl->done == 1)
		return fl->size <= limit ? fl : NULL;
	if (fl->done == 2)
		return NULL; /* limits only shrink */
	fl->done = 1;
	heap[0] = t;
	on[t] = 1;
	for (size_t m = 0; m < x->nev; m++)
		sh[(size_t)t * x->nev + m] = 1;
	return flat_run(x, fl, sh, on, heap, 1, limit) ? fl : NULL;
}

/* Where a cut below a call site is drawn: the callee's context there
 * (the input's call), and below it the summed frame of the n other
 * functions the cut reaches (made when first needed). */
struct cutdraw {
	uint32_t callee;
	pc_id cctx, sctx;
	size_t n;
};

/* Function f's context in cut d. */
static pc_id cut_ctx(struct expand *x, struct cutdraw *d, uint32_t f)
{
	if (f == d->callee)
		return d->cctx;
	if (d->sctx == PC_NONE)
		d->sctx = cg_summed_ctx(x, d->cctx, d->n ? d->n : 1);
	return cg_call_ctx(x, d->sctx, x->g->fns[f].func);
}

/* The calls that function f of SCC u makes inside cut d (u's weights:
 * sh times w), to its callees' contexts there; the calls inside u only
 * with insc. */
static void flat_calls(struct expand *x, uint32_t u, uint32_t f,
		       const double *sh, const double *w, struct cutdraw *d,
		       int insc)
{
	if (!cg_has_calls(x))
		return;
	const struct cg_graph *g = x->g;
	for (size_t m = 0; m < x->nev; m++)
		x->uw[m] = sh[m] * w[m];
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j];
		if (!insc && x->scc_of[g->edges[e].to] == u)
			continue;
		cg_calls n = cg_edge_calls(x, u, x->uw, e);
		if (cg_calls_any(n))
			cg_add_calls(x, cut_ctx(x, d, g->edges[e].to), n);
	}
	/* a group member's calls from its group come at it, as in the
	 * tree (fold_calls) */
	if (!insc)
		cg_add_calls(x, cut_ctx(x, d, f), cg_fold_calls(x, u, x->uw, f));
}

/* Lays out a cut below call site `site`: the callee's context there
 * with its self cost per position, and each other function of the flat
 * profile once below the callee's summed frame, with its self cost per
 * position, weighted by w. */
void cg_lay_flat(struct expand *x, const struct flat *fl, pc_id site,
		 const double *w, uint32_t callee)
{
	struct cutdraw d = { callee, cg_call_ctx(x, site,
						 x->g->fns[callee].func),
			     PC_NONE, 0 };
	for (size_t i = 0; i < fl->n; i++) { /* the functions with cost */
		uint32_t f = fl->fn[i];
		if (f == callee || x->rec_start[f] == x->rec_start[f + 1])
			continue;
		for (size_t m = 0; m < x->nev; m++)
			if (fl->share[i * x->nev + m] * w[m] > 0) {
				d.n++;
				break;
			}
	}
	for (size_t i = 0; i < fl->n; i++) {
		uint32_t f = fl->fn[i], u = x->scc_of[f];
		const double *sh = fl->share + i * x->nev;
		flat_calls(x, u, f, sh, w, &d, x->sccs[u].n == 1);
		if (x->rec_start[f] != x->rec_start[f + 1])
			cg_lay_records(x, f, cut_ctx(x, &d, f), sh, w);
	}
}

/* A member node of a recursive group that did not fit, as a cut below
 * its call site: the members it reaches along the group's DAG, each
 * with the share of its activity that flows there, then the flat
 * profile of what they call; with the calls into the node's member that
 * it stands for. Returns 0 if it is larger than limit. */
int cg_cut_member(struct expand *x, const struct work *it,
		  const double *w, double *sh, uint8_t *on,
		  uint32_t *heap, size_t limit)
{
	size_t node = x->dags[it->inst].base + it->node;
	uint32_t f = x->nodes[node].fn;
	struct flat fl = { 0 };
	/* limits only shrink: a node's cut too large once is so again */
	if (x->nodes[node].least > limit)
		return 0;
	memcpy(cg_node_mass(x, x->nsh, it->inst, node), x->ones,
	       x->nev * sizeof(double));
	heap[0] = it->scc;
	on[it->scc] = 1;
	if (!flat_run(x, &fl, sh, on, heap, 1, limit)) {
		x->nodes[node].least = fl.size;
		return 0;
	}
	cg_lay_flat(x, &fl, it->parent, w, f);
	cg_add_calls(x, cg_call_ctx(x, it->parent, x->g->fns[f].func),
		     it->calls);
	free(fl.fn);
	free(fl.share);
	return 1;
}

/* Scratch for the anchors' rests: per function the weight reached and
 * the calls into it, the functions touched, the SCC shares. */
struct restwalk {
	double *wf;   /* nfns x nev */
	cg_calls *cin; /* nfns */
	uint32_t *list;
	size_t n;
	double *sh;   /* nsccs x nev, zeroed */
	double *nsh;  /* node masses (cg_nsh_size), zeroed */
	uint8_t *on;  /* per SCC: on the heap */
	uint32_t *heap; /* the SCCs to walk, a max-heap (nsccs) */
};

static void touch(struct expand *x, struct restwalk *rw, uint32_t f)
{
	if (x->visit[f] != x->stamp) {
		x->visit[f] = x->stamp;
		rw->list[rw->n++] = f;
	}
}

/* The rest of anchor an: its cuts' flat profiles in one pass over the
 * SCCs (callers before callees, shares passed on as for a cut below its
 * call site), giving each function reached its weight and the calls
 * into it (rw's lists). Its entries are consumed. */
static void walk_rest(struct expand *x, struct anchor *an,
		      struct restwalk *rw)
{
	size_t nev = x->nev;
	const struct cg_graph *g = x->g;
	double *rest = rw->sh, *nsh = rw->nsh, *fsh = x->fsh;
	/* the cut SCCs' shares, the cut nodes' masses; their SCCs on the
	 * heap (callers first: the largest index) */
	size_t nh = 0;
	for (uint32_t i = an->rhead; i != UINT32_MAX; i = x->rents[i].next) {
		const struct rent *r = &x->rents[i];
		const double *v = x->rval + (size_t)i * nev;
		double *d;
		if (r->kind == CG_REST_SCC) {
			d = rest + (size_t)r->idx * nev;
			heap_push(rw->on, rw->heap, &nh, r->idx);
		} else if (r->kind == CG_REST_NODE) {
			d = cg_node_mass(x, nsh, r->inst, r->idx);
			heap_push(rw->on, rw->heap, &nh, x->dags[r->inst].scc);
		} else {
			continue;
		}
		for (size_t m = 0; m < nev; m++)
			d[m] += v[m];
	}
	x->stamp++;
	rw->n = 0;
	while (nh) {
		uint32_t u = heap_pop(rw->heap, &nh);
		rw->on[u] = 0;
		int one = x->sccs[u].n == 1;
		size_t n = scc_shares(x, u, rest + (size_t)u * nev, nsh, fsh);
		for (size_t k = 0; k < n; k++) {
			uint32_t f = x->flist[k];
			const double *sf = fsh + (size_t)f * nev;
			spread_fn(x, u, f, sf, rest, nsh, rw->on, rw->heap, &nh);
			touch(x, rw, f);
			for (size_t m = 0; m < nev; m++)
				rw->wf[(size_t)f * nev + m] += sf[m];
			if (!cg_has_calls(x))
				continue;
			/* its calls: all of one function's; a group
			 * member's out of the group, and those into it
			 * from the group at it */
			for (uint32_t j = x->edge_start[f];
			     j < x->edge_start[f + 1]; j++) {
				uint32_t e = x->edge_idx[j];
				uint32_t t = g->edges[e].to;
				if (!one && x->scc_of[t] == u)
					continue;
				cg_calls c = cg_edge_calls(x, (uint32_t)u, sf,
							   e);
				if (cg_calls_any(c)) {
					touch(x, rw, t);
					rw->cin[t] = cg_calls_sum(rw->cin[t], c);
				}
			}
			if (!one)
				rw->cin[f] = cg_calls_sum(
					rw->cin[f],
					cg_fold_calls(x, (uint32_t)u, sf, f));
		}
		scc_clear(x, u, rest, NULL, fsh, n);
	}
	/* the calls into the cuts' entries */
	for (uint32_t i = an->rhead; i != UINT32_MAX; i = x->rents[i].next)
		if (x->rents[i].kind == CG_REST_CALLS) {
			uint32_t f = x->rents[i].idx;
			touch(x, rw, f);
			rw->cin[f].n[0] += x->rval[(size_t)i * nev];
			if (g->count2)
				rw->cin[f].n[1] += x->rval[(size_t)i * nev + 1];
		}
	an->rhead = UINT32_MAX;
}

/* Shares are put in buckets of a quarter power of two. */
#define CG_NBUCKETS 256
static unsigned bucket_of(double share)
{
	/* floor(-4 log2(share)): share = f 2^e, f in [0.5, 1) */
	int e;
	double f;
	/* frexp's result from the bits of a normal number (its call was
	 * a seventieth of the generated input's conversion) */
	uint64_t u;
	memcpy(&u, &share, sizeof(u));
	unsigned ex = (unsigned)(u >> 52) & 0x7ff;
	if (ex && ex != 0x7ff) {
		e = (int)ex - 1022;
		u = (u & ~((uint64_t)0x7ff << 52)) | (uint64_t)1022 << 52;
		memcpy(&f, &u, sizeof(f));
	} else {
		f = frexp(share, &e);
	}
	int b = -4 * e + (f == 0.5 ? 4 : f <= 0.59460355750136051 ? 3 :
			  f <= 0.70710678118654757 ? 2 :
			  f <= 0.84089641525371450 ? 1 : 0);
	return b >= CG_NBUCKETS - 1 ? CG_NBUCKETS - 1 : b < 0 ? 0 : (unsigned)b;
}

/* Function f's self cost with weights w laid out below ctx, with the
 * calls into it. */
static void lay_settled(struct expand *x, uint32_t f, const double *w,
			cg_calls calls, pc_id ctx)
{
	pc_id fctx = PC_NONE;
	if (x->rec_start[f] != x->rec_start[f + 1] && cg_any_positive(w, x->nev)) {
		fctx = cg_call_ctx(x, ctx, x->g->fns[f].func);
		cg_lay_records(x, f, fctx, NULL, w);
	}
	if (cg_calls_any(calls))
		cg_add_calls(x, fctx != PC_NONE ? fctx :
			  cg_call_ctx(x, ctx, x->g->fns[f].func), calls);
}

/* Whether function f has self cost to lay out with weights w. */
static int has_cost(const struct expand *x, uint32_t f, const double *w)
{
	return x->rec_start[f] != x->rec_start[f + 1] &&
	       cg_any_positive(w, x->nev);
}

/* Per anchor: the functions its descendants passed up to it, with
 * their weights (nev each), the calls into them and the lowest anchor
 * above all the rests they came from. Kept in chunks of doubling size,
 * in the order added: growing by realloc copied each list again (a
 * twentieth of the generated 14 MB input's conversion). */
struct cchunk {
	struct cchunk *next;
	size_t n, cap;
	uint32_t *f, *src;
	double *w;
	cg_calls *c;
};

struct carry {
	struct cchunk *head, *tail;
	size_t n;
};

static void carry_add(struct carry *cr, size_t nev, uint32_t f,
		      const double *w, cg_calls calls, uint32_t src)
{
	struct cchunk *k = cr->tail;
	if (!k || k->n == k->cap) {
		size_t cap = k ? 2 * k->cap : 64;
		/* the doubles first (8-aligned after the header), then the
		 * calls (two doubles each), then the 32-bit ids */
		size_t head = (sizeof(*k) + 7) / 8 * 8;
		struct cchunk *nk = pc_xmalloc(head + cap * nev *
						   sizeof(double) +
					       cap * sizeof(cg_calls) +
					       2 * cap * sizeof(uint32_t));
		nk->next = NULL;
		nk->n = 0;
		nk->cap = cap;
		nk->w = (double *)((char *)nk + head);
		nk->c = (cg_calls *)(nk->w + cap * nev);
		nk->f = (uint32_t *)(nk->c + cap);
		nk->src = nk->f + cap;
		if (k)
			k->next = nk;
		else
			cr->head = nk;
		cr->tail = k = nk;
	}
	k->f[k->n] = f;
	k->src[k->n] = src;
	memcpy(k->w + k->n * nev, w, nev * sizeof(double));
	k->c[k->n++] = calls;
	cr->n++;
}

/* The lowest anchor above both a and b (an anchor's index is larger
 * than those of the anchors above it). */
static uint32_t anchor_lca(const struct expand *x, uint32_t a, uint32_t b)
{
	while (a != b)
		if (a > b)
			a = x->anchors[a].up;
		else
			b = x->anchors[b].up;
	return a;
}

/* Anchor a's rest (with rest) and what its descendants passed up to it,
 * summed per function in rw (its touched list), with in src the lowest
 * anchor above the rests each function's weight came from. */
static void gather(struct expand *x, uint32_t a, struct carry *cr,
		   int rest, struct restwalk *rw, uint32_t *src)
{
	size_t nev = x->nev;
	struct anchor *an = &x->anchors[a];
	if (rest && an->walked) { /* the first pass's walk */
		x->stamp++;
		rw->n = 0;
		for (size_t i = 0; i < an->wn; i++) {
			uint32_t f = an->wf[i];
			touch(x, rw, f);
			memcpy(rw->wf + (size_t)f * nev, an->ww + i * nev,
			       nev * sizeof(double));
			rw->cin[f] = an->wc[i];
			src[f] = a;
		}
		free(an->wf);
		free(an->ww);
		free(an->wc);
		an->wf = NULL;
		an->ww = NULL;
		an->wc = NULL;
		an->walked = 0;
	} else if (rest && an->rhead != UINT32_MAX) {
		walk_rest(x, an, rw);
		for (size_t i = 0; i < rw->n; i++)
			src[rw->list[i]] = a;
	} else {
		x->stamp++;
		rw->n = 0;
	}
	for (struct cchunk *c = cr[a].head, *next; c; c = next) {
		for (size_t i = 0; i < c->n; i++) {
			uint32_t f = c->f[i];
			size_t n = rw->n;
			touch(x, rw, f);
			src[f] = rw->n > n ? c->src[i] :
					     anchor_lca(x, src[f], c->src[i]);
			for (size_t m = 0; m < nev; m++)
				rw->wf[(size_t)f * nev + m] +=
					c->w[i * nev + m];
			rw->cin[f] = cg_calls_sum(rw->cin[f], c->c[i]);
		}
		next = c->next;
		free(c);
	}
	cr[a] = (struct carry){ 0 };
}

/* Contexts laying out function f with weights w (and calls) takes at
 * most. */
static size_t settled_size(const struct expand *x, uint32_t f,
			   const double *w, cg_calls calls)
{
	if (x->rec_start[f] != x->rec_start[f + 1] && cg_any_positive(w, x->nev))
		return 1 + x->npos[f];
	return cg_calls_any(calls);
}

struct ranked {
	double share;
	uint32_t f;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return x->f < y->f ? -1 : x->f > y->f;
}

/* Whether anchor a is a member of function f's recursive group: f's
 * rest there would read as recursion it does not hold (a call edge
 * inside the group), so it goes to an anchor above. */
static int in_group(const struct expand *x, uint32_t a, uint32_t f)
{
	uint32_t af = x->anchors[a].fn, s = x->scc_of[f];
	return af != UINT32_MAX && x->sccs[s].n > 1 && x->scc_of[af] == s;
}

/* Lays out the anchors' rests within `avail` contexts (with rootroom:
 * and the entry point's own part), anchors below their
 * ancestors. Each function an anchor's cuts reach is laid out below the
 * anchor if its cost there is heavy enough and room is left; else it is
 * passed up to the anchor above, where it is summed with what that
 * anchor has of the same function, and so on. What reaches the entry
 * point is laid out once per function (room for that flat profile is
 * kept throughout), below the lowest anchor above all the rests its
 * weight came from; the roots' own cuts are the entry point's. A
 * function in both goes there whole, unless room is left to lay it out
 * in both places (the heaviest first). */
void cg_lay_rests(struct expand *x, size_t avail, pc_id entry)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev, nf = g->nfns, na = x->nanchors;
	struct restwalk rw = {
		.wf = pc_xcalloc(nf * nev + 1, sizeof(double)),
		.cin = pc_xcalloc(nf + 1, sizeof(cg_calls)),
		.list = pc_xmalloc((nf + 1) * sizeof(uint32_t)),
		.sh = pc_xcalloc(x->nsccs * nev + 1, sizeof(double)),
		.nsh = pc_xcalloc(cg_nsh_size(x), sizeof(double)),
		.on = pc_xcalloc(x->nsccs + 1, 1),
		.heap = pc_xmalloc((x->nsccs + 1) * sizeof(uint32_t)),
	};
	const double *self = x->fself;
	/* room kept for the last flat profile: the flat profile and the
	 * functions without cost */
	size_t keep = x->reserve + x->nocost;
	size_t end = cg_used(x) + avail; /* nothing beyond */
	/* the sizes of the functions below anchors per share bucket; the
	 * buckets that fit are laid out below their anchors */
	size_t hist[CG_NBUCKETS] = { 0 };
	for (size_t a = 1; a < na; a++) {
		struct anchor *an = &x->anchors[a];
		if (an->rhead == UINT32_MAX)
			continue;
		walk_rest(x, an, &rw);
		/* what the walk gave is kept for the second pass (gather),
		 * which does not walk again: 12 + 8 nev bytes a function
		 * reached */
		an->walked = 1;
		an->wn = rw.n;
		an->wf = pc_xmalloc((rw.n + 1) * sizeof(uint32_t));
		an->ww = pc_xmalloc((rw.n * nev + 1) * sizeof(double));
		an->wc = pc_xmalloc((rw.n + 1) * sizeof(cg_calls));
		for (size_t i = 0; i < rw.n; i++) {
			uint32_t f = rw.list[i];
			double *w = rw.wf + (size_t)f * nev;
			double sh = cg_share_of(x, w, self + (size_t)f * nev);
			if (sh > 0)
				hist[bucket_of(sh)] += 1 + x->npos[f];
			an->wf[i] = f;
			memcpy(an->ww + i * nev, w, nev * sizeof(double));
			an->wc[i] = rw.cin[f];
			memset(w, 0, nev * sizeof(double));
			rw.cin[f] = (cg_calls){ { 0, 0 } };
		}
	}
	unsigned last = 0; /* buckets [0, last) fit */
	size_t room = avail > keep ? avail - keep : 0, sum = 0;
	while (last < CG_NBUCKETS && sum + hist[last] <= room)
		sum += hist[last++];
	struct carry *cr = pc_xcalloc(na + 1, sizeof(*cr));
	uint32_t *pick = pc_xmalloc((nf + 1) * sizeof(uint32_t));
	uint32_t *src = pc_xmalloc((nf + 1) * sizeof(uint32_t));
	/* the roots' own cuts: the entry point's, aside (w0, c0) */
	double *w0 = pc_xcalloc(nf * nev + 1, sizeof(double));
	cg_calls *c0 = pc_xcalloc(nf + 1, sizeof(cg_calls));
	uint8_t *in0 = pc_xcalloc(nf + 1, 1);
	size_t size0 = 0;
	gather(x, 0, cr, 1, &rw, src);
	for (size_t i = 0; i < rw.n; i++) {
		uint32_t f = rw.list[i];
		double *w = rw.wf + (size_t)f * nev;
		size0 += settled_size(x, f, w, rw.cin[f]);
		in0[f] = 1;
		memcpy(w0 + (size_t)f * nev, w, nev * sizeof(double));
		c0[f] = rw.cin[f];
		memset(w, 0, nev * sizeof(double));
		rw.cin[f] = (cg_calls){ { 0, 0 } };
	}
	if (x->rootroom)
		end += size0;
	for (size_t a = na; a-- > 1;) {
		if (!x->anchors[a].walked && !cr[a].n)
			continue;
		gather(x, (uint32_t)a, cr, 1, &rw, src);
		/* those that fit, below the anchor's summed frame (1 more
		 * context); the others passed up */
		size_t used = cg_used(x) + 1, np = 0, nc = 0;
		for (size_t i = 0; i < rw.n; i++) {
			uint32_t f = rw.list[i];
			double *w = rw.wf + (size_t)f * nev;
			size_t sz = settled_size(x, f, w, rw.cin[f]);
			double sh;
			/* (the room first: its test is the cheapest, and
			 * most fail it once the anchors' room is used) */
			if (used + sz + keep <= end &&
			    (sh = cg_share_of(x, w, self + (size_t)f * nev)) > 0 &&
			    bucket_of(sh) < last &&
			    !in_group(x, (uint32_t)a, f)) {
				pick[np++] = f;
				used += sz;
				nc += has_cost(x, f, w);
				continue;
			}
			carry_add(&cr[x->anchors[a].up], nev, f, w, rw.cin[f],
				  src[f]);
			memset(w, 0, nev * sizeof(double));
			rw.cin[f] = (cg_calls){ { 0, 0 } };
		}
		pc_id sctx = np ? cg_summed_ctx(x, x->anchors[a].ctx,
						nc ? nc : np) : PC_NONE;
		for (size_t i = 0; i < np; i++) {
			uint32_t f = pick[i];
			double *w = rw.wf + (size_t)f * nev;
			lay_settled(x, f, w, rw.cin[f], sctx);
			memset(w, 0, nev * sizeof(double));
			rw.cin[f] = (cg_calls){ { 0, 0 } };
		}
	}
	/* what reached the entry point: each function below the lowest
	 * anchor above its rests; with the roots' part too if room is
	 * left for both (the heaviest first), else whole at the entry
	 * point */
	gather(x, 0, cr, 0, &rw, src);
	size_t need = size0, n = 0;
	struct ranked *both = pc_xmalloc((rw.n + 1) * sizeof(*both));
	for (size_t i = 0; i < rw.n; i++) {
		uint32_t f = rw.list[i];
		const double *w = rw.wf + (size_t)f * nev;
		if (!in0[f])
			need += settled_size(x, f, w, rw.cin[f]);
		else if (src[f] != 0)
			both[n++] = (struct ranked){
				cg_share_of(x, w, self + (size_t)f * nev), f };
	}
	qsort(both, n, sizeof(*both), cmp_ranked);
	size_t spare = cg_used(x) + need <= end ? end - cg_used(x) - need : 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t f = both[i].f;
		size_t sz = settled_size(x, f, rw.wf + (size_t)f * nev,
					 rw.cin[f]);
		if (sz > spare)
			src[f] = 0;
		else
			spare -= sz;
	}
	free(both);
	double *flat = pc_xcalloc(nev, sizeof(double)); /* at the entry */
	double *below = pc_xcalloc(nev, sizeof(double)); /* at anchors */
	/* first where each function goes, counted per anchor (the entry
	 * point's: 0) for the summed frames' names; then laid out */
	uint32_t *cnt = pc_xcalloc(na + 1, sizeof(uint32_t));
	pc_id *sctx = pc_xmalloc((na + 1) * sizeof(pc_id));
	for (size_t a = 0; a <= na; a++)
		sctx[a] = PC_NONE;
	for (uint32_t f = 0; f < nf; f++) {
		double *w = rw.wf + (size_t)f * nev, *v = w0 + (size_t)f * nev;
		int reached = x->visit[f] == x->stamp;
		while (reached && src[f] != 0 && in_group(x, src[f], f))
			src[f] = x->anchors[src[f]].up;
		if (reached && src[f] != 0) {
			cnt[src[f]] += has_cost(x, f, w);
		} else if (reached) {
			for (size_t m = 0; m < nev; m++)
				v[m] += w[m];
			c0[f] = cg_calls_sum(c0[f], rw.cin[f]);
		}
		cnt[0] += has_cost(x, f, v);
	}
	for (uint32_t f = 0; f < nf; f++) {
		double *w = rw.wf + (size_t)f * nev, *v = w0 + (size_t)f * nev;
		const double *sf = self + (size_t)f * nev;
		int reached = x->visit[f] == x->stamp;
		if (reached && src[f] != 0) {
			for (size_t m = 0; m < nev; m++)
				below[m] += w[m] * sf[m];
			uint32_t a = src[f];
			if (sctx[a] == PC_NONE)
				sctx[a] = cg_summed_ctx(x, x->anchors[a].ctx,
							cnt[a] ? cnt[a] : 1);
			lay_settled(x, f, w, rw.cin[f], sctx[a]);
		}
		for (size_t m = 0; m < nev; m++)
			flat[m] += v[m] * sf[m];
		if (has_cost(x, f, v) || cg_calls_any(c0[f])) {
			if (sctx[0] == PC_NONE)
				sctx[0] = cg_summed_ctx(x, entry,
							cnt[0] ? cnt[0] : 1);
			lay_settled(x, f, v, c0[f], sctx[0]);
		}
	}
	free(cnt);
	free(sctx);
	x->flat_share = cg_share_of(x, x->ones, flat);
	x->top_share = cg_share_of(x, x->ones, below);
	free(flat);
	free(below);
	free(w0);
	free(c0);
	free(in0);
	free(src);
	free(pick);
	free(cr);
	free(rw.wf);
	free(rw.cin);
	free(rw.list);
	free(rw.sh);
	free(rw.nsh);
	free(rw.on);
	free(rw.heap);
}

static int cmp_pos(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	for (int i = 0; i < 2; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Contexts of the flat profile: each function with self cost, and its
 * distinct positions (lines; instructions too when they are laid out),
 * also counted per function in x->npos. Function by function, so the
 * scratch is one function's records (a whole file's keys and qsort's
 * copy of them were a third of the peak memory of an instruction-level
 * input). */
size_t cg_flat_floor(struct expand *x)
{
	const struct cg_graph *g = x->g;
	int instr = x->instr_ctx;
	unsigned add = 1 + (instr && g->has_line);
	size_t most = 0, n = 0;
	for (uint32_t f = 0; f < g->nfns; f++)
		if (x->rec_start[f + 1] - x->rec_start[f] > most)
			most = x->rec_start[f + 1] - x->rec_start[f];
	uint64_t *k = pc_xmalloc((most + 1) * 2 * sizeof(uint64_t));
	for (uint32_t f = 0; f < g->nfns; f++) {
		size_t m = x->rec_start[f + 1] - x->rec_start[f];
		if (!m)
			continue;
		for (size_t i = 0; i < m; i++) {
			const struct cg_rec *rec =
				&g->recs[x->rec_idx[x->rec_start[f] + i]];
			k[2 * i] = g->has_line ?
				((uint64_t)rec->file << 32 | rec->line) : 0;
			k[2 * i + 1] = instr ? (rec->addr ^
						(uint64_t)rec->module << 48) : 0;
		}
		qsort(k, m, 2 * sizeof(uint64_t), cmp_pos);
		for (size_t i = 0; i < m; i++)
			if (!i || cmp_pos(k + 2 * i, k + 2 * i - 2))
				x->npos[f] += add;
		n += 1 + x->npos[f]; /* the function once */
	}
	free(k);
	return n;
}

/* The input's size as valgrind writes it (names once, positions and
 * costs in decimal), from the graph and its count of cost and calls=
 * lines: the same whatever form the file itself has (gzip, names
 * compressed or not, CRLF). */
static double input_bytes(const struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t nev = g->nev;
	double b = g->cost_bytes, pos = g->has_instr ? 4 : 0; /* "+N " */
	double c = 0; /* a call: cfn=(id), calls=N target, its cost line */
	for (size_t e = 0; e < g->nedges; e++) {
		c += 10 + 8 + cg_digits(g->edges[e].count) + 2 * (1 + pos) +
		     2 * cg_digits(g->edges[e].line);
		for (size_t m = 0; m < nev; m++)
			if (g->ecost[e * nev + m])
				c += 1 + cg_digits(g->ecost[e * nev + m]);
	}
	if (g->nedges) /* the same call may be written several times */
		b += c * (double)g->ncalls / (double)g->nedges;
	/* per function fn=(id) name and fl=(id), the names of its file
	 * and module once */
	const struct pc_db *db = x->db;
	uint8_t *seen = pc_xcalloc(db->nfiles + db->nmodules + 1, 1);
	for (size_t f = 0; f < g->nfns; f++) {
		const struct pc_function *fn = &db->functions[g->fns[f].func];
		b += 20 + (double)strlen(fn->name);
		if (fn->file != PC_NONE && !seen[fn->file]++)
			b += (double)strlen(db->files[fn->file].path);
		if (fn->module != PC_NONE && !seen[db->nfiles + fn->module]++)
			b += (double)strlen(db->modules[fn->module].path);
	}
	free(seen);
	return b;
}

/* By default, work that carries CG_MIN_SHARE or more of a metric's
 * total is laid out beyond the budget, so that every calling context
 * above that share is in the tree, as long as the tree stays within
 * four times the budget and its v4 database within some 30 times the
 * input (5 times for an instruction-level input laid out by lines,
 * whose contexts each stand for several of its lines: issue 7's
 * targets). The input's size is estimated from its cost and call lines
 * (11 bytes each, what a line with compressed names takes at least),
 * not measured, so that the tree does not depend on how the file is
 * written; a context costs some 62 + 137 bytes per metric in a v4
 * database (measured). --max-contexts is a bound: nothing beyond it. */
size_t cg_default_cap(struct expand *x, const struct pc_import_opts *opts,
		      size_t *limit)
{
	if (opts && opts->max_contexts) {
		/* a hard bound; of it, a fifth for the summed frames of what
		 * is cut, as by default (the layout uses its room up: with
		 * the flat profile's reserve alone, the cuts' rests went up
		 * to the lowest caller above all of a function's cuts, and
		 * more room told a worse story) */
		*limit = x->budget;
		size_t keep = x->budget / CG_SUMMED_PART;
		if (x->budget - keep >= x->reserve + x->nocost + 1024)
			x->budget -= keep;
		return x->budget;
	}
	/* a context's bytes: some 62 + 137 per metric it has a value of
	 * (measured); as many as a cost line has on average, and calls */
	const struct cg_graph *g = x->g;
	double metrics = g->nonzero / (double)(g->ncost ? g->ncost : 1) +
			 cg_has_calls(x);
	double ctxbytes = 62.0 + 137.0 * metrics;
	double per = 11.0 * (double)(g->ncost + g->nedges) / ctxbytes;
	double times = x->g->has_instr && !x->instr_ctx ? 5.0 : 30.0;
	double est = times * per;
	double most = 4.0 * (double)x->budget;
	size_t cap = est > most ? (size_t)most :
		     est > (double)x->budget ? (size_t)est : x->budget;
	/* the rests of cuts may take one flat profile more (the estimate
	 * is low: 12 times cc1plus's line-level input at the cap), except
	 * where the target is 5 times */
	double more = (double)cap + (double)x->reserve;
	*limit = times > 5.0 || more < est ? (size_t)more :
		 est > (double)cap ? (size_t)est : cap;
	/* where even that passes 30 times the input (a small input, whose
	 * budget is large against its size, or one whose cost lines are
	 * long): the whole tree within 28 times the input estimated more
	 * closely (a margin for the estimate: within 8% on real files), the
	 * flat profile and its rests kept and at least 1024 contexts of
	 * calling context */
	double inb = input_bytes(x);
	if ((double)*limit > 28.0 * inb / ctxbytes) {
		/* an input of up to 1 MiB: its contexts' bytes, closer
		 * (calls have values at call sites only, some 45 bytes a
		 * context; with 137, 17-19 times the input), never more
		 * than the default bound. A larger one keeps the room it
		 * had: its tree would grow with the room and its peak
		 * memory with the tree (the bench's generated 28 MB input:
		 * 425 -> 512 MB for 1.33 -> 1.57 million contexts) */
		double calls = inb <= 1048576.0 ? 45.0 : 137.0;
		double close = 62.0 + 137.0 * (metrics -
					       cg_has_calls(x)) +
			       calls * cg_has_calls(x);
		double tight = 28.0 * inb / close;
		if (tight > (double)*limit)
			tight = (double)*limit;
		size_t least = x->reserve + x->nocost + 1024;
		*limit = tight > (double)least ? (size_t)tight : least;
		x->budget = *limit - x->nocost;
		x->tight = 1;
		cap = x->budget;
	}
	/* the bound a user accepts whatever the input's size: a v4
	 * database of CG_SMALL_DB, its contexts counted as closely as for
	 * the tight bound (calls at 45 bytes). A small input's tree that
	 * fits it is laid out whole (no cut, no note); a larger input whose
	 * bound passes it already keeps its own */
	double one = 62.0 + 137.0 * (metrics - cg_has_calls(x)) +
		     45.0 * cg_has_calls(x);
	double small = (double)CG_SMALL_DB / one;
	if ((double)*limit < small) {
		/* of it, a fifth for the summed frames of what is cut (the
		 * tree's layout uses its budget up, leaving only the flat
		 * profile's reserve) */
		size_t lay = (size_t)small - (size_t)small / CG_SUMMED_PART;
		x->budget = lay > x->nocost ? lay - x->nocost : 0;
		x->tight = 1;
		cap = x->budget;
		*limit = (size_t)small;
	}
	/* hpcviewer reads a meta.db of at most 2 GiB, where a context
	 * takes at most 72 bytes (its record, and function, file and
	 * module): the whole tree, the contexts the model holds already
	 * and the rests included, stays within it, less 64 MiB for the
	 * other sections */
	size_t viewer = (size_t)((((uint64_t)2048 - 64) << 20) / 72);
	viewer = viewer > x->start ? viewer - x->start : 0;
	if (*limit > viewer) {
		size_t least = x->reserve + x->nocost + 1024;
		*limit = viewer > least ? viewer : least;
		x->budget = *limit > x->nocost ? *limit - x->nocost : 0;
		x->tight = x->viewer = 1;
		cap = cap < x->budget ? cap : x->budget;
	}
	return cap;
}
