/* From a Callgrind call graph to a calling-context tree.
 *
 * A call graph says how much each function cost and how much each call
 * edge cost inclusively, but not along which paths. We assume, as gprof
 * and speedscope do, that a function behaves alike whoever calls it:
 * each call edge receives the share of the callee's activity that its
 * inclusive cost represents, per metric. Recursion is handled on the
 * strongly connected components (SCCs) of the graph: an SCC is entered
 * as a unit, its members are laid out once along a depth-first spanning
 * tree from the member entered, and calls back into members already on
 * that tree are folded into them. So:
 *   - every function's self cost is spread over its contexts with
 *     weights summing to 1 (per metric), recursion included;
 *   - the contexts of an edge outside a cycle receive its inclusive cost;
 *   - metric totals equal the sum of the self cost lines.
 * Expansion stops at max_contexts; what would have gone below goes into
 * a visible "[call tree limit]" placeholder, so totals still hold. */
#include "callgrind.h"

#include <stdlib.h>
#include <string.h>

struct scc {
	uint32_t first, n; /* members in scc_members[first..first+n) */
};

struct expand {
	struct pc_db *db;
	const struct cg_graph *g;
	size_t nev;
	pc_id profile;
	size_t max_contexts;

	/* CSR of records and out-edges per function */
	uint32_t *rec_start, *rec_idx;
	uint32_t *edge_start, *edge_idx;

	uint32_t *scc_of;
	struct scc *sccs;
	size_t nsccs;
	uint32_t *members;

	double *incl;  /* per SCC x nev: max(self + out, in) */
	double *total; /* per SCC x nev: cost of one full expansion */
	double *root;  /* per SCC x nev: share not covered by callers */

	uint32_t *visit; /* per function: stamp of the last instance */
	uint32_t stamp;
};

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

/* Tarjan's algorithm without recursion. SCCs come out callees first
 * (reverse topological order), which the cost pass below relies on. */
