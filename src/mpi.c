/* profconv-mpi: what the ranks send each other (see pc_mpi.h and
 * doc/design.md, "MPI ranks"). A rank's profiles travel as records of
 * their sorted values, stored values and trace bytes; its tables (when
 * they are its own: ovni streams, Callgrind files) as one record of
 * modules, files, functions, metrics, contexts and profiles, which rank
 * 0 merges into its model by the same find-or-create calls the
 * importers use, in rank order: the ids one process reading every
 * profile in order would have given. Large records go in pieces (MPI
 * counts are int). */
#include "pc_mpi.h"
#include "../exporters/hpctoolkit.h"
#include "buf.h"
#include "internal.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define TAG 17
#define PIECE ((size_t)1 << 30)

void pc_mpi_init(int *argc, char ***argv, unsigned *rank, unsigned *size)
{
	int r = 0, s = 1;
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &s);
	*rank = (unsigned)r;
	*size = (unsigned)s;
}

void pc_mpi_finalize(void)
{
	MPI_Finalize();
}

/* ---- a growing byte record ---- */

struct rec {
	unsigned char *p;
	size_t n, cap;
};

static unsigned char *room(struct rec *r, size_t k)
{
	if (r->cap - r->n < k) {
		r->cap = (r->n + k) * 2;
		r->p = pc_xrealloc(r->p, r->cap, 1);
	}
	unsigned char *at = r->p + r->n;
	r->n += k;
	return at;
}

static void put8(struct rec *r, uint8_t v) { *room(r, 1) = v; }
static void put32(struct rec *r, uint32_t v) { pc_le32(room(r, 4), v); }
static void put64(struct rec *r, uint64_t v) { pc_le64(room(r, 8), v); }
static void putf(struct rec *r, double v) { pc_lef64(room(r, 8), v); }
static void putstr(struct rec *r, const char *s)
{
	if (!s) {
		put32(r, UINT32_MAX);
		return;
	}
	size_t n = strlen(s);
	put32(r, (uint32_t)n);
	memcpy(room(r, n), s, n);
}

/* reading one back: bounds are the sender's own, but checked anyway */
struct rd {
	const unsigned char *p, *end;
	int bad;
};

static const unsigned char *take(struct rd *d, size_t k)
{
	if ((size_t)(d->end - d->p) < k) {
		d->bad = 1;
		static const unsigned char zero[8];
		return zero;
	}
	const unsigned char *at = d->p;
	d->p += k;
	return at;
}
static uint8_t get8(struct rd *d) { return *take(d, 1); }
static uint32_t get32(struct rd *d) { return (uint32_t)pc_getle(take(d, 4), 4); }
static uint64_t get64(struct rd *d) { return pc_getle(take(d, 8), 8); }
static double getf(struct rd *d) { return pc_getlef64(take(d, 8)); }
/* a string interned in db (NULL as sent) */
static const char *getstr(struct rd *d, struct pc_db *db)
{
	uint32_t n = get32(d);
	if (n == UINT32_MAX)
		return NULL;
	const unsigned char *s = take(d, n);
	return d->bad ? "" : pc_intern(db, (const char *)s, n);
}

/* ---- the keeper: a rank's profiles, as records ---- */

struct keeper {
	struct pc_sink sink;
	struct rec *prof;
	size_t nprof, capprof;
};

static void keep(struct keeper *k, pc_id p, const struct pc_value *v,
		 size_t n, const struct pc_value *sv, size_t sn,
		 const struct pc_trace *t)
{
	PC_GROW(k->prof, k->nprof, k->capprof);
	struct rec *r = &k->prof[k->nprof++];
	memset(r, 0, sizeof(*r));
	size_t tl = t ? t->len : 0;
	r->cap = 40 + 16 * (n + sn) + tl;
	r->p = pc_xmalloc(r->cap);
	put32(r, p);
	put64(r, n);
	put64(r, sn);
	put64(r, t ? t->n : 0);
	put64(r, tl);
	for (size_t i = 0; i < n; i++) {
		put32(r, v[i].ctx);
		put32(r, v[i].metric);
		putf(r, v[i].value);
	}
	for (size_t i = 0; i < sn; i++) {
		put32(r, sv[i].ctx);
		put32(r, sv[i].metric);
		putf(r, sv[i].value);
	}
	if (tl)
		memcpy(room(r, tl), t->b, tl);
}

static int keeper_profile(struct pc_sink *s, const struct pc_db *db, pc_id p,
			  const struct pc_value *v, size_t n,
			  const struct pc_value *sv, size_t sn,
			  const struct pc_trace *t, struct pc_err *err)
{
	(void)db, (void)err;
	keep((struct keeper *)s, p, v, n, sv, sn, t);
	return 0;
}

