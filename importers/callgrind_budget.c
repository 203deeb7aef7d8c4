/* The budget of the call-graph-to-tree expansion (see callgrind_tree.c's
 * opening comment and doc/callgrind-tree.md, "3. The budget"): the flat floor
 * (every function once with its positions) and the default cap from the
 * input's size, the bound a user accepts and hpcviewer's. */
#include "callgrind_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_pos(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	for (int i = 0; i < 2; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Contexts of the flat profile: each function with self cost, and its
 * distinct positions (lines; instructions too when they are laid out),
 * also counted per function in x->npos. Function by function, so the
 * scratch is one function's records (a whole file's keys and qsort's
 * copy of them were a third of the peak memory of an instruction-level
 * input). */
size_t cg_flat_floor(struct expand *x)
{
	const struct cg_graph *g = x->g;
	int instr = x->instr_ctx;
	unsigned add = 1 + (instr && g->has_line);
	size_t most = 0, n = 0;
	for (uint32_t f = 0; f < g->nfns; f++)
		if (x->rec_start[f + 1] - x->rec_start[f] > most)
			most = x->rec_start[f + 1] - x->rec_start[f];
	uint64_t *k = pc_xmalloc((most + 1) * 2 * sizeof(uint64_t));
	for (uint32_t f = 0; f < g->nfns; f++) {
		size_t m = x->rec_start[f + 1] - x->rec_start[f];
		if (!m)
			continue;
		for (size_t i = 0; i < m; i++) {
			const struct cg_rec *rec =
				&g->recs[x->rec_idx[x->rec_start[f] + i]];
			k[2 * i] = g->has_line ?
				((uint64_t)rec->file << 32 | rec->line) : 0;
			k[2 * i + 1] = instr ? (rec->addr ^
						(uint64_t)rec->module << 48) : 0;
		}
		/* (a function's records come mostly in order of their
		 * lines: an insertion sort does a few moves where qsort did
		 * its merges through a comparison by pointer, 398 of the
		 * generated 70 MB file's 31,378 M instructions) */
		if (m > 64) {
			qsort(k, m, 2 * sizeof(uint64_t), cmp_pos);
		} else {
			for (size_t i = 1; i < m; i++) {
				uint64_t a = k[2 * i], b = k[2 * i + 1];
				size_t j = i;
				for (; j && (k[2 * j - 2] > a ||
					     (k[2 * j - 2] == a && k[2 * j - 1] > b));
				     j--) {
					k[2 * j] = k[2 * j - 2];
					k[2 * j + 1] = k[2 * j - 1];
				}
				k[2 * j] = a;
				k[2 * j + 1] = b;
			}
		}
		for (size_t i = 0; i < m; i++)
			if (!i || cmp_pos(k + 2 * i, k + 2 * i - 2))
				x->npos[f] += add;
		n += 1 + x->npos[f]; /* the function once */
	}
	free(k);
	return n;
}

/* The input's size as valgrind writes it (names once, positions and
 * costs in decimal), from the graph and its count of cost and calls=
 * lines: the same whatever form the file itself has (gzip, names
 * compressed or not, CRLF). */
static double input_bytes(const struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t nev = g->nev;
	double b = g->cost_bytes, pos = g->has_instr ? 4 : 0; /* "+N " */
	double c = 0; /* a call: cfn=(id), calls=N target, its cost line */
	for (size_t e = 0; e < g->nedges; e++) {
		c += 10 + 8 + cg_digits(g->edges[e].count) + 2 * (1 + pos) +
		     2 * cg_digits(g->edges[e].line);
		for (size_t m = 0; m < nev; m++)
			if (g->ecost[e * nev + m])
				c += 1 + cg_digits(g->ecost[e * nev + m]);
	}
	if (g->nedges) /* the same call may be written several times */
		b += c * (double)g->ncalls / (double)g->nedges;
	/* per function fn=(id) name and fl=(id), the names of its file
	 * and module once */
	const struct pc_db *db = x->db;
	uint8_t *seen = pc_xcalloc(db->nfiles + db->nmodules + 1, 1);
	for (size_t f = 0; f < g->nfns; f++) {
		const struct pc_function *fn = &db->functions[g->fns[f].func];
		b += 20 + (double)strlen(fn->name);
		if (fn->file != PC_NONE && !seen[fn->file]++)
			b += (double)strlen(db->files[fn->file].path);
		if (fn->module != PC_NONE && !seen[db->nfiles + fn->module]++)
			b += (double)strlen(db->modules[fn->module].path);
	}
	free(seen);
	return b;
}

