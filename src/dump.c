/* The canonical dump: every table of the model in id order, one record a
 * line, doubles printed with 17 significant digits (exact round trip).
 * Tests compare dumps byte for byte, so nothing here may depend on
 * addresses, hash order or the locale. */
#include "pc.h"

#include <stdlib.h>
#include <string.h>

/* Strings are bytes: print printable ASCII as is, everything else as
 * \xNN, so a dump is plain ASCII whatever the input held. */
static void put_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(o, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, o);
		else
			fprintf(o, "\\x%02x", *p);
	}
	fputc('"', o);
}

/* A derived metric's formula in prefix form: (op args...), mN.scope,
 * numbers; - if none. */
static void put_expr(FILE *o, const struct pc_expr *e)
{
	if (!e) {
		fputc('-', o);
		return;
	}
	switch (e->kind) {
	case PC_EX_NUM:
		fprintf(o, "%.17g", e->num);
		break;
	case PC_EX_REF:
		fprintf(o, "m%u.%s", e->metric, pc_scope_names[e->scope]);
		break;
	default:
		fprintf(o, "(%s", e->op);
		for (uint32_t i = 0; i < e->nargs; i++) {
			fputc(' ', o);
			put_expr(o, e->args[i]);
		}
		fputc(')', o);
		break;
	}
}

static void put_id(FILE *o, char tag, pc_id id)
{
	if (id == PC_NONE)
		fputc('-', o);
	else
		fprintf(o, "%c%u", tag, id);
}

static const char *const kind_names[] = {
	"function", "loop", "line", "instruction", "entry",
};
static const char *const rel_names[] = { "lexical", "call", "inlined" };
static const char *const entry_names[] = {
	"unknown", "main-thread", "application-thread",
};

/* The shortest of %.15g and %.17g that reads back as the same double. */
static void put_double(FILE *o, double v)
{
	char b[64];
	snprintf(b, sizeof b, "%.15g", v);
	if (strtod(b, NULL) != v)
		snprintf(b, sizeof b, "%.17g", v);
	fputs(b, o);
}

/* The dump does not depend on the order in which an importer created
 * things: modules, files and functions are listed sorted by content, and
 * contexts in depth-first order with siblings sorted by their key. Two
 * models that hold the same data dump the same. */
struct canon {
	const struct pc_db *db;
	pc_id *mod_rank, *file_rank, *fn_rank; /* old id -> new id */
};

static int cmp_rank(pc_id a, pc_id b)
{
	/* PC_NONE sorts first */
	if (a == b)
		return 0;
	if (a == PC_NONE)
		return -1;
	if (b == PC_NONE)
		return 1;
	return a < b ? -1 : 1;
}

static const struct canon *sort_ctx; /* qsort has no context argument */

static int cmp_module(const void *x, const void *y)
{
	const struct pc_db *db = sort_ctx->db;
	return strcmp(db->modules[*(const pc_id *)x].path,
		      db->modules[*(const pc_id *)y].path);
}

static int cmp_file(const void *x, const void *y)
{
	const struct pc_db *db = sort_ctx->db;
	return strcmp(db->files[*(const pc_id *)x].path,
		      db->files[*(const pc_id *)y].path);
}

static int cmp_function(const void *x, const void *y)
{
	const struct canon *c = sort_ctx;
	const struct pc_function *a = &c->db->functions[*(const pc_id *)x];
	const struct pc_function *b = &c->db->functions[*(const pc_id *)y];
	int r = strcmp(a->name, b->name);
	if (r)
		return r;
	if ((r = cmp_rank(a->module == PC_NONE ? PC_NONE : c->mod_rank[a->module],
			  b->module == PC_NONE ? PC_NONE : c->mod_rank[b->module])))
		return r;
	if ((r = cmp_rank(a->file == PC_NONE ? PC_NONE : c->file_rank[a->file],
			  b->file == PC_NONE ? PC_NONE : c->file_rank[b->file])))
		return r;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->dup != b->dup)
		return a->dup < b->dup ? -1 : 1;
	return 0;
}

static pc_id rank_of(const pc_id *rank, pc_id id)
{
	return id == PC_NONE ? PC_NONE : rank[id];
}

static int cmp_context(const void *x, const void *y)
{
	const struct canon *c = sort_ctx;
	const struct pc_context *a = &c->db->contexts[*(const pc_id *)x];
	const struct pc_context *b = &c->db->contexts[*(const pc_id *)y];
	int r;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->entry != b->entry)
		return a->entry < b->entry ? -1 : 1;
	if (a->twin != b->twin)
		return a->twin < b->twin ? -1 : 1;
	if (a->rel != b->rel)
		return a->rel < b->rel ? -1 : 1;
	if ((r = cmp_rank(rank_of(c->fn_rank, a->function),
			  rank_of(c->fn_rank, b->function))))
		return r;
	if ((r = cmp_rank(rank_of(c->file_rank, a->file),
			  rank_of(c->file_rank, b->file))))
		return r;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if ((r = cmp_rank(rank_of(c->mod_rank, a->module),
			  rank_of(c->mod_rank, b->module))))
		return r;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

