/* Heavy paths (doc/callgrind-tree.md, "Cuts and summed frames"): which heavy
 * functions a piece of cut cost was reached through. A heavy function
 * lies on no cycle of the call graph (a one-function SCC) and holds
 * CG_HEAVY_SHARE of a metric's total or more inclusively. A path is a
 * node of a trie of heavy functions, from the entry point down (node
 * 0: none); a function is on a path at most once (recursion folded, as
 * a stack view counts a function once per stack). The tree carries the
 * path of each context it lays out on its pending work, and a rest
 * carries it through its walk, so that the summed frame of an anchor
 * can lay each function's cost below the heavy functions it was reached
 * through: their inclusive cost then lies below them. */
#include "callgrind_tree.h"

#include <stdlib.h>
#include <string.h>

void cg_hpath_init(struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	x->heavy = pc_xcalloc(g->nfns + 1, 1);
	for (uint32_t f = 0; f < g->nfns; f++) {
		uint32_t s = x->scc_of[f];
		if (x->sccs[s].n != 1)
			continue;
		for (size_t m = 0; m < nev; m++)
			if (x->grand[m] > 0 &&
			    x->incl[(size_t)s * nev + m] >=
				    CG_HEAVY_SHARE * x->grand[m])
				x->heavy[f] = 1;
	}
	x->hn = pc_xmalloc(sizeof(*x->hn));
	x->hn[0] = (struct hnode){ UINT32_MAX, UINT32_MAX, 0 };
	x->nhn = x->caphn = 1;
}

void cg_hpath_free(struct expand *x)
{
	free(x->heavy);
	free(x->hn);
	free(x->hslot);
	free(x->hkeep);
	free(x->hmark);
	free(x->hstack);
	free(x->hbyn);
	x->hbyn = NULL;
	x->caphbyn = 0;
	x->hmark = NULL;
	x->hstack = NULL;
	x->hkeep = NULL;
	x->heavy = NULL;
	x->hn = NULL;
	x->hslot = NULL;
}

static size_t hslot_of(const struct expand *x, uint32_t up, uint32_t f)
{
	uint64_t h = ((uint64_t)up * 0x9E3779B97F4A7C15u) ^
		     ((uint64_t)f * 0xC2B2AE3D27D4EB4Fu);
	size_t i = (size_t)(h >> 20) & (x->nhslot - 1);
	for (;; i = (i + 1) & (x->nhslot - 1)) {
		uint32_t e = x->hslot[i];
		if (!e || (x->hn[e].up == up && x->hn[e].fn == f))
			return i;
	}
}

/* Whether heavy function f is on path p. */
static int on_path(const struct expand *x, uint32_t p, uint32_t f)
{
	for (; p; p = x->hn[p].up)
		if (x->hn[p].fn == f)
			return 1;
	return 0;
}

/* Path (p, f), made (f heavy and not on p: the caller has seen it). */
static uint32_t hpath_child(struct expand *x, uint32_t p, uint32_t f)
{
	if (2 * (x->nhn + 1) > x->nhslot) { /* (half full at most) */
		free(x->hslot);
		x->nhslot = x->nhslot ? 2 * x->nhslot : 1024;
		x->hslot = pc_xcalloc(x->nhslot, sizeof(uint32_t));
		for (uint32_t e = 1; e < x->nhn; e++)
			x->hslot[hslot_of(x, x->hn[e].up, x->hn[e].fn)] = e;
	}
	size_t i = hslot_of(x, p, f);
	if (x->hslot[i])
		return x->hslot[i];
	if (x->nhn >= UINT32_MAX - 1)
		pc_die("the call tree's heavy paths: more than 2^32");
	PC_GROW(x->hn, x->nhn, x->caphn);
	x->hn[x->nhn] = (struct hnode){ p, f, x->hn[p].depth + 1 };
	x->hslot[i] = (uint32_t)x->nhn;
	return (uint32_t)x->nhn++;
}

/* Path (p, f) if it was made (then f is not on p), else 0. */
static uint32_t hpath_find(const struct expand *x, uint32_t p, uint32_t f)
{
	return x->nhslot ? x->hslot[hslot_of(x, p, f)] : 0;
}

/* The path below function f reached by path p: p and f, where f is
 * heavy and not on p already; else p. */
uint32_t cg_hpath_step(struct expand *x, uint32_t p, uint32_t f)
{
	if (!x->heavy[f])
		return p;
	uint32_t q = hpath_find(x, p, f);
	if (q)
		return q;
	return on_path(x, p, f) ? p : hpath_child(x, p, f);
}

/* The functions on path p marked (x->hmark), those of the path marked
 * before unmarked: from one to the other through the lowest path above
 * both (walks of paths near each other in the trie are cheap). */
