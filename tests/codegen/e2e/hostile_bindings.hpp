// Hostile bindings: every tensor of a call bound null, misaligned, one element short, or (an
// output) to another tensor's memory must make the call throw ein::user_error naming it.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ein/error.hpp"
#include "ein/ir/expr.hpp"
#include "ein/runtime/bindings.hpp"

namespace ein_test {

/// One tensor a call binds: its name, element type, element count and whether it is written.
struct bound_tensor {
  std::string name;
  ein::ir::dtype type = ein::ir::dtype::f32;
  std::size_t count = 0;
  bool written = false;
};

/// The tensors ein::run binds for program `p`: every input and weight (`weights`, when false,
/// leaves weights out; `others`, when false, binds weights only), then every output.
inline std::vector<bound_tensor> tensors_bound(const ein::ir::program& p, bool weights = true, bool others = true) {
  auto count = [](const std::vector<std::int64_t>& shape) {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    return n;
  };
  std::vector<bound_tensor> r;
  for (auto& t : p.tensors)
    if (t.role == ein::ir::tensor_role::weight ? weights : others) r.push_back({t.name, t.type, count(t.shape)});
  if (others)
    for (auto& o : p.outputs) {
      auto* d = p.find_definition(o);
      r.push_back({o, d->type, count(d->value->shape()), true});
    }
  return r;
}

/// `call(bindings)` passes with good bindings of `tensors`, and throws ein::user_error naming the
/// tensor (`` `name` ``) for each hostile binding of one tensor at a time: a null pointer, a
/// pointer one byte off its element alignment, a buffer one element short, and, for a written
/// tensor, a buffer overlapping the one bound to each other tensor (inputs, weights and the
/// other outputs).
inline void check_hostile_bindings(const std::vector<bound_tensor>& tensors,
                                   const std::function<void(const ein::runtime::bindings&)>& call) {
  // Storage in doubles (aligned for either element type), with room to shift and to share.
  std::size_t largest = 1;
  for (auto& t : tensors) largest = std::max(largest, t.count);
  std::vector<std::vector<double>> storage(tensors.size(), std::vector<double>(largest + 2, 0.0));
  std::vector<double> shared(largest + 2, 0.0);
  enum class hostile { none, null, misaligned, short_by_one, shared };
  auto bindings_with = [&](std::size_t victim, hostile how, std::size_t partner) {
    std::vector<ein::runtime::binding> items;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      auto& t = tensors[i];
      auto* base = reinterpret_cast<std::byte*>(storage[i].data());
      std::size_t count = t.count;
      if (how == hostile::shared && (i == victim || i == partner)) base = reinterpret_cast<std::byte*>(shared.data());
      if (i == victim && how == hostile::misaligned) base += 1;
      if (i == victim && how == hostile::short_by_one) --count;
      if (i == victim && how == hostile::null) base = nullptr;
      if (t.type == ein::ir::dtype::f32) {
        auto* p = reinterpret_cast<float*>(base);
        if (t.written)
          items.emplace_back(t.name, std::span<float>(p, count));
        else
          items.emplace_back(t.name, std::span<const float>(p, count));
      } else {
        auto* p = reinterpret_cast<double*>(base);
        if (t.written)
          items.emplace_back(t.name, std::span<double>(p, count));
        else
          items.emplace_back(t.name, std::span<const double>(p, count));
      }
    }
    return items;
  };
  auto refused = [&](std::size_t victim, hostile how, std::size_t partner, const char* what) {
    CAPTURE(tensors[victim].name);
    CAPTURE(what);
    try {
      call(ein::runtime::bindings(bindings_with(victim, how, partner)));
      FAIL("accepted");
    } catch (const ein::user_error& e) {
      std::string m = e.what();
      CHECK(m.find("`" + tensors[victim].name + "`") != std::string::npos);
      if (how == hostile::shared) CHECK(m.find("`" + tensors[partner].name + "`") != std::string::npos);
    }
  };
  CHECK_NOTHROW(call(ein::runtime::bindings(bindings_with(0, hostile::none, 0))));
  for (std::size_t v = 0; v < tensors.size(); ++v) {
    refused(v, hostile::null, v, "null");
    refused(v, hostile::misaligned, v, "misaligned");
    refused(v, hostile::short_by_one, v, "one element short");
    if (!tensors[v].written) continue;
    for (std::size_t other = 0; other < tensors.size(); ++other)
      if (other != v) refused(v, hostile::shared, other, "sharing memory");
  }
}

}  // namespace ein_test
