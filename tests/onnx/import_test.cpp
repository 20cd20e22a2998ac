// The importer on hand-built models: what it refuses and how the message names it (the file,
// the node's name, index and op type, the attribute or input), symbolic shapes, external data,
// and the interpreter's values of an imported grouped convolution against loops written here, its
// match as one convolution of its group count, and ops::grouped_conv2d's definition of it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ein/eval/interpret.hpp"
#include "ein/eval/random.hpp"
#include "ein/front.hpp"
#include "ein/ir/canonical.hpp"
#include "ein/match/match.hpp"
#include "ein/onnx/import.hpp"
#include "import.hpp"

namespace import_test {

namespace fs = std::filesystem;

::onnx::ValueInfoProto value(const std::string& name, std::vector<std::int64_t> dims,
                             int type = ::onnx::TensorProto_DataType_FLOAT) {
  ::onnx::ValueInfoProto v;
  v.set_name(name);
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  auto* shape = t->mutable_shape();
  for (auto d : dims) shape->add_dim()->set_dim_value(d);
  return v;
}

::onnx::NodeProto node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                       const std::string& name = "n") {
  ::onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (auto& i : in) n.add_input(i);
  for (auto& o : out) n.add_output(o);
  return n;
}

void ints(::onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_INTS);
  for (auto v : values) a->add_ints(v);
}

void integer(::onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto_AttributeType_INT);
  a->set_i(v);
}

::onnx::TensorProto floats(const std::string& name, std::vector<std::int64_t> dims) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto_DataType_FLOAT);
  std::int64_t n = 1;
  for (auto d : dims) t.add_dims(d), n *= d;
  for (std::int64_t i = 0; i < n; ++i) t.add_float_data(0.5f + static_cast<float>(i % 7));
  return t;
}

::onnx::ModelProto model(std::vector<::onnx::NodeProto> nodes, std::vector<::onnx::ValueInfoProto> inputs,
                         std::vector<::onnx::ValueInfoProto> outputs, std::vector<::onnx::TensorProto> inits = {},
                         std::int64_t opset = 17) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (auto& n : nodes) *g->add_node() = n;
  for (auto& i : inputs) *g->add_input() = i;
  for (auto& i : outputs) *g->add_output() = i;
  for (auto& t : inits) *g->add_initializer() = t;
  return m;
}

// The message of the user_error importing `m` throws ("" where it imports).
std::string refusal(const ::onnx::ModelProto& m, ein::onnx::import_options o = {}) {
  try {
    ein::onnx::import_model(m, "m.onnx", std::move(o));
  } catch (const ein::user_error& e) {
    return e.what();
  }
  return "";
}

::onnx::ModelProto relu(const std::vector<std::int64_t>& dims = {2, 3}) {
  return model({node("Relu", {"x"}, {"y"}, "act")}, {value("x", dims)}, {value("y", dims)});
}

