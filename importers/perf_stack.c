/* Linux perf samples: a sample's stack into the calling-context tree
 * (importers/perf.c reads the text). The threads' profiles, the events'
 * metrics, a frame's contexts and the walk down the tree; the caches
 * that spare them: the table of callers' lines seen (text -> the parsed
 * frame and its model ids), the callers seen (their lines' entries ->
 * the context of the innermost) and the first frames seen below a
 * context. */
#include "pc.h"
#include "internal.h"
#include "perf.h"

#include <stdlib.h>
#include <string.h>

/* The callers cache's bound: its keys and slots are dropped when it has
 * this many bytes of keys (a sample's callers are 4 bytes a line, a
 * first frame some 100 bytes), so that memory does not grow with the
 * samples. */
#define SCACHE_BYTES ((size_t)32 << 20)
/* and its slots (40 bytes each: 20 MiB) */
#define SCACHE_SLOTS ((size_t)1 << 19)
/* Its slots' sizes in bytes skipped (blocks glibc maps in small pages) */
#define SC_SMALL ((size_t)1 << 20)
#define SC_HUGE ((size_t)4 << 20)
/* The table of callers' lines is emptied (and the callers cache, whose
 * keys are its entries) when a sample starts with this many bytes of
 * text or entries in it (an entry is some 130 bytes) */
#define LTEXT_BYTES ((size_t)16 << 20)
#define LENT_MAX ((size_t)1 << 17)
/* Ends of a sample's callers looked up where the whole is new (kernel
 * frames above a stack seen before, a caller whose address changed): at
 * most this many, those that can be callers kept (their lines all in
 * kept callers, the first the first of some) */
#define SUFFIX_TRIES 16
/* Callers kept by their text for a first line (struct cand): the last
 * this many found twice that began with it (a line of a function called
 * from several places begins several stacks) */
#ifndef CAND_CHAIN
#define CAND_CHAIN 4
#endif

/* The bounds; PROFCONV_PERF_CACHE=BYTES (the tests' knob) makes the
 * caches' keys and the lines' text that small (and 1,024 slots, a line
 * for every 32 bytes), so that they are emptied again and again. */
void perf_stack_init(struct pr *r)
{
	r->sc_bytes = SCACHE_BYTES;
	r->sc_slots = SCACHE_SLOTS;
	r->lt_bytes = LTEXT_BYTES;
	r->lent_max = LENT_MAX;
	const char *e = getenv("PROFCONV_PERF_CACHE");
	long long n = e ? atoll(e) : 0;
	if (n > 0 && (size_t)n < SCACHE_BYTES) {
		r->sc_bytes = r->lt_bytes = (size_t)n;
		r->sc_slots = 1024;
		r->lent_max = (size_t)n / 32 + 1;
	}
}

/* ---- the model side ---- */

static int thread_eq(const void *ctx, pc_id id, const void *key)
{
	const struct thread_key *a = &((const struct pr *)ctx)->tkeys[id];
	const struct thread_key *b = key;
	return a->pid == b->pid && a->tid == b->tid;
}

/* The profile of the sample's thread, added at its first sample. */
static pc_id thread_profile(struct pr *r)
{
	struct thread_key k = { r->has_pid ? r->pid : UINT64_MAX, r->tid };
	if (r->lastprof != PC_NONE && r->last.pid == k.pid &&
	    r->last.tid == k.tid)
		return r->lastprof;
	r->last = k;
	uint64_t h = pc_hash64(pc_hash64(k.pid) ^ k.tid);
	pc_id t = pc_keymap_intern(r->threads, h, thread_eq, r, &k,
				   (pc_id)r->nthreads);
	if (t < r->nthreads)
		return r->lastprof = r->tprof[t];
	if (r->nthreads >= r->capthreads) {
		r->capthreads = r->capthreads ? 2 * r->capthreads : 64;
		r->tkeys = pc_xrealloc(r->tkeys, r->capthreads,
				       sizeof(*r->tkeys));
		r->tprof = pc_xrealloc(r->tprof, r->capthreads,
				       sizeof(*r->tprof));
	}
	r->tkeys[r->nthreads] = k;
	struct pc_idelem ids[2];
	uint32_t nids;
	if (r->has_pid) {
		size_t p = 0;
		while (p < r->nprocs && r->procs[p] != r->pid)
			p++;
		if (p == r->nprocs) {
			if (r->nprocs >= r->capprocs) {
				r->capprocs = r->capprocs ? 2 * r->capprocs : 16;
				r->procs = pc_xrealloc(r->procs, r->capprocs,
						       sizeof(uint64_t));
				r->nthr_of = pc_xrealloc(r->nthr_of, r->capprocs,
							 sizeof(uint64_t));
			}
			r->procs[p] = r->pid;
			r->nthr_of[p] = 0;
			r->nprocs++;
		}
		ids[0] = (struct pc_idelem){ .kind = PC_ID_RANK,
					     .logical = r->rank0 + p,
					     .physical = r->pid };
		ids[1] = (struct pc_idelem){ .kind = PC_ID_THREAD,
					     .logical = r->nthr_of[p]++,
					     .physical = r->tid };
		nids = 2;
	} else {
		ids[0] = (struct pc_idelem){ .kind = PC_ID_THREAD,
					     .logical = r->lone_threads++,
					     .physical = r->tid };
		nids = 1;
	}
	r->tprof[r->nthreads] = pc_profile_add(r->db, ids, nids);
	return r->lastprof = r->tprof[r->nthreads++];
}

