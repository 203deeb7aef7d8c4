/* Placement of the values of context ids that meta.db elides (see
 * hpctoolkit_place.c). */
#ifndef PC_HPCTOOLKIT_PLACE_H
#define PC_HPCTOOLKIT_PLACE_H

#include "pc.h"

/* el[0..nel) are the point values of elided ids (ctx = the raw id),
 * sorted by (ctx, profile, metric), of the profiles first_profile.. of
 * db, whose point values and stored execution values of the visible
 * contexts are already in db. For each distinct elided id, in order:
 * exact[i] = 1 and where[i] = the visible model context its values
 * belong to; or exact[i] = 0 and where[i] = the deepest context that
 * certainly holds it (the nearest common ancestor of every place it
 * could have), PC_NONE if none. Both arrays need room for nel entries.
 * *ambiguous counts the ids proven to have several places (more than one
 * exact cover), *unsearched those not decided within the search budget
 * or that fit nowhere. Returns the number of distinct ids. */
size_t pc_hpc_place(struct pc_db *db, pc_id first_profile,
		    const struct pc_value *el, size_t nel, pc_id *where,
		    uint8_t *exact, size_t *ambiguous, size_t *unsearched);

#endif
