// Shared checks of the match tests: an instance run by the reference executor on the flattened
// sources must equal the interpreter's value of the scope, on random inputs.
#pragma once

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/ir/print.hpp"
#include "ein/match/bridge.hpp"
#include "ein/match/distance.hpp"
#include "ein/match/match.hpp"
#include "ein/match/reference.hpp"
#include "ein/match/repack.hpp"

namespace ein::match::test {

inline void collect_tensors(const ir::expr& e, std::vector<ir::tensor>& out) {
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ir::unary>) {
          collect_tensors(n.arg, out);
        } else if constexpr (std::is_same_v<T, ir::binary>) {
          collect_tensors(n.lhs, out);
          collect_tensors(n.rhs, out);
        } else if constexpr (std::is_same_v<T, ir::access>) {
          if (auto* t = std::get_if<ir::tensor>(&n.source))
            out.push_back(*t);
          else
            collect_tensors(std::get<ir::scope_ptr>(n.source)->body, out);
        }
      },
      static_cast<const ir::node::variant&>(*e));
}

/// Random values for every tensor a scope reads (nested scopes included).
inline eval::bindings random_bindings(const ir::scope& s, std::uint64_t seed) {
  std::vector<ir::tensor> ts;
  collect_tensors(s.body, ts);
  eval::random_stream rng(seed);
  eval::bindings env;
  for (auto& t : ts)
    if (!env.count(t.name)) env[t.name] = eval::random_dense(t.shape, rng);
  return env;
}

/// max relative error between the reference executor of `op` and the interpreter on `s`.
inline double semantic_error(const ir::scope& s, const instance& op, std::uint64_t seed = 7) {
  auto env = random_bindings(s, seed);
  std::vector<std::vector<double>> buffers;
  for (auto& o : op.inputs) {
    if (auto* t = std::get_if<ir::tensor>(&o.source))
      buffers.push_back(env.at(t->name).data);
    else
      buffers.push_back(eval::evaluate(*std::get<ir::scope_ptr>(o.source), env).data);
  }
  std::vector<const double*> ptrs;
  for (auto& b : buffers) ptrs.push_back(b.data());
  auto ref = eval::evaluate(s, env);
  std::vector<double> out(ref.data.size(), 1e300);
  execute(op, ptrs, out.data());
  return eval::max_rel_error(std::span<const double>(out), ref);
}

/// The instances of kind `k` among match(s).
inline std::vector<instance> of_kind(const ir::scope& s, op_kind k) {
  std::vector<instance> r;
  for (auto& i : match(s))
    if (i.kind == k) r.push_back(i);
  return r;
}

/// Requires exactly one instance of kind k, checks it semantically and returns it.
inline instance expect_match(const ir::scope& s, op_kind k) {
  auto found = of_kind(s, k);
  INFO("scope: " << ir::to_string(s));
  REQUIRE(found.size() >= 1);
  for (auto& i : found) {
    INFO("instance: " << i.str());
    CHECK(semantic_error(s, i) < 1e-12);
  }
  return found.front();
}

inline void expect_no_match(const ir::scope& s, op_kind k) {
  INFO("scope: " << ir::to_string(s));
  auto found = of_kind(s, k);
  CHECK(found.empty());
  for (auto& i : found) INFO("unexpected: " << i.str());
}

inline ir::tensor f32(const std::string& name, std::vector<std::int64_t> shape) {
  return ir::tensor{name, ir::dtype::f32, std::move(shape)};
}

/// Permutes `v` by `perm`: result[i] = v[perm[i]].
template <class T>
std::vector<T> permute(const std::vector<T>& v, const std::vector<int>& perm) {
  std::vector<T> r;
  for (int p : perm) r.push_back(v[static_cast<std::size_t>(p)]);
  return r;
}

/// Every permutation of 0..n-1, in lexicographic order.
inline std::vector<std::vector<int>> permutations(int n) {
  std::vector<int> p(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = i;
  std::vector<std::vector<int>> all;
  do all.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  return all;
}

}  // namespace ein::match::test
