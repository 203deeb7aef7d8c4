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
	size_t sym, dso, file; /* offsets into buf (ltext where pers),
				* SIZE_MAX: none */
	size_t b0, b1;         /* its strings: buf[b0, b1) */
	uint32_t line;
	uint32_t fl, sl;       /* a caller's: the entries of its line and
				* of the source line that gave its file
				* (struct lent; UINT32_MAX: none) */
	uint8_t has_off, inlined, pers;
};

/* A caller's line seen (a frame, or a source line after one): its text,
 * what it parses to, and the model's ids of its module, function and
 * file, looked up the first time a walk needs them. */
struct lent {
	uint64_t h;
	uint32_t at, len; /* its text: ltext[at, at + len) */
	struct frame f;   /* a frame line, its strings in ltext; a source
			   * line: f.file, f.line and f.inlined */
	pc_id module, fn, file;
	uint8_t src;      /* a source line */
	uint8_t has;      /* 1: module, 2: fn (of the frame not inlined in
			   * its caller's code), 4: file */
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
	/* the event of the sample before (its text, as given) */
	char lastev[256];
	size_t nlastev;
	int lastev_period; /* (has_period then: 0, 1; -1: none yet) */
	pc_id lastevm;
	uint64_t samples;
	/* the lines of the sample's stack after its first frame (its
	 * callers, with their source lines): their entries in the table of
	 * lines seen, parsed only where new (one hash of a line's text) */
	uint32_t *lids;
	size_t nlids, caplids;
	uint64_t *sufh; /* the hash of each of their ends, lids[k, nlids) */
	size_t capsufh;
	struct lent *lent;
	size_t nlent, caplent;
	struct lslot {
		uint32_t tag; /* the hash's high half */
		uint32_t id;  /* entry + 1 (0: empty) */
		uint32_t at, len; /* its text (a probe reads no entry) */
	} *lslot;         /* caplslot a power of 2 */
	size_t caplslot;
	char *ltext;      /* the entries' texts and strings */
	size_t nltext, capltext;
	pc_id unknown_module; /* "[unknown]" (PC_NONE: not looked up) */
	/* callers seen and first frames seen (struct scache): a sample
	 * whose callers' lines are one of them (below the same entry)
	 * takes the context of its first frame's caller without a walk
	 * down the tree; its first frame, whose address changes from
	 * sample to sample, is parsed, and its context is that of the same
	 * frame (function, entry, dso, line) seen below that caller */
	struct scache {
		uint64_t h;
		uint32_t at, len; /* its key: bytes [at, at + len) of keys
				   * (SCACHE_BYTES fit 32 bits) */
		pc_id ctx;      /* the callers' innermost context, or the
				 * first frame's */
		pc_id module;   /* the module after them (walk's) */
		uint64_t ip;    /* the address of the first caller */
		uint8_t kind;   /* 0: callers' lines (their entries), 1: a
				 * frame below a context */
	} *sc;
	size_t nsc, capsc; /* capsc a power of two */
	pc_id entry[2]; /* main thread, application thread (PC_NONE: not
			 * yet looked up) */
	struct thread_key last; /* the thread of the sample before */
	pc_id lastprof;         /* its profile (PC_NONE: none) */
	unsigned char *keys; /* SCACHE_BYTES */
	size_t nkeys;
	/* the header before, of a sample with a time and a call chain:
	 * a header that differs from it only in its time token [hts,
	 * hte) is that sample's but for the time */
	char *hprev;
	size_t nhprev, caphprev, hts, hte;
	int hvalid;
};


/* The callers cache's bound: its keys and slots are dropped when it has
 * this many bytes of keys (one sample's stack of 40 frames is some
 * 2 kB of text), so that memory does not grow with the samples. */
#define SCACHE_BYTES ((size_t)32 << 20)
/* and its slots (40 bytes each: 20 MiB) */
#define SCACHE_SLOTS ((size_t)1 << 19)
/* The table of callers' lines is emptied (and the callers cache, whose
 * keys are its entries) when a sample starts with this many bytes of
 * text or entries in it (an entry is some 130 bytes) */
#define LTEXT_BYTES ((size_t)16 << 20)
#define LENT_MAX ((size_t)1 << 17)
/* Ends of a sample's callers looked up where the whole is new: those
 * without their first 1 to SUFFIX_TRIES frames (kernel frames above a
 * stack seen before, a caller whose address changed) */
