// A host or CUDA schedule as JSON, read field by field: a value outside its field's choices is an
// error naming the file and the JSON path, never a schedule handed to the emitters.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <set>
#include <string>
#include <variant>

#include "ein/detail/json_input.hpp"
#include "ein/tune/cuda_schedule.hpp"
#include "ein/tune/host_schedule.hpp"

namespace ein::tune {

/// A point of a kernel's host or CUDA space.
using schedule = std::variant<host_schedule, cuda_schedule>;

/// `{"kind": "host", "parallel_loops": 1, "chunk": 0, "lanes": 8, "block_rows": 0,
/// "block_columns": 0}` or `{"kind": "cuda", "threads": 256, "unroll": 4, "lanes": 4,
/// "tile_rows": 0, "int_index": true}`.
inline nlohmann::json schedule_json(const schedule& s) {
  if (auto* h = std::get_if<host_schedule>(&s))
    return {{"kind", "host"},       {"parallel_loops", h->parallel_loops}, {"chunk", h->chunk},
            {"lanes", h->lanes},    {"block_rows", h->block_rows},         {"block_columns", h->block_columns}};
  auto& c = std::get<cuda_schedule>(s);
  return {{"kind", "cuda"},  {"threads", c.threads},     {"unroll", c.unroll},
          {"lanes", c.lanes}, {"tile_rows", c.tile_rows}, {"int_index", c.int_index}};
}

namespace detail {

// Field `key` of `j` at `path`, an integer among `choices`.
template <class Choices>
std::int64_t choice(const ein::detail::json_input& file, const nlohmann::json& j, const char* key, const std::string& path,
                    const Choices& choices) {
  const std::string at = ein::detail::json_input::at(path, key);
  const std::int64_t v = file.integer(file.field(j, key, path), at, std::int64_t{1} << 40);
  if (std::find(std::begin(choices), std::end(choices), v) == std::end(choices)) {
    std::string list;
    for (auto c : choices) list += (list.empty() ? "" : ", ") + std::to_string(c);
    file.fail(at, "expected one of " + list + ", got " + std::to_string(v));
  }
  return v;
}

// Fails on a field of `j` outside `known`.
inline void only_fields(const ein::detail::json_input& file, const nlohmann::json& j, const std::string& path,
                        const std::set<std::string>& known) {
  for (auto& [key, v] : j.items())
    if (!known.count(key)) file.fail(ein::detail::json_input::at(path, key), "unknown field");
}

}  // namespace detail

/// The schedule `schedule_json` wrote, read from `j` at `path` of `file`. Throws user_error on a
/// missing or unknown field, or a value outside its field's choices (host_choices, cuda_choices;
/// at most 64 shared loops). Whether it is a point of a given kernel's space is host_valid's or
/// cuda_valid's to say.
inline schedule read_schedule(const ein::detail::json_input& file, const nlohmann::json& j, const std::string& path) {
  using ein::detail::json_input;
  file.object(j, path);
  const std::string kind = file.text(file.field(j, "kind", path), json_input::at(path, "kind"));
  if (kind == "host") {
    detail::only_fields(file, j, path, {"kind", "parallel_loops", "chunk", "lanes", "block_rows", "block_columns"});
    host_schedule s;
    const std::string loops_at = json_input::at(path, "parallel_loops");
    const std::int64_t loops = file.integer(file.field(j, "parallel_loops", path), loops_at, 64);
    if (loops < 0) file.fail(loops_at, "expected a count of loops, got " + std::to_string(loops));
    s.parallel_loops = static_cast<std::size_t>(loops);
    s.chunk = detail::choice(file, j, "chunk", path, host_choices::chunks);
    s.lanes = detail::choice(file, j, "lanes", path, host_choices::lanes);
    s.block_rows = detail::choice(file, j, "block_rows", path, host_choices::block_rows);
    s.block_columns = detail::choice(file, j, "block_columns", path, host_choices::block_columns);
    return s;
  }
  if (kind == "cuda") {
    detail::only_fields(file, j, path, {"kind", "threads", "unroll", "lanes", "tile_rows", "int_index"});
    cuda_schedule s;
    s.threads = detail::choice(file, j, "threads", path, cuda_choices::threads);
    s.unroll = detail::choice(file, j, "unroll", path, cuda_choices::unroll);
    s.lanes = detail::choice(file, j, "lanes", path, cuda_choices::lanes);
    s.tile_rows = detail::choice(file, j, "tile_rows", path, cuda_choices::tile_rows);
    s.int_index = file.boolean(file.field(j, "int_index", path), json_input::at(path, "int_index"));
    return s;
  }
  file.fail(json_input::at(path, "kind"), "expected \"host\" or \"cuda\", got \"" + kind + "\"");
}

}  // namespace ein::tune
