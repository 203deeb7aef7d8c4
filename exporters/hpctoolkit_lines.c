/* A line's own cost and its calls in contexts apart, for the database
 * of two runs compared (profconv diff), as hpcviewer reads it.
 *
 * hpcviewer (hpcdata 8.4.4, CallingContextReassignment) draws a call
 * beside the line context it is called from, not below it, and gives
 * the line the inclusive value of its execution scope reduced by each
 * call's in turn (HierarchicalMetric.reduce): a line with no value
 * takes the call's value; a line whose value is below the call's, or
 * within a float's rounding of it, gets none; else the difference. A
 * line holding both its own cost and calls is shown so with its own
 * cost only where every value is at least 0 and no sum rounds away.
 * The [new-base] metrics of a comparison go below 0: a line that lost
 * its own cost while its call grew showed no change, an unchanged line
 * calling two functions that both shrank showed one's change, and the
 * flat view summed those rows.
 *
 * So a line context keeps its own values and children but the calls
 * (function contexts) below it, and each such call goes below a line
 * context of its own, with the same file and line and no values: its
 * execution value is the call's, to the bit, which hpcviewer reduces
 * to nothing and drops, drawing the call where it did. A line whose
 * only child is one call and which has no value of its own keeps it
 * (hpcviewer reduces it to nothing already). Other readers (hatchet,
 * profconv's) see two contexts of one line, as hpcprof's twins: each
 * function's values are the same sums (those of fractions in another
 * order, to their last bits). The copy costs the model's contexts and
 * point values once more. */
#include "hpctoolkit_writer.h"

#include <stdlib.h>

static int cmp_value(const void *a, const void *b)
{
	const struct pc_value *x = a, *y = b;
	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* Stored values mapped to the new ids; a moved call's stored execution
 * value also at its new line (to) and taken off its old one: sorted by
 * (profile, ctx, metric) and coalesced, as the model keeps them. */
static struct pc_value *map_scoped(const struct pc_db *db, const pc_id *id,
				   const pc_id *to, size_t *count)
{
	size_t n = db->nscoped, k = 0, extra = 0;
	for (size_t i = 0; i < n; i++)
		extra += to[db->scoped[i].ctx] != PC_NONE &&
			 db->scoped[i].metric % PC_NSCOPES == PC_SCOPE_EXECUTION;
	struct pc_value *s = pc_xmalloc((n + 2 * extra + 1) * sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		const struct pc_value *v = &db->scoped[i];
		s[k] = *v;
		s[k++].ctx = id[v->ctx];
		if (to[v->ctx] == PC_NONE ||
		    v->metric % PC_NSCOPES != PC_SCOPE_EXECUTION)
			continue;
		s[k] = *v;
		s[k++].ctx = to[v->ctx];
		s[k] = *v;
		s[k].ctx = id[db->contexts[v->ctx].parent];
		s[k++].value = -v->value;
	}
	qsort(s, k, sizeof(*s), cmp_value);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && !cmp_value(&s[m - 1], &s[i]))
			s[m - 1].value += s[i].value;
		else
			s[m++] = s[i];
	}
	*count = m;
	return s;
}

struct pc_db *hpcw_split_lines(const struct pc_db *db)
{
	size_t n = db->ncontexts;
	if (!db->diff || n < 2 || db->nflushed || pc_samples_total(db))
		return NULL;
	/* per line context: has values of its own (1), children other
	 * than calls (2); its first call */
	uint8_t *line = pc_xcalloc(n, 1);
	pc_id *first = pc_xmalloc(n * sizeof(pc_id));
	for (size_t i = 0; i < db->nvalues; i++)
		if (db->values[i].value != 0)
			line[db->values[i].ctx] |= 1;
	for (size_t c = 0; c < n; c++)
		first[c] = PC_NONE;
	for (size_t c = 1; c < n; c++) {
		const struct pc_context *x = &db->contexts[c];
		if (db->contexts[x->parent].kind != PC_CTX_LINE)
			continue;
		if (x->kind != PC_CTX_FUNCTION)
			line[x->parent] |= 2;
		else if (first[x->parent] == PC_NONE)
			first[x->parent] = (pc_id)c;
	}
	/* the new ids, in the old ones' order: a moved call's line just
	 * before it (after its parent's parent), so that parents still
	 * come first and values stay sorted by context */
	pc_id *id = pc_xmalloc(n * sizeof(pc_id));
	pc_id *to = pc_xmalloc(n * sizeof(pc_id));
	size_t nn = 1;
	id[0] = 0;
	to[0] = PC_NONE;
	for (size_t c = 1; c < n; c++) {
		const struct pc_context *x = &db->contexts[c];
		to[c] = PC_NONE;
		if (x->kind == PC_CTX_FUNCTION &&
		    db->contexts[x->parent].kind == PC_CTX_LINE &&
		    (first[x->parent] != c || line[x->parent]))
			to[c] = (pc_id)nn++;
		id[c] = (pc_id)nn++;
	}
	free(first);
	free(line);
	if (nn == n) {
		free(id);
		free(to);
		return NULL;
	}
	struct pc_db *s = pc_xmalloc(sizeof(*s));
	*s = *db;
	s->contexts = pc_xmalloc(nn * sizeof(*s->contexts));
	s->ncontexts = s->capcontexts = nn;
	s->contexts[0] = db->contexts[0];
	for (size_t c = 1; c < n; c++) {
		struct pc_context x = db->contexts[c];
		x.parent = id[x.parent];
		if (to[c] != PC_NONE) {
			/* (siblings with equal fields: the writer writes no
			 * twin numbers) */
			struct pc_context l = db->contexts[db->contexts[c].parent];
			l.parent = id[l.parent];
			s->contexts[to[c]] = l;
			x.parent = to[c];
		}
		s->contexts[id[c]] = x;
	}
	s->values = pc_xmalloc((db->nvalues + 1) * sizeof(*s->values));
	s->nvalues = s->capvalues = db->nvalues;
	for (size_t i = 0; i < db->nvalues; i++) {
		s->values[i] = db->values[i];
		s->values[i].ctx = id[db->values[i].ctx];
	}
	s->scoped = NULL;
	s->nscoped = s->capscoped = 0;
	if (db->nscoped) {
		s->scoped = map_scoped(db, id, to, &s->nscoped);
		s->capscoped = s->nscoped;
	}
	free(id);
	free(to);
	return s;
}

void hpcw_split_free(struct pc_db *s)
{
	if (!s)
		return;
	free(s->contexts);
	free(s->values);
	free(s->scoped);
	free(s);
}
