// pool_bench — the max-pool kernels at the Fashion-MNIST CNN's shapes
// (zoo::fashion_cnn at batch 64: [64,32,28,28] -> 14x14 and [64,64,14,14] ->
// 7x7), NCHW and channels-last, forward (values + int64 indices) and
// backward, into preallocated outputs, against a plain loop that moves the
// same bytes (reads the input, writes values and indices). Times are the
// median of the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so a
// busy machine's preemption does not count; run with --threads 1 (default).
// --bf16 runs the bfloat16 kernels instead, and in place of the copy the
// float32 round trip that bfloat16 pooling took before it had kernels
// (widen the input, the float32 kernel, round the result back: the
// dispatcher's run_in_float32).
//   build/release/bench/pool_bench [--threads N] [--reps R] [--cold] [--bf16]
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
  bool bf16 = false;
  const char* usage = "usage: %s [--threads N] [--reps R] [--cold] [--bf16]\n";
  for (int i = 1; i < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cold") || !std::strcmp(argv[i], "--bf16")) {
      (argv[i][2] == 'c' ? cold : bf16) = true;
      --i;
    } else if (i + 1 >= argc) {
      return std::fprintf(stderr, usage, argv[0]), 2;
    } else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else return std::fprintf(stderr, usage, argv[0]), 2;
  }
  const DType dt = bf16 ? kBFloat16 : kFloat32;
  set_num_threads(threads);
  NoGradGuard no_grad;
  manual_seed(0);
  if (bf16) std::printf("bfloat16 (f32_*: through float32)\n%-6s %-16s %9s %9s %9s %9s\n", "format", "input", "fwd_us",
                        "bwd_us", "f32_fwd", "f32_bwd");
  else std::printf("%-6s %-16s %9s %9s %9s\n", "format", "input", "fwd_us", "bwd_us", "copy_us");
  for (bool channels_last : {false, true})
    for (const Shape& s : {Shape{64, 32, 28, 28}, Shape{64, 64, 14, 14}}) {
      Tensor x = relu(randn(s)).to(dt);  // a ReLU's output, as in the model
      if (channels_last) x = contiguous(x, MemoryFormat::ChannelsLast);
      auto [v, i] = max_pool2d_with_indices(x, {2});
      Pool2dGeometry g;
      g.planes = s[0] * s[1];
      g.in_h = s[2], g.in_w = s[3], g.out_h = s[2] / 2, g.out_w = s[3] / 2;
      g.kernel_h = g.kernel_w = g.stride_h = g.stride_w = 2;
      Tensor gy = randn(v.sizes(), dt);
      if (channels_last) gy = contiguous(gy, MemoryFormat::ChannelsLast);
      Tensor gx = empty_like(x);
      const double fwd = median_us(reps, [&] {
        channels_last ? cpu::max_pool2d_forward_nhwc(x, v, i, g) : cpu::max_pool2d_forward(x, v, i, g);
      });
      const double bwd = median_us(reps, [&] {
        channels_last ? cpu::max_pool2d_backward_nhwc(gy, i, gx, g) : cpu::max_pool2d_backward(gy, i, gx, g);
      });
      char shape[32];
      std::snprintf(shape, sizeof shape, "[%ld,%ld,%ld,%ld]", static_cast<long>(s[0]), static_cast<long>(s[1]),
                    static_cast<long>(s[2]), static_cast<long>(s[3]));
      const char* format = channels_last ? "nhwc" : "nchw";
      if (bf16) {
        // run_in_float32's passes: widen the inputs, run, round the outputs.
        auto widened = [&](const Tensor& t) {
          Tensor w = make_empty(t.sizes(), kFloat32, t.device());
          w.copy_(t);
          return w;
        };
        Tensor v32 = make_empty(v.sizes(), kFloat32, v.device()), gx32 = make_empty(x.sizes(), kFloat32, x.device());
        const double f32_fwd = median_us(reps, [&] {
          Tensor x32 = widened(x);
          cpu::max_pool2d_forward(x32, v32, i, g);
          v.copy_(v32);
        });
        const double f32_bwd = median_us(reps, [&] {
          Tensor gy32 = widened(gy);
          cpu::max_pool2d_backward(gy32, i, gx32, g);
          gx.copy_(gx32);
        });
        std::printf("%-6s %-16s %9.0f %9.0f %9.0f %9.0f\n", format, shape, fwd, bwd, f32_fwd, f32_bwd);
        continue;
      }
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
      std::printf("%-6s %-16s %9.0f %9.0f %9.0f\n", format, shape, fwd, bwd, copy);
    }
  return 0;
}
