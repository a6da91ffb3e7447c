// Variables: initialized by global_variables_initializer, persist across runs
// of one Session, updated in place by assign / assign_add / assign_sub; group
// runs several updates.
#include <gtest/gtest.h>

#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"

namespace nabla::graph {
namespace {

using nabla::testing::error_of;

TEST(GraphVariables, ReadBeforeInitializeIsAClearError) {
  Graph g;
  const int line = __LINE__ + 1;
  Tensor w = g.variable(ones({2}), "w");
  Tensor y = w * 2.0;
  Session sess(g);
  std::string msg = error_of([&] { sess.run(y); });
  EXPECT_NE(msg.find("variable 'w'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("before it is initialized"), std::string::npos) << msg;
  EXPECT_NE(msg.find("variables_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
  EXPECT_NE(msg.find("global_variables_initializer"), std::string::npos) << msg;
}

TEST(GraphVariables, InitializerThenReadAndPersistAcrossRuns) {
  Graph g;
  Tensor init_value = full({2}, 3.0);
  Tensor w = g.variable(init_value, "w");
  Tensor step = assign_add(w, full({2}, 1.0));
  Tensor init = g.global_variables_initializer();
  init_value.fill_(-100.0);  // the graph kept its own copy
  Session sess(g);
  EXPECT_FALSE(sess.run(init).defined());  // no value
  EXPECT_EQ(sess.run(w).to_vector<float>(), (std::vector<float>{3, 3}));
  Tensor first = sess.run(step);
  EXPECT_EQ(first.to_vector<float>(), (std::vector<float>{4, 4}));
  sess.run(step);
  sess.run(step);
  EXPECT_EQ(sess.run(w).to_vector<float>(), (std::vector<float>{6, 6}));
  // A fetched value is a copy: later updates do not change it.
  EXPECT_EQ(first.to_vector<float>(), (std::vector<float>{4, 4}));
  EXPECT_EQ(sess.variable_value(w).to_vector<float>(), (std::vector<float>{6, 6}));

  // Another session has its own variables; re-initializing resets them.
  Session other(g);
  EXPECT_THROW(other.run(w), Error);
  sess.run(init);
  EXPECT_EQ(sess.run(w).to_vector<float>(), (std::vector<float>{3, 3}));
}

TEST(GraphVariables, AssignFromAnExpressionUpdatesInPlace) {
  // w <- w - lr * x : the seeds' update step, without gradients yet.
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor w = g.variable(zeros({3}, kFloat64), "w");
  Tensor new_w = assign(w, w - 0.5 * x);
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  sess.run(init);
  Tensor xv = tensor({1.0, 2.0, 4.0}, kFloat64);
  EXPECT_EQ(sess.run(new_w, {{x, xv}}).to_vector<double>(), (std::vector<double>{-0.5, -1, -2}));
  EXPECT_EQ(sess.run(new_w, {{x, xv}}).to_vector<double>(), (std::vector<double>{-1, -2, -4}));
  EXPECT_EQ(sess.variable_value(w).to_vector<double>(), (std::vector<double>{-1, -2, -4}));
  // Running only the read leaves the variable unchanged (the seeds' pitfall).
  sess.run(w * 1.0);
  EXPECT_EQ(sess.run(w).to_vector<double>(), (std::vector<double>{-1, -2, -4}));
}

TEST(GraphVariables, AssignSubAndGroup) {
  Graph g;
  Tensor a = g.variable(full({2}, 10.0), "a");
  Tensor b = g.variable(full({2}, 1.0), "b");
  Tensor da = assign_sub(a, full({2}, 2.0));
  Tensor db = assign_add(b, b);  // b doubles
  Tensor updates = group({da, db});
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  sess.run(init);
  EXPECT_FALSE(sess.run(updates).defined());
  sess.run(updates);
  EXPECT_EQ(sess.run(a).to_vector<float>(), (std::vector<float>{6, 6}));
  EXPECT_EQ(sess.run(b).to_vector<float>(), (std::vector<float>{4, 4}));
  // A group has no value to compute with.
  EXPECT_THROW(relu(updates), Error);
}

TEST(GraphVariables, GroupsOfGroupsAndInitializersRunAndSave) {
  // A group's inputs may be nodes without a value (another group, an
  // initializer); every pass and plan must take them (they used to be
  // indexed as values).
  Graph g;
  Tensor a = g.variable(full({2}, 10.0), "a");
  Tensor b = g.variable(full({2}, 1.0), "b");
  Tensor init = g.global_variables_initializer();
  Tensor inner = group({assign_sub(a, full({2}, 2.0)), assign_add(b, b)});
  Tensor outer = group({inner, assign_add(a, full({2}, 0.5))});
  Tensor init_group = group({init});
  for (SessionOptions options : {SessionOptions{}, SessionOptions{.fuse = false}, SessionOptions{.optimize = false}}) {
    Session sess(g, options);
    sess.run(init_group);
    sess.run(inner);  // a 8, b 2
    sess.run(outer);  // a 8 - 2 + 0.5, b 4
    EXPECT_EQ(sess.run(a).to_vector<float>(), (std::vector<float>{6.5, 6.5}));
    EXPECT_EQ(sess.run(b).to_vector<float>(), (std::vector<float>{4, 4}));
  }
  std::string path = ::testing::TempDir() + "/groups_of_groups.nbg";
  Session sess(g);
  sess.run(init);
  sess.save(path);
  Session loaded = Session::load(path);
  Graph lg = loaded.graph();
  loaded.run(lg.tensor(g.node_of(outer).name));  // a 10 - 2 + 0.5, b 2
  EXPECT_EQ(loaded.run(lg.tensor("a")).to_vector<float>(), (std::vector<float>{8.5, 8.5}));
  EXPECT_EQ(loaded.run(lg.tensor("b")).to_vector<float>(), (std::vector<float>{2, 2}));
}

TEST(GraphVariables, AssignChecksShapeDtypeAndTarget) {
  Graph g;
  Tensor w = g.variable(zeros({2, 2}), "w");
  Tensor x = g.placeholder(kFloat32, {2, 2}, "x");
  std::string msg = error_of([&] { assign(w, zeros({3})); });
  EXPECT_NE(msg.find("variable 'w'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2, 2]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[3]"), std::string::npos) << msg;
  EXPECT_THROW(assign(w, zeros({2, 2}, kFloat64)), Error);
  EXPECT_THROW(assign(x, zeros({2, 2})), Error);  // not a variable
  EXPECT_THROW(assign(zeros({2, 2}), zeros({2, 2})), Error);
  Graph other;
  Tensor y = other.placeholder(kFloat32, {2, 2}, "y");
  EXPECT_THROW(assign(w, y), Error);
  EXPECT_THROW(w + y, Error);  // two graphs
}

TEST(GraphVariables, AssignAddOnUninitializedVariableIsAnError) {
  Graph g;
  Tensor w = g.variable(zeros({2}), "w");
  Tensor up = assign_add(w, ones({2}));
  Session sess(g);
  std::string msg = error_of([&] { sess.run(up); });
  EXPECT_NE(msg.find("variable 'w'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("before it is initialized"), std::string::npos) << msg;
  // Plain assign initializes, as in TensorFlow.
  Tensor set = assign(w, full({2}, 5.0));
  sess.run(set);
  EXPECT_EQ(sess.run(up).to_vector<float>(), (std::vector<float>{6, 6}));
}

TEST(GraphVariables, VariablesListAndTrainable) {
  Graph g;
  g.variable(zeros({1}), "w");
  g.variable(zeros({1}), "step", /*trainable=*/false);
  EXPECT_EQ(g.variables().size(), 2u);
  auto trainable = g.variables(true);
  ASSERT_EQ(trainable.size(), 1u);
  EXPECT_EQ(g.node_of(trainable[0]).name, "w");
}

}  // namespace
}  // namespace nabla::graph
