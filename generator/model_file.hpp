// The file a model's stage-1 program writes and ein's search program reads: the program object's
// IR (ir/json.hpp), its program_key, and how the generated header names it.
#pragma once

#include <cctype>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ein/error.hpp"
#include "ein/detail/json_input.hpp"
#include "ein/ir/fingerprint.hpp"
#include "ein/ir/json.hpp"

namespace ein::generator {

/// A model as stage 1 hands it from the model's program to the search program:
///
///     {"format": "ein.model.v1", "object": "conv3x3::net", "model": "/src/conv3x3.hpp",
///      "key": "0xee4b26212cc81d8a", "program": <ir::program>}
///
/// The key is hex text: JSON readers need not hold 64-bit integers exactly. A program imported
/// from an ONNX file (ein_import) names the file instead of a model header,
/// `"onnx": "/src/resnet18.onnx"`, and its key is the program's fingerprint: the generated header
/// defines the program object itself.
struct model_file {
  std::string object;     // qualified C++ name of the program object
  std::string model;      // the model header that declares it (the generated header includes it)
  std::uint64_t key = 0;  // ein::program_key(object)
  ir::program program;    // ein::reify(object)
  std::string onnx;       // the ONNX file it was imported from (then `model` is empty)
};

inline constexpr const char* model_file_format = "ein.model.v1";

/// Writes `m` to `path`; throws user_error when it cannot.
inline void write_model_file(const model_file& m, const std::string& path) {
  nlohmann::json j = {{"format", model_file_format}, {"object", m.object}};
  if (m.onnx.empty())
    j["model"] = m.model;
  else
    j["onnx"] = m.onnx;
  j["key"] = ir::program_key_text(m.key);
  j["program"] = ir::to_json(m.program);
  std::ofstream out(path, std::ios::binary);
  out << j.dump(1) << "\n";
  if (!out) throw user_error("ein_generate: cannot write " + path);
}

/// Whether `s` is a C++ identifier (`net`, `model_dcgan`): a plan's name.
inline bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

/// Whether `s` is a C++ name, qualified or not, whose parts may take template arguments (`net`,
/// `conv3x3::net`, `::a::b`, `models::dcgan<1, 1, ein::bfloat16>::net`): the generated header
/// writes the program object's name as code. Template arguments are balanced in `<>` and hold
/// names, numbers, spaces, commas and arithmetic, never a quote, brace or semicolon.
inline bool is_qualified_name(const std::string& s) {
  const auto argument_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_:, .()+-*/").find(c) != std::string_view::npos;
  };
  std::size_t i = s.rfind("::", 0) == 0 ? 2 : 0;
  if (i == s.size()) return false;
  while (i < s.size()) {
    if (!(std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) return false;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    if (i < s.size() && s[i] == '<') {
      int depth = 0;
      do {
        if (s[i] == '<') ++depth;
        else if (s[i] == '>') --depth;
        else if (!argument_char(s[i])) return false;
        ++i;
      } while (depth > 0 && i < s.size());
      if (depth > 0) return false;
    }
    if (i == s.size()) return true;
    if (s.compare(i, 2, "::") != 0) return false;
    i += 2;
    if (i == s.size()) return false;
  }
  return true;
}

/// Reads what write_model_file wrote; throws user_error naming `path`, the JSON path of the
/// field at fault and why, e.g. `ein model file /b/net.json: at /key: expected 0x and 16 hex
/// digits, got "0x12"`.
inline model_file read_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw user_error("ein_generate: cannot read " + path);
  std::stringstream content;
  content << in.rdbuf();
  ein::detail::json_input input("ein model file " + path);
  const nlohmann::json j = input.parse(content.str());
  auto text = [&](const char* name) { return input.text(input.field(j, name, ""), std::string("/") + name); };
  if (std::string format = text("format"); format != model_file_format)
    input.fail("/format", "`" + format + "`, not `" + model_file_format + "` (written by another version of ein?)");
  model_file m;
  m.object = text("object");
  if (!is_qualified_name(m.object)) input.fail("/object", "`" + m.object + "` is not a C++ name");
  if (input.optional_field(j, "onnx", "")) {
    m.onnx = text("onnx");
    // The generated header names it in a comment.
    if (m.onnx.empty() || m.onnx.find_first_of("\n\r") != std::string::npos)
      input.fail("/onnx", "not a file name: " + nlohmann::json(m.onnx).dump());
  } else {
    m.model = text("model");
    // The generated header writes it as `#include "<model>"`.
    if (m.model.empty() || m.model.find_first_of("\"\n\r") != std::string::npos)
      input.fail("/model", "not a header path that #include can name: " + nlohmann::json(m.model).dump());
  }
  std::string key = text("key");
  bool hex = key.size() == 18 && key.rfind("0x", 0) == 0 &&
             key.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
  if (!hex) input.fail("/key", "expected 0x and 16 hex digits, got " + nlohmann::json(key).dump());
  m.key = std::stoull(key.substr(2), nullptr, 16);
  m.program = ir::from_json<ir::program>(input.field(j, "program", ""), path + "#/program");
  return m;
}

}  // namespace ein::generator
