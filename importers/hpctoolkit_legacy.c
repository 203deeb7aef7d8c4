/* Old HPCToolkit databases: experiment.xml 2.x (values inline, plus
 * per-thread *.metric-db files and *.hpctrace traces) and
 * experiment.xml 4.0 with HPCPROF-profile.db/trace.db (the 2020-2022
 * "prof2" writer). See doc/formats.md for the layouts and
 * doc/design.md for how values are recovered.
 *
 * experiment.xml is read with libxml2's streaming reader: no network,
 * no external DTD, and a document that declares entities is refused
 * before anything is expanded. Every id (metric, module, file,
 * procedure, context) is resolved through the XML's tables.
 *
 * Values: the old formats store inclusive (I) and exclusive (E) values
 * per context. Both are kept as stored execution and function scopes,
 * so the v4 database shows exactly what hpcviewer showed; the point
 * values (what Callgrind output and the lex_aware scope are made of)
 * are recovered by differencing: point(x) = I(x) - the I of x's
 * children that carry values. */
#include "pc.h"
#include "internal.h"
#include "buf.h"
#include "hpctoolkit_legacy.h"
#include "hpctoolkit_legacy_libxml.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Values: stored scopes as they are, points by differencing.         */

/* Eight nodes in a row (a profile's values come in the order of their
 * nodes, and a node's parent is often near it) hash side by side, so
 * that their cells share cache lines. */
static uint64_t cell_hash(uint32_t node, uint32_t metric)
{
	return pc_hash64((uint64_t)(node >> 3) << 32 | metric) + (node & 7);
}

static void cells_grow(struct legacy *r);

static struct cell *cell_at(struct legacy *r, uint32_t node, uint32_t metric)
{
	if (2 * (r->ncells + 1) > r->capcells)
		cells_grow(r);
	size_t mask = r->capcells - 1;
	for (size_t h = cell_hash(node, metric) & mask;; h = (h + 1) & mask) {
		struct cell *c = &r->cells[h];
		if (c->node == UINT32_MAX) {
			*c = (struct cell){ node, metric, 0, 0 };
			r->taken[h / 64] |= (uint64_t)1 << (h % 64);
			r->ncells++;
			return c;
		}
		if (c->node == node && c->metric == metric)
			return c;
	}
}

/* The table for a profile of nv values, of a size that depends on it
 * alone: the order put_points adds the points in is the same whichever
 * thread reads the profile after whichever other (-j). */
static void cells_size(struct legacy *r, uint64_t nv)
{
	size_t cap = 1024;
	while (cap < 2 * nv && cap < ((size_t)1 << 40))
		cap *= 2;
	if (cap == r->capcells)
		return;
	free(r->cells);
	free(r->taken);
	r->cells = pc_xmalloc(cap * sizeof(*r->cells));
	r->taken = pc_xcalloc(cap / 64, sizeof(uint64_t));
	r->capcells = cap;
	r->ncells = 0;
	for (size_t i = 0; i < cap; i++)
		r->cells[i].node = UINT32_MAX;
}

/* Twice the room (the table is kept at most half full). */
static void cells_grow(struct legacy *r)
{
	size_t cap = r->capcells ? 2 * r->capcells : 1024;
	struct cell *old = r->cells;
	size_t oldcap = r->capcells;
	free(r->taken);
	r->cells = pc_xmalloc(cap * sizeof(*r->cells));
	r->taken = pc_xcalloc(cap / 64, sizeof(uint64_t));
	r->capcells = cap;
	r->ncells = 0;
	for (size_t i = 0; i < cap; i++)
		r->cells[i].node = UINT32_MAX;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].node != UINT32_MAX) {
			struct cell *c = cell_at(r, old[i].node, old[i].metric);
			c->own = old[i].own;
			c->kids = old[i].kids;
		}
	free(old);
}

/* What put_value adds: the point values (and the cells they come
 * from), the stored scopes. */
enum { PUT_POINTS = 1, PUT_SCOPES = 2, PUT_ALL = 3 };

/* One measured value: node index, column, value; what (PUT_*). */
static void put_value(struct legacy *r, pc_id prof, uint32_t node,
		      const struct mcol *col, double v, int what)
{
	if (v == 0)
		return;
	const struct node *n = &r->nodes[node];
	uint8_t has = r->mscopes[col->metric];
	if (col->scope == SC_NONE) {
		if (what & PUT_POINTS)
			pc_value_add(r->db, prof, n->ctx, col->metric, v);
		return;
	}
	/* the stored value, kept for outputs that write scopes */
	if ((what & PUT_SCOPES) && !n->folded && !r->point_only)
		pc_scoped_add(r->db, prof, n->ctx, col->metric,
			      col->scope == SC_INCL ? PC_SCOPE_EXECUTION
						    : PC_SCOPE_FUNCTION, v);
	/* points from I; from E only for metrics without I (a child
	 * frame's E is not part of its parent's) */
	if ((what & PUT_POINTS) &&
	    (col->scope == SC_INCL || !(has & (1 << SC_INCL)))) {
		cell_at(r, node, col->metric)->own += v;
		if (node && (col->scope == SC_INCL || !n->frame))
			cell_at(r, n->parent, col->metric)->kids += v;
	}
}

/* The points of the profile just read, in the table's order; clears
 * the cells. */
