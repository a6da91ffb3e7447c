// nabla: a deep learning framework in C++20. Including this header gives the
// whole public API.
#pragma once
#include "nabla/autograd/engine.h"
#include "nabla/core/allocator.h"
#include "nabla/core/grad_mode.h"
#include "nabla/core/parallel.h"
#include "nabla/core/random.h"
#include "nabla/core/tensor.h"
#include "nabla/data/data.h"
#include "nabla/graph/serialize.h"
#include "nabla/graph/session.h"
#include "nabla/io/checkpoint.h"
#include "nabla/io/safetensors.h"
#include "nabla/nn/nn.h"
#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"
#include "nabla/optim/optim.h"
