/* Allocation, hashing, errors, warnings and progress. */
#include "pc.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

void pc_die(const char *what)
{
	pc_dest_remove_all(); /* no partial output */
	fprintf(stderr, "profconv: error: %s\n", what);
	exit(1);
}

static void oom(void)
{
	pc_die("out of memory");
}

/* Large arrays (values, contexts, output buffers) are touched page by
 * page once; with 4 KiB pages the page faults cost as much as the work
 * (a 410 MB database: 3.7 s of 6.8 s CPU). Transparent huge pages for
 * blocks of 4 MiB and more halve that; where the kernel or the
 * allocator does not allow it, nothing changes. */
#define HUGE_MIN ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_STEP ((size_t)64 << 20)

static void *huge(void *p, size_t bytes)
{
	const uintptr_t page = HUGE_PAGE;
	if (bytes >= HUGE_MIN) {
		uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
		uintptr_t e = ((uintptr_t)p + bytes) & ~(page - 1);
#ifdef MADV_HUGEPAGE
		if (e > a)
			(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
		(void)a;
		(void)e;
#endif
	}
	return p;
}

/* The heap (brk) too: the arrays that grow by doubling below HUGE_MIN
 * (the model's tables, a reader's own) are each touched page by page
 * once at every size (perf script text, 100 MB to folded: 7,300 faults
 * of 4 KiB, a third of its CPU time on this VM, where a fault costs
 * some 20 us). pc_memory_init keeps blocks below 1 MiB in the heap
 * (glibc mmaps from 128 KiB up, then more as blocks are freed), which
 * grows 64 MiB at a time and keeps its free top (what is freed is used
 * again, not faulted in again); the first allocation after the heap
 * grew marks its new part for huge pages (what glibc's tunable
 * glibc.malloc.hugetlb=1 does inside malloc). The same text: 2,100
 * faults. Only the readers of sample stacks (perf script text, folded
 * stacks) ask for it, at their start: elsewhere the faults are a small
 * part and the peak pays (the cc1plus Callgrind fixture 13,900 -> 5,500
 * faults but its peak 77 -> 85 MB; tests/bounded.sh's generated
 * Callgrind input 88-91 -> 94-114 MB from run to run, blocks freed in
 * the heap kept for the next and huge pages half used). */
#define HEAP_PAD ((size_t)64 << 20)
#define HEAP_MMAP ((size_t)1 << 20)
static uintptr_t heap_done; /* marked up to here (0: not in use) */

void pc_memory_init(void)
{
#ifdef M_MMAP_THRESHOLD
	static int asked;
	if (__atomic_exchange_n(&asked, 1, __ATOMIC_RELAXED))
		return;
	/* (under an address-space limit, ulimit -v, the heap's 64 MiB
	 * steps would count against it: there it stays as glibc keeps it,
	 * and running out is said where it happens, as before) */
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur != RLIM_INFINITY)
		return;
	mallopt(M_MMAP_THRESHOLD, (int)HEAP_MMAP);
	mallopt(M_TRIM_THRESHOLD, (int)(4 * HEAP_PAD));
	mallopt(M_TOP_PAD, (int)HEAP_PAD);
	uintptr_t top = (uintptr_t)sbrk(0);
	if (top == (uintptr_t)-1)
		return;
	uintptr_t start = (top + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	/* the heap's free part below that huge page's boundary (the rest of
	 * the huge page the program's start faulted in small pages: a fault
	 * there takes a small page too) taken by blocks kept and never
	 * touched, which cost no memory: the reader's first tables, which
	 * would have gone there (up to 2 MiB of small pages, 300-500
	 * faults), go above it */
#if defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	/* (kept here: reachable, not a leak to LeakSanitizer or memcheck;
	 * volatile, or -O2 drops the stores no code reads) */
	static void *volatile fill[16];
	uintptr_t at = 0;
	for (int i = 0; i < 16; i++) {
		/* (the top chunk, glibc's free space at the heap's end, is
		 * keepcost bytes below the break) */
		struct mallinfo2 mi = mallinfo2();
		uintptr_t end = (uintptr_t)sbrk(0);
		if (end == (uintptr_t)-1 || end - mi.keepcost <= at ||
		    end - mi.keepcost + 4096 > start)
			break;
		at = end - mi.keepcost;
		size_t gap = start - at;
		fill[i] = malloc(gap < HEAP_MMAP / 2 ? gap - 64 : HEAP_MMAP / 2);
		if (!fill[i])
			break;
	}
#endif
	__atomic_store_n(&heap_done, start, __ATOMIC_RELAXED);
#endif
}

