/* profconv: the in-memory model shared by every importer and exporter,
 * error reporting, and small helpers. See ../shared/DESIGN.md. */
#ifndef PC_H
#define PC_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PC_NONE UINT32_MAX
typedef uint32_t pc_id;

/* ------------------------------------------------------------------ */
/* Errors: one line that says where and what, plus outer contexts.    */

enum pc_status { PC_OK = 0, PC_EINPUT = 1, PC_EUSAGE = 2 };

struct pc_err {
	int code;
	char msg[2048];
};

/* Each setter formats the message and returns -1, so callers can write
 * `return pc_err_at_line(err, path, line, "...")`. */
int pc_err_set(struct pc_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int pc_err_at_line(struct pc_err *err, const char *file, uint64_t line,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int pc_err_at_off(struct pc_err *err, const char *file, uint64_t off,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* NULL if s is valid UTF-8; else a copy (free it) with each byte that
 * is not part of a valid sequence written as \xHH. */
char *pc_utf8_escape(const char *s);
/* NULL if s is valid UTF-8 without control characters (C0, DEL) or
 * U+FFFE/U+FFFF (not XML characters); else a copy (free it) with each
 * byte that is not UTF-8 and each byte of those characters written as
 * \xHH: a name as text any reader takes (an SVG's). */
char *pc_text_escape(const char *s);
/* Rewrites bytes below 0x20 and 0x7f as \xHH in place (cut to cap). */
void pc_escape_controls(char *s, size_t cap);
/* A share in percent as a message says it (into buf, returned): two
 * significant digits, three from 10 on, never an exponent ("100",
 * "43.2", "2.5", "0.012"; %.2g writes 100 as "1e+02"), "less than
 * 0.001" below that. */
const char *pc_pct(char *buf, size_t n, double p);
/* Appends " (while ...)" to an error already set. */
void pc_err_context(struct pc_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Ends the program with one line, "profconv: error: WHAT", the
 * temporaries of its outputs removed (pc_dest_remove_all): for what
 * cannot go on (memory, a spool that does not read back). */
void pc_die(const char *what) __attribute__((noreturn));
/* Out of memory ends the program so (pc_die); outputs are written under
 * temporary names, so nothing half-written is left in place. */
void *pc_xmalloc(size_t n);
void *pc_xcalloc(size_t n, size_t size);
void *pc_xrealloc(void *p, size_t n, size_t size);
char *pc_xstrdup(const char *s);
/* Gives the whole pages of [p, p + n) back to the system (a part of an
 * array whose contents are no longer needed: it reads as zeros after). */
void pc_release(void *p, size_t n);
/* The heap's free pages back to the system (malloc_trim), one thread at
 * a time: readers on threads each trim as they go. */
void pc_trim(void);
/* Whether pc_memory_init keeps the heap in huge pages. */
int pc_heap_kept(void);
/* The heap in transparent huge pages as it grows (src/util.c): asked
 * for by a reader at its start where it pays (what comes once). */
void pc_memory_init(void);
/* pc_xmalloc of a block written whole at once: huge pages from 2 MiB. */
void *pc_whole_alloc(size_t n);
/* The entries of a directory but those starting with '.', sorted by
 * strcmp (NULL, *n = 0 if it cannot be read); freed with pc_free_list. */
char **pc_list_dir(const char *dir, size_t *n);
uint64_t pc_tree_print(const char *path);
void pc_free_list(char **v, size_t n);
/* Opens path for reading if it is a regular file: a FIFO or a device
 * is refused at once ("not a regular file") instead of blocking in
 * open(2). The descriptor (close-on-exec, blocking), or -1 with err
 * set (errno kept from open(2) where that failed). */
int pc_open_file(const char *path, struct pc_err *err);
/* A file of no name in directory dir (read and write; gone with its
 * last descriptor), or -1 with errno. */
int pc_unnamed_file(const char *dir);
/* The same as a stdio stream (binary). */
FILE *pc_fopen_file(const char *path, struct pc_err *err);
/* A whole file mapped read-only (p NULL if it is empty). */
struct pc_blob {
	char path[4200];
	const unsigned char *p;
	uint64_t n;
	uint64_t since; /* units read since the pages were given back */
};
/* Maps dir/name (name NULL: the path dir itself). 0, or 1 if optional
 * and the file does not exist, or -1 with err set. */
int pc_blob_map(struct pc_blob *b, const char *dir, const char *name,
		int optional, struct pc_err *err);
void pc_blob_unmap(struct pc_blob *b);
/* Counts n more units (values, samples) read; every 2^18 of them (some
 * 3 MB of values), gives back the pages of the mapping read so far
 * (touched again, they are read again from the file), so a reader that
 * goes through a large file keeps its memory bounded: mapped pages
 * count in the process's resident memory. */
void pc_blob_give_back(struct pc_blob *b);
static inline void pc_blob_read(struct pc_blob *b, uint64_t n)
{
	b->since += n;
	if (b->since >= (uint64_t)1 << 18) /* (inline: called per sample) */
		pc_blob_give_back(b);
}
#define PC_GROW(ptr, n, cap)                                                 \
	do {                                                                 \
		if ((n) >= (cap)) {                                          \
			(cap) = (cap) ? (cap)*2 : 16;                        \
			(ptr) = pc_xrealloc((ptr), (cap), sizeof(*(ptr)));   \
		}                                                            \
	} while (0)

/* (inline: every hash table's probe starts here) */
static inline uint64_t pc_hash64(uint64_t x)
{
	/* splitmix64 finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}
uint64_t pc_hash_bytes(const void *p, size_t n);

/* ------------------------------------------------------------------ */
/* Diagnostics: warnings are counted; the first few are printed.      */

struct pc_diag {
	unsigned nwarn;
	unsigned max_print;
	int quiet;
	int progress; /* show progress on stderr */
	int notes;    /* print notes (convert does; --verbose) */
	int verbose;  /* --verbose: the details of notes too */
	/* the keys of messages said once (pc_warn_once): 2^24 bits */
	uint8_t *once;
	/* a reader on a thread of its own (-j, doc/design.md "ovni streams
	 * on threads"): its messages are held, to be said in reading order
	 * once the readers before it have said theirs (pc_diag_release) */
	int holding;
	char *held;
	size_t nheld, capheld;
	/* the warnings and notes said (not held), and how many of the next
	 * to leave unsaid: a conversion read again with one reader after
	 * its readers ran out of room (src/apart.c) says what it had not */
	unsigned said, skip;
};
void pc_warn(struct pc_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A warning said at most once a run for its key (< 2^24), whichever
 * reader meets it first in reading order. */
void pc_warn_once(struct pc_diag *d, uint32_t key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Says what held holds through d, as if said there, and empties it. */
void pc_diag_release(struct pc_diag *d, struct pc_diag *held);
/* Frees what a diag holds (its messages unsaid). */
void pc_diag_free(struct pc_diag *d);
/* A note: what a run did by design (not a fault: not counted), printed
 * as "profconv: note: ..." where notes are on and not quiet. */
void pc_note(struct pc_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ */
/* The model.                                                         */

/* Relation of a context to its parent (values as in meta.db). */
enum pc_rel { PC_REL_LEXICAL = 0, PC_REL_CALL = 1, PC_REL_INLINED = 2 };
/* What a context is. The first four are meta.db's lexical types; entry
 * points are the top-level contexts. */
enum pc_kind {
	PC_CTX_FUNCTION = 0,
	PC_CTX_LOOP = 1,
	PC_CTX_LINE = 2,
	PC_CTX_INSTRUCTION = 3,
	PC_CTX_ENTRY = 4,
};
/* Entry points (values as in meta.db). */
enum pc_entry {
	PC_ENTRY_UNKNOWN = 0,
	PC_ENTRY_MAIN = 1,
	PC_ENTRY_APP_THREAD = 2,
};

/* Identifier kinds of a profile's id tuple (values as in meta.db). */
enum pc_idkind {
	PC_ID_SUMMARY = 0,
	PC_ID_NODE = 1,
	PC_ID_RANK = 2,
	PC_ID_THREAD = 3,
	PC_ID_GPUDEVICE = 4,
	PC_ID_GPUCONTEXT = 5,
	PC_ID_GPUSTREAM = 6,
	PC_ID_CORE = 7,
	PC_ID_NKINDS = 8,
};
extern const char *const pc_idkind_names[PC_ID_NKINDS];

/* A load module or a source file: a path. */
struct pc_path {
	const char *path;
};
struct pc_function {
	const char *name;
	pc_id module;    /* PC_NONE if unknown */
	uint64_t offset; /* entry address within the module, 0 if unknown */
	pc_id file;      /* PC_NONE if unknown */
	uint32_t line;   /* 0 if unknown */
	/* n-th of functions its input lists with equal fields (hpcprof
	 * writes such twins, each with its own contexts): 0 usually */
	uint32_t dup;
};

/* A calling-context tree node. Which optional fields are set depends on
 * the kind: functions name a function (and may carry a call-site or
 * definition location), lines and loops a file+line, instructions a
 * module+offset. Unset ids are PC_NONE. */
struct pc_context {
	pc_id parent;     /* 0 (the global root) for entry points */
	uint8_t kind;     /* enum pc_kind */
	uint8_t rel;      /* enum pc_rel */
	uint8_t entry;    /* enum pc_entry, for PC_CTX_ENTRY */
	/* n-th of siblings an input lists with equal fields (hpcprof
	 * writes such twins when it elides the call sites that told
	 * them apart); 0 usually, and for entries */
	uint8_t twin;
	pc_id function;
	pc_id file;
	uint32_t line;
	pc_id module;
	uint64_t offset;
};

/* Propagation scopes (as hpcprof names them). The model's values are
 * point values; the other scopes are derived on export unless an input
 * stored them (see pc_scoped_add). */
enum pc_scope {
	PC_SCOPE_POINT = 0,
	PC_SCOPE_FUNCTION = 1,  /* exclusive: point + lexical descendants */
	PC_SCOPE_LEXAWARE = 2,  /* function, but loops keep their own */
	PC_SCOPE_EXECUTION = 3, /* inclusive: point + all descendants */
	PC_NSCOPES = 4,
};

extern const char *const pc_scope_names[PC_NSCOPES];

/* The metric that carries a Callgrind input's calls= counts: point
 * values at the function context of each call, written back as calls=
 * counts by the Callgrind exporter (found by this name). */
#define PC_CALLS_METRIC "Calls"
/* profconv diff of two runs an importer reads onto one tree
 * (pc_importer.read_pair): NEW's metrics in the one model are named
 * with this after their names (src/diff.c parts them again). */
#define PC_PAIR_SUFFIX " [NEW run]"

struct pc_metric {
	const char *name;
	const char *description;
	const char *unit; /* "" if none */
	uint8_t stored;   /* bit 1<<scope: the input stored this scope */
	/* bit 1<<scope: the scopes a v4 input's meta.db gives the metric,
	 * which a v4 output gives it again; 0 (other inputs): all four */
	uint8_t scopes;
	/* every input that has the metric said its values are whole
	 * numbers (pc_metric_get_whole): a v4 output leaves its point
	 * scope out, and reading it back derives it exactly */
	uint8_t whole;
};

/* A formula over the model's metrics, as the v4 metrics YAML can say
 * it: an old database's derived metric. Nodes live in the db's arena. */
enum pc_expr_kind { PC_EX_NUM, PC_EX_REF, PC_EX_OP };
struct pc_expr {
	uint8_t kind;
	uint8_t scope;  /* PC_EX_REF: enum pc_scope of the value taken */
	pc_id metric;   /* PC_EX_REF */
	double num;     /* PC_EX_NUM */
	const char *op; /* PC_EX_OP: + - * / ^ sqrt log min max sum */
	uint32_t nargs;
	struct pc_expr **args;
};
/* A metric the viewer computes from others: its inclusive and exclusive
 * formulas (NULL: none). */
struct pc_derived {
	const char *name;
	const char *description;
	struct pc_expr *incl, *excl;
};

/* A metric of two runs compared (profconv diff): its name in the runs,
 * and the model's metrics of its values in BASE, in NEW (scaled to
 * BASE's total with --normalize) and of NEW - BASE. An output shows
 * the three as its reader shows a comparison best (doc/formats.md,
 * "Two runs compared"). */
struct pc_diffm {
	const char *name;
	pc_id base, fresh, delta;
};

struct pc_idelem {
	uint16_t kind;     /* enum pc_idkind */
	uint16_t is_physical;
	uint64_t logical;
	uint64_t physical;
};

struct pc_profile {
	uint32_t nids;
	struct pc_idelem *ids; /* owned by the db's arena */
};

/* One sparse value: the point (self) cost measured at exactly ctx. */
struct pc_value {
	pc_id profile;
	pc_id ctx;
	pc_id metric;
	double value;
};

struct pc_sample {
	uint64_t time; /* ns */
	pc_id ctx;
};
/* A profile's trace: its samples in the order added, encoded as they
 * come (pc_trace_add): per sample, the difference of its time to the
 * previous sample's (zigzag, so any order is exact) and its context id,
 * both as LEB128 varints. A sample of a real trace takes 2 to 5 bytes
 * instead of 16: traces are often the largest thing a model holds, and
 * every byte of them is written, zeroed, and read again. Read them with
 * pc_trace_begin / pc_trace_next. */
struct pc_trace {
	size_t n;         /* samples */
	unsigned char *b; /* their encoding (after the spooled bytes) */
	size_t len, cap;  /* bytes */
	uint64_t last;    /* time of the last sample */
	int unsorted;     /* some sample is earlier than the one before */
	/* a long trace's first bytes, spilled to an unlinked file as it
	 * grows (pc_trace_room: db->spill), so that memory stays flat
	 * whatever its length: bytes [0, spooled) at fd (valid when
	 * spooled) from offset at on, a whole number of samples (a reader's
	 * kept trace, fed from its spool, is one too: src/share.c) */
	uint64_t spooled, at;
	int fd;
	/* a trace handed to a sink as another model numbered its contexts
	 * (pc_feed): context c reads as map[c] (PC_NONE from nmap on) */
	const pc_id *map;
	size_t nmap;
};
enum { PC_TRACE_ITBUF = 1 << 16 };
struct pc_trace_it {
	const unsigned char *p, *end;
	uint64_t time;
	const pc_id *map;
	size_t nmap;
	/* a spooled trace's bytes come through buf (pc_trace_fill): more
	 * while some are not yet in [p, end), off the spool's read so far */
	int more;
	const struct pc_trace *t;
	uint64_t off;
	unsigned char buf[PC_TRACE_ITBUF];
};
static inline void pc_trace_begin(const struct pc_trace *t,
				  struct pc_trace_it *it)
{
	it->p = t->b;
	it->end = t->len ? t->b + t->len : t->b; /* b is NULL when empty */
	it->time = 0;
	it->map = t->map;
	it->nmap = t->nmap;
	it->more = t->spooled > 0;
	it->t = t;
	it->off = 0;
	if (it->more)
		it->p = it->end = it->buf;
}
/* The next bytes of a spooled trace into [p, end): at least 16, or up
 * to a whole number of samples. */
void pc_trace_fill(struct pc_trace_it *it);
static inline uint64_t pc_trace_varint(const unsigned char **p)
{
	if (**p < 0x80) /* one byte: most contexts, many time steps */
		return *(*p)++;
	uint64_t v = 0;
	unsigned sh = 0;
	unsigned char c;
	do {
		c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << sh;
		sh += 7;
	} while (c & 0x80);
	return v;
}
/* The next sample; 0 at the end. */
static inline int pc_trace_next(struct pc_trace_it *it, struct pc_sample *s)
{
	if (it->more && it->end - it->p < 16)
		pc_trace_fill(it);
	if (it->p >= it->end)
		return 0;
	uint64_t z = pc_trace_varint(&it->p);
	it->time += (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
	s->time = it->time;
	s->ctx = (pc_id)pc_trace_varint(&it->p);
	if (it->map)
		s->ctx = s->ctx < it->nmap ? it->map[s->ctx] : PC_NONE;
	return 1;
}

struct pc_arena;
struct pc_strtab;
struct pc_keymap;
struct pc_db;

/* Streaming (doc/design.md, "Profiles as the unit of streaming"): a
 * writer that takes each profile as soon as its importer has it
 * complete (pc_profile_done), so that the model holds the tree and the
 * profile in flight, not every value of the input. */
struct pc_sink {
	/* Profile p's point values v[0..n) and stored scopes sv[0..sn),
	 * sorted by (ctx, metric) and coalesced, and its trace; profiles
	 * come in order. 0, or -1 with err set. */
	int (*profile)(struct pc_sink *s, const struct pc_db *db, pc_id p,
		       const struct pc_value *v, size_t n,
		       const struct pc_value *sv, size_t sn,
		       const struct pc_trace *t, struct pc_err *err);
	/* Optional (-j): profile() in two steps. encode works on profile
	 * p's values with the scratch of writer thread k (0..workers-1),
	 * on any number of threads at once; commit writes what thread k
	 * encoded, profiles in order, one at a time. */
	int (*encode)(struct pc_sink *s, unsigned k, const struct pc_db *db,
		      pc_id p, const struct pc_value *v, size_t n,
		      const struct pc_value *sv, size_t sn, struct pc_err *err);
	int (*commit)(struct pc_sink *s, unsigned k, const struct pc_db *db,
		      pc_id p, const struct pc_trace *t, struct pc_err *err);
	unsigned workers;
};

struct pc_db {
	struct pc_arena *arena;
	struct pc_strtab *strings;

	const char *title; /* interned; may be NULL */
	/* meta.db's description of a v4 input, carried to a v4 output
	 * (interned; NULL: the writer's own) */
	const char *description;
	/* where the calling-context tree was cut to its size bound, in a
	 * user's words, which every output says (interned; NULL: the tree
	 * is whole), and the share of the cost cut (of the note kept: the
	 * largest of an input's parts) */
	const char *cut_note;
	double cut_share;
	/* the main program's module, where a model of several runs knows
	 * it (profconv diff: BASE's); PC_NONE: pc_main_module finds it */
	pc_id program;

	struct pc_path *modules;
	size_t nmodules, capmodules;
	struct pc_path *files;
	size_t nfiles, capfiles;
	struct pc_function *functions;
	size_t nfunctions, capfunctions;
	struct pc_context *contexts; /* [0] is the global root */
	size_t ncontexts, capcontexts;
	struct pc_metric *metrics;
	size_t nmetrics, capmetrics;
	struct pc_profile *profiles;
	size_t nprofiles, capprofiles;

	struct pc_value *values;
	size_t nvalues, capvalues;
	int values_sorted; /* sorted by (profile, ctx, metric), coalesced */
	/* Stored propagated values: metric field = metric * PC_NSCOPES +
	 * scope; same order and coalescing as values. */
	struct pc_value *scoped;
	size_t nscoped, capscoped;

	struct pc_trace *traces; /* one per profile, grown with profiles */
	/* streaming: where complete profiles go (NULL: they stay in the
	 * model); profiles 0..nflushed-1 went there, with these many
	 * values, stored values and trace samples (a flushed profile's
	 * trace keeps its count n, not its samples) */
	struct pc_sink *sink;
	/* -j: the sink is fed by a writer thread (src/async.c); from the
	 * first profile on, the tree and the profiles are complete: a new
	 * context or profile is an internal error (frozen) */
	struct pc_async *async;
	int frozen;
	pc_id nflushed;
	uint64_t flushed_values, flushed_scoped;
	/* the number of profiles the importer will add, known before the
	 * first is done (trace.db's header comes before any trace); 0:
	 * not known, and then no profile with a trace may be done early */
	size_t nplanned;
	/* a trace longer than spill bytes goes on in an unlinked file in
	 * spool_dir (NULL: TMPDIR, or /tmp; pc_db_new sets spill, 0: never,
	 * from PROFCONV_TRACE_SPILL when set) */
	size_t spill;
	char *spool_dir;
	/* trace samples are counted (n, last), their bytes not kept: the
	 * output reads none (pc_import_opts.no_traces) */
	int no_traces;
	/* MPI (profconv-mpi): this process is rank share_rank of share_n
	 * (1: the whole input); an importer that reads only its rank's
	 * share of the profiles (pc_share_own) says so in shared */
	unsigned share_rank, share_n;
	int shared;
	/* the input held statistics over threads (Mean, StdDev, ...): the
	 * v4 writer adds its statistics, as --stats does */
	int stats;
	/* derived metrics: written to metrics/default.yaml as formulas */
	struct pc_derived *derived;
	size_t nderived, capderived;
	/* profconv diff (src/diff.c): the model holds two runs, each
	 * metric diff[i] of them as three metrics (NULL: one run) */
	struct pc_diffm *diff;
	size_t ndiff;
	/* a v4 input's metrics/default.yaml (in the arena), which says how
	 * hpcviewer and hatchet present its metrics (derived ones, hidden
	 * ones, formats): the v4 writer carries it unchanged when the
	 * output's metrics are still exactly that input's (yaml_nmetrics) */
	const char *yaml;
	size_t yaml_len, yaml_nmetrics;

	/* lookup tables for dedup */
	struct pc_keymap *module_map, *file_map, *function_map, *ctx_map;
	struct pc_keymap *metric_map;
	/* pc_ctx_append leaves contexts out of ctx_map: those from
	 * ctx_unmapped on may be missing, and only children of the parents
	 * in append_parents (a set of ids; last_append the newest) */
	size_t ctx_unmapped;
	struct pc_keymap *append_parents;
	pc_id last_append;
	int ctx_map_dropped; /* pc_ctx_map_drop: all of it is rebuilt */

	struct pc_diag *diag;
};

struct pc_db *pc_db_new(struct pc_diag *diag);
void pc_db_free(struct pc_db *db);
/* An importer's tree was cut: share (0..1) of the cost summed below
 * the contexts kept, note its words; the note of the largest share is
 * kept. */
void pc_db_cut(struct pc_db *db, double share, const char *note);
/* The main program's module: db->program if set, else the module of
 * its main function, else the one named as the title's command (a
 * Callgrind cmd: line); PC_NONE if none is known. */
pc_id pc_main_module(const struct pc_db *db);

/* Interns a byte string (not necessarily UTF-8 or NUL-free... but the
 * model keeps C strings, so it stops at the first NUL). The result lives
 * as long as the db; equal strings give equal pointers. */
const char *pc_intern(struct pc_db *db, const char *s, size_t len);
const char *pc_intern_cstr(struct pc_db *db, const char *s);
/* Memory from the db's arena, freed with the db. */
void *pc_db_alloc(struct pc_db *db, size_t n);

/* Find-or-create in the deduplicated tables. Strings need not be
 * interned by the caller. */
pc_id pc_module_get(struct pc_db *db, const char *path);
pc_id pc_file_get(struct pc_db *db, const char *path);
pc_id pc_function_get(struct pc_db *db, const char *name, pc_id module,
		      uint64_t offset, pc_id file, uint32_t line);
/* The same, for the dup-th twin (see struct pc_function). */
pc_id pc_function_get_dup(struct pc_db *db, const char *name, pc_id module,
			  uint64_t offset, pc_id file, uint32_t line,
			  uint32_t dup);
/* The same, name interned (pc_intern's): not hashed again (a long
 * name looked up on each of a file's calls). */
pc_id pc_function_get_interned(struct pc_db *db, const char *name,
			       pc_id module, uint64_t offset, pc_id file,
			       uint32_t line, uint32_t dup);
/* Adds a function without looking it up (an input's twin of one the
 * model has: MPI's merge of Callgrind files, see src/mpi.c). */
pc_id pc_function_append(struct pc_db *db, const struct pc_function *f);
/* The function with exactly these fields (name interned), or PC_NONE. */
pc_id pc_function_find(const struct pc_db *db, const struct pc_function *f);
/* Sets the entry offset and line of functions 0..n-1 where they are
 * unknown (0) and the given value is not, and re-keys the lookup. */
void pc_functions_set_entries(struct pc_db *db, const uint64_t *offset,
			      const uint32_t *line, size_t n);
pc_id pc_metric_get(struct pc_db *db, const char *name, const char *desc,
		    const char *unit);
/* The same, from an input whose values of the metric are whole numbers
 * (below 2^53): it stays whole as long as every input says so. */
pc_id pc_metric_get_whole(struct pc_db *db, const char *name,
			  const char *desc, const char *unit);
pc_id pc_metric_find(const struct pc_db *db, const char *name);

/* Finds or creates the child of `parent` described by `key` (key->parent
 * is ignored). The key's kind, rel and the fields of that kind make the
 * identity. */
pc_id pc_ctx_child(struct pc_db *db, pc_id parent, const struct pc_context *key);
/* Adds the child of `parent` described by `key`, which the caller knows
 * `parent` does not have yet (a parent it just created, children in
 * increasing order), without the lookup. The next pc_ctx_child maps
 * what was appended before it looks up. */
pc_id pc_ctx_append(struct pc_db *db, pc_id parent,
		    const struct pc_context *key);
/* Frees the lookup table of contexts while none are added (a Callgrind
 * part's rounding: 256 MiB of 24 million contexts); the next
 * pc_ctx_child builds it again, with the same ids. */
void pc_ctx_map_drop(struct pc_db *db);
void pc_db_rollback(struct pc_db *db, size_t nctx, size_t nval, size_t nfn);
pc_id pc_ctx_entry(struct pc_db *db, enum pc_entry entry);

/* Profiles are not deduplicated: each call adds one. */
pc_id pc_profile_add(struct pc_db *db, const struct pc_idelem *ids,
		     uint32_t nids);

/* Room for n more values at once (at most 2^26 ahead), for an importer
 * that knows a bound: a large array grown by doubling is copied, and its
 * new pages zeroed, again and again. Untouched room costs no memory. */
void pc_values_reserve(struct pc_db *db, size_t n);
/* The same for contexts and stored-scope values (at most 2^26 ahead). */
void pc_ctx_reserve(struct pc_db *db, size_t n);
void pc_scoped_reserve(struct pc_db *db, size_t n);
/* (inline, as the next: every value of every input comes through) */
static inline void pc_value_add(struct pc_db *db, pc_id profile, pc_id ctx,
				pc_id metric, double v)
{
	if (v == 0)
		return;
	PC_GROW(db->values, db->nvalues, db->capvalues);
	db->values[db->nvalues++] = (struct pc_value){ profile, ctx, metric, v };
	db->values_sorted = 0;
}
/* Adds v at (profile, ctx, metric) into the value already there, found
 * through map (the caller's, over db->values; pc_keymap_new): values
 * that grow with the tree, not with the samples (perf, folded stacks). */
void pc_value_sum(struct pc_db *db, struct pc_keymap *map, pc_id profile,
		  pc_id ctx, pc_id metric, double v);
/* A value of a propagated scope (function, lex_aware, execution) as an
 * input stored it. Once a metric has a stored scope, exporters write that
 * scope from the stored values (0 where none is stored) instead of
 * deriving it from point values: inputs that are already propagated
 * (HPCToolkit databases) keep exactly what their viewers showed. */
static inline void pc_scoped_add(struct pc_db *db, pc_id profile,
				 pc_id ctx, pc_id metric, unsigned scope,
				 double v)
{
	if (v == 0 || scope == PC_SCOPE_POINT || scope >= PC_NSCOPES)
		return;
	/* read by a writer thread meanwhile (-j): written only when new,
	 * which it is not once profiles are done */
	if (!(db->metrics[metric].stored & (1u << scope)))
		db->metrics[metric].stored |= (uint8_t)(1u << scope);
	PC_GROW(db->scoped, db->nscoped, db->capscoped);
	db->scoped[db->nscoped++] = (struct pc_value){
		profile, ctx, metric * PC_NSCOPES + scope, v };
	db->values_sorted = 0;
}
/* A point value by differencing: an inclusive value less its children's.
 * Whole numbers (below 2^53) are exact; otherwise a difference within
 * rounding of the operands (the same doubles summed in another order)
 * is 0. */
static inline double pc_point_of(double incl, double kids)
{
	double p = incl - kids;
	if (incl == floor(incl) && kids == floor(kids) &&
	    fabs(incl) < 0x1p53 && fabs(kids) < 0x1p53)
		return p;
	return fabs(p) <= 1e-12 * fmax(fabs(incl), fabs(kids)) ? 0 : p;
}
/* Sorts values and scoped values by (profile, ctx, metric), sums
 * duplicates, drops zeros. */
void pc_values_finish(struct pc_db *db);
/* Sorts and coalesces the values from v0 on and the stored values from
 * s0 on (one profile's, added last), as pc_values_finish would. */
void pc_values_coalesce_from(struct pc_db *db, size_t v0, size_t s0);
/* Writer threads (up to jobs) that hand the profiles done to sink, in
 * order (src/async.c); NULL with err set if none can be started. put
 * takes the profile's values, stored values and trace samples from the
 * model (pc_profile_done calls it, with db->async), and the threads
 * sort them; finish waits for every profile to be written, counts
 * their values in db and ends the threads: 0, or -1 with the first
 * error. finish(NULL) is 0. */
struct pc_async *pc_async_start(struct pc_sink *sink, const struct pc_db *db,
				unsigned jobs, struct pc_err *err);
int pc_async_put(struct pc_async *a, struct pc_db *db, pc_id p,
		 struct pc_err *err);
int pc_async_finish(struct pc_async *a, struct pc_db *db,
		    struct pc_err *err);
/* Runs fn(ctx, i, k) for each i of n, on up to threads threads (the
 * caller's one of them), each taking the next i; k < threads is the
 * thread's own number (its scratch). Returns when all are done. */
void pc_parallel(size_t n, unsigned threads,
		 void (*fn)(void *ctx, size_t i, unsigned k), void *ctx);
/* An importer's profiles read on several threads (-j; src/async.c), for
 * an importer whose tree and profiles are complete and which streams to
 * writer threads (db->async): copy makes a thread's own reader, which
 * adds values and trace samples to shadow (a copy of the model whose
 * values are its own) and says errors in err; read reads profile i into
 * it (0, or -1 with err set); merge adds what the copy counted to ctx
 * and frees it. copy and merge run under one lock (a copy reads the
 * counters another thread's merge adds to). Each thread takes the next profile i of
 * n; profiles are handed on (pc_profile_done) in index order by turns,
 * prof_of[i] their model profile (PC_NONE: none, skipped): the same
 * values in the same order as one thread, and the first error in index
 * order is the one in err. 0, or -1. */
struct pc_profile_reader {
	void *(*copy)(void *ctx, struct pc_db *shadow, struct pc_err *err);
	int (*read)(void *copy, uint64_t i);
	void (*merge)(void *ctx, void *copy);
};
int pc_read_profiles(struct pc_db *db, unsigned jobs, uint64_t n,
		     const pc_id *prof_of, const struct pc_profile_reader *pr,
		     void *ctx, struct pc_err *err);
/* The threads that read profiles at -j jobs for db's sink: for one that
 * encodes (the v4 writer), half of them from 3 on (the others write; at
 * -j2 one reads, one writes: a second reader only took CPU from the
 * writer on 2 cores); for one that only takes the values (Callgrind,
 * pprof, ...), all of them. */
static inline unsigned pc_reader_threads(const struct pc_db *db,
					 unsigned jobs)
{
	if (db->sink && !db->sink->encode)
		return jobs;
	return jobs > 2 ? (jobs + 1) / 2 : 1;
}
/* MPI: is unit i of n (a profile, an ovni stream) this rank's? Ranks
 * take contiguous shares in order, so that profiles come to rank 0 in
 * the order one process reads them. Always 1 without MPI. */
static inline int pc_in_share(uint64_t i, uint64_t n, unsigned rank,
			      unsigned nranks)
{
	return nranks < 2 || (i >= n * rank / nranks &&
			      i < n * (rank + 1) / nranks);
}
static inline int pc_share_own(const struct pc_db *db, uint64_t i,
			       uint64_t n)
{
	return pc_in_share(i, n, db->share_rank, db->share_n);
}
/* MPI: an importer's map of profile units to profiles (prof_of[0..n))
 * with the profiles of the other ranks' shares PC_NONE (rank0_all:
 * every profile is rank 0's), and db->shared set; NULL (free it
 * anyway) without MPI. */
pc_id *pc_share_profiles(struct pc_db *db, const pc_id *prof_of, uint64_t n,
			 int rank0_all);
/* Profile p is complete: every value, stored value and trace sample of
 * it has been added, and no value of another profile is in the model.
 * With a sink, hands it on (profiles in order: p is the next one, or
 * an internal error) and drops its values and samples; without one,
 * does nothing. 0, or -1 with err set. */
int pc_profile_done(struct pc_db *db, pc_id p, struct pc_err *err);
/* Values, stored values and trace samples of the input: those still in
 * the model and those handed on. */
uint64_t pc_values_total(const struct pc_db *db);
uint64_t pc_scoped_total(const struct pc_db *db);
uint64_t pc_samples_total(const struct pc_db *db);
/* Stable radix sort of values by three key fields, given as offsets of
 * pc_id members of struct pc_value, most significant first. Uses one
 * temporary copy of the array. */
void pc_values_sort(struct pc_value *v, size_t n, const size_t order[3]);
/* A key and an index: an importer that takes a profile's contexts in the
 * model's order sorts them by it (its values then need no sort). */
struct pc_keyidx {
	uint32_t key, idx;
};
/* Stable sort of a[0..n) by key; a[n..2n) is its scratch (a may be NULL
 * when n is 0). */
void pc_keyidx_sort(struct pc_keyidx *a, size_t n);

/* A sample at the end of profile's trace (any time: a trace out of
 * order is sorted where it is written). Inline: an importer adds one
 * for nearly every event it reads. */
static inline unsigned char *pc_trace_put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}
/* Room for one more sample (two varints: 10 + 5 bytes at most): the
 * bytes spilled to the trace's spool from db->spill bytes on, or more
 * memory. */
void pc_trace_room(struct pc_db *db, struct pc_trace *t);
static inline void pc_trace_add(struct pc_db *db, pc_id profile,
				uint64_t time, pc_id ctx)
{
	struct pc_trace *t = &db->traces[profile];
	if (db->no_traces) {
		t->n++;
		t->last = time;
		return;
	}
	if (t->cap - t->len < 15)
		pc_trace_room(db, t);
	uint64_t d = time - t->last; /* modulo 2^64, as the reader adds it */
	if (t->n && time < t->last)
		t->unsorted = 1;
	unsigned char *p = pc_trace_put_varint(
		t->b + t->len, d << 1 ^ (uint64_t)((int64_t)d >> 63));
	p = pc_trace_put_varint(p, ctx);
	t->len = (size_t)(p - t->b);
	t->last = time;
	t->n++;
}
/* Adds from's samples to profile's trace, each context c as map[c]
 * (PC_NONE from nmap on; as it is without a map). */
void pc_trace_append(struct pc_db *db, pc_id profile,
		     const struct pc_trace *from, const pc_id *map, size_t nmap);
/* Room for n more samples of a profile's trace at once (at 4 bytes each,
 * then it grows), for an importer that knows a bound: a large array grown
 * by doubling is copied, and its new pages zeroed, again and again.
 * Untouched room costs no memory. */
void pc_trace_reserve(struct pc_db *db, pc_id profile, size_t n);
/* A trace's samples decoded into an array (n of them; free it). */
struct pc_sample *pc_trace_samples(const struct pc_trace *t);
/* A trace's encoding: its length, and its bytes in order handed to
 * put(ctx, bytes, n) in pieces. */
static inline uint64_t pc_trace_bytes(const struct pc_trace *t)
{
	return t->spooled + t->len;
}
void pc_trace_pieces(const struct pc_trace *t,
		     void (*put)(void *ctx, const void *p, size_t n),
		     void *ctx);
/* ... or all into to (pc_trace_bytes of them). */
void pc_trace_get_bytes(const struct pc_trace *t, unsigned char *to);
/* A copy of src into dst (its spool shared), and a trace's memory and
 * spool freed (the trace then empty). */
void pc_trace_copy(struct pc_trace *dst, const struct pc_trace *src);
void pc_trace_free(struct pc_trace *t);
/* A line of an input's trace file: its profile index, its bytes [a, z).
 * Database importers group them by profile (pc_tlines_group), so that
 * a profile's samples are added with its values and it can be done
 * (pc_profile_done) before the next profile is read. */
struct pc_tline {
	uint32_t prof;
	uint64_t a, z;
};
/* Sorts l[0..n) by profile, lines of one profile in the order given
 * (prof < nprof); returns first[0..nprof] (free it): profile i's lines
 * are l[first[i] .. first[i + 1]). */
uint64_t *pc_tlines_group(struct pc_tline *l, size_t n, uint32_t nprof);

/* ------------------------------------------------------------------ */
/* Input: probe descriptors and a line reader (plain or gzip).        */

#define PC_PROBE_SIZE 4096
#define PC_PROBE_PAD 64

struct pc_probe {
	const char *path;
	int is_dir;
	char **names; /* sorted listing of a directory */
	size_t nnames;
	unsigned char *buf; /* first bytes (gunzipped), zero-padded */
	size_t len;
};
/* The path that stands for standard input (INPUT "-"): compared by
 * address; probing it keeps the bytes for the reader. */
extern const char pc_stdin_path[];
int pc_probe_open(struct pc_probe *p, const char *path, struct pc_err *err);
void pc_probe_close(struct pc_probe *p);
/* dir + "/" + name into buf; -1 (buf unchanged) if it does not fit. */
int pc_path_join(char *buf, size_t n, const char *dir, const char *name);
/* Does the path's last component start with / end with the string? */
int pc_basename_starts(const char *path, const char *prefix);
int pc_path_ends(const char *path, const char *suffix);

struct pc_lines {
	const char *path;
	void *gz; /* gzFile */
	char *buf;
	size_t cap, pos, end;
	uint64_t lineno;
	int eof;
	uint64_t size; /* of the file on disk, for progress */
	uint64_t next_progress;
	struct pc_diag *diag;
	size_t max_line; /* longest line accepted (bytes) */
};
#define PC_MAX_LINE_DEFAULT ((size_t)4 << 20)
/* A reader may parse lines in place, in buf[pos, end) (ahead of
 * pc_lines_next, moving pos and lineno past the lines it took): buf[end]
 * is 0, so a scan that stops at a 0 byte stays in the bytes read. */
int pc_lines_open(struct pc_lines *r, const char *path, struct pc_diag *diag,
		  struct pc_err *err);
/* 1: *line (NUL-terminated, \n and \r stripped) with *len; 0: end of
 * input; -1: read error (set in err). The line stays valid until the
 * next call. */
int pc_lines_next(struct pc_lines *r, char **line, size_t *len,
		  struct pc_err *err);
/* Where the unread input starts with the bytes s[0, n) (lines: the
 * newlines in them), those read past at once (1: as if pc_lines_next
 * had returned those lines); else nothing read (0); -1: read error (set
 * in err). For a reader that knows what a text repeats. */
int pc_lines_skip(struct pc_lines *r, const char *s, size_t n,
		  uint64_t lines, struct pc_err *err);
void pc_lines_close(struct pc_lines *r);

/* On a terminal: "what: NN% (1.2 MB)"; bytes UINT64_MAX: none shown. */
void pc_progress(struct pc_diag *d, const char *what, uint64_t done,
		 uint64_t total, uint64_t bytes);
void pc_progress_done(struct pc_diag *d);

/* ------------------------------------------------------------------ */
/* Formats.                                                           */

struct pc_import_opts {
	size_t max_contexts; /* bound on the tree built from a call graph
			      * (per part), 0: chosen from the input */
	int instructions;    /* instruction contexts below lines */
	size_t max_line;     /* text inputs: longest line, 0: default */
	int point_only;      /* the output reads point values only
			      * (Callgrind): stored scopes that decide
			      * nothing need not be kept */
	unsigned jobs;       /* threads (-j): profiles read at once */
	int no_traces;       /* the output reads no trace samples: they are
			      * counted, not kept (db->no_traces) */
	/* a share read on a thread (src/apart.c): nonzero once it is no
	 * longer wanted (a share before it failed); an importer may look
	 * between profiles (__atomic_load_n) and stop */
	int *stop;
};

struct pc_importer {
	const char *name;
	const char *description;
	int is_dir; /* reads a directory (not from standard input) */
	/* hands each profile on as it is complete (pc_profile_done), with
	 * the number of profiles planned before the first */
	int streams;
	/* ... and its tree and profiles are complete before the first is
	 * done: a writer thread may take them (-j) */
	int tree_first;
	int no_traces; /* its inputs never have trace samples */
	/* several inputs of this format are files of one run (a file per
	 * thread): -j's readers and profconv-mpi's ranks read them apart,
	 * whole, and their tables merge in order (src/share.c), a later
	 * file's function of unknown entry being an earlier one's of the
	 * same name, module and file, as the importer finds them */
	int files_apart;
	/* (files_apart) a file's profile ids, numbered as the importer
	 * numbers them after the profiles db holds (NULL: as they are) */
	void (*renumber)(const struct pc_db *db, struct pc_idelem *ids,
			 uint32_t nids);
	/* Pure; 0..100. */
	int (*probe)(const struct pc_probe *p);
	/* Reads one input into db (which may already hold other inputs). */
	int (*read)(struct pc_db *db, const char *path,
		    const struct pc_import_opts *opts, struct pc_err *err);
	/* profconv diff (NULL: none): two runs, one input each (path[0]
	 * BASE's, path[1] NEW's), read into db onto one calling-context
	 * tree, BASE's metrics under their names, NEW's with
	 * PC_PAIR_SUFFIX; title[k]: run k's title (in db; NULL: none).
	 * See doc/callgrind-tree.md, "Two runs on one tree". */
	int (*read_pair)(struct pc_db *db, const char *const path[2],
			 const char *title[2],
			 const struct pc_import_opts *opts,
			 struct pc_err *err);
};

struct pc_export_opts {
	int force;
	int stats;          /* hpctoolkit: extra summary statistics */
	int point;          /* hpctoolkit: the point scope too */
	unsigned jobs;      /* threads (-j) */
	int split;          /* callgrind: one file per profile */
	int no_compress;    /* callgrind: no name compression */
	unsigned callers;   /* callgrind: f'caller1'caller2 names, depth */
	const char *metric; /* folded: the metric written (NULL: the first) */
	/* folded: frames narrower than this share of the total merge into
	 * their callers (negative: the default) */
	double min_width;
	/* svg: flamegraph.pl's options (0 or NULL: the defaults) */
	struct pc_svg_opts {
		const char *title, *subtitle;
		const char *count_name; /* the unit in each frame's title */
		unsigned width;         /* of the frames, in pixels */
		unsigned frame_height;
		int inverted;           /* an icicle graph: roots at the top */
		int reverse;            /* stacks reversed: callers graph */
		int colors;             /* PC_SVG_COLORS_* */
	} svg;
	/* --split: what was written, for the last line (the exporter fills
	 * it in; NULL: not asked) */
	struct pc_split_done {
		char first[4200], last[4200];
		size_t n;
		uint64_t bytes;
	} *split_done;
};

/* profconv-mpi (src/mpi.c; doc/design.md, "MPI ranks"): an output whose
 * ranks each write their own profiles' bytes into the files rank 0
 * began. What ranks pass each other for it are records (src/rec.h) only
 * the output reads. It writes two streams (files), each part's bytes
 * placed after the part before it, from a multiple of align[k]. */
struct rec;
struct rd;
struct pc_parts {
	unsigned align[2];
	/* Rank 0, once db holds every rank's tables: the output's files
	 * begun (trace: some profile has samples), with the profiles
	 * written so far; what every part needs appended to lead, and
	 * where the streams end in end[]. 0, or -1 with err set. */
	int (*lead)(struct pc_sink *writer, const struct pc_db *db, int trace,
		    struct rec *lead, uint64_t end[2], struct pc_err *err);
	/* Another rank: a sink for profiles p0 on (db: the whole tree and
	 * metrics) from rank 0's lead; NULL with err set (a bad lead
	 * too). */
	struct pc_sink *(*part)(struct rd *lead, struct pc_db *db, pc_id p0,
				struct pc_err *err);
	/* The bytes the part writes in each stream. */
	void (*sizes)(const struct pc_sink *part, uint64_t size[2]);
	/* Puts them at base[]; what it wrote appended to out, for add. 0,
	 * or -1 with err set. */
	int (*place)(struct pc_sink *part, const uint64_t base[2],
		     struct rec *out, struct pc_err *err);
	void (*free)(struct pc_sink *part);
	/* Rank 0: a part's record taken into writer, parts in profile
	 * order (its first profile must be next); the number of its
	 * profiles in *np, and where its streams end in end[] (a stream
	 * it did not write: as given). 0, or -1 with err set (a bad
	 * record). */
	int (*add)(struct pc_sink *writer, struct rd *part, pc_id next,
		   size_t *np, uint64_t end[2], struct pc_err *err);
};

/* The options of convert an output takes (pc_exporter.takes). */
enum {
	PC_XO_STATS = 1,
	PC_XO_POINT = 2,
	PC_XO_SPLIT = 4,
	PC_XO_NO_COMPRESS = 8,
	PC_XO_CALLERS = 16,
	PC_XO_METRIC = 32,
	PC_XO_MIN_WIDTH = 64,
	PC_XO_TITLE = 128,
	PC_XO_SUBTITLE = 256,
	PC_XO_WIDTH = 512,
	PC_XO_FRAME_HEIGHT = 1024,
	PC_XO_INVERTED = 2048,
	PC_XO_REVERSE = 4096,
	PC_XO_COLORS = 8192,
	PC_XO_COUNT_NAME = 16384,
	PC_XO_SVG = PC_XO_TITLE | PC_XO_SUBTITLE | PC_XO_WIDTH |
		    PC_XO_FRAME_HEIGHT | PC_XO_INVERTED | PC_XO_REVERSE |
		    PC_XO_COLORS | PC_XO_COUNT_NAME,
};

/* The SVG's palettes (--colors): profconv's warm colours, and
 * flamegraph.pl's hot, mem and io; each a colour per name. */
enum { PC_SVG_COLORS_DEFAULT, PC_SVG_COLORS_HOT, PC_SVG_COLORS_MEM,
       PC_SVG_COLORS_IO };

struct pc_exporter {
	const char *name;
	const char *description;
	const char *label; /* "Callgrind", in messages */
	unsigned takes;    /* PC_XO_*: the options it takes */
	/* Does an output name suggest this format? */
	int (*claims)(const char *out);
	/* The names it claims, for messages ("*.pb.gz or *.pprof") */
	const char *names;
	/* A warning about the output's name, said before any input is
	 * read (NULL, or 0: none): e.g. a name that makes the format's
	 * reader load another file with it. 1 with msg set if any. */
	int (*name_warning)(const char *out, const struct pc_export_opts *opts,
			    char *msg, size_t n);
	int is_dir; /* the output is a directory */
	int point_only; /* reads point values only (no stored scopes) */
	int needs_trace; /* writes nothing without trace samples */
	/* reads no trace samples: the readers count them and keep none
	 * (pc_import_opts.no_traces), so none is spilled either */
	int no_traces;
	/* The whole model (its values sorted: pc_values_finish). */
	int (*write)(const struct pc_db *db, const char *out,
		     const struct pc_export_opts *opts, struct pc_err *err);
	/* Streaming (NULL if the format cannot): begin checks the output
	 * and starts it before any input is read, and gives the sink the
	 * importers hand complete profiles to; end writes the profiles
	 * still in the model (values sorted) and the rest, and puts the
	 * output in place; abort removes it. end and abort free the
	 * sink. write() is begin and end. */
	struct pc_sink *(*begin)(const char *out,
				 const struct pc_export_opts *opts,
				 struct pc_err *err);
	int (*end)(struct pc_sink *s, const struct pc_db *db,
		   struct pc_err *err);
	void (*abort)(struct pc_sink *s);
	/* whether these options let the output stream (NULL: yes) */
	int (*stream_ok)(const struct pc_export_opts *opts);
	/* profconv-mpi: each rank writes its own profiles (NULL: rank 0
	 * writes them all) */
	const struct pc_parts *parts;
};

extern const struct pc_importer *const pc_importers[];
extern const struct pc_exporter *const pc_exporters[];
const struct pc_importer *pc_importer_find(const char *name);
const struct pc_exporter *pc_exporter_find(const char *name);

/* Outputs (src/dest.c): checked up front, written under a temporary
 * name, put in place atomically; see doc/design.md. */
struct pc_dest {
	char final[4096];
	char tmp[4096]; /* "" once renamed or removed */
	int is_dir;
	struct pc_dest *next; /* temporaries of this run, for signals */
};
/* Before reading any input: the parent is writable, an existing output
 * is replaced only with force and only if it holds nothing foreign;
 * warns (with diag) about temporaries of out left by a killed run. */
int pc_dest_check(const char *out, int is_dir, int force,
		    struct pc_diag *diag, struct pc_err *err);
int pc_dest_begin(struct pc_dest *o, const char *out, int is_dir,
		 struct pc_err *err);
/* Puts o->tmp in place of o->final; removes the replaced one. On
 * failure the temporary is removed and the old output is intact. */
int pc_dest_commit(struct pc_dest *o, struct pc_diag *diag, struct pc_err *err);
/* Removes the temporary; one that cannot be removed is remembered. */
void pc_dest_abort(struct pc_dest *o);
/* An error that begins with the name of a temporary removed (OUT.tmp-X:
 * or OUT.tmp-X/FILE:) names the output instead: OUT: or OUT/FILE:. */
void pc_dest_err_names(struct pc_err *err);
/* The first temporary of this run that could not be removed, or NULL:
 * the error line names it. */
const char *pc_dest_leftover(void);
/* Bytes of a written output (a database: the files profconv writes). */
uint64_t pc_dest_size(const char *out, int is_dir);
/* "812 bytes", "1.21 MB", "87.5 MB", "1.12 GB" (powers of 1000) */
void pc_human_size(char *buf, size_t n, uint64_t bytes);
/* SIGINT, SIGTERM, SIGHUP: remove this run's temporaries, then die. */
void pc_dest_signals(void);
/* Removes every temporary output of this run (async-signal-safe): what a
 * signal does, for a run that is stopped otherwise (profconv-mpi when
 * MPI reports another rank gone). */
void pc_dest_remove_all(void);

/* Validation of an HPCToolkit v4 database (src/check.c, a reader of its
 * own). pc_check_db is strict (metrics/default.yaml required): 0, or -1
 * with the first violation in err; with jobs > 1 it checks profile.db
 * and cct.db at once. */
int pc_check_db(const char *dir, unsigned jobs, struct pc_err *err);
struct pc_check_opts {
	int quiet, values, strict;
	struct pc_diag *diag;
	FILE *out;        /* --values: where to (NULL: stdout) */
	int quiet_errors; /* fuzzing: no message for the violation */
};
int pc_check_main(const char *dir, const struct pc_check_opts *o);

/* `info` (src/info.c): a summary of the model as a json-c object, and
 * its text form. formats[i] names the format of inputs[i]. A streaming
 * importer hands its profiles to the sink of a struct pc_info_count,
 * which keeps what the summary needs of them (their values are then
 * dropped), so that info reads any size in the memory a conversion
 * takes; the summary counts those and what the model still holds. */
struct pc_info_count {
	struct pc_sink sink;
	size_t *values; /* per profile */
	size_t nprofiles;
	double *total;  /* per metric, summed in the model's order */
	size_t nmetrics;
	uint64_t first, last; /* trace sample times (first > last: none) */
};
void pc_info_count_init(struct pc_info_count *c);
void pc_info_count_free(struct pc_info_count *c);
struct json_object;
struct json_object *pc_info_json(const struct pc_db *db,
				 const struct pc_info_count *c, char **inputs,
				 const char **formats, int n);
void pc_info_print(struct json_object *info, FILE *out);

/* Canonical, deterministic text of the whole model. */
int pc_dump(struct pc_db *db, FILE *out);

#endif
