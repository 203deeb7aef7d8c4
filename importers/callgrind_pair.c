/* Two Callgrind runs on one calling-context tree (profconv diff; see
 * doc/callgrind-tree.md, "Two runs on one tree"). Each run's tree is an
 * estimate from its call graph; built apart, two runs with the same
 * cost per function and per call edge get trees that differ (layout
 * order, cuts, the recursive groups' DAGs, which weigh all metrics in
 * one scalar column), and the comparison shows those differences as
 * change. So both files are parsed into one model, a part of BASE and
 * the part of NEW with the same (process, thread) number become one
 * graph whose events are BASE's then NEW's (functions one by name,
 * module and file, as the parser finds them), and that graph is laid
 * out once: each metric's values are computed per metric over the one
 * tree, so equal columns give equal values, and calls= counts are
 * carried per run (cg_calls). NEW's metrics are named with
 * PC_PAIR_SUFFIX; src/diff.c parts the model into the two runs. */
#include "callgrind.h"

#include <stdlib.h>
#include <string.h>

struct held {
	struct cg_part *p;
	size_t n, cap;
};

static void keep(void *ctx, struct cg_part *part)
{
	struct held *h = ctx;
	PC_GROW(h->p, h->n, h->cap);
	h->p[h->n++] = *part;
	memset(&part->g, 0, sizeof part->g);
}

/* A part's number in its file: its process's (in the order processes
 * first come) and its own among that process's parts, as the reader of
 * one file numbers them (logical RANK, THREAD). */
static void part_keys(const struct held *h, uint64_t *rank, uint64_t *thr)
{
	for (size_t i = 0; i < h->n; i++) {
		uint64_t r = 0, t = 0;
		size_t first = i;
		for (size_t j = 0; j < i; j++)
			if (h->p[j].pid == h->p[i].pid) {
				first = first == i ? j : first;
				t++;
			}
		if (first != i) {
			r = rank[first];
		} else {
			for (size_t j = 0; j < i; j++)
				r = rank[j] + 1 > r ? rank[j] + 1 : r;
		}
		rank[i] = r;
		thr[i] = t;
	}
}

/* Side `off` of the pair (src, its events at columns [off, off +
 * src->nev) of g): its functions, records and edges added to g; the
 * edges' counts to *count (NULL: the edges' own). */
static void add_side(struct cg_graph *g, const struct cg_graph *src,
		     size_t off, uint64_t **count, size_t *ncount)
{
	size_t nev = g->nev, sn = src->nev;
	uint32_t *fm = pc_xmalloc((src->nfns + 1) * sizeof(uint32_t));
	for (size_t f = 0; f < src->nfns; f++)
		fm[f] = pc_cg_graph_fn(g, src->fns[f].func);
	size_t r0 = g->nrecs;
	for (size_t r = 0; r < src->nrecs; r++) {
		struct cg_rec k = src->recs[r];
		k.fn = fm[k.fn];
		uint64_t *c = pc_cg_graph_rec(g, &k);
		memset(c, 0, nev * sizeof(uint64_t));
		memcpy(c + off, src->rcost + r * sn, sn * sizeof(uint64_t));
	}
	if (src->sgn && !g->sgn) { /* (zero for the records before) */
		g->sgn = pc_xcalloc(nev, 1);
		g->scost = pc_xcalloc(g->nrecs * nev + 1, sizeof(int64_t));
	} else if (g->sgn) {
		g->scost = pc_xrealloc(g->scost, g->nrecs * nev + 1,
				       sizeof(int64_t));
		memset(g->scost + r0 * nev, 0,
		       (g->nrecs - r0) * nev * sizeof(int64_t));
	}
	if (src->sgn) {
		memcpy(g->sgn + off, src->sgn, sn);
		for (size_t r = 0; r < src->nrecs; r++)
			memcpy(g->scost + (r0 + r) * nev + off,
			       src->scost + r * sn, sn * sizeof(int64_t));
	}
	size_t ncalls = g->ncalls;
	for (size_t e = 0; e < src->nedges; e++) {
		struct cg_edge k = src->edges[e];
		k.from = fm[k.from];
		k.to = fm[k.to];
		uint64_t *c;
		struct cg_edge *d = pc_cg_graph_edge(g, &k, &c);
		for (size_t m = 0; m < sn; m++)
			c[off + m] += src->ecost[e * sn + m];
		if (!count) {
			d->count += src->edges[e].count;
			continue;
		}
		size_t i = (size_t)(d - g->edges);
		if (i >= *ncount) {
			size_t n = *ncount ? 2 * *ncount : 1024;
			while (n <= i)
				n *= 2;
			*count = pc_xrealloc(*count, n, sizeof(uint64_t));
			memset(*count + *ncount, 0,
			       (n - *ncount) * sizeof(uint64_t));
			*ncount = n;
		}
		(*count)[i] += src->edges[e].count;
	}
	g->ncalls = ncalls + src->ncalls;
	g->ncost += src->ncost;
	g->nonzero += src->nonzero;
	g->cost_bytes += src->cost_bytes;
	free(fm);
}

