// Max and min scopes against the operator table: they match no library operator, whatever the
// body, and an eOperator is priced as the sum over the same body.
#include <doctest/doctest.h>

#include "support/generate.hpp"
#include "ein/match/eop.hpp"
#include "ein/ir/print.hpp"
#include "ein/match/match.hpp"

namespace max_test {

using namespace ein;
using namespace ein::ir;

TEST_CASE("max scopes match no library operator; the same bodies as sums do") {
  std::size_t sums_matched = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    auto g = eval::generate(seed);
    auto& s = *g.scope;
    if (!match::match(s).empty()) ++sums_matched;
    for (auto r : {reduction::max, reduction::min}) {
      auto m = make_scope(s.traversal, s.summation, s.body, r);
      INFO(to_string(*m));
      CHECK(match::match(*m).empty());
      for (auto& op : match::operator_table()) CHECK(match::bindings(*m, op).empty());
      auto sum = match::eoperator_cost(s), max = match::eoperator_cost(*m);
      CHECK(max.flops == sum.flops);
      CHECK(max.bytes == sum.bytes);
    }
  }
  CHECK(sums_matched > 20);  // the family holds operators: the refusals above are the max's
}

TEST_CASE("an elementwise max or min node matches no library operator") {
  tensor A{"A", dtype::f32, {4, 5}}, B{"B", dtype::f32, {4, 5}};
  auto a = make_access(A, {idx("i"), idx("j")}), b = make_access(B, {idx("i"), idx("j")});
  CHECK_FALSE(match::match(*make_scope({{"i", 0, 4}, {"j", 0, 5}}, {}, a + b)).empty());
  CHECK(match::match(*make_scope({{"i", 0, 4}, {"j", 0, 5}}, {}, max(a, b))).empty());
  CHECK(match::match(*make_scope({{"i", 0, 4}, {"j", 0, 5}}, {}, min(a, b))).empty());
}

}  // namespace max_test
