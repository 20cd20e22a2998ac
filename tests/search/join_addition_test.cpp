// Joining an addition of two contractions: a LoRA layer is joined with its three products, and
// an addition whose sums share no factor, a part read twice or by the outputs, a non-linear part
// and a join that saves no multiply-adds stay boundaries.
#include "rediscover_support.hpp"

#include "ein/search/program/join_addition.hpp"

namespace join_addition_test {

using namespace search_test;

namespace {

// L_{m,o} Σ_i X[m,i]·Y[o,i].
scope_ptr product(const tensor& X, const tensor& Y) {
  return make_scope({{"m", 0, X.shape[0]}, {"o", 0, Y.shape[0]}}, {{"i", 0, X.shape[1]}},
                    make_access(X, {idx("m"), idx("i")}) * make_access(Y, {idx("o"), idx("i")}));
}

// y = base + low with base = x·Wᵀ, low = h·Bᵀ, h = x·Aᵀ (x [m, k], W [n, k], A [r, k], B [n, r]);
// `other` reads z in place of x in h, `relu` puts an activation on h.
program lora(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t r, bool other = false, bool relu = false) {
  auto x = input("x", {m, k}), z = input("z", {m, k});
  auto W = weight("W", {n, k}), A = weight("A", {r, k}), B = weight("B", {n, r});
  auto h = product(other ? z : x, A);
  if (relu) h = make_scope(h->traversal, h->summation, make_unary(unary_fn::relu, h->body));
  auto low = product(definition_tensor("h", {m, r}), B);
  std::vector<affine> at{idx("m"), idx("o")};
  auto y = make_scope({{"m", 0, m}, {"o", 0, n}}, {},
                      make_access(definition_tensor("base", {m, n}), at) + make_access(definition_tensor("low", {m, n}), at));
  return {"lora",
          {x, z, W, A, B},
          {{"h", h, dtype::f32}, {"base", product(x, W), dtype::f32}, {"low", low, dtype::f32}, {"y", y, dtype::f32}},
          {"y"}};
}

std::vector<std::string> names(const program& p) {
  std::vector<std::string> r;
  for (auto& d : p.definitions) r.push_back(d.name);
  return r;
}

program joined(const program& p, std::vector<derive::step>* steps = nullptr) {
  return search::join_addition(p, h100(), cuda_with_cudnn(), steps);
}

}  // namespace

TEST_CASE("join_addition joins a LoRA layer with its products, and keeps its values") {
  for (auto [m, k, n, r] : {std::array<std::int64_t, 4>{16, 64, 48, 4}, {1, 4096, 4096, 16}, {128, 4096, 4096, 64}}) {
    auto src = lora(m, k, n, r);
    std::vector<derive::step> steps;
    auto p = joined(src, &steps);
    CHECK(names(p) == std::vector<std::string>{"y"});
    REQUIRE(steps.size() == 3);
    CHECK(*steps[2].get<std::string>("definition") == "h");
    if (m * k * n < 1000000) check_same_outputs(src, p, {1, 2});
  }
}

TEST_CASE("join_addition leaves additions alone that summation merging cannot shorten") {
  auto four = std::vector<std::string>{"h", "base", "low", "y"};
  CHECK(names(joined(lora(16, 64, 48, 4, true))) == four);        // h reads z, base x: no factor in common
  CHECK(names(joined(lora(16, 64, 48, 4, false, true))) == four);  // relu(x·Aᵀ) is not linear
  auto read_twice = lora(16, 64, 48, 4);
  read_twice.outputs.push_back("low");
  CHECK(names(joined(read_twice)) == four);
  // the same weight on both sides: x·Wᵀ + z·Wᵀ merges into (x + z)·Wᵀ, fewer multiply-adds
  auto x = input("x", {4, 8}), z = input("z", {4, 8}), W = weight("W", {6, 8});
  std::vector<affine> at{idx("m"), idx("o")};
  auto y = make_scope({{"m", 0, 4}, {"o", 0, 6}}, {},
                      make_access(definition_tensor("a", {4, 6}), at) - make_access(definition_tensor("b", {4, 6}), at));
  program both{"both", {x, z, W}, {{"a", product(x, W), dtype::f32}, {"b", product(z, W), dtype::f32}, {"y", y, dtype::f32}}, {"y"}};
  auto p = joined(both);
  CHECK(names(p) == std::vector<std::string>{"y"});
  check_same_outputs(both, p, {1});
  // two sums over different extents share no summation box
  auto wide = input("wide", {4, 9});
  program apart{"apart", {x, wide, W, weight("V", {6, 9})},
                {{"a", product(x, W), dtype::f32}, {"b", product(wide, weight("V", {6, 9})), dtype::f32}, {"y", y, dtype::f32}},
                {"y"}};
  CHECK(names(joined(apart)) == std::vector<std::string>{"a", "b", "y"});
}

}  // namespace join_addition_test
