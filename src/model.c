/* The model: interned strings, deduplicated tables, the calling-context
 * tree, profiles, sparse values and traces. */
#include "pc.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pc_idkind_names[PC_ID_NKINDS] = {
	"SUMMARY", "NODE", "RANK", "THREAD",
	"GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE",
};

struct pc_strtab {
	const char **s;
	size_t n, cap;
	struct pc_keymap *map;
};

struct strkey {
	const char *s;
	size_t len;
};

static int str_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_strtab *t = ctx;
	const struct strkey *k = key;
	const char *s = t->s[id];
	return strncmp(s, k->s, k->len) == 0 && s[k->len] == 0;
}

struct pc_db *pc_db_new(struct pc_diag *diag)
{
	struct pc_db *db = pc_xcalloc(1, sizeof(*db));
	db->arena = pc_arena_new();
	db->strings = pc_xcalloc(1, sizeof(*db->strings));
	db->strings->map = pc_keymap_new();
	db->module_map = pc_keymap_new();
	db->file_map = pc_keymap_new();
	db->function_map = pc_keymap_new();
	db->ctx_map = pc_keymap_new();
	db->metric_map = pc_keymap_new();
	db->diag = diag;
	db->program = PC_NONE;
	/* context 0: the global root */
	PC_GROW(db->contexts, db->ncontexts, db->capcontexts);
	db->contexts[0] = (struct pc_context){
		.parent = PC_NONE, .kind = PC_CTX_ENTRY, .function = PC_NONE,
		.file = PC_NONE, .module = PC_NONE,
	};
	db->ncontexts = 1;
	db->ctx_unmapped = SIZE_MAX;
	db->last_append = PC_NONE;
	db->values_sorted = 1;
	db->spill = (size_t)1 << 20;
	const char *e = getenv("PROFCONV_TRACE_SPILL"); /* (the tests') */
	if (e && *e)
		db->spill = (size_t)strtoull(e, NULL, 10);
	return db;
}

void pc_db_free(struct pc_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->nprofiles; i++)
		pc_trace_free(&db->traces[i]);
	free(db->traces);
	free(db->spool_dir);
	free(db->derived);
	free(db->strings->s);
	pc_keymap_free(db->strings->map);
	free(db->strings);
	pc_keymap_free(db->module_map);
	pc_keymap_free(db->file_map);
	pc_keymap_free(db->function_map);
	pc_keymap_free(db->ctx_map);
	pc_keymap_free(db->append_parents);
	pc_keymap_free(db->metric_map);
	free(db->modules);
	free(db->files);
	free(db->functions);
	free(db->contexts);
	free(db->metrics);
	free(db->profiles);
	free(db->values);
	free(db->scoped);
	pc_arena_free(db->arena);
	free(db);
}

void *pc_db_alloc(struct pc_db *db, size_t n)
{
	return pc_arena_alloc(db->arena, n);
}

const char *pc_intern(struct pc_db *db, const char *s, size_t len)
{
	const char *nul = memchr(s, 0, len);
	if (nul)
		len = (size_t)(nul - s);
	struct pc_strtab *t = db->strings;
	struct strkey k = { s, len };
	uint64_t h = pc_hash_bytes(s, len);
	pc_id id = pc_keymap_intern(t->map, h, str_eq, t, &k, (pc_id)t->n);
	if (id != t->n)
		return t->s[id];
	char *copy = pc_arena_alloc(db->arena, len + 1);
	memcpy(copy, s, len);
	copy[len] = 0;
	PC_GROW(t->s, t->n, t->cap);
	t->s[t->n++] = copy;
	return copy;
}

const char *pc_intern_cstr(struct pc_db *db, const char *s)
{
	return pc_intern(db, s, strlen(s));
}

/* Interned strings compare by pointer, so tables hash the pointer. */
static uint64_t ptr_hash(const void *p)
{
	return pc_hash64((uint64_t)(uintptr_t)p);
}

static int path_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_path *rows = ctx;
	return rows[id].path == key;
}

/* Find-or-create in a path table (modules or files). */
static pc_id path_get(struct pc_db *db, struct pc_path **rows, size_t *n,
		      size_t *cap, struct pc_keymap *map, const char *path)
{
	path = pc_intern_cstr(db, path);
	uint64_t h = ptr_hash(path);
	pc_id id = pc_keymap_find(map, h, path_eq, *rows, path);
	if (id != PC_NONE)
		return id;
	PC_GROW(*rows, *n, *cap);
	(*rows)[*n].path = path;
	pc_keymap_insert(map, h, (pc_id)*n);
	return (pc_id)(*n)++;
}

