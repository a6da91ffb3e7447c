// Accelerator kernels (OpenCL, CUDA) of dropout, bernoulli (tensor p) and randperm
// (kernels/device/draws.h): the CPU's numbers for the same seed.
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/core/random.h"
#include "nabla/kernels/device/draws.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/accel/sort.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/ops.h"

namespace nabla {
extern const OpDef dropout_op, bernoulli_op, randperm_op;  // ops/dropout_ops.cpp, ops/random_ops.cpp

namespace accel {
namespace {

// Philox's uniforms are doubles (53 bits), as on the CPU.
DeviceRef draw_device(const char* op, DType t, Device d) {
  const DeviceRef dev = device_ref(d, op);
  check_dtype(op, t, dev);
  NABLA_CHECK(dev.fp64(), op, ": ", dev.name(), " has no float64, which the Philox draws use");
  return dev;
}

Launch draw_launch(DeviceRef dev, DType t, const char* kernel, const char* op) {
  const std::string key = std::string("draws|") + std::string(dtype_name(t)) + '|' + kernel;
  const auto make_source = [&] { return program({{"T", t}}, device_c::draws_source()); };
  return Launch(dev, key, kernel, make_source, op);
}

// Attrs: p. Outputs: the result and the bool keep-mask. The Philox counters
// are reserved here, at run time, exactly as the CPU kernel reserves them.
void dropout_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const DType t = in[0].dtype();
  DeviceRef dev = draw_device("dropout", t, out[0].device());
  const int64_t n = in[0].numel();
  Generator& g = default_generator();
  const uint64_t seed = g.seed(), offset = g.reserve(static_cast<uint64_t>((n + 1) / 2));
  if (n == 0) return;
  NABLA_CHECK(out[0].is_contiguous() && out[1].is_contiguous(), "dropout: the OpenCL kernel writes contiguous outputs");
  const Tensor x = dense(in[0]);
  const double keep_prob = 1.0 - a.f(0);
  // p == 1 drops everything: scale 0 instead of inf, so 0 * inf never makes nan.
  const double scale = keep_prob > 0.0 ? 1.0 / keep_prob : 0.0;
  Launch k = draw_launch(dev, t, "nb_dropout", "dropout");
  k.arg(out[0]).arg(out[1]).arg(x).arg(n).arg_ulong(seed).arg_ulong(offset).arg(keep_prob).arg_as(t, scale);
  k.run(static_cast<std::size_t>(n));
}

// Input p; attrs: seed, offset. Like PyTorch, a p outside [0, 1] (or NaN) is
// an error: the device flags it and the CPU's message names the first one.
void bernoulli_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  NoGradGuard no_grad;
  const DType t = in[0].dtype();
  DeviceRef dev = draw_device("bernoulli", t, out[0].device());
  const int64_t n = in[0].numel();
  if (n == 0) return;
  NABLA_CHECK(out[0].is_contiguous(), "bernoulli: the OpenCL kernel writes a contiguous output");
  const Tensor p = dense(in[0]);
  // A one-byte flag the kernel sets on a bad p; reading it back waits for the
  // kernel (a kernel cannot throw, and the CPU fails before returning).
  const Tensor bad = zeros({1}, TensorOptions(kBool).device(out[0].device()));
  Launch k = draw_launch(dev, t, "nb_bernoulli", "bernoulli");
  k.arg(out[0])
      .arg(bad)
      .arg(p)
      .arg(n)
      .arg_ulong(static_cast<uint64_t>(a.i(0)))
      .arg_ulong(static_cast<uint64_t>(a.i(1)));
  k.run(static_cast<std::size_t>(n));
  if (bad.item<bool>()) {
    const Tensor ps = p.cpu().to(kFloat64);
    const double* v = ps.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i)
      NABLA_CHECK(v[i] >= 0.0 && v[i] <= 1.0, "bernoulli: p must be in [0, 1], got ", v[i], " at flat index ", i);
  }
}

// Attrs: n, dtype, seed, offset, device. As on the CPU, the indices stably
// sorted by rand's elements (rounded to float, as rand stores them): the
// permutation depends only on (seed, offset). The sort is device/sort.h's
// merge passes (O(n log^2 n) work, every pass parallel).
void randperm_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  NoGradGuard no_grad;
  const DType t = out[0].dtype();
  DeviceRef dev = draw_device("randperm", t, out[0].device());
  const int64_t n = a.i(0);
  if (n == 0) return;
  NABLA_CHECK(out[0].is_contiguous(), "randperm: the OpenCL kernel writes a contiguous output");
  Tensor keys = make_empty({n}, kFloat32, out[0].device()), idx = make_empty({n}, kInt64, out[0].device());
  Launch k = draw_launch(dev, t, "nb_randperm_keys", "randperm");
  k.arg(keys).arg(idx).arg(n).arg_ulong(static_cast<uint64_t>(a.i(2))).arg_ulong(static_cast<uint64_t>(a.i(3)));
  k.run(static_cast<std::size_t>(n));
  std::tie(keys, idx) = sort_rows(dev, "randperm", keys, idx, 1, n, SortOrder::Ascending);
  Launch s = draw_launch(dev, t, "nb_randperm_store", "randperm");
  s.arg(out[0]).arg(idx).arg(n).arg_as(kInt32, t == kBool ? 1 : 0).run(static_cast<std::size_t>(n));
}

}  // namespace

void register_draw_kernels(DeviceType type) {
  register_kernel(dropout_op, type, dropout_kernel);
  register_kernel(bernoulli_op, type, bernoulli_kernel);
  register_kernel(randperm_op, type, randperm_kernel);
}

}  // namespace accel
}  // namespace nabla
