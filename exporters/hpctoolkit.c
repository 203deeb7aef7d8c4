/* HPCToolkit v4 database: the driver, the propagation of point values
 * into hpcprof's four scopes, profile.db, cct.db and trace.db.
 *
 * Memory: the model's values and one thread's propagation scratch.
 * profile.db is written thread by thread; cct.db (context-major) and
 * the summary's statistics come from a merge of those blocks read back
 * from the file, so no copy of all propagated values is ever held. */
#include "hpctoolkit_writer.h"

#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct hpc_partial hpc_partials[5] = {
	{ "$$", 0, "sum" },
	{ "1", 0, "sum" },
	{ "($$^2)", 0, "sum" },
	{ "$$", 1, "min" },
	{ "$$", 2, "max" },
};


int hpcw_io_error(struct writer *w, const char *file)
{
	return pc_err_set(w->err, "%s/%s: cannot write: %s", w->dir, file,
			  strerror(errno ? errno : EIO));
}

/* Adds context c to the thread's set (once). */
static inline void touch(struct scratch *s, pc_id c)
{
	if (s->slot[c] != PC_NONE)
		return;
	PC_GROW(s->touched, s->ntouched, s->captouched);
	s->touched[s->ntouched] = c;
	s->slot[c] = (uint32_t)s->ntouched++;
}

static int cmp_u32_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Opens DIR/name and writes a placeholder header: magic, format,
 * version 4.0, zeroed section table (finish_file fills it in). */
static int start_file(struct writer *w, struct pc_out *o, const char *name,
		      const char *fmt, unsigned char *hdr, size_t hdrsize)
{
	char path[4096];
	pc_path_join(path, sizeof path, w->dir, name);
	if (pc_out_open(o, path))
		return hpcw_io_error(w, name);
	memset(hdr, 0, hdrsize);
	memcpy(hdr, "HPCTOOLKIT", 10);
	memcpy(hdr + 10, fmt, 4);
	hdr[0xe] = 4;
	pc_out_write(o, hdr, hdrsize);
	return 0;
}

static void blk_begin(struct blk *b)
{
	b->n = 0;
	b->nidx = 0;
	b->vlen = 0;
}

/* The values made so far, written at the end of o. */
static void blk_flush(struct pc_out *o, struct blk *b)
{
	if (b->vlen) /* a profile without values has no buffer yet */
		pc_out_write(o, b->vb, b->vlen);
	b->vlen = 0;
}

/* Room for another value: the values so far go out, or more room. */
static void blk_room(struct blk *b)
{
	if (b->out && b->vlen >= (size_t)1 << 20) {
		blk_flush(b->out, b);
	} else {
		b->vcap = b->vcap ? 2 * b->vcap : 4096;
		b->vb = pc_xrealloc(b->vb, b->vcap, 1);
	}
}

/* Room for n more values at once (a context's), put by the caller
 * at b->vb + b->vlen (10 bytes each: the metric id, the value) through
 * a pointer of its own, vlen and n counted after them: the byte
 * stores may alias b's fields, which kept them in memory a value. */
static inline void blk_reserve(struct blk *b, size_t n)
{
	while (b->vcap - b->vlen < 10 * n)
		blk_room(b);
}

/* The block's place in o: its values start here. */
static void blk_start(struct pc_out *o, struct blk *b)
{
	pc_out_align(o, 8);
	b->pvalues = o->pos;
}

/* Writes the rest of the values, the index, and fills in the block's
 * header (profile info). */
static void blk_end(struct pc_out *o, struct blk *b, unsigned char hdr[0x20])
{
	blk_flush(o, b);
	pc_out_align(o, 4);
	uint64_t pidx = o->pos;
	for (size_t i = 0; i < b->nidx; i++) {
		unsigned char *rec = pc_out_put(o, 12);
		pc_le32(rec, b->idx[i].ctx);
		pc_le64(rec + 4, b->idx[i].first);
	}
	memset(hdr, 0, 0x20);
	pc_le64(hdr, b->n);
	pc_le64(hdr + 8, b->n ? b->pvalues : 0);
	pc_le32(hdr + 0x10, (uint32_t)b->nidx);
	pc_le64(hdr + 0x18, b->nidx ? pidx : 0);
}

/* Loop c, metric m, a thread's accumulators d (derived, then stored):
 * the summary's lex_aware takes the derived value (function without
 * nested loops) where the stored one differs, as long as the derived
 * function value is the stored one (the point values are complete). */
static void lex_fix(const struct writer *w, struct scratch *s, pc_id c,
		    size_t m, const double *d)
{
	size_t own = w->own;
	double f = d[own + HPC_FUNCTION - 1],
	       delta = d[A_LEX] - d[own + HPC_LEXAWARE - 1];
	if (delta == 0 || fabs(d[A_FUNC] - f) > 1e-9 * fabs(f))
		return;
	PC_GROW(s->lexd, s->nlexd, s->caplexd);
	s->lexd[s->nlexd++] =
		(struct hpc_lexd){ w->loopix[c], (uint32_t)m, delta };
}

/* The summed differences, in profile order (the order of the sums); a
 * part keeps them for rank 0. */
