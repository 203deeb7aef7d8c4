#include <stdio.h>
#include "helpers.h"
unsigned __attribute__((noinline)) work(unsigned n)
{
	unsigned s = 1;
	for (unsigned i = 0; i < n; i++)
		s = mix(s + i);
	return s;
}
int main(void)
{
	printf("%u\n", work(200000));
	return 0;
}
