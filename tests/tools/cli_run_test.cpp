// `nabla run` command-line parsing: the model, repeated --feed/--fetch/--out
// in both spellings, and the usage mistakes (exit code 2).
#include <gtest/gtest.h>

#include "cli.h"
#include "support/cli_usage_error.h"

namespace nabla::tool {
namespace {

using nabla::testing::usage_error;

TEST(NablaCliRun, ParsesModelFeedsFetchesAndOuts) {
  Command c = parse_command_line({"run", "m.nbg", "--feed", "x=in.npy", "--feed=mask=m.npy", "--fetch", "y_pred",
                                  "--fetch=max:1", "--out", "y.npy", "--out=i.npy"});
  ASSERT_EQ(c.kind, Command::Kind::Run);
  EXPECT_EQ(c.run.model, "m.nbg");
  ASSERT_EQ(c.run.feeds.size(), 2u);
  EXPECT_EQ(c.run.feeds[0], (std::pair<std::string, std::string>("x", "in.npy")));
  EXPECT_EQ(c.run.feeds[1], (std::pair<std::string, std::string>("mask", "m.npy")));
  EXPECT_EQ(c.run.fetches, (std::vector<std::string>{"y_pred", "max:1"}));
  EXPECT_EQ(c.run.outs, (std::vector<std::string>{"y.npy", "i.npy"}));
  // One .npz for several fetches; no --out at all (print).
  EXPECT_EQ(parse_run_args({"m.nbg", "--fetch", "a", "--fetch", "b", "--out", "all.npz"}).outs.size(), 1u);
  EXPECT_TRUE(parse_run_args({"m.nbg", "--fetch", "a"}).outs.empty());
  EXPECT_EQ(parse_run_args({"m.nbg", "--fetch", "a"}).device, "cpu");
  EXPECT_EQ(parse_run_args({"m.nbg", "--fetch", "a", "--device", "opencl:1"}).device, "opencl:1");
  EXPECT_TRUE(parse_run_args({"--help"}).help);
  EXPECT_NE(main_help().find("run"), std::string::npos);
  EXPECT_NE(run_help().find("--feed NAME=FILE"), std::string::npos);
}

TEST(NablaCliRun, UsageMistakes) {
  EXPECT_EQ(usage_error({"run"}), "nabla run: expected the saved graph (a .nbg or .onnx file) as the first argument");
  EXPECT_EQ(usage_error({"run", "m.nbg"}), "nabla run: expected at least one --fetch NAME");
  EXPECT_EQ(usage_error({"run", "m.nbg", "n.nbg"}), "nabla run: unexpected argument 'n.nbg' (the model is 'm.nbg')");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--feed", "x", "--fetch", "y"}),
            "nabla run: --feed got 'x', expected NAME=FILE.npy");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--feed", "=a.npy", "--fetch", "y"}),
            "nabla run: --feed got '=a.npy', expected NAME=FILE.npy");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--fetch"}), "nabla run: --fetch needs a value");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--fetch="}), "nabla run: --fetch got an empty value");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--epochs", "2"}),
            "nabla run: unknown option '--epochs' (expected --feed, --fetch, --out, --device)");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--fetch", "a", "--device", "tpu"}),
            "nabla run: --device got 'tpu', expected cpu, opencl[:N] or cuda[:N]");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--fetch", "a", "--fetch", "b", "--out", "a.npy"}),
            "nabla run: 1 --out for 2 --fetch; give one .npy per fetch (in the same order) or a single .npz");
  EXPECT_EQ(usage_error({"run", "m.nbg", "--fetch", "a", "--out", "a.txt"}),
            "nabla run: --out 'a.txt' must end in .npy (one per fetch) or be a single .npz");
}

}  // namespace
}  // namespace nabla::tool
