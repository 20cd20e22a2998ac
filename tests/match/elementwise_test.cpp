// Elementwise matching over ranks, functions and offsets, and its near misses.
#include <doctest/doctest.h>

#include "match/check.hpp"

namespace elementwise_test {

using namespace ein;
using namespace ein::ir;
using namespace ein::match;
using namespace ein::match::test;

TEST_CASE("elementwise: every rank 1-4, binary and unary functions, offsets") {
  int checked = 0;
  for (int rank = 1; rank <= 4; ++rank)
    for (std::int64_t off : {0, 1}) {
      std::vector<iterator> trav;
      std::vector<std::int64_t> shape, padded;
      std::vector<affine> index, shifted;
      for (int d = 0; d < rank; ++d) {
        std::string n = "i" + std::to_string(d);
        trav.push_back({n, 0, 2 + d});
        shape.push_back(2 + d);
        // only the outermost dimension of B is larger: B read from row `off` stays contiguous
        padded.push_back(2 + d + (d == 0 ? off : 0));
        index.push_back(idx(n));
        shifted.push_back(d == 0 ? idx(n) + off : idx(n));
      }
      auto a = make_access(f32("A", shape), index);
      auto b = make_access(f32("B", padded), shifted);
      for (auto op : {binary_op::add, binary_op::sub, binary_op::mul, binary_op::div}) {
        auto i = expect_match(*make_scope(trav, {}, make_binary(op, a, b)), op_kind::elementwise);
        CHECK(i.elementwise().count == eval::dense::count(shape));
        CHECK(i.inputs[1].offset == off * (eval::dense::count(shape) / shape[0]));
        ++checked;
      }
#define EIN_UNARY_CASE(F)                                                                      \
  {                                                                                            \
    auto i =                                                                                   \
        expect_match(*make_scope(trav, {}, make_unary(unary_fn::F, b)), op_kind::elementwise); \
    CHECK(i.elementwise().fn == #F);                                                           \
    ++checked;                                                                                 \
  }
      EIN_FOR_EACH_UNARY_FN(EIN_UNARY_CASE)
#undef EIN_UNARY_CASE
    }
#define EIN_COUNT_ONE(F) +1
  constexpr int unary_functions = 0 EIN_FOR_EACH_UNARY_FN(EIN_COUNT_ONE);
#undef EIN_COUNT_ONE
  // 4 ranks × 2 offsets × (4 binary operators + every unary function)
  CHECK(checked == 8 * (4 + unary_functions));
}

TEST_CASE("elementwise: near misses do not match") {
  auto A = f32("A", {3, 4}), B = f32("B", {3, 4}), T = f32("T", {4, 3}), V = f32("V", {4});
  std::vector<iterator> trav{{"i", 0, 3}, {"j", 0, 4}};
  auto a = make_access(A, {idx("i"), idx("j")});
  auto none = [](const scope_ptr& s) { expect_no_match(*s, op_kind::elementwise); };
  none(make_scope(trav, {}, a + make_access(T, {idx("j"), idx("i")})));      // a transposed operand
  none(make_scope(trav, {}, a + make_access(V, {idx("j")})));                // a broadcast
  none(make_scope(trav, {}, a + make_access(B, {idx("i") + 1, idx("j")})));  // reads padding
  none(make_scope(trav, {{"k", 0, 2}}, a + make_access(B, {idx("i"), idx("j")})));  // a reduction
  none(make_scope(trav, {}, make_unary(unary_fn::relu, a + a)));                    // two functions
  none(make_scope(trav, {}, a));                                                    // a copy
  none(make_scope({{"i", 0, 3}, {"j", 0, 2}}, {},
                  make_access(A, {idx("i"), idx("j") * 2}) + make_access(A, {idx("i"), idx("j")})));
  // elementwise work is memory-bound
  auto i = expect_match(*make_scope(trav, {}, a + make_access(B, {idx("i"), idx("j")})),
                        op_kind::elementwise);
  CHECK(memory_bound(i));
}

}  // namespace elementwise_test
