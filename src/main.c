/* profconv command line. */
#include "main.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef PC_MPI
#include "pc_mpi.h"
#endif

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
	"  diff      compare two runs: BASE NEW -o OUT (any output format)\n"
	"  info      summarize what INPUTs hold (--json for scripts)\n"
	"  dump      print the canonical text of the model read from INPUTs\n"
	"  check     validate an HPCToolkit v4 database strictly\n"
	"  identify  show how each INPUT's format is detected\n"
	"  formats   list input and output formats\n"
	"  help [COMMAND]  show help (of one command: every option)\n"
	"\n"
	"Common options:\n"
	"  -f, --from=FORMAT     input format (default: detected)\n"
	"  -q, --quiet           no warnings or progress\n"
	"      --verbose         the details of notes (where a call tree was "
	"cut)\n"
	"  -h, --help            this help;  -V, --version  the version\n"
	"\n"
	"Examples:\n"
	"  profconv convert callgrind.out.1234 -o prog.d      for hpcviewer\n"
	"  profconv convert prog.d -o prog.callgrind          for KCachegrind\n"
	"  profconv convert callgrind.out.1234 -o prog.pb.gz  for go tool pprof\n"
	"\n"
	"An INPUT of '-' is standard input (-o - writes Callgrind to standard\n"
	"output). Exit status: 0 ok, 1 conversion failed, 2 usage error.\n"
	"'profconv help convert' lists the conversion options; 'man profconv'\n"
	"has more examples.\n";

#define READ_OPTIONS \
	"  -f, --from=FORMAT     input format (default: detected; needed for a " \
	"named\n" \
	"                        pipe or a device, not for '-')\n" \
	"      --max-contexts=N  Callgrind input: bound on the calling-context " \
	"tree,\n" \
	"                        per part (default: from the input)\n" \
	"      --instructions    Callgrind input: instruction contexts below " \
	"lines\n" \
	"      --max-line=BYTES  text input: longest line accepted (default 4 " \
	"MiB)\n" \
	"  -q, --quiet           no warnings or progress\n" \
	"      --verbose         the details of notes: where a call tree was " \
	"cut;\n" \
	"                        convert: the time of its phases\n"

