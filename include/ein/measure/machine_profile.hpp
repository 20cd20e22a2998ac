// The host's profile kept for a build tree: measured once (measure::probe_host_profile), read
// back while the machine is the same.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "ein/cost/cache.hpp"
#include "ein/detail/file_text.hpp"
#include "ein/detail/json_input.hpp"
#include "ein/measure/host_probe.hpp"
#include "ein/version.hpp"

namespace ein::measure {

/// A profile and whether it was measured now or read from the file.
struct machine_profile_result {
  cost::device_profile profile;
  bool measured = false;
};

namespace detail {

// The layout of the profile file this ein writes. 2: the 16-bit peak (`half_tflops`) is measured
// where oneDNN runs bfloat16; a file of format 1 lacks it, so it is measured again.
inline constexpr int profile_format = 2;

// The profile file's text for `machine` and `profile`: `{"device": ..., "ein": ..., "environment":
// {...}, "format": 2, "profile": {...}}`, sorted.
inline std::string profile_file_text(const host_machine& machine, const nlohmann::json& profile) {
  nlohmann::json env = nlohmann::json::object();
  for (auto& [k, v] : machine.environment.fields) env[k] = v;
  nlohmann::json j = {{"device", machine.device}, {"ein", ein::version}, {"environment", env},
                      {"format", profile_format}, {"profile", profile}};
  return j.dump(2) + "\n";
}

// The profile in `text` when it was measured on `machine` by this ein; else nothing, and `why`
// says why not (empty where it is simply another machine's, or an older ein's).
inline std::optional<cost::device_profile> read_profile_file(const std::string& path, const std::string& text,
                                                            const host_machine& machine, std::string& why) {
  ein::detail::json_input file("host profile `" + path + "`");
  try {
    auto j = file.parse(text);
    file.object(j, "");
    for (auto& [key, v] : j.items())
      if (key != "device" && key != "ein" && key != "environment" && key != "format" && key != "profile")
        file.fail(ein::detail::json_input::at("", key), "unknown field");
    const auto& format = file.field(j, "format", "");
    if (format.is_number_integer() && format.get<std::int64_t>() >= 1 && format.get<std::int64_t>() < profile_format)
      return std::nullopt;
    if (format != profile_format)
      file.fail("/format", "not format " + std::to_string(profile_format) + ", which this ein reads");
    if (file.text(file.field(j, "ein", ""), "/ein") != ein::version) return std::nullopt;
    cost::environment env;
    for (auto& [key, v] : file.object(file.field(j, "environment", ""), "/environment").items())
      env.fields[key] = file.text(v, ein::detail::json_input::at("/environment", key));
    if (file.text(file.field(j, "device", ""), "/device") != machine.device || env != machine.environment)
      return std::nullopt;
    return cost::read_profile(file.field(j, "profile", ""), path);
  } catch (const user_error& e) {
    why = e.what();
    return std::nullopt;
  }
}

}  // namespace detail

/// This machine's profile: the one file `path` holds where it was measured on `machine` (same
/// device name and environment) by this ein version, else measured now (probe_host_profile, with
/// `toolchain` and `fallback`) and written to `path` for the next generation. A file that cannot
/// be read is replaced, with a warning naming it and the field.
inline machine_profile_result machine_profile(const std::string& path, const host_machine& machine,
                                              const std::optional<host_toolchain>& toolchain,
                                              const cost::device_profile& fallback, const std::string& what) {
  if (std::filesystem::exists(path) && !std::filesystem::is_regular_file(path))
    throw user_error("host profile `" + path + "` is not a regular file (a folder or a device): name a JSON file");
  cost::detail::file_lock one_at_a_time(path);  // parallel generations measure once
  if (std::filesystem::exists(path)) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string why;
    if (auto p = detail::read_profile_file(path, text, machine, why)) return {*p, false};
    if (!why.empty()) cost::measurement_cache::print_warning(why + "; it is measured again");
  }
  auto json = probe_host_profile(machine, toolchain, fallback, what);
  auto profile = cost::read_profile(json, path);
  ein::detail::replace_file(path, cost::detail::temporary_name(path), detail::profile_file_text(machine, json),
                            "host profile `" + path + "`");
  return {profile, true};
}

}  // namespace ein::measure
