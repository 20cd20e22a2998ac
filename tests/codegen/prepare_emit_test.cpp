// How a prepared plan splits a layout (codegen::make_preparation) and what the emitters write for
// it: the weight transforms in prepare(), the other steps in run_prepared(), on both backends.
#include <doctest/doctest.h>

#include <string>

#include "codegen/e2e/prepared_programs.hpp"
#include "ein/codegen/cuda_source.hpp"
#include "ein/codegen/header.hpp"
#include "ein/codegen/report.hpp"

namespace prepare_emit_test {

namespace {

namespace codegen = ein::codegen;

// The step of `plan` that writes buffer `name`.
std::size_t step_of(const codegen::named_plan& plan, const std::string& name) {
  for (std::size_t k = 0; k < plan.steps.size(); ++k)
    if (plan.buffers[plan.steps[k].target].name == name) return k;
  FAIL("no step writes " << name);
  return 0;
}

// The text of the function of `source` that begins with `head`, to its closing brace.
std::string function(const std::string& source, const std::string& head) {
  auto from = source.find(head);
  REQUIRE(from != std::string::npos);
  return source.substr(from, source.find("\n}\n", from) - from);
}

// Where prepare() keeps buffer `name` in its storage (make_preparation).
std::int64_t stored_at(const codegen::named_plan& plan, const codegen::preparation& prep, const std::string& name) {
  for (std::size_t i = 0; i < prep.stored.size(); ++i)
    if (plan.buffers[prep.stored[i]].name == name) return prep.offset[i];
  FAIL("prepare() keeps no " << name);
  return -1;
}

codegen::options cuda_options(const char* name) {
  codegen::options o;
  o.name = name;
  o.object = std::string("ein_test::") + name;
  o.key = 0x5678;
  o.target = codegen::backend::cuda;
  return o;
}

}  // namespace

TEST_CASE("make_preparation: transforms into temporaries are prepared; what later steps read is kept") {
  auto plan = codegen::make_named_plan(ein::reify(ein_test::prepared_chain));
  auto prep = codegen::make_preparation(plan);
  CHECK(prep.in_prepare[step_of(plan, "t1")]);
  CHECK(prep.in_prepare[step_of(plan, "t2")]);
  CHECK(prep.in_prepare[step_of(plan, "out.1")]);  // a nested scope reading a weight only
  // wsum reads weights only, but it is an output: bound, and so computed, at run time.
  CHECK(plan.steps[step_of(plan, "wsum")].weight_only);
  CHECK(!prep.in_prepare[step_of(plan, "wsum")]);
  CHECK(!prep.in_prepare[step_of(plan, "out")]);
  // t1 is read by t2 only, W by t1 only, V by t1 and out.1: none is kept.
  REQUIRE(prep.stored.size() == 2);
  CHECK(plan.buffers[prep.stored[0]].name == "t2");
  CHECK(plan.buffers[prep.stored[1]].name == "out.1");
  CHECK(prep.offset == std::vector<std::int64_t>{0, 512});
  CHECK(prep.bytes == 512 + 8 * 8);
}

TEST_CASE("the report says which steps ein::prepare runs and how much storage it takes") {
  auto p = ein::reify(ein_test::prepared_chain);
  auto plan = codegen::make_named_plan(p);
  auto prep = codegen::make_preparation(plan);
  auto r = codegen::report(ein::plan::make_plan(p, {}), cuda_options("prepared_chain"));
  CHECK(r["prepared_bytes"] == prep.bytes);
  REQUIRE(r["plan"].size() == plan.steps.size());
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    CAPTURE(r["plan"][k]["definition"]);
    CHECK(r["plan"][k]["in_prepare"] == static_cast<bool>(prep.in_prepare[k]));
  }
  CHECK(r["plan"][step_of(plan, "t1")]["in_prepare"] == true);
  CHECK(r["plan"][step_of(plan, "wsum")]["in_prepare"] == false);
}

TEST_CASE("make_preparation: a plan without transforms keeps the weights it reads, and no input") {
  auto plan = codegen::make_named_plan(ein::reify(ein_test::matmul));
  auto prep = codegen::make_preparation(plan);
  CHECK(prep.in_prepare == std::vector<bool>{false});
  REQUIRE(prep.stored.size() == 1);
  CHECK(plan.buffers[prep.stored[0]].name == "B");
  CHECK(prep.bytes == 6 * 7 * 4);
  auto none = codegen::make_preparation(codegen::make_named_plan(ein::reify(ein_test::elementwise)));
  CHECK(none.stored.empty());
  CHECK(none.bytes == 0);
}

