/* The anchors' rests as pieces (one per anchor and function a rest's
 * walk reaches) and their splits below the anchors (see
 * callgrind_rest.c's cg_lay_rests and doc/callgrind-tree.md, section
 * 5): the anchors' tree, a group's split and its gain and cost. */
#include "callgrind_split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The anchors' tree of p (depth, tin, tout, ks, kid, out): an anchor's
 * index is larger than those of the anchors above it. */
void cg_anchor_tree(const struct expand *x, struct pieces *p)
{
	size_t na = x->nanchors;
	p->depth = pc_xcalloc(na + 1, sizeof(uint32_t));
	p->tin = pc_xcalloc(na + 1, sizeof(uint32_t));
	p->tout = pc_xcalloc(na + 1, sizeof(uint32_t));
	p->ks = pc_xcalloc(na + 2, sizeof(uint32_t));
	p->kid = pc_xmalloc((na + 1) * sizeof(uint32_t));
	p->out = pc_xcalloc(na + 1, sizeof(uint32_t));
	p->kcnt = pc_xcalloc(na + 2, sizeof(uint32_t));
	for (size_t a = 1; a < na; a++) {
		uint32_t u = x->anchors[a].up, uf = x->anchors[u].fn;
		p->depth[a] = p->depth[u] + 1;
		p->ks[u + 1]++;
		/* (the anchor above a's run of anchors in the SCC of a's
		 * function) */
		p->out[a] = u == 0 || uf == UINT32_MAX ||
					    x->scc_of[uf] !=
						    x->scc_of[x->anchors[a].fn] ?
				    u :
				    p->out[u];
	}
	for (size_t a = 0; a < na; a++)
		p->ks[a + 1] += p->ks[a];
	/* (tout: a cursor first) */
	for (size_t a = 0; a < na; a++)
		p->tout[a] = p->ks[a];
	for (size_t a = 1; a < na; a++)
		p->kid[p->tout[x->anchors[a].up]++] = (uint32_t)a;
	/* subtree sizes (tout), children after their anchor; then the
	 * preorder, children in index order */
	for (size_t a = 0; a < na; a++)
		p->tout[a] = 1;
	for (size_t a = na; a-- > 1;)
		p->tout[x->anchors[a].up] += p->tout[a];
	for (size_t a = 0; a < na; a++) {
		uint32_t next = p->tin[a] + 1;
		for (uint32_t k = p->ks[a]; k < p->ks[a + 1]; k++) {
			uint32_t c = p->kid[k];
			p->tin[c] = next;
			next += p->tout[c];
		}
		p->tout[a] += p->tin[a];
	}
}

/* The lowest anchor above both a and b (a walks up until its subtree
 * holds b: a running one's walks over a set are its depth at most). */
uint32_t cg_anchor_lca(const struct expand *x, const struct pieces *p,
			   uint32_t a, uint32_t b)
{
	while (!(p->tin[a] <= p->tin[b] && p->tin[b] < p->tout[a]))
		a = x->anchors[a].up;
	return a;
}

/* The nearest anchor at or above a where function f's rest may go: not
 * in f's recursive group (f's rest there would read as recursion it
 * does not hold, a call edge inside the group), else the entry point. */
uint32_t cg_place_of(const struct expand *x, const struct pieces *p,
			 uint32_t a, uint32_t f)
{
	uint32_t af = x->anchors[a].fn, s = x->scc_of[f];
	if (a == 0 || af == UINT32_MAX || x->sccs[s].n <= 1 ||
	    x->scc_of[af] != s)
		return a;
	return p->out[a];
}

/* The child of anchor `pivot` whose subtree holds anchor a (below it). */
static uint32_t child_above(const struct pieces *p, uint32_t pivot,
			    uint32_t a)
{
	uint32_t lo = p->ks[pivot], hi = p->ks[pivot + 1];
	while (hi - lo > 1) { /* the last child starting at or before a */
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->tin[p->kid[mid]] <= p->tin[a])
			lo = mid;
		else
			hi = mid;
	}
	return p->kid[lo];
}

/* Room for `more` pieces more (exactly: large blocks grow in place, so
 * no slack is kept; the pieces are the rests' peak). */
