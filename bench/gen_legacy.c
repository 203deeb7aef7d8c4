/* Writes a synthetic old-format HPCToolkit database ("prof2":
 * experiment.xml 4.0 + big-endian HPCPROF-*.db, version bytes 1.0) for
 * the legacy-importer benchmark:
 *   gen_legacy DIR NPROFILES NCONTEXTS [SEED]
 * NPROFILES measured threads (profile 0, the summary, comes on top) and
 * about NCONTEXTS contexts with values (XML elements with a positive i).
 *
 * The tree: <program root> calls main; every function has a fixed body
 * (statements on distinct lines, loops nested up to two deep, call sites
 * in and out of loops) and calls functions of higher index, a shared set
 * of library leaves (<unknown file> [libm.so.6]) and, for one function in
 * four, itself (recursion up to 3..8 deep). The calling-context tree is
 * expanded breadth-first until NCONTEXTS is reached; calls beyond it are
 * left out. Context ids are DFS preorder (parent < child), it = i on C
 * and S.
 *
 * Values: one metric, CPUTIME (sec), stored as MetricDB "(E)" id 1 and
 * "(I)" id 2 (profiles >= 1) and as the hidden MetricTable ids 256/512
 * (profile 0 = the exact sum of the others). Each statement gets a cost
 * per profile (a hash of seed, profile, id; about a third are zero), in
 * multiples of 2^-10 s so that every sum is exact. E of S = its cost;
 * E of L and PF = sum of the costs of the statements in the frame below
 * it (not across calls); C has only I; I of every node (root ctx 0
 * included) = sum of the statement costs in its subtree.
 *
 * trace.db: 2000..2999 samples per profile, times increasing, each
 * sample the it of a statement that has a cost in that profile. cct.db:
 * a valid header and Context Info for every id 0..n-1, no values (real
 * prof2 files hold only zeros there). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Buffered big-endian output.                                        */

static unsigned char obuf[1 << 20];
static size_t on;
static uint64_t opos; /* file offset of obuf[0] + on */
static FILE *out;
static const char *opath;

static void die(const char *what)
{
	fprintf(stderr, "gen_legacy: %s\n", what);
	exit(1);
}

static void oflush(void)
{
	if (on && fwrite(obuf, 1, on, out) != on)
		die(opath);
	on = 0;
}

static void oopen(const char *dir, const char *name)
{
	static char p[4200];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	opath = p;
	out = fopen(p, "wb");
	if (!out)
		die(p);
	on = 0;
	opos = 0;
}

static void oclose(void)
{
	oflush();
	if (fclose(out))
		die(opath);
}

static inline unsigned char *oroom(size_t n)
{
	if (on + n > sizeof obuf)
		oflush();
	unsigned char *p = obuf + on;
	on += n;
	opos += n;
	return p;
}

