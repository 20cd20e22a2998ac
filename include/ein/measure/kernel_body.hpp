// The body ETO's reuse conditions compare (tune::kernel_shape::body): what an eOperator computes,
// up to its extents.
#pragma once

#include <map>
#include <regex>
#include <string>

#include "ein/ir/canonical.hpp"
#include "ein/ir/expr.hpp"

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
  static const std::regex tensor(R"(([A-Za-z_][A-Za-z0-9_]*):([a-z0-9]+)\[[0-9, ]*\])");
  const std::string text = std::regex_replace(ir::canonical_string(s), range, "[)");
  std::map<std::string, std::string> names;
  std::string body;
  auto from = text.cbegin();
  for (std::sregex_iterator m(text.begin(), text.end(), tensor), end; m != end; ++m) {
    body.append(from, (*m)[0].first);
    auto [name, added] = names.try_emplace((*m)[1].str(), "x" + std::to_string(names.size()));
    body += name->second + ":" + (*m)[2].str();
    from = (*m)[0].second;
  }
  body.append(from, text.cend());
  return body;
}

}  // namespace ein::measure
