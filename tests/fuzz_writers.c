/* libFuzzer target: every writer (pprof, folded stacks, SVG, Chrome
 * trace, Callgrind, v4) on a model made directly from the bytes, so that what
 * no reader lets through reaches them too: names of any bytes, values of
 * any double (NaN, infinities, subnormals, 1e300, negative zero), trace
 * samples at any time, in any order. A writer may refuse the model (one
 * error); it must not crash, hang, or leave anything but its output.
 *
 * An SVG output must parse as XML (libxml2) and hold only the elements
 * its writer makes, with its one script: names, units and the title
 * come from the bytes too (header bits 6 and 7).
 *
 * The bytes: a header (profiles, metrics, options), then records, each
 * an operation byte and its operands: a function or a line context below
 * one made before, a value, a trace sample. */
#include "fuzz.h"

#include "../src/pc.h"

#include <dirent.h>
#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXCTX 256

struct rd {
	const uint8_t *p;
	size_t n;
};

static unsigned byte(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

/* A name of up to 15 bytes, any but NUL. */
static void name(struct rd *r, char *buf)
{
	unsigned len = byte(r) % 16, k = 0;
	for (unsigned i = 0; i < len && r->n; i++) {
		unsigned c = byte(r);
		if (c)
			buf[k++] = (char)c;
	}
	buf[k] = 0;
}

/* The SVG writer's elements: the count of others below n, and of
 * scripts in *scripts. */
static int foreign(xmlNodePtr n, int *scripts)
{
	static const char *const mine[] = { "svg", "style", "rect", "text",
					    "g", "title", "script",
					    "metadata" };
	int bad = 0;
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		size_t i = 0;
		while (i < sizeof mine / sizeof mine[0] &&
		       strcmp((const char *)n->name, mine[i]))
			i++;
		bad += i == sizeof mine / sizeof mine[0];
		*scripts += !strcmp((const char *)n->name, "script");
		bad += foreign(n->children, scripts);
	}
	return bad;
}

/* Removes what a writer left in dir (its output: a file, a directory of
 * files with a metrics/ directory); aborts on anything else, which is a
 * temporary left behind. */
