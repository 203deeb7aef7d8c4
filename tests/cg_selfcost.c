/* Test helper: reads Callgrind files through the importer and prints
 * what callgrind_annotate can be compared with, from the context tree:
 *   T <metric> <total over the tree>
 *   S <file>:<function>\t<exclusive costs...>     (rounded)
 * With --edges ANNOTATED (the tree built without a context budget):
 * reads callgrind_annotate's call edges
 * ("caller\tcallee\tcosts...", one per line), and checks that every edge
 * outside a recursive cycle has the same inclusive cost in the tree
 * (sum over the contexts created for it) but for one unit per context
 * beyond the first (whole-number shares, importers/callgrind_round.c);
 * prints mismatches, exit 1. --compare-edges A B NM [INPUT...]: the
 * edges of two annotations agree (INPUT's tree, built whole, gives
 * each edge's slack). */
#include "pc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *ctx_file(const struct pc_db *db, pc_id c)
{
	const struct pc_context *x = &db->contexts[c];
	if (x->kind == PC_CTX_INSTRUCTION && x->parent &&
	    db->contexts[x->parent].kind == PC_CTX_LINE)
		x = &db->contexts[x->parent];
	if (x->kind == PC_CTX_LINE && x->file != PC_NONE)
		return db->files[x->file].path;
	return NULL;
}

/* nearest function context at or above c */
static pc_id func_ctx(const struct pc_db *db, pc_id c)
{
	while (c && db->contexts[c].kind != PC_CTX_FUNCTION)
		c = db->contexts[c].parent;
	return c;
}

static char *key_of(const struct pc_db *db, const char *file, pc_id fctx)
{
	const struct pc_function *f =
		&db->functions[db->contexts[fctx].function];
	if (!file)
		file = f->file != PC_NONE ? db->files[f->file].path : "???";
	size_t n = strlen(file) + strlen(f->name) + 2;
	char *k = malloc(n);
	snprintf(k, n, "%s:%s", file, f->name);
	return k;
}

struct row {
	char *key;
	double *v;
};

static int row_cmp(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->key, ((const struct row *)b)->key);
}

/* sorted rows with equal keys summed */
static size_t merge_rows(struct row *r, size_t n, size_t nm)
{
	qsort(r, n, sizeof(*r), row_cmp);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (out && !strcmp(r[out - 1].key, r[i].key)) {
			for (size_t m = 0; m < nm; m++)
				r[out - 1].v[m] += r[i].v[m];
			free(r[i].key);
			free(r[i].v);
		} else {
			r[out++] = r[i];
		}
	}
	return out;
}

/* Does an edge's inclusive cost match? Cache-simulation counts can be
 * larger on a call edge than inside the callee (valgrind books a miss at
 * the call); the tree cannot invent cost there without breaking the
 * totals, so a shortfall of 2 events or 0.1% is allowed, and said. */
static int edge_close(const char *key, size_t m, double want, double got,
		      double slack)
{
	if (fabs(want - got) <= 1e-6 * (fabs(want) + 1))
		return 1;
	/* whole-number shares: each context of the edge is its real share
	 * rounded down or up, so k contexts are at most k-1 units off */
	if (fabs(want - got) <= slack + 1e-6 * (fabs(want) + 1)) {
		printf("# %s metric %zu: %.0f unit(s) off over %.0f contexts "
		       "(whole-number shares)\n", key, m, fabs(want - got),
		       slack + 1);
		return 1;
	}
	if (got < want && want - got <= fmax(2, want * 1e-3)) {
		printf("# %s metric %zu: callee's own cost is %.0f short of "
		       "the edge's\n", key, m, want - got);
		return 1;
	}
	return 0;
}

/* callgrind_annotate's call edges: "caller\tcallee\tcosts..." */
static struct row *load_edges(const char *path, size_t nm, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return NULL;
	}
	struct row *ae = NULL;
	size_t nae = 0, capae = 0;
	char line[8192];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *t1 = strchr(line, '\t');
		char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2)
			continue;
		*t2 = 0;
		PC_GROW(ae, nae, capae);
		ae[nae].key = strdup(line);
		ae[nae].v = calloc(nm, sizeof(double));
		char *s = t2 + 1;
		for (size_t m = 0; m < nm; m++)
			ae[nae].v[m] = strtod(s, &s);
		nae++;
	}
	fclose(f);
	*n = merge_rows(ae, nae, nm);
	return ae;
}

/* Which edges lie on a recursive cycle: reachability by repeated
 * relaxation over function names (small graphs only: tests). */
struct cycles {
	size_t nf;
	size_t (*ed)[2];
	char *reach;
};