TEST_CASE("an unsupported attribute, operator, domain or opset is refused naming the node") {
  auto conv = node("Conv", {"x", "w"}, {"y"}, "conv1");
  integer(conv, "bogus", 1);
  auto m = model({conv}, {value("x", {1, 2, 5, 5}), value("w", {3, 2, 3, 3})}, {value("y", {1, 3, 3, 3})});
  CHECK(refusal(m) == "ONNX file m.onnx: node `conv1` (#0, Conv): attribute `bogus` is not supported (docs/onnx.md "
                      "lists those ein reads)");
  auto typed = node("Conv", {"x", "w"}, {"y"}, "conv1");
  integer(typed, "strides", 2);
  CHECK(refusal(model({typed}, {value("x", {1, 2, 5, 5}), value("w", {3, 2, 3, 3})}, {value("y", {1, 3, 3, 3})})) ==
        "ONNX file m.onnx: node `conv1` (#0, Conv): attribute `strides` is of type INT, not INTS");
  auto lrn = model({node("LRN", {"x"}, {"y"}, "norm")}, {value("x", {1, 2})}, {value("y", {1, 2})});
  CHECK(refusal(lrn) ==
        "ONNX file m.onnx: node `norm` (#0, LRN): operator LRN is not supported (docs/onnx.md lists those ein reads)");
  auto other = relu();
  other.mutable_graph()->mutable_node(0)->set_domain("com.example");
  CHECK(refusal(other).find("node `act` (#0, Relu): domain `com.example` is not supported") != std::string::npos);
  auto newer = relu();
  newer.mutable_opset_import(0)->set_version(99);
  CHECK(refusal(newer) == "ONNX file m.onnx: opset 99 of the default domain; ein reads opsets 1 to 21");
  auto none = relu();
  none.clear_opset_import();
  CHECK(refusal(none).find("imports no opset of the default domain") != std::string::npos);
  auto old = relu();
  old.mutable_opset_import(0)->set_version(5);
  CHECK(refusal(old).find("(#0, Relu): opset 5 defines Relu as ein does not read it (from opset 6)") !=
        std::string::npos);
}

TEST_CASE("dangling, cyclic and twice-produced values are refused naming the node and the value") {
  auto dangling = model({node("Relu", {"nowhere"}, {"y"}, "act")}, {value("x", {2})}, {value("y", {2})});
  CHECK(refusal(dangling) == "ONNX file m.onnx: node `act` (#0, Relu): input `nowhere` is no graph input, "
                             "initializer or node output");
  auto cyclic = model({node("Relu", {"b"}, {"a"}, "first"), node("Relu", {"a"}, {"b"}, "second")}, {value("x", {2})},
                      {value("a", {2})});
  CHECK(refusal(cyclic).find("(#0, Relu) depends on its own output (the graph has a cycle)") != std::string::npos);
  auto twice = model({node("Relu", {"x"}, {"y"}, "first"), node("Relu", {"x"}, {"y"}, "second")}, {value("x", {2})},
                     {value("y", {2})});
  CHECK(refusal(twice) == "ONNX file m.onnx: node `second` (#1, Relu): output `y` is also another node's output");
  auto no_output = relu();
  no_output.mutable_graph()->mutable_output(0)->set_name("z");
  CHECK(refusal(no_output) == "ONNX file m.onnx: graph output `z` is no node's output");
}

TEST_CASE("dims of 0, -1 and past 2^40 are refused; symbolic dims take the shape given") {
  CHECK(refusal(relu({2, 0})).find("graph input `x` has dim 1 = 0; ein's tensors have extents from 1 to 2^40") !=
        std::string::npos);
  CHECK(refusal(relu({-1, 3})).find("graph input `x` has dim 0 = -1") != std::string::npos);
  CHECK(refusal(relu({std::int64_t{1} << 41})).find("has dim 0 = 2199023255552") != std::string::npos);
  CHECK(refusal(relu({std::int64_t{1} << 40, std::int64_t{1} << 40})).find("more than 2^48 elements") !=
        std::string::npos);
  auto symbolic = relu();
  symbolic.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  symbolic.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  CHECK(refusal(symbolic) == "ONNX file m.onnx: graph input `x` has symbolic dim 0 (`N`); give its shape "
                             "(ein_generate's SHAPE x=d0,d1,...)");
  ein::onnx::import_options o;
  o.shapes["x"] = {5, 3};
  auto p = ein::onnx::import_model(symbolic, "m.onnx", o);
  CHECK(p.definitions.at(0).value->shape() == std::vector<std::int64_t>{5, 3});
  o.shapes["x"] = {5, 4};
  CHECK(refusal(symbolic, o).find("graph input `x` has dim 1 = 3 but the shape given is [5, 4]") != std::string::npos);
  o.shapes = {{"w", {1}}};
  CHECK(refusal(relu(), o) == "ONNX file m.onnx: a shape is given for `w`, which is no graph input");
  std::map<std::string, std::vector<std::int64_t>> shapes;
  CHECK(ein::generator::parse_shapes("x=1,3,224,224 mask=1,7", shapes).empty());
  CHECK(shapes["x"] == std::vector<std::int64_t>{1, 3, 224, 224});
  CHECK(ein::generator::parse_shapes("x=1,0", shapes).find("from 1 to 2^40") != std::string::npos);
  CHECK(ein::generator::parse_shapes("x", shapes).find("is not name=d0,d1") != std::string::npos);
}

