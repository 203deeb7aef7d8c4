/* meta.db of an HPCToolkit v4 database, built in memory. Every string
 * lies in the section that points to it: title and description in
 * General, kind names in IdNames, metric/scope names and formulas in
 * Metrics; module, file and function names and entry point names in the
 * Common String Table. */
#include "hpctoolkit.h"
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define META_HEADER 0x90
#define SZ_METRIC 0x20
#define SZ_SCOPEINST 0x10
#define SZ_SUMMARY 0x18
#define SZ_SCOPE 0x10
#define SZ_MODULE 0x10
#define SZ_FILE 0x10
#define SZ_FUNCTION 0x28
#define SZ_ENTRY 0x20
#define SZ_CTX 0x20

static const char *const entry_names[] = {
	"unknown entry", "main thread", "application thread",
};

/* Section n of the header: size and pointer. */
static void set_section(struct pc_buf *b, int n, size_t start)
{
	pc_le64(b->p + 0x10 + 16 * n, b->n - start);
	pc_le64(b->p + 0x18 + 16 * n, start);
}

static void general(struct pc_buf *b, const struct pc_db *db)
{
	size_t s = pc_buf_align(b, 8);
	size_t h = pc_buf_add(b, 0x10);
	pc_le64(b->p + h, pc_buf_str(b, db->title ? db->title : "profconv"));
	const char *about = db->description ? db->description :
			    "Converted by profconv " PACKAGE_VERSION ".";
	char *with = NULL;
	if (db->cut_note) { /* where the tree was cut, said where it is */
		size_t n = strlen(about) + strlen(db->cut_note) + 8;
		with = pc_xmalloc(n);
		snprintf(with, n, "%s The %s.", about, db->cut_note);
		about = with;
	}
	pc_le64(b->p + h + 8, pc_buf_str(b, about));
	free(with);
	set_section(b, 0, s);
}

static void idnames(struct pc_buf *b)
{
	size_t s = pc_buf_align(b, 8);
	size_t h = pc_buf_add(b, 0x10);
	size_t arr = pc_buf_add(b, 8 * PC_ID_NKINDS);
	pc_le64(b->p + h, arr);
	b->p[h + 8] = PC_ID_NKINDS;
	for (int k = 0; k < PC_ID_NKINDS; k++)
		pc_le64(b->p + arr + 8 * k, pc_buf_str(b, pc_idkind_names[k]));
	set_section(b, 1, s);
}

