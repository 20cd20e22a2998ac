// The operator library: common operators written as tensor algebra, each returning a definition
// that a program reads like any other (`ops::relu<"z">(ops::conv2d<"y", ops::nhwc, 1, 1>(X, K))`).
#pragma once

#include "ein/front/ops/band.hpp"
#include "ein/front/ops/conv.hpp"
#include "ein/front/ops/elementwise.hpp"
#include "ein/front/ops/matmul.hpp"
#include "ein/front/ops/norm.hpp"
#include "ein/front/ops/pool.hpp"
#include "ein/front/ops/shape.hpp"
#include "ein/front/ops/softmax.hpp"
