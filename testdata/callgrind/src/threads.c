/* Sample program for the Callgrind fixtures: two worker threads with
 * different amounts of work, run with --separate-threads=yes. */
#include <pthread.h>
#include <stdio.h>

__attribute__((noinline)) static unsigned long spin(unsigned long n)
{
	unsigned long x = 1;
	for (unsigned long i = 0; i < n; i++)
		x = x * 2654435761u + i;
	return x;
}

static void *worker(void *arg)
{
	unsigned long n = (unsigned long)arg;
	return (void *)spin(n);
}

int main(void)
{
	pthread_t t[2];
	unsigned long r = 0;
	for (unsigned long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(20000 * (i + 1)));
	for (int i = 0; i < 2; i++) {
		void *v;
		pthread_join(t[i], &v);
		r ^= (unsigned long)v;
	}
	r ^= spin(5000);
	printf("%lx\n", r);
	return 0;
}
