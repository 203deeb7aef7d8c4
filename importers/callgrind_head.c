/* The Callgrind reader's header lines (events:, event:, positions:,
 * summary:, totals:, pid:, thread:, part:, version:, cmd:) and its
 * format's probe; callgrind.c reads the body's lines. */
#include "callgrind_parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The unit an event's name carries, as Xdebug writes them
 * ("Time_(10ns)", "Memory_(bytes)"): a time (s, ms, us or ns, after a
 * power of ten or not) or bytes; "" for any other name. */
static const char *event_unit(struct pc_db *db, const char *name)
{
	size_t n = strlen(name);
	const char *u = strrchr(name, '(');
	if (!u || name[n - 1] != ')')
		return "";
	u++;
	size_t len = (size_t)(name + n - 1 - u);
	const char *v = u;
	if (*v == '1')
		for (v++; *v == '0'; v++)
			;
	static const char *const units[] = { "s", "ms", "us", "ns", "bytes" };
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		const char *w = i < 4 ? v : u; /* (bytes: no power of ten) */
		size_t k = strlen(units[i]);
		if ((size_t)(name + n - 1 - w) == k && !strncmp(w, units[i], k))
			return pc_intern(db, u, len);
	}
	return "";
}

/* A header line that begins a new part once the current one has data. */
static void maybe_new_part(struct parser *p)
{
	if (p->part_has_data) {
		cg_finish_part(p);
		/* the event set and positions stay until redefined; name
		 * compression tables stay for the whole file */
	}
}

/* An event's metric name: as written, but for "Calls", the name of the
 * metric of the calls= counts, which the event's costs would join. */
static const char *event_name(struct parser *p, const char *s, size_t n)
{
	const char *name = pc_intern(p->db, s, n);
	if (!strcmp(name, PC_CALLS_METRIC)) {
		if (!p->warned_calls++)
			pc_warn(p->db->diag, "%s:%llu: an event named '%s' is "
				"read as '%s_event': '%s' holds the calls= "
				"counts", p->path,
				(unsigned long long)p->in.lineno,
				PC_CALLS_METRIC, PC_CALLS_METRIC,
				PC_CALLS_METRIC);
		name = pc_intern_cstr(p->db, PC_CALLS_METRIC "_event");
	}
	if (p->suffix) { /* (NEW's of a pair) */
		size_t k = strlen(name);
		char *b = pc_xmalloc(k + strlen(p->suffix) + 1);
		memcpy(b, name, k);
		strcpy(b + k, p->suffix);
		name = pc_intern_cstr(p->db, b);
		free(b);
	}
	return name;
}

static int set_events(struct parser *p, const char *s)
{
	maybe_new_part(p);
	free(p->ev);
	p->ev = NULL;
	p->nev = 0;
	size_t cap = 0;
	for (;;) {
		s = cg_skip_space(s);
		if (!*s)
			break;
		const char *e = cg_word_end(s);
		if (p->nev >= MAX_EVENTS)
			return cg_fail(p, "more than %d events", MAX_EVENTS);
		const char *name = event_name(p, s, (size_t)(e - s));
		const char *desc = "";
		for (size_t i = 0; i + 1 < p->nlong; i += 2)
			if (strcmp(p->longnames[i], name) == 0)
				desc = p->longnames[i + 1];
		for (size_t i = 0; i < p->nev; i++)
			if (p->db->metrics[p->ev[i]].name == name)
				return cg_fail(p, "event '%s' listed twice in "
					    "'events:'", name);
		PC_GROW(p->ev, p->nev, cap);
		/* whole numbers, unless 'event:' scales them */
		p->ev[p->nev++] = pc_metric_get_whole(p->db, name, desc,
						      event_unit(p->db, name));
		s = e;
	}
	if (p->nev == 0)
		return cg_fail(p, "'events:' lists no events");
	p->summary = pc_xrealloc(p->summary, p->nev, sizeof(uint64_t));
	p->totals = pc_xrealloc(p->totals, p->nev, sizeof(uint64_t));
	p->selfsum = pc_xrealloc(p->selfsum, p->nev, sizeof(uint64_t));
	free(p->negev);
	p->negev = pc_xcalloc(p->nev, 1);
	p->anyneg = 0;
	p->line_costs = pc_xrealloc(p->line_costs, p->nev, sizeof(uint64_t));
	p->have_summary = p->have_totals = 0;
	cg_start_graph(p);
	return 0;
}