static int event_eq(const void *ctx, pc_id id, const void *key)
{
	return !strcmp(((const struct pr *)ctx)->evname[id], key);
}

static pc_id event_metric_get(struct pr *r, const char *ev, size_t n);

/* The metric of an event (NULL: the text names none). */
pc_id perf_event_metric(struct pr *r, const char *ev, size_t n)
{
	/* (the event of the sample before, most often) */
	if (ev && n < sizeof r->lastev && r->lastev_period == r->has_period &&
	    n == r->nlastev && !memcmp(ev, r->lastev, n))
		return r->lastevm;
	if (ev && n < sizeof r->lastev) {
		memcpy(r->lastev, ev, n);
		r->nlastev = n;
		r->lastev_period = r->has_period;
		r->lastevm = event_metric_get(r, ev, n);
		return r->lastevm;
	}
	return event_metric_get(r, ev, n);
}

/* The metric of an event (NULL: the text names none), looked up. */
static pc_id event_metric_get(struct pr *r, const char *ev, size_t n)
{
	char name[256];
	if (!ev) {
		snprintf(name, sizeof name, "%s", r->has_period ? "period" :
				"samples");
	} else {
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, ev, n);
		name[n] = 0;
	}
	uint64_t h = pc_hash_bytes(name, strlen(name));
	pc_id e = pc_keymap_intern(r->events, h, event_eq, r, name,
				   (pc_id)r->nevents);
	if (e < r->nevents)
		return r->evmetric[e];
	PC_GROW(r->evname, r->nevents, r->capevents);
	r->evmetric = pc_xrealloc(r->evmetric, r->capevents, sizeof(pc_id));
	r->evname[e] = pc_intern_cstr(r->db, name);
	char desc[512];
	const char *unit = "samples";
	if (r->has_period) {
		/* the clock events' periods are nanoseconds */
		size_t base = strcspn(name, ":");
		int clock = (base == 9 && !strncmp(name, "cpu-clock", 9)) ||
			    (base == 10 && !strncmp(name, "task-clock", 10));
		unit = clock ? "ns" : "events";
		snprintf(desc, sizeof desc, "perf event %s: the sum of the "
			 "samples' periods (%s)", name, clock ? "nanoseconds" :
			 "events counted between samples");
	} else {
		snprintf(desc, sizeof desc, "perf event %s: samples", name);
	}
	r->evmetric[e] = pc_metric_get_whole(r->db, name, desc, unit);
	r->nevents++;
	return r->evmetric[e];
}

static pc_id child(struct pc_db *db, pc_id parent, struct pc_context k)
{
	return pc_ctx_child(db, parent, &k);
}

/* The contexts of frame i below c (its function's, its line's, its
 * address's), made where new; *module: the module its code is in. A
 * caller's frame takes the ids of its module, function and file from
 * its lines' entries, looked up there the first time. */
