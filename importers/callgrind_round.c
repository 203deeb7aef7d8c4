/* Callgrind costs are whole numbers, and so is every value made of
 * them (doc/callgrind-tree.md, "Whole numbers"). The calling-context tree
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

/* ---- a maximum flow (Dinic) over small integer capacities ----
 * The edges are laid out per node (compressed rows): a node's edges lie
 * side by side, so the level search and the path search read them in
 * order instead of chasing a list through the whole array. The edges
 * are made twice by the same code (struct flow's pass): once to count
 * each node's edges, once to put them in place. A node's edges are in
 * the reverse of the order they were made in (the order a list with
 * the newest edge first would have), which is what the flow found
 * depends on. */

/* 12 bytes an edge: capacities are 0 or 1 but for the source and sink
 * edges, which stay below the number of shares (see round_metric) */
struct fedge {
	uint32_t to, rev;
	int32_t cap;
};
struct flow {
	struct fedge *e;
	size_t ne;
	/* a node's edges: e[first[u]] to e[first[u + 1] - 1] */
	/* queue: the nodes the search from the source reached, from the
	 * start; those the search back from the sink did, from the end */
	uint32_t *first, *level, *it, *queue;
	size_t nn;
	/* the nodes the last levels reached: queue[0..nq), and
	 * queue[nn - i] for i in [0, nb) */
	size_t nq, nb;
	uint32_t *path; /* an augmenting path's edges */
	size_t cappath;
	int pass; /* 0: counting the edges, 1: putting them in place */
};

static void flow_init(struct flow *f, size_t nn)
{
	f->nn = nn;
	f->ne = 0;
	f->pass = 0;
	f->first = pc_xcalloc(nn + 1, sizeof(uint32_t));
	f->it = pc_xmalloc(nn * sizeof(uint32_t));
	/* level and queue: when the flow runs (flow_max), after what
	 * only the making of the edges needs is freed */
}

/* After the counting pass: each node's room, it[] its next free slot
 * from the top (the first edge made goes last). */
static void flow_place(struct flow *f)
{
	uint32_t sum = 0;
	for (size_t u = 0; u < f->nn; u++) {
		sum += f->first[u];
		f->first[u] = sum - f->first[u];
		f->it[u] = sum;
	}
	f->first[f->nn] = sum;
	f->e = pc_xmalloc((size_t)sum * sizeof(*f->e) + 1);
	f->ne = sum;
	f->pass = 1;
}

/* Adds a->b with residual capacities cap forward and back (the flow it
 * already carries above its lower bound): counts it, or puts it in
 * place. */
static inline void flow_edge(struct flow *f, uint32_t a, uint32_t b,
			     int64_t cap, int64_t back)
{
	if (!f->pass) {
		f->first[a]++;
		f->first[b]++;
		return;
	}
	uint32_t ka = --f->it[a], kb = --f->it[b];
	f->e[ka] = (struct fedge){ b, kb, (int32_t)cap };
	f->e[kb] = (struct fedge){ a, ka, (int32_t)back };
}

/* The levels of a phase, searched from both ends: from s along edges
 * with room (ds, in level[]) and back from t along edges with room into
 * a node (dt, in it[] meanwhile), the side with the smaller frontier a
 * step at a time, until they meet at distance D. A node on a shortest
 * path is then known to one side at least: its level is ds, or D - dt.
 * The others keep no level. flow_path finds the same paths as with
 * every node's ds (a node it took with D - dt has that ds: no shorter
 * path reaches it, or it would be known from s), only without going
 * into the nodes beyond the meeting that lead nowhere: in the last
 * phases, a few units over a few thousand nodes instead of the whole
 * graph. */