void cg_hpath_mark(struct expand *x, uint32_t p)
{
	if (!x->hmark)
		x->hmark = pc_xcalloc(x->g->nfns + 1, 1);
	uint32_t a = x->hmarked, b = p;
	size_t top = 0;
	while (a != b) {
		if (x->hn[a].depth >= x->hn[b].depth) {
			x->hmark[x->hn[a].fn] = 0;
			a = x->hn[a].up;
		} else {
			PC_GROW(x->hstack, top, x->caphstack);
			x->hstack[top++] = b;
			b = x->hn[b].up;
		}
	}
	while (top)
		x->hmark[x->hn[x->hstack[--top]].fn] = 1;
	x->hmarked = p;
}

/* cg_hpath_step where p is the path marked (cg_hpath_mark). */
uint32_t cg_hpath_step_marked(struct expand *x, uint32_t p, uint32_t f)
{
	if (!x->heavy[f] || x->hmark[f])
		return p;
	uint32_t q = hpath_find(x, p, f);
	return q ? q : hpath_child(x, p, f);
}

/* The places of paths below anchors' summed frames: a heavy path's
 * node below an anchor whose context's path lies above it. */
static size_t hplace_slot(const struct hplace *t, uint32_t at, uint32_t n)
{
	uint64_t h = ((uint64_t)at * 0x9E3779B97F4A7C15u) ^
		     ((uint64_t)n * 0xC2B2AE3D27D4EB4Fu);
	size_t i = (size_t)(h >> 20) & (t->nslot - 1);
	for (;; i = (i + 1) & (t->nslot - 1)) {
		uint32_t e = t->slot[i];
		if (!e || (t->e[e - 1].at == at && t->e[e - 1].node == n))
			return i;
	}
}

static struct hpl *hplace_find(const struct hplace *t, uint32_t at,
			       uint32_t n)
{
	if (t->byn) { /* (one anchor's places) */
		uint32_t e = t->byn[n];
		return e ? &t->e[e - 1] : NULL;
	}
	if (!t->nslot)
		return NULL;
	uint32_t e = t->slot[hplace_slot(t, at, n)];
	return e ? &t->e[e - 1] : NULL;
}

/* The place of node n at anchor `at` in t (one anchor's table by node,
 * or the hash table), made if missing (with *made, where given, whether
 * it was). */
static struct hpl *hplace_get(struct hplace *t, uint32_t at, uint32_t n,
			      int *made)
{
	if (t->byn) { /* (one anchor's places, by node) */
		if (made)
			*made = !t->byn[n];
		if (!t->byn[n]) {
			PC_GROW(t->e, t->n, t->cap);
			t->e[t->n] = (struct hpl){ .at = at, .node = n,
						   .ctx = PC_NONE };
			t->byn[n] = (uint32_t)++t->n;
		}
		return &t->e[t->byn[n] - 1];
	}
	if (2 * (t->n + 1) > t->nslot) { /* (half full at most) */
		free(t->slot);
		t->nslot = t->nslot ? 2 * t->nslot : 1024;
		t->slot = pc_xcalloc(t->nslot, sizeof(uint32_t));
		for (size_t e = 0; e < t->n; e++)
			t->slot[hplace_slot(t, t->e[e].at, t->e[e].node)] =
				(uint32_t)e + 1;
	}
	size_t i = hplace_slot(t, at, n);
	if (made)
		*made = !t->slot[i];
	if (!t->slot[i]) {
		if (t->n >= UINT32_MAX - 1)
			pc_die("the call tree's heavy paths: more than 2^32 "
			       "places");
		PC_GROW(t->e, t->n, t->cap);
		t->e[t->n] = (struct hpl){ .at = at, .node = n,
					   .ctx = PC_NONE };
		t->slot[i] = (uint32_t)++t->n;
	}
	return &t->e[t->slot[i] - 1];
}

/* Weight w reached by path p at anchor `at`: on each node of p below
 * the anchor's own path, made if need be. */
void cg_hplace_add(const struct expand *x, struct hplace *t, uint32_t at,
		   uint32_t p, double w)
{
	uint32_t top = x->hn[x->anchors[at].hpath].depth;
	for (uint32_t n = p; x->hn[n].depth > top; n = x->hn[n].up)
		hplace_get(t, at, n, NULL)->w += w;
}

/* A table of one anchor's places found by trie node (t->byn: x's
 * array, zero outside the table's nodes), not by hash. */
static void hplace_by_node(struct expand *x, struct hplace *t)
{
	if (x->caphbyn < x->nhn + 1) {
		free(x->hbyn);
		x->caphbyn = 2 * (x->nhn + 1);
		x->hbyn = pc_xcalloc(x->caphbyn, sizeof(uint32_t));
	}
	t->byn = x->hbyn;
}

/* The table's nodes zeroed in x's array again; the table freed. */
static void hplace_by_node_free(struct hplace *t)
{
	for (size_t e = 0; e < t->n; e++)
		t->byn[t->e[e].node] = 0;
	t->byn = NULL;
	cg_hplace_free(t);
}

