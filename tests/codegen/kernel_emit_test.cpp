// What the eOperator emitters write for precision and mapping: float arithmetic without a double
// in it, blocked sums, the double option, the plan's tolerance, the kernel schedule (flat, tiled,
// index type) and launches sized from the device.
#include <doctest/doctest.h>

#include <cmath>

#include "codegen/e2e/programs.hpp"
#include "codegen/emit_options.hpp"
#include "ein/codegen/cuda_source.hpp"
#include "ein/codegen/header.hpp"
#include "ein/runtime/eoperator.hpp"

namespace kernel_emit_test {

using namespace ein;
using ir::idx;
using codegen_test::as_written;
using codegen_test::options_for;

namespace {

ir::tensor f32(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), ir::dtype::f32, std::move(shape), ir::tensor_role::input};
}

ir::program one(const ir::scope_ptr& s, std::vector<ir::tensor> tensors) {
  return {"p", std::move(tensors), {{"out", s, ir::dtype::f32}}, {"out"}};
}

// out[i] = Σ_{k} A[i, k] · B[k] over `extents` summation iterators.
ir::program sum_program(const std::vector<std::int64_t>& extents) {
  std::vector<ir::iterator> sums;
  std::vector<std::int64_t> a_shape{3}, b_shape;
  std::vector<ir::affine> a_index{idx("i")}, b_index;
  for (std::size_t k = 0; k < extents.size(); ++k) {
    std::string n = "k" + std::to_string(k);
    sums.push_back({n, 0, extents[k]});
    a_shape.push_back(extents[k]);
    b_shape.push_back(extents[k]);
    a_index.push_back(idx(n));
    b_index.push_back(idx(n));
  }
  auto A = f32("A", a_shape), B = f32("B", b_shape);
  return one(ir::make_scope({{"i", 0, 3}}, sums, ir::make_access(A, a_index) * ir::make_access(B, b_index)), {A, B});
}

// L_{c:[0,40), h:[0,12), w:[0,50)} X[h, w, c] + 0.1: NHWC to NCHW.
ir::program transpose() {
  auto X = f32("X", {12, 50, 40});
  return one(ir::make_scope({{"c", 0, 40}, {"h", 0, 12}, {"w", 0, 50}}, {},
                            ir::make_access(X, {idx("h"), idx("w"), idx("c")}) + ir::make_constant(0.1)),
             {X});
}

}  // namespace

TEST_CASE("precision: float programs compute in float, with float constants and functions") {
  auto p = ein::reify(ein_test::elementwise);
  std::string h = codegen::emit_header(as_written(p), options_for("p"));
  CHECK(h.find("static_cast<double>") == std::string::npos);
  CHECK(h.find("2.5f") != std::string::npos);
  CHECK(h.find("ein::runtime::fn::relu(") != std::string::npos);
  std::string cu = codegen::emit_cuda_source(as_written(p), options_for("p", codegen::backend::cuda));
  CHECK(cu.find("double") == std::string::npos);
  // ACCUMULATE double: the former arithmetic, rounded once at the store
  auto in_double = as_written(p);
  in_double.accumulate = codegen::accumulation::f64;
  std::string d = codegen::emit_header(in_double, options_for("p"));
  CHECK(d.find("static_cast<double>(t_A[") != std::string::npos);
  CHECK(d.find("2.5f") == std::string::npos);
  // a double tensor keeps its type
  CHECK(codegen::emit_header(as_written(ein::reify(ein_test::scalar_f64)), options_for("p")).find("double acc = 0.0;") != std::string::npos);
  // constants that float cannot hold are user errors
  auto A = f32("A", {2});
  auto huge = one(ir::make_scope({{"i", 0, 2}}, {}, ir::make_access(A, {idx("i")}) * ir::make_constant(1e300)), {A});
  CHECK_THROWS_WITH_AS(codegen::emit_header(as_written(huge), options_for("p")), doctest::Contains("does not fit in float"), user_error);
  auto huge_in_double = as_written(huge);
  huge_in_double.accumulate = codegen::accumulation::f64;
  CHECK_NOTHROW(codegen::emit_header(huge_in_double, options_for("p")));
}

