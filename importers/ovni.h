/* ovni runtime traces: the event table shared by importers/ovni*.c. */
#ifndef PC_OVNI_H
#define PC_OVNI_H
#include <stddef.h>

/* What an event does to the thread's stack of frames. */
enum ov_kind {
	OV_POINT,       /* known, changes no frame */
	OV_ENTER,       /* pushes the region named in arg */
	OV_EXIT,        /* pops the region entered by the MCV in arg */
	OV_TYPE_DEF,    /* jumbo (u32 typeid, str label): a task type */
	OV_TASK_CREATE, /* (u32 taskid, u32 typeid) */
	OV_TASK_EXEC,   /* (u32 taskid, ...): pushes the task body */
	OV_TASK_END,    /* pops it */
	OV_TASK_PAUSE,  /* pushes "[task paused]" over the task body */
	OV_TASK_RESUME, /* pops it */
	OV_TYPED_ENTER, /* (u32 typeid): a region named by a type label */
	OV_TYPED_EXIT,
	OV_MARK_PUSH,   /* (i64 value, i32 type) */
	OV_MARK_POP,
	OV_MARK_SET,
	OV_TH_EXEC,     /* thread states */
	OV_TH_END,
	OV_TH_PAUSE,
	OV_TH_RESUME,
	OV_TH_COOL,
	OV_TH_WARM,
	OV_OFFCPU,
	OV_ONCPU,
	OV_UNORD_BEGIN, /* clocks may go back until OV_UNORD_END */
	OV_UNORD_END,
};

struct ov_event {
	const char *model;
	const char *mcv;
	int psize; /* payload bytes; -1: jumbo */
	int kind;  /* enum ov_kind */
	const char *arg;
};
struct ov_model {
	const char *name;
	char letter; /* in ovni 1.14 */
	const char *version;
};
extern const struct ov_event ov_events[];
extern const struct ov_model ov_models[];

/* ---- shared by ovni.c and ovni_files.c ---- */
#include <stdint.h>
#include <string.h>
#include "pc.h"

#define OV_JUMBO_KEEP (64u << 10) /* jumbo data kept for decoding */
struct json_object;

/* A u64 -> u64 map (open addressing; key UINT64_MAX is reserved). */
struct u64map {
	uint64_t *k, *v;
	size_t n, cap;
};

struct ev {
	uint64_t off; /* of the event in the file */
	uint64_t clock;
	uint8_t flags, m, c, v;
	uint32_t psize;
	const uint8_t *payload;
	uint32_t jlen;        /* jumbo data length */
	const uint8_t *jdata; /* NULL when longer than OV_JUMBO_KEEP */
};

struct rd {
	const char *path;
	int fd;
	int swap;
	uint8_t *buf;
	size_t cap, pos, end;
	uint64_t base; /* file offset of buf[0] */
	uint64_t size;
	int mapped; /* buf maps the whole file (read in place, not copied) */
	size_t given; /* mapped: the pages before it are given back */
};

struct mark_type {
	int64_t type;
	char *title;
	struct json_object *labels; /* owned reference, may be NULL */
};

struct stream {
	char *obs;  /* the event stream */
	char *json; /* its metadata file (v2, v3), else NULL */
	long long tid;
};

struct proc {
	const char *loom_dir;
	char loom[256], host[256];
	long long pid;
	int layout; /* 0..3 */
	int64_t rank; /* -1: none */
	int letter_model[256]; /* model index by letter, -1 unknown */
	const char *lib;       /* libovni version if known */
	struct stream *st;
	size_t nst;
	struct mark_type *marks;
	size_t nmarks, capmarks;
	char *lib_buf;
	const char *nul_json; /* a stream.json with a mark's title or
			       * label holding a NUL (\u0000): cut there */
	/* the models its streams require (ovni.require; bit: index in
	 * ov_models), if any stream says (has_require) */
	uint32_t required;
	int has_require;
	/* the CPUs its v3 streams give (ovni.loom_cpus), each with the
	 * stream.json that gave it (one of st[].json) */
	struct ov_cpu {
		int64_t index, phyid;
		const char *json;
	} *cpus;
	size_t ncpus, capcpus;
	int unfinished; /* a v3 stream without "ovni.finished": 1 */
};

