/* libFuzzer target: the Callgrind writer. Callgrind bytes are imported
 * and written back with options taken from the first byte (--split,
 * --no-compress, --callers); the output must read back with the same
 * total for every metric. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_pipeline(data, size, 0);
}
