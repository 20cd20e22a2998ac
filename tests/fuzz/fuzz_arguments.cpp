// The argument fuzzer of ein's search program (generator/driver.hpp's driver_main, what
// ein_generate runs in stage 1): mutants of valid command lines, each of which must end with
// status 0 and the files it was asked for, or status 1 or 2 and a message on stderr; never an
// escaping exception, a crash or a header that names what C++ cannot.
//
//   fuzz_arguments [--of driver|ein_generate] [--mutants N] [--seed S]
//
// `--of ein_generate` fuzzes ein_generate's own arguments instead (generate_arguments.hpp).
// Mutants drop, duplicate, swap and retype flags and values: values become empty, words of the
// wrong option, paths to nothing, to a folder, or to a mutated model file or device profile
// (tests/fuzz/mutate.hpp). Every file a mutant may name lies in a fresh temporary folder, the
// working directory while it runs, emptied and rewritten before each run, so that a mutant that
// writes its header over the model harms only itself. It ends with `fuzz_arguments: N mutants, A accepted, R refused, F failed`.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "fuzz/driver_run.hpp"
#include "fuzz/generate_arguments.hpp"
#include "fuzz/mutate.hpp"

namespace {

using namespace ein;
namespace fs = std::filesystem;
using ein_fuzz::json;
using ein_fuzz::read_text;
using ein_fuzz::write_text;

// The folder every mutant works in, and the valid files it starts from.
struct fixture {
  fs::path dir;
  json model, profile;

  std::string path(const char* name) const { return (dir / name).string(); }

