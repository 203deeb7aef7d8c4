/* Callgrind and Cachegrind text profiles (valgrind). FORMAT-NOTES
 * section 5 lists what real files contain beyond the format manual. */
#include "callgrind_parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

int cg_fail(struct parser *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return pc_err_at_line(p->err, p->path, p->in.lineno, "%s", msg);
}

/* Parses an unsigned decimal (or 0x hex) number. Returns the end, or
 * NULL if there is no number or it does not fit in 64 bits. */
const char *cg_parse_u64(const char *s, uint64_t *out, int *overflow)
{
	uint64_t v = 0;
	const char *start;
	*overflow = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		start = s;
		for (;; s++) {
			unsigned d;
			if (*s >= '0' && *s <= '9')
				d = (unsigned)(*s - '0');
			else if (*s >= 'a' && *s <= 'f')
				d = (unsigned)(*s - 'a' + 10);
			else if (*s >= 'A' && *s <= 'F')
				d = (unsigned)(*s - 'A' + 10);
			else
				break;
			if (v >> 60)
				*overflow = 1;
			v = v << 4 | d;
		}
	} else {
		start = s;
		/* 19 digits never pass 64 bits: no test for them */
		for (; *s >= '0' && *s <= '9' && s - start < 19; s++)
			v = v * 10 + (unsigned)(*s - '0');
		for (; *s >= '0' && *s <= '9'; s++) {
			unsigned d = (unsigned)(*s - '0');
			if (v > (UINT64_MAX - d) / 10)
				*overflow = 1;
			v = v * 10 + d;
		}
	}
	if (s == start || *overflow)
		return NULL;
	*out = v;
	return s;
}

/* (inline: every count and position) parse_u64 for the usual case,
 * a decimal of at most 19 digits, in one loop; anything else (hex,
 * longer, no number) is parse_u64's. */
static inline const char *parse_num(const char *s, uint64_t *out,
				    int *overflow)
{
	unsigned d = (unsigned)(unsigned char)s[0] - '0';
	if (d > 9 || (d == 0 && (s[1] == 'x' || s[1] == 'X')))
		return cg_parse_u64(s, out, overflow);
	uint64_t v = d;
	const char *e = s + 1;
	while ((d = (unsigned)(unsigned char)*e - '0') <= 9) {
		v = v * 10 + d;
		e++;
	}
	if (e - s > 19)
		return cg_parse_u64(s, out, overflow);
	*overflow = 0;
	*out = v;
	return e;
}

/* (inline: the usual count or position) A decimal of 1 to 19 digits
 * at s ended by a blank or the line's end: its value in *v, its end;
 * NULL for anything else (hex, longer, a sign, a bad end: the general
 * path's, which says what is wrong). */
static inline const char *dec_fast(const char *s, uint64_t *v)
{
	unsigned d = (unsigned)(unsigned char)*s - '0';
	if (d > 9)
		return NULL;
	uint64_t x = d;
	const char *e = s + 1;
	while ((d = (unsigned)(unsigned char)*e - '0') <= 9) {
		x = x * 10 + d;
		e++;
	}
	if (e - s > 19 || (*e && *e != ' ' && *e != '\t'))
		return NULL;
	*v = x;
	return e;
}

/* Decimal digits of v: cg_digits' count, from the bit length (a loop
 * of comparisons was a tenth of the parse; divisions before it) */
static inline double digits10(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	uint64_t w = v | 1; /* (0 has a digit too) */
	/* t: floor(bits * log10(2)), the digits or one more */
	unsigned t = (unsigned)(64 - __builtin_clzll(w)) * 1233 >> 12;
	return (double)(t + (w >= p10[t]));
}

/* The counts of s into out[0..n), zeros for those not given; *end (if
 * not NULL) where the reading stopped: the line's end. */
int cg_parse_counts(struct parser *p, const char *s, uint64_t *out,
		    size_t n, const char *what, const char **end)
{
	size_t i = 0;
	for (;;) {
		s = cg_skip_space(s);
		if (!*s)
			break;
		if (i == n)
			return cg_fail(p, "%s has more than the %zu counts of "
				    "'events:'", what, n);
		const char *f = dec_fast(s, &out[i]);
		if (f) {
			s = f;
			i++;
			continue;
		}
		int of, neg = *s == '-';
		const char *e = parse_num(s + neg, &out[i], &of);
		if (!e || (*e && *e != ' ' && *e != '\t'))
			return cg_fail(p, of ? "%s: count past 64 bits" :
				    "%s: bad count '%.40s'", what, s);
		if (neg) { /* (Xdebug's memory: signed, two's complement) */
			if (out[i] > (uint64_t)INT64_MAX + 1)
				return cg_fail(p, "%s: count past 64 bits", what);
			out[i] = 0 - out[i];
			p->negev[i] = 1;
			p->anyneg = 1;
		}
		s = e;
		i++;
	}
	for (; i < n; i++)
		out[i] = 0;
	if (end)
		*end = s;
	return 0;
}

/* Id id of t defined as the name b[0, n) less its trailing blanks
 * (interned; *ix its entry): parse_name's and fast_name's. */
