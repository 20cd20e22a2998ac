// Prepared plans (ein::prepare) of generated host headers: programs with weight transforms (two
// as written, one searched, and the searched paper cases whose plans have them) equal the
// interpreter over several runs on one preparation, their transforms run in prepare only, the
// prepared weights are a snapshot, and bindings are checked.
#define EIN_STRICT  // every program here must have its generated plan
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "codegen/e2e/paper_programs.hpp"  // before the harness: it declares ein::reify of them
#include "codegen/e2e/hostile_bindings.hpp"
#include "codegen/e2e/prepared_programs.hpp"
#include "codegen/e2e/prepared_harness.hpp"
#include "codegen/e2e/generator_support.hpp"
#include "ein/codegen/header.hpp"
#include "ein/profile.hpp"
#include "ein_generated/hand_elementwise.hpp"
#include "ein_generated/hand_matmul.hpp"
#include "ein_generated/hand_prepared_chain.hpp"
#include "ein_generated/hand_prepared_relayout.hpp"
#include "ein_generated/hand_prepared_searched.hpp"
// The searched paper cases whose headers the codegen test writes (each checked where present).
#if __has_include("ein_generated/hand_paper_conv3x3.hpp")
#include "ein_generated/hand_paper_conv3x3.hpp"
#endif
#if __has_include("ein_generated/hand_paper_conv_transpose.hpp")
#include "ein_generated/hand_paper_conv_transpose.hpp"
#endif
#if __has_include("ein_generated/hand_paper_conv5x5.hpp")
#include "ein_generated/hand_paper_conv5x5.hpp"
#endif
#if __has_include("ein_generated/hand_paper_shared_input.hpp")
#include "ein_generated/hand_paper_shared_input.hpp"
#endif

namespace {


template <int K>
using prepared_plan = ein::runtime::generated_plan<ein_test::hand_program<ein_test::prepared_base + K>>;

// The text of one generated function of `header`: from `head` to the closing brace of the
// plan's member (two-space indentation).
std::string member(const std::string& header, const std::string& head) {
  auto from = header.find(head);
  REQUIRE(from != std::string::npos);
  auto to = header.find("\n  }\n", from);
  REQUIRE(to != std::string::npos);
  return header.substr(from, to - from);
}

// The host header of prepared program K, as the generator wrote it (the as-written ones).
template <int K>
std::string host_header() {
  ein::codegen::options o;
  o.name = std::string("hand_") + ein_test::prepared_names[K];
  o.model_header = "codegen/e2e/prepared_programs.hpp";
  o.object = std::string("ein_test::") + ein_test::prepared_names[K];
  return ein::codegen::emit_header(ein::plan::make_plan(ein::reify(ein_test::hand_program<ein_test::prepared_base + K>{}),
                                                        ein_test::generated_capabilities(ein::codegen::backend::host)),
                                   o);
}

// Random non-zero values, as the interpreter draws them (uniform in [-1, 1)).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  ein::eval::random_stream rng(seed);
  auto d = ein::eval::random_dense({static_cast<std::int64_t>(n)}, rng);
  return {d.data.begin(), d.data.end()};
}

// The searched paper cases whose plan is included and has weight transforms, prepared once and
// run twice on new inputs; returns how many were checked.
template <int... K>
int check_paper_cases(std::integer_sequence<int, K...>) {
  int checked = 0;
  auto one = [&]<int Id>(ein_test::hand_program<Id> object) {
    if constexpr (ein::runtime::has_plan_v<decltype(object)>) {
      using plan = ein::runtime::generated_plan<decltype(object)>;
      if (plan::description.find("[weight transform]") == std::string_view::npos) return;
      MESSAGE(plan::description);
      ein_test::check_prepared_against_interpreter(object, 1, 1e-4, 2);
      ++checked;
    }
  };
  (one(ein_test::hand_program<ein_test::searched_base + K>{}), ...);
  return checked;
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

}  // namespace

TEST_CASE("prepared plans equal the interpreter over several runs on one preparation") {
  for (std::uint64_t seed : {1, 2}) {
    ein_test::check_prepared_against_interpreter(ein_test::prepared_relayout, seed, 1e-6);
    ein_test::check_prepared_against_interpreter(ein_test::prepared_chain, seed, 1e-13);
    ein_test::check_prepared_against_interpreter(ein_test::prepared_searched, seed, 1e-5);
  }
}

