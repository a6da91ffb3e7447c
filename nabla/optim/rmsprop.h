// RMSprop (torch.optim.RMSprop, PyTorch 1.13 update rule).
// Options: lr 1e-2, alpha 0.99, eps 1e-8, weight_decay 0, momentum 0,
// centered 0, maximize 0.
#pragma once
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

class RMSprop : public Optimizer {
 public:
  explicit RMSprop(std::vector<Tensor> params, Options options = {});
  explicit RMSprop(std::vector<ParamGroup> groups, Options options = {});

 protected:
  void check_group(const ParamGroup& group) const override;
  void update(const ParamGroup& group, Tensor& param, const Tensor& grad, ParamState& state) override;
};

}  // namespace nabla::optim
