/* Old HPCToolkit databases: the derived metrics of experiment.xml's
 * MetricTable (finalize formulas) as metrics/default.yaml formulas. */
#include "pc.h"
#include "internal.h"
#include "hpctoolkit_legacy.h"

#include <stdlib.h>
#include <string.h>

/* ---- derived metrics: an old finalize formula as a v4 formula ---- */

/* A formula's parser: + - * / ^, unary minus, parentheses, numbers,
 * $ID (a MetricTable metric: the value of its scope at the context)
 * and the functions the v4 YAML has. Anything else (@ID, the value at
 * the root; another derived metric) leaves it uncarried. */
struct fparse {
	struct legacy *r;
	const char *p;
	int bad;
	unsigned depth, nodes;
};

static struct pc_expr *ex_new(struct fparse *f, uint8_t kind,
			      const char *op, uint32_t nargs)
{
	if (++f->nodes > 1000) { /* a bound for the writer's recursion */
		f->bad = 1;
		nargs = 0;
	}
	struct pc_expr *e = pc_db_alloc(f->r->db, sizeof(*e));
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->op = op;
	e->nargs = nargs;
	if (nargs)
		e->args = pc_db_alloc(f->r->db, nargs * sizeof(*e->args));
	return e;
}

static struct pc_expr *ex_bin(struct fparse *f, const char *op,
			      struct pc_expr *a, struct pc_expr *b)
{
	struct pc_expr *e = ex_new(f, PC_EX_OP, op, 2);
	if (e->nargs == 2) {
		e->args[0] = a;
		e->args[1] = b;
	}
	return e;
}

static void f_skip(struct fparse *f)
{
	while (*f->p == ' ' || *f->p == '\t')
		f->p++;
}

static struct pc_expr *f_expr(struct fparse *f);
static struct pc_expr *f_unary(struct fparse *f);

/* $ID: the metric of MetricTable entry ID, in its scope */
static struct pc_expr *f_ref(struct fparse *f, unsigned long id)
{
	struct legacy *r = f->r;
	uint32_t k;
	if (id > UINT32_MAX || !idtab_get(&r->xm_t, (uint32_t)id, &k) ||
	    r->xm[k].derived || r->xm[k].stat ||
	    r->xm[k].scope == SC_NONE) {
		f->bad = 1;
		return NULL;
	}
	const char *name = legacy_base_name(r, r->xm[k].name);
	size_t n = strlen(name);
	if (n > 4 && !strcmp(name + n - 4, ":Sum")) /* summary of threads */
		name = pc_intern(r->db, name, n - 4);
	pc_id m = pc_metric_find(r->db, name);
	if (m == PC_NONE) {
		f->bad = 1;
		return NULL;
	}
	struct pc_expr *e = ex_new(f, PC_EX_REF, NULL, 0);
	e->metric = m;
	e->scope = r->xm[k].scope == SC_INCL ? PC_SCOPE_EXECUTION :
					       PC_SCOPE_FUNCTION;
	return e;
}

static struct pc_expr *f_call(struct fparse *f, const char *name, size_t len)
{
	static const struct {
		const char *name, *op;
		unsigned min, max;
	} fn[] = {
		{ "sqrt", "sqrt", 1, 1 }, { "pow", "^", 2, 2 },
		{ "log", "log", 1, 2 },   { "min", "min", 1, 64 },
		{ "max", "max", 1, 64 },  { "sum", "sum", 1, 64 },
	};
	struct pc_expr *args[64];
	unsigned n = 0;
	size_t k = 0;
	while (k < sizeof fn / sizeof *fn &&
	       (strlen(fn[k].name) != len || strncmp(fn[k].name, name, len)))
		k++;
	f_skip(f);
	if (k == sizeof fn / sizeof *fn || *f->p != '(') {
		f->bad = 1;
		return NULL;
	}
	f->p++;
	for (;;) {
		if (n == 64) {
			f->bad = 1;
			return NULL;
		}
		args[n++] = f_expr(f);
		f_skip(f);
		if (f->bad || *f->p != ',')
			break;
		f->p++;
	}
	if (f->bad || *f->p != ')' || n < fn[k].min || n > fn[k].max) {
		f->bad = 1;
		return NULL;
	}
	f->p++;
	struct pc_expr *e = ex_new(f, PC_EX_OP, fn[k].op, n);
	for (unsigned i = 0; i < e->nargs; i++)
		e->args[i] = args[i];
	return e;
}

