// Factories and random draws on a device (issue 15, step 3): on the opaque
// test device (support/opaque_backend.h), whose memory the host cannot touch,
// every factory fills the device's own memory (no bytes cross from the host)
// and gives the CPU's values; a draw with the same seed gives the CPU's
// numbers and moves the generator as the CPU's does; the *_like forms and
// the in-place fills stay on their tensor's device.
#include <gtest/gtest.h>

#include <functional>

#include "support/error_message.h"
#include "support/opaque_backend.h"
#include "support/same_bits.h"

namespace nabla::testing {
namespace {

// Each factory, called with the given options.
const std::vector<std::pair<std::string, std::function<Tensor(TensorOptions)>>>& factories() {
  static const std::vector<std::pair<std::string, std::function<Tensor(TensorOptions)>>> all = {
      {"zeros", [](TensorOptions o) { return zeros({3, 5}, o); }},
      {"ones", [](TensorOptions o) { return ones({4}, o.dtype(kInt32)); }},
      {"full", [](TensorOptions o) { return full({2, 3}, -2.25, o.dtype(kFloat64)); }},
      {"full bool", [](TensorOptions o) { return full({5}, true, o.dtype(kBool)); }},
      {"full float16", [](TensorOptions o) { return full({3}, 0.1, o.dtype(kFloat16)); }},
      {"arange", [](TensorOptions o) { return arange(1, 20, 3, o); }},
      {"arange float", [](TensorOptions o) { return arange(0.1, 1.0, 0.1, o.dtype(kFloat64)); }},
      {"linspace", [](TensorOptions o) { return linspace(-3, 7, 11, o); }},
      {"eye", [](TensorOptions o) { return eye(3, 5, o.dtype(kUInt8)); }},
      {"rand", [](TensorOptions o) { return rand({7, 3}, o); }},
      {"rand float64", [](TensorOptions o) { return rand({5}, o.dtype(kFloat64)); }},
      {"randn", [](TensorOptions o) { return randn({1001}, o); }},
      {"normal", [](TensorOptions o) { return normal(3.0, 0.25, {4, 4}, o.dtype(kFloat64)); }},
      {"randn bfloat16", [](TensorOptions o) { return randn({9}, o.dtype(kBFloat16)); }},
      {"randint", [](TensorOptions o) { return randint(-100, 100, {50}, o.dtype(kInt64)); }},
      {"bernoulli", [](TensorOptions o) { return bernoulli({40}, 0.4, o); }},
      {"randperm", [](TensorOptions o) { return randperm(33, o.dtype(kInt64)); }},
  };
  return all;
}

TEST(FactoriesOnADevice, FillTheDevicesMemoryWithTheCpusValues) {
  const Device dev = opaque_device();
  for (const auto& [name, make] : factories()) {
    SCOPED_TRACE(name);
    manual_seed(77);
    Tensor on_cpu = make(TensorOptions());
    const GeneratorState after_cpu = default_generator().get_state();
    manual_seed(77);
    reset_opaque_stats();
    Tensor on_dev = make(TensorOptions().device(dev));
    EXPECT_EQ(opaque_stats().host_to_device_bytes, 0) << "the factory filled host memory and copied it";
    EXPECT_GE(opaque_stats().fallback_calls, 1) << "no op ran on the device";
    EXPECT_EQ(on_dev.device(), dev);
    EXPECT_EQ(default_generator().get_state(), after_cpu) << "the draw moved the generator differently";
    EXPECT_TRUE(same_bits(on_dev.cpu(), on_cpu));
  }
}

// Interleaving devices does not change the numbers: each draw takes the next
// counters of the one generator, whatever device computes them.
TEST(FactoriesOnADevice, DrawsAlternatingDevicesContinueOneStream) {
  const Device dev = opaque_device();
  manual_seed(3);
  Tensor a = randn({10}), b = rand({6}), c = randint(0, 9, {4});
  manual_seed(3);
  Tensor a2 = randn({10}, device(dev)), b2 = rand({6}), c2 = randint(0, 9, {4}, TensorOptions(kInt64).device(dev));
  EXPECT_TRUE(same_bits(a2.cpu(), a));
  EXPECT_TRUE(same_bits(b2, b));
  EXPECT_TRUE(same_bits(c2.cpu(), c));
}

TEST(FactoriesOnADevice, TheSecondOpaqueDeviceToo) {
  const Device dev1 = opaque_device(1);
  manual_seed(9);
  Tensor cpu = randn({4, 4});
  manual_seed(9);
  Tensor on1 = randn({4, 4}, device(dev1));
  EXPECT_EQ(on1.device(), dev1);
  EXPECT_TRUE(same_bits(on1.cpu(), cpu));
  EXPECT_TRUE(same_bits(eye(4, std::nullopt, device(dev1)).cpu(), eye(4)));
}

TEST(FactoriesOnADevice, LikeFormsKeepTheInputsDevice) {
  const Device dev = opaque_device();
  Tensor x = zeros({2, 3}, device(dev));
  Tensor p = full({2, 3}, 0.5, device(dev));
  reset_opaque_stats();
  for (const Tensor& t : {empty_like(x), zeros_like(x), ones_like(x), full_like(x, 4), rand_like(x), randn_like(x),
                          ones_like(x, dtype(kBool)), zeros_like(x, dtype(kInt64)), bernoulli(p), p.bernoulli()}) {
    EXPECT_EQ(t.device(), dev);
    EXPECT_EQ(t.sizes(), x.sizes());
  }
  EXPECT_EQ(opaque_stats().host_to_device_bytes, 0);
  // Options that name a device win over the input's.
  EXPECT_EQ(zeros_like(x, device(kCPU)).device(), kCPU);
  EXPECT_EQ(rand_like(zeros({2}), device(dev)).device(), dev);
}

TEST(FactoriesOnADevice, BernoulliOfATensorDrawsOnItsDeviceLikeTheCpu) {
  const Device dev = opaque_device();
  Tensor p = linspace(0, 1, 64, dtype(kFloat64));
  manual_seed(21);
  Tensor cpu = bernoulli(p);
  manual_seed(21);
  Tensor on_dev_p = p.to(dev);
  reset_opaque_stats();
  Tensor on_dev = bernoulli(on_dev_p);
  EXPECT_EQ(opaque_stats().host_to_device_bytes, 0);
  EXPECT_EQ(on_dev.device(), dev);
  EXPECT_TRUE(same_bits(on_dev.cpu(), cpu));
  EXPECT_EQ(cpu.dtype(), kFloat64);
}

TEST(FactoriesOnADevice, InPlaceFillsAndInitializersStayOnTheDevice) {
  const Device dev = opaque_device();
  Tensor x = empty({4, 6}, device(dev)), y = empty({4, 6});
  reset_opaque_stats();
  x.fill_(2.5);
  y.fill_(2.5);
  EXPECT_TRUE(same_bits(x.cpu(), y));
  reset_opaque_stats();
  x.zero_();
  EXPECT_EQ(opaque_stats().host_to_device_bytes, 0);
  EXPECT_TRUE(same_bits(x.cpu(), zeros({4, 6})));
  manual_seed(4);
  reset_opaque_stats();
  nn::init::uniform_(x, -1, 1);
  nn::init::normal_(x.select(0, 1), 0, 3);
  nn::init::kaiming_uniform_(x);
  EXPECT_EQ(opaque_stats().host_to_device_bytes, 0);
  manual_seed(4);
  nn::init::uniform_(y, -1, 1);
  nn::init::normal_(y.select(0, 1), 0, 3);
  nn::init::kaiming_uniform_(y);
  EXPECT_TRUE(same_bits(x.cpu(), y));
  EXPECT_EQ(x.device(), dev);
}

// Arguments (and the device) are checked before counters are reserved: a
// refused call leaves the generator where it was.
TEST(FactoriesOnADevice, ARefusedDrawLeavesTheGeneratorAlone) {
  manual_seed(12);
  const GeneratorState before = default_generator().get_state();
  const Device absent(DeviceType::Opaque, 5);
  opaque_device();
  EXPECT_THROW(rand({2}, dtype(kInt64)), Error);
  EXPECT_THROW(randn({-1}), Error);
  EXPECT_THROW(normal(0, -1, {2}), Error);
  EXPECT_THROW(randint(3, 3, {2}), Error);
  EXPECT_THROW(bernoulli({2}, 1.5), Error);
  EXPECT_THROW(randperm(-2), Error);
  EXPECT_THROW(rand({2}, device(absent)), Error);
  EXPECT_THROW(randn({2}, device(absent)), Error);
  EXPECT_EQ(default_generator().get_state(), before);
}

TEST(FactoriesOnADevice, AnAbsentDeviceIsNamedByTheFunctionCalled) {
  opaque_device();
  const Device absent(DeviceType::Opaque, 5);
  expect_error(error_of([&] { zeros({2}, device(absent)); }),
               {"zeros: device opaque:5 does not exist", "the devices present are"});
  expect_error(error_of([&] { randn({2}, device(absent)); }), {"randn: device opaque:5 does not exist"});
  expect_error(error_of([&] { eye(2, std::nullopt, device(absent)); }), {"eye: device opaque:5 does not exist"});
}

}  // namespace
}  // namespace nabla::testing
