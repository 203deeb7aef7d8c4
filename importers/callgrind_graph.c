/* The call graph (as the parser builds it: callgrind_ids.c) as the
 * expansion (callgrind_tree.c) needs it: its strongly connected
 * components (recursive groups), what one unit of work entering each
 * costs, and each recursive group's DAG with the flows that decide
 * where its members go (doc/callgrind-tree.md, "Callgrind:
 * from a call graph to a calling-context tree").
 *
 * Outside recursion a call edge's weight is its share of its callee
 * SCC's activity (its cost over the SCC's inclusive cost). Inside a
 * group of several functions, activity flows from the group's entries
 * (calls from outside, and activity no caller accounts for: a thread's
 * start) along the edges, each member passing on to a callee the part
 * of its own flow that the edge's cost is of its inclusive cost. The
 * members are put in Prim's order from the entries (the heaviest edge
 * first), edges to a later member are the DAG's, and edges back are
 * recursion, folded into the callee. A member's flow is the sum of what
 * reaches it; a context of it holds the share of that flow which comes
 * along its path, so the shares of each member (and each metric) sum to
 * 1 over its contexts: every self cost and every call out of the group
 * is laid out exactly once, and a member sits under each caller in
 * proportion to what that caller passes on to it. */
#include "callgrind_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An edge's or a flow's weight in the scalar column (the shares of the
 * metrics' totals, summed), where a metric has none: every edge has at
 * least this, so every member is reached. */
#define CG_EPS 1e-12
/* Balancing a group's DAGs (balance()): at most this many rounds, until
 * every DAG lays out what its entries bring in within this share of the
 * group's cost. */
#define CG_BALANCE_ROUNDS 40
#define CG_BALANCED 1e-6
/* A copy of a group member in a DAG (dag_node) takes at least this
 * share of the totals. */
#define CG_COPY_SHARE 1e-4
/* The edges the analysis may visit to find what part of a flow a copy
 * takes (avoid()): some seconds at most. */
#define CG_COPY_WORK ((size_t)1 << 28)

/* Room for n items in ptr (capacity cap), doubling. */
#define GROW_TO(ptr, cap, n)                                                 \
	do {                                                                 \
		if ((n) > (cap)) {                                           \
			(cap) = (cap) * 2 > (n) ? (cap) * 2 : (n);           \
			(ptr) = pc_xrealloc((ptr), (cap), sizeof(*(ptr)));   \
		}                                                            \
	} while (0)

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* a[0, n) in increasing order: by insertion up to 64 (most calls sort a
 * few ids, where qsort's calls through a pointer cost more than the
 * moves), by qsort above (insertion is quadratic: a recursive group of
 * 15,000 members took 690 of the generated 70 MB file's 31,378 M
 * instructions). Not stable: for distinct ids, or where equal ones are
 * alike. */
