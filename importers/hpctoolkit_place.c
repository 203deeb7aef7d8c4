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
 * context can hold it); the rest by a bounded search, which also proves
 * that the answer is unique: an id is placed only if no other complete
 * cover puts it (or an id with the same vector) elsewhere. Ids whose
 * place is provably ambiguous, or not decided within the search budget,
 * are left to the caller (a visible placeholder with a warning). See
 * doc/design.md for a worked example. */
#include "hpctoolkit_place.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance of a residual: hpcprof's sums and ours add the same
 * doubles in other orders. */
#define REL_TOL 1e-9
/* Search nodes per connected group of undecided ids. */
#define SEARCH_BUDGET 200000

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
	uint8_t *comp_used; /* by some E */
	/* comp -> the V that have a residual there */
	size_t *coff;
	uint32_t *cv;
	size_t ncomp;
	/* candidates of each E */
	size_t *candoff;
	uint32_t *cand;
	/* solution */
	uint32_t *at; /* V index of each E, or UINT32_MAX */
	long budget;
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

/* Is every residual of V that some E could fill used up? */
static int v_done(const struct place *pl, uint32_t v)
{
	for (size_t k = pl->voff[v]; k < pl->voff[v + 1]; k++) {
		const struct term *t = &pl->vterm[k];
		if (pl->comp_used[t->comp] && fabs(t->v) > t->tol)
			return 0;
	}
	return 1;
}

struct search {
	struct place *pl;
	const size_t *es; /* the group's E, in search order */
	size_t nes;
	const uint32_t *vs; /* the group's V */
	size_t nvs;
	uint32_t *cur;      /* V of es[i] */
	size_t forbid_e;    /* es index that must not go to forbid_v */
	uint32_t forbid_v;
};

/* Depth-first search for one complete cover. 1 found (in s->cur),
 * 0 none exists, -1 budget exhausted. */
