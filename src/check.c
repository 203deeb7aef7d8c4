/* profconv check: strict validation of an HPCToolkit v4 database.
 *
 * This is an independent reader: it shares no knowledge of the format
 * with the exporter (exporters/hpctoolkit*.c) or the importer, only the
 * generic byte decoding of src/buf.h, so a misreading of the format
 * cannot hide in both. Each violation is reported as DB/FILE@OFFSET: rule. Rules are
 * the spec's (specs/000) plus what readers rely on (FORMAT-NOTES
 * section 1). Context ids absent from meta.db are allowed in the value
 * files: real databases elide some. */
#include "pc.h"
#include "buf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

struct file {
	const char *name; /* "meta.db", ... */
	const unsigned char *p;
	uint64_t n;
	/* profile.db, cct.db and trace.db are mapped, and their pages
	 * given back as they are checked (pc_blob_read) */
	struct pc_blob blob;
};

struct sec {
	uint64_t sz, p;
};

struct checker {
	const char *dir;
	struct pc_err err;
	int failed;
	/* meta.db facts the other files are checked against */
	unsigned nkinds;
	uint32_t maxctx;
	uint8_t *prop_ok, *stat_ok; /* by metric id */
	uint64_t nctx_meta;
	uint32_t nprofiles;
	uint64_t nvalues_prof, nvalues_cct;
	uint32_t *ids; /* every ctxId of meta.db */
	size_t nids, capids;
	/* a missing metrics/default.yaml is an error (our own output)
	 * or a warning (older hpcprof databases lack it) */
	int strict;
	struct pc_diag *diag;
	/* --values: function contexts and the summary's sums */
	int values;
	struct fctx {
		uint32_t id;
		const char *name;
		/* the nearest enclosing function context (index before the
		 * sort by id; UINT32_MAX: none), and whether one of those
		 * above has the same name (a recursive call: its inclusive
		 * value is inside that one's) */
		uint32_t up;
		int inner;
	} *fctx;
	size_t nfctx, capfctx;
	struct fval {
		const char *metric, *name;
		double v;
		int incl; /* an inclusive (execution) value */
	} *fval;
	size_t nfval, capfval;
	struct sec msec[8];
	struct file meta;
	unsigned jobs; /* profile.db and cct.db checked at once (> 1) */
	/* summaries, for default.yaml: (metric name, scope, formula,
	 * combine) */
	struct summ {
		const char *metric, *scope, *formula;
		unsigned combine;
		uint16_t id;
	} *summ;
	size_t nsumm, capsumm;
};

/* ---- little-endian reads, bounds-checked by the callers ---- */

#define U8(f, o) ((f)->p[(o)])
#define U16(f, o) ((uint16_t)pc_getle((f)->p + (o), 2))
#define U32(f, o) ((uint32_t)pc_getle((f)->p + (o), 4))
#define U64(f, o) (pc_getle((f)->p + (o), 8))

