/* libFuzzer target: the old HPCToolkit importer on an experiment.xml
 * alone (its tables, its tree and its inline <M> values). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_import_legacy(NULL, data, size);
}