/* A long name that ends in " (xN)", N a power of ten, is an event that
 * profconv's writer scaled to whole numbers (a metric of seconds, say),
 * and one that ends in " (x1e-K)" an event it scaled down to fit 64
 * bits: returns N (10^-K) and drops the mark from the name, else 1. */
static double unscale(struct pc_db *db, const char **longname)
{
	const char *l = *longname;
	size_t n = strlen(l);
	if (n < 6 || l[n - 1] != ')')
		return 1;
	size_t j = n - 1, kd = 0;
	while (j > 0 && l[j - 1] >= '0' && l[j - 1] <= '9') {
		j--;
		kd++;
	}
	if (kd && kd <= 2 && j >= 6 && !strncmp(l + j - 6, " (x1e-", 6)) {
		*longname = pc_intern(db, l, j - 6);
		return pow(10, -strtod(l + j, NULL));
	}
	size_t i = n - 1, digits = 0;
	while (i > 0 && l[i - 1] == '0') {
		i--;
		digits++;
	}
	if (!digits || digits > 15 || i < 4 || l[i - 1] != '1' ||
	    strncmp(l + i - 4, " (x1", 4))
		return 1;
	*longname = pc_intern(db, l, i - 4);
	return pow(10, (double)digits);
}

/* "event: NAME [= FORMULA] [: LONG NAME]" */
static int parse_event(struct parser *p, const char *s)
{
	s = cg_skip_space(s);
	const char *e = s;
	while (*e && *e != ' ' && *e != '\t' && *e != ':' && *e != '=')
		e++;
	if (e == s)
		return cg_fail(p, "'event:' without a name");
	const char *name = event_name(p, s, (size_t)(e - s));
	const char *colon = strchr(e, ':');
	const char *eq = strchr(e, '=');
	if (eq && (!colon || eq < colon))
		return 0; /* derived event: no data of its own */
	if (!colon)
		return 0;
	const char *l = cg_skip_space(colon + 1);
	size_t n = strlen(l);
	while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
		n--;
	const char *longname = pc_intern(p->db, l, n);
	double d = unscale(p->db, &longname);
	if (d != 1) {
		pc_id m = pc_metric_get(p->db, name, longname, "");
		if (m >= p->ndiv) {
			size_t k = p->ndiv;
			p->ndiv = (size_t)m + 16;
			p->div = pc_xrealloc(p->div, p->ndiv, sizeof(double));
			while (k < p->ndiv)
				p->div[k++] = 1;
		}
		p->div[m] = d;
	}
	PC_GROW(p->longnames, p->nlong + 1, p->caplong);
	p->longnames[p->nlong++] = (char *)name;
	p->longnames[p->nlong++] = (char *)longname;
	/* after 'events:': set it on the metric now */
	for (size_t i = 0; i < p->nev; i++)
		if (p->db->metrics[p->ev[i]].name == name)
			pc_metric_get_whole(p->db, name, longname, "");
	return 0;
}

static int parse_positions(struct parser *p, const char *s)
{
	p->npos = 0;
	for (;;) {
		s = cg_skip_space(s);
		if (!*s)
			break;
		const char *e = cg_word_end(s);
		size_t n = (size_t)(e - s);
		int kind;
		if (n == 5 && !memcmp(s, "instr", 5))
			kind = POS_INSTR;
		else if (n == 4 && !memcmp(s, "line", 4))
			kind = POS_LINE;
		else if (n == 2 && !memcmp(s, "bb", 2))
			kind = POS_BB;
		else
			return cg_fail(p, "unknown position '%.*s' in "
				    "'positions:'", (int)n, s);
		for (int i = 0; i < p->npos; i++)
			if (p->pos[i] == kind)
				return cg_fail(p, "position '%.*s' listed twice",
					    (int)n, s);
		p->pos[p->npos++] = kind;
		s = e;
	}
	if (!p->npos)
		return cg_fail(p, "'positions:' lists nothing");
	p->iline = p->iinstr = MAX_POS;
	for (int i = 0; i < p->npos; i++) {
		if (p->pos[i] == POS_LINE)
			p->iline = i;
		else if (p->pos[i] == POS_INSTR)
			p->iinstr = i;
	}
	memset(p->last, 0, sizeof p->last);
	return 0;
}