static void heap_huge(void)
{
	uintptr_t done = __atomic_load_n(&heap_done, __ATOMIC_RELAXED);
	if (!done)
		return;
	uintptr_t top = (uintptr_t)sbrk(0) & ~(HUGE_PAGE - 1);
	if (top == done || top + HUGE_PAGE == 0)
		return;
#ifdef MADV_HUGEPAGE
	if (top > done)
		(void)madvise((void *)done, top - done, MADV_HUGEPAGE);
#endif
	/* (below it: the heap was trimmed; marked again as it grows) */
	__atomic_store_n(&heap_done, top, __ATOMIC_RELAXED);
}

/* A large block aligned to huge pages (so all of it can use them). */
static void *huge_alloc(size_t n)
{
	size_t bytes = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	void *p = aligned_alloc(HUGE_PAGE, bytes);
	if (!p)
		oom();
	return huge(p, bytes);
}

/* A block written whole as soon as it is made (a hash table's slots, all
 * set empty): in huge pages from one huge page up, not from HUGE_MIN, as
 * no page of it stays untouched (the peak pays nothing for them). Below
 * HUGE_MIN glibc maps a block from 1 MiB up (pc_memory_init) or 128 KiB
 * in pages of 4 KiB, faulted in one by one: the model's table of
 * contexts, 2 MiB at 112k contexts (the generated perf script text of
 * bench/perf.sh), took 512 faults of the 100 MB's 1,400. */
void *pc_whole_alloc(size_t n)
{
	if (n < HUGE_PAGE || n >= HUGE_MIN)
		return pc_xmalloc(n);
	/* (huge_alloc's block, aligned to a huge page and whole ones:
	 * huge leaves a block below HUGE_MIN as it is) */
	void *p = huge_alloc(n);
#ifdef MADV_HUGEPAGE
	(void)madvise(p, (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1),
		      MADV_HUGEPAGE);
#endif
	return p;
}

void *pc_xmalloc(size_t n)
{
	if (n >= HUGE_MIN)
		return huge_alloc(n);
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	heap_huge();
	return p;
}

void *pc_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	heap_huge();
	return huge(p, size && n <= SIZE_MAX / size ? n * size : 0);
}

void *pc_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom();
	size_t bytes = n * size;
	if (bytes >= HUGE_MIN) {
		size_t old = p ? malloc_usable_size(p) : 0;
		if (old >= bytes)
			return p;
		/* copied, not realloc'd: a block moved by mremap loses its
		 * huge pages, which costs more than the copy (measured), and
		 * with them mremap holds old and new at once too. The copy
		 * goes a piece at a time, each piece of the old block given
		 * back once copied, so that only one piece is resident twice
		 * (a Callgrind part's 1.5 GB of values: 1.5 GB less at the
		 * peak) */
		char *q = huge_alloc(bytes);
		for (size_t off = 0; off < old; off += HUGE_STEP) {
			size_t k = old - off < HUGE_STEP ? old - off : HUGE_STEP;
			memcpy(q + off, (char *)p + off, k);
			if (k == HUGE_STEP)
				pc_release((char *)p + off, k);
		}
		free(p);
		return q;
	}
	p = realloc(p, bytes ? bytes : 1);
	if (!p)
		oom();
	heap_huge();
	return p;
}

void pc_release(void *p, size_t n)
{
	static uintptr_t size; /* set once, by whichever thread comes first */
	uintptr_t page = __atomic_load_n(&size, __ATOMIC_RELAXED);
	if (!page) {
		long ps = sysconf(_SC_PAGESIZE);
		page = ps > 0 ? (uintptr_t)ps : 4096;
		__atomic_store_n(&size, page, __ATOMIC_RELAXED);
	}
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(page - 1);
	if (e > a)
		(void)madvise((void *)a, e - a, MADV_DONTNEED);
}

int pc_heap_kept(void)
{
	return __atomic_load_n(&heap_done, __ATOMIC_RELAXED) != 0;
}

void pc_trim(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&mu);
	malloc_trim(0);
	pthread_mutex_unlock(&mu);
}

