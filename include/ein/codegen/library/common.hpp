// Text pieces shared by the library-call emitters: literals, pointer offsets, element types.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/runtime/element_type.hpp"

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

/// The runtime's name of an IR element type (runtime::element_type lists ir::dtype's types in its
/// order).
constexpr runtime::element_type runtime_type(ir::dtype t) { return static_cast<runtime::element_type>(t); }
// The runtime sizes elements on its own, as it includes nothing of the IR: the same sizes.
static_assert([] {
  for (ir::dtype t : ir::all_dtypes)
    if (static_cast<std::int64_t>(runtime::element_bytes(runtime_type(t))) != ir::element_bytes(t))
      return false;
  return true;
}(), "runtime::element_bytes and ir::element_bytes disagree");

/// The C++ enumerator of `t`: `ein::runtime::element_type::bf16`.
inline std::string type_text(runtime::element_type t) {
  switch (t) {
    case runtime::element_type::f32: return "ein::runtime::element_type::f32";
    case runtime::element_type::f64: return "ein::runtime::element_type::f64";
    case runtime::element_type::f16: return "ein::runtime::element_type::f16";
    case runtime::element_type::bf16: return "ein::runtime::element_type::bf16";
  }
  throw internal_error("type_text: no such element type");
}

/// `true` or `false`: a C++ bool literal.
inline std::string flag(bool b) { return b ? "true" : "false"; }

/// The declaration of a generated plan's table `name` of per-stream state of ein::runtime::`type`
/// (runtime::per_stream), made on first use and never destroyed (per_stream says why).
inline std::string state_table(const std::string& type, const std::string& name) {
  return "static auto& " + name + " = *new ein::runtime::per_stream<ein::runtime::" + type + ">;";
}

}  // namespace ein::codegen::library
