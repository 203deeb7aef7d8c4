/* HPCToolkit v4 databases: profile.db and trace.db, profile by profile.
 * The values of context ids that meta.db elides are placed by
 * hpctoolkit_place.c from the residuals of all profiles (place()); with
 * a writer that streams, profile.db is then read a second time, and
 * each profile is handed on with what place() gave it (see
 * doc/design.md, "Profiles as the unit of streaming"). */
#include "hpctoolkit_v4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The first section of profile.db and trace.db starts with the same
 * fields: a pointer to an array, its length (u32) and stride (u8). */
static int array_header(struct reader *r, const struct pc_blob *b,
			uint64_t hdrlen, uint64_t minstride, const char *what,
			uint64_t *p, uint64_t *n, uint64_t *stride)
{
	uint64_t s = pc_v4_sec_ptr(b, 0);
	NEED(r, b, s, hdrlen, "first section header");
	*p = pc_getle(b->p + s, 8);
	*n = pc_getle(b->p + s + 8, 4);
	*stride = b->p[s + 0xc];
	if (*n && *stride < minstride)
		return pc_v4_fail_at(r, b, s + 0xc, "%s entries of %llu bytes, below "
				     "%llu", what, (unsigned long long)*stride,
				     (unsigned long long)minstride);
	if (*n > b->n / minstride)
		return pc_v4_fail_at(r, b, s + 8, "%llu %s entries cannot fit in the "
				     "file", (unsigned long long)*n, what);
	NEED(r, b, *p, *n * *stride, what);
	return 0;
}

