// Library calls that end in an epilogue (plan::fuse_epilogues): over a generated family of
// products and convolutions followed by a bias, a residual and a ReLU in every form the IR writes
// them, which fuse (and which must not), and that the fused plan computes what the program does.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/plan/build.hpp"
#include "support/evaluate.hpp"
#include "ein/plan/json.hpp"

namespace epilogue_test {

using namespace ein;
using ir::idx;

namespace {

const plan::capabilities blas_only{{plan::blas}};
const plan::capabilities blas_cudnn{{plan::blas, plan::cudnn}};

ir::tensor tensor(std::string name, std::vector<std::int64_t> shape, ir::tensor_role role = ir::tensor_role::input) {
  return {std::move(name), ir::dtype::f32, std::move(shape), role};
}

// How the reader of a product's result is written.
struct reader_form {
  bool bias = false, residual = false;
  int relu = 0;           // 0: none, 1: relu(x), 2: max(x, 0), 3: max(0, x)
  unsigned order = 0;     // which permutation of the terms
  bool bias_on_rows = false;  // the bias runs along the rows (no library takes that for a product)
};

ir::expr with_relu(ir::expr x, int form) {
  switch (form) {
    case 1: return ir::make_unary(ir::unary_fn::relu, x);
    case 2: return ir::max(x, ir::make_constant(0));
    case 3: return ir::max(ir::make_constant(0), x);
    default: return x;
  }
}

ir::expr sum_of(std::vector<ir::expr> terms, unsigned order) {
  for (unsigned k = 0; k + 1 < terms.size(); ++k) std::swap(terms[k], terms[k + (order >> k) % (terms.size() - k)]);
  ir::expr s = terms[0];
  for (std::size_t k = 1; k < terms.size(); ++k) s = order & 8 ? terms[k] + s : s + terms[k];
  return s;
}

// h = Σ_k x[i,k]·W[k,j] (m×n, compute-bound), then y = the reader over h.
ir::program product_then(std::int64_t m, std::int64_t n, std::int64_t k, const reader_form& f) {
  auto x = tensor("x", {m, k}), W = tensor("W", {k, n}, ir::tensor_role::weight);
  auto b = tensor("b", {f.bias_on_rows ? m : n}, ir::tensor_role::weight), r = tensor("r", {m, n});
  auto h = ir::make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}},
                          ir::make_access(x, {idx("i"), idx("k")}) * ir::make_access(W, {idx("k"), idx("j")}));
  ir::tensor h_t{"h", ir::dtype::f32, {m, n}, ir::tensor_role::definition};
  std::vector<ir::expr> terms{ir::make_access(h_t, {idx("i"), idx("j")})};
  if (f.bias) terms.push_back(ir::make_access(b, {idx(f.bias_on_rows ? "i" : "j")}));
  if (f.residual) terms.push_back(ir::make_access(r, {idx("i"), idx("j")}));
  auto y = ir::make_scope({{"i", 0, m}, {"j", 0, n}}, {}, with_relu(sum_of(terms, f.order), f.relu));
  return {"product_then", {x, W, b, r}, {{"h", h, ir::dtype::f32}, {"y", y, ir::dtype::f32}}, {"y"}};
}

// The program's outputs against the plan's, its kernels run by the interpreter, on random inputs.
double plan_error(const plan::program_plan& p, const ir::program& src, std::uint64_t seed) {
  auto inputs = eval::random_inputs(src, seed);
  auto want = eval::evaluate(src, inputs);
  auto got = plan::evaluate(p, inputs);
  double worst = 0;
  for (auto& o : src.outputs) worst = std::max(worst, eval::max_rel_error(got.at(o), want.at(o)));
  return worst;
}

