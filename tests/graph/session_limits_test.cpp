// SessionOptions::max_loop_iterations and max_run_bytes (issue 13, defect 6):
// a saved graph whose while_loop bound was raised (checksums fixed, so it
// loads) stops with a nabla::Error naming the loop and the option instead of
// running for ever or growing WhileGrad's history until the process dies;
// a run that would take more memory than allowed names the op and the bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/nbg_bytes.h"
#include "tests/support/nbg_file_test.h"

namespace nabla::graph {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::fix_checksums;
using nabla::testing::get_le;
using nabla::testing::kNbgHeader;
using nabla::testing::kNoError;
using nabla::testing::put_le;

constexpr int64_t kBound = 300;

class SessionLimits : public nabla::testing::NbgFileTest {
 protected:
  void SetUp() override {
    // h = h * 1.01 + w, kBound times, and its gradient (a WhileGrad node,
    // which keeps the loop variables of every iteration).
    Graph g;
    Tensor w = g.placeholder(kFloat32, {3}, "w");
    Tensor h0 = g.placeholder(kFloat32, {3}, "h0");
    Tensor h = while_loop([&](const std::vector<Tensor>& v) { return v[0] < kBound; },
                          [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                            return {v[0] + 1, v[1] * 1.01 + w};
                          },
                          {zeros({}, kInt64), h0})[1];
    g.set_name(h, "h");
    g.set_name(gradients(sum(h), {w})[0], "dw");
    save_good("nabla_session_limits", g);
  }
  // The saved file with the loop bound set to `bound`, checksums fixed. The
  // bound is an int64 constant of the loop's condition, stored twice: in the
  // loop and in its gradient's copy of the loop.
  std::string with_bound(int64_t bound) {
    std::string b = bytes_;
    int found = 0;
    for (std::size_t i = kNbgHeader; i + 8 <= b.size(); ++i) {
      if (get_le(b, i, 8) != static_cast<uint64_t>(kBound)) continue;
      put_le(b, i, static_cast<uint64_t>(bound), 8);
      ++found;
    }
    EXPECT_EQ(found, 2) << "the bound's int64 should occur in the loop and in its gradient";
    fix_checksums(b);
    nabla::testing::write_bytes(path("edited.nbg"), b);
    return path("edited.nbg");
  }
  Feeds feeds(const Graph& g) { return {{g.tensor("w"), ones({3})}, {g.tensor("h0"), zeros({3})}}; }
};

TEST_F(SessionLimits, DefaultsAreDocumented) {
  SessionOptions o;
  EXPECT_EQ(o.max_loop_iterations, int64_t(1) << 24);
  EXPECT_EQ(o.max_run_bytes, physical_memory_bytes());
  EXPECT_GT(o.max_run_bytes, int64_t(1) << 26);
}

// A loop that runs exactly the limit passes; one more iteration is an error.
TEST_F(SessionLimits, TheLimitIsExact) {
  Graph g = load(good_);
  SessionOptions o;
  o.max_loop_iterations = kBound;
  Session at_limit(g, o);
  EXPECT_EQ(error_of([&] { at_limit.run(std::vector<std::string>{"h", "dw"}, {{"w", ones({3})}, {"h0", zeros({3})}}); }),
            kNoError);
  o.max_loop_iterations = kBound - 1;
  Session below(g, o);
  expect_error(error_of([&] { below.run(g.tensor("h"), feeds(g)); }),
               {"Session::run: while_loop node", "299 iterations", "SessionOptions::max_loop_iterations"});
}

// The report: the bound raised to 2^44 in the file. Before, the run went on
// for ever (the loop) or until memory ran out (its gradient's history).
TEST_F(SessionLimits, ALoopBoundRaisedToTwoToThe44InTheFileIsAnError) {
  Graph g = load(with_bound(int64_t(1) << 44));  // loads: the file is valid
  SessionOptions o;
  o.max_loop_iterations = 10000;
  Session s(g, o);
  expect_error(error_of([&] { s.run(g.tensor("h"), feeds(g)); }),
               {"while_loop node", "10000 iterations", "max_loop_iterations"});
  expect_error(error_of([&] { s.run(g.tensor("dw"), feeds(g)); }),
               {"while_loop node", "10000 iterations", "max_loop_iterations"});
  // The session still runs what it can.
  Graph good = load(good_);
  Session fine(good, o);
  EXPECT_EQ(error_of([&] { fine.run(good.tensor("h"), feeds(good)); }), kNoError);
}

// With no iteration limit the gradient's history is stopped by the memory
// limit: the op that asked, the bytes, the limit.
TEST_F(SessionLimits, TheGradientsHistoryIsStoppedByTheMemoryLimit) {
  Graph g = load(with_bound(int64_t(1) << 44));
  SessionOptions o;
  o.max_loop_iterations = -1;
  o.max_run_bytes = int64_t(4) << 20;
  Session s(g, o);
  // Only the gradient: its plan does not run the forward loop node itself.
  ASSERT_EQ(s.plan_text({g.tensor("dw")}, feeds(g)).find("= while("), std::string::npos)
      << s.plan_text({g.tensor("dw")}, feeds(g));
  expect_error(error_of([&] { s.run(g.tensor("dw"), feeds(g)); }),
               {"out of memory", "bytes", "SessionOptions::max_run_bytes", "past its limit of 4194304 bytes"});
}

TEST(SessionMemoryLimit, AnOpPastTheLimitIsAnErrorNamingItAndTheBytes) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {512, 512}, "x");
  Tensor y = matmul(x, x);
  SessionOptions o;
  o.max_run_bytes = 512 * 1024;  // the 1 MiB result does not fit
  Session s(g, o);
  const std::string msg = error_of([&] { s.run(y, {{x, ones({512, 512})}}); });
  expect_error(msg, {"out of memory for a tensor of shape [512, 512] and dtype float32", "1048576 bytes",
                     "SessionOptions::max_run_bytes", "past its limit of 524288 bytes"});
  EXPECT_NE(msg.find("mm"), std::string::npos) << msg;
  // With room it runs; -1 is no limit.
  o.max_run_bytes = -1;
  Session unlimited(g, o);
  EXPECT_EQ(unlimited.run(y, {{x, ones({512, 512})}}).at<float>({0, 0}), 512.0f);
}

}  // namespace
}  // namespace nabla::graph
