/* libFuzzer target: the HPCToolkit v4 importer (input: meta.db,
 * profile.db, cct.db and trace.db separated by PC_FUZZ_SEP). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_import_dir("hpctoolkit", data, size);
}
