// The tuning database: the best schedule found for each kernel on each device, kept in a JSON
// file, so that a rebuild tunes nothing again.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ein/error.hpp"
#include "ein/detail/file_text.hpp"
#include "ein/detail/json_input.hpp"
#include "ein/tune/kernel_key.hpp"
#include "ein/tune/kernel_shape.hpp"
#include "ein/tune/schedule_json.hpp"

namespace ein::tune {

/// The device a kernel was tuned on: its name (`host: AMD EPYC 9R14, 2 threads`, `NVIDIA H100
/// 80GB HBM3`) and what else can change a kernel's time, as named text fields (instruction sets,
/// compiler and flags, driver and CUDA versions, ein's version: whatever the tuner names).
struct device_key {
  std::string name;
  std::map<std::string, std::string> environment;
  friend bool operator==(const device_key&, const device_key&) = default;
};

/// What tuning one kernel on one device found.
struct tuning_record {
  schedule best;
  double seconds = 0;          // best's time: the fastest of its timed runs
  double default_seconds = 0;  // the default point's time, timed in the same turns
  std::int64_t trials = 0;     // schedules timed
  std::string reused_from;     // the kernel whose best schedule the search started from; empty: from scratch
  double margin = 0;           // a point was kept where its time times 1 + margin beat the default's (0: not said)
  /// The kernel as the tuner saw it, so that a later tuning may start from this record (ETO's
  /// reuse across builds); none in a record written before records kept it.
  std::optional<kernel_shape> shape;
  friend bool operator==(const tuning_record&, const tuning_record&) = default;
};

/// Tuning records by device and kernel key (unnamed_key: the kernel's canonical form up to its
/// tensors' names), kept in a JSON file (format 2), like TVM MetaSchedule's database or
/// TensorRT's timing cache: `{"format": 2, "devices": {"<device>": {"environment": {"compiler":
/// "g++ 12.2 -O3"}, "kernels": {"<key>": {"schedule": {"kind": "host", ...}, "seconds": 2.1e-05,
/// "default_seconds": 3.4e-05, "trials": 40, "reused_from": "", "margin": 0.02, "kernel": {"body":
/// "...", "traversal": [64, 64], "summation": [64], "widest_lanes": 16, "staged_y": null,
/// "int_indices": true}}}}}}` (a record without `margin` reads as 0, one without `kernel` has no
/// shape). A file of format 1, keyed by the canonical form with its tensors' names, is read with
/// its keys made unnamed (of records that then share a key, the faster stays) and saved as format 2.
/// A record is used only on the device and environment it was taken on: find() answers nothing
/// else, expect() warns when the file's records are of other devices or environments, and
/// store() replaces a device's records from another environment. A file that is not a valid
/// database is an error naming the file and the JSON path: it holds hours of measurements, so
/// it is neither trusted nor silently rewritten. One tuner at a time; the file is written
/// sorted (the same records give the same bytes) and replaced in one rename.
class tuning_database {
 public:
  using warning_fn = std::function<void(const std::string&)>;

  /// The version of the file's layout this ein reads and writes.
  static constexpr int format = 2;
  /// The longest kernel time a record holds, in seconds.
  static constexpr double max_seconds = 1e6;
  /// The largest margin a record holds (a default whose median run took a thousand times its fastest).
  static constexpr double max_margin = 1e3;

  /// An empty database in memory only (save() is then an error).
  tuning_database() = default;
  /// The database of file `path`: empty when the file does not exist. Throws user_error when
  /// it exists but cannot be read or is not a valid database. Warnings go to `warn` (default:
  /// `ein: warning: ...` on stderr).
  explicit tuning_database(std::string path, warning_fn warn = {})
      : path_(std::move(path)), warn_(warn ? std::move(warn) : warning_fn(print_warning)) {
    devices_ = read(path_);
  }

  const std::string& path() const { return path_; }

  /// Says, with a warning, when this database holds records that `device` will not use: the
  /// records of its name taken under another environment, or only other devices' records.
  void expect(const device_key& device) const {
    auto d = devices_.find(device.name);
    if (d != devices_.end() && d->second.environment != device.environment && !d->second.kernels.empty())
      warn_("tuning database `" + path_ + "`: its " + std::to_string(d->second.kernels.size()) + " records of " +
            device.name + " were taken under " + text(d->second.environment) + ", not under " +
            text(device.environment) + "; they are not used, and tuning here replaces them");
    else if (d == devices_.end() && !devices_.empty())
      warn_("tuning database `" + path_ + "` holds no records of " + device.name + ", only of " + names() +
            "; they are not used here");
  }

