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
#include "perf.h"

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

/* a hex digit's value + 1 (0: not one) */
static const unsigned char hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11,
	['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int hexval(char c)
{
	return (int)hex1[(unsigned char)c] - 1;
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
	/* digits, a dot, 1 to 9 digits (one pass: a sample's every line
	 * has one) */
	size_t ni = 0;
	uint64_t sec = 0;
	unsigned d;
	while (ni < n && (d = (unsigned)(s[ni] - '0')) < 10) {
		/* (dec64's bound: 19 digits always fit) */
		if (ni >= 19 && (sec > UINT64_MAX / 10 ||
				 (sec == UINT64_MAX / 10 &&
				  d > UINT64_MAX % 10)))
			return -1;
		sec = sec * 10 + d;
		ni++;
	}
	if (!ni || ni + 2 >= n || s[ni] != '.')
		return -1;
	size_t nf = n - 2 - ni;
	if (nf > 9 || sec > UINT64_MAX / 1000000000u - 1)
		return -1;
	uint64_t frac = 0;
	for (size_t i = ni + 1; i < n - 1; i++) {
		if ((d = (unsigned)(s[i] - '0')) >= 10)
			return -1;
		frac = frac * 10 + d;
	}
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
int perf_parse_frame(struct pr *r, char *s, struct pc_err *err)
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
void perf_parse_srcline(struct pr *r, char *s)
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
	/* (PID/TID: most often a few digits each, read in one pass) */
	size_t a = 0;
	uint64_t v = 0;
	unsigned d;
	while (a < t->n && a < 19 && (d = (unsigned)(t->s[a] - '0')) < 10)
		v = v * 10 + d, a++;
	if (a && a < 19 && a < t->n && t->s[a] == '/') {
		size_t b = t->n - a - 1;
		uint64_t w = 0;
		size_t i = a + 1;
		while (i < t->n && i - a <= 19 &&
		       (d = (unsigned)(t->s[i] - '0')) < 10)
			w = w * 10 + d, i++;
		if (b && i == t->n && b < 19) {
			r->pid = v;
			r->tid = w;
			r->has_pid = 1;
			return 0;
		}
	}
	const char *sl = memchr(t->s, '/', t->n);
	if (sl) {
		size_t a2 = (size_t)(sl - t->s), b = t->n - a2 - 1;
		if (!is_digits(t->s, a2) || !is_digits(sl + 1, b) ||
		    dec64(t->s, a2, &r->pid) || dec64(sl + 1, b, &r->tid))
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

/* A sample begins at this header line: its stack empty so far. */
static void sample_open(struct pr *r)
{
	r->open = 1;
	r->hline = r->in.lineno;
	r->nfr = 0;
	r->nbuf = 0;
	r->nlids = 0;
	r->lastnew = 0;
}

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
	sample_open(r);
	return 1;
}

/* The sample of the header before but for its thread and time, where
 * line ends with the same tokens after its time (the period, the
 * event), the time token before them, and before it [CPU] where the
 * header before had one and PID/TID or TID, after words without a ':'
 * (none of them a time) and within parse_header_full's 24 tokens: what
 * it would make of the line. 1, else 0. (A program's threads take turns:
 * the header before is most often another thread's.) */
static int header_thread(struct pr *r, char *line, size_t len)
{
	size_t suf = r->nhprev - r->hte;
	if (!r->hvalid || len < suf + 4 ||
	    memcmp(line + len - suf, r->hprev + r->hte, suf))
		return 0;
	size_t te = len - suf, ts = te;
	while (ts && line[ts - 1] != ' ' && line[ts - 1] != '\t')
		ts--;
	uint64_t time;
	if (!ts || parse_time(line + ts, te - ts, &time) ||
	    memchr(line, ':', ts))
		return 0;
	struct tok t[24];
	size_t nt = 0;
	char *e = line, *end = line + ts;
	for (;;) {
		while (e < end && (*e == ' ' || *e == '\t'))
			e++;
		if (e == end)
			break;
		if (nt + r->hntafter >= 24)
			return 0;
		t[nt].s = e;
		while (e < end && *e && *e != ' ' && *e != '\t')
			e++;
		if (e < end && !*e)
			return 0; /* (a NUL: the full parse stops there) */
		t[nt].n = (size_t)(e - t[nt].s);
		nt++;
	}
	size_t j = nt;
	if (j && r->hcpu && is_cpu(&t[j - 1]))
		j--;
	if (!j || j != nt - (size_t)r->hcpu || take_ids(r, &t[j - 1]))
		return 0;
	r->time = time;
	sample_open(r);
	/* (the header before now: header_again's) */
	if (r->caphprev < len + 1) {
		r->caphprev = 2 * len + 64;
		r->hprev = pc_xrealloc(r->hprev, r->caphprev, 1);
	}
	memcpy(r->hprev, line, len);
	r->nhprev = len;
	r->hts = ts;
	r->hte = te;
	return 1;
}

static int parse_header(struct pr *r, char *line, size_t len,
			struct pc_err *err)
{
	if (header_again(r, line, len) || header_thread(r, line, len))
		return 1;
	r->hvalid = 0;
	r->stat_hfull++;
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
	r->metric = perf_event_metric(r, ev, evn);
	sample_open(r);
	/* the stack on the header's line (a sample without a call chain):
	 * an address then a symbol */
	r->chain = 1;
	if (r->has_time && nt < 24 &&
	    (k >= nt || !(t[k].n <= 16 && hex_token(t[k].s, t[k].n)))) {
		/* (kept for header_again and header_thread: a chain
		 * follows, and no token was left out) */
		if (r->caphprev < len + 1) {
			r->caphprev = 2 * len + 64;
			r->hprev = pc_xrealloc(r->hprev, r->caphprev, 1);
		}
		memcpy(r->hprev, line, len);
		r->nhprev = len;
		r->hts = (size_t)(t[tt].s - line);
		r->hte = r->hts + t[tt].n;
		r->hntafter = nt - tt;
		r->hcpu = tt && is_cpu(&t[tt - 1]);
		r->hvalid = 1;
	}
	if (k < nt) {
		char *e = t[k].s;
		size_t i = 0;
		while (i < t[k].n && hexval(e[i]) >= 0)
			i++;
		if (i == t[k].n && i <= 16) {
			r->chain = 0;
			if (perf_parse_frame(r, e, err))
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
			perf_sample_end(r);
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
		if (r->nfr && r->chain) {
			if (perf_caller_line(r, line, len, 0, err))
				return -1;
			/* (line is not valid after this) */
			return perf_callers_known(r, err) < 0 ? -1 : 0;
		}
		return perf_parse_frame(r, line, err);
	}
	/* a source line (-F +srcline): two blanks, after a frame */
	if (r->open && r->nfr && line[0] == ' ' && line[1] == ' ' &&
	    line[2] != ' ' && line[2] != '\t' &&
	    (r->chain || !strstr(line, ": "))) {
		if (r->nlids)
			return perf_caller_line(r, line, len, 1, err);
		perf_parse_srcline(r, line);
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
		perf_sample_end(r);
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
	free(r->cand);
	free(r->ctext);
	free(r->ltext);
	free(r->lstr);
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
	perf_stack_init(r);
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
		perf_sample_end(r);
	if (!rc && !r->samples)
		rc = pc_err_set(err, "%s: no samples", r->path);
	if (getenv("PROFCONV_PERF_STATS")) /* (the tests' count of work) */
		fprintf(stderr, "perf stats: %llu samples, %llu found by their "
			"callers' text at the first caller, %llu at a later "
			"one, %llu callers' lines looked up, %llu sample "
			"lines parsed whole\n",
			(unsigned long long)r->samples,
			(unsigned long long)r->stat_hit[0],
			(unsigned long long)r->stat_hit[1],
			(unsigned long long)r->stat_lines,
			(unsigned long long)r->stat_hfull);
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
	pc_memory_init(); /* its tables grow page by page (src/util.c) */
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