static void put_points(struct legacy *r, pc_id prof)
{
	for (size_t w = 0; w < r->capcells / 64; w++) {
		for (uint64_t b = r->taken[w]; b; b &= b - 1) {
			struct cell *c = &r->cells[64 * w + (size_t)__builtin_ctzll(b)];
			double p = pc_point_of(c->own, c->kids);
			if (p != 0)
				pc_value_add(r->db, prof, r->nodes[c->node].ctx,
					     c->metric, p);
			c->node = UINT32_MAX;
		}
		r->taken[w] = 0;
	}
	r->ncells = 0;
}

static void note_scopes(struct legacy *r)
{
	free(r->mscopes);
	r->mscopes = pc_xcalloc(r->db->nmetrics + 1, 1);
	for (size_t i = 0; i < r->ncols; i++) {
		const struct mcol *c = &r->cols[i];
		r->mscopes[c->metric] |= (uint8_t)(1 << c->scope);
		/* a scope the database has a column of is a stored one, even
		 * where no value of a profile is: so every profile is written
		 * alike, whether it comes before or after the first value */
		if (c->scope != SC_NONE && !r->point_only)
			r->db->metrics[c->metric].stored |= (uint8_t)(
				1u << (c->scope == SC_INCL ? PC_SCOPE_EXECUTION :
							     PC_SCOPE_FUNCTION));
	}
}

/* ------------------------------------------------------------------ */
/* Big-endian binaries.                                               */

