// Channels-last tensors (nabla/core/memory_format.h, nabla/ops/memory_format.h):
// the stride rules (PyTorch's, size-1 dims included), the copies and
// factories, the CNN ops keeping the format with the values of the
// contiguous path, gradients in their inputs' formats, and float64
// gradchecks of conv2d, pooling and batch norm on channels-last inputs.
#include "nabla/ops/memory_format.h"

#include <gtest/gtest.h>

#include "nabla/kernels/cpu/conv.h"
#include "nabla/nabla.h"
#include "nabla/nn/config.h"
#include "nabla/nn/memory_format.h"
#include "support/op_info.h"

namespace nabla {
namespace {

using testing::gradcheck;
using testing::OpInfo;
using testing::Tensors;
constexpr MemoryFormat CL = MemoryFormat::ChannelsLast;
constexpr MemoryFormat Contig = MemoryFormat::Contiguous;

Tensor randn_(IntList sizes, DType t = kFloat32, uint64_t seed = 3) {
  manual_seed(seed);
  return randn(sizes, dtype(t));
}

std::string str(const Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

void expect_same_values(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << what << " at " << i;
}

// ---- the format API --------------------------------------------------------

TEST(MemoryFormat, ChannelsLastStridesAndChecks) {
  Tensor x = empty({2, 3, 4, 5}, {}, CL);
  EXPECT_EQ(x.strides(), (Shape{60, 1, 15, 3}));
  EXPECT_TRUE(is_contiguous(x, CL));
  EXPECT_FALSE(is_contiguous(x, Contig));
  EXPECT_FALSE(x.is_contiguous());
  EXPECT_EQ(suggest_memory_format(x), CL);
  Tensor c = empty({2, 3, 4, 5});
  EXPECT_TRUE(is_contiguous(c, Contig));
  EXPECT_FALSE(is_contiguous(c, CL));
  EXPECT_EQ(suggest_memory_format(c), Contig);
  // Both formats describe the same memory when C == 1 or H == W == 1;
  // suggest_memory_format then says Contiguous for contiguous strides (PyTorch).
  for (Shape s : {Shape{2, 1, 4, 5}, Shape{2, 3, 1, 1}}) {
    Tensor t = empty(s);
    EXPECT_TRUE(is_contiguous(t, CL)) << str(s);
    EXPECT_TRUE(is_contiguous(t, Contig)) << str(s);
    EXPECT_EQ(suggest_memory_format(t), Contig) << str(s);
  }
  // [2, 3, 1, 1] made channels-last: strides (3, 1, 3, 3), suggested channels-last.
  Tensor h = empty({2, 3, 1, 1}, {}, CL);
  EXPECT_EQ(h.strides(), (Shape{3, 1, 3, 3}));
  EXPECT_EQ(suggest_memory_format(h), CL);
  // [N, 1, 1, 1]: every stride 1, ambiguous: Contiguous (PyTorch's rule).
  EXPECT_EQ(suggest_memory_format(empty({4, 1, 1, 1}, {}, CL)), Contig);
  // An NHWC buffer viewed as NCHW is channels-last.
  EXPECT_TRUE(is_contiguous(permute(empty({2, 4, 5, 3}), {0, 3, 1, 2}), CL));
  EXPECT_FALSE(is_contiguous(empty({2, 3}), CL));
}

TEST(MemoryFormat, CopiesKeepValues) {
  Tensor x = randn_({2, 3, 4, 5});
  Tensor y = contiguous(x, CL);
  EXPECT_TRUE(is_contiguous(y, CL));
  EXPECT_TRUE(equal(y, x));
  EXPECT_TRUE(contiguous(y, CL).is_same(y));  // already in the format: itself
  Tensor back = contiguous(y, Contig);
  EXPECT_TRUE(back.is_contiguous());
  EXPECT_TRUE(equal(back, x));
  EXPECT_TRUE(y.contiguous().is_contiguous());
  EXPECT_TRUE(to(y, MemoryFormat::Preserve).is_same(y));
  EXPECT_TRUE(to(y, CL).is_same(y));
  // A one-channel batch is in both formats; to() restrides it to the
  // strides that suggest channels-last (PyTorch's x.to(memory_format=...)).
  Tensor gray = randn_({2, 1, 3, 3});
  EXPECT_TRUE(contiguous(gray, CL).is_same(gray));
  Tensor gray_cl = to(gray, CL);
  EXPECT_EQ(gray_cl.strides(), (Shape{9, 1, 3, 1}));
  EXPECT_EQ(suggest_memory_format(gray_cl), CL);
  EXPECT_TRUE(equal(gray_cl, gray));
  Tensor copied = to(y, CL, /*copy=*/true);
  EXPECT_FALSE(copied.is_same(y));
  EXPECT_TRUE(is_contiguous(copied, CL));
  EXPECT_TRUE(is_contiguous(clone(y, MemoryFormat::Preserve), CL));
  EXPECT_TRUE(clone(y).is_contiguous());  // nabla's clone(x): contiguous
  // A channels-last result is a fresh tensor: in-place ops with autograd work.
  Tensor w = randn_({1, 2, 3, 3}).requires_grad_();
  Tensor z = contiguous(w * 2.0, CL);
  z.add_(1.0);
  z.sum().backward();
  EXPECT_TRUE(allclose(w.grad(), full({1, 2, 3, 3}, 2.0)));
}

TEST(MemoryFormat, FactoriesAndLike) {
  Tensor z = zeros({2, 3, 2, 2}, {}, CL);
  EXPECT_TRUE(is_contiguous(z, CL));
  EXPECT_EQ(z.sum().item<double>(), 0.0);
  Tensor o = ones({2, 3, 2, 2}, dtype(kFloat64), CL);
  EXPECT_TRUE(is_contiguous(o, CL));
  EXPECT_EQ(o.sum().item<double>(), 24.0);
  EXPECT_EQ(full({1, 2, 2, 2}, 7, {}, CL).sum().item<double>(), 56.0);
  Tensor x = contiguous(randn_({2, 3, 4, 4}), CL);
  for (const Tensor& t : {empty_like(x), zeros_like(x), ones_like(x), full_like(x, 2), rand_like(x), randn_like(x)})
    EXPECT_TRUE(is_contiguous(t, CL) && !t.is_contiguous()) << str(t.strides());
  EXPECT_TRUE(zeros_like(x, Contig).is_contiguous());
  EXPECT_TRUE(is_contiguous(empty_like(randn_({2, 3, 4, 4}), CL), CL));
  EXPECT_TRUE(zeros_like(randn_({2, 3, 4, 4})).is_contiguous());
  Tensor leaf = randn_like(x, dtype(kFloat64).requires_grad());
  EXPECT_TRUE(leaf.is_leaf() && leaf.requires_grad() && is_contiguous(leaf, CL));
}

TEST(MemoryFormat, Errors) {
  auto message = [](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message([] { contiguous(randn_({2, 3, 4}), CL); }).find("contiguous: channels_last needs a 4-d tensor"),
            std::string::npos);
  EXPECT_NE(message([] { empty({2, 3}, {}, CL); }).find("empty: channels_last needs 4 sizes"), std::string::npos);
  EXPECT_NE(message([] { zeros({2, 3, 4, 4}, {}, MemoryFormat::Preserve); }).find("zeros: preserve_format needs a tensor"),
            std::string::npos);
  EXPECT_NE(message([] { is_contiguous(randn_({2, 3, 4, 4}), MemoryFormat::Preserve); }).find("is_contiguous:"),
            std::string::npos);
}

// ---- ops keep the format -----------------------------------------------------

TEST(MemoryFormat, ElementwiseFollowTheFirstFullSizeInput) {
  Tensor a = randn_({2, 3, 4, 4}, kFloat32, 1), b = randn_({2, 3, 4, 4}, kFloat32, 2);
  Tensor acl = contiguous(a, CL), bcl = contiguous(b, CL);
  Tensor bias = randn_({1, 3, 1, 1}, kFloat32, 4), bias3 = randn_({3, 1, 1}, kFloat32, 5);
  struct Case {
    const char* name;
    Tensor got, want;
    bool channels_last;
  };
  std::vector<Case> cases = {
      {"relu", relu(acl), relu(a), true},
      {"sigmoid", sigmoid(acl), sigmoid(a), true},
      {"gelu", gelu(acl), gelu(a), true},
      {"leaky_relu", leaky_relu(acl, 0.1), leaky_relu(a, 0.1), true},
      {"add cl+cl", acl + bcl, a + b, true},
      {"add cl+contiguous", acl + b, a + b, true},
      {"add contiguous+cl", a + bcl, a + b, false},  // the first input decides (TensorIterator)
      {"bias+cl", bias + acl, bias + a, true},       // broadcast inputs take no part
      {"cl*bias3", acl * bias3, a * bias3, true},
      {"scalar", acl * 2.0, a * 2.0, true},
      {"where", where(acl > 0, acl, bcl), where(a > 0, a, b), true},
      {"to float64", acl.to(kFloat64), a.to(kFloat64), true},
      {"compare", acl > bcl, a > b, true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(is_contiguous(c.got, CL) && !c.got.is_contiguous(), c.channels_last) << c.name;
    EXPECT_TRUE(equal(c.got, c.want)) << c.name;
  }
  Tensor inplace = clone(acl, MemoryFormat::Preserve);
  inplace.mul_(b);
  EXPECT_TRUE(is_contiguous(inplace, CL));
  EXPECT_TRUE(equal(inplace, a * b));
}

TEST(MemoryFormat, ConvPoolBatchNormKeepTheFormat) {
  for (DType t : {kFloat32, kFloat64}) {  // float32: oneDNN's NHWC kernels; float64: im2col
    Tensor x = randn_({2, 3, 8, 8}, t, 1), w = randn_({4, 3, 3, 3}, t, 2), b = randn_({4}, t, 3);
    Tensor xcl = contiguous(x, CL);
    const double tol = t == kFloat32 ? 1e-5 : 1e-12;
    auto check = [&](const Tensor& got, const Tensor& want, const std::string& what) {
      EXPECT_TRUE(is_contiguous(got, CL) && !got.is_contiguous()) << what << " " << dtype_name(t) << " " << str(got.strides());
      expect_same_values(got, want, tol, what);
    };
    check(conv2d(xcl, w, b, {1}, {1}), conv2d(x, w, b, {1}, {1}), "conv2d");
    check(conv2d(xcl, w, b, {2}, {1}), conv2d(x, w, b, {2}, {1}), "conv2d stride 2");
    check(conv2d(x, contiguous(w, CL), b, {1}, {1}), conv2d(x, w, b, {1}, {1}), "conv2d channels-last weight");
    Tensor wt = randn_({3, 2, 3, 3}, t, 6);
    check(conv_transpose2d(xcl, wt, Tensor(), {2}, {1}), conv_transpose2d(x, wt, Tensor(), {2}, {1}),
          "conv_transpose2d");
    check(conv_transpose2d(xcl, wt, randn_({2}, t, 7), {1}, {1}), conv_transpose2d(x, wt, randn_({2}, t, 7), {1}, {1}),
          "conv_transpose2d bias");
    auto [v, i] = max_pool2d_with_indices(xcl, {2});
    auto [v0, i0] = max_pool2d_with_indices(x, {2});
    check(v, v0, "max_pool2d");
    check(i, i0, "max_pool2d indices");
    check(avg_pool2d(xcl, {3}, {2}, {1}), avg_pool2d(x, {3}, {2}, {1}), "avg_pool2d");
    check(adaptive_avg_pool2d(xcl, {3, 3}), adaptive_avg_pool2d(x, {3, 3}), "adaptive_avg_pool2d");
    Tensor gamma = randn_({3}, t, 8), beta = randn_({3}, t, 9);
    Tensor rm = zeros({3}, dtype(t)), rv = ones({3}, dtype(t)), rm0 = zeros({3}, dtype(t)), rv0 = ones({3}, dtype(t));
    check(batch_norm(xcl, rm, rv, gamma, beta, true), batch_norm(x, rm0, rv0, gamma, beta, true), "batch_norm");
    expect_same_values(rv, rv0, tol, "batch_norm running_var");
    check(batch_norm(xcl, rm, rv, gamma, beta, false), batch_norm(x, rm0, rv0, gamma, beta, false), "batch_norm eval");
  }
}

// A small CNN block on channels-last input: every gradient in its leaf's
// format, equal to the contiguous run's.
TEST(MemoryFormat, GradientsComeBackInTheInputsFormats) {
  auto run = [](const Tensor& x, const Tensor& w) {
    Tensor rm = zeros({4}), rv = ones({4});
    Tensor y = relu(batch_norm(conv2d(x, w, Tensor(), {1}, {1}), rm, rv, Tensor(), Tensor(), true));
    return (max_pool2d(y, {2}) * arange(0.0, 16.0).view({1, 1, 4, 4})).sum();
  };
  Tensor x0 = randn_({2, 3, 8, 8}, kFloat32, 1), w0 = randn_({4, 3, 3, 3}, kFloat32, 2);
  Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_();
  run(x, w).backward();
  Tensor xcl = contiguous(x0, CL).requires_grad_(), wcl = contiguous(w0, CL).requires_grad_();
  run(xcl, wcl).backward();
  EXPECT_TRUE(is_contiguous(xcl.grad(), CL) && !xcl.grad().is_contiguous()) << str(xcl.grad().strides());
  EXPECT_TRUE(is_contiguous(wcl.grad(), CL) && !wcl.grad().is_contiguous()) << str(wcl.grad().strides());
  expect_same_values(xcl.grad(), x.grad(), 1e-4, "x.grad");
  expect_same_values(wcl.grad(), w.grad(), 1e-4, "w.grad");
  // A contiguous leaf converted inside the graph keeps a contiguous gradient.
  Tensor xc = x0.clone().requires_grad_();
  run(contiguous(xc, CL), w0).backward();
  EXPECT_TRUE(xc.grad().is_contiguous());
}

// Float64 gradchecks with the inputs converted to channels-last inside the
// checked function, so the ops and their backward see channels-last tensors.
OpInfo channels_last_info(const std::string& name, std::function<Tensor(const Tensors&)> f) {
  OpInfo info;
  info.name = name;
  info.run = [f](const Tensors& in) {
    Tensors cl;
    for (const Tensor& t : in) cl.push_back(t.dim() == 4 ? contiguous(t, CL) : t);
    Tensor y = f(cl);
    EXPECT_TRUE(is_contiguous(y, CL)) << str(y.strides());
    return Tensors{y};
  };
  info.gradgrad = false;
  return info;
}

TEST(MemoryFormat, GradcheckChannelsLastFloat64) {
  auto s = [](IntList sizes, uint64_t seed) { return testing::sample(sizes, -1.0, 1.0, seed); };
  Tensor x = s({2, 3, 5, 5}, 1);
  struct Case {
    OpInfo info;
    Tensors inputs;
  };
  std::vector<Case> cases = {
      {channels_last_info("conv2d", [](const Tensors& in) { return conv2d(in[0], in[1], in[2], {2}, {1}); }),
       {x, s({4, 3, 3, 3}, 2), s({4}, 3)}},
      {channels_last_info("conv_transpose2d",
                          [](const Tensors& in) { return conv_transpose2d(in[0], in[1], Tensor(), {2}, {1}); }),
       {x, s({3, 2, 3, 3}, 4)}},
      {channels_last_info("max_pool2d", [](const Tensors& in) { return max_pool2d(in[0], {2}, {2}, {1}); }), {x}},
      {channels_last_info("avg_pool2d", [](const Tensors& in) { return avg_pool2d(in[0], {3}, {2}, {1}); }), {x}},
      {channels_last_info("batch_norm",
                          [](const Tensors& in) {
                            return batch_norm(in[0], Tensor(), Tensor(), in[1], in[2], true);
                          }),
       {x, s({3}, 5), s({3}, 6)}},
  };
  for (const Case& c : cases) EXPECT_EQ(gradcheck(c.info, c.inputs), "") << c.info.name;
}

// conv2d_nhwc (an NHWC input viewed as channels-last NCHW) runs oneDNN on the
// NHWC data in place and returns a contiguous NHWC result.
TEST(MemoryFormat, Conv2dNhwcIsChannelsLast) {
  Tensor x = randn_({2, 6, 6, 3}), w = randn_({4, 3, 3, 3}, kFloat32, 2);
  Tensor y = conv2d_nhwc(x, w, Tensor(), {1}, {1});
  EXPECT_TRUE(y.is_contiguous());
  expect_same_values(y, permute(conv2d(permute(x, {0, 3, 1, 2}).contiguous(), w, Tensor(), {1}, {1}), {0, 2, 3, 1}),
                     1e-5, "conv2d_nhwc");
}

// ---- layers: data_format = "NHWC", and models run channels-last ----------

// An NHWC layer on NHWC data equals the NCHW layer on the permuted data.
TEST(MemoryFormat, NhwcLayersEqualNchwOnPermutedData) {
  manual_seed(11);
  Tensor x_nhwc = randn({2, 6, 6, 3});
  Tensor x_nchw = permute(x_nhwc, {0, 3, 1, 2}).contiguous();
  auto nhwc = [](const Tensor& y) { return permute(y, {0, 2, 3, 1}); };
  nn::Conv2d conv(3, 4, 3, 1, 1), conv_nhwc(3, 4, 3, 1, 1, 1, 1, true, "NHWC");
  {
    NoGradGuard g;
    conv_nhwc.weight.copy_(conv.weight);
    conv_nhwc.bias.copy_(conv.bias);
  }
  Tensor y = conv_nhwc(x_nhwc);
  EXPECT_EQ(y.sizes(), (Shape{2, 6, 6, 4}));
  EXPECT_TRUE(y.is_contiguous());  // oneDNN wrote NHWC: the NHWC view of it is plain contiguous
  expect_same_values(y, nhwc(conv(x_nchw)), 1e-5, "Conv2d NHWC");
  nn::MaxPool2d pool(2), pool_nhwc(2, std::nullopt, 0, 1, false, "NHWC");
  expect_same_values(pool_nhwc(x_nhwc), nhwc(pool(x_nchw)), 0, "MaxPool2d NHWC");
  nn::AvgPool2d avg(3, 2, 1), avg_nhwc(3, 2, 1, false, true, std::nullopt, "channels_last");
  expect_same_values(avg_nhwc(x_nhwc), nhwc(avg(x_nchw)), 1e-6, "AvgPool2d NHWC");
  nn::AdaptiveAvgPool2d ada(2), ada_nhwc(2, "NHWC");
  expect_same_values(ada_nhwc(x_nhwc), nhwc(ada(x_nchw)), 1e-6, "AdaptiveAvgPool2d NHWC");
  nn::BatchNorm2d bn(3), bn_nhwc(3, 1e-5, 0.1, true, true, "NHWC");
  expect_same_values(bn_nhwc(x_nhwc), nhwc(bn(x_nchw)), 1e-5, "BatchNorm2d NHWC");
  expect_same_values(bn_nhwc.running_var, bn.running_var, 1e-6, "BatchNorm2d NHWC running_var");
  EXPECT_NE(conv_nhwc.extra_repr().find("data_format=NHWC"), std::string::npos);
  try {
    nn::Conv2d bad(3, 4, 3, 1, 0, 1, 1, true, "HWCN");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nn::Conv2d: data_format must be \"NCHW\" or \"NHWC\""), std::string::npos)
        << e.what();
  }
}

// A Sequential of NHWC layers survives its config (Keras's get_config) and the
// shape check follows NHWC shapes.
TEST(MemoryFormat, NhwcLayersInConfigs) {
  auto model = std::make_shared<nn::Sequential>();
  model->push_back(std::make_shared<nn::Conv2d>(3, 8, 3, 1, 1, 1, 1, true, "NHWC"));
  model->push_back(std::make_shared<nn::BatchNorm2d>(8, 1e-5, 0.1, true, true, "NHWC"));
  model->push_back(std::make_shared<nn::MaxPool2d>(2, std::nullopt, 0, 1, false, "NHWC"));
  model->push_back(std::make_shared<nn::AdaptiveAvgPool2d>(1, "NHWC"));
  nn::Json j = nn::config(*model);
  EXPECT_EQ(j.dump().find("NCHW"), std::string::npos);
  EXPECT_EQ(nn::check_shapes(j, {8, 8, 3}), (std::vector<int64_t>{1, 1, 8}));  // one sample, [H, W, C]
  EXPECT_EQ(nn::config(*nn::from_config(j)).dump(), j.dump());
  // NCHW layers write no data_format: their configs are unchanged.
  EXPECT_EQ(nn::config(nn::Conv2d(3, 8, 3)).dump().find("data_format"), std::string::npos);
}

// A zoo model run channels-last (nn::to(model, ChannelsLast), PyTorch's
// model.to(memory_format=...)) gives the contiguous run's outputs and gradients.
TEST(MemoryFormat, ZooModelRunsChannelsLast) {
  manual_seed(5);
  nn::ModulePtr a = zoo::fashion_cnn();
  manual_seed(5);
  nn::ModulePtr b = zoo::fashion_cnn();
  nn::to(*b, CL);
  Tensor w0 = b->parameters()[0];
  EXPECT_EQ(suggest_memory_format(w0), CL);
  a->eval();  // dropout off (the two runs would draw different masks)
  b->eval();
  Tensor x = randn_({2, 1, 28, 28});
  Tensor ya = (*a)(x), yb = (*b)(to(x, CL));
  expect_same_values(yb, ya, 1e-4, "fashion_cnn channels-last");
  ya.sum().backward();
  yb.sum().backward();
  EXPECT_TRUE(is_contiguous(w0.grad(), CL));
  expect_same_values(w0.grad(), a->parameters()[0].grad(), 1e-3, "conv1 weight grad");
}

}  // namespace
}  // namespace nabla
