// The measured model without a GPU: kernel keys, the JSON cache, timing once per kernel through a
// fake timer, the fallback, disturbed times taken again, concurrent callers, and a search that
// follows the measured prices.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include <sys/wait.h>
#include <unistd.h>

#include "ein/cost/measured.hpp"
#include "ein/cost/roofline.hpp"
#include "ein/ir/verify.hpp"
#include "ein/derive/all.hpp"
#include "ein/match/match.hpp"
#include "ein/search/optimize.hpp"
#include "ein/version.hpp"
#include "search/rediscover_support.hpp"

namespace measured_test {

using namespace ein;
using namespace ein::ir;
using cost::workload;

namespace {

const cost::roofline& h100() { return search_test::h100(); }

tensor f32(std::string name, std::vector<std::int64_t> shape) {
  return {std::move(name), dtype::f32, std::move(shape), tensor_role::input};
}

// C[i, j] = Σ_k A[i, k] · B[k, j] (or B[j, k] with `transposed`), named as given.
scope_ptr matmul(std::int64_t m, std::int64_t n, std::int64_t k, bool transposed = false,
                 const std::string& a = "A", const std::string& b = "B") {
  auto B = transposed ? make_access(f32(b, {n, k}), {idx("j"), idx("k")})
                      : make_access(f32(b, {k, n}), {idx("k"), idx("j")});
  return make_scope({{"i", 0, m}, {"j", 0, n}}, {{"k", 0, k}}, make_access(f32(a, {m, k}), {idx("i"), idx("k")}) * B);
}

match::instance gemm_of(const scope_ptr& s) {
  for (auto& i : match::match(*s))
    if (i.kind == match::op_kind::matmul) return i;
  FAIL("no matmul instance");
  return {};
}

std::string library_key(const scope_ptr& s) {
  auto i = gemm_of(s);
  return cost::kernel_key(workload::library(i));
}

std::string eop_key(const scope_ptr& s) { return cost::kernel_key(workload::eoperator(1, 1, s.get())); }

std::string temp_path(const std::string& stem) {
  auto p = std::filesystem::temp_directory_path() /
           (stem + "_" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + ".json");
  std::filesystem::remove(p);
  return p.string();
}

// Prices every kernel by a rule, counts calls per key and checks that no two calls overlap.
class fake_timer final : public cost::timer {
 public:
  using rule = std::function<std::optional<double>(const workload&)>;
  explicit fake_timer(rule r) : rule_(std::move(r)) {}
  std::optional<double> seconds(const workload& w) override {
    if (inside_.exchange(true)) overlapped_ = true;
    std::this_thread::yield();
    auto t = rule_(w);
    {
      std::lock_guard lock(mutex_);
      ++calls_[cost::kernel_key(w)];
    }
    inside_ = false;
    return t;
  }
  std::string device() const override { return "Fake GPU"; }
  int runs() const override { return 7; }
  cost::environment setup() const override { return setup_; }
  void set_setup(cost::environment e) { setup_ = std::move(e); }
  bool last_disturbed() const override { return disturbed_; }
  void set_disturbed(bool d) { disturbed_ = d; }

  std::map<std::string, int> calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  int total() const {
    int n = 0;
    for (auto& [k, c] : calls()) n += c;
    return n;
  }
  bool overlapped() const { return overlapped_; }

