// Mutants of ONNX files for fuzz_inputs's `onnx` kind: hostile files the importer must refuse
// with a message naming the file, or import into a program that verifies. A mutant is made from a
// model of ONNX's node tests (or the example's CNN) by 1 to 3 mutations: of its structure
// (dangling and cyclic node references, nodes removed or duplicated, op types swapped, inputs of
// other element types or without a shape, dims of 0, -1, 2^40 and more, attributes of other
// types and values, initializers removed or of the wrong size, external data that points
// outside, opsets that do not exist), then, one time in three, of its bytes (truncated, flipped,
// cut out).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ein/eval/random.hpp"
#include "ein/onnx/model_file.hpp"

namespace ein_fuzz {

/// A mutated file: its bytes and the mutations, in words.
struct onnx_mutant {
  std::string bytes;
  std::vector<std::string> steps;
};

/// The models of the node tests in `node_tests` whose names hold one of `ops` (lower case), and
/// the files `extra`: the corpus the mutants are made from.
inline std::vector<::onnx::ModelProto> onnx_corpus(const std::string& node_tests, const std::vector<std::string>& ops,
                                                   const std::vector<std::string>& extra) {
  std::vector<std::string> files = extra;
  std::vector<std::string> names;
  for (auto& e : std::filesystem::directory_iterator(node_tests)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (auto& name : names)
    for (auto& op : ops)
      if (name.find(op) != std::string::npos) {
        files.push_back(node_tests + "/" + name + "/model.onnx");
        break;
      }
  std::vector<::onnx::ModelProto> corpus;
  for (auto& f : files) corpus.push_back(ein::onnx::read_model(f));
  return corpus;
}

/// Makes mutants, each from a seed of its own.
class onnx_mutator {
 public:
  explicit onnx_mutator(std::uint64_t seed) : rng_(seed) {}

  onnx_mutant operator()(::onnx::ModelProto m) {
    onnx_mutant out;
    int structural = 1 + static_cast<int>(below(3));
    for (int i = 0; i < structural; ++i) out.steps.push_back(mutate(m));
    out.bytes = m.SerializeAsString();
    if (below(3) == 0) out.steps.push_back(mutate_bytes(out.bytes));
    return out;
  }

 private:
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : rng_.next() % n; }

  // A number a hostile file may hold where a dim, an attribute or a version goes.
  std::int64_t hostile() {
    static const std::int64_t values[] = {0, -1, 1, 2, 3, 7, -7, std::int64_t{1} << 31, std::int64_t{1} << 40,
                                          (std::int64_t{1} << 40) + 1, std::int64_t{1} << 62, INT64_MIN, INT64_MAX};
    return values[below(std::size(values))];
  }

  std::string node_input(const ::onnx::ModelProto& m) {
    auto& g = m.graph();
    if (g.node_size() == 0 || g.node(0).input_size() == 0) return "x";
    auto& n = g.node(static_cast<int>(below(static_cast<std::uint64_t>(g.node_size()))));
    return n.input_size() ? n.input(static_cast<int>(below(static_cast<std::uint64_t>(n.input_size())))) : "x";
  }

  std::string mutate(::onnx::ModelProto& m) {
    auto* g = m.mutable_graph();
    const auto nodes = static_cast<std::uint64_t>(g->node_size());
    ::onnx::NodeProto* n = nodes ? g->mutable_node(static_cast<int>(below(nodes))) : nullptr;
    switch (below(16)) {
      case 0:  // a dangling reference
        if (n && n->input_size()) {
          n->set_input(static_cast<int>(below(static_cast<std::uint64_t>(n->input_size()))), "dangling");
          return "input renamed to a value nobody produces";
        }
        break;
      case 1:  // a node reading its own output, or a later node's (a cycle)
        if (n && n->input_size() && n->output_size()) {
          auto& last = g->node(g->node_size() - 1);
          n->set_input(0, last.output_size() ? last.output(0) : n->output(0));
          return "input 0 reads the last node's output";
        }
        break;
      case 2:
        if (n) {
          static const char* ops[] = {"Conv", "MaxPool", "Gemm", "Reshape", "Softmax", "Einsum", "Concat", "Pad",
                                      "Constant", "LRN", "", "ConvTranspose", "BatchNormalization", "Clip"};
          n->set_op_type(ops[below(std::size(ops))]);
          return "op type now " + n->op_type();
        }
        break;
      case 3:
        if (n) {
          g->mutable_node()->DeleteSubrange(static_cast<int>(below(nodes)), 1);
          return "a node removed";
        }
        break;
      case 4:
        if (n) {
          *g->add_node() = *n;
          return "a node duplicated";
        }
        break;
      case 5:  // a dim of an input or output
      {
        auto& list = below(2) ? *g->mutable_input() : *g->mutable_output();
        if (list.empty()) break;
        auto* t = list.Mutable(static_cast<int>(below(static_cast<std::uint64_t>(list.size()))))->mutable_type();
        auto* shape = t->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() == 0) {
          shape->add_dim()->set_dim_value(hostile());
          return "a dim added";
        }
        auto* d = shape->mutable_dim(static_cast<int>(below(static_cast<std::uint64_t>(shape->dim_size()))));
        if (below(4) == 0) {
          d->set_dim_param("N");
          return "a dim made symbolic";
        }
        d->set_dim_value(hostile());
        return "a dim set to " + std::to_string(d->dim_value());
      }
      case 6:
        if (g->input_size()) {
          auto* t = g->mutable_input(static_cast<int>(below(static_cast<std::uint64_t>(g->input_size()))))->mutable_type();
          if (below(3) == 0) {
            t->clear_tensor_type();
            return "an input's type cleared";
          }
          t->mutable_tensor_type()->set_elem_type(static_cast<std::int32_t>(below(20)));
          return "an input's element type set to " + std::to_string(t->tensor_type().elem_type());
        }
        break;
      case 7:  // an attribute's value or type
        if (n && n->attribute_size()) {
          auto* a = n->mutable_attribute(static_cast<int>(below(static_cast<std::uint64_t>(n->attribute_size()))));
          switch (below(4)) {
            case 0: a->set_i(hostile()); break;
            case 1: a->clear_ints(); for (std::uint64_t k = below(5); k > 0; --k) a->add_ints(hostile()); break;
            case 2: a->set_type(static_cast<::onnx::AttributeProto_AttributeType>(below(14))); break;
            default: a->set_s(below(2) ? "SAME_UPPER" : "...->x,y"); break;
          }
          return "attribute `" + a->name() + "` changed";
        }
        break;
      case 8:
        if (n) {
          auto* a = n->add_attribute();
          static const char* names[] = {"group", "pads", "strides", "axis", "perm", "kernel_shape", "auto_pad",
                                        "dilations", "bogus", "ceil_mode", "equation", "alpha"};
          a->set_name(names[below(std::size(names))]);
          a->set_type(below(2) ? ::onnx::AttributeProto_AttributeType_INT : ::onnx::AttributeProto_AttributeType_INTS);
          a->set_i(hostile());
          for (std::uint64_t k = below(5); k > 0; --k) a->add_ints(hostile());
          return "attribute `" + a->name() + "` added";
        }
        break;
      case 9:
        if (g->initializer_size()) {
          g->mutable_initializer()->DeleteSubrange(static_cast<int>(below(static_cast<std::uint64_t>(g->initializer_size()))), 1);
          return "an initializer removed";
        }
        break;
      case 10: {  // an input made an initializer, of the wrong size or type, or external
        auto* t = g->add_initializer();
        t->set_name(node_input(m));
        t->set_data_type(static_cast<std::int32_t>(below(3) ? 1 : below(17)));
        for (std::uint64_t k = below(4); k > 0; --k) t->add_dims(below(4) ? static_cast<std::int64_t>(1 + below(4)) : hostile());
        for (std::uint64_t k = below(20); k > 0; --k) t->add_float_data(0.5f);
        if (below(3) == 0) {
          t->set_data_location(::onnx::TensorProto_DataLocation_EXTERNAL);
          auto* e = t->add_external_data();
          static const char* where[] = {"../outside.data", "/etc/hostname", "missing.data", "", "w.data"};
          e->set_key(below(4) ? "location" : "offset");
          e->set_value(where[below(std::size(where))]);
        }
        return "initializer `" + t->name() + "` added";
      }
      case 11:
        if (m.opset_import_size()) {
          m.mutable_opset_import(0)->set_version(hostile());
          return "opset set to " + std::to_string(m.opset_import(0).version());
        }
        break;
      case 12:
        if (n) {
          n->set_domain(below(2) ? "com.example" : "ai.onnx.ml");
          return "a node's domain changed";
        }
        break;
      case 13:
        if (g->output_size()) {
          g->mutable_output(0)->set_name(below(2) ? node_input(m) : "nowhere");
          return "output 0 renamed";
        }
        break;
      case 14:
        if (n && n->input_size() > 1) {
          n->mutable_input()->SwapElements(0, n->input_size() - 1);
          return "a node's inputs swapped";
        }
        break;
      default:
        if (n && n->output_size()) {
          n->set_output(0, below(2) ? node_input(m) : "");
          return "a node's output renamed";
        }
        break;
    }
    return "nothing changed";
  }

  std::string mutate_bytes(std::string& b) {
    if (b.empty()) return "empty";
    switch (below(3)) {
      case 0:
        b.resize(below(b.size()));
        return "truncated to " + std::to_string(b.size()) + " bytes";
      case 1:
        for (std::uint64_t k = 1 + below(8); k > 0; --k) b[below(b.size())] ^= static_cast<char>(1 + below(255));
        return "bytes flipped";
      default: {
        std::size_t at = below(b.size());
        b.erase(at, 1 + below(16));
        return "bytes cut out at " + std::to_string(at);
      }
    }
  }

  ein::eval::random_stream rng_;
};

}  // namespace ein_fuzz