/* The places of path p at anchor `at` (cg_hplace_add's, without their
 * weights), made where missing: the lowest first, as cg_hplace_add
 * makes them (a place is made with those above it, so the first one
 * found ends the walk). */
void cg_hplace_make(const struct expand *x, struct hplace *t, uint32_t at,
		    uint32_t p)
{
	uint32_t top = x->hn[x->anchors[at].hpath].depth;
	for (uint32_t n = p; x->hn[n].depth > top; n = x->hn[n].up) {
		int made;
		hplace_get(t, at, n, &made);
		if (!made)
			return;
	}
}

/* A unit: a function's pieces below a place (their count and weight),
 * how many lie at the place, whether they were moved there, the unit of
 * the same function at the place's parent, and of its pieces those
 * that lie at moved units below it (32 bytes: the units are the rests'
 * peak of memory; the weight orders them) */
struct hunit {
	uint32_t pl, f;
	uint32_t nsub : 31, done : 1;
	uint32_t cur;
	float w;
	uint32_t up; /* UINT32_MAX: at the anchor's summed frame */
	uint32_t below; /* of nsub, the pieces at moved units below it */
	float wbelow;   /* their weight */
};

/* The units, found by (place, function) while they are made (slot) */
struct hunits {
	struct hunit *e;
	size_t n, cap;
	uint32_t *slot;
	size_t nslot;
};

static size_t hunit_slot(const struct hunits *c, uint32_t pl, uint32_t f)
{
	uint64_t h = ((uint64_t)pl * 0x9E3779B97F4A7C15u) ^
		     ((uint64_t)f * 0xC2B2AE3D27D4EB4Fu);
	size_t i = (size_t)(h >> 20) & (c->nslot - 1);
	for (;; i = (i + 1) & (c->nslot - 1)) {
		uint32_t e = c->slot[i];
		if (!e || (c->e[e - 1].pl == pl && c->e[e - 1].f == f))
			return i;
	}
}

/* Unit (pl, f), made if need be (*made set then): its index. */
static uint32_t hunit_make(struct hunits *c, uint32_t pl, uint32_t f,
			   int *made)
{
	if (2 * (c->n + 1) > c->nslot) {
		free(c->slot);
		c->nslot = c->nslot ? 2 * c->nslot : 1024;
		c->slot = pc_xcalloc(c->nslot, sizeof(uint32_t));
		for (size_t k = 0; k < c->n; k++)
			c->slot[hunit_slot(c, c->e[k].pl, c->e[k].f)] =
				(uint32_t)k + 1;
	}
	size_t i = hunit_slot(c, pl, f);
	*made = !c->slot[i];
	if (c->slot[i])
		return c->slot[i] - 1;
	if (c->n >= UINT32_MAX - 1)
		pc_die("the call tree's heavy paths: more than 2^32 units");
	PC_GROW(c->e, c->n, c->cap);
	c->e[c->n] = (struct hunit){ .pl = pl, .f = f, .up = UINT32_MAX };
	c->slot[i] = (uint32_t)++c->n;
	return (uint32_t)c->n - 1;
}

/* Piece q's units (function f, place a at anchor place root, weight
 * w): the unit at root (returned), and those of a and the places above
 * it up to root, made where missing (the lowest first, as the walk up
 * meets them: a unit made is made with the chain above it, so the
 * first one found ends the walk), each given the piece. *leaf: the
 * lowest (root's where a is root). */
static uint32_t hunit_piece(struct hunits *us, const uint32_t *par,
			    uint32_t root, uint32_t a, uint32_t f, double w,
			    uint32_t *leaf)
{
	int made;
	uint32_t ru = hunit_make(us, root, f, &made), low = ru;
	uint32_t prev = UINT32_MAX;
	us->e[ru].cur++;
	for (; a != root; a = par[a]) {
		uint32_t k = hunit_make(us, a, f, &made);
		if (prev == UINT32_MAX)
			low = k;
		else
			us->e[prev].up = k;
		prev = k;
		if (!made)
			break;
	}
	if (prev != UINT32_MAX && us->e[prev].up == UINT32_MAX)
		us->e[prev].up = ru;
	for (uint32_t k = low; k != ru; k = us->e[k].up) {
		us->e[k].w += (float)w;
		us->e[k].nsub++;
	}
	*leaf = low;
	return ru;
}

/* Contexts function f's run at a place takes at most. */
static size_t run_size(const struct expand *x, uint32_t f)
{
	return x->rec_start[f] != x->rec_start[f + 1] ? 1 + x->npos[f] : 1;
}

/* Each heavy function's loss were no unit moved (a share of the first
 * metric's total, into loss[f]): its inclusive cost less what lies
 * below its contexts in the tree laid out so far (every cost but the
 * rests') and the pieces that count for it where they lie anyway (its
 * own, and those at anchors below it). */
