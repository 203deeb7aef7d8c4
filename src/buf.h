/* Little-endian encoding into memory buffers and files, for the binary
 * writers: no casts of structs. On a little-endian host a value is one
 * memcpy (one store or load; GCC left the byte loops as loops, a tenth
 * of a trace's conversion), elsewhere byte by byte. */
#ifndef PC_BUF_H
#define PC_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PC_LITTLE_ENDIAN 1
#else
#define PC_LITTLE_ENDIAN 0
#endif
static inline void pc_le16(unsigned char *p, uint16_t v)
{
	if (PC_LITTLE_ENDIAN) { /* one store, not two and a shift */
		memcpy(p, &v, 2);
		return;
	}
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}
static inline void pc_le32(unsigned char *p, uint32_t v)
{
	if (PC_LITTLE_ENDIAN) {
		memcpy(p, &v, 4);
		return;
	}
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline void pc_le64(unsigned char *p, uint64_t v)
{
	if (PC_LITTLE_ENDIAN) {
		memcpy(p, &v, 8);
		return;
	}
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline void pc_lef64(unsigned char *p, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	pc_le64(p, u);
}
/* The readers' side: n little-endian bytes as an integer, and a double.
 * The usual sizes are spelled out so that each becomes one load. */
static inline uint64_t pc_getle(const unsigned char *p, int n)
{
	uint64_t lo, hi;
	uint32_t u4;
	uint16_t u2;
	if (PC_LITTLE_ENDIAN && n == 2) {
		memcpy(&u2, p, 2);
		return u2;
	}
	if (PC_LITTLE_ENDIAN && n == 8) {
		memcpy(&lo, p, 8);
		return lo;
	}
	if (PC_LITTLE_ENDIAN && n == 4) {
		memcpy(&u4, p, 4);
		return u4;
	}
	switch (n) {
	case 2:
		return (uint64_t)p[0] | (uint64_t)p[1] << 8;
	case 4:
		return (uint64_t)p[0] | (uint64_t)p[1] << 8 |
		       (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
	case 8:
		lo = pc_getle(p, 4);
		hi = pc_getle(p + 4, 4);
		return lo | hi << 32;
	default:
		lo = 0;
		for (int i = n - 1; i >= 0; i--)
			lo = lo << 8 | p[i];
		return lo;
	}
}
/* n big-endian bytes (old HPCToolkit databases, DCPI's other order):
 * the usual sizes as shifts that the compiler makes one load and a
 * byte swap of. */
static inline uint64_t pc_getbe(const unsigned char *p, int n)
{
	uint64_t v = 0;
	switch (n) {
	case 2:
		return (uint64_t)p[0] << 8 | p[1];
	case 4:
		return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 |
		       (uint64_t)p[2] << 8 | p[3];
	case 8:
		return pc_getbe(p, 4) << 32 | pc_getbe(p + 4, 4);
	default:
		for (int i = 0; i < n; i++)
			v = v << 8 | p[i];
		return v;
	}
}
static inline double pc_getlef64(const unsigned char *p)
{
	uint64_t u = pc_getle(p, 8);
	double v;
	memcpy(&v, &u, sizeof v);
	return v;
}

/* A growable byte buffer; offsets stay valid as it grows. */
struct pc_buf {
	unsigned char *p;
	size_t n, cap;
};
/* Appends n zero bytes and returns their offset. */
size_t pc_buf_add(struct pc_buf *b, size_t n);
/* Room for n more bytes without copying (untouched room costs nothing). */
void pc_buf_reserve(struct pc_buf *b, size_t n);
/* Pads with zeros to a multiple of a; returns the new length. */
size_t pc_buf_align(struct pc_buf *b, size_t a);
/* Appends a NUL-terminated string; returns its offset. */
size_t pc_buf_str(struct pc_buf *b, const char *s);
void pc_buf_free(struct pc_buf *b);

/* A sequential, buffered file writer that knows its position. Errors
 * are sticky and reported by pc_out_close. */
struct pc_out {
	FILE *f;
	uint64_t pos;
	int failed;
	unsigned char *buf;
	size_t len;
};
int pc_out_open(struct pc_out *o, const char *path);
/* An existing file, written from at on (profconv-mpi: a rank's part of
 * a file that other ranks write too). */
int pc_out_reopen(struct pc_out *o, const char *path, uint64_t at);
/* An unlinked file in dir (nothing is left of it once closed). */
int pc_out_tmp(struct pc_out *o, const char *dir);
/* Appends what part holds (its bytes from 0) at o's end. */
int pc_out_append(struct pc_out *o, struct pc_out *part);
/* No file: only the position moves, from at (what a part would take). */
void pc_out_null(struct pc_out *o, uint64_t at);
/* Copies n bytes of file in from offset from into file out at to. */
int pc_copy_range(int in, uint64_t from, int out, uint64_t to, uint64_t n);
/* Goes on writing at at (the bytes before it written by others). */
void pc_out_seek(struct pc_out *o, uint64_t at);
/* Flushes and closes; -1 if anything failed. */
int pc_out_close(struct pc_out *o);
void pc_out_flush(struct pc_out *o);
static inline void pc_out_write(struct pc_out *o, const void *p, size_t n);
/* Pads with zeros to a multiple of a (a power of two, at most 8). */
static inline void pc_out_align(struct pc_out *o, unsigned a);
/* Overwrites bytes at an earlier position, then returns to the end. */
void pc_out_patch(struct pc_out *o, uint64_t at, const void *p, size_t n);

#define PC_OUT_BUF (1u << 20)
/* Room for n (at most PC_OUT_BUF) bytes at the end of o, to be encoded
 * in place: a record put together in a small array and then copied is
 * read back before its stores are done (a stall a record). */
static inline unsigned char *pc_out_put(struct pc_out *o, size_t n)
{
	if (PC_OUT_BUF - o->len < n)
		pc_out_flush(o);
	unsigned char *p = o->buf + o->len;
	o->len += n;
	o->pos += n;
	return p;
}
void pc_out_write_slow(struct pc_out *o, const void *p, size_t n);
static inline void pc_out_write(struct pc_out *o, const void *p, size_t n)
{
	if (PC_OUT_BUF - o->len >= n) {
		__builtin_memcpy(o->buf + o->len, p, n);
		o->len += n;
		o->pos += n;
	} else {
		pc_out_write_slow(o, p, n);
	}
}
/* (inline: the writers align every context's block, and most are
 * aligned already) */
static inline void pc_out_align(struct pc_out *o, unsigned a)
{
	static const unsigned char zero[8];
	unsigned pad = (unsigned)((a - o->pos % a) % a);
	if (pad)
		pc_out_write(o, zero, pad);
}

#endif
