/* From a Callgrind call graph to a calling-context tree.
 *
 * A call graph says how much each function cost and how much each call
 * edge cost inclusively, but not along which paths. We assume, as gprof
 * and speedscope do, that a function behaves alike whoever calls it:
 * each call edge receives the share of the callee's activity that its
 * inclusive cost represents, per metric. Recursion is handled on the
 * strongly connected components (SCCs) of the graph: an SCC is entered
 * as a unit, its members are laid out once along a depth-first spanning
 * tree from the member entered, and calls back into members already on
 * that tree are folded into them. So:
 *   - every function's self cost is spread over its contexts with
 *     weights summing to 1 (per metric), recursion included;
 *   - the contexts of an edge outside a cycle receive its inclusive cost;
 *   - metric totals equal the sum of the self cost lines.
 * The tree is built best first: the pending subtree instance that
 * carries the largest share of any metric's total is laid out next, so
 * every calling context above a small share is in the tree with its
 * exact value. When the context budget is spent, each pending instance
 * becomes a cut: below its call site, one context per function it would
 * have reached, with that function's self cost there per line (the
 * instance's flat profile). So totals, every function's self cost and
 * every (function, line) cost stay exact, and the cost below a cut stays
 * under the cut. Cuts that would overrun the budget so go below the
 * nearest heavy context above them instead (an anchor: 1% of a metric's
 * total or more), one context per function with that function's cost
 * there, heaviest first as room allows; what is left of a function is
 * passed up from anchor to anchor and laid out once, below the lowest
 * anchor above all the cuts it came from. */
#include "callgrind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Work above this share of a metric's total is laid out beyond the
 * default budget (see pc_cg_expand). */
#define CG_MIN_SHARE 1e-4
/* Work laid out with this share of a metric's total or more is an
 * anchor: the cuts below it that do not fit below their call sites go
 * flat below it (see lay_rests). */
#define CG_ANCHOR_SHARE 1e-2
/* room for the warning's account of where the rests went */
#define CG_WHERE 512

struct scc {
	uint32_t first, n; /* members in scc_members[first..first+n) */
};

struct expand {
	struct pc_db *db;
	const struct cg_graph *g;
	size_t nev;
	pc_id profile;
	int instr_ctx;    /* instruction contexts are laid out (below lines
			   * with --instructions, or without lines) */
	size_t start;     /* db->ncontexts before this part */
	/* the contexts made before this part that it lays out too (the
	 * earlier parts' and files' it shares: a file's tree is the same
	 * whatever was read before it, and so is the one profconv-mpi's
	 * rank makes of it alone): one bit each, and their count */
	unsigned char *shared;
	size_t nshared;
	/* the contexts it lays out, in the order it first does (its own in
	 * the order it makes them): the order they would have in a model
	 * of this part alone (pc_cg_round's) */
	pc_id *order;
	size_t norder, caporder;
	size_t budget;    /* contexts this part lays out */
	size_t reserve;   /* of it, kept for the flat fallback */
	size_t nocost;    /* functions without self cost */
	int tight;        /* the default bound is 30 times the input */
	int viewer;       /* ... or hpcviewer's bound on meta.db */
	int rootroom;     /* the roots' own rest may pass the bound (a
			   * default bound, not a tight one) */
	double *grand;    /* per metric: the part's total */
	double *ones;     /* nev weights of 1 */
	uint32_t *npos;   /* per function: distinct positions laid out */
	size_t *isize;    /* per SCC: contexts an instance lays out */
	/* cut below: per SCC, its flat profile (cached): SCC shares */
	struct flat {
		uint32_t *scc;
		double *share; /* n x nev */
		size_t n;
		size_t size;  /* contexts it lays out */
		int done;     /* 1 computed, 2 larger than a limit seen */
	} *flats;

	/* CSR of records and out-edges per function */
	uint32_t *rec_start, *rec_idx;
	uint32_t *edge_start, *edge_idx;

	uint32_t *scc_of;
	struct scc *sccs;
	size_t nsccs;
	uint32_t *members;

	double *incl;  /* per SCC x nev: max(self + out, in) */
	double *efrac; /* per edge x nev: its cost / its callee SCC's incl */
	double *total; /* per SCC x nev: cost of one full expansion */
	double *root;  /* per SCC x nev: share not covered by callers */

	uint32_t *visit; /* per function: stamp of the last instance */
	uint32_t stamp;

	/* calls= counts: the metric (PC_NONE without counts), per function
	 * the calls into it in the instance being laid out and its
	 * context there */
	pc_id calls;
	double *fcalls;
	pc_id *fctx;
	/* cuts: their count and largest share, and the largest share of a
	 * metric's total laid out flat below the entry point */
	size_t ncut;
	double flat_share, heaviest;
	/* per function x nev: its self cost; per metric: the self cost
	 * laid out in the tree (not below cuts) */
	double *fself, *laid;
	/* the share of a metric's total the rests left to the end put
	 * below anchors (the entry point's part is flat_share) */
	double top_share;
	/* where the cuts that do not fit below their call sites go: below
	 * the nearest anchor laid out above them (work of CG_ANCHOR_SHARE
	 * or more; the entry point is anchor 0). Their weights are summed
	 * per SCC (rest) and, for members of opened instances, per
	 * function (frest), with the calls into each function (calls).
	 * At most maxstore anchors hold rests (they are dense); past
	 * that, the nearest anchor above that holds one takes it. */
	struct anchor {
		pc_id ctx;     /* its function context */
		uint32_t up;   /* the anchor above */
		double *rest, *frest, *calls;
	} *anchors;
	size_t nanchors, capanchors, nstore, maxstore;
	uint32_t cur;  /* the anchor of the work being laid out */
	size_t room, caproom; /* budget - floor; the cap - floor */
	double *uw, *rw, *acc; /* scratch, nev each */

	/* instances that did not fit whole, opened member by member: their
	 * spanning trees (the one a whole instance follows) in preorder */
	size_t *obase; /* per opened instance: its first node */
	size_t nopened, capopened;
	struct onode {
		uint32_t fn, edge; /* the spanning edge; UINT32_MAX at the entry */
		uint32_t end;      /* the subtree is nodes [this, end) */
		double share;      /* largest share of a metric's total below */
	} *nodes;
	size_t nnodes, capnodes, maxnodes;
	double *own;   /* per function x nev: self + its calls out of its SCC */
	double *fold;  /* per function: calls= counts of the costed calls into
			* it from its own SCC */
	uint32_t *par; /* scratch: a node's parent */
	double *sub;   /* scratch: a node's subtree cost, nev */
	size_t capscratch;
};

