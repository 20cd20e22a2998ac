// The scalar body of an eOperator as one C++ expression in double, with the padding rule
// (reads outside a box are 0) checked only where the index ranges say a read can leave it.
#pragma once

#include <charconv>
#include <cmath>
#include <string>
#include <system_error>
#include <variant>

#include "ein/codegen/index.hpp"
#include "ein/codegen/layout.hpp"
#include "ein/detail/error.hpp"
#include "ein/ir/expr.hpp"

namespace ein::codegen {

/// A double literal that reads back exactly (shortest round trip), parenthesized when negative.
inline std::string double_text(double v) {
  if (!std::isfinite(v)) throw user_error("a constant in the program is not finite");
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  if (r.ec != std::errc()) throw internal_error("cannot print a constant");
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return v < 0 ? "(" + s + ")" : s;
}

/// The condition under which `source[index...]` reads inside the source's box, as C++: empty
/// when the index ranges say it always does, `false` when they say it never does, else a
/// conjunction over the dimensions whose range leaves the box.
inline std::string inside_text(const ir::access& a, const layout& plan, const iterator_box& box) {
  const buffer& src = plan.buffers[plan.source_of(a)];
  if (a.index.size() != src.shape.size())
    throw user_error("access to `" + src.name + "` has " + std::to_string(a.index.size()) +
                     " indices but the tensor has rank " + std::to_string(src.shape.size()));
  std::string cond;
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    interval r = bounds(a.index[d], box);
    std::int64_t lo = src.lower[d], hi = src.lower[d] + src.shape[d] - 1;
    if (r.hi < lo || r.lo > hi) return "false";
    bool below = r.lo < lo, above = r.hi > hi;
    if (!below && !above) continue;
    std::string e = index_text(a.index[d], box);
    std::string c = below && above ? "static_cast<std::uint64_t>(" + (lo == 0 ? e : "(" + e + ") - " + int_text(lo)) +
                                         ") < " + int_text(src.shape[d]) + "ULL"
                    : below ? e + " >= " + int_text(lo)
                            : e + " <= " + int_text(hi);
    cond += (cond.empty() ? "" : " && ") + c;
  }
  return cond;
}

/// The read `source[index...]` as C++: `static_cast<double>(t_A[off])`, guarded by
/// `cond ? ... : 0.0` for each dimension whose index range leaves the source's box.
inline std::string access_text(const ir::access& a, const layout& plan, const iterator_box& box) {
  const buffer& src = plan.buffers[plan.source_of(a)];
  std::string cond = inside_text(a, plan, box);
  if (cond == "false") return "0.0";  // never inside: the read is the constant 0
  std::string read = "static_cast<double>(" + src.variable + "[" +
                     index_text(offset(a.index, src.lower, src.shape), box) + "])";
  return cond.empty() ? read : "(" + cond + " ? " + read + " : 0.0)";
}

/// The body `e` as a C++ expression of type double, fully parenthesized.
/// Example: `A[i, k] * relu(B[k, j])` gives
/// `(static_cast<double>(t_A[2 * i_i + i_k]) * ein::runtime::fn::relu(static_cast<double>(t_B[...])))`.
inline std::string body_text(const ir::expr& e, const layout& plan, const iterator_box& box) {
  if (!e) throw internal_error("a scope body is null");
  return std::visit(
      [&](const auto& n) -> std::string {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::constant>) {
          return double_text(n.value);
        } else if constexpr (std::is_same_v<T, ir::access>) {
          return access_text(n, plan, box);
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          return std::string("ein::runtime::fn::") + ir::name(n.fn) + "(" +
                 body_text(n.arg, plan, box) + ")";
        } else if (!ir::is_infix(n.op)) {
          return std::string("ein::runtime::fn::") + ir::symbol(n.op) + "(" + body_text(n.lhs, plan, box) +
                 ", " + body_text(n.rhs, plan, box) + ")";
        } else {
          return "(" + body_text(n.lhs, plan, box) + " " + ir::symbol(n.op) + " " +
                 body_text(n.rhs, plan, box) + ")";
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

/// The condition under which every access of `e` reads inside its box, as C++ (`true` when the
/// index ranges say they always do): where a max or min scope keeps a point
/// (docs/decisions/0008).
inline std::string all_inside_text(const ir::expr& e, const layout& plan, const iterator_box& box) {
  std::string cond;
  auto visit = [&](auto& self, const ir::expr& x) -> void {
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ir::access>) {
            std::string c = inside_text(n, plan, box);
            if (!c.empty()) cond += (cond.empty() ? "" : " && ") + ("(" + c + ")");
          } else if constexpr (std::is_same_v<T, ir::unary>) {
            self(self, n.arg);
          } else if constexpr (std::is_same_v<T, ir::binary>) {
            self(self, n.lhs);
            self(self, n.rhs);
          }
        },
        static_cast<const ir::node::variant&>(*x));
  };
  visit(visit, e);
  return cond.empty() ? "true" : cond;
}

}  // namespace ein::codegen