pc_id pc_module_get(struct pc_db *db, const char *path)
{
	return path_get(db, &db->modules, &db->nmodules, &db->capmodules,
			db->module_map, path);
}

pc_id pc_file_get(struct pc_db *db, const char *path)
{
	return path_get(db, &db->files, &db->nfiles, &db->capfiles,
			db->file_map, path);
}

static int function_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_db *db = ctx;
	const struct pc_function *a = &db->functions[id], *b = key;
	return a->name == b->name && a->module == b->module &&
	       a->offset == b->offset && a->file == b->file &&
	       a->line == b->line && a->dup == b->dup;
}

static uint64_t function_hash(const struct pc_function *f)
{
	return pc_hash64(ptr_hash(f->name) ^ pc_hash64(f->module) ^
			 pc_hash64(f->offset + 1) * 3 ^
			 pc_hash64(((uint64_t)f->file << 32) | f->line) * 5 ^
			 pc_hash64(f->dup) * 7);
}

/* The functions' lookup table made again from db->functions (their keys
 * changed, or some were taken off the end). */
static void functions_remap(struct pc_db *db)
{
	pc_keymap_free(db->function_map);
	db->function_map = pc_keymap_new();
	/* (its room at once, not grown in 13 steps for 100,000 functions) */
	pc_keymap_reserve(db->function_map, db->nfunctions);
	for (size_t i = 0; i < db->nfunctions; i++)
		pc_keymap_insert(db->function_map,
				 function_hash(&db->functions[i]), (pc_id)i);
}

void pc_functions_set_entries(struct pc_db *db, const uint64_t *offset,
			      const uint32_t *line, size_t n)
{
	for (size_t i = 0; i < n && i < db->nfunctions; i++) {
		struct pc_function *f = &db->functions[i];
		if (!f->offset && offset[i])
			f->offset = offset[i];
		if (!f->line && line[i])
			f->line = line[i];
	}
	functions_remap(db);
}

pc_id pc_function_find(const struct pc_db *db, const struct pc_function *fn)
{
	struct pc_function f = *fn;
	return pc_keymap_find(db->function_map, function_hash(&f), function_eq,
			      db, &f);
}

pc_id pc_function_append(struct pc_db *db, const struct pc_function *fn)
{
	struct pc_function f = *fn;
	f.name = pc_intern_cstr(db, f.name);
	PC_GROW(db->functions, db->nfunctions, db->capfunctions);
	db->functions[db->nfunctions] = f;
	pc_keymap_insert(db->function_map, function_hash(&f),
			 (pc_id)db->nfunctions);
	return (pc_id)db->nfunctions++;
}

pc_id pc_function_get(struct pc_db *db, const char *name, pc_id module,
		      uint64_t offset, pc_id file, uint32_t line)
{
	return pc_function_get_dup(db, name, module, offset, file, line, 0);
}

pc_id pc_function_get_dup(struct pc_db *db, const char *name, pc_id module,
			  uint64_t offset, pc_id file, uint32_t line,
			  uint32_t dup)
{
	return pc_function_get_interned(db, pc_intern_cstr(db, name), module,
					offset, file, line, dup);
}

pc_id pc_function_get_interned(struct pc_db *db, const char *name,
			       pc_id module, uint64_t offset, pc_id file,
			       uint32_t line, uint32_t dup)
{
	struct pc_function f = {
		.name = name, .module = module,
		.offset = offset, .file = file, .line = line, .dup = dup,
	};
	uint64_t h = function_hash(&f);
	pc_id id = pc_keymap_find(db->function_map, h, function_eq, db, &f);
	if (id != PC_NONE)
		return id;
	PC_GROW(db->functions, db->nfunctions, db->capfunctions);
	db->functions[db->nfunctions] = f;
	pc_keymap_insert(db->function_map, h, (pc_id)db->nfunctions);
	return (pc_id)db->nfunctions++;
}

static int metric_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_db *db = ctx;
	return db->metrics[id].name == key;
}

pc_id pc_metric_find(const struct pc_db *db, const char *name)
{
	for (size_t i = 0; i < db->nmetrics; i++)
		if (strcmp(db->metrics[i].name, name) == 0)
			return (pc_id)i;
	return PC_NONE;
}

