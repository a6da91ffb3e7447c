// Loss functions, with the semantics, argument names and defaults of
// torch.nn.functional. `reduction` is "none", "mean" (default) or "sum";
// kl_div also takes "batchmean". Optional tensors (weight, pos_weight) are
// left undefined (Tensor()) when not given.
//
// Differences from PyTorch, on purpose: a target whose shape differs from the
// input's is an error (PyTorch broadcasts some losses with a warning), and the
// `weight` of cross_entropy with class indices, nll_loss and
// binary_cross_entropy gets no
// gradient (PyTorch raises "not implemented" when one is needed; here it stays
// undefined). Gradients flow to input, to floating targets and to pos_weight.
//
// Classification losses take `input` as [N, C], [N, C, d1, ...] or [C]
// (one unbatched sample) with classes along dim 1 (dim 0 for [C]).
#pragma once
#include <string>

#include "nabla/core/tensor.h"

namespace nabla {

inline constexpr int64_t kDefaultIgnoreIndex = -100;

// Cross entropy of logits. `target` is either class indices (int64, or int32
// which is converted; shape [N] / [N, d1, ...] / []) or class probabilities
// (a floating tensor of the input's shape). `weight`: one rescaling factor per
// class ([C]). With index targets, "mean" divides by the summed weights of the
// non-ignored targets; with probabilities, by the number of samples.
// label_smoothing in [0, 1] mixes the target with the uniform distribution.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     int64_t ignore_index = kDefaultIgnoreIndex, const std::string& reduction = "mean",
                     double label_smoothing = 0.0);

// Negative log likelihood of log-probabilities `input` at class indices `target`.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                int64_t ignore_index = kDefaultIgnoreIndex, const std::string& reduction = "mean");

// Regression losses: input and target must have the same shape.
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
// 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta == 0: l1_loss).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                      double beta = 1.0);
// 0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta); delta > 0.
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);

// Binary cross entropy of probabilities in [0, 1]; logs are clamped to >= -100.
// `weight` broadcasts to the input's shape.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                            const std::string& reduction = "mean");
// Binary cross entropy of logits (stable for any logit). `pos_weight`
// weighs the positive term and broadcasts along the last (class) dim.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                                        const std::string& reduction = "mean", const Tensor& pos_weight = Tensor());

// Kullback-Leibler divergence: `input` holds log-probabilities; `target`
// probabilities (or log-probabilities with log_target). reduction may also be
// "batchmean" (sum divided by the batch size, input.size(0)).
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);

}  // namespace nabla
