// The CUDA tuner: without a device it says CUDA tuning needs a GPU; NVRTC compiles an eOperator
// under points of its CUDA space with their launch bounds (no device needed); a cuda plan
// generated where no GPU is takes the database's records of its one GPU, and its source under
// them compiles with nvcc; on a GPU, a tuned schedule is a point of the space no slower than the
// default, kept in the database under the GPU's key, and a similar kernel is tuned by reuse.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "generator/cuda_tuning.hpp"
#include "ein/codegen/cuda_source.hpp"
#include "ein/measure/cuda_tuner.hpp"
#include "runtime/cuda/device_cases.hpp"
#include "search/rediscover_support.hpp"

namespace cuda_tuner_test {

using namespace ein;

// out[i, j] = Σ_k A[i, k] · B[k, j] over i < rows, j < columns, k < 16.
ir::scope_ptr matmul(std::int64_t rows, std::int64_t columns) {
  using namespace ir;
  auto A = search_test::input("A", {rows, 16}), B = search_test::input("B", {16, columns});
  return make_scope({{"i", 0, rows}, {"j", 0, columns}}, {{"k", 0, 16}},
                    make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("k"), idx("j")}));
}

// The program computing `s` as `out`.
ir::program program_of(const ir::scope_ptr& s) { return cost::eoperator_program(*s); }

// A point of `shape`'s CUDA space other than its default, with other threads than its default.
tune::cuda_schedule other_point(const tune::kernel_shape& shape) {
  const auto fixed = tune::cuda_default(shape);
  for (auto& p : tune::cuda_space(shape))
    if (p.threads != fixed.threads && p.unroll != fixed.unroll) return p;
  FAIL("no other point");
  return fixed;
}

TEST_CASE("cuda tuner: without a device it says that CUDA tuning needs a GPU") {
  std::string why;
  if (measure::gpu_present(&why)) return;  // the GPU case below tunes
  CHECK_THROWS_WITH_AS(measure::cuda_tuner(), doctest::Contains("CUDA tuning needs a GPU"), user_error);
}

TEST_CASE("cuda tuner: NVRTC compiles an eOperator under points of its CUDA space, with their launch bounds") {
  const auto s = matmul(64, 64);
  const auto [key, shape] = measure::identify_cuda_kernel(*s);
  CHECK(key.starts_with("eoperator "));
  int compiled = 0;
  for (auto& p : tune::cuda_space(shape)) {
    if (p.unroll != 2 && p.threads != 1024) continue;  // a sample: every threads, and unroll 2
    CAPTURE(tune::schedule_json(p).dump());
    const auto k = measure::compile_eoperator(*s, "compute_90", measure::detail::ein_include_dir(), p);
    CHECK(k.source.find("__launch_bounds__(" + std::to_string(p.threads) + ")") != std::string::npos);
    CHECK(k.ptx.find(".maxntid " + std::to_string(p.threads) + ", 1, 1") != std::string::npos);
    ++compiled;
  }
  CHECK(compiled >= 10);
}

TEST_CASE("cuda tuning without a GPU: the database's records of its one GPU, and the source under them compiles with nvcc") {
  if (measure::gpu_present()) return;  // with a GPU, its own records (tuned) are read
  const auto s = matmul(64, 128);
  const auto plan = ein::plan::make_plan(program_of(s), {});
  const auto l = codegen::make_named_plan(plan);
  REQUIRE(l.steps.size() == 1);
  const auto [key, shape] = measure::identify_cuda_kernel(*l.steps[0].value);
  const auto point = other_point(codegen::shape_of(l.steps[0], l));
  REQUIRE(tune::cuda_valid(shape, point));
  const auto dir = std::filesystem::temp_directory_path() / "ein_cuda_tuner_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "ein_tuning.json").string();
  {
    tune::tuning_database db(path);
    db.store({"NVIDIA Test GPU", {{"driver", "13000"}}}, key, {point, 1e-6, 2e-6, 8, ""});
    db.store({"host: a test machine", {{"compiler", "g++"}}}, key, {tune::host_schedule{}, 1e-6, 1e-6, 1, ""});
    db.save();
  }
  const auto schedules = generator::detail::tune_cuda_plan(codegen::make_emission(plan, {}), path, 10, true);
  REQUIRE(schedules.size() == 1);
  REQUIRE(schedules[0]);
  CHECK(*schedules[0] == point);
  // the plan's CUDA source under the record, as ein_generate writes it, compiles with nvcc
  codegen::options o;
  o.name = "cuda_tuned";
  o.target = codegen::backend::cuda;
  o.cuda_schedules = schedules;
  const std::string source = codegen::emit_cuda_source(plan, o);
  CHECK(source.find("__launch_bounds__(" + std::to_string(point.threads) + ")") != std::string::npos);
  std::ofstream(dir / "cuda_tuned.cu") << source;
  const std::string cudnn = EIN_TEST_CUDNN_INCLUDE;
  const std::string command = std::string(EIN_TEST_NVCC) + " -std=c++20 -arch=sm_90 -c -I" + EIN_TEST_INCLUDE +
                              (cudnn.empty() ? "" : " -I" + cudnn) + " " + (dir / "cuda_tuned.cu").string() + " -o " +
                              (dir / "cuda_tuned.o").string();
  CAPTURE(command);
  CHECK(std::system(command.c_str()) == 0);
}

TEST_CASE("cuda tuner: on the GPU, a tuned schedule is a point of the space, kept under the GPU's key; reuse tunes a neighbourhood") {
  if (ein_test::skip_without_device()) return;
  measure::cuda_tuning_options o;
  o.trials = 6;
  o.per_batch = 3;
  o.budget_seconds = 60;
  o.turns = 5;
  o.reuse_rounds = 1;  // ETO's search: the start's neighbourhood alone
  measure::cuda_tuner tuner(0, o);
  MESSAGE("device: " << tuner.device().name);
  CHECK(tuner.device().environment.count("driver") == 1);
  tune::tuning_database db;
  const auto s = matmul(256, 256);
  const auto t = tuner.tune(*s, &db);
  CHECK(t.measured);
  const auto [key, shape] = measure::identify_cuda_kernel(*s);
  CHECK(t.key == key);
  const auto* best = std::get_if<tune::cuda_schedule>(&t.record.best);
  REQUIRE(best);
  CHECK(tune::cuda_valid(shape, *best));
  CHECK(t.record.seconds > 0);
  CHECK(t.record.seconds <= t.record.default_seconds);
  CHECK(t.record.trials + t.refused == 6);
  CHECK(db.find(tuner.device(), key) != nullptr);
  // again: the database's record, nothing measured
  CHECK(!tuner.tune(*s, &db).measured);
  // a similar kernel, from the first one's record
  const auto similar = matmul(128, 256);
  const auto r = tuner.tune_from(*similar, *s, db);
  CHECK(r.measured);
  CHECK(r.record.reused_from == key);
  const auto [similar_key, similar_shape] = measure::identify_cuda_kernel(*similar);
  const auto start = tune::cuda_reuse_start(shape, *best, similar_shape);
  CHECK(r.record.trials + r.refused <=
        static_cast<std::int64_t>(1 + tune::cuda_neighbourhood(similar_shape, start).size()));
}

}  // namespace cuda_tuner_test