static const char *const command_help[][2] = {
	{ "convert",
	  "Usage: profconv convert [OPTION]... INPUT...\n"
	  "Reads every INPUT into one model and writes OUT. The output format\n"
	  "is -t, else follows from OUT: 'callgrind.out*', '*.callgrind' or "
	  "'-' is\n"
	  "Callgrind, '*.pb.gz' or '*.pprof' pprof, '*.json' a Chrome trace,\n"
	  "'*.folded' folded stacks, '*.svg' an SVG flame graph, '*.d' or an\n"
	  "existing directory an HPCToolkit v4 database; other names are "
	  "refused.\n"
	  "Several INPUTs merge: one profile per thread or part, contexts with\n"
	  "equal paths and metrics with equal names unify.\n"
	  "\n"
	  READ_OPTIONS
	  "  -t, --to=FORMAT       output format: hpctoolkit, callgrind, pprof,\n"
	  "                        chrome-trace, folded or svg ('profconv "
	  "formats')\n"
	  "  -o, --output=PATH     output (required; '-': standard output)\n"
	  "  -j, --jobs=N          threads (default: the cores available; 1: "
	  "none)\n"
	  "      --force           replace an existing output (a database only "
	  "if it\n"
	  "                        holds nothing but a database's files)\n"
	  "HPCToolkit output:\n"
	  "      --stats           also write count, sum of squares, min and "
	  "max\n"
	  "                        summary statistics\n"
	  "      --point           also write the point scope (each context's "
	  "own\n"
	  "                        values; no viewer shows it, profconv derives "
	  "it\n"
	  "                        from execution when it is left out)\n"
	  "Callgrind output:\n"
	  "      --split           one file per profile (OUT-01, OUT-02...) "
	  "instead of\n"
	  "                        one file summed over all profiles\n"
	  "      --no-compress     names in full, without (id) compression\n"
	  "      --callers=N       name functions f'caller1'caller2 with N "
	  "callers,\n"
	  "                        as valgrind's --separate-callers=N does\n"
	  "pprof output (go tool pprof -http=:8080 OUT.pb.gz):\n"
	  "      --split           one file per profile (OUT-01.pb.gz...), its "
	  "samples\n"
	  "                        labelled with the profile's ids\n"
	  "Chrome trace output (ui.perfetto.dev, speedscope): inputs with "
	  "traces\n"
	  "Folded stacks (flamegraph.pl OUT.folded >OUT.svg, speedscope):\n"
	  "      --metric=NAME     the metric written (default: the first)\n"
	  "      --min-width=P     frames narrower than P% of the total merge "
	  "into\n"
	  "                        their callers (default 0.01; 0: keep "
	  "all)\n"
	  "SVG flame graph (OUT.svg; --metric, --min-width as folded stacks):\n"
	  "      --title=TEXT      the title (default: the input's command "
	  "line)\n"
	  "      --subtitle=TEXT   a second line below the title\n"
	  "      --width=PX        the frames' width in pixels (default 1200)\n"
	  "      --frame-height=PX a frame's height in pixels (default 16)\n"
	  "      --inverted        an icicle graph: the outermost frames at the "
	  "top\n"
	  "      --reverse         stacks reversed (a callers graph): each "
	  "function\n"
	  "                        at the bottom, its callers above it\n"
	  "      --colors=PALETTE  hot, mem or io (flamegraph.pl's); a colour "
	  "per\n"
	  "                        name in each\n"
	  "      --count-name=UNIT the unit of the values shown (default: the\n"
	  "                        metric's unit, else its name)\n"
	  "  In the file: a click zooms, Ctrl-F (or Search) searches a regular\n"
	  "  expression, 'ic' (or Ctrl-I) makes it case-insensitive; the zoom\n"
	  "  and the search stay in the page's URL (#...) to share a view.\n"
	  "\n"
	  "OUT is checked before any input is read, written under a temporary\n"
	  "name, and put in place once complete; an interrupted run leaves\n"
	  "nothing behind.\n"
	  "\n"
	  "profconv-mpi (built where MPI is found): mpirun -np N profconv-mpi\n"
	  "convert, the same options, writes the same OUT. Ranks read disjoint\n"
	  "shares of the profiles: an ovni trace's thread streams, an old or v4\n"
	  "database's profiles, Callgrind thread files given together; for a v4\n"
	  "OUT each rank writes its own profiles' blocks and trace lines. A single\n"
	  "profile (one Callgrind file), a DCPI input, an hpcprof v4 database\n"
	  "(its elided contexts are placed over all profiles at once) and\n"
	  "several inputs of other formats stay on rank 0.\n" },
	{ "diff",
	  "Usage: profconv diff [OPTION]... BASE NEW -o OUT\n"
	  "   or: profconv diff [OPTION]... BASE... : NEW... -o OUT\n"
	  "Compares two runs: BASE's inputs and NEW's are each read as "
	  "convert\n"
	  "reads them (several merge), contexts with equal paths (function,\n"
	  "file, line, module) are one, and each metric M becomes three:\n"
	  "'M [base]', 'M [new]' and 'M [new-base]'. OUT shows them as its "
	  "reader\n"
	  "shows a comparison: an HPCToolkit database the three columns, "
	  "pprof\n"
	  "BASE's samples negated (as go tool pprof -diff_base), folded "
	  "stacks\n"
	  "'stack base new' (flamegraph.pl, inferno), an SVG a differential "
	  "flame\n"
	  "graph (width: NEW; red: grew, blue: shrank), Callgrind both runs "
	  "as\n"
	  "events. The output format is chosen as for convert.\n"
	  "\n"
	  READ_OPTIONS
	  "  -t, --to=FORMAT       output format (default: from OUT, as "
	  "convert)\n"
	  "  -o, --output=PATH     output (required)\n"
	  "      --normalize       scale NEW to BASE's total, per metric "
	  "(runs of\n"
	  "                        different length)\n"
	  "      --apart           build each Callgrind run's call tree alone, "
	  "as\n"
	  "                        convert does (default: both on one tree)\n"
	  "  -j, --jobs=N, --force, --stats, --point, --no-compress, "
	  "--callers=N,\n"
	  "  --metric=NAME, --min-width=P, --title=TEXT, --subtitle=TEXT,\n"
	  "  --width=PX, --frame-height=PX, --inverted, --reverse,\n"
	  "  --colors=PALETTE, --count-name=UNIT: as for convert\n" },
	{ "info",
	  "Usage: profconv info [--json] [OPTION]... INPUT...\n"
	  "Reads INPUTs as convert would and prints what a conversion needs to\n"
	  "know: each input's format, the profiles with their id tuples, the\n"
	  "metrics with their totals, the numbers of contexts, functions,\n"
	  "modules and files, and the trace samples with their time range.\n"
	  "--json prints the same as one JSON object.\n"
	  "\n" READ_OPTIONS },
	{ "dump",
	  "Usage: profconv dump [OPTION]... INPUT...\n"
	  "Prints the model read from INPUTs as canonical, deterministic "
	  "text:\n"
	  "modules, files, functions, metrics, profiles, contexts, values "
	  "and\n"
	  "traces, each in id order. Tests use it as their oracle.\n"
	  "\n" READ_OPTIONS },
	{ "check",
	  "Usage: profconv check [--strict] [--values] [-q] DB\n"
	  "Validates every structural rule of an HPCToolkit v4 database "
	  "(meta.db,\n"
	  "profile.db, cct.db, trace.db, metrics/default.yaml). Prints "
	  "'ok' or\n"
	  "the first violation with file, offset and rule; exit 1 if any.\n"
	  "      --values  print, from the summary profile, each metric's "
	  "total\n"
	  "                and each function's exclusive cost, by name\n"
	  "      --strict  a missing metrics/default.yaml (older hpcprof) is "
	  "an\n"
	  "                error, as for profconv's own output (else a "
	  "warning)\n" },
	{ "identify",
	  "Usage: profconv identify INPUT...\n"
	  "Prints each importer's detection score (0..100) for each INPUT "
	  "and\n"
	  "the format that would be chosen.\n" },
	{ "formats",
	  "Usage: profconv formats\nLists input and output formats.\n" },
	{ "help",
	  "Usage: profconv help [COMMAND]\n"
	  "Shows the overview, or one command's usage with every option.\n"
	  "The manual page (man profconv) has examples.\n" },
};

