/* The end of a Callgrind part (callgrind.c reads its lines): its call
 * graph laid out as a calling-context tree (or held for a pair of
 * runs), its summary checked against its costs, the header state reset
 * for the next part. */
#include "callgrind_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parts ---- */

/* An empty graph for the current events and positions. */
void cg_start_graph(struct parser *p)
{
	int has_line = 0, has_instr = 0;
	for (int i = 0; i < p->npos; i++) {
		has_line |= p->pos[i] == POS_LINE;
		has_instr |= p->pos[i] == POS_INSTR;
	}
	pc_cg_graph_init(&p->g, p->nev, p->ev, has_line, has_instr);
	p->g.merge = !cg_instr_ctx(&p->g, p->opts);
	if (p->selfsum)
		memset(p->selfsum, 0, p->nev * sizeof(*p->selfsum));
	p->bytes_line = UINT64_MAX; /* (none: has_instr may change) */
	/* a part may go on in the function the previous one ended in */
	p->cur_fn = p->cur_func != PC_NONE ? pc_cg_graph_fn(&p->g, p->cur_func) :
					     UINT32_MAX;
}

void cg_reset_part_header(struct parser *p)
{
	p->npos = 1;
	p->pos[0] = POS_LINE;
	p->iline = 0;
	p->iinstr = MAX_POS;
	memset(p->last, 0, sizeof p->last);
	p->nev = 0;
	free(p->ev);
	p->ev = NULL;
	p->have_summary = p->have_totals = 0;
	p->cur_fn = UINT32_MAX;
	p->cur_func = PC_NONE;
	p->cob = p->cfi = PC_NONE;
	p->cfn = NULL;
	p->expect = 0;
}

/* The logical ids of a Callgrind part (ids: RANK with the pid as its
 * physical id, THREAD) among the profiles db has: processes numbered in
 * the order they come, the parts of one process (threads, --dump-before
 * parts) one after another. */
void cg_logical_ids(const struct pc_db *db, struct pc_idelem ids[2])
{
	uint64_t logical_rank = 0, logical_thread = 0;
	int found_rank = 0;
	for (size_t i = 0; i < db->nprofiles; i++) {
		const struct pc_profile *q = &db->profiles[i];
		if (q->nids != 2 || q->ids[0].kind != PC_ID_RANK ||
		    q->ids[1].kind != PC_ID_THREAD)
			continue;
		if (q->ids[0].physical == ids[0].physical) {
			found_rank = 1;
			logical_rank = q->ids[0].logical;
			if (q->ids[1].logical + 1 > logical_thread)
				logical_thread = q->ids[1].logical + 1;
		} else if (!found_rank && q->ids[0].logical + 1 > logical_rank) {
			logical_rank = q->ids[0].logical + 1;
		}
	}
	if (!found_rank) {
		logical_rank = 0;
		for (size_t i = 0; i < db->nprofiles; i++) {
			const struct pc_profile *q = &db->profiles[i];
			if (q->nids == 2 && q->ids[0].kind == PC_ID_RANK &&
			    q->ids[0].logical + 1 > logical_rank)
				logical_rank = q->ids[0].logical + 1;
		}
	}
	ids[0].logical = logical_rank;
	ids[1].logical = logical_thread;
}

static void print_costs(char *buf, size_t n, const uint64_t *c, size_t nev,
			const uint8_t *neg)
{
	size_t off = 0;
	buf[0] = 0;
	for (size_t i = 0; i < nev && off + 24 < n; i++)
		off += (size_t)(neg[i] ? snprintf(buf + off, n - off, "%s%lld",
						  i ? " " : "",
						  (long long)(int64_t)c[i]) :
				 snprintf(buf + off, n - off, "%s%llu",
					  i ? " " : "",
					  (unsigned long long)c[i]));
}

/* Functions that are called but have no cost lines and make no calls
 * of their own (a producer that writes the call and not the callee's
 * block; the format allows it): callgrind_annotate and KCachegrind show
 * the calls' inclusive cost as the callee's, so each gets a cost line
 * at its entry (the calls' target position) with the sum of the calls'
 * inclusive costs, and a warning says so. */
static void costless_callees(struct parser *p)
{
	struct cg_graph *g = &p->g;
	size_t nev = g->nev, n = 0;
	uint8_t *busy = pc_xcalloc(g->nfns + 1, 1);
	uint64_t *in = pc_xcalloc(g->nfns * nev + 1, sizeof(uint64_t));
	for (size_t r = 0; r < g->nrecs; r++)
		busy[g->recs[r].fn] = 1;
	for (size_t e = 0; e < g->nedges; e++) {
		busy[g->edges[e].from] = 1;
		for (size_t m = 0; m < nev; m++)
		{
			uint64_t *d = &in[(size_t)g->edges[e].to * nev + m];
			uint64_t v = g->ecost[e * nev + m];
			*d = p->negev[m] ? *d + v : /* (signed: modulo 2^64) */
			     *d > UINT64_MAX - v ? UINT64_MAX : *d + v;
		}
	}
	uint32_t first = UINT32_MAX;
	for (uint32_t f = 0; f < g->nfns; f++) {
		const uint64_t *c = in + (size_t)f * nev;
		int any = 0;
		for (size_t m = 0; m < nev; m++)
			any |= c[m] != 0;
		if (busy[f] || !any)
			continue;
		pc_id func = g->fns[f].func;
		const struct pc_function *fn = &p->db->functions[func];
		struct cg_rec r = {
			.fn = f, .file = fn->file, .module = fn->module,
			.line = func < p->nent ? p->ent_line[func] : 0,
			.addr = func < p->nent ? p->ent_off[func] : 0,
		};
		memcpy(pc_cg_graph_rec(g, &r), c, nev * sizeof(uint64_t));
		first = first == UINT32_MAX ? f : first;
		n++;
	}
	if (n)
		pc_warn(p->db->diag,
			"%s: part %llu: %zu function(s) called without cost "
			"lines of their own (the first: '%s'): the calls' "
			"inclusive cost is kept as theirs, as "
			"callgrind_annotate shows it", p->path,
			(unsigned long long)p->part, n,
			p->db->functions[g->fns[first].func].name);
	free(busy);
	free(in);
}