TEST_CASE("precision: long float sums are blocked near sqrt(n), short ones and double ones are not") {
  auto blocks = [](std::vector<std::int64_t> extents, ir::dtype t = ir::dtype::f32) {
    std::vector<ir::iterator> sums;
    for (std::size_t k = 0; k < extents.size(); ++k) sums.push_back({"k" + std::to_string(k), 0, extents[k]});
    return codegen::blocks(sums, t);
  };
  CHECK_FALSE(blocks({64}));
  CHECK_FALSE(blocks({3, 3}));
  CHECK_FALSE(blocks({4096}, ir::dtype::f64));
  auto conv = blocks({3, 3, 512});  // 4608 terms: 72 partial sums of 64
  REQUIRE(conv);
  CHECK(conv->inner == 2);
  CHECK(conv->chunk == 64);
  auto prime = blocks({997});  // 32 chunks, the last one shorter
  REQUIRE(prime);
  CHECK(prime->chunk == 32);
  auto whole = blocks({20, 50, 5});  // partial sums of 13 · 5 terms, about sqrt(5000)
  REQUIRE(whole);
  CHECK(whole->inner == 1);
  CHECK(whole->chunk == 13);
  for (auto extents : {std::vector<std::int64_t>{65}, {3, 3, 512}, {997}, {20, 50, 5}, {7, 11, 13}, {100, 100}}) {
    CAPTURE(extents.size());
    std::vector<ir::iterator> sums;
    std::int64_t n = 1;
    for (std::size_t k = 0; k < extents.size(); ++k) {
      sums.push_back({"k" + std::to_string(k), 0, extents[k]});
      n *= extents[k];
    }
    auto b = codegen::blocks(sums, ir::dtype::f32);
    REQUIRE(b);
    // a partial sum and the number of partial sums both stay within a few times sqrt(n)
    std::int64_t inner = b->chunk ? b->chunk : 1;
    for (std::size_t k = b->inner + (b->chunk ? 1 : 0); k < sums.size(); ++k) inner *= sums[k].extent();
    CHECK(inner <= 2 * std::sqrt(static_cast<double>(n)) + 1);
    CHECK(n / inner <= 4 * std::sqrt(static_cast<double>(n)) + 1);
  }
  std::string h = codegen::emit_header(as_written(sum_program({997})), options_for("p"));
  CHECK(h.find("for (std::int64_t chunk_i_k0 = 0; chunk_i_k0 < 997; chunk_i_k0 += 32) {") != std::string::npos);
  CHECK(h.find("i_k0 < chunk_i_k0 + 32 && i_k0 < 997;") != std::string::npos);
  CHECK(h.find("acc += part;") != std::string::npos);
  CHECK(codegen::emit_header(as_written(sum_program({3, 3})), options_for("p")).find("EIN_UNROLL") != std::string::npos);
}

TEST_CASE("precision: the plan's tolerance follows its arithmetic") {
  // the tolerance of `p`'s header, its eOperators computing as `a` asks
  auto tolerance_of = [](ein::plan::program_plan p, const codegen::options& o,
                         codegen::accumulation a = codegen::accumulation::element) {
    p.accumulate = a;
    std::string h = codegen::emit_header(p, o);
    auto at = h.find("static constexpr double tolerance = ");
    REQUIRE(at != std::string::npos);
    return std::stod(h.substr(at + 36));
  };
  auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
  auto o = options_for("p");
  CHECK(near(tolerance_of(as_written(ein::reify(ein_test::matmul)), o), 1e-5));
  CHECK(near(tolerance_of(as_written(transpose()), o), 1e-5));  // + 0.1 is arithmetic
  CHECK(near(tolerance_of(as_written(ein::reify(ein_test::matmul)), o, codegen::accumulation::f64), 1e-6));
  CHECK(near(tolerance_of(as_written(ein::reify(ein_test::scalar_f64)), options_for("p")), 1e-12));
  // a relayout copies: no error of its own; two steps add theirs
  auto X = f32("X", {4, 5});
  auto copy = one(ir::make_scope({{"j", 0, 5}, {"i", 0, 4}}, {}, ir::make_access(X, {idx("i"), idx("j")})), {X});
  CHECK(near(tolerance_of(as_written(copy), options_for("p")), 0));
  CHECK(near(tolerance_of(as_written(ein::reify(ein_test::two_definitions)), options_for("p")), 3e-5));  // mm, relu, sum
  // TF32 library calls on the cuda backend
  auto cuda = options_for("p", codegen::backend::cuda);
  auto cublas = ein::plan::make_plan(ein::reify(ein_test::gemm_chain), codegen::capabilities_of(cuda.target, false, false));
  cublas.tf32 = true;
  CHECK(near(tolerance_of(cublas, cuda), 2e-2));
  cublas.tf32 = false;
  CHECK(near(tolerance_of(cublas, cuda), 2e-5));
}