static void csr(size_t nfns, size_t n, const void *items, size_t stride,
		size_t off, uint32_t **start, uint32_t **idx)
{
	uint32_t *s = pc_xcalloc(nfns + 1, sizeof(uint32_t));
	uint32_t *x = pc_xmalloc((n ? n : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		uint32_t f;
		memcpy(&f, (const char *)items + i * stride + off, sizeof f);
		s[f + 1]++;
	}
	for (size_t f = 0; f < nfns; f++)
		s[f + 1] += s[f];
	uint32_t *fill = pc_xmalloc((nfns + 1) * sizeof(uint32_t));
	memcpy(fill, s, (nfns + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		uint32_t f;
		memcpy(&f, (const char *)items + i * stride + off, sizeof f);
		x[fill[f]++] = (uint32_t)i;
	}
	free(fill);
	*start = s;
	*idx = x;
}

/* Tarjan's algorithm without recursion. SCCs come out callees first
 * (reverse topological order), which the cost pass below relies on. */
static void find_sccs(struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t n = g->nfns;
	uint32_t *index = pc_xmalloc(n * sizeof(uint32_t));
	uint32_t *low = pc_xmalloc(n * sizeof(uint32_t));
	char *on = pc_xcalloc(n, 1);
	uint32_t *stack = pc_xmalloc(n * sizeof(uint32_t));
	struct frame {
		uint32_t v, next;
	} *call = pc_xmalloc(n * sizeof(*call));
	size_t sp = 0, cp = 0, cap = 0;
	uint32_t counter = 0;
	for (size_t i = 0; i < n; i++)
		index[i] = UINT32_MAX;
	x->scc_of = pc_xmalloc(n * sizeof(uint32_t));
	x->members = pc_xmalloc(n * sizeof(uint32_t));
	size_t nmem = 0;
	for (uint32_t root = 0; root < n; root++) {
		if (index[root] != UINT32_MAX)
			continue;
		call[cp++] = (struct frame){ root, x->edge_start[root] };
		index[root] = low[root] = counter++;
		stack[sp++] = root;
		on[root] = 1;
		while (cp) {
			struct frame *f = &call[cp - 1];
			uint32_t v = f->v;
			if (f->next < x->edge_start[v + 1]) {
				uint32_t w = g->edges[x->edge_idx[f->next++]].to;
				if (index[w] == UINT32_MAX) {
					index[w] = low[w] = counter++;
					stack[sp++] = w;
					on[w] = 1;
					call[cp++] = (struct frame){
						w, x->edge_start[w] };
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				PC_GROW(x->sccs, x->nsccs, cap);
				struct scc *s = &x->sccs[x->nsccs];
				s->first = (uint32_t)nmem;
				uint32_t w;
				do {
					w = stack[--sp];
					on[w] = 0;
					x->scc_of[w] = (uint32_t)x->nsccs;
					x->members[nmem++] = w;
				} while (w != v);
				s->n = (uint32_t)nmem - s->first;
				x->nsccs++;
			}
			cp--;
			if (cp) {
				uint32_t u = call[cp - 1].v;
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
	/* members in function order, so layouts do not depend on the
	 * traversal */
	for (size_t s = 0; s < x->nsccs; s++) {
		uint32_t *m = x->members + x->sccs[s].first;
		for (uint32_t i = 1; i < x->sccs[s].n; i++)
			for (uint32_t j = i; j > 0 && m[j - 1] > m[j]; j--) {
				uint32_t t = m[j];
				m[j] = m[j - 1];
				m[j - 1] = t;
			}
	}
	free(index);
	free(low);
	free(on);
	free(stack);
	free(call);
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* Per SCC: inclusive cost, the cost of one full expansion, and the share
 * of its activity that no caller accounts for (it is a root there). */
static void scc_costs(struct expand *x)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev, ns = x->nsccs;
	double *self = pc_xcalloc(ns * nev, sizeof(double));
	double *out = pc_xcalloc(ns * nev, sizeof(double));
	double *in = pc_xcalloc(ns * nev, sizeof(double));
	x->incl = pc_xcalloc(ns * nev, sizeof(double));
	x->total = pc_xcalloc(ns * nev, sizeof(double));
	x->root = pc_xcalloc(ns * nev, sizeof(double));
	for (size_t r = 0; r < g->nrecs; r++) {
		uint32_t s = x->scc_of[g->recs[r].fn];
		for (size_t m = 0; m < nev; m++)
			self[s * nev + m] += (double)g->rcost[r * nev + m];
	}
	for (size_t e = 0; e < g->nedges; e++) {
		uint32_t a = x->scc_of[g->edges[e].from];
		uint32_t b = x->scc_of[g->edges[e].to];
		if (a == b)
			continue;
		for (size_t m = 0; m < nev; m++) {
			double c = (double)g->ecost[e * nev + m];
			out[a * nev + m] += c;
			in[b * nev + m] += c;
		}
	}
	for (size_t s = 0; s < ns; s++)
		for (size_t m = 0; m < nev; m++) {
			double own = self[s * nev + m] + out[s * nev + m];
			double i = in[s * nev + m];
			x->incl[s * nev + m] = own > i ? own : i;
			double r = 1 - ratio(i, x->incl[s * nev + m]);
			x->root[s * nev + m] = r > 1e-12 ? r : 0;
		}
	/* callees come first, so their totals are known */
	for (size_t s = 0; s < ns; s++) {
		double *t = x->total + s * nev;
		memcpy(t, self + s * nev, nev * sizeof(double));
		const struct scc *c = &x->sccs[s];
		for (uint32_t k = 0; k < c->n; k++) {
			uint32_t f = x->members[c->first + k];
			for (uint32_t j = x->edge_start[f];
			     j < x->edge_start[f + 1]; j++) {
				uint32_t e = x->edge_idx[j];
				uint32_t b = x->scc_of[g->edges[e].to];
				if (b == s)
					continue;
				for (size_t m = 0; m < nev; m++)
					t[m] += (double)g->ecost[e * nev + m] *
						ratio(x->total[b * nev + m],
						      x->incl[b * nev + m]);
			}
		}
	}
	free(self);
	free(out);
	free(in);
}

/* The context that positions a cost or a call site inside function
 * context fctx: a line, an instruction under it, or both. */
/* Context c, the first time this part lays it out: in its order, and
 * counted where an earlier part made it. */
static void first_laid(struct expand *x, pc_id c)
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
		first_laid(x, c);
	} else if (c < x->start && !(x->shared[c >> 3] & (1u << (c & 7)))) {
		x->shared[c >> 3] |= (unsigned char)(1u << (c & 7));
		x->nshared++;
		first_laid(x, c);
	}
	return c;
}

static pc_id site_ctx(struct expand *x, pc_id fctx, pc_id file, uint32_t line,
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

static pc_id call_ctx(struct expand *x, pc_id parent, pc_id func)
{
	struct pc_context k = { .kind = PC_CTX_FUNCTION, .rel = PC_REL_CALL,
				.function = func, .file = PC_NONE,
				.module = PC_NONE };
	return laid_ctx(x, parent, &k);
}

struct work {
	uint32_t scc, entry;
	pc_id parent;
	size_t w;      /* offset of the weights in the pool */
	double share;  /* largest share of a metric's total it carries */
	double calls;  /* calls into the entry it stands for */
	uint32_t inst; /* a whole instance (UINT32_MAX), or a member node of */
	uint32_t node; /* opened instance inst: its node */
	uint32_t anchor; /* where it goes if it becomes a rest */
};

/* Pending instances, heaviest first (a binary max-heap on share). */
struct workheap {
	struct work *items;
	size_t n, cap;
	double *pool; /* weights, append-only */
	size_t npool, cappool;
};

/* The largest share of a metric's total that cost c (per metric) with
 * weights w carries. */
static double share_of(const struct expand *x, const double *w,
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
 * instances, so the counts stay whole); 0 without activity. */
static double calls_weight(const struct expand *x, uint32_t s, const double *w)
{
	for (size_t m = 0; m < x->nev; m++)
		if (x->incl[(size_t)s * x->nev + m] > 0)
			return w[m];
	return 0;
}

/* The calls into member f of SCC s from the other members of one
 * instance with weights w (each of the instance's calls inside s goes
 * to its callee's node: as edge_calls, summed). */
static double fold_calls(const struct expand *x, uint32_t s, const double *w,
			 uint32_t f)
{
	if (x->calls == PC_NONE || !x->fold[f])
		return 0;
	return x->fold[f] * calls_weight(x, s, w);
}

static size_t used(const struct expand *x)
{
	return x->db->ncontexts - x->start + x->nshared;
}

/* Contexts that laying out function f as one member takes (at most). */
static size_t member_size(const struct expand *x, uint32_t f)
{
	return 1 + x->npos[f] + 2 * (x->edge_start[f + 1] - x->edge_start[f]);
}

/* Whether work of this share that needs at least `need` contexts can
 * never be laid out nor be cut below its call site: what is laid out
 * only grows, and once it passes the room, nothing is left for cuts
 * below call sites. */
static int hopeless(const struct expand *x, double share, size_t need)
{
	size_t u = used(x);
	return u >= x->room &&
	       u + need > (share >= CG_MIN_SHARE ? x->caproom : x->room);
}

static void note_cut(struct expand *x, double share)
{
	x->ncut++;
	if (share > x->heaviest)
		x->heaviest = share;
}

/* The anchor that holds the rest of work anchored at a: a itself, or
 * the nearest anchor above it once maxstore anchors hold rests (the
 * entry point's always can). */
static struct anchor *store_of(struct expand *x, uint32_t a)
{
	while (a && !x->anchors[a].rest && x->nstore >= x->maxstore)
		a = x->anchors[a].up;
	struct anchor *an = &x->anchors[a];
	if (!an->rest) {
		an->rest = pc_xcalloc(x->nsccs * x->nev + 1, sizeof(double));
		an->calls = pc_xcalloc(x->g->nfns, sizeof(double));
		x->nstore += a != 0;
	}
	return an;
}

/* Work cut flat below its anchor: its weights w are summed per SCC, or
 * for a member node per function of its subtree (laid out by lay_rest
 * at the end). */
static void to_rest(struct expand *x, const struct work *it, const double *w)
{
	size_t nev = x->nev;
	struct anchor *an = store_of(x, it->anchor);
	if (it->inst == UINT32_MAX) {
		an->calls[it->entry] += it->calls;
		for (size_t m = 0; m < nev; m++)
			an->rest[(size_t)it->scc * nev + m] += w[m];
		return;
	}
	if (!an->frest)
		an->frest = pc_xcalloc((size_t)x->g->nfns * nev + 1,
				       sizeof(double));
	const struct onode *nd = x->nodes + x->obase[it->inst];
	for (uint32_t k = it->node; k < nd[it->node].end; k++) {
		uint32_t f = nd[k].fn;
		for (size_t m = 0; m < nev; m++)
			an->frest[(size_t)f * nev + m] += w[m];
		an->calls[f] += fold_calls(x, it->scc, w, f);
	}
}

/* Work that can no longer fit: counted as a cut and sent to the rest. */
static void cut_to_rest(struct expand *x, const struct work *it,
			const double *w)
{
	note_cut(x, it->share);
	to_rest(x, it, w);
}

static void insert_work(struct workheap *h, struct work it)
{
	PC_GROW(h->items, h->n, h->cap);
	size_t i = h->n++;
	while (i && h->items[(i - 1) / 2].share < it.share) {
		h->items[i] = h->items[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->items[i] = it;
}

static void push_work(struct expand *x, struct workheap *h, uint32_t scc,
		      uint32_t entry, pc_id parent, const double *w,
		      double calls)
{
	size_t nev = x->nev;
	struct work it = { scc, entry, parent, h->npool,
			   share_of(x, w, x->total + (size_t)scc * nev), calls,
			   UINT32_MAX, 0, x->cur };
	/* (opened, an instance needs room for its entry member first) */
	if (hopeless(x, it.share, x->sccs[scc].n > 1 ?
					  member_size(x, entry) : x->isize[scc])) {
		cut_to_rest(x, &it, w);
		return;
	}
	if (h->npool + nev > h->cappool) {
		h->cappool = (h->npool + nev) * 2;
		h->pool = pc_xrealloc(h->pool, h->cappool, sizeof(double));
	}
	memcpy(h->pool + h->npool, w, nev * sizeof(double));
	insert_work(h, it);
	h->npool += nev;
}

static struct work pop_work(struct workheap *h)
{
	struct work top = h->items[0], last = h->items[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->items[c + 1].share > h->items[c].share)
			c++;
		if (h->items[c].share <= last.share)
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (h->n)
		h->items[i] = last;
	return top;
}

/* The calls an instance of SCC s with weights w makes along edge e:
 * the edge's count times the instance's calls_weight. */
static double edge_calls(const struct expand *x, uint32_t s, const double *w,
			 uint32_t e)
{
	if (x->calls == PC_NONE || !x->g->edges[e].count)
		return 0;
	int cost = 0; /* as the layout: an edge without cost is not there */
	for (size_t m = 0; m < x->nev && !cost; m++)
		cost = x->g->ecost[(size_t)e * x->nev + m] != 0;
	if (!cost)
		return 0;
	return (double)x->g->edges[e].count * calls_weight(x, s, w);
}

static void add_calls(struct expand *x, pc_id ctx, double calls)
{
	if (calls != 0)
		pc_value_add(x->db, x->profile, ctx, x->calls, calls);
}

static int any_positive(const double *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] > 0)
			return 1;
	return 0;
}

/* Function f's self cost per position below its context fctx, weighted
 * by w (times sh unless NULL). A run of records at one position (an
 * instruction-level file's instructions of a line, when instructions
 * are not laid out) takes one context lookup and one value per metric:
 * the model sums a context's values in the order they come, so the sum
 * of the run is the same as value by value. */
static void lay_records(struct expand *x, uint32_t f, pc_id fctx,
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
			c = site_ctx(x, fctx, rec->file, rec->line, rec->module,
				     rec->addr);
			memset(x->acc, 0, nev * sizeof(double));
		}
		prev = rec;
		for (size_t m = 0; m < nev; m++)
			x->acc[m] += sh ? (double)g->rcost[r * nev + m] * sh[m] *
						  w[m] :
					  (double)g->rcost[r * nev + m] * w[m];
	}
	if (prev)
		for (size_t m = 0; m < nev; m++)
			pc_value_add(x->db, x->profile, c, g->metric[m],
				     x->acc[m]);
}

struct lay {
	uint32_t fn;
	pc_id parent;
};

struct todo {
	struct lay *a;
	size_t n, cap;
};

/* Lays out function fn of SCC s below parent with weights w: its
 * context, its costs per position and its call sites. Calls into other
 * SCCs are queued as instances. Calls into members of s: with a todo
 * list (a whole instance), the members not laid out yet go on it and
 * the calls into the others are folded into them; without one (a
 * member node), the member nodes take care of them. */
static pc_id lay_member(struct expand *x, struct workheap *ws, uint32_t s,
			uint32_t fn, pc_id parent, const double *w,
			double *wchild, struct todo *todo)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	pc_id fctx = call_ctx(x, parent, g->fns[fn].func);
	lay_records(x, fn, fctx, NULL, w);
	for (size_t m = 0; m < nev; m++)
		x->laid[m] += w[m] * x->fself[(size_t)fn * nev + m];
	/* in reverse, so members are laid out in edge order */
	uint32_t e0 = x->edge_start[fn], e1 = x->edge_start[fn + 1];
	for (uint32_t j = e1; j-- > e0;) {
		uint32_t e = x->edge_idx[j];
		const struct cg_edge *ed = &g->edges[e];
		uint32_t t = x->scc_of[ed->to];
		if (t == s) {
			if (!todo)
				continue;
			double n = edge_calls(x, t, w, e);
			if (x->visit[ed->to] == x->stamp) {
				/* folded recursion: its calls go to the
				 * callee's one context here */
				x->fcalls[ed->to] += n;
				continue;
			}
			x->visit[ed->to] = x->stamp;
			x->fcalls[ed->to] = n;
			pc_id c = site_ctx(x, fctx, ed->file, ed->line,
					   ed->module, ed->addr);
			PC_GROW(todo->a, todo->n, todo->cap);
			todo->a[todo->n++] = (struct lay){ ed->to, c };
			continue;
		}
		for (size_t m = 0; m < nev; m++)
			wchild[m] = w[m] * x->efrac[e * nev + m];
		if (!any_positive(wchild, nev))
			continue;
		pc_id c = site_ctx(x, fctx, ed->file, ed->line, ed->module,
				   ed->addr);
		push_work(x, ws, t, ed->to, c, wchild, edge_calls(x, s, w, e));
	}
	return fctx;
}

/* Lays out one instance of an SCC entered at `entry` below `parent`
 * with weights w, and queues the instances of the SCCs it calls. */
static void expand_instance(struct expand *x, struct workheap *ws,
			    const struct work *it, const double *w,
			    double *wchild)
{
	struct todo todo = { 0 };
	x->stamp++;
	x->visit[it->entry] = x->stamp;
	x->fcalls[it->entry] = it->calls;
	PC_GROW(todo.a, todo.n, todo.cap);
	todo.a[todo.n++] = (struct lay){ it->entry, it->parent };
	while (todo.n) {
		struct lay l = todo.a[--todo.n];
		x->fctx[l.fn] = lay_member(x, ws, it->scc, l.fn, l.parent, w,
					   wchild, &todo);
	}
	free(todo.a);
	/* the calls into each member laid out, folded ones included */
	const struct scc *c = &x->sccs[it->scc];
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t f = x->members[c->first + k];
		if (x->visit[f] == x->stamp)
			add_calls(x, x->fctx[f], x->fcalls[f]);
	}
}

/* Opens an instance that does not fit whole: its spanning tree (the one
 * expand_instance follows, in the order it lays members out: a
 * preorder), each node with the share of its subtree. Returns the
 * opened instance, or UINT32_MAX when the nodes would pass their bound
 * (the instance is then cut whole). */
static uint32_t open_instance(struct expand *x, const struct work *it,
			      const double *w)
{
	const struct cg_graph *g = x->g;
	const struct scc *c = &x->sccs[it->scc];
	size_t nev = x->nev;
	if (x->nnodes + c->n > x->maxnodes || x->nopened >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (!x->own) { /* the first time: per function, once */
		x->own = pc_xmalloc(((size_t)g->nfns * nev + 1) * sizeof(double));
		memcpy(x->own, x->fself, (size_t)g->nfns * nev * sizeof(double));
		x->fold = pc_xcalloc(g->nfns + 1, sizeof(double));
		for (size_t e = 0; e < g->nedges; e++) {
			uint32_t a = x->scc_of[g->edges[e].from];
			uint32_t b = x->scc_of[g->edges[e].to];
			double *o = x->own + (size_t)g->edges[e].from * nev;
			if (a == b) {
				if (edge_calls(x, a, x->ones, e) != 0)
					x->fold[g->edges[e].to] +=
						(double)g->edges[e].count;
				continue;
			}
			for (size_t m = 0; m < nev; m++)
				o[m] += (double)g->ecost[e * nev + m] *
					ratio(x->total[b * nev + m],
					      x->incl[b * nev + m]);
		}
	}
	while (x->nnodes + c->n > x->capnodes) {
		/* the first time all of them: untouched room costs nothing,
		 * growing copies */
		x->capnodes = x->capnodes ? 2 * x->capnodes : x->maxnodes;
		x->nodes = pc_xrealloc(x->nodes, x->capnodes,
				       sizeof(*x->nodes));
	}
	if (c->n > x->capscratch) {
		x->capscratch = c->n;
		x->par = pc_xrealloc(x->par, c->n, sizeof(uint32_t));
		x->sub = pc_xrealloc(x->sub, c->n * nev, sizeof(double));
	}
	struct onode *nd = x->nodes + x->nnodes;
	struct pend {
		uint32_t fn, parent, edge; /* parent node, spanning edge */
	} *st = NULL;
	size_t nst = 0, capst = 0;
	uint32_t k = 0;
	x->stamp++;
	x->visit[it->entry] = x->stamp;
	PC_GROW(st, nst, capst);
	st[nst++] = (struct pend){ it->entry, UINT32_MAX, UINT32_MAX };
	while (nst) {
		struct pend l = st[--nst];
		nd[k] = (struct onode){ l.fn, l.edge, k + 1, 0 };
		x->par[k] = l.parent;
		memcpy(x->sub + (size_t)k * nev, x->own + (size_t)l.fn * nev,
		       nev * sizeof(double));
		uint32_t e0 = x->edge_start[l.fn], e1 = x->edge_start[l.fn + 1];
		for (uint32_t j = e1; j-- > e0;) {
			uint32_t e = x->edge_idx[j];
			uint32_t to = g->edges[e].to;
			if (x->scc_of[to] != it->scc || x->visit[to] == x->stamp)
				continue;
			x->visit[to] = x->stamp;
			PC_GROW(st, nst, capst);
			st[nst++] = (struct pend){ to, k, e };
		}
		k++;
	}
	free(st);
	/* subtrees: children come after their parents */
	for (uint32_t i = k; i-- > 1;) {
		uint32_t p = x->par[i];
		if (nd[i].end > nd[p].end)
			nd[p].end = nd[i].end;
		for (size_t m = 0; m < nev; m++)
			x->sub[(size_t)p * nev + m] += x->sub[(size_t)i * nev + m];
	}
	for (uint32_t i = 0; i < k; i++)
		nd[i].share = share_of(x, w, x->sub + (size_t)i * nev);
	PC_GROW(x->obase, x->nopened, x->capopened);
	x->obase[x->nopened] = x->nnodes;
	x->nnodes += k;
	return (uint32_t)x->nopened++;
}

/* Lays out one member node of an opened instance and queues its
 * children in the spanning tree, each a member node of its own. */
static void expand_member(struct expand *x, struct workheap *ws,
			  const struct work *it, const double *w,
			  double *wchild)
{
	size_t base = x->obase[it->inst];
	uint32_t f = x->nodes[base + it->node].fn;
	uint32_t end = x->nodes[base + it->node].end;
	pc_id fctx = lay_member(x, ws, it->scc, f, it->parent, w, wchild,
				NULL);
	add_calls(x, fctx, it->calls + fold_calls(x, it->scc, w, f));
	for (uint32_t j = it->node + 1; j < end; j = x->nodes[base + j].end) {
		const struct onode *ch = &x->nodes[base + j];
		const struct cg_edge *ed = &x->g->edges[ch->edge];
		pc_id c = site_ctx(x, fctx, ed->file, ed->line, ed->module,
				   ed->addr);
		struct work cw = { it->scc, it->entry, c, it->w, ch->share, 0,
				   it->inst, j, x->cur };
		if (hopeless(x, cw.share, member_size(x, ch->fn)))
			cut_to_rest(x, &cw, w);
		else
			insert_work(ws, cw);
	}
}

/* The member an SCC is entered at when it is a root: the first one no
 * other member calls, else the first one. */
static uint32_t root_entry(const struct expand *x, const char *called,
			   uint32_t s)
{
	const struct scc *c = &x->sccs[s];
	for (uint32_t k = 0; k < c->n; k++)
		if (!called[x->members[c->first + k]])
			return x->members[c->first + k];
	return x->members[c->first];
}

/* Contexts one instance of SCC s lays out (at most). */
static size_t instance_size(const struct expand *x, uint32_t s)
{
	const struct scc *c = &x->sccs[s];
	size_t n = 0;
	for (uint32_t k = 0; k < c->n; k++)
		n += member_size(x, x->members[c->first + k]);
	return n;
}

/* Passes function f's shares su (f a member of SCC u) on to the SCCs it
 * calls (sh, per SCC x metric), in proportion to each call edge's
 * inclusive cost; with on, each SCC reached the first time goes on the
 * max-heap of indices. */
static void spread_fn(const struct expand *x, uint32_t u, uint32_t f,
		      const double *su, double *sh, uint8_t *on,
		      uint32_t *heap, size_t *nh)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev;
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j];
		uint32_t v = x->scc_of[g->edges[e].to];
		if (v == u)
			continue;
		for (size_t m = 0; m < nev; m++)
			sh[(size_t)v * nev + m] +=
				su[m] * x->efrac[e * nev + m];
		if (!on || on[v])
			continue;
		on[v] = 1; /* sift up */
		size_t q = (*nh)++;
		while (q && heap[(q - 1) / 2] < v) {
			heap[q] = heap[(q - 1) / 2];
			q = (q - 1) / 2;
		}
		heap[q] = v;
	}
}