struct pc_sink *pc_mpi_keeper(void)
{
	struct keeper *k = pc_xcalloc(1, sizeof(*k));
	k->sink.profile = keeper_profile;
	return &k->sink;
}

void pc_mpi_keeper_free(struct pc_sink *s)
{
	struct keeper *k = (struct keeper *)s;
	if (!k)
		return;
	for (size_t i = 0; i < k->nprof; i++)
		free(k->prof[i].p);
	free(k->prof);
	free(k);
}

uint64_t pc_mpi_kept(const struct pc_sink *s)
{
	return s ? ((const struct keeper *)s)->nprof : 0;
}

void pc_mpi_keep_rest(struct pc_sink *s, struct pc_db *db)
{
	struct keeper *k = (struct keeper *)s;
	size_t v = 0, sv = 0;
	for (size_t p = db->nflushed; p < db->nprofiles; p++) {
		size_t v1 = v, s1 = sv;
		while (v1 < db->nvalues && db->values[v1].profile == p)
			v1++;
		while (s1 < db->nscoped && db->scoped[s1].profile == p)
			s1++;
		struct pc_trace *t = &db->traces[p];
		keep(k, (pc_id)p, v1 > v ? db->values + v : NULL, v1 - v,
		     s1 > sv ? db->scoped + sv : NULL, s1 - sv, t);
		free(t->b);
		memset(t, 0, sizeof(*t));
		v = v1;
		sv = s1;
	}
	db->nvalues = db->nscoped = 0;
}

/* ---- agreement ---- */

int pc_mpi_agree(int failed, struct pc_err *err)
{
	int size, rank, first;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	int mine = failed ? rank : size;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == size)
		return 0;
	MPI_Bcast(err->msg, (int)sizeof err->msg, MPI_CHAR, first,
		  MPI_COMM_WORLD);
	return 1;
}

