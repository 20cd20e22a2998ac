// Shared-operand merging: the rule on hand-written and generated pairs of contractions (widths,
// layouts, iterator names, readers), every candidate against the interpreter, and its refusals.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/merge_shared_operand.hpp"
#include "ein/derive/program_edit.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"

namespace merge_shared_operand_test {

using namespace ein;
using namespace ein::ir;

namespace {

definition def(const std::string& name, scope_ptr value) { return {name, std::move(value), dtype::f32}; }
tensor ref(const definition& d) { return {d.name, d.type, d.value->shape(), tensor_role::definition}; }
tensor input(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::input};
}
tensor weight(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::weight};
}

// Every output of `after` equals that of `before` on two random inputs; both verify.
void check_equal(const program& before, const program& after) {
  INFO("before:\n" << to_string(before) << "after:\n" << to_string(after));
  verify(before);
  verify(after);
  REQUIRE(after.outputs == before.outputs);
  REQUIRE(after.tensors == before.tensors);
  for (std::uint64_t seed : {3u, 4u}) {
    auto inputs = eval::random_inputs(before, seed);
    auto want = eval::evaluate(before, inputs);
    auto got = eval::evaluate(after, inputs);
    for (auto& o : before.outputs) {
      INFO("output " << o);
      REQUIRE(got.at(o).shape == want.at(o).shape);
      CHECK(eval::max_rel_error(got.at(o), want.at(o)) <= 1e-12);
    }
  }
}

tensor X = input("X", {4, 3});
tensor W1 = weight("W1", {3, 2});
tensor W2 = weight("W2", {5, 3});

// y1 = X·W1 (4×2), y2 = X·W2ᵀ (4×5): two matmuls of one input, the second weight transposed.
program two_matmuls() {
  auto y1 = def("y1", make_scope({{"i", 0, 4}, {"j", 0, 2}}, {{"k", 0, 3}},
                                 make_access(X, {idx("i"), idx("k")}) * make_access(W1, {idx("k"), idx("j")})));
  auto y2 = def("y2", make_scope({{"n", 0, 5}, {"m", 0, 4}}, {{"q", 0, 3}},
                                 make_access(W2, {idx("n"), idx("q")}) * make_access(X, {idx("m"), idx("q")})));
  return {"two_matmuls", {X, W1, W2}, {y1, y2}, {"y1", "y2"}};
}

