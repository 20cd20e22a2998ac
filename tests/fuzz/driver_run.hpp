// ein's search program (generator/driver.hpp's driver_main) run in the fuzzer's own process, with
// its output captured, and the small file helpers and list mutations the argument fuzzers share.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "driver.hpp"
#include "support/generate.hpp"

namespace ein_fuzz {

namespace fs = std::filesystem;

/// The content of file `p`; empty where it is no file.
inline std::string read_text(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return {};
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

/// A valid model file (the hand-over of a model's stage-1 program to the search program) of one
/// small program, whatever the seed: what the argument fuzzers mutate is the command line, and a
/// search over it takes milliseconds.
inline nlohmann::json small_model_file() {
  ein::eval::generate_options small;
  small.max_work = 4000;
  return {{"format", ein::generator::model_file_format},
          {"object", "fuzz::net"},
          {"model", "fuzz.hpp"},
          {"key", "0x00000000deadbeef"},
          {"program", ein::ir::to_json(ein::eval::generate_program(1, small))}};
}

/// How a run of the search program ended: its status, what it wrote on stderr, and the message
/// of an exception that escaped it (empty where none did).
struct run_result {
  int status = 0;
  std::string error, exception;
};

/// Runs driver_main on `line` (the arguments after the program's name), stdout thrown away and
/// stderr captured through the file `error_file`.
inline run_result run_driver(std::vector<std::string> line, const fs::path& error_file) {
  line.insert(line.begin(), "ein_search");
  std::vector<char*> argv;
  for (auto& a : line) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  int saved_out = ::dup(1), saved_err = ::dup(2);
  int out = ::open("/dev/null", O_WRONLY), err = ::open(error_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(out, 1);
  ::dup2(err, 2);
  run_result r;
  try {
    r.status = ein::generator::driver_main(static_cast<int>(line.size()), argv.data());
  } catch (const std::exception& e) {
    r.exception = e.what();
  } catch (...) {
    r.exception = "an exception of no std type";
  }
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  for (int fd : {out, err, saved_out, saved_err}) ::close(fd);
  r.error = read_text(error_file);
  return r;
}

/// The mutations both argument fuzzers make of a list of flag (or keyword) and value pairs, at the
/// argument `at` and the pair it lies in: kind 0 removes the argument, 1 its pair, 2 repeats the
/// pair at the end, 3 swaps the argument with one `below` picks. False, and nothing done, for
/// any other kind.
template <class Below>
bool mutate_pairs(std::vector<std::string>& a, std::size_t kind, std::size_t at, Below&& below,
                  std::vector<std::string>& steps) {
  std::size_t pair = at - at % 2;
  auto pair_end = [&] { return a.begin() + static_cast<std::ptrdiff_t>(std::min(pair + 2, a.size())); };
  switch (kind) {
    case 0:
      steps.push_back("remove " + a[at]);
      a.erase(a.begin() + static_cast<std::ptrdiff_t>(at));
      return true;
    case 1:
      steps.push_back("remove pair " + a[pair]);
      a.erase(a.begin() + static_cast<std::ptrdiff_t>(pair), pair_end());
      return true;
    case 2:
      steps.push_back("repeat pair " + a[pair]);
      a.insert(a.end(), a.begin() + static_cast<std::ptrdiff_t>(pair), pair_end());
      return true;
    case 3: {
      std::size_t other = below(a.size());
      steps.push_back("swap " + a[at] + " and " + a[other]);
      std::swap(a[at], a[other]);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace ein_fuzz
