// Store or recompute: recomputed forward values give the same gradients, the choice follows the
// prices and the memory budget, and a budget no choice meets is an error naming it.
#include "grad/grad_support.hpp"

#include "ein/codegen/backend.hpp"
#include "ein/cost/profile.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/eval/compare.hpp"
#include "support/generate.hpp"
#include "ein/grad/recompute.hpp"
#include "ein/grad/store_or_recompute.hpp"

namespace store_or_recompute_test {

using namespace grad_support;

// conv → bias → relu → max pooling → conv → relu: forward values of every kind
program layers() {
  auto X = input("X", {1, 6, 6, 2}), K = weight("K", {3, 3, 3, 2}), b = weight("b", {3}), L = weight("L", {1, 1, 2, 3});
  auto c = make_scope({{"n", 0, 1}, {"h", 0, 6}, {"w", 0, 6}, {"f", 0, 3}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 2}},
                      make_access(X, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                          make_access(K, {idx("r"), idx("s"), idx("f"), idx("c")}));
  auto at = std::vector<affine>{idx("n"), idx("h"), idx("w"), idx("f")};
  auto y = make_scope(c->traversal, {}, make_access(defined("c", c), at) + make_access(b, {idx("f")}));
  auto a = make_scope(c->traversal, {}, make_unary(unary_fn::relu, make_access(defined("y", y), at)));
  auto pool = make_scope({{"n", 0, 1}, {"h", 0, 3}, {"w", 0, 3}, {"f", 0, 3}}, {{"r", 0, 2}, {"s", 0, 2}},
                         make_access(defined("a", a), {idx("n"), idx("h") * 2 + idx("r"), idx("w") * 2 + idx("s"), idx("f")}),
                         reduction::max);
  auto d = make_scope({{"n", 0, 1}, {"h", 0, 3}, {"w", 0, 3}, {"f", 0, 2}}, {{"c", 0, 3}},
                      make_access(defined("pool", pool), {idx("n"), idx("h"), idx("w"), idx("c")}) *
                          make_access(L, {affine(0), affine(0), idx("f"), idx("c")}));
  auto out = make_scope(d->traversal, {}, make_unary(unary_fn::sigmoid, make_access(defined("d", d), at)));
  return make_program({X, K, b, L}, {{"c", c}, {"y", y}, {"a", a}, {"pool", pool}, {"d", d}, {"out", out}});
}

// Every output of `p` and `q` on the same random inputs agrees to 1e-12.
void same_values(const program& p, const program& q) {
  auto env = eval::random_inputs(p, 3);
  auto want = eval::evaluate(p, env), got = eval::evaluate(q, env);
  for (auto& o : p.outputs) {
    CAPTURE(o);
    CHECK(eval::max_rel_error(got.at(o), want.at(o)) < 1e-12);
  }
}

TEST_CASE("the backward reads the forward's outputs, and recomputing any of them changes no value") {
  auto p = layers();
  auto g = grad::gradient(p, all_tensors(p));
  auto read = grad::forward_values_read(g);
  // relu's derivative reads a, not y; sigmoid's reads out
  CHECK(std::find(read.begin(), read.end(), "a") != read.end());
  CHECK(std::find(read.begin(), read.end(), "y") == read.end());
  std::set<std::string> all(read.begin(), read.end());
  auto r = grad::recompute(g, all);
  REQUIRE_NOTHROW(verify(r.program));
  same_values(g.program, r.program);
  // the pooling is copied; its input a is fused into the copy and into relu's derivative, and
  // reads y, which is not recomputed: the backward reads y instead
  CHECK(r.program.find_definition("pool_recompute"));
  CHECK_FALSE(r.program.find_definition("a_recompute"));
  auto still = grad::forward_values_read(r);
  CHECK(std::find(still.begin(), still.end(), "y") != still.end());
  CHECK(std::find(still.begin(), still.end(), "a") == still.end());
  for (auto& name : read) {
    CAPTURE(name);
    auto one = grad::recompute(g, {name});
    REQUIRE_NOTHROW(verify(one.program));
    same_values(g.program, one.program);
  }
}

TEST_CASE("generated programs: every forward value recomputed gives the same gradients") {
  eval::generate_options o;
  o.max_extent = 5, o.max_work = 2000, o.max_percent = 20;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    auto p = eval::generate_program(seed, o);
    INFO("seed ", seed, ": ", to_string(p));
    auto g = grad::gradient(p, all_tensors(p));
    auto read = grad::forward_values_read(g);
    auto r = grad::recompute(g, std::set<std::string>(read.begin(), read.end()));
    REQUIRE_NOTHROW(verify(r.program));
    same_values(g.program, r.program);
  }
}

