// Compiled by GCC's C++ compiler proper (cc1plus) under callgrind for
// cc1plus.out.gz: a real compiler's profile (deep recursion in the
// parser, the optimizer and the garbage collector's marking, shared
// helpers with hundreds of callers), see make-fixtures.sh.
template <int N> struct Fib {
	static constexpr long v = Fib<N - 1>::v + Fib<N - 2>::v;
};
template <> struct Fib<0> {
	static constexpr long v = 0;
};
template <> struct Fib<1> {
	static constexpr long v = 1;
};
struct Node {
	Node *l, *r;
	int v;
};
static int depth(const Node *n)
{
	return n ? 1 + (depth(n->l) > depth(n->r) ? depth(n->l) : depth(n->r)) : 0;
}
int main()
{
	Node a{ nullptr, nullptr, 1 }, b{ &a, nullptr, 2 };
	return depth(&b) + (int)(Fib<40>::v % 7);
}
