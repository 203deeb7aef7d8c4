/* profconv-mpi: the v4 writer's side of ranks that write their own
 * profiles (struct pc_parts; doc/design.md, "MPI ranks"). Rank 0's
 * writer hands out where its files end and takes in what each part
 * wrote; a part runs the same writer code into a spool and the trace
 * lines into no file, learns where its bytes go, and puts them there.
 * The records between them are this file's alone (src/rec.h). */
#include "hpctoolkit_writer.h"
#include "rec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct hpc_lead { /* what rank 0's writer tells the parts */
	const char *dir;            /* the database being written */
	const struct hpc_layout *l; /* its metrics' layout */
	uint64_t pend, tend;        /* where its files end (tend 0: no
				     * trace.db) */
};
struct hpc_part { /* what a part wrote */
	pc_id p0;     /* its profiles, p0 .. p0 + np - 1 */
	size_t np;
	uint64_t pend, tend; /* where its bytes end */
	uint64_t tmin, tmax; /* its samples' time range */
	unsigned char (*block)[0x20]; /* a profile info's block part each */
	unsigned char *tline; /* a trace.db entry each (NULL: none) */
	struct hpc_lexd *lexd; /* in profile order */
	size_t nlexd;
};

/* Rank 0, once db holds every rank's tables: profile.db begun, and
 * trace.db if trace (a profile of some rank has samples), with the
 * lines of the profiles written so far; both on disk. */
static int lead_begin(struct pc_sink *s, const struct pc_db *db, int trace,
		      struct hpc_lead *ld, struct pc_err *err)
{
	struct writer *w = (struct writer *)s;
	w->err = err;
	w->db = db;
	if (!w->begun && hpcw_start(w, db))
		return -1;
	hpcw_contexts(w);
	if (trace && !w->topen &&
	    hpcw_trace_open(w, db->nplanned > db->nprofiles ? db->nplanned :
							 db->nprofiles))
		return -1;
	/* the empty lines of the profiles written so far */
	for (; w->topen && w->tdone < db->nflushed; w->tdone++)
		hpcw_trace_line(w, (pc_id)w->tdone, &(struct pc_trace){ 0 });
	pc_out_flush(&w->po);
	if (fflush(w->po.f) || w->po.failed)
		return hpcw_io_error(w, "profile.db");
	if (w->topen) {
		pc_out_flush(&w->to);
		if (fflush(w->to.f) || w->to.failed)
			return hpcw_io_error(w, "trace.db");
	}
	*ld = (struct hpc_lead){ w->dir, &w->l, w->po.pos,
				 w->topen ? w->to.pos : 0 };
	return 0;
}

/* Rank 0: a part written, taken in profile order. */
static int lead_add(struct pc_sink *s, const struct hpc_part *pt)
{
	struct writer *w = (struct writer *)s;
	if (!pt->np)
		return 0;
	if ((pt->tline != NULL) != w->topen)
		return pc_err_set(w->err, "internal: a rank's part and "
				  "trace.db disagree; please report this bug");
	hpcw_blocks(w, pt->p0 + pt->np);
	memcpy(w->block + pt->p0 + 1, pt->block, pt->np * sizeof(*w->block));
	pc_out_seek(&w->po, pt->pend);
	if (pt->tline) {
		memcpy(w->th + 0x20 + SZ_TRACE * (size_t)pt->p0, pt->tline,
		       SZ_TRACE * pt->np);
		w->tdone = pt->p0 + pt->np;
		w->tmin = pt->tmin < w->tmin ? pt->tmin : w->tmin;
		w->tmax = pt->tmax > w->tmax ? pt->tmax : w->tmax;
		pc_out_seek(&w->to, pt->tend);
	}
	hpcw_lex_commit(w, pt->lexd, pt->nlexd);
	return 0;
}

/* A part's profile: its block into the spool, its trace line's size
 * learnt and the trace kept (pc_hpc_part_place writes it). */
static int part_profile(struct pc_sink *sk, const struct pc_db *db, pc_id p,
			const struct pc_value *v, size_t n,
			const struct pc_value *sv, size_t sn,
			const struct pc_trace *t, struct pc_err *err)
{
	struct writer *w = (struct writer *)sk;
	if (hpcw_profile(sk, db, p, v, n, sv, sn, t, err))
		return -1;
	PC_GROW(w->ptrace, w->nptrace, w->capptrace);
	pc_trace_copy(&w->ptrace[w->nptrace++], t);
	return 0;
}

/* Another rank: a sink for profiles p0 on (db: the whole tree and
 * metrics) that writes their blocks into a spool file (unlinked, in
 * ld's directory) and keeps their traces; then the sizes of its
 * profile.db and trace.db bytes; then, given where they go, puts them
 * in ld's files and says what it wrote (part_place). */
