// The timing sources' common header (ein/runtime/timing_prelude.hpp), precompiled once per
// process and toolchain: compiling it is most of what a small batch costs (with g++ -O3 on the
// 2-core build machine, 0.5 s of the 1.2 s a batch of eight eOperator schedules takes; 0.2 s with
// its precompiled form).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "ein/measure/host_toolchain.hpp"

namespace ein::measure {

namespace detail {

// Whether `t`'s compiler is GCC, which looks for `<header>.gch` beside each header it includes:
// its predefined macros (`-dM -E`, written to `log`) name __GNUC__ and not __clang__.
inline bool is_gcc(const host_toolchain& t, const std::string& log) {
  if (run_logged({t.compiler, "-x", "c++", "-dM", "-E", "/dev/null"}, log) != 0) return false;
  const std::string macros = file_text(log);
  return macros.find("#define __GNUC__ ") != std::string::npos && macros.find("__clang__") == std::string::npos;
}

// The folders this process precompiled the prelude into, by toolchain, removed at exit.
struct prelude_folders {
  std::mutex mutex;
  std::map<std::string, std::string> by_toolchain;
  std::vector<std::filesystem::path> made;
  ~prelude_folders() {
    std::error_code ignored;
    for (auto& f : made) std::filesystem::remove_all(f, ignored);
  }
};

}  // namespace detail

/// A folder holding `ein/runtime/timing_prelude.hpp.gch`, GCC's precompiled form of the timing
/// sources' prelude under `t`'s flags (and -fPIC, as the batches compile): searched first (-I),
/// it stands in for the header, which GCC takes only where the flags match. Built at the first
/// call for `t` in this process (from the headers of this build, so never stale), removed at
/// exit. Empty where it does not apply: a compiler other than GCC (clang takes a precompiled
/// header only through -include-pch), none of `t`'s include directories holding the prelude, or
/// a precompilation that failed; the batches then compile the header itself, as they would.
inline std::string precompiled_prelude(const host_toolchain& t) {
  static detail::prelude_folders folders;
  std::string key = t.str();
  for (auto& dir : t.include_directories) key += " -I" + dir;
  std::lock_guard lock(folders.mutex);
  auto [found, added] = folders.by_toolchain.try_emplace(key);
  if (!added) return found->second;
  const std::filesystem::path relative = "ein/runtime/timing_prelude.hpp";
  std::filesystem::path header;
  for (auto& dir : t.include_directories)
    if (std::filesystem::exists(dir / relative)) {
      header = dir / relative;
      break;
    }
  if (header.empty()) return {};
  const auto folder = std::filesystem::temp_directory_path() /
                      ("ein_prelude_" + std::to_string(::getpid()) + "_" + std::to_string(folders.made.size()));
  std::error_code failed;
  std::filesystem::create_directories(folder / relative.parent_path(), failed);
  if (failed) return {};
  folders.made.push_back(folder);
  if (!detail::is_gcc(t, (folder / "macros.txt").string())) return {};
  std::vector<std::string> argv{t.compiler};
  argv.insert(argv.end(), t.flags.begin(), t.flags.end());
  for (auto& dir : t.include_directories) argv.push_back("-I" + dir);
  const auto precompiled = folder / (relative.string() + ".gch");
  argv.insert(argv.end(), {"-fPIC", "-x", "c++-header", header.string(), "-o", precompiled.string()});
  if (detail::run_logged(argv, (folder / "prelude.log").string()) != 0) return {};
  found->second = folder.string();
  return found->second;
}

}  // namespace ein::measure