/* The graph of BASE's part a and NEW's part b (either NULL: a part of
 * one run, laid out alone in the pair's model). */
static void merge(struct cg_graph *g, struct cg_graph *a, struct cg_graph *b,
		  const pc_id *cm)
{
	if (!a || !b) {
		*g = a ? *a : *b;
		memset(a ? a : b, 0, sizeof *g);
		g->pair = 1;
		g->cmetric[0] = cm[!a];
		g->cmetric[1] = PC_NONE;
		return;
	}
	size_t nev = a->nev + b->nev;
	pc_id *metric = pc_xmalloc(nev * sizeof(pc_id));
	memcpy(metric, a->metric, a->nev * sizeof(pc_id));
	memcpy(metric + a->nev, b->metric, b->nev * sizeof(pc_id));
	memset(g, 0, sizeof *g);
	pc_cg_graph_init(g, nev, metric, a->has_line || b->has_line,
			 a->has_instr || b->has_instr);
	free(metric);
	g->merge = a->merge && b->merge;
	uint64_t *count = NULL;
	size_t ncount = 0;
	add_side(g, a, 0, NULL, NULL);
	add_side(g, b, a->nev, &count, &ncount);
	g->count2 = pc_xcalloc(g->nedges + 1, sizeof(uint64_t));
	if (count) /* (none: no call of NEW's) */
		memcpy(g->count2, count, (ncount < g->nedges ? ncount :
					  g->nedges) * sizeof(uint64_t));
	free(count);
	g->pair = 1;
	g->split = a->nev;
	g->cmetric[0] = cm[0];
	g->cmetric[1] = cm[1];
	pc_cg_graph_reset(a);
	pc_cg_graph_reset(b);
}

/* A path's last component, interned (its address is the key). */
static const char *last_of(struct pc_db *db, const char *path)
{
	const char *s = strrchr(path, '/');
	return pc_intern_cstr(db, s && s[1] ? s + 1 : path);
}

/* Paths (modules, files: kind 0, 1) of NEW that BASE has not are
 * BASE's of the same last component where that name is unique among
 * the paths each run uses (as src/diff.c matches two runs' paths: the
 * same program built elsewhere, ./src/x.c and /home/u/src/x.c): NEW's
 * graphs' records, edges and functions are moved to BASE's paths
 * (functions to BASE's of the same name on them) before they are laid
 * out. *ent (NEW's entries, per model function) follow them. */
