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

TEST_CASE("driver: a host plan is measured on this host, explored with this machine's profile, and the report says so") {
  auto r = read_report(EIN_COST_REPORT_HOST);
  std::string search = r["search"];
  MESSAGE(search);
  CHECK(search.rfind("optimize_program, measured host: ", 0) == 0);
  CHECK(contains(search, " (driver_cost_cache.json), explored by roofline host: "));
  CHECK(contains(search, " (ein_host_profile.json); "));
  std::string model = r["statistics"]["cost_model"];
  CHECK(model.rfind("measured on host: ", 0) == 0);
  CHECK(contains(model, ": the host backend's plans run here; explored with roofline (host: "));
  CHECK(contains(model, "measured by ein at "));
  CHECK(contains(model, " eOperators in "));
  CHECK(contains(r["statistics"]["report"].get<std::string>(), "cost model: measured on host: "));
}

TEST_CASE("driver: under COST roofline a host plan is priced by the shipped host profile") {
  auto r = read_report(EIN_COST_REPORT_ROOFLINE);
  std::string search = r["search"];
  MESSAGE(search);
  CHECK(search.rfind("optimize_program, roofline host: ", 0) == 0);
  CHECK(contains(search, " (host.json); "));
  std::string model = r["statistics"]["cost_model"];
  CHECK(model.rfind("roofline (", 0) == 0);
  CHECK(contains(model, ": requested (--cost roofline)"));
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