static int cmp_elided(const void *a, const void *b)
{
	const struct pc_value *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* Adds the point values of elided ids to the visible contexts they
 * belong to (hpctoolkit_place.c), and binds each placed id to its
 * context for trace.db. Where some ids have no single place, the
 * visible contexts' residuals still say how much of their values each
 * context holds: when they account for those values exactly, each
 * context takes its part, and each such id is bound, for trace.db, to
 * the deepest context that certainly holds it (r->vague lists them).
 * Otherwise (stored scopes that do not add up the standard way) such an
 * id goes to a line "[elided contexts, place undecided]" below that
 * context, with stored scopes equal to its point values; one that fits
 * nowhere to a placeholder below the unknown entry (pc_v4_ctx_of). */
/* A value place() gives a profile: a point value, and with scoped its
 * stored scopes too (an id kept in a placeholder line). */
static void add(struct reader *r, pc_id prof, pc_id c, pc_id m, double v,
		int scoped)
{
	PC_GROW(r->adds, r->nadds, r->capadds);
	r->adds[r->nadds++] = (struct add){ prof, c, m, scoped, v };
}

static int place(struct reader *r)
{
	if (!r->nel)
		return 0;
	qsort(r->el, r->nel, sizeof(*r->el), cmp_elided);
	struct pc_hpc_placed pd = {
		.where = pc_xmalloc(r->nel * sizeof(pc_id)),
		.exact = pc_xmalloc(r->nel),
	};
	pc_hpc_place(r->db, r->el, r->nel, &r->resid, &pd);
	double lost = 0, total = 0;
	for (size_t i = 0, e = 0; i < r->nel; e++) {
		uint32_t id = r->el[i].ctx;
		pc_id c = pd.where[e];
		int exact = pd.exact[e];
		if (!exact && pd.accounted) {
			PC_GROW(r->vague, r->nvague, r->capvague);
			r->vague[r->nvague++] = id; /* el is sorted by id */
		} else if (!exact && c != PC_NONE) {
			if (c == 0) /* only entry points hang there */
				c = pc_ctx_entry(r->db, PC_ENTRY_UNKNOWN);
			struct pc_context k = {
				.kind = PC_CTX_LINE, .rel = PC_REL_LEXICAL,
				.file = pc_file_get(r->db, "[elided contexts, "
							   "place undecided]"),
				.module = PC_NONE, .function = PC_NONE,
			};
			c = pc_ctx_child(r->db, c, &k);
		}
		if (c != PC_NONE)
			pc_v4_ctx_bind(r, &r->meta, 0, id, c);
		else
			c = pc_v4_ctx_of(r, id);
		for (; i < r->nel && r->el[i].ctx == id; i++) {
			const struct pc_value *v = &r->el[i];
			total += fabs(v->value);
			if (!exact && pd.accounted)
				continue; /* in pd.rest, by context */
			add(r, v->profile, c, v->metric, v->value, !exact);
			if (!exact)
				lost += fabs(v->value);
		}
	}
	for (size_t i = 0; i < pd.nrest; i++)
		add(r, pd.rest[i].profile, pd.rest[i].ctx, pd.rest[i].metric,
		    pd.rest[i].value, 0);
	if (pd.undecided && !pd.accounted)
		pc_warn(r->db->diag, "%s: %zu elided context(s) (%.3g%% of "
			"their values) have no single place that their values "
			"prove, and the stored scopes of the visible contexts do not "
			"add up to them; they are kept in a line \"[elided "
			"contexts, place undecided]\" below the deepest "
			"context that holds every place each could have",
			r->prof.path, pd.undecided,
			total ? 100 * lost / total : 0.0);
	free(pd.where);
	free(pd.exact);
	free(pd.rest);
	free(r->resid.r);
	r->resid.r = NULL;
	if (r->db->sink) {
		/* for the second pass: the distinct elided ids (is_elided),
		 * and what place() gave grouped by profile, stably */
		r->elids = pc_xmalloc(r->nel * sizeof(uint32_t));
		for (size_t i = 0; i < r->nel; i++)
			if (!r->nelids || r->elids[r->nelids - 1] != r->el[i].ctx)
				r->elids[r->nelids++] = r->el[i].ctx;
		struct add *by = pc_xmalloc((r->nadds + 1) * sizeof(*by));
		size_t *at = pc_xcalloc((size_t)r->nprof + 2, sizeof(size_t));
		pc_id p0 = r->first_profile;
		for (size_t i = 0; i < r->nadds; i++)
			at[r->adds[i].profile - p0 + 1]++;
		for (uint32_t i = 0; i <= r->nprof; i++)
			at[i + 1] += at[i];
		for (size_t i = 0; i < r->nadds; i++)
			by[at[r->adds[i].profile - p0]++] = r->adds[i];
		free(at);
		free(r->adds);
		r->adds = by;
	}
	free(r->el);
	r->el = NULL;
	return 0;
}

/* The values place() gave: all of them (prof PC_NONE), or those of
 * profile prof from r->adds[a] on (grouped by profile); returns where
 * the next profile's begin. */
static size_t placed_values(struct reader *r, pc_id prof, size_t a)
{
	for (; a < r->nadds && (prof == PC_NONE || r->adds[a].profile == prof);
	     a++) {
		const struct add *x = &r->adds[a];
		pc_value_add(r->db, x->profile, x->ctx, x->metric, x->v);
		for (unsigned s = 1; x->scoped && s < PC_NSCOPES; s++)
			pc_scoped_add(r->db, x->profile, x->ctx, x->metric, s,
				      x->v);
	}
	return a;
}

/* Whether a sorted array of ids holds id. */
static int has_id(const uint32_t *a, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == id;
}

static int is_vague(const struct reader *r, uint32_t id)
{
	return has_id(r->vague, r->nvague, id);
}

static int is_elided(const struct reader *r, uint32_t id)
{
	return has_id(r->elids, r->nelids, id);
}

/* trace.db's header and lines, checked before any value is read (the
 * samples of a profile are added with its values): r->lines by profile
 * index. No trace.db: no lines. */
static int trace_index(struct reader *r)
{
	struct pc_blob *b = &r->trace;
	int rc = pc_v4_map_file(r, b, "trace.db", 1);
	if (rc)
		return rc > 0 ? 0 : -1;
	if (pc_v4_file_header(r, b, "trce", "trace.db", 1))
		return -1;
	uint64_t pt, nt, szt;
	if (array_header(r, b, 0x20, 0x18, "trace header", &pt, &nt, &szt))
		return -1;
	r->lines = pc_xmalloc((nt ? nt : 1) * sizeof(*r->lines));
	for (uint64_t i = 0; i < nt; i++) {
		uint64_t e = pt + i * szt;
		uint32_t pi = (uint32_t)pc_getle(b->p + e, 4);
		uint64_t a = pc_getle(b->p + e + 8, 8), z = pc_getle(b->p + e + 0x10, 8);
		if (pi >= r->nprof || r->prof_id[pi] == PC_NONE)
			return pc_v4_fail_at(r, b, e, "trace of profile %u, which is "
					     "not a measured profile", pi);
		if (z < a || (z - a) % 12 || !pc_v4_ok_range(b, a, z - a))
			return pc_v4_fail_at(r, b, e + 8, "trace line [0x%llx, "
					     "0x%llx) is not whole samples inside "
					     "the file", (unsigned long long)a,
					     (unsigned long long)z);
		r->lines[i] = (struct pc_tline){ pi, a, z };
	}
	r->tfirst = pc_tlines_group(r->lines, nt, r->nprof);
	return 0;
}

/* The samples of profile index i, in the order of its lines. */
static void trace_samples(struct reader *r, uint32_t i)
{
	const struct pc_blob *b = &r->trace;
	if (!r->tfirst)
		return;
	for (uint64_t k = r->tfirst[i]; k < r->tfirst[i + 1]; k++) {
		const struct pc_tline *l = &r->lines[k];
		for (uint64_t x = l->a; x < l->z; x += 12) {
			uint32_t id = (uint32_t)pc_getle(b->p + x + 8, 4);
			pc_trace_add(r->db, r->prof_id[i], pc_getle(b->p + x, 8),
				     pc_v4_ctx_of(r, id));
			if (r->nvague)
				r->nvaguesamples += is_vague(r, id);
			pc_blob_read(&r->trace, 1); /* (in a long line too) */
		}
	}
}

/* With writer threads (-j) the tree is frozen at the first profile done:
 * the contexts trace samples name that meta.db does not have are made
 * before it (after place() has bound the elided ids it placed), in the
 * order reading the profiles would make them (profile by profile; no
 * value makes a context), so their ids are the same. */
static void trace_contexts(struct reader *r)
{
	struct pc_blob *b = &r->trace;
	if (!r->tfirst || !r->db->async)
		return;
	for (uint32_t i = 0; i < r->nprof; i++)
		for (uint64_t k = r->tfirst[i]; r->prof_id[i] != PC_NONE &&
						k < r->tfirst[i + 1]; k++) {
			const struct pc_tline *l = &r->lines[k];
			for (uint64_t x = l->a; x < l->z; x += 12) {
				pc_v4_ctx_of(r, (uint32_t)pc_getle(b->p + x + 8,
								   4));
				pc_blob_read(b, 1);
			}
		}
}

static void vague_warning(struct reader *r)
{
	if (r->nvaguesamples)
		pc_warn(r->db->diag, "%s: %llu trace sample(s) name elided "
			"contexts whose place the stored scopes do not decide "
			"(several places fit them exactly, or the search did "
			"not finish); they show the deepest context certain to "
			"hold them", r->trace.path,
			(unsigned long long)r->nvaguesamples);
}

/* Whether a profile's values name a ctxId meta.db does not have (an
 * elided context). A damaged index counts as yes: the reading proper
 * reports it. */
static int has_elided(const struct reader *r, const struct pc_blob *b,
		      uint64_t pp, uint64_t np, uint64_t szp)
{
	for (uint64_t i = 0; i < np; i++) {
		if (r->prof_id[i] == PC_NONE)
			continue;
		const unsigned char *e = b->p + pp + i * szp;
		uint64_t nc = pc_getle(e + 0x10, 4), pc = pc_getle(e + 0x18, 8);
		if (pc > b->n || nc > (b->n - pc) / 12)
			return 1;
		for (uint64_t k = 0; k < nc; k++) {
			uint32_t ctx = (uint32_t)pc_getle(b->p + pc + 12 * k, 4);
			if (ctx && pc_v4_ctx_lookup(r, ctx) == PC_NONE)
				return 1;
		}
		pc_blob_read((struct pc_blob *)b, nc);
	}
	return 0;
}

/* What a stored value of the pre-release layout gives besides itself:
 * its function scope is what hpcviewer showed as exclusive, the
 * lex_aware column of today's; an entry's inclusive value is its
 * children's, the top contexts of that layout's tree. */
static void prerelease_value(struct reader *r, pc_id prof, pc_id c, pc_id m,
			     unsigned sc, double d)
{
	pc_id up = r->db->contexts[c].parent;
	if (sc == PC_SCOPE_FUNCTION)
		pc_scoped_add(r->db, prof, c, m, PC_SCOPE_LEXAWARE, d);
	else if (sc == PC_SCOPE_EXECUTION && c &&
		 r->db->contexts[up].kind == PC_CTX_ENTRY)
		pc_scoped_add(r->db, prof, up, m, sc, d);
}

struct xkey {
	pc_id ctx, metric;
	size_t i; /* index in r->dx */
};

static int cmp_xkey(const void *a, const void *b)
{
	const struct xkey *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* The point values of profile prof's metrics without a point scope:
 * point(c) = execution(c) - the execution of c's children (r->dx, in
 * the file's order), exact for whole numbers (profconv leaves point out
 * only for them: struct pc_metric, whole), within rounding otherwise
 * (pc_point_of); a parent without an execution value of its own gets
 * the negated sum. */
static void derive_points(struct reader *r, pc_id prof)
{
	size_t n = r->ndx;
	if (!n)
		return;
	struct xkey *k = pc_xmalloc(n * sizeof(*k));
	double *kids = pc_xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		k[i] = (struct xkey){ r->dx[i].ctx, r->dx[i].metric, i };
	qsort(k, n, sizeof(*k), cmp_xkey);
	struct pc_value *orphan = NULL;
	size_t norphan = 0, caporphan = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pc_value *x = &r->dx[i];
		if (x->ctx == 0)
			continue;
		struct xkey key = { r->db->contexts[x->ctx].parent, x->metric,
				    0 };
		const struct xkey *f = bsearch(&key, k, n, sizeof(*k),
					       cmp_xkey);
		if (f) {
			kids[f->i] += x->value;
			continue;
		}
		size_t o = 0;
		while (o < norphan && (orphan[o].ctx != key.ctx ||
				       orphan[o].metric != key.metric))
			o++;
		if (o == norphan) {
			PC_GROW(orphan, norphan, caporphan);
			orphan[norphan++] = (struct pc_value){ prof, key.ctx,
							       key.metric, 0 };
		}
		orphan[o].value -= x->value;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pc_value *x = &r->dx[i];
		double p = pc_point_of(x->value, kids[i]);
		if (p != 0)
			pc_value_add(r->db, prof, x->ctx, x->metric, p);
	}
	for (size_t o = 0; o < norphan; o++)
		if (orphan[o].value != 0)
			pc_value_add(r->db, prof, orphan[o].ctx,
				     orphan[o].metric, orphan[o].value);
	free(orphan);
	free(kids);
	free(k);
	r->ndx = 0;
}

