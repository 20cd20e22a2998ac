// JSON of a plan's data (nlohmann/json): derivation steps, matched instances and library calls,
// written for the report and read back exactly.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ein/derive/rule.hpp"
#include "ein/error.hpp"
#include "ein/ir/json.hpp"
#include "ein/match/all.hpp"
#include "ein/match/instance.hpp"
#include "ein/plan/plan.hpp"

// Attribute structs are written field by field under their own names.
namespace ein::match {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(elementwise_attrs, fn, count)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(gemm_attrs, batch, m, n, k, trans_a, trans_b, lda, ldb, ldc, stride_a, stride_b,
                                   stride_c, alpha)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(conv_attrs, n, c, h, w, k, r, s, p, q, groups, pad_h, pad_w, pad_h_end, pad_w_end,
                                   stride_h, stride_w, dilation_h, dilation_w, x_strides, w_strides, y_strides, data_format,
                                   filter_format, alpha)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(band_attrs, batch, m, features, width, dilation, a_strides, b_strides, o_strides,
                                   alpha)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(output_grid, batch, rows, cols)
}  // namespace ein::match

namespace ein::plan {

// Layout:
//   step       {"rule": "split_summation", "at": [0] or null, "parameters": [<parameter>...],
//               "text": "split_summation(at /0: ...)"}   ("text" is written, not read)
//   parameter  {"name": "inner Σ", "type": "names", "value": ["c"]}; types and values: "count" 3,
//              "name" "c", "names" ["r","s"], "sizes" [4608,512], "path" [0,1], "indices"
//              [<affine>...], "definitions" [{"iterator": "t1", "index": <affine>}...], "ranges"
//              [{"before": <iterator>, "after": <iterator>}...], "expression" <expr>
//   instance   {"operator": "matmul", "dtype": "float", "inputs": [<operand>...], "output":
//              <operand>, "attributes": {"gemm": {...}}, "flops": .., "bytes": .., "grid": {...}}
//   operand    {"role": "A", "source": {"tensor": <tensor>} | {"scope": <scope>} | "output",
//              "offset": 0, "elements": 12}
// IR values (affine, iterator, tensor, expr, scope) are written by ir::to_json.

namespace detail {

constexpr const char* parameter_types[] = {"count", "name", "names", "sizes", "path",
                                           "indices", "definitions", "ranges", "expression"};
static_assert(std::size(parameter_types) == std::variant_size_v<derive::parameter_value>);

constexpr const char* attribute_names[] = {"elementwise", "gemm", "conv", "band"};
static_assert(std::size(attribute_names) == std::variant_size_v<decltype(match::instance::attrs)>);

// Rule and parameter names read back are kept for the life of the process (steps hold views).
inline std::string_view interned(const std::string& s) {
  static std::mutex lock;
  static std::set<std::string, std::less<>> names;
  std::lock_guard guard(lock);
  return *names.insert(s).first;
}

template <class Variant, std::size_t I = 0>
Variant variant_at(std::size_t index, const nlohmann::json& j, auto read) {
  if constexpr (I < std::variant_size_v<Variant>) {
    if (index == I) return Variant(std::in_place_index<I>, read(std::type_identity<std::variant_alternative_t<I, Variant>>{}, j));
    return variant_at<Variant, I + 1>(index, j, read);
  } else {
    throw user_error("plan JSON: unknown alternative " + std::to_string(index));
  }
}

template <std::size_t N>
std::size_t index_of(const char* const (&names)[N], const std::string& name, const char* what) {
  for (std::size_t i = 0; i < N; ++i)
    if (name == names[i]) return i;
  throw user_error(std::string("plan JSON: unknown ") + what + " `" + name + "`");
}

inline nlohmann::json value_json(const derive::parameter_value& v) {
  return std::visit(
      [](const auto& x) -> nlohmann::json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<ir::affine>>) {
          auto r = nlohmann::json::array();
          for (auto& e : x) r.push_back(ir::to_json(e));
          return r;
        } else if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, ir::affine>>>) {
          auto r = nlohmann::json::array();
          for (auto& [n, e] : x) r.push_back({{"iterator", n}, {"index", ir::to_json(e)}});
          return r;
        } else if constexpr (std::is_same_v<T, std::vector<derive::range_change>>) {
          auto r = nlohmann::json::array();
          for (auto& c : x) r.push_back({{"before", ir::to_json(c.before)}, {"after", ir::to_json(c.after)}});
          return r;
        } else if constexpr (std::is_same_v<T, ir::expr>) {
          return ir::to_json(x);
        } else {
          return x;
        }
      },
      v);
}

