/* ovni runtime traces: the files of a trace (ovni.c reads them into the
 * model): thread event streams of either byte order with jumbo events,
 * the process metadata of every layout (metadata.json versions 1-3,
 * per-thread JSON), the looms and processes of a trace, and a small u64
 * map both sides use. */
#include "pc.h"
#include "ovni.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- small helpers ---- */

int ov_is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int ov_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* "thread.123" / "thread.123.obs": the number, or -1. */
long long ov_num_after(const char *s, const char *prefix,
			   const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix), n = strlen(s);
	if (n <= pl + sl || strncmp(s, prefix, pl) ||
	    strcmp(s + n - sl, suffix))
		return -1;
	long long v = 0;
	for (size_t i = pl; i < n - sl; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (1LL << 40))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}


void ov_map_put(struct u64map *m, uint64_t k, uint64_t v)
{
	if (2 * (m->n + 1) > m->cap) {
		struct u64map o = *m;
		m->cap = o.cap ? 2 * o.cap : 64;
		m->k = pc_xmalloc(m->cap * sizeof(uint64_t));
		m->v = pc_xmalloc(m->cap * sizeof(uint64_t));
		memset(m->k, 0xff, m->cap * sizeof(uint64_t));
		m->n = 0;
		for (size_t i = 0; i < o.cap; i++)
			if (o.k[i] != UINT64_MAX)
				ov_map_put(m, o.k[i], o.v[i]);
		free(o.k);
		free(o.v);
	}
	size_t i = pc_hash64(k) & (m->cap - 1);
	while (m->k[i] != UINT64_MAX && m->k[i] != k)
		i = (i + 1) & (m->cap - 1);
	if (m->k[i] == UINT64_MAX)
		m->n++;
	m->k[i] = k;
	m->v[i] = v;
}

int ov_map_get(const struct u64map *m, uint64_t k, uint64_t *v)
{
	if (!m->cap)
		return 0;
	size_t i = pc_hash64(k) & (m->cap - 1);
	while (m->k[i] != UINT64_MAX) {
		if (m->k[i] == k) {
			*v = m->v[i];
			return 1;
		}
		i = (i + 1) & (m->cap - 1);
	}
	return 0;
}

void ov_map_free(struct u64map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* ---- streams ---- */





/* Makes n bytes available at buf+pos; 0 if the file has fewer. */
static int rd_fill(struct rd *r, size_t n, struct pc_err *err)
{
	if (r->end - r->pos >= n)
		return 1;
	if (r->base + r->pos + n > r->size)
		return 0;
	memmove(r->buf, r->buf + r->pos, r->end - r->pos);
	r->base += r->pos;
	r->end -= r->pos;
	r->pos = 0;
	if (n > r->cap) {
		r->cap = n;
		r->buf = pc_xrealloc(r->buf, r->cap, 1);
	}
	while (r->end < n) {
		ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			pc_err_at_off(err, r->path, r->base + r->end,
				      "cannot read: %s", got ? strerror(errno) :
				      "file shrank while reading");
			return -1;
		}
		r->end += (size_t)got;
	}
	return 1;
}

/* rd_fill, its usual case (the bytes are there) without a call */
static inline int rd_have(struct rd *r, size_t n, struct pc_err *err)
{
	return r->end - r->pos >= n ? 1 : rd_fill(r, n, err);
}

