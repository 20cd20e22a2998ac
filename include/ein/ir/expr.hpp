// The reified IR: iterators, scalar expression nodes, scopes, tensors and programs.
// Their semantics are written out in include/ein/ir/README.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ein/ir/affine.hpp"

namespace ein::ir {

/// Element types a tensor may have: float, double, and the 16-bit ein::half (IEEE binary16) and
/// ein::bfloat16 (ein/half.hpp), which plans compute in float and round once when stored.
/// The interpreter computes in double whatever the type, and rounds what a definition of a 16-bit
/// type stores (docs/decisions/0028). New types go at the end: program keys hash the value.
enum class dtype : std::uint8_t { f32, f64, f16, bf16 };
inline const char* name(dtype t) {
  switch (t) {
    case dtype::f32: return "float";
    case dtype::f64: return "double";
    case dtype::f16: return "half";
    case dtype::bf16: return "bfloat16";
  }
  return "unknown";
}
/// Every element type, in enum order: what readers of a dtype's name try.
inline constexpr dtype all_dtypes[] = {dtype::f32, dtype::f64, dtype::f16, dtype::bf16};
/// Bytes of one element.
inline constexpr std::int64_t element_bytes(dtype t) { return t == dtype::f64 ? 8 : t == dtype::f32 ? 4 : 2; }
/// Whether `t` is one of the 16-bit types (half, bfloat16).
inline constexpr bool is_16bit(dtype t) { return t == dtype::f16 || t == dtype::bf16; }
/// The type a definition of type `owner` holds the values it computes on the way in (its nested
/// scopes, the steps a search splits out of it): float for a 16-bit definition, which computes in
/// float and rounds once, where it stores its own value (docs/decisions/0028); `owner` else.
inline constexpr dtype held_type(dtype owner) { return is_16bit(owner) ? dtype::f32 : owner; }

/// The unary functions of a body; the list drives printing, evaluation and code generation.
/// `step` is 1 where its argument is positive and 0 elsewhere: relu's derivative, which the
/// gradient stage (include/ein/grad) writes; it has no derivative of its own.
#define EIN_FOR_EACH_UNARY_FN(X) \
  X(neg)                         \
  X(relu)                        \
  X(sigmoid)                     \
  X(tanh)                        \
  X(exp)                         \
  X(sqrt)                        \
  X(step)

enum class unary_fn : std::uint8_t {
#define EIN_ENUM_ITEM(n) n,
  EIN_FOR_EACH_UNARY_FN(EIN_ENUM_ITEM)
#undef EIN_ENUM_ITEM
};
inline const char* name(unary_fn f) {
  switch (f) {
#define EIN_NAME_ITEM(n) \
  case unary_fn::n:      \
    return #n;
    EIN_FOR_EACH_UNARY_FN(EIN_NAME_ITEM)
#undef EIN_NAME_ITEM
  }
  return "?";
}

/// Binary operators: the four of arithmetic, then `max` and `min`, which print and generate as
/// calls (`max(a, b)`) rather than infix.
enum class binary_op : std::uint8_t { add, sub, mul, div, max, min };
inline const char* symbol(binary_op op) {
  constexpr const char* s[] = {"+", "-", "*", "/", "max", "min"};
  return s[static_cast<int>(op)];
}
inline bool is_infix(binary_op op) { return op != binary_op::max && op != binary_op::min; }
inline bool is_commutative(binary_op op) {
  return op == binary_op::add || op == binary_op::mul || !is_infix(op);
}

/// How a scope combines its body over the summation box. `sum` adds (an out-of-box read is 0);
/// `max` and `min` leave out every summation point whose body reads a source outside its box,
/// and an element with no point left is -inf (max) or +inf (min): docs/decisions/0008.
enum class reduction : std::uint8_t { sum, max, min };
inline const char* name(reduction r) {
  constexpr const char* s[] = {"sum", "max", "min"};
  return s[static_cast<int>(r)];
}

/// An iterator and its half-open range [lo, hi); lo may be negative.
struct iterator {
  std::string name;
  std::int64_t lo = 0, hi = 0;
  std::int64_t extent() const { return hi - lo; }
  friend bool operator==(const iterator&, const iterator&) = default;
};

/// Where a tensor comes from: a program input, a weight (known before run time), or the output
/// of a named definition of the same program.
enum class tensor_role : std::uint8_t { input, weight, definition };

/// A named tensor with box [0, shape). Reads outside the box yield 0.
struct tensor {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::int64_t> shape;
  tensor_role role = tensor_role::input;
  friend bool operator==(const tensor&, const tensor&) = default;
};

struct scope;
struct node;
using expr = std::shared_ptr<const node>;             // scalar-valued body expression
using scope_ptr = std::shared_ptr<const scope>;       // tensor-valued nested scope

struct constant {
  double value = 0;
};
/// `source[index...]`: the source is a named tensor or a nested scope (a closed term: it reads
/// no iterator of the enclosing scope). Out-of-box reads are 0.
struct access {
  std::variant<tensor, scope_ptr> source;
  std::vector<affine> index;
};
struct unary {
  unary_fn fn;
  expr arg;
};
struct binary {
  binary_op op;
  expr lhs, rhs;
};

/// A body expression node; the alternatives are the one list of node kinds.
struct node : std::variant<constant, access, unary, binary> {
  using variant::variant;
};

/// L_{traversal} Σ_{summation} body: a tensor over the traversal box (its order is the layout)
/// whose elements sum `body` over the summation box, or take its max or min (`reduction`).
struct scope {
  std::vector<iterator> traversal;
  std::vector<iterator> summation;
  expr body;
  reduction reduce = reduction::sum;

