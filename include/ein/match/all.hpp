// The iterator mapping table: the ordered list of matchable operators.
#pragma once

#include <vector>

#include "ein/match/operators/batch_matmul.hpp"
#include "ein/match/operators/conv2d.hpp"
#include "ein/match/operators/conv_transpose2d.hpp"
#include "ein/match/operators/elementwise.hpp"
#include "ein/match/operators/g2bmm.hpp"
#include "ein/match/operators/gbmm.hpp"
#include "ein/match/operators/matmul.hpp"

namespace ein::match {

/// Every operator ein can instantiate, in the order match() reports them. Adding an operator:
/// its name in EIN_FOR_EACH_OP_KIND (instance.hpp), one header under match/operators/
/// defining its operator_def (canonical expression, columns, attribute inference with FLOPs,
/// bytes and output grid, reference executor), one line here, one test; tests over the table
/// then cover it. What a backend does with it follows from the attributes its header infers, not
/// from its kind: gemm_attrs run on CBLAS and cuBLAS, conv_attrs on cuDNN and oneDNN
/// (`backward_data`: the transposed pass), where plan::library accepts the instance; other
/// attributes run as an eOperator until a library's emitter handles them. A device profile
/// prices it by its name's curve, or the default one.
inline const std::vector<operator_def>& operator_table() {
  static const std::vector<operator_def> table{
      operators::elementwise_unary(),
      operators::elementwise_binary(),
      operators::matmul(),
      operators::batch_matmul(),
      operators::conv2d(),
      operators::conv_transpose2d(),
      operators::g2bmm(),
      operators::gbmm(),
  };
  return table;
}

}  // namespace ein::match