  /// The record of `kernel` on `device`, or null (another device, another environment, none).
  const tuning_record* find(const device_key& device, const std::string& kernel) const {
    auto d = devices_.find(device.name);
    if (d == devices_.end() || d->second.environment != device.environment) return nullptr;
    auto k = d->second.kernels.find(kernel);
    return k == d->second.kernels.end() ? nullptr : &k->second;
  }

  /// Records `r` for `kernel` on `device`; the device's records from another environment go.
  void store(const device_key& device, const std::string& kernel, tuning_record r) {
    if (device.name.empty() || kernel.empty()) throw internal_error("tuning_database::store: a record needs a device and a kernel");
    auto& d = devices_[device.name];
    if (d.environment != device.environment) d = {device.environment, {}};
    d.kernels[kernel] = std::move(r);
  }

  /// Records of `device` (of its environment).
  std::size_t size(const device_key& device) const {
    auto d = devices_.find(device.name);
    return d == devices_.end() || d->second.environment != device.environment ? 0 : d->second.kernels.size();
  }

  /// The devices this database holds records of, with the environments they were taken under,
  /// by name. What a build without the device reads its records through (a cuda plan generated
  /// where no GPU is).
  std::vector<device_key> devices() const {
    std::vector<device_key> r;
    for (auto& [name, d] : devices_)
      if (!d.kernels.empty()) r.push_back({name, d.environment});
    return r;
  }

  /// The records of `device` (of its environment) by kernel key.
  std::map<std::string, tuning_record> records(const device_key& device) const {
    auto d = devices_.find(device.name);
    if (d == devices_.end() || d->second.environment != device.environment) return {};
    return d->second.kernels;
  }

  /// The file's text: sorted keys, two-space indent, a final newline.
  std::string dump() const {
    nlohmann::json devices = nlohmann::json::object();
    for (auto& [name, d] : devices_) {
      if (d.kernels.empty()) continue;
      nlohmann::json kernels = nlohmann::json::object();
      for (auto& [key, r] : d.kernels) {
        kernels[key] = {{"schedule", schedule_json(r.best)}, {"seconds", r.seconds}, {"default_seconds", r.default_seconds},
                        {"trials", r.trials},                {"reused_from", r.reused_from},
                        {"margin", r.margin}};
        if (r.shape) kernels[key]["kernel"] = shape_json(*r.shape);
      }
      devices[name] = {{"environment", d.environment}, {"kernels", std::move(kernels)}};
    }
    return nlohmann::json{{"devices", std::move(devices)}, {"format", format}}.dump(2) + "\n";
  }

  /// Writes the database to its file, through a file beside it renamed over it, so that a
  /// reader never sees half of it.
  void save() const {
    if (path_.empty()) throw internal_error("tuning_database::save: the database has no file");
    ein::detail::replace_file(path_, path_ + ".tmp", dump(), "tuning database `" + path_ + "`");
  }

  /// Writes `ein: warning: <what>` to stderr.
  static void print_warning(const std::string& what) { std::fprintf(stderr, "ein: warning: %s\n", what.c_str()); }

 private:
  struct device_records {
    std::map<std::string, std::string> environment;
    std::map<std::string, tuning_record> kernels;
  };
  using table = std::map<std::string, device_records>;

  static std::string text(const std::map<std::string, std::string>& environment) {
    std::string r;
    for (auto& [name, value] : environment) r += (r.empty() ? "" : ", ") + name + " " + (value.empty() ? "?" : value);
    return r.empty() ? "no environment" : r;
  }
  std::string names() const {
    std::string r;
    for (auto& [name, d] : devices_) r += (r.empty() ? "" : ", ") + name;
    return r;
  }

  static table read(const std::string& path) {
    const std::string what = "tuning database `" + path + "`";
    auto content = ein::detail::read_file_text(path, what);
    if (!content) return {};
    ein::detail::json_input file(what);
    return records(file, file.parse(*content));
  }

  static table records(const ein::detail::json_input& file, const nlohmann::json& j) {
    using ein::detail::json_input;
    file.object(j, "");
    detail::only_fields(file, j, "", {"format", "devices"});
    const auto& written = file.field(j, "format", "");
    const bool named = written == 1;  // format 1: keys name the kernel's tensors
    if (written != format && !named)
      file.fail("/format", "a database of format " + written.dump() + ", not " + std::to_string(format) +
                               ", which this ein reads");
    table t;
    for (auto& [name, d] : file.object(file.field(j, "devices", ""), "/devices").items()) {
      const auto dp = json_input::at("/devices", name);
      if (name.empty()) file.fail(dp, "a device needs a name");
      detail::only_fields(file, d, dp, {"environment", "kernels"});
      auto& entry = t[name];
      const auto ep = json_input::at(dp, "environment");
      for (auto& [field, v] : file.object(file.field(d, "environment", dp), ep).items())
        entry.environment[field] = file.text(v, json_input::at(ep, field));
      const auto kp = json_input::at(dp, "kernels");
      for (auto& [key, r] : file.object(file.field(d, "kernels", dp), kp).items()) {
        const auto rp = json_input::at(kp, key);
        if (key.empty()) file.fail(rp, "a record needs a kernel key");
        auto read = record(file, r, rp);
        if (!named) {
          entry.kernels[key] = std::move(read);
          continue;
        }
        read.reused_from = unnamed_key(read.reused_from);
        auto [kept, added] = entry.kernels.try_emplace(unnamed_key(key), read);
        if (!added && read.seconds < kept->second.seconds) kept->second = std::move(read);
      }
    }
    return t;
  }