void hpcw_lex_commit(struct writer *w, const struct hpc_lexd *d, size_t n)
{
	if (w->part) {
		for (size_t i = 0; i < n; i++) {
			PC_GROW(w->plexd, w->nplexd, w->capplexd);
			w->plexd[w->nplexd++] = d[i];
		}
		return;
	}
	if (n && !w->lexfix) {
		w->lexfix = pc_xcalloc(w->nloops * w->l.nmetrics,
				       sizeof(double));
		w->nlexfix = w->nloops;
	}
	for (size_t i = 0; i < n; i++)
		w->lexfix[(size_t)d[i].loop * w->l.nmetrics + d[i].metric] +=
			d[i].d;
}

/* A whole-number metric written without its point scope: reading it
 * back derives the point values from execution, exactly as long as the
 * values are whole numbers below 2^53 (struct pc_metric, whole). */
static inline int whole_below(double v)
{
	/* (whole below 2^53: a conversion to 64 bits and back keeps it;
	 * floor() was a call a value) */
	return fabs(v) < 0x1p53 && (double)(int64_t)v == v;
}

static int whole_ok(const struct writer *w, pc_id c, size_t m, double point,
		    double exec, struct pc_err *err)
{
	if (whole_below(point) && whole_below(exec))
		return 0;
	return pc_err_set(err, "metric '%s' at context %u: %.17g "
			  "(execution %.17g) is not a whole number below "
			  "2^53, as its input said; give --point",
			  w->db->metrics[m].name, c, point, exec);
}

/* Propagates one thread's point values v[0..n) (sorted by ctx), takes
 * the scopes its metrics have stored from sv[0..sn) and makes the
 * result its profile.db block, in scratch s (commit writes it). */
static int thread_profile(const struct writer *w, struct scratch *s,
			  const struct pc_value *v, size_t n,
			  const struct pc_value *sv, size_t sn,
			  struct pc_err *err)
{
	const struct pc_db *db = w->db;
	/* per metric: the derived accumulators (A_*), then (if any metric
	 * has stored scopes) the stored function, lex_aware and execution
	 * values */
	size_t nm = w->l.nmetrics, stride = w->stride, row = nm * stride;
	size_t own = w->own;
	s->ntouched = 0;
	s->nlexd = 0;
	blk_begin(&s->blk);
	if (!n && !sn)
		return 0;
	/* (the readers refuse NaN and infinities; a model made otherwise
	 * is refused here, not written for check to find) */
	for (size_t i = 0; i < n + sn; i++) {
		const struct pc_value *x = i < n ? &v[i] : &sv[i - n];
		if (!isfinite(x->value))
			return pc_err_set(err, "metric '%s' at context %u: %g "
					  "is not a finite number, which a v4 "
					  "database cannot hold",
					  db->metrics[x->metric].name, x->ctx,
					  x->value);
	}
	/* (sorted by ctx: a context's values come together) */
	for (size_t i = 0; i < n; i++)
		if (!i || v[i].ctx != v[i - 1].ctx)
			touch(s, v[i].ctx);
	for (size_t i = 0; i < sn; i++)
		if (!i || sv[i].ctx != sv[i - 1].ctx)
			touch(s, sv[i].ctx);
	/* every ancestor too, up to the global context 0 */
	for (size_t i = 0; i < s->ntouched; i++)
		if (s->touched[i])
			touch(s, db->contexts[s->touched[i]].parent);
	/* children have larger ids than their parents: descending order
	 * finishes every child before its parent */
	if (s->ntouched > db->ncontexts / 8) {
		/* most of the tree: a scan is cheaper than a sort */
		size_t k = 0;
		for (size_t c = db->ncontexts; c-- > 0;)
			if (s->slot[c] != PC_NONE)
				s->touched[k++] = (uint32_t)c;
	} else {
		qsort(s->touched, s->ntouched, sizeof(uint32_t),
		      cmp_u32_desc);
	}
	for (size_t i = 0; i < s->ntouched; i++)
		s->slot[s->touched[i]] = (uint32_t)i;
	if (s->capacc < s->ntouched * row) {
		/* nothing to copy over; fresh memory is zero already */
		free(s->acc);
		s->capacc = s->ntouched * row;
		s->acc = pc_xcalloc(s->capacc, sizeof(double));
	} else if (s->ntouched) {
		memset(s->acc, 0, s->ntouched * row * sizeof(double));
	}
	/* per context and metric: point, function, execution and (if the
	 * tree has loops) function without loops; all start at the point
	 * value */
	double *acc = s->acc;
	for (size_t i = 0; i < n; i++) {
		double *a = acc + s->slot[v[i].ctx] * row +
			    v[i].metric * stride;
		for (size_t k = 0; k < own; k++)
			a[k] += v[i].value;
	}
	for (size_t i = 0; i < sn; i++) {
		size_t m = sv[i].metric / PC_NSCOPES;
		unsigned k = sv[i].metric % PC_NSCOPES;
		acc[s->slot[sv[i].ctx] * row + m * stride + own + k - 1] +=
			sv[i].value;
	}
	for (size_t i = 0; i < s->ntouched; i++) {
		pc_id c = s->touched[i];
		if (!c)
			continue;
		const struct pc_context *x = &db->contexts[c];
		const double *a = acc + i * row;
		double *p = acc + (size_t)s->slot[x->parent] * row;
		int lex = x->rel == PC_REL_LEXICAL && x->parent != 0;
		int loop = x->kind == PC_CTX_LOOP;
		for (size_t m = 0; m < nm; m++) {
			p[m * stride + A_EXEC] += a[m * stride + A_EXEC];
			if (lex) {
				p[m * stride + A_FUNC] += a[m * stride + A_FUNC];
				if (!loop && own > A_LEX)
					p[m * stride + A_LEX] +=
						a[m * stride + A_LEX];
			}
		}
	}
	/* emit in ascending ctx order, metric ids ascending: a context's
	 * room made at once, its index entry if it has a value */
	struct blk *b = &s->blk;
	for (size_t i = s->ntouched; i-- > 0;) {
		pc_id c = s->touched[i];
		const double *a = acc + i * row;
		int loop = db->contexts[c].kind == PC_CTX_LOOP;
		uint64_t first = b->n;
		blk_reserve(b, nm * HPC_NSCOPES);
		/* the context's values (blk_reserve) */
		unsigned char *out = b->vb + b->vlen, *out0 = out;
		for (size_t m = 0; m < nm; m++) {
			const double *d = a + m * stride;
			unsigned stored = db->metrics[m].stored;
			/* lex_aware differs from function only at a loop */
			double sc[HPC_NSCOPES] = {
				d[A_POINT], d[A_FUNC],
				loop ? d[A_LEX] : d[A_FUNC], d[A_EXEC],
			};
			for (unsigned k = 1; stored && k < HPC_NSCOPES; k++)
				if (stored & (1u << k))
					sc[k] = d[own + k - 1];
			if (loop && w->loopix && (stored & (1u << HPC_LEXAWARE)))
				lex_fix(w, s, c, m, d);
			unsigned mask = w->l.scopes[m];
			if (!(mask & 1u << HPC_POINT) && db->metrics[m].whole &&
			    !(whole_below(d[A_POINT]) &&
			      whole_below(sc[HPC_EXECUTION])) &&
			    whole_ok(w, c, m, d[A_POINT], sc[HPC_EXECUTION], err))
				return -1;
			/* the global context carries the aggregate: execution
			 * scope only */
			if (c == 0)
				mask &= 1u << HPC_EXECUTION;
			/* the scopes written, ascending: their bits one by
			 * one, not a test of each of the four */
			uint16_t id0 = hpc_prop_id(&w->l, m, 0);
			for (; mask; mask &= mask - 1) {
				unsigned k = (unsigned)__builtin_ctz(mask);
				if (sc[k] != 0) {
					pc_le16(out, (uint16_t)(id0 + k));
					pc_lef64(out + 2, sc[k]);
					out += 10;
				}
			}
		}
		b->vlen += (size_t)(out - out0);
		b->n += (size_t)(out - out0) / 10;
		if (b->n > first) {
			PC_GROW(b->idx, b->nidx, b->capidx);
			b->idx[b->nidx++] = (struct blk_ctx){ c, first };
		}
	}
	for (size_t i = 0; i < s->ntouched; i++)
		s->slot[s->touched[i]] = PC_NONE;
	return 0;
}

