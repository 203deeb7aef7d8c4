/* Folded stacks, as flamegraph.pl, inferno and speedscope read them: one
 * line per distinct stack of function names, "root;caller;callee value",
 * the value the self cost of one metric (--metric, default the first)
 * summed over every profile. Frames are those of the Callgrind writer
 * (stacks.h): a line's cost is that of the contexts of its innermost
 * frame (its lines, loops, instructions), so the self value of each
 * function is its exclusive (function scope) value. Values are
 * integers: a metric whose values are not whole numbers is scaled as
 * for Callgrind, and a note says by how much. Of two runs compared
 * (profconv diff): "stack base new", for differential flame graphs. */
#include "pc.h"
#include "internal.h"
#include "stacks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fx {
	struct pc_sink sink;
	char out[4200];
	struct pc_export_opts o;
	const struct pc_db *db;
	pc_id metric; /* PC_NONE until the metrics are known */
	const char *name; /* its name (of two runs: in both) */
	/* a comparison of two runs (db->diff): the metric's values in
	 * BASE (metric: in NEW); PC_NONE: one run */
	pc_id base;
	struct pc_frames fr;
	double *self; /* per frame context: the metric's self cost */
	double *selfb; /* ... in BASE */
	size_t nself;
	struct pc_outfile of;
	int svg;      /* an SVG flame graph (svg.c), not folded lines */
};

/* The metric written: --metric, else the first (of two runs compared:
 * its NEW values, and its BASE values in base). */
static int pick_metric(struct fx *x, const struct pc_db *db,
		       struct pc_err *err)
{
	if (x->metric != PC_NONE)
		return 0;
	if (!db->nmetrics)
		return pc_err_set(err, "nothing to write: no metrics");
	size_t nm = db->diff ? db->ndiff : db->nmetrics, m = 0;
#define NAME(m) (db->diff ? db->diff[m].name : db->metrics[m].name)
	while (x->o.metric && m < nm && strcmp(NAME(m), x->o.metric))
		m++;
	if (m < nm) {
		x->metric = db->diff ? db->diff[m].fresh : (pc_id)m;
		x->base = db->diff ? db->diff[m].base : PC_NONE;
		x->name = NAME(m);
		return 0;
	}
	char list[1024] = "";
	size_t len = 0;
	for (m = 0; m < nm && len < sizeof list; m++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'",
					m ? ", " : "", NAME(m));
#undef NAME
	return pc_err_set(err, "--metric '%s': the input has no such metric "
			  "(it has %s)", x->o.metric, list);
}

static void add(struct fx *x, const struct pc_db *db,
		const struct pc_value *v, size_t n)
{
	pc_frames_update(&x->fr, db);
	if (x->nself < db->ncontexts) {
		size_t more = db->ncontexts - x->nself;
		x->self = pc_xrealloc(x->self, db->ncontexts, sizeof(double));
		memset(x->self + x->nself, 0, more * sizeof(double));
		if (x->base != PC_NONE) { /* (two runs only) */
			x->selfb = pc_xrealloc(x->selfb, db->ncontexts,
					       sizeof(double));
			memset(x->selfb + x->nself, 0, more * sizeof(double));
		}
		x->nself = db->ncontexts;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].metric == x->metric)
			x->self[x->fr.frame[v[i].ctx]] += v[i].value;
		else if (v[i].metric == x->base)
			x->selfb[x->fr.frame[v[i].ctx]] += v[i].value;
}

static int fo_profile(struct pc_sink *s, const struct pc_db *db, pc_id p,
		      const struct pc_value *v, size_t n,
		      const struct pc_value *sv, size_t sn,
		      const struct pc_trace *t, struct pc_err *err)
{
	struct fx *x = (struct fx *)s;
	(void)p, (void)sv, (void)sn, (void)t;
	if (pick_metric(x, db, err))
		return -1;
	add(x, db, v, n);
	return 0;
}

/* Stacks of names: frames with equal names along equal paths are one
 * line (a function called from two lines of its caller is one frame of
 * a flame graph). */
struct tree {
	struct pc_fnode *n;
	size_t len, cap;
	struct pc_keymap *map;
};

static int node_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_fnode *a = &((const struct tree *)ctx)->n[id], *b = key;
	return a->parent == b->parent && a->name == b->name;
}

