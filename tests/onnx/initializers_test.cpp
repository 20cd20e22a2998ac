// ein::onnx::initializers: the floating-point tensors of a file (initializers and Constant
// values, in the file or external; float, double, float16, bfloat16), bound by name with their
// shapes and types; a weight the file lacks is an error naming it.
#include <doctest/doctest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "ein/onnx.hpp"

namespace initializers_test {

namespace fs = std::filesystem;

TEST_CASE("initializers holds float initializers and Constant values, and binds those a plan names") {
  ::onnx::ModelProto m;
  auto* g = m.mutable_graph();
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto_DataType_FLOAT);
  w->add_dims(2);
  w->add_dims(3);
  for (int i = 0; i < 6; ++i) w->add_float_data(static_cast<float>(i) - 2.5f);
  auto* shape = g->add_initializer();  // an integer tensor: read at import, never bound
  shape->set_name("shape");
  shape->set_data_type(::onnx::TensorProto_DataType_INT64);
  shape->add_dims(1);
  shape->add_int64_data(6);
  auto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("k");
  auto* a = c->add_attribute();
  a->set_name("value_floats");
  a->set_type(::onnx::AttributeProto_AttributeType_FLOATS);
  a->add_floats(0.25f);
  a->add_floats(4.0f);
  const fs::path dir = fs::path(EIN_ONNX_SCRATCH);
  fs::create_directories(dir);
  const std::string path = (dir / "weights.onnx").string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();

  const ein::onnx::initializers weights(path);
  REQUIRE(weights.tensors().size() == 2);
  CHECK(weights.find("w")->f32 == std::vector<float>{-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f});
  CHECK(weights.find("k")->f32 == std::vector<float>{0.25f, 4.0f});
  CHECK(weights.find("shape") == nullptr);
  const std::array<std::string_view, 2> names = {"k", "w"};
  auto bound = weights.bindings_of(names, "ein::prepare");
  REQUIRE(bound.items().size() == 2);
  CHECK(bound.items()[1].rank == 2);
  CHECK(bound.items()[1].shape[1] == 3);
  // the plan checks each shape: a weight of another shape is named
  CHECK_THROWS_WITH(bound.checked("w", ein::runtime::element_type::f32, {3, 2}, false),
                    "ein::prepare: tensor `w` has shape [3, 2] but the binding says [2, 3]");
  const std::array<std::string_view, 1> missing = {"conv.weight"};
  CHECK_THROWS_WITH(weights.bindings_of(missing, "ein::prepare"),
                    ("ein::prepare: weight `conv.weight` is no floating-point initializer or Constant of ONNX file " +
                     path).c_str());
}

TEST_CASE("float16 and bfloat16 initializers are read bit for bit, as raw data or int32_data, and bound as such") {
  const std::vector<float> values = {-2.5f, 0.1f, 65504.0f, 3.0e-5f};
  ::onnx::ModelProto m;
  auto* g = m.mutable_graph();
  auto* h = g->add_initializer();  // half bits as raw little-endian bytes
  h->set_name("h");
  h->set_data_type(::onnx::TensorProto_DataType_FLOAT16);
  h->add_dims(4);
  std::vector<ein::half> halves;
  for (float v : values) halves.emplace_back(v);
  h->set_raw_data(std::string(reinterpret_cast<const char*>(halves.data()), halves.size() * 2));
  auto* b = g->add_initializer();  // bfloat16 bits one per int32_data element
  b->set_name("b");
  b->set_data_type(::onnx::TensorProto_DataType_BFLOAT16);
  b->add_dims(2);
  b->add_dims(2);
  std::vector<ein::bfloat16> bfloats;
  for (float v : values) {
    bfloats.emplace_back(v);
    b->add_int32_data(bfloats.back().bits);
  }
  const fs::path dir = fs::path(EIN_ONNX_SCRATCH);
  fs::create_directories(dir);
  const std::string path = (dir / "weights16.onnx").string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();

  const ein::onnx::initializers weights(path);
  REQUIRE(weights.tensors().size() == 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    CHECK(weights.find("h")->f16.at(i).bits == halves[i].bits);
    CHECK(weights.find("b")->bf16.at(i).bits == bfloats[i].bits);
    CHECK(weights.find("b")->value(i) == static_cast<float>(bfloats[i]));
  }
  const std::array<std::string_view, 2> names = {"b", "h"};
  auto bound = weights.bindings_of(names, "ein::prepare");
  CHECK(bound.items()[0].type == ein::runtime::element_type::bf16);
  CHECK(bound.items()[1].type == ein::runtime::element_type::f16);
  // a plan that reads `h` as float is told the type differs
  CHECK_THROWS_WITH(bound.checked("h", ein::runtime::element_type::f32, {4}, false),
                    doctest::Contains("`h`"));
  b->clear_int32_data();
  b->add_int32_data(0);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << m.SerializeAsString();
  CHECK_THROWS_WITH(ein::onnx::initializers{path}, doctest::Contains("its dims give 4 elements but its data holds 1"));
}

}  // namespace initializers_test
