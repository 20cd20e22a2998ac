// The scalar body of an eOperator as one C++ expression in the type it computes in (float or
// double), with the padding rule (reads outside a box are 0) checked only where the index
// ranges say a read can leave it.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "ein/codegen/index.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"

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

/// A literal of type `t` for the constant `v`: double_text, or for float the shortest text of
/// `v` rounded to float with an `f` suffix (`2.5f`, `(-0.1f)`), so that float arithmetic never
/// widens to double.
inline std::string constant_text(double v, ir::dtype t) {
  if (t == ir::dtype::f64) return double_text(v);
  auto f = static_cast<float>(v);
  if (!std::isfinite(v) || !std::isfinite(f))
    throw user_error("a constant of the program (" + std::to_string(v) + ") does not fit in float");
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  if (r.ec != std::errc()) throw internal_error("cannot print a constant");
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += "f";
  return f < 0 ? "(" + s + ")" : s;
}

/// `0.0f` or `0.0`: the value of a read outside its box, in type `t`.
inline std::string zero_text(ir::dtype t) { return t == ir::dtype::f32 ? "0.0f" : "0.0"; }

/// A read `source[index...]` in pieces of C++: its padding check (empty where no index range
/// leaves the source's box; `never` where one lies wholly outside it, so that the read is 0) and
/// its flattened offset into the source's buffer.
struct read_pieces {
  bool never = false;
  std::string check, offset;
};

inline read_pieces pieces_of(const ir::access& a, const named_plan& plan, const iterator_box& box) {
  const buffer& src = plan.buffers[plan.source_of(a)];
  if (a.index.size() != src.shape.size())
    throw user_error("access to `" + src.name + "` has " + std::to_string(a.index.size()) +
                     " indices but the tensor has rank " + std::to_string(src.shape.size()));
  read_pieces r;
  for (std::size_t d = 0; d < a.index.size(); ++d) {
    interval v = bounds(a.index[d], box);
    std::int64_t lo = src.lower[d], hi = src.lower[d] + src.shape[d] - 1;
    if (v.hi < lo || v.lo > hi) return {true, "", ""};
    bool below = v.lo < lo, above = v.hi > hi;
    if (!below && !above) continue;
    std::string e = index_text(a.index[d], box);
    std::string c = below && above ? "static_cast<std::uint64_t>(" + (lo == 0 ? e : "(" + e + ") - " + int_text(lo)) +
                                         ") < " + int_text(src.shape[d]) + "ULL"
                    : below ? e + " >= " + int_text(lo)
                            : e + " <= " + int_text(hi);
    r.check += (r.check.empty() ? "" : " && ") + c;
  }
  r.offset = index_text(offset(a.index, src.lower, src.shape), box);
  return r;
}

/// The read of `src` at the offset of `p` as C++ of type `t`, without its padding check: `t_A[off]`
/// (`static_cast<double>(t_A[off])` where the source's type is not `t`).
inline std::string unchecked_read_text(const buffer& src, const read_pieces& p, ir::dtype t) {
  std::string read = src.variable + "[" + p.offset + "]";
  return src.type == t ? read : "static_cast<" + std::string(ir::name(t)) + ">(" + read + ")";
}

/// The read `source[index...]` as C++ of type `t`: unchecked_read_text, guarded by
/// `check ? ... : 0.0f` where it can leave the source's box (pieces_of), the constant 0 where it
/// never enters it.
inline std::string access_text(const ir::access& a, const named_plan& plan, const iterator_box& box, ir::dtype t) {
  const buffer& src = plan.buffers[plan.source_of(a)];
  read_pieces p = pieces_of(a, plan, box);
  if (p.never) return zero_text(t);
  std::string read = unchecked_read_text(src, p, t);
  return p.check.empty() ? read : "(" + p.check + " ? " + read + " : " + zero_text(t) + ")";
}

/// A read whose value a kernel already holds: every occurrence of `read` is written `text`.
struct staged_read {
  ir::access read;
  std::string text;
};

/// The body `e` as a C++ expression of type `t` (float or double), fully parenthesized; a read
/// equal to one of `staged` (where given) is its text.
/// Example: `A[i, k] * relu(B[k, j])` over float tensors gives, in float,
/// `(t_A[2 * i_i + i_k] * ein::runtime::fn::relu(t_B[...]))`.
inline std::string body_text(const ir::expr& e, const named_plan& plan, const iterator_box& box, ir::dtype t,
                             const std::vector<staged_read>* staged = nullptr) {
  if (!e) throw internal_error("a scope body is null");
  return std::visit(
      [&](const auto& n) -> std::string {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::constant>) {
          return constant_text(n.value, t);
        } else if constexpr (std::is_same_v<T, ir::access>) {
          if (staged)
            for (auto& r : *staged)
              if (n.source == r.read.source && n.index == r.read.index) return r.text;
          return access_text(n, plan, box, t);
        } else if constexpr (std::is_same_v<T, ir::unary>) {
          return std::string("ein::runtime::fn::") + ir::name(n.fn) + "(" + body_text(n.arg, plan, box, t, staged) + ")";
        } else if (!ir::is_infix(n.op)) {
          return std::string("ein::runtime::fn::") + ir::symbol(n.op) + "(" + body_text(n.lhs, plan, box, t, staged) +
                 ", " + body_text(n.rhs, plan, box, t, staged) + ")";
        } else {
          return "(" + body_text(n.lhs, plan, box, t, staged) + " " + ir::symbol(n.op) + " " +
                 body_text(n.rhs, plan, box, t, staged) + ")";
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

/// The condition under which every read of `e` is inside its box (pieces_of), as C++: `true`
/// when the index ranges say they always are, `false` when one never is. A max or min scope keeps
/// a point only there (docs/decisions/0008). Each distinct check appears once.
/// Example: `max(A[i + k - 2], B[i]) - min(A[i + k - 2], 0)` over i in [0, 8), k in [0, 2), A of
/// extent 5, gives `(static_cast<std::uint64_t>(i_i + i_k - 2) < 5ULL)`.
inline std::string all_inside_text(const ir::expr& e, const named_plan& plan, const iterator_box& box) {
  std::vector<std::string> checks;
  for (const ir::access* a : ir::accesses_read(e)) {
    read_pieces p = pieces_of(*a, plan, box);
    if (p.never) return "false";
    if (!p.check.empty() && std::find(checks.begin(), checks.end(), p.check) == checks.end()) checks.push_back(p.check);
  }
  std::string cond;
  for (auto& c : checks) cond += (cond.empty() ? "(" : " && (") + c + ")";
  return cond.empty() ? "true" : cond;
}

}  // namespace ein::codegen