static uint32_t node_get(struct tree *t, uint32_t parent, const char *name)
{
	struct pc_fnode k = { parent, name, 0, 0 };
	uint64_t h = pc_hash64(((uint64_t)parent << 32) ^
			       pc_hash64((uint64_t)(uintptr_t)name));
	pc_id i = pc_keymap_intern(t->map, h, node_eq, t, &k, (pc_id)t->len);
	if (i == t->len) {
		PC_GROW(t->n, t->len, t->cap);
		t->n[t->len++] = k;
	}
	return i;
}

/* --reverse: each stack turned over, its innermost frame at the bottom
 * and its callers above, as flamegraph.pl --reverse draws a callers
 * graph: a frame's self values go to the end of its reversed path (the
 * paths stay distinct, so every node keeps its values). */
static void reverse_stacks(struct tree *t)
{
	struct tree r = { 0 };
	r.map = pc_keymap_new();
	node_get(&r, UINT32_MAX, NULL);
	uint32_t *path = NULL;
	size_t cap = 0;
	for (size_t i = 1; i < t->len; i++) {
		if (t->n[i].v == 0 && t->n[i].b == 0)
			continue;
		size_t d = 0;
		for (uint32_t j = (uint32_t)i; j; j = t->n[j].parent) {
			PC_GROW(path, d, cap);
			path[d++] = j;
		}
		uint32_t at = 0;
		for (size_t k = 0; k < d; k++)
			at = node_get(&r, at, t->n[path[k]].name);
		r.n[at].v += t->n[i].v;
		r.n[at].b += t->n[i].b;
	}
	free(path);
	free(t->n);
	pc_keymap_free(t->map);
	*t = r;
}

/* A name in a folded line: ';' separates frames and the line ends at a
 * newline, so those are written \x3b, \x0a, \x0d, and with them the
 * backslash (\x5c), so that distinct names stay distinct (a;b and a:b),
 * and the other control characters, which no reader shows; bytes that
 * are not UTF-8, and U+FFFE and U+FFFF (which make flamegraph.pl's SVG
 * invalid XML), as \xHH too. */
static int folded_special(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f || c == ';' || c == '\\';
}

/* name as a folded line writes it: NULL where it is written as it is,
 * else its escaped text (allocated). */
static char *frame_text(const char *name)
{
	size_t n = 0, len = strlen(name);
	for (const char *s = name; *s; s++)
		n += folded_special(*s) ? 4 : 1;
	char *buf = n == len ? NULL : pc_xmalloc(n + 1), *w = buf;
	for (const char *s = name; w && *s; s++)
		if (folded_special(*s))
			w += sprintf(w, "\\x%02x", (unsigned char)*s);
		else
			*w++ = *s;
	if (w)
		*w = 0;
	const char *plain = buf ? buf : name;
	char *esc = pc_text_escape(plain);
	if (esc) {
		free(buf);
		return esc;
	}
	return buf;
}

/* s[0, n) at the end of the line being made */
static void put(char **line, size_t *len, size_t *cap, const char *s,
		size_t n)
{
	if (*cap - *len < n) {
		while (*cap - *len < n)
			*cap = *cap ? 2 * *cap : 4096;
		*line = pc_xrealloc(*line, *cap, 1);
	}
	memcpy(*line + *len, s, n);
	*len += n;
}

/* "%.0f" of a whole number v >= 0 into b (its length) */
static size_t whole_text(char *b, size_t cap, double v)
{
	if (v < 1e18) {
		/* (the digits themselves: printf's way is slow) */
		char d[24];
		size_t n = 0;
		uint64_t u = (uint64_t)v;
		do
			d[n++] = (char)('0' + u % 10);
		while (u /= 10);
		for (size_t i = 0; i < n; i++)
			b[i] = d[n - 1 - i];
		return n;
	}
	return (size_t)snprintf(b, cap, "%.0f", v);
}

/* A node merged into its caller (no line of its own). */
static const char MERGED[] = "";

/* Frames narrower than --min-width of the total (default 0.01%, a
 * tenth of a pixel of a flame graph 1,200 wide is 0.008%) merge with
 * what lies below them into the nearest caller that is not: their
 * self values are its, so the total and every wide frame's width stay,
 * and the file stays within a few times its input (one line per leaf,
 * with its whole stack, made 4.9 GB of cc1plus's 87 MB profile). A note
 * says how much. Nodes come after their parents. */
