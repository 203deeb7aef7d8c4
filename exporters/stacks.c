/* Frames, frame names and integer scales: see stacks.h. */
#include "stacks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pc_starts_frame(const struct pc_db *db, size_t c)
{
	/* hpcprof writes a call into code without a known function as a
	 * call to an instruction context, and hpcviewer shows it as a
	 * callee of its own */
	const struct pc_context *k = &db->contexts[c];
	return c == 0 || k->kind == PC_CTX_FUNCTION ||
	       k->kind == PC_CTX_ENTRY || k->rel == PC_REL_CALL;
}

const char *pc_frame_name(const struct pc_db *db, struct pc_db *mdb, pc_id c)
{
	static const char *const entries[] = {
		"[unknown entry]", "[main thread]", "[application thread]",
	};
	const struct pc_context *k = &db->contexts[c];
	if (c == 0)
		return "[program root]";
	if (k->kind == PC_CTX_ENTRY)
		return entries[k->entry < 3 ? k->entry : 0];
	if (k->kind == PC_CTX_FUNCTION && k->function != PC_NONE)
		return db->functions[k->function].name;
	if (k->module != PC_NONE || k->offset) {
		char buf[32];
		snprintf(buf, sizeof buf, "0x%016llx",
			 (unsigned long long)k->offset);
		return pc_intern_cstr(mdb, buf);
	}
	return "[unknown function]";
}

/* The named function of frame c, or NULL. */
static const struct pc_function *frame_fn(const struct pc_db *db, pc_id c)
{
	const struct pc_context *k = &db->contexts[c];
	return k->function != PC_NONE && k->kind == PC_CTX_FUNCTION ?
		       &db->functions[k->function] : NULL;
}

/* An unnamed callee is at its own position. */
static int at_own(const struct pc_db *db, pc_id c)
{
	return c && db->contexts[c].kind != PC_CTX_ENTRY;
}

pc_id pc_frame_module(const struct pc_db *db, pc_id c)
{
	const struct pc_function *f = frame_fn(db, c);
	return f ? f->module : at_own(db, c) ? db->contexts[c].module : PC_NONE;
}

void pc_frames_update(struct pc_frames *f, const struct pc_db *db)
{
	size_t n = db->ncontexts, from = f->n;
	if (from == n)
		return;
	f->frame = pc_xrealloc(f->frame, n, sizeof(pc_id));
	f->file = pc_xrealloc(f->file, n, sizeof(pc_id));
	f->line = pc_xrealloc(f->line, n, sizeof(uint32_t));
	f->addr = pc_xrealloc(f->addr, n, sizeof(uint64_t));
	f->depth = pc_xrealloc(f->depth, n, sizeof(uint32_t));
	f->n = n;
	for (size_t c = from; c < n; c++) {
		const struct pc_context *k = &db->contexts[c];
		if (pc_starts_frame(db, c)) {
			const struct pc_function *fn = frame_fn(db, (pc_id)c);
			int at = !fn && at_own(db, (pc_id)c);
			f->frame[c] = (pc_id)c;
			f->depth[c] = c ? f->depth[k->parent] + 1 : 0;
			f->file[c] = fn ? fn->file : at ? k->file : PC_NONE;
			f->line[c] = fn ? fn->line : at ? k->line : 0;
			f->addr[c] = fn ? fn->offset : at ? k->offset : 0;
			continue;
		}
		pc_id p = k->parent;
		f->frame[c] = f->frame[p];
		f->depth[c] = f->depth[p];
		f->file[c] = f->file[p];
		f->line[c] = f->line[p];
		f->addr[c] = f->addr[p];
		if (k->kind == PC_CTX_LINE || k->kind == PC_CTX_LOOP) {
			f->file[c] = k->file;
			f->line[c] = k->line;
		} else if (k->kind == PC_CTX_INSTRUCTION) {
			f->addr[c] = k->offset;
		}
	}
}

void pc_frames_free(struct pc_frames *f)
{
	free(f->frame);
	free(f->file);
	free(f->line);
	free(f->addr);
	free(f->depth);
	memset(f, 0, sizeof(*f));
}

int pc_is_whole(double v)
{
	v = fabs(v);
	return fabs(v - nearbyint(v)) <= 1e-6 * (v > 1 ? v : 1);
}

/* k, lowered until the total times 10^k fits (an infinite total, which
 * the readers refuse, leaves it: no endless loop) */
static int fit_total(double total, int k)
{
	while (isfinite(total) && k > -400 &&
	       total * pow(10, k) > PC_INT_MAX_TOTAL)
		k--;
	return k;
}

int pc_int_scale(double max, double total, int whole)
{
	int k = 0;
	/* (NaN and infinity, which the readers refuse: no scale) */
	if (!whole && max > 0 && isfinite(max)) {
		k = 9 - (int)ceil(log10(max));
		k = k < 0 ? 0 : k > 15 ? 15 : k;
	}
	return fit_total(total, k);
}

static int ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* NOTIME: the metric is not a time */
#define NOTIME 1000

