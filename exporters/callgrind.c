/* Callgrind text for KCachegrind and callgrind_annotate (FORMAT-NOTES
 * section 5, "Writing"). The calling-context tree is folded back into a
 * call graph: a function's self cost is the point cost of the contexts in
 * its frame (lines, loops, instructions up to the next call), kept per
 * position; each (caller, call site, callee) edge sums the inclusive cost
 * of the callee's contexts and counts them as calls. Costs are written as
 * integers: a metric whose values are not whole numbers is scaled, and
 * the scale is named in the event's long name. */
#include "pc.h"
#include "internal.h"
#include "stacks.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A function as callgrind sees it: object, file, name. */
struct cgfn {
	const char *name;
	pc_id module, file;
	uint32_t line;
	uint64_t addr;
};

/* A self-cost position or a call site of one function. */
struct entry {
	uint32_t fn;
	pc_id file;
	uint32_t line;
	uint32_t callee; /* UINT32_MAX for self cost */
	uint64_t addr;
	uint64_t count;  /* contexts of a call edge */
	double calls;    /* its calls (the calls metric), if there is one */
	size_t cost; /* offset into the cost pool (nm doubles) */
};

struct ex {
	/* streaming (one aggregated file): a writer is its sink */
	struct pc_sink sink;
	int begun;   /* events and tables made (at the first profile) */
	char out[4200];
	struct pc_export_opts o;
	const struct pc_db *db;
	const struct pc_export_opts *opts;
	size_t nm;      /* events: the metrics but the calls metric */
	pc_id *mid;     /* model metric of each event */
	int *col;       /* per model metric: its event, -1 for the calls, -2
			 * none (not written) */
	pc_id calls;    /* the calls metric (calls= counts) or PC_NONE */
	int has_instr;
	/* per context: its frame and position, and the callgrind
	 * function of its frame */
	struct pc_frames fr;
	uint32_t *fn_of;
	/* callgrind functions */
	struct cgfn *fns;
	size_t nfns, capfns;
	struct pc_keymap *fnmap;
	/* entries of the profile(s) being written */
	struct entry *e;
	size_t ne, cape;
	/* per callgrind function, its entries: small tables that stay in
	 * the cache while its contexts are read (one table of all entries
	 * missed it at every lookup) */
	struct pc_keymap **emaps;
	size_t nemaps;
	/* the values being collected: inclusive costs and calls per
	 * context, up to nincl contexts */
	double *incl, *callsum;
	size_t nincl;
	/* per context, its self-cost entry once found (UINT32_MAX before):
	 * every profile's values of a context go to the same one */
	uint32_t *self_of;
	double *pool;
	size_t npool, cappool;
	/* output scale per metric and event names */
	double *scale;
	uint8_t *neg; /* per event: some cost written is negative */
	char **event;
};

static int fn_eq(const void *ctx, pc_id id, const void *key)
{
	const struct ex *x = ctx;
	const struct cgfn *a = &x->fns[id], *b = key;
	return a->name == b->name && a->module == b->module && a->file == b->file;
}

static uint32_t fn_get(struct ex *x, const struct cgfn *f)
{
	uint64_t h = pc_hash64((uint64_t)(uintptr_t)f->name ^
			       pc_hash64(((uint64_t)f->module << 32) | f->file));
	pc_id i = pc_keymap_find(x->fnmap, h, fn_eq, x, f);
	if (i != PC_NONE)
		return i;
	PC_GROW(x->fns, x->nfns, x->capfns);
	x->fns[x->nfns] = *f;
	pc_keymap_insert(x->fnmap, h, (pc_id)x->nfns);
	return (uint32_t)x->nfns++;
}

/* Frames, positions and callgrind functions of every context. Parents
 * have smaller ids than their children, so one pass in id order works. */
static void prepare(struct ex *x, struct pc_db *mdb)
{
	const struct pc_db *db = x->db;
	size_t n = db->ncontexts, from = x->fr.n;
	if (from == n)
		return;
	pc_frames_update(&x->fr, db);
	x->fn_of = pc_xrealloc(x->fn_of, n, sizeof(uint32_t));
	if (!x->fnmap)
		x->fnmap = pc_keymap_new();
	for (size_t c = from; c < n; c++) {
		if (db->contexts[c].kind == PC_CTX_INSTRUCTION)
			x->has_instr = 1;
		if (x->fr.frame[c] != c) {
			x->fn_of[c] = x->fn_of[x->fr.frame[c]];
			continue;
		}
		struct cgfn g = {
			.name = pc_frame_name(db, mdb, (pc_id)c),
			.module = pc_frame_module(db, (pc_id)c),
			.file = x->fr.file[c],
			.line = x->fr.line[c],
			.addr = x->fr.addr[c],
		};
		/* --separate-callers style: name'caller1'caller2 */
		if (x->opts->callers && c) {
			char buf[4096];
			size_t len = (size_t)snprintf(buf, sizeof buf, "%s",
						      g.name);
			pc_id up = db->contexts[c].parent;
			for (unsigned d = 0; d < x->opts->callers && up; d++) {
				pc_id fr = x->fr.frame[up];
				if (len < sizeof buf)
					len += (size_t)snprintf(
						buf + len, sizeof buf - len,
						"'%s", pc_frame_name(db, mdb, fr));
				up = fr ? db->contexts[fr].parent : 0;
			}
			g.name = pc_intern_cstr(mdb, buf);
		}
		x->fn_of[c] = fn_get(x, &g);
	}
}

