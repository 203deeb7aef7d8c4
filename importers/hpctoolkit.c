/* HPCToolkit v4 databases (meta.db, profile.db, trace.db; cct.db is
 * checked for its header but not read: profile.db holds the same values).
 * This file reads meta.db and default.yaml and drives the reading;
 * hpctoolkit_values.c reads profile.db and trace.db.
 *
 * What the model keeps: every measured profile with its identifier
 * tuple, its point values and, as stored scopes, its function, lex_aware
 * and execution values exactly as the file has them (so what hpcviewer
 * and hatchet showed is written back unchanged); the context tree with
 * its entry points; modules, files and functions; trace samples; the
 * title. Summary profiles are derived again on export.
 *
 * Context ids that meta.db elides (hpcprof leaves out lexical
 * instruction contexts) hold point values that belong to a visible
 * context: hpctoolkit_place.c finds which from the stored scopes, and
 * the values are added to that context's point values; where an id has
 * no single place, the stored scopes still say how much each context
 * holds (see place()). metrics/default.yaml is kept for the v4 writer
 * (keep_yaml).
 *
 * Structure sizes stored in the files are used as strides; unknown enum
 * values are accepted with a warning. This reader shares no code with
 * `profconv check`. */
#include "pc.h"
#include "internal.h"
#include "buf.h"
#include "hpctoolkit_v4.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

static const char *cstr(struct reader *r, const struct pc_blob *b, uint64_t off)
{
	if (!off || off >= b->n || !memchr(b->p + off, 0, b->n - off)) {
		pc_v4_fail_at(r, b, off, "string not terminated inside the file");
		return NULL;
	}
	return (const char *)b->p + off;
}

static uint64_t sec_size(const struct pc_blob *b, unsigned i)
{
	return pc_getle(b->p + 0x10 + 16 * i, 8);
}

/* Index of a table element from a pointer into the table, or -1. */
static int64_t elem(uint64_t p, uint64_t base, uint64_t n, uint64_t stride)
{
	if (p < base || !stride || (p - base) % stride || (p - base) / stride >= n)
		return -1;
	return (int64_t)((p - base) / stride);
}

static int read_table(struct reader *r, unsigned sec, const char *what,
		      uint64_t minsz, uint64_t *base, uint64_t *n,
		      uint64_t *stride)
{
	const struct pc_blob *b = &r->meta;
	uint64_t s = pc_v4_sec_ptr(b, sec);
	NEED(r, b, s, 0xe, what);
	*base = pc_getle(b->p + s, 8);
	*n = pc_getle(b->p + s + 8, 4);
	*stride = pc_getle(b->p + s + 0xc, 2);
	if (*n && *stride < minsz)
		return pc_v4_fail_at(r, b, s + 0xc, "%s entries of %llu bytes, "
				     "below the %llu of format 4.0", what,
				     (unsigned long long)*stride,
				     (unsigned long long)minsz);
	if (*n && (*n > b->n / (*stride ? *stride : 1) ||
		   !pc_v4_ok_range(b, *base, *n * *stride)))
		return pc_v4_fail_at(r, b, s, "%s table runs past the end of the "
				     "file", what);
	return 0;
}

/* The model scope of a meta.db propagation scope: by type (point,
 * execution, transitive via propagation bit 0 = function) and, for the
 * custom type, by name (lex_aware); -1 for any other. */
static int scope_of(unsigned type, unsigned index, const char *name)
{
	switch (type) {
	case 1:
		return PC_SCOPE_POINT;
	case 2:
		return PC_SCOPE_EXECUTION;
	case 3:
		return index == 0 ? PC_SCOPE_FUNCTION : -1;
	case 0:
		return strcmp(name, "lex_aware") ? -1 : PC_SCOPE_LEXAWARE;
	default:
		return -1;
	}
}

/* The metrics without a point scope (profconv leaves it out unless
 * asked: no reader shows it): their point values are derived from
 * execution (r->derive); one without execution either is said. */
