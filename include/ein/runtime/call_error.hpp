// What the checks of CUDA, cuBLAS and cuDNN calls throw (cuda_check.hpp, cublas.hpp, cudnn.hpp):
// a class per library, each built on call_error, whose text names the library, the call, where it
// was made and the library's own words for the status.
#pragma once

#include <stdexcept>
#include <string>

namespace ein::runtime {

/// A failed call of a library whose calls return `Status`.
/// Example: `ein: cuBLAS call `cublasCreate(&handle)` failed at plan.cu:12:
/// CUBLAS_STATUS_NOT_INITIALIZED (the library was not initialized)`.
template <class Status>
class call_error : public std::runtime_error {
 public:
  Status status() const { return status_; }

 protected:
  call_error(Status status, const char* library, const char* call, const char* file, int line,
             const std::string& meaning)
      : std::runtime_error(std::string("ein: ") + library + " call `" + call + "` failed at " + file + ":" +
                           std::to_string(line) + ": " + meaning),
        status_(status) {}

 private:
  Status status_;
};

}  // namespace ein::runtime