// A generated pair of contractions of one input X[b, h, c] (or its padded window
// X[b, h + r − 1, c], or the product X·Y), over different weights: their own iterator names,
// traversal orders, weight layouts and widths (1 or 2 weight-side iterators), an extra summation
// of extent 1 and a constant factor now and then, a weight relaid by a weight-only definition;
// 0 to 3 readers, some reading outside the weight-side box; outputs chosen at random. With
// `differ` the second definition does not qualify: 1 reads X at h + 1, 2 sums c over one more
// value (reading X's padding), 3 also reads the first definition in its operand.
program generated_pair(std::uint64_t seed, int differ = 0) {
  eval::random_stream rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.integer(lo, hi); };
  std::int64_t B = pick(1, 2), H = pick(2, 4), C = pick(1, 3);
  int form = static_cast<int>(pick(0, 2));
  auto Xg = input("X", {B, H, C});
  auto Y = input("Y", {H, C});
  program p{"pair_" + std::to_string(seed), {Xg, Y}, {}, {}};
  std::vector<definition> pair;
  for (int k = 1; k <= 2; ++k) {
    auto n = [&](const char* base) { return std::string(base) + std::to_string(k); };
    std::vector<iterator> trav{{n("b"), 0, B}, {n("h"), 0, H}};
    std::vector<iterator> sum{{n("c"), 0, k == 2 && differ == 2 ? C + 1 : C}};
    if (form == 1) sum.push_back({n("r"), 0, 3});
    bool unit = pick(0, 1) == 1;
    if (unit) sum.push_back({n("u"), 0, 1});
    std::vector<iterator> free;
    for (std::int64_t f = pick(1, 2); f > 0; --f) free.push_back({n("f") + std::to_string(f), 0, pick(1, 4)});
    // operand
    affine h = idx(n("h"));
    if (form == 1) h = h + idx(n("r")) - 1;
    if (unit) h = h + idx(n("u"));
    if (k == 2 && differ == 1) h = h + 1;
    expr operand = make_access(Xg, {idx(n("b")), h, idx(n("c"))});
    if (form == 2) operand = operand * make_access(Y, {idx(n("h")), idx(n("c"))});
    if (k == 2 && differ == 3) {
      auto& first = *pair.front().value;
      std::vector<affine> at;
      for (auto& it : first.traversal)
        at.push_back(it.name[0] == 'b' ? idx(n("b")) : it.name[0] == 'h' ? idx(n("h")) : affine(0));
      operand = operand * make_access(ref(pair.front()), at);
    }
    // weight side: a random layout of (free..., c[, r])
    std::vector<iterator> wdims = free;
    wdims.push_back(sum[0]);
    if (form == 1) wdims.push_back(sum[1]);
    for (std::size_t i = wdims.size(); i > 1; --i) std::swap(wdims[i - 1], wdims[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(i) - 1))]);
    std::vector<std::int64_t> wshape;
    std::vector<affine> windex;
    for (auto& d : wdims) wshape.push_back(d.extent()), windex.push_back(idx(d.name));
    auto W = weight("W" + std::to_string(k), wshape);
    p.tensors.push_back(W);
    expr wread = make_access(W, windex);
    if (pick(0, 2) == 0) {  // the weight relaid by a weight-only definition
      std::vector<iterator> box;
      std::vector<affine> at;
      for (std::size_t d = 0; d < wshape.size(); ++d) {
        box.push_back({"a" + std::to_string(d), 0, wshape[d]});
        at.push_back(idx("a" + std::to_string(d)));
      }
      auto relaid = def(n("relaid"), make_scope(box, {}, make_unary(unary_fn::neg, make_access(W, at))));
      p.definitions.push_back(relaid);
      wread = make_access(ref(relaid), windex);
    }
    if (pick(0, 3) == 0) wread = make_constant(0.5) * wread;
    trav.insert(trav.begin() + pick(0, 2), free.begin(), free.end());
    if (pick(0, 1)) std::reverse(sum.begin(), sum.end());
    pair.push_back(def(n("y"), make_scope(trav, sum, pick(0, 1) ? operand * wread : wread * operand)));
  }
  for (auto& d : pair) p.definitions.push_back(d);
  for (std::int64_t r = pick(0, 3); r > 0; --r) {
    auto& d = pair[static_cast<std::size_t>(pick(0, 1))];
    auto& s = *d.value;
    std::vector<affine> at = derive::detail::identity_index(s);
    auto shift = pick(0, 2);  // 0: in the box; 1: a shared index shifted; 2: a weight-side one
    for (std::size_t m = 0; m < at.size(); ++m) {
      bool shared = s.traversal[m].name[0] == 'b' || s.traversal[m].name[0] == 'h';
      if ((shift == 1 && shared) || (shift == 2 && !shared)) {
        at[m] = at[m] + 1;
        break;
      }
    }
    auto reader = def("z" + std::to_string(r), make_scope(s.traversal, {}, make_unary(unary_fn::tanh, make_access(ref(d), at))));
    p.definitions.push_back(reader);
    p.outputs.push_back(reader.name);
  }
  for (auto& d : pair)
    if (p.outputs.empty() || pick(0, 1)) p.outputs.push_back(d.name);
  return p;
}

}  // namespace

TEST_CASE("merge_shared_operand: two matmuls of one input, different widths and weight layouts") {
  auto p = two_matmuls();
  auto candidates = derive::merge_shared_operand(p);
  REQUIRE(candidates.size() == 1);
  auto& r = candidates.front().result;
  check_equal(p, r);
  auto* merged = r.find_definition("y1_y2");
  REQUIRE(merged);
  CHECK(to_string(*merged->value) == "L_{i:[0,4), j1:[0,7)} Σ_{k:[0,3)} X[i, k] * y1_y2_weights[k, j1]");
  CHECK(to_string(*r.find_definition("y2_weights")->value) == "L_{k:[0,3), j1:[0,5)} W2[j1, k]");
  CHECK(to_string(*r.find_definition("y1_y2_weights")->value) ==
        "L_{k:[0,3), j1:[0,7)} y1_weights[k, j1] + y2_weights[k, j1 - 2]");
  // outputs stay as slices of the merged definition
  CHECK(to_string(*r.find_definition("y2")->value) == "L_{n:[0,5), m:[0,4)} y1_y2[m, n + 2]");
  auto weight_only = ir::weight_only_definitions(r);
  CHECK(weight_only == std::set<std::string>{"y1_weights", "y2_weights", "y1_y2_weights"});
}

