// The program-level merging pass on EinNet's Figure 3(a): Conv3x3 (searched into Matmul +
// OffsetReduce) and Conv1x1 (a Matmul) over one input become one Matmul; values against the
// interpreter at reduced size, structure at ResNet-18's size.
#include "rediscover_support.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ein/derive/all.hpp"
#include "ein/derive/program_edit.hpp"
#include "ein/ir/verify.hpp"
#include "ein/search/program/merge_program.hpp"
#include "ein/search/optimize.hpp"

namespace merge_program_test {

using namespace search_test;

namespace {

// The kernels of a plan as program definitions: each kernel's flat scope, reading earlier kernels
// as `<prefix>_k<i>`; the last kernel is named `result`.
std::vector<definition> definitions_of(const search::expression_plan& p, const std::string& prefix, const std::string& result) {
  std::map<std::string, tensor> renamed;
  std::vector<definition> out;
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    auto& k = p.kernels[i];
    auto body = derive::detail::rewrite_accesses(
        k.flat->body, [&](const ir::access& a, const tensor& t) -> std::optional<expr> {
          auto it = renamed.find(t.name);
          if (it == renamed.end()) return std::nullopt;
          return make_access(it->second, a.index);
        });
    definition d{i + 1 == p.kernels.size() ? result : prefix + "_" + k.name,
                 make_scope(k.flat->traversal, k.flat->summation, body), dtype::f32};
    renamed[k.name] = derive::detail::as_tensor(d);
    out.push_back(std::move(d));
  }
  return out;
}

// The first candidate of a search with the given run-time kernel kinds.
const search::expression_plan& with_shape(const search::optimized& r, const std::string& kinds) {
  for (auto& c : r.candidates)
    if (c.p.shape() == kinds) return c.p;
  FAIL("no candidate " << kinds);
  return r.best;
}

// Conv3x3 (pad 1) as Matmul + OffsetReduce → y3 and Conv1x1 as Matmul → y1, both over A, from
// the search's candidates; `residual` adds out = y3 + y1 as the one output.
program figure_3a(std::int64_t hw, std::int64_t c, std::int64_t f, bool residual) {
  auto s3 = conv(hw, c, f, 3, 1, "K3"), s1 = conv(hw, c, f, 1, 0, "K1");
  auto r3 = search::optimize(s3, derive::intra_rules(), h100());
  auto r1 = search::optimize(s1, derive::intra_rules(), h100());
  program p{"figure_3a", {input("A", {1, hw, hw, c}), weight("K3", {3, 3, f, c}), weight("K1", {1, 1, f, c})}, {}, {}};
  for (auto& d : definitions_of(with_shape(r3, "matmul + eOperator"), "c3", "y3")) p.definitions.push_back(d);
  for (auto& d : definitions_of(with_shape(r1, "matmul"), "c1", "y1")) p.definitions.push_back(d);
  if (residual) {
    auto y3 = derive::detail::as_tensor(*p.find_definition("y3")), y1 = derive::detail::as_tensor(*p.find_definition("y1"));
    auto at = std::vector<affine>{idx("n"), idx("h"), idx("w"), idx("f")};
    p.definitions.push_back({"out", make_scope({{"n", 0, 1}, {"h", 0, hw}, {"w", 0, hw}, {"f", 0, f}}, {},
                                               make_access(y3, at) + make_access(y1, at)),
                             dtype::f32});
    p.outputs = {"out"};
  } else {
    p.outputs = {"y3", "y1"};
  }
  verify(p);
  return p;
}

// The library operators that run (definitions that read only weights are folded beforehand).
std::vector<match::instance> run_time_library(const program& p) {
  auto weight_only = ir::weight_only_definitions(p);
  std::vector<match::instance> r;
  for (auto& d : p.definitions) {
    if (weight_only.count(d.name)) continue;
    for (auto& k : search::instantiate(d.value, h100()).kernels)
      if (k.library() && !k.weight_only) r.push_back(*k.op);
  }
  return r;
}

std::size_t matmuls(const program& p) {
  std::size_t n = 0;
  for (auto& op : run_time_library(p)) n += op.kind == match::op_kind::matmul || op.kind == match::op_kind::batch_matmul;
  return n;
}

// Every output of `after` equals that of `before` on two random inputs.
void check_equal(const program& before, const program& after) {
  INFO("before:\n" << to_string(before) << "after:\n" << to_string(after));
  verify(after);
  REQUIRE(after.outputs == before.outputs);
  for (std::uint64_t seed : {31u, 32u}) {
    auto inputs = eval::random_inputs(before, seed);
    auto want = eval::evaluate(before, inputs);
    auto got = eval::evaluate(after, inputs);
    for (auto& o : before.outputs) {
      REQUIRE(got.at(o).shape == want.at(o).shape);
      CHECK(eval::max_rel_error(got.at(o), want.at(o)) <= 1e-9);
    }
  }
}

}  // namespace

