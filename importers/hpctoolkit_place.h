/* Placement of the values of context ids that meta.db elides (see
 * hpctoolkit_place.c). */
#ifndef PC_HPCTOOLKIT_PLACE_H
#define PC_HPCTOOLKIT_PLACE_H

#include "pc.h"

/* el[0..nel) are the point values of elided ids (ctx = the raw id),
 * sorted by (ctx, profile, metric), of the profiles first_profile.. of
 * db, whose point values and stored execution values of the visible
 * contexts are already in db. For each distinct elided id, in order,
 * where[i] is the visible model context its values belong to, or
 * PC_NONE if that is not decided (ambiguous, or inconsistent data);
 * where needs room for nel entries. Returns the number of distinct ids;
 * *undecided counts those left PC_NONE. */
size_t pc_hpc_place(struct pc_db *db, pc_id first_profile,
		    const struct pc_value *el, size_t nel, pc_id *where,
		    size_t *undecided);

#endif
