// The second stage of ONNX's node tests: each generated host plan (node_plans.hpp, written by
// onnx_node_generate) run on its test's inputs and compared with the test's outputs, as ONNX's
// backend runner compares them (|got − want| ≤ 1e-7 + 1e-3·|want|); refusals checked for a
// message that names the file, and test data that disagree with their model's shapes checked to
// be refused by ein::run. Prints the table of docs/onnx.md (passed, refused, failed per
// operator) and fails on any failure, and where a test's outcome differs from expected.txt.
//
//   test_onnx_node <node tests folder> <expected.txt>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ein/onnx/import.hpp"
#include "node_plans.hpp"

namespace {

namespace fs = std::filesystem;

// The operator a test is of: its node's op type, or for a test of several nodes (an operator
// expanded into its function) the op type ein reads whose lower-case name starts the test's name.
std::string operator_of(const std::string& test, const ::onnx::ModelProto& m) {
  std::string best;
  for (auto& c : ein::onnx::operators::all()) {
    if (m.graph().node_size() == 1) {
      if (c.op_type == m.graph().node(0).op_type()) return std::string(c.op_type);
      continue;
    }
    std::string lower;
    for (char ch : c.op_type) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (test.rfind("test_" + lower, 0) == 0 && lower.size() > best.size()) best = std::string(c.op_type);
  }
  return best.empty() ? "(others)" : best;
}

// The values of a test's .pb file; ONNX 1.12's test data stores BFLOAT16 values as UINT16
// bits, which `declared` (the model's type for them) says to read as BFLOAT16.
ein::onnx::tensor_data read_file(const fs::path& path, const fs::path& dir, int declared) {
  auto t = ein::onnx::read_tensor_file(path.string());
  if (t.data_type() == ::onnx::TensorProto_DataType_UINT16 && declared == ::onnx::TensorProto_DataType_BFLOAT16)
    t.set_data_type(::onnx::TensorProto_DataType_BFLOAT16);
  return ein::onnx::read_values(t, dir.string(), path.string());
}

// `v` bound by name, in its element type.
ein::runtime::binding bound(ein::onnx::tensor_data& v) {
  if (!v.f64.empty()) return {v.name, v.f64};
  if (!v.f16.empty()) return {v.name, v.f16};
  if (!v.bf16.empty()) return {v.name, v.bf16};
  return {v.name, v.f32};
}

// The first of `values` whose dims differ from those `m` declares for it (ONNX 1.12's BFLOAT16
// CastLike tests give `like` one element where the model declares 3×4), or null.
const ein::onnx::tensor_data* disagreeing(const ::onnx::ModelProto& m,
                                          const std::vector<ein::onnx::tensor_data>& values) {
  for (auto& v : values)
    for (auto& in : m.graph().input()) {
      if (in.name() != v.name || !in.type().tensor_type().has_shape()) continue;
      std::vector<std::int64_t> dims;
      for (auto& d : in.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
      if (std::find(dims.begin(), dims.end(), -1) == dims.end() && dims != v.dims) return &v;
    }
  return nullptr;
}

// Runs `entry` on its test's data; an empty string when every output matches, else why not.
// Where the data disagree with the model, ein::run must refuse them: `refused` is set.
std::string check(const onnx_node::plan_entry& entry, const fs::path& dir, const ::onnx::ModelProto& m,
                  bool& refused) {
  if (!entry.run) return "the plan was not generated (onnx_node_generate's log says why)";
  auto constants = ein::onnx::constant_inputs(m);
  std::set<std::string> initializers;
  for (auto& t : m.graph().initializer()) initializers.insert(t.name());
  auto read = [&](const std::string& kind, int k, const ::onnx::ValueInfoProto& info) {
    auto path = dir / "test_data_set_0" / (kind + "_" + std::to_string(k) + ".pb");
    return read_file(path, dir, info.type().tensor_type().elem_type());
  };
  std::vector<ein::onnx::tensor_data> values, wanted;
  for (int k = 0; k < m.graph().input_size(); ++k) {
    const std::string& name = m.graph().input(k).name();
    if (constants.count(name) || initializers.count(name)) continue;
    values.push_back(read("input", k, m.graph().input(k)));
    values.back().name = name;
  }
  std::vector<ein::onnx::tensor_data> got;
  for (int k = 0; k < m.graph().output_size(); ++k) {
    wanted.push_back(read("output", k, m.graph().output(k)));
    got.push_back(wanted.back());
    got.back().name = m.graph().output(k).name();
    std::fill(got.back().f32.begin(), got.back().f32.end(), std::nanf(""));
    std::fill(got.back().f64.begin(), got.back().f64.end(), std::nan(""));
    std::fill(got.back().f16.begin(), got.back().f16.end(), ein::half(std::nanf("")));
    std::fill(got.back().bf16.begin(), got.back().bf16.end(), ein::bfloat16(std::nanf("")));
  }
  std::vector<ein::runtime::binding> items;
  for (auto& v : values) items.push_back(bound(v));
  for (auto& v : got) items.push_back(bound(v));
  if (const auto* bad = disagreeing(m, values)) {
    try {
      entry.run(ein::runtime::bindings(std::move(items)));
    } catch (const ein::user_error& err) {
      refused = std::string(err.what()).find("`" + bad->name + "`") != std::string::npos;
      if (refused) return {};
      return std::string("ein::run refused data that disagree with the model, naming another tensor: ") + err.what();
    }
    return "input `" + bad->name + "` disagrees with the model's shape, yet ein::run took it";
  }
  entry.run(ein::runtime::bindings(std::move(items)));
  for (std::size_t k = 0; k < got.size(); ++k)
    for (std::int64_t i = 0; i < wanted[k].count(); ++i) {
      double g = got[k].value(static_cast<std::size_t>(i)), w = wanted[k].value(static_cast<std::size_t>(i));
      // ONNX 1.12's data truncate float to bfloat16, where PyTorch, ONNX Runtime and ein round to
      // nearest even: a bfloat16 output may be one unit in the last place (2^-8 of it) away.
      const double rel = wanted[k].type == ::onnx::TensorProto_DataType_BFLOAT16 ? 0x1p-7 : 1e-3;
      bool same = std::abs(g - w) <= 1e-7 + rel * std::abs(w) || (std::isnan(g) && std::isnan(w)) || g == w;
      if (!same)
        return "output `" + got[k].name + "` element " + std::to_string(i) + " is " + std::to_string(g) + ", not " +
               std::to_string(w);
    }
  return {};
}

struct tally {
  int passed = 0, refused = 0, failed = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <node tests folder> <expected.txt>\n", argv[0]);
    return 2;
  }
  const fs::path data = argv[1];
  std::map<std::string, std::string> expected;  // test -> passed | refused
  std::ifstream in(argv[2]);
  for (std::string test, outcome; in >> test >> outcome;) expected[test] = outcome;
  if (expected.empty()) {
    std::fprintf(stderr, "%s lists no tests\n", argv[2]);
    return 2;
  }
  std::map<std::string, tally> table;
  std::map<std::string, std::string> outcome;
  int wrong = 0;
  auto model_of = [&](const std::string& test) { return ein::onnx::read_model((data / test / "model.onnx").string()); };
  for (auto* e = onnx_node::plans; e->test; ++e) {
    auto m = model_of(e->test);
    std::string why;
    bool refused = false;
    try {
      why = check(*e, data / e->test, m, refused);
    } catch (const ein::user_error& err) {
      why = err.what();
    }
    auto& t = table[operator_of(e->test, m)];
    if (refused) {
      ++t.refused;
      outcome[e->test] = "refused";
    } else if (why.empty()) {
      ++t.passed;
      outcome[e->test] = "passed";
    } else {
      ++t.failed;
      ++wrong;
      outcome[e->test] = "failed";
      std::printf("FAILED %s: %s\n", e->test, why.c_str());
    }
  }
  for (auto* e = onnx_node::refusals; e->test; ++e) {
    ++table[operator_of(e->test, model_of(e->test))].refused;
    outcome[e->test] = "refused";
    if (std::string(e->message).rfind("ONNX file ", 0) != 0 && std::string(e->message).rfind("tensor file ", 0) != 0) {
      ++wrong;
      std::printf("FAILED %s: its refusal names no file: %s\n", e->test, e->message);
    }
  }
  for (auto& [test, result] : outcome) {
    auto it = expected.find(test);
    if (result != "failed" && (it == expected.end() || it->second != result)) {
      ++wrong;
      std::printf("UNEXPECTED %s: %s, but expected.txt says %s (update it where this is progress)\n", test.c_str(),
                  result.c_str(), it == expected.end() ? "nothing" : it->second.c_str());
    }
  }
  for (auto& [test, result] : expected)
    if (!outcome.count(test)) {
      ++wrong;
      std::printf("MISSING %s: expected.txt lists it but the node tests hold no such test\n", test.c_str());
    }
  tally all;
  std::printf("| operator | passed | refused | failed |\n|---|---|---|---|\n");
  for (auto& [op, t] : table) {
    if (op != "(others)") std::printf("| %s | %d | %d | %d |\n", op.c_str(), t.passed, t.refused, t.failed);
    all.passed += t.passed, all.refused += t.refused, all.failed += t.failed;
  }
  if (table.count("(others)")) {
    auto& t = table["(others)"];
    std::printf("| (tests of other operators) | %d | %d | %d |\n", t.passed, t.refused, t.failed);
  }
  std::printf("| all | %d | %d | %d |\n", all.passed, all.refused, all.failed);
  std::printf("node tests: %d passed, %d refused, %d failed; %d not as expected\n", all.passed, all.refused, all.failed,
              wrong);
  return wrong == 0 ? 0 : 1;
}