/* By default, work that carries CG_MIN_SHARE or more of a metric's
 * total is laid out beyond the budget, so that every calling context
 * above that share is in the tree, as long as the tree stays within
 * four times the budget and its v4 database within some 30 times the
 * input (5 times for an instruction-level input laid out by lines,
 * whose contexts each stand for several of its lines: issue 7's
 * targets). The input's size is estimated from its cost and call lines
 * (11 bytes each, what a line with compressed names takes at least),
 * not measured, so that the tree does not depend on how the file is
 * written; a context costs some 62 + 137 bytes per metric in a v4
 * database (measured). --max-contexts is a bound: nothing beyond it. */
size_t cg_default_cap(struct expand *x, const struct pc_import_opts *opts,
		      size_t *limit)
{
	if (opts && opts->max_contexts) {
		/* a hard bound; of it, a fifth for the summed frames of what
		 * is cut, as by default (the layout uses its room up: with
		 * the flat profile's reserve alone, the cuts' rests went up
		 * to the lowest caller above all of a function's cuts, and
		 * more room told a worse story) */
		*limit = x->budget;
		size_t keep = x->budget / CG_SUMMED_PART;
		if (x->budget - keep >= x->reserve + x->nocost + 1024)
			x->budget -= keep;
		return x->budget;
	}
	/* a context's bytes: some 62 + 137 per metric it has a value of
	 * (measured); as many as a cost line has on average, and calls */
	const struct cg_graph *g = x->g;
	double metrics = g->nonzero / (double)(g->ncost ? g->ncost : 1) +
			 cg_has_calls(x);
	double ctxbytes = 62.0 + 137.0 * metrics;
	double per = 11.0 * (double)(g->ncost + g->nedges) / ctxbytes;
	double times = x->g->has_instr && !x->instr_ctx ? 5.0 : 30.0;
	double est = times * per;
	double most = 4.0 * (double)x->budget;
	size_t cap = est > most ? (size_t)most :
		     est > (double)x->budget ? (size_t)est : x->budget;
	/* the rests of cuts may take one flat profile more (the estimate
	 * is low: 12 times cc1plus's line-level input at the cap), except
	 * where the target is 5 times */
	double more = (double)cap + (double)x->reserve;
	*limit = times > 5.0 || more < est ? (size_t)more :
		 est > (double)cap ? (size_t)est : cap;
	/* where even that passes 30 times the input (a small input, whose
	 * budget is large against its size, or one whose cost lines are
	 * long): the whole tree within 28 times the input estimated more
	 * closely (a margin for the estimate: within 8% on real files), the
	 * flat profile and its rests kept and at least 1024 contexts of
	 * calling context */
	double inb = input_bytes(x);
	if ((double)*limit > 28.0 * inb / ctxbytes) {
		/* an input of up to 1 MiB: its contexts' bytes, closer
		 * (calls have values at call sites only, some 45 bytes a
		 * context; with 137, 17-19 times the input), never more
		 * than the default bound. A larger one keeps the room it
		 * had: its tree would grow with the room and its peak
		 * memory with the tree (the bench's generated 28 MB input:
		 * 425 -> 512 MB for 1.33 -> 1.57 million contexts) */
		double calls = inb <= 1048576.0 ? 45.0 : 137.0;
		double close = 62.0 + 137.0 * (metrics -
					       cg_has_calls(x)) +
			       calls * cg_has_calls(x);
		double tight = 28.0 * inb / close;
		if (tight > (double)*limit)
			tight = (double)*limit;
		size_t least = x->reserve + x->nocost + 1024;
		*limit = tight > (double)least ? (size_t)tight : least;
		x->budget = *limit - x->nocost;
		x->tight = 1;
		cap = x->budget;
	}
	/* the bound a user accepts whatever the input's size: a v4
	 * database of CG_SMALL_DB, its contexts counted as closely as for
	 * the tight bound (calls at 45 bytes). A small input's tree that
	 * fits it is laid out whole (no cut, no note); a larger input whose
	 * bound passes it already keeps its own */
	double one = 62.0 + 137.0 * (metrics - cg_has_calls(x)) +
		     45.0 * cg_has_calls(x);
	double small = (double)CG_SMALL_DB / one;
	if ((double)*limit < small) {
		/* of it, a fifth for the summed frames of what is cut (the
		 * tree's layout uses its budget up, leaving only the flat
		 * profile's reserve) */
		size_t lay = (size_t)small - (size_t)small / CG_SUMMED_PART;
		x->budget = lay > x->nocost ? lay - x->nocost : 0;
		x->tight = 1;
		cap = x->budget;
		*limit = (size_t)small;
	}
	/* hpcviewer reads a meta.db of at most 2 GiB, where a context
	 * takes at most 72 bytes (its record, and function, file and
	 * module): the whole tree, the contexts the model holds already
	 * and the rests included, stays within it, less 64 MiB for the
	 * other sections */
	size_t viewer = (size_t)((((uint64_t)2048 - 64) << 20) / 72);
	viewer = viewer > x->start ? viewer - x->start : 0;
	if (*limit > viewer) {
		size_t least = x->reserve + x->nocost + 1024;
		*limit = viewer > least ? viewer : least;
		x->budget = *limit > x->nocost ? *limit - x->nocost : 0;
		x->tight = x->viewer = 1;
		cap = cap < x->budget ? cap : x->budget;
	}
	return cap;
}