/* The same for all of SCC u's members. */
static void spread(const struct expand *x, uint32_t u, const double *su,
		   double *sh, uint8_t *on, uint32_t *heap, size_t *nh)
{
	const struct scc *c = &x->sccs[u];
	for (uint32_t k = 0; k < c->n; k++)
		spread_fn(x, u, x->members[c->first + k], su, sh, on, heap, nh);
}

/* Fills flat profile fl from the SCCs on the heap (their shares in sh):
 * callee SCCs have smaller indices than their callers, so the shares
 * are final when taken in decreasing index order. Returns 0 (fl and the
 * scratch emptied) as soon as fl lays out more than limit contexts. */
static int flat_run(struct expand *x, struct flat *fl, double *sh,
		    uint8_t *on, uint32_t *heap, size_t nh, size_t limit)
{
	size_t nev = x->nev, cap = fl->n;
	while (nh) {
		uint32_t u = heap[0], last = heap[--nh];
		size_t i = 0;
		for (;;) { /* sift down */
			size_t c = 2 * i + 1;
			if (c >= nh)
				break;
			if (c + 1 < nh && heap[c + 1] > heap[c])
				c++;
			if (heap[c] <= last)
				break;
			heap[i] = heap[c];
			i = c;
		}
		if (nh)
			heap[i] = last;
		double *su = sh + (size_t)u * nev;
		if (any_positive(su, nev)) {
			PC_GROW(fl->scc, fl->n, cap);
			fl->share = pc_xrealloc(fl->share, cap * nev,
						sizeof(double));
			fl->scc[fl->n] = u;
			memcpy(fl->share + fl->n * nev, su, nev * sizeof(double));
			fl->n++;
			const struct scc *c = &x->sccs[u];
			for (uint32_t k = 0; k < c->n; k++)
				fl->size += 1 + x->npos[x->members[c->first + k]];
		}
		if (fl->size > limit) {
			/* too big to lay out now or later: stop early */
			memset(su, 0, nev * sizeof(double));
			on[u] = 0;
			for (size_t q = 0; q < nh; q++) {
				memset(sh + (size_t)heap[q] * nev, 0,
				       nev * sizeof(double));
				on[heap[q]] = 0;
			}
			free(fl->scc);
			free(fl->share);
			*fl = (struct flat){ .done = 2 };
			return 0;
		}
		spread(x, u, su, sh, on, heap, &nh);
		memset(su, 0, nev * sizeof(double));
		on[u] = 0;
	}
	return 1;
}