static pc_id metric_get(struct pc_db *db, const char *name,
			const char *desc, const char *unit, int whole)
{
	name = pc_intern_cstr(db, name);
	uint64_t h = ptr_hash(name);
	pc_id id = pc_keymap_find(db->metric_map, h, metric_eq, db, name);
	if (id != PC_NONE) {
		/* a later input may know the long name */
		struct pc_metric *m = &db->metrics[id];
		if (desc && *desc && !*m->description)
			m->description = pc_intern_cstr(db, desc);
		if (!whole && m->whole) /* only when new: see pc_scoped_add */
			m->whole = 0;
		return id;
	}
	PC_GROW(db->metrics, db->nmetrics, db->capmetrics);
	db->metrics[db->nmetrics] = (struct pc_metric){
		.name = name,
		.description = pc_intern_cstr(db, desc ? desc : ""),
		.unit = pc_intern_cstr(db, unit ? unit : ""),
		.whole = (uint8_t)whole,
	};
	pc_keymap_insert(db->metric_map, h, (pc_id)db->nmetrics);
	return (pc_id)db->nmetrics++;
}

pc_id pc_metric_get(struct pc_db *db, const char *name, const char *desc,
		    const char *unit)
{
	return metric_get(db, name, desc, unit, 0);
}

pc_id pc_metric_get_whole(struct pc_db *db, const char *name,
			  const char *desc, const char *unit)
{
	return metric_get(db, name, desc, unit, 1);
}

/* Only the fields that belong to a context's kind make its identity, so
 * stray values in the others cannot split a context in two. */
static void ctx_normalize(struct pc_context *c)
{
	switch (c->kind) {
	case PC_CTX_ENTRY:
		c->twin = 0;
		c->function = c->file = c->module = PC_NONE;
		c->line = 0;
		c->offset = 0;
		c->rel = PC_REL_LEXICAL;
		break;
	case PC_CTX_LINE:
		c->module = PC_NONE;
		c->offset = 0;
		/* fall through */
	case PC_CTX_LOOP: /* a loop may name its address, as hpcprof's do */
		c->function = PC_NONE;
		c->entry = 0;
		break;
	case PC_CTX_INSTRUCTION:
		c->function = c->file = PC_NONE;
		c->line = 0;
		c->entry = 0;
		break;
	default:
		c->entry = 0;
		break;
	}
}

static uint64_t ctx_hash(const struct pc_context *c)
{
	uint64_t h = pc_hash64(((uint64_t)c->parent << 32) |
			       ((uint64_t)c->kind << 24) |
			       ((uint64_t)c->rel << 16) |
			       ((uint64_t)c->twin << 8) | c->entry);
	h = pc_hash64(h ^ (((uint64_t)c->function << 32) | c->file));
	h = pc_hash64(h ^ (((uint64_t)c->module << 32) | c->line));
	return pc_hash64(h ^ c->offset);
}

static int ctx_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_db *db = ctx;
	const struct pc_context *a = &db->contexts[id], *b = key;
	return a->parent == b->parent && a->kind == b->kind &&
	       a->rel == b->rel && a->entry == b->entry &&
	       a->twin == b->twin &&
	       a->function == b->function && a->file == b->file &&
	       a->line == b->line && a->module == b->module &&
	       a->offset == b->offset;
}

/* A tree a writer thread reads must not grow (struct pc_db, frozen). */
static void not_frozen(const struct pc_db *db, const char *what)
{
	if (db->frozen) {
		fprintf(stderr, "profconv: internal error: a %s added while "
			"a writer thread reads the model; please report this "
			"bug (-j1 converts without the thread)\n", what);
		exit(1);
	}
}

static pc_id ctx_add(struct pc_db *db, const struct pc_context *c)
{
	not_frozen(db, "context");
	if (db->ncontexts >= PC_NONE - 1) {
		fputs("profconv: error: more than 2^32 contexts\n", stderr);
		exit(1);
	}
	PC_GROW(db->contexts, db->ncontexts, db->capcontexts);
	db->contexts[db->ncontexts] = *c;
	return (pc_id)db->ncontexts++;
}

static int id_eq(const void *ctx, pc_id id, const void *key)
{
	(void)ctx;
	return id == *(const pc_id *)key;
}

