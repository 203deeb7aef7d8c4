/* profconv diff: two runs in one model (doc/callgrind-tree.md, "Two runs
 * compared"). Each side is read as convert reads its inputs (several
 * merge); the model of the comparison takes both trees, contexts with
 * equal paths becoming one, and each metric of the runs becomes three
 * metrics (struct pc_diffm): its values in BASE, in NEW, and NEW - BASE.
 * Any output writes that model; each shows the comparison as its reader
 * does best (doc/formats.md, "Two runs compared"). */
#include "main.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A side's model, and what its tables are in the comparison's. */
struct side {
	struct pc_db *db;
	pc_id *module, *file, *function, *ctx, *profile;
	pc_id *metric, *delta; /* per metric: its model metric, its delta */
	double *scale;         /* per metric: its values times this */
	/* per metric: its scaled values are rounded to whole numbers
	 * (--normalize of a metric whole in both runs: in BASE's unit) */
	uint8_t *round;
	/* per point value: as taken (scaled, rounded); NULL: as read */
	double *val;
	double sign;           /* in the delta: -1 (BASE), 1 (NEW) */
	int one_tree;          /* both runs laid out on one tree (pair) */
};

/* Functions are one by name, module, file, line and twin, not by
 * their address, which moves from one build of a program to the next. */
struct fkey {
	const char *name;
	pc_id module, file;
	uint32_t line, dup;
};
static int fn_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_function *a = &((const struct pc_db *)ctx)->functions[id];
	const struct fkey *b = key;
	return a->name == b->name && a->module == b->module &&
	       a->file == b->file && a->line == b->line && a->dup == b->dup;
}

/* Profiles are one by their id tuples without the node and the core
 * (a rank's thread runs on other hosts and cores from run to run) and
 * without physical ids (process ids). */
static int kept(const struct pc_idelem *e)
{
	return e->kind != PC_ID_NODE && e->kind != PC_ID_CORE;
}
static uint64_t prof_hash(const struct pc_profile *p)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (uint32_t i = 0; i < p->nids; i++)
		if (kept(&p->ids[i]))
			h = pc_hash64(h ^ pc_hash64(((uint64_t)p->ids[i].kind
						      << 48) ^ p->ids[i].logical));
	return h;
}
static int prof_eq(const void *ctx, pc_id id, const void *key)
{
	const struct pc_profile *a = &((const struct pc_db *)ctx)->profiles[id];
	const struct pc_profile *b = key;
	uint32_t i = 0, j = 0;
	for (;;) {
		while (i < a->nids && !kept(&a->ids[i]))
			i++;
		while (j < b->nids && !kept(&b->ids[j]))
			j++;
		if (i == a->nids || j == b->nids)
			return i == a->nids && j == b->nids;
		if (a->ids[i].kind != b->ids[j].kind ||
		    a->ids[i].logical != b->ids[j].logical)
			return 0;
		i++, j++;
	}
}

/* A last component of paths (interned: its address is the key): how
 * many paths of each run have it, and BASE's (the last). */
struct nm {
	const char *name;
	uint32_t nb, nn;
	pc_id id;
};
static int name_eq(const void *ctx, pc_id id, const void *key)
{
	return ((const struct nm *)ctx)[id].name == key;
}

/* A path's last component, interned in c. */
static const char *base_name(struct pc_db *c, const char *path)
{
	const char *s = strrchr(path, '/');
	return pc_intern_cstr(c, s && s[1] ? s + 1 : path);
}

/* Paths (modules or files) of NEW (n) as BASE's (b): the same path, or
 * else the path of BASE with the same last component where that name
 * is unique in both runs (a program built or installed elsewhere:
 * ./src/ping-pong.c and /home/u/src/ping-pong.c). b's paths are in c
 * already; n's are put there. The ids in c of n's, in out. */