int ov_rd_open(struct rd *r, const char *path, struct pc_err *err)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->fd = pc_open_file(path, err);
	struct stat st;
	if (r->fd < 0)
		return -1;
	if (fstat(r->fd, &st) != 0) {
		pc_err_set(err, "%s: %s", path, strerror(errno));
		close(r->fd);
		r->fd = -1;
		return -1;
	}
	r->size = (uint64_t)st.st_size;
	/* a stream is read in place where it can be mapped: no copy of its
	 * bytes (a tenth of a conversion's CPU); else through a buffer */
	void *map = r->size > 0 && r->size <= SIZE_MAX ?
			    mmap(NULL, (size_t)r->size, PROT_READ, MAP_PRIVATE,
				 r->fd, 0) :
			    MAP_FAILED;
	if (map != MAP_FAILED) {
		madvise(map, (size_t)r->size, MADV_SEQUENTIAL);
		r->buf = map;
		r->mapped = 1;
		r->given = 0;
		r->cap = r->end = (size_t)r->size;
	} else {
		r->cap = r->size < (1 << 20) ? (size_t)r->size + 64 : 1 << 20;
		r->buf = pc_xmalloc(r->cap);
	}
	if (r->size == 0)
		return pc_err_at_off(err, path, 0, "empty stream: no ovni "
				     "header");
	int f = rd_fill(r, r->size < 8 ? (size_t)r->size : 8, err);
	if (f < 0)
		return -1;
	if (r->size >= 12 && memcmp(r->buf, "ovni", 4) &&
	    r->buf[0] == 0x0f && !memcmp(r->buf + 1, "OHx", 3)) {
		/* the draft specification's streams have no header and
		 * start with the thread's OHx event (16-byte payload) */
		r->pos = 0;
		return 0;
	}
	if (r->size < 8 || memcmp(r->buf, "ovni", 4))
		return pc_err_at_off(err, path, 0, "not an ovni stream: "
				     "the header does not start with "
				     "\"ovni\"");
	uint32_t ver = rd32(r->buf + 4, 0);
	if (ver == 0x01000000)
		r->swap = 1;
	else if (ver != 1)
		return pc_err_at_off(err, path, 4, "stream version %u (0x%08x)"
				     "; only version 1 is known",
				     (unsigned)ver, (unsigned)ver);
	r->pos = 8;
	return 0;
}

void ov_rd_close(struct rd *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->mapped)
		munmap(r->buf, r->cap);
	else
		free(r->buf);
	r->mapped = 0;
	r->fd = -1;
	r->buf = NULL;
}

/* 1: an event; 0: end of the stream; -1: error. */
int ov_rd_next(struct rd *r, struct ev *e, struct pc_err *err)
{
	uint64_t off = r->base + r->pos;
	if (off == r->size)
		return 0;
	/* the pages read are given back as the stream goes (mapped, they
	 * counted in the peak: a 160 MB stream raised it by 60 MB); one
	 * read again comes back from the file */
	if (r->mapped && r->pos - r->given >= OV_GIVE_BACK) {
		pc_release(r->buf + r->given, r->pos - r->given);
		r->given = r->pos;
	}
	int f = rd_have(r, 12, err);
	if (f < 0)
		return -1;
	if (!f)
		return pc_err_at_off(err, r->path, off, "truncated event: "
				     "%llu bytes left, an event needs 12",
				     (unsigned long long)(r->size - off));
	const uint8_t *p = r->buf + r->pos;
	ov_ev_head(e, p, off);
	if ((e->flags & 1) && e->psize != 4)
		return pc_err_at_off(err, r->path, off, "jumbo event %c%c%c "
				     "with a payload of %u bytes (must be 4)",
				     e->m, e->c, e->v, e->psize);
	if (e->psize) {
		f = rd_have(r, 12 + e->psize, err);
		if (f < 0)
			return -1;
		if (!f)
			return pc_err_at_off(err, r->path, off, "event %c%c%c: "
					     "payload of %u bytes runs past "
					     "the end of the stream", e->m,
					     e->c, e->v, e->psize);
		p = r->buf + r->pos;
	}
	e->clock = rd64(p + 4, r->swap);
	e->payload = p + 12;
	size_t n = 12 + e->psize;
	if (e->flags & 1) {
		e->jlen = rd32(e->payload, r->swap);
		if (off + n + e->jlen > r->size)
			return pc_err_at_off(err, r->path, off, "jumbo event "
					     "%c%c%c of %u bytes runs past the "
					     "end of the stream", e->m, e->c,
					     e->v, (unsigned)e->jlen);
		if (r->mapped) { /* in place: skipped or kept alike */
			e->jdata = e->jlen <= OV_JUMBO_KEEP ? p + n : NULL;
			r->pos += n + e->jlen;
		} else if (e->jlen <= OV_JUMBO_KEEP) {
			f = rd_have(r, n + e->jlen, err);
			if (f <= 0)
				return -1;
			p = r->buf + r->pos;
			e->payload = p + 12;
			e->jdata = p + n;
			r->pos += n + e->jlen;
		} else {
			/* skip the data without keeping it */
			uint64_t to = off + n + e->jlen;
			if (lseek(r->fd, (off_t)to, SEEK_SET) < 0)
				return pc_err_at_off(err, r->path, off,
						     "cannot seek: %s",
						     strerror(errno));
			/* the payload must stay valid: copy it first */
			memmove(r->buf, p, n);
			r->base = to - n;
			r->pos = n;
			r->end = n;
			e->payload = r->buf + 12;
		}
		return 1;
	}
	r->pos += n;
	return 1;
}

