/* Old HPCToolkit databases: experiment.xml 2.x (values inline, plus
 * per-thread *.metric-db files and *.hpctrace traces) and
 * experiment.xml 4.0 with HPCPROF-profile.db/trace.db (the 2020-2022
 * "prof2" writer). See doc/formats.md for the layouts and
 * doc/design.md for how values are recovered.
 *
 * experiment.xml is read with libxml2's streaming reader: no network,
 * no external DTD, and a document that declares entities is refused
 * before anything is expanded. Every id (metric, module, file,
 * procedure, context) is resolved through the XML's tables.
 *
 * Values: the old formats store inclusive (I) and exclusive (E) values
 * per context. Both are kept as stored execution and function scopes,
 * so the v4 database shows exactly what hpcviewer showed; the point
 * values (what Callgrind output and the lex_aware scope are made of)
 * are recovered by differencing: point(x) = I(x) - the I of x's
 * children that carry values. */
#include "pc.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/xmlreader.h>

/* ------------------------------------------------------------------ */
/* Sorted id -> value tables.                                         */

struct idv {
	uint32_t id, v;
};
struct idtab {
	struct idv *e;
	size_t n, cap;
};

static void idtab_add(struct idtab *t, uint32_t id, uint32_t v)
{
	PC_GROW(t->e, t->n, t->cap);
	t->e[t->n++] = (struct idv){ id, v };
}

