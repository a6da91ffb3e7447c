// Every nn layer and loss module against PyTorch 1.13 (acceptance 4): the
// cases of layer_reference_values.h (made by make_layer_reference.py, which
// describes the deterministic weights, inputs and upstream gradient) are
// rebuilt here in float64; forward output, input gradient, parameter
// gradients and buffers after the steps must match to 1e-8 (relative; 1e-10
// absolute), and to 1e-5 when run in float32. Each case's forward is also
// gradchecked (finite differences, float64) in every floating input, targets
// of losses included, and in every parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "nabla/nabla.h"
#include "nn/layer_reference_values.h"
#include "support/op_info.h"

namespace nabla::nn::reference {
// gtest prints a case by its name.
void PrintTo(const LayerCase& c, std::ostream* os) { *os << c.name; }
}  // namespace nabla::nn::reference

namespace nabla {
namespace {

using nn::reference::kLayerCases;
using nn::reference::LayerCase;
using Builder = std::function<nn::ModulePtr()>;
template <class M, class... A>
Builder make(A... args) {
  return [=] { return nn::ModulePtr(std::make_shared<M>(args...)); };
}

// The nabla twin of each case of make_layer_reference.py's LAYERS.
const std::map<std::string, Builder>& layers() {
  static const std::map<std::string, Builder> m = {
      {"linear", make<nn::Linear>(5, 3)},
      {"linear_nobias", make<nn::Linear>(5, 3, false)},
      {"linear_3d", make<nn::Linear>(4, 2)},
      {"conv1d", make<nn::Conv1d>(4, 6, 3, 2, 1, 1, 2)},
      {"conv1d_dilation", make<nn::Conv1d>(3, 2, 2, 1, 0, 2, 1, false)},
      {"conv2d", make<nn::Conv2d>(4, 6, 3, 1, 1, 1, 2)},
      {"conv2d_pairs",
       [] {
         return std::make_shared<nn::Conv2d>(3, 4, nn::Size2{2, 3}, nn::Size2{2, 1}, nn::Size2{1, 0}, nn::Size2{1, 2});
       }},
      {"conv_transpose2d", make<nn::ConvTranspose2d>(4, 6, 3, 2, 1, 1, 2)},
      {"conv_transpose2d_pairs",
       [] {
         return std::make_shared<nn::ConvTranspose2d>(3, 2, nn::Size2{2, 3}, nn::Size2{1, 2}, nn::Size2{0, 1}, 0, 1,
                                                      false, nn::Size2{2, 1});
       }},
      {"max_pool2d", make<nn::MaxPool2d>(2)},
      {"max_pool2d_pad_ceil", [] { return std::make_shared<nn::MaxPool2d>(3, 2, 1, 1, true); }},
      {"max_pool2d_pairs",
       [] {
         return std::make_shared<nn::MaxPool2d>(nn::Size2{2, 3}, nn::Size2{1, 2}, 0, nn::Size2{2, 1});
       }},
      {"avg_pool2d", make<nn::AvgPool2d>(2)},
      {"avg_pool2d_pad_ceil_exclude", [] { return std::make_shared<nn::AvgPool2d>(3, 2, 1, true, false); }},
      {"avg_pool2d_divisor",
       [] {
         return std::make_shared<nn::AvgPool2d>(nn::Size2{2, 3}, nn::Size2{2, 1}, nn::Size2{1, 1}, false, true, 4);
       }},
      {"adaptive_avg_pool2d",
       [] {
         return std::make_shared<nn::AdaptiveAvgPool2d>(nn::Size2{3, 2});
       }},
      {"batch_norm1d_2d", make<nn::BatchNorm1d>(4)},
      {"batch_norm1d_3d", make<nn::BatchNorm1d>(3, 1e-5, 0.3)},
      {"batch_norm1d_cumulative", [] { return std::make_shared<nn::BatchNorm1d>(3, 1e-5, std::nullopt); }},
      {"batch_norm1d_eval", make<nn::BatchNorm1d>(3)},
      {"batch_norm1d_plain", make<nn::BatchNorm1d>(4, 1e-5, 0.1, false, false)},
      {"batch_norm2d_train", make<nn::BatchNorm2d>(3)},
      {"batch_norm2d_eval", make<nn::BatchNorm2d>(3, 1e-3)},
      {"layer_norm", make<nn::LayerNorm>(5)},
      {"layer_norm_2d",
       [] {
         return std::make_shared<nn::LayerNorm>(std::vector<int64_t>{4, 5}, 1e-3);
       }},
      {"layer_norm_plain", make<nn::LayerNorm>(5, 1e-5, false)},
      {"group_norm", make<nn::GroupNorm>(2, 6)},
      {"group_norm_plain", make<nn::GroupNorm>(3, 3, 1e-5, false)},
      {"embedding", make<nn::Embedding>(10, 4)},
      {"embedding_padding", make<nn::Embedding>(10, 4, 3)},
      {"embedding_padding_negative", make<nn::Embedding>(10, 4, -3)},
      {"identity", make<nn::Identity>()},
      {"flatten", make<nn::Flatten>()},
      {"flatten_range", make<nn::Flatten>(0, 1)},
      {"unflatten",
       [] {
         return std::make_shared<nn::Unflatten>(1, std::vector<int64_t>{2, 3});
       }},
      {"relu", make<nn::ReLU>()},
      {"tanh", make<nn::Tanh>()},
      {"sigmoid", make<nn::Sigmoid>()},
      {"gelu", make<nn::GELU>()},
      {"gelu_tanh", make<nn::GELU>(std::string("tanh"))},
      {"leaky_relu", make<nn::LeakyReLU>(0.2)},
      {"elu", make<nn::ELU>(0.7)},
      {"silu", make<nn::SiLU>()},
      {"softmax", make<nn::Softmax>(1)},
      {"log_softmax", make<nn::LogSoftmax>(-1)},
      {"dropout_eval", make<nn::Dropout>(0.3)},
      {"dropout_p0_train", make<nn::Dropout>(0.0)},
  };
  return m;
}

using LossBuilder = std::function<std::shared_ptr<nn::Loss>(const std::string&)>;

// The nabla twin of LOSSES; class weights are placeholders (ones) that the
// deterministic state overwrites, as in the script.
const std::map<std::string, LossBuilder>& losses() {
  static const std::map<std::string, LossBuilder> m = {
      {"mse", [](const std::string& r) { return std::make_shared<nn::MSELoss>(r); }},
      {"l1", [](const std::string& r) { return std::make_shared<nn::L1Loss>(r); }},
      {"smooth_l1", [](const std::string& r) { return std::make_shared<nn::SmoothL1Loss>(r, 0.5); }},
      {"huber", [](const std::string& r) { return std::make_shared<nn::HuberLoss>(r, 0.7); }},
      {"cross_entropy", [](const std::string& r) { return std::make_shared<nn::CrossEntropyLoss>(Tensor(), -100, r); }},
      {"cross_entropy_weight_ignore",
       [](const std::string& r) { return std::make_shared<nn::CrossEntropyLoss>(ones({5}), -100, r); }},
      {"cross_entropy_smoothing",
       [](const std::string& r) { return std::make_shared<nn::CrossEntropyLoss>(ones({5}), -100, r, 0.2); }},
      {"cross_entropy_spatial",
       [](const std::string& r) { return std::make_shared<nn::CrossEntropyLoss>(Tensor(), 1, r); }},
      {"cross_entropy_probs",
       [](const std::string& r) { return std::make_shared<nn::CrossEntropyLoss>(Tensor(), -100, r, 0.1); }},
      {"nll", [](const std::string& r) { return std::make_shared<nn::NLLLoss>(Tensor(), -100, r); }},
      {"nll_weight_ignore", [](const std::string& r) { return std::make_shared<nn::NLLLoss>(ones({5}), 4, r); }},
      {"bce", [](const std::string& r) { return std::make_shared<nn::BCELoss>(Tensor(), r); }},
      {"bce_weight", [](const std::string& r) { return std::make_shared<nn::BCELoss>(ones({4}), r); }},
      {"bce_with_logits", [](const std::string& r) { return std::make_shared<nn::BCEWithLogitsLoss>(Tensor(), r); }},
      {"bce_with_logits_pos_weight",
       [](const std::string& r) {
         return std::make_shared<nn::BCEWithLogitsLoss>(ones({3, 1}), r, ones({4}));
       }},
      {"kl_div", [](const std::string& r) { return std::make_shared<nn::KLDivLoss>(r); }},
      {"kl_div_log_target", [](const std::string& r) { return std::make_shared<nn::KLDivLoss>(r, true); }},
  };
  return m;
}

// Splits "mse_mean" into the loss "mse" and the reduction "mean".
std::pair<std::string, std::string> split_loss_name(const std::string& name) {
  auto pos = name.rfind('_');
  return {name.substr(0, pos), name.substr(pos + 1)};
}

Tensor formula(int64_t n, double scale, double step, double phase, double offset = 0.0) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = offset + scale * std::sin(step * i + phase);
  return tensor(v, {n}, kFloat64);
}

Tensor make_input(const std::string& kind, const std::vector<int64_t>& shape, double phase,
                  const std::vector<int64_t>& values) {
  if (kind == "index") return tensor(values, shape, kInt64);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  if (kind == "signed") return (formula(n, 1.0, 0.7, phase) * 1.5).reshape(shape);
  EXPECT_EQ(kind, "prob");
  return formula(n, 0.45, 0.7, phase, 0.5).reshape(shape);
}

// The deterministic parameters and buffers of make_layer_reference.py's set_state.
void set_state(nn::Module& m) {
  NoGradGuard g;
  int k = 0;
  for (auto& [name, p] : m.named_parameters()) {
    Tensor dst = p;
    dst.copy_(formula(p.numel(), 0.5, 0.3, k + 1).reshape(p.sizes()));
    ++k;
  }
  k = 0;
  for (auto& [name, b] : m.named_buffers()) {
    int kk = k++;
    if (!b.is_floating_point()) continue;
    Tensor v = formula(b.numel(), 1.0, 0.3, kk + 2);
    bool positive = name.find("var") != std::string::npos || name.find("weight") != std::string::npos;
    Tensor dst = b;
    dst.copy_((positive ? v * v * 0.5 + 0.75 : v * 0.2).reshape(b.sizes()));
  }
}

Tensor upstream(const Tensor& out) {
  std::vector<double> u(static_cast<std::size_t>(out.numel()));
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = std::cos(0.37 * static_cast<double>(i) + 0.1);
  return tensor(u, out.sizes(), kFloat64);
}

// A case's module and its (input[, target]) call, in float64.
struct Built {
  nn::ModulePtr module;
  std::shared_ptr<nn::Loss> loss;  // set for loss cases
  Tensor input, target;
  Tensor run(const Tensor& x, const Tensor& t) { return loss ? (*loss)(x, t) : (*module)(x); }
};

Built build(const LayerCase& c, DType dtype = kFloat64) {
  Built b;
  std::string name = c.name;
  if (std::string(c.target_kind) == "none") {
    auto it = layers().find(name);
    if (it == layers().end()) return b;
    b.module = it->second();
  } else {
    auto [loss, reduction] = split_loss_name(name);
    auto it = losses().find(loss);
    if (it == losses().end()) return b;
    b.loss = it->second(reduction);
    b.module = b.loss;
    b.target = make_input(c.target_kind, c.target_shape, 1.1, c.target_values);
    if (b.target.is_floating_point()) b.target = b.target.to(dtype);
  }
  b.module->to(dtype);
  set_state(*b.module);
  b.module->train(!c.eval);
  b.input = make_input(c.input_kind, c.input_shape, 0.2, c.input_values);
  if (b.input.is_floating_point()) b.input = b.input.to(dtype);
  return b;
}

struct Tolerance {
  double atol, rtol;
};
constexpr Tolerance kFloat64Tolerance{1e-10, 1e-8}, kFloat32Tolerance{1e-5, 1e-5};

void expect_close(const std::string& what, const Tensor& actual, const std::vector<double>& expected, Tolerance tol) {
  ASSERT_TRUE(actual.defined()) << what << " is undefined";
  std::string err =
      testing::compare(actual.to(kFloat64).flatten(),
                       tensor(expected, {static_cast<int64_t>(expected.size())}, kFloat64), tol.atol, tol.rtol);
  EXPECT_TRUE(err.empty()) << what << ": " << err;
}

// Runs case c in `dtype` and compares everything the script recorded.
void check_against_pytorch(const LayerCase& c, DType dtype, Tolerance tol) {
  Built b = build(c, dtype);
  ASSERT_TRUE(b.module) << "no nabla builder for reference case " << c.name;
  {
    NoGradGuard g;
    for (int s = 1; s < c.steps; ++s) b.run(b.input, b.target);
  }
  Tensor x = b.input;
  if (x.is_floating_point()) x.requires_grad_(true);
  Tensor out = b.run(x, b.target);
  EXPECT_EQ(out.dtype(), dtype);
  EXPECT_EQ(out.sizes(), Shape(c.output_shape.begin(), c.output_shape.end()));
  expect_close("output", out, c.output, tol);
  (out * upstream(out).to(dtype)).sum().backward();
  if (!c.input_grad.empty()) expect_close("input grad", x.grad(), c.input_grad, tol);

  auto params = b.module->named_parameters();
  ASSERT_EQ(params.size(), c.param_grads.size()) << "parameter count";
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i].first, c.param_grads[i].first);
    expect_close("grad of " + params[i].first, params[i].second.grad(), c.param_grads[i].second, tol);
  }
  auto buffers = b.module->named_buffers();
  ASSERT_EQ(buffers.size(), c.buffers.size()) << "buffer count";
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(buffers[i].first, c.buffers[i].first);
    expect_close("buffer " + buffers[i].first, buffers[i].second, c.buffers[i].second, tol);
  }
}

