/* pprof's profile.proto, gzipped, for `go tool pprof`, Pyroscope, Grafana
 * and speedscope. One sample per context with a value: its stack is the
 * context's frames (stacks.h, as the Callgrind writer folds them), each
 * frame a location (function, line, module as mapping); one value per
 * metric, the sample types named after the metrics. One file holds every
 * profile, a sample per profile and context labelled with the profile's
 * ids (thread=3, rank=1...) where there are several (each profile's
 * sums wait in an unlinked file until the scales are known); --split
 * writes a file per profile, labelled so, its scales those of all the
 * data so that the files agree.
 *
 * The message is written in pieces: a serialized Profile that holds
 * some of the repeated fields, then another, and so on, which a reader
 * parses as one message holding them all (protobuf concatenates the
 * repeated fields of concatenated messages). Each piece is packed by
 * protobuf-c; samples go out as they are made, so the file is never
 * held whole. Values are integers: whole numbers as they are, other
 * metrics scaled as for Callgrind (seconds to nanoseconds where the
 * scale allows). */
#include "pc.h"
#include "internal.h"
#include "stacks.h"
#include "buf.h"
#include "profile.pb-c.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Label Label;

/* pieces of this many repeated entries */
#define BATCH 4096

struct loc {
	uint64_t fn, addr;
	int64_t line;
	pc_id module;
};
struct fun {
	const char *name;
	pc_id file;
	uint32_t line;
};

/* One output file being written. */
struct out {
	gzFile gz;
	struct pc_outfile *of; /* the caller's (a pc_dest stays put) */
	unsigned char *buf;
	size_t cap;
	int bad;
	/* strings by address (the model's are interned), in order */
	struct pc_keymap *smap;
	const char **str;
	size_t nstr, capstr;
	/* locations and functions (ids are index + 1) */
	struct pc_keymap *lmap, *fmap;
	struct loc *loc;
	size_t nloc, caploc;
	struct fun *fun;
	size_t nfun, capfun;
	uint64_t *locid; /* per context, 0: not made yet */
	uint64_t *limit; /* per module: highest address + 1 */
	uint8_t *has;    /* per metric: a sample has a value of it */
	/* the samples of the piece being made */
	Sample smp[BATCH], *sp[BATCH];
	size_t first[BATCH]; /* each sample's ids in ids (which may move) */
	size_t nsmp;
	uint64_t *ids;
	size_t nids, capids;
	int64_t *vals;
	uint64_t cut; /* samples whose stack was cut (maxstack) */
	size_t maxstack; /* frames a sample keeps (stack_cap) */
};

struct cell {
	pc_id ctx, metric;
	double v;
};

struct px {
	struct pc_sink sink;
	char out[4200];
	struct pc_export_opts o;
	const struct pc_db *db;
	struct pc_frames fr;
	size_t nm;       /* metrics */
	/* the sample types: one per metric, or of two runs compared (db->
	 * diff) one per metric of the runs; per model metric, its type
	 * (-1: none, a NEW - BASE) and whether it holds BASE's values, and
	 * per type, the model metric that names it */
	size_t nt;
	int *type;
	uint8_t *isbase;
	pc_id *tmet;
	/* the sums: one per (context, metric) with a value, as many as
	 * the model's values at most (a dense table of every context and
	 * metric could be far larger than the input) */
	struct cell *cell;
	size_t ncell, capcell;
	struct pc_keymap *cmap;
	/* per metric, over the cells written: the largest magnitude, the
	 * sum of magnitudes, whether every one is whole (the scales) */
	double *smax, *stot;
	uint8_t *swhole;
	/* the summed file of several profiles: a sample per profile and
	 * context, labelled with the profile's ids (thread=3, rank=1), so
	 * that one file answers -tags and -tagfocus. The cells above are
	 * those of profile cur; each profile's before it wait, sorted, in
	 * the spill (a record per profile: its id, its number of cells,
	 * the cells): in memory up to SPILL_MEM, past it an unlinked file,
	 * so that memory holds one profile's sums, not every value of the
	 * input, and a small output needs no temporary file */
	pc_id cur;
	size_t nspilled; /* profiles in the spill */
	struct pc_out spill;
	int spill_bad;
	char *mem; /* the spill while in memory (spill.f writes to it) */
	size_t memsize;
	int inmem;
	int *k;          /* per metric: values written times 10^k */
	uint8_t *counts; /* per metric: call counts, written whole */
	int64_t *whole;  /* per cell of such a metric: its whole count */
};

static void piece(struct out *w, const Profile *p)
{
	size_t n = protobuf_c_message_get_packed_size(&p->base);
	if (n > w->cap) {
		w->cap = n * 2;
		w->buf = pc_xrealloc(w->buf, w->cap, 1);
	}
	protobuf_c_message_pack(&p->base, w->buf);
	/* gzwrite takes an unsigned count: pieces are small */
	if (n && gzwrite(w->gz, w->buf, (unsigned)n) != (int)n)
		w->bad = 1;
}

static int str_eq(const void *ctx, pc_id id, const void *key)
{
	return ((const struct out *)ctx)->str[id] == key;
}