void cg_piece_reserve(struct pieces *p, size_t nev, size_t more)
{
	if (p->n + more <= p->cap)
		return;
	if (p->n + more >= UINT32_MAX - 1)
		pc_die("the rests of the call tree: more than 2^32 pieces");
	p->cap = p->n + more;
	p->f = pc_xrealloc(p->f, p->cap, sizeof(uint32_t));
	p->e = pc_xrealloc(p->e, p->cap, sizeof(uint32_t));
	p->path = pc_xrealloc(p->path, p->cap, sizeof(uint32_t));
	p->src = pc_xrealloc(p->src, p->cap, sizeof(uint32_t));
	p->w = pc_xrealloc(p->w, p->cap * nev, sizeof(double));
	p->c = pc_xrealloc(p->c, p->cap, sizeof(cg_calls));
}

void cg_piece_add(struct pieces *p, size_t nev, uint32_t f, uint32_t src,
		      const double *w, cg_calls calls, uint32_t e,
		      uint32_t path)
{
	cg_piece_reserve(p, nev, 1);
	p->f[p->n] = f;
	p->e[p->n] = e;
	p->path[p->n] = path;
	p->src[p->n] = src;
	memcpy(p->w + p->n * nev, w, nev * sizeof(double));
	p->c[p->n++] = calls;
}

/* The weights (in p->sw) and calls of pieces idx[lo, hi), and the
 * contexts laying them out takes. */
size_t cg_range_size(const struct expand *x, struct pieces *p, uint32_t f,
			 size_t lo, size_t hi, cg_calls *calls)
{
	size_t nev = x->nev;
	cg_calls c = { { 0, 0 } };
	memset(p->sw, 0, nev * sizeof(double));
	for (size_t k = lo; k < hi; k++) {
		size_t i = p->idx[k];
		for (size_t m = 0; m < nev; m++)
			p->sw[m] += p->w[i * nev + m];
		c = cg_calls_sum(c, p->c[i]);
	}
	if (calls)
		*calls = c;
	return settled_size(x, f, p->sw, c);
}