const plan::kernel* fused_call(const plan::program_plan& p) {
  for (auto& k : p.kernels)
    if (k.call && k.call->epilogue) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("epilogues: a product followed by any bias, residual and ReLU over its rows ends in them, with its values") {
  std::mt19937 g(11);
  int fused = 0;
  for (int trial = 0; trial < 48; ++trial) {
    reader_form f{(g() & 1) != 0, (g() & 1) != 0, static_cast<int>(g() % 4), static_cast<unsigned>(g() % 16), false};
    const std::int64_t m = 24 + g() % 48, n = 24 + g() % 48, k = 32 + g() % 64;
    auto src = product_then(m, n, k, f);
    CAPTURE(ir::to_string(src));
    auto p = plan::make_plan(src, blas_only);
    CHECK(plan_error(p, src, 100 + trial) < 1e-12);
    const bool expected = f.bias || f.residual || f.relu != 0;  // an identity copy is no epilogue
    auto* call = fused_call(p);
    REQUIRE((call != nullptr) == expected);
    if (!call) continue;
    ++fused;
    CHECK(p.kernels.size() == 1);
    CHECK(p.buffers.size() == 5);  // x, W, b, r, y: h is gone
    CHECK(p.buffers[call->target].name == "y");
    auto& e = *call->call->epilogue;
    CHECK(e.result == "h");
    CHECK(e.bias.has_value() == f.bias);
    CHECK(e.residual.has_value() == f.residual);
    CHECK(e.relu == (f.relu != 0));
    if (f.bias) CHECK(e.bias_dim == 1);
    // the plan as data keeps it
    auto json = plan::to_json(*call->call, p);
    auto back = plan::call_from_json(json, p);
    REQUIRE(back.epilogue);
    CHECK(*back.epilogue == e);
    if (!f.bias) continue;
    auto nowhere = json, negative = json;
    nowhere["epilogue"]["bias"] = "nowhere";
    negative["epilogue"]["bias_dim"] = -1;
    CHECK_THROWS_WITH_AS(plan::call_from_json(nowhere, p), doctest::Contains("reads `nowhere`"), user_error);
    CHECK_THROWS_WITH_AS(plan::call_from_json(negative, p), doctest::Contains("bias_dim is no dimension"), user_error);
  }
  CHECK(fused > 30);
}

TEST_CASE("epilogues: what no library takes stays an eOperator, with the same values") {
  std::mt19937 g(5);
  for (int trial = 0; trial < 8; ++trial) {
    const std::int64_t m = 24 + g() % 48, n = 24 + g() % 48, k = 32 + g() % 64;
    // a bias along the product's rows: cuBLASLt adds one along its columns only
    auto rows = product_then(m, n, k, {true, false, 2, 0, true});
    auto p = plan::make_plan(rows, blas_only);
    CHECK(fused_call(p) == nullptr);
    CHECK(p.kernels.size() == 2);
    CHECK(plan_error(p, rows, trial) < 1e-12);
    // a build that links no library, or a result read twice, an output, or another function
    auto plain = product_then(m, n, k, {true, true, 1, 0, false});
    CHECK(fused_call(plan::make_plan(plain, {})) == nullptr);
    auto twice = plain;
    twice.definitions[1].value = ir::make_scope(
        {{"i", 0, m}, {"j", 0, n}}, {},
        ir::make_access(ir::tensor{"h", ir::dtype::f32, {m, n}, ir::tensor_role::definition}, {idx("i"), idx("j")}) *
            ir::make_access(ir::tensor{"h", ir::dtype::f32, {m, n}, ir::tensor_role::definition}, {idx("i"), idx("j")}));
    CHECK(fused_call(plan::make_plan(twice, blas_only)) == nullptr);
    auto both = plain;
    both.outputs.push_back("h");
    CHECK(fused_call(plan::make_plan(both, blas_only)) == nullptr);
    auto tanh = plain;
    tanh.definitions[1].value = ir::make_scope(
        {{"i", 0, m}, {"j", 0, n}}, {},
        ir::make_unary(ir::unary_fn::tanh, ir::make_access(ir::tensor{"h", ir::dtype::f32, {m, n},
                                                                       ir::tensor_role::definition},
                                                            {idx("i"), idx("j")})));
    CHECK(fused_call(plan::make_plan(tanh, blas_only)) == nullptr);
    // a second reader of h: neither may take it
    auto shared = plain;
    shared.definitions.push_back({"z", plain.definitions[1].value, ir::dtype::f32});
    shared.outputs.push_back("z");
    auto sp = plan::make_plan(shared, blas_only);
    CHECK(fused_call(sp) == nullptr);
    CHECK(plan_error(sp, shared, trial) < 1e-12);
  }
}

TEST_CASE("epilogues: a convolution ends in a bias per output channel, a residual and a ReLU where cuDNN or oneDNN takes them") {
  // y[n, h, w, f] = relu(Σ X·K + b[f] + r[n, h, w, f]): NHWC, a KRSC filter
  auto X = tensor("X", {2, 16, 16, 8}), K = tensor("K", {16, 3, 3, 8}, ir::tensor_role::weight);
  auto b = tensor("b", {16}, ir::tensor_role::weight), r = tensor("r", {2, 16, 16, 16});
  auto conv = ir::make_scope({{"n", 0, 2}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, 16}}, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 8}},
                             ir::make_access(X, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                                 ir::make_access(K, {idx("f"), idx("r"), idx("s"), idx("c")}));
  ir::tensor c_t{"c", ir::dtype::f32, {2, 16, 16, 16}, ir::tensor_role::definition};
  std::vector<ir::affine> at{idx("n"), idx("h"), idx("w"), idx("f")};
  auto reader = [&](ir::expr body) {
    auto y = ir::make_scope({{"n", 0, 2}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, 16}}, {}, std::move(body));
    return ir::program{"conv_then", {X, K, b, r}, {{"c", conv, ir::dtype::f32}, {"y", y, ir::dtype::f32}}, {"y"}};
  };
  auto full = reader(ir::max(ir::make_access(c_t, at) + ir::make_access(b, {idx("f")}) + ir::make_access(r, at),
                             ir::make_constant(0)));
  auto p = plan::make_plan(full, blas_cudnn);
  auto* call = fused_call(p);
  REQUIRE(call != nullptr);
  CHECK(call->call->library == plan::cudnn);
  CHECK(call->call->epilogue->bias_dim == 3);
  CHECK(call->call->epilogue->residual.has_value());
  CHECK(p.kernels.size() == 1);
  CHECK(plan_error(p, full, 3) < 1e-12);
  // cuDNN's fused call needs a bias, and one per output channel
  CHECK(fused_call(plan::make_plan(reader(ir::max(ir::make_access(c_t, at), ir::make_constant(0))), blas_cudnn)) ==
        nullptr);
  auto along_w = reader(ir::make_access(c_t, at) + ir::make_access(b, {idx("w")}));
  auto pw = plan::make_plan(along_w, blas_cudnn);
  CHECK(fused_call(pw) == nullptr);
  CHECK(plan_error(pw, along_w, 4) < 1e-12);
  // the host build's oneDNN takes the same, and ReLU alone (its post-ops), but a bias per output
  // channel only
  auto host = plan::make_plan(full, {{plan::onednn, plan::blas}});
  auto* fused = fused_call(host);
  REQUIRE(fused != nullptr);
  CHECK(fused->call->library == plan::onednn);
  CHECK(fused->call->epilogue->relu);
  CHECK(fused->call->epilogue->residual.has_value());
  CHECK(plan_error(host, full, 5) < 1e-12);
  auto relu_only = reader(ir::max(ir::make_access(c_t, at), ir::make_constant(0)));
  auto hr = plan::make_plan(relu_only, {{plan::onednn, plan::blas}});
  REQUIRE(fused_call(hr) != nullptr);
  CHECK(!fused_call(hr)->call->epilogue->bias);
  CHECK(fused_call(plan::make_plan(along_w, {{plan::onednn, plan::blas}})) == nullptr);
}