void cg_sort_u32(uint32_t *a, size_t n)
{
	if (n > 64) {
		qsort(a, n, sizeof(*a), cmp_u32);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint32_t t = a[i];
		size_t j = i;
		for (; j && a[j - 1] > t; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
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
	 * traversal (the ids are distinct) */
	for (size_t s = 0; s < x->nsccs; s++)
		cg_sort_u32(x->members + x->sccs[s].first, x->sccs[s].n);
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

int cg_any_positive(const double *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] > 0)
			return 1;
	return 0;
}

static int cand_above(const struct cg_cand *a, const struct cg_cand *b)
{
	return a->key > b->key || (a->key == b->key && a->id < b->id);
}
int cg_cand_cmp(const void *a, const void *b)
{
	const struct cg_cand *p = a, *q = b;
	return cand_above(p, q) ? -1 : cand_above(q, p) ? 1 : 0;
}

void cg_cand_push(struct cg_cand **h, size_t *n, size_t *cap,
		  struct cg_cand c)
{
	PC_GROW(*h, *n, *cap);
	size_t i = (*n)++;
	while (i && cand_above(&c, &(*h)[(i - 1) / 2])) {
		(*h)[i] = (*h)[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	(*h)[i] = c;
}
struct cg_cand cg_cand_pop(struct cg_cand *h, size_t *n)
{
	struct cg_cand top = h[0], last = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && cand_above(&h[c + 1], &h[c]))
			c++;
		if (!cand_above(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
	return top;
}

/* The analysis's scratch: per function, K columns (the metrics, then
 * the scalar one) each. */
struct gscratch {
	size_t K;
	double *xin;  /* calls in from other SCCs */
	double *ain;  /* all calls in */
	double *aout; /* all calls out */
	double *self;
	double *flow; /* a group member's flow (kept for its callers) */
	double *cs;   /* per edge: its scalar weight */
	uint32_t *midx; /* per function: its index among its SCC's members */
	double *nflow;  /* per node: its flow (K columns) */
	double *escale; /* per function x nev: a group member's calls in
			 * from outside, scaled by balance() */
	size_t capnflow;
	struct cg_cand *h; /* Prim's order: (key, function) */
	size_t caph;
	size_t work; /* edges left for avoid()'s passes */
};

/* Column k of edge e's cost. */
static double ecol(const struct expand *x, const struct gscratch *gs,
		   uint32_t e, size_t k)
{
	return k < x->nev ? (double)x->g->ecost[(size_t)e * x->nev + k] :
			    gs->cs[e];
}

/* The column that stands for metric m at member f: m where a flow of m
 * reaches f, else the scalar one. */
static size_t col(const struct expand *x, const struct gscratch *gs,
		  uint32_t f, size_t m)
{
	return gs->flow[(size_t)f * gs->K + m] > 0 ? m : x->nev;
}

/* The cost of the work a call along edge e starts, per unit of its
 * weight: the callee SCC's full expansion, or the callee's node's. */
static const double *callee_cost(const struct expand *x, uint32_t e)
{
	uint32_t to = x->g->edges[e].to, b = x->scc_of[to];
	if (x->sccs[b].n == 1)
		return x->total + (size_t)b * x->nev;
	return x->sub + cg_entry_node(x, to) * x->nev;
}

/* Edge e's weights (into another SCC): its share of its callee's
 * activity, per metric. */
static void edge_weights(struct expand *x, const struct gscratch *gs,
			 uint32_t e)
{
	size_t nev = x->nev;
	uint32_t to = x->g->edges[e].to, b = x->scc_of[to];
	for (size_t m = 0; m < nev; m++) {
		if (x->sccs[b].n == 1) {
			x->efrac[e * nev + m] =
				ratio((double)x->g->ecost[e * nev + m],
				      x->incl[(size_t)b * nev + m]);
			continue;
		}
		size_t k = col(x, gs, to, m);
		x->efrac[e * nev + m] =
			ratio(ecol(x, gs, e, k),
			      gs->flow[(size_t)to * gs->K + k]) *
			gs->escale[(size_t)to * nev + m];
	}
}

/* SCC s's own cost per unit (a whole instance's, for one function: its
 * total): self plus the calls out of it, each with its callee's cost. */
static void own_cost(struct expand *x, const struct gscratch *gs, uint32_t f,
		     double *own)
{
	size_t nev = x->nev;
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j];
		if (x->scc_of[x->g->edges[e].to] == x->scc_of[f])
			continue;
		edge_weights(x, gs, e);
		const double *cc = callee_cost(x, e);
		for (size_t m = 0; m < nev; m++)
			own[m] += x->efrac[e * nev + m] * cc[m];
	}
}

/* The member a group is entered at when no caller accounts for its
 * activity: the first one no other member calls, else the first one. */
static uint32_t root_member(const struct expand *x, const struct gscratch *gs,
			    uint32_t s)
{
	const struct scc *c = &x->sccs[s];
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t f = x->members[c->first + k];
		if (!cg_any_positive(gs->ain + (size_t)f * gs->K, x->nev))
			return f;
	}
	return x->members[c->first];
}

/* What member f at node nd of a DAG of its group s divides its flow
 * among (column k): its self cost, its calls out of the group and its
 * forward calls there; its calls back up the DAG are recursion, their
 * cost counted already where they lead. */
static double node_den(const struct expand *x, const struct gscratch *gs,
		       uint32_t s, const struct onode *nd, size_t k)
{
	uint32_t f = nd->fn;
	double d = gs->self[f * gs->K + k];
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j];
		if (x->scc_of[x->g->edges[e].to] != s)
			d += ecol(x, gs, e, k);
	}
	for (size_t e = nd->e0; e < nd->e1; e++)
		d += ecol(x, gs, x->dedges[e].edge, k);
	return d;
}

/* The part of a flow `in` at a node that passes on along edge e (column
 * k): the edge's cost over the node's den, or over the flow where that
 * is more: never more than the edge's cost. */
static double pass_rate(const struct expand *x, const struct gscratch *gs,
			uint32_t e, size_t k, double den, double in)
{
	return ratio(ecol(x, gs, e, k), den > in ? den : in);
}

/* Sinkhorn's balancing of group s's DAGs, metric by metric
 * (doc/callgrind-tree.md): the cost a DAG lays out of a member is the member's
 * own cost times the share of its flow that DAG holds. Those amounts are
 * scaled per DAG (r) and per member (c) until each DAG lays out what its
 * entries bring in (so a call into the group carries its own cost, as a
 * call outside recursion does) and each member its own cost, the
 * members' last (so each member's shares still sum to 1). Then a forward
 * edge's share is scaled by c of its callee over c of its caller and a
 * call in by r times c of the member it enters (escale), so that each
 * node holds r times c of the mass it held before. */