static int flow_levels(struct flow *f, uint32_t s, uint32_t t)
{
	/* the two searches share one array: a node both reached is where
	 * they meet, and they stop there, so they fill nn + 1 at most */
	uint32_t *ds = f->level, *dt = f->it, *fq = f->queue;
#define BQ(i) f->queue[f->nn - (i)]
	/* only the nodes the last phase reached have a level or an edge
	 * to try (the first phase finds none: flow_max) */
	for (size_t i = 0; i < f->nq; i++)
		ds[fq[i]] = dt[fq[i]] = UINT32_MAX;
	for (size_t i = 0; i < f->nb; i++)
		ds[BQ(i)] = dt[BQ(i)] = UINT32_MAX;
	size_t fh = 0, ft = 0, bh = 0, bt = 0;
	ds[s] = 0;
	fq[ft++] = s;
	dt[t] = 0;
	BQ(bt) = t;
	bt++;
	uint32_t a = 0, b = 0, D = UINT32_MAX;
	while (D == UINT32_MAX) {
		if (fh == ft || bh == bt) {
			f->nq = ft;
			f->nb = bt;
			return 0;
		}
		if (ft - fh <= bt - bh) {
			/* the nodes at distance a from s: those at a + 1 */
			for (size_t end = ft; fh < end && D == UINT32_MAX; fh++) {
				uint32_t u = fq[fh];
				for (uint32_t k = f->first[u]; k < f->first[u + 1]; k++) {
					uint32_t w = f->e[k].to;
					if (f->e[k].cap <= 0 || ds[w] != UINT32_MAX)
						continue;
					ds[w] = a + 1;
					fq[ft++] = w;
					if (dt[w] != UINT32_MAX) {
						D = a + 1 + dt[w];
						break;
					}
				}
			}
			a++;
		} else {
			/* those at distance b to t: those at b + 1 */
			for (size_t end = bt; bh < end && D == UINT32_MAX; bh++) {
				uint32_t v = BQ(bh);
				for (uint32_t k = f->first[v]; k < f->first[v + 1]; k++) {
					uint32_t w = f->e[k].to;
					if (dt[w] != UINT32_MAX ||
					    f->e[f->e[k].rev].cap <= 0)
						continue;
					dt[w] = b + 1;
					BQ(bt) = w;
					bt++;
					if (ds[w] != UINT32_MAX) {
						D = ds[w] + b + 1;
						break;
					}
				}
			}
			b++;
		}
	}
	for (size_t i = 0; i < bt; i++)
		if (ds[BQ(i)] == UINT32_MAX)
			ds[BQ(i)] = D - dt[BQ(i)];
	/* a node with a level: its first edge to try */
	for (size_t i = 0; i < ft; i++)
		f->it[fq[i]] = f->first[fq[i]];
	for (size_t i = 0; i < bt; i++)
		f->it[BQ(i)] = f->first[BQ(i)];
	f->nq = ft;
	f->nb = bt;
	return 1;
}
#undef BQ

/* One augmenting path along the levels, iteratively (trees are deep):
 * the path's edges are kept in f->path, each node's next edge to try
 * in it[]. */
static int64_t flow_path(struct flow *f, uint32_t s, uint32_t t)
{
	size_t depth = 0;
	uint32_t u = s;
	for (;;) {
		if (u == t) {
			int32_t push = INT32_MAX;
			for (size_t d = 0; d < depth; d++)
				if (f->e[f->path[d]].cap < push)
					push = f->e[f->path[d]].cap;
			for (size_t d = 0; d < depth; d++) {
				f->e[f->path[d]].cap -= push;
				f->e[f->e[f->path[d]].rev].cap += push;
			}
			return push;
		}
		uint32_t k = f->it[u], end = f->first[u + 1];
		for (; k < end; k++)
			if (f->e[k].cap > 0 &&
			    f->level[f->e[k].to] == f->level[u] + 1)
				break;
		f->it[u] = k;
		if (k == end) {
			/* dead end: drop u, go back one step */
			f->level[u] = UINT32_MAX;
			if (!depth)
				return 0;
			depth--;
			u = f->e[f->e[f->path[depth]].rev].to;
			f->it[u]++;
			continue;
		}
		if (depth == f->cappath) {
			f->cappath = f->cappath ? 2 * f->cappath : 1024;
			f->path = pc_xrealloc(f->path, f->cappath,
					      sizeof(uint32_t));
		}
		f->path[depth++] = k;
		u = f->e[k].to;
	}
}

