// BatchNorm2d (torch.nn.BatchNorm2d): affine weight/bias parameters and
// running_mean / running_var / num_batches_tracked buffers. Training mode
// normalizes with batch statistics and updates the running ones (momentum);
// eval mode uses the running statistics.
#pragma once
#include "nabla/nn/module.h"

namespace nabla::nn {

class BatchNorm2d : public Module {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                       bool track_running_stats = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t num_features;
  double eps, momentum;
  Tensor weight, bias;                                    // undefined unless affine
  Tensor running_mean, running_var, num_batches_tracked;  // undefined unless tracking
};

}  // namespace nabla::nn