static pc_id frame_ctx(struct pr *r, size_t i, pc_id c, int inl,
		       pc_id *module)
{
	struct pc_db *db = r->db;
	const struct frame *f = &r->fr[i];
	const char *base = f->pers ? r->lstr : r->buf;
	struct lent *fe = f->fl != UINT32_MAX ? &r->lent[f->fl] : NULL;
	struct lent *se = f->sl != UINT32_MAX ? &r->lent[f->sl] : NULL;
	if (!inl) {
		if (fe && (fe->has & 1)) {
			*module = fe->module;
		} else {
			*module = f->dso == SIZE_MAX ? PC_NONE :
				  pc_module_get(db, base + f->dso);
			if (fe) {
				fe->module = *module;
				fe->has |= 1;
			}
		}
	}
	/* (a source line's "(inlined)" changes the entry that counts) */
	int own = fe && !inl && f->inlined == fe->f.inlined;
	pc_id fn;
	if (own && (fe->has & 2)) {
		fn = fe->fn;
	} else {
		const char *name = f->sym == SIZE_MAX ? "[unknown]" :
							base + f->sym;
		uint64_t entry = f->has_off && !f->inlined && f->ip >= f->off ?
					 f->ip - f->off : 0;
		fn = pc_function_get(db, name, *module, entry, PC_NONE, 0);
		if (own) {
			fe->fn = fn;
			fe->has |= 2;
		}
	}
	c = child(db, c, (struct pc_context){
		.kind = PC_CTX_FUNCTION,
		.rel = inl ? PC_REL_INLINED : PC_REL_CALL,
		.function = fn, .file = PC_NONE, .module = PC_NONE });
	if (f->file != SIZE_MAX) {
		pc_id file;
		if (se && (se->has & 4)) {
			file = se->file;
		} else {
			file = pc_file_get(db, base + f->file);
			if (se) {
				se->file = file;
				se->has |= 4;
			}
		}
		c = child(db, c, (struct pc_context){
			.kind = PC_CTX_LINE, .rel = PC_REL_LEXICAL,
			.function = PC_NONE, .file = file,
			.line = f->line, .module = PC_NONE });
	}
	/* an unknown symbol's one identity is its address */
	if (f->sym == SIZE_MAX || (r->opts && r->opts->instructions)) {
		if (*module == PC_NONE && r->unknown_module == PC_NONE)
			r->unknown_module = pc_module_get(db, "[unknown]");
		c = child(db, c, (struct pc_context){
			.kind = PC_CTX_INSTRUCTION,
			.rel = PC_REL_LEXICAL, .function = PC_NONE,
			.file = PC_NONE,
			.module = *module != PC_NONE ? *module :
				  r->unknown_module,
			.offset = f->ip });
	}
	return c;
}

/* The context of frame `last` of the sample's stack, walked down from c
 * (its contexts made where new) through the frames before `from`, from
 * `from` - 1 on (the outer ones); *module: walk's module there (before:
 * that of frame `from`, PC_NONE at the entry). (A cache
 * of frames seen below a context, tried in place of the model's
 * lookups, took as long: one miss of the processor's cache a frame
 * either way.) */
static pc_id walk(struct pr *r, pc_id c, size_t from, size_t last,
		  pc_id *module)
{
	for (size_t i = from; i-- > last;) {
		const struct frame *f = &r->fr[i];
		/* an inlined frame has no dso of its own: it is in the code
		 * of the frame printed after it at the same address. Where
		 * that frame is not there (perf leaves out a function's own
		 * frame when its symbol is the inlined name: glibc's
		 * __libc_start_main_impl), the frame is that function's,
		 * called, its module unknown. */
		int inl = f->inlined && i + 1 < r->nfr &&
			  r->fr[i + 1].ip == f->ip;
		c = frame_ctx(r, i, c, inl, module);
	}
	return c;
}

static void scache_clear(struct pr *r)
{
	for (size_t i = 0; i < r->capsc; i++)
		r->sc[i].len = 0;
	r->nsc = 0;
	r->nkeys = 0;
}

/* The slot of key (kind; bytes a[0, na) then b[0, nb)) of hash h: its
 * own, or the empty one it would take (NULL: a key too long to keep).
 * The table grows, or is emptied at its bound, first. */
