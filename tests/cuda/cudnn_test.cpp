// Convolutions through cuDNN on CUDA devices (kernels/cuda/cudnn_conv.cpp,
// nabla/cudnn.h). CudaLoading.Cudnn*: whether cuDNN loads, and why not, in
// one line, on any machine (ctest also runs them without libnabla_cuda.so,
// with NABLA_CUDNN=0 and with a cuDNN library that does not exist). CudaCudnn.*: on a GPU, the cuDNN path against the
// im2col + cuBLAS one (cuda::cudnn::set_enabled) and the CPU, for strides,
// padding, dilation, groups, bias, float32 and float64, values and
// gradients, and benchmark mode (cuda::cudnn::set_benchmark); they skip,
// with the reason, without a GPU or cuDNN.
#include "nabla/cudnn.h"

#include <cstdlib>
#include <string>

#include "cuda/cuda_test_util.h"
#include "nabla/testing/assert_close.h"

namespace nabla::testing {
namespace {

// The environment's switch, as the process read it.
bool environment_enables_cudnn() {
  const char* env = std::getenv("NABLA_CUDNN");
  return !(env && std::string(env) == "0");
}

TEST(CudaLoading, CudnnSaysWhetherItLoadsAndWhy) {
  const std::string reason = cuda::cudnn::unavailable_reason();
  const int version = cuda::cudnn::version();
  std::printf("cuDNN: version %d, reason '%s'; convolutions on CUDA: %s\n", version, reason.c_str(),
              cuda::cudnn::conv_path().c_str());
  EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
  EXPECT_EQ(cuda::cudnn::is_available(), reason.empty()) << reason;
  EXPECT_EQ(cuda::cudnn::is_available(), version > 0);
  if (cuda::cudnn::is_available()) {
    EXPECT_GE(version, 90000) << "nabla loads cuDNN 9 (libcudnn.so.9)";
  } else if (!cuda::is_built()) {
    EXPECT_EQ(reason, "nabla was built without CUDA (NABLA_CUDA=OFF or no toolkit found)");
  } else if (const char* lib = std::getenv("NABLA_CUDNN_LIBRARY"); lib && *lib) {
    // ctest: cuda_cudnn_missing names a file that does not exist.
    EXPECT_TRUE(reason.starts_with("cuDNN could not be loaded: ")) << reason;
    EXPECT_NE(reason.find(lib), std::string::npos) << reason;  // dlerror names the file
    EXPECT_EQ(cuda::cudnn::conv_path(), "im2col + cuBLAS (" + reason + ")");
  } else {
    EXPECT_TRUE(reason.starts_with("libnabla_cuda.so could not be loaded: ") ||
                reason.starts_with("cuDNN could not be ") ||
                reason.starts_with("nabla's CUDA backend was built without cuDNN"))
        << reason;
  }
}

// NABLA_CUDNN=0 (ctest: cuda_cudnn_disabled) turns cuDNN off;
// set_enabled switches it, and conv_path says which path runs.
TEST(CudaLoading, CudnnSwitchChoosesTheConvolutionPath) {
  EXPECT_EQ(cuda::cudnn::enabled(), environment_enables_cudnn());
  const bool before = cuda::cudnn::enabled();
  cuda::cudnn::set_enabled(false);
  EXPECT_FALSE(cuda::cudnn::enabled());
  EXPECT_TRUE(cuda::cudnn::conv_path().starts_with("im2col + cuBLAS (cuDNN disabled: NABLA_CUDNN=0"))
      << cuda::cudnn::conv_path();
  cuda::cudnn::set_enabled(true);
  const std::string path = cuda::cudnn::conv_path();
  if (cuda::cudnn::is_available())
    EXPECT_TRUE(path.starts_with("cuDNN 9.")) << path;
  else
    EXPECT_EQ(path, "im2col + cuBLAS (" + cuda::cudnn::unavailable_reason() + ")");
  cuda::cudnn::set_enabled(before);
}

// One convolution's shape and hyperparameters.
struct ConvCase {
  const char* name;
  Shape x, w;  // input [N, C, H, W], weight [OC, C / groups, KH, KW]
  Shape stride, padding, dilation;
  int64_t groups;
  bool bias;
};

const ConvCase kCases[] = {
    {"3x3 same padding", {2, 3, 9, 9}, {4, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
    {"5x5 stride 2 (the first conv of a small CNN)", {4, 1, 28, 28}, {8, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, 1, true},
    {"uneven stride and padding", {2, 4, 11, 8}, {6, 4, 3, 2}, {2, 1}, {1, 0}, {1, 1}, 1, false},
    {"dilation 2", {2, 3, 12, 12}, {5, 3, 3, 3}, {1, 1}, {2, 2}, {2, 2}, 1, true},
    {"groups 2", {3, 4, 7, 7}, {6, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 2, true},
    {"depthwise, stride 2, leftover rows", {2, 6, 10, 9}, {6, 1, 3, 3}, {2, 2}, {0, 0}, {1, 1}, 6, false},
    {"1x1", {5, 8, 4, 4}, {3, 8, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},
};

class CudaCudnn : public ::testing::Test {
 protected:
  void SetUp() override {
    NABLA_SKIP_WITHOUT_CUDA();
    if (!cuda::cudnn::is_available()) GTEST_SKIP() << "no cuDNN: " << cuda::cudnn::unavailable_reason();
    was_enabled_ = cuda::cudnn::enabled();
  }
  void TearDown() override { cuda::cudnn::set_enabled(was_enabled_); }

  // The values and gradients of y = conv2d(x, w, b) (and of sum(y * g)) on
  // `d`, through cuDNN or not.
  struct Result {
    Tensor y, gx, gw, gb, transposed;
  };
  static Result run(const ConvCase& c, DType t, Device d, bool use_cudnn) {
    cuda::cudnn::set_enabled(use_cudnn);
    manual_seed(11);
    const TensorOptions o = TensorOptions().dtype(t);
    const Tensor x0 = randn(c.x, o), w0 = randn(c.w, o), b0 = randn({c.w[0]}, o);
    const Tensor x = x0.to(d).requires_grad_(), w = w0.to(d).requires_grad_(), b = b0.to(d).requires_grad_();
    Result r;
    r.y = conv2d(x, w, c.bias ? b : Tensor(), c.stride, c.padding, c.dilation, c.groups);
    const Tensor g = randn(r.y.sizes(), o).to(d), bt = randn({c.x[1]}, o).to(d);
    (r.y * g).sum().backward();  // conv_transpose2d (backward data) and conv2d_weight_grad (backward filter)
    r.gx = x.grad(), r.gw = w.grad();
    if (c.bias) r.gb = b.grad();
    // conv_transpose2d as an op of its own, with a bias: y's shape back to x's.
    NoGradGuard no_grad;
    r.transposed =
        conv_transpose2d(g, w.detach(), c.bias ? bt : Tensor(), c.stride, c.padding, {0, 0}, c.groups, c.dilation);
    return r;
  }
  static void expect_close(const Tensor& a, const Tensor& b, DType t, const std::string& what) {
    if (!b.defined()) return;
    CloseOptions o;
    if (t == kFloat64)
      o.rtol = 1e-10, o.atol = 1e-10;
    else
      o.rtol = 1e-4, o.atol = 1e-4;  // sums of up to a few hundred float32 products, in other orders
    o.msg = what;
    assert_close(a.cpu(), b.cpu(), o);
  }

 private:
  bool was_enabled_ = true;
};

TEST_F(CudaCudnn, MatchesIm2colAndTheCpuOnEveryShape) {
  const Device gpu("cuda:0");
  for (const ConvCase& c : kCases) {
    for (DType t : {kFloat32, kFloat64}) {
      const std::string at = std::string(c.name) + ", " + std::string(dtype_name(t));
      SCOPED_TRACE(at);
      // Each run makes four convolution calls on the GPU: conv2d, its input and
      // weight gradients, and conv_transpose2d.
      const cuda::cudnn::ConvCounts c0 = cuda::cudnn::conv_counts();
      const Result dnn = run(c, t, gpu, true);
      const cuda::cudnn::ConvCounts c1 = cuda::cudnn::conv_counts();
      const Result im2col = run(c, t, gpu, false);
      const cuda::cudnn::ConvCounts c2 = cuda::cudnn::conv_counts();
      const Result cpu = run(c, t, kCPU, false);
      EXPECT_EQ(c1.cudnn - c0.cudnn, 4) << "convolution calls through cuDNN with it enabled";
      EXPECT_EQ(c1.im2col - c0.im2col, 0) << "convolution calls as im2col with cuDNN enabled";
      EXPECT_EQ(c2.cudnn - c1.cudnn, 0) << "convolution calls through cuDNN with it disabled";
      EXPECT_EQ(c2.im2col - c1.im2col, 4) << "convolution calls as im2col with cuDNN disabled";
      for (const auto& [what, a, b] : {std::tuple<const char*, Tensor, Tensor>{"conv2d", dnn.y, im2col.y},
                                       {"input gradient", dnn.gx, im2col.gx},
                                       {"weight gradient", dnn.gw, im2col.gw},
                                       {"bias gradient", dnn.gb, im2col.gb},
                                       {"conv_transpose2d", dnn.transposed, im2col.transposed}}) {
        expect_close(a, b, t, at + ": " + what + ", cuDNN against im2col on cuda:0");
      }
      expect_close(dnn.y, cpu.y, t, at + ": conv2d, cuDNN against the CPU");
      expect_close(dnn.gx, cpu.gx, t, at + ": input gradient, cuDNN against the CPU");
      expect_close(dnn.gw, cpu.gw, t, at + ": weight gradient, cuDNN against the CPU");
      expect_close(dnn.transposed, cpu.transposed, t, at + ": conv_transpose2d, cuDNN against the CPU");
    }
  }
}

// Benchmark mode (torch.backends.cudnn.benchmark) times each new shape once
// per pass, on the GPU, and runs the winner: cuDNN's or im2col's, with the
// CPU's results either way.
TEST_F(CudaCudnn, BenchmarkModeTimesEachShapeOnceAndKeepsTheResults) {
  const Device gpu("cuda:0");
  const bool was = cuda::cudnn::benchmark();
  cuda::cudnn::set_benchmark(true);
  EXPECT_NE(cuda::cudnn::conv_path().find("benchmark mode"), std::string::npos) << cuda::cudnn::conv_path();
  // Shapes no other test uses (the batch of 7), so each is new here.
  for (ConvCase c : {kCases[0], kCases[1], kCases[4]}) {
    c.x[0] = 7;
    for (DType t : {kFloat32, kFloat64}) {
      const std::string at = std::string(c.name) + ", " + std::string(dtype_name(t)) + ", benchmark mode";
      SCOPED_TRACE(at);
      const cuda::cudnn::ConvCounts c0 = cuda::cudnn::conv_counts();
      const Result first = run(c, t, gpu, true);
      const cuda::cudnn::ConvCounts c1 = cuda::cudnn::conv_counts();
      const Result again = run(c, t, gpu, true);
      const cuda::cudnn::ConvCounts c2 = cuda::cudnn::conv_counts();
      const Result cpu = run(c, t, kCPU, false);
      // Forward, backward data and backward filter; conv_transpose2d is the
      // input gradient's call again where it gives back the input's size
      // (with stride 2, output_padding 0 gives one row less: a shape of its own).
      const int64_t shapes = first.transposed.sizes() == first.gx.sizes() ? 3 : 4;
      EXPECT_EQ(c1.benchmarked - c0.benchmarked, shapes) << "shapes timed in the first run";
      EXPECT_EQ(c2.benchmarked - c1.benchmarked, 0) << "shapes timed again in the second run";
      EXPECT_EQ((c1.cudnn - c0.cudnn) + (c1.im2col - c0.im2col), 4) << "convolution calls in the first run";
      EXPECT_EQ(c2.cudnn - c1.cudnn, c1.cudnn - c0.cudnn) << "the second run takes the first one's paths";
      std::printf("%s: cuDNN %lld, im2col %lld of 4 calls; im2col fastest for %lld of %lld shapes so far\n",
                  at.c_str(), static_cast<long long>(c2.cudnn - c1.cudnn), static_cast<long long>(c2.im2col - c1.im2col),
                  static_cast<long long>(c2.im2col_won), static_cast<long long>(c2.benchmarked));
      for (const auto& [what, a, b] : {std::tuple<const char*, Tensor, Tensor>{"conv2d", first.y, cpu.y},
                                       {"input gradient", first.gx, cpu.gx},
                                       {"weight gradient", first.gw, cpu.gw},
                                       {"bias gradient", first.gb, cpu.gb},
                                       {"conv_transpose2d", first.transposed, cpu.transposed},
                                       {"conv2d, second run", again.y, cpu.y},
                                       {"input gradient, second run", again.gx, cpu.gx}}) {
        expect_close(a, b, t, at + ": " + what + " against the CPU");
      }
    }
  }
  cuda::cudnn::set_benchmark(was);
}

// What cuDNN cannot express runs as im2col, with the same results: an
// output_padding of at least the stride (allowed below the dilation) and a
// weight gradient for an output gradient smaller than the natural output.
TEST_F(CudaCudnn, ShapesCudnnCannotTakeFallBackToIm2col) {
  const Device gpu("cuda:0");
  manual_seed(3);
  const Tensor x = randn({2, 4, 5, 5}), w = randn({4, 3, 3, 3});
  const Tensor expected = conv_transpose2d(x, w, Tensor(), {1, 1}, {1, 1}, {1, 1}, 1, {2, 2});
  cuda::cudnn::set_enabled(true);
  const cuda::cudnn::ConvCounts before = cuda::cudnn::conv_counts();
  const Tensor got = conv_transpose2d(x.to(gpu), w.to(gpu), Tensor(), {1, 1}, {1, 1}, {1, 1}, 1, {2, 2});
  assert_close(got.cpu(), expected, CloseOptions{.rtol = 1e-4, .atol = 1e-4, .msg = "output_padding 1, stride 1"});

  const Tensor input = randn({2, 3, 9, 9}), gy = randn({2, 5, 6, 6});  // natural output 7x7
  const Tensor gw = conv2d_weight_grad(input, gy, {5, 3, 3, 3});
  const Tensor gw_gpu = conv2d_weight_grad(input.to(gpu), gy.to(gpu), {5, 3, 3, 3});
  assert_close(gw_gpu.cpu(), gw, CloseOptions{.rtol = 1e-4, .atol = 1e-4, .msg = "a 6x6 grad_output of a 7x7 conv"});
  const cuda::cudnn::ConvCounts after = cuda::cudnn::conv_counts();
  EXPECT_EQ(after.im2col - before.im2col, 2);
  EXPECT_EQ(after.cudnn - before.cudnn, 0);
}

}  // namespace
}  // namespace nabla::testing
