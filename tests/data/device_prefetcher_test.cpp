// DataLoader's pin_memory and DevicePrefetcher on the opaque test device: the
// batches arrive on the device, in the loader's order, with the loader's
// values, each copied once.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "support/absent_device.h"
#include "support/error_message.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

std::shared_ptr<data::TensorDataset> dataset() {
  return std::make_shared<data::TensorDataset>(arange(40, TensorOptions(kFloat32)).reshape({10, 4}),
                                               arange(10, TensorOptions(kInt64)));
}

TEST(PinMemory, BatchesArePinnedWhenADeviceHasPinnedMemory) {
  opaque_device();
  for (int workers : {0, 2}) {
    data::DataLoader loader(dataset(), {.batch_size = 4, .num_workers = workers, .pin_memory = true});
    int n = 0;
    for (const data::Example& b : loader) {
      EXPECT_TRUE(b.data.is_pinned());
      EXPECT_TRUE(b.target.is_pinned());
      ++n;
    }
    EXPECT_EQ(n, 3);
  }
  data::DataLoader plain(dataset(), {.batch_size = 4});
  EXPECT_FALSE((*plain.begin()).data.is_pinned());
}

TEST(DevicePrefetcher, DeliversTheLoadersBatchesOnTheDevice) {
  for (bool pin : {false, true}) {
    data::DataLoader loader(dataset(), {.batch_size = 3, .shuffle = true, .seed = 5, .num_workers = 2, .pin_memory = pin});
    data::DataLoader reference(dataset(), {.batch_size = 3, .shuffle = true, .seed = 5});
    std::vector<data::Example> expected;
    for (const data::Example& b : reference) expected.push_back(b);
    reset_opaque_stats();
    data::DevicePrefetcher prefetcher(loader, opaque_device());
    EXPECT_EQ(prefetcher.size(), 4);
    std::size_t k = 0;
    for (const data::Example& b : prefetcher) {
      ASSERT_LT(k, expected.size());
      EXPECT_EQ(b.data.device(), opaque_device());
      EXPECT_EQ(b.target.device(), opaque_device());
      EXPECT_TRUE(equal(b.data.cpu(), expected[k].data));
      EXPECT_TRUE(equal(b.target.cpu(), expected[k].target));
      ++k;
    }
    EXPECT_EQ(k, expected.size());
    // Each batch crossed once: 10 rows of 4 floats and 10 int64 targets.
    EXPECT_EQ(opaque_stats().host_to_device_bytes, 10 * 4 * 4 + 10 * 8);
  }
}

TEST(DevicePrefetcher, EachBeginIsTheLoadersNextEpochAndBreakingEarlyIsFine) {
  data::DataLoader loader(dataset(), {.batch_size = 5, .shuffle = true, .seed = 1});
  data::DevicePrefetcher prefetcher(loader, opaque_device(1));
  Tensor first_epoch = (*prefetcher.begin()).data.cpu();
  Tensor second_epoch = (*prefetcher.begin()).data.cpu();
  EXPECT_FALSE(equal(first_epoch, second_epoch));
  EXPECT_EQ(loader.epoch(), 2u);
}

TEST(DevicePrefetcher, AnAbsentDeviceIsAClearError) {
  data::DataLoader loader(dataset(), {.batch_size = 5});
  const Device absent = absent_cuda_device();
  const std::string absent_text = absent.str() + " " + absent_cuda_words();
  expect_error(error_of([&] { data::DevicePrefetcher p(loader, absent); }),
               {"DevicePrefetcher", absent_text.c_str(), "devices present are cpu"});
}

}  // namespace
}  // namespace nabla::testing