class LayerReference : public ::testing::TestWithParam<LayerCase> {};

TEST_P(LayerReference, MatchesPyTorch) { check_against_pytorch(GetParam(), kFloat64, kFloat64Tolerance); }

// The same in float32 (nabla's float32 kernels, e.g. oneDNN GEMM), against
// PyTorch's float64 values.
TEST_P(LayerReference, MatchesPyTorchInFloat32) { check_against_pytorch(GetParam(), kFloat32, kFloat32Tolerance); }

// Finite-difference gradients of the case's forward in its floating inputs
// (the OpInfo gradcheck).
TEST_P(LayerReference, GradcheckInputs) {
  const LayerCase& c = GetParam();
  Built b = build(c);
  ASSERT_TRUE(b.module) << "no nabla builder for reference case " << c.name;
  testing::Tensors inputs{b.input};
  if (b.target.defined()) inputs.push_back(b.target);
  if (!b.input.is_floating_point() && !(b.target.defined() && b.target.is_floating_point())) GTEST_SKIP();
  testing::OpInfo info;
  info.name = c.name;
  info.run = [&](const testing::Tensors& in) {
    return testing::Tensors{b.run(in[0], in.size() > 1 ? in[1] : Tensor())};
  };
  EXPECT_EQ(testing::gradcheck(info, inputs), "");
}

