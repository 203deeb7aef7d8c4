/* HPCToolkit v4 database: the driver, the propagation of point values
 * into hpcprof's four scopes, profile.db, cct.db and trace.db.
 *
 * Memory: the model's point values, plus one array of the propagated
 * values of every thread (needed context-major for cct.db and for the
 * summary statistics), sorted in place once. profile.db is written
 * thread by thread while that array fills. */
#include "hpctoolkit.h"

#include <errno.h>
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

#define PROF_HEADER 0x30
#define SZ_PROFILE 0x30
#define CCT_HEADER 0x30
#define SZ_CI 0x20
#define TRACE_HEADER 0x20
#define SZ_TRACE 0x18

struct writer {
	const struct pc_db *db;
	struct hpc_layout l;
	const char *dir;
	struct pc_err *err;

	/* per-thread propagation scratch */
	uint32_t *slot;  /* per context: index into touched, or PC_NONE */
	uint32_t *touched;
	size_t ntouched, captouched;
	double *acc; /* per touched context: nmetrics x 4 accumulators */
	size_t capacc;

	/* propagated values of all threads: (profile index, ctx, id) */
	struct pc_value *all;
	size_t nall, capall;

	/* value blocks of profile.db, by profile index (0 = summary) */
	unsigned char (*block)[0x20];
};

static int io_error(struct writer *w, const char *file)
{
	return pc_err_set(w->err, "%s/%s: cannot write: %s", w->dir, file,
			  strerror(errno ? errno : EIO));
}

/* Adds context c to the thread's set (once). */
static void touch(struct writer *w, pc_id c)
{
	if (w->slot[c] != PC_NONE)
		return;
	PC_GROW(w->touched, w->ntouched, w->captouched);
	w->touched[w->ntouched] = c;
	w->slot[c] = (uint32_t)w->ntouched++;
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
		return io_error(w, name);
	memset(hdr, 0, hdrsize);
	memcpy(hdr, "HPCTOOLKIT", 10);
	memcpy(hdr + 10, fmt, 4);
	hdr[0xe] = 4;
	pc_out_write(o, hdr, hdrsize);
	return 0;
}

/* Writes one {PSVB} value block (values sorted by ctx then metric id)
 * at the end of the file and records its header. */
static void write_block(struct pc_out *o, const struct pc_value *v, size_t n,
			unsigned char hdr[0x20])
{
	unsigned char rec[12];
	pc_out_align(o, 8);
	uint64_t pvalues = o->pos;
	uint32_t nctx = 0;
	for (size_t i = 0; i < n; i++) {
		pc_le16(rec, (uint16_t)v[i].metric);
		pc_lef64(rec + 2, v[i].value);
		pc_out_write(o, rec, 10);
		nctx += i == 0 || v[i].ctx != v[i - 1].ctx;
	}
	pc_out_align(o, 4);
	uint64_t pidx = o->pos;
	for (size_t i = 0; i < n; i++) {
		if (i && v[i].ctx == v[i - 1].ctx)
			continue;
		pc_le32(rec, v[i].ctx);
		pc_le64(rec + 4, i);
		pc_out_write(o, rec, 12);
	}
	memset(hdr, 0, 0x20);
	pc_le64(hdr, n);
	pc_le64(hdr + 8, n ? pvalues : 0);
	pc_le32(hdr + 0x10, nctx);
	pc_le64(hdr + 0x18, nctx ? pidx : 0);
}

/* Propagates one thread's point values v[0..n) (sorted by ctx), takes
 * the scopes its metrics have stored from sv[0..sn), writes its
 * profile.db block and appends the result to w->all. */
