// Graph-mode Adam as one adam_update node per variable, whose three results a
// Session computes straight into the variable and its two slots
// (passes/variable_writes.h, OpDef::updates_input), and the copies it falls
// back to where that is not safe.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "tests/support/same_bits.h"

namespace nabla::graph {
namespace {

using nabla::testing::same_bits;

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(GraphAdam, UpdatesEachVariableAndItsSlotsInPlaceWithOneNode) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {8, 5}, "x");
  Tensor y = g.placeholder(kFloat32, {8, 3}, "y");
  Tensor w = g.variable(randn({5, 3}), "w");
  Tensor b = g.variable(zeros({3}), "b");
  Tensor loss = mse_loss(matmul(x, w) + b, y, "sum");
  Tensor train = AdamOptimizer(0.01).minimize(loss);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  const Feeds feeds{{x, randn({8, 5})}, {y, randn({8, 3})}};
  const std::string plan = sess.plan_text({loss, train}, feeds);
  EXPECT_EQ(count_of(plan, "= adam_update("), 2) << plan;
  EXPECT_EQ(count_of(plan, "fused[sqrt, div"), 0) << "no elementwise update chains: " << plan;
  const int64_t writes_before = sess.stats().variable_writes;
  sess.run({loss, train}, feeds);
  const int64_t bytes_after_first = sess.stats().bytes_allocated;
  for (int i = 0; i < 3; ++i) sess.run({loss, train}, feeds);
  // Per run: the 3 results of each of the 2 adam_updates. (The beta powers'
  // updates run after every update, a control dependency: they are copied.)
  EXPECT_EQ(sess.stats().variable_writes - writes_before, 4 * 6);
  EXPECT_EQ(sess.stats().bytes_allocated, bytes_after_first) << "steady state allocates nothing";
}

TEST(GraphAdam, ASavedTrainingGraphTrainsOnToTheSameBits) {
  // adam_update nodes go through the .nbg file by name and are checked by
  // the op's inference on load; the loaded session keeps updating in place.
  Graph g;
  Tensor x = g.placeholder(kFloat32, {6, 4}, "x");
  Tensor y = g.placeholder(kFloat32, {6, 2}, "y");
  Tensor w = g.variable(randn({4, 2}), "w");
  Tensor loss = mse_loss(matmul(x, w), y, "sum");
  Tensor train = AdamOptimizer(0.05).minimize(loss);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  const Tensor xv = randn({6, 4}), yv = randn({6, 2});
  for (int i = 0; i < 2; ++i) sess.run({loss, train}, {{x, xv}, {y, yv}});
  const std::string path = ::testing::TempDir() + "/adam_update_training.nbg";
  sess.save(path);
  Session loaded = Session::load(path);
  Graph lg = loaded.graph();
  const std::string train_name = g.node_of(train).name;
  for (int i = 0; i < 3; ++i) {
    Tensor want = sess.run({loss, train}, {{x, xv}, {y, yv}})[0];
    Tensor got = loaded.run({lg.tensor(g.node_of(loss).name), lg.tensor(train_name)},
                            {{lg.tensor("x"), xv}, {lg.tensor("y"), yv}})[0];
    EXPECT_TRUE(same_bits(got, want)) << "step " << i;
  }
  EXPECT_TRUE(same_bits(loaded.variable_value(lg.tensor("w")), sess.variable_value(w)));
  EXPECT_GT(loaded.stats().variable_writes, 0);
}

// A graph with adam_update and assigns written by hand, run by sessions that
// can and cannot write in place, against the op run eagerly.
struct HandWritten {
  Graph g;
  Tensor grad = g.placeholder(kFloat64, {4, 6}, "grad");
  Tensor p_init = randn({4, 6}, kFloat64);
  Tensor p = g.variable(p_init, "p");
  Tensor m = g.variable(zeros({4, 6}, kFloat64), "m");
  Tensor v = g.variable(zeros({4, 6}, kFloat64), "v");
  TensorList next = adam_update(p, grad, m, v, g.constant(full({}, 0.05, kFloat64)),
                                g.constant(full({}, 0.5, kFloat64)), 0.9, 0.99, 1e-6);
  Tensor update = group({assign(p, next[0]), assign(m, next[1]), assign(v, next[2])});
};

TEST(GraphAdam, OutputsThatCannotBeWrittenInPlaceAreCopiedIntoTheVariables) {
  HandWritten h;
  Tensor p = h.p_init, m = zeros({4, 6}, kFloat64), v = zeros({4, 6}, kFloat64);
  std::vector<Tensor> grads;
  for (int i = 0; i < 3; ++i) grads.push_back(randn({4, 6}, kFloat64));

  Session in_place(h.g), fetched(h.g), unoptimized(h.g, SessionOptions{.optimize = false});
  for (Session* s : {&in_place, &fetched, &unoptimized}) s->run(h.g.global_variables_initializer());
  for (const Tensor& grad : grads) {
    TensorList want = adam_update(p, grad, m, v, full({}, 0.05, kFloat64), full({}, 0.5, kFloat64), 0.9, 0.99, 1e-6);
    p = want[0], m = want[1], v = want[2];
    in_place.run({h.update}, {{h.grad, grad}});
    // Fetching the new m keeps it out of the variable's buffer (the fetch
    // must not change when the variable does): computed apart, then copied.
    Tensor m_fetched = fetched.run({h.update, h.next[1]}, {{h.grad, grad}})[1];
    unoptimized.run({h.update}, {{h.grad, grad}});
    EXPECT_TRUE(same_bits(m_fetched, m));
    for (Session* s : {&in_place, &fetched, &unoptimized}) {
      EXPECT_TRUE(same_bits(s->variable_value(h.p), p));
      EXPECT_TRUE(same_bits(s->variable_value(h.m), m));
      EXPECT_TRUE(same_bits(s->variable_value(h.v), v));
    }
  }
  EXPECT_EQ(in_place.stats().variable_writes, 3 * 3);
  EXPECT_EQ(fetched.stats().variable_writes, 3 * 2);
  EXPECT_EQ(unoptimized.stats().variable_writes, 0);
}

TEST(GraphAdam, AReadOfTheVariableBetweenTheUpdateAndItsAssignSeesTheOldValue) {
  // `snapshot` reads p after adam_update ran and before p's assign: writing
  // p in place would change what it reads, so p's new value is copied in.
  Graph g;
  Tensor grad = g.placeholder(kFloat64, {4, 6}, "grad");
  Tensor p = g.variable(randn({4, 6}, kFloat64), "p");
  Tensor m = g.variable(zeros({4, 6}, kFloat64), "m");
  Tensor v = g.variable(zeros({4, 6}, kFloat64), "v");
  Tensor before = g.variable(zeros({4, 6}, kFloat64), "before");
  TensorList next = adam_update(p, grad, m, v, g.constant(full({}, 0.05, kFloat64)),
                                g.constant(full({}, 0.5, kFloat64)), 0.9, 0.99, 1e-6);
  Tensor snapshot = assign(before, p * 2.0);
  Tensor update = group({snapshot, assign(p, next[0]), assign(m, next[1]), assign(v, next[2])});
  Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor p0 = sess.variable_value(p);
  sess.run({update}, {{grad, randn({4, 6}, kFloat64)}});
  EXPECT_TRUE(same_bits(sess.variable_value(before), p0 * 2.0));
  EXPECT_FALSE(same_bits(sess.variable_value(p), p0));
  EXPECT_EQ(sess.stats().variable_writes, 2) << "m and v in place, p copied";
}

}  // namespace
}  // namespace nabla::graph