TEST_CASE("a captured run of a host plan replays on the buffers bound at the capture, as they are then") {
  for (std::uint64_t seed : {1, 2}) {
    ein_test::check_captured_against_interpreter(ein_test::prepared_relayout, seed, 1e-6);
    ein_test::check_captured_against_interpreter(ein_test::prepared_chain, seed, 1e-13);
    ein_test::check_captured_against_interpreter(ein_test::prepared_searched, seed, 1e-5);
  }
}

TEST_CASE("the filter relayout is a weight transform: prepare runs it, the prepared run does not") {
  using plan = prepared_plan<0>;
  CAPTURE(plan::description);
  CHECK(plan::description.find("  Kt = eOperator L_{f:[0,5), c:[0,4), r:[0,3), s:[0,3)} K[r, s, f, c]  [temporary] "
                               "[weight transform]") != std::string_view::npos);
  // The storage keeps the relaid filter and the bias (read as bound), 256-byte aligned; the
  // filter as bound is read by the transform only, so it is not kept.
  CHECK(plan::prepared_bytes == 256 + 5 * 4 * 3 * 3 * sizeof(float));
  std::string header = host_header<0>();
  std::string prepare = member(header, "static void prepare("), run = member(header, "static void run_prepared(");
  std::string whole = member(header, "static void run(");
  CHECK(prepare.find("::eop_Kt_host(t_K, t_Kt);") != std::string::npos);
  CHECK(prepare.find("eop_y_host") == std::string::npos);
  CHECK(run.find("eop_Kt_host") == std::string::npos);
  CHECK(run.find("t_K ") == std::string::npos);  // the filter as bound is not read
  CHECK(run.find("::eop_y_host(t_A, t_Kt, t_y);") != std::string::npos);
  CHECK(whole.find("::eop_Kt_host(t_K, t_Kt);") != std::string::npos);  // ein::run: every call
}

TEST_CASE("a chain of transforms, a nested weight-only scope and a weight-only output") {
  using plan = prepared_plan<1>;
  CAPTURE(plan::description);
  std::string header = host_header<1>();
  std::string prepare = member(header, "static void prepare("), run = member(header, "static void run_prepared(");
  // t1 (from W and V), t2 (from t1) and the nested 2·V are prepared; t1 is read by t2 only.
  for (auto* step : {"eop_t1_host(", "eop_t2_host(", "eop_out_1_host("}) {
    CAPTURE(step);
    CHECK(prepare.find(step) != std::string::npos);
    CHECK(run.find(step) == std::string::npos);
  }
  CHECK(plan::prepared_bytes == 512 + 8 * sizeof(double));  // t2 (384 bytes), then out.1 at 512
  // wsum reads weights only but is an output, bound at run time: it runs from the storage.
  CHECK(plan::description.find("  wsum = eOperator") != std::string_view::npos);
  CHECK(run.find("::eop_wsum_host(t_t2, t_wsum);") != std::string::npos);
}

TEST_CASE("the searched plan keeps the transposed weight as a weight transform, prepared once") {
  using plan = prepared_plan<2>;
  MESSAGE(plan::description);
  CHECK(plan::description.find("search: optimize_program") != std::string_view::npos);
  CHECK(plan::description.find("[weight transform]") != std::string_view::npos);
  CHECK(plan::prepared_bytes > 0);
  // Its runs read the transposed weight from the storage: the check above (several runs on
  // weights overwritten after prepare) covers its values.
}

TEST_CASE("searched paper cases with weight transforms (e.g. Figure 3(a)'s merged filters), prepared") {
  int checked = check_paper_cases(std::make_integer_sequence<int, ein_test::searched_count>{});
  MESSAGE(checked << " searched paper plans have weight transforms and were checked prepared");
}

TEST_CASE("prepared weights are a snapshot: changing the bound buffers after prepare changes no run") {
  std::vector<float> a = random_floats(2 * 6 * 6 * 4, 1), k = random_floats(3 * 3 * 5 * 4, 2),
                     bias = random_floats(5, 3), first(2 * 6 * 6 * 5), again(first.size()), direct(first.size());
  auto net = ein::prepare(ein_test::prepared_relayout, {{"K", k}, {"bias", bias}});
  net.run({{"A", a}, {"out", first}});
  ein::run(ein_test::prepared_relayout, {{"A", a}, {"K", k}, {"bias", bias}, {"out", direct}});
  CHECK(max_abs_difference(first, direct) == 0.0);
  // New filter values: ein::run sees them; the prepared plan keeps the ones it was given.
  k = random_floats(k.size(), 4);
  bias = random_floats(bias.size(), 5);
  net.run({{"A", a}, {"out", again}});
  CHECK(max_abs_difference(first, again) == 0.0);
  ein::run(ein_test::prepared_relayout, {{"A", a}, {"K", k}, {"bias", bias}, {"out", direct}});
  CHECK(max_abs_difference(first, direct) > 1e-3);
  // Preparing again takes the new values; the first preparation is unchanged.
  auto renewed = ein::prepare(ein_test::prepared_relayout, {{"K", k}, {"bias", bias}});
  renewed.run({{"A", a}, {"out", again}});
  CHECK(max_abs_difference(again, direct) == 0.0);
  net.run({{"A", a}, {"out", again}});
  CHECK(max_abs_difference(first, again) == 0.0);
}

