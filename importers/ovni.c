/* ovni runtime traces (the ovni/ directory of a task-based program run
 * with libovni): all four directory layouts, metadata versions 1-3,
 * streams of either byte order, jumbo events, clock-offsets.txt.
 *
 * Mapping (doc/formats.md "ovni", doc/design.md): one profile per thread
 * (NODE = loom host, RANK = metadata rank or process ordinal with the
 * PID as physical id, THREAD = thread ordinal with the TID as physical
 * id); enter/exit pairs, task
 * bodies (named by their type label), typed regions and marks push and
 * pop frames on the thread's stack; time while the thread runs is charged
 * to the innermost frame, time paused, cooling or warming to a synthetic
 * child of it, time off the CPU (the kernel's) to the innermost frame as
 * a metric of its own, the thread keeping its state; every push counts
 * an entry; every change of the innermost context is a trace sample.
 *
 * Streams are read one thread after another, never all in memory. Only
 * task types and task creation cross threads (a task created on one
 * thread runs on another): a first pass over the process's streams
 * collects those, so no global sort by clock is needed. */
#include "pc.h"
#include "ovni.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OV_MAX_DEPTH 100000

/* ---- the model side ---- */

enum { ST_RUN, ST_PAUSED, ST_COOL, ST_WARM, ST_N };
static const char *const state_names[ST_N] = {
	NULL, "[paused]", "[cooling]", "[warming]",
};

struct frame {
	pc_id ctx;
	uint16_t kind;  /* enum ov_kind of the push */
	uint16_t event; /* index in ov_events of the enter event */
	int64_t a, b;   /* task id / type id, mark value / mark type */
	int64_t ka, kb; /* what names its context (see push) */
	struct memo {   /* the last frame pushed on it: key and context */
		uint32_t what;
		int64_t a, b;
		pc_id ctx; /* PC_NONE: none */
	} above;
};

/* Everything of one conversion. */
struct ctx {
	struct pc_db *db;
	struct pc_err *err;
	int *stop; /* pc_import_opts' */
	/* MPI: streams in reading order, and how many there are */
	uint64_t unit, nunits;
	pc_id m_run, m_idle, m_ent;
	pc_id m_off; /* time off CPU (the kernel model), PC_NONE: none */
	pc_id root;          /* the "[thread]" function context */
	pc_id ovni_mod;
	/* per context: time running, time not running, entries, time off
	 * CPU (this thread's, added to the model at its end) */
	struct acc {
		uint64_t v[4];
	} *acc;
	pc_id *touched;
	size_t ntouched, capacc, captouched;
	struct frame *stack;
	size_t depth, capstack;
	struct frame *above; /* restack's copy of the frames it moves */
	size_t capabove;
	struct memo above_root; /* the last frame pushed on the thread root */
	/* clock offsets by host */
	char **off_host;
	int64_t *off_ns;
	size_t noff;
	/* (parent, what) -> context, so a push costs no string hashing */
	struct ckey *cache;
	size_t ncache, capcache;
	uint64_t nrank; /* processes seen (ordinals for RANK) */
	uint64_t nloom;
	char open_name[300]; /* open_name's */
};

struct ckey {
	pc_id parent; /* PC_NONE: empty slot */
	uint32_t what; /* event index, or 0xffff0000 + state */
	int64_t a, b;
	pc_id ctx;
};

/* (a multiply each and a fold: the table's index takes high bits too) */
static inline uint64_t ckey_hash(pc_id parent, uint32_t what, int64_t a,
				 int64_t b)
{
	uint64_t h = ((uint64_t)parent << 32 | what) * 0x9e3779b97f4a7c15u ^
		     (uint64_t)a * 0xc2b2ae3d27d4eb4fu ^
		     (uint64_t)b * 0x165667b19e3779f9u;
	return h ^ h >> 29 ^ h >> 47;
}

/* The slot of key (parent, what, a, b): its own, or the empty one where
 * it would go. */
static inline struct ckey *cache_find(struct ctx *c, pc_id parent,
				      uint32_t what, int64_t a, int64_t b)
{
	size_t i = ckey_hash(parent, what, a, b) & (c->capcache - 1);
	for (;;) {
		struct ckey *k = &c->cache[i];
		if (k->parent == PC_NONE ||
		    (k->parent == parent && k->what == what && k->a == a &&
		     k->b == b))
			return k;
		i = (i + 1) & (c->capcache - 1);
	}
}

/* Twice the room (out of line: cache_slot stays small). */
static void cache_grow(struct ctx *c)
{
	struct ckey *old = c->cache;
	size_t oc = c->capcache;
	c->capcache = oc ? 2 * oc : 1024;
	c->cache = pc_xmalloc(c->capcache * sizeof(*c->cache));
	for (size_t i = 0; i < c->capcache; i++)
		c->cache[i].parent = PC_NONE;
	for (size_t i = 0; i < oc; i++)
		if (old[i].parent != PC_NONE)
			*cache_find(c, old[i].parent, old[i].what, old[i].a,
				    old[i].b) = old[i];
	free(old);
}

/* cache_find, with room for one more key. */
static inline struct ckey *cache_slot(struct ctx *c, pc_id parent,
				      uint32_t what, int64_t a, int64_t b)
{
	if (2 * (c->ncache + 1) > c->capcache)
		cache_grow(c);
	return cache_find(c, parent, what, a, b);
}

static pc_id func_ctx(struct ctx *c, pc_id parent, const char *name,
		      const char *module)
{
	pc_id mod = pc_module_get(c->db, module);
	pc_id fn = pc_function_get(c->db, name, mod, 0, PC_NONE, 0);
	struct pc_context k = { .kind = PC_CTX_FUNCTION, .rel = PC_REL_CALL,
				.function = fn, .file = PC_NONE,
				.module = PC_NONE };
	return pc_ctx_child(c->db, parent, &k);
}