static void match_paths(struct pc_db *c, const struct pc_path *b,
			const pc_id *bid, size_t nb, const struct pc_path *n,
			size_t nn, pc_id (*get)(struct pc_db *, const char *),
			pc_id *out)
{
	struct nm *t = pc_xcalloc(nb + nn + 1, sizeof(*t));
	size_t nt = 0;
	struct pc_keymap *map = pc_keymap_new();
	pc_id *slot = pc_xmalloc((nn + 1) * sizeof(pc_id));
	for (size_t i = 0; i < nb + nn; i++) {
		const char *bn = base_name(c, i < nb ? b[i].path : n[i - nb].path);
		uint64_t h = pc_hash64((uint64_t)(uintptr_t)bn);
		pc_id k = pc_keymap_find(map, h, name_eq, t, bn);
		if (k == PC_NONE) {
			k = (pc_id)nt++;
			t[k].name = bn;
			pc_keymap_insert(map, h, k);
		}
		if (i < nb) {
			t[k].nb++;
			t[k].id = bid[i];
		} else {
			t[k].nn++;
			slot[i - nb] = k;
		}
	}
	for (size_t i = 0; i < nn; i++) {
		const struct nm *x = &t[slot[i]];
		out[i] = x->nb == 1 && x->nn == 1 ? x->id : get(c, n[i].path);
	}
	free(slot);
	free(t);
	pc_keymap_free(map);
}

/* The side's modules, files, functions, contexts and profiles in c
 * (b: BASE's, when s is NEW's). */
static void take_tables(struct pc_db *c, struct side *s, const struct side *b,
			struct pc_keymap *fmap, struct pc_keymap *pmap)
{
	const struct pc_db *db = s->db;
	s->module = pc_xmalloc((db->nmodules + 1) * sizeof(pc_id));
	s->file = pc_xmalloc((db->nfiles + 1) * sizeof(pc_id));
	if (b) {
		match_paths(c, b->db->modules, b->module, b->db->nmodules,
			    db->modules, db->nmodules, pc_module_get, s->module);
		match_paths(c, b->db->files, b->file, b->db->nfiles,
			    db->files, db->nfiles, pc_file_get, s->file);
	} else {
		for (size_t i = 0; i < db->nmodules; i++)
			s->module[i] = pc_module_get(c, db->modules[i].path);
		for (size_t i = 0; i < db->nfiles; i++)
			s->file[i] = pc_file_get(c, db->files[i].path);
	}
	s->function = pc_xmalloc((db->nfunctions + 1) * sizeof(pc_id));
	for (size_t i = 0; i < db->nfunctions; i++) {
		const struct pc_function *f = &db->functions[i];
		struct fkey k = {
			pc_intern_cstr(c, f->name),
			f->module == PC_NONE ? PC_NONE : s->module[f->module],
			f->file == PC_NONE ? PC_NONE : s->file[f->file],
			f->line, f->dup,
		};
		uint64_t h = pc_hash64(pc_hash64((uint64_t)(uintptr_t)k.name) ^
				       ((uint64_t)k.module << 32 | k.file)) ^
			     ((uint64_t)k.line << 32 | k.dup);
		pc_id id = pc_keymap_find(fmap, h, fn_eq, c, &k);
		if (id == PC_NONE) {
			id = pc_function_get_dup(c, k.name, k.module, f->offset,
						 k.file, k.line, k.dup);
			pc_keymap_insert(fmap, h, id);
		}
		s->function[i] = id;
	}
	s->ctx = pc_xmalloc((db->ncontexts + 1) * sizeof(pc_id));
	s->ctx[0] = 0;
	for (size_t i = 1; i < db->ncontexts; i++) {
		struct pc_context k = db->contexts[i];
		if (k.function != PC_NONE)
			k.function = s->function[k.function];
		if (k.file != PC_NONE)
			k.file = s->file[k.file];
		if (k.module != PC_NONE)
			k.module = s->module[k.module];
		s->ctx[i] = pc_ctx_child(c, s->ctx[k.parent], &k);
	}
	s->profile = pc_xmalloc((db->nprofiles + 1) * sizeof(pc_id));
	for (size_t i = 0; i < db->nprofiles; i++) {
		const struct pc_profile *p = &db->profiles[i];
		uint64_t h = prof_hash(p);
		pc_id id = pc_keymap_find(pmap, h, prof_eq, c, p);
		if (id == PC_NONE) {
			id = pc_profile_add(c, p->ids, p->nids);
			pc_keymap_insert(pmap, h, id);
		}
		s->profile[i] = id;
	}
}

/* Each metric's point values summed over every profile. */
static double *totals(const struct pc_db *db)
{
	double *t = pc_xcalloc(db->nmetrics + 1, sizeof(double));
	for (size_t i = 0; i < db->nvalues; i++)
		t[db->values[i].metric] += db->values[i].value;
	return t;
}

/* Does every value of metric m count whole units: the input said so,
 * or each of its values is a whole number (a v4 database's counts)? */
