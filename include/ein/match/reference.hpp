// Reference executors of matched operators: each operator's plain loops (operator_def::execute)
// that read flat buffers exactly as the library would from the inferred attributes.
#pragma once

#include <span>

#include "ein/error.hpp"
#include "ein/match/all.hpp"
#include "ein/match/instance.hpp"

namespace ein::match {

/// Runs `op` on flat buffers the way its library call would: `inputs[t]` is the whole flattened
/// source of input t (the operand's offset is applied here), `output` the scope's value
/// (row-major over its traversal, every element written), in double.
/// Example: a matmul instance with lda = 3 reads A[i·3 + k]; execute runs operators::gemm_execute.
inline void execute(const instance& op, std::span<const double* const> inputs, double* output) {
  if (inputs.size() != op.inputs.size()) throw internal_error("execute: wrong number of inputs");
  const double* a = inputs[0] + op.inputs[0].offset;
  const double* b = inputs.size() > 1 ? inputs[1] + op.inputs[1].offset : nullptr;
  for (auto& def : operator_table())
    if (def.kind == op.kind) return def.execute(op, a, b, output);
  throw internal_error(std::string("execute: no operator ") + name(op.kind) + " in the table");
}

}  // namespace ein::match
