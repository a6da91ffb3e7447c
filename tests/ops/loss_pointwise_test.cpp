// OpInfo entries for the elementwise losses (mse, l1, smooth_l1, huber,
// binary_cross_entropy with and without logits, kl_div), for each reduction
// and optional weight. References compute the elementwise loss with <cmath>
// on host values, then reduce. Gradients are checked w.r.t. input and target
// (PyTorch differentiates both) and pos_weight.
#include <cmath>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

using PointLoss = std::function<double(const std::vector<double>&)>;  // (x, t, extras...) -> loss

// Reduces host losses like the op: "none" keeps `shape`; "batchmean" divides by shape[0].
Tensor reduce_ref(const std::vector<double>& l, const Shape& shape, const std::string& reduction) {
  if (reduction == "none") return from_values(l, shape);
  double total = 0;
  for (double v : l) total += v;
  if (reduction == "mean") total /= static_cast<double>(l.size());
  if (reduction == "batchmean" && !shape.empty()) total /= static_cast<double>(shape[0]);
  return from_values({total}, {});
}

// Evaluates f on every element, the inputs broadcast to the first one's shape.
Tensor pointwise_ref(const Tensors& in, const PointLoss& f, const std::string& reduction) {
  const Shape& shape = in[0].sizes();
  std::vector<std::vector<double>> v;
  for (const Tensor& t : in) v.push_back(values(t));
  std::vector<double> l;
  for (int64_t i = 0; i < in[0].numel(); ++i) {
    std::vector<int64_t> idx = unravel(i, shape);
    std::vector<double> args;
    for (std::size_t k = 0; k < in.size(); ++k) {
      const Shape& s = in[k].sizes();  // right-aligned broadcast index
      std::vector<int64_t> sub(s.size());
      for (std::size_t d = 0; d < s.size(); ++d) sub[d] = s[d] == 1 ? 0 : idx[d + shape.size() - s.size()];
      args.push_back(v[k][ravel(sub, s)]);
    }
    l.push_back(f(args));
  }
  return reduce_ref(l, shape, reduction);
}

struct Range {
  double lo, hi;
};

// One entry: samples [3, 4], [2, 3, 4] and [] with input in `x`, target in
// `t`, and the extra tensors (weights) of shape `extra` (broadcast to [.., 4]).
OpInfo pointwise(const std::string& name, const std::string& covers, std::function<Tensor(const Tensors&)> fn,
                 PointLoss ref, std::string reduction, Range x, Range t, std::vector<Shape> extra = {},
                 std::vector<int> grad_inputs = {0, 1}) {
  OpInfo info;
  info.name = name;
  info.covers = {covers};
  info.run = [fn](const Tensors& in) { return Tensors{fn(in)}; };
  info.samples = [x, t, extra] {
    std::vector<Tensors> out;
    uint64_t seed = 21;
    for (Shape shape : {Shape{3, 4}, Shape{2, 3, 4}, Shape{}}) {
      if (shape.empty() && !extra.empty()) continue;  // [4]-shaped weights don't broadcast to []
      Tensors s{sample(shape, x.lo, x.hi, seed), sample(shape, t.lo, t.hi, seed + 1)};
      for (const Shape& e : extra) s.push_back(sample(e, 0.3, 2.0, seed + 2 + s.size()));
      out.push_back(s);
      seed += 10;
    }
    return out;
  };
  info.reference = [ref, reduction](const Tensors& in) { return Tensors{pointwise_ref(in, ref, reduction)}; };
  info.grad_inputs = grad_inputs;
  return info;
}

const Range kAny{-2.0, 2.0}, kProb{0.05, 0.95}, kUnit{0.0, 1.0}, kPositive{0.1, 1.0}, kLogProb{-3.0, -0.1};

