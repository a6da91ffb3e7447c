// SGD update (torch/optim/sgd.py, _single_tensor_sgd, PyTorch 1.13):
//   d = maximize ? -g : g;  d += weight_decay * p
//   buf = first step ? d : momentum * buf + (1 - dampening) * d
//   d = nesterov ? d + momentum * buf : buf;  p -= lr * d
#include "nabla/optim/sgd.h"

#include <cmath>

#include "nabla/ops/ops.h"

namespace nabla::optim {

SGD::SGD(std::vector<Tensor> params, Options options) : SGD(one_group(std::move(params)), std::move(options)) {}

SGD::SGD(std::vector<ParamGroup> groups, Options options) : Optimizer("SGD", merge_options("SGD",
                                  {{"lr", 1e-3}, {"momentum", 0.0}, {"dampening", 0.0}, {"weight_decay", 0.0},
                                   {"nesterov", 0.0}, {"maximize", 0.0}},
                                  options)) {
  init(std::move(groups));
}

void SGD::check_group(const ParamGroup& g) const {
  check_range(g, "lr", 0.0, true, INFINITY, false, "lr >= 0");
  check_range(g, "momentum", 0.0, true, INFINITY, false, "momentum >= 0");
  check_range(g, "dampening", -INFINITY, false, INFINITY, false, "a finite dampening");
  check_range(g, "weight_decay", 0.0, true, INFINITY, false, "weight_decay >= 0");
  check_flag(g, "nesterov");
  check_flag(g, "maximize");
  NABLA_CHECK(g.get("nesterov") == 0.0 || (g.get("momentum") > 0.0 && g.get("dampening") == 0.0),
              "SGD: nesterov momentum requires momentum > 0 and dampening = 0, got momentum = ", g.get("momentum"),
              " and dampening = ", g.get("dampening"));
}

void SGD::update(const ParamGroup& g, Tensor& p, const Tensor& grad, ParamState& s) {
  const double lr = g.get("lr"), momentum = g.get("momentum"), dampening = g.get("dampening");
  const double weight_decay = g.get("weight_decay");
  Tensor d = g.get("maximize") != 0.0 ? -grad : grad;
  if (weight_decay != 0.0) d = d + p * weight_decay;
  if (momentum != 0.0) {
    auto it = s.buffers.find("momentum_buffer");
    if (it == s.buffers.end()) {
      it = s.buffers.emplace("momentum_buffer", d.clone()).first;
    } else {
      it->second.mul_(momentum).add_(d * (1.0 - dampening));
    }
    d = g.get("nesterov") != 0.0 ? d + it->second * momentum : it->second;
  }
  p.sub_(d * lr);
}

}  // namespace nabla::optim