static struct pc_sink *part_new(const struct hpc_lead *ld,
				const struct pc_db *db, pc_id p0,
				struct pc_err *err)
{
	struct writer *w = pc_xcalloc(1, sizeof(*w));
	w->sink.profile = part_profile;
	w->err = err;
	w->db = db;
	w->dir = ld->dir;
	w->jobs = w->nscr = 1;
	w->scr = pc_xcalloc(1, sizeof(*w->scr));
	pthread_mutex_init(&w->mu, NULL);
	w->part = 1;
	w->p0 = w->pnext = p0;
	w->l = *ld->l;
	w->l.scopes = pc_xmalloc(w->l.nmetrics + 1);
	memcpy(w->l.scopes, ld->l->scopes, w->l.nmetrics);
	for (size_t m = 0; m < db->nmetrics; m++)
		w->storedlex |= (db->metrics[m].stored >> HPC_LEXAWARE) & 1;
	/* the blocks go to a spool of its own beside the output, from 0 (a
	 * multiple of 8, as where they go), gone once closed */
	if (pc_out_tmp(&w->po, w->dir)) {
		pc_err_set(err, "%s: cannot make a temporary file: %s",
			   w->dir, strerror(errno));
		hpcw_free(w);
		return NULL;
	}
	w->begun = 1;
	if (ld->tend) { /* sizes first */
		pc_out_null(&w->to, 0);
		w->topen = 1;
		w->tprofiles = db->nprofiles;
		w->th = pc_xcalloc(0x20 + SZ_TRACE * (size_t)db->nprofiles, 1);
		w->tdone = p0;
	}
	return &w->sink;
}

static void parts_sizes(const struct pc_sink *s, uint64_t size[2])
{
	const struct writer *w = (const struct writer *)s;
	size[0] = w->po.pos;
	size[1] = w->topen ? w->to.pos : 0;
}

static int part_place(struct pc_sink *s, uint64_t pbase, uint64_t tbase,
		      struct hpc_part *pt)
{
	struct writer *w = (struct writer *)s;
	memset(pt, 0, sizeof(*pt));
	pt->p0 = w->p0;
	pt->np = w->pnext - w->p0;
	pt->pend = pbase + w->po.pos;
	/* the blocks: the spool's bytes at pbase, their offsets moved */
	char path[4096];
	pc_path_join(path, sizeof path, w->dir, "profile.db");
	struct pc_out out;
	int rc = pc_out_reopen(&out, path, pbase) ||
		 pc_out_append(&out, &w->po);
	if (out.f && pc_out_close(&out))
		rc = -1;
	if (pc_out_close(&w->po))
		rc = -1;
	w->begun = 0;
	if (rc)
		return hpcw_io_error(w, "profile.db");
	pt->block = pc_xmalloc(pt->np * sizeof(*w->block) + 1);
	for (size_t i = 0; i < pt->np; i++) {
		unsigned char *h = pt->block[i];
		memcpy(h, w->block[w->p0 + 1 + i], 0x20);
		if (pc_getle(h, 8))
			pc_le64(h + 8, pc_getle(h + 8, 8) + pbase);
		if (pc_getle(h + 0x10, 4))
			pc_le64(h + 0x18, pc_getle(h + 0x18, 8) + pbase);
	}
	/* the trace lines, at tbase: the bytes sized (a part that wrote
	 * more would overwrite the next one's) */
	if (w->topen) {
		uint64_t sized = w->to.pos;
		pc_out_close(&w->to);
		pc_path_join(path, sizeof path, w->dir, "trace.db");
		if (pc_out_reopen(&w->to, path, tbase)) {
			w->topen = 0;
			return hpcw_io_error(w, "trace.db");
		}
		w->tmin = UINT64_MAX;
		w->tmax = 0;
		for (size_t i = 0; i < pt->np; i++) {
			struct pc_trace *t = &w->ptrace[i];
			hpcw_trace_line(w, w->p0 + (pc_id)i, t);
			pc_trace_free(t);
		}
		pt->tend = w->to.pos;
		w->topen = 0;
		if (pc_out_close(&w->to))
			return hpcw_io_error(w, "trace.db");
		if (pt->tend - tbase != sized)
			return pc_err_set(w->err, "internal: a rank's trace "
					  "lines took %llu bytes, %llu sized; "
					  "please report this bug",
					  (unsigned long long)(pt->tend - tbase),
					  (unsigned long long)sized);
		pt->tmin = w->tmin;
		pt->tmax = w->tmax;
		pt->tline = pc_xmalloc(SZ_TRACE * pt->np + 1);
		memcpy(pt->tline, w->th + 0x20 + SZ_TRACE * (size_t)w->p0,
		       SZ_TRACE * pt->np);
	}
	pt->lexd = w->plexd;
	pt->nlexd = w->nplexd;
	w->plexd = NULL;
	return 0;
}

static void parts_free(struct pc_sink *s)
{
	hpcw_free((struct writer *)s);
}