pc_id pc_ctx_append(struct pc_db *db, pc_id parent,
		    const struct pc_context *key)
{
	struct pc_context c = *key;
	c.parent = parent;
	ctx_normalize(&c);
	if (parent != db->last_append) {
		if (!db->append_parents)
			db->append_parents = pc_keymap_new();
		pc_keymap_intern(db->append_parents, pc_hash64(parent), id_eq,
				 NULL, &parent, parent);
		db->last_append = parent;
	}
	if (db->ctx_unmapped > db->ncontexts)
		db->ctx_unmapped = db->ncontexts;
	return ctx_add(db, &c);
}

/* Puts the appended contexts into ctx_map (once one of their parents
 * is looked up in). */
static void ctx_map_appended(struct pc_db *db, pc_id parent)
{
	if (!db->ctx_map_dropped &&
	    (!db->append_parents ||
	     pc_keymap_find(db->append_parents, pc_hash64(parent), id_eq,
			    NULL, &parent) == PC_NONE))
		return;
	pc_keymap_reserve(db->ctx_map, db->ncontexts);
	for (size_t i = db->ctx_unmapped; i < db->ncontexts; i++) {
		const struct pc_context *c = &db->contexts[i];
		pc_keymap_intern(db->ctx_map, ctx_hash(c), ctx_eq, db, c,
				 (pc_id)i);
	}
	pc_keymap_free(db->append_parents);
	db->append_parents = NULL;
	db->last_append = PC_NONE;
	db->ctx_unmapped = SIZE_MAX;
	db->ctx_map_dropped = 0;
}

void pc_ctx_map_drop(struct pc_db *db)
{
	pc_keymap_free(db->ctx_map);
	db->ctx_map = pc_keymap_new();
	db->ctx_unmapped = 1; /* the global root is never looked up */
	db->ctx_map_dropped = 1;
}

/* Rolls the model back to its first nctx contexts, nval values and nfn
 * functions (what a trial layout added, callgrind_tree.c's default
 * bound's run under a larger --max-contexts): their lookup tables are
 * made again. */
void pc_db_rollback(struct pc_db *db, size_t nctx, size_t nval, size_t nfn)
{
	db->ncontexts = nctx < db->ncontexts ? nctx : db->ncontexts;
	db->nvalues = nval < db->nvalues ? nval : db->nvalues;
	pc_keymap_free(db->append_parents);
	db->append_parents = NULL;
	db->last_append = PC_NONE;
	pc_ctx_map_drop(db);
	if (db->nfunctions <= nfn)
		return;
	db->nfunctions = nfn;
	functions_remap(db);
}

pc_id pc_ctx_child(struct pc_db *db, pc_id parent, const struct pc_context *key)
{
	ctx_map_appended(db, parent);
	struct pc_context c = *key;
	c.parent = parent;
	ctx_normalize(&c);
	pc_id id = pc_keymap_intern(db->ctx_map, ctx_hash(&c), ctx_eq, db, &c,
				    (pc_id)db->ncontexts);
	if (id == db->ncontexts)
		ctx_add(db, &c);
	return id;
}

pc_id pc_ctx_entry(struct pc_db *db, enum pc_entry entry)
{
	struct pc_context key = { .kind = PC_CTX_ENTRY, .entry = entry };
	return pc_ctx_child(db, 0, &key);
}

pc_id pc_profile_add(struct pc_db *db, const struct pc_idelem *ids,
		     uint32_t nids)
{
	not_frozen(db, "profile");
	size_t cap = db->capprofiles;
	PC_GROW(db->profiles, db->nprofiles, db->capprofiles);
	if (cap != db->capprofiles) {
		db->traces = pc_xrealloc(db->traces, db->capprofiles,
					 sizeof(*db->traces));
	}
	struct pc_profile *p = &db->profiles[db->nprofiles];
	p->nids = nids;
	p->ids = pc_arena_alloc(db->arena, sizeof(*ids) * (nids ? nids : 1));
	if (nids)
		memcpy(p->ids, ids, sizeof(*ids) * nids);
	memset(&db->traces[db->nprofiles], 0, sizeof(*db->traces));
	return (pc_id)db->nprofiles++;
}

#define RESERVE(ptr, len, cap, more)                                         \
	do {                                                                 \
		size_t m_ = (more) > (size_t)1 << 26 ? (size_t)1 << 26 :     \
						      (more);                \
		if ((cap) - (len) < m_) {                                    \
			(cap) = (len) + m_;                                  \
			(ptr) = pc_xrealloc((ptr), (cap), sizeof(*(ptr)));   \
		}                                                            \
	} while (0)

void pc_values_reserve(struct pc_db *db, size_t n)
{
	RESERVE(db->values, db->nvalues, db->capvalues, n);
}

