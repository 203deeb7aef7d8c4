/* The parts of the call-graph-to-tree expansion that lay out what the
 * budget left out (see callgrind_tree.c's opening comment): the flat
 * profile of an instance cut below its call site, the rests passed up
 * to anchors and laid out there, by heavy path (the budget itself is
 * callgrind_budget.c's, the heavy paths callgrind_hpath.c's). */
#include "callgrind_split.h"

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

/* A set of SCC indices taken largest first (a rest's walk: callers
 * first): a bit per SCC and a bit per word of them, `hi` at or above
 * the largest; a pop is a scan down from hi (the walk pushes callees,
 * below the SCC taken, so it scans each word once). The order of a
 * max-heap of the indices. */
struct sccq {
	uint64_t *bit, *word;
	uint32_t hi;
	size_t n;
};

static void sccq_push(struct sccq *q, uint32_t u)
{
	uint64_t m = (uint64_t)1 << (u & 63);
	if (q->bit[u >> 6] & m)
		return;
	q->bit[u >> 6] |= m;
	q->word[u >> 12] |= (uint64_t)1 << ((u >> 6) & 63);
	q->hi = !q->n || u > q->hi ? u : q->hi;
	q->n++;
}

static int top_bit(uint64_t v) /* (v not 0) */
{
	return 63 - __builtin_clzll(v);
}

static uint32_t sccq_pop(struct sccq *q)
{
	size_t w = q->hi >> 12;
	uint64_t m = q->word[w] & (~(uint64_t)0 >> (63 - ((q->hi >> 6) & 63)));
	while (!m)
		m = q->word[--w];
	size_t b = (w << 6) + (size_t)top_bit(m);
	uint64_t v = q->bit[b];
	if (b == q->hi >> 6)
		v &= ~(uint64_t)0 >> (63 - (q->hi & 63));
	uint32_t u = (uint32_t)((b << 6) + (size_t)top_bit(v));
	q->bit[b] &= ~((uint64_t)1 << (u & 63));
	if (!q->bit[b])
		q->word[w] &= ~((uint64_t)1 << (b & 63));
	q->hi = u;
	q->n--;
	return u;
}


/* Notes in solo[v] (with solo) that SCC v's share came by call edge e. */
static void solo_note(uint32_t *solo, uint32_t v, uint32_t e)
{
	if (solo)
		solo[v] = solo[v] == CG_NO_EDGE || solo[v] == e ? e : CG_EDGES;
}

/* Passes function f's shares su (f a member of SCC u) on to what it
 * calls outside u, in proportion to each call edge's weight: to the SCC
 * (sh, per SCC x metric), or for a group's member to its entry node
 * (nsh, per node x metric); with on, each SCC reached the first time goes
 * on the max-heap of indices (with sq, on that set); with solo, per
 * one-function SCC the edge its share came by (solo_note). */