#define SUFFIX_TRIES 16

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
		/* (19 digits always fit: no division a digit) */
		if (i >= 19 && (x > UINT64_MAX / 10 ||
				(x == UINT64_MAX / 10 && d > UINT64_MAX % 10)))
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
	/* digits, a dot, 1 to 9 digits */
	size_t ni = 0;
	while (ni < n && s[ni] >= '0' && s[ni] <= '9')
		ni++;
	if (!ni || ni + 2 >= n || s[ni] != '.')
		return -1;
	const char *dot = s + ni;
	size_t nf = n - 2 - ni;
	if (nf > 9 || !is_digits(dot + 1, nf))
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
			   .file = SIZE_MAX, .b0 = r->nbuf,
			   .fl = UINT32_MAX, .sl = UINT32_MAX };
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
		/* (most often no parenthesis inside: the last '(' it is) */
		const char *o = n > 1 ? memrchr(e, '(', n - 1) : NULL;
		if (o && !memchr(o + 1, ')', (size_t)(e + n - 1 - (o + 1))))
			i = (size_t)(o - e);
		else
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
	f.b1 = r->nbuf;
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
	f->b1 = r->nbuf;
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
static pc_id event_metric(struct pr *r, const char *ev, size_t n)
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
	const char *base = f->pers ? r->ltext : r->buf;
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
	if (len > SCACHE_BYTES / 4) /* (a stack of 100,000 frames) */
		return NULL;
	if (r->nkeys + len > SCACHE_BYTES || 2 * (r->nsc + 1) > r->capsc) {
		if (r->capsc < SCACHE_SLOTS) {
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
		r->keys = pc_xmalloc(SCACHE_BYTES);
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
	scache_clear(r); /* (its callers' keys are entries) */
}

/* A caller's line (a frame, or a source line after one: src) into the
 * sample's callers: its entry, the line parsed where new. 0, or -1 with
 * err set (a frame line that is not one). */
static int caller_line(struct pr *r, char *line, size_t len, int src,
		       struct pc_err *err)
{
	/* (emptied between samples only: the sample's entries stay) */
	if (!r->nlids && (r->nltext > LTEXT_BYTES || r->nlent > LENT_MAX))
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
			parse_srcline(r, line);
		} else if (parse_frame(r, line, err)) {
			return -1;
		}
		struct frame f = r->fr[--r->nfr];
		size_t nb = f.b1 - f.b0, at = r->nltext;
		if (r->capltext - r->nltext < len + nb) {
			while (r->capltext - r->nltext < len + nb)
				r->capltext = r->capltext ? 2 * r->capltext :
							    65536;
			r->ltext = pc_xrealloc(r->ltext, r->capltext, 1);
		}
		memcpy(r->ltext + at, line, len);
		memcpy(r->ltext + at + len, r->buf + f.b0, nb);
		r->nltext += len + nb;
		r->nbuf = nbuf;
		size_t d = at + len; /* buf[b0] is ltext[d] */
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
			.f = f, .src = (uint8_t)src };
		r->lslot[j] = (struct lslot){ tag, id + 1, (uint32_t)at,
					      (uint32_t)len };
	}
	PC_GROW(r->lids, r->nlids, r->caplids);
	r->lids[r->nlids++] = id;
	return 0;
}

/* The callers' frames (frames 1 on) from their lines' entries, each
 * source line applied to the frame before it as parse_srcline does. */
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
}

/* frame_ctx of frame i below c, or the context of the same frame seen
 * below c (with the same module before it): the key is what decides
 * its context (the address or entry that counts, the line, which fields
 * are there, its strings). */