/* The index of an interned string in string_table. */
static int64_t str_id(struct out *w, const char *s)
{
	uint64_t h = pc_hash64((uint64_t)(uintptr_t)s);
	pc_id i = pc_keymap_intern(w->smap, h, str_eq, w, s, (pc_id)w->nstr);
	if (i == w->nstr) {
		PC_GROW(w->str, w->nstr, w->capstr);
		w->str[w->nstr++] = s;
	}
	return i;
}

static int fun_eq(const void *ctx, pc_id id, const void *key)
{
	const struct fun *a = &((const struct out *)ctx)->fun[id], *b = key;
	return a->name == b->name && a->file == b->file && a->line == b->line;
}

static int loc_eq(const void *ctx, pc_id id, const void *key)
{
	const struct loc *a = &((const struct out *)ctx)->loc[id], *b = key;
	return a->fn == b->fn && a->addr == b->addr && a->line == b->line &&
	       a->module == b->module;
}

/* The location of context c: its frame's function at its position. */
static uint64_t loc_of(struct px *x, struct out *w, pc_id c)
{
	if (w->locid[c])
		return w->locid[c];
	const struct pc_db *db = x->db;
	pc_id f = x->fr.frame[c];
	struct fun fk = { pc_frame_name(db, (struct pc_db *)db, f),
			  x->fr.file[f], x->fr.line[f] };
	/* a line of another file (code inlined from a header: Callgrind's
	 * fi=/fe=): pprof names a line's file by its function, so the
	 * function once more with that file, as pprof writes an inlined
	 * function's frames (not for a placeholder, "<unknown file>") */
	if (x->fr.file[c] != PC_NONE && fk.file != PC_NONE &&
	    x->fr.file[c] != fk.file && db->files[x->fr.file[c]].path[0] != '<') {
		fk.file = x->fr.file[c];
		fk.line = 0;
	}
	uint64_t h = pc_hash64((uint64_t)(uintptr_t)fk.name ^
			       pc_hash64(((uint64_t)fk.file << 32) | fk.line));
	pc_id fi = pc_keymap_intern(w->fmap, h, fun_eq, w, &fk, (pc_id)w->nfun);
	if (fi == w->nfun) {
		PC_GROW(w->fun, w->nfun, w->capfun);
		w->fun[w->nfun++] = fk;
	}
	struct loc lk = { fi + 1, x->fr.addr[c], x->fr.line[c],
			  pc_frame_module(db, f) };
	h = pc_hash64(lk.fn ^ pc_hash64(lk.addr) ^
		      pc_hash64(((uint64_t)lk.line << 32) | lk.module));
	pc_id li = pc_keymap_intern(w->lmap, h, loc_eq, w, &lk, (pc_id)w->nloc);
	if (li == w->nloc) {
		PC_GROW(w->loc, w->nloc, w->caploc);
		w->loc[w->nloc++] = lk;
		if (lk.module != PC_NONE && lk.addr >= w->limit[lk.module])
			w->limit[lk.module] = lk.addr + 1;
	}
	return w->locid[c] = li + 1;
}

static void flush_samples(struct out *w)
{
	if (!w->nsmp)
		return;
	for (size_t i = 0; i < w->nsmp; i++)
		w->smp[i].location_id = w->ids + w->first[i];
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	p.n_sample = w->nsmp;
	p.sample = w->sp;
	piece(w, &p);
	w->nsmp = w->nids = 0;
}

/* A sample of context c with values v[0..nm), labelled with lab. */
static void add_sample(struct px *x, struct out *w, pc_id c,
		       const int64_t *v, Label **lab, size_t nlab)
{
	const struct pc_db *db = x->db;
	Sample *s = &w->smp[w->nsmp];
	perftools__profiles__sample__init(s);
	size_t first = w->nids;
	/* the innermost frame first, then each caller's call site (the
	 * innermost maxstack of a deeper stack) */
	for (pc_id at = c;;) {
		PC_GROW(w->ids, w->nids, w->capids);
		w->ids[w->nids++] = loc_of(x, w, at);
		pc_id f = x->fr.frame[at];
		if (!f || !db->contexts[f].parent)
			break;
		if (w->nids - first == w->maxstack) {
			w->cut++;
			break;
		}
		at = db->contexts[f].parent;
	}
	s->n_location_id = w->nids - first;
	w->first[w->nsmp] = first;
	memcpy(w->vals + w->nsmp * x->nt, v, x->nt * sizeof(int64_t));
	s->n_value = x->nt;
	s->value = w->vals + w->nsmp * x->nt;
	s->n_label = nlab;
	s->label = lab;
	w->sp[w->nsmp] = s;
	if (++w->nsmp == BATCH)
		flush_samples(w);
}

/* The frames a sample keeps: PC_MAX_STACK, unless the samples' stacks
 * add up to more than STACK_TOTAL frames; then the most that keeps
 * them within it, but never fewer than STACK_FLOOR (what Go's runtime
 * and perf record keep). Every sample lists its whole stack, so a chain
 * of 10^5 calls, each with a cost, made 4 * 10^8 frames at 4,096 a
 * sample (9.5 s of CPU, 29 MB); the file's frames stay within
 * max(STACK_TOTAL, STACK_FLOOR * samples), linear in the samples. */
#define STACK_TOTAL ((uint64_t)1 << 25)
#define STACK_FLOOR 128