static void metrics(struct pc_buf *b, const struct pc_db *db,
		    const struct hpc_layout *l)
{
	size_t s = pc_buf_align(b, 8);
	size_t h = pc_buf_add(b, 0x20);
	size_t scopes = pc_buf_add(b, SZ_SCOPE * HPC_NSCOPES);
	static const uint8_t type[HPC_NSCOPES] = { 1, 3, 0, 2 };
	static const uint8_t pidx[HPC_NSCOPES] = { 255, 0, 255, 255 };
	for (int i = 0; i < HPC_NSCOPES; i++) {
		size_t sc = scopes + SZ_SCOPE * (size_t)i;
		pc_le64(b->p + sc, pc_buf_str(b, pc_scope_names[i]));
		b->p[sc + 8] = type[i];
		b->p[sc + 9] = pidx[i];
	}
	size_t formulas[5];
	for (unsigned k = 0; k < l->npartials; k++)
		formulas[k] = pc_buf_str(b, hpc_partials[k].formula);
	pc_buf_align(b, 8);
	size_t md = pc_buf_add(b, SZ_METRIC * db->nmetrics);
	pc_le64(b->p + h, db->nmetrics ? md : 0);
	pc_le32(b->p + h + 8, (uint32_t)db->nmetrics);
	b->p[h + 0xc] = SZ_METRIC;
	b->p[h + 0xd] = SZ_SCOPEINST;
	b->p[h + 0xe] = SZ_SUMMARY;
	pc_le64(b->p + h + 0x10, scopes);
	pc_le16(b->p + h + 0x18, HPC_NSCOPES);
	b->p[h + 0x1a] = SZ_SCOPE;
	for (size_t m = 0; m < db->nmetrics; m++) {
		size_t name = pc_buf_str(b, db->metrics[m].name);
		/* the metric's scopes (a v4 input's own set); prop and
		 * stat ids keep their places */
		unsigned mask = l->scopes[m], nsc = 0;
		for (unsigned sc = 0; sc < HPC_NSCOPES; sc++)
			nsc += (mask >> sc) & 1;
		pc_buf_align(b, 8);
		size_t psi = pc_buf_add(b, SZ_SCOPEINST * nsc);
		for (unsigned sc = 0, i = 0; sc < HPC_NSCOPES; sc++) {
			if (!(mask & (1u << sc)))
				continue;
			pc_le64(b->p + psi + SZ_SCOPEINST * i,
				scopes + SZ_SCOPE * sc);
			pc_le16(b->p + psi + SZ_SCOPEINST * i + 8,
				hpc_prop_id(l, m, sc));
			i++;
		}
		size_t nsum = (size_t)l->npartials * nsc;
		size_t ss = pc_buf_add(b, SZ_SUMMARY * nsum);
		for (unsigned k = 0, i = 0; k < l->npartials; k++)
			for (unsigned sc = 0; sc < HPC_NSCOPES; sc++) {
				if (!(mask & (1u << sc)))
					continue;
				size_t e = ss + SZ_SUMMARY * i++;
				pc_le64(b->p + e, scopes + SZ_SCOPE * sc);
				pc_le64(b->p + e + 8, formulas[k]);
				b->p[e + 0x10] = hpc_partials[k].combine;
				pc_le16(b->p + e + 0x12, hpc_stat_id(l, m, k, sc));
			}
		size_t e = md + SZ_METRIC * m;
		pc_le64(b->p + e, name);
		pc_le64(b->p + e + 8, psi);
		pc_le64(b->p + e + 0x10, ss);
		pc_le16(b->p + e + 0x18, (uint16_t)nsc);
		pc_le16(b->p + e + 0x1a, (uint16_t)nsum);
	}
	set_section(b, 2, s);
}

/* Offsets of strings in the Common String Table, by interned pointer. */
struct strset {
	struct pc_keymap *map;
	const char **s;
	size_t *off;
	size_t n, cap;
};

static int strset_eq(const void *ctx, pc_id id, const void *key)
{
	const struct strset *t = ctx;
	return t->s[id] == key;
}

static size_t str_at(struct strset *t, struct pc_buf *b, const char *s)
{
	uint64_t h = pc_hash64((uint64_t)(uintptr_t)s);
	pc_id i = pc_keymap_find(t->map, h, strset_eq, t, s);
	if (i != PC_NONE)
		return t->off[i];
	size_t cap = t->cap;
	PC_GROW(t->s, t->n, t->cap);
	if (cap != t->cap)
		t->off = pc_xrealloc(t->off, t->cap, sizeof(*t->off));
	t->s[t->n] = s;
	t->off[t->n] = pc_buf_str(b, s);
	pc_keymap_insert(t->map, h, (pc_id)t->n);
	return t->off[t->n++];
}

/* Offsets of the module, file and function specifications. */
struct tables {
	size_t modules, files, functions;
};

/* The Load Modules or Source Files section: a header and an array of
 * {flags, pPath}; returns the array's offset. */
static size_t path_section(struct pc_buf *b, int sec, size_t n, size_t stride,
			   const size_t *paths)
{
	size_t s = pc_buf_align(b, 8);
	size_t h = pc_buf_add(b, 0x10);
	size_t arr = pc_buf_add(b, stride * n);
	pc_le64(b->p + h, n ? arr : 0);
	pc_le32(b->p + h + 8, (uint32_t)n);
	pc_le16(b->p + h + 0xc, (uint16_t)stride);
	for (size_t i = 0; i < n; i++)
		pc_le64(b->p + arr + stride * i + 8, paths[i]);
	set_section(b, sec, s);
	return arr;
}

