/* Profiles read apart and brought together (share.h). */
#include "share.h"
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the keeper: a rank's profiles, as records ---- */


/* A kept record: its head (profile 4 bytes, values, stored values,
 * trace samples, trace bytes 8 each, unsorted 1), values, stored values
 * (16 bytes each), then its trace's bytes. */
enum { KEPT_HEAD = 37 };

static void out_write(void *o, const void *p, size_t n)
{
	pc_out_write(o, p, n);
}

static void keep(struct keeper *k, pc_id p, const struct pc_value *v,
		 size_t n, const struct pc_value *sv, size_t sn,
		 const struct pc_trace *t)
{
	PC_GROW(k->prof, k->nprof, k->capprof);
	struct rec *r = &k->prof[k->nprof++];
	memset(r, 0, sizeof(*r));
	size_t tl = t ? (size_t)pc_trace_bytes(t) : 0;
	r->cap = KEPT_HEAD + 16 * (n + sn) + (k->spool.f ? 0 : tl);
	r->p = pc_xmalloc(r->cap);
	put32(r, p);
	put64(r, n);
	put64(r, sn);
	put64(r, t ? t->n : 0);
	put64(r, tl);
	put8(r, (uint8_t)(t && t->unsorted));
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
	if (k->spool.f) { /* to the file (the trace's bytes as they are) */
		r->cap = k->spool.pos;
		pc_out_write(&k->spool, r->p, r->n);
		if (tl)
			pc_trace_pieces(t, out_write, &k->spool);
		r->n += tl;
		free(r->p);
		r->p = NULL;
	} else if (tl) {
		pc_trace_get_bytes(t, room(r, tl));
	}
}

static int keeper_profile(struct pc_sink *s, const struct pc_db *db, pc_id p,
			  const struct pc_value *v, size_t n,
			  const struct pc_value *sv, size_t sn,
			  const struct pc_trace *t, struct pc_err *err)
{
	(void)db;
	struct keeper *k = (struct keeper *)s;
	keep(k, p, v, n, sv, sn, t);
	if (k->spool.failed)
		return pc_err_set(err, "%s: cannot write a temporary file: %s",
				  k->dir, strerror(errno));
	return 0;
}

struct pc_sink *pc_keeper(void)
{
	struct keeper *k = pc_xcalloc(1, sizeof(*k));
	k->sink.profile = keeper_profile;
	return &k->sink;
}

struct pc_sink *pc_keeper_spool(const char *dir, struct pc_err *err)
{
	struct keeper *k = (struct keeper *)pc_keeper();
	k->dir = dir;
	if (pc_out_tmp(&k->spool, dir)) {
		pc_err_set(err, "%s: cannot make a temporary file: %s", dir,
			   strerror(errno));
		free(k);
		return NULL;
	}
	return &k->sink;
}

/* n bytes of file fd from off into p: 0, or -1 with errno (0: short) */
static int read_at(int fd, uint64_t off, unsigned char *p, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t m = pread(fd, p + got, n - got, (off_t)(off + got));
		if (m < 0 && errno == EINTR)
			continue;
		if (m <= 0) {
			if (!m)
				errno = 0;
			return -1;
		}
		got += (size_t)m;
	}
	return 0;
}

const struct rec *pc_kept_rec(struct keeper *k, size_t i,
			      struct pc_trace *tr, struct pc_err *err)
{
	struct rec *r = &k->prof[i];
	memset(tr, 0, sizeof(*tr));
	if (!k->spool.f)
		return r;
	pc_out_flush(&k->spool);
	if (!k->spool.failed && fflush(k->spool.f))
		k->spool.failed = 1;
	if (k->spool.failed) {
		pc_err_set(err, "%s: cannot write a temporary file: %s",
			   k->dir, strerror(errno));
		return NULL;
	}
	/* its head first: the trace (the record's last bytes, its length
	 * at byte 28 of the head) is then read from the spool as it is
	 * written out, not held */
	int fd = fileno(k->spool.f);
	size_t hlen = r->n < KEPT_HEAD ? r->n : KEPT_HEAD, want = r->n;
	k->back.n = 0;
	int bad = read_at(fd, r->cap, room(&k->back, hlen), hlen);
	if (!bad && hlen == KEPT_HEAD) {
		uint64_t tl = pc_getle(k->back.p + 28, 8);
		int tfd = tl && tl <= r->n - KEPT_HEAD ? dup(fd) : -1;
		if (tfd >= 0) {
			*tr = (struct pc_trace){ .fd = tfd, .spooled = tl,
						 .at = r->cap + r->n - tl };
			want = r->n - (size_t)tl;
		}
	}
	if (bad || read_at(fd, r->cap + hlen, room(&k->back, want - hlen),
			   want - hlen)) {
		pc_err_set(err, "%s: cannot read a temporary file back: %s",
			   k->dir, errno ? strerror(errno) :
			   "it is shorter than written");
		pc_trace_free(tr);
		return NULL;
	}
	return &k->back;
}

