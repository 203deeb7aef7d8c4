/* v4_scopes DB: an independent reader of HPCToolkit v4 databases for the
 * tests (it shares no code with profconv's importer, exporter or check).
 * Prints, for every context visible in meta.db, every profile (summary
 * included) and every metric, the stored execution (inclusive) and
 * function (exclusive) values as hpcviewer and hatchet show them:
 *
 *     PROFILE <tab> CONTEXT PATH <tab> METRIC <tab> SCOPE <tab> VALUE
 *             [<tab> FUNCTION NAME, for function contexts and for
 *                    callees that are not functions: 0x<address>]
 *
 * Contexts are named by their path from the root and profiles by their
 * id tuples, so two databases of the same data print the same lines
 * whatever their ids; lines of sibling twins (equal paths) are summed.
 * Tests compare two outputs with a relative tolerance
 * (tests/scopes_cmp.awk). With -l it prints the lex_aware values too
 * (the exclusive values hpcviewer shows at loops), with -t the trace
 * samples instead:
 *
 *     PROFILE <tab> TIME (ns) <tab> CONTEXT PATH
 *
 * and with -m each metric's scopes as meta.db lists them:
 *
 *     METRIC <tab> SCOPE NAME [<tab> SCOPE NAME...]
 *
 * Minimal checking: the databases are assumed valid (profconv check runs
 * on them separately). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct file {
	unsigned char *p;
	size_t n;
};

static void die(const char *what)
{
	fprintf(stderr, "v4_scopes: %s\n", what);
	exit(2);
}

static struct file slurp(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		die(path);
	struct file r = { NULL, 0 };
	size_t cap = 0;
	for (;;) {
		if (r.n == cap) {
			cap = cap ? cap * 2 : 65536;
			r.p = realloc(r.p, cap);
			if (!r.p)
				die("out of memory");
		}
		size_t k = fread(r.p + r.n, 1, cap - r.n, f);
		if (!k)
			break;
		r.n += k;
	}
	fclose(f);
	return r;
}

static uint64_t get(const struct file *f, uint64_t off, int n)
{
	if (off > f->n || (uint64_t)n > f->n - off)
		die("read past the end of a file");
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | f->p[off + i];
	return v;
}

static const char *str(const struct file *f, uint64_t off)
{
	if (!off || off >= f->n || !memchr(f->p + off, 0, f->n - off))
		return "";
	return (const char *)f->p + off;
}

struct ctx {
	uint32_t id;
	char *path;
	const char *fn; /* function contexts: the name, else "" */
};
static struct ctx *ctxs;
static size_t nctx, capctx;

struct metric {
	const char *name;
	int scope; /* 0 execution, 1 function, 2 lex_aware (-l), -1 other */
};
static struct metric prop[65536];

static void add_ctx(uint32_t id, char *path, const char *fn)
{
	if (nctx == capctx) {
		capctx = capctx ? capctx * 2 : 256;
		ctxs = realloc(ctxs, capctx * sizeof(*ctxs));
		if (!ctxs)
			die("out of memory");
	}
	ctxs[nctx++] = (struct ctx){ id, path, fn };
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = malloc(n);
	if (!s)
		die("out of memory");
	snprintf(s, n, "%s/%s", a, b);
	return s;
}

