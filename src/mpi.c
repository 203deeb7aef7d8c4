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

int pc_mpi_send(struct pc_sink *s, const struct pc_db *db, int with_tables)
{
	struct keeper *k = (struct keeper *)s;
	struct rec t = { 0 };
	put64(&t, k->nprof);
	put64(&t, db ? db->ncontexts : 1);
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
