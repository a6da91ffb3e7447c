// batch_norm_relu and its ops (native_batch_norm_relu and its backward: the
// CPU's batch norm kernels with ReLU applied as y is written and its mask as
// dy is read) against batch_norm then relu, bit for bit: the fused kernels
// run the same loops on the same values with relu's expression
// (!(v <= 0) ? v : 0) and threshold_backward's (y <= 0 ? 0 : dy) inlined, so
// every sum adds the same terms in the same order (bit for bit but for the
// sign and payload of NaNs, see same_values). Values, gradients and
// running statistics; float64, float32 and bfloat16 (computed in float32 by
// the dispatcher, either way); NCHW, channels-last, [N, C] and [N, C, L]; NaN
// and infinities; eval mode; the nn::Sequential and ResNet block patterns.
// gradcheck and gradgradcheck: the OpInfo entries of norm_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "support/op_info.h"
#include "support/same_bits.h"

namespace nabla::testing {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string grad_fn_name(const Tensor& t) { return t.grad_fn() ? std::string(t.grad_fn()->name()) : "(none)"; }

// Leaf copies of `in` (same values and layout) that require grad.
TensorList leaves(const TensorList& in) {
  TensorList r;
  for (const Tensor& t : in) r.push_back(t.defined() ? clone(t.detach(), MemoryFormat::Preserve).requires_grad_() : t);
  return r;
}

struct BnRun {
  Tensor y, running_mean, running_var;
  TensorList grads;  // of x, weight, bias (undefined where absent)
};

// batch_norm_relu (fused) or relu(batch_norm) on fresh copies of x, w, b and
// running statistics, then backward with upstream gradient g.
BnRun run(bool fused, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& g, bool training = true) {
  TensorList p = leaves({x, w, b});
  BnRun r;
  const int64_t c = x.sizes()[1];
  r.running_mean = sample({c}, -1, 1, 5).to(x.dtype());
  r.running_var = sample_positive({c}, 6).to(x.dtype());
  r.y = fused ? batch_norm_relu(p[0], r.running_mean, r.running_var, p[1], p[2], training, 0.1, 1e-5)
              : relu(batch_norm(p[0], r.running_mean, r.running_var, p[1], p[2], training, 0.1, 1e-5));
  if (fused && training) EXPECT_EQ(grad_fn_name(r.y), "native_batch_norm_relu");
  if (!training) EXPECT_EQ(grad_fn_name(r.y), "relu");
  r.y.backward(g);
  for (const Tensor& t : p) r.grads.push_back(t.defined() ? t.grad() : Tensor());
  return r;
}

// The same dtype, shape and values, -0 and +0 told apart; any NaN equals any
// NaN (the sign and payload of a NaN made from two NaNs depend on operand
// order, which the compiler may pick differently in the two loops).
bool same_values(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  const std::vector<double> u = a.to_vector<double>(), v = b.to_vector<double>();
  for (std::size_t i = 0; i < u.size(); ++i) {
    if (std::isnan(u[i]) || std::isnan(v[i])) {
      if (std::isnan(u[i]) != std::isnan(v[i])) return false;
    } else if (u[i] != v[i] || std::signbit(u[i]) != std::signbit(v[i])) {
      return false;
    }
  }
  return true;
}

void expect_same(const BnRun& fused, const BnRun& unfused, const std::string& what) {
  EXPECT_TRUE(same_values(fused.y, unfused.y)) << what << ": y";
  EXPECT_EQ(suggest_memory_format(fused.y), suggest_memory_format(unfused.y)) << what;
  EXPECT_TRUE(same_values(fused.running_mean, unfused.running_mean)) << what << ": running_mean";
  EXPECT_TRUE(same_values(fused.running_var, unfused.running_var)) << what << ": running_var";
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(fused.grads[i].defined(), unfused.grads[i].defined()) << what << ": gradient " << i;
    if (fused.grads[i].defined())
      EXPECT_TRUE(same_values(fused.grads[i], unfused.grads[i])) << what << ": gradient of input " << i;
  }
}