static struct scache *scache_slot(struct pr *r, int kind, uint64_t h,
				  const void *a, size_t na, const void *b,
				  size_t nb)
{
	size_t len = na + nb;
	if (len > r->sc_bytes / 4) /* (a stack of 100,000 frames) */
		return NULL;
	if (r->nkeys + len > r->sc_bytes || 2 * (r->nsc + 1) > r->capsc) {
		if (r->capsc < r->sc_slots) {
			/* grown: every key hashed again into the new slots */
			struct scache *old = r->sc;
			size_t nold = r->capsc;
			r->capsc = r->capsc ? 2 * r->capsc : 1024;
			/* (from 1 MiB on, at once to 4: glibc maps blocks of
			 * 1 to 4 MiB in pages of 4 KiB, each faulted in twice,
			 * probed empty then written; from 4 MiB on they take
			 * huge pages, src/util.c) */
			while (r->capsc * sizeof(*r->sc) > SC_SMALL &&
			       r->capsc * sizeof(*r->sc) < SC_HUGE &&
			       r->capsc < r->sc_slots)
				r->capsc *= 2;
			r->sc = pc_xcalloc(r->capsc, sizeof(*r->sc));
			for (size_t i = 0; i < nold; i++) {
				if (!old[i].len)
					continue;
				size_t j = old[i].h & (r->capsc - 1);
				while (r->sc[j].len)
					j = (j + 1) & (r->capsc - 1);
				r->sc[j] = old[i];
			}
			free(old);
		}
		if (r->nkeys + len > r->sc_bytes ||
		    2 * (r->nsc + 1) > r->capsc)
			scache_clear(r);
	}
	size_t mask = r->capsc - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct scache *e = &r->sc[i];
		if (!e->len)
			return e;
		/* (nb 0: b may be NULL, nothing to compare) */
		if (e->h == h && e->len == len && e->kind == kind &&
		    !memcmp(r->keys + e->at, a, na) &&
		    (!nb || !memcmp(r->keys + e->at + na, b, nb)))
			return e;
	}
}

/* The key (a, b) kept for slot e, whose context is c. */
static void scache_put(struct pr *r, struct scache *e, int kind,
		       uint64_t h, const void *a, size_t na, const void *b,
		       size_t nb, pc_id c, pc_id module, uint64_t ip)
{
	/* (the whole bound at once: pages untouched cost nothing, and a
	 * doubling array is copied again and again) */
	if (!r->keys)
		r->keys = pc_xmalloc(r->sc_bytes);
	memcpy(r->keys + r->nkeys, a, na);
	if (nb)
		memcpy(r->keys + r->nkeys + na, b, nb);
	*e = (struct scache){ h, (uint32_t)r->nkeys, (uint32_t)(na + nb), c,
			      module, ip, (uint8_t)kind };
	r->nkeys += na + nb;
	r->nsc++;
}

/* The hash of a caller's line: two lanes of 8 bytes, the end read as
 * the last 8 bytes (a line's length is in the hash), no byte loop. */
static uint64_t line_hash(const char *s, size_t n)
{
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = 0xc2b2ae3d27d4eb4fULL;
	uint64_t w, v;
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		memcpy(&w, s + i, 8);
		memcpy(&v, s + i + 8, 8);
		a = (a ^ w) * 0x100000001b3ULL;
		a ^= a >> 29;
		b = (b ^ v) * 0xff51afd7ed558ccdULL;
		b ^= b >> 31;
	}
	if (n >= 8) {
		if (n - i > 8) {
			memcpy(&w, s + i, 8);
			a = (a ^ w) * 0x100000001b3ULL;
			a ^= a >> 29;
		}
		if (n > i) {
			memcpy(&v, s + n - 8, 8);
			b = (b ^ v) * 0xff51afd7ed558ccdULL;
			b ^= b >> 31;
		}
	} else {
		for (; i < n; i++)
			a = (a ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	}
	return pc_hash64(a ^ (b * 0x9e3779b97f4a7c15ULL));
}

static void lines_clear(struct pr *r)
{
	if (r->lslot)
		memset(r->lslot, 0, r->caplslot * sizeof(*r->lslot));
	r->nlent = 0;
	r->nltext = 0;
	r->nlstr = 0;
	r->ncand = 0; /* (their keys are entries) */
	r->nctext = 0;
	r->cfull = 0;
	scache_clear(r); /* (its callers' keys are entries) */
}

/* A caller's line (a frame, or a source line after one: src) into the
 * sample's callers: its entry, the line parsed where new. 0, or -1 with
 * err set (a frame line that is not one). */
