// data_format = "NHWC" | "NCHW" of the conv, pooling and batch-norm layers
// (Keras's argument name; TensorFlow's values, Keras's "channels_last" and
// "channels_first" accepted too). An NHWC layer takes [N, H, W, C] input
// (or unbatched [H, W, C]) and returns NHWC; inside, the NHWC data is viewed
// as a channels-last NCHW tensor (a permutation, no copy), which conv2d runs
// on oneDNN's NHWC kernels in place. Internal to nabla/nn.
#pragma once
#include <string>

#include "nabla/core/tensor.h"

namespace nabla::nn {

// "NCHW" or "NHWC" for a valid value; else an Error naming the layer.
std::string checked_data_format(const std::string& format, const char* layer);
// An NHWC input as the NCHW view the ops take (3 or 4 dims; an Error naming
// the layer otherwise), and an NCHW result back as NHWC.
Tensor nchw_view_of_nhwc(const Tensor& x, const char* layer);
Tensor nhwc_view_of_nchw(const Tensor& y);

}  // namespace nabla::nn
