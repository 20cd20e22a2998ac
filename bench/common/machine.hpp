// What the benchmarks record about the machine and the moment they ran on: processors, CPU model,
// load average and the UTC time.
#pragma once

#include <chrono>
#include <ctime>
#include <fstream>
#include <string>

#include <sched.h>

namespace ein::bench {

/// What `nproc` prints: the processors this process may run on.
inline int processors() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/// The CPU's model name from /proc/cpuinfo, or "unknown".
inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

/// The 1-minute load average from /proc/loadavg, or "unknown": the machine may be shared, so a
/// benchmark records it when its run starts.
inline std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string first;
  in >> first;
  return first.empty() ? "unknown" : first;
}

/// The current time in UTC, ISO 8601 to the second: `2026-11-22T14:18:01Z`.
inline std::string utc_now() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

}  // namespace ein::bench
