// JSON reading and writing of the IR (nlohmann/json); reading back what was written is exact.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ein/error.hpp"
#include "ein/detail/json_input.hpp"
#include "ein/ir/expr.hpp"
#include "ein/ir/print.hpp"
#include "ein/ir/verify.hpp"

namespace ein::ir {

// Layout (nlohmann::json writes the keys of an object sorted, so output is deterministic):
//   iterator   {"name": "h", "lo": 0, "hi": 7}
//   affine     {"constant": -1, "terms": [{"coefficient": 1, "iterator": "h"},
//               {"coefficient": 2, "floordiv": <affine>, "divisor": 7},
//               {"coefficient": 1, "mod": <affine>, "divisor": 7}]}
//   tensor     {"name": "A", "dtype": "float", "shape": [3, 4], "role": "input"}
//   expr       {"kind": "constant", "value": 1.5}   (non-finite values as "inf", "-inf", "nan")
//              {"kind": "access", "tensor": <tensor>, "index": [<affine>...]}
//              {"kind": "access", "scope": <scope>, "index": [<affine>...]}
//              {"kind": "unary", "fn": "relu", "arg": <expr>}
//              {"kind": "binary", "op": "add", "lhs": <expr>, "rhs": <expr>}  (add sub mul div max min)
//   scope      {"traversal": [<iterator>...], "summation": [<iterator>...], "body": <expr>,
//               "reduction": "max"}   ("sum", "max" or "min"; written only when not "sum")
//   definition {"name": "conv", "dtype": "float", "value": <scope>}
//   program    {"name": "net", "tensors": [...], "definitions": [...], "outputs": ["conv"]}

inline nlohmann::json to_json(const iterator& i) {
  return {{"name", i.name}, {"lo", i.lo}, {"hi", i.hi}};
}

inline nlohmann::json to_json(const affine& a) {
  auto terms = nlohmann::json::array();
  for (auto& [at, c] : a.terms()) {
    nlohmann::json t = {{"coefficient", c}};
    switch (at.k) {
      case atom::kind::iter: t["iterator"] = at.name; break;
      case atom::kind::floordiv: t["floordiv"] = to_json(*at.arg), t["divisor"] = at.divisor; break;
      case atom::kind::mod: t["mod"] = to_json(*at.arg), t["divisor"] = at.divisor; break;
    }
    terms.push_back(std::move(t));
  }
  return {{"constant", a.constant()}, {"terms", std::move(terms)}};
}

namespace detail {
inline const char* role_name(tensor_role r) {
  constexpr const char* names[] = {"input", "weight", "definition"};
  return names[static_cast<int>(r)];
}
inline const char* op_name(binary_op op) {
  constexpr const char* names[] = {"add", "sub", "mul", "div", "max", "min"};
  return names[static_cast<int>(op)];
}
}  // namespace detail

inline nlohmann::json to_json(const tensor& t) {
  return {{"name", t.name},
          {"dtype", name(t.type)},
          {"shape", t.shape},
          {"role", detail::role_name(t.role)}};
}

nlohmann::json to_json(const scope& s);

inline nlohmann::json to_json(const expr& e) {
  if (!e) throw user_error("ein IR JSON: cannot write a null expression");
  return std::visit(
      [](const auto& n) -> nlohmann::json {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, constant>) {
          nlohmann::json v = n.value;
          if (std::isnan(n.value))
            v = "nan";
          else if (std::isinf(n.value))
            v = n.value > 0 ? "inf" : "-inf";
          return {{"kind", "constant"}, {"value", v}};
        } else if constexpr (std::is_same_v<T, access>) {
          nlohmann::json j = {{"kind", "access"}};
          if (auto* t = std::get_if<tensor>(&n.source)) {
            j["tensor"] = to_json(*t);
          } else {
            auto& s = std::get<scope_ptr>(n.source);
            if (!s) throw user_error("ein IR JSON: cannot write an access to a null scope");
            j["scope"] = to_json(*s);
          }
          auto idx = nlohmann::json::array();
          for (auto& a : n.index) idx.push_back(to_json(a));
          j["index"] = std::move(idx);
          return j;
        } else if constexpr (std::is_same_v<T, unary>) {
          return {{"kind", "unary"}, {"fn", name(n.fn)}, {"arg", to_json(n.arg)}};
        } else {
          return {{"kind", "binary"},
                  {"op", detail::op_name(n.op)},
                  {"lhs", to_json(n.lhs)},
                  {"rhs", to_json(n.rhs)}};
        }
      },
      static_cast<const node::variant&>(*e));
}

