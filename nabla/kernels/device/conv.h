// The device C kernels (device_c.h) of 2-D convolution, which runs as
// im2col + GEMM on an accelerator: im2col unfolds the windows of an input
// into a column matrix, the backend's GEMM multiplies it with the weight,
// and col2im folds a column matrix back into an image (conv_transpose2d, the
// input gradient). One program holds all three, for element type T.
#pragma once

namespace nabla::device_c {

// nb_im2col, nb_col2im, nb_bias_rows (the comments in conv.cpp say how each
// indexes its operands).
extern const char* const kConvKernels;

}  // namespace nabla::device_c