TEST_CASE("element types other than float and double, and data of the wrong size, are refused") {
  CHECK(refusal(model({node("Relu", {"x"}, {"y"}, "act")}, {value("x", {2}, ::onnx::TensorProto_DataType_INT32)},
                      {value("y", {2})})) ==
        "ONNX file m.onnx: graph input `x` has element type INT32; ein computes FLOAT, DOUBLE, FLOAT16 and BFLOAT16");
  auto short_data = floats("w", {3, 2, 3, 3});
  short_data.mutable_float_data()->RemoveLast();
  auto m = model({node("Conv", {"x", "w"}, {"y"}, "conv1")}, {value("x", {1, 2, 5, 5})}, {value("y", {1, 3, 3, 3})},
                 {short_data});
  CHECK(refusal(m) == "ONNX file m.onnx: node `conv1` (#0, Conv): initializer `w`: its dims give 54 elements but its data holds 53 values");
  auto shape = model({node("Reshape", {"x", "s"}, {"y"}, "view")}, {value("x", {2, 3})}, {value("y", {3, 2})});
  ::onnx::TensorProto s;
  s.set_name("s");
  s.set_data_type(::onnx::TensorProto_DataType_INT64);
  s.add_dims(2);
  s.add_int64_data(3);
  *shape.mutable_graph()->add_initializer() = s;
  CHECK(refusal(shape) == "ONNX file m.onnx: node `view` (#0, Reshape): initializer `s`: its dims give 2 elements but its data holds 1 values");
  s.add_int64_data(2);
  *shape.mutable_graph()->mutable_initializer(0) = s;
  CHECK(refusal(shape).empty());
}

// A bfloat16 Conv with bias, then Softmax: 16-bit tensors where the file has them, float steps
// inside each node, and each node's output rounded once (the interpreter against loops here).
TEST_CASE("a bfloat16 network imports with bfloat16 tensors and float steps, rounding once a node") {
  constexpr auto bf16 = ::onnx::TensorProto_DataType_BFLOAT16;
  auto conv = node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  ints(conv, "pads", {1, 1, 1, 1});
  auto softmax = node("Softmax", {"c"}, {"y"}, "softmax");
  integer(softmax, "axis", 1);
  auto w = floats("w", {3, 2, 3, 3});
  w.set_data_type(bf16);
  for (float v : w.float_data()) w.add_int32_data(ein::bfloat16(v / 8).bits);
  w.clear_float_data();
  auto b = floats("b", {3});
  b.set_data_type(bf16);
  for (float v : b.float_data()) b.add_int32_data(ein::bfloat16(v).bits);
  b.clear_float_data();
  auto p = ein::onnx::import_model(model({conv, softmax}, {value("x", {1, 2, 4, 4}, bf16)}, {value("y", {1, 3, 4, 4}, bf16)},
                                         {w, b}),
                                   "m.onnx");
  for (auto& t : p.tensors) CHECK(t.type == ein::ir::dtype::bf16);
  CHECK(p.definitions.size() == 6);  // the product, + bias; max, exponentials, sum, divide
  for (auto& d : p.definitions) {
    CAPTURE(d.name);
    CHECK(d.type == (d.name == "c" || d.name == "y" ? ein::ir::dtype::bf16 : ein::ir::dtype::f32));
  }
  auto env = ein::eval::random_inputs(p, 11);
  auto values = ein::eval::evaluate(p, env);
  auto &x = env.at("x"), &wt = env.at("w"), &bias = env.at("b");
  auto& c = values.at("c");
  double worst = 0;
  for (std::int64_t f = 0; f < 3; ++f)
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < 4; ++j) {
        double sum = bias.at({f});
        for (std::int64_t k = 0; k < 2; ++k)
          for (std::int64_t r = 0; r < 3; ++r)
            for (std::int64_t s = 0; s < 3; ++s)
              if (i + r - 1 >= 0 && i + r - 1 < 4 && j + s - 1 >= 0 && j + s - 1 < 4)
                sum += x.at({0, k, i + r - 1, j + s - 1}) * wt.at({f, k, r, s});
        const double rounded = static_cast<float>(ein::bfloat16(static_cast<float>(sum)));
        worst = std::max(worst, std::abs(rounded - c.at({0, f, i, j})) / std::max(1.0, std::abs(rounded)));
      }
  CHECK(worst <= 0x1p-8);  // one rounding of each output: at most half a unit apart from a sum order
}

