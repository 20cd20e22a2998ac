// The key a kernel's tuning is recorded under: its canonical form up to its tensors' names, so that
// two kernels that differ only in the names of what they read share one record.
#pragma once

#include <map>
#include <regex>
#include <string>

namespace ein::tune {

namespace detail {

// `text` (a kernel's canonical form) with each tensor `name:type[shape]` named by its order of
// first appearance, `x0`, `x1`, ..., keeping its type, and its shape where `keep_shapes`.
inline std::string tensors_by_position(const std::string& text, bool keep_shapes) {
  static const std::regex tensor(R"(([A-Za-z_][A-Za-z0-9_]*):([a-z0-9]+)(\[[0-9, ]*\]))");
  std::map<std::string, std::string> names;
  std::string r;
  auto from = text.cbegin();
  for (std::sregex_iterator m(text.begin(), text.end(), tensor), end; m != end; ++m) {
    r.append(from, (*m)[0].first);
    auto [name, added] = names.try_emplace((*m)[1].str(), "x" + std::to_string(names.size()));
    r += name->second + ":" + (*m)[2].str();
    if (keep_shapes) r += (*m)[3].str();
    from = (*m)[0].second;
  }
  r.append(from, text.cend());
  return r;
}

}  // namespace detail

/// The tuning database's key of the kernel `kernel_key` names (cost::kernel_key's text of an
/// eOperator): the same text with its tensors named by order of first appearance. Their types,
/// shapes and index expressions stay, and a tensor read twice stays one tensor, so two kernels
/// share a key exactly where they compile to the same loops over other buffers: residual blocks'
/// ReLUs, repeated in a network under other names, are tuned once.
/// Example: `eoperator L([0,1)[0,14))S() relu(res4_b:float[1, 14][0+1*t0,0+1*t1])` gives
/// `eoperator L([0,1)[0,14))S() relu(x0:float[1, 14][0+1*t0,0+1*t1])`.
inline std::string unnamed_key(const std::string& kernel_key) { return detail::tensors_by_position(kernel_key, true); }

}  // namespace ein::tune
