// Partial derivatives of a body with respect to each read it makes: reverse accumulation over
// the expression tree, with the derivative of every function a body may apply.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ein/error.hpp"
#include "ein/grad/arithmetic.hpp"
#include "ein/ir/expr.hpp"

namespace ein::grad {

/// f'(x) for f = `fn`, written with `value` = f(x) (a definition's own output where f is its whole
/// body: relu's derivative step(x) is step(f(x))); nothing for a function without a derivative
/// (step: PyTorch's heaviside has none either).
///   neg: −1   relu: step(f)   sigmoid: f·(1 − f)   tanh: 1 − f²   exp: f   sqrt: 0.5 / f
inline std::optional<ir::expr> derivative(ir::unary_fn fn, const ir::expr& value) {
  auto one = ir::make_constant(1);
  switch (fn) {
    case ir::unary_fn::neg: return ir::make_constant(-1);
    case ir::unary_fn::relu: return ir::make_unary(ir::unary_fn::step, value);
    case ir::unary_fn::sigmoid: return value * (one - value);
    case ir::unary_fn::tanh: return one - value * value;
    case ir::unary_fn::exp: return value;
    case ir::unary_fn::sqrt: return ir::make_constant(0.5) / value;
    case ir::unary_fn::step: return std::nullopt;
  }
  return std::nullopt;
}

/// The share of a binary max (min) that goes to its left operand: 1 where it is the larger
/// (smaller), 0 where it is not, ½ at a tie, as PyTorch's maximum and minimum split it:
/// `0.5·(1 + step(l − r) − step(r − l))` for max.
inline ir::expr extremum_share(ir::binary_op op, const ir::expr& l, const ir::expr& r) {
  auto wins = op == ir::binary_op::max ? l - r : r - l;
  auto loses = op == ir::binary_op::max ? r - l : l - r;
  return ir::make_constant(0.5) * (ir::make_constant(1) + ir::make_unary(ir::unary_fn::step, wins) -
                                   ir::make_unary(ir::unary_fn::step, loses));
}

/// ∂body/∂(one read): `read` is the access node, `value` the partial derivative over the body's
/// iterators (it reads what the body reads).
struct partial {
  const ir::node* read = nullptr;
  ir::expr value;
};

namespace detail {

class accumulate {
 public:
  accumulate(const std::function<bool(const ir::access&)>& wanted, const std::string& where)
      : wanted_(wanted), where_(where) {}

  std::vector<partial> out;

  // Whether `e` holds a wanted read.
  bool depends(const ir::expr& e) {
    return std::visit(
        [&](const auto& n) -> bool {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ir::constant>) return false;
          else if constexpr (std::is_same_v<T, ir::access>) return wanted_(n);
          else if constexpr (std::is_same_v<T, ir::unary>) return depends(n.arg);
          else return depends(n.lhs) || depends(n.rhs);
        },
        static_cast<const ir::node::variant&>(*e));
  }

  // Propagates the adjoint `adj` of node `e` to the reads below it.
  void down(const ir::expr& e, const ir::expr& adj) {
    if (!depends(e)) return;
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ir::access>) {
            out.push_back({e.get(), adj});
          } else if constexpr (std::is_same_v<T, ir::unary>) {
            auto d = derivative(n.fn, e);
            if (!d)
              throw user_error("gradient: definition `" + where_ + "` applies " + ir::name(n.fn) +
                               ", which has no derivative, to a value that depends on a tensor differentiated");
            down(n.arg, times(adj, *d));
          } else if constexpr (std::is_same_v<T, ir::binary>) {
            binary(n, e, adj);
          }
        },
        static_cast<const ir::node::variant&>(*e));
  }

 private:
  void binary(const ir::binary& b, const ir::expr& e, const ir::expr& adj) {
    switch (b.op) {
      case ir::binary_op::add:
        down(b.lhs, adj);
        down(b.rhs, adj);
        return;
      case ir::binary_op::sub:
        down(b.lhs, adj);
        down(b.rhs, negate(adj));
        return;
      case ir::binary_op::mul:
        down(b.lhs, times(adj, b.rhs));
        down(b.rhs, times(adj, b.lhs));
        return;
      case ir::binary_op::div:
        down(b.lhs, adj / b.rhs);
        down(b.rhs, negate(times(adj, e) / b.rhs));
        return;
      case ir::binary_op::max:
      case ir::binary_op::min:
        down(b.lhs, times(adj, extremum_share(b.op, b.lhs, b.rhs)));
        down(b.rhs, times(adj, extremum_share(b.op, b.rhs, b.lhs)));
        return;
    }
  }

  const std::function<bool(const ir::access&)>& wanted_;
  const std::string& where_;
};

}  // namespace detail

/// ∂body/∂a for every read `a` of `body` that `wanted` selects, in pre-order, one entry per read
/// (a tensor read twice has two). Nested scopes are reads like any other (the gradient stage
/// names them first, grad/normalize.hpp). `where` names the definition in errors.
/// @throws user_error naming `where` when a wanted read lies under a function without a
///         derivative (step).
/// Example: body `A[i, k] * relu(B[k, j])`, wanted A and B: ∂/∂A[i, k] = relu(B[k, j]),
/// ∂/∂B[k, j] = A[i, k] · step(relu(B[k, j])).
inline std::vector<partial> partials(const ir::expr& body, const std::function<bool(const ir::access&)>& wanted,
                                     const std::string& where) {
  detail::accumulate a(wanted, where);
  a.down(body, ir::make_constant(1));
  return std::move(a.out);
}

}  // namespace ein::grad
