/* libFuzzer target: the DCPI importer's dcpicat text parser (inputs
 * that are v0 binary profile files are skipped: tests/fuzz_dcpi.c). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_dcpi_is_v0(data, size) ?
		       0 : pc_fuzz_import("dcpi", data, size);
}
