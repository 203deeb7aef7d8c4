/* `profconv info`: what is inside the inputs, to decide how to convert
 * them. The summary is built once as a json-c object; the text form is
 * printed from the same object, so the two never disagree. */
#include "pc.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

/* Costs that are whole numbers are shown (and given to JSON) as
 * integers: 45417, not 45417.000000000007. */
static json_object *number(double v)
{
	double r = nearbyint(v);
	if (fabs(v - r) <= 1e-9 * fabs(v) && fabs(r) < 9e15)
		return json_object_new_int64((int64_t)r);
	return json_object_new_double(v);
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static json_object *id_tuple(const struct pc_profile *p)
{
	json_object *a = json_object_new_array();
	for (uint32_t k = 0; k < p->nids; k++) {
		const struct pc_idelem *e = &p->ids[k];
		json_object *o = json_object_new_object();
		json_object_object_add(
			o, "kind",
			json_object_new_string(e->kind < PC_ID_NKINDS ?
						       pc_idkind_names[e->kind] :
						       "?"));
		json_object_object_add(o, "logical",
				       json_object_new_int64((int64_t)e->logical));
		if (e->is_physical)
			json_object_object_add(
				o, "physical",
				json_object_new_int64((int64_t)e->physical));
		json_object_array_add(a, o);
	}
	return a;
}

/* Grows a[0..*n) to at least want entries (twice as many at least),
 * the new ones zero. */
static void *grow_zero(void *a, size_t *n, size_t want, size_t size)
{
	if (want <= *n)
		return a;
	if (want < 2 * *n)
		want = 2 * *n;
	char *p = pc_xrealloc(a, want, size);
	memset(p + *n * size, 0, (want - *n) * size);
	*n = want;
	return p;
}

/* A sample's time into first..last. */
static void span(uint64_t *first, uint64_t *last, uint64_t t)
{
	*first = t < *first ? t : *first;
	*last = t > *last ? t : *last;
}

static int count_profile(struct pc_sink *sink, const struct pc_db *db,
			 pc_id p, const struct pc_value *v, size_t n,
			 const struct pc_value *sv, size_t sn,
			 const struct pc_trace *t, struct pc_err *err)
{
	(void)sv;
	(void)sn;
	(void)err;
	struct pc_info_count *c = (struct pc_info_count *)sink;
	c->values = grow_zero(c->values, &c->nprofiles, (size_t)p + 1,
			      sizeof(size_t));
	c->values[p] += n;
	c->total = grow_zero(c->total, &c->nmetrics, db->nmetrics + 1,
			     sizeof(double));
	for (size_t i = 0; i < n; i++)
		c->total[v[i].metric] += v[i].value;
	struct pc_trace_it it;
	struct pc_sample x;
	pc_trace_begin(t, &it);
	while (pc_trace_next(&it, &x))
		span(&c->first, &c->last, x.time);
	return 0;
}

void pc_info_count_init(struct pc_info_count *c)
{
	*c = (struct pc_info_count){ .sink = { .profile = count_profile },
				     .first = UINT64_MAX };
}

void pc_info_count_free(struct pc_info_count *c)
{
	free(c->values);
	free(c->total);
}

json_object *pc_info_json(const struct pc_db *db,
			  const struct pc_info_count *c, char **inputs,
			  const char **formats, int n)
{
	json_object *root = json_object_new_object();
	json_object *in = json_object_new_array();
	for (int i = 0; i < n; i++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "path", json_object_new_string(inputs[i]));
		json_object_object_add(o, "format",
				       json_object_new_string(formats[i]));
		json_object_array_add(in, o);
	}
	json_object_object_add(root, "inputs", in);
	if (db->title)
		json_object_object_add(root, "title",
				       json_object_new_string(db->title));
	if (db->description)
		json_object_object_add(root, "description",
				       json_object_new_string(db->description));
	/* per profile: values and trace samples (those that streamed past
	 * c, and those the model holds) */
	size_t *nval = pc_xcalloc(db->nprofiles + 1, sizeof(size_t));
	for (size_t p = 0; p < c->nprofiles && p < db->nprofiles; p++)
		nval[p] = c->values[p];
	for (size_t i = 0; i < db->nvalues; i++)
		nval[db->values[i].profile]++;
	json_object *profs = json_object_new_array();
	size_t samples = 0;
	uint64_t t0 = c->first, t1 = c->last;
	for (size_t p = 0; p < db->nprofiles; p++) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "id_tuple",
				       id_tuple(&db->profiles[p]));
		json_object_object_add(o, "values",
				       json_object_new_int64((int64_t)nval[p]));
		const struct pc_trace *t = &db->traces[p];
		json_object_object_add(o, "trace_samples",
				       json_object_new_int64((int64_t)t->n));
		struct pc_trace_it it;
		struct pc_sample x;
		pc_trace_begin(t, &it);
		while (pc_trace_next(&it, &x))
			span(&t0, &t1, x.time);
		samples += t->n;
		json_object_array_add(profs, o);
	}
	free(nval);
	json_object_object_add(root, "profiles", profs);
	double *tot = pc_xcalloc(db->nmetrics + 1, sizeof(double));
	for (size_t m = 0; m < c->nmetrics && m < db->nmetrics; m++)
		tot[m] = c->total[m];
	for (size_t i = 0; i < db->nvalues; i++)
		tot[db->values[i].metric] += db->values[i].value;
	json_object *ms = json_object_new_array();
	for (size_t m = 0; m < db->nmetrics; m++) {
		const struct pc_metric *me = &db->metrics[m];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(me->name));
		if (*me->description)
			json_object_object_add(
				o, "description",
				json_object_new_string(me->description));
		if (*me->unit)
			json_object_object_add(o, "unit",
					       json_object_new_string(me->unit));
		json_object_object_add(o, "total", number(tot[m]));
		json_object_array_add(ms, o);
	}
	free(tot);
	json_object_object_add(root, "metrics", ms);
	/* without the global root, as convert and check count */
	json_object_object_add(root, "contexts",
			       json_object_new_int64((int64_t)db->ncontexts - 1));
	json_object_object_add(root, "functions",
			       json_object_new_int64((int64_t)db->nfunctions));
	json_object_object_add(root, "modules",
			       json_object_new_int64((int64_t)db->nmodules));
	json_object_object_add(root, "files",
			       json_object_new_int64((int64_t)db->nfiles));
	json_object *tr = json_object_new_object();
	json_object_object_add(tr, "samples",
			       json_object_new_int64((int64_t)samples));
	if (samples) {
		json_object_object_add(tr, "first_ns",
				       json_object_new_int64((int64_t)t0));
		json_object_object_add(tr, "last_ns",
				       json_object_new_int64((int64_t)t1));
	}
	json_object_object_add(root, "trace", tr);
	return root;
}