/* Progress: the next step ("writing the database, 2/5: cct.db ..."),
 * with the bytes written so far; a step's own loops show their share
 * under the same label, so the figures never go back. */
static void progress(void *ctx, uint64_t done, uint64_t total)
{
	const struct writer *w = ctx;
	const struct pc_diag *d = w->db->diag;
	/* the bytes on disk: stat()s, only where progress is shown */
	if (d && d->progress && !d->quiet) {
		uint64_t size = pc_dest_size(w->dir, 1);
		pc_progress(w->db->diag, w->label, done, total,
			    size ? size : UINT64_MAX);
	}
}

/* Context c's summary values: the summary's block is the last of
 * profile.db (the room for them made once, the index entry once). */
static void cct_summary(void *ctx, pc_id c, const struct hpc_sv *v, size_t n)
{
	struct writer *w = ctx;
	struct blk *b = &w->sblk;
	if (!n)
		return;
	if (!b->nidx || b->idx[b->nidx - 1].ctx != c) {
		PC_GROW(b->idx, b->nidx, b->capidx);
		b->idx[b->nidx++] = (struct blk_ctx){ c, b->n };
	}
	blk_reserve(b, n);
	/* (blk_reserve) */
	unsigned char *p = b->vb + b->vlen;
	for (size_t i = 0; i < n; i++, p += 10) {
		pc_le16(p, v[i].metric);
		pc_lef64(p + 2, v[i].v);
	}
	b->vlen += 10 * n;
	b->n += n;
}

static void step(struct writer *w, const char *what)
{
	snprintf(w->label, sizeof w->label, "writing the database, %u/%u: %s",
		 w->step + 1, w->nsteps, what);
	w->step++;
	progress(w, 0, 0);
}

/* The end of a file with one section written ahead as a placeholder:
 * the footer, then the header (its first section entry) and the section
 * itself rewritten with their final contents. */
static int finish_file(struct writer *w, struct pc_out *o, const char *name,
		       const char *footer, unsigned char *hdr, size_t hdrsize,
		       uint64_t sec, const unsigned char *secbuf,
		       uint64_t secsize)
{
	pc_out_align(o, 8);
	pc_out_write(o, footer, 8);
	pc_le64(hdr + 0x10, secsize);
	pc_le64(hdr + 0x18, sec);
	pc_out_patch(o, 0, hdr, hdrsize);
	pc_out_patch(o, sec, secbuf, secsize);
	if (pc_out_close(o))
		return hpcw_io_error(w, name);
	return 0;
}