static const char *name_define(struct parser *p, struct idtab *t,
			       uint64_t id, const char *b, size_t n,
			       pc_id *ix)
{
	while (n && (b[n - 1] == ' ' || b[n - 1] == '\t'))
		n--;
	const char *name = pc_intern(p->db, b, n);
	*ix = cg_idtab_set(t, id, name);
	return name;
}

/* Name specifications: "(ID) name", "(ID)" or "name"; *ix is the
 * name's entry in t (PC_NONE: a name without an id, or an id never
 * defined). */
static int parse_name(struct parser *p, struct idtab *t, const char *s,
		      const char **out, pc_id *ix)
{
	*ix = PC_NONE;
	s = cg_skip_space(s);
	if (s[0] == '(' && s[1] >= '0' && s[1] <= '9') {
		uint64_t id;
		int of;
		const char *e = cg_parse_u64(s + 1, &id, &of);
		if (!e || *e != ')')
			return cg_fail(p, of ? "name id past 64 bits" :
				    "bad name id in '%.40s'", s);
		e = cg_skip_space(e + 1);
		if (*e) {
			*out = name_define(p, t, id, e, strlen(e), ix);
		} else {
			*ix = cg_idtab_get(t, id);
			*out = *ix != PC_NONE ? t->e[*ix].name : NULL;
			if (!*out) {
				/* a producer's quirk (callgrind 0.10 wrote
				 * cob=(8) never naming 8): as KCachegrind,
				 * an unknown name, the costs kept */
				if (!p->undef_n++) {
					p->undef_line = p->in.lineno;
					p->undef_id = id;
				}
				char buf[32];
				int k = snprintf(buf, sizeof buf, "(%llu)",
						 (unsigned long long)id);
				*out = t == &p->fn ? pc_intern(p->db, buf,
							       (size_t)k) :
						     "???";
			}
		}
		return 0;
	}
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	*out = pc_intern(p->db, s, n);
	return 0;
}

/* The model function of name (fn= or cfn=, entry ix of the fn table)
 * in module mod and file file: pc_function_get's, found once a name
 * id and the same module and file (a name's lookup was a fifth of
 * reading a file with name compression). */
static pc_id function_of(struct parser *p, const char *name, pc_id ix,
			 pc_id mod, pc_id file)
{
	struct idname *e = ix != PC_NONE ? &p->fn.e[ix] : NULL;
	if (e && e->func != PC_NONE && e->fmod == mod && e->ffile == file)
		return e->func;
	pc_id func = pc_function_get_interned(p->db, name, mod, 0, file, 0, 0);
	if (e) {
		e->func = func;
		e->fmod = mod;
		e->ffile = file;
	}
	return func;
}

/* Parses the positions of a cost line, relative to the previous one, and
 * returns the rest of the line (the counts). */
static const char *parse_positions_of(struct parser *p, const char *s,
				      uint64_t *pos)
{
	for (int i = 0; i < p->npos; i++) {
		s = cg_skip_space(s);
		uint64_t v, base = p->last[i];
		int of = 0;
		const char *e;
		if (*s == '+' && (e = dec_fast(s + 1, &v)) &&
		    base <= UINT64_MAX - v) { /* (the usual: +N) */
			pos[i] = base + v;
			s = e;
			continue;
		}
		if (*s == '*') {
			v = base;
			e = s + 1;
		} else if (*s == '+' || *s == '-') {
			uint64_t d;
			e = parse_num(s + 1, &d, &of);
			if (!e) {
				cg_fail(p, of ? "position past 64 bits" :
				     "bad relative position '%.40s'", s);
				return NULL;
			}
			if (*s == '+') {
				if (base > UINT64_MAX - d) {
					cg_fail(p, "position past 64 bits");
					return NULL;
				}
				v = base + d;
			} else {
				if (d > base) {
					cg_fail(p, "relative position '%.40s' "
					     "goes below zero", s);
					return NULL;
				}
				v = base - d;
			}
		} else {
			e = parse_num(s, &v, &of);
			if (!e) {
				if (!*s && i > 0) {
					/* fewer positions than declared:
					 * the rest stay as they were */
					for (; i < p->npos; i++)
						pos[i] = p->last[i];
					return s;
				}
				cg_fail(p, of ? "position past 64 bits" :
				     "bad position '%.40s'", s);
				return NULL;
			}
		}
		if (*e && *e != ' ' && *e != '\t') {
			cg_fail(p, "bad position '%.40s'", s);
			return NULL;
		}
		pos[i] = v;
		s = e;
	}
	return s;
}

/* The line and instruction address among positions pos (MAX_POS + 1
 * of them, the last zero). */
static inline int line_addr(struct parser *p, const uint64_t *pos,
			    uint64_t *line, uint64_t *addr)
{
	*line = pos[p->iline];
	*addr = pos[p->iinstr];
	if (*line > UINT32_MAX)
		return cg_fail(p, "line number %llu too large",
			    (unsigned long long)*line);
	return 0;
}