TEST(BatchNormRelu, MatchesBatchNormThenReluBitForBit) {
  const std::vector<std::pair<std::string, Shape>> shapes = {
      {"[N, C]", {6, 3}}, {"[N, C, L]", {3, 4, 7}}, {"NCHW", {2, 5, 6, 7}}, {"channels-last", {2, 5, 6, 7}}};
  uint64_t seed = 11;
  for (DType dt : {kFloat64, kFloat32, kBFloat16}) {
    for (const auto& [layout, s] : shapes) {
      for (bool affine : {true, false}) {
        const std::string what = std::string(dtype_name(dt)) + " " + layout + (affine ? " affine" : "");
        Tensor x = sample(s, -2, 3, seed++).to(dt), g = sample(s, -1, 1, seed++).to(dt);
        if (layout == "channels-last") {
          x = contiguous(x, MemoryFormat::ChannelsLast);
          g = contiguous(g, MemoryFormat::ChannelsLast);
        }
        Tensor w = affine ? sample({s[1]}, -1.5, 1.5, seed++).to(dt) : Tensor();
        Tensor b = affine ? sample({s[1]}, -1, 1, seed++).to(dt) : Tensor();
        expect_same(run(true, x, w, b, g), run(false, x, w, b, g), what);
      }
    }
  }
}

// NaN, inf and -inf each in a channel of their own: batch norm makes those
// channels NaN (the mean or variance is), relu keeps NaN, and
// threshold_backward passes the gradient where y is NaN. 3x3 planes take the
// backward kernel's small-plane path (mask, then the plain loops), 6x6 its
// fused loops.
TEST(BatchNormRelu, NaNAndInfinitiesAsBatchNormThenRelu) {
  for (DType dt : {kFloat64, kFloat32}) {
    for (int64_t side : {3, 6}) {
      for (bool channels_last : {false, true}) {
        const int64_t P = side * side;  // values per plane
        Tensor x = sample({2, 4, side, side}, -2, 2, 3);
        std::vector<double> v = values(x);
        v[static_cast<std::size_t>(0 * P + 4)] = kNaN;          // batch 0, channel 0
        v[static_cast<std::size_t>(1 * P + 2)] = kInf;          // batch 0, channel 1
        v[static_cast<std::size_t>((4 + 2) * P + 7)] = -kInf;  // batch 1, channel 2
        x = from_values(v, x.sizes(), dt);
        Tensor g = sample({2, 4, side, side}, -1, 1, 4).to(dt);
        if (channels_last) {
          x = contiguous(x, MemoryFormat::ChannelsLast);
          g = contiguous(g, MemoryFormat::ChannelsLast);
        }
        Tensor w = sample({4}, 0.5, 1.5, 5).to(dt), b = sample({4}, -1, 1, 6).to(dt);
        const BnRun fused = run(true, x, w, b, g), unfused = run(false, x, w, b, g);
        const std::string what = std::string(dtype_name(dt)) + " " + std::to_string(side) + "x" +
                                 std::to_string(side) + (channels_last ? " channels-last" : " NCHW");
        expect_same(fused, unfused, what);
        // The test means something: channels 0-2 are NaN, channel 3 is finite and half cut by ReLU.
        std::vector<double> y = values(fused.y);
        EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[static_cast<std::size_t>(P)]) &&
                    std::isnan(y[static_cast<std::size_t>(2 * P)]))
            << y[0];
        int zeros = 0;
        for (int64_t n = 0; n < 2; ++n)
          for (int64_t i = 0; i < P; ++i) {
            const double yi = y[static_cast<std::size_t>((n * 4 + 3) * P + i)];
            EXPECT_TRUE(std::isfinite(yi) && yi >= 0) << yi;
            zeros += yi == 0;
          }
        EXPECT_GT(zeros, P / 4);
        EXPECT_LT(zeros, 2 * P - P / 4);
      }
    }
  }
}