/* The scopes of each metric: a v4 input's own set (struct pc_metric,
 * scopes); function, lex_aware and execution for whole numbers, whose
 * point values reading derives back exactly from execution (point too
 * with --point); all four otherwise. A model read whole shows whether
 * a profile's sums stay below 2^53, where whole numbers are exact; a
 * streamed one (db->sink) is checked as it is written (whole_ok): its
 * values in the model are the importer's, not yet done. */
static void layout_scopes(struct writer *w, const struct pc_db *db)
{
	const unsigned all = (1u << HPC_NSCOPES) - 1;
	double *sum = pc_xcalloc(db->nmetrics + 1, sizeof(double));
	uint8_t *big = pc_xcalloc(db->nmetrics + 1, 1);
	for (size_t i = 0; !db->sink && i < db->nvalues; i++) {
		const struct pc_value *v = &db->values[i];
		if (i && v->profile != v[-1].profile)
			memset(sum, 0, db->nmetrics * sizeof(double));
		sum[v->metric] += fabs(v->value);
		big[v->metric] |= sum[v->metric] >= 0x1p53;
	}
	for (size_t m = 0; m < db->nmetrics; m++) {
		const struct pc_metric *x = &db->metrics[m];
		w->l.scopes[m] = (uint8_t)(x->scopes ? x->scopes :
					   w->point || !x->whole || big[m] ?
					   all : all & ~(1u << HPC_POINT));
	}
	free(big);
	free(sum);
}

/* The layout is fixed and profile.db opened at the first profile (or at
 * the end, for a model of no profile): the metrics are the importer's
 * by then. */
int hpcw_start(struct writer *w, const struct pc_db *db)
{
	w->db = db;
	w->l = (struct hpc_layout){ db->nmetrics,
				    w->stats || db->stats ? 5 : 1, NULL };
	w->l.scopes = pc_xmalloc(db->nmetrics + 1);
	layout_scopes(w, db);
	if (w->l.nmetrics * w->l.npartials * HPC_NSCOPES > 65535)
		return pc_err_set(w->err, "%zu metrics: more than an "
				  "HPCToolkit database can number (16-bit "
				  "metric ids)", db->nmetrics);
	if (start_file(w, &w->po, "profile.db", "prof", w->phdr,
		       sizeof w->phdr))
		return -1;
	w->begun = 1;
	/* loops are indexed (loopix, grown with the contexts) where a
	 * metric stores lex_aware */
	for (size_t m = 0; m < db->nmetrics; m++)
		w->storedlex |= (db->metrics[m].stored >> HPC_LEXAWARE) & 1;
	return 0;
}

/* Scratch s covers the contexts the model has now. */
static void scr_contexts(struct scratch *s, size_t nc)
{
	if (s->nslot >= nc)
		return;
	/* a block's index and touched list have at most an entry per
	 * context: reserved (untouched room costs nothing), not copied as
	 * they grow */
	if (!s->blk.idx) {
		s->blk.capidx = s->captouched = nc;
		s->blk.idx = pc_xmalloc(nc * sizeof(*s->blk.idx));
		s->touched = pc_xmalloc(nc * sizeof(*s->touched));
	}
	s->slot = pc_xrealloc(s->slot, nc, sizeof(uint32_t));
	for (size_t c = s->nslot; c < nc; c++)
		s->slot[c] = PC_NONE;
	s->nslot = nc;
}

static void scr_free(struct scratch *s)
{
	free(s->slot);
	free(s->touched);
	free(s->acc);
	free(s->blk.vb);
	free(s->blk.idx);
	free(s->lexd);
	memset(s, 0, sizeof(*s));
}

/* The per-context arrays cover the contexts the model has now (an
 * importer that streams adds contexts as it reads), and the profile's
 * accumulators are laid out for them. */
void hpcw_contexts(struct writer *w)
{
	const struct pc_db *db = w->db;
	size_t nc = db->ncontexts, from = w->ctx_seen;
	if (from < nc) {
		if (w->storedlex)
			w->loopix = pc_xrealloc(w->loopix, nc, sizeof(uint32_t));
		for (size_t c = from; c < nc; c++) {
			int loop = db->contexts[c].kind == PC_CTX_LOOP;
			w->loops |= loop;
			if (w->storedlex)
				w->loopix[c] = loop ? (uint32_t)w->nloops++ :
						      PC_NONE;
		}
		w->ctx_seen = nc;
		/* lex_fix's sums grow with the loops */
		if (w->lexfix && w->nlexfix < w->nloops) {
			w->lexfix = pc_xrealloc(w->lexfix,
						w->nloops * w->l.nmetrics,
						sizeof(double));
			memset(w->lexfix + w->nlexfix * w->l.nmetrics, 0,
			       (w->nloops - w->nlexfix) * w->l.nmetrics *
				       sizeof(double));
			w->nlexfix = w->nloops;
		}
	}
	/* lex_aware needs its own accumulator only in a tree with loops;
	 * written only when they change (writer threads read them) */
	size_t own = w->loops ? A_LEX + 1 : A_LEX, stride = own;
	for (size_t m = 0; m < db->nmetrics; m++)
		if (db->metrics[m].stored)
			stride = own + HPC_NSCOPES - 1;
	if (w->own != own || w->stride != stride) {
		w->own = own;
		w->stride = stride;
	}
}

/* trace.db's header and section (its entries filled in as the profiles
 * come), at the first profile with a trace. */