static long long geti(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) ?
		       (long long)json_object_get_int64(v) : 0;
}

static const char *gets(json_object *o, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(o, key, &v) ?
		       json_object_get_string(v) : NULL;
}

/* A string of an input's (a name, a path, a title) as text for a
 * terminal: control characters and bytes that are not UTF-8 as \xHH. */
static void put_text(FILE *out, const char *s)
{
	char *esc = pc_text_escape(s ? s : "");
	fputs(esc ? esc : s ? s : "", out);
	free(esc);
}

void pc_info_print(json_object *root, FILE *out)
{
	json_object *a, *o;
	json_object_object_get_ex(root, "inputs", &a);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		o = json_object_array_get_idx(a, i);
		fputs("input: ", out);
		put_text(out, gets(o, "path"));
		fprintf(out, " (%s)\n", gets(o, "format"));
	}
	for (int k = 0; k < 2; k++) {
		const char *key = k ? "description" : "title";
		if (gets(root, key)) {
			fprintf(out, "%s: ", key);
			put_text(out, gets(root, key));
			fputc('\n', out);
		}
	}
	json_object_object_get_ex(root, "profiles", &a);
	size_t np = json_object_array_length(a);
	fprintf(out, "%zu %s:\n", np, plural(np, "profile", "profiles"));
	for (size_t i = 0; i < np; i++) {
		o = json_object_array_get_idx(a, i);
		json_object *t;
		json_object_object_get_ex(o, "id_tuple", &t);
		fprintf(out, "  %zu:", i + 1);
		for (size_t k = 0; k < json_object_array_length(t); k++) {
			json_object *e = json_object_array_get_idx(t, k);
			fprintf(out, " %s %lld", gets(e, "kind"),
				geti(e, "logical"));
			if (gets(e, "physical")) {
				fputs(" (", out);
				put_text(out, gets(e, "physical"));
				fputc(')', out);
			}
		}
		long long nv = geti(o, "values"), ns = geti(o, "trace_samples");
		fprintf(out, "%s %lld %s", json_object_array_length(t) ? "," : "",
			nv, plural((size_t)nv, "value", "values"));
		if (ns)
			fprintf(out, ", %lld trace %s", ns,
				plural((size_t)ns, "sample", "samples"));
		fputc('\n', out);
	}
	json_object_object_get_ex(root, "metrics", &a);
	size_t nm = json_object_array_length(a);
	fprintf(out, "%zu %s (total of point values):\n", nm,
		plural(nm, "metric", "metrics"));
	for (size_t i = 0; i < nm; i++) {
		o = json_object_array_get_idx(a, i);
		fputs("  ", out);
		put_text(out, gets(o, "name"));
		fprintf(out, ": %s", gets(o, "total"));
		if (gets(o, "unit")) {
			fputc(' ', out);
			put_text(out, gets(o, "unit"));
		}
		if (gets(o, "description") &&
		    strcmp(gets(o, "description"), gets(o, "name"))) {
			fputs("  (", out);
			put_text(out, gets(o, "description"));
			fputc(')', out);
		}
		fputc('\n', out);
	}
	long long nc = geti(root, "contexts"), nf = geti(root, "functions");
	long long nmod = geti(root, "modules"), nfi = geti(root, "files");
	fprintf(out, "%lld %s, %lld %s, %lld %s, %lld source %s\n", nc,
		plural((size_t)nc, "context", "contexts"), nf,
		plural((size_t)nf, "function", "functions"), nmod,
		plural((size_t)nmod, "module", "modules"), nfi,
		plural((size_t)nfi, "file", "files"));
	json_object *tr;
	json_object_object_get_ex(root, "trace", &tr);
	long long ns = geti(tr, "samples");
	if (ns)
		fprintf(out, "trace: %lld %s from %lld ns to %lld ns (%.6f s)\n",
			ns, plural((size_t)ns, "sample", "samples"),
			geti(tr, "first_ns"), geti(tr, "last_ns"),
			(double)(geti(tr, "last_ns") - geti(tr, "first_ns")) /
				1e9);
	else
		fputs("trace: none\n", out);
}
