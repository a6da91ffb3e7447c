// The kernel registry (ops/kernel_registry.h): every op in the table has its
// CPU kernel registered from kernels/cpu (or is a composite, or has a
// generic kernel that works on every device); a kernel registered for a
// device is what eager dispatch runs there, instead of the device's
// fallback; and a device with neither is an error naming op, device and dtype.
#include "nabla/ops/kernel_registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "nabla/core/backend.h"
#include "nabla/core/storage.h"
#include "nabla/core/tensor_impl.h"
#include "nabla/nabla.h"
#include "nabla/optim/adam.h"
#include "support/error_message.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

TEST(KernelRegistry, EveryOpHasACpuKernelOrIsComposite) {
  // The ops whose one kernel is generic (written on the device runtime alone):
  // the cross-device copy and the view ops, which only compute sizes,
  // strides and offset. Every other op needs a CPU kernel of its own.
  const std::set<std::string> generic = {"to_device", "view", "permute", "slice", "select", "expand", "unfold"};
  std::vector<std::string> missing, unexpected_generic;
  int cpu_kernels = 0, composites = 0;
  for (const OpDef* op : op_table()) {
    const std::string name(op->name);
    if (op->composite) {
      ++composites;
      continue;
    }
    if (has_device_kernel(*op, DeviceType::CPU)) {
      ++cpu_kernels;
    } else if (find_kernel(*op, DeviceType::CPU)) {
      if (!generic.count(name)) unexpected_generic.push_back(name);
    } else {
      missing.push_back(name);
    }
  }
  auto names = [](const std::vector<std::string>& v) {
    std::string all;
    for (const std::string& n : v) all += " " + n;
    return all;
  };
  EXPECT_TRUE(missing.empty()) << "ops with no CPU kernel (register them in kernels/cpu):" << names(missing);
  EXPECT_TRUE(unexpected_generic.empty()) << "ops with only a generic kernel:" << names(unexpected_generic);
  EXPECT_GT(cpu_kernels, 100);
  EXPECT_GT(composites, 10);
  for (const std::string& name : generic) {
    const OpDef* op = find_op(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_FALSE(has_device_kernel(*op, DeviceType::CPU)) << name << " should be generic, not CPU-only";
    EXPECT_NE(find_kernel(*op, DeviceType::Opaque), nullptr) << name << "'s generic kernel serves every device";
  }
}

// A test op outside the table: y = 2 x for contiguous float32.
OutputMetas same_as_input(const OpDef&, Inputs in, const Attrs&) { return {{in[0].sizes(), in[0].dtype()}}; }
constinit const OpDef twice_op{.name = "registry_test_twice", .infer = same_as_input};

void twice_on_cpu(Inputs in, const Attrs&, std::span<Tensor> out) {
  const float* x = static_cast<const float*>(in[0].raw_data());
  float* y = static_cast<float*>(out[0].raw_data());
  for (int64_t i = 0; i < in[0].numel(); ++i) y[i] = 2 * x[i];
}
const KernelRegistrar kTwiceOnCpu{twice_op, DeviceType::CPU, twice_on_cpu};

// On the opaque device: through the backend's copies, as a device kernel
// that cannot dereference its buffers would; counts its calls.
int g_opaque_twice_calls = 0;
void twice_on_opaque(Inputs in, const Attrs&, std::span<Tensor> out) {
  ++g_opaque_twice_calls;
  const Tensor& x = in[0];
  std::vector<float> host(static_cast<std::size_t>(x.numel()));
  const std::size_t bytes = host.size() * sizeof(float);
  Backend& backend = backend_for(x.device(), "registry_test_twice");
  const Queue queue{x.device(), 0};
  backend.copy(
      MemRef{host.data(), 0, kCPU},
      MemRef{x.impl()->storage->handle(), static_cast<std::size_t>(x.storage_offset()) * sizeof(float), x.device()},
      bytes, queue, false, {});
  for (float& v : host) v *= 2;
  backend.copy(MemRef{out[0].impl()->storage->handle(),
                      static_cast<std::size_t>(out[0].storage_offset()) * sizeof(float), out[0].device()},
               MemRef{host.data(), 0, kCPU}, bytes, queue, false, {});
}

TEST(KernelRegistry, AKernelRegisteredForADeviceReplacesItsFallback) {
  const Device opaque = opaque_device();
  const Tensor x = tensor({1.f, -2.f, 3.5f}).to(opaque);
  const Tensor expected = tensor({2.f, -4.f, 7.f});

  // No opaque kernel: the device's fallback runs the CPU kernel on copies.
  reset_opaque_stats();
  Tensor y = call1(twice_op, {x});
  EXPECT_EQ(opaque_stats().fallback_calls, 1);
  EXPECT_EQ(y.device(), opaque);
  EXPECT_TRUE(equal(y.cpu(), expected));

  register_kernel(twice_op, DeviceType::Opaque, twice_on_opaque);
  EXPECT_TRUE(has_device_kernel(twice_op, DeviceType::Opaque));
  reset_opaque_stats();
  y = call1(twice_op, {x});
  EXPECT_EQ(g_opaque_twice_calls, 1);
  EXPECT_EQ(opaque_stats().fallback_calls, 0);
  EXPECT_EQ(y.device(), opaque);
  EXPECT_TRUE(equal(y.cpu(), expected));

  // A null kernel takes the registration back: the fallback again.
  register_kernel(twice_op, DeviceType::Opaque, nullptr);
  EXPECT_FALSE(has_device_kernel(twice_op, DeviceType::Opaque));
  reset_opaque_stats();
  y = call1(twice_op, {x});
  EXPECT_EQ(g_opaque_twice_calls, 1);
  EXPECT_EQ(opaque_stats().fallback_calls, 1);
  EXPECT_TRUE(equal(y.cpu(), expected));
}

// A boxed kernel is told its op, so one function can serve a table of ops.
const OpDef* g_boxed_saw = nullptr;
void boxed_twice(const OpDef& op, Inputs in, const Attrs& attrs, std::span<Tensor> out) {
  g_boxed_saw = &op;
  twice_on_opaque(in, attrs, out);
}

TEST(KernelRegistry, ABoxedKernelIsToldItsOpAndAPlainKernelWins) {
  const Device opaque = opaque_device();
  const Tensor x = tensor({1.f, 5.f}).to(opaque);
  register_boxed_kernel(twice_op, DeviceType::Opaque, boxed_twice);
  EXPECT_TRUE(has_device_kernel(twice_op, DeviceType::Opaque));
  reset_opaque_stats();
  g_boxed_saw = nullptr;
  Tensor y = call1(twice_op, {x});
  EXPECT_EQ(g_boxed_saw, &twice_op);
  EXPECT_EQ(opaque_stats().fallback_calls, 0);
  EXPECT_TRUE(equal(y.cpu(), tensor({2.f, 10.f})));
  // A plain kernel of the same op and device is taken before it.
  const int plain_calls = g_opaque_twice_calls;
  register_kernel(twice_op, DeviceType::Opaque, twice_on_opaque);
  g_boxed_saw = nullptr;
  y = call1(twice_op, {x});
  EXPECT_EQ(g_boxed_saw, nullptr);
  EXPECT_EQ(g_opaque_twice_calls, plain_calls + 1);
  register_kernel(twice_op, DeviceType::Opaque, nullptr);
  register_boxed_kernel(twice_op, DeviceType::Opaque, nullptr);
  EXPECT_FALSE(has_device_kernel(twice_op, DeviceType::Opaque));
}

TEST(KernelRegistry, ADeviceWithoutKernelOrFallbackIsAnErrorNamingOpDeviceAndDtype) {
  // The test op has no OpenCL kernel, and OpenCL has no fallback.
  expect_error(error_of([] { kernel_for(twice_op, Device(DeviceType::OpenCL, 0), kFloat32); }),
               {"registry_test_twice", "float32", "opencl:0", "it has kernels on: cpu"});
}

// optim::Adam's step is the adam_update op in place on the parameter's
// device: on the opaque device an adam_update kernel registered there runs
// once per parameter and step (here one that counts, then runs the device's
// fallback), with the same numbers as on the CPU, bit for bit.
int g_opaque_adam_calls = 0;
BoxedKernelFn g_opaque_fallback = nullptr;
void counting_adam_on_opaque(Inputs in, const Attrs& attrs, std::span<Tensor> out) {
  ++g_opaque_adam_calls;
  g_opaque_fallback(*find_op("adam_update"), in, attrs, out);
}

TEST(KernelRegistry, EagerAdamRunsTheAdamUpdateOpOnTheParametersDevice) {
  const OpDef& adam_update_op = *find_op("adam_update");
  g_opaque_fallback = kernel_for(adam_update_op, opaque_device(), kFloat32).boxed;
  ASSERT_NE(g_opaque_fallback, nullptr);
  register_kernel(adam_update_op, DeviceType::Opaque, counting_adam_on_opaque);
  for (bool decoupled : {false, true}) {
    auto run = [&](Device device) {
      Tensor w = tensor({0.5f, -1.f, 2.f, 0.25f}).to(device).requires_grad_(true);
      std::vector<Tensor> params{w};
      optim::Options options{{"lr", 0.1}, {"weight_decay", 0.01}};
      std::unique_ptr<optim::Optimizer> opt;
      if (decoupled) opt = std::make_unique<optim::AdamW>(params, options);
      else opt = std::make_unique<optim::Adam>(params, options);
      for (int step = 0; step < 3; ++step) {
        opt->zero_grad();
        (w * w * w).sum().backward();
        opt->step();
      }
      return w.detach().cpu();
    };
    const Tensor on_cpu = run(kCPU);
    g_opaque_adam_calls = 0;
    const Tensor on_opaque = run(opaque_device());
    EXPECT_EQ(g_opaque_adam_calls, 3) << "one adam_update per parameter and step";
    EXPECT_TRUE(equal(on_cpu, on_opaque)) << (decoupled ? "AdamW" : "Adam") << ": " << on_cpu << " vs " << on_opaque;
  }
  register_kernel(adam_update_op, DeviceType::Opaque, nullptr);
}

}  // namespace
}  // namespace nabla::testing
