/* metrics/default.yaml of an HPCToolkit v4 database, emitted with
 * libyaml so that any metric name is quoted correctly. Its inputs match
 * meta.db's summaries (metric name, scope, formula, combine). A v4
 * input's own file (db->yaml: hpcprof's derived metrics, hidden raw
 * metrics, formats) is written back unchanged while the output's metrics
 * are still exactly that input's. */
#include "hpctoolkit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

struct em {
	yaml_emitter_t e;
	int failed;
};

/* Every libyaml call is checked: an event that could not be made is
 * not emitted, one not emitted is freed, and the first failure is kept
 * for the caller (libyaml frees what it was given, failed or not). */
static void emit_ok(struct em *m, int made, yaml_event_t *ev)
{
	if (!made) {
		m->failed = 1;
		return;
	}
	if (m->failed) {
		yaml_event_delete(ev);
		return;
	}
	if (!yaml_emitter_emit(&m->e, ev))
		m->failed = 1;
}

static void scalar_a(struct em *m, const char *anchor, const char *s)
{
	/* names from inputs need not be UTF-8, which YAML requires */
	char *esc = pc_utf8_escape(s);
	if (esc)
		s = esc;
	yaml_event_t ev;
	int made = yaml_scalar_event_initialize(
		&ev, (yaml_char_t *)anchor, NULL, (yaml_char_t *)s,
		(int)strlen(s), 1, 1, YAML_ANY_SCALAR_STYLE);
	emit_ok(m, made, &ev);
	free(esc);
}

static void scalar(struct em *m, const char *s)
{
	scalar_a(m, NULL, s);
}

static void map_start_s(struct em *m, const char *anchor,
			yaml_mapping_style_t style)
{
	yaml_event_t ev;
	emit_ok(m, yaml_mapping_start_event_initialize(
			   &ev, (yaml_char_t *)anchor, NULL, 1, style), &ev);
}

static void map_start(struct em *m, const char *anchor)
{
	map_start_s(m, anchor, YAML_BLOCK_MAPPING_STYLE);
}

static void map_end(struct em *m)
{
	yaml_event_t ev;
	emit_ok(m, yaml_mapping_end_event_initialize(&ev), &ev);
}

static void seq_start(struct em *m, yaml_sequence_style_t style)
{
	yaml_event_t ev;
	emit_ok(m, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							 style), &ev);
}

static void seq_end(struct em *m)
{
	yaml_event_t ev;
	emit_ok(m, yaml_sequence_end_event_initialize(&ev), &ev);
}

static void alias(struct em *m, const char *anchor)
{
	yaml_event_t ev;
	emit_ok(m, yaml_alias_event_initialize(&ev, (yaml_char_t *)anchor),
		&ev);
}

static void anchor_name(char *buf, size_t n, size_t metric, unsigned partial,
			unsigned scope)
{
	snprintf(buf, n, "m%zu-%u-%s", metric, partial, pc_scope_names[scope]);
}

static void ref(struct em *m, size_t metric, unsigned partial,
		unsigned scope)
{
	char a[64];
	anchor_name(a, sizeof a, metric, partial, scope);
	alias(m, a);
}

/* A function of the formula language (METRICS.yaml): a one-pair map
 * from the operator to the list of its arguments, as hpcprof writes. */
static void op_begin(struct em *m, const char *op)
{
	map_start_s(m, NULL, YAML_FLOW_MAPPING_STYLE);
	scalar(m, op);
	seq_start(m, YAML_FLOW_SEQUENCE_STYLE);
}

static void op_end(struct em *m)
{
	seq_end(m);
	map_end(m);
}

/* The statistics over threads that --stats adds, from the partials of
 * hpc_partials (0 sum, 1 count, 2 sum of squares, 3 min, 4 max), with
 * hpcprof's formulas. */
enum { ST_SUM, ST_MEAN, ST_STDDEV, ST_CFVAR, ST_MIN, ST_MAX, ST_N };
static const char *const stat_names[ST_N] = {
	"Sum", "Mean", "StdDev", "CfVar", "Min", "Max",
};

