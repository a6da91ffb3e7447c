// Convolutions through cuDNN (cudnn_conv.cpp), registered over the
// accelerator kernels' im2col + cuBLAS ones (kernels/accel/conv.cpp).
#pragma once

namespace nabla::cuda {

// Makes the CUDA kernels of conv2d, conv_transpose2d and conv2d_weight_grad
// run through cuDNN when it is loaded and enabled (nabla/cudnn.h), else
// through the im2col kernels registered before (register_accel_kernels).
void register_cudnn_conv_kernels();

}  // namespace nabla::cuda
