/* libFuzzer target: the old HPCToolkit importer's binary readers
 * behind a fixed experiment.xml. The first byte picks the fixture whose
 * XML is used (even: tiny-4.0, with profile.db, cct.db and trace.db; odd:
 * tiny-2.0, with metric-db and hpctrace files and the viewers'
 * experiment-1.mdb and experiment.mt); the rest are the files after
 * experiment.xml in pc_fuzz_legacy_files, separated by PC_FUZZ_SEP. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	return pc_fuzz_import_legacy(data[0] & 1 ?
					     PC_TESTDATA "/hpctoolkit-legacy/tiny-2.0/experiment.xml" :
					     PC_TESTDATA "/hpctoolkit-legacy/tiny-4.0/experiment.xml",
				     data + 1, size - 1);
}