static void balance(struct expand *x, struct gscratch *gs, uint32_t s,
		    const double *xflow, const double *own)
{
	const uint32_t *mem = x->members + x->sccs[s].first;
	size_t nev = x->nev, K = gs->K, n = x->sccs[s].n;
	uint32_t d0 = x->sdag[s], nd = x->sdag[s + 1] - d0;
	if (nd < 2)
		return; /* one DAG holds every entry and every member */
	double *a = pc_xmalloc(nd * n * sizeof(double));
	double *want = pc_xmalloc(nd * sizeof(double));
	double *r = pc_xmalloc(nd * sizeof(double));
	double *rw = pc_xmalloc(nd * sizeof(double));
	double *cm = pc_xmalloc(n * nev * sizeof(double));
	double *cq = pc_xmalloc(n * sizeof(double));
	double *cs = pc_xmalloc(n * sizeof(double));
	for (size_t k = 0; k < n * nev; k++)
		cm[k] = 1;
	for (size_t q = 0; q < nev; q++) {
		double in = 0, sum = 0;
		for (uint32_t d = 0; d < nd; d++)
			want[d] = 0, r[d] = 1;
		for (size_t k = 0; k < n; k++) {
			sum += own[k * nev + q];
			uint32_t d = x->dag_of[mem[k]];
			if (d != UINT32_MAX) {
				want[d - d0] += xflow[k * K + q];
				in += xflow[k * K + q];
			}
		}
		if (in <= 0 || sum <= 0)
			continue;
		for (uint32_t d = 0; d < nd; d++) {
			const struct dag *dg = &x->dags[d0 + d];
			want[d] *= sum / in;
			for (size_t k = 0; k < n; k++)
				a[d * n + k] = 0;
			for (uint32_t p = 0; p < dg->n; p++) {
				size_t i = dg->base + p;
				uint32_t f = x->nodes[i].fn;
				size_t k = gs->midx[f], kc = col(x, gs, f, q);
				a[d * n + k] += ratio(gs->nflow[i * K + kc],
						      gs->flow[(size_t)f * K + kc]) *
						own[k * nev + q];
			}
		}
		/* rounds: the DAGs' scales, the members' (so the members'
		 * sums are exact when it stops). The members' scales of
		 * metric q side by side meanwhile (cq), and the sums' loops
		 * four terms a step, in the same order (the same sums: a
		 * group of the generated files runs all 40 rounds over a
		 * 65 x 1,878 matrix, most of cg_analyze's time) */
		for (size_t k = 0; k < n; k++)
			cq[k] = cm[k * nev + q];
		for (int round = 0; round < CG_BALANCE_ROUNDS; round++) {
			double err = 0;
			for (uint32_t d = 0; d < nd; d++) {
				const double *ad = a + d * n;
				double rs = 0;
				size_t k = 0;
				for (; k + 4 <= n; k += 4) {
					rs += ad[k] * cq[k];
					rs += ad[k + 1] * cq[k + 1];
					rs += ad[k + 2] * cq[k + 2];
					rs += ad[k + 3] * cq[k + 3];
				}
				for (; k < n; k++)
					rs += ad[k] * cq[k];
				double off = fabs(r[d] * rs - want[d]);
				err = off > err ? off : err;
				rw[d] = rs > 0 ? want[d] / rs : 1;
			}
			if (err <= CG_BALANCED * sum)
				break;
			memcpy(r, rw, nd * sizeof(double));
			/* the members' sums row by row (each sum's terms
			 * still in the DAGs' order): the matrix read in
			 * order */
			for (size_t k = 0; k < n; k++)
				cs[k] = 0;
			for (uint32_t d = 0; d < nd; d++) {
				const double *ad = a + d * n;
				double rd = r[d];
				size_t k = 0;
				for (; k + 4 <= n; k += 4) {
					cs[k] += rd * ad[k];
					cs[k + 1] += rd * ad[k + 1];
					cs[k + 2] += rd * ad[k + 2];
					cs[k + 3] += rd * ad[k + 3];
				}
				for (; k < n; k++)
					cs[k] += rd * ad[k];
			}
			for (size_t k = 0; k < n; k++) {
				double o = own[k * nev + q];
				if (cs[k] > 0 && o > 0)
					cq[k] = o / cs[k];
			}
		}
		for (size_t k = 0; k < n; k++)
			cm[k * nev + q] = cq[k];
		for (uint32_t d = 0; d < nd; d++) {
			const struct dag *dg = &x->dags[d0 + d];
			for (uint32_t i = 0; i < dg->n; i++) {
				const struct onode *o = &x->nodes[dg->base + i];
				double cf = cm[gs->midx[o->fn] * nev + q];
				for (size_t e = o->e0; e < o->e1; e++) {
					uint32_t to = x->nodes[dg->base +
							       x->dedges[e].to].fn;
					x->dfrac[e * nev + q] *=
						cm[gs->midx[to] * nev + q] / cf;
				}
			}
		}
		for (size_t k = 0; k < n; k++) {
			uint32_t d = x->dag_of[mem[k]];
			if (d != UINT32_MAX)
				gs->escale[(size_t)mem[k] * nev + q] =
					r[d - d0] * cm[k * nev + q];
		}
	}
	free(a);
	free(want);
	free(r);
	free(rw);
	free(cm);
	free(cq);
	free(cs);
}

/* A DAG unrolled where recursion is not certain (doc/callgrind-tree.md): its
 * members in Prim's order first, one node each (the primaries), then
 * copies, each below the one node that calls it. */
struct unroll {
	uint32_t n, all; /* primaries; nodes so far */
	uint32_t *par;   /* per copy (node n + i): the node that calls it */
	size_t cappar;
	double *reach;   /* per primary up to the current root: the part
			  * of its flow that reaches the root */
	uint32_t low;    /* reach holds the primaries from low to root */
};

/* The part of primary root's flow that comes on paths without the
 * primary at `at` (before it): 1 less what reaches root through that
 * one. 0 (no copy) once the analysis has spent CG_COPY_WORK edges on
 * such passes: a hostile graph cannot make them quadratic. */
