/* profconv command line. */
#include "pc.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

static const char usage_text[] =
	"Usage: profconv COMMAND [OPTION]... INPUT...\n"
	"Convert performance data between Callgrind, HPCToolkit and other "
	"formats.\n"
	"\n"
	"Commands:\n"
	"  convert   convert INPUTs (merged) into one output\n"
	"  dump      print the canonical text of the model read from INPUTs\n"
	"  check     validate an HPCToolkit v4 database strictly\n"
	"  identify  show how each INPUT's format is detected\n"
	"  formats   list input and output formats\n"
	"  help [COMMAND]  show help\n"
	"\n"
	"Options (convert, dump):\n"
	"  -f, --from=FORMAT     input format (default: detected)\n"
	"  -t, --to=FORMAT       output format (convert; default: from the "
	"output name)\n"
	"  -o, --output=PATH     output (convert; default: profconv.d)\n"
	"      --force           replace an existing output\n"
	"      --stats           hpctoolkit: also write count, sum of squares,\n"
	"                        min and max statistics\n"
	"      --split           callgrind: one file per profile (OUT-01, "
	"OUT-02...)\n"
	"                        instead of one file summed over profiles\n"
	"      --no-compress     callgrind: no name compression\n"
	"      --callers=N       callgrind: name functions f'caller1'caller2 "
	"with\n"
	"                        N callers of context, as valgrind's\n"
	"                        --separate-callers=N does\n"
	"      --max-contexts=N  bound on the calling-context tree built from "
	"a\n"
	"                        call graph, per part (default: from the "
	"input)\n"
	"      --instructions    callgrind input: instruction contexts below "
	"lines\n"
	"      --max-line=BYTES  text inputs: longest line accepted (default "
	"4 MiB)\n"
	"  -q, --quiet           no warnings or progress\n"
	"  -h, --help            this help;  -V, --version  the version\n"
	"\n"
	"Several INPUTs merge into one model: one profile per thread or part,\n"
	"contexts with equal paths and metrics with equal names unify.\n"
	"Exit status: 0 ok, 1 conversion failed, 2 usage error.\n";

static const char *const command_help[][2] = {
	{ "convert",
	  "Usage: profconv convert [-f FMT] [-t FMT] [-o OUT] [--force] "
	  "INPUT...\n"
	  "Reads every INPUT into one model and writes OUT. The output format\n"
	  "is -t, else follows from OUT: 'callgrind.out*' or '*.callgrind' "
	  "is\n"
	  "Callgrind, anything else an HPCToolkit v4 database directory.\n"
	  "Callgrind output is one file with the costs summed over all\n"
	  "profiles (threads, ranks), which both KCachegrind and\n"
	  "callgrind_annotate read; --split writes one file per profile.\n"
	  "OUT is written under a temporary name and renamed at the end; an\n"
	  "existing OUT is replaced only with --force.\n" },
	{ "dump",
	  "Usage: profconv dump [-f FMT] [--max-contexts=N] [--instructions] "
	  "INPUT...\n"
	  "Prints the model read from INPUTs as canonical, deterministic "
	  "text:\n"
	  "modules, files, functions, metrics, profiles, contexts, values "
	  "and\n"
	  "traces, each in id order. Tests use it as their oracle.\n" },
	{ "check",
	  "Usage: profconv check [--strict] [--values] DB\n"
	  "Validates every structural rule of an HPCToolkit v4 database "
	  "(meta.db,\n"
	  "profile.db, cct.db, trace.db, metrics/default.yaml). Prints "
	  "'ok' or\n"
	  "the first violation with file, offset and rule; exit 1 if any.\n"
	  "--values prints, from the summary profile, each metric's total\n"
	  "and each function's exclusive (function scope) cost, by name.\n"
	  "A missing metrics/default.yaml (older hpcprof versions) is a\n"
	  "warning; with --strict, an error, as for profconv's own output.\n" },
	{ "identify",
	  "Usage: profconv identify INPUT...\n"
	  "Prints each importer's detection score (0..100) for each INPUT "
	  "and\n"
	  "the format that would be chosen.\n" },
	{ "formats",
	  "Usage: profconv formats\nLists input and output formats.\n" },
};

struct opts {
	const char *from, *to, *out;
	struct pc_import_opts imp;
	struct pc_export_opts exp;
	struct pc_diag diag;
	int values, strict;
};

static int usage_error(const char *fmt, const char *arg)
{
	char msg[1024];
	snprintf(msg, sizeof msg, fmt, arg);
	pc_escape_controls(msg, sizeof msg);
	fprintf(stderr, "profconv: %s\nTry 'profconv --help'.\n", msg);
	return PC_EUSAGE;
}

static void report(const struct pc_err *err)
{
	fprintf(stderr, "profconv: error: %s\n", err->msg);
}