TEST_CASE("merge_shared_operand: summation ranges that do not start at 0, matched by range") {
  // y1 = Σ_{k:[1,4)} X[i, k − 1] * W1[k − 1, j] * V[p]: the weight side also sums V over p,
  // which the operand does not read; y2 names them the other way round.
  auto V = weight("V", {2});
  auto y1 = def("y1", make_scope({{"i", 0, 4}, {"j", 0, 2}}, {{"k", 1, 4}, {"p", 0, 2}},
                                 make_access(X, {idx("i"), idx("k") - 1}) * make_access(W1, {idx("k") - 1, idx("j")}) *
                                     make_access(V, {idx("p")})));
  auto y2 = def("y2", make_scope({{"n", 0, 5}, {"m", 0, 4}}, {{"a", 0, 2}, {"b", 1, 4}},
                                 make_access(V, {idx("a")}) * make_access(X, {idx("m"), idx("b") - 1}) *
                                     make_access(W2, {idx("n"), idx("b") - 1})));
  program p{"shifted", {X, W1, W2, V}, {y1, y2}, {"y1", "y2"}};
  auto candidates = derive::merge_shared_operand(p);
  REQUIRE(candidates.size() == 1);
  check_equal(p, candidates.front().result);
  CHECK(to_string(*candidates.front().result.find_definition("y1_y2")->value) ==
        "L_{i:[0,4), j1:[0,7)} Σ_{k:[1,4), p:[0,2)} X[i, k - 1] * y1_y2_weights[k - 1, p, j1]");
}

TEST_CASE("merge_shared_operand: convolutions flatten their filters; readers read the merged definition") {
  // Conv3x3 and Conv1x1 (padding 1 and 0) on one input, each read by a reader; the 1×1 one has
  // its summation over r, s of extent 1.
  auto A = input("A", {5, 5, 2});
  auto K3 = weight("K3", {3, 3, 4, 2}), K1 = weight("K1", {1, 1, 3, 2});
  auto c3 = def("c3", make_scope({{"r", 0, 3}, {"s", 0, 3}, {"f", 0, 4}, {"h", 0, 5}, {"w", 0, 5}}, {{"c", 0, 2}},
                                 make_access(A, {idx("h"), idx("w"), idx("c")}) *
                                     make_access(K3, {idx("r"), idx("s"), idx("f"), idx("c")})));
  auto c1 = def("c1", make_scope({{"h", 0, 5}, {"w", 0, 5}, {"f", 0, 3}}, {{"r", 0, 1}, {"s", 0, 1}, {"c", 0, 2}},
                                 make_access(A, {idx("h") + idx("r"), idx("w") + idx("s"), idx("c")}) *
                                     make_access(K1, {idx("r"), idx("s"), idx("f"), idx("c")})));
  auto offset = def("o3", make_scope({{"h", 0, 5}, {"w", 0, 5}, {"f", 0, 4}}, {{"r", 0, 3}, {"s", 0, 3}},
                                     make_access(ref(c3), {idx("r"), idx("s"), idx("f"), idx("h") + idx("r") - 1,
                                                           idx("w") + idx("s") - 1})));
  auto sum = def("out", make_scope({{"h", 0, 5}, {"w", 0, 5}, {"f", 0, 3}}, {},
                                   make_access(ref(offset), {idx("h"), idx("w"), idx("f")}) +
                                       make_access(ref(c1), {idx("h"), idx("w"), idx("f")})));
  program p{"convs", {A, K3, K1}, {c3, c1, offset, sum}, {"out"}};
  auto candidates = derive::merge_shared_operand(p);
  REQUIRE(candidates.size() == 1);
  auto& r = candidates.front().result;
  check_equal(p, r);
  // no slice is left: both readers read the merged contraction, at flattened filter indices
  CHECK(!r.find_definition("c3"));
  CHECK(!r.find_definition("c1"));
  REQUIRE(r.find_definition("c3_c1"));
  CHECK(to_string(*r.find_definition("c3_c1")->value) ==
        "L_{h:[0,5), w:[0,5), j:[0,39)} Σ_{c:[0,2)} A[h, w, c] * c3_c1_weights[c, j]");
  CHECK(to_string(*r.find_definition("out")->value) ==
        "L_{h:[0,5), w:[0,5), f:[0,3)} o3[h, w, f] + c3_c1[h, w, f + 36]");
  CHECK(to_string(*r.find_definition("c3_weights")->value) ==
        "L_{c:[0,2), j:[0,36)} K3[j / 12, (j / 4) % 3, j % 4, c]");
}

TEST_CASE("merge_shared_operand: generated pairs merge exactly, whatever their widths, layouts and readers") {
  int slices_kept = 0, inlined = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    auto p = generated_pair(seed);
    INFO("seed " << seed << "\n" << to_string(p));
    auto candidates = derive::merge_shared_operand(p);
    REQUIRE(candidates.size() == 1);
    auto& r = candidates.front().result;
    check_equal(p, r);
    REQUIRE(r.find_definition("y1_y2"));
    // one contraction reads the operand
    auto readers = derive::detail::readers(r, "X");
    REQUIRE(readers.size() == 1);
    CHECK(r.definitions[readers.front()].name == "y1_y2");
    for (auto& name : {"y1", "y2"}) {
      bool output = std::find(p.outputs.begin(), p.outputs.end(), name) != p.outputs.end();
      if (r.find_definition(name)) {
        ++slices_kept;
        CHECK((output || !derive::detail::readers(r, name).empty()));
      } else {
        ++inlined;
        CHECK(!output);
      }
    }
  }
  CHECK(slices_kept > 0);
  CHECK(inlined > 0);
}