static inline void be_put(unsigned char *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static inline void u16(uint64_t v) { be_put(oroom(2), v, 2); }
static inline void u32(uint64_t v) { be_put(oroom(4), v, 4); }
static inline void u64(uint64_t v) { be_put(oroom(8), v, 8); }
static void bytes(const void *s, size_t n)
{
	if (n <= sizeof obuf / 4) {
		memcpy(oroom(n), s, n);
		return;
	}
	oflush();
	if (fwrite(s, 1, n, out) != n)
		die(opath);
	opos += n;
}
static void zeros(uint64_t n)
{
	while (n--)
		*oroom(1) = 0;
}
static void align8(void) { zeros((8 - opos % 8) % 8); }

/* Rewrites n bytes at offset off (after the data is flushed). */
static void patch(uint64_t off, const unsigned char *p, size_t n)
{
	oflush();
	if (fseek(out, (long)off, SEEK_SET) || fwrite(p, 1, n, out) != n ||
	    fseek(out, 0, SEEK_END))
		die(opath);
}

/* HPCPROF header: magic, version 1.0, count, sections {size, ptr}. */
static void header(const char *magic, uint32_t count, int nsec,
		   const uint64_t *sec)
{
	unsigned char h[128] = { 0 };
	memcpy(h, magic, 16);
	h[16] = 1;
	h[17] = 0;
	be_put(h + 18, count, 4);
	be_put(h + 22, (uint64_t)nsec, 2);
	for (int i = 0; i < 2 * nsec; i++)
		be_put(h + 24 + 8 * i, sec[i], 8);
	if (opos == 0)
		bytes(h, sizeof h);
	else
		patch(0, h, sizeof h);
}

/* ------------------------------------------------------------------ */
/* Random numbers: a hash of the inputs (order-independent).          */

static uint64_t seed;

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t h3(uint64_t a, uint64_t b, uint64_t c)
{
	return mix(seed ^ mix(a ^ mix(b ^ mix(c))));
}

/* ------------------------------------------------------------------ */
/* Functions and their bodies.                                        */

enum { OP_S, OP_LB, OP_LE, OP_C };
struct op {
	uint8_t kind;
	uint32_t line;
	uint32_t callee;
};

struct func {
	struct op *ops;
	uint32_t nops, size; /* size: nodes one instance makes */
	uint32_t file;       /* FileTable id */
	uint32_t lm;         /* LoadModuleTable id */
	uint32_t proc;       /* ProcedureTable id */
	uint32_t line;       /* first line */
	uint64_t addr;
	int lib;             /* library leaf, <unknown file> */
	int maxrec;          /* self-recursion depth, 0: none */
};

static struct func *fn;
static uint32_t nfunc, nlib, nfiles;

#define LIB_FILE 2147483646u /* "<unknown file> [libm-2.28.so]" */
#define UNK_FILE 2147483647u
#define PROC_PARTIAL 1u
#define PROC_ROOT 3u
#define PROC_BASE 10u
#define LM_APP 1u
#define LM_LIB 7u

static void push_op(struct func *f, uint32_t *cap, int kind, uint32_t line,
		    uint32_t callee)
{
	if (f->nops == *cap) {
		*cap = *cap ? 2 * *cap : 32;
		f->ops = realloc(f->ops, *cap * sizeof(*f->ops));
		if (!f->ops)
			die("out of memory");
	}
	f->ops[f->nops++] = (struct op){ (uint8_t)kind, line, callee };
	if (kind != OP_LE)
		f->size++;
}

static uint32_t pick_callee(uint32_t k, uint64_t r)
{
	uint32_t napp = nfunc - nlib;
	if (r % 4 == 0 || k + 1 >= napp)
		return napp + (uint32_t)((r >> 8) % nlib);
	uint32_t span = napp - k - 1 < 6 ? napp - k - 1 : 6;
	return k + 1 + (uint32_t)((r >> 8) % span);
}

static void make_funcs(uint32_t ncontexts)
{
	nfunc = 64 + ncontexts / 2000;
	if (nfunc > 3000)
		nfunc = 3000;
	nlib = nfunc / 10;
	nfiles = 1 + (nfunc - nlib) / 8;
	fn = calloc(nfunc, sizeof(*fn));
	if (!fn)
		die("out of memory");
	for (uint32_t k = 0; k < nfunc; k++) {
		struct func *f = &fn[k];
		uint32_t cap = 0;
		uint64_t r = h3(1, k, 0);
		f->proc = PROC_BASE + k;
		f->lib = k >= nfunc - nlib;
		if (f->lib) {
			/* a leaf without line information: instructions */
			f->file = LIB_FILE;
			f->lm = LM_LIB;
			f->line = 0;
			f->addr = 0x1e000 + 0x140 * (uint64_t)k;
			int ns = 1 + (int)(r % 4);
			for (int i = 0; i < ns; i++)
				push_op(f, &cap, OP_S, 0, 0);
			continue;
		}
		f->file = k / 8;
		f->lm = LM_APP;
		f->line = 20 + 150 * (k % 8);
		f->addr = 0x401000 + 0x400 * (uint64_t)k;
		f->maxrec = k % 4 == 1 ? 3 + (int)(k % 6) : 0;
		uint32_t line = f->line + 2;
		int nitems = 4 + (int)(r % 9), ncalls = 0;
		int maxcalls = k + 1 >= nfunc - nlib ? 1 : 2 + (int)((r >> 4) % 4);
		for (int i = 0; i < nitems; i++) {
			uint64_t q = h3(2, k, (uint64_t)i);
			int what = (int)(q % 10);
			if (what < 5) {
				push_op(f, &cap, OP_S, line++, 0);
			} else if (what < 8 && ncalls < maxcalls) {
				ncalls++;
				push_op(f, &cap, OP_C, line++, pick_callee(k, q >> 8));
			} else {
				/* a loop: statements, maybe an inner loop,
				 * maybe a call */
				push_op(f, &cap, OP_LB, line++, 0);
				int n = 2 + (int)((q >> 8) % 5);
				for (int j = 0; j < n; j++)
					push_op(f, &cap, OP_S, line++, 0);
				if ((q >> 16) % 3 == 0) {
					push_op(f, &cap, OP_LB, line++, 0);
					int m = 1 + (int)((q >> 20) % 4);
					for (int j = 0; j < m; j++)
						push_op(f, &cap, OP_S, line++, 0);
					if ((q >> 24) % 2 && ncalls < maxcalls) {
						ncalls++;
						push_op(f, &cap, OP_C, line++,
							pick_callee(k, q >> 28));
					}
					push_op(f, &cap, OP_LE, 0, 0);
				}
				if ((q >> 32) % 2 && ncalls < maxcalls) {
					ncalls++;
					push_op(f, &cap, OP_C, line++,
						pick_callee(k, q >> 36));
				}
				push_op(f, &cap, OP_S, line++, 0);
				push_op(f, &cap, OP_LE, 0, 0);
			}
		}
		/* at least two calls, one into the application (unless
		 * k is the last application function) */
		while (ncalls < 2 && k + 1 < nfunc - nlib)
			push_op(f, &cap, OP_C, line++,
				ncalls++ ? pick_callee(k, h3(8, k, 0))
					 : k + 1 + (uint32_t)(h3(9, k, 0) %
						(nfunc - nlib - k - 1 < 6 ?
						 nfunc - nlib - k - 1 : 6)));
		if (k == 0) {
			/* main: a time-step loop calling the phases */
			push_op(f, &cap, OP_LB, line++, 0);
			push_op(f, &cap, OP_S, line++, 0);
			for (uint32_t j = 1; j <= 6 && j < nfunc - nlib; j++)
				push_op(f, &cap, OP_C, line++, j);
			push_op(f, &cap, OP_S, line++, 0);
			push_op(f, &cap, OP_LE, 0, 0);
		}
		if (f->maxrec)
			push_op(f, &cap, OP_C, line++, k);
	}
}

/* ------------------------------------------------------------------ */
/* The calling-context tree.                                          */

enum { N_ROOT, N_PF, N_C, N_L, N_S };
struct node {
	uint8_t type;
	uint8_t dead;   /* a call site left out (over the budget) */
	uint16_t rec;   /* PF: self-recursion depth; C: the callee's */
	uint32_t func;  /* the enclosing function (PF: its own) */
	uint32_t callee;
	uint32_t line;
	uint32_t first, last, next; /* children (0: none) */
};

static struct node *nd;
static uint32_t nn, capnn;

static uint32_t new_node(uint32_t parent, int type, uint32_t func,
			 uint32_t line)
{
	if (nn == capnn) {
		capnn = capnn ? 2 * capnn : 4096;
		nd = realloc(nd, capnn * sizeof(*nd));
		if (!nd)
			die("out of memory");
	}
	uint32_t x = nn++;
	nd[x] = (struct node){ .type = (uint8_t)type, .func = func,
			       .line = line };
	if (x != parent) {
		if (nd[parent].last)
			nd[nd[parent].last].next = x;
		else
			nd[parent].first = x;
		nd[parent].last = x;
	}
	return x;
}

static uint32_t *queue;
static size_t qhead, qtail, qcap;

static void enqueue(uint32_t c)
{
	if (qtail == qcap) {
		qcap = qcap ? 2 * qcap : 4096;
		queue = realloc(queue, qcap * sizeof(*queue));
		if (!queue)
			die("out of memory");
	}
	queue[qtail++] = c;
}

/* An instance of function k (recursion depth rec) under node parent. */
static void instantiate(uint32_t parent, uint32_t k, uint16_t rec)
{
	const struct func *f = &fn[k];
	uint32_t pf = new_node(parent, N_PF, k, f->line);
	nd[pf].rec = rec;
	uint32_t stack[8];
	int sp = 0;
	uint32_t cur = pf;
	for (uint32_t i = 0; i < f->nops; i++) {
		const struct op *o = &f->ops[i];
		uint32_t c;
		switch (o->kind) {
		case OP_S:
			new_node(cur, N_S, k, o->line);
			break;
		case OP_LB:
			stack[sp++] = cur;
			cur = new_node(cur, N_L, k, o->line);
			break;
		case OP_LE:
			cur = stack[--sp];
			break;
		case OP_C:
			if (o->callee == k && rec + 1 >= f->maxrec)
				break; /* the recursion bottoms out */
			c = new_node(cur, N_C, k, o->line);
			nd[c].callee = o->callee;
			nd[c].rec = o->callee == k ? (uint16_t)(rec + 1) : 0;
			enqueue(c);
			break;
		}
	}
}

/* Breadth-first expansion until about budget live nodes (the root
 * and <program root> included). Returns the live count. */
static uint32_t build_tree(uint32_t budget)
{
	new_node(0, N_ROOT, 0, 0);
	uint32_t proot = new_node(0, N_PF, UINT32_MAX, 0);
	instantiate(proot, 0, 0); /* main, below the wrapper C i="-1" */
	uint32_t live = nn;
	while (qhead < qtail) {
		uint32_t c = queue[qhead++];
		uint32_t k = nd[c].callee;
		if (live + fn[k].size > budget) {
			nd[c].dead = 1;
			live--;
			continue;
		}
		uint32_t before = nn;
		instantiate(c, k, nd[c].rec);
		live += nn - before;
	}
	return live;
}

/* Context ids: DFS preorder of the live nodes. */
static uint32_t *id_of, *node_at, *par, nids;

static void number(uint32_t x, uint32_t parent_id)
{
	uint32_t id = nids++;
	id_of[x] = id;
	node_at[id] = x;
	par[id] = parent_id;
	for (uint32_t c = nd[x].first; c; c = nd[c].next)
		if (!nd[c].dead)
			number(c, id);
}

/* ------------------------------------------------------------------ */
/* Costs.                                                             */

/* Cost of statement id in profile p (>= 1), in units of 2^-10 s. */
static uint64_t cost(uint32_t p, uint32_t id)
{
	uint64_t w = h3(4, id, 0);
	uint64_t h = h3(3, p, id);
	if (h % 3 == 0)
		return 0;
	uint64_t max = 1ull << (w % 9); /* 1..256: hot and cold lines */
	return (h >> 8) % (max + 1);
}

/* ------------------------------------------------------------------ */
/* experiment.xml                                                     */

static const char *const stems[] = {
	"compute", "exchange_halo", "update", "assemble", "solve",
	"reduce", "pack", "unpack", "smooth", "interpolate", "advance",
	"apply_bc", "flux", "residual", "precondition", "restrict",
};

static void fn_name(char *buf, size_t n, uint32_t k)
{
	const struct func *f = &fn[k];
	if (k == 0)
		snprintf(buf, n, "main");
	else if (f->lib && k % 2)
		snprintf(buf, n, "&lt;unknown procedure&gt; 0x%" PRIx64
			 " [libm-2.28.so]", f->addr);
	else if (f->lib)
		snprintf(buf, n, "__ieee754_op%u", k);
	else
		snprintf(buf, n, "%s_%u", stems[k % 16], k);
}

static FILE *xml;

static void xml_node(uint32_t x)
{
	const struct node *n = &nd[x];
	uint32_t id = id_of[x];
	const struct func *f = n->func == UINT32_MAX ? NULL : &fn[n->func];
	uint32_t s = (n->func + 1) * 1000 + n->line % 1000;
	switch (n->type) {
	case N_PF:
		if (!f) { /* <program root> and the wrapper call */
			fprintf(xml, "<PF i=\"%u\" n=\"%u\" s=\"%u\" f=\"%u\" "
				"l=\"0\">\n<C i=\"-%u\" s=\"%u\" v=\"0\" "
				"l=\"0\" it=\"%u\">\n", id, PROC_ROOT,
				PROC_ROOT, UNK_FILE, id, PROC_ROOT, id);
			break;
		}
		fprintf(xml, "<PF i=\"%u\" s=\"%u\" n=\"%u\" v=\"0x%" PRIx64
			"\" f=\"%u\" l=\"%u\" lm=\"%u\">\n", id, f->proc,
			f->proc, f->addr, f->file, f->line, f->lm);
		break;
	case N_C:
		fprintf(xml, "<C i=\"%u\" s=\"%u\" l=\"%u\" v=\"0x%" PRIx64
			"\" it=\"%u\">\n", id, s, n->line,
			f->addr + 4 * (n->line - f->line), id);
		break;
	case N_L:
		fprintf(xml, "<L i=\"%u\" s=\"%u\" v=\"0\" f=\"%u\" l=\"%u\">\n",
			id, s, f->file, n->line);
		break;
	case N_S:
		if (f->lib)
			fprintf(xml, "<S i=\"%u\" s=\"%u\" l=\"0\" v=\"0x%" PRIx64
				"\" it=\"%u\"/>\n", id, s,
				f->addr + 8 * (uint64_t)(id % 16), id);
		else
			fprintf(xml, "<S i=\"%u\" it=\"%u\" l=\"%u\" s=\"%u\" "
				"v=\"0\"/>\n", id, id, n->line, s);
		return;
	}
	for (uint32_t c = n->first; c; c = nd[c].next)
		if (!nd[c].dead)
			xml_node(c);
	fputs(n->type == N_PF ? (f ? "</PF>\n" : "</C>\n</PF>\n") :
	      n->type == N_C ? "</C>\n" : "</L>\n", xml);
}

static void write_xml(const char *dir, uint64_t tmin, uint64_t tmax)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/experiment.xml", dir);
	xml = fopen(p, "w");
	if (!xml)
		die(p);
	static char xbuf[1 << 20];
	setvbuf(xml, xbuf, _IOFBF, sizeof xbuf);
	fputs("<?xml version=\"1.0\"?>\n"
	      "<HPCToolkitExperiment version=\"4.0\">\n"
	      "<Header n=\"bench_app\">\n<Info/>\n</Header>\n"
	      "<SecCallPathProfile i=\"0\" n=\"bench_app\">\n<SecHeader>\n"
	      "<IdentifierNameTable>\n", xml);
	static const char *const kinds[] = { "SUMMARY", "NODE", "RANK",
		"THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE" };
	for (int k = 7; k >= 0; k--)
		fprintf(xml, "<Identifier i=\"%d\" n=\"%s\"/>\n", k, kinds[k]);
	fputs("</IdentifierNameTable>\n<MetricTable>\n"
	      "<Metric i=\"512\" o=\"512\" n=\"CPUTIME (sec):PARTIAL:0 (I)\" md=\"CPUTIME (sec)\" v=\"derived-incr\" t=\"inclusive\" partner=\"256\" show=\"4\" show-percent=\"0\">\n"
	      "<MetricFormula t=\"combine\" frm=\"sum($512, $512)\"/>\n"
	      "<Info><NV n=\"units\" v=\"events\"/></Info>\n</Metric>\n"
	      "<Metric i=\"256\" o=\"256\" n=\"CPUTIME (sec):PARTIAL:0 (E)\" md=\"CPUTIME (sec)\" v=\"derived-incr\" t=\"exclusive\" partner=\"512\" show=\"4\" show-percent=\"0\">\n"
	      "<MetricFormula t=\"combine\" frm=\"sum($256, $256)\"/>\n"
	      "<Info><NV n=\"units\" v=\"events\"/></Info>\n</Metric>\n"
	      "<Metric i=\"767\" o=\"767\" n=\"CPUTIME (sec):Sum (I)\" md=\"CPUTIME (sec)\" v=\"derived-incr\" t=\"inclusive\" partner=\"511\" show=\"1\" show-percent=\"1\">\n"
	      "<MetricFormula t=\"view\" frm=\"$512\"/>\n"
	      "<Info><NV n=\"units\" v=\"events\"/></Info>\n</Metric>\n"
	      "<Metric i=\"511\" o=\"511\" n=\"CPUTIME (sec):Sum (E)\" md=\"CPUTIME (sec)\" v=\"derived-incr\" t=\"exclusive\" partner=\"767\" show=\"1\" show-percent=\"1\">\n"
	      "<MetricFormula t=\"view\" frm=\"$256\"/>\n"
	      "<Info><NV n=\"units\" v=\"events\"/></Info>\n</Metric>\n"
	      "</MetricTable>\n<MetricDBTable>\n"
	      "<MetricDB i=\"2\" n=\"CPUTIME (sec) (I)\"/>\n"
	      "<MetricDB i=\"1\" n=\"CPUTIME (sec) (E)\"/>\n"
	      "</MetricDBTable>\n<TraceDBTable>\n", xml);
	fprintf(xml, "<TraceDB i=\"0\" db-min-time=\"%" PRIu64 "\" "
		"db-max-time=\"%" PRIu64 "\" u=\"1000000000\"/>\n", tmin, tmax);
	fprintf(xml, "</TraceDBTable>\n<LoadModuleTable>\n"
		"<LoadModule i=\"0\" n=\"unknown module\"/>\n"
		"<LoadModule i=\"%u\" n=\"/usr/lib64/libm-2.28.so\"/>\n"
		"<LoadModule i=\"%u\" n=\"/home/user/bench/bench_app\"/>\n"
		"</LoadModuleTable>\n<FileTable>\n"
		"<File i=\"%u\" n=\"&lt;unknown file&gt;\"/>\n"
		"<File i=\"%u\" n=\"&lt;unknown file&gt; [libm-2.28.so]\"/>\n",
		LM_LIB, LM_APP, UNK_FILE, LIB_FILE);
	for (uint32_t i = nfiles; i-- > 0;)
		fprintf(xml, "<File i=\"%u\" n=\"./src/solver/part%u.c\"/>\n",
			i, i);
	fprintf(xml, "</FileTable>\n<ProcedureTable>\n"
		"<Procedure i=\"%u\" n=\"&lt;partial call paths&gt;\" v=\"0\" f=\"1\"/>\n"
		"<Procedure i=\"%u\" n=\"&lt;program root&gt;\" v=\"0\" f=\"1\"/>\n",
		PROC_PARTIAL, PROC_ROOT);
	for (uint32_t k = nfunc; k-- > 0;) {
		char name[256];
		fn_name(name, sizeof name, k);
		fprintf(xml, "<Procedure i=\"%u\" n=\"%s\" v=\"0x%" PRIx64
			"\"%s/>\n", fn[k].proc, name, fn[k].addr,
			fn[k].lib && k % 2 ? " f=\"1\"" : "");
	}
	fputs("</ProcedureTable>\n<Info/>\n</SecHeader>\n"
	      "<SecCallPathProfileData>\n", xml);
	xml_node(1); /* <program root> */
	fputs("</SecCallPathProfileData>\n</SecCallPathProfile>\n"
	      "</HPCToolkitExperiment>\n", xml);
	if (fclose(xml))
		die(p);
}

