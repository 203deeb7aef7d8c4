/* Sample program for the Callgrind fixtures: recursion, mutual
 * recursion, an always-inlined helper, calls into libm/libc. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline __attribute__((always_inline)) double mix(double a, double b)
{
	return a * 0.5 + b * 0.25;
}

__attribute__((noinline)) static unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int is_odd(unsigned n);

__attribute__((noinline)) static int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) static int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

__attribute__((noinline)) static double work(int rounds)
{
	double acc = 0;
	for (int i = 0; i < rounds; i++)
		acc = mix(acc, sqrt((double)i + 1.0));
	return acc;
}

__attribute__((noinline)) static size_t strings(int n)
{
	char buf[64];
	size_t total = 0;
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof buf, "item-%d", i);
		total += strlen(buf);
	}
	return total;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 18;
	unsigned long f = fib(n);
	int e = is_even(n * 3);
	double w = work(2000);
	size_t s = strings(300);
	printf("fib=%lu even=%d work=%.3f strings=%zu\n", f, e, w, s);
	return 0;
}
