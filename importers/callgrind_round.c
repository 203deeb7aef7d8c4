/* Callgrind costs are whole numbers, and so is every value made of
 * them (doc/design.md, "Whole numbers"). The calling-context tree
 * (callgrind_tree.c) shares a function's cost at a position out over
 * the contexts it is laid out in, in proportion to the callers' edges:
 * the shares are fractions. Here they become whole numbers such that
 *  - each position's shares add up to its cost again (so every
 *    function's self cost, every (function, line) cost and every total
 *    is exact: hpcviewer's flat view, callgrind_annotate after a round
 *    trip), and
 *  - every context's inclusive value is its real value rounded down or
 *    up, so exact wherever that is a whole number (a call edge's context
 *    below a caller laid out whole holds the edge's cost).
 * Each share is rounded down or up. Both families of sums (positions,
 * a partition; subtrees, nested) together have a totally unimodular
 * matrix, so whole shares meeting all of them exist; a maximum flow
 * finds them: source -> position (its units to hand out) -> context
 * (one unit at most per share) -> parent -> ... -> root -> sink, each
 * tree edge carrying its subtree's units rounded down or up. The call
 * counts (the Calls metric) keep their shares: the Callgrind writer
 * finds a call edge's count in them. */
#include "pc.h"
#include "callgrind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a maximum flow (Dinic) over small integer capacities ---- */

struct fedge {
	uint32_t to, next;
	int64_t cap;
};
struct flow {
	struct fedge *e;
	size_t ne, cape;
	uint32_t *head, *level, *it, *queue;
	size_t nn;
};

static void flow_init(struct flow *f, size_t nn)
{
	f->nn = nn;
	f->ne = 0;
	f->head = pc_xrealloc(f->head, nn, sizeof(uint32_t));
	f->level = pc_xrealloc(f->level, nn, sizeof(uint32_t));
	f->it = pc_xrealloc(f->it, nn, sizeof(uint32_t));
	f->queue = pc_xrealloc(f->queue, nn, sizeof(uint32_t));
	for (size_t i = 0; i < nn; i++)
		f->head[i] = UINT32_MAX;
}

/* Adds a->b with residual capacities cap forward and back (the flow it
 * already carries above its lower bound); returns the edge's index. */
static size_t flow_edge(struct flow *f, uint32_t a, uint32_t b, int64_t cap,
			int64_t back)
{
	if (f->ne + 2 > f->cape) {
		f->cape = f->cape ? 2 * f->cape : 1024;
		f->e = pc_xrealloc(f->e, f->cape, sizeof(*f->e));
	}
	size_t k = f->ne;
	f->e[k] = (struct fedge){ b, f->head[a], cap };
	f->head[a] = (uint32_t)k;
	f->e[k + 1] = (struct fedge){ a, f->head[b], back };
	f->head[b] = (uint32_t)k + 1;
	f->ne += 2;
	return k;
}

static int flow_levels(struct flow *f, uint32_t s, uint32_t t)
{
	for (size_t i = 0; i < f->nn; i++)
		f->level[i] = UINT32_MAX;
	size_t qh = 0, qt = 0;
	f->level[s] = 0;
	f->queue[qt++] = s;
	while (qh < qt) {
		uint32_t u = f->queue[qh++];
		for (uint32_t k = f->head[u]; k != UINT32_MAX; k = f->e[k].next)
			if (f->e[k].cap > 0 && f->level[f->e[k].to] == UINT32_MAX) {
				f->level[f->e[k].to] = f->level[u] + 1;
				f->queue[qt++] = f->e[k].to;
			}
	}
	return f->level[t] != UINT32_MAX;
}

/* One augmenting path along the levels, iteratively (trees are deep):
 * the path is kept in queue[], the edges taken in level[]-free it[]. */
