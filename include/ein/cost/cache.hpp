// The measured cost model's cache: kernel times by device and kernel key, with the environment
// they were taken under, kept in a JSON file that parallel builds share.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if __has_include(<sys/file.h>) && __has_include(<fcntl.h>) && __has_include(<unistd.h>)
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#define EIN_COST_FILE_LOCK 1
#endif

#include "ein/error.hpp"
#include "ein/detail/file_text.hpp"
#include "ein/detail/json_input.hpp"
#include "ein/version.hpp"

namespace ein::cost {

/// One cached kernel time: the median of `runs` timed runs. `disturbed`: another process held
/// the machine's cores during every run, so the time is only an upper bound (measure::timed).
struct measurement {
  double seconds = 0;
  int runs = 0;
  bool disturbed = false;
  friend bool operator==(const measurement&, const measurement&) = default;
};

/// What besides the device and the kernel can change a measured time, as named text fields: for
/// a GPU its compute capability and the versions of the CUDA driver, runtime, cuBLAS and cuDNN
/// (cost::gpu_environment), for the host the processor's instruction sets, the thread count, the
/// libraries' versions and the compiler that builds eOperators (measure::host_machine). An empty
/// value is unknown (or, for cuDNN, not used).
struct environment {
  std::map<std::string, std::string> fields;
  friend bool operator==(const environment&, const environment&) = default;

  /// `compute_capability 9.0, cublas 12.4.5, cudnn 90100, driver 12040, runtime 12040`, in the
  /// fields' order (`?` for an empty value); `none` without fields.
  std::string str() const {
    std::string r;
    for (auto& [name, value] : fields) r += (r.empty() ? "" : ", ") + name + " " + (value.empty() ? "?" : value);
    return r.empty() ? "none" : r;
  }
};

namespace detail {

// An exclusive advisory lock on a file beside the cache (`<cache>.lock`), held by one process at
// a time, and by one holder within a process (each lock opens the file anew): generators running
// in parallel (make -j) time kernels one at a time on the shared device, and replace the cache
// file one at a time. A no-op where flock is missing.
class file_lock {
 public:
  explicit file_lock(const std::string& path) {
#if defined(EIN_COST_FILE_LOCK)
    if (path.empty()) return;
    fd_ = ::open((path + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) ::close(fd_), fd_ = -1;
#else
    (void)path;
#endif
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock() {
#if defined(EIN_COST_FILE_LOCK)
    if (fd_ >= 0) ::flock(fd_, LOCK_UN), ::close(fd_);
#endif
  }

 private:
  int fd_ = -1;
};

// A file name beside `path` that no other writer uses at the same time.
inline std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned long> next{0};
#if defined(EIN_COST_FILE_LOCK)
  auto process = static_cast<long long>(::getpid());
#else
  auto process = static_cast<long long>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
  return path + ".tmp." + std::to_string(process) + "." + std::to_string(next++);
}

}  // namespace detail

/// Kernel times by device name and kernel key, kept in a JSON file (format 5):
/// `{"format": 5, "ein": "0.1.0", "devices": {"<device>": {"environment": {"compute_capability":
/// "9.0", "driver": "12040", "runtime": "12040", "cublas": "120400", "cudnn": "90100"},
/// "kernels": {"<key>": {"seconds": 1.2e-05, "runs": 20}}}}}`, a disturbed measurement with
/// `"disturbed": true`. A disturbed measurement that an earlier process took is not settled: the
/// next process that can time it times it again (settled()).
/// A measurement is used only on the device, environment and ein version it was taken with: a
/// file written by another ein version (or format), or one that is not a valid cache, is ignored
/// with a warning naming the file and the field, and rewritten by save(); a device's entries
/// taken under another environment are dropped with a warning by expect(). Thread-safe. The file
/// is written sorted (the same entries give the same bytes).
class measurement_cache {
 public:
  /// Receives the warnings of a cache (an ignored file, dropped entries).
  using warning_fn = std::function<void(const std::string&)>;

  /// The version of the file's layout, and of what its times are of, that this ein writes: 5
  /// since a measurement says whether it was disturbed; 4 (host eOperators without a sum at 1
  /// lane by default, a key without a schedule being the default's, whose time format 3 took at
  /// 8 lanes) is read too, its measurements undisturbed.
  static constexpr int format = 5;
  static constexpr int oldest_read = 4;

  /// The longest kernel time a cache holds, in seconds (times must be positive).
  static constexpr double max_seconds = 1e6;

