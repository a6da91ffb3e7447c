// Batch normalization layers (torch.nn.BatchNorm1d, BatchNorm2d): affine
// weight/bias parameters (ones/zeros) and running_mean / running_var /
// num_batches_tracked buffers (zeros/ones/0). Training mode normalizes with
// the batch statistics and updates the running ones:
//   running = (1 - momentum) * running + momentum * batch_stat
// (unbiased variance for running_var); momentum = std::nullopt (PyTorch's
// None) uses 1 / num_batches_tracked, a cumulative moving average. Eval mode
// normalizes with the running statistics; without track_running_stats there
// are none and batch statistics are used in both modes.
#pragma once
#include <optional>
#include <string>

#include "nabla/nn/module.h"

namespace nabla::nn {

// The shared part; subclasses only say which input ranks they accept.
class BatchNormBase : public Module {
 public:
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_running_stats();
  void reset_parameters();

  int64_t num_features;
  double eps;
  std::optional<double> momentum;
  Tensor weight, bias;                                    // undefined unless affine
  Tensor running_mean, running_var, num_batches_tracked;  // undefined unless tracking

 protected:
  BatchNormBase(const char* api, int64_t num_features, double eps, std::optional<double> momentum, bool affine,
                bool track_running_stats);
  virtual void check_input(const Tensor& x) const = 0;
  // forward(x), or relu(forward(x)) in one op when `relu` (batch_norm_relu).
  Tensor normalize(const Tensor& x, bool relu);
  const char* api_;
};

// Input [N, C] or [N, C, L].
class BatchNorm1d : public BatchNormBase {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true);

 protected:
  void check_input(const Tensor& x) const override;
};

// Input [N, C, H, W]; with data_format "NHWC" (Keras's BatchNormalization
// with axis=-1): [N, H, W, C], output NHWC.
class BatchNorm2d : public BatchNormBase {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
                       bool affine = true, bool track_running_stats = true, const std::string& data_format = "NCHW");
  Tensor forward(const Tensor& x) override;
  // relu(forward(x)), the same values, gradients and running-statistics
  // updates, as one op (batch_norm_relu: ReLU applied as the output is
  // written, and in the backward pass). nn::Sequential runs a BatchNorm2d
  // followed by a ReLU this way, and so do the ResNet blocks (zoo/resnet.h).
  Tensor forward_relu(const Tensor& x);
  std::string extra_repr() const override;
  std::string data_format;  // "NCHW" or "NHWC"

 protected:
  void check_input(const Tensor& x) const override;

 private:
  Tensor run(const Tensor& x, bool relu);
};

}  // namespace nabla::nn
