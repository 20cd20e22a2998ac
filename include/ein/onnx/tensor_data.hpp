// The values of an ONNX tensor (an initializer, a Constant's value, a test's .pb file): float,
// double, float16, bfloat16, int64 or int32, stored in the TensorProto or in an external-data
// file beside the model.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "ein/error.hpp"
#include "ein/half.hpp"
#include "ein/onnx/model_file.hpp"

namespace ein::onnx {

static_assert(std::endian::native == std::endian::little, "ONNX's raw data is little-endian, as ein reads it");

/// The largest extent and element count ein reads (2^40, as ir/json.hpp's limit on integers).
inline constexpr std::int64_t max_elements = std::int64_t{1} << 40;

/// ONNX's name of element type `t` (`FLOAT`, `UINT8`, ...), or `type <t>` for a number ONNX does
/// not define.
inline std::string type_name(int t) {
  if (!::onnx::TensorProto_DataType_IsValid(t)) return "type " + std::to_string(t);
  return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(t));
}

/// Whether ONNX element type `t` is one of the floating-point types ein computes.
inline bool is_float_type(int t) {
  return t == ::onnx::TensorProto_DataType_FLOAT || t == ::onnx::TensorProto_DataType_DOUBLE ||
         t == ::onnx::TensorProto_DataType_FLOAT16 || t == ::onnx::TensorProto_DataType_BFLOAT16;
}

/// A tensor's element type, dims and values: float (FLOAT), double (DOUBLE), ein::half
/// (FLOAT16), ein::bfloat16 (BFLOAT16) or integers (INT64, INT32, read as int64).
struct tensor_data {
  std::string name;
  int type = ::onnx::TensorProto_DataType_UNDEFINED;
  std::vector<std::int64_t> dims;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<ein::half> f16;
  std::vector<ein::bfloat16> bf16;
  std::vector<std::int64_t> i64;

  std::int64_t count() const {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
  }
  bool is_float() const { return is_float_type(type); }
  /// Element `i` whatever the type (integers converted exactly up to 2^53).
  double value(std::size_t i) const {
    switch (type) {
      case ::onnx::TensorProto_DataType_FLOAT: return f32[i];
      case ::onnx::TensorProto_DataType_DOUBLE: return f64[i];
      case ::onnx::TensorProto_DataType_FLOAT16: return static_cast<float>(f16[i]);
      case ::onnx::TensorProto_DataType_BFLOAT16: return static_cast<float>(bf16[i]);
      default: return static_cast<double>(i64[i]);
    }
  }
};

