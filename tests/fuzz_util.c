/* Helpers of the fuzz targets: feed bytes to an importer as a file or as
 * a directory of files. */
#include "fuzz.h"
#include "pc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const pc_fuzz_dir_files[] = {
	"meta.db", "profile.db", "cct.db", "trace.db", "metrics/default.yaml",
	NULL,
};
/* Old HPCToolkit databases: both flavours' files (an empty part is not
 * written, so one input holds one flavour). */
const char *const pc_fuzz_legacy_files[] = {
	"experiment.xml", "profile.db", "cct.db", "trace.db",
	"1.p-000000-000-0-1-0.metric-db", "1.p-000000-001-0-2-0.metric-db",
	"p-000000-000-0-1-0.hpctrace", "experiment-1.mdb", "experiment.mt",
	NULL,
};

void pc_fuzz_run(const char *format, const char *path)
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
	pc_diag_free(&diag);
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

/* The bytes as an anonymous in-memory file, named by path. */
static int mem_file(const uint8_t *data, size_t size, char *path, size_t n)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		abort();
	write_all(fd, data, size);
	snprintf(path, n, "/proc/self/fd/%d", fd);
	return fd;
}

int pc_fuzz_dcpi_is_v0(const uint8_t *data, size_t size)
{
	/* the probe's buffer: at most 4096 bytes, read as a C string */
	size_t n = strnlen((const char *)data, size < 4096 ? size : 4096);
	return (n >= 12 && !memcmp(data, "version pdb-", 12)) ||
	       memmem(data, n, "\nversion pdb-", 13);
}

int pc_fuzz_import(const char *format, const uint8_t *data, size_t size)
{
	char path[64];
	int fd = mem_file(data, size, path, sizeof path);
	pc_fuzz_run(format, path);
	close(fd);
	return 0;
}

