// The host a plan is measured on, as the cost cache keys its measurements: the processor and the
// threads plans run on, and what else can change a time (instruction sets, libraries, compiler).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "ein/cost/cache.hpp"

namespace ein::measure {

/// The device name and environment host measurements are cached under.
struct host_machine {
  std::string device;        // `host: AMD EPYC 9R14, 2 threads`
  cost::environment environment;
};

namespace detail {

// The value of the first `key` line of /proc/cpuinfo (`model name : AMD EPYC`), or empty.
inline std::string cpuinfo(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name != key) continue;
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return {};
}

// The instruction-set extensions among the processor's flags that change what compiled loops
// and the libraries' kernels run (x86: SSE to AMX; on other processors, their features line).
inline std::string instruction_sets() {
  static const std::set<std::string> relevant = {
      "sse4_2",     "avx",        "avx2",       "fma",         "f16c",        "avx512f",  "avx512bw",
      "avx512vl",   "avx512dq",   "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16",
      "amx_int8",   "asimd",      "sve",        "sve2"};
  std::string flags = cpuinfo("flags");
  if (flags.empty()) flags = cpuinfo("Features");
  std::istringstream in(flags);
  std::set<std::string> found;
  for (std::string f; in >> f;)
    if (relevant.count(f)) found.insert(f);
  std::string r;
  for (auto& f : found) r += (r.empty() ? "" : " ") + f;
  return r;
}

// The threads of an OpenMP team with no num_threads clause: OMP_NUM_THREADS's first number, else
// the processors this process may run on.
inline int openmp_threads() {
  if (const char* v = std::getenv("OMP_NUM_THREADS"); v && std::atoi(v) > 0) return std::atoi(v);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace detail

/// This machine: `host: <processor>, <n> threads` and the environment fields `instruction_sets`,
/// `compiler` (what compiles eOperators: `toolchain`, empty without one) and `libraries` (the
/// versions of the libraries the timer calls, as `libraries` says them, e.g. `OpenBLAS 0.3.21
/// ...; oneDNN 2.7.3`).
inline host_machine this_host(const std::string& toolchain, const std::string& libraries) {
  std::string cpu = detail::cpuinfo("model name");
  if (cpu.empty()) cpu = "unknown processor";
  host_machine m;
  m.device = "host: " + cpu + ", " + std::to_string(detail::openmp_threads()) + " threads";
  m.environment.fields = {{"instruction_sets", detail::instruction_sets()},
                          {"compiler", toolchain},
                          {"libraries", libraries}};
  return m;
}

}  // namespace ein::measure