char *pc_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = pc_xmalloc(n);
	memcpy(d, s, n);
	return d;
}

uint64_t pc_hash_bytes(const void *p, size_t n)
{
	/* FNV-1a over 8-byte words, then mixed */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ n;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return pc_hash64(h);
}

/* ---- arena ---- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct pc_arena {
	struct arena_chunk *head;
};

struct pc_arena *pc_arena_new(void)
{
	return pc_xcalloc(1, sizeof(struct pc_arena));
}

void *pc_arena_alloc(struct pc_arena *a, size_t n)
{
	const size_t align = sizeof(max_align_t);
	n = (n + align - 1) / align * align;
	struct arena_chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = n > (1u << 20) ? n : (1u << 20);
		c = pc_xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

void pc_arena_free(struct pc_arena *a)
{
	if (!a)
		return;
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *n = c->next;
		free(c);
		c = n;
	}
	free(a);
}

/* ---- keymap: open addressing from a 64-bit hash to a dense id ---- */

/* A slot keeps the low 32 bits of the hash, which both place it (tables
 * never pass 2^32 slots: ids are 32-bit) and screen the equality test,
 * and the id: 8 bytes, so a probe sequence mostly stays in one cache
 * line. The table is at most 3/4 full. */
struct pc_keymap {
	struct slot {
		uint32_t tag;
		uint32_t id; /* PC_NONE = empty */
	} *slots;
	size_t cap, n;
};

static struct slot *slots_new(size_t cap)
{
	struct slot *s = pc_whole_alloc(cap * sizeof(*s));
	memset(s, 0xff, cap * sizeof(*s)); /* every id PC_NONE */
	return s;
}

struct pc_keymap *pc_keymap_new(void)
{
	struct pc_keymap *m = pc_xcalloc(1, sizeof(*m));
	m->cap = 16;
	m->slots = slots_new(m->cap);
	return m;
}

void pc_keymap_free(struct pc_keymap *m)
{
	if (m) {
		free(m->slots);
		free(m);
	}
}

/* Room for n keys without growing again. */
void pc_keymap_reserve(struct pc_keymap *m, size_t n)
{
	size_t cap = m->cap;
	while (n * 4 > cap * 3)
		cap *= 2;
	if (cap == m->cap)
		return;
	struct slot *ns = slots_new(cap);
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].id == PC_NONE)
			continue;
		size_t j = m->slots[i].tag & (cap - 1);
		while (ns[j].id != PC_NONE)
			j = (j + 1) & (cap - 1);
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->cap = cap;
}

/* The slot holding the key, or the empty slot where it would go. */
static struct slot *probe(const struct pc_keymap *m, uint64_t h,
			  pc_keymap_eq eq, const void *ctx, const void *key)
{
	size_t mask = m->cap - 1;
	uint32_t tag = (uint32_t)h;
	for (size_t i = tag & mask;; i = (i + 1) & mask) {
		struct slot *s = &m->slots[i];
		if (s->id == PC_NONE || (s->tag == tag && eq(ctx, s->id, key)))
			return s;
	}
}

pc_id pc_keymap_find(const struct pc_keymap *m, uint64_t h, pc_keymap_eq eq,
		     const void *ctx, const void *key)
{
	return probe(m, h, eq, ctx, key)->id;
}

pc_id pc_keymap_intern(struct pc_keymap *m, uint64_t h, pc_keymap_eq eq,
		       const void *ctx, const void *key, pc_id next)
{
	if ((m->n + 1) * 4 > m->cap * 3) /* (the call only to grow) */
		pc_keymap_reserve(m, m->n + 1);
	struct slot *s = probe(m, h, eq, ctx, key);
	if (s->id == PC_NONE) {
		s->tag = (uint32_t)h;
		s->id = next;
		m->n++;
		return next;
	}
	return s->id;
}

static int never_eq(const void *ctx, pc_id id, const void *key)
{
	(void)ctx;
	(void)id;
	(void)key;
	return 0;
}

void pc_keymap_insert(struct pc_keymap *m, uint64_t h, pc_id id)
{
	pc_keymap_intern(m, h, never_eq, NULL, NULL, id);
}

/* ---- UTF-8 ---- */