inline nlohmann::json to_json(const scope& s) {
  auto its = [](const std::vector<iterator>& v) {
    auto a = nlohmann::json::array();
    for (auto& i : v) a.push_back(to_json(i));
    return a;
  };
  nlohmann::json j = {
      {"traversal", its(s.traversal)}, {"summation", its(s.summation)}, {"body", to_json(s.body)}};
  // a sum is written as before, so that existing files and reports keep their bytes
  if (s.reduce != reduction::sum) j["reduction"] = name(s.reduce);
  return j;
}

inline nlohmann::json to_json(const definition& d) {
  if (!d.value) throw user_error("ein IR JSON: definition `" + d.name + "` has no value");
  return {{"name", d.name}, {"dtype", name(d.type)}, {"value", to_json(*d.value)}};
}

inline nlohmann::json to_json(const program& p) {
  nlohmann::json j = {{"name", p.name}};
  j["tensors"] = nlohmann::json::array();
  for (auto& t : p.tensors) j["tensors"].push_back(to_json(t));
  j["definitions"] = nlohmann::json::array();
  for (auto& d : p.definitions) j["definitions"].push_back(to_json(d));
  j["outputs"] = p.outputs;
  return j;
}

namespace detail {

// Reads the IR back; every error names the input (`what`, a file name, when given), the JSON path
// (`/definitions/0/value/body/lhs`) and the field. Besides the form of each field it checks what
// the IR needs of the values, so that nothing downstream computes with a misread one: the
// invariants of verify (checked where the field is read, then by verify itself), integers within
// json_limits, and no index whose values can overflow.
class json_reader {
 public:
  using json = nlohmann::json;

  explicit json_reader(const std::string& what)
      : in_("ein IR JSON" + (what.empty() ? std::string() : ": " + what)) {}

  template <class T>
  T read(const json& j) {
    return read(j, "", std::type_identity<T>{});
  }

 private:
  // What the IR can hold: every integer of the file (iterator bounds, extents, index constants,
  // coefficients, divisors) up to 2^40 in magnitude; tensors and scope boxes up to 2^48 elements;
  // the coefficients, constants and values of an index up to 2^61, so that no sum of two
  // overflows; nesting up to 1000 levels.
  static constexpr std::int64_t integer_limit = std::int64_t(1) << 40;
  static constexpr double volume_limit = 281474976710656.0;  // 2^48
  static constexpr std::int64_t index_limit = std::int64_t(1) << 61;
  static constexpr int depth_limit = 1000;

  // The largest magnitude of each iterator of the scope being read.
  using magnitudes = std::map<std::string, double>;

  [[noreturn]] void fail(const std::string& path, const std::string& what) const { in_.fail(path, what); }

  // Counts the nesting of what is being read, so that a hostile file cannot exhaust the stack.
  class nested {
   public:
    nested(json_reader& r, const std::string& path) : r_(r) {
      if (++r_.depth_ > depth_limit)
        r_.fail(path, "nested deeper than " + std::to_string(depth_limit) + " levels");
    }
    nested(const nested&) = delete;
    nested& operator=(const nested&) = delete;
    ~nested() { --r_.depth_; }

   private:
    json_reader& r_;
  };

