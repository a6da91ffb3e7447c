// Placeholders with unknown dims (-1): the graph is built once and run with
// any batch size; results, gradients and training steps equal those of eager
// mode (or of a graph built with the batch size given) for each size fed.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/support/error_message.h"
#include "tests/support/nbg_bytes.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using nabla::testing::error_of;
using nabla::testing::expect_error;

// Element by element within `tol` (pass_test_util.h's comparison).
TEST(GraphUnknownDims, ShapesAtBuildTimeKeepTheBatchUnknown) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 4}, "x");
  Tensor w = g.constant(randn({4, 3}), "w");
  Tensor h = relu(matmul(x, w) + randn({3}));
  EXPECT_EQ(h.sizes(), (Shape{-1, 3}));
  EXPECT_EQ(sum(h, {0}).sizes(), (Shape{3}));  // reduced away: known again
  EXPECT_EQ(mean(h).sizes(), (Shape{}));
  EXPECT_EQ(h.reshape({-1}).sizes(), (Shape{-1}));
  EXPECT_EQ(cat({h, h}, 0).sizes(), (Shape{-1, 3}));
  EXPECT_EQ(cat({h, h}, 1).sizes(), (Shape{-1, 6}));
  EXPECT_EQ(h.to(kFloat64).dtype(), kFloat64);
  // Two unknown dims: their product is positive, still unknown.
  Tensor z = g.placeholder(kFloat32, {-1, -1, 3}, "z");
  EXPECT_EQ(z.reshape({-1, 3}).sizes(), (Shape{-1, 3}));
  EXPECT_EQ(z.flatten(0, 1).sizes(), (Shape{-1, 3}));
  Session sess(g);
  EXPECT_EQ(sess.run(z.flatten(0, 1), {{z, randn({2, 5, 3})}}).sizes(), (Shape{10, 3}));
}

TEST(GraphUnknownDims, OneGraphRunsEveryBatchSizeLikeEager) {
  Tensor wv = randn({4, 3}, kFloat64), bv = randn({3}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 4}, "x");
  Tensor y = g.placeholder(kFloat64, {-1, 3}, "y");
  Tensor pred = tanh(matmul(x, g.constant(wv, "w")) + bv);
  // mean() and mse_loss divide by the batch size: a composite expanded per size.
  Tensor loss = mse_loss(pred, y);
  Tensor row_mean = mean(pred, {0});
  Session sess(g);
  for (int64_t n : {1, 5, 2, 5}) {
    Tensor xv = randn({n, 4}, kFloat64), yv = randn({n, 3}, kFloat64);
    auto out = sess.run({pred, loss, row_mean}, {{x, xv}, {y, yv}});
    Tensor epred = tanh(matmul(xv, wv) + bv);
    assert_close(out[0], epred, {.rtol = 0.0, .atol = 1e-12});
    assert_close(out[1], mse_loss(epred, yv), {.rtol = 0.0, .atol = 1e-12});
    assert_close(out[2], mean(epred, {0}), {.rtol = 0.0, .atol = 1e-12});
  }
  // One specialization per batch size, reused when a size comes back.
  EXPECT_EQ(sess.stats().optimizations, 3);
}

TEST(GraphUnknownDims, TheLeastRecentlyUsedSpecializationIsDroppedPastTheLimit) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 2}, "x");
  Tensor y = sum(x * 2.0, {1});
  SessionOptions options;
  options.max_specializations = 2;
  Session sess(g, options);
  auto run = [&](int64_t n) {
    Tensor xv = randn({n, 2}, kFloat64);
    assert_close(sess.run(y, {{x, xv}}), sum(xv * 2.0, {1}), {.rtol = 0.0, .atol = 1e-12});
    return sess.stats().optimizations;
  };
  EXPECT_EQ(run(1), 1);
  EXPECT_EQ(run(2), 2);
  EXPECT_EQ(run(1), 2);  // kept
  EXPECT_EQ(run(3), 3);  // drops 2, the least recently used
  EXPECT_EQ(run(1), 3);  // still kept
  EXPECT_EQ(run(2), 4);  // made again
}