static pc_id *ranks(size_t n, int (*cmp)(const void *, const void *),
		    pc_id **order_out)
{
	pc_id *order = pc_xmalloc((n + 1) * sizeof(pc_id));
	pc_id *rank = pc_xmalloc((n + 1) * sizeof(pc_id));
	for (size_t i = 0; i < n; i++)
		order[i] = (pc_id)i;
	qsort(order, n, sizeof(pc_id), cmp);
	for (size_t i = 0; i < n; i++)
		rank[order[i]] = (pc_id)i;
	*order_out = order;
	return rank;
}

static int cmp_value(const void *x, const void *y)
{
	const struct pc_value *a = x, *b = y;
	if (a->profile != b->profile)
		return a->profile < b->profile ? -1 : 1;
	if (a->ctx != b->ctx)
		return a->ctx < b->ctx ? -1 : 1;
	if (a->metric != b->metric)
		return a->metric < b->metric ? -1 : 1;
	return 0;
}

/* One section of values in canonical context numbering; scoped values
 * print their metric as mN.scope. */
static void put_values(FILE *o, const char *what, const struct pc_value *src,
		       size_t n, const pc_id *ctx_new, int scoped)
{
	struct pc_value *v = pc_xmalloc((n + 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		v[i] = src[i];
		v[i].ctx = ctx_new[v[i].ctx];
	}
	qsort(v, n, sizeof(*v), cmp_value);
	fprintf(o, "%s %zu\n", what, n);
	for (size_t i = 0; i < n; i++) {
		if (scoped)
			fprintf(o, "p%u c%u m%u.%s ", v[i].profile, v[i].ctx,
				v[i].metric / PC_NSCOPES,
				pc_scope_names[v[i].metric % PC_NSCOPES]);
		else
			fprintf(o, "p%u c%u m%u ", v[i].profile, v[i].ctx,
				v[i].metric);
		put_double(o, v[i].value);
		fputc('\n', o);
	}
	free(v);
}

int pc_dump(struct pc_db *db, FILE *o)
{
	pc_values_finish(db);
	struct canon cn = { .db = db };
	sort_ctx = &cn;
	pc_id *mod_order, *file_order, *fn_order;
	cn.mod_rank = ranks(db->nmodules, cmp_module, &mod_order);
	cn.file_rank = ranks(db->nfiles, cmp_file, &file_order);
	cn.fn_rank = ranks(db->nfunctions, cmp_function, &fn_order);

	/* contexts: depth first from the root, siblings sorted */
	size_t n = db->ncontexts;
	pc_id *start = pc_xcalloc(n + 2, sizeof(pc_id));
	pc_id *kids = pc_xmalloc((n + 1) * sizeof(pc_id));
	for (size_t c = 1; c < n; c++)
		start[db->contexts[c].parent + 1]++;
	for (size_t c = 0; c < n; c++)
		start[c + 1] += start[c];
	pc_id *fill = pc_xmalloc((n + 1) * sizeof(pc_id));
	memcpy(fill, start, (n + 1) * sizeof(pc_id));
	for (size_t c = 1; c < n; c++)
		kids[fill[db->contexts[c].parent]++] = (pc_id)c;
	free(fill);
	for (size_t c = 0; c < n; c++)
		qsort(kids + start[c], start[c + 1] - start[c], sizeof(pc_id),
		      cmp_context);
	pc_id *ctx_new = pc_xmalloc((n + 1) * sizeof(pc_id));
	pc_id *ctx_order = pc_xmalloc((n + 1) * sizeof(pc_id));
	pc_id *stack = pc_xmalloc((n + 1) * sizeof(pc_id));
	size_t sp = 0, next = 0;
	stack[sp++] = 0;
	while (sp) {
		pc_id c = stack[--sp];
		ctx_new[c] = (pc_id)next;
		ctx_order[next++] = c;
		for (pc_id k = start[c + 1]; k-- > start[c];)
			stack[sp++] = kids[k];
	}
	free(stack);
	free(start);
	free(kids);

	fputs("profconv-dump 2\n", o);
	fputs("title ", o);
	put_str(o, db->title ? db->title : "");
	fputc('\n', o);

	fprintf(o, "modules %zu\n", db->nmodules);
	for (size_t i = 0; i < db->nmodules; i++) {
		fprintf(o, "M%zu ", i);
		put_str(o, db->modules[mod_order[i]].path);
		fputc('\n', o);
	}
	fprintf(o, "files %zu\n", db->nfiles);
	for (size_t i = 0; i < db->nfiles; i++) {
		fprintf(o, "F%zu ", i);
		put_str(o, db->files[file_order[i]].path);
		fputc('\n', o);
	}
	fprintf(o, "functions %zu\n", db->nfunctions);
	for (size_t i = 0; i < db->nfunctions; i++) {
		const struct pc_function *f = &db->functions[fn_order[i]];
		fprintf(o, "f%zu ", i);
		put_str(o, f->name);
		fputs(" module=", o);
		put_id(o, 'M', rank_of(cn.mod_rank, f->module));
		fprintf(o, " offset=0x%llx file=", (unsigned long long)f->offset);
		put_id(o, 'F', rank_of(cn.file_rank, f->file));
		fprintf(o, " line=%u", f->line);
		if (f->dup)
			fprintf(o, " dup=%u", f->dup);
		fputc('\n', o);
	}
	fprintf(o, "metrics %zu\n", db->nmetrics);
	for (size_t i = 0; i < db->nmetrics; i++) {
		const struct pc_metric *m = &db->metrics[i];
		fprintf(o, "m%zu ", i);
		put_str(o, m->name);
		fputs(" desc=", o);
		put_str(o, m->description);
		fputs(" unit=", o);
		put_str(o, m->unit);
		if (m->stored) {
			fputs(" stored=", o);
			for (unsigned k = 1, first = 1; k < PC_NSCOPES; k++)
				if (m->stored & (1u << k)) {
					fprintf(o, "%s%s", first ? "" : ",",
						pc_scope_names[k]);
					first = 0;
				}
		}
		fputc('\n', o);
	}
	/* only where an input has them: dumps of other inputs are as before */
	if (db->stats)
		fputs("statistics over threads\n", o);
	if (db->nderived)
		fprintf(o, "derived %zu\n", db->nderived);
	for (size_t i = 0; i < db->nderived; i++) {
		const struct pc_derived *d = &db->derived[i];
		fprintf(o, "d%zu ", i);
		put_str(o, d->name);
		fputs(" inclusive=", o);
		put_expr(o, d->incl);
		fputs(" exclusive=", o);
		put_expr(o, d->excl);
		fputc('\n', o);
	}
	fprintf(o, "profiles %zu\n", db->nprofiles);
	for (size_t i = 0; i < db->nprofiles; i++) {
		const struct pc_profile *p = &db->profiles[i];
		fprintf(o, "p%zu", i);
		for (uint32_t j = 0; j < p->nids; j++) {
			const struct pc_idelem *e = &p->ids[j];
			fprintf(o, " [%s %llu", e->kind < PC_ID_NKINDS ?
				pc_idkind_names[e->kind] : "?",
				(unsigned long long)e->logical);
			if (e->is_physical || e->physical)
				fprintf(o, " phys=%llu%s",
					(unsigned long long)e->physical,
					e->is_physical ? "" : "(not hw)");
			fputc(']', o);
		}
		fputc('\n', o);
	}
	fprintf(o, "contexts %zu\n", n);
	for (size_t i = 1; i < n; i++) {
		const struct pc_context *c = &db->contexts[ctx_order[i]];
		fprintf(o, "c%zu parent=c%u %s %s", i, ctx_new[c->parent],
			rel_names[c->rel % 3], kind_names[c->kind % 5]);
		if (c->kind == PC_CTX_ENTRY)
			fprintf(o, " %s", c->entry < 3 ? entry_names[c->entry] :
				"?");
		if (c->function != PC_NONE)
			fprintf(o, " fn=f%u", cn.fn_rank[c->function]);
		if (c->file != PC_NONE || c->line)
			fprintf(o, " src=%c%d:%u", c->file == PC_NONE ? '-' : 'F',
				c->file == PC_NONE ? 0 : (int)cn.file_rank[c->file],
				c->line);
		if (c->module != PC_NONE || c->offset)
			fprintf(o, " at=%c%d+0x%llx",
				c->module == PC_NONE ? '-' : 'M',
				c->module == PC_NONE ? 0 :
						       (int)cn.mod_rank[c->module],
				(unsigned long long)c->offset);
		if (c->twin)
			fprintf(o, " twin=%u", c->twin);
		fputc('\n', o);
	}
	put_values(o, "values", db->values, db->nvalues, ctx_new, 0);
	if (db->nscoped)
		put_values(o, "scoped", db->scoped, db->nscoped, ctx_new, 1);
	size_t ntraces = 0;
	for (size_t i = 0; i < db->nprofiles; i++)
		ntraces += db->traces[i].n > 0;
	fprintf(o, "traces %zu\n", ntraces);
	for (size_t i = 0; i < db->nprofiles; i++) {
		const struct pc_trace *t = &db->traces[i];
		if (!t->n)
			continue;
		fprintf(o, "trace p%zu %zu\n", i, t->n);
		struct pc_trace_it it;
		struct pc_sample x;
		pc_trace_begin(t, &it);
		while (pc_trace_next(&it, &x))
			fprintf(o, "%llu c%u\n", (unsigned long long)x.time,
				ctx_new[x.ctx]);
	}
	free(ctx_new);
	free(ctx_order);
	free(mod_order);
	free(file_order);
	free(fn_order);
	free(cn.mod_rank);
	free(cn.file_rank);
	free(cn.fn_rank);
	sort_ctx = NULL;
	return ferror(o) ? -1 : 0;
}