TEST_CASE("a Reshape's shape must be known at import, and an output's declared shape must agree") {
  auto m = model({node("Reshape", {"x", "s"}, {"y"}, "view")}, {value("x", {2, 3}), value("s", {2},
                 ::onnx::TensorProto_DataType_INT64)}, {value("y", {3, 2})});
  // the shape input is read at import: given as a graph input of ints, it is refused as such
  CHECK(refusal(m) == "ONNX file m.onnx: graph input `s` has element type INT64; ein computes FLOAT, DOUBLE, FLOAT16 and BFLOAT16");
  auto wrong = relu({2, 3});
  *wrong.mutable_graph()->mutable_output(0) = value("y", {3, 2});
  CHECK(refusal(wrong) == "ONNX file m.onnx: graph output `y` is declared of shape [3, 2] but its node computes [2, 3]");
}

// y[n, f, h, w] = Σ_{c, r, s} x[n, g·Cg + c, h + r − 1, w + s − 1] · w[f, c, r, s], g = f / (M / group)
TEST_CASE("a grouped convolution imports as the loops of its definition compute it") {
  for (std::int64_t group : {1, 2, 4}) {  // 4: depthwise, 2 filters a channel
    const std::int64_t c = 4, m = 8, cg = c / group, mg = m / group, h = 5;
    auto conv = node("Conv", {"x", "w"}, {"y"}, "conv");
    integer(conv, "group", group);
    ints(conv, "pads", {1, 1, 1, 1});
    auto model_ = model({conv}, {value("x", {1, c, h, h})}, {value("y", {1, m, h, h})}, {floats("w", {m, cg, 3, 3})});
    auto p = ein::onnx::import_model(model_, "m.onnx");
    auto env = ein::eval::random_inputs(p, 7);
    auto out = ein::eval::evaluate(p, env).at("y");
    auto& x = env.at("x");
    auto& w = env.at("w");
    double worst = 0;
    for (std::int64_t f = 0; f < m; ++f)
      for (std::int64_t i = 0; i < h; ++i)
        for (std::int64_t j = 0; j < h; ++j) {
          double sum = 0;
          for (std::int64_t k = 0; k < cg; ++k)
            for (std::int64_t r = 0; r < 3; ++r)
              for (std::int64_t s = 0; s < 3; ++s)
                sum += x.at({0, f / mg * cg + k, i + r - 1, j + s - 1}) * w.at({f, k, r, s});
          worst = std::max(worst, std::abs(sum - out.at({0, f, i, j})));
        }
    CHECK(worst < 1e-12);
    // one convolution of `group` groups, a library's (cuDNN's group count, oneDNN's groups)
    std::int64_t groups = 0;
    for (auto& i : ein::match::match(*p.definitions.at(0).value))
      if (i.kind == ein::match::op_kind::conv2d) groups = i.conv().groups;
    CHECK(groups == group);
  }
}

