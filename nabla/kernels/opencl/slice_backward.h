// slice_backward on OpenCL: the gradient of slice (and select, split,
// chunk, indexing with slices): zeros with the gradient copied into the slice.
#pragma once

namespace nabla::opencl {

void register_slice_backward_kernel();

}  // namespace nabla::opencl
