// invert's law, for every coordinate: over generated scopes, each point of a scope's box that
// reads inside a tensor is enumerated exactly once by the gather of that read, at the element it
// reads, and no other point is.
#include "grad/grad_support.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "support/generate.hpp"
#include "ein/grad/invert.hpp"

namespace invert_test {

using namespace grad_support;
using point = std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>;  // (element, scope iterators)

// Calls f with every assignment of the iterators of `box` (the values in box order).
void for_each_point(const std::vector<iterator>& box, const std::function<void(const std::vector<std::int64_t>&)>& f) {
  std::vector<std::int64_t> v;
  for (auto& i : box) v.push_back(i.lo);
  if (std::any_of(box.begin(), box.end(), [](auto& i) { return i.extent() <= 0; })) return;
  for (;;) {
    f(v);
    std::size_t d = box.size();
    while (d > 0 && ++v[d - 1] == box[d - 1].hi) v[d - 1] = box[d - 1].lo, --d;
    if (d == 0) return;
  }
}

// The (element, point) pairs of the read `index` of `s` into a tensor of `shape`, by brute force.
std::vector<point> expected(const scope& s, const std::vector<affine>& index, const std::vector<std::int64_t>& shape) {
  std::vector<iterator> box = s.traversal;
  box.insert(box.end(), s.summation.begin(), s.summation.end());
  std::vector<point> out;
  for_each_point(box, [&](const std::vector<std::int64_t>& v) {
    auto value = [&](const std::string& n) {
      for (std::size_t k = 0; k < box.size(); ++k)
        if (box[k].name == n) return v[k];
      throw internal_error("unknown iterator " + n);
    };
    std::vector<std::int64_t> g;
    for (std::size_t d = 0; d < index.size(); ++d) {
      g.push_back(index[d].evaluate(value));
      if (g.back() < 0 || g.back() >= shape[d]) return;
    }
    out.push_back({g, v});
  });
  return out;
}

// The same pairs as the gather enumerates them.
std::vector<point> enumerated(const scope& s, const grad::gather& g) {
  std::vector<iterator> box = g.element;
  box.insert(box.end(), g.summation.begin(), g.summation.end());
  std::vector<point> out;
  for_each_point(box, [&](const std::vector<std::int64_t>& v) {
    auto value = [&](const std::string& n) {
      for (std::size_t k = 0; k < box.size(); ++k)
        if (box[k].name == n) return v[k];
      throw internal_error("unknown iterator " + n);
    };
    for (auto& c : g.conditions) {
      auto x = c.index.evaluate(value);
      if (x < c.lo || x >= c.hi) return;
    }
    std::vector<std::int64_t> element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(g.element.size())), at;
    for (auto* part : {&s.traversal, &s.summation})
      for (auto& i : *part) at.push_back(g.point.at(i.name).evaluate(value));
    out.push_back({element, at});
  });
  return out;
}

TEST_CASE("invert enumerates each point reading an element exactly once, over generated scopes") {
  eval::generate_options o;
  o.max_extent = 6, o.max_work = 4000, o.max_nesting = 0;
  int reads = 0, unsolved = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    auto g = eval::generate(seed, o);
    for_each_access(g.scope->body, [&](const ir::access& a) {
      auto* t = std::get_if<tensor>(&a.source);
      if (!t) return;
      INFO("seed ", seed, ": ", to_string(*g.scope), " read of ", t->name);
      auto inverse = grad::invert(*g.scope, a.index, t->shape);
      auto want = expected(*g.scope, a.index, t->shape), got = enumerated(*g.scope, inverse);
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      CHECK(got == want);
      ++reads;
      unsolved += !inverse.unsolved.empty();
    });
  }
  MESSAGE(reads, " reads inverted, ", unsolved, " with a dimension left as an equality");
  CHECK(reads > 500);
}

TEST_CASE("invert, as its example says: a strided read solved through its filter tap") {
  auto s = make_scope({{"n", 0, 2}, {"h", 0, 4}}, {{"r", 0, 3}}, make_constant(1));
  auto g = grad::invert(*s, {idx("n"), idx("h") * 2 + idx("r") - 1}, {2, 8});
  CHECK(g.summation.size() == 1);
  CHECK(g.summation[0].name == "t1");
  CHECK(g.summation[0].lo == 0);
  CHECK(g.summation[0].hi == 2);
  CHECK(g.point.at("n").str() == "g1");
  CHECK(g.point.at("r").str() == "2*t1 + ((g2 + 1) % 2)");
  CHECK(g.point.at("h").str() == "-t1 + ((g2 + 1) / 2)");
  CHECK(g.conditions.size() == 2);
  CHECK(g.unsolved.empty());
}

}  // namespace invert_test
