// Transforms (nabla/data/transforms.h): exact values of to_float, normalize,
// flips and crops; random transforms that are reproducible from the loader's
// seed for any num_workers, new each epoch, and cover every crop offset.
#include <gtest/gtest.h>

#include <set>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/tensor_values.h"

namespace nabla::data {
namespace {

using nabla::testing::double_values;
using nabla::testing::error_of;

// A uint8 image [1, 3, 4] with pixel (y, x) = 10 * y + x + 1.
Tensor small_image() {
  std::vector<uint8_t> v;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) v.push_back(static_cast<uint8_t>(10 * y + x + 1));
  return tensor(v, {1, 3, 4});
}

TEST(Transforms, ToFloatScalesUint8To01AndAddsTheChannelDim) {
  Tensor y = (*to_float())(tensor(std::vector<uint8_t>{0, 51, 255, 102}, {2, 2}));
  EXPECT_EQ(y.dtype(), kFloat32);
  EXPECT_EQ(y.sizes(), (Shape{1, 2, 2}));
  EXPECT_EQ(double_values(y), (std::vector<double>{0.0, 0.2f, 1.0, 0.4f}));
  Tensor f = tensor({0.5, 0.25}, dtype(kFloat64)).reshape({1, 1, 2});
  EXPECT_EQ(double_values((*to_float())(f)), (std::vector<double>{0.5, 0.25}));  // floating: unchanged
  EXPECT_NE(error_of([] { (*to_float())(zeros({4})); }).find("to_float: expected an image [C, H, W] or [H, W]"),
            std::string::npos);
  EXPECT_NE(error_of([] { (*to_float())(zeros({1, 2, 2}, kInt64)); }).find("uint8 or floating"), std::string::npos);
}

TEST(Transforms, NormalizePerChannel) {
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, dtype(kFloat64)).reshape({2, 1, 2});
  EXPECT_EQ(double_values((*normalize({1.0, 2.0}, {0.5, 4.0}))(x)), (std::vector<double>{0.0, 2.0, 0.25, 0.5}));
  EXPECT_EQ(double_values((*normalize({1.0}, {2.0}))(x)), (std::vector<double>{0.0, 0.5, 1.0, 1.5}));
  EXPECT_NE(error_of([&] {
              (*normalize({1, 2, 3}, {1, 1, 1}))(x);
            }).find("3 means for an image of 2 channels"),
            std::string::npos);
  EXPECT_NE(error_of([] { normalize({0}, {0}); }).find("std has a zero"), std::string::npos);
  EXPECT_NE(error_of([] { normalize({0, 1}, {1}); }).find("mean has 2 values and std 1"), std::string::npos);
  EXPECT_NE(error_of([] {
              (*normalize({0}, {1}))(zeros({1, 2, 2}, kUInt8));
            }).find("use to_float first"),
            std::string::npos);
}

TEST(Transforms, HorizontalFlipAlwaysOrNever) {
  Tensor x = small_image();
  EXPECT_EQ(double_values((*random_horizontal_flip(1.0))(x)),
            (std::vector<double>{4, 3, 2, 1, 14, 13, 12, 11, 24, 23, 22, 21}));
  EXPECT_EQ(double_values((*random_horizontal_flip(0.0))(x)), double_values(x));
  EXPECT_THROW(random_horizontal_flip(1.5), Error);
}

TEST(Transforms, RandomCropWithoutPaddingOfTheFullSizeIsTheImage) {
  Tensor x = small_image();
  EXPECT_EQ(double_values((*random_crop(3, 0))(x.narrow(2, 0, 3))), double_values(x.narrow(2, 0, 3)));
  EXPECT_NE(error_of([&] { (*random_crop(5, 0))(x); }).find("does not fit"), std::string::npos);
}