static double be_f64(const unsigned char *p)
{
	uint64_t u = pc_getbe(p, 8);
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

static int need(struct legacy *r, const struct pc_blob *b, uint64_t off,
		uint64_t len, const char *what)
{
	if (off <= b->n && len <= b->n - off)
		return 0;
	return pc_err_at_off(r->err, b->path, off, "%s runs past the end of "
			     "the file (%llu bytes)", what,
			     (unsigned long long)b->n);
}

/* prof2's common header: magic, version 1.0 or 4.0, a count of
 * entries of entsize bytes in the first section, which must hold them
 * inside the file. */
static int prof2_header(struct legacy *r, const struct pc_blob *b,
			const char *magic, uint64_t entsize, const char *what,
			uint64_t *count, uint64_t *ptr)
{
	if (b->n < 0x28)
		return pc_err_at_off(r->err, b->path, 0, "file too short for "
				     "its header (%llu bytes)",
				     (unsigned long long)b->n);
	if (memcmp(b->p, magic, 16))
		return pc_err_at_off(r->err, b->path, 0, "not a %.16s file",
				     magic);
	if (!((b->p[16] == 1 || b->p[16] == 4) && b->p[17] == 0))
		return pc_err_at_off(r->err, b->path, 16, "version %u.%u (1.0 "
				     "and 4.0 are read)", b->p[16], b->p[17]);
	*count = pc_getbe(b->p + 18, 4);
	uint64_t size = pc_getbe(b->p + 24, 8);
	*ptr = pc_getbe(b->p + 32, 8);
	if (*count > size / entsize)
		return pc_err_at_off(r->err, b->path, 18, "%llu entries in the "
				     "%s section, which holds %llu",
				     (unsigned long long)*count, what,
				     (unsigned long long)(size / entsize));
	return need(r, b, *ptr, *count * entsize, what);
}

/* The number of contexts cct.db lists (UINT64_MAX without cct.db):
 * profile.db may hold ids the XML leaves out, but not more. Its values
 * are not read (all zero in real files; profile.db has them). */
static int cct_count(struct legacy *r, uint64_t *n)
{
	struct pc_blob b;
	*n = UINT64_MAX;
	int rc = pc_blob_map(&b, r->dir, "cct.db", 1, r->err);
	if (rc)
		return rc > 0 ? 0 : -1;
	uint64_t ptr;
	rc = prof2_header(r, &b, "HPCPROF-cctdb___", 22, "context info", n,
			  &ptr);
	pc_blob_unmap(&b);
	return rc;
}

/* 4.x trace.db's header and lines, checked before any value is read:
 * a profile's samples are added with its values (trace_samples). */
static int trace_index(struct legacy *r, const pc_id *prof_of, uint32_t nprof)
{
	struct pc_blob *b = &r->tb;
	int rc = pc_blob_map(b, r->dir, "trace.db", 1, r->err);
	if (rc)
		return rc > 0 ? 0 : -1;
	uint64_t nt, hp;
	if (prof2_header(r, b, "HPCPROF-tracedb_", 22, "trace header", &nt,
			 &hp))
		return -1;
	r->tl = pc_xmalloc((nt ? nt : 1) * sizeof(*r->tl));
	size_t n = 0;
	unsigned skipped = 0;
	for (uint64_t i = 0; i < nt; i++) {
		const unsigned char *h = b->p + hp + 22 * i;
		uint32_t pi = (uint32_t)pc_getbe(h, 4);
		uint64_t a = pc_getbe(h + 6, 8), z = pc_getbe(h + 14, 8);
		if (pc_getbe(h + 4, 2) != 0) {
			skipped++; /* a metric trace: not in the model */
			continue;
		}
		if (pi >= nprof || prof_of[pi] == PC_NONE)
			return pc_err_at_off(r->err, b->path, hp + 22 * i,
					     "trace of profile %u, which is "
					     "not a measured profile", pi);
		if (z == a)
			continue; /* an empty trace: its pointers are padded */
		if (z < a || (z - a) % 12)
			return pc_err_at_off(r->err, b->path, hp + 22 * i + 6,
					     "trace line [%llu, %llu) is not "
					     "whole 12-byte samples",
					     (unsigned long long)a,
					     (unsigned long long)z);
		if (need(r, b, a, z - a, "trace line"))
			return -1;
		r->tl[n++] = (struct pc_tline){ pi, a, z };
	}
	r->tfirst = pc_tlines_group(r->tl, n, nprof);
	if (skipped)
		pc_warn(r->db->diag, "%s: %u metric trace(s) skipped (the "
			"model keeps calling-context traces)", b->path, skipped);
	return 0;
}

/* The trace samples of profile index pi (model profile prof). */
static int trace_samples(struct legacy *r, uint32_t pi, pc_id prof)
{
	struct pc_blob *b = &r->tb;
	for (uint64_t k = r->tfirst ? r->tfirst[pi] : 0;
	     r->tfirst && k < r->tfirst[pi + 1]; k++) {
		const struct pc_tline *l = &r->tl[k];
		for (uint64_t x = l->a; x < l->z; x += 12) {
			uint32_t it = (uint32_t)pc_getbe(b->p + x + 8, 4), ctx;
			if (!idtab_get(&r->it_t, it, &ctx))
				return pc_err_at_off(r->err, b->path, x + 8,
						     "trace sample names "
						     "context %u, which no "
						     "element of experiment.xml "
						     "has as its 'it'", it);
			pc_trace_add(r->db, prof, pc_getbe(b->p + x, 8), ctx);
			pc_blob_read(b, 1); /* (in a long line too) */
		}
	}
	return 0;
}

/* Profile i of HPCPROF-profile.db (its info entry in pi), model profile
 * prof: its values and points into r->db, then its trace. */
static int read_one(struct legacy *r, struct pc_blob *b, uint64_t pi,
		    uint64_t i, pc_id prof, uint64_t nctx)
{
	uint64_t e = pi + 52 * i;
	uint64_t nv = pc_getbe(b->p + e + 32, 8);
	uint64_t nc = pc_getbe(b->p + e + 40, 4);
	uint64_t off = pc_getbe(b->p + e + 44, 8);
	if (nv > b->n / 10 || nc > b->n / 12) {
		pc_err_at_off(r->err, b->path, e + 32, "profile %llu: "
			      "%llu values at %llu contexts, more than "
			      "the file can hold", (unsigned long long)i,
			      (unsigned long long)nv,
			      (unsigned long long)nc);
		return -1;
	}
	if (need(r, b, off, nv * 10 + (nc + 1) * 12, "value block"))
		return -1;
	cells_size(r, nv);
	const unsigned char *cx = b->p + off + nv * 10;
	if (nc > r->capord / 2) {
		free(r->ord);
		r->capord = 2 * (size_t)nc;
		r->ord = pc_xmalloc(r->capord * sizeof(*r->ord) + 1);
	}
	size_t no = 0;
	/* the points in the file's order (the cells' table gives them its
	 * own), the stored scopes below in the model's (they come sorted
	 * as pc_profile_prepare wants them: the same values, summed in the
	 * same order where two nodes share a context) */
	for (uint64_t k = 0; k < nc; k++) {
		uint32_t id = (uint32_t)pc_getbe(cx + 12 * k, 4);
		uint64_t s = pc_getbe(cx + 12 * k + 4, 8);
		uint64_t z = pc_getbe(cx + 12 * (k + 1) + 4, 8);
		uint32_t node;
		if (s > z || z > nv) {
			pc_err_at_off(r->err, b->path, off + nv * 10 +
				      12 * k + 4, "value index %llu "
				      "out of order or past %llu",
				      (unsigned long long)s,
				      (unsigned long long)nv);
			return -1;
		}
		if (!idtab_get(&r->node_t, id, &node)) {
			/* a context the XML leaves out (an
			 * instruction below a statement): its
			 * values are inside its visible
			 * ancestors' inclusive values */
			if (id >= nctx) {
				pc_err_at_off(r->err, b->path, off +
					      nv * 10 + 12 * k,
					      "context id %u is neither "
					      "in experiment.xml nor "
					      "among cct.db's %llu "
					      "contexts", id,
					      (unsigned long long)nctx);
				return -1;
			}
			r->elided++; /* said at the end */
			continue;
		}
		for (uint64_t v = s; v < z; v++) {
			const unsigned char *y = b->p + off + 10 * v;
			uint32_t m = (uint32_t)pc_getbe(y + 8, 2), c;
			if (!idtab_get(&r->col_t, m, &c)) {
				pc_err_at_off(r->err, b->path,
					      off + 10 * v + 8,
					      "metric id %u is not in "
					      "experiment.xml's "
					      "MetricDBTable", m);
				return -1;
			}
			put_value(r, prof, node, &r->cols[c], be_f64(y),
				  PUT_POINTS);
		}
		r->ord[no++] = (struct pc_keyidx){ r->nodes[node].ctx,
						   (uint32_t)k };
	}
	pc_keyidx_sort(r->ord, no);
	size_t g0 = 0; /* the values of the context at hand start there */
	for (size_t j = 0; j < no && !r->point_only; j++) {
		uint64_t k = r->ord[j].idx;
		uint32_t node = 0, c = 0; /* (both found in the first pass) */
		idtab_get(&r->node_t, (uint32_t)pc_getbe(cx + 12 * k, 4),
			  &node);
		uint64_t s = pc_getbe(cx + 12 * k + 4, 8);
		uint64_t z = pc_getbe(cx + 12 * (k + 1) + 4, 8);
		size_t s0 = r->db->nscoped;
		if (!j || r->ord[j].key != r->ord[j - 1].key)
			g0 = s0;
		for (uint64_t v = s; v < z; v++) {
			const unsigned char *y = b->p + off + 10 * v;
			idtab_get(&r->col_t, (uint32_t)pc_getbe(y + 8, 2), &c);
			put_value(r, prof, node, &r->cols[c], be_f64(y),
				  PUT_SCOPES);
		}
		/* a context's few values (of its nodes in the file's
		 * order) in the order of their metric and scope (the
		 * file has I before E), stably */
		struct pc_value *sv = r->db->scoped;
		for (size_t x = s0 > g0 ? s0 : g0 + 1; x < r->db->nscoped; x++) {
			struct pc_value t = sv[x];
			size_t y = x;
			for (; y > g0 && sv[y - 1].metric > t.metric; y--)
				sv[y] = sv[y - 1];
			sv[y] = t;
		}
	}
	put_points(r, prof);
	pc_blob_read(b, nv);
	return trace_samples(r, (uint32_t)i, prof);
}

/* -j: the profiles read on several threads (pc_read_profiles), each in
 * a copy of the reader with a table of its own. */
struct share {
	struct legacy *r;
	struct pc_blob *b;
	uint64_t pi, nctx;
	const pc_id *prof_of;
};

struct share_copy {
	struct legacy r;
	struct pc_blob b; /* its own count of pages read */
	const struct share *x;
};

static void *share_copy(void *ctx, struct pc_db *shadow, struct pc_err *err)
{
	const struct share *x = ctx;
	struct share_copy *c = pc_xmalloc(sizeof(*c));
	c->r = *x->r;
	c->r.db = shadow;
	c->r.err = err;
	c->r.cells = NULL;
	c->r.taken = NULL;
	c->r.ncells = c->r.capcells = 0;
	c->r.ord = NULL;
	c->r.capord = 0;
	c->r.elided = 0;
	c->b = *x->b;
	c->x = x;
	return c;
}

static int share_read(void *copy, uint64_t i)
{
	struct share_copy *c = copy;
	return read_one(&c->r, &c->b, c->x->pi, i, c->x->prof_of[i],
			c->x->nctx);
}

static void share_merge(void *ctx, void *copy)
{
	struct share *x = ctx;
	struct share_copy *c = copy;
	x->r->elided += c->r.elided;
	free(c->r.cells);
	free(c->r.taken);
	free(c->r.ord);
	free(c);
}

static int read_profile_db(struct legacy *r, pc_id **prof_of, uint32_t *nprof)
{
	uint64_t nctx;
	if (cct_count(r, &nctx))
		return -1;
	struct pc_blob b;
	if (pc_blob_map(&b, r->dir, "profile.db", 0, r->err))
		return -1;
	int rc = -1;
	uint64_t np, pi;
	pc_id *own = NULL; /* MPI: this rank's share of prof_of */
	if (prof2_header(r, &b, "HPCPROF-profdb__", 52, "profile info", &np,
			 &pi))
		goto out;
	*nprof = (uint32_t)np;
	*prof_of = pc_xmalloc((np + 1) * sizeof(pc_id));
	for (uint64_t i = 0; i < np; i++) {
		uint64_t e = pi + 52 * i;
		uint64_t tp = pc_getbe(b.p + e, 8);
		if (need(r, &b, tp, 2, "id tuple"))
			goto out;
		uint32_t nids = (uint32_t)pc_getbe(b.p + tp, 2);
		if (need(r, &b, tp + 2, 18 * (uint64_t)nids, "id tuple"))
			goto out;
		struct pc_idelem ids[64];
		if (nids > 64) {
			pc_err_at_off(r->err, b.path, tp, "id tuple of %u "
				      "elements", nids);
			goto out;
		}
		int summary = 0;
		for (uint32_t k = 0; k < nids; k++) {
			const unsigned char *x = b.p + tp + 2 + 18 * k;
			uint32_t kind = (uint32_t)pc_getbe(x, 2) & 0x3fff;
			uint32_t mk = PC_ID_NKINDS;
			if (!idtab_get(&r->kind_t, kind, &mk) && kind < PC_ID_NKINDS)
				mk = kind; /* no IdentifierNameTable */
			if (mk >= PC_ID_NKINDS) {
				pc_err_at_off(r->err, b.path, tp + 2 + 18 * k,
					      "id tuple kind %u is not one "
					      "HPCToolkit defines", kind);
				goto out;
			}
			summary |= mk == PC_ID_SUMMARY;
			ids[k] = (struct pc_idelem){
				.kind = (uint16_t)mk, .is_physical = 0,
				.physical = pc_getbe(x + 2, 8),
				.logical = pc_getbe(x + 10, 8),
			};
			/* NODE is a host id: its physical value */
			if (mk == PC_ID_NODE)
				ids[k].is_physical = 1;
			else
				ids[k].physical = 0;
		}
		(*prof_of)[i] = (i == 0 || summary) ? PC_NONE :
			pc_profile_add(r->db, ids, nids);
	}
	/* every profile is known: each one is done (handed to a writer
	 * that streams) once its values and its trace are read */
	r->db->nplanned = r->db->nprofiles;
	if (trace_index(r, *prof_of, *nprof))
		goto out;
	/* MPI: this rank's share of the profiles; the others are left to
	 * the other ranks */
	own = pc_share_profiles(r->db, *prof_of, np, 0);
	const pc_id *mine = own ? own : *prof_of;
	if (pc_reader_threads(r->db, r->jobs) > 1 && r->db->async && np > 2) {
		static const struct pc_profile_reader ops = {
			share_copy, share_read, share_merge,
		};
		struct share x = { r, &b, pi, nctx, mine };
		rc = pc_read_profiles(r->db, r->jobs, np, mine, &ops, &x,
				      r->err);
		goto out;
	}
	for (uint64_t i = 0; i < np; i++) {
		pc_id prof = mine[i];
		if (prof == PC_NONE)
			continue; /* the summary is derived again */
		if (read_one(r, &b, pi, i, prof, nctx) ||
		    pc_profile_done(r->db, prof, r->err))
			goto out;
	}
	rc = 0;
out:
	free(own);
	pc_blob_unmap(&b);
	return rc;
}

/* "G.PROG-RANK-THREAD-HOST-PID-GEN.metric-db": rank and thread. */
static int name_ids(const char *name, uint64_t *rank, uint64_t *thread)
{
	/* from the end: GEN, PID, HOST, THREAD, RANK */
	const char *dash[5];
	int n = 0;
	size_t len = strlen(name);
	if (pc_path_ends(name, ".metric-db"))
		len -= strlen(".metric-db");
	for (const char *s = name + len; s > name && n < 5;)
		if (*--s == '-')
			dash[n++] = s;
	if (n < 5)
		return -1;
	char *end;
	*thread = strtoull(dash[3] + 1, &end, 10);
	if (end != dash[2])
		return -1;
	*rank = strtoull(dash[4] + 1, &end, 10);
	return end == dash[3] ? 0 : -1;
}

static int inline_profile(struct legacy *r);

/* The profile of an hpcrun file name's rank and thread (made on first
 * use; the metric-db and hpctrace files of one thread share it). */
static pc_id thread_profile(struct legacy *r, const char *path,
			    const char *name)
{
	uint64_t rank = 0, thread = 0;
	if (name_ids(name, &rank, &thread)) {
		pc_warn(r->db->diag, "%s: '%s' does not say rank and thread "
			"(PROG-RANK-THREAD-HOST-PID-GEN): a profile of its own",
			path, name);
		rank = UINT32_MAX - r->db->nprofiles;
	}
	for (size_t i = 0; i < r->nthr; i++)
		if (r->thr[i].rank == rank && r->thr[i].thread == thread)
			return r->thr[i].prof;
	struct pc_idelem ids[2] = {
		{ .kind = PC_ID_RANK, .logical = rank },
		{ .kind = PC_ID_THREAD, .logical = thread },
	};
	PC_GROW(r->thr, r->nthr, r->capthr);
	r->thr[r->nthr] = (struct thr){ rank, thread,
					pc_profile_add(r->db, ids, 2) };
	return r->thr[r->nthr++].prof;
}

/* One thread's metric-db: [off, off+len) of b. */
static int metric_db(struct legacy *r, const struct pc_blob *b, uint64_t off,
		     uint64_t len, pc_id prof)
{
	const unsigned char *p = b->p + off;
	if (len < 32 || memcmp(p, "HPCPROF-metricdb__", 18))
		return pc_err_at_off(r->err, b->path, off, len < 32 ?
				     "too short for a metric-db header" :
				     "not a metric-db (magic)");
	if (memcmp(p + 18, "00.10", 5) || p[23] != 'b')
		return pc_err_at_off(r->err, b->path, off + 18, "metric-db "
				     "version '%.5s%c' (00.10b is read)",
				     p + 18, p[23]);
	uint64_t nn = pc_getbe(p + 24, 4), nm = pc_getbe(p + 28, 4);
	/* nodes x metrics values fill the rest exactly (each factor is
	 * below 2^32: no overflow in the product once one is bounded) */
	uint64_t cells = (len - 32) / 8;
	if ((len - 32) % 8 || (nm ? nn != cells / nm || cells % nm : cells))
		return pc_err_at_off(r->err, b->path, off + 24, "header says "
				     "%llu nodes x %llu metrics, but %llu bytes "
				     "of 8-byte values follow",
				     (unsigned long long)nn,
				     (unsigned long long)nm,
				     (unsigned long long)(len - 32));
	/* column -> MetricDB (db-ids are below 65536) */
	uint64_t ncol = nm < 65536 ? nm : 65536;
	const struct mcol **col = pc_xcalloc(ncol + 1, sizeof(*col));
	for (size_t i = 0; i < r->ncols; i++)
		if (r->cols[i].dbid >= 0 && (uint64_t)r->cols[i].dbid < ncol)
			col[r->cols[i].dbid] = &r->cols[i];
	/* no metrics, no values: then a row count says nothing (up to
	 * 2^32 - 1 empty rows in a 32-byte file: a fuzzing finding) */
	for (uint64_t row = 0; nm && row < nn; row++) {
		const unsigned char *x = p + 32 + row * nm * 8;
		uint32_t node = PC_NONE;
		for (uint64_t c = 0; c < ncol; c++) {
			double v = be_f64(x + 8 * c);
			if (v == 0 || !col[c])
				continue;
			if (node == PC_NONE &&
			    !idtab_get(&r->node_t, (uint32_t)(row + 1), &node)) {
				r->elided++; /* as in profile.db */
				break;
			}
			put_value(r, prof, node, col[c], v, PUT_ALL);
		}
	}
	free(col);
	put_points(r, prof);
	return 0;
}

/* One thread's hpctrace: [off, off+len) of b. */
static int hpctrace(struct legacy *r, const struct pc_blob *b, uint64_t off,
		    uint64_t len, pc_id prof)
{
	const unsigned char *p = b->p + off;
	if (len < 24 || memcmp(p, "HPCRUN-trace______", 18))
		return pc_err_at_off(r->err, b->path, off, len < 24 ?
				     "too short for an hpctrace header" :
				     "not an hpctrace (magic)");
	uint64_t hdr = 24, flags = 0;
	if (!memcmp(p + 18, "01.01", 5) && p[23] == 'b') {
		if (len < 32)
			return pc_err_at_off(r->err, b->path, off, "too short "
					     "for an hpctrace 01.01 header");
		hdr = 32;
		flags = pc_getbe(p + 24, 8);
	} else if (memcmp(p + 18, "01.00", 5) || p[23] != 'b') {
		return pc_err_at_off(r->err, b->path, off + 18, "hpctrace "
				     "version '%.5s%c' (01.00b and 01.01b are "
				     "read)", p + 18, p[23]);
	}
	uint64_t rec = (flags & 1) ? 16 : 12; /* data-centric: + metric id */
	if ((len - hdr) % rec)
		return pc_err_at_off(r->err, b->path, off + len - (len - hdr) % rec,
				     "hpctrace: %llu bytes after the last "
				     "whole %llu-byte sample",
				     (unsigned long long)((len - hdr) % rec),
				     (unsigned long long)rec);
	for (uint64_t x = hdr; x < len; x += rec) {
		uint32_t it = (uint32_t)pc_getbe(p + x + 8, 4), ctx;
		if (it == 0)
			continue; /* the null call path */
		if (!idtab_get(&r->it_t, it, &ctx))
			return pc_err_at_off(r->err, b->path, off + x + 8,
					     "trace sample names call path %u, "
					     "which no element of experiment.xml "
					     "has as its 'it'", it);
		pc_trace_add(r->db, prof,
			     pc_getbe(p + x, 8) * r->ns_per_tick, ctx);
		pc_blob_read((struct pc_blob *)b, 1); /* (a long file too) */
	}
	return 0;
}

typedef int (*part_fn)(struct legacy *, const struct pc_blob *, uint64_t,
		       uint64_t, pc_id);

/* A per-thread file (G.PROG-RANK-THREAD-HOST-PID-GEN.SUFFIX). */
static int read_part_file(struct legacy *r, const char *name, part_fn fn,
			  pc_id prof)
{
	struct pc_blob b;
	if (pc_blob_map(&b, r->dir, name, 0, r->err))
		return -1;
	if (prof == PC_NONE)
		prof = thread_profile(r, b.path, name);
	int rc = fn(r, &b, 0, b.n, prof);
	pc_blob_unmap(&b);
	return rc;
}

/* A container the old viewers merge the per-thread files into
 * (experiment-N.mdb, experiment.mt): i32 type, i32 count, count x
 * {i32 rank, i32 thread, i64 offset}, the files, 0xFFFFFFFFDEADF00D. */
static int read_merged(struct legacy *r, const char *name, part_fn fn)
{
	struct pc_blob b;
	if (pc_blob_map(&b, r->dir, name, 0, r->err))
		return -1;
	int rc = -1;
	if (b.n < 16 || pc_getbe(b.p + b.n - 8, 8) != 0xFFFFFFFFDEADF00Dull) {
		pc_err_at_off(r->err, b.path, b.n < 8 ? 0 : b.n - 8, "no end "
			      "marker 0xFFFFFFFFDEADF00D (truncated?)");
		goto out;
	}
	uint64_t n = pc_getbe(b.p + 4, 4);
	if (n > (b.n - 16) / 16) {
		pc_err_at_off(r->err, b.path, 4, "%llu files listed, more "
			      "than the container can hold",
			      (unsigned long long)n);
		goto out;
	}
	uint64_t end = b.n - 8, prev = 8 + 16 * n;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = b.p + 8 + 16 * i;
		uint64_t a = pc_getbe(e + 8, 8);
		uint64_t z = i + 1 < n ? pc_getbe(e + 24, 8) : end;
		if (a < prev || z < a || z > end) {
			pc_err_at_off(r->err, b.path, 8 + 16 * i + 8, "file %llu "
				      "at [%llu, %llu): out of order or outside "
				      "the container", (unsigned long long)i,
				      (unsigned long long)a,
				      (unsigned long long)z);
			goto out;
		}
		prev = a;
		char id[64];
		snprintf(id, sizeof id, "x-%llu-%llu-0-0-0",
			 (unsigned long long)pc_getbe(e, 4),
			 (unsigned long long)pc_getbe(e + 4, 4));
		if (fn(r, &b, a, z - a, thread_profile(r, b.path, id)))
			goto out;
	}
	rc = 0;
out:
	pc_blob_unmap(&b);
	return rc;
}

