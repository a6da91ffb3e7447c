// pool_bench — the max-pool kernels at the Fashion-MNIST CNN's shapes
// (zoo::fashion_cnn at batch 64: [64,32,28,28] -> 14x14 and [64,64,14,14] ->
// 7x7), NCHW and channels-last, forward (values + int64 indices) and
// backward, into preallocated outputs, against a plain loop that moves the
// same bytes (reads the input, writes values and indices). Times are the
// median of the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so a
// busy machine's preemption does not count; run with --threads 1 (default).
//   build/release/bench/pool_bench [--threads N] [--reps R] [--cold]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "nabla/kernels/cpu/pool.h"
#include "nabla/kernels/cpu/pool_nhwc.h"
#include "nabla/nabla.h"

namespace {

using namespace nabla;

double thread_us() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

// --cold: before each timed call, write 64 MiB elsewhere, so the call finds
// its operands in memory rather than in cache (as in a training step, whose
// working set is larger than the cache).
bool cold = false;
std::vector<char> evict;

template <class F>
double median_us(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) f();
  for (int i = 0; i < reps; ++i) {
    if (cold) {
      evict.resize(64 << 20);
      std::memset(evict.data(), i, evict.size());
    }
    const double a = thread_us();
    f();
    t.push_back(thread_us() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 60;
  for (int i = 1; i < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cold")) {
      cold = true;
      --i;
    } else if (i + 1 >= argc) {
      return std::fprintf(stderr, "usage: %s [--threads N] [--reps R] [--cold]\n", argv[0]), 2;
    } else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else return std::fprintf(stderr, "usage: %s [--threads N] [--reps R] [--cold]\n", argv[0]), 2;
  }
  set_num_threads(threads);
  NoGradGuard no_grad;
  manual_seed(0);
  std::printf("%-6s %-16s %9s %9s %9s\n", "format", "input", "fwd_us", "bwd_us", "copy_us");
  for (bool channels_last : {false, true})
    for (const Shape& s : {Shape{64, 32, 28, 28}, Shape{64, 64, 14, 14}}) {
      Tensor x = relu(randn(s));  // a ReLU's output, as in the model
      if (channels_last) x = contiguous(x, MemoryFormat::ChannelsLast);
      auto [v, i] = max_pool2d_with_indices(x, {2});
      Pool2dGeometry g;
      g.planes = s[0] * s[1];
      g.in_h = s[2], g.in_w = s[3], g.out_h = s[2] / 2, g.out_w = s[3] / 2;
      g.kernel_h = g.kernel_w = g.stride_h = g.stride_w = 2;
      Tensor gy = randn(v.sizes());
      if (channels_last) gy = contiguous(gy, MemoryFormat::ChannelsLast);
      Tensor gx = empty_like(x);
      const double fwd = median_us(reps, [&] {
        channels_last ? cpu::max_pool2d_forward_nhwc(x, v, i, g) : cpu::max_pool2d_forward(x, v, i, g);
      });
      const double bwd = median_us(reps, [&] {
        channels_last ? cpu::max_pool2d_backward_nhwc(gy, i, gx, g) : cpu::max_pool2d_backward(gy, i, gx, g);
      });
      // The forward's traffic with no work: read x, write v's and i's bytes.
      std::vector<float> sink(static_cast<std::size_t>(v.numel()) * 3);
      const double copy = median_us(reps, [&] {
        const float* px = x.data_ptr<float>();
        float* po = sink.data();
        const int64_t n = v.numel();
        for (int64_t k = 0; k < n; ++k) {
          po[k] = px[4 * k] + px[4 * k + 1];
          po[n + 2 * k] = px[4 * k + 2];
          po[n + 2 * k + 1] = px[4 * k + 3];
        }
      });
      char shape[32];
      std::snprintf(shape, sizeof shape, "[%ld,%ld,%ld,%ld]", static_cast<long>(s[0]), static_cast<long>(s[1]),
                    static_cast<long>(s[2]), static_cast<long>(s[3]));
      std::printf("%-6s %-16s %9.0f %9.0f %9.0f\n", channels_last ? "nhwc" : "nchw", shape, fwd, bwd, copy);
    }
  return 0;
}
