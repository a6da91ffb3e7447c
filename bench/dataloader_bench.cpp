// DataLoader prefetching: a dataset that takes 1 ms per sample (like decoding
// an image from disk), batches of 32, and a "training step" that takes as long
// as loading a batch (32 ms, slept, so the result does not depend on how many
// cores are free). Without workers an epoch costs load + step per batch; with
// workers the loading hides behind the step. Prints wall time per epoch for
// num_workers 0, 1, 2, 4.
//   usage: dataloader_bench [batches_per_epoch=20] [epochs=2]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "nabla/nabla.h"

using namespace nabla;
using namespace std::chrono;

namespace {

class SlowDataset : public data::Dataset {
 public:
  explicit SlowDataset(int64_t n) : n_(n) {}
  int64_t size() const override { return n_; }
  data::Example get(int64_t i) const override {
    std::this_thread::sleep_for(milliseconds(1));
    return {full({3, 32, 32}, double(i % 255)), full({}, double(i % 10), dtype(kInt64))};
  }

 private:
  int64_t n_;
};

}  // namespace

int main(int argc, char** argv) {
  const int64_t batches = argc > 1 ? std::atoll(argv[1]) : 20;
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 2;
  const int64_t batch_size = 32;
  const auto step = milliseconds(32);
  auto dataset = std::make_shared<SlowDataset>(batches * batch_size);
  std::printf("%lld batches of %lld, 1 ms per sample, %lld ms per step; ideal epoch %lld ms (overlapped) vs %lld ms\n",
              (long long)batches, (long long)batch_size, (long long)step.count(), (long long)(batches * step.count()),
              (long long)(2 * batches * step.count()));
  for (int workers : {0, 1, 2, 4}) {
    data::DataLoader loader(dataset, {.batch_size = batch_size, .shuffle = true, .seed = 1, .num_workers = workers});
    std::printf("num_workers %d:", workers);
    for (int e = 0; e < epochs; ++e) {
      const auto t0 = steady_clock::now();
      double checksum = 0;
      for (const data::Example& b : loader) {
        checksum += b.target.sum().item<int64_t>();
        std::this_thread::sleep_for(step);  // the training step
      }
      std::printf(" %7.1f ms", duration<double, std::milli>(steady_clock::now() - t0).count());
      if (checksum < 0) std::printf("?");
    }
    std::printf("\n");
  }
}
