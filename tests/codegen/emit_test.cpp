// The emitters' pieces: the writer, index ranges and text, padding checks only where needed,
// the plan layout, determinism of the header and the report.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "codegen/e2e/paper_programs.hpp"  // before programs.hpp: it declares ein::reify of them
#include "codegen/e2e/programs.hpp"
#include "codegen/emit_options.hpp"
#include "ein/codegen/cuda_source.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/report.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/runtime/eoperator.hpp"

namespace emit_test {

using namespace ein;
using ir::idx;
using codegen_test::as_written;
using codegen_test::options_for;

namespace {

// The whole number written right after the first `prefix` in `text`, or −1 where there is none.
std::int64_t number_after(const std::string& text, const std::string& prefix) {
  auto at = text.find(prefix);
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + prefix.size()));
}

codegen::iterator_box box_of(std::vector<ir::iterator> its) {
  codegen::iterator_box b;
  for (auto& i : its) b.add(i, "i_" + i.name);
  return b;
}

}  // namespace

TEST_CASE("writer: indentation, blocks, comments") {
  codegen::writer w;
  w.comment("one\n\ntwo");
  w.open("for (int i = 0; i < 3; ++i)");
  w.line("x += i;");
  w.line();
  w.close();
  w.open_namespace("a::b");
  w.line("int y;");
  w.close_namespace("a::b");
  CHECK(w.str() == "// one\n//\n// two\nfor (int i = 0; i < 3; ++i) {\n  x += i;\n\n}\n"
                   "namespace a::b {\nint y;\n}  // namespace a::b\n");
}

