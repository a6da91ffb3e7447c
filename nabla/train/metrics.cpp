// See metrics.h. Reductions run on the output's device; only counts come back.
#include "nabla/train/metrics.h"

#include <cmath>

#include "nabla/core/error.h"
#include "nabla/core/grad_mode.h"
#include "nabla/ops/ops.h"
#include "nabla/train/state.h"

namespace nabla::train {
namespace {

// Scores [N, C] and targets [N] of integer class indices, or an Error naming `api`.
void check_classification(const Tensor& output, const Tensor& target, const std::string& api) {
  NABLA_CHECK(output.defined() && target.defined(), api, ": needs an output and a target (got ",
              output.defined() ? "no target" : "no output", ")");
  NABLA_CHECK(output.dim() == 2, api, ": expected class scores [N, C], got shape ", output.sizes());
  NABLA_CHECK(target.dim() == 1 && target.size(0) == output.size(0), api, ": expected targets [", output.size(0),
              "] (one class index per sample), got shape ", target.sizes());
  NABLA_CHECK(is_integral(target.dtype()), api, ": expected integer class indices as targets, got ", target.dtype());
}

// The targets on the CPU as int64, each checked to lie in [0, classes).
Tensor cpu_classes(const Tensor& t, int64_t classes, const std::string& api) {
  Tensor c = t.to(kCPU).to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  for (int64_t i = 0; i < c.numel(); ++i)
    NABLA_CHECK(p[i] >= 0 && p[i] < classes, api, ": target ", p[i], " (sample ", i, ") is not a class index in [0, ",
                classes, ")");
  return c;
}

}  // namespace

nn::StateDict Metric::state_dict() const {
  fail("Metric '", name(), "': state_dict() is not implemented, so a backup (BackupAndRestore) cannot save its ",
       "running value in the middle of an epoch; override state_dict() and load_state_dict(), or back up at epoch ",
       "ends only");
}

void Metric::load_state_dict(const nn::StateDict&) {
  fail("Metric '", name(), "': load_state_dict() is not implemented (see Metric::state_dict)");
}

nn::StateDict Mean::state_dict() const { return {{"sum", state_number(sum_)}, {"weight", state_number(weight_)}}; }

void Mean::load_state_dict(const nn::StateDict& state) {
  const std::string api = "Mean '" + name_ + "'";
  sum_ = state_number(state, "sum", api.c_str());
  weight_ = state_number(state, "weight", api.c_str());
}

nn::StateDict Accuracy::state_dict() const {
  return {{"correct", state_number(static_cast<double>(correct_))}, {"seen", state_number(static_cast<double>(seen_))}};
}

void Accuracy::load_state_dict(const nn::StateDict& state) {
  correct_ = static_cast<int64_t>(state_number(state, "correct", "Accuracy"));
  seen_ = static_cast<int64_t>(state_number(state, "seen", "Accuracy"));
}

nn::StateDict TopKAccuracy::state_dict() const {
  return {{"correct", state_number(static_cast<double>(correct_))}, {"seen", state_number(static_cast<double>(seen_))}};
}

void TopKAccuracy::load_state_dict(const nn::StateDict& state) {
  const std::string api = name();
  correct_ = static_cast<int64_t>(state_number(state, "correct", api.c_str()));
  seen_ = static_cast<int64_t>(state_number(state, "seen", api.c_str()));
}

void Mean::update(const Tensor&, const Tensor&) {
  fail("Mean::update: a Mean takes numbers through add(value, weight), not (output, target)");
}

void Mean::add(double value, double weight) {
  NABLA_CHECK(weight >= 0, "Mean::add: weight must be >= 0, got ", weight);
  sum_ += value * weight;
  weight_ += weight;
}

void Accuracy::update(const Tensor& output, const Tensor& target) {
  check_classification(output, target, "Accuracy");
  NoGradGuard no_grad;
  correct_ += output.argmax(1).eq(target.to(kInt64)).sum().item<int64_t>();
  seen_ += output.size(0);
}

double Accuracy::result() const { return seen_ > 0 ? static_cast<double>(correct_) / static_cast<double>(seen_) : 0; }

TopKAccuracy::TopKAccuracy(int64_t k) : k_(k) { NABLA_CHECK(k >= 1, "TopKAccuracy: k must be >= 1, got ", k); }

void TopKAccuracy::update(const Tensor& output, const Tensor& target) {
  const std::string api = name();
  check_classification(output, target, api);
  NoGradGuard no_grad;
  cpu_classes(target, output.size(1), api);
  Tensor idx = target.to(kInt64).unsqueeze(1);
  Tensor own = output.gather(1, idx);                           // the target's score, [N, 1]
  Tensor higher = output.gt(own).sum(std::vector<int64_t>{1});  // classes scoring strictly higher
  correct_ += higher.lt(k_).sum().item<int64_t>();
  seen_ += output.size(0);
}

double TopKAccuracy::result() const {
  return seen_ > 0 ? static_cast<double>(correct_) / static_cast<double>(seen_) : 0;
}

void ConfusionMatrix::reset() { std::fill(counts_.begin(), counts_.end(), 0); }

void ConfusionMatrix::update(const Tensor& output, const Tensor& target, const char* api) {
  check_classification(output, target, api);
  const int64_t classes = output.size(1);
  if (num_classes_ == 0) num_classes_ = classes;
  NABLA_CHECK(classes == num_classes_, api, ": the output has ", classes, " classes (dim 1), expected ", num_classes_);
  if (counts_.empty()) counts_.assign(static_cast<std::size_t>(num_classes_ * num_classes_), 0);
  NoGradGuard no_grad;
  Tensor t = cpu_classes(target, classes, api);
  Tensor p = output.argmax(1).to(kCPU).to(kInt64).contiguous();
  const int64_t *tp = t.data_ptr<int64_t>(), *pp = p.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) ++counts_[static_cast<std::size_t>(tp[i] * num_classes_ + pp[i])];
}

