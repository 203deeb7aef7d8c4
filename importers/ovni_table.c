/* ovni runtime traces: the event table (ovni_events.c, generated)
 * indexed once for every reader: a model by name, an event by its
 * model, category and value, an EXIT event's ENTER event. */
#include "pc.h"
#include "ovni.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int ov_nmodels;
const char *ov_model_names[OV_NMODELS];
/* event index + 1 by (model, category, value); 0: unknown */
uint16_t (*ov_ev_index)[256][256];
/* for an EXIT event, the index of its ENTER event */
uint16_t *ov_enter_of;

int ov_model_find(const char *name)
{
	for (int i = 0; i < ov_nmodels; i++)
		if (!strcmp(ov_model_names[i], name))
			return i;
	return -1;
}

static void table_make(void)
{
	for (int i = 0; ov_models[i].name && i < OV_NMODELS; i++)
		ov_model_names[ov_nmodels++] = ov_models[i].name;
	ov_ev_index = pc_xcalloc((size_t)ov_nmodels, sizeof(*ov_ev_index));
	for (size_t i = 0; ov_events[i].model; i++) {
		int m = ov_model_find(ov_events[i].model);
		const unsigned char *mcv =
			(const unsigned char *)ov_events[i].mcv;
		if (m >= 0)
			ov_ev_index[m][mcv[1]][mcv[2]] = (uint16_t)(i + 1);
	}
	size_t n = 0;
	while (ov_events[n].model)
		n++;
	ov_enter_of = pc_xcalloc(n + 1, sizeof(*ov_enter_of));
	for (size_t i = 0; i < n; i++) {
		ov_enter_of[i] = UINT16_MAX;
		if (ov_events[i].kind != OV_EXIT)
			continue;
		for (size_t j = 0; j < n; j++)
			if (ov_events[j].kind == OV_ENTER &&
			    !strcmp(ov_events[j].model, ov_events[i].model) &&
			    !strcmp(ov_events[j].mcv, ov_events[i].arg))
				ov_enter_of[i] = (uint16_t)j;
	}
}

/* Once, whichever reader thread comes first (-j). */
void ov_table_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, table_make);
}