// ONNX's Conv with `group` and ops::grouped_conv2d (NCHW, PyTorch's KCRS filter) write one
// definition (the same up to iterator names).
template <std::int64_t Group>
void check_front_end_writes_the_import() {
  constexpr std::int64_t c = 4, m = 8, h = 5;
  static constexpr ein::input<"x", float, 1, c, h, h> x;
  static constexpr ein::weight<"w", float, m, c / Group, 3, 3> w;
  auto front = ein::reify(ein::program(ein::ops::grouped_conv2d<"y", Group, ein::ops::nchw, 2, 1>(x, w)));
  auto conv = node("Conv", {"x", "w"}, {"y"}, "conv");
  integer(conv, "group", Group);
  ints(conv, "pads", {1, 1, 1, 1});
  ints(conv, "strides", {2, 2});
  auto imported = ein::onnx::import_model(
      model({conv}, {value("x", {1, c, h, h})}, {value("y", {1, m, 3, 3})}, {floats("w", {m, c / Group, 3, 3})}),
      "m.onnx");
  CAPTURE(Group);
  CHECK(ein::ir::equivalent_form(*front.definitions.at(0).value, *imported.definitions.at(0).value));
}

TEST_CASE("ops::grouped_conv2d writes the definition ONNX's grouped Conv imports as") {
  check_front_end_writes_the_import<1>();
  check_front_end_writes_the_import<2>();
  check_front_end_writes_the_import<4>();  // depthwise, 2 filters a channel
}

TEST_CASE("external data is read beside the file, and never from outside its folder") {
  const fs::path dir = fs::path(EIN_ONNX_SCRATCH) / "external";
  fs::create_directories(dir);
  std::vector<float> values(3 * 2 * 3 * 3);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25f * static_cast<float>(i % 9) - 1;
  std::ofstream(dir / "w.data", std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  ::onnx::TensorProto w;
  w.set_name("w");
  w.set_data_type(::onnx::TensorProto_DataType_FLOAT);
  for (auto d : {3, 2, 3, 3}) w.add_dims(d);
  w.set_data_location(::onnx::TensorProto_DataLocation_EXTERNAL);
  auto* location = w.add_external_data();
  location->set_key("location");
  location->set_value("w.data");
  auto m = model({node("Conv", {"x", "w"}, {"y"}, "conv1")}, {value("x", {1, 2, 5, 5})}, {value("y", {1, 3, 3, 3})},
                 {w});
  const std::string path = (dir / "conv.onnx").string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  CHECK(ein::onnx::import_file(path).tensors.size() == 2);
  ein::onnx::tensor_data read = ein::onnx::read_values(w, dir.string(), "w");
  CHECK(read.f32 == values);
  location->set_value("../w.data");
  CHECK_THROWS_WITH(ein::onnx::read_values(w, dir.string(), "w"),
                    "w: external data location `../w.data` must be a path inside the model's folder (no `/` first, "
                    "no `..`)");
  location->set_value("missing.data");
  CHECK_THROWS_WITH(ein::onnx::read_values(w, dir.string(), "w"),
                    ("w: external data file " + (dir / "missing.data").string() + " cannot be opened").c_str());
}

TEST_CASE("a file that is no ONNX model is refused naming it") {
  const fs::path dir = fs::path(EIN_ONNX_SCRATCH);
  fs::create_directories(dir);
  const std::string path = (dir / "truncated.onnx").string();
  std::string bytes = relu().SerializeAsString();
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  CHECK_THROWS_WITH(ein::onnx::import_file(path), ("ONNX file " + path +
                                                   ": not an ONNX model (protobuf cannot parse it: truncated or "
                                                   "another format)").c_str());
  CHECK_THROWS_WITH(ein::onnx::import_file((dir / "absent.onnx").string()),
                    ("ONNX file " + (dir / "absent.onnx").string() + ": cannot be opened").c_str());
}

}  // namespace import_test