/* ---- metadata ---- */




static int json_load(const char *path, struct json_object **out,
		     struct pc_err *err)
{
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0;
	FILE *f = pc_fopen_file(path, err);
	if (!f)
		return -1;
	for (;;) {
		PC_GROW(buf, n + 4096, cap);
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
		if (n > (64u << 20)) {
			fclose(f);
			free(buf);
			return pc_err_set(err, "%s: metadata larger than 64 MB",
					  path);
		}
	}
	fclose(f);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o =
		json_tokener_parse_ex(tok, (const char *)buf, (int)n);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	int rc = 0;
	if (!o || je != json_tokener_success) {
		rc = pc_err_at_off(err, path, end, "metadata is not JSON (%s)",
				   je == json_tokener_continue || o ?
					   "it ends inside a value" :
					   json_tokener_error_desc(je));
	} else {
		while (end < n && (buf[end] == ' ' || buf[end] == '\n' ||
				   buf[end] == '\t' || buf[end] == '\r'))
			end++;
		if (end < n)
			rc = pc_err_at_off(err, path, end, "metadata is not "
					   "JSON: text after the object");
		else if (!json_object_is_type(o, json_type_object))
			rc = pc_err_at_off(err, path, 0, "metadata is not a "
					   "JSON object");
	}
	free(buf);
	if (rc) {
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* The value at a dotted path ("ovni.lib.version"), or NULL. */
static struct json_object *jget(struct json_object *o, const char *path)
{
	char key[128];
	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		struct json_object *v;
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, key, &v))
			return NULL;
		o = v;
		path += n + (dot ? 1 : 0);
	}
	return o;
}

/* "MAJOR.MINOR.PATCH" into v: 0, or -1. */
static int version3(const char *s, long v[3])
{
	for (int i = 0; i < 3; i++) {
		char *end;
		if (*s < '0' || *s > '9')
			return -1;
		v[i] = strtol(s, &end, 10);
		s = end;
		if (*s != (i < 2 ? '.' : '\0'))
			return -1;
		s += i < 2;
	}
	return 0;
}

/* The models a thread's metadata requires ("ovni.require": {"nosv":
 * "2.0.0", ...}) against those profconv knows (ovni 1.14's), by
 * ovniemu's rule (src/emu/model.c): the same major version and a minor
 * one no newer; a model profconv does not know is not probed. */
static int check_require(struct proc *p, struct json_object *o,
			 const char *path, struct pc_err *err)
{
	struct json_object *req = jget(o, "ovni.require");
	if (!req || !json_object_is_type(req, json_type_object))
		return 0;
	p->has_require = 1;
	json_object_object_foreach(req, key, val) {
		const struct ov_model *m = NULL;
		int i = 0;
		for (; ov_models[i].name && !m; i++)
			if (!strcmp(ov_models[i].name, key))
				m = &ov_models[i];
		if (!m)
			continue;
		p->required |= 1u << (i - 1);
		const char *want = json_object_is_type(val, json_type_string) ?
					   json_object_get_string(val) : "";
		long w[3], h[3];
		if (version3(want, w) || version3(m->version, h))
			return pc_err_set(err, "%s: 'ovni.require' gives the %s "
					  "model the version '%.40s', not "
					  "MAJOR.MINOR.PATCH", path, key, want);
		if (w[0] != h[0] || w[1] > h[1])
			return pc_err_set(err, "%s: the trace requires the %s "
					  "model %s; profconv knows %s (ovni "
					  "1.14's), and reads, as ovniemu does, "
					  "the same major version and no newer "
					  "minor one", path, key, want,
					  m->version);
	}
	return 0;
}

static int jint(struct json_object *o, const char *path, int64_t *v)
{
	struct json_object *x = jget(o, path);
	if (!x || !json_object_is_type(x, json_type_int))
		return 0;
	*v = json_object_get_int64(x);
	return 1;
}

