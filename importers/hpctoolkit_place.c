/* Where the values of context ids that meta.db elides belong.
 *
 * hpcprof leaves lexical instruction contexts out of meta.db and moves
 * their children up to the instruction's parent, but profile.db keeps
 * the instruction's values under its id. The visible contexts' stored
 * scopes still count them: for a visible context V, per profile and
 * metric,
 *
 *     residual(V) = execution(V) - point(V) - sum of execution(C)
 *                   over the visible children C of V
 *
 * is exactly the sum of the point values of the elided instructions
 * whose parent was V (an elided call-site instruction adds nothing of
 * its own: its callees are visible children of V now). Placing the
 * elided point values is therefore an exact-cover problem: give every
 * elided id one visible context so that each context's residual vector
 * (over every profile and metric) is the sum of the point vectors of the
 * ids it receives. Exact cover is NP-hard, so no search enumerates the
 * covers: propagation decides what every cover implies (an id only one
 * context can hold; a context whose few fitting ids fill it in ways
 * that all use some ids and none others), in time polynomial by
 * construction (solve()). An id is placed only if every cover puts it
 * (or an id with the same vector) in the same context. The others are
 * left to the caller with the deepest context common to every place not
 * ruled out for them. See doc/design.md for a worked example. */
#include "hpctoolkit_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance of a residual: hpcprof's sums and ours add the same
 * doubles in other orders. */
#define REL_TOL 1e-9
/* The most free ids a context's fillings are enumerated for (at most
 * 2^FILL_MAX sets a look). */
#define FILL_MAX 12

struct term {
	uint32_t comp; /* dense (profile, metric) index */
	double v;      /* E: its point value; V: remaining residual */
	double tol;
};

struct place {
	/* E side: elided ids, terms sorted by comp */
	size_t ne;
	size_t *eoff; /* terms of E i: eterm[eoff[i] .. eoff[i+1]) */
	struct term *eterm;
	uint32_t *eclass; /* equal vectors share a class */
	/* V side: visible contexts with a residual, terms sorted by comp */
	size_t nv;
	pc_id *vctx;
	size_t *voff;
	struct term *vterm;
	/* comp -> the V that have a residual there */
	size_t *coff;
	uint32_t *cv;
	/* candidates of each E */
	size_t *candoff;
	uint32_t *cand;
	/* solution */
	uint32_t *at; /* V index of each E, or UINT32_MAX */
	unsigned long work; /* fillings' nodes visited */
	/* undecided E: the deepest context holding every context not
	 * ruled out for it */
	const struct pc_db *db;
	pc_id *common;
};

#define NOWHERE UINT32_MAX

static int fits(double rem, double x, double tol)
{
	return x > 0 ? rem >= x - tol : rem <= x + tol;
}