static void merge_narrow(struct fx *x, struct tree *t, double total)
{
	double mw = x->o.min_width < 0 ? 1e-4 : x->o.min_width;
	if (!(mw > 0) || !(total > 0) || t->len < 2)
		return;
	double thr = mw * total, moved = 0;
	double *incl = pc_xcalloc(t->len, sizeof(double));
	uint32_t *to = pc_xmalloc(t->len * sizeof(uint32_t));
	/* (two runs: a frame narrow in both, of their sum) */
	for (size_t i = t->len; i-- > 1;) {
		incl[i] += (t->n[i].v > 0 ? t->n[i].v : 0) +
			   (t->n[i].b > 0 ? t->n[i].b : 0);
		if (t->n[i].parent)
			incl[t->n[i].parent] += incl[i];
	}
	size_t n = 0;
	to[0] = 0;
	for (size_t i = 1; i < t->len; i++) {
		uint32_t p = t->n[i].parent;
		/* a stack's outermost frames stay, whatever their width */
		if (t->n[p].name != MERGED && (p == 0 || incl[i] >= thr)) {
			to[i] = (uint32_t)i;
			continue;
		}
		to[i] = t->n[p].name == MERGED ? to[p] : p;
		t->n[to[i]].v += t->n[i].v;
		t->n[to[i]].b += t->n[i].b;
		moved += (t->n[i].v > 0 ? t->n[i].v : 0) +
			 (t->n[i].b > 0 ? t->n[i].b : 0);
		t->n[i].name = MERGED;
		n++;
	}
	char b[32];
	if (n)
		pc_note(x->db->diag, "%zu frame(s) narrower than %g%% of the "
			"total merged into their callers (%s%% of the cost; "
			"--min-width=0 keeps them)", n, 100 * mw,
			pc_pct(b, sizeof b, 100 * moved / total));
	free(incl);
	free(to);
}

/* The folded lines of tree t, values times scale: their count. Two
 * runs compared: "stack base new", as flamegraph.pl's difffolded.pl
 * writes them for a differential flame graph. */
static size_t put_lines(struct fx *x, const struct tree *t, double scale)
{
	uint32_t *path = NULL;
	size_t cap = 0, nlines = 0;
	int two = x->base != PC_NONE;
	/* each node's name as written, made once (its length; text NULL:
	 * the name itself), and the line made before it is written */
	char **text = pc_xcalloc(t->len, sizeof(char *));
	uint32_t *tlen = pc_xmalloc(t->len * sizeof(uint32_t));
	for (size_t i = 1; i < t->len; i++) {
		if (t->n[i].name == MERGED)
			continue;
		text[i] = frame_text(t->n[i].name);
		size_t n = strlen(text[i] ? text[i] : t->n[i].name);
		tlen[i] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	}
	char *line = NULL, num[64];
	size_t len, capline = 0;
	for (size_t i = 1; i < t->len; i++) {
		if (t->n[i].name == MERGED)
			continue;
		double r = nearbyint(t->n[i].v * scale);
		double rb = two ? nearbyint(t->n[i].b * scale) : 0;
		if (!(r > 0) && !(rb > 0))
			continue;
		nlines++;
		size_t d = 0;
		for (uint32_t j = (uint32_t)i; j; j = t->n[j].parent) {
			PC_GROW(path, d, cap);
			path[d++] = j;
		}
		len = 0;
		while (d--) {
			uint32_t j = path[d];
			const char *name = text[j] ? text[j] : t->n[j].name;
			size_t n = tlen[j] < UINT32_MAX ? tlen[j] : strlen(name);
			put(&line, &len, &capline, name, n);
			put(&line, &len, &capline, d ? ";" : " ", 1);
		}
		if (two) {
			put(&line, &len, &capline, num,
			    whole_text(num, sizeof num, rb > 0 ? rb : 0));
			put(&line, &len, &capline, " ", 1);
		}
		put(&line, &len, &capline, num,
		    whole_text(num, sizeof num, r > 0 ? r : 0));
		put(&line, &len, &capline, "\n", 1);
		fwrite(line, 1, len, x->of.f);
		if (!(i & 0xffff)) /* on a terminal, now and then */
			pc_progress(x->db->diag, "writing folded stacks", i,
				    t->len, UINT64_MAX);
	}
	free(path);
	for (size_t i = 1; i < t->len; i++)
		free(text[i]);
	free(text);
	free(tlen);
	free(line);
	return nlines;
}