static int64_t flow_path(struct flow *f, uint32_t s, uint32_t t,
			 uint32_t *path)
{
	size_t depth = 0;
	uint32_t u = s;
	for (;;) {
		if (u == t) {
			int64_t push = INT64_MAX;
			for (size_t d = 0; d < depth; d++)
				if (f->e[path[d]].cap < push)
					push = f->e[path[d]].cap;
			for (size_t d = 0; d < depth; d++) {
				f->e[path[d]].cap -= push;
				f->e[path[d] ^ 1].cap += push;
			}
			return push;
		}
		uint32_t k = f->it[u];
		for (; k != UINT32_MAX; k = f->e[k].next)
			if (f->e[k].cap > 0 &&
			    f->level[f->e[k].to] == f->level[u] + 1)
				break;
		f->it[u] = k;
		if (k == UINT32_MAX) {
			/* dead end: drop u, go back one step */
			f->level[u] = UINT32_MAX;
			if (!depth)
				return 0;
			depth--;
			u = f->e[path[depth] ^ 1].to;
			f->it[u] = f->e[f->it[u]].next;
			continue;
		}
		path[depth++] = k;
		u = f->e[k].to;
	}
}

static int64_t flow_max(struct flow *f, uint32_t s, uint32_t t)
{
	int64_t total = 0;
	uint32_t *path = pc_xmalloc(f->nn * sizeof(uint32_t));
	while (flow_levels(f, s, t)) {
		memcpy(f->it, f->head, f->nn * sizeof(uint32_t));
		int64_t p;
		while ((p = flow_path(f, s, t, path)) > 0)
			total += p;
	}
	free(path);
	return total;
}

static void flow_free(struct flow *f)
{
	free(f->e);
	free(f->head);
	free(f->level);
	free(f->it);
	free(f->queue);
}

/* ---- the part's values ---- */

struct cell {
	pc_id metric, ctx;
	uint32_t group; /* the position (or call site) its cost came from */
	size_t ord;     /* its place among the part's values */
	double v;
};

static int cmp_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* A position: the function whose cost it is and where in it; for a
 * call (a function context: its calls) the call site and the callee. */
struct pos {
	pc_id fn, file, callee;
	uint32_t line;
	uint8_t kind;
	uint64_t offset;
};

static int cmp_pos(const void *a, const void *b)
{
	const struct pos *x = a, *y = b;
#define CMP(f)                                                               \
	if (x->f != y->f)                                                    \
		return x->f < y->f ? -1 : 1;
	CMP(fn) CMP(file) CMP(line) CMP(kind) CMP(offset) CMP(callee)
#undef CMP
	return 0;
}

static int cmp_id_desc(const void *a, const void *b)
{
	pc_id x = *(const pc_id *)a, y = *(const pc_id *)b;
	return x > y ? -1 : x < y;
}

static pc_id fn_of(const struct pc_db *db, pc_id c)
{
	while (c && db->contexts[c].kind != PC_CTX_FUNCTION)
		c = db->contexts[c].parent;
	return c ? db->contexts[c].function : PC_NONE;
}

static struct pos pos_of(const struct pc_db *db, pc_id c)
{
	const struct pc_context *x = &db->contexts[c];
	pc_id site = c;
	struct pos p = { .callee = PC_NONE };
	if (x->kind == PC_CTX_FUNCTION) {
		p.callee = x->function;
		site = x->parent;
	}
	const struct pc_context *s = &db->contexts[site];
	p.kind = s->kind;
	p.fn = fn_of(db, site);
	if (s->kind != PC_CTX_FUNCTION && s->kind != PC_CTX_ENTRY) {
		p.file = s->file;
		p.line = s->line;
		p.offset = s->offset;
	} else {
		p.file = PC_NONE;
	}
	return p;
}

/* Rounds one metric's n cells. 0, or -1 if its positions' sums are not
 * whole numbers, or no flow was found (the values stay as they are). */