/* A lower bound on the contexts of the whole tree, in the first metric:
 * each instance of a one-function SCC that a root or a call with a cost
 * in that metric reaches lays out its function context at least, and
 * every such call below it an instance of its own (its path is its
 * own: the contexts differ); what a recursive group lays out is not
 * counted. SCCs come callees first, so one pass does it. */
double cg_whole_least(const struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	double *least = pc_xcalloc(x->nsccs + 1, sizeof(double)), sum = 0;
	for (uint32_t s = 0; s < x->nsccs; s++) {
		if (x->sccs[s].n != 1)
			continue;
		uint32_t f = x->members[x->sccs[s].first];
		double n = 1;
		for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1];
		     j++) {
			uint32_t e = x->edge_idx[j];
			uint32_t t = x->scc_of[g->edges[e].to];
			if (t != s && x->efrac[(size_t)e * nev] > 0)
				n += least[t];
		}
		least[s] = n;
		if (x->root[(size_t)s * nev] > 0 &&
		    x->total[(size_t)s * nev] > 0)
			sum += n;
	}
	free(least);
	return sum;
}

/* Where the tree is cut for certain (the whole tree lays out more
 * contexts than the cap leaves it: cg_whole_least), 1/CG_REST_SHIFT of the
 * bound `hard` goes from the tree's budget (and cap) to the rests,
 * whose heavy paths' places it buys (callgrind_hpath.c): the last
 * contexts of the tree are its lightest, and a heavy function high in
 * the tree loses what its places below the anchors' summed frames
 * cannot hold (tmpl.cpp's execute_one_pass -2.50 points with 50,416
 * contexts for them, -0.89 with 75,050: a tenth). The rests' contexts
 * hold more values than the tree's (a run's positions each have a cost:
 * the cc1plus fixture's database grew 1.4% for the same contexts, past
 * the 70 MiB of tests/callgrind_export.sh), so the bound `hard` gives
 * up a twentieth of what moves. A tree that may fit whole keeps its
 * budget: it is laid out as it was. */
void cg_rest_shift(struct expand *x, size_t *cap, size_t *hard)
{
	size_t caproom = *cap > x->reserve ? *cap - x->reserve : 0;
	size_t shift = *hard / CG_REST_SHIFT;
	size_t least = x->reserve + x->nocost + 1024;
	if (!shift || x->budget < least + shift ||
	    cg_whole_least(x) <= (double)caproom)
		return;
	x->budget -= shift;
	size_t c = *cap > shift ? *cap - shift : 0;
	*cap = c > x->budget ? c : x->budget;
	*hard -= shift / 20;
}

/* The scale of the heavy paths' trims (x->hscale): 1, or under a
 * --max-contexts above the default bound (the whole bound, rests
 * included, that cg_default_cap gives with the default budget
 * `budget`), the default bound over it. Places lighter than
 * CG_HEAVY_MIN at an anchor take the path above, and the heavy
 * functions on the way lose what lies below them (no unit can give it
 * back); with more room less is cut, the rests' places are lighter and
 * more of them fell below the same share: the cc1plus fixture's
 * jump_threader::thread_outgoing_edges lost 0.21 point at the default
 * (272,732 contexts) and 0.34 at four times, 0.13 of it to the trim.
 * Trimmed in proportion to the room, the places kept are at most the
 * rests' weight over the trim, as at the default: no function of that
 * fixture is further off than at the default at 1.2 to 8 times, nor of
 * an STL compile past 0.0005 point (doc/callgrind-tree.md, section 5,
 * "More room"; within a few percent of the default the units' order
 * is chosen against the default's losses, cg_hplace_keep). */
