// Runs examples/fit_fashion_cnn (train::Trainer::fit on the real Fashion-MNIST
// of scripts/install_deps.sh) small: 2000 images, 2 epochs. It must show the
// progress lines and validation values, checkpoint the best model and reach a
// test accuracy no toy could (> 70%; the full run is in docs/train_api.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "support/run_program.h"

namespace {

TEST(Examples, FitFashionCnnTrainsWithValidationCheckpointAndProgress) {
  const std::string out_dir =
      (std::filesystem::temp_directory_path() / ("nabla_fit_example_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(out_dir);
  nabla::testing::ProgramRun r = nabla::testing::run_program(
      std::string(NABLA_EXAMPLES_DIR) + "/fit_fashion_cnn --limit 2000 --epochs 2 --out " + out_dir + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("epoch 1/2 32/32  loss "), std::string::npos) << r.out;  // 2000 / 64 batches, plain lines
  EXPECT_NE(r.out.find("val_accuracy"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(out_dir + "/best.safetensors"));
  // TensorBoard's runs, as Keras lays them out.
  for (const char* run : {"/train", "/validation"}) {
    bool has_events = false;
    if (std::filesystem::is_directory(out_dir + run))
      for (const auto& f : std::filesystem::directory_iterator(out_dir + run))
        has_events = has_events || f.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
    EXPECT_TRUE(has_events) << out_dir << run;
  }
  auto pos = r.out.find("test accuracy ");
  ASSERT_NE(pos, std::string::npos) << r.out;
  double accuracy = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str() + pos, "test accuracy %lf%%", &accuracy), 1) << r.out;
  EXPECT_GT(accuracy, 70.0) << r.out;
  std::filesystem::remove_all(out_dir);
}

}  // namespace