TEST_CASE("a prepared plan owns its storage: movable, not copyable") {
  using prepared = decltype(ein::prepare(ein_test::prepared_relayout, {}));
  static_assert(!std::is_copy_constructible_v<prepared> && !std::is_copy_assignable_v<prepared>);
  static_assert(std::is_nothrow_move_constructible_v<prepared> && std::is_nothrow_move_assignable_v<prepared>);
  static_assert(prepared::storage_bytes() == prepared_plan<0>::prepared_bytes);
  std::vector<float> a = random_floats(2 * 6 * 6 * 4, 6), k = random_floats(180, 7), bias = random_floats(5, 8),
                     out(2 * 6 * 6 * 5), moved_out(out.size());
  auto net = ein::prepare(ein_test::prepared_relayout, {{"K", k}, {"bias", bias}});
  net.run({{"A", a}, {"out", out}});
  prepared moved = std::move(net);
  moved.run({{"A", a}, {"out", moved_out}});
  CHECK(max_abs_difference(out, moved_out) == 0.0);
  CHECK_THROWS_WITH_AS(net.run({{"A", a}, {"out", out}}), "ein::prepared::run: this prepared plan was moved from",
                       ein::user_error);
  net = std::move(moved);  // assigning revives the moved-from object
  net.run({{"A", a}, {"out", out}});
  CHECK(max_abs_difference(out, moved_out) == 0.0);
}

TEST_CASE("a plan without weight transforms is prepared too: the weights are kept as bound") {
  using matmul = ein::runtime::generated_plan<ein_test::hand_program<0>>;
  using elementwise = ein::runtime::generated_plan<ein_test::hand_program<2>>;
  CHECK(matmul::description.find("[weight transform]") == std::string_view::npos);
  CHECK(matmul::prepared_bytes == 6 * 7 * sizeof(float));  // B, a weight
  CHECK(elementwise::prepared_bytes == 0);                 // no weights at all
  std::vector<float> a(30, 1.0f), b(42, 1.0f), c(35);
  auto prepared = ein::prepare(ein_test::matmul, {{"B", b}});
  b.assign(42, 2.0f);
  prepared.run({{"A", a}, {"out", c}});
  CHECK(c[0] == 6.0f);
  std::vector<float> x(36, 0.5f), y(36, -0.25f), z(36);
  auto plain = ein::prepare(ein_test::elementwise, {});
  plain.run({{"A", x}, {"B", y}, {"out", z}});
  std::vector<float> direct(36);
  ein::run(ein_test::elementwise, {{"A", x}, {"B", y}, {"out", direct}});
  CHECK(max_abs_difference(z, direct) == 0.0);
}

// Records what a run tells its observer, as text: "b0 e0 b2 e2".
struct recording_observer final : ein::runtime::step_observer {
  std::string seen;
  void begin(std::size_t step, ein::runtime::stream) override { seen += "b" + std::to_string(step) + " "; }
  void end(std::size_t step, ein::runtime::stream) override { seen += "e" + std::to_string(step) + " "; }
};

TEST_CASE("a prepared run tells its observer where each step begins and ends, prepare()'s steps left out") {
  using relayout = prepared_plan<0>;
  using chain = prepared_plan<1>;
  recording_observer relayout_seen, chain_seen;
  std::vector<float> a = random_floats(2 * 6 * 6 * 4, 11), k = random_floats(180, 12), bias = random_floats(5, 13),
                     out(2 * 6 * 6 * 5), observed(out.size());
  auto net = ein::prepare(ein_test::prepared_relayout, {{"K", k}, {"bias", bias}});
  net.run({{"A", a}, {"out", out}});
  net.run({{"A", a}, {"out", observed}}, nullptr, &relayout_seen);
  CHECK(max_abs_difference(out, observed) == 0.0);
  CAPTURE(relayout::description);
  CHECK(relayout_seen.seen == "b1 e1 b2 e2 ");  // y and out; Kt, the weight transform, is prepare()'s
  ein::ir::program p = ein::reify(ein_test::prepared_chain);
  auto env = ein::eval::random_inputs(p, 14);
  ein_test::host_buffers weights, buffers;
  for (auto& t : p.tensors) (t.role == ein::ir::tensor_role::weight ? weights : buffers).bind_input(t.name, t.type, env.at(t.name));
  for (auto& o : p.outputs) buffers.bind_output(o, p.find_definition(o)->type, ein::eval::evaluate(p, env).at(o).data.size());
  ein::prepare(ein_test::prepared_chain, ein::runtime::bindings(weights.items))
      .run(ein::runtime::bindings(buffers.items), nullptr, &chain_seen);
  CAPTURE(chain::description);
  // wsum reads weights only but is an output: it runs at run time, from the storage.
  CHECK(chain_seen.seen == "b3 e3 b4 e4 ");
}