static void match_paths(struct pc_db *db, struct held *h,
			struct cg_parsed *ent)
{
	size_t n[2] = { db->nmodules, db->nfiles };
	uint8_t *use[2];
	for (int k = 0; k < 2; k++)
		use[k] = pc_xcalloc(n[k] + 1, 1);
	for (int r = 0; r < 2; r++) /* (bit 1 << r: run r uses it) */
		for (size_t i = 0; i < h[r].n; i++) {
			const struct cg_graph *g = &h[r].p[i].g;
			uint8_t bit = (uint8_t)(1u << r);
			for (size_t f = 0; f < g->nfns; f++) {
				const struct pc_function *fn =
					&db->functions[g->fns[f].func];
				if (fn->module != PC_NONE)
					use[0][fn->module] |= bit;
				if (fn->file != PC_NONE)
					use[1][fn->file] |= bit;
			}
			for (size_t j = 0; j < g->nrecs; j++) {
				if (g->recs[j].module != PC_NONE)
					use[0][g->recs[j].module] |= bit;
				if (g->recs[j].file != PC_NONE)
					use[1][g->recs[j].file] |= bit;
			}
		}
	pc_id *to[2];
	int any = 0;
	for (int k = 0; k < 2; k++) {
		const struct pc_path *p = k ? db->files : db->modules;
		const char **last = pc_xmalloc((n[k] + 1) * sizeof(char *));
		to[k] = pc_xmalloc((n[k] + 1) * sizeof(pc_id));
		for (size_t i = 0; i < n[k]; i++) {
			last[i] = use[k][i] ? last_of(db, p[i].path) : NULL;
			to[k][i] = (pc_id)i;
		}
		/* (quadratic in the paths one run alone uses: few) */
		for (size_t i = 0; i < n[k]; i++) {
			if (use[k][i] != 2)
				continue;
			size_t nb = 0, nn = 0, b = 0;
			for (size_t j = 0; j < n[k]; j++) {
				if (last[j] != last[i])
					continue;
				if (use[k][j] & 1) {
					nb++;
					b = j;
				}
				nn += (use[k][j] & 2) != 0;
			}
			if (nb == 1 && nn == 1 && use[k][b] == 1) {
				to[k][i] = (pc_id)b;
				any = 1;
			}
		}
		free(last);
	}
	for (size_t i = 0; any && i < h[1].n; i++) {
		struct cg_graph *g = &h[1].p[i].g;
#define TO(k, id) ((id) == PC_NONE ? PC_NONE : to[k][id])
		for (size_t j = 0; j < g->nrecs; j++) {
			g->recs[j].module = TO(0, g->recs[j].module);
			g->recs[j].file = TO(1, g->recs[j].file);
		}
		for (size_t j = 0; j < g->nedges; j++) {
			g->edges[j].module = TO(0, g->edges[j].module);
			g->edges[j].file = TO(1, g->edges[j].file);
		}
		for (size_t f = 0; f < g->nfns; f++) {
			pc_id fo = g->fns[f].func;
			const struct pc_function fn = db->functions[fo];
			if (TO(0, fn.module) == fn.module &&
			    TO(1, fn.file) == fn.file)
				continue;
			pc_id nf = pc_function_get(db, fn.name,
						   TO(0, fn.module), 0,
						   TO(1, fn.file), 0);
			g->fns[f].func = nf;
			if (fo < ent->nent && nf < ent->nent &&
			    !ent->ent_off[nf] && !ent->ent_line[nf]) {
				ent->ent_off[nf] = ent->ent_off[fo];
				ent->ent_line[nf] = ent->ent_line[fo];
			}
		}
#undef TO
	}
	for (int k = 0; k < 2; k++) {
		free(use[k]);
		free(to[k]);
	}
}

/* Lays out BASE's part pa and NEW's pb (either NULL) as the profile
 * (rank r, thread t), the parsers' scales divided back afterwards. */
static void lay_part(struct pc_db *db, struct cg_part *pa, struct cg_part *pb,
		     uint64_t r, uint64_t t, const pc_id *cm,
		     const struct cg_parsed *pd,
		     const struct pc_import_opts *opts)
{
	const struct cg_part *id = pa ? pa : pb;
	struct pc_idelem ids[2] = {
		{ .kind = PC_ID_RANK, .logical = r, .physical = id->pid },
		{ .kind = PC_ID_THREAD, .logical = t, .physical = id->thread },
	};
	pc_id prof = pc_profile_add(db, ids, 2);
	pc_id entry = pc_ctx_entry(db, id->thread <= 1 ? PC_ENTRY_MAIN :
							 PC_ENTRY_APP_THREAD);
	struct cg_graph g;
	merge(&g, pa ? &pa->g : NULL, pb ? &pb->g : NULL, cm);
	size_t v0 = db->nvalues, norder;
	pc_id *order = pc_cg_expand(db, &g, prof, entry, opts, &norder);
	pc_cg_graph_reset(&g);
	pc_ctx_map_drop(db);
	pc_cg_round(db, v0, cm[0], cm[1], order, norder, opts ? opts->jobs : 1);
	free(order);
	/* (scaled events: as finish_part does for one run) */
	for (int k = 0; k < 2; k++)
		for (size_t i = v0; i < db->nvalues && pd[k].ndiv; i++) {
			struct pc_value *v = &db->values[i];
			if (v->metric < pd[k].ndiv && pd[k].div[v->metric] != 1)
				v->value /= pd[k].div[v->metric];
		}
}

