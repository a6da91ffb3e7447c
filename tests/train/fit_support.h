// Small problems and helper callbacks/metrics for the tests of train::Trainer.
#pragma once
#include <map>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::train::testing {

// 3-class data that a linear model separates: y = argmax(x W).
struct Problem {
  Tensor x, y;
};
inline Problem linear_problem(int64_t n, uint64_t seed = 1) {
  manual_seed(seed);
  Tensor x = randn({n, 4});
  Tensor w = tensor({{1., -1., 0.}, {0., 1., -1.}, {-1., 0., 1.}, {0.5, 0.5, -0.5}});
  return {x, matmul(x, w).argmax(1)};
}

inline Trainer linear_trainer(double lr = 0.1, std::vector<MetricSpec> metrics = {"accuracy"}) {
  nn::ModulePtr model = std::make_shared<nn::Linear>(4, 3);
  auto sgd = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", lr}});
  return Trainer(model, {.optimizer = sgd, .metrics = std::move(metrics)});
}

// A metric whose value at the e-th epoch (counted by resets) is values[e]:
// drives the callbacks that watch a value through a chosen sequence.
class ScriptedMetric : public Metric {
 public:
  ScriptedMetric(std::string name, std::vector<double> values) : name_(std::move(name)), values_(std::move(values)) {}
  std::string name() const override { return name_; }
  void reset() override { ++resets_; }
  void update(const Tensor&, const Tensor&) override {}
  double result() const override {
    return values_.at(
        static_cast<std::size_t>(std::min<int64_t>(resets_ - 1, static_cast<int64_t>(values_.size()) - 1)));
  }

 private:
  std::string name_;
  std::vector<double> values_;
  int64_t resets_ = 0;
};

// Copies the model's state at each epoch's end (before later callbacks run).
class WeightRecorder : public Callback {
 public:
  void on_epoch_end(int epoch, const Logs&) override {
    nn::StateDict copy;
    for (const auto& [k, t] : trainer().model().state_dict()) copy.insert(k, t.detach().clone());
    at[epoch] = copy;
  }
  void on_train_batch_end(int64_t, const Logs&) override { ++batches; }
  std::map<int, nn::StateDict> at;
  int64_t batches = 0;
};

inline bool same_weights(const nn::StateDict& a, const nn::StateDict& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, t] : a)
    if (!equal(t, b.at(k))) return false;
  return true;
}

}  // namespace nabla::train::testing
