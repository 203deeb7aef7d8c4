/* Old HPCToolkit databases: experiment.xml, read with libxml2's
 * streaming reader (the tables, the tree, inline values); and the
 * sorted id tables the family uses (hpctoolkit_legacy.h). */
#include "pc.h"
#include "internal.h"
#include "hpctoolkit_legacy.h"
#include "hpctoolkit_legacy_libxml.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Sorted id -> value tables.                                         */

void idtab_add(struct idtab *t, uint32_t id, uint32_t v)
{
	PC_GROW(t->e, t->n, t->cap);
	t->e[t->n++] = (struct idv){ id, v };
}

static int cmp_idv(const void *a, const void *b)
{
	const struct idv *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

int64_t idtab_sort(struct idtab *t)
{
	if (t->n)
		qsort(t->e, t->n, sizeof(*t->e), cmp_idv);
	/* a direct table where it is at most 4 entries an id: the values
	 * look a context and a column up per value */
	free(t->dense);
	t->dense = NULL;
	t->ndense = 0;
	if (t->n && t->e[t->n - 1].id / 4 <= t->n) {
		t->ndense = (size_t)t->e[t->n - 1].id + 1;
		t->dense = pc_xmalloc(t->ndense * sizeof(uint32_t));
		for (size_t i = 0; i < t->ndense; i++)
			t->dense[i] = UINT32_MAX;
		/* an id listed twice: the first, as the search finds */
		for (size_t i = t->n; i-- > 0;)
			t->dense[t->e[i].id] = t->e[i].v;
	}
	for (size_t i = 1; i < t->n; i++)
		if (t->e[i].id == t->e[i - 1].id)
			return t->e[i].id;
	return -1;
}

/* idtab_get where the ids are not dense: a binary search. */
int idtab_search(const struct idtab *t, uint32_t id, uint32_t *v)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->e[lo].id == id) {
		*v = t->e[lo].v;
		return 1;
	}
	return 0;
}

void idtab_free(struct idtab *t)
{
	free(t->e);
	free(t->dense);
}

static int xml_fail(struct legacy *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int xml_fail(struct legacy *r, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* the element's own line (the parser may have read ahead) */
	xmlNodePtr n = xmlTextReaderCurrentNode(r->xr);
	long line = n ? xmlGetLineNo(n) : -1;
	if (line <= 0)
		line = xmlTextReaderGetParserLineNumber(r->xr);
	return pc_err_at_line(r->err, r->xml, (uint64_t)line, "%s", msg);
}

/* libxml2's errors that bypass the reader's handler (encoding and I/O
 * errors of the input layer): the first line is kept for the message. */
static void xml_generic_error(void *arg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void xml_generic_error(void *arg, const char *fmt, ...)
{
	struct legacy *r = arg;
	if (r->xml_err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->xml_err, sizeof r->xml_err, fmt, ap);
	va_end(ap);
	r->xml_err[strcspn(r->xml_err, "\n")] = 0;
}

static void xml_error(void *arg, xmlErrorPtr e)
{
	struct legacy *r = arg;
	if (r->xml_err[0] || !e)
		return;
	snprintf(r->xml_err, sizeof r->xml_err, "%s",
		 e->message ? e->message : "XML error");
	size_t n = strlen(r->xml_err);
	while (n && (r->xml_err[n - 1] == '\n' || r->xml_err[n - 1] == ' '))
		r->xml_err[--n] = 0;
	r->xml_err_line = e->line;
}

/* ------------------------------------------------------------------ */
/* Attributes of the current element, copied out of the reader.       */

enum {
	A_I, A_N, A_L, A_LM, A_F, A_V, A_IT, A_T, A_SHOW,
	A_DBID, A_FRM, A_A, A_U, A_NATTR
};
static const char *const attr_names[A_NATTR] = {
	"i", "n", "l", "lm", "f", "v", "it", "t", "show",
	"db-id", "frm", "a", "u",
};

struct attrs {
	char *val[A_NATTR];
	char *buf;
	size_t cap;
};

static void read_attrs(struct legacy *r, struct attrs *a)
{
	size_t used = 0;
	size_t off[A_NATTR];
	for (int k = 0; k < A_NATTR; k++)
		off[k] = SIZE_MAX;
	while (xmlTextReaderMoveToNextAttribute(r->xr) == 1) {
		const char *name = (const char *)xmlTextReaderConstLocalName(r->xr);
		int k = 0;
		while (k < A_NATTR && strcmp(name, attr_names[k]))
			k++;
		if (k == A_NATTR)
			continue;
		const char *v = (const char *)xmlTextReaderConstValue(r->xr);
		size_t len = v ? strlen(v) : 0;
		if (used + len + 1 > a->cap) {
			a->cap = (used + len + 1) * 2;
			a->buf = pc_xrealloc(a->buf, a->cap, 1);
		}
		memcpy(a->buf + used, v ? v : "", len + 1);
		off[k] = used;
		used += len + 1;
	}
	xmlTextReaderMoveToElement(r->xr);
	for (int k = 0; k < A_NATTR; k++)
		a->val[k] = off[k] == SIZE_MAX ? NULL : a->buf + off[k];
}

/* An unsigned id; -1 with the error set if absent or not a number. */
static int get_u32(struct legacy *r, const struct attrs *a, int k,
		   uint32_t *out)
{
	const char *s = a->val[k];
	if (!s)
		return xml_fail(r, "attribute '%s' missing", attr_names[k]);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || *end || errno || v > UINT32_MAX || *s == '-')
		return xml_fail(r, "attribute %s=\"%s\" is not an id",
				attr_names[k], s);
	*out = (uint32_t)v;
	return 0;
}

/* A signed context id (wrappers have negative ones). */
static int get_i64(struct legacy *r, const struct attrs *a, int k,
		   int64_t *out)
{
	const char *s = a->val[k];
	if (!s)
		return xml_fail(r, "attribute '%s' missing", attr_names[k]);
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v > UINT32_MAX || v < -(long long)UINT32_MAX)
		return xml_fail(r, "attribute %s=\"%s\" is not a context id",
				attr_names[k], s);
	*out = v;
	return 0;
}

