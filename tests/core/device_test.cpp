// The device runtime (core/backend.h) through the public API, on the opaque
// test device (tests/support/opaque_backend.h): moves, copies, autograd
// across devices, pinned memory, enumeration and the errors.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "support/opaque_backend.h"
#include "nabla/testing/assert_close.h"
#include "support/error_message.h"
#include "support/absent_device.h"

namespace nabla {
namespace {

using testing::opaque_device;

TEST(Devices, EnumeratesTheCpuFirstAndRegisteredBackends) {
  opaque_device();
  std::vector<DeviceInfo> all = devices();
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(all[0].device, kCPU);
  EXPECT_GT(all[0].total_memory, 0);
  bool has0 = false, has1 = false;
  for (const DeviceInfo& d : all) {
    has0 |= d.device == Device("opaque:0");
    has1 |= d.device == Device("opaque:1");
  }
  EXPECT_TRUE(has0 && has1);
  EXPECT_NE(available_devices_text().find("opaque:1"), std::string::npos);
}

TEST(Devices, ParsesNames) {
  EXPECT_EQ(Device("opaque:1"), Device(DeviceType::Opaque, 1));
  EXPECT_EQ(Device("opencl"), Device(DeviceType::OpenCL, 0));
  EXPECT_EQ(Device("opaque:1").str(), "opaque:1");
  std::string err = testing::error_of([] { Device("cpu:1"); });
  EXPECT_NE(err.find("one cpu device"), std::string::npos) << err;
  err = testing::error_of([] { Device("opencl:-1"); });
  EXPECT_NE(err.find("opencl:-1"), std::string::npos) << err;
}

TEST(Devices, RoundTripKeepsValuesAndDtypes) {
  const Device dev = opaque_device();
  for (DType t : {kFloat32, kFloat64, kInt32, kInt64, kBool, kFloat16}) {
    Tensor x = arange(12, TensorOptions(kFloat64)).reshape({3, 4}).to(t);
    Tensor d = x.to(dev);
    EXPECT_EQ(d.device(), dev);
    EXPECT_EQ(d.dtype(), t);
    EXPECT_EQ(d.sizes(), x.sizes());
    EXPECT_TRUE(equal(d.cpu(), x)) << t;
    EXPECT_EQ(d.cpu().device(), kCPU);
  }
}

TEST(Devices, MovesStridedViewsAsTheirValues) {
  Tensor x = arange(24, TensorOptions(kFloat32)).reshape({4, 6});
  Tensor view = x.t().slice(0, 1, 5, 2);
  Tensor d = view.to(opaque_device());
  EXPECT_TRUE(d.is_contiguous());
  EXPECT_TRUE(equal(d.cpu(), view.contiguous()));
}

TEST(Devices, BetweenTwoDevicesOfOneKind) {
  Tensor x = randn({5, 3});
  Tensor a = x.to(opaque_device(0));
  Tensor b = a.to(opaque_device(1));
  EXPECT_EQ(b.device(), opaque_device(1));
  EXPECT_TRUE(equal(b.cpu(), x));
  EXPECT_THROW(a + b, Error);
}

TEST(Devices, SameDeviceIsNoCopyUnlessAsked) {
  Tensor a = ones({3}).to(opaque_device());
  EXPECT_TRUE(a.to(opaque_device()).is_same(a));
  Tensor c = a.to(opaque_device(), false, /*copy=*/true);
  EXPECT_FALSE(c.is_same(a));
  EXPECT_TRUE(equal(c.cpu(), ones({3})));
}

TEST(Devices, OpsRunOnTheDeviceOfTheirInputs) {
  const Device dev = opaque_device();
  Tensor a = randn({4, 5}), b = randn({5, 3});
  Tensor r = a.to(dev).mm(b.to(dev)).relu().sum(0);
  EXPECT_EQ(r.device(), dev);
  testing::assert_close(r.cpu(), a.mm(b).relu().sum(0));
}

TEST(Devices, CopyAcrossDevicesConvertsAndBroadcasts) {
  Tensor target = zeros({2, 3}, TensorOptions(kFloat64)).to(opaque_device());
  target.copy_(Tensor(arange(3, TensorOptions(kInt32))));
  EXPECT_TRUE(equal(target.cpu(), arange(3, TensorOptions(kFloat64)).expand({2, 3})));
  Tensor host = zeros({3});
  host.copy_(full({3}, 7.0).to(opaque_device()));
  EXPECT_TRUE(equal(host, full({3}, 7.0)));
}

TEST(Devices, GradientsFlowBackToTheSourceDevice) {
  Tensor w = randn({3, 2}, TensorOptions().requires_grad(true));
  Tensor x = randn({4, 3});
  Tensor loss = x.to(opaque_device()).mm(w.to(opaque_device())).tanh().sum().cpu();
  loss.backward();
  Tensor w2 = w.detach().requires_grad_(true);
  x.mm(w2).tanh().sum().backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().device(), kCPU);
  testing::assert_close(w.grad(), w2.grad());
}

TEST(Devices, LeafOnTheDeviceGetsItsGradientThere) {
  Tensor w = randn({3}).to(opaque_device()).requires_grad_(true);
  (w * w).sum().backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().device(), opaque_device());
  testing::assert_close(w.grad().cpu(), 2.0 * w.detach().cpu());
}

TEST(Devices, DataPointerOfADeviceTensorIsAnError) {
  Tensor d = ones({2}).to(opaque_device());
  std::string err = testing::error_of([&] { d.data_ptr<float>(); });
  EXPECT_NE(err.find("not host-addressable"), std::string::npos) << err;
  EXPECT_NE(err.find("opaque:0"), std::string::npos) << err;
  EXPECT_FLOAT_EQ(d.sum().item<float>(), 2.0f);  // item() copies to the host
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(Devices, PinnedMemory) {
  opaque_device();
  Tensor x = randn({4, 4});
  EXPECT_FALSE(x.is_pinned());
  Tensor p = x.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(p.pin_memory().is_same(p));
  EXPECT_TRUE(equal(p, x));
  Tensor d = p.to(opaque_device(), /*non_blocking=*/true);
  synchronize(opaque_device());
  EXPECT_TRUE(equal(d.cpu(), x));
  std::string err = testing::error_of([&] { d.pin_memory(); });
  EXPECT_NE(err.find("Tensor::pin_memory"), std::string::npos) << err;
}

TEST(Devices, AbsentDevicesAreErrorsListingThePresentOnes) {
  opaque_device();
  const Device absent = testing::absent_cuda_device();
  std::string err = testing::error_of([&] { ones({2}).to(absent); });
  EXPECT_NE(err.find("Tensor::to"), std::string::npos) << err;
  EXPECT_NE(err.find(absent.str() + " " + testing::absent_cuda_words()), std::string::npos) << err;
  EXPECT_NE(err.find("devices present are cpu"), std::string::npos) << err;
  err = testing::error_of([] { zeros({2}, TensorOptions().device(Device("opaque:5"))); });
  EXPECT_NE(err.find("opaque:5"), std::string::npos) << err;
}

TEST(Devices, MovesCountTheirBytes) {
  testing::reset_opaque_stats();
  Tensor x = zeros({10});
  Tensor d = x.to(opaque_device());
  (void)d.cpu();
  testing::OpaqueStats s = testing::opaque_stats();
  EXPECT_EQ(s.host_to_device_bytes, 40);
  EXPECT_EQ(s.device_to_host_bytes, 40);
}

}  // namespace
}  // namespace nabla
