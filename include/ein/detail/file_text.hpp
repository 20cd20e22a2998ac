// The text of a file that ein rewrites whole (a cost cache, a tuning database, a host profile):
// read, and replaced in one rename, so that a reader never sees half of it.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>

#include "ein/error.hpp"

namespace ein::detail {

/// The text of file `path`, or nothing where `path` is empty or names no file. Throws a
/// user_error naming `what` (e.g. "tuning database `db.json`") where `path` is not a regular
/// file (replace_file's rename would replace a folder or a device too) or cannot be opened.
inline std::optional<std::string> read_file_text(const std::string& path, const std::string& what) {
  if (path.empty() || !std::filesystem::exists(path)) return std::nullopt;
  if (!std::filesystem::is_regular_file(path))
    throw user_error(what + " is not a regular file (a folder or a device): name a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw user_error(what + ": cannot open the file");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Writes `text` to `tmp` (a file beside `path`) and renames it over `path`. On failure `tmp`
/// is removed and a user_error names `what` and the cause.
/// Example: `replace_file("db.json", "db.json.tmp", "{}\n", "tuning database db.json")` leaves
/// db.json holding `{}` and no db.json.tmp.
inline void replace_file(const std::string& path, const std::string& tmp, const std::string& text,
                         const std::string& what) {
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw user_error(what + ": cannot write " + tmp);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw user_error(what + ": cannot replace the file: " + ec.message());
  }
}

}  // namespace ein::detail