  const json& field(const json& j, const char* key, const std::string& path) const {
    return in_.field(j, key, path);
  }
  std::int64_t integer(const json& j, const std::string& path) const {
    return in_.integer(j, path, integer_limit);
  }
  std::string text(const json& j, const std::string& path) const { return in_.text(j, path); }
  const json& array(const json& j, const std::string& path) const { return in_.array(j, path); }
  static std::string at(const std::string& path, const char* key) { return ein::detail::json_input::at(path, key); }
  static std::string at(const std::string& path, std::size_t i) { return ein::detail::json_input::at(path, i); }

  iterator read(const json& j, const std::string& p, std::type_identity<iterator>) {
    iterator i{text(field(j, "name", p), at(p, "name")), integer(field(j, "lo", p), at(p, "lo")),
               integer(field(j, "hi", p), at(p, "hi"))};
    if (i.name.empty()) fail(at(p, "name"), "an iterator needs a name");
    if (i.lo >= i.hi)
      fail(p, "iterator `" + i.name + "` has an empty range [" + std::to_string(i.lo) + ", " +
                  std::to_string(i.hi) + ")");
    return i;
  }

  // The largest magnitude of a coefficient or the constant of `a`.
  static std::int64_t largest(const affine& a) {
    auto mag = [](std::int64_t v) { return v < 0 ? -v : v; };
    std::int64_t m = mag(a.constant());
    for (auto& [t, c] : a.terms()) m = std::max(m, mag(c));
    return m;
  }

  affine read(const json& j, const std::string& p, std::type_identity<affine>) {
    nested guard(*this, p);
    affine r(integer(field(j, "constant", p), at(p, "constant")));
    auto& terms = array(field(j, "terms", p), at(p, "terms"));
    for (std::size_t i = 0; i < terms.size(); ++i) {
      auto tp = at(at(p, "terms"), i);
      auto& t = terms[i];
      std::int64_t c = integer(field(t, "coefficient", tp), at(tp, "coefficient"));
      affine a;
      if (t.contains("iterator")) {
        a = affine::iter(text(t["iterator"], at(tp, "iterator")));
      } else {
        bool div = t.contains("floordiv");
        if (!div && !t.contains("mod")) fail(tp, "a term needs `iterator`, `floordiv` or `mod`");
        const char* key = div ? "floordiv" : "mod";
        affine arg = read(t[key], at(tp, key), std::type_identity<affine>{});
        std::int64_t d = integer(field(t, "divisor", tp), at(tp, "divisor"));
        if (d <= 0) fail(at(tp, "divisor"), "a divisor must be positive, got " + std::to_string(d));
        a = div ? arg.floordiv(d) : arg.mod(d);
      }
      // Each step keeps coefficients within index_limit, so no sum or product overflows.
      if (c != 0 && largest(a) > index_limit / (c < 0 ? -c : c))
        fail(at(tp, "coefficient"), "the term's coefficients overflow (at most " +
                                        std::to_string(index_limit) + " in magnitude)");
      r = r + a * c;
      if (largest(r) > index_limit)
        fail(tp, "the index's coefficients overflow (at most " + std::to_string(index_limit) +
                     " in magnitude)");
    }
    return r;
  }

  // The largest magnitude of a value of `a` over the iterators' magnitudes `m`, or nothing where
  // it reads an iterator `m` does not have (its name in `unknown`).
  static std::optional<double> magnitude(const affine& a, const magnitudes& m,
                                         std::string& unknown) {
    double v = std::abs(static_cast<double>(a.constant()));
    for (auto& [t, c] : a.terms()) {
      double term = 0;
      if (t.k == atom::kind::iter) {
        auto it = m.find(t.name);
        if (it == m.end()) {
          unknown = t.name;
          return std::nullopt;
        }
        term = it->second;
      } else {
        auto arg = magnitude(*t.arg, m, unknown);
        if (!arg) return std::nullopt;
        if (*arg > static_cast<double>(index_limit)) return arg;
        term = t.k == atom::kind::floordiv ? *arg / static_cast<double>(t.divisor) + 1
                                           : static_cast<double>(t.divisor - 1);
      }
      v += std::abs(static_cast<double>(c)) * term;
    }
    return v;
  }

