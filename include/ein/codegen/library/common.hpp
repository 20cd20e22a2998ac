// Text pieces shared by the library-call emitters: literals, pointer offsets, element types.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

#include "ein/ir/expr.hpp"

namespace ein::codegen::library {

/// A floating-point literal of the element type that reads back as exactly `v` in double
/// (`0.5`, `-2.0`, `static_cast<float>(0.1)`): shortest round-trip text, never locale-dependent.
inline std::string literal(double v, ir::dtype t) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s = r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("0");
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return t == ir::dtype::f32 ? "static_cast<float>(" + s + ")" : s;
}

/// `name + offset` (or `name` when the offset is 0).
inline std::string advanced(const std::string& name, std::int64_t offset) {
  return offset == 0 ? name : name + " + " + std::to_string(offset);
}

inline std::string number(std::int64_t v) { return std::to_string(v); }

/// `true` or `false`: a C++ bool literal.
inline std::string flag(bool b) { return b ? "true" : "false"; }

/// The declaration of a generated plan's table `name` of per-stream state of ein::runtime::`type`
/// (runtime::per_stream), made on first use and never destroyed (per_stream says why).
inline std::string state_table(const std::string& type, const std::string& name) {
  return "static auto& " + name + " = *new ein::runtime::per_stream<ein::runtime::" + type + ">;";
}

}  // namespace ein::codegen::library