static void clean(const char *dir, const char *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strncmp(e->d_name, out, strlen(out)) ||
		    strstr(e->d_name, ".tmp-")) {
			fprintf(stderr, "left behind: %s/%s\n", dir, e->d_name);
			abort();
		}
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (unlink(path) == 0)
			continue;
		/* a database: its files, metrics/default.yaml */
		DIR *s = opendir(path);
		struct dirent *f;
		char p2[1024];
		while (s && (f = readdir(s))) {
			if (f->d_name[0] == '.')
				continue;
			snprintf(p2, sizeof p2, "%s/%s", path, f->d_name);
			if (unlink(p2)) {
				char p3[1100];
				snprintf(p3, sizeof p3, "%s/default.yaml", p2);
				unlink(p3);
				rmdir(p2);
			}
		}
		if (s)
			closedir(s);
		rmdir(path);
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	unsigned h = byte(&r), opt = byte(&r);
	struct pc_diag diag = { .quiet = 1 };
	struct pc_db *db = pc_db_new(&diag);
	unsigned np = 1 + h % 3, nm = 1 + (h >> 2) % 3;
	for (unsigned p = 0; p < np; p++) {
		struct pc_idelem ids[2] = { { .kind = PC_ID_RANK, .logical = p },
					    { .kind = PC_ID_THREAD } };
		pc_profile_add(db, ids, 2);
	}
	static const char *const units[] = { "", "s", "ns" };
	pc_id m[3];
	for (unsigned i = 0; i < nm; i++) {
		char mn[16], desc[16], unit[16];
		snprintf(mn, sizeof mn, "m%u", i);
		snprintf(unit, sizeof unit, "%s", units[(h >> 4) % 3]);
		desc[0] = 0;
		if (h & 0x40) { /* of any bytes, as an input may have them */
			name(&r, mn);
			name(&r, desc);
			name(&r, unit);
			if (!*mn) /* (no reader makes a metric without a name) */
				snprintf(mn, sizeof mn, "m%u", i);
		}
		m[i] = pc_metric_get(db, mn, desc, unit);
	}
	if (h & 0x80) {
		char title[16];
		name(&r, title);
		db->title = pc_intern_cstr(db, title);
	}
	pc_id ctx[MAXCTX];
	size_t nctx = 0;
	ctx[nctx++] = pc_ctx_entry(db, PC_ENTRY_MAIN);
	while (r.n) {
		unsigned op = byte(&r) % 4;
		char buf[16];
		if (op == 0 || op == 1) { /* a function, a line */
			pc_id parent = ctx[byte(&r) % nctx];
			name(&r, buf);
			struct pc_context k = { .kind = PC_CTX_FUNCTION,
						.rel = PC_REL_CALL,
						.file = PC_NONE,
						.module = PC_NONE };
			if (op == 0) {
				k.function = pc_function_get(db, buf, PC_NONE, 0,
							     PC_NONE, 0);
			} else {
				k.kind = PC_CTX_LINE;
				k.rel = PC_REL_LEXICAL;
				k.function = PC_NONE;
				k.file = pc_file_get(db, buf);
				k.line = byte(&r);
			}
			pc_id c = pc_ctx_child(db, parent, &k);
			if (nctx < MAXCTX)
				ctx[nctx++] = c;
		} else if (op == 2) { /* a value: any double */
			unsigned p = byte(&r) % np, mi = byte(&r) % nm;
			pc_id c = ctx[byte(&r) % nctx];
			uint64_t bits = 0;
			for (int i = 0; i < 8; i++)
				bits = bits << 8 | byte(&r);
			double v;
			memcpy(&v, &bits, sizeof v);
			pc_value_add(db, p, c, m[mi], v);
		} else { /* a trace sample, at any time */
			unsigned p = byte(&r) % np;
			pc_id c = ctx[byte(&r) % nctx];
			uint64_t t = 0;
			for (int i = 0; i < 3; i++)
				t = t << 8 | byte(&r);
			pc_trace_add(db, p, t << (opt >> 4), c);
		}
	}
	pc_values_finish(db);
	char dir[] = "/tmp/pcfuzz-w-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	static const char *const writers[] = { "pprof", "folded", "svg",
					       "chrome-trace", "callgrind",
					       "hpctoolkit" };
	for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
		char out[128];
		snprintf(out, sizeof out, "%s/out", dir);
		struct pc_export_opts eo = { .split = opt & 1,
					     .no_compress = (opt >> 1) & 1,
					     .min_width = (opt >> 2) & 1 ? 0 : -1,
					     .jobs = 1 + ((opt >> 3) & 1) };
		struct pc_err err = { 0 };
		const struct pc_exporter *x = pc_exporter_find(writers[i]);
		int rc = x ? x->write(db, out, &eo, &err) : -1;
		if (getenv("PC_FUZZ_VERBOSE")) /* what each writer did */
			fprintf(stderr, "%s: %s\n", writers[i],
				rc ? err.msg : "written");
		/* an SVG is XML whatever the names hold */
		if (!rc && !strcmp(writers[i], "svg")) {
			xmlDocPtr doc = xmlReadFile(out, NULL,
						   XML_PARSE_NONET |
							   XML_PARSE_NOERROR |
							   XML_PARSE_NOWARNING);
			if (!doc) {
				fprintf(stderr, "svg: not well-formed XML\n");
				abort();
			}
			int scripts = 0;
			if (foreign(xmlDocGetRootElement(doc), &scripts) ||
			    scripts != 1) {
				fprintf(stderr, "svg: elements its writer does "
					"not make, or %d scripts\n", scripts);
				abort();
			}
			xmlFreeDoc(doc);
		}
		clean(dir, "out");
	}
	rmdir(dir);
	pc_db_free(db);
	return 0;
}
