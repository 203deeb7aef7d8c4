/* The Callgrind reader's state (callgrind.c reads the lines,
 * callgrind_part.c ends a part: its graph to a tree), private to the
 * two. */
#ifndef PC_CALLGRIND_PARSE_H
#define PC_CALLGRIND_PARSE_H
#include "callgrind.h"

/* A cfi=/cob= of "???": the callee's file or object is unknown (not
 * "the caller's", which a missing cfi=/cob= means). */
#define GIVEN_UNKNOWN (PC_NONE - 1)

#define MAX_POS 3
#define MAX_EVENTS 4096

enum { POS_INSTR, POS_LINE, POS_BB };

/* id -> name map of one compression table (ob, fl or fn): entry
 * dir[id] where ids are below ndir (PC_NONE: none), else in map. */
struct idtab {
	struct pc_keymap *map;
	pc_id *dir;
	size_t ndir;
	struct idname {
		uint64_t id;
		const char *name;
		/* (fn= and cfn=) the model function of the name with module
		 * fmod and file ffile, found once: func, PC_NONE if not yet;
		 * (fl and ob) the model file or module of the name, found
		 * once: func, PC_NONE if not yet or none ("???") */
		pc_id func, fmod, ffile;
	} *e;
	size_t n, cap;
};

struct parser {
	struct pc_db *db;
	const char *path;
	const struct pc_import_opts *opts;
	struct pc_err *err;
	struct pc_lines in;

	struct idtab ob, fl, fn;

	/* header state of the current part */
	int npos;
	int pos[MAX_POS];
	/* the line's and the instruction address's index in pos, MAX_POS
	 * if there is none (a cost line's positions have a zero there) */
	int iline, iinstr;
	uint64_t last[MAX_POS];
	size_t nev;
	pc_id *ev;         /* metric per event */
	char **longnames;  /* "event:" long names, in pairs name/long */
	size_t nlong, caplong;
	uint64_t *summary, *totals, *selfsum;
	/* per event: a negative count was read (Xdebug's memory goes
	 * down): its counts are signed, held as two's complement */
	uint8_t *negev;
	int anyneg; /* one of negev is set */
	int have_summary, have_totals;
	int warned_calls; /* an event named "Calls" (event_name) */
	uint64_t pid, thread, part;

	/* body state */
	pc_id cur_ob, cur_fl, cur_file; /* cur_file follows fi=/fe= */
	/* compressed name ids used but never defined: how often, the
	 * first's line and id */
	size_t undef_n;
	uint64_t undef_line, undef_id;
	int seen_fl; /* an fl= line was read: else functions have no file
		      * (files that name files with fi= alone) */
	pc_id cur_func;  /* model function of the current fn= */
	uint32_t cur_fn; /* its graph function, UINT32_MAX if none */
	pc_id cob, cfi;
	const char *cfn;
	pc_id cfn_ix; /* its entry in fn (parse_name) */
	int expect; /* 0, 'c' after calls=, 'j' after jump=/jcnd= */
	uint64_t call_count;
	uint64_t call_addr; /* the callee's entry (calls= target) */
	uint32_t call_line;
	/* per model metric: the divisor of a scaled event, 0 or 1 none */
	double *div;
	size_t ndiv;
	/* per model function: its entry from calls= targets, 0 unknown */
	uint64_t *ent_off;
	uint32_t *ent_line;
	size_t nent;

	struct cg_graph g;
	int part_has_data;
	uint64_t *line_costs; /* scratch, nev */
	/* a line number and its bytes as valgrind writes a cost line at
	 * it, but the counts (cost_bytes: cost_apply's) */
	uint64_t bytes_line, line_bytes;

	/* two runs on one tree (callgrind_pair.c): each part's graph goes
	 * to held, not laid out; events named with suffix (NULL: none) */
	void (*held)(void *ctx, struct cg_part *part);
	void *hctx;
	const char *suffix;
};

/* callgrind_ids.c: id's entry in t past its array (PC_NONE: none);
 * the entry of id defined as name (a new one, or the one it had,
 * emptied); the table freed */
pc_id cg_idtab_find(const struct idtab *t, uint64_t id);
pc_id cg_idtab_set(struct idtab *t, uint64_t id, const char *name);
void cg_idtab_free(struct idtab *t);

/* The entry of id (PC_NONE: none): by its index where ids are small
 * (dir), in the map past them. */
static inline pc_id cg_idtab_get(const struct idtab *t, uint64_t id)
{
	if (id < t->ndir)
		return t->dir[id];
	return cg_idtab_find(t, id);
}

/* callgrind.c: an error at the current line; a number (decimal or 0x
 * hex: the end, NULL if none or past 64 bits); the counts of s into
 * out[0..n), zeros for those not given (*end, if not NULL, where the
 * reading stopped) */
int cg_fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *cg_parse_u64(const char *s, uint64_t *out, int *overflow);
int cg_parse_counts(struct parser *p, const char *s, uint64_t *out,
		    size_t n, const char *what, const char **end);

static inline const char *cg_skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The end of the word at s: its first blank or the 0 after it. */
static inline const char *cg_word_end(const char *s)
{
	while (*s && *s != ' ' && *s != '\t')
		s++;
	return s;
}

/* callgrind_head.c: a header line "key: val"; the format's probe */
int cg_header_line(struct parser *p, const char *key, size_t klen,
		   const char *val);
int cg_probe(const struct pc_probe *pr);

/* callgrind_part.c */
void cg_start_graph(struct parser *p);
void cg_reset_part_header(struct parser *p);
void cg_logical_ids(const struct pc_db *db, struct pc_idelem ids[2]);
void cg_finish_part(struct parser *p);

#endif
