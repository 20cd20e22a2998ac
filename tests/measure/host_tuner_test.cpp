// The host tuner on a small eOperator within a tiny budget: the schedule it returns is a point of
// the kernel's space, no slower than the default in its own turns, and its kernel equals the
// interpreter; a second tuning with the saved database compiles and times nothing. Tuned by reuse
// from a similar kernel's record, its first round times the default and the mapped start's
// neighbourhood only, and later rounds walk on from the best point while it moves.
// Under a stub timer, a point is kept only where it beats the default by more than the noise.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>
#include <variant>

#include "ein/eval/compare.hpp"
#include "ein/eval/interpret.hpp"
#include "ein/measure/host_tuner.hpp"
#include "ein/tune/reuse.hpp"
#include "search/rediscover_support.hpp"

namespace host_tuner_test {

using namespace ein;

// out[i, j] = Σ_k A[i, k] · B[j, k] + A[i, j mod 16] over i < rows, j < columns: B read across its
// rows (a blocking can pay); at 32 × 64, 2^15 multiply-adds (the default shares the rows among
// threads). `a` and `b` name A and B.
ir::scope_ptr kernel(std::int64_t rows = 32, std::int64_t columns = 64, const char* a = "A", const char* b = "B") {
  using namespace ir;
  auto A = search_test::input(a, {rows, 16}), B = search_test::input(b, {columns, 16});
  return make_scope({{"i", 0, rows}, {"j", 0, columns}}, {{"k", 0, 16}},
                    make_access(A, {idx("i"), idx("k")}) * make_access(B, {idx("j"), idx("k")}) +
                        make_access(A, {idx("i"), idx("j").mod(16)}));
}

// The largest relative error of kernel `s` compiled alone under `schedule` against the
// interpreter, on the inputs the batch draws.
double error_under(const ir::scope& s, const tune::host_schedule& schedule, const measure::host_toolchain& toolchain) {
  const auto program = measure::host_timer::eoperator_inputs_program(*cost::flat_eoperator(s));
  measure::host_batch batch({{"best", ein::plan::make_plan(program, {}), {schedule}}}, toolchain,
                            codegen::accumulation::element);
  auto c = batch.prepare(0, 7);
  c->run();
  eval::bindings env;
  for (auto& t : program.tensors) {
    eval::dense d(t.shape);
    d.data = c->values(t.name);
    env[t.name] = std::move(d);
  }
  const auto expected = eval::evaluate(program, env).at(program.outputs[0]);
  eval::dense got(expected.shape, expected.lower);
  got.data = c->values(program.outputs[0]);
  return eval::max_rel_error(got, expected);
}

TEST_CASE("host_tuner: a tuned schedule is a point of the space equal to the interpreter; with the database, nothing is measured") {
  const auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  measure::host_tuning_options o;
  o.trials = 6;
  o.per_batch = 3;  // two batches, the default timed in the turns of both
  o.budget_seconds = 120;
  o.timing.runs = 3;
  o.progress = "host_tuner_test";
  const auto s = kernel();
  tune::tuning_database db;
  measure::host_tuner tuner(toolchain, o);
  const auto r = tuner.tune(*s, &db);
  CHECK(r.measured);
  CHECK(r.refused == 0);
  CHECK(r.record.trials == 6);
  CHECK(tuner.batches() == 2);
  CHECK(r.record.seconds > 0);
  CHECK(r.record.seconds <= r.record.default_seconds);
  REQUIRE(std::holds_alternative<tune::host_schedule>(r.record.best));
  const auto best = std::get<tune::host_schedule>(r.record.best);
  REQUIRE(db.find(tuner.device(), r.key) != nullptr);
  CHECK(*db.find(tuner.device(), r.key) == r.record);
  CHECK(r.record.shape == measure::host_tuner::identify(*s).second);  // a later build may reuse it

  // the same kernel over tensors of other names is the same record: nothing is measured
  const auto renamed = kernel(32, 64, "P", "Q");
  CHECK(measure::host_tuner::identify(*renamed).first == r.key);
  CHECK(measure::host_tuner::identify(*kernel(32, 32, "A", "A")).first != measure::host_tuner::identify(*kernel(32, 32)).first);
  const auto same = tuner.tune(*renamed, &db);
  CHECK_FALSE(same.measured);
  CHECK(tuner.batches() == 2);

  // the best schedule's kernel, compiled alone, equals the interpreter on other inputs
  const auto layout = codegen::make_named_plan(
      ein::plan::make_plan(measure::host_timer::eoperator_inputs_program(*cost::flat_eoperator(*s)), {}));
  REQUIRE(layout.steps.size() == 1);
  CHECK(tune::host_valid(codegen::shape_of(layout.steps[0], layout), best));
  CHECK(error_under(*s, best, toolchain) <= 1e-5);

  // saved and read again: a second tuner answers from the file, compiling nothing
  const auto path = std::filesystem::temp_directory_path() / "ein_host_tuner_test.json";
  std::filesystem::remove(path);
  {
    tune::tuning_database file(path.string());
    file.store(tuner.device(), r.key, r.record);
    file.save();
  }
  tune::tuning_database again(path.string());
  measure::host_tuner second(toolchain, o);
  const auto cached = second.tune(*s, &again);
  CHECK_FALSE(cached.measured);
  CHECK(cached.record == r.record);
  CHECK(second.batches() == 0);
  std::filesystem::remove(path);
}

TEST_CASE("host_tuner: reusing a similar kernel's record, one round times its start and that start's neighbours only") {
  const auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  measure::host_tuning_options o;
  o.timing.runs = 3;
  o.reuse_rounds = 1;  // ETO's search: the start's neighbourhood alone
  o.progress = "host_tuner_test reuse";
  const auto parent = kernel(), child = kernel(8, 32);
  const auto [parent_key, parent_shape] = measure::host_tuner::identify(*parent);
  const auto [child_key, child_shape] = measure::host_tuner::identify(*child);
  REQUIRE(tune::reusable(parent_shape, child_shape));
  REQUIRE(child_shape.widest_lanes >= 8);
  measure::host_tuner tuner(toolchain, o);
  tune::tuning_database db;
  // the parent's best as a record: its 32 rows shared in chunks of 16, 8 lanes
  const tune::host_schedule parent_best{1, 16, 8, 0, 0};
  REQUIRE(tune::host_valid(parent_shape, parent_best));
  db.store(tuner.device(), parent_key, {parent_best, 1e-5, 2e-5, 1, ""});

  // a quarter of the rows and half the columns: chunk 4, 4 lanes
  const tune::host_schedule start{1, 4, 4, 0, 0};
  CHECK(tune::host_reuse_start(parent_shape, parent_best, child_shape) == start);
  // the default (no threads below 2^15 multiply-adds, 8 lanes), the start, no shared loop,
  // chunk 1 (16 is not below 8 rows), 2 and 8 lanes (no block: the rows are shared)
  const std::vector<tune::host_schedule> tried{
      {0, 0, 8, 0, 0}, start, {0, 0, 4, 0, 0}, {1, 1, 4, 0, 0}, {1, 4, 2, 0, 0}, {1, 4, 8, 0, 0}};
  CHECK(tune::host_default(child_shape) == tried[0]);
  const auto r = tuner.tune_from(*child, *parent, db);
  CHECK(r.measured);
  CHECK(r.refused == 0);
  CHECK(r.record.trials == static_cast<std::int64_t>(tried.size()));
  CHECK(r.record.reused_from == parent_key);
  REQUIRE(std::holds_alternative<tune::host_schedule>(r.record.best));
  const auto best = std::get<tune::host_schedule>(r.record.best);
  CHECK(std::find(tried.begin(), tried.end(), best) != tried.end());
  CHECK(tune::host_valid(child_shape, best));
  REQUIRE(db.find(tuner.device(), child_key) != nullptr);
  CHECK(*db.find(tuner.device(), child_key) == r.record);

  // the best schedule's kernel, compiled alone, equals the interpreter on other inputs
  CHECK(error_under(*child, best, toolchain) <= 1e-5);

  // tuned again from the same parent: the child's own record answers
  const auto again = tuner.tune_from(*child, *parent, db);
  CHECK_FALSE(again.measured);
  CHECK(again.record == r.record);
}

// Times in turns as a stub: the default the fastest in `fixed` with median `median`, the points
// `points` seconds, in the order the tuner gives them.
auto stub_turns(double fixed, double median, std::vector<double> points) {
  return [=](const std::vector<std::function<void()>>& fs, const measure::timing_options&) {
    REQUIRE(fs.size() == points.size() + 1);
    std::vector<measure::timed> t{{fixed, median, 5}};
    for (double p : points) t.push_back({p, p, 5});
    return t;
  };
}

TEST_CASE("host_tuner: by reuse, each round searches the neighbourhood of the best so far until it stands still") {
  const auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  const auto parent = kernel(), child = kernel(8, 32);
  const auto [parent_key, parent_shape] = measure::host_tuner::identify(*parent);
  const auto child_shape = measure::host_tuner::identify(*child).second;
  using point = tune::host_schedule;
  // the start, as the test above: {1 loop, chunk 4, 4 lanes}; under the stub below, fewer lanes
  // are faster, so the best walks down the lanes one round at a time
  const std::vector<std::vector<point>> rounds{
      {{1, 4, 4, 0, 0}, {0, 0, 4, 0, 0}, {1, 1, 4, 0, 0}, {1, 4, 2, 0, 0}, {1, 4, 8, 0, 0}},
      {{0, 0, 2, 0, 0}, {1, 1, 2, 0, 0}, {1, 4, 1, 0, 0}},  // around {1, 4, 2}, less those tried
      {{0, 0, 1, 0, 0}, {1, 1, 1, 0, 0}},                   // around {1, 4, 1}: none faster, the end
  };
  const point fixed{0, 0, 8, 0, 0};
  REQUIRE(tune::host_default(child_shape) == fixed);
  // a point's time: a millisecond a lane, 10 ms more off {1 loop, chunk 4}
  const auto seconds = [](const point& p) {
    return 1e-3 * static_cast<double>(p.lanes) + (p.parallel_loops == 1 && p.chunk == 4 ? 0 : 1e-2);
  };
  const auto tuned = [&](int reuse_rounds) {
    measure::host_tuning_options o;
    o.per_batch = 16;  // a round a batch
    o.reuse_rounds = reuse_rounds;
    std::size_t turn = 0;
    o.turns = [&](const std::vector<std::function<void()>>& fs, const measure::timing_options&) {
      REQUIRE(turn < rounds.size());
      const auto& round = rounds[turn++];
      REQUIRE(fs.size() == round.size() + 1);
      std::vector<measure::timed> t{{seconds(fixed), seconds(fixed), 5}};
      for (auto& p : round) t.push_back({seconds(p), seconds(p), 5});
      return t;
    };
    measure::host_tuner tuner(toolchain, o);
    tune::tuning_database db;
    db.store(tuner.device(), parent_key, {point{1, 16, 8, 0, 0}, 1e-5, 2e-5, 1, ""});
    auto r = tuner.tune_from(*child, *parent, db);
    CHECK(tuner.batches() == turn);
    return r.record;
  };
  const auto one = tuned(1);
  CHECK(one.best == tune::schedule(point{1, 4, 2, 0, 0}));
  CHECK(one.trials == 6);
  const auto climbed = tuned(4);
  CHECK(climbed.best == tune::schedule(point{1, 4, 1, 0, 0}));
  CHECK(climbed.seconds == doctest::Approx(1e-3));
  CHECK(climbed.trials == 11);
  // two rounds reach it too, without the third that finds it stands still
  const auto two = tuned(2);
  CHECK(two.best == tune::schedule(point{1, 4, 1, 0, 0}));
  CHECK(two.trials == 9);
}

TEST_CASE("host_tuner: a point is kept only where it beats the default by more than the noise") {
  const auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  measure::host_tuning_options o;
  o.trials = 3;
  o.per_batch = 3;
  const auto s = kernel(8, 32);
  const auto fixed = tune::host_default(measure::host_tuner::identify(*s).second);

  // the default's runs spread by 10%: a point 8% faster is noise, and the default stays
  o.turns = stub_turns(100e-6, 110e-6, {95e-6, 92e-6});
  const auto noisy = measure::host_tuner(toolchain, o).tune(*s);
  CHECK(noisy.record.margin == doctest::Approx(0.10));
  CHECK(noisy.record.best == tune::schedule(fixed));
  CHECK(noisy.record.seconds == noisy.record.default_seconds);
  CHECK(noisy.record.default_seconds == 100e-6);

  // on a quiet machine the least margin, 2%: 3% faster is kept, 1.5% is not
  o.turns = stub_turns(100e-6, 100e-6, {98.5e-6, 97e-6});
  const auto quiet = measure::host_tuner(toolchain, o).tune(*s);
  CHECK(quiet.record.margin == doctest::Approx(0.02));
  CHECK(quiet.record.best != tune::schedule(fixed));
  CHECK(quiet.record.seconds == 97e-6);
  o.turns = stub_turns(100e-6, 100e-6, {98.5e-6, 99e-6});
  CHECK(measure::host_tuner(toolchain, o).tune(*s).record.best == tune::schedule(fixed));
}

}  // namespace host_tuner_test