  dtype read_dtype(const json& j, const std::string& p) const {
    auto s = text(j, p);
    for (dtype t : all_dtypes)
      if (s == name(t)) return t;
    fail(p, "unknown dtype `" + s + "` (expected `float`, `double`, `half` or `bfloat16`)");
  }

  reduction read_reduction(const json& j, const std::string& p) const {
    auto s = text(j, p);
    for (reduction r : {reduction::sum, reduction::max, reduction::min})
      if (s == name(r)) return r;
    fail(p, "unknown reduction `" + s + "` (expected `sum`, `max` or `min`)");
  }

  tensor read(const json& j, const std::string& p, std::type_identity<tensor>) {
    tensor t;
    t.name = text(field(j, "name", p), at(p, "name"));
    if (t.name.empty()) fail(at(p, "name"), "a tensor needs a name");
    t.type = read_dtype(field(j, "dtype", p), at(p, "dtype"));
    auto& shape = array(field(j, "shape", p), at(p, "shape"));
    double elements = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      auto e = integer(shape[i], at(at(p, "shape"), i));
      if (e <= 0)
        fail(at(at(p, "shape"), i), "tensor `" + t.name + "` has a non-positive extent " + std::to_string(e));
      t.shape.push_back(e);
      elements *= static_cast<double>(e);
    }
    if (elements > volume_limit)
      fail(at(p, "shape"), "tensor `" + t.name + "` has more than 2^48 elements");
    auto role = text(field(j, "role", p), at(p, "role"));
    bool known = false;
    for (tensor_role r : {tensor_role::input, tensor_role::weight, tensor_role::definition})
      if (role == role_name(r)) t.role = r, known = true;
    if (!known)
      fail(at(p, "role"), "unknown role `" + role + "` (expected input, weight or definition)");
    return t;
  }

  // An access: its source, then each index, of the source's rank and, inside a scope whose
  // iterators `m` gives, reading those iterators only and within index_limit.
  expr read_access(const json& j, const std::string& p, const magnitudes* m) {
    std::variant<tensor, scope_ptr> source;
    std::size_t rank = 0;
    if (j.contains("tensor")) {
      auto t = read(j["tensor"], at(p, "tensor"), std::type_identity<tensor>{});
      // One name, one tensor: every read of it agrees on its type, shape and role.
      auto [seen, first] = tensors_.emplace(t.name, std::pair{t, at(p, "tensor")});
      if (!first && !(seen->second.first == t))
        fail(at(p, "tensor"), "tensor `" + t.name + "` is read as " + to_string(t) + " here but as " +
                                  to_string(seen->second.first) + " at " + seen->second.second);
      rank = t.shape.size();
      source = std::move(t);
    } else if (j.contains("scope")) {
      auto s = std::make_shared<const scope>(read(j["scope"], at(p, "scope"), std::type_identity<scope>{}));
      rank = s->traversal.size();
      source = std::move(s);
    } else {
      fail(p, "an access needs a `tensor` or a `scope` field");
    }
    std::vector<affine> index;
    auto& idx = array(field(j, "index", p), at(p, "index"));
    if (idx.size() != rank)
      fail(at(p, "index"), std::to_string(idx.size()) + " indices read a source of rank " + std::to_string(rank));
    for (std::size_t i = 0; i < idx.size(); ++i) {
      auto ip = at(at(p, "index"), i);
      index.push_back(read(idx[i], ip, std::type_identity<affine>{}));
      if (!m) continue;
      std::string unknown;
      auto v = magnitude(index.back(), *m, unknown);
      if (!v) fail(ip, "the index reads iterator `" + unknown + "`, which its scope does not declare");
      if (*v > static_cast<double>(index_limit))
        fail(ip, "the index `" + index.back().str() + "` can take values beyond 2^61 in magnitude");
    }
    return std::visit([&](auto& s) { return make_access(std::move(s), std::move(index)); }, source);
  }