int hpcw_trace_open(struct writer *w, size_t nprofiles)
{
	if (start_file(w, &w->to, "trace.db", "trce", w->thdr,
		       sizeof w->thdr))
		return -1;
	w->topen = 1;
	w->tprofiles = nprofiles;
	w->tsec = w->to.pos;
	w->tsec_size = 0x20 + (uint64_t)SZ_TRACE * nprofiles;
	w->th = pc_xcalloc(w->tsec_size, 1);
	pc_out_write(&w->to, w->th, w->tsec_size);
	w->tmin = UINT64_MAX;
	w->tmax = 0;
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct pc_sample *x = a, *y = b;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* Profile p's trace line in trace.db (an empty one too, once the file
 * is open): its samples by time. */
void hpcw_trace_line(struct writer *w, pc_id p, const struct pc_trace *t)
{
	struct pc_out *o = &w->to;
	/* records go out in batches of at least the output buffer's size,
	 * which pc_out_write hands to the file without copying them */
	enum { NREC = PC_OUT_BUF / 12 + 1 };
	unsigned char *e = w->th + 0x20 + SZ_TRACE * (size_t)p;
	if (!o->f && !t->unsorted) { /* sizing: a line's records counted */
		size_t nline = 0;
		struct pc_trace_it it;
		struct pc_sample x;
		pc_id last = PC_NONE;
		pc_trace_begin(t, &it);
		while (pc_trace_next(&it, &x)) {
			nline += x.ctx != 0 || last != 0;
			last = x.ctx;
		}
		pc_out_align(o, 4);
		pc_le64(e + 8, o->pos);
		o->pos += 12 * (uint64_t)nline;
		pc_le64(e + 0x10, o->pos);
		return;
	}
	unsigned char *rec = w->rec;
	if (!rec)
		rec = w->rec = pc_xmalloc(12 * NREC);
	/* by time: samples in order (the usual case) are decoded as they
	 * are written, the others sorted first */
	struct pc_sample *sorted = NULL, x;
	struct pc_trace_it it;
	pc_trace_begin(t, &it);
	if (t->unsorted) {
		sorted = pc_trace_samples(t);
		qsort(sorted, t->n, sizeof(*sorted), cmp_sample);
	}
	pc_out_align(o, 4);
	uint64_t start = o->pos;
	pc_id last = PC_NONE;
	size_t nrec = 0; /* records in rec, written in batches */
	uint64_t first = 0, at = 0; /* the line's first and last times */
	int any = 0; /* a record written */
	for (size_t i = 0; sorted ? i < t->n : pc_trace_next(&it, &x); i++) {
		if (sorted)
			x = sorted[i];
		/* two "not running" samples in a row say nothing */
		if (x.ctx == 0 && last == 0)
			continue;
		last = x.ctx;
		pc_le64(rec + 12 * nrec, x.time);
		pc_le32(rec + 12 * nrec + 8, x.ctx);
		if (++nrec == NREC) {
			pc_out_write(o, rec, 12 * NREC);
			nrec = 0;
		}
		if (!any)
			first = x.time;
		any = 1;
		at = x.time;
	}
	pc_out_write(o, rec, 12 * nrec);
	/* the records go by time: the first is the line's least */
	if (any) {
		w->tmin = first < w->tmin ? first : w->tmin;
		w->tmax = at > w->tmax ? at : w->tmax;
	}
	pc_le32(e, (uint32_t)(p + 1));
	pc_le64(e + 8, start);
	pc_le64(e + 0x10, o->pos);
	free(sorted);
}

/* Room for the blocks of profiles up to p - 1 and the summary's. */
void hpcw_blocks(struct writer *w, size_t p)
{
	if (p + 1 <= w->capblock)
		return;
	size_t cap = w->capblock;
	w->capblock = p + 1 > 2 * cap ? p + 1 : 2 * cap;
	w->block = pc_xrealloc(w->block, w->capblock, sizeof(*w->block));
	memset(w->block + cap, 0, (w->capblock - cap) * sizeof(*w->block));
}

/* The sink, in two steps (struct pc_sink): encode propagates profile p
 * into writer thread k's scratch, any number at once; commit writes it
 * as the profile's profile.db block and its trace as its trace.db line,
 * in profile order. */
static int w_encode(struct pc_sink *sk, unsigned k, const struct pc_db *db,
		    pc_id p, const struct pc_value *v, size_t n,
		    const struct pc_value *sv, size_t sn, struct pc_err *err)
{
	struct writer *w = (struct writer *)sk;
	(void)p; /* a profile's block is the same wherever it goes */
	pthread_mutex_lock(&w->mu);
	w->err = err;
	int rc = !w->begun ? hpcw_start(w, db) : 0;
	if (!rc)
		hpcw_contexts(w);
	pthread_mutex_unlock(&w->mu);
	if (rc)
		return -1;
	struct scratch *s = &w->scr[k];
	scr_contexts(s, db->ncontexts);
	return thread_profile(w, s, v, n, sv, sn, err);
}

