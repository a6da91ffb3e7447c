// OpInfo entries for the classification losses: cross_entropy (class indices
// and class probabilities) and nll_loss, for each reduction, with weights,
// ignore_index, label_smoothing, K-dimensional and unbatched inputs. The
// references loop over samples on host values in double, with their own
// log-sum-exp; gradients are checked w.r.t. the input (and the probabilities
// target, which PyTorch also differentiates).
#include <cmath>
#include <optional>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

struct ClassCase {
  std::string reduction = "mean";
  bool weighted = false;
  std::optional<int64_t> ignore_index;  // unset: the default -100, no ignored targets in the samples
  double smoothing = 0.0;
  bool probs = false;  // class-probability targets
  bool nll = false;    // nll_loss instead of cross_entropy
  bool int32_target = false;
};

Tensor index_tensor(const std::vector<int64_t>& v, IntList shape) { return tensor(v, shape); }

// Probabilities along `class_dim` of a seeded random tensor (host softmax).
Tensor random_probs(const Shape& shape, int64_t class_dim, uint64_t seed) {
  Tensor r = sample(IntList(shape.data(), shape.size()), -1.5, 1.5, seed);
  std::vector<double> v = values(r);
  std::vector<double> out(v.size());
  int64_t C = shape[class_dim], inner = 1;
  for (std::size_t d = class_dim + 1; d < shape.size(); ++d) inner *= shape[d];
  for (std::size_t base = 0; base < v.size(); ++base) {
    int64_t n = static_cast<int64_t>(base) / (C * inner), j = static_cast<int64_t>(base) % inner;
    int64_t c = (static_cast<int64_t>(base) / inner) % C;
    double total = 0;
    for (int64_t k = 0; k < C; ++k) total += std::exp(v[n * C * inner + k * inner + j]);
    out[base] = std::exp(v[n * C * inner + c * inner + j]) / total;
  }
  return from_values(out, shape);
}

// Samples: [4, 5], [3, 4, 2] (K-dim) and, without ignored targets, [5]
// (one unbatched sample). Targets hit the first and last class.
std::vector<Tensors> class_samples(const ClassCase& k) {
  const int64_t ign = k.ignore_index.value_or(-100);
  const bool ignoring = k.ignore_index.has_value();
  std::vector<std::pair<Shape, Tensor>> cases;
  cases.push_back({Shape{4, 5}, index_tensor({1, ignoring ? ign : 4, 0, 2}, {4})});
  cases.push_back({Shape{3, 4, 2}, index_tensor({0, 3, ignoring ? ign : 2, 1, 3, 0}, {3, 2})});
  if (!ignoring) cases.push_back({Shape{5}, index_tensor({3}, {})});
  std::vector<Tensors> out;
  uint64_t seed = 11;
  for (auto& [shape, t] : cases) {
    const int64_t C = shape.size() == 1 ? shape[0] : shape[1];
    Tensor x = sample(IntList(shape.data(), shape.size()), -3.0, 3.0, seed++);
    if (k.nll) x = x - 2.0;  // nll_loss reads any values; keep them log-probability-like
    Tensor target = k.probs ? random_probs(shape, shape.size() == 1 ? 0 : 1, seed++) : t;
    if (k.int32_target) target = target.to(kInt32);
    Tensors s{x, target};
    if (k.weighted) s.push_back(sample({C}, 0.2, 2.0, seed++));
    out.push_back(s);
  }
  return out;
}

// A host reference for every class case: per sample, a log-sum-exp in
// double, then the terms PyTorch documents.
Tensors class_reference(const ClassCase& k, const Tensors& in) {
  const Tensor& xt = in[0];
  std::vector<double> x = values(xt), t = values(in[1]);
  std::vector<double> w = k.weighted ? values(in[2]) : std::vector<double>();
  const bool unbatched = xt.dim() == 1;
  const int64_t N = unbatched ? 1 : xt.size(0), C = unbatched ? xt.size(0) : xt.size(1);
  int64_t inner = 1;
  for (int64_t d = 2; d < xt.dim(); ++d) inner *= xt.size(d);
  const int64_t ign = k.ignore_index.value_or(-100);
  auto weight = [&](int64_t c) { return k.weighted ? w[c] : 1.0; };
  std::vector<double> losses;
  double total = 0, denom = 0;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t j = 0; j < inner; ++j) {
      auto at = [&](int64_t c) { return n * C * inner + c * inner + j; };
      double loss = 0;
      if (k.nll) {
        int64_t tc = static_cast<int64_t>(t[n * inner + j]);
        if (tc != ign) {
          loss = -weight(tc) * x[at(tc)];
          denom += weight(tc);
        }
      } else {
        double m = -INFINITY, se = 0;
        for (int64_t c = 0; c < C; ++c) m = std::max(m, x[at(c)]);
        for (int64_t c = 0; c < C; ++c) se += std::exp(x[at(c)] - m);
        double lse = m + std::log(se);
        if (k.probs) {
          for (int64_t c = 0; c < C; ++c) {
            double target = t[at(c)] * (1 - k.smoothing) + k.smoothing / C;
            loss -= weight(c) * target * (x[at(c)] - lse);
          }
          denom += 1;
        } else {
          int64_t tc = static_cast<int64_t>(t[n * inner + j]);
          if (tc != ign) {
            loss = -(1 - k.smoothing) * weight(tc) * (x[at(tc)] - lse);
            for (int64_t c = 0; c < C; ++c) loss -= k.smoothing / C * weight(c) * (x[at(c)] - lse);
            denom += weight(tc);
          }
        }
      }
      losses.push_back(loss);
      total += loss;
    }
  }
  if (k.reduction == "sum") return {from_values({total}, {})};
  if (k.reduction == "mean") return {from_values({total / denom}, {})};
  Shape per_sample;  // the input's shape without the class dim
  for (int64_t d = 0; d < xt.dim(); ++d)
    if (d != (unbatched ? 0 : 1)) per_sample.push_back(xt.size(d));
  return {from_values(losses, per_sample)};
}

