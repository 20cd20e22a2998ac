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
/// one header under match/operators/ defining its operator_def, one line here, one test.
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