static struct term *vfind(struct place *pl, uint32_t v, uint32_t comp)
{
	size_t lo = pl->voff[v], hi = pl->voff[v + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pl->vterm[mid].comp < comp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pl->voff[v + 1] && pl->vterm[lo].comp == comp ?
		       &pl->vterm[lo] : NULL;
}

/* Can V take E with what V has left? */
static int can_take(struct place *pl, uint32_t v, size_t e)
{
	for (size_t k = pl->eoff[e]; k < pl->eoff[e + 1]; k++) {
		const struct term *t = vfind(pl, v, pl->eterm[k].comp);
		if (!t || !fits(t->v, pl->eterm[k].v, t->tol))
			return 0;
	}
	return 1;
}

static void take(struct place *pl, uint32_t v, size_t e, double sign)
{
	for (size_t k = pl->eoff[e]; k < pl->eoff[e + 1]; k++)
		vfind(pl, v, pl->eterm[k].comp)->v -= sign * pl->eterm[k].v;
}

/* Is every residual of V used up? (V has terms only in the components
 * elided ids have.) */
static int v_done(const struct place *pl, uint32_t v)
{
	for (size_t k = pl->voff[v]; k < pl->voff[v + 1]; k++) {
		const struct term *t = &pl->vterm[k];
		if (fabs(t->v) > t->tol)
			return 0;
	}
	return 1;
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}


static void candidates(struct place *pl)
{
	size_t cap = 16, n = 0;
	pl->candoff = pc_xmalloc((pl->ne + 1) * sizeof(size_t));
	pl->cand = pc_xmalloc(cap * sizeof(uint32_t));
	for (size_t e = 0; e < pl->ne; e++) {
		pl->candoff[e] = n;
		/* scan the V of E's rarest component */
		uint32_t best = pl->eterm[pl->eoff[e]].comp;
		for (size_t k = pl->eoff[e]; k < pl->eoff[e + 1]; k++) {
			uint32_t c = pl->eterm[k].comp;
			if (pl->coff[c + 1] - pl->coff[c] <
			    pl->coff[best + 1] - pl->coff[best])
				best = c;
		}
		for (size_t k = pl->coff[best]; k < pl->coff[best + 1]; k++) {
			if (!can_take(pl, pl->cv[k], e))
				continue;
			PC_GROW(pl->cand, n, cap);
			pl->cand[n++] = pl->cv[k];
		}
	}
	pl->candoff[pl->ne] = n;
}


/* The nearest common ancestor of two model contexts (parents have
 * smaller ids than their children). */
static pc_id lca(const struct pc_db *db, pc_id a, pc_id b)
{
	if (a == PC_NONE)
		return b;
	while (a != b) {
		if (a > b)
			a = db->contexts[a].parent;
		else
			b = db->contexts[b].parent;
	}
	return a;
}

static double size_of(const struct place *pl, size_t e)
{
	double m = 0;
	for (size_t k = pl->eoff[e]; k < pl->eoff[e + 1]; k++)
		m = fabs(pl->eterm[k].v) > m ? fabs(pl->eterm[k].v) : m;
	return m;
}

/* Largest first (the sums prune sooner); equal vectors side by side,
 * by id. */
static int cmp_class(const void *a, const void *b, void *pl_)
{
	const struct place *pl = pl_;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double sx = size_of(pl, x), sy = size_of(pl, y);
	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (pl->eclass[x] != pl->eclass[y])
		return pl->eclass[x] < pl->eclass[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The fillings of one context: every set of its free fitting ids
 * (cand[0..n), sorted by cmp_class; lc[j] the index of cand[j]'s class
 * among them) that uses up its residual, counted as multisets of
 * classes (ids with equal vectors are interchangeable). For each class,
 * the fewest and the most of its ids a filling has. */
struct fills {
	struct place *pl;
	uint32_t v;
	const size_t *cand;
	const uint32_t *lc;
	size_t n, nt;
	const double *suf; /* suf[j * nt + t]: what cand[j..n) add in term t */
	uint32_t *cnt, *minc, *maxc; /* by class index */
	size_t nclass, nfill;
	unsigned long work; /* nodes visited (tests count it) */
};

static void fill(struct fills *f, size_t i)
{
	struct place *pl = f->pl;
	f->work++;
	if (v_done(pl, f->v)) {
		for (size_t c = 0; c < f->nclass; c++) {
			if (!f->nfill || f->cnt[c] < f->minc[c])
				f->minc[c] = f->cnt[c];
			if (!f->nfill || f->cnt[c] > f->maxc[c])
				f->maxc[c] = f->cnt[c];
		}
		f->nfill++;
		return;
	}
	/* what is left cannot fill it */
	for (size_t t = 0; t < f->nt; t++) {
		const struct term *r = &pl->vterm[pl->voff[f->v] + t];
		if (r->v > r->tol && f->suf[i * f->nt + t] < r->v - r->tol)
			return;
	}
	for (size_t j = i; j < f->n; j++) {
		size_t e = f->cand[j];
		/* one set per multiset of classes */
		if (j > i && f->lc[j] == f->lc[j - 1])
			continue;
		if (!can_take(pl, f->v, e))
			continue;
		take(pl, f->v, e, 1);
		f->cnt[f->lc[j]]++;
		fill(f, j + 1);
		f->cnt[f->lc[j]]--;
		take(pl, f->v, e, -1);
	}
}

/* Worklists of the propagation: contexts and ids to look at again. */
struct queue {
	uint32_t *q;
	uint8_t *in;
	size_t head, n, cap;
};

static void push(struct queue *q, size_t x)
{
	if (q->in[x])
		return;
	q->in[x] = 1;
	/* a ring of cap slots: each x is in it at most once */
	q->q[(q->head + q->n++) % q->cap] = (uint32_t)x;
}

static size_t pop(struct queue *q)
{
	size_t x = q->q[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	q->in[x] = 0;
	return x;
}

struct prop {
	struct place *pl;
	struct queue qe, qv;
	/* V -> its candidate entries (indices into pl->cand) */
	size_t *vcoff;
	size_t *vce;
	size_t *cande; /* candidate entry -> its E */
	uint8_t *cut;  /* candidate entry ruled out */
	/* scratch of one context's look */
	size_t *cand;
	uint32_t *lc, *cnt, *minc, *maxc;
	double *suf;
	size_t capsuf;
};

static void place_e(struct prop *p, size_t e, uint32_t v)
{
	struct place *pl = p->pl;
	pl->at[e] = v;
	take(pl, v, e, 1);
	/* the contexts that had e as a candidate, and the ids that may no
	 * longer fit v */
	for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1]; c++)
		push(&p->qv, pl->cand[c]);
	for (size_t k = p->vcoff[v]; k < p->vcoff[v + 1]; k++)
		if (pl->at[p->cande[p->vce[k]]] == NOWHERE)
			push(&p->qe, p->cande[p->vce[k]]);
}

/* An id with one context left that can hold it goes there. */
static void look_e(struct prop *p, size_t e)
{
	struct place *pl = p->pl;
	if (pl->at[e] != NOWHERE)
		return;
	uint32_t only = NOWHERE;
	size_t n = 0;
	for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1] && n < 2; c++)
		if (!p->cut[c] && can_take(pl, pl->cand[c], e)) {
			only = pl->cand[c];
			n++;
		}
	if (n == 1)
		place_e(p, e, only);
}

