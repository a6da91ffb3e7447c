// bf16 autocast (issue 20, item 4; ops/autocast.h): which dtype each op
// gives inside the scope, nesting and disabling, float32 gradients for
// float32 parameters, bfloat16 results close to float32's, and a model
// trained under autocast as accurate as in float32.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "nabla/kernels/cpu/conv.h"
#include "nabla/nabla.h"
#include "nabla/ops/autocast.h"
#include "nabla/testing/assert_close.h"

namespace {

using namespace nabla;

// bfloat16 keeps 8 significant bits: a sum of k products rounded once, of
// operands rounded once each, is good to about 2^-8 relative.
const nabla::testing::CloseOptions kBf16Close{.rtol = 2e-2, .atol = 2e-2};

TEST(Autocast, MatrixProductsAndConvolutionsRunInBFloat16) {
  manual_seed(0);
  Tensor a = randn({8, 16}), b = randn({16, 4}), w = randn({4, 16}), bias = randn({4});
  Tensor x = randn({2, 3, 8, 8}), k = randn({5, 3, 3, 3}), kb = randn({5});
  AutocastGuard autocast(kBFloat16);
  EXPECT_TRUE(is_autocast_enabled());
  EXPECT_EQ(autocast_dtype(), kBFloat16);
  EXPECT_EQ(mm(a, b).dtype(), kBFloat16);
  EXPECT_EQ(matmul(a, b).dtype(), kBFloat16);
  EXPECT_EQ(bmm(a.unsqueeze(0), b.unsqueeze(0)).dtype(), kBFloat16);
  EXPECT_EQ(linear(a, w, bias).dtype(), kBFloat16);  // bias included, as PyTorch's linear
  EXPECT_EQ(addmm(randn({8, 4}), a, b).dtype(), kBFloat16);
  EXPECT_EQ(conv2d(x, k, kb, {1}, {1}).dtype(), kBFloat16);
  EXPECT_EQ(conv1d(randn({2, 3, 10}), randn({5, 3, 3})).dtype(), kBFloat16);
  EXPECT_EQ(conv_transpose2d(randn({2, 5, 4, 4}), k).dtype(), kBFloat16);
  // float64 is left alone, as PyTorch's autocast does.
  EXPECT_EQ(mm(a.to(kFloat64), b.to(kFloat64)).dtype(), kFloat64);
}

TEST(Autocast, Float32ListOpsRunInFloat32AndOthersKeepTheirInputsDtype) {
  manual_seed(1);
  Tensor h = randn({8, 10}).to(kBFloat16);
  Tensor y = randint(0, 10, {8});
  AutocastGuard autocast;
  EXPECT_EQ(softmax(h, 1).dtype(), kFloat32);
  EXPECT_EQ(log_softmax(h, 1).dtype(), kFloat32);
  EXPECT_EQ(cross_entropy(h, y).dtype(), kFloat32);
  EXPECT_EQ(mse_loss(h, zeros_like(h)).dtype(), kFloat32);
  EXPECT_EQ(sum(h).dtype(), kFloat32);
  EXPECT_EQ(mean(h).dtype(), kFloat32);
  EXPECT_EQ(exp(h).dtype(), kFloat32);
  EXPECT_EQ(log(abs(h) + 1).dtype(), kFloat32);
  EXPECT_EQ(layer_norm(h, {10}).dtype(), kFloat32);
  // Not on either list: the inputs' dtype, with PyTorch's promotion.
  EXPECT_EQ(relu(h).dtype(), kBFloat16);
  EXPECT_EQ((h + h).dtype(), kBFloat16);
  EXPECT_EQ((h + randn({8, 10})).dtype(), kFloat32);
}

TEST(Autocast, OutsideTheScopeNothingChanges) {
  Tensor a = randn({4, 4});
  { AutocastGuard autocast; }
  EXPECT_FALSE(is_autocast_enabled());
  EXPECT_EQ(mm(a, a).dtype(), kFloat32);
  EXPECT_EQ(softmax(a.to(kBFloat16), 1).dtype(), kBFloat16);
}

TEST(Autocast, NestedGuardsDisableAndRestore) {
  Tensor a = randn({4, 4});
  AutocastGuard outer(kBFloat16);
  {
    AutocastGuard off(kBFloat16, /*enabled=*/false);
    EXPECT_FALSE(is_autocast_enabled());
    EXPECT_EQ(mm(a, a).dtype(), kFloat32);
    {
      AutocastGuard half(kFloat16);
      EXPECT_EQ(mm(a, a).dtype(), kFloat16);  // correct, through float32 on the CPU
    }
    EXPECT_EQ(mm(a, a).dtype(), kFloat32);
  }
  EXPECT_TRUE(is_autocast_enabled());
  EXPECT_EQ(autocast_dtype(), kBFloat16);
  EXPECT_EQ(mm(a, a).dtype(), kBFloat16);
}

TEST(Autocast, RejectsOtherDtypesNamingTheGuard) {
  try {
    AutocastGuard bad(kFloat64);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AutocastGuard: dtype must be bfloat16 or float16, got float64"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(is_autocast_enabled());
}

// The op names in backticks on the row of docs/autocast.md's table that starts with `row`.
std::vector<std::string> documented_ops(const std::string& row) {
  std::ifstream doc(std::string(NABLA_TESTS_DIR) + "/../docs/autocast.md");
  std::string line;
  std::vector<std::string> names;
  while (std::getline(doc, line)) {
    if (line.rfind(row, 0) != 0) continue;
    for (std::size_t a = line.find('`'); a != std::string::npos; a = line.find('`', line.find('`', a + 1) + 1))
      names.push_back(line.substr(a + 1, line.find('`', a + 1) - a - 1));
  }
  return names;
}

TEST(Autocast, OpListsAreTheDocumentedOnes) {
  auto lower = autocast_ops(AutocastPolicy::LowerPrecision);
  EXPECT_EQ(lower, (std::vector<std::string_view>{"bmm", "conv2d", "conv_transpose2d", "mm"}));
  std::vector<std::string> lower_doc = documented_ops("| lower precision (bfloat16) |");
  for (std::string_view op : lower)
    EXPECT_NE(std::find(lower_doc.begin(), lower_doc.end(), op), lower_doc.end()) << op << " missing in the docs";
  auto fp32 = autocast_ops(AutocastPolicy::Float32);
  std::vector<std::string> fp32_doc = documented_ops("| float32 |");
  std::sort(fp32_doc.begin(), fp32_doc.end());
  EXPECT_EQ(std::vector<std::string>(fp32.begin(), fp32.end()), fp32_doc);
  EXPECT_EQ(autocast_policy("relu"), AutocastPolicy::None);
  EXPECT_EQ(autocast_policy("softmax"), AutocastPolicy::Float32);
}

// bfloat16 kernels (oneDNN matmul and convolutions, forward and both
// gradients) against float32 on the same (bfloat16-representable) values.
TEST(Autocast, BFloat16ResultsMatchFloat32) {
  manual_seed(2);
  auto bf = [](Tensor t) { return t.to(kBFloat16); };
  Tensor a = bf(randn({33, 70})), b = bf(randn({70, 20}));
  nabla::testing::assert_close(mm(a, b).to(kFloat32), mm(a.to(kFloat32), b.to(kFloat32)), kBf16Close);
  nabla::testing::assert_close(mm(b.t(), a.t()).to(kFloat32), mm(b.t().to(kFloat32), a.t().to(kFloat32)), kBf16Close);
  Tensor ba = bf(randn({3, 9, 17})), bb = bf(randn({3, 17, 5}));
  nabla::testing::assert_close(bmm(ba, bb).to(kFloat32), bmm(ba.to(kFloat32), bb.to(kFloat32)), kBf16Close);

  Tensor x = bf(randn({4, 6, 9, 9})), w = bf(randn({8, 6, 3, 3}) * 0.2), bias = bf(randn({8})), tbias = bf(randn({6}));
  for (bool onednn : {true, false}) {  // oneDNN's bfloat16 primitives, and the float32 fallback
    cpu::set_conv_onednn_enabled(onednn);
    nabla::testing::assert_close(conv2d(x, w, bias, {2}, {1}).to(kFloat32),
                                 conv2d(x.to(kFloat32), w.to(kFloat32), bias.to(kFloat32), {2}, {1}), kBf16Close);
    Tensor gy = bf(randn({4, 8, 5, 5}));
    nabla::testing::assert_close(conv_transpose2d(gy, w, tbias, {2}, {1}).to(kFloat32),
                                 conv_transpose2d(gy.to(kFloat32), w.to(kFloat32), tbias.to(kFloat32), {2}, {1}),
                                 kBf16Close);
    nabla::testing::assert_close(conv2d_weight_grad(x, gy, {8, 6, 3, 3}, {2}, {1}).to(kFloat32),
                                 conv2d_weight_grad(x.to(kFloat32), gy.to(kFloat32), {8, 6, 3, 3}, {2}, {1}),
                                 {.rtol = 2e-2, .atol = 1e-1});  // sums of 100 products: absolute error grows
  }
  cpu::set_conv_onednn_enabled(true);
  // float16 has no kernel of its own: computed in float32 and rounded.
  Tensor xh = x.to(kFloat16), wh = w.to(kFloat16);
  nabla::testing::assert_close(conv2d(xh, wh, Tensor(), {1}, {1}).to(kFloat32),
                               conv2d(xh.to(kFloat32), wh.to(kFloat32), Tensor(), {1}, {1}), kBf16Close);
}

// The slices of one bfloat16 product run the same oneDNN primitive on
// several threads at once: each with its own scratchpad, or the results
// vary from run to run (they did, 5 runs in 50, before).
TEST(Autocast, BFloat16MatmulIsDeterministicOnSeveralThreads) {
  manual_seed(4);
  Tensor a = randn({64, 3136}).to(kBFloat16), w = randn({128, 3136}).to(kBFloat16);
  int threads = get_num_threads();
  set_num_threads(2);
  Tensor first = mm(a, w.t());
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(equal(mm(a, w.t()), first)) << "run " << i;
  set_num_threads(threads);
}

// Master weights: float32 parameters used under autocast get float32
// gradients (through the casts' rules), close to float32 training's.
TEST(Autocast, GradientsReachFloat32ParametersAsFloat32) {
  manual_seed(3);
  Tensor x = randn({4, 3, 8, 8});
  Tensor k = (randn({6, 3, 3, 3}) * 0.3).requires_grad_(), kb = zeros({6}).requires_grad_();
  Tensor w = (randn({10, 6 * 16}) * 0.1).requires_grad_(), b = zeros({10}).requires_grad_();
  Tensor y = randint(0, 10, {4});
  auto loss_fn = [&] {
    Tensor h = max_pool2d(relu(conv2d(x, k, kb, {1}, {1})), 2, 2);
    return cross_entropy(linear(h.flatten(1), w, b), y);
  };
  Tensor loss;
  {
    AutocastGuard autocast;
    loss = loss_fn();
  }
  EXPECT_EQ(loss.dtype(), kFloat32);
  loss.backward();
  std::vector<Tensor> params{k, kb, w, b}, grads;
  for (Tensor& p : params) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().dtype(), kFloat32);
    grads.push_back(p.grad().clone());
    p.set_grad(Tensor());
  }
  loss_fn().backward();
  for (std::size_t i = 0; i < params.size(); ++i)
    nabla::testing::assert_close(grads[i], params[i].grad(), {.rtol = 5e-2, .atol = 5e-3});
}

