/* libxml2 loaded on first use (hpctoolkit_legacy_libxml.h). */
#include "pc.h"
#include "hpctoolkit_legacy_libxml.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct pc_libxml pc_libxml;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[512]; /* why not */
/* POSIX: dlsym's object pointer holds a function's address */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
	       "a function pointer is as wide as dlsym's result");

static void load(void)
{
	/* the library the build was linked against at configure time
	 * (configure.ac: PC_LIBXML_SONAME) */
	void *h = dlopen(PC_LIBXML_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, sizeof why, "%s", e ? e : "not found");
		return;
	}
	/* each name as libxml2 spells it (# and ## take the argument as
	 * written, not the header's macro of the same name) */
#define PC_LIBXML_SYM(f)                                                    \
	{                                                                   \
		void *s = dlsym(h, #f);                                     \
		if (!s) {                                                   \
			snprintf(why, sizeof why, "%s has no %s",           \
				 PC_LIBXML_SONAME, #f);                     \
			return;                                             \
		}                                                           \
		memcpy(&pc_libxml.p_##f, &s, sizeof s);                     \
	}
	PC_LIBXML_FUNCS(PC_LIBXML_SYM)
#undef PC_LIBXML_SYM
	/* libxml2's own set-up, as its first call would have done it */
	void (*init)(void);
	void *s = dlsym(h, "xmlInitParser");
	if (s) {
		memcpy(&init, &s, sizeof s);
		init();
	}
	loaded = 1;
}

int pc_libxml_load(struct pc_err *err)
{
	pthread_once(&once, load);
	if (loaded)
		return 0;
	return pc_err_set(err, "old HPCToolkit databases (experiment.xml) "
			  "are read with libxml2, which cannot be loaded: "
			  "%s (Debian: apt-get install libxml2)", why);
}
