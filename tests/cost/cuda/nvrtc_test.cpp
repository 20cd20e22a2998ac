// NVRTC compiles the CUDA source ein's emitter writes for eOperators to PTX (no GPU needed): every
// kernel of every plan small searches find, and scopes using each construct of the emitter.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "ein/measure/gpu_timer.hpp"
#include "ein/derive/all.hpp"
#include "ein/search/optimize.hpp"
#include "search/rediscover_support.hpp"

using namespace ein;
using namespace ein::ir;

namespace {

// Compiles `s` and checks that the PTX defines the kernel's entry.
void check_compiles(const scope& s) {
  INFO(to_string(s));
  auto k = measure::compile_eoperator(s, "compute_80");
  CHECK(!k.entry.empty());
  CHECK(k.ptx.find(".entry " + k.entry) != std::string::npos);
  CHECK(k.source.find("#include \"ein/runtime/eoperator.hpp\"") == 0);
}

tensor f(std::string name, std::vector<std::int64_t> shape, dtype t = dtype::f32) {
  return {std::move(name), t, std::move(shape), tensor_role::input};
}

}  // namespace

TEST_CASE("nvrtc: the kernels of the plans found for small Conv3x3, ConvTranspose and G2BMM compile") {
  // Every distinct kernel of the chosen plans, and of the other candidates every seventh one
  // (NVRTC takes tens of milliseconds per kernel).
  std::set<std::string> seen;
  std::size_t compiled = 0, distinct = 0;
  for (auto& src : {search_test::conv(5, 8, 8, 3, 1), search_test::conv_transpose(1, 2, 4, 4, 4, 2, 1),
                    search_test::g2bmm(1, 16, 4, 2, 2)}) {
    auto r = search::optimize(src, derive::intra_rules(), search_test::h100());
    std::vector<const search::expression_plan*> plans{&r.best};
    for (auto& c : r.candidates) plans.push_back(&c.p);
    for (auto* p : plans)
      for (auto& k : p->kernels) {
        if (!seen.insert(cost::kernel_key(cost::workload::eoperator(0, 0, k.value.get()))).second) continue;
        if (p == &r.best || distinct++ % 7 == 0) check_compiles(*k.value), ++compiled;
      }
  }
  MESSAGE(compiled << " of " << seen.size() << " distinct kernels compiled");
  CHECK(compiled > 10);
}

TEST_CASE("nvrtc: unary functions, floor division and modulo, padding, nested scopes, f64, max and min compile") {
  auto x = make_access(f("X", {12}), {idx("i")});
  for (auto fn : {unary_fn::neg, unary_fn::relu, unary_fn::sigmoid, unary_fn::tanh, unary_fn::exp})
    check_compiles(*make_scope({{"i", 0, 12}}, {}, make_unary(fn, x)));
  // floor division and modulo of an index that can be negative; reads outside the box are 0
  check_compiles(*make_scope({{"i", -5, 12}}, {},
                             make_access(f("Y", {4, 3}), {(idx("i") - 2).floordiv(3), (idx("i") + 1).mod(3)})));
  // a nested scope with a negative lower bound, read as the temporary it becomes
  auto inner = make_scope({{"j", -1, 13}}, {}, make_unary(unary_fn::relu, make_access(f("X", {12}), {idx("j")})));
  check_compiles(*make_scope({{"i", 0, 12}}, {{"k", 0, 3}}, make_access(inner, {idx("i") + idx("k") - 1})));
  // double precision
  check_compiles(*make_scope({{"i", 0, 4}}, {{"k", 0, 5}},
                             make_access(f("D", {4, 5}, dtype::f64), {idx("i"), idx("k")}) * make_constant(0.5)));
  // max and min scopes over padded reads, with max and min nodes
  for (auto r : {reduction::max, reduction::min})
    check_compiles(*make_scope({{"i", 0, 12}}, {{"k", 0, 3}},
                               max(make_access(f("X", {12}), {idx("i") + idx("k") - 1}), make_constant(0)) -
                                   min(x, make_constant(1)),
                               r));
}

TEST_CASE("nvrtc: eOperators of half and bfloat16 tensors compile, loading 16 bits through ein/half.hpp") {
  for (auto t : {dtype::f16, dtype::bf16}) {
    CAPTURE(name(t));
    auto s = make_scope({{"i", 0, 16}, {"j", 0, 8}}, {{"k", 0, 24}},
                        make_access(f("A", {16, 24}, t), {idx("i"), idx("k")}) *
                            make_access(f("B", {24, 8}, t), {idx("k"), idx("j")}));
    check_compiles(*s);
    auto k = measure::compile_eoperator(*s, "compute_80");
    // 16-bit loads (ld.global.u16, ld.global.nc.v4.b16, ...), no cuda_fp16.h
    CHECK(std::regex_search(k.ptx, std::regex(R"(ld\.global[.a-z0-9]*\.[bu]16)")));
    CHECK(k.source.find("cuda_fp16") == std::string::npos);
  }
}