// The backward op alone on outputs with NaN, +-0, negatives and positives
// (not one native_batch_norm_relu could give, so every branch of the mask is
// reached): threshold_backward then native_batch_norm_backward, bit for bit,
// on the CPU kernels and on the generic kernels the other devices run.
TEST(BatchNormRelu, BackwardMasksLikeThresholdBackward) {
  const OpDef* fused = find_op("native_batch_norm_relu_backward");
  const OpDef* plain = find_op("native_batch_norm_backward");
  ASSERT_TRUE(fused && plain);
  for (DType dt : {kFloat64, kFloat32}) {
    // 4x5 planes take the kernel's small-plane path (mask, then the plain
    // loops), 6x7 its fused loops; each NCHW and channels-last.
    for (int variant = 0; variant < 4; ++variant) {
      const bool channels_last = variant & 1;
      const Shape s = variant & 2 ? Shape{3, 2, 6, 7} : Shape{3, 2, 4, 5};
      Tensor x = sample(s, -2, 2, 7).to(dt), dy = sample(s, -1, 1, 8).to(dt);
      std::vector<double> yv = values(sample(s, -1, 1, 9));
      for (std::size_t i = 0; i < yv.size(); i += 7) yv[i] = kNaN;
      for (std::size_t i = 3; i < yv.size(); i += 11) yv[i] = 0.0;
      for (std::size_t i = 5; i < yv.size(); i += 13) yv[i] = -0.0;
      Tensor y = from_values(yv, x.sizes(), dt);
      if (channels_last) {
        x = contiguous(x, MemoryFormat::ChannelsLast);
        dy = contiguous(dy, MemoryFormat::ChannelsLast);
        y = contiguous(y, MemoryFormat::ChannelsLast);
      }
      // mean and var are x's statistics, as the backward ops expect (the CPU
      // kernel re-centres on x's exact mean; the generic one takes them as given).
      const TensorList x_only{x};
      const TensorList stats = call(*find_op("native_batch_norm"), Inputs(x_only.data(), 1), {1e-5, false, false});
      Tensor mean = stats[1], var = stats[2];
      Tensor w = sample({2}, 0.5, 1.5, 12).to(dt);
      const TensorList in{dy, x, mean, var, y, w};
      const TensorList got = call(*fused, Inputs(in.data(), in.size()), {1e-5});
      const TensorList masked_in{threshold_backward(dy, y, 0.0), x, mean, var, w};
      const TensorList want = call(*plain, Inputs(masked_in.data(), masked_in.size()), {1e-5});
      const std::string what = std::string(dtype_name(dt)) + " " + detail::concat(s) +
                               (channels_last ? " channels-last" : " NCHW");
      for (std::size_t k = 0; k < 3; ++k) EXPECT_TRUE(same_bits(got[k], want[k])) << what << " output " << k;
      // The generic kernel (ops: threshold_backward, then native_batch_norm_backward's formula).
      const KernelFn generic = find_kernel(*fused, DeviceType::Opaque);
      ASSERT_NE(generic, nullptr);
      TensorList out;
      for (const OutputMeta& m : fused->infer(*fused, Inputs(in.data(), in.size()), {1e-5}))
        out.push_back(empty(m.sizes, dtype(m.dtype)));
      generic(Inputs(in.data(), in.size()), {1e-5}, std::span<Tensor>(out.data(), out.size()));
      const double tol = dt == kFloat64 ? 1e-12 : 1e-5;
      for (std::size_t k = 0; k < 3; ++k) {
        const std::string diff = compare(out[k], want[k], tol, tol);
        EXPECT_TRUE(diff.empty()) << what << " generic output " << k << ": " << diff;
      }
    }
  }
}

TEST(BatchNormRelu, EvalModeIsReluOfTheEvalForm) {
  Tensor x = sample({2, 3, 4, 4}, -2, 2, 13), g = sample({2, 3, 4, 4}, -1, 1, 14);
  Tensor w = sample({3}, 0.5, 1.5, 15), b = sample({3}, -1, 1, 16);
  const BnRun fused = run(true, x, w, b, g, false), unfused = run(false, x, w, b, g, false);
  expect_same(fused, unfused, "eval");
}

// Under autocast batch_norm_relu has batch_norm's float32 policy: a float32
// result from a bfloat16 input, still one fused op.
TEST(BatchNormRelu, AutocastRunsInFloat32AsBatchNorm) {
  AutocastGuard autocast(kBFloat16);
  Tensor x = sample({4, 3, 2, 2}, -2, 2, 17).to(kBFloat16).requires_grad_();
  Tensor rm1 = zeros({3}), rv1 = ones({3}), rm2 = zeros({3}), rv2 = ones({3});
  Tensor y1 = batch_norm_relu(x, rm1, rv1, Tensor(), Tensor(), true);
  Tensor y2 = relu(batch_norm(x, rm2, rv2, Tensor(), Tensor(), true));
  EXPECT_EQ(y1.dtype(), kFloat32);
  EXPECT_EQ(grad_fn_name(y1), "native_batch_norm_relu");
  EXPECT_TRUE(same_bits(y1, y2));
  EXPECT_TRUE(same_bits(rv1, rv2));
}

// ---- the module patterns ------------------------------------------------------

struct BnReluTwins {
  std::shared_ptr<nn::BatchNorm2d> bn, twin_bn;
  explicit BnReluTwins(const std::string& format = "NCHW") {
    bn = std::make_shared<nn::BatchNorm2d>(3, 1e-5, 0.1, true, true, format);
    twin_bn = std::make_shared<nn::BatchNorm2d>(3, 1e-5, 0.1, true, true, format);
    NoGradGuard no_grad;
    for (auto* m : {bn.get(), twin_bn.get()}) {
      m->weight.copy_(sample({3}, 0.5, 1.5, 18));
      m->bias.copy_(sample({3}, -1, 1, 19));
    }
  }
  void expect_same_state(const std::string& what) const {
    EXPECT_TRUE(same_bits(bn->running_mean, twin_bn->running_mean)) << what;
    EXPECT_TRUE(same_bits(bn->running_var, twin_bn->running_var)) << what;
    EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), twin_bn->num_batches_tracked.item<int64_t>()) << what;
    EXPECT_TRUE(same_bits(bn->weight.grad(), twin_bn->weight.grad())) << what;
    EXPECT_TRUE(same_bits(bn->bias.grad(), twin_bn->bias.grad())) << what;
  }
};