/* Room for context ctx's sums, and ctx noted as touched (acc_add's
 * rarer paths, out of line). */
static void acc_grow(struct ctx *c, pc_id ctx)
{
	size_t old = c->capacc;
	size_t cap = old ? old : 1024;
	while (cap <= ctx)
		cap *= 2;
	c->acc = pc_xrealloc(c->acc, cap, sizeof(*c->acc));
	memset(c->acc + old, 0, (cap - old) * sizeof(*c->acc));
	c->capacc = cap;
}

static void acc_touch(struct ctx *c, pc_id ctx)
{
	PC_GROW(c->touched, c->ntouched, c->captouched);
	c->touched[c->ntouched++] = ctx;
}

static inline void acc_add(struct ctx *c, pc_id ctx, int which, uint64_t v)
{
	if (ctx >= c->capacc)
		acc_grow(c, ctx);
	struct acc *a = &c->acc[ctx];
	if (!(a->v[0] | a->v[1] | a->v[2] | a->v[3])) {
		if (!v)
			return;
		acc_touch(c, ctx);
	}
	a->v[which] += v;
}

static void acc_flush(struct ctx *c, pc_id profile)
{
	const pc_id metric[4] = { c->m_run, c->m_idle, c->m_ent, c->m_off };
	for (size_t i = 0; i < c->ntouched; i++) {
		pc_id x = c->touched[i];
		for (int k = 0; k < 4; k++)
			if (c->acc[x].v[k] && metric[k] != PC_NONE)
				pc_value_add(c->db, profile, x, metric[k],
					     (double)c->acc[x].v[k]);
		c->acc[x] = (struct acc){ { 0, 0, 0, 0 } };
	}
	c->ntouched = 0;
}

/* A thread's last two trace samples, not yet in the model: a later
 * change at the same time replaces the last one, which makes the one
 * before it the last again. */
struct pending {
	struct pc_sample s[2];
	int n;
};

/* A trace sample: consecutive samples differ in context; a later change
 * at the same time replaces the earlier one. */
static inline void sample(struct ctx *c, pc_id profile, struct pending *q,
			  uint64_t t, pc_id ctx)
{
	if (q->n && q->s[q->n - 1].time == t) {
		q->n--;
		if (q->n && q->s[q->n - 1].ctx == ctx)
			return;
	} else if (q->n ? q->s[q->n - 1].ctx == ctx :
			  ctx == 0 && !c->db->traces[profile].n) {
		return;
	}
	if (q->n == 2) {
		pc_trace_add(c->db, profile, q->s[0].time, q->s[0].ctx);
		q->s[0] = q->s[1];
		q->n = 1;
	}
	q->s[q->n++] = (struct pc_sample){ t, ctx };
}

static void sample_flush(struct ctx *c, pc_id profile, struct pending *q)
{
	for (int i = 0; i < q->n; i++)
		pc_trace_add(c->db, profile, q->s[i].time, q->s[i].ctx);
	q->n = 0;
}

/* ---- one thread ---- */

struct thr {
	const char *path; /* for messages: the stream file */
	struct proc *p;
	struct tasks *t;
	pc_id profile;
	int alive, state, offcpu, unordered, ended;
	uint64_t last, first;
	int started;
	pc_id cur; /* effective context, PC_NONE when not alive */
	int64_t clock_off;
	struct pending q; /* its last trace samples */
	char title[64]; /* mark_label's */
	struct u64map bodies_ended; /* task bodies that ended on it */
};

/* The context keyed (what, a, b) below parent: from the cache, or made
 * as a call of the function name of module (a function of the key, so
 * name may be NULL when the cache has it: see the callers). */
static pc_id keyed_ctx(struct ctx *c, pc_id parent, uint32_t what, int64_t a,
		       int64_t b, const char *name, const char *module)
{
	struct ckey *k = cache_slot(c, parent, what, a, b);
	if (k->parent == PC_NONE) {
		pc_id x = func_ctx(c, parent, name, module);
		k = cache_slot(c, parent, what, a, b);
		*k = (struct ckey){ parent, what, a, b, x };
		c->ncache++;
	}
	return k->ctx;
}

static pc_id top_ctx(struct ctx *c)
{
	return c->depth ? c->stack[c->depth - 1].ctx : c->root;
}

static pc_id effective(struct ctx *c, struct thr *th)
{
	if (!th->alive)
		return PC_NONE;
	pc_id base = top_ctx(c);
	int st = th->state;
	if (st == ST_RUN)
		return base;
	return keyed_ctx(c, base, 0xffff0000u + (uint32_t)st, 0, 0,
			 state_names[st], "ovni");
}

/* The context of a frame keyed (what, a, b) pushed on the top of the
 * stack: a loop pushes the same frame on the same one again and again,
 * so each frame remembers the last one pushed on it before the cache is
 * asked. The name is a function of the key: see the callers. */
static struct memo *top_memo(struct ctx *c, uint32_t what, int64_t a,
			     int64_t b, int *hit)
{
	struct memo *m = c->depth ? &c->stack[c->depth - 1].above :
				    &c->above_root;
	*hit = m->ctx != PC_NONE && m->what == what && m->a == a && m->b == b;
	return m;
}

static pc_id frame_ctx(struct ctx *c, uint32_t what, int64_t a, int64_t b,
		       const char *name, const char *module)
{
	int hit;
	struct memo *m = top_memo(c, what, a, b, &hit);
	if (!hit)
		*m = (struct memo){ what, a, b,
				    keyed_ctx(c, top_ctx(c), what, a, b, name,
					      module) };
	return m->ctx;
}

/* Has the frame keyed (what, a, b) on the top of the stack a context
 * already (so that its name need not be worked out)? One found in the
 * cache is remembered for the push that follows. */