static int bad(struct checker *c, const struct file *f, uint64_t off,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int bad(struct checker *c, const struct file *f, uint64_t off,
	       const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char where[4200];
	snprintf(where, sizeof where, "%s/%s", c->dir, f->name);
	pc_err_at_off(&c->err, where, off, "%s", msg);
	c->failed = 1;
	return -1;
}

/* Is [off, off+len) inside [lo, hi)? */
static int inside(uint64_t off, uint64_t len, uint64_t lo, uint64_t hi)
{
	return off >= lo && off <= hi && len <= hi - off;
}

static int in_sec(const struct sec *s, uint64_t off, uint64_t len)
{
	return inside(off, len, s->p, s->p + s->sz);
}

/* A NUL-terminated string wholly inside section s. */
static int str_in(const struct file *f, const struct sec *s, uint64_t off)
{
	if (!in_sec(s, off, 1))
		return 0;
	uint64_t end = s->p + s->sz;
	return memchr(f->p + off, 0, end - off) != NULL;
}

static int load(struct checker *c, struct file *f, const char *name,
		int optional)
{
	f->name = name;
	int r = pc_blob_map(&f->blob, c->dir, name, optional, &c->err);
	if (r < 0)
		c->failed = 1;
	f->p = f->blob.p;
	f->n = f->blob.n;
	return r;
}

static void unload(struct file *f)
{
	pc_blob_unmap(&f->blob);
	f->p = NULL;
}


/* Magic, format, version, footer and the section table. */
static int header(struct checker *c, const struct file *f, const char *fmt,
		  const char *footer, unsigned nsec, uint64_t hdrsize,
		  struct sec *out, int unaligned)
{
	if (f->n < hdrsize + 8)
		return bad(c, f, 0, "file too short (%llu bytes) for its "
			   "header and footer", (unsigned long long)f->n);
	if (memcmp(f->p, "HPCTOOLKIT", 10) || memcmp(f->p + 10, fmt, 4))
		return bad(c, f, 0, "magic is not 'HPCTOOLKIT%s'", fmt);
	if (f->p[0xe] != 4)
		return bad(c, f, 0xe, "major version %u, not 4", f->p[0xe]);
	if (memcmp(f->p + f->n - 8, footer, 8))
		return bad(c, f, f->n - 8, "footer is not '%s'", footer);
	for (unsigned i = 0; i < nsec; i++) {
		uint64_t o = 0x10 + 16 * (uint64_t)i;
		out[i].sz = U64(f, o);
		out[i].p = U64(f, o + 8);
		/* a section of bare strings (index `unaligned`) may sit
		 * anywhere; every other one starts with a structure */
		if (out[i].p % 8 && (int)i != unaligned)
			return bad(c, f, o + 8, "section %u at 0x%llx is not "
				   "8-aligned", i, (unsigned long long)out[i].p);
		if (!inside(out[i].p, out[i].sz, hdrsize, f->n - 8))
			return bad(c, f, o + 8, "section %u [0x%llx, +0x%llx) "
				   "outside the file body", i,
				   (unsigned long long)out[i].p,
				   (unsigned long long)out[i].sz);
	}
	return 0;
}

/* ---- meta.db ---- */

static int element_of(uint64_t p, uint64_t base, uint64_t n, uint64_t stride)
{
	return p >= base && p < base + n * stride && (p - base) % stride == 0;
}

struct table {
	uint64_t base, n, stride;
};

static int meta_table(struct checker *c, const struct file *f, int si,
		      const char *what, struct table *t)
{
	const struct sec *s = &c->msec[si];
	if (s->sz < 0xe)
		return bad(c, f, s->p, "%s section too small", what);
	t->base = U64(f, s->p);
	t->n = U32(f, s->p + 8);
	t->stride = U16(f, s->p + 0xc);
	if (t->stride < 0x10)
		return bad(c, f, s->p + 0xc, "%s stride %llu too small", what,
			   (unsigned long long)t->stride);
	if (t->n && (t->base % 8 || !in_sec(s, t->base, t->n * t->stride)))
		return bad(c, f, s->p, "%s array outside its section", what);
	return 0;
}

static int meta_metrics(struct checker *c, const struct file *f)
{
	const struct sec *s = &c->msec[2];
	if (s->sz < 0x1b)
		return bad(c, f, s->p, "Metrics section too small");
	uint64_t pm = U64(f, s->p), nm = U32(f, s->p + 8);
	unsigned szm = U8(f, s->p + 0xc), szi = U8(f, s->p + 0xd),
		 szs = U8(f, s->p + 0xe);
	uint64_t ps = U64(f, s->p + 0x10), ns = U16(f, s->p + 0x18);
	unsigned szsc = U8(f, s->p + 0x1a);
	if (szm < 0x20 || szi < 0x10 || szs < 0x18 || szsc < 0x10)
		return bad(c, f, s->p + 0xc, "metric structure sizes %u/%u/%u/%u "
			   "below 32/16/24/16", szm, szi, szs, szsc);
	if (nm && (pm % 8 || !in_sec(s, pm, nm * szm)))
		return bad(c, f, s->p, "metric array outside the Metrics "
			   "section");
	if (ns && (ps % 8 || !in_sec(s, ps, ns * szsc)))
		return bad(c, f, s->p + 0x10, "scope array outside the Metrics "
			   "section");
	for (uint64_t i = 0; i < ns; i++) {
		uint64_t e = ps + i * szsc;
		if (!str_in(f, s, U64(f, e)))
			return bad(c, f, e, "scope name outside the Metrics "
				   "section");
		unsigned type = U8(f, e + 8), idx = U8(f, e + 9);
		if (type > 3)
			pc_warn(NULL, "unknown scope type");
		if (type == 3 && idx >= 16)
			return bad(c, f, e + 9, "transitive scope with "
				   "propagationIndex %u (must be < 16)", idx);
	}
	c->prop_ok = pc_xcalloc(65536, 1);
	c->stat_ok = pc_xcalloc(65536, 1);
	for (uint64_t i = 0; i < nm; i++) {
		uint64_t e = pm + i * szm;
		uint64_t name = U64(f, e), pi = U64(f, e + 8),
			 pss = U64(f, e + 0x10);
		uint64_t ni = U16(f, e + 0x18), nss = U16(f, e + 0x1a);
		if (!str_in(f, s, name))
			return bad(c, f, e, "metric name outside the Metrics "
				   "section");
		if (ni && (pi % 8 || !in_sec(s, pi, ni * szi)))
			return bad(c, f, e + 8, "scope instances outside the "
				   "Metrics section");
		if (nss && (pss % 8 || !in_sec(s, pss, nss * szs)))
			return bad(c, f, e + 0x10, "summaries outside the "
				   "Metrics section");
		for (uint64_t k = 0; k < ni; k++) {
			uint64_t x = pi + k * szi;
			if (!element_of(U64(f, x), ps, ns, szsc))
				return bad(c, f, x, "scope instance does not "
					   "point to a scope");
			uint16_t id = U16(f, x + 8);
			if (c->prop_ok[id])
				return bad(c, f, x + 8, "propMetricId %u used "
					   "twice", id);
			c->prop_ok[id] = 1;
		}
		for (uint64_t k = 0; k < nss; k++) {
			uint64_t x = pss + k * szs;
			uint64_t scope = U64(f, x), formula = U64(f, x + 8);
			unsigned comb = U8(f, x + 0x10);
			uint16_t id = U16(f, x + 0x12);
			if (!element_of(scope, ps, ns, szsc))
				return bad(c, f, x, "summary does not point to "
					   "a scope");
			if (!str_in(f, s, formula))
				return bad(c, f, x + 8, "formula outside the "
					   "Metrics section");
			if (comb > 2)
				return bad(c, f, x + 0x10, "unknown combine %u",
					   comb);
			if (c->stat_ok[id])
				return bad(c, f, x + 0x12, "statMetricId %u "
					   "used twice", id);
			c->stat_ok[id] = 1;
			if (k == 0 && (strcmp((char *)f->p + formula, "$$") ||
				       comb != 0))
				return bad(c, f, x, "first summary of a metric "
					   "is not '$$'/sum");
			PC_GROW(c->summ, c->nsumm, c->capsumm);
			c->summ[c->nsumm++] = (struct summ){
				(char *)f->p + name,
				(char *)f->p + U64(f, scope),
				(char *)f->p + formula, comb, id };
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Walks the context tree: entry points, then every children array. */
static int meta_tree(struct checker *c, const struct file *f,
		     const struct table *mods, const struct table *files,
		     const struct table *funcs)
{
	const struct sec *s = &c->msec[3];
	if (s->sz < 0xb)
		return bad(c, f, s->p, "Context section too small");
	uint64_t pe = U64(f, s->p), ne = U16(f, s->p + 8);
	unsigned sze = U8(f, s->p + 0xa);
	if (sze < 0x20)
		return bad(c, f, s->p + 0xa, "entry point size %u below 32",
			   sze);
	if (ne && (pe % 8 || !in_sec(s, pe, ne * sze)))
		return bad(c, f, s->p, "entry points outside the Context "
			   "section");
	uint8_t *seen = pc_xcalloc(s->sz / 0x20 + 2, 1);
	uint64_t seen_n = s->sz / 0x20 + 1;
	/* pending children arrays: (pointer, size) */
	struct arr {
		uint64_t p, sz, from;
		uint32_t fup; /* --values: the enclosing function's fctx */
	} *todo = NULL;
	size_t ntodo = 0, cap = 0;
	int rc = 0;
	for (uint64_t i = 0; i < ne && !rc; i++) {
		uint64_t e = pe + i * sze;
		uint32_t id = U32(f, e + 0x10);
		if (!id)
			rc = bad(c, f, e + 0x10, "entry point with ctxId 0");
		else if (U16(f, e + 0x14) > 2)
			pc_warn(NULL, "unknown entry point");
		if (!rc && !str_in(f, &c->msec[4], U64(f, e + 0x18)))
			rc = bad(c, f, e + 0x18, "entry point name outside the "
				 "Common String Table");
		PC_GROW(c->ids, c->nids, c->capids);
		c->ids[c->nids++] = id;
		PC_GROW(todo, ntodo, cap);
		todo[ntodo++] = (struct arr){ U64(f, e + 8), U64(f, e), e,
					       UINT32_MAX };
	}
	uint64_t count = ne;
	while (ntodo && !rc) {
		struct arr a = todo[--ntodo];
		if (!a.sz)
			continue; /* real writers leave a pointer here */
		if (!a.sz || a.p % 8 || !in_sec(s, a.p, a.sz)) {
			rc = bad(c, f, a.from, "children array [0x%llx, +0x%llx) "
				 "outside the Context section or misaligned",
				 (unsigned long long)a.p,
				 (unsigned long long)a.sz);
			break;
		}
		/* each array is visited once: a pointer loop would revisit */
		uint64_t slot = (a.p - s->p) / 0x20;
		if (slot < seen_n && seen[slot]) {
			rc = bad(c, f, a.from, "children array visited twice "
				 "(cycle in the context tree)");
			break;
		}
		if (slot < seen_n)
			seen[slot] = 1;
		for (uint64_t x = a.p; x < a.p + a.sz && !rc;) {
			if (a.p + a.sz - x < 0x20) {
				rc = bad(c, f, x, "context record runs past its "
					 "children array");
				break;
			}
			unsigned flags = U8(f, x + 0x14), rel = U8(f, x + 0x15),
				 lex = U8(f, x + 0x16), nw = U8(f, x + 0x17);
			uint64_t size = 0x20 + 8 * (uint64_t)nw;
			if (size > a.p + a.sz - x) {
				rc = bad(c, f, x, "context flex words run past "
					 "its children array");
				break;
			}
			if (rel > 2 || lex > 3)
				pc_warn(NULL, "unknown relation or lexical "
					"type");
			if ((flags & 1) && lex != 0) {
				rc = bad(c, f, x + 0x14, "hasFunction set on a "
					 "%s context", lex == 1 ? "loop" :
					 lex == 2 ? "line" : "instruction");
				break;
			}
			unsigned need = (flags & 1) + ((flags & 2) ? 2 : 0) +
					((flags & 4) ? 2 : 0);
			if (need > nw) {
				rc = bad(c, f, x + 0x17, "%u flex words for flags "
					 "0x%x that need %u", nw, flags, need);
				break;
			}
			uint64_t w = x + 0x20;
			if ((flags & 1) &&
			    !element_of(U64(f, w), funcs->base, funcs->n,
					funcs->stride)) {
				rc = bad(c, f, w, "pFunction is not a function "
					 "of the Functions section");
				break;
			}
			w += (flags & 1) ? 8 : 0;
			if ((flags & 2) &&
			    !element_of(U64(f, w), files->base, files->n,
					files->stride)) {
				rc = bad(c, f, w, "pFile is not a file of the "
					 "Source Files section");
				break;
			}
			w += (flags & 2) ? 16 : 0;
			if ((flags & 4) &&
			    !element_of(U64(f, w), mods->base, mods->n,
					mods->stride)) {
				rc = bad(c, f, w, "pModule is not a module of "
					 "the Load Modules section");
				break;
			}
			uint32_t id = U32(f, x + 0x10);
			if (id == 0) {
				rc = bad(c, f, x + 0x10, "ctxId 0 is reserved "
					 "for the global context");
				break;
			}
			PC_GROW(c->ids, c->nids, c->capids);
			c->ids[c->nids++] = id;
			uint32_t fup = a.fup;
			if (c->values && (flags & 1) && lex == 0) {
				uint64_t fn = U64(f, x + 0x20);
				uint64_t name = U64(f, fn);
				PC_GROW(c->fctx, c->nfctx, c->capfctx);
				c->fctx[c->nfctx] = (struct fctx){
					id, name ? (char *)f->p + name : "",
					a.fup, 0 };
				fup = (uint32_t)c->nfctx++;
			}
			if (++count > s->sz / 0x20 + 1) {
				rc = bad(c, f, x, "more contexts than the "
					 "section can hold (cycle?)");
				break;
			}
			PC_GROW(todo, ntodo, cap);
			todo[ntodo++] = (struct arr){ U64(f, x + 8), U64(f, x), x,
						       fup };
			x += size;
		}
	}
	c->nctx_meta = count;
	free(todo);
	free(seen);
	if (rc)
		return rc;
	/* each id once: a bitmap where the ids are dense (as writers make
	 * them), else a sort */
	uint32_t max = 0;
	for (size_t i = 0; i < c->nids; i++)
		max = c->ids[i] > max ? c->ids[i] : max;
	c->maxctx = max;
	if (max / 64 <= c->nids) {
		uint64_t *bits = pc_xcalloc(max / 64 + 1, sizeof(uint64_t));
		for (size_t i = 0; i < c->nids && !rc; i++) {
			uint32_t id = c->ids[i];
			if (bits[id / 64] >> (id % 64) & 1)
				rc = bad(c, f, s->p, "ctxId %u used twice", id);
			bits[id / 64] |= (uint64_t)1 << (id % 64);
		}
		free(bits);
		return rc;
	}
	qsort(c->ids, c->nids, sizeof(uint32_t), cmp_u32);
	for (size_t i = 1; i < c->nids; i++)
		if (c->ids[i] == c->ids[i - 1])
			return bad(c, f, s->p, "ctxId %u used twice", c->ids[i]);
	return 0;
}

static int check_meta(struct checker *c)
{
	struct file *f = &c->meta;
	if (load(c, f, "meta.db", 0))
		return -1;
	if (header(c, f, "meta", "_meta.db", 8, 0x90, c->msec, 4))
		return -1;
	const struct sec *g = &c->msec[0], *in = &c->msec[1];
	if (g->sz < 0x10 || !str_in(f, g, U64(f, g->p)) ||
	    !str_in(f, g, U64(f, g->p + 8)))
		return bad(c, f, g->p, "title or description outside the "
			   "General section");
	if (in->sz < 9)
		return bad(c, f, in->p, "IdNames section too small");
	uint64_t pn = U64(f, in->p);
	c->nkinds = U8(f, in->p + 8);
	if (c->nkinds && (pn % 8 || !in_sec(in, pn, 8 * (uint64_t)c->nkinds)))
		return bad(c, f, in->p, "kind names outside the IdNames "
			   "section");
	for (unsigned k = 0; k < c->nkinds; k++)
		if (!str_in(f, in, U64(f, pn + 8 * k)))
			return bad(c, f, pn + 8 * k, "kind name %u outside the "
				   "IdNames section", k);
	if (meta_metrics(c, f))
		return -1;
	struct table mods, files, funcs;
	if (meta_table(c, f, 5, "Load Modules", &mods) ||
	    meta_table(c, f, 6, "Source Files", &files) ||
	    meta_table(c, f, 7, "Functions", &funcs))
		return -1;
	const struct sec *strs = &c->msec[4];
	for (uint64_t i = 0; i < mods.n; i++)
		if (!str_in(f, strs, U64(f, mods.base + i * mods.stride + 8)))
			return bad(c, f, mods.base + i * mods.stride + 8,
				   "module path outside the Common String "
				   "Table");
	for (uint64_t i = 0; i < files.n; i++)
		if (!str_in(f, strs, U64(f, files.base + i * files.stride + 8)))
			return bad(c, f, files.base + i * files.stride + 8,
				   "file path outside the Common String Table");
	for (uint64_t i = 0; i < funcs.n; i++) {
		uint64_t e = funcs.base + i * funcs.stride;
		uint64_t name = U64(f, e), mod = U64(f, e + 8),
			 file = U64(f, e + 0x18);
		if (name && !str_in(f, strs, name))
			return bad(c, f, e, "function name outside the Common "
				   "String Table");
		if (mod && !element_of(mod, mods.base, mods.n, mods.stride))
			return bad(c, f, e + 8, "function's pModule is not a "
				   "module");
		if (file && !element_of(file, files.base, files.n,
					files.stride))
			return bad(c, f, e + 0x18, "function's pFile is not a "
				   "file");
		if (!name && !mod && !file)
			return bad(c, f, e, "function with no name, module or "
				   "file");
	}
	return meta_tree(c, f, &mods, &files, &funcs);
}

/* ---- profile.db ---- */

static int cmp_fctx(const void *a, const void *b)
{
	uint32_t x = ((const struct fctx *)a)->id, y = ((const struct fctx *)b)->id;
	return x < y ? -1 : x > y;
}

/* --values: the summary profile's '$$'/sum execution value at the global
 * context is a metric's total; its function-scope values at function
 * contexts, summed by function name, are the functions' self costs. */
static void note_value(struct checker *c, uint32_t ctx, uint16_t m,
		       const unsigned char *pv)
{
	const struct summ *s = NULL;
	for (size_t k = 0; k < c->nsumm && !s; k++)
		if (c->summ[k].id == m)
			s = &c->summ[k];
	if (!s || strcmp(s->formula, "$$") || s->combine != 0)
		return;
	uint64_t u = pc_getle(pv, 8);
	double v;
	memcpy(&v, &u, sizeof v);
	const char *name = NULL;
	int incl = !strcmp(s->scope, "execution");
	if (ctx == 0 && incl) {
		name = "";
		incl = 0;
	} else if (incl || !strcmp(s->scope, "function")) {
		struct fctx key = { ctx, NULL, 0, 0 };
		if (!c->nfctx)
			return;
		struct fctx *fc = bsearch(&key, c->fctx, c->nfctx,
					  sizeof(*c->fctx), cmp_fctx);
		if (!fc || (incl && fc->inner))
			return;
		name = fc->name;
	} else {
		return;
	}
	PC_GROW(c->fval, c->nfval, c->capfval);
	c->fval[c->nfval++] = (struct fval){ s->metric, name, v, incl };
}

static int cmp_fval(const void *a, const void *b)
{
	const struct fval *x = a, *y = b;
	if (x->incl != y->incl)
		return x->incl - y->incl;
	int r = strcmp(x->metric, y->metric);
	return r ? r : strcmp(x->name, y->name);
}

/* Sums of integer costs print as integers, not 45417.000000000007. */
static void print_num(FILE *out, double v)
{
	double r = nearbyint(v);
	if (fabs(v - r) <= 1e-9 * fabs(v) && fabs(r) < 9e15)
		fprintf(out, "%.0f\n", r);
	else
		fprintf(out, "%.17g\n", v);
}

static void print_values(struct checker *c, FILE *out)
{
	if (c->nfval)
		qsort(c->fval, c->nfval, sizeof(*c->fval), cmp_fval);
	for (size_t i = 0; i < c->nfval;) {
		size_t j = i;
		double sum = 0;
		while (j < c->nfval && !cmp_fval(&c->fval[i], &c->fval[j]))
			sum += c->fval[j++].v;
		if (!*c->fval[i].name)
			fprintf(out, "total\t%s\t", c->fval[i].metric);
		else
			fprintf(out, "%s\t%s\t%s\t",
				c->fval[i].incl ? "inclusive" : "function",
				c->fval[i].metric, c->fval[i].name);
		print_num(out, sum);
		i = j;
	}
}

static int check_block(struct checker *c, struct file *f, uint64_t at,
		       int summary)
{
	uint64_t nv = U64(f, at), pv = U64(f, at + 8);
	uint32_t nc = U32(f, at + 0x10);
	uint64_t pi = U64(f, at + 0x18);
	uint64_t lo = 0x30, hi = f->n - 8;
	if (nv && (pv % 2 || !inside(pv, nv * 10, lo, hi)))
		return bad(c, f, at + 8, "values [0x%llx, %llu x 10) outside "
			   "the file body", (unsigned long long)pv,
			   (unsigned long long)nv);
	if (nc && (pi % 4 || !inside(pi, (uint64_t)nc * 12, lo, hi)))
		return bad(c, f, at + 0x18, "context indices outside the file "
			   "body or misaligned");
	if (nv && nc && pv >= pi)
		return bad(c, f, at, "pValues not before pCtxIndices");
	if ((nv == 0) != (nc == 0))
		return bad(c, f, at, "%llu values but %u contexts",
			   (unsigned long long)nv, nc);
	uint64_t prev_start = 0;
	for (uint32_t i = 0; i < nc; i++) {
		uint64_t x = pi + 12 * (uint64_t)i;
		uint32_t ctx = U32(f, x);
		uint64_t start = pc_getle(f->p + x + 4, 8);
		if (i && ctx <= U32(f, x - 12))
			return bad(c, f, x, "context indices not sorted by "
				   "ctxId");
		if (i == 0 && start != 0)
			return bad(c, f, x + 4, "first startIndex is not 0");
		if (start < prev_start || start >= nv)
			return bad(c, f, x + 4, "startIndex %llu out of order "
				   "or range", (unsigned long long)start);
		if (i && start == prev_start)
			return bad(c, f, x + 4, "empty context entry");
		prev_start = start;
		uint64_t end = i + 1 < nc ? pc_getle(f->p + x + 16, 8) : nv;
		if (end > nv || end < start)
			end = nv;
		/* (the table and the note's test kept out of the loop, the
		 * previous id carried in it; a value's tests at once, each
		 * failure then told apart in the order they were made) */
		const unsigned char *ok = summary ? c->stat_ok : c->prop_ok;
		int note = c->values && summary;
		const unsigned char *y = f->p + pv + 10 * start;
		int32_t last = -1;
		for (uint64_t k = start; k < end; k++, y += 10) {
			uint16_t m = (uint16_t)pc_getle(y, 2);
			/* finite: an exponent not all ones */
			uint64_t u = pc_getle(y + 2, 8);
			if ((int32_t)m > last && ok[m] &&
			    (u & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL) {
				last = m;
				if (note)
					note_value(c, ctx, m, y + 2);
				continue;
			}
			if ((int32_t)m <= last)
				return bad(c, f, (uint64_t)(y - f->p),
					   "metric ids of context %u not "
					   "sorted", ctx);
			if (!ok[m])
				return bad(c, f, (uint64_t)(y - f->p),
					   "metric id %u is not a %s of "
					   "meta.db", m, summary ?
					   "statMetricId" : "propMetricId");
			double v;
			memcpy(&v, &u, sizeof v);
			return bad(c, f, (uint64_t)(y + 2 - f->p),
				   "value %s of context %u, metric id %u, is "
				   "not a finite number", isnan(v) ? "NaN" :
				   v > 0 ? "+infinity" : "-infinity", ctx, m);
		}
		pc_blob_read(&f->blob, end - start);
	}
	if (!summary)
		c->nvalues_prof += nv;
	return 0;
}

static int check_profile(struct checker *c)
{
	struct file f;
	struct sec s[2] = { 0 };
	if (load(c, &f, "profile.db", 0))
		return -1;
	if (c->values && c->nfctx) {
		for (size_t i = 0; i < c->nfctx; i++)
			for (uint32_t j = c->fctx[i].up;
			     j != UINT32_MAX && !c->fctx[i].inner;
			     j = c->fctx[j].up)
				c->fctx[i].inner =
					!strcmp(c->fctx[j].name, c->fctx[i].name);
		qsort(c->fctx, c->nfctx, sizeof(*c->fctx), cmp_fctx);
	}
	int rc = header(c, &f, "prof", "_prof.db", 2, 0x30, s, -1);
	if (!rc && s[0].sz < 0xd)
		rc = bad(c, &f, s[0].p, "ProfileInfos section too small");
	if (rc)
		goto out;
	uint64_t pp = U64(&f, s[0].p);
	uint32_t np = U32(&f, s[0].p + 8);
	unsigned szp = U8(&f, s[0].p + 0xc);
	c->nprofiles = np;
	if (szp < 0x30) {
		rc = bad(c, &f, s[0].p + 0xc, "szProfile %u below 48", szp);
		goto out;
	}
	if (!np || pp % 8 || !in_sec(&s[0], pp, (uint64_t)np * szp)) {
		rc = bad(c, &f, s[0].p, "profile array empty or outside its "
			 "section");
		goto out;
	}
	for (uint32_t i = 0; i < np && !rc; i++) {
		uint64_t e = pp + (uint64_t)i * szp;
		uint64_t tuple = U64(&f, e + 0x20);
		uint32_t flags = U32(&f, e + 0x28);
		if (i == 0 && !(flags & 1)) {
			rc = bad(c, &f, e + 0x28, "profile 0 is not the "
				 "summary profile");
			break;
		}
		if (tuple) {
			if (tuple % 8 || !in_sec(&s[1], tuple, 8)) {
				rc = bad(c, &f, e + 0x20, "id tuple outside the "
					 "IdTuples section");
				break;
			}
			uint16_t nids = U16(&f, tuple);
			if (!in_sec(&s[1], tuple + 8, 16 * (uint64_t)nids)) {
				rc = bad(c, &f, tuple, "id tuple runs past its "
					 "section");
				break;
			}
			for (uint16_t k = 0; k < nids && !rc; k++) {
				uint64_t x = tuple + 8 + 16 * (uint64_t)k;
				if (U8(&f, x) >= c->nkinds)
					rc = bad(c, &f, x, "identifier kind %u "
						 "has no name in meta.db",
						 U8(&f, x));
				else if (U16(&f, x + 2) > 1)
					pc_warn(NULL, "unknown id flags");
			}
		} else if (i) {
			rc = bad(c, &f, e + 0x20, "profile %u has no id "
				 "tuple", i);
		}
		if (!rc)
			rc = check_block(c, &f, e, flags & 1);
	}
out:
	unload(&f);
	return rc;
}

/* ---- cct.db ---- */

static int check_cct(struct checker *c)
{
	struct file f;
	struct sec s[1] = { 0 };
	if (load(c, &f, "cct.db", 0))
		return -1;
	int rc = header(c, &f, "ctxt", "__ctx.db", 1, 0x20, s, -1);
	if (!rc && s[0].sz < 0xd)
		rc = bad(c, &f, s[0].p, "CtxInfos section too small");
	if (rc)
		goto out;
	uint64_t pc = U64(&f, s[0].p);
	uint32_t nc = U32(&f, s[0].p + 8);
	unsigned szc = U8(&f, s[0].p + 0xc);
	if (szc < 0x20) {
		rc = bad(c, &f, s[0].p + 0xc, "szCtx %u below 32", szc);
		goto out;
	}
	if (pc % 8 || !in_sec(&s[0], pc, (uint64_t)nc * szc)) {
		rc = bad(c, &f, s[0].p, "context array outside its section");
		goto out;
	}
	if (nc < (uint64_t)c->maxctx + 1) {
		rc = bad(c, &f, s[0].p + 8, "%u context entries, but meta.db "
			 "has ctxId %u (every id needs one)", nc, c->maxctx);
		goto out;
	}
	uint64_t lo = 0x20, hi = f.n - 8;
	for (uint32_t i = 0; i < nc && !rc; i++) {
		uint64_t e = pc + (uint64_t)i * szc;
		uint64_t nv = U64(&f, e), pv = U64(&f, e + 8);
		uint16_t nm = U16(&f, e + 0x10);
		uint64_t pm = U64(&f, e + 0x18);
		if ((nv == 0) != (nm == 0)) {
			rc = bad(c, &f, e, "%llu values but %u metrics",
				 (unsigned long long)nv, nm);
			break;
		}
		if (!nv)
			continue;
		if (pv % 4 || !inside(pv, nv * 12, lo, hi) || pm % 2 ||
		    !inside(pm, (uint64_t)nm * 10, lo, hi) || pv >= pm) {
			rc = bad(c, &f, e, "value block of context %u outside "
				 "the file body or misordered", i);
			break;
		}
		/* the tests of a metric entry and of a value at once, each
		 * failure then told apart as it was found before (an
		 * index's 0 is out of order: every index is above the
		 * previous, the first above 0). An entry's end is the
		 * next one's start, which the test end > start (at the
		 * entry before) keeps above the previous start: no test
		 * of start against the previous one is needed */
		int32_t lastm = -1;
		uint32_t np = c->nprofiles;
		const unsigned char *me = f.p + pm;
		for (uint16_t k = 0; k < nm; k++, me += 10) {
			uint64_t x = pm + 10 * (uint64_t)k;
			uint16_t m = (uint16_t)pc_getle(me, 2);
			uint64_t start = pc_getle(me + 2, 8);
			uint64_t end = k + 1 < nm ? pc_getle(me + 12, 8) : nv;
			if ((int32_t)m <= lastm || !c->prop_ok[m] ||
			    (k == 0 && start) || end > nv || end <= start) {
				if ((int32_t)m <= lastm)
					rc = bad(c, &f, x, "metric indices of "
						 "context %u not sorted", i);
				else if (!c->prop_ok[m])
					rc = bad(c, &f, x, "metric id %u is "
						 "not a propMetricId", m);
				else
					rc = bad(c, &f, x + 2, "startIndex "
						 "%llu out of order or range",
						 (unsigned long long)start);
				break;
			}
			lastm = m;
			const unsigned char *y = f.p + pv + 12 * start;
			uint32_t last = 0;
			for (uint64_t v = start; v < end; v++, y += 12) {
				uint32_t pr = (uint32_t)pc_getle(y, 4);
				if (pr > last && pr < np) {
					last = pr;
					continue;
				}
				if (v > start && pr <= last)
					rc = bad(c, &f, (uint64_t)(y - f.p),
						 "profile indices not sorted");
				else
					rc = bad(c, &f, (uint64_t)(y - f.p),
						 "profile index %u not a "
						 "measured profile (1..%u)",
						 pr, np - 1);
				break;
			}
			if (rc)
				break;
		}
		c->nvalues_cct += nv;
		pc_blob_read(&f.blob, nv);
	}
out:
	unload(&f);
	return rc;
}

/* ---- trace.db ---- */

static int check_trace(struct checker *c)
{
	struct file f;
	struct sec s[1] = { 0 };
	int r = load(c, &f, "trace.db", 1);
	if (r)
		return r > 0 ? 0 : -1;
	int rc = header(c, &f, "trce", "trace.db", 1, 0x20, s, -1);
	if (!rc && s[0].sz < 0x20)
		rc = bad(c, &f, s[0].p, "CtxTraces section too small");
	if (rc)
		goto out;
	uint64_t pt = U64(&f, s[0].p);
	uint32_t nt = U32(&f, s[0].p + 8);
	unsigned szt = U8(&f, s[0].p + 0xc);
	uint64_t tmin = U64(&f, s[0].p + 0x10), tmax = U64(&f, s[0].p + 0x18);
	if (szt < 0x18 || (nt && (pt % 8 ||
				  !in_sec(&s[0], pt, (uint64_t)nt * szt)))) {
		rc = bad(c, &f, s[0].p, "trace headers outside their section "
			 "or too small");
		goto out;
	}
	for (uint32_t i = 0; i < nt && !rc; i++) {
		uint64_t e = pt + (uint64_t)i * szt;
		uint32_t pr = U32(&f, e);
		uint64_t a = U64(&f, e + 8), b = U64(&f, e + 0x10);
		if (pr == 0 || pr >= c->nprofiles) {
			rc = bad(c, &f, e, "trace of profile %u, not a measured "
				 "profile", pr);
			break;
		}
		if (b < a || (b - a) % 12 || !inside(a, b - a, 0x20, f.n - 8)) {
			rc = bad(c, &f, e + 8, "trace line [0x%llx, 0x%llx) "
				 "invalid", (unsigned long long)a,
				 (unsigned long long)b);
			break;
		}
		for (uint64_t x = a; x < b && !rc; x += 12) {
			pc_blob_read(&f.blob, 1); /* (in a long line too) */
			uint64_t t = U64(&f, x);
			uint32_t ctx = U32(&f, x + 8);
			if (x > a && t < U64(&f, x - 12))
				rc = bad(c, &f, x, "trace samples not sorted by "
					 "time");
			else if (x > a && ctx == 0 && U32(&f, x - 4) == 0)
				rc = bad(c, &f, x, "two consecutive 'not "
					 "running' (ctxId 0) samples");
			else if (t < tmin || t > tmax)
				rc = bad(c, &f, x, "timestamp outside "
					 "[minTimestamp, maxTimestamp]");
		}
	}
out:
	unload(&f);
	return rc;
}

/* ---- metrics/default.yaml ---- */

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *m, const char *k)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start;
	     p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *key = yaml_document_get_node(d, p->key);
		if (key && key->type == YAML_SCALAR_NODE &&
		    !strcmp((char *)key->data.scalar.value, k))
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

static const char *scalar_of(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (char *)n->data.scalar.value :
						  NULL;
}

static int yaml_bad(struct checker *c, unsigned long line, const char *msg,
		    const char *arg)
{
	char where[4200];
	snprintf(where, sizeof where, "%s/metrics/default.yaml", c->dir);
	pc_err_at_line(&c->err, where, line, "%s%s", msg, arg ? arg : "");
	c->failed = 1;
	return -1;
}

static int check_yaml(struct checker *c)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/metrics/default.yaml", c->dir);
	struct pc_err oe;
	FILE *fp = pc_fopen_file(path, &oe);
	if (!fp && errno == ENOENT && !c->strict) {
		pc_warn(c->diag, "%s: missing: neither hpcviewer (2024) "
			"nor hatchet opens this database (older hpcprof "
			"versions did not write it; profconv convert adds "
			"one)", path);
		return 0;
	}
	if (!fp) {
		pc_err_set(&c->err, "%s (hpcviewer and hatchet need it)",
			   oe.msg);
		c->failed = 1;
		return -1;
	}
	yaml_parser_t p;
	yaml_document_t d;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, fp);
	int rc = 0;
	if (!yaml_parser_load(&p, &d)) {
		rc = yaml_bad(c, p.problem_mark.line + 1, "not YAML: ",
			      p.problem);
		yaml_parser_delete(&p);
		fclose(fp);
		return rc;
	}
	yaml_node_t *root = yaml_document_get_root_node(&d);
	const char *version = scalar_of(map_get(&d, root, "version"));
	yaml_node_t *inputs = map_get(&d, root, "inputs");
	yaml_node_t *roots = map_get(&d, root, "roots");
	if (!version || strcmp(version, "0"))
		rc = yaml_bad(c, 1, "'version: 0' missing", NULL);
	else if (!inputs || inputs->type != YAML_SEQUENCE_NODE)
		rc = yaml_bad(c, 1, "'inputs:' list missing", NULL);
	else if (!roots || roots->type != YAML_SEQUENCE_NODE)
		rc = yaml_bad(c, 1, "'roots:' list missing", NULL);
	static const char *const combines[] = { "sum", "min", "max" };
	for (yaml_node_item_t *it = inputs ? inputs->data.sequence.items.start :
					     NULL;
	     !rc && it && it < inputs->data.sequence.items.top; it++) {
		yaml_node_t *in = yaml_document_get_node(&d, *it);
		const char *m = scalar_of(map_get(&d, in, "metric"));
		const char *s = scalar_of(map_get(&d, in, "scope"));
		const char *fo = scalar_of(map_get(&d, in, "formula"));
		const char *co = scalar_of(map_get(&d, in, "combine"));
		unsigned long line = in ? in->start_mark.line + 1 : 0;
		if (!m || !s || !fo || !co) {
			rc = yaml_bad(c, line, "input without metric, scope, "
				      "formula and combine", NULL);
			break;
		}
		int found = 0;
		for (size_t k = 0; k < c->nsumm && !found; k++)
			found = !strcmp(c->summ[k].metric, m) &&
				!strcmp(c->summ[k].scope, s) &&
				!strcmp(c->summ[k].formula, fo) &&
				!strcmp(combines[c->summ[k].combine], co);
		if (!found)
			rc = yaml_bad(c, line, "input matches no summary of "
				      "meta.db: metric ", m);
	}
	for (yaml_node_item_t *it = roots ? roots->data.sequence.items.start :
					    NULL;
	     !rc && it && it < roots->data.sequence.items.top; it++) {
		yaml_node_t *r = yaml_document_get_node(&d, *it);
		if (!scalar_of(map_get(&d, r, "name")) ||
		    !map_get(&d, r, "variants"))
			rc = yaml_bad(c, r ? r->start_mark.line + 1 : 0,
				      "root without name or variants", NULL);
	}
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
	fclose(fp);
	return rc;
}

/* Runs every check; 0 or -1 with c->err set. */
/* The number of profiles profile.db's header gives (0 if it is bad:
 * check_profile says why), for check_cct on a thread of its own. */
static uint32_t profile_count(const struct checker *c)
{
	struct checker t = *c;
	t.diag = NULL;
	struct file f;
	struct sec s[2] = { 0 };
	uint32_t np = 0;
	if (load(&t, &f, "profile.db", 0))
		return 0;
	if (!header(&t, &f, "prof", "_prof.db", 2, 0x30, s, -1) &&
	    s[0].sz >= 0xd)
		np = U32(&f, s[0].p + 8);
	unload(&f);
	return np;
}

/* check_profile on the checker, check_cct on its copy (its own error
 * and count: it reads only meta.db's facts) */
struct checks {
	struct checker *c, copy;
	int rc[2];
};

static void check_one(void *ctx, size_t i, unsigned thread)
{
	(void)thread;
	struct checks *j = ctx;
	j->rc[i] = i ? check_cct(&j->copy) : check_profile(j->c);
}

/* check_profile, then check_cct; with jobs, the two at once, the first
 * error in that order the one said. */
static int check_values(struct checker *c)
{
	if (c->jobs < 2) {
		int rc = check_profile(c);
		return rc ? rc : check_cct(c);
	}
	struct checks j = { c, *c, { 0, 0 } };
	j.copy.nprofiles = profile_count(c);
	pc_parallel(2, 2, check_one, &j);
	c->nvalues_cct = j.copy.nvalues_cct;
	if (!j.rc[0] && j.rc[1]) {
		c->err = j.copy.err;
		c->failed = 1;
		return j.rc[1];
	}
	return j.rc[0];
}

static int check_all(struct checker *c, const char *dir)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return pc_err_set(&c->err, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return pc_err_set(&c->err, "%s: not a directory (a v4 "
				  "database is a directory: meta.db, "
				  "profile.db, ...)", dir);
	int rc = check_meta(c);
	if (!rc)
		rc = check_values(c);
	if (!rc && c->nvalues_cct != c->nvalues_prof)
		rc = pc_err_set(&c->err, "%s: cct.db holds %llu values, "
				"profile.db's measured profiles %llu", dir,
				(unsigned long long)c->nvalues_cct,
				(unsigned long long)c->nvalues_prof);
	if (!rc)
		rc = check_trace(c);
	if (!rc)
		rc = check_yaml(c);
	return rc;
}

static void checker_free(struct checker *c)
{
	unload(&c->meta);
	free(c->prop_ok);
	free(c->stat_ok);
	free(c->summ);
	free(c->ids);
	free(c->fctx);
	free(c->fval);
}

int pc_check_db(const char *dir, unsigned jobs, struct pc_err *err)
{
	struct checker c = { .dir = dir, .strict = 1, .jobs = jobs };
	int rc = check_all(&c, dir);
	if (rc)
		pc_err_set(err, "%s", c.err.msg);
	checker_free(&c);
	return rc;
}

int pc_check_main(const char *dir, const struct pc_check_opts *o)
{
	struct checker c = { .dir = dir, .values = o->values,
			     .strict = o->strict, .diag = o->diag };
	int rc = check_all(&c, dir);
	if (rc) {
		if (!o->quiet_errors)
			fprintf(stderr, "profconv: error: %s\n", c.err.msg);
	} else if (o->values) {
		print_values(&c, o->out ? o->out : stdout);
	} else if (!o->quiet) {
		/* counted as `convert` counts: contexts without the root,
		 * profiles without the summary; values are every stored
		 * (profile, context, metric, scope) value, where convert
		 * counts point values */
		unsigned np = c.nprofiles - 1;
		unsigned long long nc = c.nctx_meta, nv = c.nvalues_prof;
		printf("ok: %s: %llu context%s (max id %u), %u profile%s + "
		       "summary, %llu stored value%s, %zu metric summar%s\n",
		       dir, nc, nc == 1 ? "" : "s", c.maxctx, np,
		       np == 1 ? "" : "s", nv, nv == 1 ? "" : "s", c.nsumm,
		       c.nsumm == 1 ? "y" : "ies");
	}
	checker_free(&c);
	return rc ? 1 : 0;
}
