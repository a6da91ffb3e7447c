// The OpenCL backend beside the CPU backend on one machine, in one run
// (issue 15, acceptance 5): SGEMM GFLOP/s (CLBlast on the OpenCL device,
// oneDNN on the CPU), the seed MLP's raw-autograd training step (the
// lecture's: mm, clamp, pow, sum, backward, SGD) and the CNN's second conv2d
// forward (im2col + CLBlast on the device; oneDNN on the CPU). On PoCL the "device" is
// this CPU, so the figures are records, not goals.
//
// Usage: opencl_bench [gemm_repeats=10] [steps=50]. Prints one line per
// measurement; exits 0 with a message when no OpenCL device is present.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "nabla/nabla.h"

using namespace nabla;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of `repeats` runs of fn, each waited for on `device`.
template <class Fn>
double time_on(Device device, int repeats, Fn&& fn) {
  fn();  // warm-up: kernels compiled, memory cached
  synchronize(device);
  std::vector<double> s;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    fn();
    synchronize(device);
    s.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return median(s);
}

double gemm_gflops(Device device, int64_t n, int repeats) {
  manual_seed(0);
  Tensor a = randn({n, n}).to(device), b = randn({n, n}).to(device);  // drawn on the host: no Philox kernel on OpenCL yet
  Tensor c;
  const double seconds = time_on(device, repeats, [&] { c = a.mm(b); });
  return 2.0 * static_cast<double>(n * n * n) / seconds / 1e9;
}

// ms per step of the seed's raw-autograd loop (64x1000 -> 100 -> 10).
double seed_step_ms(Device device, int steps) {
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  manual_seed(0);
  Tensor x = randn({N, D_in}).to(device), y = randn({N, D_out}).to(device);
  Tensor w1 = randn({D_in, H}).to(device).requires_grad_();
  Tensor w2 = randn({H, D_out}).to(device).requires_grad_();
  auto step = [&] {
    Tensor loss = (x.mm(w1).clamp(0).mm(w2) - y).pow(2).sum();
    loss.backward();
    NoGradGuard no_grad;
    w1 -= 1e-6 * w1.grad();
    w2 -= 1e-6 * w2.grad();
    w1.grad().zero_();
    w2.grad().zero_();
  };
  return 1e3 * time_on(device, steps, step);
}

// ms per conv2d forward of the Fashion-MNIST CNN's second convolution
// (nabla/zoo/fashion.cpp): batch 64, 32 -> 64 channels, 14x14, 3x3, padding 1.
double conv2d_ms(Device device, int repeats) {
  manual_seed(0);
  Tensor x = randn({64, 32, 14, 14}).to(device), w = randn({64, 32, 3, 3}).to(device), b = randn({64}).to(device);
  Tensor y;
  return 1e3 * time_on(device, repeats, [&] { y = conv2d(x, w, b, {1, 1}, {1, 1}); });
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 10;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 50;
  if (!opencl::is_available()) {
    std::printf("no OpenCL device: %s\n", opencl::unavailable_reason().c_str());
    return 0;
  }
  const Device cl("opencl:0");
  std::printf("OpenCL device: %s; CPU threads: %d\n", devices()[1].name.c_str(), get_num_threads());
  for (int64_t n : {256, 512, 1024})
    std::printf("sgemm n=%lld: cpu %.1f GFLOP/s, opencl %.1f GFLOP/s\n", static_cast<long long>(n),
                gemm_gflops(kCPU, n, repeats), gemm_gflops(cl, n, repeats));
  std::printf("seed MLP raw-autograd step: cpu %.3f ms, opencl %.3f ms\n", seed_step_ms(kCPU, steps),
              seed_step_ms(cl, steps));
  const double conv_cl = conv2d_ms(cl, repeats), conv_cpu = conv2d_ms(kCPU, repeats);
  std::printf("conv2d forward [64, 32, 14, 14] * [64, 32, 3, 3], padding 1: cpu %.3f ms, opencl %.3f ms (%.2fx)\n",
              conv_cpu, conv_cl, conv_cl / conv_cpu);
  return 0;
}
