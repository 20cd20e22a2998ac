// A plan as the emitters see it: its buffers and kernels with the C++ identifiers they get in
// generated code (pointer variables `t_<name>`, functions `eop_<name>`).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/plan/build.hpp"
#include "ein/plan/plan.hpp"

namespace ein::codegen {

/// A buffer of the plan and its C++ pointer variable, `t_<name>`.
struct buffer : ein::plan::buffer {
  std::string variable;
};

/// A kernel of the plan (an eOperator or a library call) and the base name of its host
/// function and CUDA kernel, `eop_<name>`.
struct named_kernel : ein::plan::kernel {
  std::string function;
};

/// C++ identifiers made from IR names: invalid characters become `_`, and each is unique in its
/// table (a repeat gets `_2`, `_3`, ...), deterministically.
class identifier_table {
 public:
  std::string make(const std::string& prefix, const std::string& raw) {
    std::string id = prefix;
    for (char ch : raw) {
      bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
      id += ok ? ch : '_';
    }
    std::string unique = id;
    for (int k = 2; !used_.insert(unique).second; ++k) unique = id + "_" + std::to_string(k);
    return unique;
  }

 private:
  std::set<std::string> used_;
};

/// Buffers and steps of a plan, in execution order, with their identifiers.
struct named_plan : ein::plan::buffer_index {
  std::vector<buffer> buffers;
  std::vector<named_kernel> steps;
};

/// The layout of plan `p`: its buffers and kernels in its order, buffers named `t_<name>` and
/// steps `eop_<name>` (the name of the buffer a step writes), made unique in buffer order.
inline named_plan make_named_plan(const ein::plan::program_plan& p) {
  named_plan l;
  static_cast<ein::plan::buffer_index&>(l) = p;
  identifier_table buffer_ids, function_ids;
  std::vector<std::string> function(p.buffers.size());
  std::vector<bool> written(p.buffers.size(), false);
  for (auto& k : p.kernels) written[k.target] = true;
  for (std::size_t id = 0; id < p.buffers.size(); ++id) {
    l.buffers.push_back({p.buffers[id], buffer_ids.make("t_", p.buffers[id].name)});
    if (written[id]) function[id] = function_ids.make("eop_", p.buffers[id].name);
  }
  for (auto& k : p.kernels) l.steps.push_back({k, function[k.target]});
  return l;
}

/// The layout of `p` taken as written, every definition (and nested scope) an eOperator.
inline named_plan make_named_plan(const ir::program& p) { return make_named_plan(ein::plan::make_plan(p, {})); }

}  // namespace ein::codegen
