// The import of one ONNX graph into an IR program: its values by name, the nodes in dependency
// order, each converted by the converter of its op type, and the checks between them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ein/ir/expr.hpp"
#include "ein/ir/reads.hpp"
#include "ein/ir/verify.hpp"
#include "ein/onnx/converter.hpp"
#include "ein/onnx/indexing.hpp"
#include "ein/onnx/node.hpp"
#include "ein/onnx/tensor_data.hpp"

namespace ein::onnx {

/// The newest opset of the default domain whose operators ein knows.
inline constexpr std::int64_t newest_opset = 21;

/// The largest element count of a value (ir/json.hpp's limit on tensors).
inline constexpr std::int64_t max_value_elements = std::int64_t{1} << 48;

/// What an import is told besides the file.
struct import_options {
  /// Shapes of graph inputs, for inputs with symbolic dims (ein_generate's SHAPE); a shape given
  /// for an input whose dims are fixed must equal them.
  std::map<std::string, std::vector<std::int64_t>> shapes;
  /// Values of graph inputs, which then are constants of the import, as initializers are (ONNX's
  /// node tests give a Reshape's shape as an input).
  std::map<std::string, tensor_data> constants;
};

/// A refusal already naming the file and the node (node_context::fail).
class node_refused : public user_error {
 public:
  using user_error::user_error;
};

/// One import: build with the model, run with the converter table.
class graph_importer {
 public:
  graph_importer(const ::onnx::ModelProto& m, std::string file, import_options o)
      : model_(m), file_(std::move(file)), folder_(folder_of(file_)), options_(std::move(o)) {}

  /// The graph as a program: its inputs (in graph order) and weights (initializers and Constant
  /// values read as tensors), a definition per node output the graph's outputs need, and the
  /// graph's outputs.
  ir::program import(const std::vector<converter>& table);

  /// `ONNX file <file>: `: how every error starts.
  std::string prefix() const { return "ONNX file " + file_ + ": "; }
  [[noreturn]] void fail(const std::string& why) const { throw user_error(prefix() + why); }

 private:
  friend class node_context;

  // What a name holds: a tensor of the IR, or values known at import (not yet read for an
  // initializer, kept in `proto`).
  struct value {
    std::optional<ir::tensor> tensor;
    const ::onnx::TensorProto* proto = nullptr;
    std::optional<tensor_data> data;
  };

  std::int64_t default_opset() const;
  void add_inputs();
  std::vector<std::size_t> node_order() const;
  void check_attributes(const ::onnx::NodeProto& node, const node_context& ctx, const converter& c) const;
  void check_declared(const ::onnx::ValueInfoProto& info, const char* what) const;
  void add_outputs();
  void drop_unused();
  std::string unique_name(const std::string& base);