namespace detail {

inline std::size_t element_size(int type) {
  switch (type) {
    case ::onnx::TensorProto_DataType_FLOAT16:
    case ::onnx::TensorProto_DataType_BFLOAT16: return 2;
    case ::onnx::TensorProto_DataType_FLOAT:
    case ::onnx::TensorProto_DataType_INT32: return 4;
    default: return 8;
  }
}

// `v` holding the `n` values of its element type that `bytes` spell (little-endian).
template <class T>
void copy_bytes(std::vector<T>& v, const char* bytes, std::size_t n) {
  v.resize(n);
  std::memcpy(v.data(), bytes, n * sizeof(T));
}

// Fills `d` from `bytes` little-endian values of d.type.
inline void from_bytes(tensor_data& d, const char* bytes, std::size_t n) {
  if (n == 0) return;  // memcpy takes no null pointer, even for no bytes
  switch (d.type) {
    case ::onnx::TensorProto_DataType_FLOAT: copy_bytes(d.f32, bytes, n); break;
    case ::onnx::TensorProto_DataType_DOUBLE: copy_bytes(d.f64, bytes, n); break;
    case ::onnx::TensorProto_DataType_FLOAT16: copy_bytes(d.f16, bytes, n); break;
    case ::onnx::TensorProto_DataType_BFLOAT16: copy_bytes(d.bf16, bytes, n); break;
    case ::onnx::TensorProto_DataType_INT64: copy_bytes(d.i64, bytes, n); break;
    default: {
      std::vector<std::int32_t> v;
      copy_bytes(v, bytes, n);
      d.i64.assign(v.begin(), v.end());
    }
  }
}

// The external data of `t`: `location` (a relative path inside `folder`), `offset`, `length`.
inline std::string external_bytes(const ::onnx::TensorProto& t, const std::string& folder, const std::string& where,
                                  std::size_t expected) {
  std::string location;
  std::int64_t offset = 0, length = -1;
  auto number = [&](const std::string& key, const std::string& text) {
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || text.empty() || v < 0)
      throw user_error(where + ": external data `" + key + "` is `" + text + "`, not a byte count");
    return static_cast<std::int64_t>(v);
  };
  for (auto& e : t.external_data()) {
    if (e.key() == "location") location = e.value();
    else if (e.key() == "offset") offset = number("offset", e.value());
    else if (e.key() == "length") length = number("length", e.value());
  }
  if (location.empty()) throw user_error(where + ": external data without a `location`");
  // Kept inside the model's folder: no absolute paths, no way up.
  if (location.front() == '/' || location.find("..") != std::string::npos || location.find('\0') != std::string::npos)
    throw user_error(where + ": external data location `" + location +
                     "` must be a path inside the model's folder (no `/` first, no `..`)");
  if (length >= 0 && static_cast<std::size_t>(length) != expected)
    throw user_error(where + ": external data `length` is " + std::to_string(length) + " bytes but the tensor has " +
                     std::to_string(expected));
  std::string path = folder.empty() ? location : folder + "/" + location;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw user_error(where + ": external data file " + path + " cannot be opened");
  auto size = static_cast<std::int64_t>(in.tellg());
  if (size < 0 || offset > size || static_cast<std::size_t>(size - offset) < expected)
    throw user_error(where + ": external data file " + path + " has " + std::to_string(size) + " bytes, too few for " +
                     std::to_string(expected) + " from offset " + std::to_string(offset));
  std::string bytes(expected, '\0');
  in.seekg(offset);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(expected)))
    throw user_error(where + ": external data file " + path + " cannot be read");
  return bytes;
}

}  // namespace detail

