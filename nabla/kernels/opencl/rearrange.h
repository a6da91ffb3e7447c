// The OpenCL kernels of the ops that rearrange elements: flip, tril, triu,
// cat, pad and pad_backward (rearrange.cpp).
#pragma once

namespace nabla::opencl {

void register_rearrange_kernels();

}  // namespace nabla::opencl
