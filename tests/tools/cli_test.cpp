// `nabla` command-line parsing: defaults, both value spellings, every
// option, and the usage mistakes that must exit with code 2.
#include "cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "nabla/train/progress.h"
#include "support/cli_usage_error.h"
#include "train_callbacks.h"

namespace nabla::tool {
namespace {

using nabla::testing::usage_error;

TEST(NablaCli, NoArgumentsOrHelpShowsHelp) {
  EXPECT_EQ(parse_command_line({}).kind, Command::Kind::Help);
  EXPECT_EQ(parse_command_line({"--help"}).kind, Command::Kind::Help);
  EXPECT_EQ(parse_command_line({"-h"}).kind, Command::Kind::Help);
  EXPECT_NE(main_help().find("train"), std::string::npos);
}

TEST(NablaCli, TrainWithoutOptionsUsesTheDefaults) {
  Command c = parse_command_line({"train"});
  ASSERT_EQ(c.kind, Command::Kind::Train);
  EXPECT_EQ(c.train.model, "cnn");
  EXPECT_EQ(c.train.optimizer, "adam");
  EXPECT_EQ(c.train.epochs, 5);
  EXPECT_EQ(c.train.batch_size, 64);
  EXPECT_EQ(c.train.schedule, "cosine");
  EXPECT_EQ(c.train.workers, 2);
  EXPECT_EQ(c.train.device, "cpu");
  EXPECT_DOUBLE_EQ(c.train.lr, 1e-3);
  EXPECT_EQ(c.train.data, "/usr/share/datasets/fashion-mnist");
  EXPECT_EQ(c.train.out, "runs/fashion-cnn");
  EXPECT_FALSE(c.train.help);
}

TEST(NablaCli, ParsesEveryOptionInBothSpellings) {
  TrainConfig c = parse_train_args({"--model",
                                    "mlp",
                                    "--epochs=3",
                                    "--batch-size",
                                    "128",
                                    "--lr=0.05",
                                    "--optimizer",
                                    "sgd",
                                    "--schedule=none",
                                    "--threads",
                                    "2",
                                    "--workers=0",
                                    "--seed",
                                    "18446744073709551615",
                                    "--data",
                                    "/tmp/d",
                                    "--out=/tmp/o",
                                    "--limit",
                                    "100",
                                    "--progress",
                                    "lines",
                                    "--device=opencl"});
  EXPECT_EQ(c.model, "mlp");
  EXPECT_EQ(c.epochs, 3);
  EXPECT_EQ(c.batch_size, 128);
  EXPECT_DOUBLE_EQ(c.lr, 0.05);
  EXPECT_EQ(c.optimizer, "sgd");
  EXPECT_EQ(c.schedule, "none");
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.workers, 0);
  EXPECT_EQ(c.seed, UINT64_MAX);
  EXPECT_EQ(c.data, "/tmp/d");
  EXPECT_EQ(c.out, "/tmp/o");
  EXPECT_EQ(c.limit, 100);
  EXPECT_EQ(c.progress, "lines");
  EXPECT_EQ(c.device, "opencl:0");
  EXPECT_EQ(parse_train_args({"--device", "cuda:1"}).device, "cuda:1");
  EXPECT_TRUE(parse_train_args({"--epochs", "2", "--help"}).help);
  EXPECT_EQ(parse_train_args({"--lr", "1e-4"}).lr, 1e-4);
  EXPECT_FALSE(parse_train_args({}).resume);
  EXPECT_TRUE(parse_train_args({"--resume", "--epochs", "2"}).resume);
  EXPECT_FALSE(parse_train_args({}).distributed);
  EXPECT_TRUE(parse_train_args({"--distributed", "--epochs", "2"}).distributed);
}

TEST(NablaCli, UsageMistakesNameTheOptionAndWhatWasExpected) {
  EXPECT_EQ(usage_error({"fit"}), "nabla: unknown command 'fit' (the commands are: train, evaluate, predict, run, export)");
  EXPECT_EQ(usage_error({"--verbose"}), "nabla: unknown option '--verbose'");
  EXPECT_EQ(usage_error({"train", "--epoch", "3"}), "nabla train: unknown option '--epoch'");
  EXPECT_EQ(usage_error({"train", "extra"}), "nabla train: unexpected argument 'extra' (train takes only options)");
  EXPECT_EQ(usage_error({"train", "--epochs"}), "nabla train: --epochs needs a value");
  EXPECT_EQ(usage_error({"train", "--epochs", "0"}), "nabla train: --epochs got '0', expected an integer >= 1");
  EXPECT_EQ(usage_error({"train", "--epochs", "3x"}), "nabla train: --epochs got '3x', expected an integer >= 1");
  EXPECT_EQ(usage_error({"train", "--epochs="}), "nabla train: --epochs got '', expected an integer >= 1");
  EXPECT_EQ(usage_error({"train", "--lr", "-1"}), "nabla train: --lr got '-1', expected a number > 0");
  EXPECT_EQ(usage_error({"train", "--lr", "fast"}), "nabla train: --lr got 'fast', expected a number > 0");
  EXPECT_EQ(usage_error({"train", "--seed", "-3"}), "nabla train: --seed got '-3', expected a non-negative integer");
  EXPECT_EQ(usage_error({"train", "--model", "resnet"}),
            "nabla train: --model got 'resnet', expected one of: cnn, mlp");
  EXPECT_EQ(usage_error({"train", "--optimizer", "lbfgs"}),
            "nabla train: --optimizer got 'lbfgs', expected one of: sgd, adam, adamw, rmsprop, adagrad");
  EXPECT_EQ(usage_error({"train", "--out="}), "nabla train: --out got an empty value, expected a path");
  EXPECT_EQ(usage_error({"train", "--device", "gpu"}),
            "nabla train: --device got 'gpu', expected cpu, opencl[:N] or cuda[:N]");
  EXPECT_EQ(usage_error({"train", "--resume=runs/x"}),
            "nabla train: --resume takes no value (got 'runs/x'); it resumes from checkpoint.safetensors in --out DIR");
  EXPECT_EQ(usage_error({"train", "--distributed=2"}),
            "nabla train: --distributed takes no value (got '2'); the ranks come from mpirun");
}

TEST(NablaCli, HelpListsEveryOption) {
  std::string h = train_help();
  for (const char* opt : {"--model", "--epochs", "--batch-size", "--lr", "--optimizer", "--schedule", "--threads",
                          "--workers", "--device", "--seed", "--data", "--out", "--logdir", "--limit", "--progress",
                          "--resume", "--distributed", "--help"})
    EXPECT_NE(h.find(opt), std::string::npos) << opt;
}

TEST(NablaCli, EvaluateAndPredictTakeTrainsModelOptionsAndTheirOwn) {
  Command e = parse_command_line({"evaluate", "--config", "c.json", "--checkpoint=w.safetensors", "--limit", "10"});
  ASSERT_EQ(e.kind, Command::Kind::Evaluate);
  EXPECT_EQ(e.infer.checkpoint, "w.safetensors");
  EXPECT_EQ(e.infer.train.config_file, "c.json");
  EXPECT_EQ(e.infer.train.limit, 10);
  EXPECT_TRUE(e.infer.train.given.count("--limit"));
  Command p = parse_command_line({"predict", "--model", "mlp", "--input", "x.npy", "--output", "y.npz"});
  ASSERT_EQ(p.kind, Command::Kind::Predict);
  EXPECT_EQ(p.infer.input, "x.npy");
  EXPECT_EQ(p.infer.output, "y.npz");
  EXPECT_EQ(p.infer.train.model, "mlp");
  EXPECT_TRUE(parse_command_line({"predict", "--help"}).infer.help);

  EXPECT_EQ(usage_error({"evaluate", "--epochs", "3"})
                .rfind("nabla evaluate: unknown option '--epochs' (evaluate takes "
                       "--checkpoint, ",
                       0),
            0u);
  EXPECT_EQ(usage_error({"evaluate", "--limit", "x"}), "nabla evaluate: --limit got 'x', expected an integer >= 0");
  EXPECT_EQ(usage_error({"evaluate", "--checkpoint"}), "nabla evaluate: --checkpoint needs a value");
  EXPECT_EQ(usage_error({"evaluate", "w.safetensors"}),
            "nabla evaluate: unexpected argument 'w.safetensors' (evaluate takes only options)");
  EXPECT_NE(
      usage_error({"predict", "--data", "d", "--input", "x.npy", "--output", "y.npy"}).find("unknown option '--data'"),
      std::string::npos);
  EXPECT_EQ(usage_error({"predict", "--output", "y.npy"}), "nabla predict: expected --input FILE.npy (the inputs)");
  EXPECT_EQ(usage_error({"predict", "--input", "x.csv", "--output", "y.npy"}),
            "nabla predict: --input 'x.csv' must be a .npy file (the inputs, one per row)");
  EXPECT_EQ(usage_error({"predict", "--input", "x.npy", "--output", "y.txt"}),
            "nabla predict: --output 'y.txt' must end in .npy (the outputs) or .npz (outputs and classes)");
  EXPECT_NE(main_help().find("evaluate"), std::string::npos);
  EXPECT_NE(evaluate_help().find("--checkpoint"), std::string::npos);
  EXPECT_NE(predict_help().find("--output"), std::string::npos);
}

// nabla train's bar is nabla/train/progress.h's, showing loss_and_accuracy().
TEST(NablaProgress, FormatsDurationsAndLines) {
  EXPECT_EQ(train::format_duration(0), "0:00");
  EXPECT_EQ(train::format_duration(61.4), "1:01");
  EXPECT_EQ(train::format_duration(3725), "1:02:05");
  std::vector<std::string> shown = loss_and_accuracy({{"loss", 0.51234}, {"accuracy", 0.8125}, {"lr", 0.1}});
  EXPECT_EQ(train::format_progress("epoch 1/2", 5, 10, shown, 1234.4, 42, 10),
            "epoch 1/2 [=====>    ] 5/10  loss 0.5123  acc 81.25%  1234 samples/s  ETA 0:42");
  EXPECT_EQ(train::format_progress("epoch 1/2", 5, 10, shown, 1234.4, 42, 0),
            "epoch 1/2 5/10  loss 0.5123  acc 81.25%  1234 samples/s  ETA 0:42");
}

TEST(NablaProgress, LinesModePrintsAboutTenLinesAndBarModeRedrawsInPlace) {
  std::ostringstream lines, bar;
  train::ProgressBar pl(lines, train::ProgressBar::Mode::Lines, "e", 100),
      pb(bar, train::ProgressBar::Mode::Bar, "e", 100);
  for (int i = 1; i <= 100; ++i) {
    pl.update(i, i * 4, loss_and_accuracy({{"loss", 0.5}, {"accuracy", 0.5}}));
    pb.update(i, i * 4, loss_and_accuracy({{"loss", 0.5}, {"accuracy", 0.5}}));
  }
  pl.finish();
  pb.finish();
  std::string l = lines.str(), b = bar.str();
  EXPECT_EQ(std::count(l.begin(), l.end(), '\n'), 11) << l;  // batches 1, 11, ..., 91 and the final line
  EXPECT_EQ(l.find('\r'), std::string::npos);
  EXPECT_NE(l.find("e 100/100  loss 0.5000  acc 50.00%"), std::string::npos) << l;
  EXPECT_EQ(std::count(b.begin(), b.end(), '\n'), 1);
  EXPECT_GE(std::count(b.begin(), b.end(), '\r'), 1);
  EXPECT_NE(b.find("100/100"), std::string::npos);
}

}  // namespace
}  // namespace nabla::tool
