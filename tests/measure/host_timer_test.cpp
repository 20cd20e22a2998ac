// The host timer: library calls timed at once, eOperators kept and timed together into the cache
// under their kernel keys, eOperators too large refused once; this machine named as the cache
// keys it; the timing protocol's fastest and median, and the runs another thread disturbed left
// out; the profile file kept for a build tree.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "ein/measure/machine_profile.hpp"
#include "search/rediscover_support.hpp"

namespace host_timer_test {

using namespace ein;
using cost::workload;

// A matched instance of `s` of operator `kind`.
match::instance instance_of(const ir::scope_ptr& s, match::op_kind kind) {
  for (auto& i : match::match(*s))
    if (i.kind == kind) return i;
  FAIL("no instance of " << match::name(kind));
  return {};
}

ir::scope_ptr matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
  using namespace ir;
  return make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}},
                    make_access(search_test::input("A", {m, k}), {idx("i"), idx("k")}) *
                        make_access(search_test::weight("B", {k, n}), {idx("k"), idx("j")}));
}

ir::scope_ptr relu(std::int64_t n, const std::string& name = "X") {
  using namespace ir;
  return make_scope({{"i", 0, n}}, {}, make_unary(unary_fn::relu, make_access(search_test::input(name, {n}), {idx("i")})));
}

measure::host_timer timer(std::int64_t max_bytes = std::int64_t{1} << 30) {
  measure::host_timer_options o;
  o.max_bytes = max_bytes;
  o.timing.runs = 3;
  return measure::host_timer(measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN), o);
}

TEST_CASE("host_timer: this machine as the cache keys it") {
  auto t = timer();
  CHECK(t.device().rfind("host: ", 0) == 0);
  CHECK(t.device().find(" threads") != std::string::npos);
  auto env = t.setup().fields;
  CHECK(env.count("instruction_sets"));
  CHECK(env.at("compiler").find("-O") != std::string::npos);  // the toolchain's flags key eOperators
  CHECK(env.at("libraries").find("OpenBLAS") != std::string::npos);
  CHECK(env.at("libraries").find("oneDNN") != std::string::npos);
}

TEST_CASE("host_timer: CBLAS products and oneDNN convolutions are timed at once") {
  auto t = timer();
  auto gemm = instance_of(matmul(128, 256, 512), match::op_kind::matmul);
  REQUIRE(ein::plan::blas.runs(gemm));
  auto s = t.seconds(workload::library(gemm));
  REQUIRE(s);
  CHECK(*s > 0);
  CHECK(t.runs() >= 1);
  auto conv = instance_of(search_test::conv_nhwc(1, 14, 32, 32, 3, 3, 1, 1, 1, 1), match::op_kind::conv2d);
  REQUIRE(ein::plan::onednn.runs(conv));
  auto c = t.seconds(workload::library(conv));
  REQUIRE(c);
  CHECK(*c > 0);
  CHECK(t.waiting() == 0);
  // a band product is no library call of the host: the fallback prices it
  CHECK(!t.seconds(workload::library(instance_of(search_test::g2bmm(2, 64, 16, 4, 1), match::op_kind::g2bmm))));
}

TEST_CASE("host_timer: a bfloat16 product is timed on oneDNN's matmul, as a plan runs it") {
  using namespace ir;
  auto a = search_test::input("A", {128, 512}), b = search_test::weight("B", {512, 256});
  a.type = b.type = dtype::bf16;
  auto product = instance_of(make_scope({{"i", 0, 128}, {"j", 0, 256}}, {{"k", 0, 512}},
                                        make_access(a, {idx("i"), idx("k")}) * make_access(b, {idx("k"), idx("j")})),
                             match::op_kind::matmul);
  REQUIRE(ein::plan::blas_onednn_bf16.runs(product));
  CHECK_FALSE(ein::plan::blas.runs(product));  // CBLAS has no bfloat16 product
  auto t = timer();
  auto s = t.seconds(workload::library(product));
  REQUIRE(s);
  CHECK(*s > 0);
}

TEST_CASE("host_timer: eOperators are kept, then timed together into the cache under their kernel keys") {
  auto t = timer();
  auto a = relu(1 << 16), b = relu(1 << 12, "Y");
  auto wa = workload::eoperator(0, 0, a.get()), wb = workload::eoperator(0, 0, b.get());
  CHECK(!t.seconds(wa));
  CHECK(!t.seconds(wb));
  CHECK(!t.seconds(wa));  // asked twice, kept once
  CHECK(t.waiting() == 2);
  cost::measurement_cache cache;
  auto stats = t.time_eoperators(cache, 600);
  CHECK(stats.timed == 2);
  CHECK(t.waiting() == 0);
  auto ma = cache.find(t.device(), cost::kernel_key(wa)), mb = cache.find(t.device(), cost::kernel_key(wb));
  REQUIRE(ma);
  REQUIRE(mb);
  CHECK(ma->seconds > 0);
  CHECK(ma->runs >= 1);
  // a measured model then answers from the cache, and the timer is not asked again
  auto fallback = search_test::h100();
  cost::measured m(cache, &t, fallback);
  CHECK(m.seconds(wa) == ma->seconds);
  CHECK(t.waiting() == 0);
  CHECK(t.drop_waiting() == 0);
}