TEST_CASE("writer::nested closes what was opened after it, and nothing when an exception leaves it") {
  codegen::writer w;
  w.open("f()");
  {
    codegen::writer::nested loops(w);
    w.open("for (i)");
    w.open("for (j)");
    w.line("x;");
  }
  CHECK(w.depth() == 1);
  CHECK(w.str() == "f() {\n  for (i) {\n    for (j) {\n      x;\n    }\n  }\n");
  const std::string before = w.str();
  try {
    codegen::writer::nested loops(w);
    w.open("for (k)");
    throw std::runtime_error("an emitter failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(w.depth() == 2);  // left open: the text is abandoned
  CHECK(w.str() == before + "  for (k) {\n");
}

TEST_CASE("bounds: exact for linear indices, safe for floor division and modulo") {
  auto box = box_of({{"h", 0, 7}, {"r", 0, 3}, {"t", -3, 13}});
  auto b = codegen::bounds(idx("h") + idx("r") - 1, box);
  CHECK(b.lo == -1);
  CHECK(b.hi == 7);
  b = codegen::bounds(idx("h") * -2 + 5, box);
  CHECK(b.lo == -7);
  CHECK(b.hi == 5);
  b = codegen::bounds(idx("t").floordiv(4), box);
  CHECK(b.lo == -1);
  CHECK(b.hi == 3);
  b = codegen::bounds(idx("t").mod(4), box);
  CHECK(b.lo == 0);
  CHECK(b.hi == 3);
  b = codegen::bounds((idx("r") + 4).mod(8), box);  // one period: [4, 6]
  CHECK(b.lo == 4);
  CHECK(b.hi == 6);
  CHECK_THROWS_AS(codegen::bounds(idx("q"), box), user_error);
}

TEST_CASE("index text: plain / and % only for dividends that cannot be negative") {
  auto box = box_of({{"h", 0, 7}, {"t", -3, 13}});
  CHECK(codegen::index_text(idx("h") * 2 - 1, box) == "2 * i_h - 1");
  CHECK(codegen::index_text(ir::affine(-4), box) == "-4");
  CHECK(codegen::index_text((idx("h") + 1).floordiv(2), box) == "((i_h + 1) / 2)");
  CHECK(codegen::index_text((idx("t") + 3).mod(4) * 3, box) == "3 * ((i_t + 3) % 4)");
  CHECK(codegen::index_text(idx("t").mod(4), box) == "ein::runtime::floor_mod(i_t, 4)");
  CHECK(codegen::index_text(idx("h").mod(4), box) == "(i_h % 4)");
  CHECK(codegen::int_text(5000000000) == "5000000000LL");
}

TEST_CASE("padding checks are emitted only for reads that can leave their box") {
  auto p = ein::reify(ein_test::conv_nhwc);
  std::string h = codegen::emit_header(as_written(p), options_for("conv"));
  // A's h and w indices can leave [0, 5) and [0, 6); the channel index and all of K cannot.
  CHECK(h.find("static_cast<std::uint64_t>(i_h + i_r - 1) < 5ULL") != std::string::npos);
  CHECK(h.find("static_cast<std::uint64_t>(i_s + i_w - 1) < 6ULL") != std::string::npos);
  CHECK(h.find("static_cast<std::uint64_t>(i_c") == std::string::npos);
  CHECK(h.find("? static_cast<double>(t_K") == std::string::npos);
  auto m = ein::reify(ein_test::matmul);
  CHECK(codegen::emit_header(as_written(m), options_for("mm")).find(" ? ") == std::string::npos);
}

TEST_CASE("a read that can never be inside its box is the constant 0") {
  ir::tensor A{"A", ir::dtype::f32, {4}};
  ir::program p{"p", {A}, {{"out", ir::make_scope({{"i", 0, 3}}, {}, ir::make_access(A, {idx("i") + 10})),
                           ir::dtype::f32}}, {"out"}};
  CHECK(codegen::emit_header(as_written(p), options_for("far")).find("static_cast<float>(0.0f)") != std::string::npos);
}

TEST_CASE("layout: nested scopes become temporaries computed before their readers") {
  auto p = ein::reify(ein_test::nested);
  auto plan = codegen::make_named_plan(p);
  REQUIRE(plan.steps.size() == 4);
  std::vector<std::string> order;
  for (auto& s : plan.steps) order.push_back(plan.buffers[s.target].name);
  CHECK(order == std::vector<std::string>{"out.1", "out.3", "out.2", "out"});
  CHECK(plan.buffers[plan.steps[0].target].lower == std::vector<std::int64_t>{-1, 0});
  CHECK(plan.buffers[plan.steps.back().target].role == codegen::buffer::kind::output);
}

TEST_CASE("layout: bad programs are user errors naming the tensor") {
  ir::tensor A{"A", ir::dtype::f32, {4}}, B{"B", ir::dtype::f32, {4}};
  ir::program p{"p", {A}, {{"out", ir::make_scope({{"i", 0, 4}}, {}, ir::make_access(B, {idx("i")})),
                           ir::dtype::f32}}, {"out"}};
  CHECK_THROWS_WITH_AS(codegen::make_named_plan(p), doctest::Contains("tensor `B` is not a tensor of the program"),
                       user_error);
  p.tensors.push_back(B);
  p.outputs = {"missing"};
  CHECK_THROWS_WITH_AS(codegen::make_named_plan(p), doctest::Contains("output `missing` names no tensor or definition"),
                       user_error);
}

TEST_CASE("identifiers: invalid characters replaced, repeats made unique") {
  codegen::identifier_table ids;
  CHECK(ids.make("t_", "conv.1") == "t_conv_1");
  CHECK(ids.make("t_", "conv_1") == "t_conv_1_2");
  CHECK(ids.make("t_", "conv-1") == "t_conv_1_3");
}

TEST_CASE("the header is deterministic and carries the freshness check and the plan") {
  auto p = ein::reify(ein_test::two_definitions);
  auto o = options_for("two");
  std::string h = codegen::emit_header(as_written(p), o);
  CHECK(h == codegen::emit_header(as_written(ein::reify(ein_test::two_definitions)), o));
  CHECK(h.find("static_assert(ein::program_key(::model::net) == 0x0000000000001234ULL,") != std::string::npos);
  CHECK(h.find("is stale: the program model::net changed") != std::string::npos);
  CHECK(h.find("struct generated_plan<std::remove_cvref_t<decltype(::model::net)>>") != std::string::npos);
  CHECK(h.find("__global__") == std::string::npos);
  CHECK(h.find("#include \"model.hpp\"") != std::string::npos);
  // cuda: the header stays host C++ and calls the entry point of the CUDA source, whose name
  // carries the key
  auto cuda = options_for("two", codegen::backend::cuda);
  auto c = codegen::emit_header(as_written(p), cuda);
  CHECK(c.find("__global__") == std::string::npos);
  CHECK(c.find("static constexpr backend target = backend::cuda;") != std::string::npos);
  CHECK(c.find("ein_generated::two::run_cuda_0000000000001234(b, s);") != std::string::npos);
  auto cu = codegen::emit_cuda_source(as_written(p), cuda);
  CHECK(cu == codegen::emit_cuda_source(as_written(ein::reify(ein_test::two_definitions)), cuda));
  CHECK(cu.find("model.hpp") == std::string::npos);
  CHECK(cu.find("static __global__ void __launch_bounds__(256) eop_h_kernel(") != std::string::npos);
  CHECK(cu.find("void run_cuda_0000000000001234(const ein::runtime::bindings& b, ein::runtime::stream s) {") != std::string::npos);
  CHECK(cu.find("EIN_CUDA_CHECK(cudaGetLastError());") != std::string::npos);
  CHECK(cu.find("ein::runtime::expect_device_pointer(\"A\", t_A);") != std::string::npos);
  // h is an output, bound by the caller; the nested matmul inside it is a device temporary, in
  // the run's block of temporaries, aligned for the device (where in the block is
  // place_temporaries' choice, tested in tests/plan/memory_test.cpp)
  CHECK(cu.find("float* t_h = reinterpret_cast") == std::string::npos);
  std::int64_t nested_bytes = 0;
  for (auto& b : codegen::make_named_plan(as_written(p)).buffers)
    if (b.variable == "t_h_1") nested_bytes = b.count() * ir::element_bytes(b.type);
  REQUIRE(nested_bytes > 0);
  const auto block = number_after(cu, "ein::runtime::device_buffer<std::byte> ein_temporaries(");
  const auto at = number_after(cu, "float* t_h_1 = reinterpret_cast<float*>(ein_temporaries.data() + ");
  REQUIRE(at >= 0);
  CHECK(at % 256 == 0);
  CHECK(at + nested_bytes <= block);
}

TEST_CASE("the report lists each step as an eOperator and marks the search as not run") {
  auto p = ein::reify(ein_test::nested);
  auto r = codegen::report(as_written(p), options_for("nested"));
  CHECK(r["search"] == "none (instantiate as written)");
  CHECK(r["statistics"]["states_visited"].is_null());
  CHECK(r["program_key"] == "0x0000000000001234");
  REQUIRE(r["plan"].size() == 4);
  CHECK(r["plan"][3]["definition"] == "out");
  CHECK(r["plan"][3]["kind"] == "eoperator");
  CHECK(r["plan"][3]["dtype"] == "float");
  CHECK(r["plan"][3]["output"] == true);
  CHECK(r["plan"][0]["output"] == false);
  CHECK(ir::from_json<ir::scope>(nlohmann::json(r["plan"][3]["ir"])).traversal.size() == 1);
  CHECK(r.dump() == codegen::report(as_written(ein::reify(ein_test::nested)), options_for("nested")).dump());
}

TEST_CASE("every unary function of the IR has runtime functions (double, float) that agree with the interpreter") {
  for (double x : {-2.5, -0.3, 0.0, 0.7, 3.0}) {
    CAPTURE(x);
// Outside a function's domain (sqrt of a negative) both must be NaN.
#define EIN_CHECK_UNARY_FN(n)                                                                              \
  {                                                                                                        \
    double want = eval::detail::apply(ir::unary_fn::n, x);                                                 \
    double got = ein::runtime::fn::n(x);                                                                   \
    double got_float = static_cast<double>(ein::runtime::fn::n(static_cast<float>(x)));                   \
    CHECK((std::isnan(want) ? std::isnan(got) : got == doctest::Approx(want).epsilon(1e-15)));             \
    CHECK((std::isnan(want) ? std::isnan(got_float) : got_float == doctest::Approx(want).epsilon(1e-6)));  \
  }
    EIN_FOR_EACH_UNARY_FN(EIN_CHECK_UNARY_FN)
#undef EIN_CHECK_UNARY_FN
  }
}

TEST_CASE("floor division and modulo of the runtime round towards negative infinity") {
  for (std::int64_t a = -9; a <= 9; ++a)
    for (std::int64_t d : {1, 2, 3, 7}) {
      CHECK(ein::runtime::floor_div(a, d) == ir::floor_div(a, d));
      CHECK(ein::runtime::floor_mod(a, d) == ir::floor_mod(a, d));
    }
}

TEST_CASE("a large host eOperator shares its outer loops and starts each iteration's output offset") {
  auto p = ein::reify(ein_test::paper_conv5x5);
  std::string h = codegen::emit_header(as_written(p), options_for("big"));
  CHECK(h.find("EIN_PARALLEL_FOR(") != std::string::npos);
  CHECK(h.find("std::int64_t o = 0;") == std::string::npos);
  CHECK(h.find("ein::runtime::store_lanes<8>(") != std::string::npos);
}

}  // namespace emit_test
