// The plan of a program as data: its buffers, its kernels in execution order (each a bound
// library call or an eOperator), its weight transforms, and the derivation that led to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ein/derive/rule.hpp"
#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/match/instance.hpp"
#include "ein/plan/capabilities.hpp"
#include "ein/plan/epilogue.hpp"

namespace ein::plan {

/// A tensor of the plan: a bound input, weight or output, or a temporary the plan allocates.
struct buffer {
  enum class kind : std::uint8_t { input, output, temporary };
  std::string name;  // the IR name (bindings use it); a nested scope gets `<def>.<k>`
  ir::dtype type = ir::dtype::f32;
  std::vector<std::int64_t> lower, shape;
  kind role = kind::input;
  bool weight = false;  // an input that is a weight of the program (bound by ein::prepare)

  std::int64_t count() const {
    std::int64_t n = 1;
    for (auto e : shape) n *= e;
    return n;
  }
};

/// A kernel computed by one library call: the library, the instance and the buffer each of its
/// inputs reads, in the instance's operand order (the output is the kernel's target), and what
/// the call does to its result before writing it (plan::fuse_epilogues), if anything. In a
/// searched plan the instance is the one the search priced for the kernel's definition; in a
/// program taken as written, the first its build's libraries run (plan::make_plan).
struct library_call {
  plan::library library = blas;
  match::instance op;
  std::vector<std::size_t> inputs;
  std::optional<plan::epilogue> epilogue;

  /// The buffer a convolution's call reads its filter from: conv2d's and conv_transpose2d's
  /// operands are (x, w) and (dy, w), so it is the second.
  std::size_t filter() const { return inputs.at(1); }

  /// `library matmul(A=x+0, B=W+0) batch=1 m=64 ... epilogue(bias=b@1, relu)`: the plan's words
  /// for the call, naming the buffers of `buffers` (the plan's, or a layout's) it reads.
  template <class Buffers>
  std::string str(const Buffers& buffers) const {
    std::string r = "library " + op.str();
    if (epilogue)
      r += describe(*epilogue, epilogue->bias ? buffers[*epilogue->bias].name : "",
                    epilogue->residual ? buffers[*epilogue->residual].name : "");
    return r;
  }
};

/// One kernel: computes buffer `target` (its box, `value`'s traversal) from the buffers in
/// `reads` (in order of first read), as `call` when it is a library call, else as an eOperator
/// evaluating `value`. Nested scopes `value` reads are earlier kernels.
struct kernel {
  std::size_t target = 0;
  ir::scope_ptr value;
  std::vector<std::size_t> reads;
  /// Reads weights only (directly or through other weight-only kernels): a weight transform,
  /// run before every other kernel.
  bool weight_only = false;
  std::optional<library_call> call;
  /// The index in program_plan::derivations of the subprogram whose derivation wrote the
  /// definition this kernel computes (or a part of), when a search chose it.
  std::optional<std::size_t> origin;
};

/// How a subprogram's part of the plan was reached: the search's choice among its candidates.
struct derivation {
  std::string subprogram;  // the definition it became: `d`, or `d_s1`, ... for a summation
  std::string definition;  // the definition of the source program it comes from
  bool searched = false;   // false: instantiated as written (no summation to derive)
  std::string target;      // the operator derivation converged to, or "as written" / "explored"
  /// Rule steps from the source, how the operator matched, then post-optimization steps.
  std::vector<derive::step> steps;
  double seconds = 0;  // the chosen plan's predicted time as the priced build runs it
  double baseline_seconds = 0;  // the plan as written, priced the same way (never below `seconds`)
};

/// How a plan's eOperators compute (codegen/precision.hpp): in the element type of their tensors
/// (`element`, the default: float for float tensors, with blocked summation), or in double,
/// rounding once at the store (`f64`).
enum class accumulation : std::uint8_t { element, f64 };
inline const char* name(accumulation a) { return a == accumulation::element ? "element" : "double"; }

/// The statistics of the search that chose a plan, for the JSON report.
struct search_summary {
  std::uint64_t states_visited = 0;
  std::uint64_t pruned_by_fingerprint = 0;
  int max_depth = 0;
  double time_s = 0;
  std::string stop_reason;
  std::string cost_model;  // the cost model's description
  std::string report;      // the search's report, one subprogram after another
  bool cut = false;        // the search ran out of budget: the plan is the best found within it
};

/// Which buffer each name and each materialized nested scope of a plan is.
struct buffer_index {
  std::map<std::string, std::size_t> by_name;       // inputs, weights and definitions
  std::map<const ir::scope*, std::size_t> by_scope;  // materialized nested scopes

  /// The buffer an access reads.
  /// @throws user_error when it reads a tensor that is no buffer (yet).
  std::size_t source_of(const ir::access& a) const {
    if (auto* s = std::get_if<ir::scope_ptr>(&a.source)) return by_scope.at(s->get());
    auto& t = std::get<ir::tensor>(a.source);
    auto it = by_name.find(t.name);
    if (it == by_name.end())
      throw user_error("tensor `" + t.name + "` is read but is neither an input or weight of the "
                       "program nor a definition before the one that reads it");
    return it->second;
  }
};

/// The plan of one program for one build: what codegen emits and the report describes.
/// Buffers: the program's tensors (inputs and weights, in declaration order), then per
/// definition its buffer (an output or a temporary) and the temporaries of its nested scopes.
/// Kernels run in order; weight transforms come first.
struct program_plan : buffer_index {
  std::string program;               // the program's name
  std::vector<std::string> outputs;  // the program's outputs, in its order
  std::vector<buffer> buffers;
  std::vector<kernel> kernels;
  capabilities bound_for;                   // the build the calls are bound for
  std::vector<derivation> derivations;      // per searched or instantiated subprogram
  std::vector<derive::step> program_steps;  // program-level post-optimization, in order
  /// How its eOperators compute, as the generation asked (ein_generate ACCUMULATE).
  accumulation accumulate = accumulation::element;
  /// Its float library calls on cuda may round their operands to TF32 (cuBLAS and cuDNN on
  /// tensor cores), as the profile that priced them says; otherwise they run in full float.
  bool tf32 = false;
  std::optional<search_summary> statistics;  // of the search, where one chose the plan
};

}  // namespace ein::plan