 private:
  rule rule_;
  cost::environment setup_;
  bool disturbed_ = false;
  mutable std::mutex mutex_;
  std::map<std::string, int> calls_;
  std::atomic<bool> inside_{false}, overlapped_{false};
};

}  // namespace

TEST_CASE("measured: kernel keys name shapes and attributes, not tensor or iterator names") {
  CHECK(library_key(matmul(64, 128, 256)) == library_key(matmul(64, 128, 256)));
  CHECK(library_key(matmul(64, 128, 256)) == library_key(matmul(64, 128, 256, false, "X", "W")));
  CHECK(library_key(matmul(64, 128, 256)) != library_key(matmul(64, 128, 512)));
  CHECK(library_key(matmul(64, 128, 256)) != library_key(matmul(128, 64, 256)));
  CHECK(library_key(matmul(64, 128, 256)) != library_key(matmul(64, 128, 256, true)));
  auto key = library_key(matmul(49, 4608, 512));
  MESSAGE(key);
  CHECK(key.rfind("library matmul float batch=1 m=49 n=4608 k=512 ", 0) == 0);
  CHECK(key.find("A:float:25088@0") != std::string::npos);

  // eOperators: canonical text, so renamed iterators agree and ranges tell apart
  auto relu_of = [](const std::string& it, std::int64_t n) {
    return make_scope({{it, 0, n}}, {}, make_unary(unary_fn::relu, make_access(f32("X", {n}), {idx(it)})));
  };
  CHECK(eop_key(relu_of("i", 64)) == eop_key(relu_of("q", 64)));
  CHECK(eop_key(relu_of("i", 64)) != eop_key(relu_of("i", 65)));
  CHECK(eop_key(relu_of("i", 64)).rfind("eoperator ", 0) == 0);
  // a nested scope is read as the temporary it becomes: its shape counts, its expression not
  auto inner = [](unary_fn fn) {
    return make_scope({{"x", -1, 9}}, {}, make_unary(fn, make_access(f32("X", {10}), {idx("x") + 1})));
  };
  auto reader = [](const scope_ptr& in) { return make_scope({{"i", 0, 8}}, {}, make_access(in, {idx("i")})); };
  CHECK(eop_key(reader(inner(unary_fn::relu))) == eop_key(reader(inner(unary_fn::tanh))));
  CHECK(eop_key(reader(inner(unary_fn::relu))).find("nested1:float[10]") != std::string::npos);
  auto flat = cost::flat_eoperator(*reader(inner(unary_fn::relu)));
  CHECK(to_string(*flat).find("nested1[i + 1]") != std::string::npos);

  CHECK(cost::kernel_key(workload::eoperator(1e6, 1e6)).empty());
  CHECK(cost::kernel_key(workload{workload::engine::library, match::op_kind::matmul, 1e9, 1e6}).empty());
}

TEST_CASE("measured: an eOperator reading another kernel's result runs alone with that result as its input") {
  // an OffsetReduce after its Matmul: the product is a definition of the plan, which the timer's
  // one-kernel program is given (verify refuses a listed definition)
  tensor product{"product", dtype::f32, {3, 9}, tensor_role::definition};
  auto offset_reduce = make_scope({{"i", 0, 7}}, {{"r", 0, 3}}, make_access(product, {idx("r"), idx("i") + idx("r")}));
  auto alone = cost::eoperator_program(*offset_reduce);
  CHECK_NOTHROW(ir::verify(alone));
  REQUIRE(alone.tensors.size() == 1);
  CHECK(alone.tensors[0].role == tensor_role::input);
  CHECK(alone.definitions.at(0).value->traversal.size() == 1);
}

TEST_CASE("measured: the cache file round-trips, deterministically, and merges what others saved") {
  auto path = temp_path("ein_cost_cache_roundtrip");
  cost::environment b_setup{{{{"compute_capability", "8.0"}, {"driver", "12040"}, {"runtime", "12040"}, {"cublas", "12.4.5"}, {"cudnn", ""}}}};
  {
    cost::measurement_cache c(path);  // a missing file is an empty cache
    CHECK(c.devices().empty());
    c.expect("GPU B", b_setup);
    c.store("GPU B", "library matmul k2", {2e-5, 10});
    c.store("GPU A", "eoperator z", {3.5e-6, 10});
    c.store("GPU A", "eoperator a/b~c", {1e-3, 5});
    c.save();
  }
  std::vector<std::string> warnings;
  auto collect = [&](const std::string& w) { warnings.push_back(w); };
  cost::measurement_cache back(path, collect);
  CHECK(warnings.empty());
  CHECK(back.devices() == std::vector<std::string>{"GPU A", "GPU B"});
  CHECK(back.size("GPU A") == 2);
  CHECK(back.find("GPU A", "eoperator z") == cost::measurement{3.5e-6, 10});
  CHECK(back.find("GPU B", "library matmul k2") == cost::measurement{2e-5, 10});
  CHECK(back.environment_of("GPU B") == b_setup);
  CHECK(!back.find("GPU B", "eoperator z"));
  // the same entries stored in another order give the same bytes
  cost::measurement_cache other;
  other.store("GPU A", "eoperator a/b~c", {1e-3, 5});
  other.expect("GPU B", b_setup);
  other.store("GPU B", "library matmul k2", {2e-5, 10});
  other.store("GPU A", "eoperator z", {3.5e-6, 10});
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == other.dump());
  CHECK(text.find("\"format\": 5") != std::string::npos);
  CHECK(text.find("disturbed") == std::string::npos);  // written only where true
  CHECK(text.find(std::string("\"ein\": \"") + ein::version + "\"") != std::string::npos);
  // saving merges what another process wrote to the file meanwhile
  cost::measurement_cache mine(path), theirs(path);
  theirs.store("GPU C", "k", {1, 1});
  theirs.save();
  mine.store("GPU A", "k", {2, 1});
  mine.save();
  cost::measurement_cache merged(path);
  CHECK(merged.find("GPU C", "k"));
  CHECK(merged.find("GPU A", "k"));
  std::filesystem::remove(path);
}

