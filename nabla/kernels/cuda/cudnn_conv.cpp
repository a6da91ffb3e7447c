// The CUDA kernels of conv2d, conv_transpose2d (cuDNN's backward data) and
// conv2d_weight_grad (backward filter) through cuDNN's legacy convolution
// API, where cuDNN is loaded (cudnn.h) and enabled (nabla/cudnn.h:
// NABLA_CUDNN=0 or cuda::cudnn::set_enabled(false) turn it off); otherwise,
// and for what cuDNN cannot express, the im2col + cuBLAS kernels of
// kernels/accel/conv.cpp run. Per call: NCHW descriptors of the dense
// operands, the algorithm from cuDNN's heuristics (cudnnGet*Algorithm_v7,
// chosen once per shape and cached), its workspace from the device's caching
// allocator (a tensor that lives for the call), all on the device's compute
// stream. One cuDNN handle per device, used under a lock.
//
// float32 runs with CUDNN_FMA_MATH, not CUDNN_DEFAULT_MATH: on Ampere and
// later GPUs the default lets cuDNN use TF32 tensor cores (10-bit
// mantissas), and nabla keeps float32 products float32, as its cuBLAS GEMMs
// do (accel_runtime.cpp). PyTorch's default differs here
// (torch.backends.cudnn.allow_tf32 is true). float64 runs with the default.
#include "nabla/kernels/cuda/cudnn_conv.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nabla/core/grad_mode.h"
#include "nabla/cudnn.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/cuda/cudnn.h"
#include "nabla/kernels/cuda/runtime.h"
#include "nabla/ops/conv_geometry.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef conv2d_op, conv_transpose2d_op, conv2d_weight_grad_op;  // ops/conv_ops.cpp
}

