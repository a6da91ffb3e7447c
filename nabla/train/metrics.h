// Streaming metrics for fit() and evaluate() (Keras metrics, torchmetrics):
// reset() at the start of an epoch, update() after each batch with the
// model's output and the targets, result() whenever a value is wanted (after
// every batch for the progress bar, at the epoch's end for the History).
//
//   Mean                  a weighted mean of numbers (fit() tracks the loss with it,
//                         weighted by batch size, as Keras does)
//   Accuracy              fraction of samples whose argmax(output, 1) equals the
//                         target; ties go to the first maximum (torch.argmax)
//   TopKAccuracy(k)       fraction of samples whose target's score is among the k
//                         largest: fewer than k classes score strictly higher
//                         (tf.math.in_top_k: tied classes at the boundary all count)
//   Precision, Recall, F1 macro averages over classes (torchmetrics, average="macro")
//   ConfusionMatrix       counts [num_classes x num_classes]: row = target, column = prediction
//
// Classification metrics take scores [N, C] (logits or probabilities: only
// their order matters) and integer class indices [N] in [0, C). Macro averages
// (torchmetrics' convention) are over the classes that appear, in the targets
// or in the predictions: a class with no true positive, false positive and
// false negative is left out rather than counted as 0. Within a class,
// a zero denominator gives 0 (torchmetrics' and scikit-learn's zero_division=0):
// precision = tp / (tp + fp), recall = tp / (tp + fn), F1 = 2 tp / (2 tp + fp + fn)
// (the mean of per-class F1, not the F1 of macro precision and recall). With
// no sample yet, every result() is 0.
//
// A backup of a run (BackupAndRestore) saved in the middle of an epoch keeps
// each metric's running values through state_dict() / load_state_dict(); the
// built-in metrics have them, a user metric overrides them to be resumable
// mid-epoch (the defaults raise nabla::Error saying so).
//
// A user metric derives from Metric; make_metric() knows the names above
// ("accuracy", "top_5_accuracy", "precision", "recall", "f1").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/nn/state_dict.h"

namespace nabla::train {

class Metric {
 public:
  virtual ~Metric() = default;
  // The key of the metric in logs and History ("accuracy"; "val_accuracy" for validation).
  virtual std::string name() const = 0;
  virtual void reset() = 0;
  // One batch: the model's output and the targets (both detached, on the model's device).
  virtual void update(const Tensor& output, const Tensor& target) = 0;
  virtual double result() const = 0;
  // The running values (state.h's numbers and tensors), and back.
  virtual nn::StateDict state_dict() const;
  virtual void load_state_dict(const nn::StateDict& state);
};
using MetricPtr = std::shared_ptr<Metric>;

// A weighted mean of numbers; update(output, target) is refused (use add()).
class Mean : public Metric {
 public:
  explicit Mean(std::string name = "mean") : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void reset() override { sum_ = weight_ = 0; }
  void update(const Tensor& output, const Tensor& target) override;
  void add(double value, double weight = 1);
  double result() const override { return weight_ > 0 ? sum_ / weight_ : 0; }
  double total_weight() const { return weight_; }  // the weights added since reset()
  nn::StateDict state_dict() const override;
  void load_state_dict(const nn::StateDict& state) override;

 private:
  std::string name_;
  double sum_ = 0, weight_ = 0;
};

class Accuracy : public Metric {
 public:
  std::string name() const override { return "accuracy"; }
  void reset() override { correct_ = seen_ = 0; }
  void update(const Tensor& output, const Tensor& target) override;
  double result() const override;
  nn::StateDict state_dict() const override;
  void load_state_dict(const nn::StateDict& state) override;

 private:
  int64_t correct_ = 0, seen_ = 0;
};

class TopKAccuracy : public Metric {
 public:
  explicit TopKAccuracy(int64_t k = 5);
  std::string name() const override { return "top_" + std::to_string(k_) + "_accuracy"; }
  void reset() override { correct_ = seen_ = 0; }
  void update(const Tensor& output, const Tensor& target) override;
  double result() const override;
  nn::StateDict state_dict() const override;
  void load_state_dict(const nn::StateDict& state) override;

 private:
  int64_t k_, correct_ = 0, seen_ = 0;
};

// Counts of (target, prediction) pairs; num_classes 0 takes it from the first
// batch's output (its dim 1) and refuses a later batch with another.
class ConfusionMatrix {
 public:
  explicit ConfusionMatrix(int64_t num_classes = 0) : num_classes_(num_classes) {}
  void reset();
  void update(const Tensor& output, const Tensor& target, const char* api = "ConfusionMatrix");
  int64_t num_classes() const { return num_classes_; }
  // counts()[t * num_classes() + p]: samples of class t predicted as p.
  const std::vector<int64_t>& counts() const { return counts_; }
  int64_t at(int64_t target, int64_t prediction) const;
  // The matrix as an int64 tensor [num_classes, num_classes].
  Tensor matrix() const;
  nn::StateDict state_dict() const;
  void load_state_dict(const nn::StateDict& state, const char* api = "ConfusionMatrix");

 private:
  int64_t num_classes_;
  std::vector<int64_t> counts_;
};

// Precision, recall and F1 (macro) from a ConfusionMatrix; see the top of the file.
class ClassificationMetric : public Metric {
 public:
  enum class Kind { Precision, Recall, F1 };
  explicit ClassificationMetric(Kind kind, int64_t num_classes = 0) : kind_(kind), matrix_(num_classes) {}
  std::string name() const override;
  void reset() override { matrix_.reset(); }
  void update(const Tensor& output, const Tensor& target) override;
  double result() const override;
  nn::StateDict state_dict() const override { return matrix_.state_dict(); }
  void load_state_dict(const nn::StateDict& state) override { matrix_.load_state_dict(state, name().c_str()); }
  const ConfusionMatrix& confusion_matrix() const { return matrix_; }

 private:
  Kind kind_;
  ConfusionMatrix matrix_;
};

MetricPtr precision(int64_t num_classes = 0);
MetricPtr recall(int64_t num_classes = 0);
MetricPtr f1(int64_t num_classes = 0);

// "accuracy" (also "acc"), "top_K_accuracy" (K >= 1), "precision", "recall",
// "f1"; anything else raises nabla::Error listing the names.
MetricPtr make_metric(const std::string& name);

}  // namespace nabla::train