static void no_point(struct reader *r)
{
	size_t nm = r->db->nmetrics;
	uint8_t *has = pc_xcalloc(nm + 1, 1);
	for (size_t i = 0; i < 65536; i++)
		if (r->prop[i].metric != PC_NONE)
			has[r->prop[i].metric] |= (uint8_t)(1u << r->prop[i].scope);
	r->derive = pc_xcalloc(nm + 1, 1);
	for (size_t m = 0; m < nm; m++) {
		if (!has[m] || (has[m] & 1u << PC_SCOPE_POINT))
			continue;
		if (has[m] & 1u << PC_SCOPE_EXECUTION)
			r->derive[m] = 1;
		else
			pc_warn(r->db->diag, "%s: metric '%s' has neither a "
				"point nor an execution scope; its stored "
				"scopes are kept, but a Callgrind output "
				"will not show it", r->meta.path,
				r->db->metrics[m].name);
	}
	free(has);
}

/* Prop id -> metric m in model scope sc (one of the metric's scopes). */
static void bind_prop(struct reader *r, uint16_t id, pc_id m, int sc)
{
	r->prop[id].metric = m;
	r->prop[id].scope = (uint8_t)sc;
	r->db->metrics[m].scopes |= (uint8_t)(1u << sc);
}

/* A scope of the pre-release layout, read by name (it has no scope
 * types); one that is none of the four is said and its values not
 * read. */
static void prop_scope(struct reader *r, pc_id m, const char *name,
		       const char *sname, uint16_t id, uint64_t at)
{
	int sc = -1;
	for (unsigned k = 0; k < PC_NSCOPES; k++)
		if (!strcmp(sname, pc_scope_names[k]))
			sc = (int)k;
	if (sc < 0)
		pc_warn(r->db->diag, "%s@0x%llx: metric '%s': scope '%s' is "
			"not one hpcprof writes; its values are not read",
			r->meta.path, (unsigned long long)at, name, sname);
	else
		bind_prop(r, id, m, sc);
}

/* The metrics of the pre-release 4.0 layout (hpcprof of early 2022:
 * hpcviewer's quicksilver test database; hpcviewer.e4 f254cf6e,
 * DataMeta.parseMetricDescription): 24-byte metrics {pName, nScopes
 * u16 @8, pScopes @0x10}, each scope 24 bytes {pName, nSummaries u16 @8,
 * propMetricId u16 @0xa, pSummaries @0x10}; the summaries are derived
 * again on export. */
static int read_metrics_prerelease(struct reader *r, uint64_t pm,
				   uint64_t nm)
{
	const struct pc_blob *b = &r->meta;
	NEED(r, b, pm, nm * 0x18, "metric table");
	for (uint64_t i = 0; i < nm; i++) {
		uint64_t e = pm + i * 0x18;
		const char *name = cstr(r, b, pc_getle(b->p + e, 8));
		if (!name)
			return -1;
		pc_id m = pc_metric_get(r->db, name, "", "");
		uint64_t ps = pc_getle(b->p + e + 0x10, 8),
			 ns = pc_getle(b->p + e + 8, 2);
		NEED(r, b, ps, ns * 0x18, "metric scopes");
		for (uint64_t k = 0; k < ns; k++) {
			uint64_t x = ps + k * 0x18;
			const char *sname = cstr(r, b, pc_getle(b->p + x, 8));
			if (!sname)
				return -1;
			prop_scope(r, m, name, sname,
				   (uint16_t)pc_getle(b->p + x + 0xa, 2), x);
		}
		if (r->db->metrics[m].scopes & (1u << PC_SCOPE_FUNCTION))
			r->db->metrics[m].scopes |= 1u << PC_SCOPE_LEXAWARE;
	}
	return 0;
}