static void tree_loss(const struct expand *x, size_t np, const uint32_t *pat,
		      const uint32_t *fn, const double *w, double *loss)
{
	const struct pc_db *db = x->db;
	const struct cg_graph *g = x->g;
	size_t nc = db->ncontexts, nev = x->nev;
	if (!(x->grand[0] > 0))
		return;
	double *inc = pc_xcalloc(nc + 1, sizeof(double));
	pc_id m0 = g->metric[0];
	for (size_t i = 0; i < db->nvalues; i++) {
		const struct pc_value *v = &db->values[i];
		if (v->profile == x->profile && v->metric == m0 && v->ctx < nc)
			inc[v->ctx] += v->value;
	}
	for (size_t c = nc; c-- > 1;) {
		pc_id up = db->contexts[c].parent;
		if (up < c)
			inc[up] += inc[c];
	}
	uint32_t *hof = pc_xcalloc(db->nfunctions + 1, sizeof(uint32_t));
	for (uint32_t f = 0; f < g->nfns; f++)
		if (x->heavy[f]) {
			hof[g->fns[f].func] = f + 1;
			loss[f] = x->incl[(size_t)x->scc_of[f] * nev] /
				  x->grand[0];
		}
	for (size_t c = 1; c < nc; c++) {
		const struct pc_context *k = &db->contexts[c];
		if (k->kind != PC_CTX_FUNCTION || k->function >= db->nfunctions ||
		    !hof[k->function] || !(inc[c] != 0))
			continue;
		int top = 1; /* (not below a context of its own) */
		for (pc_id a = k->parent; a && top; a = db->contexts[a].parent)
			top = !(db->contexts[a].kind == PC_CTX_FUNCTION &&
				db->contexts[a].function == k->function);
		if (top)
			loss[hof[k->function] - 1] -= inc[c] / x->grand[0];
	}
	for (size_t q = 0; q < np; q++) {
		if (x->heavy[fn[q]])
			loss[fn[q]] -= w[q];
		for (uint32_t n = x->anchors[pat[q]].hpath; n; n = x->hn[n].up)
			loss[x->hn[n].fn] -= w[q];
	}
	free(hof);
	free(inc);
}

/* Unit ui's key: its function's pieces below its place that still lie
 * at the lowest unit above it moved (or at the anchor's summed frame),
 * moved below its place, past the units between, which stay as they
 * are: a run of the function there (its context and positions), the
 * places' contexts not made yet (CG_PLACE_CTXS each: its own and those
 * between), less the run the unit they leave no longer has. The gain
 * is their weight given back to each heavy function of those places,
 * as far as it loses more than its goal, and CG_HEAVY_EPS of it (so
 * that the order goes on by weight once every loss is down to its
 * goal); the key is the gain per context (*cost: the contexts). 0 for
 * a unit moved or with nothing left to move. With dg (each function's
 * loss at the default bound, a larger --max-contexts' room past the
 * default's), the weight given back to each function as far as it
 * loses more than that counts CG_HEAVY_DEFW of itself more. (inline:
 * called from three places, it was not, and the default bound's
 * instructions grew 0.4%.) */
static inline double unit_key(const struct expand *x,
			      const struct hplace *t, const struct hunits *us,
			      const uint32_t *hf, const double *loss,
			      const double *goal, const double *dg,
			      size_t nplace, uint32_t ui, size_t *cost)
{
	const struct hunit *u = &us->e[ui];
	if (u->done)
		return 0;
	size_t r = run_size(x, u->f), c = r;
	uint32_t k = u->nsub - u->below;
	double wk = (double)u->w - (double)u->wbelow, g = 0;
	if (!k || !(wk > 0))
		return 0;
	uint32_t v = ui;
	for (; us->e[v].pl < nplace && !us->e[v].done; v = us->e[v].up) {
		c += CG_PLACE_CTXS * !t->e[us->e[v].pl].kept;
		uint32_t f = hf[v];
		double l = loss[f] - goal[f];
		g += (l <= 0 ? 0 : l < wk ? l : wk) + CG_HEAVY_EPS * wk;
		if (dg) {
			l = loss[f] - dg[f];
			g += CG_HEAVY_DEFW * (l <= 0 ? 0 : l < wk ? l : wk);
		}
	}
	if (us->e[v].cur == k)
		c -= r;
	if (cost)
		*cost = c;
	return g / (double)(c ? c : 1);
}

/* Moves units within room, most gain per context first (unit_key): a
 * unit's key changes only when a unit is moved: one computed since the
 * last move is taken as it is (cg_cand: gain per context, unit, the
 * moves before its key). Up to lim with dg (unit_key's), then, if lim
 * is short of room, the rest with x->dgoal; returns the room used. */
