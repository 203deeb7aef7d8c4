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
 * ids it receives. Most ids are decided by their vector alone (one
 * context can hold it); the rest by a bounded search that enumerates
 * every exact cover: an id is placed only if every cover puts it (or an
 * id with the same vector) in the same context. Ids with several places,
 * or not decided within the search budget, are left to the caller with
 * the deepest context common to every place they could have. See
 * doc/design.md for a worked example. */
#include "hpctoolkit_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance of a residual: hpcprof's sums and ours add the same
 * doubles in other orders. */
#define REL_TOL 1e-9
/* Search nodes per connected group of undecided ids; then, if that ran
 * out, per targeted question and for all of a group's questions. */
#define SEARCH_BUDGET 2000000
#define TARGETED_BUDGET 500000
#define TARGETED_TOTAL 20000000

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
	long budget;
	/* undecided E: the deepest context holding every place it had in
	 * the covers found, or that could hold it */
	const struct pc_db *db;
	pc_id *common;
	size_t ambiguous, unsearched; /* undecided E, by reason */
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

/* The search over one group, context first: take the undone context
 * with the fewest ids that fit it, and try every set of those ids that
 * fills its residual exactly; ids with equal vectors are tried as one
 * (a set of classes), so covers that only swap equal ids are not
 * counted twice. Every complete cover found is compared with the first:
 * an id that goes elsewhere in any of them is ambiguous. */
struct search {
	struct place *pl;
	const size_t *es; /* the group's E */
	size_t nes;
	const uint32_t *vs; /* the group's V */
	size_t nvs;
	uint8_t *vdone;     /* by index into vs */
	uint32_t *at;       /* V of each E (by index into es), or NOWHERE */
	size_t *eidx;       /* place E index -> index into es (or SIZE_MAX) */
	uint32_t *first;    /* the first cover */
	uint8_t *ambiguous; /* by index into es */
	size_t nsol;
	int exhausted;      /* the budget ran out */
	size_t *stack;      /* candidate lists, one per depth */
	size_t nstack, capstack;
	/* a targeted search: is there a cover in which context vs[tk]
	 * holds other than tcount ids of class tclass? vs[tk] is filled
	 * first and any filling with tcount is pruned; the first cover
	 * found answers yes */
	int targeted, found;
	size_t tk;
	uint32_t tclass;
	size_t tcount;
};

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

static void cover_found(struct search *s)
{
	struct place *pl = s->pl;
	for (size_t i = 0; i < s->nes; i++)
		if (s->at[i] == NOWHERE)
			return; /* an id nowhere: not a cover */
	if (s->targeted) {
		/* another place for the class: its ids may be in either */
		for (size_t i = 0; i < s->nes; i++)
			if (pl->eclass[s->es[i]] == s->tclass)
				pl->common[s->es[i]] = lca(
					pl->db, pl->common[s->es[i]],
					pl->vctx[s->at[i]]);
		s->found = 1;
		return;
	}
	for (size_t i = 0; i < s->nes; i++)
		pl->common[s->es[i]] = lca(pl->db, pl->common[s->es[i]],
					   pl->vctx[s->at[i]]);
	if (s->nsol++ == 0) {
		memcpy(s->first, s->at, s->nes * sizeof(uint32_t));
		return;
	}
	for (size_t i = 0; i < s->nes; i++)
		if (s->at[i] != s->first[i])
			s->ambiguous[i] = 1;
}

static void search_v(struct search *s);

/* How many ids of class c the current partial cover puts in V v. */
static size_t class_count(const struct search *s, uint32_t v, uint32_t c)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nes; i++)
		n += s->at[i] == v && s->pl->eclass[s->es[i]] == c;
	return n;
}

/* Tries the sets of cand[i..n) (one context, vs[k]) that fill it. */
/* Tries the sets of cand[i..n) that fill context vs[k]; suf[j * nt + t]
 * is what cand[j..n) add up to in the context's term t (nt terms). */
static void fill(struct search *s, size_t k, const size_t *cand, size_t i,
		 size_t n, const double *suf)
{
	struct place *pl = s->pl;
	uint32_t v = s->vs[k];
	if (s->found)
		return;
	if (s->exhausted || --pl->budget < 0) {
		s->exhausted = 1;
		return;
	}
	if (v_done(pl, v)) {
		if (s->targeted && k == s->tk &&
		    class_count(s, v, s->tclass) == s->tcount)
			return;
		s->vdone[k] = 1;
		search_v(s);
		s->vdone[k] = 0;
		return;
	}
	/* what is left cannot fill it */
	size_t nt = pl->voff[v + 1] - pl->voff[v];
	for (size_t t = 0; t < nt; t++) {
		const struct term *r = &pl->vterm[pl->voff[v] + t];
		if (r->v > r->tol &&
		    suf[i * nt + t] < r->v - r->tol)
			return;
	}
	for (size_t j = i; j < n && !s->exhausted; j++) {
		size_t e = cand[j];
		/* one set per multiset of classes */
		if (j > i && pl->eclass[e] == pl->eclass[cand[j - 1]])
			continue;
		if (!can_take(pl, v, e))
			continue;
		take(pl, v, e, 1);
		s->at[s->eidx[e]] = v;
		fill(s, k, cand, j + 1, n, suf);
		s->at[s->eidx[e]] = NOWHERE;
		take(pl, v, e, -1);
	}
}

