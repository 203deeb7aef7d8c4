#include <stdio.h>
#include <stdlib.h>
/* mutual recursion: is_even / is_odd */
int is_odd(unsigned n);
int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

/* tree walker: recursive group of 3 functions walk_node -> walk_kids -> visit -> walk_node */
struct node { int val; int nkids; struct node **kids; };
static volatile long sink;
long walk_node(struct node *n, int work);
long visit(struct node *n, int work) {
    long s = 0;
    for (int i = 0; i < work; i++) s += (n->val * 31 + i) ^ (s >> 3);
    return s + walk_node(n, work);
}
long walk_kids(struct node *n, int work) {
    long s = 0;
    for (int i = 0; i < n->nkids; i++) s += visit(n->kids[i], work);
    return s;
}
long walk_node(struct node *n, int work) {
    if (n->nkids == 0) return n->val;
    return walk_kids(n, work) + n->val;
}
struct node *build(int depth, int fan, int *ctr) {
    struct node *n = malloc(sizeof *n);
    n->val = (*ctr)++;
    n->nkids = depth > 0 ? fan : 0;
    n->kids = n->nkids ? malloc(sizeof(struct node *) * fan) : NULL;
    for (int i = 0; i < n->nkids; i++) n->kids[i] = build(depth - 1, fan, ctr);
    return n;
}
/* two callers with very different costs */
long cheap_caller(struct node *t) { return walk_node(t, 2); }
long heavy_caller(struct node *t) { return walk_node(t, 400); }

int main(void) {
    int ctr = 0;
    struct node *t = build(6, 4, &ctr);
    long ev = 0;
    for (unsigned i = 0; i < 200; i++) ev += is_even(i * 37 % 2000);
    sink = ev;
    for (int r = 0; r < 3; r++) sink += cheap_caller(t);
    sink += heavy_caller(t);
    printf("%ld %d\n", (long)sink, ctr);
    return 0;
}
