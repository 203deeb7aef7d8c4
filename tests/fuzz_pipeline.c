/* libFuzzer target: the whole pipeline. Callgrind bytes are imported,
 * written as a v4 database (the writer validates its output with
 * `check`'s reader; a rejection is a crash here), read back, written as
 * Callgrind and read again; every metric's total must survive each
 * step. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_pipeline(data, size, 1);
}
