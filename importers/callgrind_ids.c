/* The Callgrind reader's tables: the name id tables (ob, fl, fn), an
 * id's entry by its index where the ids are dense, in a map past them;
 * and the call graph's functions and edges as the parser (callgrind.c,
 * which reads the lines that define and use them) builds them, for the
 * expansion (callgrind_graph.c, callgrind_tree.c). */
#include "callgrind_parse.h"

#include <stdlib.h>
#include <string.h>

static int idname_eq(const void *ctx, pc_id id, const void *key)
{
	const struct idtab *t = ctx;
	return t->e[id].id == *(const uint64_t *)key;
}

pc_id cg_idtab_find(const struct idtab *t, uint64_t id)
{
	if (!t->map)
		return PC_NONE;
	return pc_keymap_find(t->map, pc_hash64(id), idname_eq, t, &id);
}

/* dir grown to cover id if the ids are dense enough (it stays within
 * some 16 times the entries: a few large ids go to the map), at least
 * doubled (the entries of the ids it covers now moved into it: a scan
 * of the entries each time; grown to each new id's, in a file of ids
 * spread out and in no order, the scans were a fifth of the parse). */
static void idtab_dir(struct idtab *t, uint64_t id)
{
	size_t lim = 16 * (t->n + 1) + 65536;
	size_t n = t->ndir * 2 > id + 1 ? t->ndir * 2 : (size_t)id + 1;
	if (id >= lim || n > lim)
		return;
	t->dir = pc_xrealloc(t->dir, n, sizeof(*t->dir));
	for (size_t i = t->ndir; i < n; i++)
		t->dir[i] = PC_NONE;
	if (t->map) /* (the entries past the old dir: the map's) */
		for (size_t i = 0; i < t->n; i++)
			if (t->e[i].id >= t->ndir && t->e[i].id < n)
				t->dir[t->e[i].id] = (pc_id)i;
	t->ndir = n;
}

pc_id cg_idtab_set(struct idtab *t, uint64_t id, const char *name)
{
	pc_id i = cg_idtab_get(t, id);
	if (i != PC_NONE) {
		t->e[i] = (struct idname){ id, name, PC_NONE, 0, 0 };
		return i;
	}
	PC_GROW(t->e, t->n, t->cap);
	t->e[t->n] = (struct idname){ id, name, PC_NONE, 0, 0 };
	if (id >= t->ndir)
		idtab_dir(t, id);
	if (id < t->ndir) {
		t->dir[id] = (pc_id)t->n;
	} else {
		if (!t->map)
			t->map = pc_keymap_new();
		pc_keymap_insert(t->map, pc_hash64(id), (pc_id)t->n);
	}
	return (pc_id)t->n++;
}

void cg_idtab_free(struct idtab *t)
{
	pc_keymap_free(t->map);
	free(t->e);
	free(t->dir);
}

/* ---- the call graph as the parser builds it ---- */

uint32_t pc_cg_graph_fn(struct cg_graph *g, pc_id func)
{
	/* (model function ids are dense: an array, not a hash table) */
	if (func < g->nfnix && g->fnix[func])
		return g->fnix[func] - 1;
	if (func >= g->nfnix) {
		size_t n = g->nfnix ? g->nfnix : 256;
		while (n <= func)
			n *= 2;
		g->fnix = pc_xrealloc(g->fnix, n, sizeof(*g->fnix));
		memset(g->fnix + g->nfnix, 0, (n - g->nfnix) * sizeof(*g->fnix));
		g->nfnix = n;
	}
	PC_GROW(g->fns, g->nfns, g->capfns);
	g->fns[g->nfns].func = func;
	g->fnix[func] = (uint32_t)g->nfns + 1;
	return (uint32_t)g->nfns++;
}

/* An edge's call site hashed (its fields mixed by multiplies, then
 * one finalizer: three finalizers before). */
static inline uint64_t edge_hash(const struct cg_edge *e)
{
	uint64_t x = (((uint64_t)e->from << 32) | e->to) *
		     0x9e3779b97f4a7c15ULL;
	x ^= (((uint64_t)e->file << 32) | e->line) * 0xc2b2ae3d27d4eb4fULL;
	x ^= (e->addr ^ ((uint64_t)e->module << 40)) * 0x165667b19e3779f9ULL;
	return pc_hash64(x);
}

static inline int edge_eq(const struct cg_edge *a, const struct cg_edge *b)
{
	return a->from == b->from && a->to == b->to && a->line == b->line &&
	       a->file == b->file && a->module == b->module &&
	       a->addr == b->addr;
}

/* The slot table grown to twice (at half full), the edges put back. */
static void edge_slots_grow(struct cg_graph *g)
{
	size_t cap = g->ecap ? g->ecap * 2 : 1024, mask = cap - 1;
	uint64_t *ns = pc_xcalloc(cap, sizeof(*ns));
	for (size_t i = 0; i < g->ecap; i++) {
		uint64_t v = g->eslot[i];
		if (!v)
			continue;
		size_t j = (size_t)(edge_hash(&g->edges[(uint32_t)v - 1]) >> 32) &
			   mask;
		while (ns[j])
			j = (j + 1) & mask;
		ns[j] = v;
	}
	free(g->eslot);
	g->eslot = ns;
	g->ecap = cap;
}

struct cg_edge *pc_cg_graph_edge(struct cg_graph *g, const struct cg_edge *e,
				 uint64_t **cost)
{
	if ((g->nedges + 1) * 2 > g->ecap)
		edge_slots_grow(g);
	uint64_t h = edge_hash(e) >> 32, v;
	size_t mask = g->ecap - 1, j = (size_t)h & mask;
	g->ncalls++;
	for (; (v = g->eslot[j]); j = (j + 1) & mask)
		if (v >> 32 == h && edge_eq(&g->edges[(uint32_t)v - 1], e)) {
			size_t i = (uint32_t)v - 1;
			*cost = g->ecost + i * g->nev;
			return &g->edges[i];
		}
	size_t cap = g->capedges;
	PC_GROW(g->edges, g->nedges, g->capedges);
	if (cap != g->capedges)
		g->ecost = pc_xrealloc(g->ecost, g->capedges * g->nev,
				       sizeof(uint64_t));
	size_t i = g->nedges++;
	g->eslot[j] = h << 32 | (uint64_t)(i + 1);
	g->edges[i] = *e;
	g->edges[i].count = 0;
	uint64_t *c = g->ecost + i * g->nev;
	for (size_t m = 0; m < g->nev; m++)
		c[m] = 0;
	*cost = c;
	return &g->edges[i];
}

void pc_cg_graph_reset(struct cg_graph *g)
{
	free(g->fnix);
	free(g->eslot);
	free(g->fns);
	free(g->recs);
	free(g->rcost);
	free(g->scost);
	free(g->sgn);
	free(g->edges);
	free(g->ecost);
	free(g->count2);
	free(g->metric);
	memset(g, 0, sizeof(*g));
}

void pc_cg_graph_init(struct cg_graph *g, size_t nev, const pc_id *metric,
		      int has_line, int has_instr)
{
	pc_cg_graph_reset(g);
	g->nev = nev;
	g->metric = pc_xmalloc(nev * sizeof(pc_id));
	memcpy(g->metric, metric, nev * sizeof(pc_id));
	g->has_line = has_line;
	g->has_instr = has_instr;
}
