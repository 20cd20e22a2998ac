// JSON reading and writing of the IR (nlohmann/json); reading back what was written is exact.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ein/detail/error.hpp"
#include "ein/ir/expr.hpp"

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
//              {"kind": "binary", "op": "add", "lhs": <expr>, "rhs": <expr>}
//   scope      {"traversal": [<iterator>...], "summation": [<iterator>...], "body": <expr>}
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
  constexpr const char* names[] = {"add", "sub", "mul", "div"};
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
  return {
      {"traversal", its(s.traversal)}, {"summation", its(s.summation)}, {"body", to_json(s.body)}};
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

// Reads the IR back; every error names the JSON path (`/definitions/0/value/body/lhs`) and field.
class json_reader {
 public:
  using json = nlohmann::json;

  [[noreturn]] static void fail(const std::string& path, const std::string& what) {
    throw user_error("ein IR JSON: at " + (path.empty() ? std::string("/") : path) + ": " + what);
  }

  static const json& field(const json& j, const char* key, const std::string& path) {
    if (!j.is_object()) fail(path, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) fail(path, std::string("missing field `") + key + "`");
    return *it;
  }
  static std::int64_t integer(const json& j, const std::string& path) {
    if (!j.is_number_integer() ||
        (j.is_number_unsigned() &&
         j.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())))
      fail(path, "expected a 64-bit integer, got " + j.dump());
    return j.get<std::int64_t>();
  }
  static std::string text(const json& j, const std::string& path) {
    if (!j.is_string()) fail(path, "expected a string, got " + j.dump());
    return j.get<std::string>();
  }
  static const json& array(const json& j, const std::string& path) {
    if (!j.is_array()) fail(path, "expected an array");
    return j;
  }
  static std::string at(const std::string& path, const char* key) { return path + "/" + key; }
  static std::string at(const std::string& path, std::size_t i) {
    return path + "/" + std::to_string(i);
  }

  static iterator read(const json& j, const std::string& p, std::type_identity<iterator>) {
    return {text(field(j, "name", p), at(p, "name")), integer(field(j, "lo", p), at(p, "lo")),
            integer(field(j, "hi", p), at(p, "hi"))};
  }

  static affine read(const json& j, const std::string& p, std::type_identity<affine>) {
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
      r = r + a * c;
    }
    return r;
  }

  static dtype read_dtype(const json& j, const std::string& p) {
    auto s = text(j, p);
    for (dtype t : {dtype::f32, dtype::f64})
      if (s == name(t)) return t;
    fail(p, "unknown dtype `" + s + "` (expected `float` or `double`)");
  }

  static tensor read(const json& j, const std::string& p, std::type_identity<tensor>) {
    tensor t;
    t.name = text(field(j, "name", p), at(p, "name"));
    t.type = read_dtype(field(j, "dtype", p), at(p, "dtype"));
    auto& shape = array(field(j, "shape", p), at(p, "shape"));
    for (std::size_t i = 0; i < shape.size(); ++i)
      t.shape.push_back(integer(shape[i], at(at(p, "shape"), i)));
    auto role = text(field(j, "role", p), at(p, "role"));
    bool known = false;
    for (tensor_role r : {tensor_role::input, tensor_role::weight, tensor_role::definition})
      if (role == role_name(r)) t.role = r, known = true;
    if (!known)
      fail(at(p, "role"), "unknown role `" + role + "` (expected input, weight or definition)");
    return t;
  }

  static expr read(const json& j, const std::string& p, std::type_identity<expr>) {
    auto kind = text(field(j, "kind", p), at(p, "kind"));
    if (kind == "constant") {
      auto& v = field(j, "value", p);
      if (v.is_number()) return make_constant(v.get<double>());
      if (v == "inf") return make_constant(std::numeric_limits<double>::infinity());
      if (v == "-inf") return make_constant(-std::numeric_limits<double>::infinity());
      if (v == "nan") return make_constant(std::numeric_limits<double>::quiet_NaN());
      fail(at(p, "value"), "expected a number, \"inf\", \"-inf\" or \"nan\", got " + v.dump());
    }
    if (kind == "access") {
      std::vector<affine> index;
      auto& idx = array(field(j, "index", p), at(p, "index"));
      for (std::size_t i = 0; i < idx.size(); ++i)
        index.push_back(read(idx[i], at(at(p, "index"), i), std::type_identity<affine>{}));
      if (j.contains("tensor"))
        return make_access(read(j["tensor"], at(p, "tensor"), std::type_identity<tensor>{}),
                           std::move(index));
      if (j.contains("scope"))
        return make_access(std::make_shared<const scope>(
                               read(j["scope"], at(p, "scope"), std::type_identity<scope>{})),
                           std::move(index));
      fail(p, "an access needs a `tensor` or a `scope` field");
    }
    if (kind == "unary") {
      auto fn = text(field(j, "fn", p), at(p, "fn"));
      expr arg = read(field(j, "arg", p), at(p, "arg"), std::type_identity<expr>{});
#define EIN_READ_FN(n) \
  if (fn == #n) return make_unary(unary_fn::n, std::move(arg));
      EIN_FOR_EACH_UNARY_FN(EIN_READ_FN)
#undef EIN_READ_FN
      fail(at(p, "fn"), "unknown unary function `" + fn + "`");
    }
    if (kind == "binary") {
      auto op = text(field(j, "op", p), at(p, "op"));
      expr l = read(field(j, "lhs", p), at(p, "lhs"), std::type_identity<expr>{});
      expr r = read(field(j, "rhs", p), at(p, "rhs"), std::type_identity<expr>{});
      for (binary_op o : {binary_op::add, binary_op::sub, binary_op::mul, binary_op::div})
        if (op == op_name(o)) return make_binary(o, std::move(l), std::move(r));
      fail(at(p, "op"), "unknown operator `" + op + "` (expected add, sub, mul or div)");
    }
    fail(at(p, "kind"),
         "unknown expression kind `" + kind + "` (expected constant, access, unary or binary)");
  }

  static std::vector<iterator> read_iterators(const json& j, const std::string& p) {
    std::vector<iterator> v;
    for (std::size_t i = 0; i < array(j, p).size(); ++i)
      v.push_back(read(j[i], at(p, i), std::type_identity<iterator>{}));
    return v;
  }

  static scope read(const json& j, const std::string& p, std::type_identity<scope>) {
    return {read_iterators(field(j, "traversal", p), at(p, "traversal")),
            read_iterators(field(j, "summation", p), at(p, "summation")),
            read(field(j, "body", p), at(p, "body"), std::type_identity<expr>{})};
  }

  static definition read(const json& j, const std::string& p, std::type_identity<definition>) {
    return {text(field(j, "name", p), at(p, "name")),
            std::make_shared<const scope>(
                read(field(j, "value", p), at(p, "value"), std::type_identity<scope>{})),
            read_dtype(field(j, "dtype", p), at(p, "dtype"))};
  }

  static program read(const json& j, const std::string& p, std::type_identity<program>) {
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
    return r;
  }
};

}  // namespace detail

/// Reads an IR value written by to_json: T is one of iterator, affine, tensor, expr, scope,
/// definition, program. Indices are rebuilt through the affine operations, so they come back in
/// canonical form. Throws ein::user_error naming the JSON path and field on malformed input.
/// Example: `from_json<scope>(nlohmann::json::parse(text))`.
template <class T>
T from_json(const nlohmann::json& j) {
  return detail::json_reader::read(j, "", std::type_identity<T>{});
}

/// Parses JSON text and reads an IR value from it; a syntax error is reported as
/// ein::user_error too, naming `what` (a file name, say) and the byte offset.
template <class T>
T from_json_text(std::string_view text, const std::string& what = "input") {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw user_error("ein IR JSON: " + what + " is not valid JSON (at byte " +
                     std::to_string(e.byte) + ")");
  }
  return from_json<T>(j);
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