static double avoid(const struct expand *x, struct gscratch *gs,
		    uint32_t s, size_t base, struct unroll *u, uint32_t root,
		    uint32_t at)
{
	size_t K = gs->K;
	double fl = gs->nflow[(base + root) * K + K - 1];
	if (!(fl > 0))
		return 0;
	if (u->low > root || at < u->low) { /* what reaches root, back to at */
		uint32_t hi = u->low > root ? root : u->low;
		if (u->low > root)
			u->reach[root] = 1;
		for (uint32_t q = hi; q-- > at;) {
			const struct onode *o = &x->nodes[base + q];
			if (gs->work < o->e1 - o->e0) {
				u->low = UINT32_MAX;
				return gs->work = 0;
			}
			gs->work -= o->e1 - o->e0;
			double r = 0, in = gs->nflow[(base + q) * K + K - 1],
			       den = node_den(x, gs, s, o, K - 1);
			for (size_t d = o->e0; d < o->e1; d++) {
				const struct dedge *de = &x->dedges[d];
				if (de->to <= root && de->to < u->n)
					r += u->reach[de->to] *
					     pass_rate(x, gs, de->edge, K - 1,
						       den, in);
			}
			u->reach[q] = r;
		}
		u->low = at;
	}
	double p = 1 - gs->nflow[(base + at) * K + K - 1] * u->reach[at] / fl;
	return p > 0 ? p : 0;
}

/* Node i of the DAG being made (from base), reached from primary root:
 * its forward edges, copies where it calls a member that may not be
 * above it (each with the part of its flow on such paths), of
 * CG_COPY_SHARE or more; its flow passed on. A primary calls the
 * primaries after it; a member before it is above it on the paths
 * through that member. A copy calls copies of the members not above
 * it: not on its chain of copies up to root, nor root, and the
 * primaries before root on the paths through them. */
static void dag_node(struct expand *x, struct gscratch *gs, uint32_t s,
		     size_t base, struct unroll *u, uint32_t i, uint32_t root)
{
	const struct cg_graph *g = x->g;
	size_t K = gs->K;
	uint32_t f = x->nodes[base + i].fn;
	size_t d0 = x->ndedges;
	if (i == root)
		u->low = UINT32_MAX; /* a new root: reach to compute */
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j], to = g->edges[e].to;
		if (x->scc_of[to] != s || to == f)
			continue;
		uint32_t at = x->pos[to];
		if (i >= u->n || at < i) { /* a copy's, or back */
			int on = at == root;
			for (uint32_t q = i; !on && q >= u->n;
			     q = u->par[q - u->n])
				on = x->nodes[base + q].fn == to;
			if (on)
				continue; /* recursion */
			at = UINT32_MAX; /* a copy, if it takes enough */
		}
		PC_GROW(x->dedges, x->ndedges, x->capdedges);
		x->dedges[x->ndedges++] = (struct dedge){ e, at };
	}
	x->nodes[base + i].e0 = d0;
	x->nodes[base + i].e1 = x->ndedges;
	/* the copies that take CG_COPY_SHARE or more (with every call of
	 * the node counted in what it divides its flow among) */
	double den = node_den(x, gs, s, &x->nodes[base + i], K - 1);
	double in = gs->nflow[(base + i) * K + K - 1];
	size_t w = d0;
	for (size_t d = d0; d < x->ndedges; d++) {
		struct dedge de = x->dedges[d];
		if (de.to == UINT32_MAX) {
			uint32_t to = g->edges[de.edge].to;
			double fl = in * pass_rate(x, gs, de.edge, K - 1, den, in);
			if (!(fl >= CG_COPY_SHARE) ||
			    x->nnodes + u->all + 1 > x->maxnodes)
				continue;
			double part = x->pos[to] < root ?
				avoid(x, gs, s, base, u, root, x->pos[to]) : 1;
			if (!(fl * part >= CG_COPY_SHARE))
				continue;
			de.to = u->all++;
			GROW_TO(x->nodes, x->capnodes, base + u->all);
			GROW_TO(gs->nflow, gs->capnflow, (base + u->all) * K);
			GROW_TO(u->par, u->cappar, u->all - u->n);
			u->par[de.to - u->n] = i;
			x->nodes[base + de.to] =
				(struct onode){ .fn = to, .part = (float)part };
			memset(gs->nflow + (base + de.to) * K, 0,
			       K * sizeof(double));
		}
		x->dedges[w++] = de;
	}
	x->ndedges = w;
	x->nodes[base + i].e1 = w;
	const struct onode *nd = &x->nodes[base + i];
	const double *ff = gs->nflow + (base + i) * K;
	for (size_t k = 0; k < K; k++) {
		double dn = node_den(x, gs, s, nd, k);
		for (size_t d = nd->e0; d < nd->e1; d++) {
			uint32_t t = x->dedges[d].to;
			gs->nflow[(base + t) * K + k] +=
				ff[k] * x->nodes[base + t].part *
				pass_rate(x, gs, x->dedges[d].edge, k, dn,
					  ff[k]);
		}
	}
}

/* Prim's order of group s from the sources on the heap (nh of them):
 * a DAG's nodes from x->nnodes on (its members, then their copies:
 * dag_node), with its forward edges and each node's flow (K columns:
 * its sources' entry flows, then what its forward callers pass on) in
 * gs->nflow; its node count. */
