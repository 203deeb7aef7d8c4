/* Outputs: checked before any input is read, written under a temporary
 * name, put in place atomically, and cleaned up when the run is
 * interrupted. The rules (doc/design.md, "Invariants", Writing outputs):
 *  - an existing output is replaced only with --force, and a directory
 *    only if everything in it is a file of an HPCToolkit database
 *    (ours, or hpcprof's companions); anything else is named and left;
 *  - the new output is complete (and validated) before the old one is
 *    touched; a directory is swapped in with one rename (RENAME_EXCHANGE,
 *    or two renames with the old one kept aside until the new one is in
 *    place), and the old one is removed only afterwards, file by file,
 *    by name: files profconv does not know are never deleted;
 *  - SIGINT, SIGTERM and SIGHUP remove the temporaries of this run;
 *    temporaries left by a killed run are named in a warning. */
#include "pc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a v4 database directory holds: the files profconv writes, then
 * what hpcprof writes beside them (FORMATS.md, metrics/METRICS.yaml.ex,
 * and src/: its copies of the sources). */
static const char *const db_files[] = {
	"meta.db", "profile.db", "cct.db", "trace.db",
	"metrics/default.yaml",
	"metrics/METRICS.yaml.ex", "FORMATS.md",
	NULL,
};
#define OURS 5 /* the first OURS entries are what profconv writes */
static const char *const top_names[] = {
	"meta.db", "profile.db", "cct.db", "trace.db", "metrics",
	"FORMATS.md", "src", NULL,
};
static const char *const metrics_names[] = {
	"default.yaml", "METRICS.yaml.ex", NULL,
};

static int listed(const char *const *names, const char *name)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

/* Lists the entries of dir (and of its metrics/) that are not part of a
 * database into buf; returns their number. */
static int foreign_entries(const char *dir, char *buf, size_t cap)
{
	int n = 0, cut = 0;
	size_t len = 0;
	buf[0] = 0;
	for (int level = 0; level < 2; level++) {
		char path[4200];
		snprintf(path, sizeof path, "%s%s", dir,
			 level ? "/metrics" : "");
		DIR *d = opendir(path);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (listed(level ? metrics_names : top_names, e->d_name))
				continue;
			n++;
			if (len + strlen(e->d_name) + 16 < cap)
				len += (size_t)snprintf(
					buf + len, cap - len, "%s%s%s",
					len ? ", " : "",
					level ? "metrics/" : "", e->d_name);
			else
				cut = 1;
		}
		closedir(d);
	}
	if (cut)
		snprintf(buf + len, cap - len, ", ...");
	return n;
}

/* base name and parent directory of a path */
static void split_path(const char *path, char *parent, size_t n,
		       const char **base)
{
	const char *s = strrchr(path, '/');
	while (s && s > path && !s[1]) /* "dir/" */
		s = memrchr(path, '/', (size_t)(s - path));
	*base = s ? s + 1 : path;
	if (!s)
		snprintf(parent, n, ".");
	else if (s == path)
		snprintf(parent, n, "/");
	else
		snprintf(parent, n, "%.*s", (int)(s - path), path);
}

