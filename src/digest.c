/* What a run reads: the files it opens for reading, noted once asked
 * for (profconv-mpi's ranks: src/mpi.c compares their digests, so that
 * ranks which see other bytes under the same names and sizes are
 * refused rather than mixed), and a 64-bit digest of a file's bytes. */
#include "pc.h"
#include "internal.h"
#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int noting;
static char **paths;
static size_t npaths, cappaths;

void pc_reads_start(void)
{
	pthread_mutex_lock(&mu);
	noting = 1;
	pthread_mutex_unlock(&mu);
}

void pc_reads_note(const char *path)
{
	if (!path || path == pc_stdin_path)
		return;
	pthread_mutex_lock(&mu);
	if (noting) {
		/* a reader opens a file once; the same file opened again
		 * (the importer's detection, then its reading) is most
		 * often the last one noted */
		if (!npaths || strcmp(paths[npaths - 1], path)) {
			if (npaths == cappaths) {
				cappaths = cappaths ? 2 * cappaths : 64;
				paths = pc_xrealloc(paths, cappaths,
						    sizeof(*paths));
			}
			paths[npaths++] = pc_xstrdup(path);
		}
	}
	pthread_mutex_unlock(&mu);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **pc_reads(size_t *n)
{
	pthread_mutex_lock(&mu);
	if (npaths)
		qsort(paths, npaths, sizeof(*paths), cmp_path);
	size_t k = 0;
	for (size_t i = 0; i < npaths; i++) {
		if (k && !strcmp(paths[k - 1], paths[i]))
			free(paths[i]);
		else
			paths[k++] = paths[i];
	}
	npaths = k;
	*n = npaths;
	char **v = paths;
	pthread_mutex_unlock(&mu);
	return v;
}

/* ---- the digest: four lanes of 64-bit words (xxHash64's round and
 * avalanche; not xxHash64's value), then the tail and the length ---- */

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t round64(uint64_t acc, uint64_t w)
{
	return rotl(acc + w * P2, 31) * P1;
}

struct digest {
	uint64_t v[4];
	uint64_t len;
	unsigned char tail[32];
	size_t ntail;
};

static void digest_init(struct digest *d)
{
	memset(d, 0, sizeof(*d));
	d->v[0] = P1 + P2;
	d->v[1] = P2;
	d->v[2] = 0;
	d->v[3] = (uint64_t)0 - P1;
}

static void stripes(struct digest *d, const unsigned char *p, size_t n)
{
	for (; n >= 32; p += 32, n -= 32)
		for (int i = 0; i < 4; i++)
			d->v[i] = round64(d->v[i], pc_getle(p + 8 * i, 8));
}

static void digest_add(struct digest *d, const unsigned char *p, size_t n)
{
	d->len += n;
	if (d->ntail) {
		size_t k = 32 - d->ntail < n ? 32 - d->ntail : n;
		memcpy(d->tail + d->ntail, p, k);
		d->ntail += k;
		p += k;
		n -= k;
		if (d->ntail < 32)
			return;
		stripes(d, d->tail, 32);
		d->ntail = 0;
	}
	size_t whole = n & ~(size_t)31;
	stripes(d, p, whole);
	memcpy(d->tail, p + whole, n - whole);
	d->ntail = n - whole;
}

static uint64_t digest_end(struct digest *d)
{
	uint64_t h = rotl(d->v[0], 1) + rotl(d->v[1], 7) +
		     rotl(d->v[2], 12) + rotl(d->v[3], 18);
	for (int i = 0; i < 4; i++)
		h = (h ^ round64(0, d->v[i])) * P1 + P4;
	h += d->len;
	for (size_t i = 0; i < d->ntail; i++)
		h = rotl(h ^ (d->tail[i] * P5), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

int pc_file_digest(const char *path, uint64_t *out, struct pc_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pc_err_set(err, "%s: %s", path, strerror(errno));
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = pc_xmalloc(CHUNK);
	struct digest d;
	digest_init(&d);
	int rc = 0;
	for (;;) {
		ssize_t k = read(fd, buf, CHUNK);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = pc_err_set(err, "%s: %s", path, strerror(errno));
			break;
		}
		if (k == 0)
			break;
		digest_add(&d, buf, (size_t)k);
	}
	free(buf);
	close(fd);
	*out = digest_end(&d);
	return rc;
}
