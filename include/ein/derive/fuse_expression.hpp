// Expression fusion (EinNet §4.2): a producer definition is inlined into its only consumer.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ein/derive/program_edit.hpp"
#include "ein/derive/rule.hpp"

namespace ein::derive {

/// Expression fusion of dependent expressions (vertical fusion):
///
///   L_{y∈Y} g(T'[π(y)]) ∘ L_{x∈X} f(T[τ(x)])  ⇒  L_{y∈Y} g({L_{x∈X} f(T[τ(x)])}[π(y)])
///
/// where T' is the producer's result. The producer's scope becomes a nested scope of the
/// consumer at every access to T' (reads outside its box stay padding, as the tensor's were),
/// and the producer's definition is removed. Traversal merging (an intra-expression rule) then
/// folds the nested scope into the consumer where its index allows.
/// Holds for max and min scopes on either side: the nested scope has the tensor's box and values,
/// so a consumer's read leaves the same box, and leaves out the same points.
/// @pre the producer is not a program output, exactly one definition (the consumer) reads it
///      (any number of times), and its traversal ranges start at 0 (so the nested scope's box is
///      the tensor's box).
/// Example: `t = L_{i:[0,4)} Σ_{k:[0,3)} A[i, k] * B[k]`, `y = L_{i:[0,4)} relu(t[i])` ⇒
///   `y = L_{i:[0,4)} relu({L_{i:[0,4)} Σ_{k:[0,3)} A[i, k] * B[k]}[i])`.
inline std::vector<program_candidate> fuse_expression(const ir::program& source) {
  std::vector<program_candidate> out;
  for (std::size_t d = 0; d < source.definitions.size(); ++d) {
    auto& producer = source.definitions[d];
    if (std::find(source.outputs.begin(), source.outputs.end(), producer.name) != source.outputs.end() ||
        !detail::zero_based(*producer.value))
      continue;
    auto readers = detail::readers(source, producer.name);
    if (readers.size() != 1) continue;
    auto c = readers.front();
    auto p = source;
    auto& consumer = p.definitions[c];
    consumer.value = detail::rewrite_accesses(
        consumer.value, [&](const ir::access& a, const ir::tensor& t) -> std::optional<ir::expr> {
          if (t.name != producer.name) return std::nullopt;
          return ir::make_access(producer.value, a.index);
        });
    auto consumer_name = consumer.name;
    p.definitions.erase(p.definitions.begin() + static_cast<std::ptrdiff_t>(d));
    out.push_back({std::move(p), {"fuse_expression", std::nullopt, {{"definition", producer.name}, {"into", consumer_name}}}});
  }
  return out;
}

}  // namespace ein::derive
