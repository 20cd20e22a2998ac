// What the host timer runs is the plan: a generated family of programs, planned for host builds
// with CBLAS or oneDNN, compiled together by the build's toolchain into shared objects, loaded
// and run prepared, equals the interpreter on the same random inputs, in float and in 16 bits; a
// source the compiler refuses is a user_error quoting it.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ein/codegen/backend.hpp"
#include "ein/derive/positions.hpp"
#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/measure/host_batch.hpp"
#include "ein/measure/precompiled_prelude.hpp"
#include "search/program_family.hpp"
#include "search/rediscover_support.hpp"

namespace host_batch_test {

using namespace ein;

// A host build with CBLAS, one with oneDNN alone (a build with both binds a convolution's batch of
// products first, as a program taken as written does), and one with both, whose float products
// run on oneDNN's sgemm.
const ein::plan::capabilities& blas_build() {
  static const auto c = codegen::capabilities_of(codegen::backend::host, true, false, false);
  return c;
}
const ein::plan::capabilities& onednn_build() {
  static const auto c = codegen::capabilities_of(codegen::backend::host, false, false, true);
  return c;
}
const ein::plan::capabilities& both_build() {
  static const auto c = codegen::capabilities_of(codegen::backend::host, true, false, true);
  return c;
}

// Case `i` of `batch` (the plan of `p`), run prepared on random buffers from `seed`, against the
// interpreter on the values those buffers hold: the largest relative error of its outputs. Every
// buffer holds values of its tensor's type.
double error_against_interpreter(const measure::host_batch& batch, std::size_t i, const ir::program& p,
                                 std::uint64_t seed) {
  auto c = batch.prepare(i, seed);
  c->run();
  eval::bindings env;
  for (auto& t : p.tensors) {
    eval::dense d(t.shape);
    d.data = c->values(t.name);
    REQUIRE(d.data.size() == static_cast<std::size_t>(eval::dense::count(t.shape)));
    for (double v : d.data) REQUIRE(v == eval::stored_value(v, t.type));
    env[t.name] = std::move(d);
  }
  auto reference = eval::evaluate(p, env);
  double worst = 0;
  for (auto& out : p.outputs) {
    eval::dense got(reference.at(out).shape, reference.at(out).lower);
    got.data = c->values(out);
    worst = std::max(worst, eval::max_rel_error(got, reference.at(out)));
  }
  return worst;
}

TEST_CASE("host_batch: a family of plans compiled together runs as the plans, equal to the interpreter") {
  auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  std::vector<ir::program> programs;
  std::vector<codegen::timing_case> cases;
  std::size_t blas = 0, onednn = 0, onednn_products = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    programs.push_back(program_family::chain(seed));
  }
  // convolutions large enough for oneDNN: strided, padded, dilated, transposed
  for (auto& conv : {search_test::conv_nhwc(1, 14, 32, 32, 3, 3, 1, 1, 1, 1), search_test::conv_nhwc(2, 15, 24, 40, 3, 3, 2, 1, 1, 1),
                     search_test::conv_nhwc(1, 12, 32, 16, 3, 3, 1, 2, 2, 2), search_test::conv_transpose(1, 8, 32, 16, 4, 2, 1)}) {
    ir::program p;
    p.name = "conv";
    std::map<std::string, ir::tensor> tensors;
    search_test::collect_tensors(*conv, tensors);
    for (auto& [name, t] : tensors) p.tensors.push_back(t);
    p.definitions = {{"y", conv, ir::dtype::f32}};
    p.outputs = {"y"};
    programs.push_back(p);
  }
  for (std::size_t i = 0; i < programs.size(); ++i) {
    auto plan = ein::plan::make_plan(programs[i], i % 4 == 1 || i >= 12 ? onednn_build()
                                                  : i % 4 == 3             ? both_build()
                                                                           : blas_build());
    for (auto& k : plan.kernels)
      if (k.call) (k.call->library == ein::plan::blas ? blas : onednn) += 1;
    for (auto& k : plan.kernels)
      onednn_products += k.call && k.call->library == ein::plan::blas &&
                         codegen::host_gemm_of(plan.bound_for) == codegen::library::host_gemm::onednn;
    cases.push_back({"family_" + std::to_string(i), std::move(plan)});
  }
  // the family reaches every kind of step the host emits
  CHECK(blas > 0);
  CHECK(onednn > 0);
  CHECK(onednn_products > 0);
  measure::batch_options o;
  o.cases_per_source = 5;  // three sources, compiled two at a time
  measure::host_batch batch(std::move(cases), toolchain, codegen::accumulation::element, o);
  REQUIRE(batch.size() == programs.size());
  for (std::size_t i = 0; i < programs.size(); ++i) {
    auto& p = programs[i];
    CAPTURE(ir::to_string(p));
    CHECK(error_against_interpreter(batch, i, p, 100 + i) < 1e-4);
  }
}

namespace {

// `p` in element type `t`: every tensor, every access to it and every definition.
ir::program in_type(ir::program p, ir::dtype t) {
  for (auto& x : p.tensors) x.type = t;
  for (auto& d : p.definitions) {
    d.type = t;
    auto body = derive::map_accesses_deep(d.value->body, [&](const ir::access& a) -> ir::expr {
      auto* x = std::get_if<ir::tensor>(&a.source);
      if (!x) return nullptr;
      auto typed = *x;
      typed.type = t;
      return ir::make_access(std::move(typed), a.index);
    });
    d.value = ir::make_scope(d.value->traversal, d.value->summation, std::move(body), d.value->reduce);
  }
  return p;
}

}  // namespace