static uint32_t dag_order(struct expand *x, struct gscratch *gs, uint32_t s,
			  size_t nh, const double *xflow)
{
	const struct cg_graph *g = x->g;
	size_t K = gs->K, base = x->nnodes;
	uint32_t n = 0;
	x->stamp++;
	while (nh) {
		uint32_t f = (uint32_t)cg_cand_pop(gs->h, &nh).id;
		if (x->visit[f] == x->stamp)
			continue;
		x->visit[f] = x->stamp;
		x->pos[f] = n; /* (for this DAG, while it is made) */
		x->nodes[base + n] = (struct onode){ .fn = f, .part = 1 };
		n++;
		for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1];
		     j++) {
			uint32_t e = x->edge_idx[j], to = g->edges[e].to;
			if (x->scc_of[to] == s && x->visit[to] != x->stamp)
				cg_cand_push(&gs->h, &nh, &gs->caph,
					     (struct cg_cand){ gs->cs[e], to, 0 });
		}
	}
	GROW_TO(gs->nflow, gs->capnflow, (base + n) * K);
	for (uint32_t i = 0; i < n; i++)
		memcpy(gs->nflow + (base + i) * K,
		       xflow + (size_t)gs->midx[x->nodes[base + i].fn] * K,
		       K * sizeof(double));
	struct unroll u = { .n = n, .all = n,
			    .reach = pc_xmalloc((n + 1) * sizeof(double)) };
	for (uint32_t i = 0; i < n; i++) {
		uint32_t from = u.all;
		dag_node(x, gs, s, base, &u, i, i);
		for (uint32_t q = from; q < u.all; q++)
			dag_node(x, gs, s, base, &u, q, i);
	}
	free(u.reach);
	free(u.par);
	/* where each member is in this DAG */
	GROW_TO(x->dpos, x->capdpos, x->npos_all + n);
	for (uint32_t i = 0; i < n; i++)
		x->dpos[x->npos_all + gs->midx[x->nodes[base + i].fn]] = i;
	x->nnodes += u.all;
	return u.all;
}

/* Group s (doc/callgrind-tree.md): its entries' flows (calls from outside, and
 * its activity no caller accounts for, given to the members whose own
 * cost their calls in do not account for: a thread's start); a DAG in
 * Prim's order from each entry, the heaviest first, while the nodes'
 * bound lasts, then one from all the other entries together; each
 * member's flow summed over them; each forward edge's share of its
 * callee's flow; each member's root share; each node's cost below it. */