  static tuning_record record(const ein::detail::json_input& file, const nlohmann::json& r, const std::string& path) {
    using ein::detail::json_input;
    detail::only_fields(file, r, path,
                        {"schedule", "seconds", "default_seconds", "trials", "reused_from", "margin", "kernel"});
    tuning_record out;
    out.best = read_schedule(file, file.field(r, "schedule", path), json_input::at(path, "schedule"));
    out.seconds = file.number(file.field(r, "seconds", path), json_input::at(path, "seconds"), 0, max_seconds);
    out.default_seconds =
        file.number(file.field(r, "default_seconds", path), json_input::at(path, "default_seconds"), 0, max_seconds);
    const auto tp = json_input::at(path, "trials");
    out.trials = file.integer(file.field(r, "trials", path), tp, 1'000'000'000);
    if (out.trials < 1) file.fail(tp, "a record needs one trial at least");
    out.reused_from = file.text(file.field(r, "reused_from", path), json_input::at(path, "reused_from"));
    if (const auto* m = file.optional_field(r, "margin", path))
      out.margin = file.number(*m, json_input::at(path, "margin"), 0, max_margin, true);
    if (const auto* k = file.optional_field(r, "kernel", path)) out.shape = read_shape(file, *k, json_input::at(path, "kernel"));
    return out;
  }

  static nlohmann::json shape_json(const kernel_shape& k) {
    return {{"body", k.body},
            {"traversal", k.traversal},
            {"summation", k.summation},
            {"widest_lanes", k.widest_lanes},
            {"staged_y", k.staged_y ? nlohmann::json(*k.staged_y) : nlohmann::json(nullptr)},
            {"int_indices", k.int_indices}};
  }

  // The extents of array `j` at `path`: each at least 0.
  static std::vector<std::int64_t> extents(const ein::detail::json_input& file, const nlohmann::json& j,
                                           const std::string& path) {
    std::vector<std::int64_t> r;
    for (std::size_t i = 0; i < file.array(j, path).size(); ++i) {
      const auto at = ein::detail::json_input::at(path, i);
      r.push_back(file.integer(j[i], at, std::int64_t(1) << 62));
      if (r.back() < 0) file.fail(at, "expected an extent, got " + std::to_string(r.back()));
    }
    return r;
  }

  static kernel_shape read_shape(const ein::detail::json_input& file, const nlohmann::json& k, const std::string& path) {
    using ein::detail::json_input;
    file.object(k, path);
    detail::only_fields(file, k, path, {"body", "traversal", "summation", "widest_lanes", "staged_y", "int_indices"});
    kernel_shape out;
    out.body = file.text(file.field(k, "body", path), json_input::at(path, "body"));
    out.traversal = extents(file, file.field(k, "traversal", path), json_input::at(path, "traversal"));
    out.summation = extents(file, file.field(k, "summation", path), json_input::at(path, "summation"));
    const auto lp = json_input::at(path, "widest_lanes");
    out.widest_lanes = file.integer(file.field(k, "widest_lanes", path), lp, 16);
    if (out.widest_lanes < 1 || (out.widest_lanes & (out.widest_lanes - 1)) != 0)
      file.fail(lp, "expected a power of two up to 16, got " + std::to_string(out.widest_lanes));
    const auto& staged = file.field(k, "staged_y", path);
    if (!staged.is_null()) {
      const auto sp = json_input::at(path, "staged_y");
      const auto y = file.integer(staged, sp, 64);
      if (y < 0 || static_cast<std::size_t>(y) >= out.traversal.size())
        file.fail(sp, "expected a traversal position or null, got " + std::to_string(y));
      out.staged_y = static_cast<std::size_t>(y);
    }
    out.int_indices = file.boolean(file.field(k, "int_indices", path), json_input::at(path, "int_indices"));
    return out;
  }

  std::string path_;
  warning_fn warn_ = print_warning;
  table devices_;
};

}  // namespace ein::tune
