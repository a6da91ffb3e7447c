// Graph + Session: results equal eager ones, only needed nodes run, and feed
// mistakes give errors naming the placeholder and the line that made it.
#include <gtest/gtest.h>

#include <string>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/absent_device.h"
#include "tests/support/error_message.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using nabla::testing::error_of;

TEST(GraphSession, MatmulReluSumBroadcastEqualEager) {
  Tensor xv = randn({4, 3}, kFloat64), wv = randn({3, 5}, kFloat64), bv = randn({5}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {4, 3}, "x");
  Tensor w = g.placeholder(kFloat64, {3, 5}, "w");
  Tensor b = g.constant(bv, "b");
  Tensor h = relu(matmul(x, w) + b);  // broadcast [4,5] + [5]
  Tensor s = sum(h, {1});
  EXPECT_TRUE(h.is_symbolic());
  EXPECT_EQ(h.sizes(), (Shape{4, 5}));
  EXPECT_EQ(s.sizes(), (Shape{4}));

  Session sess(g);
  auto out = sess.run({h, s}, {{x, xv}, {w, wv}});
  Tensor eh = relu(matmul(xv, wv) + bv);
  assert_close(out[0], eh, {.rtol = 0.0, .atol = 1e-12});
  assert_close(out[1], sum(eh, {1}), {.rtol = 0.0, .atol = 1e-12});
}

TEST(GraphSession, ConcreteOperandBecomesConstant) {
  Tensor cv = randn({2, 2}, kFloat64), xv = randn({2, 2}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 2}, "x");
  Tensor y = x * cv - 1.5;
  int constants = 0;
  for (int i = 0; i < g.num_nodes(); ++i) constants += g.node(i).kind == NodeKind::Constant;
  EXPECT_GE(constants, 1);
  Session sess(g);
  assert_close(sess.run(y, {{x, xv}}), xv * cv - 1.5, {.rtol = 0.0, .atol = 1e-12});
}

TEST(GraphSession, CompositeOpsExpandIntoTableOps) {
  // softmax, mse_loss and stack are composites or built from several table ops.
  Tensor xv = randn({3, 4}, kFloat64), tv = randn({3, 4}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3, 4}, "x");
  Tensor t = g.placeholder(kFloat64, {3, 4}, "t");
  Tensor sm = softmax(x, 1);
  Tensor loss = mse_loss(x, t);
  Tensor st = stack({x, t}, 0);
  Session sess(g);
  auto out = sess.run({sm, loss, st}, {{x, xv}, {t, tv}});
  assert_close(out[0], softmax(xv, 1), {.rtol = 0.0, .atol = 1e-12});
  assert_close(out[1], mse_loss(xv, tv), {.rtol = 0.0, .atol = 1e-12});
  assert_close(out[2], stack({xv, tv}, 0), {.rtol = 0.0, .atol = 1e-12});
}

TEST(GraphSession, BuildErrorsAreTheEagerOnes) {
  Graph g;
  Tensor a = g.placeholder(kFloat32, {2, 3}, "a");
  Tensor b = g.placeholder(kFloat32, {4, 5}, "b");
  std::string graph_msg = error_of([&] { matmul(a, b); });
  std::string eager_msg = error_of([&] { matmul(zeros({2, 3}), zeros({4, 5})); });
  EXPECT_NE(graph_msg, nabla::testing::kNoError);
  EXPECT_EQ(graph_msg, eager_msg);
}

TEST(GraphSession, RunsOnlyWhatTheFetchesNeed) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {8}, "x");
  Tensor y = g.placeholder(kFloat32, {8}, "y");
  Tensor a = relu(x);       // needed
  Tensor b = exp(y) * 2.0;  // not needed for `a`, and `y` is unfed
  Tensor c = sum(a);        // needed
  (void)b;
  Session sess(g);
  Tensor out = sess.run(c, {{x, ones({8})}});
  EXPECT_FLOAT_EQ(out.item<float>(), 8.0f);
  // relu and sum only: exp, mul and their constant never run.
  EXPECT_EQ(sess.stats().ops_executed, 2);
  EXPECT_EQ(sess.stats().nodes_executed, 3);  // + the placeholder
  sess.run(c, {{x, ones({8})}});
  EXPECT_EQ(sess.stats().ops_executed, 4);
  EXPECT_EQ(sess.stats().runs, 2);
}

TEST(GraphSession, FeedErrorsNamePlaceholderAndLine) {
  Graph g;
  const int line = __LINE__ + 1;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "images");
  Tensor y = relu(x);
  Session sess(g);
  std::string where = std::string("session_test.cpp:") + std::to_string(line);

  std::string msg = error_of([&] { sess.run(y, {{x, zeros({3, 2})}}); });
  EXPECT_NE(msg.find("'images'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(where), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[3, 2]"), std::string::npos) << msg;

  msg = error_of([&] { sess.run(y, {{x, zeros({2, 3}, kFloat64)}}); });
  EXPECT_NE(msg.find("'images'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float64"), std::string::npos) << msg;
  EXPECT_NE(msg.find(where), std::string::npos) << msg;

  msg = error_of([&] { sess.run(y, {{y, zeros({2, 3})}}); });
  EXPECT_NE(msg.find("not a placeholder"), std::string::npos) << msg;
}