static int counts_whole(const struct pc_db *db, pc_id m)
{
	if (db->metrics[m].whole)
		return 1;
	for (size_t i = 0; i < db->nvalues; i++)
		if (db->values[i].metric == m &&
		    db->values[i].value != floor(db->values[i].value))
			return 0;
	for (size_t i = 0; i < db->nscoped; i++)
		if (db->scoped[i].metric / PC_NSCOPES == m &&
		    db->scoped[i].value != floor(db->scoped[i].value))
			return 0;
	return 1;
}

/* The metrics of the comparison: those of BASE in order, then those
 * only NEW has, each as three metrics (base, new, delta). */
static void take_metrics(struct pc_db *c, struct side *b, struct side *n,
			 int normalize)
{
	const char **names = pc_xmalloc((b->db->nmetrics + n->db->nmetrics + 1) *
					sizeof(char *));
	size_t nn = 0;
	for (size_t m = 0; m < b->db->nmetrics; m++)
		names[nn++] = b->db->metrics[m].name;
	for (size_t m = 0; m < n->db->nmetrics; m++)
		if (pc_metric_find(b->db, n->db->metrics[m].name) == PC_NONE)
			names[nn++] = n->db->metrics[m].name;
	c->diff = pc_db_alloc(c, (nn + 1) * sizeof(*c->diff));
	c->ndiff = nn;
	struct side *sides[2] = { b, n };
	for (int k = 0; k < 2; k++) {
		struct side *s = sides[k];
		s->metric = pc_xmalloc((s->db->nmetrics + 1) * sizeof(pc_id));
		s->delta = pc_xmalloc((s->db->nmetrics + 1) * sizeof(pc_id));
		s->scale = pc_xmalloc((s->db->nmetrics + 1) * sizeof(double));
		s->round = pc_xcalloc(s->db->nmetrics + 1, 1);
		for (size_t m = 0; m < s->db->nmetrics; m++)
			s->scale[m] = 1;
	}
	/* runs that share no metric of cost (Callgrind's calls= counts,
	 * which every call graph has, aside): every change is all of one
	 * run, said */
	const char *own[2] = { NULL, NULL };
	int shared = 0;
	for (size_t i = 0; i < nn; i++) {
		if (!strcmp(names[i], PC_CALLS_METRIC))
			continue;
		int ib = pc_metric_find(b->db, names[i]) != PC_NONE;
		int in = pc_metric_find(n->db, names[i]) != PC_NONE;
		shared |= ib && in;
		if (!own[!ib])
			own[!ib] = names[i];
	}
	if (!shared && own[0] && own[1])
		pc_warn(c->diag, "BASE and NEW share no metric (BASE has '%s', "
			"NEW '%s'): each is compared with nothing", own[0],
			own[1]);
	double *tb = totals(b->db), *tn = totals(n->db);
	for (size_t i = 0; i < nn; i++) {
		pc_id mb = pc_metric_find(b->db, names[i]);
		pc_id mn = pc_metric_find(n->db, names[i]);
		const struct pc_metric *x = &(mb != PC_NONE ? b->db : n->db)
			->metrics[mb != PC_NONE ? mb : mn];
		if (normalize && mb != PC_NONE && mn != PC_NONE) {
			if (tn[mn] != 0 && tb[mb] != 0) {
				/* by magnitudes: a scale below 0 would turn
				 * every value of NEW's sign */
				n->scale[mn] = fabs(tb[mb] / tn[mn]);
				if ((tb[mb] < 0) != (tn[mn] < 0))
					pc_warn(c->diag, "--normalize: metric "
						"'%s' totals %.17g in BASE, %.17g "
						"in NEW (opposite signs): NEW "
						"scaled by their magnitudes, its "
						"signs kept", names[i], tb[mb],
						tn[mn]);
			} else
				pc_warn(c->diag, "--normalize: metric '%s' has "
					"a total of 0 in %s: not scaled",
					names[i], tb[mb] == 0 ? "BASE" : "NEW");
		}
		int wb = mb == PC_NONE || b->db->metrics[mb].whole;
		/* a count scaled is a count still, in BASE's unit: readers
		 * show it as they show BASE's (not times 10^k) */
		if (mn != PC_NONE && n->scale[mn] != 1 &&
		    counts_whole(b->db, mb) && counts_whole(n->db, mn))
			n->round[mn] = 1;
		int wn = mn == PC_NONE ||
			 (n->db->metrics[mn].whole &&
			  (n->scale[mn] == 1 || n->round[mn]));
		static const char *const tag[3] = { "base", "new", "new-base" };
		static const char *const what[3] = {
			"in the base run", "in the new run", "new run less base run",
		};
		pc_id id[3];
		for (int k = 0; k < 3; k++) {
			char name[4200], desc[4200];
			snprintf(name, sizeof name, "%s [%s]", names[i], tag[k]);
			snprintf(desc, sizeof desc, "%s, %s%s",
				 *x->description ? x->description : names[i],
				 what[k], k && normalize && mn != PC_NONE &&
				 n->scale[mn] != 1 ? " (scaled to its total)" : "");
			int whole = k == 0 ? wb : k == 1 ? wn : wb && wn;
			id[k] = (whole ? pc_metric_get_whole : pc_metric_get)(
				c, name, desc, x->unit);
		}
		/* a v4 input's scopes: its own, or those of either */
		unsigned sb = mb != PC_NONE ? b->db->metrics[mb].scopes : 0;
		unsigned sn = mn != PC_NONE ? n->db->metrics[mn].scopes : 0;
		c->metrics[id[0]].scopes = (uint8_t)sb;
		c->metrics[id[1]].scopes = (uint8_t)sn;
		c->metrics[id[2]].scopes = (uint8_t)(sb && sn ? sb | sn : 0);
		c->diff[i] = (struct pc_diffm){ pc_intern_cstr(c, names[i]),
						id[0], id[1], id[2] };
		if (mb != PC_NONE)
			b->metric[mb] = id[0], b->delta[mb] = id[2];
		if (mn != PC_NONE)
			n->metric[mn] = id[1], n->delta[mn] = id[2];
	}
	free(tb);
	free(tn);
	free(names);
}