namespace host_tuner_test {

TEST_CASE("host_tuner::identify: kernels of one function over other boxes share a body, other functions do not") {
  using namespace ir;
  auto relu_of = [](const char* name, std::int64_t rows, std::int64_t columns) {
    auto x = search_test::input(name, {rows, columns});
    return make_scope({{"i", 0, rows}, {"j", 0, columns}}, {}, make_unary(unary_fn::relu, make_access(x, {idx("i"), idx("j")})));
  };
  auto sum_of = [](std::int64_t rows, std::int64_t columns) {
    auto x = search_test::input("x", {rows, columns}), y = search_test::input("y", {rows, columns});
    return make_scope({{"i", 0, rows}, {"j", 0, columns}}, {},
                      make_access(x, {idx("i"), idx("j")}) + make_access(y, {idx("i"), idx("j")}));
  };
  const auto big = measure::host_tuner::identify(*relu_of("a", 14, 256)).second;
  const auto small = measure::host_tuner::identify(*relu_of("b", 7, 512)).second;
  const auto sum = measure::host_tuner::identify(*sum_of(7, 256)).second;
  CHECK(!big.body.empty());
  CHECK(big.body == small.body);
  CHECK(big.body != sum.body);
  CHECK(big.body.find("256") == std::string::npos);  // no extent, no shape
  CHECK(tune::reusable(sum, big) == false);
  CHECK(measure::host_tuner::identify(*kernel(32, 64)).second.body ==
        measure::host_tuner::identify(*kernel(8, 32)).second.body);
}

}  // namespace host_tuner_test
