// Binding a plan's calls for a build: which kernels BLAS, cuDNN and oneDNN run as library calls
// (and what each library accepts), which stay eOperators, and in which order a build tries its
// libraries.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/e2e/programs.hpp"
#include "ein/codegen/backend.hpp"
#include "ein/match/match.hpp"
#include "ein/match/repack.hpp"
#include "ein/plan/build.hpp"
#include "plan/conv_programs.hpp"

namespace bind_test {

using namespace ein;
using ir::idx;
using plan_test::conv;
using plan_test::conv_transpose;
using plan_test::f32;

namespace {

const plan::capabilities blas_only{{plan::blas}};
const plan::capabilities blas_cudnn{{plan::blas, plan::cudnn}};
const plan::capabilities blas_onednn{{plan::blas, plan::onednn}};

// Which kernels of `p` are library calls for `caps`: their operators in kernel order ("-" for
// an eOperator).
std::vector<std::string> kinds(const ir::program& p, const plan::capabilities& caps = blas_only) {
  std::vector<std::string> r;
  for (auto& k : plan::make_plan(p, caps).kernels) r.push_back(k.call ? match::name(k.call->op.kind) : "-");
  return r;
}

// The first instance of `kind` that computes the only definition of `p`.
match::instance instance_of(const ir::program& p, match::op_kind kind) {
  for (auto& i : match::match(*p.definitions.at(0).value))
    if (i.kind == kind) return i;
  FAIL("no " << match::name(kind) << " instance");
  return {};
}

}  // namespace

TEST_CASE("bind: compute-bound GEMMs over whole buffers are BLAS calls; small, nested, shifted and band ones are not") {
  CHECK(kinds(ein::reify(ein_test::matmul)) == std::vector<std::string>{"-"});  // memory-bound
  CHECK(kinds(ein::reify(ein_test::conv_nhwc)) == std::vector<std::string>{"-"});
  CHECK(kinds(ein::reify(ein_test::g2bmm)) == std::vector<std::string>{"-"});
  CHECK(kinds(ein::reify(ein_test::gemm_chain)) == std::vector<std::string>{"matmul", "matmul"});
  CHECK(kinds(ein::reify(ein_test::batch_gemm)) == std::vector<std::string>{"batch_matmul"});
  // a build that links no library calls nothing
  CHECK(kinds(ein::reify(ein_test::gemm_chain), {}) == std::vector<std::string>{"-", "-"});
  auto A = f32("A", {41, 36}), B = f32("B", {36, 48});
  auto product = [&](ir::expr a) {
    return ir::make_scope({{"i", 0, 40}, {"j", 0, 48}}, {{"k", 0, 36}}, a * ir::make_access(B, {idx("k"), idx("j")}));
  };
  // an operand read from an offset is still a library call
  ir::program shifted{"shifted", {A, B}, {{"out", product(ir::make_access(A, {idx("i") + 1, idx("k")})), ir::dtype::f32}}, {"out"}};
  CHECK(kinds(shifted) == std::vector<std::string>{"matmul"});
  // an operand that is a nested scope is not
  auto inner = ir::make_scope({{"a", 0, 41}, {"b", 0, 36}}, {}, ir::make_access(A, {idx("a"), idx("b")}) + ir::make_constant(1));
  ir::program nested{"nested", {A, B}, {{"out", product(ir::make_access(inner, {idx("i"), idx("k")})), ir::dtype::f32}}, {"out"}};
  CHECK(kinds(nested) == std::vector<std::string>{"-", "-"});
  // a definition read by name whose box does not start at 0 is no program (ir::verify): no
  // kernel is made of it
  auto h = ir::make_scope({{"a", -1, 40}, {"b", 0, 36}}, {}, ir::make_access(A, {idx("a") + 1, idx("b")}));
  ir::tensor ht{"h", ir::dtype::f32, {41, 36}, ir::tensor_role::definition};
  ir::program shifted_box{"shifted_box", {A, B},
                          {{"h", h, ir::dtype::f32}, {"out", product(ir::make_access(ht, {idx("i"), idx("k")})), ir::dtype::f32}},
                          {"out"}};
  CHECK_THROWS_WITH_AS(kinds(shifted_box), doctest::Contains("its value's box starts at [-1, 0]"), user_error);
}

TEST_CASE("bind: cuDNN runs the convolutions its legacy API describes; BLAS is tried first") {
  CHECK(kinds(conv(3, 1), blas_cudnn) == std::vector<std::string>{"conv2d"});
  CHECK(kinds(conv_transpose(), blas_cudnn) == std::vector<std::string>{"conv_transpose2d"});
  // asymmetric padding (a 2×2 kernel padded before only), a filter in no cuDNN format
  CHECK(kinds(conv(2, 1), blas_cudnn) == std::vector<std::string>{"-"});
  CHECK(kinds(conv(3, 1, true), blas_cudnn) == std::vector<std::string>{"-"});
  // a build without cuDNN (the host one)
  CHECK(kinds(conv(3, 1)) == std::vector<std::string>{"-"});
  // a small convolution is memory-bound
  CHECK(kinds(ein::reify(ein_test::conv_nhwc), blas_cudnn) == std::vector<std::string>{"-"});
  // a matrix product that also matches as a degenerate convolution is bound as a GEMM, unless
  // the build tries cuDNN first
  CHECK(kinds(ein::reify(ein_test::gemm_chain), blas_cudnn) == std::vector<std::string>{"matmul", "matmul"});
}

TEST_CASE("bind: oneDNN runs float convolutions in any layout and padding; double ones and small ones stay eOperators") {
  CHECK(kinds(conv(3, 1), blas_onednn) == std::vector<std::string>{"conv2d"});
  CHECK(kinds(conv_transpose(), blas_onednn) == std::vector<std::string>{"conv_transpose2d"});
  // asymmetric padding and a filter in no cuDNN format: oneDNN takes both
  CHECK(kinds(conv(2, 1), blas_onednn) == std::vector<std::string>{"conv2d"});
  CHECK(kinds(conv(3, 1, true), blas_onednn) == std::vector<std::string>{"conv2d"});
  // a 1×1 convolution is memory-bound (2.6 FLOPs per byte)
  CHECK(kinds(conv(1, 0), blas_onednn) == std::vector<std::string>{"-"});
  // a matrix product that also matches as a degenerate convolution stays a GEMM
  CHECK(kinds(ein::reify(ein_test::gemm_chain), blas_onednn) == std::vector<std::string>{"matmul", "matmul"});
  // oneDNN has no double convolution on the CPU
  CHECK(kinds(conv(3, 1, false, ir::dtype::f64), blas_onednn) == std::vector<std::string>{"-"});
}

TEST_CASE("bind: a matrix-vector product is a BLAS call though memory-bound") {
  // ResNet-18's classifier: [1, 512] by the transposed [1000, 512]
  auto W = f32("W", {1000, 512});
  auto gemv = [&](std::int64_t rows) {
    auto xs = f32("x", {rows, 512});
    return ir::program{"fc", {xs, W},
                       {{"y", ir::make_scope({{"i", 0, rows}, {"j", 0, 1000}}, {{"k", 0, 512}},
                                             ir::make_access(xs, {idx("i"), idx("k")}) * ir::make_access(W, {idx("j"), idx("k")})),
                         ir::dtype::f32}},
                       {"y"}};
  };
  REQUIRE(match::memory_bound(instance_of(gemv(1), match::op_kind::matmul)));
  CHECK(kinds(gemv(1)) == std::vector<std::string>{"matmul"});
  CHECK(kinds(gemv(1), blas_cudnn) == std::vector<std::string>{"matmul"});
  // two rows: a memory-bound product of matrices, an eOperator
  REQUIRE(match::memory_bound(instance_of(gemv(2), match::op_kind::matmul)));
  CHECK(kinds(gemv(2)) == std::vector<std::string>{"-"});
}

TEST_CASE("bind: a grouped convolution is a oneDNN or cuDNN call though memory-bound") {
  // MobileNet's depthwise 3×3, NCHW, and 8 filters over one channel in one group
  auto depthwise = [&](ir::affine channel, std::int64_t filters) {
    auto Kd = f32("K", {filters, 1, 3, 3});
    auto Xd = f32("X", {1, filters == 32 ? 32 : 1, 28, 28});
    return ir::program{"dw", {Xd, Kd},
                       {{"y", ir::make_scope({{"n", 0, 1}, {"f", 0, filters}, {"p", 0, 28}, {"q", 0, 28}}, {{"r", 0, 3}, {"s", 0, 3}},
                                             ir::make_access(Xd, {idx("n"), std::move(channel), idx("p") + idx("r") - 1, idx("q") + idx("s") - 1}) *
                                                 ir::make_access(Kd, {idx("f"), 0, idx("r"), idx("s")})),
                         ir::dtype::f32}},
                       {"y"}};
  };
  auto dw = depthwise(idx("f"), 32);
  auto grouped = instance_of(dw, match::op_kind::conv2d);
  REQUIRE(grouped.conv().groups == 32);
  REQUIRE(match::memory_bound(grouped));
  CHECK(kinds(dw, blas_onednn) == std::vector<std::string>{"conv2d"});
  CHECK(kinds(dw, blas_cudnn) == std::vector<std::string>{"conv2d"});
  // as memory-bound (3.96 FLOPs per byte), in one group: an eOperator
  auto one_group = depthwise(ir::affine(0), 8);
  REQUIRE(match::memory_bound(instance_of(one_group, match::op_kind::conv2d)));
  CHECK(kinds(one_group, blas_onednn) == std::vector<std::string>{"-"});
  CHECK(kinds(one_group, blas_cudnn) == std::vector<std::string>{"-"});
}

TEST_CASE("bind: shapes that match as grouped convolutions but do not slide a filter stay eOperators when memory-bound") {
  // a batch of small products, bm[b, m, n] = Σ_k Q[b, m, k]·R[b, n, k]: a depthwise 1×4 over a
  // 10×4 image whose filter spans each row (one output column)
  auto Q = f32("Q", {2, 10, 4}), R = f32("R", {2, 10, 4});
  ir::program bm{"bm", {Q, R},
                 {{"bm", ir::make_scope({{"b", 0, 2}, {"m", 0, 10}, {"n", 0, 10}}, {{"k", 0, 4}},
                                        ir::make_access(Q, {idx("b"), idx("m"), idx("k")}) *
                                            ir::make_access(R, {idx("b"), idx("n"), idx("k")})),
                   ir::dtype::f32}},
                 {"bm"}};
  auto as_conv = match::match(*bm.definitions[0].value);
  REQUIRE(std::any_of(as_conv.begin(), as_conv.end(), [](const match::instance& i) {
    return i.kind == match::op_kind::conv2d && i.conv().groups > 1 && match::memory_bound(i);
  }));
  CHECK(kinds(bm, blas_onednn) == std::vector<std::string>{"-"});
  CHECK(kinds(bm, blas_cudnn) == std::vector<std::string>{"-"});
  // a per-channel scale, y[n, c, h, w] = X[n, c, h, w]·S[c]: a depthwise 1×1
  auto X = f32("X", {1, 16, 8, 8}), S = f32("S", {16});
  ir::program scale{"scale", {X, S},
                    {{"y", ir::make_scope({{"n", 0, 1}, {"c", 0, 16}, {"h", 0, 8}, {"w", 0, 8}}, {},
                                          ir::make_access(X, {idx("n"), idx("c"), idx("h"), idx("w")}) *
                                              ir::make_access(S, {idx("c")})),
                      ir::dtype::f32}},
                    {"y"}};
  CHECK(kinds(scale, blas_onednn) == std::vector<std::string>{"-"});
  CHECK(kinds(scale, blas_cudnn) == std::vector<std::string>{"-"});
}

TEST_CASE("onednn_accepts: sizes that agree, strides that step forward, float and bfloat16; onednn runs small filters") {
  auto c = instance_of(conv(3, 1), match::op_kind::conv2d);
  CHECK(plan::onednn_accepts(c));
  CHECK(plan::onednn.runs(c));
  auto with = [&](auto change) {
    auto a = c.conv();
    change(a);
    auto changed = c;
    changed.attrs = a;
    return plan::onednn_accepts(changed);
  };
  CHECK(with([](match::conv_attrs& a) { a.pad_h_end = 0, a.p = 15; }));   // asymmetric, rows agree
  CHECK_FALSE(with([](match::conv_attrs& a) { a.pad_h_end = 0; }));       // rows disagree with p
  CHECK_FALSE(with([](match::conv_attrs& a) { a.pad_w = -1, a.q = 14; }));  // a negative padding
  CHECK_FALSE(with([](match::conv_attrs& a) { a.x_strides[3] = 0; }));    // columns that overlap
  CHECK(with([](match::conv_attrs& a) { a.w_strides = {1, 16, 128, 384}; }));  // any filter layout
  CHECK_FALSE(with([](match::conv_attrs& a) { a.w_strides = {1, 8, 128, 384}; }));  // filters that overlap
  auto shifted = c;
  shifted.inputs[0].offset = 3;
  CHECK(plan::onednn_accepts(shifted));
  shifted.inputs[0].offset = -1;
  CHECK_FALSE(plan::onednn_accepts(shifted));
  auto f64 = c;
  f64.type = ir::dtype::f64;
  CHECK_FALSE(plan::onednn_accepts(f64));
  // bfloat16: accepted unscaled, run only by the family of a CPU with bfloat16 kernels; no half
  auto bf16 = c;
  bf16.type = ir::dtype::bf16;
  CHECK(plan::onednn_accepts(bf16));
  CHECK_FALSE(plan::onednn.runs(bf16));
  CHECK(plan::onednn_bf16.runs(bf16));
  CHECK(plan::onednn_bf16.runs(c));
  CHECK(plan::onednn_bf16 == plan::onednn);
  CHECK_FALSE(plan::onednn_bf16.takes(bf16, plan::epilogue_form{.relu = true}));
  auto scaled_attrs = c.conv();
  scaled_attrs.alpha = 0.5;
  auto scaled = bf16;
  scaled.attrs = scaled_attrs;
  CHECK_FALSE(plan::onednn_accepts(scaled));
  auto f16 = c;
  f16.type = ir::dtype::f16;
  CHECK_FALSE(plan::onednn_accepts(f16));
  CHECK_FALSE(plan::onednn_bf16.runs(f16));
  CHECK_FALSE(plan::onednn_accepts(instance_of(ein::reify(ein_test::gemm_chain), match::op_kind::matmul)));
  CHECK(plan::onednn_accepts(instance_of(conv(1, 0), match::op_kind::conv2d)));
  CHECK_FALSE(plan::onednn.runs(instance_of(conv(1, 0), match::op_kind::conv2d)));  // memory-bound
  // a stride-1 transposed 9×9 over [1,32,32,56] written as X[n, h - u + 4, w - v + 4, c]·K[u, v, f, c]
  // matches only with X as the filter: 32×32 taps over a 9×9 image, which oneDNN accepts but is
  // not given
  auto X = f32("X", {1, 32, 32, 56});
  ir::tensor K{"K", ir::dtype::f32, {9, 9, 1, 56}, ir::tensor_role::weight};
  ir::program transposed_9x9{
      "t9", {X, K},
      {{"out",
        ir::make_scope({{"n", 0, 1}, {"h", 0, 32}, {"w", 0, 32}, {"f", 0, 1}}, {{"u", 0, 9}, {"v", 0, 9}, {"c", 0, 56}},
                       ir::make_access(X, {idx("n"), idx("h") - idx("u") + 4, idx("w") - idx("v") + 4, idx("c")}) *
                           ir::make_access(K, {idx("u"), idx("v"), idx("f"), idx("c")})),
        ir::dtype::f32}},
      {"out"}};
  auto swapped = instance_of(transposed_9x9, match::op_kind::conv_transpose2d);
  CHECK(swapped.conv().r == 32);
  CHECK(plan::onednn_accepts(swapped));
  CHECK_FALSE(plan::onednn.runs(swapped));
  CHECK(kinds(transposed_9x9, blas_onednn) == std::vector<std::string>{"-"});
  // into fewer than 8 channels (one vector of floats)
  auto narrow = c;
  auto narrow_attrs = c.conv();
  narrow_attrs.k = 4;
  narrow.attrs = narrow_attrs;
  CHECK(plan::onednn_accepts(narrow));
  CHECK_FALSE(plan::onednn.runs(narrow));
  CHECK(codegen::capabilities_of(codegen::backend::host, true, false, true).str() == "blas+onednn");
  CHECK(codegen::capabilities_of(codegen::backend::host, false, false, true).str() == "onednn");
  CHECK(codegen::capabilities_of(codegen::backend::cuda, false, true, true).str() == "blas+cudnn");
  CHECK(codegen::emits(codegen::backend::host, plan::onednn));
  CHECK_FALSE(codegen::emits(codegen::backend::cuda, plan::onednn));
}

TEST_CASE("library::runs: the conditions of BLAS and cuDNN, each instance checked as matched") {
  auto gemm = instance_of(ein::reify(ein_test::gemm_chain), match::op_kind::matmul);
  CHECK(plan::blas.runs(gemm));
  CHECK_FALSE(plan::cudnn.runs(gemm));
  auto g = gemm.gemm();
  g.lda = (g.trans_a ? g.m : g.k) - 1;  // rows that overlap
  auto overlapping = gemm;
  overlapping.attrs = g;
  CHECK_FALSE(plan::blas.runs(overlapping));
  CHECK_FALSE(plan::blas.runs(instance_of(ein::reify(ein_test::matmul), match::op_kind::matmul)));  // memory-bound
  auto c = instance_of(conv(3, 1), match::op_kind::conv2d);
  CHECK(plan::cudnn.runs(c));
  CHECK_FALSE(plan::blas.runs(c));
  CHECK_FALSE(plan::cudnn.runs(instance_of(conv(2, 1), match::op_kind::conv2d)));        // asymmetric
  auto strided = instance_of(conv(3, 1, true), match::op_kind::conv2d);                   // RSFC filter
  CHECK_FALSE(plan::cudnn.runs(strided));
  CHECK(plan::cudnn.runs(match::repack_filter(strided).op));                            // its packed copy
  auto shifted = c;
  shifted.inputs[0].offset = 1;
  CHECK_FALSE(plan::cudnn.runs(shifted));
  // the capabilities of builds, as codegen decides them
  CHECK(codegen::capabilities_of(codegen::backend::host, true, true).str() == "blas");
  CHECK(codegen::capabilities_of(codegen::backend::host, false, true).str() == "none");
  CHECK(codegen::capabilities_of(codegen::backend::cuda, false, false).str() == "blas");
  CHECK(codegen::capabilities_of(codegen::backend::cuda, false, true).str() == "blas+cudnn");
  CHECK(plan::every_operator().calls(instance_of(ein::reify(ein_test::matmul), match::op_kind::matmul)));
}

TEST_CASE("make_plan: buffers in declaration order, nested scopes before their readers, transforms first") {
  auto source = ein::reify(ein_test::nested);
  auto p = plan::make_plan(source, blas_only);
  std::vector<std::string> buffers, tensors, order;
  for (auto& b : p.buffers) buffers.push_back(b.name);
  for (auto& t : source.tensors) tensors.push_back(t.name);
  for (auto& k : p.kernels) order.push_back(p.buffers[k.target].name);
  CHECK(order == std::vector<std::string>{"out.1", "out.3", "out.2", "out"});
  REQUIRE(buffers.size() == tensors.size() + 4);
  CHECK(std::vector<std::string>(buffers.begin(), buffers.begin() + tensors.size()) == tensors);
  CHECK(std::vector<std::string>(buffers.begin() + tensors.size(), buffers.end()) ==
        std::vector<std::string>{"out", "out.1", "out.2", "out.3"});
  CHECK(p.outputs == std::vector<std::string>{"out"});
  CHECK(p.bound_for.str() == "blas");
  for (auto& k : p.kernels) CHECK(!k.origin);  // taken as written: no derivation
  CHECK(p.derivations.empty());
}

}  // namespace bind_test