static int entry_eq(const void *ctx, pc_id id, const void *key)
{
	const struct ex *x = ctx;
	const struct entry *a = &x->e[id], *b = key;
	return a->fn == b->fn && a->file == b->file && a->line == b->line &&
	       a->addr == b->addr && a->callee == b->callee;
}

static struct entry *entry_get(struct ex *x, const struct entry *k)
{
	uint64_t h = pc_hash64(((uint64_t)k->file << 32) | k->callee);
	h = pc_hash64(h ^ (((uint64_t)k->line << 32) ^ k->addr));
	if (k->fn >= x->nemaps) { /* the functions grow with the tree */
		size_t n = x->nfns > k->fn ? x->nfns : k->fn + 1;
		x->emaps = pc_xrealloc(x->emaps, n, sizeof(*x->emaps));
		memset(x->emaps + x->nemaps, 0,
		       (n - x->nemaps) * sizeof(*x->emaps));
		x->nemaps = n;
	}
	struct pc_keymap **m = &x->emaps[k->fn];
	if (!*m)
		*m = pc_keymap_new();
	pc_id i = pc_keymap_intern(*m, h, entry_eq, x, k, (pc_id)x->ne);
	if (i != x->ne)
		return &x->e[i];
	PC_GROW(x->e, x->ne, x->cape);
	if (x->npool + x->nm > x->cappool) {
		x->cappool = (x->npool + x->nm) * 2;
		x->pool = pc_xrealloc(x->pool, x->cappool, sizeof(double));
	}
	struct entry *e = &x->e[x->ne];
	*e = *k;
	e->count = 0;
	e->calls = 0;
	e->cost = x->npool;
	memset(x->pool + x->npool, 0, x->nm * sizeof(double));
	x->npool += x->nm;
	x->ne++;
	return e;
}

static void free_emaps(struct ex *x)
{
	for (size_t f = 0; f < x->nemaps; f++)
		pc_keymap_free(x->emaps[f]);
	free(x->emaps);
	x->emaps = NULL;
	x->nemaps = 0;
}

/* Self costs and call edges, collected in three steps so that the
 * values can come profile by profile: begin, the values (in the order
 * of the model: profile, context, metric), end. */
static void collect_begin(struct ex *x)
{
	size_t nc = x->db->ncontexts, nm = x->nm;
	x->ne = x->npool = 0;
	free_emaps(x);
	x->emaps = pc_xcalloc(x->nfns ? x->nfns : 1, sizeof(*x->emaps));
	x->nemaps = x->nfns;
	/* at most a self position and a call per context: reserved (only
	 * what is used is touched), so that the arrays are not copied as
	 * they grow */
	if (x->cape < 2 * nc) {
		x->cape = 2 * nc;
		x->e = pc_xrealloc(x->e, x->cape, sizeof(*x->e));
	}
	if (x->cappool < 2 * nc * nm) {
		x->cappool = 2 * nc * nm;
		x->pool = pc_xrealloc(x->pool, x->cappool, sizeof(double));
	}
	free(x->incl);
	free(x->callsum);
	free(x->self_of);
	x->nincl = nc;
	x->incl = pc_xcalloc(nc * nm + 1, sizeof(double));
	x->self_of = pc_xmalloc((nc + 1) * sizeof(uint32_t));
	memset(x->self_of, 0xff, (nc + 1) * sizeof(uint32_t));
	x->callsum = x->calls != PC_NONE ? pc_xcalloc(nc, sizeof(double)) : NULL;
}

/* The per-context sums cover the contexts the model has now. */
static void collect_grow(struct ex *x)
{
	size_t nc = x->db->ncontexts, nm = x->nm, old = x->nincl;
	if (nc <= old)
		return;
	x->incl = pc_xrealloc(x->incl, nc * nm + 1, sizeof(double));
	memset(x->incl + old * nm, 0, ((nc - old) * nm + 1) * sizeof(double));
	if (x->callsum) {
		x->callsum = pc_xrealloc(x->callsum, nc, sizeof(double));
		memset(x->callsum + old, 0, (nc - old) * sizeof(double));
	}
	x->self_of = pc_xrealloc(x->self_of, nc + 1, sizeof(uint32_t));
	memset(x->self_of + old, 0xff, (nc + 1 - old) * sizeof(uint32_t));
	x->nincl = nc;
}