// out[i, j] = A[j, i] + B[i, j] over 64 × 128: a transpose, whose space holds blockings.
ir::scope_ptr transposed_sum() {
  using namespace ir;
  return make_scope({{"i", 0, 64}, {"j", 0, 128}}, {},
                    make_access(search_test::input("A", {128, 64}), {idx("j"), idx("i")}) +
                        make_access(search_test::input("B", {64, 128}), {idx("i"), idx("j")}));
}

TEST_CASE("host_timer: an eOperator the tuning database holds a record of is priced under its schedule") {
  const auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  const auto s = transposed_sum();
  const auto w = workload::eoperator(0, 0, s.get());
  const auto key = cost::kernel_key(w);
  const tune::host_schedule blocked{0, 0, 1, 16, 32};  // the transposed read allows no lanes
  tune::tuning_database db;
  db.store(measure::tuning_device(toolchain), tune::unnamed_key(key), {blocked, 1e-6, 2e-6, 2, ""});
  measure::host_timer_options o;
  o.timing.runs = 3;
  o.tuning = &db;
  measure::host_timer t(toolchain, o);
  REQUIRE(t.tuned(w, key) == blocked);
  const auto tuned_key = key + " | schedule " + tune::schedule_json(blocked).dump();
  CHECK(t.variant(w, key) == " | schedule " + tune::schedule_json(blocked).dump());

  // the default schedule's time, planted: the measured model does not answer with it
  cost::measurement_cache cache;
  cache.expect(t.device(), t.setup());
  cache.store(t.device(), key, {1.0, 1});
  auto fallback = search_test::h100();
  {
    cost::measured m(cache, &t, fallback);
    CHECK(m.seconds(w) != 1.0);  // the fallback's price, while the tuned kernel waits
    CHECK(t.waiting() == 1);
  }
  CHECK(t.time_eoperators(cache, 600).timed == 1);
  const auto timed = cache.find(t.device(), tuned_key);
  REQUIRE(timed);
  CHECK(timed->seconds < 1.0);
  CHECK(cache.find(t.device(), key)->seconds == 1.0);
  cost::measured tuned(cache, &t, fallback);
  CHECK(tuned.seconds(w) == timed->seconds);

  // without the database, or with a record that is no point of the kernel's space, the default's
  measure::host_timer plain(toolchain);
  cost::measured untuned(cache, &plain, fallback);
  CHECK(untuned.seconds(w) == 1.0);
  tune::tuning_database unfit;
  unfit.store(measure::tuning_device(toolchain), tune::unnamed_key(key), {tune::host_schedule{0, 0, 1, 16, 24}, 1e-6, 2e-6, 2, ""});
  o.tuning = &unfit;
  measure::host_timer misfit(toolchain, o);
  CHECK_FALSE(misfit.tuned(w, key));
  cost::measured unfitted(cache, &misfit, fallback);
  CHECK(unfitted.seconds(w) == 1.0);
}

TEST_CASE("host_timer: an eOperator whose operands exceed the limit is refused once and priced by the fallback") {
  auto t = timer(1024);  // bytes
  auto big = relu(1 << 12);
  auto w = workload::eoperator(0, 0, big.get());
  CHECK(!t.seconds(w));
  cost::measurement_cache cache;
  auto stats = t.time_eoperators(cache, 600);
  CHECK(stats.refused == 1);
  CHECK(stats.timed == 0);
  CHECK(!cache.find(t.device(), cost::kernel_key(w)));
  CHECK(!t.seconds(w));
  CHECK(t.waiting() == 0);  // not kept again
  // nor is a product too large for it
  CHECK(!t.seconds(workload::library(instance_of(matmul(128, 256, 512), match::op_kind::matmul))));
}

TEST_CASE("timing: runs during which this process's threads waited for a core are left out") {
  // Twice as many threads as cores spinning: the timed thread waits for a core in every run of a
  // kernel of a few scheduler slices, and no run counts.
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (unsigned k = 0; k < 2 * std::max(1u, std::thread::hardware_concurrency()); ++k)
    spinners.emplace_back([&] {
      while (!stop) std::atomic_signal_fence(std::memory_order_seq_cst);
    });
  measure::timing_options o;
  o.runs = 3;
  o.slow_seconds = 1;  // a fast kernel: up to 12 runs
  auto spin_for = [](double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) std::atomic_signal_fence(std::memory_order_seq_cst);
  };
  const auto crowded = measure::time_runs([&] { spin_for(0.03); }, o);
  stop = true;
  for (auto& s : spinners) s.join();
  CHECK_FALSE(crowded.undisturbed);
  CHECK(crowded.disturbed == 12);
  CHECK(crowded.runs == 12);
  CHECK(crowded.seconds >= 0.03);
}

