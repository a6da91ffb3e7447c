// Loss modules: argument checks at construction, then the fused loss ops.
#include "nabla/nn/loss.h"

namespace nabla::nn {

Loss::Loss(const char* api, std::string r, bool allow_batchmean) : reduction(std::move(r)) {
  bool ok =
      reduction == "none" || reduction == "mean" || reduction == "sum" || (allow_batchmean && reduction == "batchmean");
  NABLA_CHECK(ok, api, ": reduction must be 'none', 'mean', 'sum'", allow_batchmean ? " or 'batchmean'" : "", ", got '",
              reduction, "'");
}

Tensor Loss::forward(const Tensor&) {
  NABLA_CHECK(false, name(),
              "::forward: a loss takes two tensors; call forward(input, target) or (*loss)(input, target)");
  return {};
}

std::string Loss::extra_repr() const { return reduction == "mean" ? "" : "reduction=" + reduction; }

Tensor Loss::optional_buffer(const char* buffer_name, const Tensor& t) {
  return t.defined() ? register_buffer(buffer_name, t) : Tensor();
}

// extra_repr with one more argument shown when it differs from its default.
static std::string with(const std::string& base, bool show, const std::string& arg) {
  if (!show) return base;
  return base.empty() ? arg : base + ", " + arg;
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) { return mse_loss(input, target, reduction); }
Tensor L1Loss::forward(const Tensor& input, const Tensor& target) { return l1_loss(input, target, reduction); }

SmoothL1Loss::SmoothL1Loss(std::string r, double beta) : Loss("nn::SmoothL1Loss", std::move(r)), beta(beta) {
  NABLA_CHECK(beta >= 0, "nn::SmoothL1Loss: beta must be non-negative, got ", beta);
}
Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  return smooth_l1_loss(input, target, reduction, beta);
}
std::string SmoothL1Loss::extra_repr() const {
  return with(Loss::extra_repr(), beta != 1.0, detail::concat("beta=", beta));
}

HuberLoss::HuberLoss(std::string r, double delta) : Loss("nn::HuberLoss", std::move(r)), delta(delta) {
  NABLA_CHECK(delta > 0, "nn::HuberLoss: delta must be positive, got ", delta);
}
Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) {
  return huber_loss(input, target, reduction, delta);
}
std::string HuberLoss::extra_repr() const {
  return with(Loss::extra_repr(), delta != 1.0, detail::concat("delta=", delta));
}

static void check_class_weight(const char* api, const Tensor& w) {
  NABLA_CHECK(!w.defined() || (w.dim() == 1 && w.is_floating_point()), api,
              ": weight must be a 1-D floating tensor with one entry per class, got ",
              w.defined() ? detail::concat("shape ", w.sizes(), " of dtype ", w.dtype()) : std::string());
}

CrossEntropyLoss::CrossEntropyLoss(const Tensor& w, int64_t ignore, std::string r, double smoothing)
    : Loss("nn::CrossEntropyLoss", std::move(r)), ignore_index(ignore), label_smoothing(smoothing) {
  check_class_weight("nn::CrossEntropyLoss", w);
  NABLA_CHECK(smoothing >= 0.0 && smoothing <= 1.0, "nn::CrossEntropyLoss: label_smoothing must be in [0, 1], got ",
              smoothing);
  weight = optional_buffer("weight", w);
}
Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing);
}
std::string CrossEntropyLoss::extra_repr() const {
  std::string s =
      with(Loss::extra_repr(), ignore_index != kDefaultIgnoreIndex, detail::concat("ignore_index=", ignore_index));
  return with(s, label_smoothing != 0.0, detail::concat("label_smoothing=", label_smoothing));
}

NLLLoss::NLLLoss(const Tensor& w, int64_t ignore, std::string r)
    : Loss("nn::NLLLoss", std::move(r)), ignore_index(ignore) {
  check_class_weight("nn::NLLLoss", w);
  weight = optional_buffer("weight", w);
}
Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return nll_loss(input, target, weight, ignore_index, reduction);
}
std::string NLLLoss::extra_repr() const {
  return with(Loss::extra_repr(), ignore_index != kDefaultIgnoreIndex, detail::concat("ignore_index=", ignore_index));
}

BCELoss::BCELoss(const Tensor& w, std::string r) : Loss("nn::BCELoss", std::move(r)) {
  weight = optional_buffer("weight", w);
}
Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  return binary_cross_entropy(input, target, weight, reduction);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(const Tensor& w, std::string r, const Tensor& pw)
    : Loss("nn::BCEWithLogitsLoss", std::move(r)) {
  weight = optional_buffer("weight", w);
  pos_weight = optional_buffer("pos_weight", pw);
}
Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight);
}

KLDivLoss::KLDivLoss(std::string r, bool log_target)
    : Loss("nn::KLDivLoss", std::move(r), true), log_target(log_target) {}
Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) {
  return kl_div(input, target, reduction, log_target);
}
std::string KLDivLoss::extra_repr() const { return with(Loss::extra_repr(), log_target, "log_target=true"); }

}  // namespace nabla::nn
