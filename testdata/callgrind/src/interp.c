#include <stdio.h>
/* tiny tree-walking interpreter: eval() dispatches to op handlers; some call eval() recursively */
enum { OP_CONST, OP_ADD, OP_MUL, OP_HEAVY, OP_CHEAP, OP_LOOP };
struct expr { int op; long k; struct expr *a, *b; };
long eval(struct expr *e);
long op_const(struct expr *e) { return e->k; }
long op_add(struct expr *e) { return eval(e->a) + eval(e->b); }
long op_mul(struct expr *e) { return eval(e->a) * eval(e->b) % 1000003; }
long op_heavy(struct expr *e) {          /* heavy handler: much own work, then recursion */
    long x = eval(e->a), s = 0;
    for (long i = 0; i < 20000; i++) s = (s * 131 + x + i) % 1000003;
    return s;
}
long op_cheap(struct expr *e) { return e->k + 1; }   /* cheap leaf handler */
long op_loop(struct expr *e) {          /* evaluates body k times */
    long s = 0;
    for (long i = 0; i < e->k; i++) s += eval(e->a);
    return s;
}
static volatile long steps;   /* side effect keeps gcc from treating eval as pure and hoisting calls */
long eval(struct expr *e) {
    steps++;
    switch (e->op) {
    case OP_CONST: return op_const(e);
    case OP_ADD: return op_add(e);
    case OP_MUL: return op_mul(e);
    case OP_HEAVY: return op_heavy(e);
    case OP_CHEAP: return op_cheap(e);
    case OP_LOOP: return op_loop(e);
    }
    return 0;
}
int main(void) {
    struct expr c1 = {OP_CONST, 3}, c2 = {OP_CHEAP, 4};
    struct expr add = {OP_ADD, 0, &c1, &c2};
    struct expr heavy = {OP_HEAVY, 0, &add};
    struct expr mul = {OP_MUL, 0, &heavy, &c2};
    struct expr cheapsum = {OP_ADD, 0, &c2, &c1};
    struct expr body = {OP_ADD, 0, &mul, &cheapsum};
    struct expr loop = {OP_LOOP, 200, &body};
    struct expr cheaploop = {OP_LOOP, 20000, &cheapsum};
    struct expr top = {OP_ADD, 0, &loop, &cheaploop};
    printf("%ld\n", eval(&top));
    return 0;
}