OpInfo class_entry(const std::string& name, const ClassCase& k) {
  OpInfo info;
  info.name = name;
  info.covers = {k.nll ? "nll_loss" : k.probs ? "cross_entropy_probs" : "cross_entropy"};
  info.run = [k](const Tensors& in) {
    Tensor w = k.weighted ? in[2] : Tensor();
    int64_t ign = k.ignore_index.value_or(-100);
    if (k.nll) return Tensors{nll_loss(in[0], in[1], w, ign, k.reduction)};
    return Tensors{cross_entropy(in[0], in[1], w, ign, k.reduction, k.smoothing)};
  };
  info.samples = [k] { return class_samples(k); };
  info.reference = [k](const Tensors& in) { return class_reference(k, in); };
  // The input; with probabilities the target too (PyTorch differentiates it).
  info.grad_inputs = k.probs ? std::vector<int>{0, 1} : std::vector<int>{0};
  return info;
}

ClassCase with(ClassCase k, const std::string& reduction) {
  k.reduction = reduction;
  return k;
}

// cross_entropy, class indices
NABLA_OP_INFO(class_entry("cross_entropy", {}));
NABLA_OP_INFO(class_entry("cross_entropy_sum", with({}, "sum")));
NABLA_OP_INFO(class_entry("cross_entropy_none", with({}, "none")));
NABLA_OP_INFO(class_entry("cross_entropy_weight", {.weighted = true}));
NABLA_OP_INFO(class_entry("cross_entropy_weight_none", {.reduction = "none", .weighted = true}));
NABLA_OP_INFO(class_entry("cross_entropy_ignore_index", {.ignore_index = -100}));
NABLA_OP_INFO(class_entry("cross_entropy_ignore_index_in_range", {.weighted = true, .ignore_index = 2}));
NABLA_OP_INFO(class_entry("cross_entropy_ignore_index_none", {.reduction = "none", .ignore_index = -1}));
NABLA_OP_INFO(class_entry("cross_entropy_label_smoothing", {.smoothing = 0.2}));
NABLA_OP_INFO(class_entry("cross_entropy_label_smoothing_weight_ignore",
                          {.weighted = true, .ignore_index = -100, .smoothing = 0.3}));
NABLA_OP_INFO(class_entry("cross_entropy_label_smoothing_sum", {.reduction = "sum", .weighted = true, .smoothing = 0.1}));
NABLA_OP_INFO(class_entry("cross_entropy_label_smoothing_none", {.reduction = "none", .smoothing = 0.25}));
NABLA_OP_INFO(class_entry("cross_entropy_int32_target", {.int32_target = true}));
// cross_entropy, class probabilities
NABLA_OP_INFO(class_entry("cross_entropy_probs", {.probs = true}));
NABLA_OP_INFO(class_entry("cross_entropy_probs_sum", {.reduction = "sum", .probs = true}));
NABLA_OP_INFO(class_entry("cross_entropy_probs_none", {.reduction = "none", .probs = true}));
NABLA_OP_INFO(class_entry("cross_entropy_probs_weight_smoothing", {.weighted = true, .smoothing = 0.2, .probs = true}));
// nll_loss
NABLA_OP_INFO(class_entry("nll_loss", {.nll = true}));
NABLA_OP_INFO(class_entry("nll_loss_sum", {.reduction = "sum", .nll = true}));
NABLA_OP_INFO(class_entry("nll_loss_none", {.reduction = "none", .nll = true}));
NABLA_OP_INFO(class_entry("nll_loss_weight_ignore_index", {.weighted = true, .ignore_index = -100, .nll = true}));
NABLA_OP_INFO(class_entry("nll_loss_weight_none", {.reduction = "none", .weighted = true, .nll = true}));
NABLA_OP_INFO(class_entry("nll_loss_int32_target", {.nll = true, .int32_target = true}));

}  // namespace
}  // namespace nabla::testing