static size_t stack_cap(const struct px *x)
{
	/* samples by stack depth (PC_MAX_STACK: that deep or deeper); a
	 * context of x->cell is one sample (two for a diff's base: the
	 * bound is loose by that) */
	uint64_t *h = pc_xcalloc(PC_MAX_STACK + 1, sizeof(uint64_t));
	uint64_t total = 0, deeper = 0;
	for (size_t i = 0; i < x->ncell; i++) {
		if (i && x->cell[i].ctx == x->cell[i - 1].ctx)
			continue;
		uint32_t d = x->fr.depth[x->fr.frame[x->cell[i].ctx]];
		d = d > PC_MAX_STACK ? PC_MAX_STACK : d ? d : 1;
		h[d]++;
		total += d;
	}
	size_t k = PC_MAX_STACK;
	/* lower the cap while the frames pass the total: at cap k, the
	 * samples of depth k or more (deeper) each lose a frame */
	for (deeper = h[PC_MAX_STACK]; total > STACK_TOTAL && k > STACK_FLOOR;
	     k--) {
		total -= deeper;
		deeper += h[k - 1];
	}
	free(h);
	return k;
}

/* The module pprof's "File:" header names (mapping 1): the program's
 * own (pc_main_module), else the first. */
static pc_id main_module(const struct pc_db *db)
{
	if (!db->nmodules)
		return PC_NONE;
	pc_id m = pc_main_module(db);
	return m != PC_NONE ? m : 0;
}

/* Mapping ids: the main module's 1, the others in order after it. */
static uint64_t map_id(pc_id main, pc_id m)
{
	return m == main ? 1 : m < main ? (uint64_t)m + 2 : (uint64_t)m + 1;
}

static pc_id map_module(pc_id main, uint64_t id)
{
	return id == 1 ? main : id - 2 < main ? (pc_id)(id - 2) : (pc_id)(id - 1);
}

/* The tables: locations, functions, mappings, sample types, strings
 * (made last: every other piece names them). */
static void put_tables(struct px *x, struct out *w)
{
	const struct pc_db *db = x->db;
	pc_id main = main_module(db);
	struct pc_db *mdb = (struct pc_db *)db;
	void **ptrs = pc_xmalloc(BATCH * sizeof(void *));
	Location *lv = pc_xmalloc(BATCH * sizeof(Location));
	Line *ln = pc_xmalloc(BATCH * sizeof(Line));
	Line **lnp = pc_xmalloc(BATCH * sizeof(Line *));
	for (size_t i = 0; i < w->nloc;) {
		size_t n = 0;
		for (; n < BATCH && i < w->nloc; n++, i++) {
			const struct loc *l = &w->loc[i];
			perftools__profiles__location__init(&lv[n]);
			perftools__profiles__line__init(&ln[n]);
			lv[n].id = i + 1;
			lv[n].mapping_id = l->module != PC_NONE ?
						   map_id(main, l->module) : 0;
			lv[n].address = l->addr;
			ln[n].function_id = l->fn;
			ln[n].line = l->line;
			lnp[n] = &ln[n];
			lv[n].n_line = 1;
			lv[n].line = &lnp[n];
			ptrs[n] = &lv[n];
		}
		Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
		p.n_location = n;
		p.location = (Location **)ptrs;
		piece(w, &p);
	}
	free(lv);
	free(ln);
	free(lnp);
	Function *fv = pc_xmalloc(BATCH * sizeof(Function));
	for (size_t i = 0; i < w->nfun;) {
		size_t n = 0;
		for (; n < BATCH && i < w->nfun; n++, i++) {
			const struct fun *f = &w->fun[i];
			perftools__profiles__function__init(&fv[n]);
			fv[n].id = i + 1;
			fv[n].name = fv[n].system_name = str_id(w, f->name);
			fv[n].filename = f->file != PC_NONE ?
				str_id(w, db->files[f->file].path) : 0;
			fv[n].start_line = f->line;
			ptrs[n] = &fv[n];
		}
		Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
		p.n_function = n;
		p.function = (Function **)ptrs;
		piece(w, &p);
	}
	free(fv);
	Mapping *mv = pc_xmalloc(BATCH * sizeof(Mapping));
	for (size_t i = 0; i < db->nmodules;) {
		size_t n = 0;
		for (; n < BATCH && i < db->nmodules; n++, i++) {
			pc_id m = map_module(main, i + 1);
			perftools__profiles__mapping__init(&mv[n]);
			mv[n].id = i + 1;
			mv[n].memory_limit = w->limit[m];
			mv[n].filename = str_id(w, db->modules[m].path);
			mv[n].has_functions = mv[n].has_filenames = 1;
			mv[n].has_line_numbers = 1;
			ptrs[n] = &mv[n];
		}
		Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
		p.n_mapping = n;
		p.mapping = (Mapping **)ptrs;
		piece(w, &p);
	}
	free(mv);
	/* sample types, the first the default; the title as a comment */
	ValueType *tv = pc_xmalloc((x->nt + 1) * sizeof(ValueType));
	for (size_t m = 0; m < x->nt; m++) {
		const struct pc_metric *mt = &db->metrics[x->tmet[m]];
		int k = x->k[x->tmet[m]];
		const char *unit = pc_unit_name(mt, k);
		const char *name = db->diff ? db->diff[m].name : mt->name;
		if (!unit) {
			char buf[4200];
			snprintf(buf, sizeof buf, "%s (x1e%d)", name, k);
			name = pc_intern_cstr(mdb, buf);
			/* (scaled: not in the metric's unit, which pprof would
			 * print after each scaled value: "1849706136calls"
			 * for 1.85 million calls) */
			unit = "count";
		}
		perftools__profiles__value_type__init(&tv[m]);
		tv[m].type = str_id(w, name);
		tv[m].unit = str_id(w, pc_intern_cstr(mdb, unit));
	}
	int64_t comment = db->title ? str_id(w, db->title) : 0;
	for (size_t m = 0; m < x->nt;) {
		size_t n = 0;
		for (; n < BATCH && m < x->nt; n++, m++)
			ptrs[n] = &tv[m];
		Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
		p.n_sample_type = n;
		p.sample_type = (ValueType **)ptrs;
		piece(w, &p);
	}
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	/* the default: the first metric with values (an HPCToolkit GPU
	 * database's first can have none: "0 total") */
	size_t def = 0;
	while (def + 1 < x->nt && !w->has[def])
		def++;
	if (def < x->nt && !w->has[def])
		def = 0;
	p.default_sample_type = x->nt ? tv[def].type : 0;
	/* and where the tree was cut, a comment of its own */
	int64_t comments[2] = { comment, 0 };
	if (db->cut_note)
		comments[db->title ? 1 : 0] = str_id(w, db->cut_note);
	p.n_comment = (db->title ? 1 : 0) + (db->cut_note ? 1 : 0);
	if (p.n_comment)
		p.comment = comments;
	piece(w, &p);
	free(tv);
	/* strings: not UTF-8 bytes as \xHH, as every output writes them */
	char **esc = pc_xcalloc(BATCH, sizeof(char *));
	for (size_t i = 0; i < w->nstr;) {
		size_t n = 0;
		for (; n < BATCH && i < w->nstr; n++, i++) {
			esc[n] = pc_utf8_escape(w->str[i]);
			ptrs[n] = esc[n] ? esc[n] : (void *)(uintptr_t)w->str[i];
		}
		Profile q = PERFTOOLS__PROFILES__PROFILE__INIT;
		q.n_string_table = n;
		q.string_table = (char **)ptrs;
		piece(w, &q);
		for (size_t j = 0; j < n; j++) {
			free(esc[j]);
			esc[j] = NULL;
		}
	}
	free(esc);
	free(ptrs);
}