void pc_ctx_reserve(struct pc_db *db, size_t n)
{
	not_frozen(db, "context");
	RESERVE(db->contexts, db->ncontexts, db->capcontexts, n);
}

void pc_scoped_reserve(struct pc_db *db, size_t n)
{
	RESERVE(db->scoped, db->nscoped, db->capscoped, n);
}

const char *const pc_scope_names[PC_NSCOPES] = {
	"point", "function", "lex_aware", "execution",
};

/* Digits of 11 bits: 2,048 counters (16 KiB) a digit stay in the cache,
 * three a 32-bit field; from a million values on, of 16 bits, two a
 * field (measured: fewer passes over the large array pay more than the
 * counters' place in the cache). One pass counts every digit of every
 * field; a digit whose values are all alike is then left out. */
#define RADIX_BITS 11
#define RADIX_N (1u << RADIX_BITS)
#define RADIX_BIG ((size_t)1 << 20)
/* counters for nf fields of n values */
#define RADIX_COUNT(nf, n) ((size_t)(nf) * ((n) >= RADIX_BIG ? 2 << 16 : 3 << RADIX_BITS))

/* Counts c[0..nb) become where each digit's values start. */
static void radix_starts(size_t *c, size_t nb)
{
	size_t sum = 0;
	for (size_t x = 0; x < nb; x++) {
		size_t y = c[x];
		c[x] = sum;
		sum += y;
	}
}

static pc_id key_at(const struct pc_value *v, size_t field)
{
	pc_id k;
	memcpy(&k, (const char *)v + field, sizeof k);
	return k;
}

/* Sorts v[0..n) (n > 0) by the nf (<= 3) key fields in order[], with tmp
 * (n values) and count (RADIX_COUNT(nf, n)) as scratch. */
static void radix_sort(struct pc_value *v, size_t n, const size_t *order,
		       int nf, struct pc_value *tmp, size_t *count)
{
	unsigned bits = n >= RADIX_BIG ? 16 : RADIX_BITS,
		 nd = (32 + bits - 1) / bits;
	size_t nb = (size_t)1 << bits, mask = nb - 1;
	/* the least significant fields already in order (a Callgrind
	 * part's values come metric by metric): a stable pass by such a
	 * field moves nothing, so it is neither counted nor made (one
	 * look, which stops at the first value out of order) */
	while (nf > 0) {
		size_t i = 1, at = order[nf - 1];
		while (i < n && key_at(&v[i - 1], at) <= key_at(&v[i], at))
			i++;
		if (i < n)
			break;
		nf--;
	}
	memset(count, 0, sizeof(size_t) * (size_t)nf * nd * nb);
	for (size_t i = 0; i < n; i++)
		for (int f = 0; f < nf; f++) {
			pc_id k = key_at(&v[i], order[f]);
			size_t *c = count + (size_t)f * nd * nb;
			for (unsigned d = 0; d < nd; d++, c += nb)
				c[(k >> (d * bits)) & mask]++;
		}
	struct pc_value *a = v, *b = tmp;
	/* least significant field first */
	for (int f = nf - 1; f >= 0; f--) {
		for (unsigned d = 0; d < nd; d++) {
			unsigned shift = d * bits;
			size_t *c = count + ((size_t)f * nd + d) * nb;
			if (c[(key_at(&a[0], order[f]) >> shift) & mask] == n)
				continue;
			radix_starts(c, nb);
			for (size_t i = 0; i < n; i++)
				b[c[(key_at(&a[i], order[f]) >> shift) & mask]++] =
					a[i];
			struct pc_value *t = a;
			a = b;
			b = t;
		}
	}
	if (a != v)
		memcpy(v, a, n * sizeof(*v));
}

void pc_keyidx_sort(struct pc_keyidx *a, size_t n)
{
	/* in order already (an old database's nodes, mostly): one look */
	size_t run = 1;
	while (run < n && a[run - 1].key <= a[run].key)
		run++;
	if (run >= n)
		return;
	size_t count[RADIX_N];
	struct pc_keyidx *x = a, *y = a + n;
	for (unsigned shift = 0; shift < 32; shift += RADIX_BITS) {
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[(x[i].key >> shift) & (RADIX_N - 1)]++;
		if (count[(x[0].key >> shift) & (RADIX_N - 1)] == n)
			continue;
		radix_starts(count, RADIX_N);
		for (size_t i = 0; i < n; i++)
			y[count[(x[i].key >> shift) & (RADIX_N - 1)]++] = x[i];
		struct pc_keyidx *t = x;
		x = y;
		y = t;
	}
	if (x != a)
		memcpy(a, x, n * sizeof(*a));
}