TEST_CASE("epilogues: a 16-bit product and convolution end in theirs on cuda, and on the host stay a call and an eOperator") {
  for (auto t : {ir::dtype::f16, ir::dtype::bf16}) {
    CAPTURE(ir::name(t));
    // y = relu(h + b + r) after h = x·W, every tensor and definition of type t
    auto x = ir::tensor{"x", t, {64, 96}, ir::tensor_role::input}, W = ir::tensor{"W", t, {96, 48}, ir::tensor_role::weight};
    auto b = ir::tensor{"b", t, {48}, ir::tensor_role::weight}, r = ir::tensor{"r", t, {64, 48}, ir::tensor_role::input};
    ir::tensor h_t{"h", t, {64, 48}, ir::tensor_role::definition};
    auto h = ir::make_scope({{"i", 0, 64}, {"j", 0, 48}}, {{"k", 0, 96}},
                            ir::make_access(x, {idx("i"), idx("k")}) * ir::make_access(W, {idx("k"), idx("j")}));
    auto y = ir::make_scope({{"i", 0, 64}, {"j", 0, 48}}, {},
                            ir::max(ir::make_access(h_t, {idx("i"), idx("j")}) + ir::make_access(b, {idx("j")}) +
                                        ir::make_access(r, {idx("i"), idx("j")}),
                                    ir::make_constant(0)));
    ir::program product{"product_then", {x, W, b, r}, {{"h", h, t}, {"y", y, t}}, {"y"}};
    auto cuda = plan::make_plan(product, {{plan::cublas, plan::cudnn}});
    auto* call = fused_call(cuda);
    REQUIRE(call != nullptr);
    CHECK(call->call->op.type == t);
    CHECK(call->call->epilogue->bias_dim == 1);
    CHECK(call->call->epilogue->residual.has_value());
    CHECK(call->call->epilogue->relu);
    CHECK(cuda.kernels.size() == 1);
    // the interpreter's plan rounds h before its epilogue, the program's y after it: a unit apart
    CHECK(plan_error(cuda, product, 6) < 2 * (t == ir::dtype::f16 ? 0x1p-10 : 0x1p-7));
    // CBLAS takes no 16-bit product: nothing to fuse on the host
    CHECK(fused_call(plan::make_plan(product, blas_only)) == nullptr);
    // relu(conv + c[f]), NHWC with a KRSC filter
    auto X = ir::tensor{"X", t, {1, 16, 16, 32}, ir::tensor_role::input};
    auto K = ir::tensor{"K", t, {32, 3, 3, 32}, ir::tensor_role::weight};
    auto c = ir::tensor{"c", t, {32}, ir::tensor_role::weight};
    std::vector<ir::iterator> box{{"n", 0, 1}, {"h", 0, 16}, {"w", 0, 16}, {"f", 0, 32}};
    auto conv = ir::make_scope(box, {{"r", 0, 3}, {"s", 0, 3}, {"c", 0, 32}},
                               ir::make_access(X, {idx("n"), idx("h") + idx("r") - 1, idx("w") + idx("s") - 1, idx("c")}) *
                                   ir::make_access(K, {idx("f"), idx("r"), idx("s"), idx("c")}));
    ir::tensor conv_t{"conv", t, {1, 16, 16, 32}, ir::tensor_role::definition};
    auto z = ir::make_scope(box, {},
                            ir::make_unary(ir::unary_fn::relu,
                                           ir::make_access(conv_t, {idx("n"), idx("h"), idx("w"), idx("f")}) +
                                               ir::make_access(c, {idx("f")})));
    ir::program convolution{"conv_then", {X, K, c}, {{"conv", conv, t}, {"z", z, t}}, {"z"}};
    auto pc = plan::make_plan(convolution, {{plan::cublas, plan::cudnn}});
    auto* fused = fused_call(pc);
    REQUIRE(fused != nullptr);
    CHECK(fused->call->library == plan::cudnn);
    CHECK(fused->call->op.type == t);
    CHECK(fused->call->epilogue->bias_dim == 3);
    CHECK(pc.kernels.size() == 1);
    CHECK(plan_error(pc, convolution, 7) < 2 * (t == ir::dtype::f16 ? 0x1p-10 : 0x1p-7));
  }
}

}  // namespace epilogue_test