double smooth_l1(double d, double beta) {
  double a = std::abs(d);
  return beta == 0 ? a : a < beta ? 0.5 * d * d / beta : a - 0.5 * beta;
}
double huber(double d, double delta) {
  double a = std::abs(d);
  return a < delta ? 0.5 * d * d : delta * (a - 0.5 * delta);
}
double bce(double x, double t) {
  return -(t * std::max(std::log(x), -100.0) + (1 - t) * std::max(std::log1p(-x), -100.0));
}
// -(pw t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))), written independently of the op.
double bce_logits(double x, double t, double pw) {
  double log_sig = -std::log1p(std::exp(-std::abs(x))) + std::min(x, 0.0);    // log sigmoid(x)
  double log_1m_sig = -std::log1p(std::exp(-std::abs(x))) - std::max(x, 0.0);  // log sigmoid(-x)
  return -(pw * t * log_sig + (1 - t) * log_1m_sig);
}

std::string cat(const std::string& a, const std::string& r) { return r == "mean" ? a : a + "_" + r; }

// Registers one entry per reduction for mse/l1/smooth_l1/huber.
struct Regression {
  Regression(const std::string& loss, std::function<Tensor(const Tensor&, const Tensor&, const std::string&)> fn,
             std::function<double(double)> f) {
    for (std::string r : {"mean", "sum", "none"})
      op_infos().push_back(pointwise(
          cat(loss, r), loss, [fn, r](const Tensors& in) { return fn(in[0], in[1], r); },
          [f](const std::vector<double>& a) { return f(a[0] - a[1]); }, r, kAny, kAny));
  }
};

Regression mse_entries("mse_loss", [](auto& x, auto& t, auto& r) { return mse_loss(x, t, r); },
                       [](double d) { return d * d; });
Regression l1_entries("l1_loss", [](auto& x, auto& t, auto& r) { return l1_loss(x, t, r); },
                      [](double d) { return std::abs(d); });
Regression smooth_l1_entries("smooth_l1_loss", [](auto& x, auto& t, auto& r) { return smooth_l1_loss(x, t, r); },
                             [](double d) { return smooth_l1(d, 1.0); });
Regression huber_entries("huber_loss", [](auto& x, auto& t, auto& r) { return huber_loss(x, t, r); },
                         [](double d) { return huber(d, 1.0); });

NABLA_OP_INFO(pointwise(
    "smooth_l1_loss_beta_half_none", "smooth_l1_loss",
    [](const Tensors& in) { return smooth_l1_loss(in[0], in[1], "none", 0.5); },
    [](const std::vector<double>& a) { return smooth_l1(a[0] - a[1], 0.5); }, "none", kAny, kAny));
NABLA_OP_INFO(pointwise(
    "smooth_l1_loss_beta_0_sum", "smooth_l1_loss",
    [](const Tensors& in) { return smooth_l1_loss(in[0], in[1], "sum", 0.0); },
    [](const std::vector<double>& a) { return smooth_l1(a[0] - a[1], 0.0); }, "sum", kAny, kAny));
NABLA_OP_INFO(pointwise(
    "huber_loss_delta_07_none", "huber_loss",
    [](const Tensors& in) { return huber_loss(in[0], in[1], "none", 0.7); },
    [](const std::vector<double>& a) { return huber(a[0] - a[1], 0.7); }, "none", kAny, kAny));

// binary_cross_entropy (probabilities), soft targets in [0, 1]
struct Bce {
  Bce() {
    for (std::string r : {"mean", "sum", "none"})
      op_infos().push_back(pointwise(
          cat("binary_cross_entropy", r), "binary_cross_entropy",
          [r](const Tensors& in) { return binary_cross_entropy(in[0], in[1], Tensor(), r); },
          [](const std::vector<double>& a) { return bce(a[0], a[1]); }, r, kProb, kUnit));
    op_infos().push_back(pointwise(
        "binary_cross_entropy_weight", "binary_cross_entropy",
        [](const Tensors& in) { return binary_cross_entropy(in[0], in[1], in[2]); },
        [](const std::vector<double>& a) { return a[2] * bce(a[0], a[1]); }, "mean", kProb, kUnit, {Shape{4}}));
    op_infos().push_back(pointwise(
        "binary_cross_entropy_weight_none", "binary_cross_entropy",
        [](const Tensors& in) { return binary_cross_entropy(in[0], in[1], in[2], "none"); },
        [](const std::vector<double>& a) { return a[2] * bce(a[0], a[1]); }, "none", kProb, kUnit,
        {Shape{3, 1}}));
  }
} bce_entries;