/* The power of ten of a second the metric's values count: 0 for
 * seconds ("CPUTIME (sec)", unit "s"), -9 for unit "ns", -8 for Xdebug's
 * "10ns"; NOTIME for other metrics. */
static int time_exp(const struct pc_metric *m)
{
	static const char *const secs[] = { "s", "sec", "second", "seconds" };
	for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++)
		if (!strcmp(m->unit, secs[i]))
			return 0;
	if (ends(m->name, "(sec)") || ends(m->name, "(s)"))
		return 0;
	/* [10...0]ms, us, ns */
	const char *u = m->unit;
	int e = 0;
	if (u[0] == '1') {
		u++;
		while (*u == '0')
			u++, e++;
	}
	static const char *const sub[] = { "ms", "us", "ns" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(u, sub[i]))
			return e - 3 * (i + 1);
	return NOTIME;
}

const char *pc_unit_name(const struct pc_metric *m, int k)
{
	static const char *const times[] = { "seconds", "milliseconds",
					     "microseconds", "nanoseconds" };
	int e = time_exp(m);
	if (e != NOTIME) {
		int d = k - e; /* values times 10^k count 10^-d seconds */
		return d >= 0 && d <= 9 && d % 3 == 0 ? times[d / 3] : NULL;
	}
	if (k)
		return NULL;
	if (!strcmp(m->unit, "B") || !strcmp(m->unit, "bytes") ||
	    ends(m->name, "(B)"))
		return "bytes";
	return "count";
}

int pc_outfile_check(char *buf, size_t n, const char *out,
		     const struct pc_export_opts *opts, struct pc_err *err)
{
	if (strlen(out) >= n)
		return pc_err_set(err, "%s: name too long", out);
	if (strcmp(out, "-") && pc_dest_check(out, 0, opts->force, NULL, err))
		return -1;
	strcpy(buf, out);
	return 0;
}

int pc_outfile_open(struct pc_outfile *o, const char *out, struct pc_err *err)
{
	memset(o, 0, sizeof(*o));
	o->to_stdout = !strcmp(out, "-");
	if (o->to_stdout) {
		o->f = stdout;
		return 0;
	}
	if (pc_dest_begin(&o->d, out, 0, err))
		return -1;
	o->f = fopen(o->d.tmp, "w");
	if (!o->f) {
		pc_err_set(err, "%s: cannot write: %s", o->d.tmp,
			   strerror(errno));
		pc_dest_abort(&o->d);
		return -1;
	}
	return 0;
}

int pc_outfile_close(struct pc_outfile *o, struct pc_err *err)
{
	if (!o->f)
		return 0;
	int bad = ferror(o->f);
	int rc = o->to_stdout ? fflush(o->f) : fclose(o->f);
	o->f = NULL;
	if (rc || bad) {
		pc_err_set(err, "%s: cannot write: %s", pc_outfile_name(o),
			   strerror(errno ? errno : EIO));
		pc_outfile_abort(o);
		return -1;
	}
	return 0;
}

int pc_outfile_commit(struct pc_outfile *o, struct pc_diag *diag,
		      struct pc_err *err)
{
	if (pc_outfile_close(o, err))
		return -1;
	if (o->to_stdout)
		return 0;
	int rc = pc_dest_commit(&o->d, diag, err);
	pc_dest_abort(&o->d);
	return rc;
}

void pc_outfile_abort(struct pc_outfile *o)
{
	if (o->f && !o->to_stdout)
		fclose(o->f);
	o->f = NULL;
	if (!o->to_stdout)
		pc_dest_abort(&o->d);
}

char *pc_json_escape(const char *s)
{
	char *esc = pc_utf8_escape(s);
	const unsigned char *u = (const unsigned char *)(esc ? esc : s);
	size_t n = 0;
	for (const unsigned char *q = u; *q; q++)
		n += *q == '"' || *q == '\\' ? 2 : *q < 0x20 || *q == 0x7f ? 6 : 1;
	char *out = pc_xmalloc(n + 1), *p = out;
	for (; *u; u++) {
		if (*u == '"' || *u == '\\') {
			*p++ = '\\';
			*p++ = (char)*u;
		} else if (*u < 0x20 || *u == 0x7f) {
			p += snprintf(p, 7, "\\u%04x", *u);
		} else {
			*p++ = (char)*u;
		}
	}
	*p = 0;
	free(esc);
	return out;
}

void pc_put_json(FILE *f, const char *s)
{
	char *j = pc_json_escape(s);
	fputs(j, f);
	free(j);
}

int pc_metric_scale(const struct pc_metric *m, double max, double total,
		    int whole)
{
	int e = time_exp(m);
	if (e == NOTIME)
		return pc_int_scale(max, total, whole);
	if (!whole) /* seconds: in nanoseconds */
		return e ? pc_int_scale(max, total, whole) : fit_total(total, 9);
	/* whole: the least scale up to a time unit pprof names (Xdebug's
	 * 10 ns: times 10, in nanoseconds) */
	int k = pc_int_scale(max, total, whole);
	for (int up = 0; up < 3; up++)
		if (pc_unit_name(m, k + up))
			return fit_total(total, k + up);
	return k;
}

