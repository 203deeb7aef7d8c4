/* The model's traces: each profile's samples as bytes in memory, spilled
 * to a spool file past a bound, read back in order (split from
 * src/model.c). */
#include "pc.h"
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pc_trace_reserve(struct pc_db *db, pc_id profile, size_t n)
{
	struct pc_trace *t = &db->traces[profile];
	if (db->no_traces)
		return;
	size_t want = n > (SIZE_MAX - t->len) / 4 ? SIZE_MAX : t->len + 4 * n;
	if (db->spill && want > db->spill + 64) /* it spills from there */
		want = t->len > db->spill ? t->len + 64 : db->spill + 64;
	if (t->cap >= want)
		return;
	t->b = pc_xrealloc(t->b, want, 1);
	t->cap = want;
}

/* Trace t's bytes in memory to the end of its spool: 0, or -1 (none
 * can be made or written: t as it was). */
static int spill(struct pc_db *db, struct pc_trace *t)
{
	const char *dir = db->spool_dir;
	if (!dir) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	}
	errno = 0;
	int fd = t->spooled ? t->fd : pc_unnamed_file(dir);
	size_t done = 0;
	while (fd >= 0 && done < t->len) {
		ssize_t k = pwrite(fd, t->b + done, t->len - done,
				   (off_t)(t->at + t->spooled + done));
		if (k <= 0 && !(k < 0 && errno == EINTR))
			break;
		done += k > 0 ? (size_t)k : 0;
	}
	if (fd >= 0 && done == t->len) {
		t->fd = fd;
		t->spooled += t->len;
		t->len = 0;
		return 0;
	}
	/* in memory from here (the bytes spooled so far stay there) */
	int e = errno;
	pc_warn(db->diag, "cannot spill a long trace to %s: %s; traces are "
		"kept in memory", dir, e ? strerror(e) : "nothing written");
	if (fd >= 0 && !t->spooled)
		close(fd);
	db->spill = 0;
	return -1;
}

void pc_trace_room(struct pc_db *db, struct pc_trace *t)
{
	if (db->spill && t->len >= db->spill && !spill(db, t))
		return;
	size_t cap = t->cap < 64 ? 64 : t->cap;
	while (cap - t->len < 15)
		cap *= 2;
	if (db->spill && cap > db->spill + 64 && t->len < db->spill)
		cap = db->spill + 64; /* it spills from there */
	t->b = pc_xrealloc(t->b, cap, 1);
	t->cap = cap;
}

/* n bytes of t's spool from off into p (all there: it was written). */
static void spool_read(const struct pc_trace *t, uint64_t off,
		       unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = pread(t->fd, p, n, (off_t)(t->at + off));
		if (k <= 0 && !(k < 0 && errno == EINTR)) {
			char msg[200];
			snprintf(msg, sizeof msg, "cannot read a trace's spool "
				 "file back: %s",
				 k < 0 ? strerror(errno) : "it is short");
			pc_die(msg);
		}
		if (k > 0) {
			p += k;
			off += (uint64_t)k;
			n -= (size_t)k;
		}
	}
}

void pc_trace_fill(struct pc_trace_it *it)
{
	const struct pc_trace *t = it->t;
	size_t rest = (size_t)(it->end - it->p);
	if (it->off < t->spooled) {
		memmove(it->buf, it->p, rest);
		uint64_t left = t->spooled - it->off;
		size_t k = sizeof(it->buf) - rest;
		if (k > left)
			k = (size_t)left;
		spool_read(t, it->off, it->buf + rest, k);
		it->off += k;
		it->p = it->buf;
		it->end = it->buf + rest + k;
	} else if (!rest) { /* the spool read (whole samples): then b */
		it->p = t->b;
		it->end = t->len ? t->b + t->len : t->b;
		it->more = 0;
	}
}

void pc_trace_pieces(const struct pc_trace *t,
		     void (*put)(void *ctx, const void *p, size_t n),
		     void *ctx)
{
	if (t->spooled) {
		unsigned char *buf = pc_xmalloc(PC_TRACE_ITBUF);
		for (uint64_t off = 0; off < t->spooled;) {
			uint64_t k = t->spooled - off;
			if (k > PC_TRACE_ITBUF)
				k = PC_TRACE_ITBUF;
			spool_read(t, off, buf, (size_t)k);
			put(ctx, buf, (size_t)k);
			off += k;
		}
		free(buf);
	}
	if (t->len)
		put(ctx, t->b, t->len);
}

static void put_mem(void *ctx, const void *p, size_t n)
{
	unsigned char **o = ctx;
	memcpy(*o, p, n);
	*o += n;
}