TEST_CASE("kernels: a transpose is staged through shared memory, a coalesced read is not") {
  auto t = transpose();
  auto plan = codegen::make_named_plan(t);
  auto k = codegen::schedule(plan.steps[0], plan);
  REQUIRE(k.tile);
  CHECK(k.tile->x == 2);  // w: the threads of a warp write consecutive outputs
  CHECK(k.tile->y == 0);  // c: the read's contiguous dimension
  CHECK(k.tile->rows == 32);
  CHECK(k.items == 2 * 2 * 12);  // ceil(50 / 32) · ceil(40 / 32) tiles per h
  CHECK(k.items_per_block == 1);
  CHECK(k.index == "int");
  std::string cu = codegen::emit_cuda_source(as_written(t), options_for("p", codegen::backend::cuda));
  CHECK(cu.find("__shared__ float tile[32][33];") != std::string::npos);
  CHECK(cu.find("__syncthreads();") != std::string::npos);
  CHECK(cu.find("static __global__ void __launch_bounds__(256) eop_out_kernel(") != std::string::npos);
  // the resident blocks asked once, by make_state (which prepare() calls), never under a capture
  CHECK(cu.find("static unsigned eop_out_resident() {\n"
                "  static const unsigned resident = ein::runtime::resident_blocks(eop_out_kernel, 256);\n") !=
        std::string::npos);
  CHECK(cu.find("  eop_out_resident();\n}\n") != std::string::npos);
  CHECK(cu.find("ein_generated::p::eop_out_kernel<<<ein::runtime::launch_blocks(48, 1, "
                "ein_generated::p::eop_out_resident()), 256, 0, s>>>(t_X, t_out);") != std::string::npos);
  // an elementwise step reads as it writes: flat, four outputs per thread and pass
  auto e = ein::reify(ein_test::elementwise);
  auto eplan = codegen::make_named_plan(e);
  auto flat = codegen::schedule(eplan.steps[0], eplan);
  CHECK_FALSE(flat.tile);
  CHECK(flat.unroll == 4);
  CHECK(flat.items_per_block == 1024);
  // a long sum: one output per thread and pass
  auto lplan = codegen::make_named_plan(sum_program({997}));
  CHECK(codegen::schedule(lplan.steps[0], lplan).unroll == 1);
}

TEST_CASE("kernels: indices are int where every value fits, 64-bit otherwise") {
  auto A = f32("A", {7}), B = f32("B", {4, 30});
  auto wide = one(ir::make_scope({{"i", 0, 4}, {"j", 0, 30}}, {},
                                 ir::make_access(A, {(idx("i") * 30 + idx("j") + 3000000001LL).mod(7)}) *
                                     ir::make_access(B, {idx("i"), idx("j")})),
                  {A, B});
  auto plan = codegen::make_named_plan(wide);
  CHECK(codegen::schedule(plan.steps[0], plan).index == "std::int64_t");
  std::string cu = codegen::emit_cuda_source(as_written(wide), options_for("p", codegen::backend::cuda));
  CHECK(cu.find("std::uint64_t rest = static_cast<std::uint64_t>(o);") != std::string::npos);
  auto small = codegen::make_named_plan(ein::reify(ein_test::conv_nhwc));
  CHECK(codegen::schedule(small.steps[0], small).index == "int");
}

TEST_CASE("launches: blocks for the items, at most what the device keeps resident, at least one") {
  CHECK(runtime::launch_blocks(10000, 1024, 1056) == 10);
  CHECK(runtime::launch_blocks(1 << 24, 1024, 1056) == 1056);
  CHECK(runtime::launch_blocks(1, 1024, 1056) == 1);
  CHECK(runtime::launch_blocks(0, 1024, 1056) == 1);
}

}  // namespace kernel_emit_test