TEST_CASE("measured: a cache of another setup, ein version or format, or a corrupt one, is ignored and rewritten") {
  auto path = temp_path("ein_cost_cache_ignored");
  cost::environment here{{{{"compute_capability", "9.0"}, {"driver", "12040"}, {"runtime", "12040"}, {"cublas", "12.4.5"}, {"cudnn", "90100"}}}};
  auto write_valid = [&] {
    std::filesystem::remove(path);
    cost::measurement_cache c(path);
    c.expect("GPU", here);
    c.store("GPU", "k", {1e-5, 3});
    c.save();
  };
  std::vector<std::string> warnings;
  auto collect = [&](const std::string& w) { warnings.push_back(w); };

  // another driver: the device's entries are dropped, with a warning naming both setups
  write_valid();
  {
    cost::measurement_cache c(path, collect);
    REQUIRE(c.find("GPU", "k"));
    auto newer = here;
    newer.fields["driver"] = "12080";
    c.expect("GPU", newer);
    CHECK(!c.find("GPU", "k"));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find(path) != std::string::npos);
    CHECK(warnings[0].find("driver 12040") != std::string::npos);
    CHECK(warnings[0].find("driver 12080") != std::string::npos);
    // saving rewrites the device under the new setup: the old entry is gone from the file
    c.store("GPU", "k2", {2e-5, 3});
    c.save();
    cost::measurement_cache again(path);
    CHECK(!again.find("GPU", "k"));
    CHECK(again.find("GPU", "k2"));
    CHECK(again.environment_of("GPU") == newer);
  }
  // the same setup: nothing dropped
  warnings.clear();
  write_valid();
  {
    cost::measurement_cache c(path, collect);
    c.expect("GPU", here);
    CHECK(c.find("GPU", "k"));
    CHECK(warnings.empty());
  }
  // whole files that cannot be used: ignored with a warning naming the file and the field, and
  // replaced by the next save
  std::string current = std::string("\"ein\": \"") + ein::version + "\"";
  struct bad_file {
    std::string text, field;
  };
  std::vector<bad_file> bad = {
      {"{not json", "at byte"},
      {"[1, 2]", "at /: expected an object"},
      {"{\"format\": 2, \"devices\": {}}", "at /format: a cache of format 2, not 5, which this ein writes (nor 4"},
      {"{\"format\": 3, \"devices\": {}}", "at /format: a cache of format 3, not 5"},  // 8-lane default times
      {"{\"format\": 6, \"devices\": {}}", "at /format: a cache of format 6, not 5"},
      {"{\"format\": \"5\", \"devices\": {}}", "at /format: a cache of format \"5\""},
      {"{\"format\": 5, " + current + ", \"devices\": {\"G\": {\"environment\": {}, \"kernels\": {\"k\": "
       "{\"seconds\": 1, \"runs\": 1, \"disturbed\": 1}}}}}",
       "at /devices/G/kernels/k/disturbed: expected true or false"},
      // format 4 knew of no disturbed measurement
      {"{\"format\": 4, " + current + ", \"devices\": {\"G\": {\"environment\": {}, \"kernels\": {\"k\": "
       "{\"seconds\": 1, \"runs\": 1, \"disturbed\": true}}}}}",
       "at /devices/G/kernels/k/disturbed: unknown field"},
      {"{\"format\": 4, \"ein\": \"0.0.1\", \"devices\": {}}", "at /ein: written by ein 0.0.1"},
      {"{\"format\": 4, " + current + ", \"devices\": {\"G\": {\"kernels\": {}}}}",
       "at /devices/G: missing field `environment`"},
      {"{\"format\": 4, " + current + ", \"devices\": {\"G\": {\"environment\": {\"cpu\": 1}, \"kernels\": {}}}}",
       "at /devices/G/environment/cpu"},
      {"{\"format\": 4, " + current + ", \"devices\": {\"G\": {\"environment\": {\"compute_capability\": \"\", "
       "\"cublas\": \"\", \"cudnn\": \"\", \"driver\": \"\", \"runtime\": \"\"}, \"kernels\": {\"a/k\": "
       "{\"seconds\": -1, \"runs\": 1}}}}}",
       "at /devices/G/kernels/a~1k/seconds"},
      {"{\"format\": 4, " + current + ", \"devices\": {}, \"extra\": 1}", "at /extra: unknown field"},
      {"{\"format\": 4, " + current + ", \"devices\": {}", "at byte"},
      {"{\"format\": 4, " + current + ", \"devices\": {\"G\": 1e999}}", "not valid JSON"},
  };
  for (auto& [text, field] : bad) {
    CAPTURE(text);
    std::ofstream(path, std::ios::trunc) << text;
    warnings.clear();
    cost::measurement_cache c(path, collect);
    CHECK(c.devices().empty());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("cost cache `" + path + "`") != std::string::npos);
    CHECK(warnings[0].find(field) != std::string::npos);
    CHECK(warnings[0].find("ignored and will be rewritten") != std::string::npos);
    c.store("G", "k", {1e-6, 1});
    c.save();
    warnings.clear();
    cost::measurement_cache rewritten(path, collect);
    CHECK(warnings.empty());
    CHECK(rewritten.find("G", "k") == cost::measurement{1e-6, 1});
  }
  std::filesystem::remove(path);
}

