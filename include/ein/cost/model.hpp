// The cost interface: what the search asks of a cost model, and what it asks about.
#pragma once

#include <string>

#include "ein/match/instance.hpp"

namespace ein::cost {

/// One kernel to price: a library operator or a generated eOperator, with its FLOPs and the
/// bytes it must move (each operand read once, the output written once).
struct workload {
  enum class engine { library, eoperator };
  engine kind = engine::eoperator;
  match::op_kind op = match::op_kind::elementwise;  // meaningful for engine::library
  double flops = 0, bytes = 0;

  static workload library(const match::instance& i) {
    return {engine::library, i.kind, i.flops, i.bytes};
  }
  static workload eoperator(double flops, double bytes) {
    return {engine::eoperator, match::op_kind::elementwise, flops, bytes};
  }
};

/// A cost model predicts the run time of one kernel in seconds. Implementations: the roofline
/// model (cost/roofline.hpp, needs no GPU) and the measured model (times kernels on a GPU).
class model {
 public:
  virtual ~model() = default;
  virtual double seconds(const workload& w) const = 0;
  /// What the model is, for reports: "roofline (NVIDIA H100 SXM5, datasheet figures)".
  virtual std::string describe() const = 0;
};

}  // namespace ein::cost
