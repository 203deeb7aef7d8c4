/* Placement of the values of context ids that meta.db elides (see
 * hpctoolkit_place.c). */
#ifndef PC_HPCTOOLKIT_PLACE_H
#define PC_HPCTOOLKIT_PLACE_H

#include "pc.h"

/* What pc_hpc_place found, for each distinct elided id in order (where
 * and exact need room for nel entries), and for the visible contexts. */
struct pc_hpc_placed {
	/* exact[i] = 1: where[i] is the visible model context id i's values
	 * belong to. exact[i] = 0: where[i] is the deepest context that
	 * certainly holds it (the nearest common ancestor of every place it
	 * could have), PC_NONE if none */
	pc_id *where;
	uint8_t *exact;
	/* ids with no place proven (some may have several: the
	 * propagation does not tell), or that fit nowhere */
	size_t undecided;
	/* sets of ids the contexts' fillings tried: at most about
	 * 2^12 * 3 * (the ids' candidate contexts), whatever the values */
	unsigned long work;
	/* accounted = 1: what the visible contexts' residuals hold beyond
	 * the ids placed exactly is, per profile and metric, exactly the
	 * sum of the other ids' values; rest[0..nrest) (allocated; ctx =
	 * model context) are those point values, context by context, to be
	 * added where they are */
	int accounted;
	struct pc_value *rest;
	size_t nrest;
};

/* The residual of a visible context, profile and metric (see
 * hpctoolkit_place.c): what its stored execution value holds beyond its
 * point value and its visible children's execution values; mag is the
 * sum of the magnitudes it was made of (its tolerance's scale). */
struct pc_hpc_resid {
	pc_id ctx, profile, metric;
	double v, mag;
};
struct pc_hpc_resids {
	struct pc_hpc_resid *r;
	size_t n, cap;
};

/* Appends the residuals of one profile: its point values v[0..n) and
 * stored scoped values sv[0..sn) (sorted and coalesced, as
 * pc_values_finish leaves them), for the metrics m with elided[m] set
 * (those of the profile's elided values). Those within rounding of zero
 * are left out. A profile at a time, so that a reader that streams
 * needs no profile's values once it is read. */
void pc_hpc_residuals(const struct pc_db *db, pc_id profile,
		      const struct pc_value *v, size_t n,
		      const struct pc_value *sv, size_t sn,
		      const uint8_t *elided, struct pc_hpc_resids *out);

/* el[0..nel) are the point values of elided ids (ctx = the raw id),
 * sorted by (ctx, profile, metric); rs the residuals of their profiles
 * (pc_hpc_residuals). Fills *out (where and exact given by the caller)
 * and returns the number of distinct ids. */
size_t pc_hpc_place(const struct pc_db *db, const struct pc_value *el,
		    size_t nel, const struct pc_hpc_resids *rs,
		    struct pc_hpc_placed *out);

#endif