/* Length of the valid UTF-8 sequence at s, 0 if none (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	unsigned lo = 0x80, hi = 0xbf;
	size_t n;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;
		if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

char *pc_utf8_escape(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t bad = 0, n = 0;
	while (u[n]) {
		size_t k = utf8_seq(u + n);
		if (!k) {
			bad++;
			k = 1;
		}
		n += k;
	}
	if (!bad)
		return NULL;
	char *d = pc_xmalloc(n + 3 * bad + 1), *w = d;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i);
		if (k) {
			memcpy(w, u + i, k);
			w += k;
			i += k;
		} else {
			w += sprintf(w, "\\x%02X", u[i]);
			i++;
		}
	}
	*w = 0;
	return d;
}

/* A character that no text output should carry: a C0 control, DEL,
 * and U+FFFE and U+FFFF, which are not XML characters (an SVG with
 * one does not parse). Its length at s (valid UTF-8), 0 if it is none. */
static size_t unfit_char(const unsigned char *s, size_t k)
{
	if (k == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	if (k == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 3;
	return 0;
}

char *pc_text_escape(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t extra = 0, n = 0;
	while (u[n]) {
		size_t k = utf8_seq(u + n);
		if (!k)
			k = 1, extra += 3;
		else if (unfit_char(u + n, k))
			extra += 3 * k;
		n += k;
	}
	if (!extra)
		return NULL;
	char *d = pc_xmalloc(n + extra + 1), *w = d;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(u + i);
		if (k && !unfit_char(u + i, k)) {
			memcpy(w, u + i, k);
			w += k;
			i += k;
			continue;
		}
		for (size_t j = 0; j < (k ? k : 1); j++)
			w += sprintf(w, "\\x%02X", u[i++]);
	}
	*w = 0;
	return d;
}

/* ---- errors ---- */

void pc_escape_controls(char *s, size_t cap)
{
	/* terminal control bytes from inputs (names, paths, lines), and
	 * bytes that are not UTF-8, are shown as \xHH, so a message can
	 * neither drive the terminal nor carry raw bytes; cut at the end
	 * where the escapes do not fit */
	size_t n = strlen(s), extra = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : utf8_seq((const unsigned char *)s + i);
		if (c < 0x20 || c == 0x7f || !k) {
			extra += 3;
			k = 1;
		}
		i += k;
	}
	if (!extra)
		return;
	char *d = pc_xmalloc(n + extra + 1);
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : utf8_seq((const unsigned char *)s + i);
		if (c < 0x20 || c == 0x7f || !k) {
			static const char hex[] = "0123456789abcdef";
			if (w + 4 >= cap)
				break;
			d[w++] = '\\';
			d[w++] = 'x';
			d[w++] = hex[c >> 4];
			d[w++] = hex[c & 15];
			i++;
			continue;
		}
		if (w + k >= cap)
			break;
		memcpy(d + w, s + i, k);
		w += k;
		i += k;
	}
	memcpy(s, d, w);
	s[w] = 0;
	free(d);
}

static int verr(struct pc_err *err, const char *prefix, const char *fmt,
		va_list ap)
{
	if (!err)
		return -1;
	err->code = PC_EINPUT;
	size_t n = strlen(prefix);
	if (n >= sizeof err->msg)
		n = sizeof err->msg - 1;
	memcpy(err->msg, prefix, n);
	err->msg[n] = 0;
	vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
	pc_escape_controls(err->msg, sizeof err->msg);
	return -1;
}

int pc_err_set(struct pc_err *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(err, "", fmt, ap);
	va_end(ap);
	return -1;
}

int pc_err_at_line(struct pc_err *err, const char *file, uint64_t line,
		   const char *fmt, ...)
{
	char prefix[1200];
	snprintf(prefix, sizeof prefix, "%s:%llu: ", file,
		 (unsigned long long)line);
	va_list ap;
	va_start(ap, fmt);
	verr(err, prefix, fmt, ap);
	va_end(ap);
	return -1;
}

int pc_err_at_off(struct pc_err *err, const char *file, uint64_t off,
		  const char *fmt, ...)
{
	char prefix[1200];
	snprintf(prefix, sizeof prefix, "%s@0x%llx: ", file,
		 (unsigned long long)off);
	va_list ap;
	va_start(ap, fmt);
	verr(err, prefix, fmt, ap);
	va_end(ap);
	return -1;
}

