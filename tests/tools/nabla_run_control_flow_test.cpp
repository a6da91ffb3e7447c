// `nabla run` on a saved graph with control flow: an RNN loop
// (h <- tanh(W h + x), 5 steps) with a cond choosing its output and the loop's
// gradient, trained a few steps in this process and saved with
// Session::save, runs in a fresh process to the same bits as here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "nabla/nabla.h"
#include "support/run_program.h"
#include "support/same_bits.h"

namespace nabla::tool {
namespace {

namespace fs = std::filesystem;

using nabla::testing::same_bits;

TEST(NablaRunControlFlow, AFreshProcessComputesTheSameBits) {
  const fs::path dir = fs::temp_directory_path() / ("nabla_run_control_flow_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto path = [&](const std::string& name) { return (dir / name).string(); };
  manual_seed(7);
  graph::Graph g;
  graph::LocationScope at;
  Tensor x = g.placeholder(kFloat32, {4}, "x");
  Tensor h0 = g.placeholder(kFloat32, {4}, "h0");
  Tensor w = g.variable(randn({4, 4}) * 0.5, "w");
  Tensor h = graph::while_loop([&](const std::vector<Tensor>& v) { return v[0] < 5; },
                               [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                                 return {v[0] + 1, tanh(matmul(w, v[1]) + x)};
                               },
                               {zeros({}, kInt64), h0})[1];
  Tensor y = g.set_name(graph::cond(
                            sum(h) > 0.0, [&] { return h * 2.0; }, [&] { return -h; }),
                        "y");
  Tensor loss = g.set_name(sum(y * y), "loss");
  Tensor train = graph::assign_sub(w, graph::gradients(loss, {w})[0] * 0.01);
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  const Tensor xv = randn({4}), h0v = randn({4});
  for (int i = 0; i < 3; ++i) sess.run(train, {{x, xv}, {h0, h0v}});
  sess.save(path("rnn.nbg"));
  const std::vector<Tensor> want = sess.run({y, loss}, {{x, xv}, {h0, h0v}});
  data::write_npy(path("x.npy"), xv);
  data::write_npy(path("h0.npy"), h0v);

  nabla::testing::ProgramRun r = nabla::testing::run_program(
      std::string(NABLA_TOOLS_DIR) + "/nabla run " + path("rnn.nbg") + " --feed x=" + path("x.npy") + " --feed h0=" +
      path("h0.npy") + " --fetch y --fetch loss --out " + path("y.npy") + " --out " + path("loss.npy") + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(same_bits(data::read_npy(path("y.npy")), want[0])) << data::read_npy(path("y.npy")) << "\nvs\n" << want[0];
  EXPECT_TRUE(same_bits(data::read_npy(path("loss.npy")), want[1]));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nabla::tool
