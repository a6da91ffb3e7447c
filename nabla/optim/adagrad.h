// Adagrad (torch.optim.Adagrad, PyTorch 1.13 update rule).
// Options: lr 1e-2, lr_decay 0, weight_decay 0, initial_accumulator_value 0,
// eps 1e-10, maximize 0.
#pragma once
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

class Adagrad : public Optimizer {
 public:
  explicit Adagrad(std::vector<Tensor> params, Options options = {});
  explicit Adagrad(std::vector<ParamGroup> groups, Options options = {});

 protected:
  void check_group(const ParamGroup& group) const override;
  void update(const ParamGroup& group, Tensor& param, const Tensor& grad, ParamState& state) override;
};

}  // namespace nabla::optim