static void group(struct expand *x, struct gscratch *gs, uint32_t s)
{
	const struct cg_graph *g = x->g;
	const struct scc *c = &x->sccs[s];
	size_t nev = x->nev, K = gs->K;
	const uint32_t *mem = x->members + c->first;
	for (uint32_t k = 0; k < c->n; k++)
		gs->midx[mem[k]] = k;
	/* the activity no caller accounts for, per member */
	double *rabs = pc_xcalloc(c->n * K, sizeof(double));
	double *xflow = pc_xcalloc(c->n * K, sizeof(double));
	for (size_t m = 0; m < nev; m++) {
		double rs = x->root[(size_t)s * nev + m] *
			    x->incl[(size_t)s * nev + m];
		if (rs <= 0)
			continue;
		double most = 0, sum = 0;
		for (uint32_t k = 0; k < c->n; k++) {
			uint32_t f = mem[k];
			double u = gs->self[f * K + m] + gs->aout[f * K + m] -
				   gs->ain[f * K + m];
			rabs[k * K + m] = u > 0 ? u : 0;
			most = rabs[k * K + m] > most ? rabs[k * K + m] : most;
		}
		for (uint32_t k = 0; k < c->n; k++) {
			if (rabs[k * K + m] < 0.01 * most)
				rabs[k * K + m] = 0;
			sum += rabs[k * K + m];
		}
		uint32_t fb = root_member(x, gs, s);
		for (uint32_t k = 0; k < c->n; k++)
			rabs[k * K + m] = sum > 0 ? rs * rabs[k * K + m] / sum :
					  mem[k] == fb ? rs : 0;
	}
	/* the entries' flows; the scalar column is the shares summed */
	uint32_t nent = 0;
	uint32_t *ent = pc_xmalloc(c->n * sizeof(uint32_t));
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t f = mem[k];
		for (size_t m = 0; m < nev; m++)
			rabs[k * K + nev] += ratio(rabs[k * K + m], x->grand[m]);
		for (size_t q = 0; q < K; q++)
			xflow[k * K + q] = gs->xin[f * K + q] + rabs[k * K + q];
		if (xflow[k * K + nev] > 0)
			ent[nent++] = k;
	}
	if (!nent) { /* no cost at all: enter at the root member */
		uint32_t fb = root_member(x, gs, s);
		for (uint32_t k = 0; k < c->n; k++)
			if (mem[k] == fb) {
				xflow[k * K + nev] = rabs[k * K + nev] = CG_EPS;
				ent[nent++] = k;
			}
	}
	/* the heaviest entries first (ties: the smaller function) */
	struct cg_cand *ek = pc_xmalloc((nent + 1) * sizeof(*ek));
	for (uint32_t i = 0; i < nent; i++)
		ek[i] = (struct cg_cand){ xflow[ent[i] * K + nev], ent[i], 0 };
	qsort(ek, nent, sizeof(*ek), cg_cand_cmp);
	for (uint32_t i = 0; i < nent; i++)
		ent[i] = (uint32_t)ek[i].id;
	free(ek);
	/* a DAG per entry while the bound lasts, then one for the rest */
	x->sdag[s] = (uint32_t)x->ndags;
	size_t gbase = x->nnodes;
	for (uint32_t i = 0; i < nent; i++) {
		/* (its own for an entry of CG_MIN_SHARE or more of a
		 * metric's total) */
		int own = i + 1 == nent ||
			  (xflow[ent[i] * K + nev] >= CG_MIN_SHARE &&
			   x->nnodes + 2 * (size_t)c->n <= x->maxnodes);
		size_t nh = 0;
		double *xf = pc_xcalloc(c->n * K, sizeof(double));
		uint32_t j = i;
		for (; j < (own ? i + 1 : nent); j++) {
			uint32_t k = ent[j];
			memcpy(xf + (size_t)k * K, xflow + (size_t)k * K,
			       K * sizeof(double));
			cg_cand_push(&gs->h, &nh, &gs->caph,
				     (struct cg_cand){ xflow[k * K + nev], mem[k], 0 });
		}
		GROW_TO(x->nodes, x->capnodes, x->nnodes + c->n);
		size_t base = x->nnodes, pbase = x->npos_all;
		uint32_t n = dag_order(x, gs, s, nh, xf);
		x->npos_all += c->n;
		PC_GROW(x->dags, x->ndags, x->capdags);
		x->dags[x->ndags] = (struct dag){ s, base, n, pbase };
		for (uint32_t q = i; q < j; q++)
			x->dag_of[mem[ent[q]]] = (uint32_t)x->ndags;
		x->ndags++;
		free(xf);
		i = j - 1;
	}
	x->sdag[s + 1] = (uint32_t)x->ndags;
	/* each member's flow: summed over the DAGs */
	for (uint32_t k = 0; k < c->n; k++)
		memset(gs->flow + (size_t)mem[k] * K, 0, K * sizeof(double));
	for (size_t i = gbase; i < x->nnodes; i++)
		for (size_t q = 0; q < K; q++)
			gs->flow[(size_t)x->nodes[i].fn * K + q] +=
				gs->nflow[i * K + q];
	/* a metric whose flow reaches a forward caller of a member but not
	 * the member is laid out by the scalar column in the whole group
	 * (no member's flow counted in it: col() takes the scalar one).
	 * A node's share of its member in a metric is passed on to its
	 * forward callees (cg_group_walk), so a callee's shares sum to 1
	 * only where its caller's come from the same column: a share of
	 * the caller's flow in the metric cannot stand for its share of
	 * the scalar one (CPython's interpreter group of python3 -c with
	 * --cache-sim=yes: 0x5a8c00's ILmr shares summed to 3.76, ld.so's
	 * lazy binding below the group's DLmr to 0.9992) */
	for (size_t m = 0; m < nev; m++) {
		int mixed = 0;
		for (size_t i = gbase; i < x->nnodes && !mixed; i++) {
			uint32_t f = x->nodes[i].fn;
			if (!(gs->flow[(size_t)f * K + m] > 0))
				continue;
			for (size_t d = x->nodes[i].e0; d < x->nodes[i].e1; d++) {
				uint32_t to = g->edges[x->dedges[d].edge].to;
				if (!(gs->flow[(size_t)to * K + m] > 0)) {
					mixed = 1;
					break;
				}
			}
		}
		for (uint32_t k = 0; mixed && k < c->n; k++)
			gs->flow[(size_t)mem[k] * K + m] = 0;
	}
	/* each forward edge's share of its callee's flow, per metric */
	GROW_TO(x->dfrac, x->capdfrac, x->ndedges * nev);
	double *den = pc_xmalloc(K * sizeof(double));
	for (uint32_t dg = x->sdag[s]; dg < x->sdag[s + 1]; dg++) {
		size_t base = x->dags[dg].base;
		for (size_t i = base; i < base + x->dags[dg].n; i++) {
			uint32_t f = x->nodes[i].fn;
			for (size_t k = 0; k < K; k++)
				den[k] = node_den(x, gs, s, &x->nodes[i], k);
			for (size_t d = x->nodes[i].e0; d < x->nodes[i].e1;
			     d++) {
				uint32_t e = x->dedges[d].edge,
					 to = g->edges[e].to;
				double part = x->nodes[base + x->dedges[d].to].part;
				for (size_t m = 0; m < nev; m++) {
					size_t k = col(x, gs, to, m);
					/* (a node's shares of f sum to its
					 * part of f's flow: pass on per unit
					 * of f's) */
					double pass = gs->flow[(size_t)f * K + k] *
						      part *
						      pass_rate(x, gs, e, k, den[k],
								gs->nflow[i * K + k]);
					x->dfrac[d * nev + m] = ratio(
						pass, gs->flow[(size_t)to * K + k]);
				}
			}
		}
	}
	free(den);
	/* each member's own cost; the DAGs balanced; root shares; the cost
	 * below each node (callees come later), and the whole group's */
	double *t = x->total + (size_t)s * nev;
	double *own = pc_xcalloc(c->n * nev + 1, sizeof(double));
	for (uint32_t k = 0; k < c->n; k++) {
		double *o = own + (size_t)k * nev;
		memcpy(o, x->fself + (size_t)mem[k] * nev, nev * sizeof(double));
		own_cost(x, gs, mem[k], o);
		for (size_t m = 0; m < nev; m++)
			t[m] += o[m];
	}
	balance(x, gs, s, xflow, own);
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t f = mem[k];
		for (size_t m = 0; m < nev; m++) {
			size_t q = col(x, gs, f, m);
			x->froot[(size_t)f * nev + m] =
				ratio(rabs[k * K + q], gs->flow[(size_t)f * K + q]) *
				gs->escale[(size_t)f * nev + m];
		}
	}
	GROW_TO(x->sub, x->capsub, x->nnodes * nev);
	for (uint32_t d = x->sdag[s]; d < x->sdag[s + 1]; d++) {
		const struct dag *dg = &x->dags[d];
		for (uint32_t i = dg->n; i-- > 0;) {
			const struct onode *nd = &x->nodes[dg->base + i];
			double *si = x->sub + (dg->base + i) * nev;
			memcpy(si, own + (size_t)gs->midx[nd->fn] * nev,
			       nev * sizeof(double));
			for (size_t e = nd->e0; e < nd->e1; e++) {
				const double *st =
					x->sub + (dg->base + x->dedges[e].to) * nev;
				for (size_t m = 0; m < nev; m++)
					si[m] += x->dfrac[e * nev + m] * st[m];
			}
		}
	}
	free(own);
	free(ent);
	free(xflow);
	free(rabs);
}