/* hpcprof-mpi's one file of all threads' values, experiment-N.mdb */
static int is_mdb(const char *name)
{
	return pc_basename_starts(name, "experiment") &&
	       pc_path_ends(name, ".mdb");
}

static int has_mdb(char **names, size_t nnames)
{
	for (size_t i = 0; i < nnames; i++)
		if (is_mdb(names[i]))
			return 1;
	return 0;
}

/* A per-thread file of a 2.x database, for reading thread by thread:
 * its profile, its kind (0 metric-db, 1 hpctrace), its name's index. */
struct part {
	pc_id prof;
	int kind;
	size_t i;
};

static int cmp_part(const void *a, const void *b)
{
	const struct part *x = a, *y = b;
	if (x->prof != y->prof)
		return x->prof < y->prof ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* 2.x with a metric-db and an hpctrace file per thread: the profiles
 * made first, in the order that reading all metric-db files and then
 * all hpctrace files makes them, then read thread by thread (its
 * metric-db files, its hpctrace files, in name order) and each one done
 * (handed to a writer that streams) once read. */
static int read_v2_threads(struct legacy *r, char **names, size_t nnames)
{
	struct part *pt = pc_xmalloc((nnames + 1) * sizeof(*pt));
	size_t n = 0;
	for (int kind = 0; kind < 2; kind++)
		for (size_t i = 0; i < nnames; i++) {
			if (!pc_path_ends(names[i], kind ? ".hpctrace" :
							   ".metric-db"))
				continue;
			char path[4200];
			pc_path_join(path, sizeof path, r->dir, names[i]);
			pt[n++] = (struct part){
				thread_profile(r, path, names[i]), kind, i };
		}
	r->db->nplanned = r->db->nprofiles;
	qsort(pt, n, sizeof(*pt), cmp_part);
	/* MPI: this rank's share of the threads */
	r->db->shared = r->db->share_n > 1;
	int rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		if (!pc_share_own(r->db, pt[k].prof, r->db->nprofiles))
			continue;
		rc = read_part_file(r, names[pt[k].i],
				    pt[k].kind ? hpctrace : metric_db,
				    pt[k].prof);
		if (!rc && (k + 1 == n || pt[k + 1].prof != pt[k].prof))
			rc = pc_profile_done(r->db, pt[k].prof, r->err);
	}
	free(pt);
	return rc;
}

