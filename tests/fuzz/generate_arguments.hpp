// The fuzzer of ein_generate's arguments (`fuzz_arguments --of ein_generate`): mutants of valid calls go through
// cmake/ein_generate_arguments.cmake (what ein_generate makes of its arguments before it builds
// anything), run by CMake in script mode, a batch of calls per `cmake -P`. Each mutant must be
// refused with a message that names the call and what is wrong, or be accepted with a command
// line for ein's search program that
//   - says what the arguments said: every keyword given once, its value where the search program
//     reads it (a plan built on a misread value fails, e.g. SEARCH banana taken for OFF), the
//     model a file and the object a C++ name, or the ONNX file a file and SHAPE as given, a value
//     the build's commands can carry;
//   - the search program runs it: status 0, or 1 with its message where what ein_generate cannot
//     see before the build is wrong (a profile file that holds no profile; COST measured without
//     a GPU and without cached times, the documented answer).
// A CMake error that stops the script fails the mutant it stopped at.
//
// Every file a mutant may name lies in a fresh temporary folder, the script's working directory
// (relative paths resolve there), among them files whose names hold a space, a ';' or a '"'. It
// ends with `fuzz_arguments (ein_generate): N mutants, A accepted, R refused, F failed`.
#pragma once

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "ein/eval/random.hpp"
#include "fuzz/driver_run.hpp"

namespace ein_fuzz::generate_arguments {

namespace fs = std::filesystem;

inline const std::vector<std::string> keywords = {"MODEL", "OBJECT", "ONNX", "SHAPE", "BACKEND", "NAME", "SEARCH",
                                           "PROFILE", "COST", "COST_CACHE", "PLAN_FOR", "ACCUMULATE", "ALPHA",
                                           "PROGRAM_STATES", "MEASURE_BUDGET"};

inline bool is_keyword(const std::string& s) { return std::find(keywords.begin(), keywords.end(), s) != keywords.end(); }

// One call of ein_generate: its target, whether the project enabled CUDA, and the arguments after
// the target.
struct call {
  std::string target = "plan";
  bool cuda = true;
  std::vector<std::string> arguments;
};

// The valid calls mutants start from, one per way of calling ein_generate.
inline std::vector<call> valid_calls(const fs::path& dir) {
  const std::string spaced = (dir / "model x.hpp").string(), spaced_onnx = (dir / "net x.onnx").string();
  return {
      {"plan", true, {"MODEL", "model.hpp", "OBJECT", "fuzz::net", "BACKEND", "host"}},
      {"plan", true,
       {"MODEL", spaced, "OBJECT", "::fuzz::net", "BACKEND", "cuda", "NAME", "net_cuda", "PROFILE", "profile.json",
        "COST", "roofline"}},
      {"plan", false, {"MODEL", "model.hpp", "OBJECT", "fuzz::net", "BACKEND", "host", "SEARCH", "OFF", "ACCUMULATE", "double"}},
      {"plan", true,
       {"MODEL", "model.hpp", "OBJECT", "fuzz::net", "BACKEND", "host", "PLAN_FOR", "cuda", "ALPHA", "1.2",
        "PROGRAM_STATES", "8", "COST_CACHE", "cache.json"}},
      {"plan", true,
       {"BACKEND", "cuda", "OBJECT", "fuzz::net", "MODEL", "model.hpp", "COST", "measured", "COST_CACHE",
        (dir / "caches" / "c.json").string(), "SEARCH", "yes"}},
      {"plan", true, {"ONNX", "net.onnx", "BACKEND", "host", "SHAPE", "x=1,3,8,8"}},
      {"plan", true, {"SHAPE", " x=1,2  y.0=3 ", "BACKEND", "cuda", "ONNX", spaced_onnx, "NAME", "onnx_net", "SEARCH", "OFF"}},
  };
}

// Values a mutation puts in: other options' words, booleans CMake reads loosely, numbers at and
// past the ranges, and text that CMake's lists, quoting, variables and generator expressions
// would take for something else; names of the fixture's files.
inline const std::vector<std::string> words = {
    "",         " ",           "host",          "cuda",          "HOST",         "element",     "double",
    "auto",     "measured",    "roofline",      "ON",            "OFF",          "on",          "yes",
    "No",       "0",           "1",             "2",             "TRUE",         "banana",      "Y",
    "NOTFOUND", "x-NOTFOUND",  "1.0",           "1.5",           "2.0",          "2.5",         "0.5",
    "-1",       "1e3",         "01",            "1000000",       "1000001",      "99999999999999999999",
    "a;b",      "host;cuda",   "a\"b",          "line\nbreak",   "\nhost",       "${CMAKE_COMMAND}",
    "$<1:x>",   "]=]",         "]==]",          "\\",            "::",           "x::y",        "::x",
    "x::",      "1x",          "ns::net",       "NAME",          "MODEL",        "model.hpp",   "missing.hpp",
    "folder",   "model;odd.hpp", "model x.hpp", "quote\"d.hpp",  "profile.json", "profile;odd.json",
    "cache.json", "folder/c.json", "caches", "net.onnx", "net x.onnx", "missing.onnx", "x=1,3,8,8",
    "x=1,3,8,8 y=2", "x=", "=1,2", "x=1,,2", "x=-1", "x 1", "x=1.5", "x=1;2", "x;y=1", "x=1\ny=2", "[x]=1", "x=1 x=2"};

class mutator {
 public:
  explicit mutator(std::uint64_t seed) : rng_(seed) {}

