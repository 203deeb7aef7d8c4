/* Little-endian buffers and a positioned file writer. */
#include "buf.h"
#include "pc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int pc_out_reopen(struct pc_out *o, const char *path, uint64_t at)
{
	memset(o, 0, sizeof(*o));
	o->f = fopen(path, "r+b");
	if (!o->f || fseeko(o->f, (off_t)at, SEEK_SET) != 0) {
		if (o->f)
			fclose(o->f);
		o->f = NULL;
		return -1;
	}
	o->buf = pc_xmalloc(PC_OUT_BUF);
	o->pos = at;
	return 0;
}

int pc_out_tmp(struct pc_out *o, const char *dir)
{
	memset(o, 0, sizeof(*o));
	int fd = pc_unnamed_file(dir);
	if (fd < 0 || !(o->f = fdopen(fd, "w+b"))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	o->buf = pc_xmalloc(PC_OUT_BUF);
	return 0;
}

int pc_out_append(struct pc_out *o, struct pc_out *part)
{
	pc_out_flush(o);
	pc_out_flush(part);
	if (o->failed || part->failed || fflush(o->f) || fflush(part->f) ||
	    pc_copy_range(fileno(part->f), 0, fileno(o->f), o->pos, part->pos))
		return -1;
	o->pos += part->pos;
	return fseeko(o->f, (off_t)o->pos, SEEK_SET) ? -1 : 0;
}

void pc_out_null(struct pc_out *o, uint64_t at)
{
	memset(o, 0, sizeof(*o));
	o->buf = pc_xmalloc(PC_OUT_BUF);
	o->pos = at;
}

void pc_out_flush(struct pc_out *o)
{
	if (o->f && !o->failed && o->len &&
	    fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->failed = 1;
	o->len = 0;
}

int pc_copy_range(int in, uint64_t from, int out, uint64_t to, uint64_t n)
{
	/* in the kernel where it can (a reflink on some file systems) */
	while (n) {
		loff_t a = (loff_t)from, b = (loff_t)to;
		ssize_t k = copy_file_range(in, &a, out, &b,
					    n < (1u << 30) ? n : (1u << 30), 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		from += (uint64_t)k;
		to += (uint64_t)k;
		n -= (uint64_t)k;
	}
	unsigned char *buf = n ? pc_xmalloc(PC_OUT_BUF) : NULL;
	while (n) {
		ssize_t k = pread(in, buf, n < PC_OUT_BUF ? n : PC_OUT_BUF,
				  (off_t)from);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0 || pwrite(out, buf, (size_t)k, (off_t)to) != k)
			break;
		from += (uint64_t)k;
		to += (uint64_t)k;
		n -= (uint64_t)k;
	}
	free(buf);
	return n ? -1 : 0;
}

void pc_out_seek(struct pc_out *o, uint64_t at)
{
	pc_out_flush(o);
	if (o->f && !o->failed && fseeko(o->f, (off_t)at, SEEK_SET) != 0)
		o->failed = 1;
	o->pos = at;
}

void pc_out_write_slow(struct pc_out *o, const void *p, size_t n)
{
	pc_out_flush(o);
	if (n >= PC_OUT_BUF) {
		if (o->f && !o->failed && fwrite(p, 1, n, o->f) != n)
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
	if (o->f && fclose(o->f) != 0)
		bad = 1;
	free(o->buf);
	o->f = NULL;
	o->buf = NULL;
	return bad ? -1 : 0;
}

void pc_out_patch(struct pc_out *o, uint64_t at, const void *p, size_t n)
{
	pc_out_flush(o);
	if (o->failed || !o->f)
		return;
	if (fseeko(o->f, (off_t)at, SEEK_SET) != 0 ||
	    fwrite(p, 1, n, o->f) != n ||
	    fseeko(o->f, (off_t)o->pos, SEEK_SET) != 0)
		o->failed = 1;
}
