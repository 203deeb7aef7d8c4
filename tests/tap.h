/* Minimal TAP output for C unit tests run by automake's tap-driver. */
#ifndef PC_TAP_H
#define PC_TAP_H
#include <stdio.h>

static int tap_n, tap_fail;

#define ok(cond, ...)                                                        \
	do {                                                                 \
		int ok_ = !!(cond);                                          \
		printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n);            \
		printf(__VA_ARGS__);                                         \
		putchar('\n');                                               \
		if (!ok_) {                                                  \
			tap_fail++;                                          \
			printf("# failed at %s:%d: %s\n", __FILE__, __LINE__, \
			       #cond);                                       \
		}                                                            \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
#endif
