/* cct.db and the summary profile of a v4 database, from the thread
 * blocks of profile.db read back and merged by context: no second copy
 * of the values in memory. With -j, the contexts are cut into ranges
 * merged at once, each by a thread of its own, and put together in
 * order: the same bytes for every -j. */
#include "hpctoolkit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reading profile.db back: a buffered stream over a byte range. */
struct rd {
	uint64_t off, end; /* the part of the range not read yet */
	unsigned char *buf;
	size_t cap, pos, len;
};

static const unsigned char *rd_fill(int fd, struct rd *r, size_t n);

/* (inline: twice a context and profile) The stream's next n bytes (n
 * <= cap); NULL if the file ends first or cannot be read. */
static inline const unsigned char *rd_next(int fd, struct rd *r, size_t n)
{
	if (r->len - r->pos < n)
		return rd_fill(fd, r, n);
	const unsigned char *p = r->buf + r->pos;
	r->pos += n;
	return p;
}

/* rd_next once the buffer holds less than n bytes: it is refilled. */
static const unsigned char *rd_fill(int fd, struct rd *r, size_t n)
{
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	uint64_t want = r->cap - r->len;
	if (want > r->end - r->off)
		want = r->end - r->off;
	while (want) {
		ssize_t k = pread(fd, r->buf + r->len, (size_t)want,
				  (off_t)r->off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		r->len += (size_t)k;
		r->off += (uint64_t)k;
		want -= (uint64_t)k;
	}
	if (r->len < n)
		return NULL;
	r->pos = n;
	return r->buf;
}

/* One thread's block read back context by context: the current
 * context, its values [first, next), and the entries of the index left
 * after the one read ahead. */
struct cur {
	struct rd idx, val;
	uint64_t nvalues, left;
	uint32_t ctx, nextctx;
	uint64_t first, next;
	pc_id prof;
};

/* Reads the index entry after the current one (or the end). */
static inline int cur_ahead(int fd, struct cur *k)
{
	if (!k->left) {
		k->next = k->nvalues;
		return 0;
	}
	const unsigned char *e = rd_next(fd, &k->idx, 12);
	if (!e)
		return -1;
	k->left--;
	k->nextctx = (uint32_t)pc_getle(e, 4);
	k->next = pc_getle(e + 4, 8);
	return k->next < k->first || k->next > k->nvalues ? -1 : 0;
}

/* Moves to the next context; 1 at the end of the block, -1 on error. */
static int cur_step(int fd, struct cur *k)
{
	if (k->next >= k->nvalues)
		return 1;
	k->ctx = k->nextctx;
	k->first = k->next;
	return cur_ahead(fd, k);
}

static int cur_less(const struct cur *a, const struct cur *b)
{
	return a->ctx != b->ctx ? a->ctx < b->ctx : a->prof < b->prof;
}

/* Restores the min-heap h[0..n) by (ctx, profile) below position i. */
static void sift(struct cur **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && cur_less(h[l], h[m]))
			m = l;
		if (l + 1 < n && cur_less(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct cur *t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* One value of a context, as cct.db orders them. */
struct gv {
	uint32_t prof;
	uint16_t metric;
	double v;
};

static int cmp_stat(const void *a, const void *b)
{
	const struct hpc_sv *x = a, *y = b;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

static int cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;
	return x < y ? -1 : x > y;
}

/* A range of contexts merged by a thread (pc_parallel): its cct.db bytes
 * (positions from 0) and summary values go to unlinked files of their
 * own, appended in order once every range is done; range 0 writes
 * straight into cct.db and the summary. */
struct range {
	pc_id lo, hi;
	int first; /* range 0 */
	const struct hpc_cct *in;
	int fd;
	unsigned char *ci;
	size_t cap; /* stream buffer per profile and stream */
	struct pc_out co, so;
	int rc, err_no;
};

/* Context c's summary values v[0..n) (the range's own: range 0 hands
 * them on, the others keep them in their file: 14-byte records). */
static void summary_out(const struct hpc_cct *in, struct range *r, pc_id c,
			const struct hpc_sv *v, size_t n)
{
	if (r->first) {
		in->summary(in->ctx, c, v, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char *rec = pc_out_put(&r->so, 14);
		pc_le32(rec, c);
		pc_le16(rec + 4, v[i].metric);
		pc_lef64(rec + 6, v[i].v);
	}
}

/* State of the pass over all threads' blocks by context. */
struct merge {
	struct gv *g, *out;
	struct hpc_sv *sum;
	size_t ng, capg, capout, nsum, capsum;
	size_t nfrom; /* the blocks g[0..ng) came from */
	uint32_t *cnt; /* per metric id */
	uint16_t *ids; /* the ids of the context, distinct */
};

/* m->g[0..n) in m->out by metric id (stable: profiles ascending within
 * a metric), its distinct ids counted in *nids */
static void sort_metric(struct merge *m, size_t n, size_t *pnids)
{
	size_t nids = 0;
	/* a stable counting sort by metric id */
	for (size_t i = 0; i < n; i++)
		if (!m->cnt[m->g[i].metric]++)
			m->ids[nids++] = m->g[i].metric;
	/* a context has a few metric ids, mostly in order already: an
	 * insertion sort (qsort's call was a tenth of this pass) */
	if (nids > 64) {
		qsort(m->ids, nids, sizeof(*m->ids), cmp_u16);
	} else {
		for (size_t i = 1; i < nids; i++) {
			uint16_t t = m->ids[i];
			size_t j = i;
			for (; j && m->ids[j - 1] > t; j--)
				m->ids[j] = m->ids[j - 1];
			m->ids[j] = t;
		}
	}
	uint32_t at = 0;
	for (size_t d = 0; d < nids; d++) {
		uint32_t k = m->cnt[m->ids[d]];
		m->cnt[m->ids[d]] = at;
		at += k;
	}
	if (m->capout < n) {
		m->capout = n;
		m->out = pc_xrealloc(m->out, n, sizeof(*m->out));
	}
	for (size_t i = 0; i < n; i++)
		m->out[m->cnt[m->g[i].metric]++] = m->g[i];
	for (size_t d = 0; d < nids; d++)
		m->cnt[m->ids[d]] = 0;
	*pnids = nids;
}

/* Writes context c's values m->g[0..ng) (profiles ascending) as its
 * cct.db block, metric-major, and their statistics to the summary
 * (the range's own: see struct range). A block's records and its
 * metric entries are put at once where they fit the output's buffer,
 * not a test of room a value. */
static void context_out(const struct hpc_cct *in, struct merge *m, pc_id c,
			struct range *r, unsigned char *ci)
{
	const struct hpc_layout *l = in->l;
	struct pc_out *co = &r->co;
	size_t n = m->ng, nids = 0;
	/* one profile's values come in metric order: the sort's order
	 * already (the ids are those of the runs), counted in one pass.
	 * A block's ids are distinct and ascending (check_block says so
	 * of what is written): one block's values (a single profile's,
	 * a Callgrind file's) are n ids without that pass */
	const struct gv *v = m->g;
	if (m->nfrom == 1) {
		nids = n;
	} else {
		size_t i0 = 1;
		for (; i0 < n && v[i0].metric >= v[i0 - 1].metric; i0++)
			nids += v[i0].metric != v[i0 - 1].metric;
		if (i0 >= n) {
			nids += n > 0;
		} else {
			sort_metric(m, n, &nids);
			v = m->out;
		}
	}
	pc_out_align(co, 8);
	uint64_t pv = co->pos;
	if (12 * n <= PC_OUT_BUF) {
		unsigned char *rec = pc_out_put(co, 12 * n);
		for (size_t i = 0; i < n; i++, rec += 12) {
			pc_le32(rec, v[i].prof);
			pc_lef64(rec + 4, v[i].v);
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			unsigned char *rec = pc_out_put(co, 12);
			pc_le32(rec, v[i].prof);
			pc_lef64(rec + 4, v[i].v);
		}
	}
	pc_out_align(co, 2);
	uint64_t pm = co->pos;
	/* (nids <= 65536: 640 KiB at most, within the buffer) */
	unsigned char *me = pc_out_put(co, 10 * nids);
	m->nsum = 0;
	/* at most npartials statistics a metric id */
	if (m->capsum < nids * l->npartials) {
		m->capsum = nids * l->npartials > 2 * m->capsum ?
				    nids * l->npartials : 2 * m->capsum;
		m->sum = pc_xrealloc(m->sum, m->capsum, sizeof(*m->sum));
	}
	unsigned per = l->npartials * HPC_NSCOPES;
	size_t from = 0; /* the values left to the general loop */
	/* a loop's lex_aware sums are mended (lex_fix) */
	const double *fix = in->lexfix && in->loopix[c] != PC_NONE ?
				    in->lexfix + (size_t)in->loopix[c] *
							 l->nmetrics :
				    NULL;
	if (l->npartials == 1 && nids == n) {
		/* a value a metric id (one profile's, say), the sum alone:
		 * the sum is the value, its statistic's id the metric id */
		/* (the sums' array and count in locals: the byte stores
		 * may alias m's fields, which kept them in memory) */
		struct hpc_sv *sum = m->sum;
		size_t nsum = 0;
		for (size_t i = 0; i < n; i++) {
			uint16_t id = v[i].metric;
			double s = 0;
			s += v[i].v;
			pc_le16(me, id);
			pc_le64(me + 2, i);
			me += 10;
			if (fix && id % HPC_NSCOPES == HPC_LEXAWARE)
				s += fix[id / per];
			if (s != 0)
				sum[nsum++] = (struct hpc_sv){ id, s };
		}
		m->nsum = nsum;
		from = n;
	}
	for (size_t i = from; i < n;) {
		uint16_t id = v[i].metric;
		size_t j = i;
		double s = 0, sq = 0, mn = v[i].v, mx = mn;
		if (l->npartials == 1) { /* the sum alone */
			for (; j < n && v[j].metric == id; j++)
				s += v[j].v;
		} else {
			for (; j < n && v[j].metric == id; j++) {
				s += v[j].v;
				sq += v[j].v * v[j].v;
				mn = v[j].v < mn ? v[j].v : mn;
				mx = v[j].v > mx ? v[j].v : mx;
			}
		}
		pc_le16(me, id);
		pc_le64(me + 2, i);
		me += 10;
		/* the summary: hpc_partials' statistics over the threads */
		size_t met = id / per;
		unsigned scope = id % HPC_NSCOPES;
		if (fix && scope == HPC_LEXAWARE)
			s += fix[met];
		if (l->npartials == 1) {
			if (s != 0)
				m->sum[m->nsum++] = (struct hpc_sv){
					hpc_stat_id(l, met, 0, scope), s };
			i = j;
			continue;
		}
		double stat[5] = { s, (double)(j - i), sq, mn, mx };
		for (unsigned k = 0; k < l->npartials; k++) {
			if (stat[k] == 0)
				continue;
			m->sum[m->nsum++] = (struct hpc_sv){
				hpc_stat_id(l, met, k, scope), stat[k] };
		}
		i = j;
	}
	unsigned char *e = ci + 0x10 + (size_t)SZ_CI * c;
	pc_le64(e, n);
	pc_le64(e + 8, pv);
	pc_le16(e + 0x10, (uint16_t)nids);
	pc_le64(e + 0x18, pm);
	/* with several statistics, their ids interleave over scopes */
	if (l->npartials > 1)
		qsort(m->sum, m->nsum, sizeof(*m->sum), cmp_stat);
	summary_out(in, r, c, m->sum, m->nsum);
}

/* The first index entry of the block of cursor k whose context is lo or
 * later (the entries are sorted by context): cursor k starts there. */
static int cur_seek(int fd, struct cur *k, uint64_t pidx, uint64_t pval,
		    pc_id lo)
{
	uint64_t a = 0, b = k->left;
	unsigned char e[12];
	while (a < b) {
		uint64_t mid = a + (b - a) / 2;
		if (pread(fd, e, 4, (off_t)(pidx + 12 * mid)) != 4)
			return -1;
		if (pc_getle(e, 4) < lo)
			a = mid + 1;
		else
			b = mid;
	}
	k->left -= a;
	k->idx.off = pidx + 12 * a;
	if (!k->left)
		return 0;
	if (pread(fd, e, 12, (off_t)(pidx + 12 * a)) != 12)
		return -1;
	uint64_t first = pc_getle(e + 4, 8);
	if (first > k->nvalues)
		return -1;
	k->val.off = pval + 10 * first;
	k->first = k->next = first;
	return 0;
}

/* Appends the values of cursor x's current context to m->g and moves x
 * on: 0, 1 at the end of its block, -1 on error. */
static int take(int fd, struct cur *x, struct merge *m)
{
	uint64_t n = x->next - x->first;
	m->nfrom++;
	while (n) {
		/* as many as the stream's buffer holds at once */
		uint64_t k = x->val.cap / 10 < n ? x->val.cap / 10 : n;
		const unsigned char *y = rd_next(fd, &x->val, (size_t)(10 * k));
		if (!y)
			return -1;
		while (m->ng + k > m->capg) {
			m->capg = m->capg ? 2 * m->capg : 1024;
			m->g = pc_xrealloc(m->g, m->capg, sizeof(*m->g));
		}
		for (uint64_t i = 0; i < k; i++, y += 10)
			m->g[m->ng++] = (struct gv){ x->prof,
						     (uint16_t)pc_getle(y, 2),
						     pc_getlef64(y + 2) };
		n -= k;
	}
	return cur_step(fd, x);
}

/* The values of cursor x's current context c, the only block at c, as
 * c's cct.db block and summary values where statistics are the sum
 * alone (l->npartials 1): what take and context_out make of them,
 * read in place (a single profile's database, a Callgrind file's: no
 * copy a value). 0, 1 at the end of the block, -1 on error; 2 where
 * the context's values do not fit the buffers (take and context_out
 * then). */
static int take_out(int fd, struct cur *x, const struct hpc_cct *in,
		    struct merge *m, struct range *r)
{
	uint64_t n = x->next - x->first;
	if (10 * n > x->val.cap || 12 * n > PC_OUT_BUF || n > 65535)
		return 2;
	const unsigned char *y = rd_next(fd, &x->val, (size_t)(10 * n));
	if (!y)
		return -1;
	pc_id c = x->ctx;
	struct pc_out *co = &r->co;
	pc_out_align(co, 8);
	uint64_t pv = co->pos;
	unsigned char *rec = pc_out_put(co, 12 * n);
	for (size_t i = 0; i < n; i++, rec += 12) {
		pc_le32(rec, x->prof);
		memcpy(rec + 4, y + 10 * i + 2, 8); /* the value's bytes */
	}
	pc_out_align(co, 2);
	uint64_t pm = co->pos;
	unsigned char *me = pc_out_put(co, 10 * n);
	if (m->capsum < n) {
		m->capsum = n > 2 * m->capsum ? n : 2 * m->capsum;
		m->sum = pc_xrealloc(m->sum, m->capsum, sizeof(*m->sum));
	}
	/* a loop's lex_aware sums are mended (lex_fix) */
	const double *fix = in->lexfix && in->loopix[c] != PC_NONE ?
				    in->lexfix + (size_t)in->loopix[c] *
							 in->l->nmetrics :
				    NULL;
	struct hpc_sv *sum = m->sum;
	size_t nsum = 0;
	for (size_t i = 0; i < n; i++, y += 10, me += 10) {
		uint16_t id = (uint16_t)pc_getle(y, 2);
		double s = 0;
		s += pc_getlef64(y + 2);
		pc_le16(me, id);
		pc_le64(me + 2, i);
		if (fix && id % HPC_NSCOPES == HPC_LEXAWARE)
			s += fix[id / HPC_NSCOPES];
		if (s != 0)
			sum[nsum++] = (struct hpc_sv){ id, s };
	}
	unsigned char *e = r->ci + 0x10 + (size_t)SZ_CI * c;
	pc_le64(e, n);
	pc_le64(e + 8, pv);
	pc_le16(e + 0x10, (uint16_t)n);
	pc_le64(e + 0x18, pm);
	summary_out(in, r, c, sum, nsum);
	return cur_step(fd, x);
}

/* Merges contexts [r->lo, r->hi) of every profile's block: the next
 * context is the smallest of the cursors', its values those of each
 * cursor there in profile order. Where most profiles have most
 * contexts, each context looks at every cursor in turn (a few loads);
 * where they are sparse, a heap by (context, profile) finds them. */
static void merge_range(void *ctx, size_t ri, unsigned thread)
{
	(void)thread;
	struct range *r = (struct range *)ctx + ri;
	const struct hpc_cct *in = r->in;
	int fd = r->fd;
	size_t np = in->db->nprofiles, cap = r->cap;
	struct cur *k = pc_xcalloc(np ? np : 1, sizeof(*k));
	struct cur **h = pc_xcalloc(np ? np : 1, sizeof(*h));
	unsigned char *bufs = pc_xmalloc(2 * cap * (np ? np : 1));
	size_t nh = 0;
	uint64_t entries = 0;
	int rc = 0;
	errno = 0;
	for (size_t p = 0; p < np && !rc; p++) {
		const unsigned char *b = in->block[p + 1];
		struct cur *x = &k[p];
		x->prof = (pc_id)(p + 1);
		x->nvalues = pc_getle(b, 8);
		x->left = pc_getle(b + 0x10, 4);
		uint64_t pidx = pc_getle(b + 0x18, 8);
		uint64_t pval = pc_getle(b + 8, 8);
		x->idx = (struct rd){ pidx, pidx + 12 * x->left,
				      bufs + 2 * cap * p, cap, 0, 0 };
		x->val = (struct rd){ pval, pval + 10 * x->nvalues,
				      bufs + 2 * cap * p + cap, cap, 0, 0 };
		if (r->lo && cur_seek(fd, x, pidx, pval, r->lo)) {
			rc = -1;
			break;
		}
		if (!x->left)
			continue;
		entries += x->left;
		rc = cur_ahead(fd, x) || cur_step(fd, x);
		h[nh++] = x;
	}
	/* a profile has a context of the range in 1 of 8 or more */
	int scan = 8 * entries >= (uint64_t)(r->hi - r->lo) * nh;
	if (!scan)
		for (size_t i = nh / 2; i-- > 0;)
			sift(h, nh, i);
	struct merge m = { 0 };
	m.cnt = pc_xcalloc(65536, sizeof(*m.cnt));
	m.ids = pc_xmalloc(65536 * sizeof(*m.ids));
	size_t done = 0;
	pc_id c = PC_NONE;
	for (size_t i = 0; scan && i < nh; i++)
		c = h[i]->ctx < c ? h[i]->ctx : c;
	while (nh && !rc && (scan ? c : h[0]->ctx) < r->hi) {
		m.ng = 0;
		m.nfrom = 0;
		pc_id at = scan ? c : h[0]->ctx;
		int one = nh == 1 && in->l->npartials == 1 ?
				  take_out(fd, h[0], in, &m, r) :
				  2;
		if (one != 2) {
			/* one block left: the next context is its next */
			if (one < 0) {
				rc = -1;
				break;
			}
			if (one > 0)
				nh = 0;
			else
				c = h[0]->ctx;
		} else if (scan) {
			/* the cursors in profile order, those at c taken and
			 * the ended ones dropped; the smallest context left
			 * is the next */
			pc_id next = PC_NONE;
			size_t j = 0;
			for (size_t i = 0; i < nh && !rc; i++) {
				struct cur *x = h[i];
				int s = x->ctx == c ? take(fd, x, &m) : 0;
				if (s < 0)
					rc = -1;
				if (s)
					continue;
				h[j++] = x;
				next = x->ctx < next ? x->ctx : next;
			}
			nh = j;
			if (rc)
				break;
			context_out(in, &m, c, r, r->ci);
			c = next;
		} else {
			c = h[0]->ctx;
			while (nh && h[0]->ctx == c && !rc) {
				int s = take(fd, h[0], &m);
				if (s < 0)
					rc = -1;
				else if (s > 0)
					h[0] = h[--nh];
				sift(h, nh, 0);
			}
			if (rc)
				break;
			context_out(in, &m, c, r, r->ci);
		}
		/* range 0 speaks for all: they go at about its pace */
		if (r->first && (++done & 4095) == 0)
			in->progress(in->ctx, (uint64_t)(at - r->lo) * in->jobs,
				     in->db->ncontexts);
	}
	r->err_no = errno;
	r->rc = rc;
	free(m.g);
	free(m.out);
	free(m.sum);
	free(m.cnt);
	free(m.ids);
	free(bufs);
	free(h);
	free(k);
}

/* Range r's summary values, read back, in order. */
static int summary_back(const struct hpc_cct *in, struct range *r)
{
	pc_out_flush(&r->so);
	if (r->so.failed || fflush(r->so.f) || fseeko(r->so.f, 0, SEEK_SET))
		return -1;
	/* 14-byte records, read a few thousand at a time */
	enum { REC = 14, NREC = 4096 };
	unsigned char *buf = pc_xmalloc(REC * NREC);
	int rc = 0;
	for (uint64_t left = r->so.pos / REC; left && !rc;) {
		size_t n = left < NREC ? (size_t)left : NREC;
		if (fread(buf, REC, n, r->so.f) != n) {
			rc = -1;
			break;
		}
		for (const unsigned char *rec = buf; rec < buf + REC * n; rec += REC) {
			struct hpc_sv sv = { (uint16_t)pc_getle(rec + 4, 2),
					     pc_getlef64(rec + 6) };
			in->summary(in->ctx, (pc_id)pc_getle(rec, 4), &sv, 1);
		}
		left -= n;
	}
	free(buf);
	return rc;
}

int pc_hpc_cct(const struct hpc_cct *in, struct pc_out *co, unsigned char *ci,
	       struct pc_err *err)
{
	size_t np = in->db->nprofiles, nctx = in->db->ncontexts;
	/* ranges: one a job, of 4096 contexts at least */
	size_t nr = in->jobs ? in->jobs : 1;
	if (nr > nctx / 4096)
		nr = nctx / 4096 ? nctx / 4096 : 1;
	/* stream buffers: 16 MiB in all, 64 bytes to 256 KiB each (a
	 * larger read saves nothing: 1 MiB each made a run's peak grow by
	 * 2 MiB a profile up to 32 profiles), shared by the ranges. The
	 * whole is what a peak grows by with the profile count: 64 MiB
	 * made an old database of 10 times the profiles peak at 1.9 times
	 * the memory (40 and 400 profiles x 50,000 contexts: 44 -> 84 MB) */
	size_t cap = ((size_t)16 << 20) / (2 * (np ? np : 1));
	cap = cap > ((size_t)256 << 10) ? (size_t)256 << 10 : cap;
	cap /= nr;
	cap = cap < 64 ? 64 : cap;
	struct range *r = pc_xcalloc(nr, sizeof(*r));
	int rc = 0;
	for (size_t i = 0; i < nr && !rc; i++) {
		r[i] = (struct range){ .lo = (pc_id)(nctx * i / nr),
				       .hi = (pc_id)(nctx * (i + 1) / nr),
				       .first = i == 0, .in = in,
				       .fd = in->fd, .ci = ci, .cap = cap };
		if (i == 0)
			r[i].co = *co; /* straight into cct.db */
		else if (pc_out_tmp(&r[i].co, in->dir) ||
			 pc_out_tmp(&r[i].so, in->dir))
			rc = pc_err_set(err, "%s: cannot start the merge of "
					"contexts %u..: %s", in->dir, r[i].lo,
					strerror(errno ? errno : EIO));
	}
	if (!rc)
		pc_parallel(nr, (unsigned)nr, merge_range, r);
	*co = r[0].co;
	for (size_t i = 0; i < nr && !rc; i++)
		if (r[i].rc)
			rc = pc_err_set(err, "%s/profile.db: cannot read back "
					"what was written: %s", in->dir,
					r[i].err_no ? strerror(r[i].err_no) :
						      "short or wrong");
	/* the ranges after the first, in order: their blocks' positions
	 * move by where they land (8-aligned, as a block starts) */
	for (size_t i = 1; i < nr && !rc; i++) {
		if (!r[i].co.pos)
			continue;
		pc_out_align(co, 8);
		uint64_t base = co->pos;
		for (pc_id c = r[i].lo; c < r[i].hi; c++) {
			unsigned char *e = ci + 0x10 + (size_t)SZ_CI * c;
			if (!pc_getle(e, 8))
				continue;
			pc_le64(e + 8, pc_getle(e + 8, 8) + base);
			pc_le64(e + 0x18, pc_getle(e + 0x18, 8) + base);
		}
		if (pc_out_append(co, &r[i].co) || summary_back(in, &r[i]))
			rc = pc_err_set(err, "%s/cct.db: cannot write: %s",
					in->dir, strerror(errno ? errno : EIO));
	}
	for (size_t i = 1; i < nr; i++) {
		if (r[i].co.f)
			pc_out_close(&r[i].co);
		if (r[i].so.f)
			pc_out_close(&r[i].so);
	}
	free(r);
	return rc;
}