static size_t unit_pass(const struct expand *x, struct hplace *t,
			struct hunits *us, const uint32_t *hf, double *loss,
			const double *goal, size_t nplace, size_t room,
			const double *dg, size_t lim)
{
	size_t nh = 0, caph = 1, used = 0;
	uint32_t moves = 0;
	for (size_t k = 0; k < us->n; k++)
		caph += us->e[k].pl < nplace && us->e[k].w > 0;
	struct cg_cand *h = pc_xmalloc(caph * sizeof(*h));
	for (int fill = 1;;) {
		if (fill) /* every unit not moved a candidate */
			for (size_t k = 0; k < us->n; k++)
				if (us->e[k].pl < nplace && us->e[k].w > 0 &&
				    !us->e[k].done)
					cg_cand_push(&h, &nh, &caph,
						(struct cg_cand){
						unit_key(x, t, us, hf, loss,
							 goal, dg, nplace,
							 (uint32_t)k, NULL),
						(uint32_t)k, moves });
		fill = 0;
		if (!nh || used >= lim) {
			if (lim == room)
				break;
			/* past lim: the rest of the room by x->dgoal */
			lim = room;
			dg = x->dgoal;
			nh = 0;
			moves++;
			fill = 1;
			continue;
		}
		struct cg_cand c = cg_cand_pop(h, &nh);
		uint32_t ci = c.id;
		struct hunit *u = &us->e[ci];
		size_t cost = 0;
		double key = unit_key(x, t, us, hf, loss, goal, dg, nplace,
				      ci, &cost);
		if (!(key > 0) || cost > lim - used)
			continue;
		if (c.cost != moves && nh && key < h[0].key) {
			cg_cand_push(&h, &nh, &caph,
				     (struct cg_cand){ key, ci, moves });
			continue;
		}
		/* from the lowest unit above it moved (or the summed
		 * frame's), through the places between */
		uint32_t a = u->up;
		while (us->e[a].pl < nplace && !us->e[a].done)
			a = us->e[a].up;
		uint32_t k = u->nsub - u->below;
		float wk = u->w - u->wbelow;
		us->e[a].cur -= k;
		u->cur += k;
		u->done = 1;
		for (uint32_t v = ci; v != a; v = us->e[v].up) {
			if (v != ci) {
				us->e[v].below += k;
				us->e[v].wbelow += wk;
			}
			t->e[us->e[v].pl].kept = 1;
			loss[hf[v]] -= wk;
		}
		used += cost;
		moves++;
	}
	free(h);
	return used;
}

/* Moves each function's pieces below the places of their heavy paths
 * (np pieces: at anchor pat[q], function fn[q], path path[q], weight
 * w[q]) within room: a unit (a place, a function) moves the
 * function's pieces below the place there from the lowest place above
 * it they were moved to (or the anchor's summed frame), taking a run
 * of the function there (its context and positions) and the places'
 * contexts if new, less the run the place they leave no longer has;
 * it gives the heavy functions of the places it passes their weight
 * back. The units go most gain per context first (unit_key): a gain
 * is weight given back to a heavy function that loses more than its
 * goal (tree_loss: CG_HEAVY_LOSS, or where it loses more than
 * CG_HEAVY_OFF whatever the units do, CG_HEAVY_OVER more than that),
 * CG_HEAVY_EPS of the weight beyond. A unit need not wait for the
 * units above it: before (a unit's chain of units below it, each
 * moved after the one above), a place deep below others cost a run
 * at each place above it where the function had pieces of its own
 * (stl.cpp's dom_walker::walk, below the passes, -1.29 points; now
 * -0.97). Sets each piece's node (pnode: its place's, or its anchor's
 * own path: the summed frame); returns the contexts taken. */