/* The cores this process may run on (-j's default). */
static unsigned cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

const char *usage_help;

int usage_error(const char *fmt, const char *arg)
{
	char msg[1024];
	snprintf(msg, sizeof msg, fmt, arg);
	pc_escape_controls(msg, sizeof msg);
	fprintf(stderr, "profconv: %s\nTry 'profconv %s%s'.\n", msg,
		usage_help ? "help " : "--help", usage_help ? usage_help : "");
	return PC_EUSAGE;
}

void report(const struct pc_err *err)
{
	const char *left = pc_dest_leftover();
	struct pc_err e = *err;
	pc_dest_err_names(&e); /* OUT, not OUT.tmp-XXXXXX */
	fprintf(stderr, "profconv: error: %s%s%s%s\n", e.msg,
		left ? " (the temporary " : "", left ? left : "",
		left ? " could not be removed: remove it by hand)" : "");
}

/* `check` validates v4 databases: for one of the formats before v4
 * (experiment.xml, with metric-db files or HPCPROF-*.db) say so,
 * instead of "meta.db: No such file or directory". */
static int old_hpctoolkit(const char *path, struct pc_err *err)
{
	char p[4200];
	struct stat st;
	snprintf(p, sizeof p, "%s/experiment.xml", path);
	if (stat(p, &st) != 0)
		return 0;
	snprintf(p, sizeof p, "%s/meta.db", path);
	if (stat(p, &st) == 0)
		return 0;
	pc_err_set(err, "%s: an HPCToolkit experiment.xml database (the "
		   "formats before v4): check validates v4 databases; "
		   "convert it first (profconv convert %s -o NEW.d)", path,
		   path);
	return 1;
}

/* The output format -t names, else the one whose names OUT has (NULL:
 * none). */
static const struct pc_exporter *output_format(const struct opts *o)
{
	if (o->to)
		return pc_exporter_find(o->to);
	if (!strcmp(o->out, "-")) /* the one single-file output format */
		return pc_exporter_find("callgrind");
	for (size_t i = 0; pc_exporters[i]; i++)
		if (pc_exporters[i]->claims && pc_exporters[i]->claims(o->out))
			return pc_exporters[i];
	return NULL;
}

/* "*.d or an existing directory: HPCToolkit, ...": the names that
 * choose each output format */
static void output_names(char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; pc_exporters[i] && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s: %s",
					len ? ", " : "", pc_exporters[i]->names,
					pc_exporters[i]->label);
}