static void out_free(struct out *w)
{
	if (w->gz) { /* a failure: the file goes too */
		gzclose(w->gz);
		pc_outfile_abort(w->of);
	}
	pc_keymap_free(w->smap);
	pc_keymap_free(w->lmap);
	pc_keymap_free(w->fmap);
	free(w->buf);
	free(w->str);
	free(w->loc);
	free(w->fun);
	free(w->locid);
	free(w->limit);
	free(w->has);
	free(w->ids);
	free(w->vals);
	free(w);
}

static struct out *out_open(struct px *x, struct pc_outfile *of,
			    const char *path, struct pc_err *err)
{
	if (pc_outfile_open(of, path, err))
		return NULL;
	int fd = dup(fileno(of->f));
	gzFile gz = fd < 0 ? NULL : gzdopen(fd, "wb1");
	if (!gz) {
		if (fd >= 0)
			close(fd);
		pc_err_set(err, "%s: cannot write: %s", pc_outfile_name(of),
			   strerror(errno ? errno : ENOMEM));
		pc_outfile_abort(of);
		return NULL;
	}
	struct out *w = pc_xcalloc(1, sizeof(*w));
	w->of = of;
	w->gz = gz;
	w->smap = pc_keymap_new();
	w->lmap = pc_keymap_new();
	w->fmap = pc_keymap_new();
	str_id(w, ""); /* string_table[0] */
	w->locid = pc_xcalloc(x->db->ncontexts + 1, sizeof(uint64_t));
	w->limit = pc_xcalloc(x->db->nmodules + 1, sizeof(uint64_t));
	w->has = pc_xcalloc(x->nt + 1, 1);
	w->vals = pc_xmalloc(BATCH * (x->nt + 1) * sizeof(int64_t));
	return w;
}

/* Ends the gzip stream and closes the file, still under its
 * temporary name: 0, or -1 with err set (the file removed). */
static int out_close(struct out *w, struct pc_err *err)
{
	int rc = gzclose(w->gz);
	w->gz = NULL;
	if (rc != Z_OK || w->bad) {
		pc_err_set(err, "%s: cannot write: %s", pc_outfile_name(w->of),
			   strerror(errno ? errno : EIO));
		pc_outfile_abort(w->of);
		rc = -1;
	} else {
		rc = pc_outfile_close(w->of, err);
	}
	out_free(w);
	return rc;
}

static int cell_eq(const void *ctx, pc_id id, const void *key)
{
	const struct cell *a = &((const struct px *)ctx)->cell[id], *b = key;
	return a->ctx == b->ctx && a->metric == b->metric;
}