TEST(GraphUnknownDims, GradientsMatchEagerAutogradForEachBatchSize) {
  Tensor wv = randn({4, 3}, kFloat64), bv = randn({3}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 4}, "x");
  Tensor w = g.variable(wv, "w");
  Tensor b = g.variable(bv, "b");
  Tensor loss = sum(square(sigmoid(matmul(x, w) + b))) / 7.0;
  auto grads = gradients(loss, {w, b, x});
  ASSERT_EQ(grads.size(), 3u);
  EXPECT_EQ(grads[0].sizes(), (Shape{4, 3}));
  EXPECT_EQ(grads[2].sizes(), (Shape{-1, 4}));
  Session sess(g);
  sess.run(g.global_variables_initializer());
  for (int64_t n : {3, 8}) {
    Tensor xv = randn({n, 4}, kFloat64);
    auto out = sess.run({grads[0], grads[1], grads[2]}, {{x, xv}});
    Tensor ew = wv.detach().requires_grad_(true), eb = bv.detach().requires_grad_(true);
    Tensor ex = xv.detach().requires_grad_(true);
    (sum(square(sigmoid(matmul(ex, ew) + eb))) / 7.0).backward();
    assert_close(out[0], ew.grad(), {.rtol = 0.0, .atol = 1e-12});
    assert_close(out[1], eb.grad(), {.rtol = 0.0, .atol = 1e-12});  // the broadcast bias: summed over the fed batch
    assert_close(out[2], ex.grad(), {.rtol = 0.0, .atol = 1e-12});
  }
}

TEST(GraphUnknownDims, XsThatNothingDependsOnGetNoGradient) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 2}, "x");
  Tensor a = g.variable(ones({2}, kFloat64), "a");
  Tensor unused = g.variable(ones({2}, kFloat64), "unused");
  auto grads = gradients(sum(x * a), {a, unused});
  EXPECT_TRUE(grads[0].defined());
  EXPECT_FALSE(grads[1].defined());
}

TEST(GraphUnknownDims, SecondDerivativesMatchAGraphWithTheBatchGiven) {
  Tensor xv = randn({6, 3}, kFloat64), wv = randn({3, 1}, kFloat64);
  auto hessian_vector = [&](Graph& g, Tensor x) {
    Tensor w = g.variable(wv, "w");
    Tensor loss = sum(exp(matmul(x, w) * 0.3));
    Tensor gw = gradients(loss, {w})[0];
    Tensor hv = gradients(sum(gw * gw), {w})[0];
    Session sess(g);
    sess.run(g.global_variables_initializer());
    return sess.run(hv, {{x, xv}});
  };
  Graph unknown, known;
  Tensor got = hessian_vector(unknown, unknown.placeholder(kFloat64, {-1, 3}, "x"));
  Tensor want = hessian_vector(known, known.placeholder(kFloat64, {6, 3}, "x"));
  assert_close(got, want, {.rtol = 0.0, .atol = 1e-10});
}

// Two layers, MSE and an optimizer: built once with batch -1, or (the
// reference) once per batch size met, sharing the variables. Returns the
// trained variables after 3 epochs over the batches.
Tensor train_dense(bool unknown_batch, const std::vector<Tensor>& xs, const std::vector<Tensor>& ys, bool adam) {
  manual_seed(11);
  Graph g;
  Tensor kernel1 = g.variable(randn({5, 8}, kFloat64) * 0.3, "kernel1");
  Tensor kernel2 = g.variable(randn({8, 2}, kFloat64) * 0.3, "kernel2");
  Tensor bias = g.variable(zeros({8}, kFloat64), "bias");
  struct Step {
    Tensor x, y, loss, update;
  };
  std::map<int64_t, Step> steps;  // by batch size (-1: any)
  for (const Tensor& xv : xs) {
    int64_t n = unknown_batch ? -1 : xv.size(0);
    if (steps.count(n)) continue;
    Step s;
    s.x = g.placeholder(kFloat64, {n, 5}, "x");
    s.y = g.placeholder(kFloat64, {n, 2}, "y");
    Tensor pred = matmul(relu(matmul(s.x, kernel1) + bias), kernel2);
    s.loss = losses::mean_squared_error(s.y, pred);
    s.update = adam ? AdamOptimizer(0.05).minimize(s.loss) : GradientDescentOptimizer(0.1).minimize(s.loss);
    steps[n] = s;
  }
  Session sess(g);
  sess.run(g.global_variables_initializer());
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const Step& s = steps.at(unknown_batch ? -1 : xs[i].size(0));
      sess.run({s.loss, s.update}, {{s.x, xs[i]}, {s.y, ys[i]}});
    }
  }
  return cat({sess.variable_value(kernel1).reshape({-1}), sess.variable_value(kernel2).reshape({-1}),
              sess.variable_value(bias)});
}