static int read_metrics(struct reader *r)
{
	const struct pc_blob *b = &r->meta;
	uint64_t s = pc_v4_sec_ptr(b, 2);
	NEED(r, b, s, 0x10, "Metrics section header");
	uint64_t pm = pc_getle(b->p + s, 8), nm = pc_getle(b->p + s + 8, 4);
	unsigned szm = b->p[s + 0xc], szi = b->p[s + 0xd];
	for (size_t i = 0; i < 65536; i++)
		r->prop[i].metric = PC_NONE;
	if (nm > b->n / 0x18)
		return pc_v4_fail_at(r, b, s + 8, "%llu metrics cannot fit in the "
				     "file", (unsigned long long)nm);
	r->prerelease = nm && szm == 0x18 && szi == 0x18;
	if (r->prerelease)
		return read_metrics_prerelease(r, pm, nm);
	NEED(r, b, s, 0x1b, "Metrics section header");
	if (nm && (szm < 0x20 || szi < 0x10))
		return pc_v4_fail_at(r, b, s + 0xc, "metric structure sizes %u/%u "
				     "below 32/16", szm, szi);
	if (nm > b->n / 0x20)
		return pc_v4_fail_at(r, b, s + 8, "%llu metrics cannot fit in the "
				     "file", (unsigned long long)nm);
	NEED(r, b, pm, nm * szm, "metric table");
	for (uint64_t i = 0; i < nm; i++) {
		uint64_t e = pm + i * szm;
		const char *name = cstr(r, b, pc_getle(b->p + e, 8));
		if (!name)
			return -1;
		/* Calls: the call counts profconv writes (its unit) */
		pc_id m = pc_metric_get(r->db, name, "",
					strcmp(name, PC_CALLS_METRIC) ? "" :
									"calls");
		uint64_t pi = pc_getle(b->p + e + 8, 8), ni = pc_getle(b->p + e + 0x18, 2);
		NEED(r, b, pi, ni * szi, "metric scope instances");
		for (uint64_t k = 0; k < ni; k++) {
			uint64_t x = pi + k * szi;
			uint64_t scope = pc_getle(b->p + x, 8);
			uint16_t id = (uint16_t)pc_getle(b->p + x + 8, 2);
			NEED(r, b, scope, 0x10, "propagation scope");
			const char *sname = cstr(r, b, pc_getle(b->p + scope, 8));
			if (!sname)
				return -1;
			int sc = scope_of(b->p[scope + 8], b->p[scope + 9],
					  sname);
			if (sc < 0) {
				pc_warn(r->db->diag, "%s@0x%llx: metric '%s': "
					"scope '%s' (type %u) is not one "
					"hpcprof writes; its values are not "
					"read", b->path,
					(unsigned long long)scope, name, sname,
					b->p[scope + 8]);
				continue;
			}
			bind_prop(r, id, m, sc);
		}
	}
	return 0;
}

struct pending {
	uint64_t p, sz;
	pc_id parent;
	uint64_t from;
};