namespace nabla::cuda {
namespace {

// The im2col + cuBLAS kernels, which run where cuDNN does not.
struct Im2colKernels {
  KernelFn conv2d = nullptr, conv_transpose2d = nullptr, weight_grad = nullptr;
};
Im2colKernels& im2col() {
  static Im2colKernels k;
  return k;
}

#if NABLA_HAVE_CUDNN

enum class Pass : int64_t { Forward, BackwardData, BackwardFilter };

// conv2d's output size along one side: the size cuDNN derives.
int64_t natural_out(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

// Whether cuDNN can run g: every size fits its ints, nothing is empty, and
// the output side is conv2d's natural output of the input side (nabla's
// gradient rules may pass a smaller output gradient, or an output_padding
// of at least the stride: rows no window reaches, which im2col handles).
bool cudnn_fits(const Conv2dGeometry& g) {
  for (int64_t v : {g.batch * g.in_channels * g.in_h * g.in_w, g.batch * g.out_channels * g.out_h * g.out_w,
                    g.out_channels * g.in_channels * g.kernel_h * g.kernel_w})
    if (v <= 0 || v > INT_MAX) return false;
  return g.out_h == natural_out(g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.dilation_h) &&
         g.out_w == natural_out(g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w);
}

int to_int(int64_t v) { return static_cast<int>(v); }  // after cudnn_fits

// cuDNN's kernels may load 16 bytes at a time: operands start 16-byte aligned
// (the allocator's blocks do; a view into one may not).
bool aligned(const Tensor& t) { return t.storage_offset() * static_cast<int64_t>(itemsize(t.dtype())) % 16 == 0; }
Tensor aligned_copy(const Tensor& t) { return aligned(t) ? t : t.clone(); }

// Algorithms whose workspace exceeds this are passed over (FFT ones can ask
// for gigabytes).
constexpr std::size_t kMaxWorkspace = std::size_t{1} << 30;

cudnnDataType_t data_type(DType t) { return t == kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

// The four descriptors of one convolution: x the input (image) side
// [N, C, H, W], y the output side [N, OC, OH, OW], w [OC, C / groups, KH, KW].
// Destroyed with the object, also when setting one fails.
class Descriptors {
 public:
  Descriptors(const Cudnn& fn, const char* op) : fn_(fn) {
    check_cudnn(fn.cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor", op);
    check_cudnn(fn.cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor", op);
    check_cudnn(fn.cudnnCreateTensorDescriptor(&bias), "cudnnCreateTensorDescriptor", op);
    check_cudnn(fn.cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor", op);
    check_cudnn(fn.cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor", op);
  }
  ~Descriptors() {
    if (x) fn_.cudnnDestroyTensorDescriptor(x);
    if (y) fn_.cudnnDestroyTensorDescriptor(y);
    if (bias) fn_.cudnnDestroyTensorDescriptor(bias);
    if (w) fn_.cudnnDestroyFilterDescriptor(w);
    if (conv) fn_.cudnnDestroyConvolutionDescriptor(conv);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  void set(const Conv2dGeometry& g, DType t, const char* op) {
    const cudnnDataType_t dt = data_type(t);
    check_cudnn(fn_.cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, dt, to_int(g.batch), to_int(g.in_channels),
                                               to_int(g.in_h), to_int(g.in_w)),
                "cudnnSetTensor4dDescriptor (input)", op);
    check_cudnn(fn_.cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, dt, to_int(g.batch), to_int(g.out_channels),
                                               to_int(g.out_h), to_int(g.out_w)),
                "cudnnSetTensor4dDescriptor (output)", op);
    check_cudnn(
        fn_.cudnnSetFilter4dDescriptor(w, dt, CUDNN_TENSOR_NCHW, to_int(g.out_channels),
                                       to_int(g.in_channels / g.groups), to_int(g.kernel_h), to_int(g.kernel_w)),
        "cudnnSetFilter4dDescriptor", op);
    check_cudnn(fn_.cudnnSetConvolution2dDescriptor(conv, to_int(g.pad_h), to_int(g.pad_w), to_int(g.stride_h),
                                                    to_int(g.stride_w), to_int(g.dilation_h), to_int(g.dilation_w),
                                                    CUDNN_CROSS_CORRELATION, dt),
                "cudnnSetConvolution2dDescriptor", op);
    check_cudnn(fn_.cudnnSetConvolutionGroupCount(conv, to_int(g.groups)), "cudnnSetConvolutionGroupCount", op);
    check_cudnn(fn_.cudnnSetConvolutionMathType(conv, math_type(t)), "cudnnSetConvolutionMathType", op);
  }
  // bias [1, channels, 1, 1], for cudnnAddTensor onto an output of `channels`.
  void set_bias(int64_t channels, DType t, const char* op) {
    check_cudnn(fn_.cudnnSetTensor4dDescriptor(bias, CUDNN_TENSOR_NCHW, data_type(t), 1, to_int(channels), 1, 1),
                "cudnnSetTensor4dDescriptor (bias)", op);
  }

  // No TF32 for float32 (the file's comment says why).
  static cudnnMathType_t math_type(DType t) { return t == kFloat32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH; }

  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

 private:
  const Cudnn& fn_;
};

// An algorithm and its workspace in bytes; algo -1: none (im2col runs).
struct Algo {
  int algo = -1;
  std::size_t workspace = 0;
};

// One device's cuDNN handle (on its compute stream) and the algorithms
// chosen per shape; `mu` is held for each call (a handle is not thread-safe).
struct DeviceState {
  std::mutex mu;
  cudnnHandle_t handle = nullptr;
  std::map<std::vector<int64_t>, Algo> algos;
};

// The state of `dev`, its handle created at the first call (dev current).
DeviceState& state_of(DeviceContext& dev, const Cudnn& fn, const char* op) {
  static std::mutex mu;
  static auto* states = new std::map<int, std::unique_ptr<DeviceState>>();  // never destroyed: used until exit
  std::lock_guard lock(mu);
  std::unique_ptr<DeviceState>& s = (*states)[dev.index];
  if (!s) {
    auto fresh = std::make_unique<DeviceState>();
    check_cudnn(fn.cudnnCreate(&fresh->handle), "cudnnCreate", op);
    check_cudnn(fn.cudnnSetStream(fresh->handle, dev.stream(0)), "cudnnSetStream", op);
    s = std::move(fresh);
  }
  return *s;
}

// The algorithms of cuDNN's heuristics, in their order, that succeed,
// compute with the descriptors' math type (no tensor-op entries for
// float32) and report a workspace size within kMaxWorkspace; `why` says
// what was passed over (for the message when none is left).
template <class Perf, class GetAlgos, class GetWorkspace>
std::vector<Algo> candidates(const Cudnn& fn, DType t, const char* what, const char* op, GetAlgos get_algos,
                             GetWorkspace get_workspace, std::string& why) {
  Perf perf[16] = {};
  int returned = 0;
  check_cudnn(get_algos(16, &returned, perf), what, op);
  why = std::string(what) + " returned " + std::to_string(returned) + " algorithms";
  std::vector<Algo> usable;
  for (int i = 0; i < returned; ++i) {
    const Perf& p = perf[i];
    const std::string name = "; algorithm " + std::to_string(static_cast<int>(p.algo)) + ": ";
    if (p.status != CUDNN_STATUS_SUCCESS) {
      why += name + fn.cudnnGetErrorString(p.status);
      continue;
    }
    if (t == kFloat32 && (p.mathType == CUDNN_TENSOR_OP_MATH || p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)) {
      why += name + "tensor-op math (TF32), not used for float32";
      continue;
    }
    std::size_t bytes = 0;
    const cudnnStatus_t s = get_workspace(p.algo, &bytes);
    if (s != CUDNN_STATUS_SUCCESS) {
      why += name + "workspace size: " + fn.cudnnGetErrorString(s);
    } else if (bytes > kMaxWorkspace) {
      why += name + "a workspace of " + std::to_string(bytes) + " bytes";
    } else {
      usable.push_back(Algo{static_cast<int>(p.algo), bytes});
    }
  }
  return usable;
}

// One line on stderr when a shape cuDNN was asked for runs as im2col
// (once per shape: the algorithm cache remembers it).
void say_im2col_runs(const char* op, DType t, Inputs in, const std::string& why) {
  std::fputs(::nabla::detail::concat("nabla: ", op, ": cuDNN cannot run ", t, " inputs ", in[0].sizes(), " and ",
                                     in[1].sizes(), " (", why, "); im2col + cuBLAS runs them\n")
                 .c_str(),
             stderr);
}

const void* cptr(const Tensor& t) {
  return reinterpret_cast<const void*>(device_ptr(accel::handle_of(t), t.storage_offset() * itemsize(t.dtype())));
}
void* mptr(const Tensor& t) {
  return reinterpret_cast<void*>(device_ptr(accel::handle_of(t), t.storage_offset() * itemsize(t.dtype())));
}

// alpha = 1 and beta = 0 or 1, in the type cuDNN reads them as for t.
struct Scalars {
  explicit Scalars(DType t) : f64(t == kFloat64) {}
  const void* one() const { return f64 ? static_cast<const void*>(&d1) : &f1; }
  const void* zero() const { return f64 ? static_cast<const void*>(&d0) : &f0; }
  bool f64;
  float f1 = 1.0f, f0 = 0.0f;
  double d1 = 1.0, d0 = 0.0;
};

// One convolution call made ready for cuDNN: its descriptors and dense,
// aligned operands (a0, a1: in[0], in[1]) on the device's handle.
struct Call {
  const Cudnn& fn;
  Pass pass;
  const char* op;
  DeviceState& st;
  Descriptors& d;
  const Tensor &a0, &a1;
  Tensor& result;

  // Algorithms this call's shape may run, best first by cuDNN's heuristics.
  std::vector<Algo> usable(DType t, std::string& why) const {
    cudnnHandle_t h = st.handle;
    switch (pass) {
      case Pass::Forward:
        return candidates<cudnnConvolutionFwdAlgoPerf_t>(
            fn, t, "cudnnGetConvolutionForwardAlgorithm_v7", op,
            [&](int n, int* r, cudnnConvolutionFwdAlgoPerf_t* p) {
              return fn.cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, n, r, p);
            },
            [&](cudnnConvolutionFwdAlgo_t algo, std::size_t* bytes) {
              return fn.cudnnGetConvolutionForwardWorkspaceSize(h, d.x, d.w, d.conv, d.y, algo, bytes);
            },
            why);
      case Pass::BackwardData:
        return candidates<cudnnConvolutionBwdDataAlgoPerf_t>(
            fn, t, "cudnnGetConvolutionBackwardDataAlgorithm_v7", op,
            [&](int n, int* r, cudnnConvolutionBwdDataAlgoPerf_t* p) {
              return fn.cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, n, r, p);
            },
            [&](cudnnConvolutionBwdDataAlgo_t algo, std::size_t* bytes) {
              return fn.cudnnGetConvolutionBackwardDataWorkspaceSize(h, d.w, d.y, d.conv, d.x, algo, bytes);
            },
            why);
      case Pass::BackwardFilter:
        return candidates<cudnnConvolutionBwdFilterAlgoPerf_t>(
            fn, t, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", op,
            [&](int n, int* r, cudnnConvolutionBwdFilterAlgoPerf_t* p) {
              return fn.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, n, r, p);
            },
            [&](cudnnConvolutionBwdFilterAlgo_t algo, std::size_t* bytes) {
              return fn.cudnnGetConvolutionBackwardFilterWorkspaceSize(h, d.x, d.y, d.conv, d.w, algo, bytes);
            },
            why);
    }
    return {};
  }

  // result = the pass through `algo` (no bias); the call's name in `call`.
  cudnnStatus_t launch(Algo algo, const char*& call) const {
    // The workspace: device memory from the caching allocator, on this
    // stream, released (to the cache) when the call returns; later work on
    // the stream reuses it only after this call's work, in stream order.
    const Tensor workspace = algo.workspace > 0
                                 ? make_empty({static_cast<int64_t>(algo.workspace)}, kUInt8, result.device(), op)
                                 : Tensor();
    void* ws = algo.workspace > 0 ? mptr(workspace) : nullptr;
    const Scalars s(result.dtype());
    switch (pass) {
      case Pass::Forward:
        call = "cudnnConvolutionForward";
        return fn.cudnnConvolutionForward(st.handle, s.one(), d.x, cptr(a0), d.w, cptr(a1), d.conv,
                                          static_cast<cudnnConvolutionFwdAlgo_t>(algo.algo), ws, algo.workspace,
                                          s.zero(), d.y, mptr(result));
      case Pass::BackwardData:
        call = "cudnnConvolutionBackwardData";
        return fn.cudnnConvolutionBackwardData(st.handle, s.one(), d.w, cptr(a1), d.y, cptr(a0), d.conv,
                                               static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.algo), ws,
                                               algo.workspace, s.zero(), d.x, mptr(result));
      case Pass::BackwardFilter:
        call = "cudnnConvolutionBackwardFilter";
        return fn.cudnnConvolutionBackwardFilter(st.handle, s.one(), d.x, cptr(a0), d.y, cptr(a1), d.conv,
                                                 static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo.algo), ws,
                                                 algo.workspace, s.zero(), d.w, mptr(result));
    }
    return CUDNN_STATUS_BAD_PARAM;
  }
};

// Whether dev's compute stream is being captured into a CUDA graph (then
// nothing may wait for the device).
bool capturing(DeviceContext& dev, const char* op) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  check(driver().cuStreamIsCapturing(dev.stream(0), &status), "cuStreamIsCapturing", op);
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// Seconds `run` takes on dev's compute stream: one run to warm up (kernels
// compiled, workspace cached), then the best of three, each timed on the
// host from an idle stream to its synchronize; +inf when `run` says it
// cannot run (returns false).
template <class Run>
double seconds_of(DeviceContext& dev, const char* op, Run run) {
  CUstream s = dev.stream(0);
  const auto sync = [&] { check(driver().cuStreamSynchronize(s), "cuStreamSynchronize", op); };
  if (!run()) return std::numeric_limits<double>::infinity();
  sync();
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < 3; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    run();
    sync();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// Benchmark mode (nabla/cudnn.h): times every usable algorithm and im2col
// (the `fallback` kernel on the same operands) and returns the fastest;
// Algo{-1} when im2col won. The call's output is overwritten by each try
// (the caller then runs the winner). Counted by count_benchmark.
Algo fastest(const Call& c, DeviceContext& dev, const std::vector<Algo>& algos, KernelFn fallback, Inputs in,
             const Attrs& a, std::span<Tensor> out) {
  Algo best{-1, 0};
  double best_s = fallback ? seconds_of(dev, c.op,
                                        [&] {
                                          fallback(in, a, out);
                                          return true;
                                        })
                           : std::numeric_limits<double>::infinity();
  for (const Algo& algo : algos) {
    const double sec = seconds_of(dev, c.op, [&] {
      const char* call = "";
      const cudnnStatus_t status = c.launch(algo, call);
      if (CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED) return false;
      check_cudnn(status, call, c.op);
      return true;
    });
    if (sec < best_s) best_s = sec, best = algo;
  }
  detail::count_benchmark(best.algo < 0);
  return best;
}

// c's pass through `algo`, plus the bias where there is one; false (and a
// line on stderr) when cuDNN says it does not support the call, so nothing ran.
bool run_algo(const Call& c, Algo algo, const Tensor& bias, const Conv2dGeometry& g, Inputs in) {
  const char* call = "";
  const cudnnStatus_t status = c.launch(algo, call);
  if (CUDNN_STATUS_CATEGORY(status) == CUDNN_STATUS_NOT_SUPPORTED) {
    say_im2col_runs(c.op, c.result.dtype(), in,
                    std::string(call) + " with algorithm " + std::to_string(algo.algo) + ": " +
                        c.fn.cudnnGetErrorString(status));
    return false;
  }
  check_cudnn(status, call, c.op);
  if (bias.defined()) {
    // Onto the output side of this pass: y's channels forward, x's backward.
    const bool forward = c.pass == Pass::Forward;
    const DType t = c.result.dtype();
    const Scalars s(t);
    c.d.set_bias(forward ? g.out_channels : g.in_channels, t, c.op);
    check_cudnn(c.fn.cudnnAddTensor(c.st.handle, s.one(), c.d.bias, cptr(bias), s.one(), forward ? c.d.y : c.d.x,
                                    mptr(c.result)),
                "cudnnAddTensor (bias)", c.op);
  }
  return true;
}

// Runs one pass through cuDNN; false (nothing done) where cuDNN is off,
// not loaded, cannot express the call, or (benchmark mode) im2col is faster
// for the shape, so that im2col (`fallback`) runs instead.
//   Forward:        out = conv2d(in[0], in[1]) + in[2]           (x, w -> y)
//   BackwardData:   out = conv_transpose2d(in[0], in[1]) + in[2] (dy, w -> dx)
//   BackwardFilter: out = conv2d_weight_grad(in[0], in[1])       (x, dy -> dw)
bool run_cudnn(Pass pass, const char* op, KernelFn fallback, Inputs in, const Attrs& a, std::span<Tensor> out) {
  if (!cudnn::enabled()) return false;
  const Cudnn* fn = cudnn_library();
  if (!fn) return false;
  Tensor& result = out[0];
  const DType t = result.dtype();
  if (t != kFloat32 && t != kFloat64) return false;
  for (const Tensor& x : in)
    if (x.dtype() != t) return false;
  const Conv2dGeometry g = pass == Pass::Forward        ? conv2d_geometry(op, in[0], in[1].sizes(), a)
                           : pass == Pass::BackwardData ? conv_transpose2d_geometry(op, in[0], in[1], a)
                                                        : weight_grad_geometry(op, in[0], in[1], a);
  if (!cudnn_fits(g) || result.numel() == 0) return false;

  if (!aligned(result)) return false;
  NoGradGuard no_grad;  // the copies below are part of this kernel
  const Tensor a0 = aligned_copy(accel::dense(in[0])), a1 = aligned_copy(accel::dense(in[1]));
  const Tensor bias = pass != Pass::BackwardFilter && in.size() > 2 ? aligned_copy(accel::dense(in[2])) : Tensor();
  DeviceContext& dev = device(result.device().index, op);
  dev.make_current();
  DeviceState& st = state_of(dev, *fn, op);
  std::lock_guard lock(st.mu);
  Descriptors d(*fn, op);
  d.set(g, t, op);
  const Call c{*fn, pass, op, st, d, a0, a1, result};
  const std::vector<int64_t> key{static_cast<int64_t>(pass),
                                 static_cast<int64_t>(t),
                                 g.batch,
                                 g.in_channels,
                                 g.in_h,
                                 g.in_w,
                                 g.out_channels,
                                 g.out_h,
                                 g.out_w,
                                 g.kernel_h,
                                 g.kernel_w,
                                 g.stride_h,
                                 g.stride_w,
                                 g.pad_h,
                                 g.pad_w,
                                 g.dilation_h,
                                 g.dilation_w,
                                 g.groups,
                                 cudnn::benchmark() ? 1 : 0};  // the two modes' choices are kept apart
  auto found = st.algos.find(key);
  if (found == st.algos.end()) {
    std::string why;
    const std::vector<Algo> algos = c.usable(t, why);
    Algo chosen;
    if (algos.empty()) {
      say_im2col_runs(op, t, in, why);
    } else if (!cudnn::benchmark()) {
      chosen = algos.front();
    } else if (capturing(dev, op)) {
      // For this call only: the shape is timed when it comes outside a capture.
      return run_algo(c, algos.front(), bias, g, in);
    } else {
      chosen = fastest(c, dev, algos, fallback, in, a, out);
    }
    found = st.algos.emplace(key, chosen).first;
  }
  const Algo algo = found->second;
  if (algo.algo < 0) return false;
  if (!run_algo(c, algo, bias, g, in)) {
    found->second.algo = -1;  // nothing ran: this shape takes im2col from now on (said once)
    return false;
  }
  return true;
}

#else  // built without cudnn.h: the im2col kernels run

enum class Pass { Forward, BackwardData, BackwardFilter };
bool run_cudnn(Pass, const char*, KernelFn, Inputs, const Attrs&, std::span<Tensor>) { return false; }

#endif

// cuDNN, else im2col, counted (nabla/cudnn.h's conv_counts).
void run(Pass pass, const char* op, KernelFn fallback, Inputs in, const Attrs& a, std::span<Tensor> out) {
  const bool through_cudnn = run_cudnn(pass, op, fallback, in, a, out);
  if (!through_cudnn) fallback(in, a, out);
  detail::count_conv(through_cudnn);
}
void conv2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  run(Pass::Forward, "conv2d", im2col().conv2d, in, a, out);
}
void conv_transpose2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  run(Pass::BackwardData, "conv_transpose2d", im2col().conv_transpose2d, in, a, out);
}
void weight_grad_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  run(Pass::BackwardFilter, "conv2d_weight_grad", im2col().weight_grad, in, a, out);
}

}  // namespace

void register_cudnn_conv_kernels() {
  Im2colKernels& k = im2col();
  k.conv2d = find_kernel(conv2d_op, DeviceType::CUDA);
  k.conv_transpose2d = find_kernel(conv_transpose2d_op, DeviceType::CUDA);
  k.weight_grad = find_kernel(conv2d_weight_grad_op, DeviceType::CUDA);
  if (!k.conv2d || !k.conv_transpose2d || !k.weight_grad) return;  // no im2col kernels to fall back on
  register_kernel(conv2d_op, DeviceType::CUDA, conv2d_kernel);
  register_kernel(conv_transpose2d_op, DeviceType::CUDA, conv_transpose2d_kernel);
  register_kernel(conv2d_weight_grad_op, DeviceType::CUDA, weight_grad_kernel);
}

}  // namespace nabla::cuda
