// Reading a JSON input field by field: every error names the input and the JSON path of the field.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "ein/error.hpp"

namespace ein::detail {

/// The checks shared by ein's readers of files (IR, device profiles, the cost cache): each
/// throws ein::user_error `<input>: at <JSON path>: <what>`, where `<input>` names the reader
/// and the file, e.g. `device profile `h100.json`: at /library_tile/1: expected an integer`.
class json_input {
 public:
  using json = nlohmann::json;

  /// `input` opens every message: what is read and from where (`ein IR JSON: plan.json`).
  explicit json_input(std::string input) : input_(std::move(input)) {}

  const std::string& input() const { return input_; }

  /// Parses `text`; a syntax error, or a number beyond double's range, is a user_error naming
  /// the input and the byte offset.
  json parse(std::string_view text) const {
    try {
      return json::parse(text);
    } catch (const json::parse_error& e) {
      throw user_error(input_ + " is not valid JSON (at byte " + std::to_string(e.byte) + ")");
    } catch (const json::exception& e) {
      throw user_error(input_ + " is not valid JSON: " + e.what());
    }
  }

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw user_error(input_ + ": at " + (path.empty() ? std::string("/") : path) + ": " + what);
  }

  /// Field `key` of object `j` at `path`.
  const json& field(const json& j, const char* key, const std::string& path) const {
    if (!j.is_object()) fail(path, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) fail(path, std::string("missing field `") + key + "`");
    return *it;
  }
  /// Field `key` of object `j` at `path`, or null where it is absent.
  const json* optional_field(const json& j, const char* key, const std::string& path) const {
    if (!j.is_object()) fail(path, "expected an object");
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  }
  /// An integer of magnitude at most `limit`.
  std::int64_t integer(const json& j, const std::string& path, std::int64_t limit) const {
    if (!j.is_number_integer() ||
        (j.is_number_unsigned() &&
         j.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())))
      fail(path, "expected a 64-bit integer, got " + j.dump());
    auto v = j.get<std::int64_t>();
    if (v > limit || v < -limit)
      fail(path, "the integer " + std::to_string(v) + " is out of range (at most " +
                     std::to_string(limit) + " in magnitude)");
    return v;
  }
  /// A finite number in (lo, hi], or in [lo, hi] where `closed`.
  double number(const json& j, const std::string& path, double lo, double hi,
                bool closed = false) const {
    auto range = [&] {
      return (closed ? "[" : "(") + number_text(lo) + ", " + number_text(hi) + "]";
    };
    if (!j.is_number()) fail(path, "expected a number in " + range() + ", got " + j.dump());
    double v = j.get<double>();
    if (!std::isfinite(v) || v > hi || v < lo || (!closed && v == lo))
      fail(path, "expected a number in " + range() + ", got " + j.dump());
    return v;
  }
  std::string text(const json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string, got " + j.dump());
    return j.get<std::string>();
  }
  bool boolean(const json& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, "expected true or false, got " + j.dump());
    return j.get<bool>();
  }
  const json& array(const json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "expected an array");
    return j;
  }
  const json& object(const json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, "expected an object");
    return j;
  }

  /// The path of field `key` (escaped as JSON pointers escape `~` and `/`), or of element `i`,
  /// under `path`.
  static std::string at(const std::string& path, std::string_view key) {
    std::string r = path + "/";
    for (char ch : key) r += ch == '~' ? std::string("~0") : ch == '/' ? std::string("~1") : std::string(1, ch);
    return r;
  }
  static std::string at(const std::string& path, std::size_t i) {
    return path + "/" + std::to_string(i);
  }

 private:
  static std::string number_text(double v) { return json(v).dump(); }

  std::string input_;
};

}  // namespace ein::detail