/* The metrics and the sample types of db (set once). */
static void set_types(struct px *x, const struct pc_db *db)
{
	if (x->type)
		return;
	x->nm = db->nmetrics; /* known before the first profile */
	x->nt = db->diff ? db->ndiff : db->nmetrics;
	x->type = pc_xmalloc((x->nm + 1) * sizeof(int));
	x->isbase = pc_xcalloc(x->nm + 1, 1);
	x->tmet = pc_xmalloc((x->nt + 1) * sizeof(pc_id));
	for (size_t m = 0; m < x->nm; m++)
		x->type[m] = db->diff ? -1 : (int)m;
	for (size_t t = 0; t < x->nt; t++)
		x->tmet[t] = (pc_id)t;
	for (size_t t = 0; db->diff && t < x->nt; t++) {
		x->type[db->diff[t].base] = x->type[db->diff[t].fresh] = (int)t;
		x->isbase[db->diff[t].base] = 1;
		x->tmet[t] = db->diff[t].fresh;
	}
}

static void sums_add(struct px *x, const struct pc_value *v, size_t n)
{
	if (!x->cmap)
		x->cmap = pc_keymap_new();
	for (size_t i = 0; i < n; i++) {
		if (x->type[v[i].metric] < 0)
			continue;
		struct cell k = { v[i].ctx, v[i].metric, 0 };
		uint64_t h = pc_hash64(((uint64_t)k.ctx << 32) | k.metric);
		pc_id c = pc_keymap_intern(x->cmap, h, cell_eq, x, &k,
					   (pc_id)x->ncell);
		if (c == x->ncell) {
			PC_GROW(x->cell, x->ncell, x->capcell);
			x->cell[x->ncell++] = k;
		}
		x->cell[c].v += v[i].value;
	}
}

/* Empties the sums (--split: the next profile's). */
static void sums_clear(struct px *x)
{
	pc_keymap_free(x->cmap);
	x->cmap = NULL;
	x->ncell = 0;
}

static int cmp_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* The cells' magnitudes into the scales' figures. */
static void stats_add(struct px *x)
{
	if (!x->smax) {
		x->smax = pc_xcalloc(x->nm + 1, sizeof(double));
		x->stot = pc_xcalloc(x->nm + 1, sizeof(double));
		x->swhole = pc_xmalloc(x->nm + 1);
		memset(x->swhole, 1, x->nm + 1);
	}
	for (size_t c = 0; c < x->ncell; c++) {
		pc_id m = x->cell[c].metric;
		double v = x->cell[c].v;
		x->smax[m] = fabs(v) > x->smax[m] ? fabs(v) : x->smax[m];
		x->stot[m] += fabs(v);
		x->swhole[m] &= (uint8_t)pc_is_whole(v);
	}
}

#define SPILL_MEM ((uint64_t)64 << 20)

/* The spill from memory to an unlinked file (spool_dir, else TMPDIR). */
static void spill_to_file(struct px *x)
{
	const char *dir = x->db->spool_dir;
	if (!dir) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	}
	pc_out_flush(&x->spill);
	int fd = -1;
	FILE *f = NULL;
	if (x->spill.failed || fflush(x->spill.f) ||
	    (fd = pc_unnamed_file(dir)) < 0 || !(f = fdopen(fd, "w+b")) ||
	    fwrite(x->mem, 1, x->memsize, f) != x->memsize) {
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		x->spill_bad = 1;
		return;
	}
	fclose(x->spill.f);
	free(x->mem);
	x->mem = NULL;
	x->spill.f = f;
	x->inmem = 0;
}

/* The cells of profile cur to the spill (sorted), made at the first. */
static void spill_cells(struct px *x)
{
	if (!x->nspilled && !x->spill_bad) {
		memset(&x->spill, 0, sizeof x->spill);
		x->spill.f = open_memstream(&x->mem, &x->memsize);
		x->spill.buf = pc_xmalloc(PC_OUT_BUF);
		x->inmem = 1;
		if (!x->spill.f)
			x->spill_bad = 1;
	}
	if (x->spill_bad)
		return;
	if (x->ncell)
		qsort(x->cell, x->ncell, sizeof(*x->cell), cmp_cell);
	uint64_t n = x->ncell;
	pc_out_write(&x->spill, &x->cur, sizeof x->cur);
	pc_out_write(&x->spill, &n, sizeof n);
	if (n)
		pc_out_write(&x->spill, x->cell, x->ncell * sizeof(*x->cell));
	if (x->inmem && x->spill.pos > SPILL_MEM)
		spill_to_file(x);
}

/* The summed file: profile p's values come; the cells of the profile
 * before it, if another, go to the spill. */
static void profile_next(struct px *x, pc_id p)
{
	if (p == x->cur || !x->ncell) {
		x->cur = p;
		return;
	}
	spill_cells(x);
	x->nspilled++;
	stats_add(x);
	sums_clear(x);
	x->cur = p;
}

/* The scales, from the figures of every cell (stats_add). */
static void choose_scales(struct px *x)
{
	const struct pc_db *db = x->db;
	stats_add(x);
	x->k = pc_xcalloc(x->nm + 1, sizeof(int));
	x->counts = pc_xcalloc(x->nm + 1, 1);
	for (size_t m = 0; m < x->nm; m++) {
		double max = x->smax[m], total = x->stot[m];
		int whole = x->swhole[m];
		/* call counts (the Calls of a call graph, shared out over
		 * the contexts of each call: not whole) are written as
		 * counts, each function's rounded sum exact (whole_counts);
		 * scaled, pprof printed 507208995calls for 507,209 */
		x->counts[m] = !whole && !strcmp(db->metrics[m].unit, "calls") &&
			       total < 9e15;
		int k = x->counts[m] ? 0 :
			pc_metric_scale(&db->metrics[m], max, total, whole);
		if (k < 0)
			pc_warn(db->diag, "metric '%s': its total %.17g does "
				"not fit pprof's 64-bit values; written in "
				"units of 1e%d (its sample type says so)",
				db->metrics[m].name, total, -k);
		x->k[m] = k;
	}
	/* two runs compared: one scale for both, the one that fits both */
	for (size_t t = 0; t < x->db->ndiff; t++) {
		const struct pc_diffm *d = &x->db->diff[t];
		int k = x->k[d->base] < x->k[d->fresh] ? x->k[d->base] :
							  x->k[d->fresh];
		x->k[d->base] = x->k[d->fresh] = k;
	}
}

