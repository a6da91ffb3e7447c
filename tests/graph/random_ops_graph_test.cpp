// The random ops in graphs (issue 15, step 3). Factories have no graph
// inputs, so in a graph they are constants drawn when it is built; the one
// random op with an input, bernoulli(p), is a node whose seed and offset were
// reserved when it was built: it computes what the eager call computes, is
// kept apart by CSE and constant folding (kRandom), and saves and loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "nabla/graph/passes/constant_folding.h"
#include "nabla/graph/passes/cse.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/support/same_bits.h"

namespace nabla::graph {
namespace {

using nabla::testing::same_bits;
using testing::count_ops;

TEST(GraphRandomOps, BernoulliOfAGraphValueDrawsWhatTheEagerCallDraws) {
  Tensor feed = linspace(0, 1, 64, dtype(kFloat64));
  manual_seed(5);
  Tensor eager1 = bernoulli(feed), eager2 = bernoulli(feed);

  Graph g;
  Tensor p = g.placeholder(kFloat64, {64}, "p");
  manual_seed(5);
  Tensor b1 = bernoulli(p), b2 = bernoulli(p);  // the same counters as the eager calls
  Session sess(g);
  std::vector<Tensor> out = sess.run({b1, b2}, {{p, feed}});
  EXPECT_TRUE(same_bits(out[0], eager1));
  EXPECT_TRUE(same_bits(out[1], eager2));
  EXPECT_FALSE(same_bits(out[0], out[1]));

  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(eliminate_common_subexpressions(o), 0);
  EXPECT_EQ(count_ops(o.graph, "bernoulli"), 2);
}

TEST(GraphRandomOps, BernoulliOfAConstantIsNotFolded) {
  Graph g;
  Tensor c = g.constant(full({8}, 0.5, dtype(kFloat64)), "c");
  Tensor b = bernoulli(c);
  (void)b;
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(fold_constants(o), 0);
  EXPECT_EQ(count_ops(o.graph, "bernoulli"), 1);
}

TEST(GraphRandomOps, ABernoulliNodeSavesAndLoadsToTheSameBits) {
  const auto path = std::filesystem::temp_directory_path() / ("nabla_bernoulli_" + std::to_string(::getpid()) + ".nbg");
  Tensor feed = linspace(0, 1, 32, dtype(kFloat32));
  Graph g;
  Tensor p = g.placeholder(kFloat32, {32}, "p");
  Tensor b = g.set_name(bernoulli(p), "b");
  Tensor want = Session(g).run(b, {{p, feed}});
  save(g, path.string());
  Graph loaded = load(path.string());
  std::filesystem::remove(path);
  Tensor got = Session(loaded).run(loaded.tensor("b"), {{loaded.tensor("p"), feed}});
  EXPECT_TRUE(same_bits(got, want));
}

}  // namespace
}  // namespace nabla::graph
