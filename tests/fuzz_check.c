/* libFuzzer target: `profconv check` on arbitrary bytes laid out as the
 * files of a v4 database (see pc_fuzz_dir_files). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_check(data, size);
}
