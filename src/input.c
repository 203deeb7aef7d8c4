/* Input: probe descriptors and a line reader over plain or gzip files. */
#include "pc.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Read 256 KiB at a time, into a buffer of 512 KiB (in the heap, below
 * glibc's mmap threshold): the text read is still in the processor's
 * second-level cache when its lines are found and compared, and the
 * kernel's copy writes into that cache, not a fresh 2 MiB mapping
 * faulted in 4 KiB pages. */
#define READ_CHUNK (1u << 18)
/* zlib's buffer: a quarter of a chunk. zlib reads (or inflates) straight
 * into the caller's buffer only what is left of a read, after the bytes
 * its own buffer holds, where that is twice its buffer or more: at half a
 * chunk or more every byte went through its buffer and was copied again
 * (100 MB more copied reading the generated text of bench/perf.sh: its
 * first read, of its buffer's size, to look for a gzip header, leaves a
 * part behind at each read after) */
#define GZ_BUFFER (READ_CHUNK / 4)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Standard input ("-"): one gzip-or-plain stream for the whole run. The
 * probe's bytes are kept and handed to the line reader first, so
 * detection consumes nothing. */
const char pc_stdin_path[] = "<stdin>";
static struct {
	gzFile gz;
	unsigned char *pre;
	size_t npre;
	int probed, opened;
} std_in;

static gzFile stdin_gz(struct pc_err *err)
{
	if (!std_in.gz) {
		int fd = dup(0);
		if (fd < 0 || !(std_in.gz = gzdopen(fd, "rb"))) {
			pc_err_set(err, "%s: %s", pc_stdin_path,
				   strerror(errno));
			return NULL;
		}
		gzbuffer(std_in.gz, GZ_BUFFER);
	}
	return std_in.gz;
}

int pc_probe_open(struct pc_probe *p, const char *path, struct pc_err *err)
{
	memset(p, 0, sizeof(*p));
	p->path = path;
	p->buf = pc_xcalloc(1, PC_PROBE_SIZE + PC_PROBE_PAD);
	if (path == pc_stdin_path) {
		gzFile gz = stdin_gz(err);
		if (!gz)
			return -1;
		if (!std_in.probed) {
			std_in.probed = 1;
			std_in.pre = pc_xmalloc(PC_PROBE_SIZE);
			int n = gzread(gz, std_in.pre, PC_PROBE_SIZE);
			std_in.npre = n > 0 ? (size_t)n : 0;
		}
		memcpy(p->buf, std_in.pre, std_in.npre);
		p->len = std_in.npre;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) != 0)
		return pc_err_set(err, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		p->is_dir = 1;
		DIR *d = opendir(path);
		if (!d)
			return pc_err_set(err, "%s: %s", path, strerror(errno));
		size_t cap = 0;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' &&
			    (!e->d_name[1] ||
			     (e->d_name[1] == '.' && !e->d_name[2])))
				continue;
			PC_GROW(p->names, p->nnames, cap);
			p->names[p->nnames++] = pc_xstrdup(e->d_name);
		}
		closedir(d);
		qsort(p->names, p->nnames, sizeof(*p->names), cmp_str);
		return 0;
	}
	gzFile gz = gzopen(path, "rb");
	if (!gz)
		return pc_err_set(err, "%s: %s", path, strerror(errno));
	int n = gzread(gz, p->buf, PC_PROBE_SIZE);
	/* a damaged gzip stream still probes on what could be read */
	p->len = n > 0 ? (size_t)n : 0;
	gzclose(gz);
	return 0;
}

void pc_probe_close(struct pc_probe *p)
{
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

int pc_path_join(char *buf, size_t n, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	if (a + b + 2 > n)
		return -1;
	memcpy(buf, dir, a);
	buf[a] = '/';
	memcpy(buf + a + 1, name, b + 1);
	return 0;
}

int pc_basename_starts(const char *path, const char *prefix)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return strncmp(b, prefix, strlen(prefix)) == 0;
}

int pc_path_ends(const char *path, const char *suffix)
{
	size_t n = strlen(path), m = strlen(suffix);
	return n >= m && strcmp(path + n - m, suffix) == 0;
}


/* The buffer of cap bytes and the 0 after the bytes read (pc_lines). */
static char *lines_buf(size_t cap)
{
	char *b = pc_xmalloc(cap + 1);
	b[0] = 0;
	return b;
}

