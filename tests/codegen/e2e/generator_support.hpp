// What the stage-one generators of the codegen tests share: which libraries the test links and
// so which library calls its plans make, the options of a generated file, writing a generated
// file only when it changes, and their main.
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>

#include "ein/codegen/backend.hpp"
#include "ein/codegen/options.hpp"
#include "ein/plan/capabilities.hpp"

namespace ein_test {

// Host plans call CBLAS where the test links one (as ein_generate's driver does).
#if defined(EIN_HAVE_CBLAS)
inline constexpr bool have_cblas = true;
#else
inline constexpr bool have_cblas = false;
#endif

// cuda plans call cuDNN for compute-bound convolutions where the test links it.
#if defined(EIN_HAVE_CUDNN)
inline constexpr bool have_cudnn = true;
#else
inline constexpr bool have_cudnn = false;
#endif

/// The library calls plans for `target` make where the test's libraries are linked, as
/// ein_generate's driver decides them (codegen::capabilities_of).
inline ein::plan::capabilities generated_capabilities(ein::codegen::backend target) {
  return ein::codegen::capabilities_of(target, have_cblas, have_cudnn);
}

/// The options of the generated file of program object `ein_test::<object>` (declared in
/// `model_header`, program key `key`) for `target`: named `hand_<object>`, `hand_<object>_cuda`
/// for the cuda backend.
inline ein::codegen::options generated_options(const std::string& object, const char* model_header,
                                               std::uint64_t key, ein::codegen::backend target) {
  ein::codegen::options o;
  bool cuda = target == ein::codegen::backend::cuda;
  o.name = "hand_" + object + (cuda ? "_cuda" : "");
  o.model_header = model_header;
  o.object = "ein_test::" + object;
  o.key = key;
  o.target = target;
  return o;
}

/// Rewrites `path` only when its content changes, so unchanged headers trigger no rebuild.
inline void write_if_changed(const std::string& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream old;
  old << in.rdbuf();
  if (in && old.str() == text) return;
  std::ofstream(path, std::ios::binary) << text;
}

/// The main of a generator: `generate(dir)` for its one argument, the output directory. Returns
/// the exit status: 0, 1 when generating throws (its message printed), 2 on bad arguments.
template <class Generate>
int generator_main(int argc, char** argv, Generate generate) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
    return 2;
  }
  try {
    generate(std::string(argv[1]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace ein_test