uint64_t pc_mpi_sum(uint64_t v)
{
	uint64_t s = 0;
	MPI_Allreduce(&v, &s, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	return s;
}

void pc_mpi_bcast_rc(int *rc)
{
	MPI_Bcast(rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

/* ---- records between ranks ---- */

static void send_rec(const struct rec *r, int to)
{
	uint64_t n = r->n;
	MPI_Send(&n, 1, MPI_UINT64_T, to, TAG, MPI_COMM_WORLD);
	for (size_t at = 0; at < r->n; at += PIECE) {
		size_t k = r->n - at < PIECE ? r->n - at : PIECE;
		MPI_Send(r->p + at, (int)k, MPI_BYTE, to, TAG, MPI_COMM_WORLD);
	}
}

static void recv_rec(struct rec *r, int from)
{
	uint64_t n = 0;
	MPI_Recv(&n, 1, MPI_UINT64_T, from, TAG, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	r->n = 0;
	room(r, (size_t)n);
	for (size_t at = 0; at < n; at += PIECE) {
		size_t k = n - at < PIECE ? n - at : PIECE;
		MPI_Recv(r->p + at, (int)k, MPI_BYTE, from, TAG,
			 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

/* The tables of a rank's model. */
static void put_tables(struct rec *r, const struct pc_db *db)
{
	putstr(r, db->title);
	putstr(r, db->description);
	put64(r, db->nmodules);
	for (size_t i = 0; i < db->nmodules; i++)
		putstr(r, db->modules[i].path);
	put64(r, db->nfiles);
	for (size_t i = 0; i < db->nfiles; i++)
		putstr(r, db->files[i].path);
	put64(r, db->nfunctions);
	for (size_t i = 0; i < db->nfunctions; i++) {
		const struct pc_function *f = &db->functions[i];
		putstr(r, f->name);
		put32(r, f->module);
		put64(r, f->offset);
		put32(r, f->file);
		put32(r, f->line);
		put32(r, f->dup);
	}
	put64(r, db->nmetrics);
	for (size_t i = 0; i < db->nmetrics; i++) {
		const struct pc_metric *m = &db->metrics[i];
		putstr(r, m->name);
		putstr(r, m->description);
		putstr(r, m->unit);
		put8(r, m->stored);
		put8(r, m->scopes);
		put8(r, m->whole);
	}
	put64(r, db->ncontexts);
	for (size_t i = 1; i < db->ncontexts; i++) {
		const struct pc_context *c = &db->contexts[i];
		put32(r, c->parent);
		put8(r, c->kind);
		put8(r, c->rel);
		put8(r, c->entry);
		put8(r, c->twin);
		put32(r, c->function);
		put32(r, c->file);
		put32(r, c->line);
		put32(r, c->module);
		put64(r, c->offset);
	}
	put64(r, db->nprofiles);
	for (size_t i = 0; i < db->nprofiles; i++) {
		const struct pc_profile *p = &db->profiles[i];
		put32(r, p->nids);
		for (uint32_t k = 0; k < p->nids; k++) {
			put8(r, (uint8_t)p->ids[k].kind);
			put8(r, (uint8_t)p->ids[k].is_physical);
			put64(r, p->ids[k].logical);
			put64(r, p->ids[k].physical);
		}
	}
}

/* Whether a kept profile has trace samples. */
static int kept_trace(const struct keeper *k)
{
	for (size_t i = 0; i < k->nprof; i++)
		if (pc_getle(k->prof[i].p + 20, 8))
			return 1;
	return 0;
}

/* A rank's first record: its profile count, context count, whether it
 * has trace samples, and its tables (with_tables). */
static void send_tables(const struct keeper *k, const struct pc_db *db,
			int with_tables)
{
	struct rec t = { 0 };
	put64(&t, k->nprof);
	put64(&t, db ? db->ncontexts : 1);
	put8(&t, (uint8_t)kept_trace(k));
	if (with_tables && db) {
		put_tables(&t, db);
	} else if (with_tables) { /* none of its own: empty tables */
		putstr(&t, NULL);
		putstr(&t, NULL);
		for (int i = 0; i < 4; i++)
			put64(&t, 0);
		put64(&t, 1); /* the root alone */
		put64(&t, 0);
	}
	send_rec(&t, 0);
	free(t.p);
}

int pc_mpi_send(struct pc_sink *s, const struct pc_db *db, int with_tables)
{
	struct keeper *k = (struct keeper *)s;
	send_tables(k, db, with_tables);
	for (size_t i = 0; i < k->nprof; i++) {
		send_rec(&k->prof[i], 0);
		free(k->prof[i].p);
		k->prof[i].p = NULL;
	}
	return 0;
}

/* Id maps of one rank's tables into g. */
struct maps {
	pc_id *ctx, *metric;
	size_t nctx, nmetric;
	pc_id prof0; /* the rank's first profile in g */
};

static pc_id at_or_none(const pc_id *map, size_t n, pc_id i)
{
	return i == PC_NONE || i >= n ? PC_NONE : map[i];
}

/* Merges a rank's tables into g: its modules, files and functions by
 * their fields, its metrics by name, its contexts by parent and fields
 * (pc_ctx_child), its profiles appended. */
static int merge_tables(struct pc_db *g, struct rd *d, struct maps *m,
			int cg)
{
	/* the first input's title, as one process keeps it */
	const char *title = getstr(d, g), *about = getstr(d, g);
	if (!g->title)
		g->title = title;
	if (!g->description)
		g->description = about;
	size_t n = (size_t)get64(d);
	pc_id *mod = pc_xmalloc((n + 1) * sizeof(pc_id));
	for (size_t i = 0; i < n && !d->bad; i++)
		mod[i] = pc_module_get(g, getstr(d, g));
	size_t nmod = n;
	n = (size_t)get64(d);
	pc_id *file = pc_xmalloc((n + 1) * sizeof(pc_id));
	for (size_t i = 0; i < n && !d->bad; i++)
		file[i] = pc_file_get(g, getstr(d, g));
	size_t nfile = n;
	n = (size_t)get64(d);
	pc_id *fn = pc_xmalloc((n + 1) * sizeof(pc_id));
	/* Callgrind files: the entry offset and line of each function are
	 * set once its file is read (pc_functions_set_entries), so a later
	 * file finds a function of an earlier one only where neither is
	 * known, and else makes a twin; the entries a file found fill in
	 * those of the function it found */
	size_t nf0 = g->nfunctions;
	uint64_t *eoff = cg ? pc_xcalloc(nf0 + 1, sizeof(uint64_t)) : NULL;
	uint32_t *eline = cg ? pc_xcalloc(nf0 + 1, sizeof(uint32_t)) : NULL;
	uint8_t *taken = cg ? pc_xcalloc(nf0 + 1, 1) : NULL;
	for (size_t i = 0; i < n && !d->bad; i++) {
		struct pc_function f = { 0 };
		const char *name = getstr(d, g);
		f.name = name ? name : "";
		f.module = at_or_none(mod, nmod, get32(d));
		f.offset = get64(d);
		f.file = at_or_none(file, nfile, get32(d));
		f.line = get32(d);
		f.dup = get32(d);
		if (!cg) {
			fn[i] = pc_function_get_dup(g, f.name, f.module,
						    f.offset, f.file, f.line,
						    f.dup);
			continue;
		}
		struct pc_function z = { .name = f.name, .module = f.module,
					 .file = f.file };
		pc_id at = pc_function_find(g, &z);
		if (at != PC_NONE && (at >= nf0 || !taken[at])) {
			/* a function of unknown entry made before */
			if (at < nf0 && (f.offset || f.line)) {
				taken[at] = 1;
				eoff[at] = f.offset;
				eline[at] = f.line;
			}
			fn[i] = at;
		} else {
			fn[i] = pc_function_append(g, &f);
		}
	}
	if (cg) {
		pc_functions_set_entries(g, eoff, eline, nf0);
		free(eoff);
		free(eline);
		free(taken);
	}
	size_t nfn = n;
	n = (size_t)get64(d);
	m->metric = pc_xmalloc((n + 1) * sizeof(pc_id));
	m->nmetric = n;
	for (size_t i = 0; i < n && !d->bad; i++) {
		const char *name = getstr(d, g), *desc = getstr(d, g),
			   *unit = getstr(d, g);
		uint8_t stored = get8(d), scopes = get8(d), whole = get8(d);
		pc_id id = (whole ? pc_metric_get_whole : pc_metric_get)(
			g, name ? name : "", desc ? desc : "", unit ? unit : "");
		g->metrics[id].stored |= stored;
		g->metrics[id].scopes |= scopes;
		m->metric[i] = id;
	}
	n = (size_t)get64(d);
	m->ctx = pc_xmalloc((n + 1) * sizeof(pc_id));
	m->nctx = n;
	m->ctx[0] = 0;
	for (size_t i = 1; i < n && !d->bad; i++) {
		struct pc_context c = { 0 };
		pc_id parent = get32(d);
		c.kind = get8(d);
		c.rel = get8(d);
		c.entry = get8(d);
		c.twin = get8(d);
		c.function = at_or_none(fn, nfn, get32(d));
		c.file = at_or_none(file, nfile, get32(d));
		c.line = get32(d);
		c.module = at_or_none(mod, nmod, get32(d));
		c.offset = get64(d);
		if (parent >= i) {
			d->bad = 1;
			break;
		}
		m->ctx[i] = pc_ctx_child(g, m->ctx[parent], &c);
	}
	n = (size_t)get64(d);
	m->prof0 = (pc_id)g->nprofiles;
	for (size_t i = 0; i < n && !d->bad; i++) {
		uint32_t nids = get32(d);
		struct pc_idelem *ids = pc_xcalloc(nids + 1, sizeof(*ids));
		for (uint32_t k = 0; k < nids && !d->bad; k++) {
			ids[k].kind = get8(d);
			ids[k].is_physical = get8(d);
			ids[k].logical = get64(d);
			ids[k].physical = get64(d);
		}
		/* Callgrind files: numbered as the importer numbers them
		 * after the profiles before */
		if (cg && nids == 2 && ids[0].kind == PC_ID_RANK &&
		    ids[1].kind == PC_ID_THREAD)
			pc_callgrind_logical(g, ids);
		pc_profile_add(g, ids, nids);
		free(ids);
	}
	free(mod);
	free(file);
	free(fn);
	return d->bad ? -1 : 0;
}

/* One profile record into g, handed on. */
static int feed(struct pc_db *g, const struct rec *r, const struct maps *m,
		struct pc_err *err)
{
	struct rd d = { r->p, r->p + r->n, 0 };
	pc_id lp = get32(&d);
	uint64_t nv = get64(&d), nsv = get64(&d), ns = get64(&d),
		 tl = get64(&d);
	pc_id p = m ? m->prof0 + lp : lp;
	if (d.bad || p >= g->nprofiles || nv > r->n || nsv > r->n ||
	    tl > r->n)
		return pc_err_set(err, "internal: a bad profile record from "
				  "a rank; please report this bug");
	pc_values_reserve(g, (size_t)nv);
	for (uint64_t i = 0; i < nv && !d.bad; i++) {
		pc_id c = get32(&d), mt = get32(&d);
		double v = getf(&d);
		if (m) {
			c = at_or_none(m->ctx, m->nctx, c);
			mt = at_or_none(m->metric, m->nmetric, mt);
		}
		pc_value_add(g, p, c, mt, v);
	}
	for (uint64_t i = 0; i < nsv && !d.bad; i++) {
		pc_id c = get32(&d), f = get32(&d);
		double v = getf(&d);
		pc_id mt = f / PC_NSCOPES;
		if (m) {
			c = at_or_none(m->ctx, m->nctx, c);
			mt = at_or_none(m->metric, m->nmetric, mt);
		}
		pc_scoped_add(g, p, c, mt, f % PC_NSCOPES, v);
	}
	if (tl) {
		struct pc_trace t = { .n = (size_t)ns,
				      .b = (unsigned char *)take(&d, tl),
				      .len = (size_t)tl };
		struct pc_trace_it it;
		struct pc_sample s;
		pc_trace_reserve(g, p, (size_t)ns);
		pc_trace_begin(&t, &it);
		while (!d.bad && pc_trace_next(&it, &s))
			pc_trace_add(g, p, s.time,
				     m ? at_or_none(m->ctx, m->nctx, s.ctx) :
					 s.ctx);
	}
	if (d.bad)
		return pc_err_set(err, "internal: a bad profile record from "
				  "a rank; please report this bug");
	return pc_profile_done(g, p, err);
}

int pc_mpi_gather(struct pc_db *g, struct pc_sink *own, int with_tables,
		  int callgrind, unsigned size, struct pc_err *err)
{
	int rc = 0;
	struct keeper *k = (struct keeper *)own;
	/* rank 0's own first: its ids are g's */
	for (size_t i = 0; k && i < k->nprof; i++) {
		if (!rc)
			rc = feed(g, &k->prof[i], NULL, err);
		free(k->prof[i].p);
		k->prof[i].p = NULL;
	}
	struct rec r = { 0 };
	for (unsigned from = 1; from < size; from++) {
		recv_rec(&r, (int)from);
		struct rd d = { r.p, r.p + r.n, 0 };
		uint64_t np = get64(&d), nctx = get64(&d);
		get8(&d); /* trace samples: rank 0 writes them all */
		struct maps m = { 0 };
		if (with_tables) {
			if (!rc && merge_tables(g, &d, &m, callgrind))
				rc = pc_err_set(err, "internal: bad tables from "
						"rank %u; please report this "
						"bug", from);
		} else if (!rc && nctx != g->ncontexts) {
			rc = pc_err_set(err, "internal: rank %u read %llu "
					"contexts, rank 0 %zu; please report "
					"this bug", from,
					(unsigned long long)nctx, g->ncontexts);
		}
		/* every record is received, even after a failure: the
		 * rank waits for it */
		for (uint64_t i = 0; i < np; i++) {
			recv_rec(&r, (int)from);
			if (!rc)
				rc = feed(g, &r, with_tables ? &m : NULL, err);
		}
		free(m.ctx);
		free(m.metric);
	}
	free(r.p);
	return rc;
}

/* ---- the ranks write their own profiles (v4 output) ---- */

static void bcast_rec(struct rec *r)
{
	uint64_t n = r->n;
	MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (r->n != n) { /* a receiver */
		r->n = 0;
		room(r, (size_t)n);
	}
	for (size_t at = 0; at < n; at += PIECE) {
		size_t k = n - at < PIECE ? n - at : PIECE;
		MPI_Bcast(r->p + at, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD);
	}
}

/* What rank 0's writer tells every part: the output's directory, the
 * metrics' layout, where its files end; with tables, what of the model
 * a part writes with (each context's parent, kind and relation, each
 * metric, the number of profiles). */
static void put_lead(struct rec *r, const struct hpc_lead *ld,
		     const struct pc_db *g, int with_tables)
{
	putstr(r, ld->dir);
	put64(r, ld->l->nmetrics);
	put32(r, ld->l->npartials);
	memcpy(room(r, ld->l->nmetrics), ld->l->scopes, ld->l->nmetrics);
	put64(r, ld->pend);
	put64(r, ld->tend);
	if (!with_tables)
		return;
	put64(r, g->ncontexts);
	for (size_t i = 1; i < g->ncontexts; i++) {
		put32(r, g->contexts[i].parent);
		put8(r, g->contexts[i].kind);
		put8(r, g->contexts[i].rel);
	}
	put64(r, g->nmetrics);
	for (size_t i = 0; i < g->nmetrics; i++) {
		const struct pc_metric *m = &g->metrics[i];
		putstr(r, m->name);
		put8(r, m->stored);
		put8(r, m->scopes);
		put8(r, m->whole);
	}
	put64(r, g->nprofiles);
}

/* A part's copy of the lead; with tables, the model it writes with
 * (NULL if the record is bad). */
static struct pc_db *get_lead(struct rd *d, struct hpc_lead *ld,
			      struct hpc_layout *l, struct pc_db *db,
			      int with_tables)
{
	struct pc_db *g = with_tables ? pc_db_new(db ? db->diag : NULL) : db;
	if (!g)
		return NULL;
	ld->dir = getstr(d, g);
	l->nmetrics = (size_t)get64(d);
	l->npartials = get32(d);
	l->scopes = (uint8_t *)take(d, l->nmetrics);
	ld->l = l;
	ld->pend = get64(d);
	ld->tend = get64(d);
	if (with_tables) {
		size_t n = (size_t)get64(d);
		for (size_t i = 1; i < n && !d->bad; i++) {
			PC_GROW(g->contexts, g->ncontexts, g->capcontexts);
			struct pc_context *c = &g->contexts[g->ncontexts];
			memset(c, 0, sizeof(*c));
			c->parent = get32(d);
			c->kind = get8(d);
			c->rel = get8(d);
			c->function = c->file = c->module = PC_NONE;
			d->bad |= c->parent >= i;
			g->ncontexts++;
		}
		n = (size_t)get64(d);
		for (size_t i = 0; i < n && !d->bad; i++) {
			const char *name = getstr(d, g);
			uint8_t stored = get8(d), scopes = get8(d),
				whole = get8(d);
			pc_id id = (whole ? pc_metric_get_whole :
					    pc_metric_get)(g, name ? name : "",
							   "", "");
			d->bad |= id != i;
			g->metrics[id].stored = stored;
			g->metrics[id].scopes = scopes;
		}
		n = (size_t)get64(d);
		for (size_t i = 0; i < n && !d->bad; i++)
			pc_profile_add(g, NULL, 0);
		g->share_n = 2; /* its profiles come after others' */
	}
	g->nplanned = g->nprofiles;
	d->bad |= l->nmetrics != g->nmetrics;
	if (d->bad && g != db) {
		pc_db_free(g);
		return NULL;
	}
	return d->bad ? NULL : g;
}

/* The kept profiles, handed to the part writer ps through g (their ids
 * mapped to g's by m, unless NULL), each record freed once taken. */
static int replay(struct pc_db *g, struct keeper *k, const struct maps *m,
		  struct pc_sink *ps, struct pc_err *err)
{
	int rc = 0;
	g->sink = ps;
	g->nflushed = 0;
	for (size_t i = 0; i < k->nprof; i++) {
		pc_id p = (pc_id)pc_getle(k->prof[i].p, 4) +
			  (m ? m->prof0 : 0);
		if (!rc && p < g->nprofiles)
			memset(&g->traces[p], 0, sizeof(g->traces[p]));
		if (!rc)
			rc = feed(g, &k->prof[i], m, err);
		free(k->prof[i].p);
		k->prof[i].p = NULL;
	}
	g->sink = NULL;
	return rc;
}

/* A part's record for rank 0: whether it failed, what it wrote, and
 * the counts of its values and samples. */
static void put_part(struct rec *r, int failed, const struct hpc_part *pt,
		     const struct pc_db *g, uint64_t nv, uint64_t nsv)
{
	put8(r, (uint8_t)failed);
	if (failed)
		return;
	put32(r, pt->p0);
	put64(r, pt->np);
	put64(r, pt->pend);
	put64(r, pt->tend);
	put64(r, pt->tmin);
	put64(r, pt->tmax);
	put64(r, nv);
	put64(r, nsv);
	memcpy(room(r, pt->np * 0x20), pt->block, pt->np * 0x20);
	put8(r, pt->tline != NULL);
	if (pt->tline)
		memcpy(room(r, pt->np * 0x18), pt->tline, pt->np * 0x18);
	for (size_t i = 0; i < pt->np; i++)
		put64(r, g->traces[pt->p0 + i].n);
	put64(r, pt->nlexd);
	for (size_t i = 0; i < pt->nlexd; i++) {
		put32(r, pt->lexd[i].loop);
		put32(r, pt->lexd[i].metric);
		putf(r, pt->lexd[i].d);
	}
}

int pc_mpi_part(struct pc_sink *s, struct pc_db *db, int with_tables,
		struct pc_err *err)
{
	struct keeper *k = (struct keeper *)s;
	send_tables(k, db, with_tables);
	struct maps m = { 0 };
	struct rec r = { 0 };
	if (with_tables) { /* rank 0's ids for this rank's */
		recv_rec(&r, 0);
		struct rd d = { r.p, r.p + r.n, 0 };
		m.prof0 = get32(&d);
		m.nctx = (size_t)get64(&d);
		m.ctx = pc_xmalloc((m.nctx + 1) * sizeof(pc_id));
		for (size_t i = 0; i < m.nctx && !d.bad; i++)
			m.ctx[i] = get32(&d);
		m.nmetric = (size_t)get64(&d);
		m.metric = pc_xmalloc((m.nmetric + 1) * sizeof(pc_id));
		for (size_t i = 0; i < m.nmetric && !d.bad; i++)
			m.metric[i] = get32(&d);
	}
	int rc = -1;
	struct pc_db *g = NULL;
	struct pc_sink *ps = NULL;
	struct hpc_lead ld;
	struct hpc_layout l;
	struct hpc_part pt = { 0 };
	if (pc_mpi_agree(0, err)) /* rank 0 could not take them */
		goto out;
	bcast_rec(&r);
	struct rd d = { r.p, r.p + r.n, 0 };
	g = get_lead(&d, &ld, &l, db, with_tables);
	const struct maps *pm = with_tables ? &m : NULL;
	/* its profiles' blocks into a spool, their sizes to rank 0 */
	int bad = 0;
	uint64_t nv0 = g ? g->flushed_values : 0, ns0 = g ? g->flushed_scoped : 0;
	if (!g) {
		bad = pc_err_set(err, "internal: a bad lead record from rank "
				 "0; please report this bug");
	} else {
		int rank;
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		char spool[4096];
		snprintf(spool, sizeof spool, "%s/.rank-%d", ld.dir, rank);
		pc_id p0 = k->nprof ? (pc_id)pc_getle(k->prof[0].p, 4) +
					      (pm ? pm->prof0 : 0) : 0;
		ps = pc_hpc_part(&ld, g, p0, spool, err);
		bad = !ps || replay(g, k, pm, ps, err);
	}
	uint64_t size[2] = { 0, 0 }, base[2] = { 0, 0 };
	if (!bad)
		pc_hpc_part_sizes(ps, &size[0], &size[1]);
	if (pc_mpi_agree(bad, err))
		goto out;
	MPI_Gather(size, 2, MPI_UINT64_T, NULL, 2, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	MPI_Scatter(NULL, 2, MPI_UINT64_T, base, 2, MPI_UINT64_T, 0,
		    MPI_COMM_WORLD);
	/* then in place */
	bad = pc_hpc_part_place(ps, base[0], base[1], &pt);
	struct rec o = { 0 };
	put_part(&o, bad, &pt, g, g->flushed_values - nv0,
		 g->flushed_scoped - ns0);
	send_rec(&o, 0);
	free(o.p);
	pc_hpc_part_free(&pt);
	rc = pc_mpi_agree(bad, err) ? -1 : 0;
out:
	if (ps)
		pc_hpc_part_free_sink(ps);
	if (g != db)
		pc_db_free(g);
	free(m.ctx);
	free(m.metric);
	free(r.p);
	return rc;
}

int pc_mpi_lead(struct pc_db *g, struct pc_sink *own, struct pc_sink *writer,
		int with_tables, int callgrind, unsigned size,
		struct pc_err *err)
{
	int rc = writer ? 0 : -1;
	struct keeper *k = (struct keeper *)own;
	for (size_t i = 0; k && i < k->nprof; i++) {
		if (!rc)
			rc = feed(g, &k->prof[i], NULL, err);
		free(k->prof[i].p);
		k->prof[i].p = NULL;
	}
	/* every rank's tables, merged in rank order; each rank gets back
	 * the ids they have in g */
	int trace = pc_samples_total(g) > 0;
	struct rec r = { 0 };
	double merging = 0, t0 = MPI_Wtime();
	for (unsigned from = 1; from < size; from++) {
		recv_rec(&r, (int)from);
		double t1 = MPI_Wtime();
		struct rd d = { r.p, r.p + r.n, 0 };
		get64(&d);
		uint64_t nctx = get64(&d);
		trace |= get8(&d);
		struct maps m = { 0 };
		if (with_tables) {
			if (!rc && merge_tables(g, &d, &m, callgrind))
				rc = pc_err_set(err, "internal: bad tables from "
						"rank %u; please report this "
						"bug", from);
			struct rec o = { 0 };
			put32(&o, m.prof0);
			put64(&o, m.nctx);
			for (size_t i = 0; i < m.nctx; i++)
				put32(&o, m.ctx[i]);
			put64(&o, m.nmetric);
			for (size_t i = 0; i < m.nmetric; i++)
				put32(&o, m.metric[i]);
			send_rec(&o, (int)from);
			free(o.p);
		} else if (!rc && nctx != g->ncontexts) {
			rc = pc_err_set(err, "internal: rank %u read %llu "
					"contexts, rank 0 %zu; please report "
					"this bug", from,
					(unsigned long long)nctx, g->ncontexts);
		}
		free(m.ctx);
		free(m.metric);
		merging += MPI_Wtime() - t1;
	}
	double waiting = MPI_Wtime() - t0 - merging;
	struct hpc_lead ld;
	if (!rc)
		rc = pc_hpc_lead(writer, g, trace, &ld, err);
	if (pc_mpi_agree(rc != 0, err))
		goto out;
	r.n = 0;
	put_lead(&r, &ld, g, with_tables);
	bcast_rec(&r);
	/* where each part goes: the ranks' sizes in turn, each part's
	 * profile.db bytes from a multiple of 8 (as every block starts) */
	uint64_t *size2 = pc_xcalloc(2 * (size_t)size, sizeof(uint64_t));
	uint64_t *base = pc_xcalloc(2 * (size_t)size, sizeof(uint64_t));
	uint64_t none[2] = { 0, 0 }, mine[2];
	if (pc_mpi_agree(0, err)) {
		rc = -1;
		goto out2;
	}
	MPI_Gather(none, 2, MPI_UINT64_T, size2, 2, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	uint64_t pat = (ld.pend + 7) & ~(uint64_t)7, tat = ld.tend;
	for (unsigned i = 1; i < size; i++) {
		base[2 * i] = pat;
		base[2 * i + 1] = tat;
		pat += (size2[2 * i] + 7) & ~(uint64_t)7;
		tat += size2[2 * i + 1];
	}
	MPI_Scatter(base, 2, MPI_UINT64_T, mine, 2, MPI_UINT64_T, 0,
		    MPI_COMM_WORLD);
	/* what each wrote, in profile order (none after a rank that
	 * failed: its own message says why) */
	int bad = 0, failed = 0;
	pc_id next = (pc_id)g->nflushed;
	uint64_t pbytes = 0, tbytes = 0;
	for (unsigned from = 1; from < size; from++) {
		recv_rec(&r, (int)from);
		struct rd d = { r.p, r.p + r.n, 0 };
		failed |= get8(&d);
		if (failed || bad)
			continue;
		struct hpc_part pt = { 0 };
		pt.p0 = get32(&d);
		pt.np = (size_t)get64(&d);
		pt.pend = get64(&d);
		pt.tend = get64(&d);
		pt.tmin = get64(&d);
		pt.tmax = get64(&d);
		g->flushed_values += get64(&d);
		g->flushed_scoped += get64(&d);
		if (pt.np > g->nprofiles || (pt.np && pt.p0 != next)) {
			bad = pc_err_set(err, "internal: rank %u wrote "
					 "profiles %u on, %u expected; please "
					 "report this bug", from, pt.p0, next);
			continue;
		}
		pt.block = (unsigned char(*)[0x20])take(&d, pt.np * 0x20);
		if (get8(&d))
			pt.tline = (unsigned char *)take(&d, pt.np * 0x18);
		for (size_t i = 0; i < pt.np && !d.bad; i++)
			g->traces[pt.p0 + i].n = (size_t)get64(&d);
		pt.nlexd = (size_t)get64(&d);
		if (pt.nlexd > r.n)
			d.bad = 1;
		else
			pt.lexd = pc_xmalloc((pt.nlexd + 1) * sizeof(*pt.lexd));
		for (size_t i = 0; i < pt.nlexd && !d.bad; i++) {
			pt.lexd[i].loop = get32(&d);
			pt.lexd[i].metric = get32(&d);
			pt.lexd[i].d = getf(&d);
		}
		if (d.bad)
			bad = pc_err_set(err, "internal: a bad part record "
					 "from rank %u; please report this "
					 "bug", from);
		else
			bad = pc_hpc_lead_add(writer, &pt) != 0;
		if (pt.np) {
			pbytes += pt.pend - base[2 * from];
			tbytes += pt.tline ? pt.tend - base[2 * from + 1] : 0;
		}
		free(pt.lexd);
		next += (pc_id)pt.np;
	}
	if (pc_mpi_agree(bad, err) || failed) {
		rc = -1;
	} else {
		const struct pc_diag *dg = g->diag;
		if (dg && dg->verbose && !dg->quiet)
			fprintf(stderr, "profconv: ranks 1 to %u: their tables "
				"merged in %.3f s (%.2f s waiting for them); "
				"they wrote %llu profiles: %llu bytes of "
				"profile.db, %llu of trace.db\n", size - 1,
				merging, waiting,
				(unsigned long long)(next - g->nflushed),
				(unsigned long long)pbytes,
				(unsigned long long)tbytes);
		g->nflushed = next;
	}
out2:
	free(size2);
	free(base);
out:
	free(r.p);
	return rc;
}