TEST_CASE("Figure 3(a) at reduced size ([1,5,5,8], 8 filters): one Matmul over the concatenated filters") {
  auto p = figure_3a(5, 8, 8, true);
  REQUIRE(matmuls(p) == 2);
  std::vector<derive::step> steps;
  auto merged = search::merge_contractions(p, h100(), &steps);
  MESSAGE("before:\n" << to_string(p) << "after:\n" << to_string(merged));
  REQUIRE(steps.size() == 1);
  CHECK(matmuls(merged) == 1);
  CHECK(search::program_seconds(merged, h100()) < search::program_seconds(p, h100()));
  check_equal(p, merged);
  // the two slices are read in place: the OffsetReduce and the sum read the merged Matmul
  CHECK(!merged.find_definition("c3_k1"));
  CHECK(!merged.find_definition("y1"));
  auto gemm = run_time_library(merged);
  REQUIRE(gemm.size() == 1);
  CHECK(gemm.front().gemm().n * gemm.front().gemm().m == 25 * (9 * 8 + 8));
}

TEST_CASE("Figure 3(a) at reduced size with both convolutions as outputs: the merge is exact") {
  auto p = figure_3a(5, 8, 8, false);
  auto candidates = derive::merge_shared_operand(p);
  REQUIRE(candidates.size() == 1);
  check_equal(p, candidates.front().result);
  CHECK(matmuls(candidates.front().result) == 1);
  // the pass takes it only where the model predicts a gain: never slower, always exact
  auto merged = search::merge_contractions(p, h100());
  CHECK(search::program_seconds(merged, h100()) <= search::program_seconds(p, h100()));
  check_equal(p, merged);
}

TEST_CASE("Figure 3(a) at ResNet-18's size ([1,7,7,512], 512 filters): one Matmul with N = 10·512") {
  auto p = figure_3a(7, 512, 512, false);
  REQUIRE(matmuls(p) == 2);
  std::vector<derive::step> steps;
  auto merged = search::merge_contractions(p, h100(), &steps);
  for (auto& s : steps) MESSAGE(derive::to_string(s));
  MESSAGE("predicted " << search::expression_plan::ms_text(search::program_seconds(p, h100())) << " ms → "
                       << search::expression_plan::ms_text(search::program_seconds(merged, h100())) << " ms");
  REQUIRE(steps.size() == 1);
  verify(merged);
  auto gemm = run_time_library(merged);
  REQUIRE(gemm.size() == 1);
  CHECK(gemm.front().kind == match::op_kind::matmul);
  auto& g = gemm.front().gemm();
  CHECK(std::set<std::int64_t>{g.m, g.n} == std::set<std::int64_t>{49, 10 * 512});
  CHECK(g.k == 512);
  // the concatenated, flattened filters are computed before run time
  auto weight_only = ir::weight_only_definitions(merged);
  CHECK(weight_only.size() == 3);
  // y1 is an output: it stays, as the slice of the merged Matmul past the 3×3 filters
  REQUIRE(merged.find_definition("y1"));
  CHECK(to_string(*merged.find_definition("y1")->value).find("+ 4608]") != std::string::npos);
}

TEST_CASE("three matmuls of one input, each read by its own reader, merge into one in two steps") {
  auto Xt = input("X", {6, 4});
  program p{"three", {Xt}, {}, {}};
  std::int64_t widths[] = {3, 5, 2};
  for (int k = 0; k < 3; ++k) {
    auto n = std::to_string(k + 1);
    auto W = weight("W" + n, {widths[k], 4});
    p.tensors.push_back(W);
    definition y{"y" + n, make_scope({{"i", 0, 6}, {"j", 0, widths[k]}}, {{"q", 0, 4}},
                                     make_access(Xt, {idx("i"), idx("q")}) * make_access(W, {idx("j"), idx("q")})),
                 dtype::f32};
    p.definitions.push_back(y);
    p.definitions.push_back({"z" + n, make_scope({{"i", 0, 6}, {"j", 0, widths[k]}}, {},
                                                 make_unary(unary_fn::tanh, make_access(derive::detail::as_tensor(y),
                                                                                        {idx("i"), idx("j")}))),
                             dtype::f32});
    p.outputs.push_back("z" + n);
  }
  REQUIRE(matmuls(p) == 3);
  std::vector<derive::step> steps;
  auto merged = search::merge_contractions(p, h100(), &steps);
  for (auto& s : steps) MESSAGE(derive::to_string(s));
  CHECK(steps.size() == 2);
  CHECK(matmuls(merged) == 1);
  check_equal(p, merged);
}

}  // namespace merge_program_test