// Every 2x2 crop of the zero-padded 1x3x4 image (padding 1 -> 5x6) is one of
// the 4 * 5 windows; over many samples every window turns up.
TEST(Transforms, RandomCropCutsEveryWindowOfThePaddedImage) {
  Tensor x = small_image();
  Tensor padded = zeros({1, 5, 6}, kUInt8);
  padded.narrow(1, 1, 3).narrow(2, 1, 4).copy_(x);
  std::set<std::pair<int64_t, int64_t>> seen;
  auto crop = random_crop(2, 1);
  for (uint64_t i = 0; i < 400; ++i) {
    SampleRng rng(7, 0, i);
    Tensor c = (*crop)(x, rng);
    ASSERT_EQ(c.sizes(), (Shape{1, 2, 2}));
    ASSERT_EQ(c.dtype(), kUInt8);
    int matches = 0;
    for (int64_t top = 0; top < 4; ++top)
      for (int64_t left = 0; left < 5; ++left)
        if (double_values(padded.narrow(1, top, 2).narrow(2, left, 2)) == double_values(c)) {
          ++matches;
          seen.insert({top, left});
        }
    ASSERT_GE(matches, 1) << "crop " << i << " is no window of the padded image";
  }
  EXPECT_EQ(seen.size(), 20u);
}

TEST(Transforms, SampleRngIsAFunctionOfSeedEpochAndIndex) {
  SampleRng a(1, 2, 3), b(1, 2, 3), other_epoch(1, 3, 3), other_index(1, 2, 4);
  std::vector<uint32_t> va, vb, ve, vi;
  for (int i = 0; i < 9; ++i) {
    va.push_back(a.next_u32());
    vb.push_back(b.next_u32());
    ve.push_back(other_epoch.next_u32());
    vi.push_back(other_index.next_u32());
  }
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, ve);
  EXPECT_NE(va, vi);
  SampleRng r(5, 0, 0);
  for (int i = 0; i < 1000; ++i) {
    int64_t k = r.integer(-2, 3);
    ASSERT_TRUE(k >= -2 && k < 3) << k;
    double u = r.uniform();
    ASSERT_TRUE(u >= 0 && u < 1) << u;
  }
}

// Augmented MNIST-like batches: the same for 0, 1 and 3 workers, different in
// the next epoch and for another seed.
TEST(Transforms, AugmentedBatchesDependOnlyOnLoaderSeedAndEpoch) {
  manual_seed(0);
  Tensor images = randint(0, 256, {24, 8, 8}).to(kUInt8);
  auto base = std::make_shared<TensorDataset>(images, arange(24));
  auto augmented =
      transform(base, compose({to_float(), random_crop(8, 2), random_horizontal_flip(), normalize({0.5}, {0.25})}));
  auto epochs = [&](int workers, uint64_t seed) {
    DataLoader loader(augmented, {.batch_size = 5, .shuffle = true, .seed = seed, .num_workers = workers});
    std::vector<std::vector<double>> out;
    for (int e = 0; e < 2; ++e)
      for (const Example& b : loader) {
        EXPECT_EQ(b.data.sizes()[1], 1);
        out.push_back(double_values(b.data));
      }
    return out;
  };
  auto ref = epochs(0, 11);
  EXPECT_EQ(epochs(1, 11), ref);
  EXPECT_EQ(epochs(3, 11), ref);
  EXPECT_NE(epochs(0, 12), ref);
  // Epoch 1 is not epoch 0 replayed: compare sample by sample through the targets.
  DataLoader seq(augmented, {.batch_size = 24, .seed = 11});
  auto it = seq.begin();
  std::vector<double> e0 = double_values(it->data);
  auto it1 = seq.begin();
  EXPECT_NE(double_values(it1->data), e0);
  // Outside a loader the context is seed 0, epoch 0: get() is deterministic.
  EXPECT_EQ(double_values(augmented->get(3).data), double_values(augmented->get(3).data));
  EXPECT_EQ(augmented->get(3).target.item<int64_t>(), 3);
}

TEST(Transforms, ComposeAppliesInOrder) {
  Tensor x = small_image();
  auto t = compose({to_float(), random_horizontal_flip(1.0), normalize({4 / 255.0}, {1 / 255.0})});
  std::vector<double> got = double_values((*t)(x));
  std::vector<double> want = {0, -1, -2, -3, 10, 9, 8, 7, 20, 19, 18, 17};
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << i;
  EXPECT_THROW(compose({nullptr}), Error);
  EXPECT_THROW(TransformDataset(nullptr, to_float()), Error);
}

}  // namespace
}  // namespace nabla::data
