/* Chrome's Trace Event format (JSON), for Perfetto UI, chrome://tracing
 * and speedscope: each profile with a trace is a thread, and each run of
 * its samples is its calling context as nested complete ("X") events,
 * one per frame (stacks.h: the frames the Callgrind writer makes). A
 * sample holds from its time to the next sample's; the last one has no
 * end in the trace and ends where it starts. Profiles are processes and
 * threads by their id tuples: the ids above the thread (node, rank, GPU
 * context) name the process, the rest (thread, core, GPU stream) the
 * thread, each with the input's real ids where it has them (an ovni
 * trace's PID and TIDs: "RANK 0 PID 32631", "THREAD 1 TID 32633").
 * Processes and threads are numbered in the order of (rank, the
 * process's other ids, thread), which is the order readers draw them in
 * (speedscope sorts by pid and tid), for every profile the model holds
 * when the first trace comes; one added later (a streamed ovni trace)
 * comes after them in reading order. Timestamps are microseconds with the nanoseconds as three
 * decimals, exactly as the trace has them; times since the epoch
 * (HPCToolkit's) are written from the midnight (UTC) before the first
 * sample, otherData.time_origin_ns, which a reader adds back: a double
 * holds 10^15 microseconds to a quarter of one, and events that end
 * at the same nanosecond must still nest. Written as the profiles
 * come: nothing but the stack of open frames is kept. */
#include "pc.h"
#include "internal.h"
#include "stacks.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>

/* 2001 in nanoseconds since 1970: larger times are dates */
#define EPOCH_LIKE 1000000000000000000ull
#define DAY_NS 86400000000000ull

struct open {
	pc_id frame;
	uint64_t start;
};

struct cx {
	struct pc_sink sink;
	char out[4200];
	struct pc_export_opts o;
	const struct pc_db *db;
	struct pc_frames fr;
	struct pc_outfile of;
	int opened;
	uint64_t nevents;
	int big; /* said that the file passes what viewers load */
	/* per frame context: its name as JSON, made at its first event */
	char **jname;
	size_t njname;
	/* times are written from here: 0, or for times since the epoch
	 * (HPCToolkit's) the day of the first sample, so that readers
	 * that parse numbers as doubles keep every nanosecond */
	uint64_t origin;
	size_t traced;   /* profiles with a trace */
	/* processes by their id text (ids are index + 1) */
	struct pc_keymap *pmap;
	char **proc;
	size_t nproc, capproc;
	uint64_t *pkey; /* per process: its ids' logical values (PKEY) */
	uint8_t *named; /* per process: its name written */
	/* per profile: its thread's number (tid, 0: not yet numbered) and
	 * its process's index; nord profiles numbered so far */
	pc_id *tid, *pidx;
	size_t nord;
	pc_id ntid;
	struct open *st; /* the open frames, outermost first */
	size_t nst, capst;
	pc_id *path;
	size_t cappath;
	/* per frame context deeper than PC_MAX_STACK, its ancestor at that
	 * depth (0: not found yet); samples cut so */
	pc_id *cut_at;
	size_t ncut_at;
	uint64_t cut;
};

static int proc_eq(const void *ctx, pc_id id, const void *key)
{
	return !strcmp(((const struct cx *)ctx)->proc[id], key);
}

/* Thread-level ids: the rest name the process. */
static int thread_level(unsigned kind)
{
	return kind == PC_ID_THREAD || kind == PC_ID_CORE ||
	       kind == PC_ID_GPUSTREAM;
}

/* The ids of a process (threads 0) or of a thread (1): "NODE 0 RANK 1",
 * "THREAD 2"; a rank's and a thread's real id where the input has one
 * (physical, not its logical id): "RANK 0 PID 32631", "THREAD 1 TID
 * 32633" (the JSON's pid and tid are the drawing order's numbers, which
 * readers print beside the names). */
static void ids_text(char *buf, size_t n, const struct pc_profile *pr,
		     int threads)
{
	size_t len = 0;
	buf[0] = 0;
	for (uint32_t j = 0; j < pr->nids && len < n; j++) {
		const struct pc_idelem *e = &pr->ids[j];
		if (thread_level(e->kind) != threads)
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%s%s %llu",
					len ? " " : "",
					e->kind < PC_ID_NKINDS ?
						pc_idkind_names[e->kind] : "ID",
					(unsigned long long)e->logical);
		int real = (e->kind == PC_ID_RANK || e->kind == PC_ID_THREAD) &&
			   e->physical && e->physical != e->logical;
		if (real && len < n)
			len += (size_t)snprintf(buf + len, n - len, " %s %llu",
						e->kind == PC_ID_RANK ? "PID" :
									"TID",
						(unsigned long long)e->physical);
	}
}

