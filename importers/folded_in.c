/* Folded stacks: the lines flamegraph.pl reads, "frame;frame;frame
 * COUNT" (stackcollapse-*.pl, DTrace and bpftrace scripts, async-profiler,
 * py-spy, inferno, profconv's own -t folded), and the two-count lines of
 * difffolded.pl, "frame;frame COUNT1 COUNT2", two runs compared.
 * (exporters/folded.c writes them.)
 *
 * Mapping (doc/formats.md, "Folded stacks"): one profile; a stack is a
 * path of function contexts (called) below the main entry, outermost
 * frame first, its count at the innermost; a first frame that names an
 * entry as profconv writes it ("[main thread]", ...) is that entry, so
 * that profconv's own output reads back as it was written. The metric is
 * "samples" (flamegraph.pl's name for the counts). Two counts per line:
 * the model of two runs compared (db->diff), as `profconv diff` makes
 * it of two one-count files: "samples [base]", "samples [new]" and
 * "samples [new-base]". Lines are summed into the tree as they come. */
#include "pc.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fr {
	struct pc_db *db;
	const char *path;
	struct pc_lines in;
	int counts;          /* 1 or 2 per line, 0 until the first line */
	pc_id metric[3];     /* one count: [0]; two: base, new, delta */
	pc_id prof;
	struct pc_keymap *vmap;
	char *name;          /* a frame's name unescaped */
	size_t capname;
};

/* A count: digits, a fraction allowed (flamegraph.pl takes them). -1 if
 * it is not one. */
static int parse_count(const char *s, size_t n, double *v, int *whole)
{
	if (!n || n > 40)
		return -1;
	char buf[48];
	memcpy(buf, s, n);
	buf[n] = 0;
	size_t dots = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '.')
			dots++;
		else if (buf[i] < '0' || buf[i] > '9')
			return -1;
	}
	if (dots > 1 || buf[0] == '.' || buf[n - 1] == '.')
		return -1;
	errno = 0;
	*v = strtod(buf, NULL);
	if (errno || !isfinite(*v))
		return -1;
	*whole = !dots && *v < 0x1p53;
	return 0;
}

/* The escapes profconv's folded output writes for ';', '\', newlines
 * (\x3b \x5c \x0a \x0d) turned back; any other text is as it is. */
static const char *unescape(struct fr *r, const char *s, size_t n)
{
	if (!memchr(s, '\\', n))
		return NULL;
	if (r->capname < n + 1) {
		r->capname = n + 1;
		r->name = pc_xrealloc(r->name, r->capname, 1);
	}
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 4 <= n && s[i + 1] == 'x') {
			const char *h = s + i + 2;
			char c = !strncmp(h, "3b", 2) ? ';' :
				 !strncmp(h, "5c", 2) ? '\\' :
				 !strncmp(h, "0a", 2) ? '\n' :
				 !strncmp(h, "0d", 2) ? '\r' : 0;
			if (c) {
				r->name[w++] = c;
				i += 3;
				continue;
			}
		}
		r->name[w++] = s[i];
	}
	r->name[w] = 0;
	return r->name;
}

static void make_metrics(struct fr *r)
{
	struct pc_db *db = r->db;
	if (r->counts == 1) {
		r->metric[0] = pc_metric_get_whole(
			db, "samples", "folded stacks: the stacks' counts",
			"samples");
		return;
	}
	/* as src/diff.c names the three metrics of a comparison */
	static const char *const tag[3] = { "base", "new", "new-base" };
	static const char *const what[3] = {
		"in the base run", "in the new run", "new run less base run",
	};
	for (int k = 0; k < 3; k++) {
		char name[64], desc[128];
		snprintf(name, sizeof name, "samples [%s]", tag[k]);
		snprintf(desc, sizeof desc, "folded stacks: the stacks' "
			 "counts, %s", what[k]);
		r->metric[k] = pc_metric_get_whole(db, name, desc, "samples");
	}
	db->diff = pc_db_alloc(db, sizeof(*db->diff));
	db->diff[0] = (struct pc_diffm){ pc_intern_cstr(db, "samples"),
					 r->metric[0], r->metric[1],
					 r->metric[2] };
	db->ndiff = 1;
}