/* The runs' metrics of calls, where they have calls= counts. */
static void calls_metrics(struct pc_db *db, const struct held *h, pc_id *cm)
{
	static const char *const name[2] = {
		PC_CALLS_METRIC, PC_CALLS_METRIC PC_PAIR_SUFFIX
	};
	const char *desc = "Calls of the function from its call site "
			   "(Callgrind calls= counts); inclusive: the calls "
			   "made in the subtree";
	for (int k = 0; k < 2; k++) {
		int any = 0;
		for (size_t i = 0; i < h[k].n && !any; i++)
			for (size_t e = 0; e < h[k].p[i].g.nedges && !any; e++)
				any = h[k].p[i].g.edges[e].count != 0;
		cm[k] = any ? pc_metric_get(db, name[k], desc, "calls") :
			      PC_NONE;
	}
}

int pc_cg_read_pair(struct pc_db *db, const char *const path[2],
		    const char *title[2], const struct pc_import_opts *opts,
		    struct pc_err *err)
{
	struct held h[2] = { { 0 } };
	struct cg_parsed pd[2] = { { 0 } };
	int rc = 0;
	for (int k = 0; k < 2 && !rc; k++) {
		db->title = NULL; /* (each run's cmd:) */
		rc = pc_cg_parse(db, path[k], opts, err, keep, &h[k],
				 k ? PC_PAIR_SUFFIX : NULL, &pd[k]);
		if (rc)
			pc_err_context(err, k ? "reading NEW" : "reading BASE");
		title[k] = db->title;
	}
	db->title = title[0];
	if (!rc) {
		match_paths(db, h, &pd[1]);
		/* the functions' entries, BASE's first (a function of NEW
		 * was found as BASE's: neither had its entry yet) */
		for (int k = 0; k < 2; k++)
			pc_functions_set_entries(db, pd[k].ent_off,
						 pd[k].ent_line, pd[k].nent);
		pc_id cm[2];
		calls_metrics(db, h, cm);
		uint64_t *key[2][2];
		for (int k = 0; k < 2; k++) {
			key[k][0] = pc_xcalloc(h[k].n + 1, sizeof(uint64_t));
			key[k][1] = pc_xcalloc(h[k].n + 1, sizeof(uint64_t));
			part_keys(&h[k], key[k][0], key[k][1]);
		}
		/* BASE's parts in order, each with NEW's of its number;
		 * then NEW's parts that BASE has not */
		uint8_t *used = pc_xcalloc(h[1].n + 1, 1);
		for (size_t i = 0; i < h[0].n; i++) {
			struct cg_part *pb = NULL;
			uint64_t r = key[0][0][i], t = key[0][1][i];
			for (size_t j = 0; j < h[1].n && !pb; j++)
				if (!used[j] && key[1][0][j] == r &&
				    key[1][1][j] == t) {
					pb = &h[1].p[j];
					used[j] = 1;
				}
			lay_part(db, &h[0].p[i], pb, r, t, cm, pd, opts);
		}
		for (size_t j = 0; j < h[1].n; j++)
			if (!used[j])
				lay_part(db, NULL, &h[1].p[j], key[1][0][j],
					 key[1][1][j], cm, pd, opts);
		free(used);
		for (int k = 0; k < 2; k++) {
			free(key[k][0]);
			free(key[k][1]);
		}
	}
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < h[k].n; i++)
			pc_cg_graph_reset(&h[k].p[i].g);
		free(h[k].p);
		free(pd[k].div);
		free(pd[k].ent_off);
		free(pd[k].ent_line);
	}
	return rc;
}