void pc_values_sort(struct pc_value *v, size_t n, const size_t order[3])
{
	if (n < 2)
		return;
	struct pc_value *tmp = pc_xmalloc(n * sizeof(*tmp));
	size_t *count = pc_xmalloc(RADIX_COUNT(3, n) * sizeof(size_t));
	radix_sort(v, n, order, 3, tmp, count);
	free(count);
	free(tmp);
}

static int before(const struct pc_value *a, const struct pc_value *b)
{
	return a->profile != b->profile ? a->profile < b->profile :
	       a->ctx != b->ctx		? a->ctx < b->ctx :
					  a->metric < b->metric;
}

/* A stable merge sort of v[0..n) with tmp[0..n) as scratch: equal keys
 * keep their order, so duplicates are summed in the order they came, as
 * after a radix sort. */
static void merge_sort(struct pc_value *v, size_t n, struct pc_value *tmp)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	merge_sort(v, h, tmp);
	merge_sort(v + h, n - h, tmp);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = before(&v[j], &v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	memcpy(v, tmp, k * sizeof(*v));
}

/* One profile's values v[0..n) that are a few runs each in order
 * (a Callgrind part's rounded values come metric by metric, each
 * metric's in the order of the contexts): the runs merged into tmp and
 * copied back, 2 passes over the values instead of a radix sort's 4
 * (the generated 70 MB Callgrind file's 9.9 million values: the sort
 * 1,474 -> 1,207 M instructions). Ties go to the earlier run, so equal
 * keys keep their order, as in the radix sort: the same result.
 * Returns 0 (v untouched) if v is more than MERGE_RUNS runs. */
#define MERGE_RUNS 8
static int merge_runs(struct pc_value *v, size_t n, struct pc_value *tmp)
{
	size_t at[MERGE_RUNS + 1], end[MERGE_RUNS];
	uint64_t key[MERGE_RUNS];
	size_t nr = 0;
	at[0] = 0;
	for (size_t i = 1; i <= n; i++)
		if (i == n || before(&v[i], &v[i - 1])) {
			if (nr == MERGE_RUNS)
				return 0;
			end[nr] = i;
			at[++nr] = i;
		}
	/* a run's next key: (ctx, metric), UINT64_MAX once it is taken */
	for (size_t r = 0; r < nr; r++)
		key[r] = (uint64_t)v[at[r]].ctx << 32 | v[at[r]].metric;
	for (size_t k = 0; k < n; k++) {
		size_t best = 0;
		for (size_t r = 1; r < nr; r++)
			if (key[r] < key[best])
				best = r;
		size_t i = at[best]++;
		tmp[k] = v[i];
		key[best] = i + 1 < end[best] ?
				    (uint64_t)v[i + 1].ctx << 32 | v[i + 1].metric :
				    UINT64_MAX;
	}
	memcpy(v, tmp, n * sizeof(*v));
	return 1;
}

/* Values that come profile by profile (as databases store them) are
 * sorted one profile at a time: the scratch is one profile's values, not
 * all of them (a 3 GB database: 1.8 GB less, and the passes stay within
 * a smaller array). Returns 0 if the profiles are not in order. */
static int sort_by_profile(struct pc_value *v, size_t n, const size_t order[3])
{
	size_t big = 0;
	for (size_t s = 0, i = 1; i <= n; i++) {
		if (i < n && v[i].profile == v[s].profile)
			continue;
		if (i < n && v[i].profile < v[s].profile)
			return 0;
		big = i - s > big ? i - s : big;
		s = i;
	}
	struct pc_value *tmp = pc_xmalloc(big * sizeof(*tmp));
	size_t *count = pc_xmalloc(RADIX_COUNT(2, big) * sizeof(size_t));
	for (size_t s = 0, i = 1; i <= n; i++) {
		if (i < n && v[i].profile == v[s].profile)
			continue;
		size_t k = s + 1;
		while (k < i && !before(&v[k], &v[k - 1]))
			k++;
		/* a radix pass clears its counters: small runs are merged */
		if (k < i && i - s < 1024)
			merge_sort(v + s, i - s, tmp);
		else if (k < i && !merge_runs(v + s, i - s, tmp))
			radix_sort(v + s, i - s, order + 1, 2, tmp, count);
		s = i;
	}
	free(count);
	free(tmp);
	return 1;
}