  expr read(const json& j, const std::string& p, std::type_identity<expr>, const magnitudes* m = nullptr) {
    nested guard(*this, p);
    auto kind = text(field(j, "kind", p), at(p, "kind"));
    if (kind == "constant") {
      auto& v = field(j, "value", p);
      if (v.is_number()) return make_constant(v.get<double>());
      if (v == "inf") return make_constant(std::numeric_limits<double>::infinity());
      if (v == "-inf") return make_constant(-std::numeric_limits<double>::infinity());
      if (v == "nan") return make_constant(std::numeric_limits<double>::quiet_NaN());
      fail(at(p, "value"), "expected a number, \"inf\", \"-inf\" or \"nan\", got " + v.dump());
    }
    if (kind == "access") return read_access(j, p, m);
    if (kind == "unary") {
      auto fn = text(field(j, "fn", p), at(p, "fn"));
      expr arg = read(field(j, "arg", p), at(p, "arg"), std::type_identity<expr>{}, m);
#define EIN_READ_FN(n) \
  if (fn == #n) return make_unary(unary_fn::n, std::move(arg));
      EIN_FOR_EACH_UNARY_FN(EIN_READ_FN)
#undef EIN_READ_FN
      fail(at(p, "fn"), "unknown unary function `" + fn + "`");
    }
    if (kind == "binary") {
      auto op = text(field(j, "op", p), at(p, "op"));
      expr l = read(field(j, "lhs", p), at(p, "lhs"), std::type_identity<expr>{}, m);
      expr r = read(field(j, "rhs", p), at(p, "rhs"), std::type_identity<expr>{}, m);
      for (binary_op o : {binary_op::add, binary_op::sub, binary_op::mul, binary_op::div,
                          binary_op::max, binary_op::min})
        if (op == op_name(o)) return make_binary(o, std::move(l), std::move(r));
      fail(at(p, "op"), "unknown operator `" + op + "` (expected add, sub, mul, div, max or min)");
    }
    fail(at(p, "kind"),
         "unknown expression kind `" + kind + "` (expected constant, access, unary or binary)");
  }

  std::vector<iterator> read_iterators(const json& j, const std::string& p, magnitudes& m, double& volume) {
    std::vector<iterator> v;
    for (std::size_t i = 0; i < array(j, p).size(); ++i) {
      auto it = read(j[i], at(p, i), std::type_identity<iterator>{});
      if (!m.emplace(it.name, static_cast<double>(std::max(std::abs(it.lo), std::abs(it.hi - 1)))).second)
        fail(at(at(p, i), "name"), "iterator `" + it.name + "` is declared twice in one scope");
      volume *= static_cast<double>(it.extent());
      v.push_back(std::move(it));
    }
    return v;
  }

  scope read(const json& j, const std::string& p, std::type_identity<scope>) {
    nested guard(*this, p);
    magnitudes m;
    double volume = 1;
    scope s;
    s.traversal = read_iterators(field(j, "traversal", p), at(p, "traversal"), m, volume);
    s.summation = read_iterators(field(j, "summation", p), at(p, "summation"), m, volume);
    if (volume > volume_limit) fail(p, "the scope's box has more than 2^48 points");
    s.body = read(field(j, "body", p), at(p, "body"), std::type_identity<expr>{}, &m);
    if (auto* r = in_.optional_field(j, "reduction", p)) s.reduce = read_reduction(*r, at(p, "reduction"));
    return s;
  }

  definition read(const json& j, const std::string& p, std::type_identity<definition>) {
    definition d{text(field(j, "name", p), at(p, "name")),
                 std::make_shared<const scope>(
                     read(field(j, "value", p), at(p, "value"), std::type_identity<scope>{})),
                 read_dtype(field(j, "dtype", p), at(p, "dtype"))};
    if (d.name.empty()) fail(at(p, "name"), "a definition needs a name");
    return d;
  }

  // A program, then verify's checks across its definitions (names, the tensors they read,
  // outputs), naming the definition at fault.
  program read(const json& j, const std::string& p, std::type_identity<program>) {
    program r;
    r.name = text(field(j, "name", p), at(p, "name"));
    auto& ts = array(field(j, "tensors", p), at(p, "tensors"));
    for (std::size_t i = 0; i < ts.size(); ++i)
      r.tensors.push_back(read(ts[i], at(at(p, "tensors"), i), std::type_identity<tensor>{}));
    auto& ds = array(field(j, "definitions", p), at(p, "definitions"));
    for (std::size_t i = 0; i < ds.size(); ++i)
      r.definitions.push_back(
          read(ds[i], at(at(p, "definitions"), i), std::type_identity<definition>{}));
    auto& os = array(field(j, "outputs", p), at(p, "outputs"));
    for (std::size_t i = 0; i < os.size(); ++i)
      r.outputs.push_back(text(os[i], at(at(p, "outputs"), i)));
    try {
      verify(r);
    } catch (const user_error& e) {
      fail(p, e.what());
    }
    return r;
  }

  ein::detail::json_input in_;
  int depth_ = 0;
  std::map<std::string, std::pair<tensor, std::string>> tensors_;  // each tensor read, and where first
};

}  // namespace detail