static int read_tree(struct reader *r)
{
	const struct pc_blob *b = &r->meta;
	uint64_t s = pc_v4_sec_ptr(b, 3), ssz = sec_size(b, 3);
	NEED(r, b, s, r->prerelease ? 0x10 : 0xb, "Context section header");
	/* a context takes at least 0x20 bytes of the section */
	pc_ctx_reserve(r->db, (size_t)(ssz / 0x20));
	uint64_t pe = pc_getle(b->p + s, 8), ne = pc_getle(b->p + s + 8, 2);
	unsigned sze = b->p[s + 0xa];
	/* the pre-release layout has no entry points: {szRoot, pRoot}, the
	 * top contexts' children array, taken as the main entry's */
	if (r->prerelease)
		ne = 0;
	if (ne && sze < 0x20)
		return pc_v4_fail_at(r, b, s + 0xa, "entry points of %u bytes, below "
				     "32", sze);
	NEED(r, b, pe, ne * sze, "entry point table");
	struct pending *q = NULL;
	size_t nq = 0, capq = 0, head = 0;
	uint64_t budget = (ssz < b->n ? ssz : b->n) /
				  (r->prerelease ? 0x18 : 0x20) + 1;
	int rc = 0;
	uint8_t *taken = NULL; /* model contexts this file has bound */
	size_t ntaken = 0;
	for (uint64_t i = 0; i < ne && !rc; i++) {
		uint64_t e = pe + i * sze;
		uint32_t id = (uint32_t)pc_getle(b->p + e + 0x10, 4);
		unsigned kind = (unsigned)pc_getle(b->p + e + 0x14, 2);
		if (kind > PC_ENTRY_APP_THREAD) {
			pc_warn(r->db->diag, "%s@0x%llx: unknown entry point "
				"%u, read as 'unknown entry'", b->path,
				(unsigned long long)e, kind);
			kind = PC_ENTRY_UNKNOWN;
		}
		pc_id c = pc_ctx_entry(r->db, (enum pc_entry)kind);
		rc = pc_v4_ctx_bind(r, b, e + 0x10, id, c);
		PC_GROW(q, nq, capq);
		q[nq++] = (struct pending){ pc_getle(b->p + e + 8, 8), pc_getle(b->p + e, 8),
					    c, e };
	}
	/* (PC_NONE: the entry of each is chosen below) */
	if (r->prerelease) {
		PC_GROW(q, nq, capq);
		q[nq++] = (struct pending){ pc_getle(b->p + s + 8, 8),
					    pc_getle(b->p + s, 8), PC_NONE, s };
	}
	/* breadth first, arrays in file order */
	while (!rc && head < nq) {
		struct pending a = q[head++];
		if (!a.sz)
			continue;
		if (!pc_v4_ok_range(b, a.p, a.sz)) {
			rc = pc_v4_fail_at(r, b, a.from, "children array [0x%llx, "
					   "+0x%llx) runs past the end of the file",
					   (unsigned long long)a.p,
					   (unsigned long long)a.sz);
			break;
		}
		/* a record: 0x20 bytes and its flex words (0x18 in the
		 * pre-release layout, which has no propagation word) */
		uint64_t rec = r->prerelease ? 0x18 : 0x20;
		for (uint64_t x = a.p; x < a.p + a.sz;) {
			if (a.p + a.sz - x < rec) {
				rc = pc_v4_fail_at(r, b, x, "context record runs past "
						   "its children array");
				break;
			}
			if (!budget--) {
				rc = pc_v4_fail_at(r, b, x, "more contexts than the "
						   "Context section can hold (a "
						   "pointer cycle?)");
				break;
			}
			const unsigned char *c = b->p + x;
			uint32_t id = (uint32_t)pc_getle(c + 0x10, 4);
			unsigned flags = c[0x14], rel = c[0x15], lex = c[0x16];
			uint64_t size = rec + 8 * (uint64_t)c[0x17];
			if (size > a.p + a.sz - x) {
				rc = pc_v4_fail_at(r, b, x, "context flex words run "
						   "past its children array");
				break;
			}
			if (rel > 2) {
				pc_warn(r->db->diag, "%s@0x%llx: unknown "
					"relation %u, read as a call", b->path,
					(unsigned long long)x, rel);
				rel = PC_REL_CALL;
			}
			if (lex > 3) {
				pc_warn(r->db->diag, "%s@0x%llx: unknown lexical "
					"type %u, read as a function", b->path,
					(unsigned long long)x, lex);
				lex = PC_CTX_FUNCTION;
			}
			struct pc_context k = {
				.kind = (uint8_t)lex, .rel = (uint8_t)rel,
				.function = PC_NONE, .file = PC_NONE,
				.module = PC_NONE,
			};
			uint64_t w = x + rec, wend = x + size;
			if (flags & 1) {
				if (wend - w < 8) { rc = pc_v4_fail_at(r, b, x, "flex words too few for its flags"); break; }
				int64_t i = elem(pc_getle(b->p + w, 8), r->fn_base,
						 r->fn_n, r->fn_stride);
				if (i < 0) { rc = pc_v4_fail_at(r, b, w, "pFunction is not a function of the Functions section"); break; }
				k.function = r->fn_id[i];
				w += 8;
			}
			if (flags & 2) {
				if (wend - w < 16) { rc = pc_v4_fail_at(r, b, x, "flex words too few for its flags"); break; }
				int64_t i = elem(pc_getle(b->p + w, 8), r->file_base,
						 r->file_n, r->file_stride);
				if (i < 0) { rc = pc_v4_fail_at(r, b, w, "pFile is not a file of the Source Files section"); break; }
				k.file = r->file_id[i];
				k.line = (uint32_t)pc_getle(b->p + w + 8, 4);
				w += 16;
			}
			if (flags & 4) {
				if (wend - w < 16) { rc = pc_v4_fail_at(r, b, x, "flex words too few for its flags"); break; }
				int64_t i = elem(pc_getle(b->p + w, 8), r->mod_base,
						 r->mod_n, r->mod_stride);
				if (i < 0) { rc = pc_v4_fail_at(r, b, w, "pModule is not a module of the Load Modules section"); break; }
				k.module = r->mod_id[i];
				k.offset = pc_getle(b->p + w + 8, 8);
			}
			/* a sibling twin of one this file already has
			 * stays a context of its own */
			/* the pre-release root's children: hpcprof's
			 * "<thread root>" frames below the application
			 * thread entry, the others below the main one */
			pc_id parent = a.parent;
			if (parent == PC_NONE)
				parent = pc_ctx_entry(
					r->db, k.function != PC_NONE &&
						       !strcmp(r->db->functions[k.function].name,
							       "<thread root>") ?
						       PC_ENTRY_APP_THREAD :
						       PC_ENTRY_MAIN);
			pc_id m;
			for (;;) {
				m = pc_ctx_child(r->db, parent, &k);
				if (m >= ntaken) {
					size_t n = r->db->ncontexts + 1024;
					taken = pc_xrealloc(taken, n, 1);
					memset(taken + ntaken, 0, n - ntaken);
					ntaken = n;
				}
				if (!taken[m] || k.twin == UINT8_MAX)
					break;
				k.twin++;
			}
			taken[m] = 1;
			if (id == 0) {
				rc = pc_v4_fail_at(r, b, x + 0x10, "ctxId 0 is the "
						   "global context");
				break;
			}
			if ((rc = pc_v4_ctx_bind(r, b, x + 0x10, id, m)))
				break;
			PC_GROW(q, nq, capq);
			q[nq++] = (struct pending){ pc_getle(c + 8, 8), pc_getle(c, 8), m, x };
			x += size;
		}
	}
	free(q);
	free(taken);
	return rc;
}

