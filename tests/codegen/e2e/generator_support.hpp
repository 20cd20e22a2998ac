// What the stage-one generators of the codegen tests share: which libraries the test links, and
// writing a generated file only when it changes.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

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

/// Rewrites `path` only when its content changes, so unchanged headers trigger no rebuild.
inline void write_if_changed(const std::string& path, const std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream old;
  old << in.rdbuf();
  if (in && old.str() == text) return;
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace ein_test