/* Point values of a metric rounded (struct side.round): each scaled
 * value down, then one more to those of the largest remainders (the
 * first in the model's order among equal ones) until they sum to the
 * scaled total rounded: every value within 1 of its exact scaled
 * value, the total BASE's (largest remainder). */
struct rem {
	double r;
	size_t i;
};
static int rem_cmp(const void *a, const void *b)
{
	const struct rem *x = a, *y = b;
	if (x->r != y->r)
		return x->r > y->r ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}
static void round_values(struct side *s)
{
	const struct pc_db *db = s->db;
	int any = 0;
	for (size_t m = 0; m < db->nmetrics; m++)
		any |= s->round[m];
	if (!any)
		return;
	s->val = pc_xmalloc((db->nvalues + 1) * sizeof(double));
	for (size_t i = 0; i < db->nvalues; i++)
		s->val[i] = db->values[i].value * s->scale[db->values[i].metric];
	struct rem *r = pc_xmalloc((db->nvalues + 1) * sizeof(*r));
	for (size_t m = 0; m < db->nmetrics; m++) {
		if (!s->round[m])
			continue;
		size_t nr = 0;
		double total = 0, down = 0;
		for (size_t i = 0; i < db->nvalues; i++)
			if (db->values[i].metric == m) {
				total += db->values[i].value;
				double f = floor(s->val[i]);
				r[nr++] = (struct rem){ s->val[i] - f, i };
				s->val[i] = f;
				down += f;
			}
		double left = nearbyint(total * s->scale[m]) - down;
		qsort(r, nr, sizeof(*r), rem_cmp);
		for (size_t k = 0; k < nr && left >= 1; k++, left--)
			s->val[r[k].i] += 1;
	}
	free(r);
}

/* The side's values, as its own metric's and in the delta; stored
 * scopes too (the delta's where it stores them). */
static void take_values(struct pc_db *c, const struct side *s)
{
	const struct pc_db *db = s->db;
	pc_values_reserve(c, 2 * db->nvalues);
	for (size_t i = 0; i < db->nvalues; i++) {
		const struct pc_value *v = &db->values[i];
		pc_id p = s->profile[v->profile], x = s->ctx[v->ctx];
		double val = s->val ? s->val[i] : v->value * s->scale[v->metric];
		pc_value_add(c, p, x, s->metric[v->metric], val);
		pc_value_add(c, p, x, s->delta[v->metric], s->sign * val);
	}
	for (size_t i = 0; i < db->nscoped; i++) {
		const struct pc_value *v = &db->scoped[i];
		size_t m = v->metric / PC_NSCOPES;
		unsigned k = v->metric % PC_NSCOPES;
		pc_id p = s->profile[v->profile], x = s->ctx[v->ctx];
		double val = v->value * s->scale[m];
		if (s->round[m]) /* (nearest: its own sum) */
			val = nearbyint(val);
		pc_scoped_add(c, p, x, s->metric[m], k, val);
		pc_scoped_add(c, p, x, s->delta[m], k, s->sign * val);
	}
}