static void strings_and_tables(struct pc_buf *b, const struct pc_db *db,
			       struct tables *t, size_t *entry_name)
{
	struct strset ss = { .map = pc_keymap_new() };
	size_t s = pc_buf_align(b, 8);
	size_t *mod = pc_xmalloc((db->nmodules + 1) * sizeof(size_t));
	size_t *fil = pc_xmalloc((db->nfiles + 1) * sizeof(size_t));
	size_t *fun = pc_xmalloc((db->nfunctions + 1) * sizeof(size_t));
	for (size_t i = 0; i < db->nmodules; i++)
		mod[i] = str_at(&ss, b, db->modules[i].path);
	for (size_t i = 0; i < db->nfiles; i++)
		fil[i] = str_at(&ss, b, db->files[i].path);
	for (size_t i = 0; i < db->nfunctions; i++)
		fun[i] = str_at(&ss, b, db->functions[i].name);
	for (int i = 0; i < 3; i++)
		entry_name[i] = pc_buf_str(b, entry_names[i]);
	set_section(b, 4, s);

	t->modules = path_section(b, 5, db->nmodules, SZ_MODULE, mod);
	t->files = path_section(b, 6, db->nfiles, SZ_FILE, fil);

	s = pc_buf_align(b, 8);
	size_t h = pc_buf_add(b, 0x10);
	t->functions = pc_buf_add(b, SZ_FUNCTION * db->nfunctions);
	pc_le64(b->p + h, db->nfunctions ? t->functions : 0);
	pc_le32(b->p + h + 8, (uint32_t)db->nfunctions);
	pc_le16(b->p + h + 0xc, SZ_FUNCTION);
	for (size_t i = 0; i < db->nfunctions; i++) {
		const struct pc_function *f = &db->functions[i];
		size_t e = t->functions + SZ_FUNCTION * i;
		pc_le64(b->p + e, fun[i]);
		if (f->module != PC_NONE)
			pc_le64(b->p + e + 8, t->modules + SZ_MODULE * f->module);
		pc_le64(b->p + e + 0x10, f->offset);
		if (f->file != PC_NONE)
			pc_le64(b->p + e + 0x18, t->files + SZ_FILE * f->file);
		pc_le32(b->p + e + 0x20, f->line);
	}
	set_section(b, 7, s);
	free(mod);
	free(fil);
	free(fun);
	pc_keymap_free(ss.map);
	free(ss.s);
	free(ss.off);
}

static unsigned flex_words(const struct pc_context *c, uint8_t *flags)
{
	unsigned w = 0;
	*flags = 0;
	if (c->function != PC_NONE) {
		*flags |= 1;
		w += 1;
	}
	if (c->file != PC_NONE) {
		*flags |= 2;
		w += 2;
	}
	if (c->module != PC_NONE) {
		*flags |= 4;
		w += 2;
	}
	return w;
}

static size_t ctx_size(const struct pc_context *c)
{
	uint8_t f;
	return SZ_CTX + 8 * flex_words(c, &f);
}

static void put_ctx(struct pc_buf *b, size_t at, const struct pc_db *db,
		    pc_id id, const struct tables *t)
{
	const struct pc_context *c = &db->contexts[id];
	uint8_t flags;
	unsigned w = flex_words(c, &flags);
	unsigned char *p = b->p + at;
	pc_le32(p + 0x10, id);
	p[0x14] = flags;
	p[0x15] = c->rel;
	p[0x16] = c->kind;
	p[0x17] = (uint8_t)w;
	/* bit 0 of propagation: the "function" scope flows from a context
	 * to its parent across a lexical nest, not across a call */
	pc_le16(p + 0x18, c->rel == PC_REL_LEXICAL ? 1 : 0);
	unsigned char *f = p + 0x20;
	if (flags & 1) {
		pc_le64(f, t->functions + SZ_FUNCTION * c->function);
		f += 8;
	}
	if (flags & 2) {
		pc_le64(f, t->files + SZ_FILE * c->file);
		pc_le32(f + 8, c->line);
		f += 16;
	}
	if (flags & 4) {
		pc_le64(f, t->modules + SZ_MODULE * c->module);
		pc_le64(f + 8, c->offset);
	}
}

/* The context tree: entry points, then each context's children in one
 * contiguous array, laid out breadth first. */