  /// An empty cache kept in memory only (save() is then an error).
  measurement_cache() = default;
  /// The cache of file `path`: empty when the file does not exist, and, with a warning to
  /// `warn` (default: `ein: warning: ...` on stderr), when it cannot be used. Throws user_error
  /// when the file exists but cannot be opened.
  explicit measurement_cache(std::string path, warning_fn warn = {})
      : path_(std::move(path)), warn_(warn ? std::move(warn) : warning_fn(print_warning)) {
    std::string why;
    entries_ = read(path_, why);
    if (!why.empty()) warn_(why + "; it is ignored and will be rewritten");
  }

  const std::string& path() const { return path_; }

  /// Measurements of `device` are to be taken under `env`: entries of the device taken under
  /// another environment are dropped (with a warning), and the device's entries are from now
  /// on recorded as taken under `env`.
  void expect(const std::string& device, const environment& env) {
    std::unique_lock lock(mutex_);
    auto& d = entries_[device];
    if (d.env != env && !d.kernels.empty()) {
      warn_("cost cache `" + path_ + "`: the " + std::to_string(d.kernels.size()) + " measurements of " + device +
            " were taken under " + d.env.str() + ", not under this machine's " + env.str() +
            "; they are ignored and will be rewritten");
      d.kernels.clear();
    }
    d.env = env;
  }
  /// The environment the measurements of `device` were taken under (empty when unknown).
  environment environment_of(const std::string& device) const {
    std::shared_lock lock(mutex_);
    auto d = entries_.find(device);
    return d == entries_.end() ? environment{} : d->second.env;
  }

  std::optional<measurement> find(const std::string& device, const std::string& key) const {
    std::shared_lock lock(mutex_);
    auto d = entries_.find(device);
    if (d == entries_.end()) return std::nullopt;
    auto k = d->second.kernels.find(key);
    if (k == d->second.kernels.end()) return std::nullopt;
    return k->second;
  }
  /// The measurement of `key` on `device` where it may be used as it is: an undisturbed one, or
  /// a disturbed one that this cache object stored (timing it again now would be disturbed
  /// alike); nothing for a disturbed one read from the file, which a timer should take again.
  std::optional<measurement> settled(const std::string& device, const std::string& key) const {
    auto m = find(device, key);
    if (!m || !m->disturbed) return m;
    std::shared_lock lock(mutex_);
    return stored_here_.count({device, key}) ? m : std::nullopt;
  }
  /// Keeps `m` for `key` on `device`: in place of what is there, except that of two disturbed
  /// measurements the faster stays (each is an upper bound) and a disturbed one never replaces
  /// an undisturbed one.
  void store(const std::string& device, const std::string& key, measurement m) {
    std::unique_lock lock(mutex_);
    stored_here_.insert({device, key});
    keep(entries_[device].kernels[key], m);
  }
  /// Kernels cached for `device`.
  std::size_t size(const std::string& device) const {
    std::shared_lock lock(mutex_);
    auto d = entries_.find(device);
    return d == entries_.end() ? 0 : d->second.kernels.size();
  }
  /// The devices with at least one kernel, sorted.
  std::vector<std::string> devices() const {
    std::shared_lock lock(mutex_);
    std::vector<std::string> r;
    for (auto& [d, e] : entries_)
      if (!e.kernels.empty()) r.push_back(d);
    return r;
  }
  /// The file's text for the cache as it is: sorted keys, two-space indent, a final newline.
  std::string dump() const {
    std::shared_lock lock(mutex_);
    return text(entries_);
  }
  /// Writes the cache to its file. Entries another process wrote there since it was read (a
  /// parallel build generating several plans) are kept, ours win on equal keys as store() says
  /// and a device's entries from another environment give way to ours; the file is replaced in one rename,
  /// one writer at a time, so a reader never sees half of it and no writer's entries are lost.
  void save() const {
    if (path_.empty()) throw internal_error("measurement_cache::save: the cache has no file");
    std::unique_lock lock(mutex_);
    detail::file_lock one_writer(path_);
    std::string ignored;
    auto merged = read(path_, ignored);
    for (auto& [device, ours] : entries_) {
      auto& theirs = merged[device];
      if (theirs.env != ours.env) theirs = {ours.env, {}};
      for (auto& [key, m] : ours.kernels) keep(theirs.kernels[key], m);
    }
    ein::detail::replace_file(path_, detail::temporary_name(path_), text(merged), "cost cache `" + path_ + "`");
  }

  /// Writes `ein: warning: <what>` to stderr.
  static void print_warning(const std::string& what) { std::fprintf(stderr, "ein: warning: %s\n", what.c_str()); }