TEST_CASE("the cuda backend: the header declares the prepared entry points, the source defines them") {
  auto o = cuda_options("prepared_relayout");
  auto p = ein::plan::make_plan(ein::reify(ein_test::prepared_relayout), {});
  std::string h = codegen::emit_header(p, o), cu = codegen::emit_cuda_source(p, o);
  for (auto* entry : {"void prepare_cuda_0000000000005678(const ein::runtime::bindings& b, void* storage, "
                      "ein::runtime::stream s)",
                      "void run_prepared_cuda_0000000000005678(const void* storage, const ein::runtime::bindings& b, "
                      "ein::runtime::stream s, [[maybe_unused]] ein::runtime::step_observer* observer)",
                      "void* allocate_prepared_cuda_0000000000005678()",
                      "void free_prepared_cuda_0000000000005678(void* storage) noexcept"}) {
    CAPTURE(entry);
    CHECK(h.find(std::string(entry) + ";") != std::string::npos);
    CHECK(cu.find(std::string(entry) + " {") != std::string::npos);
  }
  const auto plan = codegen::make_named_plan(p);
  const auto prep = codegen::make_preparation(plan);
  const std::string bytes = std::to_string(prep.bytes);
  CHECK(h.find("static constexpr std::size_t prepared_bytes = " + bytes + ";") != std::string::npos);
  CHECK(cu.find("return ein::runtime::allocate_device_storage(" + bytes + ");") != std::string::npos);
  std::string prepare = function(cu, "void prepare_cuda_"), run = function(cu, "void run_prepared_cuda_");
  CHECK(prepare.find("eop_Kt_kernel<<<") != std::string::npos);
  const auto& bias = plan.buffers[plan.by_name.at("bias")];
  CHECK(prepare.find("cudaMemcpyAsync(static_cast<std::byte*>(storage) + " + std::to_string(stored_at(plan, prep, "bias")) +
                     ", t_bias, " + std::to_string(bias.count() * 4) + ", cudaMemcpyDefault, s)") != std::string::npos);
  CHECK(prepare.find("EIN_CUDA_CHECK(cudaStreamSynchronize(s));") != std::string::npos);
  CHECK(prepare.find("expect_device_pointer(\"K\", t_K);") != std::string::npos);
  CHECK(run.find("eop_Kt_kernel") == std::string::npos);
  CHECK(run.find("b.expect_no_weights({\"A\", \"out\"}, {\"K\", \"bias\"});") != std::string::npos);
  CHECK(run.find("const float* t_Kt = reinterpret_cast<const float*>(static_cast<const std::byte*>(storage) + " +
                 std::to_string(stored_at(plan, prep, "Kt")) + ");") != std::string::npos);
  CHECK(run.find("expect_device_pointer(\"A\", t_A);") != std::string::npos);
  // ein::run still transforms on every call.
  CHECK(function(cu, "void run_cuda_").find("eop_Kt_kernel<<<") != std::string::npos);
}

TEST_CASE("the cuda backend: prepare() makes the stream's state; a prepared run is captured into a CUDA graph") {
  auto o = cuda_options("prepared_relayout");
  auto p = ein::plan::make_plan(ein::reify(ein_test::prepared_relayout), {});
  std::string h = codegen::emit_header(p, o), cu = codegen::emit_cuda_source(p, o);
  // every launch's resident blocks (the weight transform's too), made before prepare() needs them
  std::string make = function(cu, "static void make_state_cuda_0000000000005678(");
  CHECK(make.find("  eop_Kt_resident();\n") != std::string::npos);
  CHECK(cu.find("static void make_state_cuda_") < cu.find("void prepare_cuda_"));
  std::string prepare = function(cu, "void prepare_cuda_");
  CHECK(prepare.find("EIN_CUDA_CHECK(cudaStreamSynchronize(s));\n  make_state_cuda_0000000000005678(s);") !=
        std::string::npos);
  CHECK(function(cu, "void run_prepared_cuda_").find("make_state") == std::string::npos);
  // the graph entry points: declared by the header, defined by the source, called by the plan
  for (auto* entry : {"void* capture_cuda_0000000000005678(const void* storage, const ein::runtime::bindings& b)",
                      "void replay_cuda_0000000000005678(const void* graph, ein::runtime::stream s)",
                      "void free_graph_cuda_0000000000005678(void* graph) noexcept"}) {
    CAPTURE(entry);
    CHECK(h.find(std::string(entry) + ";") != std::string::npos);
    CHECK(cu.find(std::string(entry) + " {") != std::string::npos);
  }
  CHECK(cu.find("#include \"ein/runtime/cuda_graph.hpp\"") != std::string::npos);
  // captured on the graph's own stream, its state made there and one run made on scratch outputs
  // (the libraries' first-use work) before the capture begins
  std::string capture = function(cu, "void* capture_cuda_");
  CHECK(capture.find("return new ein::runtime::cuda_graph(\n"
                     "      [&](cudaStream_t own) {\n"
                     "        make_state_cuda_0000000000005678(own);\n"
                     "        const ein::runtime::scratch_outputs scratch(b, {{\"out\", 1440}}, own);\n"
                     "        run_prepared_cuda_0000000000005678(storage, scratch.get(), own, nullptr);\n"
                     "      },\n"
                     "      [&](cudaStream_t own) { run_prepared_cuda_0000000000005678(storage, b, own, nullptr); });") !=
        std::string::npos);
  CHECK(h.find("static void* capture(const void* storage, const bindings& b) {\n"
               "    return ein_generated::prepared_relayout::capture_cuda_0000000000005678(storage, b);") !=
        std::string::npos);
  CHECK(h.find("static void replay(const void* graph, stream s = nullptr) {") != std::string::npos);
  CHECK(h.find("static void free_graph(void* graph) noexcept {") != std::string::npos);
  // a host plan has none of it: ein::captured replays its runs
  auto host = o;
  host.target = codegen::backend::host;
  std::string hh = codegen::emit_header(p, host);
  CHECK(hh.find("capture") == std::string::npos);
  CHECK(hh.find("graph") == std::string::npos);
}

TEST_CASE("a plan without storage marks the storage parameters of its cuda entry points unused") {
  auto o = cuda_options("elementwise");
  std::string cu = codegen::emit_cuda_source(ein::plan::make_plan(ein::reify(ein_test::elementwise), {}), o);
  CHECK(cu.find("void prepare_cuda_0000000000005678(const ein::runtime::bindings& b, [[maybe_unused]] void* storage") !=
        std::string::npos);
  CHECK(cu.find("b.expect_weights_only({}, {\"A\", \"B\", \"out\"});") != std::string::npos);
  CHECK(cu.find("return ein::runtime::allocate_device_storage(0);") != std::string::npos);
}

}  // namespace prepare_emit_test
