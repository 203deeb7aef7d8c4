/* Writes a large, realistic Callgrind profile to stdout for the
 * benchmarks: name compression, instruction + line positions with
 * relative subpositions, many objects, files and functions, and a call
 * graph shaped like real programs': a deep random tree; an interpreter
 * loop (a ring of eval functions that 1 in 25 functions call back into,
 * so most of the program is one big recursive cluster, as in CPython);
 * a few allocator-like callees called from a quarter of all functions
 * (hundreds of thousands of callers); back edges to an ancestor a few
 * levels up (mutually recursive clusters, as in a compiler's tree
 * walkers); self-recursion. calls= lines with inclusive costs derived
 * from the self costs, jumps, and fi/fe inlined regions.
 *   gen_callgrind NFUNCS LINES_PER_FUNC [SEED] > callgrind.out.bench */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;
static uint64_t rnd(void)
{
	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return state >> 33;
}

#define NEV 3

struct fn {
	int parent;        /* tree caller, -1 for the root */
	int extra[8];      /* shared callees, back edges, eval */
	int nextra;
	int recursive;
	int obj, file;
	uint64_t self[NEV];
	uint64_t incl[NEV];
	uint64_t base;     /* first instruction address */
	int line;
	int *kids;
	int nkids, capkids;
	int ncallers;
};

/* The inclusive cost of a call from i to t: a share of t's inclusive
 * cost; a call back up the tree (a cycle) costs a quarter of t's own. */