void pc_err_context(struct pc_err *err, const char *fmt, ...)
{
	if (!err)
		return;
	size_t n = strlen(err->msg);
	if (n + 10 >= sizeof err->msg)
		return;
	memcpy(err->msg + n, " (while ", 8);
	n += 8;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof err->msg - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	if (n + 1 < sizeof err->msg) {
		err->msg[n] = ')';
		err->msg[n + 1] = 0;
	}
	pc_escape_controls(err->msg, sizeof err->msg);
}

/* ---- warnings and progress ---- */

void pc_human_size(char *buf, size_t n, uint64_t bytes)
{
	static const char *const unit[] = { "kB", "MB", "GB", "TB" };
	if (bytes < 1000) {
		snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
		return;
	}
	double v = (double)bytes / 1000;
	int u = 0;
	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s",
		 v, unit[u]);
}

/* "profconv: KIND: MESSAGE", the input's control bytes escaped; a
 * holding diag keeps the message (kind, key, text) instead */
static void say(struct pc_diag *d, char kind, uint32_t key, const char *fmt,
		va_list ap)
{
	char msg[2048];
	vsnprintf(msg, sizeof msg, fmt, ap);
	pc_escape_controls(msg, sizeof msg);
	if (d->holding) {
		size_t n = strlen(msg) + 1;
		if (d->capheld - d->nheld < n + 5) {
			d->capheld = 2 * (d->nheld + n + 5);
			d->held = pc_xrealloc(d->held, d->capheld, 1);
		}
		d->held[d->nheld] = kind;
		memcpy(d->held + d->nheld + 1, &key, 4);
		memcpy(d->held + d->nheld + 5, msg, n);
		d->nheld += n + 5;
		return;
	}
	fprintf(stderr, "profconv: %s: %s\n", kind == 'w' ? "warning" : "note",
		msg);
}

/* Whether key is said for the first time (and now marked said). */
static int first_time(struct pc_diag *d, uint32_t key)
{
	if (key == UINT32_MAX)
		return 1;
	key &= (1u << 24) - 1;
	if (!d->once)
		d->once = pc_xcalloc(1, 1u << 21);
	if (d->once[key >> 3] & (1u << (key & 7)))
		return 0;
	d->once[key >> 3] |= (uint8_t)(1u << (key & 7));
	return 1;
}

static void warn(struct pc_diag *d, uint32_t key, const char *fmt, va_list ap)
{
	if (!d || !first_time(d, key))
		return;
	if (d->holding) {
		say(d, 'w', key, fmt, ap);
		return;
	}
	if (d->skip) {
		d->skip--;
		return;
	}
	d->said++;
	d->nwarn++;
	if (d->quiet || d->nwarn > d->max_print)
		return;
	say(d, 'w', key, fmt, ap);
}

void pc_warn(struct pc_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warn(d, UINT32_MAX, fmt, ap);
	va_end(ap);
}

void pc_warn_once(struct pc_diag *d, uint32_t key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warn(d, key, fmt, ap);
	va_end(ap);
}

void pc_note(struct pc_diag *d, const char *fmt, ...)
{
	if (!d || (!d->holding && (d->quiet || !(d->notes || d->verbose))))
		return;
	if (!d->holding && d->skip) {
		d->skip--;
		return;
	}
	d->said += !d->holding;
	va_list ap;
	va_start(ap, fmt);
	say(d, 'n', UINT32_MAX, fmt, ap);
	va_end(ap);
}

void pc_diag_release(struct pc_diag *d, struct pc_diag *held)
{
	for (size_t at = 0; at < held->nheld;) {
		char kind = held->held[at];
		uint32_t key;
		memcpy(&key, held->held + at + 1, 4);
		const char *msg = held->held + at + 5;
		at += 5 + strlen(msg) + 1;
		if (kind == 'n')
			pc_note(d, "%s", msg);
		else
			pc_warn_once(d, key, "%s", msg);
	}
	held->nheld = 0;
}

void pc_diag_free(struct pc_diag *d)
{
	free(d->once);
	free(d->held);
	d->once = NULL;
	d->held = NULL;
	d->nheld = d->capheld = 0;
}