static int need_int(struct json_object *o, const char *file,
		    const char *key, int64_t *v, struct pc_err *err)
{
	if (jint(o, key, v))
		return 0;
	return pc_err_set(err, "%s: metadata lacks the integer key '%s'", file,
			  key);
}

/* Whether a JSON string holds a NUL (\u0000): read up to it. */
static int has_nul(struct json_object *o)
{
	return (size_t)json_object_get_string_len(o) !=
	       strlen(json_object_get_string(o));
}

static void proc_marks(struct proc *p, struct json_object *root,
		       const char *json)
{
	struct json_object *m = jget(root, "ovni.mark");
	if (!m || !json_object_is_type(m, json_type_object))
		return;
	json_object_object_foreach(m, key, val)
	{
		char *end;
		long long type = strtoll(key, &end, 10);
		if (*end || !json_object_is_type(val, json_type_object))
			continue;
		size_t i;
		for (i = 0; i < p->nmarks; i++)
			if (p->marks[i].type == type)
				break;
		if (i == p->nmarks) {
			PC_GROW(p->marks, p->nmarks, p->capmarks);
			memset(&p->marks[i], 0, sizeof(p->marks[i]));
			p->marks[i].type = type;
			p->nmarks++;
		}
		struct json_object *t = jget(val, "title");
		if (t && json_object_is_type(t, json_type_string) &&
		    !p->marks[i].title) {
			p->marks[i].title = pc_xstrdup(json_object_get_string(t));
			if (has_nul(t) && !p->nul_json)
				p->nul_json = json;
		}
		struct json_object *l = jget(val, "labels");
		if (l && json_object_is_type(l, json_type_object)) {
			if (!p->marks[i].labels) {
				p->marks[i].labels = json_object_new_object();
			}
			json_object_object_foreach(l, lk, lv)
			{
				struct json_object *old;
				if (json_object_is_type(lv, json_type_string) &&
				    has_nul(lv) && !p->nul_json)
					p->nul_json = json;
				if (!json_object_object_get_ex(
					    p->marks[i].labels, lk, &old))
					json_object_object_add(
						p->marks[i].labels, lk,
						json_object_get(lv));
			}
		}
	}
}

/* Letters of the models in ovni 1.14; a v1 trace of libovni 1.0 (layout
 * L0) used M for its OpenMP model (table model "openmp-1.0"). */
static void proc_letters(struct proc *p)
{
	for (int i = 0; i < 256; i++)
		p->letter_model[i] = -1;
	for (int i = 0; ov_models[i].name; i++)
		if (ov_models[i].letter)
			p->letter_model[(unsigned char)ov_models[i].letter] =
				ov_model_find(ov_models[i].name);
	if (p->layout == 0)
		p->letter_model['M'] = ov_model_find("openmp-1.0");
}

/* The CPUs a v3 stream.json gives (ovni.loom_cpus: an array of
 * {"index", "phyid"}), appended to p->cpus. */
static int proc_cpus(struct proc *p, struct json_object *o, const char *json,
		     struct pc_err *err)
{
	struct json_object *a = jget(o, "ovni.loom_cpus");
	if (!a)
		return 0; /* another stream of the loom may give them */
	if (!json_object_is_type(a, json_type_array))
		return pc_err_set(err, "%s: 'ovni.loom_cpus' is not an array",
				  json);
	size_t n = json_object_array_length(a);
	if (!n)
		return pc_err_set(err, "%s: 'ovni.loom_cpus' is empty (ovniemu "
				  "refuses an empty list of CPUs)", json);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(a, i);
		int64_t index, phyid;
		if (!jint(c, "index", &index) || !jint(c, "phyid", &phyid))
			return pc_err_set(err, "%s: 'ovni.loom_cpus' entry %zu "
					  "lacks the integer 'index' or "
					  "'phyid'", json, i);
		if (index < 0 || phyid < 0)
			return pc_err_set(err, "%s: 'ovni.loom_cpus' entry %zu "
					  "has a negative %s (%lld)", json, i,
					  index < 0 ? "index" : "phyid",
					  (long long)(index < 0 ? index : phyid));
		PC_GROW(p->cpus, p->ncpus, p->capcpus);
		p->cpus[p->ncpus++] = (struct ov_cpu){ index, phyid, json };
	}
	return 0;
}