TEST_CASE("host_batch: plans of half and bfloat16 programs run on buffers of their types, equal to the interpreter") {
  auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  std::vector<ir::program> programs;
  std::vector<codegen::timing_case> cases;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    programs.push_back(in_type(program_family::chain(seed), seed % 2 ? ir::dtype::bf16 : ir::dtype::f16));
    cases.push_back({"narrow_" + std::to_string(seed), ein::plan::make_plan(programs.back(), both_build())});
  }
  measure::host_batch batch(std::move(cases), toolchain, codegen::accumulation::element);
  for (std::size_t i = 0; i < programs.size(); ++i) {
    auto& p = programs[i];
    CAPTURE(ir::to_string(p));
    // a unit in the last place per definition: the plan and the interpreter round each one
    const double unit = p.tensors.front().type == ir::dtype::f16 ? 0x1p-10 : 0x1p-7;
    CHECK(error_against_interpreter(batch, i, p, 200 + i) <= unit * static_cast<double>(p.definitions.size()) + 1e-4);
  }
}

TEST_CASE("host_batch: a source the compiler refuses is a user_error quoting the compiler") {
  auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  auto dir = std::filesystem::temp_directory_path() / "ein_host_batch_refused";
  std::filesystem::create_directories(dir);
  auto source = (dir / "bad.cpp").string();
  std::ofstream(source) << "int main( {\n";
  try {
    measure::compile_shared_objects(toolchain, {source}, {(dir / "bad.so").string()}, 2);
    FAIL("the compiler accepted a broken source");
  } catch (const user_error& e) {
    std::string what = e.what();
    CHECK(what.find("could not compile " + source) != std::string::npos);
    CHECK(what.find("error") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("host_batch: the timing sources' prelude is precompiled once, and GCC takes the precompiled form") {
  const auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  const std::string folder = measure::precompiled_prelude(toolchain);
  CHECK(measure::precompiled_prelude(toolchain) == folder);  // once per process
#if defined(__GNUC__) && !defined(__clang__)  // the toolchain's compiler is the one compiling this test
  REQUIRE_FALSE(folder.empty());
  const auto precompiled = std::filesystem::path(folder) / "ein/runtime/timing_prelude.hpp.gch";
  CHECK(std::filesystem::exists(precompiled));
  // a source that includes the prelude first, compiled as a batch is: -H marks a precompiled
  // header taken with `!`
  const auto dir = std::filesystem::temp_directory_path() / "ein_host_batch_prelude";
  std::filesystem::create_directories(dir);
  const auto source = (dir / "uses.cpp").string(), log = (dir / "uses.log").string();
  std::ofstream(source) << "#include \"ein/runtime/timing_prelude.hpp\"\nint used() { return 0; }\n";
  std::vector<std::string> argv{toolchain.compiler};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  argv.push_back("-I" + folder);
  for (auto& d : toolchain.include_directories) argv.push_back("-I" + d);
  argv.insert(argv.end(), {"-fPIC", "-H", "-c", "-o", (dir / "uses.o").string(), source});
  REQUIRE(measure::detail::run_logged(argv, log) == 0);
  const std::string included = measure::detail::file_text(log);
  CAPTURE(included.substr(0, 2000));
  CHECK(included.find("! " + precompiled.string()) != std::string::npos);
  CHECK(included.find("runtime/bindings.hpp") == std::string::npos);  // not read again
  std::filesystem::remove_all(dir);
#endif
}

TEST_CASE("host_toolchain: a malformed toolchain file is a user_error naming the field") {
  auto path = (std::filesystem::temp_directory_path() / "ein_toolchain_test.json").string();
  struct bad {
    std::string text, field;
  };
  for (auto& [text, field] : std::vector<bad>{{"{\"flags\": [], \"include_directories\": []}", "missing field `compiler`"},
                                              {"{\"compiler\": \"c++\", \"flags\": \"-O3\", \"include_directories\": []}",
                                               "at /flags: expected an array"},
                                              {"{\"compiler\": \"c++\", \"flags\": [1], \"include_directories\": []}",
                                               "at /flags/0: expected a string"},
                                              {"{\"compiler\": \"\", \"flags\": [], \"include_directories\": []}",
                                               "at /compiler"},
                                              {"{\"compiler\": \"c++\", \"flags\": [], \"include_directories\": [], "
                                               "\"linker\": 1}",
                                               "at /linker: unknown field"},
                                              {"{\"compiler\"", "not valid JSON"}}) {
    CAPTURE(text);
    std::ofstream(path, std::ios::trunc) << text;
    try {
      measure::read_host_toolchain(path);
      FAIL("accepted a malformed toolchain");
    } catch (const user_error& e) {
      std::string what = e.what();
      CHECK(what.find("host toolchain `" + path + "`") != std::string::npos);
      CHECK(what.find(field) != std::string::npos);
    }
  }
  std::filesystem::remove(path);
  CHECK_THROWS_AS(measure::read_host_toolchain(path), user_error);
}

}  // namespace host_batch_test
