// One graph over several processes (graph::DeviceScope("rank:1/cpu")): every
// rank builds the same graph and Session (SessionOptions::transport over MPI)
// and runs the same fetches; each runs the nodes placed on it, and only the
// values that cross between ranks are sent. Model parallelism (the first
// layer on rank 1) and a parameter server (the variables on rank 1) give the
// unsplit graph's results. Skipped in a world of one; rank 2 of 3 is idle.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "nabla/core/random.h"
#include "nabla/distributed/distributed.h"
#include "nabla/graph/gradients.h"
#include "nabla/graph/optimizers.h"
#include "nabla/graph/session.h"
#include "nabla/ops/ops.h"
#include "nabla/testing/assert_close.h"
#include "support/error_message.h"

namespace nabla::distributed {
namespace {

constexpr int64_t N = 8, D = 6, H = 5;

enum class Split { None, FirstLayerOnRank1, VariablesOnRank1 };

struct Mlp {
  graph::Graph g;
  Tensor x, y, w1, w2, out, loss, train, init;

  explicit Mlp(Split split) {
    manual_seed(3);
    x = g.placeholder(kFloat32, {N, D}, "x");
    y = g.placeholder(kFloat32, {N, D}, "y");
    std::optional<graph::DeviceScope> place;
    if (split == Split::FirstLayerOnRank1) place.emplace(g, "rank:1/cpu");
    w1 = g.variable(randn({D, H}), "w1");
    Tensor h = relu(matmul(x, w1));
    place.reset();  // the second layer and the loss on rank 0
    w2 = g.variable(randn({H, D}), "w2");
    if (split == Split::VariablesOnRank1) {  // compute on rank 0
      g.set_device(w1, "rank:1/cpu");
      g.set_device(w2, "rank:1/cpu");
    }
    out = matmul(h, w2);
    loss = mean(pow(out - y, 2));
    train = graph::GradientDescentOptimizer(0.1).minimize(loss);
    init = g.global_variables_initializer();
  }
};

graph::Feeds feeds_for(const Mlp& m) {
  manual_seed(4);
  return {{m.x, randn({N, D})}, {m.y, randn({N, D})}};
}

graph::SessionOptions over_mpi() {
  graph::SessionOptions o;
  o.transport = graph_transport();
  return o;
}

struct Result {
  Tensor out;
  std::vector<Tensor> losses;
};

Result forward_and_train(const Mlp& m, graph::Session& s) {
  graph::Feeds feeds = feeds_for(m);
  s.run(m.init);
  Result r;
  r.out = s.run(m.out, feeds);
  for (int step = 0; step < 3; ++step) r.losses.push_back(s.run({m.loss, m.train}, feeds)[0]);
  return r;
}

void expect_same_as_unsplit(Split split, int64_t forward_sends, int64_t forward_bytes) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (mpirun -np 2)";
  Mlp plain(Split::None);
  graph::Session whole(plain.g);
  Result expected = forward_and_train(plain, whole);

  Mlp m(split);
  graph::Session s(m.g, over_mpi());
  graph::Feeds feeds = feeds_for(m);
  s.run(m.init);
  Tensor out = s.run(m.out, feeds);
  const graph::Session::Stats& st = s.stats();
  // The forward pass: on rank 0 and 1 exactly the crossing values, the
  // same number each way; rank 2 takes no part.
  const int64_t mine = rank() < 2 ? forward_sends : 0;
  EXPECT_EQ(st.sent_tensors + st.received_tensors, mine) << "rank " << rank();
  EXPECT_EQ(st.sent_bytes + st.received_bytes, rank() < 2 ? forward_bytes : 0) << "rank " << rank();
  Result got = forward_and_train(m, s);
  if (rank() == 0) {  // the fetches are computed (and returned) on rank 0
    testing::assert_close(out, expected.out);
    testing::assert_close(got.out, expected.out);
    for (std::size_t i = 0; i < got.losses.size(); ++i) testing::assert_close(got.losses[i], expected.losses[i]);
  } else {
    EXPECT_FALSE(out.defined());  // computed on rank 0
  }
  // The variables on rank 1 hold the unsplit graph's trained values.
  if (rank() == 1) testing::assert_close(s.variable_value(m.w1), whole.variable_value(plain.w1));
  if (rank() != 1)
    testing::expect_error(testing::error_of([&] { s.variable_value(m.w1); }), {"'w1'", "rank:1/cpu"});
  // Every message sent was received, by the rank it was for.
  Tensor counts = tensor(std::vector<int64_t>{s.stats().sent_tensors, s.stats().received_tensors,
                                               s.stats().sent_bytes, s.stats().received_bytes});
  ProcessGroup::world().all_reduce(counts);
  EXPECT_EQ(counts[0].item<int64_t>(), counts[1].item<int64_t>());
  EXPECT_EQ(counts[2].item<int64_t>(), counts[3].item<int64_t>());
}

TEST(GraphPlacementMpi, ModelParallelMlpMatchesTheUnsplitGraph) {
  // x to rank 1, h back to rank 0.
  expect_same_as_unsplit(Split::FirstLayerOnRank1, 2, (N * D + N * H) * 4);
}

TEST(GraphPlacementMpi, ParameterServerMatchesTheUnsplitGraph) {
  // w1 and w2 from rank 1 to rank 0; the gradients go back in training.
  expect_same_as_unsplit(Split::VariablesOnRank1, 2, (D * H + H * D) * 4);
}

TEST(GraphPlacementMpi, ARankBeyondTheJobIsAnErrorOnEveryRank) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  g.set_name(g.set_device(x * 2, "rank:9/cpu"), "far");
  testing::expect_error(testing::error_of([&] { graph::Session s(g, over_mpi()); }),
                        {"Session: node 'far'", "'rank:9/cpu'", "the job has"});
}

}  // namespace
}  // namespace nabla::distributed
