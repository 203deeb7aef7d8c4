/* The expansion's layout primitives, used by callgrind_tree.c (the
 * tree) and callgrind_rest.c (what the budget left out): contexts as a
 * part lays them out (its order, the contexts it shares with earlier
 * parts, its count of them), shares of the totals, calls, and a
 * function's self cost per position. They call nothing of either file,
 * so the importer's files run one way: callgrind.c (parse) ->
 * callgrind_graph.c (the call graph) -> callgrind_tree.c with
 * callgrind_rest.c (the tree) -> callgrind_round.c (whole numbers). */
#include "callgrind_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Context c, the first time this part lays it out: in its order, and
 * counted where an earlier part made it. */
void cg_first_laid(struct expand *x, pc_id c)
{
	PC_GROW(x->order, x->norder, x->caporder);
	x->order[x->norder++] = c;
}

/* The child of parent with key k, found or made. */
static pc_id laid_ctx(struct expand *x, pc_id parent,
		      const struct pc_context *k)
{
	size_t made = x->db->ncontexts;
	pc_id c = pc_ctx_child(x->db, parent, k);
	if (c >= made) {
		cg_first_laid(x, c);
	} else if (c < x->start && !(x->shared[c >> 3] & (1u << (c & 7)))) {
		x->shared[c >> 3] |= (unsigned char)(1u << (c & 7));
		x->nshared++;
		cg_first_laid(x, c);
	}
	return c;
}

/* The context that positions a cost or a call site inside function
 * context fctx: a line, an instruction under it, or both. */
pc_id cg_site_ctx(struct expand *x, pc_id fctx, pc_id file, uint32_t line,
		  pc_id module, uint64_t addr)
{
	pc_id c = fctx;
	if (x->g->has_line) {
		struct pc_context k = { .kind = PC_CTX_LINE,
					.rel = PC_REL_LEXICAL, .file = file,
					.line = line };
		c = laid_ctx(x, c, &k);
	}
	if (x->instr_ctx) {
		struct pc_context k = { .kind = PC_CTX_INSTRUCTION,
					.rel = PC_REL_LEXICAL, .module = module,
					.offset = addr };
		c = laid_ctx(x, c, &k);
	}
	return c;
}

pc_id cg_call_ctx(struct expand *x, pc_id parent, pc_id func)
{
	struct pc_context k = { .kind = PC_CTX_FUNCTION, .rel = PC_REL_CALL,
				.function = func, .file = PC_NONE,
				.module = PC_NONE };
	return laid_ctx(x, parent, &k);
}

/* The frame below parent that holds what a cut sums, n functions:
 * `[summed: N functions]`, a function of no file nor module (a name no
 * input gives: the brackets), so a viewer reads its children as summed,
 * not called. */
pc_id cg_summed_ctx(struct expand *x, pc_id parent, size_t n)
{
	char name[64];
	snprintf(name, sizeof name, "[summed: %zu function%s]", n,
		 n == 1 ? "" : "s");
	return cg_call_ctx(x, parent, pc_function_get(x->db, name, PC_NONE, 0,
						      PC_NONE, 0));
}

/* The largest share of a metric's total that cost c (per metric) with
 * weights w carries. */
double cg_share_of(const struct expand *x, const double *w,
		   const double *c)
{
	double share = 0;
	for (size_t m = 0; m < x->nev; m++) {
		double s = x->grand[m] > 0 ? w[m] * c[m] / x->grand[m] : 0;
		share = s > share ? s : share;
	}
	return share;
}

/* An instance's share of SCC s's calls: its weight in the first metric
 * the SCC has activity in (the weights of each metric sum to 1 over the
 * instances, so the counts stay whole); 0 without activity. Of a pair,
 * run k's calls in the first of its own metrics (identical runs: the
 * same weights). */
static double calls_weight(const struct expand *x, uint32_t s, const double *w,
			   int k)
{
	size_t split = x->g->split;
	size_t lo = k ? split : 0, hi = k || !x->g->count2 ? x->nev : split;
	for (size_t m = lo; m < hi; m++)
		if (x->incl[(size_t)s * x->nev + m] > 0)
			return w[m];
	return 0;
}

/* The calls into member f of SCC s from the other members of one
 * instance with weights w (each of the instance's calls inside s goes
 * to its callee's node: as edge_calls, summed). */
cg_calls cg_fold_calls(const struct expand *x, uint32_t s, const double *w,
		       uint32_t f)
{
	cg_calls c = { { 0, 0 } };
	for (int k = 0; k < 2; k++)
		if (x->calls[k] != PC_NONE && x->fold[2 * (size_t)f + k])
			c.n[k] = x->fold[2 * (size_t)f + k] *
				 calls_weight(x, s, w, k);
	return c;
}

