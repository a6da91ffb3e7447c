// Adagrad update (torch/optim/adagrad.py, _single_tensor_adagrad, 1.13):
//   g = maximize ? -g : g;  g += wd * p;  clr = lr / (1 + (t - 1) * lr_decay)
//   sum += g * g (sum starts at initial_accumulator_value);  p -= clr * g / (sqrt(sum) + eps)
#include "nabla/optim/adagrad.h"

#include <cmath>

#include "nabla/ops/ops.h"

namespace nabla::optim {

Adagrad::Adagrad(std::vector<Tensor> params, Options options)
    : Adagrad(one_group(std::move(params)), std::move(options)) {}

Adagrad::Adagrad(std::vector<ParamGroup> groups, Options options)
    : Optimizer("Adagrad", merge_options("Adagrad",
                                         {{"lr", 1e-2}, {"lr_decay", 0.0}, {"weight_decay", 0.0},
                                          {"initial_accumulator_value", 0.0}, {"eps", 1e-10}, {"maximize", 0.0}},
                                         options)) {
  init(std::move(groups));
}

void Adagrad::check_group(const ParamGroup& g) const {
  check_range(g, "lr", 0.0, true, INFINITY, false, "lr >= 0");
  check_range(g, "lr_decay", 0.0, true, INFINITY, false, "lr_decay >= 0");
  check_range(g, "weight_decay", 0.0, true, INFINITY, false, "weight_decay >= 0");
  check_range(g, "initial_accumulator_value", 0.0, true, INFINITY, false, "initial_accumulator_value >= 0");
  check_range(g, "eps", 0.0, true, INFINITY, false, "eps >= 0");
  check_flag(g, "maximize");
}

void Adagrad::update(const ParamGroup& g, Tensor& p, const Tensor& grad_in, ParamState& s) {
  const double lr = g.get("lr"), lr_decay = g.get("lr_decay"), eps = g.get("eps");
  const double weight_decay = g.get("weight_decay");
  Tensor grad = g.get("maximize") != 0.0 ? -grad_in : grad_in;
  Tensor& sum = s.buffers["sum"];
  if (!sum.defined()) sum = full_like(p, g.get("initial_accumulator_value"));
  if (weight_decay != 0.0) grad = grad + p * weight_decay;
  const double clr = lr / (1.0 + static_cast<double>(s.step - 1) * lr_decay);
  sum.add_(grad * grad);
  Tensor std = sum.sqrt() + eps;
  p.sub_(grad / std * clr);
}

}  // namespace nabla::optim
