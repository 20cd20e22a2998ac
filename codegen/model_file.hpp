// The file a model's stage-1 program writes and ein's search program reads: the program object's
// IR (ir/json.hpp), its program_key, and how the generated header names it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ein/detail/error.hpp"
#include "ein/ir/json.hpp"

namespace ein::codegen {

/// A model as stage 1 hands it from the model's program to the search program:
///
///     {"format": "ein.model.v1", "object": "conv3x3::net", "model": "/src/conv3x3.hpp",
///      "key": "0xee4b26212cc81d8a", "program": <ir::program>}
///
/// The key is hex text: JSON readers need not hold 64-bit integers exactly.
struct model_file {
  std::string object;     // qualified C++ name of the program object
  std::string model;      // the model header that declares it (the generated header includes it)
  std::uint64_t key = 0;  // ein::program_key(object)
  ir::program program;    // ein::reify(object)
};

inline constexpr const char* model_file_format = "ein.model.v1";

/// Writes `m` to `path`; throws user_error when it cannot.
inline void write_model_file(const model_file& m, const std::string& path) {
  char key[19];
  std::snprintf(key, sizeof key, "0x%016llx", static_cast<unsigned long long>(m.key));
  nlohmann::json j = {{"format", model_file_format},
                      {"object", m.object},
                      {"model", m.model},
                      {"key", key},
                      {"program", ir::to_json(m.program)}};
  std::ofstream out(path, std::ios::binary);
  out << j.dump(1) << "\n";
  if (!out) throw user_error("ein_generate: cannot write " + path);
}

/// Reads what write_model_file wrote; throws user_error naming `path` and the field at fault.
inline model_file read_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw user_error("ein_generate: cannot read " + path);
  std::stringstream content;
  content << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(content.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw user_error("ein_generate: " + path + " is not valid JSON (at byte " + std::to_string(e.byte) + ")");
  }
  auto text = [&](const char* name) {
    if (!j.is_object() || !j.contains(name) || !j[name].is_string())
      throw user_error("ein_generate: " + path + ": missing or malformed `" + name + "`");
    return j[name].get<std::string>();
  };
  if (std::string format = text("format"); format != model_file_format)
    throw user_error("ein_generate: " + path + ": format `" + format + "`, not `" + model_file_format +
                     "` (written by another version of ein?)");
  model_file m;
  m.object = text("object");
  m.model = text("model");
  std::string key = text("key");
  std::size_t used = 0;
  try {
    m.key = std::stoull(key, &used, 16);
  } catch (const std::exception&) {
    used = 0;
  }
  if (key.size() != 18 || key.rfind("0x", 0) != 0 || used != key.size())
    throw user_error("ein_generate: " + path + ": `key` is not a 64-bit hex number: " + key);
  if (!j.contains("program")) throw user_error("ein_generate: " + path + ": missing `program`");
  m.program = ir::from_json<ir::program>(j["program"]);
  return m;
}

}  // namespace ein::codegen