/* A process's sort key: its rank, then the logical values of its other
 * ids that are not a thread's (node, GPU device, context), the first
 * PKEY in all, in order; a thread's (threads 1): its thread-level ids'
 * logical values. */
#define PKEY 4
static void sort_key(uint64_t *key, const struct pc_profile *pr, int threads)
{
	size_t n = 0;
	memset(key, 0, PKEY * sizeof(uint64_t));
	if (!threads) {
		n = 1;
		for (uint32_t j = 0; j < pr->nids; j++)
			if (pr->ids[j].kind == PC_ID_RANK)
				key[0] = pr->ids[j].logical;
	}
	for (uint32_t j = 0; j < pr->nids && n < PKEY; j++)
		if (thread_level(pr->ids[j].kind) == threads &&
		    (threads || pr->ids[j].kind != PC_ID_RANK))
			key[n++] = pr->ids[j].logical;
}
static void proc_key(uint64_t *key, const struct pc_profile *pr)
{
	sort_key(key, pr, 0);
}

/* A process in the drawing order: its key, then its index. */
struct proc_ord {
	uint64_t key[PKEY];
	size_t i;
};
static int by_key(const void *a, const void *b)
{
	const struct proc_ord *p = a, *q = b;
	for (size_t i = 0; i < PKEY; i++)
		if (p->key[i] != q->key[i])
			return p->key[i] < q->key[i] ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* A profile in the drawing order: its process's key, its thread's,
 * its index. */
struct prof_ord {
	uint64_t key[2 * PKEY];
	size_t i;
};
static int by_prof(const void *a, const void *b)
{
	const struct prof_ord *p = a, *q = b;
	for (size_t i = 0; i < 2 * PKEY; i++)
		if (p->key[i] != q->key[i])
			return p->key[i] < q->key[i] ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

static int proc_eq(const void *ctx, pc_id id, const void *key);

/* Numbers the profiles the model holds that are not numbered yet, in
 * the drawing order: threads 1, 2, ... after those numbered before, a
 * new process the next index (the order speedscope draws them in). */
static void number(struct cx *x, const struct pc_db *db)
{
	size_t n = db->nprofiles;
	x->tid = pc_xrealloc(x->tid, n + 1, sizeof(pc_id));
	x->pidx = pc_xrealloc(x->pidx, n + 1, sizeof(pc_id));
	struct prof_ord *o = pc_xmalloc((n - x->nord + 1) * sizeof(*o));
	size_t k = 0;
	for (size_t p = x->nord; p < n; p++) {
		sort_key(o[k].key, &db->profiles[p], 0);
		sort_key(o[k].key + PKEY, &db->profiles[p], 1);
		o[k++].i = p;
	}
	qsort(o, k, sizeof(*o), by_prof);
	for (size_t j = 0; j < k; j++) {
		const struct pc_profile *pr = &db->profiles[o[j].i];
		char pname[1024];
		ids_text(pname, sizeof pname, pr, 0);
		uint64_t h = pc_hash_bytes(pname, strlen(pname));
		pc_id pi = pc_keymap_find(x->pmap, h, proc_eq, x, pname);
		if (pi == PC_NONE) {
			size_t cap = x->capproc;
			PC_GROW(x->proc, x->nproc, x->capproc);
			if (cap != x->capproc) {
				x->pkey = pc_xrealloc(x->pkey, x->capproc * PKEY,
						      sizeof(uint64_t));
				x->named = pc_xrealloc(x->named, x->capproc, 1);
			}
			x->proc[x->nproc] = pc_xstrdup(pname);
			proc_key(x->pkey + x->nproc * PKEY, pr);
			x->named[x->nproc] = 0;
			pc_keymap_insert(x->pmap, h, (pc_id)x->nproc);
			pi = (pc_id)x->nproc++;
		}
		x->pidx[o[j].i] = pi;
		x->tid[o[j].i] = ++x->ntid;
	}
	x->nord = n;
	free(o);
}

static void event_start(struct cx *x)
{
	fputs(x->nevents++ ? ",\n" : "\n", x->of.f);
}

static void meta(struct cx *x, const char *what, unsigned pid, pc_id tid,
		 const char *name)
{
	event_start(x);
	fprintf(x->of.f, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"%s\","
		"\"args\":{\"name\":\"", pid, tid, what);
	pc_put_json(x->of.f, name);
	fputs("\"}}", x->of.f);
}

/* digits of v at p; the end */
static char *put_u64(char *p, uint64_t v)
{
	char t[20];
	int n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = t[--n];
	return p;
}

/* nanoseconds as microseconds with three decimals */
static char *put_us(char *p, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		*p++ = '-';
	p = put_u64(p, a / 1000);
	unsigned f = (unsigned)(a % 1000);
	*p++ = '.';
	*p++ = (char)('0' + f / 100);
	*p++ = (char)('0' + f / 10 % 10);
	*p++ = (char)('0' + f % 10);
	return p;
}

static const char *json_name(struct cx *x, pc_id frame)
{
	if (frame >= x->njname) {
		size_t n = x->db->ncontexts > frame ? x->db->ncontexts : frame + 1;
		x->jname = pc_xrealloc(x->jname, n, sizeof(char *));
		memset(x->jname + x->njname, 0,
		       (n - x->njname) * sizeof(char *));
		x->njname = n;
	}
	if (!x->jname[frame])
		x->jname[frame] = pc_json_escape(
			pc_frame_name(x->db, (struct pc_db *)x->db, frame));
	return x->jname[frame];
}

/* Closes the open frames above depth d at time t, the outermost first:
 * events of equal times nest in the order they come (Chrome's viewer
 * and speedscope read them so). Events are the bulk of a trace's file:
 * formatted by hand. */
static void close_to(struct cx *x, size_t d, uint64_t t, unsigned pid,
		     pc_id tid)
{
	char buf[160];
	for (size_t i = d; i < x->nst; i++) {
		const struct open *o = &x->st[i];
		if (t == o->start)
			continue; /* no time: nothing to show */
		char *p = buf;
		if (x->nevents++)
			*p++ = ',';
		memcpy(p, "\n{\"ph\":\"X\",\"pid\":", 17);
		p = put_u64(p + 17, pid);
		memcpy(p, ",\"tid\":", 7);
		p = put_u64(p + 7, tid);
		memcpy(p, ",\"ts\":", 6);
		p = put_us(p + 6, (int64_t)(o->start - x->origin));
		memcpy(p, ",\"dur\":", 7);
		p = put_us(p + 7, (int64_t)(t - o->start));
		memcpy(p, ",\"name\":\"", 9);
		p += 9;
		fwrite(buf, 1, (size_t)(p - buf), x->of.f);
		fputs(json_name(x, o->frame), x->of.f);
		fputs("\"}", x->of.f);
	}
	if (x->nst > d)
		x->nst = d;
}

struct ts {
	uint64_t time;
	pc_id ctx;
	uint32_t i;
};

static int cmp_ts(const void *a, const void *b)
{
	const struct ts *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The frame at depth PC_MAX_STACK above frame c (found once). */
static pc_id cut_frame(struct cx *x, pc_id c)
{
	const struct pc_db *db = x->db;
	if (c >= x->ncut_at) {
		size_t n = db->ncontexts;
		x->cut_at = pc_xrealloc(x->cut_at, n, sizeof(pc_id));
		memset(x->cut_at + x->ncut_at, 0,
		       (n - x->ncut_at) * sizeof(pc_id));
		x->ncut_at = n;
	}
	if (!x->cut_at[c]) {
		pc_id a = c;
		while (x->fr.depth[a] > PC_MAX_STACK)
			a = x->fr.frame[db->contexts[a].parent];
		x->cut_at[c] = a;
	}
	return x->cut_at[c];
}

static int put_trace(struct cx *x, pc_id p, const struct pc_trace *t,
		     struct pc_err *err)
{
	const struct pc_db *db = x->db;
	if (!t || !t->n)
		return 0;
	if (!x->opened) {
		if (pc_outfile_open(&x->of, x->out, err))
			return -1;
		x->opened = 1;
		fputs("{\"traceEvents\":[", x->of.f);
		struct pc_trace_it it0;
		struct pc_sample s0;
		pc_trace_begin(t, &it0);
		if (pc_trace_next(&it0, &s0) && s0.time >= EPOCH_LIKE)
			x->origin = s0.time - s0.time % DAY_NS;
	}
	pc_frames_update(&x->fr, db);
	const struct pc_profile *pr = &db->profiles[p];
	if (p >= x->nord)
		number(x, db);
	char tname[1024];
	ids_text(tname, sizeof tname, pr, 1);
	if (!tname[0])
		snprintf(tname, sizeof tname, "profile %u", (unsigned)p + 1);
	pc_id pi = x->pidx[p];
	if (!x->named[pi]) {
		x->named[pi] = 1;
		meta(x, "process_name", pi + 1, 0,
		     x->proc[pi][0] ? x->proc[pi] : "profconv");
	}
	unsigned pid = pi + 1;
	pc_id tid = x->tid[p];
	meta(x, "thread_name", pid, tid, tname);
	event_start(x);
	fprintf(x->of.f, "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":"
		"\"thread_sort_index\",\"args\":{\"sort_index\":%u}}", pid, tid,
		(unsigned)tid - 1);
	/* samples in time order (an input may have them otherwise),
	 * equal times in the order given */
	struct ts *sorted = NULL;
	size_t n = t->n;
	if (t->unsorted) {
		struct pc_sample *all = pc_trace_samples(t);
		sorted = pc_xmalloc(n * sizeof(*sorted));
		for (size_t i = 0; i < n; i++)
			sorted[i] = (struct ts){ all[i].time, all[i].ctx,
						 (uint32_t)i };
		free(all);
		qsort(sorted, n, sizeof(*sorted), cmp_ts);
	}
	struct pc_trace_it it;
	pc_trace_begin(t, &it);
	uint64_t last = 0;
	x->nst = 0;
	for (size_t i = 0; i < n; i++) {
		struct pc_sample s;
		if (sorted)
			s = (struct pc_sample){ sorted[i].time, sorted[i].ctx };
		else if (!pc_trace_next(&it, &s))
			break;
		last = s.time;
		/* the frames of the sample's context (the outermost
		 * PC_MAX_STACK of a deeper stack) not open yet, innermost
		 * first: open frame j is at depth j + 1, so the walk up
		 * stops at the first frame that is open where it stands */
		size_t d = 0, k = 0; /* new frames; frames still open */
		pc_id c0 = s.ctx < db->ncontexts ? x->fr.frame[s.ctx] : 0;
		if (x->fr.depth[c0] > PC_MAX_STACK) {
			c0 = cut_frame(x, c0);
			x->cut++;
		}
		for (pc_id c = c0; c; c = x->fr.frame[db->contexts[c].parent]) {
			uint32_t dc = x->fr.depth[c];
			if (dc <= x->nst && x->st[dc - 1].frame == c) {
				k = dc;
				break;
			}
			PC_GROW(x->path, d, x->cappath);
			x->path[d++] = c;
		}
		close_to(x, k, s.time, pid, tid);
		while (d--) {
			PC_GROW(x->st, x->nst, x->capst);
			x->st[x->nst++] = (struct open){ x->path[d], s.time };
		}
	}
	close_to(x, 0, last, pid, tid);
	free(sorted);
	x->traced++;
	/* viewers load some hundreds of MB of JSON: say so once the file
	 * passes that, with the events so far */
	off_t at = ftello(x->of.f);
	if (!x->big && at > ((off_t)256 << 20)) {
		x->big = 1;
		pc_warn(db->diag, "the Chrome trace passes 256 MB (%llu events "
			"so far): chrome://tracing loads about that much, "
			"Perfetto UI about 1 GB of JSON", (unsigned long long)
			x->nevents);
	}
	/* (errno: that of the write that failed, which stdio leaves) */
	return ferror(x->of.f) ? pc_err_set(err, "%s: cannot write: %s",
					    pc_outfile_name(&x->of),
					    strerror(errno ? errno : EIO)) :
				 0;
}

static int ct_profile(struct pc_sink *s, const struct pc_db *db, pc_id p,
		      const struct pc_value *v, size_t n,
		      const struct pc_value *sv, size_t sn,
		      const struct pc_trace *t, struct pc_err *err)
{
	struct cx *x = (struct cx *)s;
	(void)v, (void)n, (void)sv, (void)sn;
	x->db = db;
	return put_trace(x, p, t, err);
}

static struct pc_sink *ct_begin(const char *out,
				const struct pc_export_opts *opts,
				struct pc_err *err)
{
	char name[sizeof((struct cx *)0)->out];
	if (pc_outfile_check(name, sizeof name, out, opts, err))
		return NULL;
	struct cx *x = pc_xcalloc(1, sizeof(*x));
	x->sink.profile = ct_profile;
	strcpy(x->out, name);
	x->o = *opts;
	x->pmap = pc_keymap_new();
	return &x->sink;
}

static void cx_free(struct cx *x)
{
	pc_outfile_abort(&x->of);
	pc_frames_free(&x->fr);
	pc_keymap_free(x->pmap);
	for (size_t i = 0; i < x->nproc; i++)
		free(x->proc[i]);
	free(x->proc);
	free(x->pkey);
	free(x->named);
	free(x->tid);
	free(x->pidx);
	free(x->st);
	free(x->path);
	for (size_t i = 0; i < x->njname; i++)
		free(x->jname[i]);
	free(x->jname);
	free(x->cut_at);
	free(x);
}

static void ct_abort(struct pc_sink *s)
{
	cx_free((struct cx *)s);
}

static int ct_end(struct pc_sink *s, const struct pc_db *db,
		  struct pc_err *err)
{
	struct cx *x = (struct cx *)s;
	x->db = db;
	int rc = 0;
	for (size_t p = db->nflushed; p < db->nprofiles && !rc; p++)
		rc = put_trace(x, (pc_id)p, db->traces ? &db->traces[p] : NULL,
			       err);
	if (x->cut)
		pc_warn(db->diag, "%llu trace sample(s) in stacks deeper than "
			"%u frames: shown at that depth",
			(unsigned long long)x->cut, (unsigned)PC_MAX_STACK);
	if (!rc && !x->traced)
		rc = pc_err_set(err, "nothing to write: the input has no "
				"trace (Chrome trace output is for traces: "
				"ovni, HPCToolkit databases with trace.db or "
				"hpctrace files)");
	if (!rc) {
		/* processes drawn in the order of their ids (RANK 0 above
		 * RANK 1), whatever order their profiles came in */
		struct proc_ord *ord = pc_xmalloc((x->nproc + 1) * sizeof(*ord));
		size_t nn = 0;
		for (size_t i = 0; i < x->nproc; i++) {
			if (!x->named[i])
				continue; /* (no thread of it has a trace) */
			memcpy(ord[nn].key, x->pkey + i * PKEY, sizeof ord[nn].key);
			ord[nn++].i = i;
		}
		qsort(ord, nn, sizeof(*ord), by_key);
		for (size_t i = 0; i < nn; i++) {
			event_start(x);
			fprintf(x->of.f, "{\"ph\":\"M\",\"pid\":%zu,\"tid\":0,"
				"\"name\":\"process_sort_index\",\"args\":"
				"{\"sort_index\":%zu}}", ord[i].i + 1, i);
		}
		free(ord);
		fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":"
		      "{\"creator\":\"profconv " PACKAGE_VERSION "\"", x->of.f);
		fprintf(x->of.f, ",\"time_origin_ns\":\"%llu\"",
			(unsigned long long)x->origin);
		if (db->title) {
			fputs(",\"title\":\"", x->of.f);
			pc_put_json(x->of.f, db->title);
			fputc('"', x->of.f);
		}
		fputs("}}\n", x->of.f);
		rc = pc_outfile_commit(&x->of, db->diag, err);
	}
	cx_free(x);
	return rc;
}

static int ct_write(const struct pc_db *db, const char *out,
		    const struct pc_export_opts *opts, struct pc_err *err)
{
	struct pc_sink *s = ct_begin(out, opts, err);
	return s ? ct_end(s, db, err) : -1;
}

static int ct_claims(const char *out)
{
	return pc_path_ends(out, ".json");
}

const struct pc_exporter pc_export_chrome = {
	.name = "chrome-trace",
	.label = "Chrome trace",
	.description = "Chrome Trace Event JSON for Perfetto UI, "
		       "chrome://tracing and speedscope: each profile's trace "
		       "as nested events (traces only)",
	.claims = ct_claims,
	.names = "*.json",
	.point_only = 1,
	.needs_trace = 1,
	.write = ct_write,
	.begin = ct_begin,
	.end = ct_end,
	.abort = ct_abort,
};
