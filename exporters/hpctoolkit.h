/* HPCToolkit v4 database writer family: hpctoolkit.c drives it and
 * writes profile.db, cct.db and trace.db; hpctoolkit_meta.c meta.db;
 * hpctoolkit_yaml.c metrics/default.yaml. FORMAT-NOTES section 1. */
#ifndef PC_HPCTOOLKIT_H
#define PC_HPCTOOLKIT_H

#include "pc.h"
#include "buf.h"

/* Propagation scopes, in the order hpcprof writes them (the model's). */
enum {
	HPC_POINT = PC_SCOPE_POINT,
	HPC_FUNCTION = PC_SCOPE_FUNCTION,
	HPC_LEXAWARE = PC_SCOPE_LEXAWARE,
	HPC_EXECUTION = PC_SCOPE_EXECUTION,
	HPC_NSCOPES = PC_NSCOPES,
};

/* Summary statistics ("partials"); the first is the only default. */
struct hpc_partial {
	const char *formula;
	uint8_t combine; /* 0 sum, 1 min, 2 max */
	const char *yaml_combine;
};
extern const struct hpc_partial hpc_partials[5];

struct hpc_layout {
	size_t nmetrics;
	unsigned npartials; /* 1, or 5 with --stats */
	/* per metric, bit 1<<scope: the scopes it is written with (see
	 * hpc_layout_scopes) */
	uint8_t *scopes;
};

static inline uint16_t hpc_prop_id(const struct hpc_layout *l, size_t m,
				   unsigned scope)
{
	return (uint16_t)(m * l->npartials * HPC_NSCOPES + scope);
}
static inline uint16_t hpc_stat_id(const struct hpc_layout *l, size_t m,
				   unsigned partial, unsigned scope)
{
	return (uint16_t)(m * l->npartials * HPC_NSCOPES +
			  partial * HPC_NSCOPES + scope);
}

/* Each writes one file of the database into directory dir. */
int pc_hpc_write_meta(const struct pc_db *db, const struct hpc_layout *l,
		      const char *dir, struct pc_err *err);
int pc_hpc_write_yaml(const struct pc_db *db, const struct hpc_layout *l,
		      const char *dir, struct pc_err *err);

#endif