// Issue 20's acceptance: a CNN trained under autocast reaches the float32
// accuracy within 0.5 points (Fashion-MNIST, 2000 training and 2000 test
// images, the same initial weights and batches).
double train_and_test(bool autocast) {
  static data::FashionMnist data = data::load_fashion_mnist("/usr/share/datasets/fashion-mnist", 2000);
  auto all = [](const data::DatasetPtr& d) {
    data::DataLoader loader(d, {.batch_size = 2000, .collate = data::collate_normalized});
    return *loader.begin();
  };
  static data::Example train = all(data.train), test = all(data.test);
  manual_seed(7);
  auto model = std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Conv2d>(1, 8, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::Conv2d>(8, 16, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(16 * 7 * 7, 10)});
  optim::Adam opt(model->parameters(), {{"lr", 3e-3}});
  const int64_t batch = 100;
  for (int epoch = 0; epoch < 3; ++epoch)
    for (int64_t i = 0; i < 2000; i += batch) {
      Tensor loss;
      {
        AutocastGuard guard(kBFloat16, autocast);
        loss = cross_entropy((*model)(train.data.narrow(0, i, batch)), train.target.narrow(0, i, batch));
      }
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
  for (const Tensor& p : model->parameters()) EXPECT_EQ(p.dtype(), kFloat32);
  NoGradGuard no_grad;
  AutocastGuard guard(kBFloat16, autocast);
  Tensor logits = (*model)(test.data);
  EXPECT_EQ(logits.dtype(), autocast ? kBFloat16 : kFloat32);
  return 100.0 * eq(logits.argmax(1), test.target).sum().item<int64_t>() / 2000.0;
}

TEST(Autocast, TrainedModelReachesFloat32AccuracyWithinHalfAPoint) {
  double fp32 = train_and_test(false), bf16 = train_and_test(true);
  EXPECT_GT(fp32, 75.0);  // a trained model, not chance
  EXPECT_NEAR(bf16, fp32, 0.5) << "float32 " << fp32 << "%, autocast " << bf16 << "%";
  std::printf("[ accuracy ] float32 %.2f%%, bf16 autocast %.2f%%\n", fp32, bf16);
}

}  // namespace
