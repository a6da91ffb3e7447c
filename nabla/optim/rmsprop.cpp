// RMSprop update (torch/optim/rmsprop.py, _single_tensor_rmsprop, 1.13):
//   g = maximize ? -g : g;  g += wd * p;  v = alpha * v + (1 - alpha) * g * g
//   avg = centered ? sqrt(v - a * a) (a = alpha * a + (1 - alpha) * g) : sqrt(v);  avg += eps
//   momentum > 0: buf = momentum * buf + g / avg; p -= lr * buf;  else p -= lr * g / avg
#include "nabla/optim/rmsprop.h"

#include <cmath>

#include "nabla/ops/ops.h"

namespace nabla::optim {

RMSprop::RMSprop(std::vector<Tensor> params, Options options)
    : RMSprop(one_group(std::move(params)), std::move(options)) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, Options options)
    : Optimizer("RMSprop", merge_options("RMSprop",
                                         {{"lr", 1e-2}, {"alpha", 0.99}, {"eps", 1e-8}, {"weight_decay", 0.0},
                                          {"momentum", 0.0}, {"centered", 0.0}, {"maximize", 0.0}},
                                         options)) {
  init(std::move(groups));
}

void RMSprop::check_group(const ParamGroup& g) const {
  check_range(g, "lr", 0.0, true, INFINITY, false, "lr >= 0");
  check_range(g, "eps", 0.0, true, INFINITY, false, "eps >= 0");
  check_range(g, "alpha", 0.0, true, INFINITY, false, "alpha >= 0");
  check_range(g, "momentum", 0.0, true, INFINITY, false, "momentum >= 0");
  check_range(g, "weight_decay", 0.0, true, INFINITY, false, "weight_decay >= 0");
  check_flag(g, "centered");
  check_flag(g, "maximize");
}

void RMSprop::update(const ParamGroup& g, Tensor& p, const Tensor& grad_in, ParamState& s) {
  const double lr = g.get("lr"), alpha = g.get("alpha"), eps = g.get("eps");
  const double weight_decay = g.get("weight_decay"), momentum = g.get("momentum");
  Tensor grad = g.get("maximize") != 0.0 ? -grad_in : grad_in;
  if (weight_decay != 0.0) grad = grad + p * weight_decay;
  auto buffer = [&](const char* name) -> Tensor& {
    Tensor& b = s.buffers[name];
    if (!b.defined()) b = zeros_like(p);
    return b;
  };
  Tensor& square_avg = buffer("square_avg");
  square_avg.mul_(alpha).add_(grad * grad * (1.0 - alpha));
  Tensor avg;
  if (g.get("centered") != 0.0) {
    Tensor& grad_avg = buffer("grad_avg");
    grad_avg.mul_(alpha).add_(grad * (1.0 - alpha));
    avg = (square_avg - grad_avg * grad_avg).sqrt();
  } else {
    avg = square_avg.sqrt();
  }
  avg.add_(eps);
  if (momentum > 0.0) {
    Tensor& buf = buffer("momentum_buffer");
    buf.mul_(momentum).add_(grad / avg);
    p.sub_(buf * lr);
  } else {
    p.sub_(grad / avg * lr);
  }
}

}  // namespace nabla::optim
