/* Records that pass between readers and ranks (src/share.c, src/mpi.c)
 * and between an output's parts (struct pc_parts): bytes appended to a
 * growing record, read back with bounds checked. Integers little-endian
 * (buf.h). */
#ifndef PC_REC_H
#define PC_REC_H

#include "pc.h"
#include "buf.h"

#include <string.h>

struct rec {
	unsigned char *p;
	size_t n, cap;
};

static inline unsigned char *room(struct rec *r, size_t k)
{
	if (r->cap - r->n < k) {
		r->cap = (r->n + k) * 2;
		r->p = pc_xrealloc(r->p, r->cap, 1);
	}
	unsigned char *at = r->p + r->n;
	r->n += k;
	return at;
}

static inline void put8(struct rec *r, uint8_t v) { *room(r, 1) = v; }
static inline void put32(struct rec *r, uint32_t v) { pc_le32(room(r, 4), v); }
static inline void put64(struct rec *r, uint64_t v) { pc_le64(room(r, 8), v); }
static inline void putf(struct rec *r, double v) { pc_lef64(room(r, 8), v); }
static inline void putstr(struct rec *r, const char *s)
{
	if (!s) {
		put32(r, UINT32_MAX);
		return;
	}
	size_t n = strlen(s);
	put32(r, (uint32_t)n);
	memcpy(room(r, n), s, n);
}

/* reading one back: bounds are the sender's own, but checked anyway */
struct rd {
	const unsigned char *p, *end;
	int bad;
};

static inline const unsigned char *take(struct rd *d, size_t k)
{
	if ((size_t)(d->end - d->p) < k) {
		d->bad = 1;
		static const unsigned char zero[8];
		return zero;
	}
	const unsigned char *at = d->p;
	d->p += k;
	return at;
}
static inline uint8_t get8(struct rd *d) { return *take(d, 1); }
static inline uint32_t get32(struct rd *d) { return (uint32_t)pc_getle(take(d, 4), 4); }
static inline uint64_t get64(struct rd *d) { return pc_getle(take(d, 8), 8); }
static inline double getf(struct rd *d) { return pc_getlef64(take(d, 8)); }
/* a string interned in db (NULL as sent) */
static inline const char *getstr(struct rd *d, struct pc_db *db)
{
	uint32_t n = get32(d);
	if (n == UINT32_MAX)
		return NULL;
	const unsigned char *s = take(d, n);
	return d->bad ? "" : pc_intern(db, (const char *)s, n);
}

#endif