/* Values and traces of a 2.x database: per-thread files, or the
 * containers the viewers made of them. */
static int read_v2(struct legacy *r, char **names, size_t nnames)
{
	int any = 0, rc = 0, mt = 0, threads = 0;
	for (size_t i = 0; i < nnames; i++) {
		any |= pc_path_ends(names[i], ".metric-db");
		threads |= pc_path_ends(names[i], ".hpctrace");
		mt |= !strcmp(names[i], "experiment.mt");
	}
	/* per-thread files (not the viewers' containers): thread by
	 * thread */
	if (any && (threads || !mt))
		return read_v2_threads(r, names, nnames);
	any = 0;
	for (size_t i = 0; i < nnames && !rc; i++)
		if (pc_path_ends(names[i], ".metric-db")) {
			rc = read_part_file(r, names[i], metric_db, PC_NONE);
			any = 1;
		}
	for (size_t i = 0; i < nnames && !rc && !any; i++)
		if (is_mdb(names[i])) {
			rc = read_merged(r, names[i], metric_db);
			any = 2;
		}
	if (!rc && !any)
		rc = inline_profile(r);
	int traces = 0;
	for (size_t i = 0; i < nnames && !rc; i++)
		if (pc_path_ends(names[i], ".hpctrace")) {
			rc = read_part_file(r, names[i], hpctrace, PC_NONE);
			traces = 1;
		}
	for (size_t i = 0; i < nnames && !rc && !traces; i++)
		if (!strcmp(names[i], "experiment.mt"))
			rc = read_merged(r, names[i], hpctrace);
	return rc;
}