/* Per cell of a call-count metric: its whole count. The counts of the
 * cells of one function (the frame of their context) are the floors of
 * their values, and the largest remainders get one more each, so that
 * each function's flat count is its sum rounded, and the total too. */
struct rem {
	pc_id fn;     /* the function (or frame) its context is in */
	double frac;
	size_t cell;
};
static int cmp_rem(const void *a, const void *b)
{
	const struct rem *x = a, *y = b;
	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	if (x->frac != y->frac)
		return x->frac > y->frac ? -1 : 1;
	return x->cell < y->cell ? -1 : x->cell > y->cell;
}
static void whole_counts(struct px *x)
{
	const struct pc_db *db = x->db;
	int any = 0;
	for (size_t m = 0; m < x->nm; m++)
		any |= x->counts[m];
	if (!any)
		return;
	free(x->whole);
	x->whole = pc_xcalloc(x->ncell + 1, sizeof(int64_t));
	struct rem *r = pc_xmalloc((x->ncell + 1) * sizeof(*r));
	for (size_t m = 0; m < x->nm; m++) {
		if (!x->counts[m])
			continue;
		size_t n = 0;
		for (size_t c = 0; c < x->ncell; c++) {
			if (x->cell[c].metric != m || !isfinite(x->cell[c].v))
				continue;
			pc_id f = x->fr.frame[x->cell[c].ctx];
			pc_id fn = db->contexts[f].kind == PC_CTX_FUNCTION ?
					   db->contexts[f].function : PC_NONE - f;
			double fl = floor(x->cell[c].v);
			x->whole[c] = (int64_t)fl;
			r[n++] = (struct rem){ fn, x->cell[c].v - fl, c };
		}
		qsort(r, n, sizeof(*r), cmp_rem);
		for (size_t i = 0; i < n;) {
			size_t j = i;
			double sum = 0, floors = 0;
			for (; j < n && r[j].fn == r[i].fn; j++) {
				sum += x->cell[r[j].cell].v;
				floors += (double)x->whole[r[j].cell];
			}
			double more = nearbyint(sum) - floors;
			for (size_t q = i; q < j && more >= 1; q++, more--)
				x->whole[r[q].cell]++;
			i = j;
		}
	}
	free(r);
}

/* The labels of profile pr's ids into lab/lp (room for its ids and one
 * more): their number. */
static uint32_t make_labels(struct px *x, struct out *w,
			    const struct pc_profile *pr, Label *lab, Label **lp)
{
	uint32_t nlab = pr ? pr->nids : 0;
	for (uint32_t j = 0; j < nlab; j++) {
		char kind[32];
		const struct pc_idelem *el = &pr->ids[j];
		snprintf(kind, sizeof kind, "%s", el->kind < PC_ID_NKINDS ?
			 pc_idkind_names[el->kind] : "id");
		for (char *q = kind; *q; q++)
			*q = (char)tolower((unsigned char)*q);
		perftools__profiles__label__init(&lab[j]);
		lab[j].key = str_id(w, pc_intern_cstr((struct pc_db *)x->db,
						      kind));
		lab[j].num = (int64_t)el->logical;
		/* with a unit: pprof drops a numeric label of 0 without
		 * one, and rank 0 or thread 0 could not be selected */
		lab[j].num_unit = str_id(w, "id");
		lp[j] = &lab[j];
	}
	/* two runs compared: BASE's values in samples of their own,
	 * negated and labelled pprof::base, as go tool pprof -diff_base
	 * makes them; the sum of the two is the change */
	if (x->db->diff) {
		perftools__profiles__label__init(&lab[nlab]);
		lab[nlab].key = str_id(w, "pprof::base");
		lab[nlab].str = str_id(w, "true");
		lp[nlab] = &lab[nlab];
	}
	return nlab;
}

/* A sample per context of the cells (sorted), labelled lp[0..nlab)
 * (BASE's with lp[nlab] too); their stacks within stack_cap's frames. */