/* Remembers func's entry (first seen) from a calls= target. */
static void note_entry(struct parser *p, pc_id func)
{
	if (!p->call_addr && !p->call_line)
		return;
	if (func >= p->nent) {
		size_t n = p->nent ? p->nent : 64;
		while (n <= func)
			n *= 2;
		p->ent_off = pc_xrealloc(p->ent_off, n, sizeof(uint64_t));
		p->ent_line = pc_xrealloc(p->ent_line, n, sizeof(uint32_t));
		memset(p->ent_off + p->nent, 0,
		       (n - p->nent) * sizeof(uint64_t));
		memset(p->ent_line + p->nent, 0,
		       (n - p->nent) * sizeof(uint32_t));
		p->nent = n;
	}
	if (!p->ent_off[func] && !p->ent_line[func]) {
		p->ent_off[func] = p->call_addr;
		p->ent_line[func] = p->call_line;
	}
}

/* A cost line's costs (p->line_costs) at line and addr, after calls=
 * (expect 'c': the call's inclusive cost) or not (a self cost); with
 * known, nz of them are not zero and vbytes their bytes as valgrind
 * writes them (each's digits and a blank), else found here. */
static inline int cost_apply(struct parser *p, uint64_t line, uint64_t addr,
			     int expect, int known, size_t nz, double vbytes)
{
	p->part_has_data = 1;
	pc_id file = p->cur_file;
	if (expect == 'c') {
		/* cfi=/cob= given as "???": unknown (GIVEN_UNKNOWN) */
		pc_id cfile = p->cfi == GIVEN_UNKNOWN ? PC_NONE :
			      p->cfi != PC_NONE ? p->cfi : p->cur_file;
		pc_id cmod = p->cob == GIVEN_UNKNOWN ? PC_NONE :
			     p->cob != PC_NONE ? p->cob : p->cur_ob;
		/* (a file without fl= gives its fn= blocks no file: their
		 * callees are found without one too) */
		pc_id func = function_of(p, p->cfn, p->cfn_ix, cmod,
					 p->seen_fl ? cfile : PC_NONE);
		note_entry(p, func);
		struct cg_edge key = {
			.from = p->cur_fn, .to = pc_cg_graph_fn(&p->g, func),
			.file = file, .line = (uint32_t)line,
			.module = p->cur_ob, .addr = addr,
		};
		uint64_t *c;
		struct cg_edge *e = pc_cg_graph_edge(&p->g, &key, &c);
		e->count += p->call_count;
		for (size_t m = 0; m < p->nev; m++)
			c[m] += p->line_costs[m];
		p->cob = p->cfi = PC_NONE;
		p->cfn = NULL;
		return 0;
	}
	struct cg_rec key = {
		.fn = p->cur_fn, .file = file, .line = (uint32_t)line,
		.module = p->cur_ob, .addr = addr,
	};
	struct cg_graph *g = &p->g;
	const struct cg_rec *last = g->nrecs ? &g->recs[g->nrecs - 1] : NULL;
	int same = g->merge && last && last->fn == key.fn &&
		   last->file == key.file && last->line == key.line;
	uint64_t *c = same ? g->rcost + (g->nrecs - 1) * g->nev :
			     pc_cg_graph_rec(g, &key);
	g->ncost++;
	/* (the line's digits once for a run of lines at one line) */
	if (line != p->bytes_line) {
		p->bytes_line = line;
		p->line_bytes = 1 + (g->has_instr ? 4 : 0) +
				(uint64_t)digits10(line);
	}
	g->cost_bytes += (double)p->line_bytes;
	const uint64_t *lc = p->line_costs;
	uint64_t *sum = p->selfsum;
	size_t nev = p->nev;
	if (!p->anyneg) { /* (counts unsigned: the usual file) */
		for (size_t m = 0; m < nev; m++)
			if (__builtin_add_overflow(sum[m], lc[m], &sum[m]))
				return cg_fail(p, "sum of costs past 64 bits");
	} else {
		for (size_t m = 0; m < nev; m++) {
			uint64_t v = lc[m];
			int64_t t;
			if (p->negev[m] ? __builtin_add_overflow(
						  (int64_t)sum[m], (int64_t)v, &t) :
					  sum[m] > UINT64_MAX - v)
				return cg_fail(p, "sum of costs past 64 bits");
			sum[m] += v;
		}
	}
	if (known) {
		if (same)
			for (size_t m = 0; m < nev; m++)
				c[m] += lc[m];
		else
			for (size_t m = 0; m < nev; m++)
				c[m] = lc[m];
		g->nonzero += (double)nz;
		g->cost_bytes += vbytes;
		return 0;
	}
	for (size_t m = 0; m < nev; m++) {
		uint64_t v = lc[m];
		c[m] = same ? c[m] + v : v;
		if (v) {
			g->nonzero++;
			g->cost_bytes += 1 + digits10(p->anyneg && p->negev[m] &&
					(int64_t)v < 0 ? 0 - v : v);
		}
	}
	return 0;
}

/* A cost line; *end where its reading stopped (the line's end unless
 * it holds a NUL byte), NULL if not read to the end. */