int pc_lines_open(struct pc_lines *r, const char *path, struct pc_diag *diag,
		  struct pc_err *err)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->diag = diag;
	r->max_line = PC_MAX_LINE_DEFAULT;
	r->next_progress = 64u << 20;
	if (path == pc_stdin_path) {
		if (std_in.opened++)
			return pc_err_set(err, "%s: standard input can be read "
					  "only once", path);
		if (!(r->gz = stdin_gz(err)))
			return -1;
		std_in.gz = NULL; /* the reader owns it now */
		r->cap = READ_CHUNK * 2;
		r->buf = lines_buf(r->cap);
		memcpy(r->buf, std_in.pre, std_in.npre);
		r->end = std_in.npre;
		r->buf[r->end] = 0;
		free(std_in.pre);
		std_in.pre = NULL;
		std_in.npre = 0;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) != 0)
		return pc_err_set(err, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return pc_err_set(err, "%s: is a directory", path);
	/* a pipe streams like a file, without a size for progress */
	r->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	gzFile gz = gzopen(path, "rb");
	if (!gz)
		return pc_err_set(err, "%s: %s", path, strerror(errno));
	pc_reads_note(path);
	gzbuffer(gz, GZ_BUFFER);
	r->gz = gz;
	r->cap = READ_CHUNK * 2;
	r->buf = lines_buf(r->cap);
	return 0;
}

void pc_lines_close(struct pc_lines *r)
{
	if (r->gz)
		gzclose(r->gz);
	free(r->buf);
	if (r->size >= (64u << 20))
		pc_progress_done(r->diag);
	memset(r, 0, sizeof(*r));
}

/* zlib's messages start with the path, which the location has already */
static const char *gz_msg(const struct pc_lines *r, const char *msg)
{
	size_t n = strlen(r->path);
	if (!strncmp(msg, r->path, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

/* Reads more input after the unread tail, growing the buffer for very
 * long lines. Returns bytes read, 0 at end, -1 on error. */
static int fill(struct pc_lines *r, struct pc_err *err)
{
	if (r->pos > 0) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->end -= r->pos;
		r->pos = 0;
	}
	if (r->cap - r->end < READ_CHUNK) {
		r->cap *= 2;
		r->buf = pc_xrealloc(r->buf, r->cap + 1, 1);
	}
	int n = gzread(r->gz, r->buf + r->end, READ_CHUNK);
	if (n < 0) {
		int zerr;
		const char *msg = gzerror(r->gz, &zerr);
		return pc_err_at_line(err, r->path, r->lineno + 1,
				      "cannot read: %s",
				      zerr == Z_ERRNO ? strerror(errno) :
						       gz_msg(r, msg));
	}
	if (n == 0) {
		/* zlib reports a truncated stream only through gzerror */
		int zerr;
		const char *msg = gzerror(r->gz, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END)
			return pc_err_at_line(err, r->path, r->lineno + 1,
					      "cannot read: %s", gz_msg(r, msg));
	}
	r->end += (size_t)n;
	r->buf[r->end] = 0; /* (see struct pc_lines) */
	if (r->diag && r->size >= (64u << 20)) {
		uint64_t off = (uint64_t)gzoffset(r->gz);
		if (off >= r->next_progress) {
			pc_progress(r->diag, r->path, off, r->size, off);
			r->next_progress = off + (64u << 20);
		}
	}
	return n;
}

int pc_lines_skip(struct pc_lines *r, const char *s, size_t n,
		  uint64_t lines, struct pc_err *err)
{
	/* (no longer than a line may be: the buffer stays bounded) */
	if (n > r->max_line)
		return 0;
	while (r->end - r->pos < n && !r->eof) {
		int k = fill(r, err);
		if (k < 0)
			return -1;
		if (k == 0)
			r->eof = 1;
	}
	if (r->end - r->pos < n || memcmp(r->buf + r->pos, s, n))
		return 0;
	r->pos += n;
	r->lineno += lines;
	return 1;
}

static int too_long(const struct pc_lines *r, struct pc_err *err)
{
	return pc_err_at_line(err, r->path, r->lineno + 1,
			      "line longer than %zu bytes (not a text "
			      "profile? --max-line=BYTES raises the limit)",
			      r->max_line);
}

int pc_lines_next(struct pc_lines *r, char **line, size_t *len,
		  struct pc_err *err)
{
	for (;;) {
		char *start = r->buf + r->pos;
		char *nl = memchr(start, '\n', r->end - r->pos);
		if (nl || (r->eof && r->pos < r->end)) {
			size_t n = nl ? (size_t)(nl - start) : r->end - r->pos;
			if (n > r->max_line)
				return too_long(r, err);
			r->pos += n + (nl ? 1 : 0);
			if (n && start[n - 1] == '\r')
				n--;
			start[n] = 0;
			*line = start;
			*len = n;
			r->lineno++;
			return 1;
		}
		if (r->eof)
			return 0;
		if (r->end - r->pos > r->max_line)
			return too_long(r, err);
		int n = fill(r, err);
		if (n < 0)
			return -1;
		if (n == 0)
			r->eof = 1;
	}
}