enum { V_POINT = 1, V_DERIVE = 2, V_SCOPE = 4 };

/* r->act: what becomes of each propMetricId's values in a read that
 * keeps the stored scopes or not (scopes). */
static void make_act(struct reader *r, int scopes)
{
	for (size_t id = 0; id < 65536; id++) {
		pc_id m = r->prop[id].metric;
		unsigned sc = r->prop[id].scope;
		r->act[id] = m == PC_NONE ? 0 :
			     sc == PC_SCOPE_POINT ? V_POINT :
			     (sc == PC_SCOPE_EXECUTION && r->derive[m] ?
				      V_DERIVE : 0) |
			     (scopes ? V_SCOPE : 0);
	}
}

/* The n values at y of a context the model has (ctx): what becomes of
 * a value was decided for each id once (r->act), so an output of point
 * values skips the stored scopes, three values in four, in a few
 * instructions. */
static const unsigned char *visible_values(struct reader *r, pc_id prof,
					   pc_id ctx, const unsigned char *y,
					   uint64_t n)
{
	struct pc_db *db = r->db;
	const uint8_t *act = r->act;
	for (const unsigned char *end = y + 10 * n; y < end; y += 10) {
		uint16_t id = (uint16_t)pc_getle(y, 2);
		unsigned a = act[id];
		if (!a)
			continue;
		pc_id m = r->prop[id].metric;
		double d = pc_getlef64(y + 2);
		if (!isfinite(d))
			return y;
		if (a == V_POINT) {
			pc_value_add(db, prof, ctx, m, d);
			continue;
		}
		if (a & V_DERIVE) {
			PC_GROW(r->dx, r->ndx, r->capdx);
			r->dx[r->ndx++] = (struct pc_value){ prof, ctx, m, d };
		}
		if (a & V_SCOPE) {
			unsigned sc = r->prop[id].scope;
			pc_scoped_add(db, prof, ctx, m, sc, d);
			if (r->prerelease)
				prerelease_value(r, prof, ctx, m, sc, d);
		}
	}
	return NULL;
}