TEST_CASE("merge_shared_operand: generated pairs whose operands differ are refused") {
  for (std::uint64_t seed = 0; seed < 60; ++seed)
    for (int differ = 1; differ <= 3; ++differ) {
      auto p = generated_pair(seed, differ);
      INFO("seed " << seed << ", differ " << differ << "\n" << to_string(p));
      verify(p);
      CHECK(derive::merge_shared_operand(p).empty());
    }
}

TEST_CASE("merge_shared_operand: refusals") {
  auto p = two_matmuls();
  auto y2 = [&](expr body, std::vector<iterator> sum = {{"q", 0, 3}}) {
    p.definitions[1].value = make_scope({{"n", 0, 5}, {"m", 0, 4}}, sum, std::move(body));
  };
  SUBCASE("the shared operand read transposed") {
    auto Xt = input("Xt", {4, 4});
    p.tensors.push_back(Xt);
    p.definitions[0].value = make_scope({{"i", 0, 4}, {"j", 0, 2}}, {{"k", 0, 3}},
                                        make_access(Xt, {idx("i"), idx("k")}) * make_access(W1, {idx("k"), idx("j")}));
    y2(make_access(W2, {idx("n"), idx("q")}) * make_access(Xt, {idx("q"), idx("m")}));
    CHECK(derive::merge_shared_operand(p).empty());
  }
  SUBCASE("the shared operand read at a shifted index") {
    y2(make_access(W2, {idx("n"), idx("q")}) * make_access(X, {idx("m") + 1, idx("q")}));
    CHECK(derive::merge_shared_operand(p).empty());
  }
  SUBCASE("a different summation range") {
    y2(make_access(W2, {idx("n"), idx("q")}) * make_access(X, {idx("m"), idx("q")}), {{"q", 0, 2}});
    CHECK(derive::merge_shared_operand(p).empty());
  }
  SUBCASE("different operands") {
    auto X2 = input("X2", {4, 3});
    p.tensors.push_back(X2);
    y2(make_access(W2, {idx("n"), idx("q")}) * make_access(X2, {idx("m"), idx("q")}));
    CHECK(derive::merge_shared_operand(p).empty());
  }
  SUBCASE("not a contraction: a sum, or the weight side reading the operand's iterator") {
    y2(make_access(W2, {idx("n"), idx("q")}) + make_access(X, {idx("m"), idx("q")}));
    CHECK(derive::merge_shared_operand(p).empty());
    y2(make_access(W2, {idx("m"), idx("q")}) * make_access(X, {idx("m"), idx("q")}));
    CHECK(derive::merge_shared_operand(p).empty());
  }
  SUBCASE("one definition reads the other") {
    // A definition that reads the other reads it in its operand (the weight side reads weights
    // only), so the operands differ: y2 = X·W2ᵀ scaled by y1's first column.
    y2(make_access(W2, {idx("n"), idx("q")}) * make_access(X, {idx("m"), idx("q")}) *
       make_access(ref(p.definitions[0]), {idx("m"), affine(0)}));
    CHECK(derive::merge_shared_operand(p).empty());
    auto z = def("z", make_scope({{"m", 0, 4}, {"n", 0, 5}}, {{"q", 0, 3}},
                                 make_access(X, {idx("m"), idx("q")}) * make_access(W2, {idx("n"), idx("q")})));
    auto chained = def("w", make_scope({{"i", 0, 4}, {"j", 0, 2}}, {{"k", 0, 2}},
                                       make_access(ref(p.definitions[0]), {idx("i"), idx("k")}) *
                                           make_access(W1, {idx("k") + 1, idx("j")})));
    program q{"chain", {X, W1, W2}, {p.definitions[0], chained, z}, {"w", "z"}};
    // y1 and z merge; w reads y1 but contracts a different operand, so it merges with nothing
    auto merged = derive::merge_shared_operand(q);
    REQUIRE(merged.size() == 1);
    CHECK(*merged.front().how.get<std::vector<std::string>>("definitions") == std::vector<std::string>{"y1", "z"});
    check_equal(q, merged.front().result);
  }
  SUBCASE("weight-only definitions are not merged") {
    auto a = def("a", make_scope({{"i", 0, 3}, {"j", 0, 2}}, {}, make_access(W1, {idx("i"), idx("j")})));
    auto b = def("b", make_scope({{"i", 0, 3}, {"j", 0, 2}}, {}, make_access(W1, {idx("i"), idx("j")}) * make_constant(2)));
    program q{"weights", {X, W1}, {a, b}, {"a", "b"}};
    CHECK(derive::merge_shared_operand(q).empty());
  }
}

}  // namespace merge_shared_operand_test
