// The compiler a build compiles host plans with, as stage 1 runs it: to build shared objects of
// generated code that the host timer loads and times.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "ein/error.hpp"
#include "ein/detail/json_input.hpp"

extern char** environ;

namespace ein::measure {

/// How the build compiles a translation unit that includes a generated host header: the C++
/// compiler, its flags (optimization, the C++ standard, OpenMP) and include directories. ein
/// compiles generated code with exactly these, so that what it times is what the build runs.
struct host_toolchain {
  std::string compiler;
  std::vector<std::string> flags;
  std::vector<std::string> include_directories;

  /// `/usr/bin/c++ -O3 -DNDEBUG -fopenmp -std=gnu++20`: what keys the timings of eOperators.
  std::string str() const {
    std::string r = compiler;
    for (auto& f : flags) r += " " + f;
    return r;
  }
};

/// The toolchain of file `path` (ein_generate writes it: `{"compiler": "/usr/bin/c++", "flags":
/// ["-O3", ...], "include_directories": ["/ein/include", ...]}`). A missing, mistyped or unknown
/// field is a user_error naming the file and the field.
inline host_toolchain read_host_toolchain(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw user_error("host toolchain `" + path + "`: cannot open the file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ein::detail::json_input file("host toolchain `" + path + "`");
  auto j = file.parse(text);
  file.object(j, "");
  for (auto& [key, v] : j.items())
    if (key != "compiler" && key != "flags" && key != "include_directories")
      file.fail(ein::detail::json_input::at("", key), "unknown field");
  host_toolchain t;
  t.compiler = file.text(file.field(j, "compiler", ""), "/compiler");
  if (t.compiler.empty()) file.fail("/compiler", "the compiler needs a path");
  auto strings = [&](const char* key, std::vector<std::string>& out) {
    const std::string at = std::string("/") + key;
    auto& list = file.array(file.field(j, key, ""), at);
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto s = file.text(list[i], at + "/" + std::to_string(i));
      if (!s.empty()) out.push_back(std::move(s));
    }
  };
  strings("flags", t.flags);
  strings("include_directories", t.include_directories);
  return t;
}

namespace detail {

// Runs `argv` with its output and errors written to `log`; the exit status, or -1 where it could
// not start or did not exit.
inline int run_logged(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int started = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace detail

/// The compiler runs of one batch: `sources[i]` compiled into the shared object `objects[i]`,
/// as many at once as `jobs` allows. Throws user_error naming the source and quoting the
/// compiler's messages when one fails (the source is kept for reading).
inline void compile_shared_objects(const host_toolchain& t, const std::vector<std::string>& sources,
                                   const std::vector<std::string>& objects, unsigned jobs) {
  auto command = [&](std::size_t i) {
    std::vector<std::string> argv{t.compiler};
    argv.insert(argv.end(), t.flags.begin(), t.flags.end());
    for (auto& dir : t.include_directories) argv.push_back("-I" + dir);
    argv.insert(argv.end(), {"-fPIC", "-shared", "-o", objects[i], sources[i]});
    return argv;
  };
  auto failed = [&](std::size_t i, const std::string& log) {
    std::string messages = detail::file_text(log);
    if (messages.size() > 4000) messages = messages.substr(0, 4000) + "\n...";
    std::string line;
    for (auto& a : command(i)) line += (line.empty() ? "" : " ") + a;
    throw user_error("the host timer could not compile " + sources[i] + " (" + line + "):\n" + messages);
  };
  // `jobs` compilers at once, each round waited for, so the first failure in source order is the
  // one reported, whatever the timing.
  for (std::size_t first = 0; first < sources.size(); first += std::max(jobs, 1u)) {
    std::vector<std::size_t> batch;
    for (std::size_t i = first; i < sources.size() && batch.size() < std::max(jobs, 1u); ++i) batch.push_back(i);
    std::vector<int> status(batch.size());
    std::vector<std::thread> threads;
    for (std::size_t b = 0; b < batch.size(); ++b)
      threads.emplace_back([&, b] { status[b] = detail::run_logged(command(batch[b]), objects[batch[b]] + ".log"); });
    for (auto& th : threads) th.join();
    for (std::size_t b = 0; b < batch.size(); ++b)
      if (status[b] != 0) failed(batch[b], objects[batch[b]] + ".log");
  }
}

}  // namespace ein::measure