/* The delta of a metric stores a scope that one side stored and the
 * other did not: that side's values of it are derived from its point
 * values (as a v4 writer derives them: execution over every callee,
 * function over lexical children, lex_aware without loops) and go
 * into the delta too. Dense per profile: for the rare mix of a
 * database and a call graph. */
static void derive_scopes(struct pc_db *c, const struct side *s)
{
	const struct pc_db *db = s->db;
	size_t nc = c->ncontexts;
	double *acc = NULL;
	for (size_t m = 0; m < db->nmetrics; m++) {
		unsigned own = db->metrics[m].stored;
		unsigned want = c->metrics[s->delta[m]].stored & ~own;
		if (!want)
			continue;
		if (!acc)
			acc = pc_xcalloc(nc * 3, sizeof(double));
		for (size_t i = 0; i < db->nvalues;) {
			pc_id pr = db->values[i].profile;
			for (; i < db->nvalues && db->values[i].profile == pr; i++)
				if (db->values[i].metric == m)
					for (int k = 0; k < 3; k++)
						acc[s->ctx[db->values[i].ctx] * 3 + k] +=
							s->val ? s->val[i] :
							db->values[i].value * s->scale[m];
			for (size_t x = nc; x-- > 1;) {
				const struct pc_context *cx = &c->contexts[x];
				double *a = acc + x * 3, *p = acc + cx->parent * 3;
				p[2] += a[2];
				if (cx->rel == PC_REL_LEXICAL && cx->parent) {
					p[0] += a[0];
					if (cx->kind != PC_CTX_LOOP)
						p[1] += a[1];
				}
			}
			for (size_t x = 0; x < nc; x++) {
				double *a = acc + x * 3;
				double sc[PC_NSCOPES] = {
					0, a[0],
					c->contexts[x].kind == PC_CTX_LOOP ? a[1] : a[0],
					a[2],
				};
				for (unsigned k = 1; k < PC_NSCOPES; k++)
					if ((want & (1u << k)) && (x || k == PC_SCOPE_EXECUTION))
						pc_scoped_add(c, s->profile[pr], (pc_id)x,
							      s->delta[m], k,
							      s->sign * sc[k]);
				a[0] = a[1] = a[2] = 0;
			}
		}
	}
	free(acc);
}

static void side_free(struct side *s)
{
	free(s->module);
	free(s->file);
	free(s->function);
	free(s->ctx);
	free(s->profile);
	free(s->metric);
	free(s->delta);
	free(s->scale);
	free(s->round);
	free(s->val);
	pc_db_free(s->db);
}

/* What the comparison's model leaves out of the runs, said once. */
static void left_out(struct pc_diag *d, const struct side *s, const char *nm)
{
	uint64_t samples = pc_samples_total(s->db);
	if (samples)
		pc_note(d, "%s: its %llu trace sample(s) are left out (a "
			"comparison has no time line)", nm,
			(unsigned long long)samples);
	if (s->db->nderived)
		pc_note(d, "%s: its %zu derived metric(s) are left out (their "
			"formulas name one run's metrics)", nm,
			s->db->nderived);
}