  // Rewrites the model file and the profile as valid, and removes what a previous run wrote.
  void reset() const {
    for (auto& entry : fs::directory_iterator(dir)) fs::remove_all(entry.path());
    write_text(path("model.json"), model.dump(1));
    write_text(path("profile.json"), profile.dump(1));
  }
};

// The command lines ein_generate writes, one per way of calling the search program.
std::vector<std::vector<std::string>> valid_command_lines(const fixture& f) {
  std::vector<std::string> common = {"--model", f.path("model.json"), "--name", "net", "--header",
                                     f.path("net.hpp"), "--report", f.path("net.json")};
  auto with = [&](std::vector<std::string> more) {
    auto line = common;
    line.insert(line.end(), more.begin(), more.end());
    return line;
  };
  return {with({"--backend", "host", "--profile", f.path("profile.json")}),
          with({"--backend", "host", "--search", "off", "--accumulate", "double"}),
          with({"--backend", "cuda", "--source", f.path("net.cu"), "--profile", f.path("profile.json")}),
          with({"--backend", "host", "--plan-for", "cuda", "--cost", "roofline", "--profile", f.path("profile.json")}),
          with({"--backend", "cuda", "--source", f.path("net.cu"), "--cost", "measured", "--cost-cache",
                f.path("cache.json"), "--profile", f.path("profile.json")})};
}


// One mutant command line: 1 to 3 mutations (three in ten a mutated model file or profile) of `line`, each described in `steps`. Files it
// names in the fixture's folder (a mutated model or profile) are written here.
std::vector<std::string> mutate(std::vector<std::string> line, std::uint64_t seed, const fixture& f,
                                std::vector<std::string>& steps) {
  eval::random_stream rng(seed);
  auto below = [&](std::size_t n) { return static_cast<std::size_t>(rng.next() % n); };
  // Mostly one mutation, so that most mutants get past the parsing of the command line.
  int count = below(4) == 0 ? 2 + static_cast<int>(below(2)) : 1;
  for (int k = 0; k < count && !line.empty(); ++k) {
    std::size_t at = below(line.size());
    std::size_t pair = at - at % 2;  // the flag of the pair `at` lies in
    std::size_t kind = below(10);
    kind = kind < 6 ? kind : kind < 7 ? 5 : 6;
    if (ein_fuzz::mutate_pairs(line, kind, at, below, steps)) continue;
    switch (kind) {
      case 4: {
        auto& flags = generator::detail::driver_flags();
        line[pair] = below(5) == 0 ? "--unknown" : std::string(flags[below(flags.size())].name);
        steps.push_back("flag " + line[pair]);
        break;
      }
      case 5: {  // a value of the wrong kind
        static const std::vector<std::string> words = {"",    "x",    "on",   "off",      "host",     "cuda",
                                                       "auto", "1 2", "a-b", "bad name", "::x",      "measured",
                                                       "roofline", "/dev/null", "-", "--model", "net\"; int x;",
                                                       "element", "double"};
        std::string value = below(3) == 0 ? f.dir.string() : below(2) ? f.path("missing.json") : words[below(words.size())];
        if (pair + 1 < line.size()) line[pair + 1] = value;
        steps.push_back("value " + line[pair] + " " + value);
        break;
      }
      case 6: {  // a mutated model file or profile
        bool model = below(2) == 0;
        auto m = ein_fuzz::mutator(seed * 31 + static_cast<std::uint64_t>(k))(model ? f.model : f.profile);
        std::string file = f.path(model ? "mutated_model.json" : "mutated_profile.json");
        write_text(file, m.text);
        if (pair + 1 < line.size()) line[pair + 1] = file;
        steps.push_back(std::string("mutated ") + (model ? "model" : "profile") + " as " + line[pair]);
        break;
      }
    }
  }
  return line;
}

// What a run that succeeded must have written, given its command line.
std::string check_outputs(const std::vector<std::string>& line) {
  auto value = [&](const std::string& flag) -> std::string {
    for (std::size_t i = 0; i + 1 < line.size(); i += 2)
      if (line[i] == flag) return line[i + 1];
    return {};
  };
  if (!std::regex_match(value("--name"), std::regex("[A-Za-z_][A-Za-z0-9_]*")))
    return "accepted a name that is no C++ identifier: " + value("--name");
  for (const char* flag : {"--header", "--report"})
    if (value(flag) != "/dev/null" && read_text(value(flag)).empty()) return std::string("wrote no ") + flag;
  if (value("--report") != "/dev/null" && !json::accept(read_text(value("--report"))))
    return "the report is not JSON";
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t count = 200, seed = 1;
  std::string of = "driver";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--mutants")
      count = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--seed")
      seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag == "--of" && (value == "driver" || value == "ein_generate"))
      of = value;
    else {
      std::fprintf(stderr, "usage: fuzz_arguments [--of driver|ein_generate] [--mutants N] [--seed S]\n");
      return 2;
    }
  }
  if (of == "ein_generate") return ein_fuzz::generate_arguments::run(count, seed);
  fixture f;
  f.dir = fs::temp_directory_path() / ("ein_fuzz_arguments_" + std::to_string(::getpid()));
  fs::create_directories(f.dir);
  auto home = fs::current_path();
  fs::current_path(f.dir);  // a mutant's output named by a bare word is written there
  f.model = ein_fuzz::small_model_file();
  f.profile = json::parse(read_text(std::string(EIN_PROFILE_DIR) + "/h100_sxm5.json"));
  auto lines = valid_command_lines(f);

  auto start = std::chrono::steady_clock::now();
  std::uint64_t accepted = 0, refused = 0, failed = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    f.reset();
    std::uint64_t mutant_seed = seed * 1000003 + i;
    std::vector<std::string> steps;
    auto line = mutate(lines[i % lines.size()], mutant_seed, f, steps);
    auto r = ein_fuzz::run_driver(line, f.dir / "stderr.txt");
    std::string why;
    if (!r.exception.empty())
      why = "an exception escaped: " + r.exception;
    else if (r.status == 0)
      why = check_outputs(line);
    else if (r.status != 1 && r.status != 2)
      why = "exit status " + std::to_string(r.status);
    else if (r.error.find("ein_generate") == std::string::npos && r.error.find("usage:") == std::string::npos)
      why = "a refusal without a message: " + r.error;
    (r.status == 0 ? accepted : refused) += why.empty();
    if (why.empty()) continue;
    if (++failed <= 10) {
      std::printf("FAIL mutant %llu (seed %llu): %s\n  mutations:", static_cast<unsigned long long>(i),
                  static_cast<unsigned long long>(mutant_seed), why.c_str());
      for (auto& s : steps) std::printf(" [%s]", s.c_str());
      std::printf("\n  command line:");
      for (auto& a : line) std::printf(" '%s'", a.c_str());
      std::printf("\n");
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz_arguments: %llu mutants, %llu accepted, %llu refused, %llu failed (%.1f s)\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(accepted),
              static_cast<unsigned long long>(refused), static_cast<unsigned long long>(failed), s);
  fs::current_path(home);
  std::error_code ec;
  fs::remove_all(f.dir, ec);
  return failed ? 1 : 0;
}