static int64_t flow_max(struct flow *f, uint32_t s, uint32_t t)
{
	int64_t total = 0;
	f->level = pc_xmalloc(f->nn * sizeof(uint32_t));
	f->queue = pc_xmalloc((f->nn + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < f->nn; i++)
		f->level[i] = f->it[i] = UINT32_MAX;
	f->nq = f->nb = 0;
	while (flow_levels(f, s, t)) {
		int64_t p;
		while ((p = flow_path(f, s, t)) > 0)
			total += p;
	}
	return total;
}

static void flow_free(struct flow *f)
{
	free(f->e);
	free(f->first);
	free(f->level);
	free(f->it);
	free(f->queue);
	free(f->path);
}

/* ---- the part's values ----
 * A metric's values are rounded in place in db->values, one struct
 * pc_value per (metric, context) in context order, its profile field
 * holding the group (the position its cost came from) meanwhile. */

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

/* floor(v), by a conversion to 64 bits and back below 2^52 (past it a
 * double is whole): floor's inline SSE2 sequence was most of
 * share_frac's cost, which runs several times a share */
static inline double floor_of(double v)
{
	if (!(fabs(v) < 0x1p52))
		return floor(v);
	double t = (double)(int64_t)v;
	return t > v ? t - 1 : t;
}

/* The fraction of a share still to decide: 0 for a whole number. */
static double share_frac(double v)
{
	const double eps = 1e-9;
	double x = v - floor_of(v);
	return x < eps || x > 1 - eps ? 0 : x;
}

/* The flow's node above tree node u (a context): its parent's, or t
 * above the root. */
static uint32_t tree_up(const struct pc_db *db, const int32_t *node_of,
			pc_id u, uint32_t N0, uint32_t t)
{
	return u ? N0 + (uint32_t)node_of[db->contexts[u].parent] : t;
}

/* Rounds one metric's n values (their groups, 0..ngroups-1, in
 * .profile). 0, or -1 if its positions' sums are not whole numbers, or
 * no flow was found (the values stay as they are). */
static int round_metric(const struct pc_db *db, struct pc_value *c, size_t n,
			uint32_t ngroups, struct flow *f, int32_t *node_of)
{
	if (n > INT32_MAX / 8)
		return -1; /* past the flow's 32-bit capacities */
	double *gsum = pc_xcalloc(ngroups + 1, sizeof(double));
	for (size_t i = 0; i < n; i++)
		gsum[c[i].profile] += c[i].value;
	/* a position's shares sum to its cost, a whole number, up to the
	 * doubles' rounding (at most 7 x 10^-14 of it: every fixture, and
	 * python3, perl, sqlite3 and bash under --cache-sim=yes
	 * --branch-sim=yes --dump-instr=yes). Further off is an error of
	 * the layout, and the metric is left as it is: the v4 output
	 * refuses it, saying so, rather than a position's cost be moved
	 * (10^-3 of it was scaled away here, and hid a recursive group's
	 * column fault: callgrind_graph.c) */
	for (uint32_t g = 0; g < ngroups; g++) {
		double t = gsum[g], r = nearbyint(t);
		if (fabs(t - r) > 1e-6 * (fabs(t) > 1 ? fabs(t) : 1) ||
		    fabs(t) > 0x1p52) {
			free(gsum);
			return -1;
		}
	}
	/* the shares to decide (FRAC: share_frac > 0, found once), and
	 * the tree nodes above them */
	enum { UP = 1, FRAC = 2 };
	uint8_t *y = pc_xcalloc(n + 1, 1);
	pc_id *nodes = NULL;
	size_t nn = 0, capn = 0;
	for (uint32_t g = 0; g < ngroups; g++)
		gsum[g] = 0; /* now: the units each position hands out */
	for (size_t i = 0; i < n; i++) {
		double x = share_frac(c[i].value);
		if (x == 0) {
			c[i].value = nearbyint(c[i].value);
			continue;
		}
		if (x > 0)
			y[i] = FRAC;
		gsum[c[i].profile] += x;
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
		/* per tree node, the fractions of its shares (F) and the
		 * units a first rounding gives them (Y), in one pass: each
		 * position's shares in turn, so that their running sum
		 * stays rounded (the position's sum is then exact); the flow
		 * only mends the subtrees it leaves outside their bounds */
		double *F = pc_xcalloc(nn, sizeof(double));
		int32_t *Y = pc_xcalloc(nn, sizeof(int32_t));
		double *run = pc_xcalloc(ngroups, sizeof(double));
		for (size_t i = 0; i < n; i++) {
			if (!(y[i] & FRAC))
				continue;
			double x = share_frac(c[i].value);
			int32_t k = node_of[c[i].ctx];
			F[k] += x;
			double before = nearbyint(run[c[i].profile]);
			run[c[i].profile] += x;
			if (nearbyint(run[c[i].profile]) > before) {
				y[i] |= UP;
				Y[k]++;
			}
		}
		free(run);
		/* their subtree sums, children before parents (a context's
		 * id is above its parent's) */
		for (pc_id u = (pc_id)db->ncontexts; u-- > 1;)
			if (node_of[u] >= 0) {
				int32_t k = node_of[u],
					p = node_of[db->contexts[u].parent];
				F[p] += F[k];
				Y[p] += Y[k];
			}
		/* nodes: SS, TT, s, t, positions, tree nodes; each edge
		 * with its flow so far (residual forward and back) */
		uint32_t SS = 0, TT = 1, s = 2, t = 3, G0 = 4,
			 N0 = G0 + ngroups;
		/* every edge (a share, a tree edge, a source or sink edge
		 * per node, t -> s; each with its reverse) has a 32-bit id */
		size_t want = 2 * (n + 2 * (N0 + nn) + 1);
		if (want > UINT32_MAX) {
			rc = -1;
			goto done;
		}
		/* each tree edge's bounds, so that F and Y go before the
		 * flow's arrays come: a subtree's fractions are whole (no
		 * edge) or not, its flow so far (phi) at the bottom or the
		 * top (hi - lo is 1 at most); ex: each node's excess */
		int32_t *ex = pc_xcalloc(N0 + nn, sizeof(int32_t));
		enum { ROOM = 1, AT_TOP = 2 };
		uint8_t *edge = pc_xmalloc(nn);
		for (size_t k = 0; k < nn; k++) {
			int64_t lo = (int64_t)floor(F[k] + 1e-6),
				hi = (int64_t)ceil(F[k] - 1e-6);
			if (hi < lo)
				hi = lo;
			int64_t phi = Y[k] < lo ? lo : Y[k] > hi ? hi : Y[k];
			edge[k] = (uint8_t)((hi > lo ? ROOM : 0) |
					    (phi > lo ? AT_TOP : 0));
			ex[tree_up(db, node_of, nodes[k], N0, t)] += (int32_t)phi;
			ex[N0 + k] -= (int32_t)phi;
		}
		free(Y);
		free(F);
		Y = NULL;
		F = NULL;
		flow_init(f, N0 + nn);
		int64_t total = 0;
		for (uint32_t g = 0; g < ngroups; g++)
			total += (int64_t)nearbyint(gsum[g]);
		free(gsum);
		gsum = NULL;
		int64_t need = 0;
		/* the same edges twice: counted, then put in place */
		for (int pass = 0; pass < 2; pass++) {
			if (pass)
				flow_place(f);
			/* the shares' edges, in their order: a position's
			 * node has no others */
			for (size_t i = 0; i < n; i++) {
				if (!(y[i] & FRAC))
					continue;
				int up = y[i] & UP;
				uint32_t to = N0 + (uint32_t)node_of[c[i].ctx];
				flow_edge(f, G0 + c[i].profile, to, 1 - up, up);
				if (!pass)
					ex[to] += up;
			}
			for (size_t k = 0; k < nn; k++)
				if (edge[k] & ROOM)
					flow_edge(f, N0 + (uint32_t)k,
						  tree_up(db, node_of, nodes[k],
							  N0, t),
						  !(edge[k] & AT_TOP),
						  !!(edge[k] & AT_TOP));
			flow_edge(f, t, s, INT32_MAX / 4, total);
			if (!pass)
				ex[t] -= (int32_t)total;
			/* the nodes with an excess: t, then the tree's
			 * (SS, TT, s and the positions have none) */
			for (size_t k = t; k < N0 + nn; k = k == t ? N0 : k + 1) {
				if (ex[k] > 0) {
					flow_edge(f, SS, (uint32_t)k, ex[k], 0);
					need += pass ? 0 : ex[k];
				} else if (ex[k] < 0) {
					flow_edge(f, (uint32_t)k, TT, -ex[k], 0);
				}
			}
		}
		/* what the flow needs no more goes before its peak */
		free(ex);
		free(edge);
		free(y);
		y = NULL;
		if (need && flow_max(f, SS, TT) != need) {
			rc = -1;
		} else {
			/* a position's shares are its node's edges, the
			 * first made last */
			for (uint32_t g = 0; g < ngroups; g++)
				f->it[G0 + g] = f->first[G0 + g + 1];
			for (size_t i = 0; i < n; i++)
				if (share_frac(c[i].value) > 0)
					c[i].value = floor_of(c[i].value) +
						 (f->e[--f->it[G0 + c[i].profile]].cap == 0 ? 1 : 0);
		}
	done:
		free(Y);
		free(F);
		for (size_t k = 0; k < nn; k++)
			node_of[nodes[k]] = -1;
	}
	free(y);
	free(gsum);
	free(nodes);
	return rc;
}

/* The distinct positions of a metric's values, numbered as met; each
 * kept as a context it is the position of (4 bytes, not the 32 of a
 * struct pos). */
struct posset {
	const struct pc_db *db;
	pc_id *ctx;
	size_t n, cap;
	struct pc_keymap *map;
};

static int pos_eq(const void *ctx, pc_id id, const void *key)
{
	const struct posset *ps = ctx;
	struct pos p = pos_of(ps->db, ps->ctx[id]);
	return !cmp_pos(&p, key);
}

/* The group of context c: its position's number. */
static uint32_t pos_group(struct posset *ps, pc_id c)
{
	struct pos p = pos_of(ps->db, c);
	uint64_t h = pc_hash64(p.fn);
	h = pc_hash64(h ^ p.file);
	h = pc_hash64(h ^ p.line);
	h = pc_hash64(h ^ ((uint64_t)p.kind << 32 | p.callee));
	h = pc_hash64(h ^ p.offset);
	pc_id id = pc_keymap_intern(ps->map, h, pos_eq, ps, &p, (pc_id)ps->n);
	if (id == ps->n) {
		PC_GROW(ps->ctx, ps->n, ps->cap);
		ps->ctx[ps->n++] = c;
	}
	return id;
}

/* The next context marked in has (its mark cleared) in the part's
 * order: order[0..norder), then lo..hi by id (contexts the part shares
 * with earlier ones); PC_NONE after the last. *j: where it goes on.
 * (inline: once a value of each metric; a call was a third of its
 * cost) */
static inline pc_id next_marked(const pc_id *order, size_t norder,
				pc_id lo, pc_id hi, uint8_t *has,
				size_t *pj)
{
	/* (j in a local: has's stores may alias *pj, which kept it in
	 * memory; the two stretches in loops of their own) */
	size_t j = *pj, end = norder + (size_t)hi + 1 - lo;
	for (; j < norder && j < end; j++) {
		pc_id c = order[j];
		if (c < lo || c > hi || !(has[c / 8] & (1u << (c % 8))))
			continue;
		has[c / 8] &= (uint8_t)~(1u << (c % 8));
		*pj = j + 1;
		return c;
	}
	for (; j < end; j++) {
		pc_id c = lo + (pc_id)(j - norder);
		if (c < lo || c > hi || !(has[c / 8] & (1u << (c % 8))))
			continue;
		has[c / 8] &= (uint8_t)~(1u << (c % 8));
		*pj = j + 1;
		return c;
	}
	*pj = j;
	return PC_NONE;
}

/* A metric's values, summed per context with their groups: v[lo, hi). */
struct seg {
	size_t lo, hi;
	pc_id metric;
	uint32_t ngroups;
	int failed;
};

struct rounding {
	struct pc_db *db;
	struct seg *seg;
	size_t *todo;      /* the segments to round (pc_parallel's i) */
	int32_t **node_of; /* a thread's own, every entry -1 */
};

static void round_one(struct rounding *r, struct seg *s, unsigned k)
{
	struct pc_db *db = r->db;
	if (!r->node_of[k]) {
		r->node_of[k] = pc_xmalloc(db->ncontexts * sizeof(int32_t));
		for (size_t c = 0; c < db->ncontexts; c++)
			r->node_of[k][c] = -1;
	}
	struct flow f = { 0 };
	s->failed = round_metric(db, db->values + s->lo, s->hi - s->lo,
				 s->ngroups, &f, r->node_of[k]) != 0;
	flow_free(&f);
	/* the pages of its arrays that the heap kept go back too: the
	 * next metric's sums and flow then start from what is left */
	pc_trim();
}

static void round_seg(void *ctx, size_t i, unsigned k)
{
	struct rounding *r = ctx;
	round_one(r, &r->seg[r->todo[i]], k);
}

/* Moves a segment's values down to out, but zeros, in profile prof;
 * returns where the next go. */
static size_t move_down(struct pc_value *v, const struct seg *s, size_t out,
			pc_id prof)
{
	for (size_t i = s->lo; i < s->hi; i++)
		if (v[i].value != 0)
			v[out++] = (struct pc_value){ prof, v[i].ctx, s->metric,
						      v[i].value };
	return out;
}

/* The part's values are taken metric by metric (in id order, as the
 * output is sorted): a metric's values are summed per context in the
 * order they came, the others moved up to the end of the array, and
 * the sums (a value per context, in the part's order of contexts, then
 * any other in id order) laid out in the room freed below them. The
 * part's order is the one its contexts would have in a model of this
 * part alone, so a part rounds the same whatever was read before it
 * (Callgrind thread files, one process or profconv-mpi's ranks). Each
 * metric is rounded on its own, and its values move down. */
size_t pc_cg_round(struct pc_db *db, size_t v0, pc_id skip, pc_id skip2,
		   const pc_id *order, size_t norder, unsigned jobs)
{
	size_t end = db->nvalues;
	if (end == v0)
		return 0;
	pc_id prof = db->values[v0].profile;
	struct pc_value *v = db->values;
	size_t *count = pc_xcalloc(db->nmetrics, sizeof(size_t));
	for (size_t i = v0; i < end; i++)
		count[v[i].metric]++;
	size_t nctx = db->ncontexts;
	uint8_t *has = pc_xcalloc(nctx / 8 + 1, 1);
	/* every context's position, numbered once for all metrics (as
	 * met in the part's order; the map is freed before the flows) */
	uint32_t *gpos = pc_xmalloc(nctx * sizeof(uint32_t));
	pc_id glo = PC_NONE, ghi = 0;
	for (size_t i = v0; i < end; i++) {
		pc_id c = v[i].ctx;
		has[c / 8] |= (uint8_t)(1u << (c % 8));
		glo = c < glo ? c : glo;
		ghi = c > ghi ? c : ghi;
	}
	struct posset ps = { .db = db, .map = pc_keymap_new() };
	for (size_t j = 0;;) {
		pc_id c = next_marked(order, norder, glo, ghi, has, &j);
		if (c == PC_NONE)
			break;
		gpos[c] = pos_group(&ps, c);
	}
	size_t npos = ps.n;
	pc_keymap_free(ps.map);
	free(ps.ctx);
	/* a position's number in the metric at hand */
	uint32_t *local = pc_xmalloc((npos + 1) * sizeof(uint32_t));
	/* the metrics' values: rounded as they come on one thread, after
	 * all of them on several (a flow each, up to jobs at once) */
	struct seg *seg = pc_xcalloc(db->nmetrics + 1, sizeof(*seg));
	size_t nseg = 0, ntodo = 0, out = v0, in = v0, nround = 0, most = 0;
	for (pc_id m = 0; m < db->nmetrics; m++)
		if (count[m] && m != skip && m != skip2) {
			nround++;
			most = count[m] > most ? count[m] : most;
		}
	/* flows at once: a flow takes some 70 bytes a share at its peak
	 * (the generated 70 MB file's: 230 MB for 3.3 million), and its
	 * thread a 4-byte table a context; those beyond the first may
	 * take together as much as the model's contexts and the part's
	 * values do, so that threads add at most that to the peak (2
	 * flows there; 13 events of that size, 6) */
	size_t flow = 70 * most + 4 * nctx + 1;
	size_t fit = 1 + (nctx * sizeof(*db->contexts) +
			  (end - v0) * sizeof(*v)) / flow;
	jobs = jobs && nround > 1 ? jobs : 1;
	jobs = jobs > fit ? (unsigned)fit : jobs;
	struct rounding r = { db, seg,
			      pc_xcalloc(db->nmetrics + 1, sizeof(size_t)),
			      pc_xcalloc(jobs, sizeof(int32_t *)) };
	for (pc_id m = 0; m < db->nmetrics; m++) {
		if (!count[m])
			continue;
		/* per context: the metric's sum (freed before the flow) */
		double *sum = pc_xmalloc(nctx * sizeof(double));
		pc_id lo = PC_NONE, hi = 0;
		for (size_t i = in; i < end; i++) {
			if (v[i].metric != m)
				continue;
			pc_id c = v[i].ctx;
			if (has[c / 8] & (1u << (c % 8))) {
				sum[c] += v[i].value;
			} else {
				has[c / 8] |= (uint8_t)(1u << (c % 8));
				sum[c] = v[i].value;
				lo = c < lo ? c : lo;
				hi = c > hi ? c : hi;
			}
		}
		size_t w = end;
		for (size_t i = end; i-- > in;)
			if (v[i].metric != m)
				v[--w] = v[i];
		in = w;
		/* [out, in) is free, at least count[m] values; positions
		 * are numbered per metric, as met (the rounding of one
		 * metric is all that needs them) */
		for (size_t g = 0; g < npos; g++)
			local[g] = UINT32_MAX;
		uint32_t ng = 0;
		size_t k = out;
		for (size_t j = 0;;) {
			pc_id c = next_marked(order, norder, lo, hi, has, &j);
			if (c == PC_NONE)
				break;
			uint32_t *g = &local[gpos[c]];
			if (*g == UINT32_MAX)
				*g = ng++;
			v[k++] = (struct pc_value){ *g, c, m, sum[c] };
		}
		free(sum);
		/* what is left of the room below the next metric's values
		 * is not needed until they move down */
		pc_release(v + k, (in - k) * sizeof(*v));
		struct seg *sg = &seg[nseg];
		*sg = (struct seg){ out, k, m, ng, 0 };
		if (m != skip && m != skip2)
			r.todo[ntodo++] = nseg;
		nseg++;
		if (jobs > 1) {
			out = k;
		} else {
			/* one thread: the metric is rounded now, and its
			 * zeros leave room for the next */
			if (m != skip && m != skip2)
				round_one(&r, sg, 0);
			out = move_down(v, sg, sg->lo, prof);
		}
	}
	free(local);
	free(gpos);
	free(has);
	free(count);
	if (jobs > 1) {
		pc_parallel(ntodo, jobs, round_seg, &r);
		out = v0;
		for (size_t i = 0; i < nseg; i++)
			out = move_down(v, &seg[i], out, prof);
	}
	size_t failed = 0;
	for (size_t i = 0; i < nseg; i++)
		failed += (size_t)seg[i].failed;
	for (unsigned k = 0; k < jobs; k++)
		free(r.node_of[k]);
	free(r.node_of);
	free(r.todo);
	free(seg);
	db->nvalues = out;
	db->values_sorted = 0;
	return failed;
}