static uint64_t edge_cost(const struct fn *f, int i, int t, int e)
{
	if (t <= i)
		return f[t].self[e] / 4;
	return f[t].incl[e] / (uint64_t)f[t].ncallers;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen_callgrind NFUNCS LINES [SEED]\n");
		return 2;
	}
	int n = atoi(argv[1]), lines = atoi(argv[2]);
	state = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
	int nobj = 40, nfile = n / 8 + 1;
	struct fn *f = calloc((size_t)n, sizeof(*f));
	for (int i = 0; i < n; i++) {
		/* callers are chosen among recent functions: deep chains */
		f[i].parent = i ? (int)(i - 1 - rnd() % (i < 64 ? i : 64)) : -1;
		f[i].obj = (int)(rnd() % nobj);
		f[i].file = (int)(rnd() % nfile);
		f[i].base = 0x400000 + (uint64_t)i * 0x1000;
		f[i].line = 10 + (int)(rnd() % 2000);
		f[i].recursive = rnd() % 50 == 0;
	}
	for (int i = 0; i < n; i++) {
		if (f[i].parent >= 0) {
			struct fn *p = &f[f[i].parent];
			if (p->nkids == p->capkids) {
				p->capkids = p->capkids ? 2 * p->capkids : 4;
				p->kids = realloc(p->kids, sizeof(int) * (size_t)p->capkids);
			}
			p->kids[p->nkids++] = i;
			f[i].ncallers = 1;
		}
	}
	/* a few shared leaf-ish callees (like libc helpers) */
	for (int i = 0; i < n; i++)
		if (rnd() % 10 == 0 && i + 1 < n) {
			int t = i + 1 + (int)(rnd() % (uint64_t)(n - i - 1 < 1000 ? n - i - 1 : 1000));
			if (f[t].nkids == 0 && f[t].ncallers < 3) {
				f[i].extra[f[i].nextra++] = t;
				f[t].ncallers++;
			}
		}
	/* the shapes of real programs (see the top): functions 1..NEVAL
	 * form the interpreter's eval ring, the last NALLOC functions are
	 * allocator-like leaves */
	enum { NEVAL = 12, NALLOC = 4 };
	if (n > 4 * (NEVAL + NALLOC)) {
		for (int i = 1; i <= NEVAL; i++) {
			int t = i % NEVAL + 1; /* ring: eval_i -> eval_i+1 */
			f[i].extra[f[i].nextra++] = t;
			f[t].ncallers++;
		}
		for (int i = NEVAL + 1; i < n - NALLOC; i++) {
			struct fn *x = &f[i];
			if (rnd() % 25 == 0 && x->nextra < 8) {
				x->extra[x->nextra++] = 1 + (int)(rnd() % NEVAL);
				f[x->extra[x->nextra - 1]].ncallers++;
			}
			if (rnd() % 4 == 0 && x->nextra < 8) {
				int t = n - NALLOC + (int)(rnd() % NALLOC);
				x->extra[x->nextra++] = t;
				f[t].ncallers++;
			}
			if (rnd() % 100 == 0 && x->nextra < 8) {
				int a = i;
				for (int up = 2 + (int)(rnd() % 8); up && f[a].parent > NEVAL; up--)
					a = f[a].parent;
				if (a != i) {
					x->extra[x->nextra++] = a;
					f[a].ncallers++;
				}
			}
		}
		for (int i = n - NALLOC; i < n; i++)
			f[i].nkids = 0; /* leaves: their tree children are dropped */
	}
	/* self costs, then inclusive bottom-up; a shared callee's inclusive
	 * cost is split evenly over its callers */
	uint64_t *cost = malloc(sizeof(uint64_t) * (size_t)n * (size_t)lines * NEV);
	for (int i = 0; i < n; i++)
		for (int l = 0; l < lines; l++)
			for (int e = 0; e < NEV; e++) {
				uint64_t c = e == 0 ? 1 + rnd() % 5000 : rnd() % 2000;
				cost[((size_t)i * lines + l) * NEV + e] = c;
				f[i].self[e] += c;
			}
	for (int i = n - 1; i >= 0; i--) {
		for (int e = 0; e < NEV; e++) {
			f[i].incl[e] += f[i].self[e];
			if (f[i].recursive)
				f[i].incl[e] += f[i].self[e] / 2 * 0; /* folded */
		}
		for (int k = 0; k < f[i].nkids; k++)
			for (int e = 0; e < NEV; e++)
				f[i].incl[e] += f[f[i].kids[k]].incl[e] /
						(uint64_t)f[f[i].kids[k]].ncallers +
						f[f[i].kids[k]].incl[e] %
						(uint64_t)f[f[i].kids[k]].ncallers;
		for (int k = 0; k < f[i].nextra; k++)
			for (int e = 0; e < NEV; e++)
				f[i].incl[e] += edge_cost(f, i, f[i].extra[k], e);
	}
	printf("# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
	       "pid: 4242\ncmd: ./bench-app --large\npart: 1\n\n"
	       "desc: I1 cache: \ndesc: D1 cache: \ndesc: LL cache: \n\n"
	       "positions: instr line\nevent: Ir : Instruction Fetches\n"
	       "events: Ir Dr Dw\n");
	uint64_t tot[NEV] = { 0 };
	for (int i = 0; i < n; i++)
		for (int e = 0; e < NEV; e++)
			tot[e] += f[i].self[e];
	printf("summary: %" PRIu64 " %" PRIu64 " %" PRIu64 "\n\n", tot[0], tot[1], tot[2]);
	char *defobj = calloc((size_t)nobj, 1), *deffile = calloc((size_t)nfile, 1);
	char *deffn = calloc((size_t)n, 1);
	for (int i = 0; i < n; i++) {
		struct fn *x = &f[i];
		if (defobj[x->obj]) printf("ob=(%d)\n", x->obj + 1);
		else { printf("ob=(%d) /usr/lib/bench/libmod%d.so\n", x->obj + 1, x->obj); defobj[x->obj] = 1; }
		if (deffile[x->file]) printf("fl=(%d)\n", x->file + 1);
		else { printf("fl=(%d) /home/user/src/module%d/file%d.c\n", x->file + 1, x->file % 97, x->file); deffile[x->file] = 1; }
		if (deffn[i]) printf("fn=(%d)\n", i + 1);
		else { printf("fn=(%d) bench_function_%d_compute\n", i + 1, i); deffn[i] = 1; }
		uint64_t addr = x->base;
		int line = x->line;
		printf("0x%" PRIx64 " %d", addr, line);
		uint64_t *c = &cost[(size_t)i * lines * NEV];
		printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", c[0], c[1], c[2]);
		int calls_at = lines / 2;
		for (int l = 1; l < lines; l++) {
			c = &cost[((size_t)i * lines + l) * NEV];
			int da = 1 + (int)(rnd() % 7), dl = (int)(rnd() % 3);
			if (l == lines / 3 && lines > 6) {
				int g = (x->file + 1) % nfile;
				if (deffile[g])
					printf("fi=(%d)\n", g + 1);
				else
					printf("fi=(%d) /home/user/src/module%d/file%d.c\n", g + 1, g % 97, g);
				deffile[g] = 1;
			}
			if (l == lines / 3 + 2 && lines > 6)
				printf("fe=(%d)\n", x->file + 1);
			addr += (uint64_t)da;
			if (dl)
				printf("+%d +%d", da, dl);
			else
				printf("+%d *", da);
			if (c[2])
				printf(" %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", c[0], c[1], c[2]);
			else if (c[1])
				printf(" %" PRIu64 " %" PRIu64 "\n", c[0], c[1]);
			else
				printf(" %" PRIu64 "\n", c[0]);
			if (l % 16 == 0)
				printf("jump=%d +%d +1\n* *\n", 1 + (int)(rnd() % 9), 2);
			if (l == calls_at) {
				for (int k = 0; k < x->nkids + x->nextra; k++) {
					int t = k < x->nkids ? x->kids[k] : x->extra[k - x->nkids];
					struct fn *y = &f[t];
					if (y->obj != x->obj && defobj[y->obj])
						printf("cob=(%d)\n", y->obj + 1);
					else if (y->obj != x->obj)
						printf("cob=(%d) /usr/lib/bench/libmod%d.so\n", y->obj + 1, y->obj);
					defobj[y->obj] = 1;
					if (y->file != x->file) {
						if (deffile[y->file]) printf("cfi=(%d)\n", y->file + 1);
						else { printf("cfi=(%d) /home/user/src/module%d/file%d.c\n", y->file + 1, y->file % 97, y->file); deffile[y->file] = 1; }
					}
					if (deffn[t]) printf("cfn=(%d)\n", t + 1);
					else { printf("cfn=(%d) bench_function_%d_compute\n", t + 1, t); deffn[t] = 1; }
					uint64_t share[NEV];
					for (int e = 0; e < NEV; e++)
						share[e] = k < x->nkids ?
							y->incl[e] / (uint64_t)y->ncallers +
							y->incl[e] % (uint64_t)y->ncallers :
							edge_cost(f, i, t, e);
					printf("calls=%d 0x%" PRIx64 " %d\n* * %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
					       1 + (int)(rnd() % 100), y->base, y->line, share[0], share[1], share[2]);
				}
				if (x->recursive) {
					printf("cfn=(%d)\ncalls=3 0x%" PRIx64 " %d\n* * %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
					       i + 1, x->base, x->line, x->self[0] / 2, x->self[1] / 2, x->self[2] / 2);
				}
			}
		}
		printf("\n");
	}
	printf("totals: %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", tot[0], tot[1], tot[2]);
	free(cost);
	free(defobj);
	free(deffile);
	free(deffn);
	return 0;
}
