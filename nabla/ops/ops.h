// All public op functions.
#pragma once
#include "nabla/core/grad_mode.h"
#include "nabla/ops/closeness.h"
#include "nabla/ops/conv.h"
#include "nabla/ops/elementwise.h"
#include "nabla/ops/factory.h"
#include "nabla/ops/indexing.h"
#include "nabla/ops/linalg.h"
#include "nabla/ops/loss.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/optimizer_update.h"
#include "nabla/ops/reduction.h"
#include "nabla/ops/shape.h"

namespace nabla {
Tensor movedim_last(const Tensor& x, int64_t dim);
}
