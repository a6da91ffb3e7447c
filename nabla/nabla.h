// nabla: a deep learning framework in C++20. Including this header gives the
// whole public API.
#pragma once
// <iostream> so that `std::cout << tensor` and `std::cout << model` work with
// this header alone, as `import torch; print(x)` does.
#include <iostream>

#include "nabla/autograd/engine.h"
#include "nabla/autograd/function.h"
#include "nabla/core/allocator.h"
#include "nabla/core/backend.h"
#include "nabla/core/grad_mode.h"
#include "nabla/core/parallel.h"
#include "nabla/core/random.h"
#include "nabla/core/tensor.h"
#include "nabla/data/data.h"
#include "nabla/graph/compile.h"
#include "nabla/graph/control_flow.h"
#include "nabla/graph/gradients.h"
#include "nabla/graph/passes/optimize.h"
#include "nabla/graph/print.h"
#include "nabla/graph/layers.h"
#include "nabla/graph/losses.h"
#include "nabla/graph/optimizers.h"
#include "nabla/graph/serialize.h"
#include "nabla/graph/session.h"
#include "nabla/io/checkpoint.h"
#include "nabla/io/safetensors.h"
#include "nabla/io/training_state.h"
#include "nabla/nn/module_variables.h"
#include "nabla/nn/nn.h"
#include "nabla/opencl.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"
#include "nabla/optim/optim.h"
#include "nabla/train/train.h"
#include "nabla/zoo/fashion.h"
#include "nabla/summary/summary_writer.h"
