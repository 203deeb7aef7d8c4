/* Reading inputs into one model (main.h): the importer of each input,
 * valgrind's thread files, and what is refused once every input is
 * read. The command line (src/main.c) and the readers apart
 * (src/apart.c) call it. */
#include "main.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

double seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* For a directory no importer reads: whether files in it are read (a
 * directory of valgrind's callgrind.out.* files), and then a hint naming
 * the first such file, in name order, among the first 4096 entries. */
static int dir_hint(const char *path, char *hint, size_t n)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	struct dirent **ents;
	int ne = scandir(path, &ents, NULL, alphasort);
	if (ne < 0)
		return 0;
	int found = 0;
	for (int i = 0; i < ne && i < 4096 && !found; i++) {
		char file[4096];
		pc_path_join(file, sizeof file, path, ents[i]->d_name);
		struct pc_err e = { 0 };
		if (ents[i]->d_name[0] == '.' || stat(file, &st) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		const struct pc_importer *im = detect(file, NULL, &e);
		if (im) {
			snprintf(hint, n, "it holds %s files (%s): give the "
				 "files, e.g. %s/*", im->name, ents[i]->d_name,
				 path);
			found = 1;
		}
	}
	for (int i = 0; i < ne; i++)
		free(ents[i]);
	free(ents);
	return found;
}

/* Chooses the importer for one input: forced, or the unique best probe. */
const struct pc_importer *detect(const char *path, const char *forced,
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
		char hint[512];
		if (dir_hint(path, hint, sizeof hint))
			pc_err_set(err, "%s: unrecognized input format; %s",
				   path, hint);
		else
			pc_err_set(err, "%s: unrecognized input format (use -f; "
				   "see 'profconv formats')", path);
		return NULL;
	}
	if (tie) {
		pc_err_set(err, "%s: ambiguous input format (use -f)", path);
		return NULL;
	}
	return best;
}

/* valgrind --separate-threads=yes leaves an empty PATH beside its
 * thread files PATH-01, PATH-02...: their paths (sorted), or NULL. */
static char **thread_files(const char *path, size_t *n)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
	if (slash == path)
		strcpy(dir, "/");
	size_t nn, bl = strlen(base);
	char **names = pc_list_dir(dir, &nn);
	char **out = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < nn; i++) {
		const char *t = names[i];
		size_t k = bl + 1;
		if (strncmp(t, base, bl) || t[bl] != '-' || !t[k])
			continue;
		while (t[k] >= '0' && t[k] <= '9')
			k++;
		if (t[k] || k < bl + 3)
			continue;
		PC_GROW(out, *n, cap);
		size_t len = strlen(dir) + strlen(t) + 2;
		out[*n] = pc_xmalloc(len);
		snprintf(out[(*n)++], len, "%s/%s", dir, t);
	}
	pc_free_list(names, nn);
	return out;
}

/* Whether the model holds nothing: no costs, values or trace samples. */
int load_none(const struct pc_db *db)
{
	return !pc_values_total(db) && !pc_scoped_total(db) &&
	       !pc_samples_total(db);
}

/* A model with nothing in it refused: err set, -1 (main.h). */
int load_refuse(const struct opts *o, char **inputs, int n,
		struct pc_err *err)
{
	if (n == 1)
		return pc_err_set(err, "%s: nothing to %s: no costs, values "
				  "or trace samples", inputs[0], o->cmd);
	return pc_err_set(err, "nothing to %s: none of the %d inputs holds "
			  "costs, values or trace samples", o->cmd, n);
}

/* The model of every input read (main.h). */
struct pc_db *load_end(struct opts *o, struct pc_db *db, char **inputs, int n,
		       int tree_only, struct pc_err *err)
{
	int none = load_none(db);
	if (none && tree_only &&
	    db->ncontexts > 2) {
		/* a database with a tree and no values (hpcprof wrote such
		 * for a run that measured nothing): still a tree to show */
		pc_warn(&o->diag, "%s: no values, only a tree of %zu contexts "
			"and %zu metric%s: written as it is", inputs[0],
			db->ncontexts - 1, db->nmetrics,
			db->nmetrics == 1 ? "" : "s");
		if (!db->nprofiles) {
			struct pc_idelem t = { .kind = PC_ID_THREAD };
			pc_profile_add(db, &t, 1);
		}
	} else if (none && db->nmetrics) {
		/* metrics and no value: a run that measured nothing (a
		 * profiler's output without samples) converts to an empty
		 * output, as its own readers show it */
		pc_note(&o->diag, "%s: no costs: %s measured nothing in its "
			"%zu metric%s; the output is empty", n == 1 ? inputs[0] :
			"the inputs", n == 1 ? "it" : "they", db->nmetrics,
			db->nmetrics == 1 ? "" : "s");
		if (!db->nprofiles) {
			struct pc_idelem t = { .kind = PC_ID_THREAD };
			pc_profile_add(db, &t, 1);
		}
	} else if (none) {
		load_refuse(o, inputs, n, err);
		pc_db_free(db);
		return NULL;
	}
	return db;
}


/* Whether another of the n inputs is a thread file of `base` (base-01,
 * base-02...: valgrind --separate-threads). */
static int has_thread_files(char **inputs, int n, const char *base)
{
	size_t len = strlen(base);
	for (int j = 0; j < n; j++)
		if (inputs[j] != base && !strncmp(inputs[j], base, len) &&
		    inputs[j][len] == '-')
			return 1;
	return 0;
}