/* Only inline values (an experiment.xml without metric-db files): the
 * one profile they describe. */
static int inline_profile(struct legacy *r)
{
	if (!r->ninl)
		return 0;
	/* the inline values use MetricTable ids: make them columns */
	struct idtab byxm = { 0 };
	for (size_t i = 0; i < r->nxm; i++) {
		const struct xmetric *x = &r->xm[i];
		if (x->derived || x->hidden || x->stat)
			continue;
		const char *n = x->name;
		const char *sum = strstr(n, ":Sum");
		char buf[4096];
		if (sum) { /* "NAME:Sum (I)": the sum over the threads */
			snprintf(buf, sizeof buf, "%.*s%s", (int)(sum - n), n,
				 sum + 4);
			n = buf;
		}
		legacy_add_column(r, x->id, n, x->scope == SC_INCL ? "inclusive" :
					  x->scope == SC_EXCL ? "exclusive" : NULL, -1);
		idtab_add(&byxm, x->id, (uint32_t)(r->ncols - 1));
	}
	idtab_sort(&byxm);
	note_scopes(r);
	/* one id (hpcviewer's thread view reads the first of every
	 * profile's tuple): the whole run's values, as on one node */
	struct pc_idelem whole = { .kind = PC_ID_NODE };
	pc_id prof = pc_profile_add(r->db, &whole, 1);
	for (size_t i = 0; i < r->ninl; i++) {
		uint32_t c;
		if (idtab_get(&byxm, r->inl[i].metric, &c))
			put_value(r, prof, r->inl[i].node, &r->cols[c],
				  r->inl[i].v, PUT_ALL);
	}
	put_points(r, prof);
	idtab_free(&byxm);
	pc_warn(r->db->diag, "%s: no per-thread values (metric-db files); "
		"the values experiment.xml holds (printed with 6 significant "
		"digits) make one profile", r->xml);
	return 0;
}