int pc_dest_check(const char *out, int is_dir, int force,
		    struct pc_diag *diag, struct pc_err *err)
{
	if (strlen(out) > 3900)
		return pc_err_set(err, "%s: output path too long", out);
	char parent[4096];
	const char *base;
	split_path(out, parent, sizeof parent, &base);
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return pc_err_set(err, "%s: not a name for an output", out);
	struct stat st;
	if (stat(parent, &st) != 0)
		return pc_err_set(err, "%s: cannot write there: %s", parent,
				  strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return pc_err_set(err, "%s: not a directory", parent);
	if (access(parent, W_OK | X_OK) != 0)
		return pc_err_set(err, "%s: cannot write there: %s", parent,
				  strerror(errno));
	if (lstat(out, &st) == 0) {
		if (!force)
			return pc_err_set(err, "%s: output exists (use --force "
					  "to replace it)", out);
		if (S_ISLNK(st.st_mode)) {
			char *to = realpath(out, NULL);
			pc_err_set(err, "%s: a symbolic link%s%s; not replacing "
				   "it (the new output would take the link's "
				   "place): give the path it points to", out,
				   to ? " to " : "", to ? to : "");
			free(to);
			return -1;
		}
		if (!is_dir && !S_ISREG(st.st_mode))
			return pc_err_set(err, "%s: exists and is not a "
					  "regular file; not replacing it",
					  out);
		if (is_dir) {
			char meta[4200];
			snprintf(meta, sizeof meta, "%s/meta.db", out);
			if (!S_ISDIR(st.st_mode) || stat(meta, &st) != 0)
				return pc_err_set(err, "%s: exists and is not "
						  "an HPCToolkit database; not "
						  "replacing it", out);
			char names[512];
			int n = foreign_entries(out, names, sizeof names);
			if (n)
				return pc_err_set(
					err, "%s: holds %d file%s that %s "
					"not part of an HPCToolkit database "
					"(%s); not replacing it: move %s away "
					"first", out, n, n == 1 ? "" : "s",
					n == 1 ? "is" : "are", names,
					n == 1 ? "it" : "them");
		}
	}
	/* temporaries of this output left by a killed run */
	DIR *d = diag ? opendir(parent) : NULL;
	if (d) {
		size_t bl = strlen(base);
		struct dirent *e;
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, base, bl) &&
			    (!strncmp(e->d_name + bl, ".tmp-", 5) ||
			     !strncmp(e->d_name + bl, ".old-", 5)) &&
			    strlen(e->d_name + bl) == 11)
				pc_warn(diag, "%s%s%s: left by an interrupted "
					"run of profconv? (not removed)",
					strcmp(parent, ".") ? parent : "",
					strcmp(parent, ".") ? "/" : "",
					e->d_name);
		closedir(d);
	}
	return 0;
}

/* ---- temporaries and signals ---- */

static struct pc_dest *volatile live; /* temporaries of this run */

static void block(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, old);
}