/* The flat profile of one full instance of SCC t: the share of each SCC
 * it reaches (t itself 1), per metric. Cached per SCC. */
static struct flat *flat_of(struct expand *x, uint32_t t, double *sh,
			    uint8_t *on, uint32_t *heap, size_t limit)
{
	struct flat *fl = &x->flats[t];
	if (fl->done == 1)
		return fl->size <= limit ? fl : NULL;
	if (fl->done == 2)
		return NULL; /* limits only shrink */
	fl->done = 1;
	heap[0] = t;
	on[t] = 1;
	for (size_t m = 0; m < x->nev; m++)
		sh[(size_t)t * x->nev + m] = 1;
	return flat_run(x, fl, sh, on, heap, 1, limit) ? fl : NULL;
}

/* The calls that function f of SCC u makes inside a cut below parent
 * (u's weights: sh times w), to its callees' flat contexts; the calls
 * inside u only with insc. */
static void flat_calls(struct expand *x, uint32_t u, uint32_t f,
		       const double *sh, const double *w, pc_id parent,
		       int insc)
{
	if (x->calls == PC_NONE)
		return;
	const struct cg_graph *g = x->g;
	for (size_t m = 0; m < x->nev; m++)
		x->uw[m] = sh[m] * w[m];
	for (uint32_t j = x->edge_start[f]; j < x->edge_start[f + 1]; j++) {
		uint32_t e = x->edge_idx[j];
		if (!insc && x->scc_of[g->edges[e].to] == u)
			continue;
		double n = edge_calls(x, u, x->uw, e);
		if (n != 0)
			add_calls(x, call_ctx(x, parent,
					      g->fns[g->edges[e].to].func), n);
	}
}