int perf_caller_line(struct pr *r, char *line, size_t len, int src,
		       struct pc_err *err)
{
	/* (emptied between samples only: the sample's entries stay) */
	if (!r->nlids && (r->nltext + r->nlstr > r->lt_bytes ||
			  r->nlent > r->lent_max || r->cfull))
		lines_clear(r);
	if (2 * (r->nlent + 1) > r->caplslot) {
		size_t cap = r->caplslot ? 2 * r->caplslot : 4096;
		free(r->lslot);
		r->lslot = pc_xcalloc(cap, sizeof(*r->lslot));
		r->caplslot = cap;
		for (size_t k = 0; k < r->nlent; k++) {
			const struct lent *x = &r->lent[k];
			size_t j = x->h & (cap - 1);
			while (r->lslot[j].id)
				j = (j + 1) & (cap - 1);
			r->lslot[j] = (struct lslot){ (uint32_t)(x->h >> 32),
						      (uint32_t)k + 1, x->at,
						      x->len };
		}
	}
	r->stat_lines++;
	uint64_t h = line_hash(line, len);
	uint32_t tag = (uint32_t)(h >> 32);
	size_t mask = r->caplslot - 1, j = h & mask;
	for (; r->lslot[j].id; j = (j + 1) & mask) {
		const struct lslot *x = &r->lslot[j];
		if (x->tag == tag && x->len == len &&
		    !memcmp(r->ltext + x->at, line, len))
			break;
	}
	uint32_t id;
	if (r->lslot[j].id) {
		id = r->lslot[j].id - 1;
	} else {
		/* new: parsed as the sample's next frame (or as a source
		 * line of one), then moved to the table */
		size_t nbuf = r->nbuf;
		if (src) {
			PC_GROW(r->fr, r->nfr, r->capfr);
			r->fr[r->nfr++] = (struct frame){
				.sym = SIZE_MAX, .dso = SIZE_MAX,
				.file = SIZE_MAX, .b0 = nbuf, .b1 = nbuf };
			perf_parse_srcline(r, line);
		} else if (perf_parse_frame(r, line, err)) {
			return -1;
		}
		struct frame f = r->fr[--r->nfr];
		/* (the texts apart from the strings: the probes' compares
		 * read fewer cache lines) */
		size_t nb = f.b1 - f.b0, at = r->nltext, d = r->nlstr;
		/* (doubled from 64 KiB: made at their bound at once, 16
		 * MiB each, a huge page begun in each cost more to zero than
		 * the small pages' faults it spared, 42fce7e) */
		if (r->capltext - r->nltext < len) {
			while (r->capltext - r->nltext < len)
				r->capltext = r->capltext ? 2 * r->capltext :
							    65536;
			r->ltext = pc_xrealloc(r->ltext, r->capltext, 1);
		}
		if (r->caplstr - r->nlstr < nb) {
			while (r->caplstr - r->nlstr < nb)
				r->caplstr = r->caplstr ? 2 * r->caplstr :
							  65536;
			r->lstr = pc_xrealloc(r->lstr, r->caplstr, 1);
		}
		memcpy(r->ltext + at, line, len);
		r->nltext += len;
		memcpy(r->lstr + d, r->buf + f.b0, nb); /* buf[b0] is lstr[d] */
		r->nlstr += nb;
		r->nbuf = nbuf;
		if (f.sym != SIZE_MAX)
			f.sym = f.sym - f.b0 + d;
		if (f.dso != SIZE_MAX)
			f.dso = f.dso - f.b0 + d;
		if (f.file != SIZE_MAX)
			f.file = f.file - f.b0 + d;
		f.b0 = d;
		f.b1 = d + nb;
		f.pers = 1;
		f.fl = f.sl = UINT32_MAX;
		PC_GROW(r->lent, r->nlent, r->caplent);
		id = (uint32_t)r->nlent;
		r->lent[r->nlent++] = (struct lent){
			.h = h, .at = (uint32_t)at, .len = (uint32_t)len,
			.f = f, .src = (uint8_t)src,
			.cand = { UINT32_MAX, UINT32_MAX } };
		r->lslot[j] = (struct lslot){ tag, id + 1, (uint32_t)at,
					      (uint32_t)len };
		r->lastnew = r->nlids + 1;
	}
	PC_GROW(r->lids, r->nlids, r->caplids);
	r->lids[r->nlids++] = id;
	return 0;
}