static void find_sccs(struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t n = g->nfns;
	uint32_t *index = pc_xmalloc(n * sizeof(uint32_t));
	uint32_t *low = pc_xmalloc(n * sizeof(uint32_t));
	char *on = pc_xcalloc(n, 1);
	uint32_t *stack = pc_xmalloc(n * sizeof(uint32_t));
	struct frame {
		uint32_t v, next;
	} *call = pc_xmalloc(n * sizeof(*call));
	size_t sp = 0, cp = 0, cap = 0;
	uint32_t counter = 0;
	for (size_t i = 0; i < n; i++)
		index[i] = UINT32_MAX;
	x->scc_of = pc_xmalloc(n * sizeof(uint32_t));
	x->members = pc_xmalloc(n * sizeof(uint32_t));
	size_t nmem = 0;
	for (uint32_t root = 0; root < n; root++) {
		if (index[root] != UINT32_MAX)
			continue;
		call[cp++] = (struct frame){ root, x->edge_start[root] };
		index[root] = low[root] = counter++;
		stack[sp++] = root;
		on[root] = 1;
		while (cp) {
			struct frame *f = &call[cp - 1];
			uint32_t v = f->v;
			if (f->next < x->edge_start[v + 1]) {
				uint32_t w = g->edges[x->edge_idx[f->next++]].to;
				if (index[w] == UINT32_MAX) {
					index[w] = low[w] = counter++;
					stack[sp++] = w;
					on[w] = 1;
					call[cp++] = (struct frame){
						w, x->edge_start[w] };
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				PC_GROW(x->sccs, x->nsccs, cap);
				struct scc *s = &x->sccs[x->nsccs];
				s->first = (uint32_t)nmem;
				uint32_t w;
				do {
					w = stack[--sp];
					on[w] = 0;
					x->scc_of[w] = (uint32_t)x->nsccs;
					x->members[nmem++] = w;
				} while (w != v);
				s->n = (uint32_t)nmem - s->first;
				x->nsccs++;
			}
			cp--;
			if (cp) {
				uint32_t u = call[cp - 1].v;
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
	/* members in function order, so layouts do not depend on the
	 * traversal */
	for (size_t s = 0; s < x->nsccs; s++) {
		uint32_t *m = x->members + x->sccs[s].first;
		for (uint32_t i = 1; i < x->sccs[s].n; i++)
			for (uint32_t j = i; j > 0 && m[j - 1] > m[j]; j--) {
				uint32_t t = m[j];
				m[j] = m[j - 1];
				m[j - 1] = t;
			}
	}
	free(index);
	free(low);
	free(on);
	free(stack);
	free(call);
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* Per SCC: inclusive cost, the cost of one full expansion, and the share
 * of its activity that no caller accounts for (it is a root there). */
static void scc_costs(struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev, ns = x->nsccs;
	double *self = pc_xcalloc(ns * nev, sizeof(double));
	double *out = pc_xcalloc(ns * nev, sizeof(double));
	double *in = pc_xcalloc(ns * nev, sizeof(double));
	x->incl = pc_xcalloc(ns * nev, sizeof(double));
	x->total = pc_xcalloc(ns * nev, sizeof(double));
	x->root = pc_xcalloc(ns * nev, sizeof(double));
	for (size_t r = 0; r < g->nrecs; r++) {
		uint32_t s = x->scc_of[g->recs[r].fn];
		for (size_t m = 0; m < nev; m++)
			self[s * nev + m] += (double)g->rcost[r * nev + m];
	}
	for (size_t e = 0; e < g->nedges; e++) {
		uint32_t a = x->scc_of[g->edges[e].from];
		uint32_t b = x->scc_of[g->edges[e].to];
		if (a == b)
			continue;
		for (size_t m = 0; m < nev; m++) {
			double c = (double)g->ecost[e * nev + m];
			out[a * nev + m] += c;
			in[b * nev + m] += c;
		}
	}
	for (size_t s = 0; s < ns; s++)
		for (size_t m = 0; m < nev; m++) {
			double own = self[s * nev + m] + out[s * nev + m];
			double i = in[s * nev + m];
			x->incl[s * nev + m] = own > i ? own : i;
			double r = 1 - ratio(i, x->incl[s * nev + m]);
			x->root[s * nev + m] = r > 1e-12 ? r : 0;
		}
	/* callees come first, so their totals are known */
	for (size_t s = 0; s < ns; s++) {
		double *t = x->total + s * nev;
		memcpy(t, self + s * nev, nev * sizeof(double));
		const struct scc *c = &x->sccs[s];
		for (uint32_t k = 0; k < c->n; k++) {
			uint32_t f = x->members[c->first + k];
			for (uint32_t j = x->edge_start[f];
			     j < x->edge_start[f + 1]; j++) {
				uint32_t e = x->edge_idx[j];
				uint32_t b = x->scc_of[g->edges[e].to];
				if (b == s)
					continue;
				for (size_t m = 0; m < nev; m++)
					t[m] += (double)g->ecost[e * nev + m] *
						ratio(x->total[b * nev + m],
						      x->incl[b * nev + m]);
			}
		}
	}
	free(self);
	free(out);
	free(in);
}

/* The context that positions a cost or a call site inside function
 * context fctx: a line, an instruction under it, or both. */
static pc_id site_ctx(struct expand *x, pc_id fctx, pc_id file, uint32_t line,
		      pc_id module, uint64_t addr)
{
	pc_id c = fctx;
	if (x->g->has_line) {
		struct pc_context k = { .kind = PC_CTX_LINE,
					.rel = PC_REL_LEXICAL, .file = file,
					.line = line };
		c = pc_ctx_child(x->db, c, &k);
	}
	if (x->g->has_instr) {
		struct pc_context k = { .kind = PC_CTX_INSTRUCTION,
					.rel = PC_REL_LEXICAL, .module = module,
					.offset = addr };
		c = pc_ctx_child(x->db, c, &k);
	}
	return c;
}

static pc_id call_ctx(struct expand *x, pc_id parent, pc_id func)
{
	struct pc_context k = { .kind = PC_CTX_FUNCTION, .rel = PC_REL_CALL,
				.function = func, .file = PC_NONE,
				.module = PC_NONE };
	return pc_ctx_child(x->db, parent, &k);
}

struct work {
	uint32_t scc, entry;
	pc_id parent;
	size_t w; /* offset of the weights in the pool */
};

struct workstack {
	struct work *items;
	size_t n, cap;
	double *pool;
	size_t npool, cappool;
};

static void push_work(struct workstack *ws, uint32_t scc, uint32_t entry,
		      pc_id parent, const double *w, size_t nev)
{
	PC_GROW(ws->items, ws->n, ws->cap);
	if (ws->npool + nev > ws->cappool) {
		ws->cappool = (ws->npool + nev) * 2;
		ws->pool = pc_xrealloc(ws->pool, ws->cappool, sizeof(double));
	}
	memcpy(ws->pool + ws->npool, w, nev * sizeof(double));
	ws->items[ws->n++] = (struct work){ scc, entry, parent, ws->npool };
	ws->npool += nev;
}

static int any_positive(const double *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] > 0)
			return 1;
	return 0;
}

/* Lays out one instance of an SCC entered at `entry` below `parent`
 * with weights w, and queues the instances of the SCCs it calls. */
static void expand_instance(struct expand *x, struct workstack *ws,
			    const struct work *it, const double *w,
			    double *wchild)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	struct lay {
		uint32_t fn;
		pc_id parent;
	} *todo = NULL;
	size_t ntodo = 0, captodo = 0;
	x->stamp++;
	x->visit[it->entry] = x->stamp;
	PC_GROW(todo, ntodo, captodo);
	todo[ntodo++] = (struct lay){ it->entry, it->parent };
	while (ntodo) {
		struct lay l = todo[--ntodo];
		pc_id fctx = call_ctx(x, l.parent, g->fns[l.fn].func);
		for (uint32_t j = x->rec_start[l.fn]; j < x->rec_start[l.fn + 1];
		     j++) {
			uint32_t r = x->rec_idx[j];
			const struct cg_rec *rec = &g->recs[r];
			pc_id c = site_ctx(x, fctx, rec->file, rec->line,
					   rec->module, rec->addr);
			for (size_t m = 0; m < nev; m++)
				pc_value_add(x->db, x->profile, c, g->metric[m],
					     (double)g->rcost[r * nev + m] *
						     w[m]);
		}
		/* push in reverse so members are laid out in edge order */
		uint32_t e0 = x->edge_start[l.fn], e1 = x->edge_start[l.fn + 1];
		for (uint32_t j = e1; j-- > e0;) {
			uint32_t e = x->edge_idx[j];
			const struct cg_edge *ed = &g->edges[e];
			uint32_t t = x->scc_of[ed->to];
			if (t == it->scc) {
				if (x->visit[ed->to] == x->stamp)
					continue; /* folded recursion */
				x->visit[ed->to] = x->stamp;
				pc_id s = site_ctx(x, fctx, ed->file, ed->line,
						   ed->module, ed->addr);
				PC_GROW(todo, ntodo, captodo);
				todo[ntodo++] = (struct lay){ ed->to, s };
				continue;
			}
			for (size_t m = 0; m < nev; m++)
				wchild[m] = w[m] *
					    ratio((double)g->ecost[e * nev + m],
						  x->incl[t * nev + m]);
			if (!any_positive(wchild, nev))
				continue;
			pc_id s = site_ctx(x, fctx, ed->file, ed->line,
					   ed->module, ed->addr);
			if (x->db->ncontexts >= x->max_contexts) {
				/* placeholder keeping the subtree's cost */
				const struct pc_function *f =
					&x->db->functions[g->fns[ed->to].func];
				char name[512];
				snprintf(name, sizeof name,
					 "[call tree limit] %s", f->name);
				pc_id pf = pc_function_get(x->db, name,
							   f->module, 0,
							   f->file, 0);
				pc_id c = call_ctx(x, s, pf);
				for (size_t m = 0; m < nev; m++)
					pc_value_add(x->db, x->profile, c,
						     g->metric[m],
						     wchild[m] *
							     x->total[t * nev + m]);
				continue;
			}
			push_work(ws, t, ed->to, s, wchild, nev);
		}
	}
	free(todo);
}

/* The member an SCC is entered at when it is a root: the first one no
 * other member calls, else the first one. */
static uint32_t root_entry(const struct expand *x, const char *called,
			   uint32_t s)
{
	const struct scc *c = &x->sccs[s];
	for (uint32_t k = 0; k < c->n; k++)
		if (!called[x->members[c->first + k]])
			return x->members[c->first + k];
	return x->members[c->first];
}

void pc_cg_expand(struct pc_db *db, const struct cg_graph *g, pc_id profile,
		  pc_id entry, size_t max_contexts)
{
	if (!g->nfns)
		return;
	struct expand x = {
		.db = db, .g = g, .nev = g->nev, .profile = profile,
		.max_contexts = max_contexts,
	};
	csr(g->nfns, g->nrecs, g->recs, sizeof(*g->recs),
	    offsetof(struct cg_rec, fn), &x.rec_start, &x.rec_idx);
	csr(g->nfns, g->nedges, g->edges, sizeof(*g->edges),
	    offsetof(struct cg_edge, from), &x.edge_start, &x.edge_idx);
	find_sccs(&x);
	scc_costs(&x);
	x.visit = pc_xcalloc(g->nfns, sizeof(uint32_t));

	struct workstack ws = { 0 };
	double *w = pc_xmalloc(x.nev * sizeof(double));
	double *wchild = pc_xmalloc(x.nev * sizeof(double));
	/* roots in function order (the order of the file); each root's
	 * tree is laid out completely before the next */
	uint32_t *roots = pc_xmalloc(x.nsccs * sizeof(uint32_t));
	size_t nroots = 0;
	char *called = pc_xcalloc(g->nfns, 1);
	for (size_t e = 0; e < g->nedges; e++)
		if (x.scc_of[g->edges[e].from] == x.scc_of[g->edges[e].to])
			called[g->edges[e].to] = 1;
	for (uint32_t f = 0; f < g->nfns; f++) {
		uint32_t s = x.scc_of[f];
		if (x.members[x.sccs[s].first] != f)
			continue; /* visit each SCC once, at its first member */
		if (any_positive(x.root + (size_t)s * x.nev, x.nev) &&
		    any_positive(x.total + (size_t)s * x.nev, x.nev))
			roots[nroots++] = s;
	}
	for (size_t i = 0; i < nroots; i++) {
		uint32_t s = roots[i];
		push_work(&ws, s, root_entry(&x, called, s), entry,
			  x.root + (size_t)s * x.nev, x.nev);
		while (ws.n) {
			struct work it = ws.items[--ws.n];
			memcpy(w, ws.pool + it.w, x.nev * sizeof(double));
			ws.npool = it.w;
			expand_instance(&x, &ws, &it, w, wchild);
		}
	}
	free(roots);
	free(called);
	free(w);
	free(wchild);
	free(ws.items);
	free(ws.pool);
	free(x.visit);
	free(x.rec_start);
	free(x.rec_idx);
	free(x.edge_start);
	free(x.edge_idx);
	free(x.scc_of);
	free(x.sccs);
	free(x.members);
	free(x.incl);
	free(x.total);
	free(x.root);
}