static void collect_values(struct ex *x, const struct pc_value *v, size_t n)
{
	size_t nm = x->nm;
	for (size_t i = 0; i < n; i++) {
		pc_id c = v[i].ctx;
		int col = x->col[v[i].metric];
		if (col == -2) /* (not written) */
			continue;
		if (col < 0) {
			x->callsum[c] += v[i].value;
			continue;
		}
		x->incl[(size_t)c * nm + col] += v[i].value;
		if (x->self_of[c] == UINT32_MAX) {
			struct entry k = {
				.fn = x->fn_of[c], .file = x->fr.file[c],
				.line = x->fr.line[c], .addr = x->fr.addr[c],
				.callee = UINT32_MAX,
			};
			x->self_of[c] = (uint32_t)(entry_get(x, &k) - x->e);
		}
		x->pool[x->e[x->self_of[c]].cost + col] += v[i].value;
	}
}

static void collect_end(struct ex *x)
{
	const struct pc_db *db = x->db;
	size_t nc = db->ncontexts, nm = x->nm;
	double *incl = x->incl, *calls = x->callsum;
	for (size_t c = nc; c-- > 1;)
		for (size_t m = 0; m < nm; m++)
			incl[(size_t)db->contexts[c].parent * nm + m] +=
				incl[c * nm + m];
	/* calls: a function context below a position of another frame */
	for (size_t c = 1; c < nc; c++) {
		const struct pc_context *k = &db->contexts[c];
		if (!pc_starts_frame(db, c) || k->kind == PC_CTX_ENTRY ||
		    k->parent == 0 ||
		    db->contexts[k->parent].kind == PC_CTX_ENTRY)
			continue;
		/* a call with costs, or with calls alone (a share of a
		 * callee's cost that rounds to nothing still calls it) */
		int any = calls && calls[c] != 0;
		for (size_t m = 0; m < nm && !any; m++)
			any = incl[c * nm + m] != 0;
		if (!any)
			continue;
		pc_id p = k->parent;
		struct entry key = {
			.fn = x->fn_of[p], .file = x->fr.file[p],
			.line = x->fr.line[p], .addr = x->fr.addr[p],
			.callee = x->fn_of[c],
		};
		struct entry *e = entry_get(x, &key);
		e->count++;
		if (calls)
			e->calls += calls[c];
		for (size_t m = 0; m < nm; m++)
			x->pool[e->cost + m] += incl[c * nm + m];
	}
	free(x->incl);
	free(x->callsum);
	free(x->self_of);
	x->incl = x->callsum = NULL;
	x->self_of = NULL;
	x->nincl = 0;
}

/* Self costs and call edges of the values v[0..n) (one profile, or all
 * of them). */
static void collect(struct ex *x, const struct pc_value *v, size_t n)
{
	collect_begin(x);
	collect_values(x, v, n);
	collect_end(x);
}

/* Whole numbers are written as they are; other metrics are scaled
 * (pc_int_scale). A metric whose total would not fit 64 bits is scaled
 * down by powers of ten, with a warning (the long name says so: a
 * reader multiplies back). */
static void choose_scales(struct ex *x)
{
	x->scale = pc_xmalloc((x->nm + 1) * sizeof(double));
	for (size_t m = 0; m < x->nm; m++) {
		int whole = 1;
		double max = 0, total = 0;
		for (size_t i = 0; i < x->ne; i++) {
			if (x->e[i].callee != UINT32_MAX)
				continue;
			double v = x->pool[x->e[i].cost + m];
			total += v > 0 ? v : 0;
			max = fabs(v) > max ? fabs(v) : max;
			whole &= pc_is_whole(v);
		}
		int k = pc_int_scale(max, total, whole);
		if (k < 0)
			pc_warn(x->db->diag, "metric '%s': its total %.17g does "
				"not fit Callgrind's 64-bit costs; written in "
				"units of 1e%d (the event's long name ends in "
				"\"(x1e%d)\")", x->db->metrics[x->mid[m]].name,
				total, -k, k);
		x->scale[m] = pow(10, k);
	}
	/* negative costs (Xdebug's memory that went down; a comparison's
	 * derived values): written signed, as Xdebug writes them */
	x->neg = pc_xcalloc(x->nm + 1, 1);
	for (size_t m = 0; m < x->nm; m++) {
		for (size_t i = 0; i < x->ne && !x->neg[m]; i++)
			x->neg[m] = nearbyint(x->pool[x->e[i].cost + m] *
					      x->scale[m]) < 0;
		if (x->neg[m])
			pc_warn(x->db->diag, "metric '%s' has negative costs: "
				"written signed, as Xdebug writes them; "
				"callgrind_annotate reads them, KCachegrind "
				"reads costs as unsigned and skips them",
				x->db->metrics[x->mid[m]].name);
	}
}

