// nabla::zoo without torchvision: parameter counts equal to torchvision's
// (printed by torchvision 0.14's models; vgg11 and vgg16_bn are checked in
// tests/zoo/torchvision_test.cpp, which builds them anyway), a few of its key
// names, output shapes, the options, torchvision's initialization, create()
// by name, load_weights, and the errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "nabla/io/safetensors.h"
#include "nabla/nabla.h"
#include "nabla/zoo/zoo.h"
#include "support/error_message.h"

namespace nabla::zoo {
namespace {

bool has_key(const nn::Module& m, const std::string& key) { return m.state_dict().contains(key); }

TEST(Zoo, ParameterCountsAreTorchvisions) {
  EXPECT_EQ(resnet18()->num_parameters(), 11689512);
  EXPECT_EQ(resnet34()->num_parameters(), 21797672);
  EXPECT_EQ(resnet50()->num_parameters(), 25557032);
  EXPECT_EQ(mobilenet_v2()->num_parameters(), 3504872);
  EXPECT_EQ(lenet5()->num_parameters(), 61706);
}

TEST(Zoo, KeysAreTorchvisions) {
  auto r18 = resnet18();
  for (const char* key : {"conv1.weight", "bn1.num_batches_tracked", "layer1.0.conv1.weight",
                          "layer2.0.downsample.0.weight", "layer2.0.downsample.1.running_mean", "fc.bias"})
    EXPECT_TRUE(has_key(*r18, key)) << key;
  EXPECT_FALSE(has_key(*r18, "layer1.0.downsample.0.weight"));  // layer1 keeps the shape: no downsample
  auto r50 = resnet50();
  EXPECT_TRUE(has_key(*r50, "layer1.0.downsample.0.weight"));  // 64 -> 256 channels
  EXPECT_TRUE(has_key(*r50, "layer4.2.bn3.running_var"));
  auto mb = mobilenet_v2();
  for (const char* key : {"features.0.0.weight", "features.1.conv.0.0.weight", "features.1.conv.1.weight",
                          "features.2.conv.3.running_var", "features.18.1.bias", "classifier.1.weight"})
    EXPECT_TRUE(has_key(*mb, key)) << key;
  EXPECT_TRUE(has_key(*lenet5(), "classifier.4.weight"));
}

// One VGG for all its checks: building one draws 130M random numbers twice
// (PyTorch's default init, then torchvision's), seconds of CPU.
// (torchvision's vgg11_bn(num_classes=4) has 128,788,228 parameters.)
TEST(Zoo, VGGParametersKeysOptionsAndShapes) {
  manual_seed(0);
  auto vgg = vgg11_bn({.num_classes = 4, .dropout = 0.25});
  EXPECT_EQ(vgg->num_parameters(), 128788228);
  for (const char* key : {"features.0.weight", "features.1.running_mean", "features.4.weight", "classifier.6.bias"})
    EXPECT_TRUE(has_key(*vgg, key)) << key;
  EXPECT_EQ(std::dynamic_pointer_cast<nn::Dropout>((*vgg->classifier)[2])->p, 0.25);
  EXPECT_EQ(vgg->forward(randn({2, 3, 32, 32})).sizes(), Shape({2, 4}));
  auto fc = std::dynamic_pointer_cast<nn::Linear>((*vgg->classifier)[0]);
  EXPECT_NEAR(fc->weight.to(kFloat64).square().mean().sqrt().item<double>(), 0.01, 0.0002);  // N(0, 0.01^2)
  EXPECT_TRUE(equal(fc->bias, zeros({4096})));
}

TEST(Zoo, OutputShapesAndOptions) {
  manual_seed(0);
  Tensor x = randn({2, 3, 32, 32});
  EXPECT_EQ(resnet18({.num_classes = 7})->forward(x).sizes(), Shape({2, 7}));
  EXPECT_EQ(resnet50({.num_classes = 5})->forward(x).sizes(), Shape({2, 5}));
  EXPECT_EQ(mobilenet_v2({.num_classes = 3})->forward(x).sizes(), Shape({2, 3}));
  EXPECT_EQ(resnet18({.in_channels = 1})->forward(randn({1, 1, 40, 40})).sizes(), Shape({1, 1000}));
  EXPECT_EQ(lenet5()->forward(randn({3, 1, 28, 28})).sizes(), Shape({3, 10}));
  EXPECT_EQ(lenet5({.num_classes = 2, .in_channels = 3})->forward(randn({1, 3, 28, 28})).sizes(), Shape({1, 2}));
  // MobileNetV2's width multiplier rounds channels to multiples of 8, as torchvision's 0.5 model
  // (1,968,680 parameters: features.0 has 16 channels, the last conv 1280).
  auto half = mobilenet_v2({.width_mult = 0.5});
  EXPECT_EQ(half->num_parameters(), 1968680);
  EXPECT_EQ(half->state_dict().at("features.0.0.weight").sizes(), Shape({16, 3, 3, 3}));
  EXPECT_EQ(std::dynamic_pointer_cast<nn::Dropout>((*mobilenet_v2()->classifier)[0])->p, 0.2);
}

TEST(Zoo, InitializationIsTorchvisions) {
  manual_seed(0);
  auto r = resnet18();
  // kaiming_normal_(fan_out, relu): std sqrt(2 / (64 * 7 * 7)).
  Tensor w = r->conv1->weight.to(kFloat64);
  double std = (w - w.mean()).square().mean().sqrt().item<double>();
  EXPECT_NEAR(std, std::sqrt(2.0 / (64 * 49)), 0.03 * std::sqrt(2.0 / (64 * 49)));
  EXPECT_TRUE(equal(r->bn1->weight, ones({64})));
  EXPECT_TRUE(equal(r->bn1->bias, zeros({64})));
  // ResNet's fc keeps PyTorch's default U(+-1/sqrt(512)).
  EXPECT_LE(r->fc->weight.abs().max().item<double>(), 1.0 / std::sqrt(512.0));
  EXPECT_GT(r->fc->weight.abs().max().item<double>(), 0.9 / std::sqrt(512.0));
  // VGG / MobileNetV2 Linear layers: N(0, 0.01^2), zero bias; conv bias zero.
  auto m = mobilenet_v2();
  Tensor fc = std::dynamic_pointer_cast<nn::Linear>((*m->classifier)[1])->weight.to(kFloat64);
  EXPECT_NEAR(fc.square().mean().sqrt().item<double>(), 0.01, 0.0005);
  auto v = lenet5();  // LeNet keeps PyTorch's defaults: conv bias U(+-1/5) is not zero
  EXPECT_GT(std::dynamic_pointer_cast<nn::Conv2d>((*v->features)[0])->bias.abs().max().item<double>(), 0.0);
}

TEST(Zoo, CreateByName) {
  EXPECT_EQ(model_names().size(), 15u);
  EXPECT_EQ(model_names().front(), "lenet5");
  nn::ModulePtr m = create("resnet50", {.num_classes = 3});
  EXPECT_EQ(m->name(), "ResNet");
  EXPECT_EQ(m->num_parameters(), 25557032 - 2049 * 997);  // fc: 2048 * 3 + 3 instead of 2048 * 1000 + 1000
  EXPECT_EQ(create("mobilenet_v2")->name(), "MobileNetV2");
  EXPECT_EQ(create("lenet5", {.in_channels = 3})->state_dict().at("features.0.weight").sizes(), Shape({6, 3, 5, 5}));
}

TEST(Zoo, LoadWeightsRoundTripsAndReportsMismatches) {
  manual_seed(0);
  auto a = resnet18({.num_classes = 4});
  manual_seed(1);
  auto b = resnet18({.num_classes = 4});
  std::string path = (std::filesystem::temp_directory_path() / ("nabla_zoo_load_" + std::to_string(::getpid()) +
                                                                ".safetensors")).string();
  io::TensorDict dict;
  for (const auto& [k, t] : a->state_dict()) dict.emplace_back(k, t);
  io::save_safetensors(path, dict);
  load_weights(*b, path);
  Tensor x = randn({1, 3, 32, 32});
  a->eval();
  b->eval();
  EXPECT_TRUE(equal(a->forward(x), b->forward(x)));
  // A model of another shape: the file and the mismatching key are named.
  auto c = resnet18();
  std::string msg = nabla::testing::error_of([&] { load_weights(*c, path); });
  EXPECT_NE(msg.find("zoo::load_weights(\"" + path + "\")"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fc.weight"), std::string::npos) << msg;
  std::filesystem::remove(path);
}

TEST(Zoo, BadOptionsAndNamesAreClearErrors) {
  using nabla::testing::error_of;
  std::string msg = error_of([] { create("resnet19"); });
  EXPECT_NE(msg.find("zoo::create: unknown model 'resnet19'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("resnet18, resnet34"), std::string::npos) << msg;
  msg = error_of([] { resnet18({.num_classes = 0}); });
  EXPECT_NE(msg.find("num_classes must be at least 1, got 0"), std::string::npos) << msg;
  msg = error_of([] { resnet18({.dropout = 0.5}); });
  EXPECT_NE(msg.find("has no dropout, but dropout = 0.5 was given"), std::string::npos) << msg;
  msg = error_of([] { vgg11({.dropout = 1.5}); });
  EXPECT_NE(msg.find("dropout must be in [0, 1], got 1.5"), std::string::npos) << msg;
  msg = error_of([] { vgg16({.width_mult = 0.5}); });
  EXPECT_NE(msg.find("only mobilenet_v2 takes it"), std::string::npos) << msg;
  msg = error_of([] { mobilenet_v2({.width_mult = -1}); });
  EXPECT_NE(msg.find("width_mult must be positive"), std::string::npos) << msg;
  msg = error_of([] { lenet5({.in_channels = 0}); });
  EXPECT_NE(msg.find("zoo::lenet5: in_channels must be at least 1, got 0"), std::string::npos) << msg;
}

}  // namespace
}  // namespace nabla::zoo