// Central differences of <u, forward> in every parameter element against the
// autograd parameter gradients (float64; parameters are perturbed in place).
TEST_P(LayerReference, GradcheckParameters) {
  const LayerCase& c = GetParam();
  Built b = build(c);
  ASSERT_TRUE(b.module) << "no nabla builder for reference case " << c.name;
  if (b.module->parameters().empty()) GTEST_SKIP();
  Tensor out = b.run(b.input, b.target);
  Tensor u = upstream(out);
  (out * u).sum().backward();
  auto f = [&] {
    NoGradGuard g;
    return (b.run(b.input, b.target) * u).sum().item<double>();
  };
  // Embedding's padding row gets a zero gradient by design, not its derivative.
  std::optional<int64_t> skip_row;
  if (auto e = std::dynamic_pointer_cast<nn::Embedding>(b.module)) skip_row = e->padding_idx;
  const double eps = 1e-6, atol = 1e-5, rtol = 1e-3;
  for (auto& [name, p] : b.module->named_parameters()) {
    ASSERT_TRUE(p.is_contiguous());
    double* d = p.data_ptr<double>();
    std::vector<double> analytic = p.grad().to_vector<double>();
    for (int64_t i = 0; i < p.numel(); ++i) {
      if (skip_row && i / p.size(-1) == *skip_row) {
        ASSERT_EQ(analytic[static_cast<std::size_t>(i)], 0.0) << "padding row of " << name;
        continue;
      }
      double saved = d[i];
      d[i] = saved + eps;
      double up = f();
      d[i] = saved - eps;
      double down = f();
      d[i] = saved;
      double numeric = (up - down) / (2 * eps), a = analytic[static_cast<std::size_t>(i)];
      ASSERT_LE(std::abs(numeric - a), atol + rtol * std::abs(numeric))
          << name << "[" << i << "]: autograd " << a << ", finite differences " << numeric;
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<LayerCase>& info) { return info.param.name; }
INSTANTIATE_TEST_SUITE_P(Nn, LayerReference, ::testing::ValuesIn(kLayerCases), case_name);

// Every nabla builder has reference cases (the script and this file agree).
TEST(LayerReferenceCoverage, EveryBuilderHasACase) {
  std::set<std::string> names;
  for (const auto& c : kLayerCases) {
    names.insert(c.name);
    if (std::string(c.target_kind) != "none") {
      std::string n = c.name;
      names.insert(split_loss_name(n).first);
    }
  }
  for (const auto& [name, f] : layers()) EXPECT_TRUE(names.count(name)) << name << " has no reference case";
  for (const auto& [name, f] : losses()) EXPECT_TRUE(names.count(name)) << name << " has no reference case";
}

}  // namespace
}  // namespace nabla
