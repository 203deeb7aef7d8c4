/* libFuzzer target: the DCPI importer's v0 binary profile file parser
 * (inputs that are dcpicat text are skipped: tests/fuzz_dcpicat.c). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_dcpi_is_v0(data, size) ?
		       pc_fuzz_import("dcpi", data, size) : 0;
}