static int frame_known(struct ctx *c, uint32_t what, int64_t a, int64_t b)
{
	int hit;
	struct memo *m = top_memo(c, what, a, b, &hit);
	if (hit)
		return 1;
	const struct ckey *k = cache_slot(c, top_ctx(c), what, a, b);
	if (k->parent == PC_NONE)
		return 0;
	*m = (struct memo){ what, a, b, k->ctx };
	return 1;
}

static int push(struct ctx *c, struct thr *th, const struct ev *e,
		const char *name, const char *module, int kind, int event,
		int64_t a, int64_t b, int64_t ka, int64_t kb)
{
	if (c->depth >= OV_MAX_DEPTH)
		return pc_err_at_off(c->err, th->path, e->off, "more than %d "
				     "nested frames", OV_MAX_DEPTH);
	PC_GROW(c->stack, c->depth, c->capstack);
	pc_id x = frame_ctx(c, (uint32_t)event, ka, kb, name, module);
	c->stack[c->depth++] = (struct frame){ x, (uint16_t)kind,
					       (uint16_t)event, a, b, ka, kb,
					       { 0, 0, 0, PC_NONE } };
	acc_add(c, x, 2, 1);
	return 0;
}

/* Frames above a mark that is popped or set: at most this many are
 * pushed again (a bound on the work per event). */
#define OV_MAX_RESTACK 1024

/* A frame restack pushes below the frames it takes out. */
struct ins {
	const char *name, *module;
	int kind, event;
	int64_t a, b, ka, kb;
};

/* Takes the frames above `at` out of the stack, and frame `at` itself
 * if drop; pushes ins (if not NULL) on what is left, then the frames
 * taken out again, in order. ovniemu keeps each mark type in a channel
 * of its own, so a mark's pop or set need not nest with the frames of
 * other channels (doc/formats.md, ovni); and a task pauses and resumes
 * below the API calls open in it. The frames pushed again are not
 * entered again: entry counts do not change. */
static int restack(struct ctx *c, struct thr *th, const struct ev *e,
		   size_t at, int drop, const struct ins *ins)
{
	size_t n = c->depth - at - 1;
	if (n > OV_MAX_RESTACK)
		return pc_err_at_off(c->err, th->path, e->off, "a %s below "
				     "%zu other frames changes (at most %d)",
				     ins && ins->kind == OV_TASK_PAUSE ? "task" :
				     "mark", n, OV_MAX_RESTACK);
	if (n >= c->capabove) {
		c->capabove = n + 16;
		c->above = pc_xrealloc(c->above, c->capabove, sizeof(*c->above));
	}
	struct frame *above = c->above;
	memcpy(above, &c->stack[at + 1], n * sizeof(*above));
	c->depth = drop ? at : at + 1;
	int r = ins ? push(c, th, e, ins->name, ins->module, ins->kind,
			   ins->event, ins->a, ins->b, ins->ka, ins->kb) : 0;
	for (size_t i = 0; i < n && !r; i++) {
		struct frame f = above[i];
		const struct pc_function *fn =
			&c->db->functions[c->db->contexts[f.ctx].function];
		f.ctx = frame_ctx(c, f.event, f.ka, f.kb, fn->name,
				  c->db->modules[fn->module].path);
		f.above.ctx = PC_NONE;
		c->stack[c->depth++] = f;
	}
	return r;
}

/* The innermost frame of kind `kind` with (a, b) below the API calls
 * (ENTER frames) open above it: its index + 1, 0 if there is none. */
static size_t below_calls(const struct ctx *c, int kind, int64_t a, int64_t b)
{
	size_t i = c->depth;
	while (i && c->stack[i - 1].kind == OV_ENTER)
		i--;
	return i && c->stack[i - 1].kind == kind && c->stack[i - 1].a == a &&
			       c->stack[i - 1].b == b ? i : 0;
}

/* The innermost open mark of a type: its index + 1, 0 if none. */
static size_t open_mark(const struct ctx *c, int64_t type)
{
	size_t i = c->depth;
	while (i && !((c->stack[i - 1].kind == OV_MARK_PUSH ||
		       c->stack[i - 1].kind == OV_MARK_SET) &&
		      c->stack[i - 1].b == type))
		i--;
	return i;
}

static const char *open_name(struct ctx *c)
{
	if (!c->depth)
		return "no open frame";
	char *buf = c->open_name;
	const struct frame *f = &c->stack[c->depth - 1];
	const char *n = "";
	const struct pc_context *x = &c->db->contexts[f->ctx];
	if (x->function != PC_NONE)
		n = c->db->functions[x->function].name;
	snprintf(buf, sizeof c->open_name, "the open frame is '%s'", n);
	return buf;
}

/* NULL on an error of the scan of the other streams. */
static const char *task_label(struct ctx *c, struct thr *th, int model,
			      uint32_t typeid, char *buf, size_t n)
{
	uint64_t li;
	if (ov_map_get(&th->t->type_label, ov_tkey(model, typeid), &li))
		return th->t->labels[li - 1];
	if (!th->t->full) {
		if (ov_prepass(th->p, th->t, c->err))
			return NULL;
		return task_label(c, th, model, typeid, buf, n);
	}
	snprintf(buf, n, "%s task type %u", ov_model_names[model],
		 (unsigned)typeid);
	return buf;
}

static const char *mark_label(struct thr *th, int64_t type, int64_t value,
			      const char **title, char *buf, size_t n)
{
	for (size_t i = 0; i < th->p->nmarks; i++) {
		const struct mark_type *m = &th->p->marks[i];
		if (m->type != type)
			continue;
		*title = m->title ? m->title : "mark";
		char key[32];
		snprintf(key, sizeof key, "%lld", (long long)value);
		struct json_object *l;
		if (m->labels && json_object_object_get_ex(m->labels, key, &l) &&
		    json_object_is_type(l, json_type_string))
			return json_object_get_string(l);
		snprintf(buf, n, "%s %lld", *title, (long long)value);
		return buf;
	}
	snprintf(th->title, sizeof th->title, "mark type %lld",
		 (long long)type);
	*title = th->title;
	snprintf(buf, n, "mark type %lld value %lld", (long long)type,
		 (long long)value);
	return buf;
}

