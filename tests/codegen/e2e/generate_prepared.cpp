// Writes the generated headers of the prepared-plan test programs (prepared_programs.hpp): host
// and cuda backends (with the CUDA sources of the latter), the first two as written, the last
// through the search, as ein_generate's driver writes a searched plan.
#include <string>
#include <utility>

#include "codegen/e2e/generator_support.hpp"
#include "codegen/e2e/prepared_programs.hpp"
#include "ein/ein_search.hpp"

namespace {

using ein_test::write_if_changed;

template <int K>
void generate(const std::string& dir, const ein::cost::model& model) {
  constexpr int id = ein_test::prepared_base + K;
  constexpr bool searched = K == ein_test::prepared_count - 1;
  auto source = ein::reify(ein_test::hand_program<id>{});
  ein::search::optimized_program found;
  if constexpr (searched) {
    ein::search::options opts;
    opts.explore_depth = 1;
    found = ein::search::optimize_program(source, ein::derive::intra_rules(), model, opts);
  }
  for (auto target : {ein::codegen::backend::host, ein::codegen::backend::cuda}) {
    auto o = ein_test::generated_options(ein_test::prepared_names[K], "codegen/e2e/prepared_programs.hpp",
                                         ein::program_key(ein_test::hand_program<id>{}), target);
    auto caps = ein_test::generated_capabilities(target);
    auto p = ein::plan::make_plan(source, caps);
    if constexpr (searched) {
      auto r = ein::search::for_backend(found, model, caps);
      o.search = "optimize_program, explore depth 1, roofline h100_sxm5.json; " + r.summary();
      p = ein::search::make_plan(r, caps);
    }
    write_if_changed(dir + "/" + o.name + ".hpp", ein::codegen::emit_header(p, o));
    if (target == ein::codegen::backend::cuda)
      write_if_changed(dir + "/" + o.name + ".cu", ein::codegen::emit_cuda_source(p, o));
  }
}

template <int... K>
void generate_all(const std::string& dir, std::integer_sequence<int, K...>) {
  ein::cost::roofline h100(ein::cost::load_profile(std::string(EIN_PROFILE_DIR) + "/h100_sxm5.json"));
  (generate<K>(dir, h100), ...);
}

}  // namespace

int main(int argc, char** argv) {
  return ein_test::generator_main(argc, argv, [](const std::string& dir) {
    generate_all(dir, std::make_integer_sequence<int, ein_test::prepared_count>{});
  });
}