static double size_of(const struct place *pl, size_t e)
{
	double m = 0;
	for (size_t k = pl->eoff[e]; k < pl->eoff[e + 1]; k++)
		m = fabs(pl->eterm[k].v) > m ? fabs(pl->eterm[k].v) : m;
	return m;
}

/* Largest first (the sums prune sooner); equal vectors side by side. */
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

static void search_v(struct search *s)
{
	struct place *pl = s->pl;
	/* the undone context with the fewest free ids that fit */
	size_t best = SIZE_MAX, bestn = SIZE_MAX;
	if (s->targeted && !s->vdone[s->tk])
		best = s->tk, bestn = 0;
	for (size_t k = 0; k < s->nvs && bestn; k++) {
		if (s->vdone[k])
			continue;
		size_t n = 0;
		for (size_t i = 0; i < s->nes; i++)
			n += s->at[i] == NOWHERE &&
			     can_take(pl, s->vs[k], s->es[i]);
		if (n < bestn) {
			bestn = n;
			best = k;
		}
	}
	if (best == SIZE_MAX) {
		cover_found(s);
		return;
	}
	size_t base = s->nstack;
	for (size_t i = 0; i < s->nes; i++)
		if (s->at[i] == NOWHERE && can_take(pl, s->vs[best], s->es[i])) {
			PC_GROW(s->stack, s->nstack, s->capstack);
			s->stack[s->nstack++] = s->es[i];
		}
	/* equal classes next to each other, for fill's dedup */
	if (s->nstack > base)
		qsort_r(s->stack + base, s->nstack - base, sizeof(size_t),
			cmp_class, pl);
	/* the list may move when deeper levels grow the stack: copy */
	size_t n = s->nstack - base;
	size_t *cand = pc_xmalloc((n + 1) * sizeof(size_t));
	if (n)
		memcpy(cand, s->stack + base, n * sizeof(size_t));
	s->nstack = base;
	uint32_t v = s->vs[best];
	size_t nt = pl->voff[v + 1] - pl->voff[v];
	double *suf = pc_xcalloc((n + 1) * nt + 1, sizeof(double));
	for (size_t j = n; j-- > 0;)
		for (size_t t = 0; t < nt; t++) {
			uint32_t comp = pl->vterm[pl->voff[v] + t].comp;
			double add = 0;
			for (size_t q = pl->eoff[cand[j]]; q < pl->eoff[cand[j] + 1];
			     q++)
				if (pl->eterm[q].comp == comp && pl->eterm[q].v > 0)
					add = pl->eterm[q].v;
			suf[j * nt + t] = suf[(j + 1) * nt + t] + add;
		}
	fill(s, best, cand, 0, n, suf);
	free(suf);
	free(cand);
}

/* Solves one connected group: places each E that every complete cover
 * puts in the same context (up to swapping equal vectors). */