static int cost_line(struct parser *p, const char *s, const char **end)
{
	*end = NULL;
	if (!p->nev)
		return cg_fail(p, "cost line before any 'events:' header");
	uint64_t pos[MAX_POS + 1] = { 0 };
	const char *rest = parse_positions_of(p, s, pos);
	if (!rest)
		return -1;
	/* (all MAX_POS: those past npos are zero, never read; a loop to
	 * npos became a call of memcpy) */
	_Static_assert(MAX_POS == 3, "positions copied one by one");
	p->last[0] = pos[0];
	p->last[1] = pos[1];
	p->last[2] = pos[2];
	uint64_t line, addr;
	if (line_addr(p, pos, &line, &addr))
		return -1;
	int expect = p->expect;
	p->expect = 0;
	if (expect == 'j')
		return 0; /* source position of a jump: no cost for us */
	if (cg_parse_counts(p, rest, p->line_costs, p->nev,
			 expect == 'c' ? "call cost line" : "cost line", end))
		return -1;
	if (p->cur_fn == UINT32_MAX)
		return cg_fail(p, "cost line before any 'fn='");
	return cost_apply(p, line, addr, expect, 0, 0, 0);
}

/* ---- cost lines in place (the usual ones, ahead of pc_lines_next) ---- */

/* A decimal of 1 to 19 digits at q: its value in *v, its end; NULL if
 * q holds no digit or 20 or more. (A load of 8 bytes turned into up
 * to 7 digits by masks and three multiplies took more instructions
 * than this loop on the cost lines' short numbers: 250 against 239 M
 * on a generated 10 MB file, 101 against 97 M on cc1plus.) */
static inline const char *dec(const char *q, uint64_t *v)
{
	unsigned d = (unsigned)(unsigned char)*q - '0';
	if (d > 9)
		return NULL;
	uint64_t x = d;
	const char *e = q + 1;
	while ((d = (unsigned)(unsigned char)*e - '0') <= 9) {
		x = x * 10 + d;
		e++;
	}
	if (e - q > 19)
		return NULL;
	*v = x;
	return e;
}

/* valgrind's "???" is no name: an unknown file or object. The model
 * file or module of entry ix of the fl or ob table found once (a
 * lookup by the name's text on each fl=, fi=, fe=, cfi=, ob= and cob=
 * line was a tenth of the parse of a generated file). */
static pc_id model_of(struct parser *p, struct idtab *t,
		      pc_id (*get)(struct pc_db *, const char *),
		      const char *name, pc_id ix)
{
	struct idname *e = ix != PC_NONE ? &t->e[ix] : NULL;
	if (e && e->func != PC_NONE)
		return e->func;
	pc_id id = strcmp(name, "???") ? get(p->db, name) : PC_NONE;
	if (e)
		e->func = id;
	return id;
}

static pc_id file_of(struct parser *p, const char *name, pc_id ix)
{
	return model_of(p, &p->fl, pc_file_get, name, ix);
}

static pc_id object_of(struct parser *p, const char *name, pc_id ix)
{
	return model_of(p, &p->ob, pc_module_get, name, ix);
}

/* "key=value" body lines. */
static int spec_line(struct parser *p, const char *key, size_t klen,
		     const char *val)
{
	const char *name;
	pc_id ix;
#define IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
	if (p->expect == 'c')
		return cg_fail(p, "'calls=' must be followed by its cost line");
	p->expect = 0;
	if (IS("fn")) {
		if (parse_name(p, &p->fn, val, &name, &ix))
			return -1;
		if (!p->nev)
			return cg_fail(p, "'fn=' before any 'events:' header");
		pc_id func = function_of(p, name, ix, p->cur_ob, p->cur_fl);
		p->cur_fn = pc_cg_graph_fn(&p->g, func);
		p->cur_func = func;
		p->cur_file = p->cur_fl;
		return 0;
	}
	if (IS("fl")) {
		if (parse_name(p, &p->fl, val, &name, &ix))
			return -1;
		p->cur_fl = p->cur_file = file_of(p, name, ix);
		p->seen_fl = 1;
		return 0;
	}
	if (IS("fi") || IS("fe")) {
		if (parse_name(p, &p->fl, val, &name, &ix))
			return -1;
		p->cur_file = file_of(p, name, ix);
		return 0;
	}
	if (IS("ob")) {
		if (parse_name(p, &p->ob, val, &name, &ix))
			return -1;
		p->cur_ob = object_of(p, name, ix);
		return 0;
	}
	if (IS("cob")) {
		if (parse_name(p, &p->ob, val, &name, &ix))
			return -1;
		p->cob = object_of(p, name, ix);
		if (p->cob == PC_NONE)
			p->cob = GIVEN_UNKNOWN;
		return 0;
	}
	if (IS("cfi") || IS("cfl")) {
		if (parse_name(p, &p->fl, val, &name, &ix))
			return -1;
		p->cfi = file_of(p, name, ix);
		if (p->cfi == PC_NONE)
			p->cfi = GIVEN_UNKNOWN;
		return 0;
	}
	if (IS("cfn")) {
		if (parse_name(p, &p->fn, val, &p->cfn, &p->cfn_ix))
			return -1;
		return 0;
	}
	if (IS("jfi")) {
		return parse_name(p, &p->fl, val, &name, &ix);
	}
	if (IS("jfn")) {
		return parse_name(p, &p->fn, val, &name, &ix);
	}
	if (IS("calls")) {
		if (!p->cfn)
			return cg_fail(p, "'calls=' without a preceding 'cfn='");
		if (p->cur_fn == UINT32_MAX)
			return cg_fail(p, "'calls=' before any 'fn='");
		int of;
		const char *e = cg_parse_u64(cg_skip_space(val), &p->call_count, &of);
		if (!e)
			return cg_fail(p, of ? "call count past 64 bits" :
				    "bad call count in 'calls=%.40s'", val);
		/* the target position (the callee's entry) is relative to
		 * the base but does not move it; it may be absent */
		p->call_addr = 0;
		p->call_line = 0;
		e = cg_skip_space(e);
		if (*e) {
			uint64_t pos[MAX_POS + 1] = { 0 }, line;
			if (!parse_positions_of(p, e, pos) ||
			    line_addr(p, pos, &line, &p->call_addr))
				return -1;
			p->call_line = (uint32_t)line;
		}
		p->expect = 'c';
		return 0;
	}
	if (IS("jump") || IS("jcnd")) {
		p->expect = 'j';
		return 0;
	}
#undef IS
	pc_warn(p->db->diag, "%s:%llu: unknown line '%.*s=' ignored",
		p->path, (unsigned long long)p->in.lineno, (int)klen, key);
	return 0;
}

