// Philox on the OpenCL device: the same seed draws the same numbers as on the
// CPU (issue 15, section 2's "Randomness"): uniforms, integers and Bernoulli
// draws bit for bit, normals to float32 rounding (the device's log and cos);
// a model initialized on either device is the same.
#include <gtest/gtest.h>

#include <cmath>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "opencl/opencl_test_util.h"
#include "support/devices.h"

namespace nabla::testing {
namespace {

template <class Draw>
void same_on_both(Draw draw, bool bitwise) {
  manual_seed(123);
  Tensor on_cpu = draw(kCPU);
  manual_seed(123);
  Tensor on_cl = draw(kCl);
  EXPECT_EQ(on_cl.device(), kCl);
  ASSERT_EQ(on_cl.dtype(), on_cpu.dtype());
  if (bitwise)
    EXPECT_TRUE(equal(on_cl.cpu(), on_cpu));
  else
    assert_close(on_cl.cpu(), on_cpu);
}

TEST(OpenCLRandom, DrawsEqualTheCpusForTheSameSeed) {
  NABLA_SKIP_WITHOUT_OPENCL();
  for (DType t : {kFloat32, kFloat64}) {
    same_on_both([&](Device d) { return rand({7, 33}, TensorOptions(t).device(d)); }, true);
    same_on_both([&](Device d) { return bernoulli({1000}, 0.3, TensorOptions(t).device(d)); }, true);
    same_on_both([&](Device d) { return randn({5, 101}, TensorOptions(t).device(d)); }, false);
    same_on_both([&](Device d) { return normal(2.0, 0.5, {64}, TensorOptions(t).device(d)); }, false);
  }
  for (DType t : {kInt64, kInt32})
    same_on_both([&](Device d) { return randint(-5, 1000, {3, 77}, TensorOptions(t).device(d)); }, true);
}

TEST(OpenCLRandom, TheStreamContinuesAcrossDevices) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(9);
  Tensor a = rand({10}), b = rand({10});
  manual_seed(9);
  Tensor a_cl = rand({10}, kCl), b_cpu = rand({10});
  EXPECT_TRUE(equal(a_cl.cpu(), a));
  EXPECT_TRUE(equal(b_cpu, b));
}

TEST(OpenCLRandom, ALayerInitializedOnTheDeviceEqualsTheCpus) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(4);
  nn::Linear on_cpu(30, 20);
  manual_seed(4);
  nn::Linear moved(30, 20);
  moved.to(kCl);
  nn::init::kaiming_uniform_(moved.weight, std::sqrt(5.0));  // drawn again, now on the device
  manual_seed(4);
  nn::Linear again(30, 20);
  nn::init::kaiming_uniform_(again.weight, std::sqrt(5.0));
  EXPECT_EQ(moved.weight.device(), kCl);
  EXPECT_TRUE(equal(moved.weight.cpu(), again.weight));
  EXPECT_TRUE(equal(moved.bias.cpu(), on_cpu.bias));
}

}  // namespace
}  // namespace nabla::testing