/* Bytes of the inputs as stored (a database: its files). */
static uint64_t inputs_size(char **inputs, int n)
{
	uint64_t sum = 0;
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (inputs[i] == pc_stdin_path || stat(inputs[i], &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			sum += pc_dest_size(inputs[i], 1);
		else if (S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	}
	return sum;
}

/* The output is refused before any input is read (every rank stops). */
static int refused(struct opts *o, struct pc_err *err)
{
	report(err);
#ifdef PC_MPI
	if (o->mpi_size > 1)
		pc_mpi_agree(1, err);
#else
	(void)o;
#endif
	return 1;
}

int output_choose(struct opts *o, const struct pc_exporter **exp)
{
	char names[512], what[1024];
	output_names(names, sizeof names);
	if (!o->out) {
		snprintf(what, sizeof what, "%s needs -o OUT, whose name "
			 "chooses the output format (%s; or -t FORMAT)", o->cmd,
			 names);
		return usage_error("%s", what);
	}
	const struct pc_exporter *ex = *exp = output_format(o);
	if (!ex && o->to)
		return usage_error("unknown output format '%s' (see 'profconv "
				   "formats')", o->to);
	if (!ex) {
		snprintf(what, sizeof what, "-o %.300s: no output format has "
			 "this name (%s); rename it or give -t FORMAT "
			 "('profconv formats')", o->out, names);
		return usage_error("%s", what);
	}
	if (!strcmp(o->out, "-") && ex->is_dir)
		return usage_error("-o -: %s output is a directory; it cannot "
				   "go to standard output", ex->name);
	/* an option of another output is an error, not ignored */
	static const struct {
		unsigned bit;
		const char *name;
	} xo[] = {
		{ PC_XO_SPLIT, "--split" }, { PC_XO_NO_COMPRESS, "--no-compress" },
		{ PC_XO_CALLERS, "--callers" }, { PC_XO_STATS, "--stats" },
		{ PC_XO_POINT, "--point" }, { PC_XO_METRIC, "--metric" },
		{ PC_XO_MIN_WIDTH, "--min-width" },
		{ PC_XO_TITLE, "--title" }, { PC_XO_SUBTITLE, "--subtitle" },
		{ PC_XO_WIDTH, "--width" },
		{ PC_XO_FRAME_HEIGHT, "--frame-height" },
		{ PC_XO_INVERTED, "--inverted" }, { PC_XO_REVERSE, "--reverse" },
		{ PC_XO_COLORS, "--colors" },
		{ PC_XO_COUNT_NAME, "--count-name" },
	};
	const struct pc_svg_opts *sv = &o->exp.svg;
	unsigned given = (o->exp.split ? PC_XO_SPLIT : 0) |
			 (o->exp.no_compress ? PC_XO_NO_COMPRESS : 0) |
			 (o->exp.callers ? PC_XO_CALLERS : 0) |
			 (o->exp.stats ? PC_XO_STATS : 0) |
			 (o->exp.point ? PC_XO_POINT : 0) |
			 (o->exp.metric ? PC_XO_METRIC : 0) |
			 (o->exp.min_width >= 0 ? PC_XO_MIN_WIDTH : 0) |
			 (sv->title ? PC_XO_TITLE : 0) |
			 (sv->subtitle ? PC_XO_SUBTITLE : 0) |
			 (sv->width ? PC_XO_WIDTH : 0) |
			 (sv->frame_height ? PC_XO_FRAME_HEIGHT : 0) |
			 (sv->inverted ? PC_XO_INVERTED : 0) |
			 (sv->reverse ? PC_XO_REVERSE : 0) |
			 (sv->colors ? PC_XO_COLORS : 0) |
			 (sv->count_name ? PC_XO_COUNT_NAME : 0);
	for (size_t i = 0; i < sizeof xo / sizeof xo[0]; i++) {
		if (!(given & xo[i].bit) || (ex->takes & xo[i].bit))
			continue;
		char for_[256] = "", hint[64] = "";
		size_t len = 0;
		for (size_t k = 0; pc_exporters[k]; k++) {
			if (!(pc_exporters[k]->takes & xo[i].bit))
				continue;
			if (!hint[0])
				snprintf(hint, sizeof hint, "-t %s",
					 pc_exporters[k]->name);
			len += (size_t)snprintf(for_ + len, sizeof for_ - len,
						"%s%s", len ? " or " : "",
						pc_exporters[k]->label);
		}
		snprintf(what, sizeof what, "%s is for %s output, and the "
			 "output is %s (%s)", xo[i].name, for_, ex->label,
			 hint);
		return usage_error("%s", what);
	}
	if (!strcmp(o->out, "-") && o->exp.split)
		return usage_error("%s", "--split writes several files: it "
				   "needs an output name, not '-'");
	return 0;
}

int output_check(struct opts *o, const struct pc_exporter *ex,
		 char **inputs, int n, struct pc_err *err)
{
	/* an output that is one of the inputs would replace it */
	struct stat so, si;
	for (int i = 0; i < n && strcmp(o->out, "-") &&
			stat(o->out, &so) == 0; i++)
		if (strcmp(inputs[i], "-") && stat(inputs[i], &si) == 0 &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return pc_err_set(err, "%s: the output is one of the "
					  "inputs (%s); not replacing it: write "
					  "to another name", o->out, inputs[i]);
	/* a refused output is known before any input is read */
	if (strcmp(o->out, "-") &&
	    pc_dest_check(o->out, ex->is_dir, o->exp.force || o->exp.split,
			  &o->diag, err))
		return -1;
	/* so is an input that is not there */
	for (int i = 0; i < n; i++)
		if (strcmp(inputs[i], "-") && stat(inputs[i], &si) != 0)
			return pc_err_set(err, "%s: %s", inputs[i],
					  strerror(errno));
	/* a name its reader would load with another file */
	char msg[1024];
	if (ex->name_warning && strcmp(o->out, "-") &&
	    ex->name_warning(o->out, &o->exp, msg, sizeof msg))
		pc_warn(&o->diag, "%s", msg);
	return 0;
}

static int cmd_convert(struct opts *o, char **inputs, int n)
{
	const struct pc_exporter *ex;
	int urc = output_choose(o, &ex);
	if (urc)
		return urc;
	o->imp.no_traces = ex->no_traces;
#ifdef PC_MPI
	o->mpi_parts = ex->parts;
	/* the other ranks read their shares once rank 0 has checked the
	 * output */
	if (o->mpi_size > 1 && o->mpi_rank > 0) {
		struct pc_err e = { 0 };
		if (pc_mpi_agree(0, &e) || pc_mpi_same_inputs(inputs, n, &e))
			return 1;
		return mpi_follow(o, inputs, n);
	}
#endif
	struct pc_err err = { 0 };
	if (output_check(o, ex, inputs, n, &err))
		return refused(o, &err);
	/* so are inputs none of which can have what the output needs */
	int traces = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(inputs[i], "-")) {
			traces = 1;
			continue;
		}
		struct pc_err e = { 0 };
		const struct pc_importer *im =
			ex->needs_trace ? detect(inputs[i], o->from, &e) : NULL;
		traces |= !im || !im->no_traces;
	}
	if (ex->needs_trace && !traces) {
		pc_err_set(&err, "nothing to write: %s has %s trace "
			   "(%s output is for traces: ovni, HPCToolkit "
			   "databases with trace.db or hpctrace files)",
			   n == 1 ? "this input" : "no input",
			   n == 1 ? "no" : "a", ex->label);
		return refused(o, &err);
	}
	pc_dest_signals();
#ifdef PC_MPI
	if (o->mpi_size > 1) {
		pc_mpi_agree(0, &err);
		/* every rank reads what rank 0 does, or none does */
		if (pc_mpi_same_inputs(inputs, n, &err)) {
			report(&err);
			return 1;
		}
	}
#endif
	o->imp.point_only = ex->point_only;
	o->exp.jobs = o->jobs;
	struct pc_split_done split = { .n = 0 };
	o->exp.split_done = &split;
	o->imp.jobs = o->jobs;
	/* where the importer and the output can, profiles stream to the
	 * output as they are read: the model holds the tree and the
	 * profile in flight */
	struct stream st = { ex, o->out, &o->exp, NULL };
	struct timespec t0, t1, t2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	const struct pc_importer *im = NULL;
	unsigned readers = apart_readers(o, inputs, n, &im);
#ifdef PC_MPI
	struct pc_db *db = o->mpi_size > 1 ?
		mpi_lead(o, inputs, n, &st, &err) :
		readers ? load_apart(o, inputs, n, readers, im, &st, &err) :
		load(o, inputs, n, NULL, &st, &err);
#else
	struct pc_db *db = readers ? load_apart(o, inputs, n, readers, im, &st,
						&err) :
				     load(o, inputs, n, NULL, &st, &err);
#endif
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int rc = 0;
	if (!db && st.sink)
		ex->abort(st.sink);
	int bad = (!db || (st.sink ? ex->end(st.sink, db, &err) :
			      ex->write(db, o->out, &o->exp, &err)));
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (o->diag.verbose && !o->diag.quiet && o->mpi_size > 1)
		fprintf(stderr, "profconv: times (wall, rank 0 of %u): reading "
			"its share %.2f s, the other ranks' profiles %.2f s, "
			"the rest of the output %.2f s\n", o->mpi_size,
			o->mpi_read, o->mpi_recv, seconds(&t1, &t2));
	else if (o->diag.verbose && !o->diag.quiet)
		fprintf(stderr, "profconv: times (wall): reading%s %.2f s, "
			"the rest of the output %.2f s\n",
			st.sink ? " and writing profiles" : "",
			seconds(&t0, &t1), seconds(&t1, &t2));
	if (bad) {
		report(&err);
		rc = 1;
	} else if (!o->diag.quiet) {
		/* contexts without the global root, as `check` counts */
		size_t np = db->nprofiles, nc = db->ncontexts - 1;
		size_t nm = db->nmetrics, nv = (size_t)pc_values_total(db);
		char size[32] = "to standard output";
		if (strcmp(o->out, "-"))
			pc_human_size(size, sizeof size,
				      pc_dest_size(o->out, ex->is_dir));
		uint64_t in = inputs_size(inputs, n);
		uint64_t out = strcmp(o->out, "-") ?
				       pc_dest_size(o->out, ex->is_dir) : 0;
		if (in && out > 30 * in && out > (100u << 20)) {
			char a[32], b[32];
			pc_human_size(a, sizeof a, out);
			pc_human_size(b, sizeof b, in);
			pc_warn(&o->diag, "the output (%s) is %.0f times the "
				"size of the input (%s); --max-contexts bounds "
				"the tree", a, (double)out / (double)in, b);
		}
		char what[9000];
		snprintf(what, sizeof what, "%s", o->out);
		if (split.n) { /* the files --split wrote */
			pc_human_size(size, sizeof size, split.bytes);
			snprintf(what, sizeof what, "%zu files, %s%s%s", split.n,
				 split.first, split.n > 1 ? " ... " : "",
				 split.n > 1 ? split.last : "");
		}
		/* (a path's bytes escaped, as in every message) */
		char line[9500];
		snprintf(line, sizeof line, "wrote %s (%s, %s): %zu profile%s, "
			 "%zu context%s, %zu metric%s, %zu point value%s", what,
			 ex->name, size, np, np == 1 ? "" : "s", nc,
			 nc == 1 ? "" : "s", nm, nm == 1 ? "" : "s", nv,
			 nv == 1 ? "" : "s");
		pc_escape_controls(line, sizeof line);
		fprintf(stderr, "profconv: %s\n", line);
	}
	pc_db_free(db);
#ifdef PC_MPI
	if (o->mpi_size > 1)
		pc_mpi_bcast_rc(&rc);
#endif
	return rc;
}

static int cmd_dump(struct opts *o, char **inputs, int n)
{
	struct pc_err err = { 0 };
	struct pc_db *db = load(o, inputs, n, NULL, NULL, &err);
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

static int cmd_info(struct opts *o, char **inputs, int n)
{
	struct pc_err err = { 0 };
	const char **formats = pc_xcalloc((size_t)n, sizeof(*formats));
	/* profiles stream past a counter, as they would to a writer */
	struct pc_info_count count;
	pc_info_count_init(&count);
	struct stream st = { .sink = &count.sink };
	struct pc_db *db = load(o, inputs, n, formats, &st, &err);
	if (!db) {
		pc_info_count_free(&count);
		free(formats);
		report(&err);
		return 1;
	}
	struct json_object *info = pc_info_json(db, &count, inputs, formats, n);
	pc_info_count_free(&count);
	if (o->json)
		puts(json_object_to_json_string_ext(
			info, JSON_C_TO_STRING_PRETTY |
				      JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		pc_info_print(info, stdout);
	json_object_put(info);
	free(formats);
	pc_db_free(db);
	if (fflush(stdout) != 0) {
		fputs("profconv: error: cannot write the summary\n", stderr);
		return 1;
	}
	return 0;
}

static int cmd_identify(char **inputs, int n)
{
	int rc = 0;
	for (int i = 0; i < n; i++) {
		struct pc_err err = { 0 };
		struct pc_probe pr;
		if (!strcmp(inputs[i], "-"))
			inputs[i] = (char *)pc_stdin_path;
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
	int w = 0;
	for (size_t i = 0; pc_importers[i]; i++)
		if ((int)strlen(pc_importers[i]->name) > w)
			w = (int)strlen(pc_importers[i]->name);
	for (size_t i = 0; pc_exporters[i]; i++)
		if ((int)strlen(pc_exporters[i]->name) > w)
			w = (int)strlen(pc_exporters[i]->name);
	puts("Input formats (-f):");
	for (size_t i = 0; pc_importers[i]; i++)
		printf("  %-*s  %s\n", w, pc_importers[i]->name,
		       pc_importers[i]->description);
	puts("Output formats (-t):");
	for (size_t i = 0; pc_exporters[i]; i++)
		printf("  %-*s  %s\n", w, pc_exporters[i]->name,
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
	if (what) {
		const char *names[sizeof command_help / sizeof command_help[0]];
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			names[i] = command_help[i][0];
		const char *near = nearest_name(what, names,
						sizeof names / sizeof names[0]);
		char msg[512];
		snprintf(msg, sizeof msg, "no help for '%.300s'%s%s%s", what,
			 near ? "; did you mean '" : "", near ? near : "",
			 near ? "'?" : "");
		return usage_error("%s", msg);
	}
	fputs(usage_text, stdout);
	return 0;
}

/* which commands each option is for: anything else is an error */
static const struct {
	int c;
	const char *cmds;
} applies_to[] = {
	{ 'f', " convert diff dump info " }, { 't', " convert diff " },
	{ 'o', " convert diff " }, { 'F', " convert diff " },
	{ 'S', " convert diff " }, { 'P', " convert diff " },
	{ 'j', " convert diff " },
	{ 's', " convert " },
	{ 'N', " convert diff " }, { 'C', " convert diff " },
	{ 'E', " convert diff " }, { 'W', " convert diff " },
	{ 'M', " convert diff dump info " },
	{ 'I', " convert diff dump info " },
	{ 'L', " convert diff dump info " }, { 'v', " check " },
	{ 'R', " check " }, { 'J', " info " },
	{ 'B', " convert diff dump info " }, { 'Z', " diff " },
	{ 1000, " convert diff " }, { 1001, " convert diff " },
	{ 1002, " convert diff " }, { 1003, " convert diff " },
	{ 1004, " convert diff " }, { 1005, " convert diff " },
	{ 1006, " convert diff " }, { 1007, " convert diff " },
	{ 1008, " diff " },
};
static char applies_cmd[32]; /* " convert " */

/* Whether option c applies to the command (applies_cmd) */
static int applies(int c)
{
	for (size_t i = 0; i < sizeof applies_to / sizeof applies_to[0]; i++)
		if (applies_to[i].c == c)
			return strstr(applies_to[i].cmds, applies_cmd) != NULL;
	return 1;
}

#ifdef PC_MPI
/* profconv-mpi: the same commands in every rank of an MPI job */
static unsigned mpi_rank, mpi_size = 1;
static int run(int argc, char **argv);
int main(int argc, char **argv)
{
	signal(SIGXFSZ, SIG_IGN); /* (as below, from MPI_Init on) */
	pc_mpi_init(&argc, &argv, &mpi_rank, &mpi_size);
	int rc = run(argc, argv);
	pc_mpi_finalize();
	return rc;
}
#define main run
#endif

int main(int argc, char **argv)
{
	/* past a file-size limit (ulimit -f) a write fails with EFBIG and
	 * is said, its temporaries removed, rather than SIGXFSZ killing */
	signal(SIGXFSZ, SIG_IGN);
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
	o.jobs = cores();
	o.exp.min_width = -1; /* folded: the default */
	o.mpi_size = 1;
#ifdef PC_MPI
	o.mpi_rank = mpi_rank;
	o.mpi_size = mpi_size;
	/* a command but convert runs on rank 0 alone */
	if (mpi_size > 1 && mpi_rank > 0 && strcmp(cmd, "convert"))
		return 0;
#endif
	o.diag.max_print = 10;
	o.diag.progress = isatty(2);
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'F' },
		{ "stats", no_argument, NULL, 'S' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "point", no_argument, NULL, 'P' },
		{ "max-contexts", required_argument, NULL, 'M' },
		{ "instructions", no_argument, NULL, 'I' },
		{ "max-line", required_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'B' },
		{ "values", no_argument, NULL, 'v' },
		{ "strict", no_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'J' },
		{ "split", no_argument, NULL, 's' },
		{ "no-compress", no_argument, NULL, 'N' },
		{ "callers", required_argument, NULL, 'C' },
		{ "metric", required_argument, NULL, 'E' },
		{ "min-width", required_argument, NULL, 'W' },
		{ "normalize", no_argument, NULL, 'Z' },
		{ "title", required_argument, NULL, 1000 },
		{ "subtitle", required_argument, NULL, 1001 },
		{ "width", required_argument, NULL, 1002 },
		{ "frame-height", required_argument, NULL, 1003 },
		{ "inverted", no_argument, NULL, 1004 },
		{ "reverse", no_argument, NULL, 1005 },
		{ "colors", required_argument, NULL, 1006 },
		{ "count-name", required_argument, NULL, 1007 },
		{ "apart", no_argument, NULL, 1008 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const commands[] = {
		"convert", "diff", "dump", "check", "identify", "info", NULL,
	};
	int known = 0;
	for (int i = 0; commands[i]; i++)
		known |= !strcmp(cmd, commands[i]);
	if (!known)
		return unknown_command(cmd);
	usage_help = cmd;
	snprintf(applies_cmd, sizeof applies_cmd, " %s ", cmd);
	optind = 2;
	opterr = 0; /* one error style: ours */
	int c;
	while ((c = getopt_long(argc, argv, ":f:t:o:j:qh", longopts, NULL)) !=
	       -1) {
		if (c == '?')
			return unknown_option(argv[optind - 1], longopts,
					      applies);
		if (c == ':')
			return usage_error("option '%s' needs a value",
					   argv[optind - 1]);
		if (!applies(c)) {
			char what[256];
			snprintf(what, sizeof what, "option '%s' does not "
				 "apply to '%s'", argv[optind - 1], cmd);
			return usage_error("%s", what);
		}

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
		case 'P': o.exp.point = 1; break;
		case 'q': o.diag.quiet = 1; break;
		case 'B': o.diag.verbose = 1; break;
		case 'I': o.imp.instructions = 1; break;
		case 'v': o.values = 1; break;
		case 'R': o.strict = 1; break;
		case 'J': o.json = 1; break;
		case 'Z': o.normalize = 1; break;
		case 1008: o.apart = 1; break;
		case 's': o.exp.split = 1; break;
		case 'N': o.exp.no_compress = 1; break;
		case 'E': o.exp.metric = optarg; break;
		case 'W': {
			char *end;
			double v = strtod(optarg, &end);
			if (*end || !(v >= 0 && v <= 100))
				return usage_error("bad --min-width '%s' (a "
						   "percentage, 0 to 100)", optarg);
			o.exp.min_width = v / 100;
			break;
		}
		case 'C': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || v > 64)
				return usage_error("bad --callers '%s' (0..64)",
						   optarg);
			o.exp.callers = (unsigned)v;
			break;
		}
		case 1000: o.exp.svg.title = optarg; break;
		case 1001: o.exp.svg.subtitle = optarg; break;
		case 1002:
		case 1003: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			unsigned long lo = c == 1002 ? 100 : 1,
				      hi = c == 1002 ? 100000 : 1000;
			if (*end || *optarg == '-' || v < lo || v > hi)
				return usage_error(c == 1002 ?
						   "bad --width '%s' (100 to "
						   "100000 pixels)" :
						   "bad --frame-height '%s' (1 "
						   "to 1000 pixels)", optarg);
			*(c == 1002 ? &o.exp.svg.width :
				      &o.exp.svg.frame_height) = (unsigned)v;
			break;
		}
		case 1004: o.exp.svg.inverted = 1; break;
		case 1005: o.exp.svg.reverse = 1; break;
		case 1006: {
			static const char *const pal[] = { "hot", "mem", "io" };
			size_t k = 0;
			while (k < 3 && strcmp(optarg, pal[k]))
				k++;
			if (k == 3)
				return usage_error("bad --colors '%s' (hot, mem "
						   "or io)", optarg);
			o.exp.svg.colors = PC_SVG_COLORS_HOT + (int)k;
			break;
		}
		case 1007: o.exp.svg.count_name = optarg; break;
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
		case 'j': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !v || v > 4096)
				return usage_error("bad --jobs '%s' (1 to 4096)",
						   optarg);
			o.jobs = (unsigned)v;
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
			return usage_error("unknown option for '%s'", cmd);
		}
	}
	char **inputs = argv + optind;
	int n = argc - optind;
	int rc;
	if (!strcmp(cmd, "check")) {
		if (n != 1)
			return usage_error("%s needs exactly one database",
					   cmd);
		struct pc_err err = { 0 };
		if (old_hpctoolkit(inputs[0], &err)) {
			report(&err);
			return 1;
		}
		struct pc_check_opts co = { .quiet = o.diag.quiet,
					    .values = o.values,
					    .strict = o.strict,
					    .diag = &o.diag };
		return pc_check_main(inputs[0], &co);
	}
	int nstdin = 0;
	for (int i = 0; i < n; i++)
		nstdin += !strcmp(inputs[i], "-");
	if (nstdin > 1)
		return usage_error("%s", "'-' (standard input) can be read "
				   "only once");
	if (n < 1)
		return usage_error("%s needs at least one input", cmd);
	o.diag.notes = !strcmp(cmd, "convert") || !strcmp(cmd, "diff");
	o.cmd = !strcmp(cmd, "info") ? "show" : cmd;
	if (!strcmp(cmd, "convert"))
		rc = cmd_convert(&o, inputs, n);
	else if (!strcmp(cmd, "diff"))
		rc = cmd_diff(&o, inputs, n);
	else if (!strcmp(cmd, "dump"))
		rc = cmd_dump(&o, inputs, n);
	else if (!strcmp(cmd, "identify"))
		rc = cmd_identify(inputs, n);
	else
		rc = cmd_info(&o, inputs, n);
	if (o.diag.nwarn > o.diag.max_print && !o.diag.quiet)
		fprintf(stderr, "profconv: %u warnings (first %u shown)\n",
			o.diag.nwarn, o.diag.max_print);
	pc_diag_free(&o.diag);
	return rc;
}
