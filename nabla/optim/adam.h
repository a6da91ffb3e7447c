// Adam and AdamW (torch.optim.Adam / AdamW, PyTorch 1.13 update rules).
// Options: lr 1e-3, beta1 0.9, beta2 0.999, eps 1e-8, weight_decay (Adam 0,
// AdamW 1e-2), amsgrad 0, maximize 0. Adam adds weight_decay * p to the
// gradient (L2); AdamW multiplies p by 1 - lr * weight_decay (decoupled).
#pragma once
#include "nabla/optim/optimizer.h"

namespace nabla::optim {

class Adam : public Optimizer {
 public:
  explicit Adam(std::vector<Tensor> params, Options options = {});
  explicit Adam(std::vector<ParamGroup> groups, Options options = {});

 protected:
  Adam(const char* name, bool decoupled, std::vector<ParamGroup> groups, Options options);
  void check_group(const ParamGroup& group) const override;
  void update(const ParamGroup& group, Tensor& param, const Tensor& grad, ParamState& state) override;

 private:
  bool decoupled_;
};

class AdamW : public Adam {
 public:
  explicit AdamW(std::vector<Tensor> params, Options options = {});
  explicit AdamW(std::vector<ParamGroup> groups, Options options = {});
};

}  // namespace nabla::optim
