// Writes the generated headers of the hand-built test programs (host and cuda backends, with the
// CUDA sources of the latter): the first stage of the two-stage codegen test, as ein_generate's
// driver does for a model. The paper's cases (paper_programs.hpp) and a generated family
// (searched_family.hpp) go through the search.
#include <cstdio>
#include <future>
#include <string>
#include <tuple>
#include <utility>

#include "codegen/e2e/generator_support.hpp"
#include "codegen/e2e/paper_programs.hpp"
#include "codegen/e2e/programs.hpp"
#include "codegen/e2e/searched_family.hpp"
#include "ein/ein_search.hpp"

namespace {

using ein_test::write_if_changed;

template <int Id>
void generate(const std::string& dir) {
  for (auto target : {ein::codegen::backend::host, ein::codegen::backend::cuda}) {
    auto o = ein_test::generated_options(ein_test::object_names[Id], "codegen/e2e/programs.hpp",
                                         ein::program_key(ein_test::hand_program<Id>{}), target);
    auto p = ein::plan::make_plan(ein::reify(ein_test::hand_program<Id>{}), ein_test::generated_capabilities(target));
    write_if_changed(dir + "/" + o.name + ".hpp", ein::codegen::emit_header(p, o));
    if (target == ein::codegen::backend::cuda)
      write_if_changed(dir + "/" + o.name + ".cu", ein::codegen::emit_cuda_source(p, o));
  }
}

template <int... Id>
void generate_all(const std::string& dir, std::integer_sequence<int, Id...>) {
  (generate<Id>(dir), ...);
}

// The generated programs: host headers only, and one header including them all.
template <int K>
void generate_fuzz(const std::string& dir, std::string& all) {
  constexpr int id = ein_test::fuzz_base + K;
  ein::codegen::options o;
  o.name = "hand_fuzz_" + std::to_string(K);
  o.model_header = "codegen/e2e/programs.hpp";
  o.object = "ein_test::fuzz<" + std::to_string(K) + ">";
  o.key = ein::program_key(ein_test::hand_program<id>{});
  auto p = ein::plan::make_plan(ein::reify(ein_test::hand_program<id>{}),
                                ein_test::generated_capabilities(ein::codegen::backend::host));
  write_if_changed(dir + "/" + o.name + ".hpp", ein::codegen::emit_header(p, o));
  all += "#include \"ein_generated/" + o.name + ".hpp\"\n";
}

template <int... K>
void generate_fuzz_all(const std::string& dir, std::integer_sequence<int, K...>) {
  std::string all = "// The generated headers of the fuzz programs of codegen/e2e/programs.hpp.\n#pragma once\n\n";
  (generate_fuzz<K>(dir, all), ...);
  write_if_changed(dir + "/hand_fuzz_all.hpp", all);
}

// The paper's cases: each searched once under the H100 model with generated loops at 5% of peak
// (h100_sxm5_slow_loops.json: at 30% the cases' convolutions as written are predicted cheaper
// than the paper's plans, and the search keeps them) as the cuda backend with cuDNN runs it, and that program (the rediscovered one) written for both backends: the host runs what the
// cuda header holds, its library's kernels as calls and the others as loops, so the interpreter
// checks the very program the search chose for the GPU.
template <int K>
ein::search::optimized_program search_paper_case(const ein::cost::model& model) {
  constexpr int id = ein_test::searched_base + K;
  // priced as a cuda build that links cuDNN runs kernels: cuBLAS GEMMs, cuDNN convolutions
  return ein::search::optimize_program(ein::reify(ein_test::hand_program<id>{}), ein::derive::intra_rules(), model,
                                       {}, {}, ein::codegen::capabilities_of(ein::codegen::backend::cuda, false, true));
}

template <int K>
void generate_searched(const std::string& dir, const ein::search::optimized_program& searched) {
  constexpr int id = ein_test::searched_base + K;
  std::printf("%s\n%s", ein_test::searched_names[K], searched.report().c_str());
  for (auto target : {ein::codegen::backend::host, ein::codegen::backend::cuda}) {
    auto o = ein_test::generated_options(ein_test::searched_names[K], "codegen/e2e/paper_programs.hpp",
                                         ein::program_key(ein_test::hand_program<id>{}), target);
    o.search = "optimize_program, roofline h100_sxm5_slow_loops.json; " + searched.summary();
    auto p = ein::search::make_plan(searched, ein_test::generated_capabilities(target));
    write_if_changed(dir + "/" + o.name + ".hpp", ein::codegen::emit_header(p, o));
    if (target == ein::codegen::backend::cuda)
      write_if_changed(dir + "/" + o.name + ".cu", ein::codegen::emit_cuda_source(p, o));
  }
}

template <int... K>
void generate_searched_all(const std::string& dir, std::integer_sequence<int, K...>) {
  ein::cost::roofline h100(ein::cost::load_profile(std::string(EIN_PROFILE_DIR) + "/h100_sxm5_slow_loops.json"));
  // The cases are independent: searched at once (each search is single-threaded here).
  std::tuple searches{std::async(std::launch::async, [&] { return search_paper_case<K>(h100); })...};
  (generate_searched<K>(dir, std::get<K>(searches).get()), ...);
}

// The generated family: each searched quickly (one explorative and two converging steps) for
// a host build with the test's libraries under the host profile (host_assumed.json), its plan
// written as a host header.
template <int K>
void generate_family(const std::string& dir, const ein::cost::model& model) {
  constexpr int id = ein_test::family_base + K;
  auto caps = ein_test::generated_capabilities(ein::codegen::backend::host);
  ein::search::options quick;
  quick.explore_depth = 1;
  quick.converge_depth = 2;
  auto r = ein::search::optimize_program(ein::reify(ein_test::hand_program<id>{}), ein::derive::intra_rules(), model,
                                         quick, {}, caps);
  ein::codegen::options o;
  o.name = "hand_family_" + std::to_string(K);
  o.model_header = "codegen/e2e/searched_family.hpp";
  o.object = "ein_test::family_program<" + std::to_string(K) + ">";
  o.key = ein::program_key(ein_test::hand_program<id>{});
  o.search = "optimize_program, explore depth 1, converge depth 2, roofline host_assumed.json; " + r.summary();
  write_if_changed(dir + "/" + o.name + ".hpp", ein::codegen::emit_header(ein::search::make_plan(r, caps), o));
}

template <int... K>
void generate_family_all(const std::string& dir, std::integer_sequence<int, K...>) {
  ein::cost::roofline host(ein::cost::load_profile(std::string(EIN_PROFILE_DIR) + "/host_assumed.json"));
  (generate_family<K>(dir, host), ...);
}

}  // namespace

int main(int argc, char** argv) {
  return ein_test::generator_main(argc, argv, [](const std::string& dir) {
    generate_all(dir, std::make_integer_sequence<int, ein_test::program_count>{});
    generate_fuzz_all(dir, std::make_integer_sequence<int, ein_test::fuzz_count>{});
    generate_searched_all(dir, std::make_integer_sequence<int, ein_test::searched_count>{});
    generate_family_all(dir, std::make_integer_sequence<int, ein_test::family_count>{});
  });
}
