/* Linux perf samples (importers/perf.c: the text's lines, the header of
 * a sample, a frame; perf_stack.c: the stack into the tree, the caches of
 * lines and callers seen): the reader's state they share. */
#ifndef PC_PERF_H
#define PC_PERF_H
#include "pc.h"
#include "internal.h"

/* One frame of a sample as the text gives it; strings point into the
 * sample's buffer (offsets until the sample is complete). */
struct frame {
	uint64_t ip, off;
	size_t sym, dso, file; /* offsets into buf (lstr where pers),
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
	struct frame f;   /* a frame line, its strings in lstr; a source
			   * line: f.file, f.line and f.inlined */
	pc_id module, fn, file;
	uint8_t src;      /* a source line */
	uint8_t has;      /* 1: module, 2: fn (of the frame not inlined in
			   * its caller's code), 4: file */
	uint8_t keyed;    /* 1: a line of callers kept in the callers
			   * cache, 2: the first of them (a hint only:
			   * the cache may have been emptied since) */
	uint32_t cand[2]; /* the last callers that began with this line
			   * below the main thread's entry, the
			   * application thread's: an index in cand, the
			   * first of its chain (UINT32_MAX: none) */
};

/* The last callers that began with a line: the text of the lines after
 * it, each with its newline, and the blank line that ended the sample
 * (ctext[at, at + len), len <= cap: its room), the context they gave;
 * a sample whose lines after that first caller are the same bytes takes
 * it at one comparison (pc_lines_skip). */
struct cand {
	uint32_t at, len, cap;
	uint32_t nl;      /* its lines (newlines) */
	pc_id ctx, module;
	uint64_t ip;      /* the address of the first caller */
	uint32_t next;    /* the one kept before it for the same line
			   * (UINT32_MAX: none) */
	/* the first frame last seen below them (frame_cached's key but
	 * the context, its strings in fs; fn UINT32_MAX: none) and its
	 * context and module: the sample's first frame, whose address
	 * changes, most often is that function again */
	uint64_t fk[2];
	uint32_t fn;
	pc_id fctx, fmodule;
	char fs[96];
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
	char *ltext;      /* the entries' texts */
	size_t nltext, capltext;
	char *lstr;       /* and their strings (frames made from them) */
	size_t nlstr, caplstr;
	pc_id unknown_module; /* "[unknown]" (PC_NONE: not looked up) */
	struct cand *cand;
	size_t ncand, capcand;
	char *ctext;      /* the candidates' texts (lt_bytes at most) */
	size_t nctext;
	int cfull;        /* a text did not fit: emptied with the lines */
	struct cand *hit; /* the sample's callers found by their text */
	size_t hitk;      /* from its caller lids[hitk] on */
	size_t lastnew;   /* 1 + the index in lids of the sample's last
			   * line new to the table (0: none) */
	uint64_t stat_hit[2], stat_lines; /* samples found by their text
					   * at their first caller, at a
					   * later one; callers' lines
					   * looked up (PROFCONV_PERF_STATS) */
	uint64_t stat_hfull; /* sample lines parsed token by token */
	/* the bounds of the caches (perf_stack_init) */
	size_t sc_bytes, sc_slots, lt_bytes, lent_max;
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
	size_t hntafter; /* its tokens from the time on */
	int hcpu;        /* a [CPU] token before the time */
	int hvalid;
};

/* importers/perf.c: a frame line into r->fr (its strings in r->buf), a
 * source line onto the last frame. 0, or -1 with err set. */
int perf_parse_frame(struct pr *r, char *s, struct pc_err *err);
void perf_parse_srcline(struct pr *r, char *s);

/* importers/perf_stack.c */
/* The metric of an event (NULL: the text names none). */
pc_id perf_event_metric(struct pr *r, const char *ev, size_t n);
/* A caller's line (a frame, or a source line after one: src) into the
 * sample's callers. 0, or -1 with err set. */
int perf_caller_line(struct pr *r, char *line, size_t len, int src,
		     struct pc_err *err);
/* After the sample's first caller's line: where the rest of its stack
 * is the text of the last callers that began with that line, that
 * text read and the sample ended (1); else 0, or -1 with err set. */
int perf_callers_known(struct pr *r, struct pc_err *err);
/* The sample read into the tree, its period and time. */
void perf_sample_end(struct pr *r);
/* The caches' bounds set (before the first line). */
void perf_stack_init(struct pr *r);

#endif