/* A value that is not a finite number (NaN, infinity): refused where it
 * is, as no output or viewer can show it. */
static int not_finite(struct reader *r, const struct pc_blob *b,
		      const unsigned char *y)
{
	double d = pc_getlef64(y + 2);
	return pc_v4_fail_at(r, b, (uint64_t)(y - b->p) + 2,
			     "value %s of metric id %u is not a finite "
			     "number", isnan(d) ? "NaN" : d > 0 ? "+infinity" :
			     "-infinity", (unsigned)pc_getle(y, 2));
}

/* The values of profile index i (its info entry at e): point values and
 * (scopes) stored scopes into the model, with room reserved for this
 * profile's (reserve: the model holds one profile at a time); those of
 * elided ids into r->el (el), or skipped (the second pass of a
 * streaming read: placed already). */
static int profile_values(struct reader *r, uint64_t i, uint64_t e,
			  int scopes, int reserve, int el)
{
	struct pc_blob *b = &r->prof;
	uint64_t nv = pc_getle(b->p + e, 8), pv = pc_getle(b->p + e + 8, 8);
	uint64_t nc = pc_getle(b->p + e + 0x10, 4), pc = pc_getle(b->p + e + 0x18, 8);
	if (nv > b->n / 10 || nc > b->n / 12)
		return pc_v4_fail_at(r, b, e, "profile %llu: value block "
				     "larger than the file",
				     (unsigned long long)i);
	NEED(r, b, pv, nv * 10, "profile values");
	NEED(r, b, pc, nc * 12, "profile context indices");
	if (reserve && nv <= b->n / 10) {
		pc_values_reserve(r->db, (size_t)nv);
		if (scopes)
			pc_scoped_reserve(r->db, (size_t)nv);
	}
	/* the contexts are taken in the model's order, not the file's:
	 * the values then come as pc_profile_prepare sorts them (the
	 * same values, summed in the same order where two ids share a
	 * context), and are not sorted again there (nc: 32 bits) */
	if (2 * nc > r->capord) {
		free(r->ord);
		r->capord = 2 * (size_t)nc;
		r->ord = pc_xmalloc(r->capord * sizeof(*r->ord) + 1);
	}
	for (uint64_t k = 0; k < nc; k++) {
		const unsigned char *x = b->p + pc + 12 * k;
		uint32_t ctx = (uint32_t)pc_getle(x, 4);
		uint64_t start = pc_getle(x + 4, 8);
		uint64_t end = k + 1 < nc ? pc_getle(x + 16, 8) : nv;
		if (start > end || end > nv)
			return pc_v4_fail_at(r, b, pc + 12 * k + 4,
					     "startIndex %llu out of order "
					     "or past nValues %llu",
					     (unsigned long long)start,
					     (unsigned long long)nv);
		r->ord[k] = (struct pc_keyidx){
			ctx == 0 ? 0 : pc_v4_ctx_lookup(r, ctx), (uint32_t)k
		};
	}
	pc_keyidx_sort(r->ord, (size_t)nc);
	for (uint64_t j = 0; j < nc; j++) {
		uint64_t k = r->ord[j].idx;
		const unsigned char *x = b->p + pc + 12 * k;
		/* the model's order is not the file's: the values a few
		 * contexts ahead, and their index entries further ahead,
		 * are asked for before they are needed */
		if (j + 16 < nc)
			__builtin_prefetch(b->p + pc +
					   12 * (uint64_t)r->ord[j + 16].idx);
		if (j + 8 < nc) {
			const unsigned char *ahead =
				b->p + pc + 12 * (uint64_t)r->ord[j + 8].idx;
			__builtin_prefetch(b->p + pv +
					   10 * pc_getle(ahead + 4, 8));
		}
		uint32_t ctx = (uint32_t)pc_getle(x, 4);
		uint64_t start = pc_getle(x + 4, 8);
		uint64_t end = k + 1 < nc ? pc_getle(x + 16, 8) : nv;
		pc_id mctx = r->ord[j].key;
		/* the second pass: place() bound the elided ids it placed,
		 * and gave their values (placed_values) */
		if (!el && mctx != PC_NONE && ctx && is_elided(r, ctx))
			mctx = PC_NONE;
		pc_blob_read(b, end - start);
		if (mctx != PC_NONE) {
			const unsigned char *bad = visible_values(
				r, r->prof_id[i], mctx, b->p + pv + 10 * start,
				end - start);
			if (bad)
				return not_finite(r, b, bad);
			continue;
		}
		/* elided: only its point values belong anywhere (see
		 * place()); the pre-release layout's are inside the stored
		 * scopes of the visible contexts, and hpcviewer showed them
		 * only so */
		for (uint64_t v = start; v < end; v++) {
			const unsigned char *y = b->p + pv + 10 * v;
			uint16_t id = (uint16_t)pc_getle(y, 2);
			pc_id m = r->prop[id].metric;
			if (m == PC_NONE)
				continue;
			if (r->prerelease) {
				r->prerelease_elided += el;
				continue;
			}
			double d = pc_getlef64(y + 2);
			if (!isfinite(d))
				return not_finite(r, b, y);
			if (r->prop[id].scope == PC_SCOPE_POINT && d != 0 &&
			    el) {
				PC_GROW(r->el, r->nel, r->capel);
				r->el[r->nel++] = (struct pc_value){
					r->prof_id[i], ctx, m, d };
			}
		}
	}
	derive_points(r, r->prof_id[i]);
	return 0;
}

