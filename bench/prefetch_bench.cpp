// Keeping a device fed (issue 15, acceptance 4): one epoch of MLP training on
// an OpenCL device three ways, in one run: the copies alone (each batch moved
// to the device and waited for), the compute alone (steps on batches already
// there), and the real epoch through DataLoader(pin_memory) +
// DevicePrefetcher, which copies batch k+1 while batch k computes. With the
// copies hidden, the epoch takes about the compute time, not copy + compute.
// On PoCL the "device" is this CPU, so copies and kernels share its cores.
//
// Usage: prefetch_bench [samples=8192] [batch=512] [repeats=3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "nabla/nabla.h"

using namespace nabla;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Model {
  nn::Sequential net{nn::Linear(784, 1024), nn::ReLU(), nn::Linear(1024, 10)};
  std::unique_ptr<optim::SGD> opt;
  explicit Model(Device d) {
    net.to(d);
    opt = std::make_unique<optim::SGD>(net.parameters(), optim::Options{{"lr", 0.01}});
  }
  void step(const Tensor& x, const Tensor& y) {
    opt->zero_grad();
    mse_loss(net.forward(x), y).backward();  // float targets: both batch tensors are float32
    opt->step();
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int64_t samples = argc > 1 ? std::atoll(argv[1]) : 8192, batch = argc > 2 ? std::atoll(argv[2]) : 512;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  if (!opencl::is_available()) {
    std::printf("no OpenCL device: %s\n", opencl::unavailable_reason().c_str());
    return 0;
  }
  const Device dev("opencl:0");
  manual_seed(0);
  auto dataset = std::make_shared<data::TensorDataset>(randn({samples, 784}), randn({samples, 10}));
  data::DataLoader loader(dataset, {.batch_size = batch, .num_workers = 2, .pin_memory = true});
  Model model(dev);

  double copy_s = 1e30, compute_s = 1e30, prefetch_s = 1e30;
  std::vector<data::Example> host_batches;
  for (const data::Example& b : loader) host_batches.push_back(b);
  std::vector<data::Example> on_device;
  for (const data::Example& b : host_batches) on_device.push_back({b.data.to(dev), b.target.to(dev)});
  for (const data::Example& b : on_device) model.step(b.data, b.target);  // warm-up: kernels compiled
  synchronize(dev);
  for (int r = 0; r < repeats; ++r) {
    auto t = Clock::now();
    for (const data::Example& b : host_batches) {
      Tensor x = b.data.to(dev, true), y = b.target.to(dev, true);
      synchronize(dev);
    }
    copy_s = std::min(copy_s, seconds_since(t));
    t = Clock::now();
    for (const data::Example& b : on_device) model.step(b.data, b.target);
    synchronize(dev);
    compute_s = std::min(compute_s, seconds_since(t));
    t = Clock::now();
    for (const data::Example& b : data::DevicePrefetcher(loader, dev)) model.step(b.data, b.target);
    synchronize(dev);
    prefetch_s = std::min(prefetch_s, seconds_since(t));
  }
  std::printf("epoch of %lld samples, batch %lld, best of %d, on %s:\n", static_cast<long long>(samples),
              static_cast<long long>(batch), repeats, devices()[1].name.c_str());
  std::printf("copies alone %.1f ms, compute alone %.1f ms, sum %.1f ms; epoch with pin_memory + DevicePrefetcher "
              "%.1f ms (%.0f%% of the sum)\n",
              1e3 * copy_s, 1e3 * compute_s, 1e3 * (copy_s + compute_s), 1e3 * prefetch_s,
              100.0 * prefetch_s / (copy_s + compute_s));
  return 0;
}