  call operator()(call c, std::vector<std::string>& steps) {
    auto& a = c.arguments;
    int count = below(4) == 0 ? 2 + static_cast<int>(below(2)) : 1;
    for (int k = 0; k < count; ++k) {
      if (a.empty()) a.push_back("MODEL");
      std::size_t at = below(a.size());
      std::size_t pair = at - at % 2;
      std::size_t kind = below(12);
      if (ein_fuzz::mutate_pairs(a, kind, at, [&](std::size_t n) { return below(n); }, steps)) continue;
      switch (kind) {
        case 4: {  // a keyword renamed, lower-cased or unknown
          std::string k = below(4) == 0 ? "TARGET" : keywords[below(keywords.size())];
          if (below(5) == 0) std::transform(k.begin(), k.end(), k.begin(), [](unsigned char ch) { return std::tolower(ch); });
          steps.push_back("keyword " + a[pair] + " to " + k);
          a[pair] = k;
          break;
        }
        case 5: {  // a keyword added with a value
          std::string k = keywords[below(keywords.size())], v = words[below(words.size())];
          steps.push_back("add " + k + " '" + v + "'");
          a.push_back(k);
          a.push_back(v);
          break;
        }
        case 6: {  // a value's case changed, or a space added
          std::size_t v = pair + 1 < a.size() ? pair + 1 : at;
          if (below(2)) {
            std::transform(a[v].begin(), a[v].end(), a[v].begin(), [](unsigned char ch) { return std::toupper(ch); });
          } else {
            a[v] += " ";
          }
          steps.push_back("respell value to '" + a[v] + "'");
          break;
        }
        case 7:
          c.cuda = !c.cuda;
          steps.push_back(c.cuda ? "CUDA enabled" : "CUDA not enabled");
          break;
        case 8: {
          static const std::vector<std::string> targets = {"", "a-b", "net2", "a;b", "_x", "1plan"};
          c.target = targets[below(targets.size())];
          steps.push_back("target '" + c.target + "'");
          break;
        }
        default: {  // a value replaced
          std::size_t v = pair + 1 < a.size() ? pair + 1 : at;
          a[v] = words[below(words.size())];
          steps.push_back("value after " + a[pair] + " to '" + a[v] + "'");
        }
      }
    }
    return c;
  }

 private:
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng_.next() % n); }
  ein::eval::random_stream rng_;
};