static void thread_profile(struct writer *w, struct pc_out *o, pc_id prof,
			   const struct pc_value *v, size_t n,
			   const struct pc_value *sv, size_t sn)
{
	const struct pc_db *db = w->db;
	/* per metric: 4 derived accumulators, then 4 stored values */
	size_t nm = w->l.nmetrics, row = nm * 8;
	w->ntouched = 0;
	if (!n && !sn) {
		write_block(o, NULL, 0, w->block[prof + 1]);
		return;
	}
	for (size_t i = 0; i < n; i++)
		touch(w, v[i].ctx);
	for (size_t i = 0; i < sn; i++)
		touch(w, sv[i].ctx);
	/* every ancestor too, up to the global context 0 */
	for (size_t i = 0; i < w->ntouched; i++)
		if (w->touched[i])
			touch(w, db->contexts[w->touched[i]].parent);
	/* children have larger ids than their parents: descending order
	 * finishes every child before its parent */
	qsort(w->touched, w->ntouched, sizeof(uint32_t), cmp_u32_desc);
	for (size_t i = 0; i < w->ntouched; i++)
		w->slot[w->touched[i]] = (uint32_t)i;
	if (w->capacc < w->ntouched * row) {
		w->capacc = w->ntouched * row;
		w->acc = pc_xrealloc(w->acc, w->capacc, sizeof(double));
	}
	/* per context and metric: point, function, function without
	 * loops, execution; all start at the point value */
	double *acc = w->acc;
	if (w->ntouched)
		memset(acc, 0, w->ntouched * row * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		double *a = acc + w->slot[v[i].ctx] * row + v[i].metric * 8;
		for (int k = 0; k < 4; k++)
			a[k] += v[i].value;
	}
	for (size_t i = 0; i < sn; i++)
		acc[w->slot[sv[i].ctx] * row + sv[i].metric / PC_NSCOPES * 8 +
		    4 + sv[i].metric % PC_NSCOPES] += sv[i].value;
	for (size_t i = 0; i < w->ntouched; i++) {
		pc_id c = w->touched[i];
		if (!c)
			continue;
		const struct pc_context *x = &db->contexts[c];
		const double *a = acc + i * row;
		double *p = acc + (size_t)w->slot[x->parent] * row;
		int lex = x->rel == PC_REL_LEXICAL && x->parent != 0;
		int loop = x->kind == PC_CTX_LOOP;
		for (size_t m = 0; m < nm; m++) {
			p[m * 8 + 3] += a[m * 8 + 3];
			if (lex) {
				p[m * 8 + 1] += a[m * 8 + 1];
				if (!loop)
					p[m * 8 + 2] += a[m * 8 + 2];
			}
		}
	}
	/* emit in ascending ctx order, metric ids ascending */
	size_t first = w->nall;
	for (size_t i = w->ntouched; i-- > 0;) {
		pc_id c = w->touched[i];
		const double *a = acc + i * row;
		int loop = db->contexts[c].kind == PC_CTX_LOOP;
		for (size_t m = 0; m < nm; m++) {
			const double *d = a + m * 8;
			double sc[HPC_NSCOPES] = {
				d[0], d[1], loop ? d[2] : d[1], d[3],
			};
			for (unsigned k = 1; k < HPC_NSCOPES; k++)
				if (db->metrics[m].stored & (1u << k))
					sc[k] = d[4 + k];
			for (unsigned k = 0; k < HPC_NSCOPES; k++) {
				/* the global context carries the aggregate:
				 * execution scope only */
				if (sc[k] == 0 || (c == 0 && k != HPC_EXECUTION))
					continue;
				PC_GROW(w->all, w->nall, w->capall);
				w->all[w->nall++] = (struct pc_value){
					prof + 1, c, hpc_prop_id(&w->l, m, k),
					sc[k] };
			}
		}
	}
	write_block(o, w->all + first, w->nall - first, w->block[prof + 1]);
	for (size_t i = 0; i < w->ntouched; i++)
		w->slot[w->touched[i]] = PC_NONE;
}