/* Sorts v[0..*n) by (profile, ctx, metric), sums duplicates and drops
 * zeros; *n shrinks accordingly. */
static void sort_coalesce(struct pc_value *vals, size_t *n)
{
	static const size_t order[3] = {
		offsetof(struct pc_value, profile),
		offsetof(struct pc_value, ctx),
		offsetof(struct pc_value, metric),
	};
	/* importers that add values in order need no sort (nor its second
	 * array of the values' size) */
	int sorted = 1;
	for (size_t i = 1; i < *n && sorted; i++)
		sorted = !before(&vals[i], &vals[i - 1]);
	if (!sorted && !sort_by_profile(vals, *n, order))
		pc_values_sort(vals, *n, order);
	size_t out = 0;
	for (size_t i = 0; i < *n;) {
		struct pc_value v = vals[i++];
		while (i < *n && vals[i].profile == v.profile &&
		       vals[i].ctx == v.ctx && vals[i].metric == v.metric)
			v.value += vals[i++].value;
		if (v.value != 0)
			vals[out++] = v;
	}
	*n = out;
}

void pc_values_finish(struct pc_db *db)
{
	if (db->values_sorted)
		return;
	sort_coalesce(db->values, &db->nvalues);
	sort_coalesce(db->scoped, &db->nscoped);
	db->values_sorted = 1;
	/* the importers' scratch and the sort's array are freed by now;
	 * their pages inside the heap go back to the system too, but where
	 * pc_memory_init keeps the heap: there the writer takes what the
	 * reader freed, not faulted in again (malloc_trim's pages given
	 * back inside the heap split its huge pages too: the generated
	 * perf script text to folded, some 650 of its 2,000 faults) */
	if (!pc_heap_kept())
		pc_trim();
}

/* Whether every value of v[0..n) is of profile p. */
static int all_of(const struct pc_value *v, size_t n, pc_id p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].profile != p)
			return 0;
	return 1;
}

void pc_values_coalesce_from(struct pc_db *db, size_t v0, size_t s0)
{
	size_t n = db->nvalues - v0, sn = db->nscoped - s0;
	/* no offset on a NULL array: a model may hold no values yet */
	if (n)
		sort_coalesce(db->values + v0, &n);
	if (sn)
		sort_coalesce(db->scoped + s0, &sn);
	db->nvalues = v0 + n;
	db->nscoped = s0 + sn;
}

/* Whether v[0..n) is all of profile p, strictly in (ctx, metric) order
 * and without a zero: what sort_coalesce would leave as it is (as the
 * database importers add their values), found in one pass that writes
 * nothing. */
static int prepared(const struct pc_value *v, size_t n, pc_id p)
{
	uint64_t last = (uint64_t)v[0].ctx << 32 | v[0].metric;
	int bad = v[0].profile != p || v[0].value == 0;
	/* no branch within a run of values: where they pass, all of them
	 * do; where they do not, the first run says so */
	for (size_t i = 1; i < n && !bad;) {
		for (size_t e = n - i > 256 ? i + 256 : n; i < e; i++) {
			uint64_t key = (uint64_t)v[i].ctx << 32 | v[i].metric;
			bad |= (v[i].profile != p) | (key <= last) |
			       (v[i].value == 0);
			last = key;
		}
	}
	return !bad;
}

int pc_profile_prepare(pc_id p, struct pc_value *v, size_t *n,
		       struct pc_value *sv, size_t *sn, struct pc_err *err)
{
	/* no offset on a NULL array */
	int ok = 1;
	if (*n && !prepared(v, *n, p)) {
		sort_coalesce(v, n);
		ok = all_of(v, *n, p);
	}
	if (*sn && !prepared(sv, *sn, p)) {
		sort_coalesce(sv, sn);
		ok = ok && all_of(sv, *sn, p);
	}
	if (!ok)
		return pc_err_set(err, "internal: values of another profile "
				  "than %u in the model as it is done; please "
				  "report this bug", p);
	return 0;
}

pc_id *pc_share_profiles(struct pc_db *db, const pc_id *prof_of, uint64_t n,
			 int rank0_all)
{
	if (db->share_n < 2)
		return NULL;
	db->shared = 1;
	pc_id *mine = pc_xmalloc((n + 1) * sizeof(pc_id));
	for (uint64_t i = 0; i < n; i++) {
		pc_id p = prof_of[i];
		int own = p != PC_NONE &&
			  (rank0_all ? db->share_rank == 0 :
				       pc_share_own(db, p, db->nprofiles));
		mine[i] = own ? p : PC_NONE;
	}
	return mine;
}