/* Lays the parts of data out as the files of a fresh directory. */
static void to_dir_files(const uint8_t *data, size_t size, char *dir,
			 const char *const *files, int skip_empty)
{
	strcpy(dir, "/tmp/pcfuzz-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	const size_t seplen = strlen(PC_FUZZ_SEP);
	char path[256];
	snprintf(path, sizeof path, "%s/metrics", dir);
	mkdir(path, 0755);
	size_t off = 0;
	for (int i = 0; files[i] && off <= size; i++) {
		const uint8_t *end =
			memmem(data + off, size - off, PC_FUZZ_SEP, seplen);
		size_t n = end ? (size_t)(end - (data + off)) : size - off;
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		if (skip_empty && !n) {
			off += n + seplen;
			if (!end)
				break;
			continue;
		}
		FILE *f = fopen(path, "wb");
		if (!f)
			abort();
		if (n && fwrite(data + off, 1, n, f) != n)
			abort();
		fclose(f);
		off += n + seplen;
		if (!end)
			break;
	}
}

static void to_dir(const uint8_t *data, size_t size, char *dir)
{
	to_dir_files(data, size, dir, pc_fuzz_dir_files, 0);
}

static void remove_dir(const char *dir)
{
	char path[256];
	const char *const *lists[] = { pc_fuzz_dir_files, pc_fuzz_legacy_files };
	for (int k = 0; k < 2; k++)
		for (int i = 0; lists[k][i]; i++) {
			snprintf(path, sizeof path, "%s/%s", dir, lists[k][i]);
			unlink(path);
		}
	snprintf(path, sizeof path, "%s/metrics", dir);
	rmdir(path);
	rmdir(dir);
}

int pc_fuzz_import_dir(const char *format, const uint8_t *data, size_t size)
{
	char dir[64];
	to_dir(data, size, dir);
	pc_fuzz_run(format, dir);
	remove_dir(dir);
	return 0;
}

int pc_fuzz_import_legacy(const char *xml, const uint8_t *data, size_t size)
{
	char dir[64];
	to_dir_files(data, size, dir, pc_fuzz_legacy_files + !!xml, 1);
	if (xml) {
		char path[256];
		snprintf(path, sizeof path, "%s/experiment.xml", dir);
		FILE *in = fopen(xml, "rb"), *out = fopen(path, "wb");
		if (!in || !out)
			abort();
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				abort();
		fclose(in);
		fclose(out);
	}
	pc_fuzz_run("hpctoolkit-legacy", dir);
	remove_dir(dir);
	return 0;
}

int pc_fuzz_check(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	char dir[64];
	to_dir(data, size, dir);
	struct pc_err err = { 0 };
	pc_check_db(dir, 1, &err);
	struct pc_diag diag = { .quiet = 1 };
	struct pc_check_opts o = { .quiet = 1, .values = 1, .diag = &diag,
				   .out = null, .quiet_errors = 1 };
	pc_check_main(dir, &o);
	remove_dir(dir);
	return 0;
}

/* Each metric's total over all point values. */
static double *totals(const struct pc_db *db)
{
	double *t = pc_xcalloc(db->nmetrics + 1, sizeof(double));
	for (size_t i = 0; i < db->nvalues; i++)
		t[db->values[i].metric] += db->values[i].value;
	return t;
}

/* The metrics compared: all, or the events only (the calls metric comes
 * back from calls= lines as whole counts per edge, not as it was). */
static size_t compared(const struct pc_db *db, int events, size_t *idx)
{
	size_t n = 0;
	for (size_t m = 0; m < db->nmetrics; m++)
		if (!events || strcmp(db->metrics[m].name, PC_CALLS_METRIC))
			idx[n++] = m;
	return n;
}

static void same_totals(const struct pc_db *a, const struct pc_db *b,
			const char *step, int events)
{
	double *ta = totals(a), *tb = totals(b);
	size_t *ia = pc_xmalloc((a->nmetrics + 1) * sizeof(size_t));
	size_t *ib = pc_xmalloc((b->nmetrics + 1) * sizeof(size_t));
	size_t na = compared(a, events, ia), nb = compared(b, events, ib);
	/* metrics keep their order; names may change on the way (escaped
	 * for UTF-8 in v4, made identifiers for Callgrind) */
	if (na != nb) {
		fprintf(stderr, "%s: %zu metrics became %zu\n", step, na, nb);
		abort();
	}
	for (size_t k = 0; k < na; k++) {
		double want = ta[ia[k]], v = tb[ib[k]];
		double d = v - want;
		if (d < 0)
			d = -d;
		double mag = want < 0 ? -want : want;
		/* Callgrind costs are whole: a metric that is not is scaled
		 * to 9 significant digits of its largest cost and unscaled
		 * on reading, each cost off by up to half a unit */
		double slack = events ? 5e-9 * (double)b->nvalues * mag : 0;
		if (d > 1e-9 * mag + 1e-6 + slack) {
			fprintf(stderr, "%s: metric %s: total %.17g became "
				"%.17g\n", step, a->metrics[ia[k]].name, want, v);
			abort();
		}
	}
	free(ia);
	free(ib);
	free(ta);
	free(tb);
}

/* (diag: the caller's, as the model keeps it for its warnings) */
static struct pc_db *read_back(const char *format, const char *path,
			       const char *step, struct pc_diag *diag)
{
	struct pc_db *db = pc_db_new(diag);
	struct pc_import_opts opts = { .max_contexts = 1u << 30 };
	struct pc_err err = { 0 };
	if (pc_importer_find(format)->read(db, path, &opts, &err)) {
		fprintf(stderr, "%s: our own output does not read back: %s\n",
			step, err.msg);
		abort();
	}
	pc_values_finish(db);
	return db;
}

static void write_or_die(const struct pc_db *db, const char *format,
			 const char *out, const struct pc_export_opts *eo,
			 const char *step)
{
	struct pc_err err = { 0 };
	if (pc_exporter_find(format)->write(db, out, eo, &err)) {
		fprintf(stderr, "%s: write failed: %s\n", step, err.msg);
		abort();
	}
}

int pc_fuzz_pipeline(const uint8_t *data, size_t size, int via_v4)
{
	char path[64];
	int fd = mem_file(data, size, path, sizeof path);
	struct pc_diag diag = { .quiet = 1 };
	struct pc_db *db = pc_db_new(&diag);
	struct pc_import_opts opts = { .max_contexts = 2000 };
	struct pc_err err = { 0 };
	if (pc_importer_find("callgrind")->read(db, path, &opts, &err) ||
	    !db->nprofiles) {
		pc_db_free(db);
		close(fd);
		return 0;
	}
	pc_values_finish(db);
	char dir[] = "/tmp/pcfuzz-out-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	char out[128];
	struct pc_export_opts eo = { 0 };
	struct pc_db *cur = db, *back = NULL;
	if (via_v4) {
		snprintf(out, sizeof out, "%s/v4.d", dir);
		write_or_die(db, "hpctoolkit", out, &eo, "callgrind -> v4");
		back = read_back("hpctoolkit", out, "v4 -> model", &diag);
		same_totals(db, back, "callgrind -> v4 -> model", 0);
		cur = back;
	} else {
		uint8_t o = size ? data[0] : 0;
		eo.split = o & 1;
		eo.no_compress = (o >> 1) & 1;
		eo.callers = (o >> 2) & 3;
	}
	snprintf(out, sizeof out, "%s/callgrind.out", dir);
	write_or_die(cur, "callgrind", out, &eo, "model -> callgrind");
	/* --split writes OUT-01, OUT-02...: each one read back, summed */
	size_t nfiles = eo.split ? cur->nprofiles : 1;
	struct pc_db *cg = pc_db_new(&diag);
	for (size_t i = 0; i < nfiles; i++) {
		char name[160];
		if (eo.split)
			snprintf(name, sizeof name, "%s-%02zu", out, i + 1);
		else
			snprintf(name, sizeof name, "%s", out);
		if (pc_importer_find("callgrind")->read(cg, name, &opts, &err)) {
			fprintf(stderr, "callgrind output does not read "
				"back: %s\n", err.msg);
			abort();
		}
		unlink(name);
	}
	pc_values_finish(cg);
	same_totals(db, cg, "model -> callgrind -> model", 1);
	if (via_v4) {
		snprintf(out, sizeof out, "%s/v4.d", dir);
		remove_dir(out);
	}
	rmdir(dir);
	pc_db_free(cg);
	pc_db_free(back);
	pc_db_free(db);
	close(fd);
	return 0;
}