/* A task body: (model, task id, body id: nOS-V's parallel tasks run
 * several bodies of one task). */
static uint64_t body_key(int m, uint32_t id, uint32_t body)
{
	return ov_tkey(m, id) ^ ((uint64_t)body << 40);
}

/* What ovniemu's task models refuse when a body starts on this thread:
 * a task run over itself (running or paused), a body run again after
 * it ended here, and a nOS-V task run over a nOS-V task that is not
 * paused (nOS-V nests a task only in a paused one). 0, or -1 with err
 * set. */
static int task_rules(struct ctx *c, struct thr *th, const struct ev *e,
		      int m, uint32_t id, uint32_t body)
{
	const char *mod = ov_model_names[m];
	uint64_t v;
	if (ov_map_get(&th->bodies_ended, body_key(m, id, body), &v))
		return pc_err_at_off(c->err, th->path, e->off, "%s task %u "
				     "runs again after it ended", mod,
				     (unsigned)id);
	const struct frame *inner = NULL;
	for (size_t i = c->depth; i-- > 0;) {
		const struct frame *f = &c->stack[i];
		if (f->kind != OV_TASK_EXEC && f->kind != OV_TASK_PAUSE)
			continue;
		if (!inner)
			inner = f;
		if (f->kind == OV_TASK_EXEC && f->a == id && f->b == m)
			return pc_err_at_off(c->err, th->path, e->off, "%s "
					     "task %u runs inside itself (it "
					     "is %s here)", mod, (unsigned)id,
					     inner->kind == OV_TASK_PAUSE &&
					     inner->a == id ? "paused" :
					     "running");
	}
	if (inner && inner->kind == OV_TASK_EXEC && inner->b == m &&
	    !strcmp(mod, "nosv"))
		return pc_err_at_off(c->err, th->path, e->off, "nosv task %u "
				     "runs inside nosv task %u, which is not "
				     "paused (nOS-V nests tasks only in a "
				     "paused one)", (unsigned)id,
				     (unsigned)inner->a);
	return 0;
}

