/* Old HPCToolkit databases: what the reader's parts share (see
 * hpctoolkit_legacy.c). experiment.xml is read by
 * hpctoolkit_legacy_xml.c, the finalize formulas of derived metrics by
 * hpctoolkit_legacy_formula.c, the binary files and the values by
 * hpctoolkit_legacy.c. */
#ifndef PC_HPCTOOLKIT_LEGACY_H
#define PC_HPCTOOLKIT_LEGACY_H

#include "pc.h"

#include <libxml/xmlreader.h>

/* ------------------------------------------------------------------ */
/* Sorted id -> value tables.                                         */

struct idv {
	uint32_t id, v;
};
struct idtab {
	struct idv *e;
	size_t n, cap;
	/* once sorted, where the ids are dense (as writers make them):
	 * the value of each id up to the largest, UINT32_MAX for none */
	uint32_t *dense;
	size_t ndense;
};
void idtab_add(struct idtab *t, uint32_t id, uint32_t v);
/* Sorts; returns an id listed twice, or -1. */
int64_t idtab_sort(struct idtab *t);
int idtab_search(const struct idtab *t, uint32_t id, uint32_t *v);
/* The value of id in *v: 1, or 0 if it has none (after idtab_sort). */
static inline int idtab_get(const struct idtab *t, uint32_t id, uint32_t *v)
{
	if (!t->dense)
		return idtab_search(t, id, v);
	if (id >= t->ndense || t->dense[id] == UINT32_MAX)
		return 0;
	*v = t->dense[id];
	return 1;
}
void idtab_free(struct idtab *t);

/* ------------------------------------------------------------------ */
/* The reader.                                                        */

enum { SC_NONE, SC_INCL, SC_EXCL };

/* A metric column of the measured values (MetricDB, or Metric when
 * the values are only inline). */
struct mcol {
	pc_id metric;    /* model metric */
	uint8_t scope;   /* SC_* */
	int32_t dbid;    /* column in metric-db files, -1 if none */
};

struct proc {
	const char *name;
	uint64_t offset;
};

/* A context of the XML with a positive id (values can be stored at
 * it). parent: index of the nearest such ancestor (0: the root). */
struct node {
	uint32_t id;
	uint32_t parent;
	pc_id ctx;
	uint8_t folded; /* a call site folded into its entry: no scopes */
	uint8_t frame;  /* PF, Pr or A: starts a frame of its own */
};

/* An open element of the tree. */
struct open {
	pc_id ctx;
	pc_id file;     /* where its lines are */
	pc_id module;
	uint32_t node;  /* nearest node with values */
	uint8_t entry;  /* a root frame that became an entry point */
	uint8_t own;    /* node is this element's own (positive id) */
	uint8_t tree;   /* a tree element (not M, not a wrapper) */
	uint8_t idle;   /* in the root frame "<no activity>" (hpcprof's for
			 * trace samples of a thread doing nothing) */
};

struct legacy {
	struct pc_db *db;
	struct pc_err *err;
	char dir[4096];
	char xml[4200];
	xmlTextReaderPtr xr;
	int major;              /* experiment.xml major version */
	char xml_err[1024];     /* libxml2's first error */
	int xml_err_line;

	/* tables */
	struct idtab mod_t, file_t, proc_t, kind_t;
	pc_id *mods, *files;
	size_t nmods, capmods, nfiles, capfiles;
	struct proc *procs;
	size_t nprocs, capprocs;
	/* MetricTable metrics (i -> name, t) and MetricDB columns */
	struct xmetric {
		uint32_t id;
		const char *name;
		uint8_t scope;
		uint8_t derived; /* v="derived" or a finalize formula */
		uint8_t hidden;  /* show="4" */
		uint8_t stat;    /* a statistic over threads (is_stat) */
		const char *frm; /* its finalize formula, or NULL */
	} *xm;
	size_t nxm, capxm;
	int stats; /* statistics over threads to carry (warn_dropped) */
	struct mcol *cols;
	size_t ncols, capcols;
	struct idtab col_t;     /* MetricDB i -> cols index */
	struct idtab xm_t;      /* Metric i -> xm index */
	int in_metric;          /* inside <Metric>: formulas belong to it */

	/* the tree */
	struct node *nodes;
	size_t nnodes, capnodes;
	struct idtab node_t;    /* id -> node index */
	struct idtab it_t;      /* trace id -> model context */
	struct open *stack;
	size_t depth, capdepth;
	int in_data;
	/* inline <M> values: node, Metric i, value */
	struct inl {
		uint32_t node, metric;
		double v;
	} *inl;
	size_t ninl, capinl;
	uint32_t root_id;

	/* scratch for point recovery, one profile at a time */
	struct cell {
		uint32_t node, metric; /* metric: model id; node UINT32_MAX: free */
		double own, kids;
	} *cells;
	size_t ncells, capcells;
	/* the cells taken, a bit a cell: put_points visits them in the
	 * table's order without reading the whole table */
	uint64_t *taken;
	/* a profile's contexts, by model context (read_one) */
	struct pc_keyidx *ord;
	size_t capord;
	/* model metric -> which scopes its columns have (bit SC_*) */
	uint8_t *mscopes;
	/* 2.x: the profile of each (rank, thread) */
	struct thr {
		uint64_t rank, thread;
		pc_id prof;
	} *thr;
	size_t nthr, capthr;
	uint64_t ns_per_tick; /* hpctrace times: 1000 if microseconds */
	/* values at context ids the XML does not list (said once read) */
	uint64_t elided; /* (profile, context) pairs */
	int point_only; /* the caller reads point values only */
	unsigned jobs;  /* threads that read profiles (-j) */
	/* 4.x trace.db, mapped, and its lines by profile index: profile
	 * i's are tl[tfirst[i] .. tfirst[i + 1]) */
	struct pc_blob tb;
	struct pc_tline *tl;
	uint64_t *tfirst;
	/* derived metrics not carried: said once the values are read (an
	 * error in them is then the one line) */
	size_t not_carried;
	char not_carried_list[1024];
};

/* Reads experiment.xml: tables and tree. */
int legacy_read_xml(struct legacy *r);
/* A measured metric column: MetricDB id -> cols index (t: its
 * scope's word, "inclusive"/"exclusive", or NULL). */
int legacy_add_column(struct legacy *r, uint32_t id, const char *name,
		      const char *t, int32_t dbid);
/* The name without its " (I)"/" (E)" suffix, interned. */
const char *legacy_base_name(struct legacy *r, const char *name);
/* The MetricTable's derived metrics and statistics, once the values are
 * read (see hpctoolkit_legacy_formula.c). */
void legacy_derived_metrics(struct legacy *r, int per_thread);

#endif
