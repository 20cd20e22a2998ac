// The IR printer: scopes, body expressions and programs in the paper's notation, one line each.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "ein/ir/expr.hpp"

namespace ein::ir {

std::string to_string(const scope& s);

namespace detail {

/// Shortest text that reads back as exactly `v` (std::to_chars), so printing is deterministic
/// and loses nothing: `2`, `0.5`, `-1e-07`, `inf`, `nan`.
inline std::string number_text(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("?");
}

inline std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

inline std::string iterators_text(const std::vector<iterator>& v) {
  std::vector<std::string> parts;
  for (auto& i : v)
    parts.push_back(i.name + ":[" + std::to_string(i.lo) + "," + std::to_string(i.hi) + ")");
  return "{" + join(parts, ", ") + "}";
}

// Binding strength of an expression's top node: sums 1, products 2, prefix minus 3, atoms and
// calls 4.
inline int precedence(const expr& e) {
  if (auto* b = std::get_if<binary>(e.get()))
    return !is_infix(b->op) ? 4 : b->op == binary_op::add || b->op == binary_op::sub ? 1 : 2;
  if (auto* u = std::get_if<unary>(e.get())) return u->fn == unary_fn::neg ? 3 : 4;
  if (auto* c = std::get_if<constant>(e.get())) return c->value < 0 ? 3 : 4;
  return 4;
}

inline std::string wrap(const std::string& s, bool parens) { return parens ? "(" + s + ")" : s; }

inline std::string expr_text(const expr& e) {
  if (!e) return "<null>";
  return std::visit(
      [&](const auto& n) -> std::string {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, constant>) {
          return number_text(n.value);
        } else if constexpr (std::is_same_v<T, access>) {
          std::vector<std::string> idx;
          for (auto& a : n.index) idx.push_back(a.str());
          std::string src = std::holds_alternative<tensor>(n.source)
                                ? std::get<tensor>(n.source).name
                                : "{" + to_string(*std::get<scope_ptr>(n.source)) + "}";
          return src + "[" + join(idx, ", ") + "]";
        } else if constexpr (std::is_same_v<T, unary>) {
          if (n.fn == unary_fn::neg) return "-" + wrap(expr_text(n.arg), precedence(n.arg) <= 3);
          return std::string(name(n.fn)) + "(" + expr_text(n.arg) + ")";
        } else if (!is_infix(n.op)) {
          return std::string(symbol(n.op)) + "(" + expr_text(n.lhs) + ", " + expr_text(n.rhs) + ")";
        } else {
          // Left-associative: a right operand of equal strength keeps its parentheses, so the
          // printed text shows the tree exactly (`a - (b - c)`, `a + (b + c)`).
          int p = precedence(e);
          return wrap(expr_text(n.lhs), precedence(n.lhs) < p) + " " + symbol(n.op) + " " +
                 wrap(expr_text(n.rhs), precedence(n.rhs) <= p);
        }
      },
      static_cast<const node::variant&>(*e));
}

inline const char* role_text(tensor_role r) {
  switch (r) {
    case tensor_role::input: return "input";
    case tensor_role::weight: return "weight";
    case tensor_role::definition: return "definition";
  }
  return "?";
}

inline std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::vector<std::string> parts;
  for (auto e : shape) parts.push_back(std::to_string(e));
  return "[" + join(parts, ", ") + "]";
}

}  // namespace detail

/// A body expression with the fewest parentheses its tree needs.
/// Example: `A[i, k] * B[k, j] + relu(C[i, j] - 1)`.
inline std::string to_string(const expr& e) { return detail::expr_text(e); }

/// A scope on one line; a sum's summation part is left out when there is none (a max or min
/// always shows its reduction), nested scopes print inline in braces. Examples:
/// `L_{i:[0,4), j:[0,5)} Σ_{k:[0,3)} A[i, k] * {L_{a:[0,3), b:[0,5)} B[a, b]}[k, j]`,
/// `L_{h:[0,3)} max_{r:[0,2)} max(A[h + r], 0)`.
inline std::string to_string(const scope& s) {
  std::string r = "L_" + detail::iterators_text(s.traversal) + " ";
  if (s.reduce != reduction::sum)
    r += std::string(name(s.reduce)) + "_" + detail::iterators_text(s.summation) + " ";
  else if (!s.summation.empty())
    r += "Σ_" + detail::iterators_text(s.summation) + " ";
  return r + detail::expr_text(s.body);
}

/// `input A: float[1, 7, 7, 512]`.
inline std::string to_string(const tensor& t) {
  return std::string(detail::role_text(t.role)) + " " + t.name + ": " + name(t.type) +
         detail::shape_text(t.shape);
}

/// A program, one line each: its name, its inputs and weights, `name = <scope>` per definition
/// in order, then its outputs. Every line ends with a newline.
inline std::string to_string(const program& p) {
  std::string r = "program " + p.name + "\n";
  for (auto& t : p.tensors) r += to_string(t) + "\n";
  for (auto& d : p.definitions)
    r += d.name + " = " + (d.value ? to_string(*d.value) : std::string("<null>")) + "\n";
  for (auto& o : p.outputs) r += "output " + o + "\n";
  return r;
}

}  // namespace ein::ir