TEST_CASE("measured: writers saving one cache at once leave a valid file with every entry") {
  auto path = temp_path("ein_cost_cache_hammered");
  constexpr int writers = 4, rounds = 25;
  auto hammer = [&](int w) {
    for (int r = 0; r < rounds; ++r) {
      cost::measurement_cache c(path);
      c.store("GPU", "writer " + std::to_string(w) + " round " + std::to_string(r), {1e-6 * (r + 1), 1});
      c.save();
    }
  };
  // threads of one process (each save opens the lock anew, so they exclude each other too) ...
  {
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) threads.emplace_back(hammer, w);
    for (auto& t : threads) t.join();
  }
  // ... and processes
  std::vector<pid_t> children;
  for (int w = writers; w < 2 * writers; ++w) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      try {
        hammer(w);
      } catch (...) {
        _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (auto pid : children) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  std::vector<std::string> warnings;
  cost::measurement_cache c(path, [&](const std::string& w) { warnings.push_back(w); });
  CHECK(warnings.empty());
  CHECK(c.size("GPU") == std::size_t(2 * writers * rounds));
  for (auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    CHECK(entry.path().string().rfind(path + ".tmp", 0) != 0);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".lock");
}

TEST_CASE("measured: each kernel is timed once, then cached; the fallback prices the rest") {
  auto path = temp_path("ein_cost_cache_timed");
  auto mm = matmul(64, 128, 256);
  auto gemm = gemm_of(mm);
  auto relu = make_scope({{"i", 0, 64}}, {}, make_unary(unary_fn::relu, make_access(f32("X", {64}), {idx("i")})));
  auto lib = workload::library(gemm);
  auto eop = workload::eoperator(64, 512, relu.get());
  {
    cost::measurement_cache cache(path);
    fake_timer t([](const workload& w) -> std::optional<double> {
      return w.kind == workload::engine::library ? 1e-3 : 2e-6;
    });
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == 1e-3);
    CHECK(m.seconds(lib) == 1e-3);
    CHECK(m.seconds(eop) == 2e-6);
    CHECK(m.seconds(eop) == 2e-6);
    CHECK(t.total() == 2);
    // a workload naming no kernel is priced by the roofline model
    auto bare = workload::eoperator(1e6, 1e6);
    CHECK(m.seconds(bare) == h100().seconds(bare));
    auto c = m.counts();
    CHECK(c.timed == 2);
    CHECK(c.cached == 0);
    CHECK(c.fallback == 1);
    CHECK(cache.find("Fake GPU", cost::kernel_key(lib)) == cost::measurement{1e-3, 7});
    MESSAGE(m.describe());
    CHECK(m.describe().rfind("measured (Fake GPU, cache " + path + ": 0 cached, 2 timed, 1 priced by roofline (", 0) == 0);
    cache.save();
  }
  {
    // a second run reads the file and times nothing
    cost::measurement_cache cache(path);
    fake_timer t([](const workload&) -> std::optional<double> { return 1.0; });
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == 1e-3);
    CHECK(m.seconds(eop) == 2e-6);
    CHECK(t.total() == 0);
    CHECK(m.counts().cached == 2);
  }
  {
    // no timer: cached kernels keep their times, the others get the fallback's price
    cost::measurement_cache cache(path);
    cost::measured m(cache, nullptr, h100(), "Fake GPU");
    CHECK(m.seconds(lib) == 1e-3);
    auto small = gemm_of(matmul(32, 32, 32));
    auto other = workload::library(small);
    CHECK(m.seconds(other) == h100().seconds(other));
    CHECK(m.counts().fallback == 1);
    // another device's measurements are not used
    cost::measured elsewhere(cache, nullptr, h100(), "Other GPU");
    CHECK(elsewhere.seconds(lib) == h100().seconds(lib));
  }
  {
    // a kernel the timer cannot run is asked once and priced by the fallback from then on
    cost::measurement_cache cache;
    fake_timer t([](const workload& w) -> std::optional<double> {
      if (w.kind == workload::engine::library) return std::nullopt;
      return 5e-6;
    });
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == h100().seconds(lib));
    CHECK(m.seconds(lib) == h100().seconds(lib));
    CHECK(t.calls()[cost::kernel_key(lib)] == 1);
    CHECK(m.counts().fallback == 1);
  }
  std::filesystem::remove(path);
}