void pc_progress(struct pc_diag *d, const char *what, uint64_t done,
		 uint64_t total, uint64_t bytes)
{
	if (!d || !d->progress || d->quiet)
		return;
	char size[32] = "";
	if (bytes != UINT64_MAX) {
		size[0] = ' ';
		size[1] = '(';
		pc_human_size(size + 2, sizeof size - 3, bytes);
		strcat(size, ")");
	}
	if (total)
		fprintf(stderr, "\r\033[K%s: %3u%%%s", what,
			(unsigned)(done > total ? 100 : done * 100 / total),
			size);
	else
		fprintf(stderr, "\r\033[K%s:%s", what, size);
	fflush(stderr);
}

void pc_progress_done(struct pc_diag *d)
{
	if (!d || !d->progress || d->quiet)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* ---- directories ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **pc_list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	*n = 0;
	if (!d)
		return NULL;
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			PC_GROW(v, *n, cap);
			v[(*n)++] = pc_xstrdup(e->d_name);
		}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/* A fingerprint of path and everything below it: the names (in order)
 * and sizes of its files, the names of its directories. 0: not there. */
uint64_t pc_tree_print(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	uint64_t h = pc_hash64((uint64_t)st.st_size ^
			       (S_ISDIR(st.st_mode) ? 0x5a5a5a5aULL : 0));
	if (!S_ISDIR(st.st_mode))
		return h ? h : 1;
	size_t n;
	char **names = pc_list_dir(path, &n);
	for (size_t i = 0; i < n; i++) {
		char sub[4200];
		pc_path_join(sub, sizeof sub, path, names[i]);
		h = pc_hash64(h ^ pc_hash_bytes(names[i], strlen(names[i])));
		h = pc_hash64(h ^ pc_tree_print(sub));
	}
	pc_free_list(names, n);
	return h ? h : 1;
}

void pc_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int pc_unnamed_file(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) { /* (a file system without O_TMPFILE) */
		char path[4200];
		snprintf(path, sizeof path, "%s/.profconv-XXXXXX", dir);
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
	}
	return fd;
}

int pc_open_file(const char *path, struct pc_err *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		pc_err_set(err, "%s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	struct stat st;
	int bad = fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : -1;
	if (bad) {
		close(fd);
		pc_err_set(err, "%s: %s", path,
			   bad < 0 ? "not a regular file" : strerror(bad));
		errno = bad < 0 ? EINVAL : bad;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl != -1)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	pc_reads_note(path);
	return fd;
}

FILE *pc_fopen_file(const char *path, struct pc_err *err)
{
	int fd = pc_open_file(path, err);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		int e = errno;
		close(fd);
		pc_err_set(err, "%s: %s", path, strerror(e));
		errno = e;
	}
	return f;
}

int pc_blob_map(struct pc_blob *b, const char *dir, const char *name,
		int optional, struct pc_err *err)
{
	b->p = NULL;
	b->n = 0;
	b->since = 0;
	if (name ? pc_path_join(b->path, sizeof b->path, dir, name) :
		   (strlen(dir) >= sizeof b->path))
		return pc_err_set(err, "%s: path too long", dir);
	if (!name)
		strcpy(b->path, dir);
	int fd = pc_open_file(b->path, err);
	if (fd < 0)
		return optional && errno == ENOENT ? 1 : -1;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return pc_err_set(err, "%s: %s", b->path, strerror(errno));
	}
	b->n = (uint64_t)st.st_size;
	if (b->n) {
		void *m = mmap(NULL, b->n, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			close(fd);
			return pc_err_set(err, "%s: %s", b->path,
					  strerror(errno));
		}
		b->p = m;
	}
	close(fd);
	return 0;
}

void pc_blob_give_back(struct pc_blob *b)
{
	b->since = 0;
	if (b->p)
		(void)madvise((void *)b->p, b->n, MADV_DONTNEED);
}

void pc_blob_unmap(struct pc_blob *b)
{
	if (b->p)
		munmap((void *)b->p, b->n);
	b->p = NULL;
}

const char *pc_pct(char *buf, size_t n, double p)
{
	double a = fabs(p);
	if (a >= 10 && p == nearbyint(p))
		snprintf(buf, n, "%.0f", p);
	else if (a >= 10)
		snprintf(buf, n, "%.1f", p);
	else if (a >= 0.001 || a == 0)
		snprintf(buf, n, "%.2g", p);
	else
		snprintf(buf, n, "less than 0.001");
	return buf;
}