/* -j: the profiles of a database without elided ids read on several
 * threads (pc_read_profiles), each in a copy of the reader. */
struct share {
	struct reader *r;
	uint64_t pp, szp;
	int scopes;
};

struct share_copy {
	struct reader r;
	const struct share *x;
};

static void *share_copy(void *ctx, struct pc_db *shadow, struct pc_err *err)
{
	const struct share *x = ctx;
	struct share_copy *c = pc_xmalloc(sizeof(*c));
	c->r = *x->r;
	c->r.db = shadow;
	c->r.err = err;
	c->r.dx = NULL;
	c->r.ndx = c->r.capdx = 0;
	c->r.ord = NULL;
	c->r.capord = 0;
	c->r.prerelease_elided = 0;
	c->x = x;
	return c;
}

static int share_read(void *copy, uint64_t i)
{
	struct share_copy *c = copy;
	if (profile_values(&c->r, i, c->x->pp + i * c->x->szp, c->x->scopes,
			   1, 1))
		return -1;
	trace_samples(&c->r, (uint32_t)i);
	return 0;
}

static void share_merge(void *ctx, void *copy)
{
	struct share *x = ctx;
	struct share_copy *c = copy;
	x->r->prerelease_elided += c->r.prerelease_elided;
	free(c->r.dx);
	free(c->r.ord);
	free(c);
}