static int read_meta(struct reader *r)
{
	struct pc_blob *b = &r->meta;
	if (pc_v4_map_file(r, b, "meta.db", 0))
		return -1;
	if (pc_v4_file_header(r, b, "meta", "_meta.db", 8))
		return -1;
	for (unsigned i = 0; i < 8; i++)
		if (!pc_v4_ok_range(b, pc_v4_sec_ptr(b, i), sec_size(b, i)))
			return pc_v4_fail_at(r, b, 0x18 + 16 * i, "section %u runs "
					     "past the end of the file", i);
	uint64_t g = pc_v4_sec_ptr(b, 0);
	NEED(r, b, g, 0x10, "General section");
	const char *title = cstr(r, b, pc_getle(b->p + g, 8));
	if (!title)
		return -1;
	/* the first database's title and description, empty or not, so
	 * that a copy keeps them */
	const char *desc = cstr(r, b, pc_getle(b->p + g + 8, 8));
	if (!desc)
		return -1;
	if (!r->db->title) {
		r->db->title = pc_intern_cstr(r->db, title);
		r->db->description = pc_intern_cstr(r->db, desc);
	}
	uint64_t in = pc_v4_sec_ptr(b, 1);
	NEED(r, b, in, 9, "IdNames section");
	uint64_t names_at = pc_getle(b->p + in, 8);
	unsigned nkinds = b->p[in + 8];
	memset(r->kind_of, PC_ID_NKINDS, sizeof r->kind_of);
	for (unsigned k = 0; k < 256; k++)
		snprintf(r->kind_name[k], sizeof r->kind_name[k], "unnamed");
	if (nkinds)
		NEED(r, b, names_at, 8 * (uint64_t)nkinds, "IdNames");
	for (unsigned k = 0; k < nkinds; k++) {
		const char *name = cstr(r, b, pc_getle(b->p + names_at + 8 * k, 8));
		if (!name)
			return -1;
		snprintf(r->kind_name[k], sizeof r->kind_name[k], "'%s'", name);
		for (unsigned m = 0; m < PC_ID_NKINDS; m++)
			if (!strcmp(name, pc_idkind_names[m]))
				r->kind_of[k] = (uint8_t)m;
	}
	if (read_metrics(r))
		return -1;
	no_point(r);
	if (read_table(r, 5, "Load Modules", 0x10, &r->mod_base, &r->mod_n,
		       &r->mod_stride) ||
	    read_table(r, 6, "Source Files", 0x10, &r->file_base, &r->file_n,
		       &r->file_stride) ||
	    read_table(r, 7, "Functions", 0x28, &r->fn_base, &r->fn_n,
		       &r->fn_stride))
		return -1;
	r->mod_id = pc_xmalloc((r->mod_n + 1) * sizeof(pc_id));
	r->file_id = pc_xmalloc((r->file_n + 1) * sizeof(pc_id));
	r->fn_id = pc_xmalloc((r->fn_n + 1) * sizeof(pc_id));
	for (uint64_t i = 0; i < r->mod_n; i++) {
		const char *s = cstr(r, b, pc_getle(b->p + r->mod_base +
					      i * r->mod_stride + 8, 8));
		if (!s)
			return -1;
		r->mod_id[i] = pc_module_get(r->db, s);
	}
	for (uint64_t i = 0; i < r->file_n; i++) {
		const char *s = cstr(r, b, pc_getle(b->p + r->file_base +
					      i * r->file_stride + 8, 8));
		if (!s)
			return -1;
		r->file_id[i] = pc_file_get(r->db, s);
	}
	/* model functions this meta.db has used: its twins go on to the
	 * next dup ordinal */
	uint8_t *taken = pc_xcalloc(r->db->nfunctions + r->fn_n + 1, 1);
	for (uint64_t i = 0; i < r->fn_n; i++) {
		uint64_t e = r->fn_base + i * r->fn_stride;
		uint64_t pn = pc_getle(b->p + e, 8), pm = pc_getle(b->p + e + 8, 8),
			 pf = pc_getle(b->p + e + 0x18, 8);
		const char *name = pn ? cstr(r, b, pn) : "";
		if (!name) {
			free(taken);
			return -1;
		}
		int64_t mi = pm ? elem(pm, r->mod_base, r->mod_n, r->mod_stride)
				: -2;
		int64_t fi = pf ? elem(pf, r->file_base, r->file_n,
				       r->file_stride) : -2;
		if (mi == -1 || fi == -1) {
			free(taken);
			return pc_v4_fail_at(r, b, e, "function's module or file "
					     "pointer is not a table element");
		}
		/* twins (equal fields) stay distinct functions */
		pc_id mod = mi >= 0 ? r->mod_id[mi] : PC_NONE;
		pc_id file = fi >= 0 ? r->file_id[fi] : PC_NONE;
		uint64_t off = pc_getle(b->p + e + 0x10, 8);
		uint32_t line = (uint32_t)pc_getle(b->p + e + 0x20, 4);
		for (uint32_t dup = 0;; dup++) {
			r->fn_id[i] = pc_function_get_dup(r->db, name, mod, off,
							  file, line, dup);
			if (!taken[r->fn_id[i]])
				break;
		}
		taken[r->fn_id[i]] = 1;
	}
	free(taken);
	return read_tree(r);
}