  const ::onnx::ModelProto& model_;
  std::string file_, folder_;
  import_options options_;
  ir::program program_;
  std::map<std::string, value> values_;
  std::set<std::string> names_;  // every name of the graph and of the steps made
};

/// The dims of a value's declared tensor type, or nullopt where one is symbolic or missing.
inline std::optional<std::vector<std::int64_t>> declared_dims(const ::onnx::ValueInfoProto& info) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (auto& d : info.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

inline std::int64_t graph_importer::default_opset() const {
  std::optional<std::int64_t> version;
  for (auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") version = o.version();
  if (!version) fail("the model imports no opset of the default domain (opset_import)");
  if (*version < 1 || *version > newest_opset)
    fail("opset " + std::to_string(*version) + " of the default domain; ein reads opsets 1 to " +
         std::to_string(newest_opset));
  return *version;
}

inline void graph_importer::add_inputs() {
  auto& g = model_.graph();
  for (auto& t : g.initializer()) {
    if (t.name().empty()) fail("an initializer has no name");
    if (!names_.insert(t.name()).second) fail("initializer `" + t.name() + "` is given twice");
    values_[t.name()].proto = &t;
  }
  if (g.sparse_initializer_size() > 0) fail("sparse initializers, which ein does not read");
  for (auto& in : g.input()) {
    if (values_.count(in.name()) && values_[in.name()].proto) continue;  // an initializer (IR version < 4 lists them)
    const std::string what = "graph input `" + in.name() + "`";
    if (in.name().empty()) fail("a graph input has no name");
    if (!names_.insert(in.name()).second) fail(what + " is given twice");
    if (auto c = options_.constants.find(in.name()); c != options_.constants.end()) {
      values_[in.name()].data = c->second;
      continue;
    }
    if (!in.type().has_tensor_type()) fail(what + " is no tensor (a sequence, map or optional?)");
    auto& tt = in.type().tensor_type();
    if (!is_float_type(tt.elem_type()))
      fail(what + " has element type " + type_name(tt.elem_type()) + "; ein computes " + float_types);
    ir::tensor t{in.name(), dtype_of(tt.elem_type()), {}, ir::tensor_role::input};
    auto given = options_.shapes.find(in.name());
    if (!tt.has_shape() && given == options_.shapes.end())
      fail(what + " has no shape; give it one (ein_generate's SHAPE " + in.name() + "=d0,d1,...)");
    if (tt.has_shape()) {
      for (int d = 0; d < tt.shape().dim_size(); ++d) {
        auto& dim = tt.shape().dim(d);
        if (!dim.has_dim_value()) {
          if (given == options_.shapes.end())
            fail(what + " has symbolic dim " + std::to_string(d) + " (`" + dim.dim_param() +
                 "`); give its shape (ein_generate's SHAPE " + in.name() + "=d0,d1,...)");
          continue;
        }
        if (dim.dim_value() <= 0 || dim.dim_value() > max_elements)
          fail(what + " has dim " + std::to_string(d) + " = " + std::to_string(dim.dim_value()) +
               "; ein's tensors have extents from 1 to 2^40");
      }
    }
    if (given != options_.shapes.end()) {
      t.shape = given->second;
      if (tt.has_shape() && tt.shape().dim_size() != static_cast<int>(t.shape.size()))
        fail(what + " has rank " + std::to_string(tt.shape().dim_size()) + " but the shape given is " +
             shape_text(t.shape));
      for (std::size_t d = 0; tt.has_shape() && d < t.shape.size(); ++d) {
        auto& dim = tt.shape().dim(static_cast<int>(d));
        if (dim.has_dim_value() && dim.dim_value() != t.shape[d])
          fail(what + " has dim " + std::to_string(d) + " = " + std::to_string(dim.dim_value()) +
               " but the shape given is " + shape_text(t.shape));
      }
    } else {
      for (auto& dim : tt.shape().dim()) t.shape.push_back(dim.dim_value());
    }
    for (auto e : t.shape)
      if (e <= 0 || e > max_elements) fail(what + ": shape " + shape_text(t.shape) + " has an extent outside [1, 2^40]");
    std::int64_t n = 1;
    for (auto e : t.shape) n = n > max_value_elements / e ? max_value_elements + 1 : n * e;
    if (n > max_value_elements) fail(what + ": shape " + shape_text(t.shape) + " has more than 2^48 elements");
    values_[in.name()].tensor = t;
    program_.tensors.push_back(t);
  }
  for (auto& [name, shape] : options_.shapes)
    if (!values_.count(name) || !values_[name].tensor)
      fail("a shape is given for `" + name + "`, which is no graph input");
}

// The nodes in an order where each comes after the nodes whose outputs it reads (ONNX asks for
// that order already; it is checked, not assumed): Kahn's algorithm, ties by file order.
inline std::vector<std::size_t> graph_importer::node_order() const {
  auto& g = model_.graph();
  const auto n = static_cast<std::size_t>(g.node_size());
  std::map<std::string, std::size_t> producer;
  for (std::size_t k = 0; k < n; ++k)
    for (auto& out : g.node(static_cast<int>(k)).output()) {
      if (out.empty()) continue;
      std::string node = "node `" + g.node(static_cast<int>(k)).name() + "` (#" + std::to_string(k) + ", " +
                         g.node(static_cast<int>(k)).op_type() + ")";
      if (values_.count(out)) fail(node + ": output `" + out + "` is also a graph input or initializer");
      if (!producer.emplace(out, k).second) fail(node + ": output `" + out + "` is also another node's output");
    }
  std::vector<std::vector<std::size_t>> readers(n);
  std::vector<std::size_t> waiting(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    auto& node = g.node(static_cast<int>(k));
    for (auto& in : node.input()) {
      if (in.empty() || values_.count(in)) continue;
      auto p = producer.find(in);
      if (p == producer.end())
        fail("node `" + node.name() + "` (#" + std::to_string(k) + ", " + node.op_type() + "): input `" + in +
             "` is no graph input, initializer or node output");
      readers[p->second].push_back(k);
      ++waiting[k];
    }
  }
  std::vector<std::size_t> order;
  std::set<std::size_t> ready;
  for (std::size_t k = 0; k < n; ++k)
    if (waiting[k] == 0) ready.insert(k);
  while (!ready.empty()) {
    std::size_t k = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(k);
    for (auto r : readers[k])
      if (--waiting[r] == 0) ready.insert(r);
  }
  if (order.size() != n)
    for (std::size_t k = 0; k < n; ++k)
      if (waiting[k] > 0)
        fail("node `" + g.node(static_cast<int>(k)).name() + "` (#" + std::to_string(k) + ", " +
             g.node(static_cast<int>(k)).op_type() + ") depends on its own output (the graph has a cycle)");
  return order;
}

inline void graph_importer::check_attributes(const ::onnx::NodeProto& node, const node_context& ctx,
                                             const converter& c) const {
  std::set<std::string> seen;
  for (auto& a : node.attribute()) {
    if (!seen.insert(a.name()).second) ctx.fail("attribute `" + a.name() + "` is given twice");
    if (!a.ref_attr_name().empty()) ctx.fail("attribute `" + a.name() + "` refers to a function's attribute");
    const attribute_spec* spec = nullptr;
    for (auto& s : c.attributes)
      if (s.name == a.name()) spec = &s;
    if (!spec) ctx.fail("attribute `" + a.name() + "` is not supported (docs/onnx.md lists those ein reads)");
    if (a.type() != spec->type)
      ctx.fail("attribute `" + a.name() + "` is of type " + ::onnx::AttributeProto_AttributeType_Name(a.type()) +
               ", not " + ::onnx::AttributeProto_AttributeType_Name(spec->type));
  }
}

// A declared shape or element type that differs from the one imported is an error: the file and
// ein disagree on what the network computes.
inline void graph_importer::check_declared(const ::onnx::ValueInfoProto& info, const char* what) const {
  auto v = values_.find(info.name());
  if (v == values_.end() || !v->second.tensor) return;
  const ir::tensor& t = *v->second.tensor;
  if (info.type().has_tensor_type()) {
    int type = info.type().tensor_type().elem_type();
    int ours = onnx_type_of(t.type);
    if (type != ::onnx::TensorProto_DataType_UNDEFINED && type != ours)
      fail(std::string(what) + " `" + info.name() + "` is declared " + type_name(type) + " but computes " +
           type_name(ours));
  }
  if (auto dims = declared_dims(info); dims && *dims != t.shape)
    fail(std::string(what) + " `" + info.name() + "` is declared of shape " + shape_text(*dims) +
         " but its node computes " + shape_text(t.shape));
}

inline void graph_importer::add_outputs() {
  auto& g = model_.graph();
  if (g.output_size() == 0) fail("the graph has no outputs");
  for (auto& out : g.output()) {
    auto v = values_.find(out.name());
    if (v == values_.end()) fail("graph output `" + out.name() + "` is no node's output");
    if (!v->second.tensor || v->second.tensor->role != ir::tensor_role::definition)
      fail("graph output `" + out.name() +
           "` is a graph input, an initializer or a Constant's value, not computed by a node; ein's plans compute "
           "their outputs");
    if (std::find(program_.outputs.begin(), program_.outputs.end(), out.name()) != program_.outputs.end())
      fail("graph output `" + out.name() + "` is listed twice");
    check_declared(out, "graph output");
    program_.outputs.push_back(out.name());
  }
  for (auto& info : g.value_info()) check_declared(info, "value");
}

// Definitions no output needs are dropped (a node's output the graph never reads), and so are
// weights no definition left reads; graph inputs stay, since they are bound by name.
inline void graph_importer::drop_unused() {
  std::set<std::string> needed(program_.outputs.begin(), program_.outputs.end());
  std::vector<ir::definition> kept;
  for (auto d = program_.definitions.rbegin(); d != program_.definitions.rend(); ++d) {
    if (!needed.count(d->name)) continue;
    for (auto& name : ir::tensor_names_read(d->value->body, ir::depth::nested)) needed.insert(name);
    kept.push_back(*d);
  }
  program_.definitions.assign(kept.rbegin(), kept.rend());
  std::vector<ir::tensor> tensors;
  for (auto& t : program_.tensors)
    if (t.role == ir::tensor_role::input || needed.count(t.name)) tensors.push_back(t);
  program_.tensors = std::move(tensors);
}

inline std::string graph_importer::unique_name(const std::string& base) {
  std::string name = base;
  for (int k = 2; names_.count(name); ++k) name = base + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

inline ir::program graph_importer::import(const std::vector<converter>& table) {
  auto& g = model_.graph();
  program_.name = g.name();
  const std::int64_t opset = default_opset();
  add_inputs();
  for (auto& node : g.node())
    for (auto& out : node.output())
      if (!out.empty()) names_.insert(out);
  for (std::size_t k : node_order()) {
    auto& node = g.node(static_cast<int>(k));
    node_context ctx(*this, node, k, opset);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      ctx.fail("domain `" + node.domain() + "` is not supported (ein reads the default domain's operators)");
    const converter* c = nullptr;
    for (auto& entry : table)
      if (entry.op_type == node.op_type()) c = &entry;
    if (!c) ctx.fail("operator " + node.op_type() + " is not supported (docs/onnx.md lists those ein reads)");
    if (opset < c->since)
      ctx.fail("opset " + std::to_string(opset) + " defines " + node.op_type() + " as ein does not read it (from opset " +
               std::to_string(c->since) + ")");
    check_attributes(node, ctx, *c);
    try {
      c->convert(ctx);
    } catch (const node_refused&) {
      throw;
    } catch (const user_error& e) {
      ctx.fail(e.what());
    }
    for (auto& out : node.output())
      if (!out.empty() && !values_.count(out)) ctx.fail("output `" + out + "` is not supported");
  }
  add_outputs();
  drop_unused();
  try {
    ir::verify(program_);
  } catch (const user_error& e) {
    throw internal_error(prefix() + "the imported program does not verify: " + e.what());
  }
  return std::move(program_);
}

// ---- node_context's members that reach the graph ----

inline void node_context::fail(const std::string& why) const { throw node_refused(g_.prefix() + where() + ": " + why); }

inline operand node_context::tensor(std::size_t k, const std::string& what, bool literal) {
  if (!has_input(k)) fail("input " + std::to_string(k) + " (" + what + ") is missing");
  const std::string& name = node_.input(static_cast<int>(k));
  auto& v = g_.values_.at(name);
  operand o;
  o.name = name;
  if (v.tensor) {
    o.type = v.tensor->type;
    o.shape = v.tensor->shape;
    o.tensor = v.tensor;
    return o;
  }
  const tensor_data& d = constant(k, what);
  if (!d.is_float())
    fail("input " + std::to_string(k) + " (" + what + ", `" + name + "`) holds " + type_name(d.type) +
         " values; ein computes " + float_types);
  if (d.count() == 0) fail("input " + std::to_string(k) + " (" + what + ", `" + name + "`) has no elements");
  o.type = dtype_of(d.type);
  o.shape = d.dims;
  if (literal && d.count() == 1) {  // a value of one element is written into the IR
    o.literal = d.value(0);
    return o;
  }
  ir::tensor t{name, o.type, d.dims, ir::tensor_role::weight};
  v.tensor = t;
  g_.program_.tensors.push_back(t);
  o.tensor = t;
  return o;
}

inline const tensor_data& node_context::constant(std::size_t k, const std::string& what) {
  if (!has_input(k)) fail("input " + std::to_string(k) + " (" + what + ") is missing");
  const std::string& name = node_.input(static_cast<int>(k));
  auto& v = g_.values_.at(name);
  if (!v.data && v.proto)
    v.data = read_values(*v.proto, g_.folder_, "initializer `" + name + "`");
  if (!v.data)
    fail("input " + std::to_string(k) + " (" + what + ", `" + name +
         "`) must be known at import (an initializer or a Constant's output): ein's shapes are static");
  return *v.data;
}

inline ir::dtype node_context::element_type(std::size_t k, const std::string& what) {
  if (!has_input(k)) fail("input " + std::to_string(k) + " (" + what + ") is missing");
  auto& v = g_.values_.at(node_.input(static_cast<int>(k)));
  if (v.tensor) return v.tensor->type;
  const tensor_data& d = constant(k, what);
  if (!d.is_float())
    fail("input " + std::to_string(k) + " (" + what + ") holds " + type_name(d.type) + " values; ein computes " +
         float_types);
  return dtype_of(d.type);
}

inline std::vector<std::int64_t> node_context::constant_ints(std::size_t k, const std::string& what) {
  const tensor_data& d = constant(k, what);
  if (d.type != ::onnx::TensorProto_DataType_INT64 && d.type != ::onnx::TensorProto_DataType_INT32)
    fail("input " + std::to_string(k) + " (" + what + ") holds " + type_name(d.type) + " values, not integers");
  return d.i64;
}

inline ir::tensor node_context::define(std::size_t k, ir::scope_ptr value, ir::dtype type) {
  if (k >= outputs() || node_.output(static_cast<int>(k)).empty()) fail("output " + std::to_string(k) + " is missing");
  auto shape = value->shape();
  std::int64_t n = 1;
  for (auto e : shape) n = e > 0 && n > max_value_elements / e ? max_value_elements + 1 : n * e;
  if (n > max_value_elements) fail("output shape " + shape_text(shape) + " has more than 2^48 elements");
  const std::string& name = node_.output(static_cast<int>(k));
  ir::tensor t{name, type, shape, ir::tensor_role::definition};
  g_.program_.definitions.push_back({name, std::move(value), type});
  g_.values_[name].tensor = t;
  return t;
}

inline ir::tensor node_context::define_step(const std::string& suffix, ir::scope_ptr value, ir::dtype type) {
  std::string name = g_.unique_name((outputs() > 0 ? node_.output(0) : node_.name()) + "_" + suffix);
  const ir::dtype held = ir::held_type(type);
  ir::tensor t{name, held, value->shape(), ir::tensor_role::definition};
  g_.program_.definitions.push_back({name, std::move(value), held});
  return t;
}

inline void node_context::define_constant(std::size_t k, tensor_data d) {
  if (k >= outputs() || node_.output(static_cast<int>(k)).empty()) fail("output " + std::to_string(k) + " is missing");
  g_.values_[node_.output(static_cast<int>(k))].data = std::move(d);
}

}  // namespace ein::onnx
