// What the host and CUDA emitters of an eOperator share: its parameters, its iterator box and
// the summation loops that compute one output element.
#pragma once

#include <string>
#include <vector>

#include "ein/codegen/body.hpp"
#include "ein/codegen/index.hpp"
#include "ein/codegen/layout.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/ir/expr.hpp"

namespace ein::codegen {

/// `float` or `double`: the C++ element type of a buffer.
inline std::string element_text(ir::dtype t) { return ir::name(t); }

/// `[[maybe_unused]] const float* EIN_RESTRICT t_A, ..., float* EIN_RESTRICT t_conv`: read
/// buffers, then target. A read the body folds away (every element it reads lies outside the
/// buffer, so is 0) leaves its parameter unused.
inline std::string parameters_text(const step& s, const layout& plan) {
  std::string r;
  for (auto id : s.reads)
    r += "[[maybe_unused]] const " + element_text(plan.buffers[id].type) + "* EIN_RESTRICT " +
         plan.buffers[id].variable + ", ";
  const buffer& out = plan.buffers[s.target];
  return r + element_text(out.type) + "* EIN_RESTRICT " + out.variable;
}

/// `t_A, t_K, t_conv`: the arguments matching parameters_text.
inline std::string arguments_text(const step& s, const layout& plan) {
  std::string r;
  for (auto id : s.reads) r += plan.buffers[id].variable + ", ";
  return r + plan.buffers[s.target].variable;
}

/// The traversal and summation iterators of a step, each with its variable `i_<name>`.
/// @pre iterator names are distinct within the scope.
inline iterator_box make_box(const ir::scope& s) {
  iterator_box box;
  identifier_table ids;
  for (auto* list : {&s.traversal, &s.summation})
    for (auto& it : *list) {
      if (box.range.has(it.name))
        throw user_error("iterator `" + it.name + "` is declared twice in one scope");
      box.add(it, ids.make("i_", it.name));
    }
  return box;
}

inline bool empty_box(const std::vector<ir::iterator>& v) {
  for (auto& i : v)
    if (i.hi <= i.lo) return true;
  return false;
}

/// Computes element `target` of a max or min scope: the points whose body reads outside a box are
/// left out, and an element with none left is -inf (max) or +inf (min), as the interpreter does.
inline void emit_extremum(writer& w, const ir::scope& s, const layout& plan,
                          const iterator_box& box, const std::string& target,
                          const std::string& type) {
  const char* combine = s.reduce == ir::reduction::max ? "max" : "min";
  std::string empty = s.reduce == ir::reduction::max ? "-ein::runtime::fn::infinity()" : "ein::runtime::fn::infinity()";
  w.line("double acc = " + empty + ";");
  if (!empty_box(s.summation)) {
    for (auto& it : s.summation) {
      auto& v = box.variable.at(it.name);
      w.open("for (std::int64_t " + v + " = " + int_text(it.lo) + "; " + v + " < " +
             int_text(it.hi) + "; ++" + v + ")");
    }
    w.line("if (" + all_inside_text(s.body, plan, box) + ") acc = ein::runtime::fn::" + combine + "(acc, " +
           body_text(s.body, plan, box) + ");");
    for (std::size_t k = 0; k < s.summation.size(); ++k) w.close();
  }
  w.line(target + " = static_cast<" + type + ">(acc);");
}

/// Computes element `target` from the traversal variables already in scope: the summation
/// loops accumulate the body in double (an f32 program then rounds once, at the store, which
/// keeps eOperators within float rounding of the double interpreter).
inline void emit_element(writer& w, const ir::scope& s, const layout& plan,
                         const iterator_box& box, const std::string& target,
                         const std::string& type) {
  if (s.reduce != ir::reduction::sum) {
    emit_extremum(w, s, plan, box, target, type);
    return;
  }
  if (empty_box(s.summation)) {  // an empty sum is 0
    w.line(target + " = " + type + "(0);");
    return;
  }
  std::string body = body_text(s.body, plan, box);
  if (s.summation.empty()) {
    w.line(target + " = static_cast<" + type + ">(" + body + ");");
    return;
  }
  w.line("double acc = 0.0;");
  for (auto& it : s.summation) {
    auto& v = box.variable.at(it.name);
    w.open("for (std::int64_t " + v + " = " + int_text(it.lo) + "; " + v + " < " +
           int_text(it.hi) + "; ++" + v + ")");
  }
  w.line("acc += " + body + ";");
  for (std::size_t k = 0; k < s.summation.size(); ++k) w.close();
  w.line(target + " = static_cast<" + type + ">(acc);");
}

}  // namespace ein::codegen
