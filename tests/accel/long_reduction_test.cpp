// Long reductions on every accelerator backend: a few outputs of thousands
// of elements each (a batch norm's or a conv bias gradient's sum over
// [N, H, W]) take the work-group kernels (nb_reduce_group, nb_var_group),
// which the op table's small tensors never reach. Results against the CPU's,
// NaN and infinity included; float64 to 1e-12 (the work-group sums in
// another order).
#include <gtest/gtest.h>

#include <cmath>

#include "nabla/cuda.h"
#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/device_param_name.h"

namespace nabla::testing {
namespace {

// x[i, j, k, l] = v, in place (through a view).
void set(const Tensor& x, int64_t i, int64_t j, int64_t k, int64_t l, double v) {
  x.narrow(0, i, 1).narrow(1, j, 1).narrow(2, k, 1).narrow(3, l, 1).fill_(v);
}

class LongReductionAccel : public ::testing::TestWithParam<Device> {
 protected:
  void SetUp() override {
    const Device d = GetParam();
    const bool here = d.type == DeviceType::OpenCL ? opencl::is_available() : cuda::is_available();
    if (!here)
      GTEST_SKIP() << "no " << DeviceTypeName(d.type) << " device: "
                   << (d.type == DeviceType::OpenCL ? opencl::unavailable_reason() : cuda::unavailable_reason());
  }
  // x on the CPU and on the device, [8, 6, 20, 30]: 4800 elements per channel.
  static Tensor input(DType t) {
    manual_seed(7);
    return randn({8, 6, 20, 30}, TensorOptions().dtype(t));
  }
  void expect_same(const Tensor& on_device, const Tensor& on_cpu, const char* what) const {
    CloseOptions o;
    if (on_cpu.dtype() == kFloat64) o.rtol = 1e-12, o.atol = 1e-12;
    o.equal_nan = true;
    o.msg = std::string(what) + " on " + GetParam().str();
    assert_close(on_device.cpu(), on_cpu, o);
  }
};

// float32 inputs accumulate in double on the device (float on the CPU), so
// their results are compared with the CPU's float64 ones rounded to float32.
TEST_P(LongReductionAccel, SumMeanProdOverBatchAndSpaceMatchTheCpu) {
  for (DType t : {kFloat32, kFloat64}) {
    const Tensor x = input(t), xd = x.to(GetParam()), x64 = x.to(kFloat64);
    const auto cpu = [t](const Tensor& r) { return r.to(t); };
    expect_same(sum(xd, {0, 2, 3}), cpu(sum(x64, {0, 2, 3})), "sum over (0, 2, 3)");
    expect_same(mean(xd, {0, 2, 3}, true), cpu(mean(x64, {0, 2, 3}, true)), "mean over (0, 2, 3)");
    expect_same(sum(xd), cpu(sum(x64)), "sum of everything");
    expect_same(sum(xd.permute({0, 2, 3, 1}), {0, 1, 2}), cpu(sum(x64, {0, 2, 3})), "sum of a permuted view");
    const Tensor near_one = 1.0 + x * 1e-4;  // a product of 4800 terms that stays finite
    expect_same(prod(near_one.to(GetParam()), {0, 2, 3}), cpu(prod(near_one.to(kFloat64), {0, 2, 3})),
                "prod over (0, 2, 3)");
  }
}

TEST_P(LongReductionAccel, MaxMinAllAnyKeepNanAndTheFirstElement) {
  Tensor x = input(kFloat32);
  set(x, 0, 1, 0, 0, NAN);        // channel 1 has a NaN (its first element)
  set(x, 7, 2, 19, 29, INFINITY);  // channel 2 an infinity (its last)
  set(x, 3, 3, 5, 5, -INFINITY);   // channel 3 a -inf
  const Tensor xd = x.to(GetParam());
  expect_same(amax(xd, {0, 2, 3}), amax(x, {0, 2, 3}), "amax");
  expect_same(amin(xd, {0, 2, 3}), amin(x, {0, 2, 3}), "amin");
  const Tensor positive = x > 0.0;
  Tensor all_true = ones({8, 6, 20, 30}, TensorOptions().dtype(kBool));
  set(all_true, 5, 4, 1, 1, 0);  // channel 4 has one false
  expect_same(all(all_true.to(GetParam()), {0, 2, 3}), all(all_true, {0, 2, 3}), "all");
  expect_same(any(positive.to(GetParam()), {0, 2, 3}), any(positive, {0, 2, 3}), "any");
  const Tensor counts = randint(0, 5, {6, 5000});
  expect_same(sum(counts.to(GetParam()), {1}), sum(counts, {1}), "int64 sum");
  expect_same(amax(counts.to(GetParam()), {1}), amax(counts, {1}), "int64 amax");
}

TEST_P(LongReductionAccel, VarOverBatchAndSpaceMatchesTheCpu) {
  for (DType t : {kFloat32, kFloat64}) {
    const Tensor x = input(t) * 3.0 + 5.0, xd = x.to(GetParam());
    expect_same(var(xd, {0, 2, 3}, false, true), var(x, {0, 2, 3}, false, true), "var over (0, 2, 3)");
    expect_same(var(xd, {0, 2, 3}, true), var(x, {0, 2, 3}, true), "unbiased var");
    expect_same(var(xd, {1}), var(x, {1}), "var over a short dim (one item per output)");
  }
  // A batch norm's training step, whose statistics are such reductions.
  nn::BatchNorm2d on_cpu(6), on_device(6);
  on_device.to(GetParam());
  const Tensor x = input(kFloat32);
  expect_same(on_device.forward(x.to(GetParam())), on_cpu.forward(x), "batch_norm (training)");
  expect_same(on_device.running_var.to(kCPU), on_cpu.running_var, "batch_norm's running_var");
}

INSTANTIATE_TEST_SUITE_P(Backends, LongReductionAccel, ::testing::Values(Device("opencl:0"), Device("cuda:0")),
                         device_param_name);

}  // namespace
}  // namespace nabla::testing
