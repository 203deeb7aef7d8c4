/* ovni's tasks (importers/ovni.c reads the streams): task types and
 * their labels, and which type each task was created with, by process.
 * A task is created on one thread and may run on another, read later:
 * the streams are scanned for them when one is not known yet, and a
 * reader whose share starts inside a process first replays the streams
 * before it (doc/design.md, "ovni streams on threads"). */
#include "ovni.h"

#include <stdlib.h>
#include <string.h>

/* Notes a task type definition or a task creation. */
void ov_tasks_note(struct tasks *t, int m, const struct ov_event *d,
		   const struct ev *e, int swap)
{
	if (d->kind == OV_TYPE_DEF && e->jdata && e->jlen >= 5) {
		uint32_t id = rd32(e->jdata, swap);
		uint64_t old;
		if (ov_map_get(&t->type_label, ov_tkey(m, id), &old))
			return; /* the first definition holds */
		size_t l = strnlen((const char *)e->jdata + 4, e->jlen - 4);
		char *lab = pc_xmalloc(l + 1);
		memcpy(lab, e->jdata + 4, l);
		lab[l] = 0;
		PC_GROW(t->labels, t->nlabels, t->caplabels);
		t->labels[t->nlabels++] = lab;
		ov_map_put(&t->type_label, ov_tkey(m, id), t->nlabels);
	} else if (d->kind == OV_TASK_CREATE && e->psize >= 8) {
		uint64_t k = ov_tkey(m, rd32(e->payload, swap));
		ov_map_put(&t->task_type, k, rd32(e->payload + 4, swap));
		/* nOS-V's parallel tasks (VTC) run several bodies at once */
		if (!strcmp(d->mcv, "VTC"))
			ov_map_put(&t->parallel, k, 1);
	}
}

/* Reads streams [0, n) of the process, each event handed to fn (1: go
 * on; -1: stop, err set). */
typedef int scan_fn(struct proc *p, struct tasks *t, const struct ev *e,
		    int swap, struct pc_err *err);
static int scan(struct proc *p, struct tasks *t, size_t n, scan_fn *fn,
		struct pc_err *err)
{
	for (size_t s = 0; s < n; s++) {
		struct rd r;
		int rc = ov_rd_open(&r, p->st[s].obs, err);
		struct ev e = { 0 };
		if (rc == 0)
			rc = 1;
		while (rc == 1 && (rc = ov_rd_event(&r, &e, err)) == 1)
			rc = fn(p, t, &e, r.swap, err);
		ov_rd_close(&r);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int note_one(struct proc *p, struct tasks *t, const struct ev *e,
		    int swap, struct pc_err *err)
{
	(void)err;
	if (e->c != 'Y' && e->c != 'T' && e->c != 'O' && e->c != 'P')
		return 1;
	const struct ov_event *d = ov_lookup(p, e);
	if (d)
		ov_tasks_note(t, p->letter_model[e->m], d, e, swap);
	return 1;
}

/* Reads the type and creation events of every stream of the process:
 * run the first time a task or type is not known yet (it may come from
 * a thread read later), so traces whose tasks run where they were
 * created are read once. */
int ov_prepass(struct proc *p, struct tasks *t, struct pc_err *err)
{
	t->full = 1;
	return scan(p, t, p->nst, note_one, err);
}

/* Whether type (of model m) has a label, scanning every stream of the
 * process for one first if it may come later (as task_label does):
 * 1, or -1 if that scan fails. */
static int type_known(struct proc *p, struct tasks *t, int m, uint32_t type,
		      struct pc_err *err)
{
	uint64_t v;
	if (ov_map_get(&t->type_label, ov_tkey(m, type), &v) || t->full)
		return 1;
	return ov_prepass(p, t, err) ? -1 : 1;
}

/* What apply does to the tasks of one event (tasks_catch_up). */
static int replay_one(struct proc *p, struct tasks *t, const struct ev *e,
		      int swap, struct pc_err *err)
{
	const struct ov_event *d = ov_lookup(p, e);
	if (!d || (d->psize > 0 && (int)e->psize < d->psize))
		return 1; /* skipped, or the reading's error */
	int m = p->letter_model[e->m];
	uint64_t type;
	switch (d->kind) {
	case OV_TYPE_DEF:
	case OV_TASK_CREATE:
		ov_tasks_note(t, m, d, e, swap);
		return 1;
	case OV_TASK_EXEC: {
		uint64_t task = ov_tkey(m, rd32(e->payload, swap));
		if (!ov_map_get(&t->task_type, task, &type) && !t->full &&
		    ov_prepass(p, t, err))
			return -1;
		if (ov_map_get(&t->task_type, task, &type))
			return type_known(p, t, m, (uint32_t)type, err);
		return 1;
	}
	case OV_TYPED_ENTER:
		return type_known(p, t, m, rd32(e->payload, swap), err);
	default:
		return 1;
	}
}

/* A reader whose share starts inside the process, at stream
 * t->behind: what one process reading every stream in order knows of
 * the tasks when it gets there. The streams before are read for what
 * apply does to the tasks alone: type definitions and task creations
 * noted, and a scan of every stream where a task or a type is looked up
 * and not known yet. Task creations overwrite, so the type a task runs
 * as depends on where the reading is: this makes it the same for every
 * share (doc/design.md, "ovni streams on threads"). */
int ov_tasks_catch_up(struct proc *p, struct tasks *t, struct pc_err *err)
{
	size_t n = t->behind;
	t->behind = 0;
	return scan(p, t, n, replay_one, err);
}

void ov_tasks_free(struct tasks *t)
{
	ov_map_free(&t->type_label);
	ov_map_free(&t->task_type);
	ov_map_free(&t->parallel);
	for (size_t i = 0; i < t->nlabels; i++)
		free(t->labels[i]);
	free(t->labels);
	memset(t, 0, sizeof(*t));
}