static void walk(const struct file *m, uint64_t p, uint64_t sz,
		 const char *parent)
{
	static const char *const lexn[] = { "fn", "loop", "line", "ins" };
	static const char *const reln[] = { "lex", "call", "inl" };
	for (uint64_t x = p; x < p + sz;) {
		uint32_t id = (uint32_t)get(m, x + 0x10, 4);
		unsigned flags = m->p[x + 0x14], rel = m->p[x + 0x15] % 3,
			 lex = m->p[x + 0x16] % 4, nw = m->p[x + 0x17];
		char d[8192];
		int k = snprintf(d, sizeof d, "%s:%s", reln[rel], lexn[lex]);
		uint64_t w = x + 0x20;
		const char *fname = "";
		if (flags & 1) {
			fname = str(m, get(m, get(m, w, 8), 8));
			k += snprintf(d + k, sizeof d - k, ":%s", fname);
			w += 8;
		}
		if (flags & 2) {
			uint64_t file = get(m, w, 8);
			k += snprintf(d + k, sizeof d - k, ":%s:%u",
				      str(m, get(m, file + 8, 8)),
				      (unsigned)get(m, w + 8, 4));
			w += 16;
		}
		uint64_t off = (flags & 4) ? get(m, w + 8, 8) : 0;
		if (flags & 4)
			snprintf(d + k, sizeof d - k, ":+0x%llx",
				 (unsigned long long)off);
		char *path = join(parent, d);
		/* a callee that is not a function: profconv's Callgrind
		 * output names it by its address, as valgrind does */
		if (lex != 0 && rel == 1 && (flags & 4)) {
			char *a = malloc(24);
			if (!a)
				die("out of memory");
			snprintf(a, 24, "0x%016llx", (unsigned long long)off);
			fname = a;
		}
		add_ctx(id, path, lex == 0 || rel == 1 ? fname : "");
		walk(m, get(m, x + 8, 8), get(m, x, 8), path);
		x += 0x20 + 8 * (uint64_t)nw;
	}
}

/* meta.db stays loaded: the names point into it */
static struct file meta;
/* -l: the lex_aware scope too (hpcviewer's loop-aware exclusive) */
static int lexaware;
/* -m: each metric's scopes, nothing else */
static int scopelist;
static const char *const scope_name[] = { "execution", "function",
					  "lex_aware" };

static void read_meta(const char *dir)
{
	meta = slurp(dir, "meta.db");
	struct file m = meta;
	/* metrics: the execution and function scopes of each */
	uint64_t s = get(&m, 0x18 + 16 * 2, 8);
	uint64_t pm = get(&m, s, 8), nm = get(&m, s + 8, 4);
	unsigned szm = m.p[s + 0xc], szi = m.p[s + 0xd];
	for (size_t i = 0; i < 65536; i++)
		prop[i].scope = -1;
	for (uint64_t i = 0; i < nm; i++) {
		uint64_t e = pm + i * szm;
		const char *name = str(&m, get(&m, e, 8));
		uint64_t pi = get(&m, e + 8, 8), ni = get(&m, e + 0x18, 2);
		if (scopelist)
			printf("%s", name);
		for (uint64_t k = 0; k < ni; k++) {
			uint64_t sc = get(&m, pi + k * szi, 8);
			uint16_t id = (uint16_t)get(&m, pi + k * szi + 8, 2);
			const char *sn = str(&m, get(&m, sc, 8));
			if (scopelist)
				printf("\t%s", sn);
			prop[id].name = name;
			prop[id].scope = !strcmp(sn, "execution") ? 0 :
					 !strcmp(sn, "function")  ? 1 :
					 lexaware && !strcmp(sn, "lex_aware") ? 2 : -1;
		}
		if (scopelist)
			printf("\n");
	}
	if (scopelist)
		exit(0);
	/* the summary profile is numbered by statMetricIds; its first
	 * statistic ('$$'/sum, as hpcprof and profconv write) has the
	 * same ids as the scopes */
	add_ctx(0, strdup("ROOT"), "");
	uint64_t c = get(&m, 0x18 + 16 * 3, 8);
	uint64_t pe = get(&m, c, 8), ne = get(&m, c + 8, 2);
	unsigned sze = m.p[c + 0xa];
	for (uint64_t i = 0; i < ne; i++) {
		uint64_t e = pe + i * sze;
		char d[64];
		snprintf(d, sizeof d, "entry%u", (unsigned)get(&m, e + 0x14, 2));
		char *path = join("ROOT", d);
		add_ctx((uint32_t)get(&m, e + 0x10, 4), path, "");
		walk(&m, get(&m, e + 8, 8), get(&m, e, 8), path);
	}
}