/* Applies one event of a known kind to the thread. */
static int apply(struct ctx *c, struct thr *th, const struct ev *e,
		 const struct ov_event *d, int swap)
{
	int m = th->p->letter_model[e->m];
	const char *mod = ov_model_names[m];
	int idx = (int)(d - ov_events);
	struct frame *top = c->depth ? &c->stack[c->depth - 1] : NULL;
	char buf[160];
	/* a model is enabled by the streams that require it (ovniemu's
	 * rule; traces without ovni.require enable all, and the ovni
	 * model itself, which libovni before 1.14 did not list) */
	if (th->p->has_require && !(th->p->required & (1u << m)) &&
	    strcmp(mod, "ovni"))
		return pc_err_at_off(c->err, th->path, e->off, "event %s of "
				     "the %s model, which the trace does not "
				     "require (ovni.require of its streams)",
				     d->mcv, mod);
	/* off its CPU, a thread emits no ovni nor nOS-V event (ovniemu's
	 * ovni and nosv models refuse them) */
	if (th->offcpu && (!strcmp(mod, "ovni") || !strcmp(mod, "nosv")))
		return pc_err_at_off(c->err, th->path, e->off, "event %s of "
				     "the %s model while the thread is off its "
				     "CPU (after KCO, before KCI)", d->mcv,
				     mod);
	if (d->psize > 0 && (int)e->psize < d->psize)
		return pc_err_at_off(c->err, th->path, e->off, "event %s: "
				     "payload of %u bytes, %d expected",
				     d->mcv, e->psize, d->psize);
	if (th->t->behind &&
	    (d->kind == OV_TYPE_DEF || d->kind == OV_TASK_CREATE ||
	     d->kind == OV_TASK_EXEC || d->kind == OV_TYPED_ENTER) &&
	    ov_tasks_catch_up(th->p, th->t, c->err))
		return -1;
	switch (d->kind) {
	case OV_TYPE_DEF:
	case OV_TASK_CREATE:
		ov_tasks_note(th->t, m, d, e, swap);
		return 0;
	case OV_ENTER:
		/* ovniemu's MPI function channel takes no call of the
		 * function it is in ("same value as last_value") */
		for (size_t i = c->depth; !strcmp(mod, "mpi") && i-- > 0;)
			if (c->stack[i].kind == OV_ENTER &&
			    !strcmp(ov_events[c->stack[i].event].model, "mpi")) {
				if (c->stack[i].event == idx)
					return pc_err_at_off(
						c->err, th->path, e->off,
						"%s entered while the thread "
						"is in it", d->arg);
				break;
			}
		return push(c, th, e, d->arg, mod, OV_ENTER, idx, 0, 0, 0, 0);
	case OV_EXIT:
		if (!top || top->kind != OV_ENTER ||
		    top->event != ov_enter_of[idx])
			return pc_err_at_off(c->err, th->path, e->off,
					     "exit event %s does not match "
					     "the enter %s: %s", d->mcv,
					     d->arg, open_name(c));
		c->depth--;
		return 0;
	case OV_TASK_EXEC: {
		uint32_t id = rd32(e->payload, swap);
		uint64_t type;
		const char *name;
		int64_t ka = -1;
		if (!ov_map_get(&th->t->task_type, ov_tkey(m, id), &type) &&
		    !th->t->full && ov_prepass(th->p, th->t, c->err))
			return -1;
		if (ov_map_get(&th->t->task_type, ov_tkey(m, id), &type)) {
			name = task_label(c, th, m, (uint32_t)type, buf,
					  sizeof buf);
			if (!name)
				return -1;
			ka = (int64_t)type;
		} else {
			snprintf(buf, sizeof buf, "%s task (not created in "
				 "the trace)", mod);
			name = buf;
		}
		if (task_rules(c, th, e, m, id, d->psize >= 8 ?
				   rd32(e->payload + 4, swap) : 0))
			return -1;
		return push(c, th, e, name, mod, OV_TASK_EXEC, idx, id, m, ka,
			    0);
	}
	case OV_TASK_END:
	case OV_TASK_PAUSE: {
		uint32_t id = rd32(e->payload, swap);
		/* a task pauses from inside an API call or a blocking
		 * section too (nosv_submit(), nosv_wait(), nanos6's
		 * "blocking the current task"), as ovni's models allow: the
		 * paused frame goes on the task, below the calls, which
		 * stay open (and may end while it is paused), as ovniemu's
		 * subsystem channel keeps them */
		size_t at = d->kind == OV_TASK_PAUSE ?
				    below_calls(c, OV_TASK_EXEC, id, m) :
			    top && top->kind == OV_TASK_EXEC && top->a == id &&
				    top->b == m ? c->depth : 0;
		if (!at)
			return pc_err_at_off(c->err, th->path, e->off,
					     "%s of %s task %u, but %s",
					     d->kind == OV_TASK_END ? "end" :
								      "pause",
					     mod, (unsigned)id, open_name(c));
		if (d->kind == OV_TASK_END) {
			c->depth--;
			uint32_t body = d->psize >= 8 ?
						rd32(e->payload + 4, swap) : 0;
			ov_map_put(&th->bodies_ended, body_key(m, id, body), 1);
			return 0;
		}
		/* (the task ran here: its creation is known) */
		uint64_t par;
		if (ov_map_get(&th->t->parallel, ov_tkey(m, id), &par))
			return pc_err_at_off(c->err, th->path, e->off, "pause "
					     "of %s task %u, a parallel task "
					     "(VTC), whose bodies cannot pause",
					     mod, (unsigned)id);
		struct ins k = { "[task paused]", mod, OV_TASK_PAUSE, idx,
				 id, m, 0, 0 };
		return restack(c, th, e, at - 1, 0, &k);
	}
	case OV_TASK_RESUME: {
		uint32_t id = rd32(e->payload, swap);
		size_t at = below_calls(c, OV_TASK_PAUSE, id, m);
		if (!at)
			return pc_err_at_off(c->err, th->path, e->off,
					     "resume of %s task %u, which is "
					     "not paused: %s", mod,
					     (unsigned)id, open_name(c));
		return restack(c, th, e, at - 1, 1, NULL);
	}
	case OV_TYPED_ENTER: {
		uint32_t type = rd32(e->payload, swap);
		const char *name = task_label(c, th, m, type, buf, sizeof buf);
		if (!name)
			return -1;
		return push(c, th, e, name, mod, OV_TYPED_ENTER, idx, type, m,
			    type, 0);
	}
	case OV_TYPED_EXIT: {
		uint32_t type = rd32(e->payload, swap);
		if (!top || top->kind != OV_TYPED_ENTER || top->a != type ||
		    top->b != m)
			return pc_err_at_off(c->err, th->path, e->off,
					     "%s of type %u does not match: %s",
					     d->mcv, (unsigned)type,
					     open_name(c));
		c->depth--;
		return 0;
	}
	case OV_MARK_PUSH:
	case OV_MARK_POP:
	case OV_MARK_SET: {
		int64_t value = (int64_t)rd64(e->payload, swap);
		int64_t type = (int32_t)rd32(e->payload + 8, swap);
		const char *title = NULL, *lab = NULL;
		size_t at = open_mark(c, type);
		if (d->kind == OV_MARK_POP) {
			/* the innermost mark of its type, wherever it is */
			if (!at || c->stack[at - 1].a != value) {
				lab = mark_label(th, type, value, &title, buf,
						 sizeof buf);
				return pc_err_at_off(c->err, th->path, e->off,
						     "mark pop of '%s' (type "
						     "%lld) does not match: %s",
						     lab, (long long)type,
						     at ? "another value of its "
							  "type is open" :
							  "no mark of its type "
							  "is open");
			}
			return restack(c, th, e, at - 1, 1, NULL);
		}
		/* OM= replaces the innermost mark of its type where it is
		 * (value 0: no mark) */
		if (d->kind == OV_MARK_SET && at && at < c->depth) {
			lab = value ? mark_label(th, type, value, &title, buf,
						 sizeof buf) : NULL;
			struct ins k = { lab, title, OV_MARK_SET, 0xfffe,
					 value, type, value, type };
			return restack(c, th, e, at - 1, 1, lab ? &k : NULL);
		}
		if (d->kind == OV_MARK_SET) {
			if (at)
				c->depth--;
			if (!value)
				return 0;
		}
		/* OM[ and OM= of a (type, value) name the same frame; the
		 * label is looked up only for a context not seen yet */
		if (!frame_known(c, 0xfffe, value, type))
			lab = mark_label(th, type, value, &title, buf,
					 sizeof buf);
		return push(c, th, e, lab, title, d->kind, 0xfffe, value,
			    type, value, type);
	}
	case OV_TH_EXEC:
		if (th->alive)
			return pc_err_at_off(c->err, th->path, e->off,
					     "OHx: the thread is already "
					     "running");
		th->alive = 1;
		th->state = ST_RUN;
		return 0;
	case OV_TH_END: {
		th->alive = 0;
		th->ended = 1;
		/* a mark set by OM= is a value, not an open region */
		size_t open = 0;
		for (size_t i = 0; i < c->depth; i++)
			open += c->stack[i].kind != OV_MARK_SET;
		if (open)
			pc_warn(c->db->diag, "%s@0x%llx: the thread ends with "
				"%zu open frames (%s); closed here", th->path,
				(unsigned long long)e->off, open,
				open_name(c));
		c->depth = 0;
		return 0;
	}
	case OV_TH_PAUSE:
		th->state = ST_PAUSED;
		return 0;
	case OV_TH_RESUME:
		th->state = ST_RUN;
		return 0;
	case OV_TH_COOL:
		th->state = ST_COOL;
		return 0;
	case OV_TH_WARM:
		th->state = ST_WARM;
		return 0;
	case OV_OFFCPU:
		th->offcpu = 1;
		return 0;
	case OV_ONCPU:
		th->offcpu = 0;
		return 0;
	case OV_UNORD_BEGIN:
		th->unordered = 1;
		return 0;
	case OV_UNORD_END:
		th->unordered = 0;
		return 0;
	default:
		return 0;
	}
}