/* A context with at most FILL_MAX free ids that fit it: its fillings
 * rule out the classes none of them has, and place the ids of a class
 * every filling has (as many as the fewest). */
static void look_v(struct prop *p, uint32_t v)
{
	struct place *pl = p->pl;
	size_t n = 0;
	for (size_t k = p->vcoff[v]; k < p->vcoff[v + 1]; k++) {
		size_t c = p->vce[k], e = p->cande[c];
		if (p->cut[c] || pl->at[e] != NOWHERE || !can_take(pl, v, e))
			continue;
		if (n == FILL_MAX)
			return;
		p->cand[n++] = e;
	}
	if (!n)
		return;
	qsort_r(p->cand, n, sizeof(size_t), cmp_class, pl);
	size_t nclass = 0;
	for (size_t j = 0; j < n; j++) {
		if (j && pl->eclass[p->cand[j]] != pl->eclass[p->cand[j - 1]])
			nclass++;
		p->lc[j] = (uint32_t)nclass;
	}
	nclass++;
	size_t nt = pl->voff[v + 1] - pl->voff[v];
	if ((n + 1) * nt > p->capsuf) {
		free(p->suf);
		p->capsuf = (n + 1) * nt;
		p->suf = pc_xmalloc(p->capsuf * sizeof(double));
	}
	for (size_t t = 0; t < nt; t++)
		p->suf[n * nt + t] = 0;
	for (size_t j = n; j-- > 0;)
		for (size_t t = 0; t < nt; t++) {
			uint32_t comp = pl->vterm[pl->voff[v] + t].comp;
			double add = 0;
			for (size_t q = pl->eoff[p->cand[j]];
			     q < pl->eoff[p->cand[j] + 1]; q++)
				if (pl->eterm[q].comp == comp && pl->eterm[q].v > 0)
					add = pl->eterm[q].v;
			p->suf[j * nt + t] = p->suf[(j + 1) * nt + t] + add;
		}
	memset(p->cnt, 0, nclass * sizeof(uint32_t));
	struct fills f = { .pl = pl, .v = v, .cand = p->cand, .lc = p->lc,
			   .n = n, .nt = nt, .suf = p->suf, .cnt = p->cnt,
			   .minc = p->minc, .maxc = p->maxc, .nclass = nclass };
	fill(&f, 0);
	pl->work += f.work;
	if (!f.nfill)
		return; /* nothing fills it: no cover; decide nothing here */
	/* classes no filling has: v is not theirs */
	for (size_t k = p->vcoff[v]; k < p->vcoff[v + 1]; k++) {
		size_t c = p->vce[k], e = p->cande[c];
		if (p->cut[c] || pl->at[e] != NOWHERE)
			continue;
		size_t j = 0;
		while (j < n && p->cand[j] != e)
			j++;
		if (j < n && p->maxc[p->lc[j]])
			continue;
		if (j < n) {
			p->cut[c] = 1;
			push(&p->qe, e);
		}
	}
	/* classes every filling has: the first ids of each */
	for (size_t j = 0, taken = 0; j < n; j++) {
		if (j && p->lc[j] != p->lc[j - 1])
			taken = 0;
		if (taken < p->minc[p->lc[j]]) {
			place_e(p, p->cand[j], v);
			taken++;
		}
	}
}