/* ------------------------------------------------------------------ */
/* profile.db, cct.db, trace.db                                       */

static uint32_t np; /* profiles, the summary included */

/* Measured profile i (>= 1): thread number q; profiles are stored in
 * reverse order (hpcprof does not sort them either). */
static void tuple(uint32_t i, uint32_t tpr)
{
	uint32_t q = np - 1 - i;
	uint32_t rank = q / tpr, thread = q % tpr;
	u16(3);
	u16(0x0001); /* NODE: a host id */
	u64(0xa8c00280u + rank / 8);
	u64(0);
	u16(0xC002);
	u64(rank);
	u64(rank);
	u16(0xC003);
	u64(thread);
	u64(thread);
}

static double *E, *I, *sumE, *sumI;
static unsigned char *vbuf, *cbuf;

/* One value block from E and I (metric ids me, mi); returns nv, nc. */
static void block(const double *e, const double *in, unsigned me,
		  unsigned mi, uint64_t *nv, uint32_t *nc)
{
	uint64_t v = 0;
	uint32_t c = 0;
	for (uint32_t id = 0; id < nids; id++) {
		if (in[id] == 0 && e[id] == 0)
			continue;
		unsigned char *q = cbuf + 12 * (size_t)c++;
		be_put(q, id, 4);
		be_put(q + 4, v, 8);
		uint64_t u;
		if (e[id] != 0) {
			q = vbuf + 10 * v++;
			memcpy(&u, &e[id], 8);
			be_put(q, u, 8);
			be_put(q + 8, me, 2);
		}
		if (in[id] != 0) {
			q = vbuf + 10 * v++;
			memcpy(&u, &in[id], 8);
			be_put(q, u, 8);
			be_put(q + 8, mi, 2);
		}
	}
	be_put(cbuf + 12 * (size_t)c, 0x656E6421, 4);
	be_put(cbuf + 12 * (size_t)c + 4, v, 8);
	bytes(vbuf, 10 * v);
	bytes(cbuf, 12 * ((size_t)c + 1));
	*nv = v;
	*nc = c;
}

