// Contraction batching (EinNet Figure 15, its BatchMatmul half): the rule over a generated family
// of pairs against the interpreter, and the program search on GCN's block from plain input.
#include "rediscover_support.hpp"

#include "ein/derive/all.hpp"
#include "ein/derive/batch_contractions.hpp"
#include "ein/ir/verify.hpp"
#include "ein/search/program/optimize_program.hpp"
#include "program_family.hpp"

namespace batch_contractions_test {

using namespace search_test;
// `ein` has these names too (the front end's input, weight and program), seen where another file of
// the unity batch includes the front end: these are the ones meant here
using search_test::input;
using search_test::weight;
using ein::ir::program;
using program_family::cuda_build;

namespace {

// Conv kh×kw of X [1, hw, hw, c] to f filters K [kh, kw, f, c], stride `stride`, padding kh/2 × kw/2
// when `pad`, else none.
scope_ptr batch_conv(const tensor& x, const tensor& k, std::int64_t stride, bool pad) {
  std::int64_t hw = x.shape[1], c = x.shape[3], kh = k.shape[0], kw = k.shape[1], f = k.shape[2];
  std::int64_t ph = pad ? kh / 2 : 0, pw = pad ? kw / 2 : 0;
  std::int64_t ho = (hw + 2 * ph - kh) / stride + 1, wo = (hw + 2 * pw - kw) / stride + 1;
  return make_scope({{"n", 0, 1}, {"h", 0, ho}, {"w", 0, wo}, {"f", 0, f}}, {{"r", 0, kh}, {"s", 0, kw}, {"c", 0, c}},
                    make_access(x, {idx("n"), idx("h") * stride + idx("r") - ph, idx("w") * stride + idx("s") - pw, idx("c")}) *
                        make_access(k, {idx("r"), idx("s"), idx("f"), idx("c")}));
}

tensor batch_ref(const std::string& name, const scope_ptr& s) { return {name, dtype::f32, s->shape(), tensor_role::definition}; }

// GCN's large-kernel block on X [1, hw, hw, c] to f classes, kernel k: a k×1 then 1×k branch and a
// 1×k then k×1 branch (the first convolutions at `stride`), added: `y`.
program gcn_block(std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t k, std::int64_t stride = 1) {
  auto x = input("X", {1, hw, hw, c});
  auto l1 = weight("l1", {k, 1, f, c}), r1 = weight("r1", {1, k, f, c});
  auto l2 = weight("l2", {1, k, f, f}), r2 = weight("r2", {k, 1, f, f});
  auto t1 = batch_conv(x, l1, stride, true), t2 = batch_conv(x, r1, stride, true);
  auto left = batch_conv(batch_ref("t1", t1), l2, 1, true), right = batch_conv(batch_ref("t2", t2), r2, 1, true);
  std::vector<affine> at{idx("n"), idx("h"), idx("w"), idx("f")};
  auto y = make_scope(left->traversal, {}, make_access(batch_ref("left", left), at) + make_access(batch_ref("right", right), at));
  return {"gcn_block",
          {x, l1, r1, l2, r2},
          {{"t1", t1, dtype::f32}, {"t2", t2, dtype::f32}, {"left", left, dtype::f32}, {"right", right, dtype::f32},
           {"y", y, dtype::f32}},
          {"y"}};
}

// Two kh×kw convolutions of one shape over different inputs X1, X2, both outputs.
program conv_pair(std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t kh, std::int64_t kw, std::int64_t stride,
                  bool pad) {
  auto x1 = input("X1", {1, hw, hw, c}), x2 = input("X2", {1, hw, hw, c});
  auto k1 = weight("K1", {kh, kw, f, c}), k2 = weight("K2", {kh, kw, f, c});
  return {"conv_pair",
          {x1, x2, k1, k2},
          {{"y1", batch_conv(x1, k1, stride, pad), dtype::f32}, {"y2", batch_conv(x2, k2, stride, pad), dtype::f32}},
          {"y1", "y2"}};
}

// Two products of one shape over different inputs with summations off 0 (X [m, k], W [k, n],
// read through k ∈ [1, k + 1)) and weights laid out apart, added when `added`.
program product_pair(std::int64_t m, std::int64_t k, std::int64_t n, bool added) {
  auto x1 = input("X1", {m, k}), x2 = input("X2", {m, k});
  auto w1 = weight("W1", {k, n}), w2 = weight("W2", {n, k});
  auto p1 = make_scope({{"i", 0, m}, {"j", 0, n}}, {{"q", 1, k + 1}},
                       make_access(x1, {idx("i"), idx("q") - 1}) * make_access(w1, {idx("q") - 1, idx("j")}));
  auto p2 = make_scope({{"a", 0, m}, {"b", 0, n}}, {{"p", 1, k + 1}},
                       make_access(w2, {idx("b"), idx("p") - 1}) * make_access(x2, {idx("a"), idx("p") - 1}));
  program p{"product_pair", {x1, x2, w1, w2}, {{"p1", p1, dtype::f32}, {"p2", p2, dtype::f32}}, {"p1", "p2"}};
  if (added) {
    std::vector<affine> at{idx("i"), idx("j")};
    p.definitions.push_back({"y",
                             make_scope({{"i", 0, m}, {"j", 0, n}}, {},
                                        make_access(batch_ref("p1", p1), at) + make_access(batch_ref("p2", p2), at)),
                             dtype::f32});
    p.outputs = {"y"};
  }
  return p;
}

std::string batch_form(const derive::step& s) {
  auto* form = s.get<std::string>("form");
  return form ? *form : std::string();
}

std::size_t batch_steps(const search::optimized_program& r, const std::string& form) {
  return static_cast<std::size_t>(std::count_if(r.post_steps.begin(), r.post_steps.end(), [&](const derive::step& s) {
    return s.rule == "batch_contractions" && batch_form(s) == form;
  }));
}

search::optimized_program batch_searched(const program& src, const cost::model& model = h100()) {
  search::options o;
  o.explore_depth = 1;
  o.program.batch_contractions = true;
  return search::optimize_program(src, derive::intra_rules(), model, o, {}, cuda_build());
}

}  // namespace

TEST_CASE("batch_contractions: every candidate over a family of pairs verifies and equals the interpreter") {
  std::vector<program> family;
  for (std::int64_t hw : {5, 6})
    for (std::int64_t k : {1, 3})
      for (std::int64_t stride : {1, 2}) family.push_back(gcn_block(hw, 2 + stride, 3, k, stride));
  for (std::int64_t stride : {1, 2})
    for (bool pad : {false, true})
      for (auto [kh, kw] : {std::pair{3, 1}, std::pair{1, 3}, std::pair{3, 3}}) family.push_back(conv_pair(6, 3, 2, kh, kw, stride, pad));
  for (bool added : {false, true}) family.push_back(product_pair(4, 3, 5, added));
  std::map<std::string, std::size_t> forms;
  for (auto& p : family) {
    INFO(to_string(p));
    verify(p);
    auto candidates = derive::batch_contractions(p);
    CHECK(!candidates.empty());
    for (auto& c : candidates) {
      INFO(derive::to_string(c.how) << "\n" << to_string(c.result));
      ++forms[batch_form(c.how)];
      CHECK_NOTHROW(verify(c.result));
      CHECK(c.result.outputs == p.outputs);
      CHECK(c.result.tensors == p.tensors);
      check_same_outputs(p, c.result, {3});
    }
  }
  CHECK(forms["batched"] > 0);
  CHECK(forms["folded"] > 0);
  CHECK(forms["folded_b_last"] == forms["folded"]);
}

TEST_CASE("batch_contractions: the forms of GCN's second convolutions") {
  auto p = gcn_block(5, 3, 2, 3);
  auto candidates = derive::batch_contractions(p);
  std::vector<derive::program_candidate> second;
  for (auto& c : candidates)
    if (*c.how.get<std::vector<std::string>>("definitions") == std::vector<std::string>{"left", "right"}) second.push_back(c);
  REQUIRE(second.size() == 3);
  auto text = [](const program& q, const std::string& name) { return to_string(*q.find_definition(name)->value); };
  // batched: one BatchMatmul over both branches' im2col'd inputs, read in place by the sum
  auto& batched = second[0].result;
  CHECK(batch_form(second[0].how) == "batched");
  CHECK(text(batched, "left_right_operands") ==
        "L_{b:[0,2), h:[0,5), w:[0,5), s:[0,3), c:[0,2)} t1[b, h, s + w - 1, c] + t2[b - 1, h + s - 1, w, c]");
  CHECK(text(batched, "left_right") ==
        "L_{b:[0,2), n:[0,1), h:[0,5), w:[0,5), f:[0,2)} Σ_{s:[0,3), c:[0,2)} left_right_operands[b, h, w, s, c] * "
        "left_right_weights[b, s, c, n, f]");
  CHECK(text(batched, "y") == "L_{n:[0,1), h:[0,5), w:[0,5), f:[0,2)} left_right[0, n, h, w, f] + left_right[1, n, h, w, f]");
  CHECK(!batched.find_definition("left"));
  CHECK(search::instantiate(batched.find_definition("left_right")->value, h100()).shape() == "batch_matmul");
  // folded: the sum over b joins the reduction, one contraction where the sum was
  auto& folded = second[1].result;
  CHECK(batch_form(second[1].how) == "folded");
  CHECK(text(folded, "y") ==
        "L_{n:[0,1), h:[0,5), w:[0,5), f:[0,2)} Σ_{s:[0,3), c:[0,2), b:[0,2)} left_right_operands[h, w, s, c, b] * "
        "left_right_weights[s, c, b, n, f]");
  CHECK(search::instantiate(folded.find_definition("y")->value, h100()).shape() == "matmul");
  CHECK(!folded.find_definition("left"));
  CHECK(!folded.find_definition("right"));
  // the same with b last in the weights, which the model prices as a convolution
  CHECK(batch_form(second[2].how) == "folded_b_last");
  CHECK(text(second[2].result, "y") ==
        "L_{n:[0,1), h:[0,5), w:[0,5), f:[0,2)} Σ_{s:[0,3), c:[0,2), b:[0,2)} left_right_operands[h, w, s, c, b] * "
        "left_right_weights[s, c, n, f, b]");
  CHECK(search::instantiate(second[2].result.find_definition("y")->value, h100()).shape() == "conv2d");
}

TEST_CASE("batch_contractions: preconditions") {
  SUBCASE("iteration shapes differ") {
    // 3×1 over X1 and 1×3 over X2 batch (GCN's case), unless X2's is unpadded: 6×4 outputs
    auto p = conv_pair(6, 3, 2, 3, 1, 1, true);
    p.tensors[3] = weight("K2", {1, 3, 2, 3});
    p.definitions[1].value = batch_conv(p.tensors[1], p.tensors[3], 1, true);
    CHECK(derive::batch_contractions(p).size() == 1);
    p.definitions[1].value = batch_conv(p.tensors[1], p.tensors[3], 1, false);
    CHECK(derive::batch_contractions(p).empty());
  }
  SUBCASE("one reads the other") {
    auto p = gcn_block(5, 2, 2, 3);
    p.definitions = {p.definitions[0], p.definitions[2]};  // t1 and left, which reads t1
    p.outputs = {"left"};
    CHECK(derive::batch_contractions(p).empty());
  }
  SUBCASE("a shared input: shared-operand merging's case") {
    // t1 and t2 read X; left and right batch (and with c = f, t1 with right, t2 with left)
    for (auto c : {2, 3}) {
      auto candidates = derive::batch_contractions(gcn_block(5, c, 2, 3));
      CHECK(candidates.size() == (c == 2 ? 5 : 3));
      for (auto& x : candidates) CHECK(*x.how.get<std::vector<std::string>>("definitions") != std::vector<std::string>{"t1", "t2"});
    }
  }
  SUBCASE("no fold where a part is also read elsewhere") {
    auto p = gcn_block(5, 2, 2, 3);
    p.outputs.push_back("left");
    auto candidates = derive::batch_contractions(p);
    CHECK(std::none_of(candidates.begin(), candidates.end(), [](auto& c) { return batch_form(c.how) != "batched"; }));
  }
}

TEST_CASE("Figure 15's second half from plain input: GCN's block at its stage-5 size folds the second convolutions") {
  // [1,7,7,2048], 21 classes, k = 11 (GCN's s5 block), cuda build under the H100 profile: the
  // two branches' second convolutions, only added, become one Matmul over both im2col'd inputs
  // (reduction 2·11·21) where the two convolutions and the sum were (decision 0020).
  auto src = gcn_block(7, 2048, 21, 11);
  auto r = batch_searched(src);
  double written = search::program_seconds(src, h100(), cuda_build());
  double t = search::program_seconds(r.program, h100(), cuda_build());
  MESSAGE("as written " << search::expression_plan::ms_text(written) << " ms, searched " << search::expression_plan::ms_text(t) << " ms\n"
                        << r.report());
  CHECK(batch_steps(r, "folded") + batch_steps(r, "folded_b_last") == 1);
  CHECK(batch_steps(r, "batched") == 0);
  CHECK(t < written * 0.9);
  check_same_outputs(src, r.program, {7});
}

TEST_CASE("Figure 15's second half: where batching does not pay, the search leaves the branches apart") {
  // [1,112,112,128], 21 classes, k = 11: the im2col'd inputs (2·11·21 a pixel) cost more to
  // write than the convolution and the sum they save — with generated loops at 30% of peak,
  // where this block's first convolutions stay cheap eOperators (decision 0020's sweep); at the
  // profile's 1.4% the folded form pays here too.
  auto src = gcn_block(112, 128, 21, 11);
  auto r = batch_searched(src, h100_loops_at_30());
  MESSAGE(r.report());
  CHECK(batch_steps(r, "folded") + batch_steps(r, "folded_b_last") + batch_steps(r, "batched") == 0);
  CHECK(search::program_seconds(r.program, h100_loops_at_30(), cuda_build()) <=
        search::program_seconds(src, h100_loops_at_30(), cuda_build()));
}

// Decision 0020's sweep: GCN's block as written (its four convolutions cuDNN calls, the sum an
// eOperator) against its second convolutions batched and folded, under the H100 profile for a
// cuda build (program_seconds). Prints the table; run with
// `test_search --no-skip --test-case='*sweep of GCN blocks*'`.
TEST_CASE("batch_contractions: sweep of GCN blocks, written against batched and folded" * doctest::skip()) {
  std::string table = "| hw | c | classes | k | as written | batched | folded, Matmul | folded, b last |\n"
                      "|---|---|---|---|---|---|---|---|\n";
  for (std::int64_t hw : {7, 14, 28, 56, 112})
    for (std::int64_t f : {21, 64, 256})
      for (std::int64_t k : {3, 11}) {
        std::int64_t c = std::max<std::int64_t>(64, 2048 * 7 / hw);
        auto p = gcn_block(hw, c, f, k);
        double written = search::program_seconds(p, h100(), cuda_build());
        std::map<std::string, double> by_form;
        for (auto& cand : derive::batch_contractions(p))
          if (*cand.how.get<std::vector<std::string>>("definitions") == std::vector<std::string>{"left", "right"})
            by_form[batch_form(cand.how)] = search::program_seconds(cand.result, h100(), cuda_build());
        REQUIRE(by_form.size() == 3);
        auto cell = [&](double s) {
          char pct[32];
          std::snprintf(pct, sizeof pct, " (%+.1f%%)", (s / written - 1) * 100);
          return search::expression_plan::ms_text(s) + pct;
        };
        table += "| " + std::to_string(hw) + " | " + std::to_string(c) + " | " + std::to_string(f) + " | " + std::to_string(k) +
                 " | " + search::expression_plan::ms_text(written) + " | " + cell(by_form["batched"]) + " | " + cell(by_form["folded"]) + " | " +
                 cell(by_form["folded_b_last"]) + " |\n";
      }
  MESSAGE(table);
}

}  // namespace batch_contractions_test
