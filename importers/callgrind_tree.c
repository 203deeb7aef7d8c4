/* From a Callgrind call graph to a calling-context tree.
 *
 * A call graph says how much each function cost and how much each call
 * edge cost inclusively, but not along which paths. We assume, as gprof
 * and speedscope do, that a function behaves alike whoever calls it:
 * each call edge receives the share of the callee's activity that its
 * inclusive cost represents, per metric. Recursion is handled on the
 * strongly connected components (SCCs) of the graph: a recursive group
 * is laid out member by member along DAGs of its members made from its
 * entries' flows (callgrind_graph.c), each member under the members
 * that pass activity on to it, in proportion; calls back up a DAG are
 * folded into the member's contexts there. So:
 *   - every function's self cost is spread over its contexts with
 *     weights summing to 1 (per metric), recursion included;
 *   - the contexts of an edge outside a cycle receive its inclusive cost;
 *   - metric totals equal the sum of the self cost lines.
 * The tree is built best first: the pending subtree instance that
 * carries the largest share of any metric's total is laid out next, so
 * every calling context above a small share is in the tree with its
 * exact value. When the context budget is spent, each pending instance
 * becomes a cut: below its call site, the callee's context (the input's
 * call) and below it a '[summed: N functions]' frame with one context
 * per other function it would have reached, with that function's self
 * cost there per line (the instance's flat profile). So totals, every
 * function's self cost and every (function, line) cost stay exact, and
 * the cost below a cut stays under the cut. Cuts that would overrun the
 * budget so go below the nearest heavy context above them instead (an
 * anchor: 1% of a metric's total or more), in its summed frame, one
 * context per function with that function's cost there, heaviest first
 * as room allows; what is left of a function is passed up from anchor
 * to anchor and laid out once, below the lowest anchor above all the
 * cuts it came from. A rest keeps the heavy functions (on no cycle,
 * 1% of a total or more) its cost was reached through: below the
 * summed frame, frames of them hold what was reached through them, as
 * room allows (callgrind_hpath.c), so their inclusive cost stays below
 * them. The default bound is never below a 64 MiB database
 * (cg_default_cap): a small input's tree is laid out whole. */
