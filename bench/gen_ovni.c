/* Writes a synthetic ovni trace (layout L3) for bench/ovni.sh:
 *   gen_ovni DIR NTHREADS NEVENTS   (NEVENTS per thread, about)
 * Each thread nests marks (type 0, labels in its stream.json), nosv
 * worker/API regions and MPI calls, four levels deep, with clocks
 * advancing 5..68 ns per event. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned char buf[1 << 16];
static size_t nb;
static FILE *out;

static void flush(void)
{
	if (fwrite(buf, 1, nb, out) != nb)
		exit(1);
	nb = 0;
}

static void ev(const char *mcv, uint64_t t, const void *pl, unsigned n)
{
	if (nb + 12 + n > sizeof buf)
		flush();
	buf[nb] = (unsigned char)(n ? n - 1 : 0);
	memcpy(buf + nb + 1, mcv, 3);
	memcpy(buf + nb + 4, &t, 8);
	if (n)
		memcpy(buf + nb + 12, pl, n);
	nb += 12 + n;
}

static void mark(const char *mcv, uint64_t t, int64_t v)
{
	unsigned char p[12];
	int32_t type = 0;
	memcpy(p, &v, 8);
	memcpy(p + 8, &type, 4);
	ev(mcv, t, p, 12);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int nth = atoi(argv[2]);
	long long nev = atoll(argv[3]);
	char path[4096];
	snprintf(path, sizeof path, "%s/loom.bench.0", argv[1]);
	mkdir(argv[1], 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/loom.bench.0/proc.1000", argv[1]);
	mkdir(path, 0755);
	static const char *const enter[] = { "MAr", "MS[", "MR[", "MCb" };
	static const char *const exitv[] = { "MAR", "MS]", "MR]", "MCB" };
	static const char *const api[] = { "VAs", "VAy", "VMa" };
	static const char *const apix[] = { "VAS", "VAY", "VMA" };
	uint64_t seed = 88172645463325252ull;
	for (int th = 0; th < nth; th++) {
		snprintf(path, sizeof path, "%s/loom.bench.0/proc.1000/thread.%d",
			 argv[1], 1001 + th);
		mkdir(path, 0755);
		char f[4200];
		snprintf(f, sizeof f, "%s/stream.json", path);
		FILE *j = fopen(f, "w");
		fprintf(j, "{\"version\": 3, \"ovni\": {\"lib\": {\"version\": "
			"\"1.14.0\", \"commit\": \"bench\"}, \"part\": \"thread\", \"tid\": %d, \"pid\": "
			"1000, \"loom\": \"bench.0\", \"app_id\": 1, \"require\": "
			"{\"ovni\": \"1.1.0\", \"mpi\": \"1.0.0\", \"nosv\": "
			"\"2.0.0\"}, \"mark\": {\"0\": {\"title\": \"Phase\", "
			"\"chan_type\": \"stack\", \"labels\": {\"1\": \"init\", "
			"\"2\": \"solve\", \"3\": \"io\"}}}, ", 1001 + th);
		/* one stream of the loom lists its CPUs (ovniemu needs them) */
		if (th == 0) {
			fprintf(j, "\"loom_cpus\": [");
			for (int k = 0; k < nth; k++)
				fprintf(j, "%s{\"index\": %d, \"phyid\": %d}",
					k ? ", " : "", k, k);
			fprintf(j, "], ");
		}
		fprintf(j, "\"finished\": 1}}\n");
		fclose(j);
		snprintf(f, sizeof f, "%s/stream.obs", path);
		out = fopen(f, "wb");
		fwrite("ovni\1\0\0\0", 1, 8, out);
		uint64_t t = 1000000 + (uint64_t)th * 100;
		unsigned char ohx[16] = { 0 };
		int32_t cpu = th, tid = -1;
		memcpy(ohx, &cpu, 4);
		memcpy(ohx + 4, &tid, 4);
		ev("OHx", t, ohx, 16);
		ev("VHw", t += 50, NULL, 0);
		long long n = 3;
		while (n < nev) {
			seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
			int64_t m = 1 + (int64_t)(seed % 3);
			int a = (int)((seed >> 8) % 3), e = (int)((seed >> 16) % 4);
			mark("OM[", t += 5 + (seed >> 24) % 64, m);
			ev(api[a], t += 5 + (seed >> 30) % 64, NULL, 0);
			ev(enter[e], t += 5 + (seed >> 36) % 64, NULL, 0);
			ev(exitv[e], t += 5 + (seed >> 42) % 64, NULL, 0);
			ev(apix[a], t += 5 + (seed >> 48) % 64, NULL, 0);
			mark("OM]", t += 5 + (seed >> 54) % 64, m);
			n += 6;
		}
		ev("VHW", t += 50, NULL, 0);
		ev("OHe", t += 50, NULL, 0);
		flush();
		fclose(out);
	}
	return 0;
}