size_t cg_hplace_keep(const struct expand *x, struct hplace *t, size_t room,
		      size_t np, const uint32_t *pat, const uint32_t *path,
		      const uint32_t *fn, const double *w, uint32_t *pnode)
{
	size_t nplace = t->n;
	/* the anchors' own places (their summed frames), made */
	uint32_t *root = pc_xmalloc((x->nanchors + 1) * sizeof(uint32_t));
	memset(root, 0xff, (x->nanchors + 1) * sizeof(uint32_t));
	for (size_t q = 0; q < np; q++) {
		uint32_t at = pat[q];
		pnode[q] = x->anchors[at].hpath;
		if (root[at] != UINT32_MAX)
			continue;
		PC_GROW(t->e, t->n, t->cap);
		t->e[t->n] = (struct hpl){ .at = at,
					   .node = x->anchors[at].hpath,
					   .ctx = PC_NONE, .kept = 1 };
		root[at] = (uint32_t)t->n++;
	}
	if (!nplace || !room) {
		free(root);
		t->n = nplace;
		return 0;
	}
	/* each place's parent */
	size_t n = t->n;
	uint32_t *par = pc_xmalloc((n + 1) * sizeof(uint32_t));
	for (size_t e = 0; e < n; e++) {
		par[e] = UINT32_MAX;
		if (e >= nplace)
			continue;
		uint32_t up = x->hn[t->e[e].node].up, at = t->e[e].at;
		const struct hpl *u = hplace_find(t, at, up);
		par[e] = u ? (uint32_t)(u - t->e) : root[at];
	}
	/* the units: per function, its pieces at its anchor's summed
	 * frame, and below each place on their paths; each piece's
	 * lowest unit */
	struct hunits us = { 0 };
	uint32_t *leaf = pc_xmalloc((np + 1) * sizeof(uint32_t));
	for (size_t q = 0; q < np; q++) {
		const struct hpl *h = hplace_find(t, pat[q], path[q]);
		uint32_t a = h ? (uint32_t)(h - t->e) : root[pat[q]];
		hunit_piece(&us, par, root[pat[q]], a, fn[q], w[q], &leaf[q]);
	}
	free(us.slot);
	us.slot = NULL;
	free(par);
	/* each heavy function's loss (a share of the first metric's total,
	 * the pprof and stack views' default; the units' weights are shares
	 * of the metric of each piece's largest share) */
	double *loss = pc_xcalloc(x->g->nfns + 1, sizeof(double));
	tree_loss(x, np, pat, fn, w, loss);
	/* what each one's loss is brought to: CG_HEAVY_LOSS, or where
	 * what the units cannot give back (the cuts', the pieces no path
	 * reached it by) passes CG_HEAVY_OFF, CG_HEAVY_OVER more than
	 * that: such a function is off whatever the units do, and room for
	 * it goes to those it brings within the goal */
	double *goal = pc_xcalloc(x->g->nfns + 1, sizeof(double));
	for (size_t k = 0; k < us.n; k++)
		if (us.e[k].pl < nplace)
			goal[x->hn[t->e[us.e[k].pl].node].fn] -= us.e[k].w;
	for (uint32_t f = 0; f < x->g->nfns; f++) {
		double fl = loss[f] + goal[f];
		goal[f] = fl <= CG_HEAVY_OFF ? CG_HEAVY_LOSS :
					       fl + CG_HEAVY_OVER;
	}
	uint32_t *hf = pc_xmalloc((us.n + 1) * sizeof(uint32_t));
	for (size_t k = 0; k < us.n; k++)
		hf[k] = x->hn[t->e[us.e[k].pl].node].fn;
	size_t used;
	if (!x->dgoal) {
		used = unit_pass(x, t, &us, hf, loss, goal, nplace, room,
				 NULL, room);
	} else {
		/* a larger --max-contexts (x->dgoal): three orders, and the
		 * one whose functions lose least past their losses at the
		 * default bound (the worst of them, then their sum) */
		size_t ne = us.n, nk = t->n;
		struct hunit *e0 = pc_xmalloc((ne + 1) * sizeof(*e0));
		memcpy(e0, us.e, ne * sizeof(*e0));
		uint8_t *k0 = pc_xmalloc(nk + 1);
		for (size_t k = 0; k < nk; k++)
			k0[k] = (uint8_t)t->e[k].kept;
		double *l0 = pc_xmalloc((x->g->nfns + 1) * sizeof(double));
		memcpy(l0, loss, x->g->nfns * sizeof(double));
		double dused = x->dgoal[x->g->nfns];
		size_t first = dused < (double)room ? (size_t)dused : room;
		const double *dg0[3] = { NULL, x->dgoal, NULL };
		size_t lim0[3] = { first, room, room };
		double best[2] = { HUGE_VAL, HUGE_VAL };
		int b = 0;
		for (int o = 0; o <= 3; o++) {
			if (o) { /* (back to the start) */
				memcpy(us.e, e0, ne * sizeof(*e0));
				for (size_t k = 0; k < nk; k++)
					t->e[k].kept = k0[k];
				memcpy(loss, l0, x->g->nfns * sizeof(double));
			}
			int r = o < 3 ? o : b;
			used = unit_pass(x, t, &us, hf, loss, goal, nplace,
					 room, dg0[r], lim0[r]);
			if (o == 3)
				break;
			double worst = 0, sum = 0;
			for (uint32_t f = 0; f < x->g->nfns; f++) {
				double d = loss[f] - x->dgoal[f];
				if (x->heavy[f] && d > 0) {
					worst = d > worst ? d : worst;
					sum += d;
				}
			}
			if (worst < best[0] ||
			    (worst == best[0] && sum < best[1])) {
				best[0] = worst;
				best[1] = sum;
				b = o;
			}
			if (b == o && !(worst > CG_HEAVY_NEAR))
				break; /* (as good as it gets: kept) */
			if (o == 2 && b == 2)
				break;
		}
		free(e0);
		free(k0);
		free(l0);
	}
	free(hf);
	if (x->dloss) { /* (the default bound's run under a larger one) */
		memcpy(x->dloss, loss, x->g->nfns * sizeof(double));
		x->dloss[x->g->nfns] = (double)used;
	}
	/* each piece at the lowest place above it its function moved to */
	for (size_t q = 0; q < np; q++)
		for (uint32_t k = leaf[q]; us.e[k].up != UINT32_MAX;
		     k = us.e[k].up)
			if (us.e[k].done) {
				pnode[q] = t->e[us.e[k].pl].node;
				break;
			}
	free(loss);
	free(goal);
	free(us.e);
	free(leaf);
	free(root);
	t->n = nplace; /* (the roots' entries out of the table again) */
	return used;
}