/* Places each id that every exact cover puts in the same context (up
 * to swapping equal vectors), by propagation to a fixed point: an id
 * that only one context can hold goes there (look_e); a context with
 * few free fitting ids rules out the ones no filling of it has and
 * takes those every filling has (look_v). Each look follows a change
 * (a place, a ruled-out candidate) of what it looks at, and a context's
 * look enumerates at most 2^FILL_MAX sets: the time is polynomial (about
 * linear) in the number of candidates. A decision holds in every cover;
 * an id none decides is left to the caller (rests()), with the deepest
 * context holding every context not ruled out for it. */
static void solve(struct place *pl)
{
	candidates(pl);
	struct prop p = { .pl = pl };
	size_t nc = pl->candoff[pl->ne];
	p.cande = pc_xmalloc((nc + 1) * sizeof(size_t));
	p.cut = pc_xcalloc(nc + 1, 1);
	p.vcoff = pc_xcalloc(pl->nv + 2, sizeof(size_t));
	p.vce = pc_xmalloc((nc + 1) * sizeof(size_t));
	for (size_t e = 0; e < pl->ne; e++)
		for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1]; c++) {
			p.cande[c] = e;
			p.vcoff[pl->cand[c] + 1]++;
		}
	for (size_t v = 0; v < pl->nv; v++)
		p.vcoff[v + 1] += p.vcoff[v];
	size_t *fillv = pc_xmalloc((pl->nv + 1) * sizeof(size_t));
	memcpy(fillv, p.vcoff, pl->nv * sizeof(size_t));
	for (size_t c = 0; c < nc; c++)
		p.vce[fillv[pl->cand[c]]++] = c;
	free(fillv);
	p.qe = (struct queue){ pc_xmalloc((pl->ne + 1) * sizeof(uint32_t)),
			       pc_xcalloc(pl->ne + 1, 1), 0, 0, pl->ne + 1 };
	p.qv = (struct queue){ pc_xmalloc((pl->nv + 1) * sizeof(uint32_t)),
			       pc_xcalloc(pl->nv + 1, 1), 0, 0, pl->nv + 1 };
	p.cand = pc_xmalloc((FILL_MAX + 1) * sizeof(size_t));
	p.lc = pc_xmalloc((FILL_MAX + 1) * sizeof(uint32_t));
	p.cnt = pc_xmalloc((FILL_MAX + 1) * sizeof(uint32_t));
	p.minc = pc_xmalloc((FILL_MAX + 1) * sizeof(uint32_t));
	p.maxc = pc_xmalloc((FILL_MAX + 1) * sizeof(uint32_t));
	/* ids with one possible context first, in id order, repeatedly */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t e = 0; e < pl->ne; e++) {
			if (pl->at[e] != NOWHERE)
				continue;
			look_e(&p, e);
			changed |= pl->at[e] != NOWHERE;
		}
	}
	p.qe.n = p.qe.head = 0;
	memset(p.qe.in, 0, pl->ne + 1);
	p.qv.n = p.qv.head = 0;
	memset(p.qv.in, 0, pl->nv + 1);
	for (size_t v = 0; v < pl->nv; v++)
		push(&p.qv, v);
	while (p.qe.n || p.qv.n) {
		if (p.qe.n)
			look_e(&p, pop(&p.qe));
		else
			look_v(&p, (uint32_t)pop(&p.qv));
	}
	/* undecided ids: where they could go */
	for (size_t e = 0; e < pl->ne; e++) {
		if (pl->at[e] != NOWHERE)
			continue;
		int any = 0;
		for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1]; c++)
			any |= !p.cut[c];
		for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1]; c++)
			if (!any || !p.cut[c])
				pl->common[e] = lca(pl->db, pl->common[e],
						    pl->vctx[pl->cand[c]]);
	}
	free(p.cande);
	free(p.cut);
	free(p.vcoff);
	free(p.vce);
	free(p.qe.q);
	free(p.qe.in);
	free(p.qv.q);
	free(p.qv.in);
	free(p.cand);
	free(p.lc);
	free(p.cnt);
	free(p.minc);
	free(p.maxc);
	free(p.suf);
}

