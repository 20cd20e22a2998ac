// Device profiles: the shipped ones load, and every field of a malformed one is refused naming
// the file and the field.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "ein/cost/profile.hpp"

namespace profile_test {

using namespace ein;
using namespace ein::cost;
using nlohmann::json;

namespace {

json shipped_json() {
  std::ifstream in(std::string(EIN_PROFILE_DIR) + "/h100_sxm5.json");
  return json::parse(in);
}

std::string refused(const json& j) {
  try {
    read_profile_text(j.dump(), "gpu.json");
  } catch (const user_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("profile: the shipped profiles load, from a file and from text") {
  auto p = load_profile(std::string(EIN_PROFILE_DIR) + "/h100_sxm5.json");
  CHECK(p.name == "NVIDIA H100 SXM5");
  CHECK(p.fp32_flops == doctest::Approx(67e12));
  CHECK(p.sm_count == 132);
  CHECK(p.library.size() == 8);
  CHECK(read_profile_text(shipped_json().dump(), "h100.json").library.at("matmul").points.size() == 4);
  CHECK(shipped_json().get<device_profile>().tile_rows == 64);
  CHECK_THROWS_WITH_AS(load_profile("/nonexistent/gpu.json"), doctest::Contains("/nonexistent/gpu.json"), user_error);
}

TEST_CASE("profile: a malformed field is refused naming the file and the field") {
  struct bad {
    std::string pointer;
    json value;
    std::string error;
  };
  for (auto& [pointer, value, error] : std::vector<bad>{
           {"/fp32_tflops", -67, "at /fp32_tflops: expected a number in (0.0, 1000000000.0], got -67"},
           {"/fp32_tflops", 1e300, "at /fp32_tflops: expected a number in (0.0, 1000000000.0], got 1e+300"},
           {"/dram_gbytes_per_s", "fast", "at /dram_gbytes_per_s: expected a number"},
           {"/launch_us", -1, "at /launch_us: expected a number in [0.0, 1000000.0], got -1"},
           {"/use_tf32", 1, "at /use_tf32: expected true or false, got 1"},
           {"/gemm_batch_as_calls", "yes", "at /gemm_batch_as_calls: expected true or false, got \"yes\""},
           {"/eoperator_bandwidth_fraction", 0, "at /eoperator_bandwidth_fraction: expected a number in (0.0, 1.0]"},
           {"/sm_count", 13.5, "at /sm_count: expected a 64-bit integer, got 13.5"},
           {"/sm_count", 0, "at /sm_count: sm_count must be positive"},
           {"/library_tile", json::array({64}), "at /library_tile: expected [rows, columns]"},
           {"/library_tile/1", -64, "at /library_tile: a tile's sides must be positive"},
           {"/winograd_3x3_flop_fraction", 1.5, "at /winograd_3x3_flop_fraction: expected a number in (0.0, 1.0]"},
           {"/library_efficiency/matmul/1/1", 2, "at /library_efficiency/matmul/1/1: expected a number in (0.0, 1.0]"},
           {"/library_efficiency/matmul/1/0", 1e6, "at /library_efficiency/matmul/1/0: FLOPs must ascend"},
           {"/library_efficiency/matmul/2", json::array({1e10}), "at /library_efficiency/matmul/2: expected [FLOPs, "},
           {"/library_efficiency/matmul", json::array(), "at /library_efficiency/matmul: a curve needs one point"},
           {"/library_efficiency/matmull", json::array({json::array({1e6, 0.5})}),
            "at /library_efficiency/matmull: `matmull` is no library operator"},
           {"/fp32_tflop", 67, "at /fp32_tflop: unknown field"},
           {"/half_tflops", -1, "at /half_tflops: expected a number"},
           {"/half_tflops", "fast", "at /half_tflops: expected a number"},
           {"/name", "", "at /name: a profile needs a name"},
       }) {
    CAPTURE(pointer);
    auto j = shipped_json();
    j[json::json_pointer(pointer)] = value;
    auto e = refused(j);
    CHECK(e.rfind("device profile `gpu.json`: ", 0) == 0);
    CHECK(e.find(error) != std::string::npos);
  }
  for (auto field : {"name", "source", "fp32_tflops", "tf32_tflops", "dram_gbytes_per_s", "launch_us",
                     "eoperator_bandwidth_fraction", "eoperator_compute_fraction", "library_efficiency",
                     "library_tile"}) {
    CAPTURE(field);
    auto j = shipped_json();
    j.erase(field);
    CHECK(refused(j).find(std::string("missing field `") + field + "`") != std::string::npos);
  }
  auto j = shipped_json();
  j.erase("sm_count");
  CHECK(refused(j).find("at /library_tile: given without sm_count") != std::string::npos);
  j = shipped_json();
  j["library_efficiency"].erase("default");
  CHECK(refused(j).find("at /library_efficiency: no curve for `elementwise`") == std::string::npos);
  j["library_efficiency"].erase("elementwise");
  CHECK(refused(j).find("at /library_efficiency: no curve for `elementwise` and no \"default\" curve") !=
        std::string::npos);
  CHECK(refused(json::array()).find("at /: expected an object") != std::string::npos);
  try {
    read_profile_text("{\"name\": ", "gpu.json");
    FAIL("expected an error");
  } catch (const user_error& e) {
    CHECK(std::string(e.what()) == "device profile `gpu.json` is not valid JSON (at byte 10)");
  }
}

}  // namespace profile_test
