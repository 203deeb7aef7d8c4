/* libFuzzer target: the Callgrind importer. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_import("callgrind", data, size);
}
