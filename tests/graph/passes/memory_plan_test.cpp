// Memory planning: release after the last use, in place where safe, and no
// memory from the system per run in steady state.
#include "nabla/graph/passes/memory_plan.h"

#include <gtest/gtest.h>

#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

TEST(GraphPassMemoryPlan, ReleasesAfterLastUseAndPicksInPlace) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {4, 4}, "x");  // 0
  Tensor m = matmul(x, x);                          // 1
  Tensor e = exp(m);                                // 2: m dies here, made by an op -> in place
  Tensor s = sum(e);                                // 3
  Tensor r = relu(x);                               // 4: x is a feed -> never in place
  MemoryPlan p = plan_memory(*g.data(), {value_of(s)->ref, value_of(r)->ref});
  EXPECT_EQ(p.inplace, (std::vector<char>{0, 0, 1, 0, 0}));
  ASSERT_EQ(p.release_after.size(), 5u);
  EXPECT_TRUE(p.release_after[0].empty());
  EXPECT_TRUE(p.release_after[1].empty());
  ASSERT_EQ(p.release_after[2].size(), 1u);  // m
  EXPECT_EQ(p.release_after[2][0].node, 1);
  ASSERT_EQ(p.release_after[3].size(), 1u);  // e
  EXPECT_EQ(p.release_after[3][0].node, 2);
  ASSERT_EQ(p.release_after[4].size(), 1u);  // x (s and r are fetched: kept)
  EXPECT_EQ(p.release_after[4][0].node, 0);
}

TEST(GraphPassMemoryPlan, InPlaceRunsAndAViewBlocksIt) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {4, 4}, "x");
  Tensor t = matmul(x, x);
  Tensor v = transpose(t, 0, 1);  // a view of t's buffer, used after exp(t)
  Tensor e = exp(t);              // t dies here, but v still shares its memory
  Tensor z = matmul(e, v);
  Tensor m2 = matmul(x, x * 2.0);  // (not x, x: CSE would make it t)
  Tensor f = exp(m2);              // m2 is unshared: this one runs in place
  Tensor out = z + matmul(f, x);
  Tensor xv = randn({4, 4}, kFloat64);
  Session sess(g, {.fuse = false});
  assert_close(sess.run(out, {{x, xv}}),
               matmul(exp(matmul(xv, xv)), transpose(matmul(xv, xv), 0, 1)) + matmul(exp(matmul(xv, xv * 2.0)), xv),
               {.rtol = 0.0, .atol = 1e-9});
  EXPECT_EQ(sess.stats().inplace_ops_executed, 2);  // exp(m2) and the final add
}

TEST(GraphPassMemoryPlan, SteadyStateAsksTheSystemForNothing) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {64, 128}, "x");
  Tensor w1 = g.variable(randn({128, 256}) * 0.05, "w1");
  Tensor w2 = g.variable(randn({256, 10}) * 0.05, "w2");
  Tensor h = relu(matmul(x, w1));
  Tensor logits = matmul(h * 0.5 + 0.1, w2);
  Tensor loss = mean(square(logits));
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  sess.run(init);
  Tensor xv = randn({64, 128});
  for (int i = 0; i < 3; ++i) sess.run(loss, {{x, xv}});
  const AllocatorStats before = cpu_allocator_stats();
  float first = 0.0f;
  for (int i = 0; i < 20; ++i) {
    Tensor l = sess.run(loss, {{x, xv}});
    if (i == 0) first = l.item<float>();
    EXPECT_EQ(l.item<float>(), first);
  }
  const AllocatorStats after = cpu_allocator_stats();
  EXPECT_EQ(after.system_allocations, before.system_allocations);
  EXPECT_EQ(after.bytes_reserved, before.bytes_reserved);
}

}  // namespace
}  // namespace nabla::graph

namespace nabla::graph {
namespace {

// With release after last use, a chain of matmuls reuses two blocks; without
// it every result stays until the run ends and needs a block of its own.
TEST(GraphPassMemoryPlan, ReleasedValuesLetTheAllocatorReuseBlocks) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {192, 192}, "x");
  Tensor w = g.constant(randn({192, 192}) * 0.05, "w");
  Tensor h = x;
  for (int i = 0; i < 8; ++i) h = matmul(h, w);
  Tensor s = sum(h);
  Tensor xv = randn({192, 192});
  auto first_run_allocations = [&](SessionOptions options) {
    Session sess(g, options);
    cpu_allocator_empty_cache();
    const uint64_t before = cpu_allocator_stats().system_allocations;
    sess.run(s, {{x, xv}});
    return cpu_allocator_stats().system_allocations - before;
  };
  const uint64_t kept = first_run_allocations({.plan_memory = false});
  const uint64_t released = first_run_allocations({});
  // Eight results held to the end need eight blocks; released, two alternate.
  // (matmul's own scratch allocations add the same to both counts.)
  EXPECT_GE(kept, released + 6) << "kept " << kept << ", released " << released;
}

}  // namespace
}  // namespace nabla::graph