double cg_trim_scale(struct expand *x, const struct pc_import_opts *opts,
		     size_t budget, size_t *dbudget)
{
	*dbudget = budget;
	if (!opts || !opts->max_contexts)
		return 1;
	size_t b = x->budget, dhard = 0;
	int tight = x->tight, viewer = x->viewer;
	x->budget = budget;
	cg_default_cap(x, NULL, &dhard);
	*dbudget = x->budget;
	x->budget = b;
	x->tight = tight;
	x->viewer = viewer;
	return opts->max_contexts > dhard && dhard ?
		       (double)dhard / (double)opts->max_contexts : 1;
}

/* Per function on no cycle of the call graph (an SCC of one, without a
 * call to itself) that no other function of the input shares a model
 * function with: its inclusive cost in the first metric as the tree
 * laid out from value v0 on draws it, the sum over its function
 * contexts of all below them (no such function lies below itself);
 * NAN for the others. What issue 58's item 3 judges (pprof's cum of
 * each function, tests/func_room.pl), before the values' rounding. */
void cg_fn_incl(const struct expand *x, size_t v0, double *t)
{
	const struct pc_db *db = x->db;
	const struct cg_graph *g = x->g;
	size_t nc = db->ncontexts, nf = db->nfunctions;
	double *c = pc_xcalloc(nc + 1, sizeof(double));
	for (size_t i = v0; i < db->nvalues; i++) {
		const struct pc_value *v = &db->values[i];
		if (v->profile == x->profile && v->metric == g->metric[0] &&
		    v->ctx < nc)
			c[v->ctx] += v->value;
	}
	for (size_t i = nc; i-- > 1;)
		if (db->contexts[i].parent < i)
			c[db->contexts[i].parent] += c[i];
	/* per model function: its inclusive cost, and which function of
	 * the input it is (UINT32_MAX: none; UINT32_MAX - 1: several) */
	double *fi = pc_xcalloc(nf + 1, sizeof(double));
	uint32_t *who = pc_xmalloc((nf + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < nf; i++)
		who[i] = UINT32_MAX;
	for (uint32_t f = 0; f < g->nfns; f++) {
		pc_id m = g->fns[f].func;
		if (m < nf)
			who[m] = who[m] == UINT32_MAX ? f : UINT32_MAX - 1;
	}
	for (size_t i = 1; i < nc; i++) {
		const struct pc_context *k = &db->contexts[i];
		if (k->kind == PC_CTX_FUNCTION && k->function < nf)
			fi[k->function] += c[i];
	}
	for (uint32_t f = 0; f < g->nfns; f++) {
		pc_id m = g->fns[f].func;
		int own = m < nf && who[m] == f && x->sccs[x->scc_of[f]].n == 1;
		for (uint32_t k = x->edge_start[f]; own && k < x->edge_start[f + 1];
		     k++)
			own = g->edges[x->edge_idx[k]].to != f;
		t[f] = own ? fi[m] : NAN;
	}
	free(who);
	free(fi);
	free(c);
}

/* The heavy function (on no cycle, CG_HEAVY_SHARE or more: the
 * functions whose shares issue 58 judges, func_cum.py's, and
 * cg_hplace_keep's model counts) a larger bound's tree (tb, cg_fn_incl's)
 * draws further from its inclusive cost in the input than the default
 * bound's tree (td) does (see CG_ROOM_EPS), by the most, and by how
 * much (*by, a share of the first metric's total); UINT32_MAX: none. */
uint32_t cg_room_worse(const struct expand *x, const double *td,
		       const double *tb, double *by)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	uint32_t worst = UINT32_MAX;
	*by = 0;
	if (!(x->grand[0] > 0))
		return worst;
	for (uint32_t f = 0; f < g->nfns; f++) {
		if (!x->heavy[f] || isnan(td[f]) || isnan(tb[f]))
			continue;
		double in = x->fself[(size_t)f * nev];
		for (uint32_t k = x->edge_start[f]; k < x->edge_start[f + 1];
		     k++)
			in += (double)g->ecost[(size_t)x->edge_idx[k] * nev];
		/* its loss (what the tree draws less than the input) grown
		 * past CG_ROOM_EPS, or its distance either way past
		 * CG_ROOM_OVER */
		double lb = (in - tb[f]) / x->grand[0];
		double ld = (in - td[f]) / x->grand[0];
		double d = fmax(lb, 0) - fmax(ld, 0), e = fabs(lb) - fabs(ld);
		d = d > CG_ROOM_EPS ? d : e > CG_ROOM_OVER ? e : 0;
		if (d > *by) {
			*by = d;
			worst = f;
		}
	}
	return worst;
}