TEST(BatchNormRelu, SequentialRunsBatchNorm2dThenReluAsOneOp) {
  for (const std::string format : {"NCHW", "NHWC"}) {
    BnReluTwins t(format);
    nn::Sequential seq(t.bn, nn::ReLU());
    nn::ReLU relu_module;
    const Shape s = format == "NCHW" ? Shape{2, 3, 5, 4} : Shape{2, 5, 4, 3};
    for (int step = 0; step < 2; ++step) {
      Tensor x = sample(s, -2, 2, 20 + step).requires_grad_(), x2 = x.detach().requires_grad_();
      Tensor y = seq.forward(x), y2 = relu_module.forward(t.twin_bn->forward(x2));
      Tensor g = sample(s, -1, 1, 30 + step);
      y.backward(g);
      y2.backward(g);
      EXPECT_TRUE(same_bits(y, y2)) << format;
      EXPECT_TRUE(same_bits(x.grad(), x2.grad())) << format;
      // NHWC output is a permuted view of the op's result.
      EXPECT_NE(grad_fn_name(y).find(format == "NCHW" ? "native_batch_norm_relu" : ""), std::string::npos)
          << grad_fn_name(y);
    }
    t.expect_same_state(format);
  }
}

TEST(BatchNormRelu, SequentialLeavesEvalModeAndSubclassesAlone) {
  struct MyBatchNorm : nn::BatchNorm2d {
    MyBatchNorm() : nn::BatchNorm2d(3) {}
  };
  Tensor x = sample({2, 3, 4, 4}, -2, 2, 40).requires_grad_();
  nn::Sequential eval_seq(nn::BatchNorm2d(3), nn::ReLU());
  eval_seq.eval();
  EXPECT_EQ(grad_fn_name(eval_seq.forward(x)), "relu");
  nn::Sequential sub(std::make_shared<MyBatchNorm>(), nn::ReLU());
  EXPECT_EQ(grad_fn_name(sub.forward(x)), "relu");
  nn::Sequential train_seq(nn::BatchNorm2d(3), nn::ReLU());
  EXPECT_EQ(grad_fn_name(train_seq.forward(x)), "native_batch_norm_relu");
}

// A ResNet block (bn1 -> relu fused) against its modules run one by one, on a
// twin block with the same parameters: the same output, gradients and
// running statistics, bit for bit.
TEST(BatchNormRelu, ResNetBlocksFuseTheirBatchNormRelu) {
  manual_seed(3);
  zoo::Bottleneck block(8, 2, 1, nullptr);
  manual_seed(3);
  zoo::Bottleneck twin(8, 2, 1, nullptr);
  Tensor x = sample({2, 8, 5, 5}, -2, 2, 41).requires_grad_(), x2 = x.detach().requires_grad_();
  Tensor y = block.forward(x);
  Tensor out = twin.relu->forward(twin.bn1->forward(twin.conv1->forward(x2)));
  out = twin.relu->forward(twin.bn2->forward(twin.conv2->forward(out)));
  Tensor y2 = twin.relu->forward(twin.bn3->forward(twin.conv3->forward(out)) + x2);
  EXPECT_TRUE(same_bits(y, y2));
  y.sum().backward();
  y2.sum().backward();
  EXPECT_TRUE(same_bits(x.grad(), x2.grad()));
  EXPECT_TRUE(same_bits(block.conv1->weight.grad(), twin.conv1->weight.grad()));
  EXPECT_TRUE(same_bits(block.bn2->running_var, twin.bn2->running_var));
  // bn1 and bn2 are fused (their output's consumer is the next convolution's).
  int fused = 0;
  std::vector<autograd::Node*> stack{y.grad_fn().get()};
  std::set<autograd::Node*> seen;
  while (!stack.empty()) {
    autograd::Node* n = stack.back();
    stack.pop_back();
    if (!n || !seen.insert(n).second) continue;
    fused += n->name() == "native_batch_norm_relu";
    for (const autograd::Edge& e : n->next_edges) stack.push_back(e.node.get());
  }
  EXPECT_EQ(fused, 2);
}

}  // namespace
}  // namespace nabla::testing