void pc_trace_get_bytes(const struct pc_trace *t, unsigned char *to)
{
	pc_trace_pieces(t, put_mem, &to);
}

void pc_trace_copy(struct pc_trace *dst, const struct pc_trace *src)
{
	*dst = *src;
	dst->b = NULL;
	dst->cap = dst->len = 0;
	dst->spooled = dst->at = 0;
	int fd = src->spooled ? dup(src->fd) : -1;
	if (fd >= 0) { /* pread: the two share the file, not an offset */
		dst->fd = fd;
		dst->spooled = src->spooled;
		dst->at = src->at;
		dst->len = src->len;
	} else {
		dst->len = (size_t)pc_trace_bytes(src);
	}
	dst->cap = dst->len;
	if (!dst->len)
		return;
	dst->b = pc_xmalloc(dst->len);
	if (dst->spooled)
		memcpy(dst->b, src->b, src->len);
	else
		pc_trace_get_bytes(src, dst->b);
}

void pc_trace_free(struct pc_trace *t)
{
	free(t->b);
	if (t->spooled)
		close(t->fd);
	t->b = NULL;
	t->len = t->cap = 0;
	t->spooled = t->at = 0;
}

void pc_trace_append(struct pc_db *db, pc_id profile,
		     const struct pc_trace *from, const pc_id *map, size_t nmap)
{
	struct pc_trace *t = &db->traces[profile];
	struct pc_trace_it it;
	struct pc_sample s;
	if (db->no_traces) { /* counted only */
		t->n += from->n;
		return;
	}
	if (t->n || !from->n || from->spooled ||
	    (db->spill && from->len > db->spill / 3)) { /* sample by sample */
		pc_trace_begin(from, &it);
		while (pc_trace_next(&it, &s))
			pc_trace_add(db, profile, s.time,
				     !map ? s.ctx : s.ctx < nmap ? map[s.ctx] :
								  PC_NONE);
		return;
	}
	/* into an empty trace each time difference is the same: its bytes
	 * are copied, the context's mapped (a sample takes 2 bytes or more,
	 * and its context at most 4 more than it took) */
	size_t want = 3 * from->len + 16;
	if (t->cap < want) {
		t->b = pc_xrealloc(t->b, want, 1);
		t->cap = want;
	}
	const unsigned char *p = from->b, *end = from->b + from->len;
	unsigned char *o = t->b;
	uint64_t time = 0;
	int unsorted = 0;
	size_t i = 0;
	for (; p < end; i++) {
		const unsigned char *q = p;
		uint64_t z = pc_trace_varint(&p);
		/* (16 bytes at once where both sides have them: one move) */
		if (end - q >= 16)
			memcpy(o, q, 16);
		else
			memcpy(o, q, (size_t)(p - q));
		o += p - q;
		uint64_t next = time + ((z >> 1) ^ (uint64_t)-(int64_t)(z & 1));
		unsorted |= i && next < time;
		time = next;
		pc_id c = *p < 0x80 ? *p++ : (pc_id)pc_trace_varint(&p);
		c = !map ? c : c < nmap ? map[c] : PC_NONE;
		if (c < 0x80)
			*o++ = (unsigned char)c;
		else
			o = pc_trace_put_varint(o, c);
	}
	t->len = (size_t)(o - t->b);
	t->n = i;
	t->last = time;
	t->unsorted = unsorted;
}

struct pc_sample *pc_trace_samples(const struct pc_trace *t)
{
	struct pc_sample *s = pc_xmalloc((t->n + 1) * sizeof(*s));
	struct pc_trace_it it;
	pc_trace_begin(t, &it);
	for (size_t i = 0; pc_trace_next(&it, &s[i]); i++)
		;
	return s;
}

/* Trace lines grouped by profile (see src/pc.h). */
uint64_t *pc_tlines_group(struct pc_tline *l, size_t n, uint32_t nprof)
{
	/* a counting sort: stable, so a profile's lines keep their order */
	uint64_t *first = pc_xcalloc((size_t)nprof + 1, sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
		first[l[i].prof + 1]++;
	for (uint32_t i = 0; i < nprof; i++)
		first[i + 1] += first[i];
	struct pc_tline *out = pc_xmalloc((n ? n : 1) * sizeof(*out));
	uint64_t *at = pc_xmalloc(((size_t)nprof + 1) * sizeof(uint64_t));
	memcpy(at, first, ((size_t)nprof + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++)
		out[at[l[i].prof]++] = l[i];
	if (n)
		memcpy(l, out, n * sizeof(*l));
	free(at);
	free(out);
	return first;
}