/* The callers' frames (frames 1 on) from their lines' entries, each
 * source line applied to the frame before it as perf_parse_srcline does. */
static void callers_frames(struct pr *r)
{
	for (size_t k = 0; k < r->nlids; k++) {
		uint32_t id = r->lids[k];
		const struct lent *x = &r->lent[id];
		if (!x->src) {
			PC_GROW(r->fr, r->nfr, r->capfr);
			struct frame *f = &r->fr[r->nfr++];
			*f = x->f;
			f->fl = id;
			continue;
		}
		struct frame *f = &r->fr[r->nfr - 1];
		if (x->f.inlined)
			f->inlined = 1;
		if (x->f.file != SIZE_MAX) {
			f->file = x->f.file;
			f->line = x->f.line;
			f->sl = id;
		}
	}
}

/* The sample's period at its innermost context c, its time in the
 * trace. */
static void sample_add(struct pr *r, pc_id prof, pc_id c)
{
	pc_value_sum(r->db, r->vmap, prof, c, r->metric,
		  r->has_period ? (double)r->period : 1);
	if (r->has_time)
		pc_trace_add(r->db, prof, r->time, c);
	r->samples++;
	r->nfr = 0;
	r->nbuf = 0;
	r->nlids = 0;
	r->lastnew = 0;
}

/* frame_ctx of frame i below c, or the context of the same frame seen
 * below c (with the same module before it): the key is what decides
 * its context (the address or entry that counts, the line, which fields
 * are there, its strings). */
static void frame_key(const struct pr *r, const struct frame *f, pc_id c,
		      int inl, pc_id module, uint64_t k[3])
{
	int instr = r->opts && r->opts->instructions;
	k[0] = (uint64_t)c << 32 | module;
	k[1] = f->sym == SIZE_MAX || instr ? f->ip :
	       f->has_off && !f->inlined && f->ip >= f->off ? f->ip - f->off :
							      0;
	k[2] = f->line | (uint64_t)inl << 32 | (uint64_t)f->inlined << 33 |
	       (uint64_t)(f->sym != SIZE_MAX) << 34 |
	       (uint64_t)(f->dso != SIZE_MAX) << 35 |
	       (uint64_t)(f->file != SIZE_MAX) << 36;
}

static pc_id frame_cached(struct pr *r, size_t i, pc_id c, int inl,
			  pc_id *module)
{
	const struct frame *f = &r->fr[i];
	uint64_t k[3];
	frame_key(r, f, c, inl, *module, k);
	const char *b = r->buf + f->b0;
	size_t nb = f->b1 - f->b0;
	uint64_t h = pc_hash64(pc_hash_bytes(k, sizeof k) ^
			       pc_hash_bytes(b, nb));
	struct scache *slot = scache_slot(r, 1, h, k, sizeof k, b, nb);
	if (slot && slot->len) {
		*module = slot->module;
		return slot->ctx;
	}
	c = frame_ctx(r, i, c, inl, module);
	if (slot)
		scache_put(r, slot, 1, h, k, sizeof k, b, nb, c, *module, 0);
	return c;
}

/* frame_cached of the first frame below the callers found by their text
 * x (at their first caller: c and *module are x's): the first frame
 * last seen below them, where the key is the same, without a lookup. */
static pc_id frame_cand(struct pr *r, struct cand *x, pc_id c, int inl,
			pc_id *module)
{
	const struct frame *f = &r->fr[0];
	uint64_t k[3];
	frame_key(r, f, c, inl, *module, k);
	const char *b = r->buf + f->b0;
	size_t nb = f->b1 - f->b0;
	if (x->fn == nb && x->fk[0] == k[1] && x->fk[1] == k[2] &&
	    !memcmp(x->fs, b, nb)) {
		*module = x->fmodule;
		return x->fctx;
	}
	c = frame_cached(r, 0, c, inl, module);
	if (nb <= sizeof x->fs) {
		x->fk[0] = k[1];
		x->fk[1] = k[2];
		x->fn = (uint32_t)nb;
		memcpy(x->fs, b, nb);
		x->fctx = c;
		x->fmodule = *module;
	}
	return c;
}

