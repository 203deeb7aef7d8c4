/* libFuzzer target: the perf importer's reader of perf script text
 * (inputs that are perf.data files are skipped: perf script reads
 * those, not profconv). */
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 8 && !memcmp(data, "PERFILE2", 8))
		return 0;
	return pc_fuzz_import("perf", data, size);
}