static uint64_t write_profile_db(const char *dir)
{
	uint32_t nmeas = np - 1;
	uint32_t tpr = nmeas >= 8 && nmeas % 4 == 0 ? 4 : 1;
	oopen(dir, "profile.db");
	uint64_t sec[4] = { 52 * (uint64_t)np, 128, 0, 0 };
	header("HPCPROF-profdb__", np, 2, sec);
	zeros(52 * (uint64_t)np);
	align8();
	sec[3] = opos;
	uint64_t *tp = calloc(np, sizeof(*tp));
	unsigned char *pi = calloc(np, 52);
	if (!tp || !pi)
		die("out of memory");
	for (uint32_t i = 0; i < np; i++) {
		tp[i] = opos;
		if (i == 0) {
			u16(1);
			u16(0);
			u64(0);
			u64(0);
		} else {
			tuple(i, tpr);
		}
	}
	sec[2] = opos - sec[3];
	E = calloc(nids, 8);
	I = calloc(nids, 8);
	sumE = calloc(nids, 8);
	sumI = calloc(nids, 8);
	vbuf = malloc(20 * (size_t)nids);
	cbuf = malloc(12 * ((size_t)nids + 1));
	if (!E || !I || !sumE || !sumI || !vbuf || !cbuf)
		die("out of memory");
	uint64_t total = 0;
	const double unit = 1.0 / 1024;
	for (uint32_t i = 0; i <= nmeas; i++) {
		uint32_t p = i == nmeas ? 0 : i + 1; /* the summary last */
		if (p) {
			memset(E, 0, 8 * (size_t)nids);
			memset(I, 0, 8 * (size_t)nids);
			for (uint32_t id = nids - 1; id >= 1; id--) {
				int t = nd[node_at[id]].type;
				if (t == N_S)
					E[id] = I[id] = (double)cost(p, id) * unit;
				I[par[id]] += I[id];
				if (t == N_S || t == N_L)
					E[par[id]] += E[id];
				sumE[id] += E[id];
				sumI[id] += I[id];
			}
			sumI[0] += I[0];
		}
		align8();
		uint64_t off = opos, nv;
		uint32_t nc;
		if (p)
			block(E, I, 1, 2, &nv, &nc);
		else
			block(sumE, sumI, 256, 512, &nv, &nc);
		total += nv;
		unsigned char *e = pi + 52 * (size_t)p;
		be_put(e, tp[p], 8);
		be_put(e + 32, nv, 8);
		be_put(e + 40, nc, 4);
		be_put(e + 44, off, 8);
	}
	bytes("tfBDFORP", 8);
	header("HPCPROF-profdb__", np, 2, sec);
	patch(128, pi, 52 * (size_t)np);
	oclose();
	free(tp);
	free(pi);
	return total;
}