/* The hash of the sample's callers below entry e (the key of the
 * callers cache), and those of their ends (outer frames) in sufh: one
 * pass from the outermost. */
static uint64_t lids_hash(struct pr *r, pc_id e)
{
	if (r->capsufh < r->nlids) {
		r->capsufh = 2 * r->nlids;
		r->sufh = pc_xrealloc(r->sufh, r->capsufh, sizeof(uint64_t));
	}
	uint64_t x = pc_hash64(e) ^ 0x9e3779b97f4a7c15ULL;
	for (size_t k = r->nlids; k-- > 0;) {
		x = (x ^ r->lids[k]) * 0x100000001b3ULL;
		x ^= x >> 29;
		r->sufh[k] = x;
	}
	return pc_hash64(r->sufh[0]);
}

/* The callers' context (frames 1 on, built), walked from entry e: from
 * that of the longest end of them (outer frames) seen as a sample's
 * callers, where there is one (a stack seen before with other frames
 * inside: kernel frames on top of it, another first frame), through the
 * frames inside it. */
static pc_id callers_walk(struct pr *r, pc_id e, pc_id *module)
{
	/* the ends whose lines were all in callers kept start at kmin */
	size_t kmin = r->nlids, tries = 0;
	while (kmin > 1 && (r->lent[r->lids[kmin - 1]].keyed & 1))
		kmin--;
	size_t fi = 1; /* the frame of lids[k] */
	for (size_t k = 1; k < r->nlids && tries < SUFFIX_TRIES; k++) {
		const struct lent *x = &r->lent[r->lids[k]];
		if (x->src)
			continue;
		fi++;
		if (k < kmin || !(x->keyed & 2))
			continue;
		tries++;
		uint64_t h = pc_hash64(r->sufh[k]);
		struct scache *slot = scache_slot(r, 0, h, &e, sizeof e,
						  r->lids + k,
						  4 * (r->nlids - k));
		if (slot && slot->len) {
			*module = slot->module;
			return walk(r, slot->ctx, fi, 1, module);
		}
	}
	return walk(r, e, r->nfr, 1, module);
}

/* The sample's thread: the main thread (0) or an application thread (1). */
static int sample_app(const struct pr *r)
{
	return r->has_pid && r->pid != r->tid;
}

/* The thread's entry (sample_app's *app), looked up the first time. */
static pc_id sample_entry(struct pr *r, int *app)
{
	*app = sample_app(r);
	if (r->entry[*app] == PC_NONE)
		r->entry[*app] = pc_ctx_entry(r->db, *app ? PC_ENTRY_APP_THREAD :
							    PC_ENTRY_MAIN);
	return r->entry[*app];
}

int perf_callers_known(struct pr *r, struct pc_err *err)
{
	size_t k = r->nlids - 1;
	/* a later caller's line: where the line before it was new to the
	 * table (the frame under kernel frames, whose address changes),
	 * the stack below it may be one seen */
	if (k && r->lastnew != k)
		return 0;
	struct lent *l = &r->lent[r->lids[k]];
	if (l->src)
		return 0;
	uint32_t *head = &l->cand[sample_app(r)], prev = UINT32_MAX;
	for (uint32_t ci = *head; ci != UINT32_MAX;
	     prev = ci, ci = r->cand[ci].next) {
		struct cand *x = &r->cand[ci];
		int got = pc_lines_skip(&r->in, r->ctext + x->at, x->len,
					x->nl, err);
		if (got < 0)
			return -1;
		if (!got)
			continue;
		if (prev != UINT32_MAX) { /* (to the front) */
			r->cand[prev].next = x->next;
			x->next = *head;
			*head = ci;
		}
		r->hit = x;
		r->hitk = k;
		r->stat_hit[k > 0]++;
		perf_sample_end(r);
		return 1;
	}
	return 0;
}

/* The sample's callers (found by their lines, not by their text) kept
 * as the last that began with their first line, their context c: in
 * front of those kept before (CAND_CHAIN at most: the one matched least
 * recently makes room). */