size_t cg_used(const struct expand *x)
{
	return x->db->ncontexts - x->start + x->nshared;
}

/* The calls an instance of SCC s with weights w makes along edge e:
 * the edge's count times the instance's calls_weight (per run). */
cg_calls cg_edge_calls(const struct expand *x, uint32_t s, const double *w,
		       uint32_t e)
{
	double cw[2] = { 0, 0 };
	if (cg_has_calls(x))
		cg_calls_weights(x, s, w, cw);
	return cg_edge_calls_by(x, e, cw);
}

/* An instance's calls_weight per run, for cg_edge_calls_by (0 where
 * the run has no calls metric). */
void cg_calls_weights(const struct expand *x, uint32_t s, const double *w,
		      double cw[2])
{
	for (int k = 0; k < 2; k++)
		cw[k] = x->calls[k] != PC_NONE ? calls_weight(x, s, w, k) : 0;
}

/* cg_edge_calls with the instance's calls_weight per run given (cw,
 * cg_calls_weights): one look-up per instance, not per edge. */
cg_calls cg_edge_calls_by(const struct expand *x, uint32_t e,
			  const double cw[2])
{
	cg_calls c = { { 0, 0 } };
	const struct cg_graph *g = x->g;
	uint64_t n[2] = { g->edges[e].count, g->count2 ? g->count2[e] : 0 };
	if (!cg_has_calls(x) || (!n[0] && !n[1]))
		return c;
	int cost = 0; /* as the layout: an edge without cost is not there */
	for (size_t m = 0; m < x->nev && !cost; m++)
		cost = g->ecost[(size_t)e * x->nev + m] != 0;
	if (!cost)
		return c;
	for (int k = 0; k < 2; k++)
		if (x->calls[k] != PC_NONE && n[k])
			c.n[k] = (double)n[k] * cw[k];
	return c;
}

void cg_add_calls(struct expand *x, pc_id ctx, cg_calls calls)
{
	for (int k = 0; k < 2; k++)
		if (calls.n[k] != 0)
			pc_value_add(x->db, x->profile, ctx, x->calls[k],
				     calls.n[k]);
}

/* The costs in events with negative counts of the functions that have
 * none in the others (no layout to follow): flat below entry, as a flat
 * profile has them, with a note. */
void cg_lay_signed_flat(struct expand *x, pc_id entry)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev, n = 0;
	uint32_t first = 0;
	if (!g->sgn)
		return;
	double *zero = pc_xcalloc(nev + 1, sizeof(double));
	x->signed_flat = 1;
	for (uint32_t f = 0; f < g->nfns; f++) {
		int any = 0;
		for (uint32_t j = x->rec_start[f];
		     j < x->rec_start[f + 1] && !any; j++)
			for (size_t m = 0; m < nev && !any; m++) {
				size_t r = x->rec_idx[j];
				any = cg_ref(x, f, m) == nev &&
				      g->scost[r * nev + m] != 0;
			}
		if (!any)
			continue;
		cg_lay_records(x, f, cg_call_ctx(x, entry, g->fns[f].func),
			       NULL, zero);
		first = n++ ? first : f;
	}
	x->signed_flat = 0;
	free(zero);
	if (n)
		pc_note(x->db->diag, "%zu function(s) with costs only in events "
			"with negative counts (the first: '%s') keep them flat "
			"below the thread's root", n,
			x->db->functions[g->fns[first].func].name);
}

/* Function f's self cost per position below its context fctx, weighted
 * by w (times sh unless NULL). A run of records at one position (an
 * instruction-level file's instructions of a line, when instructions
 * are not laid out) takes one context lookup and one value per metric:
 * the model sums a context's values in the order they come, so the sum
 * of the run is the same as value by value. */
void cg_lay_records(struct expand *x, uint32_t f, pc_id fctx,
		    const double *sh, const double *w)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	const struct cg_rec *prev = NULL;
	pc_id c = PC_NONE;
	for (uint32_t j = x->rec_start[f]; j < x->rec_start[f + 1]; j++) {
		uint32_t r = x->rec_idx[j];
		const struct cg_rec *rec = &g->recs[r];
		if (!prev || x->instr_ctx || rec->file != prev->file ||
		    rec->line != prev->line) {
			if (prev)
				for (size_t m = 0; m < nev; m++)
					pc_value_add(x->db, x->profile, c,
						     g->metric[m], x->acc[m]);
			c = cg_site_ctx(x, fctx, rec->file, rec->line, rec->module,
				     rec->addr);
			memset(x->acc, 0, nev * sizeof(double));
		}
		prev = rec;
		for (size_t m = 0; m < nev; m++) {
			if (g->sgn && g->sgn[m]) { /* as its reference */
				uint32_t k = cg_ref(x, f, m);
				double v = (double)g->scost[r * nev + m];
				x->acc[m] += k == nev ? (x->signed_flat ? v : 0) :
					     sh ? v * sh[k] * w[k] : v * w[k];
				continue;
			}
			x->acc[m] += sh ? (double)g->rcost[r * nev + m] * sh[m] *
						  w[m] :
					  (double)g->rcost[r * nev + m] * w[m];
		}
	}
	if (prev)
		for (size_t m = 0; m < nev; m++)
			pc_value_add(x->db, x->profile, c, g->metric[m],
				     x->acc[m]);
}

