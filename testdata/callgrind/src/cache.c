#include <stdio.h>
/* memoized function called from two callers: expensive the first time, cheap afterwards */
static long memo[64]; static int have[64];
long compute(int k) {
    long s = 0;
    for (long i = 0; i < 3000000; i++) s = (s * 33 + i + k) % 1000003;
    return s;
}
long lookup(int k) {
    if (!have[k]) { memo[k] = compute(k); have[k] = 1; }
    return memo[k];
}
long first_user(void) { long s = 0; for (int i = 0; i < 4; i++) s += lookup(i); return s; }   /* pays */
long second_user(void) { long s = 0; for (int r = 0; r < 5000; r++) for (int i = 0; i < 4; i++) s += lookup(i); return s; } /* hits cache */
int main(void) {
    long a = first_user();
    long b = second_user();
    printf("%ld %ld\n", a, b);
    return 0;
}
