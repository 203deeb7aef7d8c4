/* Linux perf samples: the text `perf script` writes (its default output
 * and the common -F field sets), and perf.data files, read through
 * `perf script` where perf is installed.
 *
 * Mapping (doc/formats.md, "Linux perf"): a profile per process and
 * thread (RANK: the process, THREAD: the thread, logical ids in order of
 * appearance, the pid and tid as physical ids; THREAD alone where the
 * text gives one number, perf's default tid); a metric per event, the
 * sum of the samples' periods (their count where the text has no
 * period). Each sample's stack, outermost frame first, is a path of the
 * tree below the thread's entry: a frame is a function context (called;
 * inlined where perf marks it so) of its symbol in its dso, below it its
 * source line where perf gives one, and the address in the module for
 * an [unknown] symbol (and for every frame with --instructions). The
 * sample's period goes to the innermost context of its stack, and
 * samples with a time form the thread's trace. Samples are summed into
 * the tree as they come: memory grows with the tree and the threads, not
 * with the number of samples (a long trace spills: doc/design.md). */
#include "pc.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* One frame of a sample as the text gives it; strings point into the
 * sample's buffer (offsets until the sample is complete). */
struct frame {
	uint64_t ip, off;
	size_t sym, dso, file; /* offsets into buf, SIZE_MAX: none */
	uint32_t line;
	uint8_t has_off, inlined;
};

struct thread_key {
	uint64_t pid, tid; /* pid UINT64_MAX: not given */
};

struct pr {
	struct pc_db *db;
	const char *path;
	struct pc_lines in;
	const struct pc_import_opts *opts;
	/* the sample being read */
	int open;        /* a header read, its stack not yet ended */
	int chain;       /* its stack is on lines of its own */
	uint64_t hline;  /* its header's line */
	uint64_t pid, tid, time, period;
	int has_pid, has_time, has_period;
	pc_id metric;
	char *buf;
	size_t nbuf, capbuf;
	struct frame *fr;
	size_t nfr, capfr;
	/* threads: (pid, tid) -> profile; processes: pid -> rank */
	struct pc_keymap *threads;
	struct thread_key *tkeys;
	pc_id *tprof;
	size_t nthreads, capthreads;
	uint64_t *procs;       /* pids in order of appearance */
	uint64_t *nthr_of;     /* threads seen per process */
	size_t nprocs, capprocs;
	uint64_t rank0;        /* logical ranks of this input start here */
	uint64_t lone_threads; /* threads of no known process */
	/* (profile, ctx, metric) -> index of its value in db->values */
	struct pc_keymap *vmap;
	size_t v0;
	/* events -> metrics */
	struct pc_keymap *events;
	const char **evname;
	pc_id *evmetric;
	size_t nevents, capevents;
	uint64_t samples;
	/* stacks seen (struct scache): a sample whose stack is one of
	 * them takes its innermost context without a walk down the tree */
	struct scache {
		uint64_t h;
		size_t at, len; /* its key: bytes [at, at + len) of keys */
		pc_id leaf;
	} *sc;
	size_t nsc, capsc; /* capsc a power of two */
	pc_id entry[2]; /* main thread, application thread (PC_NONE: not
			 * yet looked up) */
	struct thread_key last; /* the thread of the sample before */
	pc_id lastprof;         /* its profile (PC_NONE: none) */
	unsigned char *keys; /* SCACHE_BYTES */
	size_t nkeys;
	uint64_t *num; /* the numeric part of the sample's key */
	size_t capnum;
};


/* The stack cache's bound: its keys and slots are dropped when it has
 * this many bytes of keys (one sample's stack of 40 frames is some
 * 2 kB), so that memory does not grow with the samples. */
#define SCACHE_BYTES ((size_t)32 << 20)

/* ---- small parsers ---- */

