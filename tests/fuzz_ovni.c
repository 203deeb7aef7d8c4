/* libFuzzer target: the ovni importer on one thread of a layout-L3
 * trace. The input is stream.json, PC_FUZZ_SEP, stream.obs (without the
 * separator: all of it is the stream, with a fixed valid stream.json);
 * tests/fuzz_replay.sh builds such inputs from testdata/ovni and the real
 * samples. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char default_json[] =
	"{\"version\": 3, \"ovni\": {\"tid\": 1, \"pid\": 1, \"loom\": \"f\", "
	"\"app_id\": 1, \"require\": {\"ovni\": \"1.1.0\"}, \"loom_cpus\": "
	"[{\"index\": 0, \"phyid\": 0}], \"mark\": {\"0\": "
	"{\"title\": \"T\", \"labels\": {\"1\": \"a\"}}}}}";

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[64], path[256];
	strcpy(dir, "/tmp/pcfuzz-ovni-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	static const char *const sub[] = { "loom.f", "loom.f/proc.1",
					   "loom.f/proc.1/thread.1" };
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, sub[i]);
		mkdir(path, 0755);
	}
	const size_t sl = strlen(PC_FUZZ_SEP);
	const uint8_t *sep = size >= sl ? memmem(data, size, PC_FUZZ_SEP, sl) :
					  NULL;
	const uint8_t *json = (const uint8_t *)default_json, *obs = data;
	size_t nj = strlen(default_json), no = size;
	if (sep) {
		json = data;
		nj = (size_t)(sep - data);
		obs = sep + sl;
		no = size - nj - sl;
	}
	char js[256], os[256];
	snprintf(js, sizeof js, "%s/%s/stream.json", dir, sub[2]);
	snprintf(os, sizeof os, "%s/%s/stream.obs", dir, sub[2]);
	put(js, json, nj);
	put(os, obs, no);
	pc_fuzz_run("ovni", dir);
	unlink(js);
	unlink(os);
	for (int i = 2; i >= 0; i--) {
		snprintf(path, sizeof path, "%s/%s", dir, sub[i]);
		rmdir(path);
	}
	rmdir(dir);
	return 0;
}