struct rterm {
	pc_id ctx;
	uint32_t comp;
	double v, mag;
};

static uint64_t vector_hash(const struct place *pl, size_t e)
{
	uint64_t h = 0;
	for (size_t k = pl->eoff[e]; k < pl->eoff[e + 1]; k++)
		h = pc_hash64(h ^ pc_hash_bytes(&pl->eterm[k].v, sizeof(double)) ^
			      pl->eterm[k].comp);
	return h;
}

static int same_vector(const struct place *pl, size_t a, size_t b)
{
	size_t n = pl->eoff[a + 1] - pl->eoff[a];
	if (n != pl->eoff[b + 1] - pl->eoff[b])
		return 0;
	for (size_t k = 0; k < n; k++) {
		const struct term *x = &pl->eterm[pl->eoff[a] + k],
				  *y = &pl->eterm[pl->eoff[b] + k];
		if (x->comp != y->comp || x->v != y->v)
			return 0;
	}
	return 1;
}

/* Ids with equal vectors are interchangeable: one class each. */
static void classes(struct place *pl)
{
	struct hkey {
		uint64_t h;
		size_t e;
	} *hk = pc_xmalloc((pl->ne + 1) * sizeof(*hk));
	for (size_t e = 0; e < pl->ne; e++)
		hk[e] = (struct hkey){ vector_hash(pl, e), e };
	qsort(hk, pl->ne, sizeof(*hk), cmp_pair); /* by h, then order */
	pl->eclass = pc_xmalloc((pl->ne + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < pl->ne; i++) {
		size_t e = hk[i].e;
		pl->eclass[e] = (uint32_t)e;
		for (size_t j = i; j-- > 0 && hk[j].h == hk[i].h;)
			if (same_vector(pl, hk[j].e, e))
				pl->eclass[e] = pl->eclass[hk[j].e];
	}
	free(hk);
}

static int cmp_rterm(const void *a, const void *b)
{
	const struct rterm *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->comp < y->comp ? -1 : x->comp > y->comp;
}

static uint64_t comp_key(pc_id profile, pc_id metric)
{
	return (uint64_t)profile << 32 | metric;
}

static uint32_t comp_index(const uint64_t *keys, size_t n, uint64_t k)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (keys[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && keys[lo] == k ? (uint32_t)lo : UINT32_MAX;
}

/* What the residuals hold once the decided ids are taken out belongs to
 * the undecided ids: hpcprof's sums say how much of it each visible
 * context has, whichever ids make it up. It accounts for them when every
 * undecided id could go somewhere and, per component, the residuals left
 * add up to the undecided ids' values with none of a sign no undecided
 * value has there; then out->rest gets them. */
static void rests(const struct place *pl, const uint64_t *keys, size_t nk,
		  struct pc_hpc_placed *out)
{
	double *want = pc_xcalloc(nk + 1, sizeof(double));
	double *have = pc_xcalloc(nk + 1, sizeof(double));
	double *tol = pc_xcalloc(nk + 1, sizeof(double));
	uint8_t *sign = pc_xcalloc(nk + 1, 1); /* 1: some > 0, 2: some < 0 */
	int ok = 1;
	size_t n = 0;
	for (size_t e = 0; e < pl->ne; e++) {
		if (pl->at[e] != NOWHERE)
			continue;
		ok &= pl->common[e] != PC_NONE;
		for (size_t k = pl->eoff[e]; k < pl->eoff[e + 1]; k++) {
			const struct term *t = &pl->eterm[k];
			want[t->comp] += t->v;
			tol[t->comp] += REL_TOL * fabs(t->v);
			sign[t->comp] |= t->v > 0 ? 1 : 2;
		}
	}
	for (size_t k = 0; k < pl->voff[pl->nv]; k++) {
		const struct term *t = &pl->vterm[k];
		have[t->comp] += t->v;
		tol[t->comp] += t->tol;
		if (fabs(t->v) <= t->tol)
			continue;
		ok &= (sign[t->comp] & (t->v > 0 ? 1 : 2)) != 0;
		n++;
	}
	for (size_t c = 0; c < nk; c++)
		ok &= fabs(have[c] - want[c]) <= tol[c];
	out->accounted = ok;
	if (ok && n) {
		out->rest = pc_xmalloc(n * sizeof(struct pc_value));
		for (size_t v = 0; v < pl->nv; v++)
			for (size_t k = pl->voff[v]; k < pl->voff[v + 1]; k++) {
				const struct term *t = &pl->vterm[k];
				if (fabs(t->v) <= t->tol)
					continue;
				out->rest[out->nrest++] = (struct pc_value){
					(pc_id)(keys[t->comp] >> 32),
					pl->vctx[v],
					(pc_id)(keys[t->comp] & 0xffffffffu),
					t->v };
			}
	}
	free(want);
	free(have);
	free(tol);
	free(sign);
}

/* A residual's terms, in the order they are made: equal (ctx, comp)
 * are summed in that order (seq breaks ties, so any sort keeps it). */
struct rmake {
	pc_id ctx, metric;
	double v;
	size_t seq;
};

static int cmp_rmake(const void *a, const void *b)
{
	const struct rmake *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pc_hpc_residuals(const struct pc_db *db, pc_id profile,
		      const struct pc_value *v, size_t n,
		      const struct pc_value *sv, size_t sn,
		      const uint8_t *elided, struct pc_hpc_resids *out)
{
	size_t nr = 0, capr = 16;
	struct rmake *rt = pc_xmalloc(capr * sizeof(*rt));
#define RADD(c, m, x)                                                        \
	do {                                                                 \
		PC_GROW(rt, nr, capr);                                       \
		rt[nr] = (struct rmake){ (c), (m), (x), nr };                \
		nr++;                                                        \
	} while (0)
	for (size_t i = 0; i < n; i++)
		if (elided[v[i].metric])
			RADD(v[i].ctx, v[i].metric, -v[i].value);
	for (size_t i = 0; i < sn; i++) {
		pc_id m = sv[i].metric / PC_NSCOPES;
		if (sv[i].metric % PC_NSCOPES != PC_SCOPE_EXECUTION ||
		    !elided[m])
			continue;
		RADD(sv[i].ctx, m, sv[i].value);
		if (sv[i].ctx)
			RADD(db->contexts[sv[i].ctx].parent, m, -sv[i].value);
	}
#undef RADD
	qsort(rt, nr, sizeof(*rt), cmp_rmake);
	for (size_t i = 0; i < nr;) {
		struct pc_hpc_resid t = { rt[i].ctx, profile, rt[i].metric,
					  rt[i].v, fabs(rt[i].v) };
		for (i++; i < nr && rt[i].ctx == t.ctx && rt[i].metric == t.metric;
		     i++) {
			t.v += rt[i].v;
			t.mag += fabs(rt[i].v);
		}
		if (fabs(t.v) > REL_TOL * t.mag) {
			PC_GROW(out->r, out->n, out->cap);
			out->r[out->n++] = t;
		}
	}
	free(rt);
}

size_t pc_hpc_place(const struct pc_db *db, const struct pc_value *el,
		    size_t nel, const struct pc_hpc_resids *rs,
		    struct pc_hpc_placed *out)
{
	struct place pl = { 0 };
	/* components: the (profile, metric) pairs of elided values */
	uint64_t *keys = pc_xmalloc((nel + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < nel; i++)
		keys[i] = comp_key(el[i].profile, el[i].metric);
	qsort(keys, nel, sizeof(uint64_t), cmp_pair);
	size_t nk = 0;
	for (size_t i = 0; i < nel; i++)
		if (!nk || keys[i] != keys[nk - 1])
			keys[nk++] = keys[i];

	/* E: one per distinct id (el is sorted by ctx, then profile,
	 * metric) */
	pl.eoff = pc_xmalloc((nel + 2) * sizeof(size_t));
	pl.eterm = pc_xmalloc((nel + 1) * sizeof(struct term));
	for (size_t i = 0; i < nel; i++) {
		if (!i || el[i].ctx != el[i - 1].ctx) {
			pl.eoff[pl.ne++] = i;
		}
		pl.eterm[i] = (struct term){
			comp_index(keys, nk, comp_key(el[i].profile,
						      el[i].metric)),
			el[i].value, 0 };
	}
	pl.eoff[pl.ne] = nel;

	/* V: the visible contexts' residuals, by context and component */
	size_t nrt = 0;
	struct rterm *rt = pc_xmalloc((rs->n + 1) * sizeof(*rt));
	for (size_t i = 0; i < rs->n; i++) {
		const struct pc_hpc_resid *x = &rs->r[i];
		uint32_t k = comp_index(keys, nk,
					comp_key(x->profile, x->metric));
		if (k != UINT32_MAX)
			rt[nrt++] = (struct rterm){ x->ctx, k, x->v, x->mag };
	}
	qsort(rt, nrt, sizeof(*rt), cmp_rterm);
	pl.vctx = pc_xmalloc((nrt + 1) * sizeof(pc_id));
	pl.voff = pc_xmalloc((nrt + 2) * sizeof(size_t));
	pl.vterm = pc_xmalloc((nrt + 1) * sizeof(struct term));
	for (size_t i = 0; i < nrt; i++) {
		if (!i || rt[i].ctx != rt[i - 1].ctx) {
			pl.vctx[pl.nv] = rt[i].ctx;
			pl.voff[pl.nv++] = i;
		}
		pl.vterm[i] = (struct term){ rt[i].comp, rt[i].v,
					     REL_TOL * rt[i].mag };
	}
	pl.voff[pl.nv] = nrt;
	double *vinit = pc_xmalloc((nrt + 1) * sizeof(double));
	for (size_t i = 0; i < nrt; i++)
		vinit[i] = pl.vterm[i].v;
	/* comp -> V index */
	pl.coff = pc_xcalloc(nk + 2, sizeof(size_t));
	for (size_t i = 0; i < nrt; i++)
		pl.coff[rt[i].comp + 1]++;
	for (size_t c = 0; c < nk; c++)
		pl.coff[c + 1] += pl.coff[c];
	pl.cv = pc_xmalloc((nrt + 1) * sizeof(uint32_t));
	size_t *fill = pc_xmalloc((nk + 1) * sizeof(size_t));
	memcpy(fill, pl.coff, nk * sizeof(size_t));
	for (size_t v = 0; v < pl.nv; v++)
		for (size_t k = pl.voff[v]; k < pl.voff[v + 1]; k++)
			pl.cv[fill[pl.vterm[k].comp]++] = (uint32_t)v;
	free(fill);
	free(rt);

	classes(&pl);

	pl.at = pc_xmalloc((pl.ne + 1) * sizeof(uint32_t));
	for (size_t e = 0; e < pl.ne; e++)
		pl.at[e] = NOWHERE;
	pl.db = db;
	pl.common = pc_xmalloc((pl.ne + 1) * sizeof(pc_id));
	for (size_t e = 0; e < pl.ne; e++)
		pl.common[e] = PC_NONE;
	if (pl.nv)
		solve(&pl);
	out->work = pl.work;
	out->undecided = pl.ne;
	for (size_t e = 0; e < pl.ne; e++) {
		out->exact[e] = pl.at[e] != NOWHERE;
		out->where[e] = out->exact[e] ? pl.vctx[pl.at[e]] : pl.common[e];
		out->undecided -= out->exact[e];
	}
	out->rest = NULL;
	out->nrest = 0;
	/* the residuals again, from their first values less the decided
	 * ids, each once: the fillings took and gave back ids in place, and
	 * in floating point a take and its undoing need not cancel (drifts
	 * of 1e-14 became the rests' values, 1,803 ULPs off hpcprof's) */
	for (size_t k = 0; k < nrt; k++)
		pl.vterm[k].v = vinit[k];
	for (size_t e = 0; e < pl.ne; e++)
		if (pl.at[e] != NOWHERE)
			take(&pl, pl.at[e], e, 1);
	free(vinit);
	rests(&pl, keys, nk, out);
	free(pl.common);
	size_t ne = pl.ne;
	free(keys);
	free(pl.eoff);
	free(pl.eterm);
	free(pl.eclass);
	free(pl.vctx);
	free(pl.voff);
	free(pl.vterm);
	free(pl.coff);
	free(pl.cv);
	free(pl.candoff);
	free(pl.cand);
	free(pl.at);
	return ne;
}