static void write_lines(struct fx *x)
{
	const struct pc_db *db = x->db;
	struct pc_db *mdb = (struct pc_db *)db; /* frame names interned */
	size_t nc = x->nself;
	struct tree t = { 0 };
	t.map = pc_keymap_new();
	uint32_t *node = pc_xmalloc((nc + 1) * sizeof(uint32_t));
	size_t cut = 0, nframes = 1;
	/* (the tree's room for a node a frame at once: grown by doubling,
	 * its map hashed again at every size) */
	for (size_t c = 0; c < nc; c++)
		nframes += x->fr.frame[c] == c;
	pc_keymap_reserve(t.map, nframes);
	t.n = pc_xmalloc(nframes * sizeof(*t.n));
	t.cap = nframes;
	node_get(&t, UINT32_MAX, NULL); /* 0: above every stack */
	for (size_t c = 0; c < nc; c++) {
		if (x->fr.frame[c] != c)
			continue;
		/* the root is a frame only where it has a cost itself */
		pc_id up = c ? x->fr.frame[db->contexts[c].parent] : 0;
		uint32_t parent = c && up ? node[up] : 0;
		if (x->fr.depth[c] > PC_MAX_STACK) {
			/* a stack too deep: its frame's cost is its caller's */
			node[c] = parent;
			cut += x->self[c] != 0;
		} else {
			node[c] = node_get(&t, parent,
					   pc_frame_name(db, mdb, (pc_id)c));
		}
		t.n[node[c]].v += x->self[c];
		if (x->selfb)
			t.n[node[c]].b += x->selfb[c];
	}
	if (x->svg && x->o.svg.reverse)
		reverse_stacks(&t);
	if (x->svg && x->o.svg.colors && x->base != PC_NONE)
		pc_note(db->diag, "--colors: a differential flame graph is "
			"coloured by the change of each frame (red: grew, blue: "
			"shrank), not by a palette");
	const struct pc_metric *m = &db->metrics[x->metric];
	/* (two runs: one scale for both, as large as the larger run) */
	double max = 0, total = 0, totalb = 0;
	int whole = 1;
	size_t neg = 0;
	for (size_t i = 1; i < t.len; i++) {
		double v = t.n[i].v, b = t.n[i].b;
		if (v == 0 && b == 0) /* (most nodes: a caller's frame) */
			continue;
		max = fmax(max, fmax(v, b));
		total += v > 0 ? v : 0;
		totalb += b > 0 ? b : 0;
		whole &= pc_is_whole(v) && pc_is_whole(b);
		neg += v < 0 || b < 0;
	}
	int k = pc_metric_scale(m, max, fmax(total, totalb), whole);
	double scale = pow(10, k);
	const char *unit = pc_unit_name(m, k);
	if (k && unit)
		pc_note(db->diag, "metric '%s' written in %s", m->name, unit);
	else if (k)
		pc_note(db->diag, "metric '%s' written in units of 1e%d (its "
			"values are not whole numbers)", m->name, -k);
	if (neg)
		pc_warn(db->diag, "metric '%s': %zu stack(s) with a negative "
			"self value left out (folded stacks count up)",
			m->name, neg);
	merge_narrow(x, &t, total + totalb);
	size_t nlines = total + totalb > 0;
	double gone = 0;
	if (x->svg)
		pc_svg_write(x->of.f, t.n, t.len, MERGED, db->title,
			     db->cut_note, x->name, unit, scale,
			     x->base != PC_NONE, &x->o.svg, &gone);
	else
		nlines = put_lines(x, &t, scale);
	/* a differential flame graph's frames are as wide as their NEW
	 * values: those NEW does not have are not seen */
	char b[32];
	if (gone > 0 && totalb > 0)
		pc_note(db->diag, "%s%% of BASE's cost is in frames NEW does "
			"not have: they have no width in the graph (-t folded "
			"keeps them)", pc_pct(b, sizeof b, 100 * gone / totalb));
	pc_progress_done(db->diag);
	if (cut)
		pc_warn(db->diag, "%zu frame(s) deeper than %u: their costs are "
			"their callers' at that depth", cut,
			(unsigned)PC_MAX_STACK);
	if (!nlines)
		pc_warn(db->diag, "metric '%s' has no positive self value: the "
			"file has no stacks (--metric NAME writes another)",
			m->name);
	free(node);
	free(t.n);
	pc_keymap_free(t.map);
}