static void link_out(struct pc_dest *o)
{
	sigset_t old;
	block(&old);
	o->next = live;
	live = o;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void unlink_out(struct pc_dest *o)
{
	sigset_t old;
	block(&old);
	for (struct pc_dest *volatile *p = &live; *p; p = &(*p)->next)
		if (*p == o) {
			*p = o->next;
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* dir + "/" + name into buf, with nothing but async-signal-safe calls */
static void join(char *buf, size_t cap, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	if (a + b + 2 > cap) {
		buf[0] = 0;
		return;
	}
	memcpy(buf, dir, a);
	buf[a] = '/';
	memcpy(buf + a + 1, name, b + 1);
}

/* Removes the files profconv writes from a temporary directory, and the
 * directory if that empties it. Async-signal-safe. */
static void remove_ours(const char *dir)
{
	char path[4300];
	/* ours, even if it was made read-only meanwhile */
	chmod(dir, 0700);
	for (int i = 0; i < OURS; i++) {
		join(path, sizeof path, dir, db_files[i]);
		unlink(path);
	}
	join(path, sizeof path, dir, "metrics");
	rmdir(path);
	rmdir(dir);
}

/* Removes a temporary output (async-signal-safe). */
static void remove_tmp(const struct pc_dest *o)
{
	if (!o->tmp[0])
		return;
	if (o->is_dir)
		remove_ours(o->tmp);
	else
		unlink(o->tmp);
}

void pc_dest_remove_all(void)
{
	for (struct pc_dest *o = live; o; o = o->next)
		remove_tmp(o);
}

static void on_signal(int sig)
{
	pc_dest_remove_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

void pc_dest_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa = { .sa_handler = on_signal };
		sigfillset(&sa.sa_mask);
		struct sigaction old;
		/* keep a SIG_IGN inherited from nohup */
		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int pc_dest_begin(struct pc_dest *o, const char *out, int is_dir,
		 struct pc_err *err)
{
	memset(o, 0, sizeof(*o));
	o->is_dir = is_dir;
	if (strlen(out) > 3900)
		return pc_err_set(err, "%s: output path too long", out);
	snprintf(o->final, sizeof o->final, "%s", out);
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", out);
	if (is_dir) {
		if (!mkdtemp(tmp))
			return pc_err_set(err, "%s: cannot create: %s", tmp,
					  strerror(errno));
		chmod(tmp, 0755);
	} else {
		int fd = mkstemp(tmp);
		if (fd < 0)
			return pc_err_set(err, "%s: cannot create: %s", tmp,
					  strerror(errno));
		fchmod(fd, 0644);
		close(fd);
	}
	/* registered with its name complete, so a signal never sees half */
	memcpy(o->tmp, tmp, sizeof tmp);
	link_out(o);
	return 0;
}

/* The first temporary that could not be removed (its parent made
 * read-only, a file put into it by someone else). */
static char leftover[4096];

const char *pc_dest_leftover(void)
{
	return leftover[0] ? leftover : NULL;
}

/* Temporaries removed after a failure, with their outputs' names: an
 * error about one names the output (pc_dest_err_names). */
static struct gone {
	char *tmp, *final;
} *gone;
static size_t ngone, capgone;

void pc_dest_abort(struct pc_dest *o)
{
	if (!o->tmp[0])
		return;
	remove_tmp(o);
	struct stat st;
	if (!leftover[0] && lstat(o->tmp, &st) == 0)
		memcpy(leftover, o->tmp, sizeof leftover);
	unlink_out(o);
	PC_GROW(gone, ngone, capgone);
	gone[ngone++] = (struct gone){ pc_xstrdup(o->tmp),
				       pc_xstrdup(o->final) };
	o->tmp[0] = 0;
}

void pc_dest_err_names(struct pc_err *err)
{
	for (size_t i = 0; i < ngone; i++) {
		size_t n = strlen(gone[i].tmp);
		char c = err->msg[n];
		if (strncmp(err->msg, gone[i].tmp, n) || (c != ':' && c != '/'))
			continue;
		char rest[sizeof err->msg];
		snprintf(rest, sizeof rest, "%s", err->msg + n);
		snprintf(err->msg, sizeof err->msg, "%s%s", gone[i].final, rest);
		return;
	}
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Removes a replaced database: its known files by name, hpcprof's
 * source copies, then the directories if that empties them. A file that
 * appeared meanwhile stays, and so does the directory (with a warning). */
static void remove_old_db(const char *dir, struct pc_diag *diag)
{
	char path[4300];
	for (int i = 0; db_files[i]; i++) {
		join(path, sizeof path, dir, db_files[i]);
		unlink(path);
	}
	join(path, sizeof path, dir, "src");
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	join(path, sizeof path, dir, "metrics");
	rmdir(path);
	if (rmdir(dir) != 0 && errno != ENOENT)
		pc_warn(diag, "%s: the replaced database is kept there: it "
			"holds files profconv did not write", dir);
}

int pc_dest_commit(struct pc_dest *o, struct pc_diag *diag, struct pc_err *err)
{
	struct stat st;
	int exists = lstat(o->final, &st) == 0;
	if (!o->is_dir || !exists) {
		if (rename(o->tmp, o->final) != 0) {
			int e = errno;
			pc_dest_abort(o);
			return pc_err_set(err, "%s: cannot rename into place: "
					  "%s", o->final, strerror(e));
		}
		unlink_out(o);
		o->tmp[0] = 0;
		return 0;
	}
	/* an existing database: swap the two names atomically; the
	 * temporary name then holds the old one */
	if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->final,
		      RENAME_EXCHANGE) == 0) {
		unlink_out(o);
		remove_old_db(o->tmp, diag);
		o->tmp[0] = 0;
		return 0;
	}
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
		int e = errno;
		pc_dest_abort(o);
		return pc_err_set(err, "%s: cannot replace: %s", o->final,
				  strerror(e));
	}
	/* a file system without the exchange: the old database is moved
	 * aside first and comes back if the new one cannot take its name */
	char aside[4200];
	snprintf(aside, sizeof aside, "%s.old-XXXXXX", o->final);
	if (!mkdtemp(aside) || rename(o->final, aside) != 0) {
		int e = errno;
		rmdir(aside);
		pc_dest_abort(o);
		return pc_err_set(err, "%s: cannot move the old database "
				  "aside: %s", o->final, strerror(e));
	}
	if (rename(o->tmp, o->final) != 0) {
		int e = errno;
		rename(aside, o->final);
		pc_dest_abort(o);
		return pc_err_set(err, "%s: cannot rename into place: %s",
				  o->final, strerror(e));
	}
	unlink_out(o);
	o->tmp[0] = 0;
	remove_old_db(aside, diag);
	return 0;
}

uint64_t pc_dest_size(const char *out, int is_dir)
{
	struct stat st;
	if (!is_dir)
		return stat(out, &st) == 0 ? (uint64_t)st.st_size : 0;
	uint64_t sum = 0;
	char path[4300];
	for (int i = 0; i < OURS; i++) {
		join(path, sizeof path, out, db_files[i]);
		if (stat(path, &st) == 0)
			sum += (uint64_t)st.st_size;
	}
	return sum;
}