static struct pc_expr *f_primary(struct fparse *f)
{
	f_skip(f);
	const char *p = f->p;
	char *end;
	if (f->bad)
		return NULL;
	if (*p == '(') {
		f->p++;
		struct pc_expr *e = f_expr(f);
		f_skip(f);
		if (*f->p != ')') {
			f->bad = 1;
			return NULL;
		}
		f->p++;
		return e;
	}
	if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
		unsigned long id = strtoul(p + 1, &end, 10);
		f->p = end;
		return f_ref(f, id);
	}
	if ((*p >= '0' && *p <= '9') || *p == '.') {
		double v = strtod(p, &end);
		f->p = end;
		struct pc_expr *e = ex_new(f, PC_EX_NUM, NULL, 0);
		e->num = v;
		return e;
	}
	size_t len = 0;
	while ((p[len] >= 'a' && p[len] <= 'z') || (p[len] >= 'A' && p[len] <= 'Z'))
		len++;
	if (len) {
		f->p += len;
		return f_call(f, p, len);
	}
	f->bad = 1;
	return NULL;
}

static struct pc_expr *f_power(struct fparse *f)
{
	struct pc_expr *a = f_primary(f);
	f_skip(f);
	if (f->bad || *f->p != '^')
		return a;
	f->p++;
	return ex_bin(f, "^", a, f_unary(f));
}

static struct pc_expr *f_unary(struct fparse *f)
{
	f_skip(f);
	if (++f->depth > 64) { /* nesting: the parser's own recursion */
		f->bad = 1;
		return NULL;
	}
	struct pc_expr *e;
	if (*f->p == '-') {
		f->p++;
		struct pc_expr *a = f_unary(f);
		e = ex_new(f, PC_EX_OP, "-", 1);
		if (e->nargs)
			e->args[0] = a;
	} else {
		e = f_power(f);
	}
	f->depth--;
	return e;
}

static struct pc_expr *f_term(struct fparse *f)
{
	struct pc_expr *a = f_unary(f);
	for (;;) {
		f_skip(f);
		char c = *f->p;
		if (f->bad || (c != '*' && c != '/'))
			return a;
		f->p++;
		a = ex_bin(f, c == '*' ? "*" : "/", a, f_unary(f));
	}
}

static struct pc_expr *f_expr(struct fparse *f)
{
	if (++f->depth > 64) {
		f->bad = 1;
		return NULL;
	}
	struct pc_expr *a = f_term(f);
	for (;;) {
		f_skip(f);
		char c = *f->p;
		if (f->bad || (c != '+' && c != '-'))
			break;
		f->p++;
		a = ex_bin(f, c == '+' ? "+" : "-", a, f_term(f));
	}
	f->depth--;
	return a;
}

/* Carries derived metric x as a formula of the model's metrics; 0 if
 * its formula says something the v4 YAML cannot. */
static int carry_formula(struct legacy *r, const struct xmetric *x)
{
	if (!x->frm)
		return 0;
	struct fparse f = { .r = r, .p = x->frm };
	struct pc_expr *e = f_expr(&f);
	f_skip(&f);
	if (f.bad || *f.p || !e)
		return 0;
	const char *name = legacy_base_name(r, x->name);
	size_t i = 0;
	while (i < r->db->nderived && r->db->derived[i].name != name)
		i++;
	if (i == r->db->nderived) {
		PC_GROW(r->db->derived, r->db->nderived, r->db->capderived);
		char desc[4096];
		snprintf(desc, sizeof desc, "derived metric of an old "
			 "HPCToolkit database: %s", x->frm);
		r->db->derived[r->db->nderived++] = (struct pc_derived){
			name, pc_intern_cstr(r->db, desc), NULL, NULL };
	}
	if (x->scope == SC_EXCL)
		r->db->derived[i].excl = e;
	else
		r->db->derived[i].incl = e;
	return 1;
}

/* The MetricTable metrics the old viewer computed: statistics over
 * threads are carried where there are threads (per_thread; the v4
 * writer computes them again, pc_db.stats), formulas the v4 YAML can
 * say become metrics/default.yaml formulas, and the others are counted
 * and named in r->not_carried_list, for the warning derived_said gives
 * once the values are read. Called once the metrics are known. */
void legacy_derived_metrics(struct legacy *r, int per_thread)
{
	char *list = r->not_carried_list;
	size_t size = sizeof r->not_carried_list;
	size_t n = 0, count = 0, stats = 0;
	list[0] = 0;
	for (size_t i = 0; i < r->nxm; i++) {
		if (r->xm[i].stat && per_thread) {
			stats++;
			continue;
		}
		if (!r->xm[i].derived && !r->xm[i].stat)
			continue;
		if (!r->xm[i].stat && carry_formula(r, &r->xm[i]))
			continue;
		count++;
		if (n < size - 200)
			n += (size_t)snprintf(list + n, size - n, "%s'%s'",
					      n ? ", " : "", r->xm[i].name);
	}
	r->not_carried = count;
	r->stats = stats > 0;
}

