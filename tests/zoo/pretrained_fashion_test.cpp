// The pretrained Fashion-MNIST CNN shipped in models/ (issue 16, item 6):
// zoo::fashion_cnn({.pretrained = true}) reaches its stated test accuracy on
// the real test set (dataset-fashion-mnist, installed by scripts/install_deps.sh),
// its file says so in its metadata, and missing or wrong weights are clear errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "nabla/nabla.h"

namespace {

using namespace nabla;

const char* kData = "/usr/share/datasets/fashion-mnist";

TEST(ZooPretrained, FashionCnnReachesItsStatedTestAccuracy) {
  auto model = zoo::fashion_cnn({.pretrained = true});
  model->eval();
  data::FashionMnist data = data::load_fashion_mnist(kData);
  ASSERT_EQ(data.test->size(), 10000);
  data::DataLoader loader(data.test, {.batch_size = 500, .collate = data::collate_normalized});
  int64_t correct = 0;
  NoGradGuard no_grad;
  for (const data::Example& batch : loader)
    correct += eq((*model)(batch.data).argmax(1), batch.target).sum().item<int64_t>();
  // Sums in another order (another CPU's kernels, thread count) may flip a
  // borderline image or two: allow 3 of 10000.
  EXPECT_NEAR(static_cast<double>(correct) / 10000.0, zoo::kFashionCnnTestAccuracy, 3e-4) << correct << " correct";

  io::Metadata meta;
  io::load_safetensors(zoo::pretrained_path("fashion_cnn"), &meta);
  EXPECT_EQ(meta.at("nabla.pretrained"), "1");
  EXPECT_NEAR(std::stod(meta.at("test_accuracy")), zoo::kFashionCnnTestAccuracy, 1e-12);
  EXPECT_EQ(meta.at("test_samples"), "10000");
}

TEST(ZooPretrained, TheModelIsReturnedInTrainingModeWithItsBatchNormStatistics) {
  auto model = zoo::fashion_cnn({.pretrained = true});
  EXPECT_TRUE(model->is_training());
  // Trained statistics, not the fresh layer's zeros and ones.
  EXPECT_GT(model->state_dict().at("3.running_mean").abs().sum().item<double>(), 0.1);
  EXPECT_GT(model->state_dict().at("7.num_batches_tracked").item<int64_t>(), 4000);
}

TEST(ZooPretrained, NablaModelsDirIsLookedInFirstAndNamedInTheError) {
  const auto dir = std::filesystem::temp_directory_path() / ("nabla_models_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(zoo::pretrained_path("fashion_cnn"), dir / "fashion_cnn.safetensors");
  ::setenv("NABLA_MODELS_DIR", dir.c_str(), 1);
  EXPECT_EQ(zoo::pretrained_path("fashion_cnn"), (dir / "fashion_cnn.safetensors").string());
  try {
    zoo::pretrained_path("resnet1000");
    FAIL() << "expected nabla::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("zoo::pretrained_path"), std::string::npos) << what;
    EXPECT_NE(what.find((dir / "resnet1000.safetensors").string()), std::string::npos) << what;
    EXPECT_NE(what.find("NABLA_MODELS_DIR"), std::string::npos) << what;
  }
  ::unsetenv("NABLA_MODELS_DIR");
  std::filesystem::remove_all(dir);
}

TEST(ZooPretrained, WeightsOfAnotherModelAreRefused) {
  const auto path = std::filesystem::temp_directory_path() / ("nabla_mlp_" + std::to_string(::getpid()) + ".safetensors");
  io::TensorDict mlp;
  for (const auto& [key, t] : zoo::fashion_mlp()->state_dict()) mlp.emplace_back(key, t);
  io::save_safetensors(path.string(), mlp);
  EXPECT_THROW(zoo::fashion_cnn({.weights = path.string()}), Error);
  EXPECT_THROW(zoo::fashion_cnn({.pretrained = true, .weights = path.string()}), Error);
  std::filesystem::remove(path);
}

}  // namespace