static int cmp_idv(const void *a, const void *b)
{
	const struct idv *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorts; returns an id listed twice, or -1. */
static int64_t idtab_sort(struct idtab *t)
{
	if (t->n)
		qsort(t->e, t->n, sizeof(*t->e), cmp_idv);
	for (size_t i = 1; i < t->n; i++)
		if (t->e[i].id == t->e[i - 1].id)
			return t->e[i].id;
	return -1;
}

static int idtab_get(const struct idtab *t, uint32_t id, uint32_t *v)
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

/* ------------------------------------------------------------------ */
/* The reader.                                                        */

enum { SC_NONE, SC_INCL, SC_EXCL };

/* A metric column of the measured values (MetricDB, or Metric when
 * the values are only inline). */
struct mcol {
	pc_id metric;    /* model metric */
	uint8_t scope;   /* SC_* */
	int32_t dbid;    /* column in metric-db files, -1 if none */
};

struct proc {
	const char *name;
	uint64_t offset;
};

/* A context of the XML with a positive id (values can be stored at
 * it). parent: index of the nearest such ancestor (0: the root). */
struct node {
	uint32_t id;
	uint32_t parent;
	pc_id ctx;
	uint8_t folded; /* a call site folded into its entry: no scopes */
	uint8_t frame;  /* PF, Pr or A: starts a frame of its own */
};

/* An open element of the tree. */
struct open {
	pc_id ctx;
	pc_id file;     /* where its lines are */
	pc_id module;
	uint32_t node;  /* nearest node with values */
	uint8_t entry;  /* a root frame that became an entry point */
	uint8_t own;    /* node is this element's own (positive id) */
	uint8_t tree;   /* a tree element (not M, not a wrapper) */
};

struct legacy {
	struct pc_db *db;
	struct pc_err *err;
	char dir[4096];
	char xml[4200];
	xmlTextReaderPtr xr;
	int major;              /* experiment.xml major version */
	char xml_err[1024];     /* libxml2's first error */
	int xml_err_line;

	/* tables */
	struct idtab mod_t, file_t, proc_t, kind_t;
	pc_id *mods, *files;
	size_t nmods, capmods, nfiles, capfiles;
	struct proc *procs;
	size_t nprocs, capprocs;
	/* MetricTable metrics (i -> name, t) and MetricDB columns */
	struct xmetric {
		uint32_t id;
		const char *name;
		uint8_t scope;
		uint8_t derived; /* v="derived" or a finalize formula */
		uint8_t hidden;  /* show="4" */
		uint8_t stat;    /* a statistic over threads (is_stat) */
		const char *frm; /* its finalize formula, or NULL */
	} *xm;
	size_t nxm, capxm;
	int stats; /* statistics over threads to carry (warn_dropped) */
	struct mcol *cols;
	size_t ncols, capcols;
	struct idtab col_t;     /* MetricDB i -> cols index */
	struct idtab xm_t;      /* Metric i -> xm index */
	int in_metric;          /* inside <Metric>: formulas belong to it */

	/* the tree */
	struct node *nodes;
	size_t nnodes, capnodes;
	struct idtab node_t;    /* id -> node index */
	struct idtab it_t;      /* trace id -> model context */
	struct open *stack;
	size_t depth, capdepth;
	int in_data;
	/* inline <M> values: node, Metric i, value */
	struct inl {
		uint32_t node, metric;
		double v;
	} *inl;
	size_t ninl, capinl;
	uint32_t root_id;

	/* scratch for point recovery, one profile at a time */
	struct cell {
		uint32_t node, metric; /* metric: model id; node UINT32_MAX: free */
		double own, kids;
	} *cells;
	size_t ncells, capcells;
	/* model metric -> which scopes its columns have (bit SC_*) */
	uint8_t *mscopes;
	/* 2.x: the profile of each (rank, thread) */
	struct thr {
		uint64_t rank, thread;
		pc_id prof;
	} *thr;
	size_t nthr, capthr;
	uint64_t ns_per_tick; /* hpctrace times: 1000 if microseconds */
	/* values at context ids the XML does not list (said once read) */
	uint64_t elided; /* (profile, context) pairs */
	int point_only; /* the caller reads point values only */
};

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
static const char *base_name(struct legacy *r, const char *name)
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

static int add_column(struct legacy *r, uint32_t id, const char *name,
		      const char *t, int32_t dbid)
{
	PC_GROW(r->cols, r->ncols, r->capcols);
	struct mcol *c = &r->cols[r->ncols];
	c->scope = scope_of(name, t);
	c->metric = pc_metric_get(r->db, base_name(r, name), NULL, NULL);
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
		return add_column(r, id, a->val[A_N], a->val[A_T], dbid);
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
			  .node = up ? up->node : 0, .tree = 1 };
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
		idtab_add(&r->it_t, it, o.ctx);
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

/* The bytes of experiment.xml as the parser gets them: an entity
 * declaration stops the input before libxml2 sees it (it expands
 * entities in attribute values while it reads ahead, and a "billion
 * laughs" document would take gigabytes); HPCToolkit never declares
 * any. Counts lines for that message and shows progress. */
struct xin {
	FILE *f;
	struct legacy *r;
	uint64_t size, done, lines;
	char tail[8]; /* the last 7 bytes so far: a split "<!ENTITY" */
	int refused;
};

static int xin_read(void *ctx, char *buf, int len)
{
	struct xin *x = ctx;
	size_t n = fread(buf, 1, (size_t)len, x->f);
	if (!n)
		return ferror(x->f) ? -1 : 0;
	char join[14];
	memcpy(join, x->tail, 7);
	memcpy(join + 7, buf, n < 7 ? n : 7);
	const char *hit = memmem(buf, n, "<!ENTITY", 8);
	if (hit || memmem(join, 7 + (n < 7 ? n : 7), "<!ENTITY", 8)) {
		for (const char *p = buf; hit && (p = memchr(p, '\n', (size_t)(hit - p)));
		     p++)
			x->lines++;
		x->refused = 1;
		return -1;
	}
	for (const char *p = buf; (p = memchr(p, '\n', n - (size_t)(p - buf)));
	     p++)
		x->lines++;
	if (n >= 7) {
		memcpy(x->tail, buf + n - 7, 7);
	} else {
		memmove(x->tail, x->tail + n, 7 - n);
		memcpy(x->tail + 7 - n, buf, n);
	}
	x->done += n;
	pc_progress(x->r->db->diag, "reading experiment.xml", x->done, x->size,
		    x->done);
	return (int)n;
}

/* Reads experiment.xml: tables and tree. */
static int read_xml(struct legacy *r)
{
	struct xin in = { .r = r, .tail = "       " };
	in.f = fopen(r->xml, "rb");
	if (!in.f)
		return pc_err_set(r->err, "%s: %s", r->xml, strerror(errno));
	struct stat st;
	if (fstat(fileno(in.f), &st) == 0)
		in.size = (uint64_t)st.st_size;
	/* our own input (no decompression, no network, no external DTD),
	 * read as UTF-8 whatever the declaration says (so the check
	 * above sees the bytes the parser sees); huge documents (deep
	 * trees, long names) are legal */
	xmlSetGenericErrorFunc(r, xml_generic_error);
	xmlSetStructuredErrorFunc(r, xml_error);
	r->xr = xmlReaderForIO(xin_read, NULL, &in, r->xml, "UTF-8",
			       XML_PARSE_NONET | XML_PARSE_HUGE |
				       XML_PARSE_NOCDATA);
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
				xmlChar *vs = xmlTextReaderGetAttribute(
					r->xr, BAD_CAST "version");
				int major = vs ? atoi((const char *)vs) : 0;
				xmlFree(vs);
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
	if (in.refused)
		return pc_err_at_line(r->err, r->xml, in.lines + 1, "the "
				      "document declares entities; HPCToolkit "
				      "never writes any (refused, so that "
				      "nothing is expanded)");
	if (rc < 0 || r->xml_err[0]) {
		int line = r->xml_err_line ? r->xml_err_line :
			   xmlTextReaderGetParserLineNumber(r->xr);
		return pc_err_at_line(r->err, r->xml, (uint64_t)line,
				      "XML: %s", r->xml_err[0] ? r->xml_err
							       : "malformed");
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

/* ------------------------------------------------------------------ */
/* Values: stored scopes as they are, points by differencing.         */

static uint64_t cell_hash(uint32_t node, uint32_t metric)
{
	return pc_hash64((uint64_t)node << 32 | metric);
}

static void cells_grow(struct legacy *r);

static struct cell *cell_at(struct legacy *r, uint32_t node, uint32_t metric)
{
	if (4 * (r->ncells + 1) > r->capcells)
		cells_grow(r);
	size_t mask = r->capcells - 1;
	for (size_t h = cell_hash(node, metric) & mask;; h = (h + 1) & mask) {
		struct cell *c = &r->cells[h];
		if (c->node == UINT32_MAX) {
			*c = (struct cell){ node, metric, 0, 0 };
			r->ncells++;
			return c;
		}
		if (c->node == node && c->metric == metric)
			return c;
	}
}

/* Twice the room (the table is kept at most a quarter full). */
static void cells_grow(struct legacy *r)
{
	size_t cap = r->capcells ? 2 * r->capcells : 1024;
	struct cell *old = r->cells;
	size_t oldcap = r->capcells;
	r->cells = pc_xmalloc(cap * sizeof(*r->cells));
	r->capcells = cap;
	r->ncells = 0;
	for (size_t i = 0; i < cap; i++)
		r->cells[i].node = UINT32_MAX;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].node != UINT32_MAX) {
			struct cell *c = cell_at(r, old[i].node, old[i].metric);
			c->own = old[i].own;
			c->kids = old[i].kids;
		}
	free(old);
}

/* One measured value: node index, column, value. */
static void put_value(struct legacy *r, pc_id prof, uint32_t node,
		      const struct mcol *col, double v)
{
	if (v == 0)
		return;
	const struct node *n = &r->nodes[node];
	uint8_t has = r->mscopes[col->metric];
	if (col->scope == SC_NONE) {
		pc_value_add(r->db, prof, n->ctx, col->metric, v);
		return;
	}
	/* the stored value, kept for outputs that write scopes */
	if (!n->folded && !r->point_only)
		pc_scoped_add(r->db, prof, n->ctx, col->metric,
			      col->scope == SC_INCL ? PC_SCOPE_EXECUTION
						    : PC_SCOPE_FUNCTION, v);
	/* points from I; from E only for metrics without I (a child
	 * frame's E is not part of its parent's) */
	if (col->scope == SC_INCL || !(has & (1 << SC_INCL))) {
		cell_at(r, node, col->metric)->own += v;
		if (node && (col->scope == SC_INCL || !n->frame))
			cell_at(r, n->parent, col->metric)->kids += v;
	}
}

/* The points of the profile just read; clears the cells. */
static void put_points(struct legacy *r, pc_id prof)
{
	for (size_t i = 0; i < r->capcells; i++) {
		struct cell *c = &r->cells[i];
		if (c->node == UINT32_MAX)
			continue;
		double p = c->own - c->kids;
		/* the same doubles summed in another order */
		if (fabs(p) <= 1e-12 * fmax(fabs(c->own), fabs(c->kids)))
			p = 0;
		if (p != 0)
			pc_value_add(r->db, prof, r->nodes[c->node].ctx,
				     c->metric, p);
		c->node = UINT32_MAX;
	}
	r->ncells = 0;
}

static void note_scopes(struct legacy *r)
{
	free(r->mscopes);
	r->mscopes = pc_xcalloc(r->db->nmetrics + 1, 1);
	for (size_t i = 0; i < r->ncols; i++)
		r->mscopes[r->cols[i].metric] |= (uint8_t)(1 << r->cols[i].scope);
}

/* ------------------------------------------------------------------ */
/* Big-endian binaries.                                               */

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static double be_f64(const unsigned char *p)
{
	uint64_t u = be(p, 8);
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

static int need(struct legacy *r, const struct pc_blob *b, uint64_t off,
		uint64_t len, const char *what)
{
	if (off <= b->n && len <= b->n - off)
		return 0;
	return pc_err_at_off(r->err, b->path, off, "%s runs past the end of "
			     "the file (%llu bytes)", what,
			     (unsigned long long)b->n);
}

/* prof2's common header: magic, version 1.0 or 4.0, a count of
 * entries of entsize bytes in the first section, which must hold them
 * inside the file. */
static int prof2_header(struct legacy *r, const struct pc_blob *b,
			const char *magic, uint64_t entsize, const char *what,
			uint64_t *count, uint64_t *ptr)
{
	if (b->n < 0x28)
		return pc_err_at_off(r->err, b->path, 0, "file too short for "
				     "its header (%llu bytes)",
				     (unsigned long long)b->n);
	if (memcmp(b->p, magic, 16))
		return pc_err_at_off(r->err, b->path, 0, "not a %.16s file",
				     magic);
	if (!((b->p[16] == 1 || b->p[16] == 4) && b->p[17] == 0))
		return pc_err_at_off(r->err, b->path, 16, "version %u.%u (1.0 "
				     "and 4.0 are read)", b->p[16], b->p[17]);
	*count = be(b->p + 18, 4);
	uint64_t size = be(b->p + 24, 8);
	*ptr = be(b->p + 32, 8);
	if (*count > size / entsize)
		return pc_err_at_off(r->err, b->path, 18, "%llu entries in the "
				     "%s section, which holds %llu",
				     (unsigned long long)*count, what,
				     (unsigned long long)(size / entsize));
	return need(r, b, *ptr, *count * entsize, what);
}

/* The number of contexts cct.db lists (UINT64_MAX without cct.db):
 * profile.db may hold ids the XML leaves out, but not more. Its values
 * are not read (all zero in real files; profile.db has them). */
static int cct_count(struct legacy *r, uint64_t *n)
{
	struct pc_blob b;
	*n = UINT64_MAX;
	int rc = pc_blob_map(&b, r->dir, "cct.db", 1, r->err);
	if (rc)
		return rc > 0 ? 0 : -1;
	uint64_t ptr;
	rc = prof2_header(r, &b, "HPCPROF-cctdb___", 22, "context info", n,
			  &ptr);
	pc_blob_unmap(&b);
	return rc;
}

static int read_profile_db(struct legacy *r, pc_id **prof_of, uint32_t *nprof)
{
	uint64_t nctx;
	if (cct_count(r, &nctx))
		return -1;
	struct pc_blob b;
	if (pc_blob_map(&b, r->dir, "profile.db", 0, r->err))
		return -1;
	int rc = -1;
	uint64_t np, pi;
	if (prof2_header(r, &b, "HPCPROF-profdb__", 52, "profile info", &np,
			 &pi))
		goto out;
	*nprof = (uint32_t)np;
	*prof_of = pc_xmalloc((np + 1) * sizeof(pc_id));
	for (uint64_t i = 0; i < np; i++) {
		uint64_t e = pi + 52 * i;
		uint64_t tp = be(b.p + e, 8);
		if (need(r, &b, tp, 2, "id tuple"))
			goto out;
		uint32_t nids = (uint32_t)be(b.p + tp, 2);
		if (need(r, &b, tp + 2, 18 * (uint64_t)nids, "id tuple"))
			goto out;
		struct pc_idelem ids[64];
		if (nids > 64) {
			pc_err_at_off(r->err, b.path, tp, "id tuple of %u "
				      "elements", nids);
			goto out;
		}
		int summary = 0;
		for (uint32_t k = 0; k < nids; k++) {
			const unsigned char *x = b.p + tp + 2 + 18 * k;
			uint32_t kind = (uint32_t)be(x, 2) & 0x3fff;
			uint32_t mk = PC_ID_NKINDS;
			if (!idtab_get(&r->kind_t, kind, &mk) && kind < PC_ID_NKINDS)
				mk = kind; /* no IdentifierNameTable */
			if (mk >= PC_ID_NKINDS) {
				pc_err_at_off(r->err, b.path, tp + 2 + 18 * k,
					      "id tuple kind %u is not one "
					      "HPCToolkit defines", kind);
				goto out;
			}
			summary |= mk == PC_ID_SUMMARY;
			ids[k] = (struct pc_idelem){
				.kind = (uint16_t)mk, .is_physical = 0,
				.physical = be(x + 2, 8), .logical = be(x + 10, 8),
			};
			/* NODE is a host id: its physical value */
			if (mk == PC_ID_NODE)
				ids[k].is_physical = 1;
			else
				ids[k].physical = 0;
		}
		(*prof_of)[i] = (i == 0 || summary) ? PC_NONE :
			pc_profile_add(r->db, ids, nids);
	}
	for (uint64_t i = 0; i < np; i++) {
		pc_id prof = (*prof_of)[i];
		if (prof == PC_NONE)
			continue; /* the summary is derived again */
		uint64_t e = pi + 52 * i;
		uint64_t nv = be(b.p + e + 32, 8), nc = be(b.p + e + 40, 4);
		uint64_t off = be(b.p + e + 44, 8);
		if (nv > b.n / 10 || nc > b.n / 12) {
			pc_err_at_off(r->err, b.path, e + 32, "profile %llu: "
				      "%llu values at %llu contexts, more than "
				      "the file can hold", (unsigned long long)i,
				      (unsigned long long)nv,
				      (unsigned long long)nc);
			goto out;
		}
		if (need(r, &b, off, nv * 10 + (nc + 1) * 12, "value block"))
			goto out;
		const unsigned char *cx = b.p + off + nv * 10;
		for (uint64_t k = 0; k < nc; k++) {
			uint32_t id = (uint32_t)be(cx + 12 * k, 4);
			uint64_t s = be(cx + 12 * k + 4, 8);
			uint64_t z = be(cx + 12 * (k + 1) + 4, 8);
			uint32_t node;
			if (s > z || z > nv) {
				pc_err_at_off(r->err, b.path, off + nv * 10 +
					      12 * k + 4, "value index %llu "
					      "out of order or past %llu",
					      (unsigned long long)s,
					      (unsigned long long)nv);
				goto out;
			}
			if (!idtab_get(&r->node_t, id, &node)) {
				/* a context the XML leaves out (an
				 * instruction below a statement): its
				 * values are inside its visible
				 * ancestors' inclusive values */
				if (id >= nctx) {
					pc_err_at_off(r->err, b.path, off +
						      nv * 10 + 12 * k,
						      "context id %u is neither "
						      "in experiment.xml nor "
						      "among cct.db's %llu "
						      "contexts", id,
						      (unsigned long long)nctx);
					goto out;
				}
				r->elided++; /* said at the end */
				continue;
			}
			for (uint64_t v = s; v < z; v++) {
				const unsigned char *y = b.p + off + 10 * v;
				uint32_t m = (uint32_t)be(y + 8, 2), c;
				if (!idtab_get(&r->col_t, m, &c)) {
					pc_err_at_off(r->err, b.path,
						      off + 10 * v + 8,
						      "metric id %u is not in "
						      "experiment.xml's "
						      "MetricDBTable", m);
					goto out;
				}
				put_value(r, prof, node, &r->cols[c],
					  be_f64(y));
			}
		}
		put_points(r, prof);
	}
	rc = 0;
out:
	pc_blob_unmap(&b);
	return rc;
}

static int read_trace_db(struct legacy *r, const pc_id *prof_of,
			 uint32_t nprof)
{
	struct pc_blob b;
	int rc = pc_blob_map(&b, r->dir, "trace.db", 1, r->err);
	if (rc)
		return rc > 0 ? 0 : -1;
	rc = -1;
	uint64_t nt, hp;
	if (prof2_header(r, &b, "HPCPROF-tracedb_", 22, "trace header", &nt,
			 &hp))
		goto out;
	unsigned skipped = 0;
	for (uint64_t i = 0; i < nt; i++) {
		const unsigned char *h = b.p + hp + 22 * i;
		uint32_t pi = (uint32_t)be(h, 4);
		uint64_t a = be(h + 6, 8), z = be(h + 14, 8);
		if (be(h + 4, 2) != 0) {
			skipped++; /* a metric trace: not in the model */
			continue;
		}
		if (pi >= nprof || prof_of[pi] == PC_NONE) {
			pc_err_at_off(r->err, b.path, hp + 22 * i, "trace of "
				      "profile %u, which is not a measured "
				      "profile", pi);
			goto out;
		}
		if (z == a)
			continue; /* an empty trace: its pointers are padded */
		if (z < a || (z - a) % 12) {
			pc_err_at_off(r->err, b.path, hp + 22 * i + 6, "trace "
				      "line [%llu, %llu) is not whole 12-byte "
				      "samples", (unsigned long long)a,
				      (unsigned long long)z);
			goto out;
		}
		if (need(r, &b, a, z - a, "trace line"))
			goto out;
		for (uint64_t x = a; x < z; x += 12) {
			uint32_t it = (uint32_t)be(b.p + x + 8, 4), ctx;
			if (!idtab_get(&r->it_t, it, &ctx)) {
				pc_err_at_off(r->err, b.path, x + 8, "trace "
					      "sample names context %u, which "
					      "no element of experiment.xml "
					      "has as its 'it'", it);
				goto out;
			}
			pc_trace_add(r->db, prof_of[pi], be(b.p + x, 8), ctx);
		}
	}
	if (skipped)
		pc_warn(r->db->diag, "%s: %u metric trace(s) skipped (the "
			"model keeps calling-context traces)", b.path, skipped);
	rc = 0;
out:
	pc_blob_unmap(&b);
	return rc;
}

/* "G.PROG-RANK-THREAD-HOST-PID-GEN.metric-db": rank and thread. */
static int name_ids(const char *name, uint64_t *rank, uint64_t *thread)
{
	/* from the end: GEN, PID, HOST, THREAD, RANK */
	const char *dash[5];
	int n = 0;
	size_t len = strlen(name);
	if (pc_path_ends(name, ".metric-db"))
		len -= strlen(".metric-db");
	for (const char *s = name + len; s > name && n < 5;)
		if (*--s == '-')
			dash[n++] = s;
	if (n < 5)
		return -1;
	char *end;
	*thread = strtoull(dash[3] + 1, &end, 10);
	if (end != dash[2])
		return -1;
	*rank = strtoull(dash[4] + 1, &end, 10);
	return end == dash[3] ? 0 : -1;
}

static int inline_profile(struct legacy *r);

/* The profile of an hpcrun file name's rank and thread (made on first
 * use; the metric-db and hpctrace files of one thread share it). */
static pc_id thread_profile(struct legacy *r, const char *path,
			    const char *name)
{
	uint64_t rank = 0, thread = 0;
	if (name_ids(name, &rank, &thread)) {
		pc_warn(r->db->diag, "%s: '%s' does not say rank and thread "
			"(PROG-RANK-THREAD-HOST-PID-GEN): a profile of its own",
			path, name);
		rank = UINT32_MAX - r->db->nprofiles;
	}
	for (size_t i = 0; i < r->nthr; i++)
		if (r->thr[i].rank == rank && r->thr[i].thread == thread)
			return r->thr[i].prof;
	struct pc_idelem ids[2] = {
		{ .kind = PC_ID_RANK, .logical = rank },
		{ .kind = PC_ID_THREAD, .logical = thread },
	};
	PC_GROW(r->thr, r->nthr, r->capthr);
	r->thr[r->nthr] = (struct thr){ rank, thread,
					pc_profile_add(r->db, ids, 2) };
	return r->thr[r->nthr++].prof;
}

/* One thread's metric-db: [off, off+len) of b. */
static int metric_db(struct legacy *r, const struct pc_blob *b, uint64_t off,
		     uint64_t len, pc_id prof)
{
	const unsigned char *p = b->p + off;
	if (len < 32 || memcmp(p, "HPCPROF-metricdb__", 18))
		return pc_err_at_off(r->err, b->path, off, len < 32 ?
				     "too short for a metric-db header" :
				     "not a metric-db (magic)");
	if (memcmp(p + 18, "00.10", 5) || p[23] != 'b')
		return pc_err_at_off(r->err, b->path, off + 18, "metric-db "
				     "version '%.5s%c' (00.10b is read)",
				     p + 18, p[23]);
	uint64_t nn = be(p + 24, 4), nm = be(p + 28, 4);
	/* nodes x metrics values fill the rest exactly (each factor is
	 * below 2^32: no overflow in the product once one is bounded) */
	uint64_t cells = (len - 32) / 8;
	if ((len - 32) % 8 || (nm ? nn != cells / nm || cells % nm : cells))
		return pc_err_at_off(r->err, b->path, off + 24, "header says "
				     "%llu nodes x %llu metrics, but %llu bytes "
				     "of 8-byte values follow",
				     (unsigned long long)nn,
				     (unsigned long long)nm,
				     (unsigned long long)(len - 32));
	/* column -> MetricDB (db-ids are below 65536) */
	uint64_t ncol = nm < 65536 ? nm : 65536;
	const struct mcol **col = pc_xcalloc(ncol + 1, sizeof(*col));
	for (size_t i = 0; i < r->ncols; i++)
		if (r->cols[i].dbid >= 0 && (uint64_t)r->cols[i].dbid < ncol)
			col[r->cols[i].dbid] = &r->cols[i];
	/* no metrics, no values: then a row count says nothing (up to
	 * 2^32 - 1 empty rows in a 32-byte file: a fuzzing finding) */
	for (uint64_t row = 0; nm && row < nn; row++) {
		const unsigned char *x = p + 32 + row * nm * 8;
		uint32_t node = PC_NONE;
		for (uint64_t c = 0; c < ncol; c++) {
			double v = be_f64(x + 8 * c);
			if (v == 0 || !col[c])
				continue;
			if (node == PC_NONE &&
			    !idtab_get(&r->node_t, (uint32_t)(row + 1), &node)) {
				r->elided++; /* as in profile.db */
				break;
			}
			put_value(r, prof, node, col[c], v);
		}
	}
	free(col);
	put_points(r, prof);
	return 0;
}

/* One thread's hpctrace: [off, off+len) of b. */
static int hpctrace(struct legacy *r, const struct pc_blob *b, uint64_t off,
		    uint64_t len, pc_id prof)
{
	const unsigned char *p = b->p + off;
	if (len < 24 || memcmp(p, "HPCRUN-trace______", 18))
		return pc_err_at_off(r->err, b->path, off, len < 24 ?
				     "too short for an hpctrace header" :
				     "not an hpctrace (magic)");
	uint64_t hdr = 24, flags = 0;
	if (!memcmp(p + 18, "01.01", 5) && p[23] == 'b') {
		if (len < 32)
			return pc_err_at_off(r->err, b->path, off, "too short "
					     "for an hpctrace 01.01 header");
		hdr = 32;
		flags = be(p + 24, 8);
	} else if (memcmp(p + 18, "01.00", 5) || p[23] != 'b') {
		return pc_err_at_off(r->err, b->path, off + 18, "hpctrace "
				     "version '%.5s%c' (01.00b and 01.01b are "
				     "read)", p + 18, p[23]);
	}
	uint64_t rec = (flags & 1) ? 16 : 12; /* data-centric: + metric id */
	if ((len - hdr) % rec)
		return pc_err_at_off(r->err, b->path, off + len - (len - hdr) % rec,
				     "hpctrace: %llu bytes after the last "
				     "whole %llu-byte sample",
				     (unsigned long long)((len - hdr) % rec),
				     (unsigned long long)rec);
	for (uint64_t x = hdr; x < len; x += rec) {
		uint32_t it = (uint32_t)be(p + x + 8, 4), ctx;
		if (it == 0)
			continue; /* the null call path */
		if (!idtab_get(&r->it_t, it, &ctx))
			return pc_err_at_off(r->err, b->path, off + x + 8,
					     "trace sample names call path %u, "
					     "which no element of experiment.xml "
					     "has as its 'it'", it);
		pc_trace_add(r->db, prof, be(p + x, 8) * r->ns_per_tick, ctx);
	}
	return 0;
}

typedef int (*part_fn)(struct legacy *, const struct pc_blob *, uint64_t,
		       uint64_t, pc_id);

/* A per-thread file (G.PROG-RANK-THREAD-HOST-PID-GEN.SUFFIX). */
static int read_part_file(struct legacy *r, const char *name, part_fn fn)
{
	struct pc_blob b;
	if (pc_blob_map(&b, r->dir, name, 0, r->err))
		return -1;
	int rc = fn(r, &b, 0, b.n, thread_profile(r, b.path, name));
	pc_blob_unmap(&b);
	return rc;
}

/* A container the old viewers merge the per-thread files into
 * (experiment-N.mdb, experiment.mt): i32 type, i32 count, count x
 * {i32 rank, i32 thread, i64 offset}, the files, 0xFFFFFFFFDEADF00D. */
static int read_merged(struct legacy *r, const char *name, part_fn fn)
{
	struct pc_blob b;
	if (pc_blob_map(&b, r->dir, name, 0, r->err))
		return -1;
	int rc = -1;
	if (b.n < 16 || be(b.p + b.n - 8, 8) != 0xFFFFFFFFDEADF00Dull) {
		pc_err_at_off(r->err, b.path, b.n < 8 ? 0 : b.n - 8, "no end "
			      "marker 0xFFFFFFFFDEADF00D (truncated?)");
		goto out;
	}
	uint64_t n = be(b.p + 4, 4);
	if (n > (b.n - 16) / 16) {
		pc_err_at_off(r->err, b.path, 4, "%llu files listed, more "
			      "than the container can hold",
			      (unsigned long long)n);
		goto out;
	}
	uint64_t end = b.n - 8, prev = 8 + 16 * n;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = b.p + 8 + 16 * i;
		uint64_t a = be(e + 8, 8);
		uint64_t z = i + 1 < n ? be(e + 24, 8) : end;
		if (a < prev || z < a || z > end) {
			pc_err_at_off(r->err, b.path, 8 + 16 * i + 8, "file %llu "
				      "at [%llu, %llu): out of order or outside "
				      "the container", (unsigned long long)i,
				      (unsigned long long)a,
				      (unsigned long long)z);
			goto out;
		}
		prev = a;
		char id[64];
		snprintf(id, sizeof id, "x-%llu-%llu-0-0-0",
			 (unsigned long long)be(e, 4),
			 (unsigned long long)be(e + 4, 4));
		if (fn(r, &b, a, z - a, thread_profile(r, b.path, id)))
			goto out;
	}
	rc = 0;
out:
	pc_blob_unmap(&b);
	return rc;
}

/* hpcprof-mpi's one file of all threads' values, experiment-N.mdb */
static int is_mdb(const char *name)
{
	return pc_basename_starts(name, "experiment") &&
	       pc_path_ends(name, ".mdb");
}

static int has_mdb(char **names, size_t nnames)
{
	for (size_t i = 0; i < nnames; i++)
		if (is_mdb(names[i]))
			return 1;
	return 0;
}

/* Values and traces of a 2.x database: per-thread files, or the
 * containers the viewers made of them. */
static int read_v2(struct legacy *r, char **names, size_t nnames)
{
	int any = 0, rc = 0;
	for (size_t i = 0; i < nnames && !rc; i++)
		if (pc_path_ends(names[i], ".metric-db")) {
			rc = read_part_file(r, names[i], metric_db);
			any = 1;
		}
	for (size_t i = 0; i < nnames && !rc && !any; i++)
		if (is_mdb(names[i])) {
			rc = read_merged(r, names[i], metric_db);
			any = 2;
		}
	if (!rc && !any)
		rc = inline_profile(r);
	int traces = 0;
	for (size_t i = 0; i < nnames && !rc; i++)
		if (pc_path_ends(names[i], ".hpctrace")) {
			rc = read_part_file(r, names[i], hpctrace);
			traces = 1;
		}
	for (size_t i = 0; i < nnames && !rc && !traces; i++)
		if (!strcmp(names[i], "experiment.mt"))
			rc = read_merged(r, names[i], hpctrace);
	return rc;
}

/* Only inline values (an experiment.xml without metric-db files): the
 * one profile they describe. */
static int inline_profile(struct legacy *r)
{
	if (!r->ninl)
		return 0;
	/* the inline values use MetricTable ids: make them columns */
	struct idtab byxm = { 0 };
	for (size_t i = 0; i < r->nxm; i++) {
		const struct xmetric *x = &r->xm[i];
		if (x->derived || x->hidden || x->stat)
			continue;
		const char *n = x->name;
		const char *sum = strstr(n, ":Sum");
		char buf[4096];
		if (sum) { /* "NAME:Sum (I)": the sum over the threads */
			snprintf(buf, sizeof buf, "%.*s%s", (int)(sum - n), n,
				 sum + 4);
			n = buf;
		}
		add_column(r, x->id, n, x->scope == SC_INCL ? "inclusive" :
				 x->scope == SC_EXCL ? "exclusive" : NULL, -1);
		idtab_add(&byxm, x->id, (uint32_t)(r->ncols - 1));
	}
	idtab_sort(&byxm);
	note_scopes(r);
	struct pc_idelem none[1];
	pc_id prof = pc_profile_add(r->db, none, 0);
	for (size_t i = 0; i < r->ninl; i++) {
		uint32_t c;
		if (idtab_get(&byxm, r->inl[i].metric, &c))
			put_value(r, prof, r->inl[i].node, &r->cols[c],
				  r->inl[i].v);
	}
	put_points(r, prof);
	free(byxm.e);
	pc_warn(r->db->diag, "%s: no per-thread values (metric-db files); "
		"the values experiment.xml holds (printed with 6 significant "
		"digits) make one profile", r->xml);
	return 0;
}

/* ---- derived metrics: an old finalize formula as a v4 formula ---- */

/* A formula's parser: + - * / ^, unary minus, parentheses, numbers,
 * $ID (a MetricTable metric: the value of its scope at the context)
 * and the functions the v4 YAML has. Anything else (@ID, the value at
 * the root; another derived metric) leaves it uncarried. */
struct fparse {
	struct legacy *r;
	const char *p;
	int bad;
	unsigned depth, nodes;
};

static struct pc_expr *ex_new(struct fparse *f, uint8_t kind,
			      const char *op, uint32_t nargs)
{
	if (++f->nodes > 1000) { /* a bound for the writer's recursion */
		f->bad = 1;
		nargs = 0;
	}
	struct pc_expr *e = pc_db_alloc(f->r->db, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->op = op;
	e->nargs = nargs;
	if (nargs)
		e->args = pc_db_alloc(f->r->db, nargs * sizeof(*e->args));
	return e;
}

static struct pc_expr *ex_bin(struct fparse *f, const char *op,
			      struct pc_expr *a, struct pc_expr *b)
{
	struct pc_expr *e = ex_new(f, PC_EX_OP, op, 2);
	if (e->nargs == 2) {
		e->args[0] = a;
		e->args[1] = b;
	}
	return e;
}

static void f_skip(struct fparse *f)
{
	while (*f->p == ' ' || *f->p == '\t')
		f->p++;
}

static struct pc_expr *f_expr(struct fparse *f);
static struct pc_expr *f_unary(struct fparse *f);

/* $ID: the metric of MetricTable entry ID, in its scope */
static struct pc_expr *f_ref(struct fparse *f, unsigned long id)
{
	struct legacy *r = f->r;
	uint32_t k;
	if (id > UINT32_MAX || !idtab_get(&r->xm_t, (uint32_t)id, &k) ||
	    r->xm[k].derived || r->xm[k].stat ||
	    r->xm[k].scope == SC_NONE) {
		f->bad = 1;
		return NULL;
	}
	const char *name = base_name(r, r->xm[k].name);
	size_t n = strlen(name);
	if (n > 4 && !strcmp(name + n - 4, ":Sum")) /* summary of threads */
		name = pc_intern(r->db, name, n - 4);
	pc_id m = pc_metric_find(r->db, name);
	if (m == PC_NONE) {
		f->bad = 1;
		return NULL;
	}
	struct pc_expr *e = ex_new(f, PC_EX_REF, NULL, 0);
	e->metric = m;
	e->scope = r->xm[k].scope == SC_INCL ? PC_SCOPE_EXECUTION :
					       PC_SCOPE_FUNCTION;
	return e;
}

static struct pc_expr *f_call(struct fparse *f, const char *name, size_t len)
{
	static const struct {
		const char *name, *op;
		unsigned min, max;
	} fn[] = {
		{ "sqrt", "sqrt", 1, 1 }, { "pow", "^", 2, 2 },
		{ "log", "log", 1, 2 },   { "min", "min", 1, 64 },
		{ "max", "max", 1, 64 },  { "sum", "sum", 1, 64 },
	};
	struct pc_expr *args[64];
	unsigned n = 0;
	size_t k = 0;
	while (k < sizeof fn / sizeof *fn &&
	       (strlen(fn[k].name) != len || strncmp(fn[k].name, name, len)))
		k++;
	f_skip(f);
	if (k == sizeof fn / sizeof *fn || *f->p != '(') {
		f->bad = 1;
		return NULL;
	}
	f->p++;
	for (;;) {
		if (n == 64) {
			f->bad = 1;
			return NULL;
		}
		args[n++] = f_expr(f);
		f_skip(f);
		if (f->bad || *f->p != ',')
			break;
		f->p++;
	}
	if (f->bad || *f->p != ')' || n < fn[k].min || n > fn[k].max) {
		f->bad = 1;
		return NULL;
	}
	f->p++;
	struct pc_expr *e = ex_new(f, PC_EX_OP, fn[k].op, n);
	for (unsigned i = 0; i < e->nargs; i++)
		e->args[i] = args[i];
	return e;
}

static struct pc_expr *f_primary(struct fparse *f)
{
	f_skip(f);
	const char *p = f->p;
	char *end;
	if (f->bad)
		return NULL;
	if (*p == '(') {
		f->p++;
		struct pc_expr *e = f_expr(f);
		f_skip(f);
		if (*f->p != ')') {
			f->bad = 1;
			return NULL;
		}
		f->p++;
		return e;
	}
	if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
		unsigned long id = strtoul(p + 1, &end, 10);
		f->p = end;
		return f_ref(f, id);
	}
	if ((*p >= '0' && *p <= '9') || *p == '.') {
		double v = strtod(p, &end);
		f->p = end;
		struct pc_expr *e = ex_new(f, PC_EX_NUM, NULL, 0);
		e->num = v;
		return e;
	}
	size_t len = 0;
	while ((p[len] >= 'a' && p[len] <= 'z') || (p[len] >= 'A' && p[len] <= 'Z'))
		len++;
	if (len) {
		f->p += len;
		return f_call(f, p, len);
	}
	f->bad = 1;
	return NULL;
}

static struct pc_expr *f_power(struct fparse *f)
{
	struct pc_expr *a = f_primary(f);
	f_skip(f);
	if (f->bad || *f->p != '^')
		return a;
	f->p++;
	return ex_bin(f, "^", a, f_unary(f));
}

static struct pc_expr *f_unary(struct fparse *f)
{
	f_skip(f);
	if (++f->depth > 64) { /* nesting: the parser's own recursion */
		f->bad = 1;
		return NULL;
	}
	struct pc_expr *e;
	if (*f->p == '-') {
		f->p++;
		struct pc_expr *a = f_unary(f);
		e = ex_new(f, PC_EX_OP, "-", 1);
		if (e->nargs)
			e->args[0] = a;
	} else {
		e = f_power(f);
	}
	f->depth--;
	return e;
}

static struct pc_expr *f_term(struct fparse *f)
{
	struct pc_expr *a = f_unary(f);
	for (;;) {
		f_skip(f);
		char c = *f->p;
		if (f->bad || (c != '*' && c != '/'))
			return a;
		f->p++;
		a = ex_bin(f, c == '*' ? "*" : "/", a, f_unary(f));
	}
}

static struct pc_expr *f_expr(struct fparse *f)
{
	if (++f->depth > 64) {
		f->bad = 1;
		return NULL;
	}
	struct pc_expr *a = f_term(f);
	for (;;) {
		f_skip(f);
		char c = *f->p;
		if (f->bad || (c != '+' && c != '-'))
			break;
		f->p++;
		a = ex_bin(f, c == '+' ? "+" : "-", a, f_term(f));
	}
	f->depth--;
	return a;
}

/* Carries derived metric x as a formula of the model's metrics; 0 if
 * its formula says something the v4 YAML cannot. */
static int carry_formula(struct legacy *r, const struct xmetric *x)
{
	if (!x->frm)
		return 0;
	struct fparse f = { .r = r, .p = x->frm };
	struct pc_expr *e = f_expr(&f);
	f_skip(&f);
	if (f.bad || *f.p || !e)
		return 0;
	const char *name = base_name(r, x->name);
	size_t i = 0;
	while (i < r->db->nderived && r->db->derived[i].name != name)
		i++;
	if (i == r->db->nderived) {
		PC_GROW(r->db->derived, r->db->nderived, r->db->capderived);
		char desc[4096];
		snprintf(desc, sizeof desc, "derived metric of an old "
			 "HPCToolkit database: %s", x->frm);
		r->db->derived[r->db->nderived++] = (struct pc_derived){
			name, pc_intern_cstr(r->db, desc), NULL, NULL };
	}
	if (x->scope == SC_EXCL)
		r->db->derived[i].excl = e;
	else
		r->db->derived[i].incl = e;
	return 1;
}

/* The MetricTable metrics the old viewer computed: statistics over
 * threads are carried where there are threads (per_thread; the v4
 * writer computes them again, pc_db.stats), formulas the v4 YAML can
 * say become metrics/default.yaml formulas, and a warning names the
 * others. Called once the values (and so the metrics) are read. */
static void derived_metrics(struct legacy *r, int per_thread)
{
	char list[1024];
	size_t n = 0, count = 0, stats = 0;
	list[0] = 0;
	for (size_t i = 0; i < r->nxm; i++) {
		if (r->xm[i].stat && per_thread) {
			stats++;
			continue;
		}
		if (!r->xm[i].derived && !r->xm[i].stat)
			continue;
		if (!r->xm[i].stat && carry_formula(r, &r->xm[i]))
			continue;
		count++;
		if (n < sizeof list - 200)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s'%s'",
					      n ? ", " : "", r->xm[i].name);
	}
	if (count)
		pc_warn(r->db->diag, "%s: %zu derived metric(s) not carried "
			"(a formula the v4 metrics YAML cannot say, or "
			"statistics over threads without per-thread values): "
			"%s", r->xml, count, list);
	r->stats = stats > 0;
}