/* Function f's self cost per position below parent, weighted by sh
 * times w. */
static void lay_fn_flat(struct expand *x, uint32_t f, const double *sh,
			const double *w, pc_id parent)
{
	if (x->rec_start[f] == x->rec_start[f + 1])
		return;
	lay_records(x, f, call_ctx(x, parent, x->g->fns[f].func), sh, w);
}

/* Lays out a cut below `parent`: each function of the flat profile once,
 * with its self cost per position, weighted by w. */
static void lay_flat(struct expand *x, const struct flat *fl, pc_id parent,
		     const double *w)
{
	for (size_t i = 0; i < fl->n; i++) {
		const struct scc *c = &x->sccs[fl->scc[i]];
		const double *sh = fl->share + i * x->nev;
		for (uint32_t k = 0; k < c->n; k++) {
			uint32_t f = x->members[c->first + k];
			flat_calls(x, fl->scc[i], f, sh, w, parent, 1);
			lay_fn_flat(x, f, sh, w, parent);
		}
	}
}

/* A member node of an opened instance that did not fit, as a cut below
 * its call site: the members of its subtree once each (with all the
 * instance's calls into them: fold_calls; a cut node is never the
 * entry, whose node is laid out when the instance is opened), then the
 * flat profile of the SCCs they call. Returns 0 if it is larger than
 * limit. */
static int cut_member(struct expand *x, const struct work *it,
		      const double *w, double *sh, uint8_t *on,
		      uint32_t *heap, size_t limit)
{
	const struct onode *nd = x->nodes + x->obase[it->inst];
	struct flat fl = { 0 };
	size_t nh = 0;
	for (uint32_t k = it->node; k < nd[it->node].end; k++)
		fl.size += 1 + x->npos[nd[k].fn];
	if (fl.size > limit)
		return 0;
	for (uint32_t k = it->node; k < nd[it->node].end; k++)
		spread_fn(x, it->scc, nd[k].fn, x->ones, sh, on, heap, &nh);
	if (!flat_run(x, &fl, sh, on, heap, nh, limit))
		return 0;
	for (uint32_t k = it->node; k < nd[it->node].end; k++) {
		uint32_t f = nd[k].fn;
		flat_calls(x, it->scc, f, x->ones, w, it->parent, 0);
		lay_fn_flat(x, f, x->ones, w, it->parent);
		add_calls(x, call_ctx(x, it->parent, x->g->fns[f].func),
			  fold_calls(x, it->scc, w, f));
	}
	lay_flat(x, &fl, it->parent, w);
	free(fl.scc);
	free(fl.share);
	return 1;
}

/* Scratch for the anchors' rests: per function the weight reached and
 * the calls into it, the functions touched, the SCC shares. */
struct restwalk {
	double *wf;   /* nfns x nev */
	double *cin;  /* nfns */
	uint32_t *list;
	size_t n;
	double *sh;   /* nsccs x nev, zeroed */
};

static void touch(struct expand *x, struct restwalk *rw, uint32_t f)
{
	if (x->visit[f] != x->stamp) {
		x->visit[f] = x->stamp;
		rw->list[rw->n++] = f;
	}
}

/* The rest of anchor an: its cuts' flat profiles in one pass over the
 * SCCs (callers before callees, shares passed on as for a cut below its
 * call site), giving each function reached its weight and the calls
 * into it (rw's lists). */
static void walk_rest(struct expand *x, const struct anchor *an,
		      struct restwalk *rw)
{
	size_t nev = x->nev;
	const struct cg_graph *g = x->g;
	double *rest = rw->sh;
	memcpy(rest, an->rest, x->nsccs * nev * sizeof(double));
	x->stamp++;
	rw->n = 0;
	for (size_t u = x->nsccs; u-- > 0;) {
		double *su = rest + u * nev;
		int whole = any_positive(su, nev);
		const struct scc *c = &x->sccs[u];
		for (uint32_t k = 0; k < c->n; k++) {
			uint32_t f = x->members[c->first + k];
			const double *fw = an->frest ? an->frest +
						(size_t)f * nev : NULL;
			int part = fw && any_positive(fw, nev);
			if (!whole && !part)
				continue;
			for (size_t m = 0; m < nev; m++)
				x->rw[m] = su[m] + (part ? fw[m] : 0);
			spread_fn(x, (uint32_t)u, f, x->rw, rest, NULL, NULL,
				  NULL);
			touch(x, rw, f);
			for (size_t m = 0; m < nev; m++)
				rw->wf[(size_t)f * nev + m] += x->rw[m];
			if (x->calls == PC_NONE)
				continue;
			/* its calls: all of a whole SCC's, those out of
			 * the SCC for a member node's */
			for (uint32_t j = x->edge_start[f];
			     j < x->edge_start[f + 1]; j++) {
				uint32_t e = x->edge_idx[j];
				uint32_t t = g->edges[e].to;
				double n = whole ? edge_calls(x, (uint32_t)u,
							      su, e) : 0;
				if (part && x->scc_of[t] != u)
					n += edge_calls(x, (uint32_t)u, fw, e);
				if (n != 0) {
					touch(x, rw, t);
					rw->cin[t] += n;
				}
			}
		}
		memset(su, 0, nev * sizeof(double));
	}
	for (uint32_t f = 0; f < g->nfns; f++)
		if (an->calls[f] != 0) {
			touch(x, rw, f);
			rw->cin[f] += an->calls[f];
		}
}

static void free_rest(struct anchor *an)
{
	free(an->rest);
	free(an->frest);
	free(an->calls);
	an->rest = an->frest = an->calls = NULL;
}

/* Shares are put in buckets of a quarter power of two. */
#define CG_NBUCKETS 256
static unsigned bucket_of(double share)
{
	/* floor(-4 log2(share)): share = f 2^e, f in [0.5, 1) */
	int e;
	double f = frexp(share, &e);
	int b = -4 * e + (f == 0.5 ? 4 : f <= 0.59460355750136051 ? 3 :
			  f <= 0.70710678118654757 ? 2 :
			  f <= 0.84089641525371450 ? 1 : 0);
	return b >= CG_NBUCKETS - 1 ? CG_NBUCKETS - 1 : b < 0 ? 0 : (unsigned)b;
}

/* Function f's self cost with weights w laid out below ctx, with the
 * calls into it. */