int cg_header_line(struct parser *p, const char *key, size_t klen,
		       const char *val)
{
#define IS(k) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0)
	if (p->expect == 'c')
		return cg_fail(p, "'%.*s:' where the cost line of 'calls=' was "
			    "expected", (int)klen, key);
	p->expect = 0;
	if (IS("events"))
		return set_events(p, val);
	if (IS("event"))
		return parse_event(p, val);
	if (IS("positions")) {
		/* before or after 'events:', as KCachegrind accepts; a new
		 * part keeps its events unless it declares others */
		maybe_new_part(p);
		return parse_positions(p, val);
	}
	if (IS("summary") || IS("totals")) {
		if (!p->nev)
			return cg_fail(p, "'%.*s:' before 'events:'", (int)klen,
				    key);
		uint64_t *dst = IS("summary") ? p->summary : p->totals;
		if (cg_parse_counts(p, val, dst, p->nev, IS("summary") ?
				 "'summary:'" : "'totals:'", NULL))
			return -1;
		if (IS("summary"))
			p->have_summary = 1;
		else
			p->have_totals = 1;
		return 0;
	}
	if (IS("pid") || IS("thread") || IS("part")) {
		uint64_t v;
		int of;
		const char *e = cg_parse_u64(cg_skip_space(val), &v, &of);
		if (!e || *cg_skip_space(e))
			return cg_fail(p, "bad number in '%.*s:'", (int)klen, key);
		maybe_new_part(p);
		if (IS("pid")) {
			p->pid = v;
		} else if (IS("thread")) {
			p->thread = v;
		} else {
			p->part = v;
		}
		return 0;
	}
	if (IS("version")) {
		uint64_t v;
		int of;
		if (!cg_parse_u64(cg_skip_space(val), &v, &of) || v != 1)
			return cg_fail(p, "unsupported format version '%.20s'",
				    cg_skip_space(val));
		return 0;
	}
	if (IS("cmd")) {
		if (!p->db->title)
			p->db->title = pc_intern_cstr(p->db, cg_skip_space(val));
		return 0;
	}
	/* creator, desc and unknown header keys carry nothing we keep */
	return 0;
#undef IS
}

/* Does a line of the probe buffer start with s? */
static int has_line(const char *b, const char *s)
{
	size_t n = strlen(s);
	if (!strncmp(b, s, n))
		return 1;
	for (const char *p = b; (p = strchr(p, '\n')); p++)
		if (!strncmp(p + 1, s, n))
			return 1;
	return 0;
}

int cg_probe(const struct pc_probe *pr)
{
	if (pr->is_dir)
		return 0;
	const char *b = (const char *)pr->buf;
	if (!strncmp(b, "# callgrind format", 18))
		return 100;
	int score = 0;
	if (!strncmp(b, "version: 1\n", 11) ||
	    !strncmp(b, "version: 1\r\n", 12))
		score = 60;
	if (has_line(b, "creator: callgrind") ||
	    has_line(b, "creator: cachegrind"))
		score = 90;
	else if (has_line(b, "events: ") &&
		 (has_line(b, "fn=") || has_line(b, "fl=")))
		score = score > 70 ? score : 70;
	if (!strncmp(b, "desc: ", 6) && has_line(b, "events: "))
		score = score > 80 ? score : 80;
	/* gperftools' pprof --callgrind of a run without samples: the
	 * events line alone */
	if (!strncmp(b, "events: ", 8))
		score = score > 60 ? score : 60;
	if (!score && (pc_basename_starts(pr->path, "callgrind.out") ||
		       pc_basename_starts(pr->path, "cachegrind.out")))
		score = 25;
	return score;
}