TEST(GraphUnknownDims, TrainingWithTheBatchUnknownEqualsAGraphPerBatchSize) {
  std::vector<Tensor> xs = {randn({4, 5}, kFloat64), randn({7, 5}, kFloat64)};
  std::vector<Tensor> ys = {randn({4, 2}, kFloat64), randn({7, 2}, kFloat64)};
  // Gradient descent keeps no state, so graphs per size sharing variables are exact.
  assert_close(train_dense(true, xs, ys, false), train_dense(false, xs, ys, false), {.rtol = 0.0, .atol = 1e-10});
  // Adam's slots and step count belong to one minimize(): one batch size, twice.
  std::vector<Tensor> xs4 = {xs[0], randn({4, 5}, kFloat64)}, ys4 = {ys[0], randn({4, 2}, kFloat64)};
  assert_close(train_dense(true, xs4, ys4, true), train_dense(false, xs4, ys4, true), {.rtol = 0.0, .atol = 1e-10});
}

// An nn CNN (conv, pool, flatten, linear) used in a graph through
// ModuleVariables with a -1 batch, trained one step: same values and
// gradients as the module run eagerly, for two batch sizes.
TEST(GraphUnknownDims, AnNnConvNetInAGraphTakesAnUnknownBatch) {
  manual_seed(3);
  auto model = std::make_shared<nn::Sequential>(nn::Conv2d(1, 4, 3), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(),
                                                nn::Linear(4 * 3 * 3, 5));
  model->to(kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 1, 8, 8}, "x");
  Tensor labels = g.placeholder(kInt64, {-1}, "labels");
  Session sess(g);
  std::vector<Tensor> logits_and_grads;
  {
    nn::ModuleVariables mv(g, *model);
    Tensor logits = model->forward(x);
    EXPECT_EQ(logits.sizes(), (Shape{-1, 5}));
    Tensor loss = cross_entropy(logits, labels);
    std::vector<Tensor> vars = mv.trainable_variables();
    std::vector<Tensor> grads = gradients(loss, vars);
    logits_and_grads = {logits, loss};
    logits_and_grads.insert(logits_and_grads.end(), grads.begin(), grads.end());
    sess.run(g.global_variables_initializer());
  }
  for (int64_t n : {2, 3}) {
    SCOPED_TRACE(n);
    Tensor xv = randn({n, 1, 8, 8}, kFloat64), lv = randint(0, 5, {n});
    auto got = sess.run(logits_and_grads, {{x, xv}, {labels, lv}});
    model->zero_grad();
    Tensor logits = model->forward(xv);
    Tensor loss = cross_entropy(logits, lv);
    loss.backward();
    assert_close(got[0], logits.detach(), {.rtol = 0.0, .atol = 1e-12});
    assert_close(got[1], loss.detach(), {.rtol = 0.0, .atol = 1e-12});
    auto params = model->parameters();
    ASSERT_EQ(params.size() + 2, got.size());
    for (std::size_t i = 0; i < params.size(); ++i)
      assert_close(got[i + 2], params[i].grad(), {.rtol = 0.0, .atol = 1e-10});
  }
}

TEST(GraphUnknownDims, DenseLayerHelperTakesAnUnknownBatch) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 6}, "x");
  Tensor y = layers::dense(layers::dense(x, 4, relu), 2);
  EXPECT_EQ(y.sizes(), (Shape{-1, 2}));
  Session sess(g);
  sess.run(g.global_variables_initializer());
  EXPECT_EQ(sess.run(y, {{x, randn({9, 6})}}).sizes(), (Shape{9, 2}));
  EXPECT_EQ(sess.run(y, {{x, randn({1, 6})}}).sizes(), (Shape{1, 2}));
}