static int dfs(struct search *s, size_t i)
{
	struct place *pl = s->pl;
	if (--pl->budget < 0)
		return -1;
	if (i == s->nes) {
		for (size_t k = 0; k < s->nvs; k++)
			if (!v_done(pl, s->vs[k]))
				return 0;
		return 1;
	}
	size_t e = s->es[i];
	int exhausted = 0;
	for (size_t c = pl->candoff[e]; c < pl->candoff[e + 1]; c++) {
		uint32_t v = pl->cand[c];
		if ((i == s->forbid_e && v == s->forbid_v) || !can_take(pl, v, e))
			continue;
		take(pl, v, e, 1);
		s->cur[i] = v;
		int r = dfs(s, i + 1);
		take(pl, v, e, -1);
		if (r == 1)
			return 1;
		if (r < 0)
			exhausted = 1;
		if (r < 0)
			break;
	}
	return exhausted ? -1 : 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/* Do two covers put the same multiset of vectors in every context? */
static int same_cover(const struct search *s, const uint32_t *a,
		      const uint32_t *b)
{
	uint64_t *pa = pc_xmalloc(s->nes * sizeof(uint64_t) + 1);
	uint64_t *pb = pc_xmalloc(s->nes * sizeof(uint64_t) + 1);
	for (size_t i = 0; i < s->nes; i++) {
		pa[i] = (uint64_t)a[i] << 32 | s->pl->eclass[s->es[i]];
		pb[i] = (uint64_t)b[i] << 32 | s->pl->eclass[s->es[i]];
	}
	qsort(pa, s->nes, sizeof(uint64_t), cmp_pair);
	qsort(pb, s->nes, sizeof(uint64_t), cmp_pair);
	int same = memcmp(pa, pb, s->nes * sizeof(uint64_t)) == 0;
	free(pa);
	free(pb);
	return same;
}

/* Solves one connected group: places each E whose context is the same
 * in every cover (up to swapping equal vectors). */
static void solve_group(struct place *pl, size_t *es, size_t nes,
			uint32_t *vs, size_t nvs, size_t *undecided)
{
	struct search s = { pl, es, nes, vs, nvs, NULL, SIZE_MAX, NOWHERE };
	uint32_t *first = pc_xmalloc((nes + 1) * sizeof(uint32_t));
	s.cur = pc_xmalloc((nes + 1) * sizeof(uint32_t));
	pl->budget = SEARCH_BUDGET;
	int r = dfs(&s, 0);
	if (r != 1) {
		*undecided += nes;
		goto out;
	}
	memcpy(first, s.cur, nes * sizeof(uint32_t));
	uint8_t *ambiguous = pc_xcalloc(nes + 1, 1);
	for (size_t i = 0; i < nes; i++) {
		s.forbid_e = i;
		s.forbid_v = first[i];
		pl->budget = SEARCH_BUDGET;
		r = dfs(&s, 0);
		if (r < 0 || (r == 1 && !same_cover(&s, first, s.cur)))
			ambiguous[i] = 1;
	}
	for (size_t i = 0; i < nes; i++) {
		if (ambiguous[i]) {
			++*undecided;
			continue;
		}
		pl->at[es[i]] = first[i];
		take(pl, first[i], es[i], 1);
	}
	free(ambiguous);
out:
	free(first);
	free(s.cur);
}

static size_t uf_find(size_t *p, size_t x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

struct order_key {
	size_t ncand;
	double size;
	size_t e;
};

/* Fewest candidates first, then the largest values: fails early. */
static int cmp_order(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;
	if (x->ncand != y->ncand)
		return x->ncand < y->ncand ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
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

static void solve(struct place *pl, size_t *undecided)
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
	struct order_key *ok = pc_xmalloc((pl->ne + 1) * sizeof(*ok));
	for (size_t i = 0; i < nm;) {
		size_t j = i, nes = 0, nvs = 0;
		for (; j < nm && mem[j] >> 32 == mem[i] >> 32; j++) {
			size_t x = (size_t)(mem[j] & 0xffffffffu);
			if (x < pl->ne) {
				size_t n = pl->candoff[x + 1] - pl->candoff[x];
				double sz = fabs(pl->eterm[pl->eoff[x]].v);
				ok[nes++] = (struct order_key){ n, sz, x };
			} else {
				vs[nvs++] = (uint32_t)(x - pl->ne);
			}
		}
		i = j;
		if (!nes)
			continue;
		if (!nvs) {
			*undecided += nes;
			continue;
		}
		qsort(ok, nes, sizeof(*ok), cmp_order);
		for (size_t k = 0; k < nes; k++)
			es[k] = ok[k].e;
		solve_group(pl, es, nes, vs, nvs, undecided);
	}
	free(ok);
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

static int cmp_u64(const void *a, const void *b)
{
	return cmp_pair(a, b);
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

size_t pc_hpc_place(struct pc_db *db, pc_id first_profile,
		    const struct pc_value *el, size_t nel, pc_id *where,
		    size_t *undecided)
{
	*undecided = 0;
	struct place pl = { 0 };
	/* components: the (profile, metric) pairs of elided values */
	uint64_t *keys = pc_xmalloc((nel + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < nel; i++)
		keys[i] = comp_key(el[i].profile, el[i].metric);
	qsort(keys, nel, sizeof(uint64_t), cmp_u64);
	size_t nk = 0;
	for (size_t i = 0; i < nel; i++)
		if (!nk || keys[i] != keys[nk - 1])
			keys[nk++] = keys[i];
	pl.ncomp = nk;
	pl.comp_used = pc_xcalloc(nk + 1, 1);
	memset(pl.comp_used, 1, nk);

	/* E: one per distinct id (el is sorted by ctx, then profile,
	 * metric) */
	pl.eoff = pc_xmalloc((nel + 2) * sizeof(size_t));
	pl.eterm = pc_xmalloc((nel + 1) * sizeof(struct term));
	uint32_t *eid = pc_xmalloc((nel + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < nel; i++) {
		if (!i || el[i].ctx != el[i - 1].ctx) {
			eid[pl.ne] = el[i].ctx;
			pl.eoff[pl.ne++] = i;
		}
		pl.eterm[i] = (struct term){
			comp_index(keys, nk, comp_key(el[i].profile,
						      el[i].metric)),
			el[i].value, 0 };
	}
	pl.eoff[pl.ne] = nel;

	/* V: residuals of the visible contexts, from this input's point
	 * values and stored execution values */
	pc_values_finish(db);
	size_t nr = 0, capr = 16;
	struct rterm *rt = pc_xmalloc(capr * sizeof(*rt));
#define RADD(c, k, x)                                                        \
	do {                                                                 \
		PC_GROW(rt, nr, capr);                                       \
		rt[nr++] = (struct rterm){ (c), (k), (x), fabs(x) };         \
	} while (0)
	for (size_t i = 0; i < db->nvalues; i++) {
		const struct pc_value *v = &db->values[i];
		if (v->profile < first_profile)
			continue;
		uint32_t k = comp_index(keys, nk,
					comp_key(v->profile, v->metric));
		if (k != UINT32_MAX)
			RADD(v->ctx, k, -v->value);
	}
	for (size_t i = 0; i < db->nscoped; i++) {
		const struct pc_value *v = &db->scoped[i];
		if (v->profile < first_profile ||
		    v->metric % PC_NSCOPES != PC_SCOPE_EXECUTION)
			continue;
		uint32_t k = comp_index(keys, nk,
					comp_key(v->profile,
						 v->metric / PC_NSCOPES));
		if (k == UINT32_MAX)
			continue;
		RADD(v->ctx, k, v->value);
		if (v->ctx)
			RADD(db->contexts[v->ctx].parent, k, -v->value);
	}
#undef RADD
	qsort(rt, nr, sizeof(*rt), cmp_rterm);
	size_t nrt = 0;
	for (size_t i = 0; i < nr;) {
		struct rterm t = rt[i++];
		while (i < nr && rt[i].ctx == t.ctx && rt[i].comp == t.comp) {
			t.v += rt[i].v;
			t.mag += rt[i++].mag;
		}
		if (fabs(t.v) > REL_TOL * t.mag)
			rt[nrt++] = t;
	}
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
	if (pl.nv)
		solve(&pl, undecided);
	else
		*undecided = pl.ne;
	for (size_t e = 0; e < pl.ne; e++)
		where[e] = pl.at[e] == NOWHERE ? PC_NONE : pl.vctx[pl.at[e]];
	size_t ne = pl.ne;
	free(eid);
	free(keys);
	free(pl.comp_used);
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