static void put_cells(struct px *x, struct out *w, Label **lp, uint32_t nlab)
{
	whole_counts(x);
	w->maxstack = stack_cap(x);
	int64_t *iv = pc_xcalloc(2 * x->nt + 1, sizeof(int64_t));
	int64_t *ib = iv + x->nt;
	for (size_t i = 0; i < x->ncell;) {
		pc_id c = x->cell[i].ctx;
		int any = 0, anyb = 0;
		memset(iv, 0, 2 * x->nt * sizeof(int64_t));
		for (; i < x->ncell && x->cell[i].ctx == c; i++) {
			pc_id m = x->cell[i].metric;
			int t = x->type[m];
			double r = x->counts[m] ?
					   (double)x->whole[i] :
					   nearbyint(x->cell[i].v * pow(10, x->k[m]));
			if (x->isbase[m])
				r = -r;
			/* (the readers refuse NaN; kept safe anyway) */
			int64_t q = isnan(r) ? 0 : r >= 9.2e18 ? INT64_MAX :
				r <= -9.2e18 ? INT64_MIN : (int64_t)r;
			(x->isbase[m] ? ib : iv)[t] = q;
			(x->isbase[m] ? &anyb : &any)[0] |= q != 0;
			w->has[t] |= q != 0;
		}
		if (any)
			add_sample(x, w, c, iv, lp, nlab);
		if (anyb)
			add_sample(x, w, c, ib, lp, nlab + 1);
		if (!(c & 0xffff)) /* on a terminal, now and then */
			pc_progress(x->db->diag, "writing pprof samples", i,
				    x->ncell, UINT64_MAX);
	}
	free(iv);
	/* (the labels change with the next profile's) */
	flush_samples(w);
}

/* One file: a sample per context with a value in the sums, labelled
 * with profile pr's ids (pr NULL: the sum of every profile: of several,
 * each profile's samples labelled with its ids), into *of, closed, not
 * yet in place: 0, or -1 with err set (the temporary removed). */
static int write_file(struct px *x, const char *path,
		      const struct pc_profile *pr, struct pc_outfile *of,
		      struct pc_err *err)
{
	const struct pc_db *db = x->db;
	if (x->nspilled) { /* the last profile's too */
		spill_cells(x);
		x->nspilled++;
		pc_out_flush(&x->spill);
		/* (in memory: read back where it lies) */
		if (!x->spill_bad && x->inmem && !x->spill.failed) {
			x->spill.failed = fclose(x->spill.f) != 0;
			x->spill.f = x->spill.failed ? NULL :
				     fmemopen(x->mem, x->memsize, "rb");
			x->inmem = 0;
			if (!x->spill.f)
				x->spill_bad = 1;
		}
		if (x->spill_bad || x->spill.failed || fflush(x->spill.f) ||
		    fseeko(x->spill.f, 0, SEEK_SET))
			return pc_err_set(err, "pprof: cannot write or read "
					  "back a temporary file of the "
					  "profiles' sums (TMPDIR): %s",
					  strerror(errno ? errno : EIO));
	}
	struct out *w = out_open(x, of, path, err);
	if (!w)
		return -1;
	uint32_t maxids = pr ? pr->nids : 0;
	for (size_t p = 0; x->nspilled && p < db->nprofiles; p++)
		maxids = db->profiles[p].nids > maxids ?
				 db->profiles[p].nids : maxids;
	Label *lab = pc_xcalloc(maxids + 1, sizeof(Label));
	Label **lp = pc_xcalloc(maxids + 1, sizeof(Label *));
	int rc = 0;
	if (!x->nspilled) {
		/* the contexts in id order, each with its metrics' sums */
		if (x->ncell)
			qsort(x->cell, x->ncell, sizeof(*x->cell), cmp_cell);
		put_cells(x, w, lp, make_labels(x, w, pr, lab, lp));
	}
	for (size_t r = 0; r < x->nspilled && !rc; r++) {
		pc_id p;
		uint64_t n;
		if (fread(&p, sizeof p, 1, x->spill.f) != 1 ||
		    fread(&n, sizeof n, 1, x->spill.f) != 1 ||
		    p >= db->nprofiles || n > SIZE_MAX / sizeof(*x->cell)) {
			rc = pc_err_set(err, "pprof: the temporary file of the "
					"profiles' sums does not read back");
			break;
		}
		if (n > x->capcell) {
			x->cell = pc_xrealloc(x->cell, n, sizeof(*x->cell));
			x->capcell = n;
		}
		x->ncell = n;
		if (n && fread(x->cell, sizeof(*x->cell), n, x->spill.f) != n) {
			rc = pc_err_set(err, "pprof: the temporary file of the "
					"profiles' sums does not read back");
			break;
		}
		put_cells(x, w, lp, make_labels(x, w, &db->profiles[p], lab,
						 lp));
	}
	pc_progress_done(db->diag);
	if (w->cut)
		pc_warn(db->diag, "%llu sample(s) with stacks deeper than "
			"%zu frames: their outermost frames are left out (flat "
			"values are exact, cum values of those callers are not)",
			(unsigned long long)w->cut, w->maxstack);
	free(lab);
	free(lp);
	if (rc) {
		out_free(w);
		return -1;
	}
	put_tables(x, w);
	return out_close(w, err);
}

static int pp_profile(struct pc_sink *s, const struct pc_db *db, pc_id p,
		      const struct pc_value *v, size_t n,
		      const struct pc_value *sv, size_t sn,
		      const struct pc_trace *t, struct pc_err *err)
{
	struct px *x = (struct px *)s;
	(void)sv, (void)sn, (void)t, (void)err;
	x->db = db;
	set_types(x, db);
	pc_frames_update(&x->fr, db);
	profile_next(x, p);
	sums_add(x, v, n);
	return 0;
}

