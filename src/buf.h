/* Little-endian encoding into memory buffers and files, for the binary
 * writers. Values are written byte by byte: no casts of structs. */
#ifndef PC_BUF_H
#define PC_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static inline void pc_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}
static inline void pc_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline void pc_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
void pc_lef64(unsigned char *p, double v);

/* A growable byte buffer; offsets stay valid as it grows. */
struct pc_buf {
	unsigned char *p;
	size_t n, cap;
};
/* Appends n zero bytes and returns their offset. */
size_t pc_buf_add(struct pc_buf *b, size_t n);
/* Pads with zeros to a multiple of a; returns the new length. */
size_t pc_buf_align(struct pc_buf *b, size_t a);
/* Appends a NUL-terminated string; returns its offset. */
size_t pc_buf_str(struct pc_buf *b, const char *s);
void pc_buf_free(struct pc_buf *b);

/* A sequential file writer that knows its position. Errors are sticky
 * and reported by pc_out_close. */
struct pc_out {
	FILE *f;
	uint64_t pos;
	int failed;
};
void pc_out_write(struct pc_out *o, const void *p, size_t n);
void pc_out_align(struct pc_out *o, unsigned a);
/* Overwrites bytes at an earlier position, then returns to the end. */
void pc_out_patch(struct pc_out *o, uint64_t at, const void *p, size_t n);

#endif
