/* The format registry. */
#include "pc.h"

#include <string.h>

extern const struct pc_importer pc_import_callgrind;
extern const struct pc_importer pc_import_hpctoolkit;
extern const struct pc_importer pc_import_hpctoolkit_legacy;
extern const struct pc_importer pc_import_dcpi;
extern const struct pc_importer pc_import_ovni;
extern const struct pc_importer pc_import_perf;
extern const struct pc_importer pc_import_folded;
extern const struct pc_exporter pc_export_hpctoolkit;
extern const struct pc_exporter pc_export_callgrind;
extern const struct pc_exporter pc_export_folded;
extern const struct pc_exporter pc_export_svg;
extern const struct pc_exporter pc_export_pprof;
extern const struct pc_exporter pc_export_chrome;

/* Probes are cheap string checks; the order only decides listings. */
const struct pc_importer *const pc_importers[] = {
	&pc_import_callgrind,
	&pc_import_hpctoolkit,
	&pc_import_hpctoolkit_legacy,
	&pc_import_dcpi,
	&pc_import_ovni,
	&pc_import_perf,
	&pc_import_folded,
	NULL,
};

/* Output formats that claim output names come first; hpctoolkit is
 * the default for every other name. */
const struct pc_exporter *const pc_exporters[] = {
	&pc_export_callgrind,
	&pc_export_folded,
	&pc_export_svg,
	&pc_export_pprof,
	&pc_export_chrome,
	&pc_export_hpctoolkit,
	NULL,
};

const struct pc_importer *pc_importer_find(const char *name)
{
	for (size_t i = 0; pc_importers[i]; i++)
		if (strcmp(pc_importers[i]->name, name) == 0)
			return pc_importers[i];
	return NULL;
}

const struct pc_exporter *pc_exporter_find(const char *name)
{
	for (size_t i = 0; pc_exporters[i]; i++)
		if (strcmp(pc_exporters[i]->name, name) == 0)
			return pc_exporters[i];
	return NULL;
}
