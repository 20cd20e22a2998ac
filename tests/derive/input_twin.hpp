// Generated programs that contraction batching applies to: the generator's twins read another
// weight (shared-operand merging's case); these read another input.
#pragma once

#include <string>

#include "support/generate.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"

namespace derive_test {

/// From generated program `p`: its `d0`, a twin `d0_2` reading another input of the same shape
/// where d0 reads its first input, and the output `sum = d0 + d0_2` elementwise (their one
/// reader, so that both batching forms apply); `p` itself when d0 reads no input.
inline ein::ir::program input_twin(const ein::ir::program& p) {
  using namespace ein;
  auto* d0 = p.find_definition("d0");
  for (auto& x : ir::tensors_read(d0->value->body, ir::depth::nested)) {
    if (x.role != ir::tensor_role::input) continue;
    auto twin = x;
    twin.name = x.name + "_2";  // generated names have no underscore: fresh
    ir::program q{p.name, p.tensors, {*d0}, {"sum"}};
    q.tensors.push_back(twin);
    q.definitions.push_back({"d0_2", eval::detail::rename_tensor(d0->value, x.name, twin), d0->type});
    std::vector<ir::affine> at;
    for (auto& i : d0->value->traversal) at.push_back(ir::idx(i.name));
    auto read = [&](const ir::definition& d) {
      return ir::make_access(ir::tensor{d.name, d.type, d.value->shape(), ir::tensor_role::definition}, at);
    };
    q.definitions.push_back({"sum", ir::make_scope(d0->value->traversal, {}, read(q.definitions[0]) + read(q.definitions[1])), d0->type});
    return q;
  }
  return p;
}

}  // namespace derive_test
