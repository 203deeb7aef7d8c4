/* profconv-mpi: the v4 writer's side of ranks that write their own
 * profiles (hpctoolkit.h; doc/design.md, "MPI ranks"). Rank 0's writer
 * hands out where its files end and takes in what each part wrote; a
 * part runs the same writer code into a spool and the trace lines into
 * no file, learns where its bytes go, and puts them there. */
#include "hpctoolkit_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pc_hpc_lead(struct pc_sink *s, const struct pc_db *db, int trace,
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

int pc_hpc_lead_add(struct pc_sink *s, const struct hpc_part *pt)
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
	struct pc_trace *k = &w->ptrace[w->nptrace++];
	*k = *t;
	k->b = NULL;
	k->cap = k->len;
	if (t->len) {
		k->b = pc_xmalloc(t->len);
		memcpy(k->b, t->b, t->len);
	}
	return 0;
}

struct pc_sink *pc_hpc_part(const struct hpc_lead *ld, const struct pc_db *db,
			    pc_id p0, struct pc_err *err)
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

void pc_hpc_part_sizes(const struct pc_sink *s, uint64_t *psize,
		       uint64_t *tsize)
{
	const struct writer *w = (const struct writer *)s;
	*psize = w->po.pos;
	*tsize = w->topen ? w->to.pos : 0;
}

int pc_hpc_part_place(struct pc_sink *s, uint64_t pbase, uint64_t tbase,
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
			free(t->b);
			t->b = NULL;
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

void pc_hpc_part_free_sink(struct pc_sink *s)
{
	hpcw_free((struct writer *)s);
}

void pc_hpc_part_free(struct hpc_part *pt)
{
	free(pt->block);
	free(pt->tline);
	free(pt->lexd);
	memset(pt, 0, sizeof(*pt));
}