static void spread_fn(const struct expand *x, uint32_t u, uint32_t f,
		      const double *su, double *sh, double *nsh, uint8_t *on,
		      uint32_t *heap, size_t *nh, struct sccq *sq,
		      uint32_t *solo)
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
		int any = 0;
		for (size_t m = 0; m < nev; m++) {
			double add = su[m] * x->efrac[e * nev + m];
			d[m] += add;
			any |= add > 0;
		}
		if (any && x->sccs[v].n == 1)
			solo_note(solo, v, e);
		if (sq)
			sccq_push(sq, v);
		else if (on)
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
			PC_GROW(fl->fn, fl->n, cap);
			fl->share = pc_xrealloc(fl->share, cap * nev,
						sizeof(double));
			fl->fn[fl->n] = f;
			memcpy(fl->share + fl->n * nev, sf, nev * sizeof(double));
			fl->n++;
			fl->size += 1 + x->npos[f];
			spread_fn(x, u, f, sf, sh, x->nsh, on, heap, &nh, NULL,
				  NULL);
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
 * (the input's call), below it the functions that only it calls in the
 * cut, and so on (the input's calls, at their call sites), and the
 * summed frame of the n other functions the cut reaches (made when
 * first needed). */
struct cutdraw {
	uint32_t callee;
	pc_id cctx, sctx;
	size_t n;
	const struct flat *fl; /* NULL: none nested */
};

/* The context of the flat profile's function i in cut d: below its one
 * caller there (at the call's site), else the callee's or below the
 * summed frame. */
static pc_id node_ctx(struct expand *x, struct cutdraw *d, uint32_t i)
{
	size_t top = 0;
	uint32_t j = i;
	while (x->nctx[j] == PC_NONE && x->nup[j] != UINT32_MAX) {
		x->nstack[top++] = j;
		j = x->nup[j];
	}
	if (x->nctx[j] == PC_NONE) {
		uint32_t f = d->fl->fn[j];
		if (f == d->callee) {
			x->nctx[j] = d->cctx;
		} else {
			if (d->sctx == PC_NONE)
				d->sctx = cg_summed_ctx(x, d->cctx,
							d->n ? d->n : 1);
			x->nctx[j] = cg_call_ctx(x, d->sctx, x->g->fns[f].func);
		}
	}
	while (top) {
		uint32_t k = x->nstack[--top];
		const struct cg_edge *ed = &x->g->edges[x->nedge[k]];
		pc_id s = cg_site_ctx(x, x->nctx[x->nup[k]], ed->file, ed->line,
				      ed->module, ed->addr);
		x->nctx[k] = cg_call_ctx(x, s, x->g->fns[d->fl->fn[k]].func);
	}
	return x->nctx[i];
}

/* Function f's context in cut d. */
static pc_id cut_ctx(struct expand *x, struct cutdraw *d, uint32_t f)
{
	if (d->fl && x->visit[f] == x->stamp)
		return node_ctx(x, d, x->fidx[f]);
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

/* Whether function i of flat profile fl has a share with weights w. */
static int flat_positive(const struct expand *x, const struct flat *fl,
			 size_t i, const double *w)
{
	for (size_t m = 0; m < x->nev; m++)
		if (fl->share[i * x->nev + m] * w[m] > 0)
			return 1;
	return 0;
}

/* Lays out a cut below call site `site`: the callee's context there
 * with its self cost per position; each other function of the flat
 * profile once, with its self cost per position, weighted by w: below
 * the one function that passes it its share in the cut (a call the
 * input has, from its site: the cost there is the call's part in the
 * cut, as in the tree), with `room` contexts for those sites, else
 * below the callee's summed frame. */
void cg_lay_flat(struct expand *x, const struct flat *fl, pc_id site,
		 const double *w, uint32_t callee, size_t room)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	struct cutdraw d = { callee, cg_call_ctx(x, site, g->fns[callee].func),
			     PC_NONE, 0, fl };
	if (fl->n > x->capnest) {
		x->capnest = 2 * fl->n;
		x->nup = pc_xrealloc(x->nup, x->capnest, sizeof(uint32_t));
		x->nedge = pc_xrealloc(x->nedge, x->capnest, sizeof(uint32_t));
		x->nstack = pc_xrealloc(x->nstack, x->capnest, sizeof(uint32_t));
		x->nctx = pc_xrealloc(x->nctx, x->capnest, sizeof(pc_id));
	}
	x->stamp++;
	for (size_t i = 0; i < fl->n; i++) {
		x->visit[fl->fn[i]] = x->stamp;
		x->fidx[fl->fn[i]] = (uint32_t)i;
		x->nup[i] = UINT32_MAX;
		x->nctx[i] = PC_NONE;
	}
	/* the functions nested below their one caller in the cut (the
	 * callers come first in fl); a site takes up to two contexts */
	size_t per = (size_t)g->has_line + (size_t)(x->instr_ctx != 0), extra = 0;
	for (size_t i = 0; i < fl->n && extra + per <= room; i++) {
		uint32_t f = fl->fn[i];
		if (f == callee || x->sccs[x->scc_of[f]].n > 1 ||
		    !flat_positive(x, fl, i, w))
			continue;
		uint32_t one = UINT32_MAX, n = 0;
		for (uint32_t j = x->in_start[f]; j < x->in_start[f + 1] && n < 2;
		     j++) {
			uint32_t e = x->in_idx[j], from = g->edges[e].from;
			if (from == f || x->visit[from] != x->stamp)
				continue;
			const double *sf = fl->share + (size_t)x->fidx[from] * nev;
			for (size_t m = 0; m < nev; m++)
				if (sf[m] * w[m] * x->efrac[(size_t)e * nev + m] > 0) {
					one = e;
					n++;
					break;
				}
		}
		if (n == 1) {
			x->nup[i] = x->fidx[g->edges[one].from];
			x->nedge[i] = one;
			extra += per;
		}
	}
	/* the summed frame's functions with cost: those nested below no
	 * chain that starts at the callee (nstack: 1 below it) */
	for (size_t i = 0; i < fl->n; i++) {
		uint32_t f = fl->fn[i];
		x->nstack[i] = f != callee &&
			       (x->nup[i] == UINT32_MAX || x->nstack[x->nup[i]]);
		if (x->nstack[i] && x->rec_start[f] != x->rec_start[f + 1] &&
		    flat_positive(x, fl, i, w))
			d.n++;
	}
	for (size_t i = 0; i < fl->n; i++) {
		uint32_t f = fl->fn[i], u = x->scc_of[f];
		const double *sh = fl->share + i * nev;
		flat_calls(x, u, f, sh, w, &d, x->sccs[u].n == 1);
		if (x->rec_start[f] != x->rec_start[f + 1])
			cg_lay_records(x, f, cut_ctx(x, &d, f), sh, w);
	}
	x->stamp++; /* (fidx no longer valid) */
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
	cg_lay_flat(x, &fl, it->parent, w, f, limit - fl.size);
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
	struct sccq q; /* the SCCs to walk */
	uint32_t *solo; /* per SCC: the edge its share came by (solo_note) */
	uint32_t *edge; /* per function reached: its SCC's solo */
	struct hpends pe; /* the walks' entries by heavy path */
	struct hpend *calls; /* scratch: a path's calls into its entries */
	size_t capcalls;
};

static void touch(struct expand *x, struct restwalk *rw, uint32_t f)
{
	if (x->visit[f] != x->stamp) {
		x->visit[f] = x->stamp;
		rw->list[rw->n++] = f;
		rw->edge[f] = CG_EDGES;
	}
}

/* The walk of one heavy path of an anchor's rest: its entries (the
 * top of rw->pe) in one pass over the SCCs (callers before callees,
 * shares passed on as for a cut below its call site), giving each
 * function reached its weight and the calls into it (rw's lists); a
 * heavy function not on the path passes its shares on to the walk of
 * the path below it (cg_divert_fn). Returns the path. */
static uint32_t walk_path(struct expand *x, struct restwalk *rw)
{
	size_t nev = x->nev;
	const struct cg_graph *g = x->g;
	double *rest = rw->sh, *nsh = rw->nsh, *fsh = x->fsh;
	uint32_t path = rw->pe.e[0].path;
	cg_hpath_mark(x, path);
	/* the cut SCCs' shares, the cut nodes' masses; their SCCs on the
	 * heap (callers first: the largest index); the calls into the
	 * cuts' entries after the walk */
	size_t ncalls = 0;
	while (rw->pe.n && rw->pe.e[0].path == path) {
		struct hpend r = cg_pend_pop(&rw->pe);
		const double *v = rw->pe.pw + r.w;
		double *d;
		if (r.kind == CG_REST_SCC) {
			d = rest + (size_t)r.idx * nev;
			sccq_push(&rw->q, r.idx);
			rw->solo[r.idx] = CG_EDGES; /* a cut's callee */
		} else if (r.kind == CG_REST_NODE) {
			d = cg_node_mass(x, nsh, r.inst, r.idx);
			sccq_push(&rw->q, x->dags[r.inst].scc);
		} else {
			PC_GROW(rw->calls, ncalls, rw->capcalls);
			rw->calls[ncalls++] = r;
			continue;
		}
		for (size_t m = 0; m < nev; m++)
			d[m] += v[m];
	}
	x->stamp++;
	rw->n = 0;
	while (rw->q.n) {
		uint32_t u = sccq_pop(&rw->q);
		int one = x->sccs[u].n == 1;
		size_t n = scc_shares(x, u, rest + (size_t)u * nev, nsh, fsh);
		for (size_t k = 0; k < n; k++) {
			uint32_t f = x->flist[k];
			const double *sf = fsh + (size_t)f * nev;
			/* (a path below a heavy function for work of
			 * CG_HEAVY_DIVERT or more below it) */
			uint32_t below = path;
			if (one && x->heavy[f]) {
				for (size_t m = 0; m < nev; m++)
					x->uw[m] = x->incl[(size_t)u * nev + m] -
						   x->fself[(size_t)f * nev + m];
				if (cg_share_of(x, sf, x->uw) >= CG_HEAVY_DIVERT)
					below = cg_hpath_step_marked(x, path,
								     f);
			}
			touch(x, rw, f);
			for (size_t m = 0; m < nev; m++)
				rw->wf[(size_t)f * nev + m] += sf[m];
			if (below != path) {
				/* below it by its path; its calls to
				 * itself at it */
				cg_divert_fn(x, &rw->pe, u, f, sf, below);
				for (uint32_t j = x->edge_start[f];
				     j < x->edge_start[f + 1] &&
				     cg_has_calls(x); j++) {
					uint32_t e = x->edge_idx[j];
					if (g->edges[e].to == f)
						rw->cin[f] = cg_calls_sum(
							rw->cin[f],
							cg_edge_calls(x, u, sf,
								      e));
				}
				continue;
			}
			spread_fn(x, u, f, sf, rest, nsh, NULL, NULL, NULL,
				  &rw->q, rw->solo);
			if (!cg_has_calls(x))
				continue;
			/* its calls: all of one function's; a group
			 * member's out of the group, and those into it
			 * from the group at it */
			double cw[2];
			cg_calls_weights(x, u, sf, cw);
			for (uint32_t j = x->edge_start[f];
			     j < x->edge_start[f + 1]; j++) {
				uint32_t e = x->edge_idx[j];
				uint32_t t = g->edges[e].to;
				if (!one && x->scc_of[t] == u)
					continue;
				cg_calls c = cg_edge_calls_by(x, e, cw);
				if (cg_calls_any(c)) {
					touch(x, rw, t);
					rw->cin[t] = cg_calls_sum(rw->cin[t], c);
					if (x->sccs[x->scc_of[t]].n == 1)
						solo_note(rw->solo,
							  x->scc_of[t], e);
				}
			}
			if (!one)
				rw->cin[f] = cg_calls_sum(
					rw->cin[f],
					cg_fold_calls(x, (uint32_t)u, sf, f));
		}
		for (size_t k = 0; k < n; k++)
			rw->edge[x->flist[k]] = one ? rw->solo[u] : CG_EDGES;
		rw->solo[u] = CG_NO_EDGE;
		scc_clear(x, u, rest, NULL, fsh, n);
	}
	/* the calls into the cuts' entries */
	for (size_t i = 0; i < ncalls; i++) {
		uint32_t f = rw->calls[i].idx;
		const double *v = rw->pe.pw + rw->calls[i].w;
		touch(x, rw, f);
		rw->cin[f].n[0] += v[0];
		if (g->count2)
			rw->cin[f].n[1] += v[1];
		rw->edge[f] = CG_EDGES;
	}
	return path;
}

/* A piece's place: (anchor, function, the node of its heavy path
 * there), the piece. */
struct pplace {
	uint32_t at, f, node, q;
};

/* Places pl[0, n), in the pieces' order (q), sorted by (at, f, node,
 * q): stable counting sorts by node, function and anchor in turn
 * (ranges nnode, nfn, nat), in linear time. */
static void sort_places(struct pplace *pl, size_t n, size_t nat, size_t nfn,
			size_t nnode)
{
	size_t range = nat > nfn ? nat : nfn;
	range = range > nnode ? range : nnode;
	struct pplace *tmp = pc_xmalloc((n + 1) * sizeof(*tmp));
	size_t *cnt = pc_xmalloc((range + 1) * sizeof(size_t));
	for (int pass = 0; pass < 3; pass++) {
		size_t r = pass == 0 ? nnode : pass == 1 ? nfn : nat;
		memset(cnt, 0, (r + 1) * sizeof(size_t));
		for (size_t i = 0; i < n; i++) {
			const struct pplace *e = &pl[i];
			cnt[(pass == 0 ? e->node : pass == 1 ? e->f : e->at) + 1]++;
		}
		for (size_t k = 1; k < r; k++)
			cnt[k] += cnt[k - 1];
		for (size_t i = 0; i < n; i++) {
			const struct pplace *e = &pl[i];
			tmp[cnt[pass == 0 ? e->node : pass == 1 ? e->f : e->at]++] = *e;
		}
		memcpy(pl, tmp, n * sizeof(*pl));
	}
	free(cnt);
	free(tmp);
}

/* One function's pieces below one anchor and one node of their heavy
 * paths there: places pl[lo, hi), the calls into it, whether it has
 * cost there, and where it is nested (up: the run of the function that
 * passes it its weight there, by call edge e; UINT32_MAX: below the
 * summed frame's node) and its context. */
struct prun {
	uint32_t at, f, node, up, e;
	uint32_t lo, hi;
	cg_calls calls;
	int cost;
	pc_id ctx;
};

/* The run of (at, f, node) among runs[0, n) (sorted so), or
 * UINT32_MAX. */
static uint32_t run_of(const struct prun *run, size_t n, uint32_t at,
		       uint32_t f, uint32_t node)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct prun *r = &run[mid];
		if (r->at < at || (r->at == at && (r->f < f ||
						   (r->f == f && r->node < node))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && run[lo].at == at && run[lo].f == f &&
			       run[lo].node == node ?
		       (uint32_t)lo :
		       UINT32_MAX;
}

/* Function F's piece from anchor src (its pieces by[first[F],
 * first[F + 1]) in decreasing anchor order), or SIZE_MAX. */
static size_t piece_of(const struct pieces *p, const uint32_t *by,
		       const size_t *first, uint32_t F, uint32_t src)
{
	size_t lo = first[F], hi = first[F + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->src[by[mid]] > src)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < first[F + 1] && p->src[by[lo]] == src ? by[lo] : SIZE_MAX;
}

/* Whether function F's records with weights w make the context of
 * edge e's call site below F's (then nesting its callee there takes no
 * context more). */
static int site_laid(const struct expand *x, uint32_t F, const double *w,
		     const struct cg_edge *ed)
{
	const struct cg_graph *g = x->g;
	if (!has_cost(x, F, w))
		return 0;
	for (uint32_t j = x->rec_start[F]; j < x->rec_start[F + 1]; j++) {
		const struct cg_rec *rec = &g->recs[x->rec_idx[j]];
		if ((!g->has_line || (rec->file == ed->file &&
				      rec->line == ed->line)) &&
		    (!x->instr_ctx || (rec->module == ed->module &&
				       rec->addr == ed->addr)))
			return 1;
	}
	return 0;
}

/* Run ri nested below the run of the function that passes it all its
 * weight at its anchor and path node, if every piece of it came by one
 * call edge from that function, whose pieces from the same anchors lie
 * at the same anchor, and the call's site fits in *spare. */
static void nest_run(const struct expand *x, const struct pieces *p,
		     const uint32_t *by, const size_t *first, const uint32_t *pat,
		     const struct pplace *pl, struct prun *run, size_t nrun,
		     const double *rsum, size_t ri, size_t *spare)
{
	struct prun *r = &run[ri];
	uint32_t e = CG_NO_EDGE;
	for (size_t i = r->lo; i < r->hi; i++) {
		uint32_t pe = p->e[pl[i].q];
		if (pe >= CG_EDGES || (e != CG_NO_EDGE && pe != e))
			return;
		e = pe;
	}
	if (e == CG_NO_EDGE)
		return;
	const struct cg_edge *ed = &x->g->edges[e];
	uint32_t F = ed->from;
	if (F == r->f)
		return;
	uint32_t rf = run_of(run, nrun, r->at, F, r->node);
	if (rf == UINT32_MAX || (!run[rf].cost && !cg_calls_any(run[rf].calls)))
		return;
	for (size_t i = r->lo; i < r->hi; i++) {
		size_t q = piece_of(p, by, first, F, p->src[pl[i].q]);
		if (q == SIZE_MAX || pat[q] != r->at)
			return;
	}
	size_t per = site_laid(x, F, rsum + (size_t)rf * x->nev, ed) ? 0 :
		     (size_t)x->g->has_line + (size_t)(x->instr_ctx != 0);
	if (per > *spare)
		return;
	*spare -= per;
	r->up = rf;
	r->e = e;
}

/* Lays out the anchors' rests within `avail` contexts (with rootroom:
 * and the entry point's own part). Each anchor's rest is walked once
 * (its cuts' flat profiles): a piece per function it reaches. Each
 * function is first laid out once, below the summed frame of the
 * lowest anchor above all its pieces (the flat profile: room for it is
 * kept throughout); then, while room is left, its pieces are split
 * below that anchor, those under each anchor below it going to their
 * own lowest common anchor, the split that moves the most cost past
 * the most anchors per context it takes first. So with room enough
 * every piece lies below its own anchor, and what room lacks is passed
 * up only as far as the function's other pieces need it. */
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
		.q = { pc_xcalloc(x->nsccs / 64 + 2, sizeof(uint64_t)),
		       pc_xcalloc(x->nsccs / 4096 + 2, sizeof(uint64_t)), 0, 0 },
		.solo = pc_xmalloc((x->nsccs + 1) * sizeof(uint32_t)),
		.edge = pc_xmalloc((nf + 1) * sizeof(uint32_t)),
	};
	memset(rw.solo, 0xff, (x->nsccs + 1) * sizeof(uint32_t));
	const double *self = x->fself;
	size_t end = cg_used(x) + avail; /* nothing beyond */
	struct pieces p = { 0 };
	size_t size0 = 0; /* the roots' own cuts */
	cg_hpath_rescue(x);
	for (size_t a = na; a-- > 0;) {
		struct anchor *an = &x->anchors[a];
		if (an->rhead == UINT32_MAX)
			continue;
		cg_rest_pend(x, (uint32_t)a, &rw.pe);
		while (rw.pe.n) {
			uint32_t path = walk_path(x, &rw);
			cg_piece_reserve(&p, nev, rw.n);
			for (size_t i = 0; i < rw.n; i++) {
				uint32_t f = rw.list[i];
				double *w = rw.wf + (size_t)f * nev;
				if (!a)
					size0 += settled_size(x, f, w,
							      rw.cin[f]);
				if (cg_any_positive(w, nev) ||
				    cg_calls_any(rw.cin[f]))
					cg_piece_add(&p, nev, f, (uint32_t)a, w,
						  rw.cin[f], rw.edge[f], path);
				memset(w, 0, nev * sizeof(double));
				rw.cin[f] = (cg_calls){ { 0, 0 } };
			}
		}
	}
	free(rw.pe.e);
	free(rw.pe.pw);
	free(rw.calls);
	free(rw.wf);
	free(rw.cin);
	free(rw.list);
	free(rw.sh);
	free(rw.nsh);
	free(rw.q.bit);
	free(rw.q.word);
	free(rw.solo);
	free(rw.edge);
	/* the rests' entries are consumed */
	free(x->rents);
	free(x->rval);
	free(x->rslot);
	x->rents = NULL;
	x->rval = NULL;
	x->rslot = NULL;
	x->nrents = x->caprents = x->nslot = 0;
	if (x->rootroom)
		end += size0;
	/* each function's pieces together; the anchors' depths */
	size_t *first = pc_xcalloc(nf + 2, sizeof(size_t));
	for (size_t i = 0; i < p.n; i++)
		first[p.f[i] + 1]++;
	for (size_t f = 0; f < nf; f++)
		first[f + 1] += first[f];
	p.idx = pc_xmalloc((p.n + 1) * sizeof(uint32_t));
	{
		size_t *fill = pc_xmalloc((nf + 1) * sizeof(size_t));
		memcpy(fill, first, (nf + 1) * sizeof(size_t));
		for (size_t i = 0; i < p.n; i++)
			p.idx[fill[p.f[i]]++] = (uint32_t)i;
		free(fill);
	}
	cg_anchor_tree(x, &p);
	p.nat = pc_xcalloc(na + 1, sizeof(uint32_t));
	size_t most = 0; /* a split's scratch: one function's pieces */
	for (size_t f = 0; f < nf; f++)
		most = first[f + 1] - first[f] > most ? first[f + 1] - first[f] :
							most;
	p.keys = pc_xmalloc((most + 1) * sizeof(*p.keys));
	p.ktmp = pc_xmalloc((most + 1) * sizeof(*p.ktmp));
	p.klist = pc_xmalloc((most + 1) * sizeof(uint32_t));
	p.sw = pc_xcalloc(nev + 1, sizeof(double));
	p.sacc = pc_xcalloc(nev + 1, sizeof(double));
	/* each function once, below the lowest anchor above its pieces */
	size_t used = cg_used(x);
	for (uint32_t f = 0; f < nf; f++) {
		if (first[f] == first[f + 1])
			continue;
		uint32_t lca = p.src[p.idx[first[f]]];
		for (size_t k = first[f] + 1; k < first[f + 1]; k++)
			lca = cg_anchor_lca(x, &p, lca, p.src[p.idx[k]]);
		uint32_t at = cg_place_of(x, &p, lca, f);
		PC_GROW(p.g, p.ng, p.capg);
		p.g[p.ng++] = (struct pgroup){ f, at, lca, 0, first[f],
					       first[f + 1] };
		used += cg_range_size(x, &p, f, first[f], first[f + 1], NULL) +
			!p.nat[at]++;
	}
	uint32_t *by = pc_xmalloc((p.n + 1) * sizeof(uint32_t));
	memcpy(by, p.idx, (p.n + 1) * sizeof(uint32_t));
	/* the places of the heavy paths below the summed frames: where a
	 * piece has a heavy path below its anchor's, half of what room is
	 * left is kept from the splits for them */
	size_t spare = used < end ? end - used : 0, hres = 0;
	struct hplace hp = { 0 };
	for (size_t q = 0; q < p.n && !hres; q++)
		if (p.path[q] != x->anchors[p.src[q]].hpath)
			hres = (size_t)((double)spare * CG_HEAVY_ROOM);
	spare -= hres;
	/* the splits, most gain per context first, while room is left */
	struct cg_cand *h = NULL;
	size_t nh = 0, caph = 0;
	for (size_t gi = 0; gi < p.ng; gi++)
		cg_cand_of(x, &p, gi, &h, &nh, &caph);
	while (nh) {
		struct cg_cand c = cg_cand_pop(h, &nh);
		if (c.cost == UINT32_MAX || c.cost > spare)
			continue;
		double gain;
		size_t cost, ng = p.ng;
		cg_split_group(x, &p, c.id, 1, &gain, &cost);
		spare -= cost;
		for (size_t gi = ng; gi < p.ng; gi++)
			cg_cand_of(x, &p, gi, &h, &nh, &caph);
	}
	free(h);
	spare += hres;
	/* each piece's place */
	uint32_t *pat = pc_xmalloc((p.n + 1) * sizeof(uint32_t));
	for (size_t gi = 0; gi < p.ng; gi++)
		for (size_t k = p.g[gi].lo; k < p.g[gi].hi; k++)
			pat[p.idx[k]] = p.g[gi].at;
	/* the heavy paths' places there, the most weight per context
	 * first within the room */
	double *pw = pc_xmalloc((p.n + 1) * sizeof(double));
	uint32_t *pnode = pc_xmalloc((p.n + 1) * sizeof(uint32_t));
	for (size_t q = 0; q < p.n; q++) {
		pw[q] = cg_share_of(x, p.w + q * nev,
				    self + (size_t)p.f[q] * nev);
		/* (the places alone: their weights are the trim's,
		 * cg_rest_pend's) */
		if (!q || pat[q] != pat[q - 1] || p.path[q] != p.path[q - 1])
			cg_hplace_make(x, &hp, pat[q], p.path[q]);
	}
	spare -= cg_hplace_keep(x, &hp, spare, p.n, pat, p.path, p.f, pw,
				pnode);
	free(pw);
	/* laid out per (anchor, function, path): a run of pieces */
	struct pplace *pl = pc_xmalloc((p.n + 1) * sizeof(*pl));
	size_t npl = p.n;
	for (size_t q = 0; q < p.n; q++)
		pl[q] = (struct pplace){ pat[q], p.f[q], pnode[q], (uint32_t)q };
	free(pnode);
	sort_places(pl, npl, na, nf, x->nhn);
	struct prun r0 = { 0 }, *run = pc_xmalloc((npl + 1) * sizeof(*run));
	size_t nrun = 0;
	double *rsum = pc_xcalloc(npl * nev + 1, sizeof(double));
	uint32_t *cnt = pc_xcalloc(na + 1, sizeof(uint32_t));
	double *flat = pc_xcalloc(nev + 1, sizeof(double)); /* at the entry */
	double *moved = pc_xcalloc(nev + 1, sizeof(double)); /* passed up */
	for (size_t i = 0; i < npl;) {
		struct prun *r = &run[nrun];
		*r = r0;
		r->at = pl[i].at;
		r->f = pl[i].f;
		r->node = pl[i].node;
		r->lo = (uint32_t)i;
		r->up = UINT32_MAX;
		r->ctx = PC_NONE;
		double *sum = rsum + nrun * nev;
		const double *sf = self + (size_t)r->f * nev;
		for (; i < npl && pl[i].at == r->at && pl[i].f == r->f &&
		       pl[i].node == r->node; i++) {
			size_t q = pl[i].q;
			for (size_t m = 0; m < nev; m++) {
				double v = p.w[q * nev + m];
				sum[m] += v;
				if (p.src[q] != r->at)
					moved[m] += v * sf[m];
				if (!m && x->grand[0] > 0)
					cg_up_piece(x, p.src[q], r->at,
						    v * sf[0] / x->grand[0]);
				if (!r->at)
					flat[m] += v * sf[m];
			}
			r->calls = cg_calls_sum(r->calls, p.c[q]);
		}
		r->hi = (uint32_t)i;
		r->cost = has_cost(x, r->f, sum);
		/* (a function counted once at its anchor) */
		cnt[r->at] += r->cost && !(nrun && run[nrun - 1].at == r->at &&
					   run[nrun - 1].f == r->f &&
					   run[nrun - 1].cost);
		nrun++;
	}
	/* a function nested below the one that passes it all its weight
	 * there (a call the input has, at its site), where that one's
	 * pieces from the same anchors lie there too */
	for (size_t ri = 0; ri < nrun; ri++)
		nest_run(x, &p, by, first, pat, pl, run, nrun, rsum, ri, &spare);
	/* the runs say it all now: the pieces' memory goes before the
	 * contexts and values come (the peak) */
	free(pat);
	free(by);
	free(first);
	free(pl);
	free(p.f);
	free(p.e);
	free(p.path);
	free(p.src);
	free(p.w);
	free(p.c);
	free(p.idx);
	free(p.depth);
	free(p.tin);
	free(p.tout);
	free(p.ks);
	free(p.kid);
	free(p.out);
	free(p.kcnt);
	free(p.nat);
	free(p.g);
	free(p.keys);
	free(p.ktmp);
	free(p.klist);
	free(p.sw);
	free(p.sacc);
	free(p.sub);
	uint32_t *stack = pc_xmalloc((nrun + 1) * sizeof(uint32_t));
	/* the functions each place's summed frame holds (below its runs'
	 * top: a nested run lies below its caller's place; each run's top
	 * found once) */
	{
		uint64_t *mark = pc_xcalloc(hp.n + 1, sizeof(uint64_t));
		uint32_t *top = pc_xmalloc((nrun + 1) * sizeof(uint32_t));
		memset(top, 0xff, (nrun + 1) * sizeof(uint32_t));
		for (size_t ri = 0; ri < nrun; ri++) {
			size_t n = 0;
			uint32_t j = (uint32_t)ri;
			while (top[j] == UINT32_MAX && run[j].up != UINT32_MAX) {
				stack[n++] = j;
				j = run[j].up;
			}
			uint32_t t = top[j] != UINT32_MAX ? top[j] : j;
			top[j] = t;
			while (n)
				top[stack[--n]] = t;
			if (run[ri].cost)
				cg_hplace_count(x, &hp, run[t].at, run[t].node,
						run[ri].f, mark);
		}
		free(top);
		free(mark);
	}
	pc_id *sctx = pc_xmalloc((na + 1) * sizeof(pc_id));
	for (size_t a = 0; a <= na; a++)
		sctx[a] = PC_NONE;
	for (size_t ri = 0; ri < nrun; ri++) {
		struct prun *r = &run[ri];
		if (!r->cost && !cg_calls_any(r->calls))
			continue;
		/* its context: below its caller's, or the summed frame */
		size_t top = 0;
		uint32_t j = (uint32_t)ri;
		while (run[j].ctx == PC_NONE && run[j].up != UINT32_MAX) {
			stack[top++] = j;
			j = run[j].up;
		}
		if (run[j].ctx == PC_NONE) {
			uint32_t at = run[j].at;
			if (sctx[at] == PC_NONE)
				sctx[at] = cg_summed_ctx(x, at ? x->anchors[at].ctx :
								 entry,
							 cnt[at] ? cnt[at] : 1);
			run[j].ctx = cg_call_ctx(
				x, cg_hplace_ctx(x, &hp, at, run[j].node, sctx[at]),
				g->fns[run[j].f].func);
		}
		while (top) {
			uint32_t k = stack[--top];
			const struct cg_edge *ed = &g->edges[run[k].e];
			pc_id site = cg_site_ctx(x, run[run[k].up].ctx, ed->file,
						 ed->line, ed->module, ed->addr);
			run[k].ctx = cg_call_ctx(x, site, g->fns[run[k].f].func);
		}
		if (r->cost)
			cg_lay_records(x, r->f, r->ctx, NULL, rsum + ri * nev);
		if (cg_calls_any(r->calls))
			cg_add_calls(x, r->ctx, r->calls);
	}
	free(stack);
	free(sctx);
	cg_hplace_free(&hp);
	free(run);
	free(rsum);
	x->flat_share = cg_share_of(x, x->ones, flat);
	x->top_share = cg_share_of(x, x->ones, moved);
	free(cnt);
	free(flat);
	free(moved);
}