static void legacy_free(struct legacy *r)
{
	if (r->xr)
		xmlFreeTextReader(r->xr);
	struct idtab *t[] = { &r->mod_t, &r->file_t, &r->proc_t, &r->kind_t,
			      &r->col_t, &r->xm_t, &r->node_t, &r->it_t };
	for (size_t k = 0; k < sizeof t / sizeof *t; k++)
		free(t[k]->e);
	free(r->mods);
	free(r->files);
	free(r->procs);
	free(r->xm);
	free(r->cols);
	free(r->nodes);
	free(r->stack);
	free(r->inl);
	free(r->cells);
	free(r->mscopes);
	free(r->thr);
	free(r);
}

static int legacy_read(struct pc_db *db, const char *path,
		       const struct pc_import_opts *opts, struct pc_err *err)
{
	struct legacy *r = pc_xcalloc(1, sizeof(*r));
	r->db = db;
	r->point_only = opts && opts->point_only;
	r->err = err;
	r->ns_per_tick = 1000;
	struct stat st;
	int rc = -1;
	if (strlen(path) >= sizeof r->dir) {
		pc_err_set(err, "%s: path too long", path);
		goto out;
	}
	strcpy(r->dir, path);
	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		/* the experiment.xml itself: its directory */
		char *slash = strrchr(r->dir, '/');
		if (slash)
			*slash = 0;
		else
			strcpy(r->dir, ".");
	}
	if (pc_path_join(r->xml, sizeof r->xml, r->dir, "experiment.xml")) {
		pc_err_set(err, "%s: path too long", path);
		goto out;
	}
	size_t nnames;
	char **names = pc_list_dir(r->dir, &nnames);
	int prof2 = 0;
	size_t nmdb = 0;
	for (size_t i = 0; i < nnames; i++) {
		prof2 |= !strcmp(names[i], "profile.db");
		nmdb += pc_path_ends(names[i], ".metric-db");
	}
	r->major = prof2 ? 4 : nmdb ? 2 : 0;
	if (read_xml(r))
		goto done;
	note_scopes(r);
	if (r->major == 4) {
		pc_id *prof_of = NULL;
		uint32_t nprof = 0;
		rc = read_profile_db(r, &prof_of, &nprof);
		if (!rc)
			rc = read_trace_db(r, prof_of, nprof);
		free(prof_of);
	} else {
		rc = read_v2(r, names, nnames);
	}
	if (!rc)
		derived_metrics(r, prof2 || nmdb || has_mdb(names, nnames));
	if (!rc && r->stats) {
		db->stats = 1;
		pc_warn(db->diag, "%s: its statistics over threads (Mean, "
			"StdDev, CfVar, Min, Max) become the v4 database's "
			"statistics, computed again from the threads' values; "
			"a v4 Mean divides by the threads that have a value "
			"at a context, not by all threads", r->xml);
	}
	if (!rc && r->elided)
		pc_warn(db->diag, "%s: values of %llu (profile, context) "
			"pair(s) whose context experiment.xml does not list "
			"(hpcprof left it out of the tree): they are part of "
			"their listed ancestors' inclusive values, which are "
			"kept",
			r->dir, (unsigned long long)r->elided);
done:
	pc_free_list(names, nnames);
out:
	legacy_free(r);
	if (rc)
		pc_err_context(err, "reading old HPCToolkit database '%s'", path);
	return rc;
}

static int legacy_probe(const struct pc_probe *p)
{
	if (!p->is_dir) {
		return pc_path_ends(p->path, "experiment.xml") &&
			       strstr((const char *)p->buf,
				      "<HPCToolkitExperiment") ? 95 : 0;
	}
	int xml = 0, meta = 0;
	for (size_t i = 0; i < p->nnames; i++) {
		xml |= !strcmp(p->names[i], "experiment.xml");
		meta |= !strcmp(p->names[i], "meta.db");
	}
	return xml && !meta ? 95 : 0;
}

const struct pc_importer pc_import_hpctoolkit_legacy = {
	.name = "hpctoolkit-legacy",
	.is_dir = 1,
	.description = "old HPCToolkit database directory (experiment.xml "
		       "2.x with metric-db files, or 4.0 with "
		       "HPCPROF-profile.db)",
	.probe = legacy_probe,
	.read = legacy_read,
};