static void legacy_free(struct legacy *r)
{
	if (r->xr)
		xmlFreeTextReader(r->xr);
	struct idtab *t[] = { &r->mod_t, &r->file_t, &r->proc_t, &r->kind_t,
			      &r->col_t, &r->xm_t, &r->node_t, &r->it_t };
	for (size_t k = 0; k < sizeof t / sizeof *t; k++)
		idtab_free(t[k]);
	free(r->mods);
	free(r->files);
	free(r->procs);
	free(r->xm);
	free(r->cols);
	free(r->nodes);
	free(r->stack);
	free(r->inl);
	free(r->cells);
	free(r->taken);
	free(r->ord);
	free(r->mscopes);
	free(r->thr);
	pc_blob_unmap(&r->tb);
	free(r->tl);
	free(r->tfirst);
	free(r);
}

/* The MetricTable's derived metrics, and statistics over threads (the
 * v4 layout: known before the first profile is done). */
static void derived_and_stats(struct legacy *r, int per_thread)
{
	legacy_derived_metrics(r, per_thread);
	r->db->stats |= r->stats;
}

/* Their warnings, once the values are read. */
static void derived_said(struct legacy *r)
{
	if (r->not_carried)
		pc_warn(r->db->diag, "%s: %zu derived metric(s) not carried "
			"(a formula the v4 metrics YAML cannot say, or "
			"statistics over threads without per-thread values): "
			"%s", r->xml, r->not_carried, r->not_carried_list);
	if (r->stats)
		pc_warn(r->db->diag, "%s: its statistics over threads (Mean, "
			"StdDev, CfVar, Min, Max) become the v4 database's "
			"statistics, computed again from the threads' values; "
			"a v4 Mean divides by the threads that have a value "
			"at a context, not by all threads", r->xml);
}

