// The accelerators' im2col (kernels/device/conv.cpp, kernels/accel/conv.cpp)
// on shapes whose column matrix is split into spans that straddle output
// rows (a few thousand rows of P entries: about 64K work items, each a span
// of a row), with padding, strides and dilation, against the CPU. The op
// table's tensors are small enough that every span is one entry. On CUDA
// with cuDNN disabled (cuda::cudnn::set_enabled(false)), so that im2col runs.
#include <gtest/gtest.h>

#include "nabla/cuda.h"
#include "nabla/cudnn.h"
#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/device_param_name.h"

namespace nabla::testing {
namespace {

class ConvIm2colAccel : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    const Device d = GetParam();
    const bool here = d.type == DeviceType::OpenCL ? opencl::is_available() : cuda::is_available();
    if (!here)
      GTEST_SKIP() << "no " << DeviceTypeName(d.type) << " device: "
                   << (d.type == DeviceType::OpenCL ? opencl::unavailable_reason() : cuda::unavailable_reason());
    was_enabled_ = cuda::cudnn::enabled();
    cuda::cudnn::set_enabled(false);
  }
  void TearDown() override { cuda::cudnn::set_enabled(was_enabled_); }

  // conv2d and its weight gradient (both im2col) on the device against the CPU.
  void check(const Shape& xs, const Shape& ws, IntList stride, IntList padding, IntList dilation) const {
    manual_seed(5);
    const Tensor x = randn(xs), w = randn(ws);
    const Tensor y = conv2d(x, w, Tensor(), stride, padding, dilation);
    const Tensor gy = randn(y.sizes());
    const Tensor gw = conv2d_weight_grad(x, gy, ws, stride, padding, dilation);
    const Device d = GetParam();
    const Tensor y_dev = conv2d(x.to(d), w.to(d), Tensor(), stride, padding, dilation);
    const Tensor gw_dev = conv2d_weight_grad(x.to(d), gy.to(d), ws, stride, padding, dilation);
    CloseOptions o;
    o.rtol = 1e-4, o.atol = 1e-4;
    o.msg = "conv2d on " + d.str();
    assert_close(y_dev.cpu(), y, o);
    o.atol = 1e-3;  // sums of a few thousand products
    o.msg = "conv2d_weight_grad on " + d.str();
    assert_close(gw_dev.cpu(), gw, o);
  }

 private:
  bool was_enabled_ = true;
};

// 2304 rows of 15x15 entries: spans of 8, across output rows of 15.
TEST_P(ConvIm2colAccel, SpansAcrossOutputRowsWithPadding) {
  check({8, 32, 15, 15}, {16, 32, 3, 3}, {1, 1}, {1, 1}, {1, 1});
}

// 576 rows of 10x13 entries: spans of 2 across rows of 13, stride (2, 1),
// padding (1, 2), dilation (1, 2).
TEST_P(ConvIm2colAccel, SpansWithStrideAndDilation) { check({4, 16, 19, 13}, {8, 16, 3, 3}, {2, 1}, {1, 2}, {1, 2}); }

INSTANTIATE_TEST_SUITE_P(Backends, ConvIm2colAccel, ::testing::Values(Device("opencl:0"), Device("cuda:0")),
                         device_param_name);

}  // namespace
}  // namespace nabla::testing