/* The model of BASE (b) and NEW (n) compared; they are freed. */
static struct pc_db *compare(struct opts *o, struct side *b, struct side *n,
			     const char *title)
{
	struct pc_db *c = pc_db_new(&o->diag);
	struct pc_keymap *fmap = pc_keymap_new(), *pmap = pc_keymap_new();
	take_tables(c, b, NULL, fmap, pmap);
	take_tables(c, n, b, fmap, pmap);
	pc_keymap_free(fmap);
	pc_keymap_free(pmap);
	take_metrics(c, b, n, o->normalize);
	c->title = pc_intern_cstr(c, title);
	c->stats = b->db->stats || n->db->stats;
	round_values(n);
	take_values(c, b);
	take_values(c, n);
	derive_scopes(c, b);
	derive_scopes(c, n);
	pc_values_finish(c);
	/* contexts of one run only: said, for a user who expected the
	 * trees to match */
	uint8_t *seen = pc_xcalloc(c->ncontexts + 1, 1);
	for (size_t i = 0; i < b->db->ncontexts; i++)
		seen[b->ctx[i]] |= 1;
	for (size_t i = 0; i < n->db->ncontexts; i++)
		seen[n->ctx[i]] |= 2;
	size_t only[4] = { 0 };
	for (size_t i = 1; i < c->ncontexts; i++)
		only[seen[i]]++;
	free(seen);
	pc_note(&o->diag, "%zu context(s) in both runs, %zu only in BASE, "
		"%zu only in NEW", only[3], only[1], only[2]);
	/* the comparison's program, BASE's (else NEW's), which pprof
	 * names: a diff's title names its inputs, not a command, and its
	 * first module may be any library. Two programs are said. */
	pc_id pb = pc_main_module(b->db), pn = pc_main_module(n->db);
	c->program = pb != PC_NONE ? b->module[pb] :
		     pn != PC_NONE ? n->module[pn] : PC_NONE;
	if (pb != PC_NONE && pn != PC_NONE) {
		const char *xb = base_name(c, b->db->modules[pb].path);
		const char *xn = base_name(c, n->db->modules[pn].path);
		if (xb != xn)
			pc_warn(&o->diag, "BASE and NEW are different programs "
				"(%s, %s): only what they share compares", xb,
				xn);
	}
	/* where either run's tree was cut, said by every output */
	const char *cb = b->db->cut_note, *cn = n->db->cut_note;
	if (b->one_tree && cb) {
		char note[1024];
		snprintf(note, sizeof note, "one tree for both runs: %s", cb);
		pc_db_cut(c, b->db->cut_share, note);
	} else if (cb || cn) {
		size_t len = (cb ? strlen(cb) : 0) + (cn ? strlen(cn) : 0) + 32;
		char *note = pc_xmalloc(len);
		snprintf(note, len, "%s%s%s%s", cb ? "BASE's " : "", cb ? cb : "",
			 cb && cn ? "; NEW's " : cn ? "NEW's " : "", cn ? cn : "");
		pc_db_cut(c, fmax(b->db->cut_share, n->db->cut_share), note);
		free(note);
	}
	left_out(&o->diag, b, "BASE");
	left_out(&o->diag, n, "NEW");
	side_free(b);
	side_free(n);
	return c;
}

/* Run k of a pair read onto one tree (pc_importer.read_pair) from its
 * model c: c's tables in order (the same ids: each is unique there),
 * the metrics of run k (NEW's named with PC_PAIR_SUFFIX, which is taken
 * off) and their values. */
