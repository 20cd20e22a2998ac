// Packing weight operands for a build: a convolution whose filter layout the library does not
// take reads a permuted copy of its weights (a weight transform) and becomes a library call.
#include "rediscover_support.hpp"

#include <array>
#include <numeric>

#include "ein/derive/all.hpp"
#include "ein/search/program/optimize_program.hpp"

namespace pack_weights_test {

using namespace search_test;
// `ein` has these names too (the front end's input, weight and program), seen where another file of
// the unity batch includes the front end: these are the ones meant here
using search_test::input;
using search_test::weight;
using ein::ir::program;

namespace {

// A cuda build with cuDNN, whose legacy API takes packed KRSC or KCRS filters only; GEMMs too.
const ein::plan::capabilities packed_filters_only{{ein::plan::blas, ein::plan::cudnn}};

// Conv3x3 NHWC [1,6,6,16], 16 filters (compute-bound), padding 1, with its weight stored in the
// dimension order `order` of (r, s, f, c): K[order...].
scope_ptr conv_with_filter_order(const std::array<std::size_t, 4>& order) {
  std::array<std::int64_t, 4> extent{3, 3, 16, 16};
  std::array<affine, 4> index{idx("r"), idx("s"), idx("f"), idx("c")};
  std::vector<std::int64_t> shape;
  std::vector<affine> reads;
  for (auto d : order) shape.push_back(extent[d]), reads.push_back(index[d]);
  return make_scope({{"n", 0, 1}, {"h", 0, 6}, {"w", 0, 6}, {"f", 0, 16}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 16}},
                    make_access(input("A", {1, 6, 6, 16}), {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                        make_access(weight("K", shape), reads));
}

// The run-time kernels of `p` that are library calls the backend makes.
std::size_t called(const search::expression_plan& p) {
  std::size_t n = 0;
  for (auto& k : p.kernels) n += !k.weight_only && k.library() && packed_filters_only.calls(*k.op);
  return n;
}

}  // namespace

TEST_CASE("pack_weight_operands: every filter layout of a Conv3x3 becomes a called conv2d over a packed copy") {
  std::array<std::size_t, 4> order{0, 1, 2, 3};
  int packed = 0, already = 0;
  do {
    auto src = conv_with_filter_order(order);
    auto p = search::instantiate(src, h100());
    REQUIRE(p.kernels.back().library());
    CAPTURE(p.str());
    auto q = search::pack_weight_operands(p, h100(), packed_filters_only);
    if (packed_filters_only.calls(*p.kernels.back().op)) {
      // nothing to do: the plan comes back as it was
      CHECK(q.expr == p.expr);
      ++already;
      continue;
    }
    CAPTURE(q.str());
    CHECK(called(q) == 1);
    CHECK(q.kernels.back().op->kind == match::op_kind::conv2d);
    // the copy is a weight transform: free at run time
    CHECK(q.kernels.front().weight_only);
    CHECK(q.seconds == p.seconds);
    CHECK(plan_equals_source(q, src));
    ++packed;
  } while (std::next_permutation(order.begin(), order.end()));
  CHECK(already >= 1);  // (f, r, s, c): KRSC as written
  CHECK(packed == 24 - already);
}

TEST_CASE("pack_weight_operands: an operand read at run time is not packed") {
  auto src = conv_with_filter_order({0, 1, 2, 3});
  auto as_input = derive::map_accesses(src->body, [](const ir::access& a) -> expr {
    auto& t = std::get<tensor>(a.source);
    if (t.name != "K") return nullptr;
    return make_access(input("K", t.shape), a.index);
  });
  auto p = search::instantiate(make_scope(src->traversal, src->summation, as_input), h100());
  auto q = search::pack_weight_operands(p, h100(), packed_filters_only);
  CHECK(q.expr == p.expr);
  CHECK(called(q) == 0);
}

TEST_CASE("pack_weight_operands: no build restriction, no change") {
  auto p = search::instantiate(conv_with_filter_order({0, 1, 2, 3}), h100());
  CHECK(search::pack_weight_operands(p, h100(), ein::plan::every_operator()).expr == p.expr);
}

TEST_CASE("optimize_program for a backend with packed filters only: Conv5x5 [16,224,224,32] chooses Figure 6") {
  auto c = conv(224, 32, 32, 5, 2);
  // batch 16, as in the paper
  auto batched = make_scope({{"n", 0, 16}, {"h", 0, 224}, {"w", 0, 224}, {"f", 0, 32}}, c->summation,
                            make_access(input("A", {16, 224, 224, 32}),
                                        {idx("n"), idx("h") + idx("r") - 2, idx("w") + idx("s") - 2, idx("c")}) *
                                make_access(weight("K", {5, 5, 32, 32}), {idx("r"), idx("s"), idx("f"), idx("c")}));
  program src{"conv5x5", {input("A", {16, 224, 224, 32}), weight("K", {5, 5, 32, 32})}, {{"y", batched, dtype::f32}},
              {"y"}};
  auto r = search::optimize_program(src, derive::intra_rules(), h100(), {}, {}, packed_filters_only);
  MESSAGE(r.report());
  auto& best = r.subprograms.at(0).result.best;
  std::size_t convs = 0;
  for (auto& k : best.kernels) {
    if (k.weight_only || !k.library()) continue;
    REQUIRE(packed_filters_only.calls(*k.op));
    auto& a = k.op->conv();
    CHECK(a.r == 3);
    CHECK(a.k == 4 * 32);
    ++convs;
  }
  CHECK(convs == 1);
  CHECK(!best.kernels.back().library());  // the eOperator summing at offsets
  CHECK(r.weight_transforms.size() >= 1);
}

}  // namespace pack_weights_test