void ov_proc_free(struct proc *p)
{
	free(p->cpus);
	for (size_t i = 0; i < p->nst; i++) {
		free(p->st[i].obs);
		free(p->st[i].json);
	}
	free(p->st);
	for (size_t i = 0; i < p->nmarks; i++) {
		free(p->marks[i].title);
		json_object_put(p->marks[i].labels);
	}
	free(p->marks);
	free(p->lib_buf);
	memset(p, 0, sizeof(*p));
}

static int cmp_stream(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

char *ov_join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = pc_xmalloc(n);
	snprintf(s, n, "%s/%s", a, b);
	return s;
}

/* Finds the streams of a process directory and reads its metadata. */
/* The thread streams of a process directory (p->st, sorted) and its
 * layout, from the directory listing alone. */
int ov_proc_list(struct proc *p, const char *dir, struct pc_err *err)
{
	size_t n;
	char **names = pc_list_dir(dir, &n);
	size_t cap = 0;
	int l0 = 0, l1 = 0, l3 = 0;
	for (size_t i = 0; i < n; i++) {
		long long tid;
		char *full = ov_join(dir, names[i]);
		struct stream s = { 0 };
		if ((tid = ov_num_after(names[i], "thread.", ".obs")) >= 0 &&
		    ov_is_file(full)) {
			char js[64];
			snprintf(js, sizeof js, "thread.%lld.json", tid);
			char *jp = ov_join(dir, js);
			s = (struct stream){ pc_xstrdup(full),
					     ov_is_file(jp) ? jp : NULL, tid };
			if (!s.json)
				free(jp);
			l1 = 1;
		} else if ((tid = ov_num_after(names[i], "thread.", "")) >= 0) {
			if (ov_is_dir(full)) {
				s = (struct stream){ ov_join(full, "stream.obs"),
						     ov_join(full, "stream.json"),
						     tid };
				l3 = 1;
			} else if (ov_is_file(full)) {
				s = (struct stream){ pc_xstrdup(full), NULL,
						     tid };
				l0 = 1;
			}
		}
		free(full);
		if (s.obs) {
			PC_GROW(p->st, p->nst, cap);
			p->st[p->nst++] = s;
		}
	}
	pc_free_list(names, n);
	if (p->nst)
		qsort(p->st, p->nst, sizeof(*p->st), cmp_stream);
	p->layout = l3 ? 3 : l1 ? 1 : l0 ? 0 : 3;
	if (l1)
		for (size_t i = 0; i < p->nst; i++)
			if (p->st[i].json)
				p->layout = 2;
	if ((l3 && (l0 || l1)) || (l0 && l1))
		return pc_err_set(err, "%s: streams of two layouts in one "
				  "process directory", dir);
	return 0;
}

