// Loss modules (torch.nn.MSELoss, CrossEntropyLoss, ...) over the fused loss
// ops of nabla/ops/loss.h, which hold the semantics. A loss's forward takes
// two tensors, so losses derive from nn::Loss, whose
//   Tensor forward(const Tensor& input, const Tensor& target)
// and operator()(input, target) replace Module's one-input forward (calling
// that one throws). Being Modules, losses print, and their class weights
// (weight, pos_weight) are buffers: they appear in state_dict() and follow
// to(dtype) as in PyTorch.
//
// Constructor arguments are PyTorch's, in PyTorch's order, without the
// deprecated size_average/reduce. reduction is "none", "mean" or "sum"
// (KLDivLoss also "batchmean"); it is checked at construction.
//
//   nn::CrossEntropyLoss criterion(Tensor(), -100, "mean", 0.1);
//   Tensor loss = criterion(logits, labels);
#pragma once
#include <string>

#include "nabla/nn/module.h"
#include "nabla/ops/loss.h"

namespace nabla::nn {

class Loss : public Module {
 public:
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  // Module's one-input forward: throws nabla::Error naming the two-input form.
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  std::string reduction;

 protected:
  Loss(const char* api, std::string reduction, bool allow_batchmean = false);
  // Registers `t` as a buffer named `name` when it is defined.
  Tensor optional_buffer(const char* name, const Tensor& t);
};

// mean/sum of (input - target)^2.
class MSELoss : public Loss {
 public:
  explicit MSELoss(std::string reduction = "mean") : Loss("nn::MSELoss", std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

// mean/sum of |input - target|.
class L1Loss : public Loss {
 public:
  explicit L1Loss(std::string reduction = "mean") : Loss("nn::L1Loss", std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override;
};

// 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; beta >= 0.
class SmoothL1Loss : public Loss {
 public:
  explicit SmoothL1Loss(std::string reduction = "mean", double beta = 1.0);
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string extra_repr() const override;
  double beta;
};

// 0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta); delta > 0.
class HuberLoss : public Loss {
 public:
  explicit HuberLoss(std::string reduction = "mean", double delta = 1.0);
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string extra_repr() const override;
  double delta;
};

// Cross entropy of logits [N, C, *] against class indices or probabilities.
class CrossEntropyLoss : public Loss {
 public:
  explicit CrossEntropyLoss(const Tensor& weight = Tensor(), int64_t ignore_index = kDefaultIgnoreIndex,
                            std::string reduction = "mean", double label_smoothing = 0.0);
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string extra_repr() const override;
  Tensor weight;  // [C] buffer, or undefined
  int64_t ignore_index;
  double label_smoothing;
};

// Negative log likelihood of log-probabilities [N, C, *] at class indices.
class NLLLoss : public Loss {
 public:
  explicit NLLLoss(const Tensor& weight = Tensor(), int64_t ignore_index = kDefaultIgnoreIndex,
                   std::string reduction = "mean");
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string extra_repr() const override;
  Tensor weight;
  int64_t ignore_index;
};

// Binary cross entropy of probabilities; weight broadcasts to the input.
class BCELoss : public Loss {
 public:
  explicit BCELoss(const Tensor& weight = Tensor(), std::string reduction = "mean");
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor weight;
};

// Binary cross entropy of logits; pos_weight weighs the positive term along
// the last (class) dim.
class BCEWithLogitsLoss : public Loss {
 public:
  explicit BCEWithLogitsLoss(const Tensor& weight = Tensor(), std::string reduction = "mean",
                             const Tensor& pos_weight = Tensor());
  Tensor forward(const Tensor& input, const Tensor& target) override;
  Tensor weight, pos_weight;
};

// KL(target || input) with input log-probabilities; target probabilities, or
// log-probabilities with log_target. "batchmean" divides the sum by input.size(0)
// (the mathematically correct KL; "mean" averages over elements, as PyTorch).
class KLDivLoss : public Loss {
 public:
  explicit KLDivLoss(std::string reduction = "mean", bool log_target = false);
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string extra_repr() const override;
  bool log_target;
};

}  // namespace nabla::nn