template <class T>
T value_of(std::type_identity<T>, const nlohmann::json& j) {
  if constexpr (std::is_same_v<T, std::vector<ir::affine>>) {
    T r;
    for (auto& e : j) r.push_back(ir::from_json<ir::affine>(e));
    return r;
  } else if constexpr (std::is_same_v<T, std::vector<std::pair<std::string, ir::affine>>>) {
    T r;
    for (auto& e : j) r.emplace_back(e.at("iterator").get<std::string>(), ir::from_json<ir::affine>(e.at("index")));
    return r;
  } else if constexpr (std::is_same_v<T, std::vector<derive::range_change>>) {
    T r;
    for (auto& e : j) r.push_back({ir::from_json<ir::iterator>(e.at("before")), ir::from_json<ir::iterator>(e.at("after"))});
    return r;
  } else if constexpr (std::is_same_v<T, ir::expr>) {
    return ir::from_json<ir::expr>(j);
  } else {
    return j.get<T>();
  }
}

inline nlohmann::json operand_json(const match::operand& o) {
  nlohmann::json source = "output";
  if (auto* t = std::get_if<ir::tensor>(&o.source)) source = {{"tensor", ir::to_json(*t)}};
  if (auto* s = std::get_if<ir::scope_ptr>(&o.source)) source = {{"scope", ir::to_json(**s)}};
  return {{"role", o.role}, {"source", source}, {"offset", o.offset}, {"elements", o.elements}};
}

inline match::operand operand_of(const nlohmann::json& j) {
  match::operand o;
  o.role = j.at("role").get<std::string>();
  auto& source = j.at("source");
  if (source.is_object() && source.contains("tensor")) o.source = ir::from_json<ir::tensor>(source["tensor"]);
  else if (source.is_object() && source.contains("scope")) o.source = std::make_shared<const ir::scope>(ir::from_json<ir::scope>(source["scope"]));
  else if (source != "output") throw user_error("plan JSON: an operand's source is a tensor, a scope or \"output\"");
  o.offset = j.at("offset").get<std::int64_t>();
  o.elements = j.at("elements").get<std::int64_t>();
  return o;
}

// Runs `read`, reporting malformed JSON as a user_error.
template <class F>
auto reading(const char* what, F read) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    throw user_error(std::string("plan JSON: malformed ") + what + ": " + e.what());
  }
}

}  // namespace detail

/// A derivation step as JSON (layout above); its text for readers too.
inline nlohmann::json to_json(const derive::step& s) {
  auto parameters = nlohmann::json::array();
  for (auto& p : s.parameters)
    parameters.push_back({{"name", p.name}, {"type", detail::parameter_types[p.value.index()]}, {"value", detail::value_json(p.value)}});
  return {{"rule", s.rule}, {"at", s.at ? nlohmann::json(*s.at) : nlohmann::json(nullptr)}, {"parameters", parameters},
          {"text", derive::to_string(s)}};
}

/// The step `to_json` wrote. @throws user_error on malformed JSON.
inline derive::step step_from_json(const nlohmann::json& j) {
  return detail::reading("step", [&] {
    derive::step s;
    s.rule = detail::interned(j.at("rule").get<std::string>());
    if (!j.at("at").is_null()) s.at = j.at("at").get<derive::path>();
    for (auto& p : j.at("parameters")) {
      auto type = detail::index_of(detail::parameter_types, p.at("type").get<std::string>(), "parameter type");
      s.parameters.push_back({detail::interned(p.at("name").get<std::string>()),
                              detail::variant_at<derive::parameter_value>(type, p.at("value"), [](auto t, auto& v) {
                                return detail::value_of(t, v);
                              })});
    }
    return s;
  });
}

/// A matched instance as JSON (layout above).
inline nlohmann::json to_json(const match::instance& op) {
  auto inputs = nlohmann::json::array();
  for (auto& i : op.inputs) inputs.push_back(detail::operand_json(i));
  nlohmann::json attributes;
  std::visit([&](const auto& a) { attributes[detail::attribute_names[op.attrs.index()]] = a; }, op.attrs);
  return {{"operator", match::name(op.kind)}, {"dtype", ir::name(op.type)}, {"inputs", inputs},
          {"output", detail::operand_json(op.output)}, {"attributes", attributes}, {"flops", op.flops},
          {"bytes", op.bytes}, {"grid", op.grid}};
}

