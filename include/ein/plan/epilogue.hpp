// What a library call does to its result before writing it, in place of a separate eOperator
// that would read it: a bias vector and a residual tensor added, then ReLU (cuBLASLt's and
// cuDNN's fused epilogues; a loop after the call on the host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ein::plan {

/// `target[i...] = relu?(result[i...] + bias[i_d] + residual[i...])`, where `result` is what the
/// call computes and every term but `result` is optional. Buffers are the plan's (indices into
/// program_plan::buffers); the target and the residual have the call's output shape, whose
/// dimension `bias_dim` the bias vector runs along.
struct epilogue {
  std::string result;  // the definition the call computes, which the epilogue's target replaced
  std::optional<std::size_t> bias;
  std::size_t bias_dim = 0;
  std::optional<std::size_t> residual;
  bool relu = false;

  bool operator==(const epilogue&) const = default;
};

/// An epilogue as a library sees it on a target of a given shape: which terms it has and, for
/// the bias, the elements between its consecutive values in the target (`bias_step`) and how
/// many there are (`bias_extent`): `bias[(f / bias_step) % bias_extent]` for flat element f.
struct epilogue_form {
  bool bias = false, residual = false, relu = false;
  std::int64_t bias_step = 1, bias_extent = 1;

  /// The form of `e` on a target of shape `shape` (row-major).
  static epilogue_form of(const epilogue& e, const std::vector<std::int64_t>& shape) {
    epilogue_form f{e.bias.has_value(), e.residual.has_value(), e.relu};
    if (e.bias) {
      f.bias_extent = shape.at(e.bias_dim);
      for (std::size_t d = e.bias_dim + 1; d < shape.size(); ++d) f.bias_step *= shape[d];
    }
    return f;
  }
};

/// ` epilogue(bias=b@1, residual=r, relu)`: the plan's words for an epilogue, given the names of
/// its buffers (`@1`: the dimension the bias runs along).
inline std::string describe(const epilogue& e, const std::string& bias, const std::string& residual) {
  std::string terms;
  auto add = [&](const std::string& t) { terms += (terms.empty() ? "" : ", ") + t; };
  if (e.bias) add("bias=" + bias + "@" + std::to_string(e.bias_dim));
  if (e.residual) add("residual=" + residual);
  if (e.relu) add("relu");
  return " epilogue(" + terms + ")";
}

}  // namespace ein::plan