/* The context below which what lies at kept node n at anchor `at`
 * goes (n the anchor's own path: the anchor's summed frame `summed`):
 * a chain of the path's heavy functions below the summed frame, each
 * with a summed frame of its own below it, made as needed,

 *     [summed] -> h1 -> [summed] -> h2 -> [summed] -> f

 * so that no frame below a heavy function reads as a call the input
 * may not have: what lies there was reached through it, on paths the
 * tree does not keep. */
pc_id cg_hplace_ctx(struct expand *x, struct hplace *t, uint32_t at,
		    uint32_t n, pc_id summed)
{
	uint32_t top = x->hn[x->anchors[at].hpath].depth;
	if (x->hn[n].depth <= top)
		return summed;
	struct hpl *h = hplace_find(t, at, n);
	if (h->ctx == PC_NONE) {
		pc_id up = cg_hplace_ctx(x, t, at, x->hn[n].up, summed);
		h->ctx = cg_summed_ctx(
			x, cg_call_ctx(x, up, x->g->fns[x->hn[n].fn].func),
			h->nf ? h->nf : 1);
	}
	return h->ctx;
}

/* Counts, into each place's nf, the functions with cost that lie below
 * it: one at anchor `at` with its context at node n (calls in order of
 * (at, f): a function is counted once per place). */
void cg_hplace_count(const struct expand *x, struct hplace *t, uint32_t at,
		     uint32_t n, uint32_t f, uint64_t *mark)
{
	uint32_t top = x->hn[x->anchors[at].hpath].depth;
	uint64_t key = ((uint64_t)at << 32 | f) + 1;
	for (; x->hn[n].depth > top; n = x->hn[n].up) {
		struct hpl *h = hplace_find(t, at, n);
		size_t e = (size_t)(h - t->e);
		if (mark[e] != key) {
			mark[e] = key;
			h->nf++;
		}
	}
}

void cg_hplace_free(struct hplace *t)
{
	free(t->e);
	free(t->slot);
	*t = (struct hplace){ 0 };
}

/* Path p at anchor `at` without its places lighter than min (t holds
 * the weights of the anchor's rest by path): the nearest place above
 * it of min or more, or the anchor's own path; but the lowest place of
 * a function kept (x->hkeep, cg_hpath_rescue) of CG_HEAVY_KEEP or
 * more, with the path above it, where that lies lower. */
uint32_t cg_hplace_trim(const struct expand *x, const struct hplace *t,
			uint32_t at, uint32_t p, double min)
{
	uint32_t top = x->hn[x->anchors[at].hpath].depth, q = p, k = 0;
	for (uint32_t n = p; x->hn[n].depth > top; n = x->hn[n].up) {
		const struct hpl *h = hplace_find(t, at, n);
		if (h && h->w < min)
			q = x->hn[n].up;
		if (!k && h && x->hkeep && x->hkeep[x->hn[n].fn] &&
		    h->w >= CG_HEAVY_KEEP * x->hscale)
			k = n;
	}
	return k && x->hn[k].depth > x->hn[q].depth ? k : q;
}

/* An entry of the walk of an anchor's rest: the weights w of (kind,
 * idx, inst) reached by heavy path `path`. */
void cg_pend_add(struct hpends *rw, size_t nev, uint32_t path,
		     uint32_t kind, uint32_t idx, uint32_t inst,
		     const double *w)
{
	if (rw->npw + nev > rw->cappw) {
		rw->cappw = 2 * (rw->npw + nev);
		rw->pw = pc_xrealloc(rw->pw, rw->cappw, sizeof(double));
	}
	memcpy(rw->pw + rw->npw, w, nev * sizeof(double));
	struct hpend e = { path, kind, idx, inst, rw->npw };
	rw->npw += nev;
	PC_GROW(rw->e, rw->n, rw->cap);
	size_t i = rw->n++;
	while (i && e.path < rw->e[(i - 1) / 2].path) {
		rw->e[i] = rw->e[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	rw->e[i] = e;
}

struct hpend cg_pend_pop(struct hpends *rw)
{
	struct hpend *h = rw->e, top = h[0], last = h[--rw->n];
	size_t i = 0, n = rw->n;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1].path < h[c].path)
			c++;
		if (h[c].path >= last.path)
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = last;
	return top;
}

/* Heavy function f of SCC u reached by one path passes its shares su
 * on by path q (that path and f): its calls out of u become entries of
 * q's walk, the calls into them too. */