static int legacy_read(struct pc_db *db, const char *path,
		       const struct pc_import_opts *opts, struct pc_err *err)
{
	struct legacy *r = pc_xcalloc(1, sizeof(*r));
	r->db = db;
	r->point_only = opts && opts->point_only;
	r->jobs = opts ? opts->jobs : 1;
	r->err = err;
	r->ns_per_tick = 1000;
	struct stat st;
	int rc = -1;
	if (strlen(path) >= sizeof r->dir) {
		pc_err_set(err, "%s: path too long", path);
		goto out;
	}
	strcpy(r->dir, path);
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		/* the experiment.xml itself: its directory */
		char *slash = strrchr(r->dir, '/');
		if (slash)
			*slash = 0;
		else
			strcpy(r->dir, ".");
	}
	if (pc_path_join(r->xml, sizeof r->xml, r->dir, "experiment.xml")) {
		pc_err_set(err, "%s: path too long", path);
		goto out;
	}
	size_t nnames;
	char **names = pc_list_dir(r->dir, &nnames);
	int prof2 = 0;
	size_t nmdb = 0;
	for (size_t i = 0; i < nnames; i++) {
		prof2 |= !strcmp(names[i], "profile.db");
		nmdb += pc_path_ends(names[i], ".metric-db");
	}
	r->major = prof2 ? 4 : nmdb ? 2 : 0;
	if (legacy_read_xml(r))
		goto done;
	note_scopes(r);
	int per_thread = prof2 || nmdb || has_mdb(names, nnames);
	/* the metrics and statistics come from experiment.xml alone
	 * (unless a database without metric-db files makes its columns
	 * from the inline values): known before the first profile goes to
	 * a writer */
	if (per_thread)
		derived_and_stats(r, per_thread);
	if (r->major == 4) {
		pc_id *prof_of = NULL;
		uint32_t nprof = 0;
		rc = read_profile_db(r, &prof_of, &nprof);
		free(prof_of);
	} else {
		rc = read_v2(r, names, nnames);
	}
	if (!rc && !per_thread)
		derived_and_stats(r, per_thread);
	if (!rc)
		derived_said(r);
	if (!rc && r->elided)
		pc_warn(db->diag, "%s: values of %llu (profile, context) "
			"pair(s) whose context experiment.xml does not list "
			"(hpcprof left it out of the tree): they are part of "
			"their listed ancestors' inclusive values, which are "
			"kept",
			r->dir, (unsigned long long)r->elided);
done:
	pc_free_list(names, nnames);
out:
	legacy_free(r);
	if (rc)
		pc_err_context(err, "reading old HPCToolkit database '%s'", path);
	return rc;
}

static int legacy_probe(const struct pc_probe *p)
{
	if (!p->is_dir) {
		return pc_path_ends(p->path, "experiment.xml") &&
			       strstr((const char *)p->buf,
				      "<HPCToolkitExperiment") ? 95 : 0;
	}
	int xml = 0, meta = 0;
	for (size_t i = 0; i < p->nnames; i++) {
		xml |= !strcmp(p->names[i], "experiment.xml");
		meta |= !strcmp(p->names[i], "meta.db");
	}
	return xml && !meta ? 95 : 0;
}

const struct pc_importer pc_import_hpctoolkit_legacy = {
	.name = "hpctoolkit-legacy",
	.is_dir = 1,
	.streams = 1,
	.tree_first = 1,
	.description = "old HPCToolkit database directory (experiment.xml "
		       "2.x with metric-db files, or 4.0 with "
		       "HPCPROF-profile.db)",
	.probe = legacy_probe,
	.read = legacy_read,
};
