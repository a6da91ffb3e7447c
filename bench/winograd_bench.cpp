// Winograd against direct convolutions (nabla/onednn.h): the three passes of
// a 3x3 / stride-1 convolution (forward, input gradient, weight gradient,
// through autograd) for the layers of zoo::fashion_cnn and ResNet-18 and
// for the small planes where nabla keeps the direct path, with
// onednn::set_winograd on and off in alternation (median of `--reps` runs,
// then the median of `--rounds` interleaved rounds).
//
// Usage: winograd_bench [--threads N] [--reps R] [--rounds K]
// Prints one line per shape: direct ms, winograd ms, their ratio, and which
// path ran with the switch on (a shape nabla keeps direct prints "direct").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "nabla/nabla.h"

using namespace nabla;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median ms of one forward + backward of conv2d(x, w) with output gradient gy.
double time_passes(const Tensor& x0, const Tensor& w0, const Tensor& gy, int reps) {
  std::vector<double> t;
  for (int r = 0; r <= reps; ++r) {  // the first run builds oneDNN's primitives
    Tensor x = x0.detach().requires_grad_(true), w = w0.detach().requires_grad_(true);
    auto start = std::chrono::steady_clock::now();
    Tensor y = conv2d(x, w, Tensor(), {1, 1}, {1, 1});
    backward({y}, {gy});
    auto end = std::chrono::steady_clock::now();
    if (r > 0) t.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  return median(t);
}

struct ConvShape {
  const char* what;
  int64_t n, c, hw, oc;
};

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 5, rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--reps R] [--rounds K]\n", argv[0]);
      return 2;
    }
  }
  set_num_threads(threads);
  const ConvShape shapes[] = {
      {"fashion_cnn conv2, batch 64", 64, 32, 14, 64},
      {"resnet18 layer1, batch 8", 8, 64, 56, 64},
      {"resnet18 layer2, batch 8", 8, 128, 28, 128},
      {"resnet18 layer3, batch 8", 8, 256, 14, 256},
      {"resnet18 layer4, batch 8", 8, 512, 7, 512},
      {"16 channels 32x32, batch 8", 8, 16, 32, 16},
      {"64 channels 8x8, batch 8", 8, 64, 8, 64},
      {"256 channels 4x4 (kept direct)", 8, 256, 4, 256},
      {"fashion_cnn conv1 (1 channel: kept direct)", 64, 1, 28, 32},
  };
  std::printf("threads=%d reps=%d rounds=%d\n%-44s %10s %10s %7s  %s\n", threads, reps, rounds, "shape", "direct ms",
              "wino ms", "ratio", "path with winograd on");
  for (const ConvShape& s : shapes) {
    manual_seed(0);
    Tensor x = randn({s.n, s.c, s.hw, s.hw}), w = randn({s.oc, s.c, 3, 3}) * 0.05,
           gy = randn({s.n, s.oc, s.hw, s.hw});
    std::vector<double> direct, wino;
    int64_t winograd_calls = 0;
    for (int k = 0; k < rounds; ++k) {
      onednn::set_winograd(false);
      direct.push_back(time_passes(x, w, gy, reps));
      onednn::set_winograd(true);
      int64_t before = onednn::conv_counts().winograd;
      wino.push_back(time_passes(x, w, gy, reps));
      winograd_calls += onednn::conv_counts().winograd - before;
    }
    double d = median(direct), wg = median(wino);
    std::printf("%-44s %10.3f %10.3f %7.2f  %s\n", s.what, d, wg, wg / d, winograd_calls > 0 ? "winograd" : "direct");
  }
  return 0;
}