int pc_v4_read_profiles(struct reader *r)
{
	struct pc_blob *b = &r->prof;
	if (pc_v4_map_file(r, b, "profile.db", 0))
		return -1;
	if (pc_v4_file_header(r, b, "prof", "_prof.db", 2))
		return -1;
	uint64_t pp, np, szp;
	/* the pre-release layout's entries end at pIdTuple (0x28 bytes):
	 * the summary is the profile without an id tuple */
	if (array_header(r, b, 0xd, r->prerelease ? 0x28 : 0x30,
			 "profile info", &pp, &np, &szp))
		return -1;
	r->nprof = (uint32_t)np;
	r->first_profile = (pc_id)r->db->nprofiles;
	r->prof_id = pc_xmalloc((np + 1) * sizeof(pc_id));
	for (uint64_t i = 0; i < np; i++) {
		uint64_t e = pp + i * szp;
		uint64_t tuple = pc_getle(b->p + e + 0x20, 8);
		uint32_t flags = szp >= 0x2c ?
			(uint32_t)pc_getle(b->p + e + 0x28, 4) : tuple == 0;
		r->prof_id[i] = PC_NONE;
		if (flags & 1)
			continue; /* summary statistics are derived again */
		struct pc_idelem ids[64];
		uint32_t nids = 0;
		if (tuple) {
			NEED(r, b, tuple, 8, "id tuple");
			nids = (uint32_t)pc_getle(b->p + tuple, 2);
			if (nids > 64)
				return pc_v4_fail_at(r, b, tuple, "id tuple of %u "
						     "elements", nids);
			NEED(r, b, tuple + 8, 16 * (uint64_t)nids, "id tuple");
			for (uint32_t k = 0; k < nids; k++) {
				const unsigned char *x = b->p + tuple + 8 + 16 * k;
				if (r->kind_of[x[0]] == PC_ID_NKINDS)
					return pc_v4_fail_at(
						      r, b, tuple + 8 + 16 * k,
						      "id tuple kind %u (%s) is "
						      "not one of the kinds "
						      "HPCToolkit defines (SUMMARY, "
						      "NODE, RANK, THREAD, "
						      "GPUDEVICE, GPUCONTEXT, "
						      "GPUSTREAM, CORE); profconv "
						      "cannot carry it", x[0],
						      r->kind_name[x[0]]);
				ids[k] = (struct pc_idelem){
					.kind = r->kind_of[x[0]],
					.is_physical = (uint16_t)(pc_getle(x + 2, 2) & 1),
					.logical = pc_getle(x + 4, 4),
					.physical = pc_getle(x + 8, 8),
				};
				if (!ids[k].is_physical)
					ids[k].physical = 0;
			}
		}
		r->prof_id[i] = pc_profile_add(r->db, ids, nids);
	}
	if (trace_index(r))
		return -1;
	/* the direct table, and room for the values (a point value and up
	 * to three stored scopes each: reserved, untouched room is free) */
	uint32_t max = 0;
	for (size_t i = 0; i < r->nids; i++)
		max = r->ids[i].id > max ? r->ids[i].id : max;
	if (r->nids && max / 4 <= r->nids && max < UINT32_MAX) {
		r->ndense = max + 1;
		r->dense = pc_xmalloc(r->ndense * sizeof(pc_id));
		for (uint32_t i = 0; i < r->ndense; i++)
			r->dense[i] = PC_NONE;
		for (size_t i = 0; i < r->nids; i++)
			r->dense[r->ids[i].id] = r->ids[i].ctx;
	}
	uint64_t total = 0;
	for (uint64_t i = 0; i < np; i++)
		if (r->prof_id[i] != PC_NONE)
			total += pc_getle(b->p + pp + i * szp, 8);
	/* stored scopes decide where elided values go; without elided ids
	 * and for an output of point values, they are not kept (3/4 of a
	 * database's values) */
	int any = (r->point_only || r->db->sink || r->db->share_n > 1) &&
		  has_elided(r, b, pp, np, szp);
	int elided = (r->point_only || r->db->sink) && any;
	int scopes = !r->point_only || elided;
	/* a profile is complete once its values and its trace are read,
	 * unless elided ids are placed over all profiles (place()): then
	 * once they are, in a second pass */
	int stream = r->db->sink && !elided;
	r->db->nplanned = r->db->nprofiles;
	if (!stream && total <= b->n / 10) {
		pc_values_reserve(r->db, (size_t)total);
		if (scopes)
			pc_scoped_reserve(r->db, (size_t)total);
	}
	/* the scopes meta.db gives a metric are stored, even where no
	 * value of a profile is: so each profile is written alike, whether
	 * it comes before or after the first stored value */
	for (size_t m = r->m0; scopes && m < r->db->nmetrics; m++)
		r->db->metrics[m].stored |= r->db->metrics[m].scopes &
					    (uint8_t)~(1u << PC_SCOPE_POINT);
	make_act(r, scopes);
	/* values, profile by profile; with elided ids, the residuals of
	 * each profile are kept for place() (and, streaming, its values
	 * dropped: a second pass reads them again once the ids are placed) */
	uint8_t *elm = pc_xcalloc(r->db->nmetrics + 1, 1);
	int rc = 0;
	if (stream)
		trace_contexts(r);
	/* MPI: this rank's share of the profiles; with elided ids (placed
	 * over all profiles at once) rank 0 reads them all */
	pc_id *own = pc_share_profiles(r->db, r->prof_id, np, any);
	const pc_id *mine = own ? own : r->prof_id;
	/* -j: on several threads (no profile waits for another) */
	int threads = stream && pc_reader_threads(r->db, r->jobs) > 1 &&
		      r->db->async && np > 2;
	if (threads) {
		static const struct pc_profile_reader ops = {
			share_copy, share_read, share_merge,
		};
		struct share x = { r, pp, szp, scopes };
		rc = pc_read_profiles(r->db, r->jobs, np, mine, &ops, &x,
				      r->err);
	}
	for (uint64_t i = 0; i < np && !rc && !threads; i++) {
		if (mine[i] == PC_NONE)
			continue;
		size_t v0 = r->db->nvalues, s0 = r->db->nscoped, e0 = r->nel;
		rc = profile_values(r, i, pp + i * szp, scopes, stream || elided,
				    1);
		if (!rc && r->nel > e0) {
			memset(elm, 0, r->db->nmetrics);
			for (size_t k = e0; k < r->nel; k++)
				elm[r->el[k].metric] = 1;
			pc_values_coalesce_from(r->db, v0, s0);
			struct pc_db *db = r->db;
			size_t n = db->nvalues - v0, sn = db->nscoped - s0;
			/* no offset on a NULL array */
			pc_hpc_residuals(db, r->prof_id[i],
					 n ? db->values + v0 : NULL, n,
					 sn ? db->scoped + s0 : NULL, sn, elm,
					 &r->resid);
		}
		if (!rc && stream) {
			trace_samples(r, (uint32_t)i);
			rc = pc_profile_done(r->db, r->prof_id[i], r->err);
		} else if (!rc && r->db->sink) {
			r->db->nvalues = v0; /* read again in the second pass */
			r->db->nscoped = s0;
		}
	}
	free(elm);
	if (rc) {
		free(own);
		return -1;
	}
	if (r->prerelease_elided)
		pc_warn(r->db->diag, "%s: %llu value(s) at context ids meta.db "
			"does not list (pre-release layout): left out, as "
			"hpcviewer left them; the stored scopes of the visible "
			"contexts hold them", b->path,
			(unsigned long long)r->prerelease_elided);
	if (r->prerelease)
		pc_warn(r->db->diag, "%s: the pre-release 4.0 layout (hpcprof "
			"of early 2022): its function scope is written as the "
			"exclusive (lex_aware) value too, as hpcviewer showed it",
			r->dir);
	if (place(r)) {
		free(own);
		return -1;
	}
	if (r->db->sink && !stream) {
		/* the second pass: each profile's values again, with the
		 * elided ids' values where they were placed, and its trace */
		size_t a = 0;
		trace_contexts(r);
		for (uint64_t i = 0; i < np && !rc; i++) {
			if (mine[i] == PC_NONE)
				continue;
			rc = profile_values(r, i, pp + i * szp, scopes, 1, 0);
			if (rc)
				break;
			a = placed_values(r, r->prof_id[i], a);
			trace_samples(r, (uint32_t)i);
			rc = pc_profile_done(r->db, r->prof_id[i], r->err);
		}
	} else if (!stream) {
		placed_values(r, PC_NONE, 0);
		/* the traces, once elided ids are placed (their samples
		 * show the contexts they went to) */
		for (uint32_t i = 0; i < r->nprof; i++)
			if (mine[i] != PC_NONE)
				trace_samples(r, i);
	}
	vague_warning(r);
	free(own);
	return rc;
}