static int cmp_ctx(const void *a, const void *b)
{
	const struct ctx *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct ctx *ctx_of(uint32_t id)
{
	size_t lo = 0, hi = nctx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ctxs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nctx && ctxs[lo].id == id ? &ctxs[lo] : NULL;
}

static const char *const kinds[] = {
	"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT",
	"GPUSTREAM", "CORE",
};

/* A profile named by its id tuple ("summary" for summaries). */
static void who_of(const struct file *f, uint64_t e, char *who, size_t n)
{
	snprintf(who, n, "summary");
	uint64_t t = get(f, e + 0x20, 8);
	if (!(get(f, e + 0x28, 4) & 1) && t) {
		int k = 0;
		unsigned nid = (unsigned)get(f, t, 2);
		who[0] = 0;
		for (unsigned j = 0; j < nid && k < 900; j++) {
			const unsigned char *x = f->p + t + 8 + 16 * j;
			k += snprintf(who + k, n - k, "%s%s:%u", j ? "/" : "",
				      kinds[x[0] % 8],
				      (unsigned)get(f, t + 8 + 16 * j + 4, 4));
		}
	}
}

/* -t: every trace sample, PROFILE <tab> TIME <tab> CONTEXT PATH. */
static void traces(const char *dir, const struct file *f, uint64_t pp,
		   unsigned szp)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/trace.db", dir);
	FILE *probe = fopen(path, "rb");
	if (!probe)
		return; /* no samples */
	fclose(probe);
	struct file t = slurp(dir, "trace.db");
	uint64_t s = get(&t, 0x18, 8);
	uint64_t pt = get(&t, s, 8), nt = get(&t, s + 8, 4);
	unsigned szt = t.p[s + 0xc];
	for (uint64_t i = 0; i < nt; i++) {
		uint64_t e = pt + i * szt;
		char who[1024];
		who_of(f, pp + get(&t, e, 4) * szp, who, sizeof who);
		for (uint64_t x = get(&t, e + 8, 8); x < get(&t, e + 16, 8);
		     x += 12) {
			const struct ctx *cx = ctx_of((uint32_t)get(&t, x + 8, 4));
			printf("%s\t%llu\t%s\n", who,
			       (unsigned long long)get(&t, x, 8),
			       cx ? cx->path : "?");
		}
	}
	free(t.p);
}

int main(int argc, char **argv)
{
	int trace = argc == 3 && !strcmp(argv[1], "-t");
	lexaware = argc == 3 && !strcmp(argv[1], "-l");
	scopelist = argc == 3 && !strcmp(argv[1], "-m");
	if (argc != 2 + (trace || lexaware || scopelist))
		die("usage: v4_scopes [-t|-l|-m] DB");
	const char *dir = argv[argc - 1];
	read_meta(dir);
	qsort(ctxs, nctx, sizeof(*ctxs), cmp_ctx);
	struct file f = slurp(dir, "profile.db");
	uint64_t s = get(&f, 0x18, 8);
	uint64_t pp = get(&f, s, 8), np = get(&f, s + 8, 4);
	unsigned szp = f.p[s + 0xc];
	if (trace) {
		traces(dir, &f, pp, szp);
		np = 0;
	}
	for (uint64_t i = 0; i < np; i++) {
		uint64_t e = pp + i * szp;
		char who[1024];
		who_of(&f, e, who, sizeof who);
		uint64_t nv = get(&f, e, 8), pv = get(&f, e + 8, 8);
		uint64_t nc = get(&f, e + 0x10, 4), pc = get(&f, e + 0x18, 8);
		for (uint64_t k = 0; k < nc; k++) {
			uint32_t id = (uint32_t)get(&f, pc + 12 * k, 4);
			uint64_t a = get(&f, pc + 12 * k + 4, 8);
			uint64_t z = k + 1 < nc ? get(&f, pc + 12 * k + 16, 8) : nv;
			const struct ctx *cx = ctx_of(id);
			if (!cx)
				continue; /* elided: hidden from the viewers */
			for (uint64_t v = a; v < z; v++) {
				uint16_t mid = (uint16_t)get(&f, pv + 10 * v, 2);
				if (prop[mid].scope < 0)
					continue;
				uint64_t u = get(&f, pv + 10 * v + 2, 8);
				double d;
				memcpy(&d, &u, sizeof d);
				printf("%s\t%s\t%s\t%s\t%.17g%s%s\n", who,
				       cx->path, prop[mid].name,
				       scope_name[prop[mid].scope],
				       d, *cx->fn ? "\t" : "", cx->fn);
			}
		}
	}
	free(f.p);
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}