static struct pc_sink *pp_begin(const char *out,
				const struct pc_export_opts *opts,
				struct pc_err *err)
{
	char name[sizeof((struct px *)0)->out];
	if (pc_outfile_check(name, sizeof name, out, opts, err))
		return NULL;
	struct px *x = pc_xcalloc(1, sizeof(*x));
	x->sink.profile = pp_profile;
	strcpy(x->out, name);
	x->o = *opts;
	return &x->sink;
}

static void px_free(struct px *x)
{
	pc_frames_free(&x->fr);
	free(x->cell);
	pc_keymap_free(x->cmap);
	free(x->k);
	free(x->counts);
	free(x->smax);
	free(x->stot);
	free(x->swhole);
	if (x->spill.f)
		pc_out_close(&x->spill);
	free(x->spill.buf);
	free(x->mem);
	free(x->whole);
	free(x->type);
	free(x->isbase);
	free(x->tmet);
	free(x);
}

static void pp_abort(struct pc_sink *s)
{
	px_free((struct px *)s);
}

static int pp_end(struct pc_sink *s, const struct pc_db *db,
		  struct pc_err *err)
{
	struct px *x = (struct px *)s;
	int rc = 0;
	x->db = db;
	if (!db->nprofiles)
		rc = pc_err_set(err, "nothing to write: no profiles");
	else if (!db->nmetrics)
		rc = pc_err_set(err, "nothing to write: no metrics");
	if (!rc) {
		set_types(x, db);
		pc_frames_update(&x->fr, db);
		/* profile by profile (the model's values are sorted) */
		for (size_t i = 0, e; i < db->nvalues; i = e) {
			for (e = i; e < db->nvalues &&
			     db->values[e].profile == db->values[i].profile; e++)
				;
			profile_next(x, db->values[i].profile);
			sums_add(x, db->values + i, e - i);
		}
		choose_scales(x);
		struct pc_outfile of;
		rc = write_file(x, x->out, NULL, &of, err);
		if (!rc)
			rc = pc_outfile_commit(&of, db->diag, err);
		/* an earlier --split of the same name goes with it */
		if (!rc && strcmp(x->out, "-"))
			pc_split_done(x->out, ".pb.gz", 0, &x->o, db->diag);
	}
	px_free(x);
	return rc;
}

static int pp_write_split(const struct pc_db *db, const char *out,
			  const struct pc_export_opts *opts,
			  struct pc_err *err)
{
	size_t nout = db->nprofiles;
	if (!nout)
		return pc_err_set(err, "nothing to write: no profiles");
	if (!db->nmetrics)
		return pc_err_set(err, "nothing to write: no metrics");
	if (!strcmp(out, "-"))
		return pc_err_set(err, "--split writes several files: it "
				  "needs an output name, not '-'");
	char (*final)[4200] = pc_xcalloc(nout, sizeof(*final));
	int rc = 0;
	for (size_t i = 0; i < nout && !rc; i++) {
		pc_split_name(final[i], sizeof final[i], out, ".pb.gz", i + 1);
		rc = pc_dest_check(final[i], 0, opts->force, NULL, err);
	}
	struct px *x = pc_xcalloc(1, sizeof(*x));
	x->db = db;
	set_types(x, db);
	x->o = *opts;
	pc_frames_update(&x->fr, db);
	/* scales from all the data, so that the files agree */
	sums_add(x, db->values, db->nvalues);
	choose_scales(x);
	/* every file is written before any is put in place */
	struct pc_outfile *of = pc_xcalloc(nout, sizeof(*of));
	size_t v = 0, nof = 0;
	for (size_t i = 0; i < nout && !rc; i++) {
		size_t e = v;
		while (e < db->nvalues && db->values[e].profile == i)
			e++;
		sums_clear(x);
		if (e > v) /* (no values: db->values may be NULL) */
			sums_add(x, db->values + v, e - v);
		v = e;
		rc = write_file(x, final[i], &db->profiles[i], &of[i], err);
		nof += !rc;
	}
	for (size_t i = 0; i < nof && !rc; i++)
		rc = pc_outfile_commit(&of[i], db->diag, err);
	for (size_t i = 0; i < nof; i++)
		pc_outfile_abort(&of[i]);
	if (!rc)
		pc_split_done(out, ".pb.gz", nout, opts, db->diag);
	free(of);
	free(final);
	px_free(x);
	return rc;
}

static int pp_write(const struct pc_db *db, const char *out,
		    const struct pc_export_opts *opts, struct pc_err *err)
{
	if (opts->split)
		return pp_write_split(db, out, opts, err);
	struct pc_sink *s = pp_begin(out, opts, err);
	return s ? pp_end(s, db, err) : -1;
}

static int pp_stream_ok(const struct pc_export_opts *opts)
{
	return !opts->split;
}

static int pp_claims(const char *out)
{
	return pc_path_ends(out, ".pb.gz") || pc_path_ends(out, ".pprof");
}

const struct pc_exporter pc_export_pprof = {
	.name = "pprof",
	.label = "pprof",
	.takes = PC_XO_SPLIT,
	.description = "pprof profile.proto, gzipped, for go tool pprof "
		       "(one file, each profile's samples labelled with "
		       "its ids; --split: one per profile)",
	.claims = pp_claims,
	.names = "*.pb.gz or *.pprof",
	.point_only = 1,
	.no_traces = 1,
	.write = pp_write,
	.begin = pp_begin,
	.end = pp_end,
	.abort = pp_abort,
	.stream_ok = pp_stream_ok,
};
