// Positions in scope trees, rebuilding around one change, and the index analyses of the rules.
#include "rules_support.hpp"

#include "ein/derive/ranges.hpp"

namespace rules_positions_test {

using namespace rules_test;

TEST_CASE("positions: pre-order paths and replace_at shares what it does not change") {
  auto leaf = make_scope({{"k", 0, 2}}, {}, make_access(input("A", {2}), {idx("k")}));
  auto mid = make_scope({{"j", 0, 2}}, {}, make_access(leaf, {idx("j")}) * make_access(input("B", {2}), {idx("j")}));
  auto other = make_scope({{"m", 0, 2}}, {}, make_constant(3));
  auto root = make_scope({{"i", 0, 2}}, {}, make_access(mid, {idx("i")}) + make_access(other, {idx("i")}));
  std::vector<std::string> seen;
  derive::for_each_position(root, [&](const scope_ptr& s, const derive::path& p) {
    seen.push_back(derive::to_string(p) + " " + std::to_string(s->traversal[0].name[0]));
  });
  CHECK(seen == std::vector<std::string>{"/ 105", "/0 106", "/0/0 107", "/1 109"});

  auto replacement = make_scope({{"k", 0, 2}}, {}, make_constant(5));
  auto r = derive::replace_at(root, {0, 0}, replacement);
  CHECK(to_string(*r) == "L_{i:[0,2)} {L_{j:[0,2)} {L_{k:[0,2)} 5}[j] * B[j]}[i] + {L_{m:[0,2)} 3}[i]");
  // the untouched sibling is the same node
  auto& sum = std::get<binary>(*r->body);
  CHECK(std::get<ir::access>(*sum.rhs).source == std::get<ir::access>(*std::get<binary>(*root->body).rhs).source);
  CHECK(sum.rhs == std::get<binary>(*root->body).rhs);
  CHECK_THROWS_AS(derive::replace_at(root, {3}, replacement), internal_error);
}

TEST_CASE("ranges: bounds of quasi-affine indices over a box") {
  derive::ranges r;
  r.add({{"h", 0, 5}, {"r", -1, 2}, {"w", 0, 7}});
  CHECK(derive::bounds(idx("h") + idx("r"), r) == derive::interval{-1, 5});
  CHECK(derive::bounds(idx("h") * -2 + 3, r) == derive::interval{-5, 3});
  CHECK(derive::bounds(idx("w").floordiv(3), r) == derive::interval{0, 2});
  CHECK(derive::bounds(idx("w").mod(3), r) == derive::interval{0, 2});
  CHECK(derive::bounds(idx("r").mod(4), r) == derive::interval{0, 3});   // -1..1 wraps
  CHECK(derive::bounds((idx("h") + 5).mod(10), r) == derive::interval{5, 9});
}

TEST_CASE("ranges: simplification with ranges undoes merges and splits") {
  derive::ranges r;
  r.add({{"h", 0, 4}, {"w", 0, 5}, {"x", 0, 30}, {"b", 2, 8}});
  auto h = idx("h"), w = idx("w"), x = idx("x");
  CHECK(derive::simplify((h * 5 + w).floordiv(5), r) == h);
  CHECK(derive::simplify((h * 5 + w).mod(5), r) == w);
  CHECK(derive::simplify(x.floordiv(4) * 4 + x.mod(4), r) == x);
  CHECK(derive::simplify((x - 3).floordiv(7) * 14 + (x - 3).mod(7) * 2, r) == x * 2 - 6);
  // b in [2, 8): (h*6 + b - 2) / 6 = h
  CHECK(derive::simplify((h * 6 + idx("b") - 2).floordiv(6), r) == h);
  // no range fact: stays
  CHECK(derive::simplify((h + w).floordiv(5), r) == (h + w).floordiv(5));
  CHECK(derive::simplify(x.floordiv(4), r) == x.floordiv(4));
}

TEST_CASE("ranges: fresh names") {
  CHECK(derive::fresh_name("t", {"h", "t1", "t3"}) == "t2");
  CHECK(derive::fresh_name("c", {}) == "c1");
}

}  // namespace rules_positions_test
