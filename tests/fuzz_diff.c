/* libFuzzer target: profconv diff as the command runs it (cmd_diff,
 * with the command line's code linked in). The bytes: an options byte,
 * then BASE's Callgrind file, PC_FUZZ_SEP, NEW's. The options byte
 * picks the output (SVG, pprof, Callgrind, folded stacks, v4 database),
 * --normalize and a small --max-contexts. The comparison may refuse
 * its inputs (one error); it must not crash or hang, nor leave anything
 * but its output; an SVG must parse as XML with no element of the
 * input's, and a Callgrind output must read back. */
#include "fuzz.h"

#include "../src/main.h"

#include <dirent.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
}

/* The elements the SVG writer makes; anything else came from an
 * input. */
static int svg_element(const char *name)
{
	static const char *const ok[] = { "svg", "style", "rect", "text",
					  "g", "title", "script", "tspan",
					  "defs", "linearGradient", "stop",
					  "metadata", NULL };
	for (int i = 0; ok[i]; i++)
		if (!strcmp(name, ok[i]))
			return 1;
	return 0;
}

static int scripts;
static void walk(xmlNode *n)
{
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (!svg_element((const char *)n->name)) {
			fprintf(stderr, "SVG element of the input's: %s\n",
				n->name);
			abort();
		}
		scripts += !strcmp((const char *)n->name, "script");
		walk(n->children);
	}
}

static void svg_ok(const char *path)
{
	xmlDoc *d = xmlReadFile(path, NULL, XML_PARSE_NONET |
				XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!d) {
		fprintf(stderr, "SVG output is not XML\n");
		abort();
	}
	scripts = 0;
	walk(xmlDocGetRootElement(d));
	xmlFreeDoc(d);
	if (scripts != 1) {
		fprintf(stderr, "SVG output has %d scripts\n", scripts);
		abort();
	}
}

/* Removes path (a file, or a database directory of files and
 * directories); aborts on a temporary left behind. */
static void remove_all(const char *path)
{
	if (strstr(path, ".tmp-")) {
		fprintf(stderr, "left behind: %s\n", path);
		abort();
	}
	if (unlink(path) == 0)
		return;
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[1024];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		remove_all(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ext[] = { "svg", "pb.gz", "callgrind",
					   "folded", "d" };
	if (size < 1)
		return 0;
	uint8_t ob = data[0];
	const uint8_t *p = data + 1;
	size_t n = size - 1, sl = strlen(PC_FUZZ_SEP);
	const uint8_t *sep = memmem(p, n, PC_FUZZ_SEP, sl);
	if (!sep)
		return 0;
	char dir[] = "/tmp/pcfuzz-diff-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	char base[64], nw[64], out[64];
	snprintf(base, sizeof base, "%s/base.out", dir);
	snprintf(nw, sizeof nw, "%s/new.out", dir);
	put(base, p, (size_t)(sep - p));
	put(nw, sep + sl, n - (size_t)(sep - p) - sl);
	unsigned k = (ob & 7) % 5;
	snprintf(out, sizeof out, "%s/out.%s", dir, ext[k]);
	struct opts o = { 0 };
	o.jobs = 1;
	o.exp.min_width = -1;
	o.diag.quiet = 1;
	o.cmd = "diff";
	o.out = out;
	o.normalize = (ob >> 3) & 1;
	o.imp.max_contexts = (ob >> 4) & 1 ? 50 : 2000;
	char *inputs[] = { base, nw };
	int rc = cmd_diff(&o, inputs, 2);
	if (rc == 0 && k == 0)
		svg_ok(out);
	if (rc == 0 && k == 2) {
		struct pc_diag diag = { .quiet = 1 };
		struct pc_db *db = pc_db_new(&diag);
		struct pc_import_opts io = { .max_contexts = 2000 };
		struct pc_err err = { 0 };
		if (pc_importer_find("callgrind")->read(db, out, &io, &err)) {
			fprintf(stderr, "the diff's Callgrind output does not "
				"read back: %s\n", err.msg);
			abort();
		}
		pc_db_free(db);
	}
	/* (the inputs, the output, and nothing else: remove_all aborts on
	 * a temporary left behind) */
	remove_all(dir);
	if (access(dir, F_OK) == 0)
		abort();
	return 0;
}
