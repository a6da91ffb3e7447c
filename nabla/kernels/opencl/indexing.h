// The OpenCL kernels of the indexing ops (gather, scatter, scatter_value,
// scatter_add, index_select, index_add, take, masked_select, one_hot) and of
// embedding and embedding_backward: indexing.cpp.
#pragma once

namespace nabla::opencl {

void register_indexing_kernels();

}  // namespace nabla::opencl