static void cand_put(struct pr *r, int app, pc_id c, pc_id module,
		     uint64_t ip)
{
	size_t n = 1;
	for (size_t k = 1; k < r->nlids; k++)
		n += r->lent[r->lids[k]].len + 1;
	if (n > r->in.max_line)
		return; /* (pc_lines_skip would not take it) */
	struct lent *first = &r->lent[r->lids[0]];
	uint32_t *head = &first->cand[app];
	uint32_t last = UINT32_MAX, before = UINT32_MAX, ci;
	size_t len = 0;
	for (ci = *head; ci != UINT32_MAX; ci = r->cand[ci].next) {
		before = last;
		last = ci;
		len++;
	}
	int reuse = len >= CAND_CHAIN;
	if (!reuse || r->cand[last].cap < n) {
		if (r->nctext + n > r->lt_bytes) {
			r->cfull = 1; /* (emptied before the next sample) */
			return;
		}
		if (!r->ctext) /* (at its bound: pages untouched are free) */
			r->ctext = pc_xmalloc(r->lt_bytes);
	}
	if (reuse) {
		ci = last;
		if (before == UINT32_MAX)
			*head = UINT32_MAX;
		else
			r->cand[before].next = UINT32_MAX;
	} else {
		PC_GROW(r->cand, r->ncand, r->capcand);
		ci = (uint32_t)r->ncand++;
		r->cand[ci].cap = 0;
	}
	struct cand *x = &r->cand[ci];
	if (x->cap < n) {
		x->at = (uint32_t)r->nctext;
		x->cap = (uint32_t)n;
		r->nctext += n;
	}
	x->next = *head;
	*head = ci;
	char *t = r->ctext + x->at;
	for (size_t k = 1; k < r->nlids; k++) {
		const struct lent *l = &r->lent[r->lids[k]];
		memcpy(t, r->ltext + l->at, l->len);
		t += l->len;
		*t++ = '\n';
	}
	*t = '\n';
	x->len = (uint32_t)n;
	x->nl = (uint32_t)r->nlids;
	x->ctx = c;
	x->module = module;
	x->ip = ip;
	x->fn = UINT32_MAX;
}

/* The sample read: its stack into the tree (its callers walked once
 * while the cache holds them, its first frame every time), its period
 * into the value of the innermost context, its time into the thread's
 * trace. (Its lines were parsed as they came.) */
void perf_sample_end(struct pr *r)
{
	r->open = 0;
	pc_id prof = thread_profile(r);
	int app;
	pc_id e = sample_entry(r, &app);
	if (!r->nfr) {
		sample_add(r, prof, e);
		return;
	}
	pc_id c = e, module = PC_NONE;
	uint64_t ip = 0;
	int callers = r->nlids > 0, found = 0;
	struct cand *hit = r->hit;
	if (hit) {
		c = hit->ctx;
		module = hit->module;
		ip = hit->ip;
		r->hit = NULL;
		if (r->hitk) {
			hit = NULL;
			/* found at a later caller (its context c): the
			 * callers before it walked from there */
			callers_frames(r);
			ip = r->fr[1].ip;
			c = walk(r, c, r->nfr - 1, 1, &module);
		}
	} else if (callers) {
		uint64_t h = lids_hash(r, e);
		struct scache *slot = scache_slot(r, 0, h, &e, sizeof e,
						  r->lids, 4 * r->nlids);
		if (slot && slot->len) {
			c = slot->ctx;
			module = slot->module;
			ip = slot->ip;
			found = 1;
		} else {
			callers_frames(r);
			ip = r->fr[1].ip;
			c = callers_walk(r, e, &module);
			/* (the table may have changed: the slot again) */
			slot = scache_slot(r, 0, h, &e, sizeof e, r->lids,
					   4 * r->nlids);
			if (slot) {
				scache_put(r, slot, 0, h, &e, sizeof e,
					   r->lids, 4 * r->nlids, c, module,
					   ip);
				for (size_t k = 0; k < r->nlids; k++)
					r->lent[r->lids[k]].keyed |= 1;
				r->lent[r->lids[0]].keyed |= 2;
			}
		}
		/* (callers found twice: most new ones are not seen again) */
		if (found)
			cand_put(r, app, c, module, ip);
	}
	/* the first frame: inlined in its caller's code where it is at the
	 * same address (walk's rule) */
	const struct frame *f = &r->fr[0];
	int inl = f->inlined && callers && ip == f->ip;
	c = hit ? frame_cand(r, hit, c, inl, &module) :
		  frame_cached(r, 0, c, inl, &module);
	sample_add(r, prof, c);
}