static const char *ynode_str(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
		       (const char *)n->data.scalar.value : NULL;
}

/* The value of key k in mapping m, or NULL. */
static yaml_node_t *ynode_get(yaml_document_t *d, yaml_node_t *m,
			      const char *k)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     p < m->data.mapping.pairs.top; p++) {
		const char *key =
			ynode_str(yaml_document_get_node(d, p->key));
		if (key && !strcmp(key, k))
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

/* Why the inputs of a parsed default.yaml cannot stand for the v4
 * writer's (NULL: they can): each must be a metric of the model, in a
 * scope the writer gives every metric, summed as the writer sums it
 * ("$$", combine sum). why has room for 256 bytes. */
static const char *yaml_inputs_bad(const struct pc_db *db,
				   yaml_document_t *d, char *why)
{
	yaml_node_t *in = ynode_get(d, yaml_document_get_root_node(d),
				    "inputs");
	if (!in || in->type != YAML_SEQUENCE_NODE)
		return "it has no inputs list";
	for (yaml_node_item_t *i = in->data.sequence.items.start;
	     i < in->data.sequence.items.top; i++) {
		yaml_node_t *x = yaml_document_get_node(d, *i);
		const char *m = ynode_str(ynode_get(d, x, "metric")),
			   *sc = ynode_str(ynode_get(d, x, "scope")),
			   *f = ynode_str(ynode_get(d, x, "formula")),
			   *c = ynode_str(ynode_get(d, x, "combine"));
		int known = 0;
		for (unsigned k = 0; sc && k < PC_NSCOPES; k++)
			known |= !strcmp(sc, pc_scope_names[k]);
		if (m && known && f && !strcmp(f, "$$") && c &&
		    !strcmp(c, "sum") && pc_metric_find(db, m) != PC_NONE)
			continue;
		snprintf(why, 256, "input %.80s/%.20s/%.20s/%.20s is not one "
			 "profconv writes", m ? m : "?", sc ? sc : "?",
			 f ? f : "?", c ? c : "?");
		return why;
	}
	return NULL;
}

/* The descriptions of default.yaml's metrics (roots: name,
 * description) for this input's metrics (from m0 on) that have none;
 * a description that only repeats the name is none. */
static void yaml_descriptions(struct pc_db *db, yaml_document_t *d,
			      size_t m0)
{
	yaml_node_t *roots = ynode_get(d, yaml_document_get_root_node(d),
				       "roots");
	if (!roots || roots->type != YAML_SEQUENCE_NODE)
		return;
	for (yaml_node_item_t *i = roots->data.sequence.items.start;
	     i < roots->data.sequence.items.top; i++) {
		yaml_node_t *x = yaml_document_get_node(d, *i);
		const char *name = ynode_str(ynode_get(d, x, "name")),
			   *desc = ynode_str(ynode_get(d, x, "description"));
		pc_id m = name ? pc_metric_find(db, name) : PC_NONE;
		if (m != PC_NONE && m >= m0 && desc && strcmp(desc, name))
			pc_metric_get(db, name, desc, NULL);
	}
}

/* Keeps the input's metrics/default.yaml (db->yaml) for the v4 writer
 * when this input brought every metric of the model so far and the
 * file's inputs are ones the writer gives them; otherwise says why it
 * is not carried, or that there is none. Not fatal either way (the
 * output then gets a default.yaml of its own), but for a file that is
 * there and cannot be read (a FIFO, say): -1 with the error set. */
static int keep_yaml(struct reader *r, size_t m0)
{
	struct pc_db *db = r->db;
	struct pc_blob b;
	struct pc_err e = { 0 };
	int got = pc_blob_map(&b, r->dir, "metrics/default.yaml", 1, &e);
	if (got > 0) {
		pc_warn(db->diag, "%s: no metrics/default.yaml (an older "
			"hpcprof's database); databases profconv writes have "
			"one", r->dir);
		return 0;
	}
	if (got < 0) {
		*r->err = e;
		return -1;
	}
	char why[256];
	const char *bad = b.n ? NULL : "empty";
	yaml_parser_t p;
	yaml_document_t d;
	int loaded = 0;
	if (!bad && yaml_parser_initialize(&p)) {
		yaml_parser_set_input_string(&p, b.p, (size_t)b.n);
		loaded = yaml_parser_load(&p, &d);
		if (loaded && yaml_document_get_root_node(&d))
			yaml_descriptions(db, &d, m0);
		if (!loaded || !yaml_document_get_root_node(&d)) {
			snprintf(why, sizeof why, "line %zu: %s",
				 (size_t)p.problem_mark.line + 1,
				 p.problem ? p.problem : "not a YAML document");
			bad = why;
		}
		yaml_parser_delete(&p);
	} else if (!bad) {
		bad = "cannot start the YAML parser";
	}
	if (!bad)
		bad = yaml_inputs_bad(db, &d, why);
	if (loaded)
		yaml_document_delete(&d);
	if (bad) {
		/* a mapping error names the file already */
		pc_warn(db->diag, "%s: %s; metrics it hides or derives are "
			"presented as plain metrics in a v4 output", b.path,
			bad);
	} else if (m0 == 0 && !db->yaml) {
		char *keep = pc_db_alloc(db, (size_t)b.n + 1);
		memcpy(keep, b.p, (size_t)b.n);
		keep[b.n] = 0;
		db->yaml = keep;
		db->yaml_len = (size_t)b.n;
		db->yaml_nmetrics = db->nmetrics;
	}
	pc_blob_unmap(&b);
	return 0;
}

static int v4_read(struct pc_db *db, const char *path,
		   const struct pc_import_opts *opts, struct pc_err *err)
{
	struct reader *r = pc_xcalloc(1, sizeof(*r));
	r->db = db;
	r->point_only = opts && opts->point_only;
	r->jobs = opts ? opts->jobs : 1;
	r->dir = path;
	r->err = err;
	r->ctxmap = pc_keymap_new();
	size_t m0 = r->m0 = db->nmetrics;
	int rc = read_meta(r);
	if (!rc)
		rc = pc_v4_read_profiles(r);
	/* a pre-release database's default.yaml has formulas of another
	 * form (inclusive: *input) that hpcviewer 2024 shows no exclusive
	 * column for: the output gets one of its own */
	if (!rc && !r->prerelease)
		rc = keep_yaml(r, m0);
	if (!rc) {
		struct pc_blob cct = { 0 };
		int c = pc_v4_map_file(r, &cct, "cct.db", 1);
		if (c < 0 || (c == 0 && pc_v4_file_header(r, &cct, "ctxt", "__ctx.db",
							  1)))
			rc = -1;
		pc_v4_unmap(&cct);
	}
	pc_v4_unmap(&r->meta);
	pc_v4_unmap(&r->prof);
	pc_v4_unmap(&r->trace);
	pc_keymap_free(r->ctxmap);
	free(r->ids);
	free(r->dense);
	free(r->mod_id);
	free(r->file_id);
	free(r->fn_id);
	free(r->prof_id);
	free(r->el);
	free(r->derive);
	free(r->dx);
	free(r->ord);
	free(r->vague);
	free(r->lines);
	free(r->tfirst);
	free(r->resid.r);
	free(r->adds);
	free(r->elids);
	free(r);
	if (rc)
		pc_err_context(err, "reading HPCToolkit database '%s'", path);
	return rc;
}

static int v4_probe(const struct pc_probe *p)
{
	if (!p->is_dir)
		return 0;
	int meta = 0, prof = 0, xml = 0;
	for (size_t i = 0; i < p->nnames; i++) {
		meta |= !strcmp(p->names[i], "meta.db");
		prof |= !strcmp(p->names[i], "profile.db");
		xml |= !strcmp(p->names[i], "experiment.xml");
	}
	if (meta && prof)
		return 100;
	return meta && !xml ? 60 : 0;
}

const struct pc_importer pc_import_hpctoolkit = {
	.name = "hpctoolkit",
	.is_dir = 1,
	.streams = 1,
	.tree_first = 1,
	.description = "HPCToolkit v4 database directory (meta.db, "
		       "profile.db, trace.db)",
	.probe = v4_probe,
	.read = v4_read,
};