static int cmp_metric(const void *a, const void *b)
{
	const struct pc_value *x = a, *y = b;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* The summary profile from the context-major propagated values: per
 * (ctx, prop id) run over threads, the statistics of hpc_partials. */
static void summary_profile(struct writer *w, struct pc_out *o)
{
	struct pc_value *sum = NULL;
	size_t nsum = 0, capsum = 0;
	const struct hpc_layout *l = &w->l;
	for (size_t i = 0; i < w->nall;) {
		size_t j = i;
		double s = 0, sq = 0, mn = w->all[i].value, mx = mn;
		while (j < w->nall && w->all[j].ctx == w->all[i].ctx &&
		       w->all[j].metric == w->all[i].metric) {
			double v = w->all[j].value;
			s += v;
			sq += v * v;
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			j++;
		}
		unsigned per = l->npartials * HPC_NSCOPES;
		size_t m = w->all[i].metric / per;
		unsigned scope = w->all[i].metric % HPC_NSCOPES;
		double stat[5] = { s, (double)(j - i), sq, mn, mx };
		for (unsigned k = 0; k < l->npartials; k++) {
			if (stat[k] == 0)
				continue;
			PC_GROW(sum, nsum, capsum);
			sum[nsum++] = (struct pc_value){
				0, w->all[i].ctx, hpc_stat_id(l, m, k, scope),
				stat[k] };
		}
		i = j;
	}
	/* within a context, statistic ids interleave: sort by id */
	for (size_t i = 0; i < nsum;) {
		size_t j = i;
		while (j < nsum && sum[j].ctx == sum[i].ctx)
			j++;
		qsort(sum + i, j - i, sizeof(*sum), cmp_metric);
		i = j;
	}
	write_block(o, sum, nsum, w->block[0]);
	free(sum);
}

static int write_profile_db(struct writer *w)
{
	const struct pc_db *db = w->db;
	struct pc_out o;
	unsigned char hdr[PROF_HEADER];
	if (start_file(w, &o, "profile.db", "prof", hdr, sizeof hdr))
		return -1;
	w->block = pc_xcalloc(db->nprofiles + 1, sizeof(*w->block));
	w->slot = pc_xmalloc(db->ncontexts * sizeof(uint32_t));
	for (size_t c = 0; c < db->ncontexts; c++)
		w->slot[c] = PC_NONE;
	size_t i = 0, si = 0;
	for (pc_id p = 0; p < db->nprofiles; p++) {
		size_t j = i, sj = si;
		while (j < db->nvalues && db->values[j].profile == p)
			j++;
		while (sj < db->nscoped && db->scoped[sj].profile == p)
			sj++;
		/* no offset on a NULL array: a model may hold no values */
		thread_profile(w, &o, p, j > i ? db->values + i : NULL, j - i,
			       sj > si ? db->scoped + si : NULL, sj - si);
		i = j;
		si = sj;
		if ((p & 255) == 255)
			pc_progress(db->diag, "writing the database: "
				    "profile.db", p, db->nprofiles, o.pos);
	}
	static const size_t order[3] = {
		offsetof(struct pc_value, ctx),
		offsetof(struct pc_value, metric),
		offsetof(struct pc_value, profile),
	};
	/* one thread's values are already context-major */
	if (db->nprofiles > 1)
		pc_values_sort(w->all, w->nall, order);
	summary_profile(w, &o);

	/* id tuples */
	pc_out_align(&o, 8);
	uint64_t tuples = o.pos;
	uint64_t *ptuple = pc_xcalloc(db->nprofiles + 1, sizeof(uint64_t));
	for (size_t p = 0; p < db->nprofiles; p++) {
		const struct pc_profile *pr = &db->profiles[p];
		unsigned char t[8] = { 0 }, id[16];
		pc_out_align(&o, 8);
		ptuple[p + 1] = o.pos;
		pc_le16(t, (uint16_t)pr->nids);
		pc_out_write(&o, t, 8);
		for (uint32_t k = 0; k < pr->nids; k++) {
			const struct pc_idelem *e = &pr->ids[k];
			memset(id, 0, sizeof id);
			id[0] = (unsigned char)e->kind;
			pc_le16(id + 2, e->is_physical ? 1 : 0);
			pc_le32(id + 4, (uint32_t)e->logical);
			/* a logical id's physicalId is the logical id */
			pc_le64(id + 8, e->is_physical ? e->physical :
							  (uint32_t)e->logical);
			pc_out_write(&o, id, 16);
		}
	}
	uint64_t tuples_end = o.pos;
	/* profile infos */
	pc_out_align(&o, 8);
	uint64_t infos = o.pos;
	unsigned char ih[0x10] = { 0 };
	pc_le64(ih, infos + 0x10);
	pc_le32(ih + 8, (uint32_t)(db->nprofiles + 1));
	ih[0xc] = SZ_PROFILE;
	pc_out_write(&o, ih, sizeof ih);
	for (size_t p = 0; p <= db->nprofiles; p++) {
		unsigned char pi[SZ_PROFILE] = { 0 };
		memcpy(pi, w->block[p], 0x20);
		pc_le64(pi + 0x20, ptuple[p]);
		pc_le32(pi + 0x28, p == 0 ? 1 : 0);
		pc_out_write(&o, pi, sizeof pi);
	}
	uint64_t infos_end = o.pos;
	pc_out_align(&o, 8);
	pc_out_write(&o, "_prof.db", 8);
	pc_le64(hdr + 0x10, infos_end - infos);
	pc_le64(hdr + 0x18, infos);
	pc_le64(hdr + 0x20, tuples_end - tuples);
	pc_le64(hdr + 0x28, tuples);
	pc_out_patch(&o, 0, hdr, sizeof hdr);
	free(ptuple);
	if (pc_out_close(&o))
		return io_error(w, "profile.db");
	return 0;
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
		return io_error(w, name);
	return 0;
}

static int write_cct_db(struct writer *w)
{
	const struct pc_db *db = w->db;
	size_t nctx = db->ncontexts;
	struct pc_out o;
	unsigned char hdr[CCT_HEADER];
	if (start_file(w, &o, "cct.db", "ctxt", hdr, sizeof hdr))
		return -1;
	/* the section: header and one {CI} per context id, filled once the
	 * blocks' places are known */
	uint64_t sec = o.pos;
	uint64_t sec_size = 0x10 + (uint64_t)SZ_CI * nctx;
	unsigned char *ci = pc_xcalloc(sec_size, 1);
	pc_le64(ci, sec + 0x10);
	pc_le32(ci + 8, (uint32_t)nctx);
	ci[0xc] = SZ_CI;
	pc_out_write(&o, ci, sec_size);
	unsigned char rec[12];
	for (size_t i = 0; i < w->nall;) {
		pc_id c = w->all[i].ctx;
		size_t j = i;
		uint16_t nmet = 0;
		while (j < w->nall && w->all[j].ctx == c) {
			nmet += j == i || w->all[j].metric != w->all[j - 1].metric;
			j++;
		}
		pc_out_align(&o, 8);
		uint64_t pv = o.pos;
		for (size_t k = i; k < j; k++) {
			pc_le32(rec, w->all[k].profile);
			pc_lef64(rec + 4, w->all[k].value);
			pc_out_write(&o, rec, 12);
		}
		pc_out_align(&o, 2);
		uint64_t pm = o.pos;
		for (size_t k = i; k < j; k++) {
			if (k > i && w->all[k].metric == w->all[k - 1].metric)
				continue;
			pc_le16(rec, (uint16_t)w->all[k].metric);
			pc_le64(rec + 2, k - i);
			pc_out_write(&o, rec, 10);
		}
		unsigned char *e = ci + 0x10 + (size_t)SZ_CI * c;
		pc_le64(e, j - i);
		pc_le64(e + 8, pv);
		pc_le16(e + 0x10, nmet);
		pc_le64(e + 0x18, pm);
		i = j;
	}
	int rc = finish_file(w, &o, "cct.db", "__ctx.db", hdr, sizeof hdr, sec,
			     ci, sec_size);
	free(ci);
	return rc;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct pc_sample *x = a, *y = b;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int write_trace_db(struct writer *w)
{
	const struct pc_db *db = w->db;
	size_t total = 0;
	for (size_t p = 0; p < db->nprofiles; p++)
		total += db->traces[p].n;
	if (!total)
		return 0; /* no trace.db without samples */
	struct pc_out o;
	unsigned char hdr[TRACE_HEADER];
	if (start_file(w, &o, "trace.db", "trce", hdr, sizeof hdr))
		return -1;
	uint64_t sec = o.pos;
	uint64_t sec_size = 0x20 + (uint64_t)SZ_TRACE * db->nprofiles;
	unsigned char *th = pc_xcalloc(sec_size, 1);
	pc_out_write(&o, th, sec_size);
	uint64_t tmin = UINT64_MAX, tmax = 0;
	unsigned char rec[12];
	for (size_t p = 0; p < db->nprofiles; p++) {
		const struct pc_trace *t = &db->traces[p];
		struct pc_sample *s = pc_xmalloc((t->n + 1) * sizeof(*s));
		if (t->n)
			memcpy(s, t->s, t->n * sizeof(*s));
		/* stable by time (samples at equal times keep their order) */
		int sorted = 1;
		for (size_t i = 1; i < t->n && sorted; i++)
			sorted = s[i - 1].time <= s[i].time;
		if (!sorted)
			qsort(s, t->n, sizeof(*s), cmp_sample);
		pc_out_align(&o, 4);
		uint64_t start = o.pos;
		pc_id last = PC_NONE;
		for (size_t i = 0; i < t->n; i++) {
			/* two "not running" samples in a row say nothing */
			if (s[i].ctx == 0 && last == 0)
				continue;
			last = s[i].ctx;
			pc_le64(rec, s[i].time);
			pc_le32(rec + 8, s[i].ctx);
			pc_out_write(&o, rec, 12);
			tmin = s[i].time < tmin ? s[i].time : tmin;
			tmax = s[i].time > tmax ? s[i].time : tmax;
		}
		unsigned char *e = th + 0x20 + SZ_TRACE * p;
		pc_le32(e, (uint32_t)(p + 1));
		pc_le64(e + 8, start);
		pc_le64(e + 0x10, o.pos);
		free(s);
	}
	pc_le64(th, sec + 0x20);
	pc_le32(th + 8, (uint32_t)db->nprofiles);
	th[0xc] = SZ_TRACE;
	pc_le64(th + 0x10, tmin);
	pc_le64(th + 0x18, tmax);
	int rc = finish_file(w, &o, "trace.db", "trace.db", hdr, sizeof hdr,
			     sec, th, sec_size);
	free(th);
	return rc;
}

static int hpc_write(const struct pc_db *db, const char *out,
		     const struct pc_export_opts *opts, struct pc_err *err)
{
	if (pc_dest_check(out, 1, opts->force, NULL, err))
		return -1;
	struct hpc_layout l = { db->nmetrics, opts->stats ? 5 : 1 };
	if (l.nmetrics * l.npartials * HPC_NSCOPES > 65535)
		return pc_err_set(err, "%zu metrics: more than an HPCToolkit "
				  "database can number (16-bit metric ids)",
				  db->nmetrics);
	for (size_t c = 1; c < db->ncontexts; c++)
		if (db->contexts[c].parent >= c)
			return pc_err_set(err, "internal: context %zu before "
					  "its parent", c);
	struct pc_dest o;
	if (pc_dest_begin(&o, out, 1, err))
		return -1;
	const char *tmp = o.tmp;
	struct writer w = { .db = db, .l = l, .dir = tmp, .err = err };
	/* progress by step, with the bytes written so far */
#define STEP(k, what)                                                   \
	pc_progress(db->diag, "writing the database: " what, k, 6,     \
		    pc_dest_size(tmp, 1))
	STEP(0, "meta.db");
	int rc = pc_hpc_write_meta(db, &l, tmp, err);
	STEP(1, "profile.db");
	if (!rc)
		rc = write_profile_db(&w);
	STEP(2, "cct.db");
	if (!rc)
		rc = write_cct_db(&w);
	STEP(3, "trace.db");
	if (!rc)
		rc = write_trace_db(&w);
	STEP(4, "metrics/default.yaml");
	if (!rc)
		rc = pc_hpc_write_yaml(db, &l, tmp, err);
	STEP(5, "validating it");
#undef STEP
	/* nothing that fails validation is put in place: profconv check's
	 * own reader reads the whole output once more */
	if (!rc && pc_check_db(tmp, err)) {
		pc_err_context(err, "the database written fails validation; "
			       "please report this bug");
		rc = -1;
	}
	pc_progress_done(db->diag);
	free(w.slot);
	free(w.touched);
	free(w.acc);
	free(w.all);
	free(w.block);
	if (rc)
		pc_dest_abort(&o);
	else
		rc = pc_dest_commit(&o, db->diag, err);
	return rc;
}

static int hpc_claims(const char *out)
{
	(void)out;
	return 0; /* the default when no other format claims the name */
}

const struct pc_exporter pc_export_hpctoolkit = {
	.name = "hpctoolkit",
	.is_dir = 1,
	.description = "HPCToolkit v4 database directory (meta.db, "
		       "profile.db, cct.db, trace.db, metrics/default.yaml)",
	.claims = hpc_claims,
	.write = hpc_write,
};
