// The stage-1 driver says which cost model chose the plan, and why, on stdout and in its report.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace {

nlohmann::json read_report(const char* path) {
  std::ifstream in(path);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("driver: a host plan is searched under the roofline model of the host profile, and the report says why") {
  auto r = read_report(EIN_COST_REPORT_HOST);
  std::string search = r["search"];
  MESSAGE(search);
  CHECK(search.rfind("optimize_program, roofline host: ", 0) == 0);
  CHECK(contains(search, " (host.json); "));
  std::string model = r["statistics"]["cost_model"];
  CHECK(model.rfind("roofline (", 0) == 0);
  CHECK(contains(model, ": the host backend's plans do not run on a GPU"));
  CHECK(contains(r["statistics"]["report"].get<std::string>(), "cost model: roofline ("));
}

#if defined(EIN_COST_REPORT_CUDA)
TEST_CASE("driver: a cuda plan is searched under the measured model where a GPU is, else the roofline model") {
  auto r = read_report(EIN_COST_REPORT_CUDA);
  std::string search = r["search"];
  MESSAGE(search);
  std::string model = r["statistics"]["cost_model"];
  if (contains(search, "optimize_program, measured ")) {
    CHECK(contains(model, ": a CUDA device is present"));
  } else {
    CHECK(search.rfind("optimize_program, roofline NVIDIA H100 SXM5 (h100_sxm5.json); ", 0) == 0);
    CHECK(contains(model, ": no CUDA device found"));
  }
}
#endif
