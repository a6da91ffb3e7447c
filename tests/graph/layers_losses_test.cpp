// graph::layers::dense and graph::losses through a Session, against the same
// computation done eagerly in float64.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/error_message.h"
#include "tests/support/sample_stats.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using nabla::testing::error_of;
using nabla::testing::expect_error;

Tensor variable_named(const Graph& g, const std::string& name) {
  for (const Tensor& v : g.variables())
    if (g.node_of(v).name == name) return v;
  ADD_FAILURE() << "no variable " << name;
  return Tensor();
}

TEST(GraphLayers, DenseInASessionEqualsEagerMatmulBiasActivation) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {4, 3}, "x");
  Tensor y = layers::dense(x, 5, [](const Tensor& t) { return relu(t); }, init::glorot_uniform,
                           [](IntList s, DType d) { return init::random_normal(s, 0.0, 1.0, d); });
  EXPECT_EQ(y.sizes(), Shape({4, 5}));
  EXPECT_EQ(y.dtype(), kFloat64);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor xv = randn({4, 3}, kFloat64);
  Tensor kernel = sess.variable_value(variable_named(g, "dense/kernel"));
  Tensor bias = sess.variable_value(variable_named(g, "dense/bias"));
  EXPECT_EQ(kernel.sizes(), Shape({3, 5}));  // TensorFlow's [in, units]
  EXPECT_EQ(kernel.dtype(), kFloat64);
  Tensor eager = relu(matmul(xv, kernel) + bias);
  assert_close(sess.run(y, {{x, xv}}), eager, {.rtol = 0.0, .atol = 1e-12});
  EXPECT_GT(eager.sum().item<double>(), 0.0);  // the activation did not zero everything
}

TEST(GraphLayers, DenseNamesItsScopesLikeTensorFlow) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 8}, "x");
  Tensor h = layers::dense(x, 4);
  Tensor y = layers::dense(h, 2);
  Tensor z = layers::dense(y, 1, {}, init::glorot_uniform, init::zeros, false, "out");
  std::vector<std::string> names;
  for (const Tensor& v : g.variables(true)) names.push_back(g.node_of(v).name);
  EXPECT_EQ(names, (std::vector<std::string>{"dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias",
                                             "out/kernel"}));
  EXPECT_EQ(g.node_of(h).name, "dense/add");  // the layer's ops are in its scope too
  EXPECT_EQ(g.node_of(z).name, "out/mm");  // matmul of 2-D operands records mm
  {
    auto s = g.name_scope("block");
    layers::dense(x, 3);
  }
  EXPECT_EQ(g.node_of(g.variables().back()).name, "block/dense/bias");
}

TEST(GraphLayers, DenseDefaultsAreGlorotUniformKernelAndZeroBias) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {1, 1000}, "x");
  layers::dense(x, 100);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor kernel = sess.variable_value(variable_named(g, "dense/kernel"));
  Tensor bias = sess.variable_value(variable_named(g, "dense/bias"));
  const double limit = std::sqrt(6.0 / 1100.0);
  auto s = nabla::testing::sample_stats(kernel);
  EXPECT_LE(s.max, limit);
  EXPECT_GE(s.min, -limit);
  EXPECT_NEAR(s.std, limit / std::sqrt(3.0), 0.01 * limit);
  EXPECT_EQ(bias.to_vector<float>(), std::vector<float>(100, 0.0f));
  EXPECT_EQ(g.node_of(variable_named(g, "dense/kernel")).init->name, "glorot_uniform");
}

TEST(GraphLayers, DenseErrorsNameTheLayer) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  expect_error(error_of([&] { layers::dense(ones({2, 3}), 4); }), {"graph::layers::dense 'dense'", "symbolic"});
  expect_error(error_of([&] { layers::dense(x, 0); }), {"graph::layers::dense", "units must be positive, got 0"});
  Tensor xi = g.placeholder(kInt64, {2, 3}, "xi");
  expect_error(error_of([&] { layers::dense(xi, 2); }), {"graph::layers::dense", "int64", "floating-point"});
  expect_error(error_of([&] {
                 layers::dense(x, 4, {}, [](IntList, DType d) { return init::zeros({4, 3}, d); });
               }),
               {"graph::layers::dense 'dense'", "kernel_initializer returned", "[4, 3]", "expected float32 of shape [3, 4]"});
}

TEST(GraphLosses, MeanSquaredErrorIsTheMeanOverAllElements) {
  Graph g;
  Tensor labels = g.placeholder(kFloat64, {3, 4}, "labels");
  Tensor pred = g.placeholder(kFloat64, {3, 4}, "pred");
  Tensor loss = losses::mean_squared_error(labels, pred);
  Session sess(g);
  Tensor l = randn({3, 4}, kFloat64), p = randn({3, 4}, kFloat64);
  double expected = 0;
  auto lv = l.to_vector<double>(), pv = p.to_vector<double>();
  for (std::size_t i = 0; i < lv.size(); ++i) expected += (pv[i] - lv[i]) * (pv[i] - lv[i]) / 12.0;
  EXPECT_NEAR(sess.run(loss, {{labels, l}, {pred, p}}).item<double>(), expected, 1e-14);
  EXPECT_NEAR(losses::mean_squared_error(l, p).item<double>(), expected, 1e-14);  // eager too
  expect_error(error_of([&] { losses::mean_squared_error(labels, g.placeholder(kFloat64, {4, 3}, "p2")); }),
               {"graph::losses::mean_squared_error", "[3, 4]", "[4, 3]", "same shape"});
}

TEST(GraphLosses, SoftmaxCrossEntropyMatchesTheFormulaAndTheSparseForm) {
  Graph g;
  Tensor logits = g.placeholder(kFloat64, {3, 4}, "logits");
  Tensor onehot = g.placeholder(kFloat64, {3, 4}, "onehot");
  Tensor labels = g.placeholder(kInt64, {3}, "labels");
  Tensor dense_loss = losses::softmax_cross_entropy(onehot, logits);
  Tensor sparse_loss = losses::sparse_softmax_cross_entropy(labels, logits);
  Session sess(g);
  Tensor lg = randn({3, 4}, kFloat64);
  std::vector<int64_t> iv{2, 0, 3};
  Tensor idx = tensor(iv);
  std::vector<double> ohv(12, 0.0);
  auto lv = lg.to_vector<double>();
  double expected = 0;
  for (int n = 0; n < 3; ++n) {
    double z = 0;
    for (int c = 0; c < 4; ++c) z += std::exp(lv[n * 4 + c]);
    expected += (std::log(z) - lv[n * 4 + iv[n]]) / 3.0;
    ohv[static_cast<std::size_t>(n * 4 + iv[n])] = 1.0;
  }
  Tensor oh = tensor(ohv, {3, 4});
  auto out = sess.run({dense_loss, sparse_loss}, {{logits, lg}, {onehot, oh}, {labels, idx}});
  EXPECT_NEAR(out[0].item<double>(), expected, 1e-13);
  EXPECT_NEAR(out[1].item<double>(), expected, 1e-13);
  expect_error(error_of([&] { losses::sparse_softmax_cross_entropy(onehot, logits); }),
               {"graph::losses::sparse_softmax_cross_entropy", "[3, 4]"});
  expect_error(error_of([&] { losses::softmax_cross_entropy(labels, logits); }),
               {"graph::losses::softmax_cross_entropy", "[3]"});
}

}  // namespace
}  // namespace nabla::graph
