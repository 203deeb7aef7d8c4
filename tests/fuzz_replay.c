/* Without libFuzzer: runs a fuzz target once over each input named on
 * the command line, so `make check` replays the fixtures through it. A
 * directory is turned into one input: its files in the order of
 * pc_fuzz_dir_files, separated by PC_FUZZ_SEP. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int append(const char *path, unsigned char **buf, size_t *n,
		  size_t *cap)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t r;
	do {
		if (*cap - *n < 65536) {
			*cap = *cap * 2 + 65536;
			*buf = realloc(*buf, *cap);
		}
		r = fread(*buf + *n, 1, *cap - *n, f);
		*n += r;
	} while (r > 0);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		unsigned char *buf = NULL;
		size_t n = 0, cap = 0;
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			for (int k = 0; pc_fuzz_dir_files[k]; k++) {
				char path[4096];
				snprintf(path, sizeof path, "%s/%s", argv[i],
					 pc_fuzz_dir_files[k]);
				if (k) {
					size_t sl = strlen(PC_FUZZ_SEP);
					if (cap - n < sl) {
						cap = cap * 2 + sl + 65536;
						buf = realloc(buf, cap);
					}
					memcpy(buf + n, PC_FUZZ_SEP, sl);
					n += sl;
				}
				append(path, &buf, &n, &cap);
			}
		} else if (stat(argv[i], &st) != 0 && strlen(argv[i]) > 1 &&
			   !strcmp(argv[i] + strlen(argv[i]) - 2, "/*")) {
			/* a shell glob of an empty corpus directory */
			printf("ok %d - %s # SKIP no such inputs\n", i, argv[i]);
			continue;
		} else if (append(argv[i], &buf, &n, &cap)) {
			perror(argv[i]);
			return 1;
		}
		LLVMFuzzerTestOneInput(buf ? buf : (unsigned char *)"", n);
		free(buf);
		printf("ok %d - %s\n", i, argv[i]);
	}
	printf("1..%d\n", argc - 1);
	return 0;
}