/* ---- the usual lines in place (ahead of pc_lines_next) ---- */

/* A hexadecimal of 1 to 16 digits at q: its value in *v, its end; NULL
 * if q holds no digit or 17 or more. */
static inline const char *hex(const char *q, uint64_t *v)
{
	uint64_t x = 0;
	const char *e = q;
	for (;; e++) {
		unsigned d = (unsigned)(unsigned char)*e - '0';
		if (d > 9) {
			d = ((unsigned)(unsigned char)*e | 0x20) - 'a';
			if (d > 5)
				break;
			d += 10;
		}
		x = x << 4 | d;
	}
	if (e == q || e - q > 16)
		return NULL;
	*v = x;
	return e;
}

/* The npos positions at q ('+N', '-N', '*', N or 0xN, one blank
 * between them) relative to last, into pos: the end (a blank or '\n'
 * after the last); NULL if they are not of this kind or go past 64
 * bits or below zero (the general path's to say). */
static inline const char *fast_pos(const char *q, const uint64_t *last,
				   int npos, uint64_t *pos)
{
	for (int i = 0;;) {
		uint64_t base = last[i], v;
		unsigned c = (unsigned char)*q;
		if (c == '*') {
			pos[i] = base;
			q++;
		} else if (c == '+') {
			if (!(q = dec(q + 1, &v)) ||
			    __builtin_add_overflow(base, v, &pos[i]))
				return NULL;
		} else if (c == '-') {
			if (!(q = dec(q + 1, &v)) || v > base)
				return NULL;
			pos[i] = base - v;
		} else if (c == '0' && q[1] == 'x') {
			if (!(q = hex(q + 2, &pos[i])))
				return NULL;
		} else if (!(q = dec(q, &pos[i]))) {
			return NULL;
		}
		if (++i == npos)
			return *q == ' ' || *q == '\n' ? q : NULL;
		if (*q++ != ' ')
			return NULL;
	}
}

/* A line's key of 2 to 5 letters as fast_lines packs it: its switch's
 * cases. */
#define K2(a, b) ((uint64_t)(a) << 8 | (uint64_t)(b))
#define K3(a, b, c) (K2(a, b) << 8 | (uint64_t)(c))
#define K4(a, b, c, d) (K3(a, b, c) << 8 | (uint64_t)(d))
#define K5(a, b, c, d, e) (K4(a, b, c, d) << 8 | (uint64_t)(e))

/* The end of the line at q, NULL if a 0 byte comes first (a NUL, or
 * the end of the bytes read). */
static inline const char *line_end(const char *q)
{
	while (*q != '\n')
		if (!*q++)
			return NULL;
	return q;
}

/* "(ID)" defined before, or "(ID) name" (one blank, a name without
 * '\r' or a NUL byte), and the line's end, at q (the line starts at s,
 * the bytes read end at end): ID's entry in t (defined with the name:
 * parse_name's, the same interned name and entry); the end ('\n');
 * NULL if not this kind of name (an unknown id, a line too long, '\r':
 * the general path's, nothing changed). */
static inline const char *fast_name(struct parser *p, struct idtab *t,
				    const char *s, const char *q,
				    const char *end, pc_id *ix)
{
	uint64_t id;
	if (*q != '(' || !(q = dec(q + 1, &id)) || q[0] != ')')
		return NULL;
	if (q[1] == '\n') {
		if ((*ix = cg_idtab_get(t, id)) == PC_NONE)
			return NULL;
		return q + 1;
	}
	const char *b = q + 2, *nl;
	if (q[1] != ' ' || !*b || *b == ' ' || *b == '\t' || *b == '\n' ||
	    *b == '\r' || !(nl = memchr(b, '\n', (size_t)(end - b))) ||
	    (size_t)(nl - s) > p->in.max_line || nl[-1] == '\r' ||
	    memchr(b, 0, (size_t)(nl - b)))
		return NULL;
	name_define(p, t, id, b, (size_t)(nl - b), ix);
	return nl;
}

