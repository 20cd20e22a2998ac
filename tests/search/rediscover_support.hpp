// Shared pieces of the search tests: the H100 roofline model, the paper's expressions at any
// size, and checking a plan against the interpreter on random inputs.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "ein/codegen/backend.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/derive/positions.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/search/instantiate.hpp"

namespace search_test {

using namespace ein;
using namespace ein::ir;

inline const cost::roofline& h100() {
  static const cost::roofline m(cost::load_profile(std::string(EIN_PROFILE_DIR) + "/h100_sxm5.json"));
  return m;
}

/// The H100 profile with generated loops at 30% of FP32 peak, the assumption it held before a GPU
/// measured ein's compute-bound eOperators at a median of 1.4% (docs/decisions/0031): a search
/// decision made at a crossover under that model is tested under it.
inline const cost::roofline& h100_loops_at_30() {
  static const cost::roofline m([] {
    auto p = cost::load_profile(std::string(EIN_PROFILE_DIR) + "/h100_sxm5.json");
    p.eoperator_compute = 0.3;
    return p;
  }());
  return m;
}

/// Every output of program `optimized` equals that of `source` (same box, same values to 1e-9)
/// on random non-zero inputs, one draw per seed.
inline void check_same_outputs(const ir::program& source, const ir::program& optimized,
                               std::initializer_list<std::uint64_t> seeds = {5, 6}) {
  for (std::uint64_t seed : seeds) {
    auto env = eval::random_inputs(source, seed);
    auto ref = eval::evaluate(source, env);
    auto got = eval::evaluate(optimized, env);
    for (auto& o : source.outputs) {
      CAPTURE(o);
      REQUIRE(got.count(o));
      CHECK(got.at(o).lower == ref.at(o).lower);
      CHECK(got.at(o).shape == ref.at(o).shape);
      CHECK(eval::max_rel_error(got.at(o), ref.at(o)) < 1e-9);
    }
  }
}

/// The host profile (profiles/host_assumed.json: no launch cost, BLAS at half of peak at
/// every size, generated loops at 5%): there a derived plan's library call is cheaper than a
/// compute-bound expression as written run as one eOperator, at sizes the interpreter checks
/// quickly. (The H100 profile prices small kernels by their launch and its loops at 30% of peak:
/// a small convolution or product as written is cheaper there, and the search keeps it, never
/// worse than the program as written.)
inline const cost::roofline& slow_loops() {
  static const cost::roofline m(cost::load_profile(std::string(EIN_PROFILE_DIR) + "/host_assumed.json"));
  return m;
}

/// What a cuda build calls: cuBLAS GEMMs and cuDNN convolutions (codegen::capabilities_of).
inline const ein::plan::capabilities& cuda_with_cudnn() {
  static const auto caps = ein::codegen::capabilities_of(ein::codegen::backend::cuda, false, true);
  return caps;
}

inline tensor input(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::input};
}
inline tensor weight(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::weight};
}
/// The tensor a definition of a program computes, read by the definitions after it.
inline tensor definition_tensor(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::definition};
}

