// A C++ program for real Callgrind fixtures: templates, recursion
// (mutual, a recursive template walk, a recursive quicksort), the
// standard containers and inlined helpers. See ../make-fixtures.sh.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

template <typename T> struct Node {
	T value;
	std::vector<Node> kids;
};

template <typename T> static Node<T> build(int depth, T v)
{
	Node<T> n{ v, {} };
	if (depth > 0)
		for (int i = 0; i < 3; i++)
			n.kids.push_back(build<T>(depth - 1, v * 3 + i));
	return n;
}

template <typename T> static T walk(const Node<T> &n)
{
	T s = n.value;
	for (const auto &k : n.kids)
		s += walk(k);
	return s;
}

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static inline void swap_int(int &a, int &b)
{
	int t = a;
	a = b;
	b = t;
}

static void quicksort(std::vector<int> &v, int lo, int hi)
{
	if (lo >= hi)
		return;
	int p = v[(lo + hi) / 2], i = lo, j = hi;
	while (i <= j) {
		while (v[i] < p)
			i++;
		while (v[j] > p)
			j--;
		if (i <= j)
			swap_int(v[i++], v[j--]);
	}
	quicksort(v, lo, j);
	quicksort(v, i, hi);
}

int main()
{
	long total = walk(build<long>(7, 1L)) + (long)walk(build<double>(6, 0.5));
	std::map<std::string, int> words;
	for (int i = 0; i < 20000; i++)
		words["w" + std::to_string(i % 997)] += is_even((unsigned)i % 300);
	std::vector<int> v;
	unsigned x = 12345;
	for (int i = 0; i < 50000; i++) {
		x = x * 1103515245u + 12345u;
		v.push_back((int)(x >> 8) % 100000);
	}
	quicksort(v, 0, (int)v.size() - 1);
	printf("%ld %zu %d\n", total, words.size(), v[v.size() / 2]);
	return 0;
}
