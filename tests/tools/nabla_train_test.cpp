// Runs the `nabla` binary end to end on a small synthetic Fashion-MNIST-like
// dataset that the test writes as IDX files: output text, exit codes, and the
// checkpoint it leaves (which must load into a fresh model and optimizer).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "models.h"
#include "nabla/nabla.h"
#include "train.h"
#include "support/run_program.h"

namespace nabla::tool {
namespace {

namespace fs = std::filesystem;

using nabla::testing::ProgramRun;

// The `nabla` binary with `args`; out holds stdout and stderr.
ProgramRun run_nabla(const std::string& args) {
  return nabla::testing::run_program(std::string(NABLA_TOOLS_DIR) + "/nabla " + args + " 2>&1");
}

void write_idx(const fs::path& path, uint8_t dims, const std::vector<uint32_t>& sizes, const std::vector<uint8_t>& v) {
  std::ofstream f(path, std::ios::binary);
  std::vector<uint8_t> b = {0, 0, 0x08, dims};
  for (uint32_t d : sizes) b.insert(b.end(), {uint8_t(d >> 24), uint8_t(d >> 16), uint8_t(d >> 8), uint8_t(d)});
  b.insert(b.end(), v.begin(), v.end());
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Class c (0..9) is a bright band over rows 2c+2 .. 2c+5 on a dim, noisy
// background: easy to separate, so a few epochs of the MLP must learn it.
void write_split(const fs::path& dir, const std::string& prefix, uint32_t n, uint32_t seed) {
  std::vector<uint8_t> images(n * 28 * 28), labels(n);
  uint32_t state = seed;
  auto rnd = [&] { return state = state * 1664525u + 1013904223u; };
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t c = (rnd() >> 16) % 10;
    labels[i] = static_cast<uint8_t>(c);
    for (uint32_t y = 0; y < 28; ++y)
      for (uint32_t x = 0; x < 28; ++x) {
        bool band = y >= 2 * c + 2 && y < 2 * c + 6;
        images[(i * 28 + y) * 28 + x] = static_cast<uint8_t>((band ? 180 : 20) + (rnd() >> 24) % 60);
      }
  }
  write_idx(dir / (prefix + "-images-idx3-ubyte"), 3, {n, 28, 28}, images);
  write_idx(dir / (prefix + "-labels-idx1-ubyte"), 1, {n}, labels);
}

class NablaTrain : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nabla_train_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "data");
    write_split(dir_ / "data", "train", 256, 1);
    write_split(dir_ / "data", "t10k", 64, 2);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string data() const { return (dir_ / "data").string(); }
  fs::path dir_;
};

TEST_F(NablaTrain, CnnRunsAnEpochPrintsProgressAndWritesALoadableCheckpoint) {
  std::string out = (dir_ / "run").string();
  ProgramRun r =
      run_nabla("train --data " + data() + " --out " + out + " --epochs 1 --batch-size 16 --threads 1 --workers 2");
  ASSERT_EQ(r.code, 0) << r.out;
  // Not a terminal: plain progress lines, no carriage returns.
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("data: 256 training, 64 test images"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1/1 1/16  loss "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1/1 16/16  loss "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples/s  ETA "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1/1: test loss "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("final test accuracy: "), std::string::npos) << r.out;

  const std::string ckpt = out + "/checkpoint.safetensors";
  ASSERT_TRUE(fs::exists(ckpt)) << r.out;
  nn::ModulePtr model = make_model("cnn");
  auto opt = make_optimizer("adam", model->parameters(), 1e-3);
  io::Metadata meta = io::load_checkpoint(ckpt, *model, opt.get());
  EXPECT_EQ(meta.at("model"), "cnn");
  EXPECT_EQ(meta.at("epochs"), "1");
  EXPECT_EQ(opt->state(0, 0).step, 16);  // one step per batch
  EXPECT_TRUE(opt->state(0, 0).buffers.count("exp_avg"));
  // The saved accuracy is the one printed.
  double acc = std::stod(meta.at("test_accuracy"));
  char printed[64];
  std::snprintf(printed, sizeof printed, "final test accuracy: %.2f%%", 100 * acc);
  EXPECT_NE(r.out.find(printed), std::string::npos) << r.out;
}

