// Plans EinNet does not report (docs/discoveries.md), found from the plain expressions under the
// H100 roofline model as the cuda backend runs them: each one chosen at the size of the model it
// comes from, priced below the expression as written and below the plan EinNet reports for it,
// and equal to the interpreter; one (the LoRA adapter) found across the definitions of a program.
#include "rediscover_support.hpp"

#include <algorithm>
#include <limits>

#include "ein/derive/all.hpp"
#include "ein/search/program/backend.hpp"
#include "ein/search/optimize.hpp"
#include "ein/search/program/optimize_program.hpp"

namespace discoveries_test {

using namespace search_test;

namespace {

double as_run(const search::expression_plan& p) { return search::seconds_as_run(p, h100(), cuda_with_cudnn()); }

// The search of `src`, its plan chosen as the cuda backend runs it (cuBLAS, cuDNN, eOperators).
search::optimized searched(const scope_ptr& src) {
  auto r = search::optimize(src, derive::intra_rules(), h100());
  search::choose_for_backend(r, h100(), cuda_with_cudnn(), ein::ir::dtype::f32);
  return r;
}

// The kernels that run (weight transforms left out).
std::vector<const search::priced_kernel*> run_time(const search::expression_plan& p) {
  std::vector<const search::priced_kernel*> out;
  for (auto& k : p.kernels)
    if (!k.weight_only) out.push_back(&k);
  return out;
}

// The cheapest candidate of `r` that satisfies `form`, or nullptr.
template <class Form>
const search::candidate_plan* cheapest(const search::optimized& r, Form form) {
  const search::candidate_plan* best = nullptr;
  double best_seconds = std::numeric_limits<double>::infinity();
  for (auto& c : r.candidates)
    if (form(c.p) && as_run(c.p) < best_seconds) best = &c, best_seconds = as_run(c.p);
  return best;
}

// Every candidate of `r` that satisfies `form` equals the source under the interpreter; there is
// one at least.
template <class Form>
void check_every(const search::optimized& r, const scope_ptr& src, Form form) {
  int found = 0;
  for (auto& c : r.candidates)
    if (form(c.p)) {
      ++found;
      INFO(c.p.str());
      CHECK(plan_equals_source(c.p, src));
    }
  CHECK(found > 0);
}

// The plan EinNet reports for a transposed convolution: one GEMM (or batched GEMM) whose output
// an eOperator sums into the image.
bool gemm_then_aggregate(const search::expression_plan& p) {
  return (has_shape(p, "matmul + eOperator") || has_shape(p, "batch_matmul + eOperator")) &&
         !p.kernels.back().flat->summation.empty();
}

void report(const char* name, const search::optimized& r, const search::candidate_plan* einnet) {
  std::string steps;
  for (auto& s : r.candidates[r.chosen].steps) steps += "\n  " + derive::to_string(s);
  MESSAGE(std::string(name) << ": as written " << search::expression_plan::ms_text(as_run(r.baseline)) << " ms, EinNet's plan "
               << (einnet ? search::expression_plan::ms_text(as_run(einnet->p)) : std::string("-")) << " ms, chosen "
               << search::expression_plan::ms_text(as_run(r.best)) << " ms\n"
               << r.best.str() << "derivation:" << steps);
}

// Conv 3×3 NHWC [n, hw, hw, c] → f, dilation d, padded so that the image keeps its size.
scope_ptr dilated_conv(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t d) {
  return conv_nhwc(n, hw, c, f, 3, 3, 1, d, d, d);
}

}  // namespace

// 1. A transposed convolution over a small image as one dense layer: the weights expanded once
// into the [in·in·c, out·out·f] matrix the convolution multiplies by, then one GEMM.
namespace {
bool dense_layer(const search::expression_plan& p, std::int64_t m, std::int64_t n, std::int64_t k) {
  auto run = run_time(p);
  if (run.size() != 1 || !run[0]->library() || run[0]->op->kind != match::op_kind::matmul) return false;
  auto& g = run[0]->op->gemm();
  return g.batch == 1 && ((g.m == m && g.n == n) || (g.m == n && g.n == m)) && g.k == k;
}
}  // namespace

TEST_CASE("discovery: InfoGAN's transposed convolution over a 2×2 image as a dense layer") {
  // the paper's ConvTranspose case, [16,2,2,448] → 256, 4×4, stride 2, padding 1
  auto src = conv_transpose(16, 2, 448, 256, 4, 2, 1);
  auto r = searched(src);
  auto* einnet = cheapest(r, gemm_then_aggregate);
  REQUIRE(einnet);
  report("InfoGAN layer 2", r, einnet);
  CHECK(dense_layer(r.best, 16, 4 * 4 * 256, 2 * 2 * 448));
  CHECK(as_run(r.best) < as_run(r.baseline));
  // also below the transposed convolution as a cuDNN call, as the model prices it (the cuda
  // build runs no channels-last transposed convolution on cuDNN: cudnn_accepts)
  CHECK(r.best.seconds < r.baseline.seconds);
  CHECK(as_run(r.best) < as_run(einnet->p));

  // values, at a size the interpreter checks quickly
  auto small = conv_transpose(2, 2, 16, 8, 4, 2, 1);
  check_every(searched(small), small, [](const search::expression_plan& p) { return dense_layer(p, 2, 4 * 4 * 8, 2 * 2 * 16); });
}

// 2. A dilated 3×3 convolution as a partial im2col: the input copied once per kernel row (3·c
// columns), one GEMM with k = 3·c whose output holds the three kernel columns' partial sums,
// and an eOperator adding them at their dilated offsets. Between Figure 3(b)'s Matmul +
// OffsetReduce (k = c, nine partial sums) and im2col (k = 9·c, a nine-fold copy).
namespace {
bool partial_im2col(const search::expression_plan& p, std::int64_t c) {
  auto run = run_time(p);
  if (run.size() != 3 || !run[1]->library() || run[1]->op->kind != match::op_kind::matmul) return false;
  bool copy = !run[0]->library() && run[0]->flat->summation.empty();
  auto& sum = run[2]->flat->summation;
  return copy && run[1]->op->gemm().k == 3 * c && !run[2]->library() && sum.size() == 1 && sum[0].extent() == 3;
}

// PET's plan for a dilated convolution, which EinNet rediscovers for CSRNet: the input's rows
// regrouped by parity so that a convolution with dilation 1 along them runs, and the output
// regrouped back.
bool undilated(const search::expression_plan& p) {
  auto run = run_time(p);
  if (!has_shape(p, "eOperator + conv2d + eOperator")) return false;
  auto& a = run[1]->op->conv();
  return a.dilation_h == 1 || a.dilation_w == 1;
}
}  // namespace

TEST_CASE("discovery: dilated 3×3 convolutions at batch 16 as a partial im2col + GEMM + OffsetReduce") {
  struct layer {
    std::int64_t hw, c, f, dilation;
  };
  // CSRNet's first and fourth back-end layers, and a DeepLab-like layer of dilation 4
  for (auto [hw, c, f, d] : {layer{14, 512, 512, 2}, layer{14, 512, 256, 2}, layer{28, 256, 256, 4}}) {
    CAPTURE(f);
    CAPTURE(d);
    auto src = dilated_conv(16, hw, c, f, d);
    auto r = searched(src);
    auto* pet = cheapest(r, undilated);
    REQUIRE(pet);
    report("dilated 3×3", r, pet);
    CHECK(partial_im2col(r.best, c));
    // the convolution as written runs as one cuDNN call once its filter is packed (KRSC): the
    // cheapest single conv2d among the candidates
    auto* packed = cheapest(r, [](const search::expression_plan& p) { return has_shape(p, "conv2d"); });
    REQUIRE(packed);
    MESSAGE("as written, its filter packed: " << search::expression_plan::ms_text(as_run(packed->p)) << " ms");
    CHECK(as_run(r.best) < as_run(packed->p));
    CHECK(r.best.seconds < r.baseline.seconds);
    CHECK(as_run(r.best) < as_run(pet->p));
  }
  // values, at a size the interpreter checks quickly (the plan is among the candidates there)
  auto small = dilated_conv(2, 7, 8, 4, 2);
  check_every(searched(small), small, [](const search::expression_plan& p) { return partial_im2col(p, 8); });
}

// 3. A LoRA adapter merged into its layer's weights: `x·Wᵀ + (x·Aᵀ)·Bᵀ` as one GEMM over
// `W + B·A`, a weight transform, found by joining the addition with its products
// (search::join_addition) and merging the two sums (derive::merge_summation).
namespace {
// A linear layer with a LoRA adapter of rank r as inference runs it unmerged: h = x·Aᵀ,
// low = h·Bᵀ, base = x·Wᵀ, y = base + low (low + base with `swapped`).
program lora(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t r, bool swapped = false) {
  auto x = input("x", {m, k});
  auto h = make_scope({{"m", 0, m}, {"r", 0, r}}, {{"i", 0, k}},
                      make_access(x, {idx("m"), idx("i")}) * make_access(weight("A", {r, k}), {idx("r"), idx("i")}));
  auto base = make_scope({{"m", 0, m}, {"o", 0, n}}, {{"i", 0, k}},
                         make_access(x, {idx("m"), idx("i")}) * make_access(weight("W", {n, k}), {idx("o"), idx("i")}));
  auto low = make_scope({{"m", 0, m}, {"o", 0, n}}, {{"q", 0, r}},
                        make_access(definition_tensor("h", {m, r}), {idx("m"), idx("q")}) *
                            make_access(weight("B", {n, r}), {idx("o"), idx("q")}));
  auto b = make_access(definition_tensor("base", {m, n}), {idx("m"), idx("o")});
  auto l = make_access(definition_tensor("low", {m, n}), {idx("m"), idx("o")});
  auto y = make_scope({{"m", 0, m}, {"o", 0, n}}, {}, swapped ? l + b : b + l);
  return {"lora",
          {x, weight("W", {n, k}), weight("A", {r, k}), weight("B", {n, r})},
          {{"h", h, dtype::f32}, {"base", base, dtype::f32}, {"low", low, dtype::f32}, {"y", y, dtype::f32}},
          {"y"}};
}

// The plan without summation merging (EinNet's rules and shared-operand merging): one GEMM of x
// over the concatenated [W; A], then the adapter's rank-r GEMM and the add.
program shared_input_merge(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t r) {
  auto wa = make_scope({{"i", 0, k}, {"j", 0, n + r}}, {},
                       make_access(weight("W", {n, k}), {idx("j"), idx("i")}) +
                           make_access(weight("A", {r, k}), {idx("j") - n, idx("i")}));
  auto xwa = make_scope({{"m", 0, m}, {"j", 0, n + r}}, {{"i", 0, k}},
                        make_access(input("x", {m, k}), {idx("m"), idx("i")}) *
                            make_access(definition_tensor("wa", {k, n + r}), {idx("i"), idx("j")}));
  auto low = make_scope({{"m", 0, m}, {"o", 0, n}}, {{"q", 0, r}},
                        make_access(definition_tensor("xwa", {m, n + r}), {idx("m"), idx("q") + n}) *
                            make_access(weight("B", {n, r}), {idx("o"), idx("q")}));
  auto y = make_scope({{"m", 0, m}, {"o", 0, n}}, {},
                      make_access(definition_tensor("xwa", {m, n + r}), {idx("m"), idx("o")}) +
                          make_access(definition_tensor("low", {m, n}), {idx("m"), idx("o")}));
  auto p = lora(m, k, n, r);
  p.definitions = {{"wa", wa, dtype::f32}, {"xwa", xwa, dtype::f32}, {"low", low, dtype::f32}, {"y", y, dtype::f32}};
  return p;
}

// The definitions of `r` that run (weight transforms left out): one GEMM of x over k, the
// merged weights a weight transform.
bool one_merged_gemm(const search::optimized_program& r, std::int64_t k) {
  std::vector<const definition*> run;
  for (auto& d : r.program.definitions)
    if (std::find(r.weight_transforms.begin(), r.weight_transforms.end(), d.name) == r.weight_transforms.end())
      run.push_back(&d);
  if (run.size() != 1) return false;
  auto& s = *run[0]->value;
  bool reads_x = false;
  for (auto& t : tensors_read(s.body, depth::top_level)) reads_x = reads_x || t.name == "x";
  return s.summation.size() == 1 && s.summation[0].extent() == k && reads_x;
}

// The line of a program search's report that counts its states and time.
std::string searched_line(const std::string& report) {
  auto at = report.find("subprograms searched");
  if (at == std::string::npos) return "";
  auto from = report.rfind('\n', at);
  return report.substr(from == std::string::npos ? 0 : from + 1, report.find('\n', at) - (from + 1));
}

search::optimized_program searched_program(const program& p) {
  return search::optimize_program(p, derive::intra_rules(), h100(), {}, {}, cuda_with_cudnn());
}
}  // namespace

TEST_CASE("discovery: a LoRA adapter merged into its layer's weights, one GEMM over W + B·A") {
  auto seconds = [](const program& p) { return search::program_seconds(p, h100(), cuda_with_cudnn()); };
  // decode, a batch of 128 tokens and prefill; a 4096-wide layer, ranks 16 and 64
  for (std::int64_t m : {1, 128, 2048})
    for (std::int64_t r : {16, 64}) {
      CAPTURE(m);
      CAPTURE(r);
      auto src = lora(m, 4096, 4096, r);
      auto found = searched_program(src);
      double written = seconds(src), merged_input = seconds(shared_input_merge(m, 4096, 4096, r)),
             chosen = seconds(found.program);
      MESSAGE("LoRA m " << m << ", r " << r << ": as written " << search::expression_plan::ms_text(written)
                        << " ms, shared-input merge " << search::expression_plan::ms_text(merged_input) << " ms, chosen "
                        << search::expression_plan::ms_text(chosen) << " ms; search: "
                        << searched_line(found.report()));
      CHECK(one_merged_gemm(found, 4096));
      CHECK(chosen < merged_input);
      CHECK(merged_input < written);
    }
  // values, over a family of small layers, either term first
  for (std::int64_t m : {1, 16})
    for (std::int64_t k : {64, 96})
      for (std::int64_t n : {32, 48})
        for (std::int64_t r : {2, 4})
          for (bool swapped : {false, true}) {
            CAPTURE(m);
            CAPTURE(k);
            CAPTURE(n);
            CAPTURE(r);
            CAPTURE(swapped);
            auto src = lora(m, k, n, r, swapped);
            auto found = searched_program(src);
            CHECK(one_merged_gemm(found, k));
            check_same_outputs(src, found.program, {1});
            check_same_outputs(src, shared_input_merge(m, k, n, r), {1});
          }
}

}  // namespace discoveries_test