/* Every input into one model (main.h). */
struct pc_db *load(struct opts *o, char **inputs, int n,
		   const char **formats, struct stream *to, struct pc_err *err)
{
	struct pc_db *db = pc_db_new(&o->diag);
	db->no_traces = o->imp.no_traces;
	if (to && to->out) {
		char dir[4200];
		spool_dir(to->out, dir, sizeof dir);
		db->spool_dir = pc_xstrdup(dir);
	}
	const struct pc_importer *first = NULL;
	int mixed = 0, tree_only = 1; /* every input a database directory */
	if (o->mpi_size > 1 && n > 1) {
		/* MPI: files of one run (a Callgrind file per thread) are
		 * shared out whole, in order; other inputs are read by
		 * rank 0 */
		const struct pc_importer *files = NULL;
		for (int i = 0; i < n; i++) {
			struct pc_err e;
			const struct pc_importer *im =
				strcmp(inputs[i], "-") ?
					detect(inputs[i], o->from, &e) : NULL;
			if (!im || !im->files_apart || (i && im != files)) {
				files = NULL;
				break;
			}
			files = im;
		}
		o->mpi_files = files;
	}
	for (int i = 0; i < n; i++) {
		if (formats)
			formats[i] = "-";
		if (!strcmp(inputs[i], "-"))
			inputs[i] = (char *)pc_stdin_path;
		/* MPI (and -j's readers): several inputs are shared out
		 * whole, in order; standard input is rank 0's. (Before
		 * the empty file's note: said once, by its reader.) */
		if (o->mpi_size > 1 && o->mpi_rank > 0 &&
		    (inputs[i] == pc_stdin_path ||
		     (n > 1 && !o->mpi_files)))
			continue;
		if (n > 1 && o->mpi_files &&
		    !pc_in_share((uint64_t)i, (uint64_t)n, o->mpi_rank,
				 o->mpi_size))
			continue;
		/* valgrind leaves an empty base file beside F-01, F-02...
		 * (--separate-threads): nothing to read there */
		struct stat st;
		if (inputs[i] != pc_stdin_path && stat(inputs[i], &st) == 0 &&
		    S_ISREG(st.st_mode) && st.st_size == 0) {
			/* alone, it stands for its thread files, as in
			 * KCachegrind */
			size_t nt = 0;
			char **tf = n == 1 ? thread_files(inputs[i], &nt) : NULL;
			if (!nt) {
				/* beside its thread files (callgrind.out.PID*
				 * names them all): valgrind's normal case */
				if (has_thread_files(inputs, n, inputs[i]))
					pc_note(&o->diag, "%s: empty, as valgrind "
						"--separate-threads leaves it "
						"beside its thread files: "
						"skipped", inputs[i]);
				else
					pc_warn(&o->diag, "%s: empty file, "
						"skipped", inputs[i]);
				continue;
			}
			pc_note(&o->diag, "%s is empty: reading its %zu thread "
				"files (%s...), as valgrind --separate-threads "
				"wrote them", inputs[i], nt, tf[0]);
			const struct pc_importer *cg =
				pc_importer_find(o->from ? o->from : "callgrind");
			int bad = !cg;
			for (size_t k = 0; k < nt && !bad; k++)
				bad = cg->read(db, tf[k], &o->imp, err) != 0;
			pc_free_list(tf, nt);
			if (bad) {
				pc_db_free(db);
				return NULL;
			}
			if (formats)
				formats[i] = cg->name;
			first = cg;
			continue;
		}
		if (inputs[i] != pc_stdin_path && stat(inputs[i], &st) == 0 &&
		    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !o->from) {
			/* probing would consume (or wait on) a pipe */
			pc_err_set(err, "%s: not a regular file: its format "
				   "cannot be detected without reading it; "
				   "give it with -f FORMAT", inputs[i]);
			pc_db_free(db);
			return NULL;
		}
		const struct pc_importer *im = detect(inputs[i], o->from, err);
		if (im && im->is_dir && inputs[i] == pc_stdin_path) {
			pc_err_set(err, "%s: %s input is a directory; it "
				   "cannot come from standard input",
				   inputs[i], im->name);
			im = NULL;
		}
		if (im && to && n == 1 && im->streams) {
			if (!to->ex) {
				db->sink = to->sink; /* the caller's */
			} else if (to->ex->begin &&
				   (!to->ex->stream_ok ||
				    to->ex->stream_ok(to->opts))) {
				to->sink = to->ex->begin(to->out, to->opts, err);
				if (!to->sink)
					im = NULL;
				db->sink = to->sink;
			}
		}
		/* -j: a writer thread takes the profiles of an importer
		 * whose tree comes first */
		if (im && db->sink && to && to->ex && im->tree_first &&
		    o->jobs > 1) {
			db->async = pc_async_start(db->sink, db, o->jobs,
						   err);
			if (!db->async)
				im = NULL;
		}
		/* MPI: one input's profiles are shared out by an importer
		 * that streams; another is read by rank 0 alone */
		if (im && o->mpi_size > 1 && n == 1) {
			o->mpi_tree = im->tree_first;
			if (!im->streams && o->mpi_rank > 0)
				break;
			db->share_rank = o->mpi_rank;
			db->share_n = im->streams ? o->mpi_size : 1;
		}
		int bad = !im || im->read(db, inputs[i], &o->imp, err);
		/* the thread's error, unless the importer's came first */
		bad |= pc_async_finish(db->async, db, bad ? NULL : err) != 0;
		db->async = NULL;
		db->frozen = 0;
		if (bad) {
			pc_db_free(db);
			return NULL;
		}
		if (formats)
			formats[i] = im->name;
		tree_only &= im->is_dir;
		if (!first)
			first = im;
		else if (im != first && !mixed++)
			pc_warn(&o->diag, "inputs of different formats (%s, "
				"%s) are merged into one model", first->name,
				im->name);
	}
	pc_values_finish(db);
	if (o->mpi_size > 1)
		return db; /* a share may be empty: the whole is checked */
	return load_end(o, db, inputs, n, tree_only, err);
}