/// Reads an IR value written by to_json: T is one of iterator, affine, tensor, expr, scope,
/// definition, program. Indices are rebuilt through the affine operations, so they come back in
/// canonical form. Throws ein::user_error naming `what` (a file name, when given), the JSON path
/// and the field on malformed input, and on values the IR cannot hold (verify's invariants for
/// iterators, tensors, scopes and programs: non-empty ranges, positive extents, indices of the
/// source's rank reading declared iterators, ...), and on values beyond its limits: iterator
/// bounds and extents up to 2^40 in magnitude, tensors and scope boxes up to 2^48 elements,
/// index coefficients and values up to 2^61, nesting up to 1000 levels.
/// Example: `from_json<scope>(nlohmann::json::parse(text))`.
template <class T>
T from_json(const nlohmann::json& j, const std::string& what = {}) {
  return detail::json_reader(what).read<T>(j);
}

/// Parses JSON text and reads an IR value from it; a syntax error is reported as
/// ein::user_error too, naming `what` (a file name, say) and the byte offset.
template <class T>
T from_json_text(std::string_view text, const std::string& what = "input") {
  return from_json<T>(ein::detail::json_input("ein IR JSON: " + what).parse(text), what);
}

// nlohmann/json conversion hooks, so that `nlohmann::json j = s;` and `j.get<scope>()` work.
inline void to_json(nlohmann::json& j, const iterator& v) { j = to_json(v); }
inline void to_json(nlohmann::json& j, const affine& v) { j = to_json(v); }
inline void to_json(nlohmann::json& j, const tensor& v) { j = to_json(v); }
inline void to_json(nlohmann::json& j, const scope& v) { j = to_json(v); }
inline void to_json(nlohmann::json& j, const definition& v) { j = to_json(v); }
inline void to_json(nlohmann::json& j, const program& v) { j = to_json(v); }
inline void from_json(const nlohmann::json& j, iterator& v) { v = from_json<iterator>(j); }
inline void from_json(const nlohmann::json& j, affine& v) { v = from_json<affine>(j); }
inline void from_json(const nlohmann::json& j, tensor& v) { v = from_json<tensor>(j); }
inline void from_json(const nlohmann::json& j, scope& v) { v = from_json<scope>(j); }
inline void from_json(const nlohmann::json& j, definition& v) { v = from_json<definition>(j); }
inline void from_json(const nlohmann::json& j, program& v) { v = from_json<program>(j); }

}  // namespace ein::ir
