// reify: turns a front-end program into the runtime IR (ein::ir::program) that the interpreter,
// the derivation rules and the search work on. No algebra happens here: the IR is the program
// as written, indices put in canonical quasi-affine form. It reads the definitions' records
// (record.hpp), so it is compiled once whatever the program.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ein/front/key.hpp"
#include "ein/ir/expr.hpp"

namespace ein::front {

namespace detail {

/// The tensor a tensor_access or definition_read token names, with `role`.
inline ir::tensor tensor_of(const token& t, ir::tensor_role role) {
  return {std::string(t.name), t.type, {t.shape, t.shape + t.rank}, role};
}

/// Reads a record from its first token on.
class record_reader {
 public:
  explicit record_reader(std::span<const token> tokens) : tokens_(tokens) {}

  ir::definition definition() {
    const token& d = next();
    std::vector<ir::iterator> traversal = iterators(d.count), summation = iterators(d.value);
    ir::expr b = body();
    return {std::string(d.name),
            ir::make_scope(std::move(traversal), std::move(summation), std::move(b), static_cast<ir::reduction>(d.code)),
            d.type};
  }

 private:
  const token& next() {
    if (at_ == tokens_.size()) throw internal_error("reify: a definition's record ends early");
    return tokens_[at_++];
  }

  std::vector<ir::iterator> iterators(std::int64_t count) {
    std::vector<ir::iterator> out;
    for (std::int64_t k = 0; k < count; ++k) {
      const token& t = next();
      out.push_back({std::string(t.name), t.value, t.count});
    }
    return out;
  }

  ir::affine index() {
    const token& t = next();
    switch (t.kind) {
      case token_kind::index_iterator: return ir::affine::iter(std::string(t.name));
      case token_kind::index_constant: return ir::affine(t.value);
      case token_kind::index_sum: {
        ir::affine l = index();
        return l + index();
      }
      case token_kind::index_difference: {
        ir::affine l = index();
        return l - index();
      }
      case token_kind::index_scaled: return index() * t.value;
      case token_kind::index_quotient: return index().floordiv(t.value);
      case token_kind::index_remainder: return index().mod(t.value);
      default: throw internal_error("reify: a record has a body token where an index was expected");
    }
  }

  ir::expr body() {
    const token& t = next();
    switch (t.kind) {
      case token_kind::constant: return ir::make_constant(t.number);
      case token_kind::tensor_access:
      case token_kind::definition_read: {
        auto role = t.kind == token_kind::tensor_access ? static_cast<ir::tensor_role>(t.code)
                                                        : ir::tensor_role::definition;
        std::vector<ir::affine> idx;
        for (std::size_t k = 0; k < t.rank; ++k) idx.push_back(index());
        return ir::make_access(tensor_of(t, role), std::move(idx));
      }
      case token_kind::unary: return ir::make_unary(static_cast<ir::unary_fn>(t.code), body());
      case token_kind::binary: {
        ir::expr l = body();
        return ir::make_binary(static_cast<ir::binary_op>(t.code), std::move(l), body());
      }
      default: throw internal_error("reify: a record has an index token where a body was expected");
    }
  }

  std::span<const token> tokens_;
  std::size_t at_ = 0;
};

/// The IR of the program whose outputs are `outputs`, named `name`.
inline ir::program reify_outputs(std::span<const def_base* const> outputs, std::string name) {
  ir::program out;
  out.name = std::move(name);
  for (const def_base* d : topological_order(outputs)) {
    out.definitions.push_back(record_reader(d->record(*d)).definition());
    for_each_tensor_access(*d, [&out](const token& t) {
      for (const ir::tensor& known : out.tensors)
        if (known.name == t.name) return;
      out.tensors.push_back(tensor_of(t, static_cast<ir::tensor_role>(t.code)));
    });
  }
  for (const def_base* d : outputs) out.outputs.emplace_back(name_of(*d));
  return out;
}

}  // namespace detail

/// The IR of a program: its inputs and weights (in order of first use), every definition it
/// depends on in topological order (each a scope; accesses to definitions name a tensor with
/// role `definition`), and its outputs.
///
///     ir::program p = ein::reify(conv3x3::net, "conv3x3");
template <program_like P>
ir::program reify(const P& prog, std::string name = "") {
  if constexpr (std::is_same_v<P, invalid>) {
    ir::program out;
    out.name = std::move(name);
    return out;
  } else {
    auto outputs = prog.outputs();
    return detail::reify_outputs(outputs, std::move(name));
  }
}

}  // namespace ein::front