/* The usual lines, read in place from the line reader's buffer one
 * after another, without pc_lines_next's search for the line's end,
 * the NUL test and the per-field calls: cost lines of positions and
 * counts with one blank between fields and '\n' at the end (no '\r',
 * tab, sign or long number), the lines of jump= and calls= and their
 * position lines, and fn=, fl=, fi=, fe=, ob=, cob=, cfi=, cfl= and
 * cfn= of a name id defined before or on the line ("(ID) name"). Any
 * other line is the general path's (parse_line), which reads it again
 * from its start: nothing is changed before a line is known to be of
 * these kinds. The general path's results. Returns 0, or -1 on an error (a sum past 64 bits). */
static int fast_lines(struct parser *p)
{
	struct pc_lines *r = &p->in;
	const size_t nev = p->nev;
	if (!nev || p->anyneg || p->cur_fn == UINT32_MAX)
		return 0;
	const int npos = p->npos, iline = p->iline, iinstr = p->iinstr;
	const size_t max_line = r->max_line;
	uint64_t last[MAX_POS + 1] = { p->last[0], p->last[1], p->last[2], 0 };
	uint64_t *lc = p->line_costs, *sum = p->selfsum;
	struct cg_graph *g = &p->g;
	const int merge = g->merge;
	uint32_t fn = p->cur_fn;
	pc_id file = p->cur_file, module = p->cur_ob;
	const char *s = r->buf + r->pos, *q;
	uint64_t lineno = r->lineno, ncost = 0, nonzero = 0, bytes = 0;
	int rc = 0;
	/* (zeroed once: a line's positions fill pos[0, npos), those past
	 * stay zero, pos[MAX_POS] too) */
	uint64_t pos[MAX_POS + 1] = { 0 };
	for (;; s = q + 1) {
		unsigned c = (unsigned char)*s;
		if (!((c - '0') <= 9 || c == '+' || c == '-' || c == '*')) {
			/* name lines, calls= and jump= */
			pc_id ix;
			if (c == '\n') { /* (an empty line) */
				q = s;
				lineno++;
				continue;
			}
			/* (the 0 after the bytes read, or a NUL byte, the
			 * general path's: the bytes past it are not read, the
			 * line reader's buffer need not be zeroed there) */
			if (!c || p->expect == 'c')
				goto out; /* (an error: the general path's) */
			/* the key, by its bytes (a 0 ends the comparisons in
			 * the bytes read): K2..K5 of it, 0 for any other, k at
			 * its '=' */
			const char *k;
			uint64_t key = 0;
			unsigned c1 = (unsigned char)s[1], c2;
			if (c1 - 'a' >= 26)
				goto out;
			if ((c2 = (unsigned char)s[2]) == '=') {
				k = s + 2;
				if ((c == 'f' && (c1 == 'n' || c1 == 'l' ||
						  c1 == 'i' || c1 == 'e')) ||
				    (c == 'o' && c1 == 'b'))
					key = K2(c, c1);
			} else if (c2 - 'a' >= 26) {
				goto out;
			} else if (s[3] == '=') {
				k = s + 3;
				if (c == 'c' && ((c1 == 'f' && (c2 == 'n' ||
								c2 == 'i' ||
								c2 == 'l')) ||
						 (c1 == 'o' && c2 == 'b')))
					key = K3(c, c1, c2);
			} else if (c == 'j' &&
				   ((c1 == 'u' && c2 == 'm' && s[3] == 'p') ||
				    (c1 == 'c' && c2 == 'n' && s[3] == 'd')) &&
				   s[4] == '=') {
				k = s + 4;
				key = K4('j', 'u', 'm', 'p');
			} else if (c == 'c' && c1 == 'a' && c2 == 'l' &&
				   s[3] == 'l' && s[4] == 's' && s[5] == '=') {
				k = s + 5;
				key = K5('c', 'a', 'l', 'l', 's');
			} else {
				goto out;
			}
			struct idtab *t;
			switch (key) {
			case K5('c', 'a', 'l', 'l', 's'): {
				uint64_t n;
				if (!p->cfn || !(q = dec(k + 1, &n)) ||
				    (*q != ' ' && *q != '\n'))
					goto out;
				uint64_t addr = 0, line = 0;
				if (*q == ' ' && q[1] != '\n') {
					if (!(q = fast_pos(q + 1, last, npos,
							   pos)) ||
					    pos[iline] > UINT32_MAX)
						goto out;
					line = pos[iline];
					addr = pos[iinstr];
				}
				if (!(q = line_end(q)) ||
				    (size_t)(q - s) > max_line)
					goto out;
				p->call_count = n;
				p->call_addr = addr;
				p->call_line = (uint32_t)line;
				p->expect = 'c';
				lineno++;
				continue;
			}
			case K4('j', 'u', 'm', 'p'): /* (and jcnd=) */
				if (!(q = line_end(k)) ||
				    (size_t)(q - s) > max_line)
					goto out;
				p->expect = 'j';
				lineno++;
				continue;
			case K2('f', 'n'):
			case K3('c', 'f', 'n'):
				t = &p->fn;
				break;
			case K2('o', 'b'):
			case K3('c', 'o', 'b'):
				t = &p->ob;
				break;
			case K2('f', 'l'):
			case K2('f', 'i'):
			case K2('f', 'e'):
			case K3('c', 'f', 'i'):
			case K3('c', 'f', 'l'):
				t = &p->fl;
				break;
			default:
				goto out;
			}
			/* "key=(ID)" or "key=(ID) name" */
			if (!(q = fast_name(p, t, s, k + 1, r->buf + r->end,
					    &ix)) ||
			    (size_t)(q - s) > max_line)
				goto out;
			const char *name = t->e[ix].name;
			switch (key) {
			case K2('f', 'n'): {
				pc_id func = function_of(p, name, ix, p->cur_ob,
							 p->cur_fl);
				p->cur_fn = fn = pc_cg_graph_fn(g, func);
				p->cur_func = func;
				p->cur_file = file = p->cur_fl;
				break;
			}
			case K2('f', 'l'):
				p->cur_fl = p->cur_file = file =
					file_of(p, name, ix);
				p->seen_fl = 1;
				break;
			case K2('f', 'i'):
			case K2('f', 'e'):
				p->cur_file = file = file_of(p, name, ix);
				break;
			case K2('o', 'b'):
				p->cur_ob = module = object_of(p, name, ix);
				break;
			case K3('c', 'o', 'b'):
				p->cob = object_of(p, name, ix);
				if (p->cob == PC_NONE)
					p->cob = GIVEN_UNKNOWN;
				break;
			case K3('c', 'f', 'i'):
			case K3('c', 'f', 'l'):
				p->cfi = file_of(p, name, ix);
				if (p->cfi == PC_NONE)
					p->cfi = GIVEN_UNKNOWN;
				break;
			default: /* (cfn) */
				p->cfn = name;
				p->cfn_ix = ix;
				break;
			}
			p->expect = 0;
			lineno++;
			continue;
		}
		if (!(q = fast_pos(s, last, npos, pos)))
			goto out;
		int expect = p->expect;
		if (expect == 'j') { /* (a jump's position: no costs) */
			if (!(q = line_end(q)) || (size_t)(q - s) > max_line ||
			    pos[iline] > UINT32_MAX)
				goto out;
			lineno++;
			last[0] = pos[0];
			last[1] = pos[1];
			last[2] = pos[2];
			p->expect = 0;
			continue;
		}
		size_t m = 0;
		uint64_t nz = 0, vb = 0;
		if (*q == ' ') {
			do {
				const char *b = ++q;
				if (m == nev || !(q = dec(q, &lc[m])))
					goto out;
				if (lc[m++]) { /* (a leading 0: digits10's) */
					if (*b == '0')
						goto out;
					nz++;
					vb += (uint64_t)(q - b);
				}
			} while (*q == ' ');
		}
		if (*q != '\n' || (size_t)(q - s) > max_line ||
		    pos[iline] > UINT32_MAX)
			goto out;
		for (; m < nev; m++)
			lc[m] = 0;
		/* the line is taken */
		lineno++;
		last[0] = pos[0];
		last[1] = pos[1];
		last[2] = pos[2];
		uint32_t line = (uint32_t)pos[iline];
		if (expect) { /* (the cost line of calls=) */
			p->expect = 0;
			r->lineno = lineno;
			if ((rc = cost_apply(p, line, pos[iinstr], 'c', 0, 0, 0)))
				goto out;
			continue;
		}
		size_t nr = g->nrecs;
		const struct cg_rec *lr = nr ? &g->recs[nr - 1] : NULL;
		uint64_t *cost;
		if (merge && lr && lr->fn == fn && lr->file == file &&
		    lr->line == line) {
			cost = g->rcost + (nr - 1) * nev;
			for (m = 0; m < nev; m++)
				cost[m] += lc[m];
		} else {
			struct cg_rec key = { .fn = fn, .file = file,
					      .line = line, .module = module,
					      .addr = pos[iinstr] };
			cost = pc_cg_graph_rec(g, &key);
			for (m = 0; m < nev; m++)
				cost[m] = lc[m];
		}
		for (m = 0; m < nev; m++)
			if (__builtin_add_overflow(sum[m], lc[m], &sum[m])) {
				r->lineno = lineno;
				rc = cg_fail(p, "sum of costs past 64 bits");
				goto out;
			}
		if (line != p->bytes_line) {
			p->bytes_line = line;
			p->line_bytes = 1 + (g->has_instr ? 4 : 0) +
					(uint64_t)digits10(line);
		}
		ncost++;
		nonzero += nz;
		bytes += p->line_bytes + nz + vb;
	}
out:
	/* (the counts' bytes are whole numbers far below 2^53: one sum
	 * is the general path's sum of each) */
	g->ncost += ncost;
	g->nonzero += (double)nonzero;
	g->cost_bytes += (double)bytes;
	p->last[0] = last[0];
	p->last[1] = last[1];
	p->last[2] = last[2];
	r->lineno = lineno;
	r->pos = (size_t)(s - r->buf);
	if (ncost)
		p->part_has_data = 1;
	return rc;
}