/* The function contexts from context c up to ancestor a (a not
 * counted; c counted where it is one), at most CG_UP_LEVELS - 1. */
static size_t up_levels(const struct expand *x, pc_id c, pc_id a)
{
	const struct pc_db *db = x->db;
	size_t n = 0;
	while (c != a && n < CG_UP_LEVELS - 1) {
		n += db->contexts[c].kind == PC_CTX_FUNCTION;
		pc_id up = db->contexts[c].parent;
		if (up == c || up >= db->ncontexts)
			break;
		c = up;
	}
	return n;
}

/* Anchor a's row of x->up: its cuts' levels, then (moved) its
 * pieces' (grown to the anchors laid out). */
static double *up_row(struct expand *x, uint32_t a, int moved)
{
	if (x->nanchors > x->capup) {
		size_t cap = 2 * x->nanchors, row = 2 * CG_UP_LEVELS;
		x->up = pc_xrealloc(x->up, cap * row, sizeof(double));
		memset(x->up + x->capup * row, 0,
		       (cap - x->capup) * row * sizeof(double));
		x->capup = cap;
	}
	return x->up + (size_t)a * 2 * CG_UP_LEVELS +
	       (moved ? CG_UP_LEVELS : 0);
}

/* A cut of this share (of the first metric's total) from call site
 * `site` sent to anchor's rest (with --verbose). */
void cg_up_cut(struct expand *x, uint32_t anchor, pc_id site, double share)
{
	if (!x->upstat)
		return;
	pc_id a = x->anchors[anchor].ctx;
	up_row(x, anchor, 0)[up_levels(x, site, a)] += share;
}

/* A piece of this share from anchor src's rest laid at anchor `at`
 * (with --verbose). */
void cg_up_piece(struct expand *x, uint32_t src, uint32_t at, double share)
{
	if (!x->upstat || src == at)
		return;
	size_t l = up_levels(x, x->anchors[src].ctx, x->anchors[at].ctx);
	up_row(x, src, 1)[l] += share;
}

/* Into buf: how much of the rests' cost lies below a context that is
 * not its cut's caller, and how many function levels above it (per
 * anchor, a cut's levels to its anchor and the anchor's pieces' levels
 * on up, taken as independent); the chars written. */
size_t cg_up_say(const struct expand *x, char *buf, size_t n)
{
	if (!x->up || !n)
		return 0;
	double lev[2 * CG_UP_LEVELS] = { 0 }, all = 0, up = 0, sum = 0;
	for (size_t a = 0; a < x->nanchors && a < x->capup; a++) {
		const double *c = x->up + a * 2 * CG_UP_LEVELS;
		const double *m = c + CG_UP_LEVELS;
		double r = 0, mv = 0;
		for (size_t l = 0; l < CG_UP_LEVELS; l++) {
			r += c[l];
			mv += m[l];
		}
		if (!(r > 0))
			continue;
		double stay = mv < r ? 1 - mv / r : 0;
		for (size_t l = 0; l < CG_UP_LEVELS; l++) {
			lev[l] += c[l] * stay;
			for (size_t k = 0; k < CG_UP_LEVELS; k++)
				lev[l + k] += c[l] * m[k] / r;
		}
	}
	for (size_t l = 0; l < 2 * CG_UP_LEVELS; l++) {
		all += lev[l];
		if (l) {
			up += lev[l];
			sum += lev[l] * (double)l;
		}
	}
	double far = 0;
	for (size_t l = 4; l < 2 * CG_UP_LEVELS; l++)
		far += lev[l];
	int w = snprintf(buf, n, "of the %.3g%% in rests, %.3g%% lies below a "
			 "context other than its cut's caller, %.3g function "
			 "levels above it on average (1: %.3g%%, 2-3: %.3g%%, "
			 "4 or more: %.3g%%)", 100 * all, 100 * up,
			 up > 0 ? sum / up : 0, 100 * lev[1],
			 100 * (lev[2] + lev[3]), 100 * far);
	return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
}