int pc_profile_done(struct pc_db *db, pc_id p, struct pc_err *err)
{
	if (!db->sink)
		return 0;
	/* MPI: the profiles before this rank's share are other ranks' */
	if (db->share_n > 1 && p > db->nflushed && p < db->nprofiles)
		db->nflushed = p;
	if (p != db->nflushed || p >= db->nprofiles)
		return pc_err_set(err, "internal: profile %u done out of "
				  "order (%u expected); please report this "
				  "bug", p, db->nflushed);
	struct pc_trace *t = &db->traces[p];
	if (t->n && db->nplanned < db->nprofiles)
		return pc_err_set(err, "internal: a trace before the number "
				  "of profiles is known; please report this "
				  "bug");
	db->nflushed = p + 1;
	/* a writer thread takes the arrays and the trace's samples, and
	 * sorts them itself */
	if (db->async) {
		int rc = pc_async_put(db->async, db, p, err);
		db->nvalues = db->nscoped = 0;
		return rc;
	}
	if (pc_profile_prepare(p, db->values, &db->nvalues, db->scoped,
			       &db->nscoped, err))
		return -1;
	/* no offset on a NULL array: a profile may hold no values */
	int rc = db->sink->profile(db->sink, db, p,
				   db->nvalues ? db->values : NULL, db->nvalues,
				   db->nscoped ? db->scoped : NULL, db->nscoped,
				   t, err);
	db->flushed_values += db->nvalues;
	db->flushed_scoped += db->nscoped;
	db->nvalues = db->nscoped = 0;
	db->values_sorted = 1;
	pc_trace_free(t);
	t->map = NULL; /* (pc_feed's, gone with its trace) */
	t->nmap = 0;
	return rc;
}

uint64_t pc_values_total(const struct pc_db *db)
{
	return db->flushed_values + db->nvalues;
}

uint64_t pc_scoped_total(const struct pc_db *db)
{
	return db->flushed_scoped + db->nscoped;
}

uint64_t pc_samples_total(const struct pc_db *db)
{
	uint64_t n = 0;
	for (size_t p = 0; p < db->nprofiles; p++)
		n += db->traces[p].n;
	return n;
}

pc_id pc_main_module(const struct pc_db *db)
{
	if (db->program != PC_NONE)
		return db->program;
	for (size_t f = 0; f < db->nfunctions; f++)
		if (db->functions[f].module != PC_NONE &&
		    !strcmp(db->functions[f].name, "main"))
			return db->functions[f].module;
	if (db->title) {
		const char *cmd = db->title, *b = cmd;
		size_t n = strcspn(cmd, " ");
		for (size_t i = 0; i < n; i++)
			if (cmd[i] == '/')
				b = cmd + i + 1;
		n -= (size_t)(b - cmd);
		for (size_t m = 0; n && m < db->nmodules; m++) {
			const char *p = strrchr(db->modules[m].path, '/');
			p = p ? p + 1 : db->modules[m].path;
			if (!strncmp(p, b, n))
				return (pc_id)m;
		}
	}
	return PC_NONE;
}

void pc_db_cut(struct pc_db *db, double share, const char *note)
{
	if (db->cut_note && share <= db->cut_share)
		return;
	db->cut_note = pc_intern_cstr(db, note);
	db->cut_share = share;
}

static int value_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_value *a = &((const struct pc_db *)ctx)->values[id];
	const struct pc_value *b = key;
	return a->profile == b->profile && a->ctx == b->ctx &&
	       a->metric == b->metric;
}

void pc_value_sum(struct pc_db *db, struct pc_keymap *map, pc_id profile,
		  pc_id ctx, pc_id metric, double v)
{
	if (v == 0)
		return;
	struct pc_value k = { profile, ctx, metric, v };
	uint64_t h = pc_hash64(((uint64_t)profile << 32 | ctx) ^
			       pc_hash64(metric));
	pc_id i = pc_keymap_intern(map, h, value_eq, db, &k,
				   (pc_id)db->nvalues);
	if (i < db->nvalues) {
		db->values[i].value += v;
		return;
	}
	/* (the key was looked up in db->values: appended now) */
	PC_GROW(db->values, db->nvalues, db->capvalues);
	db->values[db->nvalues++] = k;
	db->values_sorted = 0;
}