static void stat_formula(struct em *m, int st, size_t i, unsigned scope)
{
	switch (st) {
	case ST_SUM:
		ref(m, i, 0, scope);
		break;
	case ST_MEAN: /* sum / count */
		op_begin(m, "/");
		ref(m, i, 0, scope);
		ref(m, i, 1, scope);
		op_end(m);
		break;
	case ST_STDDEV: /* sqrt(sumsq / count - (sum / count)^2) */
		op_begin(m, "sqrt");
		op_begin(m, "-");
		op_begin(m, "/");
		ref(m, i, 2, scope);
		ref(m, i, 1, scope);
		op_end(m);
		op_begin(m, "^");
		stat_formula(m, ST_MEAN, i, scope);
		scalar(m, "2");
		op_end(m);
		op_end(m);
		op_end(m);
		break;
	case ST_CFVAR: /* stddev / mean */
		op_begin(m, "/");
		stat_formula(m, ST_STDDEV, i, scope);
		stat_formula(m, ST_MEAN, i, scope);
		op_end(m);
		break;
	case ST_MIN:
		ref(m, i, 3, scope);
		break;
	default:
		ref(m, i, 4, scope);
		break;
	}
}

/* A derived metric's formula: numbers, references to the inputs (the
 * sum statistic of a metric's scope) and functions. */
static void expr(struct em *m, const struct pc_expr *e)
{
	char num[64];
	switch (e->kind) {
	case PC_EX_NUM:
		snprintf(num, sizeof num, "%.17g", e->num);
		scalar(m, num);
		break;
	case PC_EX_REF:
		ref(m, e->metric, 0, e->scope);
		break;
	default:
		op_begin(m, e->op);
		for (uint32_t i = 0; i < e->nargs; i++)
			expr(m, e->args[i]);
		op_end(m);
		break;
	}
}

static void derived_root(struct em *m, const struct pc_derived *d)
{
	map_start(m, NULL);
	scalar(m, "name");
	scalar(m, d->name);
	scalar(m, "description");
	scalar(m, d->description ? d->description : d->name);
	scalar(m, "variants");
	map_start(m, NULL);
	scalar(m, "Sum");
	map_start(m, NULL);
	scalar(m, "render");
	scalar(m, "number");
	scalar(m, "formula");
	map_start(m, NULL);
	const struct pc_expr *f[2] = { d->incl, d->excl };
	for (int k = 0; k < 2; k++) {
		if (!f[k])
			continue;
		scalar(m, k ? "exclusive" : "inclusive");
		map_start(m, NULL);
		scalar(m, "standard");
		expr(m, f[k]);
		map_end(m);
	}
	map_end(m);
	map_end(m);
	map_end(m);
	map_end(m);
}

static int write_handler(void *data, unsigned char *buf, size_t size)
{
	return fwrite(buf, 1, size, data) == size;
}

/* default.yaml for db's metrics with npartials partials (1: the sum
 * alone) into f; nonzero if the emitter failed */