/* A cost in the event's units: a negative one as two's complement
 * (written signed: put_cost), NaN as 0. */
static uint64_t to_count(double v, double scale)
{
	double r = nearbyint(v * scale);
	if (r < 0)
		return r <= -9.2e18 ? (uint64_t)INT64_MIN : 0 - (uint64_t)-r;
	if (!(r > 0))
		return 0;
	return r >= 1.8e19 ? UINT64_MAX : (uint64_t)r;
}

/* The events: every metric but the calls metric (the call counts that
 * a Callgrind input had, written back in calls= lines), if another
 * metric is there. */
static void events(struct ex *x, const struct pc_db *db)
{
	x->calls = pc_metric_find(db, PC_CALLS_METRIC);
	if (db->nmetrics < 2)
		x->calls = PC_NONE;
	x->mid = pc_xmalloc((db->nmetrics + 1) * sizeof(pc_id));
	x->col = pc_xmalloc((db->nmetrics + 1) * sizeof(int));
	x->nm = 0;
	/* two runs compared (db->diff): each metric's BASE and NEW values
	 * as two events, the calls those of NEW. NEW - BASE is not an
	 * event: KCachegrind computes a derived event (Diff = New - Base)
	 * but keeps costs unsigned, so a shrink would show as some 1.8e19
	 * (and Callgrind files have no negative costs). */
	uint8_t *skip = pc_xcalloc(db->nmetrics + 1, 1);
	for (size_t i = 0; i < db->ndiff; i++) {
		const struct pc_diffm *d = &db->diff[i];
		skip[d->delta] = 1;
		if (!strcmp(d->name, PC_CALLS_METRIC) && db->ndiff > 1) {
			x->calls = d->fresh;
			skip[d->base] = 1;
		}
	}
	for (size_t m = 0; m < db->nmetrics; m++) {
		int ev = m != x->calls && !skip[m];
		x->col[m] = ev ? (int)x->nm : m == x->calls ? -1 : -2;
		if (ev)
			x->mid[x->nm++] = (pc_id)m;
	}
	free(skip);
}

/* calls= of an edge: its calls where the input had counts, else the
 * number of contexts it came from (sampled data has no counts);
 * callgrind_annotate needs at least 1. */
static uint64_t call_count(const struct ex *x, const struct entry *e)
{
	double n = x->calls != PC_NONE ? e->calls : (double)e->count;
	return n >= 1.5 ? to_count(n, 1) : 1;
}

static void event_names(struct ex *x)
{
	x->event = pc_xcalloc(x->nm + 1, sizeof(char *));
	for (size_t m = 0; m < x->nm; m++) {
		const char *s = x->db->metrics[x->mid[m]].name;
		size_t n = strlen(s);
		char *e = pc_xmalloc(n + 32);
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			char c = s[i];
			int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '_';
			if (ok)
				e[k++] = c;
			else if (k && e[k - 1] != '_')
				e[k++] = '_';
		}
		while (k && e[k - 1] == '_')
			k--;
		if (!k)
			e[k++] = 'E';
		e[k] = 0;
		/* unique, and never the calls metric's name: read back, an
		 * event "Calls" would be the calls= counts' metric */
		for (unsigned sfx = m + 1;; sfx++) {
			int taken = !strcmp(e, PC_CALLS_METRIC);
			for (size_t j = 0; j < m && !taken; j++)
				taken = !strcmp(x->event[j], e);
			if (!taken)
				break;
			snprintf(e + k, 32, "_%u", sfx);
		}
		x->event[m] = e;
	}
}

/* Name compression tables of one output file. */
struct names {
	pc_id *ob, *fl;    /* model id -> compressed id, 0 = not yet */
	uint32_t *fn;
	uint32_t nob, nfl, nfn;
	int compress;
};

/* Text of a header line or a name line: a control character (a
 * newline would start a line of its own, a tab or a space at either end
 * is trimmed by readers) as \xHH. edges: a space at either end too, and
 * "(" before a digit at the start, which a reader takes for an id where
 * the name has none before it (--no-compress). */
static void put_text(FILE *o, const char *s, int edges)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int esc = c < 0x20 || c == 0x7f;
		if (edges && c == ' ' && (i == 0 || i == n - 1))
			esc = 1;
		if (edges == 2 && i == 0 && c == '(' && s[1] >= '0' &&
		    s[1] <= '9')
			esc = 1;
		if (esc)
			fprintf(o, "\\x%02x", c);
		else
			fputc(c, o);
	}
}

static void put_clean(FILE *o, const char *s)
{
	put_text(o, s, 0);
}

