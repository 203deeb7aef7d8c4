#include <pthread.h>
#include <stdio.h>
#include <math.h>
static volatile double sink;
static inline double poly(double x){return x*x*0.5+x*1.25+3.0;}
__attribute__((noinline)) double leaf(long n){double s=0;for(long i=0;i<n;i++)s+=poly((double)i)+sqrt((double)i);return s;}
__attribute__((noinline)) double mid(long n){return leaf(n)+leaf(n/2);}
__attribute__((noinline)) double other(long n){return leaf(n/3);}
static void *worker(void *a){long n=(long)a;for(int k=0;k<40;k++)sink+=other(n);return 0;}
int main(void){pthread_t t;pthread_create(&t,0,worker,(void*)3000000L);for(int k=0;k<30;k++){sink+=mid(2000000);}pthread_join(t,0);printf("%f\n",sink);return 0;}