void cg_divert_fn(struct expand *x, struct hpends *rw, uint32_t u,
		      uint32_t f, const double *su, uint32_t q)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	double *add = x->mw;
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j], to = g->edges[e].to;
		uint32_t v = x->scc_of[to];
		if (v == u)
			continue;
		int any = 0;
		for (size_t m = 0; m < nev; m++) {
			add[m] = su[m] * x->efrac[e * nev + m];
			any |= add[m] > 0;
		}
		if (any) {
			if (x->sccs[v].n > 1)
				cg_pend_add(rw, nev, q, CG_REST_NODE,
					 (uint32_t)cg_entry_node(x, to),
					 x->dag_of[to], add);
			else
				cg_pend_add(rw, nev, q, CG_REST_SCC, v, 0, add);
		}
		if (!cg_has_calls(x))
			continue;
		cg_calls c = cg_edge_calls(x, u, su, e);
		if (cg_calls_any(c)) {
			memset(add, 0, nev * sizeof(double));
			add[0] = c.n[0];
			if (g->count2)
				add[1] = c.n[1];
			cg_pend_add(rw, nev, q, CG_REST_CALLS, to, 0, add);
		}
	}
}

/* The share of the totals rest entry i stands for. */
static double rent_share(const struct expand *x, uint32_t i)
{
	const struct rent *r = &x->rents[i];
	const double *v = x->rval + (size_t)i * x->nev;
	if (r->kind == CG_REST_SCC)
		return cg_share_of(x, v, x->total + (size_t)r->idx * x->nev);
	if (r->kind == CG_REST_NODE)
		return cg_share_of(x, v, x->sub + (size_t)r->idx * x->nev);
	return 0;
}

/* The rest of anchor a as the entries of its walks by heavy path
 * (rw, for callgrind_rest.c's walk_path), each path's places below the anchor's of
 * CG_HEAVY_MIN or more; they are consumed. */
void cg_rest_pend(struct expand *x, uint32_t a, struct hpends *rw)
{
	struct anchor *an = &x->anchors[a];
	struct hplace t = { 0 };
	hplace_by_node(x, &t);
	rw->n = rw->npw = 0;
	for (uint32_t i = an->rhead; i != UINT32_MAX; i = x->rents[i].next)
		if (x->rents[i].hpath != an->hpath)
			cg_hplace_add(x, &t, a, x->rents[i].hpath,
				      rent_share(x, i));
	for (uint32_t i = an->rhead; i != UINT32_MAX; i = x->rents[i].next) {
		const struct rent *r = &x->rents[i];
		cg_pend_add(rw, x->nev,
			 cg_hplace_trim(x, &t, a, r->hpath,
					CG_HEAVY_MIN * x->hscale),
			 r->kind, r->idx, r->inst,
			 x->rval + (size_t)i * x->nev);
	}
	hplace_by_node_free(&t);
	an->rhead = UINT32_MAX;
}

/* The heavy functions whose paths are kept down to places of
 * CG_HEAVY_KEEP (x->hkeep): those the trim to CG_HEAVY_MIN would take
 * CG_HEAVY_RESCUE of a total or more from (the rests' entries below
 * their places, over all anchors: what no unit can give back). Such a
 * function is reached at many anchors by light places (tmpl.cpp's
 * dom_walker::walk, below each pass that walks the dominator tree: 1.08
 * points; grokdeclarator 0.96); keeping every light place (the trim at
 * 0.01% for all) took 2.6 times the peak memory. */
void cg_hpath_rescue(struct expand *x)
{
	double *tl = pc_xcalloc(x->g->nfns + 1, sizeof(double));
	for (size_t a = 0; a < x->nanchors; a++) {
		const struct anchor *an = &x->anchors[a];
		struct hplace t = { 0 };
		hplace_by_node(x, &t);
		for (uint32_t i = an->rhead; i != UINT32_MAX;
		     i = x->rents[i].next)
			if (x->rents[i].hpath != an->hpath)
				cg_hplace_add(x, &t, (uint32_t)a,
					      x->rents[i].hpath,
					      rent_share(x, i));
		for (uint32_t i = an->rhead; i != UINT32_MAX && t.n;
		     i = x->rents[i].next) {
			uint32_t p = x->rents[i].hpath;
			uint32_t q = cg_hplace_trim(x, &t, (uint32_t)a, p,
						    CG_HEAVY_MIN * x->hscale);
			double sh = q != p ? rent_share(x, i) : 0;
			for (uint32_t n = p; n != q; n = x->hn[n].up)
				tl[x->hn[n].fn] += sh;
		}
		hplace_by_node_free(&t);
	}
	for (uint32_t f = 0; f < x->g->nfns; f++)
		if (tl[f] >= CG_HEAVY_RESCUE * x->hscale) {
			if (!x->hkeep)
				x->hkeep = pc_xcalloc(x->g->nfns + 1, 1);
			x->hkeep[f] = 1;
		}
	free(tl);
}