static int64_t clock_offset(struct ctx *c, const char *host)
{
	for (size_t i = 0; i < c->noff; i++)
		if (!strcmp(c->off_host[i], host))
			return c->off_ns[i];
	return 0;
}

static int read_thread(struct ctx *c, struct proc *p, struct tasks *t,
		       size_t si, uint64_t rank, struct pc_err *err)
{
	struct stream *s = &p->st[si];
	struct pc_idelem ids[3] = {
		{ .kind = PC_ID_NODE, .logical = c->nloom,
		  .physical = pc_hash_bytes(p->host, strlen(p->host)) &
			      0xffffffffu },
		{ .kind = PC_ID_RANK, .logical = rank,
		  .physical = p->pid > 0 ? (uint64_t)p->pid : rank },
		{ .kind = PC_ID_THREAD, .logical = si,
		  .physical = (uint64_t)s->tid },
	};
	struct thr th = { .path = s->obs, .p = p, .t = t, .cur = PC_NONE };
	th.clock_off = clock_offset(c, p->host);
	struct rd r;
	if (ov_rd_open(&r, s->obs, err)) {
		ov_rd_close(&r);
		return -1;
	}
	th.profile = pc_profile_add(c->db, ids, 3);
	/* at most one sample per event, and an event takes at least 12
	 * bytes (header and clock); up to 2^26 samples reserved at once */
	uint64_t most = r.size / 12 + 1;
	pc_trace_reserve(c->db, th.profile,
			 (size_t)(most < ((uint64_t)1 << 26) ? most :
							     (uint64_t)1 << 26));
	c->depth = 0;
	c->above_root.ctx = PC_NONE; /* names may differ in another process */
	struct ev e = { 0 };
	int rc;
	int warned_clamp = 0;
	while ((rc = ov_rd_event(&r, &e, err)) == 1) {
		uint64_t now = e.clock + (uint64_t)th.clock_off;
		if (!th.started) {
			th.started = 1;
			th.last = th.first = now;
		}
		if (now < th.last) {
			if (!th.unordered) {
				rc = pc_err_at_off(err, s->obs, e.off, "clock "
						   "goes backwards: %llu after "
						   "%llu",
						   (unsigned long long)now,
						   (unsigned long long)th.last);
				break;
			}
			if (!warned_clamp++)
				pc_warn(c->db->diag, "%s@0x%llx: clock goes back "
					"inside an unordered region (%llu after "
					"%llu; ovnisort would have sorted it); "
					"the events are kept, taken at the "
					"previous clock", s->obs,
					(unsigned long long)e.off,
					(unsigned long long)now,
					(unsigned long long)th.last);
			now = th.last;
		}
		/* off its CPU (KCO..KCI), the thread stays in its state, as
		 * ovniemu keeps it: the time is also the kernel's */
		if (th.cur != PC_NONE && now > th.last) {
			acc_add(c, th.cur, th.alive && th.state == ST_RUN ? 0 : 1,
				now - th.last);
			if (th.offcpu && th.alive)
				acc_add(c, th.cur, 3, now - th.last);
		}
		th.last = now;
		const struct ov_event *d = ov_lookup(p, &e);
		if (!d) {
			uint32_t k = ((uint32_t)e.m << 16) |
				     ((uint32_t)e.c << 8) | e.v;
			pc_warn_once(c->db->diag, k, "%s@0x%llx: unknown event "
				     "%c%c%c%s skipped (and any later ones)",
				     s->obs, (unsigned long long)e.off, e.m,
				     e.c, e.v,
				     p->layout == 0 && e.m == 'M' ?
					     " (M is libovni 1.0's OpenMP "
					     "model in this layout)" :
				     p->letter_model[e.m] < 0 ?
					     " (unknown model)" : "");
			continue;
		}
		if (!th.alive && !th.ended && d->kind != OV_TH_EXEC)
			th.alive = 1; /* a stream cut at the start: running */
		if (apply(c, &th, &e, d, r.swap)) {
			rc = -1;
			break;
		}
		pc_id now_ctx = effective(c, &th);
		if (now_ctx != th.cur) {
			if (now_ctx != PC_NONE && now_ctx != top_ctx(c))
				acc_add(c, now_ctx, 2, 1); /* a state entered */
			th.cur = now_ctx;
			sample(c, th.profile, &th.q, now,
			       now_ctx == PC_NONE ? 0 : now_ctx);
		}
	}
	if (rc == 0 && !th.started)
		pc_warn(c->db->diag, "%s: an empty stream (no event: the "
			"thread crashed or was cut before its first flush; "
			"ovniemu refuses the trace); its profile is kept, "
			"empty", s->obs);
	if (rc == 0 && th.alive && th.started) {
		char open[64] = "";
		if (c->depth)
			snprintf(open, sizeof open, ", %zu frames open: ",
				 c->depth);
		pc_warn(c->db->diag, "%s: the stream ends while the thread runs "
			"(no OHe: the thread crashed or its stream was cut)"
			"%s%s; it is ended at its last clock%s, its time up to "
			"there kept", s->obs, open, c->depth ? open_name(c) : "",
			c->depth ? " (the frames closed there)" : "");
		c->depth = 0;
		sample(c, th.profile, &th.q, th.last, 0);
	}
	sample_flush(c, th.profile, &th.q);
	ov_rd_close(&r);
	acc_flush(c, th.profile);
	/* the thread's profile is complete: on to the writer */
	if (rc >= 0 && pc_profile_done(c->db, th.profile, err))
		rc = -1;
	ov_map_free(&th.bodies_ended);
	return rc < 0 ? -1 : 0;
}