/* The sink of folded stacks (svg 0) or of an SVG flame graph (1). */
static struct pc_sink *begin_as(int svg, const char *out,
				const struct pc_export_opts *opts,
				struct pc_err *err)
{
	char name[sizeof((struct fx *)0)->out];
	if (pc_outfile_check(name, sizeof name, out, opts, err))
		return NULL;
	struct fx *x = pc_xcalloc(1, sizeof(*x));
	x->sink.profile = fo_profile;
	strcpy(x->out, name);
	x->o = *opts;
	x->metric = PC_NONE;
	x->base = PC_NONE;
	x->svg = svg;
	return &x->sink;
}

static struct pc_sink *fo_begin(const char *out,
				const struct pc_export_opts *opts,
				struct pc_err *err)
{
	return begin_as(0, out, opts, err);
}

static void fo_free(struct fx *x)
{
	pc_outfile_abort(&x->of);
	pc_frames_free(&x->fr);
	free(x->self);
	free(x->selfb);
	free(x);
}

static void fo_abort(struct pc_sink *s)
{
	fo_free((struct fx *)s);
}

static int fo_end(struct pc_sink *s, const struct pc_db *db,
		  struct pc_err *err)
{
	struct fx *x = (struct fx *)s;
	x->db = db;
	int rc = 0;
	if (!db->nprofiles)
		rc = pc_err_set(err, "nothing to write: no profiles");
	if (!rc)
		rc = pick_metric(x, db, err);
	if (!rc) {
		add(x, db, db->nvalues ? db->values : NULL, db->nvalues);
		rc = pc_outfile_open(&x->of, x->out, err);
	}
	if (!rc)
		write_lines(x);
	if (!rc)
		rc = pc_outfile_commit(&x->of, db->diag, err);
	fo_free(x);
	return rc;
}

static int write_as(int svg, const struct pc_db *db, const char *out,
		    const struct pc_export_opts *opts, struct pc_err *err)
{
	struct pc_sink *s = begin_as(svg, out, opts, err);
	return s ? fo_end(s, db, err) : -1;
}

static int fo_write(const struct pc_db *db, const char *out,
		    const struct pc_export_opts *opts, struct pc_err *err)
{
	return write_as(0, db, out, opts, err);
}

static int fo_claims(const char *out)
{
	return pc_path_ends(out, ".folded");
}

static struct pc_sink *svg_begin(const char *out,
				 const struct pc_export_opts *opts,
				 struct pc_err *err)
{
	return begin_as(1, out, opts, err);
}

static int svg_write(const struct pc_db *db, const char *out,
		     const struct pc_export_opts *opts, struct pc_err *err)
{
	return write_as(1, db, out, opts, err);
}

static int svg_claims(const char *out)
{
	return pc_path_ends(out, ".svg");
}

const struct pc_exporter pc_export_folded = {
	.name = "folded",
	.label = "folded stacks",
	.takes = PC_XO_METRIC | PC_XO_MIN_WIDTH,
	.description = "folded stacks for flamegraph.pl, inferno and "
		       "speedscope: 'main;f;g 120' per stack, one metric's "
		       "self cost (--metric)",
	.claims = fo_claims,
	.names = "*.folded",
	.point_only = 1,
	.no_traces = 1,
	.write = fo_write,
	.begin = fo_begin,
	.end = fo_end,
	.abort = fo_abort,
};

const struct pc_exporter pc_export_svg = {
	.name = "svg",
	.label = "SVG flame graph",
	.takes = PC_XO_METRIC | PC_XO_MIN_WIDTH | PC_XO_SVG,
	.description = "an interactive flame graph in one SVG file (zoom, "
		       "search, details; opens offline in a browser): one "
		       "metric's inclusive cost (--metric)",
	.claims = svg_claims,
	.names = "*.svg",
	.point_only = 1,
	.no_traces = 1,
	.write = svg_write,
	.begin = svg_begin,
	.end = fo_end,
	.abort = fo_abort,
};