void pc_split_name(char *buf, size_t n, const char *out, const char *suffix,
		   size_t i)
{
	size_t len = strlen(out), k = suffix ? strlen(suffix) : 0;
	if (k && len > k && pc_path_ends(out, suffix))
		snprintf(buf, n, "%.*s-%02zu%s", (int)(len - k), out, i, suffix);
	else
		snprintf(buf, n, "%s-%02zu", out, i);
}

/* The index of a file of out's split (OUT-07, x-07.pb.gz: 7) named
 * name in out's directory, as pc_split_name writes it; 0 if it is not
 * one. */
static size_t split_index(const char *name, const char *base, size_t bl,
			  const char *suffix)
{
	size_t sl = suffix ? strlen(suffix) : 0, len = strlen(name);
	if (len < bl + 3 + sl || strncmp(name, base, bl) || name[bl] != '-' ||
	    (sl && strcmp(name + len - sl, suffix)))
		return 0;
	size_t i = 0;
	for (const char *p = name + bl + 1; p < name + len - sl; p++) {
		if (*p < '0' || *p > '9' || i > 100000000)
			return 0;
		i = i * 10 + (size_t)(*p - '0');
	}
	char again[64];
	snprintf(again, sizeof again, "%02zu", i);
	return strlen(again) == len - sl - bl - 1 &&
			       !strncmp(again, name + bl + 1, len - sl - bl - 1) ?
		       i : 0;
}

/* Whether a file of a split's name is one profconv writes: Callgrind
 * with its creator line (valgrind --separate-threads names its thread
 * files OUT-01... too: those are never touched), gzip for pprof. */
static int ours(const char *path, const char *suffix)
{
	char head[128] = "";
	FILE *f = fopen(path, "rb");
	size_t k = f ? fread(head, 1, sizeof head - 1, f) : 0;
	if (f)
		fclose(f);
	head[k] = 0;
	if (suffix)
		return k >= 2 && (unsigned char)head[0] == 0x1f &&
		       (unsigned char)head[1] == 0x8b;
	return strstr(head, "\ncreator: profconv ") != NULL;
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

void pc_split_done(const char *out, const char *suffix, size_t n,
		   const struct pc_export_opts *opts, struct pc_diag *d)
{
	char name[4200], first[4200] = "", last[4200] = "";
	struct stat st;
	/* the files of an earlier split of out beyond the n written (n 0:
	 * out is one file), gaps and all, that profconv wrote: --force
	 * replaced them */
	char dir[4200], base[4200];
	const char *slash = strrchr(out, '/');
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) : 1,
		 slash ? out : ".");
	if (slash == out)
		snprintf(dir, sizeof dir, "/");
	snprintf(base, sizeof base, "%s", slash ? slash + 1 : out);
	size_t bl = strlen(base), sl = suffix ? strlen(suffix) : 0;
	if (sl && bl > sl && pc_path_ends(base, suffix))
		bl -= sl;
	else
		suffix = NULL;
	size_t nn, *idx = NULL, ni = 0, cap = 0;
	char **names = pc_list_dir(dir, &nn);
	for (size_t k = 0; k < nn; k++) {
		size_t i = split_index(names[k], base, bl, suffix);
		pc_split_name(name, sizeof name, out, suffix, i);
		if (i > n && lstat(name, &st) == 0 && S_ISREG(st.st_mode) &&
		    ours(name, suffix)) {
			PC_GROW(idx, ni, cap);
			idx[ni++] = i;
		}
	}
	pc_free_list(names, nn);
	if (ni)
		qsort(idx, ni, sizeof(*idx), by_index);
	size_t gone = 0;
	for (size_t k = 0; k < ni; k++) {
		pc_split_name(name, sizeof name, out, suffix, idx[k]);
		if (opts->force && unlink(name) != 0)
			continue;
		snprintf(gone++ ? last : first, sizeof first, "%s", name);
	}
	free(idx);
	char what[9000], beyond[64] = "of the same name";
	if (n)
		snprintf(beyond, sizeof beyond, "beyond the %zu written", n);
	snprintf(what, sizeof what, "%zu file%s of an earlier split %s (%s%s%s)",
		 gone, gone == 1 ? "" : "s", beyond, first,
		 gone > 1 ? " ... " : "", last);
	if (gone && opts->force)
		pc_note(d, "removed the %s%s", what,
			n ? "" : ": the new output replaces them");
	else if (gone)
		pc_warn(d, "kept the %s: --force replaces them", what);
	if (!n)
		return;
	struct pc_split_done *w = opts->split_done;
	if (!w)
		return;
	w->n = n;
	w->bytes = 0;
	for (size_t i = 1; i <= n; i++) {
		pc_split_name(name, sizeof name, out, suffix, i);
		if (stat(name, &st) == 0)
			w->bytes += (uint64_t)st.st_size;
	}
	pc_split_name(w->first, sizeof w->first, out, suffix, 1);
	pc_split_name(w->last, sizeof w->last, out, suffix, n);
}