static int round_metric(const struct pc_db *db, struct cell *c, size_t n,
			uint32_t ngroups, struct flow *f, int32_t *node_of,
			double *gsum)
{
	for (uint32_t g = 0; g < ngroups; g++)
		gsum[g] = 0;
	for (size_t i = 0; i < n; i++)
		gsum[c[i].group] += c[i].v;
	for (uint32_t g = 0; g < ngroups; g++) {
		double t = gsum[g], r = nearbyint(t);
		if (fabs(t - r) > 1e-6 * (fabs(t) > 1 ? fabs(t) : 1) ||
		    fabs(t) > 0x1p52)
			return -1;
	}
	/* the shares to decide, and the tree nodes above them */
	const double eps = 1e-9;
	pc_id *nodes = NULL;
	size_t nn = 0, capn = 0;
	double *fr = pc_xcalloc(n, sizeof(double));
	for (uint32_t g = 0; g < ngroups; g++)
		gsum[g] = 0; /* now: the units each position hands out */
	for (size_t i = 0; i < n; i++) {
		double fl = floor(c[i].v), x = c[i].v - fl;
		if (x < eps || x > 1 - eps) {
			c[i].v = x < eps ? fl : fl + 1;
			continue;
		}
		fr[i] = x;
		gsum[c[i].group] += x;
		for (pc_id u = c[i].ctx;; u = db->contexts[u].parent) {
			if (node_of[u] >= 0)
				break;
			PC_GROW(nodes, nn, capn);
			node_of[u] = (int32_t)nn;
			nodes[nn++] = u;
			if (!u)
				break;
		}
	}
	int rc = 0;
	if (nn) {
		/* subtree sums of the fractions, children before parents
		 * (a context's id is above its parent's) */
		double *F = pc_xcalloc(nn, sizeof(double));
		for (size_t i = 0; i < n; i++)
			if (fr[i] > 0)
				F[node_of[c[i].ctx]] += fr[i];
		pc_id *order = pc_xmalloc(nn * sizeof(pc_id));
		memcpy(order, nodes, nn * sizeof(pc_id));
		qsort(order, nn, sizeof(pc_id), cmp_id_desc);
		for (size_t i = 0; i < nn; i++) {
			pc_id u = order[i];
			if (u)
				F[node_of[db->contexts[u].parent]] += F[node_of[u]];
		}
		/* a first rounding: each position's shares in turn, so that
		 * their running sum stays rounded (the position's sum is
		 * then exact); the flow only mends the subtrees it leaves
		 * outside their bounds */
		uint8_t *y = pc_xcalloc(n, 1);
		double *run = pc_xcalloc(ngroups, sizeof(double));
		for (size_t i = 0; i < n; i++) {
			if (!(fr[i] > 0))
				continue;
			double before = nearbyint(run[c[i].group]);
			run[c[i].group] += fr[i];
			y[i] = nearbyint(run[c[i].group]) > before;
		}
		free(run);
		int64_t *Y = pc_xcalloc(nn, sizeof(int64_t));
		for (size_t i = 0; i < n; i++)
			if (fr[i] > 0)
				Y[node_of[c[i].ctx]] += y[i];
		for (size_t i = 0; i < nn; i++) {
			pc_id u = order[i];
			if (u)
				Y[node_of[db->contexts[u].parent]] += Y[node_of[u]];
		}
		/* nodes: SS, TT, s, t, positions, tree nodes; each edge
		 * with its flow so far (residual forward and back) */
		uint32_t SS = 0, TT = 1, s = 2, t = 3, G0 = 4,
			 N0 = G0 + ngroups;
		flow_init(f, N0 + nn);
		/* every edge at once (a share, a tree edge, a source or sink
		 * edge per node, t -> s; each with its reverse): the array is
		 * not copied as it grows */
		size_t want = 2 * (n + 2 * (N0 + nn) + 1);
		if (f->cape < want) {
			f->cape = want;
			f->e = pc_xrealloc(f->e, f->cape, sizeof(*f->e));
		}
		int64_t *ex = pc_xcalloc(N0 + nn, sizeof(int64_t));
		int64_t total = 0;
		for (uint32_t g = 0; g < ngroups; g++)
			total += (int64_t)nearbyint(gsum[g]);
		size_t *ce = pc_xmalloc(n * sizeof(size_t));
		for (size_t i = 0; i < n; i++) {
			if (!(fr[i] > 0))
				continue;
			uint32_t to = N0 + (uint32_t)node_of[c[i].ctx];
			ce[i] = flow_edge(f, G0 + c[i].group, to, 1 - y[i], y[i]);
			ex[to] += y[i];
		}
		for (size_t k = 0; k < nn; k++) {
			int64_t lo = (int64_t)floor(F[k] + 1e-6),
				hi = (int64_t)ceil(F[k] - 1e-6);
			if (hi < lo)
				hi = lo;
			int64_t phi = Y[k] < lo ? lo : Y[k] > hi ? hi : Y[k];
			pc_id u = nodes[k];
			uint32_t up = u ? N0 + (uint32_t)node_of[db->contexts[u].parent] : t;
			if (hi > lo)
				flow_edge(f, N0 + (uint32_t)k, up, hi - phi, phi - lo);
			ex[up] += phi;
			ex[N0 + k] -= phi;
		}
		flow_edge(f, t, s, INT64_MAX / 4, total);
		ex[t] -= total;
		int64_t need = 0;
		for (size_t k = 0; k < N0 + nn; k++) {
			if (k == SS || k == TT || k == s || (k >= G0 && k < N0))
				continue;
			if (ex[k] > 0) {
				flow_edge(f, SS, (uint32_t)k, ex[k], 0);
				need += ex[k];
			} else if (ex[k] < 0) {
				flow_edge(f, (uint32_t)k, TT, -ex[k], 0);
			}
		}
		if (need && flow_max(f, SS, TT) != need) {
			rc = -1;
		} else {
			for (size_t i = 0; i < n; i++)
				if (fr[i] > 0)
					c[i].v = floor(c[i].v) +
						 (f->e[ce[i]].cap == 0 ? 1 : 0);
		}
		free(y);
		free(Y);
		free(order);
		free(ce);
		free(ex);
		free(F);
		for (size_t k = 0; k < nn; k++)
			node_of[nodes[k]] = -1;
	}
	free(nodes);
	free(fr);
	return rc;
}