#include "callgrind_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static void csr(size_t nfns, size_t n, const void *items, size_t stride,
		size_t off, uint32_t **start, uint32_t **idx)
{
	uint32_t *s = pc_xcalloc(nfns + 1, sizeof(uint32_t));
	uint32_t *x = pc_xmalloc((n ? n : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		uint32_t f;
		memcpy(&f, (const char *)items + i * stride + off, sizeof f);
		s[f + 1]++;
	}
	for (size_t f = 0; f < nfns; f++)
		s[f + 1] += s[f];
	uint32_t *fill = pc_xmalloc((nfns + 1) * sizeof(uint32_t));
	memcpy(fill, s, (nfns + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		uint32_t f;
		memcpy(&f, (const char *)items + i * stride + off, sizeof f);
		x[fill[f]++] = (uint32_t)i;
	}
	free(fill);
	*start = s;
	*idx = x;
}

/* Pending instances, heaviest first (a binary max-heap on share). */
struct workheap {
	struct work *items;
	size_t n, cap;
	double *pool; /* weights, append-only */
	size_t npool, cappool;
};

/* Contexts that laying out function f as one member takes (at most). */
static size_t member_size(const struct expand *x, uint32_t f)
{
	return 1 + x->npos[f] + 2 * (x->edge_start[f + 1] - x->edge_start[f]);
}

/* Whether work of this share that needs at least `need` contexts can
 * never be laid out nor be cut below its call site: what is laid out
 * only grows, and once it passes the room, nothing is left for cuts
 * below call sites. */
static int hopeless(const struct expand *x, double share, size_t need)
{
	size_t u = cg_used(x);
	return u >= x->room &&
	       u + need > (share >= CG_MIN_SHARE ? x->caproom : x->room);
}

static void note_cut(struct expand *x, double share)
{
	x->ncut++;
	if (share > x->heaviest)
		x->heaviest = share;
}

/* The slot of rest entry (a, kind, idx, heavy path hp) in the hash
 * table: its own, or the free one where it would go. */
static uint32_t *rest_slot(const struct expand *x, uint32_t a, uint32_t kind,
			   uint32_t idx, uint32_t hp)
{
	uint64_t h = ((uint64_t)a * 0x9E3779B97F4A7C15u) ^
		     (((uint64_t)idx << 2 | kind) * 0xC2B2AE3D27D4EB4Fu) ^
		     ((uint64_t)hp * 0xD6E8FEB86659FD93u);
	size_t i = (size_t)(h >> 20) & (x->nslot - 1);
	for (;; i = (i + 1) & (x->nslot - 1)) {
		uint32_t e = x->rslot[i];
		if (!e)
			return &x->rslot[i];
		const struct rent *r = &x->rents[e - 1];
		if (r->anchor == a && r->idx == idx && r->kind == kind &&
		    r->hpath == hp)
			return &x->rslot[i];
	}
}

/* Rest entry (kind, idx, heavy path hp) of anchor a: a's own, new
 * (with inst and zero values) if need be, or past maxrents entries the
 * same entry of the nearest anchor above that has one, else the entry
 * point's. */
static size_t rest_entry(struct expand *x, uint32_t a, uint32_t kind,
			 uint32_t idx, uint32_t inst, uint32_t hp)
{
	size_t nev = x->nev;
	if (x->nrents >= x->maxrents) {
		for (uint32_t b = a; b; b = x->anchors[b].up) {
			uint32_t *sl = rest_slot(x, b, kind, idx, hp);
			if (*sl)
				return *sl - 1;
		}
		a = 0;
	}
	if (2 * (x->nrents + 1) > x->nslot) { /* (half full at most) */
		free(x->rslot);
		x->nslot = x->nslot ? 2 * x->nslot : 1024;
		x->rslot = pc_xcalloc(x->nslot, sizeof(uint32_t));
		for (size_t e = 0; e < x->nrents; e++) {
			const struct rent *r = &x->rents[e];
			*rest_slot(x, r->anchor, r->kind, r->idx, r->hpath) =
				(uint32_t)e + 1;
		}
	}
	uint32_t *sl = rest_slot(x, a, kind, idx, hp);
	if (!*sl) {
		if (x->nrents == x->caprents) {
			x->caprents = x->caprents ? 2 * x->caprents : 1024;
			x->rents = pc_xrealloc(x->rents, x->caprents,
					       sizeof(*x->rents));
			x->rval = pc_xrealloc(x->rval, x->caprents * nev,
					      sizeof(double));
		}
		size_t e = x->nrents++;
		x->rents[e] = (struct rent){ a, idx, inst, x->anchors[a].rhead,
					     kind, hp };
		x->anchors[a].rhead = (uint32_t)e;
		memset(x->rval + e * nev, 0, nev * sizeof(double));
		*sl = (uint32_t)e + 1;
	}
	return *sl - 1;
}

/* Work cut flat below its anchor: its weights w go to the anchor's rest
 * as its SCC's, or for a member node as that node's (laid out by
 * cg_lay_rests at the end), and its calls in as its entry's. */
static void to_rest(struct expand *x, const struct work *it, const double *w)
{
	size_t nev = x->nev, e;
	uint32_t fn = it->entry;
	if (it->inst == UINT32_MAX) {
		e = rest_entry(x, it->anchor, CG_REST_SCC, it->scc, 0,
			       it->hpath);
	} else {
		uint32_t node = (uint32_t)(x->dags[it->inst].base + it->node);
		e = rest_entry(x, it->anchor, CG_REST_NODE, node, it->inst,
			       it->hpath);
		fn = x->nodes[node].fn;
	}
	for (size_t m = 0; m < nev; m++)
		x->rval[e * nev + m] += w[m];
	if (x->upstat && x->grand[0] > 0)
		cg_up_cut(x, it->anchor, it->parent,
			  w[0] * (it->inst == UINT32_MAX ?
					  x->total[(size_t)it->scc * nev] :
					  x->sub[(size_t)(x->dags[it->inst].base +
							  it->node) * nev]) /
				  x->grand[0]);
	if (cg_calls_any(it->calls)) {
		/* (the entry first: it may move rval; a pair's NEW's
		 * calls in the second of its nev >= 2 values) */
		e = rest_entry(x, it->anchor, CG_REST_CALLS, fn, 0,
			       it->hpath);
		x->rval[e * nev] += it->calls.n[0];
		if (x->g->count2)
			x->rval[e * nev + 1] += it->calls.n[1];
	}
}

/* Work that can no longer fit: counted as a cut and sent to the rest. */
static void cut_to_rest(struct expand *x, const struct work *it,
			const double *w)
{
	note_cut(x, it->share);
	to_rest(x, it, w);
}

static void insert_work(struct workheap *h, struct work it)
{
	PC_GROW(h->items, h->n, h->cap);
	size_t i = h->n++;
	while (i && h->items[(i - 1) / 2].share < it.share) {
		h->items[i] = h->items[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->items[i] = it;
}

/* Weights w at the end of the pool (a work item's: its w is the pool's
 * size before). */
static void pool_put(struct workheap *h, const double *w, size_t nev)
{
	if (h->npool + nev > h->cappool) {
		h->cappool = (h->npool + nev) * 2;
		h->pool = pc_xrealloc(h->pool, h->cappool, sizeof(double));
	}
	memcpy(h->pool + h->npool, w, nev * sizeof(double));
	h->npool += nev;
}

static void push_work(struct expand *x, struct workheap *h, uint32_t scc,
		      uint32_t entry, pc_id parent, const double *w,
		      cg_calls calls)
{
	size_t nev = x->nev;
	struct work it = { scc, entry, parent, h->npool,
			   cg_share_of(x, w, x->total + (size_t)scc * nev), calls,
			   UINT32_MAX, 0, x->cur, x->curpath };
	if (x->sccs[scc].n > 1) { /* a group: its entry member's node */
		size_t node = cg_entry_node(x, entry);
		it.inst = x->dag_of[entry];
		it.node = (uint32_t)(node - x->dags[it.inst].base);
		it.share = cg_share_of(x, w, x->sub + node * nev);
	}
	if (hopeless(x, it.share, x->sccs[scc].n > 1 ?
					  member_size(x, entry) : x->isize[scc])) {
		cut_to_rest(x, &it, w);
		return;
	}
	pool_put(h, w, nev);
	insert_work(h, it);
}

static struct work pop_work(struct workheap *h)
{
	struct work top = h->items[0], last = h->items[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->items[c + 1].share > h->items[c].share)
			c++;
		if (h->items[c].share <= last.share)
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (h->n)
		h->items[i] = last;
	return top;
}

/* Lays out function fn of SCC s below parent with weights w: its
 * context, its costs per position and its call sites. Calls into other
 * SCCs are queued as instances; calls inside s are its caller's to lay
 * out (a recursive group's DAG, or a function's calls to itself). */
static pc_id lay_member(struct expand *x, struct workheap *ws, uint32_t s,
			uint32_t fn, pc_id parent, const double *w,
			double *wchild)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	pc_id fctx = cg_call_ctx(x, parent, g->fns[fn].func);
	cg_lay_records(x, fn, fctx, NULL, w);
	for (size_t m = 0; m < nev; m++)
		x->laid[m] += w[m] * x->fself[(size_t)fn * nev + m];
	uint32_t e0 = x->edge_start[fn], e1 = x->edge_start[fn + 1];
	for (uint32_t j = e1; j-- > e0;) {
		uint32_t e = x->edge_idx[j];
		const struct cg_edge *ed = &g->edges[e];
		uint32_t t = x->scc_of[ed->to];
		if (t == s)
			continue;
		for (size_t m = 0; m < nev; m++)
			wchild[m] = w[m] * x->efrac[e * nev + m];
		if (!cg_any_positive(wchild, nev))
			continue;
		pc_id c = cg_site_ctx(x, fctx, ed->file, ed->line, ed->module,
				   ed->addr);
		push_work(x, ws, t, ed->to, c, wchild, cg_edge_calls(x, s, w, e));
	}
	return fctx;
}

/* Lays out an instance of a one-function SCC below parent with weights
 * w: its calls to itself (recursion) are folded into its one context,
 * with the calls into the instance; the SCCs it calls are queued. */
static void expand_instance(struct expand *x, struct workheap *ws,
			    const struct work *it, const double *w,
			    double *wchild)
{
	uint32_t f = it->entry;
	pc_id fctx = lay_member(x, ws, it->scc, f, it->parent, w, wchild);
	cg_calls calls = it->calls;
	for (uint32_t j = x->edge_start[f + 1]; j-- > x->edge_start[f];) {
		uint32_t e = x->edge_idx[j];
		if (x->scc_of[x->g->edges[e].to] == it->scc)
			calls = cg_calls_sum(calls,
					     cg_edge_calls(x, it->scc, w, e));
	}
	cg_add_calls(x, fctx, calls);
}

/* Lays out one member node of a recursive group's DAG with weights w
 * and queues its forward callees, each a node of its own with its share
 * of w. */
static void expand_member(struct expand *x, struct workheap *ws,
			  const struct work *it, const double *w,
			  double *wchild)
{
	size_t nev = x->nev;
	const struct onode *nd = x->nodes + x->dags[it->inst].base;
	uint32_t f = nd[it->node].fn;
	pc_id fctx = lay_member(x, ws, it->scc, f, it->parent, w, wchild);
	cg_add_calls(x, fctx, cg_calls_sum(it->calls,
					   cg_fold_calls(x, it->scc, w, f)));
	for (size_t d = nd[it->node].e0; d < nd[it->node].e1; d++) {
		uint32_t t = x->dedges[d].to;
		const double *fr = x->dfrac + d * nev;
		for (size_t m = 0; m < nev; m++)
			wchild[m] = w[m] * fr[m];
		if (!cg_any_positive(wchild, nev))
			continue;
		const struct cg_edge *ed = &x->g->edges[x->dedges[d].edge];
		pc_id c = cg_site_ctx(x, fctx, ed->file, ed->line, ed->module,
				   ed->addr);
		struct work cw = {
			it->scc, it->entry, c, ws->npool,
			cg_share_of(x, wchild,
				    x->sub + (x->dags[it->inst].base + t) * nev),
			{ { 0, 0 } }, it->inst, t, x->cur, x->curpath
		};
		if (hopeless(x, cw.share, member_size(x, nd[t].fn))) {
			cut_to_rest(x, &cw, wchild);
			continue;
		}
		pool_put(ws, wchild, nev);
		insert_work(ws, cw);
	}
}

/* Contexts one instance of SCC s lays out (at most). */
static size_t instance_size(const struct expand *x, uint32_t s)
{
	const struct scc *c = &x->sccs[s];
	size_t n = 0;
	for (uint32_t k = 0; k < c->n; k++)
		n += member_size(x, x->members[c->first + k]);
	return n;
}

/* The anchor of work `it` laid out now, entering at function fn: a new
 * one, its function context (every function context laid out is one:
 * what is cut below it stays below it). */
static uint32_t anchor_at(struct expand *x, const struct work *it,
			  uint32_t fn)
{
	if (it->share < CG_ANCHOR_SHARE || x->nanchors >= UINT32_MAX)
		return it->anchor;
	PC_GROW(x->anchors, x->nanchors, x->capanchors);
	x->anchors[x->nanchors] = (struct anchor){
		.ctx = cg_call_ctx(x, it->parent, x->g->fns[fn].func),
		.up = it->anchor,
		.fn = fn,
		.rhead = UINT32_MAX,
		.hpath = x->curpath,
	};
	return (uint32_t)x->nanchors++;
}

/* The default bound's run under a larger --max-contexts
 * (default_run), and the larger one's verdict on its own tree */
struct dtrial {
	/* per function: its loss in cg_hplace_keep's model (HUGE_VAL:
	 * none measured; at [nfns] the room its units took), and its
	 * inclusive cost in the tree (cg_fn_incl); the contexts it added */
	double *loss, *incl;
	size_t ncontexts, ncut;
	/* the larger run: the function its tree draws furthest beyond
	 * the default's distance from its inclusive cost (PC_NONE: none,
	 * or the default's tree does not fit the larger bound), and by how
	 * much (a share); or, none such, whether its tree is cut where the
	 * default's is whole */
	pc_id worse;
	double by;
	int cut;
};

static pc_id *expand(struct pc_db *db, const struct cg_graph *g,
		     pc_id profile, pc_id entry,
		     const struct pc_import_opts *opts, size_t *norder,
		     struct dtrial *dt);

/* What the model held before a layout that may be rolled back: its
 * contexts, values and functions, and its cut note */
struct mark {
	size_t nc, nv, nf;
	const char *note;
	double share;
};

static struct mark mark_take(const struct pc_db *db)
{
	return (struct mark){ db->ncontexts, db->nvalues, db->nfunctions,
			      db->cut_note, db->cut_share };
}

static void mark_back(struct pc_db *db, const struct mark *m)
{
	db->cut_note = m->note;
	db->cut_share = m->share;
	pc_db_rollback(db, m->nc, m->nv, m->nf);
}

/* The default bound's layout run and rolled back, its notes unsaid:
 * each function's loss there (cg_hplace_keep's model, a share of the
 * first metric's total) and its inclusive cost in the tree. */
static void default_run(struct pc_db *db, const struct cg_graph *g,
			pc_id profile, pc_id entry,
			const struct pc_import_opts *opts, struct dtrial *dt)
{
	struct pc_import_opts d = *opts;
	d.max_contexts = 0;
	dt->loss = pc_xmalloc((g->nfns + 1) * sizeof(double));
	dt->incl = pc_xmalloc((g->nfns + 1) * sizeof(double));
	for (uint32_t f = 0; f <= g->nfns; f++)
		dt->loss[f] = HUGE_VAL;
	struct mark m = mark_take(db);
	struct pc_diag *diag = db->diag;
	db->diag = NULL;
	size_t n;
	free(expand(db, g, profile, entry, &d, &n, dt));
	db->diag = diag;
	dt->ncontexts = db->ncontexts - m.nc;
	mark_back(db, &m);
}

pc_id *pc_cg_expand(struct pc_db *db, const struct cg_graph *g, pc_id profile,
		    pc_id entry, const struct pc_import_opts *opts,
		    size_t *norder)
{
	struct mark m = mark_take(db);
	struct dtrial dt = { .worse = PC_NONE };
	pc_id *order = expand(db, g, profile, entry, opts, norder, &dt);
	if (dt.worse == PC_NONE && !dt.cut)
		return order;
	/* the room given would tell a worse story than the default
	 * bound's, whose tree fits it: that tree is laid out again in its
	 * place (issue 58, item 3) */
	char why[400];
	if (dt.worse != PC_NONE)
		snprintf(why, sizeof why, "--max-contexts=%zu: its tree would "
			 "draw %s %.2g point further from its inclusive share "
			 "than the default bound's tree, which (%zu contexts) "
			 "is kept", opts->max_contexts,
			 db->functions[dt.worse].name, 100 * dt.by,
			 dt.ncontexts);
	else
		snprintf(why, sizeof why, "--max-contexts=%zu: its tree would "
			 "be cut; the default bound's is whole, and it (%zu "
			 "contexts) is kept", opts->max_contexts, dt.ncontexts);
	free(order);
	mark_back(db, &m);
	struct pc_import_opts d = *opts;
	d.max_contexts = 0;
	order = expand(db, g, profile, entry, &d, norder, NULL);
	pc_note(db->diag, "%s", why);
	return order;
}

/* (dt: the default bound's run under a larger one, default_run,
 * where it has loss set; else the run that may be a larger one, its
 * verdict) */
static pc_id *expand(struct pc_db *db, const struct cg_graph *g,
		     pc_id profile, pc_id entry,
		     const struct pc_import_opts *opts, size_t *norder,
		     struct dtrial *dt)
{
	*norder = 0;
	if (!g->nfns)
		return NULL;
	struct expand x = {
		.db = db, .g = g, .nev = g->nev, .profile = profile,
		.start = db->ncontexts,
		.instr_ctx = cg_instr_ctx(g, opts),
		.upstat = db->diag && db->diag->verbose,
	};
	x.shared = pc_xcalloc(x.start / 8 + 1, 1);
	/* the entry point first (made before, by every reader) */
	x.shared[entry >> 3] |= (unsigned char)(1u << (entry & 7));
	cg_first_laid(&x, entry);
	csr(g->nfns, g->nrecs, g->recs, sizeof(*g->recs),
	    offsetof(struct cg_rec, fn), &x.rec_start, &x.rec_idx);
	csr(g->nfns, g->nedges, g->edges, sizeof(*g->edges),
	    offsetof(struct cg_edge, from), &x.edge_start, &x.edge_idx);
	csr(g->nfns, g->nedges, g->edges, sizeof(*g->edges),
	    offsetof(struct cg_edge, to), &x.in_start, &x.in_idx);
	x.fidx = pc_xmalloc((g->nfns + 1) * sizeof(uint32_t));
	x.grand = pc_xcalloc(x.nev + 1, sizeof(double));
	x.fself = pc_xcalloc(g->nfns * x.nev + 1, sizeof(double));
	for (size_t r = 0; r < g->nrecs; r++)
		for (size_t m = 0; m < x.nev; m++) {
			double c = (double)g->rcost[r * x.nev + m];
			x.grand[m] += c;
			x.fself[(size_t)g->recs[r].fn * x.nev + m] += c;
		}
	if (g->sgn) { /* (a pair: each run's own event) */
		x.ref = pc_xmalloc((2 * (size_t)g->nfns + 1) * sizeof(uint32_t));
		for (uint32_t f = 0; f < g->nfns; f++)
			for (int r = 0; r < 2; r++) {
				size_t k = r ? g->split : 0;
				size_t hi = r || !g->count2 ? x.nev : g->split;
				const double *fs = x.fself + (size_t)f * x.nev;
				while (k < hi && (g->sgn[k] || !(fs[k] > 0)))
					k++;
				x.ref[2 * (size_t)f + r] =
					(uint32_t)(k < hi ? k : x.nev);
			}
	}
	x.ones = pc_xmalloc((x.nev + 1) * sizeof(double));
	for (size_t m = 0; m < x.nev; m++)
		x.ones[m] = 1;
	x.visit = pc_xcalloc(g->nfns, sizeof(uint32_t));
	cg_analyze(&x);
	cg_hpath_init(&x);
	/* the flat profile (every function once with its positions) is
	 * the floor; by default as much again goes to calling context, and
	 * at least room for one instance of the largest recursive cluster
	 * (an interpreter's) and half the floor more: some 20-30 times a
	 * line-level input as a database */
	x.npos = pc_xcalloc(g->nfns + 1, sizeof(uint32_t));
	x.reserve = cg_flat_floor(&x);
	for (uint32_t f = 0; f < g->nfns; f++)
		x.nocost += x.rec_start[f] == x.rec_start[f + 1];
	size_t big = 0;
	x.isize = pc_xmalloc((x.nsccs + 1) * sizeof(size_t));
	for (uint32_t s = 0; s < x.nsccs; s++) {
		size_t n = x.isize[s] = instance_size(&x, s);
		big = n > big ? n : big;
	}
	size_t extra = big + x.reserve / 2 > x.reserve ? big + x.reserve / 2 :
							 x.reserve;
	x.budget = opts && opts->max_contexts ? opts->max_contexts :
		   x.reserve + extra + 1024;
	/* a larger --max-contexts: the trims scale with it, and its units
	 * go in the order that keeps the functions' losses nearest those
	 * at the default bound (issue 58, item 3; doc/callgrind-tree.md,
	 * section 5, "More room") */
	size_t dbudget;
	x.hscale = cg_trim_scale(&x, opts, x.reserve + extra + 1024, &dbudget);
	size_t v0 = db->nvalues;
	struct dtrial *dfill = dt && dt->loss ? dt : NULL;
	struct dtrial dref = { .worse = PC_NONE };
	/* a bound given that the default's tree may fit: the default's
	 * layout first, its tree the one this tree is judged by (below),
	 * its losses the units' goals above the default bound. That tree
	 * holds the whole tree, or nearly its budget (the least seen 97.5%
	 * of it: sqlite3 with --separate-callers=2); below either a trial
	 * would take 60% more instructions and 40% more memory for
	 * nothing (the cc1plus fixture at 100,000 contexts) */
	if (opts && opts->max_contexts && !dfill &&
	    (double)opts->max_contexts >= fmin(cg_whole_least(&x),
					       0.75 * (double)dbudget))
		default_run(db, g, profile, entry, opts, &dref);
	x.dgoal = x.hscale < 1 ? dref.loss : NULL;
	x.dloss = dfill ? dfill->loss : NULL;
	x.laid = pc_xcalloc(x.nev + 1, sizeof(double));
	x.flats = pc_xcalloc(x.nsccs + 1, sizeof(*x.flats));
	x.fsh = pc_xcalloc(g->nfns * x.nev + 1, sizeof(double));
	x.nsh = pc_xcalloc(cg_nsh_size(&x), sizeof(double));
	x.flist = pc_xmalloc((g->nfns + 1) * sizeof(uint32_t));
	x.calls[0] = x.calls[1] = PC_NONE;
	for (size_t e = 0; e < g->nedges && x.calls[0] == PC_NONE; e++)
		if (g->edges[e].count)
			x.calls[0] = g->pair ? g->cmetric[0] : pc_metric_get(
				db, PC_CALLS_METRIC,
				"Calls of the function from its call site "
				"(Callgrind calls= counts); inclusive: the "
				"calls made in the subtree", "calls");
	for (size_t e = 0; g->count2 && e < g->nedges &&
			   x.calls[1] == PC_NONE; e++)
		if (g->count2[e])
			x.calls[1] = g->cmetric[1];
	x.mw = pc_xmalloc((x.nev + 1) * sizeof(double));
	x.uw = pc_xmalloc((x.nev + 1) * sizeof(double));
	x.rw = pc_xmalloc((x.nev + 1) * sizeof(double));
	x.acc = pc_xmalloc((x.nev + 1) * sizeof(double));
	size_t hard; /* the bound of everything, rests included */
	size_t cap = cg_default_cap(&x, opts, &hard);
	cg_rest_shift(&x, &cap, &hard);
	size_t room = x.budget > x.reserve ? x.budget - x.reserve : 0;
	size_t caproom = cap > x.reserve ? cap - x.reserve : 0;
	x.room = room;
	x.caproom = caproom;
	/* the contexts this may add (a default bound: and the roots' own
	 * rest, at most a flat profile, see lay_rests), and values: a value
	 * per event (and calls) for each, twice (a context's cost may come
	 * in parts) */
	size_t most = hard > x.reserve ? hard : x.reserve;
	x.rootroom = !(opts && opts->max_contexts) && !x.tight;
	if (x.rootroom)
		most += x.reserve + x.nocost;
	pc_ctx_reserve(db, most);
	pc_values_reserve(db, most > SIZE_MAX / (2 * x.nev + 2) ?
				      SIZE_MAX : most * (2 * x.nev + 2));

	struct workheap ws = { 0 };
	double *w = pc_xmalloc(x.nev * sizeof(double));
	double *wchild = pc_xmalloc(x.nev * sizeof(double));
	/* anchors: the entry point, and every function context laid out; their rests within some 64 MiB */
	x.anchors = pc_xcalloc(1, sizeof(*x.anchors));
	x.anchors[0] = (struct anchor){ .ctx = entry, .fn = UINT32_MAX,
					.rhead = UINT32_MAX };
	x.nanchors = x.capanchors = 1;
	x.maxrents = (64u << 20) / (sizeof(struct rent) + x.nev * sizeof(double) +
				    2 * sizeof(uint32_t));
	/* roots: SCCs with activity no caller accounts for */
	for (uint32_t f = 0; f < g->nfns; f++) {
		uint32_t s = x.scc_of[f];
		if (x.members[x.sccs[s].first] != f)
			continue; /* visit each SCC once, at its first member */
		if (x.sccs[s].n > 1) {
			/* a group: at each member whose activity no caller
			 * accounts for */
			for (uint32_t k = 0; k < x.sccs[s].n; k++) {
				uint32_t m = x.members[x.sccs[s].first + k];
				if (cg_any_positive(x.froot + (size_t)m * x.nev,
						    x.nev))
					push_work(&x, &ws, s, m, entry,
						  x.froot + (size_t)m * x.nev,
						  (cg_calls){ { 0, 0 } });
			}
			continue;
		}
		if (cg_any_positive(x.root + (size_t)s * x.nev, x.nev) &&
		    cg_any_positive(x.total + (size_t)s * x.nev, x.nev))
			push_work(&x, &ws, s, f, entry,
				  x.root + (size_t)s * x.nev,
				  (cg_calls){ { 0, 0 } });
	}
	/* best first, while the room lasts */
	size_t ncut = 0;
	struct work *cuts = NULL;
	size_t capcuts = 0;
	size_t next_progress = 1u << 16;
	size_t run = 0; /* cuts in a row */
	while (ws.n) {
		struct work it = pop_work(&ws);
		if (cg_used(&x) >= next_progress) {
			pc_progress(db->diag, "building the calling-context tree",
				    cg_used(&x), cap, UINT64_MAX);
			next_progress = cg_used(&x) + (1u << 16);
		}
		memcpy(w, ws.pool + it.w, x.nev * sizeof(double));
		size_t lim = it.share >= CG_MIN_SHARE ? caproom : room;
		if (it.inst == UINT32_MAX &&
		    cg_used(&x) + x.isize[it.scc] <= lim) {
			x.curpath = cg_hpath_step(&x, it.hpath, it.entry);
			x.cur = anchor_at(&x, &it, it.entry);
			expand_instance(&x, &ws, &it, w, wchild);
			run = 0;
			continue;
		}
		/* a recursive group is laid out member by member along its
		 * DAG, each member node (with what lies below it) competing
		 * with all other pending work */
		if (it.inst != UINT32_MAX) {
			uint32_t f = x.nodes[x.dags[it.inst].base + it.node].fn;
			if (cg_used(&x) + member_size(&x, f) <= lim) {
				x.curpath = it.hpath; /* (not heavy) */
				x.cur = anchor_at(&x, &it, f);
				expand_member(&x, &ws, &it, w, wchild);
				run = 0;
				continue;
			}
		}
		note_cut(&x, it.share);
		PC_GROW(cuts, ncut, capcuts);
		cuts[ncut++] = it;
		run = it.share < CG_MIN_SHARE ? run + 1 : 0;
		/* once nothing can fit (what is pending is no heavier than
		 * this), the rest are cuts too, taken as they lie: they all
		 * go below the entry point, since no room is left for a
		 * cut below its call site; so too after CG_CUT_RUN cuts in a
		 * row below CG_MIN_SHARE (what room is left is too small for
		 * them: a million cuts in a row, 100 MB, on a compile) */
		if (cg_used(&x) >= caproom ||
		    (it.share < CG_MIN_SHARE && cg_used(&x) >= room) ||
		    run >= CG_CUT_RUN) {
			for (size_t i = 0; i < ws.n; i++)
				cut_to_rest(&x, &ws.items[i],
					    ws.pool + ws.items[i].w);
			ws.n = 0;
		}
	}
	/* the cuts, heaviest first: each instance's flat profile below its
	 * call site while the budget lasts; the rest are summed per SCC and
	 * laid out once, flat below the entry point */
	double *sh = pc_xcalloc(x.nsccs * x.nev + 1, sizeof(double));
	uint8_t *on = pc_xcalloc(x.nsccs + 1, 1);
	uint32_t *heap = pc_xmalloc((x.nsccs + 1) * sizeof(uint32_t));
	/* progress, where the tree is large enough to show it: the cut
	 * parts, then their rests, each phase from 0 to 100% */
	int shown = next_progress > (1u << 16);
	for (size_t i = 0; i < ncut; i++) {
		const struct work *it = &cuts[i];
		const double *wc = ws.pool + it->w;
		if (shown && i % 4096 == 0)
			pc_progress(db->diag, "building the calling-context "
				    "tree: placing the parts cut", i, ncut,
				    UINT64_MAX);
		if (cg_used(&x) + x.reserve + 1 < x.budget) {
			/* (1: the summed frame below the callee) */
			size_t limit = x.budget - x.reserve - cg_used(&x) - 1;
			if (it->inst != UINT32_MAX) {
				if (cg_cut_member(&x, it, wc, sh, on, heap, limit))
					continue;
			} else {
				const struct flat *fl = cg_flat_of(
					&x, it->scc, sh, on, heap, limit);
				if (fl) {
					cg_lay_flat(&x, fl, it->parent, wc,
						    it->entry, limit - fl->size);
					cg_add_calls(&x,
						  cg_call_ctx(&x, it->parent,
							   g->fns[it->entry]
								   .func),
						  it->calls);
					continue;
				}
			}
		}
		to_rest(&x, it, wc);
	}
	if (shown)
		pc_progress(db->diag, "building the calling-context tree: "
			    "summing the parts cut per function", 0, 0,
			    UINT64_MAX);
	/* the pending work's weights and the cuts are laid out or in the
	 * rests now: their memory goes before the rests' */
	free(cuts);
	free(ws.items);
	free(ws.pool);
	cuts = NULL;
	ws.items = NULL;
	ws.pool = NULL;
	cg_lay_rests(&x, hard > cg_used(&x) ? hard - cg_used(&x) : 0, entry);
	free(dref.loss);
	cg_lay_signed_flat(&x, entry);
	if (dfill) {
		cg_fn_incl(&x, v0, dfill->incl);
		dfill->ncut = x.ncut;
	}
	if (dref.incl) { /* (a bound given: its verdict) */
		double *tb = pc_xmalloc((g->nfns + 1) * sizeof(double));
		cg_fn_incl(&x, v0, tb);
		uint32_t f = cg_room_worse(&x, dref.incl, tb, &dt->by);
		if (dref.ncontexts <= opts->max_contexts) {
			dt->worse = f != UINT32_MAX ? g->fns[f].func : PC_NONE;
			dt->cut = !dref.ncut && x.ncut;
			dt->ncontexts = dref.ncontexts;
		}
		free(tb);
		free(dref.incl);
	}
	cg_hpath_free(&x);
	free(x.ref);
	free(x.anchors);
	free(x.rents);
	free(x.rval);
	free(x.rslot);
	free(x.rw);
	free(x.acc);
	free(x.isize);
	free(x.dags);
	free(x.dag_of);
	free(x.nodes);
	free(x.dedges);
	free(x.dfrac);
	free(x.fold);
	free(x.sub);
	free(x.froot);
	free(x.fsh);
	free(x.nsh);
	free(x.sdag);
	free(x.dpos);
	free(x.flist);
	free(x.pos);
	free(x.mw);
	free(x.uw);
	if (shown)
		pc_progress_done(db->diag);
	double cut_share = 0; /* the largest of any metric */
	for (size_t m = 0; x.ncut && m < x.nev; m++)
		if (x.grand[m] > 0 && 1 - x.laid[m] / x.grand[m] > cut_share)
			cut_share = 1 - x.laid[m] / x.grand[m];
	/* every output says where its tree was cut (db->cut_note) */
	/* (a larger bound's tree not kept says nothing) */
	int kept = !dt || (dt->worse == PC_NONE && !dt->cut);
	if (x.ncut && kept) {
		char cut[320];
		snprintf(cut, sizeof cut, "call tree cut to its size bound: "
			 "%s%% of the cost is in [summed: N functions] "
			 "frames below the contexts whose callees were cut "
			 "(totals and self costs exact; --max-contexts=N keeps "
			 "more)", pc_pct((char[32]){ 0 }, 32, 100 * cut_share));
		pc_db_cut(db, cut_share, cut);
	}
	/* said when it changes what a viewer shows: 1% of the cost or more
	 * off its full paths (a flame graph's frame of 1% is some pixels
	 * wide); --verbose says it always, with where */
	if (x.ncut && kept && (cut_share >= 0.01 ||
		       (db->diag && db->diag->verbose)))
		pc_note(db->diag, "%s%% of the cost is shown without its "
			"full call paths, in [summed: N functions] frames where "
			"the tree was cut (totals stay exact); %s%zu%s",
			pc_pct((char[32]){ 0 }, 32, 100 * cut_share),
			x.viewer ? "the tree's " : "--max-contexts=N, a few "
				   "times the ", cg_used(&x),
			x.viewer ? " contexts are the most hpcviewer reads (a "
				   "meta.db of 2 GiB)" : " contexts kept, keeps "
				   "more paths");
	if (x.ncut && kept && db->diag && db->diag->verbose) {
		char where[CG_WHERE] = "";
		size_t n = 0;
		if (x.top_share > 0)
			n = (size_t)snprintf(where, sizeof where, "%.2g%% below "
				"the lowest caller above all of a function's "
				"cuts", 100 * x.top_share);
		if (x.flat_share > 0 && n < sizeof where)
			n += (size_t)snprintf(where + n, sizeof where - n,
					      "%s%.2g%% flat below the entry "
					      "point", n ? "; " : "",
					      100 * x.flat_share);
		if (x.up && n + 2 < sizeof where) {
			if (n)
				n += (size_t)snprintf(where + n, sizeof where - n,
						      "; ");
			n += cg_up_say(&x, where + n, sizeof where - n);
		}
		pc_note(db->diag, "call tree cut at %zu contexts (budget %zu%s, "
			"--max-contexts to change): about %.3g%% of the cost "
			"lies below %zu cuts (the heaviest %.2g%%), kept per "
			"function and line in a '[summed: N functions]' frame "
			"below each cut's callee, or else below the nearest "
			"caller above it with 1%% or more that has room%s%s%s%s",
			cg_used(&x), x.budget,
			cap > x.budget && cg_used(&x) > x.budget ?
				", more for contexts above 0.01%" : "",
			100 * cut_share, x.ncut, 100 * x.heaviest,
			*where ? " (" : "", where, *where ? ")" : "",
			opts && opts->max_contexts && cg_used(&x) > hard ?
				" (the flat profile alone needs more than the "
				"budget)" : "");
	}
	free(x.up);
	free(sh);
	free(on);
	free(heap);
	free(cuts);
	for (size_t s = 0; s < x.nsccs; s++) {
		free(x.flats[s].fn);
		free(x.flats[s].share);
	}
	free(x.flats);
	free(x.grand);
	free(x.laid);
	free(x.fself);
	free(x.ones);
	free(x.npos);
	free(w);
	free(wchild);
	free(ws.items);
	free(ws.pool);
	free(x.visit);
	free(x.shared);
	free(x.rec_start);
	free(x.rec_idx);
	free(x.edge_start);
	free(x.edge_idx);
	free(x.in_start);
	free(x.in_idx);
	free(x.fidx);
	free(x.nup);
	free(x.nedge);
	free(x.nstack);
	free(x.nctx);
	free(x.scc_of);
	free(x.sccs);
	free(x.members);
	free(x.incl);
	free(x.efrac);
	free(x.total);
	free(x.root);
	*norder = x.norder;
	return x.order;
}