/* Events with negative counts (a cost that went down) are not laid out
 * themselves: the layout shares out flows that do not go below zero.
 * A function's costs in them follow the layout of its first event
 * without negative counts in which it has a cost of its own (memory
 * goes where time went; cg_lay_records), or else lie flat below the
 * thread's root (cg_lay_signed_flat): every position's cost, every
 * function's and the total stay exact; a call's inclusive cost in
 * them is what its subtree then holds. */
static void signed_costs(struct parser *p)
{
	struct cg_graph *g = &p->g;
	size_t nev = g->nev;
	int any = 0;
	for (size_t m = 0; m < nev; m++)
		any |= p->negev[m];
	if (!any)
		return;
	g->sgn = pc_xmalloc(nev);
	memcpy(g->sgn, p->negev, nev);
	g->scost = pc_xcalloc(g->nrecs * nev + 1, sizeof(int64_t));
	for (size_t r = 0; r < g->nrecs; r++)
		for (size_t m = 0; m < nev; m++)
			if (g->sgn[m]) {
				g->scost[r * nev + m] =
					(int64_t)g->rcost[r * nev + m];
				g->rcost[r * nev + m] = 0;
			}
	for (size_t e = 0; e < g->nedges; e++)
		for (size_t m = 0; m < nev; m++)
			if (g->sgn[m])
				g->ecost[e * nev + m] = 0;
	for (size_t m = 0; m < nev; m++)
		if (g->sgn[m])
			pc_note(p->db->diag, "%s: part %llu: event '%s' has "
				"negative costs: laid out along the calling "
				"contexts of the first event without them in "
				"which a function has a cost (every function's "
				"and position's cost kept, its calls' own "
				"costs in it not)", p->path,
				(unsigned long long)p->part,
				p->db->metrics[p->ev[m]].name);
}

/* Turns the part read so far into a profile. */
void cg_finish_part(struct parser *p)
{
	if (!p->part_has_data)
		return;
	struct cg_graph *g = &p->g;
	/* the part's totals line, else its summary, against the sum of
	 * its cost lines (totals that agree with the cost lines vouch for
	 * them: Callgrind's cache and branch simulations write a summary a
	 * few units above both) */
	const uint64_t *sum = p->selfsum;
	const uint64_t *given = p->have_totals ? p->totals :
				p->have_summary ? p->summary : NULL;
	if (given && memcmp(sum, given, p->nev * sizeof(*sum)) != 0) {
		char a[256], b[256];
		print_costs(a, sizeof a, sum, p->nev, p->negev);
		print_costs(b, sizeof b, given, p->nev, p->negev);
		pc_note(p->db->diag,
			"%s: part %llu: '%s: %s' differs from the sum of the "
			"cost lines (%s); using the sum, as KCachegrind does",
			p->path, (unsigned long long)p->part,
			p->have_totals ? "totals" : "summary", b, a);
	}

	costless_callees(p);
	signed_costs(p);
	if (p->held) {
		struct cg_part part = { p->g, p->pid, p->thread, p->part };
		memset(&p->g, 0, sizeof p->g);
		p->held(p->hctx, &part);
		pc_cg_graph_reset(&part.g);
		p->part_has_data = 0;
		cg_start_graph(p);
		return;
	}

	/* id tuple: the process (pid) and the thread; parts of one thread
	 * (--dump-before) get consecutive logical thread ids */
	struct pc_idelem ids[2] = {
		{ .kind = PC_ID_RANK, .logical = 0, .physical = p->pid },
		{ .kind = PC_ID_THREAD, .logical = 0, .physical = p->thread },
	};
	cg_logical_ids(p->db, ids);
	pc_id prof = pc_profile_add(p->db, ids, 2);
	pc_id entry = pc_ctx_entry(p->db, p->thread <= 1 ? PC_ENTRY_MAIN :
						       PC_ENTRY_APP_THREAD);
	size_t v0 = p->db->nvalues;
	size_t norder;
	pc_id *order = pc_cg_expand(p->db, g, prof, entry, p->opts, &norder);
	/* before the rounding's peak: the graph, and the contexts' lookup
	 * table (no context is added until the next part) */
	pc_cg_graph_reset(&p->g);
	pc_ctx_map_drop(p->db);
	pc_cg_round(p->db, v0, pc_metric_find(p->db, PC_CALLS_METRIC), PC_NONE,
		    order, norder, p->opts ? p->opts->jobs : 1);
	free(order);
	for (size_t i = v0; i < p->db->nvalues && p->ndiv; i++) {
		struct pc_value *v = &p->db->values[i];
		if (v->metric < p->ndiv && p->div[v->metric] != 1)
			v->value /= p->div[v->metric];
	}
	p->part_has_data = 0;
	cg_start_graph(p);
}