/* The entry a first frame names, as profconv writes them; 0: none. */
static int entry_named(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int entry;
	} e[] = { { "[main thread]", PC_ENTRY_MAIN + 1 },
		  { "[application thread]", PC_ENTRY_APP_THREAD + 1 },
		  { "[unknown entry]", PC_ENTRY_UNKNOWN + 1 } };
	for (size_t i = 0; i < 3; i++)
		if (strlen(e[i].name) == n && !memcmp(s, e[i].name, n))
			return e[i].entry;
	return 0;
}

static int take_line(struct fr *r, char *line, size_t len,
		     struct pc_err *err)
{
	struct pc_db *db = r->db;
	/* the counts, from the right */
	double v[2];
	int whole[2], nc = 0;
	size_t n = len;
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	while (nc < 2) {
		size_t e = n;
		while (n && line[n - 1] != ' ' && line[n - 1] != '\t')
			n--;
		if (!n || parse_count(line + n, e - n, &v[nc], &whole[nc])) {
			n = e;
			break;
		}
		nc++;
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
	}
	if (!nc)
		return pc_err_at_line(err, r->path, r->in.lineno,
				      "no count at the end of the line (want "
				      "'frame;frame;... COUNT')");
	if (!n)
		return pc_err_at_line(err, r->path, r->in.lineno,
				      "a count without a stack");
	if (nc == 2) { /* read right to left */
		double t = v[0];
		v[0] = v[1], v[1] = t;
		int w = whole[0];
		whole[0] = whole[1], whole[1] = w;
	}
	if (!r->counts) {
		if (nc == 2 && db->nmetrics)
			return pc_err_at_line(err, r->path, r->in.lineno,
					      "two counts a line (two runs "
					      "compared, difffolded.pl) in a "
					      "file read with other inputs: "
					      "read it alone");
		r->counts = nc;
		make_metrics(r);
	} else if (nc != r->counts) {
		return pc_err_at_line(err, r->path, r->in.lineno,
				      "%d count%s where the lines before have "
				      "%d", nc, nc == 1 ? "" : "s", r->counts);
	}
	for (int k = 0; k < nc; k++)
		if (!whole[k])
			for (int m = 0; m < (nc == 2 ? 3 : 1); m++)
				db->metrics[r->metric[m]].whole = 0;
	/* the frames */
	line[n] = 0;
	const char *s = line;
	pc_id c = PC_NONE;
	for (size_t depth = 0;; depth++) {
		const char *e = strchr(s, ';');
		size_t fl = e ? (size_t)(e - s) : strlen(s);
		if (!fl)
			return pc_err_at_line(err, r->path, r->in.lineno,
					      "an empty frame (';;', or ';' "
					      "at an end of the stack)");
		int en = depth == 0 ? entry_named(s, fl) : 0;
		if (en) {
			c = pc_ctx_entry(db, (enum pc_entry)(en - 1));
		} else {
			if (c == PC_NONE)
				c = pc_ctx_entry(db, PC_ENTRY_MAIN);
			const char *u = unescape(r, s, fl);
			const char *name = u ? u : pc_intern(db, s, fl);
			pc_id fn = pc_function_get(db, name, PC_NONE, 0,
						   PC_NONE, 0);
			struct pc_context k = { .kind = PC_CTX_FUNCTION,
						.rel = PC_REL_CALL,
						.function = fn,
						.file = PC_NONE,
						.module = PC_NONE };
			c = pc_ctx_child(db, c, &k);
		}
		if (!e)
			break;
		s = e + 1;
	}
	if (nc == 1) {
		pc_value_sum(r->db, r->vmap, r->prof, c, r->metric[0], v[0]);
	} else {
		pc_value_sum(r->db, r->vmap, r->prof, c, r->metric[0], v[0]);
		pc_value_sum(r->db, r->vmap, r->prof, c, r->metric[1], v[1]);
		/* (summed in the order src/diff.c sums: -BASE, then NEW) */
		pc_value_sum(r->db, r->vmap, r->prof, c, r->metric[2], -v[0]);
		pc_value_sum(r->db, r->vmap, r->prof, c, r->metric[2], v[1]);
	}
	return 0;
}