static void solve_group(struct place *pl, size_t *es, size_t nes,
			uint32_t *vs, size_t nvs)
{
	struct search s = { .pl = pl, .es = es, .nes = nes, .vs = vs,
			    .nvs = nvs };
	s.vdone = pc_xcalloc(nvs + 1, 1);
	s.at = pc_xmalloc((nes + 1) * sizeof(uint32_t));
	s.first = pc_xmalloc((nes + 1) * sizeof(uint32_t));
	s.ambiguous = pc_xcalloc(nes + 1, 1);
	s.eidx = pc_xmalloc((pl->ne + 1) * sizeof(size_t));
	for (size_t i = 0; i < nes; i++) {
		s.at[i] = NOWHERE;
		s.eidx[es[i]] = i;
	}
	pl->budget = SEARCH_BUDGET;
	search_v(&s);
	/* the enumeration ran out of budget, but found a cover: ask of each
	 * class, for each context the first cover gives it, whether another
	 * cover gives that context another number of its ids. Yes: the
	 * class's place is undecidable (proved by the cover found). No,
	 * with the search complete, for every such context: the first
	 * cover's place is the only one. */
	uint8_t *decided = pc_xcalloc(nes + 1, 1);
	if (s.exhausted && s.nsol) {
		long spent = 0;
		for (size_t i = 0; i < nes; i++) {
			uint32_t c = pl->eclass[es[i]];
			int seen = 0; /* asked already (the verdict is copied) */
			for (size_t j = 0; j < i && !seen; j++)
				seen = pl->eclass[es[j]] == c;
			if (seen)
				continue;
			int amb = 0, open = 0;
			for (size_t j = i; j < nes; j++)
				amb |= pl->eclass[es[j]] == c && s.ambiguous[j];
			for (size_t k = 0; k < nvs && !amb && !open; k++) {
				size_t cnt = 0;
				for (size_t j = 0; j < nes; j++)
					cnt += s.first[j] == vs[k] &&
					       pl->eclass[es[j]] == c;
				if (!cnt)
					continue;
				if (spent > TARGETED_TOTAL) {
					open = 1;
					break;
				}
				s.targeted = 1;
				s.found = 0;
				s.exhausted = 0;
				s.tk = k;
				s.tclass = c;
				s.tcount = cnt;
				pl->budget = TARGETED_BUDGET;
				search_v(&s);
				spent += TARGETED_BUDGET - pl->budget;
				if (s.found)
					amb = 1;
				else if (s.exhausted)
					open = 1;
			}
			decided[i] = !amb && !open;
			if (amb)
				s.ambiguous[i] = 1;
		}
		s.targeted = 0;
	}
	for (size_t i = 0; i < nes; i++) {
		/* ids of one class share the verdict */
		for (size_t j = 0; j < i; j++)
			if (pl->eclass[es[j]] == pl->eclass[es[i]]) {
				decided[i] = decided[j];
				s.ambiguous[i] |= s.ambiguous[j];
				break;
			}
		int exact = !s.exhausted || decided[i];
		if (!s.nsol || !exact || s.ambiguous[i]) {
			if (s.ambiguous[i])
				pl->ambiguous++;
			else
				pl->unsearched++;
			/* no cover seen: where it could go */
			if (!s.nsol)
				for (size_t c = pl->candoff[es[i]];
				     c < pl->candoff[es[i] + 1]; c++)
					pl->common[es[i]] = lca(
						pl->db, pl->common[es[i]],
						pl->vctx[pl->cand[c]]);
			continue;
		}
		pl->at[es[i]] = s.first[i];
		take(pl, s.first[i], es[i], 1);
	}
	free(decided);
	free(s.vdone);
	free(s.at);
	free(s.first);
	free(s.ambiguous);
	free(s.eidx);
	free(s.stack);
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

static size_t uf_find(size_t *p, size_t x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
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

static void solve(struct place *pl)
{
	candidates(pl);
	/* ids with one possible context, repeatedly */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t e = 0; e < pl->ne; e++) {
			if (pl->at[e] != NOWHERE)
				continue;
			uint32_t only = NOWHERE;
			size_t n = 0;
			for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1];
			     c++)
				if (can_take(pl, pl->cand[c], e)) {
					only = pl->cand[c];
					n++;
				}
			if (n == 1) {
				pl->at[e] = only;
				take(pl, only, e, 1);
				changed = 1;
			}
		}
	}
	/* the rest, by connected groups of ids and candidate contexts */
	size_t *uf = pc_xmalloc((pl->ne + pl->nv + 1) * sizeof(size_t));
	for (size_t i = 0; i < pl->ne + pl->nv; i++)
		uf[i] = i;
	for (size_t e = 0; e < pl->ne; e++) {
		if (pl->at[e] != NOWHERE)
			continue;
		for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1]; c++) {
			size_t a = uf_find(uf, e),
			       b = uf_find(uf, pl->ne + pl->cand[c]);
			if (a != b)
				uf[a] = b;
		}
	}
	/* members of each group, by root: E as (root, e), V as (root,
	 * ne + v) */
	size_t nm = 0;
	uint64_t *mem = pc_xmalloc((pl->ne + pl->nv + 1) * sizeof(uint64_t));
	for (size_t e = 0; e < pl->ne; e++)
		if (pl->at[e] == NOWHERE)
			mem[nm++] = (uint64_t)uf_find(uf, e) << 32 | e;
	for (size_t v = 0; v < pl->nv; v++)
		mem[nm++] = (uint64_t)uf_find(uf, pl->ne + v) << 32 |
			    (pl->ne + v);
	qsort(mem, nm, sizeof(uint64_t), cmp_pair);
	size_t *es = pc_xmalloc((pl->ne + 1) * sizeof(size_t));
	uint32_t *vs = pc_xmalloc((pl->nv + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < nm;) {
		size_t j = i, nes = 0, nvs = 0;
		for (; j < nm && mem[j] >> 32 == mem[i] >> 32; j++) {
			size_t x = (size_t)(mem[j] & 0xffffffffu);
			if (x < pl->ne) {
				es[nes++] = x;
			} else {
				vs[nvs++] = (uint32_t)(x - pl->ne);
			}
		}
		i = j;
		if (!nes)
			continue;
		if (!nvs) {
			pl->unsearched += nes;
			continue;
		}
		solve_group(pl, es, nes, vs, nvs);
	}
	free(mem);
	free(es);
	free(vs);
	free(uf);
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
	else
		pl.unsearched = pl.ne;
	/* ids with no candidate at all were never counted */
	out->ambiguous = pl.ambiguous;
	out->unsearched = pl.ne - pl.ambiguous;
	for (size_t e = 0; e < pl.ne; e++) {
		out->exact[e] = pl.at[e] != NOWHERE;
		out->where[e] = out->exact[e] ? pl.vctx[pl.at[e]] : pl.common[e];
		out->unsearched -= out->exact[e];
	}
	out->rest = NULL;
	out->nrest = 0;
	/* the residuals again, from their first values less the decided
	 * ids, each once: the search took and gave back ids in place, and
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
