// Acceptance 6 of issue 16 (first half): zoo models given the weights of
// Debian's python3-torchvision models (random initialization, nothing
// downloaded) give torchvision's logits on the same input, in eval mode and
// in train mode (with the same updated BatchNorm statistics); and every zoo
// model's state dict has torchvision's keys, dtypes and shapes, in order.
// export_torchvision.py writes the weights, input and torchvision's outputs
// (or the keys); this test loads them with zoo::load_weights (strict), and
// runs examples/zoo_classify on ResNet-18's export. Skips,
// saying why, when /usr/bin/python3 cannot import torchvision.
//
// "Relative" differences are max |nabla - torch| / max |torch| over a tensor:
// elementwise ratios are meaningless for logits near zero.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "nabla/io/safetensors.h"
#include "nabla/nabla.h"
#include "nabla/zoo/zoo.h"
#include "support/run_program.h"

namespace nabla::zoo {
namespace {

namespace fs = std::filesystem;

const std::string kPython = "/usr/bin/python3";
const std::string kScript = std::string(NABLA_SOURCE_DIR) + "/tests/zoo/export_torchvision.py";

// Asked once: importing torchvision takes seconds.
bool have_torchvision() {
  static const bool have =
      nabla::testing::run_program(kPython + " -c 'import torchvision' >/dev/null 2>&1").code == 0;
  return have;
}

#define SKIP_WITHOUT_TORCHVISION()                                                                         \
  if (!have_torchvision())                                                                                 \
  GTEST_SKIP() << kPython << " cannot import torchvision (scripts/install_deps.sh installs "              \
                             "python3-torchvision); the zoo was not compared with torchvision"

// A fresh directory for one export, removed at the end of the test.
struct TempDir {
  explicit TempDir(const std::string& tag)
      : path(fs::temp_directory_path() / ("nabla_zoo_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
};

double max_abs(const Tensor& t) { return t.abs().max().item<double>(); }

double relative_difference(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.shape(), want.shape());
  double scale = max_abs(want);
  return max_abs(got.to(kFloat64) - want.to(kFloat64)) / (scale > 0 ? scale : 1.0);
}

// Builds zoo model `name`, loads torchvision's weights and compares both
// modes' outputs and the buffers after the train-mode forward.
void compare_with_torchvision(const std::string& name, int64_t size, const ModelOptions& options) {
  TempDir dir(name);
  auto start = std::chrono::steady_clock::now();
  auto run = nabla::testing::run_program(kPython + " " + kScript + " " + name + " " + dir.path.string() + " " +
                                         std::to_string(size) + " 2 2>&1");
  ASSERT_EQ(run.code, 0) << run.out;
  auto exported = std::chrono::steady_clock::now();

  nn::ModulePtr model = create(name, options);
  load_weights(*model, (dir.path / "weights.safetensors").string());
  io::TensorDict io = io::load_safetensors((dir.path / "io.safetensors").string());
  const Tensor& input = io::get(io, "input");

  model->eval();
  double eval_diff = relative_difference(model->forward(input), io::get(io, "logits_eval"));
  EXPECT_LE(eval_diff, 1e-4) << name << " eval-mode logits";

  model->train();
  double train_diff = relative_difference(model->forward(input), io::get(io, "logits_train"));
  EXPECT_LE(train_diff, 1e-4) << name << " train-mode logits";
  double buffer_diff = 0;
  int buffers = 0;
  for (const auto& [key, buf] : model->named_buffers()) {
    const Tensor& want = io::get(io, "after_train." + key);
    if (buf.dtype() == kInt64) {
      EXPECT_TRUE(equal(buf, want)) << key;
    } else {
      double d = relative_difference(buf, want);
      EXPECT_LE(d, 1e-4) << key;
      buffer_diff = std::max(buffer_diff, d);
    }
    ++buffers;
  }
  auto done = std::chrono::steady_clock::now();

  // examples/zoo_classify on the same weights and input prints torchvision's top-3 classes
  // (in a build with the examples: NABLA_BUILD_EXAMPLES=OFF leaves NABLA_EXAMPLES_DIR undefined).
#ifdef NABLA_EXAMPLES_DIR
  if (name == "resnet18") {
    auto classify = nabla::testing::run_program(std::string(NABLA_EXAMPLES_DIR) + "/zoo_classify resnet18 " +
                                                (dir.path / "weights.safetensors").string() + " " +
                                                (dir.path / "input.npy").string() + " 3 2>&1");
    ASSERT_EQ(classify.code, 0) << classify.out;
    Tensor top = std::get<1>(topk(io::get(io, "logits_eval"), 3, 1));
    for (int64_t i = 0; i < 2; ++i) {
      std::string want = "image " + std::to_string(i) + ":";
      for (int64_t k = 0; k < 3; ++k) want += " class " + std::to_string(top[i][k].item<int64_t>()) + " (";
      std::string line = classify.out.substr(classify.out.find("image " + std::to_string(i)));
      line = line.substr(0, line.find('\n'));
      std::string classes_only;  // the line without the probabilities
      for (std::size_t pos = 0; pos < line.size();) {
        std::size_t open = line.find('(', pos);
        classes_only += line.substr(pos, open == std::string::npos ? std::string::npos : open + 1 - pos);
        if (open == std::string::npos) break;
        pos = line.find(')', open) + 1;
      }
      EXPECT_EQ(classes_only, want) << classify.out;
    }
  }
#endif
  using seconds = std::chrono::duration<double>;
  std::cout << "[ zoo      ] " << name << " (" << size << "x" << size
            << ", batch 2): max relative difference eval " << eval_diff << ", train " << train_diff << ", "
            << buffers << " buffers " << buffer_diff << "; torchvision export "
            << seconds(exported - start).count() << " s, nabla " << seconds(done - exported).count() << " s\n";
}

TEST(ZooTorchvision, ResNet18GivesTorchvisionsLogits) {
  SKIP_WITHOUT_TORCHVISION();
  compare_with_torchvision("resnet18", 64, {});
}

TEST(ZooTorchvision, VGG11GivesTorchvisionsLogits) {
  SKIP_WITHOUT_TORCHVISION();
  compare_with_torchvision("vgg11", 32, {.dropout = 0.0});
}

TEST(ZooTorchvision, MobileNetV2GivesTorchvisionsLogits) {
  SKIP_WITHOUT_TORCHVISION();
  compare_with_torchvision("mobilenet_v2", 96, {.dropout = 0.0});
}

// The other models add only depth (resnet34, vgg16), Bottleneck blocks
// (resnet50) or BatchNorm (vgg16_bn) to the three above: their state dicts
// must match torchvision's entry for entry (names, order, dtypes, shapes), so
// torchvision's weights load. (Each VGG draws 138M random numbers, in Python
// and here: one is enough.)
TEST(ZooTorchvision, OtherModelsHaveTorchvisionsStateDictKeysAndShapes) {
  SKIP_WITHOUT_TORCHVISION();
  const std::vector<std::string> names = {"resnet34", "resnet50", "vgg16_bn"};
  TempDir dir("keys");
  std::string cmd = kPython + " " + kScript + " --keys " + (dir.path / "keys.txt").string();
  for (const auto& n : names) cmd += " " + n;
  auto run = nabla::testing::run_program(cmd + " 2>&1");
  ASSERT_EQ(run.code, 0) << run.out;
  std::map<std::string, std::vector<std::string>> torchvision_lines;
  std::ifstream in(dir.path / "keys.txt");
  for (std::string line; std::getline(in, line);) torchvision_lines[line.substr(0, line.find(' '))].push_back(line);
  for (const auto& name : names) {
    std::vector<std::string> nabla_lines;
    for (const auto& [key, t] : create(name)->state_dict()) {
      std::ostringstream line;
      line << name << ' ' << key << ' ' << (t.dtype() == kInt64 ? "I64" : t.dtype() == kFloat32 ? "F32" : "?");
      for (int64_t d : t.shape()) line << ' ' << d;
      nabla_lines.push_back(line.str());
    }
    EXPECT_EQ(nabla_lines, torchvision_lines[name]) << name;
  }
}

}  // namespace
}  // namespace nabla::zoo