static pc_id frame_cached(struct pr *r, size_t i, pc_id c, int inl,
			  pc_id *module)
{
	const struct frame *f = &r->fr[i];
	int instr = r->opts && r->opts->instructions;
	uint64_t k[3];
	k[0] = (uint64_t)c << 32 | *module;
	k[1] = f->sym == SIZE_MAX || instr ? f->ip :
	       f->has_off && !f->inlined && f->ip >= f->off ? f->ip - f->off :
							      0;
	k[2] = f->line | (uint64_t)inl << 32 | (uint64_t)f->inlined << 33 |
	       (uint64_t)(f->sym != SIZE_MAX) << 34 |
	       (uint64_t)(f->dso != SIZE_MAX) << 35 |
	       (uint64_t)(f->file != SIZE_MAX) << 36;
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
	size_t fi = 1; /* the frame of lids[k] */
	for (size_t k = 1; k < r->nlids && fi <= SUFFIX_TRIES; k++) {
		if (r->lent[r->lids[k]].src)
			continue;
		fi++;
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

/* The sample read: its stack into the tree (its callers walked once
 * while the cache holds them, its first frame every time), its period
 * into the value of the innermost context, its time into the thread's
 * trace. (Its lines were parsed as they came.) */
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
	if (!r->nfr) {
		sample_add(r, prof, e);
		return;
	}
	pc_id c = e, module = PC_NONE;
	uint64_t ip = 0;
	int callers = r->nlids > 0;
	if (callers) {
		uint64_t h = lids_hash(r, e);
		struct scache *slot = scache_slot(r, 0, h, &e, sizeof e,
						  r->lids, 4 * r->nlids);
		if (slot && slot->len) {
			c = slot->ctx;
			module = slot->module;
			ip = slot->ip;
		} else {
			callers_frames(r);
			ip = r->fr[1].ip;
			c = callers_walk(r, e, &module);
			/* (the table may have changed: the slot again) */
			slot = scache_slot(r, 0, h, &e, sizeof e, r->lids,
					   4 * r->nlids);
			if (slot)
				scache_put(r, slot, 0, h, &e, sizeof e,
					   r->lids, 4 * r->nlids, c, module,
					   ip);
		}
	}
	/* the first frame: inlined in its caller's code where it is at the
	 * same address (walk's rule) */
	const struct frame *f = &r->fr[0];
	int inl = f->inlined && callers && ip == f->ip;
	c = frame_cached(r, 0, c, inl, &module);
	sample_add(r, prof, c);
}

/* ---- the header of a sample ---- */

/* s[0, n) all hex digits */
static int hex_token(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (hexval(s[i]) < 0)
			return 0;
	return 1;
}

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
static int parse_header_full(struct pr *r, char *line, size_t len,
			     struct pc_err *err);

/* The sample of the header before but for its time, where line differs
 * from it only in the time token (the tokens before it are the same:
 * not times; those after it the same): 1, else 0. */
static int header_again(struct pr *r, char *line, size_t len)
{
	size_t ts = r->hts, te = ts;
	if (!r->hvalid || len < ts || memcmp(line, r->hprev, ts))
		return 0;
	while (te < len && line[te] && line[te] != ' ' && line[te] != '\t')
		te++;
	if (len - te != r->nhprev - r->hte ||
	    memcmp(line + te, r->hprev + r->hte, len - te) ||
	    parse_time(line + ts, te - ts, &r->time))
		return 0;
	r->open = 1;
	r->hline = r->in.lineno;
	r->nfr = 0;
	r->nbuf = 0;
	r->nlids = 0;
	return 1;
}

static int parse_header(struct pr *r, char *line, size_t len,
			struct pc_err *err)
{
	if (header_again(r, line, len))
		return 1;
	r->hvalid = 0;
	return parse_header_full(r, line, len, err);
}

static int parse_header_full(struct pr *r, char *line, size_t len,
			     struct pc_err *err)
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
	r->nlids = 0;
	/* the stack on the header's line (a sample without a call chain):
	 * an address then a symbol */
	r->chain = 1;
	if (r->has_time && (k >= nt || !(t[k].n <= 16 &&
					  hex_token(t[k].s, t[k].n)))) {
		/* (kept for header_again: a chain follows) */
		if (r->caphprev < len + 1) {
			r->caphprev = 2 * len + 64;
			r->hprev = pc_xrealloc(r->hprev, r->caphprev, 1);
		}
		memcpy(r->hprev, line, len);
		r->nhprev = len;
		r->hts = (size_t)(t[tt].s - line);
		r->hte = r->hts + t[tt].n;
		r->hvalid = 1;
	}
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
		/* the first frame parsed, its callers looked up */
		if (r->nfr && r->chain)
			return caller_line(r, line, len, 0, err);
		return parse_frame(r, line, err);
	}
	/* a source line (-F +srcline): two blanks, after a frame */
	if (r->open && r->nfr && line[0] == ' ' && line[1] == ' ' &&
	    line[2] != ' ' && line[2] != '\t' &&
	    (r->chain || !strstr(line, ": "))) {
		if (r->nlids)
			return caller_line(r, line, len, 1, err);
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
	return parse_header(r, line, len, err) < 0 ? -1 : 0;
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
	free(r->lids);
	free(r->sufh);
	free(r->lent);
	free(r->lslot);
	free(r->ltext);
	free(r->hprev);
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
	r->unknown_module = PC_NONE;
	r->lastev_period = -1;
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