// `value` as a CMake bracket argument that reads back as exactly `value` (as
// ein_bracket_argument writes it).
inline std::string bracket(const std::string& value) {
  std::string eq = "=";
  while ((value + "]" + eq + "]").find("]" + eq + "]") != value.size()) eq += "=";
  return "[" + eq + "[\n" + value + "]" + eq + "]";
}

inline std::string hex_decode(const std::string& h) {
  std::string s;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) s += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
  return s;
}

// What CMake made of one call: the message of a refusal, or the search program's flags, the model
// and the object.
struct verdict {
  bool accepted = false;
  std::string error, model, object, onnx, shape;
  std::vector<std::string> driver_args;
};

// Runs calls[from, end) through ein_generate_arguments in one `cmake -P` in `dir`; returns the
// verdicts of those it finished (in order: a CMake error stops the script at a call).
inline std::vector<verdict> run_cmake(const std::vector<call>& calls, std::size_t from, std::size_t end, const fs::path& dir,
                               std::string& cmake_error) {
  const fs::path script = dir / "fuzz.cmake", results = dir / "results.txt", errors = dir / "cmake_stderr.txt";
  std::ostringstream s;
  s << "cmake_minimum_required(VERSION 3.24)\n"
    << "include(" << bracket(std::string(EIN_SOURCE_DIR) + "/cmake/ein_generate_arguments.cmake") << ")\n"
    << "function(report)\n"
    << "  if(NOT r_error STREQUAL \"\")\n"
    << "    string(HEX \"${r_error}\" e)\n"
    << "    file(APPEND results.txt \"E x${e}\\n\")\n"
    << "  else()\n"
    << "    string(HEX \"${r_model}\" m)\n"
    << "    string(HEX \"${r_object}\" o)\n"
    << "    string(HEX \"${r_onnx}\" x)\n"
    << "    string(HEX \"${r_shape}\" s)\n"
    << "    set(line \"A x${m} x${o} x${x} x${s}\")\n"
    << "    foreach(x IN LISTS r_driver_args)\n"
    << "      string(HEX \"${x}\" h)\n"
    << "      string(APPEND line \" x${h}\")\n"
    << "    endforeach()\n"
    << "    file(APPEND results.txt \"${line}\\n\")\n"
    << "  endif()\n"
    << "endfunction()\n";
  const std::string codegen = bracket(std::string(EIN_SOURCE_DIR) + "/codegen");
  for (std::size_t i = from; i < end; ++i) {
    auto& c = calls[i];
    s << "set(r_error)\nein_generate_arguments(r " << bracket(c.target) << (c.cuda ? " ON " : " OFF ") << codegen;
    for (auto& a : c.arguments) s << " " << bracket(a);
    s << ")\nreport()\n";
  }
  write_text(script, s.str());
  fs::remove(results);
  const std::string command = "cd '" + dir.string() + "' && '" + std::string(EIN_CMAKE_COMMAND) +
                              "' -P fuzz.cmake > /dev/null 2> cmake_stderr.txt";
  int status = std::system(command.c_str());
  cmake_error = status == 0 ? std::string() : read_text(errors);
  std::vector<verdict> out;
  std::istringstream in(read_text(results));
  for (std::string line; std::getline(in, line);) {
    verdict v;
    std::istringstream words_of(line);
    std::string kind, field;
    words_of >> kind;
    std::vector<std::string> fields;
    while (words_of >> field) fields.push_back(hex_decode(field.substr(1)));
    v.accepted = kind == "A";
    if (!v.accepted) {
      v.error = fields.empty() ? std::string() : fields[0];
    } else if (fields.size() >= 4) {
      v.model = fields[0];
      v.object = fields[1];
      v.onnx = fields[2];
      v.shape = fields[3];
      v.driver_args.assign(fields.begin() + 4, fields.end());
    }
    out.push_back(std::move(v));
  }
  return out;
}