static void put_name(FILE *o, const char *key, pc_id *slot, uint32_t *counter,
		     const char *name, int compress)
{
	/* "fn=(1) " with nothing after the id reads as a use of (1), not
	 * a definition: an empty name is written uncompressed, every time */
	int bare = !compress || !*name;
	if (bare) {
		fprintf(o, "%s=", key);
	} else if (*slot) {
		fprintf(o, "%s=(%u)\n", key, *slot);
		return;
	} else {
		*slot = ++*counter;
		fprintf(o, "%s=(%u) ", key, *slot);
	}
	put_text(o, name, bare ? 2 : 1);
	fputc('\n', o);
}

static const char *mod_path(const struct pc_db *db, pc_id m)
{
	return m == PC_NONE ? "???" : db->modules[m].path;
}

static const char *file_path(const struct pc_db *db, pc_id f)
{
	return f == PC_NONE ? "???" : db->files[f].path;
}

/* Tables are indexed by model id + 1 so PC_NONE maps to slot 0. */
static pc_id *ob_slot(struct names *t, pc_id m)
{
	return &t->ob[m == PC_NONE ? 0 : m + 1];
}
static pc_id *fl_slot(struct names *t, pc_id f)
{
	return &t->fl[f == PC_NONE ? 0 : f + 1];
}

static const struct ex *sort_ex;

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = &sort_ex->e[*(const uint32_t *)a];
	const struct entry *y = &sort_ex->e[*(const uint32_t *)b];
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	/* self costs first, then calls, each by position */
	int cx = x->callee != UINT32_MAX, cy = y->callee != UINT32_MAX;
	if (cx != cy)
		return cx - cy;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return 0;
}

/* " " (if sep), then v in base 10 or 16 ("0x..."): the cost lines are
 * most of the output, and printf's parsing of its format was a seventh
 * of the time to write them */