static void lay_settled(struct expand *x, uint32_t f, const double *w,
			double calls, pc_id ctx)
{
	pc_id fctx = PC_NONE;
	if (x->rec_start[f] != x->rec_start[f + 1] && any_positive(w, x->nev)) {
		fctx = call_ctx(x, ctx, x->g->fns[f].func);
		lay_records(x, f, fctx, NULL, w);
	}
	if (calls != 0)
		add_calls(x, fctx != PC_NONE ? fctx :
			  call_ctx(x, ctx, x->g->fns[f].func), calls);
}

/* Per anchor: the functions its descendants passed up to it, with
 * their weights (nev each), the calls into them and the lowest anchor
 * above all the rests they came from. */
struct carry {
	uint32_t *f, *src;
	double *w, *c;
	size_t n, cap;
};

static void carry_add(struct carry *cr, size_t nev, uint32_t f,
		      const double *w, double calls, uint32_t src)
{
	if (cr->n == cr->cap) {
		cr->cap = cr->cap ? 2 * cr->cap : 64;
		cr->f = pc_xrealloc(cr->f, cr->cap, sizeof(uint32_t));
		cr->src = pc_xrealloc(cr->src, cr->cap, sizeof(uint32_t));
		cr->w = pc_xrealloc(cr->w, cr->cap * nev, sizeof(double));
		cr->c = pc_xrealloc(cr->c, cr->cap, sizeof(double));
	}
	cr->f[cr->n] = f;
	cr->src[cr->n] = src;
	memcpy(cr->w + cr->n * nev, w, nev * sizeof(double));
	cr->c[cr->n++] = calls;
}

/* The lowest anchor above both a and b (an anchor's index is larger
 * than those of the anchors above it). */
static uint32_t anchor_lca(const struct expand *x, uint32_t a, uint32_t b)
{
	while (a != b)
		if (a > b)
			a = x->anchors[a].up;
		else
			b = x->anchors[b].up;
	return a;
}

/* Anchor a's rest (with rest) and what its descendants passed up to it,
 * summed per function in rw (its touched list), with in src the lowest
 * anchor above the rests each function's weight came from. */
static void gather(struct expand *x, uint32_t a, struct carry *cr,
		   int rest, struct restwalk *rw, uint32_t *src)
{
	size_t nev = x->nev;
	if (rest && x->anchors[a].rest) {
		walk_rest(x, &x->anchors[a], rw);
		free_rest(&x->anchors[a]);
		for (size_t i = 0; i < rw->n; i++)
			src[rw->list[i]] = a;
	} else {
		x->stamp++;
		rw->n = 0;
	}
	struct carry *c = &cr[a];
	for (size_t i = 0; i < c->n; i++) {
		uint32_t f = c->f[i];
		size_t n = rw->n;
		touch(x, rw, f);
		src[f] = rw->n > n ? c->src[i] : anchor_lca(x, src[f], c->src[i]);
		for (size_t m = 0; m < nev; m++)
			rw->wf[(size_t)f * nev + m] += c->w[i * nev + m];
		rw->cin[f] += c->c[i];
	}
	free(c->f);
	free(c->src);
	free(c->w);
	free(c->c);
	*c = (struct carry){ 0 };
}

/* Contexts laying out function f with weights w (and calls) takes at
 * most. */
static size_t settled_size(const struct expand *x, uint32_t f,
			   const double *w, double calls)
{
	if (x->rec_start[f] != x->rec_start[f + 1] && any_positive(w, x->nev))
		return 1 + x->npos[f];
	return calls != 0;
}

struct ranked {
	double share;
	uint32_t f;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return x->f < y->f ? -1 : x->f > y->f;
}

/* Lays out the anchors' rests within `avail` contexts (with rootroom:
 * and the entry point's own part), anchors below their
 * ancestors. Each function an anchor's cuts reach is laid out below the
 * anchor if its cost there is heavy enough and room is left; else it is
 * passed up to the anchor above, where it is summed with what that
 * anchor has of the same function, and so on. What reaches the entry
 * point is laid out once per function (room for that flat profile is
 * kept throughout), below the lowest anchor above all the rests its
 * weight came from; the roots' own cuts are the entry point's. A
 * function in both goes there whole, unless room is left to lay it out
 * in both places (the heaviest first). */
static void lay_rests(struct expand *x, size_t avail, pc_id entry)
{
	const struct cg_graph *g = x->g;
	size_t nev = x->nev, nf = g->nfns, na = x->nanchors;
	struct restwalk rw = {
		.wf = pc_xcalloc(nf * nev + 1, sizeof(double)),
		.cin = pc_xcalloc(nf + 1, sizeof(double)),
		.list = pc_xmalloc((nf + 1) * sizeof(uint32_t)),
		.sh = pc_xcalloc(x->nsccs * nev + 1, sizeof(double)),
	};
	const double *self = x->fself;
	/* room kept for the last flat profile: the flat profile and the
	 * functions without cost */
	size_t keep = x->reserve + x->nocost;
	size_t end = used(x) + avail; /* nothing beyond */
	/* the sizes of the functions below anchors per share bucket; the
	 * buckets that fit are laid out below their anchors */
	size_t hist[CG_NBUCKETS] = { 0 };
	for (size_t a = 1; a < na; a++) {
		struct anchor *an = &x->anchors[a];
		if (!an->rest)
			continue;
		walk_rest(x, an, &rw);
		for (size_t i = 0; i < rw.n; i++) {
			uint32_t f = rw.list[i];
			double *w = rw.wf + (size_t)f * nev;
			double sh = share_of(x, w, self + (size_t)f * nev);
			if (sh > 0)
				hist[bucket_of(sh)] += 1 + x->npos[f];
			memset(w, 0, nev * sizeof(double));
			rw.cin[f] = 0;
		}
	}
	unsigned last = 0; /* buckets [0, last) fit */
	size_t room = avail > keep ? avail - keep : 0, sum = 0;
	while (last < CG_NBUCKETS && sum + hist[last] <= room)
		sum += hist[last++];
	struct carry *cr = pc_xcalloc(na + 1, sizeof(*cr));
	uint32_t *src = pc_xmalloc((nf + 1) * sizeof(uint32_t));
	/* the roots' own cuts: the entry point's, aside (w0, c0) */
	double *w0 = pc_xcalloc(nf * nev + 1, sizeof(double));
	double *c0 = pc_xcalloc(nf + 1, sizeof(double));
	uint8_t *in0 = pc_xcalloc(nf + 1, 1);
	size_t size0 = 0;
	gather(x, 0, cr, 1, &rw, src);
	for (size_t i = 0; i < rw.n; i++) {
		uint32_t f = rw.list[i];
		double *w = rw.wf + (size_t)f * nev;
		size0 += settled_size(x, f, w, rw.cin[f]);
		in0[f] = 1;
		memcpy(w0 + (size_t)f * nev, w, nev * sizeof(double));
		c0[f] = rw.cin[f];
		memset(w, 0, nev * sizeof(double));
		rw.cin[f] = 0;
	}
	if (x->rootroom)
		end += size0;
	for (size_t a = na; a-- > 1;) {
		if (!x->anchors[a].rest && !cr[a].n)
			continue;
		gather(x, (uint32_t)a, cr, 1, &rw, src);
		for (size_t i = 0; i < rw.n; i++) {
			uint32_t f = rw.list[i];
			double *w = rw.wf + (size_t)f * nev;
			double sh = share_of(x, w, self + (size_t)f * nev);
			size_t sz = settled_size(x, f, w, rw.cin[f]);
			if (sh > 0 && bucket_of(sh) < last &&
			    used(x) + sz + keep <= end)
				lay_settled(x, f, w, rw.cin[f],
					    x->anchors[a].ctx);
			else
				carry_add(&cr[x->anchors[a].up], nev, f, w,
					  rw.cin[f], src[f]);
			memset(w, 0, nev * sizeof(double));
			rw.cin[f] = 0;
		}
	}
	/* what reached the entry point: each function below the lowest
	 * anchor above its rests; with the roots' part too if room is
	 * left for both (the heaviest first), else whole at the entry
	 * point */
	gather(x, 0, cr, 0, &rw, src);
	size_t need = size0, n = 0;
	struct ranked *both = pc_xmalloc((rw.n + 1) * sizeof(*both));
	for (size_t i = 0; i < rw.n; i++) {
		uint32_t f = rw.list[i];
		const double *w = rw.wf + (size_t)f * nev;
		if (!in0[f])
			need += settled_size(x, f, w, rw.cin[f]);
		else if (src[f] != 0)
			both[n++] = (struct ranked){
				share_of(x, w, self + (size_t)f * nev), f };
	}
	qsort(both, n, sizeof(*both), cmp_ranked);
	size_t spare = used(x) + need <= end ? end - used(x) - need : 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t f = both[i].f;
		size_t sz = settled_size(x, f, rw.wf + (size_t)f * nev,
					 rw.cin[f]);
		if (sz > spare)
			src[f] = 0;
		else
			spare -= sz;
	}
	free(both);
	double *flat = pc_xcalloc(nev, sizeof(double)); /* at the entry */
	double *below = pc_xcalloc(nev, sizeof(double)); /* at anchors */
	for (uint32_t f = 0; f < nf; f++) {
		double *w = rw.wf + (size_t)f * nev, *v = w0 + (size_t)f * nev;
		const double *sf = self + (size_t)f * nev;
		if (x->visit[f] == x->stamp && src[f] != 0) {
			for (size_t m = 0; m < nev; m++)
				below[m] += w[m] * sf[m];
			lay_settled(x, f, w, rw.cin[f],
				    x->anchors[src[f]].ctx);
		} else if (x->visit[f] == x->stamp) {
			for (size_t m = 0; m < nev; m++)
				v[m] += w[m];
			c0[f] += rw.cin[f];
		}
		for (size_t m = 0; m < nev; m++)
			flat[m] += v[m] * sf[m];
		lay_settled(x, f, v, c0[f], entry);
	}
	x->flat_share = share_of(x, x->ones, flat);
	x->top_share = share_of(x, x->ones, below);
	free(flat);
	free(below);
	free(w0);
	free(c0);
	free(in0);
	free(src);
	free(cr);
	free(rw.wf);
	free(rw.cin);
	free(rw.list);
	free(rw.sh);
}