  std::vector<std::int64_t> lower() const {
    std::vector<std::int64_t> v;
    for (auto& i : traversal) v.push_back(i.lo);
    return v;
  }
  std::vector<std::int64_t> shape() const {
    std::vector<std::int64_t> v;
    for (auto& i : traversal) v.push_back(i.extent());
    return v;
  }
};

/// A named definition of a program: `name = value`.
struct definition {
  std::string name;
  scope_ptr value;
  dtype type = dtype::f32;
};

/// A DAG of definitions in topological order; `tensors` lists the inputs and weights.
struct program {
  std::string name;
  std::vector<tensor> tensors;
  std::vector<definition> definitions;
  std::vector<std::string> outputs;

  const definition* find_definition(const std::string& n) const {
    for (auto& d : definitions)
      if (d.name == n) return &d;
    return nullptr;
  }
};

// ---- construction helpers (the interface that rules, tests and the front end build with) ----

inline expr make_constant(double v) { return std::make_shared<const node>(constant{v}); }
inline expr make_access(tensor t, std::vector<affine> index) {
  return std::make_shared<const node>(access{std::move(t), std::move(index)});
}
inline expr make_access(scope_ptr s, std::vector<affine> index) {
  return std::make_shared<const node>(access{std::move(s), std::move(index)});
}
inline expr make_unary(unary_fn f, expr a) {
  return std::make_shared<const node>(unary{f, std::move(a)});
}
inline expr make_binary(binary_op op, expr l, expr r) {
  return std::make_shared<const node>(binary{op, std::move(l), std::move(r)});
}
inline scope_ptr make_scope(std::vector<iterator> traversal, std::vector<iterator> summation,
                            expr body, reduction reduce = reduction::sum) {
  return std::make_shared<const scope>(
      scope{std::move(traversal), std::move(summation), std::move(body), reduce});
}

inline expr operator+(expr a, expr b) { return make_binary(binary_op::add, std::move(a), std::move(b)); }
inline expr operator-(expr a, expr b) { return make_binary(binary_op::sub, std::move(a), std::move(b)); }
inline expr operator*(expr a, expr b) { return make_binary(binary_op::mul, std::move(a), std::move(b)); }
inline expr operator/(expr a, expr b) { return make_binary(binary_op::div, std::move(a), std::move(b)); }
inline expr max(expr a, expr b) { return make_binary(binary_op::max, std::move(a), std::move(b)); }
inline expr min(expr a, expr b) { return make_binary(binary_op::min, std::move(a), std::move(b)); }

/// Shorthand for an iterator as an index: `idx("h") + idx("r") - 1`.
inline affine idx(std::string name) { return affine::iter(std::move(name)); }

/// The box [lo, lo + shape) of an access source.
inline std::vector<std::int64_t> source_lower(const access& a) {
  if (auto* s = std::get_if<scope_ptr>(&a.source)) return (*s)->lower();
  return std::vector<std::int64_t>(std::get<tensor>(a.source).shape.size(), 0);
}
inline std::vector<std::int64_t> source_shape(const access& a) {
  if (auto* s = std::get_if<scope_ptr>(&a.source)) return (*s)->shape();
  return std::get<tensor>(a.source).shape;
}

}  // namespace ein::ir