static struct pc_db *part_run(struct opts *o, const struct pc_db *c, int k,
			      const char *title)
{
	struct pc_db *d = pc_db_new(&o->diag);
	d->no_traces = 1;
	for (size_t i = 0; i < c->nmodules; i++)
		pc_module_get(d, c->modules[i].path);
	for (size_t i = 0; i < c->nfiles; i++)
		pc_file_get(d, c->files[i].path);
	for (size_t i = 0; i < c->nfunctions; i++) {
		const struct pc_function *f = &c->functions[i];
		pc_function_get_dup(d, f->name, f->module, f->offset, f->file,
				    f->line, f->dup);
	}
	pc_ctx_reserve(d, c->ncontexts);
	for (size_t i = 1; i < c->ncontexts; i++)
		pc_ctx_child(d, c->contexts[i].parent, &c->contexts[i]);
	for (size_t i = 0; i < c->nprofiles; i++)
		pc_profile_add(d, c->profiles[i].ids, c->profiles[i].nids);
	if (d->nmodules != c->nmodules || d->nfiles != c->nfiles ||
	    d->nfunctions != c->nfunctions || d->ncontexts != c->ncontexts ||
	    d->nprofiles != c->nprofiles)
		pc_die("diff: a run's tables differ from the pair's model");
	size_t sl = strlen(PC_PAIR_SUFFIX);
	pc_id *map = pc_xmalloc((c->nmetrics + 1) * sizeof(pc_id));
	for (size_t m = 0; m < c->nmetrics; m++) {
		const struct pc_metric *x = &c->metrics[m];
		size_t len = strlen(x->name);
		int nw = len > sl && !strcmp(x->name + len - sl, PC_PAIR_SUFFIX);
		map[m] = PC_NONE;
		if (nw != k)
			continue;
		const char *name = pc_intern(d, x->name, nw ? len - sl : len);
		map[m] = (x->whole ? pc_metric_get_whole : pc_metric_get)(
			d, name, x->description, x->unit);
	}
	for (size_t i = 0; i < c->nvalues; i++) {
		const struct pc_value *v = &c->values[i];
		if (map[v->metric] != PC_NONE)
			pc_value_add(d, v->profile, v->ctx, map[v->metric],
				     v->value);
	}
	pc_values_finish(d);
	/* its program (pc_main_module, which would find the other run's
	 * "main" in the tables both share): the module of the first
	 * "main" it has costs below, else of the modules it has costs in
	 * the one its command names */
	uint8_t *hot = pc_xcalloc(c->ncontexts + 1, 1);
	uint8_t *mod = pc_xcalloc(c->nmodules + 1, 1);
	for (size_t i = 0; i < c->nvalues; i++)
		if (map[c->values[i].metric] != PC_NONE)
			hot[c->values[i].ctx] = 1;
	pc_id mainf = PC_NONE;
	for (size_t i = c->ncontexts; i-- > 1;) {
		const struct pc_context *x = &c->contexts[i];
		if (!hot[i])
			continue;
		hot[x->parent] = 1;
		if (x->kind != PC_CTX_FUNCTION ||
		    c->functions[x->function].module == PC_NONE)
			continue;
		mod[c->functions[x->function].module] = 1;
		if (x->function < mainf &&
		    !strcmp(c->functions[x->function].name, "main"))
			mainf = x->function;
	}
	if (mainf != PC_NONE)
		d->program = c->functions[mainf].module;
	for (size_t m = 0; mainf == PC_NONE && title && m < c->nmodules; m++) {
		const char *b = title, *p = c->modules[m].path;
		size_t n = strcspn(title, " ");
		for (size_t i = 0; i < n; i++)
			if (title[i] == '/')
				b = title + i + 1;
		n -= (size_t)(b - title);
		p = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		if (mod[m] && n && !strncmp(p, b, n)) {
			d->program = (pc_id)m;
			break;
		}
	}
	free(mod);
	free(hot);
	free(map);
	if (title)
		d->title = pc_intern_cstr(d, title);
	if (c->cut_note)
		pc_db_cut(d, c->cut_share, c->cut_note);
	return d;
}

/* BASE and NEW, one input each of a format that reads two runs onto
 * one tree (pc_importer.read_pair: Callgrind), read so into *b and *n:
 * 1; 0 where they are not such a pair (read apart, as several inputs
 * per run or a mix of formats are); -1 on an error (err set). */
static int load_pair(struct opts *o, char *bin, char *nin, struct pc_db **b,
		     struct pc_db **n, struct pc_err *err)
{
	struct stat sb, sn;
	if (o->apart || o->mpi_size > 1 || !strcmp(bin, "-") ||
	    !strcmp(nin, "-") ||
	    stat(bin, &sb) || stat(nin, &sn) || !S_ISREG(sb.st_mode) ||
	    !S_ISREG(sn.st_mode) || !sb.st_size || !sn.st_size)
		return 0;
	struct pc_err e = { 0 };
	const struct pc_importer *ib = detect(bin, o->from, &e);
	const struct pc_importer *in = ib ? detect(nin, o->from, &e) : NULL;
	if (!ib || ib != in || !ib->read_pair)
		return 0; /* (load says what is wrong) */
	struct pc_db *c = pc_db_new(&o->diag);
	c->no_traces = 1;
	const char *path[2] = { bin, nin }, *title[2] = { NULL, NULL };
	if (ib->read_pair(c, path, title, &o->imp, err)) {
		pc_db_free(c);
		return -1;
	}
	pc_values_finish(c);
	*b = part_run(o, c, 0, title[0]);
	*n = part_run(o, c, 1, title[1]);
	int cut = c->cut_note != NULL;
	pc_db_free(c);
	*b = load_end(o, *b, &bin, 1, 0, err);
	if (*b)
		*n = load_end(o, *n, &nin, 1, 0, err);
	else
		pc_db_free(*n);
	if (!*b || !*n) {
		pc_db_free(*b);
		return -1;
	}
	/* said where it matters: a cut tree (a whole one is each run's) */
	if (cut)
		pc_note(&o->diag, "BASE and NEW laid out on one calling-"
			"context tree (%s inputs): a context's change is the "
			"runs' own, not two estimates'", ib->name);
	return 1;
}

