// The cost interface: what the search asks of a cost model, and what it asks about.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "ein/ir/expr.hpp"
#include "ein/match/instance.hpp"

namespace ein::cost {

/// One kernel to price: a library operator or a generated eOperator, with its FLOPs and the
/// bytes it must move (each operand read once, the output written once). A library operator
/// also says how its output divides among thread blocks: as the GEMM it is (convolutions as
/// implicit GEMMs), `batch` matrices of `rows` × `cols` (0: not known).
struct workload {
  enum class engine { library, eoperator };
  engine kind = engine::eoperator;
  match::op_kind op = match::op_kind::elementwise;  // meaningful for engine::library
  double flops = 0, bytes = 0;
  std::int64_t batch = 0, rows = 0, cols = 0;
  /// A conv2d with a 3×3 filter, unit stride, no dilation and no groups: the shape for which cuDNN
  /// offers Winograd algorithms (EinNet §7.3, Figure 6, converts Conv5x5 into it for that reason).
  bool winograd_3x3 = false;
  /// A library operator of half or bfloat16 operands, which runs on tensor cores
  /// (device_profile::half_flops).
  bool sixteen_bit = false;
  /// What the kernel is, for models that run it (the measured model): the matched operator, or
  /// the eOperator's scope. Either may be null; both point into the caller's data and are
  /// valid only during one `model::seconds` call.
  const match::instance* instance = nullptr;
  const ir::scope* eop = nullptr;

  /// Example: matmul m=49 n=4608 k=512 gives 1 × 49 × 4608; conv2d n=1 p×q=7×7 k=512 gives
  /// 1 × 49 × 512 (rows n·p·q, columns the filters): the instance's output grid.
  static workload library(const match::instance& i) {
    workload w{engine::library, i.kind, i.flops, i.bytes};
    w.instance = &i;
    w.batch = i.grid.batch, w.rows = i.grid.rows, w.cols = i.grid.cols;
    w.sixteen_bit = ir::is_16bit(i.type);
    if (auto* c = std::get_if<match::conv_attrs>(&i.attrs))
      w.winograd_3x3 = !c->backward_data && c->groups == 1 && c->r == 3 && c->s == 3 && c->stride_h == 1 &&
                       c->stride_w == 1 && c->dilation_h == 1 && c->dilation_w == 1;
    return w;
  }
  static workload eoperator(double flops, double bytes, const ir::scope* s = nullptr) {
    workload w{engine::eoperator, match::op_kind::elementwise, flops, bytes};
    w.eop = s;
    return w;
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
