/* The Callgrind reader's name id tables (ob, fl, fn): an id's entry by
 * its index where the ids are dense, in a map past them (callgrind.c
 * reads the lines that define and use them). */
#include "callgrind_parse.h"

#include <stdlib.h>

static int idname_eq(const void *ctx, pc_id id, const void *key)
{
	const struct idtab *t = ctx;
	return t->e[id].id == *(const uint64_t *)key;
}

pc_id cg_idtab_find(const struct idtab *t, uint64_t id)
{
	if (!t->map)
		return PC_NONE;
	return pc_keymap_find(t->map, pc_hash64(id), idname_eq, t, &id);
}

/* dir grown to cover id if the ids are dense enough (it stays within
 * some 16 times the entries: a few large ids go to the map), at least
 * doubled (the entries of the ids it covers now moved into it: a scan
 * of the entries each time; grown to each new id's, in a file of ids
 * spread out and in no order, the scans were a fifth of the parse). */
static void idtab_dir(struct idtab *t, uint64_t id)
{
	size_t lim = 16 * (t->n + 1) + 65536;
	size_t n = t->ndir * 2 > id + 1 ? t->ndir * 2 : (size_t)id + 1;
	if (id >= lim || n > lim)
		return;
	t->dir = pc_xrealloc(t->dir, n, sizeof(*t->dir));
	for (size_t i = t->ndir; i < n; i++)
		t->dir[i] = PC_NONE;
	if (t->map) /* (the entries past the old dir: the map's) */
		for (size_t i = 0; i < t->n; i++)
			if (t->e[i].id >= t->ndir && t->e[i].id < n)
				t->dir[t->e[i].id] = (pc_id)i;
	t->ndir = n;
}

pc_id cg_idtab_set(struct idtab *t, uint64_t id, const char *name)
{
	pc_id i = cg_idtab_get(t, id);
	if (i != PC_NONE) {
		t->e[i] = (struct idname){ id, name, PC_NONE, 0, 0 };
		return i;
	}
	PC_GROW(t->e, t->n, t->cap);
	t->e[t->n] = (struct idname){ id, name, PC_NONE, 0, 0 };
	if (id >= t->ndir)
		idtab_dir(t, id);
	if (id < t->ndir) {
		t->dir[id] = (pc_id)t->n;
	} else {
		if (!t->map)
			t->map = pc_keymap_new();
		pc_keymap_insert(t->map, pc_hash64(id), (pc_id)t->n);
	}
	return (pc_id)t->n++;
}

void cg_idtab_free(struct idtab *t)
{
	pc_keymap_free(t->map);
	free(t->e);
	free(t->dir);
}