TEST_CASE("measured: a time the cache could not hold is no measurement: the fallback prices the kernel") {
  auto gemm = gemm_of(matmul(64, 128, 256));
  auto lib = workload::library(gemm);
  for (double bad : {0.0, -1e-3, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 2e6}) {
    CAPTURE(bad);
    cost::measurement_cache cache;
    fake_timer t([&](const workload&) -> std::optional<double> { return bad; });
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == h100().seconds(lib));
    CHECK(!cache.find("Fake GPU", cost::kernel_key(lib)));
    CHECK(m.counts().fallback == 1);
  }
}

TEST_CASE("measured: a timer on another setup times again what the cache holds") {
  auto path = temp_path("ein_cost_cache_setup");
  auto gemm = gemm_of(matmul(64, 128, 256));
  auto lib = workload::library(gemm);
  cost::environment old_driver{{{{"compute_capability", "9.0"}, {"driver", "12040"}, {"runtime", "12040"}, {"cublas", "12.4.5"}, {"cudnn", ""}}}}, new_driver = old_driver;
  new_driver.fields["driver"] = "12080";
  for (auto& [then, now, timed] : {std::tuple{old_driver, old_driver, 0}, std::tuple{old_driver, new_driver, 1}}) {
    {
      cost::measurement_cache cache(path);
      fake_timer t([](const workload&) -> std::optional<double> { return 1e-3; });
      t.set_setup(then);
      cost::measured m(cache, &t, h100());
      CHECK(m.seconds(lib) == 1e-3);
      cache.save();
    }
    std::vector<std::string> warnings;
    cost::measurement_cache cache(path, [&](const std::string& w) { warnings.push_back(w); });
    fake_timer t([](const workload&) -> std::optional<double> { return 2e-3; });
    t.set_setup(now);
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == (timed ? 2e-3 : 1e-3));
    CHECK(t.total() == timed);
    CHECK(warnings.size() == std::size_t(timed));
    std::filesystem::remove(path);
  }
}

