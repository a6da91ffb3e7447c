// OpenCL kernels of conv2d, conv_transpose2d and conv2d_weight_grad
// (ops/conv_ops.cpp): im2col / col2im in device C (kernels/device/conv.h)
// and CLBlast's GEMM (matmul.h), float32 and float64. Samples are unfolded
// in blocks whose column matrix stays under a fixed budget, so memory stays
// bounded for large batches while small samples share one launch.
#pragma once

namespace nabla::opencl {

// Registers nothing when nabla was built without CLBlast.
void register_conv_kernels();

}  // namespace nabla::opencl