static inline uint32_t rd32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t rd64(const uint8_t *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

int ov_is_dir(const char *p);
int ov_is_file(const char *p);
/* "thread.123" / "thread.123.obs": the number, or -1. */
long long ov_num_after(const char *s, const char *prefix, const char *suffix);
/* a + "/" + b (free it) */
char *ov_join(const char *a, const char *b);
void ov_map_put(struct u64map *m, uint64_t k, uint64_t v);
int ov_map_get(const struct u64map *m, uint64_t k, uint64_t *v);
void ov_map_free(struct u64map *m);
/* A thread's event stream: opened (its byte order from its header),
 * read event by event (1, 0 at the end, -1 with err set), closed. */
int ov_rd_open(struct rd *r, const char *path, struct pc_err *err);
int ov_rd_next(struct rd *r, struct ev *e, struct pc_err *err);
/* An event's first four bytes (flags and payload size, model,
 * category, value) at file offset off, into e. */
static inline void ov_ev_head(struct ev *e, const uint8_t *p, uint64_t off)
{
	unsigned s = p[0] & 15;
	e->off = off;
	e->flags = p[0] >> 4;
	e->psize = s ? s + 1 : 0;
	e->m = p[1];
	e->c = p[2];
	e->v = p[3];
	e->jlen = 0;
	e->jdata = NULL;
}
/* A mapped stream's pages read are given back every OV_GIVE_BACK bytes
 * (they count in the peak: two readers' 16 MB of them were a third of
 * it) */
#define OV_GIVE_BACK ((size_t)4 << 20)
/* ov_rd_next, inline where the event is an ordinary one (not jumbo)
 * whole in the buffer, and no pages are due to be given back: most. */
static inline int ov_rd_event(struct rd *r, struct ev *e,
			      struct pc_err *err)
{
	if (r->end - r->pos < 12 + 16 ||
	    (r->mapped && r->pos - r->given >= OV_GIVE_BACK))
		return ov_rd_next(r, e, err);
	const uint8_t *p = r->buf + r->pos;
	if (p[0] & 0x10) /* jumbo */
		return ov_rd_next(r, e, err);
	ov_ev_head(e, p, r->base + r->pos);
	e->clock = rd64(p + 4, r->swap);
	e->payload = p + 12;
	r->pos += 12 + e->psize;
	return 1;
}
void ov_rd_close(struct rd *r);
/* A process directory: its streams listed (proc_list), or listed with
 * its metadata read (proc_open); freed with proc_free. */
int ov_proc_list(struct proc *p, const char *dir, struct pc_err *err);
int ov_proc_open(struct proc *p, const char *dir, struct pc_err *err);
void ov_proc_free(struct proc *p);
/* ---- the looms and processes of a trace (ovni_files.c) ---- */

/* The directory holding the loom.* directories (*root; NULL: path is
 * one loom) and the looms' paths: 0 (frees: *root, each loom). */
int ov_trace_looms(const char *path, char **root, char ***looms, size_t *n);
/* The proc.PID entries of a loom, by PID (*np of them). */
char **ov_loom_procs(const char *dir, size_t *np);
/* The CPUs of the loom at dir, as ovniemu 1.14 takes them (src/emu/
 * loom.c): merged by physical id over its streams, each physical id of
 * one index; in a layout L3 trace at least one (unless a stream is
 * unfinished: a thread that crashed writes none), their indices 0 to
 * N-1 each once. 0, or -1 with err saying which stream.json (or the loom,
 * none) is wrong; a process that cannot be read: its error. */
int ov_loom_cpus(const char *dir, struct pc_err *err);
/* The number of thread streams of the looms, from the listings alone. */
size_t ov_count_streams(char **looms, size_t nl);
/* Whether the kernel model is enabled (some process requires it, or
 * says nothing of what it requires). */
int ov_kernel_model(char **looms, size_t nl);

/* ---- the event table, indexed (ovni_table.c) ---- */

#define OV_NMODELS 16
extern int ov_nmodels;
extern const char *ov_model_names[OV_NMODELS];
/* event index + 1 by (model, category, value); 0: unknown */
extern uint16_t (*ov_ev_index)[256][256];
/* for an EXIT event, the index of its ENTER event */
extern uint16_t *ov_enter_of;
/* Makes the index, once (any thread may call it). */
void ov_table_init(void);
/* The index of a model of the event table, -1 if unknown. */
int ov_model_find(const char *name);
/* The event table's entry of an event of the process, NULL if unknown
 * (inline: every event of a trace is looked up). */
static inline const struct ov_event *ov_lookup(const struct proc *p,
					       const struct ev *e)
{
	int m = p->letter_model[e->m];
	if (m < 0)
		return NULL;
	uint16_t i = ov_ev_index[m][e->c][e->v];
	return i ? &ov_events[i - 1] : NULL;
}

/* ---- the tasks of a process (ovni_tasks.c) ---- */

struct tasks {
	int full; /* every stream of the process scanned */
	/* a reader whose share starts at this stream of the process (-j,
	 * MPI): the streams before it are replayed for their tasks before
	 * any task is looked up or noted (tasks_catch_up) */
	size_t behind;
	struct u64map type_label; /* (model, typeid) -> label id + 1 */
	struct u64map task_type;  /* (model, taskid) -> typeid */
	struct u64map parallel;   /* (model, taskid): a parallel task (VTC) */
	char **labels;
	size_t nlabels, caplabels;
};

static inline uint64_t ov_tkey(int model, uint32_t id)
{
	return ((uint64_t)model << 32) | id;
}
/* Notes a task type definition or a task creation. */
void ov_tasks_note(struct tasks *t, int m, const struct ov_event *d,
		   const struct ev *e, int swap);
/* Scans every stream of the process for task types and creations
 * (t->full set): 0, or -1 with err set. */
int ov_prepass(struct proc *p, struct tasks *t, struct pc_err *err);
/* What one process reading in order knows of the tasks at stream
 * t->behind, for a share that starts there: 0, or -1 with err set. */
int ov_tasks_catch_up(struct proc *p, struct tasks *t, struct pc_err *err);
void ov_tasks_free(struct tasks *t);

#endif
