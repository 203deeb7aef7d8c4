/* libFuzzer target: the Callgrind importer. */
#include "fuzz.h"
#include "pc.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int pc_fuzz_import(const char *format, const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct pc_diag diag = { .quiet = 1 };
	struct pc_db *db = pc_db_new(&diag);
	struct pc_import_opts opts = { .max_contexts = 20000 };
	struct pc_err err = { 0 };
	const struct pc_importer *im = pc_importer_find(format);
	if (im->read(db, path, &opts, &err) == 0) {
		pc_values_finish(db);
		FILE *null = fopen("/dev/null", "w");
		pc_dump(db, null);
		fclose(null);
	}
	pc_db_free(db);
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return pc_fuzz_import("callgrind", data, size);
}
