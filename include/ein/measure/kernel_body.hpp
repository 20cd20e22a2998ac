// The body ETO's reuse conditions compare (tune::kernel_shape::body): what an eOperator computes,
// up to its extents.
#pragma once

#include <regex>
#include <string>

#include "ein/ir/canonical.hpp"
#include "ein/ir/expr.hpp"
#include "ein/tune/kernel_key.hpp"

namespace ein::measure {

/// The canonical text of eOperator `s` (ir::canonical_string) without what varies between two
/// kernels that compute the same function over different boxes: each loop's range becomes `[)`,
/// each tensor is named by its order of first appearance and keeps its element type but not its
/// shape. Index expressions, constants, reductions and types stay, so two kernels share a body
/// only where one's loops map onto the other's (ETO's "same type and sketch set").
/// Example: `L([0,1)[0,14))S() relu(res4_b:float[1, 14][0+1*t0,0+1*t1])` gives
/// `L([)[))S() relu(x0:float[0+1*t0,0+1*t1])`.
inline std::string kernel_body(const ir::scope& s) {
  static const std::regex range(R"(\[-?[0-9]+,-?[0-9]+\))");
  return tune::detail::tensors_by_position(std::regex_replace(ir::canonical_string(s), range, "[)"), false);
}

}  // namespace ein::measure