int pc_keeper_failed(const struct pc_sink *s)
{
	return s && ((const struct keeper *)s)->spool.failed;
}

void pc_keeper_free(struct pc_sink *s)
{
	struct keeper *k = (struct keeper *)s;
	if (!k)
		return;
	for (size_t i = 0; i < k->nprof; i++)
		free(k->prof[i].p);
	free(k->prof);
	if (k->spool.f)
		pc_out_close(&k->spool);
	free(k->back.p);
	free(k);
}

uint64_t pc_kept(const struct pc_sink *s)
{
	return s ? ((const struct keeper *)s)->nprof : 0;
}

void pc_keep_rest(struct pc_sink *s, struct pc_db *db)
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
		pc_trace_free(t);
		memset(t, 0, sizeof(*t));
		v = v1;
		sv = s1;
	}
	db->nvalues = db->nscoped = 0;
}

int pc_take_share(struct pc_db *g, const struct pc_db *db, struct pc_sink *s,
		  const struct pc_importer *files, struct pc_err *err)
{
	struct keeper *k = (struct keeper *)s;
	struct rec t = { 0 };
	pc_put_tables(&t, db);
	struct rd d = { t.p, t.p + t.n, 0 };
	struct maps m = { 0 };
	int rc = pc_merge_tables(g, &d, &m, files) ?
		pc_err_set(err, "internal: a reader's tables do not read back; "
			   "please report this bug") : 0;
	free(t.p);
	for (size_t i = 0; i < k->nprof && !rc; i++) {
		struct pc_trace tr;
		const struct rec *r = pc_kept_rec(k, i, &tr, err);
		rc = r ? pc_feed(g, r, &m, &tr, err) : -1;
	}
	free(m.ctx);
	free(m.metric);
	return rc;
}

/* The tables of a rank's model. */
void pc_put_tables(struct rec *r, const struct pc_db *db)
{
	if (!db) { /* none of its own: empty tables */
		putstr(r, NULL);
		putstr(r, NULL);
		putstr(r, NULL);
		put64(r, 0);
		for (int i = 0; i < 4; i++)
			put64(r, 0);
		put64(r, 1); /* the root alone */
		put64(r, 0);
		return;
	}
	putstr(r, db->title);
	putstr(r, db->description);
	putstr(r, db->cut_note);
	uint64_t share;
	memcpy(&share, &db->cut_share, sizeof share);
	put64(r, share);
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
int pc_kept_trace(const struct keeper *k)
{
	for (size_t i = 0; i < k->nprof; i++)
		if (pc_getle(k->prof[i].p + 20, 8))
			return 1;
	return 0;
}


static pc_id at_or_none(const pc_id *map, size_t n, pc_id i)
{
	return i == PC_NONE || i >= n ? PC_NONE : map[i];
}

/* Merges a rank's tables into g: its modules, files and functions by
 * their fields, its metrics by name, its contexts by parent and fields
 * (pc_ctx_child), its profiles appended. */
int pc_merge_tables(struct pc_db *g, struct rd *d, struct maps *m,
		    const struct pc_importer *files)
{
	int cg = files != NULL;
	/* the first input's title, as one process keeps it */
	const char *title = getstr(d, g), *about = getstr(d, g);
	if (!g->title)
		g->title = title;
	if (!g->description)
		g->description = about;
	const char *cut = getstr(d, g);
	uint64_t bits = get64(d);
	double share;
	memcpy(&share, &bits, sizeof share);
	if (cut)
		pc_db_cut(g, share, cut);
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
	/* files read apart (Callgrind's): the entry offset and line of
	 * each function are set once its file is read
	 * (pc_functions_set_entries), so a later file finds a function of
	 * an earlier one only where neither is known, and else makes a
	 * twin; the entries a file found fill in those of the function it
	 * found */
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
		/* files read apart: numbered as their importer numbers
		 * them after the profiles before */
		if (files && files->renumber)
			files->renumber(g, ids, nids);
		pc_profile_add(g, ids, nids);
		free(ids);
	}
	free(mod);
	free(file);
	free(fn);
	return d->bad ? -1 : 0;
}