/* The anchor of work `it` laid out now, entering at function fn: a new
 * one if it is heavy enough. */
static uint32_t anchor_at(struct expand *x, const struct work *it,
			  uint32_t fn)
{
	if (it->share < CG_ANCHOR_SHARE || x->nanchors >= UINT32_MAX)
		return it->anchor;
	PC_GROW(x->anchors, x->nanchors, x->capanchors);
	x->anchors[x->nanchors] = (struct anchor){
		.ctx = call_ctx(x, it->parent, x->g->fns[fn].func),
		.up = it->anchor,
	};
	return (uint32_t)x->nanchors++;
}

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
static size_t flat_floor(struct expand *x)
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
		qsort(k, m, 2 * sizeof(uint64_t), cmp_pos);
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
static size_t default_cap(struct expand *x, const struct pc_import_opts *opts,
			  size_t *limit)
{
	if (opts && opts->max_contexts)
		return *limit = x->budget;
	/* a context's bytes: some 62 + 137 per metric it has a value of
	 * (measured); as many as a cost line has on average, and calls */
	const struct cg_graph *g = x->g;
	double metrics = g->nonzero / (double)(g->ncost ? g->ncost : 1) +
			 (x->calls != PC_NONE);
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
	double tight = 28.0 * input_bytes(x) / ctxbytes;
	if ((double)*limit > tight) {
		size_t least = x->reserve + x->nocost + 1024;
		*limit = tight > (double)least ? (size_t)tight : least;
		x->budget = *limit - x->nocost;
		x->tight = 1;
		cap = x->budget;
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

pc_id *pc_cg_expand(struct pc_db *db, const struct cg_graph *g, pc_id profile,
		    pc_id entry, const struct pc_import_opts *opts,
		    size_t *norder)
{
	*norder = 0;
	if (!g->nfns)
		return NULL;
	struct expand x = {
		.db = db, .g = g, .nev = g->nev, .profile = profile,
		.start = db->ncontexts,
		.instr_ctx = cg_instr_ctx(g, opts),
	};
	x.shared = pc_xcalloc(x.start / 8 + 1, 1);
	/* the entry point first (made before, by every reader) */
	x.shared[entry >> 3] |= (unsigned char)(1u << (entry & 7));
	first_laid(&x, entry);
	csr(g->nfns, g->nrecs, g->recs, sizeof(*g->recs),
	    offsetof(struct cg_rec, fn), &x.rec_start, &x.rec_idx);
	csr(g->nfns, g->nedges, g->edges, sizeof(*g->edges),
	    offsetof(struct cg_edge, from), &x.edge_start, &x.edge_idx);
	find_sccs(&x);
	scc_costs(&x);
	x.efrac = pc_xmalloc((g->nedges * x.nev + 1) * sizeof(double));
	for (size_t e = 0; e < g->nedges; e++)
		for (size_t m = 0; m < x.nev; m++)
			x.efrac[e * x.nev + m] = ratio(
				(double)g->ecost[e * x.nev + m],
				x.incl[(size_t)x.scc_of[g->edges[e].to] * x.nev + m]);
	/* the flat profile (every function once with its positions) is
	 * the floor; by default as much again goes to calling context, and
	 * at least room for one instance of the largest recursive cluster
	 * (an interpreter's) and half the floor more: some 20-30 times a
	 * line-level input as a database */
	x.npos = pc_xcalloc(g->nfns + 1, sizeof(uint32_t));
	x.reserve = flat_floor(&x);
	for (uint32_t f = 0; f < g->nfns; f++)
		x.nocost += x.rec_start[f] == x.rec_start[f + 1];
	size_t big = 0;
	x.isize = pc_xmalloc((x.nsccs + 1) * sizeof(size_t));
	for (uint32_t s = 0; s < x.nsccs; s++) {
		size_t n = x.isize[s] = instance_size(&x, s);
		big = n > big ? n : big;
	}
	size_t extra = big + x.reserve / 2 > x.reserve ? big + x.reserve / 2 :
							 x.reserve;
	x.budget = opts && opts->max_contexts ? opts->max_contexts :
		   x.reserve + extra + 1024;
	x.visit = pc_xcalloc(g->nfns, sizeof(uint32_t));
	x.grand = pc_xcalloc(x.nev + 1, sizeof(double));
	x.laid = pc_xcalloc(x.nev + 1, sizeof(double));
	x.fself = pc_xcalloc(g->nfns * x.nev + 1, sizeof(double));
	for (size_t r = 0; r < g->nrecs; r++)
		for (size_t m = 0; m < x.nev; m++) {
			double c = (double)g->rcost[r * x.nev + m];
			x.grand[m] += c;
			x.fself[(size_t)g->recs[r].fn * x.nev + m] += c;
		}
	x.flats = pc_xcalloc(x.nsccs + 1, sizeof(*x.flats));
	x.ones = pc_xmalloc((x.nev + 1) * sizeof(double));
	for (size_t m = 0; m < x.nev; m++)
		x.ones[m] = 1;
	x.calls = PC_NONE;
	for (size_t e = 0; e < g->nedges && x.calls == PC_NONE; e++)
		if (g->edges[e].count)
			x.calls = pc_metric_get(
				db, PC_CALLS_METRIC,
				"Calls of the function from its call site "
				"(Callgrind calls= counts); inclusive: the "
				"calls made in the subtree", "calls");
	x.fcalls = pc_xcalloc(g->nfns, sizeof(double));
	x.fctx = pc_xcalloc(g->nfns, sizeof(pc_id));
	x.uw = pc_xmalloc((x.nev + 1) * sizeof(double));
	x.rw = pc_xmalloc((x.nev + 1) * sizeof(double));
	x.acc = pc_xmalloc((x.nev + 1) * sizeof(double));
	size_t hard; /* the bound of everything, rests included */
	size_t cap = default_cap(&x, opts, &hard);
	size_t room = x.budget > x.reserve ? x.budget - x.reserve : 0;
	size_t caproom = cap > x.reserve ? cap - x.reserve : 0;
	x.room = room;
	x.caproom = caproom;
	x.maxnodes = cap;
	/* the contexts this may add (a default bound: and the roots' own
	 * rest, at most a flat profile, see lay_rests), and values: a value
	 * per event (and calls) for each, twice (a context's cost may come
	 * in parts) */
	size_t most = hard > x.reserve ? hard : x.reserve;
	x.rootroom = !(opts && opts->max_contexts) && !x.tight;
	if (x.rootroom)
		most += x.reserve + x.nocost;
	pc_ctx_reserve(db, most);
	pc_values_reserve(db, most > SIZE_MAX / (2 * x.nev + 2) ?
				      SIZE_MAX : most * (2 * x.nev + 2));

	struct workheap ws = { 0 };
	double *w = pc_xmalloc(x.nev * sizeof(double));
	double *wchild = pc_xmalloc(x.nev * sizeof(double));
	char *called = pc_xcalloc(g->nfns, 1);
	for (size_t e = 0; e < g->nedges; e++)
		if (x.scc_of[g->edges[e].from] == x.scc_of[g->edges[e].to])
			called[g->edges[e].to] = 1;
	/* anchors: the entry point, and work laid out with CG_ANCHOR_SHARE
	 * of a metric's total or more; the rests of maxstore anchors take
	 * at most some 16 MiB (a rest is dense: per SCC and function) */
	x.anchors = pc_xcalloc(1, sizeof(*x.anchors));
	x.anchors[0] = (struct anchor){ .ctx = entry };
	x.nanchors = x.capanchors = 1;
	x.maxstore = (16u << 20) / (((x.nsccs + g->nfns) * x.nev + g->nfns) *
				    sizeof(double) + 1);
	if (x.maxstore > 256)
		x.maxstore = 256;
	/* roots: SCCs with activity no caller accounts for */
	for (uint32_t f = 0; f < g->nfns; f++) {
		uint32_t s = x.scc_of[f];
		if (x.members[x.sccs[s].first] != f)
			continue; /* visit each SCC once, at its first member */
		if (any_positive(x.root + (size_t)s * x.nev, x.nev) &&
		    any_positive(x.total + (size_t)s * x.nev, x.nev))
			push_work(&x, &ws, s, root_entry(&x, called, s), entry,
				  x.root + (size_t)s * x.nev, 0);
	}
	/* best first, while the room lasts */
	size_t ncut = 0;
	struct work *cuts = NULL;
	size_t capcuts = 0;
	size_t next_progress = 1u << 16;
	while (ws.n) {
		struct work it = pop_work(&ws);
		if (used(&x) >= next_progress) {
			pc_progress(db->diag, "building the calling-context tree",
				    used(&x), cap, UINT64_MAX);
			next_progress = used(&x) + (1u << 16);
		}
		memcpy(w, ws.pool + it.w, x.nev * sizeof(double));
		size_t lim = it.share >= CG_MIN_SHARE ? caproom : room;
		if (it.inst == UINT32_MAX &&
		    used(&x) + x.isize[it.scc] <= lim) {
			x.cur = anchor_at(&x, &it, it.entry);
			expand_instance(&x, &ws, &it, w, wchild);
			continue;
		}
		/* an instance that does not fit whole is laid out member by
		 * member, each member node (with its subtree) competing
		 * with all other pending work */
		if (it.inst == UINT32_MAX && x.sccs[it.scc].n > 1 &&
		    used(&x) + member_size(&x, it.entry) <= lim) {
			it.inst = open_instance(&x, &it, w);
			it.node = 0; /* the entry: laid out now */
		}
		if (it.inst != UINT32_MAX &&
		    (it.node == 0 ||
		     used(&x) + member_size(&x, x.nodes[x.obase[it.inst] +
							 it.node].fn) <= lim)) {
			x.cur = anchor_at(&x, &it,
					  x.nodes[x.obase[it.inst] + it.node].fn);
			expand_member(&x, &ws, &it, w, wchild);
			continue;
		}
		note_cut(&x, it.share);
		PC_GROW(cuts, ncut, capcuts);
		cuts[ncut++] = it;
		/* once nothing can fit (what is pending is no heavier than
		 * this), the rest are cuts too, taken as they lie: they all
		 * go below the entry point, since no room is left for a
		 * cut below its call site */
		if (used(&x) >= caproom ||
		    (it.share < CG_MIN_SHARE && used(&x) >= room)) {
			for (size_t i = 0; i < ws.n; i++)
				cut_to_rest(&x, &ws.items[i],
					    ws.pool + ws.items[i].w);
			ws.n = 0;
		}
	}
	/* the cuts, heaviest first: each instance's flat profile below its
	 * call site while the budget lasts; the rest are summed per SCC and
	 * laid out once, flat below the entry point */
	double *sh = pc_xcalloc(x.nsccs * x.nev + 1, sizeof(double));
	uint8_t *on = pc_xcalloc(x.nsccs + 1, 1);
	uint32_t *heap = pc_xmalloc((x.nsccs + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < ncut; i++) {
		const struct work *it = &cuts[i];
		const double *wc = ws.pool + it->w;
		if (used(&x) + x.reserve < x.budget) {
			size_t limit = x.budget - x.reserve - used(&x);
			if (it->inst != UINT32_MAX) {
				if (cut_member(&x, it, wc, sh, on, heap, limit))
					continue;
			} else {
				const struct flat *fl = flat_of(
					&x, it->scc, sh, on, heap, limit);
				if (fl) {
					lay_flat(&x, fl, it->parent, wc);
					add_calls(&x,
						  call_ctx(&x, it->parent,
							   g->fns[it->entry]
								   .func),
						  it->calls);
					continue;
				}
			}
		}
		to_rest(&x, it, wc);
	}
	lay_rests(&x, hard > used(&x) ? hard - used(&x) : 0, entry);
	free(x.anchors);
	free(x.rw);
	free(x.acc);
	free(x.isize);
	free(x.obase);
	free(x.nodes);
	free(x.own);
	free(x.fold);
	free(x.par);
	free(x.sub);
	free(x.fcalls);
	free(x.fctx);
	free(x.uw);
	if (next_progress > (1u << 16))
		pc_progress_done(db->diag);
	double cut_share = 0; /* the largest of any metric */
	for (size_t m = 0; x.ncut && m < x.nev; m++)
		if (x.grand[m] > 0 && 1 - x.laid[m] / x.grand[m] > cut_share)
			cut_share = 1 - x.laid[m] / x.grand[m];
	if (x.ncut)
		pc_note(db->diag, "the call tree keeps its heaviest calling "
			"contexts%s; %.2g%% of the cost is summed per function "
			"below them (totals and self costs exact). More: "
			"--max-contexts=N; where: --verbose; why: README, 'From "
			"a call graph to a calling-context tree'",
			x.viewer ? " that hpcviewer can read (a meta.db of "
				   "2 GiB at most)" : "",
			100 * cut_share);
	if (x.ncut && db->diag && db->diag->verbose) {
		char where[CG_WHERE] = "";
		size_t n = 0;
		if (x.top_share > 0)
			n = (size_t)snprintf(where, sizeof where, "%.2g%% below "
				"the lowest caller above all of a function's "
				"cuts", 100 * x.top_share);
		if (x.flat_share > 0 && n < sizeof where)
			snprintf(where + n, sizeof where - n,
				 "%s%.2g%% flat below the entry point",
				 n ? "; " : "", 100 * x.flat_share);
		pc_note(db->diag, "call tree cut at %zu contexts (budget %zu%s, "
			"--max-contexts to change): about %.3g%% of the cost "
			"lies below %zu cuts (the heaviest %.2g%%), kept per "
			"function and line below each cut, or else below the "
			"nearest caller above it with 1%% or more that has "
			"room%s%s%s%s",
			used(&x), x.budget,
			cap > x.budget && used(&x) > x.budget ?
				", more for contexts above 0.01%" : "",
			100 * cut_share, x.ncut, 100 * x.heaviest,
			*where ? " (" : "", where, *where ? ")" : "",
			opts && opts->max_contexts && used(&x) > x.budget ?
				" (the flat profile alone needs more than the "
				"budget)" : "");
	}
	free(sh);
	free(on);
	free(heap);
	free(cuts);
	for (size_t s = 0; s < x.nsccs; s++) {
		free(x.flats[s].scc);
		free(x.flats[s].share);
	}
	free(x.flats);
	free(x.grand);
	free(x.laid);
	free(x.fself);
	free(x.ones);
	free(x.npos);
	free(called);
	free(w);
	free(wchild);
	free(ws.items);
	free(ws.pool);
	free(x.visit);
	free(x.shared);
	free(x.rec_start);
	free(x.rec_idx);
	free(x.edge_start);
	free(x.edge_idx);
	free(x.scc_of);
	free(x.sccs);
	free(x.members);
	free(x.incl);
	free(x.efrac);
	free(x.total);
	free(x.root);
	*norder = x.norder;
	return x.order;
}