/// Conv k×k, NHWC input [1, hw, hw, c], f filters K[r, s, f, c] (the weight named `filter`),
/// `pad` zeros each side: L_{n,h,w,f} Σ_{r,s,c} A[n, h + r - pad, w + s - pad, c] * K[r, s, f, c]
inline scope_ptr conv(std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t k, std::int64_t pad,
                      const std::string& filter = "K") {
  std::int64_t out = hw + 2 * pad - k + 1;
  return make_scope({{"n", 0, 1}, {"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                    {{"r", 0, k}, {"s", 0, k}, {"c", 0, c}},
                    make_access(input("A", {1, hw, hw, c}),
                                {idx("n"), idx("h") + idx("r") - pad, idx("w") + idx("s") - pad, idx("c")}) *
                        make_access(weight(filter, {k, k, f, c}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

/// Conv kh×kw NHWC [n, hw, hw, c] → f filters K[r, s, f, c], stride st, padding ph × pw, dilation d:
/// L_{n,h,w,f} Σ_{r,s,c} A[n, st·h + d·r − ph, st·w + d·s − pw, c] * K[r, s, f, c]
inline scope_ptr conv_nhwc(std::int64_t n, std::int64_t hw, std::int64_t c, std::int64_t f, std::int64_t kh,
                           std::int64_t kw, std::int64_t st, std::int64_t ph, std::int64_t pw, std::int64_t d) {
  std::int64_t oh = (hw + 2 * ph - d * (kh - 1) - 1) / st + 1, ow = (hw + 2 * pw - d * (kw - 1) - 1) / st + 1;
  return make_scope({{"n", 0, n}, {"h", 0, oh}, {"w", 0, ow}, {"f", 0, f}}, {{"r", 0, kh}, {"s", 0, kw}, {"c", 0, c}},
                    make_access(input("A", {n, hw, hw, c}),
                                {idx("n"), idx("h") * st + idx("r") * d - ph, idx("w") * st + idx("s") * d - pw, idx("c")}) *
                        make_access(weight("K", {kh, kw, f, c}), {idx("r"), idx("s"), idx("f"), idx("c")}));
}

/// Dilated G2BMM: L_{b,i,w} Σ_k A[b,i,k] * B[b, i + d*(w - W), k], w in [0, 2W + 1)
inline scope_ptr g2bmm(std::int64_t b, std::int64_t m, std::int64_t k, std::int64_t W, std::int64_t d) {
  return make_scope({{"b", 0, b}, {"i", 0, m}, {"w", 0, 2 * W + 1}}, {{"k", 0, k}},
                    make_access(input("A", {b, m, k}), {idx("b"), idx("i"), idx("k")}) *
                        make_access(input("B", {b, m, k}), {idx("b"), idx("i") + (idx("w") - W) * d, idx("k")}));
}

/// ConvTranspose in gather form (NHWC, stride st, padding pad, kernel k, the output `extra` rows
/// and columns larger, as PyTorch's output_padding):
/// L_{n,h,w,f} Σ_{i,j,c} A[n, i, j, c] * K[h - st*i + pad, w - st*j + pad, f, c]
inline scope_ptr conv_transpose(std::int64_t n, std::int64_t in, std::int64_t c, std::int64_t f,
                                std::int64_t k, std::int64_t st, std::int64_t pad, std::int64_t extra = 0) {
  std::int64_t out = (in - 1) * st - 2 * pad + k + extra;
  return make_scope({{"n", 0, n}, {"h", 0, out}, {"w", 0, out}, {"f", 0, f}},
                    {{"i", 0, in}, {"j", 0, in}, {"c", 0, c}},
                    make_access(input("A", {n, in, in, c}), {idx("n"), idx("i"), idx("j"), idx("c")}) *
                        make_access(weight("K", {k, k, f, c}),
                                    {idx("h") - idx("i") * st + pad, idx("w") - idx("j") * st + pad,
                                     idx("f"), idx("c")}));
}

inline void collect_tensors(const scope& s, std::map<std::string, tensor>& out) {
  derive::for_each_access(s.body, [&](const ir::access& a) {
    if (auto* t = std::get_if<ir::tensor>(&a.source))
      out.emplace(t->name, *t);
    else
      collect_tensors(*std::get<ir::scope_ptr>(a.source), out);
  });
}

/// Random values in [-1, 1), never 0, for every tensor `s` reads.
inline eval::bindings random_bindings(const scope& s, std::uint64_t seed) {
  std::map<std::string, tensor> ts;
  collect_tensors(s, ts);
  eval::random_stream rng(seed);
  eval::bindings b;
  for (auto& [n, t] : ts) b[n] = eval::random_dense(t.shape, rng);
  return b;
}

/// The plan run kernel by kernel equals the source under the interpreter on two random inputs.
inline bool plan_equals_source(const search::expression_plan& p, const scope_ptr& source) {
  for (std::uint64_t seed : {21u, 22u}) {
    auto env = random_bindings(*source, seed);
    auto ref = eval::evaluate(*source, env);
    auto got = search::evaluate(p, env);
    if (got.shape != ref.shape || got.lower != ref.lower) return false;
    if (eval::max_rel_error(got, ref) > 1e-9) return false;
  }
  return true;
}

/// True when the plan's run-time kernels are exactly `kinds` ("eOperator" for an eOperator).
inline bool has_shape(const search::expression_plan& p, const std::string& kinds) { return p.shape() == kinds; }

}  // namespace search_test