inline std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::toupper(ch); });
  return s;
}

inline bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

// Why an accepted call's verdict misreads its arguments, or why the search program refused the
// command line it would run; empty where neither.
inline std::string check_accepted(const call& c, const verdict& v, const fs::path& dir) {
  std::map<std::string, std::string> given;
  for (std::size_t i = 0; i < c.arguments.size(); ++i) {
    if (!is_keyword(c.arguments[i])) continue;
    if (i + 1 >= c.arguments.size()) return "accepted " + c.arguments[i] + " with no value";
    if (!given.emplace(c.arguments[i], c.arguments[i + 1]).second) return "accepted " + c.arguments[i] + " given twice";
    ++i;
  }
  auto value = [&](const std::string& k, std::string otherwise = {}) {
    auto it = given.find(k);
    return it == given.end() ? otherwise : it->second;
  };
  std::map<std::string, std::string> flags;
  if (v.driver_args.size() % 2) return "an odd count of search program arguments";
  for (std::size_t i = 0; i < v.driver_args.size(); i += 2)
    if (!flags.emplace(v.driver_args[i], v.driver_args[i + 1]).second) return "the flag " + v.driver_args[i] + " twice";
  auto flag = [&](const std::string& f) {
    auto it = flags.find(f);
    return it == flags.end() ? std::string("<none>") : it->second;
  };
  auto expect = [&](const std::string& f, const std::string& want) -> std::string {
    return flag(f) == want ? std::string() : f + " is '" + flag(f) + "', the arguments say '" + want + "'";
  };
  std::string why;
  auto first = [&](std::string w) {
    if (why.empty()) why = std::move(w);
  };
  if (given.count("ONNX")) {
    if (given.count("MODEL") || given.count("OBJECT")) first("accepted ONNX with MODEL or OBJECT");
    if (!fs::is_regular_file(v.onnx) || !same_file(v.onnx, dir / value("ONNX")))
      first("the ONNX file '" + v.onnx + "' is not the file ONNX names");
    if (!v.model.empty() || !v.object.empty()) first("a model '" + v.model + "' or object '" + v.object + "' with ONNX");
    // name=d0,d1,... items separated by spaces, in a value the build's commands carry as one argument
    static const std::regex shape(" *[^ =;\"\\[\\]\r\n]+=[0-9]+(,[0-9]+)*( +[^ =;\"\\[\\]\r\n]+=[0-9]+(,[0-9]+)*)* *");
    if (v.shape != value("SHAPE") || (given.count("SHAPE") && !std::regex_match(v.shape, shape)))
      first("SHAPE is '" + v.shape + "', the arguments say '" + value("SHAPE") + "'");
  } else {
    if (given.count("SHAPE")) first("accepted SHAPE without ONNX");
    if (!v.onnx.empty()) first("an ONNX file '" + v.onnx + "' without ONNX");
    if (!given.count("MODEL") || !fs::is_regular_file(v.model) || !same_file(v.model, dir / value("MODEL")))
      first("the model '" + v.model + "' is not the file MODEL names");
    if (!std::regex_match(v.object, std::regex("(::)?[A-Za-z_][A-Za-z0-9_]*(<[^;{}\"]*>)?(::[A-Za-z_][A-Za-z0-9_]*(<[^;{}\"]*>)?)*")) ||
        v.object != value("OBJECT"))
      first("the object '" + v.object + "' is not OBJECT as a C++ name");
  }
  const std::string backend = value("BACKEND");
  if (backend == "cuda" && !c.cuda) first("accepted BACKEND cuda without the CUDA language");
  first(expect("--backend", backend));
  first(expect("--name", value("NAME", c.target)));
  first(expect("--accumulate", value("ACCUMULATE", "element")));
  const std::string search = upper(value("SEARCH", "ON"));
  const bool on = search == "ON" || search == "TRUE" || search == "YES" || search == "1";
  if (!on && search != "OFF" && search != "FALSE" && search != "NO" && search != "0")
    first("accepted SEARCH '" + value("SEARCH") + "'");
  first(expect("--search", on ? "on" : "off"));
  if (on) {
    const std::string plan_for = value("PLAN_FOR", backend);
    first(expect("--plan-for", plan_for));
    first(expect("--cost", value("COST", "auto")));
    const fs::path profile = given.count("PROFILE") ? dir / value("PROFILE")
                                                    : fs::path(EIN_SOURCE_DIR) / "profiles" /
                                                          (plan_for == "host" ? "host.json" : "h100_sxm5.json");
    if (!same_file(flag("--profile"), profile)) first("--profile is '" + flag("--profile") + "', not " + profile.string());
    const fs::path cache = given.count("COST_CACHE") ? dir / value("COST_CACHE") : dir / "ein_cost_cache.json";
    if (!same_file(flag("--cost-cache"), cache)) first("--cost-cache is '" + flag("--cost-cache") + "', not " + cache.string());
    first(given.count("ALPHA") ? expect("--alpha", value("ALPHA")) : expect("--alpha", "<none>"));
    first(given.count("PROGRAM_STATES") ? expect("--program-states", value("PROGRAM_STATES"))
                                        : expect("--program-states", "<none>"));
    first(given.count("MEASURE_BUDGET") ? expect("--measure-budget", value("MEASURE_BUDGET"))
                                        : expect("--measure-budget", "<none>"));
    // A host plan priced by default keeps this machine's profile in the build folder.
    const bool machine = plan_for == "host" && !given.count("PROFILE");
    if (machine != (flag("--machine-profile") != "<none>") ||
        (machine && !same_file(flag("--machine-profile"), dir / "ein_host_profile.json")))
      first("--machine-profile is '" + flag("--machine-profile") + "'");
  } else {
    for (const char* k : {"PROFILE", "COST", "COST_CACHE", "PLAN_FOR", "ALPHA", "PROGRAM_STATES", "MEASURE_BUDGET"})
      if (given.count(k)) first(std::string("accepted ") + k + " with the search OFF");
  }
  if (!why.empty()) return why;

  // The command line ein_generate's build step runs.
  for (const char* out : {"out.hpp", "out.json", "out.cu"}) fs::remove(dir / out);
  std::vector<std::string> line = {"--model", (dir / "model.json").string(), "--header", (dir / "out.hpp").string(),
                                   "--report", (dir / "out.json").string()};
  if (backend == "cuda") line.insert(line.end(), {"--source", (dir / "out.cu").string()});
  line.insert(line.end(), v.driver_args.begin(), v.driver_args.end());
  line.insert(line.end(), {"--onednn", "off"});
  auto r = run_driver(line, dir / "driver_stderr.txt");
  if (!r.exception.empty()) return "the search program threw: " + r.exception;
  // What ein_generate cannot see before the build: a profile whose content is no profile, kernel
  // times missing from the cache of COST measured. The search program says so (status 1).
  const bool content = r.error.find("device profile `") != std::string::npos || flag("--cost") == "measured";
  if (r.status == 1 && content && r.error.find("ein_generate(") != std::string::npos) return {};
  if (r.status != 0) return "the search program refused it (status " + std::to_string(r.status) + "): " + r.error;
  if (read_text(dir / "out.hpp").empty()) return "the search program wrote no header";
  return {};
}