static void find_cycles(struct cycles *c, const struct row *ae, size_t nae)
{
	char **fn = NULL;
	size_t capf = 0;
	c->nf = 0;
	c->ed = malloc((nae + 1) * sizeof(*c->ed));
	for (size_t i = 0; i < nae; i++) {
		char *tab = strchr(ae[i].key, '\t');
		char *names[2] = { strndup(ae[i].key, (size_t)(tab - ae[i].key)),
				   strdup(tab + 1) };
		for (int s = 0; s < 2; s++) {
			size_t j;
			for (j = 0; j < c->nf && strcmp(fn[j], names[s]); j++)
				;
			if (j == c->nf) {
				PC_GROW(fn, c->nf, capf);
				fn[c->nf++] = names[s];
			} else {
				free(names[s]);
			}
			c->ed[i][s] = j;
		}
	}
	size_t nf = c->nf;
	c->reach = calloc(nf * nf + 1, 1);
	for (size_t i = 0; i < nae; i++)
		c->reach[c->ed[i][0] * nf + c->ed[i][1]] = 1;
	for (size_t k = 0; k < nf; k++)
		for (size_t i = 0; i < nf; i++)
			if (c->reach[i * nf + k])
				for (size_t j = 0; j < nf; j++)
					if (c->reach[k * nf + j])
						c->reach[i * nf + j] = 1;
}

static int in_cycle(const struct cycles *c, size_t edge)
{
	return c->reach[c->ed[edge][1] * c->nf + c->ed[edge][0]];
}

/* the slack of an edge: its contexts in the tree, less one */
static double slack_of(const struct row *te, size_t nte, const char *key,
		       size_t nm)
{
	struct row k = { (char *)key, NULL };
	const struct row *t = te ? bsearch(&k, te, nte, sizeof(*te), row_cmp) :
				   NULL;
	return t && t->v[nm] > 1 ? t->v[nm] - 1 : 0;
}

/* --compare-edges A B NM: the edges of A outside recursive cycles have
 * the same inclusive costs in B (both from callgrind_annotate). */
static int compare_edges(const char *a, const char *b, size_t nm,
			 const struct row *te, size_t nte)
{
	size_t na, nb;
	struct row *ea = load_edges(a, nm, &na), *eb = load_edges(b, nm, &nb);
	if (!ea || !eb)
		return 1;
	struct cycles cy;
	find_cycles(&cy, ea, na);
	int bad = 0;
	size_t checked = 0;
	for (size_t i = 0; i < na; i++) {
		if (in_cycle(&cy, i))
			continue;
		struct row key = { ea[i].key, NULL };
		struct row *t = bsearch(&key, eb, nb, sizeof(*eb), row_cmp);
		for (size_t m = 0; m < nm; m++) {
			double want = ea[i].v[m], got = t ? t->v[m] : 0;
			if (t && edge_close(ea[i].key, m, want, got,
					    slack_of(te, nte, ea[i].key, nm)))
				continue;
			printf("edge %s metric %zu: %.0f, then %.0f\n",
			       ea[i].key, m, want, got);
			bad = 1;
		}
		checked++;
	}
	printf("%zu edges outside cycles of %zu keep their inclusive costs\n",
	       checked, na);
	return bad;
}

/* The tree's call edges: caller key (site file) + callee key, their
 * inclusive costs and (v[nm]) the number of contexts they have. */
static struct row *tree_edges(struct pc_db *db, const double *incl,
			      size_t nm, size_t *nout)
{
	struct row *te = NULL;
	size_t nte = 0, capte = 0;
	for (pc_id c = 1; c < db->ncontexts; c++) {
		const struct pc_context *x = &db->contexts[c];
		if (x->kind != PC_CTX_FUNCTION || x->rel != PC_REL_CALL)
			continue;
		pc_id caller = func_ctx(db, x->parent);
		if (!caller)
			continue;
		char *a = key_of(db, ctx_file(db, x->parent), caller);
		char *b = key_of(db, NULL, c);
		PC_GROW(te, nte, capte);
		size_t n = strlen(a) + strlen(b) + 2;
		te[nte].key = malloc(n);
		snprintf(te[nte].key, n, "%s\t%s", a, b);
		te[nte].v = malloc((nm + 1) * sizeof(double));
		memcpy(te[nte].v, incl + (size_t)c * nm, nm * sizeof(double));
		te[nte].v[nm] = 1;
		nte++;
		free(a);
		free(b);
	}
	*nout = merge_rows(te, nte, nm + 1);
	return te;
}