/* A process directory: its streams (proc_list), then its metadata. */
int ov_proc_open(struct proc *p, const char *dir, struct pc_err *err)
{
	int rc = ov_proc_list(p, dir, err);
	if (rc)
		return rc;
	p->rank = -1;
	proc_letters(p);
	if (p->layout < 3) {
		char *mp = ov_join(dir, "metadata.json");
		struct json_object *o = NULL;
		int64_t v = 0, app = 0;
		if (json_load(mp, &o, err) || need_int(o, mp, "version", &v, err) ||
		    need_int(o, mp, "app_id", &app, err)) {
			rc = -1;
		} else if (v != 1 && v != 2) {
			rc = pc_err_set(err, "%s: metadata version %lld with "
					"layout L%d (1 or 2 expected)", mp,
					(long long)v, p->layout);
		} else if (v == 1 && p->layout == 2) {
			rc = pc_err_set(err, "%s: metadata version 1 beside "
					"thread.*.json files", mp);
		} else {
			if (jint(o, "rank", &v))
				p->rank = v;
			struct json_object *mv = jget(o, "model_version");
			if (p->layout == 0 && mv &&
			    json_object_is_type(mv, json_type_string)) {
				/* "O1 V1 ... M1": 1.0's letters */
				p->lib = "1.0";
			}
		}
		json_object_put(o);
		free(mp);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < p->nst && !rc; i++) {
		if (!p->st[i].json)
			continue;
		struct json_object *o = NULL;
		int64_t v = 0, x = 0;
		struct stat sb;
		if (p->layout == 3 && stat(p->st[i].json, &sb) != 0)
			rc = pc_err_set(err, "%s: missing (every thread.TID "
					"directory has one)", p->st[i].json);
		else if (json_load(p->st[i].json, &o, err) ||
			 need_int(o, p->st[i].json, "version", &v, err))
			rc = -1;
		else if (v != p->layout)
			rc = pc_err_set(err, "%s: metadata version %lld in a "
					"layout L%d trace (%d expected)",
					p->st[i].json, (long long)v, p->layout,
					p->layout);
		else if (!jget(o, "ovni") ||
			 !json_object_is_type(jget(o, "ovni"), json_type_object))
			rc = pc_err_set(err, "%s: metadata lacks the object "
					"'ovni'", p->st[i].json);
		else if (v == 3 &&
			 (need_int(o, p->st[i].json, "ovni.tid", &x, err) ||
			  need_int(o, p->st[i].json, "ovni.pid", &x, err)))
			rc = -1;
		if (!rc)
			rc = check_require(p, o, p->st[i].json, err);
		if (!rc && p->layout == 3) {
			int64_t fin = 0;
			p->unfinished |= !jint(o, "ovni.finished", &fin) || fin != 1;
			rc = proc_cpus(p, o, p->st[i].json, err);
		}
		if (!rc) {
			if (jint(o, "ovni.rank", &x))
				p->rank = x;
			proc_marks(p, o, p->st[i].json);
			struct json_object *lv = jget(o, "ovni.lib.version");
			if (lv && json_object_is_type(lv, json_type_string) &&
			    !p->lib_buf)
				p->lib = p->lib_buf =
					pc_xstrdup(json_object_get_string(lv));
		}
		json_object_put(o);
	}
	return rc;
}

/* ---- the looms and processes of a trace ---- */

static int cmp_proc(const void *a, const void *b)
{
	long long x = ov_num_after(*(char *const *)a, "proc.", "");
	long long y = ov_num_after(*(char *const *)b, "proc.", "");
	return (x > y) - (x < y);
}

/* The proc.PID entries of a loom, by PID (*np of them). */
char **ov_loom_procs(const char *dir, size_t *np)
{
	size_t n;
	char **names = pc_list_dir(dir, &n);
	*np = 0;
	for (size_t i = 0; i < n; i++)
		if (ov_num_after(names[i], "proc.", "") >= 0)
			names[(*np)++] = names[i];
		else
			free(names[i]);
	if (*np)
		qsort(names, *np, sizeof(*names), cmp_proc);
	return names;
}

int ov_loom_cpus(const char *dir, struct pc_err *err)
{
	size_t np;
	char **names = ov_loom_procs(dir, &np);
	struct lcpu {
		int64_t index, phyid;
		char *json;
	} *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0, l3 = 0, unfinished = 0;
	for (size_t i = 0; i < np && !rc; i++) {
		char *pd = ov_join(dir, names[i]);
		struct proc p = { 0 };
		if (ov_is_dir(pd) && !(rc = ov_proc_open(&p, pd, err))) {
			l3 |= p.layout == 3 && p.nst;
			unfinished |= p.unfinished;
			for (size_t c = 0; c < p.ncpus && !rc; c++) {
				const struct ov_cpu *x = &p.cpus[c];
				size_t k = 0;
				while (k < n && v[k].phyid != x->phyid)
					k++;
				if (k < n && v[k].index != x->index)
					rc = pc_err_set(err, "%s: the CPU of "
						"phyid %lld has the index %lld "
						"here and %lld in %s (ovniemu: "
						"mismatch index in existing "
						"cpu)", x->json,
						(long long)x->phyid,
						(long long)x->index,
						(long long)v[k].index, v[k].json);
				if (k < n)
					continue;
				PC_GROW(v, n, cap);
				v[n++] = (struct lcpu){ x->index, x->phyid,
							pc_xstrdup(x->json) };
			}
		}
		ov_proc_free(&p);
		free(pd);
	}
	pc_free_list(names, np);
	/* (a thread that crashed wrote no CPUs: its stream's end says) */
	if (!rc && l3 && !n && !unfinished)
		rc = pc_err_set(err, "%s: no stream of the loom gives its CPUs "
				"('ovni.loom_cpus' in stream.json): a loom "
				"without physical CPUs, which ovniemu refuses",
				dir);
	for (size_t k = 0; k < n && !rc; k++) {
		if (v[k].index >= (int64_t)n)
			rc = pc_err_set(err, "%s: the CPU of phyid %lld has the "
					"index %lld, past the loom's %zu CPUs "
					"(ovniemu: cpu index out of bounds)",
					v[k].json, (long long)v[k].phyid,
					(long long)v[k].index, n);
		for (size_t j = 0; j < k && !rc; j++)
			if (v[j].index == v[k].index)
				rc = pc_err_set(err, "%s: the CPU index %lld is "
						"given to phyid %lld here and "
						"to phyid %lld in %s (ovniemu: "
						"cpu with index %lld already "
						"taken)", v[k].json,
						(long long)v[k].index,
						(long long)v[k].phyid,
						(long long)v[j].phyid, v[j].json,
						(long long)v[k].index);
	}
	for (size_t k = 0; k < n; k++)
		free(v[k].json);
	free(v);
	return rc;
}