static int w_commit(struct pc_sink *sk, unsigned k, const struct pc_db *db,
		    pc_id p, const struct pc_trace *t, struct pc_err *err)
{
	struct writer *w = (struct writer *)sk;
	struct scratch *s = &w->scr[k];
	pthread_mutex_lock(&w->mu);
	w->err = err;
	hpcw_blocks(w, p + 1);
	if (!s->blk.out) /* encoded whole: its place is here */
		blk_start(&w->po, &s->blk);
	blk_end(&w->po, &s->blk, w->block[p + 1]);
	hpcw_lex_commit(w, s->lexd, s->nlexd);
	int rc = 0;
	if (w->part && p != w->pnext)
		rc = pc_err_set(err, "internal: profile %u of a rank's part "
				"after %u; please report this bug", p,
				w->pnext);
	w->pnext = p + 1;
	/* trace.db's section needs the number of profiles: the importer's
	 * plan while it streams, the model's at the end (a part's is open
	 * where any rank has a trace) */
	if (!rc && t->n && !w->topen &&
	    (w->part ? pc_err_set(err, "internal: a rank's trace without "
				  "trace.db; please report this bug") :
		       hpcw_trace_open(w, db->sink && db->nplanned ? db->nplanned :
							      db->nprofiles)))
		rc = -1;
	if (!rc && w->topen) {
		if (p >= w->tprofiles) {
			rc = pc_err_set(err, "internal: profile %u past the "
					"%zu planned; please report this bug",
					p, w->tprofiles);
		} else {
			/* the profiles before the file was opened: empty
			 * lines */
			for (; w->tdone < p; w->tdone++)
				hpcw_trace_line(w, (pc_id)w->tdone,
					      &(struct pc_trace){ 0 });
			hpcw_trace_line(w, p, t);
			w->tdone = p + 1;
		}
	}
	if (!rc && (w->po.failed || (w->topen && w->to.failed)))
		rc = hpcw_io_error(w, w->po.failed ? "profile.db" : "trace.db");
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* Both steps at once, on the caller's thread: the block's values go
 * to profile.db as they are made (a profile's block is not held). */
int hpcw_profile(struct pc_sink *sk, const struct pc_db *db, pc_id p,
		     const struct pc_value *v, size_t n,
		     const struct pc_value *sv, size_t sn,
		     const struct pc_trace *t, struct pc_err *err)
{
	struct writer *w = (struct writer *)sk;
	w->err = err;
	if (!w->begun && hpcw_start(w, db))
		return -1;
	struct blk *b = &w->scr[0].blk;
	blk_start(&w->po, b);
	b->out = &w->po;
	int rc = w_encode(sk, 0, db, p, v, n, sv, sn, err) ||
		 w_commit(sk, 0, db, p, t, err);
	b->out = NULL;
	return rc ? -1 : 0;
}

/* The end of profile.db: cct.db and the summary block from a pass over
 * the threads' blocks by context, then the id tuples and the profile
 * infos. */
static int finish_profile_cct(struct writer *w)
{
	const struct pc_db *db = w->db;
	struct pc_out *o = &w->po, co;
	unsigned char chdr[CCT_HEADER];
	/* the propagation scratch is done with: one thread that touches
	 * every context makes it the largest array of all. The summary
	 * block takes the first one's index (an entry per context at most,
	 * its pages touched already: a new one raised a Callgrind file's
	 * peak by its size) */
	w->sblk.idx = w->scr[0].blk.idx;
	w->sblk.capidx = w->scr[0].blk.capidx;
	w->scr[0].blk.idx = NULL;
	for (unsigned k = 0; k < w->nscr; k++)
		scr_free(&w->scr[k]);
	/* what the blocks need to be read back */
	pc_out_flush(o);
	if (o->failed || fflush(o->f))
		return hpcw_io_error(w, "profile.db");
	step(w, "cct.db");
	if (start_file(w, &co, "cct.db", "ctxt", chdr, sizeof chdr))
		return -1;
	/* cct.db's section: header and one {CI} per context id, filled as
	 * the contexts' blocks are written */
	size_t nctx = db->ncontexts;
	uint64_t sec = co.pos;
	uint64_t sec_size = 0x10 + (uint64_t)SZ_CI * nctx;
	unsigned char *ci = pc_xcalloc(sec_size, 1);
	pc_le64(ci, sec + 0x10);
	pc_le32(ci + 8, (uint32_t)nctx);
	ci[0xc] = SZ_CI;
	pc_out_write(&co, ci, sec_size);
	blk_begin(&w->sblk);
	blk_start(o, &w->sblk);
	w->sblk.out = o;
	struct hpc_cct in = {
		db, &w->l, w->lexfix, w->loopix, w->block, fileno(o->f),
		w->dir, w->jobs, w, progress, cct_summary,
	};
	int rc = pc_hpc_cct(&in, &co, ci, w->err);
	blk_end(o, &w->sblk, w->block[0]);
	if (rc) {
		pc_out_close(&co);
		free(ci);
		return -1;
	}
	rc = finish_file(w, &co, "cct.db", "__ctx.db", chdr, sizeof chdr, sec,
			 ci, sec_size);
	free(ci);
	if (rc)
		return -1;
	/* id tuples */
	pc_out_align(o, 8);
	uint64_t tuples = o->pos;
	uint64_t *ptuple = pc_xcalloc(db->nprofiles + 1, sizeof(uint64_t));
	for (size_t p = 0; p < db->nprofiles; p++) {
		const struct pc_profile *pr = &db->profiles[p];
		unsigned char t[8] = { 0 }, id[16];
		pc_out_align(o, 8);
		ptuple[p + 1] = o->pos;
		pc_le16(t, (uint16_t)pr->nids);
		pc_out_write(o, t, 8);
		for (uint32_t k = 0; k < pr->nids; k++) {
			const struct pc_idelem *e = &pr->ids[k];
			memset(id, 0, sizeof id);
			id[0] = (unsigned char)e->kind;
			pc_le16(id + 2, e->is_physical ? 1 : 0);
			pc_le32(id + 4, (uint32_t)e->logical);
			/* a logical id's physicalId is the logical id */
			pc_le64(id + 8, e->is_physical ? e->physical :
							  (uint32_t)e->logical);
			pc_out_write(o, id, 16);
		}
	}
	uint64_t tuples_end = o->pos;
	/* profile infos */
	pc_out_align(o, 8);
	uint64_t infos = o->pos;
	unsigned char ih[0x10] = { 0 };
	pc_le64(ih, infos + 0x10);
	pc_le32(ih + 8, (uint32_t)(db->nprofiles + 1));
	ih[0xc] = SZ_PROFILE;
	pc_out_write(o, ih, sizeof ih);
	for (size_t p = 0; p <= db->nprofiles; p++) {
		unsigned char pi[SZ_PROFILE] = { 0 };
		memcpy(pi, w->block[p], 0x20);
		pc_le64(pi + 0x20, ptuple[p]);
		pc_le32(pi + 0x28, p == 0 ? 1 : 0);
		pc_out_write(o, pi, sizeof pi);
	}
	uint64_t infos_end = o->pos;
	pc_out_align(o, 8);
	pc_out_write(o, "_prof.db", 8);
	unsigned char *hdr = w->phdr;
	pc_le64(hdr + 0x10, infos_end - infos);
	pc_le64(hdr + 0x18, infos);
	pc_le64(hdr + 0x20, tuples_end - tuples);
	pc_le64(hdr + 0x28, tuples);
	pc_out_patch(o, 0, hdr, PROF_HEADER);
	free(ptuple);
	w->begun = 0;
	if (pc_out_close(o))
		return hpcw_io_error(w, "profile.db");
	return 0;
}

/* The end of trace.db: the lines of the profiles after the last one
 * with a trace, the section, the time range. */
static int finish_trace_db(struct writer *w)
{
	const struct pc_db *db = w->db;
	if (!w->topen)
		return 0; /* no trace.db without samples */
	if (w->tprofiles != db->nprofiles)
		return pc_err_set(w->err, "internal: %zu profiles planned, "
				  "%zu read; please report this bug",
				  w->tprofiles, db->nprofiles);
	for (; w->tdone < db->nprofiles; w->tdone++)
		hpcw_trace_line(w, (pc_id)w->tdone, &(struct pc_trace){ 0 });
	unsigned char *th = w->th;
	pc_le64(th, w->tsec + 0x20);
	pc_le32(th + 8, (uint32_t)db->nprofiles);
	th[0xc] = SZ_TRACE;
	pc_le64(th + 0x10, w->tmin);
	pc_le64(th + 0x18, w->tmax);
	w->topen = 0;
	return finish_file(w, &w->to, "trace.db", "trace.db", w->thdr,
			   sizeof w->thdr, w->tsec, th, w->tsec_size);
}

void hpcw_free(struct writer *w)
{
	if (w->begun)
		pc_out_close(&w->po);
	if (w->topen)
		pc_out_close(&w->to);
	free(w->th);
	free(w->rec);
	for (unsigned k = 0; k < w->nscr; k++)
		scr_free(&w->scr[k]);
	free(w->scr);
	free(w->sblk.vb);
	free(w->sblk.idx);
	pthread_mutex_destroy(&w->mu);
	free(w->loopix);
	free(w->lexfix);
	free(w->block);
	free(w->l.scopes);
	free(w->plexd);
	for (size_t i = 0; i < w->nptrace; i++)
		pc_trace_free(&w->ptrace[i]);
	free(w->ptrace);
	free(w);
}

/* Streaming: the output is checked and its temporary made before any
 * input is read; profiles then come through the sink. */
static struct pc_sink *hpc_begin(const char *out,
				 const struct pc_export_opts *opts,
				 struct pc_err *err)
{
	if (pc_dest_check(out, 1, opts->force, NULL, err))
		return NULL;
	struct writer *w = pc_xcalloc(1, sizeof(*w));
	w->sink.profile = hpcw_profile;
	w->sink.encode = w_encode;
	w->sink.commit = w_commit;
	w->stats = opts->stats;
	w->point = opts->point;
	w->jobs = opts->jobs;
	w->err = err;
	if (pc_dest_begin(&w->dest, out, 1, err)) {
		free(w);
		return NULL;
	}
	w->nscr = w->sink.workers = opts->jobs > 1 ? opts->jobs : 1;
	w->scr = pc_xcalloc(w->nscr, sizeof(*w->scr));
	pthread_mutex_init(&w->mu, NULL);
	w->dir = w->dest.tmp;
	return &w->sink;
}

static void hpc_abort(struct pc_sink *s)
{
	struct writer *w = (struct writer *)s;
	pc_dest_abort(&w->dest);
	hpcw_free(w);
}

/* The profiles not written yet, trace.db's end, cct.db with the
 * summary. */
static int end_profiles(struct writer *w)
{
	const struct pc_db *db = w->db;
	int rc = 0;
	size_t i = 0, si = 0;
	for (pc_id p = db->nflushed; !rc && p < db->nprofiles; p++) {
		size_t j = i, sj = si;
		while (j < db->nvalues && db->values[j].profile == p)
			j++;
		while (sj < db->nscoped && db->scoped[sj].profile == p)
			sj++;
		/* no offset on a NULL array: a model may hold no values */
		rc = hpcw_profile(&w->sink, db, p, j > i ? db->values + i : NULL,
			       j - i, sj > si ? db->scoped + si : NULL, sj - si,
			       &db->traces[p], w->err);
		i = j;
		si = sj;
		if ((p & 255) == 255)
			progress(w, p, db->nprofiles);
	}
	if (!rc) {
		hpcw_contexts(w);
		hpcw_blocks(w, db->nprofiles);
		rc = finish_trace_db(w);
	}
	return rc ? rc : finish_profile_cct(w);
}

/* The rest of the database but metrics/default.yaml: end_profiles and
 * meta.db. With threads, the two at once: meta.db is built from the
 * tree alone, beside the profiles a model still holds (a Callgrind
 * file's, written on one thread) and the serial end of cct.db's merge.
 * The first error in that order is the one said. */
struct files {
	struct writer *w;
	int rc[2];
	uint64_t meta_bytes;
	struct pc_err meta_err;
};

static void files_one(void *ctx, size_t i, unsigned thread)
{
	(void)thread;
	struct files *t = ctx;
	struct writer *w = t->w;
	if (!i)
		t->rc[0] = end_profiles(w);
	else
		t->rc[1] = pc_hpc_write_meta(w->db, &w->l, w->dir,
					     &t->meta_bytes, &t->meta_err);
}

static int end_files(struct writer *w, struct pc_err *err)
{
	struct files t = { .w = w };
	if (w->jobs > 1) {
		pc_parallel(2, 2, files_one, &t);
		step(w, "meta.db");
	} else {
		files_one(&t, 0, 0);
		step(w, "meta.db");
		if (!t.rc[0])
			files_one(&t, 1, 0);
	}
	if (t.rc[0])
		return -1;
	if (t.rc[1]) {
		*err = t.meta_err;
		return -1;
	}
	/* hpcviewer cannot read more (the Callgrind importer's default
	 * tree stays below it; a tree of another input, or one made with
	 * --max-contexts, may not) */
	if (t.meta_bytes >= (uint64_t)1 << 31) {
		char size[32];
		pc_human_size(size, sizeof size, t.meta_bytes);
		pc_warn(w->db->diag, "meta.db is %s, more than the 2 GiB "
			"hpcviewer reads (hatchet and profconv read it); %zu "
			"contexts", size, w->db->ncontexts - 1);
	}
	return 0;
}

/* The profiles the importers did not hand on yet (all of them, without
 * streaming), then what needs every profile: cct.db and the summary,
 * meta.db, default.yaml; the whole output validated and put in place. */
static int hpc_end(struct pc_sink *s, const struct pc_db *db,
		   struct pc_err *err)
{
	struct writer *w = (struct writer *)s;
	/* (a model streamed has its profiles written already) */
	struct pc_db *split = !w->begun ? hpcw_split_lines(db) : NULL;
	if (split)
		db = split;
	w->err = err;
	w->db = db;
	w->nsteps = 5;
	step(w, "profile.db");
	int rc = !w->begun ? hpcw_start(w, db) : 0;
	if (!rc && (db->nmetrics != w->l.nmetrics ||
		    (db->stats && w->l.npartials == 1)))
		rc = pc_err_set(err, "internal: metrics added after the first "
				"profile was written; please report this bug");
	for (size_t c = 1; !rc && c < db->ncontexts; c++)
		if (db->contexts[c].parent >= c)
			rc = pc_err_set(err, "internal: context %zu before "
					"its parent", c);
	if (!rc)
		rc = end_files(w, err);
	step(w, "metrics/default.yaml");
	if (!rc)
		rc = pc_hpc_write_yaml(db, &w->l, w->dir, err);
	step(w, "validating it");
	/* what the writing freed (meta.db's buffer, the scratch) goes back
	 * to the system before the files are read again */
	pc_trim();
	/* nothing that fails validation is put in place: profconv check's
	 * own reader reads the whole output once more */
	if (!rc && pc_check_db(w->dir, w->jobs, err)) {
		pc_err_context(err, "the database written fails validation; "
			       "please report this bug");
		rc = -1;
	}
	pc_progress_done(db->diag);
	if (rc)
		pc_dest_abort(&w->dest);
	else
		rc = pc_dest_commit(&w->dest, db->diag, err);
	hpcw_free(w);
	hpcw_split_free(split);
	return rc;
}

static int hpc_write(const struct pc_db *db, const char *out,
		     const struct pc_export_opts *opts, struct pc_err *err)
{
	struct pc_sink *s = hpc_begin(out, opts, err);
	return s ? hpc_end(s, db, err) : -1;
}

/* A database is a directory: a name ending in .d, or an
 * existing directory (help convert says so) */
static int hpc_claims(const char *out)
{
	struct stat st;
	return pc_path_ends(out, ".d") ||
	       (stat(out, &st) == 0 && S_ISDIR(st.st_mode));
}

const struct pc_exporter pc_export_hpctoolkit = {
	.name = "hpctoolkit",
	.label = "HPCToolkit",
	.takes = PC_XO_STATS | PC_XO_POINT,
	.is_dir = 1,
	.description = "HPCToolkit v4 database directory (meta.db, "
		       "profile.db, cct.db, trace.db, metrics/default.yaml)",
	.claims = hpc_claims,
	.names = "*.d or an existing directory",
	.write = hpc_write,
	.begin = hpc_begin,
	.end = hpc_end,
	.abort = hpc_abort,
	.parts = &pc_hpc_parts,
};