TEST_F(NablaTrain, MlpLearnsASeparableSyntheticSet) {
  ProgramRun r = run_nabla("train --model mlp --optimizer sgd --lr 0.05 --data " + data() + " --out " +
                           (dir_ / "mlp").string() + " --epochs 4 --batch-size 16 --threads 1 --progress none");
  ASSERT_EQ(r.code, 0) << r.out;
  auto pos = r.out.find("final test accuracy: ");
  ASSERT_NE(pos, std::string::npos) << r.out;
  double acc = std::stod(r.out.substr(pos + 21));
  EXPECT_GE(acc, 90.0) << r.out;
  EXPECT_EQ(r.out.find(" 1/16  loss"), std::string::npos) << "--progress none prints no progress\n" << r.out;
}

// The seed fixes initialization, shuffling and dropout: two runs (with 0 and
// with 2 loader workers) print the same losses and accuracies.
TEST_F(NablaTrain, SameSeedSameResultsForAnyWorkerCount) {
  auto results = [&](int workers, int seed) {
    ProgramRun r = run_nabla("train --data " + data() + " --out " + (dir_ / "det").string() +
                             " --epochs 2 --limit 96 --batch-size 32 --threads 1 --progress none --seed " +
                             std::to_string(seed) + " --workers " + std::to_string(workers));
    EXPECT_EQ(r.code, 0) << r.out;
    std::string kept;  // the per-epoch test lines without their elapsed time
    for (std::size_t p = 0; (p = r.out.find(": test loss ", p)) != std::string::npos; ++p)
      kept += r.out.substr(p, r.out.find(" (", p) - p) + "\n";
    return kept;
  };
  std::string a = results(0, 3);
  EXPECT_NE(a.find("test accuracy"), std::string::npos) << a;
  EXPECT_EQ(results(2, 3), a);
  EXPECT_NE(results(0, 4), a);
}

TEST_F(NablaTrain, LimitKeepsTheFirstSamples) {
  ProgramRun r = run_nabla("train --model mlp --data " + data() + " --out " + (dir_ / "lim").string() +
                           " --epochs 1 --limit 32 --batch-size 8 --progress none --threads 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("data: 32 training, 32 test images"), std::string::npos) << r.out;
}

TEST_F(NablaTrain, UnwritableOutputFailsBeforeTraining) {
  std::ofstream(dir_ / "file") << "not a directory";
  const std::string out = (dir_ / "file" / "run").string();
  ProgramRun r = run_nabla("train --model mlp --data " + data() + " --out " + out);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("error: nabla train: cannot create the output directory '" + out + "'"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("epoch 1/"), std::string::npos) << r.out;
}

TEST(NablaProgram, MissingDatasetSaysHowToInstallIt) {
  ProgramRun r = run_nabla("train --data /nonexistent/fashion --out /tmp/never-written");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("Fashion-MNIST was not found in '/nonexistent/fashion'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("apt-get install dataset-fashion-mnist"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--data DIR"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("/tmp/never-written"));
}

TEST(NablaProgram, HelpAndUsageErrors) {
  ProgramRun help = run_nabla("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("usage: nabla <command>"), std::string::npos) << help.out;
  ProgramRun train_help = run_nabla("train --help");
  EXPECT_EQ(train_help.code, 0);
  EXPECT_NE(train_help.out.find("--batch-size"), std::string::npos) << train_help.out;

  ProgramRun unknown = run_nabla("fit");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.out.find("unknown command 'fit'"), std::string::npos) << unknown.out;
  ProgramRun bad = run_nabla("train --epochs zero");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("--epochs got 'zero'"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("nabla train --help"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace nabla::tool