/* ---- the trace directory ---- */

static int read_offsets(struct ctx *c, const char *root, struct pc_err *err)
{
	char *path = ov_join(root, "clock-offsets.txt");
	if (!ov_is_file(path)) {
		free(path);
		return 0;
	}
	struct pc_lines in;
	int rc = pc_lines_open(&in, path, c->db->diag, err);
	char *line;
	size_t len;
	int r;
	while (!rc && (r = pc_lines_next(&in, &line, &len, err)) == 1) {
		if (in.lineno == 1 || !len)
			continue; /* the header */
		char host[256];
		long long rank;
		double median, mean, sd;
		if (sscanf(line, "%lld %255s %lf %lf %lf", &rank, host, &median,
			   &mean, &sd) != 5 || !isfinite(median)) {
			rc = pc_err_at_line(err, path, in.lineno, "expected "
					    "'rank hostname median mean std'");
			break;
		}
		c->off_host = pc_xrealloc(c->off_host, c->noff + 1,
					  sizeof(char *));
		c->off_ns = pc_xrealloc(c->off_ns, c->noff + 1,
					sizeof(int64_t));
		c->off_host[c->noff] = pc_xstrdup(host);
		c->off_ns[c->noff++] = (int64_t)llround(median);
	}
	if (!rc && r < 0)
		rc = -1;
	if (!rc || in.path)
		pc_lines_close(&in);
	free(path);
	return rc;
}

/* ovniemu refuses a trace whose streams start more than an hour apart
 * (a clock gate: the hosts' clocks not synchronized, clock-offsets.txt
 * missing or wrong); profconv keeps the clocks as they are and says so,
 * once (the reader of the first share). */
static void clock_gate(struct ctx *c, char **looms, size_t nl)
{
	if (c->db->share_rank != 0)
		return;
	const uint64_t gate = 3600ull * 1000000000ull;
	int64_t lo = 0, hi = 0;
	char *lop = NULL, *hip = NULL;
	for (size_t l = 0; l < nl; l++) {
		const char *base = strrchr(looms[l], '/');
		base = base ? base + 1 : looms[l];
		char host[256];
		snprintf(host, sizeof host, "%s", base + 5);
		char *dot = strchr(host, '.');
		if (dot)
			*dot = 0;
		int64_t off = clock_offset(c, host);
		size_t np;
		char **names = ov_loom_procs(looms[l], &np);
		for (size_t i = 0; i < np; i++) {
			char *pd = ov_join(looms[l], names[i]);
			struct proc p = { 0 };
			struct pc_err e;
			if (!ov_is_dir(pd) || ov_proc_list(&p, pd, &e))
				p.nst = 0;
			for (size_t k = 0; k < p.nst; k++) {
				struct rd r;
				struct ev ev = { 0 };
				int got = !ov_rd_open(&r, p.st[k].obs, &e) &&
					  ov_rd_next(&r, &ev, &e) == 1;
				ov_rd_close(&r);
				if (!got)
					continue;
				int64_t t = (int64_t)ev.clock + off;
				if (!lop || t < lo) {
					free(lop);
					lop = pc_xstrdup(p.st[k].obs);
					lo = t;
				}
				if (!hip || t > hi) {
					free(hip);
					hip = pc_xstrdup(p.st[k].obs);
					hi = t;
				}
			}
			ov_proc_free(&p);
			free(pd);
		}
		pc_free_list(names, np);
	}
	if (lop && (uint64_t)(hi - lo) > gate)
		pc_warn(c->db->diag, "%s: the stream starts %.2f h after %s "
			"(%lld ns against %lld): a clock gate of more than an "
			"hour, which ovniemu refuses (the hosts' clocks not "
			"synchronized: ovnisync writes clock-offsets.txt); the "
			"clocks are kept as they are", hip,
			(double)(hi - lo) / 3.6e12, lop, (long long)hi,
			(long long)lo);
	free(lop);
	free(hip);
}

