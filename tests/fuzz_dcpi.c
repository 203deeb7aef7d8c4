/* libFuzzer target: the DCPI importer on one file: a v0 binary profile
 * when it starts with a 'version pdb-' header, else dcpicat text. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_import("dcpi", data, size);
}