static int folded_read(struct pc_db *db, const char *path,
		       const struct pc_import_opts *opts, struct pc_err *err)
{
	struct fr r = { .db = db, .path = path };
	pc_memory_init(); /* its tables grow page by page (src/util.c) */
	if (pc_lines_open(&r.in, path, db->diag, err))
		return -1;
	if (opts && opts->max_line)
		r.in.max_line = opts->max_line;
	struct pc_idelem id = { .kind = PC_ID_THREAD, .logical = 0 };
	for (size_t p = 0; p < db->nprofiles; p++)
		if (db->profiles[p].nids == 1 &&
		    db->profiles[p].ids[0].kind == PC_ID_THREAD &&
		    db->profiles[p].ids[0].logical >= id.logical)
			id.logical = db->profiles[p].ids[0].logical + 1;
	r.vmap = pc_keymap_new();
	int rc = 0, got;
	int profiled = 0;
	char *line;
	size_t len;
	while ((got = pc_lines_next(&r.in, &line, &len, err)) > 0) {
		size_t i = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len || line[i] == '#')
			continue; /* blank lines, comments */
		if (!profiled) {
			r.prof = pc_profile_add(db, &id, 1);
			profiled = 1;
		}
		if ((rc = take_line(&r, line + i, len - i, err)))
			break;
	}
	if (got < 0)
		rc = -1;
	if (!rc && !r.counts)
		rc = pc_err_set(err, "%s: no stacks", path);
	if (!rc && !db->title) {
		char title[4200];
		snprintf(title, sizeof title, "folded stacks%s: %s",
			 r.counts == 2 ? " of two runs compared" : "", path);
		db->title = pc_intern_cstr(db, title);
	}
	pc_lines_close(&r.in);
	pc_keymap_free(r.vmap);
	free(r.name);
	if (rc)
		pc_err_context(err, "reading folded stacks");
	return rc;
}

/* The whole lines of the first 4 kB are "STACK COUNT" or "STACK COUNT
 * COUNT" (the last one may be cut; a stack of more than numbers), three
 * in four at least (a file with a malformed line is still read, to say
 * where): 80 where some stack has a ';', 30 where none has (one frame
 * each: below every format with a signature). */
static int folded_probe(const struct pc_probe *p)
{
	if (p->is_dir || !p->len)
		return 0;
	const char *b = (const char *)p->buf, *end = b + p->len;
	int good = 0, bad = 0, semi = 0;
	for (const char *l = b; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			break; /* cut by the probe's size */
		const char *z = nl;
		if (z > l && z[-1] == '\r')
			z--;
		if (z == l || *l == '#') {
			l = nl + 1;
			continue;
		}
		for (const char *c = l; c < z; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				return 0;
		int counts = 0;
		const char *e = z;
		while (counts < 2) {
			const char *d = e;
			while (d > l && ((d[-1] >= '0' && d[-1] <= '9') ||
					 d[-1] == '.'))
				d--;
			if (d == e || d == l || d[-1] != ' ')
				break;
			counts++;
			e = d - 1;
		}
		/* (a stack of numbers alone is not one: Callgrind's cost
		 * lines "16 20", "+3 5", "0x4005d0 7") */
		int word = 0;
		for (const char *c = l; c < e && !word; c++)
			word = !strchr("0123456789abcdefABCDEFx+-* \t", *c);
		if (!counts || e == l || !word) {
			bad++;
		} else {
			good++;
			if (memchr(l, ';', (size_t)(e - l)))
				semi = 1;
		}
		l = nl + 1;
	}
	if (!good || good < 3 * bad)
		return 0;
	return semi ? 80 : 30;
}

const struct pc_importer pc_import_folded = {
	.name = "folded",
	.description = "folded stacks (flamegraph.pl's input: 'frame;frame "
		       "COUNT'; two counts a line: two runs compared, as "
		       "difffolded.pl writes them)",
	.probe = folded_probe,
	.read = folded_read,
	.no_traces = 1,
};
