/* Little-endian buffers and a positioned file writer. */
#include "buf.h"
#include "pc.h"

#include <stdlib.h>
#include <string.h>

size_t pc_buf_add(struct pc_buf *b, size_t n)
{
	if (!n)
		return b->n;
	if (b->cap - b->n < n) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap - b->n < n)
			cap *= 2;
		b->p = pc_xrealloc(b->p, cap, 1);
		b->cap = cap;
	}
	size_t off = b->n;
	memset(b->p + off, 0, n);
	b->n += n;
	return off;
}

void pc_buf_reserve(struct pc_buf *b, size_t n)
{
	if (b->cap - b->n < n) {
		b->cap = b->n + n;
		b->p = pc_xrealloc(b->p, b->cap, 1);
	}
}

size_t pc_buf_align(struct pc_buf *b, size_t a)
{
	size_t pad = (a - b->n % a) % a;
	pc_buf_add(b, pad);
	return b->n;
}

size_t pc_buf_str(struct pc_buf *b, const char *s)
{
	/* meta.db strings are UTF-8: other bytes go as \xHH */
	char *esc = pc_utf8_escape(s);
	if (esc)
		s = esc;
	size_t n = strlen(s) + 1;
	size_t off = pc_buf_add(b, n);
	memcpy(b->p + off, s, n);
	free(esc);
	return off;
}

void pc_buf_free(struct pc_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int pc_out_open(struct pc_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->f = fopen(path, "w+b"); /* readable: see exporters/hpctoolkit.c */
	if (!o->f)
		return -1;
	o->buf = pc_xmalloc(PC_OUT_BUF);
	return 0;
}

void pc_out_flush(struct pc_out *o)
{
	if (!o->failed && o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->failed = 1;
	o->len = 0;
}

void pc_out_write_slow(struct pc_out *o, const void *p, size_t n)
{
	pc_out_flush(o);
	if (n >= PC_OUT_BUF) {
		if (!o->failed && fwrite(p, 1, n, o->f) != n)
			o->failed = 1;
		o->pos += n;
		return;
	}
	memcpy(o->buf, p, n);
	o->len = n;
	o->pos += n;
}

int pc_out_close(struct pc_out *o)
{
	pc_out_flush(o);
	int bad = o->failed;
	if (fclose(o->f) != 0)
		bad = 1;
	free(o->buf);
	o->f = NULL;
	o->buf = NULL;
	return bad ? -1 : 0;
}

void pc_out_align(struct pc_out *o, unsigned a)
{
	static const unsigned char zero[8];
	unsigned pad = (unsigned)((a - o->pos % a) % a);
	pc_out_write(o, zero, pad);
}

void pc_out_patch(struct pc_out *o, uint64_t at, const void *p, size_t n)
{
	pc_out_flush(o);
	if (o->failed)
		return;
	if (fseeko(o->f, (off_t)at, SEEK_SET) != 0 ||
	    fwrite(p, 1, n, o->f) != n ||
	    fseeko(o->f, (off_t)o->pos, SEEK_SET) != 0)
		o->failed = 1;
}
