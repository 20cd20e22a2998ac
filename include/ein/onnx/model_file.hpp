// Reading an ONNX file: its ModelProto, parsed by protobuf without the 64 MB default limit
// (docs/decisions/0024). Includes protobuf and ONNX's compiled onnx.proto: a program that
// includes it links ein::onnx.
#pragma once

#include <onnx/onnx_pb.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "ein/error.hpp"

namespace ein::onnx {

/// The folder of `path` ("" for a bare name): where external-data files are looked up.
inline std::string folder_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

/// Parses `bytes` as the protobuf message `m`; false when they are not one (truncated, wrong
/// wire types, ...). protobuf's 64 MB default limit is lifted to its 2 GiB maximum.
template <class Message>
bool parse_message(const std::string& bytes, Message& m) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) return false;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  return m.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

/// The bytes of file `path`; `what` names it in errors ("ONNX file", "tensor file").
inline std::string read_bytes(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw user_error(what + " " + path + ": cannot be opened");
  auto size = static_cast<std::streamoff>(in.tellg());
  if (size < 0) throw user_error(what + " " + path + ": cannot be read");
  if (size > static_cast<std::streamoff>(INT_MAX))
    throw user_error(what + " " + path + ": " + std::to_string(size) +
                     " bytes, over protobuf's 2 GiB limit: keep the weights in external data (.onnx with a .data file)");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), size)) throw user_error(what + " " + path + ": cannot be read");
  return bytes;
}

/// The model of ONNX file `path`.
/// @throws user_error when it cannot be read or is no ONNX model (truncated, another format).
inline ::onnx::ModelProto read_model(const std::string& path) {
  ::onnx::ModelProto m;
  if (!parse_message(read_bytes(path, "ONNX file"), m))
    throw user_error("ONNX file " + path + ": not an ONNX model (protobuf cannot parse it: truncated or another format)");
  if (!m.has_graph()) throw user_error("ONNX file " + path + ": the model has no graph");
  return m;
}

/// The tensor of a `.pb` file holding one TensorProto (ONNX's test data).
inline ::onnx::TensorProto read_tensor_file(const std::string& path) {
  ::onnx::TensorProto t;
  if (!parse_message(read_bytes(path, "tensor file"), t))
    throw user_error("tensor file " + path + ": not an ONNX TensorProto (protobuf cannot parse it)");
  return t;
}

}  // namespace ein::onnx