/* One profile record into g, handed on. */
int pc_feed(struct pc_db *g, const struct rec *r, const struct maps *m,
	    struct pc_trace *tr, struct pc_err *err)
{
	struct rd d = { r->p, r->p + r->n, 0 };
	pc_id lp = get32(&d);
	uint64_t nv = get64(&d), nsv = get64(&d), ns = get64(&d),
		 tl = get64(&d);
	int unsorted = get8(&d);
	pc_id p = m ? m->prof0 + lp : lp;
	int apart = tr && tr->spooled; /* the trace's bytes: not in r */
	if (d.bad || p >= g->nprofiles || nv > r->n || nsv > r->n ||
	    (apart ? tl != tr->spooled : tl > r->n)) {
		if (tr)
			pc_trace_free(tr);
		return pc_err_set(err, "internal: a bad profile record from "
				  "a rank; please report this bug");
	}
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
	const unsigned char *tb = tl && !apart ? take(&d, tl) : NULL;
	if (tl && !d.bad) {
		struct pc_trace t = { .n = (size_t)ns,
				      .b = (unsigned char *)tb,
				      .len = apart ? 0 : (size_t)tl };
		if (apart) {
			t = *tr;
			t.n = (size_t)ns;
		}
		t.unsorted = unsorted;
		t.map = m ? m->ctx : NULL;
		t.nmap = m ? m->nctx : 0;
		if (g->sink && !g->async) {
			/* handed on at once (pc_profile_done): the sink reads
			 * the ids through the map, not encoded again (and a
			 * spooled trace from its spool) */
			struct pc_trace *gt = &g->traces[p];
			pc_trace_free(gt);
			*gt = t;
			if (!apart) {
				gt->b = pc_xmalloc(tl);
				gt->cap = (size_t)tl;
				memcpy(gt->b, tb, tl);
			}
			if (apart) /* gt's now */
				memset(tr, 0, sizeof(*tr));
			apart = 0;
		} else {
			pc_trace_append(g, p, &t, t.map, t.nmap);
		}
	} else if (ns && !d.bad) { /* counted, not kept (no_traces) */
		g->traces[p].n += (size_t)ns;
	}
	if (apart)
		pc_trace_free(tr);
	if (d.bad)
		return pc_err_set(err, "internal: a bad profile record from "
				  "a rank; please report this bug");
	return pc_profile_done(g, p, err);
}

/* With tables, what of the model a part writes with: each context's
 * parent, kind and relation, each metric, the number of profiles. */
void pc_put_model(struct rec *r, const struct pc_db *g, int with_tables)
{
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

/* With tables, the model a part writes with, else db (NULL if the
 * record is bad). */
struct pc_db *pc_get_model(struct rd *d, struct pc_db *db, int with_tables)
{
	struct pc_db *g = with_tables ? pc_db_new(db ? db->diag : NULL) : db;
	if (!g)
		return NULL;
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
	if (d->bad && g != db) {
		pc_db_free(g);
		return NULL;
	}
	return d->bad ? NULL : g;
}

/* The kept profiles, handed to the part writer ps through g (their ids
 * mapped to g's by m, unless NULL), each record freed once taken. */
int pc_replay(struct pc_db *g, struct keeper *k, const struct maps *m,
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
			rc = pc_feed(g, &k->prof[i], m, NULL, err);
		free(k->prof[i].p);
		k->prof[i].p = NULL;
	}
	g->sink = NULL;
	return rc;
}