static void write_cct_db(const char *dir)
{
	oopen(dir, "cct.db");
	uint64_t sec[2] = { 22 * (uint64_t)nids, 128 };
	header("HPCPROF-cctdb___", nids, 1, sec);
	uint64_t base = 128 + 22 * (uint64_t)nids;
	base += (8 - base % 8) % 8;
	for (uint32_t id = 0; id < nids; id++) {
		u32(id);
		u64(0);
		u16(0);
		u64(base + 10 * (uint64_t)id);
	}
	align8();
	for (uint32_t id = 0; id < nids; id++) {
		u16(0x6564);
		u64(0);
	}
	bytes("rtfBDTCC", 8);
	oclose();
}

static void write_trace_db(const char *dir, uint64_t *tmin, uint64_t *tmax)
{
	uint32_t nmeas = np - 1;
	uint32_t *sids = malloc(nids * sizeof(*sids)), ns = 0;
	if (!sids)
		die("out of memory");
	for (uint32_t id = 0; id < nids; id++)
		if (nd[node_at[id]].type == N_S)
			sids[ns++] = id;
	oopen(dir, "trace.db");
	uint64_t sec[2] = { 22 * (uint64_t)nmeas, 128 };
	header("HPCPROF-tracedb_", nmeas, 1, sec);
	uint64_t at = 128 + 22 * (uint64_t)nmeas;
	at += (8 - at % 8) % 8;
	uint32_t *cnt = malloc(np * sizeof(*cnt));
	for (uint32_t p = 1; p < np; p++) {
		cnt[p] = 2000 + (uint32_t)(h3(5, p, 0) % 1000);
		u32(p);
		u16(0);
		u64(at);
		u64(at + 12 * (uint64_t)cnt[p]);
		at += 12 * (uint64_t)cnt[p];
	}
	align8();
	const uint64_t t0 = 1642362974325469000ull;
	*tmin = UINT64_MAX;
	*tmax = 0;
	for (uint32_t p = 1; p < np; p++) {
		uint64_t t = t0 + 1000 * (uint64_t)p;
		for (uint32_t k = 0; k < cnt[p]; k++) {
			uint64_t h = h3(6, p, k);
			t += 100000 + h % 900000;
			uint32_t s = sids[(h >> 20) % ns];
			for (int tries = 0; tries < 16 && !cost(p, s); tries++)
				s = sids[(h3(7, p, k * 16 + (uint64_t)tries)) % ns];
			u64(t);
			u32(s);
			if (t < *tmin)
				*tmin = t;
			if (t > *tmax)
				*tmax = t;
		}
	}
	oclose();
	free(cnt);
	free(sids);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: gen_legacy DIR NPROFILES NCONTEXTS [SEED]\n");
		return 2;
	}
	const char *dir = argv[1];
	long nprof = atol(argv[2]), nctx = atol(argv[3]);
	if (nprof < 1 || nprof > 1000000 || nctx < 100 || nctx > 100000000) {
		fprintf(stderr, "gen_legacy: NPROFILES 1..10^6, NCONTEXTS 100..10^8\n");
		return 2;
	}
	seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
	np = (uint32_t)nprof + 1;
	mkdir(dir, 0755);
	make_funcs((uint32_t)nctx);
	if (build_tree((uint32_t)nctx) + 100 < (uint32_t)nctx)
		fprintf(stderr, "gen_legacy: the call tree ends before "
			"NCONTEXTS (try another SEED)\n");
	id_of = malloc(nn * sizeof(*id_of));
	node_at = malloc(nn * sizeof(*node_at));
	par = malloc(nn * sizeof(*par));
	if (!id_of || !node_at || !par)
		die("out of memory");
	number(0, 0);
	uint64_t tmin, tmax;
	write_trace_db(dir, &tmin, &tmax);
	write_xml(dir, tmin, tmax);
	write_cct_db(dir);
	uint64_t nv = write_profile_db(dir);
	fprintf(stderr, "gen_legacy: %s: %u profiles + summary, %u contexts "
		"(%u functions), %" PRIu64 " values\n", dir, np - 1, nids,
		nfunc, nv);
	return 0;
}