/* "a" or "a (and 3 more)" */
static void side_name(char *buf, size_t len, char **inputs, int n)
{
	if (n > 1)
		snprintf(buf, len, "%s (and %d more)", inputs[0], n - 1);
	else
		snprintf(buf, len, "%s", inputs[0]);
}

int cmd_diff(struct opts *o, char **inputs, int n)
{
	int at = -1;
	for (int i = 0; i < n; i++)
		if (!strcmp(inputs[i], ":")) {
			if (at >= 0)
				return usage_error("%s", "diff: ':' separates "
						   "BASE from NEW once");
			at = i;
		}
	int nb = at >= 0 ? at : n == 2 ? 1 : -1;
	int nn = at >= 0 ? n - at - 1 : n == 2 ? 1 : -1;
	if (nb < 1 || nn < 1)
		return usage_error("%s", "diff needs BASE and NEW: two inputs, "
				   "or several per run as BASE... : NEW...");
	char **bin = inputs, **nin = inputs + (at >= 0 ? at + 1 : 1);
	const struct pc_exporter *ex;
	int urc = output_choose(o, &ex);
	if (urc)
		return urc;
	struct pc_err err = { 0 };
	if (ex->needs_trace) {
		pc_err_set(&err, "%s output is a time line, which a comparison "
			   "of two runs does not have (-t folded, svg, pprof, "
			   "callgrind or hpctoolkit)", ex->label);
		report(&err);
		return 1;
	}
	char bname[4200], nname[4200], title[8500];
	side_name(bname, sizeof bname, bin, nb);
	side_name(nname, sizeof nname, nin, nn);
	/* (both runs' inputs, without the ':' between them) */
	char **all = pc_xmalloc((size_t)(nb + nn) * sizeof(char *));
	memcpy(all, bin, (size_t)nb * sizeof(char *));
	memcpy(all + nb, nin, (size_t)nn * sizeof(char *));
	int bad = output_check(o, ex, all, nb + nn, &err);
	free(all);
	if (bad) {
		report(&err);
		return 1;
	}
	pc_dest_signals();
	o->imp.point_only = ex->point_only;
	o->imp.no_traces = 1; /* counted for a note, left out */
	o->imp.jobs = o->exp.jobs = o->jobs;
	struct side b = { .sign = -1 }, nw = { .sign = 1 };
	int pair = nb == 1 && nn == 1 ?
			   load_pair(o, bin[0], nin[0], &b.db, &nw.db, &err) : 0;
	if (pair < 0) {
		report(&err);
		return 1;
	}
	b.one_tree = nw.one_tree = pair;
	if (!pair)
		b.db = load(o, bin, nb, NULL, NULL, &err);
	if (!b.db) {
		pc_err_context(&err, "reading BASE");
		report(&err);
		return 1;
	}
	if (!pair)
		nw.db = load(o, nin, nn, NULL, NULL, &err);
	if (!nw.db) {
		pc_err_context(&err, "reading NEW");
		report(&err);
		pc_db_free(b.db);
		return 1;
	}
	snprintf(title, sizeof title, "%s vs %s", bname, nname);
	struct pc_db *c = compare(o, &b, &nw, title);
	int rc = ex->write(c, o->out, &o->exp, &err) ? 1 : 0;
	if (rc) {
		report(&err);
	} else if (!o->diag.quiet) {
		char size[32] = "to standard output";
		if (strcmp(o->out, "-"))
			pc_human_size(size, sizeof size,
				      pc_dest_size(o->out, ex->is_dir));
		/* (paths' bytes escaped, as in every message) */
		char line[22000];
		snprintf(line, sizeof line, "wrote %s (%s, %s): %s compared "
			 "with %s: %zu metric%s, %zu profile%s, %zu context%s",
			 o->out, ex->name, size, nname, bname, c->ndiff,
			 c->ndiff == 1 ? "" : "s", c->nprofiles,
			 c->nprofiles == 1 ? "" : "s", c->ncontexts - 1,
			 c->ncontexts == 2 ? "" : "s");
		pc_escape_controls(line, sizeof line);
		fprintf(stderr, "profconv: %s\n", line);
	}
	pc_db_free(c);
	return rc;
}