// Why a refusal does not say what is wrong; empty where it does.
inline std::string check_refused(const call& c, const verdict& v) {
  const std::string opening = "ein_generate(" + c.target + "): ";
  if (v.error.rfind(opening, 0) != 0) return "a refusal that does not name the call: " + v.error;
  static const std::regex names(
      "(MODEL|OBJECT|ONNX|SHAPE|BACKEND|NAME|SEARCH|PROFILE|COST|COST_CACHE|PLAN_FOR|ACCUMULATE|ALPHA|PROGRAM_STATES|"
      "MEASURE_BUDGET|"
      "unknown arguments|device profile)");
  if (!std::regex_search(v.error, names)) return "a refusal that names no argument: " + v.error;
  return {};
}

// `s` in double quotes, its quotes, backslashes and line breaks escaped.
inline std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') q += '\\';
    q += ch == '\n' ? std::string("\\n") : std::string(1, ch);
  }
  return q + "\"";
}

inline void print_call(const call& c) {
  std::printf("  ein_generate(%s", quoted(c.target).c_str());
  for (auto& a : c.arguments) std::printf(" %s", quoted(a).c_str());
  std::printf(")%s\n", c.cuda ? "" : " without the CUDA language");
}

/// Runs `count` mutants from `seed`; returns the process status (0: none failed).
inline int run(std::uint64_t count, std::uint64_t seed) {
  const fs::path dir = fs::temp_directory_path() / ("ein_fuzz_generate_arguments_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "folder");
  fs::create_directories(dir / "caches");
  for (const char* header : {"model.hpp", "model x.hpp", "model;odd.hpp", "quote\"d.hpp"})
    write_text(dir / header, "// a model\n");
  for (const char* onnx : {"net.onnx", "net x.onnx"}) write_text(dir / onnx, "not read: ein_generate's arguments only name it\n");
  const std::string profile = read_text(std::string(EIN_SOURCE_DIR) + "/profiles/h100_sxm5.json");
  write_text(dir / "profile.json", profile);
  write_text(dir / "profile;odd.json", profile);
  write_text(dir / "model.json", small_model_file().dump(1));

  const auto seeds = valid_calls(dir);
  std::vector<call> calls = seeds;  // the valid calls first: each must be accepted
  std::vector<std::vector<std::string>> steps(seeds.size());
  for (std::uint64_t i = 0; i < count; ++i) {
    std::vector<std::string> s;
    calls.push_back(mutator(seed * 1000003 + i)(seeds[i % seeds.size()], s));
    steps.push_back(std::move(s));
  }

  auto start = std::chrono::steady_clock::now();
  std::uint64_t accepted = 0, refused = 0, failed = 0;
  auto fail = [&](std::size_t i, const std::string& why) {
    if (++failed > 10) return;
    std::printf("FAIL %s %zu: %s\n", i < seeds.size() ? "valid call" : "mutant", i < seeds.size() ? i : i - seeds.size(),
                why.c_str());
    if (i >= seeds.size()) {
      std::printf("  mutations:");
      for (auto& s : steps[i]) std::printf(" [%s]", s.c_str());
      std::printf("\n");
    }
    print_call(calls[i]);
  };
  constexpr std::size_t batch = 2000;
  for (std::size_t from = 0; from < calls.size();) {
    const std::size_t end = std::min(calls.size(), from + batch);
    std::string cmake_error;
    auto verdicts = run_cmake(calls, from, end, dir, cmake_error);
    for (std::size_t k = 0; k < verdicts.size(); ++k) {
      const std::size_t i = from + k;
      const bool valid = i < seeds.size();
      std::string why = verdicts[k].accepted ? check_accepted(calls[i], verdicts[k], dir)
                        : valid              ? "refused: " + verdicts[k].error
                                             : check_refused(calls[i], verdicts[k]);
      if (!why.empty())
        fail(i, why);
      else if (!valid)
        ++(verdicts[k].accepted ? accepted : refused);
    }
    from += verdicts.size();
    if (from < end) {  // CMake stopped at call `from`
      fail(from, "CMake stopped: " + (cmake_error.empty() ? std::string("no verdict written") : cmake_error));
      ++from;
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz_arguments (ein_generate): %llu mutants, %llu accepted, %llu refused, %llu failed (%.1f s)\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(accepted),
              static_cast<unsigned long long>(refused), static_cast<unsigned long long>(failed), s);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return failed ? 1 : 0;
}

}  // namespace ein_fuzz::generate_arguments