static int emit_yaml(const struct pc_db *db, const struct hpc_layout *l,
		     unsigned npartials, FILE *f)
{
	struct em m = { .failed = 0 };
	if (!yaml_emitter_initialize(&m.e))
		return 1;
	yaml_emitter_set_output(&m.e, write_handler, f);
	yaml_emitter_set_unicode(&m.e, 1);
	yaml_emitter_set_width(&m.e, -1);
	yaml_event_t ev;
	emit_ok(&m, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING),
		&ev);
	emit_ok(&m, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL,
							  1), &ev);
	map_start(&m, NULL);
	scalar(&m, "version");
	scalar(&m, "0");
	scalar(&m, "inputs");
	seq_start(&m, YAML_BLOCK_SEQUENCE_STYLE);
	static const unsigned shown[3] = { HPC_EXECUTION, HPC_LEXAWARE,
					   HPC_FUNCTION };
	for (size_t i = 0; i < db->nmetrics; i++)
		for (unsigned k = 0; k < npartials; k++)
			for (int s = 0; s < 3; s++) {
				if (!(l->scopes[i] & (1u << shown[s])))
					continue;
				char a[64];
				anchor_name(a, sizeof a, i, k, shown[s]);
				map_start(&m, a);
				scalar(&m, "metric");
				scalar(&m, db->metrics[i].name);
				scalar(&m, "scope");
				scalar(&m, pc_scope_names[shown[s]]);
				scalar(&m, "formula");
				scalar(&m, hpc_partials[k].formula);
				scalar(&m, "combine");
				scalar(&m, hpc_partials[k].yaml_combine);
				map_end(&m);
			}
	seq_end(&m);
	scalar(&m, "roots");
	seq_start(&m, YAML_BLOCK_SEQUENCE_STYLE);
	for (size_t i = 0; i < db->nmetrics; i++) {
		const struct pc_metric *me = &db->metrics[i];
		map_start(&m, NULL);
		scalar(&m, "name");
		scalar(&m, me->name);
		scalar(&m, "description");
		scalar(&m, *me->description ? me->description : me->name);
		scalar(&m, "variants");
		map_start(&m, NULL);
		for (int st = 0; st < (npartials > 1 ? ST_N : 1); st++) {
			scalar(&m, stat_names[st]);
			map_start(&m, NULL);
			scalar(&m, "render");
			seq_start(&m, YAML_FLOW_SEQUENCE_STYLE);
			scalar(&m, "number");
			if (st == ST_SUM)
				scalar(&m, "percent");
			seq_end(&m);
			/* only the scopes the metric has (a v4 input's
			 * own set); custom (lex_aware) before standard, or
			 * hpcviewer shows no exclusive column */
			unsigned mask = l->scopes[i];
			scalar(&m, "formula");
			map_start(&m, NULL);
			if (mask & (1u << HPC_EXECUTION)) {
				scalar(&m, "inclusive");
				map_start(&m, NULL);
				scalar(&m, "standard");
				stat_formula(&m, st, i, HPC_EXECUTION);
				map_end(&m);
			}
			if (mask & (1u << HPC_LEXAWARE | 1u << HPC_FUNCTION)) {
				scalar(&m, "exclusive");
				map_start(&m, NULL);
				if (mask & (1u << HPC_LEXAWARE)) {
					scalar(&m, "custom");
					stat_formula(&m, st, i, HPC_LEXAWARE);
				}
				if (mask & (1u << HPC_FUNCTION)) {
					scalar(&m, "standard");
					stat_formula(&m, st, i, HPC_FUNCTION);
				}
				map_end(&m);
			}
			map_end(&m);
			map_end(&m);
		}
		map_end(&m);
		map_end(&m);
	}
	for (size_t i = 0; i < db->nderived; i++)
		derived_root(&m, &db->derived[i]);
	seq_end(&m);
	map_end(&m);
	emit_ok(&m, yaml_document_end_event_initialize(&ev, 1), &ev);
	emit_ok(&m, yaml_stream_end_event_initialize(&ev), &ev);
	yaml_emitter_delete(&m.e);
	return m.failed;
}

/* Whether the HPCToolkit input's default.yaml is the one profconv writes
 * for these metrics without statistics (a database profconv wrote): then
 * nothing of it is lost when the output writes another. */
static int yaml_is_plain(const struct pc_db *db, const struct hpc_layout *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return 0;
	int failed = emit_yaml(db, l, 1, f);
	int same = fclose(f) == 0 && !failed && len == db->yaml_len &&
		   memcmp(buf, db->yaml, len) == 0;
	free(buf);
	return same;
}

int pc_hpc_write_yaml(const struct pc_db *db, const struct hpc_layout *l,
		      const char *dir, struct pc_err *err)
{
	char path[4096];
	pc_path_join(path, sizeof path, dir, "metrics");
	if (mkdir(path, 0755) != 0)
		return pc_err_set(err, "%s: cannot create: %s", path,
				  strerror(errno));
	pc_path_join(path, sizeof path, dir, "metrics/default.yaml");
	FILE *f = fopen(path, "wb");
	if (!f)
		return pc_err_set(err, "%s: cannot write: %s", path,
				  strerror(errno));
	/* the input's own, while the metrics are still exactly its */
	if (db->yaml && db->nmetrics == db->yaml_nmetrics && !db->nderived &&
	    l->npartials == 1) {
		if (fwrite(db->yaml, 1, db->yaml_len, f) != db->yaml_len ||
		    fclose(f) != 0)
			return pc_err_set(err, "%s: cannot write: %s", path,
					  strerror(errno));
		return 0;
	}
	if (db->yaml && !yaml_is_plain(db, l))
		pc_warn(db->diag, "metrics/default.yaml of the HPCToolkit "
			"input is not carried (%s): metrics it hides or "
			"derives are presented as plain metrics",
			l->npartials > 1 ? "the output adds statistics" :
					   "the output has other metrics too");
	int failed = emit_yaml(db, l, l->npartials, f);
	if (fclose(f) != 0 || failed)
		return pc_err_set(err, "%s: cannot write: %s", path,
				  failed ? "YAML emitter error" :
					   strerror(errno));
	return 0;
}