/* Chooses the importer for one input: forced, or the unique best probe. */
static const struct pc_importer *detect(const char *path, const char *forced,
					struct pc_err *err)
{
	if (forced) {
		const struct pc_importer *im = pc_importer_find(forced);
		if (!im)
			pc_err_set(err, "unknown input format '%s' (see "
				   "'profconv formats')", forced);
		return im;
	}
	struct pc_probe pr;
	if (pc_probe_open(&pr, path, err)) {
		pc_probe_close(&pr);
		return NULL;
	}
	const struct pc_importer *best = NULL;
	int bestscore = 0, tie = 0;
	for (size_t i = 0; pc_importers[i]; i++) {
		int s = pc_importers[i]->probe(&pr);
		if (s > bestscore) {
			best = pc_importers[i];
			bestscore = s;
			tie = 0;
		} else if (s == bestscore && s > 0) {
			tie = 1;
		}
	}
	pc_probe_close(&pr);
	if (!best) {
		pc_err_set(err, "%s: unrecognized input format (use -f; see "
			   "'profconv formats')", path);
		return NULL;
	}
	if (tie) {
		pc_err_set(err, "%s: ambiguous input format (use -f)", path);
		return NULL;
	}
	return best;
}

static struct pc_db *load(struct opts *o, char **inputs, int n,
			  struct pc_err *err)
{
	struct pc_db *db = pc_db_new(&o->diag);
	for (int i = 0; i < n; i++) {
		/* valgrind leaves an empty base file beside F-01, F-02...
		 * (--separate-threads): nothing to read there */
		struct stat st;
		if (stat(inputs[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size == 0) {
			pc_warn(&o->diag, "%s: empty file, skipped", inputs[i]);
			continue;
		}
		if (stat(inputs[i], &st) == 0 && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode) && !o->from) {
			/* probing would consume (or wait on) a pipe */
			pc_err_set(err, "%s: not a regular file: its format "
				   "cannot be detected without reading it; "
				   "give it with -f FORMAT", inputs[i]);
			pc_db_free(db);
			return NULL;
		}
		const struct pc_importer *im = detect(inputs[i], o->from, err);
		if (!im || im->read(db, inputs[i], &o->imp, err)) {
			pc_db_free(db);
			return NULL;
		}
	}
	pc_values_finish(db);
	size_t samples = 0;
	for (size_t p = 0; p < db->nprofiles; p++)
		samples += db->traces[p].n;
	if (!db->nvalues && !db->nscoped && !samples) {
		if (n == 1)
			pc_err_set(err, "%s: nothing to convert: no costs, "
				   "values or trace samples", inputs[0]);
		else
			pc_err_set(err, "nothing to convert: none of the %d "
				   "inputs holds costs, values or trace "
				   "samples", n);
		pc_db_free(db);
		return NULL;
	}
	return db;
}

static const struct pc_exporter *output_format(const struct opts *o)
{
	if (o->to)
		return pc_exporter_find(o->to);
	for (size_t i = 0; pc_exporters[i]; i++)
		if (pc_exporters[i]->claims && pc_exporters[i]->claims(o->out))
			return pc_exporters[i];
	return pc_exporter_find("hpctoolkit");
}

static int cmd_convert(struct opts *o, char **inputs, int n)
{
	if (!o->out)
		o->out = "profconv.d";
	const struct pc_exporter *ex = output_format(o);
	if (!ex)
		return usage_error("unknown output format '%s' (see 'profconv "
				   "formats')", o->to ? o->to : "hpctoolkit");
	struct pc_err err = { 0 };
	/* a refused output is known before any input is read */
	if (pc_dest_check(o->out, ex->is_dir, o->exp.force || o->exp.split,
			  &o->diag, &err)) {
		report(&err);
		return 1;
	}
	pc_dest_signals();
	struct pc_db *db = load(o, inputs, n, &err);
	int rc = 0;
	if (!db || ex->write(db, o->out, &o->exp, &err)) {
		report(&err);
		rc = 1;
	} else if (!o->diag.quiet) {
		fprintf(stderr, "profconv: wrote %s (%s): %zu profiles, %zu "
			"contexts, %zu metrics, %zu values\n", o->out,
			ex->name, db->nprofiles, db->ncontexts, db->nmetrics,
			db->nvalues);
	}
	pc_db_free(db);
	return rc;
}

static int cmd_dump(struct opts *o, char **inputs, int n)
{
	struct pc_err err = { 0 };
	struct pc_db *db = load(o, inputs, n, &err);
	if (!db) {
		report(&err);
		return 1;
	}
	int rc = pc_dump(db, stdout) || fflush(stdout) ? 1 : 0;
	if (rc)
		fputs("profconv: error: cannot write the dump\n", stderr);
	pc_db_free(db);
	return rc;
}

static int cmd_identify(char **inputs, int n)
{
	int rc = 0;
	for (int i = 0; i < n; i++) {
		struct pc_err err = { 0 };
		struct pc_probe pr;
		if (pc_probe_open(&pr, inputs[i], &err)) {
			report(&err);
			pc_probe_close(&pr);
			rc = 1;
			continue;
		}
		printf("%s:", inputs[i]);
		for (size_t k = 0; pc_importers[k]; k++)
			printf(" %s=%d", pc_importers[k]->name,
			       pc_importers[k]->probe(&pr));
		pc_probe_close(&pr);
		const struct pc_importer *im = detect(inputs[i], NULL, &err);
		printf(" -> %s\n", im ? im->name : "?");
		if (!im) {
			report(&err);
			rc = 1;
		}
	}
	return rc;
}

static int cmd_formats(void)
{
	puts("Input formats (-f):");
	for (size_t i = 0; pc_importers[i]; i++)
		printf("  %-12s %s\n", pc_importers[i]->name,
		       pc_importers[i]->description);
	puts("Output formats (-t):");
	for (size_t i = 0; pc_exporters[i]; i++)
		printf("  %-12s %s\n", pc_exporters[i]->name,
		       pc_exporters[i]->description);
	return 0;
}


static int cmd_help(const char *what)
{
	if (what)
		for (size_t i = 0; i < sizeof command_help /
					       sizeof command_help[0]; i++)
			if (strcmp(what, command_help[i][0]) == 0) {
				fputs(command_help[i][1], stdout);
				return 0;
			}
	if (what)
		return usage_error("no help for '%s'", what);
	fputs(usage_text, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return PC_EUSAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return cmd_help(NULL);
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("profconv %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help"))
		return cmd_help(argc > 2 ? argv[2] : NULL);
	if (!strcmp(cmd, "formats"))
		return cmd_formats();

	struct opts o = { 0 };
	o.diag.max_print = 10;
	o.diag.progress = isatty(2);
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'F' },
		{ "stats", no_argument, NULL, 'S' },
		{ "max-contexts", required_argument, NULL, 'M' },
		{ "instructions", no_argument, NULL, 'I' },
		{ "max-line", required_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "values", no_argument, NULL, 'v' },
		{ "strict", no_argument, NULL, 'R' },
		{ "split", no_argument, NULL, 's' },
		{ "no-compress", no_argument, NULL, 'N' },
		{ "callers", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 2;
	int c;
	while ((c = getopt_long(argc, argv, "f:t:o:qh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'f':
			if (!pc_importer_find(optarg))
				return usage_error("unknown input format '%s' "
						   "(see 'profconv formats')",
						   optarg);
			o.from = optarg;
			break;
		case 't': o.to = optarg; break;
		case 'o': o.out = optarg; break;
		case 'F': o.exp.force = 1; break;
		case 'S': o.exp.stats = 1; break;
		case 'q': o.diag.quiet = 1; break;
		case 'I': o.imp.instructions = 1; break;
		case 'v': o.values = 1; break;
		case 'R': o.strict = 1; break;
		case 's': o.exp.split = 1; break;
		case 'N': o.exp.no_compress = 1; break;
		case 'C': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || v > 64)
				return usage_error("bad --callers '%s' (0..64)",
						   optarg);
			o.exp.callers = (unsigned)v;
			break;
		}
		case 'h': return cmd_help(cmd);
		case 'L': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*end || v < 64 || v > ((size_t)1 << 40))
				return usage_error("bad --max-line '%s' (64 "
						   "bytes to 1 TiB)", optarg);
			o.imp.max_line = (size_t)v;
			break;
		}
		case 'M': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (*end || !v || v > UINT32_MAX / 2)
				return usage_error("bad --max-contexts '%s'",
						   optarg);
			o.imp.max_contexts = (size_t)v;
			break;
		}
		default:
			return usage_error("bad option for '%s'", cmd);
		}
	}
	char **inputs = argv + optind;
	int n = argc - optind;
	int rc;
	if (!strcmp(cmd, "check")) {
		if (n != 1)
			return usage_error("%s needs exactly one database",
					   cmd);
		struct pc_check_opts co = { .quiet = o.diag.quiet,
					    .values = o.values,
					    .strict = o.strict,
					    .diag = &o.diag };
		return pc_check_main(inputs[0], &co);
	}
	if (n < 1 && strcmp(cmd, "convert") && strcmp(cmd, "dump") &&
	    strcmp(cmd, "identify"))
		return usage_error("unknown command '%s'", cmd);
	if (n < 1)
		return usage_error("%s needs at least one input", cmd);
	if (!strcmp(cmd, "convert"))
		rc = cmd_convert(&o, inputs, n);
	else if (!strcmp(cmd, "dump"))
		rc = cmd_dump(&o, inputs, n);
	else if (!strcmp(cmd, "identify"))
		rc = cmd_identify(inputs, n);
	else
		return usage_error("unknown command '%s'", cmd);
	if (o.diag.nwarn > o.diag.max_print && !o.diag.quiet)
		fprintf(stderr, "profconv: %u warnings (first %u shown)\n",
			o.diag.nwarn, o.diag.max_print);
	return rc;
}