TEST_CASE("measured: a time another process disturbed is timed again by the next process that can, once") {
  auto path = temp_path("ein_cost_cache_disturbed");
  auto gemm = gemm_of(matmul(64, 128, 256));
  auto lib = workload::library(gemm);  // points to gemm
  const std::string key = cost::kernel_key(lib);
  {
    // taken while others held the cores: kept, flagged, and not taken again by this process
    cost::measurement_cache cache(path);
    fake_timer t([](const workload&) -> std::optional<double> { return 5e-3; });
    t.set_disturbed(true);
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == 5e-3);
    CHECK(cost::measured(cache, &t, h100()).seconds(lib) == 5e-3);  // a later round of this process
    CHECK(t.total() == 1);
    CHECK(cache.find("Fake GPU", key) == cost::measurement{5e-3, 7, true});
    CHECK(cache.settled("Fake GPU", key) == cost::measurement{5e-3, 7, true});
    cache.save();
  }
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"disturbed\": true") != std::string::npos);
  {
    // the next process times it again; alone, it takes the undisturbed time
    cost::measurement_cache cache(path);
    CHECK(!cache.settled("Fake GPU", key));
    cost::measured without_timer(cache, nullptr, h100(), "Fake GPU");
    CHECK(without_timer.seconds(lib) == 5e-3);  // nothing to time it with: the bound it has
    fake_timer t([](const workload&) -> std::optional<double> { return 1e-3; });
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == 1e-3);
    CHECK(t.total() == 1);
    CHECK(m.counts().timed == 1);
    CHECK(cache.find("Fake GPU", key) == cost::measurement{1e-3, 7, false});
    cache.save();
  }
  {
    cost::measurement_cache cache(path);
    fake_timer t([](const workload&) -> std::optional<double> { return 9.0; });
    cost::measured m(cache, &t, h100());
    CHECK(m.seconds(lib) == 1e-3);
    CHECK(t.total() == 0);
  }
  std::filesystem::remove(path);
}

TEST_CASE("measured: of two disturbed times the faster stays, and a disturbed time never replaces an undisturbed one") {
  cost::measurement_cache cache;
  cache.store("G", "k", {3e-3, 5, true});
  cache.store("G", "k", {2e-3, 5, true});
  CHECK(cache.find("G", "k") == cost::measurement{2e-3, 5, true});
  cache.store("G", "k", {4e-3, 5, true});
  CHECK(cache.find("G", "k") == cost::measurement{2e-3, 5, true});
  cache.store("G", "k", {6e-3, 5, false});  // undisturbed: replaces any
  CHECK(cache.find("G", "k") == cost::measurement{6e-3, 5, false});
  cache.store("G", "k", {1e-3, 5, true});
  CHECK(cache.find("G", "k") == cost::measurement{6e-3, 5, false});
  cache.store("G", "k", {5e-3, 5, false});
  CHECK(cache.find("G", "k") == cost::measurement{5e-3, 5, false});
  // and so when saving merges what another process saved meanwhile
  auto path = temp_path("ein_cost_cache_merge_disturbed");
  cost::measurement_cache mine(path), theirs(path);
  theirs.store("G", "k", {2e-3, 5, false});
  theirs.save();
  mine.store("G", "k", {1e-3, 5, true});
  mine.save();
  CHECK(cost::measurement_cache(path).find("G", "k") == cost::measurement{2e-3, 5, false});
  std::filesystem::remove(path);
}