struct keyed {
	struct pos p;
	size_t cell;
};

static int cmp_keyed(const void *a, const void *b)
{
	return cmp_pos(&((const struct keyed *)a)->p,
		       &((const struct keyed *)b)->p);
}

size_t pc_cg_round(struct pc_db *db, size_t v0, pc_id skip)
{
	size_t n = db->nvalues - v0;
	if (!n)
		return 0;
	pc_id prof = db->values[v0].profile;
	struct cell *c = pc_xmalloc(n * sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		const struct pc_value *v = &db->values[v0 + i];
		c[i] = (struct cell){ v->metric, v->ctx, 0, i, v->value };
	}
	qsort(c, n, sizeof(*c), cmp_cell);
	/* one cell per (metric, context), summed in the order they came */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && c[k - 1].metric == c[i].metric && c[k - 1].ctx == c[i].ctx)
			c[k - 1].v += c[i].v;
		else
			c[k++] = c[i];
	}
	/* positions */
	struct keyed *kp = pc_xmalloc(k * sizeof(*kp));
	for (size_t i = 0; i < k; i++)
		kp[i] = (struct keyed){ pos_of(db, c[i].ctx), i };
	qsort(kp, k, sizeof(*kp), cmp_keyed);
	uint32_t ng = 0;
	for (size_t i = 0; i < k; i++) {
		if (i && cmp_pos(&kp[i - 1].p, &kp[i].p))
			ng++;
		c[kp[i].cell].group = ng;
	}
	ng++;
	free(kp);
	int32_t *node_of = pc_xmalloc(db->ncontexts * sizeof(int32_t));
	for (size_t i = 0; i < db->ncontexts; i++)
		node_of[i] = -1;
	double *gsum = pc_xmalloc(ng * sizeof(double));
	struct flow f = { 0 };
	size_t failed = 0;
	for (size_t a = 0, b; a < k; a = b) {
		for (b = a; b < k && c[b].metric == c[a].metric; b++)
			;
		if (c[a].metric != skip &&
		    round_metric(db, c + a, b - a, ng, &f, node_of, gsum))
			failed++;
	}
	flow_free(&f);
	free(gsum);
	free(node_of);
	size_t m = 0;
	for (size_t i = 0; i < k; i++)
		if (c[i].v != 0)
			db->values[v0 + m++] = (struct pc_value){
				prof, c[i].ctx, c[i].metric, c[i].v };
	db->nvalues = v0 + m;
	db->values_sorted = 0;
	free(c);
	return failed;
}