static int is_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digits [s, s + n) as a number: -1 if they overflow 64 bits. */
static int dec64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int hex64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	if (!n || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = hexval(s[i]);
		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

/* "SECONDS.FRACTION:" (perf prints 6 digits, 9 with --ns) in ns. */
static int parse_time(const char *s, size_t n, uint64_t *ns)
{
	if (n < 4 || s[n - 1] != ':')
		return -1;
	const char *dot = memchr(s, '.', n);
	if (!dot || dot == s)
		return -1;
	size_t ni = (size_t)(dot - s), nf = n - 2 - ni;
	if (!is_digits(s, ni) || !is_digits(dot + 1, nf) || nf > 9)
		return -1;
	uint64_t sec, frac;
	if (dec64(s, ni, &sec) || dec64(dot + 1, nf, &frac) ||
	    sec > UINT64_MAX / 1000000000u - 1)
		return -1;
	for (size_t i = nf; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return 0;
}

/* ---- the sample's buffer ---- */

static size_t keep(struct pr *r, const char *s, size_t n)
{
	if (r->capbuf - r->nbuf < n + 1) {
		while (r->capbuf - r->nbuf < n + 1)
			r->capbuf = r->capbuf ? r->capbuf * 2 : 4096;
		r->buf = pc_xrealloc(r->buf, r->capbuf, 1);
	}
	size_t at = r->nbuf;
	memcpy(r->buf + at, s, n);
	r->buf[at + n] = 0;
	r->nbuf += n + 1;
	return at;
}

/* A frame: "IP [SYM[+0xOFF]] [(DSO)] [(inlined)]", leading blanks
 * skipped. 0, or -1 with err set. */
static int parse_frame(struct pr *r, char *s, struct pc_err *err)
{
	while (*s == ' ' || *s == '\t')
		s++;
	char *e = s;
	while (hexval(*e) >= 0)
		e++;
	struct frame f = { .sym = SIZE_MAX, .dso = SIZE_MAX,
			   .file = SIZE_MAX };
	if (hex64(s, (size_t)(e - s), &f.ip) || (*e && *e != ' '))
		return pc_err_at_line(err, r->path, r->in.lineno,
				      "a stack frame that does not start with "
				      "an address: '%.80s'", s);
	while (*e == ' ')
		e++;
	size_t n = strlen(e);
	while (n && e[n - 1] == ' ')
		n--;
	/* (DSO) and (inlined), from the right: a dso's name may hold
	 * parentheses itself ("/tmp/x (deleted)") */
	while (n && e[n - 1] == ')') {
		size_t depth = 0, i = n;
		while (i--) {
			if (e[i] == ')')
				depth++;
			else if (e[i] == '(' && !--depth)
				break;
		}
		if (i == (size_t)-1 || (i && e[i - 1] != ' '))
			break; /* a symbol's own parentheses: "f(int)" */
		if (n - i - 2 == 7 && !memcmp(e + i + 1, "inlined", 7))
			f.inlined = 1;
		else if (f.dso == SIZE_MAX)
			f.dso = keep(r, e + i + 1, n - i - 2);
		else
			break;
		n = i ? i - 1 : 0;
		while (n && e[n - 1] == ' ')
			n--;
	}
	if (n) {
		/* +0xOFF */
		size_t p = n;
		while (p && hexval(e[p - 1]) >= 0)
			p--;
		if (p >= 3 && p < n && e[p - 1] == 'x' && e[p - 2] == '0' &&
		    e[p - 3] == '+' && p > 3 && !hex64(e + p, n - p, &f.off)) {
			f.has_off = 1;
			n = p - 3;
		}
		if (!(n == 9 && !memcmp(e, "[unknown]", 9)))
			f.sym = keep(r, e, n);
	}
	PC_GROW(r->fr, r->nfr, r->capfr);
	r->fr[r->nfr++] = f;
	return 0;
}

/* A source line after a frame: "  FILE:LINE[ (inlined)]", or perf's
 * "DSO[ADDR]" / "??:0" where it knows none. */
static void parse_srcline(struct pr *r, char *s)
{
	struct frame *f = &r->fr[r->nfr - 1];
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ')
		n--;
	if (n >= 10 && !memcmp(s + n - 10, " (inlined)", 10)) {
		f->inlined = 1;
		n -= 10;
	}
	const char *d = n >= 16 ? strstr(s, " (discriminator ") : NULL;
	if (d && (size_t)(d - s) < n)
		n = (size_t)(d - s);
	size_t c = n;
	while (c && s[c - 1] >= '0' && s[c - 1] <= '9')
		c--;
	uint64_t line;
	if (c < 2 || c == n || s[c - 1] != ':' || s[0] == '[' ||
	    (c == 3 && !memcmp(s, "??", 2)) || dec64(s + c, n - c, &line) ||
	    line == 0 || line > UINT32_MAX)
		return;
	f->file = keep(r, s, c - 1);
	f->line = (uint32_t)line;
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

/* The metric of an event (NULL: the text names none). */
static pc_id event_metric(struct pr *r, const char *ev, size_t n)
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
 * address's), made where new; *module: the module its code is in. */
static pc_id frame_ctx(struct pr *r, size_t i, pc_id c, int inl,
		       pc_id *module)
{
	struct pc_db *db = r->db;
	const struct frame *f = &r->fr[i];
	if (!inl)
		*module = f->dso == SIZE_MAX ? PC_NONE :
			  pc_module_get(db, r->buf + f->dso);
	const char *name = f->sym == SIZE_MAX ? "[unknown]" : r->buf + f->sym;
	uint64_t entry = f->has_off && !f->inlined && f->ip >= f->off ?
				 f->ip - f->off : 0;
	pc_id fn = pc_function_get(db, name, *module, entry, PC_NONE, 0);
	c = child(db, c, (struct pc_context){
		.kind = PC_CTX_FUNCTION,
		.rel = inl ? PC_REL_INLINED : PC_REL_CALL,
		.function = fn, .file = PC_NONE, .module = PC_NONE });
	if (f->file != SIZE_MAX)
		c = child(db, c, (struct pc_context){
			.kind = PC_CTX_LINE, .rel = PC_REL_LEXICAL,
			.function = PC_NONE,
			.file = pc_file_get(db, r->buf + f->file),
			.line = f->line, .module = PC_NONE });
	/* an unknown symbol's one identity is its address */
	if (f->sym == SIZE_MAX || (r->opts && r->opts->instructions))
		c = child(db, c, (struct pc_context){
			.kind = PC_CTX_INSTRUCTION,
			.rel = PC_REL_LEXICAL, .function = PC_NONE,
			.file = PC_NONE,
			.module = *module != PC_NONE ? *module :
				  pc_module_get(db, "[unknown]"),
			.offset = f->ip });
	return c;
}

/* The innermost context of the sample's stack, walked down from c (its
 * contexts made where new). (A cache of frames seen below a context,
 * tried in place of the model's lookups, took as long: one miss of the
 * processor's cache a frame either way.) */
static pc_id walk(struct pr *r, pc_id c)
{
	pc_id module = PC_NONE;
	for (size_t i = r->nfr; i--;) {
		const struct frame *f = &r->fr[i];
		/* an inlined frame has no dso of its own: it is in the code
		 * of the frame printed after it at the same address. Where
		 * that frame is not there (perf leaves out a function's own
		 * frame when its symbol is the inlined name: glibc's
		 * __libc_start_main_impl), the frame is that function's,
		 * called, its module unknown. */
		int inl = f->inlined && i + 1 < r->nfr &&
			  r->fr[i + 1].ip == f->ip;
		c = frame_ctx(r, i, c, inl, &module);
	}
	return c;
}

/* The sample's key: what of its frames decides its contexts (their
 * strings in buf, and per frame the address or entry that counts, the
 * line and which fields are there), in r->num. Its length in words. */
static size_t stack_key(struct pr *r, pc_id entry)
{
	size_t n = 2 * r->nfr + 1;
	if (r->capnum < n) {
		r->capnum = 2 * n;
		r->num = pc_xrealloc(r->num, r->capnum, sizeof(uint64_t));
	}
	int instr = r->opts && r->opts->instructions;
	uint64_t *w = r->num;
	*w++ = entry;
	for (size_t i = 0; i < r->nfr; i++) {
		const struct frame *f = &r->fr[i];
		int inl = f->inlined && i + 1 < r->nfr &&
			  r->fr[i + 1].ip == f->ip;
		*w++ = f->sym == SIZE_MAX || instr ? f->ip :
		       f->has_off && !f->inlined && f->ip >= f->off ?
						 f->ip - f->off : 0;
		*w++ = f->line | (uint64_t)inl << 32 |
		       (uint64_t)f->inlined << 33 |
		       (uint64_t)(f->sym != SIZE_MAX) << 34 |
		       (uint64_t)(f->dso != SIZE_MAX) << 35 |
		       (uint64_t)(f->file != SIZE_MAX) << 36;
	}
	return n;
}

static void scache_clear(struct pr *r)
{
	for (size_t i = 0; i < r->capsc; i++)
		r->sc[i].len = 0;
	r->nsc = 0;
	r->nkeys = 0;
}

/* The slot of key (buf, num) of hash h: its own, or the empty one it
 * would take. */
static struct scache *scache_slot(struct pr *r, uint64_t h, size_t nnum)
{
	size_t mask = r->capsc - 1, nb = r->nbuf, len = nb + 8 * nnum;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct scache *e = &r->sc[i];
		if (!e->len)
			return e;
		/* (no names or no numbers: NULL arrays, nothing to compare) */
		if (e->h == h && e->len == len &&
		    (!nb || !memcmp(r->keys + e->at, r->buf, nb)) &&
		    (!nnum || !memcmp(r->keys + e->at + nb, r->num, 8 * nnum)))
			return e;
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
}

/* The sample read: its stack into the tree (once per distinct stack,
 * while the cache holds it), its period into the value of the innermost
 * context, its time into the thread's trace. */
static void sample_end(struct pr *r)
{
	struct pc_db *db = r->db;
	r->open = 0;
	pc_id prof = thread_profile(r);
	int app = r->has_pid && r->pid != r->tid;
	if (r->entry[app] == PC_NONE)
		r->entry[app] = pc_ctx_entry(db, app ? PC_ENTRY_APP_THREAD :
						       PC_ENTRY_MAIN);
	pc_id e = r->entry[app];
	size_t nnum = stack_key(r, e);
	size_t len = r->nbuf + 8 * nnum;
	uint64_t h = pc_hash_bytes(r->buf, r->nbuf) ^
		     pc_hash64(pc_hash_bytes(r->num, 8 * nnum));
	if (r->nkeys + len > SCACHE_BYTES || 2 * (r->nsc + 1) > r->capsc) {
		if (r->capsc < ((size_t)1 << 20)) {
			/* grown: every key hashed again into the new slots */
			struct scache *old = r->sc;
			size_t nold = r->capsc;
			r->capsc = r->capsc ? 2 * r->capsc : 1024;
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
		if (r->nkeys + len > SCACHE_BYTES ||
		    2 * (r->nsc + 1) > r->capsc)
			scache_clear(r);
	}
	if (len > SCACHE_BYTES / 4) /* (a stack of 100,000 frames) */
		return sample_add(r, prof, walk(r, e));
	struct scache *slot = scache_slot(r, h, nnum);
	pc_id c;
	if (slot->len) {
		c = slot->leaf;
	} else {
		c = walk(r, e);
		/* (the whole bound at once: pages untouched cost nothing,
		 * and a doubling array is copied again and again) */
		if (!r->keys)
			r->keys = pc_xmalloc(SCACHE_BYTES);
		if (r->nbuf) /* (no numbers, no names: NULL arrays) */
			memcpy(r->keys + r->nkeys, r->buf, r->nbuf);
		if (nnum)
			memcpy(r->keys + r->nkeys + r->nbuf, r->num, 8 * nnum);
		*slot = (struct scache){ h, r->nkeys, len, c };
		r->nkeys += len;
		r->nsc++;
	}
	sample_add(r, prof, c);
}

/* ---- the header of a sample ---- */

struct tok {
	char *s;
	size_t n;
};

static int is_cpu(const struct tok *t)
{
	return t->n >= 3 && t->s[0] == '[' && t->s[t->n - 1] == ']' &&
	       is_digits(t->s + 1, t->n - 2);
}

/* "PID/TID" or "TID" into the sample: 0, or -1 if t is neither. */
static int take_ids(struct pr *r, const struct tok *t)
{
	const char *sl = memchr(t->s, '/', t->n);
	if (sl) {
		size_t a = (size_t)(sl - t->s), b = t->n - a - 1;
		if (!is_digits(t->s, a) || !is_digits(sl + 1, b) ||
		    dec64(t->s, a, &r->pid) || dec64(sl + 1, b, &r->tid))
			return -1;
		r->has_pid = 1;
		return 0;
	}
	if (!is_digits(t->s, t->n) || dec64(t->s, t->n, &r->tid))
		return -1;
	r->has_pid = 0;
	return 0;
}

/* A sample's first line: [COMM] [PID/]TID [[CPU]] [TIME:] [PERIOD]
 * [EVENT:] [IP SYM (DSO) ...]. Where the time is given it anchors the
 * fields before it (a command's name may hold blanks and digits: the
 * ids are the last number before the cpu and time); without it, the
 * first number after the first word is the thread. 1: a sample, 0: a
 * line of another record perf script prints (PERF_RECORD_*), -1 with
 * err set. */
static int parse_header(struct pr *r, char *line, struct pc_err *err)
{
	struct tok t[24];
	size_t nt = 0;
	char *s = line;
	while (nt < 24) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		t[nt].s = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		t[nt].n = (size_t)(s - t[nt].s);
		nt++;
	}
	size_t tt = 0, k;
	while (tt < nt && parse_time(t[tt].s, t[tt].n, &r->time))
		tt++;
	r->has_time = tt < nt;
	r->has_period = 0;
	int ids = 0;
	if (r->has_time) {
		size_t j = tt;
		if (j && is_cpu(&t[j - 1]))
			j--;
		ids = j && !take_ids(r, &t[j - 1]);
		k = tt + 1;
	} else {
		/* the first number after the first word; a line that starts
		 * with "PID/TID" has no command */
		k = 0;
		if (nt && memchr(t[0].s, '/', t[0].n) && !take_ids(r, &t[0]))
			ids = 1, k = 1;
		for (size_t j = 1; !ids && j < nt && j < 8; j++)
			if (!take_ids(r, &t[j]))
				ids = 1, k = j + 1;
		if (k < nt && is_cpu(&t[k]))
			k++;
	}
	if (!ids)
		return pc_err_at_line(err, r->path, r->in.lineno,
				      "not a perf script sample: no process "
				      "or thread id%s in '%.80s'",
				      r->has_time ? " before the time" : "",
				      line);
	/* a number is the period where an event or nothing follows it
	 * (else it is an address of the sample's frame: "TID IP SYM") */
	if (k < nt && is_digits(t[k].s, t[k].n) &&
	    (k + 1 == nt || t[k + 1].s[t[k + 1].n - 1] == ':')) {
		if (dec64(t[k].s, t[k].n, &r->period))
			return pc_err_at_line(err, r->path, r->in.lineno,
					      "period %.*s does not fit 64 "
					      "bits", (int)t[k].n, t[k].s);
		r->has_period = 1;
		k++;
	}
	const char *ev = NULL;
	size_t evn = 0;
	if (k < nt && t[k].n > 1 && t[k].s[t[k].n - 1] == ':') {
		ev = t[k].s;
		evn = t[k].n - 1;
		k++;
	}
	if (ev && evn > 12 && !memcmp(ev, "PERF_RECORD_", 12))
		return 0;
	r->metric = event_metric(r, ev, evn);
	r->open = 1;
	r->hline = r->in.lineno;
	r->nfr = 0;
	r->nbuf = 0;
	/* the stack on the header's line (a sample without a call chain):
	 * an address then a symbol */
	r->chain = 1;
	if (k < nt) {
		char *e = t[k].s;
		size_t i = 0;
		while (i < t[k].n && hexval(e[i]) >= 0)
			i++;
		if (i == t[k].n && i <= 16) {
			r->chain = 0;
			if (parse_frame(r, e, err))
				return -1;
		}
	}
	return 1;
}

/* ---- reading ---- */

/* A line of the text. 0, or -1 with err set. */
static int take_line(struct pr *r, char *line, size_t len,
		     struct pc_err *err)
{
	if (!len) {
		if (r->open)
			sample_end(r);
		return 0;
	}
	if (line[0] == '#' && !r->open)
		return 0;
	if (line[0] == '\t') {
		if (!r->open || !r->chain)
			return pc_err_at_line(err, r->path, r->in.lineno,
					      "a stack frame outside of a "
					      "sample (no sample line before "
					      "it)");
		return parse_frame(r, line, err);
	}
	/* a source line (-F +srcline): two blanks, after a frame */
	if (r->open && r->nfr && line[0] == ' ' && line[1] == ' ' &&
	    line[2] != ' ' && line[2] != '\t' &&
	    (r->chain || !strstr(line, ": "))) {
		parse_srcline(r, line);
		return 0;
	}
	/* a new sample: the last one ends here when it had no chain
	 * (its frame on its line, or none: a tracepoint's sample without
	 * -g) */
	if (r->open) {
		if (r->chain && r->nfr)
			return pc_err_at_line(err, r->path, r->in.lineno,
					      "a sample line inside the stack "
					      "of the sample of line %llu (no "
					      "blank line after it)",
					      (unsigned long long)r->hline);
		sample_end(r);
	}
	return parse_header(r, line, err) < 0 ? -1 : 0;
}

static void pr_free(struct pr *r)
{
	pc_keymap_free(r->threads);
	pc_keymap_free(r->vmap);
	pc_keymap_free(r->events);
	free(r->tkeys);
	free(r->tprof);
	free(r->procs);
	free(r->nthr_of);
	free(r->evname);
	free(r->evmetric);
	free(r->buf);
	free(r->fr);
	free(r->sc);
	free(r->keys);

	free(r->num);
}

/* Reads perf script text from the open r->in. */
static int read_text(struct pr *r, struct pc_err *err)
{
	struct pc_db *db = r->db;
	for (size_t p = 0; p < db->nprofiles; p++)
		for (uint32_t i = 0; i < db->profiles[p].nids; i++)
			if (db->profiles[p].ids[i].kind == PC_ID_RANK &&
			    db->profiles[p].ids[i].logical >= r->rank0)
				r->rank0 = db->profiles[p].ids[i].logical + 1;
	r->entry[0] = r->entry[1] = r->lastprof = PC_NONE;
	r->threads = pc_keymap_new();
	r->vmap = pc_keymap_new();
	r->events = pc_keymap_new();
	r->v0 = db->nvalues;
	char *line;
	size_t len;
	int rc = 0, got;
	while ((got = pc_lines_next(&r->in, &line, &len, err)) > 0)
		if ((rc = take_line(r, line, len, err)))
			break;
	if (got < 0)
		rc = -1;
	if (!rc && r->open)
		sample_end(r);
	if (!rc && !r->samples)
		rc = pc_err_set(err, "%s: no samples", r->path);
	if (!rc && !db->title) {
		char title[4200];
		snprintf(title, sizeof title, "perf samples: %s", r->path);
		db->title = pc_intern_cstr(db, title);
	}
	pr_free(r);
	return rc;
}

/* ---- perf.data, through perf script ---- */

/* The fields asked of perf script: every one the reader takes but the
 * source lines (addr2line on every address: minutes on a large file;
 * run perf script -F +srcline yourself for them). */
#define PERF_FIELDS "comm,pid,tid,time,period,event,ip,sym,symoff,dso"

static int read_perf_data(struct pr *r, const char *path, struct pc_err *err)
{
	const char *perf = getenv("PROFCONV_PERF");
	if (!perf || !*perf)
		perf = "perf";
	int fd = pc_open_file(path, err); /* a regular file, readable */
	if (fd < 0)
		return -1;
	close(fd);
	const char *tmp = getenv("TMPDIR");
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int out[2];
	int errfd = pc_unnamed_file(tmp && *tmp ? tmp : "/tmp");
	if (fd < 0 || errfd < 0 || pipe2(out, O_CLOEXEC)) {
		if (fd >= 0)
			close(fd);
		if (errfd >= 0)
			close(errfd);
		return pc_err_set(err, "%s: %s", path, strerror(errno));
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	char *argv[] = { (char *)perf, "script", "-f", "--ns", "--inline",
			 "-F", PERF_FIELDS, "-i", (char *)path, NULL };
	pid_t pid;
	int se = posix_spawnp(&pid, perf, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	close(out[1]);
	if (se) {
		close(out[0]);
		close(errfd);
		return pc_err_set(err, "%s: a perf.data file, read by running "
				  "'%s script', which cannot run here (%s): run "
				  "'perf script -i %s > FILE' where perf is "
				  "installed and read FILE", path, perf,
				  strerror(se), path);
	}
	char fdpath[64], what[4200];
	snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", out[0]);
	snprintf(what, sizeof what, "%s (perf script)", path);
	int rc = pc_lines_open(&r->in, fdpath, r->db->diag, err);
	if (!rc) {
		r->in.path = what;
		r->path = what;
		if (r->opts && r->opts->max_line)
			r->in.max_line = r->opts->max_line;
		rc = read_text(r, err);
		/* perf stops at a broken pipe if the text was bad */
		pc_lines_close(&r->in);
	}
	close(out[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/* what perf said: its first line where it failed, else warnings */
	char msg[512] = "";
	ssize_t n = pread(errfd, msg, sizeof msg - 1, 0);
	close(errfd);
	msg[n > 0 ? n : 0] = 0;
	msg[strcspn(msg, "\n")] = 0;
	pc_escape_controls(msg, sizeof msg);
	int failed = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	if (failed && (rc == 0 || !strstr(err->msg, "perf script)"))) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
			return pc_err_set(err, "%s: a perf.data file, read by "
					  "running '%s script': perf is not "
					  "installed here; run 'perf script -i "
					  "%s > FILE' where it is and read "
					  "FILE", path, perf, path);
		return pc_err_set(err, "%s: perf script failed (%s %d)%s%s",
				  path, WIFEXITED(st) ? "exit" : "signal",
				  WIFEXITED(st) ? WEXITSTATUS(st) :
						  WTERMSIG(st),
				  *msg ? ": " : "", msg);
	}
	if (!rc && *msg)
		pc_warn(r->db->diag, "%s: perf script said: %s", path, msg);
	if (rc && failed && *msg)
		pc_err_context(err, "perf script said: %s", msg);
	return rc;
}

/* ---- the importer ---- */

/* The first sample line of perf script text: its header (a thread id,
 * a time or an event ending in ':') followed by a frame line (a tab, an
 * address) or, without call chains, by another such header. */
static int perf_probe(const struct pc_probe *p)
{
	const char *b = (const char *)p->buf;
	if (p->is_dir)
		return 0;
	if (p->len >= 8 && !memcmp(b, "PERFILE2", 8))
		return 100;
	const char *l = b, *end = b + p->len;
	while (l < end && *l == '#') { /* perf script --header */
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		l = nl ? nl + 1 : end;
	}
	while (l < end && *l == '\n')
		l++;
	const char *nl = memchr(l, '\n', (size_t)(end - l));
	if (!nl || l == nl || *l == '\t')
		return 0;
	/* the header: printable, with "NUMBER.NUMBER:" or " NAME: " */
	int time = 0, ev = 0;
	for (const char *c = l; c < nl; c++) {
		if ((unsigned char)*c < 0x20 && *c != '\t')
			return 0;
		if (*c == ':' && c > l && c[-1] >= '0' && c[-1] <= '9') {
			const char *d = c - 1;
			while (d > l && d[-1] >= '0' && d[-1] <= '9')
				d--;
			if (d > l + 1 && d[-1] == '.' && d[-2] >= '0' &&
			    d[-2] <= '9' && (c + 1 == nl || c[1] == ' '))
				time = 1;
		}
		if (*c == ':' && (c + 1 == nl || c[1] == ' '))
			ev = 1;
	}
	if (!ev)
		return 0;
	const char *f = nl + 1;
	if (f < end && *f == '\t') {
		f++;
		while (f < end && *f == ' ')
			f++;
		int hex = 0;
		while (f < end && hexval(*f) >= 0)
			f++, hex++;
		return hex && f < end && (*f == ' ' || *f == '\n') ? 90 : 0;
	}
	return time ? 60 : 0;
}

static int perf_read(struct pc_db *db, const char *path,
		     const struct pc_import_opts *opts, struct pc_err *err)
{
	struct pr r = { .db = db, .path = path, .opts = opts };
	int rc;
	struct pc_probe pr;
	if (pc_probe_open(&pr, path, err)) {
		pc_probe_close(&pr);
		return -1;
	}
	int data = pr.len >= 8 && !memcmp(pr.buf, "PERFILE2", 8);
	pc_probe_close(&pr);
	if (data) {
		if (path == pc_stdin_path)
			return pc_err_set(err, "%s: a perf.data file on standard "
					  "input: give its name (perf script "
					  "reads it)", path);
		rc = read_perf_data(&r, path, err);
	} else {
		if (pc_lines_open(&r.in, path, db->diag, err))
			return -1;
		if (opts && opts->max_line)
			r.in.max_line = opts->max_line;
		rc = read_text(&r, err);
		pc_lines_close(&r.in);
	}
	if (rc)
		pc_err_context(err, "reading perf samples");
	return rc;
}

const struct pc_importer pc_import_perf = {
	.name = "perf",
	.description = "Linux perf samples: perf script text (default and -F "
		       "fields), perf.data files (through perf script)",
	.probe = perf_probe,
	.read = perf_read,
};