static int check_edges(struct pc_db *db, const char *path, double *incl,
		       size_t nm)
{
	size_t nte;
	struct row *te = tree_edges(db, incl, nm, &nte);

	size_t nae;
	struct row *ae = load_edges(path, nm, &nae);
	if (!ae)
		return 1;
	struct cycles cy;
	find_cycles(&cy, ae, nae);
	int bad = 0;
	size_t checked = 0;
	for (size_t i = 0; i < nae; i++) {
		if (in_cycle(&cy, i))
			continue; /* in a recursive cycle */
		struct row key = { ae[i].key, NULL };
		struct row *t = bsearch(&key, te, nte, sizeof(*te), row_cmp);
		for (size_t m = 0; m < nm; m++) {
			double want = ae[i].v[m], got = t ? t->v[m] : 0;
			if (edge_close(ae[i].key, m, want, got,
				       t && t->v[nm] > 1 ? t->v[nm] - 1 : 0))
				continue;
			{
				printf("edge %s metric %zu: annotate %.0f, "
				       "tree %.6f\n", ae[i].key, m, want, got);
				bad = 1;
			}
		}
		checked++;
	}
	printf("checked %zu edges outside cycles of %zu\n", checked, nae);
	return bad;
}

int main(int argc, char **argv)
{
	const char *edges = NULL, *cmp_a = NULL, *cmp_b = NULL;
	int i = 1;
	if (argc == 5 && !strcmp(argv[1], "--compare-edges"))
		return compare_edges(argv[2], argv[3],
				     (size_t)strtoul(argv[4], NULL, 10), NULL, 0);
	if (argc > 5 && !strcmp(argv[1], "--compare-edges")) {
		/* the inputs' tree says how many contexts each edge has */
		cmp_a = argv[2];
		cmp_b = argv[3];
		edges = "";
		i = 5;
	}
	if (argc > 2 && !strcmp(argv[1], "--edges")) {
		edges = argv[2];
		i = 3;
	}
	struct pc_diag diag = { .quiet = 1 };
	struct pc_db *db = pc_db_new(&diag);
	const struct pc_importer *im = pc_importer_find("callgrind");
	struct pc_err err = { 0 };
	/* edges are exact where the tree expands them: all of it here */
	struct pc_import_opts full = { .max_contexts = (size_t)1 << 30 };
	for (; i < argc; i++)
		if (im->read(db, argv[i], edges ? &full : NULL, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return 2;
		}
	pc_values_finish(db);
	/* the events (the calls metric comes after them, and annotate does
	 * not list it) */
	size_t nm = db->nmetrics;
	if (nm > 1 && !strcmp(db->metrics[nm - 1].name, PC_CALLS_METRIC))
		nm--;
	/* inclusive per context (children have larger ids than parents) */
	double *incl = calloc(db->ncontexts * nm + 1, sizeof(double));
	for (size_t k = 0; k < db->nvalues; k++)
		if (db->values[k].metric < nm)
			incl[(size_t)db->values[k].ctx * nm +
			     db->values[k].metric] += db->values[k].value;
	double *self = malloc((db->ncontexts * nm + 1) * sizeof(double));
	memcpy(self, incl, db->ncontexts * nm * sizeof(double));
	for (size_t c = db->ncontexts; c-- > 1;)
		for (size_t m = 0; m < nm; m++)
			incl[(size_t)db->contexts[c].parent * nm + m] +=
				incl[c * nm + m];
	if (cmp_a) {
		size_t nte;
		struct row *te = tree_edges(db, incl, nm, &nte);
		return compare_edges(cmp_a, cmp_b,
				     (size_t)strtoul(argv[4], NULL, 10), te, nte);
	}
	if (edges)
		return check_edges(db, edges, incl, nm);

	for (size_t m = 0; m < nm; m++)
		printf("T %s %.0f\n", db->metrics[m].name, incl[m]);
	struct row *rows = NULL;
	size_t nrows = 0, caprows = 0;
	for (pc_id c = 1; c < db->ncontexts; c++) {
		int any = 0;
		for (size_t m = 0; m < nm; m++)
			any |= self[(size_t)c * nm + m] != 0;
		if (!any)
			continue;
		pc_id fc = func_ctx(db, c);
		if (!fc)
			continue;
		PC_GROW(rows, nrows, caprows);
		rows[nrows].key = key_of(db, ctx_file(db, c), fc);
		rows[nrows].v = malloc(nm * sizeof(double));
		memcpy(rows[nrows].v, self + (size_t)c * nm, nm * sizeof(double));
		nrows++;
	}
	nrows = merge_rows(rows, nrows, nm);
	for (size_t r = 0; r < nrows; r++) {
		int any = 0;
		for (size_t m = 0; m < nm; m++)
			any |= llround(rows[r].v[m]) != 0;
		if (!any)
			continue;
		printf("S %s\t", rows[r].key);
		for (size_t m = 0; m < nm; m++)
			printf("%s%lld", m ? " " : "", llround(rows[r].v[m]));
		putchar('\n');
	}
	return 0;
}
