// What the host and CUDA emitters of an eOperator share: its parameters, its iterator box and
// the summation loops that compute one output element.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ein/codegen/body.hpp"
#include "ein/codegen/index.hpp"
#include "ein/codegen/named_plan.hpp"
#include "ein/codegen/precision.hpp"
#include "ein/codegen/writer.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"

namespace ein::codegen {

/// `float`, `double`, `ein::half` or `ein::bfloat16`: the C++ element type of a buffer.
inline std::string element_text(ir::dtype t) { return ir::is_16bit(t) ? std::string("ein::") + ir::name(t) : ir::name(t); }

/// `[[maybe_unused]] const float* EIN_RESTRICT t_A, ..., float* EIN_RESTRICT t_conv`: read
/// buffers, then target. A read the body folds away (every element it reads lies outside the
/// buffer, so is 0) leaves its parameter unused.
inline std::string parameters_text(const named_kernel& s, const named_plan& plan) {
  std::string r;
  for (auto id : s.reads)
    r += "[[maybe_unused]] const " + element_text(plan.buffers[id].type) + "* EIN_RESTRICT " +
         plan.buffers[id].variable + ", ";
  const buffer& out = plan.buffers[s.target];
  return r + element_text(out.type) + "* EIN_RESTRICT " + out.variable;
}

/// `t_A, t_K, t_conv`: the arguments matching parameters_text.
inline std::string arguments_text(const named_kernel& s, const named_plan& plan) {
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

/// How emit_element writes a step's arithmetic: the type it computes and sums in
/// (compute_type) and the C++ type of its loop variables.
struct arithmetic {
  ir::dtype compute = ir::dtype::f32;
  std::string index = "std::int64_t";
};

/// Sums of up to this many terms have their loops unrolled (EIN_UNROLL): a 3×3 window, say.
inline constexpr std::int64_t unrolled_terms = 32;

/// The value of a max (min) scope's element with no point left, in type `t`: -inf (+inf).
inline std::string no_point_text(ir::reduction r, ir::dtype t) {
  std::string inf = "ein::runtime::fn::infinity<" + std::string(ir::name(t)) + ">()";
  return r == ir::reduction::max ? "-" + inf : inf;
}

/// Outputs that one thread of a kernel computes together: `count` consecutive values of the
/// innermost traversal iterator `iterator`, from the C++ expression `first` on, so that a read
/// that does not depend on it is made once for all of them; the reads in `vectors` are loaded
/// for every lane at once (runtime::load_lanes).
struct lane_plan {
  std::int64_t count = 1;
  std::string iterator, first;
  std::vector<ir::access> vectors;
};

/// Computes element `target` (a C++ lvalue of type `type`) from the traversal variables already
/// in scope, in `a.compute`: the body, or its sum over the summation loops, accumulated in one
/// variable or, for a long float sum, in blocks (codegen::blocks), and rounded to `type` once.
/// A max or min scope starts from no_point_text and combines (runtime::fn::max, min) only the
/// points where every read is inside its box (all_inside_text), as docs/decisions/0008 says;
/// max and min are exact, so they compute in `a.compute` too, without blocks.
/// With `lanes.count` > 1, `target` is a `runtime::lanes` of that many elements, each lane
/// computed with its own value of the lane iterator and accumulated in `acc[lane]`.
/// Example (float, Σ_{r:[0,3), s:[0,3), c:[0,512)}): `float acc = 0.0f; for (r) for (s)
/// for (chunk_i_c = 0; chunk_i_c < 512; chunk_i_c += 64) { float part = 0.0f; for (c in the
/// chunk) part += body; acc += part; } target = static_cast<float>(acc);`; its max:
/// `float acc = -ein::runtime::fn::infinity<float>(); for (r) for (s) for (c) if (inside)
/// acc = ein::runtime::fn::max(acc, body); target = static_cast<float>(acc);`
inline void emit_element(writer& w, const ir::scope& s, const named_plan& plan, const iterator_box& box,
                         const std::string& target, const std::string& type, const arithmetic& a,
                         const lane_plan& lanes = {}) {
  const bool many = lanes.count > 1;
  const std::string t = ir::name(a.compute), zero = zero_text(a.compute), count = int_text(lanes.count);
  const std::string out = many ? target + ".v[lane]" : target;
  // The reads loaded as lanes, named lanes_<k>, and each lane's value of them.
  std::vector<staged_read> staged;
  std::vector<std::string> loads;
  if (many) {
    iterator_box first = box;
    first.variable[lanes.iterator] = lanes.first;
    for (auto& r : lanes.vectors) {
      const buffer& src = plan.buffers[plan.source_of(r)];
      std::string name = "lanes_" + std::to_string(loads.size()), value = name + "[lane]";
      std::string type = "ein::runtime::lanes<" + element_text(src.type) + ", " + count + ">";
      read_pieces p = pieces_of(r, plan, first);  // its check does not depend on the lane
      std::string load = "ein::runtime::load_lanes<" + count + ">(" + src.variable + " + " + p.offset + ")";
      loads.push_back("const " + type + " " + name + " = " + (p.check.empty() ? load : p.check + " ? " + load + " : " + type + "{}") + ";");
      staged.push_back({r, src.type == a.compute ? value : "static_cast<" + t + ">(" + value + ")"});
    }
  }
  // `statement` for each lane (the lane iterator defined where `own_value`), after the loads.
  auto each_lane = [&](const std::string& statement, bool own_value) {
    if (!many) {
      w.line(statement);
      return;
    }
    if (own_value)
      for (auto& l : loads) w.line(l);
    w.line("EIN_UNROLL");
    w.open("for (int lane = 0; lane < " + count + "; ++lane)");
    if (own_value)
      w.line("[[maybe_unused]] const " + a.index + " " + box.variable.at(lanes.iterator) + " = " + lanes.first +
             " + lane;");
    w.line(statement);
    w.close();
  };
  const bool sum = s.reduce == ir::reduction::sum;
  const std::string inside = sum ? "true" : all_inside_text(s.body, plan, box);
  const std::string none = sum ? zero : no_point_text(s.reduce, a.compute);
  if (empty_box(s.summation) || inside == "false") {  // no point: 0, -inf or +inf
    each_lane(out + " = " + (sum ? type + "(0)" : "static_cast<" + type + ">(" + none + ")") + ";", false);
    return;
  }
  if (!sum)  // a max or min reads only where every read is inside: no read needs its own check
    for (auto* r : ir::accesses_read(s.body))
      staged.push_back({*r, unchecked_read_text(plan.buffers[plan.source_of(*r)], pieces_of(*r, plan, box), a.compute)});
  std::string body = body_text(s.body, plan, box, a.compute, many || !sum ? &staged : nullptr);
  if (s.summation.empty()) {
    std::string value = inside == "true" ? body : "(" + inside + " ? " + body + " : " + none + ")";
    each_lane(out + " = static_cast<" + type + ">(" + value + ");", true);
    return;
  }
  const bool unroll = terms(s.summation) <= unrolled_terms;
  auto loop = [&](const ir::iterator& it, const std::string& from, const std::string& condition) {
    auto& v = box.variable.at(it.name);
    if (unroll) w.line("EIN_UNROLL");
    w.open("for (" + a.index + " " + v + " = " + from + "; " + condition + "; ++" + v + ")");
  };
  auto whole = [&](const ir::iterator& it) {
    loop(it, int_text(it.lo), box.variable.at(it.name) + " < " + int_text(it.hi));
  };
  auto declare = [&](const std::string& name) {
    if (!many) {
      w.line(t + " " + name + " = " + none + ";");
      return;
    }
    std::string each;
    for (std::int64_t k = 0; !sum && k < lanes.count; ++k) each += (k ? ", " : "") + none;
    w.line(t + " " + name + "[" + count + "] = {" + each + "};");
  };
  auto split = sum ? blocks(s.summation, a.compute) : std::nullopt;
  declare("acc");
  const std::size_t from = split ? split->inner : s.summation.size();
  const std::string into = split ? "part" : "acc", lane = many ? "[lane]" : "";
  {
    const writer::nested outer(w);  // the loops before the block, the chunk's loop, the block
    for (std::size_t k = 0; k < from; ++k) whole(s.summation[k]);
    std::string chunk;
    if (split && split->chunk) {
      auto& it = s.summation[from];
      chunk = "chunk_" + box.variable.at(it.name);
      w.open("for (" + a.index + " " + chunk + " = " + int_text(it.lo) + "; " + chunk + " < " + int_text(it.hi) +
             "; " + chunk + " += " + int_text(split->chunk) + ")");
    }
    if (split) {
      w.open("");
      declare("part");
    }
    {
      const writer::nested inner(w);  // the loops of the block (all of them without one)
      for (std::size_t k = from; k < s.summation.size(); ++k) {
        auto& it = s.summation[k];
        if (k > from || chunk.empty()) {
          whole(it);
          continue;
        }
        auto& v = box.variable.at(it.name);
        bool exact = it.extent() % split->chunk == 0;
        loop(it, chunk,
             v + " < " + chunk + " + " + int_text(split->chunk) + (exact ? "" : " && " + v + " < " + int_text(it.hi)));
      }
      each_lane(sum ? into + lane + " += " + body + ";"
                    : (inside == "true" ? "" : "if (" + inside + ") ") + "acc" + lane + " = ein::runtime::fn::" +
                          ir::name(s.reduce) + "(acc" + lane + ", " + body + ");",
                true);
    }
    if (split) each_lane("acc" + lane + " += part" + lane + ";", false);
  }
  each_lane(out + " = static_cast<" + type + ">(acc" + lane + ");", false);
}

}  // namespace ein::codegen
