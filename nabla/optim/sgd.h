// SGD: stochastic gradient descent with momentum, dampening, Nesterov momentum,
// weight decay and maximize (torch.optim.SGD, PyTorch 1.13 update rule).
// Options: lr (required, no default in PyTorch; here 1e-3), momentum 0,
// dampening 0, weight_decay 0, nesterov 0, maximize 0.
#pragma once
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

class SGD : public Optimizer {
 public:
  explicit SGD(std::vector<Tensor> params, Options options = {});
  explicit SGD(std::vector<ParamGroup> groups, Options options = {});

 protected:
  void check_group(const ParamGroup& group) const override;
  void update(const ParamGroup& group, Tensor& param, const Tensor& grad, ParamState& state) override;
  bool update_replayable() const override { return true; }
};

}  // namespace nabla::optim