TEST_CASE("timing: the fastest and the median of the runs, fewer runs for slow kernels, in turns") {
  using namespace std::chrono_literals;
  measure::timing_options o;
  o.runs = 5;
  o.slow_seconds = 0.004;
  o.slow_runs = 2;
  o.very_slow_seconds = 0.1;  // far above the slow kernel's 6 ms, which a loaded machine may stretch
  int calls = 0;
  auto quick = measure::time_runs([&] { ++calls; }, o);
  CHECK(quick.runs == 5);
  CHECK(calls == 6 + quick.disturbed);  // one warm-up, and again for each run left out
  CHECK(quick.seconds <= quick.median);
  auto slow = measure::time_runs([] { std::this_thread::sleep_for(6ms); }, o);
  CHECK(slow.runs == 2);
  CHECK(slow.seconds >= 0.006);
  auto very_slow = measure::time_runs([] { std::this_thread::sleep_for(110ms); }, o);
  CHECK(very_slow.runs == 1);
  std::string order;
  auto turns = measure::time_in_turns({[&] { order += 'a'; }, [&] { order += 'b'; }}, o);
  CHECK(order == "abababababab");  // a warm-up round, then five
  CHECK(turns.size() == 2);
  CHECK(turns[1].runs == 5);
}

TEST_CASE("machine_profile: measured once, read back for the same machine, measured again for another") {
  auto path = (std::filesystem::temp_directory_path() / "ein_machine_profile_test.json").string();
  std::filesystem::remove(path);
  auto toolchain = measure::read_host_toolchain(EIN_TEST_HOST_TOOLCHAIN);
  auto t = timer();
  measure::host_machine here{t.device(), t.setup()};
  auto fallback = cost::load_profile(EIN_PROFILE_DIR "/host.json");
  auto first = measure::machine_profile(path, here, toolchain, fallback, "test");
  CHECK(first.measured);
  CHECK(first.profile.name == here.device);
  CHECK(first.profile.fp32_flops > 0);
  CHECK(first.profile.source.find("measured by ein") != std::string::npos);
  CHECK(first.profile.library.count("conv2d"));
  // the 16-bit peak is oneDNN's bfloat16 matmul's, where oneDNN runs bfloat16 here
  CHECK((first.profile.half_flops > 0) == runtime::onednn_runs_bfloat16());
  auto again = measure::machine_profile(path, here, toolchain, fallback, "test");
  CHECK(!again.measured);
  CHECK(again.profile.fp32_flops == first.profile.fp32_flops);

  // the file's reader: another machine's profile is not this one's; a corrupt file says why
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string why;
  CHECK(measure::detail::read_profile_file(path, text, here, why));
  auto elsewhere = here;
  elsewhere.environment.fields["libraries"] = "OpenBLAS 0.3.0";
  CHECK(!measure::detail::read_profile_file(path, text, elsewhere, why));
  CHECK(why.empty());
  elsewhere = here;
  elsewhere.device = "host: another processor, 2 threads";
  CHECK(!measure::detail::read_profile_file(path, text, elsewhere, why));
  // a profile of format 1 has no 16-bit peak: it is measured again, without a warning
  auto older = text;
  older.replace(older.find("\"format\": 2"), 11, "\"format\": 1");
  why.clear();
  CHECK(!measure::detail::read_profile_file(path, older, here, why));
  CHECK(why.empty());
  for (auto& [bad, field] : std::vector<std::pair<std::string, std::string>>{
           {"{", "not valid JSON"},
           {"{\"format\": 3}", "at /format"},
           {text.substr(0, text.find("\"profile\"")) + "\"profile\": {\"name\": \"x\"}}", "missing field `source`"},
           {text.substr(0, text.size() - 2) + ", \"extra\": 1}", "at /extra: unknown field"}}) {
    CAPTURE(bad);
    why.clear();
    CHECK(!measure::detail::read_profile_file(path, bad, here, why));
    CHECK(why.find(field) != std::string::npos);
  }
  // a path that is no regular file is refused before anything is written there
  CHECK_THROWS_WITH_AS(measure::machine_profile(std::filesystem::temp_directory_path().string(), here, toolchain,
                                                fallback, "test"),
                       doctest::Contains("is not a regular file"), user_error);
  std::filesystem::remove(path);
}

}  // namespace host_timer_test
