// Instantiation, expression distance over trees, converging derivation and the choice of a plan.
#include "rediscover_support.hpp"

#include "ein/derive/all.hpp"
#include "ein/search/converge.hpp"
#include "ein/search/optimize.hpp"

namespace converge_test {

using namespace search_test;

namespace {

std::vector<derive::candidate> run_rule(const char* rule, const scope_ptr& s) {
  for (auto& r : derive::intra_rules())
    if (std::string(r.name) == rule) return r.apply(s);
  FAIL("no rule " << rule);
  return {};
}

scope_ptr pick(const std::vector<derive::candidate>& cs, const std::string& how) {
  for (auto& c : cs)
    if (derive::to_string(c.how) == how) return c.result;
  std::string all;
  for (auto& c : cs) all += "\n  " + derive::to_string(c.how);
  FAIL("no candidate `" << how << "` among:" << all);
  return nullptr;
}

const match::operator_def& op_of(match::op_kind k) {
  for (auto& op : match::operator_table())
    if (op.kind == k) return op;
  throw internal_error("no operator");
}

// EinNet Figure 5 on conv(5, 4, 4, 3, 1): E2 (split), E4 (substituted), E6 (merged, tightened).
struct figure5 {
  scope_ptr e1 = conv(5, 4, 4, 3, 1), e2, e4, e6;
  figure5() {
    e2 = pick(run_rule("split_summation", e1), "split_summation(at /: inner Σ {c}, outer Σ {r,s})");
    e4 = pick(run_rule("substitute_variable", e2), "substitute_variable(at /0: t1 = h + r - 1, t2 = s + w - 1, for {h,w})");
    auto e5 = pick(run_rule("merge_traversal", e4), "merge_traversal(at /: inline /0, read at [r, s, n, h, w, f])");
    e6 = pick(run_rule("tighten_boundary", e5), "tighten_boundary(at /0: t1 [-1,6) → [0,5), t2 [-1,6) → [0,5))");
  }
};

}  // namespace

TEST_CASE("instantiate: Figure 5's E6 is a Matmul then an OffsetReduce eOperator") {
  figure5 f;
  auto p = search::instantiate(f.e6, h100());
  MESSAGE(p.str());
  REQUIRE(p.kernels.size() == 2);
  CHECK(p.shape() == "matmul + eOperator");
  CHECK(p.kernels[0].op->kind == match::op_kind::matmul);
  CHECK(p.kernels[1].memory_bound());
  CHECK(p.kernels[1].reads == std::vector<std::size_t>{0});
  CHECK(p.matched_or_memory_bound());
  CHECK(p.seconds == doctest::Approx(p.kernels[0].seconds + p.kernels[1].seconds).scale(0));
  CHECK(to_string(*p.kernels[1].flat) ==
        "L_{n:[0,1), h:[0,5), w:[0,5), f:[0,4)} Σ_{r:[0,3), s:[0,3)} k1[r, s, n, f, h + r - 1, s + w - 1]");
  CHECK(p.str().find("kernel 1 (k1): matmul(") == 0);
  CHECK(plan_equals_source(p, f.e1));
  // the source matches conv2d directly: its plan is that one operator
  auto base = search::instantiate(f.e1, h100());
  CHECK(base.shape() == "conv2d");
  CHECK(plan_equals_source(base, f.e1));
}

TEST_CASE("instantiate: weight-only kernels, transitively, cost nothing; shared scopes run once") {
  tensor K = weight("K", {4, 3}), A = input("A", {3, 5});
  // k1 = relu(K) (weights), k2 = 2·k1ᵀ (reads only k1), then a matmul of k2 by A
  auto k1 = make_scope({{"a", 0, 4}, {"b", 0, 3}}, {}, make_unary(unary_fn::relu, make_access(K, {idx("a"), idx("b")})));
  auto k2 = make_scope({{"b", 0, 3}, {"a", 0, 4}}, {}, make_constant(2) * make_access(k1, {idx("a"), idx("b")}));
  auto top = make_scope({{"i", 0, 4}, {"j", 0, 5}}, {{"k", 0, 3}},
                        make_access(k2, {idx("k"), idx("i")}) * make_access(A, {idx("k"), idx("j")}) +
                            make_access(k2, {idx("k"), idx("i")}) * make_constant(0));
  auto p = search::instantiate(top, h100());
  MESSAGE(p.str());
  REQUIRE(p.kernels.size() == 3);  // k2 is read twice, computed once
  CHECK(p.kernels[0].weight_only);
  CHECK(p.kernels[1].weight_only);
  CHECK(!p.kernels[2].weight_only);
  CHECK(p.kernels[0].seconds == 0);
  CHECK(p.kernels[1].seconds == 0);
  CHECK(p.seconds == p.kernels[2].seconds);
  CHECK(p.run_time_kernels() == 1);
  CHECK(plan_equals_source(p, top));
  // the same with A as a weight: everything is weight-only
  auto all_weights = make_scope({{"i", 0, 4}, {"j", 0, 5}}, {{"k", 0, 3}},
                                make_access(k2, {idx("k"), idx("i")}) * make_access(weight("B", {3, 5}), {idx("k"), idx("j")}));
  auto q = search::instantiate(all_weights, h100());
  CHECK(q.seconds == 0);
  CHECK(q.run_time_kernels() == 0);
}

TEST_CASE("instantiate: nested scopes with negative lower bounds evaluate kernel by kernel") {
  auto padded = make_scope({{"t", -1, 7}}, {}, make_unary(unary_fn::relu, make_access(input("A", {6}), {idx("t")})));
  auto top = make_scope({{"i", 0, 6}}, {{"r", 0, 3}},
                        make_access(padded, {idx("i") + idx("r") - 1}) * make_access(weight("W", {3}), {idx("r")}));
  auto p = search::instantiate(top, h100());
  REQUIRE(p.kernels.size() == 2);
  CHECK(to_string(*p.kernels[0].flat) == "L_{t:[0,8)} relu(A[t - 1])");
  CHECK(to_string(*p.kernels[1].flat) == "L_{i:[0,6)} Σ_{r:[0,3)} k1[i + r] * W[r]");
  CHECK(plan_equals_source(p, top));
}

TEST_CASE("tree distance to Matmul along Figure 5: classifying, not classifying, matched") {
  figure5 f;
  auto& mm = op_of(match::op_kind::matmul);
  CHECK(search::tree_distance(f.e1, mm) == 0);  // through a bridge: im2col, then a Matmul
  CHECK(!search::tree_distance(f.e2, mm));      // r is in A, K and the output: no column
  CHECK(search::tree_distance(f.e6, mm) == 0);
  auto& g2 = op_of(match::op_kind::g2bmm);
  CHECK(!search::tree_distance(f.e2, g2));
  auto& conv = op_of(match::op_kind::conv2d);
  CHECK(search::tree_distance(f.e1, conv) == 0);
}

TEST_CASE("converging derivation from E2 reaches a Matmul in at most two steps") {
  figure5 f;
  std::unordered_set<std::string> visited;
  search::converge_statistics st;
  search::converger c(op_of(match::op_kind::matmul), derive::intra_rules(), 2,
                      std::chrono::steady_clock::now() + std::chrono::seconds(60), visited, st);
  auto found = c.run(f.e2);
  REQUIRE(!found.empty());
  CHECK(st.found == found.size());
  CHECK(st.rejected > 0);  // most candidates do not get closer
  bool direct = false;
  for (auto& x : found) {
    CHECK(x.steps.size() <= 2);
    INFO(to_string(*x.form.expr));
    auto env = random_bindings(*f.e1, 5);
    CHECK(eval::max_rel_error(eval::evaluate(*x.form.expr, env), eval::evaluate(*f.e1, env)) < 1e-12);
    auto p = search::post_optimize(search::instantiate(x.form.expr, h100()), h100(), 8);
    direct = direct || p.shape() == "matmul + eOperator";
  }
  // E4 is at distance 0 through a bridge (its Matmul reads padding); post-optimization tightens
  // it into the Matmul of Figure 5's E6 and merges the relayout into the OffsetReduce
  CHECK(direct);
  // converging again from the same start finds nothing new: it was derived toward Matmul
  CHECK(c.run(f.e2).empty());
}

TEST_CASE("optimize: baseline first, deterministic, within budget") {
  auto src = conv(4, 4, 4, 3, 1);
  search::options o;
  auto a = search::optimize(src, derive::intra_rules(), h100(), o);
  auto b = search::optimize(src, derive::intra_rules(), h100(), o);
  REQUIRE(!a.candidates.empty());
  CHECK(a.candidates[0].target == "as written");
  // at this size every plan is launch-bound: the one cuDNN call as written beats every plan of
  // more kernels, and the choice keeps it
  CHECK(a.best.str() == a.baseline.str());
  REQUIRE(a.candidates.size() == b.candidates.size());
  for (std::size_t i = 0; i < a.candidates.size(); ++i) {
    CHECK(a.candidates[i].p.str() == b.candidates[i].p.str());
    CHECK(a.candidates[i].steps == b.candidates[i].steps);
  }
  CHECK(a.chosen == b.chosen);
  for (auto& c : a.candidates) {
    if (c.target != "as written") {
      CHECK(c.p.matched_or_memory_bound());
      CHECK(!c.p.library_kinds().empty());
    }
    CHECK(plan_equals_source(c.p, src));
  }
  // no time at all: the baseline still comes back, with the reason
  o.limits.time = std::chrono::milliseconds(0);
  auto none = search::optimize(src, derive::intra_rules(), h100(), o);
  CHECK(none.stats.reason == search::stop_reason::time);
  CHECK(none.candidates.size() == 1);
  CHECK(none.best.str() == none.baseline.str());
  // a state budget stops converging derivation too
  o = {};
  o.limits.max_states = 40;
  auto few = search::optimize(src, derive::intra_rules(), h100(), o);
  CHECK(few.stats.reason == search::stop_reason::states);
  CHECK(few.candidates.size() < a.candidates.size());
  // without converging derivation only explored states are instantiated
  o = {};
  o.converge = false;
  auto plain = search::optimize(src, derive::intra_rules(), h100(), o);
  CHECK(plain.stats.converge.states == 0);
  for (auto& c : plain.candidates) CHECK((c.target == "explored" || c.target == "as written"));
  // a state budget cuts exploration; the states it kept are still instantiated
  o.limits.max_states = 30;
  auto cut = search::optimize(src, derive::intra_rules(), h100(), o);
  CHECK(cut.stats.reason == search::stop_reason::states);
  CHECK(cut.stats.instantiated > 0);
  CHECK(cut.stats.instantiated <= cut.stats.explore.states);
  // and the clock bounds instantiation
  o.limits = {};
  o.limits.time = std::chrono::milliseconds(0);
  auto late = search::optimize(src, derive::intra_rules(), h100(), o);
  CHECK(late.stats.reason == search::stop_reason::time);
  CHECK(late.stats.instantiated == 0);
  CHECK(late.candidates.size() == 1);
}

TEST_CASE("optimize: limits.max_depth bounds the rule steps of every candidate, over both stages") {
  auto src = conv(4, 4, 4, 3, 1);
  // rule steps from the source: those before how the operator matched
  auto depth = [](const search::candidate_plan& c) {
    std::size_t d = 0;
    while (d < c.steps.size() && c.steps[d].rule != "match" && c.steps[d].rule != "bridge" &&
           c.steps[d].rule != "bridgeable")
      ++d;
    return d;
  };
  search::options o;
  auto full = search::optimize(src, derive::intra_rules(), h100(), o);
  std::size_t deepest = 0;
  for (auto& c : full.candidates) deepest = std::max(deepest, depth(c));
  REQUIRE(deepest > 2);  // explorative and converging steps beyond the bound below
  o.limits.max_depth = 2;
  auto bounded = search::optimize(src, derive::intra_rules(), h100(), o);
  for (auto& c : bounded.candidates) CHECK(depth(c) <= 2);
  CHECK(bounded.stats.converge.states < full.stats.converge.states);
  CHECK(bounded.stats.explore.depth == 2);
  // below the explorative depth, exploration stops there too
  o.limits.max_depth = 1;
  auto shallow = search::optimize(src, derive::intra_rules(), h100(), o);
  CHECK(shallow.stats.explore.depth == 1);
  for (auto& c : shallow.candidates) CHECK(depth(c) <= 1);
}

TEST_CASE("optimize: a plain Matmul stays one Matmul") {
  auto src = make_scope({{"i", 0, 64}, {"j", 0, 64}}, {{"k", 0, 64}},
                        make_access(input("A", {64, 64}), {idx("i"), idx("k")}) *
                            make_access(weight("B", {64, 64}), {idx("k"), idx("j")}));
  auto r = search::optimize(src, derive::intra_rules(), h100());
  CHECK(r.best.shape() == "matmul");
  CHECK(r.chosen == 0);
}

}  // namespace converge_test
