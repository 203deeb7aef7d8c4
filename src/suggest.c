/* "Did you mean": the nearest of some names to a word mistyped. */
#include "main.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The edit distance of a and b (optimal string alignment: insertions,
 * deletions, substitutions and swaps of two neighbours, each 1), or
 * more than max (max + 1) once it cannot be max or less. */
static size_t distance(const char *a, const char *b, size_t max)
{
	size_t na = strlen(a), nb = strlen(b);
	if ((na > nb ? na - nb : nb - na) > max || na > 64 || nb > 64)
		return max + 1;
	size_t d[65][65];
	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[na][nb];
}

const char *nearest_name(const char *word, const char *const *names,
			 size_t n)
{
	/* a typo: one edit in a short word, one in three in a longer one */
	size_t len = strlen(word), max = len / 3 > 1 ? len / 3 : 1;
	const char *best = NULL;
	size_t best_d = max + 1;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		size_t d = distance(word, names[i], max);
		if (d < best_d && d < strlen(names[i])) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

int unknown_command(const char *cmd)
{
	static const char *const commands[] = {
		"convert", "diff", "info", "dump", "check", "identify",
		"formats", "help",
	};
	char what[1024];
	struct stat st;
	const char *near = nearest_name(cmd, commands,
					sizeof commands / sizeof commands[0]);
	if (cmd[0] == '-' && cmd[1])
		snprintf(what, sizeof what, "'%.300s' before a command: the "
			 "command comes first (profconv convert [OPTION]... "
			 "INPUT...)", cmd);
	else if (near)
		snprintf(what, sizeof what, "unknown command '%.300s'; did you "
			 "mean '%s'?", cmd, near);
	else if (stat(cmd, &st) == 0)
		snprintf(what, sizeof what, "unknown command '%.300s', a %s: "
			 "'convert' forgotten? (profconv convert %.300s -o "
			 "OUT)", cmd, S_ISDIR(st.st_mode) ? "directory" : "file",
			 cmd);
	else
		snprintf(what, sizeof what, "unknown command '%.300s'", cmd);
	return usage_error("%s", what);
}

int unknown_option(const char *arg, const struct option *longopts,
		   int (*applies)(int c))
{
	const char *names[64];
	size_t n = 0;
	for (size_t i = 0; longopts[i].name && n < 64; i++)
		names[n++] = applies(longopts[i].val) ? longopts[i].name : NULL;
	char word[128];
	const char *near = NULL;
	if (arg[0] == '-' && arg[1] == '-') {
		snprintf(word, sizeof word, "%.*s", (int)strcspn(arg + 2, "="),
			 arg + 2);
		near = nearest_name(word, names, n);
	}
	char what[512];
	snprintf(what, sizeof what, "unknown option '%.300s'%s%s%s", arg,
		 near ? "; did you mean '--" : "", near ? near : "",
		 near ? "'?" : "");
	return usage_error("%s", what);
}
