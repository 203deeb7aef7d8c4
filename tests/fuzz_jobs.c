/* Fuzz target: the multi-threaded read path against the serial one.
 * The input is up to four Callgrind files (a run's thread files),
 * separated by PC_FUZZ_SEP; they are read as one model by one thread
 * (load) and by two or three readers on threads (load_apart, -j), whose
 * shares are merged in order (src/apart.c, src/share.c). Both must end
 * alike: the same error, or models whose canonical dumps are the same
 * bytes. Aborts otherwise. */
#include "fuzz.h"
#include "main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The dump of the inputs read by one thread (readers 0) or by readers
 * on threads, or the error; malloc'd. */
static char *read_as(char **inputs, int n, unsigned readers)
{
	struct opts o = { 0 };
	o.from = "callgrind";
	o.out = "/tmp/fuzz-jobs.d"; /* the readers' spools go beside it */
	o.jobs = readers ? readers : 1;
	o.mpi_size = 1;
	o.exp.min_width = -1;
	o.diag.quiet = 1;
	o.diag.max_print = 10;
	o.imp.jobs = o.jobs;
	struct pc_err err = { 0 };
	struct pc_db *db;
	const struct pc_importer *im = NULL;
	unsigned nr = readers ? apart_readers(&o, inputs, n, &im) : 0;
	if (readers && !nr)
		return NULL; /* not read apart (one input): nothing to compare */
	struct stream st = { NULL, o.out, &o.exp, NULL };
	db = nr ? load_apart(&o, inputs, n, nr, im, &st, &err) :
		  load(&o, inputs, n, NULL, NULL, &err);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	if (db)
		pc_dump(db, f);
	else
		fprintf(f, "error: %s\n", err.msg);
	fclose(f);
	pc_db_free(db);
	pc_diag_free(&o.diag);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4][64];
	char *inputs[4];
	int fd[4], n = 0;
	const size_t seplen = strlen(PC_FUZZ_SEP);
	size_t off = 0;
	while (n < 4 && off <= size) {
		const uint8_t *end = n < 3 ? memmem(data + off, size - off,
						    PC_FUZZ_SEP, seplen) : NULL;
		size_t len = end ? (size_t)(end - (data + off)) : size - off;
		fd[n] = memfd_create("fuzz", 0);
		if (fd[n] < 0)
			abort();
		for (size_t w = 0; w < len;) {
			ssize_t k = write(fd[n], data + off + w, len - w);
			if (k <= 0)
				abort();
			w += (size_t)k;
		}
		snprintf(path[n], sizeof path[n], "/proc/self/fd/%d", fd[n]);
		inputs[n] = path[n];
		n++;
		if (!end)
			break;
		off += len + seplen;
	}
	if (n >= 2) {
		char *one = read_as(inputs, n, 0);
		for (unsigned r = 2; r <= 3; r++) {
			char *apart = read_as(inputs, n, r);
			if (apart && strcmp(one, apart)) {
				fprintf(stderr, "fuzz_jobs: %u readers read "
					"otherwise than one:\n--- one\n%.2000s\n"
					"--- %u readers\n%.2000s\n", r, one, r,
					apart);
				abort();
			}
			free(apart);
		}
		free(one);
	}
	for (int i = 0; i < n; i++)
		close(fd[i]);
	return 0;
}