static int read_loom(struct ctx *c, const char *dir, struct pc_err *err)
{
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	/* its CPUs first, as ovniemu checks them before any event:
	 * every reader of a share meets the same error */
	int rc = ov_loom_cpus(dir, err);
	if (rc)
		return rc;
	size_t np;
	char **names = ov_loom_procs(dir, &np);
	size_t nstreams = 0;
	for (size_t i = 0; i < np && !rc; i++) {
		char *pd = ov_join(dir, names[i]);
		struct proc p = { 0 };
		p.pid = ov_num_after(names[i], "proc.", "");
		snprintf(p.loom, sizeof p.loom, "%s", base + 5);
		snprintf(p.host, sizeof p.host, "%s", p.loom);
		char *dot = strchr(p.host, '.');
		if (dot)
			*dot = 0;
		if (ov_is_dir(pd) && !(rc = ov_proc_open(&p, pd, err)) && p.nst) {
			struct tasks t = { 0 };
			/* (key 0: no event's, whose letters are printable) */
			if (p.nul_json)
				pc_warn_once(c->db->diag, 0, "%s: a mark's "
					     "title or label holds a NUL "
					     "character (\\u0000): it is cut "
					     "there", p.nul_json);
			/* labels of task types and marks are per process */
			for (size_t k = 0; k < c->capcache; k++)
				c->cache[k].parent = PC_NONE;
			c->ncache = 0;
			uint64_t rank = p.rank >= 0 ? (uint64_t)p.rank : c->nrank;
			int any = 0;
			for (size_t s = 0; s < p.nst && !rc; s++) {
				if (!pc_share_own(c->db, c->unit++, c->nunits))
					continue;
				if (c->stop &&
				    __atomic_load_n(c->stop, __ATOMIC_RELAXED)) {
					rc = pc_err_set(err, "stopped: a share "
							"before this one failed");
					break;
				}
				if (!any++)
					t.behind = s; /* a share from here */
				rc = read_thread(c, &p, &t, s, rank, err);
			}
			nstreams += p.nst;
			c->nrank++;
			ov_tasks_free(&t);
		}
		ov_proc_free(&p);
		free(pd);
	}
	pc_free_list(names, np);
	if (!rc && !nstreams)
		rc = pc_err_set(err, "%s: a loom with no streams (no "
				"proc.PID/thread.TID inside)", dir);
	c->nloom++;
	return rc;
}

static int ovni_read(struct pc_db *db, const char *path,
		     const struct pc_import_opts *opts, struct pc_err *err)
{
	ov_table_init();
	struct ctx c = { .db = db, .err = err, .stop = opts->stop };
	char *root;
	char **looms;
	size_t nl;
	int rc = 0;
	if (path == pc_stdin_path || !ov_is_dir(path))
		return pc_err_set(err, "%s: an ovni trace is a directory "
				  "(ovni/, its parent or a loom.* directory)",
				  path == pc_stdin_path ? "-" : path);
	ov_trace_looms(path, &root, &looms, &nl);
	if (!nl)
		rc = pc_err_set(err, "%s: no loom.* directories", root ? root :
				path);
	if (!rc && root) {
		rc = read_offsets(&c, root, err);
	} else if (!rc) {
		/* one loom: clock-offsets.txt would be beside it */
		char *parent = pc_xstrdup(path);
		size_t n = strlen(parent);
		while (n > 1 && parent[n - 1] == '/')
			parent[--n] = 0;
		char *slash = strrchr(parent, '/');
		if (slash == parent)
			slash[1] = 0;
		else if (slash)
			*slash = 0;
		else
			strcpy(parent, ".");
		rc = read_offsets(&c, parent, err);
		free(parent);
	}
	if (!rc) {
		c.m_run = pc_metric_get_whole(
			db, "time running", "ovni: time the thread runs (ns), "
			"at the innermost frame", "ns");
		c.m_idle = pc_metric_get_whole(
			db, "time not running", "ovni: time the thread is "
			"paused, cooling or warming (ns), at the [state] "
			"child of the innermost frame", "ns");
		c.m_ent = pc_metric_get_whole(db, "entries", "ovni: times a "
					      "frame was entered", "");
		c.m_off = ov_kernel_model(looms, nl) ? pc_metric_get_whole(
			db, "time off CPU", "ovni: time the kernel had the "
			"thread off its CPU (ns; KCO..KCI), at the innermost "
			"frame: a part of its time running or not, whose "
			"state it keeps, as ovniemu does", "ns") : PC_NONE;
		c.root = func_ctx(&c, pc_ctx_entry(db, PC_ENTRY_APP_THREAD),
				  "[thread]", "ovni");
		if (!db->title) {
			char title[4200];
			snprintf(title, sizeof title, "ovni trace %s", path);
			db->title = pc_intern_cstr(db, title);
		}
	}
	if (!rc && (db->sink || db->share_n > 1)) {
		c.nunits = ov_count_streams(looms, nl);
		db->nplanned = db->nprofiles + c.nunits;
		/* MPI: this rank reads its share of the streams */
		db->shared = db->share_n > 1;
	}
	if (!rc)
		clock_gate(&c, looms, nl);
	for (size_t i = 0; i < nl && !rc; i++)
		rc = read_loom(&c, looms[i], err);
	pc_free_list(looms, nl);
	free(root);
	for (size_t i = 0; i < c.noff; i++)
		free(c.off_host[i]);
	free(c.off_host);
	free(c.off_ns);
	free(c.acc);
	free(c.touched);
	free(c.stack);
	free(c.above);
	free(c.cache);
	if (rc)
		pc_err_context(err, "reading an ovni trace");
	return rc;
}

static int ovni_probe(const struct pc_probe *pr)
{
	if (!pr->is_dir)
		return 0;
	if (pc_basename_starts(pr->path, "loom.")) {
		for (size_t i = 0; i < pr->nnames; i++)
			if (!strncmp(pr->names[i], "proc.", 5))
				return 90;
		return 40;
	}
	for (size_t i = 0; i < pr->nnames; i++) {
		if (!strncmp(pr->names[i], "loom.", 5))
			return 90;
		if (!strcmp(pr->names[i], "ovni")) {
			char *sub = ov_join(pr->path, "ovni");
			size_t n;
			char **names = pc_list_dir(sub, &n);
			int hit = 0;
			for (size_t k = 0; k < n; k++)
				if (!strncmp(names[k], "loom.", 5))
					hit = 1;
			pc_free_list(names, n);
			free(sub);
			if (hit)
				return 85;
		}
	}
	return 0;
}

const struct pc_importer pc_import_ovni = {
	.name = "ovni",
	.description = "ovni runtime traces (nOS-V, nanos6, OpenMP, MPI, "
		       "...): trace directories of every layout (libovni "
		       "1.0 to 1.14)",
	.is_dir = 1,
	.streams = 1,
	.probe = ovni_probe,
	.read = ovni_read,
};
