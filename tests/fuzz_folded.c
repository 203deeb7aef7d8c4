/* libFuzzer target: the folded stacks importer (one and two counts a
 * line). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_import("folded", data, size);
}
