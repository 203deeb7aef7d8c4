/* Shared by the fuzz targets: run an importer on bytes in memory. */
#ifndef PC_FUZZ_H
#define PC_FUZZ_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Writes the bytes to an anonymous in-memory file and runs the named
 * importer on its /proc/self/fd path; the result is dumped to /dev/null
 * and discarded. */
int pc_fuzz_import(const char *format, const uint8_t *data, size_t size);
/* Does the DCPI importer take these bytes for a v0 binary profile file
 * (a "version pdb-" line in the first 4096 bytes, as its probe reads
 * them) rather than dcpicat text? */
int pc_fuzz_dcpi_is_v0(const uint8_t *data, size_t size);
/* Runs the named importer on a path; the result is dumped to /dev/null. */
void pc_fuzz_run(const char *format, const char *path);

/* Directory formats: the input is the files of the directory, in the
 * order of pc_fuzz_dir_files, separated by PC_FUZZ_SEP. The replay
 * driver builds such inputs from real directories. */
#define PC_FUZZ_SEP "\n=PCFUZZ=\n"
extern const char *const pc_fuzz_dir_files[];
int pc_fuzz_import_dir(const char *format, const uint8_t *data, size_t size);
/* Old HPCToolkit databases: the same, with these files (parts left
 * empty are not written); with xml (a path), the parts are the files
 * after experiment.xml, which is a copy of that file. */
extern const char *const pc_fuzz_legacy_files[];
int pc_fuzz_import_legacy(const char *xml, const uint8_t *data, size_t size);
/* `check` (strict, and with --values) on such a directory. */
int pc_fuzz_check(const uint8_t *data, size_t size);
/* Callgrind bytes through the writers and back (fuzz_util.c): via_v4
 * goes callgrind -> v4 -> model -> callgrind, else callgrind -> callgrind
 * with options from the first byte. Aborts when a total changes or our
 * own output does not read back. */
int pc_fuzz_pipeline(const uint8_t *data, size_t size, int via_v4);
#endif
