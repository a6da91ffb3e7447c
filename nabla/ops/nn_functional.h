// Neural-network functional ops (torch.nn.functional, translated to C++):
// softmax, normalization, dropout, embedding, padding and 2-D resampling.
// Convolution and pooling live elsewhere. Defaults follow PyTorch.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla {

// ---- softmax -------------------------------------------------------------
// Numerically stable (the row max is subtracted first). Integer inputs are
// promoted to float32.
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);

// ---- normalization -------------------------------------------------------
// input [N, C, *]. Training mode normalizes with the batch statistics (biased
// variance) and, when running_mean/running_var are given, updates them in
// place: running = (1 - momentum) * running + momentum * batch_stat, using the
// unbiased variance for running_var (as PyTorch does). Eval mode normalizes
// with the running statistics, which must then be given. weight/bias [C] are
// optional (undefined Tensor()).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
// relu(batch_norm(...)), the same values, gradients and running-statistics
// updates; in training mode on the CPU one op (native_batch_norm_relu) that
// applies ReLU as it writes the output, and whose gradient masks dy inside
// batch norm's backward passes. nn::Sequential (BatchNorm2d then ReLU) and
// the ResNet blocks call it; compiled graphs get it from a Session pass.
Tensor batch_norm_relu(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                       double momentum = 0.1, double eps = 1e-5);
// Normalizes over the trailing dims `normalized_shape`; weight/bias have that shape.
Tensor layer_norm(const Tensor& input, IntList normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
// input [N, C, *] with C divisible by num_groups; weight/bias [C].
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// ---- dropout -------------------------------------------------------------
// Zeroes each element with probability p and scales the rest by 1/(1-p). The
// mask comes from the seeded generator: element i is kept where the 53-bit
// uniform that `rand(x.sizes(), kFloat64)` draws for element i at the same
// point (before rand rounds it through float32) is below 1 - p.
// training=false returns x unchanged.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);

// ---- embedding -----------------------------------------------------------
// Rows of weight [num_embeddings, dim] picked by int32/int64 indices of any
// shape: the result has shape indices.sizes() + [dim]. padding_idx = -1 means
// none; otherwise that row gets no gradient.
Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx = -1);

// ---- padding -------------------------------------------------------------
// pads as in PyTorch: (left, right) for the last dim first, then the dim
// before it, ... mode "constant" pads any dims with `value` (negative pads
// crop); "reflect" and "replicate" pad the last 1 dim (2-D/3-D input) or the
// last 2 dims (3-D/4-D input).
Tensor pad(const Tensor& x, IntList pads, const std::string& mode = "constant", double value = 0.0);

// ---- resampling ----------------------------------------------------------
// Options of interpolate (torch.nn.functional.interpolate). Give exactly one
// of size and scale_factor; each holds one value (used for H and W) or two
// (H, W). align_corners only applies to "bilinear" (default false).
struct InterpolateOptions {
  std::vector<int64_t> size = {};
  std::vector<double> scale_factor = {};
  std::string mode = "nearest";  // "nearest" or "bilinear"
  std::optional<bool> align_corners = std::nullopt;
};
// x: [N, C, H, W].
Tensor interpolate(const Tensor& x, const InterpolateOptions& options);

}  // namespace nabla
