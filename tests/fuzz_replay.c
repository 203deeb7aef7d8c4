/* Without libFuzzer: runs a fuzz target once over each file named on the
 * command line, so `make check` replays the fixtures through it. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t cap = 1 << 16, n = 0;
		unsigned char *buf = malloc(cap);
		size_t r;
		while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
			n += r;
			if (n == cap)
				buf = realloc(buf, cap *= 2);
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
		printf("ok %d - %s\n", i, argv[i]);
	}
	printf("1..%d\n", argc - 1);
	return 0;
}
