/* Helpers private to the core (src/): arena and keyed maps. */
#ifndef PC_INTERNAL_H
#define PC_INTERNAL_H

#include "pc.h"

struct pc_arena *pc_arena_new(void);
void *pc_arena_alloc(struct pc_arena *a, size_t n);
void pc_arena_free(struct pc_arena *a);

/* A map from keys to dense ids. The caller hashes the key and supplies
 * an equality test between a stored id and the key. */
typedef int (*pc_keymap_eq)(const void *ctx, pc_id id, const void *key);
struct pc_keymap *pc_keymap_new(void);
void pc_keymap_free(struct pc_keymap *m);
pc_id pc_keymap_find(const struct pc_keymap *m, uint64_t h, pc_keymap_eq eq,
		     const void *ctx, const void *key);
void pc_keymap_insert(struct pc_keymap *m, uint64_t h, pc_id id);
/* The id of the key if the map has it; if not, next, now the key's. */
pc_id pc_keymap_intern(struct pc_keymap *m, uint64_t h, pc_keymap_eq eq,
		       const void *ctx, const void *key, pc_id next);
void pc_keymap_reserve(struct pc_keymap *m, size_t n);

/* Profile p's values and stored values sorted and coalesced, as
 * pc_values_finish would (one profile of the same stable sort); an
 * internal error if another profile's are among them. */
int pc_profile_prepare(pc_id p, struct pc_value *v, size_t *n,
		       struct pc_value *sv, size_t *sn, struct pc_err *err);

/* What a run reads (src/digest.c): from pc_reads_start on, the files
 * opened for reading (pc_open_file, pc_lines_open) are noted; pc_reads
 * gives them sorted, each once (the list stays the module's). */
void pc_reads_start(void);
void pc_reads_note(const char *path);
char **pc_reads(size_t *n);
/* A 64-bit digest of the bytes of the file at path: 0, or -1 with err
 * set. */
int pc_file_digest(const char *path, uint64_t *d, struct pc_err *err);

#endif