/// The instance `to_json` wrote. @throws user_error on malformed JSON.
inline match::instance instance_from_json(const nlohmann::json& j) {
  return detail::reading("instance", [&] {
    match::instance op;
    auto kind = j.at("operator").get<std::string>();
    bool known = false;
    for (auto& def : match::operator_table())
      if (kind == match::name(def.kind)) op.kind = def.kind, known = true;
    if (!known) throw user_error("plan JSON: unknown operator `" + kind + "`");
    auto dtype = j.at("dtype").get<std::string>();
    auto known_type = std::find_if(std::begin(ir::all_dtypes), std::end(ir::all_dtypes),
                                   [&](ir::dtype t) { return dtype == ir::name(t); });
    if (known_type == std::end(ir::all_dtypes))
      throw user_error("plan JSON: unknown dtype `" + dtype + "` (expected `float`, `double`, `half` or `bfloat16`)");
    op.type = *known_type;
    for (auto& i : j.at("inputs")) op.inputs.push_back(detail::operand_of(i));
    op.output = detail::operand_of(j.at("output"));
    auto& attributes = j.at("attributes");
    if (!attributes.is_object() || attributes.size() != 1) throw user_error("plan JSON: an instance has one kind of attributes");
    auto which = detail::index_of(detail::attribute_names, attributes.begin().key(), "attributes");
    op.attrs = detail::variant_at<decltype(op.attrs)>(which, attributes.begin().value(),
                                                      [](auto t, auto& v) { return v.template get<typename decltype(t)::type>(); });
    op.flops = j.at("flops").get<double>();
    op.bytes = j.at("bytes").get<double>();
    op.grid = j.at("grid").get<match::output_grid>();
    return op;
  });
}

/// A library call as JSON: `{"library": "blas", "inputs": ["x", "W"], "instance": <instance>,
/// "epilogue": null}`, buffers by name; an epilogue is `{"result": "h", "bias": "b", "bias_dim": 1, "residual":
/// null, "relu": true}`.
inline nlohmann::json to_json(const library_call& c, const program_plan& p) {
  auto inputs = nlohmann::json::array();
  for (auto id : c.inputs) inputs.push_back(p.buffers.at(id).name);
  nlohmann::json epilogue = nullptr;
  if (auto& e = c.epilogue) {
    auto name = [&](const std::optional<std::size_t>& id) {
      return id ? nlohmann::json(p.buffers.at(*id).name) : nlohmann::json();
    };
    epilogue = {{"result", e->result}, {"bias", name(e->bias)}, {"bias_dim", e->bias_dim},
                {"residual", name(e->residual)}, {"relu", e->relu}};
  }
  return {{"library", c.library.name}, {"inputs", inputs}, {"instance", to_json(c.op)}, {"epilogue", epilogue}};
}

/// The call `to_json` wrote for a kernel of `p`. @throws user_error on malformed JSON or a buffer
/// `p` does not have.
inline library_call call_from_json(const nlohmann::json& j, const program_plan& p) {
  return detail::reading("library call", [&] {
    library_call c;
    const auto l = j.at("library").get<std::string>();
    const library* known = nullptr;
    for (const library* each : {&blas, &cudnn, &onednn})
      if (l == each->name) known = each;
    if (!known) throw user_error("plan JSON: unknown library `" + l + "` (expected `blas`, `cudnn` or `onednn`)");
    c.library = *known;
    for (auto& n : j.at("inputs")) {
      auto it = p.by_name.find(n.get<std::string>());
      if (it == p.by_name.end()) throw user_error("plan JSON: a call reads `" + n.get<std::string>() + "`, no buffer of the plan");
      c.inputs.push_back(it->second);
    }
    c.op = instance_from_json(j.at("instance"));
    if (auto e = j.find("epilogue"); e != j.end() && !e->is_null()) {
      auto buffer = [&](const char* field) -> std::optional<std::size_t> {
        auto& n = e->at(field);
        if (n.is_null()) return std::nullopt;
        auto it = p.by_name.find(n.get<std::string>());
        if (it == p.by_name.end())
          throw user_error("plan JSON: an epilogue reads `" + n.get<std::string>() + "`, no buffer of the plan");
        return it->second;
      };
      if (!e->at("bias_dim").is_number_unsigned()) throw user_error("plan JSON: an epilogue's bias_dim is no dimension");
      c.epilogue = epilogue{e->at("result").get<std::string>(), buffer("bias"), e->at("bias_dim").get<std::size_t>(),
                            buffer("residual"), e->at("relu").get<bool>()};
    }
    return c;
  });
}

/// A subprogram's derivation as JSON: `{"subprogram", "definition", "searched", "target",
/// "seconds", "baseline_seconds", "steps": [<step>...]}`.
inline nlohmann::json to_json(const derivation& d) {
  auto steps = nlohmann::json::array();
  for (auto& s : d.steps) steps.push_back(to_json(s));
  return {{"subprogram", d.subprogram}, {"definition", d.definition}, {"searched", d.searched},
          {"target", d.target}, {"seconds", d.seconds}, {"baseline_seconds", d.baseline_seconds}, {"steps", steps}};
}

/// The derivation `to_json` wrote. @throws user_error on malformed JSON.
inline derivation derivation_from_json(const nlohmann::json& j) {
  return detail::reading("derivation", [&] {
    derivation d{j.at("subprogram").get<std::string>(), j.at("definition").get<std::string>(), j.at("searched").get<bool>(),
                 j.at("target").get<std::string>(), {}, j.at("seconds").get<double>(),
                 j.at("baseline_seconds").get<double>()};
    for (auto& s : j.at("steps")) d.steps.push_back(step_from_json(s));
    return d;
  });
}

}  // namespace ein::plan