 private:
  struct device_entries {
    environment env;
    std::map<std::string, measurement> kernels;
  };
  using table = std::map<std::string, device_entries>;

  // `kept` (runs 0: none yet) replaced by `m` as store() says.
  static void keep(measurement& kept, const measurement& m) {
    if (m.disturbed && kept.runs > 0 && (!kept.disturbed || kept.seconds <= m.seconds)) return;
    kept = m;
  }

  static std::string text(const table& t) {
    nlohmann::json devices = nlohmann::json::object();
    for (auto& [device, e] : t) {
      if (e.kernels.empty()) continue;
      nlohmann::json env = nlohmann::json::object(), kernels = nlohmann::json::object();
      for (auto& [name, value] : e.env.fields) env[name] = value;
      for (auto& [key, m] : e.kernels) {
        kernels[key] = {{"runs", m.runs}, {"seconds", m.seconds}};
        if (m.disturbed) kernels[key]["disturbed"] = true;
      }
      devices[device] = {{"environment", std::move(env)}, {"kernels", std::move(kernels)}};
    }
    nlohmann::json j = {{"devices", devices}, {"ein", ein::version}, {"format", format}};
    return j.dump(2) + "\n";
  }

  // The entries of file `path`, or none with `why` saying why they cannot be used (`why` stays
  // empty for a missing file). Throws user_error where the file exists but cannot be opened.
  static table read(const std::string& path, std::string& why) {
    const std::string what = "cost cache `" + path + "`";
    auto content = ein::detail::read_file_text(path, what);
    if (!content) return {};
    ein::detail::json_input file(what);
    try {
      return entries(file, file.parse(*content));
    } catch (const user_error& e) {
      why = e.what();
      return {};
    }
  }

  static table entries(const ein::detail::json_input& file, const nlohmann::json& j) {
    using ein::detail::json_input;
    file.object(j, "");
    auto written = file.field(j, "format", "");
    if (!written.is_number_integer() || written.get<std::int64_t>() < oldest_read || written.get<std::int64_t>() > format)
      file.fail("/format", "a cache of format " + written.dump() + ", not " + std::to_string(format) +
                               ", which this ein writes (nor " + std::to_string(oldest_read) + ", which it reads)");
    auto written_by = file.text(file.field(j, "ein", ""), "/ein");
    if (written_by != ein::version)
      file.fail("/ein", "written by ein " + written_by + ", and this is ein " + ein::version);
    for (auto& [key, v] : j.items())
      if (key != "format" && key != "ein" && key != "devices") file.fail(json_input::at("", key), "unknown field");
    table t;
    for (auto& [device, d] : file.object(file.field(j, "devices", ""), "/devices").items()) {
      auto dp = json_input::at("/devices", device);
      if (device.empty()) file.fail(dp, "a device needs a name");
      auto& entry = t[device];
      for (auto& [key, v] : file.object(d, dp).items())
        if (key != "environment" && key != "kernels") file.fail(json_input::at(dp, key), "unknown field");
      auto ep = json_input::at(dp, "environment");
      auto& env = file.object(file.field(d, "environment", dp), ep);
      for (auto& [key, v] : env.items()) {
        if (key.empty()) file.fail(json_input::at(ep, key), "an environment field needs a name");
        entry.env.fields[key] = file.text(v, json_input::at(ep, key));
      }
      auto kp = json_input::at(dp, "kernels");
      for (auto& [key, m] : file.object(file.field(d, "kernels", dp), kp).items()) {
        auto mp = json_input::at(kp, key);
        if (key.empty()) file.fail(mp, "a kernel needs a key");
        for (auto& [field, v] : file.object(m, mp).items())
          if (field != "seconds" && field != "runs" && (field != "disturbed" || written != format))
            file.fail(json_input::at(mp, field), "unknown field");
        double seconds = file.number(file.field(m, "seconds", mp), json_input::at(mp, "seconds"), 0, max_seconds);
        auto runs = file.integer(file.field(m, "runs", mp), json_input::at(mp, "runs"), 1'000'000);
        if (runs < 1) file.fail(json_input::at(mp, "runs"), "a measurement needs one run at least");
        const bool disturbed = m.contains("disturbed") && file.boolean(m["disturbed"], json_input::at(mp, "disturbed"));
        entry.kernels[key] = {seconds, static_cast<int>(runs), disturbed};
      }
    }
    return t;
  }

  mutable std::shared_mutex mutex_;
  std::string path_;
  warning_fn warn_ = print_warning;
  table entries_;
  std::set<std::pair<std::string, std::string>> stored_here_;  // (device, key) stored by this object
};

}  // namespace ein::cost