/* fn(p, ctx) for each process of the looms that can be read (its
 * streams listed; with meta, its metadata read too), until fn gives
 * nonzero: that, else 0. A process that cannot be read is passed over
 * (reading the trace says why). */
static int each_proc(char **looms, size_t nl, int meta,
		     int (*fn)(const struct proc *p, void *ctx), void *ctx)
{
	int r = 0;
	for (size_t l = 0; l < nl && !r; l++) {
		size_t np;
		char **names = ov_loom_procs(looms[l], &np);
		for (size_t i = 0; i < np && !r; i++) {
			char *pd = ov_join(looms[l], names[i]);
			struct proc p = { 0 };
			struct pc_err e;
			if (ov_is_dir(pd) && !(meta ? ov_proc_open(&p, pd, &e) :
						     ov_proc_list(&p, pd, &e)))
				r = fn(&p, ctx);
			ov_proc_free(&p);
			free(pd);
		}
		pc_free_list(names, np);
	}
	return r;
}

static int add_streams(const struct proc *p, void *ctx)
{
	*(size_t *)ctx += p->nst;
	return 0;
}

/* The number of thread streams of the looms (a profile each), from the
 * directory listings alone: known before any stream is read, as
 * trace.db's header needs it when the profiles stream to the writer.
 * A process that cannot be read counts none (reading it fails). */
size_t ov_count_streams(char **looms, size_t nl)
{
	size_t total = 0;
	each_proc(looms, nl, 0, add_streams, &total);
	return total;
}

static int kernel_on(const struct proc *p, void *ctx)
{
	return !p->has_require || (p->required & (1u << *(int *)ctx));
}

/* Whether the kernel model is enabled (some process requires it, or
 * says nothing of what it requires): then the metric of the time off
 * CPU is made, before any stream is read. */
int ov_kernel_model(char **looms, size_t nl)
{
	int k = ov_model_find("kernel");
	return each_proc(looms, nl, 1, kernel_on, &k);
}

/* The directory holding the loom.* directories, or the loom itself. */
int ov_trace_looms(const char *path, char **root, char ***looms,
		   size_t *n)
{
	*looms = NULL;
	*n = 0;
	char *sub = ov_join(path, "ovni");
	if (ov_is_dir(sub)) {
		*root = sub;
	} else {
		free(sub);
		if (pc_basename_starts(path, "loom.")) {
			/* one loom: clock-offsets.txt lives beside it */
			*root = NULL;
			*looms = pc_xmalloc(sizeof(char *));
			(*looms)[(*n)++] = pc_xstrdup(path);
			return 0;
		}
		*root = pc_xstrdup(path);
	}
	size_t k;
	char **names = pc_list_dir(*root, &k);
	size_t cap = 0;
	for (size_t i = 0; i < k; i++) {
		char *full = ov_join(*root, names[i]);
		if (!strncmp(names[i], "loom.", 5) && ov_is_dir(full)) {
			PC_GROW(*looms, *n, cap);
			(*looms)[(*n)++] = full;
		} else {
			free(full);
		}
	}
	pc_free_list(names, k);
	return 0;
}