TEST(GraphUnknownDims, FeedsAreCheckedAgainstTheKnownDimsAndRank) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 4}, "x");
  Tensor y = sum(x * 2.0f);
  Session sess(g);
  expect_error(error_of([&] {
                 sess.run(y, {{x, randn({3, 5})}});
               }),
               {"placeholder 'x'", "[-1, 4]", "(-1: any size)", "[3, 5]"});
  expect_error(error_of([&] { sess.run(y, {{x, randn({3, 4, 1})}}); }), {"placeholder 'x'", "[3, 4, 1]"});
  expect_error(error_of([&] { sess.run(y); }), {"placeholder 'x'", "not fed"});
  EXPECT_EQ(sess.run(y, {{x, zeros({0, 4})}}).item<float>(), 0.0f);  // an empty batch is a batch
}

TEST(GraphUnknownDims, ShapesThatCannotFitFailAtBuildTimeNamingTheOp) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 4}, "x");
  expect_error(error_of([&] { matmul(x, g.constant(randn({5, 2}), "w")); }), {"mm:", "unknown dims (-1)", "[5, 2]"});
  // Two unknown dims meet as equal: both are taken as the same stand-in.
  Tensor w = g.placeholder(kFloat32, {4, -1}, "w");
  EXPECT_EQ(matmul(x, w).sizes(), (Shape{-1, -1}));
  expect_error(error_of([&] { g.placeholder(kFloat32, {-2, 4}, "bad"); }), {"Graph::placeholder 'bad'", "-1"});
}

TEST(GraphUnknownDims, FetchesThatDoNotNeedTheUnknownPlaceholderRunWithoutIt) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 2}, "x");
  Tensor v = g.variable(full({2}, 3.0, kFloat64), "v");
  Tensor y = sum(x * v, {1});
  Tensor doubled = v * 2.0;
  Session sess(g);
  sess.run(g.global_variables_initializer());
  assert_close(sess.run(doubled), full({2}, 6.0, kFloat64), {.rtol = 0.0, .atol = 1e-12});
  assert_close(sess.run(y, {{x, ones({3, 2}, kFloat64)}}), full({3}, 6.0, kFloat64), {.rtol = 0.0, .atol = 1e-12});
}

TEST(GraphUnknownDims, ErrorsAtRunTimeNameTheUsersLine) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 3}, "x");
  Tensor w = g.placeholder(kFloat32, {-1, 3}, "w");
  Tensor y;
  const int line = __LINE__ + 2;
  {
    LocationScope here;  // ops record this line
    y = x * w;           // fits only if both are fed the same batch (or one of 1)
  }
  Session sess(g);
  EXPECT_EQ(sess.run(y, {{x, randn({4, 3})}, {w, randn({1, 3})}}).sizes(), (Shape{4, 3}));
  std::string msg = error_of([&] { sess.run(y, {{x, randn({4, 3})}, {w, randn({5, 3})}}); });
  expect_error(msg, {"mul", "unknown_dims_test.cpp:"});
  EXPECT_NE(msg.find(std::to_string(line)), std::string::npos) << msg;
}

// cond and while_loop on values with unknown dims: their bodies are
// specialized with the fed shapes too, gradients included.
std::vector<Tensor> run_control_flow(int64_t build_batch, const Tensor& xv, const Tensor& wv) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {build_batch, 3}, "x");
  Tensor w = g.variable(wv, "w");
  Tensor h = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 3; },
                        [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                          return {v[0] + 1, tanh(matmul(v[1], w)) + mean(v[1], {0})};
                        },
                        {zeros({}, kInt64), x})[1];
  Tensor positive = sum(h) > 0.0;
  Tensor y = cond(
      positive, [&] { return h * h; }, [&] { return -h / 3.0; });
  Tensor loss = mean(sum(y, {1}));
  auto grads = gradients(loss, {w, x});
  Session sess(g);
  sess.run(g.global_variables_initializer());
  return sess.run({y, loss, grads[0], grads[1], positive}, {{x, xv}});
}