TEST_CASE("ein::profile times each step a prepared run runs, named by its line of the plan's description") {
  using relayout = prepared_plan<0>;
  std::vector<float> a = random_floats(2 * 6 * 6 * 4, 21), k = random_floats(180, 22), bias = random_floats(5, 23),
                     out(2 * 6 * 6 * 5), direct(out.size());
  auto net = ein::prepare(ein_test::prepared_relayout, {{"K", k}, {"bias", bias}});
  ein::profile_report r = ein::profile(net, {{"A", a}, {"out", out}}, {.warmup = 0, .min_runs = 4, .max_runs = 6, .seconds = 0});
  ein::run(ein_test::prepared_relayout, {{"A", a}, {"K", k}, {"bias", bias}, {"out", direct}});
  CHECK(max_abs_difference(out, direct) == 0.0);  // the profiled runs wrote the output
  CHECK(r.runs == 4);
  CHECK(r.plan == std::string(relayout::description.substr(0, relayout::description.find('\n'))));
  std::string order;
  for (auto& s : r.steps) {
    CAPTURE(s.description);
    order += std::to_string(s.index) + " ";
    CHECK(relayout::description.find("\n  " + s.description + "\n") != std::string_view::npos);
    CHECK(s.fastest_ms >= 0.0);
    CHECK(s.fastest_ms <= s.median_ms);
  }
  CHECK(order == "1 2 ");  // as a run tells its observer
  CHECK(r.run_median_ms > 0.0);
  std::string table = r.table();
  MESSAGE(table);
  CHECK(table.rfind(r.plan + "\n", 0) == 0);
  for (auto& s : r.steps) CHECK(table.find(s.description.substr(0, 40)) != std::string::npos);
  CHECK(table.find("runs not observed") != std::string::npos);
  CHECK_THROWS_WITH_AS(ein::profile(net, {{"A", a}, {"out", out}}, {.min_runs = 0}),
                       "ein::profile: options want 0 <= warmup, 1 <= min_runs <= max_runs and seconds >= 0",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(ein::profile(net, {{"A", a}}), doctest::Contains("ein::profile"), ein::user_error);
}

TEST_CASE("a profile's table cuts long descriptions at a character boundary, shares the steps' sum, shows the slowest") {
  ein::profile_report r;
  r.plan = "plan p";
  r.runs = 3;
  r.run_median_ms = 4.0;
  r.steps = {{0, "a = eOperator L_{i:[0,8)} \u03a3_{j:[0,8)} A[i, j]", 1.0, 0.5},
             {2, "b = library matmul(A=a+0, B=W+0)", 3.0, 2.5}};
  CHECK(r.steps_ms() == 4.0);
  std::string table = r.table({.width = 27});  // byte 27 lies inside the two bytes of the sigma
  MESSAGE(table);
  CHECK(table.find("a = eOperator L_{i:[0,8)} ...") != std::string::npos);
  CHECK(table.find(" 25.0%  a = ") != std::string::npos);
  CHECK(table.find(" 75.0%  b = library matmul(A=a+0, B...\n") != std::string::npos);
  CHECK(table.find("steps: 4.000 ms (sum of the steps' medians over 3 runs); a run: 4.000 ms") != std::string::npos);
  CHECK(table.find("other steps") == std::string::npos);
  // The slowest step alone, then what the others took.
  r.steps.push_back({5, "c = eOperator L_{i:[0,8)} relu(b[i])", 0.5, 0.5});
  std::string slowest = r.table({.rows = 1});
  MESSAGE(slowest);
  CHECK(slowest.find("    2     3.000   66.7%  b = library matmul") != std::string::npos);
  CHECK(slowest.find("a = eOperator") == std::string::npos);
  CHECK(slowest.find("          1.500   33.3%  the 2 other steps\n") != std::string::npos);
}

TEST_CASE("ein::prepare binds weights only, every one; a prepared run binds no weight") {
  std::vector<float> a(2 * 6 * 6 * 4, 0.5f), k(180, 0.25f), bias(5, 1.0f), out(2 * 6 * 6 * 5), short_k(179);
  std::vector<double> k_double(180);
  const auto& net = ein_test::prepared_relayout;
  CHECK_THROWS_WITH_AS(ein::prepare(net, {{"K", k}, {"bias", bias}, {"A", a}}),
                       "ein::prepare: `A` is no weight of the program: ein::prepare binds weights only "
                       "(inputs and outputs are bound when the prepared plan runs)",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(ein::prepare(net, {{"K", k}, {"bias", bias}, {"out", out}}),
                       "ein::prepare: `out` is no weight of the program: ein::prepare binds weights only "
                       "(inputs and outputs are bound when the prepared plan runs)",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(ein::prepare(net, {{"K", k}}), "ein::prepare: tensor `bias`: no buffer is bound to it",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(ein::prepare(net, {{"K", short_k}, {"bias", bias}}),
                       "ein::prepare: tensor `K` has 180 elements but the bound buffer has 179", ein::user_error);
  CHECK_THROWS_WITH_AS(ein::prepare(net, {{"K", k_double}, {"bias", bias}}),
                       "ein::prepare: tensor `K` holds float but a buffer of double is bound to it", ein::user_error);
  CHECK_THROWS_WITH_AS(ein::prepare(net, {{"K", k}, {"bias", bias}, {"Q", bias}}),
                       "ein::prepare: `Q` is bound but is no input, weight or output of the program",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(ein::prepare(net, {{"K", k}, {"K", k}, {"bias", bias}}),
                       "ein::prepare: tensor `K` is bound twice", ein::user_error);
  // Bindings made beforehand are checked alike, naming ein::prepare.
  ein::runtime::bindings made{{"K", k}, {"bias", bias}, {"A", a}};
  CHECK_THROWS_WITH_AS(ein::prepare(net, made),
                       "ein::prepare: `A` is no weight of the program: ein::prepare binds weights only "
                       "(inputs and outputs are bound when the prepared plan runs)",
                       ein::user_error);

  auto prepared = ein::prepare(net, {{"K", k}, {"bias", bias}});
  CHECK_THROWS_WITH_AS(prepared.run({{"A", a}, {"K", k}, {"out", out}}),
                       "ein::run: `K` is a weight of the program, bound once by ein::prepare: a prepared "
                       "plan's run binds inputs and outputs only (prepare again to change weights)",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(prepared.run({{"A", a}}), "ein::run: tensor `out`: no buffer is bound to it",
                       ein::user_error);
  CHECK_THROWS_WITH_AS(prepared.run({{"A", a}, {"out", out}, {"Q", out}}),
                       "ein::run: `Q` is bound but is no input, weight or output of the program", ein::user_error);
  const std::vector<float>& const_out = out;
  CHECK_THROWS_WITH_AS(prepared.run({{"A", a}, {"out", const_out}}),
                       "ein::run: tensor `out` is an output but the bound buffer is const", ein::user_error);
  CHECK_NOTHROW(prepared.run({{"A", a}, {"out", out}}));
}

TEST_CASE("ein::prepare and a prepared run refuse null, misaligned, short and aliased buffers, naming the tensor") {
  auto hostile = [](auto object) {
    auto p = ein::reify(object);
    ein_test::check_hostile_bindings(ein_test::tensors_bound(p, true, false),
                                     [&](const ein::runtime::bindings& b) { ein::prepare(object, b); });
    // a binding keeps its tensor's name by view: the tensors outlive the bindings
    auto weight_tensors = ein_test::tensors_bound(p, true, false);
    std::vector<ein::runtime::binding> weights;
    std::vector<std::vector<double>> storage;
    for (auto& t : weight_tensors) {
      auto& s = storage.emplace_back(t.count, 0.5);
      if (t.type == ein::ir::dtype::f32)
        weights.emplace_back(t.name, std::span<const float>(reinterpret_cast<const float*>(s.data()), t.count));
      else
        weights.emplace_back(t.name, std::span<const double>(s));
    }
    auto prepared = ein::prepare(object, ein::runtime::bindings(weights));
    ein_test::check_hostile_bindings(ein_test::tensors_bound(p, false, true),
                                     [&](const ein::runtime::bindings& b) { prepared.run(b); });
  };
  hostile(ein_test::prepared_relayout);
  hostile(ein_test::prepared_chain);
  hostile(ein_test::prepared_searched);
  hostile(ein_test::matmul);
  hostile(ein_test::elementwise);
}
