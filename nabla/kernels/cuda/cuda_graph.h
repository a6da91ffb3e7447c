// CUDA graphs (internal to libnabla_cuda): stream capture on a device's
// compute stream with a private memory pool, instantiation, replay. Exposed
// to libnabla through cuda::detail::Runtime (core/cuda_library.h), which
// graph::Session uses (graph/session_cuda_graph.cpp).
#pragma once
#include "nabla/core/cuda_library.h"

namespace nabla::cuda {

// Sets the graph entries of `runtime`.
void register_graph_runtime(detail::Runtime& runtime);

}  // namespace nabla::cuda