// binary_cross_entropy_with_logits
struct BceLogits {
  BceLogits() {
    const std::string name = "binary_cross_entropy_with_logits";
    const Range logits{-4.0, 4.0};
    for (std::string r : {"mean", "sum", "none"})
      op_infos().push_back(pointwise(
          cat(name, r), name,
          [r](const Tensors& in) { return binary_cross_entropy_with_logits(in[0], in[1], Tensor(), r); },
          [](const std::vector<double>& a) { return bce_logits(a[0], a[1], 1.0); }, r, logits, kUnit));
    op_infos().push_back(pointwise(
        name + "_weight", name,
        [](const Tensors& in) { return binary_cross_entropy_with_logits(in[0], in[1], in[2]); },
        [](const std::vector<double>& a) { return a[2] * bce_logits(a[0], a[1], 1.0); }, "mean", logits, kUnit,
        {Shape{4}}));
    op_infos().push_back(pointwise(
        name + "_pos_weight", name,
        [](const Tensors& in) { return binary_cross_entropy_with_logits(in[0], in[1], Tensor(), "sum", in[2]); },
        [](const std::vector<double>& a) { return bce_logits(a[0], a[1], a[2]); }, "sum", logits, kUnit,
        {Shape{4}}, {0, 1, 2}));
    op_infos().push_back(pointwise(
        name + "_weight_pos_weight_none", name,
        [](const Tensors& in) { return binary_cross_entropy_with_logits(in[0], in[1], in[2], "none", in[3]); },
        [](const std::vector<double>& a) { return a[2] * bce_logits(a[0], a[1], a[3]); }, "none", logits, kUnit,
        {Shape{1, 4}, Shape{4}}));
  }
} bce_logits_entries;

// kl_div: input log-probabilities, target probabilities (or log-probabilities)
struct KlDiv {
  KlDiv() {
    for (std::string r : {"mean", "sum", "none", "batchmean"})
      op_infos().push_back(pointwise(
          cat("kl_div", r), "kl_div", [r](const Tensors& in) { return kl_div(in[0], in[1], r); },
          [](const std::vector<double>& a) { return a[1] * (std::log(a[1]) - a[0]); }, r, kLogProb, kPositive));
    op_infos().push_back(pointwise(
        "kl_div_log_target", "kl_div", [](const Tensors& in) { return kl_div(in[0], in[1], "batchmean", true); },
        [](const std::vector<double>& a) { return std::exp(a[1]) * (a[1] - a[0]); }, "batchmean", kLogProb,
        kLogProb));
  }
} kl_div_entries;

// A zero target contributes 0 (not 0 * log 0 = nan), with finite gradients.
NABLA_OP_INFO([] {
  OpInfo info = pointwise(
      "kl_div_zero_target", "kl_div", [](const Tensors& in) { return kl_div(in[0], in[1], "sum"); },
      [](const std::vector<double>& a) { return a[1] == 0 ? 0.0 : a[1] * (std::log(a[1]) - a[0]); }, "sum",
      kLogProb, kPositive);
  info.samples = [] {
    return std::vector<Tensors>{{sample({2, 3}, -3.0, -0.1, 5), tensor({{0.0, 0.5, 0.5}, {0.2, 0.0, 0.8}},
                                                                       dtype(kFloat64))}};
  };
  info.grad_inputs = {0};  // d/dt (t log t) is -inf at t = 0
  return info;
}());

}  // namespace
}  // namespace nabla::testing
