// ein's ONNX import program (import.cpp), the first step of ein_generate's stage 1 for an ONNX
// file: imports the graph (ein/onnx/import.hpp) and writes it as a model file (model_file.hpp)
// for the search program. Built once per build tree, whatever the number of ONNX files.
#pragma once

#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ein/ir/fingerprint.hpp"
#include "ein/ir/print.hpp"
#include "ein/onnx/import.hpp"
#include "model_file.hpp"

namespace ein::generator {

/// The shapes of `--shape`: `name=d0,d1,... name=...`, separated by spaces; a message naming the
/// part that is wrong, else empty.
inline std::string parse_shapes(const std::string& text, std::map<std::string, std::vector<std::int64_t>>& out) {
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    auto eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return "`" + item + "` is not name=d0,d1,...";
    std::vector<std::int64_t> dims;
    for (std::size_t at = eq + 1; at <= item.size();) {
      auto comma = item.find(',', at);
      if (comma == std::string::npos) comma = item.size();
      std::int64_t d = 0;
      auto r = std::from_chars(item.data() + at, item.data() + comma, d);
      if (r.ec != std::errc() || r.ptr != item.data() + comma || d < 1 || d > ein::onnx::max_elements)
        return "`" + item + "`: each extent must be a whole number from 1 to 2^40";
      dims.push_back(d);
      at = comma + 1;
    }
    if (!out.emplace(item.substr(0, eq), dims).second) return "`" + item.substr(0, eq) + "` is given two shapes";
  }
  return {};
}

/// `ein_import --onnx F --out M [--name N] [--shape "x=1,3,224,224 ..."] [--print on|off]`:
/// imports ONNX file F and writes model file M, whose program object the generated header
/// `ein_generated/<N>.hpp` defines as `ein_generated::<N>::net`; prints what it imported (with
/// `--print on`, the program, one line per definition). Returns 0, 1 on a user error (a file
/// ein cannot import, named with the node at fault), 2 on bad arguments.
inline int import_main(int argc, char** argv) {
  std::map<std::string, std::string> given;
  const std::vector<std::string> flags = {"--onnx", "--out", "--name", "--shape", "--print"};
  bool bad = argc % 2 == 0;
  for (int i = 1; i + 1 < argc && !bad; i += 2) {
    bool known = std::find(flags.begin(), flags.end(), argv[i]) != flags.end();
    bad = !known || !given.emplace(argv[i], argv[i + 1]).second;
  }
  auto arg = [&](const char* flag, std::string otherwise = {}) {
    auto it = given.find(flag);
    return it == given.end() ? otherwise : it->second;
  };
  const std::string file = arg("--onnx"), out = arg("--out"), name = arg("--name", "net"), print = arg("--print", "off");
  if (bad || file.empty() || out.empty() || (print != "on" && print != "off")) {
    std::fprintf(stderr, "usage: %s --onnx FILE --out MODEL [--name N] [--shape \"x=1,3,224,224 ...\"] [--print on|off]\n"
                 "(--out, the model file for ein's search program; --name, the plan's name; --shape, the\n"
                 "shapes of graph inputs with symbolic dims; --print on, the imported program)\n", argv[0]);
    return 2;
  }
  if (!is_identifier(name)) {
    std::fprintf(stderr, "ein_import: --name `%s` must be a C++ identifier (it names the plan's namespace)\n", name.c_str());
    return 2;
  }
  ein::onnx::import_options options;
  if (auto wrong = parse_shapes(arg("--shape"), options.shapes); !wrong.empty()) {
    std::fprintf(stderr, "ein_import: --shape: %s\n", wrong.c_str());
    return 2;
  }
  try {
    ir::program p = ein::onnx::import_file(file, options);
    p.name = name;
    std::size_t inputs = 0, weights = 0;
    for (auto& t : p.tensors) ++(t.role == ir::tensor_role::weight ? weights : inputs);
    std::printf("ein_import: %s: %zu inputs, %zu weights, %zu definitions, %zu outputs\n", file.c_str(), inputs,
                weights, p.definitions.size(), p.outputs.size());
    if (print == "on") std::printf("%s", ir::to_string(p).c_str());
    write_model_file({"ein_generated::" + name + "::net", "", ir::fingerprint(p), p, file}, out);
    return 0;
  } catch (const user_error& e) {
    std::fprintf(stderr, "ein_import: %s\n", e.what());
    return 1;
  }
}

}  // namespace ein::generator
