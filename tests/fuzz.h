/* Shared by the fuzz targets: run an importer on bytes in memory. */
#ifndef PC_FUZZ_H
#define PC_FUZZ_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Writes the bytes to an anonymous in-memory file and runs the named
 * importer on its /proc/self/fd path; the result is discarded. */
int pc_fuzz_import(const char *format, const uint8_t *data, size_t size);
#endif