static void context_tree(struct pc_buf *b, const struct pc_db *db,
			 const struct tables *t, const size_t *entry_name)
{
	size_t n = db->ncontexts;
	uint32_t *start = pc_xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *kids = pc_xmalloc((n ? n : 1) * sizeof(uint32_t));
	for (size_t c = 1; c < n; c++)
		start[db->contexts[c].parent + 1]++;
	for (size_t c = 0; c < n; c++)
		start[c + 1] += start[c];
	uint32_t *fill = pc_xmalloc((n + 1) * sizeof(uint32_t));
	memcpy(fill, start, (n + 1) * sizeof(uint32_t));
	for (size_t c = 1; c < n; c++)
		kids[fill[db->contexts[c].parent]++] = (uint32_t)c;
	free(fill);

	/* the whole section at once: growing the buffer by doubling would
	 * copy it (and have its new pages zeroed) again and again */
	size_t total = 8 + 0x10 + SZ_ENTRY * (size_t)(start[1] - start[0]);
	for (size_t c = 1; c < n; c++)
		total += ctx_size(&db->contexts[c]);
	pc_buf_reserve(b, total);
	size_t s = pc_buf_align(b, 8);
	size_t h = pc_buf_add(b, 0x10);
	uint32_t nentries = start[1] - start[0];
	size_t entries = pc_buf_add(b, SZ_ENTRY * nentries);
	pc_le64(b->p + h, nentries ? entries : 0);
	pc_le16(b->p + h + 8, (uint16_t)nentries);
	b->p[h + 0xa] = SZ_ENTRY;
	/* where each context's record is, to fill in its children later */
	size_t *rec = pc_xmalloc((n ? n : 1) * sizeof(size_t));
	for (uint32_t i = 0; i < nentries; i++) {
		pc_id e = kids[start[0] + i];
		const struct pc_context *c = &db->contexts[e];
		size_t at = entries + SZ_ENTRY * i;
		rec[e] = at;
		pc_le32(b->p + at + 0x10, e);
		pc_le16(b->p + at + 0x14, c->entry);
		pc_le64(b->p + at + 0x18,
			entry_name[c->entry < 3 ? c->entry : 0]);
	}
	/* breadth first over ids: queue is kids[] order from the root */
	uint32_t *queue = pc_xmalloc((n ? n : 1) * sizeof(uint32_t));
	size_t qh = 0, qt = 0;
	for (uint32_t i = 0; i < nentries; i++)
		queue[qt++] = kids[start[0] + i];
	while (qh < qt) {
		pc_id p = queue[qh++];
		uint32_t k0 = start[p], k1 = start[p + 1];
		if (k0 == k1)
			continue;
		size_t sz = 0;
		for (uint32_t k = k0; k < k1; k++)
			sz += ctx_size(&db->contexts[kids[k]]);
		size_t arr = pc_buf_add(b, sz);
		pc_le64(b->p + rec[p], sz);
		pc_le64(b->p + rec[p] + 8, arr);
		for (uint32_t k = k0; k < k1; k++) {
			pc_id c = kids[k];
			rec[c] = arr;
			put_ctx(b, arr, db, c, t);
			arr += ctx_size(&db->contexts[c]);
			queue[qt++] = c;
		}
	}
	set_section(b, 3, s);
	free(queue);
	free(rec);
	free(start);
	free(kids);
}

int pc_hpc_write_meta(const struct pc_db *db, const struct hpc_layout *l,
		      const char *dir, uint64_t *bytes, struct pc_err *err)
{
	struct pc_buf b = { 0 };
	pc_buf_add(&b, META_HEADER);
	memcpy(b.p, "HPCTOOLKITmeta", 14);
	b.p[0xe] = 4;
	b.p[0xf] = 0;
	struct tables t;
	size_t entry_name[3];
	general(&b, db);
	idnames(&b);
	metrics(&b, db, l);
	strings_and_tables(&b, db, &t, entry_name);
	context_tree(&b, db, &t, entry_name);
	pc_buf_align(&b, 8);
	memcpy(b.p + pc_buf_add(&b, 8), "_meta.db", 8);
	*bytes = b.n;

	char path[4096];
	pc_path_join(path, sizeof path, dir, "meta.db");
	FILE *f = fopen(path, "wb");
	int rc = 0;
	if (!f || fwrite(b.p, 1, b.n, f) != b.n)
		rc = pc_err_set(err, "%s: cannot write: %s", path,
				strerror(errno));
	if (f && fclose(f) != 0 && !rc)
		rc = pc_err_set(err, "%s: cannot write: %s", path,
				strerror(errno));
	pc_buf_free(&b);
	return rc;
}