static void part_free(struct hpc_part *pt)
{
	free(pt->block);
	free(pt->tline);
	free(pt->lexd);
	memset(pt, 0, sizeof(*pt));
}

/* ---- the records (struct pc_parts) ---- */

/* The lead: the database's directory, the metrics' layout, where its
 * files end. */
static int parts_lead(struct pc_sink *s, const struct pc_db *db, int trace,
		      struct rec *r, uint64_t end[2], struct pc_err *err)
{
	struct hpc_lead ld = { 0 };
	if (lead_begin(s, db, trace, &ld, err))
		return -1;
	putstr(r, ld.dir);
	put64(r, ld.l->nmetrics);
	put32(r, ld.l->npartials);
	memcpy(room(r, ld.l->nmetrics), ld.l->scopes, ld.l->nmetrics);
	put64(r, ld.pend);
	put64(r, ld.tend);
	end[0] = ld.pend;
	end[1] = ld.tend;
	return 0;
}

static struct pc_sink *parts_part(struct rd *d, struct pc_db *db, pc_id p0,
				  struct pc_err *err)
{
	struct hpc_layout l;
	struct hpc_lead ld = { .l = &l };
	ld.dir = getstr(d, db);
	l.nmetrics = (size_t)get64(d);
	l.npartials = get32(d);
	l.scopes = (uint8_t *)take(d, l.nmetrics);
	ld.pend = get64(d);
	ld.tend = get64(d);
	if (d->bad || !ld.dir || l.nmetrics != db->nmetrics) {
		pc_err_set(err, "internal: a bad lead record from rank 0; "
			   "please report this bug");
		return NULL;
	}
	return part_new(&ld, db, p0, err);
}

/* What a part wrote: its profiles, where its bytes end, its time
 * range, its blocks, its trace lines, its loops' corrections. */
static int parts_place(struct pc_sink *s, const uint64_t base[2],
		       struct rec *r, struct pc_err *err)
{
	struct hpc_part pt = { 0 };
	((struct writer *)s)->err = err;
	int rc = part_place(s, base[0], base[1], &pt);
	if (!rc) {
		put32(r, pt.p0);
		put64(r, pt.np);
		put64(r, pt.pend);
		put64(r, pt.tend);
		put64(r, pt.tmin);
		put64(r, pt.tmax);
		memcpy(room(r, pt.np * 0x20), pt.block, pt.np * 0x20);
		put8(r, pt.tline != NULL);
		if (pt.tline)
			memcpy(room(r, pt.np * SZ_TRACE), pt.tline,
			       pt.np * SZ_TRACE);
		put64(r, pt.nlexd);
		for (size_t i = 0; i < pt.nlexd; i++) {
			put32(r, pt.lexd[i].loop);
			put32(r, pt.lexd[i].metric);
			putf(r, pt.lexd[i].d);
		}
	}
	part_free(&pt);
	return rc;
}

static int parts_add(struct pc_sink *s, struct rd *d, pc_id next, size_t *np,
		     uint64_t end[2], struct pc_err *err)
{
	struct writer *w = (struct writer *)s;
	struct hpc_part pt = { 0 };
	pt.p0 = get32(d);
	pt.np = (size_t)get64(d);
	pt.pend = get64(d);
	pt.tend = get64(d);
	pt.tmin = get64(d);
	pt.tmax = get64(d);
	if (pt.np > w->db->nprofiles || (pt.np && pt.p0 != next))
		return pc_err_set(err, "internal: a rank wrote profiles %u "
				  "on, %u expected; please report this bug",
				  pt.p0, next);
	pt.block = (unsigned char(*)[0x20])take(d, pt.np * 0x20);
	if (get8(d))
		pt.tline = (unsigned char *)take(d, pt.np * SZ_TRACE);
	pt.nlexd = (size_t)get64(d);
	if (pt.nlexd > (size_t)(d->end - d->p))
		d->bad = 1;
	else
		pt.lexd = pc_xmalloc((pt.nlexd + 1) * sizeof(*pt.lexd));
	for (size_t i = 0; i < pt.nlexd && !d->bad; i++) {
		pt.lexd[i].loop = get32(d);
		pt.lexd[i].metric = get32(d);
		pt.lexd[i].d = getf(d);
	}
	int rc = d->bad ? pc_err_set(err, "internal: a bad part record from "
				     "a rank; please report this bug") :
			  lead_add(s, &pt);
	free(pt.lexd);
	*np = pt.np;
	if (!rc && pt.np) {
		end[0] = pt.pend;
		if (pt.tline)
			end[1] = pt.tend;
	}
	return rc;
}

/* profile.db's blocks start at multiples of 8; trace.db's lines
 * anywhere */
const struct pc_parts pc_hpc_parts = {
	.align = { 8, 1 },
	.lead = parts_lead,
	.part = parts_part,
	.sizes = parts_sizes,
	.place = parts_place,
	.free = parts_free,
	.add = parts_add,
};
