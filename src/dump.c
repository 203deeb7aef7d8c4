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

int pc_dump(struct pc_db *db, FILE *o)
{
	pc_values_finish(db);
	fputs("profconv-dump 1\n", o);
	fputs("title ", o);
	put_str(o, db->title ? db->title : "");
	fputc('\n', o);

	fprintf(o, "modules %zu\n", db->nmodules);
	for (size_t i = 0; i < db->nmodules; i++) {
		fprintf(o, "M%zu ", i);
		put_str(o, db->modules[i].path);
		fputc('\n', o);
	}
	fprintf(o, "files %zu\n", db->nfiles);
	for (size_t i = 0; i < db->nfiles; i++) {
		fprintf(o, "F%zu ", i);
		put_str(o, db->files[i].path);
		fputc('\n', o);
	}
	fprintf(o, "functions %zu\n", db->nfunctions);
	for (size_t i = 0; i < db->nfunctions; i++) {
		const struct pc_function *f = &db->functions[i];
		fprintf(o, "f%zu ", i);
		put_str(o, f->name);
		fputs(" module=", o);
		put_id(o, 'M', f->module);
		fprintf(o, " offset=0x%llx file=", (unsigned long long)f->offset);
		put_id(o, 'F', f->file);
		fprintf(o, " line=%u\n", f->line);
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
	fprintf(o, "contexts %zu\n", db->ncontexts);
	for (size_t i = 1; i < db->ncontexts; i++) {
		const struct pc_context *c = &db->contexts[i];
		fprintf(o, "c%zu parent=c%u %s %s", i, c->parent,
			rel_names[c->rel % 3], kind_names[c->kind % 5]);
		if (c->kind == PC_CTX_ENTRY) {
			fprintf(o, " %s", c->entry < 3 ? entry_names[c->entry] :
				"?");
		}
		if (c->function != PC_NONE)
			fprintf(o, " fn=f%u", c->function);
		if (c->file != PC_NONE || c->line)
			fprintf(o, " src=%c%d:%u", c->file == PC_NONE ? '-' : 'F',
				c->file == PC_NONE ? 0 : (int)c->file, c->line);
		if (c->module != PC_NONE || c->offset)
			fprintf(o, " at=%c%d+0x%llx",
				c->module == PC_NONE ? '-' : 'M',
				c->module == PC_NONE ? 0 : (int)c->module,
				(unsigned long long)c->offset);
		fputc('\n', o);
	}
	fprintf(o, "values %zu\n", db->nvalues);
	for (size_t i = 0; i < db->nvalues; i++) {
		const struct pc_value *v = &db->values[i];
		fprintf(o, "p%u c%u m%u ", v->profile, v->ctx, v->metric);
		put_double(o, v->value);
		fputc('\n', o);
	}
	size_t ntraces = 0;
	for (size_t i = 0; i < db->nprofiles; i++)
		ntraces += db->traces[i].n > 0;
	fprintf(o, "traces %zu\n", ntraces);
	for (size_t i = 0; i < db->nprofiles; i++) {
		const struct pc_trace *t = &db->traces[i];
		if (!t->n)
			continue;
		fprintf(o, "trace p%zu %zu\n", i, t->n);
		for (size_t j = 0; j < t->n; j++)
			fprintf(o, "%llu c%u\n", (unsigned long long)t->s[j].time,
				t->s[j].ctx);
	}
	return ferror(o) ? -1 : 0;
}