static int cmp_pkey(const void *a, const void *b)
{
	const struct pkey *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* p->keys[0, n) ordered by (key, i), as qsort would: a stable counting
 * sort by key over the distinct keys (kcnt: per key, zero before and
 * after), then each key's run by i where it is not in order already
 * (a group's pieces come in the order of their index, or of a sort by
 * these same keys). */
static void sort_keys(struct pieces *p, size_t n)
{
	size_t nk = 0;
	for (size_t k = 0; k < n; k++)
		if (!p->kcnt[p->keys[k].key]++)
			p->klist[nk++] = p->keys[k].key;
	/* (distinct keys, some 20 a call on the generated 70 MB file: by
	 * insertion there, qsort alone cost 218 M instructions in 238,000
	 * sorts) */
	cg_sort_u32(p->klist, nk);
	uint32_t at = 0;
	for (size_t j = 0; j < nk; j++) {
		uint32_t c = p->kcnt[p->klist[j]];
		p->kcnt[p->klist[j]] = at;
		at += c;
	}
	for (size_t k = 0; k < n; k++)
		p->ktmp[p->kcnt[p->keys[k].key]++] = p->keys[k];
	for (size_t j = 0; j < nk; j++)
		p->kcnt[p->klist[j]] = 0;
	memcpy(p->keys, p->ktmp, n * sizeof(*p->keys));
	for (size_t k = 1; k < n; k++)
		if (p->keys[k].key == p->keys[k - 1].key &&
		    p->keys[k].i < p->keys[k - 1].i) {
			size_t lo = k - 1, hi = k;
			while (lo && p->keys[lo - 1].key == p->keys[k].key)
				lo--;
			while (hi < n && p->keys[hi].key == p->keys[k].key)
				hi++;
			qsort(p->keys + lo, hi - lo, sizeof(*p->keys), cmp_pkey);
			k = hi - 1;
		}
}

/* Group gi split below its pivot: the pieces at the pivot stay; those
 * below each anchor under it go to a group of their own, below their
 * lowest common anchor (or the nearest above it outside f's group).
 * Its gain (the share moved down, times the anchors it moves past) and
 * its cost in contexts; with apply, done. Returns 0 when nothing lies
 * below the pivot. */
int cg_split_group(const struct expand *x, struct pieces *p, size_t gi,
		       int apply, double *gain, size_t *cost)
{
	struct pgroup g = p->g[gi];
	size_t nev = x->nev, n = g.hi - g.lo, below = 0;
	const double *self = x->fself + (size_t)g.f * nev;
	for (size_t k = 0; k < n; k++) {
		size_t i = p->idx[g.lo + k];
		uint32_t a = p->src[i];
		if (a != g.pivot) {
			a = child_above(p, g.pivot, a);
			below++;
		}
		p->keys[k] = (struct pkey){ a == g.pivot ? 0 : a + 1,
					    (uint32_t)i };
	}
	if (!below)
		return 0;
	sort_keys(p, n);
	for (size_t k = 0; k < n; k++)
		p->idx[g.lo + k] = p->keys[k].i;
	size_t whole = g.shared ? 0 : cg_range_size(x, p, g.f, g.lo, g.hi, NULL);
	size_t add = 0, k = 0;
	double up = 0;
	while (k < n && p->keys[k].key == 0)
		k++;
	size_t stay = k; /* idx[lo, lo + stay): what stays at `at` */
	/* the runs below the pivot: moved, or where at stays their place
	 * too, kept together after the stay part */
	struct pgroup *sub = p->sub;
	size_t nsub = 0;
	while (k < n) {
		size_t j = k;
		uint32_t lca = p->src[p->keys[k].i];
		while (j < n && p->keys[j].key == p->keys[k].key)
			lca = cg_anchor_lca(x, p, lca, p->src[p->keys[j++].i]);
		uint32_t at = cg_place_of(x, p, lca, g.f);
		PC_GROW(p->sub, nsub, p->capsub);
		sub = p->sub;
		sub[nsub++] = (struct pgroup){ g.f, at, lca, at == g.at,
					       g.lo + k, g.lo + j };
		if (at != g.at) {
			add += cg_range_size(x, p, g.f, g.lo + k, g.lo + j, NULL) +
			       !p->nat[at];
			up += cg_share_of(x, p->sw, self) *
			      (double)(p->depth[at] - p->depth[g.at]);
		}
		k = j;
	}
	/* what stays at `at`: the pieces at the pivot and the runs whose
	 * place is at too (after it, in order) */
	size_t rest = 0;
	if (!g.shared) {
		cg_calls c = { { 0, 0 } };
		double *acc = p->sacc;
		memset(acc, 0, nev * sizeof(double));
		for (size_t s = 0, q = 0; s <= nsub; s++) {
			size_t end = s ? sub[s - 1].hi - g.lo : stay;
			if (s)
				q = sub[s - 1].shared ? sub[s - 1].lo - g.lo : end;
			for (; q < end; q++) {
				size_t i = p->keys[q].i;
				for (size_t m = 0; m < nev; m++)
					acc[m] += p->w[i * nev + m];
				c = cg_calls_sum(c, p->c[i]);
			}
		}
		rest = settled_size(x, g.f, acc, c);
	}
	*gain = up;
	*cost = add + rest > whole ? add + rest - whole : 0;
	if (apply) {
		p->g[gi].hi = g.lo + stay;
		for (size_t s = 0; s < nsub; s++)
			p->g[gi].shared |= sub[s].shared;
		for (size_t s = 0; s < nsub; s++) {
			PC_GROW(p->g, p->ng, p->capg);
			p->g[p->ng++] = sub[s];
			p->nat[sub[s].at]++;
		}
	}
	return 1;
}

/* Group gi's split, pending: its gain per context (the key), its cost,
 * the group (the id). */
void cg_cand_of(const struct expand *x, struct pieces *p, size_t gi,
		    struct cg_cand **h, size_t *n, size_t *cap)
{
	double gain;
	size_t cost;
	if (cg_split_group(x, p, gi, 0, &gain, &cost))
		cg_cand_push(h, n, cap, (struct cg_cand){
			cost ? gain / (double)cost : HUGE_VAL, (uint32_t)gi,
			cost < UINT32_MAX ? (uint32_t)cost : UINT32_MAX });
}