cost::roofline host_model() { return cost::roofline(cost::load_profile(EIN_PROFILE_DIR "/host.json")); }

// out[i] = Σ_j s[i, j] · W[j] over the outer product s = sigmoid(A[i] · B[j]): W's gradient reads
// s, 256 times the bytes of A and B, which recompute it
program outer() {
  auto A = input("A", {256}), B = input("B", {256}), W = weight("W", {256});
  auto s = make_scope({{"i", 0, 256}, {"j", 0, 256}}, {},
                      make_unary(unary_fn::sigmoid, make_access(A, {idx("i")}) * make_access(B, {idx("j")})));
  auto out = make_scope({{"i", 0, 256}}, {{"j", 0, 256}},
                        make_access(defined("s", s), {idx("i"), idx("j")}) * make_access(W, {idx("j")}));
  return make_program({A, B, W}, {{"s", s}, {"out", out}});
}

TEST_CASE("store, recompute and cost: each choice as asked; a budget below the stored outer product recomputes it") {
  auto p = outer();
  auto g = grad::gradient(p, {"W", "A"});
  auto model = host_model();
  auto caps = codegen::capabilities_of(codegen::backend::host, false, false);
  grad::keeping_choice stored, recomputed, priced;
  grad::store_or_recompute(g, &model, caps, grad::keeping::store, std::nullopt, stored);
  grad::store_or_recompute(g, &model, caps, grad::keeping::recompute, std::nullopt, recomputed);
  auto chosen = grad::store_or_recompute(g, &model, caps, grad::keeping::cost, std::nullopt, priced);
  REQUIRE(stored.values.size() == 1);
  CHECK(stored.values[0].definition == "s");
  CHECK(stored.values[0].bytes == 256 * 256 * 8);
  CHECK_FALSE(stored.values[0].recomputed);
  CHECK(stored.values[0].kept);
  CHECK(recomputed.values[0].recomputed);
  CHECK_FALSE(recomputed.values[0].kept);
  CHECK(priced.values[0].recomputed == (priced.values[0].recompute_seconds < priced.values[0].store_seconds));
  CHECK(recomputed.peak_bytes + 256 * 256 * 8 <= stored.peak_bytes);
  same_values(g.program, chosen.program);
  grad::keeping_choice bounded;
  auto within = grad::store_or_recompute(g, &model, caps, grad::keeping::cost, stored.peak_bytes - 1, bounded);
  CHECK(bounded.values[0].recomputed);
  CHECK(bounded.peak_bytes == recomputed.peak_bytes);
  same_values(g.program, within.program);
}

TEST_CASE("a memory budget: met by recomputing what saves the most bytes, or an error naming it") {
  auto p = layers();
  auto g = grad::gradient(p, all_tensors(p));
  auto model = host_model();
  auto caps = codegen::capabilities_of(codegen::backend::host, false, false);
  grad::keeping_choice stored, recomputed, bounded;
  grad::store_or_recompute(g, &model, caps, grad::keeping::store, std::nullopt, stored);
  grad::store_or_recompute(g, &model, caps, grad::keeping::recompute, std::nullopt, recomputed);
  for (auto& v : recomputed.values) CHECK_FALSE(v.kept);  // the backward reads inputs and weights only
  // a budget every choice meets keeps the cheapest; one none meets is an error
  auto roomy = grad::store_or_recompute(g, &model, caps, grad::keeping::cost, stored.peak_bytes, bounded);
  CHECK(bounded.peak_bytes <= stored.peak_bytes);
  same_values(g.program, roomy.program);
  std::int64_t least = std::min(stored.peak_bytes, recomputed.peak_bytes);
  auto tight = grad::store_or_recompute(g, &model, caps, grad::keeping::cost, least, bounded);
  CHECK(bounded.peak_bytes <= least);
  same_values(g.program, tight.program);
  const std::string message = "MEMORY_BUDGET 1000 bytes";
  CHECK_THROWS_WITH_AS(grad::store_or_recompute(g, &model, caps, grad::keeping::cost, 1000, bounded),
                       doctest::Contains(message.c_str()), user_error);
}

}  // namespace store_or_recompute_test
