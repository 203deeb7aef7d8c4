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
	/* ids proven to have several places (more than one exact cover);
	 * ids not decided within the search budget or that fit nowhere */
	size_t ambiguous, unsearched;
	/* accounted = 1: what the visible contexts' residuals hold beyond
	 * the ids placed exactly is, per profile and metric, exactly the
	 * sum of the other ids' values; rest[0..nrest) (allocated; ctx =
	 * model context) are those point values, context by context, to be
	 * added where they are */
	int accounted;
	struct pc_value *rest;
	size_t nrest;
};

/* el[0..nel) are the point values of elided ids (ctx = the raw id),
 * sorted by (ctx, profile, metric), of the profiles first_profile.. of
 * db, whose point values and stored execution values of the visible
 * contexts are already in db. Fills *out (where and exact given by the
 * caller) and returns the number of distinct ids. */
size_t pc_hpc_place(struct pc_db *db, pc_id first_profile,
		    const struct pc_value *el, size_t nel,
		    struct pc_hpc_placed *out);

#endif