static int nul_byte(struct parser *p)
{
	return cg_fail(p, "NUL byte: binary data, not a Callgrind profile");
}

/* A line s[0..len) (s[len] is 0). */
static int parse_line(struct parser *p, char *s, size_t len)
{
	char c = s[0];
	if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') {
		/* a line read to its end has no NUL byte: the test by memchr
		 * is for the others (a fifth of the parse's line handling) */
		const char *end;
		int rc = cost_line(p, s, &end);
		if (end == s + len || !memchr(s, 0, len))
			return rc;
		return nul_byte(p);
	}
	if (memchr(s, 0, len))
		return nul_byte(p);
	if (c == 0 || c == '#')
		return 0;
	/* "key=value" or "key: value" */
	const char *k = s;
	while ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
	       (*k >= '0' && *k <= '9') || *k == '_')
		k++;
	if (*k == '=' && k > s)
		return spec_line(p, s, (size_t)(k - s), k + 1);
	if (*k == ':' && k > s)
		return cg_header_line(p, s, (size_t)(k - s), k + 1);
	if (c == ' ' || c == '\t') {
		const char *t = cg_skip_space(s);
		if (!*t)
			return 0;
	}
	return cg_fail(p, "unrecognized line '%.40s'", s);
}

int pc_cg_parse(struct pc_db *db, const char *path,
		const struct pc_import_opts *opts, struct pc_err *err,
		void (*held)(void *ctx, struct cg_part *part), void *ctx,
		const char *suffix, struct cg_parsed *out)
{
	struct parser p;
	memset(&p, 0, sizeof p);
	p.db = db;
	p.path = path;
	p.opts = opts;
	p.err = err;
	p.held = held;
	p.hctx = ctx;
	p.suffix = suffix;
	p.cur_ob = p.cur_fl = p.cur_file = PC_NONE;
	p.thread = 1;
	cg_reset_part_header(&p);
	int rc = pc_lines_open(&p.in, path, db->diag, err);
	if (opts && opts->max_line)
		p.in.max_line = opts->max_line;
	if (rc == 0) {
		char *line;
		size_t len;
		int r;
		while ((r = fast_lines(&p)) == 0 &&
		       (r = pc_lines_next(&p.in, &line, &len, err)) > 0) {
			if (parse_line(&p, line, len)) {
				rc = -1;
				break;
			}
		}
		if (r < 0)
			rc = -1;
		if (rc == 0 && p.expect == 'c')
			rc = cg_fail(&p, "file ends after 'calls=' without its "
				  "cost line");
		if (rc == 0 && !p.nev && p.in.lineno > 0)
			rc = cg_fail(&p, "no 'events:' line: not a Callgrind "
				  "profile");
		if (rc == 0 && p.in.lineno == 0)
			pc_warn(db->diag, "%s: empty file, nothing read", path);
		if (rc == 0)
			cg_finish_part(&p);
		if (rc == 0 && !out)
			pc_functions_set_entries(db, p.ent_off, p.ent_line,
						 p.nent);
		if (rc == 0 && p.undef_n)
			pc_warn(db->diag, "%s:%llu: %zu use(s) of compressed "
				"name ids never defined (the first: (%llu)): "
				"read as unknown names, the costs kept", path,
				(unsigned long long)p.undef_line, p.undef_n,
				(unsigned long long)p.undef_id);
	}
	pc_lines_close(&p.in);
	cg_idtab_free(&p.ob);
	cg_idtab_free(&p.fl);
	cg_idtab_free(&p.fn);
	pc_cg_graph_reset(&p.g);
	free(p.ev);
	free(p.longnames);
	free(p.summary);
	free(p.totals);
	free(p.selfsum);
	free(p.negev);
	free(p.line_costs);
	if (out) {
		*out = (struct cg_parsed){ p.div, p.ndiv, p.ent_off,
					   p.ent_line, p.nent };
	} else {
		free(p.ent_off);
		free(p.div);
		free(p.ent_line);
	}
	if (rc)
		pc_err_context(err, "reading a Callgrind profile");
	return rc;
}

static int cg_read(struct pc_db *db, const char *path,
		   const struct pc_import_opts *opts, struct pc_err *err)
{
	return pc_cg_parse(db, path, opts, err, NULL, NULL, NULL, NULL);
}

/* A file read apart (a thread's, -j or profconv-mpi): its parts'
 * ids numbered after the profiles before, as one reader numbers them. */
static void cg_renumber(const struct pc_db *db, struct pc_idelem *ids,
			uint32_t nids)
{
	if (nids == 2 && ids[0].kind == PC_ID_RANK &&
	    ids[1].kind == PC_ID_THREAD)
		cg_logical_ids(db, ids);
}

const struct pc_importer pc_import_callgrind = {
	.name = "callgrind",
	.description = "Callgrind/Cachegrind text profile (valgrind), "
		       "plain or .gz",
	.probe = cg_probe,
	.read = cg_read,
	.no_traces = 1,
	.files_apart = 1,
	.renumber = cg_renumber,
	.read_pair = pc_cg_read_pair,
};
