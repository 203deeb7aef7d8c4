/* Helpers of the fuzz targets: feed bytes to an importer as a file or as
 * a directory of files. */
#include "fuzz.h"
#include "pc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *const pc_fuzz_dir_files[] = {
	"meta.db", "profile.db", "cct.db", "trace.db", NULL,
};

static void run(const char *format, const char *path)
{
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
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			abort();
		p += w;
		n -= (size_t)w;
	}
}

int pc_fuzz_import(const char *format, const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		abort();
	write_all(fd, data, size);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	run(format, path);
	close(fd);
	return 0;
}

int pc_fuzz_import_dir(const char *format, const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/pcfuzz-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	const size_t seplen = strlen(PC_FUZZ_SEP);
	char path[256];
	size_t off = 0;
	for (int i = 0; pc_fuzz_dir_files[i]; i++) {
		const uint8_t *end = off <= size ?
			memmem(data + off, size - off, PC_FUZZ_SEP, seplen) : NULL;
		size_t n = end ? (size_t)(end - (data + off)) :
				 (off <= size ? size - off : 0);
		if (off <= size) {
			snprintf(path, sizeof path, "%s/%s", dir,
				 pc_fuzz_dir_files[i]);
			FILE *f = fopen(path, "wb");
			if (!f)
				abort();
			if (n && fwrite(data + off, 1, n, f) != n)
				abort();
			fclose(f);
		}
		off += n + seplen;
		if (!end)
			break;
	}
	run(format, dir);
	for (int i = 0; pc_fuzz_dir_files[i]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, pc_fuzz_dir_files[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}
