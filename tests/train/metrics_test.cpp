// train::Metric values against hand-computed ones: ties, classes that never
// appear, zero denominators, streaming over batches, bad input.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "support/error_message.h"

namespace nabla::train {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;

// One-hot scores [N, C] whose argmax is `predicted`.
Tensor scores_for(const std::vector<int64_t>& predicted, int64_t classes) {
  std::vector<float> v(predicted.size() * static_cast<std::size_t>(classes), 0.0f);
  for (std::size_t i = 0; i < predicted.size(); ++i) v[i * static_cast<std::size_t>(classes) + predicted[i]] = 1.0f;
  return tensor(v, {static_cast<int64_t>(predicted.size()), classes});
}

Tensor labels(const std::vector<int64_t>& v) { return tensor(v); }

TEST(TrainMetrics, AccuracyTakesTheFirstMaximumOnTiesAndStreams) {
  Accuracy acc;
  EXPECT_EQ(acc.result(), 0.0);  // no sample yet
  // argmax: 1, 0, 0 (tie: the first), 2 -> 3 of 4 right.
  acc.update(tensor({{1., 2., 0.}, {3., 1., 0.}}), labels({1, 0}));
  acc.update(tensor({{1., 1., 0.}, {0., 0., 5.}}), labels({1, 2}));
  EXPECT_DOUBLE_EQ(acc.result(), 0.75);
  acc.reset();
  EXPECT_EQ(acc.result(), 0.0);
}

TEST(TrainMetrics, TopKCountsTiesAtTheBoundaryAsInTheTopK) {
  TopKAccuracy top2(2);
  EXPECT_EQ(top2.name(), "top_2_accuracy");
  // Row 0: two classes score higher than the target -> out. Row 1: all tied -> in.
  // Row 2: one class scores higher -> in.
  top2.update(tensor({{0.1, 0.5, 0.4}, {0.3, 0.3, 0.3}, {0.6, 0.2, 0.2}}), labels({0, 2, 1}));
  EXPECT_DOUBLE_EQ(top2.result(), 2.0 / 3.0);
  // k = 1 differs from Accuracy on a tie: nothing scores higher than the target.
  TopKAccuracy top1(1);
  Accuracy acc;
  top1.update(tensor({{0.5, 0.5}}), labels({1}));
  acc.update(tensor({{0.5, 0.5}}), labels({1}));
  EXPECT_EQ(top1.result(), 1.0);
  EXPECT_EQ(acc.result(), 0.0);
}

TEST(TrainMetrics, ConfusionMatrixCountsTargetRowsAndPredictionColumns) {
  ConfusionMatrix cm(4);
  cm.update(scores_for({0, 1, 1}, 4), labels({0, 0, 1}));
  cm.update(scores_for({2, 0, 2}, 4), labels({2, 2, 2}));
  EXPECT_EQ(cm.at(0, 0), 1);
  EXPECT_EQ(cm.at(0, 1), 1);
  EXPECT_EQ(cm.at(1, 1), 1);
  EXPECT_EQ(cm.at(2, 2), 2);
  EXPECT_EQ(cm.at(2, 0), 1);
  EXPECT_EQ(cm.at(3, 3), 0);
  Tensor m = cm.matrix();
  EXPECT_EQ(m.sizes(), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(m.sum().item<int64_t>(), 6);
  EXPECT_EQ(m.dtype(), kInt64);
}

TEST(TrainMetrics, MacroAveragesLeaveOutClassesThatNeverAppear) {
  // targets 0 0 1 2 2 2, predictions 0 1 1 2 0 2, 4 classes (class 3 appears nowhere).
  // class 0: tp 1 fp 1 fn 1 -> P 1/2 R 1/2 F1 2/4
  // class 1: tp 1 fp 1 fn 0 -> P 1/2 R 1   F1 2/3
  // class 2: tp 2 fp 0 fn 1 -> P 1   R 2/3 F1 4/5
  Tensor out = scores_for({0, 1, 1, 2, 0, 2}, 4);
  Tensor y = labels({0, 0, 1, 2, 2, 2});
  MetricPtr p = precision(), r = recall(), f = f1();
  for (const MetricPtr& m : {p, r, f}) {
    m->update(out.narrow(0, 0, 4), y.narrow(0, 0, 4));  // two batches: the same as one
    m->update(out.narrow(0, 4, 2), y.narrow(0, 4, 2));
  }
  EXPECT_NEAR(p->result(), (0.5 + 0.5 + 1.0) / 3, 1e-12);
  EXPECT_NEAR(r->result(), (0.5 + 1.0 + 2.0 / 3) / 3, 1e-12);
  EXPECT_NEAR(f->result(), (0.5 + 2.0 / 3 + 0.8) / 3, 1e-12);
}

TEST(TrainMetrics, ZeroDenominatorsCountAsZero) {
  // targets 0 1, predictions 0 0: class 1 is never predicted (precision 0/0 -> 0).
  Tensor out = scores_for({0, 0}, 2);
  Tensor y = labels({0, 1});
  MetricPtr p = precision(), r = recall(), f = f1();
  for (const MetricPtr& m : {p, r, f}) m->update(out, y);
  EXPECT_NEAR(p->result(), (0.5 + 0.0) / 2, 1e-12);
  EXPECT_NEAR(r->result(), (1.0 + 0.0) / 2, 1e-12);
  EXPECT_NEAR(f->result(), (2.0 / 3 + 0.0) / 2, 1e-12);
  EXPECT_EQ(precision()->result(), 0.0);  // no sample yet
}

TEST(TrainMetrics, MeanIsWeighted) {
  Mean m("loss");
  m.add(1.0, 3);
  m.add(3.0, 1);
  EXPECT_DOUBLE_EQ(m.result(), 1.5);
  expect_error(error_of([&] { m.add(1, -1); }), {"Mean::add", "weight"});
}

TEST(TrainMetrics, MakeMetricKnowsTheNames) {
  EXPECT_EQ(make_metric("accuracy")->name(), "accuracy");
  EXPECT_EQ(make_metric("acc")->name(), "accuracy");
  EXPECT_EQ(make_metric("top_5_accuracy")->name(), "top_5_accuracy");
  EXPECT_EQ(make_metric("f1")->name(), "f1");
  expect_error(error_of([] { make_metric("auc"); }), {"make_metric", "'auc'", "accuracy", "top_K_accuracy"});
  expect_error(error_of([] { make_metric("top_0_accuracy"); }), {"make_metric", "top_0_accuracy"});
  expect_error(error_of([] { TopKAccuracy(0); }), {"TopKAccuracy", "k must be >= 1"});
}

TEST(TrainMetrics, BadInputNamesTheMetric) {
  Accuracy acc;
  expect_error(error_of([&] { acc.update(tensor({1., 2.}), labels({0, 1})); }), {"Accuracy", "[N, C]", "[2]"});
  expect_error(error_of([&] { acc.update(tensor({{1., 2.}}), tensor({1.})); }), {"Accuracy", "integer", "float"});
  expect_error(error_of([&] { acc.update(tensor({{1., 2.}}), labels({0, 1})); }), {"Accuracy", "targets [1]"});
  MetricPtr p = precision();
  expect_error(error_of([&] { p->update(tensor({{1., 2.}}), labels({2})); }), {"Precision", "target 2", "[0, 2)"});
  p->update(tensor({{1., 2.}}), labels({1}));
  expect_error(error_of([&] {
                 p->update(tensor({{1., 2., 3.}}), labels({1}));
               }),
               {"Precision", "3 classes", "expected 2"});
  TopKAccuracy top(2);
  expect_error(error_of([&] { top.update(tensor({{1., 2.}}), labels({-1})); }), {"top_2_accuracy", "target -1"});
}

}  // namespace
}  // namespace nabla::train