/* l="12" or l="12-30": the first line. */
static uint32_t get_line(const struct attrs *a)
{
	const char *s = a->val[A_L];
	if (!s)
		return 0;
	unsigned long long v = strtoull(s, NULL, 10);
	return v > UINT32_MAX ? 0 : (uint32_t)v;
}

static uint64_t get_hex(const struct attrs *a)
{
	const char *s = a->val[A_V];
	if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return 0;
	return strtoull(s + 2, NULL, 16);
}

static int is_number(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* A table reference: an id of the table, or (older writers) the name
 * itself. *v PC_NONE if absent. */
static int table_ref(struct legacy *r, const struct attrs *a, int k,
		     const struct idtab *t, const char *what, uint32_t *v)
{
	*v = PC_NONE;
	if (!a->val[k])
		return 0;
	if (!is_number(a->val[k]))
		return 1; /* a name: the caller uses the string */
	uint32_t id;
	if (get_u32(r, a, k, &id))
		return -1;
	if (!idtab_get(t, id, v))
		return xml_fail(r, "%s %u is not in the %s table", what, id,
				what);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The header tables.                                                 */

static uint8_t scope_of(const char *name, const char *t)
{
	if (t && !strcmp(t, "inclusive"))
		return SC_INCL;
	if (t && !strcmp(t, "exclusive"))
		return SC_EXCL;
	size_t n = strlen(name);
	if (n >= 4 && !strcmp(name + n - 4, " (I)"))
		return SC_INCL;
	if (n >= 4 && !strcmp(name + n - 4, " (E)"))
		return SC_EXCL;
	return SC_NONE;
}

/* The name without its " (I)"/" (E)" suffix. */
const char *legacy_base_name(struct legacy *r, const char *name)
{
	size_t n = strlen(name);
	if (n >= 4 && (!strcmp(name + n - 4, " (I)") ||
		       !strcmp(name + n - 4, " (E)")))
		n -= 4;
	return pc_intern(r->db, name, n);
}

/* The statistics over threads that hpcprof -M stats adds to each
 * metric: NAME:Mean (I), NAME:StdDev (E), ... */
static int is_stat(const char *name)
{
	static const char *const st[] = { ":Mean", ":StdDev", ":CfVar",
					   ":Min", ":Max" };
	for (size_t k = 0; k < sizeof st / sizeof *st; k++) {
		const char *p = strstr(name, st[k]);
		if (p && (!strcmp(p + strlen(st[k]), " (I)") ||
			  !strcmp(p + strlen(st[k]), " (E)")))
			return 1;
	}
	return 0;
}

int legacy_add_column(struct legacy *r, uint32_t id, const char *name,
		      const char *t, int32_t dbid)
{
	PC_GROW(r->cols, r->ncols, r->capcols);
	struct mcol *c = &r->cols[r->ncols];
	c->scope = scope_of(name, t);
	c->metric = pc_metric_get(r->db, legacy_base_name(r, name), NULL, NULL);
	c->dbid = dbid;
	idtab_add(&r->col_t, id, (uint32_t)r->ncols);
	r->ncols++;
	return 0;
}

static int header_element(struct legacy *r, const char *el,
			  const struct attrs *a)
{
	uint32_t id;
	if (!strcmp(el, "Header")) {
		if (a->val[A_N] && !r->db->title)
			r->db->title = pc_intern_cstr(r->db, a->val[A_N]);
	} else if (!strcmp(el, "LoadModule")) {
		if (get_u32(r, a, A_I, &id))
			return -1;
		if (!a->val[A_N])
			return xml_fail(r, "LoadModule %u without a name", id);
		PC_GROW(r->mods, r->nmods, r->capmods);
		r->mods[r->nmods] = pc_module_get(r->db, a->val[A_N]);
		idtab_add(&r->mod_t, id, (uint32_t)r->nmods++);
	} else if (!strcmp(el, "File")) {
		if (get_u32(r, a, A_I, &id))
			return -1;
		PC_GROW(r->files, r->nfiles, r->capfiles);
		r->files[r->nfiles] = pc_file_get(r->db, a->val[A_N] ?
							 a->val[A_N] : "");
		idtab_add(&r->file_t, id, (uint32_t)r->nfiles++);
	} else if (!strcmp(el, "Procedure")) {
		if (get_u32(r, a, A_I, &id))
			return -1;
		PC_GROW(r->procs, r->nprocs, r->capprocs);
		r->procs[r->nprocs] = (struct proc){
			.name = pc_intern_cstr(r->db, a->val[A_N] ? a->val[A_N]
								 : ""),
			.offset = get_hex(a),
		};
		idtab_add(&r->proc_t, id, (uint32_t)r->nprocs++);
	} else if (!strcmp(el, "Identifier")) {
		if (get_u32(r, a, A_I, &id))
			return -1;
		if (id > 0x3fff)
			return xml_fail(r, "identifier kind %u out of range", id);
		for (unsigned k = 0; k < PC_ID_NKINDS && a->val[A_N]; k++)
			if (!strcmp(a->val[A_N], pc_idkind_names[k]))
				idtab_add(&r->kind_t, id, k);
	} else if (!strcmp(el, "Metric")) {
		if (get_u32(r, a, A_I, &id))
			return -1;
		if (!a->val[A_N])
			return xml_fail(r, "Metric %u without a name", id);
		PC_GROW(r->xm, r->nxm, r->capxm);
		r->xm[r->nxm] = (struct xmetric){
			.id = id,
			.name = pc_intern_cstr(r->db, a->val[A_N]),
			.scope = scope_of(a->val[A_N], a->val[A_T]),
			.derived = a->val[A_V] && !strcmp(a->val[A_V], "derived"),
			.hidden = a->val[A_SHOW] && !strcmp(a->val[A_SHOW], "4"),
			.stat = a->val[A_V] &&
				!strncmp(a->val[A_V], "derived", 7) &&
				is_stat(a->val[A_N]),
		};
		idtab_add(&r->xm_t, id, (uint32_t)r->nxm++);
		r->in_metric = 1;
	} else if (!strcmp(el, "MetricFormula")) {
		/* a formula other than a plain view of one column or a
		 * sum makes a metric the old viewer computed */
		const char *frm = a->val[A_FRM];
		if (r->in_metric && a->val[A_T] && frm &&
		    !strcmp(a->val[A_T], "finalize")) {
			r->xm[r->nxm - 1].frm = pc_intern_cstr(r->db, frm);
			if (!(frm[0] == '$' && is_number(frm + 1)))
				r->xm[r->nxm - 1].derived = 1;
		}
	} else if (!strcmp(el, "TraceDB")) {
		/* the ticks of hpctrace times: u per second (2.2); 2.0 and
		 * 2.1 have microseconds, as hpcviewer assumes */
		if (a->val[A_U]) {
			unsigned long long u = strtoull(a->val[A_U], NULL, 10);
			if (u != 1000000 && u != 1000000000)
				return xml_fail(r, "TraceDB u=\"%s\": ticks of "
						"a microsecond or a "
						"nanosecond are read",
						a->val[A_U]);
			r->ns_per_tick = 1000000000 / u;
		}
	} else if (!strcmp(el, "MetricDB")) {
		if (get_u32(r, a, A_I, &id))
			return -1;
		if (!a->val[A_N])
			return xml_fail(r, "MetricDB %u without a name", id);
		int32_t dbid = -1;
		if (a->val[A_DBID]) {
			uint32_t d;
			if (get_u32(r, a, A_DBID, &d))
				return -1;
			if (d > 65535)
				return xml_fail(r, "db-id %u out of range", d);
			dbid = (int32_t)d;
		}
		return legacy_add_column(r, id, a->val[A_N], a->val[A_T], dbid);
	}
	return 0;
}

/* After SecHeader: sort the tables; without MetricDBTable the inline
 * values are the data, their columns the MetricTable's. */
static int header_done(struct legacy *r)
{
	struct { struct idtab *t; const char *what; } tabs[] = {
		{ &r->mod_t, "LoadModule" }, { &r->file_t, "File" },
		{ &r->proc_t, "Procedure" }, { &r->xm_t, "Metric" },
		{ &r->col_t, "MetricDB" }, { &r->kind_t, "Identifier" },
	};
	for (size_t k = 0; k < sizeof tabs / sizeof *tabs; k++) {
		int64_t d = idtab_sort(tabs[k].t);
		if (d >= 0 && tabs[k].t != &r->kind_t)
			return xml_fail(r, "%s id %lld is defined twice",
					tabs[k].what, (long long)d);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The tree.                                                          */

static struct open *top(struct legacy *r)
{
	return r->depth ? &r->stack[r->depth - 1] : NULL;
}

static pc_id lookup_file(struct legacy *r, const struct attrs *a, pc_id dflt,
			 int *err)
{
	uint32_t v;
	int rc = table_ref(r, a, A_F, &r->file_t, "file", &v);
	if (rc < 0)
		*err = 1;
	if (rc > 0)
		return pc_file_get(r->db, a->val[A_F]);
	return v == PC_NONE ? dflt : r->files[v];
}

/* Starts a tree element: makes its context, records its node. */
static int tree_element(struct legacy *r, const char *el,
			const struct attrs *a)
{
	struct open *up = top(r);
	struct open o = { .ctx = up ? up->ctx : 0,
			  .file = up ? up->file : PC_NONE,
			  .module = up ? up->module : PC_NONE,
			  .node = up ? up->node : 0, .tree = 1,
			  .idle = up ? up->idle : 0 };
	int64_t i = 0;
	if (a->val[A_I] && get_i64(r, a, A_I, &i))
		return -1;
	int bad = 0;
	int frame = 0, folded = 0;
	uint32_t line = get_line(a);
	/* 2.x writes inlined code as alien Pr elements (a="1"): one with
	 * an empty name at the call site's line holds the named one */
	int alien = el[0] == 'A' || (a->val[A_A] && !strcmp(a->val[A_A], "1"));
	if (alien && el[0] == 'P' && a->val[A_N] && !a->val[A_N][0])
		el = "S";
	if (!strcmp(el, "PF") || !strcmp(el, "Pr") || !strcmp(el, "A")) {
		frame = 1;
		uint32_t pv;
		const char *name;
		uint64_t offset = 0;
		int rc = table_ref(r, a, A_N, &r->proc_t, "procedure", &pv);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			name = a->val[A_N];
		} else if (pv == PC_NONE) {
			name = "<unknown procedure>";
		} else {
			name = r->procs[pv].name;
			offset = r->procs[pv].offset;
		}
		uint64_t v = get_hex(a);
		if (v)
			offset = v;
		uint32_t mv;
		rc = table_ref(r, a, A_LM, &r->mod_t, "load module", &mv);
		if (rc < 0)
			return -1;
		if (rc > 0)
			o.module = pc_module_get(r->db, a->val[A_LM]);
		else if (mv != PC_NONE)
			o.module = r->mods[mv];
		o.file = lookup_file(r, a, alien ? o.file : PC_NONE, &bad);
		if (bad)
			return -1;
		/* a root frame named so is the entry point itself */
		if (!up || !up->tree) {
			int e = PC_ENTRY_UNKNOWN;
			if (!strcmp(name, "<program root>"))
				e = PC_ENTRY_MAIN;
			else if (!strcmp(name, "<thread root>"))
				e = PC_ENTRY_APP_THREAD;
			o.ctx = pc_ctx_entry(r->db, (enum pc_entry)e);
			o.entry = e != PC_ENTRY_UNKNOWN ||
				  !strcmp(name, "<partial call paths>");
			o.idle = !strcmp(name, "<no activity>");
		}
		if (!o.entry) {
			struct pc_context k = {
				.kind = PC_CTX_FUNCTION,
				.rel = alien ? PC_REL_INLINED : PC_REL_CALL,
				.function = pc_function_get(r->db, name, o.module,
							    offset, o.file, line),
				.file = PC_NONE, .module = PC_NONE,
			};
			o.ctx = pc_ctx_child(r->db, o.ctx, &k);
		}
	} else if (!strcmp(el, "C") && up && up->entry) {
		folded = 1; /* entries call their functions directly */
	} else {
		/* C, S, L: lines and loops of the enclosing file */
		o.file = lookup_file(r, a, o.file, &bad);
		if (bad)
			return -1;
		struct pc_context k = {
			.kind = el[0] == 'L' ? PC_CTX_LOOP : PC_CTX_LINE,
			.rel = PC_REL_LEXICAL, .function = PC_NONE,
			.file = o.file, .line = line, .module = PC_NONE,
		};
		if (k.file == PC_NONE)
			k.file = pc_file_get(r->db, "<unknown file>");
		o.ctx = pc_ctx_child(r->db, o.ctx, &k);
	}
	if (i > 0) {
		if (i == r->root_id)
			return xml_fail(r, "context id %lld is the root's",
					(long long)i);
		PC_GROW(r->nodes, r->nnodes, r->capnodes);
		r->nodes[r->nnodes] = (struct node){
			.id = (uint32_t)i, .parent = o.node, .ctx = o.ctx,
			.folded = (uint8_t)folded, .frame = (uint8_t)frame };
		o.node = (uint32_t)r->nnodes++;
		o.own = 1;
	}
	if (a->val[A_IT]) {
		uint32_t it;
		if (get_u32(r, a, A_IT, &it))
			return -1;
		/* a sample of "<no activity>" is one at the root, as in
		 * v4 databases: the thread was idle */
		idtab_add(&r->it_t, it, o.idle ? 0 : o.ctx);
	}
	PC_GROW(r->stack, r->depth, r->capdepth);
	r->stack[r->depth++] = o;
	return 0;
}

static int inline_value(struct legacy *r, const struct attrs *a)
{
	uint32_t m;
	if (get_u32(r, a, A_N, &m))
		return -1;
	if (!a->val[A_V])
		return xml_fail(r, "M without a value");
	char *end;
	double v = strtod(a->val[A_V], &end);
	if (end == a->val[A_V] || *end || !isfinite(v))
		return xml_fail(r, "M value \"%s\" is not a number",
				a->val[A_V]);
	struct open *o = top(r);
	uint32_t node = o ? o->node : 0;
	/* values of a wrapper (negative id) belong nowhere */
	if (o && o->tree && !o->own)
		return 0;
	PC_GROW(r->inl, r->ninl, r->capinl);
	r->inl[r->ninl++] = (struct inl){ node, m, v };
	return 0;
}

/* libxml2's options for experiment.xml: our own input (no network, no
 * external DTD, no decompression); the declared encoding is ignored
 * (HPCToolkit writes UTF-8 and declares none); huge documents (deep
 * trees, long names) are legal. */
#define XML_OPTS                                                             \
	(XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_NOCDATA |              \
	 XML_PARSE_IGNORE_ENC | XML_PARSE_BIG_LINES)

/* The deepest element nesting read: HPCToolkit's trees are thousands
 * deep; libxml2's reader keeps some 1.5 KB per open element, so this
 * bounds a hostile document's cost to some 160 MB. */
#define XML_MAX_DEPTH 100000

/* The bytes of experiment.xml as the parsers get them, with the line
 * count for messages and progress. Bytes that would make libxml2 guess
 * another encoding from the first four (a UTF-16 or UCS-4 byte-order
 * mark or NUL bytes, EBCDIC) are refused: the document is UTF-8 text,
 * so both parsers see what these bytes say. */
struct xin {
	FILE *f;
	struct legacy *r;
	uint64_t size, done, lines;
	int quiet;          /* no progress (the prolog check) */
	const char *bad;    /* why the bytes were refused */
	char enc[32];       /* an encoding the declaration names, if not UTF-8 */
};

/* The encoding the XML declaration names, kept for an error's hint
 * when it is not UTF-8 (the parser ignores it). */
static void declared_encoding(struct xin *x, const char *buf, size_t n)
{
	const char *end = memchr(buf, '>', n);
	const char *e = end ? memmem(buf, (size_t)(end - buf), "encoding=", 9) : NULL;
	if (!e || strncmp(buf, "<?xml", 5) || e + 10 >= end)
		return;
	char q = e[9];
	const char *v = e + 10, *w = memchr(v, q, (size_t)(end - v));
	size_t len = w ? (size_t)(w - v) : 0;
	if ((q != '"' && q != '\'') || !len || len >= sizeof x->enc ||
	    (len == 5 && !strncasecmp(v, "UTF-8", 5)) ||
	    (len == 4 && !strncasecmp(v, "UTF8", 4)))
		return;
	memcpy(x->enc, v, len);
	x->enc[len] = 0;
	pc_escape_controls(x->enc, sizeof x->enc);
}

static int xin_read(void *ctx, char *buf, int len)
{
	struct xin *x = ctx;
	size_t n = fread(buf, 1, (size_t)len, x->f);
	if (!n)
		return ferror(x->f) ? -1 : 0;
	const unsigned char *u = (const unsigned char *)buf;
	size_t skip = x->done == 0 && n >= 3 && u[0] == 0xef && u[1] == 0xbb &&
		      u[2] == 0xbf ? 3 : 0;
	if (x->done == 0 && n > skip &&
	    (!u[skip] || !strchr("< \t\r\n", u[skip]))) {
		x->bad = "not UTF-8 text (a byte-order mark or an encoding "
			 "HPCToolkit never writes)";
		return -1;
	}
	const char *nul = memchr(buf, 0, n);
	if (nul) {
		for (const char *p = buf; (p = memchr(p, '\n', (size_t)(nul - p)));
		     p++)
			x->lines++;
		x->bad = "a NUL byte: experiment.xml is UTF-8 text";
		return -1;
	}
	if (x->done == 0)
		declared_encoding(x, buf, n);
	for (const char *p = buf; (p = memchr(p, '\n', n - (size_t)(p - buf)));
	     p++)
		x->lines++;
	x->done += n;
	if (!x->quiet)
		pc_progress(x->r->db->diag, "reading experiment.xml", x->done,
			    x->size, x->done);
	return (int)n;
}

/* The prolog (all before the root element), parsed first by libxml2's
 * SAX parser with the reader's options: a declaration of any entity,
 * general or parameter, stops it before anything is expanded (the
 * reader expands entities in attribute values while it reads ahead).
 * The parser's own view decides, whatever the bytes look like;
 * HPCToolkit never declares entities. */
struct prolog {
	xmlParserCtxtPtr ctxt;
	uint64_t entity_line; /* where an entity is declared, or 0 */
	int done;
};

static void prolog_stop(struct prolog *p, int entity)
{
	if (entity && !p->entity_line)
		p->entity_line = p->ctxt->input ? (uint64_t)p->ctxt->input->line
						: 1;
	p->done = 1;
	xmlStopParser(p->ctxt);
}

static void prolog_entity(void *ud, const xmlChar *name, int type,
			  const xmlChar *pub, const xmlChar *sys,
			  xmlChar *content)
{
	(void)name, (void)type, (void)pub, (void)sys, (void)content;
	prolog_stop(ud, 1);
}

static void prolog_unparsed(void *ud, const xmlChar *name,
			    const xmlChar *pub, const xmlChar *sys,
			    const xmlChar *notation)
{
	(void)name, (void)pub, (void)sys, (void)notation;
	prolog_stop(ud, 1);
}

static void prolog_root(void *ud, const xmlChar *name, const xmlChar *prefix,
			const xmlChar *uri, int nns, const xmlChar **ns,
			int nattr, int ndef, const xmlChar **attrs)
{
	(void)name, (void)prefix, (void)uri, (void)nns, (void)ns;
	(void)nattr, (void)ndef, (void)attrs;
	prolog_stop(ud, 0);
}

/* the reader reports the document's errors */
static void prolog_error(void *ud, xmlErrorPtr e)
{
	(void)ud, (void)e;
}

static void prolog_generic(void *ud, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void prolog_generic(void *ud, const char *fmt, ...)
{
	(void)ud, (void)fmt;
}

static int check_prolog(struct legacy *r, struct xin *in)
{
	xmlSAXHandler sax;
	memset(&sax, 0, sizeof sax);
	sax.initialized = XML_SAX2_MAGIC;
	sax.entityDecl = prolog_entity;
	sax.unparsedEntityDecl = prolog_unparsed;
	sax.startElementNs = prolog_root;
	sax.serror = prolog_error;
	struct prolog p = { 0 };
	p.ctxt = xmlCreatePushParserCtxt(&sax, &p, NULL, 0, r->xml);
	if (!p.ctxt)
		return pc_err_set(r->err, "%s: cannot be read", r->xml);
	xmlCtxtUseOptions(p.ctxt, XML_OPTS);
	xmlSetGenericErrorFunc(NULL, prolog_generic);
	char buf[1 << 14];
	int n;
	in->quiet = 1;
	while (!p.done && (n = xin_read(in, buf, sizeof buf)) > 0)
		if (xmlParseChunk(p.ctxt, buf, n, 0) != XML_ERR_OK)
			break;
	xmlSetGenericErrorFunc(NULL, NULL);
	/* libxml2 keeps an entity declared in SAX mode in a document of
	 * its own ("expat compatibility"): not expanded, but to be freed */
	if (p.ctxt->myDoc)
		xmlFreeDoc(p.ctxt->myDoc);
	xmlFreeParserCtxt(p.ctxt);
	if (in->bad)
		return pc_err_at_line(r->err, r->xml, in->lines + 1, "%s",
				      in->bad);
	if (p.entity_line)
		return pc_err_at_line(r->err, r->xml, p.entity_line, "the "
				      "document declares entities; HPCToolkit "
				      "never writes any (refused, so that "
				      "nothing is expanded)");
	/* the reader reads the document from its start */
	rewind(in->f);
	in->done = in->lines = 0;
	in->quiet = 0;
	return 0;
}

/* Reads experiment.xml: tables and tree. */
int legacy_read_xml(struct legacy *r)
{
	if (pc_libxml_load(r->err))
		return -1;
	struct xin in = { .r = r };
	in.f = pc_fopen_file(r->xml, r->err);
	if (!in.f)
		return -1;
	struct stat st;
	if (fstat(fileno(in.f), &st) == 0)
		in.size = (uint64_t)st.st_size;
	if (check_prolog(r, &in)) {
		fclose(in.f);
		return -1;
	}
	xmlSetGenericErrorFunc(r, xml_generic_error);
	xmlSetStructuredErrorFunc(r, xml_error);
	r->xr = xmlReaderForIO(xin_read, NULL, &in, r->xml, "UTF-8", XML_OPTS);
	if (!r->xr) {
		xmlSetGenericErrorFunc(NULL, NULL);
		xmlSetStructuredErrorFunc(NULL, NULL);
		fclose(in.f);
		return pc_err_set(r->err, "%s: cannot be read", r->xml);
	}
	xmlTextReaderSetStructuredErrorHandler(r->xr, xml_error, r);
	struct attrs a = { 0 };
	int rc, seen_root = 0, fail = 0;
	/* node 0: the root of the tree (its values are the M elements
	 * right under SecCallPathProfileData) */
	PC_GROW(r->nodes, r->nnodes, r->capnodes);
	r->nodes[r->nnodes++] = (struct node){ .id = r->root_id, .ctx = 0 };
	while (!fail && (rc = xmlTextReaderRead(r->xr)) == 1) {
		int type = xmlTextReaderNodeType(r->xr);
		if (type == XML_READER_TYPE_ENTITY_REFERENCE) {
			fail = xml_fail(r, "entity reference in the document");
			continue;
		}
		if (type != XML_READER_TYPE_ELEMENT &&
		    type != XML_READER_TYPE_END_ELEMENT)
			continue;
		if (type == XML_READER_TYPE_ELEMENT &&
		    xmlTextReaderDepth(r->xr) > XML_MAX_DEPTH) {
			fail = xml_fail(r, "elements nested more than %d deep "
					"(HPCToolkit's trees are thousands "
					"deep; refused to bound the memory)",
					XML_MAX_DEPTH);
			continue;
		}
		const char *el = (const char *)xmlTextReaderConstLocalName(r->xr);
		int empty = type == XML_READER_TYPE_ELEMENT &&
			    xmlTextReaderIsEmptyElement(r->xr);
		int is_tree = r->in_data &&
			      (!strcmp(el, "PF") || !strcmp(el, "Pr") ||
			       !strcmp(el, "A") || !strcmp(el, "L") ||
			       !strcmp(el, "C") || !strcmp(el, "S"));
		if (type == XML_READER_TYPE_ELEMENT) {
			if (!seen_root) {
				if (strcmp(el, "HPCToolkitExperiment")) {
					fail = xml_fail(r, "root element <%s>, "
							"not <HPCToolkitExperiment>",
							el);
					continue;
				}
				seen_root = 1;
				int major = 0;
				if (xmlTextReaderMoveToAttribute(
					    r->xr, BAD_CAST "version") == 1) {
					const char *vs = (const char *)
						xmlTextReaderConstValue(r->xr);
					major = vs ? atoi(vs) : 0;
				}
				xmlTextReaderMoveToElement(r->xr);
				if (major != 2 && major != 4) {
					fail = xml_fail(r, "experiment.xml version "
							"%d (2.x and 4.0 are "
							"read)", major);
					continue;
				}
				if (r->major && r->major != major) {
					fail = xml_fail(r, "experiment.xml "
							"version %d with %s",
							major, r->major == 4 ?
							"HPCPROF-profile.db "
							"(written with 4.0)" :
							"metric-db files");
					continue;
				}
				r->major = major;
				r->root_id = major == 2 ? 1 : 0;
				r->nodes[0].id = r->root_id;
				continue;
			}
			read_attrs(r, &a);
			if (!strcmp(el, "SecCallPathProfileData")) {
				if (header_done(r)) {
					fail = 1;
					continue;
				}
				r->in_data = !empty;
				continue;
			} else if (is_tree) {
				fail = tree_element(r, el, &a);
			} else if (r->in_data && !strcmp(el, "M")) {
				fail = inline_value(r, &a);
				continue;
			} else if (!r->in_data) {
				fail = header_element(r, el, &a);
			} else {
				/* another element inside the tree: it
				 * keeps its parent's place, no values */
				struct open *up = top(r);
				struct open o = up ? *up : (struct open){ 0 };
				o.own = 0;
				PC_GROW(r->stack, r->depth, r->capdepth);
				r->stack[r->depth++] = o;
			}
			if (fail || !empty)
				continue;
		}
		/* the end of an element */
		if (!strcmp(el, "Metric"))
			r->in_metric = 0;
		else if (!strcmp(el, "SecCallPathProfileData"))
			r->in_data = 0;
		else if (r->in_data && strcmp(el, "M") && r->depth)
			r->depth--;
	}
	free(a.buf);
	xmlSetGenericErrorFunc(NULL, NULL);
	xmlSetStructuredErrorFunc(NULL, NULL);
	pc_progress_done(r->db->diag);
	fclose(in.f);
	if (fail)
		return -1;
	if (in.bad)
		return pc_err_at_line(r->err, r->xml, in.lines + 1, "%s",
				      in.bad);
	if (rc < 0 || r->xml_err[0]) {
		int line = r->xml_err_line ? r->xml_err_line :
			   xmlTextReaderGetParserLineNumber(r->xr);
		return pc_err_at_line(r->err, r->xml, (uint64_t)line,
				      "XML: %s%s%s%s", r->xml_err[0] ?
				      r->xml_err : "malformed",
				      in.enc[0] ? " (the declared encoding " : "",
				      in.enc, in.enc[0] ? " is ignored: "
				      "HPCToolkit writes UTF-8)" : "");
	}
	if (!seen_root)
		return pc_err_at_line(r->err, r->xml, 1, "no "
				      "<HPCToolkitExperiment> element");
	for (size_t k = 0; k < r->nnodes; k++)
		idtab_add(&r->node_t, r->nodes[k].id, (uint32_t)k);
	int64_t d = idtab_sort(&r->node_t);
	if (d >= 0)
		return pc_err_set(r->err, "%s: context id %lld is used twice",
				  r->xml, (long long)d);
	idtab_sort(&r->it_t);
	for (size_t k = 1; k < r->it_t.n; k++)
		if (r->it_t.e[k].id == r->it_t.e[k - 1].id &&
		    r->it_t.e[k].v != r->it_t.e[k - 1].v)
			return pc_err_set(r->err, "%s: trace id it=\"%u\" "
					  "names two different contexts",
					  r->xml, r->it_t.e[k].id);
	return 0;
}