static void put_num(FILE *o, int sep, uint64_t v, unsigned base)
{
	char b[24];
	size_t i = sizeof b;
	do {
		b[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (base == 16) {
		b[--i] = 'x';
		b[--i] = '0';
	}
	if (sep)
		b[--i] = ' ';
	fwrite(b + i, 1, sizeof b - i, o);
}

static void put_pos(FILE *o, const struct ex *x, uint64_t addr, uint32_t line)
{
	if (x->has_instr)
		put_num(o, 0, addr, 16);
	put_num(o, x->has_instr, line, 10);
}

/* Event m's cost v (to_count's): signed where it has negative ones. */
static void put_cost(FILE *o, const struct ex *x, size_t m, uint64_t v)
{
	if (x->neg[m] && (int64_t)v < 0) {
		fputs(" -", o);
		put_num(o, 0, 0 - v, 10);
	} else {
		put_num(o, 1, v, 10);
	}
}

static void put_costs(FILE *o, const struct ex *x, const double *c)
{
	for (size_t m = 0; m < x->nm; m++)
		put_cost(o, x, m, to_count(c[m], x->scale[m]));
	fputc('\n', o);
}

static int write_file(struct ex *x, const char *path, int thread,
		      struct pc_err *err)
{
	const struct pc_db *db = x->db;
	int to_stdout = !strcmp(path, "-");
	FILE *o = to_stdout ? stdout : fopen(path, "w");
	if (!o)
		return pc_err_set(err, "%s: cannot write: %s", path,
				  strerror(errno));
	/* totals first: the header's summary must equal them */
	uint64_t *tot = pc_xcalloc(x->nm + 1, sizeof(uint64_t));
	for (size_t i = 0; i < x->ne; i++)
		if (x->e[i].callee == UINT32_MAX)
			for (size_t m = 0; m < x->nm; m++)
				tot[m] += to_count(x->pool[x->e[i].cost + m],
						   x->scale[m]);
	fputs("# callgrind format\n", o);
	if (db->cut_note) { /* (a comment: readers skip it) */
		fputs("# ", o);
		put_clean(o, db->cut_note);
		fputc('\n', o);
	}
	fputs("version: 1\ncreator: profconv " PACKAGE_VERSION "\n", o);
	fputs("cmd: ", o);
	put_clean(o, db->title ? db->title : "");
	fprintf(o, "\npart: 1\n");
	if (thread)
		fprintf(o, "thread: %d\n", thread);
	fprintf(o, "\npositions: %s\n", x->has_instr ? "instr line" : "line");
	for (size_t m = 0; m < x->nm; m++) {
		fprintf(o, "event: %s : ", x->event[m]);
		const struct pc_metric *mt = &db->metrics[x->mid[m]];
		put_clean(o, *mt->description ? mt->description : mt->name);
		if (x->scale[m] > 1)
			fprintf(o, " (x%.0f)", x->scale[m]);
		else if (x->scale[m] < 1)
			fprintf(o, " (x1e%.0f)", log10(x->scale[m]));
		fputc('\n', o);
	}
	fputs("events:", o);
	for (size_t m = 0; m < x->nm; m++)
		fprintf(o, " %s", x->event[m]);
	fputs("\nsummary:", o);
	for (size_t m = 0; m < x->nm; m++)
		put_cost(o, x, m, tot[m]);
	fputs("\n\n", o);

	struct names t = {
		.ob = pc_xcalloc(db->nmodules + 2, sizeof(pc_id)),
		.fl = pc_xcalloc(db->nfiles + 2, sizeof(pc_id)),
		.fn = pc_xcalloc(x->nfns + 1, sizeof(uint32_t)),
		.compress = !x->opts->no_compress,
	};
	uint32_t *order = pc_xmalloc((x->ne + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < x->ne; i++)
		order[i] = (uint32_t)i;
	sort_ex = x;
	qsort(order, x->ne, sizeof(uint32_t), cmp_entry);
	uint32_t cur = UINT32_MAX;
	pc_id curfile = PC_NONE;
	for (size_t i = 0; i < x->ne; i++) {
		const struct entry *e = &x->e[order[i]];
		const double *c = x->pool + e->cost;
		int any = 0;
		for (size_t m = 0; m < x->nm && !any; m++)
			any = to_count(c[m], x->scale[m]) != 0;
		if (!any)
			continue;
		const struct cgfn *f = &x->fns[e->fn];
		if (e->fn != cur) {
			if (cur != UINT32_MAX && curfile != x->fns[cur].file)
				put_name(o, "fe", fl_slot(&t, x->fns[cur].file),
					 &t.nfl, file_path(db, x->fns[cur].file),
					 t.compress);
			fputc('\n', o);
			put_name(o, "ob", ob_slot(&t, f->module), &t.nob,
				 mod_path(db, f->module), t.compress);
			put_name(o, "fl", fl_slot(&t, f->file), &t.nfl,
				 file_path(db, f->file), t.compress);
			put_name(o, "fn", &t.fn[e->fn], &t.nfn, f->name,
				 t.compress);
			cur = e->fn;
			curfile = f->file;
		}
		if (e->file != curfile) {
			put_name(o, e->file == f->file ? "fe" : "fi",
				 fl_slot(&t, e->file), &t.nfl,
				 file_path(db, e->file), t.compress);
			curfile = e->file;
		}
		if (e->callee == UINT32_MAX) {
			put_pos(o, x, e->addr, e->line);
			put_costs(o, x, c);
			continue;
		}
		const struct cgfn *g = &x->fns[e->callee];
		put_name(o, "cob", ob_slot(&t, g->module), &t.nob,
			 mod_path(db, g->module), t.compress);
		put_name(o, "cfi", fl_slot(&t, g->file), &t.nfl,
			 file_path(db, g->file), t.compress);
		put_name(o, "cfn", &t.fn[e->callee], &t.nfn, g->name,
			 t.compress);
		fprintf(o, "calls=%llu ", (unsigned long long)call_count(x, e));
		put_pos(o, x, g->addr, g->line);
		fputc('\n', o);
		put_pos(o, x, e->addr, e->line);
		put_costs(o, x, c);
	}
	if (cur != UINT32_MAX && curfile != x->fns[cur].file)
		put_name(o, "fe", fl_slot(&t, x->fns[cur].file), &t.nfl,
			 file_path(db, x->fns[cur].file), t.compress);
	fputs("\ntotals:", o);
	for (size_t m = 0; m < x->nm; m++)
		put_cost(o, x, m, tot[m]);
	fputc('\n', o);
	free(order);
	free(t.ob);
	free(t.fl);
	free(t.fn);
	free(tot);
	int bad = ferror(o);
	if ((to_stdout ? fflush(o) : fclose(o)) != 0 || bad)
		return pc_err_set(err, "%s: cannot write: %s",
				  to_stdout ? "standard output" : path,
				  strerror(errno ? errno : EIO));
	return 0;
}

static void ex_free(struct ex *x)
{
	pc_frames_free(&x->fr);
	free(x->fn_of);
	free(x->fns);
	pc_keymap_free(x->fnmap);
	free(x->e);
	free_emaps(x);
	free(x->pool);
	free(x->incl);
	free(x->self_of);
	free(x->callsum);
	free(x->scale);
	free(x->neg);
	if (x->event)
		for (size_t m = 0; m < x->nm; m++)
			free(x->event[m]);
	free(x->event);
	free(x->mid);
	free(x->col);
	free(x);
}

/* Events, frames of the contexts so far and the sums: at the first
 * profile (the metrics are the importer's by then) or at the end. The
 * exporter interns frame names (--callers): the db is only extended,
 * never changed. */
static void ex_start(struct ex *x, const struct pc_db *db)
{
	x->db = db;
	events(x, db);
	prepare(x, (struct pc_db *)db);
	event_names(x);
	collect_begin(x);
	x->begun = 1;
}

/* The sink: one profile's values added to the sums (one aggregated
 * file: no value is kept, only the sums per position and context). */
static int cg_profile(struct pc_sink *s, const struct pc_db *db, pc_id p,
		      const struct pc_value *v, size_t n,
		      const struct pc_value *sv, size_t sn,
		      const struct pc_trace *t, struct pc_err *err)
{
	struct ex *x = (struct ex *)s;
	(void)p, (void)sv, (void)sn, (void)t, (void)err;
	if (!x->begun)
		ex_start(x, db);
	prepare(x, (struct pc_db *)db);
	collect_grow(x);
	collect_values(x, v, n);
	return 0;
}

static int cg_stream_ok(const struct pc_export_opts *opts)
{
	/* --split's scales come from all the data, so that the files
	 * agree: the values are needed twice */
	return !opts->split;
}

/* One aggregated file, checked before any input is read; written at
 * the end (its header holds the totals). */
static struct pc_sink *cg_begin(const char *out,
				const struct pc_export_opts *opts,
				struct pc_err *err)
{
	char name[sizeof((struct ex *)0)->out];
	if (pc_outfile_check(name, sizeof name, out, opts, err))
		return NULL;
	struct ex *x = pc_xcalloc(1, sizeof(*x));
	x->sink.profile = cg_profile;
	strcpy(x->out, name);
	x->o = *opts;
	x->opts = &x->o;
	return &x->sink;
}

static void cg_abort(struct pc_sink *s)
{
	ex_free((struct ex *)s);
}

/* The profiles still in the model, then the file. */
static int cg_end(struct pc_sink *s, const struct pc_db *db,
		  struct pc_err *err)
{
	struct ex *x = (struct ex *)s;
	int rc = 0;
	if (!db->nprofiles)
		rc = pc_err_set(err, "nothing to write: no profiles");
	if (!rc) {
		if (!x->begun)
			ex_start(x, db);
		prepare(x, (struct pc_db *)db);
		collect_grow(x);
		collect_values(x, db->nvalues ? db->values : NULL,
			       db->nvalues);
		collect_end(x);
		choose_scales(x);
	}
	if (!rc && !strcmp(x->out, "-")) {
		rc = write_file(x, "-", 0, err);
	} else if (!rc) {
		struct pc_dest o;
		rc = pc_dest_begin(&o, x->out, 0, err);
		if (!rc) {
			rc = write_file(x, o.tmp, 0, err);
			if (!rc)
				rc = pc_dest_commit(&o, db->diag, err);
			pc_dest_abort(&o);
			/* an earlier --split of the same name goes with it */
			if (!rc)
				pc_split_done(x->out, NULL, 0, x->opts,
					      db->diag);
		}
	}
	ex_free(x);
	return rc;
}

/* --split: a file per profile, their scales from all the data. */
static int cg_write_split(const struct pc_db *cdb, const char *out,
			  const struct pc_export_opts *opts,
			  struct pc_err *err)
{
	const struct pc_db *db = cdb;
	size_t nout = db->nprofiles;
	if (!nout)
		return pc_err_set(err, "nothing to write: no profiles");
	if (!strcmp(out, "-"))
		return pc_err_set(err, "--split writes several files: it "
				  "needs an output name, not '-'");
	char (*final)[4200] = pc_xcalloc(nout, sizeof(*final));
	struct pc_dest *o = pc_xcalloc(nout, sizeof(*o));
	int rc = 0;
	for (size_t i = 0; i < nout && !rc; i++) {
		pc_split_name(final[i], sizeof final[i], out, NULL, i + 1);
		rc = pc_dest_check(final[i], 0, opts->force, NULL, err);
	}
	struct ex *x = pc_xcalloc(1, sizeof(*x));
	x->opts = opts;
	if (!rc) {
		ex_start(x, db);
		/* scales from all the data, so split files agree */
		collect_values(x, db->values, db->nvalues);
		collect_end(x);
		choose_scales(x);
	}
	size_t v = 0;
	for (size_t i = 0; i < nout && !rc; i++) {
		size_t w = v;
		while (w < db->nvalues && db->values[w].profile == i)
			w++;
		collect(x, w > v ? db->values + v : NULL, w - v);
		v = w;
		rc = pc_dest_begin(&o[i], final[i], 0, err);
		if (!rc)
			rc = write_file(x, o[i].tmp, (int)i + 1, err);
	}
	for (size_t i = 0; i < nout && !rc; i++)
		rc = pc_dest_commit(&o[i], db->diag, err);
	for (size_t i = 0; i < nout; i++)
		pc_dest_abort(&o[i]);
	if (!rc)
		pc_split_done(out, NULL, nout, opts, db->diag);
	free(final);
	free(o);
	ex_free(x);
	return rc;
}

static int cg_write(const struct pc_db *db, const char *out,
		    const struct pc_export_opts *opts, struct pc_err *err)
{
	if (opts->split)
		return cg_write_split(db, out, opts, err);
	struct pc_sink *s = cg_begin(out, opts, err);
	return s ? cg_end(s, db, err) : -1;
}

static int cg_claims(const char *out)
{
	return pc_basename_starts(out, "callgrind.out") ||
	       pc_path_ends(out, ".callgrind");
}

/* Whether KCachegrind reads path as a profile (cachegrindloader.cpp,
 * canLoad: "# callgrind format" first, or "\nevents:" or "\ncreator:"
 * in the first 2047 bytes) */
static int kc_loadable(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	char buf[2048];
	size_t n = fread(buf, 1, 2047, f);
	fclose(f);
	return (n >= 18 && !memcmp(buf, "# callgrind format", 18)) ||
	       memmem(buf, n, "\nevents:", 8) || memmem(buf, n, "\ncreator:", 9);
}

/* Whether name is split's OUT-NN of base (ours, replaced) */
static int split_part(const char *name, const char *base)
{
	size_t k = strlen(base);
	if (strncmp(name, base, k) || name[k] != '-' || !name[k + 1])
		return 0;
	return strspn(name + k + 1, "0123456789") == strlen(name + k + 1);
}

/* KCachegrind, opening one uncompressed file F, loads as parts of one
 * run every file of F's folder whose name starts with F's (kcachegrind's
 * libcore/tracedata.cpp, TraceData::load: the name is a prefix), adding
 * up their costs: callgrind.out.prog2 is loaded with callgrind.out.prog.
 * The output's name warned of when it would be loaded with another
 * Callgrind file, or load one. */
static int cg_name_warning(const char *out, const struct pc_export_opts *opts,
			   char *msg, size_t n)
{
	char dir[4200];
	const char *slash = strrchr(out, '/');
	const char *base = slash ? slash + 1 : out;
	if (!*base)
		return 0;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + 1 : 0,
		 out);
	DIR *d = opendir(*dir ? dir : ".");
	if (!d)
		return 0;
	size_t kb = strlen(base), others = 0;
	char first[256] = "", path[4500];
	int loads_it = 0; /* first's name starts with the output's */
	for (struct dirent *e; (e = readdir(d));) {
		size_t ke = strlen(e->d_name);
		int below = ke > kb && !strncmp(e->d_name, base, kb);
		int above = ke < kb && !strncmp(base, e->d_name, ke);
		if ((!below && !above) || (opts->split && split_part(e->d_name, base)))
			continue;
		snprintf(path, sizeof path, "%s%s", dir, e->d_name);
		if (!kc_loadable(path))
			continue;
		if (!others++) {
			snprintf(first, sizeof first, "%s", e->d_name);
			loads_it = below;
		}
	}
	closedir(d);
	if (!others)
		return 0;
	char more[64] = "", fix[300] = "";
	if (others > 1)
		snprintf(more, sizeof more, " (and %zu more)",
			 others - 1);
	if (!strncmp(base, "callgrind.out.", 14) && base[14])
		snprintf(fix, sizeof fix, "; a name such as %.200s.callgrind "
			 "avoids it", base + 14);
	else
		snprintf(fix, sizeof fix, "; rename it");
	const char *what = opts->split ? "these outputs" : "this output";
	if (loads_it)
		snprintf(msg, n, "-o %s: KCachegrind opening %s%s would also "
			 "load %s%s beside it, as parts of one run adding up "
			 "their costs (it loads every Callgrind file whose name "
			 "starts with the name opened)%s", out, base,
			 opts->split ? " (its parts)" : "", first, more, fix);
	else
		snprintf(msg, n, "-o %s: KCachegrind opening %s beside it%s "
			 "would also load %s, as parts of one run adding up "
			 "their costs (it loads every Callgrind file whose name "
			 "starts with the name opened)%s", out, first, more,
			 what, fix);
	return 1;
}

const struct pc_exporter pc_export_callgrind = {
	.name = "callgrind",
	.label = "Callgrind",
	.takes = PC_XO_SPLIT | PC_XO_NO_COMPRESS | PC_XO_CALLERS,
	.description = "Callgrind text for KCachegrind and callgrind_annotate "
		       "(one aggregated file; --split: one per profile)",
	.claims = cg_claims,
	.names = "callgrind.out.* or *.callgrind",
	.name_warning = cg_name_warning,
	.point_only = 1,
	.no_traces = 1,
	.write = cg_write,
	.begin = cg_begin,
	.end = cg_end,
	.abort = cg_abort,
	.stream_ok = cg_stream_ok,
};
