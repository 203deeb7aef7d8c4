/* HPCToolkit v4 databases: what the reader's files share (hpctoolkit.c
 * reads meta.db, hpctoolkit_values.c profile.db, cct.db and trace.db):
 * the files mapped, their common header, errors at an offset, and the
 * map of meta.db's context ids to the model's contexts. */
#include "pc.h"
#include "internal.h"
#include "buf.h"
#include "hpctoolkit_v4.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* An error at offset off of b (returns -1). */
int pc_v4_fail_at(struct reader *r, const struct pc_blob *b, uint64_t off,
		  const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return pc_err_at_off(r->err, b->path, off, "%s", msg);
}

/* Is [off, off+len) inside the file? */
int pc_v4_ok_range(const struct pc_blob *b, uint64_t off, uint64_t len)
{
	return off <= b->n && len <= b->n - off;
}

int pc_v4_map_file(struct reader *r, struct pc_blob *b, const char *name,
		   int optional)
{
	return pc_blob_map(b, r->dir, name, optional, r->err);
}

void pc_v4_unmap(struct pc_blob *b)
{
	pc_blob_unmap(b);
}

/* The common header: magic, format, major version 4, and the footer. */
int pc_v4_file_header(struct reader *r, const struct pc_blob *b, const char *fmt,
		      const char *footer, unsigned nsec)
{
	if (b->n < 0x10 + 16 * (uint64_t)nsec + 8)
		return pc_v4_fail_at(r, b, 0, "file too short for its header");
	if (memcmp(b->p, "HPCTOOLKIT", 10) || memcmp(b->p + 10, fmt, 4))
		return pc_v4_fail_at(r, b, 0, "not an HPCToolkit '%s' file", fmt);
	if (b->p[0xe] != 4)
		return pc_v4_fail_at(r, b, 0xe, "format version %u.%u (only 4.x is "
				     "read)", b->p[0xe], b->p[0xf]);
	if (memcmp(b->p + b->n - 8, footer, 8))
		return pc_v4_fail_at(r, b, b->n - 8, "footer '%s' missing "
				     "(truncated file?)", footer);
	return 0;
}

uint64_t pc_v4_sec_ptr(const struct pc_blob *b, unsigned i)
{
	return pc_getle(b->p + 0x18 + 16 * i, 8);
}

static int ctx_id_eq(const void *ctx, pc_id id, const void *key)
{
	const struct reader *r = ctx;
	return r->ids[id].id == *(const uint32_t *)key;
}

pc_id pc_v4_ctx_search(const struct reader *r, uint32_t id)
{
	pc_id i = pc_keymap_find(r->ctxmap, pc_hash64(id), ctx_id_eq, r, &id);
	return i == PC_NONE ? PC_NONE : r->ids[i].ctx;
}

int pc_v4_ctx_bind(struct reader *r, const struct pc_blob *b, uint64_t at,
		   uint32_t id, pc_id ctx)
{
	if (pc_keymap_intern(r->ctxmap, pc_hash64(id), ctx_id_eq, r, &id,
			     (pc_id)r->nids) != r->nids)
		return pc_v4_fail_at(r, b, at, "ctxId %u appears twice", id);
	PC_GROW(r->ids, r->nids, r->capids);
	r->ids[r->nids++] = (struct idmap){ id, ctx };
	if (id < r->ndense)
		r->dense[id] = ctx;
	return 0;
}

/* The model context of a ctxId found in trace.db (or of an elided id
 * whose values could not be placed): its meta.db context, the context
 * its values were placed in, or a placeholder. */
pc_id pc_v4_ctx_of(struct reader *r, uint32_t id)
{
	if (id == 0)
		return 0;
	pc_id c = pc_v4_ctx_lookup(r, id);
	if (c != PC_NONE)
		return c;
	char name[64];
	snprintf(name, sizeof name, "[context %u not in meta.db]", id);
	struct pc_context k = {
		.kind = PC_CTX_FUNCTION, .rel = PC_REL_CALL, .file = PC_NONE,
		.module = PC_NONE,
		.function = pc_function_get(r->db, name, PC_NONE, 0, PC_NONE, 0),
	};
	c = pc_ctx_child(r->db, pc_ctx_entry(r->db, PC_ENTRY_UNKNOWN), &k);
	pc_v4_ctx_bind(r, &r->meta, 0, id, c);
	return c;
}