/// The values of `t`, whose external data (if any) is in `folder`; errors start with `where`
/// (`ONNX file m.onnx: initializer `w``). Sizes are checked before anything is allocated.
/// @throws user_error for another element type, a dim below 0 or above 2^40, a segmented tensor,
/// or data whose size disagrees with the dims.
inline tensor_data read_values(const ::onnx::TensorProto& t, const std::string& folder, const std::string& where) {
  tensor_data d;
  d.name = t.name();
  d.type = t.data_type();
  switch (d.type) {
    case ::onnx::TensorProto_DataType_FLOAT:
    case ::onnx::TensorProto_DataType_DOUBLE:
    case ::onnx::TensorProto_DataType_FLOAT16:
    case ::onnx::TensorProto_DataType_BFLOAT16:
    case ::onnx::TensorProto_DataType_INT64:
    case ::onnx::TensorProto_DataType_INT32: break;
    default:
      throw user_error(where + ": element type " + type_name(d.type) +
                       "; ein reads FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT64 and INT32");
  }
  if (t.has_segment()) throw user_error(where + ": a segmented tensor, which ein does not read");
  std::int64_t n = 1;
  for (auto e : t.dims()) {
    if (e < 0 || e > max_elements) throw user_error(where + ": dim " + std::to_string(e) + " is outside [0, 2^40]");
    d.dims.push_back(e);
    n = e == 0 ? 0 : (n > max_elements / e ? max_elements + 1 : n * e);
  }
  if (n > max_elements) throw user_error(where + ": more than 2^40 elements");
  const auto count = static_cast<std::size_t>(n);
  const std::size_t bytes = count * detail::element_size(d.type);
  auto mismatch = [&](std::size_t have, const char* unit) {
    return user_error(where + ": its dims give " + std::to_string(count) + " elements but its data holds " +
                      std::to_string(have) + " " + unit);
  };
  if (t.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL) {
    std::string raw = detail::external_bytes(t, folder, where, bytes);
    detail::from_bytes(d, raw.data(), count);
  } else if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) throw mismatch(t.raw_data().size(), "bytes");
    detail::from_bytes(d, t.raw_data().data(), count);
  } else if (d.type == ::onnx::TensorProto_DataType_FLOAT) {
    if (static_cast<std::size_t>(t.float_data_size()) != count) throw mismatch(t.float_data_size(), "values");
    d.f32.assign(t.float_data().begin(), t.float_data().end());
  } else if (d.type == ::onnx::TensorProto_DataType_DOUBLE) {
    if (static_cast<std::size_t>(t.double_data_size()) != count) throw mismatch(t.double_data_size(), "values");
    d.f64.assign(t.double_data().begin(), t.double_data().end());
  } else if (d.type == ::onnx::TensorProto_DataType_FLOAT16 || d.type == ::onnx::TensorProto_DataType_BFLOAT16) {
    // 16-bit values are kept one per int32_data element, in its lower 16 bits
    if (static_cast<std::size_t>(t.int32_data_size()) != count) throw mismatch(t.int32_data_size(), "values");
    for (auto v : t.int32_data()) {
      const auto bits = static_cast<std::uint16_t>(v);
      if (d.type == ::onnx::TensorProto_DataType_FLOAT16) d.f16.push_back(ein::half::from_bits(bits));
      else d.bf16.push_back(ein::bfloat16::from_bits(bits));
    }
  } else if (d.type == ::onnx::TensorProto_DataType_INT64) {
    if (static_cast<std::size_t>(t.int64_data_size()) != count) throw mismatch(t.int64_data_size(), "values");
    d.i64.assign(t.int64_data().begin(), t.int64_data().end());
  } else {
    if (static_cast<std::size_t>(t.int32_data_size()) != count) throw mismatch(t.int32_data_size(), "values");
    d.i64.assign(t.int32_data().begin(), t.int32_data().end());
  }
  return d;
}

}  // namespace ein::onnx

namespace ein::onnx {

/// The value of a Constant node (its one attribute: `value`, `value_float`, `value_floats`,
/// `value_int` or `value_ints`), named by its output; nullopt when the node sets none of these
/// (a string or sparse value, which ein does not read) or more than one.
inline std::optional<tensor_data> constant_value(const ::onnx::NodeProto& node, const std::string& folder,
                                                 const std::string& where) {
  if (node.attribute_size() != 1 || node.output_size() != 1) return std::nullopt;
  auto& a = node.attribute(0);
  tensor_data d;
  if (a.name() == "value" && a.type() == ::onnx::AttributeProto_AttributeType_TENSOR) {
    d = read_values(a.t(), folder, where);
  } else if (a.name() == "value_float" && a.type() == ::onnx::AttributeProto_AttributeType_FLOAT) {
    d.type = ::onnx::TensorProto_DataType_FLOAT;
    d.f32 = {a.f()};
  } else if (a.name() == "value_floats" && a.type() == ::onnx::AttributeProto_AttributeType_FLOATS) {
    d.type = ::onnx::TensorProto_DataType_FLOAT;
    d.f32.assign(a.floats().begin(), a.floats().end());
    d.dims = {static_cast<std::int64_t>(d.f32.size())};
  } else if (a.name() == "value_int" && a.type() == ::onnx::AttributeProto_AttributeType_INT) {
    d.type = ::onnx::TensorProto_DataType_INT64;
    d.i64 = {a.i()};
  } else if (a.name() == "value_ints" && a.type() == ::onnx::AttributeProto_AttributeType_INTS) {
    d.type = ::onnx::TensorProto_DataType_INT64;
    d.i64.assign(a.ints().begin(), a.ints().end());
    d.dims = {static_cast<std::int64_t>(d.i64.size())};
  } else {
    return std::nullopt;
  }
  d.name = node.output(0);
  return d;
}

}  // namespace ein::onnx