TEST_CASE("measured: a cache of format 4 is read, its measurements undisturbed") {
  auto path = temp_path("ein_cost_cache_format4");
  std::ofstream(path) << "{\"format\": 4, \"ein\": \"" << ein::version
                      << "\", \"devices\": {\"G\": {\"environment\": {}, \"kernels\": {\"k\": {\"seconds\": 0.5, "
                         "\"runs\": 3}}}}}";
  std::vector<std::string> warnings;
  cost::measurement_cache cache(path, [&](const std::string& w) { warnings.push_back(w); });
  CHECK(warnings.empty());
  CHECK(cache.settled("G", "k") == cost::measurement{0.5, 3, false});
  cache.save();
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"format\": 5") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("measured: concurrent callers time each kernel once, one at a time") {
  cost::measurement_cache cache;
  fake_timer t([](const workload& w) -> std::optional<double> { return w.flops * 1e-12; });
  cost::measured m(cache, &t, h100());
  std::vector<scope_ptr> scopes;
  for (std::int64_t n = 1; n <= 24; ++n) scopes.push_back(matmul(8 * n, 16, 32));
  std::vector<match::instance> gemms;
  for (auto& s : scopes) gemms.push_back(gemm_of(s));
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&, k] {
      for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < scopes.size(); ++i) {
          std::size_t j = (i + static_cast<std::size_t>(k) * 5) % scopes.size();
          auto f = match::eoperator_cost(*scopes[j]);
          if (m.seconds(workload::eoperator(f.flops, f.bytes, scopes[j].get())) != f.flops * 1e-12) ++wrong;
          if (m.seconds(workload::library(gemms[j])) != gemms[j].flops * 1e-12) ++wrong;
        }
    });
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
  CHECK(!t.overlapped());
  CHECK(t.total() == 48);
  for (auto& [key, calls] : t.calls()) CHECK(calls == 1);
  CHECK(m.counts().timed == 48);
}

TEST_CASE("measured: the search follows the measured prices") {
  auto src = search_test::conv(5, 8, 8, 3, 1);
  auto under_roofline = search::optimize(src, derive::intra_rules(), h100());
  auto roofline_shape = under_roofline.best.shape();
  MESSAGE("roofline: " << roofline_shape << "\n" << under_roofline.best.str());

  // Timed at the roofline's own prices: the same plan.
  cost::measurement_cache same_cache;
  fake_timer same([](const workload& w) -> std::optional<double> { return h100().seconds(w); });
  cost::measured same_model(same_cache, &same, h100());
  auto mirrored = search::optimize(src, derive::intra_rules(), same_model);
  CHECK(mirrored.best.shape() == roofline_shape);
  CHECK(same.total() > 0);

  // Timed on a device where every library kernel of the roofline's plan is a thousand times
  // slower: the search picks another plan, whose kernels it priced as measured.
  std::set<match::op_kind> slow;
  for (auto& k : under_roofline.best.kernels)
    if (k.library() && !k.weight_only) slow.insert(k.op->kind);
  REQUIRE(!slow.empty());
  cost::measurement_cache cache;
  fake_timer t([&](const workload& w) -> std::optional<double> {
    double s = h100().seconds(w);
    return w.kind == workload::engine::library && slow.count(w.op) ? 1000 * s : s;
  });
  cost::measured m(cache, &t, h100());
  auto r = search::optimize(src, derive::intra_rules(), m);
  MESSAGE("measured: " << r.best.shape() << "\n" << r.best.str() << m.describe());
  CHECK(r.best.shape() != roofline_shape);
  for (auto& k : r.best.kernels)
    if (k.library() && !k.weight_only) CHECK(!slow.count(k.op->kind));
  CHECK(search_test::plan_equals_source(r.best, src));
  CHECK(m.counts().timed == t.calls().size());
  for (auto& [key, calls] : t.calls()) CHECK(calls == 1);
}

}  // namespace measured_test