TEST(GraphSession, UnfedPlaceholderIsNamed) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  const int line = __LINE__ + 1;
  Tensor labels = g.placeholder(kFloat32, {2}, "labels");
  Tensor d = x - labels;
  Session sess(g);
  std::string msg = error_of([&] { sess.run(d, {{x, zeros({2})}}); });
  EXPECT_NE(msg.find("placeholder 'labels'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not fed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("session_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
}

TEST(GraphSession, RunsOnTheDeviceItIsGiven) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor v = g.variable(ones({2}), "v");
  Tensor y = x * v;
  Session cpu(g, kCPU);
  EXPECT_TRUE(cpu.device().is_cpu());
  cpu.run(g.global_variables_initializer());
  Tensor out = cpu.run(y, {{x, full({2}, 3.0f)}});
  EXPECT_TRUE(out.device().is_cpu());
  EXPECT_TRUE(cpu.variable_value(v).device().is_cpu());
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{3.0f, 3.0f}));
  const Device absent = nabla::testing::absent_cuda_device();
  std::string msg = error_of([&] { Session gpu(g, absent); });
  EXPECT_NE(msg.find("graph::Session: device " + absent.str() + " " + nabla::testing::absent_cuda_words()), std::string::npos)
      << msg;
}

TEST(GraphSession, NamesAreUniqueAndScoped) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor x2 = g.placeholder(kFloat32, {2}, "x");
  EXPECT_EQ(g.node_of(x).name, "x");
  EXPECT_EQ(g.node_of(x2).name, "x_1");
  Tensor r1 = relu(x), r2 = relu(x2);
  EXPECT_EQ(g.node_of(r1).name, "relu");
  EXPECT_EQ(g.node_of(r2).name, "relu_1");
  {
    auto scope = g.name_scope("dense");
    Tensor k = g.variable(zeros({2}), "kernel");
    EXPECT_EQ(g.node_of(k).name, "dense/kernel");
    EXPECT_EQ(g.node_of(relu(k)).name, "dense/relu");
  }
  EXPECT_EQ(g.node_of(relu(x)).name, "relu_2");
}

TEST(GraphSession, OpNodesRecordLocationScopeLine) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor outside = relu(x);
  EXPECT_FALSE(g.node_of(outside).loc_known);
  const int line = __LINE__ + 1;
  LocationScope at;
  Tensor inside = relu(x);
  EXPECT_TRUE(g.node_of(inside).loc_known);
  EXPECT_EQ(static_cast<int>(g.node_of(inside).loc.line()), line);
}

TEST(GraphSession, RunTimeOpErrorsNameTheNode) {
  // index_select with an out-of-range index fails only when run.
  Graph g;
  Tensor x = g.placeholder(kFloat32, {3}, "x");
  Tensor i = g.placeholder(kInt64, {1}, "i");
  const int line = __LINE__ + 1;
  LocationScope at;
  Tensor y = index_select(x, 0, i);
  Session sess(g);
  std::string msg = error_of([&] { sess.run(y, {{x, zeros({3})}, {i, full({1}, 7, kInt64)}}); });
  EXPECT_NE(msg.find("while running node 'index_select'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("session_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
}

TEST(GraphSession, SymbolicValuesHaveNoData) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {1}, "x");
  EXPECT_THROW(x.item<float>(), Error);
}

// Braces always mean a list of fetches (TF's sess.run([loss])), so the
// habit run({loss}, feeds)[0] is the value and not a select on it; a plain
// tensor fetches one value. Feeds can be built ahead as graph::Feeds.
TEST(GraphSession, BracedSingleFetchIsAList) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor loss = sum(x * x);
  Session sess(g);
  Feeds values = {{x, tensor({1.0, 2.0})}};
  std::vector<Tensor> listed = sess.run({loss}, values);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].item<float>(), 5.0f);
  EXPECT_EQ(sess.run({loss}, values)[0].item<float>(), 5.0f);
  Tensor one = sess.run(loss, values);
  EXPECT_EQ(one.item<float>(), 5.0f);
}

// x[mask] = v in place: masked_fill_, which keeps the tensor's shape.
TEST(GraphSession, MaskedFillInPlaceEager) {
  Tensor x = tensor({-1.0, 2.0, -3.0});
  x.masked_fill_(x < 0, 0);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 2, 0}));
  Tensor row = zeros({3});
  EXPECT_THROW(row.masked_fill_(zeros({2, 3}, kBool), 1), Error);  // the mask may not grow the tensor
  Tensor leaf = tensor({1.0, -1.0}).requires_grad_();
  Tensor h = leaf * 2;
  h.masked_fill_(h < 0, 0);
  h.sum().backward();
  EXPECT_EQ(leaf.grad().to_vector<float>(), (std::vector<float>{2, 0}));
}

}  // namespace
}  // namespace nabla::graph