/* Per SCC: inclusive cost, the cost of one full expansion, the share of
 * its activity no caller accounts for (it is a root there); per edge
 * into another SCC its weight; per recursive group its DAG. */
static void scc_costs(struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev, ns = x->nsccs, K = nev + 1;
	double *self = pc_xcalloc(ns * nev, sizeof(double));
	double *out = pc_xcalloc(ns * nev, sizeof(double));
	double *in = pc_xcalloc(ns * nev, sizeof(double));
	x->incl = pc_xcalloc(ns * nev, sizeof(double));
	x->total = pc_xcalloc(ns * nev, sizeof(double));
	x->root = pc_xcalloc(ns * nev, sizeof(double));
	x->efrac = pc_xcalloc(g->nedges * nev + 1, sizeof(double));
	x->fold = pc_xcalloc(2 * (size_t)g->nfns + 1, sizeof(double));
	x->pos = pc_xcalloc(g->nfns + 1, sizeof(uint32_t));
	x->sdag = pc_xcalloc(ns + 1, sizeof(uint32_t));
	/* the groups' DAGs: a node per member and entry at most, within
	 * some 64 MiB of nodes and their costs */
	x->maxnodes = (64u << 20) / (sizeof(struct onode) +
				     nev * sizeof(double) + 3 * sizeof(double));
	if (x->maxnodes < 4 * (size_t)g->nfns)
		x->maxnodes = 4 * (size_t)g->nfns;
	x->dag_of = pc_xmalloc((g->nfns + 1) * sizeof(uint32_t));
	for (uint32_t f = 0; f < g->nfns; f++)
		x->dag_of[f] = UINT32_MAX;
	struct gscratch gs = { .K = K, .work = CG_COPY_WORK };
	int groups = 0;
	for (size_t s = 0; s < ns; s++)
		groups |= x->sccs[s].n > 1;
	if (groups) {
		x->froot = pc_xcalloc(g->nfns * nev + 1, sizeof(double));
		gs.xin = pc_xcalloc(g->nfns * K + 1, sizeof(double));
		gs.ain = pc_xcalloc(g->nfns * K + 1, sizeof(double));
		gs.aout = pc_xcalloc(g->nfns * K + 1, sizeof(double));
		gs.self = pc_xcalloc(g->nfns * K + 1, sizeof(double));
		gs.flow = pc_xcalloc(g->nfns * K + 1, sizeof(double));
		gs.escale = pc_xmalloc((g->nfns * nev + 1) * sizeof(double));
		for (size_t i = 0; i < g->nfns * nev; i++)
			gs.escale[i] = 1;
		gs.cs = pc_xmalloc((g->nedges + 1) * sizeof(double));
		gs.midx = pc_xmalloc((g->nfns + 1) * sizeof(uint32_t));
		for (uint32_t f = 0; f < g->nfns; f++)
			for (size_t m = 0; m < nev; m++) {
				double v = x->fself[(size_t)f * nev + m];
				gs.self[f * K + m] = v;
				gs.self[f * K + nev] += ratio(v, x->grand[m]);
			}
	}
	for (size_t r = 0; r < g->nrecs; r++) {
		uint32_t s = x->scc_of[g->recs[r].fn];
		for (size_t m = 0; m < nev; m++)
			self[s * nev + m] += (double)g->rcost[r * nev + m];
	}
	for (size_t e = 0; e < g->nedges; e++) {
		uint32_t fa = g->edges[e].from, fb = g->edges[e].to;
		uint32_t a = x->scc_of[fa], b = x->scc_of[fb];
		int cost = 0; /* as the layout: an edge without cost is not there */
		for (size_t m = 0; m < nev && !cost; m++)
			cost = g->ecost[e * nev + m] != 0;
		if (a == b && cost) {
			x->fold[2 * (size_t)fb] += (double)g->edges[e].count;
			if (g->count2)
				x->fold[2 * (size_t)fb + 1] +=
					(double)g->count2[e];
		}
		if (groups) {
			double sc = CG_EPS;
			for (size_t m = 0; m < nev; m++)
				sc += ratio((double)g->ecost[e * nev + m],
					    x->grand[m]);
			gs.cs[e] = sc;
			for (size_t k = 0; k < K; k++) {
				double v = ecol(x, &gs, (uint32_t)e, k);
				gs.aout[fa * K + k] += v;
				gs.ain[fb * K + k] += v;
				if (a != b)
					gs.xin[fb * K + k] += v;
			}
		}
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
	/* callees come first, so their costs are known */
	for (size_t s = 0; s < ns; s++) {
		const struct scc *c = &x->sccs[s];
		if (c->n > 1) {
			group(x, &gs, (uint32_t)s);
			continue;
		}
		double *t = x->total + s * nev;
		memcpy(t, self + s * nev, nev * sizeof(double));
		own_cost(x, &gs, x->members[c->first], t);
	}
	free(self);
	free(out);
	free(in);
	free(gs.xin);
	free(gs.ain);
	free(gs.aout);
	free(gs.self);
	free(gs.flow);
	free(gs.escale);
	free(gs.cs);
	free(gs.midx);
	free(gs.nflow);
	free(gs.h);
}

void cg_analyze(struct expand *x)
{
	find_sccs(x);
	scc_costs(x);
}

/* The node (over all DAGs) where a call from outside enters member f of
 * a group. */
size_t cg_entry_node(const struct expand *x, uint32_t f)
{
	const struct dag *d = &x->dags[x->dag_of[f]];
	return d->base + x->dpos[d->pbase + cg_member_index(x, f)];
}

/* Node masses (nsh) are per node, nev each, then a mark per DAG (0: no
 * node has a mass, else 1 + the first that may), then a bit per node
 * (set: a mass may have come to it; the rest of nsh is 64-bit words
 * there, calloc's zeros): their size in doubles. The bits let a walk go
 * from node to node that has a mass, not over every node of the DAG
 * past the first: a cut below one member of the generated 70 MB
 * Callgrind file's group (16,000 nodes) walked them all, 4,482 walks
 * of 240,000 instructions each. */
size_t cg_nsh_size(const struct expand *x)
{
	return x->nnodes * x->nev + x->ndags + 1 + (x->nnodes + 63) / 64;
}

static uint64_t *nsh_bits(const struct expand *x, double *nsh)
{
	return (uint64_t *)(void *)(nsh + x->nnodes * x->nev + x->ndags + 1);
}

/* The mass of node `node` (over all DAGs) of DAG d in nsh, marked. */
double *cg_node_mass(const struct expand *x, double *nsh, uint32_t d,
		     size_t node)
{
	/* the mark: 1 + the first node of the DAG with a mass */
	double *mark = nsh + x->nnodes * x->nev + d;
	double at = (double)(node - x->dags[d].base) + 1;
	if (*mark == 0 || at < *mark)
		*mark = at;
	nsh_bits(x, nsh)[node / 64] |= (uint64_t)1 << (node % 64);
	return nsh + node * x->nev;
}

/* Zeroes the masses of group u's nodes in nsh. */
void cg_group_clear(const struct expand *x, uint32_t u, double *nsh)
{
	double *mark = nsh + x->nnodes * x->nev;
	uint64_t *bits = nsh_bits(x, nsh);
	for (uint32_t d = x->sdag[u]; d < x->sdag[u + 1]; d++)
		if (mark[d] != 0) {
			size_t b = x->dags[d].base, e = b + x->dags[d].n;
			memset(nsh + b * x->nev, 0,
			       x->dags[d].n * x->nev * sizeof(double));
			mark[d] = 0;
			for (size_t i = b; i < e; i++)
				bits[i / 64] &= ~((uint64_t)1 << (i % 64));
		}
}

/* f's index among the members of its SCC (in function order). */
uint32_t cg_member_index(const struct expand *x, uint32_t f)
{
	const struct scc *c = &x->sccs[x->scc_of[f]];
	const uint32_t *m = x->members + c->first;
	uint32_t lo = 0, hi = c->n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m[mid] <= f)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Group u's members' shares from the masses on its nodes in nsh (per
 * node, nev each: calls in at entry nodes, cut nodes): each node's mass
 * is passed on along its DAG's forward edges in order, and summed per
 * member into fsh (per function); nsh is zero again after. The members
 * with a share go in list; returns their count. */
size_t cg_group_walk(const struct expand *x, uint32_t u, double *nsh,
		     double *fsh, uint32_t *list)
{
	size_t nev = x->nev, n = 0;
	double *mark = nsh + x->nnodes * nev;
	uint64_t *bits = nsh_bits(x, nsh);
	for (uint32_t d = x->sdag[u]; d < x->sdag[u + 1]; d++) {
		const struct dag *dg = &x->dags[d];
		if (mark[d] == 0)
			continue;
		uint32_t from = (uint32_t)mark[d] - 1;
		mark[d] = 0;
		const struct onode *nd = x->nodes + dg->base;
		/* the nodes in order, those without a mass skipped by
		 * their bits (a node passes mass to later ones only, whose
		 * bits it sets before the scan comes to them) */
		size_t end = dg->base + dg->n;
		for (size_t at = dg->base + from; at < end;) {
			uint64_t w = bits[at / 64] & (~(uint64_t)0 << (at % 64));
			if (!w) {
				at = (at / 64 + 1) * 64;
				continue;
			}
			size_t j = at / 64 * 64 + (size_t)__builtin_ctzll(w);
			if (j >= end)
				break;
			bits[j / 64] &= ~((uint64_t)1 << (j % 64));
			at = j + 1;
			uint32_t i = (uint32_t)(j - dg->base);
			double *si = nsh + j * nev;
			if (!cg_any_positive(si, nev))
				continue;
			double *sf = fsh + (size_t)nd[i].fn * nev;
			if (!cg_any_positive(sf, nev))
				list[n++] = nd[i].fn;
			for (size_t e = nd[i].e0; e < nd[i].e1; e++) {
				size_t to = dg->base + x->dedges[e].to;
				double *st = nsh + to * nev;
				for (size_t m = 0; m < nev; m++)
					st[m] += si[m] * x->dfrac[e * nev + m];
				bits[to / 64] |= (uint64_t)1 << (to % 64);
			}
			for (size_t m = 0; m < nev; m++)
				sf[m] += si[m];
			memset(si, 0, nev * sizeof(double));
		}
	}
	return n;
}
