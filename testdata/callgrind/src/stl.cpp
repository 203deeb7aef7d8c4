#include <map>
#include <unordered_map>
#include <set>
#include <regex>
#include <variant>
#include <functional>
#include <algorithm>
#include <string>
#include <vector>
#include <memory>
#include <iostream>
#include <sstream>
#include <deque>
#include <list>
#include <optional>
#include <tuple>
#include <numeric>
template <int N> struct Node {
  std::map<std::string, std::vector<int>> m;
  std::unordered_map<int, std::string> u;
  std::variant<int, double, std::string> v;
  std::function<int(int)> f = [](int x) { return x * N; };
  int run(int k) {
    std::vector<int> xs(k);
    std::iota(xs.begin(), xs.end(), N);
    std::sort(xs.begin(), xs.end(), std::greater<int>());
    for (int x : xs) { m[std::to_string(x)].push_back(f(x)); u[x] = std::to_string(x * 2); }
    std::regex re("[a-z]+([0-9]*)");
    std::smatch sm; std::string s = "abc" + std::to_string(N);
    int r = std::regex_search(s, sm, re) ? (int)sm.size() : 0;
    v = s; r += std::visit([](auto &&a) { return (int)sizeof(a); }, v);
    std::set<std::tuple<int, std::string>> st;
    for (auto &p : u) st.insert({p.first, p.second});
    std::deque<double> dq(st.size(), 1.5); std::list<long> ls(dq.begin(), dq.end());
    std::optional<int> o = ls.empty() ? std::nullopt : std::optional<int>(ls.front());
    std::ostringstream os; os << r << *o << m.size();
    return r + (int)os.str().size() + Node<N - 1>().run(k);
  }
};
template <> struct Node<0> { int run(int) { return 0; } };
template <typename T, typename U> std::map<T, std::vector<U>> group(const std::vector<std::pair<T, U>> &in) {
  std::map<T, std::vector<U>> out;
  for (auto &p : in) out[p.first].push_back(p.second);
  return out;
}
int main() {
  int t = Node<24>().run(10);
  auto g1 = group(std::vector<std::pair<int, std::string>>{{1, "a"}});
  auto g2 = group(std::vector<std::pair<std::string, double>>{{"a", 1.0}});
  auto g3 = group(std::vector<std::pair<long, std::vector<int>>>{{1, {}}});
  auto g4 = group(std::vector<std::pair<char, std::set<int>>>{{'a', {}}});
  std::cout << t << g1.size() << g2.size() << g3.size() << g4.size() << "\n";
}