int64_t ConfusionMatrix::at(int64_t target, int64_t prediction) const {
  NABLA_CHECK(target >= 0 && target < num_classes_ && prediction >= 0 && prediction < num_classes_,
              "ConfusionMatrix::at: (", target, ", ", prediction, ") is outside [0, ", num_classes_, ")^2");
  return counts_.empty() ? 0 : counts_[static_cast<std::size_t>(target * num_classes_ + prediction)];
}

nn::StateDict ConfusionMatrix::state_dict() const {
  return {{"num_classes", state_number(static_cast<double>(num_classes_))},
          {"counts", tensor(counts_, {static_cast<int64_t>(counts_.size())})}};
}

void ConfusionMatrix::load_state_dict(const nn::StateDict& state, const char* api) {
  const auto classes = static_cast<int64_t>(state_number(state, "num_classes", api));
  NABLA_CHECK(state.contains("counts"), api, ": the saved state has no entry 'counts'");
  Tensor counts = state.at("counts").to(kCPU).contiguous();
  NABLA_CHECK(counts.dtype() == kInt64 && counts.dim() == 1 &&
                  (counts.numel() == 0 || counts.numel() == classes * classes),
              api, ": the saved counts should be int64 [0] or [", classes * classes, "], got ", counts.dtype(), " ",
              counts.sizes());
  NABLA_CHECK(num_classes_ == 0 || num_classes_ == classes, api, ": the saved state has ", classes,
              " classes, expected ", num_classes_);
  num_classes_ = classes;
  counts_.assign(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + counts.numel());
}

Tensor ConfusionMatrix::matrix() const {
  std::vector<int64_t> c = counts_;
  c.resize(static_cast<std::size_t>(num_classes_ * num_classes_), 0);
  return tensor(c, {num_classes_, num_classes_});
}

std::string ClassificationMetric::name() const {
  switch (kind_) {
    case Kind::Precision:
      return "precision";
    case Kind::Recall:
      return "recall";
    case Kind::F1:
      return "f1";
  }
  return "?";
}

void ClassificationMetric::update(const Tensor& output, const Tensor& target) {
  const std::string api = name() == "f1" ? "F1" : name() == "recall" ? "Recall" : "Precision";
  matrix_.update(output, target, api.c_str());
}

double ClassificationMetric::result() const {
  const int64_t C = matrix_.num_classes();
  const std::vector<int64_t>& m = matrix_.counts();
  if (m.empty()) return 0;
  double total = 0;
  int64_t present = 0;
  for (int64_t c = 0; c < C; ++c) {
    int64_t tp = m[static_cast<std::size_t>(c * C + c)], fp = 0, fn = 0;
    for (int64_t o = 0; o < C; ++o) {
      if (o == c) continue;
      fp += m[static_cast<std::size_t>(o * C + c)];  // predicted c, was o
      fn += m[static_cast<std::size_t>(c * C + o)];  // was c, predicted o
    }
    if (tp + fp + fn == 0) continue;  // the class appears nowhere: left out of the average
    ++present;
    auto ratio = [](int64_t num, int64_t den) {
      return den > 0 ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
    };
    switch (kind_) {
      case Kind::Precision:
        total += ratio(tp, tp + fp);
        break;
      case Kind::Recall:
        total += ratio(tp, tp + fn);
        break;
      case Kind::F1:
        total += ratio(2 * tp, 2 * tp + fp + fn);
        break;
    }
  }
  return present > 0 ? total / static_cast<double>(present) : 0;
}

MetricPtr precision(int64_t n) {
  return std::make_shared<ClassificationMetric>(ClassificationMetric::Kind::Precision, n);
}
MetricPtr recall(int64_t n) { return std::make_shared<ClassificationMetric>(ClassificationMetric::Kind::Recall, n); }
MetricPtr f1(int64_t n) { return std::make_shared<ClassificationMetric>(ClassificationMetric::Kind::F1, n); }

MetricPtr make_metric(const std::string& name) {
  if (name == "accuracy" || name == "acc") return std::make_shared<Accuracy>();
  if (name == "precision") return precision();
  if (name == "recall") return recall();
  if (name == "f1") return f1();
  const std::string pre = "top_", post = "_accuracy";
  if (name.size() > pre.size() + post.size() && name.starts_with(pre) && name.ends_with(post)) {
    std::string k = name.substr(pre.size(), name.size() - pre.size() - post.size());
    if (k.find_first_not_of("0123456789") == std::string::npos && k.size() < 9 && std::stoll(k) >= 1)
      return std::make_shared<TopKAccuracy>(std::stoll(k));
  }
  fail("make_metric: unknown metric '", name, "', expected one of: accuracy, top_K_accuracy (K >= 1), precision, ",
       "recall, f1 (or a train::Metric of your own)");
}

}  // namespace nabla::train