TEST(GraphUnknownDims, CondAndWhileLoopOnAnUnknownBatchMatchAGraphWithTheBatchGiven) {
  Tensor wv = randn({3, 3}, kFloat64) * 0.5;
  for (int64_t n : {2, 5}) {
    for (double shift : {2.0, -2.0}) {  // both branches of the cond
      SCOPED_TRACE(n);
      Tensor xv = randn({n, 3}, kFloat64) * 0.1 + shift;
      auto got = run_control_flow(-1, xv, wv);
      auto want = run_control_flow(n, xv, wv);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) assert_close(got[i], want[i], {.rtol = 0.0, .atol = 1e-12});
      EXPECT_EQ(got[4].item<bool>(), shift > 0);  // the branch taken
    }
  }
}

TEST(GraphUnknownDims, ATrainingGraphSavedAndLoadedTrainsOnLikeTheOriginal) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 3}, "x");
  Tensor y = g.placeholder(kFloat64, {-1, 2}, "y");
  Tensor pred = layers::dense(layers::dense(x, 4, tanh), 2);
  Tensor loss = g.set_name(losses::mean_squared_error(y, pred), "loss");
  g.set_name(AdamOptimizer(0.01).minimize(loss), "train");
  Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.run({loss, g.tensor("train")}, {{x, randn({5, 3}, kFloat64)}, {y, randn({5, 2}, kFloat64)}});
  std::string path = ::testing::TempDir() + "/unknown_dims_training.nbg";
  sess.save(path);
  Session loaded = Session::load(path);
  for (int64_t n : {2, 7}) {
    NamedFeeds feeds = {{"x", randn({n, 3}, kFloat64)}, {"y", randn({n, 2}, kFloat64)}};
    Feeds same = {{x, feeds[0].second}, {y, feeds[1].second}};
    auto want = sess.run({loss, g.tensor("train")}, same);
    auto got = loaded.run(std::vector<std::string>{"loss", "train"}, feeds);
    assert_close(got[0], want[0],
                 {.rtol = 0.0, .atol = 0.0});  // same bits: same graph, same variables, same Adam slots
  }
  assert_close(
      loaded.run(std::vector<std::string>{"loss"}, {{"x", ones({1, 3}, kFloat64)}, {"y", ones({1, 2}, kFloat64)}})[0],
      sess.run(loss, {{x, ones({1, 3}, kFloat64)}, {y, ones({1, 2}, kFloat64)}}), {.rtol = 0.0, .atol = 0.0});
}

TEST(GraphUnknownDims, CorruptedFilesWithGradientsNodesFailClearly) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {-1, 2}, "x");
  Tensor w = g.variable(ones({2, 1}, kFloat64), "w");
  Tensor loss = g.set_name(mean(square(matmul(x, w))), "loss");
  GradientDescentOptimizer(0.1).minimize(loss);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  const std::string path = ::testing::TempDir() + "/unknown_dims_flip.nbg";
  sess.save(path);
  const std::string good = nabla::testing::read_bytes(path);
  EXPECT_EQ(nabla::testing::get_le(good, 10, 2), 2u);  // format 1.2
  // Every byte of the node table flipped, checksums fixed: each file loads
  // and runs, or raises a nabla::Error naming it; nothing crashes.
  const std::size_t table_end = nabla::testing::kNbgHeader + nabla::testing::get_le(good, 16, 8);
  int refused = 0;
  for (std::size_t i = nabla::testing::kNbgHeader; i < table_end; ++i) {
    std::string b = good;
    b[i] = static_cast<char>(b[i] ^ (1 << (i % 8)));
    nabla::testing::fix_checksums(b);
    nabla::testing::write_bytes(path, b);
    try {
      Session s = Session::load(path);
      s.run(std::vector<std::string>{"loss"}, {{"x", ones({3, 2}, kFloat64)}});
    } catch (const Error& e) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  // Claiming version 1.1, a file with unknown dims is refused.
  std::string b = good;
  nabla::testing::put_le(b, 10, 1, 2);
  nabla::testing::fix_checksums(b);
  nabla::testing::write_bytes(path, b);
  expect_error(error_of([&] { Session::load(path); }), {"unknown_dims_flip.nbg"});
}

}  // namespace
}  // namespace nabla::graph
